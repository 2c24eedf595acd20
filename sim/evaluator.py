"""Fast 5/6/7-card Texas Hold'em hand evaluator (numba-compiled, also runs as plain Python).

Cards are ints ``rank * 4 + suit`` (see :mod:`sim.cards`): rank 0..12 is 2..A, suit 0..3 is c d h s.

Strength encoding
-----------------
A hand's strength is one int, totally ordered: bigger is better, equal means an exact tie
(suits never break ties)::

    strength = category << 20 | tiebreak

``category`` is a :class:`HandCategory` (0 high card .. 8 straight flush). ``tiebreak`` holds up
to five 4-bit rank nibbles (rank index 0..12 = 2..A), most significant first, starting at bit 16:

=================  =========================================================
category           nibbles (bits 19-16, 15-12, 11-8, 7-4, 3-0)
=================  =========================================================
8 straight flush   high card of the straight (wheel A-2-3-4-5 is Five high)
7 four of a kind   quad rank, kicker
6 full house       trips rank, pair rank
5 flush            the five flush ranks, high to low
4 straight         high card of the straight (wheel is Five high)
3 three of a kind  trips rank, kicker, kicker
2 two pair         high pair, low pair, kicker
1 one pair         pair rank, kicker, kicker, kicker
0 high card        the five ranks, high to low
=================  =========================================================

Unused nibbles are zero. For example ``0x6B600`` is "Full house, Kings full of Eights" and
``0x43000`` is the wheel. No wrap-around straights: Q-K-A-2-3 is not a straight.

Algorithm: per hand, build rank masks (13 bits) of ranks held at least once/twice/three/four
times, and one 13-bit rank mask per suit (packed 16 bits apart in one int). Small tables
indexed by a 13-bit mask (8192 entries, built with numpy at import) give the popcount, the
highest straight, and the top 1/2/3/5 ranks packed as nibbles. With at most 7 cards a flush
excludes quads and full houses, so the flush test can come first.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from operator import index

import numpy as np
from numba import njit

from sim.cards import cards_of, check_distinct

__all__ = [
    "EXPECTED_7CARD_COUNTS",
    "board_masks",
    "HandCategory",
    "category_of",
    "count_categories_all7",
    "describe",
    "evaluate",
    "evaluate7",
    "evaluate_hand",
    "evaluate_on_board",
    "evaluate_many",
]


class HandCategory(IntEnum):
    """Hand categories, in increasing strength (``strength >> 20``)."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8


#: Number of distinct 7-card hands (out of C(52,7) = 133,784,560) per category 0..8.
EXPECTED_7CARD_COUNTS = np.array(
    [
        23_294_460,  # high card
        58_627_800,  # one pair
        31_433_400,  # two pair
        6_461_620,  # three of a kind
        6_180_020,  # straight
        4_047_644,  # flush
        3_473_184,  # full house
        224_848,  # four of a kind
        41_584,  # straight flush
    ],
    dtype=np.int64,
)

CATEGORY_SHIFT = 20
RANK_MASK = 0x1FFF  # 13 bits
SUIT_SHIFT = 16  # spacing of the per-suit rank masks packed in one int


# ---------------------------------------------------------------------------------------------
# Lookup tables over 13-bit rank masks (plain numpy, built at import).


def _build_tables() -> tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray
]:
    masks = np.arange(1 << 13, dtype=np.int64)
    bits = (masks[:, None] >> np.arange(13)) & 1  # (8192, 13)
    popcount = bits.sum(axis=1).astype(np.int64)

    highbit = np.zeros(1 << 13, dtype=np.int64)  # highest rank present (0 for an empty mask)
    for r in range(13):
        highbit[masks >= (1 << r)] = r

    # Highest straight: rank index of its top card, 3 (Five) for the wheel, -1 if none.
    straight = np.full(1 << 13, -1, dtype=np.int64)
    wheel = (1 << 12) | 0b1111  # A 2 3 4 5
    straight[(masks & wheel) == wheel] = 3
    for top in range(4, 13):  # ascending, so a higher straight overwrites a lower one
        window = 0b11111 << (top - 4)
        straight[(masks & window) == window] = top

    def top_k(k: int) -> np.ndarray:
        """Top k ranks of each mask packed as k nibbles, highest in the most significant."""
        packed = np.zeros(1 << 13, dtype=np.int64)
        rest = masks.copy()
        for _ in range(k):
            h = highbit[rest]
            packed = (packed << 4) | h
            rest = rest & ~(np.int64(1) << h)
        return packed

    return popcount, straight, highbit, top_k(2), top_k(3), top_k(5)


POPCOUNT, STRAIGHT_HIGH, TOP1, TOP2, TOP3, TOP5 = _build_tables()


# ---------------------------------------------------------------------------------------------
# Compiled core.


@njit(cache=True)
def _strength(m1: int, m2: int, m3: int, m4: int, suits: int) -> int:
    """Strength from rank masks (ranks held >= 1, 2, 3, 4 times) and packed per-suit masks."""
    for s in range(4):
        fm = (suits >> (SUIT_SHIFT * s)) & RANK_MASK
        if POPCOUNT[fm] >= 5:
            sf = STRAIGHT_HIGH[fm]
            if sf >= 0:
                return (8 << CATEGORY_SHIFT) | (sf << 16)
            return (5 << CATEGORY_SHIFT) | TOP5[fm]
    if m4:
        q = TOP1[m4]
        return (7 << CATEGORY_SHIFT) | (q << 16) | (TOP1[m1 & ~(1 << q)] << 12)
    if m3:
        t = TOP1[m3]
        pairs = m2 & ~(1 << t)  # may hold a second trips
        if pairs:
            return (6 << CATEGORY_SHIFT) | (t << 16) | (TOP1[pairs] << 12)
    st = STRAIGHT_HIGH[m1]
    if st >= 0:
        return (4 << CATEGORY_SHIFT) | (st << 16)
    if m3:
        t = TOP1[m3]
        return (3 << CATEGORY_SHIFT) | (t << 16) | (TOP2[m1 & ~(1 << t)] << 8)
    if m2:
        p = TOP1[m2]
        rest = m2 & ~(1 << p)
        if rest:
            p2 = TOP1[rest]
            kick = TOP1[m1 & ~((1 << p) | (1 << p2))]
            return (2 << CATEGORY_SHIFT) | (p << 16) | (p2 << 12) | (kick << 8)
        return (1 << CATEGORY_SHIFT) | (p << 16) | (TOP3[m1 & ~(1 << p)] << 4)
    return TOP5[m1]


@njit(cache=True)
def _add_card(m1: int, m2: int, m3: int, m4: int, suits: int, card: int
              ) -> tuple[int, int, int, int, int]:
    """Add one card to the masks; returns the updated (m1, m2, m3, m4, suits)."""
    c = int(card)  # so a uint8/int8 card cannot make the shifts overflow when run un-jitted
    b = 1 << (c >> 2)
    return (
        m1 | b,
        m2 | (m1 & b),
        m3 | (m2 & b),
        m4 | (m3 & b),
        suits | (b << (SUIT_SHIFT * (c & 3))),
    )


@njit(cache=True)
def evaluate7(c0: int, c1: int, c2: int, c3: int, c4: int, c5: int, c6: int) -> int:
    """Strength of the best five of seven distinct cards (no input checks)."""
    m1 = m2 = m3 = m4 = suits = 0
    m1, m2, m3, m4, suits = _add_card(m1, m2, m3, m4, suits, c0)
    m1, m2, m3, m4, suits = _add_card(m1, m2, m3, m4, suits, c1)
    m1, m2, m3, m4, suits = _add_card(m1, m2, m3, m4, suits, c2)
    m1, m2, m3, m4, suits = _add_card(m1, m2, m3, m4, suits, c3)
    m1, m2, m3, m4, suits = _add_card(m1, m2, m3, m4, suits, c4)
    m1, m2, m3, m4, suits = _add_card(m1, m2, m3, m4, suits, c5)
    m1, m2, m3, m4, suits = _add_card(m1, m2, m3, m4, suits, c6)
    return _strength(m1, m2, m3, m4, suits)


@njit(cache=True)
def board_masks(b0: int, b1: int, b2: int, b3: int, b4: int
                ) -> tuple[int, int, int, int, int]:
    """The masks of a five-card board (``evaluate_on_board`` adds a hand's two cards to them):
    a showdown evaluates its board once."""
    m1 = m2 = m3 = m4 = suits = 0
    m1, m2, m3, m4, suits = _add_card(m1, m2, m3, m4, suits, b0)
    m1, m2, m3, m4, suits = _add_card(m1, m2, m3, m4, suits, b1)
    m1, m2, m3, m4, suits = _add_card(m1, m2, m3, m4, suits, b2)
    m1, m2, m3, m4, suits = _add_card(m1, m2, m3, m4, suits, b3)
    m1, m2, m3, m4, suits = _add_card(m1, m2, m3, m4, suits, b4)
    return m1, m2, m3, m4, suits


@njit(cache=True)
def evaluate_on_board(board: tuple[int, int, int, int, int], c0: int, c1: int) -> int:
    """``evaluate7`` of two hole cards and a board given as its ``board_masks``."""
    m1, m2, m3, m4, suits = board
    m1, m2, m3, m4, suits = _add_card(m1, m2, m3, m4, suits, c0)
    m1, m2, m3, m4, suits = _add_card(m1, m2, m3, m4, suits, c1)
    return _strength(m1, m2, m3, m4, suits)


@njit(cache=True)
def evaluate_hand(cards: np.ndarray, n: int) -> int:
    """Strength of the best five of ``cards[:n]`` (n = 5, 6 or 7 distinct cards; no checks)."""
    m1 = m2 = m3 = m4 = suits = 0
    for i in range(n):
        m1, m2, m3, m4, suits = _add_card(m1, m2, m3, m4, suits, cards[i])
    return _strength(m1, m2, m3, m4, suits)


@njit(cache=True)
def evaluate_many(hands: np.ndarray) -> np.ndarray:
    """Strengths (int64) of each row of a 2-D int array of hands (5 to 7 columns)."""
    n_hands, n = hands.shape
    out = np.empty(n_hands, dtype=np.int64)
    for h in range(n_hands):
        out[h] = evaluate_hand(hands[h], n)
    return out


@njit(cache=True)
def category_of(strength: int) -> int:
    """Hand category (0..8, see :class:`HandCategory`) of a strength."""
    return strength >> CATEGORY_SHIFT


@njit(cache=True)
def count_categories_all7() -> np.ndarray:
    """Count the categories of all C(52,7) = 133,784,560 seven-card hands (int64[9])."""
    counts = np.zeros(9, dtype=np.int64)
    for a in range(46):
        a1, a2, a3, a4, a_s = _add_card(0, 0, 0, 0, 0, a)
        for b in range(a + 1, 47):
            b1, b2, b3, b4, b_s = _add_card(a1, a2, a3, a4, a_s, b)
            for c in range(b + 1, 48):
                c1, c2, c3, c4, c_s = _add_card(b1, b2, b3, b4, b_s, c)
                for d in range(c + 1, 49):
                    d1, d2, d3, d4, d_s = _add_card(c1, c2, c3, c4, c_s, d)
                    for e in range(d + 1, 50):
                        e1, e2, e3, e4, e_s = _add_card(d1, d2, d3, d4, d_s, e)
                        for f in range(e + 1, 51):
                            f1, f2, f3, f4, f_s = _add_card(e1, e2, e3, e4, e_s, f)
                            for g in range(f + 1, 52):
                                g1, g2, g3, g4, g_s = _add_card(f1, f2, f3, f4, f_s, g)
                                counts[_strength(g1, g2, g3, g4, g_s) >> CATEGORY_SHIFT] += 1
    return counts


# ---------------------------------------------------------------------------------------------
# Python conveniences.


def evaluate(cards: str | Sequence[int | str] | np.ndarray) -> int:
    """Strength of the best five of 5, 6 or 7 distinct cards, with input checks: ints 0..51 or
    text (``evaluate("As Ks Qs Js Ts")``, ``evaluate(["As", 50, ...])``: ``sim.cards.cards_of``).

    Raises a one-line ValueError on a wrong number of cards, a bad card (naming its position)
    or a repeated card.
    """
    ints = cards_of(cards, "cards")
    n = len(ints)
    if not 5 <= n <= 7:
        raise ValueError(f"expected 5, 6 or 7 cards, got {n}")
    check_distinct(ints)
    return int(evaluate_hand(np.array(ints, dtype=np.int64), n))


_NAMES = [
    "Two",
    "Three",
    "Four",
    "Five",
    "Six",
    "Seven",
    "Eight",
    "Nine",
    "Ten",
    "Jack",
    "Queen",
    "King",
    "Ace",
]
_PLURALS = [
    "Twos",
    "Threes",
    "Fours",
    "Fives",
    "Sixes",
    "Sevens",
    "Eights",
    "Nines",
    "Tens",
    "Jacks",
    "Queens",
    "Kings",
    "Aces",
]
_CATEGORY_NAMES = [
    "High card",
    "One pair",
    "Two pair",
    "Three of a kind",
    "Straight",
    "Flush",
    "Full house",
    "Four of a kind",
    "Straight flush",
]


def _kickers(ranks: list[int]) -> str:
    names = " ".join(_NAMES[r] for r in ranks)
    return f"{names} kicker" if len(ranks) == 1 else f"{names} kickers"


def describe(strength: int) -> str:
    """Readable English for a strength, e.g. ``"Full house, Kings full of Eights"``."""
    strength = index(strength)
    cat = strength >> CATEGORY_SHIFT
    if strength < 0 or cat > HandCategory.STRAIGHT_FLUSH:
        raise ValueError(f"bad strength {strength:#x}")
    r = [(strength >> shift) & 0xF for shift in (16, 12, 8, 4, 0)]
    if max(r) > 12:
        raise ValueError(f"bad strength {strength:#x}: rank nibble above Ace")
    head = _CATEGORY_NAMES[cat]
    if cat == HandCategory.STRAIGHT_FLUSH:
        if r[0] == 12:
            return "Straight flush, Ace high (royal flush)"
        return f"{head}, {_NAMES[r[0]]} high"
    if cat == HandCategory.FOUR_OF_A_KIND:
        return f"{head}, {_PLURALS[r[0]]}, {_kickers(r[1:2])}"
    if cat == HandCategory.FULL_HOUSE:
        return f"{head}, {_PLURALS[r[0]]} full of {_PLURALS[r[1]]}"
    if cat == HandCategory.FLUSH:
        return f"{head}, " + " ".join(_NAMES[x] for x in r)
    if cat == HandCategory.STRAIGHT:
        return f"{head}, {_NAMES[r[0]]} high"
    if cat == HandCategory.THREE_OF_A_KIND:
        return f"{head}, {_PLURALS[r[0]]}, {_kickers(r[1:3])}"
    if cat == HandCategory.TWO_PAIR:
        return f"{head}, {_PLURALS[r[0]]} and {_PLURALS[r[1]]}, {_kickers(r[2:3])}"
    if cat == HandCategory.ONE_PAIR:
        return f"{head}, {_PLURALS[r[0]]}, {_kickers(r[1:4])}"
    return f"{head}, " + " ".join(_NAMES[x] for x in r)
