"""``holdem bench export``: the speed of ``holdem export``, hands per second per core.

A fresh run of the default population (``hands`` no-limit hands in batches of up to 100,000,
in-process) is exported; each figure is the median of ``repeats`` in CPU seconds of this
process (every thread: pyarrow decodes and encodes on several):

- build: ``sim.logview.logtables.build_tables`` on the decoded log columns in memory (the
  export's own work: the compiled kernels and the Arrow tables);
- encode: the four tables to zstd Parquet in memory;
- read + build + write: ``cluster.flows.export.run_export`` in-process over the run folder, end to
  end
  (decode the log's columns, build, encode, write the parts atomically).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable

import pyarrow as pa

from cluster.bench.timing import median_cpu_seconds
from cluster.flows.export import encode_table, read_log, run_export
from sim.logview.logtables import TABLE_NAMES, build_tables


def run_export_bench(hands: int = 200_000, repeats: int = 3,
                     say: Callable[[str], None] = print) -> dict[str, float]:
    """Print the figures; return them (hands/s per core) by name."""
    from audits.io import run_files
    from cluster.flows.simulate import run_simulate
    from sim.config import Structure
    from sim.runspec import DEFAULT_POPULATION, RunSpec

    with tempfile.TemporaryDirectory(prefix="holdem-bench-export-") as tmp:
        spec = RunSpec(hands=hands, batch_size=min(hands, 100_000),
                       structures=(Structure.NO_LIMIT,), **DEFAULT_POPULATION)
        run_simulate(spec, f"{tmp}/run", workers=0, progress=False)
        logs = [read_log(str(f)) for f in run_files(f"{tmp}/run")]
        build_tables(logs[0].slice(0, 100))  # compile (or load the cache) outside the timing
        built: list[dict[str, pa.Table]] = []

        def build() -> None:
            built.clear()
            built.extend(build_tables(t) for t in logs)

        def encode() -> None:
            for tables in built:
                for name in TABLE_NAMES:
                    encode_table(tables[name])

        rates = {
            "build": hands / median_cpu_seconds(build, repeats),
            "encode": hands / median_cpu_seconds(encode, repeats),
            "read + build + write": hands / median_cpu_seconds(
                lambda: run_export(f"{tmp}/run", f"{tmp}/tables", workers=0), repeats),
        }
        rows = {name: sum(t[name].num_rows for t in built) for name in TABLE_NAMES}
    say(f"holdem bench export: {hands:,} no-limit hands of the default population, "
        f"medians of {repeats}, CPU time of every thread")
    say("  rows a hand: " + ", ".join(f"{k} {v / hands:.2f}" for k, v in rows.items()))
    for name, rate in rates.items():
        say(f"  {name:<22} {rate:>12,.0f} hands/s per core ({1e6 / rate:.2f} µs/hand)")
    return rates
