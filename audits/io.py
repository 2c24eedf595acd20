"""Reading a run folder for the audits: the file list, a schema check, and each batch file as
numpy columns (no per-hand Python objects).

A run folder holds ``manifest.json`` (optional here) and ``structure=<label>/batch-<NNNNN>.parquet``
files. Every problem with the input raises ``AuditInputError`` naming the file.

Encodings (declared here, independently of the simulator): cards 0..51 = rank * 4 + suit;
``deck`` is 52 int8 bytes; ``actions`` is packed 19-byte little-endian records.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ACTION_DTYPE = np.dtype([("street", "i1"), ("seat", "i1"), ("kind", "i1"),
                         ("to_street_total", "<i8"), ("added", "<i8")])
ANTE, SMALL_BLIND, BIG_BLIND, FOLD, CHECK, CALL, BET, RAISE, RETURN = 0, 1, 2, 6, 7, 8, 9, 10, 11

_L = pa.list_
EXPECTED: dict[str, pa.DataType] = {
    "hand_id": pa.int64(), "table_id": pa.int64(), "hand_no": pa.int32(),
    "structure": pa.string(), "format": pa.string(), "n_seats": pa.int8(),
    "occupied": _L(pa.bool_()), "button": pa.int8(), "sb_seat": pa.int8(), "bb_seat": pa.int8(),
    "small_blind": pa.int64(), "big_blind": pa.int64(), "ante": pa.int64(),
    "ante_mode": pa.int8(), "ante_trimming": pa.bool_(), "min_bet": pa.int64(),
    "small_bet": pa.int64(), "big_bet": pa.int64(), "raise_cap": pa.int8(),
    "rake_bps": pa.int32(), "rake_cap": pa.int64(), "no_flop_no_drop": pa.bool_(),
    "deck": pa.binary(52), "hole_cards": _L(pa.int8()), "burns": _L(pa.int8()),
    "board": _L(pa.int8()), "stacks_start": _L(pa.int64()), "rebuys": _L(pa.int64()),
    "stacks_end": _L(pa.int64()), "contributed": _L(pa.int64()), "returned": _L(pa.int64()),
    "won": _L(pa.int64()), "folded": _L(pa.bool_()), "rake": pa.int64(), "actions": pa.binary(),
    "showdown_seats": _L(pa.int8()), "showdown_shown": _L(pa.bool_()),
    "pots": _L(pa.struct([("amount", pa.int64()), ("rake", pa.int64()),
                          ("eligible_mask", pa.uint16()), ("winners_mask", pa.uint16())])),
}
OPTIONAL = frozenset({"deck"})  # absent (or null) decks make the deal audit not applicable
SEAT_COLUMNS = ("occupied", "stacks_start", "rebuys", "stacks_end", "contributed", "returned",
                "won", "folded")
VAR_COLUMNS = ("burns", "board", "showdown_seats", "showdown_shown")


class AuditInputError(Exception):
    """Unusable input (missing, corrupt or foreign file, schema mismatch): exit code 2."""


def load_manifest(run: str | Path) -> dict[str, Any] | None:
    """The run's manifest.json, or None when absent."""
    path = Path(run) / "manifest.json"
    if not path.exists():
        return None
    try:
        m = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise AuditInputError(f"{path}: not a readable JSON manifest ({e})") from None
    if not isinstance(m, dict):
        raise AuditInputError(f"{path}: not a JSON object")
    return m


def run_files(run: str | Path) -> list[Path]:
    """The batch files of a run folder (from the manifest when present, else by globbing)."""
    root = Path(run)
    if not root.is_dir():
        raise AuditInputError(f"{root}: no such run folder")
    m = load_manifest(root)
    if m is not None and isinstance(m.get("files"), list) and m["files"]:
        files = [root / str(f["path"]) for f in m["files"]]
        for f in files:
            if not f.exists():
                raise AuditInputError(f"{f}: listed in manifest.json but missing")
    else:
        files = sorted(root.glob("structure=*/batch-*.parquet"))
    if not files:
        raise AuditInputError(f"{root}: no batch files (structure=<label>/batch-<N>.parquet)")
    return files


def check_schema(schema: pa.Schema, path: str | Path) -> None:
    """Raise AuditInputError explaining every missing or mistyped column."""
    problems = []
    for name, typ in EXPECTED.items():
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


def _list_parts(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    offsets = arr.offsets.to_numpy()
    values = arr.flatten().to_numpy(zero_copy_only=False)
    return values, (offsets - offsets[0]).astype(np.int64)


def read_batch(path: str | Path, columns: list[str] | None = None) -> Batch:
    """Read and check one batch file."""
    path = Path(path)
    if not path.exists():
        raise AuditInputError(f"{path}: missing")
    try:
        pf = pq.ParquetFile(path)
        schema = pf.schema_arrow
    except Exception as e:  # corrupt / not parquet
        raise AuditInputError(f"{path}: not a readable Parquet file ({type(e).__name__}: "
                              f"{str(e).splitlines()[0] if str(e) else ''})") from None
    check_schema(schema, path)
    try:
        t = pf.read(columns=[c for c in EXPECTED if schema.get_field_index(c) >= 0])
    except Exception as e:
        raise AuditInputError(f"{path}: corrupt ({type(e).__name__}: {e})") from None
    t = t.combine_chunks()
    n = t.num_rows
    if n == 0:
        raise AuditInputError(f"{path}: no rows")
    nseats = t.column("n_seats").to_numpy()
    k = int(nseats[0])
    if not (nseats == k).all() or not 2 <= k <= 10:
        raise AuditInputError(f"{path}: n_seats must be one value in 2..10 per file")

    def col(name: str) -> pa.Array:
        c = t.column(name)
        return c.chunk(0) if c.num_chunks else pa.array([], EXPECTED[name])

    cols: dict[str, np.ndarray] = {}
    for name, typ in EXPECTED.items():
        if pa.types.is_list(typ) or name in ("deck", "actions") or name in OPTIONAL:
            continue
        if pa.types.is_string(typ):
            enc = col(name).dictionary_encode()
            cols[name] = enc.indices.to_numpy(zero_copy_only=False)
            cols[name + "_values"] = np.asarray(enc.dictionary.to_pylist(), dtype=object)
            continue
        cols[name] = col(name).to_numpy(zero_copy_only=False)
    seat: dict[str, np.ndarray] = {}
    for name in SEAT_COLUMNS:
        values, off = _list_parts(col(name))
        if not np.array_equal(off, np.arange(n + 1) * k):
            raise AuditInputError(f"{path}: column {name!r} must have n_seats={k} entries a row")
        seat[name] = values.reshape(n, k)
    hv, hoff = _list_parts(col("hole_cards"))
    if not np.array_equal(hoff, np.arange(n + 1) * 2 * k):
        raise AuditInputError(f"{path}: column 'hole_cards' must have 2 * n_seats entries a row")
    hole = hv.astype(np.int8).reshape(n, 2 * k)
    var = {name: _list_parts(col(name)) for name in VAR_COLUMNS}
    deck = None
    if "deck" in t.column_names and t.column("deck").null_count == 0:
        dk = col("deck")
        deck = np.frombuffer(dk.buffers()[1], np.int8)[dk.offset * 52:(dk.offset + n) * 52]
        deck = deck.reshape(n, 52)
    acts = col("actions")
    aoff = np.frombuffer(acts.buffers()[1], np.int32)[acts.offset:acts.offset + n + 1]
    aoff = aoff.astype(np.int64)
    if ((aoff - aoff[0]) % ACTION_DTYPE.itemsize).any():
        raise AuditInputError(f"{path}: 'actions' values are not whole 19-byte records")
    data = np.frombuffer(acts.buffers()[2], np.uint8)[aoff[0]:aoff[-1]]
    rec = data.view(ACTION_DTYPE) if len(data) else np.zeros(0, ACTION_DTYPE)
    act = {f: np.ascontiguousarray(rec[f]).astype(np.int64) for f in ACTION_DTYPE.names}
    act_off = (aoff - aoff[0]) // ACTION_DTYPE.itemsize
    pots_arr = col("pots")
    poff = pots_arr.offsets.to_numpy().astype(np.int64)
    pvals = pots_arr.flatten()
    pots = {f: pvals.field(f).to_numpy(zero_copy_only=False).astype(np.int64)
            for f in ("amount", "rake", "eligible_mask", "winners_mask")}
    return Batch(path=str(path), n=n, k=k, cols=cols, seat=seat, var=var, deck=deck, hole=hole,
                 act=act, act_off=act_off, pots=pots, pot_off=poff - poff[0])


def string_value(b: Batch, name: str) -> np.ndarray:
    """A string column as an object array of values per row."""
    return b.cols[name + "_values"][b.cols[name]]
