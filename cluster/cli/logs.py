"""``holdem export`` (the run as four tidy tables) and ``holdem replay`` (one logged hand)."""

from __future__ import annotations

import argparse
from typing import Any

from cluster.cli import options as o


def add_parser(sub: Any) -> None:
    rp = sub.add_parser("replay", help="replay one logged hand of a run and print it")
    rp.add_argument("run", help="run folder (path or URI)")
    rp.add_argument("--hand", type=o.integer, required=True, help="hand_id")
    rp.add_argument("--phh", action="store_true", help="print PHH instead of a history")
    o.handler(rp, replay)

    ex = sub.add_parser("export", help="the run's hands as four tidy Parquet tables (hands, "
                                       "seats, actions, pots) with readable codes")
    ex.add_argument("run", help="run folder (path or URI)")
    ex.add_argument("--out", default=None, help="output folder (default: RUN/tables)")
    o.add_workers(ex)
    o.add_address(ex)
    o.add_quiet(ex)
    o.handler(ex, export, lock="run")


def replay(args: argparse.Namespace) -> int:
    from cluster.flows.replay import replay_hand

    if not 0 <= args.hand <= 2**63 - 1:
        raise o.UsageError(f"--hand {args.hand}: expected a hand id 0 .. {2**63 - 1:,} (int64)")
    text = replay_hand(args.run, args.hand, phh=args.phh)
    print(text, end="" if text.endswith("\n") else "\n")
    return 0


def export(args: argparse.Namespace) -> int:
    from cluster.flows.export import run_export

    rt = args.runtime
    res = run_export(args.run, args.out, workers=rt.workers, address=rt.address,
                     progress=not args.quiet)
    print(f"exported {res.hands:,} hands from {res.files} batch files in {res.seconds:.1f} s: "
          + ", ".join(f"{t} {n:,} rows" for t, n in res.rows.items()))
    if res.removed:
        print(f"removed {len(res.removed)} parts of an earlier export: {res.removed[0]} ...")
    print(f"tables: {res.out}")
    return 0
