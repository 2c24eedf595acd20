"""The hand log as four tidy data tables with readable codes (``holdem export``): pure, no files.
(Named ``logtables``: the log's analyst tables, not poker tables, which ``sim`` calls tables.)

``build_tables(log)`` turns rows of ``sim.schema.HAND_SCHEMA`` (a table or record batch) into

- ``hands``: one row per hand;
- ``seats``: one row per occupied seat of a hand;
- ``actions``: one row per logged action or forced event (posts, player actions, returns);
- ``pots``: one row per pot (0 = main).

joined on ``hand_id``. Codes become dictionary-encoded strings whose names come from the enums
and tables of ``sim`` (``sim.cards``, ``sim.layout``, ``sim.evaluator``, ``sim.policies``) and
from the name tables below (positions, export action labels); ``CODE_TABLES`` lists them all
(docs/export.md's code tables are generated from it). Every column's unit and code table is in its
field metadata (``doc``, ``unit``). The per-hand loops are compiled (numba) kernels over the
log's flat Arrow buffers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
from numba import njit

from audits.runfolder.errors import InputError
from sim import logv4
from sim.cards import N_CARDS, RANKS, SUITS, format_card
from sim.evaluator import CATEGORY_SHIFT, HandCategory
from sim.layout import EventKind, Street
from sim.runspec import POLICY_NAMES
from sim.schema import ACTION_DTYPE, ACTION_RECORD_BYTES, SEAT_MASK_BITS

TABLE_NAMES = ("hands", "seats", "actions", "pots")

# ---------------------------------------------------------------- code tables (names)

#: Export labels of the logged event kinds (the raw log's ``actions`` records).
ACTION_LABELS: dict[EventKind, tuple[str, str]] = {
    EventKind.ANTE: ("post_ante", "an ante posted (all of it, or the player's last chips)"),
    EventKind.SMALL_BLIND: ("post_sb", "the small blind posted"),
    EventKind.BIG_BLIND: ("post_bb", "the big blind posted"),
    EventKind.FOLD: ("fold", "a fold"),
    EventKind.CHECK: ("check", "a check"),
    EventKind.CALL: ("call", "a call (maybe all-in for less)"),
    EventKind.BET: ("bet", "a bet: the first chips of a betting round"),
    EventKind.RAISE: ("raise", "a raise (maybe all-in for less than a full raise)"),
    EventKind.RETURN_UNCALLED: ("return", "uncalled chips given back at the end of a round: "
                                          "`added` is negative"),
    EventKind.POST: ("post", "a returning player's live post of the big blind (replayed "
                             "histories: on the street, the option kept)"),
    EventKind.DEAD_BLIND: ("post_dead", "dead money posted by a returning player (replayed "
                                        "histories: in the pot, never toward a call)"),
    EventKind.LEAVE: ("leave", "the player left the table or lost his connection: his hand is "
                               "dead (a `return` of his uncovered bet follows at once)"),
    EventKind.STRADDLE: ("post_straddle", "a live straddle posted by the seat left of the big "
                                          "blind (on the street: the bet to call; the "
                                          "straddler acts last pre-flop, with the option)"),
}
ACTION_NAMES = tuple(label for label, _ in ACTION_LABELS.values())
STREET_NAMES = tuple(s.name.lower() for s in Street if s <= Street.SHOWDOWN)
CATEGORY_NAMES = tuple(c.name.lower().replace("_", " ") for c in HandCategory)
MAX_OTHERS = 9  # seats that are neither button nor blind: at most 10 seats less the big blind
POSITION_NAMES = (("BTN", "SB", "BB", "BTN/SB", "UTG")
                  + tuple(f"UTG+{k}" for k in range(1, MAX_OTHERS - 3)) + ("MP", "HJ", "CO"))
_BTN, _SB, _BB, _BTN_SB, _UTG = 0, 1, 2, 3, 4
_MP = POSITION_NAMES.index("MP")


def _other_positions(m: int) -> list[int]:
    """Position codes of the m seats that are neither button nor blind, first to act first:
    UTG, UTG+1, ..., then MP, HJ, CO (the cutoff is the seat before the button)."""
    if m == 0:
        return []
    late = [_MP, _MP + 1, _MP + 2][3 - min(m - 1, 3):]
    early = [_UTG + k for k in range(1, m - len(late))]
    return [_UTG] + early + late


_POSITION_TABLE = np.full((MAX_OTHERS + 1, MAX_OTHERS), -1, dtype=np.int8)
for _m in range(MAX_OTHERS + 1):
    _POSITION_TABLE[_m, :_m] = _other_positions(_m)


def _hole_names() -> list[str]:
    """Dictionary of two-card strings: index (c0 + 1) * 53 + (c1 + 1); a card -1 (unknown) is
    ``??`` (two unknown cards: ``?? ??``)."""
    names = ["??"] + [format_card(c) for c in range(N_CARDS)]
    return [f"{a} {b}" for a in names for b in names]


HOLE_NAMES = _hole_names()

#: Every code table of the export and of the raw log: (name, [(code, readable, meaning)]).
CODE_TABLES: dict[str, list[tuple[str, str, str]]] = {
    "cards": [(str(r * 4 + s), RANKS[r] + SUITS[s], "") for r in range(13) for s in range(4)],
    "suits": [(str(i), s, name) for i, (s, name) in
              enumerate(zip(SUITS, ("clubs", "diamonds", "hearts", "spades"), strict=True))],
    "ranks": [(str(i), r, "") for i, r in enumerate(RANKS)],
    "actions": [(str(int(k)), label, doc) for k, (label, doc) in ACTION_LABELS.items()],
    "streets": [(str(int(s)), s.name.lower(), doc) for s, doc in zip(
        [s for s in Street if s <= Street.SHOWDOWN],
        ("before the flop: blinds, antes, hole cards", "three board cards", "the fourth card",
         "the fifth card", "two or more players show down (street_reached only)"),
        strict=True)],
    "hand categories": [(str(int(c)), name, f"strength >> {CATEGORY_SHIFT} = {int(c)}")
                        for c, name in zip(HandCategory, CATEGORY_NAMES, strict=True)],
    "policies": [(str(i), name, "") for i, name in enumerate(POLICY_NAMES)],
    "positions": [("", name, doc) for name, doc in zip(POSITION_NAMES, (
        "the button", "the small blind", "the big blind", "heads-up: the button posts the small "
        "blind") + ("first to act pre-flop",) + tuple(
        f"{k} seat(s) after UTG" for k in range(1, MAX_OTHERS - 3)) + (
        "middle position: before the hijack", "hijack: two seats before the button",
        "cutoff: the seat before the button"), strict=True)],
}

# ---------------------------------------------------------------- schemas with documentation

_D = pa.dictionary(pa.int8(), pa.string())
_DH = pa.dictionary(pa.int16(), pa.string())
_SEATS = pa.list_(pa.int8())

# (name, type, unit or code table, doc)
TABLE_FIELDS: dict[str, list[tuple[str, pa.DataType, str, str]]] = {
    "hands": [
        ("hand_id", pa.int64(), "id", "the hand (joins every table); structure << 40 | index "
                                      "of the hand in its structure's stream"),
        ("structure", _D, "no-limit | pot-limit | fixed-limit", "betting structure"),
        ("format", _D, "cash | tournament", "the table's format"),
        ("table_id", pa.int64(), "id", "the table (unique in the run)"),
        ("hand_no", pa.int32(), "count", "hand number at its table, from 0"),
        ("n_seats", pa.int8(), "seats", "seats at the table"),
        ("n_players", pa.int8(), "players", "occupied seats (players dealt in)"),
        ("button", pa.int8(), "seat", "button seat (may be empty: dead button)"),
        ("sb_seat", pa.int8(), "seat", "small blind seat, -1 when the small blind is dead"),
        ("bb_seat", pa.int8(), "seat", "big blind seat"),
        ("small_blind", pa.int64(), "chips", "small blind amount"),
        ("big_blind", pa.int64(), "chips", "big blind amount (divide chips by it for bb)"),
        ("ante", pa.int64(), "chips", "ante amount (0 = none)"),
        ("level", pa.int16(), "level", "tournament blind level (0 for cash)"),
        ("board", pa.string(), "code table: cards", "board cards in order, space-separated "
                                                    "(e.g. \"Th 4c 7h Ad Ts\"; \"\" if none)"),
        ("pot", pa.int64(), "chips", "all chips put in the pot (sum of the seats' "
                                     "`contributed`, uncalled returns deducted), rake included"),
        ("rake", pa.int64(), "chips", "rake taken"),
        ("n_pots", pa.int8(), "count", "pots (1 = main only; 2 or more: side pots)"),
        ("street_reached", _D, "code table: streets", "the last street dealt, or showdown when "
                                                      "two or more players showed down"),
        ("went_to_showdown", pa.bool_(), "flag", "two or more players reached the showdown"),
        ("winners", _SEATS, "seats", "seats that won chips (`seats.won` > 0), in seat order; "
                                     "a seat awarded only a 0-chip pot is not one"),
    ],
    "seats": [
        ("hand_id", pa.int64(), "id", "the hand"),
        ("seat", pa.int8(), "seat", "seat index, from 0"),
        ("player_id", pa.int64(), "id", "the player: unique in the run, the same in all his "
                                        "hands (log column player_ids)"),
        ("position", _D, "code table: positions", "the seat's position this hand"),
        ("policy", _D, "code table: policies", "the bot playing the seat (null: unknown)"),
        ("hole", _DH, "code table: cards", "the two hole cards, dealing order, e.g. \"As Kd\" "
                                           "(\"?? ??\" when unknown)"),
        ("stack_start", pa.int64(), "chips", "stack at the start (after rebuys)"),
        ("contributed", pa.int64(), "chips", "chips put in the pot, antes included, uncalled "
                                             "returns deducted"),
        ("won", pa.int64(), "chips", "chips won from the pots (after rake)"),
        ("net", pa.int64(), "chips", "won - contributed (sums to minus the rake over a hand)"),
        ("stack_end", pa.int64(), "chips", "stack at the end"),
        ("folded", pa.bool_(), "flag", "the player folded"),
        ("showed", pa.bool_(), "flag", "the player showed his cards at showdown"),
        ("hand_category", _D, "code table: hand categories",
         "category of the best five of seven cards when shown; null if not shown"),
    ],
    "actions": [
        ("hand_id", pa.int64(), "id", "the hand"),
        ("seq", pa.int16(), "count", "order in the hand, from 0"),
        ("street", _D, "code table: streets", "the betting round"),
        ("seat", pa.int8(), "seat", "who acted or posted"),
        ("action", _D, "code table: actions", "what was done"),
        ("to_street_total", pa.int64(), "chips", "the seat's total for this street after the "
                                                 "action (raise-to amount for bets and raises)"),
        ("added", pa.int64(), "chips", "chips moved into the pot; negative for an uncalled "
                                       "return: over a hand it sums to the pot"),
        ("all_in", pa.bool_(), "flag", "this action put the player's last chips in"),
    ],
    "pots": [
        ("hand_id", pa.int64(), "id", "the hand"),
        ("pot_index", pa.int8(), "index", "0 = main pot, then side pots in order"),
        ("amount", pa.int64(), "chips", "the pot before rake"),
        ("rake", pa.int64(), "chips", "rake taken from this pot"),
        ("eligible", _SEATS, "seats", "seats that could win it"),
        ("winners", _SEATS, "seats", "seats awarded it (a split pot has several), even when "
                                     "`amount` is 0: a dead small blind and every player "
                                     "folding to the big blind leaves a 0-chip pot awarded to "
                                     "the big blind, who won no chips"),
    ],
}

TABLE_SCHEMAS: dict[str, pa.Schema] = {
    table: pa.schema([pa.field(name, typ, nullable=name in ("policy", "hand_category"),
                               metadata={"unit": unit, "doc": doc})
                      for name, typ, unit, doc in fields],
                     metadata={"holdem.table": table})
    for table, fields in TABLE_FIELDS.items()
}

#: Log columns the export reads.
LOG_COLUMNS = ("hand_id", "table_id", "hand_no", "structure", "format", "n_seats", "occupied",
               "button", "sb_seat", "bb_seat", "small_blind", "big_blind", "ante", "level",
               "hole_cards", "board", "policy", "player_ids", "stacks_start", "stacks_end",
               "contributed", "won", "folded", "rake", "actions", "showdown_seats",
               "showdown_shown", "showdown_ranks", "pots")


class LogTableError(InputError):
    """A log batch the export cannot read (a missing column, inconsistent lists)."""


# ---------------------------------------------------------------- compiled kernels

_KIND_CODE = np.full(max(int(k) for k in EventKind) + 1, -1, dtype=np.int8)
for _i, _k in enumerate(ACTION_LABELS):
    _KIND_CODE[int(_k)] = _i
_RETURN_CODE = ACTION_NAMES.index("return")


@njit(cache=True, _nrt=False)
def _hands_kernel(n_seats, so, contrib, won, bo, board, sho, pot_off, pot, n_pots,
                  street, showdown, board_off, board_bytes, w_off, w_vals,
                  rank_chars, suit_chars):  # pragma: no cover - compiled
    m = 0
    w = 0
    for i in range(n_seats.shape[0]):
        total = 0
        for j in range(so[i], so[i + 1]):
            total += contrib[j]
        pot[i] = total
        nb = bo[i + 1] - bo[i]
        board_off[i] = m
        for j in range(nb):
            c = board[bo[i] + j]
            if j:
                board_bytes[m] = 32
                m += 1
            board_bytes[m] = rank_chars[c >> 2]
            board_bytes[m + 1] = suit_chars[c & 3]
            m += 2
        n_pots[i] = pot_off[i + 1] - pot_off[i]
        w_off[i] = w  # the seats that won chips (a seat awarded a 0-chip pot won none)
        for j in range(so[i], so[i + 1]):
            if won[j] > 0:
                w_vals[w] = j - so[i]
                w += 1
        showdown[i] = sho[i + 1] - sho[i] >= 2
        if showdown[i]:
            street[i] = 4
        elif nb >= 5:
            street[i] = 3
        elif nb == 4:
            street[i] = 2
        elif nb >= 3:
            street[i] = 1
        else:
            street[i] = 0
    board_off[n_seats.shape[0]] = m
    w_off[n_seats.shape[0]] = w
    return m, w


@njit(cache=True, _nrt=False)
def _seats_kernel(hand_id, n_seats, button, sb, bb, so, occupied, player, policy, start, end,
                  contrib, won, folded, ho, hole, sho, show_seat, show_shown, show_rank,
                  pos_table, n_players, o_hand, o_seat, o_player, o_pos, o_policy, o_hole,
                  o_start, o_contrib, o_won, o_net, o_end, o_folded, o_showed, o_cat,
                  cat_shift):  # pragma: no cover - compiled
    r = 0
    for i in range(hand_id.shape[0]):
        k = n_seats[i]
        base = so[i]
        first = r
        cnt = 0
        for s in range(k):
            j = base + s
            if not occupied[j]:
                continue
            cnt += 1
            o_hand[r] = hand_id[i]
            o_seat[r] = s
            o_player[r] = player[j] if player.shape[0] else -1
            o_policy[r] = policy[j]
            c0 = hole[ho[i] + 2 * s]
            c1 = hole[ho[i] + 2 * s + 1]
            o_hole[r] = (c0 + 1) * 53 + (c1 + 1)
            o_start[r] = start[j]
            o_contrib[r] = contrib[j]
            o_won[r] = won[j]
            o_net[r] = won[j] - contrib[j]
            o_end[r] = end[j]
            o_folded[r] = folded[j]
            o_showed[r] = False
            o_cat[r] = -1
            if s == button[i] and s == sb[i]:
                o_pos[r] = 3
            elif s == button[i]:
                o_pos[r] = 0
            elif s == sb[i]:
                o_pos[r] = 1
            elif s == bb[i]:
                o_pos[r] = 2
            else:
                o_pos[r] = -1
            r += 1
        n_players[i] = cnt
        for q in range(sho[i], sho[i + 1]):
            if show_shown[q]:
                s = show_seat[q]
                for t in range(first, r):
                    if o_seat[t] == s:
                        o_showed[t] = True
                        o_cat[t] = show_rank[q] >> cat_shift
        # the others, first to act first: clockwise from the seat after the big blind
        m = 0
        for t in range(first, r):
            if o_pos[t] < 0:
                m += 1
        if m:
            b = bb[i]
            idx = 0
            for step in range(1, k + 1):
                s = (b + step) % k
                for t in range(first, r):
                    if o_seat[t] == s and o_pos[t] < 0:
                        o_pos[t] = pos_table[m, idx]
                        idx += 1
    return r


@njit(cache=True, _nrt=False)
def _actions_kernel(hand_id, ao, so, start, rec_street, rec_seat, rec_kind, rec_to, rec_added,
                    kind_code, return_code, o_hand, o_seq, o_street, o_seat, o_action, o_to,
                    o_added, o_all_in, stack):  # pragma: no cover - compiled
    """Returns -1 - (index of a record) whose kind has no label, else the rows written."""
    r = 0
    for i in range(hand_id.shape[0]):
        k = so[i + 1] - so[i]
        for s in range(k):
            stack[s] = start[so[i] + s]
        for q in range(ao[i], ao[i + 1]):
            kind = rec_kind[q]
            code = kind_code[kind] if 0 <= kind < kind_code.shape[0] else -1
            if code < 0:
                return -1 - q
            s = rec_seat[q]
            added = rec_added[q]
            if code == return_code:
                added = -added
            o_hand[r] = hand_id[i]
            o_seq[r] = q - ao[i]
            o_street[r] = rec_street[q]
            o_seat[r] = s
            o_action[r] = code
            o_to[r] = rec_to[q]
            o_added[r] = added
            all_in = False
            if 0 <= s < k:
                stack[s] -= added
                all_in = added > 0 and stack[s] == 0
            o_all_in[r] = all_in
            r += 1
    return r


@njit(cache=True, _nrt=False)
def _mask_lists(masks, offsets, values):  # pragma: no cover - compiled
    m = 0
    for i in range(masks.shape[0]):
        offsets[i] = m
        for s in range(SEAT_MASK_BITS):
            if masks[i] & (1 << s):
                values[m] = s
                m += 1
    offsets[masks.shape[0]] = m
    return m


# ---------------------------------------------------------------- Arrow plumbing

def _np(arr: pa.Array, dtype: np.dtype | type) -> np.ndarray:
    return np.ascontiguousarray(arr.to_numpy(zero_copy_only=False), dtype=dtype)


def _list_parts(arr: pa.Array, dtype: np.dtype | type,
                name: str = "") -> tuple[np.ndarray, np.ndarray]:
    """(values, int64 offsets into them) of a list array, slices respected; of a packed binary
    column of schema version 4 (``sim.logv4``: ``name``'s entries), the same."""
    if pa.types.is_binary(arr.type):
        raw, offsets = _packed(arr, name)
        return np.ascontiguousarray(raw.view(_packed_dtype(name)), dtype=dtype), offsets
    offsets = arr.offsets.to_numpy().astype(np.int64)
    values = _np(arr.values, dtype)
    return values, offsets


def _packed_dtype(name: str) -> np.dtype:
    typ = logv4.PACKED_COLUMNS[name]
    return np.dtype(np.uint8 if pa.types.is_boolean(typ) else typ.to_pandas_dtype())


def _packed(arr: pa.Array, name: str) -> tuple[np.ndarray, np.ndarray]:
    """A packed binary column's bytes from its buffer's start and its offsets in entries."""
    w = logv4.width(name)
    boff = np.frombuffer(arr.buffers()[1], np.int32)[arr.offset:arr.offset + len(arr) + 1]
    boff = boff.astype(np.int64)
    if (boff % w).any():
        raise LogTableError(f"column {name!r}: a value that is not whole {w}-byte entries")
    data = arr.buffers()[2]
    raw = (np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8))
    return raw[:int(boff[-1]) if len(boff) else 0], boff // w


def _dict(codes: np.ndarray, names: tuple[str, ...] | list[str], typ: pa.DataType,
          nulls: bool = False) -> pa.Array:
    idx_type = typ.index_type
    indices = pa.array(codes.astype(idx_type.to_pandas_dtype(), copy=False),
                       mask=(codes < 0) if nulls else None, type=idx_type)
    return pa.DictionaryArray.from_arrays(indices, pa.array(list(names), pa.string()))


def _seat_lists(offsets: np.ndarray, values: np.ndarray) -> pa.Array:
    return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)),
                                    pa.array(values, pa.int8()))


def _table(name: str, cols: dict[str, pa.Array]) -> pa.Table:
    schema = TABLE_SCHEMAS[name]
    return pa.Table.from_arrays([cols[f.name] for f in schema], schema=schema)


def _strings(names: pa.ChunkedArray | pa.Array) -> pa.Array:
    arr = names.combine_chunks() if isinstance(names, pa.ChunkedArray) else names
    return arr.dictionary_encode().cast(_D)


def policy_names(manifest: dict[str, Any] | None) -> tuple[str, ...]:
    """The name of each policy code of a run: the built-in bots (``POLICY_NAMES``), then the
    Python bots its manifest's spec names (codes 8, 9, ...: ``sim.pybots``)."""
    spec = (manifest or {}).get("spec")
    bots = spec.get("python_bots") if isinstance(spec, dict) else None
    if not isinstance(bots, list):
        return POLICY_NAMES
    return POLICY_NAMES + tuple(str(b.get("name")) if isinstance(b, dict) else "?"
                                for b in bots)


def build_tables(log: pa.Table | pa.RecordBatch,
                 names: tuple[str, ...] = POLICY_NAMES) -> dict[str, pa.Table]:
    """The four tables (``TABLE_NAMES``) of the hands in ``log`` (rows of the hand log);
    ``names``: the run's policy names (``policy_names``: its Python bots too)."""
    missing = [c for c in LOG_COLUMNS if c not in log.schema.names and c != "player_ids"]
    if missing:
        raise LogTableError(f"no column {missing[0]!r} in the hand log")
    if isinstance(log, pa.Table):
        log = log.select([c for c in LOG_COLUMNS if c in log.schema.names]).combine_chunks()
        batch = (log.to_batches()[0] if log.num_rows else
                 pa.RecordBatch.from_pylist([], schema=log.schema))
    else:
        batch = log
    n = batch.num_rows
    col = batch.column
    hand_id = _np(col("hand_id"), np.int64)
    n_seats = _np(col("n_seats"), np.int64)
    button = _np(col("button"), np.int64)
    sb = _np(col("sb_seat"), np.int64)
    bb = _np(col("bb_seat"), np.int64)
    occupied, so = _list_parts(col("occupied"), np.bool_, "occupied")
    if not np.array_equal(np.diff(so), n_seats):
        raise LogTableError("per-seat lists do not have n_seats entries")
    seat_cols = {}
    for name, dt in (("policy", np.int8), ("stacks_start", np.int64),
                     ("stacks_end", np.int64), ("contributed", np.int64), ("won", np.int64),
                     ("folded", np.bool_), ("player_ids", np.int64)):
        if name not in batch.schema.names:
            raise LogTableError(f"no column {name!r} in the hand log (written before schema 3: "
                                "simulate the run again to export it)")
        values, offs = _list_parts(col(name), dt, name)
        if not np.array_equal(offs, so):
            raise LogTableError(f"column {name!r}: not one entry per seat")
        seat_cols[name] = values
    hole, ho = _list_parts(col("hole_cards"), np.int64, "hole_cards")
    if not np.array_equal(np.diff(ho), 2 * n_seats):
        raise LogTableError("column 'hole_cards': not two cards per seat")
    board, bo = _list_parts(col("board"), np.int64, "board")
    if len(board) and (board.min() < 0 or board.max() >= N_CARDS):
        raise LogTableError("column 'board': a card outside 0..51")
    show_seat, sho = _list_parts(col("showdown_seats"), np.int64, "showdown_seats")
    show_shown, _ = _list_parts(col("showdown_shown"), np.bool_, "showdown_shown")
    show_rank, _ = _list_parts(col("showdown_ranks"), np.int64, "showdown_ranks")
    pots_arr = col("pots")
    if pa.types.is_binary(pots_arr.type):  # schema 4: packed records
        raw, pot_off = _packed(pots_arr, "pots")
        rec = np.frombuffer(raw.tobytes(), logv4.POT_DTYPE)
        pot_amount, pot_rake, pot_elig, pot_win = (rec[f].astype(np.int64)
                                                   for f in logv4.POT_FIELDS)
    else:
        pot_off = pots_arr.offsets.to_numpy().astype(np.int64)
        pot_fields = pots_arr.values.flatten()
        pot_amount = _np(pot_fields[0], np.int64)
        pot_rake = _np(pot_fields[1], np.int64)
        pot_elig = _np(pot_fields[2], np.int64)
        pot_win = _np(pot_fields[3], np.int64)

    # ---- hands
    pot = np.empty(n, np.int64)
    n_pots = np.empty(n, np.int8)
    street = np.empty(n, np.int8)
    showdown = np.empty(n, np.bool_)
    n_occ = np.empty(n, np.int8)
    board_off = np.empty(n + 1, np.int32)
    board_bytes = np.empty(max(1, 14 * n), np.uint8)
    w_off = np.empty(n + 1, np.int64)
    w_vals = np.empty(max(1, int(so[-1]) if n else 1), np.int8)
    rank_chars = np.frombuffer(RANKS.encode(), np.uint8)
    suit_chars = np.frombuffer(SUITS.encode(), np.uint8)
    nbytes, _ = _hands_kernel(n_seats, so, seat_cols["contributed"], seat_cols["won"], bo,
                              board, sho, pot_off, pot, n_pots, street, showdown,
                              board_off, board_bytes, w_off, w_vals, rank_chars, suit_chars)
    board_str = pa.StringArray.from_buffers(n, pa.py_buffer(board_off),
                                            pa.py_buffer(board_bytes[:nbytes].copy()))

    # ---- seats
    rows = int(seat_cols["policy"].shape[0])
    o = {name: np.empty(rows, dt) for name, dt in (
        ("hand", np.int64), ("seat", np.int8), ("player", np.int64), ("pos", np.int8),
        ("policy", np.int8), ("hole", np.int16), ("start", np.int64), ("contrib", np.int64),
        ("won", np.int64), ("net", np.int64), ("end", np.int64), ("folded", np.bool_),
        ("showed", np.bool_), ("cat", np.int8))}
    r = _seats_kernel(hand_id, n_seats, button, sb, bb, so, occupied, seat_cols["player_ids"],
                      seat_cols["policy"], seat_cols["stacks_start"], seat_cols["stacks_end"],
                      seat_cols["contributed"], seat_cols["won"], seat_cols["folded"], ho, hole,
                      sho, show_seat, show_shown, show_rank, _POSITION_TABLE, n_occ,
                      o["hand"], o["seat"], o["player"], o["pos"], o["policy"], o["hole"],
                      o["start"], o["contrib"], o["won"], o["net"], o["end"], o["folded"],
                      o["showed"], o["cat"], CATEGORY_SHIFT)
    o = {k: v[:r] for k, v in o.items()}
    if len(o["policy"]) and int(o["policy"].max()) >= len(names):
        raise LogTableError(f"column 'policy': code {int(o['policy'].max())} has no name")
    if r and (o["hole"].min() < 0 or o["hole"].max() >= len(HOLE_NAMES)):
        raise LogTableError("column 'hole_cards': a card outside -1..51")
    if r and (o["cat"].max() >= len(CATEGORY_NAMES)):
        raise LogTableError("column 'showdown_ranks': a strength with no hand category")
    seats = _table("seats", {
        "hand_id": pa.array(o["hand"]), "seat": pa.array(o["seat"]),
        "player_id": pa.array(o["player"]),
        "position": _dict(o["pos"], POSITION_NAMES, _D),
        "policy": _dict(o["policy"], names, _D, nulls=True),
        "hole": _dict(o["hole"], HOLE_NAMES, _DH),
        "stack_start": pa.array(o["start"]), "contributed": pa.array(o["contrib"]),
        "won": pa.array(o["won"]), "net": pa.array(o["net"]), "stack_end": pa.array(o["end"]),
        "folded": pa.array(o["folded"]), "showed": pa.array(o["showed"]),
        "hand_category": _dict(o["cat"], CATEGORY_NAMES, _D, nulls=True),
    })
    hands = _table("hands", {
        "hand_id": pa.array(hand_id), "structure": _strings(col("structure")),
        "format": _strings(col("format")), "table_id": col("table_id"),
        "hand_no": col("hand_no"), "n_seats": col("n_seats"), "n_players": pa.array(n_occ),
        "button": col("button"), "sb_seat": col("sb_seat"), "bb_seat": col("bb_seat"),
        "small_blind": col("small_blind"), "big_blind": col("big_blind"), "ante": col("ante"),
        "level": col("level"), "board": board_str, "pot": pa.array(pot), "rake": col("rake"),
        "n_pots": pa.array(n_pots), "street_reached": _dict(street, STREET_NAMES, _D),
        "went_to_showdown": pa.array(showdown),
        "winners": _seat_lists(w_off, w_vals[:int(w_off[-1])]),
    })

    # ---- actions
    acts = col("actions")
    if acts.null_count:
        raise LogTableError("column 'actions': a null action log")
    abuf = acts.buffers()
    a_off = np.frombuffer(abuf[1], np.int32)[acts.offset:acts.offset + n + 1].astype(np.int64)
    if np.any(a_off % ACTION_RECORD_BYTES):
        raise LogTableError(f"column 'actions': not {ACTION_RECORD_BYTES}-byte records")
    a_end = int(a_off[-1]) if n else 0
    recs = np.frombuffer(abuf[2], np.uint8, a_end).view(ACTION_DTYPE) if a_end else \
        np.zeros(0, ACTION_DTYPE)
    ao = a_off // ACTION_RECORD_BYTES
    m = int(ao[-1] - ao[0]) if n else 0

    def field(name: str) -> np.ndarray:
        return np.ascontiguousarray(recs[name])

    oa = {name: np.empty(m, dt) for name, dt in (
        ("hand", np.int64), ("seq", np.int16), ("street", np.int8), ("seat", np.int8),
        ("action", np.int8), ("to", np.int64), ("added", np.int64), ("all_in", np.bool_))}
    r = _actions_kernel(hand_id, ao, so, seat_cols["stacks_start"], field("street"),
                        field("seat"), field("kind"), field("to_street_total"), field("added"),
                        _KIND_CODE, _RETURN_CODE, oa["hand"], oa["seq"], oa["street"],
                        oa["seat"], oa["action"], oa["to"], oa["added"], oa["all_in"],
                        np.empty(16, np.int64))
    if r < 0:
        q = -1 - r
        raise LogTableError(f"column 'actions': record {q} has kind {int(recs['kind'][q])}, "
                            "not a logged action")
    if m and (oa["street"].min() < 0 or oa["street"].max() >= len(STREET_NAMES)):
        raise LogTableError("column 'actions': a street outside the street codes")
    actions = _table("actions", {
        "hand_id": pa.array(oa["hand"]), "seq": pa.array(oa["seq"]),
        "street": _dict(oa["street"], STREET_NAMES, _D), "seat": pa.array(oa["seat"]),
        "action": _dict(oa["action"], ACTION_NAMES, _D), "to_street_total": pa.array(oa["to"]),
        "added": pa.array(oa["added"]), "all_in": pa.array(oa["all_in"]),
    })

    # ---- pots
    p0, p1 = int(pot_off[0]) if n else 0, int(pot_off[-1]) if n else 0
    counts = np.diff(pot_off)
    pot_hand = np.repeat(hand_id, counts)
    pot_index = (np.arange(p1 - p0) - np.repeat(pot_off[:-1] - p0, counts)).astype(np.int8)
    e_off = np.empty(p1 - p0 + 1, np.int64)
    e_val = np.empty(max(1, 16 * (p1 - p0)), np.int8)
    ne = _mask_lists(np.ascontiguousarray(pot_elig[p0:p1]), e_off, e_val)
    wo = np.empty(p1 - p0 + 1, np.int64)
    wv = np.empty(max(1, 16 * (p1 - p0)), np.int8)
    nw = _mask_lists(np.ascontiguousarray(pot_win[p0:p1]), wo, wv)
    pots = _table("pots", {
        "hand_id": pa.array(pot_hand), "pot_index": pa.array(pot_index),
        "amount": pa.array(pot_amount[p0:p1]), "rake": pa.array(pot_rake[p0:p1]),
        "eligible": _seat_lists(e_off, e_val[:ne]), "winners": _seat_lists(wo, wv[:nw]),
    })
    return {"hands": hands, "seats": seats, "actions": actions, "pots": pots}


# ---------------------------------------------------------------- documentation (docs/export.md)

def describe_codes() -> str:
    """Every code table as Markdown (docs/export.md's "Codes" section is this text)."""
    suits = " | ".join(f"{i} {s} ({n})" for i, s, n in CODE_TABLES["suits"])
    out = ["**cards** (`card = rank * 4 + suit`; the log stores the int, the export the name)",
           "", f"| rank \\ suit | {suits} |", "|---|" + "---|" * 4]
    for r, name, _ in CODE_TABLES["ranks"]:
        cells = [f"`{int(r) * 4 + s}` {name}{SUITS[s]}" for s in range(4)]
        out.append(f"| {r} {name} | " + " | ".join(cells) + " |")
    titles = {
        "actions": "actions (log: `actions` record `kind` = `sim.layout.EventKind`; export: "
                   "`actions.action`)",
        "streets": "streets (log: record `street`; export: `actions.street`, "
                   "`hands.street_reached`)",
        "hand categories": "hand categories (log: `showdown_ranks` >> 20, `sim.evaluator`; "
                           "export: `seats.hand_category`)",
        "policies": "policies (log: `policy`, `sim.policies`; export: `seats.policy`)",
        "positions": "positions (export: `seats.position`; from the log's `button`, `sb_seat`, "
                     "`bb_seat` and the occupied seats)",
    }
    for name, title in titles.items():
        rows = CODE_TABLES[name]
        if any(code for code, _, _ in rows):
            out += ["", f"**{title}**", "", "| code | name | meaning |", "|---|---|---|"]
            out += [f"| {code} | `{label}` | {doc} |" for code, label, doc in rows]
        else:  # the export's own names (positions): no code in the log
            out += ["", f"**{title}**", "", "| name | meaning |", "|---|---|"]
            out += [f"| `{label}` | {doc} |" for _, label, doc in rows]
    return "\n".join(out)


def describe_tables() -> str:
    """The four export tables as Markdown (docs/export.md's column tables are this text)."""
    out: list[str] = []
    for table, fields in TABLE_FIELDS.items():
        out += [f"**`{table}`**", "", "| column | type | unit or codes | meaning |",
                "|---|---|---|---|"]
        out += [f"| `{name}` | `{typ}` | {unit} | {doc} |" for name, typ, unit, doc in fields]
        out.append("")
    return "\n".join(out).rstrip()
