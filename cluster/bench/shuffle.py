"""``holdem bench shuffle``: decks per second per core of the deck-only path, in this process
(one core), and the same pipeline fed by numpy's own shuffles (a peer on the same machine).

Stages, each the median of ``repeats`` runs over ``decks`` decks:

- shuffle: the decks alone (``sim.deckgen``; the game's decks for their keys);
- shuffle + write: and their deck-only Parquet file written (encode + write + rename);
- read + battery: the audit of that file (bytes read and hashed, decoded, the battery's map,
  the keyed re-derivation, the collision keys spilled);
- shuffle + write, then read + battery: the two stages one after the other (1 / (1/a + 1/b));
- end to end: ``holdem shuffle`` in this process (``--workers 0``): shuffle, write, manifest,
  read back, audit, reduce, certificate.

The peer: ``numpy.random.Generator.permutation(52)`` called once a deck (numpy's shuffle API
for one deck) and ``Generator.permuted(..., axis=1)`` (numpy's batched shuffle of rows), then the
same write, read and battery (no re-derivation: numpy's decks have no key). Then the peak
memory of ``holdem shuffle --keep-decks false`` in this process for two run sizes.

The stage profile (ns a deck, medians): the audit of one file taken apart (bytes read, sha256,
Parquet decode, the one compiled pass of ``audits.deckpass``: battery map, re-derivation and
key grouping, the key file written) and the end-to-end run's own timings (shuffle + write,
audit, reduce, the rest: manifest, certificate and report).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import numpy as np


def _median_rate(fn: Callable[[], Any], n: int, repeats: int) -> float:
    fn()  # warm-up (compiled code loaded)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return n / statistics.median(times)


def _pipeline(make: Callable[[int], np.ndarray], n: int, repeats: int, tmp: Path,
              keyed: bool) -> dict[str, float]:
    """Rates of shuffle, shuffle + write, read + battery for one deck source."""
    from audits.deckaudit import audit_deck_file
    from audits.runfolder.storage import put_atomic, split
    from cluster.flows.shuffle import ShuffleSpec, encode_decks

    spec = ShuffleSpec(decks=n)
    out = tmp / "batch.parquet"
    sha = [""]

    def write() -> None:
        import hashlib

        data = encode_decks(make(n), 0, spec, 0)
        fs, path = split(out)
        put_atomic(fs, path, data)
        sha[0] = hashlib.sha256(data).hexdigest()

    def audit() -> None:
        audit_deck_file(out, sha[0], 1 if keyed else None, tmp / "keys.npy")

    return {"shuffle": _median_rate(lambda: make(n), n, repeats),
            "shuffle_write": _median_rate(write, n, repeats),
            "read_battery": _median_rate(audit, n, repeats)}


def _audit_profile(n: int, repeats: int, tmp: Path) -> dict[str, float]:
    """ns a deck of each stage of one deck file's audit (keyed decks)."""
    import hashlib

    import pyarrow as pa
    import pyarrow.parquet as pq

    from audits.deckaudit import save_keys
    from audits.deckpass import deck_pass
    from audits.runfolder.storage import read_bytes
    from cluster.flows.shuffle import ShuffleSpec, encode_decks
    from sim.deckgen import philox_decks

    out = tmp / "profile.parquet"
    out.write_bytes(encode_decks(philox_decks(1, 0, n), 0, ShuffleSpec(decks=n), 0))
    data = read_bytes(out)
    table = pq.read_table(pa.BufferReader(data), columns=["hand_id", "deck"])
    col = table.column("deck").combine_chunks()
    decks = np.frombuffer(col.buffers()[1], np.uint8)[:n * 52].reshape(n, 52)
    ids = table.column("hand_id").to_numpy()
    got = deck_pass(decks, ids, 1)
    stages: dict[str, Callable[[], Any]] = {
        "read": lambda: read_bytes(out),
        "sha256": lambda: hashlib.sha256(data).hexdigest(),
        "parquet decode": lambda: pq.read_table(pa.BufferReader(data),
                                                columns=["hand_id", "deck"]),
        "one pass (battery, re-derivation, keys)": lambda: deck_pass(decks, ids, 1),
        "battery alone (no re-derivation)": lambda: deck_pass(decks, ids, None),
        "key file written": lambda: save_keys(tmp / "profile-keys.npy", got.keys)}
    return {k: 1e9 / _median_rate(f, n, repeats) for k, f in stages.items()}


def _end_to_end(n: int, repeats: int, tmp: Path, keep: bool,
                stages: dict[str, float] | None = None) -> tuple[float, float | None]:
    """decks/s of ``holdem shuffle`` in this process and its peak memory; ``stages`` gets the
    median ns a deck of the run's own timings."""
    from cluster.flows.shuffle import ShuffleSpec, run_shuffle

    rates, rss = [], None
    parts: dict[str, list[float]] = {}
    for r in range(repeats + 1):
        cert = run_shuffle(ShuffleSpec(decks=n, batch_size=min(n, 1_000_000), keep_decks=keep),
                           tmp / f"run-{keep}-{n}-{r}", workers=0, progress=False)
        if r:  # the first run warms up
            t = cert["timings"]
            rates.append(n / t["wall_seconds"])
            got = {k: t.get(f"{k}_seconds", 0.0) for k in ("shuffle_write", "audit", "reduce")}
            got["rest (manifest, certificate, report)"] = t["wall_seconds"] - sum(got.values())
            for k, v in got.items():
                parts.setdefault(k, []).append(v * 1e9 / n)
        rss = cert["timings"].get("driver_peak_rss_mb")
        import shutil

        shutil.rmtree(tmp / f"run-{keep}-{n}-{r}", ignore_errors=True)
    if stages is not None:
        stages.update({k: statistics.median(v) for k, v in parts.items()})
    return statistics.median(rates), rss


def run_shuffle_bench(decks: int = 1_000_000, repeats: int = 3,
                      memory_sizes: tuple[int, ...] = (), out: TextIO | None = None
                      ) -> dict[str, Any]:
    """Print and return the figures (see the module docstring)."""
    from sim.deckgen import philox_decks

    out = out or sys.stdout
    res: dict[str, Any] = {"decks": decks, "repeats": repeats}
    with tempfile.TemporaryDirectory(prefix="holdem-bench-shuffle-") as t:
        tmp = Path(t)
        res["ours"] = _pipeline(lambda n: philox_decks(1, 0, n), decks, repeats, tmp, True)
        res["profile"] = {"audit of one file": _audit_profile(decks, repeats, tmp),
                          "end to end": {}}
        res["ours"]["end_to_end"], _ = _end_to_end(decks, repeats, tmp, True,
                                                   res["profile"]["end to end"])
        res["ours"]["end_to_end_not_kept"], _ = _end_to_end(decks, repeats, tmp, False)
        rng = np.random.default_rng(1)
        base = np.tile(np.arange(52, dtype=np.uint8), (decks, 1))
        one = max(decks // 10, 1)
        res["numpy_permutation"] = {"shuffle": _median_rate(
            lambda: [rng.permutation(52) for _ in range(one)], one, repeats)}
        res["numpy_permuted"] = _pipeline(lambda n: rng.permuted(base[:n], axis=1), decks,
                                          repeats, tmp, False)
        for r in (res["ours"], res["numpy_permuted"]):
            r["stages_summed"] = 1 / (1 / r["shuffle_write"] + 1 / r["read_battery"])
        for n in memory_sizes:
            res.setdefault("memory", {})[n] = _end_to_end(n, 0, tmp, False)[1]
    rows = [("shuffle", "shuffle"), ("shuffle + write", "shuffle_write"),
            ("read + battery", "read_battery"),
            ("shuffle + write, then read + battery", "stages_summed"),
            ("end to end (decks kept)", "end_to_end"),
            ("end to end (--keep-decks false)", "end_to_end_not_kept")]
    print(f"holdem bench shuffle: {decks:,} decks, median of {repeats}, one core "
          "(decks/s per core)", file=out)
    print(f"{'stage':34s} {'ours':>12s} {'numpy permuted':>16s} {'numpy permutation':>18s}",
          file=out)
    for label, key in rows:
        a = res["ours"].get(key)
        b = res["numpy_permuted"].get(key)
        c = res["numpy_permutation"].get(key)
        print(f"{label:34s} {a:>12,.0f} {'' if b is None else f'{b:,.0f}':>16s} "
              f"{'' if c is None else f'{c:,.0f}':>18s}", file=out)
    print(f"end to end / numpy permuted shuffle: "
          f"{res['ours']['end_to_end'] / res['numpy_permuted']['shuffle']:.2f}x", file=out)
    for part, stages in res["profile"].items():
        print(f"stage profile, {part} (ns a deck): " + "; ".join(
            f"{k} {v:,.1f}" for k, v in stages.items()), file=out)
    for n, mb in (res.get("memory") or {}).items():
        print(f"peak memory, --keep-decks false, {n:,} decks in this process: {mb} MB",
              file=out)
    return res
