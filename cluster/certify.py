"""``holdem certify``: simulate, audit and report (and sign) a run folder, as one function,
``certify``, that returns its verdict: callable from the command line, from Python and from a
Ray job alike. Also ``holdem report``'s function, ``report``, with the replays of failing hands
that the report shows (the engine runs here, in cluster/, never in reports/)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from audits.runner import AuditReport
    from audits.storage import Location
    from reports.render import WrittenReport
    from sim.runspec import RunSpec

MAX_REPLAYS = 12


def failing_histories(run: str | Path, results: list[dict[str, Any]]) -> dict[int, str]:
    """Readable histories of the first failing hands of each failing audit."""
    from cluster.replay import find_row
    from sim.history import format_hand
    from sim.rows import hand_from_row

    out: dict[int, str] = {}
    for r in results:
        if r["passed"] or not r["applicable"]:
            continue
        for hid in r["example_hand_ids"][:3]:
            if len(out) >= MAX_REPLAYS or int(hid) in out:
                continue
            try:
                row = find_row(run, int(hid))
            except Exception as e:  # noqa: BLE001 - a report must render whatever is broken
                out[int(hid)] = f"(hand {hid} not found: {e})"
                continue
            try:
                hand = hand_from_row(row, check=False)
                text = format_hand(hand)
                logged = list(row["stacks_end"])
                if hand.stacks != logged:
                    text += (f"\n*** the log says the hand ended with stacks {logged}; the clean "
                             f"engine ends it with {hand.stacks}")
                out[int(hid)] = text
            except ValueError as e:
                out[int(hid)] = (f"(the clean engine cannot replay hand {hid}: {e})\n"
                                 f"logged stacks: {list(row['stacks_start'])} -> "
                                 f"{list(row['stacks_end'])}")
    return out


DEFAULT_CALIBRATION = Path("runs/calibration/calibration.md")


def report(run: str | Path, calibration: str | Path | None = DEFAULT_CALIBRATION,
           sign_key: str | Path | None = None) -> WrittenReport:
    """``holdem report RUN``: write report.html, certificate.json and summary.md (with the
    calibration tables of ``holdem calibrate`` when that file exists). ``sign_key``: an Ed25519
    private key (PEM) whose signature of certificate.json is written to certificate.sig; without
    one, a signature left by an earlier report is removed (it would not match). Returns the
    paths written (``signature`` among them when signed) and the certificate (its verdict).
    Raises ReportInputError, SigningKeyError."""
    from audits import storage
    from audits.runfolder import RunFolder
    from cluster.signing import load_private_key, sign
    from reports import SIGNATURE_FILE
    from reports.render import load_inputs, write_report

    key = load_private_key(sign_key) if sign_key is not None else None  # before writing
    audit, _ = load_inputs(run)
    written = write_report(run, failing_histories(run, audit["results"]), calibration)
    folder = RunFolder.open(storage.as_location(run))
    sig = folder.location(SIGNATURE_FILE)
    if key is not None:
        folder.write(SIGNATURE_FILE, sign(key, storage.read_bytes(written.paths["certificate"])))
        written.paths["signature"] = sig
    elif storage.is_file(sig):
        folder.delete(SIGNATURE_FILE)
    return written


@dataclass(frozen=True)
class CertifyResult:
    """The outcome of ``certify``: the run's manifest, its audit, its report and the verdict."""

    out: str  # the run folder (a path or a URI)
    manifest: dict[str, Any] | None  # what simulate wrote (None when a batch failed)
    simulate_failure: str | None  # a batch that failed after its retries: the run is incomplete
    audit: AuditReport
    audit_path: Location  # audit.json
    report: WrittenReport  # report.html, certificate.json, summary.md (certificate.sig)

    @property
    def verdict(self) -> str:
        """``PASS`` or ``FAIL``: the verdict certificate.json was written with."""
        return self.report.verdict

    @property
    def exit_code(self) -> int:
        """0 PASS, 1 FAIL."""
        return 0 if self.verdict == "PASS" else 1


def audit_step(run: Location, *, workers: int | None = None,
               address: str | None = None, key_memory: int | None = None,
               progress: bool = True) -> tuple[AuditReport, Location]:
    """Every audit over the run folder, as ``holdem audit RUN`` runs them (``workers=0`` in this
    process, else on Ray: ``cluster.audit.audit_run``); writes audit.json. Returns (the report,
    audit.json's location). ``key_memory`` in bytes. Raises AuditInputError, ConnectionError,
    ``cluster.fanout.TaskFailed``."""
    from audits.runner import write_report
    from cluster.audit import audit_run

    result = audit_run(run, None, workers=workers, address=address, key_memory=key_memory,
                       progress=progress)
    return result, write_report(result)


def certify(spec: RunSpec, out: Location, *, address: str | None = None,
            workers: int | None = None, key_memory: int | None = None,
            sign_key: str | Path | None = None,
            calibration: str | Path | None = DEFAULT_CALIBRATION,
            progress: bool = True) -> CertifyResult:
    """``holdem certify``: simulate ``spec`` into ``out`` (resuming what is there), audit it,
    write the report (signed with ``sign_key`` when given) and return the verdict.

    ``workers=0`` runs everything in this process; otherwise on Ray (the cluster at ``address``,
    or an embedded local Ray). ``key_memory``: bytes for the collision tests' keys. An unusable
    ``sign_key`` is refused before any simulation. A batch that fails after its retries does not
    stop the flow: the incomplete run is audited and reported (the integrity audit fails it),
    and ``simulate_failure`` says which batch. Raises SigningKeyError, RunFolderError,
    ConnectionError, OSError, AuditInputError, ReportInputError."""
    from cluster.fanout import TaskFailed
    from cluster.simulate import run_simulate

    if sign_key is not None:  # an unusable key is refused before hours of simulation
        from cluster.signing import load_private_key

        load_private_key(sign_key)
    manifest: dict[str, Any] | None = None
    failure: str | None = None
    try:
        manifest = run_simulate(spec, out, address=address, workers=workers, progress=progress)
    except TaskFailed as e:
        failure = str(e)
    audited, audit_path = audit_step(out, workers=workers, address=address,
                                     key_memory=key_memory, progress=progress)
    written = report(out, calibration, sign_key=sign_key)
    return CertifyResult(os.fspath(out), manifest, failure, audited, audit_path, written)
