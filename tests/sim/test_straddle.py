"""The engine's straddle (``sim.engine.start_hand_straddle``, docs/game.md#straddles): a live
blind by the seat left of the big blind, the bet to call, action from its left, the straddler
last with the option. The minimum raise over it (``straddle_raise``): "straddle" (the default,
the card rooms' rule: the straddler is the bigger blind, a raise adds at least the straddle;
PokerKit cannot play it, so the independent check below is written from the rule's text) or
"big_blind" (one big blind over it, PokerKit's rule; the differential test checks it against
PokerKit on random hands)."""

from __future__ import annotations

import pytest

from sim.config import Structure, TableConfig
from sim.hand import Action, Hand
from sim.layout import EventKind


def test_a_straddle_is_the_bet_to_call_and_the_straddler_has_the_option() -> None:
    cfg = TableConfig(n_seats=6, small_blind=1, big_blind=2)
    h = Hand(cfg, [100] * 6, button=0, seed=1, straddle=4, straddle_raise="big_blind")
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
    for rule in ("straddle", "big_blind"):  # no full straddle: the increment stays the bb
        h = Hand(cfg, [50, 50, 50, 3], button=0, seed=2, straddle=4, straddle_raise=rule)
        assert [(r.seat, r.added) for r in h.records if r.kind == EventKind.STRADDLE] == [(3, 3)]
        la = h.legal_actions()
        assert (la.seat, la.call_amount, la.min_raise_to) == (0, 3, 5)


def _min_raise_to_by_the_rule(straddle: int, raises_to: list[int]) -> int:
    """The card rooms' rule, written from its text and not from the engine: the straddler is
    the bigger blind, so unraised a raise goes to at least twice the straddle; after that each
    raise adds at least the largest increment so far (the last full raise)."""
    cur, inc = straddle, straddle
    for to in raises_to:
        inc, cur = max(inc, to - cur), to
    return cur + inc


@pytest.mark.parametrize("straddle,raises", [(4, []), (4, [8]), (4, [11]), (5, [10, 17]),
                                              (6, [12, 30]), (8, [16, 24, 40])])
def test_the_straddler_is_the_bigger_blind_by_default(straddle: int, raises: list[int]) -> None:
    cfg = TableConfig(n_seats=6, small_blind=1, big_blind=2)
    h = Hand(cfg, [500] * 6, button=0, seed=3, straddle=straddle)
    la = h.legal_actions()
    assert la.min_raise_to == 2 * straddle == _min_raise_to_by_the_rule(straddle, [])
    for to in raises:
        h.apply(Action.raise_to(h.legal_actions().seat, to))
        assert h.legal_actions().min_raise_to == _min_raise_to_by_the_rule(
            straddle, raises[:raises.index(to) + 1])
    with pytest.raises(ValueError):  # one chip below the rule's minimum is refused
        h.apply(Action.raise_to(h.legal_actions().seat,
                                _min_raise_to_by_the_rule(straddle, raises) - 1))


def test_the_straddlers_option_raise_and_the_flop_follow_the_rule() -> None:
    cfg = TableConfig(n_seats=4, small_blind=1, big_blind=2)
    h = Hand(cfg, [200] * 4, button=0, seed=4, straddle=4)
    for s in (0, 1, 2):
        h.apply(Action.check_call(s))
    la = h.legal_actions()
    assert la.seat == 3 and la.can_check and la.min_raise_to == 8
    h.apply(Action.check_call(3))
    assert h.street.name == "FLOP" and h.legal_actions().min_raise_to == 2  # a big blind


def test_in_fixed_limit_the_straddle_is_the_first_raise_of_the_cap() -> None:
    cfg = TableConfig(n_seats=6, small_blind=1, big_blind=2, structure=Structure.FIXED_LIMIT,
                      small_bet=2, big_bet=4, raise_cap=4)
    for rule, raises_left in (("straddle", 3), ("big_blind", 4)):
        h = Hand(cfg, [500] * 6, button=0, seed=5, straddle=4, straddle_raise=rule)
        n = 0
        while h.legal_actions().can_raise:
            la = h.legal_actions()
            assert la.min_raise_to == la.max_raise_to == 4 + 2 * (n + 1)  # one bet a raise
            h.apply(Action.raise_to(la.seat, la.min_raise_to))
            n += 1
        assert n == raises_left, rule


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
