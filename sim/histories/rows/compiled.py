"""The import's rows of a whole block at once: ``HandBlock`` + ``Replayed`` -> the Arrow table of
``sim.histories.rows.reference.ROW_SCHEMA`` that ``sim.histories.rows.reference._row`` (+
``Columns.table()``) makes for the same hands, without a Python object per hand.

Two compiled passes over the flat arrays: ``_plan`` finds each hand's physical seats (as
``history_rows.physical_seats``) and its ante (as ``history_rows._ante``), or marks it not
representable; ``_fill`` spreads the engine's state on the physical seats, packs the logged
events as ``ACTION_DTYPE`` records, lists the showdown, the pots (masks remapped) and the hole
cards the record knows. The columns are Arrow arrays made from the flat arrays and their
offsets (``pa.Array.from_buffers``: no copy, no validation pass). The time columns come from a
third kernel (``_times``: the ISO text as ``datetime.isoformat`` writes it and the UTC seconds,
``ET`` by the US daylight rule) given each distinct zone's rule (``_zone_rule``: Python once
per distinct zone, as ``history_rows.utc_seconds`` reads it). Python runs once per block,
never per hand.

Not carried by the block: a ``time`` with fractions of a second (``isoformat`` would write
them); such hands are the scanner's to leave to the Python path.

A hand that is not ``replayed.ok`` or that ``_row`` would refuse (NotRepresentable: "seats",
"too many players", "antes not representable") has no row (mask False): the caller sends it
to the Python path, which names the reason.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from sim import layout as L
from sim.config import Structure
from sim.histories.read.block import (
    MAX_ACTION_CARDS,
    VARIANT_CODES,
    VERB_CODES,
    HandBlock,
    Replayed,
)
from sim.histories.rows.reference import GMT_OFFSET, ROW_SCHEMA, UTC_OFFSETS
from sim.layout import LOGGED_EVENTS, MAX_SEATS, EventKind, SeatStatus
from sim.schema import ACTION_RECORD_BYTES, POT_TYPE

__all__ = ["rows_of_block"]

Arr = np.ndarray

_LOGGED = np.zeros(64, np.bool_)  # by event kind
_LOGGED[[int(k) for k in LOGGED_EVENTS]] = True
_SHOW, _MUCK = int(EventKind.SHOW), int(EventKind.MUCK)
_FOLDED = int(SeatStatus.FOLDED)
_FT = VARIANT_CODES["FT"]
_DH, _SM = VERB_CODES["dh"], VERB_CODES["sm"]
_REC = ACTION_RECORD_BYTES
_CONFIG_READ = max(L.STRUCTURE, L.SMALL_BLIND, L.BIG_BLIND, L.ANTE_TRIM, L.RAISE_CAP, L.RAKE_BPS,
                   L.RAKE_CAP, L.NO_FLOP_NO_DROP, L.RAKE) + 1  # the state columns read per row
_LABELS = pa.array([s.label for s in sorted(Structure, key=int)], pa.string())

# a zone's rule (``_zone_rule``): no UTC time, a fixed offset, or US Eastern by the date
ZONE_UNKNOWN, ZONE_FIXED, ZONE_ET = 0, 1, 2


@njit(cache=True)
def _plan(n_of: Arr, p_lo: Arr, seat: Arr, has_seats: Arr, seat_count: Arr, ante: Arr,
          ok: Arr, state: Arr) -> tuple[Arr, Arr, Arr, Arr, Arr]:
    """Per hand: representable-and-ok, seats at the table ``k``, ante and its mode; per player
    its physical seat (``history_rows._seats_of`` and ``_ante``)."""
    H = len(n_of)
    keep = np.zeros(H, np.bool_)
    k_of = np.zeros(H, np.int64)
    ante_of = np.zeros(H, np.int64)
    mode_of = np.zeros(H, np.int64)
    where = np.zeros(len(seat), np.int64)
    due = np.zeros(MAX_SEATS, np.int64)
    for h in range(H):
        if not ok[h]:
            continue
        n = n_of[h]
        lo = p_lo[h]
        good = True
        if has_seats[h]:
            k = seat_count[h]
            if k < 0:
                k = 0
                for j in range(n):
                    k = max(k, seat[lo + j])
            for j in range(n):
                w = seat[lo + j] - 1
                where[lo + j] = w
                if w < 0 or w >= k:
                    good = False
                for i in range(j):
                    if where[lo + i] == w:
                        good = False
            if good and n > 1:
                wraps = 0
                for j in range(n):
                    if where[lo + (j + 1) % n] < where[lo + j]:
                        wraps += 1
                if wraps != 1:
                    good = False
        else:
            k = max(n, seat_count[h])
            for j in range(n):
                where[lo + j] = j
        if not good or k > MAX_SEATS or n > MAX_SEATS:
            continue
        # the ante: one for every player (mode 1), the big blind's alone (mode 2)
        for j in range(n):
            due[j] = ante[lo + (n - 1 - j if n == 2 else j)]
        nonzero = 0
        same = True
        for j in range(n):
            if due[j] != 0:
                nonzero += 1
            if due[j] != due[0]:
                same = False
        a, mode = 0, 0
        if nonzero == 0:
            pass
        elif same:
            a, mode = due[0], 1
        else:
            bb = state[h, L.BB_SEAT]
            if nonzero == 1 and 0 <= bb < n and due[bb] != 0:
                a, mode = due[bb], 2
            else:
                continue
        keep[h] = True
        k_of[h] = k
        ante_of[h] = a
        mode_of[h] = mode
    return keep, k_of, ante_of, mode_of, where


@njit(cache=True)
def _counts(rows: Arr, p_lo: Arr, k_of: Arr, state: Arr, log_lo: Arr, log: Arr,
            has_winnings: Arr, has_finishing: Arr, logged: Arr) -> tuple[Arr, ...]:
    """Per kept hand: logged events, showdown entries; the offsets of every list column."""
    m = len(rows)
    seat_off = np.zeros(m + 1, np.int64)
    board_off = np.zeros(m + 1, np.int64)
    act_off = np.zeros(m + 1, np.int64)
    sd_off = np.zeros(m + 1, np.int64)
    pot_off = np.zeros(m + 1, np.int64)
    win_off = np.zeros(m + 1, np.int64)
    fin_off = np.zeros(m + 1, np.int64)
    for r in range(m):
        h = rows[r]
        k = k_of[h]
        n_logged = 0
        n_sd = 0
        for e in range(log_lo[h], log_lo[h + 1]):
            kind = log[e, L.LOG_KIND]
            if kind >= 0 and kind < len(logged) and logged[kind]:
                n_logged += 1
            if kind == _SHOW or kind == _MUCK:
                n_sd += 1
        seat_off[r + 1] = seat_off[r] + k
        board_off[r + 1] = board_off[r] + state[h, L.N_BOARD]
        act_off[r + 1] = act_off[r] + n_logged * _REC
        sd_off[r + 1] = sd_off[r] + n_sd
        pot_off[r + 1] = pot_off[r] + state[h, L.N_POTS]
        win_off[r + 1] = win_off[r] + (k if has_winnings[h] else 0)
        fin_off[r + 1] = fin_off[r] + (k if has_finishing[h] else 0)
    return seat_off, board_off, act_off, sd_off, pot_off, win_off, fin_off


@njit(cache=True)
def _put8(buf: Arr, at: int, v: int) -> None:
    for b in range(8):
        buf[at + b] = (v >> (8 * b)) & 0xFF


@njit(cache=True)
def _fill(rows: Arr, n_of: Arr, p_lo: Arr, a_lo: Arr, where: Arr, k_of: Arr, state: Arr,
          log_lo: Arr, log: Arr, stack: Arr, winnings: Arr, finishing: Arr, unrecorded: Arr,
          name_lo: Arr, name_hi: Arr, verb: Arr, player: Arr, n_cards: Arr, cards: Arr,
          logged: Arr, seat_off: Arr, board_off: Arr, act_off: Arr, sd_off: Arr, pot_off: Arr,
          win_off: Arr, fin_off: Arr) -> tuple[Arr, ...]:
    """The kept hands' columns, flat (per seat on the physical seats, per list entry)."""
    m = len(rows)
    S_ = seat_off[m]
    # per seat
    occupied = np.zeros(S_, np.bool_)
    start = np.zeros(S_, np.int64)
    end = np.zeros(S_, np.int64)
    contrib = np.zeros(S_, np.int64)
    returned = np.zeros(S_, np.int64)
    won = np.zeros(S_, np.int64)
    folded = np.zeros(S_, np.bool_)
    known = np.zeros(S_, np.bool_)
    unrec = np.zeros(S_, np.bool_)
    name = np.full(S_, -1, np.int64)
    hole = np.full(2 * S_, -1, np.int8)
    board = np.zeros(board_off[m], np.int8)
    actions = np.zeros(act_off[m], np.uint8)
    sd_seat = np.zeros(sd_off[m], np.int8)
    sd_shown = np.zeros(sd_off[m], np.bool_)
    sd_rank = np.zeros(sd_off[m], np.int32)
    pot_amount = np.zeros(pot_off[m], np.int64)
    pot_rake = np.zeros(pot_off[m], np.int64)
    pot_elig = np.zeros(pot_off[m], np.uint16)
    pot_win = np.zeros(pot_off[m], np.uint16)
    op_win = np.zeros(win_off[m], np.int64)
    op_fin = np.zeros(fin_off[m], np.int64)
    # per hand
    button = np.zeros(m, np.int8)
    sb_seat = np.zeros(m, np.int8)
    bb_seat = np.zeros(m, np.int8)
    seen = np.zeros(MAX_SEATS, np.int64)
    for r in range(m):
        h = rows[r]
        n = n_of[h]
        lo = p_lo[h]
        so = seat_off[r]
        S = state[h]
        named = name_hi[h] - name_lo[h] == n
        # per player: the cards the record shows him (``d dh`` to him, his ``sm``), as bits
        seen[:n] = 0
        for a in range(a_lo[h], a_lo[h + 1]):
            v = verb[a]
            i = player[a]
            if (v == _DH or v == _SM) and 0 <= i < n:
                for q in range(min(n_cards[a], MAX_ACTION_CARDS)):
                    c = cards[a, q]
                    if 0 <= c < 64:
                        seen[i] |= np.int64(1) << c
        for i in range(n):
            p = so + where[lo + i]
            occupied[p] = True
            start[p] = S[L.START_ + i]
            end[p] = S[L.STACK_ + i]
            contrib[p] = S[L.CONTRIB_ + i]
            returned[p] = S[L.RETURNED_ + i]
            won[p] = S[L.WON_ + i]
            folded[p] = S[L.STATUS_ + i] == _FOLDED
            known[p] = stack[lo + i] != -1
            unrec[p] = unrecorded[lo + i]
            if named:
                name[p] = name_lo[h] + i
            if win_off[r + 1] > win_off[r]:
                op_win[win_off[r] + where[lo + i]] = winnings[lo + i]
            if fin_off[r + 1] > fin_off[r]:
                op_fin[fin_off[r] + where[lo + i]] = finishing[lo + i]
            # the hole cards the record knows (dealt to or shown by the player)
            for j in range(2):
                c = S[L.HOLE_ + 2 * i + j]
                if 0 <= c < 64 and (seen[i] >> c) & 1:
                    hole[2 * p + j] = c
        b = S[L.BUTTON]
        button[r] = where[lo + b]
        sb = S[L.SB_SEAT]
        sb_seat[r] = where[lo + sb] if sb >= 0 else -1
        bb_seat[r] = where[lo + S[L.BB_SEAT]]
        for j in range(board_off[r + 1] - board_off[r]):
            board[board_off[r] + j] = S[L.BOARD_ + j]
        at = act_off[r]
        d = sd_off[r]
        for e in range(log_lo[h], log_lo[h + 1]):
            kind = log[e, L.LOG_KIND]
            s = log[e, L.LOG_SEAT]
            if kind >= 0 and kind < len(logged) and logged[kind]:
                actions[at] = log[e, L.LOG_STREET] & 0xFF
                actions[at + 1] = (where[lo + s] if s >= 0 else -1) & 0xFF
                actions[at + 2] = kind & 0xFF
                _put8(actions, at + 3, log[e, L.LOG_TO])
                _put8(actions, at + 11, log[e, L.LOG_ADDED])
                at += _REC
            if kind == _SHOW or kind == _MUCK:
                sd_seat[d] = where[lo + s]
                sd_shown[d] = kind == _SHOW
                sd_rank[d] = log[e, L.LOG_STRENGTH] if kind == _SHOW else -1
                d += 1
        for q in range(pot_off[r + 1] - pot_off[r]):
            t = pot_off[r] + q
            pot_amount[t] = S[L.POT_AMOUNT_ + q]
            pot_rake[t] = S[L.POT_RAKE_ + q]
            e_mask, w_mask = 0, 0
            for i in range(n):
                if (S[L.POT_ELIGIBLE_ + q] >> i) & 1:
                    e_mask |= 1 << where[lo + i]
                if (S[L.POT_WINNERS_ + q] >> i) & 1:
                    w_mask |= 1 << where[lo + i]
            pot_elig[t] = e_mask
            pot_win[t] = w_mask
    return (occupied, start, end, contrib, returned, won, folded, known, unrec, name, hole,
            board, actions, sd_seat, sd_shown, sd_rank, pot_amount, pot_rake, pot_elig,
            pot_win, op_win, op_fin, button, sb_seat, bb_seat)


@njit(cache=True)
def _days(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


@njit(cache=True)
def _first_sunday_on_or_after(y: int, m: int, d: int) -> int:
    days = _days(y, m, d)
    weekday = (days + 3) % 7  # Monday 0: 1970-01-01 was a Thursday
    return days + (6 - weekday) % 7


@njit(cache=True)
def _times(year: Arr, month: Arr, day: Arr, hour: Arr, minute: Arr, second: Arr, rule: Arr,
           minutes: Arr) -> tuple[Arr, Arr, Arr]:
    """Per hand: the local ISO date-time text (``datetime.isoformat``; "" unknown) and the UTC
    seconds (``history_rows.utc_seconds``; -1 unknown)."""
    m = len(year)
    dim = np.array([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
    off = np.zeros(m + 1, np.int64)
    text = np.zeros(19 * m, np.uint8)
    utc = np.full(m, -1, np.int64)
    for r in range(m):
        y, mo, d = year[r], month[r], day[r]
        valid = 1 <= y <= 9999 and 1 <= mo <= 12 and d >= 1 and hour[r] >= 0
        if valid:
            leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
            valid = d <= dim[mo - 1] + (1 if mo == 2 and leap else 0)
        if not valid:
            off[r + 1] = off[r]
            continue
        at = off[r]
        digits = (y // 1000, y // 100 % 10, y // 10 % 10, y % 10, -3, mo // 10, mo % 10, -3,
                  d // 10, d % 10, -2, hour[r] // 10, hour[r] % 10, -1, minute[r] // 10,
                  minute[r] % 10, -1, second[r] // 10, second[r] % 10)
        for q in range(19):
            v = digits[q]
            text[at + q] = 48 + v if v >= 0 else (45 if v == -3 else (84 if v == -2 else 58))
        off[r + 1] = at + 19
        local = _days(y, mo, d) * 86400 + hour[r] * 3600 + minute[r] * 60 + second[r]
        if rule[r] == ZONE_FIXED:
            utc[r] = local - minutes[r] * 60
        elif rule[r] == ZONE_ET:
            dst_start = _first_sunday_on_or_after(y, 3, 8) * 86400 + 7200
            dst_end = _first_sunday_on_or_after(y, 11, 1) * 86400 + 7200
            dst = dst_start <= local < dst_end
            utc[r] = local - (-240 if dst else -300) * 60
    return text[:off[m]], off, utc


def _zone_rule(zone: str) -> tuple[int, int]:
    """(rule, minutes east of UTC) of a zone as written: ``history_rows.utc_seconds``'s reading
    (``ZONE_UNKNOWN``: its -1)."""
    if not zone:
        return ZONE_UNKNOWN, 0
    z = zone.strip().upper()
    if z == "ET":
        return ZONE_ET, 0
    if z in UTC_OFFSETS:
        return ZONE_FIXED, UTC_OFFSETS[z]
    m = GMT_OFFSET.match(z)
    if m is None:
        return ZONE_UNKNOWN, 0
    minutes = int(m.group(2)) * 60 + int(m.group(3) or 0)
    if minutes > 14 * 60:
        return ZONE_UNKNOWN, 0
    return ZONE_FIXED, -minutes if m.group(1) == "-" else minutes


def _zone_rules(zone: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Per hand (rule, minutes), Python once per distinct zone."""
    enc = zone.dictionary_encode()
    rules = [_zone_rule(z) for z in enc.dictionary.to_pylist()]
    codes = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    rule = np.asarray([r for r, _ in rules] or [0], np.int64)
    minutes = np.asarray([v for _, v in rules] or [0], np.int64)
    return rule[codes], minutes[codes]


_TYPES = {f.name: f.type for f in ROW_SCHEMA}


def _numpy_dtype(t: pa.DataType) -> np.dtype | None:
    """The numpy dtype of a column of integers or booleans, or of such a list's values."""
    v = t.value_type if pa.types.is_list(t) else t
    if pa.types.is_integer(v) or pa.types.is_boolean(v):
        return np.dtype(v.to_pandas_dtype())
    return None


_DTYPES = {name: d for name, t in _TYPES.items() if (d := _numpy_dtype(t)) is not None}
_ARROW = {d: pa.from_numpy_dtype(d) for d in set(_DTYPES.values())}


def _list(offsets: np.ndarray, values: pa.Array, typ: pa.DataType) -> pa.Array:
    """A list array of ``values`` cut at ``offsets`` (``from_buffers``: no validation pass;
    ``ListArray.from_arrays(type=...)`` costs tens of µs a call)."""
    return pa.Array.from_buffers(typ, len(offsets) - 1,
                                 [None, pa.py_buffer(offsets.astype(np.int32))],
                                 children=[values])


def _binary(offsets: np.ndarray, data: np.ndarray, typ: pa.DataType) -> pa.Array:
    return pa.Array.from_buffers(typ, len(offsets) - 1,
                                 [None, pa.py_buffer(offsets.astype(np.int32)),
                                  pa.py_buffer(np.ascontiguousarray(data))])


def _scalar(name: str, values: np.ndarray) -> pa.Array:
    """A column (or a list column's values) of numbers or booleans (``from_buffers``: a few
    µs less than ``pa.array`` a call)."""
    dtype = _DTYPES[name]
    if dtype == np.bool_:
        return pa.array(np.asarray(values, np.bool_))
    data = np.ascontiguousarray(values, dtype)
    return pa.Array.from_buffers(_ARROW[dtype], len(data), [None, pa.py_buffer(data)])


def _per_list(name: str, offsets: np.ndarray, values: np.ndarray) -> pa.Array:
    return _list(offsets, _scalar(name, values), _TYPES[name])


def _strings(arrays: list[pa.Array], keep: np.ndarray, rows: np.ndarray) -> list[pa.Array]:
    """The kept hands' strings (all kept: as they are)."""
    if len(rows) == len(keep):
        return [a.cast(pa.string()) for a in arrays]
    idx = pa.array(rows)
    return [a.take(idx).cast(pa.string()) for a in arrays]


def _empty(values: pa.Array) -> np.ndarray:
    """Per string: empty."""
    if values.offset or values.null_count:
        return np.asarray(pc.equal(values, "").to_numpy(zero_copy_only=False), np.bool_)
    off = np.frombuffer(values.buffers()[1], np.int32, len(values) + 1)
    return off[1:] == off[:-1]


def _currency(currency: pa.Array, symbol: pa.Array) -> pa.Array:
    """``currency or currency_symbol`` per hand."""
    empty = _empty(currency)
    if not empty.any():
        return currency
    if empty.all():
        return symbol
    return pc.if_else(pa.array(~empty), currency, symbol)


def rows_of_block(block: HandBlock, replayed: Replayed, source: str
                  ) -> tuple[pa.Table, np.ndarray]:
    """The rows (``ROW_SCHEMA``, block order) of the hands replayed ok and representable, and
    the ``bool[H]`` mask of those hands. The rows equal ``history_rows._row``'s for the same
    hands (``source``: the ``source_file`` column)."""
    state = np.ascontiguousarray(replayed.state)
    keep, k_of, ante_of, mode_of, where = _plan(
        block.n, block.p_lo, block.seat, block.has_seats, block.seat_count, block.ante,
        replayed.ok, state)
    rows = np.flatnonzero(keep).astype(np.int64)
    m = len(rows)
    logged = _LOGGED
    offs = _counts(rows, block.p_lo, k_of, state, replayed.log_lo, replayed.log,
                   block.has_winnings, block.has_finishing, logged)
    seat_off, board_off, act_off, sd_off, pot_off, win_off, fin_off = offs
    players = block.players
    p_offsets = players.offsets.to_numpy().astype(np.int64)
    (occupied, start, end, contrib, returned, won, folded, known, unrec, name, hole, board,
     actions, sd_seat, sd_shown, sd_rank, pot_amount, pot_rake, pot_elig, pot_win, op_win,
     op_fin, button, sb_seat, bb_seat) = _fill(
        rows, block.n, block.p_lo, block.a_lo, where, k_of, state, replayed.log_lo,
        replayed.log, block.stack, block.winnings, block.finishing, replayed.unrecorded,
        p_offsets[:-1], p_offsets[1:], block.verb, block.player, block.n_cards,
        np.ascontiguousarray(block.cards), logged, seat_off, board_off, act_off, sd_off,
        pot_off, win_off, fin_off)
    S = state[rows, :_CONFIG_READ]
    k = k_of[rows]
    n_seat_values = len(occupied)
    zero = np.zeros(m, np.int64)
    minus = np.full(m, -1, np.int64)
    no_lists = np.zeros(m + 1, np.int64)

    def const(name: str, value: object) -> pa.Array:
        if m == 0:  # pa.repeat of a list scalar refuses 0 ("Must pass at least one array")
            return pa.array([], _TYPES[name])
        return pa.repeat(pa.scalar(value, _TYPES[name]), m)

    def per_seat(name: str, values: np.ndarray) -> pa.Array:
        return _per_list(name, seat_off, values)

    ft = block.variant[rows] == _FT
    names = pa.concat_arrays([players.values.cast(pa.string()), pa.array([""], pa.string())])
    name_idx = np.where(name < 0, len(names) - 1, name)
    section, site_hand, venue, table_name, zone, currency, symbol = _strings(
        [block.section, block.site_hand, block.venue, block.table, block.zone, block.currency,
         block.currency_symbol], keep, rows)
    rule, minutes = _zone_rules(zone)
    iso, iso_off, utc = _times(block.year[rows], block.month[rows], block.day[rows],
                               block.hour[rows], block.minute[rows], block.second[rows],
                               rule, minutes)
    pots = pa.StructArray.from_arrays(
        [pa.array(pot_amount), pa.array(pot_rake), pa.array(pot_elig), pa.array(pot_win)],
        fields=list(POT_TYPE))
    arrays: dict[str, pa.Array] = {
        "run_id": const("run_id", ""),
        "hand_id": _scalar("hand_id", zero),
        "table_id": _scalar("table_id", zero),
        "hand_no": _scalar("hand_no", zero),
        "structure": _LABELS.take(pa.array(S[:, L.STRUCTURE] if m else zero)),
        "format": const("format", "cash"),
        "generator": const("generator", "phh"),
        "seed_key": _per_list("seed_key", no_lists, np.zeros(0, np.uint64)),
        "n_seats": _scalar("n_seats", k),
        "occupied": per_seat("occupied", occupied),
        "button": _scalar("button", button),
        "sb_seat": _scalar("sb_seat", sb_seat),
        "bb_seat": _scalar("bb_seat", bb_seat),
        "small_blind": _scalar("small_blind", S[:, L.SMALL_BLIND]),
        "big_blind": _scalar("big_blind", S[:, L.BIG_BLIND]),
        "ante": _scalar("ante", ante_of[rows]),
        "ante_mode": _scalar("ante_mode", mode_of[rows]),
        "ante_trimming": _scalar("ante_trimming", S[:, L.ANTE_TRIM] != 0),
        "min_bet": _scalar("min_bet", np.where(ft, 0, block.min_bet[rows])),
        "small_bet": _scalar("small_bet", np.where(ft, block.small_bet[rows], 0)),
        "big_bet": _scalar("big_bet", np.where(ft, block.big_bet[rows], 0)),
        "raise_cap": _scalar("raise_cap", S[:, L.RAISE_CAP]),
        "rake_bps": _scalar("rake_bps", S[:, L.RAKE_BPS]),
        "rake_cap": _scalar("rake_cap", S[:, L.RAKE_CAP]),
        "no_flop_no_drop": _scalar("no_flop_no_drop", S[:, L.NO_FLOP_NO_DROP] != 0),
        "level": _scalar("level", zero),
        "deck": pa.nulls(m, _TYPES["deck"]),
        "hole_cards": _per_list("hole_cards", 2 * seat_off, hole),
        "burns": _per_list("burns", no_lists, np.zeros(0, np.int8)),
        "board": _per_list("board", board_off, board),
        "policy": per_seat("policy", np.full(n_seat_values, -1, np.int8)),
        "player_ids": per_seat("player_ids", np.full(n_seat_values, -1, np.int64)),
        "stacks_start": per_seat("stacks_start", start),
        "rebuys": per_seat("rebuys", np.zeros(n_seat_values, np.int64)),
        "stacks_end": per_seat("stacks_end", end),
        "contributed": per_seat("contributed", contrib),
        "returned": per_seat("returned", returned),
        "won": per_seat("won", won),
        "folded": per_seat("folded", folded),
        "timed_out": per_seat("timed_out", np.zeros(n_seat_values, np.bool_)),
        "rake": _scalar("rake", S[:, L.RAKE]),
        "actions": _binary(act_off, actions, pa.binary()),
        "showdown_seats": _per_list("showdown_seats", sd_off, sd_seat),
        "showdown_shown": _per_list("showdown_shown", sd_off, sd_shown),
        "showdown_ranks": _per_list("showdown_ranks", sd_off, sd_rank),
        "pots": _list(pot_off, pots, _TYPES["pots"]),
        "fault": pa.nulls(m, pa.string()),
        "source_file": const("source_file", source),
        "source_section": section,
        "site_hand": site_hand,
        "venue": venue,
        "table_name": table_name,
        "hand_time": _binary(iso_off, iso, pa.string()),
        "time_zone": zone,
        "time_utc": _scalar("time_utc", utc),
        "currency": _currency(currency, symbol),
        "players": _list(seat_off, names.take(pa.array(name_idx)), _TYPES["players"]),
        "stack_known": per_seat("stack_known", known),
        "cards_unrecorded": per_seat("cards_unrecorded", unrec),
        "op_winnings": _per_list("op_winnings", win_off, op_win),
        "op_finishing": _per_list("op_finishing", fin_off, op_fin),
        "op_rake": _scalar("op_rake", minus),
        "op_pot": _scalar("op_pot", minus),
        "tournament": const("tournament", ""),  # a PHH hand with ``level`` takes the Python path
        "tournament_buy_in": const("tournament_buy_in", ""),
        "op_claim_players": const("op_claim_players", []),  # claims: a site text's, not PHH's
        "op_claims": const("op_claims", []),
    }
    batch = pa.RecordBatch.from_arrays([arrays[f.name] for f in ROW_SCHEMA], schema=ROW_SCHEMA)
    return pa.Table.from_batches([batch]), keep
