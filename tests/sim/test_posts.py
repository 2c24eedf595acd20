"""Posts after the blinds (replayed histories): live posts keep the option, dead blinds are dead
money in the main pot; the free-fold flag; the simulator's path unchanged (sim.engine
``start_hand_posts``, ``sim.hand.Hand(posts=, dead=, free_fold=)``)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sim.config import TableConfig
from sim.hand import Action, Hand, IllegalAction
from sim.layout import LOGGED_EVENTS, EventKind

CFG = TableConfig(n_seats=5, small_blind=5, big_blind=10, ante_trimming=False)


def _kinds(h: Hand) -> list[tuple[int, EventKind, int, int]]:
    return [(r.seat, r.kind, r.to_street_total, r.added) for r in h.records
            if r.kind in (EventKind.SMALL_BLIND, EventKind.BIG_BLIND, EventKind.POST,
                          EventKind.DEAD_BLIND, EventKind.ANTE)]


def test_dead_blind_is_dead_money_not_a_bet() -> None:
    # Ongame 1000nl [2]: p3 posts 5 dead at 5/10, calls 10 (the dead 5 does not count)
    h = Hand(CFG, [714, 1015, 1000, 1244, 3324], button=4, sb_seat=0, bb_seat=1,
             dead=[0, 0, 5, 0, 0], seed=1)
    assert _kinds(h) == [(0, EventKind.SMALL_BLIND, 5, 5), (1, EventKind.BIG_BLIND, 10, 10),
                         (2, EventKind.DEAD_BLIND, 0, 5)]
    la = h.legal_actions()
    assert la.seat == 2 and la.call_amount == 10 and la.min_raise_to == 20
    for a in (Action.check_call(2), Action.fold(3), Action.fold(4), Action.fold(0),
              Action.check_call(1)):
        h.apply(a)
    assert h.contributed == [5, 10, 15, 0, 0] and h.dead_paid == [0, 0, 5, 0, 0]
    # flop: p2 checks, p3 bets 11, p2 calls; turn checked; river p2 bets 21, p3 calls
    for a in (Action.check_call(1), Action.raise_to(2, 11), Action.check_call(1),
              Action.check_call(1), Action.check_call(2), Action.raise_to(1, 21),
              Action.check_call(2)):
        h.apply(a)
    assert h.is_complete
    (pot,) = h.pots
    assert pot.amount == 5 + 10 + 15 + 11 + 11 + 21 + 21 and pot.eligible == (1, 2)
    assert sum(h.stacks) == 714 + 1015 + 1000 + 1244 + 3324


def test_dead_poster_who_folds_leaves_the_money_in_the_pot() -> None:
    h = Hand(CFG, [100] * 5, button=4, sb_seat=0, bb_seat=1, dead=[0, 0, 0, 5, 0], seed=1)
    for a in (Action.fold(2), Action.fold(3), Action.fold(4), Action.fold(0)):
        h.apply(a)
    assert h.is_complete
    # the big blind's uncalled 5 comes back; he wins the small blind, the dead 5 and his 5
    assert h.returned[1] == 5 and h.won[1] == 15 and h.stacks == [95, 110, 100, 95, 100]
    assert [p.amount for p in h.pots] == [15]


def test_live_post_keeps_the_option() -> None:
    # a live big blind from seat 3 (a returning player): it is on the street ...
    h = Hand(CFG, [100] * 5, button=4, sb_seat=0, bb_seat=1, posts=[0, 0, 0, 10, 0], seed=1)
    assert _kinds(h)[-1] == (3, EventKind.POST, 10, 10)
    h.apply(Action.check_call(2))
    la = h.legal_actions()
    # ... so seat 3 has nothing to call and may check or raise (its option)
    assert la.seat == 3 and la.can_check and not la.can_fold and la.can_raise
    h.apply(Action.check_call(3))
    h.apply(Action.check_call(4))
    h.apply(Action.check_call(0))
    la = h.legal_actions()
    assert la.seat == 1 and la.can_check and la.can_raise  # the big blind's option still
    h.apply(Action.check_call(1))
    assert h.board and h.contributed == [10] * 5


def test_live_poster_first_to_act_may_check_and_reraise_after_a_raise() -> None:
    # the poster left of the big blind acts first with its post already in
    h = Hand(CFG, [100] * 5, button=4, sb_seat=0, bb_seat=1, posts=[0, 0, 10, 0, 0], seed=1)
    la = h.legal_actions()
    assert la.seat == 2 and la.can_check and not la.can_fold
    h.apply(Action.check_call(2))
    h.apply(Action.raise_to(3, 30))
    for s in (4, 0, 1):
        h.apply(Action.fold(s))
    la = h.legal_actions()
    assert la.seat == 2 and la.call_amount == 20 and la.can_raise
    h.apply(Action.check_call(2))
    assert h.contributed == [5, 10, 30, 30, 0]


def test_all_in_posts_and_side_pots() -> None:
    # seat 2 has 4 chips: its dead post (5 due) takes them all; seat 3 posts live 10 with 30
    h = Hand(CFG, [100, 100, 4, 30, 100], button=4, sb_seat=0, bb_seat=1,
             posts=[0, 0, 0, 10, 0], dead=[0, 0, 5, 0, 0], seed=1)
    assert _kinds(h)[2:] == [(3, EventKind.POST, 10, 10), (2, EventKind.DEAD_BLIND, 0, 4)]
    assert h.stacks[2] == 0 and h.to_act == 3  # seat 2 is all-in: it never acts
    h.apply(Action.raise_to(3, 30))  # all-in
    h.apply(Action.check_call(4))
    h.apply(Action.fold(0))
    h.apply(Action.fold(1))
    while not h.is_complete:
        la = h.legal_actions()
        h.apply(Action.show(la.seat) if la.showdown else Action.check_call(la.seat))
    pots = h.pots
    # main pot: the dead 4 + every live chip up to seat 2's level (0): a pot of dead money
    # alone that seats 2, 3 and 4 contest, then the 30 level between 3 and 4 (+ the blinds)
    assert [p.eligible for p in pots] == [(2, 3, 4), (3, 4)]
    assert [p.amount for p in pots] == [4, 5 + 10 + 30 + 30]
    assert sum(h.stacks) == 334 and sum(h.won) == 79


def test_dead_money_joins_the_main_pot_of_a_short_all_in_caller() -> None:
    # seat 2 posts 5 dead and goes all-in calling for 15 more; seats 3 and 1 go on
    h = Hand(CFG, [100, 100, 20, 100, 100], button=4, sb_seat=0, bb_seat=1,
             dead=[0, 0, 5, 0, 0], seed=1)
    h.apply(Action.check_call(2))  # calls 10
    h.apply(Action.raise_to(3, 40))
    h.apply(Action.fold(4))
    h.apply(Action.fold(0))
    h.apply(Action.check_call(1))
    la = h.legal_actions()
    assert la.seat == 2 and la.call_amount == 5  # all-in for the rest of its stack
    h.apply(Action.check_call(2))
    while not h.is_complete:
        la = h.legal_actions()
        h.apply(Action.show(la.seat) if la.showdown else Action.check_call(la.seat))
    pots = h.pots
    assert [p.eligible for p in pots] == [(1, 2, 3), (1, 3)]
    # main: 15 from each of 1, 2, 3, the small blind's 5 and the dead 5; side: 25 + 25
    assert [p.amount for p in pots] == [15 * 3 + 5 + 5, 50]


def test_fold_while_checking_is_free_only_with_the_flag() -> None:
    h = Hand(CFG, [100] * 5, button=4, seed=1)
    for s in (2, 3, 4, 0):
        h.apply(Action.check_call(s))
    with pytest.raises(IllegalAction, match="check instead of folding"):
        h.apply(Action.fold(1))
    h = Hand(CFG, [100] * 5, button=4, free_fold=True, seed=1)
    for s in (2, 3, 4, 0):
        h.apply(Action.check_call(s))
    assert not h.legal_actions().can_fold  # never offered: the bots never take it
    (rec, *_) = h.apply(Action.fold(1))
    assert rec.kind == EventKind.FOLD and rec.added == 0 and h.folded[1]


def test_posts_are_validated() -> None:
    with pytest.raises(ValueError, match="ante trimming"):
        Hand(TableConfig(n_seats=3, small_blind=1, big_blind=2), [50] * 3, dead=[0, 0, 1], seed=1)
    with pytest.raises(ValueError, match="seat 2 posts 2 but has no chips"):
        Hand(CFG, [50, 50, 0, 50, 50], button=4, sb_seat=0, bb_seat=1, posts=[0, 0, 2, 0, 0],
             seed=1)
    with pytest.raises(ValueError, match="posts: expected 5 whole amounts"):
        Hand(CFG, [50] * 5, posts=[0, -1, 0, 0, 0], seed=1)


def test_posts_are_logged_events() -> None:
    assert EventKind.POST == 16 and EventKind.DEAD_BLIND == 17
    assert EventKind.POST in LOGGED_EVENTS and EventKind.DEAD_BLIND in LOGGED_EVENTS


def test_no_posts_plays_exactly_as_start_hand() -> None:
    """``start_hand_posts`` with no posts is ``start_hand``: the same records and state over
    random hands (the simulator's path shares its pieces)."""
    rng = random.Random(5)
    for _ in range(30):
        n = rng.randint(2, 6)
        cfg = TableConfig(n_seats=n, small_blind=1, big_blind=2, ante_trimming=False)
        stacks = [rng.choice([0, 1, 3, 40, 200]) for _ in range(n)]
        if sum(1 for v in stacks if v) < 2:
            continue
        deck = list(range(52))
        rng.shuffle(deck)
        button = next(s for s in range(n) if stacks[s])
        a = Hand(cfg, stacks, button=button, deck=deck)
        b = Hand(cfg, stacks, button=button, deck=deck, posts=[0] * n, dead=[0] * n)
        while not a.is_complete:
            la = a.legal_actions()
            if la.showdown:
                act = Action.show(la.seat)
            elif la.can_raise and rng.random() < 0.3:
                act = Action.raise_to(la.seat, la.min_raise_to)
            elif la.can_fold and rng.random() < 0.2:
                act = Action.fold(la.seat)
            else:
                act = Action.check_call(la.seat)
            a.apply(act)
            b.apply(act)
        assert a.records == b.records
        assert np.array_equal(a.state_array, b.state_array)


def test_posts_round_trip_through_phh() -> None:
    """A hand with posts written as PHH (negative entries) replays to the same stacks."""
    from sim.histories.read.phh import hand_to_phh, loads_phh
    from sim.histories.replay.reference import replay
    from sim.logview.hand_text import format_hand

    h = Hand(CFG, [100] * 5, button=4, sb_seat=0, bb_seat=1, posts=[0, 0, 0, 10, 0],
             dead=[0, 0, 0, 5, 3], deck=list(range(52)))
    for a in (Action.check_call(2), Action.raise_to(3, 30), Action.check_call(4),
              Action.fold(0), Action.fold(1), Action.fold(2)):
        h.apply(a)
    while not h.is_complete:
        la = h.legal_actions()
        h.apply(Action.show(la.seat) if la.showdown else Action.check_call(la.seat))
    text = hand_to_phh(h)
    assert "blinds_or_straddles = [5, 10, 0, -15, -3]" in text
    (phh,) = loads_phh(text)
    r = replay(phh)
    assert r.ok and r.posts == (0, 0, 0, 10, 0) and r.dead == (0, 0, 0, 5, 3), r.error
    text = format_hand(h)
    assert "seat 3 posts 10 live" in text and "seat 4 posts 3 dead" in text
