"""Run-out calibration: is the board that follows an all-in the board a fair deck deals?

A dealer that keeps every deck a permutation can still re-deal the cards nobody has seen when
the result displeases it (a "bad-beat" dealer re-deals the rest of the deck when the favourite
would win; a "shill" dealer gives some players a second run-out). Every exact audit passes such
a deal, and so do the tests of deck positions and of who receives the hole cards. This audit
conditions on the game: for every hand whose last decision came before the river with two or
more hands live (an all-in, or a player all-in and the others done), each live hand's **exact
equity** at that point (its expected share of a win, ties split) is computed by enumerating every
remaining board (flop: C(u, 2) boards, turn: u; u the unseen cards; pre-flop, where C(u, 5) is
up to 1.7 million boards, an unbiased estimate from ``PREFLOP_SAMPLES`` boards, see below) with the
audits' own evaluator, and compared with the share it won on the board dealt. Under a fair deal
the remaining board is uniform over the cards not yet dealt, whatever the players did (the
decisions were all taken before it is dealt), so given the state at the all-in point each
hand's share has exactly that mean and variance, and the run-outs of different hands are
independent.

The unseen cards are the 52 minus every hole card known (in a simulated run: every occupied
seat's, folded ones too), the board dealt so far and the burns dealt so far. Imported hands
(no deck): the folded seats' cards are usually not known and are counted unseen; then the law
used treats them as uniform over the unseen cards, which the folds (decisions on those cards)
bend slightly: the statement is about the run-out given the cards that were seen.

Tests (each two-sided, normal by the central limit theorem over independent run-outs):

- ``runout_calibration``: the favourite's (the live hand with the highest equity) share minus
  its equity, summed over run-outs, over the square root of the summed exact variances;
- ``runout_bins``: the same per band of the favourite's equity (0.5-0.6, ..., 0.9-1.0), chi-square
  with one df per band;
- ``runout_seats``: each absolute seat's summed residual over its live hands, against the exact
  covariance (the live hands of one run-out share it), chi-square;
- ``runout_players``: per player with at least ``MIN_PLAYER_RUNOUTS`` live hands, his summed
  residual over its exact variance, normal two-sided, Bonferroni over the players;
- ``runout_dispersion``: without a list of suspects, the cross products of each player's
  residuals summed (a U-statistic), over the root of its martingale variance estimate in the
  run-outs' time order (a player's number of run-outs depends on his earlier ones: a lost
  all-in usually ends his stay), normal one-sided.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit
from scipy import stats as ss

from audits import stats
from audits.evaluator import TABLE, board_parts, eval_with_board

MAX_SEATS = 10
MIN_RUNOUTS = 30
MIN_PLAYER_RUNOUTS = 50
# a pre-flop all-in's exact equity enumerates C(u, 5) (up to 1.7 million) boards, ~50 ms a hand
# with this evaluator: beyond the audit's budget. Its equity is instead the mean share over
# PREFLOP_SAMPLES boards drawn from the unseen cards by a stream keyed by the hand id (an
# unbiased estimate, independent of the board dealt given the state: the residual still has
# mean 0 exactly; its variance is the boards' sample variance times 1 + 1 / PREFLOP_SAMPLES)
PREFLOP_SAMPLES = 32
MIN_BOARD = 0
BINS = np.array([0.5, 0.6, 0.7, 0.8, 0.9, 1.0 + 1e-9])
TESTS = ("runout_calibration", "runout_bins", "runout_seats", "runout_players",
         "runout_dispersion")
MIN_DISPERSION_PLAYERS = 20
# action kinds (the log's EventKind): the decisions of a player
FOLD, CHECK, CALL, BET, RAISE = 6, 7, 8, 9, 10


@dataclass
class RunoutPartial:
    """The run-outs of one batch: one row per live hand of each run-out."""

    runouts: int = 0
    # run-outs left out because a live hand's cards are unknown (a history that let an all-in
    # hand muck: the run-outs shown would be selected by their boards)
    incomplete: int = 0
    hand: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # run-out index
    seat: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    player: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    equity: np.ndarray = field(default_factory=lambda: np.zeros(0))
    # the equity that picks the favourite and its band: the exact equity again, or for a
    # pre-flop run-out a second, independent sample's (a favourite picked by the estimate it is
    # measured against would be a winner's curse: its estimate biased up)
    select: np.ndarray = field(default_factory=lambda: np.zeros(0))
    share: np.ndarray = field(default_factory=lambda: np.zeros(0))
    # per run-out: the exact covariance of its live hands' shares, (live, live) flattened
    cov: np.ndarray = field(default_factory=lambda: np.zeros(0))
    street: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # per run-out
    # per run-out, the keys of its time order (-1 unknown; ``runout_order``): the hand's time
    # in UTC seconds (an imported history's), its table and its number at the table
    time: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    table: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    hand_no: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))


@njit(cache=True)
def _last_decision_street(street, kind, a0, a1):  # pragma: no cover - compiled
    last = -1
    for j in range(a0, a1):
        q = kind[j]
        if q == FOLD or q == CHECK or q == CALL or q == BET or q == RAISE:
            last = street[j]
    return last


@njit(cache=True, _nrt=False)
def _credit(table, live_cards, nlive, b, scores, acc, acc2):  # pragma: no cover - compiled
    """One complete board ``b``: each live hand's share of the pot (ties split) added to
    ``acc``, and the products of the shares to ``acc2`` (their covariance)."""
    bkey, blanes = board_parts(b[0], b[1], b[2], b[3], b[4])
    best = -1
    ties = 0
    for s in range(nlive):
        v = eval_with_board(table, bkey, blanes, b[0], b[1], b[2], b[3], b[4],
                            live_cards[2 * s], live_cards[2 * s + 1])
        scores[s] = v
        if v > best:
            best, ties = v, 1
        elif v == best:
            ties += 1
    w = 1.0 / ties
    for s in range(nlive):
        if scores[s] == best:
            acc[s] += w
            for r in range(nlive):
                if scores[r] == best:
                    acc2[s, r] += w * w


@njit(cache=True)
def _enumerate(table, live_cards, nlive, board, nb, unseen, nu, acc, acc2):  # pragma: no cover
    """Every completion of ``board[:nb]`` to 5 cards from ``unseen[:nu]``: accumulates each live
    hand's share (``acc``) and the products of shares (``acc2``, nlive x nlive); returns the
    number of boards."""
    need = 5 - nb
    idx = np.zeros(5, np.int64)
    for t in range(need):
        idx[t] = t
    b = np.zeros(5, np.int64)
    for t in range(nb):
        b[t] = board[t]
    scores = np.zeros(MAX_SEATS, np.int64)
    count = 0
    while True:
        for t in range(need):
            b[nb + t] = unseen[idx[t]]
        _credit(table, live_cards, nlive, b, scores, acc, acc2)
        count += 1
        # next combination of ``need`` indices out of nu
        t = need - 1
        while t >= 0 and idx[t] == nu - need + t:
            t -= 1
        if t < 0:
            break
        idx[t] += 1
        for r in range(t + 1, need):
            idx[r] = idx[r - 1] + 1
    return count


@njit(cache=True, _nrt=False)
def _mix(x):  # pragma: no cover - compiled
    """splitmix64's output function."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def _sample(table, live_cards, nlive, unseen, nu, samples, key, acc, acc2):  # pragma: no cover
    """``samples`` boards of 5 distinct unseen cards (a partial Fisher-Yates on a stream keyed
    by ``key``): accumulates shares and their products as ``_enumerate``."""
    pool = unseen[:nu].copy()
    b = np.zeros(5, np.int64)
    scores = np.zeros(MAX_SEATS, np.int64)
    state = _mix(np.uint64(key) + np.uint64(0x9E3779B97F4A7C15))
    for _ in range(samples):
        for t in range(5):
            state += np.uint64(0x9E3779B97F4A7C15)
            j = t + np.int64(_mix(state) % np.uint64(nu - t))
            tmp = pool[t]
            pool[t] = pool[j]
            pool[j] = tmp
            b[t] = pool[t]
        _credit(table, live_cards, nlive, b, scores, acc, acc2)
    return samples


@njit(cache=True)
def _runout_kernel(table, occ, folded, hole, bv, boff, uv, uoff, has_burns, a_street, a_kind,
                   a_off, pid, hand_id, samples, max_nb0, out_hand, out_seat, out_pid, out_eq,
                   out_sel, out_share, out_cov, out_street, out_row):  # pragma: no cover
    n, k = occ.shape
    rows = 0
    cov_at = 0
    runs = 0
    incomplete = 0
    live_cards = np.zeros(2 * MAX_SEATS, np.int64)
    live_seat = np.zeros(MAX_SEATS, np.int64)
    unseen = np.zeros(52, np.int64)
    seen = np.zeros(52, np.bool_)
    board = np.zeros(5, np.int64)
    acc = np.zeros(MAX_SEATS)
    acc2 = np.zeros((MAX_SEATS, MAX_SEATS))
    sel = np.zeros(MAX_SEATS)
    sel2 = np.zeros((MAX_SEATS, MAX_SEATS))
    for i in range(n):
        if boff[i + 1] - boff[i] != 5:
            continue
        st = _last_decision_street(a_street, a_kind, a_off[i], a_off[i + 1])
        if st < 0 or st > 2:
            continue
        nb = 0 if st == 0 else st + 2  # cards on the board when the last decision was taken
        if nb < max_nb0:
            continue
        nlive = 0
        ok = True
        for s in range(k):
            if occ[i, s] and not folded[i, s]:
                a, c = hole[i, 2 * s], hole[i, 2 * s + 1]
                if a < 0 or a > 51 or c < 0 or c > 51:
                    ok = False
                live_cards[2 * nlive] = a
                live_cards[2 * nlive + 1] = c
                live_seat[nlive] = s
                nlive += 1
        if nlive < 2:
            continue
        if not ok:
            incomplete += 1
            continue
        for c in range(52):
            seen[c] = False
        for s in range(k):
            for h in range(2):
                c = hole[i, 2 * s + h]
                if 0 <= c <= 51:
                    seen[c] = True
        for t in range(5):
            board[t] = bv[boff[i] + t]
            if t < nb:
                seen[board[t]] = True
        if has_burns:
            for t in range(min(st, uoff[i + 1] - uoff[i])):
                c = uv[uoff[i] + t]
                if 0 <= c <= 51:
                    seen[c] = True
        nu = 0
        for c in range(52):
            if not seen[c]:
                unseen[nu] = c
                nu += 1
        for s in range(nlive):
            acc[s] = 0.0
            for r in range(nlive):
                acc2[s, r] = 0.0
        if nb == 0:
            cnt = _sample(table, live_cards, nlive, unseen, nu, samples, 2 * hand_id[i], acc,
                          acc2)
            scale = (cnt / (cnt - 1.0)) * (1.0 + 1.0 / cnt)
            for s in range(nlive):
                sel[s] = 0.0
            _sample(table, live_cards, nlive, unseen, nu, samples, 2 * hand_id[i] + 1, sel,
                    sel2)
        else:
            cnt = _enumerate(table, live_cards, nlive, board, nb, unseen, nu, acc, acc2)
            scale = 1.0
            for s in range(nlive):
                sel[s] = acc[s]
        # the share won on the board dealt
        bkey, blanes = board_parts(board[0], board[1], board[2], board[3], board[4])
        best = -1
        ties = 0
        sc = np.zeros(MAX_SEATS, np.int64)
        for s in range(nlive):
            v = eval_with_board(table, bkey, blanes, board[0], board[1], board[2], board[3],
                                board[4], live_cards[2 * s], live_cards[2 * s + 1])
            sc[s] = v
            if v > best:
                best, ties = v, 1
            elif v == best:
                ties += 1
        for s in range(nlive):
            e = acc[s] / cnt
            out_hand[rows] = runs
            out_seat[rows] = live_seat[s]
            out_pid[rows] = pid[i, live_seat[s]]
            out_eq[rows] = e
            out_sel[rows] = sel[s] / cnt
            out_share[rows] = 1.0 / ties if sc[s] == best else 0.0
            rows += 1
            for r in range(nlive):
                out_cov[cov_at] = scale * (acc2[s, r] / cnt - e * (acc[r] / cnt))
                cov_at += 1
        out_street[runs] = st
        out_row[runs] = i
        runs += 1
    return runs, rows, cov_at, incomplete


def runout_map_arrays(occ: np.ndarray, folded: np.ndarray, hole: np.ndarray,
                      board: tuple[np.ndarray, np.ndarray],
                      burns: tuple[np.ndarray, np.ndarray] | None,
                      actions: tuple[np.ndarray, np.ndarray, np.ndarray],
                      player_ids: np.ndarray | None = None, min_board: int = 0,
                      hand_id: np.ndarray | None = None, samples: int = PREFLOP_SAMPLES,
                      order_keys: tuple[np.ndarray | None, np.ndarray | None,
                                        np.ndarray | None] | None = None
                      ) -> RunoutPartial:
    """The run-outs of ``n`` hands: ``occ``/``folded`` (n, k), ``hole`` (n, 2k) (-1 unknown),
    ``board`` and ``burns`` as (values, offsets), ``actions`` as (street, kind, offsets);
    ``min_board`` > 0 leaves out the run-outs from fewer board cards; ``hand_id`` keys the
    pre-flop boards' sample (default: the row numbers); ``order_keys`` = (time in UTC seconds,
    table id, hand number), each (n,) or None (unknown: -1), the run-outs' time order."""
    n, k = occ.shape
    hole = np.ascontiguousarray(hole, np.int64)
    pid = (np.ascontiguousarray(player_ids, np.int64) if player_ids is not None
           else np.full((n, k), -1, np.int64))
    bv, boff = board
    uv, uoff = burns if burns is not None else (np.zeros(0, np.int64), np.zeros(n + 1, np.int64))
    a_street, a_kind, a_off = actions
    cap = n * MAX_SEATS
    out_hand = np.empty(cap, np.int64)
    out_seat = np.empty(cap, np.int64)
    out_pid = np.empty(cap, np.int64)
    out_eq = np.empty(cap)
    out_sel = np.empty(cap)
    out_share = np.empty(cap)
    out_cov = np.empty(n * MAX_SEATS * MAX_SEATS)
    out_street = np.empty(n, np.int64)
    out_row = np.empty(n, np.int64)
    runs, rows, cv, incomplete = _runout_kernel(
        TABLE, np.ascontiguousarray(occ, np.bool_), np.ascontiguousarray(folded, np.bool_),
        hole, np.asarray(bv, np.int64), np.asarray(boff, np.int64), np.asarray(uv, np.int64),
        np.asarray(uoff, np.int64), burns is not None, np.asarray(a_street, np.int64),
        np.asarray(a_kind, np.int64), np.asarray(a_off, np.int64), pid,
        np.asarray(np.arange(n) if hand_id is None else hand_id, np.int64), samples, min_board,
        out_hand,
        out_seat, out_pid, out_eq, out_sel, out_share, out_cov, out_street, out_row)
    at = out_row[:runs]
    keys = [np.full(runs, -1, np.int64) if x is None else np.asarray(x, np.int64)[at]
            for x in (order_keys or (None, None, None))]
    return RunoutPartial(runouts=runs, incomplete=incomplete, hand=out_hand[:rows].copy(),
                         seat=out_seat[:rows].copy(), player=out_pid[:rows].copy(),
                         equity=out_eq[:rows].copy(), select=out_sel[:rows].copy(),
                         share=out_share[:rows].copy(), cov=out_cov[:cv].copy(),
                         street=out_street[:runs].copy(), time=keys[0], table=keys[1],
                         hand_no=keys[2])


def runout_map(b: Any) -> RunoutPartial:
    """Map over one ``audits.io.Batch``."""
    if b.n == 0:
        return RunoutPartial()
    sc = b.seat
    burns = b.var.get("burns") if b.deck is not None else None
    if burns is not None and burns[0].size == 0 and b.deck is None:
        burns = None
    return runout_map_arrays(sc["occupied"], sc["folded"], b.hole, b.var["board"], burns,
                             (b.act["street"], b.act["kind"], b.act_off),
                             sc.get("player_ids"), MIN_BOARD, b.cols.get("hand_id"),
                             order_keys=(imp.get("time_utc") if (imp := getattr(b, "imp", None))
                                         else None, b.cols.get("table_id"),
                                         b.cols.get("hand_no")))


def merge(parts: list[RunoutPartial]) -> RunoutPartial:
    out = RunoutPartial()
    hands, off = [], 0
    for p in parts:
        hands.append(p.hand + off)
        off += p.runouts
    out.runouts = off
    out.incomplete = sum(p.incomplete for p in parts)
    if parts:
        out.hand = np.concatenate(hands)
        out.seat = np.concatenate([p.seat for p in parts])
        out.player = np.concatenate([p.player for p in parts])
        out.equity = np.concatenate([p.equity for p in parts])
        out.select = np.concatenate([p.select for p in parts])
        out.share = np.concatenate([p.share for p in parts])
        out.cov = np.concatenate([p.cov for p in parts])
        out.street = np.concatenate([p.street for p in parts])
        for name in ("time", "table", "hand_no"):
            setattr(out, name, np.concatenate([
                getattr(p, name) if getattr(p, name).size == p.runouts
                else np.full(p.runouts, -1, np.int64) for p in parts]))
    return out


# ---------------------------------------------------------------------------------------------
# reduce


def _favourites(q: RunoutPartial) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per run-out: (equity, share, variance, selecting equity) of its favourite (the highest
    selecting equity; the first seat among equals)."""
    live = np.bincount(q.hand, minlength=q.runouts)
    starts = np.cumsum(live) - live
    cov_size = live * live
    cov_starts = np.cumsum(cov_size) - cov_size
    # rows are grouped by run-out: the favourite is the argmax within each group
    order = np.lexsort((-q.select, q.hand))
    first = order[starts]
    pos = first - starts  # its place among the run-out's live hands
    var = q.cov[cov_starts + pos * live + pos]
    return q.equity[first], q.share[first], var, q.select[first]


def _z_test(res: np.ndarray, var: np.ndarray) -> tuple[float, float]:
    v = float(var.sum())
    if v <= 0:
        return 0.0, 1.0
    z = float(res.sum()) / math.sqrt(v)
    return z, float(2 * ss.norm.sf(abs(z)))


def calibration_test(q: RunoutPartial) -> dict[str, Any] | None:
    if q.runouts < MIN_RUNOUTS:
        return None
    eq, sh, var, _ = _favourites(q)
    z, p = _z_test(sh - eq, var)
    streets = {name: int((q.street == s).sum()) for s, name in enumerate(("pre-flop", "flop",
                                                                          "turn"))}
    return {"statistic": z, "p": p, "details": {
        "law": "normal: the favourite's share minus its exact equity (every remaining board "
               "enumerated), summed over run-outs, over the root of the summed exact variances",
        "runouts": q.runouts, "by_street": streets,
        # the summed exact variance: the power against a bad-beat rig (``audits.rig_power``)
        "variance": float(var.sum()),
        "favourite_equity": float(eq.mean()), "favourite_share": float(sh.mean())}}


def bins_test(q: RunoutPartial) -> dict[str, Any] | None:
    if q.runouts < MIN_RUNOUTS:
        return None
    eq, sh, var, chosen = _favourites(q)
    band = np.clip(np.searchsorted(BINS, chosen, side="right") - 1, 0, BINS.size - 2)
    x2, df, per = 0.0, 0, {}
    for j in range(BINS.size - 1):
        m = band == j
        if m.sum() < 10 or var[m].sum() <= 0:
            continue
        z, _ = _z_test(sh[m] - eq[m], var[m])
        x2 += z * z
        df += 1
        per[f"{BINS[j]:.1f}-{min(BINS[j + 1], 1.0):.1f}"] = {
            "runouts": int(m.sum()), "equity": float(eq[m].mean()),
            "share": float(sh[m].mean()), "z": z}
    if df == 0:
        return None
    return {"statistic": x2, "p": stats.chi2_sf(x2, df),
            "details": {"law": "chi2: the favourite's z per band of its equity", "df": df,
                        "bands": per}}


def seats_test(q: RunoutPartial) -> dict[str, Any] | None:
    if q.runouts < MIN_RUNOUTS:
        return None
    d = np.bincount(q.seat, weights=q.share - q.equity, minlength=MAX_SEATS)
    cov = np.zeros((MAX_SEATS, MAX_SEATS))
    live = np.bincount(q.hand, minlength=q.runouts)
    starts = np.cumsum(live) - live
    cov_starts = np.cumsum(live * live) - live * live
    for m in np.unique(live):
        hs = np.flatnonzero(live == m)
        seats_ = q.seat[starts[hs][:, None] + np.arange(m)]  # (h, m)
        blocks = q.cov[cov_starts[hs][:, None] + np.arange(m * m)].reshape(-1, m, m)
        for a in range(m):
            for b in range(m):
                np.add.at(cov, (seats_[:, a], seats_[:, b]), blocks[:, a, b])
    val, vec = np.linalg.eigh(cov)
    pos = val > max(val.max(), 1e-300) * 1e-10
    if not pos.any():
        return None
    proj = vec[:, pos].T @ d
    x2 = float((proj * proj / val[pos]).sum())
    df = int(pos.sum())
    sd = np.sqrt(np.maximum(np.diag(cov), 1e-300))
    return {"statistic": x2, "p": stats.chi2_sf(x2, df),
            "details": {"law": "chi2: each seat's summed share minus equity against the exact "
                               "covariance of the live hands of each run-out", "df": df,
                        "per_seat": {int(s): {"residual": float(d[s]), "z": float(d[s] / sd[s])}
                                     for s in range(MAX_SEATS) if cov[s, s] > 0}}}


def player_residuals(q: RunoutPartial) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(ids, live hands, summed residual, summed variance) per player (ids >= 0)."""
    live = np.bincount(q.hand, minlength=q.runouts)
    starts = np.cumsum(live) - live
    cov_starts = np.cumsum(live * live) - live * live
    pos = np.arange(q.hand.size) - starts[q.hand]
    var = q.cov[cov_starts[q.hand] + pos * live[q.hand] + pos]
    keep = q.player >= 0
    ids, inv = np.unique(q.player[keep], return_inverse=True)
    cnt = np.bincount(inv, minlength=ids.size)
    res = np.bincount(inv, weights=(q.share - q.equity)[keep], minlength=ids.size)
    v = np.bincount(inv, weights=var[keep], minlength=ids.size)
    return ids, cnt, res, v


def players_test(q: RunoutPartial) -> dict[str, Any] | None:
    ids, cnt, res, v = player_residuals(q)
    keep = (cnt >= MIN_PLAYER_RUNOUTS) & (v > 0)
    if not keep.any():
        return None
    z = res[keep] / np.sqrt(v[keep])
    ps = 2 * ss.norm.sf(np.abs(z))
    w = int(np.argmax(np.abs(z)))
    return {"statistic": float(z[w]), "p": stats.bonferroni_min(ps),
            "details": {"law": "normal per player: his summed share minus equity over its "
                               "exact variance, two-sided, Bonferroni over players",
                        "players": int(keep.sum()), "min_runouts": MIN_PLAYER_RUNOUTS,
                        "worst_player": int(ids[keep][w]),
                        "worst_player_runouts": int(cnt[keep][w])}}


def pair_entries(q: RunoutPartial) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every ordered pair (row a, row b) of live hands of one run-out (a == b too): (a, b, their
    exact covariance)."""
    live = np.bincount(q.hand, minlength=q.runouts)
    starts = np.cumsum(live) - live
    cov_starts = np.cumsum(live * live) - live * live
    ra, rb, at = [], [], []
    for m in np.unique(live[live > 0]):
        hs = np.flatnonzero(live == m)
        ia, ib = np.divmod(np.arange(m * m), m)
        ra.append((starts[hs][:, None] + ia).ravel())
        rb.append((starts[hs][:, None] + ib).ravel())
        at.append((cov_starts[hs][:, None] + np.arange(m * m)).ravel())
    if not ra:
        z = np.zeros(0, np.int64)
        return z, z, np.zeros(0)
    return np.concatenate(ra), np.concatenate(rb), q.cov[np.concatenate(at)]


def runout_order(q: RunoutPartial) -> tuple[np.ndarray, str, int]:
    """The run-outs in time order: (their indices, how the order was known, the players with
    live hands at two tables or more whose run-outs' relative order is not known). Every
    run-out with a time (an imported history's, UTC): by time, then table and hand number;
    else every run-out with a table: by table and hand number, exact for a simulated run (a
    player never changes tables, so only his own table's order matters), a player at several
    tables' run-outs taken table after table; else the order of the map (each batch's hands
    in their rows, the batches as given). Ties keep the map's order."""
    idx = np.arange(q.runouts)
    known = q.time.size == q.runouts and q.runouts > 0
    if known and (q.time >= 0).all():
        return np.lexsort((idx, q.hand_no, q.table, q.time)), "by the hands' time (UTC)", 0
    if known and (q.table >= 0).all():
        rows = q.player >= 0
        pairs = np.unique(np.stack([q.player[rows], q.table[q.hand[rows]]], axis=1), axis=0)
        _, cnt = np.unique(pairs[:, 0], return_counts=True)
        return (np.lexsort((idx, q.hand_no, q.table)), "by table and hand number",
                int((cnt > 1).sum()))
    return idx, "in the order of the map", 0


@njit(cache=True)
def _martingale(order, start, live, pl, d, n_players):  # pragma: no cover - compiled
    """U = sum over run-outs k in ``order`` of inc_k = sum over its live hands a of
    2 S_a(<k) d_ak (S_a(<k): player a's summed residual over his run-outs before k) and the
    sum of inc_k^2."""
    s = np.zeros(n_players)
    u = 0.0
    qv = 0.0
    for k in order:
        inc = 0.0
        for r in range(start[k], start[k] + live[k]):
            if pl[r] >= 0:
                inc += 2.0 * s[pl[r]] * d[r]
        u += inc
        qv += inc * inc
        for r in range(start[k], start[k] + live[k]):
            if pl[r] >= 0:
                s[pl[r]] += d[r]
    return u, qv


def dispersion_moments(q: RunoutPartial) -> dict[str, Any] | None:
    """The over-dispersion U-statistic of the players' run-out luck: U = the sum over players a
    of R_a^2 - sum_j d_aj^2 (R_a = sum_j d_aj, d the share minus the equity over his live
    run-out hands j): the cross products of each player's residuals only, computed in time
    order (``runout_order``) as U = sum over run-outs k of inc_k = sum over their live hands a
    of 2 S_a(<k) d_ak, S_a(<k) his summed residual before k. Under a fair deal the board of k
    is uniform over the unseen cards whatever came before, so d_ak has mean 0 given the past:
    U is a martingale, and its variance is estimated by the sum of the inc_k^2 (``var_hat``),
    whatever the past decided about who plays the next run-out. (The sum over pairs of
    players of their summed products, the former estimate, assumed each player's run-outs
    fixed in advance: a player who loses an all-in usually leaves, and it was biased low.)
    ``var_U`` is the variance with the computed covariances as if the run-outs were fixed (for
    the power). A player luckier in each of his run-outs adds the square of his summed luck;
    the squares of single residuals, heavy-tailed and blind to the luck's sign, are left out
    (and so are the products of one player's two live hands of one run-out, if a record holds
    any). None without player ids."""
    keep_rows = q.player >= 0
    if not keep_rows.any():
        return None
    ids, inv_rows = np.unique(q.player[keep_rows], return_inverse=True)
    pl = np.full(q.player.size, -1, np.int64)
    pl[keep_rows] = inv_rows
    n_p = ids.size
    d_all = q.share - q.equity
    a, b, c = pair_entries(q)
    var_row = np.zeros(q.player.size)
    diag = a == b
    var_row[a[diag]] = c[diag]
    both = (pl[a] >= 0) & (pl[b] >= 0)
    a, b, c = a[both], b[both], c[both]
    uk, kinv = np.unique(pl[a] * n_p + pl[b], return_inverse=True)
    tot = np.bincount(kinv, weights=c, minlength=uk.size)
    sq = np.bincount(kinv, weights=c * c, minlength=uk.size)
    var_model = float(2 * (tot * tot - sq).sum())
    order, how, unordered = runout_order(q)
    live = np.bincount(q.hand, minlength=q.runouts)
    starts = np.cumsum(live) - live
    u, qv = _martingale(order.astype(np.int64), starts, live, pl, d_all, n_p)
    d = d_all[keep_rows]
    res = np.bincount(inv_rows, weights=d, minlength=n_p)
    v = np.bincount(inv_rows, weights=var_row[keep_rows], minlength=n_p)
    cnt = np.bincount(inv_rows, minlength=n_p)
    # power: every run-out of a player luckier by delta of its standard deviation adds
    # delta^2 ((sum_j sd_j)^2 - sum_j v_j) to E[U]
    sd = np.sqrt(np.maximum(var_row[keep_rows], 0.0))
    ssd = np.bincount(inv_rows, weights=sd, minlength=n_p)
    gain = float((ssd * ssd - v).sum())
    # a shill's run-out luck rises by about its variance v_j (a second run-out whenever he would
    # lose: share e -> e + (1 - e) e): ((sum_j v_j)^2 - sum_j v_j^2) per shill to E[U]
    v2 = np.bincount(inv_rows, weights=var_row[keep_rows] ** 2, minlength=n_p)
    shill_gain = float((v * v - v2)[cnt >= 2].sum())
    return {"ids": ids, "res": res, "var": v, "count": cnt, "U": u, "var_U": var_model,
            "var_hat": qv, "order": how, "unordered_players": unordered, "gain": gain,
            "shill_gain": shill_gain}


def dispersion_test(q: RunoutPartial) -> dict[str, Any] | None:
    """Some players luckier than chance, without a list of suspects: the U-statistic of
    ``dispersion_moments`` over every player with two or more live run-out hands, over the
    root of its martingale variance estimate (the summed squares of its increments in time
    order), normal one-sided (large U: players luckier than chance). A player's luck counts
    by its square summed over his run-outs (his expected luck grows with them), so the default
    population's players, a few run-outs each, all count."""
    mo = dispersion_moments(q)
    if mo is None:
        return None
    multi = mo["count"] >= 2
    k = int(multi.sum())
    if k < MIN_DISPERSION_PLAYERS or mo["var_U"] <= 0 or mo["var_hat"] <= 0:
        return None
    z_u = mo["U"] / math.sqrt(mo["var_hat"])
    p_u = float(ss.norm.sf(z_u))
    active = mo["var"] > 0
    z = mo["res"][active] / np.sqrt(mo["var"][active])
    w = int(np.argmax(np.abs(z)))
    # 5% of the players (at random) luckier by delta standard deviations in every run-out:
    # E[U] grows by 0.05 delta^2 gain, caught with probability 0.9 at alpha 0.01 (normal)
    delta = math.sqrt((ss.norm.isf(0.01) + ss.norm.isf(0.1)) * math.sqrt(mo["var_hat"])
                      / (0.05 * mo["gain"])) if mo["gain"] > 0 else float("inf")
    n_med = float(np.median(mo["count"][multi]))
    order = f"run-outs ordered {mo['order']}"
    if mo["unordered_players"]:
        order += (f"; {mo['unordered_players']:,} players live at two tables or more without "
                  "the hands' times: their run-outs taken table after table (their products "
                  "count in U whatever the order; only the variance estimate's terms move)")
    return {"statistic": z_u, "p": p_u, "details": {
        "law": "normal one-sided: the sum over players of the cross products of their run-out "
               "residuals (share minus equity), mean 0, over the root of its martingale "
               "variance estimate (in time order, the summed squares of each run-out's "
               "increment: twice each live player's earlier summed residual times his residual "
               "here), valid whatever the earlier run-outs decided about who plays the next",
        "order": order,
        "u": mo["U"], "variance_estimate": mo["var_hat"], "variance_model": mo["var_U"],
        # E[U] added per unit share of shills (``audits.rig_power``: the shill rig's power)
        "shill_gain": mo["shill_gain"],
        "players": k, "players_with_one_runout": int((mo["count"] == 1).sum()),
        "median_runouts_per_player": n_med, "max_runouts_per_player": int(mo["count"].max()),
        "worst_player": int(mo["ids"][active][w]), "worst_player_z": float(z[w]),
        "worst_player_runouts": int(mo["count"][active][w]),
        "power": {"sentence": f"With {k:,} players of {n_med:.0f} run-out hands or more "
                              "(median), 5% of them whose every run-out is "
                              f"{delta:.3f} standard deviations of its share luckier than its "
                              "equity are caught with probability 0.9 at alpha 0.01 (a second "
                              "run-out whenever they would lose is about 0.45)."}}}


NOT_APPLICABLE = {
    "runout_calibration": f"not applicable: fewer than {MIN_RUNOUTS} run-outs (two or more "
                          "hands live after the last decision, before the river), or a run-out "
                          "whose live hands were not all shown (a history that lets an all-in "
                          "hand muck: the run-outs shown are selected by their boards)",
    "runout_bins": f"not applicable: fewer than {MIN_RUNOUTS} run-outs",
    "runout_seats": f"not applicable: fewer than {MIN_RUNOUTS} run-outs",
    "runout_players": f"not applicable: no player_ids, or no player with {MIN_PLAYER_RUNOUTS} "
                      "live hands in run-outs",
    "runout_dispersion": "not applicable: no player_ids, or fewer than "
                         f"{MIN_DISPERSION_PLAYERS} players with two live hands in run-outs",
}


def runout_tests(parts: list[RunoutPartial]) -> dict[str, dict[str, Any]]:
    """The applicable run-out tests; none when a run-out's live hand was not shown (the
    run-outs that were shown are then selected by their boards: no verdict from them)."""
    q = merge(parts)
    if q.incomplete:
        return {}
    out = {"runout_calibration": calibration_test(q), "runout_bins": bins_test(q),
           "runout_seats": seats_test(q), "runout_players": players_test(q),
           "runout_dispersion": dispersion_test(q)}
    return {t: r for t, r in out.items() if r is not None}
