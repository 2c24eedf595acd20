"""NIST SP 800-22's tests against the standard's own worked examples (rev. 1a, sections 2.1.4,
2.1.8, 2.2.4, 2.2.8, 2.3.4, 2.3.8, 2.13.4, 2.13.8): the P-values it prints, to six digits."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from decimal import Decimal, getcontext
from typing import Any

import numpy as np
import pytest

from audits import sp80022 as S

PI = "3.14159265358979323846264338327950288419716939937510582097494459"


def _bits(text: str) -> np.ndarray:
    return np.array([int(c) for c in text], np.uint8)


def _pi_bits(n: int) -> np.ndarray:
    """The standard's 100-bit example: the first n bits of pi's binary expansion (11.0010...)."""
    getcontext().prec = 80
    value = int(Decimal(PI) * (Decimal(2) ** (n - 2)))
    return _bits(format(value, "b")[:n])


def test_the_examples_input_is_pis_expansion() -> None:
    assert "".join(map(str, _pi_bits(100)[:20])) == "11001001000011111101"


@pytest.mark.parametrize("test, bits, kwargs, p", [
    (S.frequency, "1011010101", {}, 0.527089),
    (S.frequency, "pi", {}, 0.109599),
    (S.block_frequency, "0110011010", {"m": 3}, 0.801252),
    (S.block_frequency, "pi", {"m": 10}, 0.706438),
    (S.runs, "1001101011", {}, 0.147232),
    (S.runs, "pi", {}, 0.500798),
    (S.cumulative_sums, "1011010111", {}, 0.4116588),
    (S.cumulative_sums, "pi", {}, 0.219194),
    (S.cumulative_sums, "pi", {"reverse": True}, 0.114866),
])
def test_published_examples(test: Callable[..., float], bits: str, kwargs: dict[str, Any],
                            p: float) -> None:
    seq = _pi_bits(100) if bits == "pi" else _bits(bits)
    assert test(seq, **kwargs) == pytest.approx(p, abs=5e-7)


def test_battery_passes_fair_bits_and_fails_biased_ones() -> None:
    rng = np.random.default_rng(7)
    fair = S.battery(rng.integers(0, 256, 12_500 * 10, dtype=np.uint8).tobytes(), 100_000, 10)
    assert fair.passed, fair
    biased = rng.integers(0, 256, 12_500 * 10, dtype=np.uint8) | 1  # every 8th bit set
    res = S.battery(biased.tobytes(), 100_000, 10)
    assert not res.passed and "frequency" in res.failed
    assert not res.test("frequency").passed
    assert res.to_dict()["passed"] is False
    assert S.min_proportion(10) == pytest.approx(0.8956, abs=1e-4)
    # 100,000 bits: too short for Maurer's test (387,840) and too few cycles for the
    # excursion tests: said as not judged, never counted as passed
    assert "universal" in fair.not_judged and "random_excursions_+1" in fair.not_judged
    assert fair.test("universal").p_values == (None,) * 10
    assert fair.to_dict()["not_judged"] == fair.not_judged
    # a failure stands only if the entry fails again on the next sequences (the retest)
    cleared = dataclasses.replace(res, retest=fair)
    assert cleared.failed == res.failed and cleared.confirmed_failures == [] and cleared.passed
    again = dataclasses.replace(res, retest=S.battery(biased[::-1].tobytes(), 100_000, 10))
    assert "frequency" in again.confirmed_failures and not again.passed
    d = again.to_dict()
    assert d["passed"] is False and d["retest"]["passed"] is False
    assert d["confirmed_failures"] == again.confirmed_failures


LONGEST_RUN_EXAMPLE = ("11001100000101010110110001001100111000000000001001001101010100010001001111"
                       "010110100000001101011111001100111001101101100010110010")


@pytest.mark.parametrize("test, bits, kwargs, p", [
    # 2.4.4 / 2.4.8 (n = 128, M = 8; chi^2 = 4.882605 with the 4-digit class probabilities)
    (S.longest_run, LONGEST_RUN_EXAMPLE, {}, 0.180598),
    # 2.5.4 (M = Q = 3, two matrices of ranks 2 and 3: chi^2 = 0.596953)
    (S.matrix_rank, "01011001001010101101",
     {"m": 3, "q": 3, "probabilities": (0.2888, 0.5776, 0.1336)}, 0.741948),
    # 2.12.4 and 2.12.8
    (S.approximate_entropy, "0100110101", {"m": 3}, 0.261961),
    (S.approximate_entropy, "pi", {"m": 2}, 0.235301),
])
def test_published_examples_of_the_other_tests(test: Callable[..., float], bits: str,
                                               kwargs: dict[str, Any], p: float) -> None:
    seq = _pi_bits(100) if bits == "pi" else _bits(bits)
    assert test(seq, **kwargs) == pytest.approx(p, abs=5e-7)


def test_serial_published_example() -> None:
    """2.11.4: both P-values of 0011011101 with m = 3."""
    p1, p2 = S.serial(_bits("0011011101"), 3)
    assert p1 == pytest.approx(0.808792, abs=5e-7) and p2 == pytest.approx(0.670320, abs=5e-7)


def test_longest_run_needs_128_bits() -> None:
    with pytest.raises(ValueError, match="128 bits"):
        S.longest_run(_bits(LONGEST_RUN_EXAMPLE[:100]))


def test_dft_counts_the_moduli_the_standard_defines() -> None:
    """2.6: N1 counts |S_j| < T for j = 0 .. n/2 - 1 of the +-1 sequence's transform. The
    standard's own examples (2.6.4: 1001010011, N1 = 4, P = 0.029523; 2.6.8: pi, N1 = 46,
    P = 0.168669) do not follow from its formula (which gives N1 = 5 and 48), so the statistic
    is checked here against the formula's direct sum, and its P-value for those N1."""
    for seq in (_bits("1001010011"), _pi_bits(100)):
        n = len(seq)
        x = 2.0 * seq - 1
        j = np.arange(n // 2)[:, None]
        direct = np.abs((x * np.exp(-2j * np.pi * j * np.arange(n) / n)).sum(axis=1))
        n1 = int((direct < np.sqrt(np.log(20) * n)).sum())
        d = (n1 - 0.95 * n / 2) / np.sqrt(n * 0.95 * 0.05 / 4)
        assert S.dft(seq) == pytest.approx(float(__import__("math").erfc(abs(d) / np.sqrt(2))))
    assert S.dft(_bits("1001010011")) == pytest.approx(0.468160, abs=5e-7)  # N1 = 5
    periodic = np.tile(_bits("1100"), 4096)  # one huge peak and zeros: far too many below T
    assert S.dft(periodic) < 1e-6


def test_matrix_rank_over_gf2() -> None:
    eye = np.eye(32, dtype=np.uint8)
    dup = eye.copy()
    dup[5] = dup[3] ^ dup[7]  # a row the sum of two others: rank 31
    ones = np.ones((32, 32), np.uint8)
    assert list(S.gf2_ranks(np.stack([eye, dup, ones]))) == [32, 31, 1]
    rng = np.random.default_rng(3)
    m = rng.integers(0, 2, (200, 32, 32), dtype=np.uint8)
    r = S.gf2_ranks(m)
    assert r.min() >= 28 and (r == 32).mean() == pytest.approx(0.2888, abs=0.1)


def test_uniformity_of_p_values() -> None:
    """4.2.2: P-value_T of the ten-bin chi-square; uniform P-values pass, bunched ones fail."""
    even = [(i + 0.5) / 100 for i in range(100)]
    assert S.uniformity(even) == pytest.approx(1.0)
    bunched = [0.55] * 50 + even[::2]
    assert S.uniformity(bunched) < S.UNIFORMITY_ALPHA
    assert S.uniformity([1.0] * 10 + even[:90]) == 1.0  # P = 1 falls in the last bin


def _e_bits(n: int) -> np.ndarray:
    """The first n bits of e's binary expansion (10.1011...), the standard's data.e: e - 1 as
    sum 1/k! (k >= 1) by binary splitting in exact integers."""
    def split(a: int, b: int) -> tuple[int, int]:  # sum_{k=a+1}^{b} a!/k! = p/q, q = b!/a!
        if b - a == 1:
            return 1, b
        mid = (a + b) // 2
        p1, q1 = split(a, mid)
        p2, q2 = split(mid, b)
        return p1 * q2 + p2, q1 * q2

    k = 2
    while sum(math.log2(i) for i in range(2, k + 1)) < n + 64:
        k *= 2
    p, q = split(0, k)
    return _bits(format(((q + p) << (n - 2)) // q, "b")[:n])


@pytest.fixture(scope="module")
def e_bits() -> np.ndarray:
    return _e_bits(1_000_000)


@pytest.mark.slow  # e to a million bits: about 3 s
def test_published_results_on_e(e_bits: np.ndarray) -> None:
    """The standard's examples on e (2.5.8: 100,000 bits; 2.11.8: m = 2) and its Appendix B
    table of P-values for the first 1,000,000 bits of e with the default parameters."""
    assert "".join(map(str, e_bits[:12])) == "101011011111"
    assert S.matrix_rank(e_bits[:100_000]) == pytest.approx(0.532069, abs=5e-7)
    p1, p2 = S.serial(e_bits, 2)
    assert (p1, p2) == pytest.approx((0.843764, 0.561915), abs=5e-7)
    got = S.p_values(e_bits)
    assert S.non_overlapping_template(e_bits, ["000000001"]) == {
        "000000001": pytest.approx(0.078790, abs=5e-7)}
    assert S.overlapping_template(e_bits, poisson=True) == pytest.approx(0.110434, abs=5e-7)
    assert S.universal(e_bits) == pytest.approx(0.282568, abs=5e-7)  # 2.9.8
    reference = (0.01047, 0.03125, 0.125, 0.5, 0.25, 0.0625, 0.020833)
    assert S.linear_complexity(e_bits, 1000, reference) == pytest.approx(0.845406, abs=5e-7)
    assert S.linear_complexity(e_bits, 500, reference) == pytest.approx(0.826335, abs=5e-7)
    exc = S.random_excursions(e_bits)  # 2.14.8: every state
    assert exc is not None and [round(exc[x], 6) for x in S.EXCURSION_STATES] == [
        0.573306, 0.197996, 0.164011, 0.007779, 0.786868, 0.440912, 0.797854, 0.778186]
    var = S.random_excursions_variant(e_bits)
    assert var is not None and var[-1] == pytest.approx(0.826009, abs=5e-7)
    table = {"frequency": 0.953749, "block_frequency": 0.211072, "runs": 0.561917,
             "longest_run": 0.718945, "matrix_rank": 0.306156, "dft": 0.847187,
             "serial_p1": 0.766182, "serial_p2": 0.462921, "approximate_entropy": 0.700073,
             "cumulative_sums_forward": 0.669887}
    for name, p in table.items():
        assert got[name] == pytest.approx(p, abs=1.5e-6), name


def test_non_overlapping_template() -> None:
    """2.7.4: template 001 in 10100100101110010110, N = 2 blocks; the 148 aperiodic
    templates of m = 9; a periodic template refused."""
    p = S.non_overlapping_template(_bits("10100100101110010110"), ["001"], blocks=2)
    assert p == {"001": pytest.approx(0.344154, abs=5e-7)}
    templates = S.aperiodic_templates(9)
    assert len(templates) == 148 and set(S.BATTERY_TEMPLATES) <= set(templates)
    with pytest.raises(ValueError, match="aperiodic"):
        S.non_overlapping_template(_bits("10100100101110010110"), ["101"], blocks=2)


def test_overlapping_template_probabilities() -> None:
    """2.8.4's compound Poisson probabilities for eta = 1.125, and rev. 1a's for the defaults."""
    pi = S._overlap_probabilities(2.25 / 2, 5)
    assert pi == pytest.approx([0.324652, 0.182617, 0.142670, 0.106645, 0.077147, 0.166269],
                               abs=1.5e-6)  # (the last printed as 1 minus the rounded others)
    assert sum(S._OVERLAP_PI) == pytest.approx(1.0, abs=1e-5)
    ones = np.ones(1032 * 20, np.uint8)  # every window matches: all blocks in the last class
    assert S.overlapping_template(ones) < 1e-6


def test_linear_complexity_and_universal() -> None:
    """2.10.4: 1101011110001 has linear complexity 4 (Berlekamp-Massey); a sequence of
    period 2 has 2. Maurer's test refuses fewer than 387,840 bits and fails a periodic one."""
    assert list(S._bm_lengths(np.stack([_bits("1101011110001"), _bits("1010101010101")]))) == [
        4, 2]
    def plain(seq: list[int]) -> int:  # Berlekamp-Massey as 2.10 states it, over whole lists
        n = len(seq)
        c, b, big_l, last = [1] + [0] * n, [1] + [0] * n, 0, -1
        for i in range(n):
            d = seq[i]
            for j in range(1, big_l + 1):
                d ^= c[j] & seq[i - j]
            if d:
                t = c[:]
                for j in range(n + 1 - (i - last)):
                    c[j + i - last] ^= b[j]
                if big_l <= i // 2:
                    big_l, last, b = i + 1 - big_l, i, t
        return big_l

    rows = np.random.default_rng(5).integers(0, 2, (100, 120), dtype=np.uint8)
    assert list(S._bm_lengths(rows)) == [plain(list(map(int, r))) for r in rows]
    with pytest.raises(ValueError, match="387,840"):
        S.universal(np.zeros(100_000, np.uint8))
    assert S.universal(np.tile(_bits("1101000"), 60_000)) < 1e-6
    assert S.linear_complexity(np.tile(_bits("1101000"), 10_000)) < 1e-6


def test_random_excursions_variant_published_example() -> None:
    """2.15.4: 0110110101 (J = 3 cycles; the test's minimum waived), x = +1."""
    var = S.random_excursions_variant(_bits("0110110101"), least=0)
    assert var is not None and var[1] == pytest.approx(0.683091, abs=5e-7)
    assert S.random_excursions_variant(_bits("0110110101")) is None  # 3 cycles < 500
    assert S.random_excursions(_bits("0110110101")) is None


def test_judge_counts_only_the_sequences_a_test_applies_to() -> None:
    """4.2.1 for the excursion tests: the proportion over the sequences with enough cycles."""
    ps = (None,) * 40 + (0.5,) * 59 + (0.001,)
    t = S.judge("random_excursions_+1", ps)
    assert t.applicable == 60 and t.proportion == pytest.approx(59 / 60)
    assert t.min_proportion == pytest.approx(S.min_proportion(60))
    assert t.uniformity is not None and t.uniformity < S.UNIFORMITY_ALPHA  # all in one bin
    assert not t.passed  # 59 of 60 pass 4.2.1, but 4.2.2 rejects the bunched P-values
    assert S.judge("x", (None,) * 40 + (0.5,) * 55 + (0.001,) * 5).passed is False  # 4.2.1
    spread = S.judge("x", (None,) * 40 + tuple(0.012 + i / 61 for i in range(60)))
    assert spread.passed and spread.uniformity is not None and spread.uniformity > 0.9
    nothing = S.judge("random_excursions_+1", (None,) * 10)
    assert not nothing.judged and nothing.passed and nothing.to_dict()["judged"] is False
