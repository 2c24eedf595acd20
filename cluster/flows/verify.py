"""``holdem verify RUN [--public-key PUB]``: for someone who received a run folder and its
certificate, check that the certificate speaks for these bytes.

In order, the first failure named: (with ``--public-key``) ``certificate.sig`` is a valid
Ed25519 signature of certificate.json by that key; audit.json's sha256 is the one the
certificate records; the certificate is what ``holdem report`` builds from this audit.json and
manifest.json (every field but ``issued``: verdict, audits, hands, files, provenance, and the
limitations its ``reproduction`` entry implies); every audited file and the manifest still have
the sha256 the certificate lists, and the folder holds no other file but the run's products;
``tables/`` (``holdem export``), when present, holds exactly the parts its ``export.json``
lists, with their sha256, made from this manifest; and, for a run of the reproducible generator,
every batch the spec plans re-simulated gives the file's exact bytes (``cluster.flows.reproduce``;
``--no-reproduce`` skips it, ``--reproduce N`` samples N files); for an imported run, its run_id
is the digest of the sources the manifest lists, and those sources (at their recorded paths, or
found by sha256 under ``--sources DIR``), imported again, give its files (a source absent or
changed since: NOT REPRODUCIBLE, named, and the line says nothing binds the log to them).
Exit 0 when all hold, 1 naming the first mismatch, 2 on unusable input (no certificate,
unreadable JSON, a bad key file).

Without ``--public-key`` nothing is authenticated (anyone can write a consistent folder): the
line says so, and a folder that holds a ``certificate.sig`` exits 1 (a signature that is there
to be checked was not).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from audits import runfolder
from audits.integrity import check_inputs, folder_mismatch
from audits.result import ResultError, read_results
from audits.runfolder import (
    CERTIFICATE,
    REPORT_FILES,
    SIGNATURE_FILE,
    OldLayoutError,
    RunFolder,
    RunFolderError,
    storage,
)
from audits.runfolder.errors import InputError
from audits.runfolder.lock import leftovers
from audits.runner import AUDIT_FILE
from audits.runspec import IMPORT_FORMATS
from cluster.flows.reproduce import first_difference
from reports.certificate import CertifiedAudit
from reports.imports import load_import
from reports.inputs import ReportInputError, load_inputs
from reports.render import build_run_certificate

PAGES = (REPORT_FILES["summary"], REPORT_FILES["html"])  # the pages a certificate's documents bind


class VerifyInputError(InputError):
    """Unusable input (exit 2)."""


@dataclass
class Verdict:
    ok: bool
    message: str
    word: str = "MISMATCH"  # what a failing line starts with

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    @property
    def line(self) -> str:
        return self.message if self.ok else f"{self.word}: {self.message}"


def _certificate(run: storage.Location) -> tuple[bytes, dict[str, Any]]:
    path = storage.join(run, CERTIFICATE)
    try:
        if not storage.is_dir(run):
            raise VerifyInputError(f"{run}: no such run folder")
        if not storage.is_file(path):
            raise VerifyInputError(f"{path}: missing (run `holdem report` to issue one)")
        data = storage.read_bytes(path)
        cert = runfolder.parse_json(data)
    except (ValueError, UnicodeDecodeError) as e:
        if isinstance(e, VerifyInputError):
            raise
        raise VerifyInputError(f"{path}: not valid JSON ({e})") from None
    except OSError as e:
        raise VerifyInputError(f"{path}: cannot read it ({e})") from None
    run_part = cert.get("run") if isinstance(cert, dict) else None
    if (not isinstance(cert, dict) or cert.get("format") != "holdem-certificate"
            or not isinstance(run_part, dict)):
        raise VerifyInputError(f"{path}: not a holdem certificate (format "
                               "\"holdem-certificate\" with a 'run' object)")
    try:
        check_inputs({"files": run_part.get("files"),
                      "unaudited": run_part.get("unaudited_files"),
                      "manifest": ({"sha256": run_part["manifest_sha256"]}
                                   if run_part.get("manifest_sha256") else None)},
                     f"{path}: run")
    except ValueError as e:
        raise VerifyInputError(str(e)) from None
    return data, cert


def _signature(run: storage.Location, data: bytes, public_key: str) -> Verdict | str:
    """A failing Verdict, or the key id of the valid signature."""
    from cluster.flows.signing import key_id, load_public_key, signature_valid

    key = load_public_key(public_key)
    sig_path = storage.join(run, SIGNATURE_FILE)
    if not storage.is_file(sig_path):
        return Verdict(False, f"{sig_path}: missing: the certificate is not signed")
    if not signature_valid(key, data, storage.read_bytes(sig_path)):
        return Verdict(False, f"{storage.join(run, CERTIFICATE)}: the signature does not verify "
                              f"with {public_key} (key {key_id(key)}): the certificate was "
                              "altered, or signed by another key")
    return key_id(key)


def _reproduction_claim(cert: dict[str, Any]) -> dict[str, Any] | None | str:
    """The certificate's reproduction entry (None in one issued before it), or why it is not
    one (a string)."""
    from reports.render import REPRODUCTION_STATUSES

    rep = cert.get("reproduction")
    if rep is None:
        return None
    if not isinstance(rep, dict) or rep.get("status") not in REPRODUCTION_STATUSES or (
            not isinstance(rep.get("text"), str)):
        return (f"{CERTIFICATE}: field reproduction: expected an object with a status of "
                f"{', '.join(REPRODUCTION_STATUSES)} and a text")
    return rep


def reproducible(manifest: dict[str, Any]) -> bool:
    """A simulate run of the reproducible generator (its manifest says so)."""
    spec = manifest.get("spec")
    return (manifest.get("format") == "holdem-simulate-run" and isinstance(spec, dict)
            and spec.get("generator", "philox") == "philox")


def check_export(root: storage.Location, manifest_sha256: str | None,
                 files: list[dict[str, Any]], manifest: dict[str, Any] | None = None
                 ) -> str | None:
    """``tables/`` against its ``export.json`` (``cluster.flows.export``): every part it lists
    present
    with its sha256, no other file, made from this manifest and from files of the run, and each
    part made again from its batch file byte for byte. The first mismatch, or None (no tables/
    at all is fine)."""
    from cluster.flows.export import EXPORT_FILE, TABLES_DIR

    tables = storage.join(root, TABLES_DIR)
    if not storage.is_dir(tables):
        return None
    record_path = storage.join(tables, EXPORT_FILE)
    present = set(storage.list_files(tables))
    if EXPORT_FILE not in present:
        return (f"{record_path}: missing: {TABLES_DIR}/ holds a partial or foreign export "
                "(`holdem export` writes export.json last); export again or remove it")
    try:
        record = json.loads(storage.read_bytes(record_path))
    except (ValueError, UnicodeDecodeError, OSError) as e:
        return f"{record_path}: not valid JSON ({str(e).splitlines()[0]})"
    parts = record.get("parts") if isinstance(record, dict) else None
    if not isinstance(parts, list) or not all(
            isinstance(p, dict) and isinstance(p.get("path"), str)
            and isinstance(p.get("sha256"), str) for p in parts):
        return f"{record_path}: not an export record (expected parts with path and sha256)"
    made_from = (record.get("manifest") or {}).get("sha256") if isinstance(
        record.get("manifest"), dict) else None
    if made_from != manifest_sha256:
        return (f"{record_path}: made from a manifest.json of sha256 {str(made_from)[:16]}..., "
                f"not the {str(manifest_sha256)[:16]}... the certificate records: the tables "
                "are not this run's")
    run_files = {f["path"] for f in files}
    listed = {}
    for p in parts:
        listed[p["path"]] = p["sha256"]
        if p.get("source") is not None and p.get("source") not in run_files:
            return (f"{record_path}: part {p['path']} is made from {p.get('source')}, not a "
                    "file of the certificate")
    for rel in sorted(present - {EXPORT_FILE}):
        if rel not in listed:
            return f"{storage.join(tables, rel)}: not a part export.json lists"
    for rel, sha in sorted(listed.items()):
        path = storage.join(tables, rel)
        got = storage.file_sha256(path)[0] if rel in present else None
        if got != sha:
            return (f"{path}: {'missing' if got is None else 'edited'}: its sha256 is not the "
                    "one export.json records")
    from cluster.flows.export import ExportInputError, export_context

    try:
        context = export_context(manifest)
    except ExportInputError as e:
        return f"{record_path}: its parts cannot be made again ({e})"
    return _rederive(root, tables, record_path, parts, run_files, context)


def _rederive(root: storage.Location, tables: storage.Location, record_path: storage.Location,
              parts: list[dict[str, Any]], run_files: set[str],
              context: Any) -> str | None:
    """Every part export.json lists made again from its batch file (``cluster.flows.export``, in
    memory) and compared byte for byte: a part rewritten with export.json restamped is named."""
    import hashlib

    from cluster.flows.export import ExportInputError, encode_parts

    by_source: dict[str, dict[str, str]] = {}
    for p in parts:
        by_source.setdefault(str(p.get("source")), {})[p["path"]] = p["sha256"]
    missing = sorted(run_files - set(by_source))
    if missing:
        return f"{record_path}: lists no part made from {missing[0]}, a file of the run"
    for source, listed in sorted(by_source.items()):
        src = storage.join(root, source)
        try:
            name, _, encoded = encode_parts(str(root), str(src), storage.read_bytes(src),
                                            context)
        except ExportInputError as e:
            return f"{record_path}: its parts cannot be made again from {source} ({e})"
        made = {f"{t}/{name}": hashlib.sha256(data).hexdigest() for t, data, _ in encoded}
        for rel in sorted(set(made) | set(listed)):
            if made.get(rel) != listed.get(rel):
                return (f"{storage.join(tables, rel)}: not what `holdem export` makes of "
                        f"{source} (made again from the batch file, its bytes differ)")
    return None


def _reimport(root: str, manifest: dict[str, Any], claim: dict[str, Any] | None,
              reproduce: bool | int, sources: str | None, name_key: bytes | None,
              workers: int | None, address: str | None) -> Verdict | str:
    """An imported run against its sources: the run_id is the digest of the sources the
    manifest lists, and (unless ``reproduce`` is False) the sources, found at their recorded
    paths or by sha256 under ``sources``, re-imported give the run's files
    (``cluster.flows.reproduce.reproduce_import``). A failing Verdict, or what was found in
    words."""
    from cluster.flows.reproduce import (
        NotReproducible,
        ReproduceInputError,
        SourceChanged,
        reproduce_import,
        run_id_difference,
    )

    unbound = ("nothing binds the log to the source files the manifest lists (their paths "
               "and sha256 are its own statement): a log edited after the import, its "
               "digests and hashes restamped, verifies")
    why = run_id_difference(manifest)
    if why:
        return Verdict(False, f"{root.rstrip('/')}/{why}")
    if reproduce is False:
        return f"not re-imported (--no-reproduce): {unbound}"
    try:
        rep = reproduce_import(root, sources=sources, name_key=name_key, workers=workers,
                               address=address)
    except SourceChanged as e:  # issue 33: a listed source present with another sha256
        return Verdict(False, f"{e}: the log is not bound to the sources the certificate lists")
    except NotReproducible as e:
        return f"NOT REPRODUCIBLE: {e}: not re-imported, so {unbound}"
    except ReproduceInputError as e:
        return Verdict(False, f"{e}: the run cannot be re-imported from its sources")
    if rep.ok:
        return rep.message
    said = claim is not None and claim["status"] == "DIFFERS" and (
        claim.get("path"), claim.get("hand_id")) == (rep.path, rep.hand_id)
    if not said:
        return Verdict(False, f"{root.rstrip('/')}/{rep.message}")
    return f"re-imported, {rep.message}, as the FAIL certificate says"


def _reaudit(root: storage.Location, audit: dict[str, Any], manifest: dict[str, Any],
             workers: int | None, address: str | None) -> Verdict | str:
    """``--reaudit`` (issue 33): the audits audit.json lists re-run here, on this machine's
    compiled code, over the folder's bytes; the certificate they give must be the one
    audit.json gives, field for field (``cluster.flows.certify.binding_difference``): a
    certificate made on a machine whose audits were subverted (a planted compiled-code cache)
    does not verify on a clean one. What it cost, in words."""
    import time

    from audits.players import recorded_list
    from cluster.flows.audit import audit_run
    from cluster.flows.certify import binding_difference
    from cluster.flows.reproduce import effective_workers

    t0 = time.perf_counter()
    names = [r.name for r in read_results(audit)]
    files = (audit.get("inputs") or {}).get("files") or []
    fresh = audit_run(str(root), names, workers=effective_workers(len(files), workers, address),
                      address=address, progress=False, players=recorded_list(audit))
    again = json.loads(json.dumps(fresh.to_dict(), default=str))
    where = binding_difference(audit, again, manifest)
    if where:
        return Verdict(False, f"{storage.join(root, AUDIT_FILE)}: the audits re-run here on "
                              f"these bytes give another certificate: field {where}")
    return (f"the {len(names)} audits re-run here give this certificate "
            f"({time.perf_counter() - t0:.1f} s)")


def verify_run(run: str | os.PathLike[str], public_key: str | None = None, *,
               reproduce: bool | int = True, workers: int | None = None,
               address: str | None = None, sources: str | None = None,
               name_key: bytes | None = None, reaudit: bool = False) -> Verdict:
    """Check a received run folder against its certificate (see the module docstring).
    ``reproduce``: True re-simulates every batch of a reproducible run, N a sample of N batch
    files, False none; an imported run is re-imported from its sources instead (``sources``:
    a folder where they are found by sha256; ``name_key``: the --hash-names key). Raises
    VerifyInputError (or signing.SigningKeyError) on unusable input."""
    root = storage.as_location(os.fspath(run))
    other = _other_kind(root, public_key, reproduce)  # a shuffle's or an rng test's certificate
    if other is not None:
        return other
    old_layout = False
    try:
        RunFolder.open(root).check_layout()
    except OldLayoutError:
        old_layout = True  # a certificate issued before the log/ layout: its paths are checked
    except RunFolderError as e:
        raise VerifyInputError(str(e)) from None
    data, cert = _certificate(root)
    signer: str | None = None
    if public_key is not None:
        checked = _signature(root, data, public_key)
        if isinstance(checked, Verdict):
            return checked
        signer = checked
    left = leftovers(root)  # issue 33: a certified folder holds no half-written file
    if left:
        return Verdict(False, f"{storage.join(root, left[0])}: a leftover of an interrupted "
                              f"write ({len(left)} in the folder): a certified folder holds "
                              "the run's files and products only; remove it or rerun the "
                              "command that was interrupted")
    audit_path = storage.join(root, AUDIT_FILE)
    try:
        if not storage.is_file(audit_path):
            return Verdict(False, f"{audit_path}: missing (the certificate records sha256 "
                                  f"{str(cert['run'].get('audit_sha256'))[:16]}...)")
        sha = storage.file_sha256(audit_path)[0]
        if sha != cert["run"].get("audit_sha256"):
            return Verdict(False, f"{audit_path}: sha256 {sha[:16]}... is not the "
                                  f"{str(cert['run'].get('audit_sha256'))[:16]}... the "
                                  "certificate records")
        audit, manifest = load_inputs(root, check_folder=False)
    except ReportInputError as e:
        raise VerifyInputError(str(e)) from None
    claim = _reproduction_claim(cert)
    if isinstance(claim, str):
        return Verdict(False, claim)
    imported = manifest.get("format") in IMPORT_FORMATS  # re-imported from its sources
    if claim is not None and not imported and (
            claim["status"] == "NOT REPRODUCIBLE") == reproducible(manifest):
        return Verdict(False, f"{storage.join(root, CERTIFICATE)}: field reproduction.status "
                              f"{claim['status']} disagrees with manifest.json (a run "
                              f"{'of' if reproducible(manifest) else 'not of'} the reproducible "
                              "generator)")
    try:
        record = load_import(root)
    except ReportInputError as e:
        raise VerifyInputError(str(e)) from None
    expected = build_run_certificate(audit, manifest, sha, reproduction=claim,
                                     import_record=record)
    expected["issued"] = cert.get("issued")
    expected["documents"] = cert.get("documents")  # checked against the files below
    # the calibration evidence beside each audit comes from `holdem calibrate`'s file, not from
    # this run: informational, carried over (a signature covers it like every other field)
    for mine, theirs in zip(expected["audits"], cert.get("audits") or [], strict=False):
        if not isinstance(theirs, dict) or "calibration" not in theirs:
            continue
        try:
            same = CertifiedAudit.from_dict(theirs).result.name == mine["name"]
        except ResultError:
            same = False  # not an entry the certificate writes: the comparison names it
        if same:
            mine["calibration"] = theirs["calibration"]
    if claim is None and "reproduction" not in cert:  # a certificate issued before it
        del expected["reproduction"]
    if isinstance(cert.get("lab"), dict):  # the laboratory's statements (--lab): signed, not
        expected["lab"] = cert["lab"]  # derived from audit.json
    if "claims_not_checked" not in cert:  # a certificate issued before it
        del expected["claims_not_checked"]
    from reports.render import legacy_verdict_text

    if cert.get("verdict_text") == legacy_verdict_text(expected):  # issued before issue 36
        expected["verdict_text"] = cert["verdict_text"]
    where = first_difference(cert, expected)
    if where:
        return Verdict(False, f"{storage.join(root, CERTIFICATE)}: field {where} disagrees with "
                              f"what {AUDIT_FILE} and manifest.json give")
    files, msha = check_inputs({"files": cert["run"]["files"],
                                "unaudited": cert["run"].get("unaudited_files"),
                                "manifest": {"sha256": cert["run"].get("manifest_sha256")}
                                if cert["run"].get("manifest_sha256") else None}, "run")
    why = folder_mismatch(root, files, msha, CERTIFICATE, old_layout_ok=True)
    if why:
        return Verdict(False, why)
    docs = cert.get("documents")
    if not isinstance(docs, dict) or not docs:
        return Verdict(False, f"{storage.join(root, CERTIFICATE)}: records no sha256 of the "
                              "report pages (summary.md, report.html)")
    if sorted(docs) != sorted(PAGES):  # names, never paths: nothing outside the run is read
        odd = sorted(set(docs) - set(PAGES)) or sorted(set(PAGES) - set(docs))
        return Verdict(False, f"{storage.join(root, CERTIFICATE)}: field documents names "
                              f"{json.dumps(odd[0])[:80]}: expected exactly the report pages "
                              f"{', '.join(PAGES)}")
    for name, sha in docs.items():
        path = storage.join(root, name)
        try:
            got = storage.file_sha256(path)[0] if storage.is_file(path) else None
        except storage.StorageError as e:
            raise VerifyInputError(str(e)) from None
        if got != sha:
            return Verdict(False, f"{path}: {'missing' if got is None else 'edited'}: its "
                                  "sha256 is not the one the certificate records")
    why = _failing_list_mismatch(root, cert)
    if why:
        return Verdict(False, why)
    reaudited = None
    if reaudit:
        again = _reaudit(root, audit, manifest, workers, address)
        if isinstance(again, Verdict):
            return again
        reaudited = again
    try:
        tables_why = check_export(root, msha, files, manifest)
    except storage.StorageError as e:
        raise VerifyInputError(str(e)) from None
    if tables_why:
        return Verdict(False, tables_why)
    bound = ("manifest.json and audit.json" if msha is not None
             else "audit.json (the run has no manifest.json: its files are not bound to what "
                  "the run declared)")
    # the verdict in the certificate's own sentence only ("PASS, LIMITED: ..."), never a bare
    # word that would disagree with it (issue 36)
    parts = [f"VERIFIED: the certificate of {cert['run'].get('hands', 0):,} hands (verdict: "
             f"{cert.get('verdict_text') or cert.get('verdict')}); its "
             f"{len(cert['run']['files'])} files, {bound} match their sha256"]
    if reaudited:
        parts.append(reaudited)
    if any(storage.is_dir(storage.join(root, d.rstrip("/"))) for d in runfolder.PRODUCT_FOLDERS):
        parts.append("tables/ (holdem export) matches its export.json and is what the export "
                     "makes of these files")
    if reproducible(manifest):
        if reproduce is False:
            parts.append("not re-simulated (--no-reproduce)")
        elif old_layout:
            parts.append("not re-simulated (a folder of the old layout: `holdem migrate` it, "
                         "then verify re-simulates it)")
        else:
            from cluster.flows.reproduce import ReproduceInputError, reproduce_run

            try:
                rep = reproduce_run(str(root), None if reproduce is True else int(reproduce),
                                    workers=workers, address=address)
            except ReproduceInputError as e:
                return Verdict(False, f"{e}: the run cannot be re-simulated from its spec")
            if not rep.ok:
                said = claim is not None and claim["status"] == "DIFFERS" and (
                    claim.get("path"), claim.get("hand_id")) == (rep.path, rep.hand_id)
                if not said:  # a certificate that does not say what re-simulating finds
                    return Verdict(False, rep.message)
                parts.append(f"re-simulated, {rep.message}, as the FAIL certificate says")
            else:
                parts.append(rep.message)
    elif imported:
        found = _reimport(str(root), manifest, claim, reproduce, sources, name_key, workers,
                          address)
        if isinstance(found, Verdict):
            return found
        parts.append(found)
    else:
        parts.append("not reproducible (" + ("another manifest" if
                     manifest.get("format") != "holdem-simulate-run" else
                     "os-chacha20 decks") + "): not re-simulated")
    if signer is not None:
        parts.append(f"signed by key {signer} ({public_key}): signature valid")
        return Verdict(True, "; ".join(parts))
    if storage.is_file(storage.join(root, SIGNATURE_FILE)):
        rest = "; ".join(parts).removeprefix("VERIFIED: ")
        return Verdict(False, f"{storage.join(root, SIGNATURE_FILE)} is present but was not "
                              "checked (no --public-key): nothing was authenticated; give the "
                              f"signer's public key. Unauthenticated, the rest holds: {rest}",
                       word="NOT AUTHENTICATED")
    parts.append("nothing was authenticated: the certificate is unsigned, so anyone could have "
                 "written this folder (only --public-key with a signed certificate "
                 "authenticates it)")
    return Verdict(True, "; ".join(parts))


def _failing_list_mismatch(root: Any, cert: dict[str, Any]) -> str | None:
    """failing_hands.csv (every failing hand, ``holdem audit``) against the sha256 the
    certificate records: missing, edited, or present beside a certificate that lists none."""
    from audits.runfolder import FAILING_FILE

    rec = cert.get("failing_hands")
    path = storage.join(root, FAILING_FILE)
    try:
        got = storage.file_sha256(path)[0] if storage.is_file(path) else None
    except storage.StorageError as e:
        raise VerifyInputError(str(e)) from None
    want = rec.get("sha256") if isinstance(rec, dict) else None
    if got == want:
        return None
    if want is None:
        return f"{path}: present, but the certificate lists no failing hand"
    return (f"{path}: {'missing' if got is None else 'edited'}: its sha256 is not the one the "
            "certificate records")


def _other_kind(root: storage.Location, public_key: str | None,
                reproduce: bool | int) -> Verdict | None:
    """The verdict of a shuffle certificate or an rng-test certificate
    (``cluster.flows.verify_decks``); None for a run's certificate (or none at all)."""
    from cluster.flows import verify_decks as vd
    from cluster.flows.rngtest import RNG_CERTIFICATE

    path = storage.join(root, CERTIFICATE)
    try:
        if storage.is_file(path):
            data = storage.read_bytes(path)
            try:
                cert = runfolder.parse_json(data)
            except (ValueError, UnicodeDecodeError, RecursionError):
                return None  # _certificate says it in one line
            if not isinstance(cert, dict) or cert.get("format") != vd.SHUFFLE_FORMAT:
                return None
            ok, line, word = vd.verify_shuffle(root, data, cert, public_key, reproduce)
        elif storage.is_file(storage.join(root, RNG_CERTIFICATE)):
            ok, line, word = vd.verify_rng(root, public_key)
        else:
            return None
    except storage.StorageError as e:
        raise VerifyInputError(str(e)) from None
    return Verdict(ok, line) if ok else Verdict(False, line, word=word)
