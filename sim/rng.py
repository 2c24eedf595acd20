"""Per-hand random streams and the unbiased shuffle.

Each hand's randomness comes from a counter-based generator, Philox4x64-10 (the same function as
numpy's ``np.random.Philox``), keyed by ``(run seed, table id)``; the hand number selects the
counter space. So any hand can be reproduced alone, in any order, on any worker:

    key     = (seed, table_id)
    counter = (block, 0, hand_no, purpose)

Purposes (one stream each per hand; every stream purpose is named here): ``DECK_PURPOSE`` (0)
the deck, ``POLICY_PURPOSE`` (1) the bots' decisions, ``TABLE_PURPOSE`` (2) the table's own
events in ``sim.session`` (seats, buy-ins, leaves, the first button, timeouts, the 1-in-N draws
of injected faults).

The stream for ``(seed, table, hand, purpose)`` equals numpy's
``Philox(key=[seed, table], counter=[0, 0, hand, purpose])`` raw output (a test checks it).
Random integers are drawn with the mask-and-reject method (no modulo bias), one byte at a time
for small ranges. The shuffle is Fisher-Yates over the full 52-card deck.

A stream lives in a uint64 array of ``STREAM_SIZE`` words: counter[4], key[2], buffer[4], the
next unread byte of the buffer, and a scratch of ``AHEAD_BLOCKS`` blocks (``shuffle_deck``
generates a fresh stream's first blocks together, then leaves the stream as the byte-wise reads
would have: same counter, buffer and position).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic, overload

from audits.jitcache import literal_args
from sim.cards import N_CARDS
from sim.faults import F_ASF_SHUFFLE, F_MOD8_SHUFFLE, F_NAIVE_SHUFFLE, F_SEED32
from sim.layout import Blocks

_RS = Blocks("stream")
_CTR = _RS.take("_CTR", 4)  # Philox counter
_KEY = _RS.take("_KEY", 2)
_BUF = _RS.take("_BUF", 4)  # the current output block
_POS = _RS.take("_POS")  # next unread byte of the block (32: none left)
AHEAD_BLOCKS = 3  # blocks a shuffle generates at once (a deck reads 51-96 bytes 99.98% of the time)
_AHEAD = _RS.take("_AHEAD", 4 * AHEAD_BLOCKS)  # scratch: the blocks ``shuffle_deck`` reads
STREAM_SIZE = _RS.size
LAYOUTS = (_RS,)  # tests/sim/test_layout.py
DECK_PURPOSE = 0  # the deck's shuffle
POLICY_PURPOSE = 1  # the bots' decisions
TABLE_PURPOSE = 2  # the table's own events (sim.session)

_M0 = np.uint64(0xD2E7470EE14C6C93)
_M1 = np.uint64(0xCA5A826395121157)
_W0 = np.uint64(0x9E3779B97F4A7C15)
_W1 = np.uint64(0xBB67AE8584CAA73B)
_LO32 = np.uint64(0xFFFFFFFF)
_MAX = np.uint64(0xFFFFFFFFFFFFFFFF)
_U32 = np.uint64(32)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_BYTE = np.uint64(0xFF)
_EIGHT = np.uint64(8)
# smallest all-ones bit mask covering 0..n-1, for n = 0..52 (mask-and-reject draws)
_MASKS = np.array([0, 0] + [(1 << (n - 1).bit_length()) - 1 for n in range(2, N_CARDS + 1)],
                  dtype=np.int64)


def _add64(a, b):
    """a + b modulo 2**64 without relying on overflow (plain Python, under NUMBA_DISABLE_JIT);
    compiled, the native wrapping add (``_add64_native``)."""
    if a > _MAX - b:
        return a - (_MAX - b) - _ONE
    return a + b


def _mulhilo(a, b):
    """The high and low 64-bit words of the 128-bit product a * b, from 32-bit halves (plain
    Python, under NUMBA_DISABLE_JIT); compiled, one native multiply (``_mulhilo_native``)."""
    a0 = a & _LO32
    a1 = a >> _U32
    b0 = b & _LO32
    b1 = b >> _U32
    p00 = a0 * b0
    p10 = a1 * b0
    p01 = a0 * b1
    p11 = a1 * b1
    cross = (p00 >> _U32) + (p10 & _LO32) + p01
    hi = p11 + (p10 >> _U32) + (cross >> _U32)
    lo = ((cross & _LO32) << _U32) | (p00 & _LO32)
    return hi, lo


@intrinsic
def _mul_hi_lo(typingctx, a, b):
    """(high, low) words of the 128-bit product of two uint64, one native multiply. (The
    audits keep their own Philox in audits/keyed.py on purpose: they never import sim.)"""
    sig = types.UniTuple(types.uint64, 2)(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        i128 = ir.IntType(128)
        prod = builder.mul(builder.zext(args[0], i128), builder.zext(args[1], i128))
        hi = builder.trunc(builder.lshr(prod, ir.Constant(i128, 64)), ir.IntType(64))
        lo = builder.trunc(prod, ir.IntType(64))
        return context.make_tuple(builder, signature.return_type, (hi, lo))

    return sig, codegen


@overload(_mulhilo, inline="always")
def _mulhilo_native(a, b):
    """Compiled ``_mulhilo``: the same two words from one native multiply."""
    def impl(a, b):  # pragma: no cover - compiled
        return _mul_hi_lo(np.uint64(a), np.uint64(b))
    return impl


@overload(_add64, inline="always")
def _add64_native(a, b):
    """Compiled ``_add64``: uint64 addition wraps modulo 2**64 natively."""
    def impl(a, b):  # pragma: no cover - compiled
        return np.uint64(a) + np.uint64(b)
    return impl


@njit(cache=True, _nrt=False, inline="always")
def philox4x64(c0, c1, c2, c3, k0, k1):
    """Philox4x64-10 block function: the one Philox of sim (the game's streams here, the bulk
    decks and raw output of ``sim.deckgen``)."""
    for r in range(10):
        if r > 0:
            k0 = _add64(k0, _W0)
            k1 = _add64(k1, _W1)
        hi0, lo0 = _mulhilo(_M0, c0)
        hi1, lo1 = _mulhilo(_M1, c2)
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return c0, c1, c2, c3


@njit(cache=True, _nrt=False)
def stream_init(rs, seed, table_id, hand_no, purpose):
    """Point ``rs`` at the stream of one hand and purpose."""
    rs[_CTR + 0] = _ZERO
    rs[_CTR + 1] = _ZERO
    rs[_CTR + 2] = np.uint64(hand_no)
    rs[_CTR + 3] = np.uint64(purpose)
    rs[_KEY + 0] = np.uint64(seed)
    rs[_KEY + 1] = np.uint64(table_id)
    rs[_POS] = np.uint64(32)  # buffer empty


@njit(cache=True, _nrt=False)
def _refill(rs):
    # numpy's Philox increments the 256-bit counter before each block
    for w in range(4):
        rs[_CTR + w] = _add64(rs[_CTR + w], _ONE)
        if rs[_CTR + w] != _ZERO:
            break
    o0, o1, o2, o3 = philox4x64(rs[_CTR], rs[_CTR + 1], rs[_CTR + 2], rs[_CTR + 3],
                                rs[_KEY], rs[_KEY + 1])
    rs[_BUF] = o0
    rs[_BUF + 1] = o1
    rs[_BUF + 2] = o2
    rs[_BUF + 3] = o3
    rs[_POS] = _ZERO


@njit(cache=True, _nrt=False)
def next_u64(rs):
    """The next whole 64-bit output (skips any partly used word)."""
    pos = (rs[_POS] + np.uint64(7)) // _EIGHT
    if pos >= np.uint64(4):
        _refill(rs)
        pos = _ZERO
    v = rs[_BUF + np.int64(pos)]
    rs[_POS] = (pos + _ONE) * _EIGHT
    return v


@njit(cache=True, _nrt=False)
def next_byte(rs):
    """The next 8 random bits."""
    if rs[_POS] >= np.uint64(32):
        _refill(rs)
    p = np.int64(rs[_POS])
    v = (rs[_BUF + p // 8] >> np.uint64(8 * (p % 8))) & _BYTE
    rs[_POS] = np.uint64(p + 1)
    return np.int64(v)


@njit(cache=True, _nrt=False)
@literal_args  # compiled for each constant n: its mask folds (the bots' below(rs, 100))
def below(rs, n):
    """A uniform integer in [0, n), n >= 1, by mask-and-reject (unbiased)."""
    if n <= 1:
        return 0
    mask = 1
    while mask < n - 1:
        mask = (mask << 1) | 1
    if mask < 256:
        while True:
            r = next_byte(rs) & mask
            if r < n:
                return r
    m64 = np.uint64(mask)
    while True:
        r = np.int64((next_u64(rs) >> np.uint64(1)) & m64)
        if r < n:
            return r


@njit(cache=True, _nrt=False, inline="always")
def _philox4x64_x3(a, b, c, c1, c2, c3, k0, k1):
    """``philox4x64`` of three counters that differ in their low word (``a``, ``b``, ``c``), in
    one pass: the three blocks' multiplies are independent, so they run side by side."""
    a1 = b1 = e1 = c1
    a2 = b2 = e2 = c2
    a3 = b3 = e3 = c3
    for r in range(10):
        if r > 0:
            k0 = _add64(k0, _W0)
            k1 = _add64(k1, _W1)
        ha0, la0 = _mulhilo(_M0, a)
        ha1, la1 = _mulhilo(_M1, a2)
        hb0, lb0 = _mulhilo(_M0, b)
        hb1, lb1 = _mulhilo(_M1, b2)
        hc0, lc0 = _mulhilo(_M0, c)
        hc1, lc1 = _mulhilo(_M1, e2)
        a, a1, a2, a3 = ha1 ^ a1 ^ k0, la1, ha0 ^ a3 ^ k1, la0
        b, b1, b2, b3 = hb1 ^ b1 ^ k0, lb1, hb0 ^ b3 ^ k1, lb0
        c, e1, e2, e3 = hc1 ^ e1 ^ k0, lc1, hc0 ^ e3 ^ k1, lc0
    return a, a1, a2, a3, b, b1, b2, b3, c, e1, e2, e3


@njit(cache=True, _nrt=False, inline="always")
def philox_blocks3(out, at, c0, c1, c2, c3, k0, k1):
    """The three blocks after counter ``(c0, c1, c2, c3)`` (low words c0 + 1 .. c0 + 3, no
    carry: the caller checks) into ``out[at:at + 12]``, in stream order."""
    w = _philox4x64_x3(_add64(c0, _ONE), _add64(c0, np.uint64(2)), _add64(c0, np.uint64(3)),
                       c1, c2, c3, k0, k1)
    for k in range(12):
        out[at + k] = w[k]


@njit(cache=True, _nrt=False, inline="always")
def swap_draw(deck, j, r):
    """One step of the shuffle by rejection, without a data-dependent branch: the masked draw
    ``r`` accepted (``r <= j``) swaps cards ``j`` and ``r`` and moves on to ``j - 1``; rejected,
    it swaps card ``j`` with itself and stays at ``j``. The game's decks (``shuffle_deck``) and
    the bulk decks (``sim.deckgen``) both draw with it. Returns the next ``j``."""
    ok = r <= j
    x = r if ok else j
    t = deck[j]
    deck[j] = deck[x]
    deck[x] = t
    return j - np.int64(ok)


@njit(cache=True, _nrt=False)
def shuffle_deck(rs, deck):
    """Fisher-Yates: deck[i] swaps with a uniform j in [0, i], for i = 51 .. 1.

    Consumes the stream exactly as ``below`` would (bytes in order, mask-and-reject). On a fresh
    stream (no buffered byte: every game hand) the first ``AHEAD_BLOCKS`` blocks are generated
    together and the draws read without a data-dependent branch (a rejected byte leaves the
    deck and the step as they were); the stream is then left exactly as the byte-wise reads
    leave it. Otherwise (or past those blocks) the byte-wise loop ``_shuffle_from`` runs.
    """
    for k in range(N_CARDS):
        deck[k] = k
    c0 = rs[_CTR]
    if rs[_POS] != np.uint64(32) or c0 > _MAX - np.uint64(AHEAD_BLOCKS):
        _shuffle_from(rs, deck, N_CARDS - 1)
        return
    philox_blocks3(rs, _AHEAD, c0, rs[_CTR + 1], rs[_CTR + 2], rs[_CTR + 3], rs[_KEY],
                   rs[_KEY + 1])
    end = 32 * AHEAD_BLOCKS
    pos = 0
    j = N_CARDS - 1
    lo = 32
    mask = 63
    while j > 0:
        while j >= lo:
            if pos >= end:  # rare (about 1 deck in 6,000): on byte by byte from here
                rs[_CTR] = _add64(c0, np.uint64(AHEAD_BLOCKS))
                for k in range(4):
                    rs[_BUF + k] = rs[_AHEAD + 4 * (AHEAD_BLOCKS - 1) + k]
                rs[_POS] = np.uint64(32)
                _shuffle_from(rs, deck, j)
                return
            w = rs[_AHEAD + (pos >> 3)]
            j = swap_draw(deck, j, np.int64((w >> np.uint64((pos & 7) * 8)) & _BYTE) & mask)
            pos += 1
        lo >>= 1
        mask >>= 1
    used = (pos + 31) >> 5  # blocks read (pos >= 51: at least 2)
    rs[_CTR] = _add64(c0, np.uint64(used))
    for k in range(4):
        rs[_BUF + k] = rs[_AHEAD + 4 * (used - 1) + k]
    rs[_POS] = np.uint64(pos - 32 * (used - 1))


@njit(cache=True, _nrt=False)
def _shuffle_from(rs, deck, top):
    """Fisher-Yates steps i = top .. 1 on ``deck``, drawing byte by byte from the stream's
    current position (mask-and-reject, exactly as ``below``), the block kept in locals."""
    pos = np.int64(rs[_POS])
    c0, c1, c2, c3 = rs[_CTR], rs[_CTR + 1], rs[_CTR + 2], rs[_CTR + 3]
    k0, k1 = rs[_KEY], rs[_KEY + 1]
    w0, w1, w2, w3 = rs[_BUF], rs[_BUF + 1], rs[_BUF + 2], rs[_BUF + 3]
    for i in range(top, 0, -1):
        n = i + 1
        mask = _MASKS[n]
        while True:
            if pos >= 32:
                c0 = _add64(c0, _ONE)
                if c0 == _ZERO:  # carry (never within one hand, kept for exactness)
                    c1 = _add64(c1, _ONE)
                w0, w1, w2, w3 = philox4x64(c0, c1, c2, c3, k0, k1)
                pos = 0
            q = pos >> 3
            w = w0 if q == 0 else w1 if q == 1 else w2 if q == 2 else w3
            r = np.int64((w >> np.uint64((pos & 7) * 8)) & _BYTE) & mask
            pos += 1
            if r < n:
                break
        t = deck[i]
        deck[i] = deck[r]
        deck[r] = t
    rs[_CTR] = c0
    rs[_CTR + 1] = c1
    rs[_BUF], rs[_BUF + 1], rs[_BUF + 2], rs[_BUF + 3] = w0, w1, w2, w3
    rs[_POS] = np.uint64(pos)


@njit(cache=True, _nrt=False)
def faulty_shuffle(rs, deck, kind):
    """The deliberately broken shuffles of sim.faults (``kind``: a shuffle fault code, naive,
    ASF, 8-bit modulo or 32-bit seed). Only for ``--inject``; never used by a clean run."""
    for k in range(N_CARDS):
        deck[k] = k
    if kind == F_SEED32:
        seed32 = next_u64(rs) & np.uint64(0xFFFFFFFF)
        stream_init(rs, seed32, 0, 0, DECK_PURPOSE)
        shuffle_deck(rs, deck)
        return
    lo = 1 if kind == F_MOD8_SHUFFLE else 0
    for i in range(N_CARDS - 1, lo - 1, -1):
        if kind == F_NAIVE_SHUFFLE:
            j = below(rs, N_CARDS)
        elif kind == F_ASF_SHUFFLE:
            j = below(rs, N_CARDS - 1)
        else:
            j = next_byte(rs) % (i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t


def new_stream() -> np.ndarray:
    return np.zeros(STREAM_SIZE, dtype=np.uint64)


def hand_deck(seed: int, table_id: int, hand_no: int) -> np.ndarray:
    """The shuffled deck of one hand (reproducible alone)."""
    rs = new_stream()
    stream_init(rs, seed, table_id, hand_no, DECK_PURPOSE)
    deck = np.empty(N_CARDS, dtype=np.int64)
    shuffle_deck(rs, deck)
    return deck


def os_seed() -> int:
    """A 63-bit seed from the operating system's cryptographic source (not reproducible unless
    recorded)."""
    import secrets

    return secrets.randbits(63)
