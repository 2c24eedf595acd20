"""Statistics helpers for the audits: chi-square, exact binomial cell tails, Holm, KS of p-values,
Poisson collision tails, and the power of the deck-uniformity battery.

Everything here is plain numpy/scipy; nothing imports the simulator.

Power (shown in reports): with N decks audited, a relative bias ``d`` in one card/position cell
(the cell probability is (1 + d) / 52 instead of 1 / 52) is detected with probability ``power``
at level ``alpha``

* by the largest-cell test (Bonferroni over 52 x 52 cells, normal approximation) when
  ``d >= (z_{alpha / (2 * 2704)} + z_{power}) * sqrt(51 / N)``;
* by the global card x position chi-square (df 51 * 51) when its noncentrality
  ``lambda = N * d**2 / 51`` reaches the value where the noncentral chi-square crosses the
  critical value with probability ``power``.  (A bias in one cell of a doubly-stochastic
  position matrix is necessarily compensated in its row and column; the smallest compensation
  gives this lambda, 2 % above the uncompensated ``N * d**2 / 52``.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import optimize, stats

N_CARDS = 52
N_CELLS = N_CARDS * N_CARDS


# ---------------------------------------------------------------------------------------------
# chi-square and cell tails


def chi2_sf(statistic: float, df: float) -> float:
    """Upper tail P(chi2_df >= statistic)."""
    return float(stats.chi2.sf(statistic, df))


def pearson_uniform(counts: np.ndarray) -> tuple[float, int, float]:
    """Pearson goodness of fit of ``counts`` against equal cell probabilities.

    Returns (statistic, df, p-value). Empty input gives (0, df, 1).
    """
    c = np.asarray(counts, dtype=np.float64).ravel()
    n = c.sum()
    df = c.size - 1
    if n <= 0:
        return 0.0, df, 1.0
    e = n / c.size
    x2 = float(((c - e) ** 2).sum() / e)
    return x2, df, chi2_sf(x2, df)


def pearson_probs(counts: np.ndarray, probs: np.ndarray) -> tuple[float, int, float]:
    """Pearson goodness of fit of ``counts`` against cell probabilities ``probs`` (sum 1)."""
    c = np.asarray(counts, dtype=np.float64).ravel()
    p = np.asarray(probs, dtype=np.float64).ravel()
    n = c.sum()
    df = c.size - 1
    if n <= 0:
        return 0.0, df, 1.0
    e = n * p
    x2 = float(((c - e) ** 2 / e).sum())
    return x2, df, chi2_sf(x2, df)


def binomial_two_sided(counts: np.ndarray, n: int, p: float) -> np.ndarray:
    """Exact two-sided binomial tail per cell: min(1, 2 * min(P(X <= k), P(X >= k)))."""
    k = np.asarray(counts, dtype=np.float64)
    lo = stats.binom.cdf(k, n, p)
    hi = stats.binom.sf(k - 1, n, p)
    return np.minimum(1.0, 2.0 * np.minimum(lo, hi))


def bonferroni_min(pvalues: Sequence[float] | np.ndarray) -> float:
    """Bonferroni combination: min(1, m * min p)."""
    p = np.asarray(pvalues, dtype=np.float64)
    if p.size == 0:
        return 1.0
    return float(min(1.0, p.size * p.min()))


# ---------------------------------------------------------------------------------------------
# multiple testing


def holm(pvalues: Sequence[float], alpha: float = 0.01) -> tuple[list[bool], list[float]]:
    """Holm's step-down procedure.

    Returns (reject, adjusted) in the input order; ``adjusted[i] <= alpha`` iff ``reject[i]``.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    m = p.size
    if m == 0:
        return [], []
    order = np.argsort(p, kind="stable")
    adj_sorted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    adjusted = np.empty(m)
    adjusted[order] = adj_sorted
    return [bool(a <= alpha) for a in adjusted], [float(a) for a in adjusted]


def ks_uniform(pvalues: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """Kolmogorov-Smirnov test of p-values against U(0, 1): (D statistic, p-value)."""
    p = np.asarray(pvalues, dtype=np.float64)
    if p.size == 0:
        return 0.0, 1.0
    r = stats.kstest(p, "uniform")
    return float(r.statistic), float(r.pvalue)


# ---------------------------------------------------------------------------------------------
# collisions


def falling_factorial(n: int, k: int) -> int:
    """n * (n - 1) * ... * (n - k + 1)."""
    out = 1
    for i in range(k):
        out *= n - i
    return out


def expected_collisions(n_items: int, space: int) -> float:
    """Expected number of colliding pairs among ``n_items`` uniform draws from ``space`` values.

    C(N, 2) / space; the pair count is close to Poisson with this mean while it is small.
    """
    return n_items * (n_items - 1) / 2.0 / float(space)


def poisson_upper(observed: int, mean: float) -> float:
    """P(X >= observed) for X ~ Poisson(mean)."""
    if observed <= 0:
        return 1.0
    return float(stats.poisson.sf(observed - 1, mean))


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion."""
    if trials <= 0:
        return 0.0, 1.0
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    ph = successes / trials
    den = 1 + z * z / trials
    centre = (ph + z * z / (2 * trials)) / den
    half = z * math.sqrt(ph * (1 - ph) / trials + z * z / (4 * trials * trials)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


# ---------------------------------------------------------------------------------------------
# power


def cell_z(alpha: float = 0.01, power: float = 0.9, cells: int = N_CELLS) -> float:
    """z_{alpha / (2 cells)} + z_{power}: the standardized shift a cell needs (two-sided)."""
    return float(stats.norm.isf(alpha / (2 * cells)) + stats.norm.ppf(power))


def cell_detectable_bias(n_decks: int, alpha: float = 0.01, power: float = 0.9,
                         cells: int = N_CELLS) -> float:
    """Smallest relative bias d in one card/position cell detected with probability ``power``
    by the largest-cell test (two-sided, Bonferroni over ``cells``; normal approximation).

    ``cells=1`` gives the single pre-specified cell (no multiplicity correction).
    """
    p = 1.0 / N_CARDS
    return cell_z(alpha, power, cells) * math.sqrt((1 - p) / (n_decks * p))


def cell_decks_needed(d: float, alpha: float = 0.01, power: float = 0.9,
                      cells: int = N_CELLS) -> float:
    """Decks the largest-cell test needs to detect relative bias ``d`` in one cell."""
    p = 1.0 / N_CARDS
    return cell_z(alpha, power, cells) ** 2 * (1 - p) / (p * d * d)


def chi2_noncentrality_needed(df: int, alpha: float = 0.01, power: float = 0.9) -> float:
    """The noncentrality lambda at which a level-``alpha`` chi-square test with ``df`` degrees
    of freedom rejects with probability ``power`` (scipy's noncentral chi-square)."""
    crit = float(stats.chi2.isf(alpha, df))

    def gap(lam: float) -> float:
        return float(stats.ncx2.sf(crit, df, lam)) - power

    hi = 10.0
    while gap(hi) < 0:
        hi *= 2
    return float(optimize.brentq(gap, 1e-9, hi, xtol=1e-9))


CARD_POSITION_DF = (N_CARDS - 1) ** 2


def chi2_decks_needed(d: float, alpha: float = 0.01, power: float = 0.9,
                      df: int = CARD_POSITION_DF) -> float:
    """Decks the global card x position chi-square needs to detect relative bias ``d`` in one
    cell (lambda = N d^2 / 51, see the module docstring)."""
    return chi2_noncentrality_needed(df, alpha, power) * (N_CARDS - 1) / (d * d)


def chi2_detectable_bias(n_decks: int, alpha: float = 0.01, power: float = 0.9,
                         df: int = CARD_POSITION_DF) -> float:
    """Smallest relative single-cell bias the global chi-square detects with ``n_decks``."""
    return math.sqrt(chi2_noncentrality_needed(df, alpha, power) * (N_CARDS - 1) / n_decks)


def chi2_power(n_decks: int, d: float, alpha: float = 0.01,
               df: int = CARD_POSITION_DF) -> float:
    """Probability that the global chi-square detects relative bias ``d`` in one cell."""
    crit = float(stats.chi2.isf(alpha, df))
    return float(stats.ncx2.sf(crit, df, n_decks * d * d / (N_CARDS - 1)))


def cell_power(n_decks: int, d: float, alpha: float = 0.01, cells: int = N_CELLS) -> float:
    """Probability (normal approximation) that the largest-cell test flags a biased cell."""
    p = 1.0 / N_CARDS
    shift = d * math.sqrt(n_decks * p / (1 - p))
    return float(stats.norm.sf(stats.norm.isf(alpha / (2 * cells)) - shift))


def power_summary(n_decks: int, alpha: float = 0.01, power: float = 0.9) -> dict[str, object]:
    """The detectable biases for ``n_decks`` audited decks, with the sentence for reports."""
    n = max(int(n_decks), 1)
    d_cell = cell_detectable_bias(n, alpha, power)
    d_cell1 = cell_detectable_bias(n, alpha, power, cells=1)
    d_chi2 = chi2_detectable_bias(n, alpha, power)
    sentence = (
        f"With {n:,} decks, a relative bias of {d_cell:.2%} in any one card/position cell is "
        f"detected with probability {power:g} at alpha {alpha:g} (largest-cell test, Bonferroni "
        f"over {N_CELLS} cells); the global chi-square (df {CARD_POSITION_DF}) needs "
        f"{d_chi2:.2%}; a single pre-specified cell {d_cell1:.2%}."
    )
    return {
        "n_decks": n,
        "alpha": alpha,
        "power": power,
        "cell_bias_bonferroni": d_cell,
        "cell_bias_single": d_cell1,
        "chi2_bias": d_chi2,
        "decks_for_1pct_cell_bonferroni": cell_decks_needed(0.01, alpha, power),
        "decks_for_1pct_cell_single": cell_decks_needed(0.01, alpha, power, cells=1),
        "decks_for_1pct_chi2": chi2_decks_needed(0.01, alpha, power),
        "sentence": sentence,
    }
