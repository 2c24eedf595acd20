"""The engine's straddle (``sim.engine.start_hand_straddle``, docs/game.md#straddles): a live
blind by the seat left of the big blind, the bet to call, action from its left, the straddler
last with the option, the minimum raise one big blind over it (PokerKit's rule; the
differential test checks it against PokerKit on random hands)."""

from __future__ import annotations

import pytest

from sim.config import TableConfig
from sim.hand import Action, Hand
from sim.layout import EventKind


def test_a_straddle_is_the_bet_to_call_and_the_straddler_has_the_option() -> None:
    cfg = TableConfig(n_seats=6, small_blind=1, big_blind=2)
    h = Hand(cfg, [100] * 6, button=0, seed=1, straddle=4)
    posts = [(r.seat, r.kind, r.added) for r in h.records
             if r.kind in (EventKind.SMALL_BLIND, EventKind.BIG_BLIND, EventKind.STRADDLE)]
    assert posts == [(1, EventKind.SMALL_BLIND, 1), (2, EventKind.BIG_BLIND, 2),
                     (3, EventKind.STRADDLE, 4)]
    la = h.legal_actions()
    assert (la.seat, la.call_amount, la.min_raise_to) == (4, 4, 6)  # left of the straddler
    for s in (4, 5, 0, 1, 2):
        assert h.legal_actions().seat == s
        h.apply(Action.check_call(s))
    la = h.legal_actions()  # everybody called: the straddler's option
    assert la.seat == 3 and la.can_check and la.can_raise and la.min_raise_to == 6
    h.apply(Action.check_call(3))
    assert h.street.name == "FLOP" and h.legal_actions().seat == 1


def test_a_short_straddler_is_all_in_for_less() -> None:
    cfg = TableConfig(n_seats=4, small_blind=1, big_blind=2)
    h = Hand(cfg, [50, 50, 50, 3], button=0, seed=2, straddle=4)
    assert [(r.seat, r.added) for r in h.records if r.kind == EventKind.STRADDLE] == [(3, 3)]
    la = h.legal_actions()
    assert (la.seat, la.call_amount, la.min_raise_to) == (0, 3, 5)


@pytest.mark.parametrize("stacks,kw,want", [
    ([50, 50], {"straddle": 4}, "a hand of 2 players has no straddle"),
    ([50] * 4, {"straddle": 2}, "straddle 2: expected more chips than the big blind"),
    ([50] * 4, {"straddle": 4, "straddle_seat": 2}, "straddle seat 2"),
    ([50] * 4, {"straddle": 4, "posts": [0, 0, 0, 2]}, "straddle: not with posts="),
])
def test_a_straddle_the_engine_does_not_play_is_one_line(stacks: list[int], kw: dict,
                                                          want: str) -> None:
    cfg = TableConfig(n_seats=len(stacks), small_blind=1, big_blind=2)
    with pytest.raises(ValueError, match=want) as e:
        Hand(cfg, stacks, button=0, seed=3, **kw)
    assert "\n" not in str(e.value)
