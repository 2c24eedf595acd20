"""The API a person reaches for (issue 37): ``Hand`` never deals an unshuffled deck by accident
(``seed=`` or ``deck=``, one required), cards are accepted as text (``"As"``, ``"Td"``) wherever
the API takes cards, a bad card is a one-line error naming the argument and the position, and
cards are shown as text."""

from __future__ import annotations

import numpy as np
import pytest

from sim.cards import cards_of, format_card, format_cards
from sim.config import TableConfig
from sim.demo import demo_histories
from sim.hand import Action, Hand
from sim.layout import EventKind
from sim.rng import hand_deck

CFG = TableConfig(n_seats=3, small_blind=1, big_blind=2)
STACKS = [200, 200, 200]


def test_a_hand_without_deck_or_seed_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError) as e:
        Hand(CFG, STACKS)
    msg = str(e.value)
    assert msg.startswith("no cards: pass seed=N") and "deck=" in msg and "\n" not in msg


def test_a_seed_deals_a_shuffled_deck_reproducibly() -> None:
    a = Hand(CFG, STACKS, seed=11)
    assert a.deck == Hand(CFG, STACKS, seed=11).deck  # the same seed, the same cards
    assert a.deck == hand_deck(11, 0, 0).tolist()  # the game's own Philox shuffle
    assert a.deck != list(range(52)) and sorted(a.deck) == list(range(52))
    assert a.seed == 11
    assert Hand(CFG, STACKS, seed=12).deck != a.deck
    later = Hand(CFG, STACKS, seed=11, hand_id=5)  # another hand of the same seed: another deck
    assert later.deck == hand_deck(11, 0, 5).tolist() != a.deck
    # six seats no longer split every pot (the unshuffled deck's trap): the hands differ
    six = Hand(TableConfig(n_seats=6), [200] * 6, seed=1)
    while not six.is_complete:
        six.apply(Action.check_call(six.to_act))
    assert len(six.pots[0].winners) < 6
    assert Hand(CFG, STACKS, seed=2**63 - 1).deck == hand_deck(2**63 - 1, 0, 0).tolist()


@pytest.mark.parametrize("seed", [-1, 2**63, "1", True, 1.5, None])
def test_a_bad_seed_is_named(seed: object) -> None:
    with pytest.raises(ValueError, match=r"^(seed: .* is not a seed: expected an int 0..2\*\*63-1"
                                         r"|no cards: pass seed=N)"):
        Hand(CFG, STACKS, seed=seed)  # type: ignore[arg-type]


def test_a_seeded_hand_id_must_select_a_deck() -> None:
    with pytest.raises(ValueError, match=r"^hand_id: -1: expected an int >= 0"):
        Hand(CFG, STACKS, seed=1, hand_id=-1)


def test_an_explicit_deck_wins_over_the_seed() -> None:
    h = Hand(CFG, STACKS, deck=list(range(52)), seed=11)
    assert h.deck == list(range(52)) and h.seed is None
    assert [h.hole_cards(s) for s in (1, 2, 0)] == [(0, 3), (1, 4), (2, 5)]


def test_a_deck_as_text_deals_the_same_cards_as_ints() -> None:
    ints = hand_deck(3, 0, 0).tolist()
    text = format_cards(ints, " ")
    as_list = [format_card(c) for c in ints]
    mixed: list[int | str] = [c if i % 2 else format_card(c) for i, c in enumerate(ints)]
    written = [t.lower() if i % 3 == 0 else t.replace("T", "10") for i, t in enumerate(as_list)]
    for deck in (text, format_cards(ints), text.replace(" ", ","), as_list, mixed, written,
                 np.asarray(ints, dtype=np.int8)):
        h = Hand(CFG, STACKS, deck=deck)
        assert h.deck == ints, deck


@pytest.mark.parametrize("deck,msg", [
    ("As Kd Xh", r"^deck\[2\]: 'Xh' is not a card: expected an int 0..51 or a card as text: "
                 r"a rank in 23456789TJQKA \(or 10\) and a suit in cdhs, e.g. 'As', 'Td'$"),
    (["As", "Kd", "1"], r"^deck\[2\]: '1' is not a card"),
    ([0, 1, 52] + list(range(3, 52)), r"^deck\[2\]: 52 is not a card"),
    ([0, 1, -1] + list(range(3, 52)), r"^deck\[2\]: -1 is not a card"),
    ([0, 1, 2.0] + list(range(3, 52)), r"^deck\[2\]: 2.0 is not a card"),
    ([0, True] + list(range(2, 52)), r"^deck\[1\]: True is not a card"),
    (np.array([0, 99] + list(range(2, 52))), r"^deck\[1\]: 99 is not a card"),
    ("As Kd", r"^deck: expected 52 cards, got 2$"),
    (list(range(53)), r"^deck\[52\]: 52 is not a card"),
    (list(range(51)), r"^deck: expected 52 cards, got 51$"),
    (["As"] + list(range(50)) + [51], r"^deck\[51\]: As is already deck\[0\]: expected 52 "
                                      r"distinct cards$"),
])
def test_a_bad_card_names_the_argument_and_its_position(deck: object, msg: str) -> None:
    with pytest.raises(ValueError, match=msg) as e:
        Hand(CFG, STACKS, deck=deck)  # type: ignore[arg-type]
    assert "\n" not in str(e.value) and "int()" not in str(e.value)


def test_cards_of_reads_every_spelling_once() -> None:
    assert cards_of("As Kd 10c td", "x") == [51, 45, 32, 33]
    assert cards_of("AsKd10c", "x") == cards_of("As,Kd, Tc", "x") == [51, 45, 32]
    assert cards_of([51, "kD", np.int8(3)], "x") == [51, 45, 3]
    assert cards_of(np.arange(3), "x") == [0, 1, 2]
    with pytest.raises(ValueError, match=r"^board\[1\]: 'K' is not a card"):
        cards_of("AsK", "board")
    with pytest.raises(ValueError, match=r"^board\[0\]: \[1, 2\] is not a card"):
        cards_of([[1, 2]], "board")


def test_cards_are_shown_as_text() -> None:
    h = Hand(CFG, STACKS, deck="2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac " + " ".join(
        format_card(c) for c in range(52) if c % 4 or c >> 2 > 12))
    hole = h.records[2]
    assert hole.kind == EventKind.DEAL_HOLE and hole.card == 0  # the logged field stays an int
    assert hole.describe() == "preflop: seat 1 deal hole 2c"
    assert repr(hole) == ("Record(hand_id=0, seq=2, street=PREFLOP, seat=1, kind=DEAL_HOLE, "
                          "to_street_total=0, added=0, card=2c)")
    assert repr(h).startswith("<Hand 0 preflop, seat 0 to act; board -; "
                              "holes 0:4c7c 1:2c5c 2:3c6c; stacks [200, 199, 198]>")
    while not h.is_complete:
        h.apply(Action.check_call(h.to_act))
    # burns 8c, Qc, Ac: the board is the flop 9c Tc Jc, the turn Kc and the river 2d
    assert repr(h) == ("<Hand 0 complete; board 9c Tc Jc Kc 2d; holes 0:4c7c 1:2c5c 2:3c6c; "
                       "stacks [204, 198, 198]>")
    shows = [r.describe() for r in h.records if r.kind in (EventKind.SHOW, EventKind.WIN)]
    assert "showdown: seat 0 show (Flush, King Jack Ten Nine Seven)" in shows
    assert shows[-1] == "showdown: seat 0 win 6 from pot 0"
    assert "street total 2" in h.records[1].describe()


def test_demo_deals_seeded_decks() -> None:
    a = demo_histories(hands=2, seed=5, players=3)
    assert a == demo_histories(hands=2, seed=5, players=3)
    assert a != demo_histories(hands=2, seed=6, players=3)


def _play_out(h: Hand) -> Hand:
    while not h.is_complete:
        h.apply(Action.check_call(h.to_act))
    return h


def test_holes_and_board_as_text_are_dealt_where_asked() -> None:
    h = _play_out(Hand(CFG, STACKS, seed=1, holes={0: "As Ks", 2: ["Qh", 41]},
                       board="Ah Kd 7c 2s 9h"))
    assert h.hole_cards(0) == (51, 47) and h.hole_cards(2) == (42, 41)
    assert format_cards(h.board, " ") == "Ah Kd 7c 2s 9h"
    assert h.won[0] == 6 and h.stacks == [204, 198, 198]  # seat 0: two pair, aces and kings
    # the other cards keep the seeded deck's order; the same arguments deal the same hand
    asked = set(cards_of("As Ks Qh Qd Ah Kd 7c 2s 9h", "asked"))
    assert [c for c in h.deck if c not in asked] == [
        c for c in hand_deck(1, 0, 0).tolist() if c not in asked]
    again = Hand(CFG, STACKS, seed=1, holes={0: "As Ks", 2: ["Qh", 41]}, board="Ah Kd 7c 2s 9h")
    assert again.deck == h.deck


@pytest.mark.parametrize("stacks,button", [([200, 200], 1), ([200, 200], 0),
                                           ([200, 0, 200, 0, 0, 200], 4),
                                           ([200, 0, 200, 0, 0, 200], 1)])
def test_holes_follow_the_engines_dealing_order(stacks: list[int], button: int) -> None:
    n = len(stacks)
    seats = [s for s in range(n) if stacks[s]]
    holes = {s: format_cards([51 - 4 * s, 50 - 4 * s]) for s in seats}  # AsAh, KsKh, ...
    h = Hand(TableConfig(n_seats=n), stacks, button=button, deck=list(range(52)), holes=holes,
             board="2c 2d 2h")
    assert {s: format_cards(h.hole_cards(s)) for s in seats} == holes
    _play_out(h)
    assert format_cards(h.board[:3], " ") == "2c 2d 2h"


@pytest.mark.parametrize("kwargs,msg", [
    ({"holes": {1: "AsKs"}, "board": "As"}, r"^board\[0\]: As is already holes\[1\]\[0\]$"),
    ({"holes": {5: "AsKs"}}, r"^holes: seat 5 is not dealt cards \(the seats with chips: "
                             r"\[0, 1, 2\]\)$"),
    ({"holes": {0: "As"}}, r"^holes\[0\]: expected 2 cards, got 1$"),
    ({"board": "As Ks Qs Js Ts 9s"}, r"^board: expected at most 5 cards, got 6$"),
    ({"holes": {0: "AsXs"}}, r"^holes\[0\]\[1\]: 'Xs' is not a card: expected"),
    ({"board": ["As", 51]}, r"^board\[1\]: As is already board\[0\]$"),
])
def test_bad_holes_or_board_are_named(kwargs: dict, msg: str) -> None:
    with pytest.raises(ValueError, match=msg):
        Hand(CFG, STACKS, seed=1, **kwargs)
