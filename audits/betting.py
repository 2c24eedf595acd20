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
a straddle (a cash game's, docs/game.md) right after the blinds: one, by the first seat with chips
left of the big blind in a hand of 3 or more players, live (on the street), more than the big
blind or all the seat's chips; pre-flop action then starts left of the straddler, who acts last
with the option; the minimum raise over it is the game's ``straddle_raise`` (docs/game.md):
"straddle" (the default: a full straddle makes the straddler the bigger blind, a pre-flop raise
adds at least the game's straddle; in fixed-limit it is the street's first raise of the capped
count; a short, all-in straddle is no full raise and the increment stays min_bet) or
"big_blind" (min_bet over it, as PokerKit; imported hands, which the PHH standard reads so);
its amount against the game's: the stakes audit;
posts of replayed histories after the blinds (live posts, then dead ones, each clockwise from
the seat left of the button, by a seat with chips that posted no blind): a live post is
min(big blind, stack), on the street (the seat keeps its option); a dead post is dead money (off
the street, never toward a call; with ante trimming off only), less than a big blind, or at most
one beside the seat's live post; an imported hand (generator ``phh``) may fold when checking is
free (sites allow it; the simulator never does);
a LEAVE (a player who left or lost his connection, at anyone's turn, a seat still in the hand)
makes its hand dead (folded), is followed at once by the RETURN of the part of its bet no other
contribution covers (when there is one), after which the bet to call is the highest bet left
standing (the street's full raise and raise count stay) and the turn passes on if the seat to
act has nothing left to do;
``added`` == the change of the street total; the ``folded`` column is the set of seats the
action log folds; the street ends when every active player has acted
and matched; the uncalled part of the top bet is returned; nothing is logged after the hand ends;
the board matches the streets played.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from audits import paths as P
from audits.io import (
    ANTE,
    BET,
    CALL,
    CHECK,
    DEAD_BLIND,
    FOLD,
    LEAVE,
    POST,
    RAISE,
    RETURN,
    SMALL_BLIND,
    STRADDLE,
    Batch,
    string_is,
)
from audits.result import Partial, partial_from_codes
from audits.spec import AuditSpec

# violation codes (0: none), each with its message in MESSAGES
OK = 0
V_POSTING = 1  # an ante or blind not min(due, stack), or out of order
V_OUT_OF_TURN = 2  # a seat acted out of turn
V_WRONG_STREET = 3  # an action logged on the wrong street
V_ILLEGAL_FOLD = 4  # a fold with nothing to call
V_ILLEGAL_CHECK = 5  # a check facing a bet
V_CALL_AMOUNT = 6  # a call of the wrong amount
V_KIND_MISMATCH = 7  # a bet over a bet, or a raise over nothing
V_NOT_REOPENED = 8  # a raise after a short all-in that did not reopen the betting
V_FL_CAP_REACHED = 9  # a raise past the fixed-limit cap
V_CANNOT_RAISE = 10  # a raise with no chips for it or nobody left to call it
V_BELOW_MIN = 11  # a bet/raise below the minimum
V_ABOVE_MAX = 12  # a bet/raise above the maximum
V_AMOUNT_MISMATCH = 13  # added != the change of the street total
V_LOG_ENDS = 14  # the log ends while a seat must act
V_RETURN_WRONG = 15  # the uncalled bet returned wrongly (or not at all)
V_AFTER_END = 16  # an action logged after the hand ended
V_BOARD_LENGTH = 17  # a board not what the streets played dealt
V_UNKNOWN_KIND = 18  # an action kind the referee does not know
V_FOLDED_COLUMN = 19  # the folded column disagrees with the action log
V_POST = 20  # a live or dead post of a replayed history against the rules (or out of order)
V_LEAVE = 21  # a LEAVE by a seat not in the hand
V_LEAVE_RECORD = 22  # a LEAVE adding chips, on another street or with another street total
V_LEAVE_RETURN = 23  # the uncovered part of a leaving seat's bet not returned at once
V_STRADDLE = 24  # a straddle by another seat, of a size no straddle has, or out of order

MESSAGES = {
    V_POSTING: "wrong posting: seat {aux} put in {logged} as its ante/blind, the rules give "
               "{expected} (min(due, stack), in order from the button)",
    V_OUT_OF_TURN: "out of turn: seat {logged} acted on the {street}, the rules give seat "
                   "{expected} the turn",
    V_WRONG_STREET: "action logged on the wrong street by seat {aux}: street {logged}, the rules "
                    "give street {expected} (0 pre-flop .. 3 river)",
    V_ILLEGAL_FOLD: "illegal fold: seat {aux} folded on the {street} with {logged} to call, the "
                    "rules give a fold only facing a bet ({expected}: a check)",
    V_ILLEGAL_CHECK: "illegal check: seat {aux} checked on the {street} facing {logged} to call, "
                     "the rules give a check only with {expected} to call",
    V_CALL_AMOUNT: "wrong call amount: seat {aux} called {logged} on the {street}, the rules give "
                   "{expected} (min(to call, stack); 0: nothing to call)",
    V_KIND_MISMATCH: "bet/raise kind mismatch: seat {aux} on the {street} over a bet of {logged}, "
                     "the rules give a bet over {expected} and a raise over more",
    V_NOT_REOPENED: "illegal raise: betting not reopened for seat {aux} after a short all-in "
                    "({street}): the bet rose by {logged} since it acted, the rules give a full "
                    "raise of {expected} to reopen",
    V_FL_CAP_REACHED: "illegal raise: fixed-limit cap reached (seat {aux}, {street}): raise "
                      "{logged}, the rules give at most {expected}",
    V_CANNOT_RAISE: "illegal raise: seat {aux} cannot raise on the {street}: stack {logged} "
                    "against {expected} to call, or nobody left to call",
    V_BELOW_MIN: "bet/raise below the minimum: seat {aux} to {logged} on the {street}, the rules "
                 "give at least {expected}",
    V_ABOVE_MAX: "bet/raise above the maximum: seat {aux} to {logged} on the {street}, the rules "
                 "give at most {expected}",
    V_AMOUNT_MISMATCH: "amount inconsistent: seat {aux} on the {street}: the log puts in "
                       "{logged}, the rules give {expected} (chips added = the change of its "
                       "street total; 0 for a fold or check)",
    V_LOG_ENDS: "log ends while seat {aux} must still act on the {street}: {logged} actions "
                "logged, the rules give more ({expected} to call)",
    V_RETURN_WRONG: "uncalled bet return wrong (seat {aux}, {street}): the log returns {logged}, "
                    "the rules give {expected} (its bet above every other contribution)",
    V_AFTER_END: "action logged after the hand ended (seat {aux}, after the {street}): {logged} "
                 "records, the rules give {expected}",
    V_BOARD_LENGTH: "board has {logged} cards, the rules give {expected} for the streets played",
    V_UNKNOWN_KIND: "unknown action kind {aux}: the rules give the kinds of docs/log-schema.md",
    V_FOLDED_COLUMN: "folded column disagrees with the action log for seat {aux}: the column "
                     "says {logged}, the action log gives {expected} (1 folded)",
    V_POST: "wrong post: seat {aux} posted {logged}, the rules give {expected} (a live post "
            "min(big blind, stack); a dead post below a big blind, or at most one beside the "
            "seat's live post; 0: none by a seat without chips or with a blind, or out of order)",
    V_LEAVE: "wrong leave: seat {aux} not in the hand (on the {street}), the rules give a leave "
             "only to a seat still in it",
    V_LEAVE_RECORD: "wrong leave: seat {aux}'s leave on the {street} logs {logged}, the rules "
                    "give {expected} (no chip added, its street total kept, on the street "
                    "played)",
    V_LEAVE_RETURN: "wrong leave: seat {aux}'s uncovered bet not returned at once on the "
                    "{street}: the log returns {logged}, the rules give {expected}",
    V_STRADDLE: "wrong straddle: seat {aux} straddled {logged}, the rules give {expected} (one "
                "live straddle right after the blinds by the first seat with chips left of the "
                "big blind, 3 or more players, more than the big blind or all the seat's "
                "chips; 0: none by this seat)",
}
# the structure codes the referee gets per hand (_structure_codes)
NO_LIMIT, POT_LIMIT, FIXED_LIMIT = 0, 1, 2
# the ante_mode column
ANTE_UNIFORM, ANTE_BIG_BLIND = 1, 2

ACTIVE, ALL_IN, FOLDED = 1, 2, 3
# the referee's per-seat state: rows of the caller's ``work`` (7, k) array
STATUS, STACK, BET_, ACTED, CONTRIB, ANTE_PAID, ACTED_FULL = range(7)
# and a row WHY where a failure leaves what the log says and what the rules give (columns
# LOGGED, EXPECTED) and the street it was on (STREET): written only on a failure
WHY = 7
LOGGED, EXPECTED, STREET = range(3)
# The referee is compiled without NRT (no reference counting of the arrays in the hot loop): no
# helper may allocate; each returns the scalars it changes. The helpers are inlined into the
# referee (numba ``inline="always"``): called, they made it twice as slow. The hand itself is
# written out in the referee's loop (inlined, numba copied its whole scope with every block).


@njit(cache=True, _nrt=False, inline="always")
def _why(work, logged, expected):
    """A failure's amounts: what the log says, what the rules give."""
    work[WHY, LOGGED] = logged
    work[WHY, EXPECTED] = expected


@njit(cache=True, _nrt=False, inline="always")
def _needs(status, acted, bet, s, cur, n_active):
    if status[s] != ACTIVE or acted[s] == cur:
        return False
    if n_active == 1 and bet[s] >= cur:
        return False
    return True


@njit(cache=True, _nrt=False, inline="always")
def _next(status, acted, bet, after, cur, n_active, k):
    s = after
    for _ in range(k):
        s = s + 1 if s + 1 < k else 0
        if _needs(status, acted, bet, s, cur, n_active):
            return s
    return -1


@njit(cache=True, _nrt=False, inline="always")
def _seat_players(work, start, occ, i, k):
    """Reset the seats for hand i; returns the players dealt in (occupied, with chips)."""
    n_active = 0
    for s in range(k):
        work[STACK, s] = start[i, s]
        work[BET_, s] = 0
        work[ACTED, s] = -1
        work[CONTRIB, s] = 0
        work[ANTE_PAID, s] = 0
        work[ACTED_FULL, s] = 0
        work[STATUS, s] = ACTIVE if (occ[i, s] and start[i, s] > 0) else 0
        if work[STATUS, s] == ACTIVE:
            n_active += 1
    return n_active


@njit(cache=True, _nrt=False, inline="always")
def _put(work, s, amount, on_street):
    """Seat s puts ``amount`` in (on this street's bet unless an ante); True when that was its
    last chip (the seat is then all-in)."""
    work[STACK, s] -= amount
    work[CONTRIB, s] += amount
    if on_street:
        work[BET_, s] += amount
    else:
        work[ANTE_PAID, s] += amount
    if work[STACK, s] == 0:
        work[STATUS, s] = ALL_IN
        return True
    return False


@njit(cache=True, _nrt=False, inline="always")
def _post_antes(work, i, button, bbs, ante, ante_mode, a_street, a_seat, a_kind, a_add, j, end,
                n_active, k):
    """The antes, clockwise from the seat left of the button, each min(due, stack). Returns
    (code, seat, j, n_active, flags)."""
    flags = 0
    s = button[i]
    for _ in range(k):
        s = s + 1 if s + 1 < k else 0
        uniform = ante_mode[i] == ANTE_UNIFORM
        due = ante[i] if uniform or (ante_mode[i] == ANTE_BIG_BLIND and s == bbs[i]) else 0
        if work[STATUS, s] != ACTIVE or due <= 0:
            continue
        amt = min(due, work[STACK, s])
        if j >= end or a_kind[j] != ANTE or a_seat[j] != s or a_add[j] != amt or a_street[j] != 0:
            _why(work, a_add[j] if j < end and a_seat[j] == s else 0, amt)
            return V_POSTING, s, j, n_active, flags
        j += 1
        flags |= 1 << P.ANTE
        if _put(work, s, amt, False):
            n_active -= 1
            flags |= (1 << P.ANTE_ALL_IN) | (1 << P.ALL_IN)
    return OK, 0, j, n_active, flags


@njit(cache=True, _nrt=False, inline="always")
def _post_blinds(work, i, sbs, bbs, sb_amt, bb_amt, a_street, a_seat, a_kind, a_tot, a_add, j,
                 end, n_active):
    """The small then the big blind, each min(due, stack). Returns (code, seat, j, n_active,
    flags)."""
    flags = 0
    for which in range(2):
        s = sbs[i] if which == 0 else bbs[i]
        due = sb_amt[i] if which == 0 else bb_amt[i]
        if s < 0 or work[STATUS, s] != ACTIVE:
            continue
        amt = min(due, work[STACK, s])
        if (j >= end or a_kind[j] != SMALL_BLIND + which or a_seat[j] != s or a_add[j] != amt
                or a_tot[j] != amt or a_street[j] != 0):
            _why(work, a_add[j] if j < end and a_seat[j] == s else 0, amt)
            return V_POSTING, s, j, n_active, flags
        j += 1
        if amt < due:
            flags |= 1 << P.SHORT_BLIND
        if _put(work, s, amt, True):
            n_active -= 1
            flags |= 1 << P.ALL_IN
    return OK, 0, j, n_active, flags


@njit(cache=True, _nrt=False, inline="always")
def _post_straddle(work, i, sbs, bbs, bb_amt, a_street, a_seat, a_kind, a_tot, a_add, j, end,
                   n_active, n_live, k):
    """A straddle right after the blinds, if the log has one (``docs/game.md``): by the first
    seat with chips left of the big blind, 3 or more players dealt in, on the street, more
    than the big blind or the seat's last chips. Returns (code, seat, j, n_active, the
    straddler or -1, flags)."""
    if j >= end or a_kind[j] != STRADDLE:
        return OK, 0, j, n_active, -1, 0
    s = np.int64(a_seat[j])
    amt = a_add[j]
    t = -1
    if n_live >= 3 and bbs[i] >= 0:
        t = bbs[i]
        for _ in range(k):
            t = t + 1 if t + 1 < k else 0
            if work[STATUS, t] != 0:  # dealt in (active, or all-in from its ante)
                break
        if t == sbs[i] or t == bbs[i]:
            t = -1
    if s != t or work[STATUS, s] != ACTIVE:
        _why(work, amt, 0)
        return V_STRADDLE, s, j, n_active, -1, 0
    if (a_street[j] != 0 or amt <= 0 or amt > work[STACK, s] or a_tot[j] != amt
            or (amt <= bb_amt[i] and amt != work[STACK, s])):
        _why(work, amt, max(bb_amt[i] + 1, 0) if amt < work[STACK, s] else work[STACK, s])
        return V_STRADDLE, s, j, n_active, -1, 0
    flags = 0
    if _put(work, s, amt, True):
        n_active -= 1
        flags |= 1 << P.ALL_IN
    return OK, 0, j + 1, n_active, s, flags


@njit(cache=True, _nrt=False, inline="always")
def _post_extra(work, i, button, sbs, bbs, bb_amt, trim, a_street, a_seat, a_kind, a_tot, a_add,
                j, end, n_active, k):
    """Posts after the blinds (replayed histories): live posts then dead ones, each group
    clockwise from the seat left of the button, one a seat per group. Returns (code, seat, j,
    n_active, flags)."""
    flags = 0
    group = 0  # 0: live posts, 1: dead ones
    last = -1  # the clockwise position of the last post of the group
    while j < end and (a_kind[j] == POST or a_kind[j] == DEAD_BLIND):
        s = np.int64(a_seat[j])
        dead = a_kind[j] == DEAD_BLIND
        if s < 0 or s >= k:
            _why(work, a_add[j], 0)
            return V_POST, s, j, n_active, flags
        pos = (s - button[i] - 1) % k
        g = 1 if dead else 0
        if g > group:
            group = g
            last = -1
        if g < group or pos <= last:
            _why(work, a_add[j], 0)
            return V_POST, s, j, n_active, flags
        last = pos
        amt = a_add[j]
        # less than a big blind, or at most one beside the seat's live post
        cap = bb_amt[i] if work[BET_, s] > 0 else bb_amt[i] - 1
        if (a_street[j] != 0 or work[STATUS, s] != ACTIVE or s == sbs[i] or s == bbs[i]
                or amt <= 0 or amt > work[STACK, s]):
            barred = work[STATUS, s] != ACTIVE or s == sbs[i] or s == bbs[i]
            _why(work, amt, 0 if barred else min(cap if dead else bb_amt[i], work[STACK, s]))
            return V_POST, s, j, n_active, flags
        if dead:
            if trim[i] or amt > cap or a_tot[j] != work[BET_, s]:
                _why(work, amt, 0 if trim[i] else min(cap, work[STACK, s]))
                return V_POST, s, j, n_active, flags
        elif amt != min(bb_amt[i], work[STACK, s]) or a_tot[j] != amt:
            _why(work, amt, min(bb_amt[i], work[STACK, s]))
            return V_POST, s, j, n_active, flags
        j += 1
        if _put(work, s, amt, not dead):
            n_active -= 1
            flags |= 1 << P.ALL_IN
    return OK, 0, j, n_active, flags


@njit(cache=True, _nrt=False, inline="always")
def _highest(work, trim, k, r, x):
    """With ``x`` chips given back to seat r: the seat of the highest contribution that counts
    for matching (antes count only when trimmed), whether nobody else reached it, and its
    level."""
    level = -1
    seat = -1
    alone = False
    for s in range(k):
        c = work[CONTRIB, s] - (0 if trim else work[ANTE_PAID, s]) - (x if s == r else 0)
        if c > level:
            level, seat, alone = c, s, True
        elif c == level:
            alone = False
    return seat, alone, level


@njit(cache=True, _nrt=False, inline="always")
def _uncalled(work, trim, k, seat, top):
    """The chips of ``seat``'s bet standing above every other contribution (``top`` its own)."""
    other = 0
    for t in range(k):
        if t != seat:
            other = max(other, work[CONTRIB, t] - (0 if trim else work[ANTE_PAID, t]))
    return min(top - other, work[BET_, seat])


@njit(cache=True, _nrt=False, inline="always")
def _street_return(work, trim, a_kind, a_seat, a_add, j, end, k):
    """The close of a street: no chips bet on it may stand above every other seat's contribution
    (nobody called them). When some do, the next record must give chips back to one seat, out of
    its bet on this street, leaving it level with the highest other contribution or with
    nothing of this street's bet standing (the logged return is applied, then the property is
    checked again; a return is never recomputed). Returns (code, the seat whose chips stood, j,
    returned to, chips)."""
    seat, alone, top = _highest(work, trim, k, -1, 0)
    if not alone or work[BET_, seat] <= 0:
        return OK, 0, j, -1, 0  # every chip bet on this street was matched: nothing returned
    if j >= end or a_kind[j] != RETURN:
        _why(work, 0, _uncalled(work, trim, k, seat, top))
        return V_RETURN_WRONG, seat, j, -1, 0
    r = np.int64(a_seat[j])
    x = a_add[j]
    if r < 0 or r >= k or x <= 0 or x > work[BET_, r]:
        _why(work, x, _uncalled(work, trim, k, seat, top))
        return V_RETURN_WRONG, seat, j, -1, 0
    after, alone, level = _highest(work, trim, k, r, x)
    mine = work[CONTRIB, r] - (0 if trim else work[ANTE_PAID, r]) - x
    if mine < level or (alone and work[BET_, after] - (x if after == r else 0) > 0):
        # returned below another's contribution, or chips still stand
        _why(work, x, _uncalled(work, trim, k, seat, top))
        return V_RETURN_WRONG, seat, j, -1, 0
    return OK, 0, j + 1, r, x


@njit(cache=True, _nrt=False, inline="always")
def _leave(work, trim, street, a_street, a_seat, a_kind, a_tot, a_add, j, end, n_active, k):
    """The LEAVE at record j: a seat still in the hand, logged with its street total and no
    chips; then, when part of its bet stands above every other contribution, the next record
    returns exactly that part to it. The seat's hand is dead. Returns (code, seat, j,
    n_active, the bet to call after it (-1: unchanged))."""
    g = np.int64(a_seat[j])
    if g < 0 or g >= k or (work[STATUS, g] != ACTIVE and work[STATUS, g] != ALL_IN):
        _why(work, a_add[j], 0)
        return V_LEAVE, g, j, n_active, -1
    if a_street[j] != street or a_add[j] != 0 or a_tot[j] != work[BET_, g]:
        _why(work, a_add[j] if a_add[j] != 0 else a_tot[j], 0 if a_add[j] != 0 else work[BET_, g])
        return V_LEAVE_RECORD, g, j, n_active, -1
    other = 0
    for t in range(k):
        if t != g:
            other = max(other, work[CONTRIB, t] - (0 if trim else work[ANTE_PAID, t]))
    mine = work[CONTRIB, g] - (0 if trim else work[ANTE_PAID, g])
    back = max(0, min(mine - other, work[BET_, g]))
    j += 1
    cur = -1
    if back > 0:
        if (j >= end or a_kind[j] != RETURN or a_seat[j] != g or a_add[j] != back
                or a_tot[j] != work[BET_, g] - back or a_street[j] != street):
            _why(work, a_add[j] if j < end and a_kind[j] == RETURN and a_seat[j] == g else 0,
                 back)
            return V_LEAVE_RETURN, g, j, n_active, -1
        j += 1
        work[STACK, g] += back
        work[BET_, g] -= back
        work[CONTRIB, g] -= back
        cur = 0
        for t in range(k):
            cur = max(cur, work[BET_, t])
    if work[STATUS, g] == ACTIVE:
        n_active -= 1
    work[STATUS, g] = FOLDED
    return OK, 0, j, n_active, cur


@njit(cache=True, _nrt=False, inline="always")
def _reopen_flags(work, s, cur, full_raise, n_raises):
    """The paths of seat s facing a bet that rose since it acted: by less than a full raise (a
    short all-in: no re-raise), or by short all-ins adding up to one (reopened)."""
    acted = work[ACTED, s]
    if acted < 0 or cur <= acted:
        return 0
    if cur - acted < full_raise:
        return 1 << P.SHORT_NOT_REOPENED
    if n_raises == work[ACTED_FULL, s]:
        return 1 << P.SHORTS_REOPENED
    return 0


@njit(cache=True, _nrt=False, inline="always")
def _raise_refused(work, s, kd, amount, added, cur, to_call, full_raise, n_raises, cap, fl, k):
    """Why seat s may not bet or raise at all here (a violation code; OK if it may)."""
    if (kd == BET) != (cur == 0):
        _why(work, cur, 0)
        return V_KIND_MISMATCH
    if added != amount - work[BET_, s]:
        _why(work, added, amount - work[BET_, s])
        return V_AMOUNT_MISMATCH
    if fl and n_raises >= cap:
        _why(work, n_raises + 1, cap)
        return V_FL_CAP_REACHED
    acted = work[ACTED, s]
    if acted >= 0 and cur - acted < full_raise:
        _why(work, cur - acted, full_raise)
        return V_NOT_REOPENED
    if work[STACK, s] <= to_call:
        _why(work, work[STACK, s], to_call)
        return V_CANNOT_RAISE
    for t in range(k):  # somebody else must be able to call it
        if t != s and work[STATUS, t] == ACTIVE and work[STACK, t] + work[BET_, t] > cur:
            return OK
    _why(work, work[STACK, s], to_call)
    return V_CANNOT_RAISE


@njit(cache=True, _nrt=False, inline="always")
def _raise_bounds(work, s, cur, to_call, full_level, full_raise, size, fl, pl, k):
    """The smallest and largest legal bet/raise-to of seat s (before its all-in cap), and its
    all-in total: fixed-limit one level up; else at least a full raise, at most the pot after
    the call plus the call (pot-limit) or everything."""
    all_in_to = work[BET_, s] + work[STACK, s]
    if fl:
        lo = full_level + size
        return lo, lo, all_in_to
    lo = cur + full_raise
    if not pl:
        return lo, all_in_to, all_in_to
    pot = 0
    for t in range(k):
        pot += work[CONTRIB, t]
    return lo, max(cur + pot + to_call, lo), all_in_to


@njit(cache=True, _nrt=False, inline="always")
def _close_street(work, trim, a_kind, a_seat, a_add, j, end, n_active, k):
    """The end of a betting round: the uncalled chips returned (``_street_return``), the
    street's bets and actions cleared. Returns (code, seat, j, n_active, paths)."""
    code, ax, j, r, x = _street_return(work, trim, a_kind, a_seat, a_add, j, end, k)
    if code:
        return code, ax, j, n_active, 0
    flags = 0
    if x > 0:
        flags = 1 << P.UNCALLED_RETURN
        work[STACK, r] += x
        work[BET_, r] -= x
        work[CONTRIB, r] -= x
        if work[STATUS, r] == ALL_IN:
            work[STATUS, r] = ACTIVE
            n_active += 1
    for s in range(k):
        work[BET_, s] = 0
        work[ACTED, s] = -1
        work[ACTED_FULL, s] = 0
    return OK, 0, j, n_active, flags


@njit(cache=True, _nrt=False, inline="always")
def _bet_or_raise(work, s, kd, amount, added, cur, full_level, full_raise, n_raises, cap, size,
                  fl, pl, k):
    """Whether seat s may bet or raise to ``amount`` (``_raise_refused``, then the size within
    ``_raise_bounds`` or all-in), and the sizing paths it takes. Returns (code, seat or amount,
    paths)."""
    to_call = cur - work[BET_, s]
    code = _raise_refused(work, s, kd, amount, added, cur, to_call, full_raise, n_raises, cap,
                          fl, k)
    if code:
        return code, s, 0
    lo, hi, all_in_to = _raise_bounds(work, s, cur, to_call, full_level, full_raise, size, fl,
                                      pl, k)
    if amount < min(lo, all_in_to):
        _why(work, amount, min(lo, all_in_to))
        return V_BELOW_MIN, s, 0
    if amount > min(hi, all_in_to):
        _why(work, amount, min(hi, all_in_to))
        return V_ABOVE_MAX, s, 0
    flags = 0
    if not fl and kd == RAISE and amount == lo and amount < all_in_to:
        flags |= 1 << P.MIN_RAISE
    if pl and amount == hi and hi < all_in_to:
        flags |= 1 << P.PL_MAX
    if fl and cur > full_level and amount == lo:
        flags |= 1 << P.FL_COMPLETED
    return OK, 0, flags


@njit(cache=True, _nrt=False, inline="always")
def _hand_end(work, status, folded, i, street, board_len, a_kind, a_seat, j, end, k):
    """After the last street: nothing but returns logged, the board of the streets played, and
    a seat folded exactly when the action log folds it (never an empty seat)."""
    while j < end:
        if a_kind[j] != RETURN:
            _why(work, end - j, 0)
            return V_AFTER_END, np.int64(a_seat[j])
        j += 1
    if board_len[i] != (0 if street == 0 else street + 2):
        _why(work, board_len[i], 0 if street == 0 else street + 2)
        return V_BOARD_LENGTH, np.int64(board_len[i])
    for s in range(k):
        if (status[s] == FOLDED) != folded[i, s]:
            _why(work, 1 if folded[i, s] else 0, 1 if status[s] == FOLDED else 0)
            return V_FOLDED_COLUMN, s
    return OK, 0


@njit(cache=True, _nrt=False, inline="always")
def _finish(i, code, ax, flags, work, codes, aux, paths, why):
    """Hand i's verdict: its code, seat or amount and rule paths; a failing hand's row
    ``why[:, i]`` (what the log says, what the rules give, the street), its work row cleared."""
    codes[i], aux[i], paths[i] = code, ax, flags
    if code:
        for w in range(3):
            why[w, i] = work[WHY, w]
            work[WHY, w] = 0


@njit(cache=True, _nrt=False)
def _referee(start, occ, button, sbs, bbs, sb_amt, bb_amt, ante, ante_mode, trim, structure,
             min_bet, small_bet, big_bet, raise_cap, board_len, a_street, a_seat, a_kind, a_tot,
             a_add, act_off, folded, free_fold, open_raise, work, codes, aux, paths, why):
    # the per-seat state lives in the caller's ``work`` (8, max(k, 3)) array; ``paths[i]`` gets
    # the rule paths (audits.paths bits) the hand took, as the referee saw them; a failing
    # hand's row ``why[:, i]`` what the log says, what the rules give and the street
    for i in range(occ.shape[0]):
        # hand i replayed (the body of the former ``_referee_hand``, written out here rather
        # than inlined: numba copies an inlined callee's whole variable scope with each of its
        # blocks, 27 s of the install for this one; called, it audits 40% slower)
        k = occ.shape[1]
        status = work[STATUS]
        stack = work[STACK]
        bet = work[BET_]
        acted = work[ACTED]
        acted_full = work[ACTED_FULL]  # full raises of the street when the seat last acted
        n_active = _seat_players(work, start, occ, i, k)
        work[WHY, STREET] = 0
        n_live = n_active
        j = act_off[i]
        end = act_off[i + 1]
        fl = structure[i] == FIXED_LIMIT
        pl = structure[i] == POT_LIMIT
        code, ax, j, n_active, flags = _post_antes(work, i, button, bbs, ante, ante_mode, a_street,
                                                   a_seat, a_kind, a_add, j, end, n_active, k)
        if code:
            _finish(i, code, ax, flags, work, codes, aux, paths, why)
            continue
        code, ax, j, n_active, more = _post_blinds(work, i, sbs, bbs, sb_amt, bb_amt, a_street,
                                                   a_seat, a_kind, a_tot, a_add, j, end, n_active)
        flags |= more
        if code:
            _finish(i, code, ax, flags, work, codes, aux, paths, why)
            continue
        code, ax, j, n_active, straddler, more = _post_straddle(
            work, i, sbs, bbs, bb_amt, a_street, a_seat, a_kind, a_tot, a_add, j, end, n_active,
            n_live, k)
        flags |= more
        if code:
            _finish(i, code, ax, flags, work, codes, aux, paths, why)
            continue
        option = straddler if straddler >= 0 else bbs[i]  # the seat with the pre-flop option
        code, ax, j, n_active, more = _post_extra(work, i, button, sbs, bbs, bb_amt, trim, a_street,
                                                  a_seat, a_kind, a_tot, a_add, j, end, n_active, k)
        flags |= more
        if code:
            _finish(i, code, ax, flags, work, codes, aux, paths, why)
            continue
        street = 0
        cur = 0
        for s in range(k):
            cur = max(cur, bet[s])
        full_level = cur
        full_raise = small_bet[i] if fl else min_bet[i]
        n_raises = 0
        if straddler >= 0 and open_raise[i] > 0 and bet[straddler] >= open_raise[i]:
            if fl:
                n_raises = 1  # the straddle is the first raise of the capped count
            else:
                full_raise = open_raise[i]  # the straddler is the bigger blind
        voluntary = False  # a call, bet or raise pre-flop (no walk then)
        raised = False  # a bet or raise pre-flop (the big blind's option is gone)
        to_act = _next(status, acted, bet, option if option >= 0 else button[i], cur, n_active, k)
        closing = to_act < 0 or n_live <= 1
        ended = False  # a return of the hand's verdict before its end
        while True:
            if closing:
                code, ax, j, n_active, more = _close_street(work, trim[i], a_kind, a_seat, a_add, j,
                                                            end, n_active, k)
                flags |= more
                if code:
                    ended = True
                    break
                if n_live <= 1 and street == 0 and not voluntary and bbs[i] >= 0 and (
                        status[bbs[i]] == ACTIVE or status[bbs[i]] == ALL_IN):
                    flags |= 1 << P.WALK
                if n_live <= 1 or street == 3:
                    break
                street += 1
                work[WHY, STREET] = street
                cur = 0
                full_level = 0
                full_raise = (small_bet[i] if street == 1 else big_bet[i]) if fl else min_bet[i]
                n_raises = 0
                to_act = _next(status, acted, bet, button[i], cur, n_active, k)
                closing = to_act < 0
                continue
            s = to_act
            if j >= end:
                _why(work, end - act_off[i], cur - bet[s])
                code, ax = V_LOG_ENDS, s
                ended = True
                break
            kd = a_kind[j]
            if kd == LEAVE:  # any seat still in the hand, at anyone's turn
                code, ax, j, n_active, dropped = _leave(work, trim[i], street, a_street, a_seat,
                                                        a_kind, a_tot, a_add, j, end, n_active, k)
                if code:
                    ended = True
                    break
                flags |= 1 << P.LEAVE
                n_live -= 1
                if dropped >= 0:  # its uncovered bet was returned
                    flags |= 1 << P.UNCALLED_RETURN
                    cur = dropped
                    full_level = min(full_level, cur)
                if n_live <= 1:
                    closing = True
                elif not _needs(status, acted, bet, s, cur, n_active):
                    to_act = _next(status, acted, bet, s, cur, n_active, k)
                    closing = to_act < 0
                continue
            if a_seat[j] != s:
                _why(work, a_seat[j], s)
                code, ax = V_OUT_OF_TURN, a_seat[j]
                ended = True
                break
            if a_street[j] != street:
                _why(work, a_street[j], street)
                code, ax = V_WRONG_STREET, s
                ended = True
                break
            to_call = cur - bet[s]
            flags |= _reopen_flags(work, s, cur, full_raise, n_raises)
            if kd == FOLD:
                if to_call <= 0 and not free_fold[i]:
                    _why(work, to_call, 0)
                    code, ax = V_ILLEGAL_FOLD, s
                    ended = True
                    break
                if a_add[j] != 0 or a_tot[j] != bet[s]:
                    _why(work, a_add[j] if a_add[j] != 0 else a_tot[j] - bet[s], 0)
                    code, ax = V_AMOUNT_MISMATCH, s
                    ended = True
                    break
                status[s] = FOLDED
                n_active -= 1
                n_live -= 1
            elif kd == CHECK:
                if to_call != 0:
                    _why(work, to_call, 0)
                    code, ax = V_ILLEGAL_CHECK, s
                    ended = True
                    break
                if a_add[j] != 0 or a_tot[j] != bet[s]:
                    _why(work, a_add[j] if a_add[j] != 0 else a_tot[j] - bet[s], 0)
                    code, ax = V_AMOUNT_MISMATCH, s
                    ended = True
                    break
                acted[s] = cur
                acted_full[s] = n_raises
            elif kd == CALL:
                amt = min(to_call, stack[s])
                if to_call <= 0 or a_add[j] != amt:
                    _why(work, a_add[j], max(amt, 0))
                    code, ax = V_CALL_AMOUNT, s
                    ended = True
                    break
                if a_tot[j] != bet[s] + amt:
                    _why(work, a_tot[j] - bet[s], amt)
                    code, ax = V_AMOUNT_MISMATCH, s
                    ended = True
                    break
                if _put(work, s, amt, True):
                    n_active -= 1
                    flags |= 1 << P.ALL_IN
                acted[s] = cur
                acted_full[s] = n_raises
                voluntary = voluntary or street == 0
            elif kd == BET or kd == RAISE:
                amount = a_tot[j]
                size = (small_bet[i] if street <= 1 else big_bet[i]) if fl else 0
                code, ax, more = _bet_or_raise(work, s, kd, amount, a_add[j], cur, full_level,
                                               full_raise, n_raises, raise_cap[i], size, fl, pl, k)
                flags |= more
                if code:
                    ended = True
                    break
                if street == 0:
                    if s == option and not raised:
                        flags |= 1 << P.BB_OPTION_RAISE
                    voluntary = True
                    raised = True
                if _put(work, s, amount - bet[s], True):
                    n_active -= 1
                    flags |= 1 << P.ALL_IN
                if amount >= full_level + size if fl else amount - cur >= full_raise:
                    if not fl:
                        full_raise = amount - cur
                    full_level = amount
                    n_raises += 1
                    if fl and n_raises >= raise_cap[i]:
                        flags |= 1 << P.FL_CAP
                cur = amount
                acted[s] = amount
                acted_full[s] = n_raises
            else:
                _why(work, kd, 0)
                code, ax = V_UNKNOWN_KIND, kd
                ended = True
                break
            j += 1
            if n_live <= 1:
                closing = True
            else:
                to_act = _next(status, acted, bet, s, cur, n_active, k)
                closing = to_act < 0
        if not ended:
            code, ax = _hand_end(work, status, folded, i, street, board_len, a_kind, a_seat, j,
                                 end, k)
        _finish(i, code, ax, flags, work, codes, aux, paths, why)


def _structure_codes(b: Batch) -> np.ndarray:
    """NO_LIMIT, POT_LIMIT or FIXED_LIMIT per row (from the dictionary, not per row)."""
    values = b.cols["structure_values"]
    per_value = np.array([POT_LIMIT if v == "pot-limit" else FIXED_LIMIT if v == "fixed-limit"
                          else NO_LIMIT for v in values], np.int64)
    return per_value[b.cols["structure"]] if len(values) else np.zeros(b.n, np.int64)


def _open_raise(b: Batch) -> np.ndarray:
    """Per hand, the pre-flop raise increment a full straddle sets (0: min_bet over it): a
    simulated run's game (``RunFacts.straddle_raise``, from the spec); an imported hand the
    PHH standard's reading (one big blind over it, docs/import.md) unless the import's game
    file states ``straddle_raise = "straddle"`` (the manifest's ``game.cash``: its straddle in
    the run's units)."""
    inc = 0
    facts = b.context.get("facts")
    game = b.context.get("game")
    if b.context.get("imported"):
        cash = game.get("cash") if isinstance(game, dict) else None
        if isinstance(cash, dict) and cash.get("straddle_raise") == "straddle":
            v = cash.get("straddle", 0)
            inc = v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 0
    elif facts is not None:
        inc = facts.straddle_raise("cash")
    return np.full(b.n, inc, np.int64)


def betting_map(b: Batch) -> Partial:
    codes = np.zeros(b.n, np.int32)
    aux = np.zeros(b.n, np.int64)
    paths = np.zeros(b.n, np.int64)
    why = np.zeros((3, b.n), np.int64)
    sc = b.seat
    _, doff = b.var["board"]
    c = b.cols
    _referee(sc["stacks_start"], sc["occupied"], c["button"], c["sb_seat"], c["bb_seat"],
             c["small_blind"], c["big_blind"], c["ante"], c["ante_mode"], c["ante_trimming"],
             _structure_codes(b), c["min_bet"], c["small_bet"], c["big_bet"], c["raise_cap"],
             np.diff(doff), b.act["street"], b.act["seat"], b.act["kind"],
             b.act["to_street_total"], b.act["added"], b.act_off, sc["folded"],
             string_is(b, "generator", "phh"), _open_raise(b),
             np.zeros((WHY + 1, max(b.k, 3)), np.int64), codes,
             aux, paths, why)
    b.derived["betting_paths"] = paths  # the rule paths taken, for the coverage map
    return partial_from_codes(b.cols["hand_id"], codes, aux, MESSAGES, logged=why[LOGGED],
                              expected=why[EXPECTED], values={"street": why[STREET]})


SPEC = AuditSpec("betting", betting_map, description=(
    "from the starting stacks and the config: every action replayed by the audits' referee "
    "(order, sizes, reopening, caps, returns); folded = the seats the log folds"))
