"""Bot policies, compiled so they run inside the simulation loop.

A policy reads the legal-actions vector (``sim.layout.LG_*``), its own hole cards and the board
from the state, draws from the hand's policy stream (``sim.rng``) and returns
``(ActionKind, amount)``. It never looks at another seat's cards.

Policies: 0 random legal action (stress), 1 calling station, 2 tight-aggressive by hand
strength, 3 maniac / shover. The mix is chosen to reach rare rule paths often: maniacs shove
into calling stations with uneven stacks (side pots, short all-ins), random players make
odd-sized raises, tight players fold to pressure (uncalled bets).
"""

from __future__ import annotations

from numba import njit

from sim.evaluator import evaluate7
from sim.layout import (
    BOARD_,
    CONTRIB_,
    CUR_BET,
    HOLE_,
    LG_CALL,
    LG_CAN_CHECK,
    LG_CAN_FOLD,
    LG_CAN_RAISE,
    LG_MAX_TO,
    LG_MIN_TO,
    LG_TO_ACT,
    N_BOARD,
    N_SEATS,
    STACK_,
)
from sim.rng import below

A_FOLD, A_CHECK_CALL, A_BET_RAISE = 0, 1, 2
P_RANDOM, P_STATION, P_TAG, P_MANIAC = 0, 1, 2, 3
N_POLICIES = 4
POLICY_NAMES = ("random", "calling-station", "tight-aggressive", "maniac")


@njit(cache=True, _nrt=False)
def random_legal(rs, lg):
    """Stress policy: a uniformly drawn legal move. Fold 15% (only when facing a bet),
    check/call 50%, raise 35% (to the minimum 40%, all the way 15%, anywhere between 45%)."""
    r = below(rs, 100)
    if r < 15 and lg[LG_CAN_FOLD]:
        return A_FOLD, 0
    if r >= 65 and lg[LG_CAN_RAISE]:
        lo = lg[LG_MIN_TO]
        hi = lg[LG_MAX_TO]
        q = below(rs, 100)
        if q < 40 or hi == lo:
            return A_BET_RAISE, lo
        if q < 55:
            return A_BET_RAISE, hi
        return A_BET_RAISE, lo + below(rs, hi - lo + 1)
    if not lg[LG_CAN_CHECK] and r < 15:
        return A_FOLD, 0
    return A_CHECK_CALL, 0


@njit(cache=True, _nrt=False)
def preflop_score(c1, c2):
    """0..100: pairs 50 (deuces) to 98 (aces); unpaired by ranks, suitedness and gap."""
    r1 = c1 >> 2
    r2 = c2 >> 2
    if r1 == r2:
        return 50 + 4 * r1
    hi = max(r1, r2)
    lo = min(r1, r2)
    score = 3 * hi + (3 * lo) // 2
    if (c1 & 3) == (c2 & 3):
        score += 6
    gap = hi - lo - 1
    score -= 2 * min(gap, 4)
    return max(score, 0)


@njit(cache=True, _nrt=False)
def _made_category(S, s):
    """Rough strength after the flop: the river's full category (0..8); before the river the
    number of board cards pairing a hole card (plus 1 for a pocket pair), at most 3."""
    nb = S[N_BOARD]
    h0 = S[HOLE_ + 2 * s]
    h1 = S[HOLE_ + 2 * s + 1]
    b = BOARD_
    if nb == 5:
        return evaluate7(h0, h1, S[b], S[b + 1], S[b + 2], S[b + 3], S[b + 4]) >> 20
    pair = 1 if (h0 >> 2) == (h1 >> 2) else 0
    for k in range(nb):
        r = S[b + k] >> 2
        if r == (h0 >> 2) or r == (h1 >> 2):
            pair += 1
    return min(pair, 3)


@njit(cache=True, _nrt=False)
def _sized_raise(lg, target):
    lo = lg[LG_MIN_TO]
    hi = lg[LG_MAX_TO]
    return A_BET_RAISE, min(max(target, lo), hi)


@njit(cache=True, _nrt=False)
def decide(policy, rs, S, lg):
    """The policy's action for the seat to act."""
    if policy == P_RANDOM:
        return random_legal(rs, lg)
    s = lg[LG_TO_ACT]
    if policy == P_STATION:
        if lg[LG_CAN_RAISE] and below(rs, 100) < 3:
            return A_BET_RAISE, lg[LG_MIN_TO]
        return A_CHECK_CALL, 0
    pot = 0
    for t in range(S[N_SEATS]):
        pot += S[CONTRIB_ + t]
    if policy == P_MANIAC:
        r = below(rs, 100)
        if lg[LG_CAN_RAISE] and r < 55:
            if r < 30:
                return A_BET_RAISE, lg[LG_MAX_TO]  # shove (or pot, or the fixed bet)
            return _sized_raise(lg, S[CUR_BET] + pot)
        if lg[LG_CAN_FOLD] and r > 95:
            return A_FOLD, 0
        return A_CHECK_CALL, 0
    # tight-aggressive
    nb = S[N_BOARD]
    call = lg[LG_CALL]
    stack = S[STACK_ + s]
    if nb == 0:
        strength = preflop_score(S[HOLE_ + 2 * s], S[HOLE_ + 2 * s + 1])
        if strength >= 62 and lg[LG_CAN_RAISE]:
            return _sized_raise(lg, 3 * S[CUR_BET] + pot // 2)
        if strength >= 45 and (call * 10 <= stack + call or strength >= 58):
            return A_CHECK_CALL, 0
    else:
        cat = _made_category(S, s)
        if cat >= 2 and lg[LG_CAN_RAISE]:
            return _sized_raise(lg, S[CUR_BET] + (2 * pot) // 3)
        if cat >= 1 and (call * 3 <= pot + call or cat >= 2):
            return A_CHECK_CALL, 0
        if lg[LG_CAN_CHECK] and lg[LG_CAN_RAISE] and below(rs, 100) < 10:
            return _sized_raise(lg, pot // 2)  # an occasional bluff
    if lg[LG_CAN_CHECK] or not lg[LG_CAN_FOLD]:
        return A_CHECK_CALL, 0
    return A_FOLD, 0
