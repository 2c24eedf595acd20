"""The rules, one test each; most examples come from the French rules texts in ../shared/seeds."""

from __future__ import annotations

import numpy as np
import pytest

from sim import layout as L
from sim.cards import parse_cards
from sim.config import AnteMode, Structure, TableConfig
from sim.evaluator import evaluate
from sim.hand import Action, Hand, IllegalAction
from sim.layout import EventKind, Street

NL = Structure.NO_LIMIT
PL = Structure.POT_LIMIT
FL = Structure.FIXED_LIMIT


def deal_seats(n: int, button: int, stacks: list[int]) -> list[int]:
    """Seats in the order they receive their first card (first live seat left of the button)."""
    return [(button + i) % n for i in range(1, n + 1) if stacks[(button + i) % n] > 0]


def make_deck(stacks: list[int], button: int, holes: dict[int, str], board: str = "") -> list[int]:
    """A deck that deals ``holes`` (seat -> 'AsKd') and ``board`` (up to 5 cards) through the
    engine's dealing order: one card at a time, two rounds, then burn, flop, burn, turn, burn,
    river. Other positions get the remaining cards."""
    order = deal_seats(len(stacks), button, stacks)
    deck: list[int | None] = [None] * 52
    for seat, text in holes.items():
        c = parse_cards(text)
        deck[order.index(seat)] = c[0]
        deck[len(order) + order.index(seat)] = c[1]
    base = 2 * len(order)
    for i, c in enumerate(parse_cards(board)):
        deck[base + [1, 2, 3, 5, 7][i]] = c
    rest = iter(c for c in range(52) if c not in deck)
    return [c if c is not None else next(rest) for c in deck]


def play(hand: Hand, *actions: tuple[int, str, int]) -> None:
    for seat, kind, amount in actions:
        if kind == "f":
            hand.apply(Action.fold(seat))
        elif kind == "c":
            hand.apply(Action.check_call(seat))
        else:
            hand.apply(Action.raise_to(seat, amount))


def conserved(hand: Hand) -> bool:
    return sum(hand.starting_stacks) == sum(hand.stacks) + hand.rake


# ---------------------------------------------------------------- positions and order


def test_blinds_are_the_two_seats_left_of_the_button_and_utg_acts_first() -> None:
    h = Hand(TableConfig(n_seats=6), [100] * 6, button=3, seed=1)
    assert (h.sb_seat, h.bb_seat) == (4, 5)
    assert h.bets == [0, 0, 0, 0, 1, 2]
    assert h.to_act == 0


def test_heads_up_button_posts_small_blind_acts_first_preflop_last_after() -> None:
    h = Hand(TableConfig(n_seats=2), [100, 100], button=1, seed=1)
    assert (h.sb_seat, h.bb_seat) == (1, 0)
    assert h.to_act == 1  # button first pre-flop
    play(h, (1, "c", 0))
    la = h.legal_actions()
    assert la.seat == 0 and la.can_check and la.can_raise  # the big blind's option
    play(h, (0, "c", 0))
    assert h.street == Street.FLOP and h.to_act == 0  # big blind first after the flop
    play(h, (0, "c", 0))
    assert h.to_act == 1  # button last


def test_heads_up_big_blind_gets_the_first_card() -> None:
    h = Hand(TableConfig(n_seats=2), [100, 100], button=1, deck=list(range(52)))
    assert h.hole_cards(0) == (0, 2)
    assert h.hole_cards(1) == (1, 3)


def test_cards_dealt_one_at_a_time_from_the_small_blind_then_burns() -> None:
    h = Hand(TableConfig(n_seats=3), [100] * 3, button=0, deck=list(range(52)))
    assert [h.hole_cards(s) for s in (1, 2, 0)] == [(0, 3), (1, 4), (2, 5)]
    play(h, (0, "c", 0), (1, "c", 0), (2, "c", 0))
    assert h.board == [7, 8, 9]  # card 6 burned
    burns = [r.card for r in h.records if r.kind == EventKind.BURN]
    assert burns == [6]
    play(h, (1, "c", 0), (2, "c", 0), (0, "c", 0))
    play(h, (1, "c", 0), (2, "c", 0), (0, "c", 0))
    assert h.board == [7, 8, 9, 11, 13]
    assert [r.card for r in h.records if r.kind == EventKind.BURN] == [6, 10, 12]


def test_big_blind_option_preflop() -> None:
    h = Hand(TableConfig(n_seats=3), [100] * 3, button=0, seed=1)
    play(h, (0, "c", 0), (1, "c", 0))
    la = h.legal_actions()
    assert la.seat == 2 and la.can_check and not la.can_fold and la.min_raise_to == 4
    play(h, (2, "r", 6))
    assert h.street == Street.PREFLOP and h.to_act == 0


def test_postflop_action_starts_at_first_live_seat_left_of_button() -> None:
    h = Hand(TableConfig(n_seats=4), [100] * 4, button=0, seed=1)
    play(h, (3, "c", 0), (0, "c", 0), (1, "f", 0), (2, "c", 0))
    assert h.street == Street.FLOP and h.to_act == 2


# ---------------------------------------------------------------- no-limit sizes


def test_minimum_bet_is_big_blind_and_min_raise_is_last_full_raise() -> None:
    h = Hand(TableConfig(n_seats=3), [1000] * 3, button=0, seed=1)
    play(h, (0, "r", 7))  # raise of 5 over the big blind: the next raise adds at least 5 more
    assert h.legal_actions().min_raise_to == 12
    play(h, (1, "f", 0), (2, "c", 0))
    la = h.legal_actions()
    assert la.min_raise_to == 2  # flop: minimum bet is the big blind
    play(h, (2, "r", 10))
    assert h.legal_actions().min_raise_to == 20  # seed 003: bet 10, raise to at least 20
    play(h, (0, "r", 20))
    play(h, (2, "r", 50))  # raise of 30 over 20
    assert h.legal_actions().min_raise_to == 80


@pytest.mark.parametrize("c_stack,a_may_raise", [(8, False), (10, True)])
def test_seed_003_short_all_in_does_not_reopen_betting(c_stack: int, a_may_raise: bool) -> None:
    # blinds 1/2; A raises to 6, B calls, C all-in for 8 (or 10); the others fold back to A
    stacks = [100, 100, 100, 100, 100, c_stack]
    h = Hand(TableConfig(n_seats=6), stacks, button=0, seed=1)
    A, B, C = 3, 4, 5
    play(h, (A, "r", 6), (B, "c", 0))
    la = h.legal_actions()
    assert la.seat == C and la.can_raise and la.min_raise_to == la.max_raise_to == c_stack
    play(h, (C, "r", c_stack), (0, "f", 0), (1, "f", 0), (2, "f", 0))
    la = h.legal_actions()
    assert la.seat == A and la.call_amount == c_stack - 6
    assert la.can_raise is a_may_raise


def test_short_all_ins_that_together_reach_a_full_raise_reopen() -> None:
    stacks = [100, 100, 100, 100, 100, 8, 10]
    h = Hand(TableConfig(n_seats=7), stacks, button=0, seed=1)
    play(h, (3, "r", 6), (4, "c", 0), (5, "r", 8), (6, "r", 10))
    play(h, (0, "f", 0), (1, "f", 0), (2, "f", 0))
    la = h.legal_actions()
    assert la.seat == 3 and la.can_raise and la.min_raise_to == 14  # 10 + last full raise 4


def test_player_who_called_a_short_all_in_cannot_reraise_a_second_short_one() -> None:
    stacks = [100, 100, 100, 100, 8, 10, 100]
    h = Hand(TableConfig(n_seats=7), stacks, button=0, seed=1)
    # 3 raises to 6 (full raise of 4); 4 all-in 8; 6 calls 8; 5 all-in 10: 6 faced only +2
    play(h, (3, "r", 6), (4, "r", 8), (5, "r", 10), (6, "c", 0))
    play(h, (0, "f", 0), (1, "f", 0), (2, "f", 0))
    assert h.legal_actions().can_raise  # seat 3 faces 10 - 6 = 4: a full raise
    play(h, (3, "c", 0))
    assert h.street == Street.FLOP


def test_all_in_for_less_than_the_minimum_is_allowed() -> None:
    h2 = Hand(TableConfig(n_seats=3, small_blind=5, big_blind=10), [100, 100, 13], button=0, seed=1)
    play(h2, (0, "c", 0), (1, "c", 0), (2, "c", 0))
    la = h2.legal_actions()
    assert la.seat == 1
    play(h2, (1, "c", 0))
    la = h2.legal_actions()
    assert la.seat == 2 and la.min_raise_to == la.max_raise_to == 3  # all-in for 3 < min bet 10
    play(h2, (2, "r", 3))
    assert h2.statuses[2].name == "ALL_IN"


# ---------------------------------------------------------------- pot-limit and fixed-limit


def test_pot_limit_maximum_is_pot_after_the_call_plus_the_call() -> None:
    h = Hand(TableConfig(n_seats=4, structure=PL), [1000] * 4, button=0, seed=1)
    la = h.legal_actions()
    assert la.max_raise_to == 7  # pot 3 + call 2 = 5 over the 2
    play(h, (3, "c", 0))
    assert h.legal_actions().max_raise_to == 9  # pot 5 + call 2 = 7, raise to 2 + 7
    play(h, (0, "r", 9))
    # seat 1 (small blind, 1 in): pot 1+2+2+9 = 14, call 8 -> raise by 22 to 31
    assert h.legal_actions().max_raise_to == 31


def test_fixed_limit_sizes_and_cap() -> None:
    cfg = TableConfig(n_seats=3, structure=FL, small_blind=1, big_blind=2)
    h = Hand(cfg, [1000] * 3, button=0, seed=1)
    la = h.legal_actions()
    assert la.min_raise_to == la.max_raise_to == 4  # small bet 2 pre-flop
    play(h, (0, "r", 4), (1, "r", 6), (2, "r", 8), (0, "r", 10))
    la = h.legal_actions()
    assert not la.can_raise and la.call_amount == 4  # cap: 4 raises, the blind not counted
    play(h, (1, "c", 0), (2, "c", 0))
    assert h.street == Street.FLOP
    assert h.legal_actions().min_raise_to == 2  # flop: small bet
    play(h, (1, "c", 0), (2, "c", 0), (0, "c", 0))
    la = h.legal_actions()
    assert h.street == Street.TURN and la.min_raise_to == la.max_raise_to == 4  # big bet


def test_fixed_limit_incomplete_all_in_bet_is_completed() -> None:
    cfg = TableConfig(n_seats=3, structure=FL, small_blind=5, big_blind=10)
    h = Hand(cfg, [100, 100, 16], button=0, seed=1)
    play(h, (0, "c", 0), (1, "c", 0), (2, "c", 0))
    play(h, (1, "c", 0))
    la = h.legal_actions()
    assert la.seat == 2 and la.min_raise_to == la.max_raise_to == 6  # all-in for less than 10
    play(h, (2, "r", 6))
    la = h.legal_actions()
    assert la.seat == 0 and la.call_amount == 6 and la.min_raise_to == 10  # complete to 10
    play(h, (0, "r", 10))
    la = h.legal_actions()
    assert la.seat == 1 and la.can_raise and la.min_raise_to == 20


# ---------------------------------------------------------------- pots and payouts


def test_seed_000_side_pots_myc_don_joey_will() -> None:
    # stacks 300/200/100/50 after everyone limps 2: Myc bets 200, the three others call all-in
    stacks = [302, 202, 102, 52]  # Myc=0 (button), Don=1 (SB), Joey=2 (BB), Will=3
    holes = {0: "2c3d", 1: "4c4d", 2: "KhKd", 3: "AsAh"}
    deck = make_deck(stacks, 0, holes, "Ac7s8d9hJc")
    h = Hand(TableConfig(n_seats=4), stacks, button=0, deck=deck)
    play(h, (3, "c", 0), (0, "c", 0), (1, "c", 0), (2, "c", 0))
    play(h, (1, "c", 0), (2, "c", 0), (3, "c", 0), (0, "r", 200))
    play(h, (1, "c", 0), (2, "c", 0), (3, "c", 0))
    assert h.is_complete
    pots = h.pots
    assert [p.amount for p in pots] == [208, 150, 200]
    assert [p.eligible for p in pots] == [(0, 1, 2, 3), (0, 1, 2), (0, 1)]
    assert h.won == [0, 200, 150, 208]  # Will's aces, Joey's kings, Don's fours
    assert h.stacks == [100, 200, 150, 208]
    assert conserved(h)


def test_odd_chip_goes_to_first_winner_clockwise_from_button() -> None:
    stacks = [100, 100, 100]
    holes = {0: "2c3d", 1: "4c5d", 2: "2d3c"}
    deck = make_deck(stacks, 0, holes, "AsKsQsJsTs")  # royal flush on board: everyone ties
    h = Hand(TableConfig(n_seats=3), stacks, button=0, deck=deck)
    play(h, (0, "c", 0), (1, "f", 0), (2, "c", 0))
    for _ in range(3):
        play(h, (2, "c", 0), (0, "c", 0))
    assert h.pots[0].amount == 5 and h.pots[0].winners == (0, 2)
    assert h.won == [2, 0, 3]  # seat 1 folded, so seat 2 is the first winner left of button


def test_suits_never_break_ties_and_split_is_equal() -> None:
    stacks = [100, 100]
    deck = make_deck(stacks, 1, {0: "AhKh", 1: "AdKd"}, "2s7c9dJhQs")
    h = Hand(TableConfig(n_seats=2), stacks, button=1, deck=deck)
    play(h, (1, "c", 0), (0, "c", 0))
    for _ in range(3):
        play(h, (0, "c", 0), (1, "c", 0))
    assert h.won == [2, 2] and h.stacks == [100, 100]


def test_uncalled_bet_is_returned_and_not_raked() -> None:
    cfg = TableConfig(n_seats=2, rake_bps=1000, rake_cap=100)
    h = Hand(cfg, [100, 100], button=1, seed=1)
    play(h, (1, "c", 0), (0, "c", 0), (0, "r", 50), (1, "f", 0))
    assert h.returned == [50, 0]
    assert h.rake == 0  # no flop? the flop was dealt: 10% of the 4-chip pot floors to 0
    assert h.stacks == [102, 98]
    ret = [r for r in h.records if r.kind == EventKind.RETURN_UNCALLED]
    assert ret and ret[0].seat == 0 and ret[0].added == 50


def test_seed_004_uncovered_bet_returned_to_the_bettor() -> None:
    # A has 510, B 20000; antes-like 10 each via blinds 10/10; B bets big, A covers 500 all-in
    cfg = TableConfig(n_seats=2, small_blind=10, big_blind=10)
    stacks = [510, 20000]
    deck = make_deck(stacks, 1, {0: "AsAd", 1: "7c2d"}, "AhKc9s4d3h")
    h = Hand(cfg, stacks, button=1, deck=deck)
    play(h, (1, "c", 0), (0, "c", 0), (0, "c", 0), (1, "r", 10000), (0, "c", 0))
    assert h.is_complete
    assert h.returned[1] == 9500
    assert h.stacks == [1020, 20000 - 510]


def _seed_004_disconnect() -> Hand:
    """Seed 004's fair-play example: A (seat 1, the big blind) and B (seat 0, the button) have
    10 each in the pot; on the flop A bets 500, B raises to 10,000 and loses his connection."""
    cfg = TableConfig(n_seats=2, small_blind=5, big_blind=10)
    h = Hand(cfg, [20000, 20000], button=0, seed=1)
    play(h, (0, "c", 0), (1, "c", 0))  # 10 each in the pot
    play(h, (1, "r", 500), (0, "r", 10000))
    h.apply(Action.leave(0))  # B leaves while A is to act
    return h


def test_seed_004_player_who_leaves_forfeits_and_gets_his_uncovered_raise_back() -> None:
    h = _seed_004_disconnect()
    assert h.is_complete and h.folded == [True, False]
    assert h.won == [0, 1020]  # A: his 500, B's 500 covered, the 20
    assert h.returned == [9500, 0]  # B: the 10,000 less the 500 A covered
    assert h.stacks == [20000 - 10 - 500, 20000 - 10 - 500 + 1020]
    kinds = [(r.seat, r.kind, r.added) for r in h.records
             if r.kind in (EventKind.LEAVE, EventKind.RETURN_UNCALLED, EventKind.WIN)]
    assert kinds == [(0, EventKind.LEAVE, 0), (0, EventKind.RETURN_UNCALLED, 9500),
                     (1, EventKind.WIN, 1020)]
    assert conserved(h)


def test_seed_004_disconnect_replays_from_its_log_row() -> None:
    from sim.logview.row_replay import replay_row
    from sim.schema import ACTION_DTYPE

    h = _seed_004_disconnect()
    cfg = h.config
    logged = [r for r in h.records if r.kind in L.LOGGED_EVENTS]
    actions = np.array([(r.street, r.seat, r.kind, r.to_street_total, r.added) for r in logged],
                       dtype=ACTION_DTYPE).tobytes()
    row = {"hand_id": 0, "deck": np.asarray(h.deck, np.int8).tobytes(), "n_seats": 2,
           "structure": cfg.structure.label, "small_blind": 5, "big_blind": 10, "ante": 0,
           "ante_mode": 0, "ante_trimming": cfg.ante_trimming, "small_bet": cfg.small_bet,
           "big_bet": cfg.big_bet, "raise_cap": cfg.raise_cap, "min_bet": cfg.min_bet,
           "rake_bps": cfg.rake_bps, "rake_cap": cfg.rake_cap,
           "no_flop_no_drop": cfg.no_flop_no_drop, "sb_seat": h.sb_seat, "bb_seat": h.bb_seat,
           "button": h.button, "stacks_start": h.starting_stacks, "actions": actions,
           "stacks_end": h.stacks, "rake": h.rake, "board": h.board, "generator": "philox"}
    again = replay_row(row)  # raises unless the stacks, rake and board match the log
    assert again.won == [0, 1020] and again.returned == [9500, 0]


def test_leave_at_anyones_turn_and_the_betting_goes_on() -> None:
    # three players: seat 1 raises, seat 2 (to act) is not the one who leaves
    h = Hand(TableConfig(n_seats=3), [1000] * 3, button=0, seed=1)
    play(h, (0, "r", 10), (1, "r", 300))
    assert h.to_act == 2
    h.apply(Action.leave(1))  # his raise to 300 was covered by nobody past 10
    assert h.returned[1] == 290 and h.bets == [10, 10, 2]
    la = h.legal_actions()
    assert la.seat == 2 and la.call_amount == 8  # the bet to call is back to 10
    play(h, (2, "c", 0))  # seat 0 already acted at 10: the flop comes
    assert h.street == Street.FLOP and h.to_act == 2
    h.apply(Action.leave(0))  # the last opponent leaves: seat 2 wins what is in the pot
    assert h.is_complete and h.won == [0, 0, 30] and conserved(h)
    with pytest.raises(IllegalAction, match="complete"):
        h.apply(Action.leave(2))


def test_leave_of_a_seat_not_in_the_hand_is_rejected() -> None:
    h = Hand(TableConfig(n_seats=3), [100] * 3, button=0, seed=1)
    play(h, (0, "f", 0))
    before = h.state_array
    for seat in (0, 3, -1):
        with pytest.raises(IllegalAction, match=f"seat {seat} leave: this seat is not in"):
            h.apply(Action.leave(seat))
    assert (h.state_array == before).all()


def test_seed_004_all_in_called_both_hands_shown_before_the_board() -> None:
    # seat 0 (button, small blind) shoves, seat 1 calls: both hands face up, then the board;
    # the loser's seven-deuce could not beat the aces already shown and is shown all the same
    stacks = [100, 100]
    deck = make_deck(stacks, 0, {0: "AsAd", 1: "7c2d"}, "KhQc9s4d3h")
    h = Hand(TableConfig(n_seats=2), stacks, button=0, deck=deck)
    play(h, (0, "r", 100), (1, "c", 0))
    kinds = [r.kind for r in h.records]
    shows = [i for i, k in enumerate(kinds) if k == EventKind.SHOW]
    assert len(shows) == 2 and EventKind.MUCK not in kinds
    assert max(shows) < kinds.index(EventKind.DEAL_BOARD)  # shown, then the remaining board
    assert [h.records[i].seat for i in shows] == [1, 0]  # first live seat left of the button
    for i in shows:  # logged with the rank the hand ends with
        s = h.records[i].seat
        assert h.records[i].strength == evaluate([*h.hole_cards(s), *h.board])
    assert h.shown == [1, 1] and h.won == [200, 0]


def test_all_in_showdown_with_one_player_left_with_chips_shows_every_hand() -> None:
    # seat 2 all-in on the flop, seats 0 and 1 check it down: two hands still had chips, so the
    # river rule applies (a hand that cannot win is mucked); with seat 1 all-in too, all shown
    holes = {0: "7c2d", 1: "AsAd", 2: "8h8d"}
    deck = make_deck([100, 100, 20], 0, holes, "KhQc9s4d3h")
    h = Hand(TableConfig(n_seats=3), [100, 100, 20], button=0, deck=deck)
    play(h, (0, "c", 0), (1, "c", 0), (2, "c", 0))
    play(h, (1, "c", 0), (2, "r", 18), (0, "c", 0), (1, "c", 0))
    for _ in range(2):
        play(h, (1, "c", 0), (0, "c", 0))
    assert h.shown == [0, 1, 0]  # the aces shown first; two hands had chips behind: mucks
    h2 = Hand(TableConfig(n_seats=3), [100, 20, 20], button=0, deck=make_deck(
        [100, 20, 20], 0, holes, "KhQc9s4d3h"))
    play(h2, (0, "r", 20), (1, "c", 0), (2, "c", 0))
    assert h2.is_complete and h2.shown == [1, 1, 1]


def test_manual_showdown_keeps_the_callers_muck_at_an_all_in() -> None:
    stacks = [100, 100]
    deck = make_deck(stacks, 0, {0: "AsAd", 1: "7c2d"}, "KhQc9s4d3h")
    h = Hand(TableConfig(n_seats=2), stacks, button=0, deck=deck, auto_showdown=False)
    play(h, (0, "r", 100), (1, "c", 0))
    assert h.street == Street.SHOWDOWN and h.legal_actions().seat == 1
    with pytest.raises(IllegalAction, match="seat 1 leave: the hand is at showdown"):
        h.apply(Action.leave(1))
    h.apply(Action.muck(1))  # the caller's (a replayed history's) muck stands
    h.apply(Action.show(0))
    assert h.shown == [1, 0] and h.won == [200, 0]


def test_demo_hand_all_in_caller_shows_instead_of_mucking() -> None:
    from sim.demo import demo_histories

    text = demo_histories(hands=1, seed=1)[0]
    assert "mucks" not in text
    lines = text.splitlines()
    shows = [i for i, line in enumerate(lines) if " shows [" in line]
    assert [lines[i].split()[1] for i in shows] == ["1", "2", "4"]  # seat 2 called all-in
    assert max(shows) < next(i for i, line in enumerate(lines) if line.startswith("*** FLOP"))


def test_rake_percent_cap_and_no_flop_no_drop() -> None:
    cfg = TableConfig(n_seats=3, rake_bps=500, rake_cap=3)
    h = Hand(cfg, [100] * 3, button=0, seed=1)
    play(h, (0, "r", 10), (1, "c", 0), (2, "f", 0))  # a flop is dealt
    play(h, (1, "c", 0), (0, "c", 0), (1, "c", 0), (0, "c", 0), (1, "c", 0), (0, "c", 0))
    assert h.rake == 1  # 5% of 22 floored
    assert conserved(h)
    h2 = Hand(cfg, [1000] * 3, button=0, seed=1)
    play(h2, (0, "r", 200), (1, "c", 0), (2, "c", 0))
    for _ in range(3):
        play(h2, (1, "c", 0), (2, "c", 0), (0, "c", 0))
    assert h2.rake == 3 and conserved(h2)  # 5% of 600 capped at 3
    h3 = Hand(cfg, [1000] * 3, button=0, seed=1)
    play(h3, (0, "r", 200), (1, "f", 0), (2, "f", 0))
    assert h3.rake == 0  # no flop, no drop


def test_antes_dead_money_or_layered() -> None:
    for trimming in (True, False):
        cfg = TableConfig(n_seats=3, ante=5, ante_mode=AnteMode.UNIFORM,
                          ante_trimming=trimming)
        stacks = [100, 100, 3]  # seat 2 (big blind) is all-in on its ante for 3
        deck = make_deck(stacks, 0, {0: "2c3d", 1: "4c5d", 2: "AsAh"}, "Kc7s8d9hJc")
        h = Hand(cfg, stacks, button=0, deck=deck)
        play(h, (0, "r", 10), (1, "c", 0))
        for _ in range(3):
            play(h, (1, "c", 0), (0, "c", 0))
        assert h.is_complete and conserved(h)
        if trimming:
            assert h.won[2] == 9  # 3 from each of the three players
        else:
            assert h.won[2] == 13  # all antes are dead money in the main pot


def test_big_blind_ante_posted_by_big_blind() -> None:
    cfg = TableConfig(n_seats=3, ante=2, ante_mode=AnteMode.BIG_BLIND, ante_trimming=False)
    h = Hand(cfg, [100] * 3, button=0, seed=1)
    assert h.contributed == [0, 1, 4]


# ---------------------------------------------------------------- showdown


def test_showdown_last_river_aggressor_shows_first_and_losers_muck() -> None:
    stacks = [100, 100, 100]
    deck = make_deck(stacks, 0, {0: "AsAh", 1: "KsKh", 2: "2c3d"}, "Qc7s8d9hJc")
    h = Hand(TableConfig(n_seats=3), stacks, button=0, deck=deck)
    play(h, (0, "c", 0), (1, "c", 0), (2, "c", 0))
    for _ in range(2):
        play(h, (1, "c", 0), (2, "c", 0), (0, "c", 0))
    play(h, (1, "c", 0), (2, "r", 10), (0, "c", 0), (1, "c", 0))
    sd = [(r.seat, r.kind) for r in h.records if r.kind in (EventKind.SHOW, EventKind.MUCK)]
    # seat 2 bet the river and shows first; seat 0 beats it and shows; seat 1 cannot win: mucks
    assert sd == [(2, EventKind.SHOW), (0, EventKind.SHOW), (1, EventKind.MUCK)]
    assert h.won == [36, 0, 0]
    # a SHOW record carries the hand's strength in its own field; street totals stay chips
    for r in h.records:
        if r.kind == EventKind.SHOW:
            assert r.strength == evaluate([*h.hole_cards(r.seat), *h.board]) >= 0
            assert r.to_street_total == 0
        else:
            assert r.strength == -1


def test_showdown_without_river_bet_starts_left_of_button() -> None:
    stacks = [100, 100, 100]
    deck = make_deck(stacks, 0, {0: "AsAh", 1: "2c3d", 2: "KsKh"}, "Qc7s8d9hJc")
    h = Hand(TableConfig(n_seats=3), stacks, button=0, deck=deck)
    play(h, (0, "c", 0), (1, "c", 0), (2, "c", 0))
    for _ in range(3):
        play(h, (1, "c", 0), (2, "c", 0), (0, "c", 0))
    sd = [(r.seat, r.kind) for r in h.records if r.kind in (EventKind.SHOW, EventKind.MUCK)]
    assert sd == [(1, EventKind.SHOW), (2, EventKind.SHOW), (0, EventKind.SHOW)]


def test_mucked_hand_cannot_win_and_last_hand_cannot_muck() -> None:
    stacks = [100, 100]
    deck = make_deck(stacks, 1, {0: "AsAh", 1: "2c3d"}, "Qc7s8d9hJc")
    h = Hand(TableConfig(n_seats=2), stacks, button=1, deck=deck, auto_showdown=False)
    play(h, (1, "c", 0), (0, "c", 0))
    for _ in range(3):
        play(h, (0, "c", 0), (1, "c", 0))
    la = h.legal_actions()
    assert la.showdown and la.seat == 0 and la.can_muck
    h.apply(Action.muck(0))  # the aces are mucked
    assert not h.legal_actions().can_muck
    with pytest.raises(IllegalAction, match="must be shown"):
        h.apply(Action.muck(1))
    h.apply(Action.show(1))
    assert h.won == [0, 4]


# ---------------------------------------------------------------- bad input


def test_out_of_turn_and_illegal_sizes_name_seat_and_range() -> None:
    h = Hand(TableConfig(n_seats=3), [100] * 3, button=0, seed=1)
    before = h.state_array
    with pytest.raises(IllegalAction, match=r"seat 2 .*out of turn, seat 0 is to act"):
        h.apply(Action.check_call(2))
    with pytest.raises(IllegalAction, match=r"seat 0 bet/raise to 3: amount below.*4\.\.100"):
        h.apply(Action.raise_to(0, 3))
    with pytest.raises(IllegalAction, match=r"above the maximum"):
        h.apply(Action.raise_to(0, 101))
    assert (h.state_array == before).all()
    play(h, (0, "f", 0), (1, "f", 0))
    assert h.is_complete
    with pytest.raises(IllegalAction, match="complete"):
        h.apply(Action.check_call(2))


def test_fold_when_check_is_free_is_rejected() -> None:
    h = Hand(TableConfig(n_seats=2), [100, 100], button=1, seed=1)
    play(h, (1, "c", 0))
    with pytest.raises(IllegalAction, match="check instead"):
        h.apply(Action.fold(0))


def test_card_dealt_twice_is_rejected() -> None:
    deck = list(range(52))
    deck[5] = 3
    with pytest.raises(ValueError, match=r"^deck\[5\]: 2s is already deck\[3\]: expected 52 "):
        Hand(TableConfig(n_seats=2), [100, 100], deck=deck)


@pytest.mark.parametrize("kwargs,msg", [
    ({"n_seats": 1}, "n_seats=1"), ({"n_seats": 11}, "n_seats=11"),
    ({"n_seats": 2, "small_blind": 0}, "small_blind=0"),
    ({"n_seats": 2, "small_blind": 2, "big_blind": 1}, "big_blind=1"),
    ({"n_seats": 2, "ante": -1}, "ante=-1"),
    ({"n_seats": 2, "structure": "spread-limit"}, "unknown structure"),
])
def test_config_errors(kwargs: dict, msg: str) -> None:
    with pytest.raises(ValueError, match=msg):
        TableConfig(**kwargs)


def test_short_stacked_blinds_post_what_they_have() -> None:
    h = Hand(TableConfig(n_seats=4), [100, 1, 1, 100], button=0, seed=1)
    assert h.bets == [0, 1, 1, 0] and h.to_act == 3
    la = h.legal_actions()
    assert la.call_amount == 1 and la.min_raise_to == 3


def test_big_blind_ante_with_trimming_matches_a_bet() -> None:
    # the all-in bettor's excess over the big blind's street bet is covered by the BB's ante
    cfg = TableConfig(n_seats=2, small_blind=1, big_blind=2, ante=3,
                      ante_mode=AnteMode.BIG_BLIND, ante_trimming=True)
    stacks = [100, 100]
    deck = make_deck(stacks, 1, {0: "KsKh", 1: "AsAh"}, "2c3d4d9h6c")
    h = Hand(cfg, stacks, button=1, deck=deck)
    play(h, (1, "r", 100), (0, "c", 0))
    assert h.stacks == [0, 200] and h.returned == [0, 0]
