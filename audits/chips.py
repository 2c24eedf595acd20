"""Chip conservation (exact).

Per hand: sum(stacks_start) == sum(stacks_end) + rake; per seat stacks_end == stacks_start -
contributed + won; contributed == the seat's logged ante/blind/post/bet/call ``added`` minus its
RETURN_UNCALLED ``added``; returned == its logged returns; no negative amounts; empty seats hold and
move nothing. Across consecutive hands of a table (same table_id, hand_no + 1): a seat occupied in
both starts with the previous end plus rebuys; a newly occupied seat starts with its rebuys; in a
tournament a seat that empties had 0 chips (simulated runs: an imported tournament's site moves
players between its tables with their chips, which one table's record does not show). Per table:
chips in (rebuys) == chips out (rake, final stacks, stacks of players who left). In an imported run
(its files carry the import columns) a seat's ``rebuys`` may be negative: it is what the record's
next hand shows the operator took between the hands (rake, a fee, a wrong payout); the carry-over
still holds exactly, and whether that take was allowed is the ``outcome`` audit's verdict."""

from __future__ import annotations

import numpy as np
from numba import njit

from audits.io import (
    ANTE,
    BET,
    BIG_BLIND,
    CALL,
    DEAD_BLIND,
    POST,
    RAISE,
    RETURN,
    SMALL_BLIND,
    STRADDLE,
    Batch,
    string_is,
    table_order,
)
from audits.result import Partial, partial_from_codes
from audits.spec import AuditSpec

MESSAGES = {
    1: "chips not conserved: sum(stacks_end) + rake is {logged}, sum(stacks_start) {expected}",
    2: "stack mismatch: seat {aux} ended with {logged}, the rules give {expected} "
       "(stacks_start - contributed + won)",
    3: "contribution mismatch: seat {aux} contributed {logged}, the rules give {expected} (its "
       "logged chips in minus returns)",
    4: "return mismatch: seat {aux} returned {logged}, the rules give {expected} (its logged "
       "uncalled returns)",
    5: "negative chips: seat {aux} has {logged} in a chip column, the rules give at least "
       "{expected}",
    6: "empty seat holds chips: seat {aux} has {logged} in a chip column, the rules give "
       "{expected}",
    7: "carry-over mismatch: seat {aux} started with {logged}, the rules give {expected} "
       "(previous stacks_end + rebuys)",
    8: "new player mismatch: seat {aux} started with {logged}, the rules give {expected} "
       "(its rebuys)",
    9: "tournament player left with chips: seat {aux} left with {logged}, the rules give "
       "{expected} (a tournament player leaves when out of chips)",
    10: "table session does not balance: chips in exceed chips out by {logged}, the rules give "
        "{expected}",
    11: "hand_no sequence broken at table: hand_no {logged}, the rules give {expected}",
}


@njit(cache=True)
def _chips_kernel(occ, start, rebuys, end, contrib, returned, won, rake, a_seat, a_kind, a_add,
                  act_off, table, hand_no, order, tourn, imported, codes, aux):
    n, k = occ.shape
    put = np.zeros(k, np.int64)
    ret = np.zeros(k, np.int64)
    for i in range(n):
        s_start = 0
        s_end = 0
        for s in range(k):
            s_start += start[i, s]
            s_end += end[i, s]
        put[:] = 0
        ret[:] = 0
        for j in range(act_off[i], act_off[i + 1]):
            kd = a_kind[j]
            st = a_seat[j]
            if st < 0 or st >= k:
                continue
            if (kd == ANTE or kd == SMALL_BLIND or kd == BIG_BLIND or kd == POST
                    or kd == DEAD_BLIND or kd == CALL or kd == BET or kd == RAISE
                    or kd == STRADDLE):
                put[st] += a_add[j]
            elif kd == RETURN:
                ret[st] += a_add[j]
        c = 0
        for s in range(k):
            if (start[i, s] < 0 or end[i, s] < 0 or contrib[i, s] < 0 or won[i, s] < 0
                    or (rebuys[i, s] < 0 and not imported) or returned[i, s] < 0):
                c = 5
            elif not occ[i, s] and (start[i, s] != 0 or end[i, s] != 0 or contrib[i, s] != 0
                                    or won[i, s] != 0 or put[s] != 0):
                c = 6
            elif end[i, s] != start[i, s] - contrib[i, s] + won[i, s]:
                c = 2
            elif contrib[i, s] != put[s] - ret[s]:
                c = 3
            elif returned[i, s] != ret[s]:
                c = 4
            if c:
                aux[i] = s
                break
        if c == 0 and (s_start != s_end + rake[i] or rake[i] < 0):
            c = 1
        codes[i] = c
    # across hands, in (table, hand_no) order
    chips_in = 0
    chips_out = 0
    for p in range(n):
        i = order[p]
        first = p == 0 or table[order[p - 1]] != table[i]
        if first:
            chips_in = 0
            chips_out = 0
            for s in range(k):
                if occ[i, s] and start[i, s] != rebuys[i, s] and codes[i] == 0:
                    codes[i] = 8
                    aux[i] = s
        else:
            h = order[p - 1]
            if hand_no[i] != hand_no[h] + 1 and codes[i] == 0:
                codes[i] = 11
                aux[i] = hand_no[h] + 1
            for s in range(k):
                c = 0
                if occ[i, s] and occ[h, s]:
                    if start[i, s] != end[h, s] + rebuys[i, s]:
                        c = 7
                elif occ[i, s]:
                    if start[i, s] != rebuys[i, s]:
                        c = 8
                elif occ[h, s]:
                    chips_out += end[h, s]
                    if tourn[i] and not imported and end[h, s] != 0:
                        c = 9
                if c and codes[i] == 0:
                    codes[i] = c
                    aux[i] = s
        for s in range(k):
            chips_in += rebuys[i, s]
        chips_out += rake[i]
        last = p == n - 1 or table[order[p + 1]] != table[i]
        if last:
            for s in range(k):
                if occ[i, s]:
                    chips_out += end[i, s]
            if chips_in != chips_out and codes[i] == 0:
                codes[i] = 10
                aux[i] = chips_in - chips_out


def _amounts(codes: np.ndarray, aux: np.ndarray, b: Batch) -> tuple[np.ndarray, np.ndarray]:
    """What the log says and what the rules give for the failing hands (computed for those
    hands only, after the kernel)."""
    sc, rake = b.seat, b.cols["rake"]
    logged = np.zeros(len(codes), np.int64)
    expected = np.zeros(len(codes), np.int64)
    fields = ("stacks_start", "stacks_end", "contributed", "won", "rebuys", "returned")
    prev = _previous_rows(b) if ((codes == 7) | (codes == 9)).any() else None
    for r in np.flatnonzero((codes >= 3) & (codes <= 7) | (codes == 9)):
        c, s = int(codes[r]), int(aux[r])
        if c in (3, 4):  # the seat's chips in and returns, from its action records
            put = ret = 0
            for j in range(b.act_off[r], b.act_off[r + 1]):
                if b.act["seat"][j] == s and b.act["kind"][j] in PUTS:
                    put += int(b.act["added"][j])
                elif b.act["seat"][j] == s and b.act["kind"][j] == RETURN:
                    ret += int(b.act["added"][j])
            logged[r] = sc["contributed" if c == 3 else "returned"][r, s]
            expected[r] = put - ret if c == 3 else ret
        elif c == 5:
            logged[r] = min(int(sc[f][r, s]) for f in fields)
        elif c == 6:
            logged[r] = max((int(sc[f][r, s]) for f in fields if f != "rebuys"), key=abs)
        else:  # 7 and 9: against the table's previous hand
            assert prev is not None
            h = int(prev[r])
            logged[r] = sc["stacks_start"][r, s] if c == 7 else sc["stacks_end"][h, s]
            expected[r] = sc["stacks_end"][h, s] + sc["rebuys"][r, s] if c == 7 else 0
    for c in (10, 11):
        i = np.flatnonzero(codes == c)
        logged[i] = aux[i] if c == 10 else b.cols["hand_no"][i]
        expected[i] = 0 if c == 10 else aux[i]
    i = np.flatnonzero(codes == 1)
    logged[i] = sc["stacks_end"][i].sum(axis=1) + rake[i]
    expected[i] = sc["stacks_start"][i].sum(axis=1)
    for code, log_col, rule in ((2, "stacks_end", lambda i, s: sc["stacks_start"][i, s]
                                 - sc["contributed"][i, s] + sc["won"][i, s]),
                                (8, "stacks_start", lambda i, s: sc["rebuys"][i, s])):
        i = np.flatnonzero(codes == code)
        seat = aux[i]
        logged[i] = sc[log_col][i, seat]
        expected[i] = rule(i, seat)
    return logged, expected


PUTS = (ANTE, SMALL_BLIND, BIG_BLIND, POST, DEAD_BLIND, CALL, BET, RAISE, STRADDLE)


def _previous_rows(b: Batch) -> np.ndarray:
    """Per row, the row of the hand played before it at its table (table, hand_no order)."""
    order = table_order(b)
    prev = np.empty(b.n, np.int64)
    prev[order[1:]] = order[:-1]
    if b.n:
        prev[order[0]] = -1
    return prev


def chips_map(b: Batch) -> Partial:
    codes = np.zeros(b.n, np.int32)
    aux = np.zeros(b.n, np.int64)
    sc = b.seat
    tourn = string_is(b, "format", "tournament")
    _chips_kernel(sc["occupied"], sc["stacks_start"], sc["rebuys"], sc["stacks_end"],
                  sc["contributed"], sc["returned"], sc["won"], b.cols["rake"], b.act["seat"],
                  b.act["kind"], b.act["added"], b.act_off, b.cols["table_id"],
                  b.cols["hand_no"].astype(np.int64), table_order(b), tourn, bool(b.imp), codes,
                  aux)
    logged, expected = _amounts(codes, aux, b)
    part = partial_from_codes(b.cols["hand_id"], codes, aux, MESSAGES, logged=logged,
                              expected=expected)
    # conservation totals for the report: every chip put in a pot was won, raked or returned
    put, won, rake = int(sc["contributed"].sum()), int(sc["won"].sum()), int(b.cols["rake"].sum())
    part.totals = {"chips_brought_to_tables": int(sc["rebuys"].sum()),
                   "chips_put_in_pots": put, "chips_won": won, "rake": rake,
                   "uncalled_returned": int(sc["returned"].sum()),
                   "pots_minus_won_minus_rake": put - won - rake}
    return part


SPEC = AuditSpec("chips", chips_map, description=(
    "from the starting stacks and the action log: contributed and returned per seat, stacks_end "
    "= start - contributed + won, chips conserved per hand, carried from hand to hand and per "
    "table"))
