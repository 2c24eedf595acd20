"""``holdem verify`` (a received run folder against its certificate) and ``holdem keygen``."""

from __future__ import annotations

import argparse
from typing import Any

from cluster.cli import options as o


def add_parser(sub: Any) -> None:
    vf = sub.add_parser("verify", help="check a received run folder against its certificate "
                                       "(exit 0 all match, 1 a mismatch, 2 bad input)")
    vf.add_argument("run", help="run folder (path or URI) holding certificate.json")
    vf.add_argument("--public-key", default=None, metavar="PUB",
                    help="check certificate.sig against this Ed25519 public key (PEM); without "
                         "it nothing is authenticated, and a folder holding certificate.sig "
                         "exits 1")
    vf.add_argument("--reproduce", nargs="?", const="all", default=None, metavar="N",
                    type=o.batches,
                    help="re-simulate only a sample of N batch files (default: all of them, "
                         "for a run of the reproducible generator; --reproduce alone: all)")
    o.add_no_reproduce(vf, "do not re-simulate the run from its spec (an import: do not "
                           "re-import its sources)")
    o.add_ray_options(vf, "re-simulating the run")
    o.add_sources(vf)
    vf.add_argument("--reaudit", action="store_true",
                    help="re-run the audits audit.json lists on this machine and compare the "
                         "certificate they give (as long as `holdem audit`; the signer's "
                         "compiled code is then not trusted)")
    o.handler(vf, verify, lock="run", shared=True)

    kg = sub.add_parser("keygen", help="make an Ed25519 key pair to sign certificates")
    kg.add_argument("--out", required=True, metavar="KEY",
                    help="private key file to write (PEM, mode 0600); the public key goes to "
                         "KEY.pub")
    o.handler(kg, keygen)


def verify(args: argparse.Namespace) -> int:
    from cluster.flows.verify import verify_run

    if args.no_reproduce and args.reproduce not in (None, "all"):
        raise o.UsageError("--reproduce N and --no-reproduce: choose one")
    reproduce: bool | int = (False if args.no_reproduce else
                             True if args.reproduce in (None, "all") else int(args.reproduce))
    rt = args.runtime
    res = verify_run(args.run, args.public_key, reproduce=reproduce, workers=rt.workers,
                     address=rt.address, sources=args.sources, name_key=o.name_key(args),
                     reaudit=args.reaudit)
    print(res.line)
    return res.exit_code


def keygen(args: argparse.Namespace) -> int:
    from cluster.flows.signing import key_id, keygen, load_public_key

    priv, pub = keygen(args.out)
    print(f"private key: {priv} (keep it secret)\npublic key:  {pub} (give it to whoever "
          f"verifies; key {key_id(load_public_key(pub))})")
    return 0
