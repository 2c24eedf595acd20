"""The compiled PHH replay (sim.histories.replay.compiled.replay_block) against the Python replay it
must equal (sim.histories.read.block.replayed_from_python, sim.histories.replay.reference.replay):
on the real corpora of ../shared (skipped when absent), on hands written here for each rule, and on
seeded mutations of both (dropped, reordered, re-sized actions...), which the Python replay mostly
refuses.

The differential: ``ok`` is never True where the reference fails; where both replay, the engine
state, the record log and the unrecorded flags are equal; and every hand the reference replays
is ok (the corpora's count of reference-ok hands marked not ok is asserted 0)."""

from __future__ import annotations

import dataclasses
import random
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

from sim.histories.read.block import block_from_hands, replayed_from_python
from sim.histories.read.phh import PhhError, PhhHand, iter_phh_paths, read_phh, reads_phh
from sim.histories.replay.compiled import replay_block
from sim.histories.replay.reference import (
    K_ACTIONS,
    K_BOARD,
    K_CARDS,
    K_ENDS_EARLY,
    K_REVERSED_HU,
    K_SETUP,
    K_UNSUPPORTED,
    replay,
)

SHARED = Path(__file__).resolve().parents[3].parent / "shared"
REALHANDS = SHARED / "realhands"
PHH = SHARED / "phh"


def _usable(hands: list[PhhHand]) -> list[PhhHand]:
    """The hands a block takes (supported variants and verbs, amounts in units)."""
    out = []
    for h in hands:
        try:
            block_from_hands([h], h.scale)
        except (ValueError, PhhError):
            continue
        out.append(h)
    return out


def _differential(hands: list[PhhHand]) -> tuple[int, int, int]:
    """Replay ``hands`` (one block, exponent = their largest scale) both ways and assert the
    differential (module docstring). Returns (hands, reference ok, reference ok marked not
    ok)."""
    if not hands:
        return 0, 0, 0
    exp = max(h.scale for h in hands)
    block = block_from_hands(hands, exp)
    ref = replayed_from_python(hands, exp)
    got = replay_block(block)
    for name in ("ok", "state", "log_lo", "log", "unrecorded"):
        a, b = getattr(got, name), getattr(ref, name)
        assert a.dtype == b.dtype and a.shape[1:] == b.shape[1:], name
    assert got.ok.shape == ref.ok.shape and got.unrecorded.shape == ref.unrecorded.shape
    missed = 0
    for i, h in enumerate(hands):
        where = f"{h.where} hand {i}"
        if not ref.ok[i]:
            assert not got.ok[i], f"{where}: ok, but the Python replay fails"
            assert got.log_lo[i + 1] == got.log_lo[i]
            continue
        if not got.ok[i]:
            missed += 1
            continue
        assert np.array_equal(got.state[i], ref.state[i]), (
            f"{where}: state differs at {np.nonzero(got.state[i] != ref.state[i])[0].tolist()}")
        assert np.array_equal(got.log[got.log_lo[i]:got.log_lo[i + 1]],
                              ref.log[ref.log_lo[i]:ref.log_lo[i + 1]]), f"{where}: log differs"
        p = slice(block.p_lo[i], block.p_lo[i + 1])
        assert np.array_equal(got.unrecorded[p], ref.unrecorded[p]), f"{where}: unrecorded"
    assert not got.state[~got.ok].any()
    assert len(got.log) == got.log_lo[-1]
    return len(hands), int(ref.ok.sum()), missed


def _corpus(paths: list[Path]) -> tuple[int, int, int]:
    tot = [0, 0, 0]
    for path in paths:
        for k, v in enumerate(_differential(_usable(read_phh(path).hands))):
            tot[k] += v
    return tot[0], tot[1], tot[2]


# ---------------------------------------------------------------- the corpora

@pytest.mark.skipif(not REALHANDS.is_dir(), reason="../shared/realhands is absent")
def test_realhands_every_replayable_hand_is_ok_and_equal() -> None:
    hands, ref_ok, missed = _corpus(list(iter_phh_paths([REALHANDS])))
    assert hands >= 1400 and ref_ok >= 1400  # the corpus was read (1,416 hands, 1,409 replay)
    assert missed == 0, f"{missed} of {ref_ok} hands the Python replay replays are not ok"


def _phh_files() -> list[Path]:
    return list(iter_phh_paths([PHH]))


@pytest.mark.skipif(not PHH.is_dir(), reason="../shared/phh is absent")
def test_phh_sample_every_replayable_hand_is_ok_and_equal() -> None:
    files = _phh_files()
    sample = [f for k, f in enumerate(files) if "pluribus" not in f.parts or k % 40 == 0]
    hands, ref_ok, missed = _corpus(sample)
    assert hands >= 250 and ref_ok >= 250
    assert missed == 0


@pytest.mark.slow
@pytest.mark.skipif(not PHH.is_dir(), reason="../shared/phh is absent")
def test_phh_every_replayable_hand_is_ok_and_equal() -> None:
    hands, ref_ok, missed = _corpus(_phh_files())
    assert hands >= 10_000 and ref_ok >= 10_000
    assert missed == 0


# ---------------------------------------------------------------- hands written here

def _hand(actions: list[str], *, stacks: str = "[200, 200, 200]", blinds: str = "[1, 2, 0]",
          antes: str | None = None, variant: str = "NT", trim: bool = True,
          bets: str = "min_bet = 2") -> str:
    n = stacks.count(",") + 1
    return "\n".join([
        f"variant = '{variant}'",
        f"ante_trimming_status = {'true' if trim else 'false'}",
        f"antes = {antes or '[' + ', '.join(['0'] * n) + ']'}",
        f"blinds_or_straddles = {blinds}",
        bets,
        f"starting_stacks = {stacks}",
        "actions = [" + ", ".join(f"'{a}'" for a in actions) + "]",
    ]) + "\n"


def _deal(n: int, known: dict[int, str] | None = None) -> list[str]:
    known = known or {}
    return [f"d dh p{i + 1} {known.get(i + 1, '????')}" for i in range(n)]


_RIVER = ["d db 2h7d9c", "p1 cc", "p2 cc", "d db Js", "p1 cc", "p2 cc", "d db 3s",
          "p1 cc", "p2 cc"]
# hands the Python replay replays: each must be ok and equal
GOOD = {
    "p3's straddle (start_hand_straddle)": _hand([*_deal(4), "p4 cbr 10", "p1 f", "p2 cc",
                                                   "p3 cc", "d db 2h7d9c", "p2 cc", "p3 cc",
                                                   "p4 cc", "d db Js", "p2 cc", "p3 cc",
                                                   "p4 cc", "d db 3s", "p2 cc", "p3 cc",
                                                   "p4 cc", "p2 sm -", "p3 sm -", "p4 sm -"],
                                                  stacks="[200, 200, 200, 200]",
                                                  blinds="[1, 2, 4, 0]"),
    "showdown, both shown": _hand(
        [*_deal(3, {1: "AsKs", 2: "QdQc"}), "p3 f", "p1 cbr 6", "p2 cc", *_RIVER,
         "p1 sm AsKs", "p2 sm QdQc"]),
    "unrecorded loser mucks (sm ????)": _hand(
        [*_deal(3, {2: "QdQc"}), "p3 f", "p1 cc", "p2 cc", *_RIVER, "p1 sm ????",
         "p2 sm QdQc"]),
    "a bare sm mucks, cards shown at showdown without sm": _hand(
        [*_deal(3, {1: "AsKs", 2: "QdQc"}), "p3 f", "p1 cc", "p2 cc", *_RIVER,
         "p1 sm AsKs", "p2 sm"]),
    "a fold while checking is free": _hand([*_deal(3), "p3 f", "p1 cc", "p2 f"]),
    "live and dead posts (negative blinds)": _hand(
        [*_deal(4), "p3 cc", "p4 f", "p1 cc", "p2 cc", "d db 2h7d9c", "p1 cbr 4", "p2 f",
         "p3 f"], stacks="[200, 200, 200, 200]", blinds="[1, 2, -2, -3]", trim=False),
    "one blind only (p1 posts the big blind)": _hand(
        [*_deal(3), "p2 cbr 6", "p3 f", "p1 f"], blinds="[2, 0, 0]"),
    "antes, not trimmed": _hand(
        [*_deal(3), "p3 cbr 6", "p1 f", "p2 cc", "d db 2h7d9c", "p2 cc", "p3 cbr 8", "p2 f"],
        antes="[1, 1, 1]", trim=False),
    "heads-up (p1 the big blind, antes reversed)": _hand(
        [*_deal(2), "p2 cbr 6", "p1 cc", "d db 2h7d9c", "p1 cc", "p2 cbr 4", "p1 f"],
        stacks="[100, 150]", blinds="[1, 2]", antes="[1, 2]", trim=False),
    "fixed-limit": _hand(
        [*_deal(3), "p3 cbr 4", "p1 cc", "p2 cc", "d db 2h7d9c", "p1 cc", "p2 cbr 2",
         "p3 f", "p1 f"], variant="FT", bets="small_bet = 2\nbig_bet = 4"),
    "pot-limit": _hand([*_deal(3), "p3 cbr 7", "p1 f", "p2 f"], variant="PT"),
    "all-in, the check written with no turn (a no-op), cards shown on the way": _hand(
        [*_deal(3, {1: "AsKs", 2: "QdQc"}), "p3 f", "p1 cbr 20", "p2 cc", "p1 sm AsKs",
         "p2 sm QdQc", "d db 2h7d9c", "p2 cc", "d db Js", "p2 cc", "d db 3s"],
        stacks="[20, 200, 200]"),
    "unknown stacks, an uncontested pot": _hand(
        [*_deal(3), "p3 cbr 6", "p1 f", "p2 f"], stacks="[inf, inf, 200]"),
    "cents": _hand([*_deal(3), "p3 cbr 0.06", "p1 f", "p2 cc", "d db 2h7d9c", "p2 cc",
                    "p3 cc", "d db Js", "p2 cbr 0.10", "p3 f"],
                   stacks="[2.00, 1.50, 3.25]", blinds="[0.01, 0.02, 0]",
                   bets="min_bet = 0.02"),
}
# the record ends before the river's betting: with unknown stacks an all-in the record does not
# say (the Python replay's second try); with known stacks the actions end early
UNSAID = [*_deal(2), "p2 cc", "p1 cc", "d db 2h7d9c", "p1 cc", "p2 cc", "d db Js", "p1 cbr 4",
          "p2 cc", "d db 3s"]

# hands the Python replay refuses (its kind): each must be not ok
BAD = {
    "a straddle the engine does not play (p4's)": (_hand(
        [*_deal(4), "p1 f", "p2 f", "p3 f"], stacks="[200, 200, 200, 200]",
        blinds="[1, 2, 0, 4]"), K_UNSUPPORTED),
    "heads-up blinds reversed": (_hand([*_deal(2), "p2 f"], stacks="[100, 100]",
                                       blinds="[2, 1]"), K_REVERSED_HU),
    "an illegal raise": (_hand([*_deal(3), "p3 cbr 3", "p1 f", "p2 f"]), K_ACTIONS),
    "out of turn": (_hand([*_deal(3), "p1 f", "p2 f"]), K_ACTIONS),
    "a board card the engine has not dealt": (_hand(
        [*_deal(3), "p3 f", "p1 cc", "p2 cbr 4", "d db 2h7d9c"]), K_ACTIONS),
    "a board shorter than the engine's": (_hand(
        [*_deal(3), "p3 f", "p1 cbr 20", "p2 cc", "d db 2h7d9c"],
        stacks="[20, 200, 200]"), K_BOARD),
    "an unknown board card at showdown": (_hand(
        [*_deal(3), "p3 f", "p1 cbr 20", "p2 cc", "d db 2h7d9c", "d db ??", "d db 3s"],
        stacks="[20, 200, 200]"), K_BOARD),
    "a card dealt twice": (_hand([*_deal(3, {1: "AsKs", 2: "AsQd"}), "p3 f", "p1 f"]),
                           K_CARDS),
    "a muck that would leave a pot without a hand": (_hand(
        [*_deal(3), "p3 f", "p1 cc", "p2 cc", *_RIVER, "p1 sm", "p2 sm"]), "showdown"),
    "actions end early, known stacks": (_hand(UNSAID, stacks="[100, 100]", blinds="[1, 2]"),
                                        K_ENDS_EARLY),
    "a table TableConfig refuses (big bet < small bet)": (_hand(
        [*_deal(3), "p3 f", "p1 f"], variant="FT", bets="small_bet = 4\nbig_bet = 2"),
        K_SETUP),
    "a stack of 0": (_hand([*_deal(3), "p3 f", "p1 f"], stacks="[0, 200, 200]"), K_SETUP),
    "dead posts with ante trimming": (_hand(
        [*_deal(4), "p4 f", "p1 f", "p2 f"], stacks="[200, 200, 200, 200]",
        blinds="[1, 2, 0, -1]"), K_SETUP),
}


def _one(text: str) -> PhhHand:
    f = reads_phh(text)
    assert not f.skipped, f.skipped
    (h,) = f.hands
    return h


@pytest.mark.parametrize("name", list(GOOD))
def test_ordinary_hands_are_ok_and_equal(name: str) -> None:
    h = _one(GOOD[name])
    assert replay(h.in_minor_units(h.scale)).hand is not None  # the reference replays it
    assert _differential([h]) == (1, 1, 0)


def test_unsaid_all_in_with_unknown_stacks_is_ok_and_equal() -> None:
    unknown = _one(_hand(UNSAID, stacks="[inf, inf]", blinds="[1, 2]"))
    known = _one(_hand(UNSAID, stacks="[100, 100]", blinds="[1, 2]"))
    assert replay(known).kind == K_ENDS_EARLY  # the first try ends early ...
    r = replay(unknown)
    assert r.hand is not None and r.hand.starting_stacks == [6, 6]  # ... the second: all-ins
    assert _differential([unknown, known]) == (2, 1, 0)
    got = replay_block(block_from_hands([unknown], 0))
    assert got.ok[0] and got.state[0].any()
    assert got.unrecorded.tolist() == list(r.cards_unrecorded) == [True, True]


@pytest.mark.parametrize("name", list(BAD))
def test_hands_the_python_replay_refuses_are_not_ok(name: str) -> None:
    text, kind = BAD[name]
    h = _one(text)
    r = replay(h)
    assert r.hand is None and kind in (r.kind or ""), (r.kind, r.error)
    block = block_from_hands([h], h.scale)
    got = replay_block(block)
    assert not got.ok[0] and got.log_lo.tolist() == [0, 0] and not got.unrecorded.any()


def test_a_full_record_log_is_not_ok() -> None:
    """A raising war longer than the record log (Hand's 1,024 rows): not ok (the Python
    replay's _check_log raises on it)."""
    acts = [*_deal(2), *[f"p{2 - k % 2} cbr {4 + 2 * k}" for k in range(1100)], "p1 f"]
    h = _one(_hand(acts, stacks="[1000000, 1000000]", blinds="[1, 2]"))
    try:
        ref_ok = replay(h).hand is not None
    except RuntimeError:
        ref_ok = False
    assert not ref_ok
    assert not replay_block(block_from_hands([h], 0)).ok[0]


def test_one_block_mixes_tables_ok_and_not_ok_hands() -> None:
    """Hands of several tables (n, structure, blinds, bets) in one block, refused ones among
    them: each hand's verdict and rows are its own."""
    hands = [_one(t) for t in GOOD.values()] + [_one(t) for t, _ in BAD.values()]
    random.Random(7).shuffle(hands)
    n, ref_ok, missed = _differential(hands)
    assert (n, ref_ok, missed) == (len(GOOD) + len(BAD), len(GOOD), 0)


def test_an_empty_block() -> None:
    got = replay_block(block_from_hands([], 0))
    assert got.ok.shape == (0,) and got.log_lo.tolist() == [0] and len(got.log) == 0


# ---------------------------------------------------------------- mutations

def _mutate(h: PhhHand, rng: random.Random) -> PhhHand:
    """``h`` with one random defect or change: an action dropped, moved, re-sized, given to
    another player, the record cut short, a stack or a blind changed, a card line removed."""
    acts = list(h.actions)
    play = [i for i, a in enumerate(acts) if a.verb in ("f", "cc", "cbr")]
    unit = Decimal(1).scaleb(-h.scale)
    k = rng.randrange(9)
    if k == 0 and play:
        del acts[rng.choice(play)]
    elif k == 1 and any(a.verb == "cbr" for a in acts):
        i = rng.choice([i for i, a in enumerate(acts) if a.verb == "cbr"])
        amount = Decimal(acts[i].amount or 0)
        acts[i] = dataclasses.replace(acts[i], amount=amount + rng.choice(
            [unit, -unit, amount, -amount / 2]))
    elif k == 2 and acts:
        acts = acts[:rng.randrange(len(acts))]
    elif k == 3 and play:
        i = rng.choice(play)
        acts[i] = dataclasses.replace(acts[i], actor=rng.randrange(h.n_players))
    elif k == 4 and len(acts) > 2:
        i = rng.randrange(len(acts) - 1)
        acts[i], acts[i + 1] = acts[i + 1], acts[i]
    elif k == 5 and play:
        i = rng.choice(play)
        acts[i] = dataclasses.replace(acts[i], verb=rng.choice(["f", "cc"]), amount=None)
    elif k == 6:
        stacks = list(h.starting_stacks)
        stacks[rng.randrange(len(stacks))] = rng.choice(
            [Decimal("Infinity"), Decimal(1), Decimal(3), Decimal(50), 0])
        return dataclasses.replace(h, starting_stacks=tuple(stacks))
    elif k == 7 and h.blinds_or_straddles:
        b = list(h.blinds_or_straddles)
        b[rng.randrange(len(b))] = rng.choice([0, -b[1], -2 * b[1], -3 * b[1], b[0], -b[0],
                                               3 * b[1]])
        return dataclasses.replace(h, blinds_or_straddles=tuple(b))
    elif k == 8:
        cards = [i for i, a in enumerate(acts) if a.verb in ("sm", "db", "dh")]
        if cards:
            i = rng.choice(cards)
            if acts[i].verb == "sm":
                acts[i] = dataclasses.replace(acts[i], cards=() if acts[i].cards else (-1, -1))
            else:
                del acts[i]
    return dataclasses.replace(h, actions=tuple(acts))


def _mutated(hands: list[PhhHand], seed: int, per_hand: int) -> list[PhhHand]:
    rng = random.Random(seed)
    return _usable([_mutate(h, rng) for h in hands for _ in range(per_hand)])


def test_mutations_of_the_hands_written_here() -> None:
    hands = [_one(t) for t in GOOD.values()] + [_one(t) for t, _ in BAD.values()
                                                 if "log" not in t]
    n, ref_ok, missed = _differential(_mutated(hands, 22, 40))
    assert missed == 0
    assert ref_ok >= 100 and n - ref_ok >= 300  # both verdicts were exercised


@pytest.mark.skipif(not REALHANDS.is_dir(), reason="../shared/realhands is absent")
def test_mutations_of_the_real_hands() -> None:
    tot = [0, 0, 0]
    for path in iter_phh_paths([REALHANDS]):
        for k, v in enumerate(_differential(_mutated(read_phh(path).hands, 5, 2))):
            tot[k] += v
    n, ref_ok, missed = tot
    assert missed == 0
    assert ref_ok >= 800 and n - ref_ok >= 800
