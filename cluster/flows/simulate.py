"""``holdem simulate``: fan a ``RunSpec`` out over Ray workers into one Parquet log.

Layout of a run folder (a local path or any pyarrow filesystem URI: ``s3://``, ``gs://``,
``file://``)::

    OUT/manifest.json                                  (cluster.flows.manifest)
    OUT/log/<label>/batch-<index:05d>.parquet          one file per batch, LZ4, one row per hand

(names, listing, manifest I/O and atomic writes: ``audits.runfolder``; ``OUT/log`` reads as one
Parquet dataset in pandas, polars and DuckDB). A folder of the old layout
(``structure=<label>/...``) is refused with a one-line pointer to ``holdem migrate``.

Each batch is one Ray task: ``sim.batch.simulate_batch`` for (spec, structure, batch index),
encoded to Parquet in memory, written under a temporary name in the destination folder and then
renamed, so a file under a final name is always complete. The task returns the file's row count,
sha256, rare-path counts and timings; the driver keeps a bounded number of tasks in flight and
rewrites the manifest as they finish. A batch's bytes depend only on (spec, structure, index):
the same command gives the same files whatever the number of workers.

Resume: running the same command again keeps every batch file whose sha256 matches the manifest
(or, when the manifest lost it, that reads as a valid Parquet file of this run with the expected
row count) and simulates the rest, once the engine is shown to play the kept hands the same way
(one kept batch simulated again, its per-hand digests compared: never mix two engines' hands).
Stale temporary files are removed. A batch file that fails its check is simulated again and
overwritten (with a note on stderr). A folder made with another spec, or holding a file that is
not part of the run, is refused (``RunFolderError``).

Multi-node clusters: workers write straight to ``OUT``, so it must be storage every node sees
(an object store URI, or a shared mount).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from audits import runfolder
from audits.runfolder import RunFolder, RunFolderError, sha256_bytes
from audits.runfolder.storage import Location
from cluster.flows.manifest import (
    COMPRESSION,
    UNCOMPRESSED_COLUMNS,
    FileRecord,
    Manifest,
    now,
    read_manifest,
    write_manifest,
)
from cluster.progress import Progress, measure_peak_rss_mb
from sim.config import Structure
from sim.runspec import RunSpec

# Parquet key-value metadata written into every batch file (bytes keys, as Arrow stores them)
META_RUN_ID = b"holdem.run_id"
META_STRUCTURE = b"holdem.structure"
META_BATCH = b"holdem.batch"
META_COUNTS = b"holdem.counts"

MANIFEST_EVERY_SECONDS = 1.0  # at most one manifest rewrite per second (plus the final one)


def batch_relpath(structure: Structure, batch_index: int) -> str:
    """Path of a batch file relative to the run folder (``audits.runfolder.batch_relpath``)."""
    return runfolder.batch_relpath(structure.label, batch_index)


# ---------------------------------------------------------------- the batch task


STATS_COLUMNS = ["hand_id", "table_id", "hand_no"]
DICT_COLUMNS = ["run_id", "structure", "format", "generator", "fault"]
# integer columns stored DELTA_BINARY_PACKED (a Parquet 2.0 encoding every reader knows:
# pyarrow, pandas, polars, DuckDB, Spark): measured per column, write + read 25% faster than
# PLAIN under zstd; PLAIN kept where delta does not pay (random digests, hand ranks, mostly-zero
# or tiny columns). Under LZ4 the delta-packed columns are as small as under zstd.
PLAIN_INT_COLUMNS = frozenset({"digest", "showdown_ranks", "returned", "policy",
                               "showdown_seats"})


def _column_encoding(version: int = 3) -> dict[str, str]:
    from sim.schema import hand_schema

    out = {}
    for f in hand_schema(version):
        if f.name in PLAIN_INT_COLUMNS or f.name in DICT_COLUMNS:
            continue
        if pa.types.is_integer(f.type):
            out[f.name] = "DELTA_BINARY_PACKED"
        elif pa.types.is_list(f.type) and pa.types.is_integer(f.type.value_type):
            out[f"{f.name}.list.element"] = "DELTA_BINARY_PACKED"
    return out


def _leaf_paths(name: str, typ: pa.DataType) -> list[str]:
    """The Parquet column paths of one Arrow field (lists written compliant: ``.list.element``)."""
    if pa.types.is_list(typ):
        return _leaf_paths(f"{name}.list.element", typ.value_type)
    if pa.types.is_struct(typ):
        return [p for f in typ for p in _leaf_paths(f"{name}.{f.name}", f.type)]
    return [name]


def _column_compression(version: int = 3) -> dict[str, str]:
    """Every leaf column's codec: LZ4 (raw), none for the incompressible ``deck`` (a shuffle:
    zstd saves 28%, at 4x its decoding time) and ``digest`` (hashes). Measured per column on
    200,000 hands: LZ4 decodes the log's audited columns 0.11 µs/hand (18%) faster than zstd at
    level 1 and encodes 0.2 µs/hand faster, for 34% more bytes (108 -> 144 B/hand: the actions
    blob 14 -> 26, deck 38 -> 52, pots 2 -> 6; the delta-packed columns stay their size).
    Schema version 4's binary columns are LZ4 and PLAIN (the A/B of docs/benchmarks.md: PLAIN
    encodes faster than DELTA_LENGTH_BYTE_ARRAY, no dictionary)."""
    from sim.schema import hand_schema

    return {p: "none" if f.name in UNCOMPRESSED_COLUMNS else COMPRESSION
            for f in hand_schema(version) for p in _leaf_paths(f.name, f.type)}


# rows a row group holds at most: pyarrow's default, given explicitly so that the reproduction
# of ``holdem certify`` knows the row groups the writer makes (``cluster.flows.reproduce_values``)
ROW_GROUP_ROWS = 1024 * 1024
COLUMN_ENCODING = _column_encoding()
COLUMN_COMPRESSION = _column_compression()
# each log schema version's writer settings (version 3's are the two above)
ENCODINGS = {3: (COLUMN_ENCODING, COLUMN_COMPRESSION), 4: (_column_encoding(4),
                                                          _column_compression(4))}


def table_version(table: pa.Table) -> int:
    """The log schema version of a hand table (its ``holdem.schema_version``)."""
    raw = (table.schema.metadata or {}).get(b"holdem.schema_version", b"3")
    return int(raw)


def encode_batch(table: pa.Table, spec: RunSpec, structure: Structure, batch_index: int,
                 counts: dict[str, int]) -> pa.Buffer:
    """The Parquet bytes of one batch (deterministic: same table, same bytes), with the writer
    settings of the table's schema version."""
    meta = dict(table.schema.metadata or {})
    meta.update({
        META_RUN_ID: spec.fingerprint().encode(),
        META_STRUCTURE: structure.label.encode(),
        META_BATCH: str(batch_index).encode(),
        META_COUNTS: json.dumps(counts, sort_keys=True).encode(),
    })
    return encode_table(table.replace_schema_metadata(meta))


def encode_table(table: pa.Table) -> pa.Buffer:
    """The Parquet bytes of a batch's table whose key-value metadata is the file's (the writer
    settings of its schema version; ``holdem migrate --to 4`` encodes a converted file so)."""
    encoding, compression = ENCODINGS[table_version(table)]
    sink = pa.BufferOutputStream()
    # statistics only where readers filter (hand lookups), dictionaries only for the constant
    # string columns: 11% faster to write than the defaults, same content
    pq.write_table(table, sink, compression=compression,
                   write_statistics=STATS_COLUMNS, row_group_size=ROW_GROUP_ROWS,
                   use_dictionary=DICT_COLUMNS, column_encoding=encoding)
    return sink.getvalue()


@contextlib.contextmanager
def _no_gc_pauses() -> Iterator[None]:
    """No cyclic garbage collection while a batch is built: the batch makes few cycles, but its
    allocations would trigger full collections over every object Ray and numba created (up to
    10% of a batch, measured with perf). The objects alive before the first batch are frozen
    out of later collections."""
    global _FROZEN
    if not _FROZEN:
        gc.collect()
        gc.freeze()
        _FROZEN = True
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


_FROZEN = False
BOT_ERROR = "bot_error"  # write_batch's result when a Python bot stopped the batch


def simulated_batch(spec: RunSpec, structure: Structure, batch_index: int,
                    version: int | None = None) -> tuple[pa.Buffer, int, dict[str, int]]:
    """One batch simulated and encoded as ``holdem simulate`` writes it: (the file's bytes, its
    hands, its rare-path counts). A batch's bytes depend only on (spec, structure, index, log
    schema ``version``): ``holdem certify`` and ``holdem verify`` re-simulate a run with it
    (``cluster.flows.reproduce``)."""
    table, hands, counts = simulated_table(spec, structure, batch_index, version)
    with _no_gc_pauses():
        return encode_batch(table, spec, structure, batch_index, counts), hands, counts


def simulated_table(spec: RunSpec, structure: Structure, batch_index: int,
                    version: int | None = None) -> tuple[pa.Table, int, dict[str, int]]:
    """One batch simulated, before its encoding: (the table ``encode_batch`` encodes, its
    hands, its rare-path counts) in the log schema ``version`` (default
    ``sim.schema.SCHEMA_VERSION``); ``holdem certify`` compares it with the file's decoded
    values (``cluster.flows.reproduce_values``)."""
    from sim.batch import simulate_batch
    from sim.schema import SCHEMA_VERSION, hand_schema

    version = SCHEMA_VERSION if version is None else version
    with _no_gc_pauses():
        res = simulate_batch(spec, structure, batch_index, version)
        table = res.table
        if not table.schema.equals(hand_schema(version), check_metadata=False):
            raise RuntimeError(f"simulate_batch({structure.label}, {batch_index}): the table's "
                               f"schema differs from sim.schema's of version {version}")
        expected = spec.batch_hands(batch_index)
        if table.num_rows != expected or res.hands != expected:
            raise RuntimeError(f"simulate_batch({structure.label}, {batch_index}): "
                               f"{table.num_rows} rows / {res.hands} hands, expected {expected}")
        counts = {str(k): int(v) for k, v in sorted(res.counts.items())}
        return table, res.hands, counts


def write_batch(spec: RunSpec, structure: Structure, batch_index: int,
                folder: RunFolder, version: int | None = None) -> dict[str, Any]:
    """Simulate one batch and write its file (the body of the Ray task) in the log schema
    ``version``. Returns the file's ``FileRecord`` as a dict."""
    from sim.pybots import BotError

    t0 = time.perf_counter()
    try:
        data, hands, counts = simulated_batch(spec, structure, batch_index, version)
    except BotError as e:  # a Python bot's fault, the same on every try: returned, not retried
        return {BOT_ERROR: str(e)}
    rel = batch_relpath(structure, batch_index)
    folder.write(rel, data)
    return FileRecord(
        path=rel, structure=structure.label, batch=batch_index, hands=hands,
        rows=hands, bytes=len(data), sha256=sha256_bytes(data),
        counts=counts, seconds=round(time.perf_counter() - t0, 4),
        peak_rss_mb=measure_peak_rss_mb(),
    ).to_dict()


# ---------------------------------------------------------------- checking the run folder


def _check_folder(folder: RunFolder, spec: RunSpec, say: Callable[[str], None],
                  version: int | None = None) -> tuple[Manifest, int]:
    """Verify what the run folder already holds. Returns the manifest to continue (its files:
    the batches that need no work; its log schema version: ``version``, else the kept run's,
    else the default) and the number of stale temporary files removed. A run whose kept
    manifest names another schema version than ``version`` is refused (one run, one schema;
    ``holdem migrate RUN --to 4`` converts a finished one)."""
    label = folder.label
    expected = {batch_relpath(s, b): (s, b) for s, b in spec.plan()}
    # the owner's rule: the run's products (audit, report, export's tables/) are kept
    kept = folder.resume(expected, fingerprint=spec.fingerprint(), spec=spec.to_dict(),
                         read=read_manifest)
    old, found, stale = kept.manifest, kept.found, kept.stale
    if stale:
        say(f"removed {stale} stale temporary file(s) of an interrupted run")

    kept_version = (old or {}).get("schema_version")
    if (version is not None and kept_version is not None and found
            and kept_version != version):
        raise RunFolderError(f"run folder {label}: its files are of log schema version "
                             f"{kept_version}, not {version}: one run holds one schema (finish "
                             f"it with --log-version {kept_version}, then `holdem migrate "
                             f"{label} --to {version}`)")
    if version is None and found and isinstance(kept_version, int):
        version = kept_version
    manifest = Manifest(spec, created=old.get("created") if old else None,
                        schema_version=version)
    made_by = str((old or {}).get("git_commit") or "unknown")
    recorded = {f["path"]: f for f in (old or {}).get("files", []) if "path" in f}
    for rel in found:
        structure, batch = expected[rel]
        data = folder.read_bytes(rel)
        sha = sha256_bytes(data)
        rec = recorded.get(rel)
        if rec is not None:
            if rec.get("sha256") == sha:
                manifest.add(FileRecord.from_dict(rec))
            else:
                say(f"{rel}: sha256 does not match the manifest; simulating it again")
            continue
        recovered = _recover(data, sha, rel, spec, structure, batch, label, say)
        if recovered is not None:
            manifest.add(recovered)
    if manifest.files and len(manifest.files) < len(expected):  # kept batches and new ones
        _check_same_engine(folder, spec, manifest, made_by)
    return manifest, stale


def _check_same_engine(folder: RunFolder, spec: RunSpec, manifest: Manifest,
                       made_by: str) -> None:
    """Refuse to resume a run with an engine that plays its hands differently: the kept batch
    with the fewest hands is simulated again here and its per-hand digests compared with the
    file's (content, not bytes: another pyarrow may encode the same hands differently). A run
    with a non-reproducible generator cannot be checked and is kept as it is."""
    if spec.generator != "philox":
        return
    from sim.batch import simulate_batch

    rec = min(manifest.files.values(), key=lambda r: (r.hands, r.path))
    st = Structure.parse(rec.structure)
    label = folder.label
    with folder.fs.open_input_file(folder.path(rec.path)) as f:
        pf = pq.ParquetFile(f)
        if "digest" not in pf.schema_arrow.names:
            raise RunFolderError(f"run folder {label}: {rec.path} has no digest column (a log "
                                 "of an older holdem): resuming would mix two log schemas; use "
                                 "another --out")
        stored = pf.read(columns=["hand_id", "digest"])
    again = simulate_batch(spec, st, rec.batch, manifest.schema_version).table
    if stored.column("digest").equals(again.column("digest")):
        return
    a = stored.column("digest").to_numpy()
    b = again.column("digest").to_numpy()
    i = int((a != b).argmax()) if len(a) == len(b) else 0
    hand = stored.column("hand_id")[i].as_py() if len(a) else None
    raise RunFolderError(
        f"run folder {label}: this engine does not play {rec.path} as it was written (hand "
        f"{hand} differs; the run was made by commit {made_by[:12]}): resuming would mix two "
        "engines' hands; use another --out, or remove the folder to start over")


def _recover(data: bytes, sha: str, rel: str, spec: RunSpec, structure: Structure, batch: int,
             label: str, say: Callable[[str], None]) -> FileRecord | None:
    """A batch file the manifest does not list (the run was killed before recording it): keep it
    if it is a valid Parquet file of this run with the expected rows, else None (redo it)."""
    try:
        md = pq.read_metadata(pa.BufferReader(data))
        meta = md.schema.to_arrow_schema().metadata or {}
    except (pa.ArrowException, OSError, ValueError) as e:
        say(f"{rel}: not a readable Parquet file ({str(e).splitlines()[0]}); simulating it again")
        return None
    run_id = meta.get(META_RUN_ID, b"").decode(errors="replace")
    if run_id != spec.fingerprint():
        raise RunFolderError(f"run folder {label}: {rel} was made with a different config "
                             f"(run id {run_id or 'missing'}, this config {spec.fingerprint()})")
    if (meta.get(META_STRUCTURE) != structure.label.encode()
            or meta.get(META_BATCH) != str(batch).encode()):
        say(f"{rel}: its metadata names another batch; simulating it again")
        return None
    rows = md.num_rows
    if rows != spec.batch_hands(batch):
        say(f"{rel}: {rows} rows, expected {spec.batch_hands(batch)}; simulating it again")
        return None
    try:
        pq.read_table(pa.BufferReader(data))  # every page decodes (checksums, compression)
        raw = runfolder.parse_json(meta.get(META_COUNTS, b"{}"))
        counts = {str(k): int(v) for k, v in raw.items()}
    except (pa.ArrowException, OSError, ValueError, AttributeError, TypeError) as e:
        say(f"{rel}: does not decode ({str(e).splitlines()[0]}); simulating it again")
        return None
    return FileRecord(path=rel, structure=structure.label, batch=batch, hands=rows, rows=rows,
                      bytes=len(data), sha256=sha, counts=counts)


# ---------------------------------------------------------------- reading a run


def run_dataset(out: str | os.PathLike[str], filesystem: pafs.FileSystem | None = None) -> Any:
    """The run's rows as a ``pyarrow.dataset.Dataset`` (one fragment per batch file of the run
    folder's one lister, ``RunFolder.log_files``; ``UnlistedFileError`` for a log file the
    manifest does not list, as the integrity audit fails it)."""
    import pyarrow.dataset as ds

    logs = RunFolder.open(out, filesystem).log_files().require_listed()
    return ds.dataset(logs.paths(), filesystem=logs.folder.fs, format="parquet")


# ---------------------------------------------------------------- the driver


def _quiet(text: str) -> None:
    """``--quiet``: no progress notes."""


def _stderr(text: str) -> None:
    print(f"holdem: {text}", file=sys.stderr, flush=True)


def refuse_unreproducible_batches(out: Location | os.PathLike[str], generator: str) -> None:
    """RunFolderError when ``out`` already holds batch files and the generator cannot
    re-simulate them (os-chacha20): resuming would keep batches that this command did not
    make and cannot check (another run's, swapped in), so such a folder is refused rather than
    resumed, by ``holdem simulate`` and ``holdem certify`` alike; a new --out starts the run
    over."""
    from audits.runfolder import parse_batch_relpath

    folder = RunFolder.open(out)
    if not folder.exists():
        return
    batches = [rel for rel in folder.listing() if parse_batch_relpath(rel)]
    if batches:
        raise RunFolderError(
            f"run folder {folder.label} already holds {len(batches)} batch file(s) (e.g. "
            f"{batches[0]}): generator {generator} cannot re-simulate them, so this command "
            "cannot tell they are its own and never resumes them; use a new --out")


def run_simulate(
    spec: RunSpec,
    out: str | os.PathLike[str],
    *,
    address: str | None = None,
    workers: int | None = None,
    progress: bool = True,
    filesystem: pafs.FileSystem | None = None,
    log_version: int | None = None,
) -> Manifest:
    """Simulate every batch of ``spec`` into the run folder ``out``; returns the manifest (typed:
    ``cluster.flows.manifest.Manifest``, as written to manifest.json: its ``to_dict``).

    ``workers=0`` runs the batches in this process without Ray. Otherwise the batches are Ray
    tasks: on the Ray already initialised in this process, else on the cluster at ``address``
    (or ``$RAY_ADDRESS``), else on an embedded local Ray with ``workers`` CPUs (default: all).
    ``workers`` also bounds the tasks running at once on an existing Ray or cluster.
    ``filesystem``: an explicit pyarrow filesystem, ``out`` then being a path inside it.
    ``log_version``: the log schema version of the files (3 or 4; default: a resumed run's, else
    ``sim.schema.SCHEMA_VERSION``). Raises ``RunFolderError`` for a folder that cannot be used
    (see the module docstring).
    """
    label = os.fspath(out)
    if not spec.reproducible and filesystem is None:
        refuse_unreproducible_batches(out, spec.generator)
    folder = RunFolder.open(out, filesystem)
    try:
        manifest, _ = _check_folder(folder, spec, _stderr, log_version)
        plan = spec.plan()
        todo = [(s, b) for s, b in plan if batch_relpath(s, b) not in manifest.files]
        reused = len(plan) - len(todo)
        manifest.status = "running"
        manifest.set_runtime("in-process" if workers == 0 else "not started", workers, None)
        write_manifest(folder, manifest)
    except OSError as e:  # an unwritable or unreachable output (pyarrow's errors are OSErrors)
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise RunFolderError(f"output {label}: cannot write the run folder there "
                             f"({type(e).__name__}: {first})") from None

    total = spec.hands * len(spec.structures)
    done_hands = sum(r.hands for r in manifest.files.values())
    t0 = time.perf_counter()
    simulated: list[FileRecord] = []
    last_write = time.monotonic()

    with Progress(total, done=done_hands, enabled=progress) as bar:
        if reused:
            bar.note(f"holdem: resuming {label}: {reused} of {len(plan)} batches already done")

        def finished(d: dict[str, Any]) -> None:
            nonlocal last_write
            if BOT_ERROR in d:
                from sim.pybots import BotError

                raise BotError(d[BOT_ERROR])
            rec = FileRecord.from_dict(d)
            manifest.add(rec)
            manifest.written[rec.path] = rec.sha256
            simulated.append(rec)
            bar.update(rec.hands)
            if time.monotonic() - last_write >= MANIFEST_EVERY_SECONDS:
                write_manifest(folder, manifest)
                last_write = time.monotonic()

        try:
            if todo:
                _run_batches(spec, todo, folder, address, workers, manifest, finished,
                             bar.note if progress else _quiet)
        except BaseException as e:
            manifest.status = "failed" if isinstance(e, Exception) else "running"
            if isinstance(e, Exception):
                manifest.error = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            manifest.set_timings(time.perf_counter() - t0, simulated, reused)
            write_manifest(folder, manifest)
            raise

    missing = [batch_relpath(s, b) for s, b in plan if batch_relpath(s, b) not in manifest.files]
    if missing:  # pragma: no cover - every task either finished or raised
        raise RuntimeError(f"run incomplete: {len(missing)} batches missing, e.g. {missing[0]}")
    manifest.status = "complete"
    manifest.finished = manifest.finished or now()
    manifest.set_timings(time.perf_counter() - t0, simulated, reused)
    write_manifest(folder, manifest)
    return manifest


def _run_batches(spec: RunSpec, todo: list[tuple[Structure, int]], folder: RunFolder,
                 address: str | None, workers: int | None, manifest: Manifest,
                 finished: Callable[[dict[str, Any]], None],
                 say: Callable[[str], None]) -> None:
    """The batches through ``cluster.fanout`` (in this process when ``workers == 0``, else as
    Ray tasks), each finished one handed to ``finished`` as it lands. A task that returns a
    Python bot's error (``BOT_ERROR``) stops the run with it (``sim.pybots.BotError``)."""
    from cluster.fanout import fan_out
    from cluster.ray_runtime import in_flight_window, ray_session

    # write_batch is looked up here, at the call: tests/cluster/faulttest.py slows it down
    calls = [(spec, s, b, folder, manifest.schema_version) for s, b in todo]
    with (contextlib.nullcontext() if workers == 0
          else ray_session(address, workers)) as session:
        if session is not None:
            manifest.set_runtime(session.where, workers, session.cpus)
        for _ in fan_out(write_batch, calls, session=session,
                         window=None if session is None else in_flight_window(session, workers),
                         name=lambda call: f"batch {batch_relpath(call[1], call[2])}",
                         label="batch", on_done=lambda _, d: finished(d), say=say):
            pass
        if session is not None:
            manifest.runtime["worker_code"] = dict(session.worker_code)
