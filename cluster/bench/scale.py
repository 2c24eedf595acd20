"""Scaling of ``holdem simulate`` with Ray workers: hands/s with 1 and with 2 workers, and the
scaling efficiency (speed-up / workers; 1.0 is perfect).

Both figures come from one local Ray with ``max(worker_counts)`` CPUs, started once and warmed
up (every worker process has loaded the compiled engine) before timing: ``run_simulate`` with
``workers=k`` on an existing Ray keeps at most k batch tasks in flight, so the difference between
the rows is the number of workers alone, not Ray's start-up or numba's compilation. Each figure
is the median of ``repeats`` runs into a fresh temporary folder (simulate + Parquet in the log's
codecs + write).

On a machine with fewer free cores than workers the efficiency measures the machine, not Ray:
read it with ``cpu_count`` and the load average (both printed) in mind.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

from sim.config import Structure
from sim.runspec import RunSpec


def _load_average() -> float | None:
    """The 1-minute load average (other work competing for the CPUs), where the OS has one."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def _rate(spec: RunSpec, workers: int, repeats: int, tmp: Path) -> dict[str, Any]:
    from cluster.flows.simulate import run_simulate

    rates, walls = [], []
    for r in range(repeats):
        out = tmp / f"w{workers}-{r}"
        t0 = time.perf_counter()
        m = run_simulate(spec, out, workers=workers, progress=False)
        wall = time.perf_counter() - t0
        walls.append(wall)
        rates.append(m.hands / wall)
        shutil.rmtree(out, ignore_errors=True)
    return {"workers": workers, "hands": spec.hands * len(spec.structures),
            "hands_per_second": statistics.median(rates),
            "wall_seconds": statistics.median(walls)}


def run_scale_bench(hands: int = 200_000, batch_size: int | None = None, repeats: int = 3,
                    worker_counts: tuple[int, ...] = (1, 2), structure: str = "no-limit",
                    out: TextIO | None = None) -> dict[str, Any]:
    """Measure, print a table to ``out`` (stdout) and return the figures:
    ``{"rows": [{"workers", "hands", "hands_per_second", "wall_seconds", "speedup",
    "efficiency"}, ...], "batch_size", "repeats", "cpu_count", "ray_startup_seconds"}``.

    ``batch_size`` defaults to hands / 10 (at least 1,000), so every worker gets several batches.
    Starts its own Ray (refuses to run inside an already initialised one)."""
    import ray

    from cluster.ray_runtime import ray_session

    if hands <= 0 or repeats <= 0 or not worker_counts or min(worker_counts) < 1:
        raise ValueError("hands and repeats must be positive, worker counts at least 1")
    if ray.is_initialized():
        raise RuntimeError("bench scale starts its own Ray; shut the current one down")
    out = out or sys.stdout
    batch_size = batch_size or max(1_000, hands // 10)
    structures = (Structure.parse(structure),)
    spec = RunSpec(hands=hands, batch_size=batch_size, structures=structures, seed=7)
    most = max(worker_counts)
    warm = RunSpec(hands=4 * most * 1_000, batch_size=1_000, structures=structures, seed=98)
    tmp = Path(tempfile.mkdtemp(prefix="holdem-bench-scale-"))
    rows: list[dict[str, Any]] = []
    try:
        t0 = time.perf_counter()
        with ray_session(None, most):
            startup = time.perf_counter() - t0
            _rate(warm, most, 1, tmp)  # every worker process loads the compiled engine
            for k in sorted(set(worker_counts)):
                rows.append(_rate(spec, k, repeats, tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    base = rows[0]["hands_per_second"] / rows[0]["workers"]  # per worker, fewest workers
    for r in rows:
        r["speedup"] = r["hands_per_second"] / base
        r["efficiency"] = r["speedup"] / r["workers"]
    load = _load_average()
    result = {"structure": structure, "batch_size": batch_size, "repeats": repeats,
              "cpu_count": os.cpu_count(), "load_average": load,
              "ray_startup_seconds": startup, "rows": rows}
    busy = f", load average {load:.1f}" if load is not None else ""
    print(f"holdem simulate on Ray: scaling with workers ({structure}, {hands:,} hands, batch "
          f"{batch_size:,}, median of {repeats}, {os.cpu_count()} CPUs here{busy})", file=out)
    print(f"{'workers':>8} {'hands/s':>10} {'wall s':>8} {'speed-up':>9} {'efficiency':>11}",
          file=out)
    for r in rows:
        print(f"{r['workers']:>8} {r['hands_per_second']:>10,.0f} {r['wall_seconds']:>8.2f} "
              f"{r['speedup']:>8.2f}x {r['efficiency']:>10.0%}", file=out)
    print(f"Ray start-up and warm-up excluded (start-up {startup:.1f} s)", file=out)
    return result

