"""The deck-only path's bulk shuffle deals exactly the game's decks (sim.rng.hand_deck)."""

from __future__ import annotations

import numpy as np
import pytest

from sim.chacha import CHACHA_SIZE, chacha_init, chacha_shuffle
from sim.deckgen import HANDS_PER_TABLE, chacha_decks, faulty_decks, hand_key, philox_decks
from sim.rng import faulty_shuffle, hand_deck, new_stream, stream_init


@pytest.mark.parametrize("seed,start", [(1, 0), (7, 1995), (2**63 - 5, 123_456_789)])
def test_philox_decks_are_the_game_decks(seed: int, start: int) -> None:
    n = 2_500  # crosses table boundaries
    decks = philox_decks(seed, start, n)
    for i in range(0, n, 7):
        table, hand = hand_key(start + i)
        assert (decks[i] == hand_deck(seed, table, hand)).all(), i
    assert hand_key(HANDS_PER_TABLE + 3) == (1, 3)


def test_philox_decks_batches_agree() -> None:
    whole = philox_decks(3, 0, 3000)
    parts = np.concatenate([philox_decks(3, a, 1000) for a in (0, 1000, 2000)])
    assert (whole == parts).all()
    assert not (philox_decks(4, 0, 3000) == whole).all()


def test_chacha_and_faulty_decks_follow_the_game_code() -> None:
    key = np.arange(8, dtype=np.int64) * 0x1234567
    decks = chacha_decks(key, 998, 5)
    cs, deck = np.zeros(CHACHA_SIZE, np.int64), np.empty(52, np.int64)
    for i in range(5):
        chacha_init(cs, key, *hand_key(998 + i))
        chacha_shuffle(cs, deck)
        assert (decks[i] == deck).all()
    bad = faulty_decks(5, 0, 10, "asf-shuffle")
    rs = new_stream()
    stream_init(rs, 5, 0, 3, 0)
    faulty_shuffle(rs, deck, 2)
    assert (bad[3] == deck).all()
    assert (np.sort(bad, axis=1) == np.arange(52)).all()
