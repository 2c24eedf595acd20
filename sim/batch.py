"""One batch of a run: hands -> an Arrow table in ``sim.schema.HAND_SCHEMA`` (or its schema
version 4, ``sim.schema.HAND_SCHEMA_V4``).

The compiled ``sim.session.play_tables`` fills preallocated arrays; this module turns them into
Arrow columns without per-hand Python objects (list columns are built from flat buffers and
offsets). A batch depends only on (spec, structure, batch index).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
from numba import njit

from sim import pybots
from sim import session as ss
from sim.cards import N_CARDS
from sim.chacha import os_key
from sim.config import MAX_SEATS, AnteMode, Structure, TableConfig
from sim.digest import with_digests
from sim.faults import fault_code
from sim.hand import config_block
from sim.layout import LG_SIZE
from sim.logv4 import POT_DTYPE, binary_from
from sim.runspec import POLICY_NAMES, RunSpec
from sim.schema import ACTION_DTYPE, LOG_VERSION_3, POT_TYPE, hand_schema

TABLE_BITS = 20
STRUCT_SHIFT = 40


@dataclass(frozen=True)
class BatchResult:
    table: pa.Table
    counts: dict[str, int]
    hands: int
    seconds: float
    play_seconds: float = 0.0  # of ``seconds``: the compiled engine and bots alone


def table_config(spec: RunSpec, structure: Structure, batch_index: int = 0, *,
                 table: tuple[int, str] | None = None) -> TableConfig:
    """The base table config of one batch (its seat count and format: ``spec.batch_table``,
    or ``table`` when the caller has it; tournament levels scale the blinds)."""
    seats, fmt = spec.batch_table(structure, batch_index) if table is None else table
    return TableConfig(
        n_seats=seats, structure=structure, small_blind=spec.small_blind,
        big_blind=spec.big_blind, rake_bps=spec.rake_bps if fmt == "cash" else 0,
        rake_cap=spec.cash_rake_cap if fmt == "cash" else 0,
        ante_trimming=False, raise_cap=spec.raise_cap, no_flop_no_drop=spec.no_flop_no_drop,
    )


def _params(spec: RunSpec, structure: Structure, batch_index: int, *,
            table: tuple[int, str] | None = None) -> np.ndarray:
    table = spec.batch_table(structure, batch_index) if table is None else table
    seats, fmt = table
    bb = spec.big_blind
    P = np.zeros(ss.P_SIZE, dtype=np.int64)
    P[ss.P_FORMAT] = 0 if fmt == "cash" else 1
    P[ss.P_N_SEATS] = seats
    P[ss.P_BUY_IN] = spec.buy_in_bb * bb
    P[ss.P_BUY_IN_MIN] = (spec.buy_in_bb if spec.buy_in_min_bb is None else spec.buy_in_min_bb) * bb
    P[ss.P_TOURN_STACK] = (spec.buy_in_bb if spec.tournament_stack_bb is None
                           else spec.tournament_stack_bb) * bb
    P[ss.P_LEAVE_ABOVE] = spec.leave_above_bb * bb
    P[ss.P_BOTS] = 0 if spec.bots == "classic" else 1
    P[ss.P_HANDS_PER_TABLE] = spec.hands_per_table
    P[ss.P_LEVEL_HANDS] = spec.level_hands
    P[ss.P_TIMEOUT_PPM] = spec.timeout_ppm
    P[ss.P_LEAVE_PPM] = spec.leave_ppm if fmt == "cash" else 0
    P[ss.P_SEED] = spec.seed
    P[ss.P_TABLE_BASE] = (int(structure) << STRUCT_SHIFT) | (batch_index << TABLE_BITS)
    P[ss.P_SB] = spec.small_blind
    P[ss.P_BB] = spec.big_blind
    P[ss.P_RAKE_CAP] = table_config(spec, structure, batch_index, table=table).rake_cap
    P[ss.P_FAULT] = fault_code(spec.inject)
    _game_params(spec, fmt, P)
    if spec.generator == "os-chacha20":
        P[ss.P_GENERATOR] = 1
        P[ss.P_KEY_ : ss.P_KEY_ + 8] = os_key()  # fresh, unrecorded: not reproducible
    return P


def _game_params(spec: RunSpec, fmt: str, P: np.ndarray) -> None:
    """The game's own schedule into the run parameters (each left at today's default when the
    spec does not set it)."""
    ante_code = {"every-player": int(AnteMode.UNIFORM), "big-blind": int(AnteMode.BIG_BLIND)}
    if fmt == "cash" and spec.straddle != "none":
        P[ss.P_STRADDLE] = spec.straddle_chips
        P[ss.P_STRADDLE_PCT] = 100 if spec.straddle == "always" else spec.straddle_pct
        P[ss.P_STRADDLE_RAISE] = 1 if spec.straddle_raise == "straddle" else 0
    if fmt == "cash" and spec.ante:
        P[ss.P_ANTE] = spec.ante
        P[ss.P_ANTE_MODE] = ante_code[spec.ante_mode]
    P[ss.P_RAKE_CAPS_ : ss.P_RAKE_CAPS_ + MAX_SEATS + 1] = -1
    for players, cap in spec.rake_caps_by_players if fmt == "cash" else ():
        P[ss.P_RAKE_CAPS_ + players] = cap
    P[ss.P_SMALL_BET] = spec.small_bet or 0
    P[ss.P_BIG_BET] = spec.big_bet or 0
    if spec.levels is not None:
        P[ss.P_N_LEVELS] = len(spec.levels)
        P[ss.P_LEVEL_ANTE_MODE] = ante_code[spec.tournament_ante_mode]
        for i, level in enumerate(spec.levels):
            P[ss.P_LEVELS_ + 3 * i : ss.P_LEVELS_ + 3 * i + 3] = level
    if spec.bot_mix is not None:
        P[ss.P_BOT_MIX] = 1
        for name, weight in spec.bot_mix:
            P[ss.P_BOT_W_ + POLICY_NAMES.index(name)] = weight
    if fmt == "tournament" and spec.rebuys is not None:
        P[ss.P_RB_MAX], P[ss.P_RB_UNTIL], P[ss.P_RB_BELOW], P[ss.P_RB_CHIPS] = spec.rebuys
    if fmt == "tournament" and spec.add_on is not None:
        P[ss.P_AO_LEVEL], P[ss.P_AO_CHIPS] = spec.add_on
    P[ss.P_LEVEL_SECONDS] = spec.level_seconds
    P[ss.P_SEC_HAND] = spec.seconds_per_hand
    P[ss.P_SEC_ACTION] = spec.seconds_per_action
    for j, bot in enumerate(spec.python_bots or ()):  # policy codes FIRST_CODE + j
        P[ss.P_PY_N] = j + 1
        P[ss.P_PY_W_ + j] = bot.weight


def _list(values: np.ndarray, typ: pa.DataType, offsets: np.ndarray | None = None) -> pa.Array:
    """A list column from a flat buffer: fixed width when ``values`` is 2-D, else ``offsets``."""
    if offsets is None:
        n, width = values.shape
        offsets = np.arange(0, (n + 1) * width, width, dtype=np.int32)
        values = values.reshape(-1)
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(values, typ))


def _pool_empty(shape: tuple[int, ...], dtype: np.dtype | type) -> np.ndarray:
    """An uninitialised array in Arrow's memory pool. The pool (mimalloc) keeps freed memory for
    the next batch, while large numpy allocations are fresh pages every time (page faults and
    zeroing: a copy into them ran 8x slower, measured)."""
    dt = np.dtype(dtype)
    count = int(np.prod(shape))
    buf = pa.allocate_buffer(max(1, count * dt.itemsize))
    return np.frombuffer(buf, dt, count).reshape(shape)


def _pool_copy(src: np.ndarray, dtype: np.dtype | type | None = None) -> np.ndarray:
    """A C-contiguous copy of ``src`` (cast to ``dtype``) in Arrow's memory pool."""
    out = _pool_empty(src.shape, src.dtype if dtype is None else dtype)
    np.copyto(out, src, casting="unsafe")
    return out


@njit(cache=True, _nrt=False)
def _pack_rows(mat, counts, out):  # pragma: no cover - compiled
    """The first ``counts[i]`` entries of each row i of ``mat`` (n, w, f), concatenated into
    ``out`` (sum(counts), f): a compiled boolean-mask gather, one pass, no temporaries."""
    m = 0
    for i in range(mat.shape[0]):
        for j in range(counts[i]):
            for f in range(mat.shape[2]):
                out[m, f] = mat[i, j, f]
            m += 1


def _packed(mat: np.ndarray, counts: np.ndarray, dtype: np.dtype | type) -> tuple[np.ndarray,
                                                                                np.ndarray]:
    """(values (m, f) of ``dtype``, int32 offsets (n + 1)) of the leading ``counts`` entries of
    each row of ``mat`` (n, w) or (n, w, f)."""
    offsets = np.zeros(len(counts) + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    mat3 = mat[:, :, None] if mat.ndim == 2 else mat
    out = _pool_empty((int(offsets[-1]), mat3.shape[2]), dtype)
    _pack_rows(mat3, counts, out)
    return out, offsets


class _Buffers:
    """The arrays ``play_tables`` fills, kept from batch to batch in this process: a new batch
    of the same shape writes into memory already mapped (fresh buffers cost page faults and
    zeroing, 14% of a batch). Every entry a batch reads is written by that batch first (counts
    such as ``H_N_BURN`` say how many), so nothing needs clearing; ``_to_arrow`` copies what it
    keeps, so a returned table never aliases them."""

    _cache: dict[int, _Buffers] = {}

    def __init__(self, n: int) -> None:
        self.H = np.empty((n, ss.H_SIZE), dtype=np.int64)
        self._se = np.empty(ss.SE_SIZE * n * MAX_SEATS, dtype=np.int64)
        self.SE = self._se[:0].reshape(ss.SE_SIZE, 0, 0)
        self.DECK = np.empty((n, N_CARDS), dtype=np.int8)
        self.BOARD = np.empty((n, 5), dtype=np.int8)
        self.BURNS = np.empty((n, 3), dtype=np.int8)
        self.SHOW = np.empty((n, MAX_SEATS, 3), dtype=np.int64)
        self.POTS = np.empty((n, MAX_SEATS + 1, 4), dtype=np.int64)
        self.ACT = np.empty(max(4096, n * 24), dtype=ACTION_DTYPE)

    @classmethod
    def get(cls, n: int, k: int) -> _Buffers:
        """The buffers for ``n`` hands at ``k`` seats (batches of a mixed population differ in
        ``k`` only: the per-seat array is a contiguous view of one allocation for 10 seats)."""
        if n not in cls._cache:
            cls._cache.clear()  # one batch size at a time: a run's batches share theirs
            cls._cache[n] = cls(n)
        b = cls._cache[n]
        b.SE = b._se[:ss.SE_SIZE * n * k].reshape(ss.SE_SIZE, n, k)
        return b


def simulate_batch(spec: RunSpec, structure: Structure, batch_index: int,
                   version: int = LOG_VERSION_3) -> BatchResult:
    """Play one batch and return its rows in the log schema ``version``: 3 (the default: the
    lists as lists, what a reader in this process inspects) or 4 (the lists packed,
    ``sim.logv4``); the same hands and digests. ``cluster.flows.simulate`` writes the files in
    ``sim.schema.SCHEMA_VERSION`` (4) unless told otherwise."""
    schema = hand_schema(version)
    t0 = time.perf_counter()
    n = spec.batch_hands(batch_index)
    table = spec.batch_table(structure, batch_index)  # the batch's plan, computed once
    k = table[0]
    cfg = config_block(table_config(spec, structure, batch_index, table=table))
    P = _params(spec, structure, batch_index, table=table)
    TS = np.zeros(ss.T_SIZE, dtype=np.int64)
    TS[ss.T_TABLE] = -1
    b = _Buffers.get(n, k)
    counts = np.zeros(ss.N_COUNTS, dtype=np.int64)
    W, log, rs = ss.new_workspace()
    py: tuple[bool, ...] = ()  # built-in bots only: the compiled variant without Python calls
    if spec.python_bots:
        pybots.bind(spec.python_bots, W[ss.W_STATE], W[ss.W_LEGAL, :LG_SIZE])
        py = (True,)  # the variant that calls the Python bots (play_tables, py)
    done = 0
    t_play = time.perf_counter()
    while done < n:
        done = ss.play_tables(cfg, P, TS, n, done, b.H, b.SE, b.DECK, b.BOARD, b.BURNS, b.SHOW,
                              b.POTS, b.ACT, counts, W, log, rs, *py)
        if done < n:
            b.ACT = np.concatenate([b.ACT, np.empty_like(b.ACT)])
    t_play = time.perf_counter() - t_play
    rows = _to_arrow(spec, structure, batch_index, n, k, b.H, b.SE, b.DECK, b.BOARD, b.BURNS,
                     b.SHOW, b.POTS, b.ACT, table=table, schema=schema)
    return BatchResult(rows, {name: int(c) for name, c in zip(ss.COUNT_NAMES, counts,
                                                              strict=True)},
                       n, time.perf_counter() - t0, t_play)


def _player_ids(tags: np.ndarray, first_hand_id: int) -> np.ndarray:
    """Run-wide player ids from the session's per-batch tags (``16 * i + seat``, -1 for an
    empty seat): ``16 * hand_id + seat`` of the hand the player first played, -1 stays."""
    out = _pool_empty(tags.shape, np.int64)
    np.add(tags, 16 * first_hand_id, out=out)
    out[tags < 0] = -1
    return out


def _to_arrow(spec: RunSpec, structure: Structure, batch_index: int, n: int, k: int,
              H: np.ndarray, SE: np.ndarray, DECK: np.ndarray, BOARD: np.ndarray,
              BURNS: np.ndarray, SHOW: np.ndarray, POTS: np.ndarray, ACT: np.ndarray, *,
              table: tuple[int, str] | None = None,
              schema: pa.Schema | None = None) -> pa.Table:
    schema = hand_schema(LOG_VERSION_3) if schema is None else schema
    packed = pa.types.is_binary(schema.field("occupied").type)  # schema 4: no list column
    table = spec.batch_table(structure, batch_index) if table is None else table
    base_cfg = table_config(spec, structure, batch_index, table=table)
    fmt = table[1]
    HT = _pool_copy(H.T)  # one field a row: contiguous columns, a copy of the buffer
    table_base = (int(structure) << STRUCT_SHIFT) | (batch_index << TABLE_BITS)
    table_id = table_base + HT[ss.H_TABLE]
    first_hand = batch_index * spec.batch_size
    hand_id = (int(structure) << STRUCT_SHIFT) + first_hand + np.arange(n, dtype=np.int64)
    def fixed_list(values: np.ndarray, typ: pa.DataType) -> pa.Array:
        """(n, w) values as a list column (schema 4: binary of their w entries)."""
        if not packed:
            return _list(values, typ)
        w = values.shape[1]
        return binary_from(values.reshape(-1), np.arange(0, (n + 1) * w, w, dtype=np.int64))

    def seat_list(field: int, typ: pa.DataType) -> pa.Array:
        # a copy: pa.array would view SE, which the next batch overwrites
        return fixed_list(_pool_copy(SE[field], np.uint8 if packed and pa.types.is_boolean(typ)
                                     else typ.to_pandas_dtype()), typ)

    def var_list(mat: np.ndarray, counts: np.ndarray, typ: pa.DataType) -> pa.Array:
        dt = np.uint8 if packed and pa.types.is_boolean(typ) else typ.to_pandas_dtype()
        values, offsets = _packed(mat, counts, dt)
        if packed:
            return binary_from(values.reshape(-1), offsets)
        return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values.reshape(-1), typ))

    hole = _pool_empty((n, 2 * k), np.int8)
    hole[:, 0::2] = SE[ss.SE_HOLE0]
    hole[:, 1::2] = SE[ss.SE_HOLE1]
    act_end = HT[ss.H_ACT_END]
    act_off = np.zeros(n + 1, dtype=np.int32)
    act_off[1:] = act_end
    m = int(act_end[-1]) if n else 0
    act_bytes = (act_off * ACTION_DTYPE.itemsize).astype(np.int32)
    act_data = _pool_copy(ACT[:m].view(np.uint8))  # as bytes: a structured copy is 10x slower
    actions = pa.BinaryArray.from_buffers(
        pa.binary(), n, [None, pa.py_buffer(act_bytes), pa.py_buffer(act_data)])
    pflat, pot_off = _packed(POTS, HT[ss.H_N_POTS], np.int64)
    if packed:
        rec = _pool_empty((len(pflat),), POT_DTYPE)
        for i, f in enumerate(POT_DTYPE.names or ()):
            rec[f] = pflat[:, i]
        pots = binary_from(rec, pot_off)
    else:
        pots = pa.ListArray.from_arrays(pa.array(pot_off), pa.StructArray.from_arrays(
            [pa.array(pflat[:, 0]), pa.array(pflat[:, 1]),
             pa.array(pflat[:, 2].astype(np.uint16)), pa.array(pflat[:, 3].astype(np.uint16))],
            fields=list(POT_TYPE)))
    nshow = HT[ss.H_N_SHOW]
    seed_key = np.stack([np.full(n, spec.seed, dtype=np.uint64), table_id.astype(np.uint64),
                         HT[ss.H_HAND_NO].astype(np.uint64)], axis=1)

    def const(value: object, typ: pa.DataType) -> pa.Array:
        return pa.repeat(pa.scalar(value, type=typ), n)

    cols = {
        "run_id": const(spec.fingerprint(), pa.string()),
        "hand_id": pa.array(hand_id),
        "table_id": pa.array(table_id),
        "hand_no": pa.array(HT[ss.H_HAND_NO].astype(np.int32)),
        "structure": const(structure.label, pa.string()),
        "format": const(fmt, pa.string()),
        "generator": const(spec.generator, pa.string()),
        "seed_key": fixed_list(seed_key, pa.uint64()),
        "n_seats": const(k, pa.int8()),
        "occupied": seat_list(ss.SE_OCC, pa.bool_()),
        "button": pa.array(HT[ss.H_BUTTON].astype(np.int8)),
        "sb_seat": pa.array(HT[ss.H_SB].astype(np.int8)),
        "bb_seat": pa.array(HT[ss.H_BB].astype(np.int8)),
        "small_blind": pa.array(HT[ss.H_SB_AMT]),
        "big_blind": pa.array(HT[ss.H_BB_AMT]),
        "ante": pa.array(HT[ss.H_ANTE]),
        "ante_mode": pa.array(HT[ss.H_ANTE_MODE].astype(np.int8)),
        "ante_trimming": const(base_cfg.ante_trimming, pa.bool_()),
        "min_bet": pa.array(HT[ss.H_MIN_BET]),
        "small_bet": pa.array(HT[ss.H_SMALL_BET]),
        "big_bet": pa.array(HT[ss.H_BIG_BET]),
        "raise_cap": const(base_cfg.raise_cap, pa.int8()),
        "rake_bps": const(base_cfg.rake_bps, pa.int32()),
        "rake_cap": pa.array(HT[ss.H_RAKE_CAP]),
        "no_flop_no_drop": const(base_cfg.no_flop_no_drop, pa.bool_()),
        "level": pa.array(HT[ss.H_LEVEL].astype(np.int16)),
        "deck": pa.FixedSizeBinaryArray.from_buffers(
            pa.binary(N_CARDS), n, [None, pa.py_buffer(_pool_copy(DECK))]),
        "hole_cards": fixed_list(hole, pa.int8()),
        "burns": var_list(BURNS, HT[ss.H_N_BURN], pa.int8()),
        "board": var_list(BOARD, HT[ss.H_N_BOARD], pa.int8()),
        "policy": seat_list(ss.SE_POLICY, pa.int8()),
        "player_ids": fixed_list(_player_ids(SE[ss.SE_PLAYER], hand_id[0] if n else 0),
                                 pa.int64()),
        "stacks_start": seat_list(ss.SE_START, pa.int64()),
        "rebuys": seat_list(ss.SE_REBUY, pa.int64()),
        "stacks_end": seat_list(ss.SE_END, pa.int64()),
        "contributed": seat_list(ss.SE_CONTRIB, pa.int64()),
        "returned": seat_list(ss.SE_RETURNED, pa.int64()),
        "won": seat_list(ss.SE_WON, pa.int64()),
        "folded": seat_list(ss.SE_FOLDED, pa.bool_()),
        "timed_out": seat_list(ss.SE_TIMEOUT, pa.bool_()),
        "rake": pa.array(HT[ss.H_RAKE]),
        "actions": actions,
        "showdown_seats": var_list(SHOW[:, :, 0], nshow, pa.int8()),
        "showdown_shown": var_list(SHOW[:, :, 1], nshow, pa.bool_()),
        "showdown_ranks": var_list(SHOW[:, :, 2], nshow, pa.int32()),
        "pots": pots,
        "fault": pa.nulls(n, pa.string()) if spec.inject is None else const(spec.inject,
                                                                             pa.string()),
    }
    body = pa.schema(list(schema)[:-1], metadata=schema.metadata)  # all but digest
    return with_digests(pa.Table.from_arrays([cols[f.name] for f in body], schema=body))
