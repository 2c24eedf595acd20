"""The ``holdem`` command: a thin front door. Each subcommand parses its options and calls one
function of sim/, audits/, cluster/ or reports/; no poker logic lives here.

Exit codes: 0 success, 1 a check failed (e.g. a hand did not verify), 2 unusable input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


class UsageError(Exception):
    """Bad input: printed as one line, exit code 2."""


def _cmd_phh_verify(args: argparse.Namespace) -> int:
    from sim.phh_verify import verify_paths

    return verify_paths(args.paths, as_json=args.json, max_failures=args.show)


def _cmd_bench(args: argparse.Namespace) -> int:
    if args.what == "engine":
        from sim.bench import run_engine_bench

        run_engine_bench(hands=args.hands, repeats=args.repeats, pokerkit_hands=args.pokerkit_hands)
        return 0
    if args.what == "evaluator":
        from sim.bench_evaluator import main as evaluator_main

        evaluator_main()
        return 0
    raise UsageError(f"unknown benchmark {args.what!r}")


def _cmd_demo(args: argparse.Namespace) -> int:
    from sim.demo import run_demo

    return run_demo(hands=args.hands, seed=args.seed, players=args.players)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="holdem",
        description="Simulate Texas Hold'em hands and certify they were dealt and paid fairly.",
    )
    sub = p.add_subparsers(dest="command", required=True)

    phh = sub.add_parser("phh", help="PHH hand histories")
    phh_sub = phh.add_subparsers(dest="phh_command", required=True)
    v = phh_sub.add_parser("verify", help="replay .phh/.phhs files and check finishing stacks")
    v.add_argument("paths", nargs="+", help="files or folders (searched recursively)")
    v.add_argument("--json", action="store_true", help="one JSON object per hand, one per line")
    v.add_argument("--show", type=int, default=10, help="failures to list in the summary")
    v.set_defaults(func=_cmd_phh_verify)

    b = sub.add_parser("bench", help="benchmarks (medians of repeated runs)")
    b.add_argument("what", choices=["engine", "evaluator"])
    b.add_argument("--hands", type=int, default=1_000_000, help="hands per repetition")
    b.add_argument("--repeats", type=int, default=5)
    b.add_argument("--pokerkit-hands", type=int, default=300,
                   help="hands for the PokerKit peer (0 to skip)")
    b.set_defaults(func=_cmd_bench)

    d = sub.add_parser("demo", help="play a few seeded hands and print them")
    d.add_argument("--hands", type=int, default=3)
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--players", type=int, default=6)
    d.set_defaults(func=_cmd_demo)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except UsageError as e:
        print(f"holdem: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("holdem: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
