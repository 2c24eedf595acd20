"""Exact files: each batch file is exactly what the writer of the run writes, so that every reader
(the audits, ``pandas.read_parquet``, DuckDB's filtered scans) sees the same hands.

Checked per file (each failure names the file, and the column), for the ``integrity`` audit:

- the Arrow schema (as Parquet stores it, and as its embedded ``ARROW:schema`` copy says) is the
  documented one (``audits.logschema``): names, order, types, nullability; a column's own
  metadata holds only its ``unit`` and ``doc``;
- the key-value metadata holds only the writer's keys (``holdem simulate``'s five, or the PHH
  importer's schema version): a ``pandas`` key, which makes ``pandas.read_parquet`` rename or
  retype columns, fails; a simulated file's ``holdem.structure`` and ``holdem.batch`` name its
  folder and file;
- every footer statistic (min, max, and the null count of a plain column) is the data's, row
  group by row group: a filtered reader that skips row groups by them misses no hand; no page
  index, bloom filter, column-chunk metadata or column chunk in another file (which the
  writers never write, and a reader would trust);
- every value of ``structure`` and ``format`` is a documented one.

A null in an audited column or in a list's values is refused by the reader (``first_null``,
``audits.io``: one line, exit 2) before any audit sees the chunk.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from audits import logschema as ls
from audits import runfolder

if TYPE_CHECKING:
    from audits.io import Batch

STATS_ROWS = 65_536  # rows read at a time while checking the statistics (bounded memory)
MAX_SHOWN = 3  # problems of one kind named per file


@dataclass
class FileCheck:
    """One batch file as opened by the reader, checked once (on its first chunk) by the
    ``integrity`` audit's map."""

    path: str
    pf: pq.ParquetFile
    done: bool = False
    problems: list[str] = field(default_factory=list)


def _decoded_arrow_schema(kv: dict[bytes, bytes]) -> pa.Schema | None:
    raw = kv.get(ls.ARROW_SCHEMA_KEY)
    if raw is None:
        return None
    try:
        return pa.ipc.read_schema(pa.py_buffer(base64.b64decode(raw)))
    except (ValueError, pa.ArrowException):
        return None


def _field_problems(fields: list[pa.Field], want: list[pa.Field], where: str) -> list[str]:
    out: list[str] = []
    names, wanted = [f.name for f in fields], [f.name for f in want]
    extra = [n for n in names if n not in wanted]
    missing = [n for n in wanted if n not in names]
    if extra:
        out.append(f"{where}: extra column(s) {', '.join(map(repr, extra[:MAX_SHOWN]))} (the log "
                   "holds the documented columns only)")
    if missing:
        out.append(f"{where}: missing column(s) {', '.join(map(repr, missing[:MAX_SHOWN]))}")
    if not extra and not missing and len(names) != len(wanted):
        twice = sorted({n for n in names if names.count(n) > 1})
        out.append(f"{where}: column(s) {', '.join(map(repr, twice[:MAX_SHOWN]))} appear twice")
    elif not extra and not missing and names != wanted:
        i = next(i for i, (a, b) in enumerate(zip(names, wanted, strict=True)) if a != b)
        out.append(f"{where}: columns out of the documented order (column {i} is {names[i]!r}, "
                   f"expected {wanted[i]!r})")
    by_name = {f.name: f for f in want}
    for f in fields:
        w = by_name.get(f.name)
        if w is None:
            continue
        if not f.type.equals(w.type):
            out.append(f"{where}: column {f.name!r} is {f.type}, expected {w.type}")
        elif f.nullable != w.nullable:
            out.append(f"{where}: column {f.name!r} is declared "
                       f"{'nullable' if f.nullable else 'not nullable'}, expected "
                       f"{'nullable' if w.nullable else 'not nullable'}")
        extra_meta = sorted(set(f.metadata or {}) - ls.FIELD_METADATA_KEYS)
        if extra_meta:
            out.append(f"{where}: column {f.name!r} carries metadata "
                       f"{', '.join(repr(k.decode(errors='replace')) for k in extra_meta[:3])} "
                       "(a column's metadata is its unit and doc only)")
    return out


def _version(kv: dict[bytes, bytes], where: str, out: list[str]) -> int:
    raw = kv.get(ls.META_SCHEMA_VERSION)
    text = raw.decode(errors="replace") if raw is not None else None
    if text is not None and text.isascii() and text.isdigit() and int(text) in ls.VERSION_COLUMNS:
        return int(text)
    out.append(f"{where}: metadata {ls.META_SCHEMA_VERSION.decode()} is {text!r}, expected one "
               f"of {', '.join(map(str, sorted(ls.VERSION_COLUMNS)))}")
    return ls.SCHEMA_VERSION


def schema_problems(pf: pq.ParquetFile, where: str, imported: bool,
                    simulated: bool = True, import_columns: bool = False) -> list[str]:
    """The ways a file's schema and key-value metadata differ from the documented ones
    (``imported``: an import's file: ``deck`` nullable; ``import_columns``: a ``holdem import``
    run's (format "holdem-import"): the import columns before ``digest`` and
    ``holdem.import_version`` = ``IMPORT_VERSION`` with the schema version, else (an old
    ``holdem phh import``) the schema version the only key; ``simulated``: a ``holdem simulate``
    run's, whose ``holdem.structure`` and ``holdem.batch`` must be there: in any other file they
    must name its folder and file when present)."""
    out: list[str] = []
    kv = dict(pf.metadata.metadata or {})
    stored = pf.metadata.schema.to_arrow_schema()
    import_columns = imported and import_columns
    allowed = (ls.SIMULATOR_KEYS if not imported else ls.IMPORT_KEYS if import_columns
               else ls.OLD_IMPORT_KEYS)
    keys = sorted(set(kv) - allowed - {ls.ARROW_SCHEMA_KEY})
    if keys:
        out.append(f"{where}: key-value metadata "
                   f"{', '.join(repr(k.decode(errors='replace')) for k in keys[:MAX_SHOWN])} "
                   "is not the writer's (only "
                   + ", ".join(sorted(k.decode() for k in allowed)) + ")")
    version = _version(kv, where, out)
    import_version = ls.IMPORT_VERSION
    if import_columns:
        raw = kv.get(ls.META_IMPORT_VERSION)
        text = raw.decode(errors="replace") if raw is not None else None
        if text is not None and text.isascii() and text.isdigit() and (
                int(text) in ls.IMPORT_VERSION_COLUMNS):
            import_version = int(text)
        else:
            out.append(f"{where}: metadata {ls.META_IMPORT_VERSION.decode()} is {text!r}, "
                       f"expected one of "
                       f"{', '.join(map(repr, map(str, sorted(ls.IMPORT_VERSION_COLUMNS))))}")
    want = ls.expected_schema(version, ls.IMPORT_NULLABLE if imported else ls.NULLABLE,
                              import_columns, import_version)
    out += _field_problems(list(stored), want, where)
    embedded = _decoded_arrow_schema(kv)
    if ls.ARROW_SCHEMA_KEY in kv and embedded is None:
        out.append(f"{where}: its ARROW:schema metadata does not decode")
    elif embedded is not None:
        meta = sorted(set(embedded.metadata or {}) - allowed)
        if meta:
            out.append(f"{where}: its ARROW:schema carries metadata "
                       f"{', '.join(repr(k.decode(errors='replace')) for k in meta[:MAX_SHOWN])}"
                       " that is not the writer's")
        seen = set(out)
        out += [p for p in _field_problems(list(embedded), want, f"{where} (ARROW:schema)")
                if p not in seen]
    if not imported:
        label, index = runfolder.batch_label(where), runfolder.batch_index(where)
        for key, value in ((ls.META_STRUCTURE, label),
                           (ls.META_BATCH, None if index is None else str(index))):
            got = kv.get(key)
            if got is None and not simulated:
                continue
            if value is not None and (got is None or got.decode(errors="replace") != value):
                shown = None if got is None else got.decode(errors="replace")
                out.append(f"{where}: metadata {key.decode()} is {shown!r}, the file is "
                           f"{value!r}'s")
    return out


def _leaf(arr: pa.Array, parts: list[str]) -> pa.Array:
    """The Parquet leaf column ``parts`` (a path below a top-level column) of an Arrow array."""
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    while parts:
        if pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type):
            arr, parts = arr.flatten(), parts[2:]  # <name>.list.element
        elif pa.types.is_struct(arr.type):
            names = [arr.type.field(i).name for i in range(arr.type.num_fields)]
            arr, parts = arr.flatten()[names.index(parts[0])], parts[1:]
        else:
            raise ValueError(f"no leaf {'.'.join(parts)}")
    return arr


def _leaves(pf: pq.ParquetFile, rg: int, top: str, parts: list[str]) -> Iterator[pa.Array]:
    """The leaf ``parts`` of the column ``top`` in row group ``rg``, ``STATS_ROWS`` rows at a
    time."""
    for rb in pf.iter_batches(batch_size=STATS_ROWS, row_groups=[rg], columns=[top]):
        yield _leaf(rb.column(0), parts)


def _min_max(chunks: Iterator[pa.Array]) -> tuple[Any, Any, int]:
    lo = hi = None
    nulls = 0
    for a in chunks:
        nulls += a.null_count
        if len(a) - a.null_count == 0:
            continue
        mm = pc.min_max(a).as_py()
        lo = mm["min"] if lo is None or mm["min"] < lo else lo
        hi = mm["max"] if hi is None or mm["max"] > hi else hi
    return lo, hi, nulls


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def statistics_problems(pf: pq.ParquetFile, where: str) -> list[str]:
    """Every footer statistic compared with the data of its row group (min and max of every
    leaf column; the null count of a top-level one); a page index, a bloom filter, a column
    chunk's metadata or a column chunk in another file is refused."""
    out: list[str] = []
    md = pf.metadata
    for rg in range(md.num_row_groups):
        g = md.row_group(rg)
        stats: dict[str, list[tuple[list[str], Any]]] = {}
        for j in range(g.num_columns):
            c = g.column(j)
            extra = [what for what, there in (
                ("a page index", c.has_column_index or c.has_offset_index),
                ("a bloom filter", c.bloom_filter_offset is not None),
                ("key-value metadata", bool(c.metadata)),
                (f"a path to another file ({c.file_path!r})", bool(c.file_path))) if there]
            if extra:
                out.append(f"{where}: column {c.path_in_schema} carries {' and '.join(extra)} "
                           f"(row group {rg}), which the writer never writes")
            if c.is_stats_set and c.statistics is not None:
                parts = c.path_in_schema.split(".")
                stats.setdefault(parts[0], []).append((parts[1:], c.statistics))
        for top, leaves in stats.items():
            for parts, st in leaves:
                name = ".".join([top, *parts])
                lo, hi, nulls = _min_max(_leaves(pf, rg, top, parts))
                if st.has_min_max and (st.min, st.max) != (lo, hi):
                    out.append(f"{where}: footer statistics of {name} (row group {rg}) say min "
                               f"{_short(st.min)}, max {_short(st.max)}; the data's are "
                               f"{_short(lo)}, {_short(hi)}")
                elif not st.has_min_max and lo is not None:
                    out.append(f"{where}: footer statistics of {name} (row group {rg}) say no "
                               "value; the data holds some")
                if not parts and st.has_null_count and st.null_count != nulls:
                    out.append(f"{where}: footer statistics of {name} (row group {rg}) count "
                               f"{st.null_count} nulls; the data holds {nulls}")
    return out


def first_null(t: pa.Table, skip: tuple[str, ...]) -> tuple[str, int] | None:
    """(column, first row) of the first null in a column of ``t`` or in the values of its lists
    and structs (a list's value or a pot's field), None when there is none; ``skip``: columns
    whose nulls are the caller's business."""
    for name in t.column_names:
        if name in skip:
            continue
        col = t.column(name)
        for arr in col.chunks:
            row = _null_row(arr)
            if row is not None:
                return name, row
    return None


def null_problem(t: pa.Table) -> str | None:
    """Where the first null of a hand log's table stands, in words (``column 'won' holds a
    null (hand 12)``), None when there is none; the columns a log may leave null (``deck`` of
    an import, ``fault`` of a clean engine) are skipped."""
    null = first_null(t, skip=("deck", *sorted(ls.NULLABLE)))
    if null is None:
        return None
    name, row = null
    hid = t.column("hand_id")[row].as_py() if name != "hand_id" else None
    return (f"column {name!r} holds a null "
            + (f"(hand {hid})" if hid is not None else f"(row {row})"))


def _null_row(arr: pa.Array) -> int | None:
    """The first row of ``arr`` that is null or holds a null value somewhere below it."""
    if arr.null_count:
        return int(pc.index(arr.is_null(), True).as_py())
    typ = arr.type
    if pa.types.is_list(typ) or pa.types.is_large_list(typ):
        child = arr.flatten()
        at = _null_row(child)
        if at is None:
            return None
        off = arr.offsets.to_numpy()
        return int(np.searchsorted(off - off[0], at, side="right") - 1)
    if pa.types.is_struct(typ):
        rows = [r for r in (_null_row(c) for c in arr.flatten()) if r is not None]
        return min(rows) if rows else None
    return None


def check_file(fc: FileCheck, imported: bool, simulated: bool = True,
               import_columns: bool = False) -> list[str]:
    """The file's problems (``schema_problems``, ``statistics_problems``), computed once."""
    if not fc.done:
        fc.done = True
        try:
            fc.problems = (schema_problems(fc.pf, fc.path, imported, simulated, import_columns)
                           + statistics_problems(fc.pf, fc.path))
        except (pa.ArrowException, OSError, ValueError, TypeError) as e:
            fc.problems = [f"{fc.path}: its footer or schema cannot be checked "
                           f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})"]
    return fc.problems


def value_problems(b: Batch) -> list[str]:
    """Label values outside the documented ones (``structure``, ``format``) in one chunk."""
    out = []
    for name, allowed in (("structure", ls.STRUCTURES), ("format", ls.FORMATS)):
        bad = sorted({str(v) for v in b.cols[name + "_values"] if v not in allowed})
        if bad:
            out.append(f"{b.path}: column {name!r} holds {', '.join(map(_short, bad[:3]))}, "
                       f"expected {' or '.join(allowed)}")
    return out


def problems(b: Batch) -> list[str]:
    """Everything ``integrity`` fails a chunk's file for: the file's own checks (with its first
    chunk) and the chunk's label values."""
    fc = b.file_check
    imported = bool(b.context.get("imported"))
    simulated = bool(b.context.get("simulated"))
    import_columns = bool(b.context.get("import_columns"))
    out = (check_file(fc, imported, simulated, import_columns)
           if isinstance(fc, FileCheck) and not fc.done else [])
    return out + value_problems(b)
