"""The straddle a hand posts and the one its game gives (the ``stakes`` audit of a simulated run,
``audits.stakes``, and of an import against a game file, ``audits.stakes_import``; docs/game.md):
recomputed from the seats, the starting stacks and the action log, never from ``sim``."""

from __future__ import annotations

import numpy as np
from numba import njit

from audits.io import ANTE, STRADDLE, Batch


@njit(cache=True, _nrt=False)
def _straddle_kernel(occ, start, sb, bb, a_seat, a_kind, a_add, act_off, amount, always, posted,
               want, seat):
    """Per hand, the straddle the log posts (``posted``, by ``seat``) and the one the game
    gives (``want``): ``amount`` chips (0: none) by the first seat with chips left of the big
    blind in a hand of 3 or more players, at most the chips its ante left it; ``always``:
    every such hand has it, else (optional) a hand may have it or not. A second straddle in a
    hand is posted -1 (never the rules')."""
    n, k = occ.shape
    for i in range(n):
        posted[i], want[i], seat[i] = 0, 0, -1
        m = 0
        for s in range(k):
            if occ[i, s] and start[i, s] > 0:
                m += 1
        t = -1
        if m >= 3 and 0 <= bb[i] < k:
            u = bb[i]
            for _ in range(k):
                u = u + 1 if u + 1 < k else 0
                if occ[i, u] and start[i, u] > 0:
                    break
            if u != sb[i] and u != bb[i]:
                t = u
        left = 0
        if t >= 0:
            left = start[i, t]
        for j in range(act_off[i], act_off[i + 1]):
            if a_kind[j] == ANTE and a_seat[j] == t:
                left -= a_add[j]
            elif a_kind[j] == STRADDLE:
                if seat[i] >= 0:
                    posted[i] = -1  # a second straddle
                    break
                seat[i] = a_seat[j]
                posted[i] = a_add[j]
        full = min(amount, max(left, 0)) if t >= 0 else 0
        if posted[i] > 0 or always:
            want[i] = full
        if seat[i] < 0:
            seat[i] = t


def straddles(b: Batch, amount: int, always: bool,
              rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per hand of ``b``: (the straddle it posts, -1 for a second one; the one the game gives:
    ``amount`` chips (0: none) at most the straddler's chips after its ante, in every hand of 3
    or more players when ``always``, else only where one is posted; the straddler's seat).
    ``rows``: only these hands have the game's straddle (the others: none)."""
    posted, want, seat = (np.zeros(b.n, np.int64) for _ in range(3))
    c = b.cols
    _straddle_kernel(b.seat["occupied"], b.seat["stacks_start"], c["sb_seat"].astype(np.int64),
                     c["bb_seat"].astype(np.int64), b.act["seat"], b.act["kind"],
                     b.act["added"], b.act_off, amount, always, posted, want, seat)
    if rows is not None:
        want[~rows] = 0
    return posted, want, seat
