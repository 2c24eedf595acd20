"""``holdem bench simulate``: end-to-end speed of ``holdem simulate`` (simulate + encode + write
Parquet), in this process without Ray and on a local Ray with 2 workers, and the peak memory of a
worker for two run sizes (the same batch size: memory per worker should not grow with the run).

Each figure is the median of ``repeats`` runs into a fresh temporary folder. Ray's start-up is
timed apart and excluded from the rates; the workers are warmed up (compiled code loaded) first.
Peak RSS is ``getrusage(RUSAGE_SELF).ru_maxrss`` read inside the batch task (the process' peak
since it started; in-process that is the benchmark's own process).

Then where one core's time goes, per hand (median over batches, in this process): the compiled
engine and bots, building the Arrow columns (with the per-hand digests), and encoding the batch's
Parquet bytes; and, as a peer measured on the same hands, encoding a four-column file (hand_id,
button, deck, rake) the same way: the cost of logging every fact the schema holds.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

from cluster.bench.runs import PEER_COLUMNS, bench_spec
from cluster.flows.manifest import COMPRESSION, COMPRESSION_NOTE
from sim.runspec import RunSpec


def _timed_runs(spec: RunSpec, workers: int, repeats: int, tmp: Path) -> dict[str, Any]:
    """``workers`` 0: in this process; else on the Ray already started (all its CPUs)."""
    from cluster.flows.simulate import run_simulate

    rates: list[float] = []
    walls: list[float] = []
    rss: list[float] = []
    for r in range(repeats):
        out = tmp / f"w{workers}-{spec.hands}-{r}"
        t0 = time.perf_counter()
        m = run_simulate(spec, out, workers=0 if workers == 0 else None, progress=False)
        wall = time.perf_counter() - t0
        walls.append(wall)
        rates.append(m.hands / wall)
        rss.extend(r.peak_rss_mb for r in m.records() if r.peak_rss_mb is not None)
        shutil.rmtree(out, ignore_errors=True)
    return {"hands": spec.hands * len(spec.structures), "workers": workers,
            "hands_per_second": statistics.median(rates), "wall_seconds": statistics.median(walls),
            "peak_rss_mb": max(rss) if rss else None}


def time_breakdown(batch_size: int, batches: int, structure: str = "no-limit",
                   population: str = "classic") -> dict[str, float]:
    """Median seconds per hand of each step of a batch, in this process (see the module doc)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from cluster.flows.simulate import COLUMN_COMPRESSION, encode_batch
    from sim.batch import simulate_batch
    from sim.config import Structure

    st = Structure.parse(structure)
    spec = bench_spec(population, hands=batch_size * (batches + 1), batch_size=batch_size,
                      structures=(structure,), seed=7)
    simulate_batch(spec, st, batches)  # warm: compiled code loaded, buffers allocated
    steps: dict[str, list[float]] = {"play": [], "arrow": [], "encode": [], "peer_encode": []}
    for b in range(batches):
        res = simulate_batch(spec, st, b)
        t0 = time.perf_counter()
        encode_batch(res.table, spec, st, b, res.counts)
        t1 = time.perf_counter()
        sink = pa.BufferOutputStream()
        pq.write_table(res.table.select(list(PEER_COLUMNS)), sink,
                       compression={c: COLUMN_COMPRESSION[c] for c in PEER_COLUMNS})
        t2 = time.perf_counter()
        n = res.hands
        steps["play"].append(res.play_seconds / n)
        steps["arrow"].append((res.seconds - res.play_seconds) / n)
        steps["encode"].append((t1 - t0) / n)
        steps["peer_encode"].append((t2 - t1) / n)
    return {k: statistics.median(v) for k, v in steps.items()}


def run_simulate_bench(hands: int = 100_000, batch_size: int = 10_000, repeats: int = 3,
                       ray_workers: int = 2, structure: str = "no-limit",
                       out: TextIO | None = None, population: str = "default") -> dict[str, Any]:
    """Run the benchmark, print a table to ``out`` (stdout) and return the figures
    (``ray_workers`` 0: in this process only, no Ray)."""
    import ray

    from cluster.ray_runtime import ray_session

    out = out or sys.stdout
    sizes = (hands, 4 * hands)
    rows: list[dict[str, Any]] = []
    tmp = Path(tempfile.mkdtemp(prefix="holdem-bench-sim-"))
    warm = bench_spec(population, hands=min(batch_size, 2000), batch_size=batch_size,
                      structures=(structure,), seed=99)
    try:
        _timed_runs(warm, 0, 1, tmp)  # load the compiled engine in this process
        split = time_breakdown(batch_size, max(5, hands // batch_size), structure, population)
        for n in sizes:
            spec = bench_spec(population, hands=n, batch_size=batch_size,
                              structures=(structure,), seed=7)
            rows.append(_timed_runs(spec, 0, repeats, tmp))
        startup = []
        for n in sizes if ray_workers else ():  # a fresh Ray per size: its workers' peak RSS
            if ray.is_initialized():
                raise RuntimeError("bench simulate starts its own Ray; shut the current one down")
            t0 = time.perf_counter()
            with ray_session(None, ray_workers):
                startup.append(time.perf_counter() - t0)
                _timed_runs(bench_spec(population, hands=2 * ray_workers * warm.hands,
                                       batch_size=warm.hands, structures=(structure,), seed=98),
                            ray_workers, 1, tmp)
                spec = bench_spec(population, hands=n, batch_size=batch_size,
                                  structures=(structure,), seed=7)
                rows.append(_timed_runs(spec, ray_workers, repeats, tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    base = {r["hands"]: r["hands_per_second"] for r in rows if r["workers"] == 0}
    for r in rows:
        r["speedup"] = r["hands_per_second"] / base[r["hands"]]
    result: dict[str, Any] = {
        "structure": structure, "population": population, "batch_size": batch_size,
        "repeats": repeats, "rows": rows,
        "ray_startup_seconds": statistics.median(startup) if startup else None,
        "breakdown_us_per_hand": {k: v * 1e6 for k, v in split.items()}}
    print(f"holdem simulate end to end ({structure}, {population} population, batch "
          f"{batch_size:,} hands, {COMPRESSION_NOTE} Parquet, median of {repeats})", file=out)
    print(f"{'hands':>10} {'mode':>16} {'hands/s':>10} {'wall s':>8} {'speed-up':>9} "
          f"{'peak RSS/worker MB':>19}", file=out)
    for r in rows:
        mode = "in-process" if r["workers"] == 0 else f"ray x{r['workers']}"
        rss = f"{r['peak_rss_mb']:.0f}" if r["peak_rss_mb"] is not None else "?"
        print(f"{r['hands']:>10,} {mode:>16} {r['hands_per_second']:>10,.0f} "
              f"{r['wall_seconds']:>8.2f} {r['speedup']:>8.2f}x {rss:>19}", file=out)
    if startup:
        print(f"Ray start-up (excluded above): {result['ray_startup_seconds']:.1f} s", file=out)
    us = result["breakdown_us_per_hand"]
    total = us["play"] + us["arrow"] + us["encode"]
    print(f"where one core's time goes (in-process, batches of {batch_size:,}, median, "
          "µs per hand):", file=out)
    for key, label in (("play", "engine + bots (compiled)"),
                       ("arrow", "Arrow columns + digests"),
                       ("encode", f"Parquet encode, every column ({COMPRESSION})")):
        print(f"  {label:<38} {us[key]:6.2f}  {us[key] / total:4.0%}", file=out)
    print(f"  {'sum (before writing the file)':<38} {total:6.2f}  = {1e6 / total:,.0f} hands/s",
          file=out)
    print(f"  peer: Parquet encode of {len(PEER_COLUMNS)} columns ({', '.join(PEER_COLUMNS)}) "
          f"{us['peer_encode']:.2f} µs = {us['encode'] / us['peer_encode']:.1f}x less than "
          "every column", file=out)
    ceiling = 1e6 / (us["arrow"] + us["encode"])
    print(f"  with a free engine the log alone would allow {ceiling:,.0f} hands/s per core",
          file=out)
    return result
