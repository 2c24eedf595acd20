"""``holdem shuffle``: certify the shuffler alone (``shuffle audit FILE...``: another system's
decks)."""

from __future__ import annotations

import argparse
from typing import Any

from cluster.cli import options as o


def add_parser(sub: Any) -> None:
    sh = sub.add_parser("shuffle", help="certify the shuffler alone on up to billions of decks"
                        " (`holdem shuffle audit FILE...`: decks from another system); exit 0 "
                        "PASS, 1 FAIL, 2 bad input")
    sh.add_argument("files", nargs="*", metavar="audit FILE",
                    help="`audit` then Parquet or CSV deck files (docs/shuffle.md, The "
                         "shuffle certificate)")
    sh.add_argument("--decks", type=o.integer, default=None, help="decks to shuffle and certify")
    sh.add_argument("--out", default=None, help="run folder (a path or a URI); rerun to resume")
    o.add_generator(sh)
    sh.add_argument("--seed", type=o.integer, default=1,
                    help="the seed the decks are keyed by (philox)")
    sh.add_argument("--batch-size", type=o.integer, default=1_000_000, help="decks per batch file")
    sh.add_argument("--keep-decks", type=o.boolean, default=True, metavar="true|false",
                    help="write the deck-only log (52 B a deck); false: audit in the workers "
                         "and keep nothing")
    sh.add_argument("--inject", default=None, metavar="FAULT",
                    choices=["naive-shuffle", "asf-shuffle", "mod8-shuffle", "seed32"],
                    help="plant a shuffle fault (the certificate must then FAIL)")
    o.add_address(sh)
    sh.add_argument("--workers", type=o.integer, default=None,
                    help="CPUs of the local Ray (default: all); 0 runs in this process")
    o.add_key_memory(sh)
    o.add_sign_key(sh)
    o.add_lab(sh)
    o.add_quiet(sh)
    o.handler(sh, shuffle, fail_hint=o.RESUME, output="out", lock="out")


def shuffle(args: argparse.Namespace) -> int:
    """``holdem shuffle --decks N --out RUN`` or ``holdem shuffle audit FILE...``."""
    from contextlib import nullcontext

    from audits.runfolder.lock import locked
    from cluster.flows.shuffle import ShuffleSpec, audit_files, run_shuffle

    rt = args.runtime
    lab = o.lab_arg(args)
    if args.files:
        if args.files[0] != "audit" or len(args.files) < 2:
            raise o.UsageError("expected `holdem shuffle --decks N --out RUN` or `holdem "
                               "shuffle audit FILE...`")
        out = args.out or "runs/shuffle-audit"
        with locked(out, "shuffle audit", create=True) if args.out is None else nullcontext():
            cert = audit_files(args.files[1:], out, key_memory=rt.key_memory,
                               progress=not args.quiet, sign_key=args.sign_key, lab=lab)
    else:
        if args.decks is None or args.out is None:
            raise o.UsageError("holdem shuffle: --decks and --out are required")
        spec = ShuffleSpec(decks=args.decks, seed=args.seed, generator=args.generator,
                           batch_size=args.batch_size, keep_decks=args.keep_decks,
                           inject=args.inject)
        out = args.out
        cert = run_shuffle(spec, out, address=rt.address, workers=rt.workers,
                           key_memory=rt.key_memory, progress=not args.quiet,
                           sign_key=args.sign_key, lab=lab)
    print(f"{cert.decks:,} decks in {cert.wall_seconds:,.1f} s: {cert.verdict_text}")
    if cert.power_sentence:
        print(cert.power_sentence)
    print(f"certificate: {out}/certificate.json   report: {out}/report.html")
    return 0 if cert.passed else 1
