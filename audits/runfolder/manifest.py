"""A run folder's ``manifest.json`` at the JSON level: parsing it (``parse_json``), reading it
(``read_manifest``: a JSON object of an accepted ``format``) and the one check of the paths it
lists (``check_listed``: each a batch file of the layout, none twice). What a manifest holds is
its writer's business (``cluster.flows.manifest`` for ``holdem simulate``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.fs as pafs

from audits.runfolder.errors import ManifestError, OldLayoutError
from audits.runfolder.names import LAYOUT, MANIFEST, OLD_BATCH, parse_batch_relpath

if TYPE_CHECKING:
    from audits.runfolder.folder import RunFolder


def old_layout_message(label: str, old_dir: str) -> str:
    """The one line every command says about a folder of the old layout."""
    return (f"{label} uses the old layout ({old_dir}/...); convert it with "
            f"`holdem migrate {label}`")


class _Constant(str):
    """A ``NaN``/``Infinity`` met while parsing (found again to name the field holding it)."""


def _constant_path(x: Any, path: str = "") -> tuple[str, str] | None:
    """(the dotted path of the first ``_Constant`` in ``x``, its text), None when none."""
    if isinstance(x, _Constant):
        return path or "(top level)", str(x)
    items = x.items() if isinstance(x, dict) else enumerate(x) if isinstance(x, list) else ()
    for k, v in items:
        found = _constant_path(v, f"{path}.{k}" if path and isinstance(k, str)
                               else f"{path}[{k}]" if not isinstance(k, str) else k)
        if found is not None:
            return found
    return None


def parse_json(data: bytes | str, *, strict: bool = False) -> Any:
    """A run folder's JSON file, parsed; ValueError (one line) for anything else: invalid
    JSON, nesting too deep to read (RecursionError, never a traceback), and with ``strict``
    (the manifest: its writers never write them) ``NaN`` or ``Infinity``, named by the field
    that holds it (``spec.seed: NaN is not a JSON number``)."""
    try:
        if not strict:
            return json.loads(data)
        d = json.loads(data, parse_constant=_Constant)
        found = _constant_path(d)
    except RecursionError:
        raise ValueError("nested too deeply to read") from None
    if found is not None:
        raise ValueError(f"{found[0]}: {found[1]} is not a JSON number")
    return d


def read_manifest(folder: RunFolder, formats: Collection[str] | None = None, *,
                  any_layout: bool = False, unreadable_hint: str = "") -> dict[str, Any] | None:
    """The folder's manifest.json as a JSON object, None when absent. ``formats``: the
    ``format`` values accepted (any when None). Raises ManifestError (``unreadable_hint`` ends
    the message of one that is not JSON), and OldLayoutError for a manifest listing old-layout
    paths (a half-migrated folder) unless ``any_layout`` (``migrate``); see ``check_listed``."""
    return read_manifest_and_sha256(folder, formats, any_layout=any_layout,
                                    unreadable_hint=unreadable_hint)[0]


def read_manifest_and_sha256(folder: RunFolder, formats: Collection[str] | None = None, *,
                             any_layout: bool = False, unreadable_hint: str = ""
                             ) -> tuple[dict[str, Any] | None, str | None]:
    """``read_manifest`` and the sha256 of the very bytes it parsed (None, None when absent):
    one read binds what was read (an audit records this digest), never a second read that
    could see other bytes."""
    folder.require_regular(MANIFEST)
    if folder.fs.get_file_info(folder.path(MANIFEST)).type != pafs.FileType.File:
        return None, None
    try:
        raw = folder.read_bytes(MANIFEST)
        d = parse_json(raw.decode("utf-8"), strict=True)
    except (OSError, UnicodeDecodeError, ValueError, pa.ArrowException) as e:
        raise ManifestError(f"run folder {folder.label}: {MANIFEST} is not readable JSON "
                            f"({e}){unreadable_hint}") from None
    if not isinstance(d, dict):
        raise ManifestError(f"run folder {folder.label}: {MANIFEST} is not a JSON object")
    if formats is not None and (not isinstance(d.get("format"), str)
                                or d["format"] not in formats):
        raise ManifestError(f"run folder {folder.label}: {MANIFEST} has format "
                            f"{d.get('format')!r}, expected "
                            + " or ".join(sorted(str(f) for f in formats)))
    if not any_layout:
        check_listed(folder, d)
    return d, hashlib.sha256(raw).hexdigest()


def listed_paths(d: dict[str, Any]) -> list[str]:
    """The paths a manifest lists (``files[].path``), in its order: after ``check_listed``
    (which ``read_manifest`` runs) each is a batch file of the layout, none twice."""
    files = d.get("files")
    return [f["path"] for f in files] if isinstance(files, list) else []


def check_listed(folder: RunFolder, d: dict[str, Any]) -> None:
    """Every path a manifest lists (``files[i].path``) is a batch file of the layout
    (``parse_batch_relpath``): the log the documented readers see (``RUN/log/**``) is all an
    audit binds. OldLayoutError for an old-layout path, ManifestError for any other. The one
    validator of a manifest's paths."""
    files = d.get("files")
    if not isinstance(files, list):
        return
    seen: dict[str, int] = {}
    for i, f in enumerate(files):
        rel = f.get("path") if isinstance(f, dict) else None
        old = OLD_BATCH.fullmatch(rel) if isinstance(rel, str) else None
        if old:
            raise OldLayoutError(old_layout_message(folder.label, old.group(1)))
        if not isinstance(rel, str) or parse_batch_relpath(rel) is None:
            raise ManifestError(f"{folder.location(MANIFEST)}: files[{i}].path {rel!r} is not "
                                f"a batch file of the run ({LAYOUT})")
        if rel in seen:
            raise ManifestError(f"{folder.location(MANIFEST)}: files[{i}].path {rel!r} is "
                                f"listed twice (files[{seen[rel]}] too)")
        seen[rel] = i


def write_manifest(folder: RunFolder, d: dict[str, Any]) -> dict[str, Any]:
    """Write manifest.json atomically (indented JSON); returns ``d``."""
    folder.write(MANIFEST, json.dumps(d, indent=2) + "\n")
    return d
