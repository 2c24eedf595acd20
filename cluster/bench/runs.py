"""What the benchmarks share: the runs they simulate (a population preset's ``RunSpec``, the
audit benchmark's own run folder) and the peer of the log's cost, a four-column log.

:mod:`cluster.bench.simulate` and :mod:`cluster.bench.audit` both import from here, neither from
the other (they used to import each other)."""

from __future__ import annotations

from typing import Any

from sim.runspec import RunSpec

# the peer of both benchmarks (`holdem bench simulate` encodes them, `holdem bench audit` decodes
# them): a four-column log
PEER_COLUMNS = ("hand_id", "button", "deck", "rake")


def bench_spec(population: str, **kw: Any) -> RunSpec:
    """A bench spec of the ``population`` preset (``default``: the command line's mixed
    population; ``classic``: ``RunSpec``'s own 6-seat cash tables of stress bots)."""
    from sim.runspec import DEFAULT_POPULATION

    return RunSpec(**kw, **(DEFAULT_POPULATION if population == "default" else {}))


def simulate_bench_run(out: str, hands: int, population: str = "default") -> None:
    """The audit benchmark's own run folder: ``hands`` no-limit hands of the ``population``
    preset (seed 1, batches of up to 100,000 hands), simulated in this process."""
    from cluster.flows.simulate import run_simulate

    spec = bench_spec(population, hands=hands, batch_size=min(hands, 100_000), seed=1)
    run_simulate(spec, out, workers=0, progress=False)
