"""Tests for sim.evaluator (hand-written cases, phevaluator agreement, full 7-card enumeration)."""

from __future__ import annotations

import gc
import itertools
from math import comb

import numba
import numpy as np
import pytest

from sim.cards import parse_cards
from sim.evaluator import (
    EXPECTED_7CARD_COUNTS,
    HandCategory,
    category_of,
    count_categories_all7,
    describe,
    evaluate,
    evaluate7,
    evaluate_hand,
    evaluate_many,
)

JIT = not numba.config.DISABLE_JIT
# Un-jitted (NUMBA_DISABLE_JIT=1) the evaluator is plain Python: use small samples there.
N_RANDOM = 1_000_000 if JIT else 20_000
needs_jit = pytest.mark.skipif(not JIT, reason="too slow with NUMBA_DISABLE_JIT=1")

HC, P1, P2, T3, ST, FL, FH, Q4, SF = HandCategory


def ev(text: str) -> int:
    return evaluate(parse_cards(text))


def cat(text: str) -> HandCategory:
    return HandCategory(category_of(ev(text)))


def strength(category: int, *ranks: str) -> int:
    """Expected strength from a category and rank characters, e.g. strength(FH, 'K', '8')."""
    value = 0
    for i, r in enumerate(ranks):
        value |= "23456789TJQKA".index(r) << (16 - 4 * i)
    return category << 20 | value


def random_hands(n: int, k: int, seed: int) -> np.ndarray:
    """n uniformly random hands of k distinct cards (int64, shape (n, k)), by rejection."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, 52, size=(2 * n + 1000, k))
    s = np.sort(draws, axis=1)
    ok = np.all(np.diff(s, axis=1) != 0, axis=1)
    hands = draws[ok][:n]
    assert len(hands) == n
    return hands


# --- hand-written cases ----------------------------------------------------------------------


def test_wheel_is_lowest_straight() -> None:
    wheel = ev("Ah 2c 3d 4s 5h 9c Jd")
    assert wheel == strength(ST, "5")
    assert describe(wheel) == "Straight, Five high"
    six_high = ev("2c 3d 4s 5h 6h 9c Jd")
    assert wheel < six_high == strength(ST, "6")
    assert wheel > ev("Ah Ac Ad 4s 5h 9c Jd")  # beats any three of a kind
    assert ev("Ah 2c 3d 4s 5h 6c Jd") == six_high  # 6-high straight beats the wheel inside it


def test_no_wraparound_straight() -> None:
    assert cat("Qh Kc Ad 2s 3h 7c 8d") == HC
    assert cat("Qh Kc Ad 2s 3h") == HC
    assert cat("Jh Qh Kc Ad 2s 3h 3d") == P1


def test_steel_wheel() -> None:
    s = ev("Ah 2h 3h 4h 5h Kc Kd")
    assert s == strength(SF, "5")
    assert describe(s) == "Straight flush, Five high"
    assert s > ev("Ac Ad Ah As Kc Kd Kh")
    assert s < ev("2h 3h 4h 5h 6h Kc Kd")
    # a straight flush beats a higher plain straight in the same hand
    assert ev("2h 3h 4h 5h 6h 7c 8d") == strength(SF, "6")
    assert describe(ev("Ah Kh Qh Jh Th 9h 8h")) == "Straight flush, Ace high (royal flush)"


def test_flush_vs_straight_in_other_suits() -> None:
    # hearts flush plus a straight that needs a club: flush, not straight flush
    assert ev("9h 8h 7h 6h 2h 5c Kd") == strength(FL, "9", "8", "7", "6", "2")
    # six suited cards: best five of them
    assert ev("Ah Jh 9h 7h 4h 2h Kd") == strength(FL, "A", "J", "9", "7", "4")


def test_suits_never_break_ties() -> None:
    assert ev("As Kd Qc Jh 9s 3c 2d") == ev("Ah Kc Qd Js 9h 3d 2c")
    assert ev("Ks Kd 8c 8h 4s") == ev("Kc Kh 8d 8s 4d")
    assert ev("Ah Kh Qh Jh 9h") == ev("As Ks Qs Js 9s")
    rng = np.random.default_rng(1)
    hands = random_hands(2000, 7, seed=2)
    base = evaluate_many(hands)
    for _ in range(5):
        perm = rng.permutation(4)
        relabelled = (hands // 4) * 4 + perm[hands % 4]
        shuffled = rng.permuted(relabelled, axis=1)  # card order never matters either
        assert np.array_equal(evaluate_many(shuffled), base)


def test_kickers() -> None:
    assert ev("Ah Ad Kc 9s 7h 3c 2d") > ev("Ah Ad Qc 9s 7h 3c 2d")
    assert ev("Ah Ad Kc 9s 7h 3c 2d") > ev("Ah Ad Kc 9s 6h 3c 2d")  # third kicker counts
    assert ev("Ah Kd Qc 9s 7h 3c 2d") == ev("Ah Kd Qc 9s 7h 4c 3d")  # 6th/7th cards don't
    # two pair: kicker, and a third pair only plays as a kicker
    assert ev("Ah Ad 9c 9s Kh 3c 2d") > ev("Ah Ad 9c 9s Qh 3c 2d")
    s = ev("Ah Ad 9c 9s 5h 5d 2c")
    assert s == strength(P2, "A", "9", "5")
    assert describe(s) == "Two pair, Aces and Nines, Five kicker"
    assert describe(ev("Ah Ad 9c 9s Kh 3c 2d")) == "Two pair, Aces and Nines, King kicker"
    # trips with two kickers, quads with one (possibly from a pair)
    assert ev("7h 7d 7c As Kh 3c 2d") == strength(T3, "7", "A", "K")
    assert ev("7h 7d 7c As Qh 3c 2d") < ev("7h 7d 7c As Kh 3c 2d")
    assert ev("9h 9d 9c 9s 2h 2c 5d") == strength(Q4, "9", "5")
    assert ev("9h 9d 9c 9s Ah 2c 5d") > ev("9h 9d 9c 9s Kh 2c 5d")
    # full houses: two trips, trips plus two pairs
    assert ev("Kc Kd Kh 8s 8c 8d 2c") == strength(FH, "K", "8")
    assert ev("Kc Kd Kh 8s 8c 9d 9c") == strength(FH, "K", "9")
    assert ev("8c 8d 8h Qs Qc Ad Ac") == strength(FH, "8", "A") > ev("8c 8d 8h Ks Kc 2d 2c")
    assert describe(ev("Kc Kd Kh 8s 8c 8d 2c")) == "Full house, Kings full of Eights"


def test_board_plays() -> None:
    board = "As Ks Qd Jc Th"
    assert ev(board + " 2c 3d") == ev(board + " 4h 5h") == ev(board) == strength(ST, "A")
    board = "Ac Ad Ah As Kc"
    assert ev(board + " 2c 3d") == ev(board + " Qh Jh") == ev(board)


def test_rules_text_examples() -> None:
    # K♣7♦4♠9♥2♣ + A♠K♥: one pair of kings, A K K 9 7
    s = ev("Kc 7d 4s 9h 2c As Kh")
    assert s == strength(P1, "K", "A", "9", "7")
    assert describe(s) == "One pair, Kings, Ace Nine Seven kickers"
    # K♠Q♠7♠4♠2♠ + A♣5♦ plays the board
    board = ev("Ks Qs 7s 4s 2s")
    assert ev("Ks Qs 7s 4s 2s Ac 5d") == board == strength(FL, "K", "Q", "7", "4", "2")
    # K♥J♥7♥3♣2♦ + 9♥4♥: king-high flush
    s = ev("Kh Jh 7h 3c 2d 9h 4h")
    assert s == strength(FL, "K", "J", "9", "7", "4")
    assert describe(s) == "Flush, King Jack Nine Seven Four"
    # A♠K♦Q♣J♥2♠ + T♦3♣: ace-high straight
    assert ev("As Kd Qc Jh 2s Td 3c") == strength(ST, "A")
    # Q♣8♦3♥5♠2♣: A♦Q♦ beats Q♠9♠
    aq = ev("Qc 8d 3h 5s 2c Ad Qd")
    q9 = ev("Qc 8d 3h 5s 2c Qs 9s")
    assert aq == strength(P1, "Q", "A", "8", "5")
    assert q9 == strength(P1, "Q", "9", "8", "5")
    assert aq > q9


def test_entry_points_agree() -> None:
    hands = random_hands(500, 7, seed=3)
    many = evaluate_many(hands)
    for h, s in zip(hands, many, strict=True):
        assert evaluate7(*(int(c) for c in h)) == s
        assert evaluate_hand(h, 7) == s
        assert evaluate([int(c) for c in h]) == s
    padded = np.zeros((len(hands), 9), dtype=np.int64)
    padded[:, 2:] = hands
    assert evaluate_hand(padded[0, 2:], 7) == many[0]


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int32, np.int64])
def test_small_int_card_arrays(dtype: type) -> None:
    # narrow dtypes must not overflow the rank shifts (matters when run un-jitted)
    hands = np.array([[51, 47, 43, 39, 35, 0, 1], [48, 0, 4, 8, 12, 20, 25]], dtype=dtype)
    expected = [strength(SF, "A"), strength(SF, "5")]
    assert evaluate_many(hands).tolist() == expected
    assert [evaluate_hand(h, 7) for h in hands] == expected
    assert [evaluate7(*h) for h in hands] == expected


def test_seven_is_best_of_21_fives() -> None:
    hands = random_hands(300 if JIT else 50, 7, seed=4)
    fives = np.array(list(itertools.combinations(range(7), 5)))
    for h in hands:
        best = evaluate_many(h[fives]).max()
        assert evaluate_hand(h, 7) == best
        assert evaluate_hand(h[:6], 6) == evaluate_many(h[:6][fives[fives[:, 4] < 6]]).max()


def test_categories_and_describe() -> None:
    assert [c.name for c in HandCategory] == [
        "HIGH_CARD",
        "ONE_PAIR",
        "TWO_PAIR",
        "THREE_OF_A_KIND",
        "STRAIGHT",
        "FLUSH",
        "FULL_HOUSE",
        "FOUR_OF_A_KIND",
        "STRAIGHT_FLUSH",
    ]
    assert category_of(ev("Ah Ad Ac As Kd")) == HandCategory.FOUR_OF_A_KIND
    assert describe(ev("Ah Kd Qc 9s 7h 3c 2d")) == "High card, Ace King Queen Nine Seven"
    assert describe(ev("7h 7d 7c As Kh")) == "Three of a kind, Sevens, Ace King kickers"
    assert describe(ev("6h 6d 6c 6s 2h")) == "Four of a kind, Sixes, Two kicker"
    for bad in (-1, 9 << 20, strength(HC) | 0xF0000):
        with pytest.raises(ValueError):
            describe(bad)
    assert EXPECTED_7CARD_COUNTS.sum() == comb(52, 7)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="got 4"):
        evaluate([0, 1, 2, 3])
    with pytest.raises(ValueError, match="got 8"):
        evaluate(list(range(8)))
    with pytest.raises(ValueError, match=r"^cards\[4\]: 52 is not a card: expected an int 0..51"):
        evaluate([0, 1, 2, 3, 52])
    with pytest.raises(ValueError, match=r"^cards\[4\]: -1 is not a card"):
        evaluate([0, 1, 2, 3, -1, 7])
    with pytest.raises(ValueError, match="As dealt twice"):
        evaluate([51, 0, 1, 2, 3, 51])
    with pytest.raises(ValueError, match=r"^cards\[4\]: 4.0 is not a card"):
        evaluate([0, 1, 2, 3, 4.0])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"^cards\[2\]: 'Qx' is not a card: .* suit in cdhs"):
        evaluate("As Ks Qx Js Ts")
    assert evaluate(np.array([48, 49, 50, 51, 44])) == strength(Q4, "A", "K")
    # text cards, as one text or a list, mixed with ints
    assert evaluate("Ac Ad Ah As Kc") == evaluate(["Ac", 49, "ah", "AS", "Kc"]) == strength(
        Q4, "A", "K")


# --- agreement with phevaluator --------------------------------------------------------------

# phevaluator ranks 1 (best) .. 7462; upper rank bound per category, straight flush first.
_PHE_BOUNDS = np.array([10, 166, 322, 1599, 1609, 2467, 3325, 6185, 7462])


def _phe_eval(hands: np.ndarray) -> np.ndarray:
    """phevaluator ranks (lower is better) of each row; its card ints are ours (rank*4+suit)."""
    try:  # the C extension directly: ~5x faster than the public wrappers
        from phevaluator import _pheval

        fn = getattr(_pheval, f"evaluate_{hands.shape[1]}cards")
    except (ImportError, AttributeError):  # pragma: no cover
        from phevaluator import evaluate_cards as fn
    gc_was_enabled = gc.isenabled()
    gc.disable()  # millions of small lists: cyclic GC passes would double the run time
    try:
        rows = hands.tolist()
        return np.fromiter(itertools.starmap(fn, rows), dtype=np.int64, count=len(rows))
    finally:
        if gc_was_enabled:
            gc.enable()


def _check_agreement(ours: np.ndarray, theirs: np.ndarray) -> None:
    # categories
    phe_cat = 8 - np.searchsorted(_PHE_BOUNDS, theirs)
    assert np.array_equal(ours >> 20, phe_cat)
    # ordering: sorted by our strength, their ranks strictly decrease exactly where ours
    # increase and stay equal where ours tie -- i.e. the same total preorder on all hands
    order = np.argsort(ours, kind="stable")
    d_ours = np.diff(ours[order])
    d_theirs = np.diff(theirs[order])
    assert np.array_equal(d_ours > 0, d_theirs < 0)
    assert np.array_equal(d_ours == 0, d_theirs == 0)
    # and, as a direct check, random pairs compare the same way
    half = len(ours) // 2
    assert np.array_equal(
        np.sign(ours[:half] - ours[half : 2 * half]),
        np.sign(theirs[half : 2 * half] - theirs[:half]),
    )


def test_agrees_with_phevaluator_random_7card() -> None:
    hands = random_hands(N_RANDOM, 7, seed=7)
    ours = evaluate_many(hands)
    _check_agreement(ours, _phe_eval(hands))
    if JIT:  # 1M 7-card hands realise nearly all of the 4824 distinct 7-card values
        assert len(np.unique(ours)) > 4700


def test_agrees_with_phevaluator_random_6card() -> None:
    hands = random_hands(N_RANDOM // 5, 6, seed=6)
    _check_agreement(evaluate_many(hands), _phe_eval(hands))


@needs_jit
def test_agrees_with_phevaluator_all_5card() -> None:
    """Every one of the C(52,5) = 2,598,960 five-card hands: exactly 7462 classes."""
    flat = itertools.chain.from_iterable(itertools.combinations(range(52), 5))
    hands = np.fromiter(flat, dtype=np.int8, count=5 * comb(52, 5)).reshape(-1, 5)
    ours = evaluate_many(hands)
    assert len(np.unique(ours)) == 7462
    _check_agreement(ours, _phe_eval(hands))


# --- full enumeration ------------------------------------------------------------------------


@pytest.mark.slow
@needs_jit
def test_count_categories_all7() -> None:
    counts = count_categories_all7()
    assert counts.dtype == np.int64
    assert counts.tolist() == EXPECTED_7CARD_COUNTS.tolist()


def test_a_board_evaluated_once_gives_every_hand_its_seven_card_strength() -> None:
    """The showdown's board masks (``board_masks``) plus each hand's two cards
    (``evaluate_on_board``): the strength ``evaluate7`` gives the seven cards, on random deals
    and on boards holding a straight, a flush and quads."""
    from sim.evaluator import board_masks, evaluate7, evaluate_on_board

    rng = np.random.default_rng(38)
    deals = [rng.permutation(52)[:9] for _ in range(3000)]
    deals += [np.array([0, 4, 8, 12, 16, 51, 50, 49, 48]),  # 2-6 of clubs: a straight flush
              np.array([48, 49, 50, 51, 0, 1, 5, 9, 13])]  # four aces on the board
    for d in deals:
        b = board_masks(*(int(c) for c in d[:5]))
        for h0, h1 in ((d[5], d[6]), (d[7], d[8])):
            assert evaluate_on_board(b, int(h0), int(h1)) == evaluate7(
                int(h0), int(h1), *(int(c) for c in d[:5]))
