"""Bot policies, compiled so they run inside the simulation loop.

A policy reads the legal-actions vector (``sim.layout.LG_*``) and the state, draws from the
hand's policy stream (``sim.rng``) and returns ``(ActionKind, amount)``; it never sees other
players' hole cards.
"""

from __future__ import annotations

from numba import njit

from sim.layout import LG_CAN_CHECK, LG_CAN_FOLD, LG_CAN_RAISE, LG_MAX_TO, LG_MIN_TO
from sim.rng import below

A_FOLD, A_CHECK_CALL, A_BET_RAISE = 0, 1, 2


@njit(cache=True)
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
