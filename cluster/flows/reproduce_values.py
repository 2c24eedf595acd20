"""``holdem certify``'s reproduction in the audit's read (``--reproduce values``, the default):
each planned batch re-simulated inside the audit's task of its file and compared with what that
task decoded, with no second encode.

The audit's map (``audits.runner.map_file``) reads a batch file's bytes once, hashes them and
decodes them; here, in the same task, the batch is simulated again from the spec
(``cluster.flows.simulate.simulated_table``: the table ``holdem simulate`` encodes) and

1. every column the simulator writes (``digest`` among them) is compared value for value with
   the columns decoded (``Comparison``): the first row that differs names the hand;
2. the file's footer is compared with the one the writer gives this table (``_form_problem``):
   the key-value metadata byte for byte (the run id, structure, batch, rare-path counts and the
   stored Arrow schema), the Parquet schema, ``created_by``, the row groups and their rows, each
   column chunk's codec, encodings, dictionary page and kinds of statistics (their values are
   the ``integrity`` audit's: ``audits.exactfile``), and the column chunks laid end to end over
   the whole file (no byte outside them, the footer and the magic numbers);
3. the bytes: a file this command wrote is bound by the sha256 its writer computed of the bytes
   it encoded (``Manifest.written``, held in memory, never read from the folder): when the
   audited bytes have that sha256 they are the writer's encoding of a table whose values are
   (1) the re-simulated table's, with (2) its metadata, and the writer is deterministic, so
   they are the bytes ``--reproduce bytes`` would make again; a file kept from an earlier run
   (a resumed folder, never trusted) has no such hash and its re-simulated table is encoded
   and compared byte for byte, as ``--reproduce bytes`` does.

So the default catches everything the byte comparison catches (a recompressed file, another
metadata key, forged page statistics all change the sha256 the writer gave), and the encode is
skipped for every file this command wrote. ``holdem report`` and ``holdem verify``, which did
not write the files, compare bytes (``cluster.flows.reproduce``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from audits.runfolder import batch_relpath, sha256_bytes, storage
from audits.runner import map_file

VALUES, BYTES = "values", "bytes"
MODES = (VALUES, BYTES)
BOT_ERROR = "bot_error"  # a Python bot not playable here: raised again on the driver


@dataclass(frozen=True)
class ValuesJob:
    """What the audit's tasks re-simulate: ``planned`` (a batch file's path in the run folder
    -> its structure's label and batch index; the spec's plan, never the manifest's list) and
    ``written`` (path -> the sha256 this command's writer gave the bytes it encoded)."""

    spec: Any
    root: str
    planned: dict[str, tuple[str, int]]
    written: dict[str, str] = field(default_factory=dict)
    version: int | None = None  # the run's log schema version (None: the default)


def audit_and_reproduce(path: str, names: Any, partitions: Any, context: Any,
                        job: ValuesJob) -> tuple[Any, ...]:
    """``audits.runner.map_file`` of one batch file (the body of the audit's task), and, for a
    planned batch, its reproduction in the same read: ``map_file``'s result, then a dict
    ``{"rel", "ok", "hands", "why", "hand_id", "seconds"}`` (``BOT_ERROR`` when a Python bot
    cannot play here)."""
    from cluster.flows.simulate import simulated_table
    from sim.config import Structure
    from sim.pybots import BotError

    rel = storage.relative(storage.as_location(job.root), storage.as_location(path))
    where = job.planned.get(rel)
    if where is None:
        return map_file(path, names, partitions, context)
    t0, c0 = time.perf_counter(), time.process_time()
    st = Structure.parse(where[0])
    try:
        table, hands, counts = simulated_table(job.spec, st, where[1], job.version)
    except BotError as e:
        return (*map_file(path, names, partitions, context), {BOT_ERROR: str(e)})
    cmp = Comparison(table)
    t1, c1 = time.perf_counter(), time.process_time()
    res = map_file(path, names, partitions, context, on_table=cmp.chunk, extra=("digest",))
    t2, c2 = time.perf_counter(), time.process_time()
    sha, size = res[3]
    why, hid = cmp.difference()
    if why is None:
        why = _form_problem(cmp.pf, table, job.spec, st, where[1], counts, size)
    if why is None:
        why = _bytes_problem(sha, job.written.get(rel), table, job.spec, st, where[1], counts)
    # the audit's own read and maps aside: wall seconds, and CPU seconds of this process
    seconds = time.perf_counter() - t2 + (t1 - t0)
    cpu = time.process_time() - c2 + (c1 - c0) + cmp.cpu
    return (*res, {"rel": rel, "ok": why is None, "hands": hands if why is None else 0,
                   "why": why, "hand_id": hid, "seconds": seconds + cmp.cpu, "cpu": cpu})


class Comparison:
    """The re-simulated table against the chunks the audit decoded (``chunk``, the reader's
    ``on_table``), column by column; ``difference`` says what differs."""

    def __init__(self, table: pa.Table) -> None:
        self.table = table
        self.pf: pq.ParquetFile | None = None
        self.rows = 0  # rows the file holds (counted over its chunks)
        self.seen: set[str] = set()
        self.first: tuple[int | None, str] | None = None  # (row, column) of the first difference
        self.clock: Callable[[], float] = time.process_time
        self.cpu = 0.0  # seconds spent comparing (``clock``)

    def chunk(self, pf: pq.ParquetFile, t: pa.Table, start: int) -> None:
        c0 = self.clock()
        try:
            self._chunk(pf, t, start)
        finally:
            self.cpu += self.clock() - c0

    def _chunk(self, pf: pq.ParquetFile, t: pa.Table, start: int) -> None:
        self.pf = self.pf or pf
        self.rows = start + t.num_rows
        if self.first is not None:
            return
        m = max(0, min(t.num_rows, self.table.num_rows - start))
        found: list[tuple[int | None, str]] = []
        for name in t.column_names:
            self.seen.add(name)
            i = self.table.schema.get_field_index(name)
            got = t.column(name).combine_chunks().slice(0, m)
            if i < 0:  # the reader reads the documented columns only
                found.append((None, name))
                continue
            want = self.table.column(i).combine_chunks().slice(start, m)
            if not _same(got, want):
                row = _first_row(got, want)
                found.append((None if row is None else start + row, name))
        if found:  # the earliest row of any differing column
            self.first = min(found, key=lambda f: (f[0] is None, f[0] or 0))

    def difference(self) -> tuple[str | None, int | None]:
        """(what differs, the hand_id it names), (None, None) when the values are the same."""
        t = self.table
        if self.first is not None:
            row, name = self.first
            if row is None:
                return (f"column {name} is not what holdem simulate writes (its type or "
                        "values)"), None
            hid = int(t.column("hand_id")[row].as_py())
            return (f"hand {hid} is not what the spec plays (re-simulated from the seed, it "
                    f"differs; column {name})"), hid
        if self.rows != t.num_rows:
            return (f"{self.rows:,} hands logged, the spec plays {t.num_rows:,}",
                    None if self.rows > t.num_rows else int(t.column("hand_id")[self.rows]
                                                            .as_py()))
        missing = [c for c in t.column_names if c not in self.seen]
        if missing:
            return f"column {missing[0]} is missing", None
        return None, None


def _same(got: pa.Array, want: pa.Array) -> bool:
    """Every value equal (and the type): a column read as its stored dictionary is compared
    through it (one string per distinct value, not per row, when it holds one)."""
    if pa.types.is_dictionary(got.type):
        d = got.dictionary
        if not d.type.equals(want.type):
            return False
        if len(d) == 1 and not got.null_count and not want.null_count:
            return len(want) == 0 or bool(pc.all(pc.equal(want, d[0])).as_py())
        got = got.dictionary_decode()
    return bool(got.equals(want))


def _first_row(got: pa.Array, want: pa.Array) -> int | None:
    """The first row whose values differ (row digests of the one column), None when the two
    differ in type only."""
    from sim.digest import hand_digests

    if pa.types.is_dictionary(got.type):
        got = got.dictionary_decode()
    if not got.type.equals(want.type) or len(got) != len(want):
        return None
    a = hand_digests(pa.table({"c": got}), ["c"])
    b = hand_digests(pa.table({"c": want}), ["c"])
    nulls = np.asarray(got.is_null()) != np.asarray(want.is_null())
    at = np.flatnonzero((a != b) | nulls)
    return int(at[0]) if at.size else 0


# the footer facts of a column chunk the writer's settings fix (its statistics' values, sizes
# and offsets aside: the values are checked against the data, the sizes laid end to end)
CHUNK_FACTS = ("path_in_schema", "physical_type", "compression", "encodings",
               "has_dictionary_page", "is_stats_set")
STATS_FACTS = ("has_min_max", "has_null_count", "has_distinct_count")


def _form_problem(pf: pq.ParquetFile | None, table: pa.Table, spec: Any, st: Any, batch: int,
                  counts: dict[str, int], size: int) -> str | None:
    """How the file's footer differs from the one the writer gives ``table`` (None: it does
    not). The writer's footer for this schema and metadata is taken from an encode of the
    table's first row (the codecs, encodings and statistics kinds do not depend on the
    rows); the rows of each row group from ``ROW_GROUP_ROWS``."""
    from cluster.flows.simulate import ROW_GROUP_ROWS, encode_batch

    if pf is None:
        return "no rows decoded"
    md = pf.metadata
    ref = pq.ParquetFile(pa.BufferReader(encode_batch(table.slice(0, 1), spec, st, batch,
                                                      counts))).metadata
    note = "what holdem simulate writes for these hands"
    kv, want_kv = dict(md.metadata or {}), dict(ref.metadata or {})
    if kv != want_kv:
        keys = sorted(k.decode(errors="replace") for k in set(kv) ^ set(want_kv)
                      | {k for k in set(kv) & set(want_kv) if kv[k] != want_kv[k]})
        return f"its key-value metadata ({', '.join(keys[:3])}) is not {note}"
    if not md.schema.equals(ref.schema):
        return f"its Parquet schema is not {note}"
    if (md.created_by, md.format_version) != (ref.created_by, ref.format_version):
        return (f"it was written by {md.created_by} (format {md.format_version}), not as "
                f"holdem simulate writes ({ref.created_by}, format {ref.format_version})")
    n = table.num_rows
    groups = [min(ROW_GROUP_ROWS, n - s) for s in range(0, n, ROW_GROUP_ROWS)]
    have = [md.row_group(g).num_rows for g in range(md.num_row_groups)]
    if have != groups:
        return f"its row groups hold {have[:5]} rows, holdem simulate writes {groups[:5]}"
    want_cols = ref.row_group(0)
    end = 4  # after the magic number "PAR1"
    for g in range(md.num_row_groups):
        rg = md.row_group(g)
        for j in range(rg.num_columns):
            c, w = rg.column(j), want_cols.column(j)
            for fact in CHUNK_FACTS:
                if getattr(c, fact) != getattr(w, fact):
                    return (f"column chunk {c.path_in_schema} (row group {g}): its {fact} is "
                            f"{getattr(c, fact)!r}, holdem simulate writes {getattr(w, fact)!r}")
            if c.is_stats_set and c.statistics is not None and w.statistics is not None:
                for fact in STATS_FACTS:
                    if getattr(c.statistics, fact) != getattr(w.statistics, fact):
                        return (f"column chunk {c.path_in_schema} (row group {g}): its "
                                f"statistics' {fact} is not {note}")
            start = c.dictionary_page_offset if c.has_dictionary_page else c.data_page_offset
            if start != end:
                return (f"column chunk {c.path_in_schema} (row group {g}) starts at byte "
                        f"{start}, where the one before it ends is {end}: bytes outside the "
                        "column chunks")
            end += c.total_compressed_size
    if end != size - 8 - md.serialized_size:
        return (f"its column chunks end at byte {end}, its footer starts at "
                f"{size - 8 - md.serialized_size}: bytes outside the column chunks")
    return None


def _bytes_problem(sha: str, written: str | None, table: pa.Table, spec: Any, st: Any,
                   batch: int, counts: dict[str, int]) -> str | None:
    """The bytes, once the values and the footer are the writer's: a file this command wrote
    must have the sha256 its writer computed (``written``); one it did not (kept from an
    earlier run) is compared with the re-simulated table encoded again."""
    same = ("its bytes differ from the re-simulated file's though every hand's content matches "
            "(the file's schema, metadata, encoding or footer statistics are not what holdem "
            "simulate writes)")
    if written is not None:
        return None if written == sha else same + "; its sha256 is not the one its writer gave it"
    from cluster.flows.simulate import encode_batch

    again = encode_batch(table, spec, st, batch, counts)
    return None if sha256_bytes(again) == sha else same


def outcome(spec: Any, run: str, extras: dict[str, tuple[Any, ...]], job: ValuesJob, *,
            workers: int | None, address: str | None) -> Any:
    """The ``Reproduced`` of a values reproduction: the audit's per-file results (its
    ``extras``) in the spec's plan order, the first that differs named; a planned batch the
    audit did not read (absent, or not in the manifest's list) re-simulated and compared byte
    for byte (``reproduce_spec``)."""
    from cluster.flows.reproduce import Reproduced, reproduce_spec
    from sim.pybots import BotError

    results: list[dict[str, Any]] = [e[0] for e in extras.values()
                                     if e and isinstance(e[0], dict)]
    for res in results:
        if BOT_ERROR in res:
            raise BotError(res[BOT_ERROR])
    by_rel = {res["rel"]: res for res in results}
    plan = [batch_relpath(s.label, b) for s, b in spec.plan()]
    wanted = [rel for rel in plan if rel in job.planned]
    rest = {rel for rel in wanted if rel not in by_rel}
    other = (reproduce_spec(spec, run, workers=workers, address=address, only=rest,
                            version=job.version) if rest else None)
    done = hands = 0
    seconds = sum(float(r.get("seconds") or 0.0) for r in by_rel.values())
    if other is not None:
        seconds += other.seconds
    for rel in wanted:
        if rel in by_rel:
            got = by_rel[rel]
            if not got["ok"]:
                return Reproduced(False, f"{rel}: {got['why']}", done, hands, len(plan), rel,
                                  got["hand_id"], seconds)
            done += 1
            hands += got["hands"]
        elif other is not None and not other.ok and other.path == rel:
            return Reproduced(False, other.message, done + other.batches, hands + other.hands,
                              len(plan), rel, other.hand_id, seconds)
    if other is not None:
        done += other.batches
        hands += other.hands
    kept = sum(1 for rel in by_rel if rel not in job.written)
    parts = ([f"{len(by_rel) - kept} by the sha256 this command's writer gave them"]
             if len(by_rel) > kept else [])
    parts += [f"{kept} kept from an earlier run encoded again"] if kept else []
    parts += [f"{len(rest)} not audited re-simulated apart"] if rest else []
    how = "every value compared in the audit's read; the bytes: " + ", ".join(parts)
    return Reproduced(True, f"REPRODUCED: {done} of {len(plan)} batch files ({hands:,} hands) "
                            f"re-simulated from the spec match byte for byte ({how})",
                      done, hands, len(plan), seconds=seconds)
