"""``holdem export RUN [--out DIR]``: the run's hand log as four tidy Parquet datasets.

    OUT/hands/part-<label>-<batch>.parquet     one row per hand
    OUT/seats/part-<label>-<batch>.parquet     one row per occupied seat of a hand
    OUT/actions/part-<label>-<batch>.parquet   one row per action or forced event
    OUT/pots/part-<label>-<batch>.parquet      one row per pot

(``OUT`` defaults to ``RUN/tables``; ``sim.tables`` builds the tables and documents every
column.) Each batch file of the run gives one part of each table, written under a temporary
name and renamed (no half-written part under a final name); parts of a previous export that
this one did not write are removed at the end. ``export_file`` does one batch file and can be
fanned out (Ray tasks for ``workers`` other than 0).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from audits import runfolder, storage
from audits.io import AuditInputError, run_files
from audits.storage import Location
from sim.tables import LOG_COLUMNS, TABLE_NAMES, LogTableError, build_tables

PART_PREFIX = "part-"


class ExportInputError(ValueError):
    """Unusable input (missing run, corrupt or foreign batch file): one line, exit code 2."""


@dataclass
class ExportResult:
    out: str
    files: int = 0
    hands: int = 0
    rows: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TABLE_NAMES, 0))
    seconds: float = 0.0
    removed: list[str] = field(default_factory=list)


def part_name(run: Location, src: Location) -> str:
    """``part-<label>-<batch>.parquet`` of the batch file ``log/<label>/batch-<batch>.parquet``
    (``audits.runfolder`` names them)."""
    rel = storage.relative(run, src)
    parsed = runfolder.parse_batch_relpath(rel)
    if parsed is None:
        raise ExportInputError(f"{src}: not a batch file of the run ({runfolder.LAYOUT})")
    label, index = parsed
    return f"{PART_PREFIX}{label}-{index:05d}.parquet"


def _file_metadata(schema: pa.Schema) -> pa.Schema:
    """The schema with every column's unit and doc also in the file's key-value metadata
    (``holdem.column.<name>``), which readers without Arrow's field metadata show (DuckDB's
    ``parquet_kv_metadata``)."""
    meta = dict(schema.metadata or {})
    for f in schema:
        fm = f.metadata or {}
        meta[f"holdem.column.{f.name}".encode()] = (fm.get(b"unit", b"") + b"; "
                                                    + fm.get(b"doc", b""))
    return schema.with_metadata(meta)


def read_log(src: Location) -> pa.Table:
    """The columns of one batch file the export needs; ExportInputError names the file."""
    try:
        pf = storage.open_parquet(src)
        names = pf.schema_arrow.names
    except Exception as e:  # corrupt / not parquet / unreadable
        raise ExportInputError(f"{src}: not a readable Parquet file ({type(e).__name__}: "
                               f"{(str(e).splitlines() or [''])[0]})") from None
    missing = [c for c in LOG_COLUMNS if c not in names]
    if missing:
        why = (" (written before schema 3, which added player ids: simulate the run again)"
               if missing == ["player_ids"] else "")
        raise ExportInputError(f"{src}: not a hand log this export reads: no column "
                               f"{missing[0]!r}{why}")
    try:
        return pf.read(columns=list(LOG_COLUMNS))
    except Exception as e:
        raise ExportInputError(f"{src}: unreadable ({type(e).__name__}: "
                               f"{(str(e).splitlines() or [''])[0]})") from None


def encode_table(table: pa.Table, compression: str = "zstd") -> pa.Buffer:
    """One table as Parquet bytes: zstd, codes dictionary-encoded, min/max statistics for
    ``hand_id`` alone (what a reader filters row groups by; statistics of every column cost a
    fifth of the encoding, measured)."""
    sink = pa.BufferOutputStream()
    pq.write_table(table.replace_schema_metadata(_file_metadata(table.schema).metadata), sink,
                   compression=compression, write_statistics=["hand_id"])
    return sink.getvalue()


def export_file(run: str, src: str, out: str) -> dict[str, Any]:
    """Export one batch file ``src`` of ``run`` into the four datasets under ``out``; returns
    ``{"part": name, "hands": n, "rows": {table: rows}}``."""
    log = read_log(src)
    try:
        tables = build_tables(log)
    except LogTableError as e:
        raise ExportInputError(f"{src}: {e}") from None
    name = part_name(run, src)
    fs, base = storage.split(out)
    rows = {}
    for t in TABLE_NAMES:
        fs.create_dir(f"{base}/{t}", recursive=True)
        storage.put_atomic(fs, f"{base}/{t}/{name}", encode_table(tables[t]).to_pybytes())
        rows[t] = tables[t].num_rows
    return {"part": name, "hands": log.num_rows, "rows": rows}


def _export_files(run: str, files: list[str], out: str, address: str | None,
                  workers: int | None, done: Callable[[dict[str, Any]], None]) -> None:
    """``export_file`` of every file through ``cluster.fanout``: in this process for ``workers``
    0, else Ray tasks, a bounded number in flight, retried (a storage error too). A task that
    fails past its retries is unusable input here (one line naming the file, exit 2)."""
    import contextlib

    from cluster.fanout import TaskFailed, fan_out
    from cluster.ray_runtime import in_flight_window, ray_session

    with (contextlib.nullcontext() if workers == 0
          else ray_session(address, workers)) as session:
        try:
            for _ in fan_out(export_file, [(run, f, out) for f in files], session=session,
                             window=None if session is None else in_flight_window(session,
                                                                                  workers),
                             retry_errors=(OSError,), passthrough=(ExportInputError,),
                             name=lambda call: f"the export of {call[1]}",
                             on_done=lambda _, r: done(r)):
                pass
        except TaskFailed as e:
            raise ExportInputError(str(e)) from None


def run_export(run: str | os.PathLike[str], out: str | os.PathLike[str] | None = None, *,
               workers: int | None = 0, address: str | None = None,
               on_file: Callable[[int], None] | None = None) -> ExportResult:
    """Export every batch file of ``run`` (``audits.io.run_files``) to ``out`` (default
    ``RUN/tables``). ``workers`` 0: in this process; else Ray tasks (None: every local CPU).
    ExportInputError for unusable input."""
    t0 = time.perf_counter()
    root = storage.as_location(run)
    try:
        files = run_files(root)
    except AuditInputError as e:
        raise ExportInputError(str(e)) from None
    dest = storage.as_location(out) if out is not None else storage.join(root, "tables")
    res = ExportResult(out=str(dest))
    fs, base = storage.split(dest)
    before = {t: [r for r in storage.list_files(storage.join(dest, t))
                  if r.startswith(PART_PREFIX) and "/" not in r] for t in TABLE_NAMES}
    written: set[str] = set()

    def done(r: dict[str, Any]) -> None:
        res.files += 1
        res.hands += r["hands"]
        for t, n in r["rows"].items():
            res.rows[t] += n
        written.add(r["part"])
        if on_file is not None:
            on_file(r["hands"])

    _export_files(str(root), [str(f) for f in files], str(dest), address, workers, done)
    for t, names in before.items():  # parts of an earlier export of other files
        for name in names:
            if name not in written:
                fs.delete_file(f"{base}/{t}/{name}")
                res.removed.append(f"{t}/{name}")
    res.seconds = time.perf_counter() - t0
    return res
