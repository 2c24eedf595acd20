"""Timing shared by the benchmarks: CPU time (every thread of this process), median of repeats.
CPU time, not wall time: the machines are shared, and another process's load does not count."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_cpu_seconds(fn: Callable[[], object], repeats: int) -> float:
    """The median CPU seconds of ``repeats`` calls of ``fn``."""
    times = []
    for _ in range(repeats):
        c0 = time.process_time()
        fn()
        times.append(time.process_time() - c0)
    return statistics.median(times)
