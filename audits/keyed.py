"""The audits' own derivation of a hand's deck from its documented key.

The log documents (docs/engine.md, "Randomness"; the ``seed_key`` field) that with the ``philox``
generator the deck of the hand with ``seed_key = [seed, table_id, hand_no]`` is

- the raw 64-bit words of Philox4x64-10 with key ``(seed, table_id)`` and counter
  ``(0, 0, hand_no, 0)``, the counter incremented (as a 256-bit little-endian integer) before
  each block, each word read as 8 bytes, least significant first;
- a Fisher-Yates shuffle of the cards ``0..51`` in order: for ``i = 51 .. 1``, a byte ``b`` is
  read, ``r = b & mask(i + 1)`` (``mask(n)`` = the smallest all-ones bit mask >= ``n - 1``); a
  draw ``r > i`` is rejected and another byte read; then cards ``i`` and ``r`` swap.

This module is written from that text, not from the simulator (the audits never import ``sim``;
a test checks the stream against numpy's own ``np.random.Philox``). It is a different
computation from the engine's: the 128-bit products come from LLVM's ``i128`` multiply, the
byte stream of a hand is generated ahead of the draws (``FIRST_BLOCKS`` blocks, a longer stream
for the rare deck that needs it), then the draws are read from it and *undone* on the
logged deck (swaps applied in reverse order to the logged deck must give back ``0..51``), so no
shuffled deck is ever built. A logged deck that is a fair permutation but not its key's fails.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

_M0 = np.uint64(0xD2E7470EE14C6C93)  # Philox4x64 multipliers (Salmon et al., SC'11)
_M1 = np.uint64(0xCA5A826395121157)
_W0 = np.uint64(0x9E3779B97F4A7C15)  # Weyl key increments
_W1 = np.uint64(0xBB67AE8584CAA73B)
_ROUNDS = 10
MAX_BLOCKS = 16  # 512 bytes a hand; a fair stream needs about 2.4 blocks (P(> 16) < 1e-300)


@intrinsic
def _mul_hi_lo(typingctx, a, b):
    """(high, low) 64-bit words of the full 128-bit product of two uint64 (one LLVM i128 mul)."""
    sig = types.UniTuple(types.uint64, 2)(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        i128 = ir.IntType(128)
        prod = builder.mul(builder.zext(args[0], i128), builder.zext(args[1], i128))
        hi = builder.trunc(builder.lshr(prod, ir.Constant(i128, 64)), ir.IntType(64))
        lo = builder.trunc(prod, ir.IntType(64))
        return context.make_tuple(builder, signature.return_type, (hi, lo))

    return sig, codegen


@njit(cache=True, _nrt=False)
def philox_block(x0, x1, x2, x3, k0, k1):  # pragma: no cover - compiled
    """One Philox4x64-10 block: counter words x0..x3 under key (k0, k1)."""
    for _ in range(_ROUNDS):
        h0, l0 = _mul_hi_lo(_M0, x0)
        h1, l1 = _mul_hi_lo(_M1, x2)
        x0, x1, x2, x3 = h1 ^ x1 ^ k0, l1, h0 ^ x3 ^ k1, l0
        k0 += _W0  # uint64 arithmetic wraps
        k1 += _W1
    return x0, x1, x2, x3


@njit(cache=True, _nrt=False)
def stream_words(seed, table_id, hand_no, out):  # pragma: no cover - compiled
    """Fill ``out`` (uint64, a multiple of 4 long) with the hand's deck stream, from its start."""
    c0 = np.uint64(0)
    c1 = np.uint64(0)
    c2 = np.uint64(hand_no)
    c3 = np.uint64(0)
    k0 = np.uint64(seed)
    k1 = np.uint64(table_id)
    for blk in range(out.shape[0] // 4):
        # the 256-bit counter is incremented before each block (carries into the next words)
        c0 += np.uint64(1)
        if c0 == 0:
            c1 += np.uint64(1)
            if c1 == 0:
                c2 += np.uint64(1)
                if c2 == 0:
                    c3 += np.uint64(1)
        w0, w1, w2, w3 = philox_block(c0, c1, c2, c3, k0, k1)
        out[4 * blk] = w0
        out[4 * blk + 1] = w1
        out[4 * blk + 2] = w2
        out[4 * blk + 3] = w3


@njit(cache=True, _nrt=False)
def _draws(stream, draws):  # pragma: no cover - compiled
    """The Fisher-Yates draws of a byte stream (``stream``: uint8, the words' little-endian
    bytes): draws[i] for i = 51..1. Returns the number of bytes used, or -1 when ``stream`` ran
    out (the caller extends it).

    Written without a data-dependent branch: while i has the same bit length the mask is fixed
    (63 for i = 51..32, 31 for 31..16, ...), every byte's masked value is stored as draws[i] and
    i moves down only when it was accepted (r <= i), so a rejected draw is overwritten."""
    pos = 0
    end = stream.shape[0]
    i = 51
    lo = 32
    mask = 63
    while i > 0:
        while i >= lo:
            if pos >= end:
                return -1
            r = np.int64(stream[pos]) & mask
            draws[i] = r
            i -= np.int64(r <= i)
            pos += 1
        lo >>= 1
        mask >>= 1
    return pos


FIRST_BLOCKS = 3  # 96 bytes: enough for the draws of all but about one deck in 7,000
_PAD_WORDS = 7  # 56 zero bytes after them (a zero byte is always accepted: see _padded_draws)


@njit(cache=True, _nrt=False, inline="always")
def _run(stream, draws, pos, i, lo, mask):  # pragma: no cover - compiled
    """The draws of one bit length (i = ``2 * lo - 1`` .. ``lo``, or from 51), mask fixed."""
    while i >= lo:
        r = np.int64(stream[pos]) & mask
        draws[i] = r
        i -= np.int64(r <= i)
        pos += 1
    return pos, i


@njit(cache=True, _nrt=False)
def _padded_draws(stream, draws):  # pragma: no cover - compiled
    """``_draws`` without a bounds check, for a stream of ``FIRST_BLOCKS`` blocks followed by
    zero bytes: a zero byte is always accepted, so the draws end within 51 pad bytes. Returns
    the bytes used; more than the stream's 32 * FIRST_BLOCKS means the draws read pad bytes
    and are void (the caller derives again from a longer stream)."""
    pos, i = _run(stream, draws, 0, 51, 32, 63)
    pos, i = _run(stream, draws, pos, i, 16, 31)
    pos, i = _run(stream, draws, pos, i, 8, 15)
    pos, i = _run(stream, draws, pos, i, 4, 7)
    pos, i = _run(stream, draws, pos, i, 2, 3)
    pos, i = _run(stream, draws, pos, i, 1, 1)
    return pos


@njit(cache=True, _nrt=False)
def keyed_draws(seed, table_id, hand_no, buf, stream, draws):  # pragma: no cover - compiled
    """The key's Fisher-Yates draws into ``draws`` (draws[i] for i = 51..1); False when a
    stream of ``MAX_BLOCKS`` blocks does not hold them. Scratch: ``buf`` (uint64,
    4 * MAX_BLOCKS) and ``stream``, its uint8 view. The first ``FIRST_BLOCKS`` blocks are
    followed by zero bytes and read without bounds checks; a longer stream is read checked."""
    stream_words(seed, table_id, hand_no, buf[:4 * FIRST_BLOCKS])
    for w in range(4 * FIRST_BLOCKS, 4 * FIRST_BLOCKS + _PAD_WORDS):
        buf[w] = 0
    if _padded_draws(stream, draws) <= 32 * FIRST_BLOCKS:
        return True
    blocks = 2 * FIRST_BLOCKS
    while True:
        stream_words(seed, table_id, hand_no, buf[:4 * blocks])
        if _draws(stream[:32 * blocks], draws) >= 0:
            return True
        if blocks >= MAX_BLOCKS:
            return False
        blocks = min(MAX_BLOCKS, blocks * 2)


@njit(cache=True, _nrt=False)
def keyed_deck_matches(seed, table_id, hand_no, deck, buf, stream, draws, work):  # pragma: no cover
    """True when ``deck`` (52 card codes) is the deck of key (seed, table_id, hand_no): the
    swaps of the key's draws, undone on the logged deck from the first to the last, give back
    the cards in order. Scratch: ``buf`` (uint64, 4 * MAX_BLOCKS), ``stream`` (its uint8 view),
    ``draws`` and ``work`` (int64, 52)."""
    if not keyed_draws(seed, table_id, hand_no, buf, stream, draws):
        return False
    for j in range(52):
        work[j] = deck[j]
    # the shuffle applied swaps (51, d51), (50, d50), ..., (1, d1): undo them in reverse order
    for i in range(1, 52):
        r = draws[i]
        t = work[i]
        work[i] = work[r]
        work[r] = t
    for j in range(52):
        if work[j] != j:
            return False
    return True


@njit(cache=True, _nrt=False)
def _check_keyed(decks, seeds, tables, hands, keyed, bad, buf, stream, draws,
                 work):  # pragma: no cover - compiled
    for i in range(decks.shape[0]):
        if keyed[i] and not keyed_deck_matches(seeds[i], tables[i], hands[i], decks[i], buf,
                                               stream, draws, work):
            bad[i] = 1


def check_keyed(decks: np.ndarray, seeds: np.ndarray, tables: np.ndarray, hands: np.ndarray,
                keyed: np.ndarray, bad: np.ndarray) -> None:
    """bad[i] = 1 for each row i with ``keyed[i]`` whose deck (row i of the (n, 52) ``decks``)
    is not the deck of key (seeds[i], tables[i], hands[i])."""
    buf = np.empty(4 * MAX_BLOCKS, np.uint64)
    _check_keyed(decks, seeds, tables, hands, keyed, bad, buf, buf.view(np.uint8),
                 np.zeros(52, np.int64), np.empty(52, np.int64))


@njit(cache=True)
def derive_deck(seed, table_id, hand_no):  # pragma: no cover - compiled
    """The deck of a key, built forward (for tests and error messages; the audit undoes draws
    on the logged deck instead)."""
    buf = np.empty(4 * MAX_BLOCKS, np.uint64)
    draws = np.zeros(52, np.int64)
    keyed_draws(seed, table_id, hand_no, buf, buf.view(np.uint8), draws)
    deck = np.arange(52)
    for i in range(51, 0, -1):
        r = draws[i]
        t = deck[i]
        deck[i] = deck[r]
        deck[r] = t
    return deck
