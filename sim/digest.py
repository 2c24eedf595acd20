"""A 64-bit content digest per logged hand, computed over the flat Arrow buffers.

``hand_digests(table)`` returns one ``uint64`` per row. Two rows have the same digest iff (up to
64-bit collisions) every *content* column holds the same value: every column of the hand schema
except ``run_id`` (the spec fingerprint names the run, not the hand: a new ``RunSpec`` field or
another ``hands`` count changes it while every hand stays the same), ``digest`` (the stored
value of this very function: ``with_digests`` appends it when a table is made) and
``player_ids`` (a label the session derives from the table's seat history — a new id exactly
where a seat was empty in the table's previous hand — which the digested ``occupied`` and
``table_id`` of the table's hands already determine; ``tests/sim/test_batch.py`` checks that
rule). Schema version 4 (``sim.logv4``) stores the list columns as binary values holding the
same bytes, and ``pots`` as packed records whose fields are hashed as version 3's: a hand has one
digest in both versions. ``fault`` is
content: it says which engine dealt the hand, and a hand dealt by a broken engine is a different
hand.

How: each column is seen as one byte segment per row (a fixed-width value, a list's child values
between its offsets, a binary/string value, one byte per ``bool``; ``pots`` hashes each struct
field as its own segment; the nullable ``fault`` also hashes its validity). A segment of L bytes
hashes to the sum of its 8-byte little-endian words (the last one zero-padded), each put through
a bijective mix (xor a key, one 64-bit multiply, xorshift) under a key made of the column's
index, L and the word's position; a row's digest is the murmur3 fmix64 of the sum over its
columns. Sums keep the kernels throughput-bound (unaligned 8-byte loads, no dependency chain);
the per-word keys make the digest sensitive to order, position and length; one changed word
always changes the sum. Not cryptographic: it detects changes, it does not resist forgery. The
digest depends only on the values, not on chunking, slicing, Parquet round trips, buffer
alignment or which kernel (fixed-width or offsets) hashed a column.

``DIGEST_VERSION`` names this algorithm; stored digests (``tests/golden``) carry it. Pure: numpy
and numba over Arrow buffers, no files.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba as nb
import numpy as np
import pyarrow as pa

DIGEST_VERSION = 1
EXCLUDED_COLUMNS = ("run_id", "digest", "player_ids")

_P1 = np.uint64(0x9E3779B185EBCA87)
_P2 = np.uint64(0xC2B2AE3D27D4EB4F)
_P3 = np.uint64(0x165667B19E3779F9)
_P4 = np.uint64(0x85EBCA77C2B2AE63)
_P5 = np.uint64(0x27D4EB2F165667C5)
_SEED = np.uint64(0x484F4C44454D3031)  # "HOLDEM01"
_EMPTY_U8 = np.zeros(0, dtype=np.uint8)


# ---------------------------------------------------------------- unaligned little-endian loads

if nb.config.DISABLE_JIT:  # plain Python (slow, same values)
    def _load(d: np.ndarray, p: int, width: int) -> np.uint64:
        return np.uint64(int.from_bytes(d[p:p + width].tobytes(), "little"))

    def _load8(d: np.ndarray, p: int) -> np.uint64:
        return _load(d, p, 8)

    def _load4(d: np.ndarray, p: int) -> np.uint64:
        return _load(d, p, 4)

    def _load2(d: np.ndarray, p: int) -> np.uint64:
        return _load(d, p, 2)
else:
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic

    def _loader(bits: int):  # type: ignore[no-untyped-def]
        @intrinsic
        def load(typingctx, arr, idx):  # type: ignore[no-untyped-def]
            def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
                ary = context.make_array(signature.args[0])(context, builder, args[0])
                ptr = builder.gep(ary.data, [args[1]])
                value = builder.load(builder.bitcast(ptr, ir.IntType(bits).as_pointer()),
                                     align=1)
                return builder.zext(value, ir.IntType(64)) if bits < 64 else value
            return types.uint64(arr, idx), codegen
        return load

    _load8 = _loader(64)
    _load4 = _loader(32)
    _load2 = _loader(16)


# ---------------------------------------------------------------- the hash

@nb.njit(inline="always")
def _fmix(h: np.uint64) -> np.uint64:
    h ^= h >> np.uint64(33)
    h *= _P2
    h ^= h >> np.uint64(29)
    h *= _P3
    h ^= h >> np.uint64(32)
    return h


@nb.njit(inline="always")
def _word(w: np.uint64, key: np.uint64) -> np.uint64:
    """A bijective mix of one word under its key (column, position in the segment)."""
    t = (w ^ key) * _P1
    return t ^ (t >> np.uint64(29))


@nb.njit(inline="always")
def _tail(d: np.ndarray, p: int, r: int) -> np.uint64:
    """The r (1..7) bytes at d[p:], little-endian, zero-padded to a word."""
    if p + 8 <= len(d):
        return _load8(d, p) & ((np.uint64(1) << np.uint64(8 * r)) - np.uint64(1))
    w = np.uint64(0)
    for t in range(r):
        w |= np.uint64(d[p + t]) << np.uint64(8 * t)
    return w


# Every kernel hashes a row's segment of L bytes the same way: the sum over its words k of
# _word(word k, key + L + k * P5), the last word zero-padded (an empty segment adds 0).

@nb.njit(cache=True, nogil=True)
def _add_var(d: np.ndarray, offs: np.ndarray, mult: int, key: np.uint64,
             H: np.ndarray) -> None:
    """Add to H[i] the hash of row i's segment d[offs[i]*mult : offs[i+1]*mult]."""
    for i in range(len(H)):
        a = offs[i] * mult
        n_bytes = offs[i + 1] * mult - a
        full = n_bytes // 8
        r = n_bytes - 8 * full
        acc = np.uint64(0)
        q = key + np.uint64(n_bytes)
        for k in range(full):
            acc += _word(_load8(d, a + 8 * k), q)
            q += _P5
        if r:
            acc += _word(_tail(d, a + 8 * full, r), q)
        H[i] += acc


@nb.njit(cache=True, nogil=True)
def _add_fixed(d: np.ndarray, stride: int, key: np.uint64, H: np.ndarray) -> None:
    """Add to H[i] the hash of row i's segment d[i*stride : (i+1)*stride] (as _add_var)."""
    full = stride // 8
    r = stride - 8 * full
    q0 = key + np.uint64(stride)
    qt = q0 + np.uint64(full) * _P5
    for i in range(len(H)):
        a = i * stride
        acc = np.uint64(0)
        q = q0
        for k in range(full):
            acc += _word(_load8(d, a + 8 * k), q)
            q += _P5
        if r:
            acc += _word(_tail(d, a + 8 * full, r), qt)
        H[i] += acc


@nb.njit(cache=True, nogil=True)
def _add_scalar(v: np.ndarray, width: int, key: np.uint64, H: np.ndarray) -> None:
    """Add to H[i] the hash of the unsigned value v[i] of ``width`` (1..8) bytes (as
    _add_fixed would hash its bytes)."""
    q = key + np.uint64(width)
    for i in range(len(H)):
        H[i] += _word(np.uint64(v[i]), q)


@nb.njit(cache=True, nogil=True)
def _regular(offs: np.ndarray) -> int:
    """The common length of every list (offsets step), or -1 if they differ."""
    if len(offs) < 2:
        return -1
    step = offs[1] - offs[0]
    for i in range(1, len(offs) - 1):
        if offs[i + 1] - offs[i] != step:
            return -1
    return step


@nb.njit(cache=True, nogil=True)
def _finish(H: np.ndarray) -> None:
    for i in range(len(H)):
        H[i] = _fmix(H[i] ^ _SEED)


@nb.njit(cache=True, nogil=True)
def _combine(d: np.ndarray) -> np.uint64:
    h = _SEED + np.uint64(len(d)) * _P5
    for i in range(len(d)):
        h ^= _word(d[i], _P2)
        h = ((h << np.uint64(27)) | (h >> np.uint64(37))) * _P1 + _P4
    return _fmix(h)


def _column_key(index: int) -> np.uint64:
    with np.errstate(over="ignore"):
        return np.uint64(_fmix(np.uint64(index + 1) * _P3))


def content_columns(names: Sequence[str]) -> list[str]:
    """The columns a digest covers, in the given (schema) order: all but ``EXCLUDED_COLUMNS``."""
    return [c for c in names if c not in EXCLUDED_COLUMNS]


# ---------------------------------------------------------------- Arrow arrays -> byte segments

# A segment column: (bytes, offsets or None, bytes per offset unit, stride for fixed width)
_Segment = tuple[np.ndarray, np.ndarray | None, int, int]


def _u8(buf: pa.Buffer | None) -> np.ndarray:
    return _EMPTY_U8 if buf is None else np.frombuffer(buf, dtype=np.uint8)


def _bits(buf: pa.Buffer | None, offset: int, n: int) -> np.ndarray:
    """A bit-packed Arrow buffer (values or validity) as one byte (0/1) per value."""
    if buf is None:
        return np.zeros(n, dtype=np.uint8)
    packed = np.frombuffer(buf, dtype=np.uint8)[offset // 8:(offset + n + 7) // 8 + 1]
    return np.unpackbits(packed, bitorder="little")[offset % 8:offset % 8 + n]


def _values_bytes(arr: pa.Array) -> tuple[np.ndarray, int]:
    """(bytes of the array's values from its logical start, bytes per value) for a primitive
    or fixed-size binary array; bools become one byte each."""
    t = arr.type
    if pa.types.is_boolean(t):
        return _bits(arr.buffers()[1], arr.offset, len(arr)), 1
    if pa.types.is_fixed_size_binary(t):
        width = t.byte_width
    elif pa.types.is_integer(t) or pa.types.is_floating(t):
        width = t.bit_width // 8
    else:
        raise TypeError(f"digest: unsupported value type {t}")
    data = _u8(arr.buffers()[1])
    start = arr.offset * width
    return data[start:start + len(arr) * width], width


def _segments(arr: pa.Array, nullable: bool) -> list[_Segment]:
    n = len(arr)
    t = arr.type
    segs: list[_Segment] = []
    if nullable:
        bufs = arr.buffers()
        valid = (np.ones(n, dtype=np.uint8) if bufs[0] is None
                 else _bits(bufs[0], arr.offset, n))
        segs.append((valid, None, 0, 1))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        offsets = arr.offsets.to_numpy()
        child = arr.values
        if pa.types.is_string(child.type):  # list<string> (an import's ``players``)
            inner = np.frombuffer(child.buffers()[1], dtype=np.int32)[
                child.offset:child.offset + len(child) + 1]
            lengths = np.diff(inner).astype(np.int32)  # each string's length, then its bytes
            segs.append((lengths.view(np.uint8), offsets, 4, 0))
            segs.append((_u8(child.buffers()[2]), inner[offsets], 1, 0))
            return segs
        for f in (child.flatten() if pa.types.is_struct(child.type) else [child]):
            data, width = _values_bytes(f)
            segs.append((data, offsets, width, 0))
    elif (pa.types.is_binary(t) or pa.types.is_string(t) or pa.types.is_large_binary(t)
          or pa.types.is_large_string(t)):
        if arr.null_count == n:  # every value null (a clean run's ``fault``): all empty
            segs.append((_EMPTY_U8, np.zeros(n + 1, dtype=np.int32), 1, 0))
            return segs
        if arr.null_count:  # a null's bytes are not content: hash it as empty (+ validity)
            empty: bytes | str = b"" if (pa.types.is_binary(t)
                                         or pa.types.is_large_binary(t)) else ""
            arr = arr.fill_null(empty)
        bufs = arr.buffers()
        large = pa.types.is_large_binary(t) or pa.types.is_large_string(t)
        if bufs[1] is None:
            offsets = np.zeros(n + 1, dtype=np.int32)
        else:
            offsets = np.frombuffer(bufs[1], dtype=np.int64 if large else np.int32)
            offsets = offsets[arr.offset:arr.offset + n + 1]
        segs.append((_u8(bufs[2]), offsets, 1, 0))
    else:
        data, width = _values_bytes(arr)
        segs.append((data, None, 0, width))
    return segs


_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _add_segment(data: np.ndarray, offsets: np.ndarray | None, width: int, stride: int,
                 key: np.uint64, H: np.ndarray) -> None:
    """Hash one segment column into H with the fastest kernel that gives the same values."""
    if offsets is not None:
        step = int(_regular(offsets))
        if step < 0:
            _add_var(data, offsets, width, key, H)
            return
        data = data[int(offsets[0]) * width:]
        stride = step * width
    if stride in _UNSIGNED and data.size >= stride * len(H):
        _add_scalar(data[:stride * len(H)].view(_UNSIGNED[stride]), stride, key, H)
    elif stride > 0:
        _add_fixed(data, stride, key, H)


def _pot_segments(arr: pa.Array) -> list[_Segment]:
    """A schema-4 ``pots`` column (binary, 20-byte records: ``sim.logv4.POT_DTYPE``) as the
    segments of its schema-3 list of structs: each field's values with the offsets in pots (the
    same digest in both versions)."""
    from sim.logv4 import POT_DTYPE, POT_FIELDS

    n = len(arr)
    bufs = arr.buffers()
    boff = np.frombuffer(bufs[1], np.int32)[arr.offset:arr.offset + n + 1].astype(np.int64)
    rel = boff - boff[0]
    if (rel % POT_DTYPE.itemsize).any():
        row = int(np.flatnonzero(np.diff(rel) % POT_DTYPE.itemsize)[0])
        raise ValueError(f"digest: pots: row {row} is not whole {POT_DTYPE.itemsize}-byte "
                         "records")
    rec = np.frombuffer(_u8(bufs[2])[boff[0]:boff[-1]].tobytes(), POT_DTYPE)
    offsets = rel // POT_DTYPE.itemsize
    return [(np.ascontiguousarray(rec[f]).view(np.uint8), offsets, POT_DTYPE[f].itemsize, 0)
            for f in POT_FIELDS]


def _batch_digests(batch: pa.RecordBatch, columns: Sequence[str]) -> np.ndarray:
    H = np.zeros(batch.num_rows, dtype=np.uint64)
    if batch.num_rows == 0:
        return H
    schema = batch.schema
    j = 0
    with np.errstate(over="ignore"):  # uint64 wrap-around is the point (when un-jitted)
        for name in columns:
            col = batch.column(name)
            segs = (_pot_segments(col) if name == "pots" and pa.types.is_binary(col.type)
                    else _segments(col, schema.field(name).nullable))
            for data, offsets, width, stride in segs:
                _add_segment(data, offsets, width, stride, _column_key(j), H)
                j += 1
        _finish(H)
    return H


def hand_digests(data: pa.Table | pa.RecordBatch,
                 columns: Sequence[str] | None = None) -> np.ndarray:
    """One uint64 content digest per row (``columns``: default every column but ``run_id``,
    in the table's order; pass the same list to compare tables whose schemas differ)."""
    cols = content_columns(data.schema.names) if columns is None else list(columns)
    missing = [c for c in cols if c not in data.schema.names]
    if missing:
        raise KeyError(f"digest: no column {missing[0]!r}")
    if isinstance(data, pa.RecordBatch):
        return _batch_digests(data, cols)
    out = np.empty(data.num_rows, dtype=np.uint64)
    pos = 0
    for batch in data.select(cols).to_batches():
        out[pos:pos + batch.num_rows] = _batch_digests(batch, cols)
        pos += batch.num_rows
    return out


def with_digests(table: pa.Table) -> pa.Table:
    """``table`` (every hand column but ``digest``) with its ``digest`` column appended."""
    from sim.schema import HAND_SCHEMA

    field = HAND_SCHEMA.field("digest")
    return table.append_column(field, pa.array(hand_digests(table), pa.uint64()))


def combine_digests(digests: np.ndarray) -> int:
    """One order-sensitive digest of a sequence of digests (and of its length)."""
    with np.errstate(over="ignore"):
        return int(_combine(np.ascontiguousarray(digests, dtype=np.uint64)))


def hex_digest(value: int) -> str:
    return f"{value:016x}"
