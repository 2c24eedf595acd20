"""The audits' own 7-card evaluator. Deliberately a different algorithm from the engine's (which
builds 13-bit rank masks and indexes mask tables).

The reference is ``eval7_brute``: the best of the 21 five-card subsets, each scored by a plain
5-card scorer ``score5`` (sorted ranks, pattern of equal neighbours, flush, straight).

The fast path ``eval7_fast`` (used by the payouts audit) is a prime-product lookup: rank r is
given the r-th prime; without a flush a 7-card hand's score depends only on its multiset of ranks,
identified by the product of the 7 primes (unique factorisation). At import every multiset of
7 ranks (each rank at most 4 times: 49,205 of them) is scored once with ``eval7_brute`` on a
suit assignment that cannot make a flush, and stored in an open-addressing hash table keyed by
the product (key and score packed in one int64 slot: one memory access a lookup). With 5 or
more cards of one suit (only one suit can have that many of 7 cards, and
then neither quads nor a full house is possible) the hand is the best 5 of the suited cards,
scored with ``score5``. Suits are counted in 4-bit lanes of one integer.

Score = category << 20 | five 4-bit tiebreak ranks; higher is better. Categories: 0 high card,
1 pair, 2 two pair, 3 trips, 4 straight, 5 flush, 6 full house, 7 quads, 8 straight flush.
Cards are 0..51 = rank * 4 + suit, rank 0..12 = 2..A.

Caution: numba's on-disk cache of a caller (``audits.payouts``) does not notice edits to this file;
after changing it, delete ``audits/__pycache__/*.nbi`` and ``*.nbc``.
"""

from __future__ import annotations

import itertools

import numpy as np
from numba import njit

COMBOS = np.array(list(itertools.combinations(range(7), 5)), dtype=np.int64)  # (21, 5)
COMBOS6 = np.array(list(itertools.combinations(range(6), 5)), dtype=np.int64)  # (6, 5)


@njit(cache=True)
def _enc(cat: int, a: int, b: int, c: int, d: int, e: int) -> int:
    return (cat << 20) | (a << 16) | (b << 12) | (c << 8) | (d << 4) | e


@njit(cache=True)
def score5(c0: int, c1: int, c2: int, c3: int, c4: int) -> int:
    """Score of five distinct cards: sort the ranks, then read the pattern of equal neighbours."""
    r0, r1, r2, r3, r4 = c0 >> 2, c1 >> 2, c2 >> 2, c3 >> 2, c4 >> 2
    # sorting network, descending
    if r0 < r1:
        r0, r1 = r1, r0
    if r3 < r4:
        r3, r4 = r4, r3
    if r2 < r4:
        r2, r4 = r4, r2
    if r2 < r3:
        r2, r3 = r3, r2
    if r0 < r3:
        r0, r3 = r3, r0
    if r0 < r2:
        r0, r2 = r2, r0
    if r1 < r4:
        r1, r4 = r4, r1
    if r1 < r3:
        r1, r3 = r3, r1
    if r1 < r2:
        r1, r2 = r2, r1
    s = c0 & 3
    flush = (c1 & 3) == s and (c2 & 3) == s and (c3 & 3) == s and (c4 & 3) == s
    e01, e12, e23, e34 = r0 == r1, r1 == r2, r2 == r3, r3 == r4
    if not (e01 or e12 or e23 or e34):
        top = -1
        if r0 - r4 == 4:
            top = r0
        elif r0 == 12 and r1 == 3:  # A-5-4-3-2
            top = 3
        if top >= 0:
            return _enc(8 if flush else 4, top, 0, 0, 0, 0)
        return _enc(5 if flush else 0, r0, r1, r2, r3, r4)
    if e01 and e12 and e23:
        return _enc(7, r0, r0, r0, r0, r4)
    if e12 and e23 and e34:
        return _enc(7, r1, r1, r1, r1, r0)
    if e01 and e12 and e34:
        return _enc(6, r0, r0, r0, r3, r3)
    if e01 and e23 and e34:
        return _enc(6, r2, r2, r2, r0, r0)
    # flushes cannot pair, so nothing below can be a flush
    if e01 and e12:
        return _enc(3, r0, r0, r0, r3, r4)
    if e12 and e23:
        return _enc(3, r1, r1, r1, r0, r4)
    if e23 and e34:
        return _enc(3, r2, r2, r2, r0, r1)
    if e01 and e23:
        return _enc(2, r0, r0, r2, r2, r4)
    if e01 and e34:
        return _enc(2, r0, r0, r3, r3, r2)
    if e12 and e34:
        return _enc(2, r1, r1, r3, r3, r0)
    if e01:
        return _enc(1, r0, r0, r2, r3, r4)
    if e12:
        return _enc(1, r1, r1, r0, r3, r4)
    if e23:
        return _enc(1, r2, r2, r0, r1, r4)
    return _enc(1, r3, r3, r0, r1, r2)


@njit(cache=True)
def eval7_brute(cards: np.ndarray) -> int:
    """Best 5-card score of 7 cards: all 21 subsets (the reference)."""
    best = -1
    for i in range(21):
        s = score5(cards[COMBOS[i, 0]], cards[COMBOS[i, 1]], cards[COMBOS[i, 2]],
                   cards[COMBOS[i, 3]], cards[COMBOS[i, 4]])
        if s > best:
            best = s
    return best


PRIMES = np.array([2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41], np.int64)
HASH_BITS = 17  # 131,072 slots for 49,205 keys
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
SUIT_LANE_HIGH = 0x8888  # bit 3 of each suit's 4-bit lane: set after adding 3 iff count >= 5


@njit(cache=True, _nrt=False)
def _slot(key, mask):
    return np.int64((np.uint64(key) * _GOLDEN) >> np.uint64(64 - HASH_BITS)) & mask


VALUE_BITS = 24  # scores are < 2**24; products of 7 primes <= 41 are < 2**38


@njit(cache=True)
def _build_table(primes, table):  # pragma: no cover - compiled
    """Score every multiset of 7 ranks (each at most 4 times) into the hash table: slot =
    product << VALUE_BITS | score, 0 = empty."""
    mask = table.shape[0] - 1
    cards = np.zeros(7, np.int64)
    r = np.zeros(7, np.int64)
    count = 0
    # non-decreasing rank sequences r0 <= ... <= r6
    for a in range(13):
        r[0] = a
        for b in range(a, 13):
            r[1] = b
            for c in range(b, 13):
                r[2] = c
                for d in range(c, 13):
                    r[3] = d
                    for e in range(d, 13):
                        r[4] = e
                        for f in range(e, 13):
                            r[5] = f
                            for g in range(f, 13):
                                r[6] = g
                                run = 1
                                ok = True
                                for t in range(1, 7):
                                    run = run + 1 if r[t] == r[t - 1] else 1
                                    if run > 4:
                                        ok = False
                                if not ok:
                                    continue
                                # card t gets suit t % 4: equal ranks are adjacent, so they get
                                # distinct suits, and no suit holds more than 2 of the 7 cards
                                key = 1
                                for t in range(7):
                                    cards[t] = r[t] * 4 + t % 4
                                    key *= primes[r[t]]
                                h = _slot(key, mask)
                                while table[h] != 0:
                                    h = (h + 1) & mask
                                table[h] = (key << VALUE_BITS) | eval7_brute(cards)
                                count += 1
    return count


TABLE = np.zeros(1 << HASH_BITS, np.int64)
N_RANK_MULTISETS = _build_table(PRIMES, TABLE)
assert N_RANK_MULTISETS == 49205


@njit(cache=True, _nrt=False)
def _lookup(table, key):
    mask = table.shape[0] - 1
    h = _slot(key, mask)
    while True:
        e = table[h]
        if (e >> VALUE_BITS) == key:
            return e & ((1 << VALUE_BITS) - 1)
        if e == 0:
            return -1  # not a multiset of 7 ranks: cannot happen for 7 valid cards
        h = (h + 1) & mask


@njit(cache=True, _nrt=False)
def _flush_score(c0, c1, c2, c3, c4, c5, c6, suit):
    """Best 5 of the 5..7 cards of ``suit`` (the others padded with -1, never chosen)."""
    f0 = f1 = f2 = f3 = f4 = f5 = f6 = -1
    m = 0
    for c in (c0, c1, c2, c3, c4, c5, c6):
        if (c & 3) == suit:
            if m == 0:
                f0 = c
            elif m == 1:
                f1 = c
            elif m == 2:
                f2 = c
            elif m == 3:
                f3 = c
            elif m == 4:
                f4 = c
            elif m == 5:
                f5 = c
            else:
                f6 = c
            m += 1
    if m == 5:
        return score5(f0, f1, f2, f3, f4)
    sel = (f0, f1, f2, f3, f4, f5, f6)
    best = -1
    if m == 6:
        for q in range(6):
            v = score5(sel[COMBOS6[q, 0]], sel[COMBOS6[q, 1]], sel[COMBOS6[q, 2]],
                       sel[COMBOS6[q, 3]], sel[COMBOS6[q, 4]])
            if v > best:
                best = v
    else:
        for q in range(21):
            v = score5(sel[COMBOS[q, 0]], sel[COMBOS[q, 1]], sel[COMBOS[q, 2]],
                       sel[COMBOS[q, 3]], sel[COMBOS[q, 4]])
            if v > best:
                best = v
    return best


@njit(cache=True, _nrt=False)
def board_parts(b0, b1, b2, b3, b4):
    """(prime product, suit lanes) of the 5 board cards: shared by every player of a hand."""
    key = PRIMES[b0 >> 2] * PRIMES[b1 >> 2] * PRIMES[b2 >> 2] * PRIMES[b3 >> 2] * PRIMES[b4 >> 2]
    lanes = ((1 << ((b0 & 3) << 2)) + (1 << ((b1 & 3) << 2)) + (1 << ((b2 & 3) << 2))
             + (1 << ((b3 & 3) << 2)) + (1 << ((b4 & 3) << 2)))
    return key, lanes


@njit(cache=True, _nrt=False)
def eval_with_board(table, bkey, blanes, b0, b1, b2, b3, b4, h0, h1):
    """Score of hole cards h0, h1 with the board b0..b4 whose ``board_parts`` are bkey, blanes."""
    lanes = blanes + (1 << ((h0 & 3) << 2)) + (1 << ((h1 & 3) << 2))
    high = (lanes + 0x3333) & SUIT_LANE_HIGH
    if high:
        suit = 0
        while not (high >> (4 * suit + 3)) & 1:
            suit += 1
        return _flush_score(h0, h1, b0, b1, b2, b3, b4, suit)
    return _lookup(table, bkey * PRIMES[h0 >> 2] * PRIMES[h1 >> 2])


@njit(cache=True, _nrt=False)
def eval7_fast(table, c0, c1, c2, c3, c4, c5, c6):
    """Score of 7 distinct cards 0..51 (same scale as ``eval7_brute``)."""
    bkey, blanes = board_parts(c2, c3, c4, c5, c6)
    return eval_with_board(table, bkey, blanes, c2, c3, c4, c5, c6, c0, c1)


@njit(cache=True)
def _eval_rows(cards, table, out):  # pragma: no cover - compiled
    for i in range(cards.shape[0]):
        out[i] = eval7_fast(table, cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3],
                            cards[i, 4], cards[i, 5], cards[i, 6])


@njit(cache=True)
def _brute_rows(cards, out):  # pragma: no cover - compiled
    for i in range(cards.shape[0]):
        out[i] = eval7_brute(cards[i])


def eval7_many(cards: np.ndarray) -> np.ndarray:
    """Scores of an (n, 7) array of hands (the fast path)."""
    cards = np.ascontiguousarray(cards, dtype=np.int64)
    out = np.empty(cards.shape[0], np.int64)
    _eval_rows(cards, TABLE, out)
    return out


def eval7_brute_many(cards: np.ndarray) -> np.ndarray:
    """Scores of an (n, 7) array of hands with the 21-subset reference."""
    cards = np.ascontiguousarray(cards, dtype=np.int64)
    out = np.empty(cards.shape[0], np.int64)
    _brute_rows(cards, out)
    return out


def evaluate(cards: list[int] | np.ndarray) -> int:
    """Score of 5..7 cards (convenience for tests)."""
    c = np.asarray(cards, dtype=np.int64)
    if len(c) == 5:
        return int(score5(c[0], c[1], c[2], c[3], c[4]))
    best = -1
    for sub in itertools.combinations(range(len(c)), 5):
        best = max(best, int(score5(*(int(c[j]) for j in sub))))
    return best


@njit(cache=True, _nrt=False)
def logged_strength(score):
    """A score of this module written in the log's documented strength encoding (the
    ``showdown_ranks`` column; docs/log-schema.md): ``category << 20`` and the ranks of each
    group once, high group first, in 4-bit nibbles from bit 16 down, unused nibbles zero. This
    module's score repeats a group's rank for each of its cards (a pair's rank twice: nibbles
    ``a a k1 k2 k3``), so each category's repeated nibbles are dropped and the rest moved up."""
    cat = score >> 20
    top = score & 0xFFFFF0000  # category and the first group's rank
    if cat == 1:  # pair: a a k1 k2 k3 -> a k1 k2 k3 0
        return top | ((score & 0xFFF) << 4)
    if cat == 2:  # two pair: h h l l k -> h l k 0 0
        return top | ((score & 0xF00) << 4) | ((score & 0xF) << 8)
    if cat == 3:  # trips: t t t k1 k2 -> t k1 k2 0 0
        return top | ((score & 0xFF) << 8)
    if cat == 6 or cat == 7:  # full house t t t p p, quads q q q q k -> t p / q k, 0 0 0
        return top | ((score & 0xF) << 12)
    return score  # high card, straight, flush, straight flush: one nibble a rank already
