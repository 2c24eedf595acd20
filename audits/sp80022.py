"""Tests of NIST SP 800-22 rev. 1a ("A Statistical Test Suite for Random and Pseudorandom Number
Generators for Cryptographic Applications") on a bit sequence, written from the standard's
formulas and checked against its worked examples (``tests/audits/test_sp80022.py``: every
example's P-value to the six digits the standard prints).

Implemented: 2.1 Frequency (monobit), 2.2 Frequency within a block, 2.3 Runs, 2.4 Longest run
of ones in a block, 2.5 Binary matrix rank (32 x 32 over GF(2)), 2.6 Discrete Fourier transform
(spectral), 2.11 Serial (two P-values: ``serial_p1``, ``serial_p2``), 2.12 Approximate entropy,
2.13 Cumulative sums (forward and reverse). Not implemented (``NOT_IMPLEMENTED``, said on the
certificate): the suite's other tests. ``battery`` runs them on ``m`` sequences of ``n`` bits
and judges each test as the standard's section 4.2 does: the proportion of sequences with
P >= alpha must reach ``(1 - alpha) - 3 sqrt(alpha (1 - alpha) / m)`` (4.2.1) and, from 55
sequences, the P-values' chi-square over ten bins must give P-value_T >= 0.0001 (4.2.2).

The standard's DFT examples (2.6.4, 2.6.8) print N1 values its own formula does not give; the
test follows the formula (see ``tests/audits/test_sp80022.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

ALPHA = 0.01
TESTS = ("frequency", "block_frequency", "runs", "longest_run", "matrix_rank", "dft",
         "serial_p1", "serial_p2", "approximate_entropy", "cumulative_sums_forward",
         "cumulative_sums_reverse")
NOT_IMPLEMENTED = ("non-overlapping template", "overlapping template", "Maurer's universal",
                   "linear complexity", "random excursions", "random excursions variant")
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


def p_values(bits: np.ndarray) -> dict[str, float]:
    """Every implemented test's P-value of one sequence (bits: 0/1 uint8), named as ``TESTS``
    (the serial test's two P-values: ``serial_p1`` and ``serial_p2``)."""
    s1, s2 = serial(bits)
    return {"frequency": frequency(bits), "block_frequency": block_frequency(bits),
            "runs": runs(bits), "longest_run": longest_run(bits),
            "matrix_rank": matrix_rank(bits), "dft": dft(bits), "serial_p1": s1,
            "serial_p2": s2, "approximate_entropy": approximate_entropy(bits),
            "cumulative_sums_forward": cumulative_sums(bits),
            "cumulative_sums_reverse": cumulative_sums(bits, reverse=True)}


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
    """One test over the sequences: every P-value, the proportion passing (4.2.1), the
    uniformity of the P-values (4.2.2: P-value_T; None below 55 sequences, where the standard
    does not judge it) and the verdict (both rules)."""

    name: str
    p_values: tuple[float, ...]
    proportion: float
    passed: bool
    uniformity: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "p_values": list(self.p_values),
                "proportion": self.proportion,
                "uniformity_p": None if self.uniformity is None else round(self.uniformity, 6),
                "passed": self.passed}


@dataclass(frozen=True)
class NistBattery:
    """The battery's result (``to_dict``: the rng certificate's ``nist`` entry)."""

    sequences: int
    bits: int
    min_proportion: float
    tests: tuple[NistTest, ...]

    @property
    def implemented(self) -> int:
        """How many of the standard's 15 tests ran (a test may give several P-values)."""
        return 15 - len(NOT_IMPLEMENTED)

    @property
    def passed(self) -> bool:
        return all(t.passed for t in self.tests)

    @property
    def failed(self) -> list[str]:
        """The names of the tests below the acceptable proportion or, from 55 sequences, with
        non-uniform P-values."""
        return [t.name for t in self.tests if not t.passed]

    def test(self, name: str) -> NistTest:
        return next(t for t in self.tests if t.name == name)

    def to_dict(self) -> dict[str, Any]:
        return {"standard": "NIST SP 800-22 rev. 1a", "sequences": self.sequences,
                "bits": self.bits, "alpha": ALPHA,
                "min_proportion": round(self.min_proportion, 4),
                "uniformity_alpha": UNIFORMITY_ALPHA,
                "not_implemented": list(NOT_IMPLEMENTED),
                "tests": [t.to_dict() for t in self.tests], "passed": self.passed}


def battery(data: bytes, n: int, m: int) -> NistBattery:
    """The tests on ``m`` sequences of ``n`` bits from ``data`` (most significant bit of each
    byte first): per test, every P-value, the proportion passing and the verdict."""
    bits = np.unpackbits(np.frombuffer(data, np.uint8))
    if len(bits) < n * m:
        raise ValueError(f"{len(bits):,} bits: {m} sequences of {n:,} need {n * m:,}")
    per = [p_values(bits[i * n:(i + 1) * n]) for i in range(m)]
    least = min_proportion(m)
    tests = []
    for name in TESTS:
        ps = tuple(round(p[name], 6) for p in per)
        passing = sum(p >= ALPHA for p in ps) / m
        unif = uniformity(ps) if m >= UNIFORMITY_MIN_SEQUENCES else None
        ok = passing >= least and (unif is None or unif >= UNIFORMITY_ALPHA)
        tests.append(NistTest(name, ps, passing, ok, unif))
    return NistBattery(m, n, least, tuple(tests))
