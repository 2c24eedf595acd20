"""The ``holdem`` command: a thin front door. Each subcommand parses its options and calls one
function of sim/, audits/, cluster/ or reports/; no poker logic lives here.

Its modules, each a group of commands with their parser and handler side by side (each exposes
``add_parser(subparsers)``): ``run`` (simulate, certify, audit, report), ``verify`` (verify,
keygen), ``imports`` (import, phh verify/import), ``shuffle``, ``logs`` (replay, export) and
``tools`` (bench, warmup, rng test, calibrate, migrate, demo, diff, regress, golden); the
options several commands share are defined once in ``options``.

Exit codes: 0 success, 1 a check failed (e.g. a hand did not verify), 2 unusable input. Errors
are mapped here, once: every ``InputError`` (``audits.runfolder.errors``) is one line
``holdem: error: <message>`` and exit 2, every ``CheckFailed`` one line ``holdem: <message>``
and exit 1, an OSError writing a command's output folder one line and exit 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from audits.runfolder.errors import CheckFailed, InputError
from cluster.cli import imports, logs, run, shuffle, tools, verify
from cluster.cli.options import UsageError, population_options
from cluster.cli.parser import HoldemParser

__all__ = ["UsageError", "build_parser", "main", "population_options"]

GROUPS = (imports, tools, run, shuffle, verify, logs)


def build_parser() -> argparse.ArgumentParser:
    from cluster.flows.manifest import engine_version

    p = HoldemParser(
        prog="holdem",
        description="Simulate Texas Hold'em hands and certify they were dealt and paid fairly.",
    )
    p.add_argument("--version", action="version", version=f"holdem {engine_version()}",
                   help="print the version and exit")
    sub = p.add_subparsers(dest="command", required=True)
    for group in GROUPS:
        group.add_parser(sub)
    return p


def _check_limits(args: argparse.Namespace) -> None:
    """The options several commands share, checked once: ``--workers``, ``--address`` and
    ``--key-memory`` (MB) become ``args.runtime`` (``cluster.ray_runtime.Runtime``), the one
    validated value the handlers pass on (an InputError naming the option)."""
    from cluster.ray_runtime import Runtime

    args.runtime = Runtime.of(getattr(args, "workers", None), getattr(args, "address", None),
                              getattr(args, "key_memory", None))


def _locked(args: argparse.Namespace) -> Any:
    """The run folder the command holds for its run (``audits.runfolder.lock``), if any."""
    import contextlib

    from audits.runfolder.lock import locked

    folder = getattr(args, args.lock, None) if getattr(args, "lock", None) else None
    if folder is None:
        return contextlib.nullcontext()
    return locked(folder, args.command, create=args.lock == args.output and not args.lock_shared,
                  shared=args.lock_shared)


def _output_error(out: str, e: OSError) -> str:
    """A write that failed later (disk full, folder removed), as one line."""
    return (f"output {out}: {type(e).__name__}: "
            f"{str(e).splitlines()[0] if str(e) else ''} (rerun to resume)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    HoldemParser.argv = list(sys.argv[1:] if argv is None else argv)  # for its suggestions
    args = parser.parse_args(argv)
    try:
        _check_limits(args)
        with _locked(args):
            return int(args.handler(args))
    except InputError as e:
        print(f"{args.error_prefix}{e}", file=sys.stderr)
        return 2
    except CheckFailed as e:
        hint = args.fail_hint(args) if callable(args.fail_hint) else args.fail_hint
        print(f"holdem: {e}{hint}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into `head` and the like
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as e:  # writing the command's output folder (disk full, folder removed)
        if args.output is None:
            raise
        print(f"holdem: error: {_output_error(getattr(args, args.output), e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("holdem: interrupted", file=sys.stderr)
        return 130
    except RuntimeError as e:  # code about to be compiled is not the code that was hashed
        jitcache = sys.modules.get("audits.jitcache")
        if jitcache is None or not isinstance(e, jitcache.StaleCodeError):
            raise
        print(f"holdem: error: {e}", file=sys.stderr)
        return 2
