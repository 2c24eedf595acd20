"""ChaCha20 (RFC 8439) block function and a deck shuffle fed by it: the ``os-chacha20``
generator for production-like runs. The 256-bit key comes from the operating system's
entropy for each batch and is not recorded, so such runs are marked not reproducible.

Words are 32-bit values held in int64 (the same arithmetic jitted or not). A stream is an int64
array of ``CHACHA_SIZE`` words: key[8], nonce[3], block counter, output block[16], next byte.
"""

from __future__ import annotations

import secrets

import numpy as np
from numba import njit

from sim.cards import N_CARDS
from sim.layout import Blocks

_CS = Blocks("chacha")
_KEY = _CS.take("_KEY", 8)
_NONCE = _CS.take("_NONCE", 3)
_CTR = _CS.take("_CTR")  # block counter
_OUT = _CS.take("_OUT", 16)  # output block
_POS = _CS.take("_POS")  # next unread byte of the output block
CHACHA_SIZE = _CS.size
LAYOUTS = (_CS,)  # tests/sim/test_layout.py
_M32 = 0xFFFFFFFF
_CONST = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)


@njit(cache=True, _nrt=False)
def _rotl(x, n):
    return ((x << n) | (x >> (32 - n))) & _M32


@njit(cache=True, _nrt=False)
def chacha20_block(cs):
    """Fill cs[_OUT:_OUT+16] with the block for the current key, counter and nonce."""
    x0, x1, x2, x3 = _CONST[0], _CONST[1], _CONST[2], _CONST[3]
    x4, x5, x6, x7 = cs[0], cs[1], cs[2], cs[3]
    x8, x9, x10, x11 = cs[4], cs[5], cs[6], cs[7]
    x12, x13, x14, x15 = cs[_CTR], cs[_NONCE], cs[_NONCE + 1], cs[_NONCE + 2]
    for _ in range(10):
        # column rounds
        x0 = (x0 + x4) & _M32; x12 = _rotl(x12 ^ x0, 16)  # noqa: E702
        x8 = (x8 + x12) & _M32; x4 = _rotl(x4 ^ x8, 12)  # noqa: E702
        x0 = (x0 + x4) & _M32; x12 = _rotl(x12 ^ x0, 8)  # noqa: E702
        x8 = (x8 + x12) & _M32; x4 = _rotl(x4 ^ x8, 7)  # noqa: E702
        x1 = (x1 + x5) & _M32; x13 = _rotl(x13 ^ x1, 16)  # noqa: E702
        x9 = (x9 + x13) & _M32; x5 = _rotl(x5 ^ x9, 12)  # noqa: E702
        x1 = (x1 + x5) & _M32; x13 = _rotl(x13 ^ x1, 8)  # noqa: E702
        x9 = (x9 + x13) & _M32; x5 = _rotl(x5 ^ x9, 7)  # noqa: E702
        x2 = (x2 + x6) & _M32; x14 = _rotl(x14 ^ x2, 16)  # noqa: E702
        x10 = (x10 + x14) & _M32; x6 = _rotl(x6 ^ x10, 12)  # noqa: E702
        x2 = (x2 + x6) & _M32; x14 = _rotl(x14 ^ x2, 8)  # noqa: E702
        x10 = (x10 + x14) & _M32; x6 = _rotl(x6 ^ x10, 7)  # noqa: E702
        x3 = (x3 + x7) & _M32; x15 = _rotl(x15 ^ x3, 16)  # noqa: E702
        x11 = (x11 + x15) & _M32; x7 = _rotl(x7 ^ x11, 12)  # noqa: E702
        x3 = (x3 + x7) & _M32; x15 = _rotl(x15 ^ x3, 8)  # noqa: E702
        x11 = (x11 + x15) & _M32; x7 = _rotl(x7 ^ x11, 7)  # noqa: E702
        # diagonal rounds
        x0 = (x0 + x5) & _M32; x15 = _rotl(x15 ^ x0, 16)  # noqa: E702
        x10 = (x10 + x15) & _M32; x5 = _rotl(x5 ^ x10, 12)  # noqa: E702
        x0 = (x0 + x5) & _M32; x15 = _rotl(x15 ^ x0, 8)  # noqa: E702
        x10 = (x10 + x15) & _M32; x5 = _rotl(x5 ^ x10, 7)  # noqa: E702
        x1 = (x1 + x6) & _M32; x12 = _rotl(x12 ^ x1, 16)  # noqa: E702
        x11 = (x11 + x12) & _M32; x6 = _rotl(x6 ^ x11, 12)  # noqa: E702
        x1 = (x1 + x6) & _M32; x12 = _rotl(x12 ^ x1, 8)  # noqa: E702
        x11 = (x11 + x12) & _M32; x6 = _rotl(x6 ^ x11, 7)  # noqa: E702
        x2 = (x2 + x7) & _M32; x13 = _rotl(x13 ^ x2, 16)  # noqa: E702
        x8 = (x8 + x13) & _M32; x7 = _rotl(x7 ^ x8, 12)  # noqa: E702
        x2 = (x2 + x7) & _M32; x13 = _rotl(x13 ^ x2, 8)  # noqa: E702
        x8 = (x8 + x13) & _M32; x7 = _rotl(x7 ^ x8, 7)  # noqa: E702
        x3 = (x3 + x4) & _M32; x14 = _rotl(x14 ^ x3, 16)  # noqa: E702
        x9 = (x9 + x14) & _M32; x4 = _rotl(x4 ^ x9, 12)  # noqa: E702
        x3 = (x3 + x4) & _M32; x14 = _rotl(x14 ^ x3, 8)  # noqa: E702
        x9 = (x9 + x14) & _M32; x4 = _rotl(x4 ^ x9, 7)  # noqa: E702
    o = _OUT
    cs[o + 0] = (x0 + _CONST[0]) & _M32
    cs[o + 1] = (x1 + _CONST[1]) & _M32
    cs[o + 2] = (x2 + _CONST[2]) & _M32
    cs[o + 3] = (x3 + _CONST[3]) & _M32
    cs[o + 4] = (x4 + cs[0]) & _M32
    cs[o + 5] = (x5 + cs[1]) & _M32
    cs[o + 6] = (x6 + cs[2]) & _M32
    cs[o + 7] = (x7 + cs[3]) & _M32
    cs[o + 8] = (x8 + cs[4]) & _M32
    cs[o + 9] = (x9 + cs[5]) & _M32
    cs[o + 10] = (x10 + cs[6]) & _M32
    cs[o + 11] = (x11 + cs[7]) & _M32
    cs[o + 12] = (x12 + cs[_CTR]) & _M32
    cs[o + 13] = (x13 + cs[_NONCE]) & _M32
    cs[o + 14] = (x14 + cs[_NONCE + 1]) & _M32
    cs[o + 15] = (x15 + cs[_NONCE + 2]) & _M32


@njit(cache=True, _nrt=False)
def chacha_init(cs, key, table_id, hand_no):
    """Point ``cs`` at one hand: nonce = (table id low, table id high, hand number)."""
    for k in range(8):
        cs[_KEY + k] = key[k]
    cs[_NONCE] = table_id & _M32
    cs[_NONCE + 1] = (table_id >> 32) & _M32
    cs[_NONCE + 2] = hand_no & _M32
    cs[_CTR] = 0
    cs[_POS] = 64


@njit(cache=True, _nrt=False)
def chacha_byte(cs):
    if cs[_POS] >= 64:
        cs[_CTR] += 1
        chacha20_block(cs)
        cs[_POS] = 0
    p = cs[_POS]
    cs[_POS] = p + 1
    return (cs[_OUT + (p >> 2)] >> (8 * (p & 3))) & 0xFF


@njit(cache=True, _nrt=False)
def chacha_shuffle(cs, deck):
    """Fisher-Yates over 52 cards with mask-and-reject draws from ChaCha20 bytes."""
    for k in range(N_CARDS):
        deck[k] = k
    for i in range(N_CARDS - 1, 0, -1):
        n = i + 1
        mask = 1
        while mask < n - 1:
            mask = (mask << 1) | 1
        while True:
            r = chacha_byte(cs) & mask
            if r < n:
                break
        t = deck[i]
        deck[i] = deck[r]
        deck[r] = t


def os_key() -> np.ndarray:
    """A fresh 256-bit key from the operating system (8 little-endian 32-bit words)."""
    raw = secrets.token_bytes(32)
    return np.frombuffer(raw, dtype="<u4").astype(np.int64)
