"""``holdem certify``: simulate, audit and report (and sign) a run folder, as one function,
``certify``, that returns its verdict: callable from the command line, from Python and from a
Ray job alike. Also ``holdem report``'s function, ``report``, with the replays of failing hands
that the report shows (the engine runs here, in cluster/, never in reports/)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audits.result import AuditResult, read_results
from audits.runfolder import storage
from audits.runfolder.errors import CheckFailed

if TYPE_CHECKING:
    from audits.players import PlayerList
    from audits.runfolder.storage import Location
    from audits.runner import AuditReport
    from cluster.flows.manifest import Manifest
    from reports.render import WrittenReport
    from sim.runspec import RunSpec

MAX_REPLAYS = 12


def failing_histories(run: str | Path, results: Sequence[AuditResult]) -> dict[int, str]:
    """Readable histories of the first failing hands of each failing audit."""
    from cluster.flows.replay import find_row, replayed_text

    out: dict[int, str] = {}
    for r in results:
        if r.ok:
            continue
        for hid in r.example_hand_ids[:3]:
            if len(out) >= MAX_REPLAYS or int(hid) in out:
                continue
            try:
                row = find_row(run, int(hid))
            except Exception as e:  # noqa: BLE001 - a report must render whatever is broken
                out[int(hid)] = f"(hand {hid} not found: {e})"
                continue
            try:
                out[int(hid)] = replayed_text(row)
            except ValueError as e:
                out[int(hid)] = (f"(the clean engine cannot replay hand {hid}: {e})\n"
                                 f"logged stacks: {list(row['stacks_start'])} -> "
                                 f"{list(row['stacks_end'])}")
    return out


DEFAULT_CALIBRATION = Path("runs/calibration/calibration.md")


class SigningRefused(CheckFailed, ValueError):
    """``--sign-key`` refused: audit.json is not what the audits give on these bytes (exit 1)."""


def reproduction_for(run: Location, manifest: dict[str, Any], *, reproduce: bool = True,
                     workers: int | None = None, address: str | None = None,
                     sources: str | None = None, name_key: bytes | None = None
                     ) -> dict[str, Any]:
    """The certificate's ``reproduction`` entry of a received run folder: for a simulate run of
    the reproducible generator, every planned batch re-simulated from the manifest's spec and
    compared byte for byte (``reproduce=False``: NOT RUN, a limitation); for an imported run,
    the source files it lists re-imported and compared (``import_reproduction``); NOT
    REPRODUCIBLE for any other run, with the reason."""
    from audits.runspec import IMPORT_FORMATS
    from cluster.flows.reproduce import (
        NOT_REPRODUCIBLE,
        ReproduceInputError,
        not_run,
        reproduce_run,
    )

    if manifest.get("format") in IMPORT_FORMATS:
        return import_reproduction(run, manifest, reproduce=reproduce, workers=workers,
                                   address=address, sources=sources, name_key=name_key)
    simulated = manifest.get("format") == "holdem-simulate-run"
    spec = manifest.get("spec") if simulated else None
    generator = spec.get("generator") if isinstance(spec, dict) else manifest.get("generator")
    if not simulated:
        return not_run("not a holdem simulate run: no spec to re-simulate it from",
                       NOT_REPRODUCIBLE)
    if generator != "philox":
        return not_run(f"generator {generator}: its decks came from the operating system's "
                       "entropy", NOT_REPRODUCIBLE)
    if not reproduce:
        return not_run("--no-reproduce")
    try:
        return reproduce_run(str(run), workers=workers, address=address).record()
    except ReproduceInputError as e:
        # a simulate run of the reproducible generator whose spec cannot be re-simulated: that
        # alone means the hands are not what a spec of this holdem plays
        return {"status": "DIFFERS", "text": str(e), "batches": 0, "planned": None, "hands": 0,
                "path": "manifest.json", "hand_id": None}


def import_reproduction(run: Location, manifest: dict[str, Any], *, reproduce: bool = True,
                        workers: int | None = None, address: str | None = None,
                        sources: str | None = None, name_key: bytes | None = None,
                        named: tuple[str, ...] = ()) -> dict[str, Any]:
    """The ``reproduction`` entry of an imported run: its source files (at their recorded
    paths, or found by sha256 under ``sources``) re-imported with the run's options and
    compared with its files (``cluster.flows.reproduce.reproduce_import``): REPRODUCED, DIFFERS
    (named), NOT REPRODUCIBLE (a source absent or changed, the name key absent: the reason) or
    NOT RUN (``reproduce=False``); the last two are limitations (nothing binds the log to the
    sources)."""
    from cluster.flows.reproduce import (
        NOT_REPRODUCIBLE,
        NotReproducible,
        ReproduceInputError,
        not_run,
        reproduce_import,
    )

    if not reproduce:
        return not_run("--no-reproduce", of="sources")
    try:
        return reproduce_import(str(run), sources=sources, name_key=name_key, workers=workers,
                                address=address, named=named).record()
    except NotReproducible as e:
        return not_run(str(e), NOT_REPRODUCIBLE, of="sources")
    except ReproduceInputError as e:
        return {"status": "DIFFERS", "text": str(e), "batches": 0, "planned": None, "hands": 0,
                "path": "manifest.json", "hand_id": None, "of": "sources"}


def _comparable(cert: dict[str, Any]) -> dict[str, Any]:
    """A certificate without what legitimately differs between two audits of the same bytes:
    when it was issued, audit.json's own sha256, the audit's provenance (its command line)."""
    out = {k: v for k, v in cert.items() if k != "issued"}
    out["run"] = {k: v for k, v in cert["run"].items() if k != "audit_sha256"}
    out["provenance"] = {k: v for k, v in (cert.get("provenance") or {}).items() if k != "audit"}
    return out


def binding_difference(stored: dict[str, Any], fresh: dict[str, Any],
                       manifest: dict[str, Any]) -> str | None:
    """Where the certificate audit.json ``stored`` gives differs from the one the audit re-run on
    the folder's bytes (``fresh``, audit.json's form) gives: the first field, or None."""
    from cluster.flows.reproduce import first_difference
    from reports.render import build_run_certificate

    mine = _comparable(build_run_certificate(stored, manifest))
    theirs = _comparable(build_run_certificate(fresh, manifest))
    if mine["verdict_text"] != theirs["verdict_text"]:
        return (f"verdict_text ({mine['verdict_text'][:60]!r} from audit.json, "
                f"{theirs['verdict_text'][:60]!r} from the audits re-run)")
    return first_difference(mine, theirs)


def _bind_audit(run: Location, audit: dict[str, Any], manifest: dict[str, Any],
                fresh: AuditReport | None, *, workers: int | None, address: str | None,
                progress: bool) -> None:
    """Refuse (SigningRefused) to sign an audit.json that the audits, re-run on the folder's
    bytes (or ``fresh``, the audit certify just ran), do not give field for field."""
    import json

    from audits.players import recorded_list
    from audits.runner import AUDIT_FILE
    from cluster.flows.audit import audit_run

    if fresh is None:
        from cluster.flows.reproduce import effective_workers

        names = [r.name for r in read_results(audit)]
        files = audit.get("inputs", {}).get("files") or []
        fresh = audit_run(run, names, workers=effective_workers(len(files), workers, address),
                          address=address, progress=progress, players=recorded_list(audit))
    again = json.loads(json.dumps(fresh.to_dict(), default=str))
    where = binding_difference(audit, again, manifest)
    if where:
        raise SigningRefused(f"{storage.join(run, AUDIT_FILE)}: the certificate's field {where} "
                             "is not what the audits re-run on these bytes give: audit.json was "
                             "edited or is stale; nothing signed (run `holdem audit` again)")


def report(run: str | Path, calibration: str | Path | None = DEFAULT_CALIBRATION,
           sign_key: str | Path | None = None, *, reproduce: bool = True,
           reproduction: dict[str, Any] | None = None, fresh: AuditReport | None = None,
           workers: int | None = None, address: str | None = None,
           progress: bool = False, sources: str | None = None,
           name_key: bytes | None = None, key: Any = None,
           lab: dict[str, Any] | None = None) -> WrittenReport:
    """``holdem report RUN``: write report.html, certificate.json and summary.md (with the
    calibration tables of ``holdem calibrate`` when that file exists).

    ``reproduction``: the certificate's reproduction entry when the caller has it (certify);
    otherwise a reproducible run is re-simulated from its spec here (``reproduction_for``;
    ``reproduce=False``: NOT RUN, a limitation; an import is re-imported from its sources,
    ``sources`` a folder where they are found by sha256, ``name_key`` its --hash-names key).
    ``sign_key``: an Ed25519 private key (PEM)
    whose signature of certificate.json is written to certificate.sig, only once the audits
    re-run on the folder's bytes (or ``fresh``, the audit the caller just ran) give the
    certificate audit.json gives, field for field (else SigningRefused, and nothing signed);
    without a key, a signature left by an earlier report is removed (it would not match).
    ``key``: the private key already loaded from ``sign_key`` (certify loads it once, before
    simulating). Returns the paths written (``signature`` among them when signed) and the
    certificate (its verdict). Raises ReportInputError, SigningKeyError, SigningRefused."""
    from audits.runfolder import SIGNATURE_FILE, RunFolder
    from cluster.flows.signing import key_id, load_private_key, sign
    from cluster.ray_runtime import Runtime
    from reports.render import load_inputs, write_report_files

    if key is None and sign_key is not None:
        key = load_private_key(sign_key)  # before writing
    root = storage.as_location(run)
    # the manifest the audit just read (certify), else read here
    # and the hashes it took of the bytes it audited, carried (each file hashed once after it
    # is written: simulate's own hash of the bytes it wrote aside)
    audit, manifest = load_inputs(root, manifest=None if fresh is None else fresh.manifest,
                                  audited=None if fresh is None else fresh.inputs)
    folder = RunFolder.open(root)
    sig = folder.location(SIGNATURE_FILE)
    # Ray started at most once: the audits re-run to bind a signature and the reproduction
    with Runtime(workers, address).command():
        if key is not None:
            _bind_audit(root, audit, manifest, fresh, workers=workers, address=address,
                        progress=progress)
        if storage.is_file(sig):  # a stale signature never stays beside a new certificate
            folder.delete(SIGNATURE_FILE)
        if reproduction is None:
            reproduction = reproduction_for(root, manifest, reproduce=reproduce,
                                            workers=workers, address=address,
                                            sources=sources, name_key=name_key)
    if key is not None:
        refuse_partial_signature(root, audit, manifest, reproduction)
    written = write_report_files(root, failing_histories(run, read_results(audit)), calibration,
                                 reproduction, inputs=(audit, manifest), lab=lab)
    if key is not None:  # the bytes just written, never read back
        folder.write(SIGNATURE_FILE, sign(key, written.certificate_bytes))
        written.paths["signature"] = sig
        written.paths["signed by key"] = key_id(key.public_key())  # printed with every signature
    return written


def refuse_partial_signature(run: Location, audit: dict[str, Any], manifest: dict[str, Any],
                             reproduction: dict[str, Any]) -> None:
    """A signature covers the whole certificate it names (issue 33): SigningRefused (nothing
    signed) when audit.json lacks an audit of the built-in set (``holdem audit --only``: what
    was not audited would go unsigned-for), or when an import's sources were not re-imported
    and compared in this command (its reproduction NOT REPRODUCIBLE or NOT RUN: nothing binds
    its log to them)."""
    from audits.registry import SPECS
    from audits.runspec import IMPORT_FORMATS
    from cluster.flows.reproduce import DIFFERS, REPRODUCED

    ran = {r.name for r in read_results(audit)}
    missing = [s.name for s in SPECS if s.name not in ran]
    if missing:
        raise SigningRefused(f"{storage.join(run, 'audit.json')}: {len(missing)} audit(s) of a "
                             f"certificate not run ({', '.join(missing)}): a signature covers "
                             "every audit; nothing signed (run `holdem audit` without --only)")
    if manifest.get("format") in IMPORT_FORMATS and reproduction.get("status") not in (
            REPRODUCED, DIFFERS):
        raise SigningRefused(f"{run}: an import is signed only when its sources are imported "
                             f"again and compared in this command ({reproduction.get('status')}"
                             f": {str(reproduction.get('text'))[:160]}); nothing signed (give "
                             "--sources DIR)")


@dataclass(frozen=True)
class CertifyResult:
    """The outcome of ``certify``: the run's manifest, its audit, its report and the verdict."""

    out: str  # the run folder (a path or a URI)
    manifest: Manifest | None  # what simulate wrote (None when a batch failed; an import's
    # manifest is the audit's, ``audit.manifest``)
    simulate_failure: str | None  # a batch that failed after its retries: the run is incomplete
    audit: AuditReport
    audit_path: Location  # audit.json
    report: WrittenReport  # report.html, certificate.json, summary.md (certificate.sig)

    @property
    def reproduction(self) -> dict[str, Any]:
        """The certificate's reproduction entry (status, text, the first batch that differs)."""
        return self.report.certificate.reproduction or {}

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
               progress: bool = True, reproduce: Any = None,
               players: PlayerList | None = None) -> tuple[AuditReport, Location]:
    """Every audit over the run folder, as ``holdem audit RUN`` runs them (``workers=0`` in this
    process, else on Ray: ``cluster.flows.audit.audit_run``); writes audit.json. Returns (the
    report,
    audit.json's location). ``key_memory`` in bytes. Raises AuditInputError, RayUnreachable,
    ``cluster.fanout.TaskFailed``. ``reproduce``: a ``cluster.flows.reproduce_values.ValuesJob``
    (the reproduction in the audit's read, ``audit_run``)."""
    from audits.runner import write_audit_json
    from cluster.flows.audit import audit_run

    result = audit_run(run, None, workers=workers, address=address, key_memory=key_memory,
                       progress=progress, reproduce=reproduce, players=players)
    return result, write_audit_json(result)


def certify(spec: RunSpec, out: Location, *, address: str | None = None,
            workers: int | None = None, key_memory: int | None = None,
            sign_key: str | Path | None = None,
            calibration: str | Path | None = DEFAULT_CALIBRATION,
            reproduce: bool = True, progress: bool = True,
            lab: dict[str, Any] | None = None, reproduce_mode: str = "values",
            players: PlayerList | None = None) -> CertifyResult:
    """``holdem certify``: simulate ``spec`` into ``out`` (resuming what is there; for a
    generator that cannot re-simulate its batches, os-chacha20, a folder that holds batch files
    is refused: ``refuse_unreproducible_batches``), audit it,
    re-simulate it and write the report (signed with ``sign_key`` when given); returns the
    verdict.

    Reproduction (with this ``spec``, never the folder's manifest): for the reproducible
    generator every batch the spec plans is simulated again and compared with its file; a batch
    that differs fails the certificate, named. ``reproduce_mode="values"`` (the default) does it
    in the audit's read of each file, with no second encode
    (``cluster.flows.reproduce_values``: every value, the footer, and the bytes bound by the
    sha256 this command's writer gave them); ``"bytes"`` after the audit, encoding each batch
    again and comparing bytes (``cluster.flows.reproduce.reproduce_spec``).
    ``reproduce=False`` re-simulates only the batch files the folder held before this call (a
    resumed folder's kept batches: never trusted, whoever made them), and the certificate lists
    the rest as not re-simulated (a limitation).

    ``workers=0`` runs everything in this process; otherwise on Ray (the cluster at ``address``,
    or an embedded local Ray). ``key_memory``: bytes for the collision tests' keys. An unusable
    ``sign_key`` is refused before any simulation. A batch that fails after its retries does not
    stop the flow: the incomplete run is audited and reported (the integrity audit fails it),
    and ``simulate_failure`` says which batch. Raises SigningKeyError, RunFolderError,
    RayUnreachable, OSError, AuditInputError, ReportInputError."""
    from audits.runfolder import RunFolder, batch_relpath
    from cluster.fanout import TaskFailed
    from cluster.flows.reproduce import NOT_REPRODUCIBLE, not_run, reproduce_spec
    from cluster.flows.reproduce_values import MODES, VALUES, ValuesJob, outcome
    from cluster.flows.simulate import run_simulate
    from cluster.ray_runtime import Runtime

    if reproduce_mode not in MODES:
        raise ValueError(f"reproduce_mode {reproduce_mode!r}: expected one of {MODES}")
    rt = Runtime(workers, address, key_memory)
    # an unusable key is refused before hours of simulation; loaded once, used to sign
    key = _load_key(sign_key)
    if not spec.reproducible:
        from cluster.flows.simulate import refuse_unreproducible_batches

        refuse_unreproducible_batches(out, spec.generator)
    kept: set[str] = set()
    if spec.reproducible and not reproduce:
        folder = RunFolder.open(out)
        kept = {rel for rel in (batch_relpath(s.label, b) for s, b in spec.plan())
                if storage.is_file(folder.location(rel))}
    manifest: Manifest | None = None
    failure: str | None = None
    with rt.command():  # Ray started (or joined) once: simulate, audit and reproduce share it
        try:
            manifest = run_simulate(spec, out, address=address, workers=workers,
                                    progress=progress)
        except TaskFailed as e:
            failure = str(e)
        job = None
        if spec.reproducible and reproduce_mode == VALUES:
            planned = {batch_relpath(s.label, b): (s.label, b) for s, b in spec.plan()}
            if not reproduce:  # the batches kept from an earlier run only
                planned = {rel: sb for rel, sb in planned.items() if rel in kept}
            job = ValuesJob(spec, str(out), planned,
                            dict(manifest.written) if manifest is not None else {},
                            manifest.schema_version if manifest is not None else None)
        audited, audit_path = audit_step(out, workers=workers, address=address,
                                         key_memory=key_memory, progress=progress,
                                         reproduce=job, players=players)
        if not spec.reproducible:
            reproduction = not_run(f"generator {spec.generator}: its decks came from the "
                                   "operating system's entropy", NOT_REPRODUCIBLE)
        else:
            rep = (outcome(spec, str(out), audited.extras, job, workers=workers,
                           address=address) if job is not None else
                   reproduce_spec(spec, str(out), workers=workers, address=address,
                                  only=None if reproduce else kept,
                                  version=manifest.schema_version if manifest is not None
                                  else None))
            reproduction = rep.record()
            if rep.ok and not reproduce:
                reproduction = not_run(
                    f"--no-reproduce: {len(kept)} batch file(s) kept from an earlier run were "
                    f"re-simulated and matched byte for byte; the other "
                    f"{rep.planned - len(kept)} were made by this certify and not re-simulated")
        written = report(out, calibration, sign_key=sign_key, reproduction=reproduction,
                         fresh=audited, key=key, lab=lab)
    return CertifyResult(os.fspath(out), manifest, failure, audited, audit_path, written)


def _load_key(sign_key: str | Path | None) -> Any:
    """The private key of ``--sign-key`` (None without one), loaded once per command."""
    if sign_key is None:
        return None
    from cluster.flows.signing import load_private_key

    return load_private_key(sign_key)


def certify_import(paths: list[str], out: Location, *, rake: Any = None,
                   address: str | None = None, workers: int | None = None,
                   key_memory: int | None = None, sign_key: str | Path | None = None,
                   calibration: str | Path | None = DEFAULT_CALIBRATION,
                   progress: bool = True, name_key: bytes | None = None,
                   reproduce: bool = True, lab: dict[str, Any] | None = None,
                   game: Any = None, players: PlayerList | None = None,
                   venues: list[tuple[str, str]] | None = None,
                   formats: list[tuple[str, str]] | None = None,
                   ) -> tuple[Any, CertifyResult | None]:
    """``holdem certify --import PATH...``: import an operator's hand histories into ``out``
    (``cluster.flows.import_histories.import_phh``, ``rake`` its schedule or ``game`` its game
    file's schedule and stakes), audit them and write
    the report
    (signed with ``sign_key``). Returns (the import, the certify result; None when no hand was
    imported: nothing to audit). The reproduction: the sources imported again into a
    temporary folder and compared with the run's files (``import_reproduction``; this doubles
    the import's time; ``reproduce=False``: NOT RUN, a limitation). Raises as ``import_phh``,
    ``audit_step`` and ``report``."""
    from cluster.flows.import_histories import import_phh
    from cluster.ray_runtime import Runtime

    key = _load_key(sign_key)
    with Runtime(workers, address, key_memory).command():  # Ray started at most once
        imp = import_phh(paths, out, rake=rake, workers=workers, address=address,
                         progress=progress, name_key=name_key, game=game, venues=venues,
                         formats=formats)
        if not imp.imported:
            return imp, None
        audited, audit_path = audit_step(out, workers=workers, address=address,
                                         key_memory=key_memory, progress=progress,
                                         players=players)
        # the manifest the audit read (read once)
        reproduction = import_reproduction(out, audited.manifest or {}, reproduce=reproduce,
                                           workers=workers, address=address,
                                           name_key=name_key, named=tuple(paths))
        written = report(out, calibration, sign_key=sign_key, reproduction=reproduction,
                         fresh=audited, key=key, lab=lab)
    return imp, CertifyResult(os.fspath(out), None, None, audited, audit_path, written)
