"""``holdem verify RUN [--public-key PUB]``: for someone who received a run folder and its
certificate, check that the certificate speaks for these bytes.

In order, the first failure named: (with ``--public-key``) ``certificate.sig`` is a valid
Ed25519 signature of certificate.json by that key; audit.json's sha256 is the one the
certificate records; the certificate is what ``holdem report`` builds from this audit.json and
manifest.json (every field but ``issued``: verdict, audits, hands, files, provenance); every
audited file and the manifest still have the sha256 the certificate lists, and the folder holds
no other file but the run's products. Exit 0 when all hold, 1 naming the first mismatch, 2 on
unusable input (no certificate, unreadable JSON, a bad key file).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from audits import runfolder, storage
from audits.integrity import check_inputs, folder_mismatch
from audits.runfolder import OldLayoutError, RunFolder, RunFolderError
from audits.runner import AUDIT_FILE
from reports import REPORT_FILES, SIGNATURE_FILE
from reports.inputs import ReportInputError, load_inputs
from reports.render import build_certificate

CERTIFICATE = REPORT_FILES["certificate"]


class VerifyInputError(ValueError):
    """Unusable input (exit 2)."""


@dataclass
class Verdict:
    ok: bool
    message: str

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """The first path (``run.files[3].sha256``) where two JSON values differ, or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}".lstrip(".")
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d.lstrip(".")
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None if len(a) == len(b) else f"{path} (length {len(a)} vs {len(b)})"
    same = json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    return None if same else path.lstrip(".")


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


def _signature(run: storage.Location, data: bytes, public_key: str) -> Verdict | None:
    from cluster.signing import key_id, load_public_key, signature_valid

    key = load_public_key(public_key)
    sig_path = storage.join(run, SIGNATURE_FILE)
    if not storage.is_file(sig_path):
        return Verdict(False, f"{sig_path}: missing: the certificate is not signed")
    if not signature_valid(key, data, storage.read_bytes(sig_path)):
        return Verdict(False, f"{storage.join(run, CERTIFICATE)}: the signature does not verify "
                              f"with {public_key} (key {key_id(key)}): the certificate was "
                              "altered, or signed by another key")
    return None


def verify_run(run: str | os.PathLike[str], public_key: str | None = None) -> Verdict:
    """Check a received run folder against its certificate (see the module docstring).
    Raises VerifyInputError (or signing.SigningKeyError) on unusable input."""
    root = storage.as_location(os.fspath(run))
    try:
        RunFolder.open(root).check_layout()
    except OldLayoutError:
        pass  # a certificate issued before the log/ layout: the paths it records are checked
    except RunFolderError as e:
        raise VerifyInputError(str(e)) from None
    data, cert = _certificate(root)
    if public_key is not None:
        bad = _signature(root, data, public_key)
        if bad:
            return bad
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
    expected = build_certificate(audit, manifest, sha)
    expected["issued"] = cert.get("issued")
    expected["documents"] = cert.get("documents")  # checked against the files below
    # the calibration evidence beside each audit comes from `holdem calibrate`'s file, not from
    # this run: informational, carried over (a signature covers it like every other field)
    for mine, theirs in zip(expected["audits"], cert.get("audits") or [], strict=False):
        if isinstance(theirs, dict) and theirs.get("name") == mine["name"] and (
                "calibration" in theirs):
            mine["calibration"] = theirs["calibration"]
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
    for name, sha in docs.items():
        path = storage.join(root, name)
        try:
            got = storage.file_sha256(path)[0] if storage.is_file(path) else None
        except storage.StorageError as e:
            raise VerifyInputError(str(e)) from None
        if got != sha:
            return Verdict(False, f"{path}: {'missing' if got is None else 'edited'}: its "
                                  "sha256 is not the one the certificate records")
    signed = ("signature valid" if public_key is not None
              else "signature not checked (no --public-key)")
    bound = ("manifest.json and audit.json" if msha is not None
             else "audit.json (the run has no manifest.json: its files are not bound to what "
                  "the run declared)")
    extra = ""
    if any(storage.is_dir(storage.join(root, d.rstrip("/"))) for d in runfolder.PRODUCT_FOLDERS):
        extra = "; tables/ (holdem export) is derived data the certificate does not cover"
    return Verdict(True, f"VERIFIED: a {cert.get('verdict')} certificate of "
                         f"{cert['run'].get('hands', 0):,} hands; its {len(cert['run']['files'])}"
                         f" files, {bound} match their sha256; {signed}{extra}")
