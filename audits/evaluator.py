"""The audits' own 7-card evaluator: the best of the 21 five-card subsets, each scored by a plain
5-card scorer (rank counts, flush, straight). Deliberately a different algorithm from the engine's.

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
def eval7(cards: np.ndarray) -> int:
    """Best 5-card score of 7 cards."""
    best = -1
    for i in range(21):
        s = score5(cards[COMBOS[i, 0]], cards[COMBOS[i, 1]], cards[COMBOS[i, 2]],
                   cards[COMBOS[i, 3]], cards[COMBOS[i, 4]])
        if s > best:
            best = s
    return best


@njit(cache=True)
def eval7_many(cards: np.ndarray) -> np.ndarray:
    """Scores of an (n, 7) array of hands."""
    out = np.empty(cards.shape[0], np.int64)
    for i in range(cards.shape[0]):
        out[i] = eval7(cards[i])
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
