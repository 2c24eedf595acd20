"""``holdem phh import PATH... --out RUN``: PHH hand histories -> a run folder the audits read.

Layout (as ``holdem simulate`` writes, through ``audits.runfolder``; RUN a local path or a
URI)::

    RUN/log/<label>/batch-<index:05d>.parquet   rows of sim.schema.HAND_SCHEMA (zstd)
    RUN/manifest.json                           format "holdem-phh-import"

The audits read one ``n_seats`` per file, so a structure's hands are split into one batch file
per table size (batch 0 = the smallest size present, and so on). Conversion choices are in
``sim/phh_import.py``. The manifest says ``"format": "holdem-phh-import"``, ``"source": "phh"``
and ``"spec": null`` (nothing to re-simulate: ``holdem audit`` and ``holdem diff`` read it,
``holdem verify --reproduce`` cannot), lists every source file with its sha256, its
sections (hands) and how many could not be read, and the rows imported from it; each batch file
(path, structure, batch, hands, rows, bytes, sha256); and the skipped hands, one line each. A
hand is skipped, never its file: a section that cannot be read (``sim.phh.read_phh``: a cut
section, an amount like ``1e400``, a negative stack) is named with its file, section key and
reason, counted by kind in ``unreadable_by_kind``, and the rest of the file is imported.
An existing RUN folder's batch files are replaced (one of the old layout is refused).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from audits.runfolder import (
    MANIFEST,
    PRODUCTS,
    RunFolder,
    RunFolderError,
    batch_relpath,
    sha256_bytes,
)
from sim.digest import DIGEST_VERSION
from sim.phh import PhhHand, iter_phh_paths, read_phh
from sim.phh_import import import_hands
from sim.schema import SCHEMA_VERSION

__all__ = ["MANIFEST_FORMAT", "PhhImport", "format_import", "import_phh"]

MANIFEST_FORMAT = "holdem-phh-import"
MANIFEST_VERSION = 1


def _encode(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue().to_pybytes()


@dataclass(frozen=True)
class PhhImport:
    """What ``import_phh`` did."""

    root: str  # the run folder written (its label: a path or a URI)
    files: int  # PHH files read
    imported: int  # hands imported
    unsupported: int
    failed: int  # hands (and unreadable files) that could not be imported
    skipped: list[str]  # one line each: unreadable files, unsupported or failed hands
    odd_chip: list[str]  # hands whose half chips were replaced by our odd chip
    seconds: float
    removed: list[str] = field(default_factory=list)  # a previous import's stale audit/report

    @property
    def exit_code(self) -> int:
        """0 at least one hand imported, 2 none."""
        return 0 if self.imported else 2


def format_import(res: PhhImport) -> str:
    """The skipped and odd-chip hands, one line each, then the summary line."""
    lines = [f"skipped: {line}" for line in res.skipped]
    lines += [f"odd chip: {line}" for line in res.odd_chip]
    if res.removed:
        lines.append(f"removed the previous import's {', '.join(res.removed)} (they described "
                     "its hands; run `holdem audit` and `holdem report` again)")
    lines.append(f"{res.files} files, {res.imported} hands imported, {res.unsupported} "
                 f"unsupported, {res.failed} failed, {len(res.odd_chip)} with the file's half "
                 f"chips replaced by our odd chip; {res.seconds:.1f} s -> {res.root}")
    return "\n".join(lines)


def import_phh(paths: list[str], out: str | Path) -> PhhImport:
    """Import the hands of PHH files and folders and write the run folder ``out`` (a local
    path or a URI; its manifest only when a hand was imported). Raises FileNotFoundError for a
    missing path, ``audits.runfolder.RunFolderError`` for an unusable output folder (e.g. one
    of the old layout)."""
    t0 = time.perf_counter()
    for p in paths:
        if not Path(p).exists():
            raise FileNotFoundError(f"{p}: no such file or folder")
    folder = RunFolder.open(out)
    stale = _replaceable(folder)
    files = list(iter_phh_paths(paths))
    hands: list[PhhHand] = []
    sources: list[dict[str, Any]] = []
    bad_files: list[str] = []
    skipped_by_kind: dict[str, int] = {}
    for f in files:
        # per hand, never per file: a section that cannot be read is skipped with its reason
        # and the rest of the file is imported (sim.phh.read_phh)
        pf = read_phh(f)
        hands.extend(pf.hands)
        bad_files.extend(skip.describe() for skip in pf.skipped)
        for skip in pf.skipped:
            skipped_by_kind[skip.kind] = skipped_by_kind.get(skip.kind, 0) + 1
        sources.append({"path": str(f), "sha256": pf.sha256, "sections": pf.sections,
                        "unreadable": len(pf.skipped), "rows": 0})
    res = import_hands(hands)
    for s in sources:
        s["rows"] = res.per_source.get(s["path"], 0)
    root = folder.label
    if folder.exists():
        for old in [*folder.batch_relpaths(), *stale]:
            folder.delete(old)
    records = []
    batch_of: dict[str, int] = {}
    for (label, _k), table in res.tables.items():
        b = batch_of.get(label, 0)
        batch_of[label] = b + 1
        rel = batch_relpath(label, b)
        data = _encode(table)
        folder.write(rel, data)
        records.append({"path": rel, "structure": label, "batch": b, "hands": table.num_rows,
                        "rows": table.num_rows, "bytes": len(data), "sha256": sha256_bytes(data)})
    run_id = (res.tables and next(iter(res.tables.values())).column("run_id")[0].as_py()) or None
    manifest = {
        "format": MANIFEST_FORMAT, "manifest_version": MANIFEST_VERSION, "source": "phh",
        "run_id": run_id, "fingerprint": run_id, "spec": None,
        "structures": sorted(batch_of), "hands": res.imported,
        "sources": sources, "files": records,
        "skipped": bad_files + res.skipped, "unsupported": res.unsupported,
        "unreadable_by_kind": skipped_by_kind,
        "failed": res.failed + len(bad_files),
        "odd_chip_hands": res.odd_chip,
        "odd_chip_note": ("these files record a split pot's odd chip as X.5 each; imported with "
                          "our stacks (the odd chip to the first winner clockwise from the "
                          "button)"),
        "inject": None, "schema_version": SCHEMA_VERSION, "digest_version": DIGEST_VERSION,
    }
    if res.imported:
        folder.write_manifest(manifest)
    return PhhImport(str(root), len(files), res.imported, res.unsupported,
                     res.failed + len(bad_files), bad_files + res.skipped, list(res.odd_chip),
                     time.perf_counter() - t0, stale)


def _replaceable(folder: RunFolder) -> list[str]:
    """An output folder an import may write: new, empty, or a previous PHH import (its batch
    files are replaced; returns its audit and report files, stale once they are). Anything else,
    a simulated or shuffle run above all, is refused (RunFolderError) before a byte is touched."""
    if not folder.exists():
        return []
    listing = folder.listing()
    folder.check_layout(listing)
    manifest = folder.read_manifest()
    kind = manifest.get("format") if manifest is not None else None
    if (manifest is not None and kind != MANIFEST_FORMAT) or (
            manifest is None and folder.batch_relpaths(listing)):
        what = f"a {kind} run" if kind else "batch files without a manifest"
        raise RunFolderError(f"run folder {folder.label}: holds {what}, not a PHH import; "
                             "import into a new folder (nothing was changed)")
    return [rel for rel in listing if rel in PRODUCTS and rel != MANIFEST]
