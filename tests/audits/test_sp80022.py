"""NIST SP 800-22's tests against the standard's own worked examples (rev. 1a, sections 2.1.4,
2.1.8, 2.2.4, 2.2.8, 2.3.4, 2.3.8, 2.13.4, 2.13.8): the P-values it prints, to six digits."""

from __future__ import annotations

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
