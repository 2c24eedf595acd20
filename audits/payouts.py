"""Side pots and payouts (exact), with the audits' own pot builder and evaluator.

Pots are rebuilt from the logged contributions: levels are the distinct contributions of the
players who did not fold; each layer goes to a pot whose eligible players are the non-folded
players who reached its level; folded players' chips fill the layers they reached (chips above
every live level join the top pot). With ante_trimming false the antes are dead money in the main
pot, and so are dead blinds (DEAD_BLIND records) always. A layer with a single contributor is an
uncalled bet that should have been returned.
Each pot goes to the best eligible shown hands (own evaluator), or to its only eligible player;
split equally, odd chips one each to the first winners clockwise from the button. Rake =
floor(total * rake_bps / 10000), capped by rake_cap, zero without a flop under no_flop_no_drop,
taken from the main pot first. Checked: the rake, every logged pot (amount, rake, eligible,
winners), nobody paid from a pot they were not eligible for, and won per seat. An imported
hand's seat whose showdown cards are not in the record (the ``cards_unrecorded`` column) is
never scored, and a pot is won only by a hand that is shown: where another contender of the pot
showed, such a seat (like a seat that mucked) wins nothing from it; where no contender showed, a
single unrecorded contender is the one the others left (he wins it), and only a pot contested by
two or more unrecorded seats with nothing shown has winners the record cannot prove: its logged
winners are taken (still among its eligible players, with its amount, rake and the payouts they
imply checked).
A simulated hand whose betting ended with two or more hands live and at most one of them with
chips behind (stacks_start - contributed > 0) is an all-in showdown: every live hand is shown
before the rest of the board (seed 004 "All In", the TDA rule); a muck there fails, in a run
whose spec records rules version 2 or later (``audits.runspec.rules_version``: runs made
before, whose engine mucked as at the river, and files audited without their manifest are not
held to it). An imported history's muck there is the operator's claim and is not judged.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from audits import paths as P
from audits.evaluator import TABLE, board_parts, eval_with_board, logged_strength, score5
from audits.io import ANTE, BET, DEAD_BLIND, RAISE, Batch, string_is
from audits.result import Partial, partial_from_codes
from audits.runspec import rules_version
from audits.spec import AuditSpec

MESSAGES = {
    1: "payout mismatch: seat {aux} won {logged}, the rules give {expected}",
    2: "rake mismatch: the log says {logged}, the rules give {expected}",
    3: "pot count mismatch: the log has {logged} pots, the rules give {expected}",
    4: "pot amount/rake mismatch in pot {aux}: the log says {logged} (rake {logged2}), the rules "
       "give {expected} (rake {expected2})",
    5: "pot eligibility mismatch in pot {aux}: the log says {seats_logged}, the rules give "
       "{seats_expected}",
    6: "pot winners mismatch in pot {aux}: the log says {seats_logged}, the rules give "
       "{seats_expected}",
    7: "paid from a pot not eligible for: pot {aux} paid {seats_logged}, the rules give only its "
       "eligible {seats_expected}",
    8: "uncalled chips not returned: seat {aux}'s {expected} above every other live "
       "contribution stayed in the pot, the rules give them back",
    9: "contested pot {aux} with no shown hand: {expected} chips, the rules give a pot to the "
       "best hand shown",
    10: "showdown card error: seat {aux} shown with a board of {logged} cards or after folding, "
        "the rules give a live hand and a board of 5",
    11: "showdown lists seat {aux} wrongly: {logged} hands listed, the rules give {expected}, "
        "every live hand once, from the river's last bettor (else the first live seat left of "
        "the button) clockwise",
    12: "showdown rank of seat {aux} is not the strength of its cards: the log says {logged}, "
        "the rules give {expected} (-1: a muck)",
    13: "illegal muck: seat {aux} mucked {card_logged} {card_logged2}, which could win or tie a "
        "pot against the hands shown before it (the best of them: {seat_expected}): the rules "
        "give a show",
    14: "muck at an all-in showdown: seat {aux} mucked where every hand is shown (the betting "
        "ended with at most one live hand not all-in): the rules give its cards shown",
}


# the rebuild's per-seat and per-pot state: rows of the caller's ``work`` (10, k + 1) array
(LEVEL_OF, ANTE_PAID, STRENGTH, SHOWN, LEVELS, POT_AMOUNT, POT_ELIGIBLE, POT_RAKE, MINE,
 BEST_SHOWN) = range(10)
# payouts' own 11th row: a failing pot's winners by the rules (or its chips), for the message
POT_WINNERS_RULED = 10
# the rows of a failing hand's values (payouts_map's ``why``): what the log says and what the
# rules give (seat masks for eligibility and winners), a pot's rake beside its amount
WHY_LOGGED, WHY_EXPECTED, WHY_LOGGED2, WHY_EXPECTED2 = range(4)
# The kernel is compiled without NRT (no reference counting in the hot loop): no helper may
# allocate; each returns what it finds. The helpers are inlined into the kernel (numba
# ``inline="always"``), as in the betting referee.
_inline = njit(cache=True, _nrt=False, inline="always")


@_inline
def board_of(dv, d, nb):
    """A hand's 5 board cards from ``dv[d:d + 5]`` and their ``board_parts`` (all 0 when the
    hand has fewer than 5: no showdown to score)."""
    b0 = b1 = b2 = b3 = b4 = bkey = blanes = np.int64(0)
    if nb == 5:
        b0, b1, b2 = np.int64(dv[d]), np.int64(dv[d + 1]), np.int64(dv[d + 2])
        b3, b4 = np.int64(dv[d + 3]), np.int64(dv[d + 4])
        bkey, blanes = board_parts(b0, b1, b2, b3, b4)
    return b0, b1, b2, b3, b4, bkey, blanes


@_inline
def _next_live(live, s, k):
    """The first seat clockwise after s whose bit is set in ``live`` (-1 if none)."""
    t = s
    for _ in range(k):
        t = t + 1 if t + 1 < k else 0
        if (live >> t) & 1:
            return t
    return -1


@_inline
def live_levels(work, i, occ, contrib, folded, trim, a_seat, a_kind, a_add, act_off, k):
    """Each seat's contribution that counts for the pots (antes are dead money unless trimmed)
    into ``work[LEVEL_OF]``; returns (live players, their seat bits, dead antes)."""
    for s in range(k):
        work[ANTE_PAID, s] = 0
    for j in range(act_off[i], act_off[i + 1]):
        if a_kind[j] == ANTE and 0 <= a_seat[j] < k:
            work[ANTE_PAID, a_seat[j]] += a_add[j]
    dead = 0
    nlive = 0
    live = 0  # bit s: seat s is in the hand and did not fold
    for s in range(k):
        work[LEVEL_OF, s] = contrib[i, s] - (0 if trim[i] else work[ANTE_PAID, s])
        if not trim[i]:
            dead += work[ANTE_PAID, s]
        if occ[i, s] and not folded[i, s]:
            nlive += 1
            live |= 1 << s
    for j in range(act_off[i], act_off[i + 1]):  # dead blinds: dead money, trimmed or not
        if a_kind[j] == DEAD_BLIND and 0 <= a_seat[j] < k:
            work[LEVEL_OF, a_seat[j]] -= a_add[j]
            dead += a_add[j]
    return nlive, live, dead


@_inline
def check_listing(work, i, speak, nlive, live, nb, sv, sshown, soff, k):
    """The showdown columns list each seat once (cards speak: every live hand, when two or more
    are live) and show cards only of live hands with a full board; marks them in
    ``work[SHOWN]``. Returns (code, seat)."""
    for s in range(k):
        work[SHOWN, s] = 0
    if speak and soff[i + 1] - soff[i] != (nlive if nlive >= 2 else 0):
        return 11, -1
    listed = 0
    for j in range(soff[i], soff[i + 1]):
        s = np.int64(sv[j])
        if s < 0 or s >= k or (listed >> s) & 1 or (speak and not (live >> s) & 1):
            return (11 if speak else 10), s
        listed |= 1 << s
        if sshown[j]:
            if nb != 5 or not (live >> s) & 1:
                return 10, s
            work[SHOWN, s] = 1
    return 0, 0


@_inline
def _check_showdown_order(i, live, button, a_street, a_seat, a_kind, act_off, sv, soff, k):
    """The showdown order: from the river's last bettor or raiser if still live, else from the
    first live seat left of the button, clockwise. Returns (code, seat)."""
    first = -1
    j = act_off[i + 1] - 1
    while j >= act_off[i] and a_street[j] >= 3:  # the river's actions, last first
        if a_kind[j] == BET or a_kind[j] == RAISE:
            first = np.int64(a_seat[j])
            break
        j -= 1
    if first < 0 or first >= k or not (live >> first) & 1:
        first = _next_live(live, button[i], k)
    s = first
    for j in range(soff[i], soff[i + 1]):
        if sv[j] != s:
            return 11, np.int64(sv[j])
        s = _next_live(live, s, k)
    return 0, 0


@_inline
def score_hands(work, i, speak, nlive, live, nb, hole, unrec, table, bkey, blanes, b0, b1, b2,
                 b3, b4, k):
    """The strength of every scored hand (shown, or cards speak: every live hand at a
    showdown) into ``work[STRENGTH]``; a shown hand without its cards fails. Returns (code,
    seat)."""
    for s in range(k):
        scored = work[SHOWN, s] == 1 or (speak and nlive >= 2 and (live >> s) & 1)
        if scored and nb == 5 and hole[i, 2 * s] >= 0 and hole[i, 2 * s + 1] >= 0:
            work[STRENGTH, s] = eval_with_board(table, bkey, blanes, b0, b1, b2, b3, b4,
                                                np.int64(hole[i, 2 * s]),
                                                np.int64(hole[i, 2 * s + 1]))
            if speak:
                work[SHOWN, s] = 1  # cards speak: scored for the awards below
        elif work[SHOWN, s] and unrec[i, s]:
            work[SHOWN, s] = 0  # cards not in the record: never scored
        elif work[SHOWN, s]:
            return 10, s
    return 0, 0


@_inline
def _check_ranks(work, i, speak, sv, sshown, srank, soff, unrec):
    """Each logged rank is its hand's strength (-1 for a muck). Returns (code, seat)."""
    for j in range(soff[i], soff[i + 1]):
        s = np.int64(sv[j])
        want = logged_strength(work[STRENGTH, s]) if sshown[j] else -1
        if (not sshown[j] and not speak) or unrec[i, s]:
            want = srank[j]  # an imported muck (or unrecorded cards) may keep its cards unknown
        if srank[j] != want:
            return 12, s
    return 0, 0


@_inline
def build_pots(work, i, occ, folded, dead, k):
    """The pots, from the levels (distinct live contributions, sorted): each layer between two
    levels is a pot for the live players who reached it; a layer with a single contributor is
    an uncalled bet that should have been returned. Returns (pots, code, seat)."""
    levels = work[LEVELS]
    c = work[LEVEL_OF]
    nl = 0
    for s in range(k):
        if occ[i, s] and not folded[i, s]:
            v = c[s]
            dup = False
            for q in range(nl):
                if levels[q] == v:
                    dup = True
            if not dup:
                q = nl
                while q > 0 and levels[q - 1] > v:
                    levels[q] = levels[q - 1]
                    q -= 1
                levels[q] = v
                nl += 1
    npots = 0
    prev = 0
    for q in range(nl):
        lvl = levels[q]
        amt = 0
        contributors = 0
        only = -1
        elig = 0
        for s in range(k):
            amt += min(c[s], lvl) - min(c[s], prev)
            if c[s] > prev:
                contributors += 1
                only = s
            if occ[i, s] and not folded[i, s] and c[s] >= lvl:
                elig |= 1 << s
        if npots == 0:
            amt += dead
        if contributors == 1 and npots > 0 and amt > 0:
            work[POT_AMOUNT, npots] = amt  # the uncalled chips, for the failure's message
            return npots, 8, only
        if amt > 0 or (npots == 0 and q == nl - 1):
            work[POT_AMOUNT, npots] = amt
            work[POT_ELIGIBLE, npots] = elig
            npots += 1
        prev = lvl
    extra = 0  # chips above every live level join the top pot
    for s in range(k):
        if c[s] > prev:
            extra += c[s] - prev
    if extra > 0 and npots > 0:
        work[POT_AMOUNT, npots - 1] += extra
    return npots, 0, 0


@_inline
def _take_rake(work, i, npots, nb, rake_bps, rake_cap, nfnd):
    """The rake (floor(total * bps / 10000), capped; none without a flop under no flop no drop),
    taken from the main pot first into ``work[POT_RAKE]``. Returns (rake, paths)."""
    total = 0
    for p in range(npots):
        total += work[POT_AMOUNT, p]
    rake = 0
    flags = 0
    if rake_bps[i] > 0 and (nb >= 3 or not nfnd[i]):
        rake = total * rake_bps[i] // 10000
        if rake_cap[i] > 0 and rake >= rake_cap[i]:
            rake = rake_cap[i]
            flags |= 1 << P.RAKE_CAPPED
    elif rake_bps[i] > 0 and total > 0:
        flags |= 1 << P.NO_FLOP_NO_DROP
    if rake > 0:
        flags |= 1 << P.RAKE
    left = rake
    for p in range(npots):
        work[POT_RAKE, p] = min(left, work[POT_AMOUNT, p])
        left -= work[POT_RAKE, p]
    return rake, flags


@_inline
def _showdown_paths(work, k):
    """The paths the shown hands take: a wheel; the best two of one category and top rank,
    decided below it (a kicker)."""
    flags = 0
    top = -1
    second = -1
    for s in range(k):
        if work[SHOWN, s]:
            st = work[STRENGTH, s]
            if (st >> 20 == 4 or st >> 20 == 8) and (st >> 16) & 0xF == 3:
                flags |= 1 << P.WHEEL
            if st > top:
                second = top
                top = st
            elif st > second:
                second = st
    if second >= 0 and top != second and top >> 16 == second >> 16:
        flags |= 1 << P.KICKER  # same category and top rank: decided below it
    return flags


@_inline
def _check_mucks(work, i, npots, sv, sshown, soff):
    """A muck is legal only when, in every pot the seat could win, a hand shown before it is
    strictly better: the showdown walked in order keeping each pot's best shown hand. Returns
    (code, seat)."""
    for p in range(npots):
        work[BEST_SHOWN, p] = -1
    for j in range(soff[i], soff[i + 1]):
        m = np.int64(sv[j])
        bit = 1 << m
        for p in range(npots):
            if work[POT_ELIGIBLE, p] & bit:
                if sshown[j]:
                    if work[STRENGTH, m] > work[BEST_SHOWN, p]:
                        work[BEST_SHOWN, p] = work[STRENGTH, m]
                elif work[BEST_SHOWN, p] <= work[STRENGTH, m]:
                    return 13, m
    return 0, 0


@_inline
def _all_in_showdown(i, start, contrib, live, nlive, k):
    """Whether the betting ended with two or more live hands, at most one with chips behind."""
    if nlive < 2:
        return False
    behind = 0
    for s in range(k):
        if (live >> s) & 1 and start[i, s] - contrib[i, s] > 0:
            behind += 1
    return behind <= 1


@_inline
def _first_muck(i, sshown, sv, soff):
    """The first seat the showdown columns list as mucked (-1 if none)."""
    for j in range(soff[i], soff[i + 1]):
        if not sshown[j]:
            return np.int64(sv[j])
    return -1


@_inline
def _pot_winners(work, p, nb, board, k):
    """The winners (seat bits) of pot p: its only eligible player, else the best scored hands
    among the eligible; and whether the board plays."""
    elig = work[POT_ELIGIBLE, p]
    cnt = 0
    for s in range(k):
        if elig & (1 << s):
            cnt += 1
    if cnt == 1:
        return elig, False
    winners = 0
    best = -1
    for s in range(k):
        if elig & (1 << s) and work[SHOWN, s]:
            if work[STRENGTH, s] > best:
                best = work[STRENGTH, s]
                winners = 1 << s
            elif work[STRENGTH, s] == best:
                winners |= 1 << s
    return winners, best >= 0 and nb == 5 and best == board


@_inline
def proven_winners(work, p, nb, board, unrec, i, k):
    """The winners (seat bits) of pot p as far as the record proves them, whether the board
    plays, and whether they are proven. A pot is won only by a hand that is shown: its only
    eligible player, else the best shown hands among its contenders (a seat that mucked, or
    whose cards are not in the record, wins nothing from a pot where another contender showed);
    when no contender showed, a single contender whose cards are not recorded is the one every
    other contender left (he wins it); with two or more such contenders and nothing shown the
    winners are not proven (0, unproven). Winners 0 and proven: a contested pot with no shown
    hand."""
    winners, board_plays = _pot_winners(work, p, nb, board, k)
    if winners:
        return winners, board_plays, True
    elig = work[POT_ELIGIBLE, p]
    hidden = 0
    nh = 0
    for s in range(k):
        if elig & (1 << s) and unrec[i, s]:
            hidden |= 1 << s
            nh += 1
    if nh == 1:
        return hidden, False, True
    return 0, False, nh == 0


@_inline
def award_layer(work, p, winners, button, k):
    """Pot p after its rake, split equally among ``winners`` into ``work[MINE]``, the odd chips
    one each to the first winners clockwise from the button. Returns its paths."""
    nw = 0
    for s in range(k):
        if winners & (1 << s):
            nw += 1
    amt = work[POT_AMOUNT, p] - work[POT_RAKE, p]
    share = amt // nw
    odd = amt - share * nw
    flags = 0
    if nw >= 2 and amt > 0:
        flags |= 1 << P.SPLIT_POT
        if odd > 0:
            flags |= 1 << P.ODD_CHIP
    s = button
    for _ in range(k):
        s = s + 1 if s + 1 < k else 0
        if winners & (1 << s):
            work[MINE, s] += share
            if odd > 0:
                work[MINE, s] += 1
                odd -= 1
    return flags


@_inline
def _award(work, i, npots, nb, board, button, p_amt, p_rake, p_elig, p_win, p_off, unrec, k):
    """Award every pot and compare it with the logged one (amount and rake, eligible, winners:
    the first mismatch). Returns (code, pot, paths)."""
    for s in range(k):
        work[MINE, s] = 0
    lo = p_off[i]
    nlog = p_off[i + 1] - lo
    code = 0
    ax = 0
    flags = 0
    for p in range(npots):
        winners, board_plays, proven = proven_winners(work, p, nb, board, unrec, i, k)
        if not proven and p < nlog:
            # no contender's cards are known: the record cannot prove this pot's winners,
            # its logged ones are taken (if eligible)
            winners = p_win[lo + p] & work[POT_ELIGIBLE, p]
        if board_plays:
            flags |= 1 << P.BOARD_PLAYS
        if winners == 0:
            work[POT_WINNERS_RULED, 0] = work[POT_AMOUNT, p]
            return 9, p, flags
        if p < nlog and code == 0:
            if work[POT_AMOUNT, p] != p_amt[lo + p] or work[POT_RAKE, p] != p_rake[lo + p]:
                code, ax = 4, p
            elif work[POT_ELIGIBLE, p] != p_elig[lo + p]:
                code, ax = 5, p
            elif winners != p_win[lo + p]:
                code, ax = 6, p
                work[POT_WINNERS_RULED, 0] = winners
        flags |= award_layer(work, p, winners, button[i], k)
    return code, ax, flags


@_inline
def _paid_ineligible(i, p_elig, p_win, p_off):
    """The first logged pot paid to a seat it does not list as eligible (-1 if none)."""
    for p in range(p_off[i + 1] - p_off[i]):
        if p_win[p_off[i] + p] & ~p_elig[p_off[i] + p]:
            return p
    return -1


@_inline
def _won_mismatch(work, won, i, k):
    """The first seat whose logged ``won`` is not its rebuilt payout (-1 if none)."""
    for s in range(k):
        if work[MINE, s] != won[i, s]:
            return s
    return -1


@njit(cache=True, _nrt=False)
def _payout_kernel(occ, start, contrib, folded, won, hole, unrec, button, a_street, a_seat,
                   a_kind, a_add, act_off, sv, sshown, srank, soff, dv, doff, trim, rake_bps,
                   rake_cap, nfnd, rake_col, p_amt, p_rake, p_elig, p_win, p_off, speak,
                   simulated, table, work, codes, aux, paths, why):
    # rebuild each hand's showdown, pots, rake and payouts: codes[i], aux[i] (seat, pot or
    # amount) and ``paths[i]``, the rule paths (audits.paths bits) the rebuilt hand took. The
    # per-seat and per-pot state lives in the caller's ``work`` (11, k + 1) array; a failing
    # hand's ``why[:, i]``: what the log says and what the rules give (WHY_* rows)
    k = occ.shape[1]
    for i in range(occ.shape[0]):
        nlive, live, dead = live_levels(work, i, occ, contrib, folded, trim, a_seat, a_kind, a_add,
                                         act_off, k)
        # the showdown: which hands are scored. Cards speak when the hand's deck is logged (a
        # simulated hand, its hole cards bound to the deck by the deal audit): every live hand
        # is scored, whatever the log says was shown; imported histories score shown hands.
        nb = doff[i + 1] - doff[i]
        b0, b1, b2, b3, b4, bkey, blanes = board_of(dv, doff[i], nb)
        code, ax = check_listing(work, i, speak, nlive, live, nb, sv, sshown, soff, k)
        if code == 0 and speak and nlive >= 2:
            code, ax = _check_showdown_order(i, live, button, a_street, a_seat, a_kind, act_off, sv,
                                             soff, k)
        if code == 0:
            code, ax = score_hands(work, i, speak, nlive, live, nb, hole, unrec, table, bkey,
                                    blanes, b0, b1, b2, b3, b4, k)
        if code == 0:
            code, ax = _check_ranks(work, i, speak, sv, sshown, srank, soff, unrec)
        if code:
            codes[i], aux[i], paths[i] = code, ax, 0
            _showdown_why(work, why, i, code, ax, nlive, nb, sv, sshown, srank, soff)
            continue
        npots, code, ax = build_pots(work, i, occ, folded, dead, k)
        if code:
            codes[i], aux[i], paths[i] = code, ax, 0
            why[WHY_EXPECTED, i] = work[POT_AMOUNT, npots]
            continue
        rake, flags = _take_rake(work, i, npots, nb, rake_bps, rake_cap, nfnd)
        flags |= (1 << P.SHOWDOWN) if nlive >= 2 else (1 << P.UNCONTESTED)
        all_in = _all_in_showdown(i, start, contrib, live, nlive, k)
        if all_in:
            flags |= 1 << P.ALL_IN_SHOWDOWN
        if npots >= 2:
            flags |= 1 << P.SIDE_POT
        if npots >= 3:
            flags |= 1 << P.SIDE_POTS_3PLUS
        board = -1
        if nlive >= 2 and nb == 5:
            board = score5(b0, b1, b2, b3, b4)
            flags |= _showdown_paths(work, k)
        p = _paid_ineligible(i, p_elig, p_win, p_off)
        if p >= 0:
            codes[i], aux[i], paths[i] = 7, p, 0
            why[WHY_LOGGED, i] = p_win[p_off[i] + p]
            why[WHY_EXPECTED, i] = p_elig[p_off[i] + p]
            continue
        if rake != rake_col[i]:
            codes[i], aux[i], paths[i] = 2, rake, 0
            why[WHY_LOGGED, i], why[WHY_EXPECTED, i] = rake_col[i], rake
            continue
        if speak:
            code, ax = _check_mucks(work, i, npots, sv, sshown, soff)
            if code == 0 and all_in and simulated[i]:
                ax = _first_muck(i, sshown, sv, soff)
                code = 14 if ax >= 0 else 0
            if code:
                codes[i], aux[i], paths[i] = code, ax, 0
                if code == 13:
                    why[WHY_LOGGED, i], why[WHY_LOGGED2, i] = hole[i, 2 * ax], hole[i, 2 * ax + 1]
                    why[WHY_EXPECTED, i] = _best_before(work, i, npots, ax, sv, sshown, soff)
                continue
        code, ax, more = _award(work, i, npots, nb, board, button, p_amt, p_rake, p_elig, p_win,
                                p_off, unrec, k)
        flags |= more
        if code == 9:
            codes[i], aux[i], paths[i] = code, ax, flags
            why[WHY_EXPECTED, i] = work[POT_WINNERS_RULED, 0]  # the pot's chips
            continue
        s = _won_mismatch(work, won, i, k)
        if s >= 0:  # a payout mismatch outranks a pot's
            code, ax = 1, s
            why[WHY_LOGGED, i], why[WHY_EXPECTED, i] = won[i, s], work[MINE, s]
        elif code == 0 and p_off[i + 1] - p_off[i] != npots:
            code, ax = 3, npots
            why[WHY_LOGGED, i], why[WHY_EXPECTED, i] = p_off[i + 1] - p_off[i], npots
        elif code == 4:
            q = p_off[i] + ax
            why[WHY_LOGGED, i], why[WHY_EXPECTED, i] = p_amt[q], work[POT_AMOUNT, ax]
            why[WHY_LOGGED2, i], why[WHY_EXPECTED2, i] = p_rake[q], work[POT_RAKE, ax]
        elif code == 5:
            q = p_off[i] + ax
            why[WHY_LOGGED, i], why[WHY_EXPECTED, i] = p_elig[q], work[POT_ELIGIBLE, ax]
        elif code == 6:
            why[WHY_LOGGED, i] = p_win[p_off[i] + ax]
            why[WHY_EXPECTED, i] = work[POT_WINNERS_RULED, 0]
        codes[i], aux[i], paths[i] = code, ax, flags


@_inline
def _showdown_why(work, why, i, code, ax, nlive, nb, sv, sshown, srank, soff):
    """The values of a failing showdown (codes 10 to 12): the board's cards, the hands listed
    and the live ones, a logged rank and its cards' strength."""
    if code == 10:
        why[WHY_LOGGED, i] = nb
    elif code == 11:
        why[WHY_LOGGED, i] = soff[i + 1] - soff[i]
        why[WHY_EXPECTED, i] = nlive if nlive >= 2 else 0
    elif code == 12:
        for j in range(soff[i], soff[i + 1]):
            if sv[j] == ax:
                why[WHY_LOGGED, i] = srank[j]
                why[WHY_EXPECTED, i] = logged_strength(work[STRENGTH, ax]) if sshown[j] else -1


@_inline
def _best_before(work, i, npots, m, sv, sshown, soff):
    """The seat of the best hand shown before seat m in a pot m is eligible for (-1: none)."""
    best = -1
    seat = -1
    for j in range(soff[i], soff[i + 1]):
        s = np.int64(sv[j])
        if s == m:
            break
        if sshown[j]:
            for p in range(npots):
                if (work[POT_ELIGIBLE, p] & (1 << m) and work[POT_ELIGIBLE, p] & (1 << s)
                        and work[STRENGTH, s] > best):
                    best, seat = work[STRENGTH, s], s
    return seat


def _face_up_rules(b: Batch) -> bool:
    """Whether the run was made under the all-in showdown rule: a simulate run whose spec
    records rules version 2 or later (a run made before it, or files without their manifest,
    are not held to it: their engine's showdown mucked as at the river)."""
    facts = b.context.get("facts")
    return facts is not None and rules_version(facts.spec) >= 2


def payouts_map(b: Batch) -> Partial:
    codes = np.zeros(b.n, np.int32)
    aux = np.zeros(b.n, np.int64)
    paths = np.zeros(b.n, np.int64)
    why = np.zeros((4, b.n), np.int64)
    sc = b.seat
    sv, soff = b.var["showdown_seats"]
    sh, _ = b.var["showdown_shown"]
    sr, _ = b.var["showdown_ranks"]
    dv, doff = b.var["board"]
    c = b.cols
    unrec = sc.get("cards_unrecorded")
    if unrec is None:
        unrec = np.zeros((b.n, b.k), np.bool_)
    _payout_kernel(sc["occupied"], sc["stacks_start"], sc["contributed"], sc["folded"],
                   sc["won"], b.hole, unrec,
                   c["button"], b.act["street"], b.act["seat"], b.act["kind"], b.act["added"],
                   b.act_off, sv, sh, sr.astype(np.int64, copy=False), soff, dv, doff,
                   c["ante_trimming"], c["rake_bps"], c["rake_cap"], c["no_flop_no_drop"],
                   c["rake"], b.pots["amount"], b.pots["rake"], b.pots["eligible_mask"],
                   b.pots["winners_mask"], b.pot_off, b.deck is not None,
                   ~string_is(b, "generator", "phh") & _face_up_rules(b), TABLE,
                   np.zeros((POT_WINNERS_RULED + 1, b.k + 1), np.int64), codes, aux, paths, why)
    b.derived["payout_paths"] = paths  # the rule paths taken, for the coverage map
    # the failing hands' messages: what the log says beside what the rules give
    return partial_from_codes(b.cols["hand_id"], codes, aux, MESSAGES, logged=why[WHY_LOGGED],
                              expected=why[WHY_EXPECTED],
                              values={"logged2": why[WHY_LOGGED2],
                                      "expected2": why[WHY_EXPECTED2],
                                      "seats_logged": why[WHY_LOGGED],
                                      "seats_expected": why[WHY_EXPECTED],
                                      "card_logged": why[WHY_LOGGED],
                                      "card_logged2": why[WHY_LOGGED2],
                                      "seat_expected": why[WHY_EXPECTED]})


SPEC = AuditSpec("payouts", payouts_map, description=(
    "from the contributions, the folds and every live hand's cards (cards speak): pots and "
    "eligibility rebuilt, showdown order, ranks and mucks (none at an all-in showdown of a "
    "simulated run), winners, odd chips, rake, won"))
