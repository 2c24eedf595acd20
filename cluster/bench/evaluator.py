"""``holdem bench evaluator``: the speed of :mod:`sim.evaluator`: random-hand throughput and the
full 7-card enumeration."""

from __future__ import annotations

import time
from statistics import median

import numpy as np
from numba import njit

from sim.evaluator import (
    EXPECTED_7CARD_COUNTS,
    HandCategory,
    count_categories_all7,
    evaluate7,
)


@njit(cache=True)
def random_hands(n: int, seed: int) -> np.ndarray:
    """``n`` uniformly random 7-card hands (uint8, shape (n, 7)) by partial Fisher-Yates."""
    np.random.seed(seed)
    deck = np.arange(52, dtype=np.uint8)
    out = np.empty((n, 7), dtype=np.uint8)
    for h in range(n):
        for i in range(7):
            j = np.random.randint(i, 52)
            deck[i], deck[j] = deck[j], deck[i]
            out[h, i] = deck[i]
    return out


@njit(cache=True)
def evaluate_loop(hands: np.ndarray) -> int:
    """Evaluate every hand; returns a checksum so the work cannot be optimised away."""
    acc = 0
    for h in range(hands.shape[0]):
        acc ^= (
            evaluate7(
                hands[h, 0],
                hands[h, 1],
                hands[h, 2],
                hands[h, 3],
                hands[h, 4],
                hands[h, 5],
                hands[h, 6],
            )
            + h
        )
    return acc


def run_evaluator_bench(
    n_hands: int = 10_000_000, repeats: int = 3, enumerate_all: bool = True, seed: int = 12345
) -> dict:
    """Time ``evaluate7`` on random hands and (optionally) the full C(52,7) enumeration.

    Returns a dict with ``hands_per_s`` (median over ``repeats``), ``ns_per_hand``, and when
    ``enumerate_all``: ``enum_seconds``, ``counts`` (category name -> count), ``expected``,
    ``ok`` (counts equal EXPECTED_7CARD_COUNTS). Compilation is done before timing.
    """
    hands = random_hands(n_hands, seed)
    evaluate_loop(hands[:10])  # compile / load from cache
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        evaluate_loop(hands)
        times.append(time.perf_counter() - t0)
    t = median(times)
    result: dict = {
        "n_hands": n_hands,
        "repeats": repeats,
        "eval_seconds": t,
        "hands_per_s": n_hands / t,
        "ns_per_hand": t / n_hands * 1e9,
    }
    if enumerate_all:
        count_categories_all7.compile(())  # make sure compilation is not timed
        t0 = time.perf_counter()
        counts = count_categories_all7()
        result["enum_seconds"] = time.perf_counter() - t0
        result["counts"] = {c.name: int(counts[c]) for c in HandCategory}
        result["expected"] = {c.name: int(EXPECTED_7CARD_COUNTS[c]) for c in HandCategory}
        result["total"] = int(counts.sum())
        result["ok"] = bool(np.array_equal(counts, EXPECTED_7CARD_COUNTS))
    return result


def print_evaluator_bench() -> int:
    """Print the evaluator benchmark; exit code 1 if the category counts are wrong."""
    res = run_evaluator_bench()
    print(
        f"evaluate7: {res['hands_per_s']:,.0f} hands/s ({res['ns_per_hand']:.1f} ns/hand, "
        f"median of {res['repeats']} x {res['n_hands']:,} random hands)"
    )
    print(
        f"all 7-card hands: {res['total']:,} in {res['enum_seconds']:.2f} s "
        f"-> {'OK' if res['ok'] else 'MISMATCH'}"
    )
    for name, count in res["counts"].items():
        exp = res["expected"][name]
        mark = "" if count == exp else f"  (expected {exp:,})"
        print(f"  {name:<16} {count:>12,}{mark}")
    return 0 if res["ok"] else 1

