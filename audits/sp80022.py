"""Tests of NIST SP 800-22 rev. 1a ("A Statistical Test Suite for Random and Pseudorandom Number
Generators for Cryptographic Applications") on a bit sequence, written from the standard's
formulas and checked against its worked examples and its Appendix B P-values for e
(``tests/audits/test_sp80022.py``: to the six digits the standard prints).

All 15 tests: 2.1 Frequency (monobit), 2.2 Frequency within a block, 2.3 Runs, 2.4 Longest
run of ones in a block, 2.5 Binary matrix rank (32 x 32 over GF(2)), 2.6 Discrete Fourier
transform (spectral), 2.7 Non-overlapping template (m = 9; the battery runs the documented
subset ``BATTERY_TEMPLATES`` of the 148 aperiodic templates, ``aperiodic_templates``), 2.8
Overlapping template (m = 9), 2.9 Maurer's universal, 2.10 Linear complexity (Berlekamp-Massey,
numba), 2.11 Serial (two P-values), 2.12 Approximate entropy, 2.13 Cumulative sums (forward and
reverse), 2.14 Random excursions (states -4..4) and 2.15 Random excursions variant (-9..9).
``TESTS`` names one entry per P-value. ``battery`` runs them on ``m`` sequences of ``n`` bits
and judges each entry as the standard's section 4.2 does: over the sequences it applies to
(the excursion tests need 500 cycles), the proportion with P >= alpha must reach
``(1 - alpha) - 3 sqrt(alpha (1 - alpha) / k)`` (4.2.1) and, from 55 sequences, the P-values'
chi-square over ten bins must give P-value_T >= 0.0001 (4.2.2).

Where the standard's printed examples do not follow its text, the text is followed and the
tests say how the example was computed (DFT 2.6.4/2.6.8, overlapping 2.8.8, linear complexity
2.10.8; see ``tests/audits/test_sp80022.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from scipy import special

ALPHA = 0.01
# The templates the battery runs (a documented subset of the 148 aperiodic ones of m = 9: the
# one the standard's Appendix B reports and its three mirror/complement images), to keep the
# battery's count of judged P-values, and so its chance of a false FAIL, small.
BATTERY_TEMPLATES = ("000000001", "100000000", "111111110", "011111111")
EXCURSION_STATES = (-4, -3, -2, -1, 1, 2, 3, 4)
VARIANT_STATES = tuple(x for x in range(-9, 10) if x)
# One entry per P-value, in the standard's order (2.1 .. 2.15); a multi-P-value test's entries
# named after its template or state, as the standard's report names them.
TESTS = ("frequency", "block_frequency", "cumulative_sums_forward", "cumulative_sums_reverse",
         "runs", "longest_run", "matrix_rank", "dft",
         *(f"non_overlapping_template_{t}" for t in BATTERY_TEMPLATES),
         "overlapping_template", "universal", "linear_complexity",
         *(f"random_excursions_{x:+d}" for x in EXCURSION_STATES),
         *(f"random_excursions_variant_{x:+d}" for x in VARIANT_STATES),
         "serial_p1", "serial_p2", "approximate_entropy")
NOT_IMPLEMENTED: tuple[str, ...] = ()
# Tests that apply only to some sequences (2.14, 2.15: enough cycles): their P-value is None
# elsewhere, and the proportion rule counts only the sequences where they apply (4.2.1).
UNIFORMITY_MIN_SEQUENCES = 55  # 4.2.2: the uniformity of P-values needs at least 55 sequences
UNIFORMITY_ALPHA = 0.0001


def frequency(bits: np.ndarray) -> float:
    """2.1: the proportion of ones, as the normalised sum of +-1."""
    n = len(bits)
    s = abs(int(2 * int(bits.sum()) - n)) / math.sqrt(n)
    return float(math.erfc(s / math.sqrt(2)))


def block_frequency(bits: np.ndarray, m: int = 128) -> float:
    """2.2: the proportion of ones in each of the n // m blocks of m bits."""
    blocks = len(bits) // m
    pi = bits[:blocks * m].reshape(blocks, m).mean(axis=1)
    chi2 = 4.0 * m * float(((pi - 0.5) ** 2).sum())
    return float(special.gammaincc(blocks / 2.0, chi2 / 2.0))


def runs(bits: np.ndarray) -> float:
    """2.3: the number of runs (uninterrupted blocks of one bit value); 0 when the frequency
    prerequisite fails (|pi - 1/2| >= 2 / sqrt(n))."""
    n = len(bits)
    pi = float(bits.mean())
    if abs(pi - 0.5) >= 2.0 / math.sqrt(n):
        return 0.0
    v = 1 + int(np.count_nonzero(bits[1:] != bits[:-1]))
    return float(math.erfc(abs(v - 2 * n * pi * (1 - pi))
                           / (2 * math.sqrt(2 * n) * pi * (1 - pi))))

def _window_values(blocks: np.ndarray, m: int) -> np.ndarray:
    """The value of every m-bit window (first bit most significant) inside each row of
    ``blocks`` (k, M): shape (k, M - m + 1)."""
    w = blocks.shape[1] - m + 1
    v = np.zeros((blocks.shape[0], w), np.int64)
    for j in range(m):
        v = (v << 1) | blocks[:, j:j + w]
    return v


def aperiodic_templates(m: int = 9) -> list[str]:
    """The m-bit templates no proper shift of which overlaps itself (148 for m = 9): the
    non-overlapping template test's templates, in increasing order."""
    out = []
    for v in range(1 << m):
        b = format(v, f"0{m}b")
        if all(b[k:] != b[:m - k] for k in range(1, m)):
            out.append(b)
    return out




def non_overlapping_template(bits: np.ndarray, templates: tuple[str, ...] | list[str]
                             = BATTERY_TEMPLATES, blocks: int = 8) -> dict[str, float]:
    """2.7: occurrences of each aperiodic m-bit template in each of N = 8 blocks (scanning on
    past a match; an aperiodic template's occurrences never overlap, so every window
    position counts); one P-value per template."""
    m = len(templates[0])
    if any(len(t) != m or t not in set(aperiodic_templates(m)) for t in templates):
        raise ValueError(f"templates must be aperiodic and of one length: {templates}")
    big_m = len(bits) // blocks
    v = _window_values(bits[:blocks * big_m].reshape(blocks, big_m).astype(np.int64), m)
    counts = np.stack([np.bincount(row, minlength=1 << m) for row in v])  # (N, 2^m)
    mu = (big_m - m + 1) / 2.0 ** m
    var = big_m * (1 / 2.0 ** m - (2 * m - 1) / 2.0 ** (2 * m))
    out = {}
    for t in templates:
        w = counts[:, int(t, 2)]
        chi2 = float(((w - mu) ** 2).sum() / var)
        out[t] = float(special.gammaincc(blocks / 2.0, chi2 / 2.0))
    return out


def _overlap_probabilities(eta: float, k: int) -> list[float]:
    """The probabilities of 0 .. k - 1 occurrences and of k or more, from the compound Poisson
    law the standard's 2.8.4 uses (Pr(U = 0) = e^-eta, Pr(U = u) = e^-eta / 2^u
    sum_{l=1}^{u} C(u - 1, l - 1) eta^l / l!)."""
    ps = [math.exp(-eta)]
    for u in range(1, k):
        ps.append(math.exp(-eta) / 2 ** u * sum(math.comb(u - 1, l - 1) * eta ** l
                                               / math.factorial(l) for l in range(1, u + 1)))
    return ps + [1 - sum(ps)]


# rev. 1a's corrected class probabilities for m = 9, M = 1032, K = 5 (section 2.8.7 / 3.8).
_OVERLAP_PI = (0.364091, 0.185659, 0.139381, 0.100571, 0.0704323, 0.139865)


def overlapping_template(bits: np.ndarray, m: int = 9, big_m: int = 1032, k: int = 5,
                         poisson: bool = False) -> float:
    """2.8: overlapping occurrences of the m-bit template of ones in each block of M bits,
    counted in the classes 0 .. K - 1 and K or more. With the default parameters the class
    probabilities are rev. 1a's corrected ones; ``poisson`` (and any other parameters) uses
    the compound Poisson law with eta = (M - m + 1) / 2^(m + 1), with which the standard's
    example 2.8.8 (and Appendix B) was computed."""
    n_blocks = len(bits) // big_m
    v = _window_values(bits[:n_blocks * big_m].reshape(n_blocks, big_m).astype(np.int64), m)
    hits = (v == (1 << m) - 1).sum(axis=1)
    nu = np.bincount(np.minimum(hits, k), minlength=k + 1)
    if (m, big_m, k) == (9, 1032, 5) and not poisson:
        pi = np.array(_OVERLAP_PI)
    else:
        pi = np.array(_overlap_probabilities((big_m - m + 1) / 2.0 ** m / 2, k))
    expect = n_blocks * pi
    chi2 = float(((nu - expect) ** 2 / expect).sum())
    return float(special.gammaincc(k / 2.0, chi2 / 2.0))


# 2.9: L -> (the least n, the expected value and variance of f_n).
_UNIVERSAL = {6: (387_840, 5.2177052, 2.954), 7: (904_960, 6.1962507, 3.125),
              8: (2_068_480, 7.1836656, 3.238), 9: (4_654_080, 8.1764248, 3.311),
              10: (10_342_400, 9.1723243, 3.356), 11: (22_753_280, 10.170032, 3.384),
              12: (49_643_520, 11.168765, 3.401), 13: (107_560_960, 12.168070, 3.410),
              14: (231_669_760, 13.167693, 3.416), 15: (496_435_200, 14.167488, 3.419),
              16: (1_059_061_760, 15.167379, 3.421)}


def universal(bits: np.ndarray) -> float:
    """2.9: Maurer's universal test: the log2 distance of each L-bit block to its value's last
    occurrence, after Q = 10 2^L initialisation blocks (L from the standard's table by n; at
    least 387,840 bits)."""
    n = len(bits)
    fits = [lv for lv, (least, _, _) in _UNIVERSAL.items() if n >= least]
    if not fits:
        raise ValueError(f"Maurer's universal test needs at least 387,840 bits, got {n:,}")
    big_l = max(fits)
    _, expected, variance = _UNIVERSAL[big_l]
    q = 10 * (1 << big_l)
    k = n // big_l - q
    blocks = bits[:(q + k) * big_l].reshape(q + k, big_l).astype(np.int64)
    v = np.zeros(q + k, np.int64)
    for j in range(big_l):
        v = (v << 1) | blocks[:, j]
    order = np.argsort(v, kind="stable")  # by value, then position
    prev = np.zeros(q + k, np.int64)  # 1-based position of the value's last occurrence, or 0
    same = v[order[1:]] == v[order[:-1]]
    prev[order[1:][same]] = order[:-1][same] + 1
    pos = np.arange(q, q + k) + 1
    fn = float(np.log2(pos - prev[q:]).sum() / k)
    c = 0.7 - 0.8 / big_l + (4 + 32 / big_l) * k ** (-3 / big_l) / 15
    sigma = c * math.sqrt(variance / k)
    return float(math.erfc(abs(fn - expected) / (math.sqrt(2) * sigma)))


@numba.njit(cache=True)
def _bm_lengths(blocks: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """Berlekamp-Massey: the linear complexity of each row of the (k, M) 0/1 array (C and B,
    the current and previous connection polynomials, touched only up to their degrees)."""
    k, m = blocks.shape
    out = np.zeros(k, np.int64)
    c = np.zeros(m + 1, np.uint8)
    b = np.zeros(m + 1, np.uint8)
    t = np.zeros(m + 1, np.uint8)
    for r in range(k):
        s = blocks[r]
        c[:] = 0
        b[:] = 0
        c[0] = 1
        b[0] = 1
        big_l, mm, cdeg, bdeg = 0, -1, 0, 0
        for n in range(m):
            d = s[n]
            for i in range(1, big_l + 1):
                d ^= c[i] & s[n - i]
            if d:
                shift = n - mm
                tdeg = cdeg
                for j in range(cdeg + 1):
                    t[j] = c[j]
                top = min(bdeg, m - shift)
                for j in range(top + 1):
                    c[j + shift] ^= b[j]
                cdeg = max(cdeg, top + shift)
                if big_l <= n // 2:
                    big_l = n + 1 - big_l
                    mm = n
                    for j in range(bdeg + 1):
                        b[j] = 0
                    for j in range(tdeg + 1):
                        b[j] = t[j]
                    bdeg = tdeg
        out[r] = big_l
    return out


_LC_PI = (0.010417, 0.03125, 0.125, 0.5, 0.25, 0.0625, 0.020833)


def linear_complexity(bits: np.ndarray, m: int = 500,
                      probabilities: tuple[float, ...] = _LC_PI) -> float:
    """2.10: the linear complexity (Berlekamp-Massey) of each block of M bits against its mean
    mu, in the standard's seven classes of T = (-1)^M (L - mu) + 2/9, with the class
    probabilities 2.10.4 states (its examples were computed with 0.01047 for the first, the
    reference code's figure, which ``probabilities`` can pass)."""
    k = len(bits) // m
    if k == 0:
        raise ValueError(f"linear complexity needs at least {m} bits, got {len(bits)}")
    lc = _bm_lengths(np.ascontiguousarray(bits[:k * m].reshape(k, m), dtype=np.uint8))
    mu = m / 2 + (9 + (-1) ** (m + 1)) / 36 - (m / 3 + 2 / 9) / 2.0 ** m
    t = (-1) ** m * (lc - mu) + 2 / 9
    nu = np.bincount(np.digitize(t, [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], right=True),
                     minlength=7)
    expect = k * np.array(probabilities)
    chi2 = float(((nu - expect) ** 2 / expect).sum())
    return float(special.gammaincc(3.0, chi2 / 2.0))


def _cycles(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """The random walk S of the +-1 sequence, each step's cycle (the walk read as 0, S, 0 and
    cut at every return to 0) and the number of cycles J."""
    s = np.cumsum(2 * bits.astype(np.int64) - 1)
    zero = s == 0
    cycle = np.concatenate([[0], np.cumsum(zero)[:-1]])
    return s, cycle, int(zero.sum()) + 1


def min_cycles(n: int) -> float:
    """2.14 / 2.15: the least number of cycles J for the excursion tests to apply."""
    return max(0.005 * math.sqrt(n), 500)


def random_excursions(bits: np.ndarray, least: float | None = None
                      ) -> dict[int, float] | None:
    """2.14: how many cycles visit each state x in -4..-1, 1..4 exactly k times (k = 0..4, 5 or
    more); one P-value per state, or None when the walk has fewer cycles than the test needs
    (``least``: that number, ``min_cycles`` by default)."""
    s, cycle, j = _cycles(bits)
    if j < (min_cycles(len(bits)) if least is None else least):
        return None
    out = {}
    for x in EXCURSION_STATES:
        visits = np.bincount(cycle[s == x], minlength=j)
        nu = np.bincount(np.minimum(visits, 5), minlength=6)
        a = 1 - 1 / (2 * abs(x))
        pi = np.array([a] + [a ** (k - 1) / (4 * x * x) for k in range(1, 5)]
                      + [a ** 4 / (2 * abs(x))])
        chi2 = float(((nu - j * pi) ** 2 / (j * pi)).sum())
        out[x] = float(special.gammaincc(2.5, chi2 / 2.0))
    return out


def random_excursions_variant(bits: np.ndarray, least: float | None = None
                              ) -> dict[int, float] | None:
    """2.15: the total number of visits to each state x in -9..-1, 1..9 against the number of
    cycles J; one P-value per state, or None when there are too few cycles."""
    s, _, j = _cycles(bits)
    if j < (min_cycles(len(bits)) if least is None else least):
        return None
    counts = np.bincount(s + 9, minlength=19) if s.min() >= -9 else None
    out = {}
    for x in VARIANT_STATES:
        xi = int(counts[x + 9]) if counts is not None else int(np.count_nonzero(s == x))
        out[x] = float(math.erfc(abs(xi - j) / math.sqrt(2.0 * j * (4 * abs(x) - 2))))
    return out



def _cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2))


def _tdiv(a: int, b: int) -> int:
    """Integer division truncated toward zero (the reference C code's)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def cumulative_sums(bits: np.ndarray, reverse: bool = False) -> float:
    """2.13: the largest excursion from zero of the random walk of +-1 (mode 0 forward, mode 1
    backward)."""
    n = len(bits)
    x = 2 * bits.astype(np.int64) - 1
    walk = np.cumsum(x[::-1] if reverse else x)
    z = int(np.abs(walk).max())
    if z == 0:
        return 0.0
    r = math.sqrt(n)
    s1 = sum(_cdf((4 * k + 1) * z / r) - _cdf((4 * k - 1) * z / r)
             for k in range(_tdiv(_tdiv(-n, z) + 1, 4), _tdiv(_tdiv(n, z) - 1, 4) + 1))
    s2 = sum(_cdf((4 * k + 3) * z / r) - _cdf((4 * k + 1) * z / r)
             for k in range(_tdiv(_tdiv(-n, z) - 3, 4), _tdiv(_tdiv(n, z) - 1, 4) + 1))
    return float(1.0 - s1 + s2)


# Section 2.4: (block length M, classes' lowest and highest longest run, their probabilities).
_LONGEST_RUN = {
    8: (1, 4, (0.2148, 0.3672, 0.2305, 0.1875)),
    128: (4, 9, (0.1174, 0.2430, 0.2493, 0.1752, 0.1027, 0.1124)),
    10_000: (10, 16, (0.0882, 0.2092, 0.2483, 0.1933, 0.1208, 0.0675, 0.0727)),
}


def longest_run(bits: np.ndarray) -> float:
    """2.4: the longest run of ones within blocks of M bits (M = 8 below 6,272 bits, 128 below
    750,000, 10,000 from there; at least 128 bits), counted in the standard's classes."""
    n = len(bits)
    if n < 128:
        raise ValueError(f"longest run needs at least 128 bits, got {n}")
    m = 8 if n < 6272 else 128 if n < 750_000 else 10_000
    lo, hi, pi = _LONGEST_RUN[m]
    blocks = n // m
    padded = np.zeros((blocks, m + 2), np.int8)
    padded[:, 1:-1] = bits[:blocks * m].reshape(blocks, m)
    edges = np.diff(padded, axis=1)  # +1 where a run of ones starts, -1 after it ends
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)  # row-major: the k-th start pairs with the k-th end
    longest = np.zeros(blocks, np.int64)
    np.maximum.at(longest, starts // (m + 1), ends - starts)
    nu = np.bincount(np.clip(longest, lo, hi) - lo, minlength=hi - lo + 1)
    expect = blocks * np.array(pi)
    chi2 = float(((nu - expect) ** 2 / expect).sum())
    return float(special.gammaincc((len(pi) - 1) / 2.0, chi2 / 2.0))


def _pattern_counts(bits: np.ndarray, m: int) -> np.ndarray:
    """How often each m-bit pattern occurs in the sequence read circularly (its first m - 1 bits
    appended), indexed by the pattern's value (first bit most significant)."""
    n = len(bits)
    ext = np.concatenate([bits, bits[:m - 1]]).astype(np.int64)
    v = np.zeros(n, np.int64)
    for j in range(m):
        v = (v << 1) | ext[j:j + n]
    return np.bincount(v, minlength=1 << m)


def _psi2(bits: np.ndarray, m: int) -> float:
    if m <= 0:
        return 0.0
    c = _pattern_counts(bits, m).astype(np.float64)
    n = len(bits)
    return float((1 << m) / n * (c * c).sum() - n)


def serial(bits: np.ndarray, m: int | None = None) -> tuple[float, float]:
    """2.11: the frequency of every overlapping m-bit pattern; the two P-values of the first and
    second differences of psi^2_m. m defaults to 16 (the reference code's), less when the
    standard's m < log2(n) - 2 requires it."""
    if m is None:
        m = min(16, int(math.log2(len(bits))) - 3)
    p0, p1, p2 = _psi2(bits, m), _psi2(bits, m - 1), _psi2(bits, m - 2)
    d1, d2 = p0 - p1, p0 - 2 * p1 + p2
    return (float(special.gammaincc(2.0 ** (m - 2), d1 / 2.0)),
            float(special.gammaincc(2.0 ** (m - 3), d2 / 2.0)))


def _phi(bits: np.ndarray, m: int) -> float:
    c = _pattern_counts(bits, m)
    pi = c[c > 0] / len(bits)
    return float((pi * np.log(pi)).sum())


def approximate_entropy(bits: np.ndarray, m: int | None = None) -> float:
    """2.12: the frequency of overlapping m-bit against (m + 1)-bit patterns. m defaults to 10
    (the reference code's), less when the standard's m < log2(n) - 5 requires it."""
    if m is None:
        m = min(10, int(math.log2(len(bits))) - 6)
    n = len(bits)
    apen = _phi(bits, m) - _phi(bits, m + 1)
    chi2 = 2.0 * n * (math.log(2) - apen)
    return float(special.gammaincc(2.0 ** (m - 1), chi2 / 2.0))


def dft(bits: np.ndarray) -> float:
    """2.6: the peaks of the discrete Fourier transform of the +-1 sequence: the number of the
    first n / 2 moduli below the 95% threshold sqrt(log(1 / 0.05) n)."""
    n = len(bits)
    s = np.abs(np.fft.fft(2.0 * bits - 1.0)[:n // 2])
    t = math.sqrt(math.log(1 / 0.05) * n)
    n0 = 0.95 * n / 2
    n1 = int(np.count_nonzero(s < t))
    d = (n1 - n0) / math.sqrt(n * 0.95 * 0.05 / 4)
    return float(math.erfc(abs(d) / math.sqrt(2)))


def gf2_ranks(matrices: np.ndarray) -> np.ndarray:
    """The rank over GF(2) of each of the (k, M, Q) 0/1 matrices, all eliminated at once."""
    k, rows, cols = matrices.shape
    a = matrices.astype(bool).copy()
    used = np.zeros((k, rows), bool)
    rank = np.zeros(k, np.int64)
    ix = np.arange(k)
    for c in range(cols):
        cand = a[:, :, c] & ~used
        has = np.asarray(cand.any(axis=1))
        piv = np.argmax(cand, axis=1)
        prow = a[ix, piv]  # (k, cols)
        hit = np.asarray(a[:, :, c] & has[:, None])
        hit[ix, piv] = False
        a ^= hit[:, :, None] & prow[:, None, :]
        used[ix[has], piv[has]] = True
        rank += has
    return rank


def rank_probability(r: int, m: int = 32, q: int = 32) -> float:
    """3.5: the probability that a random M x Q matrix over GF(2) has rank r."""
    prod = 1.0
    for i in range(r):
        prod *= (1 - 2.0 ** (i - q)) * (1 - 2.0 ** (i - m)) / (1 - 2.0 ** (i - r))
    return 2.0 ** (r * (q + m - r) - m * q) * prod


def matrix_rank(bits: np.ndarray, m: int = 32, q: int = 32,
                probabilities: tuple[float, float, float] | None = None) -> float:
    """2.5: the rank over GF(2) of the n // (M Q) disjoint M x Q matrices (rows filled in
    order), counted as full, full - 1 and lower against their probabilities (3.5's formula;
    the example 2.5.4 passes the 32 x 32 figures rounded, 0.2888, 0.5776, 0.1336)."""
    k = len(bits) // (m * q)
    if k == 0:
        raise ValueError(f"matrix rank needs at least {m * q} bits, got {len(bits)}")
    r = gf2_ranks(bits[:k * m * q].reshape(k, m, q))
    full = min(m, q)
    if probabilities is None:
        pf, pf1 = rank_probability(full, m, q), rank_probability(full - 1, m, q)
        probabilities = (pf, pf1, 1 - pf - pf1)
    f = np.array([np.count_nonzero(r == full), np.count_nonzero(r == full - 1), 0])
    f[2] = k - f[0] - f[1]
    expect = k * np.array(probabilities)
    chi2 = float(((f - expect) ** 2 / expect).sum())
    return float(math.exp(-chi2 / 2))


def p_values(bits: np.ndarray) -> dict[str, float | None]:
    """Every test's P-value of one sequence (bits: 0/1 uint8), named as ``TESTS``; None where a
    test does not apply (the excursion tests on a walk with too few cycles). Maurer's
    universal test needs 387,840 bits, the others far fewer; a shorter sequence lacks it."""
    s1, s2 = serial(bits)
    out: dict[str, float | None] = {
        "frequency": frequency(bits), "block_frequency": block_frequency(bits),
        "cumulative_sums_forward": cumulative_sums(bits),
        "cumulative_sums_reverse": cumulative_sums(bits, reverse=True),
        "runs": runs(bits), "longest_run": longest_run(bits),
        "matrix_rank": matrix_rank(bits), "dft": dft(bits)}
    for t, p in non_overlapping_template(bits).items():
        out[f"non_overlapping_template_{t}"] = p
    out["overlapping_template"] = overlapping_template(bits)
    out["universal"] = universal(bits) if len(bits) >= _UNIVERSAL[6][0] else None
    out["linear_complexity"] = linear_complexity(bits)
    exc, var = random_excursions(bits), random_excursions_variant(bits)
    for x in EXCURSION_STATES:
        out[f"random_excursions_{x:+d}"] = None if exc is None else exc[x]
    for x in VARIANT_STATES:
        out[f"random_excursions_variant_{x:+d}"] = None if var is None else var[x]
    out.update(serial_p1=s1, serial_p2=s2, approximate_entropy=approximate_entropy(bits))
    return out


def min_proportion(m: int, alpha: float = ALPHA) -> float:
    """Section 4.2.1: the least acceptable proportion of m sequences passing at ``alpha``."""
    p = 1 - alpha
    return p - 3 * math.sqrt(p * alpha / m)


def uniformity(ps: tuple[float, ...] | list[float]) -> float:
    """Section 4.2.2: P-value_T of the chi-square of the P-values over ten equal bins of [0, 1]
    (9 degrees of freedom)."""
    f = np.bincount(np.minimum((np.asarray(ps) * 10).astype(np.int64), 9), minlength=10)
    e = len(ps) / 10.0
    return float(special.gammaincc(4.5, float(((f - e) ** 2 / e).sum()) / 2.0))


@dataclass(frozen=True)
class NistTest:
    """One test over the sequences: every P-value (None where the test does not apply), the
    number of sequences it applies to, the proportion of those passing and its least
    acceptable value (4.2.1), the uniformity of the P-values (4.2.2: P-value_T; None below 55
    sequences, where the standard does not judge it) and the verdict (both rules; a test that
    applies to no sequence is not judged: ``judged`` False, ``passed`` True)."""

    name: str
    p_values: tuple[float | None, ...]
    proportion: float
    passed: bool
    uniformity: float | None = None
    applicable: int = 0
    min_proportion: float = 0.0

    @property
    def judged(self) -> bool:
        return self.applicable > 0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "p_values": list(self.p_values),
                "applicable": self.applicable, "proportion": round(self.proportion, 4),
                "min_proportion": round(self.min_proportion, 4),
                "uniformity_p": None if self.uniformity is None else round(self.uniformity, 6),
                "judged": self.judged, "passed": self.passed}


@dataclass(frozen=True)
class NistBattery:
    """The battery's result (``to_dict``: the rng certificate's ``nist`` entry)."""

    sequences: int
    bits: int
    min_proportion: float
    tests: tuple[NistTest, ...]
    retest: NistBattery | None = None  # the failing entries run again on the next sequences

    @property
    def implemented(self) -> int:
        """How many of the standard's 15 tests ran (a test may give several P-values)."""
        return 15 - len(NOT_IMPLEMENTED)

    @property
    def passed(self) -> bool:
        return not self.confirmed_failures

    @property
    def confirmed_failures(self) -> list[str]:
        """The entries that failed section 4.2 here and, when the battery was run again on the
        next sequences (``retest``), there too: judging 44 entries, a fair generator fails one
        in about a third of runs (the excursion entries at about 2% each), so one failure is
        re-tested on fresh sequences before it fails the certificate."""
        if self.retest is None:
            return self.failed
        again = set(self.retest.failed)
        return [n for n in self.failed if n in again]

    @property
    def failed(self) -> list[str]:
        """The names of the tests below the acceptable proportion or, from 55 sequences, with
        non-uniform P-values."""
        return [t.name for t in self.tests if not t.passed]

    @property
    def not_judged(self) -> list[str]:
        """The tests that applied to none of the sequences (said, never counted as passed)."""
        return [t.name for t in self.tests if not t.judged]

    def test(self, name: str) -> NistTest:
        return next(t for t in self.tests if t.name == name)

    def to_dict(self) -> dict[str, Any]:
        return {"standard": "NIST SP 800-22 rev. 1a", "sequences": self.sequences,
                "bits": self.bits, "alpha": ALPHA,
                "min_proportion": round(self.min_proportion, 4),
                "uniformity_alpha": UNIFORMITY_ALPHA,
                "non_overlapping_templates": list(BATTERY_TEMPLATES),
                "not_implemented": list(NOT_IMPLEMENTED), "not_judged": self.not_judged,
                "tests": [t.to_dict() for t in self.tests],
                "retest": None if self.retest is None else self.retest.to_dict(),
                "confirmed_failures": self.confirmed_failures, "passed": self.passed}


def judge(name: str, ps: tuple[float | None, ...]) -> NistTest:
    """Section 4.2 on one test's P-values: the sequences it applies to, the proportion of them
    at or above alpha against 4.2.1's least value for their number, and from 55 of them the
    uniformity of their P-values (4.2.2)."""
    seen = [p for p in ps if p is not None]
    k = len(seen)
    if k == 0:
        return NistTest(name, ps, 0.0, True, None, 0, 0.0)
    least = min_proportion(k)
    passing = sum(p >= ALPHA for p in seen) / k
    unif = uniformity(seen) if k >= UNIFORMITY_MIN_SEQUENCES else None
    ok = passing >= least and (unif is None or unif >= UNIFORMITY_ALPHA)
    return NistTest(name, ps, passing, ok, unif, k, least)


def battery(data: bytes, n: int, m: int) -> NistBattery:
    """The tests on ``m`` sequences of ``n`` bits from ``data`` (most significant bit of each
    byte first): per test, every P-value, the proportion passing and the verdict."""
    bits = np.unpackbits(np.frombuffer(data, np.uint8))
    if len(bits) < n * m:
        raise ValueError(f"{len(bits):,} bits: {m} sequences of {n:,} need {n * m:,}")
    per = [p_values(bits[i * n:(i + 1) * n]) for i in range(m)]
    tests = []
    for name in TESTS:
        ps = tuple(None if (v := p[name]) is None else round(v, 6) for p in per)
        tests.append(judge(name, ps))
    return NistBattery(m, n, min_proportion(m), tuple(tests))
