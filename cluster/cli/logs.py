"""``holdem export`` (the run as tidy tables) and ``holdem replay`` (one logged hand)."""

from __future__ import annotations

import argparse
from typing import Any

from cluster.cli import options as o


def add_parser(sub: Any) -> None:
    rp = sub.add_parser("replay", help="replay one logged hand of a run and print it")
    rp.add_argument("run", help="run folder (path or URI)")
    which = rp.add_mutually_exclusive_group(required=True)
    which.add_argument("--hand", type=o.integer, default=None, metavar="N",
                       help="the hand: its hand_id, or its number in its structure's stream "
                            "(0 is the structure's first hand), or an import's site hand "
                            "number")
    which.add_argument("--site-hand", default=None, metavar="TEXT",
                       help="an imported run's hand by the site's hand number as the source "
                            "wrote it (letters too)")
    which.add_argument("--failing", action="store_true",
                       help="walk every failing hand of failing_hands.csv (holdem audit), each "
                            "with the audit's reason and amounts")
    rp.add_argument("--structure", default=None, choices=["no-limit", "pot-limit", "fixed-limit"],
                    help="with --hand N: hand N of this structure (needed when the run has "
                         "several; default: the run's only structure)")
    rp.add_argument("--limit", type=o.integer, default=None, metavar="N",
                    help="with --failing: the first N failing hands (default: all)")
    rp.add_argument("--phh", action="store_true", help="print PHH instead of a history")
    o.handler(rp, replay)

    ex = sub.add_parser("export", help="the run's hands as tidy Parquet tables (hands, seats, "
                                       "actions, pots, tournaments; an imported run's with "
                                       "the operator's fields) with readable codes")
    ex.add_argument("run", help="run folder (path or URI)")
    ex.add_argument("--out", default=None, help="output folder (default: RUN/tables; with "
                                                "--phh required, outside the run)")
    ex.add_argument("--phh", action="store_true",
                    help="write the hands as PHH files an operator would hand in (one .phhs per "
                         "batch file; holdem import --game reads them) instead of the tables")
    o.add_workers(ex)
    o.add_address(ex)
    o.add_quiet(ex)
    o.handler(ex, export, lock="run")


def replay(args: argparse.Namespace) -> int:
    from cluster.flows.replay import replay_failing, replay_hand, resolve_hand, resolve_site_hand

    if args.failing:
        for text in replay_failing(args.run, args.limit):
            print(text, end="" if text.endswith("\n") else "\n")
        return 0
    if args.site_hand is not None:
        hand = resolve_site_hand(args.run, args.site_hand)
        text = replay_hand(args.run, hand, phh=args.phh)
        print(text, end="" if text.endswith("\n") else "\n")
        return 0
    if args.hand is not None and not 0 <= args.hand <= 2**63 - 1:
        raise o.UsageError(f"--hand {args.hand}: expected a hand id 0 .. {2**63 - 1:,} (int64)")
    hand = resolve_hand(args.run, args.hand, args.structure)
    text = replay_hand(args.run, hand, phh=args.phh)
    print(text, end="" if text.endswith("\n") else "\n")
    return 0


def export(args: argparse.Namespace) -> int:
    from cluster.flows.export import run_export

    if args.phh:
        return export_phh(args)
    rt = args.runtime
    res = run_export(args.run, args.out, workers=rt.workers, address=rt.address,
                     progress=not args.quiet)
    print(f"exported {res.hands:,} hands from {res.files} batch files in {res.seconds:.1f} s: "
          + ", ".join(f"{t} {n:,} rows" for t, n in res.rows.items()))
    if res.removed:
        print(f"removed {len(res.removed)} parts of an earlier export: {res.removed[0]} ...")
    if res.outcome_note:
        print(res.outcome_note)
    print(f"tables: {res.out}")
    return 0


def export_phh(args: argparse.Namespace) -> int:
    """``holdem export RUN --phh --out DIR``."""
    import sys

    from cluster.flows.export_phh import EXPORT_PHH_FILE, export_phh

    if args.out is None:
        raise o.UsageError("--phh: --out DIR is required (a folder outside the run: the files "
                           "an operator would hand in)")
    say = None if args.quiet else (lambda text: print(text, file=sys.stderr, flush=True))
    res = export_phh(args.run, args.out, progress=say)
    skipped = sum(res.skipped.values())
    print(f"exported {res.written:,} of {res.hands:,} hands as PHH into {len(res.files)} files "
          f"in {res.seconds:.1f} s: {res.out}")
    if skipped:
        print(f"skipped {skipped:,} hands PHH cannot describe: "
              + "; ".join(f"{reason} {n:,}" for reason, n in sorted(res.skipped.items()))
              + f" (listed in {EXPORT_PHH_FILE})")
    return 0
