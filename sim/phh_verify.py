"""Replay PHH hands through our engine and check their finishing stacks.

Mapping (PHH player i is our seat i):
- 3+ players: seat 0 posts the small blind, seat 1 the big blind, the last seat has the button;
- heads-up (the standard reverse-assigns the forced bets): p1 = seat 0 posts the big blind (and
  ``antes[1]``), p2 = seat 1 is the button and posts the small blind (and ``antes[0]``).

Our engine deals hole cards one at a time clockwise from the first seat left of the button (seat
0 in both cases), two rounds, then burn, flop (3), burn, turn, burn, river. ``replay`` places the
known hole cards (dealt, or revealed by a show) and board cards at those deck positions and fills
unknown cards and burns with unused cards, in ascending order.

Actions: ``f`` folds, ``cc`` checks or calls, ``cbr X`` raises to the street total X; ``d dh`` is
already in the deck; at ``d db`` the engine must have dealt at least as many board cards, and a
betting action must happen on the street the file has dealt. ``sm`` decisions may come anywhere
after the deal (even before the last board cards when players are all-in); when the engine
reaches its showdown they are applied in the engine's order: a seat with a bare ``pN sm`` mucks,
every other seat shows (cards speak: a hand that reaches showdown without ``sm`` shows its dealt
cards), and a seat that must show with unknown cards is an error. At the end the engine's board
must equal the file's ``d db`` cards.

Verdict of one hand (``ReplayResult.ok``): it replays without error and, when the file has
``finishing_stacks``, our stacks equal them; hands of other games (or with straddles) are
``unsupported``. ``holdem phh verify`` (``cluster/phh_verify.py``) replays files and folders and
tallies the verdicts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from sim.cards import BOARD_CARDS, HOLE_CARDS, N_CARDS, format_card, format_cards
from sim.config import MAX_SEATS, TableConfig
from sim.dealing import BOARD_BY_STREET, deck_positions
from sim.hand import Action, Hand, IllegalAction
from sim.layout import SeatStatus, Street
from sim.phh import SUPPORTED_VARIANTS, PhhAction, PhhHand, format_amounts

__all__ = ["FOLD_CHECK_FREE", "ReplayResult", "replay"]

FOLD_CHECK_FREE = "fold while checking is free"


@dataclass(frozen=True)
class ReplayResult:
    """The outcome of replaying one PHH hand. ``actual`` is in PHH player order."""

    source: str
    key: str | None
    index: int  # position of the hand in its file
    variant: str
    ok: bool
    expected: list[int | Decimal] | None  # exact (sim.phh: no float holds an amount)
    actual: list[int] | None
    error: str | None
    unsupported: bool = False
    hand: Hand | None = field(default=None, compare=False, repr=False)

    @property
    def label(self) -> str | int:
        """The table key in a .phhs file, else the hand's index in its file."""
        return self.key if self.key is not None else self.index

    @property
    def mismatched(self) -> bool:
        return self.error is None and not self.ok

    def to_json(self) -> dict[str, Any]:
        """JSON values; a fractional expected amount is written as its JSON number (display
        only: 10162.5)."""
        exp = (None if self.expected is None else
               [v if isinstance(v, int) else float(v) for v in self.expected])
        return {"source": self.source, "hand": self.label, "ok": self.ok,
                "expected": exp, "actual": self.actual, "error": self.error}


class _ReplayError(Exception):
    pass



def _closed_check(hand: Hand, seat: int, dealt: int) -> bool:
    """True for a check that PokerKit writes and our engine has no turn for: the seat is the
    only one who could still bet, every other player in the hand is all-in with the bets
    matched, so betting is closed and the engine has already moved on (a later street than the
    file has dealt, or the showdown)."""
    statuses = hand.statuses
    if statuses[seat] != SeatStatus.ACTIVE:
        return False
    if any(st == SeatStatus.ACTIVE for s, st in enumerate(statuses) if s != seat):
        return False
    if not any(st == SeatStatus.ALL_IN for st in statuses):
        return False
    return hand.street >= Street.SHOWDOWN or len(hand.board) > dealt

def _chips(v: Any, what: str) -> int:
    if not isinstance(v, int):  # a Decimal: fractional, or an unknown (inf) stack
        raise _ReplayError(f"{what} = {format_amounts([v])[1:-1]}: expected a whole number of "
                           "chips")
    return v


def _merge_shown(dealt: list[int], shown: Iterable[int], player: int, act: PhhAction) -> None:
    for c in shown:
        if c < 0 or c in dealt:
            continue
        if -1 not in dealt:
            raise _ReplayError(f"{act.describe()}: p{player + 1} shows {format_card(c)} but was "
                               f"dealt {format_cards(dealt)}")
        dealt[dealt.index(-1)] = c


def _build(phh: PhhHand) -> tuple[Hand, list[list[int]], list[int], dict[int, PhhAction]]:
    n = phh.n_players
    if n > MAX_SEATS:
        raise _ReplayError(f"{n} players: our tables seat at most {MAX_SEATS}")
    stacks = [_chips(v, f"starting_stacks[{i}]") for i, v in enumerate(phh.starting_stacks)]
    if any(s <= 0 for s in stacks):
        raise _ReplayError(f"starting_stacks {stacks}: expected every stack > 0")
    blinds = phh.blinds_or_straddles or (0,) * n
    sb = _chips(blinds[0], "blinds_or_straddles[0]")
    bb = _chips(blinds[1], "blinds_or_straddles[1]")
    if bb <= 0 or sb > bb:
        raise _ReplayError(f"blinds_or_straddles {list(blinds)}: expected a small blind (or 0) "
                           "and a larger big blind in the first two entries")
    antes = [_chips(v, f"antes[{i}]") for i, v in enumerate(phh.antes)]
    if n == 2:
        antes.reverse()  # heads-up: p1 (big blind) posts antes[1]
        button, sb_seat, bb_seat = 1, 1, 0
    else:
        button, sb_seat, bb_seat = n - 1, 0, 1
    if sb == 0:
        sb_seat = -1
    structure = SUPPORTED_VARIANTS[phh.variant]
    kw: dict[str, Any] = {}
    if phh.variant == "FT":
        kw["small_bet"] = _chips(phh.small_bet, "small_bet")
        kw["big_bet"] = _chips(phh.big_bet, "big_bet")
    else:
        kw["min_bet"] = _chips(phh.min_bet, "min_bet")
    cfg = TableConfig(n_seats=n, structure=structure, small_blind=sb or bb, big_blind=bb,
                      ante_trimming=phh.ante_trimming_status, **kw)

    # cards: hole cards (dealt, completed by shows), board, show/muck decisions
    hole: list[list[int]] = [[] for _ in range(n)]
    board: list[int] = []
    decisions: dict[int, PhhAction] = {}
    for a in phh.actions:
        if a.verb == "dh":
            assert a.player is not None
            hole[a.player].extend(a.cards)
            if len(hole[a.player]) > HOLE_CARDS:
                raise _ReplayError(f"{a.describe()}: p{a.player + 1} dealt "
                                   f"{len(hole[a.player])} hole cards: expected {HOLE_CARDS}")
        elif a.verb == "db":
            board.extend(a.cards)
            if len(board) > BOARD_CARDS:
                raise _ReplayError(f"{a.describe()}: {len(board)} board cards: expected at most "
                                   f"{BOARD_CARDS} "
                                   "(running it more than once is not supported)")
        elif a.verb in ("sd", "pb"):
            raise _ReplayError(f"{a.describe()}: {a.verb!r} is not an action of Texas hold'em")
    for cards in hole:
        cards.extend([-1] * (HOLE_CARDS - len(cards)))
    for a in phh.actions:
        if a.verb == "sm":
            p = int(a.actor)
            decisions[p] = a
            if a.cards:
                if len(a.cards) > HOLE_CARDS:
                    raise _ReplayError(f"{a.describe()}: shows {len(a.cards)} cards: "
                                       f"expected {HOLE_CARDS}")
                _merge_shown(hole[p], a.cards, p, a)

    # the deck: the engine's dealing order (sim.dealing; seat s is the s-th dealt, from the
    # first seat left of the button), unknown cards and burns filled in
    deck = [-1] * N_CARDS
    hole_at, _, board_at = deck_positions(n)
    for s in range(n):
        for r, c in enumerate(hole[s]):
            deck[hole_at[s][r]] = c
    for k, c in enumerate(board):
        deck[board_at[k]] = c
    seen: set[int] = set()
    for c in deck:
        if c >= 0:
            if c in seen:
                raise _ReplayError(f"card {format_card(c)} appears twice")
            seen.add(c)
    spare = iter(c for c in range(N_CARDS) if c not in seen)
    deck = [c if c >= 0 else next(spare) for c in deck]
    try:
        hand = Hand(cfg, stacks, button=button, sb_seat=sb_seat, bb_seat=bb_seat, deck=deck,
                    antes=antes, auto_showdown=False)
    except ValueError as e:
        raise _ReplayError(f"cannot set up the hand: {e}") from None
    return hand, hole, board, decisions


_SEAT_RE = re.compile(r"^hand \d+: seat (\d+) ")


def _engine_message(e: Exception) -> str:
    return _SEAT_RE.sub(lambda m: f"p{int(m.group(1)) + 1} ", str(e))


def _play(phh: PhhHand) -> Hand:
    hand, hole, board, decisions = _build(phh)
    dealt = 0
    for a in phh.actions:
        if a.verb == "db":
            dealt += len(a.cards)
            if len(hand.board) < dealt:
                raise _ReplayError(
                    f"{a.describe()}: the file deals board card {dealt} but the engine has dealt "
                    f"{len(hand.board)}: betting is not over (p{hand.to_act + 1} to act: "
                    f"{hand.legal_actions().describe()})"
                )
            continue
        if a.verb not in ("f", "cc", "cbr"):
            continue
        seat = int(a.actor)
        street = hand.street
        if a.verb == "cc" and _closed_check(hand, seat, dealt):
            continue  # PokerKit's check when betting is already closed: a no-op (README)
        if street >= Street.SHOWDOWN:
            over = "the hand is already over" if hand.is_complete else (
                "betting is over (the engine is at showdown)")
            raise _ReplayError(f"{a.describe()}: {over}")
        if BOARD_BY_STREET[street] != dealt:
            raise _ReplayError(
                f"{a.describe()}: the engine bets on the {street.name.lower()} but the file "
                f"has dealt {dealt} board cards"
            )
        if hand.to_act != seat:
            raise _ReplayError(f"{a.describe()}: out of turn: p{hand.to_act + 1} is to act "
                               f"({hand.legal_actions().describe()})")
        if a.verb == "f":
            action = Action.fold(seat)
        elif a.verb == "cc":
            action = Action.check_call(seat)
        else:
            if not isinstance(a.amount, int):
                raise _ReplayError(f"{a.describe()}: amount {a.amount}: expected whole chips")
            action = Action.raise_to(seat, int(a.amount or 0))
        try:
            hand.apply(action)
        except IllegalAction as e:
            la = hand.legal_actions()
            if a.verb == "f" and la.can_check:
                raise _ReplayError(f"{a.describe()}: {FOLD_CHECK_FREE} (the engine forbids it; "
                                   f"legal: {la.describe()})") from None
            raise _ReplayError(f"{a.describe()}: {_engine_message(e)}") from None

    # showdown, in the engine's order
    at_showdown = False
    while not hand.is_complete:
        la = hand.legal_actions()
        if not la.showdown:
            raise _ReplayError(f"the actions end before the hand is over: p{la.seat + 1} to act "
                               f"({la.describe()})")
        at_showdown = True
        seat = la.seat
        d = decisions.get(seat)
        if d is not None and d.is_muck:
            if not la.can_muck:
                raise _ReplayError(f"{d.describe()}: p{seat + 1} mucks but would leave a pot "
                                   "without a hand: the engine requires a show")
            hand.apply(Action.muck(seat))
        else:
            if -1 in hole[seat]:
                why = (f"{d.describe()} does not reveal them" if d is not None
                       else "there is no sm action")
                raise _ReplayError(f"p{seat + 1} must show at showdown but the hole cards are "
                                   f"unknown ({why})")
            hand.apply(Action.show(seat))
    got = hand.board
    if len(got) != len(board):
        raise _ReplayError(f"the engine dealt {len(got)} board cards ({format_cards(got)}), the "
                           f"file {len(board)} ({format_cards(board)})")
    for k, (c, dealt) in enumerate(zip(board, got, strict=True)):
        if c >= 0 and c != dealt:
            raise _ReplayError(f"board card {k + 1}: the engine dealt {format_card(dealt)}, the "
                               f"file {format_card(c)}")
        if c < 0 and at_showdown:
            raise _ReplayError(f"board card {k + 1} is unknown but the hand reaches a showdown")
    return hand


def replay(phh: PhhHand, index: int = 0) -> ReplayResult:
    """Replay one PHH hand through the engine and compare its finishing stacks.

    Never raises for a bad or unsupported hand: the result carries the error."""
    expected = list(phh.finishing_stacks) if phh.finishing_stacks is not None else None
    base = ReplayResult(source=phh.source, key=phh.key, index=index, variant=phh.variant,
                        ok=False, expected=expected, actual=None, error=None)
    reason = phh.unsupported_reason
    if reason is not None:
        return replace(base, error=reason, unsupported=True)
    try:
        hand = _play(phh)
    except _ReplayError as e:
        return replace(base, error=f"{phh.where}: {e}")
    actual = hand.stacks
    return replace(base, ok=expected is None or actual == expected, actual=actual, hand=hand)

