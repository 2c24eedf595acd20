"""``holdem bench audit``: hands per second per core of every registered audit's map, and of
reading the batch files, on one process. Times are CPU seconds of the process (all its threads:
pyarrow may decode columns on several), so every figure is per core.

Reading is timed one batch at a time (each dropped before the next is read, as ``holdem audit``
reads) and split into pyarrow's Parquet decoding of the columns the audits read and the rest
(numpy views, checks, unpacking the action records); as a peer measured on the same files,
pyarrow decoding four columns (hand_id, button, deck, rake). The sha256 of every file's bytes
(one streaming pass, what ``holdem audit`` adds to bind the verdict to the bytes) is timed on the
same files, with its share of read + all audits.

The hands: ``--run RUN`` times an existing run folder (e.g. to compare two versions on the same
files); otherwise the benchmark's first, untimed step simulates one (``holdem simulate
--workers 0`` of the ``--population`` preset, seed 1, batches of up to 100,000 hands) into a
temporary folder, in the log's own encoding, as ``holdem audit`` reads it. The timed code is
the audits' own (``audits.io``, ``audits.runner``'s registry, ``audits.keyed``): this module
lives in cluster/ because it also drives the simulator, which the audits may not import.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from audits.io import Batch, open_checked, read_batch, run_files
from audits.keyed import check_keyed
from audits.registry import REGISTRY, resolve
from audits.runfolder import storage
from audits.runfolder.storage import Location
from cluster.bench.runs import PEER_COLUMNS, simulate_bench_run

# audits whose map reads what other maps leave in ``Batch.derived``
PREREQUISITES = {"coverage": ("payouts", "betting")}


def _batches(hands: int, run: Location) -> list[Location]:
    """The first files of ``run`` that hold at least ``hands`` hands (all of them if fewer)."""
    files, n = [], 0
    for f in run_files(run):
        files.append(f)
        n += storage.open_parquet(f).metadata.num_rows
        if n >= hands:
            break
    return files


def _user_seconds() -> float:
    """CPU seconds this process spent in user mode (all threads); without ``resource`` (not
    POSIX), its CPU time."""
    try:
        import resource
    except ImportError:
        return time.process_time()
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime


def _rederivation_rate(batches: list[Batch], repeats: int) -> float | None:
    """Hands per second of the deal audit's key check alone (every deck against its key)."""
    work = []
    for b in batches:
        values, off = b.var["seed_key"]
        if b.deck is None or not len(values) or not (np.diff(off) == 3).all():
            return None
        keys = values.astype(np.uint64).reshape(b.n, 3)
        work.append((b.deck, keys[:, 0].copy(), keys[:, 1].copy(), keys[:, 2].copy(),
                     np.ones(b.n, np.bool_), np.zeros(b.n, np.int8)))
    check_keyed(*work[0][:4], work[0][4][:1], work[0][5][:1])  # compile
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        for args in work:
            check_keyed(*args)
        times.append(time.process_time() - t0)
    if any(w[5].any() for w in work):
        raise RuntimeError("bench run: a deck is not its key's")
    return sum(b.n for b in batches) / statistics.median(times)


def run_audit_bench(hands: int, run: Location | None = None, *, population: str = "default",
                    names: Sequence[str] | None = None, repeats: int = 3,
                    show: bool = True) -> dict[str, Any]:
    """Time reading and every audit's map over the first ``hands`` hands of the run folder
    ``run`` (median of ``repeats``), in this process (one core); without ``run``, over a run of
    ``hands`` hands of the ``population`` preset simulated first (untimed) into a temporary
    folder. Returns {"hands", "read", "read_user_us", "audits": {name: hands_per_second},
    "all_audits",
    "read_and_all_audits", ...}."""
    if run is None:
        with tempfile.TemporaryDirectory(prefix="holdem-bench-audit-") as tmp:
            simulate_bench_run(f"{tmp}/run", hands, population)
            return run_audit_bench(hands, f"{tmp}/run", names=names, repeats=repeats, show=show)
    selected = resolve(names)
    files = _batches(hands, run)
    batches: list[Batch] = [read_batch(f) for f in files]  # for the maps (untimed)
    read_s, read_user_s, parquet_s, peer_s, sha_s = [], [], [], [], []
    for _ in range(repeats):
        t0 = time.process_time()
        for f in files:
            storage.file_sha256(f)
        sha_s.append(time.process_time() - t0)
        # one batch alive at a time, as `holdem audit` reads: with the batches kept alive each
        # read faulted in fresh memory, whose kernel time swung 0.07-1.1 µs/hand between runs
        # (0.06-0.3 this way; the user time, 0.4-0.5, does not swing)
        t0, u0 = time.process_time(), _user_seconds()
        for f in files:
            read_batch(f)
        read_s.append(time.process_time() - t0)
        read_user_s.append(_user_seconds() - u0)
        for f in files:
            pf, columns = open_checked(f)
            t0 = time.process_time()
            pf.read(columns=columns)
            t1 = time.process_time()
            pf.read(columns=[c for c in PEER_COLUMNS if c in columns])
            parquet_s.append(t1 - t0)
            peer_s.append(time.process_time() - t1)
    n = sum(b.n for b in batches)
    out: dict[str, Any] = {"hands": n, "read": n / statistics.median(read_s),
                           "read_user_us": 1e6 * statistics.median(read_user_s) / n,
                           "parquet_decode": repeats * n / sum(parquet_s),
                           "peer_parquet_decode": repeats * n / sum(peer_s), "audits": {}}
    for name in selected:
        spec = REGISTRY[name]
        spec.map(batches[0])  # compile
        times = []
        for _ in range(repeats):
            elapsed = 0.0
            for b in batches:
                # a fresh batch as in `holdem audit`: what maps share (the table order) is
                # paid by the one that computes it; the maps whose per-hand flags this one
                # reads run first, untimed
                b.derived = {}
                for before in PREREQUISITES.get(name, ()):
                    if before in selected:
                        REGISTRY[before].map(b)
                t0 = time.process_time()
                spec.map(b)
                elapsed += time.process_time() - t0
            times.append(elapsed)
        out["audits"][name] = n / statistics.median(times)
    keyed = _rederivation_rate(batches, repeats)
    if keyed:
        out["deck_rederivation"] = keyed
    total = sum(n / v for v in out["audits"].values())
    out["all_audits"] = n / total if total > 0 else None
    out["read_and_all_audits"] = n / (total + n / out["read"]) if total > 0 else None
    out["sha256"] = n / statistics.median(sha_s) if statistics.median(sha_s) > 0 else None
    out["sha256_bytes_per_second"] = (sum(storage.file_sha256(f)[1] for f in files)
                                      / statistics.median(sha_s)) if out["sha256"] else None
    if show:
        print(f"audit bench: {n:,} hands, one process, median of {repeats}")
        print(f"  {'read + decode':<16} {out['read']:>14,.0f} hands/s, of which pyarrow's "
              f"Parquet decoding {out['parquet_decode']:,.0f} hands/s "
              f"({1e6 / out['parquet_decode']:.2f} µs/hand); user time "
              f"{out['read_user_us']:.2f} µs/hand (the rest, the kernel's, swings with the load)")
        print(f"  {'peer':<16} {out['peer_parquet_decode']:>14,.0f} hands/s: pyarrow decoding "
              f"{len(PEER_COLUMNS)} columns ({', '.join(PEER_COLUMNS)}) of the same files")
        for name, v in out["audits"].items():
            print(f"  {name:<16} {v:>14,.0f} hands/s")
            if name == "deal" and "deck_rederivation" in out:
                print(f"  {'  of which keys':<16} {out['deck_rederivation']:>14,.0f} hands/s: "
                      "each deck re-derived from its seed_key (audits.keyed) alone")
        if out["all_audits"]:
            print(f"  {'all audits':<16} {out['all_audits']:>14,.0f} hands/s (excluding read)")
            print(f"  {'read + all':<16} {out['read_and_all_audits']:>14,.0f} hands/s")
        if out["sha256"]:
            extra = 1 / out["sha256"]
            base = 1 / out["read_and_all_audits"] if out["read_and_all_audits"] else 0.0
            print(f"  {'sha256 of files':<16} {out['sha256']:>14,.0f} hands/s "
                  f"({out['sha256_bytes_per_second'] / 1e6:,.0f} MB/s; "
                  f"{1e6 * extra:.3f} µs/hand"
                  + (f", +{100 * extra / base:.2f}% on read + all audits)" if base else ")"))
    return out
