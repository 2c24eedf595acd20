"""Betting legality (exact): the audits' own referee replays every hand's action log.

Rules checked: antes (clockwise from left of the button) and blinds posted as min(due, stack);
order of action (pre-flop from the seat left of the big blind, heads-up the button; post-flop the
first live seat left of the button; the big blind's option; all-in and folded seats skipped); fold
only facing a bet, check only with nothing to call, call = min(amount owed, stack); bets only when
nothing is bet and raises only over a bet; minimum bet (min_bet) and minimum raise (the last full
raise; all-in for less allowed); the reopening rule (a seat that already acted may raise again only
if the bet rose by a full raise since it acted); no raise when nobody else could call it;
pot-limit maximum (pot after the call plus the call); fixed-limit sizes (small_bet pre-flop and
flop, big_bet turn and river; raise-to = last full level + one bet, so incomplete all-ins are
completed) and cap (raise_cap full bets and raises per street, big blind not counted);
``added`` == the change of the street total; the ``folded`` column is the set of seats the
action log folds; the street ends when every active player has acted
and matched; the uncalled part of the top bet is returned; nothing is logged after the hand ends;
the board matches the streets played.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from audits import paths as P
from audits.io import Batch
from audits.result import Partial, partial_from_codes
from audits.spec import AuditSpec

MESSAGES = {
    1: "wrong posting: ante/blind of seat {aux} not min(due, stack) in order",
    2: "out of turn: seat {aux} acted",
    3: "action logged on the wrong street by seat {aux}",
    4: "illegal fold: seat {aux} folded with nothing to call",
    5: "illegal check: seat {aux} checked facing a bet",
    6: "wrong call amount by seat {aux}",
    7: "bet/raise kind mismatch by seat {aux}",
    8: "illegal raise: betting not reopened for seat {aux} after a short all-in",
    9: "illegal raise: fixed-limit cap reached (seat {aux})",
    10: "illegal raise: seat {aux} cannot raise (stack or nobody left to call)",
    11: "bet/raise below the minimum: to {aux}",
    12: "bet/raise above the maximum: to {aux}",
    13: "amount inconsistent: added != change of street total (seat {aux})",
    14: "log ends while seat {aux} must still act",
    15: "uncalled bet return wrong (seat {aux})",
    16: "action logged after the hand ended (seat {aux})",
    17: "board has {aux} cards, not what the streets played dealt",
    18: "unknown action kind {aux}",
    19: "folded column disagrees with the action log for seat {aux}",
}

ACTIVE, ALL_IN, FOLDED = 1, 2, 3


@njit(cache=True, _nrt=False)
def _needs(status, acted, bet, s, cur, n_active):
    if status[s] != ACTIVE or acted[s] == cur:
        return False
    if n_active == 1 and bet[s] >= cur:
        return False
    return True


@njit(cache=True, _nrt=False)
def _next(status, acted, bet, after, cur, n_active, k):
    s = after
    for _ in range(k):
        s = s + 1 if s + 1 < k else 0
        if _needs(status, acted, bet, s, cur, n_active):
            return s
    return -1


@njit(cache=True, _nrt=False)
def _referee(start, occ, button, sbs, bbs, sb_amt, bb_amt, ante, ante_mode, trim, structure,
             min_bet, small_bet, big_bet, raise_cap, board_len, a_street, a_seat, a_kind, a_tot,
             a_add, act_off, folded, work, codes, aux, paths):
    # compiled without NRT (no reference counting of the arrays in the hot loop): it may not
    # allocate, so its per-seat state lives in the caller's ``work`` (7, k) array. ``paths[i]``
    # gets the rule paths (audits.paths bits) the hand took, as the referee saw them.
    n, k = occ.shape
    status = work[0]
    stack = work[1]
    bet = work[2]
    acted = work[3]
    contrib = work[4]
    antep = work[5]
    acted_full = work[6]  # full raises of the street when the seat last acted
    for i in range(n):
        code = 0
        ax = 0
        flags = 0
        n_active = 0
        n_live = 0
        for s in range(k):
            stack[s] = start[i, s]
            bet[s] = 0
            acted[s] = -1
            contrib[s] = 0
            antep[s] = 0
            status[s] = ACTIVE if (occ[i, s] and start[i, s] > 0) else 0
            if status[s] == ACTIVE:
                n_active += 1
                n_live += 1
        j = act_off[i]
        end = act_off[i + 1]
        fl = structure[i] == 2
        pl = structure[i] == 1
        # antes, clockwise from the seat left of the button
        s = button[i]
        for _ in range(k):
            s = s + 1 if s + 1 < k else 0
            due = 0
            if ante_mode[i] == 1 or (ante_mode[i] == 2 and s == bbs[i]):
                due = ante[i]
            if status[s] == ACTIVE and due > 0:
                amt = min(due, stack[s])
                if (j >= end or a_kind[j] != 0 or a_seat[j] != s or a_add[j] != amt
                        or a_street[j] != 0):
                    code, ax = 1, s
                    break
                j += 1
                stack[s] -= amt
                contrib[s] += amt
                antep[s] += amt
                flags |= 1 << P.ANTE
                if stack[s] == 0:
                    status[s] = ALL_IN
                    n_active -= 1
                    flags |= (1 << P.ANTE_ALL_IN) | (1 << P.ALL_IN)
        # blinds
        for which in range(2):
            if code:
                break
            s = sbs[i] if which == 0 else bbs[i]
            due = sb_amt[i] if which == 0 else bb_amt[i]
            if s >= 0 and status[s] == ACTIVE:
                amt = min(due, stack[s])
                if (j >= end or a_kind[j] != 1 + which or a_seat[j] != s or a_add[j] != amt
                        or a_tot[j] != amt or a_street[j] != 0):
                    code, ax = 1, s
                    break
                j += 1
                stack[s] -= amt
                bet[s] += amt
                contrib[s] += amt
                if amt < due:
                    flags |= 1 << P.SHORT_BLIND
                if stack[s] == 0:
                    status[s] = ALL_IN
                    n_active -= 1
                    flags |= 1 << P.ALL_IN
        if code:
            codes[i] = code
            aux[i] = ax
            paths[i] = flags
            continue
        street = 0
        cur = 0
        for s in range(k):
            cur = max(cur, bet[s])
        full_level = cur
        full_raise = small_bet[i] if fl else min_bet[i]
        n_raises = 0
        voluntary = False  # a call, bet or raise pre-flop (no walk then)
        raised = False  # a bet or raise pre-flop (the big blind's option is gone)
        for s in range(k):
            acted_full[s] = 0
        to_act = _next(status, acted, bet, bbs[i] if bbs[i] >= 0 else button[i], cur, n_active, k)
        closing = to_act < 0 or n_live <= 1
        done = False
        while not done and code == 0:
            if closing:
                # return the uncalled part of the top bet
                top = -1
                first = -1
                second = 0
                for s in range(k):
                    c = contrib[s] - (0 if trim[i] else antep[s])
                    if c > top:
                        second = max(second, top)
                        top = c
                        first = s
                    elif c > second:
                        second = c
                if first >= 0:
                    excess = min(top - second, bet[first])
                    if excess > 0:
                        if (j >= end or a_kind[j] != 11 or a_seat[j] != first
                                or a_add[j] != excess):
                            code, ax = 15, first
                            break
                        j += 1
                        flags |= 1 << P.UNCALLED_RETURN
                        stack[first] += excess
                        bet[first] -= excess
                        contrib[first] -= excess
                        if status[first] == ALL_IN:
                            status[first] = ACTIVE
                            n_active += 1
                for s in range(k):
                    bet[s] = 0
                    acted[s] = -1
                    acted_full[s] = 0
                if n_live <= 1 and street == 0 and not voluntary and bbs[i] >= 0 and (
                        status[bbs[i]] == ACTIVE or status[bbs[i]] == ALL_IN):
                    flags |= 1 << P.WALK
                if n_live <= 1 or street == 3:
                    done = True
                    break
                street += 1
                cur = 0
                full_level = 0
                full_raise = (small_bet[i] if street == 1 else big_bet[i]) if fl else min_bet[i]
                n_raises = 0
                to_act = _next(status, acted, bet, button[i], cur, n_active, k)
                closing = to_act < 0
                continue
            s = to_act
            if j >= end:
                code, ax = 14, s
                break
            kd = a_kind[j]
            if a_seat[j] != s:
                code, ax = 2, a_seat[j]
                break
            if a_street[j] != street:
                code, ax = 3, s
                break
            to_call = cur - bet[s]
            size = (small_bet[i] if street <= 1 else big_bet[i]) if fl else 0
            if acted[s] >= 0 and cur > acted[s]:
                # the bet rose since this seat acted: by less than a full raise (a short
                # all-in: no re-raise), or by short all-ins adding up to one (reopened)
                if cur - acted[s] < full_raise:
                    flags |= 1 << P.SHORT_NOT_REOPENED
                elif n_raises == acted_full[s]:
                    flags |= 1 << P.SHORTS_REOPENED
            if kd == 6:
                if to_call <= 0:
                    code, ax = 4, s
                elif a_add[j] != 0 or a_tot[j] != bet[s]:
                    code, ax = 13, s
                else:
                    status[s] = FOLDED
                    n_active -= 1
                    n_live -= 1
            elif kd == 7:
                if to_call != 0:
                    code, ax = 5, s
                elif a_add[j] != 0 or a_tot[j] != bet[s]:
                    code, ax = 13, s
                else:
                    acted[s] = cur
                    acted_full[s] = n_raises
            elif kd == 8:
                amt = min(to_call, stack[s])
                if to_call <= 0 or a_add[j] != amt:
                    code, ax = 6, s
                elif a_tot[j] != bet[s] + amt:
                    code, ax = 13, s
                else:
                    stack[s] -= amt
                    bet[s] += amt
                    contrib[s] += amt
                    if stack[s] == 0:
                        status[s] = ALL_IN
                        n_active -= 1
                        flags |= 1 << P.ALL_IN
                    acted[s] = cur
                    acted_full[s] = n_raises
                    if street == 0:
                        voluntary = True
            elif kd == 9 or kd == 10:
                amount = a_tot[j]
                if (kd == 9) != (cur == 0):
                    code, ax = 7, s
                elif a_add[j] != amount - bet[s]:
                    code, ax = 13, s
                elif fl and n_raises >= raise_cap[i]:
                    code, ax = 9, s
                elif acted[s] >= 0 and cur - acted[s] < full_raise:
                    code, ax = 8, s
                else:
                    other = False
                    for t in range(k):
                        if t != s and status[t] == ACTIVE and stack[t] + bet[t] > cur:
                            other = True
                    if stack[s] <= to_call or not other:
                        code, ax = 10, s
                if code:
                    break
                all_in_to = bet[s] + stack[s]
                if fl:
                    lo = full_level + size
                    hi = lo
                else:
                    lo = cur + full_raise
                    if pl:
                        pot = 0
                        for t in range(k):
                            pot += contrib[t]
                        hi = max(cur + pot + to_call, lo)
                    else:
                        hi = all_in_to
                if amount < min(lo, all_in_to):
                    code, ax = 11, amount
                elif amount > min(hi, all_in_to):
                    code, ax = 12, amount
                else:
                    if street == 0:
                        if s == bbs[i] and not raised:
                            flags |= 1 << P.BB_OPTION_RAISE
                        voluntary = True
                        raised = True
                    if not fl and kd == 10 and amount == lo and amount < all_in_to:
                        flags |= 1 << P.MIN_RAISE
                    if pl and amount == hi and hi < all_in_to:
                        flags |= 1 << P.PL_MAX
                    if fl and cur > full_level and amount == lo:
                        flags |= 1 << P.FL_COMPLETED
                    added = amount - bet[s]
                    increment = amount - cur
                    stack[s] -= added
                    bet[s] += added
                    contrib[s] += added
                    if stack[s] == 0:
                        status[s] = ALL_IN
                        n_active -= 1
                        flags |= 1 << P.ALL_IN
                    full = amount >= full_level + size if fl else increment >= full_raise
                    if full:
                        if not fl:
                            full_raise = increment
                        full_level = amount
                        n_raises += 1
                        if fl and n_raises >= raise_cap[i]:
                            flags |= 1 << P.FL_CAP
                    cur = amount
                    acted[s] = amount
                    acted_full[s] = n_raises
            else:
                code, ax = 18, kd
            if code:
                break
            j += 1
            if n_live <= 1:
                closing = True
            else:
                to_act = _next(status, acted, bet, s, cur, n_active, k)
                closing = to_act < 0
        if code == 0:
            while j < end:
                if a_kind[j] != 11:
                    code, ax = 16, a_seat[j]
                    break
                j += 1
        if code == 0:
            exp = 0 if street == 0 else street + 2
            if board_len[i] != exp:
                code, ax = 17, board_len[i]
        if code == 0:
            # a seat folded exactly when the action log folds it (never an empty seat)
            for s in range(k):
                if (status[s] == FOLDED) != folded[i, s]:
                    code, ax = 19, s
                    break
        codes[i] = code
        aux[i] = ax
        paths[i] = flags


def _structure_codes(b: Batch) -> np.ndarray:
    """0 no-limit, 1 pot-limit, 2 fixed-limit per row (from the dictionary, not per row)."""
    values = b.cols["structure_values"]
    per_value = np.array([1 if v == "pot-limit" else 2 if v == "fixed-limit" else 0
                          for v in values], np.int64)
    return per_value[b.cols["structure"]] if len(values) else np.zeros(b.n, np.int64)


def betting_map(b: Batch) -> Partial:
    codes = np.zeros(b.n, np.int32)
    aux = np.zeros(b.n, np.int64)
    paths = np.zeros(b.n, np.int64)
    sc = b.seat
    _, doff = b.var["board"]
    c = b.cols
    _referee(sc["stacks_start"], sc["occupied"], c["button"], c["sb_seat"], c["bb_seat"],
             c["small_blind"], c["big_blind"], c["ante"], c["ante_mode"], c["ante_trimming"],
             _structure_codes(b), c["min_bet"], c["small_bet"], c["big_bet"], c["raise_cap"],
             np.diff(doff), b.act["street"], b.act["seat"], b.act["kind"],
             b.act["to_street_total"], b.act["added"], b.act_off, sc["folded"],
             np.zeros((7, b.k), np.int64), codes, aux, paths)
    b.derived["betting_paths"] = paths  # the rule paths taken, for the coverage map
    return partial_from_codes(b.cols["hand_id"], codes, aux, MESSAGES)


SPEC = AuditSpec("betting", betting_map, description=(
    "from the starting stacks and the config: every action replayed by the audits' referee "
    "(order, sizes, reopening, caps, returns); folded = the seats the log folds"))
