"""The deck battery's map and the keyed re-derivation in one compiled pass over a batch of decks.

``audits.uniformity.map_decks`` (with ``deal_as_hands``) reads a deck-only batch in several
passes: blank rows, validity and the collision keys with the card/position and adjacency counts,
the consecutive-deck pairs, the decks dealt as hands to m = 2..10 seats (``dealt_partials``),
then ``audits.keyed.check_keyed`` re-derives every deck from its key, and
``audits.deckaudit.write_keys`` sorts the keys by their first two cards. ``deck_pass`` does all of
it in one loop over the decks (each deck's 52 bytes read once, from cache) and groups the keys
with a counting sort: the same counts, the same keys in the same order, so the same p-values
(``tests/audits/test_deckpass.py`` compares the two paths on fair, broken, blank and invalid
decks).

The statistics are those of the documented battery (``audits.uniformity``); this module adds no
test, only a cheaper way to count the same things.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

from audits import seats as seat_tests
from audits.evaluator import TABLE, board_parts, eval_with_board
from audits.keyed import MAX_BLOCKS, keyed_deck_matches
from audits.result import MAX_EXAMPLES
from audits.uniformity import (
    DEALT_EQUITY_SEATS,
    DEALT_SEATS,
    FIRST_K,
    MAX_SEATS,
    MIN_BATCH_DECKS_KS,
    UniformityPartial,
    card_position_test,
)

N = 52
GROUP = N ** (FIRST_K - 2)  # first_k // GROUP = the first two cards (52 * first + second)
GROUPS = N * N
KEY_DTYPE = np.dtype([("first_k", "<i8"), ("deck_hash", "<u8"), ("hand_id", "<i8")])
HANDS_PER_TABLE = 1000  # deck d <-> seed_key [seed, d // 1000, d % 1000] (audits.decklog)


@dataclass
class DeckPass:
    """What one pass over a batch gives: the battery's partial (collision keys left out), the
    keys grouped by their first two cards, and the re-derivation's tally."""

    partial: UniformityPartial
    keys: np.ndarray  # KEY_DTYPE, grouped (stable) by first_k // GROUP
    keyed_checked: int = 0
    keyed_failures: int = 0
    keyed_examples: list[int] = field(default_factory=list)


@njit(cache=True)
def _pass(decks, hand_ids, seed, keyed, card_class, table, m0, equity, card_position,
          adjacent, consecutive, classes, wins, decided, first_k, deck_hash, key_ids, status,
          buf, stream, draws, work):  # pragma: no cover - compiled
    """One loop over the decks. status[i]: 0 a valid deck, 1 a blank row (all zero bytes: not
    audited), 2 not a permutation of 0..51; + 4 when ``keyed`` and the deck is not its key's.
    The valid decks' keys go to first_k / deck_hash / key_ids[0:valid] in row order. Returns
    the number of valid decks."""
    v = 0
    prev_first = np.int64(0)
    for i in range(decks.shape[0]):
        row = decks[i]
        st = 0
        if keyed:
            h = hand_ids[i]
            if not keyed_deck_matches(seed, np.uint64(h // HANDS_PER_TABLE),
                                      np.uint64(h % HANDS_PER_TABLE), row, buf, stream,
                                      draws, work):
                st = 4
        seen = np.int64(0)
        nonzero = False
        for k in range(N):
            c = np.int64(row[k])
            if c != 0:
                nonzero = True
            if c < N:
                seen |= np.int64(1) << c
            else:
                seen = np.int64(-1)
        if not nonzero:
            status[i] = st + 1
            continue
        if seen != (np.int64(1) << 52) - 1:
            status[i] = st + 2
            continue
        status[i] = st
        # the collision keys (as audits.uniformity._deck_key) and the position counts
        key = np.int64(0)
        hsh = np.uint64(0xCBF29CE484222325)
        prev = np.int64(row[0])
        for k in range(N):
            c = np.int64(row[k])
            if k < FIRST_K:
                key = key * N + c
            hsh = (hsh ^ np.uint64(c + 1)) * np.uint64(0x100000001B3)
            hsh ^= hsh >> np.uint64(29)
            card_position[k, c] += 1
            if k:
                adjacent[prev, c] += 1
            prev = c
        first_k[v] = key
        deck_hash[v] = hsh
        key_ids[v] = hand_ids[i]
        # consecutive decks: disjoint pairs (2m, 2m + 1) of the valid decks
        f = np.int64(row[0])
        if v & 1:
            consecutive[prev_first, f] += 1
        else:
            prev_first = f
        v += 1
        # the deck dealt as a hand to m = m0.. seats (as audits.uniformity._dealt_kernel)
        for j in range(classes.shape[0]):
            m = m0 + j
            if not equity[j]:
                for s in range(m):
                    classes[j, s, card_class[np.int64(row[s]), np.int64(row[s + m])]] += 1
                continue
            p = 2 * m
            b0, b1, b2 = np.int64(row[p + 1]), np.int64(row[p + 2]), np.int64(row[p + 3])
            b3, b4 = np.int64(row[p + 5]), np.int64(row[p + 7])
            bkey, blanes = board_parts(b0, b1, b2, b3, b4)
            best = -1
            who = -1
            for s in range(m):
                h0, h1 = np.int64(row[s]), np.int64(row[s + m])
                classes[j, s, card_class[h0, h1]] += 1
                val = eval_with_board(table, bkey, blanes, b0, b1, b2, b3, b4, h0, h1)
                if val > best:
                    best, who = val, s
                elif val == best:
                    who = -1
            if who >= 0:
                wins[j, who] += 1
                decided[j] += 1
    return v


@njit(cache=True)
def _group_keys(first_k, deck_hash, key_ids, n, out_first, out_hash, out_ids):  # pragma: no cover
    """The first ``n`` keys into the out arrays, grouped by their first two cards: a counting
    sort, stable (the order ``np.argsort(first_k // GROUP, kind="stable")`` gives)."""
    start = np.zeros(GROUPS + 1, np.int64)
    for i in range(n):
        start[first_k[i] // GROUP + 1] += 1
    for g in range(GROUPS):
        start[g + 1] += start[g]
    for i in range(n):
        g = first_k[i] // GROUP
        at = start[g]
        start[g] = at + 1
        out_first[at] = first_k[i]
        out_hash[at] = deck_hash[i]
        out_ids[at] = key_ids[i]


def deck_pass(decks: np.ndarray, hand_ids: np.ndarray, seed: int | None) -> DeckPass:
    """The battery's map of a deck-only batch (``map_decks(decks, hand_id=hand_ids,
    deal_as_hands=True)``, keys apart), its keys grouped, and (``seed`` given) the keyed
    re-derivation of every row (``check_keyed``), in one compiled pass."""
    d = np.ascontiguousarray(decks)
    d = d.view(np.uint8) if d.dtype == np.int8 else d.astype(np.uint8, copy=False)
    ids = np.ascontiguousarray(hand_ids, np.int64)
    n = int(d.shape[0])
    p = UniformityPartial()
    sizes = len(DEALT_SEATS)
    classes = np.zeros((sizes, MAX_SEATS, seat_tests.N_CLASSES), np.int64)
    wins = np.zeros((sizes, MAX_SEATS), np.int64)
    decided = np.zeros(sizes, np.int64)
    equity = np.array([m in DEALT_EQUITY_SEATS for m in DEALT_SEATS], np.bool_)
    first_k = np.empty(n, np.int64)
    deck_hash = np.empty(n, np.uint64)
    key_ids = np.empty(n, np.int64)
    status = np.empty(n, np.uint8)
    buf = np.empty(4 * MAX_BLOCKS, np.uint64)
    keyed = seed is not None and n > 0
    key_seed = np.uint64(0 if seed is None else seed)
    valid = _pass(d, ids, key_seed, keyed, seat_tests.CARD_CLASS, TABLE, DEALT_SEATS[0], equity,
                  p.card_position, p.adjacent, p.consecutive, classes, wins, decided, first_k,
                  deck_hash, key_ids, status, buf, buf.view(np.uint8), np.zeros(N, np.int64),
                  np.empty(N, np.int64)) if n else 0
    kind = status & 3
    bad = np.flatnonzero(kind == 2)
    p.invalid = int(bad.size)
    p.invalid_examples = [int(ids[i]) for i in bad[:MAX_EXAMPLES]]
    p.decks = valid
    if valid >= MIN_BATCH_DECKS_KS:
        p.batch_p = card_position_test(p.card_position)[2]
    for j, m in enumerate(DEALT_SEATS):
        q = seat_tests.SeatPartial(hands=valid, classes=classes[j])
        if m in DEALT_EQUITY_SEATS:
            q.masks[(1 << m) - 1] = decided[j]
        q.wins = wins[j]
        q.pooled_m[m] = valid
        p.dealt.append(q)
    keys = np.empty(valid, KEY_DTYPE)
    _group_keys(first_k, deck_hash, key_ids, valid, keys["first_k"], keys["deck_hash"],
                keys["hand_id"])
    out = DeckPass(p, keys)
    if keyed:
        where = np.flatnonzero(status >= 4)
        out.keyed_checked = n
        out.keyed_failures = int(where.size)
        out.keyed_examples = [int(ids[i]) for i in where[:MAX_EXAMPLES]]
    return out
