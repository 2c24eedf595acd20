"""The tools around the engine: ``holdem bench``, ``regress``, ``diff``, ``golden``,
``warmup``, ``calibrate``, ``rng test``, ``migrate`` and ``demo``."""

from __future__ import annotations

import argparse
from typing import Any

from cluster.cli import options as o


def add_parser(sub: Any) -> None:
    _add_bench(sub)
    wu = sub.add_parser("warmup", help="compile every numba kernel into the shared compiled-code "
                                       "cache (make venv runs it; no job is run)")
    wu.add_argument("--jobs", type=int, default=None, metavar="N",
                    help="processes compiling at once (default: the cores this process may "
                         "use; 1: all in this process)")
    o.handler(wu, warmup)
    _add_rng(sub)
    _add_calibrate(sub)
    mg = sub.add_parser("migrate", help="convert a run folder of the old layout "
                                        "(structure=<label>/...) to RUN/log/<label>/...; with "
                                        "--to 4, its log to schema version 4")
    mg.add_argument("run", help="run folder (path or URI)")
    mg.add_argument("--to", type=int, choices=(4,), default=None, metavar="VERSION",
                    help="rewrite the log in this schema version (4: docs/log-schema.md), every "
                         "hand unchanged, the manifest updated last (the layout first, if old)")
    o.handler(mg, migrate, lock="run")
    d = sub.add_parser("demo", help="play a few seeded hands and print them")
    d.add_argument("--hands", type=o.integer, default=3, help="hands to deal and print")
    d.add_argument("--seed", type=o.integer, default=1, help="the seed of the deals")
    d.add_argument("--players", type=o.integer, default=6, help="seats at the table")
    o.handler(d, demo)
    _add_diff(sub)
    _add_regress(sub)
    gd = sub.add_parser("golden", help="check the engine against tests/golden/digests.json")
    gd.add_argument("--update", action="store_true",
                    help="rewrite the file and print what changed (commit it with a reason)")
    gd.add_argument("--file", default=None, help="golden file (default: tests/golden/...)")
    o.handler(gd, golden)


def _add_bench(sub: Any) -> None:
    from cluster.bench.runner import BENCH_DEFAULTS, BENCHMARKS

    b = sub.add_parser("bench", help="benchmarks (medians of repeated runs)")
    b.add_argument("what", choices=[*BENCHMARKS, "all"],
                   help="one benchmark, or all of them (then every figure with its peer)")
    b.add_argument("--hands", type=o.count(1, 1_000_000_000), default=None,
                   help="hands (decks for shuffle) per repetition (default: " + ", ".join(
                       f"{k} {h:,}" for k, (h, _) in BENCH_DEFAULTS.items())
                   + "; simulate also runs 4x that)")
    b.add_argument("--repeats", type=o.count(1, 1_000), default=None,
                   help="repetitions (default: " + ", ".join(
        f"{k} {r}" for k, (_, r) in BENCH_DEFAULTS.items()) + ")")
    b.add_argument("--population", default="default", choices=o.POPULATIONS,
                   help="simulate, audit: the population the run plays (default: the command "
                        "line's mixed tables; classic: 6-seat cash tables of stress bots)")
    b.add_argument("--run", default=None,
                   help="audit: time the audits on this run folder instead of a fresh one")
    b.add_argument("--pokerkit-hands", type=o.count(0, 1_000_000), default=300,
                   help="hands for the PokerKit peer (0 to skip)")
    b.add_argument("--text-hands", type=o.count(0, 1_000_000), default=None,
                   help="import: the site-text hands, beside PokerKit's site parsers "
                        "(default 2,000; 0 to skip)")
    b.add_argument("--json", default=None, metavar="OUT",
                   help="all: write every figure with its peer, the machine and the code here")
    b.add_argument("--quick", action="store_true",
                   help="all: every benchmark at small sizes (seconds; noisy figures)")
    b.add_argument("--no-ray", action="store_true",
                   help="all: leave out the Ray benchmarks (simulate on Ray, scale)")
    o.handler(b, bench)


def _add_rng(sub: Any) -> None:
    rg_ = sub.add_parser("rng", help="the generator itself through a recognized battery")
    rg_sub = rg_.add_subparsers(dest="rng_command", required=True)
    rt = rg_sub.add_parser("test", help="stream the generator into dieharder (exit 0 PASS, 1 "
                                        "FAIL or NOT RUN without dieharder)")
    o.add_generator(rt)
    rt.add_argument("--stream", default="raw", choices=["raw", "draws"],
                    help="raw: the head of each hand's deck stream; draws: the Fisher-Yates "
                         "draws of power-of-two range, 15 bits a deck")
    rt.add_argument("--tests", default=None,
                    help="comma-separated dieharder test numbers (default: a minute's worth)")
    rt.add_argument("--seed", type=o.integer, default=1, help="the seed of the stream tested")
    rt.add_argument("--out", default="runs/rng", help="folder for rng-certificate.json")
    rt.add_argument("--quiet", action="store_true", help="no progress output")
    o.add_sign_key(rt, "rng-certificate.json")
    o.add_lab(rt)
    o.handler(rt, rng_test)


def _add_calibrate(sub: Any) -> None:
    ca = sub.add_parser("calibrate", help="false-alarm and detection rates of every audit")
    ca.add_argument("--out", default="runs/calibration",
                    help="folder for calibration.json and calibration.md")
    ca.add_argument("--runs", type=o.count(1, 100_000), default=5,
                    help="runs per engine fault (and clean runs for the false alarms)")
    ca.add_argument("--hands", type=o.count(1, 1_000_000_000), default=60_000,
                    help="hands per engine-fault run")
    ca.add_argument("--uniformity-runs", type=o.count(1, 1_000_000), default=200,
                    help="runs per deck count for the uniformity battery: fair decks (false "
                         "alarms) and every shuffle fault's deck counts below 1,000,000")
    ca.add_argument("--uniformity-big-runs", type=o.count(0, 1_000), default=3,
                    help="runs per deck count of 1,000,000 or more for the uniformity battery")
    ca.add_argument("--game-runs", type=o.count(1, 100_000), default=200,
                    help="fair runs of each kind (keyed, os-chacha20, imported) for the false "
                         "alarms of the deal tests that condition on the game")
    ca.add_argument("--game-hands", type=o.count(500, 10_000_000), default=2_000,
                    help="hands per fair run of the game-conditioned tests")
    ca.add_argument("--rig-runs", type=o.count(1, 100_000), default=40,
                    help="runs per rigged dealer and strength (power)")
    ca.add_argument("--parts", default="exact,uniformity,game",
                    help="which calibrations, comma-separated: exact (engine faults), "
                         "uniformity (shuffle faults), game (deal tests conditioned on the "
                         "game, and rigged dealers)")
    o.handler(ca, calibrate)


def _add_diff(sub: Any) -> None:
    df = sub.add_parser("diff", help="compare two run folders hand by hand (exit 0 identical, "
                                     "1 different, 2 not comparable)")
    df.add_argument("baseline", help="run folder")
    df.add_argument("candidate", help="run folder")
    df.add_argument("--first", type=o.count(0, 1_000_000), default=10,
                    help="differing hand_ids to list")
    df.add_argument("--recompute", action="store_true",
                    help="hash every hand's content without reading the stored digests")
    df.add_argument("--trust-digests", action="store_true",
                    help="read the stored digests of files whose bytes match their manifest "
                         "instead of checking each against its hand's content (faster; a forged "
                         "hand whose digest was left stale goes unseen)")
    df.add_argument("--stat", action="store_true",
                    help="compare distributions instead (win rates, pots, actions, rates)")
    df.add_argument("--alpha", type=o.fraction, default=0.01,
                    help="--stat: family-wise level (Holm)")
    df.add_argument("--verbose", action="store_true", help="--stat: list every test")
    o.handler(df, diff)


def _add_regress(sub: Any) -> None:
    rg = sub.add_parser("regress", help="simulate with the engine at a git ref and with this "
                                        "working tree, and diff the hands")
    rg.add_argument("--baseline", required=True, metavar="GIT_REF",
                    help="the git ref (commit, branch, tag) whose engine is compared with this "
                         "working tree's")
    rg.add_argument("--hands", type=o.integer, default=20_000, help="hands per structure")
    rg.add_argument("--structure", "--structures", dest="structure", nargs="+", default=None,
                    metavar="STRUCTURE",
                    help="the betting structure as simulate takes it (no-limit, pot-limit, "
                         "fixed-limit or all; default all, or the game file's), or several "
                         "(no-limit fixed-limit): one run each")
    o.add_population_options(rg)  # simulate's game and population options, to both sides
    rg.add_argument("--seed", type=o.integer, default=1, help="the seed of both runs")
    rg.add_argument("--batch-size", type=o.integer, default=None, metavar="HANDS",
                    help="hands per batch file (default: simulate's, or fewer hands a batch "
                         "when a mixed population's batches would leave a structure without "
                         "tournament or cash tables)")
    rg.add_argument("--first", type=o.count(0, 1_000_000), default=10,
                    help="differing hand_ids to list")
    rg.add_argument("--full-venv", action="store_true",
                    help="install the baseline into its own venv (when REF changed dependencies)")
    rg.add_argument("--keep", action="store_true", help="keep the two run folders")
    rg.add_argument("--no-speed", action="store_true",
                    help="skip the speed check (engine, simulate, audit timed on both sides)")
    rg.add_argument("--speed-rounds", type=o.integer, default=3,
                    help="speed check: processes per side, interleaved (default 3)")
    rg.add_argument("--speed-hands", type=o.integer, default=40_000,
                    help="speed check: hands simulated and audited per sample (the engine "
                         "plays 4x as many; default 40,000)")
    rg.add_argument("--tolerance", type=o.number, default=0.10,
                    help="speed check: fail when this tree takes more than this fraction more "
                         "time per hand than the baseline (default 0.10)")
    o.handler(rg, regress)


def bench(args: argparse.Namespace) -> int:
    from cluster.bench.runner import run_bench

    if args.what == "all":
        from cluster.bench.suite import run_all

        if args.hands is not None or args.repeats is not None or args.run is not None:
            raise o.UsageError("bench all: --hands, --repeats and --run are per benchmark "
                               "(bench all runs each at its default sizes, or --quick)")
        with o.as_input(ValueError):  # a --json path that cannot be written
            run_all(quick=args.quick, ray=not args.no_ray, json_out=args.json)
        return 0
    if args.json or args.quick or args.no_ray:
        raise o.UsageError(f"bench {args.what}: --json, --quick and --no-ray are for bench all")
    with o.as_input(ValueError):  # a bad size (the benchmarks' own checks)
        return run_bench(args.what, hands=args.hands, repeats=args.repeats,
                         population=args.population, run=args.run,
                         pokerkit_hands=args.pokerkit_hands, text_hands=args.text_hands)


def warmup(args: argparse.Namespace) -> int:
    from cluster.flows.warmup import run_warmup

    if args.jobs is not None and args.jobs < 1:
        raise o.UsageError(f"warmup --jobs: expected at least 1, got {args.jobs}")
    run_warmup(jobs=args.jobs)
    return 0


def migrate(args: argparse.Namespace) -> int:
    from audits.runfolder import migrate

    with o.as_input(OSError):  # the folder's store, said in one line
        if args.to is not None:
            from cluster.flows.migrate import migrate_log

            migrate_log(args.run, args.to, say=print)
        else:
            migrate(args.run, say=print)
    return 0


def rng_test(args: argparse.Namespace) -> int:
    from cluster.flows.rngtest import rng_test

    try:
        tests = (None if args.tests is None
                 else tuple(int(t) for t in args.tests.split(",") if t.strip()))
    except ValueError:
        raise o.UsageError(f"--tests {args.tests}: expected dieharder test numbers, e.g. 0,1,2"
                           ) from None
    cert = rng_test(args.generator, args.out, stream=args.stream, seed=args.seed, tests=tests,
                    say=(lambda s: None) if args.quiet else print, sign_key=args.sign_key,
                    lab=o.lab_arg(args))
    print(f"{cert.verdict_text}\ncertificate: {args.out}/rng-certificate.json")
    return 0 if cert.passed else 1


def calibrate(args: argparse.Namespace) -> int:
    from cluster.flows.calibrate import PARTS, run_calibration

    parts = tuple(p.strip() for p in args.parts.split(",") if p.strip())
    if not parts or any(p not in PARTS for p in parts):
        raise o.UsageError(f"--parts {args.parts}: expected a comma-separated list of "
                           + ", ".join(PARTS))
    path = run_calibration(args.out, runs=args.runs, hands=args.hands,
                           uniformity_runs=args.uniformity_runs,
                           uniformity_big_runs=args.uniformity_big_runs,
                           game_runs=args.game_runs, game_hands=args.game_hands,
                           rig_runs=args.rig_runs, parts=parts)
    print(path.read_text())
    print(f"written: {path}")
    return 0


def demo(args: argparse.Namespace) -> int:
    from sim.demo import demo_histories

    if not 2 <= args.players <= 10:
        raise o.UsageError(f"--players {args.players}: expected 2..10 seats")
    if not 1 <= args.hands <= 1_000_000:
        raise o.UsageError(f"--hands {args.hands}: expected at least 1 (at most 1,000,000)")
    if not 0 <= args.seed < 2**63:
        raise o.UsageError(f"--seed {args.seed}: expected 0 <= seed < 2**63")
    for text in demo_histories(hands=args.hands, seed=args.seed, players=args.players):
        print(text)
        print()
    return 0


def diff(args: argparse.Namespace) -> int:
    from cluster.regression.digest_diff import diff_runs, format_diff
    from cluster.regression.stat_diff import format_stat, stat_diff

    if args.stat:
        stat = stat_diff(args.baseline, args.candidate, alpha=args.alpha)
        print(format_stat(stat, verbose=args.verbose))
        return stat.exit_code
    if args.recompute and args.trust_digests:
        raise o.UsageError("--recompute and --trust-digests: choose one")
    res = diff_runs(args.baseline, args.candidate, first=args.first,
                    recompute=args.recompute, trust_digests=args.trust_digests)
    print(format_diff(res))
    return res.exit_code


# the population options regress passes to both sides' simulate, as given
POPULATION_OPTIONS = ("players", "format", "tournament_pct", "stacks", "leave_above",
                      "tournament_stack", "bots")


def regress(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cluster.regression.regress import run_regress

    with o.as_input(ValueError):
        population = o.population_options(args)  # the game file read, the options checked
    game_structures = population.pop("structures", None)
    structures = args.structure or (list(game_structures) if game_structures else ["all"])
    sim_args: list[str] = []
    if args.game is not None:  # both sides run in their own trees: the file's absolute path
        sim_args += ["--game", str(Path(args.game).resolve())]
    if args.population is not None:
        sim_args += ["--population", args.population]
    for name in POPULATION_OPTIONS:
        value = getattr(args, name)
        if value is not None:
            sim_args += ["--" + name.replace("_", "-"), str(value)]
    return run_regress(args.baseline, hands=args.hands, structures=structures,
                       seed=args.seed, population=population, sim_args=sim_args,
                       batch_size=args.batch_size, first=args.first,
                       full_venv=args.full_venv, keep=args.keep, speed=not args.no_speed,
                       speed_rounds=args.speed_rounds, speed_hands=args.speed_hands,
                       tolerance=args.tolerance)


def golden(args: argparse.Namespace) -> int:
    from cluster.regression.golden import (
        DEFAULT_PATH,
        check_golden,
        format_check,
        format_update,
        update_golden,
    )

    path = args.file or DEFAULT_PATH
    if args.update:
        print(format_update(path, update_golden(path)))
        return 0
    changes = check_golden(path)
    print(format_check(path, changes))
    return 1 if changes else 0

