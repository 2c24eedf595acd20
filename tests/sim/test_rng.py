"""sim.rng's Philox4x64-10 (the one Philox of sim): the game's streams are numpy's Philox, and the
readable Python helpers (run under NUMBA_DISABLE_JIT) give what the compiled native ones give."""

from __future__ import annotations

import numpy as np

from sim.rng import (
    _AHEAD,
    _add64,
    _mulhilo,
    below,
    new_stream,
    next_u64,
    philox4x64,
    shuffle_deck,
    stream_init,
)

WORDS = [0, 1, 2**32 - 1, 2**32, 2**63, 2**64 - 1, 0xD2E7470EE14C6C93, 0x9E3779B97F4A7C15,
         0x0123456789ABCDEF]


def test_streams_are_numpys_philox() -> None:
    for seed, table, hand, purpose in [(1, 2, 3, 0), (2**63 - 1, 5, 999, 2), (0, 0, 0, 1)]:
        rs = new_stream()
        stream_init(rs, seed, table, hand, purpose)
        ours = [int(next_u64(rs)) for _ in range(12)]
        ref = np.random.Philox(key=[seed, table], counter=[0, 0, hand, purpose]).random_raw(12)
        assert ours == [int(x) for x in ref]


def test_python_helpers_are_the_native_arithmetic() -> None:
    for a in WORDS:
        for b in WORDS:
            hi, lo = _mulhilo(np.uint64(a), np.uint64(b))
            assert (int(hi), int(lo)) == divmod(a * b, 2**64)
            assert int(_add64(np.uint64(a), np.uint64(b))) == (a + b) % 2**64
    args = [np.uint64(w) for w in (WORDS[3], WORDS[5], 7, WORDS[8], WORDS[6], WORDS[4])]
    compiled = philox4x64(*args)
    plain = philox4x64.py_func(*args)  # the same body on the Python helpers
    assert [int(x) for x in compiled] == [int(x) for x in plain]


def _bytewise_shuffle(rs: np.ndarray) -> list[int]:
    """The reference shuffle: Fisher-Yates with one ``below`` draw a step (byte by byte)."""
    deck = list(range(52))
    for i in range(51, 0, -1):
        r = int(below(rs, i + 1))
        deck[i], deck[r] = deck[r], deck[i]
    return deck


def test_shuffle_deck_reads_the_stream_as_the_bytewise_draws() -> None:
    # fresh streams (the blocks generated ahead), two that need a fourth block (hands 1356 and
    # 3716 of key (7, 3)), a stream already part read, and a counter about to carry
    cases = [(7, 3, h, 0) for h in [*range(120), 1356, 3716]] + [(2**63 - 1, 9, 5, 1)]
    for i, (seed, table, hand, purpose) in enumerate([*cases, cases[0], cases[1]]):
        a, b = new_stream(), new_stream()
        for rs in (a, b):
            stream_init(rs, seed, table, hand, purpose)
            if i == len(cases):
                next_u64(rs)  # part read: the byte-wise path
            elif i == len(cases) + 1:
                rs[0] = np.uint64(2**64 - 2)  # the low counter word carries within the hand
        deck = np.empty(52, np.int64)
        shuffle_deck(a, deck)
        assert deck.tolist() == _bytewise_shuffle(b), (seed, table, hand)
        assert a[:_AHEAD].tolist() == b[:_AHEAD].tolist()  # counter, buffer and position
        assert int(next_u64(a)) == int(next_u64(b))
    assert int(a[1]) == 1  # the carry happened
