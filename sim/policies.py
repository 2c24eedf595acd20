"""Bot policies, compiled so they run inside the simulation loop.

A policy reads the legal-actions vector (``sim.layout.LG_*``), its own hole cards and the board
from the state, draws from the hand's policy stream (``sim.rng``) and returns
``(ActionKind, amount)``. It never looks at another seat's cards.

Policies: 0 random legal action (stress), 1 calling station, 2 tight-aggressive by hand
strength, 3 maniac / shover. The mix is chosen to reach rare rule paths often: maniacs shove
into calling stations with uneven stacks (side pots, short all-ins), random players make
odd-sized raises, tight players fold to pressure (uncalled bets).

The real population (``RunSpec.bots == "real"``) adds four styles that fold as real players do,
one parameter row each (``STYLE``): 4 nit (plays ~8% of hands), 5 regular (~20%), 6 loose-
aggressive (~35%), 7 recreational (limps and calls ~45%, rarely raises). Before the flop they
open, call or 3-bet by a hand-score threshold and fold the rest; a short stack (12 big blinds
or less) shoves or folds. After the flop they bet made hands, call by the price, bluff a set
share of the time and fold the rest. ``draw_real_policy`` seats them with a few stress bots
(random, calling station, maniac) among them, so all-ins and side pots still happen.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.codes import A_BET_RAISE, A_CHECK_CALL, A_FOLD, S_ACTIVE
from sim.evaluator import evaluate7
from sim.layout import (
    BB_SEAT,
    BET_,
    BIG_BLIND,
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
    STATUS_,
)
from sim.rng import below

P_RANDOM, P_STATION, P_TAG, P_MANIAC = 0, 1, 2, 3
N_POLICIES = 4  # the classic bots
P_NIT, P_REG, P_LAG, P_REC = 4, 5, 6, 7
# per style (row policy - P_NIT): open (raise first in) score, limp score (recreational), call a
# raise score, re-raise score, short-stack shove score, percent value bets with one pair,
# percent bluffs, percent calls of a bet with nothing, largest price of a call with one pair
# (percent of the pot after calling)
STYLE = np.array([
    [50, 99, 54, 62, 45, 30, 5, 0, 30],    # nit
    [39, 99, 46, 56, 39, 55, 20, 3, 40],   # regular
    [32, 99, 40, 50, 32, 70, 40, 8, 45],   # loose-aggressive
    [58, 28, 31, 62, 34, 25, 5, 30, 60],   # recreational
], dtype=np.int64)
S_OPEN, S_LIMP, S_CALL, S_RERAISE, S_SHOVE, S_VALUE, S_BLUFF, S_FLOAT, S_PRICE = range(9)
SHORT_BB = 12
TINY_BB = 5  # a stack this short shoves wider (by TINY_WIDER score points)
TINY_WIDER = 12
DESPERATE_BB = 2  # a stack of two big blinds or less shoves any two cards
# opening wider the fewer players are left to act (1: the small blind alone against the big
# blind, 2: the button, 3: the cut-off): score points off the open and limp thresholds
STEAL = np.array([0, 14, 8, 4], dtype=np.int64)
# real population: policy -> weight in percent (random, station, tag, maniac, nit, regular,
# loose-aggressive, recreational)
REAL_WEIGHTS = np.array([3, 4, 0, 4, 22, 35, 17, 15], dtype=np.int64)


@njit(cache=True, _nrt=False, inline="always")
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
def draw_real_policy(rs):
    """A seat's bot in the real population (``REAL_WEIGHTS``)."""
    r = below(rs, 100)
    for p in range(REAL_WEIGHTS.shape[0]):
        if r < REAL_WEIGHTS[p]:
            return p
        r -= REAL_WEIGHTS[p]
    return P_REG


@njit(cache=True, _nrt=False)
def _left_to_act(S, s):
    """Players still in with chips who act after seat ``s`` before the flop (up to the big
    blind)."""
    n = S[N_SEATS]
    bb = S[BB_SEAT]
    c = 0
    t = s
    for _ in range(n):
        if t == bb:
            break
        t = t + 1 if t + 1 < n else 0
        if S[STATUS_ + t] == S_ACTIVE:
            c += 1
    return c


@njit(cache=True, _nrt=False)
def styled(policy, rs, S, lg):
    """The real population's styles (``STYLE``)."""
    st = STYLE[policy - P_NIT]
    s = lg[LG_TO_ACT]
    call = lg[LG_CALL]
    can_raise = lg[LG_CAN_RAISE]
    can_check = lg[LG_CAN_CHECK]
    bb = S[BIG_BLIND]
    cur = S[CUR_BET]
    pot = 0
    for t in range(S[N_SEATS]):
        pot += S[CONTRIB_ + t]
    if S[N_BOARD] == 0:
        score = preflop_score(S[HOLE_ + 2 * s], S[HOLE_ + 2 * s + 1])
        depth = S[STACK_ + s] + S[BET_ + s]
        if depth <= SHORT_BB * bb:  # short: shove or fold
            if depth <= DESPERATE_BB * bb or \
                    score >= st[S_SHOVE] - (TINY_WIDER if depth <= TINY_BB * bb else 0):
                if can_raise:
                    return A_BET_RAISE, lg[LG_MAX_TO]
                return A_CHECK_CALL, 0
        elif cur <= bb:  # nobody has raised
            steal = STEAL[min(_left_to_act(S, s), 4) % 4]
            if score >= st[S_OPEN] - steal and can_raise:
                return _sized_raise(lg, 3 * bb + pot // 3)
            if score >= st[S_LIMP] - steal // 2:
                return A_CHECK_CALL, 0
        else:
            if score >= st[S_RERAISE] and can_raise:
                return _sized_raise(lg, 3 * cur)
            if score >= st[S_CALL] and call * 5 <= S[STACK_ + s] + call:
                return A_CHECK_CALL, 0
        if can_check:
            return A_CHECK_CALL, 0
        return A_FOLD, 0
    cat = _made_category(S, s)
    r = below(rs, 100)
    if cat >= 2:
        if can_raise and r < 75:
            return _sized_raise(lg, cur + (2 * pot) // 3)
        return A_CHECK_CALL, 0
    if can_check:
        if can_raise and ((cat == 1 and r < st[S_VALUE]) or (cat == 0 and r < st[S_BLUFF])):
            return _sized_raise(lg, cur + pot // 2)
        return A_CHECK_CALL, 0
    if cat == 1 and call * 100 <= st[S_PRICE] * (pot + call):
        return A_CHECK_CALL, 0
    if r < st[S_FLOAT]:
        return A_CHECK_CALL, 0
    return A_FOLD, 0


@njit(cache=True, _nrt=False)
def decide(policy, rs, S, lg):
    """The policy's action for the seat to act."""
    if policy >= P_NIT:
        return styled(policy, rs, S, lg)
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
