"""``holdem simulate``, ``certify``, ``audit`` and ``report``: make a run, check it, certify it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cluster.cli import options as o

if TYPE_CHECKING:
    from cluster.flows.manifest import Manifest
    from reports.certificate import Certificate


def add_parser(sub: Any) -> None:
    sm = sub.add_parser("simulate", help="simulate hands on Ray into a Parquet run folder")
    o.add_run_options(sm, None, "no-limit", None)
    sm.add_argument("--log-version", type=int, choices=(3, 4), default=None,
                    help="the log schema version of the files (docs/log-schema.md; default: a "
                         "resumed run's, else 3); 4 stores the per-seat and per-hand lists as "
                         "packed binary values")
    o.handler(sm, simulate, output="out", fail_hint=o.RESUME, lock="out")

    ce = sub.add_parser("certify", help="simulate, audit and report in one command")
    o.add_run_options(ce, 1_000_000, "all", "runs/certify")
    o.add_key_memory(ce)
    o.add_sign_key(ce)
    o.add_lab(ce)
    o.add_suspects(ce)
    o.add_no_reproduce(ce, "re-simulate only the batch files the folder already held (a "
                           "resumed run's: never trusted); the certificate then says the rest "
                           "were not re-simulated, a limitation; with --import: do not import "
                           "the sources again to compare them with the run's files")
    ce.add_argument("--reproduce", dest="reproduce_mode", choices=("values", "bytes"),
                    default="values",
                    help="how each re-simulated batch is compared with its file: values (the "
                         "default: in the audit's read of the file, every value, the footer, "
                         "and the bytes by the sha256 this command's writer gave them; a kept "
                         "batch encoded again) or bytes (every batch encoded again after the "
                         "audit and compared byte for byte: a second encode)")
    ce.add_argument("--import", dest="import_paths", nargs="+", default=None, metavar="PATH",
                    help="certify an operator's hand histories instead of a simulation: "
                         "import PATH... into --out, audit and report")
    o.add_import_options(ce, paths=False)
    o.handler(ce, certify, output="out", fail_hint=_certify_hint, lock="out")

    au = sub.add_parser("audit", help="certify a run folder: deal, chips, rotation, payouts, "
                                      "betting (exit 0 all pass, 1 a failure, 2 bad input)")
    au.add_argument("run", help="run folder")
    au.add_argument("--only", default=None, help="comma-separated audit names (default: all)")
    o.add_workers(au)
    o.add_address(au)
    o.add_key_memory(au)
    o.add_suspects(au, alias=True)
    o.add_quiet(au)
    o.handler(au, audit, lock="run")

    rr = sub.add_parser("report", help="render report.html, certificate.json and summary.md")
    rr.add_argument("run", help="an audited run folder")
    rr.add_argument("--calibration", default=None,
                    help="calibration.md of `holdem calibrate` to include (default: "
                         "runs/calibration/calibration.md when it exists)")
    o.add_sign_key(rr)
    o.add_lab(rr)
    o.add_no_reproduce(rr, "do not re-simulate the run from its spec (the certificate then "
                           "says so, a limitation)")
    o.add_ray_options(rr, "re-simulating the run and (with --sign-key) re-running the audits")
    o.add_sources(rr)
    o.handler(rr, report, lock="run")


def _certify_hint(args: argparse.Namespace) -> str:
    """A failed task of a simulation's certify can be resumed (an import's is imported again)."""
    return "" if args.import_paths else o.RESUME


def print_simulated(m: Manifest, out: str) -> None:
    rate = f", {m.hands_per_second:,.0f} hands/s" if m.hands_per_second else ""
    print(f"{m.hands:,} hands in {len(m.files)} files ({m.batches_reused} reused){rate}: {out}")
    if m.fault_warning:
        print(m.fault_warning, file=sys.stderr)


def simulate(args: argparse.Namespace) -> int:
    from cluster.flows.simulate import run_simulate

    spec = o.run_spec(args)
    rt = args.runtime
    m = run_simulate(spec, args.out, address=rt.address, workers=rt.workers,
                     progress=not args.quiet, log_version=args.log_version)
    print_simulated(m, args.out)
    return 0


def certify(args: argparse.Namespace) -> int:
    """simulate, then audit, then report: the three commands in a row on the same folder."""
    from cluster.flows.certify import certify

    if args.import_paths:
        return certify_import(args)
    if (args.rake is not None or args.rake_schedule is not None or args.hash_names is not None
            or getattr(args, "venue", None) or getattr(args, "source_format", None)):
        raise o.UsageError("--rake, --rake-schedule, --hash-names, --venue and --source-format "
                           "go with --import (an operator's hands)")
    spec = o.run_spec(args)
    lab = o.lab_arg(args)
    players = o.suspects_arg(args)
    rt = args.runtime
    res = certify(spec, args.out, address=rt.address, workers=rt.workers,
                  key_memory=rt.key_memory, sign_key=args.sign_key,
                  reproduce=not args.no_reproduce, progress=not args.quiet, lab=lab,
                  reproduce_mode=args.reproduce_mode, players=players)
    if res.simulate_failure is not None:  # os-chacha20 batches are never resumed (certify)
        again = "rerun the command to resume" if spec.reproducible else "rerun with a new --out"
        print(f"holdem: {res.simulate_failure} ({again})", file=sys.stderr)
    else:
        assert res.manifest is not None
        print_simulated(res.manifest, args.out)
    return print_certified(res)


def certify_import(args: argparse.Namespace) -> int:
    """``holdem certify --import PATH... --out RUN``: import, audit, report."""
    from cluster.flows.certify import certify_import
    from cluster.flows.import_histories import format_import

    game = o.import_game(args)
    rake = o.rake_arg(args)
    lab = o.lab_arg(args)
    players = o.suspects_arg(args)
    rt = args.runtime
    with o.as_input(FileNotFoundError):
        imp, res = certify_import(args.import_paths, args.out, rake=rake, game=game,
                                  address=rt.address,
                                  workers=rt.workers, key_memory=rt.key_memory,
                                  sign_key=args.sign_key, progress=not args.quiet,
                                  name_key=o.name_key(args), reproduce=not args.no_reproduce,
                                  lab=lab, players=players, venues=o.venue_map(args),
                                  formats=o.format_map(args))
    print(format_import(imp))
    if res is None:
        print("holdem: no hand could be imported: nothing to certify", file=sys.stderr)
        return 2
    return print_certified(res)


def print_certified(res: Any) -> int:
    """A certify's audit table, report paths, reproduction, verdict and limitations; its exit
    code (``cluster.flows.certify.CertifyResult``)."""
    from audits.runner import format_table

    print(format_table(res.audit))
    print(f"results: {res.audit_path}")
    print_failing(res.audit)
    print_report_paths(res.report.paths)
    print_reproduction(res.report.certificate)
    # the last line: the verdict and its reason in one sentence, as the certificate says it
    print(f"verdict: {res.report.certificate.verdict_text or res.verdict}")
    return int(res.exit_code)


def audit(args: argparse.Namespace) -> int:
    from audits.runner import format_table, resolve, write_audit_json
    from cluster.flows.audit import audit_run

    names = resolve([n.strip() for n in args.only.split(",") if n.strip()]
                    if args.only else None)
    rt = args.runtime
    players = o.suspects_arg(args)
    report = audit_run(args.run, names, workers=rt.workers, address=rt.address,
                       key_memory=rt.key_memory, progress=not args.quiet, players=players)
    out = write_audit_json(report)
    print(format_table(report))
    print(f"results: {out}")
    print_failing(report)
    return 0 if report.passed else 1


def print_failing(report: Any) -> None:
    """Where the complete list of failing hands is, when there is one."""
    rec = report.failing_record()
    if rec:
        print(f"failing hands: {rec['rows']:,} in {rec['path']} (`holdem replay RUN --failing` "
              "walks them)")


def report(args: argparse.Namespace) -> int:
    from cluster.flows.certify import DEFAULT_CALIBRATION, report

    rt = args.runtime
    written = report(args.run, args.calibration or DEFAULT_CALIBRATION,
                     sign_key=args.sign_key, reproduce=not args.no_reproduce,
                     workers=rt.workers, address=rt.address, sources=args.sources,
                     name_key=o.name_key(args), lab=o.lab_arg(args))
    print_report_paths(written.paths)
    print_reproduction(written.certificate)
    return 0


def print_reproduction(cert: Certificate) -> None:
    rep = cert.reproduction
    if rep is not None:
        print(f"reproduction: {rep.get('status')}: {rep.get('text')}")


def print_report_paths(paths: Mapping[str, object]) -> None:
    for k in ("html", "certificate", "summary", "signature", "signed by key"):
        if k in paths:
            print(f"{k}: {paths[k]}")
