"""Reading two run folders for comparison: the shared ground of the hand diff
(:mod:`cluster.regression.digest_diff`) and the statistical diff
(:mod:`cluster.regression.stat_diff`). A run folder that cannot be read, or two whose specs
disagree, is :class:`NotComparable` (exit 2)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from audits.runfolder.errors import InputError

EXIT_SAME = 0
EXIT_DIFFERENT = 1
EXIT_NOT_COMPARABLE = 2

# spec fields that decide which hands a run holds, not what they are
COVERAGE_FIELDS = ("hands", "structures")


class NotComparable(InputError):
    """The runs cannot be compared (different config, missing or corrupt input): exit 2."""


@dataclass
class ComparedRun:
    """One run folder opened for comparison: its manifest and its batch files."""

    label: str
    fs: pafs.FileSystem
    base: str
    manifest: dict[str, Any]
    files: dict[str, str]  # relative path -> full path


def open_run(run: str | os.PathLike[str]) -> ComparedRun:
    from audits.runfolder import RunFolder, RunFolderError, UnlistedFileError
    from cluster.flows.import_histories import MANIFEST_FORMAT as PHH_FORMAT
    from cluster.flows.import_histories import OLD_FORMAT
    from cluster.flows.manifest import MANIFEST_FORMAT

    label = os.fspath(run)
    try:
        folder = RunFolder.open(run)
        folder.require()
        manifest = folder.read_manifest({MANIFEST_FORMAT, PHH_FORMAT, OLD_FORMAT})
        if manifest is None:
            raise NotComparable(f"run folder {label} has no manifest.json")
        rels = sorted(folder.log_files(manifest=manifest, missing_ok=True)
                      .require_listed().files)
    except (RunFolderError, UnlistedFileError) as e:
        raise NotComparable(str(e)) from None
    files = {rel: folder.path(rel) for rel in rels}
    return ComparedRun(label, folder.fs, folder.base, manifest, files)


def read_file(run: ComparedRun, rel: str) -> bytes:
    try:
        with run.fs.open_input_stream(run.files[rel]) as f:
            return f.read()
    except OSError as e:
        raise NotComparable(f"{run.label}/{rel}: cannot read ({e})") from None


def read_table(run: ComparedRun, rel: str, data: bytes, columns: list[str] | None) -> pa.Table:
    try:
        return pq.read_table(pa.BufferReader(data), columns=columns)
    except (pa.ArrowException, OSError, ValueError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise NotComparable(f"{run.label}/{rel}: not a readable Parquet file ({first})") from None


def read_schema(run: ComparedRun) -> pa.Schema:
    rel = next(iter(sorted(run.files)))
    try:
        with run.fs.open_input_file(run.files[rel]) as f:
            return pq.read_schema(f)
    except (pa.ArrowException, OSError, ValueError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise NotComparable(f"{run.label}/{rel}: not a readable Parquet file ({first})") from None


def compared_columns(a: ComparedRun, b: ComparedRun) -> tuple[list[str], list[str]]:
    """(the content columns, ``sim.digest``, both runs hold with the same type; a note for
    each content column that is not compared: on one side only, or of another type)."""
    from sim.digest import content_columns

    sa, sb = read_schema(a), read_schema(b)
    columns: list[str] = []
    notes: list[str] = []
    for name in content_columns(sa.names):
        if name not in sb.names:
            notes.append(f"column {name} only in baseline: not compared")
        elif not sa.field(name).type.equals(sb.field(name).type):
            notes.append(f"column {name}: type {sa.field(name).type} vs "
                         f"{sb.field(name).type}: not compared")
        else:
            columns.append(name)
    notes += [f"column {n} only in candidate: not compared" for n in content_columns(sb.names)
              if n not in sa.names]
    return columns, notes


def spec_differences(a: dict[str, Any], b: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """Every spec field (not a coverage field) that differs, in name order: (field, baseline
    value, candidate value). A field that one spec lacks (an older RunSpec) is compared with
    today's default."""
    import dataclasses

    from sim.runspec import RunSpec

    defaults = {f.name: (f.default if f.default is not dataclasses.MISSING
                         else f.default_factory() if f.default_factory is not dataclasses.MISSING
                         else "<absent>")
                for f in dataclasses.fields(RunSpec)}
    out = []
    for k in sorted(set(a) | set(b)):
        if k in COVERAGE_FIELDS:
            continue
        va, vb = a.get(k, defaults.get(k, "<absent>")), b.get(k, defaults.get(k, "<absent>"))
        if va != vb:
            out.append((k, va, vb))
    return out


def describe_differences(diffs: list[tuple[str, Any, Any]]) -> str:
    """``spec_differences`` in one phrase: each field with both values."""
    def one(k: str, va: Any, vb: Any) -> str:
        return f"{k} (baseline {_short(va)}, candidate {_short(vb)})"

    if len(diffs) == 1:
        k, va, vb = diffs[0]
        return f"{k} differs (baseline {_short(va)}, candidate {_short(vb)})"
    return f"{len(diffs)} spec fields differ: " + ", ".join(one(*d) for d in diffs)


def _short(v: Any) -> str:
    text = json.dumps(v, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."


def spec_mismatch(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """Every spec field (not a coverage field) that differs, with both values, as one phrase,
    or None (``spec_differences``)."""
    diffs = spec_differences(a, b)
    return describe_differences(diffs) if diffs else None
