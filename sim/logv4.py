"""The log's schema version 4 layout: every list column of the hand schema stored as one
``binary`` value a row holding its entries packed little-endian, and back.

Version 3 stores the per-seat arrays (``occupied``, ``stacks_start``, ...), the per-hand lists
(``burns``, ``board``, ``showdown_*``, ``seed_key``) and ``pots`` as Parquet list columns, whose
repetition and definition levels cost most of the log's encoding and decoding
(docs/benchmarks.md). Version 4 stores each of them as ``binary``: the row's entries one after
the other, each of its value type's width (``int8`` 1 byte, ``int32`` 4, ``int64``/``uint64`` 8,
``bool`` one byte 0 or 1), little-endian; ``pots`` as 20-byte records (int64 amount, int64 rake,
uint16 eligible_mask, uint16 winners_mask; ``POT_DTYPE``). A row's value is exactly the bytes of
its version-3 list's values, so the entries a row holds are its length over the width
(``n_seats`` for the per-seat columns) and ``sim.digest`` hashes both versions the same. The
column names and their order are version 3's; the import columns (``sim.schema.IMPORT_FIELDS``)
keep their types. numpy reads a value in one call: ``np.frombuffer(value, "<i8")``.

``to_v4`` and ``to_v3`` convert a table between the two layouts without per-row Python objects
(``holdem migrate RUN --to 4`` and the readers that want lists use them).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

# the list columns of schema version 3 stored as binary in version 4, with their value type
PACKED_COLUMNS: dict[str, pa.DataType] = {
    "seed_key": pa.uint64(), "occupied": pa.bool_(), "hole_cards": pa.int8(),
    "burns": pa.int8(), "board": pa.int8(), "policy": pa.int8(), "player_ids": pa.int64(),
    "stacks_start": pa.int64(), "rebuys": pa.int64(), "stacks_end": pa.int64(),
    "contributed": pa.int64(), "returned": pa.int64(), "won": pa.int64(),
    "folded": pa.bool_(), "timed_out": pa.bool_(), "showdown_seats": pa.int8(),
    "showdown_shown": pa.bool_(), "showdown_ranks": pa.int32(),
}
POT_DTYPE = np.dtype([("amount", "<i8"), ("rake", "<i8"), ("eligible_mask", "<u2"),
                      ("winners_mask", "<u2")])
POT_FIELDS = tuple(POT_DTYPE.names or ())
ALL_PACKED = (*PACKED_COLUMNS, "pots")


def width(name: str) -> int:
    """The bytes of one entry of the packed column ``name``."""
    if name == "pots":
        return POT_DTYPE.itemsize
    typ = PACKED_COLUMNS[name]
    return 1 if pa.types.is_boolean(typ) else typ.bit_width // 8


def _numpy_dtype(typ: pa.DataType) -> np.dtype:
    return np.dtype(np.uint8) if pa.types.is_boolean(typ) else np.dtype(
        typ.to_pandas_dtype()).newbyteorder("<")


def _bits(arr: pa.Array) -> np.ndarray:
    n, o = len(arr), arr.offset
    if n == 0:
        return np.zeros(0, np.uint8)
    bits = np.frombuffer(arr.buffers()[1], np.uint8)[o // 8:(o + n + 7) // 8]
    return np.unpackbits(bits, bitorder="little")[o % 8:o % 8 + n]


def binary_from(values: np.ndarray, offsets: np.ndarray) -> pa.Array:
    """A binary column from flat little-endian ``values`` (any fixed-width dtype) and per-row
    entry ``offsets`` (n + 1, from 0)."""
    w = values.dtype.itemsize
    byte_off = (np.asarray(offsets, np.int64) * w).astype(np.int32)
    data = np.ascontiguousarray(values).view(np.uint8)
    return pa.BinaryArray.from_buffers(pa.binary(), len(byte_off) - 1,
                                       [None, pa.py_buffer(byte_off), pa.py_buffer(data)])


def pack_list(arr: pa.Array) -> pa.Array:
    """One list column (no null) as its version-4 binary column."""
    off = arr.offsets.to_numpy().astype(np.int64)
    child = arr.values
    lo, hi = int(off[0]), int(off[-1])
    if pa.types.is_struct(child.type):  # pots
        flat = child.slice(lo, hi - lo)
        rec = np.empty(hi - lo, POT_DTYPE)
        for f, a in zip(POT_FIELDS, flat.flatten(), strict=True):
            rec[f] = a.to_numpy(zero_copy_only=False)
        values = rec
    elif pa.types.is_boolean(child.type):
        values = _bits(child.slice(lo, hi - lo))
    else:
        values = child.slice(lo, hi - lo).to_numpy(zero_copy_only=False)
    return binary_from(values, off - lo)


def unpack_binary(arr: pa.Array, typ: pa.DataType) -> pa.Array:
    """One version-4 binary column (no null) as the version-3 list of ``typ``."""
    n = len(arr)
    bufs = arr.buffers()
    boff = np.frombuffer(bufs[1], np.int32)[arr.offset:arr.offset + n + 1].astype(np.int64)
    data = np.zeros(0, np.uint8) if bufs[2] is None else np.frombuffer(bufs[2], np.uint8)
    data = data[boff[0]:boff[-1]]
    if pa.types.is_struct(typ):
        w = POT_DTYPE.itemsize
        rec = np.frombuffer(data.tobytes(), POT_DTYPE)
        child: pa.Array = pa.StructArray.from_arrays(
            [pa.array(rec[f].astype(rec.dtype[f].newbyteorder("="))) for f in POT_FIELDS],
            fields=list(typ))
    else:
        dt = _numpy_dtype(typ)
        w = dt.itemsize
        vals = np.frombuffer(data.tobytes(), dt)
        child = (pa.array(vals.astype(bool)) if pa.types.is_boolean(typ)
                 else pa.array(vals.astype(dt.newbyteorder("=")), typ))
    off = ((boff - boff[0]) // w).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(off, pa.int32()), child)


def v4_type(name: str, typ: pa.DataType) -> pa.DataType:
    """A column's type in version 4 (``typ``: its version-3 type)."""
    return pa.binary() if name in ALL_PACKED else typ


def to_v4(table: pa.Table, metadata: dict[bytes, bytes] | None = None) -> pa.Table:
    """A version-3 table (simulated or imported) in the version-4 layout, with the schema's
    metadata ``metadata`` (default: the table's, its ``holdem.schema_version`` set to 4)."""
    fields, cols = [], []
    for f, c in zip(table.schema, table.columns, strict=True):
        if f.name in ALL_PACKED and pa.types.is_list(f.type):
            c = pa.chunked_array([pack_list(ch) for ch in c.chunks], pa.binary())
            f = f.with_type(pa.binary())
        fields.append(f)
        cols.append(c)
    meta = dict(table.schema.metadata or {}) if metadata is None else metadata
    if metadata is None:
        meta[b"holdem.schema_version"] = b"4"
    return pa.Table.from_arrays(cols, schema=pa.schema(fields, metadata=meta))


def to_v3(table: pa.Table) -> pa.Table:
    """A version-4 table back in the version-3 layout, its schema version set to 3."""
    out = as_v3(table)
    meta = dict(out.schema.metadata or {})
    meta[b"holdem.schema_version"] = b"3"
    return out.replace_schema_metadata(meta)


def as_v3(table: pa.Table) -> pa.Table:
    """``table`` with its packed columns (schema version 4) as the version-3 lists, the other
    columns as they are (a version-3 table, or one without them, is returned unchanged): the
    readers that work on lists (replay, the tidy export, diff's divergence) read either version
    through it."""
    from sim.schema import HAND_SCHEMA

    if not any(n in ALL_PACKED and pa.types.is_binary(table.schema.field(n).type)
               for n in table.column_names):
        return table
    types = {f.name: f.type for f in HAND_SCHEMA}
    fields, cols = [], []
    for f, c in zip(table.schema, table.columns, strict=True):
        if f.name in ALL_PACKED and pa.types.is_binary(f.type):
            typ = types[f.name]
            c = pa.chunked_array([unpack_binary(ch, typ.value_type) for ch in c.chunks], typ)
            f = HAND_SCHEMA.field(f.name).with_nullable(f.nullable)
        fields.append(f)
        cols.append(c)
    return pa.Table.from_arrays(cols, schema=pa.schema(fields, metadata=table.schema.metadata))
