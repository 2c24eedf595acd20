"""Deck uniformity battery: are the logged decks what a fair shuffle produces?

Map (one batch) -> ``UniformityPartial``: int64 count arrays plus the collision keys and the
batch's own card x position p-value. Reduce (all partials) -> one ``AuditResult`` per test and a
first, overall result ``uniformity`` (Holm's correction across the battery, alpha = 0.01).

The tests (cards 0..51 = rank * 4 + suit; position k = k-th card of the deck):

===========================  =================================================  ==========
test                         statistic                                          df / law
===========================  =================================================  ==========
card_position                Pearson X2 over 52 x 52 card/position cells,       51 * 51
                             times 51/52 (rows and columns of a permutation
                             are fixed: X2 ~ 52/51 chi2(51^2) exactly in the
                             limit)
card_position_max_cell       largest |z| of a cell; p = Bonferroni(2704) of     exact binom
                             the exact two-sided binomial tails
suit_position                X2 over 52 positions x 4 suits, times 51/52        51 * 3
rank_position                X2 over 52 positions x 13 ranks, times 51/52       51 * 12
adjacent_pairs               Mahalanobis form of the 52 x 51 counts "card b     2651
                             directly follows card a" (exact covariance of a
                             random permutation, see ``adjacent_statistic``)
duplicate_decks              pairs of identical decks; Poisson tail with mean   Poisson
                             C(N, 2) / 52!
first_k_collisions           pairs of decks sharing the first 9 cards;          Poisson
                             Poisson tail with mean C(N, 2) / (52! / 43!)
starting_hands               per seat: pairs 3/51, suited 12/51, offsuit        2 per seat,
                             36/51; the largest per-seat X2, p = Bonferroni     Bonferroni
                             over seats
seat_hand_classes,           who receives the cards: the 169 starting-hand      see
player_hand_classes,         classes per absolute seat, 9 bands per player,     ``audits.
seat_equity, player_equity   the all-in winner per seat and per player          seats``
consecutive_decks            first card of hand 2m vs hand 2m+1 at the same     52^2 - 1
                             table (disjoint pairs), X2 against 1/2704
batch_pvalues_ks             KS of the per-batch card_position p-values         KS
                             against U(0, 1); only with >= 5 batches
===========================  =================================================  ==========

The collision tests catch small seed spaces that no frequency test sees: with decks fully
determined by a 32-bit seed, N = 10 million decks hold about C(N, 2) / 2^32 = 11,600 identical
pairs, while a fair shuffle expects 0.04 first-9-card collisions and essentially no duplicate.

Imported hands without decks get the seat and player tests alone (as far as their known cards
go); the deck tests are then not applicable.

A row whose deck is null (or all zero bytes: a null slot read raw) is not audited; with no decks
at all every result is ``applicable=False`` ("not applicable: no decks").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
from numba import njit

from audits import boards as board_tests
from audits import players as listed
from audits import runouts as runout_tests
from audits import seats as seat_tests
from audits import stats
from audits.blas import one_thread
from audits.evaluator import TABLE, board_parts, eval_with_board
from audits.result import MAX_EXAMPLES, AuditResult
from audits.spec import AuditSpec, KeyPass

NAME = "uniformity"
ALPHA = 0.01
N = 52
FIRST_K = 9
MIN_BATCHES_KS = 5
MIN_BATCH_DECKS_KS = 520  # expected count >= 10 per card/position cell
MAX_SEATS = 10
DEALT_SEATS = tuple(range(2, MAX_SEATS + 1))
# table sizes whose all-in winner is computed too (heads-up, 6-max, full ring: 17 hand
# evaluations a deck instead of 54 for every size)
DEALT_EQUITY_SEATS = (2, 6, 9)
# the seat tests that apply to decks dealt as hands (no player ids: no player tests)
DEALT_TESTS = ("seat_hand_classes", "seat_equity", "pooled_hand_classes", "pooled_hand_features")
# starting-hand classes: pair, suited, offsuit
HAND_CLASS_PROBS = np.array([3.0, 12.0, 36.0]) / 51.0
TESTS = ("card_position", "card_position_max_cell", "suit_position", "rank_position",
         "adjacent_pairs", "duplicate_decks", "first_k_collisions", "starting_hands",
         *seat_tests.TESTS, *runout_tests.TESTS, *board_tests.TESTS, *listed.TESTS,
         "consecutive_decks", "batch_pvalues_ks")
GAME_TESTS = runout_tests.TESTS + board_tests.TESTS  # conditioned on the play
DECK_TESTS = tuple(t for t in TESTS if t not in seat_tests.TESTS + GAME_TESTS + listed.TESTS)


# ---------------------------------------------------------------------------------------------
# map


@dataclass
class UniformityPartial:
    """Sufficient statistics of one batch."""

    decks: int = 0
    invalid: int = 0
    invalid_examples: list[int] = field(default_factory=list)
    card_position: np.ndarray = field(default_factory=lambda: np.zeros((N, N), np.int64))
    adjacent: np.ndarray = field(default_factory=lambda: np.zeros((N, N), np.int64))
    consecutive: np.ndarray = field(default_factory=lambda: np.zeros((N, N), np.int64))
    hand_classes: np.ndarray = field(default_factory=lambda: np.zeros((MAX_SEATS, 3), np.int64))
    first_k: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    deck_hash: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))
    hand_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    batch_p: float | None = None
    # the keys above are those of one hash partition only (``restrict_keys``): the other
    # partitions' collisions arrive as ``CollisionCounts`` from partition passes
    key_partition: tuple[int, int] = (0, 1)
    seats: seat_tests.SeatPartial = field(default_factory=seat_tests.SeatPartial)
    # decks without a game (a shuffler's own): the seat tests of the decks dealt as hands to
    # m = 2..10 seats by the dealing order (``DEALT_SEATS``), one partial per m
    dealt: list[seat_tests.SeatPartial] = field(default_factory=list)
    # the run-outs after all-ins (``audits.runouts``): the tests that condition on the game
    runouts: runout_tests.RunoutPartial = field(default_factory=runout_tests.RunoutPartial)
    boards: board_tests.BoardPartial = field(default_factory=board_tests.BoardPartial)
    # an imported batch's player names -> their ids (a lab's ``--players`` list names players)
    names: dict[str, int] = field(default_factory=dict)


@njit(cache=True)
def _deck_key(decks, i):  # pragma: no cover - compiled
    """(valid, first-9 key, 64-bit hash) of deck row i: valid = a permutation of 0..51."""
    seen = np.int64(0)
    for k in range(N):
        c = np.int64(decks[i, k])
        if c < 0 or c >= N:
            return False, np.int64(0), np.uint64(0)
        seen |= np.int64(1) << c
    if seen != (np.int64(1) << 52) - 1:
        return False, np.int64(0), np.uint64(0)
    key = np.int64(0)
    h = np.uint64(0xCBF29CE484222325)
    for k in range(N):
        c = np.int64(decks[i, k])
        if k < FIRST_K:
            key = key * N + c
        h = (h ^ np.uint64(c + 1)) * np.uint64(0x100000001B3)
        h ^= h >> np.uint64(29)
    return True, key, h


@njit(cache=True)
def _count_decks(decks, card_position, adjacent, first_k, deck_hash, ok):  # pragma: no cover
    """One pass: validity, card/position and adjacency counts, first-9 key, 64-bit deck hash."""
    for i in range(decks.shape[0]):
        good, key, h = _deck_key(decks, i)
        ok[i] = good
        if not good:
            continue
        first_k[i] = key
        deck_hash[i] = h
        prev = np.int64(decks[i, 0])
        card_position[0, prev] += 1
        for k in range(1, N):
            c = np.int64(decks[i, k])
            card_position[k, c] += 1
            adjacent[prev, c] += 1
            prev = c


@njit(cache=True)
def _key_decks(decks, first_k, deck_hash, ok):  # pragma: no cover - compiled
    """The collision keys alone (a partition pass re-reads decks for nothing else)."""
    for i in range(decks.shape[0]):
        good, key, h = _deck_key(decks, i)
        ok[i] = good
        first_k[i] = key
        deck_hash[i] = h


def _blank_decks(decks: np.ndarray) -> np.ndarray:
    """Rows that hold no deck: all bytes zero (how a null fixed-size slot reads raw)."""
    return np.asarray(~decks.any(axis=1))


def map_decks(decks: np.ndarray, hole: np.ndarray | None = None,
              hand_id: np.ndarray | None = None, table_id: np.ndarray | None = None,
              hand_no: np.ndarray | None = None, occupied: np.ndarray | None = None,
              player_ids: np.ndarray | None = None,
              deal_as_hands: bool = False) -> UniformityPartial:
    """Sufficient statistics of decks given as an (n, 52) array (int8 or uint8).

    ``deal_as_hands`` (decks without a game: a shuffler's own): each deck is also dealt as a
    hand to every table size m = 2..10 (seat s gets positions s and s + m, then burn, flop,
    burn, turn, burn, river), for the seat tests (``dealt``).

    ``hole`` (n, 2k) hole cards, seat s = columns 2s, 2s+1 (-1 empty); ``table_id``/``hand_no``
    pair consecutive hands at a table (absent: rows 2m and 2m+1 are consecutive);
    ``occupied`` (n, k) (default: the seats holding cards) and ``player_ids`` (n, k) for the
    seat and player tests (``audits.seats``).
    """
    decks = np.ascontiguousarray(decks)
    n = decks.shape[0]
    if hand_id is None:
        hand_id = np.arange(n, dtype=np.int64)
    present = ~_blank_decks(decks) if n else np.zeros(0, bool)
    if not present.all():
        decks = decks[present]
        hand_id = hand_id[present]
        hole = None if hole is None else hole[present]
        table_id = None if table_id is None else table_id[present]
        hand_no = None if hand_no is None else hand_no[present]
        occupied = None if occupied is None else occupied[present]
        player_ids = None if player_ids is None else player_ids[present]
        n = decks.shape[0]
    p = UniformityPartial()
    first_k = np.empty(n, np.int64)
    deck_hash = np.empty(n, np.uint64)
    ok = np.empty(n, np.bool_)
    if n:
        _count_decks(decks.view(np.uint8) if decks.dtype == np.int8 else decks,
                     p.card_position, p.adjacent, first_k, deck_hash, ok)
    bad = np.flatnonzero(~ok)
    p.invalid = int(bad.size)
    p.invalid_examples = [int(hand_id[i]) for i in bad[:MAX_EXAMPLES]]
    p.decks = n - p.invalid
    if p.invalid:
        decks, hand_id = decks[ok], hand_id[ok]
        hole = None if hole is None else hole[ok]
        table_id = None if table_id is None else table_id[ok]
        hand_no = None if hand_no is None else hand_no[ok]
        occupied = None if occupied is None else occupied[ok]
        player_ids = None if player_ids is None else player_ids[ok]
        first_k, deck_hash = first_k[ok], deck_hash[ok]
    p.first_k, p.deck_hash = first_k, deck_hash  # in row order: the reduce sorts once
    p.hand_ids = np.asarray(hand_id, np.int64)
    if p.decks >= MIN_BATCH_DECKS_KS:
        p.batch_p = card_position_test(p.card_position)[2]
    # consecutive hands at a table: disjoint pairs (2m, 2m+1)
    first = decks[:, 0].astype(np.int64) if p.decks else np.zeros(0, np.int64)
    if table_id is None or hand_no is None:
        m = p.decks // 2
        a, b = first[0:2 * m:2], first[1:2 * m:2]
    else:
        o = np.lexsort((hand_no, table_id))
        t, h, f = np.asarray(table_id)[o], np.asarray(hand_no, np.int64)[o], first[o]
        sel = np.flatnonzero((t[:-1] == t[1:]) & (h[:-1] % 2 == 0) & (h[1:] == h[:-1] + 1))
        a, b = f[sel], f[sel + 1]
    p.consecutive += np.bincount(a * N + b, minlength=N * N).reshape(N, N)
    if hole is not None and hole.size:
        p.hand_classes += _hand_classes(np.asarray(hole))
        p.seats = seat_tests.seat_map(hole, occupied, decks, player_ids)
    if deal_as_hands and hole is None:
        p.dealt = dealt_partials(decks)
    return p


def dealt_partials(decks: np.ndarray) -> list[seat_tests.SeatPartial]:
    """The seat partials of decks dealt as hands to m = 2..10 seats (seat s: positions s and
    s + m; the board after them: burn, flop, burn, turn, burn, river), all sizes in one
    compiled pass (the same counts as ``seat_tests.seat_map(dealt_hole(decks, m), None,
    decks)`` per m; the all-in winner at the sizes ``DEALT_EQUITY_SEATS`` only)."""
    d = np.ascontiguousarray(decks)
    d = d.view(np.uint8) if d.dtype == np.int8 else d.astype(np.uint8, copy=False)
    sizes = len(DEALT_SEATS)
    classes = np.zeros((sizes, MAX_SEATS, seat_tests.N_CLASSES), np.int64)
    wins = np.zeros((sizes, MAX_SEATS), np.int64)
    decided = np.zeros(sizes, np.int64)
    equity = np.array([m in DEALT_EQUITY_SEATS for m in DEALT_SEATS], np.bool_)
    _dealt_kernel(d, seat_tests.CARD_CLASS, TABLE, DEALT_SEATS[0], equity, classes, wins,
                  decided)
    out = []
    for j, m in enumerate(DEALT_SEATS):
        q = seat_tests.SeatPartial(hands=int(d.shape[0]), classes=classes[j])
        if m in DEALT_EQUITY_SEATS:
            q.masks[(1 << m) - 1] = decided[j]
        q.wins = wins[j]
        q.pooled_m[m] = d.shape[0]
        out.append(q)
    return out


@njit(cache=True)
def _dealt_kernel(d, card_class, table, m0, equity, classes, wins,
                  decided):  # pragma: no cover - compiled
    for i in range(d.shape[0]):
        for j in range(classes.shape[0]):
            m = m0 + j
            if not equity[j]:
                for s in range(m):
                    classes[j, s, card_class[np.int64(d[i, s]), np.int64(d[i, s + m])]] += 1
                continue
            p = 2 * m
            b0, b1, b2 = np.int64(d[i, p + 1]), np.int64(d[i, p + 2]), np.int64(d[i, p + 3])
            b3, b4 = np.int64(d[i, p + 5]), np.int64(d[i, p + 7])
            bkey, blanes = board_parts(b0, b1, b2, b3, b4)
            best = -1
            who = -1
            for s in range(m):
                h0, h1 = np.int64(d[i, s]), np.int64(d[i, s + m])
                classes[j, s, card_class[h0, h1]] += 1
                v = eval_with_board(table, bkey, blanes, b0, b1, b2, b3, b4, h0, h1)
                if v > best:
                    best, who = v, s
                elif v == best:
                    who = -1
            if who >= 0:
                wins[j, who] += 1
                decided[j] += 1


def dealt_hole(decks: np.ndarray, m: int) -> np.ndarray:
    """(n, 2m) hole cards of decks dealt one card at a time to m seats: seat s gets positions
    s and s + m (seat 0 the first card of each round)."""
    d = np.asarray(decks)
    out = np.empty((d.shape[0], 2 * m), np.int64)
    out[:, 0::2] = d[:, :m]
    out[:, 1::2] = d[:, m:2 * m]
    return out


def dealt_tests(dealt: list[seat_tests.SeatPartial]) -> dict[str, dict[str, Any]]:
    """The seat tests of decks dealt as hands: each test at each table size m, its smallest
    p-value Bonferroni over the sizes (the same decks dealt 9 ways)."""
    per_m = {m: seat_tests.seat_tests([q]) for m, q in zip(DEALT_SEATS, dealt, strict=True)}
    out: dict[str, dict[str, Any]] = {}
    for t in DEALT_TESTS:
        got = {m: r[t] for m, r in per_m.items() if t in r}
        if not got:
            continue
        worst = min(got, key=lambda m: got[m]["p"])
        out[t] = {"statistic": got[worst]["statistic"],
                  "p": stats.bonferroni_min([g["p"] for g in got.values()]),
                  "details": {"law": "each deck dealt as a hand to m = 2..10 seats (seat s: "
                                     "positions s and s + m); per m: " + got[worst]["details"]
                                     ["law"] + "; Bonferroni over the table sizes",
                              "worst_seats": worst, "worst": got[worst]["details"],
                              "p_by_seats": {m: g["p"] for m, g in got.items()}}}
    return out


@njit(cache=True)
def _hand_class_counts(hole, counts):  # pragma: no cover - compiled
    for i in range(hole.shape[0]):
        for s in range(min(hole.shape[1] // 2, counts.shape[0])):
            c0 = np.int64(hole[i, 2 * s])
            c1 = np.int64(hole[i, 2 * s + 1])
            if c0 < 0 or c1 < 0:
                continue
            if c0 // 4 == c1 // 4:
                counts[s, 0] += 1
            elif c0 % 4 == c1 % 4:
                counts[s, 1] += 1
            else:
                counts[s, 2] += 1


def _hand_classes(hole: np.ndarray) -> np.ndarray:
    """(MAX_SEATS, 3) counts of pair / suited / offsuit per seat from (n, 2k) hole cards
    (seat s in columns 2s, 2s + 1; -1 = empty)."""
    counts = np.zeros((MAX_SEATS, 3), np.int64)
    _hand_class_counts(np.ascontiguousarray(hole), counts)
    return counts


def _fixed_binary(col: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A binary(52) column as an (n, 52) uint8 array and its validity."""
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    n = len(arr)
    if not pa.types.is_fixed_size_binary(arr.type):
        vals = arr.to_pylist()
        out = np.zeros((n, N), np.uint8)
        valid = np.zeros(n, bool)
        for i, v in enumerate(vals):
            if v is not None and len(v) == N:
                out[i] = np.frombuffer(v, np.uint8)
                valid[i] = True
        return out, valid
    valid = np.ones(n, bool) if arr.null_count == 0 else arr.is_valid().to_numpy(
        zero_copy_only=False)
    buf = arr.buffers()[1]
    if buf is None:
        return np.zeros((n, N), np.uint8), np.zeros(n, bool)
    data = np.frombuffer(buf, np.uint8)[arr.offset * N:(arr.offset + n) * N]
    return data.reshape(n, N), valid


def _hole_from_arrow(col: pa.ChunkedArray | pa.Array) -> np.ndarray | None:
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    offsets = arr.offsets.to_numpy().astype(np.int64)
    lens = np.diff(offsets)
    if len(lens) == 0 or not (lens == lens[0]).all() or lens[0] % 2:
        return None
    values = arr.values.to_numpy(zero_copy_only=False)[offsets[0]:offsets[-1]]
    return values.reshape(len(lens), int(lens[0]))


def uniformity_map(batch: Any) -> UniformityPartial:
    """Map over one batch: a pyarrow Table / RecordBatch of hand rows, or an ``audits.io.Batch``.

    Needs ``deck``; uses ``hole_cards``, ``hand_id``, ``table_id``, ``hand_no`` when present.
    """
    runouts = runout_tests.RunoutPartial()
    boards = board_tests.BoardPartial()
    if isinstance(batch, (pa.Table, pa.RecordBatch)):
        names = set(batch.schema.names)
        if batch.num_rows == 0:
            return UniformityPartial()
        if "deck" not in names or batch.column("deck").null_count == batch.num_rows:
            return _seats_only(batch, names)
        decks, valid = _fixed_binary(batch.column("deck"))

        def col(name: str) -> np.ndarray | None:
            if name not in names:
                return None
            return np.asarray(batch.column(name).to_numpy(zero_copy_only=False))

        hole = _hole_from_arrow(batch.column("hole_cards")) if "hole_cards" in names else None
        hand_id, table_id, hand_no = col("hand_id"), col("table_id"), col("hand_no")
        occupied = _seat_list(batch, "occupied", hole)
        player_ids = _seat_list(batch, "player_ids", hole)
    else:  # audits.io.Batch (duck-typed)
        hole = np.asarray(batch.hole)
        occupied = batch.seat.get("occupied")
        player_ids = batch.seat.get("player_ids")
        runouts = runout_tests.runout_map(batch)
        boards = board_tests.board_map(batch)
        if batch.deck is None:  # no decks logged (e.g. imported PHH hands): the seat tests only
            return UniformityPartial(seats=seat_tests.seat_map(
                hole, occupied, None, player_ids, batch.seat.get("folded")), runouts=runouts,
                boards=boards, names=_names(batch, player_ids))
        decks = np.asarray(batch.deck)
        valid = np.ones(decks.shape[0], bool)
        cols = batch.cols
        hand_id, table_id, hand_no = cols.get("hand_id"), cols.get("table_id"), cols.get("hand_no")
    if not valid.all():
        keep = valid
        decks = decks[keep]
        hole = None if hole is None else hole[keep]
        hand_id = None if hand_id is None else hand_id[keep]
        table_id = None if table_id is None else table_id[keep]
        hand_no = None if hand_no is None else hand_no[keep]
        occupied = None if occupied is None else occupied[keep]
        player_ids = None if player_ids is None else player_ids[keep]
    p = map_decks(decks, hole, hand_id, table_id, hand_no, occupied, player_ids)
    p.runouts = runouts
    p.boards = boards
    return p


def _names(batch: Any, player_ids: np.ndarray | None) -> dict[str, int]:
    """An imported batch's name -> player id (its ``players`` column), {} without names."""
    codes = batch.imp.get("players") if getattr(batch, "imp", None) else None
    if codes is None or player_ids is None or codes.shape != player_ids.shape:
        return {}
    values = batch.imp["players_values"]
    keep = (player_ids >= 0) & (codes >= 0)
    pairs = np.unique(np.stack([codes[keep], player_ids[keep]], axis=1), axis=0)
    return {str(values[c]): int(i) for c, i in pairs if values[c]}


def _listed_tests(plist: listed.PlayerList, batches: list[UniformityPartial]
                  ) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """The targeted tests of a lab's players list (``audits.players``) and its record."""
    names: dict[str, int] = {}
    for p in batches:
        names.update(p.names)
    ids, readable = plist.ids(names)
    out: dict[str, dict[str, Any] | None] = {}
    q = seat_tests.merge([p.seats for p in batches])
    r = runout_tests.merge([p.runouts for p in batches])
    # "matched": the listed players the run holds (with hands whose cards are known, or live
    # in a run-out)
    present = np.union1d(q.player_ids, r.player[r.player >= 0])
    rec = {**plist.record(), "readable": readable,
           "matched": int(np.isin(ids, present).sum())}
    pick = np.isin(q.player_ids, ids)
    bands = q.player_bands[pick].sum(axis=0) if q.player_bands.size else np.zeros(
        seat_tests.N_BANDS, np.int64)
    rec["players_with_hands"] = int(pick.sum())
    out["listed_pairs"] = listed.pairs_test(bands, seat_tests.BAND_PROBS)
    out["listed_hand_bands"] = listed.bands_test(bands, seat_tests.BAND_PROBS,
                                                 seat_tests.BAND_NAMES)
    if r.runouts and not r.incomplete:
        a, b, c = runout_tests.pair_entries(r)
        out["listed_runouts"] = listed.runouts_test(np.isin(r.player, ids) & (r.player >= 0),
                                                    r.hand, r.share - r.equity, a, b, c)
    return {t: v for t, v in out.items() if v is not None}, rec


def _seats_only(batch: pa.Table | pa.RecordBatch, names: set[str]) -> UniformityPartial:
    """Hands without decks (imported): the seat and player tests from the known cards."""
    if "hole_cards" not in names:
        return UniformityPartial()
    hole = _hole_from_arrow(batch.column("hole_cards"))
    if hole is None:
        return UniformityPartial()
    return UniformityPartial(seats=seat_tests.seat_map(
        hole, _seat_list(batch, "occupied", hole), None, _seat_list(batch, "player_ids", hole),
        _seat_list(batch, "folded", hole)))


def _seat_list(batch: pa.Table | pa.RecordBatch, name: str,
               hole: np.ndarray | None) -> np.ndarray | None:
    """A per-seat list column as (n, k) when present and of k entries a row (k from ``hole``)."""
    if hole is None or name not in batch.schema.names:
        return None
    arr = batch.column(name)
    arr = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
    if arr.null_count or arr.values.null_count:
        return None
    off = arr.offsets.to_numpy().astype(np.int64)
    k = hole.shape[1] // 2
    if not np.array_equal(off - off[0], np.arange(len(arr) + 1) * k):
        return None
    return arr.values.to_numpy(zero_copy_only=False)[off[0]:off[-1]].reshape(len(arr), k)


# ---------------------------------------------------------------------------------------------
# statistics


def card_position_test(counts: np.ndarray) -> tuple[float, int, float]:
    """(X2 * 51/52, df 51^2, p) of a 52 x 52 position x card count matrix."""
    stat, _, _ = stats.pearson_uniform(counts)
    stat *= (N - 1) / N
    df = (N - 1) ** 2
    return stat, df, stats.chi2_sf(stat, df)


def grouped_position_test(counts: np.ndarray, groups: int) -> tuple[float, int, float]:
    """Suits (groups=4) or ranks (groups=13) per position from the position x card counts.

    Card c belongs to group c % 4 (suit) or c // 4 (rank). X2 * 51/52, df 51 (groups - 1).
    """
    if groups == 4:
        g = counts.reshape(N, 13, 4).sum(axis=1)
    else:
        g = counts.reshape(N, 13, 4).sum(axis=2)
    stat, _, _ = stats.pearson_uniform(g)
    stat *= (N - 1) / N
    df = (N - 1) * (groups - 1)
    return stat, df, stats.chi2_sf(stat, df)


def adjacent_statistic(counts: np.ndarray, decks: int) -> tuple[float, int]:
    """Exact-covariance quadratic form of the adjacency counts A[a, b] (b directly after a).

    For a uniform random permutation of n cards, per deck E[A_ab] = 1/n and the covariance of
    the n(n-1) off-diagonal counts is (1/n^2) times an operator whose eigenspaces are: the
    constants (eigenvalue 0: the total is n - 1), row and column effects g(a) + h(b)
    (n/(n-1)), the symmetric remainder (n) and the antisymmetric remainder (n(n+1)/(n-1)).
    The statistic D' Cov^+ D / N (D = counts - N/n) is chi-square with n(n-1) - 1 df.
    """
    n = counts.shape[0]
    if decks <= 0:
        return 0.0, n * (n - 1) - 1
    off = ~np.eye(n, dtype=bool)
    d = np.where(off, counts.astype(np.float64) - decks / n, 0.0)
    r, c = d.sum(axis=1), d.sum(axis=0)
    den = (n - 1) ** 2 - 1
    g = ((n - 1) * r + c) / den
    h = ((n - 1) * c + r) / den
    w = np.where(off, g[:, None] + h[None, :], 0.0)
    rest = d - w
    sym = (rest + rest.T) / 2
    anti = (rest - rest.T) / 2
    q = ((w * w).sum() * (n - 1) / n + (sym * sym).sum() / n
         + (anti * anti).sum() * (n - 1) / (n * (n + 1)))
    return float(q * n * n / decks), n * (n - 1) - 1


def _pairs_in_runs(equal_next: np.ndarray) -> tuple[int, np.ndarray]:
    """Given ``equal_next[i]`` = row i equals row i+1 (sorted), the number of equal pairs and
    the indices of rows in a run of length >= 2."""
    if equal_next.size == 0 or not equal_next.any():
        return 0, np.zeros(0, np.int64)
    e = np.concatenate(([False], equal_next, [False])).astype(np.int8)
    starts = np.flatnonzero(np.diff(e) == 1)
    ends = np.flatnonzero(np.diff(e) == -1)  # run covers rows starts..ends (inclusive)
    sizes = ends - starts + 1
    pairs = int((sizes * (sizes - 1) // 2).sum())
    rows = np.concatenate([np.arange(s, t + 1) for s, t in zip(starts[:MAX_EXAMPLES],
                                                              ends[:MAX_EXAMPLES], strict=True)])
    return pairs, rows


# ---------------------------------------------------------------------------------------------
# collision keys: all in one reduce, or hash-partitioned for runs whose keys exceed a memory budget

KEY_BYTES = 34  # driver bytes per deck while reducing keys: 24 B kept + a sorted first_k copy


@dataclass
class CollisionCounts:
    """The collision tests over one hash partition of the keys (partitions by ``first_k``, so
    equal keys share a partition and counts add up)."""

    duplicate_pairs: int = 0
    first_k_pairs: int = 0
    duplicate_examples: list[int] = field(default_factory=list)
    first_k_examples: list[int] = field(default_factory=list)

    def merge(self, other: CollisionCounts) -> CollisionCounts:
        return CollisionCounts(
            self.duplicate_pairs + other.duplicate_pairs, self.first_k_pairs + other.first_k_pairs,
            (self.duplicate_examples + other.duplicate_examples)[:MAX_EXAMPLES],
            (self.first_k_examples + other.first_k_examples)[:MAX_EXAMPLES])


def collision_counts(keys: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> CollisionCounts:
    """Pairs of identical decks and of decks sharing the first 9 cards among ``keys`` (first_k,
    deck_hash, hand_id arrays, in row order), with example hand ids (among equal keys, in the
    order of ``keys`` and of their rows).

    Memory beyond the keys themselves: one sorted copy of the first_k column (8 B a deck); only
    the decks whose first_k repeats (a handful on a fair run) are gathered with their hash and
    id for the exact tests."""
    fk_all = np.concatenate([k[0] for k in keys]) if keys else np.zeros(0, np.int64)
    fk_all.sort()  # in place
    repeated = np.unique(fk_all[1:][fk_all[1:] == fk_all[:-1]])
    del fk_all
    picked = [np.isin(k[0], repeated) for k in keys] if repeated.size else []

    def gather(column: int, dtype: type) -> np.ndarray:  # the picked rows of one key column
        return np.concatenate([np.zeros(0, dtype)]
                              + [k[column][m] for k, m in zip(keys, picked, strict=False)])
    # (``picked`` is empty when no key repeats: nothing to gather)

    fk, dh, ids = gather(0, np.int64), gather(1, np.uint64), gather(2, np.int64)
    o = np.lexsort((dh, fk))  # by first cards, then deck hash; ties stay in the keys' order
    fk, dh, ids = fk[o], dh[o], ids[o]
    same_k = fk[1:] == fk[:-1]
    same_deck = same_k & (dh[1:] == dh[:-1])
    dup, dup_rows = _pairs_in_runs(same_deck)
    fkp, fk_rows = _pairs_in_runs(same_k)
    return CollisionCounts(dup, fkp, [int(ids[i]) for i in dup_rows[:MAX_EXAMPLES]],
                           [int(ids[i]) for i in fk_rows[:MAX_EXAMPLES]])


def key_partitions(decks: int, memory_bytes: int) -> int:
    """How many hash partitions keep one partition's keys within ``memory_bytes``."""
    return max(1, -(-decks * KEY_BYTES // max(1, memory_bytes)))


def _in_partition(first_k: np.ndarray, part: int, parts: int) -> np.ndarray:
    return (first_k % parts) == part


def restrict_keys(p: UniformityPartial, part: int, parts: int) -> UniformityPartial:
    """The partial with the keys of hash partition ``part`` of ``parts`` only (the map of a run
    too large for all its keys to meet on the driver keeps partition 0)."""
    if parts > 1:
        keep = _in_partition(p.first_k, part, parts)
        p.first_k, p.deck_hash, p.hand_ids = p.first_k[keep], p.deck_hash[keep], p.hand_ids[keep]
    p.key_partition = (part, parts)
    return p


def partition_keys(path: str, part: int, parts: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One partition pass over one batch file: (first_k, deck_hash, hand_id) of its valid decks
    whose key falls in partition ``part`` of ``parts``, in row order. Reads ``deck`` and
    ``hand_id`` only; the same decks as the main map (which refuses partly-null deck columns)."""
    from audits.io import iter_columns

    fks, dhs, idss = [], [], []
    for rb in iter_columns(path, ["deck", "hand_id"]):
        if "deck" not in rb.schema.names or rb.column("deck").null_count == rb.num_rows:
            continue
        decks, _ = _fixed_binary(rb.column("deck"))
        n = decks.shape[0]
        first_k, deck_hash, ok = np.empty(n, np.int64), np.empty(n, np.uint64), np.empty(n, bool)
        _key_decks(decks, first_k, deck_hash, ok)
        keep = ok & _in_partition(first_k, part, parts)
        fks.append(first_k[keep])
        dhs.append(deck_hash[keep])
        idss.append(rb.column("hand_id").to_numpy(zero_copy_only=False)[keep])
    if not fks:
        return np.zeros(0, np.int64), np.zeros(0, np.uint64), np.zeros(0, np.int64)
    return (np.concatenate(fks), np.concatenate(dhs),
            np.concatenate(idss).astype(np.int64, copy=False))


def _result(test: str, passed: bool, hands: int, statistic: float | None,
            p_value: float | None, details: dict[str, Any], failures: int | None = None,
            examples: tuple[int, ...] = (), applicable: bool = True) -> AuditResult:
    return AuditResult(
        name=f"{NAME}.{test}", passed=passed, hands_checked=hands,
        failures=(0 if passed else 1) if failures is None else failures,
        example_hand_ids=examples, statistic=statistic, p_value=p_value, details=details,
        applicable=applicable)


def uniformity_reduce(parts: Sequence[UniformityPartial | CollisionCounts],
                      alpha: float = ALPHA) -> list[AuditResult]:
    """All batches -> [overall ``uniformity`` result, then one result per test]. ``parts`` may
    also hold the ``CollisionCounts`` of key partitions 1..P-1 when the batches' partials keep
    partition 0's keys only (a run too large for its keys to fit the driver's memory). The
    covariances' ``eigh`` run on one BLAS thread (``audits.blas``): milliseconds, the same bits
    on any machine."""
    with one_thread():
        return _reduce(parts, alpha)


def _reduce(parts: Sequence[UniformityPartial | CollisionCounts],
            alpha: float) -> list[AuditResult]:
    extra = [p for p in parts if isinstance(p, CollisionCounts)]
    lists = [p for p in parts if isinstance(p, listed.PlayerList)]
    batches = [p for p in parts if isinstance(p, UniformityPartial)]
    decks = sum(p.decks for p in batches)
    invalid = sum(p.invalid for p in batches)
    invalid_examples = [h for p in batches for h in p.invalid_examples][:MAX_EXAMPLES]
    seat_raw = seat_tests.seat_tests([p.seats for p in batches])
    dealt = [p.dealt for p in batches if p.dealt]
    if dealt and not seat_raw:
        seat_raw = dealt_tests([seat_tests.merge(list(qs)) for qs in zip(*dealt, strict=True)])
    seat_raw.update(runout_tests.runout_tests([p.runouts for p in batches]))
    texture = board_tests.texture_test([p.boards for p in batches])
    if texture is not None:
        seat_raw["board_texture"] = texture
    record = None
    if lists:
        targeted, record = _listed_tests(lists[0], batches)
        seat_raw.update(targeted)
    if decks == 0 and seat_raw:  # imported hands without decks: who receives the cards only
        return _with_list(_holm(seat_raw, alpha, 0, sum(p.seats.hands for p in batches), invalid,
                                invalid_examples,
                                {**{t: "not applicable: no decks" for t in DECK_TESTS},
                                 **seat_tests.NOT_APPLICABLE, **runout_tests.NOT_APPLICABLE,
                                 **board_tests.NOT_APPLICABLE, **listed.NOT_APPLICABLE}), record)
    if decks == 0:
        why = "not applicable: no decks"
        details = {"reason": why, "invalid_decks": invalid}
        passed = invalid == 0
        out = [AuditResult(name=NAME, passed=passed, hands_checked=0, failures=invalid,
                           example_hand_ids=tuple(invalid_examples), details=details,
                           applicable=invalid > 0)]
        out += [_result(t, True, 0, None, None, {"reason": why}, applicable=False)
                for t in TESTS]
        return out

    cp = np.sum([p.card_position for p in batches], axis=0)
    adj = np.sum([p.adjacent for p in batches], axis=0)
    cons = np.sum([p.consecutive for p in batches], axis=0)
    hc = np.sum([p.hand_classes for p in batches], axis=0)
    raw: dict[str, dict[str, Any]] = {}

    s, df, pv = card_position_test(cp)
    e = decks / N
    z = (cp - e) / math.sqrt(decks * (1 / N) * (1 - 1 / N))
    raw["card_position"] = {"statistic": s, "p": pv, "details": {
        "df": df, "law": "chi2",
        # for the report's heatmap: standardized residual of each (position, card) cell
        "residuals": np.round(z, 3).tolist()}}
    tails = stats.binomial_two_sided(cp, decks, 1 / N)
    worst = np.unravel_index(int(np.argmin(tails)), tails.shape)
    raw["card_position_max_cell"] = {
        "statistic": float(np.abs(z).max()), "p": stats.bonferroni_min(tails),
        "details": {"cells": N * N, "worst_position": int(worst[0]), "worst_card": int(worst[1]),
                    "worst_count": int(cp[worst]), "expected": e,
                    "worst_relative_deviation": float(cp[worst] / e - 1),
                    "law": "exact binomial, Bonferroni over 2704 cells"}}

    for name, groups in (("suit_position", 4), ("rank_position", 13)):
        s, df, pv = grouped_position_test(cp, groups)
        raw[name] = {"statistic": s, "p": pv, "details": {"df": df, "law": "chi2"}}

    s, df = adjacent_statistic(adj, decks)
    raw["adjacent_pairs"] = {"statistic": s, "p": stats.chi2_sf(s, df),
                             "details": {"df": df, "law": "chi2 (exact permutation covariance)"}}

    counts = extra
    partitions = max((p.key_partition[1] for p in batches), default=1)
    if len(counts) != partitions - 1:  # keys kept for partition 0: the rest come as counts
        raise ValueError(f"uniformity: collision keys in {partitions} partitions but the counts "
                         f"of {len(counts)} other partitions")
    cc = collision_counts([(p.first_k, p.deck_hash, p.hand_ids) for p in batches])
    for c in counts:
        cc = cc.merge(c)
    for name, pairs, examples, space, label in (
            ("duplicate_decks", cc.duplicate_pairs, cc.duplicate_examples,
             math.factorial(N), "52!"),
            ("first_k_collisions", cc.first_k_pairs, cc.first_k_examples,
             stats.falling_factorial(N, FIRST_K), f"52!/{N - FIRST_K}!")):
        lam = stats.expected_collisions(decks, space)
        raw[name] = {"statistic": float(pairs), "p": stats.poisson_upper(pairs, lam),
                     "failures": pairs, "examples": tuple(examples[:MAX_EXAMPLES]),
                     "details": {"pairs": pairs, "expected_pairs": lam, "space": label,
                                 "k": N if name == "duplicate_decks" else FIRST_K,
                                 "law": "Poisson upper tail",
                                 "key_partitions": len(counts) + 1}}

    seats = [s_ for s_ in range(hc.shape[0]) if hc[s_].sum() > 0]
    if seats:
        per = [stats.pearson_probs(hc[s_], HAND_CLASS_PROBS) for s_ in seats]
        ps = [x[2] for x in per]
        raw["starting_hands"] = {
            "statistic": float(max(x[0] for x in per)), "p": stats.bonferroni_min(ps),
            "details": {"df_per_seat": 2, "seats": seats, "law": "chi2 per seat, Bonferroni",
                        "per_seat": {int(s_): {"counts": hc[s_].tolist(), "x2": x[0], "p": x[2]}
                                     for s_, x in zip(seats, per, strict=True)},
                        "expected_fractions": {"pair": 3 / 51, "suited": 12 / 51,
                                               "offsuit": 36 / 51}}}

    npairs = int(cons.sum())
    if npairs:
        s, df, pv = stats.pearson_uniform(cons)
        raw["consecutive_decks"] = {"statistic": s, "p": pv,
                                    "details": {"df": df, "pairs": npairs, "law": "chi2"}}

    bp = [p.batch_p for p in batches if p.batch_p is not None]
    if len(bp) >= MIN_BATCHES_KS:
        s, pv = stats.ks_uniform(bp)
        raw["batch_pvalues_ks"] = {"statistic": s, "p": pv,
                                   "details": {"batches": len(bp), "law": "Kolmogorov-Smirnov",
                                               "pvalues": [float(x) for x in bp]}}

    raw.update(seat_raw)
    reasons = {"batch_pvalues_ks": f"not applicable: fewer than {MIN_BATCHES_KS} batches of "
                                   f">= {MIN_BATCH_DECKS_KS} decks",
               "starting_hands": "not applicable: no hole cards",
               "consecutive_decks": "not applicable: no consecutive hands",
               **seat_tests.NOT_APPLICABLE, **runout_tests.NOT_APPLICABLE,
               **board_tests.NOT_APPLICABLE, **listed.NOT_APPLICABLE,
               **({t: "not applicable: decks without a game have no players"
                   for t in seat_tests.TESTS if t not in DEALT_TESTS} if dealt else {}),
               **({t: "not applicable: decks without a game (no all-in, no pot to condition "
                      "on)" for t in GAME_TESTS} if dealt else {})}
    return _with_list(_holm(raw, alpha, decks, decks, invalid, invalid_examples, reasons), record)


def _with_list(results: list[AuditResult], record: dict[str, Any] | None) -> list[AuditResult]:
    """The battery's results with the players list it tested recorded in the overall result."""
    if record is not None:
        results[0].details["players_list"] = record
    return results


def _holm(raw: dict[str, dict[str, Any]], alpha: float, decks: int, hands: int, invalid: int,
          invalid_examples: list[int], why: dict[str, str]) -> list[AuditResult]:
    """The applicable tests' raw p-values -> Holm across them: [overall, one result per test]
    (``why[test]``: the reason a test without a raw result was not applicable; ``hands``: the
    hands the tests saw, the decks or, without decks, the hands whose cards are known)."""
    names = [t for t in TESTS if t in raw]
    reject, adjusted = stats.holm([raw[t]["p"] for t in names], alpha)
    results: list[AuditResult] = []
    for t, rej, adj_p in zip(names, reject, adjusted, strict=True):
        r = raw[t]
        det = dict(r["details"])
        det["holm_adjusted_p"] = adj_p
        results.append(_result(t, not rej, hands, float(r["statistic"]), float(r["p"]), det,
                               failures=(r.get("failures", 0) if not rej
                                         else max(1, r.get("failures", 1))),
                               examples=r.get("examples", ()) if rej else ()))
    for t in TESTS:
        if t not in raw:
            results.append(_result(t, True, hands, None, None, {"reason": why[t]},
                                   applicable=False))
    failed = [t for t, rej in zip(names, reject, strict=True) if rej]
    passed = not failed and invalid == 0
    min_p = min(adjusted) if adjusted else 1.0
    overall = AuditResult(
        name=NAME, passed=passed, hands_checked=hands, failures=len(failed) + invalid,
        example_hand_ids=tuple(invalid_examples) or tuple(
            h for r in results for h in r.example_hand_ids)[:MAX_EXAMPLES],
        statistic=float(len(failed)), p_value=float(min_p),
        details={"alpha": alpha, "correction": "Holm", "tests": names, "failed_tests": failed,
                 "invalid_decks": invalid,
                 **({"power": stats.power_summary(decks, alpha)} if decks else {})},
    )
    return [overall, *results]


def run_uniformity(batches: list[Any], alpha: float = ALPHA) -> list[AuditResult]:
    """Map every batch and reduce (single process)."""
    return uniformity_reduce([uniformity_map(b) for b in batches], alpha)


def reduce_battery(name: str, parts: list[UniformityPartial]) -> AuditResult:
    """The runner's reduce: one ``AuditResult`` (the Holm verdict of the battery) whose
    ``details["tests"]`` holds every test's result as a dict."""
    overall, *tests = uniformity_reduce(parts)
    details = dict(overall.details)
    details["tests"] = [t.to_dict() for t in tests]
    if not overall.applicable:
        details["tests"] = []
    return AuditResult(name=name, passed=overall.passed, hands_checked=overall.hands_checked,
                       failures=overall.failures, example_hand_ids=overall.example_hand_ids,
                       statistic=overall.statistic, p_value=overall.p_value, details=details,
                       applicable=overall.applicable)


SPEC = AuditSpec(
    NAME, uniformity_map, reduce_battery,
    keys=KeyPass(key_partitions, restrict_keys, partition_keys, collision_counts),
    description="from the decks alone: the uniformity battery (card/position, adjacency, "
                "duplicate and first-9 collisions, starting hands, consecutive decks, "
                "per-batch KS; Holm at alpha 0.01)")
