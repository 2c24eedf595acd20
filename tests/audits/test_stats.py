"""audits.stats: Holm, KS, chi-square and collision helpers, and the power figures of the issue."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from audits import stats


def _holm_bruteforce(p: list[float]) -> list[float]:
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adj = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adj[i] = running
    return adj


def test_holm_known_values() -> None:
    reject, adj = stats.holm([0.01, 0.04, 0.03, 0.005], alpha=0.05)
    assert adj == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert reject == [True, False, False, True]
    assert stats.holm([], 0.01) == ([], [])


def test_holm_matches_definition_on_random_inputs() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        p = list(rng.uniform(0, 0.05, size=int(rng.integers(1, 12))))
        reject, adj = stats.holm(p, alpha=0.01)
        assert adj == pytest.approx(_holm_bruteforce(p))
        assert reject == [a <= 0.01 for a in adj]


def test_holm_step_down_stops_at_first_acceptance() -> None:
    # sorted: 0.001*3 = 0.003 reject; 0.02*2 = 0.04 > 0.01 accept; 0.004 would pass alone
    reject, _ = stats.holm([0.001, 0.02, 0.004], alpha=0.01)
    assert reject == [True, False, True]
    reject, _ = stats.holm([0.001, 0.02, 0.006], alpha=0.01)  # 0.006 * 2 = 0.012
    assert reject == [True, False, False]


def test_ks_uniform_against_scipy() -> None:
    rng = np.random.default_rng(5)
    p = rng.uniform(size=40)
    d, pv = stats.ks_uniform(p)
    ref = sps.kstest(p, "uniform")
    assert d == pytest.approx(ref.statistic) and pv == pytest.approx(ref.pvalue)
    d, pv = stats.ks_uniform([0.5])
    assert d == pytest.approx(0.5) and pv == pytest.approx(1.0)
    _, pv = stats.ks_uniform(np.full(20, 0.001))
    assert pv < 1e-10
    assert stats.ks_uniform([]) == (0.0, 1.0)


def test_pearson_against_scipy() -> None:
    c = np.array([10, 20, 30, 40])
    x2, df, p = stats.pearson_uniform(c)
    ref = sps.chisquare(c)
    assert (x2, df) == (pytest.approx(ref.statistic), 3) and p == pytest.approx(ref.pvalue)
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    x2, df, p = stats.pearson_probs(c, probs)
    ref = sps.chisquare(c, 100 * probs)
    assert x2 == pytest.approx(ref.statistic) and p == pytest.approx(ref.pvalue)
    assert stats.pearson_uniform(np.zeros(5))[2] == 1.0


def test_binomial_tails_and_bonferroni() -> None:
    p = stats.binomial_two_sided(np.array([0, 5, 10]), 10, 0.5)
    assert p[0] == pytest.approx(2 * 0.5**10)
    assert p[1] == 1.0
    assert p[2] == pytest.approx(2 * 0.5**10)
    assert stats.bonferroni_min([0.01, 0.5]) == pytest.approx(0.02)
    assert stats.bonferroni_min([0.9, 0.8]) == 1.0


def test_collision_helpers() -> None:
    assert stats.falling_factorial(52, 9) == math.factorial(52) // math.factorial(43)
    # decks from a 32-bit seed: ~11,600 identical pairs among 10 million
    assert stats.expected_collisions(10_000_000, 2**32) == pytest.approx(11641.5, rel=1e-3)
    assert stats.poisson_upper(0, 3.0) == 1.0
    assert stats.poisson_upper(1, 0.5) == pytest.approx(1 - math.exp(-0.5))
    assert stats.poisson_upper(2, 1e-30) < 1e-59


def test_wilson_interval() -> None:
    lo, hi = stats.wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = stats.wilson_interval(10, 1000)
    assert lo < 0.01 < hi and hi < 0.02


def test_power_reproduces_the_issue_figures() -> None:
    """A 1% bias in one cell: about 8 to 18 million decks (one cell / Bonferroni over 2704),
    about 139 million for the single global chi-square."""
    single = stats.cell_decks_needed(0.01, cells=1)
    bonf = stats.cell_decks_needed(0.01)
    chi2 = stats.chi2_decks_needed(0.01)
    assert 7.0e6 < single < 9.0e6
    assert 16.5e6 < bonf < 19.0e6
    assert chi2 == pytest.approx(139e6, rel=0.03)
    # the inverse functions agree, and the power at those sizes is 0.9
    assert stats.cell_detectable_bias(int(bonf)) == pytest.approx(0.01, rel=1e-3)
    assert stats.chi2_detectable_bias(int(chi2)) == pytest.approx(0.01, rel=1e-3)
    assert stats.chi2_power(int(chi2), 0.01) == pytest.approx(0.9, abs=1e-3)
    assert stats.cell_power(int(bonf), 0.01) == pytest.approx(0.9, abs=2e-3)
    s = stats.power_summary(10_000_000)
    assert "10,000,000 decks" in s["sentence"] and "probability 0.9" in s["sentence"]
    assert s["cell_bias_bonferroni"] == pytest.approx(0.01334, rel=1e-2)


def test_noncentrality_matches_scipy_definition() -> None:
    lam = stats.chi2_noncentrality_needed(10, 0.05, 0.8)
    crit = sps.chi2.isf(0.05, 10)
    assert sps.ncx2.sf(crit, 10, lam) == pytest.approx(0.8, abs=1e-6)
