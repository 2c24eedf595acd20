"""The smallest rig of each kind a run's deal tests catch with probability 0.9, from the run's
own counts (issue 35, point 3).

Each formula is the normal (or noncentral chi-square) approximation of the test's own statistic
under the rig's effect, with the sums the test computed on this run (its ``details``), at the
test's level inside the battery: Holm's first step, alpha / m with m the battery's applicable
tests (a rig that moves one test must bring its p below alpha / m to fail the battery first);
``holdem calibrate`` checks every formula against a simulation of its rig.

Rigs and the statistic that sees each (strengths as a fraction):

- ``bad_beat`` (``runout_calibration``): at a run-out the favourite would win, the rest of the
  deck is re-dealt with probability q. The re-dealt board gives the favourite its equity e again,
  so its expected share drops by q w (1 - e) (w its chance to win outright), about q times its
  share's exact variance V (heads-up without ties w (1 - e) = V exactly; a tie makes it larger):
  the test's z moves by q sqrt(sum V), and its spread widens to sqrt(1 + q (2 e - 1)) (e the
  favourites' mean equity).
- ``big_pot_flop`` (``board_texture``): after a pre-flop pot of 10 big blinds or more an
  unpaired rainbow flop (probability r, about 0.375 of the unpaired flops) is re-drawn with
  probability q: a feature of probability p (paired, monotone) becomes p (1 + q r); the big-pot
  sum's z moves by q r E / sqrt(V) (E, V its exact mean and variance; its spread widens as the
  Bernoulli variance of p (1 + q r)), Bonferroni over the sums.
- ``all_seat_pairs`` (``pooled_hand_features``): every seat dealt pocket pairs (1 + eps) times
  as often: the pooled pair count moves by eps E; the 3-df chi-square's noncentrality is at
  least (eps E / sd)^2 (its pair coordinate alone).
- ``targeted_pairs`` (``player_dispersion``): 5% of the players dealt pairs (1 + eps) times as
  often: noncentrality 0.05 k n eps^2 p / (1 - p) (k players of n hands, p = 1/17) on 2k df.
- ``shill_runout`` (``runout_dispersion``): a share s of the players get a second run-out
  whenever they would lose an all-in: a shill's expected share per live hand j rises by about
  its exact variance v_j, so the U-statistic's mean grows by s G (G = the sum over players of
  (sum_j v_j)^2 - sum_j v_j^2, the test's ``shill_gain``) and its z by s G / sqrt(var_hat)
  (one-sided).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from scipy import stats as ss

from audits import stats

ALPHA = 0.01
POWER = 0.9
# P(three distinct suits | three distinct ranks) of a flop: 4 * 3 * 2 / 4^3 from a full deck;
# 0.371 to 0.383 from the cards left after 2 to 9 hands (measured)
RAINBOW_GIVEN_UNPAIRED = 0.375
PAIR_P = 1 / 17
TARGETED_SHARE = 0.05
RIGS = ("bad_beat", "big_pot_flop", "all_seat_pairs", "targeted_pairs", "shill_runout")
TEST_OF = {"bad_beat": "runout_calibration", "big_pot_flop": "board_texture",
           "all_seat_pairs": "pooled_hand_features", "targeted_pairs": "player_dispersion",
           "shill_runout": "runout_dispersion"}
FLOP_SUMS = ("flop_paired big pots", "flop_monotone big pots")


def battery_level(tests: Mapping[str, Any], alpha: float = ALPHA) -> float:
    """alpha / m: the level a single test must reach to fail the battery (Holm's first step;
    ``tests``: the battery's applicable tests)."""
    return alpha / max(len(tests), 1)


def _z_two(level: float) -> float:
    return float(ss.norm.isf(level / 2))


def _normal_power(shift: float, level: float, sd: float = 1.0) -> float:
    """P(|Z| > z) for Z normal of mean ``shift`` and standard deviation ``sd`` (the test's z
    under the rig: the rig widens it a little)."""
    za = _z_two(level)
    return float(ss.norm.sf((za - shift) / sd) + ss.norm.cdf((-za - shift) / sd))


def _solve(za: float, zb: float, per_unit: float, sd: Callable[[float], float]) -> float:
    """The strength x with x * per_unit = za + zb * sd(x) (fixed point; sd grows slowly)."""
    x = (za + zb) / per_unit
    for _ in range(30):
        x = (za + zb * sd(x)) / per_unit
    return x


def _bad_beat_sd(det: Mapping[str, Any]) -> Callable[[float], float]:
    """The z's spread under a bad-beat rig of strength q: a favourite of equity e wins with
    probability about e - q e (1 - e), so its share's variance grows by about q V (2 e - 1)
    (e: the favourites' mean equity)."""
    e = float(det.get("favourite_equity", 0.5))
    return lambda q: math.sqrt(max(1 + q * (2 * e - 1), 1e-9))


def _flop_sd(p: float, r: float) -> Callable[[float], float]:
    """The big-pot sum's spread under a re-draw of strength q: p -> p (1 + q r)."""
    return lambda q: math.sqrt(max((1 + q * r) * (1 - p * q * r / (1 - p)), 1e-9))


def _chi2_power(lam: float, df: int, level: float) -> float:
    return float(ss.ncx2.sf(ss.chi2.isf(level, df), df, max(lam, 1e-12)))


def _flop_sums(det: Mapping[str, Any]) -> list[tuple[float, float, float, int, float]]:
    """(r, E, V, sums, p) of the big-pot flop sums a re-draw moves (p = E / hands)."""
    per = det.get("by_feature") or {}
    paired = per.get("flop_paired big pots")
    if not paired or not paired.get("hands") or "variance" not in paired:
        return []
    r = (1 - paired["expected"] / paired["hands"]) * RAINBOW_GIVEN_UNPAIRED
    return [(r, float(per[f]["expected"]), float(per[f]["variance"]), len(per),
             float(per[f]["expected"]) / float(per[f]["hands"]))
            for f in FLOP_SUMS if f in per and per[f].get("variance", 0) > 0]


def predicted_power(rig: str, strength: float, det: Mapping[str, Any], level: float) -> float:
    """The probability that the rig of ``strength`` makes its test reject at ``level``, by the
    normal approximation, with the sums the test computed on a fair run of the same size."""
    if rig == "bad_beat":
        return _normal_power(strength * math.sqrt(det["variance"]), level,
                             _bad_beat_sd(det)(strength))
    if rig == "big_pot_flop":
        return max((_normal_power(strength * r * e / math.sqrt(v), level / n,
                                  _flop_sd(p, r)(strength))
                    for r, e, v, n, p in _flop_sums(det)), default=0.0)
    if rig == "all_seat_pairs":
        pair = det["per_feature"]["pair"]
        return _chi2_power((strength * pair["expected"] / pair["sd"]) ** 2, int(det["df"]),
                           level)
    if rig == "targeted_pairs":
        k, n = int(det["players"]), float(det["median_hands_per_player"])
        lam = TARGETED_SHARE * k * n * strength ** 2 * PAIR_P / (1 - PAIR_P)
        return _chi2_power(lam, 2 * k, level)
    if rig == "shill_runout":
        shift = strength * det["shill_gain"] / math.sqrt(det["variance_estimate"])
        return float(ss.norm.sf(ss.norm.isf(level) - shift))
    raise ValueError(f"unknown rig {rig!r}")


def smallest_rig(rig: str, det: Mapping[str, Any], level: float,
                 power: float = POWER) -> float | None:
    """The smallest strength caught with probability ``power`` at ``level`` (None when the
    test's details lack the sums)."""
    zb = float(ss.norm.ppf(power))
    try:
        if rig == "bad_beat":
            return _solve(_z_two(level), zb, math.sqrt(det["variance"]), _bad_beat_sd(det))
        if rig == "big_pot_flop":
            got = [_solve(_z_two(level / n), zb, r * e / math.sqrt(v), _flop_sd(p, r))
                   for r, e, v, n, p in _flop_sums(det) if r * e > 0]
            return min(got) if got else None
        if rig == "all_seat_pairs":
            pair = det["per_feature"]["pair"]
            lam = stats.chi2_noncentrality_needed(int(det["df"]), level, power)
            return math.sqrt(lam) * pair["sd"] / pair["expected"]
        if rig == "targeted_pairs":
            k, n = int(det["players"]), float(det["median_hands_per_player"])
            lam = stats.chi2_noncentrality_needed(2 * k, level, power)
            return math.sqrt(lam / (TARGETED_SHARE * k * n * PAIR_P / (1 - PAIR_P)))
        if rig == "shill_runout":  # one-sided, as the test
            return ((float(ss.norm.isf(level)) + zb) * math.sqrt(det["variance_estimate"])
                    / det["shill_gain"])
    except (AttributeError, KeyError, TypeError, ZeroDivisionError, ValueError):
        return None
    raise ValueError(f"unknown rig {rig!r}")


def _size(rig: str, det: Mapping[str, Any]) -> str:
    if rig == "bad_beat":
        return f"{int(det['runouts']):,} run-outs"
    if rig == "big_pot_flop":
        n = int(det["by_feature"]["flop_paired big pots"]["hands"])
        return f"{n:,} flops after big pots"
    if rig == "all_seat_pairs":
        return f"{int(det['seat_hands']):,} hands dealt to seats"
    if rig == "targeted_pairs":
        return (f"{int(det['players']):,} players of {float(det['median_hands_per_player']):.0f}"
                " hands (median)")
    return (f"{int(det['players']):,} players of {float(det['median_runouts_per_player']):.0f} "
            "run-out hands (median)")


def describe(rig: str, x: float) -> str:
    """The rig of strength ``x`` in words."""
    if rig == "bad_beat":
        return (f"a bad-beat rig that re-deals {x:.1%} of the favourite's wins at an all-in "
                "run-out")
    if rig == "big_pot_flop":
        return (f"a big-pot flop rig that re-draws {x:.1%} of the unpaired rainbow flops after "
                "pre-flop pots of 10 big blinds or more")
    if rig == "all_seat_pairs":
        return f"a dealer that gives every seat {x:.1%} more pocket pairs"
    if rig == "targeted_pairs":
        return f"a dealer that gives 5% of the players {x:.1%} more pocket pairs"
    return (f"a shill rig that gives {x:.1%} of the players a second run-out whenever they "
            "would lose an all-in")


def rig_power(tests: Mapping[str, Mapping[str, Any]], alpha: float = ALPHA,
              power: float = POWER) -> list[dict[str, Any]]:
    """Per rig whose test applied: the smallest strength caught with probability ``power``,
    with its sentence. ``tests``: the details of the battery's applicable tests by short
    name."""
    level = battery_level(tests, alpha)
    out = []
    for rig in RIGS:
        det = tests.get(TEST_OF[rig])
        if det is None:
            continue
        limit = 1.0 if rig in ("bad_beat", "big_pot_flop", "shill_runout") else None
        try:  # the sums as the test wrote them (an older audit.json may lack them)
            x = smallest_rig(rig, det, level, power)
            if x is None or not math.isfinite(x):
                continue
            size = _size(rig, det)
            best = predicted_power(rig, limit, det, level) if limit and x > limit else 0.0
        except (AttributeError, KeyError, TypeError, ValueError, ZeroDivisionError):
            continue
        within = limit is None or x <= limit
        if within:
            text = (f"With {size}, {describe(rig, x)} is caught with probability {power:g} "
                    f"({TEST_OF[rig]}).")
        else:
            text = (f"With {size}, no such rig is caught with probability {power:g}: "
                    f"{describe(rig, limit or x)} is caught with probability {best:.2f} "
                    f"({TEST_OF[rig]}).")
        out.append({"rig": rig, "test": TEST_OF[rig], "strength": x if within else None,
                    "size": size, "level": level, "sentence": text})
    return out
