"""``holdem migrate RUN``: an old-layout run folder (``structure=<label>/batch-<N>.parquet``,
before issue 15) converted to the layout of ``audits.runfolder``."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs

from audits.runfolder.errors import RunFolderError
from audits.runfolder.folder import RunFolder
from audits.runfolder.names import (
    AUDIT_FILE,
    CERTIFICATE,
    DECK_LABEL,
    LAYOUT,
    LOG_DIR,
    MANIFEST,
    OLD_BATCH,
    batch_index,
    batch_relpath,
    is_product,
    parse_batch_relpath,
)
from audits.runfolder.storage import Location


def _new_path(rel: str) -> str | None:
    m = OLD_BATCH.fullmatch(rel)
    if not m:
        return None
    return batch_relpath(m.group(2) or DECK_LABEL, batch_index(rel) or 0)


def migrate(run: Location | os.PathLike[str],
            say: Callable[[str], None] | None = None) -> int:
    """Convert an old-layout run folder: every ``structure=<label>/batch-<N>.parquet`` moves to
    ``log/<label>/batch-<N>.parquet`` (a shuffle run's ``decks/batch-<N>.parquet`` to
    ``log/decks/...``) (the bytes do not change, so every sha256 and size stays
    valid) and the manifest's paths (and ``layout``) are rewritten, atomically, after the moves.
    Running it again after an interruption finishes the job. Returns the files moved; raises
    RunFolderError (one line) on anything unexpected, before moving anything."""
    folder = RunFolder.open(run)
    folder.require()
    listing = folder.listing()
    moves: list[tuple[str, str]] = []
    for rel in listing:
        if is_product(rel):
            continue
        new = _new_path(rel)
        if new is not None:
            if new in listing:
                raise RunFolderError(f"{folder.location(rel)}: {new} exists as well; "
                                     "remove one of them")
            moves.append((rel, new))
        elif parse_batch_relpath(rel) is None:
            raise RunFolderError(f"{folder.location(rel)}: not a file of a run folder; move it "
                                 "away and run `holdem migrate` again")
    manifest = folder.read_manifest(any_layout=True)
    if manifest is not None:
        files = manifest.get("files")
        if not isinstance(files, list):
            raise RunFolderError(f"{folder.location(MANIFEST)}: no 'files' list to rewrite")
        for i, f in enumerate(files):
            listed = f.get("path") if isinstance(f, dict) else None
            if not isinstance(listed, str) or (_new_path(listed) is None
                                               and parse_batch_relpath(listed) is None):
                raise RunFolderError(f"{folder.location(MANIFEST)}: files[{i}].path {listed!r} is "
                                     "not a batch file of either layout")
    if not moves and (manifest is None or all(
            _new_path(f["path"]) is None for f in manifest["files"])):
        raise RunFolderError(f"{folder.label}: no files of the old layout "
                             "(structure=<label>/batch-<N>.parquet); nothing to convert")
    for rel, new in moves:
        folder.fs.create_dir(folder.path(new.rpartition("/")[0]), recursive=True)
        folder.fs.move(folder.path(rel), folder.path(new))
    old_dirs = {rel.partition("/")[0] for rel, _ in moves}
    if manifest is not None:  # rewritten before any old folder goes: a folder interrupted
        for f in manifest["files"]:  # in between is still recognised (and finished by a rerun)
            if _new_path(f["path"]) is not None:
                old_dirs.add(f["path"].partition("/")[0])
                f["path"] = _new_path(f["path"])
        if "layout" in manifest:
            manifest["layout"] = LAYOUT
        folder.write_manifest(manifest)
    for old_dir in sorted(old_dirs):
        try:
            info = folder.fs.get_file_info(pafs.FileSelector(folder.path(old_dir),
                                                             allow_not_found=True))
            if not info:
                folder.fs.delete_dir(folder.path(old_dir))
        except (pa.ArrowException, OSError):
            pass  # an object store has no folders to remove
    if say is not None:
        say(f"{folder.label}: {len(moves)} batch files moved to {LOG_DIR}/<label>/"
            + _stale_products(listing, manifest))
    return len(moves)


def _stale_products(listing: list[str], manifest: dict[str, Any] | None) -> str:
    """What ``migrate`` says of the products that record the old paths, and how to remake them
    (a shuffle run's certificate: by running its ``holdem shuffle`` again)."""
    stale = [p for p in (AUDIT_FILE, CERTIFICATE) if p in listing]
    if not stale:
        return ""
    verb = "records" if len(stale) == 1 else "record"
    if (manifest or {}).get("format") == "holdem-shuffle-run":
        how = ("run the same `holdem shuffle ... --out` again (it keeps the files and audits "
               "them again)")
    else:
        how = "run `holdem audit` and `holdem report` again"
    return f"; {' and '.join(stale)} {verb} the old paths: {how}"
