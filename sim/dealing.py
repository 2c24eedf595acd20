"""The deck's dealing order, defined once: which deck index each dealt card comes from.

A hand deals ``HOLE_CARDS`` rounds of hole cards, one card at a time to each of the ``n_dealt``
seats in the hand (clockwise from the first seat left of the button), then, before each street
that deals board cards, ``BURN_CARDS`` burn followed by the street's ``STREET_CARDS``. The engine
(``sim.engine``) deals by these functions and ``sim.histories.replay.reference`` rebuilds a deck
with them, so the two cannot disagree (tests/sim/test_dealing.py).
"""

from __future__ import annotations

from functools import lru_cache

from numba import njit

from sim.cards import BOARD_CARDS, HOLE_CARDS, N_CARDS
from sim.codes import FLOP, PREFLOP, RIVER, TURN

BURN_CARDS = 1  # burned before each street that deals board cards
_DEALS = {FLOP: 3, TURN: 1, RIVER: 1}  # board cards each street deals
# the same, indexed by Street value (PREFLOP .. RIVER), for the compiled code
STREET_CARDS = tuple(_DEALS.get(st, 0) for st in range(PREFLOP, RIVER + 1))
# board cards dealt once each street has begun, indexed by Street value (PREFLOP .. RIVER)
BOARD_BY_STREET = tuple(sum(STREET_CARDS[:st + 1]) for st in range(PREFLOP, RIVER + 1))
if sum(STREET_CARDS) != BOARD_CARDS:  # pragma: no cover - a declaration error
    raise ValueError(f"STREET_CARDS {STREET_CARDS} do not deal the {BOARD_CARDS} board cards")


@njit(cache=True, _nrt=False)
def hole_pos(n_dealt: int, round_: int, i: int) -> int:
    """Deck index of the hole card dealt in round ``round_`` (0 .. HOLE_CARDS - 1) to the
    ``i``-th seat (0 .. n_dealt - 1) of the dealing order."""
    return round_ * n_dealt + i


@njit(cache=True, _nrt=False)
def board_pos(n_dealt: int, k: int) -> int:
    """Deck index of board card ``k`` (0 .. BOARD_CARDS - 1) of a hand dealt to ``n_dealt``
    seats: past the hole cards and the burns of its street and the streets before."""
    pos = HOLE_CARDS * n_dealt
    first = 0  # index of the street's first board card
    for st in range(FLOP, RIVER + 1):
        pos += BURN_CARDS
        if k < first + STREET_CARDS[st]:
            return pos + k - first
        pos += STREET_CARDS[st]
        first += STREET_CARDS[st]
    return -1


@njit(cache=True, _nrt=False)
def burn_pos(n_dealt: int, street: int) -> int:
    """Deck index of the (last) burn before ``street`` deals its board cards."""
    first = 0
    for st in range(FLOP, street):
        first += STREET_CARDS[st]
    return board_pos(n_dealt, first) - 1


def deck_positions(n_dealt: int) -> tuple[list[list[int]], list[int], list[int]]:
    """The whole dealing order of a hand dealt to ``n_dealt`` seats: (hole[i][round] deck
    indices by seat of the dealing order, burn indices by street, board indices); fresh lists
    (computed once per ``n_dealt``)."""
    hole, burns, board = _deck_positions(n_dealt)
    return [list(h) for h in hole], list(burns), list(board)


@lru_cache(maxsize=64)
def _deck_positions(n_dealt: int) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...],
                                            tuple[int, ...]]:
    if not 0 <= HOLE_CARDS * n_dealt + BURN_CARDS * (RIVER - PREFLOP) + BOARD_CARDS <= N_CARDS:
        raise ValueError(f"{n_dealt} seats cannot be dealt from a {N_CARDS}-card deck")
    hole = tuple(tuple(int(hole_pos(n_dealt, r, i)) for r in range(HOLE_CARDS))
                 for i in range(n_dealt))
    burns = tuple(int(burn_pos(n_dealt, st)) for st in range(FLOP, RIVER + 1))
    board = tuple(int(board_pos(n_dealt, k)) for k in range(BOARD_CARDS))
    return hole, burns, board
