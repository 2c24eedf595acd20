"""Deal integrity (exact): every deck is a permutation of 0..51; hole cards, burns and board are
the deck's cards in dealing order (hole cards one at a time clockwise from the first occupied seat
left of the button, two rounds; then burn, 3 flop, burn, turn, burn, river, as far as the hand
went); no card twice in a hand. Without decks the audit is not applicable, but the known cards
(hole cards >= 0, board) are still checked for duplicates and cards at empty seats."""

from __future__ import annotations

import numpy as np
from numba import njit

from audits.io import Batch
from audits.result import Partial, partial_from_codes

MESSAGES = {
    1: "deck not a permutation of 0..51",
    2: "hole cards of seat {aux} are not the deck's cards in dealing order",
    3: "empty seat {aux} holds cards",
    4: "burn/board card {aux} is not the deck's card in dealing order",
    5: "card {aux} appears twice in the hand",
    6: "burns and board lengths disagree (board {aux} cards)",
}


@njit(cache=True)
def _deal_kernel(deck, hole, occupied, button, bv, boff, dv, doff, codes, aux):
    n, k = occupied.shape
    seen = np.zeros(52, np.int64)
    for i in range(n):
        # permutation
        seen[:] = 0
        ok = True
        for j in range(52):
            c = deck[i, j]
            if c < 0 or c > 51 or seen[c]:
                ok = False
                break
            seen[c] = 1
        if not ok:
            codes[i] = 1
            continue
        # hole cards
        m = 0
        for s in range(k):
            if occupied[i, s]:
                m += 1
            elif hole[i, 2 * s] != -1 or hole[i, 2 * s + 1] != -1:
                codes[i] = 3
                aux[i] = s
        if codes[i]:
            continue
        b = button[i]
        pos = 0
        for rnd in range(2):
            s = b
            for _ in range(k):
                s = s + 1 if s + 1 < k else 0
                if occupied[i, s]:
                    if hole[i, 2 * s + rnd] != deck[i, pos] and codes[i] == 0:
                        codes[i] = 2
                        aux[i] = s
                    pos += 1
        if codes[i]:
            continue
        nb = boff[i + 1] - boff[i]
        nd = doff[i + 1] - doff[i]
        if not ((nd == 0 and nb == 0) or (nd >= 3 and nd <= 5 and nb == nd - 2)):
            codes[i] = 6
            aux[i] = nd
            continue
        for street in range(nb):
            if bv[boff[i] + street] != deck[i, pos]:
                codes[i] = 4
                aux[i] = bv[boff[i] + street]
            pos += 1
            lo = 0 if street == 0 else street + 2
            hi = 3 if street == 0 else street + 3
            for t in range(lo, hi):
                if dv[doff[i] + t] != deck[i, pos] and codes[i] == 0:
                    codes[i] = 4
                    aux[i] = dv[doff[i] + t]
                pos += 1
        if codes[i]:
            continue
        # no card twice among everything dealt (hole, burns, board)
        seen[:] = 0
        for j in range(2 * k):
            c = hole[i, j]
            if c >= 0:
                if c > 51 or seen[c]:
                    codes[i] = 5
                    aux[i] = c
                    break
                seen[c] = 1
        for j in range(boff[i], boff[i + 1]):
            c = bv[j]
            if c < 0 or c > 51 or seen[c]:
                codes[i] = 5
                aux[i] = c
            else:
                seen[c] = 1
        for j in range(doff[i], doff[i + 1]):
            c = dv[j]
            if c < 0 or c > 51 or seen[c]:
                codes[i] = 5
                aux[i] = c
            else:
                seen[c] = 1


@njit(cache=True)
def _known_cards_kernel(hole, occupied, dv, doff, codes, aux):
    """Without a deck: empty seats hold no cards and no known card (>= 0) appears twice."""
    n, k = occupied.shape
    seen = np.zeros(52, np.int64)
    for i in range(n):
        seen[:] = 0
        for s in range(k):
            if not occupied[i, s] and (hole[i, 2 * s] != -1 or hole[i, 2 * s + 1] != -1):
                codes[i] = 3
                aux[i] = s
        if codes[i]:
            continue
        for j in range(2 * k):
            c = hole[i, j]
            if c >= 0:
                if c > 51 or seen[c]:
                    codes[i] = 5
                    aux[i] = c
                    break
                seen[c] = 1
        if codes[i]:
            continue
        for j in range(doff[i], doff[i + 1]):
            c = dv[j]
            if c < 0 or c > 51 or seen[c]:
                codes[i] = 5
                aux[i] = c
                break
            seen[c] = 1


def deal_map(b: Batch) -> Partial:
    if b.deck is None:
        # no decks logged (e.g. imported PHH hands): the dealing order cannot be certified, so
        # the audit is not applicable; the known cards are still checked (no card twice, none
        # at an empty seat) and a violation makes it applicable and failing
        codes = np.zeros(b.n, np.int32)
        aux = np.zeros(b.n, np.int64)
        dv, doff = b.var["board"]
        _known_cards_kernel(b.hole, b.seat["occupied"], dv.astype(np.int64), doff, codes, aux)
        part = partial_from_codes(b.cols["hand_id"], codes, aux, MESSAGES)
        part.applicable = part.failures > 0
        return part
    codes = np.zeros(b.n, np.int32)
    aux = np.zeros(b.n, np.int64)
    bv, boff = b.var["burns"]
    dv, doff = b.var["board"]
    _deal_kernel(b.deck, b.hole, b.seat["occupied"], b.cols["button"].astype(np.int64),
                 bv.astype(np.int64), boff, dv.astype(np.int64), doff, codes, aux)
    return partial_from_codes(b.cols["hand_id"], codes, aux, MESSAGES)
