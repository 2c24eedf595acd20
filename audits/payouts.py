"""Side pots and payouts (exact), with the audits' own pot builder and evaluator.

Pots are rebuilt from the logged contributions: levels are the distinct contributions of the
players who did not fold; each layer goes to a pot whose eligible players are the non-folded
players who reached its level; folded players' chips fill the layers they reached (chips above
every live level join the top pot). With ante_trimming false the antes are dead money in the main
pot. A layer with a single contributor is an uncalled bet that should have been returned.
Each pot goes to the best eligible shown hands (own evaluator), or to its only eligible player;
split equally, odd chips one each to the first winners clockwise from the button. Rake =
floor(total * rake_bps / 10000), capped by rake_cap, zero without a flop under no_flop_no_drop,
taken from the main pot first. Checked: the rake, every logged pot (amount, rake, eligible,
winners), nobody paid from a pot they were not eligible for, and won per seat.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from audits import paths as P
from audits.evaluator import TABLE, board_parts, eval_with_board, logged_strength, score5
from audits.io import Batch
from audits.result import Partial, partial_from_codes
from audits.spec import AuditSpec

MESSAGES = {
    1: "payout mismatch: seat {aux} won differs from the rebuilt payout",
    2: "rake mismatch: logged rake differs from the rebuilt rake ({aux})",
    3: "pot count mismatch: rebuilt {aux} pots",
    4: "pot amount/rake mismatch in pot {aux}",
    5: "pot eligibility mismatch in pot {aux}",
    6: "pot winners mismatch in pot {aux}",
    7: "paid from a pot not eligible for: pot {aux}",
    8: "uncalled chips not returned: seat {aux}",
    9: "contested pot {aux} with no shown hand",
    10: "showdown card error: seat {aux} shown without 5 board cards or after folding",
    11: "showdown lists seat {aux} wrongly: every live hand, once, from the river's last "
        "bettor (else the first live seat left of the button) clockwise",
    12: "showdown rank of seat {aux} is not the strength of its cards",
    13: "illegal muck: seat {aux} could win or tie a pot against the hands shown before it",
}


@njit(cache=True, _nrt=False)
def _next_live(live, s, k):
    """The first seat clockwise after s whose bit is set in ``live`` (-1 if none)."""
    t = s
    for _ in range(k):
        t = t + 1 if t + 1 < k else 0
        if (live >> t) & 1:
            return t
    return -1


@njit(cache=True, _nrt=False)
def _payout_kernel(occ, contrib, folded, won, hole, button, a_street, a_seat, a_kind, a_add,
                   act_off, sv, sshown, srank, soff, dv, doff, trim, rake_bps, rake_cap, nfnd,
                   rake_col, p_amt, p_rake, p_elig, p_win, p_off, speak, table, work, codes,
                   aux, paths):
    # compiled without NRT (no reference counting in the hot loop): it may not allocate, so the
    # per-seat state lives in the caller's ``work`` (10, k + 1) array. ``paths[i]`` gets the
    # rule paths (audits.paths bits) the rebuilt hand took.
    n, k = occ.shape
    c = work[0]
    ante = work[1]
    strength = work[2]
    shown = work[3]  # 0/1
    levels = work[4]
    pamt = work[5]
    pel = work[6]
    prk = work[7]
    mine = work[8]
    best_shown = work[9]  # per pot: the best strength shown so far in the showdown
    for i in range(n):
        for s in range(k):
            ante[s] = 0
        for j in range(act_off[i], act_off[i + 1]):
            if a_kind[j] == 0 and 0 <= a_seat[j] < k:
                ante[a_seat[j]] += a_add[j]
        dead = 0
        nlive = 0
        live = 0  # bit s: seat s is in the hand and did not fold
        for s in range(k):
            c[s] = contrib[i, s] - (0 if trim[i] else ante[s])
            if not trim[i]:
                dead += ante[s]
            if occ[i, s] and not folded[i, s]:
                nlive += 1
                live |= 1 << s
        # the showdown: which hands are scored. Cards speak when the hand's deck is logged (a
        # simulated hand, its hole cards bound to the deck by the deal audit): every live hand
        # is scored, whatever the log says was shown; imported histories score shown hands.
        for s in range(k):
            shown[s] = 0
        nb = doff[i + 1] - doff[i]
        d = doff[i]
        b0 = b1 = b2 = b3 = b4 = bkey = blanes = np.int64(0)
        if nb == 5:
            b0, b1, b2 = np.int64(dv[d]), np.int64(dv[d + 1]), np.int64(dv[d + 2])
            b3, b4 = np.int64(dv[d + 3]), np.int64(dv[d + 4])
            bkey, blanes = board_parts(b0, b1, b2, b3, b4)
        if speak and soff[i + 1] - soff[i] != (nlive if nlive >= 2 else 0):
            codes[i] = 11
            aux[i] = -1
            continue
        listed = 0
        for j in range(soff[i], soff[i + 1]):
            s = np.int64(sv[j])
            if s < 0 or s >= k or (listed >> s) & 1 or (speak and not (live >> s) & 1):
                codes[i] = 11 if speak else 10
                aux[i] = s
                break
            listed |= 1 << s
            if sshown[j]:
                if nb != 5 or not (live >> s) & 1:
                    codes[i] = 10
                    aux[i] = s
                    break
                shown[s] = 1
        if codes[i]:
            continue
        if speak and nlive >= 2:
            # the order: from the river's last bettor or raiser if still live, else from the
            # first live seat left of the button, clockwise
            first = -1
            j = act_off[i + 1] - 1
            while j >= act_off[i] and a_street[j] >= 3:  # the river's actions, last first
                if a_kind[j] == 9 or a_kind[j] == 10:
                    first = np.int64(a_seat[j])
                    break
                j -= 1
            if first < 0 or first >= k or not (live >> first) & 1:
                first = _next_live(live, button[i], k)
            s = first
            for j in range(soff[i], soff[i + 1]):
                if sv[j] != s:
                    codes[i] = 11
                    aux[i] = sv[j]
                    break
                s = _next_live(live, s, k)
            if codes[i]:
                continue
        for s in range(k):
            scored = shown[s] == 1 or (speak and nlive >= 2 and (live >> s) & 1)
            if scored and nb == 5 and hole[i, 2 * s] >= 0 and hole[i, 2 * s + 1] >= 0:
                strength[s] = eval_with_board(table, bkey, blanes, b0, b1, b2, b3, b4,
                                              np.int64(hole[i, 2 * s]),
                                              np.int64(hole[i, 2 * s + 1]))
                if speak:
                    shown[s] = 1  # cards speak: scored for the awards below
            elif shown[s]:
                codes[i] = 10
                aux[i] = s
                break
        if codes[i]:
            continue
        # each logged rank is its hand's strength (-1 for a muck)
        for j in range(soff[i], soff[i + 1]):
            s = np.int64(sv[j])
            want = logged_strength(strength[s]) if sshown[j] else -1
            if not sshown[j] and not speak:
                want = srank[j]  # an imported muck may keep its cards unknown
            if srank[j] != want:
                codes[i] = 12
                aux[i] = s
                break
        if codes[i]:
            continue
        # levels: distinct live contributions, sorted
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
                codes[i] = 8
                aux[i] = only
                break
            if amt > 0 or (npots == 0 and q == nl - 1):
                pamt[npots] = amt
                pel[npots] = elig
                npots += 1
            prev = lvl
        if codes[i]:
            continue
        extra = 0
        for s in range(k):
            if c[s] > prev:
                extra += c[s] - prev
        if extra > 0 and npots > 0:
            pamt[npots - 1] += extra
        total = 0
        for p in range(npots):
            total += pamt[p]
        rake = 0
        flags = (1 << P.SHOWDOWN) if nlive >= 2 else (1 << P.UNCONTESTED)
        if npots >= 2:
            flags |= 1 << P.SIDE_POT
        if npots >= 3:
            flags |= 1 << P.SIDE_POTS_3PLUS
        if rake_bps[i] > 0 and (nb >= 3 or not nfnd[i]):
            rake = total * rake_bps[i] // 10000
            if rake_cap[i] > 0 and rake >= rake_cap[i]:
                rake = rake_cap[i]
                flags |= 1 << P.RAKE_CAPPED
        elif rake_bps[i] > 0 and total > 0:
            flags |= 1 << P.NO_FLOP_NO_DROP
        if rake > 0:
            flags |= 1 << P.RAKE
        board = -1
        if nlive >= 2 and nb == 5:
            board = score5(b0, b1, b2, b3, b4)
            top = -1
            second = -1
            for s in range(k):
                if shown[s]:
                    st = strength[s]
                    if (st >> 20 == 4 or st >> 20 == 8) and (st >> 16) & 0xF == 3:
                        flags |= 1 << P.WHEEL
                    if st > top:
                        second = top
                        top = st
                    elif st > second:
                        second = st
            if second >= 0 and top != second and top >> 16 == second >> 16:
                flags |= 1 << P.KICKER  # same category and top rank: decided below it
        left = rake
        for p in range(npots):
            prk[p] = min(left, pamt[p])
            left -= prk[p]
        # compare logged pots
        lo = p_off[i]
        nlog = p_off[i + 1] - lo
        for p in range(nlog):
            if p_win[lo + p] & ~p_elig[lo + p]:
                codes[i] = 7
                aux[i] = p
                break
        if codes[i]:
            continue
        if rake != rake_col[i]:
            codes[i] = 2
            aux[i] = rake
            continue
        if speak:
            # a muck is legal only when, in every pot the seat could win, a hand shown before it
            # is strictly better: walk the showdown in order keeping each pot's best shown hand
            for p in range(npots):
                best_shown[p] = -1
            for j in range(soff[i], soff[i + 1]):
                m = np.int64(sv[j])
                bit = 1 << m
                for p in range(npots):
                    if pel[p] & bit:
                        if sshown[j]:
                            if strength[m] > best_shown[p]:
                                best_shown[p] = strength[m]
                        elif best_shown[p] <= strength[m]:
                            codes[i] = 13
                            aux[i] = m
                            break
                if codes[i]:
                    break
            if codes[i]:
                continue
        # award
        for s in range(k):
            mine[s] = 0
        for p in range(npots):
            elig = pel[p]
            cnt = 0
            for s in range(k):
                if elig & (1 << s):
                    cnt += 1
            winners = 0
            if cnt == 1:
                winners = elig
            else:
                best = -1
                for s in range(k):
                    if elig & (1 << s) and shown[s]:
                        if strength[s] > best:
                            best = strength[s]
                            winners = 1 << s
                        elif strength[s] == best:
                            winners |= 1 << s
                if best >= 0 and nb == 5 and best == board:
                    flags |= 1 << P.BOARD_PLAYS
            if winners == 0:
                codes[i] = 9
                aux[i] = p
                break
            if p < nlog and codes[i] == 0:
                if pamt[p] != p_amt[lo + p] or prk[p] != p_rake[lo + p]:
                    codes[i] = 4
                    aux[i] = p
                elif elig != p_elig[lo + p]:
                    codes[i] = 5
                    aux[i] = p
                elif winners != p_win[lo + p]:
                    codes[i] = 6
                    aux[i] = p
            nw = 0
            for s in range(k):
                if winners & (1 << s):
                    nw += 1
            amt = pamt[p] - prk[p]
            share = amt // nw
            odd = amt - share * nw
            if nw >= 2 and amt > 0:
                flags |= 1 << P.SPLIT_POT
                if odd > 0:
                    flags |= 1 << P.ODD_CHIP
            s = button[i]
            for _ in range(k):
                s = s + 1 if s + 1 < k else 0
                if winners & (1 << s):
                    mine[s] += share
                    if odd > 0:
                        mine[s] += 1
                        odd -= 1
        paths[i] = flags
        if codes[i] == 9:
            continue
        for s in range(k):
            if mine[s] != won[i, s]:
                codes[i] = 1
                aux[i] = s
                break
        if codes[i] == 0 and nlog != npots:
            codes[i] = 3
            aux[i] = npots


def payouts_map(b: Batch) -> Partial:
    codes = np.zeros(b.n, np.int32)
    aux = np.zeros(b.n, np.int64)
    paths = np.zeros(b.n, np.int64)
    sc = b.seat
    sv, soff = b.var["showdown_seats"]
    sh, _ = b.var["showdown_shown"]
    sr, _ = b.var["showdown_ranks"]
    dv, doff = b.var["board"]
    c = b.cols
    _payout_kernel(sc["occupied"], sc["contributed"], sc["folded"], sc["won"], b.hole,
                   c["button"], b.act["street"], b.act["seat"], b.act["kind"], b.act["added"],
                   b.act_off, sv, sh, sr.astype(np.int64, copy=False), soff, dv, doff,
                   c["ante_trimming"], c["rake_bps"], c["rake_cap"], c["no_flop_no_drop"],
                   c["rake"], b.pots["amount"], b.pots["rake"], b.pots["eligible_mask"],
                   b.pots["winners_mask"], b.pot_off, b.deck is not None, TABLE,
                   np.zeros((10, b.k + 1), np.int64), codes, aux, paths)
    b.derived["payout_paths"] = paths  # the rule paths taken, for the coverage map
    return partial_from_codes(b.cols["hand_id"], codes, aux, MESSAGES)


SPEC = AuditSpec("payouts", payouts_map, description=(
    "from the contributions, the folds and every live hand's cards (cards speak): pots and "
    "eligibility rebuilt, showdown order, ranks and mucks, winners, odd chips, rake, won"))
