"""The dealing order (sim.dealing) is the engine's: every card a hand deals is the deck's card at
the index the order gives, and the order is the rules' (two rounds of hole cards, then burn,
flop, burn, turn, burn, river)."""

from __future__ import annotations

import pytest

from sim.cards import BOARD_CARDS, HOLE_CARDS, N_CARDS
from sim.config import TableConfig
from sim.dealing import BOARD_BY_STREET, STREET_CARDS, deck_positions
from sim.hand import Action, Hand
from sim.layout import MAX_SEATS, EventKind, Street


@pytest.mark.parametrize("n", range(2, MAX_SEATS + 1))
def test_the_order_is_the_rules(n: int) -> None:
    hole, burns, board = deck_positions(n)
    assert hole == [[i, n + i] for i in range(n)]
    assert burns == [2 * n, 2 * n + 4, 2 * n + 6]
    assert board == [2 * n + 1, 2 * n + 2, 2 * n + 3, 2 * n + 5, 2 * n + 7]
    every = [p for h in hole for p in h] + burns + board
    assert sorted(every) == list(range(len(every))) and max(every) < N_CARDS


def test_street_tables_agree_with_the_streets() -> None:
    assert len(STREET_CARDS) == len(BOARD_BY_STREET) == Street.RIVER + 1
    assert sum(STREET_CARDS) == BOARD_CARDS == BOARD_BY_STREET[Street.RIVER]
    assert BOARD_BY_STREET[Street.PREFLOP] == 0 and BOARD_BY_STREET[Street.FLOP] == 3


def test_too_many_seats_for_the_deck_is_an_error() -> None:
    with pytest.raises(ValueError, match="cannot be dealt"):
        deck_positions(N_CARDS)


@pytest.mark.parametrize(("stacks", "button"), [
    ([100, 100], 1),
    ([100] * 6, 2),
    ([100, 0, 100, 100, 0, 100, 100], 4),  # empty seats are not dealt
    ([100] * MAX_SEATS, 9),
])
def test_the_engine_deals_by_the_order(stacks: list[int], button: int) -> None:
    n = len(stacks)
    deck = list(reversed(range(N_CARDS)))
    h = Hand(TableConfig(n_seats=n), stacks, button=button, deck=deck)
    while h.street != Street.COMPLETE:
        la = h.legal_actions()
        h.apply(Action.check_call(la.seat) if la.seat >= 0 and h.street < Street.SHOWDOWN
                else Action.show(la.seat))
    dealt = [s for s in [(button + i) % n for i in range(1, n + 1)] if stacks[s] > 0]
    hole, burns, board = deck_positions(len(dealt))
    holes = [r for r in h.records if r.kind == EventKind.DEAL_HOLE]
    assert [(r.seat, r.card) for r in holes] == \
        [(s, deck[hole[i][k]]) for k in range(HOLE_CARDS) for i, s in enumerate(dealt)]
    assert [r.card for r in h.records if r.kind == EventKind.BURN] == [deck[p] for p in burns]
    assert [r.card for r in h.records if r.kind == EventKind.DEAL_BOARD] == \
        [deck[p] for p in board]
    assert h.board == [deck[p] for p in board]
