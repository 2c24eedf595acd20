"""Differential test: our engine (``sim.hand.Hand``) against PokerKit 0.7.7.

Random hands in no-limit, pot-limit and fixed-limit hold'em (2..10 seats, random blinds, stacks
down to a single chip, no/uniform/big-blind antes with and without ante trimming) are played in
both engines with the same cards and the same actions, chosen at random from OUR legal actions.
At every decision the legal sets are compared (fold allowed, call amount, raise allowed, min and
max raise-to); at the end every seat's final stack must match.

Seat mapping: PokerKit's player i is our seat ``(button + 1 + i) % n`` (small blind first, button
last; heads-up PokerKit's player 0 is the big blind and player 1 the button, which the same
formula gives).

Known differences, classified and counted (never failures). Ours by design (sim/engine.py):

- ``tda_reopen``: a player who already acted may raise again only if the bet rose by a full
  raise since he acted. PokerKit is more permissive: a checker may re-raise over a short all-in
  bet, and pre-flop (where it does not count the big blind as the opening bet) a limper may
  re-raise over a short all-in raise.
- ``fl_completion``: fixed-limit after an incomplete all-in bet/raise we raise to the last full
  level + one bet; PokerKit to the current bet + one bet.
- ``fl_cap``: our fixed-limit cap counts only full bets/raises; PokerKit counts short all-ins.

PokerKit's own behaviour, modelled or skipped:

- odd chips (``odd_chips_differ``): we split each pot on its own and give its odd chips one each
  to the first winners clockwise from the button. PokerKit first drops the hands that cannot win
  from every pot and merges adjacent pots left with the same contenders, then gives a split pot's
  whole remainder to its first winner (lowest player index = first clockwise from the button).
  ``_pk_payout`` pays our pots the PokerKit way; only odd chips can move.
- big-blind ante with ante trimming on (``bb_ante_trim_modelled``): PokerKit collects antes like
  a betting round and returns the uncalled part of the largest ante, so a lone big-blind ante goes
  straight back to the big blind; we keep it in the pot, layered into side pots like a bet.
  PokerKit's result is then our hand with no ante at all, compared as such when the big blind can
  post ante and blind in full; otherwise (PokerKit also shrinks his blind by the refunded ante)
  the hand is skipped (``skipped:bb_ante_trim_short_bb``).
- heads-up with small blind == big blind (``skipped:pk_hu_equal_blinds``): PokerKit's pre-flop
  opener is the seat after the largest blind, ties to the higher index, so the big blind acts
  first; we (correctly) start with the button.
- ``pk_extra_checks``: PokerKit asks the last player with chips to act when nobody is left to
  bet against (e.g. the big blind after the others folded or went all-in); he can only check, so
  we check him in PokerKit alone.

When our chosen action is a raise that PokerKit rejects (or whose amount is out of PokerKit's
range) for one of the documented reasons, both engines check/call instead and the fallback is
counted. Anything unexplained fails with a reproduction. Rake is 0 (PokerKit's rake differs).

Straddles (``test_straddle_differential_vs_pokerkit``): the same hands with a live straddle
posted by the seat left of the big blind (3..10 seats, straddles from one chip over the big
blind to three big blinds, short straddlers all-in for less), PokerKit's
``blinds_or_straddles=(sb, bb, straddle)``: the same seat to act (left of the straddler, the
straddler last with the option), the same legal sets (the minimum raise one ``min_bet`` over
the straddle), the same stacks and payouts.

Not compared: a ``LEAVE`` (a player who disconnects mid-hand, seed 004) has no PokerKit twin, so
it is never drawn here (each hand asserts it holds none); its rule is tested on its own
(tests/sim/test_rules.py, the fuzzing of tests/sim/test_hand_fuzz.py, the audits).
"""

from __future__ import annotations

import random
import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from enum import Enum

import pytest
from pokerkit import (
    Automation,
    Card,
    FixedLimitTexasHoldem,
    Mode,
    NoLimitTexasHoldem,
    PotLimitPokerMixin,
    StandardHighHand,
    TexasHoldemMixin,
    UnfixedLimitHoldem,
)

from sim import layout as L
from sim.cards import RANKS, SUITS, format_cards
from sim.config import AnteMode, Structure, TableConfig
from sim.hand import Action, Hand

CARD_TEXT = [r + s for r in RANKS for s in SUITS]  # our card int -> PokerKit text ("As")

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)  # cards are dealt and burned by hand, from our deck


class PotLimitTexasHoldem(PotLimitPokerMixin, TexasHoldemMixin, UnfixedLimitHoldem):
    """Pot-limit Texas hold'em, built like PokerKit's NoLimitTexasHoldem with POT_LIMIT."""


@contextmanager
def fast_pokerkit_hands() -> Iterator[None]:
    """Memoize PokerKit's hand evaluation (pure functions: best of the 21 five-card hands, and the
    lookup entry used by every comparison), which otherwise takes most of this test's time."""
    lookup = StandardHighHand.lookup
    get_entry = lookup.get_entry
    from_game = StandardHighHand.from_game
    entries: dict = {}
    hands: dict = {}

    def cached_entry(cards):
        key = frozenset(cards)
        e = entries.get(key)
        if e is None:
            e = entries[key] = get_entry(tuple(cards))
        return e

    def cached_from_game(hole_cards, board_cards=()):
        key = (tuple(Card.clean(hole_cards)), tuple(Card.clean(board_cards)))
        h = hands.get(key)
        if h is None:
            h = hands[key] = from_game(*key)
        return h

    lookup.get_entry = cached_entry
    StandardHighHand.from_game = staticmethod(cached_from_game)
    try:
        yield
    finally:
        del lookup.get_entry
        del StandardHighHand.from_game


class Mismatch(AssertionError):
    pass


def config_source(config: TableConfig) -> str:
    """The config as Python source that rebuilds it."""
    args = []
    for f in fields(config):
        v = getattr(config, f.name)
        args.append(f"{f.name}={type(v).__name__}.{v.name}" if isinstance(v, Enum)
                    else f"{f.name}={v!r}")
    return f"TableConfig({', '.join(args)})"


@dataclass
class Scenario:
    config: TableConfig
    stacks: list[int]
    button: int
    deck: list[int]
    seed: int
    straddle: int = 0  # chips of the live straddle of the seat left of the big blind (0: none)

    def describe(self) -> str:
        return (
            f"seed={self.seed}\n"
            f"  config={config_source(self.config)}\n"
            f"  stacks={self.stacks} button={self.button} straddle={self.straddle}\n"
            f"  deck=parse_cards({format_cards(self.deck, ' ')!r})"
        )


def random_scenario(rng: random.Random, structure: Structure, seed: int = 0,
                    straddles: bool = False) -> Scenario:
    n = rng.randint(3 if straddles else 2, 10)
    sb = rng.choice([1, 1, 2, 3, 5, 10, 25])
    bb = rng.choice([sb, 2 * sb, 2 * sb, 2 * sb, 3 * sb, sb + rng.randint(1, 2 * sb)])
    mode = rng.choice([AnteMode.NONE, AnteMode.UNIFORM, AnteMode.BIG_BLIND])
    ante = 0
    if mode == AnteMode.UNIFORM:
        ante = rng.choice([1, max(1, bb // 4), max(1, bb // 2), bb])
    elif mode == AnteMode.BIG_BLIND:
        ante = rng.choice([bb, bb, max(1, bb // 2), 2 * bb])
    kw: dict = {}
    if structure == Structure.FIXED_LIMIT:
        small_bet = rng.choice([0, 0, bb, 2 * bb, bb + 1])
        kw["small_bet"] = small_bet
        kw["big_bet"] = rng.choice([0, 0, 2 * (small_bet or bb), 3 * (small_bet or bb)])
    else:
        kw["min_bet"] = rng.choice([0, 0, 0, bb, 1, 2 * bb, bb + sb])
    config = TableConfig(
        n_seats=n, structure=structure, small_blind=sb, big_blind=bb, ante=ante,
        ante_mode=mode, ante_trimming=rng.random() < 0.5, **kw,
    )
    stacks = []
    deep = rng.random() < 0.35  # else a mix that includes stacks shorter than the blinds/ante
    for _ in range(n):
        r = rng.random()
        if deep:
            stacks.append(rng.randint(20 * bb, 300 * bb))
        elif r < 0.12:
            stacks.append(rng.randint(1, max(1, ante + sb)))
        elif r < 0.3:
            stacks.append(rng.randint(1, 4 * bb))
        elif r < 0.8:
            stacks.append(rng.randint(5 * bb, 40 * bb))
        else:
            stacks.append(rng.randint(50 * bb, 300 * bb))
    deck = list(range(52))
    rng.shuffle(deck)
    straddle = rng.choice([2 * bb, 2 * bb, bb + 1, 3 * bb, bb + sb]) if straddles else 0
    return Scenario(config, stacks, rng.randrange(n), deck, seed, straddle)


def pk_state(config: TableConfig, pk_stacks: list[int], straddle: int = 0):
    n = config.n_seats
    if config.ante_mode == AnteMode.UNIFORM:
        antes: object = config.ante
    elif config.ante_mode == AnteMode.BIG_BLIND:
        antes = {1: config.ante}  # multi-way player 1; heads-up player 0 posts antes[1]
    else:
        antes = 0
    blinds: tuple[int, ...] = (config.small_blind, config.big_blind)
    if straddle:
        blinds += (straddle,)  # PokerKit's player 2: the seat left of the big blind
    trim = config.ante_trimming
    if config.structure == Structure.FIXED_LIMIT:
        game = FixedLimitTexasHoldem(
            AUTOMATIONS, trim, antes, blinds, config.effective_small_bet,
            config.effective_big_bet, mode=Mode.TOURNAMENT,
        )
    elif config.structure == Structure.POT_LIMIT:
        game = PotLimitTexasHoldem(
            AUTOMATIONS, trim, antes, blinds, config.effective_min_bet, mode=Mode.TOURNAMENT,
        )
    else:
        game = NoLimitTexasHoldem(
            AUTOMATIONS, trim, antes, blinds, config.effective_min_bet, mode=Mode.TOURNAMENT,
        )
    return game(pk_stacks, n)


def _choose(la, rng: random.Random) -> Action:
    if la.can_fold and rng.random() < 0.28:
        return Action.fold(la.seat)
    if la.can_raise and rng.random() < 0.25:
        lo, hi = la.min_raise_to, la.max_raise_to
        r2 = rng.random()
        if r2 < 0.45 or lo == hi:
            amount = lo
        elif r2 < 0.6:
            amount = hi
        else:
            amount = rng.randint(lo, hi)
        return Action.raise_to(la.seat, amount)
    return Action.check_call(la.seat)


def _pk_payout(hand: Hand, pk_of: dict[int, int], stats: Counter) -> list[int]:
    """Our final stacks with the pots paid out the PokerKit way.

    PokerKit drops the hands that cannot win (mucked/killed) from every pot, merges adjacent pots
    left with the same contenders, and gives a split pot's whole remainder to the first winner
    (lowest player index, i.e. first clockwise from the button). We split every pot on its own
    and give its odd chips one each to the first winners clockwise from the button. The two only
    differ in who gets the odd chips."""
    pots = [p for p in hand.pots if p.amount - p.rake > 0]
    out = [st - w for st, w in zip(hand.stacks, hand.won, strict=True)]
    contenders = set()
    for p in pots:
        contenders.update(p.winners)
    merged: list[list] = []  # [amount, eligible contenders, winners]
    for p in pots:
        key = tuple(sorted((s for s in p.eligible if s in contenders), key=pk_of.__getitem__))
        if merged and merged[-1][1] == key and len(contenders) > 1:
            merged[-1][0] += p.amount - p.rake
            if merged[-1][2] != p.winners:
                raise AssertionError(f"merged pots with different winners: {hand.pots}")
        else:
            merged.append([p.amount - p.rake, key, p.winners])
    if len(merged) < len(pots) and any(len(p.winners) > 1 for p in pots):
        stats["pk_merged_split_pots"] += 1
    for amount, _, winners in merged:
        ws = sorted(winners, key=pk_of.__getitem__)
        share, odd = divmod(amount, len(ws))
        for s in ws:
            out[s] += share
        out[ws[0]] += odd
    ours = hand.stacks
    odd_pots = sum(1 for p in pots if len(p.winners) > 1 and (p.amount - p.rake) % len(p.winners))
    stats["odd_chip_pots"] += odd_pots
    assert sum(out) == sum(ours)
    if out != ours:
        assert odd_pots, "the PokerKit payout model moved chips without odd chips"
        stats["odd_chips_differ"] += 1
    return out


def _pk_bb_ante_refund(sc: Scenario) -> bool:
    """True if PokerKit hands the big blind's ante straight back (ante trimming on and nobody
    else antes)."""
    return sc.config.ante_trimming and sc.config.ante_mode == AnteMode.BIG_BLIND


def play_both(sc: Scenario, rng: random.Random, stats: Counter) -> None:
    """Play one hand in both engines; raise Mismatch with a reproduction on any difference."""
    config = sc.config
    n = config.n_seats
    button = sc.button
    seat_of = [(button + 1 + i) % n for i in range(n)]
    if n == 2 and config.small_blind == config.big_blind:
        # PokerKit picks the pre-flop opener as the seat after the largest blind, ties to the
        # higher index: heads-up with equal blinds it makes the big blind act first
        stats["skipped:pk_hu_equal_blinds"] += 1
        return
    antes = None
    if _pk_bb_ante_refund(sc):
        # PokerKit returns the lone big-blind ante at once: model it as no ante at all, which
        # is exact when the big blind can still post his whole blind after the ante
        bb_seat = seat_of[0] if n == 2 else seat_of[1]
        if sc.stacks[bb_seat] < config.ante + config.big_blind:
            stats["skipped:bb_ante_trim_short_bb"] += 1
            return
        stats["bb_ante_trim_modelled"] += 1
        antes = [0] * n
    hand = Hand(config, sc.stacks, button=button, deck=sc.deck, antes=antes,
                straddle=sc.straddle, straddle_raise="big_blind")  # PokerKit's straddle rule
    posted = [r.added for r in hand.records if r.kind == L.EventKind.STRADDLE]
    if posted:  # none only when the ante took the straddler's last chip
        assert hand.records[[r.kind for r in hand.records].index(L.EventKind.STRADDLE)].seat \
            == seat_of[2]
        stats["straddled"] += 1
        stats["short_straddles"] += posted[0] < sc.straddle
    pk_of = {s: i for i, s in enumerate(seat_of)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. PokerKit's "some chips will be burned"
        pk = pk_state(config, [sc.stacks[s] for s in seat_of], sc.straddle)
    trace: list[str] = []
    pos = 0

    def fail(msg: str) -> Mismatch:
        return Mismatch(f"{msg}\n  {sc.describe()}\n  actions={trace}")

    def sync_cards() -> None:
        nonlocal pos
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            while pk.status:
                card = CARD_TEXT[sc.deck[pos]]
                if pk.card_burning_status:
                    pk.burn_card(card)
                elif any(pk.hole_dealing_statuses):
                    pk.deal_hole(card)
                elif any(pk.board_dealing_counts):
                    pk.deal_board(card)
                else:
                    return
                pos += 1

    def pk_stacks_in_our_seats() -> list[int]:
        return [int(pk.stacks[pk_of[s]]) for s in range(n)]

    sync_cards()
    for s in range(n):
        pk_cards = [CARD_TEXT.index(repr(c)) for c in pk.hole_cards[pk_of[s]]]
        if pk.statuses[pk_of[s]] and tuple(pk_cards) != hand.hole_cards(s):
            raise fail(f"seat {s}: hole cards differ: PokerKit {pk_cards} ours "
                       f"{hand.hole_cards(s)}")
    while True:
        # PokerKit asks the last player with chips to act although nobody is left to bet against
        # (e.g. the big blind after the others folded or went all-in): he can only check
        while (pk.actor_index is not None
               and (hand.is_complete or seat_of[pk.actor_index] != hand.to_act)
               and pk.checking_or_calling_amount == 0
               and not pk.can_complete_bet_or_raise_to()):
            trace.append(f"(PokerKit only: s{seat_of[pk.actor_index]} check)")
            pk.check_or_call()
            stats["pk_extra_checks"] += 1
            sync_cards()
        if hand.is_complete:
            break
        la = hand.legal_actions()
        if pk.actor_index is None or seat_of[pk.actor_index] != la.seat:
            raise fail(f"seat to act: ours {la.seat}, PokerKit "
                       f"{None if pk.actor_index is None else seat_of[pk.actor_index]}")
        stats["decisions"] += 1
        if la.can_fold != pk.can_fold():
            raise fail(f"seat {la.seat}: can fold ours {la.can_fold} PokerKit {pk.can_fold()}")
        if la.call_amount != pk.checking_or_calling_amount:
            raise fail(f"seat {la.seat}: call amount ours {la.call_amount} PokerKit "
                       f"{pk.checking_or_calling_amount}")
        S = hand.state_array
        s = la.seat
        acted, cur = int(S[L.ACTED_AT_ + s]), int(S[L.CUR_BET])
        tda = acted >= 0 and cur - acted < int(S[L.FULL_RAISE])
        fl = config.structure == Structure.FIXED_LIMIT
        fl_completion = fl and int(S[L.FULL_LEVEL]) != cur
        fl_cap = (fl and pk.completion_betting_or_raising_count >= config.raise_cap
                  and int(S[L.N_RAISES]) < config.raise_cap)
        pk_can_raise = pk.can_complete_bet_or_raise_to()
        reason = None
        if la.can_raise and pk_can_raise:
            pk_range = (pk.min_completion_betting_or_raising_to_amount,
                        pk.max_completion_betting_or_raising_to_amount)
            if pk_range != (la.min_raise_to, la.max_raise_to):
                if not fl_completion:
                    raise fail(f"seat {s}: raise-to range ours {la.min_raise_to}.."
                               f"{la.max_raise_to}, PokerKit {pk_range[0]}..{pk_range[1]}")
                reason = "fl_completion"
        elif la.can_raise:
            if not fl_cap:
                raise fail(f"seat {s}: we allow raise to {la.min_raise_to}..{la.max_raise_to},"
                           " PokerKit does not")
            reason = "fl_cap"
        elif pk_can_raise:
            if not tda:
                raise fail(f"seat {s}: PokerKit allows raise to "
                           f"{pk.min_completion_betting_or_raising_to_amount}.."
                           f"{pk.max_completion_betting_or_raising_to_amount}, we do not")
            reason = "tda_reopen"
        if reason:
            stats[f"legal_diff:{reason}"] += 1
        action = _choose(la, rng)
        if action.kind == L.ActionKind.BET_RAISE and reason is not None:
            stats[f"fallback:{reason}"] += 1
            action = Action.check_call(s)
        trace.append(f"s{s} {action.describe()}")
        hand.apply(action)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                if action.kind == L.ActionKind.FOLD:
                    pk.fold()
                elif action.kind == L.ActionKind.CHECK_CALL:
                    pk.check_or_call()
                else:
                    pk.complete_bet_or_raise_to(action.amount)
        except (ValueError, UserWarning) as e:
            raise fail(f"PokerKit rejected {trace[-1]}: {e}") from e
        sync_cards()
        if not hand.is_complete and pk.status:
            if pk_stacks_in_our_seats() != hand.stacks:
                raise fail(f"stacks after {trace[-1]}: ours {hand.stacks} PokerKit "
                           f"{pk_stacks_in_our_seats()}")
    if pk.status:
        raise fail("our hand is complete, PokerKit's is not")
    pk_board = [CARD_TEXT.index(repr(c[0])) for c in pk.board_cards]
    if pk_board != hand.board:
        raise fail(f"board ours {hand.board} PokerKit {pk_board}")
    expected = _pk_payout(hand, pk_of, stats)
    if pk_stacks_in_our_seats() != expected:
        raise fail(f"final stacks ours {hand.stacks} (PokerKit odd-chip rule: {expected}),"
                   f" PokerKit {pk_stacks_in_our_seats()}; pots {hand.pots}")
    assert all(r.kind != L.EventKind.LEAVE for r in hand.records)  # no PokerKit twin
    stats["hands_compared"] += 1
    if sum(1 for x in hand.shown if x >= 0) >= 2:
        stats["showdowns"] += 1
    else:
        stats["uncontested"] += 1
    streets = {r.street for r in hand.records if r.kind in L.PLAYER_EVENTS}
    if L.Street.RIVER in streets:
        stats["river_action_hands"] += 1
    if len(hand.pots) > 1:
        stats["side_pot_hands"] += 1


def run(structure: Structure, n_hands: int, seed: int, straddles: bool = False) -> Counter:
    stats: Counter = Counter()
    with fast_pokerkit_hands():
        for k in range(n_hands):
            hand_seed = seed * 1_000_003 + k
            rng = random.Random(hand_seed)
            sc = random_scenario(rng, structure, hand_seed, straddles)
            play_both(sc, rng, stats)
    return stats


STRUCTURES = [Structure.NO_LIMIT, Structure.POT_LIMIT, Structure.FIXED_LIMIT]


@pytest.mark.parametrize("structure", STRUCTURES, ids=lambda s: s.label)
def test_differential_vs_pokerkit(structure: Structure) -> None:
    stats = run(structure, 1500, seed=int(structure) + 1)
    print(f"\n{structure.label}: {dict(sorted(stats.items()))}")
    skipped = sum(v for k, v in stats.items() if k.startswith("skipped:"))
    assert stats["hands_compared"] + skipped == 1500
    assert stats["showdowns"] > 100
    assert stats["side_pot_hands"] > 50


@pytest.mark.parametrize("structure", STRUCTURES, ids=lambda s: s.label)
def test_straddle_differential_vs_pokerkit(structure: Structure) -> None:
    """Straddled hands (module docstring): every decision's seat and legal set, the stacks
    after each action and the payouts equal PokerKit's with blinds_or_straddles=(sb, bb, s)."""
    stats = run(structure, 400, seed=200 + int(structure), straddles=True)
    print(f"\n{structure.label} straddled: {dict(sorted(stats.items()))}")
    skipped = sum(v for k, v in stats.items() if k.startswith("skipped:"))
    assert stats["hands_compared"] + skipped == 400
    assert stats["straddled"] > 330 and stats["short_straddles"] > 20
    assert stats["showdowns"] > 30
    assert stats["side_pot_hands"] > 15


@pytest.mark.slow
@pytest.mark.parametrize("structure", STRUCTURES, ids=lambda s: s.label)
def test_differential_vs_pokerkit_large(structure: Structure) -> None:
    stats = run(structure, 6_000, seed=100 + int(structure))
    print(f"\n{structure.label}: {dict(sorted(stats.items()))}")
    skipped = sum(v for k, v in stats.items() if k.startswith("skipped:"))
    assert stats["hands_compared"] + skipped == 6_000
