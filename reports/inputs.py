"""What ``holdem report`` and ``holdem verify`` read from a run folder: ``audit.json`` (checked
field by field, so that a malformed file is one line naming the field, never a traceback),
``manifest.json``, and whether the folder still holds the bytes audit.json records."""

from __future__ import annotations

import json
from typing import Any

from audits import runfolder
from audits.integrity import check_inputs, folder_mismatch
from audits.result import AuditResult, ResultError
from audits.runfolder import RunFolder, RunFolderError, storage
from audits.runfolder.errors import InputError
from audits.runfolder.storage import Location
from audits.runner import AUDIT_FILE


class ReportInputError(InputError):
    """The run folder lacks what a report needs (named in the message)."""


def _check_result(r: Any, where: str) -> AuditResult:
    """One result read (``AuditResult.from_dict``) and its details' types checked."""
    try:
        res = AuditResult.from_dict(r, where)
    except ResultError as e:
        raise ReportInputError(str(e)) from None
    _check_details(res.details, f"{where}.details")
    for i, v in enumerate(res.details.get("violations") or []):
        if not isinstance(v, dict) or "reason" not in v:
            raise ReportInputError(f"{where}.details.violations[{i}]: expected an object with "
                                   "a 'reason'")
    if isinstance(res.details.get("tests"), list):
        for i, t in enumerate(res.details["tests"]):
            _check_result(t, f"{where}.details.tests[{i}]")
    return res


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


# the details the certificate and its pages read and format (a count with ``:,``, a number
# with ``int()``): their types, checked wherever they occur (missing: fine)
_DETAIL_TYPES: dict[str, tuple[str, Any]] = {
    "violations": ("a list", lambda v: isinstance(v, list)),
    "tests": ("a list", lambda v: isinstance(v, list)),
    "hands_per_structure": ("an object of hand counts",
                            lambda v: isinstance(v, dict) and all(map(_is_int, v.values()))),
    "totals": ("an object of numbers",
               lambda v: isinstance(v, dict) and all(map(_is_number, v.values()))),
    "note": ("a string or null", lambda v: v is None or isinstance(v, str)),
    "holm_adjusted_p": ("a number or null", lambda v: v is None or _is_number(v)),
    "power": ("an object with a 'sentence' string, or null",
              lambda v: v is None or (isinstance(v, dict) and isinstance(v.get("sentence"),
                                                                          str))),
    "per_structure": ("per structure, its hands and per rule path {count, minimum, ok}",
                      lambda v: isinstance(v, dict) and all(map(_coverage_ok, v.values()))),
}


def _coverage_ok(per: Any) -> bool:
    """One structure's coverage counts as the coverage audit writes them."""
    return isinstance(per, dict) and all(
        _is_int(x) if k == "hands" else isinstance(x, dict) and _is_int(x.get("count"))
        and _is_int(x.get("minimum")) and isinstance(x.get("ok"), bool)
        for k, x in per.items())


def _check_details(details: dict[str, Any], where: str) -> None:
    for key, (expected, ok) in _DETAIL_TYPES.items():
        v = details.get(key)
        if key not in details or ok(v):
            continue
        if isinstance(v, dict) and key in ("hands_per_structure", "totals"):
            k = next(k for k, x in v.items() if not (_is_int(x) if key == "hands_per_structure"
                                                    else _is_number(x)))
            key, v = f"{key}.{k}", v[k]
        raise ReportInputError(f"{where}.{key}: expected {expected}, found "
                               f"{json.dumps(v)[:40]}")


# the exact audits check every hand of the run
EXACT_OVER_ALL = ("integrity", "deal", "chips", "rotation", "payouts", "betting")


def check_audit(audit: Any, path: Location) -> dict[str, Any]:
    """audit.json checked: the fields the report and the certificate read, with their types."""
    if not isinstance(audit, dict) or audit.get("format") != "holdem-audit":
        raise ReportInputError(f"{path}: not an audit.json of holdem audit (expected an object "
                               "with format \"holdem-audit\")")
    for key, types in (("hands", (int,)), ("seconds", (int, float)), ("results", (list,))):
        if not isinstance(audit.get(key), types) or isinstance(audit.get(key), bool):
            raise ReportInputError(f"{path}: field {key!r}: expected "
                                   f"{' or '.join(t.__name__ for t in types)}, found "
                                   f"{json.dumps(audit.get(key))[:40]}")
    if not audit["results"]:
        raise ReportInputError(f"{path}: field 'results' is empty")
    not_run = audit.get("not_run", [])
    if not isinstance(not_run, list) or not all(isinstance(x, str) for x in not_run):
        raise ReportInputError(f"{path}: field 'not_run': expected a list of audit names, "
                               f"found {json.dumps(not_run)[:40]}")
    results = [_check_result(r, f"{path}: results[{i}]") for i, r in enumerate(audit["results"])]
    try:
        check_inputs(audit.get("inputs"), f"{path}: inputs")
    except ValueError as e:
        raise ReportInputError(str(e)) from None
    # the counts must agree with the files it records (a hand total claimed beside other files)
    rows = [f.get("rows") for f in audit["inputs"]["files"]]
    if all(isinstance(r, int) for r in rows) and sum(rows) != audit["hands"]:
        raise ReportInputError(f"{path}: field 'hands' is {audit['hands']:,} but the files it "
                               f"records as audited hold {sum(rows):,} rows")
    for i, res in enumerate(results):
        if res.name in EXACT_OVER_ALL and res.applicable and res.hands_checked != audit["hands"]:
            raise ReportInputError(f"{path}: results[{i}] ({res.name}) checked "
                                   f"{res.hands_checked:,} hands of {audit['hands']:,}")
        if res.passed != (res.failures == 0) and res.top_level and res.p_value is None:
            raise ReportInputError(f"{path}: results[{i}] ({res.name}) says passed="
                                   f"{res.passed} with {res.failures:,} failures")
    return audit


def _json(path: Location) -> Any:
    try:
        return runfolder.parse_json(storage.read_bytes(path))
    except (ValueError, UnicodeDecodeError) as e:
        raise ReportInputError(f"{path}: not valid JSON ({e})") from None
    except OSError as e:
        raise ReportInputError(f"{path}: cannot read it ({e})") from None


def load_inputs(run: Location, check_folder: bool = True,
                manifest: dict[str, Any] | None = None,
                audited: dict[str, Any] | None = None
                ) -> tuple[dict[str, Any], dict[str, Any]]:
    """(audit.json, manifest.json) of a run folder, a local path or a URI. ``check_folder``:
    refuse (ReportInputError) when the folder no longer holds the bytes audit.json records, or
    is of the old layout (without it, as ``holdem verify`` reads a certificate issued before the
    ``log/`` layout, the paths audit.json records are taken as they are). ``manifest``: the
    manifest the caller read already (certify: the audit's), not read again. ``audited``: the
    inputs record (files and manifest with their sha256) of the audit the caller has just run
    on the folder in this command (certify): when audit.json records exactly these, the hashes
    the audit took of the bytes it read are carried and the files are not hashed again (a
    later change is still caught by ``holdem report`` and ``holdem verify``, which re-hash)."""
    run = storage.as_location(run)
    audit_path = storage.join(run, AUDIT_FILE)
    try:
        folder = RunFolder.open(run)
        if check_folder:
            folder.check_layout()
        if not storage.is_file(audit_path):
            raise ReportInputError(f"{audit_path}: missing; run `holdem audit {run}` first")
        audit = check_audit(_json(audit_path), audit_path)
        if manifest is None:
            manifest = folder.read_manifest(any_layout=not check_folder) or {}
        carried = audited is not None and _same_json(audited, audit["inputs"])
        if check_folder and not carried:
            files, msha = check_inputs(audit["inputs"], "inputs")
            why = folder_mismatch(run, files, msha, AUDIT_FILE)
            if why:
                raise ReportInputError(f"{run}: the folder no longer matches {AUDIT_FILE}: {why};"
                                       f" run `holdem audit {run}` again")
    except (storage.StorageError, RunFolderError) as e:
        raise ReportInputError(str(e)) from None
    return audit, manifest


def _same_json(a: Any, b: Any) -> bool:
    """The two values written as JSON are the same (audit.json is the record's JSON)."""
    return bool(json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True,
                                                                         default=str))
