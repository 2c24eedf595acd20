"""The audits' own derivation of a deck from its key (audits.keyed) against numpy's Philox and
against the engine's dealing, on random keys; and the check fails decks that are not the key's."""

from __future__ import annotations

import numpy as np

from audits import keyed
from sim.rng import hand_deck


def _random_keys(n: int, seed: int) -> list[tuple[int, int, int]]:
    rng = np.random.default_rng(seed)
    return [(int(rng.integers(0, 2**63)), int(rng.integers(0, 2**62)), int(rng.integers(0, 2**31)))
            for _ in range(n)]


def test_stream_is_numpy_philox_on_random_keys() -> None:
    for seed, table, hand in _random_keys(200, 1) + [(0, 0, 0), (2**64 - 1, 2**64 - 1, 2**32)]:
        words = np.zeros(12, np.uint64)
        keyed.stream_words(np.uint64(seed), np.uint64(table), np.uint64(hand), words)
        ref = np.random.Philox(key=[seed, table], counter=[0, 0, hand, 0]).random_raw(12)
        assert np.array_equal(words, ref.astype(np.uint64)), (seed, table, hand)


def test_block_function_is_numpy_philox_on_random_counters() -> None:
    rng = np.random.default_rng(4)
    for _ in range(200):
        ctr = rng.integers(1, 2**64, size=4, dtype=np.uint64)
        key = rng.integers(0, 2**64, size=2, dtype=np.uint64)
        bg = np.random.Philox(key=key)
        state = bg.state
        # numpy increments the counter before a block: start it one below (word 0 >= 1)
        state["state"]["counter"] = ctr - np.array([1, 0, 0, 0], np.uint64)
        bg.state = state
        x = keyed.philox_block(ctr[0], ctr[1], ctr[2], ctr[3], key[0], key[1])
        assert np.array_equal(np.array(x, np.uint64), bg.random_raw(4).astype(np.uint64))


def test_decks_are_the_engines_and_check_accepts_them() -> None:
    keys = _random_keys(300, 2)
    decks = np.array([hand_deck(*k) for k in keys], np.int8)
    for k, d in zip(keys, decks, strict=True):
        assert np.array_equal(keyed.derive_deck(*k), d)
    seeds, tables, hands = (np.array(c, np.uint64) for c in zip(*keys, strict=True))
    bad = np.zeros(len(keys), np.int8)
    keyed.check_keyed(decks, seeds, tables, hands, np.ones(len(keys), np.bool_), bad)
    assert not bad.any()


def test_decks_whose_draws_outrun_the_first_blocks() -> None:
    """About one deck in 7,000 needs more bytes than the first blocks hold (read unchecked, then
    zero bytes): those are derived again from a longer stream, and still checked."""
    rng = np.random.default_rng(5)
    n = 100_000
    seeds, tables = rng.integers(0, 2**63, n, np.uint64), rng.integers(0, 2**62, n, np.uint64)
    hands = rng.integers(0, 2**31, n, np.uint64)
    words = np.zeros(4 * keyed.FIRST_BLOCKS, np.uint64)
    draws = np.zeros(52, np.int64)
    long = []
    for key in zip(seeds, tables, hands, strict=True):
        keyed.stream_words(*key, words)
        if keyed._draws(words.view(np.uint8), draws) < 0:
            long.append(tuple(int(x) for x in key))
    assert len(long) >= 5
    decks = np.array([hand_deck(*k) for k in long], np.int8)
    for k, d in zip(long, decks, strict=True):
        assert np.array_equal(keyed.derive_deck(*k), d)
    s, t, h = (np.array(c, np.uint64) for c in zip(*long, strict=True))
    bad = np.zeros(len(long), np.int8)
    keyed.check_keyed(decks, s, t, h, np.ones(len(long), np.bool_), bad)
    assert not bad.any()
    decks[0, [0, 1]] = decks[0, [1, 0]]
    keyed.check_keyed(decks, s, t, h, np.ones(len(long), np.bool_), bad)
    assert list(np.flatnonzero(bad)) == [0]


def test_check_fails_a_fair_deck_that_is_not_the_keys() -> None:
    keys = _random_keys(200, 3)
    decks = np.array([hand_deck(*k) for k in keys], np.int8)
    seeds, tables, hands = (np.array(c, np.uint64) for c in zip(*keys, strict=True))
    rng = np.random.default_rng(9)
    forged = decks.copy()
    forged[0] = decks[1]                       # another hand's deck (a valid permutation)
    forged[2] = rng.permutation(52)            # a fair permutation from elsewhere
    forged[3, [10, 40]] = forged[3, [40, 10]]  # two undealt cards swapped
    forged[4] = hand_deck(keys[4][0], keys[4][1], keys[4][2] + 1)  # the next hand's stream
    bad = np.zeros(len(keys), np.int8)
    keyed.check_keyed(forged, seeds, tables, hands, np.ones(len(keys), np.bool_), bad)
    assert list(np.flatnonzero(bad)) == [0, 2, 3, 4]
    skip = np.ones(len(keys), np.bool_)
    skip[0] = False  # rows not keyed are not checked
    bad[:] = 0
    keyed.check_keyed(forged, seeds, tables, hands, skip, bad)
    assert list(np.flatnonzero(bad)) == [2, 3, 4]


def test_logged_strength_is_the_documented_encoding() -> None:
    """The audits' scores, rewritten in the log's documented encoding, equal the engine's."""
    from audits.evaluator import eval7_many, logged_strength
    from sim.evaluator import evaluate_many

    rng = np.random.default_rng(8)
    cards = np.array([rng.permutation(52)[:7] for _ in range(50_000)], np.int64)
    ours = [logged_strength(int(x)) for x in eval7_many(cards)]
    assert ours == [int(x) for x in evaluate_many(cards)]
