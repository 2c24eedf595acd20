"""Boards conditioned on the action (issue 35): each board card's texture against its exact law
given the unseen cards, after big pots and small (``audits.boards``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from audits import boards, shuffles


def _hands(decks: np.ndarray, pots_bb: np.ndarray) -> boards.BoardPartial:
    """Heads-up hands from fair decks: hole 0-3, flop 5-7, turn 9, river 11; one pre-flop call
    of ``pots_bb`` big blinds (big blind 2)."""
    n = decks.shape[0]
    d = decks.astype(np.int64)
    board = d[:, [5, 6, 7, 9, 11]]
    return boards.board_map_arrays(
        np.ones((n, 2), bool), d[:, [0, 2, 1, 3]], (board.ravel(), np.arange(n + 1) * 5),
        (np.zeros(n, np.int64), np.full(n, 8, np.int64), 2.0 * pots_bb, np.arange(n + 1)),
        np.full(n, 2))


def test_probabilities_are_exact() -> None:
    """One hand: the summed p of each feature equals the brute-force count over every flop,
    turn and river of the unseen cards."""
    d = shuffles.fair_fisher_yates(1, np.random.default_rng(1))
    p = _hands(d, np.array([20.0]))
    hole = {int(c) for c in d[0, :4]}
    un = [c for c in range(52) if c not in hole]
    flops = list(itertools.combinations(un, 3))
    paired = np.mean([len({c // 4 for c in f}) < 3 for f in flops])
    mono = np.mean([len({c % 4 for c in f}) == 1 for f in flops])
    conn = np.mean([bool(boards.CONNECTED[f[0] // 4, f[1] // 4, f[2] // 4]) for f in flops])
    s = p.sums[:, 1]
    assert s[0, 2] == pytest.approx(paired) and s[1, 2] == pytest.approx(mono)
    assert s[2, 2] == pytest.approx(conn)
    flop = [int(c) for c in d[0, [5, 6, 7]]]
    rest = [c for c in un if c not in flop]
    assert s[3, 2] == pytest.approx(np.mean([c // 4 in {x // 4 for x in flop} for c in rest]))
    assert boards.CONNECTED[12, 0, 1] and boards.CONNECTED[8, 9, 12] and \
        not boards.CONNECTED[0, 1, 6]


def test_fair_boards_pass_and_an_action_flop_dealer_fails() -> None:
    rng = np.random.default_rng(35)
    n = 20_000
    d = shuffles.fair_fisher_yates(n, rng)
    pots = np.where(rng.random(n) < 0.7, 12.0, 3.0)  # big pots: 77% in the default population
    fair = boards.texture_test([_hands(d, pots)])
    assert fair is not None and fair["p"] > 0.001
    # the rig: a big pot's unpaired rainbow flop re-drawn (the cards after the hole cards
    # shuffled again) with probability 0.5, again while it is one
    rig = d.copy()
    for i in np.flatnonzero(pots >= 10):
        while (len({c // 4 for c in rig[i, 5:8]}) == 3 and len({c % 4 for c in rig[i, 5:8]}) == 3
               and rng.random() < .5):
            rig[i, 4:] = rng.permutation(rig[i, 4:])
    r = boards.texture_test([_hands(rig, pots)])
    assert r is not None and r["p"] < 1e-6 and "big pots" in r["details"]["worst"]
