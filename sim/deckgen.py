"""Decks in bulk: the game's own shuffle for a run of consecutive hand keys, in one compiled call.

The deck-only path (``holdem shuffle``) numbers its decks ``d = 0, 1, 2, ...`` and gives deck
``d`` the hand key ``(seed, table_id = d // HANDS_PER_TABLE, hand_no = d % HANDS_PER_TABLE)``:
the deck of that key is exactly the deck a game hand with that key gets (``sim.rng.hand_deck``,
the same ``shuffle_deck`` on the same Philox stream; a test checks it). With ``os-chacha20`` the
256-bit key is drawn from the operating system for each batch and not recorded, as in the game.

Decks are written as bytes (card codes 0..51, ``card = rank * 4 + suit``) into an (n, 52)
uint8 array. ``faulty_decks`` plants the shuffle faults of ``sim.faults`` instead.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.cards import N_CARDS
from sim.chacha import CHACHA_SIZE, chacha20_block, chacha_init, chacha_shuffle, os_key
from sim.faults import SHUFFLE_FAULT_CODES, fault_name
from sim.rng import (
    AHEAD_BLOCKS,
    DECK_PURPOSE,
    STREAM_SIZE,
    faulty_shuffle,
    philox4x64,
    philox_blocks3,
    stream_init,
    swap_draw,
)

HANDS_PER_TABLE = 1000  # deck d is hand d % 1000 of table d // 1000 (the game's cash table length)
GENERATORS = ("philox", "os-chacha20")
# fault name (``holdem shuffle --inject``) -> sim.rng.faulty_shuffle kind
SHUFFLE_FAULTS = {name: code for code in SHUFFLE_FAULT_CODES if (name := fault_name(code))}


def hand_key(deck_index: int) -> tuple[int, int]:
    """(table_id, hand_no) of deck ``deck_index`` of a deck-only run."""
    return divmod(int(deck_index), HANDS_PER_TABLE)


MAX_BLOCKS = 64  # 2,048 bytes: a fair hand needs about 2.4 blocks (P(> 64 blocks) ~ 0)


@njit(cache=True, _nrt=False)
def _fill_blocks(words, first, last, k0, k1, c2):  # pragma: no cover - compiled
    """Blocks first..last-1 of a hand's deck stream (the counter's low word is block + 1), by the
    game's own Philox (sim.rng.philox4x64)."""
    for blk in range(first, last):
        w0, w1, w2, w3 = philox4x64(np.uint64(blk + 1), np.uint64(0), c2,
                                    np.uint64(DECK_PURPOSE), k0, k1)
        words[4 * blk] = w0
        words[4 * blk + 1] = w1
        words[4 * blk + 2] = w2
        words[4 * blk + 3] = w3


@njit(cache=True, _nrt=False)
def _philox_decks(seed, start, out, words, stream):  # pragma: no cover - compiled
    """sim.rng.stream_init + shuffle_deck for each deck, in one call: the same bytes read in the
    same order (mask-and-reject, one byte a draw), the same swaps, the same decks. The hand's
    stream is generated ahead (3 blocks side by side, more if the draws need them) and the
    draws taken from it without a data-dependent branch: a rejected byte swaps the card at the
    step with itself and the step stays (as sim.rng.shuffle_deck does)."""
    k0 = np.uint64(seed)
    for i in range(out.shape[0]):
        d = start + i
        k1 = np.uint64(d // HANDS_PER_TABLE)
        c2 = np.uint64(d % HANDS_PER_TABLE)
        blocks = AHEAD_BLOCKS
        philox_blocks3(words, 0, np.uint64(0), np.uint64(0), c2, np.uint64(DECK_PURPOSE), k0, k1)
        end = 32 * blocks
        pos = 0
        j = N_CARDS - 1
        lo = 32
        mask = 63
        deck = out[i]
        for k in range(N_CARDS):
            deck[k] = k
        while j > 0:
            while j >= lo:
                if pos >= end:  # rare: the stream needs another block
                    _fill_blocks(words, blocks, blocks + 1, k0, k1, c2)
                    blocks += 1
                    end += 32
                j = swap_draw(deck, j, np.int64(stream[pos]) & mask)
                pos += 1
            lo >>= 1
            mask >>= 1


@njit(cache=True, _nrt=False)
def _chacha_decks(key, start, out, cs, deck):  # pragma: no cover - compiled
    for i in range(out.shape[0]):
        d = start + i
        chacha_init(cs, key, d // HANDS_PER_TABLE, d % HANDS_PER_TABLE)
        chacha_shuffle(cs, deck)
        for k in range(N_CARDS):
            out[i, k] = deck[k]


@njit(cache=True, _nrt=False)
def _faulty_decks(seed, start, kind, out, rs, deck):  # pragma: no cover - compiled
    for i in range(out.shape[0]):
        d = start + i
        stream_init(rs, seed, d // HANDS_PER_TABLE, d % HANDS_PER_TABLE, DECK_PURPOSE)
        faulty_shuffle(rs, deck, kind)
        for k in range(N_CARDS):
            out[i, k] = deck[k]


def philox_decks(seed: int, start: int, n: int, out: np.ndarray | None = None) -> np.ndarray:
    """Decks ``start .. start + n - 1`` of a philox deck-only run with ``seed``: (n, 52) uint8."""
    out = np.empty((n, N_CARDS), np.uint8) if out is None else out[:n]
    words = np.empty(4 * MAX_BLOCKS, np.uint64)
    _philox_decks(np.uint64(seed), np.int64(start), out, words, words.view(np.uint8))
    return out


def chacha_decks(key: np.ndarray, start: int, n: int,
                 out: np.ndarray | None = None) -> np.ndarray:
    """Decks ``start .. start + n - 1`` under a ChaCha20 ``key`` (8 words; ``os_key()``)."""
    out = np.empty((n, N_CARDS), np.uint8) if out is None else out[:n]
    _chacha_decks(np.asarray(key, np.int64), np.int64(start), out,
                  np.zeros(CHACHA_SIZE, np.int64), np.empty(N_CARDS, np.int64))
    return out


def faulty_decks(seed: int, start: int, n: int, fault: str,
                 out: np.ndarray | None = None) -> np.ndarray:
    """Decks from a planted shuffle fault (``SHUFFLE_FAULTS``): these must FAIL certification."""
    out = np.empty((n, N_CARDS), np.uint8) if out is None else out[:n]
    _faulty_decks(np.uint64(seed), np.int64(start), np.int64(SHUFFLE_FAULTS[fault]), out,
                  np.zeros(STREAM_SIZE, np.uint64), np.empty(N_CARDS, np.int64))
    return out


def make_decks(generator: str, seed: int, start: int, n: int, inject: str | None = None,
               out: np.ndarray | None = None) -> np.ndarray:
    """Decks of one batch of a deck-only run (the dispatcher ``holdem shuffle`` uses)."""
    if inject is not None:
        return faulty_decks(seed, start, n, inject, out)
    if generator == "philox":
        return philox_decks(seed, start, n, out)
    if generator == "os-chacha20":
        return chacha_decks(os_key(), start, n, out)
    raise ValueError(f"generator {generator!r}: expected one of {', '.join(GENERATORS)}")


# ---------------------------------------------------------------- raw output, for `holdem rng test`

RAW_BLOCKS = 4  # blocks of each hand's deck stream in the raw output (a hand reads ~2.4)


@njit(cache=True, _nrt=False)
def _philox_raw(seed, start, hands, words):  # pragma: no cover - compiled
    """The first RAW_BLOCKS blocks of the deck streams of hands start .. start + hands - 1."""
    k0 = np.uint64(seed)
    for i in range(hands):
        d = start + i
        _fill_blocks(words[i * 4 * RAW_BLOCKS:(i + 1) * 4 * RAW_BLOCKS], 0, RAW_BLOCKS, k0,
                     np.uint64(d // HANDS_PER_TABLE), np.uint64(d % HANDS_PER_TABLE))


@njit(cache=True, _nrt=False)
def _chacha_raw(key, start, hands, out, cs):  # pragma: no cover - compiled
    """The first 2 blocks (128 bytes, as 32-bit words) of the ChaCha20 streams of hands."""
    for i in range(hands):
        d = start + i
        chacha_init(cs, key, d // HANDS_PER_TABLE, d % HANDS_PER_TABLE)
        for b in range(2):
            cs[11] += 1  # the block counter, as chacha_byte advances it
            chacha20_block(cs)
            for w in range(16):
                out[i * 32 + b * 16 + w] = cs[12 + w]


def raw_output(generator: str, seed: int, start: int, hands: int,
               key: np.ndarray | None = None) -> bytes:
    """128 bytes a hand: the head of each hand's deck stream, as the shuffle reads it (Philox
    words little-endian; ChaCha20 words little-endian), hands start .. start + hands - 1."""
    if generator == "philox":
        words = np.empty(hands * 4 * RAW_BLOCKS, np.uint64)
        _philox_raw(np.uint64(seed), np.int64(start), hands, words)
        return words.astype("<u8").tobytes()
    out = np.empty(hands * 32, np.int64)
    _chacha_raw(np.asarray(os_key() if key is None else key, np.int64), np.int64(start), hands,
                out, np.zeros(CHACHA_SIZE, np.int64))
    return out.astype("<u4").tobytes()


@njit(cache=True, _nrt=False)
def _draw_bits(decks, pos, out):  # pragma: no cover - compiled
    """Recover each deck's Fisher-Yates draws (the card ending at position i was drawn from
    position r_i at step i) and pack the draws whose range is a power of two (i + 1 = 32, 16,
    8, 4, 2: 5 + 4 + 3 + 2 + 1 = 15 uniform bits a deck) into 64-bit words. Returns words."""
    acc = np.uint64(0)
    nbits = 0
    nw = 0
    cur = pos[:N_CARDS]  # scratch: the deck being rebuilt
    where = pos[N_CARDS:2 * N_CARDS]  # scratch: position of each card
    for d in range(decks.shape[0]):
        for k in range(N_CARDS):
            cur[k] = k
            where[k] = k
        for i in range(N_CARDS - 1, 0, -1):
            c = np.int64(decks[d, i])
            r = where[c]
            t = cur[i]
            cur[i] = c
            cur[r] = t
            where[t] = r
            where[c] = i
            n = i + 1
            if n & (n - 1) == 0:
                bits = 0
                while (1 << bits) < n:
                    bits += 1
                acc |= np.uint64(r) << np.uint64(nbits)
                nbits += bits
                if nbits >= 64:
                    out[nw] = acc
                    nw += 1
                    nbits -= 64
                    acc = np.uint64(r) >> np.uint64(bits - nbits) if nbits else np.uint64(0)
    return nw


def draw_bits(decks: np.ndarray) -> bytes:
    """The uniform bits of the Fisher-Yates draws of ``decks`` (see ``_draw_bits``)."""
    out = np.empty(decks.shape[0] * 15 // 64 + 2, np.uint64)
    nw = _draw_bits(np.ascontiguousarray(decks), np.empty(2 * N_CARDS, np.int64), out)
    return out[:nw].astype("<u8").tobytes()
