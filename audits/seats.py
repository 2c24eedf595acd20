"""Fairness to each seat and player: tests of the uniformity battery that condition on WHO
receives the cards.

The battery's other tests count cards in deck positions; a shuffle that hands one seat the best
hand of the table (swapping whole hands between seats keeps every card/position count almost
exact) passes them. These tests look at the hole cards by absolute seat and by player, and at
the hands' equity on the table's full board. Under a fair deal (a uniform deck, dealt by any
fixed rule) the hands of the seats are exchangeable, so the laws below are exact:

- ``seat_hand_classes``: per absolute seat, Pearson X2 of its starting hands over the 169
  classes (each pair 6/1,326, each suited hand 4/1,326, each offsuit hand 12/1,326); a seat with
  fewer than 1,700 hands (5 expected in each suited class) over the 9 bands below instead; the
  largest X2 is reported, p = Bonferroni over the seats.
- ``player_hand_classes``: per player (``player_ids``) with at least 370 hands, his count in each
  of 9 bands: pair / suited / offsuit x the higher card A-Q, J-8, 7-2 (exact fractions of the
  1,326 combinations, the rarest AA-QQ 18/1,326), against its exact binomial law, two-sided;
  Bonferroni over players x bands (a chi-square per player was measured to alarm 2% of fair
  runs at alpha 1%: its tail is not accurate that far out with a few hundred hands).
- ``seat_equity``: the all-in winner of each hand, the seat whose two cards make the best 7-card
  hand with the table's full board (from the deck: burn, flop, burn, turn, burn, river after the
  hole cards), hands with a tie left out (an event symmetric
  in the seats). Given the occupied seats it is uniform over them, so the wins per seat are a sum
  of independent multinomial draws with exact mean and covariance C; the statistic D' C+ D
  (D = wins - mean) is chi-square with rank(C) df.
- ``player_equity``: per player with at least 100 such hands, his all-in wins against their
  exact law, a Poisson-binomial (probability 1/m in a hand of m occupied seats), two-sided;
  Bonferroni over the players.

A hand counts only when every occupied seat's hole cards are known (always in a simulated run).
Imported hands without decks, as far as their cards go: the class tests count a hand whose
every occupied seat's cards are known and one of those seats folded (the source recorded cards
nobody showed: which cards are known did not depend on the play; cards known because they were
shown are a selection these laws do not cover); the equity tests need the deck (a board is
known only when the players took the hand to the river). Equity uses the cards dealt, never the
bots' decisions: who folds is the players' choice, who would win is the deck's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np
from numba import njit
from scipy import fft as sp_fft
from scipy import stats as ss

from audits import stats
from audits.evaluator import TABLE, board_parts, eval_with_board

MAX_SEATS = 10
N_CLASSES = 169
N_BANDS = 9
MIN_SEAT_CLASSES = 1_700  # 1700 * 4 / 1326 > 5 expected hands in each suited class
MIN_BANDS = 370  # 370 * 18 / 1326 > 5 expected hands in the rarest band (pairs AA-QQ)
MIN_SEAT_EQUITY = 100  # all-in winners (with a tie left out) before the seat test applies
MIN_PLAYER_EQUITY = 100
RANKS = "23456789TJQKA"
TESTS = ("seat_hand_classes", "player_hand_classes", "seat_equity", "player_equity",
         "pooled_hand_classes", "pooled_hand_features", "player_dispersion")
MIN_DISPERSION_HANDS = 50  # a player's hands before he counts in the over-dispersion test
MIN_DISPERSION_PLAYERS = 20
FEATURES = ("pair", "suited", "connected")
BAND_NAMES = tuple(f"{t} {b}" for t in ("pair", "suited", "offsuit")
                   for b in ("A-Q", "J-8", "7-2"))


def _pair_index(hi: int, lo: int) -> int:
    """0..77 for ranks hi > lo."""
    return hi * (hi - 1) // 2 + lo


def class_name(c: int) -> str:
    """'AA', 'AKs', 'T9o' of class index c (0..12 pairs, 13..90 suited, 91..168 offsuit)."""
    if c < 13:
        return RANKS[c] * 2
    kind, idx = ("s", c - 13) if c < 91 else ("o", c - 91)
    hi = next(h for h in range(1, 13) if _pair_index(h, 0) <= idx < _pair_index(h + 1, 0))
    return RANKS[hi] + RANKS[idx - _pair_index(hi, 0)] + kind


def _band(rank: int) -> int:
    return 0 if rank >= 10 else (1 if rank >= 6 else 2)


def _class_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(class of each card pair (52 x 52, -1 on the diagonal), band of each class, exact class
    probabilities): every one of the 1,326 two-card combinations counted once."""
    cls = np.full((52, 52), -1, np.int64)
    band = np.zeros(N_CLASSES, np.int64)
    combos = np.zeros(N_CLASSES, np.int64)
    for a, b in combinations(range(52), 2):
        ra, rb = a // 4, b // 4
        hi, lo = max(ra, rb), min(ra, rb)
        if ra == rb:
            c, t = ra, 0
        elif a % 4 == b % 4:
            c, t = 13 + _pair_index(hi, lo), 1
        else:
            c, t = 91 + _pair_index(hi, lo), 2
        cls[a, b] = cls[b, a] = c
        band[c] = 3 * t + _band(hi)
        combos[c] += 1
    return cls, band, combos / combos.sum()


CARD_CLASS, CLASS_BAND, CLASS_PROBS = _class_tables()
BAND_PROBS = np.bincount(CLASS_BAND, weights=CLASS_PROBS, minlength=N_BANDS)


def _class_features() -> np.ndarray:
    """(169, 3) 0/1: pair, suited, connected (ranks one apart, A-2 too) of each class."""
    f = np.zeros((N_CLASSES, len(FEATURES)))
    for a, b in combinations(range(52), 2):
        ra, rb = a // 4, b // 4
        c = CARD_CLASS[a, b]
        f[c, 0] = ra == rb
        f[c, 1] = a % 4 == b % 4
        f[c, 2] = abs(ra - rb) == 1 or {ra, rb} == {0, 12}
    return f


CLASS_FEATURES = _class_features()
MIN_POOLED_CLASSES = 1_700  # seat-hands over all seats: > 5 expected in each suited class
MIN_POOLED_FEATURES = 200


@lru_cache(maxsize=1)
def _disjoint_joint() -> np.ndarray:
    """(169, 169) P(seat A's class = c, seat B's class = d) for two seats of one fair deal
    (two disjoint two-card hands, every ordered pair of the 1,326 x 1,225 equally likely)."""
    combos = np.array(list(combinations(range(52), 2)), np.int64)
    bits = (np.int64(1) << combos[:, 0]) | (np.int64(1) << combos[:, 1])
    cls = CARD_CLASS[combos[:, 0], combos[:, 1]]
    out = np.zeros(N_CLASSES * N_CLASSES)
    for i in range(0, combos.shape[0], 256):  # 256 rows at a time: a few MB
        disjoint = (bits[i:i + 256, None] & bits[None, :]) == 0
        rows, cols = np.nonzero(disjoint)
        out += np.bincount(cls[i + rows] * N_CLASSES + cls[cols], minlength=N_CLASSES ** 2)
    return (out / out.sum()).reshape(N_CLASSES, N_CLASSES)


def pooled_covariance(hands_by_m: np.ndarray, features: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray]:
    """(mean, covariance) of the class counts pooled over every seat (or of ``features``
    (169, d) summed over them) for ``hands_by_m[m]`` hands of m seats dealt from fair decks:
    per hand m (diag p - p p') + m (m - 1) (J - p p'), J the two-seat joint law (exact)."""
    p = CLASS_PROBS
    one = np.diag(p) - np.outer(p, p)
    two = _disjoint_joint() - np.outer(p, p)
    ms = np.arange(hands_by_m.size, dtype=np.float64)
    n = hands_by_m.astype(np.float64)
    mean = float((n * ms).sum()) * p
    cov = float((n * ms).sum()) * one + float((n * ms * (ms - 1)).sum()) * two
    if features is not None:
        return features.T @ mean, features.T @ cov @ features
    return mean, cov


def _mahalanobis(d: np.ndarray, cov: np.ndarray) -> tuple[float, int]:
    """D' C+ D over C's range, and its rank."""
    val, vec = np.linalg.eigh(cov)
    pos = val > val.max() * 1e-10
    proj = vec[:, pos].T @ d
    return float((proj * proj / val[pos]).sum()), int(pos.sum())


# ---------------------------------------------------------------------------------------------
# map


@dataclass
class SeatPartial:
    """Sufficient statistics of one batch for the seat and player tests."""

    hands: int = 0  # hands whose every occupied seat's cards are known
    classes: np.ndarray = field(default_factory=lambda: np.zeros((MAX_SEATS, N_CLASSES),
                                                                 np.int64))
    # all-in winners: hands (no tie) by occupied-seat mask, and wins by seat
    masks: np.ndarray = field(default_factory=lambda: np.zeros(1 << MAX_SEATS, np.int64))
    wins: np.ndarray = field(default_factory=lambda: np.zeros(MAX_SEATS, np.int64))
    # per player: ids, band counts (P, 9), all-in hands by occupied seats m (P, 11), wins (P)
    player_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    player_bands: np.ndarray = field(default_factory=lambda: np.zeros((0, N_BANDS), np.int64))
    player_hands: np.ndarray = field(default_factory=lambda: np.zeros((0, MAX_SEATS + 1),
                                                                      np.int64))
    player_wins: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    has_players: bool = False
    # hands by the number of seats whose class counted (the pooled tests' exact covariance)
    pooled_m: np.ndarray = field(default_factory=lambda: np.zeros(MAX_SEATS + 1, np.int64))


@njit(cache=True)
def _seat_kernel(hole, occ, deck, has_deck, card_class, table, cls, winner,
                 mask, m_out):  # pragma: no cover - compiled
    """Per row: the class of each occupied seat's hand (-1: none), the all-in winner seat
    (-1 a tie, -2 not decidable), the occupied mask and count. Rows with an occupied seat whose
    cards are unknown (or not cards) get no class at all (-1) and winner -2."""
    n, k = occ.shape
    scores = np.zeros(k, np.int64)
    for i in range(n):
        winner[i] = -2
        m = 0
        msk = 0
        known = True
        for s in range(k):
            cls[i, s] = -1
            if occ[i, s]:
                m += 1
                msk |= 1 << s
                a, b = hole[i, 2 * s], hole[i, 2 * s + 1]
                if a < 0 or a > 51 or b < 0 or b > 51 or a == b:
                    known = False
        mask[i] = msk
        m_out[i] = m
        if not known or m == 0:
            continue
        for s in range(k):
            if occ[i, s]:
                cls[i, s] = card_class[hole[i, 2 * s], hole[i, 2 * s + 1]]
        if m < 2 or not has_deck:
            continue
        # the full board from the deck: burn, 3 flop, burn, turn, burn, river after the hole
        # cards (whether or not the hand went that far)
        p = 2 * m
        b0, b1, b2 = np.int64(deck[i, p + 1]), np.int64(deck[i, p + 2]), np.int64(deck[i, p + 3])
        b3, b4 = np.int64(deck[i, p + 5]), np.int64(deck[i, p + 7])
        if (b0 < 0 or b1 < 0 or b2 < 0 or b3 < 0 or b4 < 0
                or b0 > 51 or b1 > 51 or b2 > 51 or b3 > 51 or b4 > 51):
            continue
        bkey, blanes = board_parts(b0, b1, b2, b3, b4)
        best = -1
        who = -1
        for s in range(k):
            if occ[i, s]:
                v = eval_with_board(table, bkey, blanes, b0, b1, b2, b3, b4,
                                    np.int64(hole[i, 2 * s]), np.int64(hole[i, 2 * s + 1]))
                scores[s] = v
                if v > best:
                    best, who = v, s
                elif v == best:
                    who = -1
        winner[i] = who


def seat_map(hole: np.ndarray, occupied: np.ndarray | None = None,
             deck: np.ndarray | None = None, player_ids: np.ndarray | None = None,
             folded: np.ndarray | None = None) -> SeatPartial:
    """The seat partial of ``n`` hands: ``hole`` (n, 2k) (seat s in columns 2s, 2s + 1, -1
    unknown or empty), ``occupied`` (n, k) (default: the seats holding cards), ``deck`` (n, 52)
    for the full board, ``player_ids`` (n, k).

    Without decks (imported hands) a hand counts only when every occupied seat's cards are
    known and one of those seats folded (``folded`` (n, k)): the source recorded cards nobody
    showed, so which cards are known did not depend on the play; and the all-in winner is not
    computed (the board is known only when the players took the hand to the river)."""
    hole = np.ascontiguousarray(hole, np.int64)
    n, k = hole.shape[0], hole.shape[1] // 2
    p = SeatPartial()
    if n == 0 or k == 0 or k > MAX_SEATS:
        return p
    occ = (np.ascontiguousarray(occupied, np.bool_) if occupied is not None
           else (hole[:, 0::2] >= 0) | (hole[:, 1::2] >= 0))
    has_deck = deck is not None
    # the deck bytes as they are (uint8, each board card widened in the kernel): an int64 copy
    # of every deck cost more than the board reads
    dk = (np.ascontiguousarray(deck).view(np.uint8) if has_deck
          else np.zeros((n, 1), np.uint8))
    if not has_deck:
        # hands whose cards were recorded whatever the play: a folded seat's cards are known
        recorded = np.zeros((n, 1), np.bool_)
        if folded is not None:
            recorded[:, 0] = (np.asarray(folded, np.bool_).reshape(n, k) & occ).any(axis=1)
        occ = occ & recorded
    cls = np.empty((n, k), np.int64)
    winner = np.empty(n, np.int64)
    mask = np.empty(n, np.int64)
    m = np.empty(n, np.int64)
    _seat_kernel(hole, occ, dk, has_deck, CARD_CLASS, TABLE, cls, winner, mask, m)
    counted = (cls >= 0).sum(axis=1)
    known = counted > 0
    p.hands = int(known.sum())
    p.pooled_m = np.bincount(counted[known], minlength=MAX_SEATS + 1).astype(np.int64)
    for s in range(k):
        c = cls[:, s]
        p.classes[s] = np.bincount(c[c >= 0], minlength=N_CLASSES)
    decided = winner >= 0
    p.masks = np.bincount(mask[decided], minlength=1 << MAX_SEATS).astype(np.int64)
    p.wins = np.bincount(winner[decided], minlength=MAX_SEATS).astype(np.int64)
    if player_ids is not None:
        _players(p, np.asarray(player_ids, np.int64).reshape(n, k), cls, winner, m)
    return p


def _players(p: SeatPartial, pid: np.ndarray, cls: np.ndarray, winner: np.ndarray,
             m: np.ndarray) -> None:
    """Per player: band counts, all-in hands by occupied seats, all-in wins."""
    p.has_players = True
    seated = (cls >= 0) & (pid >= 0)
    ids, inv = _ids_and_inverse(pid[seated])  # row-major: the kernel's order
    n_p = ids.size
    p.player_ids = ids
    p.player_bands = np.zeros((n_p, N_BANDS), np.int64)
    p.player_hands = np.zeros((n_p, MAX_SEATS + 1), np.int64)
    p.player_wins = np.zeros(n_p, np.int64)
    _player_kernel(np.ascontiguousarray(seated), np.ascontiguousarray(cls),
                   np.ascontiguousarray(inv, np.int64), winner, m, CLASS_BAND, p.player_bands,
                   p.player_hands, p.player_wins)


@njit(cache=True)
def _player_kernel(seated, cls, inv, winner, m, class_band, bands, hands,
                   wins):  # pragma: no cover - compiled
    """One pass over the seated (row, seat)s in row-major order, ``inv`` their players: the
    band counts, the all-in hands (winner decided) by occupied seats, the wins."""
    j = 0
    for i in range(seated.shape[0]):
        for s in range(seated.shape[1]):
            if not seated[i, s]:
                continue
            q = inv[j]
            j += 1
            bands[q, class_band[cls[i, s]]] += 1
            if winner[i] >= 0:
                hands[q, m[i]] += 1
                if winner[i] == s:
                    wins[q] += 1


def _ids_and_inverse(vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(vals, return_inverse=True)`` of int64 ids; ids within a span of a few times
    their count (the simulator's: a batch's players are numbered in order) by a presence table
    and its running count instead of a sort (the same arrays, in linear time; 5 bytes an id of
    the span: a later batch's span reaches back to the players seated since the start)."""
    if vals.size:
        lo, hi = int(vals.min()), int(vals.max())
        if hi - lo < 8 * vals.size + (1 << 20):
            present = np.zeros(hi - lo + 1, np.bool_)
            present[vals - lo] = True
            rank = np.cumsum(present, dtype=np.int32)
            return np.flatnonzero(present) + lo, rank[vals - lo].astype(np.int64) - 1
    ids, inv = np.unique(vals, return_inverse=True)
    return ids, inv


def merge(parts: list[SeatPartial]) -> SeatPartial:
    """The sum of several partials (players of different partials matched by id)."""
    out = SeatPartial()
    for q in parts:
        out.hands += q.hands
        out.classes += q.classes
        out.masks += q.masks
        out.wins += q.wins
        out.pooled_m += q.pooled_m
        out.has_players |= q.has_players
    with_players = [q for q in parts if q.player_ids.size]
    if with_players:
        ids = np.concatenate([q.player_ids for q in with_players])
        uniq, inv = np.unique(ids, return_inverse=True)
        out.player_ids = uniq
        out.player_bands = np.zeros((uniq.size, N_BANDS), np.int64)
        out.player_hands = np.zeros((uniq.size, MAX_SEATS + 1), np.int64)
        out.player_wins = np.zeros(uniq.size, np.int64)
        np.add.at(out.player_bands, inv, np.concatenate([q.player_bands for q in with_players]))
        np.add.at(out.player_hands, inv, np.concatenate([q.player_hands for q in with_players]))
        np.add.at(out.player_wins, inv, np.concatenate([q.player_wins for q in with_players]))
    return out


# ---------------------------------------------------------------------------------------------
# reduce: each applicable test as {"statistic", "p", "details"} (the battery's Holm takes it)


def _worst_classes(counts: np.ndarray, n: int, top: int = 3) -> list[dict[str, Any]]:
    e = n * CLASS_PROBS
    z = (counts - e) / np.sqrt(e * (1 - CLASS_PROBS))
    order = np.argsort(-np.abs(z))[:top]
    return [{"class": class_name(int(c)), "count": int(counts[c]), "expected": float(e[c]),
             "z": float(z[c])} for c in order]


def seat_classes_test(classes: np.ndarray) -> dict[str, Any] | None:
    per: dict[int, dict[str, Any]] = {}
    for s in range(classes.shape[0]):
        c = classes[s]
        n = int(c.sum())
        if n >= MIN_SEAT_CLASSES:
            x2, df, pv = stats.pearson_probs(c, CLASS_PROBS)
            per[s] = {"hands": n, "cells": "169 classes", "x2": x2, "df": df, "p": pv,
                      "largest_deviations": _worst_classes(c, n)}
        elif n >= MIN_BANDS:
            bands = np.bincount(CLASS_BAND, weights=c, minlength=N_BANDS)
            x2, df, pv = stats.pearson_probs(bands, BAND_PROBS)
            per[s] = {"hands": n, "cells": "9 bands", "x2": x2, "df": df, "p": pv}
    if not per:
        return None
    worst = min(per, key=lambda s: per[s]["p"])
    return {"statistic": float(per[worst]["x2"]),
            "p": stats.bonferroni_min([v["p"] for v in per.values()]),
            "details": {"law": "chi2 per absolute seat (exact class fractions), Bonferroni over "
                               "seats", "worst_seat": worst, "per_seat": per,
                        "min_hands": {"169 classes": MIN_SEAT_CLASSES, "9 bands": MIN_BANDS}}}


def player_classes_test(q: SeatPartial) -> dict[str, Any] | None:
    """Per player and band, the exact two-sided binomial tail of his count (Bonferroni over
    players x bands: exact whatever the dependence; a chi-square per player is not accurate
    this far in its tail with a few hundred hands)."""
    n = q.player_bands.sum(axis=1) if q.player_ids.size else np.zeros(0, np.int64)
    keep = np.flatnonzero(n >= MIN_BANDS)
    if keep.size == 0:
        return None
    x = q.player_bands[keep].astype(np.float64)
    nn = n[keep][:, None].astype(np.float64)
    lo = ss.binom.cdf(x, nn, BAND_PROBS[None, :])
    hi = ss.binom.sf(x - 1, nn, BAND_PROBS[None, :])
    tails = np.minimum(1.0, 2.0 * np.minimum(lo, hi))
    w, b = np.unravel_index(int(np.argmin(tails)), tails.shape)
    j = int(keep[w])
    z = (x[w, b] - nn[w, 0] * BAND_PROBS[b]) / math.sqrt(
        nn[w, 0] * BAND_PROBS[b] * (1 - BAND_PROBS[b]))
    return {"statistic": float(z), "p": stats.bonferroni_min(tails.ravel()),
            "details": {"law": "exact binomial per player and band, two-sided, Bonferroni over "
                               f"players x {N_BANDS} bands", "players": int(keep.size),
                        "players_below_min": int(q.player_ids.size - keep.size),
                        "min_hands": MIN_BANDS, "worst_player": int(q.player_ids[j]),
                        "worst_player_hands": int(n[j]), "worst_band": BAND_NAMES[b],
                        "worst_count": int(x[w, b]),
                        "worst_expected": float(nn[w, 0] * BAND_PROBS[b]),
                        "worst_player_bands": dict(zip(BAND_NAMES,
                                                       q.player_bands[j].tolist(), strict=True)),
                        "band_fractions": dict(zip(BAND_NAMES, BAND_PROBS.tolist(),
                                                   strict=True))}}


def seat_equity_test(masks: np.ndarray, wins: np.ndarray) -> dict[str, Any] | None:
    """Wins by seat against their exact mean and covariance given the hands' occupied seats."""
    total = int(masks.sum())
    if total < MIN_SEAT_EQUITY:
        return None
    mean = np.zeros(MAX_SEATS)
    cov = np.zeros((MAX_SEATS, MAX_SEATS))
    for msk in np.flatnonzero(masks):
        seats = [s for s in range(MAX_SEATS) if msk >> s & 1]
        pr = np.zeros(MAX_SEATS)
        pr[seats] = 1.0 / len(seats)
        c = float(masks[msk])
        mean += c * pr
        cov += c * (np.diag(pr) - np.outer(pr, pr))
    d = wins - mean
    val, vec = np.linalg.eigh(cov)
    pos = val > val.max() * 1e-10
    df = int(pos.sum())
    if df == 0:
        return None
    proj = vec[:, pos].T @ d
    q = float((proj * proj / val[pos]).sum())
    seats_seen = [s for s in range(MAX_SEATS) if mean[s] > 0]
    return {"statistic": q, "p": stats.chi2_sf(q, df),
            "details": {"law": "chi2 (exact multinomial covariance given each hand's occupied "
                               "seats)", "df": df, "hands": total,
                        "per_seat": {s: {"wins": int(wins[s]), "expected": float(mean[s])}
                                     for s in seats_seen}}}


def poisson_binomial_pmf(hands_by_m: np.ndarray) -> np.ndarray:
    """The law of the number of wins: a sum of Binomial(n_m, 1/m) over m (exact convolution)."""
    return _convolve_pieces(_binom_pieces(hands_by_m[None, :])[0])


def _convolve_pieces(pieces: list[np.ndarray]) -> np.ndarray:
    """The law of a sum of independent counts given each count's pmf, in order (convolution)."""
    pmf = np.ones(1)
    for b in pieces:
        pmf = _fftconvolve(pmf, b) if pmf.size > 64 and b.size > 64 else np.convolve(pmf, b)
        pmf = np.clip(pmf, 0.0, None)
    return pmf / pmf.sum()


def _fftconvolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``scipy.signal.fftconvolve(a, b)`` of two 1-d float arrays, the same pocketfft calls on
    the same padded length (so the same bits) without its per-call dispatch, and without
    importing scipy.signal (seconds at start)."""
    shape = a.size + b.size - 1
    n = sp_fft.next_fast_len(shape, True)
    return sp_fft.irfft(sp_fft.rfft(a, n) * sp_fft.rfft(b, n), n)[:shape]


def _binom_pieces(hands: np.ndarray) -> list[list[np.ndarray]]:
    """Per row of ``hands`` (hands by occupied seats m, shape (P, M)): the pmfs of Binomial(n_m,
    1/m) for m = 2, 3, ... with n_m > 0, in order of m. One scipy call over every row and m: per
    call, ``binom.logpmf``'s own overhead (~50 µs) cost more than the arithmetic; elementwise
    the values are the same ufuncs' on the same operands."""
    rows, cols = np.nonzero(hands[:, 2:])  # row-major: by row, then m ascending
    ms = cols + 2
    ns = hands[rows, ms].astype(np.int64)
    sizes = ns + 1
    starts = np.cumsum(sizes) - sizes
    k = np.arange(int(sizes.sum()), dtype=np.int64) - np.repeat(starts, sizes)
    b = np.exp(ss.binom.logpmf(k, np.repeat(ns, sizes), np.repeat(1.0 / ms, sizes)))
    flat = np.split(b, np.cumsum(sizes)[:-1]) if sizes.size else []
    out: list[list[np.ndarray]] = [[] for _ in range(hands.shape[0])]
    for r, piece in zip(rows.tolist(), flat, strict=True):
        out[r].append(piece)
    return out


def _two_sided(pmf: np.ndarray, k: int) -> float:
    lo = float(pmf[:k + 1].sum())
    hi = float(pmf[k:].sum())
    return min(1.0, 2.0 * min(lo, hi))


def player_equity_test(q: SeatPartial) -> dict[str, Any] | None:
    if not q.player_ids.size:
        return None
    n = q.player_hands.sum(axis=1)
    keep = np.flatnonzero(n >= MIN_PLAYER_EQUITY)
    if keep.size == 0:
        return None
    ms = np.arange(MAX_SEATS + 1)
    safe = np.where(ms > 0, ms, 1)
    h_all = q.player_hands[keep]
    w_all = q.player_wins[keep].astype(np.float64)
    e = (h_all / safe).sum(axis=1)
    v = (h_all * (1 / safe) * (1 - 1 / safe)).sum(axis=1)
    zs = np.where(v > 0, (w_all - e) / np.sqrt(np.where(v > 0, v, 1.0)), 0.0)
    # a player whose hands all had the same number of seats m: Binomial(n, 1/m), vectorized;
    # the others (tables whose occupancy changed): the exact convolution
    single = (h_all > 0).sum(axis=1) == 1
    m1 = np.argmax(h_all > 0, axis=1)
    n1 = h_all.sum(axis=1)
    pr = 1.0 / np.where(m1 > 0, m1, 1)
    lo = ss.binom.cdf(w_all, n1, pr)
    hi = ss.binom.sf(w_all - 1, n1, pr)
    ps = np.minimum(1.0, 2.0 * np.minimum(lo, hi))
    mixed = np.flatnonzero(~single)
    for i, pieces in zip(mixed.tolist(), _binom_pieces(h_all[mixed]), strict=True):
        ps[i] = _two_sided(_convolve_pieces(pieces), int(w_all[i]))
    w_ = int(np.argmin(ps))
    top = int(keep[w_])
    h = q.player_hands[top]
    return {"statistic": float(zs[w_]), "p": stats.bonferroni_min(ps),
            "details": {"law": "exact Poisson-binomial per player (1/m in a hand of m occupied "
                               "seats), two-sided, Bonferroni over players",
                        "players": int(keep.size), "min_hands": MIN_PLAYER_EQUITY,
                        "players_below_min": int(q.player_ids.size - keep.size),
                        "worst_player": int(q.player_ids[top]),
                        "worst_player_hands": int(h.sum()),
                        "worst_player_wins": int(q.player_wins[top]),
                        "worst_player_expected": float((h / safe).sum()),
                        "worst_player_p": float(ps[w_])}}


def pooled_classes_test(classes: np.ndarray, hands_by_m: np.ndarray) -> dict[str, Any] | None:
    """The 169 classes counted over every seat together (a bias spread over the seats that
    each seat's own test sees a ninth of), against their exact mean and covariance (the seats
    of one hand share a deck: their classes are dependent)."""
    counts = classes.sum(axis=0).astype(np.float64)
    n = int(counts.sum())
    if n < MIN_POOLED_CLASSES:
        return None
    mean, cov = pooled_covariance(hands_by_m)
    q, df = _mahalanobis(counts - mean, cov)
    return {"statistic": q, "p": stats.chi2_sf(q, df),
            "details": {"law": "chi2 (exact mean and covariance of the class counts pooled "
                               "over the seats of each hand)", "df": df, "seat_hands": n,
                        "largest_deviations": _worst_classes(counts, n)}}


def pooled_features_test(classes: np.ndarray, hands_by_m: np.ndarray) -> dict[str, Any] | None:
    """Pairs, suited and connected hands (ranks one apart, A-2 too) counted over every seat,
    one chi-square (3 df) against their exact mean and covariance."""
    counts = classes.sum(axis=0).astype(np.float64)
    n = int(counts.sum())
    if n < MIN_POOLED_FEATURES:
        return None
    mean, cov = pooled_covariance(hands_by_m, CLASS_FEATURES)
    got = CLASS_FEATURES.T @ counts
    q, df = _mahalanobis(got - mean, cov)
    sd = np.sqrt(np.diag(cov))
    return {"statistic": q, "p": stats.chi2_sf(q, df),
            "details": {"law": "chi2 (exact mean and covariance of the pooled counts)", "df": df,
                        "seat_hands": n,
                        "per_feature": {f: {"count": int(got[j]), "expected": float(mean[j]),
                                            "relative": float(got[j] / mean[j] - 1),
                                            "sd": float(sd[j]),
                                            "z": float((got[j] - mean[j]) / sd[j])}
                                        for j, f in enumerate(FEATURES)}}}


def player_dispersion_test(q: SeatPartial) -> dict[str, Any] | None:
    """Some players dealt better cards than chance, without a list of suspects: each player's
    pairs and suited hands (from his bands) against their exact multinomial mean and
    covariance (one hand per deal: independent across deals), a chi-square with 2 df per
    player; the sum over the players (chi-square, 2 df a player) is over-dispersed when some
    players are favoured. One-sided."""
    if not q.player_ids.size:
        return None
    n = q.player_bands.sum(axis=1).astype(np.float64)
    keep = n >= MIN_DISPERSION_HANDS
    k = int(keep.sum())
    if k < MIN_DISPERSION_PLAYERS:
        return None
    b = q.player_bands[keep].astype(np.float64)
    x = np.stack([b[:, 0:3].sum(axis=1), b[:, 3:6].sum(axis=1)], axis=1)  # pairs, suited
    pr = np.array([BAND_PROBS[0:3].sum(), BAND_PROBS[3:6].sum()])
    cov1 = np.diag(pr) - np.outer(pr, pr)
    inv = np.linalg.inv(cov1)
    d = x - n[keep][:, None] * pr
    per = np.einsum("pi,ij,pj->p", d, inv, d) / n[keep]
    x2 = float(per.sum())
    df = 2 * k
    lam = stats.chi2_noncentrality_needed(df, 0.01, 0.9)
    n_med = float(np.median(n[keep]))
    # 5% of the players with pairs (1 + r) times as often: noncentrality 0.05 k n r^2 p / (1 - p)
    r = math.sqrt(lam / (0.05 * k * n_med * pr[0] / (1 - pr[0])))
    return {"statistic": x2, "p": stats.chi2_sf(x2, df), "details": {
        "law": "chi2, 2 df a player: each player's pairs and suited hands against their exact "
               "multinomial law, summed over the players (over-dispersion)",
        "df": df, "players": k, "min_hands": MIN_DISPERSION_HANDS,
        "median_hands_per_player": n_med,
        "worst_player": int(q.player_ids[keep][int(np.argmax(per))]),
        "power": {"sentence": f"With {k:,} players of {n_med:.0f} hands (median), 5% of them "
                              f"dealt pairs {r:.0%} more often than chance are caught with "
                              "probability 0.9 at alpha 0.01."}}}


NOT_APPLICABLE = {
    "seat_hand_classes": f"not applicable: fewer than {MIN_BANDS} hands with every occupied "
                         "seat's cards known at every seat",
    "player_hand_classes": f"not applicable: no player_ids, or no player with {MIN_BANDS} hands",
    "seat_equity": f"not applicable: fewer than {MIN_SEAT_EQUITY} hands with a deck (the full "
                   "board) and every occupied seat's cards known, without a tie",
    "player_equity": f"not applicable: no player_ids, or no player with {MIN_PLAYER_EQUITY} "
                     "such hands",
    "player_dispersion": f"not applicable: no player_ids, or fewer than "
                         f"{MIN_DISPERSION_PLAYERS} players with {MIN_DISPERSION_HANDS} hands",
    "pooled_hand_classes": f"not applicable: fewer than {MIN_POOLED_CLASSES} seat-hands with "
                           "every occupied seat's cards known",
    "pooled_hand_features": f"not applicable: fewer than {MIN_POOLED_FEATURES} seat-hands with "
                            "every occupied seat's cards known",
}


def seat_tests(parts: list[SeatPartial]) -> dict[str, dict[str, Any]]:
    """The applicable seat and player tests over all partials."""
    q = merge(parts)
    out: dict[str, dict[str, Any] | None] = {
        "seat_hand_classes": seat_classes_test(q.classes),
        "player_hand_classes": player_classes_test(q),
        "seat_equity": seat_equity_test(q.masks, q.wins),
        "player_equity": player_equity_test(q),
        "pooled_hand_classes": pooled_classes_test(q.classes, q.pooled_m),
        "pooled_hand_features": pooled_features_test(q.classes, q.pooled_m),
        "player_dispersion": player_dispersion_test(q),
    }
    return {t: r for t, r in out.items() if r is not None}
