"""Blind rotation (exact).

Cash (moving button): the button moves to the next occupied seat; small and big blind are the two
occupied seats left of the button (heads-up: the button posts the small blind); an imported hand
(generator ``phh``) may have a dead small blind: no small blind, the big blind the first occupied
seat left of the button (sites' "one blind only" hands). Posts after the blinds (POST,
DEAD_BLIND, STRADDLE) are forced bets, not the first action. A STRADDLE comes from the first
occupied seat left of the big blind, in a hand of 3 or more players, and pre-flop action then
starts left of the straddler.
Tournament (dead button): the big blind advances to the next live player every hand; the small
blind is the previous hand's big blind seat (-1 when that player is out); the button is the
previous hand's small blind position;
First to act (from the actions): pre-flop the first seat left of the big blind with chips
(heads-up that is the button; with a straddle, left of the straddler); post-flop the first
live seat with chips left of the button.
heads-up the button posts the small blind and the other player the big blind.
Imported hands (generator ``phh``), across two adjacent hands h -> i of a session:
- the button may also STAY on its seat when the seat it would move to, h's small blind, is
  empty in i (the small blind left the table: the blinds advance, the button waits; every
  such case in the real exports of ../shared/realhands is this one);
- a POST or DEAD_BLIND (a returning or new player's post) comes only from a seat that was
  empty in h or held another player in h (player ids), or whose turn as big blind was
  skipped: the big blind moved from h's big blind seat to i's past it (the seat lies strictly
  between them clockwise). A player who played h and missed no blind has nothing to post: the
  post is invented money (code 11).
Fairness per table: nobody posts the big blind twice in a row (cash: while nobody joins or leaves;
a player sitting down between the button and the big blind legitimately shifts the blinds under a
moving button), and while the table's players stay the same, the big blind visits every player
exactly once per orbit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from audits.io import (
    ANTE,
    BIG_BLIND,
    DEAD_BLIND,
    FOLD,
    LEAVE,
    POST,
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
    1: "blinds misplaced: small blind is seat {logged}, the rules give seat {expected} (the "
       "first occupied seat left of button {aux}; heads-up the button)",
    2: "blinds misplaced: tournament blind seat {logged} is empty or holds both blinds (button "
       "{aux}), the rules give each blind an occupied seat of its own",
    3: "button did not move to the next occupied seat: button is seat {logged}, the rules give "
       "seat {expected}",
    4: "big blind did not advance to the next live player: big blind is seat {logged}, the rules "
       "give seat {expected}",
    5: "small blind is not the previous big blind seat: small blind is seat {logged}, the rules "
       "give seat {expected} (-1: none)",
    6: "button is not the previous small blind position: button is seat {logged}, the rules give "
       "seat {expected}",
    7: "big blind posted twice in a row by seat {aux}: big blind is seat {logged}, the rules give "
       "seat {expected}",
    8: "big blind posted twice within one orbit by seat {aux}: again after {logged} hands, the "
       "rules give {expected} (one orbit of the players seated)",
    9: "wrong first actor pre-flop: seat {logged} acted first, the rules give seat {expected} "
       "(-1: nobody)",
    10: "wrong first actor post-flop: seat {logged} acted first on the {street}, the rules give "
        "seat {expected} (-1: nobody)",
    11: "a post (dead or live blind) of {logged} by seat {aux}, who played the previous hand and "
        "missed no big blind: the rules give {expected}",
    12: "blinds misplaced: big blind is seat {logged}, the rules give seat {expected} (the first "
        "occupied seat left of the small blind, button {aux})",
    13: "button misplaced: button is seat {logged}, the rules give an occupied seat 0..{expected}",
    14: "blinds misplaced: a blind is seat {logged}, the rules give a seat 0..{expected} or -1 "
        "for a dead small blind (button {aux})",
    15: "blinds misplaced: heads-up tournament button is seat {logged}, the rules give the small "
        "blind's seat {expected}",
    16: "straddle misplaced: seat {logged} straddled, the rules give seat {expected} (the first "
        "occupied seat left of big blind {aux}, posting no blind, in a hand of 3 or more "
        "players; -1: no straddle)",
}


@njit(cache=True)
def _next_occ(occ, i, s, k):
    for _ in range(k):
        s = s + 1 if s + 1 < k else 0
        if occ[i, s]:
            return s
    return -1


@njit(cache=True)
def _between(a, x, b, k):
    """Seat x lies strictly between seats a and b going clockwise (a == b: none)."""
    da = (x - a) % k
    db = (b - a) % k
    return 0 < da < db


@njit(cache=True)
def _rotation_kernel(occ, pid, start, button, sb, bb, table, hand_no, order, tourn, imported,
                     a_street, a_seat, a_kind, a_add, act_off, codes, aux, logged, expected,
                     streets):
    # logged / expected: what the log says and what the rules give, written for failing hands
    n, k = occ.shape
    remaining = np.zeros(k, np.int64)
    folded = np.zeros(k, np.bool_)
    for i in range(n):
        m = 0
        for s in range(k):
            if occ[i, s]:
                m += 1
        b, s_, g = button[i], sb[i], bb[i]
        if b < 0 or b >= k or not occ[i, b] and not tourn[i]:
            codes[i], aux[i], logged[i], expected[i] = 13, b, b, k - 1
            continue
        if g < 0 or g >= k or s_ >= k or s_ < -1:
            codes[i], aux[i], expected[i] = 14, b, k - 1
            logged[i] = g if g < 0 or g >= k else s_
            continue
        if not tourn[i]:
            if m == 2:
                want_sb = b
            elif s_ < 0 and imported[i]:  # one blind only: the small blind dead
                want_sb = s_
            else:
                want_sb = _next_occ(occ, i, b, k)
            want_bb = _next_occ(occ, i, b if want_sb < 0 else want_sb, k)
            if s_ != want_sb:
                codes[i], aux[i], logged[i], expected[i] = 1, b, s_, want_sb
                continue
            if g != want_bb:
                codes[i], aux[i], logged[i], expected[i] = 12, b, g, want_bb
                continue
        else:
            if not occ[i, g] or s_ == g:
                codes[i], aux[i], logged[i] = 2, b, g
                continue
            if s_ >= 0 and not occ[i, s_]:
                codes[i], aux[i], logged[i] = 2, b, s_
                continue
            if m == 2 and (s_ < 0 or b != s_):
                codes[i], aux[i], logged[i], expected[i] = 15, b, b, s_
                continue
        # first actors
        for s in range(k):
            remaining[s] = start[i, s]
            folded[s] = False
        street = -1
        opener = g  # pre-flop action starts left of it: the big blind, or the straddler
        for j in range(act_off[i], act_off[i + 1]):
            kd = a_kind[j]
            st = a_seat[j]
            if kd == STRADDLE:
                want = _next_occ(occ, i, g, k) if m >= 3 else -1
                if want == s_ or want == g:
                    want = -1
                if st != want or opener != g or street != -1:
                    codes[i], aux[i], logged[i], expected[i] = 16, g, st, want
                    break
                opener = st
                remaining[st] -= a_add[j]
                continue
            if (kd == ANTE or kd == SMALL_BLIND or kd == BIG_BLIND or kd == POST
                    or kd == DEAD_BLIND):
                remaining[st] -= a_add[j]
                continue
            if kd == RETURN:
                remaining[st] += a_add[j]
                continue
            if kd == LEAVE:  # at anyone's turn: not an action of the order of play
                if 0 <= st < k:
                    folded[st] = True
                continue
            if a_street[j] != street:
                street = a_street[j]
                frm = opener if street == 0 else b
                exp = -1
                t = frm
                for _ in range(k):
                    t = t + 1 if t + 1 < k else 0
                    if occ[i, t] and not folded[t] and remaining[t] > 0:
                        exp = t
                        break
                if st != exp:
                    codes[i] = 9 if street == 0 else 10
                    aux[i] = st
                    logged[i], expected[i], streets[i] = st, exp, street
                    break
            if kd == FOLD:
                folded[st] = True
            else:
                remaining[st] -= a_add[j]
    # across hands
    seg_start = 0
    sbpos_prev = -1
    for p in range(n):
        i = order[p]
        if p == 0 or table[order[p - 1]] != table[i] or hand_no[order[p - 1]] + 1 != hand_no[i]:
            seg_start = p
            sbpos_prev = sb[i]
            continue
        h = order[p - 1]
        c = 0
        a = 0
        lg = 0
        ex = 0
        m = 0
        same = True
        for s in range(k):
            if occ[i, s]:
                m += 1
            if occ[i, s] != occ[h, s]:
                same = False
        if not tourn[i]:
            if button[i] != _next_occ(occ, i, button[h], k):
                # imported: the small blind left, the button stays (module docstring)
                kept = (imported[i] and button[i] == button[h] and sb[h] >= 0
                        and sb[h] != button[h] and not occ[i, sb[h]])
                if not kept:
                    c, a = 3, button[i]
                    lg, ex = button[i], _next_occ(occ, i, button[h], k)
        else:
            exp_sb = bb[h] if occ[i, bb[h]] else -1
            if bb[i] != _next_occ(occ, i, bb[h], k):
                c, a = 4, bb[i]
                lg, ex = bb[i], _next_occ(occ, i, bb[h], k)
            elif m > 2 and sb[i] != exp_sb:
                c, a = 5, sb[i]
                lg, ex = sb[i], exp_sb
            elif m > 2 and sbpos_prev >= 0 and button[i] != sbpos_prev:
                c, a = 6, button[i]
                lg, ex = button[i], sbpos_prev
        if c == 0 and bb[i] == bb[h] and (tourn[i] or same):
            c, a = 7, bb[i]
            lg, ex = bb[i], _next_occ(occ, i, bb[h], k)
        if not same:
            seg_start = p
        if c == 0:
            for q in range(max(seg_start, p - m + 1), p):
                if bb[order[q]] == bb[i]:
                    c, a = 8, bb[i]
                    lg, ex = p - q, m
                    break
        if c == 0 and imported[i]:
            for j in range(act_off[i], act_off[i + 1]):
                kd = a_kind[j]
                if kd == POST or kd == DEAD_BLIND:
                    st = a_seat[j]
                    # the seat's player sat in h too (a new player taking a seat that another
                    # left posts his entry blind: PokerStars 212113583449, GIE0RGE on seat 4)
                    if 0 <= st < k and occ[h, st] and pid[h, st] == pid[i, st] and \
                            not _between(bb[h], st, bb[i], k):
                        c, a = 11, st
                        lg, ex = a_add[j], 0
                        break
        if c and codes[i] == 0:
            codes[i] = c
            aux[i] = a
            logged[i], expected[i] = lg, ex
        sbpos_prev = sb[i] if sb[i] >= 0 else bb[h]


def rotation_map(b: Batch) -> Partial:
    codes = np.zeros(b.n, np.int32)
    aux = np.zeros(b.n, np.int64)
    logged = np.zeros(b.n, np.int64)
    expected = np.zeros(b.n, np.int64)
    streets = np.zeros(b.n, np.int64)
    sc = b.seat
    # an imported tournament table (generator phh) is judged by the imported rules: the site
    # moves players between its tables, which one table's record does not show
    imported = string_is(b, "generator", "phh")
    tourn = string_is(b, "format", "tournament") & ~imported
    # the seats' players (absent: every seat's player the same hand to hand, as before ids)
    pid = sc.get("player_ids")
    pid = np.zeros(sc["occupied"].shape, np.int64) if pid is None else pid.astype(np.int64)
    _rotation_kernel(sc["occupied"], pid, sc["stacks_start"], b.cols["button"].astype(np.int64),
                     b.cols["sb_seat"].astype(np.int64), b.cols["bb_seat"].astype(np.int64),
                     b.cols["table_id"], b.cols["hand_no"].astype(np.int64), table_order(b),
                     tourn, imported, b.act["street"], b.act["seat"],
                     b.act["kind"], b.act["added"], b.act_off, codes, aux, logged, expected,
                     streets)
    part = partial_from_codes(b.cols["hand_id"], codes, aux, MESSAGES, logged=logged,
                              expected=expected, values={"street": streets})
    part.sample = rotation_sample(b)
    return part


SAMPLE_HANDS = 40


def rotation_sample(b: Batch) -> list[dict[str, Any]]:
    """The positions of the first hands of the batch's first table (the report's timeline)."""
    if b.n == 0:
        return []
    order = table_order(b)
    first_table = b.cols["table_id"][order[0]]
    out = []
    for i in order[:SAMPLE_HANDS]:
        if b.cols["table_id"][i] != first_table:
            break
        out.append({"table_id": int(first_table), "hand_no": int(b.cols["hand_no"][i]),
                    "button": int(b.cols["button"][i]), "sb": int(b.cols["sb_seat"][i]),
                    "bb": int(b.cols["bb_seat"][i]),
                    "occupied": [bool(x) for x in b.seat["occupied"][i]]})
    return out


SPEC = AuditSpec("rotation", rotation_map, description=(
    "from the seats occupied and the previous hand: button, blinds (moving or dead button, "
    "heads-up), first to act, the big blind once per orbit"))
