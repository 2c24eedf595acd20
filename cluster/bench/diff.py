"""``holdem bench diff``: the speed of ``holdem diff``.

Three figures, each the median of ``repeats`` (CPU seconds of this process, one thread):

- digest + match: both sides' per-hand digests of in-memory Arrow tables, sorted and matched
  (the hand diff's own work, without reading files); the peer in the same run is Arrow's
  ``Table.equals`` over the same two tables, which reads every byte but only answers "all equal
  or not" (no per-hand verdict, no hand_id matching);
- the command on disk (``diff_runs``, one thread) for two identical runs (byte-identical batch
  files, only hand_id read), for the same hands in other bytes: by default (every hand decoded,
  hashed and checked against its stored digest), with ``--trust-digests`` (the stored digest
  column read), with ``--recompute`` (every hand decoded and hashed); and the sha256 of both
  runs' files alone (what every mode pays to check the bytes against the manifests).

Rates are hands per second per core, counting each matched hand once (both sides are hashed).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from audits.runfolder import file_sha256, list_batch_files
from cluster.bench.timing import median_cpu_seconds
from cluster.regression.digest_diff import diff_runs, match_digests, sorted_by_hand_id
from sim.digest import content_columns, hand_digests


def run_diff_bench(hands: int = 2_000_000, repeats: int = 3,
                   say: Callable[[str], None] = print) -> dict[str, Any]:
    """Print the figures; return them (matched hands/s per core): ``digest_match``, its peer
    ``peer_arrow_equals``, ``on_disk`` (label -> rate) and ``sha256_both``."""
    from cluster.flows.simulate import run_simulate
    from sim.batch import simulate_batch
    from sim.config import Structure
    from sim.runspec import RunSpec

    unit = min(hands, 100_000)
    spec = RunSpec(hands=unit, batch_size=unit, structures=(Structure.NO_LIMIT,))
    t = simulate_batch(spec, Structure.NO_LIMIT, 0).table
    sink = pa.BufferOutputStream()
    pq.write_table(t, sink)
    t2 = pq.read_table(pa.BufferReader(sink.getvalue()))  # same values, other buffers
    reps = -(-hands // unit)
    n = reps * unit
    ids = np.arange(n, dtype=np.int64)
    cols = content_columns(t.schema.names)
    hand_digests(t.slice(0, 100), cols)  # compile

    def digest_match() -> None:
        da = np.concatenate([hand_digests(t, cols) for _ in range(reps)])
        db = np.concatenate([hand_digests(t2, cols) for _ in range(reps)])
        ia, da = sorted_by_hand_id("a", ids, da)
        ib, db = sorted_by_hand_id("b", ids.copy(), db)
        match_digests(ia, da, ib, db)

    def arrow_equals() -> None:
        for _ in range(reps):
            if not t.equals(t2):
                raise AssertionError("the two copies differ")

    ours = median_cpu_seconds(digest_match, repeats)
    peer = median_cpu_seconds(arrow_equals, repeats)
    rate = n / ours
    res: dict[str, Any] = {"digest_match": rate, "peer_arrow_equals": n / peer, "on_disk": {}}
    say(f"holdem diff speed, {n:,} six-max no-limit hands per side (~{t.nbytes / unit:,.0f} "
        f"B/hand in Arrow), one thread, median of {repeats}")
    say(f"  digest + match (in memory):        {rate:>12,.0f} hands/s per core "
        f"({2 * rate:,.0f} hand digests/s)")
    say(f"  peer: Arrow Table.equals (no per-hand answer): {n / peer:>12,.0f} hands/s "
        f"(ours = {peer / ours:.2f}x its rate)")

    tmp = Path(tempfile.mkdtemp(prefix="holdem-bench-diff-"))
    try:
        disk = RunSpec(hands=min(n, 1_000_000), batch_size=50_000,
                       structures=(Structure.NO_LIMIT,), seed=3)
        for name in ("a", "b", "c"):
            run_simulate(disk, tmp / name, workers=0, progress=False)
        _reencode(tmp / "c")  # same hands, other bytes (as another pyarrow would write them)
        m = disk.hands
        figures = [
            ("two identical runs (files matched by sha256, hand_id read)", "b", {}),
            ("same hands, other bytes (default: digests checked)", "c", {}),
            ("same hands, other bytes, --trust-digests (stored read)", "c",
             {"trust_digests": True}),
            ("--recompute (every hand decoded and hashed)", "c", {"recompute": True}),
        ]
        say(f"  holdem diff on disk, {m:,} hands per side, one thread:")
        for label, other, kw in figures:
            def command(other: str = other, kw: dict[str, bool] = kw) -> None:
                res = diff_runs(tmp / "a", tmp / other, threads=1, **kw)
                if not res.identical:
                    raise AssertionError("two runs of one spec differ")
            disk_rate = m / median_cpu_seconds(command, repeats)
            res["on_disk"][label] = disk_rate
            say(f"    {label + ':':<62} {disk_rate:>12,.0f} hands/s per core")

        def sha_both() -> None:
            for f in [*list_batch_files(tmp / "a"), *list_batch_files(tmp / "c")]:
                file_sha256(f)
        label = "of which the sha256 of both sides' files:"
        res["sha256_both"] = m / median_cpu_seconds(sha_both, repeats)
        say(f"    {label:<62} {res['sha256_both']:>12,.0f} hands/s per core")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return res


def _reencode(run: Path) -> None:
    """Rewrite every batch file of ``run`` with another zstd level and record the new sha256s
    in its manifest: the same rows in other bytes."""
    from audits.runfolder import RunFolder, sha256_bytes

    folder = RunFolder.open(run)
    manifest = folder.read_manifest() or {"files": []}
    for rec in manifest["files"]:
        table = pq.read_table(pa.BufferReader(folder.read_bytes(rec["path"])))
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink, compression="zstd", compression_level=5)
        data = sink.getvalue().to_pybytes()
        folder.write(rec["path"], data)
        rec["sha256"], rec["bytes"] = sha256_bytes(data), len(data)
    folder.write_manifest(manifest)
