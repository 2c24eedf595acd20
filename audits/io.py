"""Reading a run folder for the audits: the file list, a schema check, and each batch file as
numpy columns (no per-hand Python objects).

A run folder (``audits.runfolder``) holds ``manifest.json`` (optional here) and
``log/<label>/batch-<NNNNN>.parquet`` files. Every problem with the input raises
``AuditInputError`` naming the file.

Encodings (declared here, independently of the simulator): cards 0..51 = rank * 4 + suit;
``deck`` is 52 int8 bytes; ``actions`` is packed 19-byte little-endian records; in schema
version 4 each list column is a binary value of its entries packed little-endian
(``audits.logschema.PACKED``), decoded to the same arrays as version 3's lists.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from numba import njit

from audits import exactfile, logschema, runfolder, runspec
from audits.runfolder import storage
from audits.runfolder.errors import InputError
from audits.runfolder.storage import Location

ACTION_DTYPE = np.dtype([("street", "i1"), ("seat", "i1"), ("kind", "i1"),
                         ("to_street_total", "<i8"), ("added", "<i8")])
ANTE, SMALL_BLIND, BIG_BLIND, FOLD, CHECK, CALL, BET, RAISE, RETURN = 0, 1, 2, 6, 7, 8, 9, 10, 11
# posts of replayed histories, after the blinds: a live post (a returning player's big blind: on
# the street, the seat keeps its option) and dead money (in the main pot, never toward a call)
POST, DEAD_BLIND = 16, 17
# a player who left the table or lost his connection mid-hand: his hand is dead; a RETURN of the
# part of his bet no other player covered follows at once
LEAVE = 18
# a live straddle after the blinds by the seat left of the big blind (a cash game file's
# straddle, docs/game.md): on the street; pre-flop action starts left of it, it keeps the option
STRADDLE = 19

# the audited columns and their types (the whole file's schema: ``audits.logschema``); a file of
# schema version 4 holds the list columns as packed binary (``EXPECTED_V4``, ``_parts``)
EXPECTED: dict[str, pa.DataType] = {
    name: typ for name, typ in logschema.LOG_COLUMNS if name != "digest"}
EXPECTED_V4: dict[str, pa.DataType] = {
    name: typ for name, typ in logschema.LOG_COLUMNS_V4 if name != "digest"}
PACKED_DTYPES = {name: np.dtype(dt) for name, dt in logschema.PACKED.items()}
POT_DTYPE = np.dtype(logschema.POT_RECORD)
# absent (or null) decks make the deal audit not applicable; player_ids (schema 3) is absent
# from older runs (the stakes audit then says it was not checked)
OPTIONAL = frozenset({"deck", "player_ids"})
UNAUDITED: frozenset[str] = frozenset()  # type-checked, never read by an audit
# ``holdem import``'s columns (``audits.logschema.IMPORT_COLUMNS``): read only when the file has
# them (a simulated file has none: its reads stay as they are), into ``Batch.imp``
IMPORT_EXPECTED: dict[str, pa.DataType] = dict(logschema.IMPORT_COLUMNS)
IMPORT_PER_SEAT = ("players", "stack_known", "cards_unrecorded")  # into Batch.imp, (n, k)
IMPORT_VAR_COLUMNS = ("op_winnings", "op_finishing")  # [] (not recorded) or n_seats entries
# read as the dictionaries Parquet stores them as (``_decode`` takes their codes: no string
# decoded per row, none encoded again)
STRING_COLUMNS = tuple(name for name, typ in EXPECTED.items() if pa.types.is_string(typ))
SEAT_COLUMNS = ("occupied", "stacks_start", "rebuys", "stacks_end", "contributed", "returned",
                "won", "folded", "timed_out", "policy", "player_ids")
VAR_COLUMNS = ("burns", "board", "showdown_seats", "showdown_shown", "showdown_ranks", "seed_key")
# per-seat columns of an imported file that the audits read when present (``holdem import``):
# a seat that reached showdown with cards not in the record (the payouts audit then does not
# judge the winners of a pot it contests)
IMPORT_SEAT_COLUMNS = ("cards_unrecorded",)


class AuditInputError(InputError):
    """Unusable input (missing, corrupt or foreign file, schema mismatch): exit code 2."""


def load_manifest(run: Location) -> dict[str, Any] | None:
    """The run's manifest.json, or None when absent."""
    try:
        return runfolder.read_manifest(storage.as_location(run))
    except (OSError, pa.ArrowException, runfolder.RunFolderError, storage.StorageError) as e:
        raise AuditInputError(str(e)) from None


def run_context(manifest: dict[str, Any] | None) -> dict[str, Any]:
    """The run-level facts the maps check rows against, from the manifest: ``simulated`` (the
    manifest is a ``holdem simulate`` run's: every hand was dealt from a logged deck),
    ``generator`` and ``seed`` (the run's key) and ``facts`` (``audits.runspec.RunFacts``), all
    from the manifest's ``spec`` alone (its other fields are never read for them). An imported
    run's hands must all be ``phh``. Empty without a manifest, or with a manifest of no known
    ``format`` (then the integrity audit fails it when it lists files, and is not applicable
    otherwise: the certificate says the hands were not bound to a seed). Raises
    AuditInputError for a simulate manifest whose spec is missing or not exactly the
    simulator's, naming the field."""
    if not manifest:
        return {}
    kind = manifest.get("format")
    if kind in runspec.IMPORT_FORMATS:
        # the money unit and the rake schedule the outcome audit reads (checked there)
        sources = manifest.get("sources")
        if manifest.get("game") is not None:
            why = check_game(manifest["game"])
            if why:
                raise AuditInputError(f"manifest.json: field game: {why} (not what holdem "
                                      "import --game writes)")
        return {"simulated": False, "generator": "phh", "seed": None, "imported": True,
                "import_columns": kind == runspec.IMPORT_FORMAT,
                "money": manifest.get("money"), "rake_schedule": manifest.get("rake_schedule"),
                # the operator's tournament summaries checked at the import (``holdem export``)
                "summaries": manifest.get("summaries"),
                # the game file's stakes (``holdem import --game``): the stakes audit's
                "game": manifest.get("game"),
                # each source's format (phh or a site's text export): how its winnings read
                "source_formats": {str(s["path"]): str(s.get("format") or "")
                                   for s in (sources if isinstance(sources, list) else [])
                                   if isinstance(s, dict) and "path" in s},
                # the lab's venue of each source (``holdem import --venue``): how it is judged
                "source_venues": {str(s["path"]): str(s["venue"])
                                  for s in (sources if isinstance(sources, list) else [])
                                  if isinstance(s, dict) and "path" in s and s.get("venue")}}
    if kind != runspec.SIMULATE_FORMAT:
        return {}
    try:
        facts = runspec.parse_spec(manifest.get("spec"))
    except runspec.SpecError as e:
        raise AuditInputError(str(e)) from None
    return {"simulated": True, "generator": facts["generator"], "seed": facts["seed"],
            "facts": facts, "imported": False}


def check_game(game: Any) -> str | None:
    """Why an import's manifest ``game`` is not one ``holdem import --game`` writes (None: it
    is): the stakes the ``stakes`` audit reads (``audits.stakes_import``), each an integer of
    its place."""
    def amounts(d: Any, keys: tuple[str, ...]) -> bool:
        return isinstance(d, dict) and all(
            isinstance(d.get(k), int) and not isinstance(d.get(k), bool) and d[k] >= 0
            for k in keys)

    if not isinstance(game, dict):
        return "expected an object"
    if not amounts(game.get("cash"), ("small_blind", "big_blind", "ante", "ante_mode",
                                      "small_bet", "big_bet", "raise_cap")):
        return "cash: expected the blinds, ante, ante_mode and bets as integers"
    cash: Any = game["cash"]
    if "straddle_raise" in cash and (cash["straddle_raise"] != "straddle"
                                     or not amounts(cash, ("straddle",)) or not cash["straddle"]):
        return ("cash: straddle_raise: expected \"straddle\" beside a straddle (absent: the PHH "
                "reading, one big blind over it)")
    tourn: Any = game.get("tournament")
    if not amounts(tourn, ("raise_cap",)) or not isinstance(tourn.get("levels"), list) or not all(
            isinstance(lv, list) and len(lv) == 4
            and all(isinstance(x, int) and not isinstance(x, bool) for x in lv)
            for lv in tourn["levels"]):
        return ("tournament: expected levels [small blind, big blind, ante, ante_mode] and a "
                "raise_cap")
    st = game.get("structures")
    if st is not None and (not isinstance(st, list) or not all(isinstance(x, str) for x in st)):
        return "structures: expected null or a list of structures"
    return None


def run_files(run: Location, missing_ok: bool = False) -> list[Location]:
    """The batch files of a run folder, a local path or a URI: the run folder's one lister
    (``runfolder.RunFolder.log_files``: the manifest's files when it lists any, else every
    ``log/<label>/batch-<N>.parquet``), its errors as AuditInputError. A file the manifest lists
    but the folder lacks is an error, unless ``missing_ok`` (the integrity audit then names it)
    and some listed file is present. A folder of the old layout is refused."""
    return run_inputs(run, missing_ok).locations()


def run_inputs(run: Location, missing_ok: bool = False) -> runfolder.LogFiles:
    """``run_files``, with what it read to find them (``runfolder.LogFiles``: the batch files,
    the folder's listing, manifest.json and the sha256 of its bytes as read): the folder listed
    once and the manifest read once."""
    try:
        return runfolder.RunFolder.open(storage.as_location(run)).log_files(
            missing_ok=missing_ok)
    except (storage.StorageError, runfolder.RunFolderError) as e:
        raise AuditInputError(str(e)) from None


def file_version(schema: pa.Schema) -> int:
    """The schema version a file declares (its ``holdem.schema_version``; 3 when absent or not
    a number: the exact-file check of the integrity audit names a wrong one)."""
    raw = (schema.metadata or {}).get(logschema.META_SCHEMA_VERSION, b"")
    return int(raw) if raw.isdigit() and len(raw) < 4 else 3


def expected_types(schema: pa.Schema) -> dict[str, pa.DataType]:
    """The audited columns' types in a file of ``schema``'s declared version."""
    return EXPECTED_V4 if file_version(schema) >= 4 else EXPECTED


def check_schema(schema: pa.Schema, path: str | Path) -> None:
    """Raise AuditInputError explaining every missing or mistyped column (of the types of the
    schema version the file declares)."""
    problems = []
    for name, typ in expected_types(schema).items():
        idx = schema.get_field_index(name)
        if idx < 0:
            if name not in OPTIONAL:
                problems.append(f"missing column {name!r}")
        elif not schema.field(idx).type.equals(typ):
            problems.append(f"column {name!r} is {schema.field(idx).type}, expected {typ}")
    missing = [p for p in problems if p.startswith("missing")]
    if len(missing) > 5:
        raise AuditInputError(f"{path}: not a hand log of this simulator (schema mismatch: "
                              f"{len(missing)} of {len(EXPECTED)} columns missing, e.g. "
                              + "; ".join(missing[:3]) + ")")
    if problems:
        raise AuditInputError(f"{path}: schema mismatch: " + "; ".join(problems))


@dataclass
class Batch:
    """One batch file as numpy columns. ``seat[name]`` is (n, k); ``var[name]`` is (values,
    offsets); actions are flat per-field arrays with per-hand record offsets ``act_off``."""

    path: str
    n: int
    k: int
    cols: dict[str, np.ndarray]
    seat: dict[str, np.ndarray]
    var: dict[str, tuple[np.ndarray, np.ndarray]]
    deck: np.ndarray | None
    hole: np.ndarray
    act: dict[str, np.ndarray]
    act_off: np.ndarray
    pots: dict[str, np.ndarray]
    pot_off: np.ndarray
    context: dict[str, Any] = field(default_factory=dict)  # run facts (``run_context``)
    derived: dict[str, np.ndarray] = field(default_factory=dict)  # per-hand results of maps
    # the file's own checks (``audits.exactfile``), with the file's first chunk only
    file_check: exactfile.FileCheck | None = None
    # an imported file's import columns (empty for a simulated one): strings as per-row codes
    # with ``<name>_values``; ``players``, ``stack_known``, ``cards_unrecorded`` (n, k);
    # ``op_winnings``, ``op_finishing`` as (values, offsets); int64 per row otherwise
    imp: dict[str, Any] = field(default_factory=dict)


def _values(arr: pa.Array) -> np.ndarray:
    """A flat column as numpy, never per-row Python objects: zero-copy where arrow allows, and
    booleans unpacked from their bitmap (15x faster than arrow's conversion). With nulls, arrow's
    own conversion (floats with NaN, objects with None)."""
    if not pa.types.is_boolean(arr.type) or arr.null_count:
        return arr.to_numpy(zero_copy_only=False)
    n, o = len(arr), arr.offset
    if n == 0:
        return np.zeros(0, np.bool_)
    bits = np.frombuffer(arr.buffers()[1], np.uint8)[o // 8:(o + n + 7) // 8]
    return np.unpackbits(bits, bitorder="little")[o % 8:o % 8 + n].view(np.bool_)


def _list_parts(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A list column's flat values and its offsets from 0 (the values and offsets buffers)."""
    off = arr.offsets.to_numpy().astype(np.int64)
    if off[0]:
        off -= off[0]
    return _values(arr.flatten()), off


def _binary_parts(arr: pa.Array, dtype: np.dtype, path: Location, name: str
                  ) -> tuple[np.ndarray, np.ndarray]:
    """A packed binary column (schema version 4) as its flat entries of ``dtype`` (a view of the
    data buffer, copied only when unaligned) and each row's entry offsets from 0. A value that
    is not whole entries, or a bool byte other than 0 or 1, is unusable input."""
    n = len(arr)
    bufs = arr.buffers()
    boff = np.frombuffer(bufs[1], np.int32)[arr.offset:arr.offset + n + 1].astype(np.int64)
    w = dtype.itemsize
    rel = boff - boff[0]
    if (rel % w).any():
        r = int(np.flatnonzero(np.diff(rel) % w)[0])
        raise AuditInputError(f"{path}: column {name!r}: the value of row {r} is "
                              f"{int(rel[r + 1] - rel[r])} bytes, not whole {w}-byte entries")
    data = (np.frombuffer(bufs[2], np.uint8)[boff[0]:boff[-1]] if bufs[2] is not None
            else np.zeros(0, np.uint8))
    if dtype.kind == "b":
        if len(data) and int(data.max()) > 1:
            r = int(np.searchsorted(rel, int(np.flatnonzero(data > 1)[0]), side="right")) - 1
            raise AuditInputError(f"{path}: column {name!r}: row {r} holds a byte other than 0 "
                                  "or 1 (a bool entry)")
        return data.view(np.bool_), rel
    if data.ctypes.data % w:
        data = data.copy()
    return data.view(dtype.newbyteorder("<")).astype(dtype.newbyteorder("="), copy=False), rel // w


def _parts(arr: pa.Array, path: Location, name: str) -> tuple[np.ndarray, np.ndarray]:
    """A list column (version 3) or its packed binary (version 4): flat values and offsets."""
    if pa.types.is_binary(arr.type):
        return _binary_parts(arr, PACKED_DTYPES[name], path, name)
    return _list_parts(arr)


def _recode(idx: np.ndarray, dictionary: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """``dictionary_encode`` of a dictionary array without its per-row strings (decoding them
    cost 0.25 µs a hand): equal dictionary entries merged, codes in order of first appearance
    (int32, as arrow's)."""
    first_entry: dict[Any, int] = {}
    canon = np.array([first_entry.setdefault(v, i) for i, v in enumerate(dictionary)], np.int64)
    enc = pa.array(canon[idx]).dictionary_encode()  # integers hash faster than strings
    order = enc.dictionary.to_numpy(zero_copy_only=False)
    return (enc.indices.to_numpy(zero_copy_only=False),
            np.asarray([dictionary[i] for i in order], dtype=object))


def _string_codes(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A string column as per-row codes and the distinct values in order of first appearance
    (what ``dictionary_encode`` gives). A dictionary array as read is taken as it is when its
    dictionary is already that: one value (a file's structure, format, generator), no null."""
    if pa.types.is_dictionary(arr.type):
        if len(arr.dictionary) == 1 and not arr.null_count:
            return (arr.indices.to_numpy(zero_copy_only=False),
                    np.asarray(arr.dictionary.to_pylist(), dtype=object))
        if not arr.null_count and len(arr):
            return _recode(arr.indices.to_numpy(zero_copy_only=False), arr.dictionary.to_pylist())
        arr = arr.dictionary_decode()
    enc = arr.dictionary_encode()
    return (enc.indices.to_numpy(zero_copy_only=False),
            np.asarray(enc.dictionary.to_pylist(), dtype=object))


@njit(cache=True, _nrt=False)
def _decode_actions(rec, street, seat, kind, tot, added):  # pragma: no cover - compiled
    """Split the packed records (a structured view of the buffer: unaligned loads, no copy)
    into per-field arrays, in one pass."""
    for r in range(rec.shape[0]):
        x = rec[r]
        street[r] = x.street
        seat[r] = x.seat
        kind[r] = x.kind
        tot[r] = x.to_street_total
        added[r] = x.added


def decode_actions(data: np.ndarray) -> dict[str, np.ndarray]:
    """Per-field arrays (street, seat, kind: int8; amounts: int64) of a uint8 buffer of whole
    19-byte action records."""
    m = len(data) // ACTION_DTYPE.itemsize
    act = {f: np.empty(m, ACTION_DTYPE[f].newbyteorder("=")) for f in ACTION_DTYPE.names or ()}
    if m:
        rec = np.ascontiguousarray(data, np.uint8)[:m * ACTION_DTYPE.itemsize].view(ACTION_DTYPE)
        _decode_actions(rec, act["street"], act["seat"], act["kind"], act["to_street_total"],
                        act["added"])
    return act


def open_checked(path: Location) -> tuple[pq.ParquetFile, list[str]]:
    """A batch file opened and its schema checked, with the audited columns it holds."""
    return _open(storage.as_location(path))


def _open(path: Location, data: bytes | None = None) -> tuple[pq.ParquetFile, list[str]]:
    """``path`` opened (``data``: its bytes, read already by the caller, parsed instead of
    reading the file again) and its schema checked."""
    if data is None:
        try:
            storage.require_regular(*storage.split(path), path)
            if not storage.is_file(path):
                raise AuditInputError(f"{path}: missing")
        except storage.StorageError as e:
            raise AuditInputError(str(e)) from None
    try:
        try:
            pf = _parquet(path, data, STRING_COLUMNS)
        except KeyError:  # a string column is missing: check_schema names it
            pf = _parquet(path, data, None)
        schema = pf.schema_arrow
    except Exception as e:  # corrupt / not parquet
        raise AuditInputError(f"{path}: not a readable Parquet file ({type(e).__name__}: "
                              f"{str(e).splitlines()[0] if str(e) else ''})") from None
    check_schema(_as_stored(schema), path)
    return pf, ([c for c in EXPECTED if schema.get_field_index(c) >= 0 and c not in UNAUDITED]
                + import_columns(schema, path))


def _parquet(path: Location, data: bytes | None, read_dictionary: Sequence[str] | None
             ) -> pq.ParquetFile:
    if data is None:
        return storage.open_parquet(path, read_dictionary=read_dictionary)
    rd = list(read_dictionary) if read_dictionary else None
    return pq.ParquetFile(pa.BufferReader(pa.py_buffer(data)), read_dictionary=rd)


def import_columns(schema: pa.Schema, path: str | Path) -> list[str]:
    """The import columns a file holds (none for a simulated file), each of its declared type
    (else AuditInputError naming it)."""
    out = []
    for name, typ in IMPORT_EXPECTED.items():
        i = schema.get_field_index(name)
        if i < 0:
            continue
        got = schema.field(i).type
        if pa.types.is_dictionary(got):
            got = got.value_type
        if not got.equals(typ):
            raise AuditInputError(f"{path}: schema mismatch: column {name!r} is {got}, "
                                  f"expected {typ}")
        out.append(name)
    return out


def _as_stored(schema: pa.Schema) -> pa.Schema:
    """The schema with the string columns read as dictionaries (``STRING_COLUMNS``) shown as the
    strings they hold."""
    for name in STRING_COLUMNS:
        i = schema.get_field_index(name)
        if i >= 0 and pa.types.is_dictionary(schema.field(i).type):
            schema = schema.set(i, schema.field(i).with_type(schema.field(i).type.value_type))
    return schema


CHUNK_ROWS = 131_072  # rows decoded at a time (more only when one table's hands need more)


def _cut_points(table_id: np.ndarray) -> np.ndarray:
    """Rows r where the file may be split: no table has hands both before and after r (the
    cross-hand checks see every hand of a table in one chunk)."""
    n = len(table_id)
    if n == 0:
        return np.zeros(1, np.int64)
    order = np.argsort(table_id, kind="stable")
    ts = table_id[order]
    last_pos = np.empty(n, np.int64)
    grp = np.flatnonzero(np.r_[True, ts[1:] != ts[:-1]])
    ends = np.r_[grp[1:], n] - 1
    per_group_last = order[ends]  # stable sort: the group's last element is its last row
    last_pos[order] = np.repeat(per_group_last, np.diff(np.r_[grp, n]))
    reach = np.maximum.accumulate(last_pos)  # furthest row of any table started at or before r
    cuts = np.flatnonzero(reach[:-1] < np.arange(1, n)) + 1
    return np.r_[cuts, n].astype(np.int64)


# on_table(pf, table, first_row): each chunk's Arrow table as decoded (before ``_decode``)
OnTable = Callable[[pq.ParquetFile, pa.Table, int], None]


def iter_batches(path: Location, chunk_rows: int | None = None, *,
                 data: bytes | None = None, on_table: OnTable | None = None,
                 extra: Sequence[str] = ()) -> Iterator[Batch]:
    """Read and check one batch file in chunks of about ``chunk_rows`` rows (default
    ``CHUNK_ROWS``), cut only between tables, so that the decoded rows held stay bounded
    whatever the file's size (a file of at most ``chunk_rows`` rows is one chunk). ``data``:
    the file's bytes, read once by the caller (``audits.runner.map_file``, which hashes the
    same bytes), parsed here instead of reading the file again. ``on_table``: shown each
    chunk's Arrow table as decoded, with the file and the chunk's first row (the reproduction
    of ``holdem certify`` compares it with the hands re-simulated, in the audit's one read);
    ``extra``: columns decoded besides the audited ones when the file has them (``digest``)."""
    chunk_rows = CHUNK_ROWS if chunk_rows is None else max(1, int(chunk_rows))
    path = storage.as_location(path)
    pf, columns = _open(path, data)
    columns += [c for c in extra if c not in columns and pf.schema_arrow.get_field_index(c) >= 0]
    check: exactfile.FileCheck | None = exactfile.FileCheck(str(path), pf)
    row = 0

    def first(t: pa.Table) -> Batch:
        nonlocal check, row
        if on_table is not None:
            on_table(pf, t, row)
        row += t.num_rows
        b = _decode(path, t)
        b.file_check, check = check, None
        return b

    n = pf.metadata.num_rows
    if n <= chunk_rows:
        b = first(_read_all(pf, path, columns))
        check_table_order(b.cols["table_id"], b.cols["hand_id"], path)
        yield b
        return
    try:
        keys = pf.read(columns=["table_id", "hand_id"])
    except Exception as e:
        raise AuditInputError(f"{path}: corrupt ({type(e).__name__}: {e})") from None
    for name in ("table_id", "hand_id"):
        if keys.column(name).null_count:
            raise AuditInputError(f"{path}: column {name!r} holds a null (a hand log's "
                                  "columns hold none)")
    table_id = keys.column("table_id").to_numpy()
    check_table_order(table_id, keys.column("hand_id").to_numpy(), path)
    del keys
    try:
        cuts = _cut_points(table_id)
        del table_id
        pending: list[pa.RecordBatch] = []
        have = 0
        start = 0  # file row of pending[0]
        for rb in pf.iter_batches(batch_size=min(chunk_rows, 65_536), columns=columns):
            pending.append(rb)
            have += rb.num_rows
            if have < chunk_rows:
                continue
            i = np.searchsorted(cuts, start + have, side="right") - 1
            cut = int(cuts[i]) if i >= 0 else 0
            if cut <= start:
                continue  # one table spans the whole chunk: keep reading
            t = pa.Table.from_batches(pending)
            yield first(t.slice(0, cut - start).combine_chunks())
            rest = t.slice(cut - start)
            pending = rest.combine_chunks().to_batches() if rest.num_rows else []
            have -= cut - start
            start = cut
        if have:
            yield first(pa.Table.from_batches(pending).combine_chunks())
    except AuditInputError:
        raise
    except Exception as e:
        raise AuditInputError(f"{path}: corrupt ({type(e).__name__}: {e})") from None


def check_table_order(table_id: np.ndarray, hand_id: np.ndarray, path: Location) -> None:
    """Rows are in table order (as the writers write them): each table's hands are one run of
    consecutive rows. A file whose tables interleave is refused (a chunk of the audit holds
    whole tables, so interleaved rows would make it the whole file)."""
    if len(table_id) < 2:
        return
    starts = np.flatnonzero(np.r_[True, table_id[1:] != table_id[:-1]])
    runs = table_id[starts]
    if len(np.unique(runs)) == len(runs):
        return
    order = np.argsort(runs, kind="stable")
    dup = np.flatnonzero(runs[order][1:] == runs[order][:-1])[0]
    row = int(starts[order[dup + 1]])
    raise AuditInputError(f"{path}: rows not in table order: table {int(table_id[row])} "
                          f"starts again at row {row} (hand {int(hand_id[row])}) after other "
                          "tables' hands; a batch file holds each table's hands together")


def _read_all(pf: pq.ParquetFile, path: Location, columns: list[str]) -> pa.Table:
    try:
        return pf.read(columns=columns).combine_chunks()
    except Exception as e:
        raise AuditInputError(f"{path}: corrupt ({type(e).__name__}: {e})") from None


def read_batch(path: Location, columns: list[str] | None = None) -> Batch:
    """Read and check one whole batch file."""
    path = storage.as_location(path)
    pf, cols = _open(path)
    return _decode(path, _read_all(pf, path, cols))


def deck_array(dk: pa.Array, path: Location, hand_id: np.ndarray) -> np.ndarray | None:
    """A ``deck`` column as an (n, 52) int8 view, None when every deck is null (hands imported
    without decks); some null and some not is unusable input."""
    n = len(dk)
    if dk.null_count == n:
        return None
    if dk.null_count:
        i = int(np.flatnonzero(~dk.is_valid().to_numpy(zero_copy_only=False))[0])
        raise AuditInputError(f"{path}: column 'deck' is null in {dk.null_count} of {n} rows "
                              f"(e.g. hand {int(hand_id[i])}): a file logs every hand's deck "
                              "or none")
    return np.frombuffer(dk.buffers()[1], np.int8)[dk.offset * 52:(dk.offset + n) * 52].reshape(
        n, 52)


def iter_columns(path: Location, columns: list[str], rows: int = 65_536
                 ) -> Iterator[pa.RecordBatch]:
    """A few columns of one batch file, ``rows`` at a time (a pass that needs no other column
    reads only these), with the same checks and errors as ``iter_batches``."""
    path = storage.as_location(path)
    pf, present = _open(path)
    try:
        yield from pf.iter_batches(batch_size=rows, columns=[c for c in columns if c in present])
    except Exception as e:
        raise AuditInputError(f"{path}: corrupt ({type(e).__name__}: {e})") from None


def _decode(path: Location, t: pa.Table) -> Batch:
    """Check and convert one table of hand rows (one chunk each column) to numpy."""
    n = t.num_rows
    if n == 0:
        raise AuditInputError(f"{path}: no rows")
    null = exactfile.null_problem(t)
    if null is not None:
        raise AuditInputError(f"{path}: {null}: a hand log's audited columns and list values "
                              "hold none")
    nseats = t.column("n_seats").to_numpy()
    k = int(nseats[0])
    if not (nseats == k).all() or not 2 <= k <= 10:
        raise AuditInputError(f"{path}: n_seats must be one value in 2..10 per file")

    # the file's schema was checked against its declared version when it was opened
    expected = EXPECTED_V4 if pa.types.is_binary(t.schema.field("occupied").type) else EXPECTED

    def col(name: str) -> pa.Array:
        c = t.column(name)
        return c.chunk(0) if c.num_chunks else pa.array([], expected[name])

    cols: dict[str, np.ndarray] = {}
    for name, typ in EXPECTED.items():
        if pa.types.is_list(typ) or name in ("deck", "actions") or name in OPTIONAL:
            continue
        if name in STRING_COLUMNS:
            cols[name], cols[name + "_values"] = _string_codes(col(name))
            continue
        cols[name] = _values(col(name))
    seat: dict[str, np.ndarray] = {}
    per_row = np.arange(n + 1, dtype=np.int64)
    seat_off = per_row * k
    for name in (*SEAT_COLUMNS, *IMPORT_SEAT_COLUMNS):
        if (name in OPTIONAL or name in IMPORT_SEAT_COLUMNS) and name not in t.column_names:
            continue
        values, off = (_parts(col(name), path, name) if name in SEAT_COLUMNS
                       else _list_parts(col(name)))
        if not np.array_equal(off, seat_off):
            raise AuditInputError(f"{path}: column {name!r} must have n_seats={k} entries a row")
        seat[name] = values.reshape(n, k)
    hv, hoff = _parts(col("hole_cards"), path, "hole_cards")
    if not np.array_equal(hoff, per_row * (2 * k)):
        raise AuditInputError(f"{path}: column 'hole_cards' must have 2 * n_seats entries a row")
    hole = hv.astype(np.int8, copy=False).reshape(n, 2 * k)
    var = {name: _parts(col(name), path, name) for name in VAR_COLUMNS}
    deck = deck_array(col("deck"), path, cols["hand_id"]) if "deck" in t.column_names else None
    acts = col("actions")
    aoff = np.frombuffer(acts.buffers()[1], np.int32)[acts.offset:acts.offset + n + 1]
    aoff = aoff.astype(np.int64)
    if ((aoff - aoff[0]) % ACTION_DTYPE.itemsize).any():
        raise AuditInputError(f"{path}: 'actions' values are not whole 19-byte records")
    vbuf = acts.buffers()[2]
    data = (np.frombuffer(vbuf, np.uint8)[aoff[0]:aoff[-1]] if vbuf is not None
            else np.zeros(0, np.uint8))
    act = decode_actions(data)
    act_off = (aoff - aoff[0]) // ACTION_DTYPE.itemsize
    pots_arr = col("pots")
    if pa.types.is_binary(pots_arr.type):  # schema 4: packed records
        rec, poff = _binary_parts(pots_arr, POT_DTYPE, path, "pots")
        pots = {f: rec[f].astype(np.int64) for f in POT_DTYPE.names or ()}
    else:
        poff = pots_arr.offsets.to_numpy().astype(np.int64)
        pvals = pots_arr.flatten()  # the struct values of these rows (a slice: flatten, not field)
        fields = dict(zip([f.name for f in pvals.type], pvals.flatten(), strict=True))
        pots = {f: fields[f].to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
                for f in ("amount", "rake", "eligible_mask", "winners_mask")}
    return Batch(path=str(path), n=n, k=k, cols=cols, seat=seat, var=var, deck=deck, hole=hole,
                 act=act, act_off=act_off, pots=pots, pot_off=poff - poff[0],
                 imp=_decode_import(path, t, col, n, k, seat_off))


def _decode_import(path: Location, t: pa.Table, col: Callable[[str], pa.Array], n: int, k: int,
                   seat_off: np.ndarray) -> dict[str, Any]:
    """The import columns of one table of rows (empty when the file has none)."""
    names = [c for c in IMPORT_EXPECTED if c in t.column_names]
    if not names:
        return {}
    if not set(logschema.IMPORT_VERSION_COLUMNS[1]) <= set(names):  # import version 1's
        return {}  # the integrity audit's exact-file check names the missing column (a FAIL)
    out: dict[str, Any] = {}
    for name in names:
        typ = IMPORT_EXPECTED[name]
        if name in IMPORT_PER_SEAT:
            arr = col(name)
            off = arr.offsets.to_numpy().astype(np.int64)
            off -= off[0]
            if not np.array_equal(off, seat_off):
                raise AuditInputError(f"{path}: column {name!r} must have n_seats={k} entries "
                                      "a row")
            flat = arr.flatten()
            if pa.types.is_string(flat.type):
                codes, values = _string_codes(flat)
                out[name], out[name + "_values"] = codes.reshape(n, k), values
            else:
                out[name] = _values(flat).reshape(n, k)
        elif name in IMPORT_VAR_COLUMNS:
            values, off = _list_parts(col(name))
            lens = np.diff(off)
            bad = np.flatnonzero((lens != 0) & (lens != k))
            if len(bad):
                raise AuditInputError(f"{path}: column {name!r} has {int(lens[bad[0]])} entries "
                                      f"in the row of hand {int(t.column('hand_id')[int(bad[0])])}"
                                      f": expected 0 (not recorded) or n_seats={k}")
            out[name] = (values.astype(np.int64, copy=False), off)
        elif pa.types.is_list(typ):  # the operator's tournament claims: no audit reads them
            continue
        elif pa.types.is_string(typ):
            out[name], out[name + "_values"] = _string_codes(col(name))
        else:
            out[name] = _values(col(name))
    return out


def table_order(b: Batch) -> np.ndarray:
    """Row indices sorted by (table_id, hand_no), computed once per batch (the audits that look
    across the hands of a table share it)."""
    order = b.derived.get("table_order")
    if order is None:
        order = np.lexsort((b.cols["hand_no"], b.cols["table_id"])).astype(np.int64)
        b.derived["table_order"] = order
    return order


def string_is(b: Batch, name: str, value: str) -> np.ndarray:
    """Per row: the string column ``name`` equals ``value`` (decided once per distinct value of
    the dictionary-encoded column, not per row)."""
    codes = b.cols[name]
    per_value = np.append(b.cols[name + "_values"] == value, False)
    if codes.dtype.kind == "f":  # nulls: NaN indices
        codes = np.where(np.isnan(codes), len(per_value) - 1, codes).astype(np.int64)
    return per_value[codes]
