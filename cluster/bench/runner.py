"""``holdem bench NAME``: the one runner of every benchmark. Each benchmark is a module of
:mod:`cluster.bench` that prints its own figures (medians of repeated runs, with a peer measured
in the same run where one exists); this module knows their names, their default sizes and how
to call each."""

from __future__ import annotations

# benchmark -> (hands, repeats) by default
BENCH_DEFAULTS: dict[str, tuple[int, int]] = {
    "engine": (1_000_000, 5), "simulate": (100_000, 3), "scale": (200_000, 3),
    "audit": (200_000, 3), "diff": (2_000_000, 3), "shuffle": (2_000_000, 3),
    "export": (200_000, 3), "import": (20_000, 5), "pybots": (20_000, 5),
    "certify": (200_000, 3)}
# every benchmark, in the order ``make bench-all`` runs them (evaluator has fixed sizes)
BENCHMARKS = ("engine", "evaluator", "simulate", "audit", "scale", "diff", "shuffle", "export",
              "import", "pybots", "certify")


def run_bench(name: str, *, hands: int | None = None, repeats: int | None = None,
              population: str = "default", run: str | None = None,
              pokerkit_hands: int = 300, text_hands: int | None = None) -> int:
    """Run the benchmark ``name`` (it prints its figures); returns the exit code (0, or 1 when
    a benchmark's own correctness check failed: the evaluator's category counts). ``hands``
    and ``repeats`` default to ``BENCH_DEFAULTS``; ``population`` (simulate, audit) is the run's
    preset; ``run`` (audit) an existing run folder to time instead of a fresh one. Raises
    ValueError for an unknown name. ``text_hands`` (import): the site-text hands (None: the
    benchmark's default; 0: none)."""
    if name == "evaluator":
        from cluster.bench.evaluator import print_evaluator_bench

        return print_evaluator_bench()
    if name not in BENCH_DEFAULTS:
        raise ValueError(f"unknown benchmark {name!r}")
    n = BENCH_DEFAULTS[name][0] if hands is None else hands
    r = BENCH_DEFAULTS[name][1] if repeats is None else repeats
    if name == "engine":
        from cluster.bench.engine import run_engine_bench

        run_engine_bench(hands=n, repeats=r, pokerkit_hands=pokerkit_hands)
    elif name == "simulate":
        from cluster.bench.simulate import run_simulate_bench

        run_simulate_bench(hands=n, repeats=r, population=population)
    elif name == "scale":
        from cluster.bench.scale import run_scale_bench

        run_scale_bench(hands=n, repeats=r)
    elif name == "shuffle":
        from cluster.bench.shuffle import run_shuffle_bench

        run_shuffle_bench(decks=n, repeats=r)
    elif name == "diff":
        from cluster.bench.diff import run_diff_bench

        run_diff_bench(hands=n, repeats=r)
    elif name == "import":
        from cluster.bench.import_phh import TEXT_HANDS, run_import_bench

        run_import_bench(hands=n, repeats=r, pokerkit_hands=pokerkit_hands,
                         text_hands=TEXT_HANDS if text_hands is None else text_hands)
    elif name == "pybots":
        from cluster.bench.pybots import run_pybots_bench

        run_pybots_bench(hands=n, repeats=r)
    elif name == "certify":
        from cluster.bench.certify import run_certify_bench

        run_certify_bench(hands=n, repeats=r, population=population)
    elif name == "export":
        from cluster.bench.export import run_export_bench

        run_export_bench(hands=n, repeats=r)
    else:
        from cluster.bench.audit import run_audit_bench

        run_audit_bench(n, run, population=population, repeats=r)
    return 0
