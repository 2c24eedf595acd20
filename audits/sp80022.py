"""Tests of NIST SP 800-22 rev. 1a ("A Statistical Test Suite for Random and Pseudorandom Number
Generators for Cryptographic Applications") on a bit sequence, written from the standard's
formulas and checked against its worked examples (``tests/audits/test_sp80022.py``: every
example's P-value to the six digits the standard prints).

Implemented: 2.1 Frequency (monobit), 2.2 Frequency within a block, 2.3 Runs, 2.13 Cumulative
sums (forward and reverse). Not implemented (said on the certificate): the other eleven tests of
the suite. ``battery`` runs them on ``m`` sequences of ``n`` bits and judges each test as the
standard's section 4.2.1 does: the proportion of sequences with P >= alpha must reach
``(1 - alpha) - 3 sqrt(alpha (1 - alpha) / m)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

ALPHA = 0.01
TESTS = ("frequency", "block_frequency", "runs", "cumulative_sums_forward",
         "cumulative_sums_reverse")
NOT_IMPLEMENTED = ("longest run of ones in a block", "binary matrix rank", "discrete Fourier "
                   "transform", "non-overlapping template", "overlapping template", "Maurer's "
                   "universal", "linear complexity", "serial", "approximate entropy", "random "
                   "excursions", "random excursions variant")


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


def p_values(bits: np.ndarray) -> dict[str, float]:
    """Every implemented test's P-value of one sequence (bits: 0/1 uint8)."""
    return {"frequency": frequency(bits), "block_frequency": block_frequency(bits),
            "runs": runs(bits), "cumulative_sums_forward": cumulative_sums(bits),
            "cumulative_sums_reverse": cumulative_sums(bits, reverse=True)}


def min_proportion(m: int, alpha: float = ALPHA) -> float:
    """Section 4.2.1: the least acceptable proportion of m sequences passing at ``alpha``."""
    p = 1 - alpha
    return p - 3 * math.sqrt(p * alpha / m)


@dataclass(frozen=True)
class NistTest:
    """One test over the sequences: every P-value, the proportion passing, the verdict."""

    name: str
    p_values: tuple[float, ...]
    proportion: float
    passed: bool

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "p_values": list(self.p_values),
                "proportion": self.proportion, "passed": self.passed}


@dataclass(frozen=True)
class NistBattery:
    """The battery's result (``to_dict``: the rng certificate's ``nist`` entry)."""

    sequences: int
    bits: int
    min_proportion: float
    tests: tuple[NistTest, ...]

    @property
    def passed(self) -> bool:
        return all(t.passed for t in self.tests)

    @property
    def failed(self) -> list[str]:
        """The names of the tests below the acceptable proportion."""
        return [t.name for t in self.tests if not t.passed]

    def test(self, name: str) -> NistTest:
        return next(t for t in self.tests if t.name == name)

    def to_dict(self) -> dict[str, Any]:
        return {"standard": "NIST SP 800-22 rev. 1a", "sequences": self.sequences,
                "bits": self.bits, "alpha": ALPHA,
                "min_proportion": round(self.min_proportion, 4),
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
        tests.append(NistTest(name, ps, passing, passing >= least))
    return NistBattery(m, n, least, tuple(tests))
