"""An import's hands ordered into table sessions (``rebuild``): the real tables rebuilt across the
files of a run, so that the rotation and chip carry-over audits run on them.

The hands of one (venue, tournament, table name), ordered by (time, site hand number in natural
order), form table SESSIONS of adjacent hands: the button moved to the next occupied seat, the
same seats and stakes, no pause over ``MAX_PAUSE_SECONDS``; or the button stayed because the small
blind left (the seat it would move to is empty: the sites keep the button and advance the
blinds; ``audits.rotation`` accepts it). A button on the SAME seat with the same players
otherwise (at least two named players kept their seats and no seat occupied in both hands
changed hands: iPoker names every table "HandHQ", and two hands of different tables share no
seated player) keeps the hands adjacent only where the record proves that no hand lies
between them: the site's own table counter says they are consecutive, or every player seated
in both starts the second with exactly what the first left him (``_stacks_carried``). Then the
rotation audit fails the hand, counted as ``button_stuck``; otherwise they are not provably
adjacent (two hands of one table from a parser's test files): a gap, counted
``missing_hands``, never a rotation or chip accusation. Anything else starts a new session (a
gap, counted). A hand without a table name is its own table (ordered by file and section).

Two hands are never joined across a hand the import skipped (``breaks``: the skipped hands'
places among each file's rows, ``FileImport.gaps``; a hand dropped as stated twice is one):
counted ``skip_breaks``; nor where a tournament table's stacks show a hand between them
(``_hand_between``: the chips moved from players who won nothing to others, or from anyone when
an orbit of the table could be played between them), nor where a cash
table's stacks do (``_cash_hand_between``: a player who won nothing starts the next hand with
less while another starts it with more): counted ``missing_hands``. Both are
gaps, so the later hand's stacks never judge the earlier's payout. A site hand number that
counts its table's hands (Ongame's ``R5-<table>-<n>``) joins only consecutive numbers (also
``missing_hands``: the site's own counter says hands lie between), and consecutive numbers are
adjacent whatever the stacks.

A hand read twice (one venue's table and site hand number in two files, or an export that
repeats hands) is kept once and counted ``repeated``; copies that differ in a fact are all
dropped and counted ``conflicting`` (``repeated_hands``): a repeat never reads as a hand that
paid twice or a button that did not move.

``table_id`` = the session, ``hand_no`` = the hand's place in it, ``rebuys`` = a session's
first stacks, then each seat's start minus its previous end (negative: what the operator took
between the hands, judged by the outcome audit), ``player_ids`` = one id per player name over
the run (sorted names, from 0; -1 an empty seat).

Columnar: the sort keys are ranks of each column's distinct values (natural order computed per
distinct value), one stable ``numpy.lexsort``; the sessions are one numba pass over the rows in
that order on the flat per-seat arrays.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from sim.histories.read.phh import no_cyclic_gc

__all__ = ["MAX_PAUSE_SECONDS", "MIN_HAND_SECONDS", "SEAT_COLUMNS", "SKIP_AFTER",
           "SKIP_BEFORE", "breaks_of", "pad_seats", "rebuild", "repeated_hands"]

MAX_PAUSE_SECONDS = 600
# no hand is played in less: hands missing between two whose button moved one seat are a whole
# orbit of the table (one a seat), which takes at least this much a seat
MIN_HAND_SECONDS = 10
_DIGIT_RUNS = re.compile(r"(\d+)")


# per-seat columns and the value of an empty seat (``pad_seats``); ``hole_cards`` holds two
SEAT_COLUMNS: dict[str, Any] = {
    "occupied": False, "policy": -1, "player_ids": -1, "stacks_start": 0, "rebuys": 0,
    "stacks_end": 0, "contributed": 0, "returned": 0, "won": 0, "folded": False,
    "timed_out": False, "players": "", "stack_known": False, "cards_unrecorded": False,
    "op_winnings": 0, "op_finishing": 0, "hole_cards": -1,
}
_NOT_RECORDED_EMPTY = ("op_winnings", "op_finishing")  # [] (not recorded) stays []


def pad_seats(table: pa.Table, seat_count_known: list[bool]) -> pa.Table:
    """A table (venue, table name) whose record gives no ``seat_count`` seats as many as the
    highest seat any of its hands names: those hands' per-seat columns are padded with empty
    seats (so that its hands can be adjacent)."""
    n = table.num_rows
    known = np.asarray(seat_count_known, np.bool_)
    if n == 0 or known.all():
        return table
    table = table.combine_chunks()
    seats = _ints(table, "n_seats")
    named = pc.not_equal(table.column("table_name"), "").to_numpy(zero_copy_only=False)
    key = _ranks(table.column("venue")) * (n + 1) + _ranks(table.column("table_name"))
    pick = named & ~known
    if not pick.any():
        return table
    most = np.zeros(n, np.int64)
    uniq, inv = np.unique(key[pick], return_inverse=True)
    top = np.zeros(len(uniq), np.int64)
    np.maximum.at(top, inv, seats[pick])
    most[pick] = top[inv]
    grow = pick & (most > seats)
    if not grow.any():
        return table
    extra_seats = np.where(grow, most - seats, 0)
    for col, empty in SEAT_COLUMNS.items():
        per = 2 if col == "hole_cards" else 1
        arr = table.column(col).chunk(0) if table.column(col).num_chunks else None
        if arr is None:
            continue
        offs = arr.offsets.to_numpy().astype(np.int64)
        lens = np.diff(offs)
        add = extra_seats * per
        if col in _NOT_RECORDED_EMPTY:
            add = np.where(lens == 0, 0, add)
        if not add.any():
            continue
        values = arr.values.slice(int(offs[0]), int(offs[-1] - offs[0]))
        pool = pa.concat_arrays([values, pa.array([empty], values.type)])
        new_lens = lens + add
        new_offs = np.concatenate(([0], np.cumsum(new_lens)))
        idx = np.full(int(new_offs[-1]), len(values), np.int64)  # the empty seat's value
        row = np.repeat(np.arange(n), lens)
        within = np.arange(len(row)) - np.repeat(offs[:-1] - offs[0], lens)
        idx[new_offs[:-1][row] + within] = np.arange(len(row))
        padded = pa.ListArray.from_arrays(pa.array(new_offs.astype(np.int32)),
                                          pool.take(pa.array(idx)))
        j = table.schema.get_field_index(col)
        table = table.set_column(j, table.schema.field(col),
                                 padded.cast(table.schema.field(col).type))
    j = table.schema.get_field_index("n_seats")
    return table.set_column(j, table.schema.field("n_seats"),
                            pa.array(np.where(grow, most, seats).astype(np.int8)))


def _natural(text: str) -> tuple[Any, ...]:
    """Digit runs as numbers (any script's decimal digits, as ``int`` reads them; ``isdigit``
    would also take a superscript such as "²", which ``int`` refuses)."""
    if text.isdecimal():  # a site's hand number: the one token
        return ((0, int(text), ""),)
    return tuple((0, int(t), "") if t.isdecimal() else (1, 0, t)
                 for t in _DIGIT_RUNS.split(text) if t)


def _ranks(values: pa.Array | pa.ChunkedArray, natural: bool = False) -> np.ndarray:
    """Each row's rank among the column's distinct values (equal values, and equal natural
    keys, share a rank): text order (code points), or natural order (digit runs as numbers)."""
    enc = pc.dictionary_encode(values)
    if isinstance(enc, pa.ChunkedArray):
        enc = enc.combine_chunks() if enc.num_chunks != 1 else enc.chunk(0)
    idx = enc.indices.to_numpy(zero_copy_only=False)
    if not len(idx):
        return np.zeros(0, np.int64)
    d = enc.dictionary
    if natural and len(d) and pc.all(pc.match_substring_regex(
            d, "^[0-9]{1,18}$")).as_py():  # hand numbers (ASCII digits): their values' order
        _, rank = np.unique(pc.cast(d, pa.int64()).to_numpy(), return_inverse=True)
        return rank.astype(np.int64)[idx]
    distinct = d.to_pylist()
    keyf = _natural if natural else None
    order = sorted(range(len(distinct)), key=(lambda j: keyf(distinct[j])) if keyf else
                   distinct.__getitem__)
    rank = np.empty(len(distinct), np.int64)
    r, last = -1, None
    for j in order:
        k = keyf(distinct[j]) if keyf else distinct[j]
        if r < 0 or k != last:
            r += 1
            last = k
        rank[j] = r
    return rank[idx]


def _local_seconds(iso: str) -> int:
    try:
        d = _dt.datetime.fromisoformat(iso)
    except ValueError:
        return -1
    return int((d - _dt.datetime(1970, 1, 1)).total_seconds())


def _when(table: pa.Table) -> np.ndarray:
    """Each hand's time in seconds: ``time_utc``, else its local time read as UTC, else -1."""
    utc = table.column("time_utc").to_numpy().astype(np.int64)
    when = utc.copy()
    miss = np.flatnonzero(utc < 0)
    if len(miss):
        local = table.column("hand_time").take(pa.array(miss)).to_pylist()
        memo: dict[str, int] = {}
        for j, h in zip(miss.tolist(), local, strict=True):
            if h:
                v = memo.get(h)
                if v is None:
                    v = memo[h] = _local_seconds(h)
                when[j] = v
            else:
                when[j] = -1
    return when


def _flat(table: pa.Table, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, values) of a list column."""
    col = table.column(name).combine_chunks()
    offs = col.offsets.to_numpy().astype(np.int64)
    vals = col.values.to_numpy(zero_copy_only=False)
    return offs - offs[0], vals[offs[0]:offs[-1]] if len(offs) else vals


@njit(cache=True)
def _next_occupied(occ, lo, k, after):
    for j in range(1, k + 1):
        s = (after + j) % k
        if occ[lo + s]:
            return s
    return -1


@njit(cache=True)
def _same_players(names, lo_a, n_a, lo_b, n_b):
    kept = 0
    for s in range(min(n_a, n_b)):
        x, y = names[lo_a + s], names[lo_b + s]
        if x >= 0 and y >= 0:
            if x != y:
                return False
            kept += 1
    return kept >= 2


@njit(cache=True)
def _hand_between(names, lo_a, n_a, lo_b, n_b, start, end, orbit):
    """Tournament hand b does not follow hand a (chips move only through hands: no rake, no
    top-up): the chips of the players seated in both moved between them, some starting b with
    less than a left them and the others with as much more, and none who lost had won in a
    (or, ``orbit``: the hands lie far enough apart in time for a whole orbit of the table to be
    played between them, whoever lost); or b starts with every stack a started with, though a
    moved chips. Only a hand moves chips between players: one is missing (an export of
    selected hands), or a is not before b. A skim between hands (chips gone, nobody gains
    them) keeps them adjacent, and so does a pot paid to the wrong player of a (a winner of a
    short) closer in time than an orbit: the outcome audit judges those. Further apart, a
    winner's chips gone to another are a hand the export left out (ACR tournament 24095328:
    712025172 pays coog 147,199, who starts 712027902, 2 minutes later and heads-up, with
    52,799, the 94,400 with his one opponent: the selection of a parser's test file)."""
    lost = 0
    gained = 0
    same = 0
    played = False
    for s in range(min(n_a, n_b)):
        x, y = names[lo_a + s], names[lo_b + s]
        if x >= 0 and x == y:
            same += start[lo_b + s] == start[lo_a + s]
            played |= end[lo_a + s] != start[lo_a + s]
            same -= 1
    if played and same == 0:  # b starts where a started, as if a had not been played
        return True
    for s in range(min(n_a, n_b)):
        x, y = names[lo_a + s], names[lo_b + s]
        if x < 0 or x != y:
            continue
        d = start[lo_b + s] - end[lo_a + s]
        if d < 0:
            if end[lo_a + s] > start[lo_a + s] and not orbit:
                return False
            lost -= d
        else:
            gained += d
    return lost > 0 and gained == lost


@njit(cache=True)
def _stacks_carried(names, lo_a, n_a, lo_b, n_b, start, end):
    """Every player seated in both hands starts b with exactly what a left him (and at least
    one is): the stacks prove that no hand was played between them."""
    common = 0
    for s in range(min(n_a, n_b)):
        x, y = names[lo_a + s], names[lo_b + s]
        if x >= 0 and x == y:
            if start[lo_b + s] != end[lo_a + s]:
                return False
            common += 1
    return common > 0


@njit(cache=True)
def _cash_hand_between(names, lo_a, n_a, lo_b, n_b, start, end):
    """Cash hand b does not provably follow hand a: a player who won nothing in a starts b
    with less than a left him while another starts it with more. Chips moved between players,
    which a hand between them does (a file of selected hands, a parser's test files of one
    table); between two adjacent hands a player who won nothing never loses chips, and the
    only explanation left, a skim beside a top-up, is not what the record proves. A loss by
    a winner of a (the rake, or a skim: the outcome audit judges it) or a loss nobody gains
    keeps them adjacent, and so do two hands closer in time than a whole orbit of the table
    could be played (``MIN_HAND_SECONDS`` a seat: the button moved one seat, so the hands
    missing would be one a seat): there the chips moved by the record's own hand (a dead
    blind the export omits: the outcome audit names it)."""
    lost = False
    gained = False
    for s in range(min(n_a, n_b)):
        x, y = names[lo_a + s], names[lo_b + s]
        if x < 0 or x != y:
            continue
        d = start[lo_b + s] - end[lo_a + s]
        if d < 0 and end[lo_a + s] <= start[lo_a + s]:
            lost = True
        elif d > 0:
            gained = True
    return lost and gained


@njit(cache=True)
def _sessions(order, venue, tname, named, n_seats, structure, small, big, when, button,
              sb_seat, offs, occupied, start, end, names, max_pause, n_venues, breaks,
              seq_key, seq, chips, min_orbit):
    """One pass in session order: (session, hand_no, rebuys flat, counts [tables, sessions,
    gaps, stuck, broken by a skipped hand], per venue [tables, sessions, gaps,
    button_stuck])."""
    n = len(order)
    session = np.zeros(n, np.int64)
    hand_no = np.zeros(n, np.int64)
    rebuys = np.zeros(len(start), np.int64)
    by_venue = np.zeros((n_venues, 4), np.int64)
    sessions = gaps = stuck = tables = broken = between = 0
    prev = -1
    for i in order:
        lo, k = offs[i], offs[i + 1] - offs[i]
        adjacent = False
        still = False
        same_key = prev >= 0 and named[i] and venue[i] == venue[prev] and tname[i] == tname[prev]
        if same_key:
            same = (n_seats[i] == n_seats[prev] and structure[i] == structure[prev]
                    and small[i] == small[prev] and big[i] == big[prev])
            t0, t1 = when[prev], when[i]
            timely = t0 < 0 or t1 < 0 or (0 <= t1 - t0 <= max_pause)
            b0 = button[prev]
            moved = button[i] == _next_occupied(occupied, lo, k, b0)
            kept = False
            if button[i] == b0:
                sb0 = sb_seat[prev]
                if 0 <= sb0 < k and sb0 != b0 and not occupied[lo + sb0]:
                    kept = True
                else:
                    still = _same_players(names, offs[prev], offs[prev + 1] - offs[prev], lo, k)
            adjacent = same and timely and (moved or kept or still)
            if adjacent and ((breaks[prev] & _SKIP_AFTER) or (breaks[i] & _SKIP_BEFORE)):
                adjacent = False  # a skipped hand of the file lies between them
                still = False
                broken += 1
            counted = seq_key[i] >= 0 and seq_key[i] == seq_key[prev]
            pk = offs[prev + 1] - offs[prev]
            orbit = not (t0 >= 0 and t1 >= 0 and t1 - t0 < min_orbit * np.sum(
                occupied[lo:lo + k]))  # a whole orbit of the table could lie between them
            if adjacent and ((counted and seq[i] != seq[prev] + 1)
                             or (not counted and chips[i] and chips[prev] and _hand_between(
                                 names, offs[prev], pk, lo, k, start, end, orbit))
                             or (not counted and not (chips[i] and chips[prev]) and orbit
                                 and _cash_hand_between(names, offs[prev], pk, lo, k, start,
                                                        end))
                             or (not counted and still and not _stacks_carried(
                                 names, offs[prev], pk, lo, k, start, end))):
                adjacent = False  # the chips moved between players: a hand is missing
                still = False
                between += 1
            if adjacent and still:
                stuck += 1
            if not adjacent:
                gaps += 1
        v = venue[i]
        if not same_key:  # a table's hands are consecutive in this order: its first hand
            tables += 1
            by_venue[v, 0] += 1
        elif not adjacent:
            by_venue[v, 2] += 1
        if adjacent and still:
            by_venue[v, 3] += 1
        if adjacent:
            session[i] = session[prev]
            hand_no[i] = hand_no[prev] + 1
            plo = offs[prev]
            for s in range(k):
                if not occupied[lo + s]:
                    rebuys[lo + s] = 0
                elif occupied[plo + s]:
                    rebuys[lo + s] = start[lo + s] - end[plo + s]
                else:
                    rebuys[lo + s] = start[lo + s]
        else:
            by_venue[v, 1] += 1
            session[i] = sessions
            sessions += 1
            for s in range(k):
                rebuys[lo + s] = start[lo + s]
        prev = i
    return (session, hand_no, rebuys,
            np.array([tables, sessions, gaps, stuck, broken, between]), by_venue)


def rebuild(table: pa.Table, breaks: np.ndarray | None = None
            ) -> tuple[pa.Table, dict[str, Any]]:
    """Order the hands into table sessions and set ``hand_id``, ``table_id``, ``hand_no``,
    ``rebuys`` and ``player_ids`` (module docstring); returns the table in session order and
    {tables, sessions, gaps, button_stuck, by_venue, [skip_breaks]}. ``breaks``: per row, a
    skipped hand of its file just before it (``SKIP_BEFORE``) and/or just after it
    (``SKIP_AFTER``): ``skip_breaks``."""
    with no_cyclic_gc():
        return _rebuild(table, breaks)


SKIP_BEFORE, SKIP_AFTER = 1, 2
_SKIP_BEFORE, _SKIP_AFTER = SKIP_BEFORE, SKIP_AFTER


def breaks_of(rows: int, gaps: list[int]) -> np.ndarray:
    """The ``breaks`` of one file's ``rows`` from its ``FileImport.gaps``."""
    out = np.zeros(rows, np.int8)
    for p in gaps:
        if p < rows:
            out[p] |= SKIP_BEFORE
        if p > 0:
            out[min(p, rows) - 1] |= SKIP_AFTER
    return out


# what two copies of one site hand must share to be one hand repeated
_SAME_HAND = ("stacks_start", "occupied", "button", "actions", "op_winnings",
              "op_finishing", "op_rake", "op_pot")


def repeated_hands(table: pa.Table) -> tuple[np.ndarray, int, int]:
    """(rows kept, repeated, conflicting): ``_repeated`` without the conflicting rows."""
    keep, _bad_rows, repeated, conflicting = _repeated(table)
    return keep, repeated, conflicting


def _repeated(table: pa.Table) -> tuple[np.ndarray, np.ndarray, int, int]:
    """(rows kept, repeated, conflicting): a hand the import read twice (one venue's table and
    site hand number, all three stated, in two files or twice in one: an export that repeats
    hands) is kept
    once, its other copies counted ``repeated``; copies that differ in a fact (stacks, seats,
    button, actions, the operator's amounts) are ``conflicting``: every copy is dropped (which
    copy the operator meant cannot be decided; the record states the hand twice)."""
    n = table.num_rows
    keep = np.ones(n, np.bool_)
    dropped = np.zeros(n, np.bool_)
    site = table.column("site_hand")
    if n == 0:
        return keep, dropped, 0, 0
    key = pc.binary_join_element_wise(table.column("venue"), table.column("table_name"), site,
                                      "\x1f")
    enc = pc.dictionary_encode(key)
    if isinstance(enc, pa.ChunkedArray):
        enc = enc.combine_chunks()
    idx = enc.indices.to_numpy(zero_copy_only=False)
    # provably one hand only where the record names all three: a venue, a table and the site's
    # hand number (hands numbered per file, as research sets are, are never joined)
    has = np.ones(n, np.bool_)
    for col in (table.column("venue"), table.column("table_name"), site):
        has &= pc.fill_null(pc.not_equal(col, ""), False).to_numpy(zero_copy_only=False)
    counts = np.bincount(idx[has], minlength=len(enc.dictionary)) if has.any() else None
    if counts is None or counts.max(initial=0) < 2:
        return keep, dropped, 0, 0
    dup_rows = np.flatnonzero(has & (counts[idx] > 1))
    facts = table.select(list(_SAME_HAND)).take(pa.array(dup_rows)).to_pylist()
    first: dict[int, dict[str, Any]] = {}
    bad: set[int] = set()
    for row, fact in zip(dup_rows.tolist(), facts, strict=True):
        k = int(idx[row])
        if k not in first:
            first[k] = fact
            continue
        keep[row] = False
        if fact != first[k]:
            bad.add(k)
    conflicting = 0
    for k in bad:
        rows = dup_rows[idx[dup_rows] == k]
        conflicting += len(rows)
        keep[rows] = False
        dropped[rows] = True
    repeated = len(dup_rows) - len(first) - (conflicting - len(bad))
    return keep, dropped, repeated, conflicting


def _rebuild(table: pa.Table, breaks: np.ndarray | None) -> tuple[pa.Table, dict[str, Any]]:
    keep, dropped, repeated, conflicting = _repeated(table)
    breaks = (np.zeros(table.num_rows, np.int8) if breaks is None
              else np.asarray(breaks, np.int8).copy())
    if dropped.any():  # a hand dropped as stated twice is a skipped hand of its file
        files = _ranks(table.column("source_file"))
        for r in np.flatnonzero(dropped).tolist():
            if r > 0 and files[r - 1] == files[r]:
                breaks[r - 1] |= SKIP_AFTER
            if r + 1 < len(files) and files[r + 1] == files[r]:
                breaks[r + 1] |= SKIP_BEFORE
    if not keep.all():
        table = table.filter(pa.array(keep))
        breaks = breaks[keep]
    out, stats = _sessions_of(table, breaks)
    for key, count in (("repeated", repeated), ("conflicting", conflicting)):
        if count:  # present when a hand was read twice
            stats[key] = count
    return out, stats


def _sessions_of(table: pa.Table, breaks: np.ndarray) -> tuple[pa.Table, dict[str, Any]]:
    n = table.num_rows
    if n == 0:
        return table, {"tables": 0, "sessions": 0, "gaps": 0, "button_stuck": 0, "by_venue": {}}
    table = table.combine_chunks()
    venue_col = table.column("venue")
    venue = _ranks(venue_col)
    tname_rank = _ranks(_table_key(table))
    named = pc.not_equal(table.column("table_name"), "").to_numpy(zero_copy_only=False)
    unnamed = ~named
    file_rank = np.where(unnamed, _ranks(table.column("source_file")), 0)
    section_rank = np.zeros(n, np.int64)
    if unnamed.any():
        section_rank[unnamed] = _ranks(table.column("source_section").filter(
            pa.array(unnamed)), natural=True)
    when = _when(table)
    site_rank = _ranks(table.column("site_hand"), natural=True)
    # sorted by (venue, table name, [file, section when unnamed], time, site hand): stable
    order = np.lexsort((site_rank, when, section_rank, file_rank, tname_rank, venue))
    offs, occupied = _flat(table, "occupied")
    _, start = _flat(table, "stacks_start")
    _, end = _flat(table, "stacks_end")
    p_offs, players = _flat(table, "players")
    names_enc = pc.dictionary_encode(pa.array(players, pa.string()))
    name_idx = names_enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    distinct = names_enc.dictionary.to_pylist()
    # player ids: one per name over the run (sorted names), -1 for an empty seat
    sorted_names = sorted(x for x in distinct if x)
    id_of = {name: j for j, name in enumerate(sorted_names)}
    ids_of_distinct = np.array([id_of.get(x, -1) for x in distinct] or [0], np.int64)
    flat_ids = ids_of_distinct[name_idx] if len(name_idx) else np.zeros(0, np.int64)
    venues = venue_col.unique().to_pylist()
    v_rank = _ranks(pa.array(venues, pa.string())) if venues else np.zeros(0, np.int64)
    venue_name = {int(r): v for r, v in zip(v_rank.tolist(), venues, strict=True)}
    session, hand_no, rebuys, counts, by_v = _sessions(
        order.astype(np.int64), venue, tname_rank, named, _ints(table, "n_seats"),
        _ranks(table.column("structure")), _ints(table, "small_blind"),
        _ints(table, "big_blind"), when, _ints(table, "button"), _ints(table, "sb_seat"),
        offs, occupied.astype(np.bool_), start.astype(np.int64), end.astype(np.int64),
        flat_ids if np.array_equal(p_offs, offs) else _names_on(offs, p_offs, flat_ids),
        MAX_PAUSE_SECONDS, len(venue_name), breaks, *_table_counter(table.column("site_hand")),
        pc.equal(table.column("format"), "tournament").to_numpy(zero_copy_only=False),
        MIN_HAND_SECONDS)
    take = pa.array(order)
    out = table.take(take)
    cols = {
        "hand_id": pa.array(np.arange(n, dtype=np.int64)),
        "table_id": pa.array(session[order]),
        "hand_no": pa.array(hand_no[order].astype(np.int32)),
        "rebuys": _reordered(offs, order, rebuys),
        "player_ids": _reordered(p_offs, order, flat_ids),
    }
    for name, arr in cols.items():
        j = out.schema.get_field_index(name)
        out = out.set_column(j, out.schema.field(name), arr.cast(out.schema.field(name).type))
    tables, sessions, gaps, stuck, broken, between = (int(x) for x in counts)
    by_venue = {venue_name[r]: {"tables": int(by_v[r, 0]), "sessions": int(by_v[r, 1]),
                                "gaps": int(by_v[r, 2]), "button_stuck": int(by_v[r, 3])}
                for r in range(len(venue_name))}
    stats: dict[str, Any] = {"tables": tables, "sessions": sessions, "gaps": gaps,
                             "button_stuck": stuck, "by_venue": dict(sorted(by_venue.items()))}
    if broken:  # present when a skipped hand broke a session
        stats["skip_breaks"] = broken
    if between:  # present when the stacks showed a hand missing between two
        stats["missing_hands"] = between
    return out, stats


# a site hand number that counts the hands of its table: Ongame's ``R5-73910684-276`` (cash)
# and ``T5-17298370-13`` (a tournament table): the table's id, then its hand's number
_TABLE_COUNTER = re.compile(r"^([A-Z]\d+-\d+-)(\d{1,15})$")


def _table_counter(site: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(key, number) per row: a site hand number that counts its table's hands has its
    table's key (>= 0) and its number; -1 for others. Two hands of one key are adjacent only
    if their numbers are (one apart): the site's own counter says how many hands lie
    between."""
    values = site.to_pylist()
    key = np.full(len(values), -1, np.int64)
    number = np.zeros(len(values), np.int64)
    keys: dict[str, int] = {}
    for j, v in enumerate(values):
        m = _TABLE_COUNTER.match(v) if v else None
        if m is not None:
            key[j] = keys.setdefault(m.group(1), len(keys))
            number[j] = int(m.group(2))
    return key, number


def _table_key(table: pa.Table) -> pa.ChunkedArray | pa.Array:
    """A hand's table within its venue: its tournament (issue 34: two tournaments' tables that
    share a name, as "Table 1" of every sit & go, are never one table; "" for a cash game)
    and its table name. Runs of import version 1 have no ``tournament``: the name alone. A hand
    judged as cash (``format``: a PHH hand the lab did not map to tournament, whatever its own
    fields say) is keyed by its table name alone: the operator's tournament text never parts a
    cash table's session (issue 34, point 5)."""
    if "tournament" not in table.column_names:
        return table.column("table_name")
    named = pc.if_else(pc.equal(table.column("format"), "tournament"),
                       table.column("tournament"), "")
    return pc.binary_join_element_wise(named, table.column("table_name"), "\x1f")


def _ints(table: pa.Table, name: str) -> np.ndarray:
    return table.column(name).to_numpy().astype(np.int64)


def _reordered(offs: np.ndarray, order: np.ndarray, values: np.ndarray) -> pa.ListArray:
    """The list column of flat ``values`` at offsets ``offs``, its rows taken in ``order``."""
    lens = np.diff(offs)[order]
    new = np.concatenate(([0], np.cumsum(lens)))
    starts = np.repeat(offs[:-1][order], lens)
    within = np.arange(int(new[-1])) - np.repeat(new[:-1], lens)
    return pa.ListArray.from_arrays(pa.array(new.astype(np.int32)),
                                    pa.array(values[starts + within], pa.int64()))


def _names_on(offs: np.ndarray, p_offs: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Player name ids laid out on the per-seat offsets (a row whose ``players`` list is not
    one per seat: every seat unnamed)."""
    out = np.full(int(offs[-1]), -1, np.int64)
    for i in range(len(offs) - 1):
        k, m = offs[i + 1] - offs[i], p_offs[i + 1] - p_offs[i]
        if k == m:
            out[offs[i]:offs[i + 1]] = ids[p_offs[i]:p_offs[i + 1]]
    return out
