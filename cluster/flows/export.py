"""``holdem export RUN [--out DIR]``: the run's hand log as five tidy Parquet datasets.

    OUT/hands/part-<label>-<batch>.parquet        one row per hand
    OUT/seats/part-<label>-<batch>.parquet        one row per occupied seat of a hand
    OUT/actions/part-<label>-<batch>.parquet      one row per action or forced event
    OUT/pots/part-<label>-<batch>.parquet         one row per pot
    OUT/tournaments/part-<label>-<batch>.parquet  one row per tournament (a simulated run's)
    OUT/export.json                            every part (sha256, bytes, rows), the source
                                               manifest's sha256, the totals: written last

(``OUT`` defaults to ``RUN/tables``; no other folder inside the run is accepted;
``sim.logview.logtables`` builds the first four and documents every column,
``cluster.flows.export_tournaments`` the tournaments, ``cluster.flows.export_operator`` the
operator's fields an imported run's ``hands`` and ``seats`` carry besides.) Each batch file is read
once, its sha256 and size checked against the run's manifest, and parsed from those bytes; it
gives one part of each table, written under a temporary name and renamed (no half-written part
under a final name).
``export.json`` is removed first and written last (atomically): a folder without one holds a
partial export (interrupted) and is not to be read. Parts of a previous export that this one did
not write are removed at the end. ``export_file`` does one batch file and can be fanned out (Ray
tasks for ``workers`` other than 0).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from audits import runfolder
from audits.exactfile import null_problem
from audits.io import AuditInputError, run_context, run_inputs
from audits.runfolder import storage
from audits.runfolder.errors import InputError
from audits.runfolder.storage import Location
from cluster.flows import export_operator, export_tournaments
from sim.logview.logtables import (
    LOG_COLUMNS,
    TABLE_NAMES,
    LogTableError,
    build_tables,
    policy_names,
)
from sim.runspec import POLICY_NAMES

PART_PREFIX = "part-"
EXPORT_FILE = "export.json"  # the export's record, written last: absent = a partial export
EXPORT_FORMAT = "holdem-export"
TABLES_DIR = "tables"  # RUN/tables: the default --out, the one folder inside a run allowed

Expected = tuple[str, int | None] | None  # (sha256, bytes) the manifest records, None: no manifest
EXPORT_TABLES = (*TABLE_NAMES, "tournaments")  # the datasets, one folder each
OPTIONAL_COLUMNS = (*export_tournaments.LOG_COLUMNS, *export_operator.LOG_COLUMNS)


@dataclass(frozen=True)
class ExportContext:
    """What the export of a run's batch file takes from its manifest (``export_context``):
    the policy names, the spec's facts (a simulated run's: its tournaments' buy-in, payouts and
    add-on level) and the audits' run context (an imported run's: the outcome audit's money,
    rake schedule and source formats)."""

    names: tuple[str, ...] = POLICY_NAMES
    facts: Any = None
    audit: dict[str, Any] = field(default_factory=dict)


def export_context(manifest: dict[str, Any] | None) -> ExportContext:
    """The ``ExportContext`` of a run's manifest (None: no manifest). A spec or game the audits
    refuse is bad input (one line)."""
    try:
        ctx = run_context(manifest)
    except AuditInputError as e:
        raise ExportInputError(str(e)) from None
    return ExportContext(policy_names(manifest), ctx.get("facts"), ctx)


class ExportInputError(InputError):
    """Unusable input (missing run, corrupt or foreign batch file) or output: one line, exit 2."""


@dataclass
class ExportResult:
    out: str
    files: int = 0
    hands: int = 0
    rows: dict[str, int] = field(default_factory=lambda: dict.fromkeys(EXPORT_TABLES, 0))
    seconds: float = 0.0
    removed: list[str] = field(default_factory=list)
    parts: list[dict[str, Any]] = field(default_factory=list)
    # an imported run's outcome classes per venue (``export_operator.class_counts``)
    outcome: dict[str, dict[str, int]] = field(default_factory=dict)
    outcome_note: str | None = None  # what the run's audit.json says of them (None: no classes)


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


def _first_line(e: BaseException) -> str:
    return f"{type(e).__name__}: {(str(e).splitlines() or [''])[0]}"


def read_checked(src: Location, expected: Expected) -> bytes:
    """The bytes of one batch file, read once, with the sha256 and size the manifest records
    (``expected``; None: the run has no manifest, nothing to check against) checked."""
    try:
        data = storage.read_bytes(src)
    except (OSError, pa.ArrowException, storage.StorageError) as e:
        raise ExportInputError(f"{src}: cannot read it ({_first_line(e)})") from None
    if expected is None:
        return data
    sha256, size = expected
    if size is not None and len(data) != size:
        raise ExportInputError(f"{src}: {len(data):,} bytes, manifest.json records {size:,}: "
                               "the file changed after the run wrote it (`holdem audit` names "
                               "what changed)")
    got = hashlib.sha256(data).hexdigest()
    if got != sha256:
        raise ExportInputError(f"{src}: sha256 {got[:16]}... differs from manifest.json's "
                               f"{str(sha256)[:16]}...: the file changed after the run wrote it "
                               "(`holdem audit` names what changed)")
    return data


def read_log(src: Location, data: bytes | None = None) -> pa.Table:
    """The columns of one batch file the export needs (parsed from ``data``, its bytes, when
    given); ExportInputError names the file."""
    try:
        pf = (storage.open_parquet(src) if data is None
              else pq.ParquetFile(pa.BufferReader(data)))
        names = pf.schema_arrow.names
    except Exception as e:  # corrupt / not parquet / unreadable
        raise ExportInputError(f"{src}: not a readable Parquet file ({_first_line(e)})") from None
    missing = [c for c in LOG_COLUMNS if c not in names]
    if missing:
        why = (" (written before schema 3, which added player ids: simulate the run again)"
               if missing == ["player_ids"] else "")
        raise ExportInputError(f"{src}: not a hand log this export reads: no column "
                               f"{missing[0]!r}{why}")
    try:
        table = pf.read(columns=list(LOG_COLUMNS) + [c for c in OPTIONAL_COLUMNS
                                                     if c in names])
    except Exception as e:
        raise ExportInputError(f"{src}: unreadable ({_first_line(e)})") from None
    null = null_problem(table)
    if null is not None:
        raise ExportInputError(f"{src}: {null}: a hand log's columns hold none")
    return table


def encode_table(table: pa.Table, compression: str = "zstd") -> pa.Buffer:
    """One table as Parquet bytes: zstd, codes dictionary-encoded, min/max statistics for
    ``hand_id`` alone (what a reader filters row groups by; statistics of every column cost a
    fifth of the encoding, measured)."""
    sink = pa.BufferOutputStream()
    pq.write_table(table.replace_schema_metadata(_file_metadata(table.schema).metadata), sink,
                   compression=compression, write_statistics=["hand_id"])
    return sink.getvalue()


def export_file(run: str, src: str, out: str, expected: Expected = None,
                context: ExportContext = ExportContext()) -> dict[str, Any]:
    """Export one batch file ``src`` of ``run`` into the datasets under ``out``, after
    checking its bytes against ``expected`` (the manifest's sha256 and size); returns
    ``{"source": rel, "part": name, "hands": n, "rows": {table: rows}, "parts": [{"path",
    "table", "sha256", "bytes", "rows"}]}``. A write that fails raises the storage's OSError."""
    name, hands, encoded, outcome = _encode(run, src, read_checked(src, expected), context)
    fs, base = storage.split(out)
    rows = {}
    parts = []
    for t, data, n in encoded:
        fs.create_dir(f"{base}/{t}", recursive=True)
        storage.put_atomic(fs, f"{base}/{t}/{name}", data)
        rows[t] = n
        parts.append({"path": f"{t}/{name}", "table": t, "sha256": hashlib.sha256(data).hexdigest(),
                      "bytes": data.size, "rows": rows[t]})
    return {"source": storage.relative(run, src), "part": name, "hands": hands,
            "rows": rows, "parts": parts, "outcome": outcome}


def encode_parts(run: str, src: str, data: bytes, context: ExportContext = ExportContext()
                 ) -> tuple[str, int, list[tuple[str, Any, int]]]:
    """The export of one batch file's bytes ``data``, in memory: (the parts' file name, the
    hands, [(table, Parquet bytes, rows)] per table); ``context``: the run's
    (``export_context`` of its manifest). ``holdem verify`` re-derives a run's ``tables/``
    with it."""
    return _encode(run, src, data, context)[:3]


def _encode(run: str, src: str, data: bytes, context: ExportContext
            ) -> tuple[str, int, list[tuple[str, Any, int]], dict[str, dict[str, int]]]:
    """``encode_parts`` and the outcome classes per venue of the hands (imported runs)."""
    log = read_log(src, data)
    try:
        tables = build_tables(log, context.names)
    except LogTableError as e:
        raise ExportInputError(f"{src}: {e}") from None
    if export_operator.imported(log.column_names):
        try:
            classes = (export_operator.outcome_classes(storage.as_location(src), data,
                                                       context.audit)
                       if context.audit.get("imported") else None)
        except AuditInputError as e:
            raise ExportInputError(str(e)) from None
        tables = export_operator.with_operator_fields(tables, log, classes)
    tables["tournaments"] = export_tournaments.tournaments_table(
        log, context.facts, context.audit.get("money"), context.audit.get("summaries"))
    return (part_name(run, src), log.num_rows,
            [(t, encode_table(tables[t]), tables[t].num_rows) for t in EXPORT_TABLES],
            export_operator.class_counts(tables["hands"]))


def _export_files(run: str, calls: list[tuple[str, Expected]], out: str, address: str | None,
                  workers: int | None, done: Callable[[dict[str, Any]], None],
                  context: ExportContext = ExportContext()) -> None:
    """``export_file`` of every (file, expected) through ``cluster.fanout``: in this process for
    ``workers`` 0, else Ray tasks, a bounded number in flight, retried (a storage error too). A
    task that fails past its retries is unusable input here (one line naming the file, exit 2)."""
    import contextlib

    from cluster.fanout import TaskFailed, fan_out
    from cluster.ray_runtime import in_flight_window, ray_session

    with (contextlib.nullcontext() if workers == 0
          else ray_session(address, workers)) as session:
        try:
            for _ in fan_out(export_file, [(run, f, out, e, context) for f, e in calls],
                             session=session,
                             window=None if session is None else in_flight_window(session,
                                                                                  workers),
                             retry_errors=(OSError,), passthrough=(ExportInputError,),
                             name=lambda call: f"the export of {call[1]}",
                             on_done=lambda _, r: done(r)):
                pass
        except TaskFailed as e:
            raise ExportInputError(str(e)) from None


def _check_out(root: Location, dest: Location, given: bool) -> None:
    """Refuse an output folder inside the run other than ``RUN/tables`` (the log's readers and
    the audit would take the parts for files of the run), and one that is a file."""
    if given:
        rfs, rpath = storage.split(root)
        dfs, dpath = storage.split(dest)
        if rfs.type_name == dfs.type_name:
            if rfs.type_name == "local":
                rpath, dpath = os.path.realpath(rpath), os.path.realpath(dpath)
            rpath, dpath = rpath.rstrip("/"), dpath.rstrip("/")
            if dpath != f"{rpath}/{TABLES_DIR}" and (dpath == rpath
                                                     or dpath.startswith(rpath + "/")):
                raise ExportInputError(f"--out {dest}: inside the run folder {root}, where only "
                                       f"{TABLES_DIR}/ (the default) may hold the tables; "
                                       "choose it or a folder outside the run")
    _check_tables_folder(root, dest, given)
    try:
        kind = storage.split(dest)[0].get_file_info(storage.split(dest)[1]).type
    except (OSError, pa.ArrowException, storage.StorageError) as e:
        raise ExportInputError(f"--out {dest}: cannot reach it ({_first_line(e)})") from None
    if kind == pafs.FileType.File:
        raise ExportInputError(f"--out {dest}: a file, not a folder")


def _check_tables_folder(root: Location, dest: Location, given: bool) -> None:
    """Refuse ``RUN/tables`` (the default, or given by that name) when it, or a table's folder
    in it, is a symbolic link or not a folder: the parts would be written, and an earlier
    export's removed, in the link's target, outside the run."""
    fs, base = storage.split(dest)
    if given:
        rfs, rpath = storage.split(root)
        parent, name = os.path.split(os.path.normpath(os.path.abspath(base)))
        if (rfs.type_name != fs.type_name or name != TABLES_DIR
                or os.path.realpath(parent) != os.path.realpath(rpath)):
            return  # a folder outside the run: the user's choice
    for sub in ("", *EXPORT_TABLES):
        why = storage.not_folder(fs, f"{base}/{sub}" if sub else base)
        if why is not None:
            where = storage.join(dest, sub) if sub else dest
            raise ExportInputError(f"{where}: {why}; the run's {TABLES_DIR}/ and its table "
                                   "folders must be plain folders (nothing is written through "
                                   "a link); remove it and export again")


def _expected(root: Location, files: list[Location], m: dict[str, Any] | None,
              msha: str | None) -> tuple[list[Expected], dict[str, Any] | None]:
    """What the manifest ``m`` (read with the files, ``msha`` the sha256 of its bytes) records
    of each file ((sha256, bytes); None without a manifest) and the manifest's own record (path
    and sha256) for export.json. A shuffle run is refused."""
    labels = {(runfolder.parse_batch_relpath(storage.relative(root, f)) or ("",))[0]
              for f in files}
    if (m or {}).get("format") == "holdem-shuffle-run" or runfolder.DECK_LABEL in labels:
        raise ExportInputError(f"{root}: a deck log (a `holdem shuffle` run), not a hand log: "
                               "there are no hands to export")
    if m is None:
        return [None] * len(files), None
    records = {f["path"]: f for f in m.get("files") or [] if isinstance(f, dict)}
    out: list[Expected] = []
    for f in files:
        rec = records.get(storage.relative(root, f), {})
        size = rec.get("bytes")
        out.append((str(rec.get("sha256")), size if isinstance(size, int) else None))
    return out, {"path": runfolder.MANIFEST, "sha256": msha}


def _export_record(res: ExportResult, manifest: dict[str, Any] | None,
                   sources: dict[str, str]) -> str:
    """export.json: every part with its sha256, bytes and rows (in path order), what it was made
    from (the source manifest's sha256; each part's batch file), the totals."""
    parts = sorted(res.parts, key=lambda p: p["path"])
    return json.dumps({
        "format": EXPORT_FORMAT,
        "manifest": manifest,
        "parts": [{**p, "source": sources[p["path"]]} for p in parts],
        "totals": {"files": res.files, "hands": res.hands, "rows": dict(res.rows),
                   "parts": len(parts), "bytes": sum(p["bytes"] for p in parts)},
        **({"outcome": {"per_venue": res.outcome, "note": res.outcome_note}}
           if res.outcome else {}),
    }, indent=2) + "\n"


def run_export(run: str | os.PathLike[str], out: str | os.PathLike[str] | None = None, *,
               workers: int | None = 0, address: str | None = None,
               on_file: Callable[[int], None] | None = None,
               progress: bool = False) -> ExportResult:
    """Export every batch file of ``run`` (``audits.io.run_files``, each checked against the
    manifest) to ``out`` (default ``RUN/tables``; no other folder inside the run), then write
    ``export.json`` (removed first). ``workers`` 0: in this process; else Ray tasks (None: every
    local CPU). ``progress``: a progress bar of hands on stderr; ``on_file(hands)`` after each
    file. ExportInputError for unusable input or output (one line)."""
    t0 = time.perf_counter()
    root = storage.as_location(run)
    try:  # the one lister, once
        log = run_inputs(root)
    except AuditInputError as e:
        raise ExportInputError(str(e)) from None
    files = log.locations()
    if progress:
        from audits.runner import count_hands
        from cluster.progress import Progress

        with Progress(count_hands(files), desc="export") as bar:
            def both(hands: int) -> None:
                bar.update(hands)
                if on_file is not None:
                    on_file(hands)

            return _export_run(root, log, files, out, t0, workers, address, both)
    return _export_run(root, log, files, out, t0, workers, address, on_file)


def _export_run(root: Location, log: runfolder.LogFiles, files: list[Location],
                out: str | os.PathLike[str] | None, t0: float, workers: int | None,
                address: str | None, on_file: Callable[[int], None] | None) -> ExportResult:
    dest = storage.as_location(out) if out is not None else storage.join(root, TABLES_DIR)
    _check_out(root, dest, out is not None)  # exit 2 first: an output that is a link or a pipe
    log.require_listed()  # an unlisted file in log/ fails the export as it fails the audit
    expected, manifest = _expected(root, files, log.manifest, log.manifest_sha256)
    context = export_context(log.manifest)
    res = ExportResult(out=str(dest))
    fs, base = storage.split(dest)
    sources: dict[str, str] = {}

    def done(r: dict[str, Any]) -> None:
        res.files += 1
        res.hands += r["hands"]
        for t, n in r["rows"].items():
            res.rows[t] += n
        res.parts.extend(r["parts"])
        for venue, per in r["outcome"].items():
            into = res.outcome.setdefault(venue, {})
            for cls, n in per.items():
                into[cls] = into.get(cls, 0) + n
        sources.update((p["path"], r["source"]) for p in r["parts"])
        if on_file is not None:
            on_file(r["hands"])

    try:
        fs.create_dir(base, recursive=True)
        if fs.get_file_info(f"{base}/{EXPORT_FILE}").type == pafs.FileType.File:
            fs.delete_file(f"{base}/{EXPORT_FILE}")  # first: from here on, a partial export
        before = {t: [r for r in storage.list_files(storage.join(dest, t))
                      if r.startswith(PART_PREFIX) and "/" not in r] for t in EXPORT_TABLES}
        _export_files(str(root), [(str(f), e) for f, e in zip(files, expected, strict=True)],
                      str(dest), address, workers, done, context)
        written = set(sources)
        for t, names in before.items():  # parts of an earlier export of other files
            for name in names:
                if f"{t}/{name}" not in written:
                    fs.delete_file(f"{base}/{t}/{name}")
                    res.removed.append(f"{t}/{name}")
        if res.outcome:
            res.outcome = {v: dict(sorted(per.items())) for v, per in sorted(res.outcome.items())}
            res.outcome_note = export_operator.audit_note(_audit_record(root), res.outcome)
        storage.put_atomic(fs, f"{base}/{EXPORT_FILE}",
                           _export_record(res, manifest, sources).encode())  # last
    except (OSError, pa.ArrowException) as e:
        raise ExportInputError(f"{dest}: cannot write the tables there "
                               f"({_first_line(e)})") from None
    res.seconds = time.perf_counter() - t0
    return res


def _audit_record(root: Location) -> dict[str, Any] | None:
    """The run's audit.json (None: absent or unreadable: no verdict to compare with)."""
    try:
        data = json.loads(storage.read_bytes(storage.join(root, runfolder.AUDIT_FILE)))
    except (OSError, ValueError, RecursionError, pa.ArrowException, storage.StorageError):
        return None
    return data if isinstance(data, dict) else None
