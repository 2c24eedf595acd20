"""sim.rng's Philox4x64-10 (the one Philox of sim): the game's streams are numpy's Philox, and the
readable Python helpers (run under NUMBA_DISABLE_JIT) give what the compiled native ones give."""

from __future__ import annotations

import numpy as np

from sim.rng import _add64, _mulhilo, new_stream, next_u64, philox4x64, stream_init

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
