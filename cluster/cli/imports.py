"""``holdem import`` (and its alias ``holdem phh import``) and ``holdem phh verify``: an
operator's hand histories."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cluster.cli import options as o


def add_parser(sub: Any) -> None:
    phh = sub.add_parser("phh", help="PHH hand histories")
    phh_sub = phh.add_subparsers(dest="phh_command", required=True)
    v = phh_sub.add_parser("verify", help="replay .phh/.phhs files and check finishing stacks")
    v.add_argument("paths", nargs="+", help="files or folders (searched recursively)")
    v.add_argument("--json", action="store_true", help="one JSON object per hand, one per line")
    v.add_argument("--show", type=o.integer, default=10, help="failures to list in the summary")
    o.handler(v, phh_verify, error_prefix="phh verify: ")
    im = phh_sub.add_parser("import", help="the same as `holdem import`")
    o.add_import_options(im)
    o.handler(im, import_histories, output="out", lock="out")
    imp = sub.add_parser("import", help="import an operator's hand histories (PHH, PHHS, the "
                                        "sites' text exports) into a run folder to audit")
    o.add_import_options(imp)
    o.handler(imp, import_histories, output="out", lock="out")


def phh_verify(args: argparse.Namespace) -> int:
    import json

    from cluster.flows.verify_histories import format_summary, format_unreadable, verify_paths
    from sim.histories.replay.reference import ReplayResult

    def json_line(r: ReplayResult, unreadable_file: bool) -> None:
        print(json.dumps(r.to_json() | ({"hand": None} if unreadable_file else {})))

    def progress(hands: int, seconds: float) -> None:
        print(f"phh verify: {hands} hands replayed ({seconds:.1f} s)...", file=sys.stderr,
              flush=True)

    with o.as_input(FileNotFoundError):
        v = verify_paths(args.paths, on_result=json_line if args.json else None,
                         on_progress=progress)
    if v.hands == 0:
        print(format_unreadable(v, args.show), file=sys.stderr)
    elif not args.json:
        print(format_summary(v, args.show))
    return v.exit_code


def import_histories(args: argparse.Namespace) -> int:
    """``holdem import`` (and its alias ``holdem phh import``)."""
    from cluster.flows.import_histories import format_import, import_phh

    game = o.import_game(args)
    rake = o.rake_arg(args)
    rt = args.runtime
    with o.as_input(FileNotFoundError):
        res = import_phh(args.paths, args.out, rake=rake, workers=rt.workers,
                         address=rt.address, progress=not args.quiet,
                         name_key=o.name_key(args), game=game, venues=o.venue_map(args),
                         formats=o.format_map(args))
    print(format_import(res))
    return res.exit_code
