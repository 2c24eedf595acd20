"""Boards conditioned on the action: is the flop, turn and river a fair deck deals, whatever the
pot?

A dealer that re-draws an unpaired rainbow flop after a big pre-flop pot (action flops for the
big pots) keeps every deck a permutation and every card/position count near fair (big pots are
a minority). Here every board card dealt is compared with its exact law given the cards known
when it was dealt and the action before it: under a fair deal the flop is uniform over the
3-card subsets of the cards not in any hand (the burn is one of them, not seen), the turn
uniform over those left after the flop, the river after the turn, whatever was bet. So each
texture indicator has an exact Bernoulli probability computed from the rank and suit counts of
the unseen cards:

- flop paired: 1 - e3(rank counts) / C(u, 3) (e3: the 3-card subsets of distinct ranks);
- flop monotone: sum over suits C(c_s, 3) / C(u, 3);
- flop connected (three distinct ranks within a span of 4, aces low too): counted over the
  rank triples;
- turn pairs the board: the unseen cards of the flop's ranks over u;
- river pairs the board: the unseen cards of the turn board's ranks over u.

Each indicator is summed separately over the hands whose pot before that street was at least
``BIG_POT_BB`` big blinds (big pots) and over the others; each sum against its exact mean and
variance (a sum of independent Bernoullis) gives a z, two-sided; the test ``board_texture``
takes the smallest p, Bonferroni over the 10 sums.

The known cards: every hole card known (in a simulated run every occupied seat's, folded ones
too). An imported hand's unshown cards are counted unseen, so their law is taken as uniform over
the unseen cards, which the players' decisions on them bend slightly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit
from scipy import stats as ss

from audits import stats

BIG_POT_BB = 10
FEATURES = ("flop_paired", "flop_monotone", "flop_connected", "turn_pairs_board",
            "river_pairs_board")
MIN_HANDS = 200
TESTS = ("board_texture",)
# action kinds (EventKind): chips into the pot, and the uncalled return
INTO_POT = (0, 1, 2, 8, 9, 10, 16, 17)
RETURN = 11


@dataclass
class BoardPartial:
    """Per feature (5) x pot class (0 small, 1 big): hands, indicator sum, sum of p, sum of
    p (1 - p)."""

    sums: np.ndarray = field(default_factory=lambda: np.zeros((len(FEATURES), 2, 4)))


def _connected_triples() -> np.ndarray:
    """(13, 13, 13) 1 where three distinct ranks lie within a span of 4 (A also below 2)."""
    out = np.zeros((13, 13, 13))
    for a in range(13):
        for b in range(13):
            for c in range(13):
                if len({a, b, c}) < 3:
                    continue
                for vals in ((a, b, c), tuple(-1 if r == 12 else r for r in (a, b, c))):
                    if max(vals) - min(vals) <= 4:
                        out[a, b, c] = 1
    return out


CONNECTED = _connected_triples()


@njit(cache=True)
def _board_kernel(occ, hole, bv, boff, a_street, a_kind, a_added, a_off, bb, big_bb,
                  connected, sums):  # pragma: no cover - compiled
    n, k = occ.shape
    rc = np.zeros(13, np.int64)
    sc = np.zeros(4, np.int64)
    for i in range(n):
        nb = boff[i + 1] - boff[i]
        if nb < 3:
            continue
        seen = np.zeros(52, np.bool_)
        for s in range(k):
            for h in range(2):
                c = hole[i, 2 * s + h]
                if 0 <= c <= 51:
                    seen[c] = True
        pots = np.zeros(3)
        for j in range(a_off[i], a_off[i + 1]):
            st = a_street[j]
            if st > 2:
                continue
            q = a_kind[j]
            amt = 0.0
            for kk in (0, 1, 2, 8, 9, 10, 16, 17):
                if q == kk:
                    amt = a_added[j]
            if q == 11:
                amt = -a_added[j]
            for t in range(st, 3):
                pots[t] += amt  # the pot before the flop (0), turn (1), river (2)
        b = np.zeros(5, np.int64)
        for t in range(nb):
            b[t] = bv[boff[i] + t]
        # the unseen cards before the flop
        for r in range(13):
            rc[r] = 0
        for s_ in range(4):
            sc[s_] = 0
        u = 0
        for c in range(52):
            if not seen[c]:
                rc[c // 4] += 1
                sc[c % 4] += 1
                u += 1
        big = 1 if bb[i] > 0 and pots[0] >= big_bb * bb[i] else 0
        tot = u * (u - 1) * (u - 2) / 6.0
        e3 = 0.0
        conn = 0.0
        for x in range(13):
            for y in range(x + 1, 13):
                for z in range(y + 1, 13):
                    w = rc[x] * rc[y] * rc[z]
                    e3 += w
                    conn += w * connected[x, y, z]
        mono = 0.0
        for s_ in range(4):
            mono += sc[s_] * (sc[s_] - 1) * (sc[s_] - 2) / 6.0
        r0, r1, r2 = b[0] // 4, b[1] // 4, b[2] // 4
        paired = 1.0 if (r0 == r1 or r1 == r2 or r0 == r2) else 0.0
        monotone = 1.0 if (b[0] % 4 == b[1] % 4 and b[1] % 4 == b[2] % 4) else 0.0
        _add(sums, 0, big, paired, 1.0 - e3 / tot)
        _add(sums, 1, big, monotone, mono / tot)
        _add(sums, 2, big, connected[r0, r1, r2], conn / tot)
        if nb < 4:
            continue
        for t in range(3):
            rc[b[t] // 4] -= 1
        u -= 3
        m = 0.0
        for t in range(3):
            if t == 0 or (b[t] // 4 != b[0] // 4 and (t == 1 or b[t] // 4 != b[1] // 4)):
                m += rc[b[t] // 4]
        big = 1 if bb[i] > 0 and pots[1] >= big_bb * bb[i] else 0
        hit = 1.0 if (b[3] // 4 == r0 or b[3] // 4 == r1 or b[3] // 4 == r2) else 0.0
        _add(sums, 3, big, hit, m / u)
        if nb < 5:
            continue
        rc[b[3] // 4] -= 1
        u -= 1
        m = 0.0
        for r in range(13):
            present = False
            for t in range(4):
                if b[t] // 4 == r:
                    present = True
            if present:
                m += rc[r]
        big = 1 if bb[i] > 0 and pots[2] >= big_bb * bb[i] else 0
        hit = 0.0
        for t in range(4):
            if b[4] // 4 == b[t] // 4:
                hit = 1.0
        _add(sums, 4, big, hit, m / u)


@njit(cache=True)
def _add(sums, f, big, x, p):  # pragma: no cover - compiled
    sums[f, big, 0] += 1
    sums[f, big, 1] += x
    sums[f, big, 2] += p
    sums[f, big, 3] += p * (1 - p)


def board_map_arrays(occ: np.ndarray, hole: np.ndarray, board: tuple[np.ndarray, np.ndarray],
                     actions: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
                     big_blind: np.ndarray) -> BoardPartial:
    """``occ`` (n, k), ``hole`` (n, 2k) (-1 unknown), ``board`` (values, offsets), ``actions``
    (street, kind, added, offsets), ``big_blind`` (n,)."""
    p = BoardPartial()
    n = occ.shape[0]
    if n == 0:
        return p
    bv, boff = board
    st, kind, added, off = actions
    _board_kernel(np.ascontiguousarray(occ, np.bool_), np.ascontiguousarray(hole, np.int64),
                  np.asarray(bv, np.int64), np.asarray(boff, np.int64),
                  np.asarray(st, np.int64), np.asarray(kind, np.int64),
                  np.asarray(added, np.float64), np.asarray(off, np.int64),
                  np.asarray(big_blind, np.float64), float(BIG_POT_BB), CONNECTED, p.sums)
    return p


def board_map(b: Any) -> BoardPartial:
    """Map over one ``audits.io.Batch``."""
    if b.n == 0 or "big_blind" not in b.cols:
        return BoardPartial()
    return board_map_arrays(b.seat["occupied"], b.hole, b.var["board"],
                            (b.act["street"], b.act["kind"], b.act["added"], b.act_off),
                            b.cols["big_blind"])


def texture_test(parts: list[BoardPartial]) -> dict[str, Any] | None:
    sums = np.sum([p.sums for p in parts], axis=0) if parts else BoardPartial().sums
    if sums[0, :, 0].sum() < MIN_HANDS:
        return None
    per: dict[str, Any] = {}
    ps = []
    for f, name in enumerate(FEATURES):
        for big in (0, 1):
            n, x, e, v = sums[f, big]
            if n < 1 or v <= 0:
                continue
            z = (x - e) / math.sqrt(v)
            p = float(2 * ss.norm.sf(abs(z)))
            ps.append(p)
            per[f"{name} {'big' if big else 'small'} pots"] = {
                "hands": int(n), "count": int(x), "expected": float(e),
                "variance": float(v), "rate": float(x / n), "expected_rate": float(e / n),
                "z": float(z), "p": p}
    if not ps:
        return None
    worst = min(per, key=lambda t: per[t]["p"])
    return {"statistic": per[worst]["z"], "p": stats.bonferroni_min(ps),
            "details": {"law": "each board card's texture against its exact probability given "
                               "the unseen cards (sums of independent Bernoullis), separately "
                               f"after pots of {BIG_POT_BB} big blinds or more and smaller; "
                               "two-sided z, Bonferroni over the sums",
                        "worst": worst, "by_feature": per}}


NOT_APPLICABLE = {"board_texture": f"not applicable: fewer than {MIN_HANDS} hands that saw a "
                                   "flop"}
