"""The ``holdem`` command: a thin front door. Each subcommand parses its options and calls one
function of sim/, audits/, cluster/ or reports/; no poker logic lives here.

Exit codes: 0 success, 1 a check failed (e.g. a hand did not verify), 2 unusable input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cluster.flows.manifest import Manifest
    from sim.runspec import RunSpec


class UsageError(Exception):
    """Bad input: printed as one line, exit code 2."""


def _cmd_phh_verify(args: argparse.Namespace) -> int:
    import json

    from cluster.flows.verify_histories import format_summary, format_unreadable, verify_paths
    from sim.phh_replay import ReplayResult

    def json_line(r: ReplayResult, unreadable_file: bool) -> None:
        print(json.dumps(r.to_json() | ({"hand": None} if unreadable_file else {})))

    def progress(hands: int, seconds: float) -> None:
        print(f"phh verify: {hands} hands replayed ({seconds:.1f} s)...", file=sys.stderr,
              flush=True)

    try:
        v = verify_paths(args.paths, on_result=json_line if args.json else None,
                         on_progress=progress)
    except FileNotFoundError as e:
        print(f"phh verify: {e}", file=sys.stderr)
        return 2
    if v.hands == 0:
        print(format_unreadable(v, args.show), file=sys.stderr)
    elif not args.json:
        print(format_summary(v, args.show))
    return v.exit_code


def _rake_arg(args: argparse.Namespace) -> Any:
    """The rake schedule of ``--rake PCT:CAP`` or ``--rake-schedule FILE`` (one, or None)."""
    from cluster.flows.rake import RakeError, parse_rake, read_rake_schedule

    rake, schedule = getattr(args, "rake", None), getattr(args, "rake_schedule", None)
    if rake is not None and schedule is not None:
        raise UsageError("--rake and --rake-schedule: choose one")
    try:
        if rake is not None:
            return parse_rake(rake)
        if schedule is not None:
            return read_rake_schedule(schedule)
    except RakeError as e:
        raise UsageError(str(e)) from None
    return None


def _name_key(args: argparse.Namespace) -> bytes | None:
    """The secret of ``--hash-names KEYFILE`` (None without it); UsageError when unusable."""
    from audits.runfolder import RunFolderError
    from cluster.flows.import_histories import read_name_key

    path = getattr(args, "hash_names", None)
    if path is None:
        return None
    try:
        return read_name_key(path)
    except RunFolderError as e:
        raise UsageError(str(e)) from None


def _cmd_phh_import(args: argparse.Namespace) -> int:
    """``holdem import`` (and its alias ``holdem phh import``)."""
    from audits.runfolder import RunFolderError
    from cluster.fanout import TaskFailed
    from cluster.flows.import_histories import format_import, import_phh
    from cluster.flows.rake import RakeError

    rake = _rake_arg(args)
    try:
        res = import_phh(args.paths, args.out, rake=rake, workers=args.workers,
                         address=args.address, progress=not args.quiet,
                         name_key=_name_key(args))
    except (FileNotFoundError, RunFolderError, RakeError, ConnectionError) as e:
        raise UsageError(str(e)) from None
    except TaskFailed as e:
        print(f"holdem: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        raise _output_error(args.out, e) from None
    print(format_import(res))
    return res.exit_code


def _add_import_options(p: argparse.ArgumentParser, paths: bool = True) -> None:
    if paths:
        p.add_argument("paths", nargs="+", help="hand history files or folders (searched "
                                                "recursively): local paths or URIs")
        p.add_argument("--out", required=True, help="the run folder to write (a path or a URI)")
    p.add_argument("--rake", default=None, metavar="PCT:CAP",
                   help="the operator's rake schedule: PCT percent of the pot, at most CAP "
                        "units of the currency a hand (e.g. 5:3)")
    p.add_argument("--rake-schedule", default=None, metavar="FILE.toml",
                   help="a rake schedule file: percent, cap, caps_by_players, no_flop_no_drop, "
                        "step (README, Importing)")
    p.add_argument("--hash-names", default=None, metavar="KEYFILE",
                   help="store a keyed hash (HMAC-SHA256) of each player name, never the name: "
                        "the same player keeps one pseudonym and one player id")
    if paths:
        _add_ray_options(p, "the import")
        p.add_argument("--quiet", action="store_true", help="no progress output")


def _cmd_migrate(args: argparse.Namespace) -> int:
    from audits.runfolder import RunFolderError, migrate

    try:
        migrate(args.run, say=print)
    except (RunFolderError, OSError) as e:
        raise UsageError(str(e).splitlines()[0] if str(e) else type(e).__name__) from None
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from audits.io import AuditInputError
    from cluster.bench.runner import run_bench

    if args.what == "all":
        from cluster.bench.suite import run_all

        if args.hands is not None or args.repeats is not None or args.run is not None:
            raise UsageError("bench all: --hands, --repeats and --run are per benchmark "
                             "(bench all runs each at its default sizes, or --quick)")
        try:
            run_all(quick=args.quick, ray=not args.no_ray, json_out=args.json)
        except ValueError as e:
            raise UsageError(str(e)) from None
        return 0
    if args.json or args.quick or args.no_ray:
        raise UsageError(f"bench {args.what}: --json, --quick and --no-ray are for bench all")
    try:
        return run_bench(args.what, hands=args.hands, repeats=args.repeats,
                         population=args.population, run=args.run,
                         pokerkit_hands=args.pokerkit_hands)
    except (ValueError, AuditInputError) as e:  # a bad size, an unreadable --run folder
        raise UsageError(str(e)) from None


def _cmd_warmup(args: argparse.Namespace) -> int:
    from cluster.flows.warmup import run_warmup

    run_warmup()
    return 0


def population_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``RunSpec`` population fields of the run options (``sim.runspec.population_fields``
    of ``--population`` and the options given). Raises ValueError (one line) on a bad value."""
    from sim.runspec import population_fields

    return population_fields(args.population, players=args.players, format=args.format,
                             tournament_pct=args.tournament_pct, stacks=args.stacks,
                             leave_above=args.leave_above,
                             tournament_stack=args.tournament_stack, bots=args.bots)


def _run_spec(args: argparse.Namespace) -> RunSpec:
    """The ``RunSpec`` of the run options (simulate and certify share them)."""
    from sim.config import Structure
    from sim.runspec import RunSpec

    try:
        structures = (tuple(Structure) if args.structure == "all"
                      else (Structure.parse(args.structure),))
        return RunSpec(hands=args.hands, structures=structures, seed=args.seed,
                       batch_size=args.batch_size, inject=args.inject, generator=args.generator,
                       **population_options(args))
    except ValueError as e:
        raise UsageError(str(e)) from None


def _output_error(out: str, e: OSError) -> UsageError:
    """A write that failed later (disk full, folder removed), as one line."""
    return UsageError(f"output {out}: {type(e).__name__}: "
                      f"{str(e).splitlines()[0] if str(e) else ''} (rerun to resume)")


def _print_simulated(m: Manifest, out: str) -> None:
    rate = f", {m.hands_per_second:,.0f} hands/s" if m.hands_per_second else ""
    print(f"{m.hands:,} hands in {len(m.files)} files ({m.batches_reused} reused){rate}: {out}")
    if m.fault_warning:
        print(m.fault_warning, file=sys.stderr)


def _cmd_simulate(args: argparse.Namespace) -> int:
    from cluster.fanout import TaskFailed
    from cluster.flows.simulate import RunFolderError, run_simulate

    spec = _run_spec(args)
    try:
        m = run_simulate(spec, args.out, address=args.address, workers=args.workers,
                         progress=not args.quiet)
    except (RunFolderError, ConnectionError) as e:
        raise UsageError(str(e)) from None
    except OSError as e:
        raise _output_error(args.out, e) from None
    except TaskFailed as e:
        print(f"holdem: {e} (rerun the command to resume)", file=sys.stderr)
        return 1
    _print_simulated(m, args.out)
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    from audits.runfolder import CheckFailed
    from cluster.flows.replay import HandNotFound, NoPhh, ReplayMismatch, replay_hand
    from cluster.flows.simulate import RunFolderError

    try:
        text = replay_hand(args.run, args.hand, phh=args.phh)
    except (HandNotFound, RunFolderError, NoPhh) as e:
        raise UsageError(str(e)) from None
    except (ReplayMismatch, CheckFailed) as e:
        print(f"holdem: {e}", file=sys.stderr)
        return 1
    print(text, end="" if text.endswith("\n") else "\n")
    return 0


def _cmd_audit(args: argparse.Namespace) -> int:
    from audits.io import AuditInputError
    from audits.runner import format_table, resolve, write_audit_json
    from cluster.fanout import TaskFailed
    from cluster.flows.audit import audit_run

    try:
        names = resolve([n.strip() for n in args.only.split(",") if n.strip()]
                        if args.only else None)
    except ValueError as e:
        raise UsageError(str(e)) from None
    try:
        rt = args.runtime
        report = audit_run(args.run, names, workers=rt.workers, address=rt.address,
                           key_memory=rt.key_memory, progress=not args.quiet)
    except (AuditInputError, ConnectionError) as e:
        raise UsageError(str(e)) from None
    except TaskFailed as e:
        print(f"holdem: {e}", file=sys.stderr)
        return 1
    out = write_audit_json(report)
    print(format_table(report))
    print(f"results: {out}")
    return 0 if report.passed else 1


def _cmd_export(args: argparse.Namespace) -> int:
    from audits.io import AuditInputError
    from cluster.flows.export import ExportInputError, run_export

    try:
        res = run_export(args.run, args.out, workers=args.workers, address=args.address,
                         progress=not args.quiet)
    except (ExportInputError, AuditInputError, ConnectionError) as e:
        raise UsageError(str(e)) from None
    print(f"exported {res.hands:,} hands from {res.files} batch files in {res.seconds:.1f} s: "
          + ", ".join(f"{t} {n:,} rows" for t, n in res.rows.items()))
    if res.removed:
        print(f"removed {len(res.removed)} parts of an earlier export: {res.removed[0]} ...")
    print(f"tables: {res.out}")
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from audits.io import AuditInputError
    from cluster.fanout import TaskFailed
    from cluster.flows.certify import DEFAULT_CALIBRATION, SigningRefused, report
    from cluster.flows.signing import SigningKeyError
    from reports.render import ReportInputError

    try:
        written = report(args.run, args.calibration or DEFAULT_CALIBRATION,
                         sign_key=args.sign_key, reproduce=not args.no_reproduce,
                         workers=args.workers, address=args.address, sources=args.sources,
                         name_key=_name_key(args))
    except (ReportInputError, SigningKeyError, AuditInputError, ConnectionError) as e:
        raise UsageError(str(e)) from None
    except (SigningRefused, TaskFailed) as e:
        print(f"holdem: {e}", file=sys.stderr)
        return 1
    _print_report_paths(written.paths)
    _print_reproduction(written.certificate)
    return 0


def _print_reproduction(cert: Mapping[str, Any]) -> None:
    rep = cert.get("reproduction")
    if isinstance(rep, dict):
        print(f"reproduction: {rep.get('status')}: {rep.get('text')}")


def _print_report_paths(paths: Mapping[str, object]) -> None:
    for k in ("html", "certificate", "summary", "signature"):
        if k in paths:
            print(f"{k}: {paths[k]}")


def _batches_arg(text: str) -> str:
    if text == "all" or (text.isdigit() and int(text) >= 1):
        return text
    raise argparse.ArgumentTypeError(f"{text!r}: expected a number of batch files >= 1 or 'all'")


def _cmd_verify(args: argparse.Namespace) -> int:
    from cluster.fanout import TaskFailed
    from cluster.flows.signing import SigningKeyError
    from cluster.flows.verify import VerifyInputError, verify_run

    if args.no_reproduce and args.reproduce not in (None, "all"):
        raise UsageError("--reproduce N and --no-reproduce: choose one")
    reproduce: bool | int = (False if args.no_reproduce else
                             True if args.reproduce in (None, "all") else int(args.reproduce))
    try:
        res = verify_run(args.run, args.public_key, reproduce=reproduce, workers=args.workers,
                         address=args.address, sources=args.sources, name_key=_name_key(args))
    except (VerifyInputError, SigningKeyError, ConnectionError) as e:
        raise UsageError(str(e)) from None
    except TaskFailed as e:
        print(f"holdem: {e}", file=sys.stderr)
        return 1
    print(res.line)
    return res.exit_code


def _cmd_keygen(args: argparse.Namespace) -> int:
    from cluster.flows.signing import SigningKeyError, key_id, keygen, load_public_key

    try:
        priv, pub = keygen(args.out)
    except SigningKeyError as e:
        raise UsageError(str(e)) from None
    print(f"private key: {priv} (keep it secret)\npublic key:  {pub} (give it to whoever "
          f"verifies; key {key_id(load_public_key(pub))})")
    return 0


def _cmd_certify(args: argparse.Namespace) -> int:
    """simulate, then audit, then report: the three commands in a row on the same folder."""
    from audits.io import AuditInputError
    from cluster.fanout import TaskFailed
    from cluster.flows.certify import SigningRefused, certify
    from cluster.flows.signing import SigningKeyError
    from cluster.flows.simulate import RunFolderError
    from reports.render import ReportInputError

    if args.import_paths:
        return _certify_import(args)
    if args.rake is not None or args.rake_schedule is not None or args.hash_names is not None:
        raise UsageError("--rake, --rake-schedule and --hash-names go with --import (an "
                         "operator's hands)")
    spec = _run_spec(args)
    try:
        rt = args.runtime
        res = certify(spec, args.out, address=rt.address, workers=rt.workers,
                      key_memory=rt.key_memory, sign_key=args.sign_key,
                      reproduce=not args.no_reproduce, progress=not args.quiet)
    except (SigningKeyError, RunFolderError, ConnectionError, AuditInputError,
            ReportInputError) as e:
        raise UsageError(str(e)) from None
    except (TaskFailed, SigningRefused) as e:  # an audit task failed after its retries
        print(f"holdem: {e} (rerun the command to resume)", file=sys.stderr)
        return 1
    except OSError as e:
        raise _output_error(args.out, e) from None
    if res.simulate_failure is not None:  # os-chacha20 batches are never resumed (certify)
        again = "rerun the command to resume" if spec.reproducible else "rerun with a new --out"
        print(f"holdem: {res.simulate_failure} ({again})", file=sys.stderr)
    else:
        assert res.manifest is not None
        _print_simulated(res.manifest, args.out)
    return _print_certified(res)


def _print_certified(res: Any) -> int:
    """A certify's audit table, report paths, reproduction, verdict and limitations; its exit
    code (``cluster.flows.certify.CertifyResult``)."""
    from audits.runner import format_table

    print(format_table(res.audit))
    print(f"results: {res.audit_path}")
    _print_report_paths(res.report.paths)
    _print_reproduction(res.report.certificate)
    print(f"verdict: {res.verdict}   report: {res.report.paths['html']}")
    for text in res.report.limitations:
        print(f"  not certified: {text}")
    return int(res.exit_code)


def _certify_import(args: argparse.Namespace) -> int:
    """``holdem certify --import PATH... --out RUN``: import, audit, report."""
    from audits.io import AuditInputError
    from cluster.fanout import TaskFailed
    from cluster.flows.certify import SigningRefused, certify_import
    from cluster.flows.import_histories import format_import
    from cluster.flows.rake import RakeError
    from cluster.flows.signing import SigningKeyError
    from cluster.flows.simulate import RunFolderError
    from reports.render import ReportInputError

    rake = _rake_arg(args)
    try:
        rt = args.runtime
        imp, res = certify_import(args.import_paths, args.out, rake=rake, address=rt.address,
                                  workers=rt.workers, key_memory=rt.key_memory,
                                  sign_key=args.sign_key, progress=not args.quiet,
                                  name_key=_name_key(args), reproduce=not args.no_reproduce)
    except (FileNotFoundError, SigningKeyError, RunFolderError, RakeError, ConnectionError,
            AuditInputError, ReportInputError) as e:
        raise UsageError(str(e)) from None
    except (TaskFailed, SigningRefused) as e:
        print(f"holdem: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        raise _output_error(args.out, e) from None
    print(format_import(imp))
    if res is None:
        print("holdem: no hand could be imported: nothing to certify", file=sys.stderr)
        return 2
    return _print_certified(res)


def _add_sources(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sources", default=None, metavar="DIR",
                   help="an imported run: a folder holding its source files (found by sha256) "
                        "when they are not at the paths the manifest records; they are imported "
                        "again and compared with the run's files")
    p.add_argument("--hash-names", default=None, metavar="KEYFILE",
                   help="an imported run whose player names were hashed: the key (--hash-names "
                        "of the import) needed to import its sources again")


def _bool(text: str) -> bool:
    if text.lower() in ("true", "yes", "1", "on"):
        return True
    if text.lower() in ("false", "no", "0", "off"):
        return False
    raise argparse.ArgumentTypeError(f"{text!r}: expected true or false")


def _cmd_shuffle(args: argparse.Namespace) -> int:
    """``holdem shuffle --decks N --out RUN`` or ``holdem shuffle audit FILE...``."""
    from audits.decklog import DeckFileError
    from cluster.fanout import TaskFailed
    from cluster.flows.shuffle import ShuffleRunError, ShuffleSpec, audit_files, run_shuffle

    key_memory = None if args.key_memory is None else args.key_memory << 20
    try:
        if args.files:
            if args.files[0] != "audit" or len(args.files) < 2:
                raise UsageError("expected `holdem shuffle --decks N --out RUN` or `holdem "
                                 "shuffle audit FILE...`")
            cert = audit_files(args.files[1:], args.out or "runs/shuffle-audit",
                               key_memory=key_memory, progress=not args.quiet)
            out = args.out or "runs/shuffle-audit"
        else:
            if args.decks is None or args.out is None:
                raise UsageError("holdem shuffle: --decks and --out are required")
            spec = ShuffleSpec(decks=args.decks, seed=args.seed, generator=args.generator,
                               batch_size=args.batch_size, keep_decks=args.keep_decks,
                               inject=args.inject)
            cert = run_shuffle(spec, args.out, address=args.address, workers=args.workers,
                               key_memory=key_memory, progress=not args.quiet)
            out = args.out
    except (ShuffleRunError, DeckFileError, ConnectionError) as e:
        raise UsageError(str(e)) from None
    except TaskFailed as e:
        print(f"holdem: {e} (rerun the command to resume)", file=sys.stderr)
        return 1
    t = cert.get("timings") or {}
    print(f"{cert['decks']:,} decks in {t.get('wall_seconds', 0):,.1f} s: "
          f"{cert['verdict_text']}")
    if cert.get("power"):
        print(cert["power"]["sentence"])
    print(f"certificate: {out}/certificate.json   report: {out}/report.html")
    return 0 if cert["verdict"] == "PASS" else 1


def _cmd_rng_test(args: argparse.Namespace) -> int:
    from cluster.flows.rngtest import rng_test

    try:
        tests = (None if args.tests is None
                 else tuple(int(t) for t in args.tests.split(",") if t.strip()))
    except ValueError:
        raise UsageError(f"--tests {args.tests}: expected dieharder test numbers, e.g. 0,1,2"
                         ) from None
    cert = rng_test(args.generator, args.out, stream=args.stream, seed=args.seed, tests=tests,
                    say=(lambda s: None) if args.quiet else print)
    print(f"{cert['verdict_text']}\ncertificate: {args.out}/rng-certificate.json")
    return 0 if cert["verdict"] == "PASS" else 1


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from cluster.flows.calibrate import run_calibration

    path = run_calibration(args.out, runs=args.runs, hands=args.hands,
                           uniformity_runs=args.uniformity_runs,
                           uniformity_big_runs=args.uniformity_big_runs)
    print(path.read_text())
    print(f"written: {path}")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from sim.demo import demo_histories

    if not 2 <= args.players <= 10:
        raise UsageError(f"--players {args.players}: expected 2..10 seats")
    if args.hands < 1:
        raise UsageError(f"--hands {args.hands}: expected at least 1")
    if not 0 <= args.seed < 2**63:
        raise UsageError(f"--seed {args.seed}: expected 0 <= seed < 2**63")

    for text in demo_histories(hands=args.hands, seed=args.seed, players=args.players):
        print(text)
        print()
    return 0


def _cmd_diff(args: argparse.Namespace) -> int:
    from cluster.regression.digest_diff import diff_runs, format_diff
    from cluster.regression.runs import NotComparable
    from cluster.regression.stat_diff import format_stat, stat_diff

    try:
        if args.stat:
            stat = stat_diff(args.baseline, args.candidate, alpha=args.alpha)
            print(format_stat(stat, verbose=args.verbose))
            return stat.exit_code
        else:
            if args.recompute and args.trust_digests:
                raise UsageError("--recompute and --trust-digests: choose one")
            res = diff_runs(args.baseline, args.candidate, first=args.first,
                            recompute=args.recompute, trust_digests=args.trust_digests)
            print(format_diff(res))
    except NotComparable as e:
        raise UsageError(str(e)) from None
    return res.exit_code


def _cmd_regress(args: argparse.Namespace) -> int:
    from cluster.regression.regress import RegressError, run_regress

    try:
        return run_regress(args.baseline, hands=args.hands, structures=args.structures,
                           seed=args.seed, players=args.players, fmt=args.format,
                           batch_size=args.batch_size, first=args.first,
                           full_venv=args.full_venv, keep=args.keep, speed=not args.no_speed,
                           speed_rounds=args.speed_rounds, speed_hands=args.speed_hands,
                           tolerance=args.tolerance)
    except RegressError as e:
        raise UsageError(str(e)) from None


def _cmd_golden(args: argparse.Namespace) -> int:
    from cluster.regression.golden import (
        DEFAULT_PATH,
        check_golden,
        format_check,
        format_update,
        update_golden,
    )

    path = args.file or DEFAULT_PATH
    try:
        if args.update:
            print(format_update(path, update_golden(path)))
            return 0
        changes = check_golden(path)
    except ValueError as e:  # not a golden digests file (or not JSON)
        raise UsageError(str(e).splitlines()[0]) from None
    print(format_check(path, changes))
    return 1 if changes else 0


def _add_run_options(p: argparse.ArgumentParser, hands: int | None, structure: str,
                     out: str | None) -> None:
    """The options that define a simulation run (simulate and certify share them)."""
    p.add_argument("--hands", type=int, required=hands is None, default=hands,
                   help="hands per structure")
    p.add_argument("--structure", default=structure,
                   choices=["no-limit", "pot-limit", "fixed-limit", "all"])
    p.add_argument("--population", default="default", choices=["default", "classic"],
                   help="preset the options below start from: default = mixed tables of 2 to "
                        "10 seats, cash and tournaments, buy-ins 20-250 big blinds, real bots; "
                        "classic = 6-seat cash tables of 100 big blinds with stress bots")
    p.add_argument("--players", default=None, metavar="SEATS",
                   help="seats per table: 6, a range 2-10, or a mix with weights 2:1,6:3,9:2 "
                        "(default: 2:2,3:1,4:1,5:1,6:5,7:1,8:2,9:4,10:1)")
    p.add_argument("--format", default=None, choices=["cash", "tournament", "mixed"],
                   help="table format (default mixed: tournaments in --tournament-pct of the "
                        "batches)")
    p.add_argument("--tournament-pct", type=int, default=None, metavar="PCT",
                   help="mixed format: percent of tournament batches (default 40)")
    p.add_argument("--stacks", default=None, metavar="MIN-MAX",
                   help="cash buy-ins in big blinds: 100, or a range 20-250 (the default)")
    p.add_argument("--leave-above", type=int, default=None, metavar="BB",
                   help="cash: a player whose stack passes this many big blinds leaves and is "
                        "replaced (default 750, 0 never)")
    p.add_argument("--tournament-stack", type=int, default=None, metavar="BB",
                   help="tournament starting stack in big blinds (default 60)")
    p.add_argument("--bots", default=None, choices=["classic", "real"],
                   help="real: fold-heavy styles with a few stress bots (default); classic: "
                        "the stress bots alone")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=out is None, default=out,
                   help="run folder: a path or a URI (s3://, gs://, file://); rerun the command "
                        "to resume")
    p.add_argument("--address", default=None,
                   help="join the Ray cluster at this address (default: $RAY_ADDRESS, else an "
                        "embedded local Ray)")
    p.add_argument("--workers", type=int, default=None,
                   help="CPUs of the local Ray (default: all), or the most tasks at once on a "
                        "cluster (default there: 4,096 queued, so that an autoscaler grows "
                        "it); 0 runs in this process without Ray")
    p.add_argument("--batch-size", type=int, default=100_000, help="hands per batch file")
    p.add_argument("--inject", default=None, metavar="FAULT",
                   help="plant a fault (the log must then fail certification)")
    p.add_argument("--generator", default="philox", choices=["philox", "os-chacha20"])
    p.add_argument("--quiet", action="store_true", help="no progress output")


def _add_key_memory(p: argparse.ArgumentParser) -> None:
    p.add_argument("--key-memory", type=int, default=None, metavar="MB",
                   help="driver memory for the collision tests' per-deck keys (34 B a deck; "
                        "default: a quarter of this machine's RAM or container memory limit); "
                        "a larger run is reduced in "
                        "hash partitions, one extra pass over the deck column each")


def _add_no_reproduce(p: argparse.ArgumentParser, text: str) -> None:
    p.add_argument("--no-reproduce", action="store_true",
                   help=text + " (by default, for a run of the reproducible generator, "
                        "every batch the spec plans is simulated again and compared with its "
                        "file byte for byte: a batch that differs fails, naming its first "
                        "differing hand)")


def _add_ray_options(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--workers", type=int, default=None,
                   help=f"CPUs of the local Ray for {what} (default: all; a run of 2 batch "
                        "files or fewer: this process), or the most tasks at once on a "
                        "cluster; 0 runs in this process without Ray")
    p.add_argument("--address", default=None,
                   help="join the Ray cluster at this address (default: $RAY_ADDRESS, else an "
                        "embedded local Ray)")


def _add_sign_key(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sign-key", default=None, metavar="KEY",
                   help="sign certificate.json with this Ed25519 private key (PEM; `holdem "
                        "keygen`): the signature goes to certificate.sig")


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
    im = phh_sub.add_parser("import", help="the same as `holdem import`")
    _add_import_options(im)
    im.set_defaults(func=_cmd_phh_import)
    imp = sub.add_parser("import", help="import an operator's hand histories (PHH, PHHS, the "
                                        "sites' text exports) into a run folder to audit")
    _add_import_options(imp)
    imp.set_defaults(func=_cmd_phh_import)

    from cluster.bench.runner import BENCH_DEFAULTS, BENCHMARKS

    b = sub.add_parser("bench", help="benchmarks (medians of repeated runs)")
    b.add_argument("what", choices=[*BENCHMARKS, "all"],
                   help="one benchmark, or all of them (then every figure with its peer)")
    b.add_argument("--hands", type=int, default=None,
                   help="hands (decks for shuffle) per repetition (default: " + ", ".join(
                       f"{k} {h:,}" for k, (h, _) in BENCH_DEFAULTS.items())
                   + "; simulate also runs 4x that)")
    b.add_argument("--repeats", type=int, default=None, help="repetitions (default: " + ", ".join(
        f"{k} {r}" for k, (_, r) in BENCH_DEFAULTS.items()) + ")")
    b.add_argument("--population", default="default", choices=["default", "classic"],
                   help="simulate, audit: the population the run plays (default: the command "
                        "line's mixed tables; classic: 6-seat cash tables of stress bots)")
    b.add_argument("--run", default=None,
                   help="audit: time the audits on this run folder instead of a fresh one")
    b.add_argument("--pokerkit-hands", type=int, default=300,
                   help="hands for the PokerKit peer (0 to skip)")
    b.add_argument("--json", default=None, metavar="OUT",
                   help="all: write every figure with its peer, the machine and the code here")
    b.add_argument("--quick", action="store_true",
                   help="all: every benchmark at small sizes (seconds; noisy figures)")
    b.add_argument("--no-ray", action="store_true",
                   help="all: leave out the Ray benchmarks (simulate on Ray, scale)")
    b.set_defaults(func=_cmd_bench)

    wu = sub.add_parser("warmup", help="compile every numba kernel into the shared compiled-code "
                                       "cache (make venv runs it; no job is run)")
    wu.set_defaults(func=_cmd_warmup)

    sm = sub.add_parser("simulate", help="simulate hands on Ray into a Parquet run folder")
    _add_run_options(sm, None, "no-limit", None)
    sm.set_defaults(func=_cmd_simulate)

    ce = sub.add_parser("certify", help="simulate, audit and report in one command")
    _add_run_options(ce, 1_000_000, "all", "runs/certify")
    _add_key_memory(ce)
    _add_sign_key(ce)
    _add_no_reproduce(ce, "re-simulate only the batch files the folder already held (a resumed "
                          "run's: never trusted); the certificate then says the rest were not "
                          "re-simulated, a limitation; with --import: do not import the sources "
                          "again to compare them with the run's files")
    ce.add_argument("--import", dest="import_paths", nargs="+", default=None, metavar="PATH",
                    help="certify an operator's hand histories instead of a simulation: "
                         "import PATH... into --out, audit and report")
    _add_import_options(ce, paths=False)
    ce.set_defaults(func=_cmd_certify)

    sh = sub.add_parser("shuffle", help="certify the shuffler alone on up to billions of decks"
                        " (`holdem shuffle audit FILE...`: decks from another system); exit 0 "
                        "PASS, 1 FAIL, 2 bad input")
    sh.add_argument("files", nargs="*", metavar="audit FILE",
                    help="`audit` then Parquet or CSV deck files (README, The shuffle "
                         "certificate)")
    sh.add_argument("--decks", type=int, default=None, help="decks to shuffle and certify")
    sh.add_argument("--out", default=None, help="run folder (a path or a URI); rerun to resume")
    sh.add_argument("--generator", default="philox", choices=["philox", "os-chacha20"])
    sh.add_argument("--seed", type=int, default=1)
    sh.add_argument("--batch-size", type=int, default=1_000_000, help="decks per batch file")
    sh.add_argument("--keep-decks", type=_bool, default=True, metavar="true|false",
                    help="write the deck-only log (52 B a deck); false: audit in the workers "
                         "and keep nothing")
    sh.add_argument("--inject", default=None, metavar="FAULT",
                    choices=["naive-shuffle", "asf-shuffle", "mod8-shuffle", "seed32"],
                    help="plant a shuffle fault (the certificate must then FAIL)")
    sh.add_argument("--address", default=None,
                    help="join the Ray cluster at this address (default: $RAY_ADDRESS, else an "
                         "embedded local Ray)")
    sh.add_argument("--workers", type=int, default=None,
                    help="CPUs of the local Ray (default: all); 0 runs in this process")
    _add_key_memory(sh)
    sh.add_argument("--quiet", action="store_true", help="no progress output")
    sh.set_defaults(func=_cmd_shuffle)

    rg_ = sub.add_parser("rng", help="the generator itself through a recognized battery")
    rg_sub = rg_.add_subparsers(dest="rng_command", required=True)
    rt = rg_sub.add_parser("test", help="stream the generator into dieharder (exit 0 PASS, 1 "
                                        "FAIL or NOT RUN without dieharder)")
    rt.add_argument("--generator", default="philox", choices=["philox", "os-chacha20"])
    rt.add_argument("--stream", default="raw", choices=["raw", "draws"],
                    help="raw: the head of each hand's deck stream; draws: the Fisher-Yates "
                         "draws of power-of-two range, 15 bits a deck")
    rt.add_argument("--tests", default=None,
                    help="comma-separated dieharder test numbers (default: a minute's worth)")
    rt.add_argument("--seed", type=int, default=1)
    rt.add_argument("--out", default="runs/rng", help="folder for rng-certificate.json")
    rt.add_argument("--quiet", action="store_true")
    rt.set_defaults(func=_cmd_rng_test)

    ca = sub.add_parser("calibrate", help="false-alarm and detection rates of every audit")
    ca.add_argument("--out", default="runs/calibration")
    ca.add_argument("--runs", type=int, default=5,
                    help="runs per engine fault (and clean runs for the false alarms)")
    ca.add_argument("--hands", type=int, default=60_000, help="hands per engine-fault run")
    ca.add_argument("--uniformity-runs", type=int, default=200,
                    help="runs per deck count for the uniformity battery: fair decks (false "
                         "alarms) and every shuffle fault's deck counts below 1,000,000")
    ca.add_argument("--uniformity-big-runs", type=int, default=3,
                    help="runs per deck count of 1,000,000 or more for the uniformity battery")
    ca.set_defaults(func=_cmd_calibrate)

    rr = sub.add_parser("report", help="render report.html, certificate.json and summary.md")
    rr.add_argument("run", help="an audited run folder")
    rr.add_argument("--calibration", default=None,
                    help="calibration.md of `holdem calibrate` to include (default: "
                         "runs/calibration/calibration.md when it exists)")
    _add_sign_key(rr)
    _add_no_reproduce(rr, "do not re-simulate the run from its spec (the certificate then says "
                          "so, a limitation)")
    _add_ray_options(rr, "re-simulating the run and (with --sign-key) re-running the audits")
    _add_sources(rr)
    rr.set_defaults(func=_cmd_report)

    vf = sub.add_parser("verify", help="check a received run folder against its certificate "
                                       "(exit 0 all match, 1 a mismatch, 2 bad input)")
    vf.add_argument("run", help="run folder (path or URI) holding certificate.json")
    vf.add_argument("--public-key", default=None, metavar="PUB",
                    help="check certificate.sig against this Ed25519 public key (PEM); without "
                         "it nothing is authenticated, and a folder holding certificate.sig "
                         "exits 1")
    vf.add_argument("--reproduce", nargs="?", const="all", default=None, metavar="N",
                    type=_batches_arg,
                    help="re-simulate only a sample of N batch files (default: all of them, "
                         "for a run of the reproducible generator; --reproduce alone: all)")
    _add_no_reproduce(vf, "do not re-simulate the run from its spec (an import: do not "
                          "re-import its sources)")
    _add_ray_options(vf, "re-simulating the run")
    _add_sources(vf)
    vf.set_defaults(func=_cmd_verify)

    kg = sub.add_parser("keygen", help="make an Ed25519 key pair to sign certificates")
    kg.add_argument("--out", required=True, metavar="KEY",
                    help="private key file to write (PEM, mode 0600); the public key goes to "
                         "KEY.pub")
    kg.set_defaults(func=_cmd_keygen)

    rp = sub.add_parser("replay", help="replay one logged hand of a run and print it")
    rp.add_argument("run", help="run folder (path or URI)")
    rp.add_argument("--hand", type=int, required=True, help="hand_id")
    rp.add_argument("--phh", action="store_true", help="print PHH instead of a history")
    rp.set_defaults(func=_cmd_replay)

    mg = sub.add_parser("migrate", help="convert a run folder of the old layout "
                                        "(structure=<label>/...) to RUN/log/<label>/...")
    mg.add_argument("run", help="run folder (path or URI)")
    mg.set_defaults(func=_cmd_migrate)

    au = sub.add_parser("audit", help="certify a run folder: deal, chips, rotation, payouts, "
                                      "betting (exit 0 all pass, 1 a failure, 2 bad input)")
    au.add_argument("run", help="run folder")
    au.add_argument("--only", default=None, help="comma-separated audit names (default: all)")
    au.add_argument("--workers", type=int, default=None,
                    help="CPUs of the local Ray (default: all), or the most tasks at once on a "
                         "cluster; 0 runs in this process without Ray")
    au.add_argument("--address", default=None,
                    help="join the Ray cluster at this address (default: $RAY_ADDRESS, else an "
                         "embedded local Ray)")
    _add_key_memory(au)
    au.add_argument("--quiet", action="store_true", help="no progress output")
    au.set_defaults(func=_cmd_audit)

    ex = sub.add_parser("export", help="the run's hands as four tidy Parquet tables (hands, "
                                       "seats, actions, pots) with readable codes")
    ex.add_argument("run", help="run folder (path or URI)")
    ex.add_argument("--out", default=None, help="output folder (default: RUN/tables)")
    ex.add_argument("--workers", type=int, default=None,
                    help="CPUs of the local Ray (default: all), or the most tasks at once on a "
                         "cluster; 0 runs in this process without Ray")
    ex.add_argument("--address", default=None,
                    help="join the Ray cluster at this address (default: $RAY_ADDRESS, else an "
                         "embedded local Ray)")
    ex.add_argument("--quiet", action="store_true", help="no progress output")
    ex.set_defaults(func=_cmd_export)

    d = sub.add_parser("demo", help="play a few seeded hands and print them")
    d.add_argument("--hands", type=int, default=3)
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--players", type=int, default=6)
    d.set_defaults(func=_cmd_demo)

    df = sub.add_parser("diff", help="compare two run folders hand by hand (exit 0 identical, "
                                     "1 different, 2 not comparable)")
    df.add_argument("baseline", help="run folder")
    df.add_argument("candidate", help="run folder")
    df.add_argument("--first", type=int, default=10, help="differing hand_ids to list")
    df.add_argument("--recompute", action="store_true",
                    help="hash every hand's content without reading the stored digests")
    df.add_argument("--trust-digests", action="store_true",
                    help="read the stored digests of files whose bytes match their manifest "
                         "instead of checking each against its hand's content (faster; a forged "
                         "hand whose digest was left stale goes unseen)")
    df.add_argument("--stat", action="store_true",
                    help="compare distributions instead (win rates, pots, actions, rates)")
    df.add_argument("--alpha", type=float, default=0.01, help="--stat: family-wise level (Holm)")
    df.add_argument("--verbose", action="store_true", help="--stat: list every test")
    df.set_defaults(func=_cmd_diff)

    rg = sub.add_parser("regress", help="simulate with the engine at a git ref and with this "
                                        "working tree, and diff the hands")
    rg.add_argument("--baseline", required=True, metavar="GIT_REF")
    rg.add_argument("--hands", type=int, default=20_000, help="hands per structure")
    rg.add_argument("--structures", nargs="+", default=["all"],
                    help="no-limit, pot-limit, fixed-limit or all")
    rg.add_argument("--seed", type=int, default=1)
    rg.add_argument("--players", type=int, default=6)
    rg.add_argument("--format", default="cash", choices=["cash", "tournament"])
    rg.add_argument("--batch-size", type=int, default=None)
    rg.add_argument("--first", type=int, default=10, help="differing hand_ids to list")
    rg.add_argument("--full-venv", action="store_true",
                    help="install the baseline into its own venv (when REF changed dependencies)")
    rg.add_argument("--keep", action="store_true", help="keep the two run folders")
    rg.add_argument("--no-speed", action="store_true",
                    help="skip the speed check (engine, simulate, audit timed on both sides)")
    rg.add_argument("--speed-rounds", type=int, default=3,
                    help="speed check: processes per side, interleaved (default 3)")
    rg.add_argument("--speed-hands", type=int, default=40_000,
                    help="speed check: hands simulated and audited per sample (the engine "
                         "plays 4x as many; default 40,000)")
    rg.add_argument("--tolerance", type=float, default=0.10,
                    help="speed check: fail when this tree takes more than this fraction more "
                         "time per hand than the baseline (default 0.10)")
    rg.set_defaults(func=_cmd_regress)

    gd = sub.add_parser("golden", help="check the engine against tests/golden/digests.json")
    gd.add_argument("--update", action="store_true",
                    help="rewrite the file and print what changed (commit it with a reason)")
    gd.add_argument("--file", default=None, help="golden file (default: tests/golden/...)")
    gd.set_defaults(func=_cmd_golden)
    return p


def _check_limits(args: argparse.Namespace) -> None:
    """The options several commands share, checked once: ``--workers``, ``--address`` and
    ``--key-memory`` (MB) become ``args.runtime`` (``cluster.ray_runtime.Runtime``), the one
    validated value the handlers pass on."""
    from cluster.ray_runtime import Runtime

    try:
        args.runtime = Runtime.of(getattr(args, "workers", None), getattr(args, "address", None),
                                  getattr(args, "key_memory", None))
    except ValueError as e:
        raise UsageError(str(e)) from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        _check_limits(args)
        return int(args.func(args))
    except UsageError as e:
        print(f"holdem: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into `head` and the like
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("holdem: interrupted", file=sys.stderr)
        return 130
    except RuntimeError as e:  # code about to be compiled is not the code that was hashed
        jitcache = sys.modules.get("audits.jitcache")
        if jitcache is None or not isinstance(e, jitcache.StaleCodeError):
            raise
        print(f"holdem: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
