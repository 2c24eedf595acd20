"""Stateful fuzzing of ``sim.hand.Hand`` with hypothesis.

A ``RuleBasedStateMachine`` deals a hand from a random table (structure, 2..10 seats, blinds,
antes of every mode with and without trimming, stacks from 0 (sitting out) and 1 chip up, a random
deck, rake settings, automatic or manual showdown) and then applies random legal actions and random
illegal ones (wrong seat, fold when checking is free, raise below the minimum / above the maximum /
when raising is closed, acting after the end, show/muck during betting, betting or mucking a hand
that must be shown at showdown, a LEAVE of a seat not in the hand), and LEAVEs of seats still in
the hand at anyone's turn. When a hand ends the next one is dealt from the final stacks with
the button moved on, so chips are also followed across hands.

Invariants after every step:
- chips: per seat ``stack == start - contributed + won`` (``contributed`` is after uncalled chips
  are returned); in total ``sum(start) == sum(stacks) + sum(contributed)`` while the hand runs and
  ``sum(start) == sum(stacks) + rake`` once it is complete; the records add up to the same
  contributions, returns and wins;
- no negative stack, bet or contribution;
- legal actions consistent: the seat to act is active with chips, ``can_check`` xor
  ``can_fold``, ``call_amount`` within the stack, raise range ordered, above the current bet, at
  most all-in (no-limit: exactly all-in; fixed-limit: one amount);
- the cards dealt are the deck in order (2 hole cards per player, burns, board by street);
- a rejected action raises ``IllegalAction`` (a ``ValueError``) naming the seat and leaves
  ``state_array`` byte-identical and the records unchanged;
- at completion: winners are eligible, eligible seats did not fold, pots add up to the
  contributions, each pot is paid in full (minus its rake) to its winners with odd chips to the
  first winners clockwise from the button, rake follows basis points / cap / no-flop-no-drop, and
  with automatic showdown the winners hold the best shown hand and no better hand was mucked, and
  every live hand is shown when at most one of them had chips behind (an all-in showdown);
- a LEAVE kills the seat's hand (it wins nothing) and gives back at once the part of its bet no
  other contribution covers.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from sim import layout as L
from sim.config import AnteMode, Structure, TableConfig
from sim.evaluator import evaluate
from sim.hand import Action, Hand, IllegalAction, standard_positions
from sim.layout import ActionKind, EventKind, SeatStatus, Street

COVERAGE: Counter = Counter()  # what the machine exercised, checked by the tests below

PUT_EVENTS = (EventKind.ANTE, EventKind.SMALL_BLIND, EventKind.BIG_BLIND, EventKind.CALL,
              EventKind.BET, EventKind.RAISE)
BOARD_SIZE = {Street.PREFLOP: 0, Street.FLOP: 3, Street.TURN: 4, Street.RIVER: 5,
              Street.SHOWDOWN: 5}


@st.composite
def tables(draw) -> TableConfig:
    n = draw(st.integers(2, 10))
    structure = draw(st.sampled_from(list(Structure)))
    sb = draw(st.sampled_from([1, 1, 2, 3, 5, 10]))
    bb = draw(st.sampled_from([sb, 2 * sb, 2 * sb, 3 * sb, sb + 1]))
    mode = draw(st.sampled_from(list(AnteMode)))
    ante = 0 if mode == AnteMode.NONE else draw(st.integers(1, 2 * bb))
    rake_bps = draw(st.sampled_from([0, 0, 250, 500, 1000, 10000]))
    return TableConfig(
        n_seats=n, structure=structure, small_blind=sb, big_blind=bb, ante=ante, ante_mode=mode,
        ante_trimming=draw(st.booleans()),
        small_bet=draw(st.sampled_from([0, 0, bb, 2 * bb])),
        big_bet=draw(st.sampled_from([0, 0, 4 * bb])),
        raise_cap=draw(st.integers(1, 5)),
        min_bet=draw(st.sampled_from([0, 0, 1, bb, 3 * bb])),
        rake_bps=rake_bps,
        rake_cap=draw(st.sampled_from([0, 0, 1, 5, 30])),
        no_flop_no_drop=draw(st.booleans()),
    )


def stack_values(bb: int, ante: int) -> st.SearchStrategy[int]:
    return st.one_of(
        st.just(0),  # sitting out
        st.integers(1, ante + bb + 1),  # all-in on the ante or the blind
        st.integers(1, 6 * bb),
        st.integers(10 * bb, 300 * bb),
    )


class HandMachine(RuleBasedStateMachine):
    hand: Hand
    auto: bool

    # ---------------- setup ----------------
    @initialize(config=tables(), data=st.data())
    def deal_first_hand(self, config: TableConfig, data: st.DataObject) -> None:
        n = config.n_seats
        stacks = data.draw(st.lists(stack_values(config.big_blind, config.ante),
                                    min_size=n, max_size=n), label="stacks")
        occupied = [s for s in range(n) if stacks[s] > 0]
        while len(occupied) < 2:  # a hand needs two players with chips
            s = data.draw(st.sampled_from([s for s in range(n) if stacks[s] == 0]),
                          label="extra player")
            stacks[s] = data.draw(st.integers(1, 50 * config.big_blind), label="extra stack")
            occupied = [s for s in range(n) if stacks[s] > 0]
        # heads-up the button must hold a player; otherwise a dead (empty) button is fine
        button = data.draw(st.sampled_from(occupied if len(occupied) == 2 else range(n)),
                           label="button")
        self.auto = data.draw(st.booleans(), label="auto_showdown")
        self.config = config
        self.hands_played = 0
        self.total_chips = sum(stacks)
        self._deal(stacks, button, data)

    def _deal(self, stacks: list[int], button: int, data: st.DataObject) -> None:
        deck = data.draw(st.permutations(range(52)), label="deck")
        sb, bb = standard_positions([v > 0 for v in stacks], button)
        if sum(v > 0 for v in stacks) >= 3 and data.draw(st.booleans(), label="dead sb"):
            sb = -1  # dead small blind (the player who would post it left)
        self.hand = Hand(self.config, stacks, button=button, sb_seat=sb, bb_seat=bb, deck=deck,
                         hand_id=self.hands_played, auto_showdown=self.auto)
        self.start = list(stacks)
        self.hands_played += 1
        self.checked_complete = False

    # ---------------- legal actions ----------------
    @precondition(lambda self: not self.hand.is_complete)
    @rule(data=st.data())
    def legal_action(self, data: st.DataObject) -> None:
        la = self.hand.legal_actions()
        if la.showdown:
            kinds = ["show"] + (["muck"] if la.can_muck else [])
        else:
            kinds = (["fold"] if la.can_fold else []) + ["check_call"]
            kinds += ["raise_min", "raise_max", "raise_any"] if la.can_raise else []
        kind = data.draw(st.sampled_from(kinds), label="legal kind")
        COVERAGE[f"legal: {kind}"] += 1
        s = la.seat
        if kind == "show":
            action = Action.show(s)
        elif kind == "muck":
            action = Action.muck(s)
        elif kind == "fold":
            action = Action.fold(s)
        elif kind == "check_call":
            action = Action.check_call(s)
        else:
            amount = {"raise_min": la.min_raise_to, "raise_max": la.max_raise_to}.get(kind)
            if amount is None:
                amount = data.draw(st.integers(la.min_raise_to, la.max_raise_to), label="to")
            action = Action.raise_to(s, amount)
        # a copy is independent: acting on it leaves this hand alone
        snapshot = self.hand.state_array
        other = self.hand.copy()
        other.apply(Action.show(s) if la.showdown else Action.check_call(s))
        assert np.array_equal(self.hand.state_array, snapshot)
        before = len(self._records())
        new = self.hand.apply(action)
        assert self.hand.records[before:] == new
        assert new and new[0].seat == s
        self._fresh_state_checks(data)

    @precondition(lambda self: not self.hand.is_complete and self.hand.street != Street.SHOWDOWN)
    @rule(data=st.data())
    def leave(self, data: st.DataObject) -> None:
        """A seat still in the hand leaves (disconnects) at anyone's turn: its hand is dead and
        the part of its bet nobody covered comes back to it at once."""
        if data.draw(st.integers(0, 3), label="leave now") != 0:
            return  # rarer than the betting actions: hands still reach their showdowns
        h = self.hand
        live = [s for s in range(self.config.n_seats)
                if h.statuses[s] in (SeatStatus.ACTIVE, SeatStatus.ALL_IN)]
        s = data.draw(st.sampled_from(live), label="leaver")
        mine, bet, trim = h.contributed[s], h.bets[s], self.config.ante_trimming
        dead = [0 if trim else d for d in h.dead_paid]
        others = max(c - dead[t] for t, c in enumerate(h.contributed) if t != s)
        back = max(0, min(mine - dead[s] - others, bet))
        stack = h.stacks[s]
        COVERAGE["legal: leave"] += 1
        COVERAGE["leave: uncovered bet returned"] += back > 0
        new = h.apply(Action.leave(s))
        assert new[0].kind == EventKind.LEAVE and new[0].seat == s
        if back:
            assert new[1].kind == EventKind.RETURN_UNCALLED and new[1].added == back
        assert h.stacks[s] == stack + back and h.statuses[s] == SeatStatus.FOLDED
        assert h.won[s] == 0
        self._fresh_state_checks(data)

    def _fresh_state_checks(self, data: st.DataObject) -> None:
        """Right after an action, before anything queried the new state: a rejected action and
        the legal-actions query itself must both leave ``state_array`` as it was."""
        h = self.hand
        if h.is_complete:
            return
        snapshot = h.state_array
        s = h.to_act
        if h.street != Street.SHOWDOWN:
            # more than all-in is illegal whatever the legal range is: no query needed
            over = h.bets[s] + h.stacks[s] + data.draw(st.integers(1, 1000), label="over")
            self._reject(Action.raise_to(s, over), "above all-in, fresh state")
        h.legal_actions()
        after = h.state_array
        assert np.array_equal(after, snapshot), (
            f"legal_actions() changed state_array at {np.nonzero(after != snapshot)[0]}")

    @precondition(lambda self: self.hand.is_complete)
    @rule(data=st.data())
    def next_hand(self, data: st.DataObject) -> None:
        stacks = self.hand.stacks
        n = self.config.n_seats
        for s in range(n):  # some busted players buy in again
            if stacks[s] == 0 and data.draw(st.booleans(), label=f"rebuy {s}"):
                stacks[s] = data.draw(st.integers(1, 100 * self.config.big_blind), label="buy")
        occupied = [s for s in range(n) if stacks[s] > 0]
        if len(occupied) < 2:
            return
        b = self.hand.button
        button = next(s for s in ((b + i) % n for i in range(1, n + 1)) if stacks[s] > 0)
        self.total_chips = sum(stacks)
        self._deal(stacks, button, data)

    # ---------------- illegal actions ----------------
    def _reject(self, action: Action, why: str) -> None:
        hand = self.hand
        S = hand.state_array  # taken before any query: the rejection alone must change nothing
        records = self._records()
        try:
            hand.apply(action)
        except IllegalAction as e:
            assert isinstance(e, ValueError)
            assert f"seat {action.seat}" in str(e), str(e)
        else:
            raise AssertionError(f"{why}: {action} was accepted")
        after = hand.state_array
        assert after.tobytes() == S.tobytes(), (
            f"{why}: {action} changed state_array at {np.nonzero(after != S)[0]}")
        assert hand.records == records, f"{why}: records changed"
        COVERAGE[f"rejected: {why}"] += 1

    @rule(data=st.data())
    def illegal_action(self, data: st.DataObject) -> None:
        hand = self.hand
        cases = ["out of turn", "hand complete" if hand.is_complete else "illegal in turn",
                 "leave of a seat not in the hand"]
        why = data.draw(st.sampled_from(cases), label="illegal case")
        if why == "leave of a seat not in the hand":
            gone = [s for s in range(-1, 12) if not 0 <= s < self.config.n_seats
                    or hand.statuses[s] not in (SeatStatus.ACTIVE, SeatStatus.ALL_IN)
                    or hand.street == Street.SHOWDOWN]  # at showdown nobody may leave
            action = Action.leave(data.draw(st.sampled_from(gone), label="seat"))
        elif why == "out of turn":
            to_act = hand.to_act
            seat = data.draw(st.integers(-1, 11).filter(lambda s: s != to_act), label="seat")
            kind = data.draw(st.sampled_from([k for k in ActionKind if k != ActionKind.LEAVE]),
                             label="kind")
            action = Action(seat, kind, data.draw(st.integers(0, 10_000), label="amount"))
        elif why == "hand complete":
            seat = data.draw(st.integers(0, self.config.n_seats - 1), label="seat")
            kind = data.draw(st.sampled_from(list(ActionKind)), label="kind")
            action = Action(seat, kind, data.draw(st.integers(0, 1000), label="amount"))
        else:
            action = data.draw(self._illegal_in_turn(data), label="illegal")
        self._reject(action, why)

    def _illegal_in_turn(self, data: st.DataObject) -> st.SearchStrategy[Action]:
        la = self.hand.legal_actions()
        s = la.seat
        if la.showdown:
            options = [Action.fold(s), Action.check_call(s),
                       Action.raise_to(s, data.draw(st.integers(0, 10_000), label="to"))]
            if not la.can_muck:
                options.append(Action.muck(s))
        else:
            options = [Action.show(s), Action.muck(s)]
            if la.can_check:
                options.append(Action.fold(s))
            if la.can_raise:
                options.append(Action.raise_to(
                    s, data.draw(st.integers(-5, la.min_raise_to - 1), label="below min")))
                options.append(Action.raise_to(
                    s, data.draw(st.integers(la.max_raise_to + 1, la.max_raise_to + 10_000),
                                 label="above max")))
            else:
                options.append(Action.raise_to(s, data.draw(st.integers(-5, 100_000))))
        return st.sampled_from(options)

    # ---------------- invariants ----------------
    def _records(self) -> tuple:
        """The hand's records, rebuilt only when the log grew (the invariants share them)."""
        key = (id(self.hand), int(self.hand.state_array[L.N_LOG]))
        if getattr(self, "_rec_key", None) != key:
            self._rec_key = key
            self._rec = self.hand.records
        return self._rec

    @invariant()
    def chips_are_conserved(self) -> None:
        h = self.hand
        n = self.config.n_seats
        stacks, contrib, won, ret = h.stacks, h.contributed, h.won, h.returned
        assert h.starting_stacks == self.start
        assert sum(self.start) == self.total_chips
        for s in range(n):
            assert stacks[s] >= 0 and contrib[s] >= 0 and won[s] >= 0 and ret[s] >= 0, s
            assert stacks[s] == self.start[s] - contrib[s] + won[s], s
            assert h.bets[s] >= 0 and h.bets[s] <= contrib[s], s
        if h.is_complete:
            assert sum(self.start) == sum(stacks) + h.rake
        else:
            assert sum(won) == 0
            assert h.rake == 0 or h.street == Street.SHOWDOWN  # pots are built at showdown
            assert sum(self.start) == sum(stacks) + sum(contrib)
        put = [0] * n
        returned = [0] * n
        wins = [0] * n
        for r in self._records():
            if r.kind in PUT_EVENTS:
                put[r.seat] += r.added
            elif r.kind == EventKind.RETURN_UNCALLED:
                returned[r.seat] += r.added
            elif r.kind == EventKind.WIN:
                wins[r.seat] += r.added
        assert [p - q for p, q in zip(put, returned, strict=True)] == contrib
        assert returned == ret
        assert wins == won

    @invariant()
    def records_are_ordered(self) -> None:
        seqs = [r.seq for r in self._records()]
        assert seqs == list(range(len(seqs)))

    @invariant()
    def cards_follow_the_deck(self) -> None:
        h = self.hand
        n = self.config.n_seats
        deck = h.deck
        dealt = [r.card for r in self._records()
                 if r.kind in (EventKind.DEAL_HOLE, EventKind.BURN, EventKind.DEAL_BOARD)]
        assert dealt == deck[: len(dealt)]
        players = [s for s in range(n) if self.start[s] > 0]
        first = next(s for s in ((h.button + i) % n for i in range(1, n + 1)) if s in players)
        order = [(first + i) % n for i in range(n) if (first + i) % n in players]
        holes = [c for r in self._records() if r.kind == EventKind.DEAL_HOLE for c in [r.card]]
        assert holes == [h.hole_cards(s)[k] for k in range(2) for s in order]
        assert len(h.board) == [r.kind for r in self._records()].count(EventKind.DEAL_BOARD)
        if not h.is_complete:
            assert len(h.board) == BOARD_SIZE[h.street]

    @invariant()
    def legal_actions_are_consistent(self) -> None:
        h = self.hand
        la = h.legal_actions()
        if h.is_complete:
            assert la.seat == -1 and h.to_act == -1
            return
        s = la.seat
        assert 0 <= s < self.config.n_seats and s == h.to_act
        status = h.statuses[s]
        if la.showdown:
            assert h.street == Street.SHOWDOWN and not self.auto
            assert status in (SeatStatus.ACTIVE, SeatStatus.ALL_IN)
            assert not (la.can_fold or la.can_raise or la.call_amount)
            return
        assert status == SeatStatus.ACTIVE and h.stacks[s] > 0
        bets = h.bets
        cur = max(bets)
        assert la.can_check != la.can_fold
        assert la.can_check == (bets[s] == cur)
        assert la.call_amount == min(cur - bets[s], h.stacks[s])
        all_in_to = bets[s] + h.stacks[s]
        if la.can_raise:
            assert cur < la.min_raise_to <= la.max_raise_to <= all_in_to
            assert all_in_to > cur
            if self.config.structure == Structure.NO_LIMIT:
                assert la.max_raise_to == all_in_to
            elif self.config.structure == Structure.FIXED_LIMIT:
                assert la.min_raise_to == la.max_raise_to
        else:
            assert la.min_raise_to == la.max_raise_to == 0

    @invariant()
    def completed_hand_is_paid_correctly(self) -> None:
        h = self.hand
        if not h.is_complete or self.checked_complete:
            return
        self.checked_complete = True
        cfg = self.config
        n = cfg.n_seats
        pots = h.pots
        live = [s for s in range(n)
                if h.statuses[s] in (SeatStatus.ACTIVE, SeatStatus.ALL_IN)]
        assert pots and live
        assert sum(p.amount for p in pots) == sum(h.contributed)
        assert sum(p.rake for p in pots) == h.rake
        total = sum(p.amount for p in pots)
        expected_rake = 0
        if cfg.rake_bps and (len(h.board) >= 3 or not cfg.no_flop_no_drop):
            expected_rake = total * cfg.rake_bps // 10000
            if cfg.rake_cap:
                expected_rake = min(expected_rake, cfg.rake_cap)
        assert h.rake == expected_rake
        assert cfg.rake_cap == 0 or h.rake <= cfg.rake_cap
        wins_by_pot: dict[int, list[tuple[int, int]]] = {}
        for r in self._records():
            if r.kind == EventKind.WIN:
                wins_by_pot.setdefault(r.pot, []).append((r.seat, r.added))
        contested = len(live) > 1
        COVERAGE["hands: showdown" if contested else "hands: uncontested"] += 1
        COVERAGE[f"hands: {cfg.structure.label}"] += 1
        COVERAGE["hands: side pots"] += len(pots) > 1
        COVERAGE["hands: raked"] += h.rake > 0
        for p, pot in enumerate(pots):
            assert 0 <= pot.rake <= pot.amount
            assert set(pot.eligible) <= set(live), (p, pot)
            assert set(pot.winners) <= set(pot.eligible), (p, pot)
            net = pot.amount - pot.rake
            paid = wins_by_pot.get(p, [])
            assert sum(a for _, a in paid) == net, (p, pot, paid)
            if net == 0:
                continue
            assert pot.winners
            k = len(pot.winners)
            share, odd = divmod(net, k)
            order = [(h.button + i) % n for i in range(1, n + 1)]
            ws = [s for s in order if s in pot.winners]
            want = {s: share + (1 if j < odd else 0) for j, s in enumerate(ws)}
            assert dict(paid) == want, (p, pot, paid)
            if not contested:
                continue
            shown = [s for s in pot.eligible if h.shown[s] == 1]
            if len(pot.eligible) == 1:
                assert pot.winners == pot.eligible
                continue
            strength = {s: evaluate(list(h.hole_cards(s)) + h.board) for s in pot.eligible}
            for s in shown:
                assert h.strengths[s] == strength[s]
            best = max(strength[s] for s in shown)
            assert all(s in shown and strength[s] == best for s in pot.winners), (p, pot)
            assert set(pot.winners) == {s for s in shown if strength[s] == best}
            if self.auto:
                assert all(strength[s] <= best for s in pot.eligible), (p, pot)
        if contested:
            assert len(h.board) == 5
            assert all(h.shown[s] in (0, 1) for s in live)
            behind = [s for s in live if h.stacks[s] - h.won[s] > 0]
            if self.auto and len(behind) <= 1:  # an all-in showdown: every hand face up
                COVERAGE["hands: all-in showdown"] += 1
                assert all(h.shown[s] == 1 for s in live), h.shown
        else:
            assert all(p.winners == (live[0],) or p.amount == p.rake for p in pots)


FAST = settings(max_examples=200, stateful_step_count=60, deadline=None,
                suppress_health_check=list(HealthCheck))
LARGE = settings(max_examples=600, stateful_step_count=120, deadline=None,
                 suppress_health_check=list(HealthCheck))


def _run(profile: settings) -> None:
    COVERAGE.clear()
    run_state_machine_as_test(HandMachine, settings=profile)
    print("\n" + ", ".join(f"{k}={v}" for k, v in sorted(COVERAGE.items())))
    for key in ("hands: showdown", "hands: uncontested", "hands: side pots", "hands: raked",
                "legal: show", "legal: muck", "legal: fold", "legal: raise_any",
                "rejected: out of turn", "rejected: illegal in turn", "rejected: hand complete",
                "legal: leave", "leave: uncovered bet returned", "hands: all-in showdown",
                "rejected: leave of a seat not in the hand"):
        assert COVERAGE[key] > 0, key


def test_hand_state_machine() -> None:
    _run(FAST)


@pytest.mark.slow
def test_hand_state_machine_large() -> None:
    _run(LARGE)

