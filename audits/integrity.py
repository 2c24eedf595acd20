"""The ``integrity`` audit: the bytes audited bound to what the run's ``manifest.json`` declares.

Checked, each failure naming the file (or the hand ids):

- every batch file's sha256, size and row count against its manifest record; a file the
  manifest lists that the folder lacks; a file in the folder the manifest does not list (only
  the run's own products, ``PRODUCTS`` and ``PRODUCT_FOLDERS``, and the temporary names of an
  interrupted atomic write are not files of the run);
- the hand totals the manifest declares: per structure ``spec.hands`` (a ``holdem simulate``
  run, whose ``fingerprint`` must also be the digest of its ``spec``), ``hands`` of an imported
  PHH run, and ``totals``;
- hand ids: unique within a structure; for a simulated run, each structure's ids one
  contiguous stream (a gap names the missing ids);
- each file exact (``audits.exactfile``: the documented schema, the writer's metadata keys only,
  footer statistics that are the data's, documented label values), listed first.

The map reduces each chunk's hand ids to sorted ranges of consecutive ids (one range for an
intact batch); the reduce merges them per structure. The file facts (sha256 and size, hashed in
one streaming pass by the runner's per-file map) and the folder listing reach the reduce as one
``Binding``. A run without a manifest cannot be bound: the audit is then not applicable (and says
so), unless it finds duplicate hand ids.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from audits import exactfile, runfolder, runspec
from audits.io import Batch
from audits.result import MAX_EXAMPLES, MAX_FAILING, AuditResult
from audits.runfolder import storage
from audits.runfolder.storage import Location
from audits.spec import AuditSpec

MANIFEST = runfolder.MANIFEST
PRODUCTS = runfolder.PRODUCTS  # what holdem writes into a run folder besides its log
is_product = runfolder.is_product


@dataclass
class IdRanges:
    """One chunk's hand ids per structure label, as (m, 2) inclusive ranges of consecutive ids
    (a duplicate id starts a new range, which the reduce sees as an overlap)."""

    hands: int
    ranges: dict[str, np.ndarray]
    misfiled: list[tuple[int, str]] = field(default_factory=list)  # (first hand id, why)
    exact: list[str] = field(default_factory=list)  # the file is not exact (audits.exactfile)


def id_ranges(ids: np.ndarray) -> np.ndarray:
    """Ids as (m, 2) inclusive [lo, hi] ranges of consecutive values, in increasing order."""
    ids = np.asarray(ids, np.int64)
    if len(ids) == 0:
        return np.zeros((0, 2), np.int64)
    step = np.diff(ids)
    if not (step > 0).all():  # a log is written in id order: sort only when it is not
        ids = np.sort(ids)
        step = np.diff(ids)
    breaks = np.flatnonzero(step != 1) + 1
    starts = np.r_[0, breaks]
    ends = np.r_[breaks, len(ids)] - 1
    return np.stack([ids[starts], ids[ends]], axis=1)


def integrity_map(b: Batch) -> IdRanges:
    codes, labels = b.cols["structure"], b.cols["structure_values"]
    hid = b.cols["hand_id"]
    folder = runfolder.batch_label(b.path)
    present = [str(s) for c, s in enumerate(labels) if (codes == c).any()]
    wrong = [s for s in present if folder is not None and s != folder]
    if len(labels) == 1:  # one structure a file (as written): no mask
        out = IdRanges(b.n, {str(labels[0]): id_ranges(hid)})
    else:
        out = IdRanges(b.n, {str(s): id_ranges(hid[codes == c]) for c, s in enumerate(labels)})
    if wrong:  # the folder names the structure its hands are of (a reader may group by it)
        first = int(hid[codes == list(map(str, labels)).index(wrong[0])][0])
        out.misfiled.append((first, f"{b.path}: holds {wrong[0]} hands in the folder of "
                                    f"{folder}"))
    out.exact = exactfile.problems(b)
    return out


@dataclass
class FileFacts:
    """One audited file: its path in the run folder, sha256 and size of its bytes, rows read."""

    path: str
    sha256: str
    bytes: int
    rows: int

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "sha256": self.sha256, "bytes": self.bytes, "rows": self.rows}


@dataclass
class Binding:
    """What the reduce binds the hands to: the manifest (None when absent), the relative paths
    of every file in the folder, the files the manifest lists but the folder lacks, and the
    audited files' facts."""

    manifest: dict[str, Any] | None
    listing: list[str]
    missing: list[str]
    files: list[FileFacts] = field(default_factory=list)


def spec_fingerprint(spec: dict[str, Any]) -> str:
    """The fingerprint of a simulate spec, as the manifest records it (``RunSpec.fingerprint``:
    the first 16 hex digits of the sha256 of its sorted-key JSON)."""
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]


def _merge(ranges: list[np.ndarray]
           ) -> tuple[list[tuple[int, int]], list[tuple[int, int]], int, int]:
    """(the first duplicated id ranges, the first gaps, how many of each) of a structure's
    ranges."""
    r = np.concatenate(ranges) if ranges else np.zeros((0, 2), np.int64)
    if len(r) == 0:
        return [], [], 0, 0
    r = r[np.lexsort((r[:, 1], r[:, 0]))]
    lo, hi = r[:, 0], r[:, 1]
    reach = np.maximum.accumulate(hi)  # the highest id of the ranges up to each one
    prev = reach[:-1]
    dup_i = np.flatnonzero(lo[1:] <= prev) + 1
    gap_i = np.flatnonzero(lo[1:] > prev + 1) + 1
    dups = [(int(lo[i]), int(min(hi[i], reach[i - 1]))) for i in dup_i[:MAX_EXAMPLES]]
    gaps = [(int(reach[i - 1]) + 1, int(lo[i]) - 1) for i in gap_i[:MAX_EXAMPLES]]
    return dups, gaps, len(dup_i), len(gap_i)


Problem = tuple[int | None, str, str]  # (hand id or None, kind, one-line reason)


def _n(x: Any) -> str:
    return f"{x:,}" if isinstance(x, int) and not isinstance(x, bool) else repr(x)


def _ids(a: int, b: int) -> str:
    return f"hand id {a}" if a == b else f"hand ids {a}..{b} ({b - a + 1:,})"


def _check_files(m: dict[str, Any], bind: Binding) -> list[Problem]:
    out: list[Problem] = []

    def bad(kind: str, text: str) -> None:
        out.append((None, kind, text))

    records = {f["path"]: f for f in m.get("files") or [] if isinstance(f, dict)}
    for rel in bind.missing:
        bad("missing file", f"{rel}: listed in manifest.json but missing")
    for f in bind.files:
        rec = records.get(f.path)
        if rec is None:
            bad("unlisted file", f"{f.path}: audited but not listed in manifest.json")
            continue
        if rec.get("sha256") != f.sha256:
            bad("sha256", f"{f.path}: sha256 {f.sha256[:16]}... differs from the manifest's "
                          f"{str(rec.get('sha256'))[:16]}...")
        elif rec.get("bytes") not in (None, f.bytes):
            bad("bytes", f"{f.path}: {f.bytes:,} bytes, the manifest says {_n(rec['bytes'])}")
        for key in ("rows", "hands"):
            if key in rec and rec[key] != f.rows:
                bad("rows", f"{f.path}: {f.rows:,} rows, the manifest's {key} says {_n(rec[key])}")
    for rel in bind.listing:
        if rel not in records and not is_product(rel):
            bad(runfolder.UNLISTED, runfolder.unlisted_reason(rel))
    return out


def _check_totals(m: dict[str, Any], per_structure: dict[str, int], hands: int
                  ) -> list[Problem]:
    out: list[Problem] = []

    def bad(kind: str, text: str) -> None:
        out.append((None, kind, text))

    spec = m.get("spec")
    if isinstance(spec, dict):
        if m.get("fingerprint") != spec_fingerprint(spec):
            bad("fingerprint", f"{MANIFEST}: fingerprint {m.get('fingerprint')} is not the "
                               f"digest of its spec ({spec_fingerprint(spec)})")
        declared = spec.get("hands")
        structures = spec.get("structures")
        labels = [str(s) for s in structures] if isinstance(structures, list) else []
        if not isinstance(structures, list):
            bad("spec", f"{MANIFEST}: spec.structures is {_n(structures)}, not a list of "
                        "structure labels")
        for label in labels:
            got = per_structure.get(label, 0)
            if got != declared:
                bad("hand total", f"{label}: {got:,} hands audited, the manifest's "
                                  f"spec declares {_n(declared)}")
        for label in sorted(set(per_structure) - set(labels)):
            bad("hand total", f"{label}: {per_structure[label]:,} hands of a "
                              "structure the manifest's spec does not declare")
    elif "hands" in m and m["hands"] != hands:
        bad("hand total", f"{MANIFEST}: declares {_n(m['hands'])} hands, {hands:,} audited")
    totals = m.get("totals")
    if isinstance(totals, dict) and "hands" in totals and totals["hands"] != hands:
        bad("hand total", f"{MANIFEST}: totals.hands declares {_n(totals['hands'])}, "
                          f"{hands:,} audited")
    return out


def reduce_integrity(name: str, partials: list[Any]) -> AuditResult:
    """Merge the chunks' id ranges and check them, the files and the totals against the
    manifest (``Binding``, appended to the partials by the runner)."""
    binds = [p for p in partials if isinstance(p, Binding)]
    chunks = [p for p in partials if isinstance(p, IdRanges)]
    bind = binds[0] if binds else None
    m = bind.manifest if bind else None
    hands = sum(c.hands for c in chunks)
    by_label: dict[str, list[np.ndarray]] = {}
    for c in chunks:
        for label, r in c.ranges.items():
            by_label.setdefault(label, []).append(r)
    simulated = isinstance((m or {}).get("spec"), dict)
    # the files' own faults first (a file that is not exact misleads every reader)
    problems: list[Problem] = [(None, "exact file", why) for why in dict.fromkeys(
        why for c in chunks for why in c.exact)]
    problems += [(h, "misfiled", why) for c in chunks for h, why in c.misfiled]
    if bind is not None and (m is None or not m.get("files")):
        # no manifest to list against: a file the log's readers take that is not a batch file
        problems += [(None, "not a batch file", f"{rel}: under {runfolder.LOG_DIR}/ but not a "
                                                 f"batch file of the run ({runfolder.LAYOUT})")
                     for rel in bind.listing
                     if runfolder.is_log_file(rel) and runfolder.parse_batch_relpath(rel) is None]
    per_structure: dict[str, int] = {}
    unshown = 0  # duplicate and gap ranges past the first few of a structure
    for label in sorted(by_label):
        dups, gaps, n_dups, n_gaps = _merge(by_label[label])
        unshown += n_dups - len(dups) + (n_gaps - len(gaps) if simulated else 0)
        per_structure[label] = sum(int((r[:, 1] - r[:, 0] + 1).sum()) for r in by_label[label])
        problems += [(a, "duplicate hand ids",
                      f"{label}: {_ids(a, b)} appear more than once") for a, b in dups]
        if simulated:
            problems += [(a, "hand id gap",
                          f"{label}: {_ids(a, b)} missing (a gap in the stream)")
                         for a, b in gaps]
    details: dict[str, Any] = {"hands_per_structure": per_structure}
    if m is None or (not (isinstance(m.get("files"), list) and m["files"])
                     and m.get("format") != runspec.SIMULATE_FORMAT):
        # (a simulated run's spec declares its files: listing none binds nothing, a FAIL)
        applicable = bool(problems)
        if not problems:
            what = f"no {MANIFEST}" if m is None else f"{MANIFEST} lists no files"
            details["note"] = (f"{what}: the files could not be bound to what the run declares "
                               "(sha256, rows, totals not checked)")
    else:
        assert bind is not None  # a manifest comes with its binding
        applicable = True
        exact = [p for p in problems if p[1] == "exact file"]
        problems = (exact + _check_files(m, bind) + _check_totals(m, per_structure, hands)
                    + runspec.spec_problems(m) + problems[len(exact):])
        if not simulated:
            details["note"] = "no simulate spec: hand ids checked for duplicates, not gaps"
    if bind is not None:
        details["files"] = len(bind.files)
    shown = problems[:MAX_EXAMPLES]
    details["violations"] = [{"hand_id": h, "reason": r} for h, _, r in shown]
    details["reasons"] = {}
    for _, kind, _ in problems:
        details["reasons"][kind] = details["reasons"].get(kind, 0) + 1
    # the problems that name a hand (duplicate or missing ids, a misfiled hand) go to
    # failing_hands.csv beside every other audit's; file-level ones are named in the details
    failing = tuple((int(h), r) for h, _, r in problems if h is not None)[:MAX_FAILING]
    return AuditResult(name=name, passed=not problems, hands_checked=hands,
                       failures=len(problems) + unshown,
                       example_hand_ids=tuple(h for h, _, _ in shown if h is not None),
                       details=details, applicable=applicable, failing=failing)


def _not_regular(folder: runfolder.RunFolder, rel: str) -> str | None:
    """``rel: a symbolic link; ...`` when the file is no regular file (never read), else None."""
    try:
        folder.require_regular(rel)
    except runfolder.RunFolderError:
        why = storage.not_regular(folder.fs, folder.path(rel))
        return f"{rel}: {why}; a run folder holds plain files only"
    return None


def folder_mismatch(root: Location, files: list[dict[str, Any]], manifest_sha256: str | None,
                    against: str, old_layout_ok: bool = False) -> str | None:
    """The first way the run folder ``root`` no longer holds the bytes ``against`` (audit.json
    or certificate.json) records (``files``: path and sha256 of each audited file;
    ``manifest_sha256``: None when audited without a manifest), as one phrase; None when every
    byte matches and the folder holds no other file (besides the run's products).
    ``old_layout_ok``: a folder of the old layout is compared as it is (a certificate issued
    before the ``log/`` layout records its paths), instead of refused."""
    folder = runfolder.RunFolder.open(root)
    listing = folder.listing()
    if not old_layout_ok:
        folder.check_layout(listing)
    present = set(listing)
    if manifest_sha256 is None:
        if MANIFEST in present:
            return f"{MANIFEST}: in the run folder, but {against} records none"
    elif MANIFEST not in present:
        return f"{MANIFEST}: missing ({against} records sha256 {manifest_sha256[:16]}...)"
    else:
        why = _not_regular(folder, MANIFEST)
        if why:
            return why
        sha = folder.sha256(MANIFEST)[0]
        if sha != manifest_sha256:
            return (f"{MANIFEST}: sha256 {sha[:16]}... differs from the "
                    f"{manifest_sha256[:16]}... {against} records")
    for f in files:
        rel, want = f["path"], f["sha256"]
        if rel not in present:
            return f"{rel}: missing ({against} records sha256 {want[:16]}...)"
        why = _not_regular(folder, rel)
        if why:
            return why
        sha = folder.sha256(rel)[0]
        if sha != want:
            return f"{rel}: sha256 {sha[:16]}... differs from the {want[:16]}... {against} records"
    recorded = {f["path"] for f in files}
    for rel in listing:
        if rel not in recorded and not is_product(rel):
            return f"{rel}: in the run folder but not in {against}"
    return None


def check_inputs(inputs: Any, where: str) -> tuple[list[dict[str, Any]], str | None]:
    """(every file with its sha256: the audited ones, then the others found, the manifest's
    sha256) of an ``inputs`` record (audit.json's), checked: raises ValueError naming the
    field."""
    if not isinstance(inputs, dict) or not isinstance(inputs.get("files"), list):
        raise ValueError(f"{where}: expected an object with a list 'files' (written by an older "
                         "holdem? run `holdem audit` again)")
    unaudited = inputs.get("unaudited") or []
    if not isinstance(unaudited, list):
        raise ValueError(f"{where}.unaudited: expected a list")
    for key, files in (("files", inputs["files"]), ("unaudited", unaudited)):
        for i, f in enumerate(files):
            if not (isinstance(f, dict) and isinstance(f.get("path"), str)
                    and isinstance(f.get("sha256"), str) and len(f["sha256"]) == 64
                    and ".." not in f["path"].split("/") and not f["path"].startswith("/")):
                raise ValueError(f"{where}.{key}[{i}]: expected a relative 'path' and a "
                                 "64-digit 'sha256'")
    m = inputs.get("manifest")
    if m is not None and not (isinstance(m, dict) and isinstance(m.get("sha256"), str)):
        raise ValueError(f"{where}.manifest: expected null or an object with a 'sha256'")
    return inputs["files"] + unaudited, None if m is None else m["sha256"]


SPEC = AuditSpec("integrity", integrity_map, reduce_integrity, description=(
    "the files bound to the manifest: each file's sha256, bytes and rows, no file missing or "
    "unlisted, the declared hand totals, hand ids unique and contiguous per structure; each "
    "file exact: the documented schema, the writer's metadata only, footer statistics that are "
    "the data's"))
