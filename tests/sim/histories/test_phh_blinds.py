# ruff: noqa: E501  (the fixtures keep the records' one-line action arrays)
"""Replaying operators' records (sim.histories.replay.reference): the blinds rule (posts, one blind only,
reversed heads-up), unknown stacks, unrecorded showdown cards, minor units, free folds. The
fixtures copy the shape (and, where noted, the numbers) of hands of ../shared/realhands."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.histories.read.phh import loads_phh, read_phh
from sim.histories.replay.reference import (
    K_BLINDS,
    K_ENDS_EARLY,
    K_MONEY,
    K_REVERSED_HU,
    K_UNSUPPORTED,
    STAND_IN_FLOOR,
    ReplayResult,
    replay,
)
from sim.layout import EventKind

REALHANDS = Path(__file__).resolve().parents[3].parent / "shared" / "realhands"


def hand(body: str, **fields: str) -> str:
    head = {"variant": "'NT'", "ante_trimming_status": "false"} | fields
    return "\n".join(f"{k} = {v}" for k, v in head.items()) + "\n" + body


def run(text: str, minor_units: bool = True) -> ReplayResult:
    (h,) = loads_phh(text)
    return replay(h, minor_units=minor_units)


# ong/1000nl-handhq_1.phhs [2], verbatim but the names
ONG_DEAD = hand("""actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'd dh p4 ????', 'd dh p5 ????', 'p3 cc', 'p4 f', 'p5 f', 'p1 f', 'p2 cc', 'd db JhQsKc', 'p2 cc', 'p3 cbr 11', 'p2 cc', 'd db 4h', 'p2 cc', 'p3 cc', 'd db 4c', 'p2 cbr 21', 'p3 cc', 'p2 sm 3dKs', 'p3 sm 8cQd']
finishing_stacks = [709, 1064, 953, 1244, 3324]
winnings = [0, 91, 0, 0, 0]
""", antes="[0, 0, 0, 0, 0]", blinds_or_straddles="[5, 10, -5, 0, 0]", min_bet="10",
    starting_stacks="[714, 1015, 1000, 1244, 3324]")

# ong/600nl-handhq_1.phhs [9], verbatim but the names
ONG_LIVE = hand("""actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'd dh p4 ????', 'p3 cbr 18', 'p4 cc', 'p1 f', 'p2 f', 'd db Ts6s3s', 'p3 cc', 'p4 cc', 'd db As', 'p3 cc', 'p4 cc', 'd db Jd', 'p3 cc', 'p4 cc', 'p3 sm 4dAd', 'p4 sm 5c6c']
finishing_stacks = [591, 1198.7, 442, 930.75]
winnings = [0, 0, 43, 0]
""", antes="[0, 0, 0, 0]", blinds_or_straddles="[3, 6, -6, 0]", min_bet="6",
    starting_stacks="[594, 1204.70, 417, 948.75]")


def test_a_post_below_the_big_blind_is_dead() -> None:
    r = run(ONG_DEAD)
    assert r.error is None and r.dead == (0, 0, 5, 0, 0) and r.posts == (0,) * 5
    # p3 paid 5 dead + 10 + 11 + 21 (a live 5 would leave him 958): the site's stacks say 953
    assert r.actual is not None and r.expected is not None
    assert r.actual[2] == r.expected[2] == 953
    # the only difference is the winner's: the site's rake of 3
    assert [a - e for a, e in zip(r.actual, r.expected, strict=True)] == [0, 3, 0, 0, 0]
    assert r.hand is not None
    recs = [(x.seat, x.kind, x.to_street_total, x.added) for x in r.hand.records[:3]]
    assert recs == [(0, EventKind.SMALL_BLIND, 5, 5), (1, EventKind.BIG_BLIND, 10, 10),
                    (2, EventKind.DEAD_BLIND, 0, 5)]


def test_a_post_of_the_big_blind_is_live() -> None:
    r = run(ONG_LIVE)  # in cents (starting stacks with cents)
    assert r.error is None and r.scale == 2 and r.posts == (0, 0, 600, 0)
    assert r.actual is not None and r.expected is not None
    # p3 raised to 18 over his live 6: he paid 18 in all, and the site's winnings are 43
    # (pot 45 less a rake of 2); a dead 6 would have left him 436
    assert r.actual[2] - r.expected[2] == 200 and r.expected[2] == 44200
    assert r.actual[3] == r.expected[3] == 93075
    assert r.hand is not None and r.hand.contributed[2] == 1800


def test_a_post_above_the_big_blind_is_live_and_dead() -> None:
    r = run(ONG_DEAD.replace("[5, 10, -5, 0, 0]", "[5, 10, -15, 0, 0]")
            .replace("finishing_stacks = [709, 1064, 953, 1244, 3324]\n", ""))
    assert r.error is None and r.posts == (0, 0, 10, 0, 0) and r.dead == (0, 0, 5, 0, 0)
    assert r.hand is not None and r.hand.contributed[2] == 15 + 11 + 21  # its cc added nothing


def test_one_blind_only_is_the_big_blind() -> None:
    # ong/400nl-handhq_1.phhs [9]: [4, 0, 0], min_bet 4: p1 posts the big blind
    r = run(hand("""actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'p2 cbr 14', 'p3 f', 'p1 f']
finishing_stacks = [381.6, 405, 715.7]
""", antes="[0, 0, 0]", blinds_or_straddles="[4, 0, 0]", min_bet="4",
        starting_stacks="[385.60, 401, 715.70]"))
    assert r.ok, r.error
    assert r.hand is not None and (r.hand.sb_seat, r.hand.bb_seat, r.hand.button) == (-1, 0, 2)
    # abs/100nl-handhq_2.phhs [66]: a walk to the lone blind
    r = run(hand("actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'p2 f', 'p3 f']\n",
                 antes="[0, 0, 0]", blinds_or_straddles="[1, 0, 0]", min_bet="1",
                 starting_stacks="[131.45, 212.30, 80.55]"))
    assert r.error is None and r.hand is not None and r.hand.won[0] == 0
    assert r.hand.stacks == [13145, 21230, 8055]
    # an entry 0 that is not the minimum bet is not understood
    r = run(hand("actions = ['p2 f', 'p3 f']\n", antes="[0, 0, 0]",
                 blinds_or_straddles="[1, 0, 0]", min_bet="2", starting_stacks="[10, 10, 10]"))
    assert r.kind == K_BLINDS


def test_reversed_heads_up_blinds_are_a_named_skip() -> None:
    # pty/25nl-handhq_2.phhs [68]
    r = run(hand("actions = ['d dh p1 ????', 'd dh p2 ????', 'p1 f']\nwinnings = [0, 0.35]\n",
                 antes="[0, 0]", blinds_or_straddles="[0.25, 0.10]", min_bet="0.25",
                 starting_stacks="[41.44, 23.79]"))
    assert r.kind == K_REVERSED_HU and r.hand is None and "who had the button" in str(r.error)


def test_straddles_and_blind_seat_posts_are_named() -> None:
    # p3's straddle above the big blind is played (sim.engine.start_hand_straddle): action
    # from p4, the straddler last; any other positive entry is a named skip
    r = run(hand("actions = ['p4 f', 'p1 f', 'p2 f']\n", antes="[0, 0, 0, 0]",
                 blinds_or_straddles="[1, 2, 4, 0]", min_bet="2",
                 starting_stacks="[10, 10, 10, 10]"))
    assert r.ok and r.actual == [9, 8, 13, 10], (r.error, r.actual)
    for blinds in ("[1, 2, 0, 4]", "[1, 2, 2, 0]", "[1, 2, 4, -2]", "[1, 2, 4, 8]"):
        r = run(hand("actions = ['p4 f']\n", antes="[0, 0, 0, 0]",
                     blinds_or_straddles=blinds, min_bet="2",
                     starting_stacks="[10, 10, 10, 10]"))
        assert r.unsupported and r.kind == K_UNSUPPORTED and "straddle" in str(r.error), blinds
    r = run(hand("actions = ['p3 f']\n", antes="[0, 0, 0]", blinds_or_straddles="[-1, 2, 0]",
                 min_bet="2", starting_stacks="[10, 10, 10]"))
    assert r.kind == K_BLINDS and "blind's own seat" in str(r.error)
    r = run(hand("actions = ['p3 f']\n", antes="[0, 0, 0]", blinds_or_straddles="[1, 2, -5]",
                 min_bet="2", starting_stacks="[10, 10, 10]"))
    assert r.kind == K_BLINDS and "more than a big blind live and one dead" in str(r.error)


IPN = """actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 8hKd', 'd dh p4 ????', 'd dh p5 7sQs', 'p3 cbr 2', 'p4 f', 'p5 cc', 'p1 f', 'p2 f', 'd db KsQd5s', 'p3 cc', 'p5 cbr 2.75', 'p3 cc', 'd db 4d', 'p3 cbr 5.50', 'p5 cbr 27.50', 'p3 cc', 'd db 9s']
winnings = [0, 0, 0, 0, 0]
"""


def test_unknown_stacks_get_a_stand_in() -> None:
    # ipn/100nl-handhq_1.phhs [22] with the turn's all-in made a check-down: no all-in needed
    text = hand(IPN.replace("'p5 cbr 27.50', 'p3 cc', 'd db 9s'",
                            "'p5 cc', 'd db 9s', 'p3 cc', 'p5 cc'"),
                antes="[0, 0, 0, 0, 0]", blinds_or_straddles="[0.50, 1, 0, 0, 0]",
                min_bet="1", starting_stacks="[inf, inf, inf, inf, inf]")
    r = run(text)
    assert r.error is None and r.stack_known == (False,) * 5
    assert r.hand is not None
    assert all(s >= STAND_IN_FLOOR for s in r.hand.starting_stacks)
    assert r.hand.contributed[2] == r.hand.contributed[4] == 200 + 275 + 550


def test_an_all_in_the_record_does_not_say() -> None:
    # ipn/100nl-handhq_1.phhs [22]: the record stops after the turn's call (an all-in): the
    # live unknown stacks become what they put in, and the board runs out
    r = run(hand(IPN, antes="[0, 0, 0, 0, 0]", blinds_or_straddles="[0.50, 1, 0, 0, 0]",
                 min_bet="1", starting_stacks="[inf, inf, inf, inf, inf]"))
    assert r.error is None and r.hand is not None, r.error
    assert r.hand.starting_stacks[2] == r.hand.starting_stacks[4] == 200 + 275 + 2750
    assert r.hand.starting_stacks[0] > STAND_IN_FLOOR
    # the known cards decide: p5's 7sQs makes a spade flush on KsQd5s 4d 9s, p3 a pair
    assert r.hand.won[4] > 0 and r.hand.stacks[2] == 0


def test_a_record_that_ends_while_a_seat_must_act_is_named() -> None:
    r = run(hand("actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'p3 cc', 'p1 cc', "
                 "'p2 cc', 'd db 2c7d9h']\n", antes="[0, 0, 0]",
                 blinds_or_straddles="[1, 2, 0]", min_bet="2", starting_stacks="[50, 50, 50]"))
    assert r.kind == K_ENDS_EARLY and "the actions end before the hand is over" in str(r.error)


def test_unrecorded_showdown_cards() -> None:
    # ong/600nl-handhq_1.phhs [90]: p1 all-in, 'p1 sm ????' against p2's shown hand, p4's dead
    # 3 in the pot: p1 mucks (legal: p2 still contests), p2 takes the pot less the site's rake
    r = run(hand("""actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'd dh p4 ????', 'd dh p5 ????', 'p3 f', 'p4 f', 'p5 f', 'p1 cc', 'p2 cc', 'd db 3sTh9d', 'p1 cbr 15', 'p2 cbr 48', 'p1 cbr 150', 'p2 cbr 465', 'p1 cc', 'p2 sm ????', 'p1 sm ????', 'd db 6d', 'p1 sm ????', 'p2 sm ????', 'd db 5c', 'p2 sm Td9c', 'p1 sm ????']
finishing_stacks = [0, 869.95, 734.95, 589.65, 314.4]
winnings = [0, 539.90, 0, 0, 0]
""", antes="[0, 0, 0, 0, 0]", blinds_or_straddles="[3, 6, 0, -3, 0]", min_bet="6",
        starting_stacks="[269.95, 600, 734.95, 592.65, 314.40]"))
    assert r.error is None and r.cards_unrecorded == (True, False, False, False, False)
    assert r.dead == (0, 0, 0, 300, 0)
    assert r.actual is not None and r.expected is not None
    assert [a - e for a, e in zip(r.actual, r.expected, strict=True)] == [0, 300, 0, 0, 0]
    assert r.hand is not None and r.hand.hole_cards(0) != (-1, -1)  # stand-in cards, never shown
    assert r.hand.shown[0] == 0


def test_the_last_contender_with_unrecorded_cards_shows() -> None:
    r = run(hand("actions = ['d dh p1 ????', 'd dh p2 ????', 'p2 cc', 'p1 cc', 'd db 2c7d9h', "
                 "'p1 cc', 'p2 cc', 'd db Tc', 'p1 cc', 'p2 cc', 'd db 3s', 'p1 cc', 'p2 cc', "
                 "'p1 sm ????', 'p2 sm ????']\n", antes="[0, 0]", blinds_or_straddles="[1, 2]",
                 min_bet="2", starting_stacks="[50, 50]"))
    assert r.error is None and r.cards_unrecorded == (True, True) and r.hand is not None
    assert sorted(r.hand.shown) == [0, 1]  # the first mucks, the last contender shows


def test_amounts_with_cents_need_minor_units() -> None:
    r = run(ONG_LIVE, minor_units=False)
    assert r.kind == K_MONEY and "expected a whole number of chips" in str(r.error)


def test_fold_while_checking_is_free() -> None:
    # abs/50nl-handhq_1.phhs [4]: the small blind folds the flop with nothing to call
    r = run(hand("actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'p3 cc', 'p1 cc', "
                 "'p2 cc', 'd db 2c7d9h', 'p1 f', 'p2 cbr 2', 'p3 f']\n", antes="[0, 0, 0]",
                 blinds_or_straddles="[1, 2, 0]", min_bet="2", starting_stacks="[50, 50, 50]"))
    assert r.error is None and r.free_folds == 1 and r.hand is not None
    assert r.hand.stacks == [48, 54, 48]


def test_realhands_replay() -> None:
    """Every hand of ../shared/realhands replays but the named few (docs/import.md)."""
    if not REALHANDS.is_dir():
        pytest.skip(f"{REALHANDS}: the shared real hands are absent")
    kinds: dict[str, int] = {}
    replayed = total = 0
    for path in sorted(REALHANDS.rglob("*.phhs")):
        pf = read_phh(path)
        assert not pf.skipped
        for i, h in enumerate(pf.hands):
            r = replay(h, i, minor_units=True)
            total += 1
            if r.hand is not None:
                replayed += 1
                if r.expected is not None and not r.ok:  # Ongame's rake, and hand 100
                    assert "/ong/" in str(path), (r.error, r.expected, r.actual)
            else:
                kinds[str(r.kind)] = kinds.get(str(r.kind), 0) + 1
    assert total == 1416 and replayed >= 1402, kinds
    assert set(kinds) <= {K_ENDS_EARLY, K_REVERSED_HU}, kinds
