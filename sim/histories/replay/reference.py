"""Replay PHH hands through our engine and check their finishing stacks.

Mapping (PHH player i is our seat i):
- 3+ players: seat 0 posts the small blind, seat 1 the big blind, the last seat has the button;
- heads-up (the standard reverse-assigns the forced bets): p1 = seat 0 posts the big blind (and
  ``antes[1]``), p2 = seat 1 is the button and posts the small blind (and ``antes[0]``).

Amounts: the engine counts whole units. ``replay(..., minor_units=True)`` (``holdem phh verify``)
replays a hand with decimals (cents) in its own minor units (``PhhHand.in_minor_units``;
``ReplayResult.scale`` says which); an import converts its hands to the run's unit first.

Blinds (``blinds_or_straddles``, what the sites' own finishing stacks show; docs/import.md):
- entry 0 the small blind (0: none, a dead small blind), entry 1 the big blind;
- "one blind only" (ABS, Ongame, Full Tilt): entry 0 > 0, entry 1 == 0 and entry 0 == min_bet:
  p1 posts the BIG blind, the small blind is dead;
- a negative entry v at a later player = a post by a returning player: |v| == big blind is a
  LIVE big blind (on the street; the poster keeps the option), |v| < big blind is DEAD money (in
  the pot, never toward a call), |v| > big blind is both (big blind live + the rest dead). PokerKit
  reads every negative entry as a live post; Ongame's finishing stacks say otherwise
  (ong/1000nl-handhq_1 [2]: a -5 at 5/10 is dead; ong/600nl-handhq_1 [9]: a -6 at 3/6 is live);
- a positive entry after the big blind (a straddle), a post by a blind's own seat or of more
  than two big blinds, a heads-up hand whose big blind is smaller than its small blind
  (pty/25nl-handhq_2 [68]: which player had the button is not in the record) or with one blind
  only: skipped with a named reason.

Unknown stacks (``inf``, iPoker): replayed with a stand-in stack, ``STAND_IN_FLOOR`` units plus
every amount the record names (so it never limits an action); ``ReplayResult.stack_known`` marks
them (the row's ``stack_known``). When the record's actions end while a seat must still act (an
all-in the record does not write), the hand is replayed once more with each live unknown stack
equal to what it put in (``_unsaid_all_ins``).

Our engine deals hole cards one at a time clockwise from the first seat left of the button (seat
0 in both cases), two rounds, then burn, flop (3), burn, turn, burn, river. ``replay`` places the
known hole cards (dealt, or revealed by a show) and board cards at those deck positions and fills
unknown cards and burns with unused cards, in ascending order.

Actions: ``f`` folds (also while checking is free: sites allow it and the rules texts do not
forbid it; the replay sets the engine's ``free_fold`` flag, which the simulator never sets, and
counts them in ``ReplayResult.free_folds``), ``cc`` checks or calls, ``cbr X`` raises to the
street total X; ``d dh`` is already in the deck; at ``d db`` the engine must have dealt at least
as many board cards, and a betting action must happen on the street the file has dealt. ``sm``
decisions may come anywhere after the deal (even before the last board cards when players are
all-in); when the engine reaches its showdown they are applied in the engine's order: a seat with
a bare ``pN sm`` mucks, every other seat shows (cards speak: a hand that reaches showdown without
``sm`` shows its dealt cards). A seat whose cards are not in the record (``pN sm ????``, or no
``sm`` and unknown cards) is *unrecorded* (``ReplayResult.cards_unrecorded``): it mucks where the
rules allow a muck, else (the last contender of a pot) it shows the deck's stand-in cards, so
the winners of a pot it contests are not proven by the record. At the end the engine's board must
equal the file's ``d db`` cards.

Verdict of one hand (``ReplayResult.ok``): it replays without error and, when the file has
``finishing_stacks``, our stacks equal them; a hand that cannot be replayed has a short named
``kind`` (``KINDS``); hands of other games (or with straddles other than one by p3 above the big
blind without posts, which the engine plays: ``sim.engine.start_hand_straddle``) are
``unsupported``.
``holdem phh verify`` (``cluster/flows/verify_histories.py``) replays files and folders and tallies
the
verdicts by kind.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from typing import Any

from sim import engine
from sim import layout as L
from sim.cards import BOARD_CARDS, HOLE_CARDS, N_CARDS, format_card, format_cards
from sim.config import MAX_SEATS, TableConfig
from sim.dealing import BOARD_BY_STREET, deck_positions
from sim.hand import Action, Hand, IllegalAction
from sim.histories.read.phh import SUPPORTED_VARIANTS, PhhAction, PhhError, PhhHand, format_amounts
from sim.layout import ActionKind, Err, SeatStatus, Street

__all__ = ["FOLD_CHECK_FREE", "KINDS", "MAX_CHIPS", "STAND_IN_FLOOR", "ReplayResult", "replay"]

FOLD_CHECK_FREE = "fold while checking is free"
_FOLD, _CHECK_CALL, _BET_RAISE = (int(ActionKind.FOLD), int(ActionKind.CHECK_CALL),
                                  int(ActionKind.BET_RAISE))
STAND_IN_FLOOR = 10**12  # units of an unknown stack's stand-in, before the record's amounts
# the chips in play (the starting stacks, stand-ins included) must stay below this: the
# engine's pots and stacks are int64 (more would wrap silently: a negative pot)
MAX_CHIPS = 1 << 62
# the short named kinds of a hand that does not replay (ReplayResult.kind)
K_UNSUPPORTED = "unsupported"  # another variant, straddles, too many players
K_MONEY = "amount not representable"
K_BLINDS = "blinds not understood"
K_REVERSED_HU = "heads-up blinds reversed"
K_CARDS = "cards inconsistent"
K_ACTIONS = "action not legal"
K_SHOWDOWN = "showdown not replayable"
K_BOARD = "board differs"
K_SETUP = "hand not playable"
K_ENDS_EARLY = "actions end early"  # the record stops while a seat must still act
KINDS = (K_UNSUPPORTED, K_MONEY, K_BLINDS, K_REVERSED_HU, K_CARDS, K_ACTIONS, K_ENDS_EARLY,
         K_SHOWDOWN, K_BOARD, K_SETUP)


@dataclass(frozen=True)
class ReplayResult:
    """The outcome of replaying one PHH hand. ``actual`` is in PHH player order."""

    source: str
    key: str | None
    index: int  # position of the hand in its file
    variant: str
    ok: bool
    expected: list[int | Decimal] | None  # exact (sim.histories.read.phh: no float holds an amount)
    actual: list[int] | None
    error: str | None
    unsupported: bool = False
    hand: Hand | None = field(default=None, compare=False, repr=False)
    kind: str | None = None  # why it did not replay (KINDS), None when it did
    scale: int = 0  # the amounts (expected, actual) are in 10**-scale of the file's unit
    stack_known: tuple[bool, ...] = ()  # per player: False for an unknown (inf) stack
    cards_unrecorded: tuple[bool, ...] = ()  # per player: reached showdown, cards not recorded
    free_folds: int = 0  # folds while checking was free (sites allow them)
    posts: tuple[int, ...] = ()  # per player: chips posted live after the blinds
    dead: tuple[int, ...] = ()  # per player: chips posted dead

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
                "expected": exp, "actual": self.actual, "error": self.error, "kind": self.kind,
                "scale": self.scale}


class _ReplayError(Exception):
    def __init__(self, message: str, kind: str = K_ACTIONS, setup: _Setup | None = None,
                 ) -> None:
        super().__init__(message)
        self.kind = kind
        self.setup = setup  # the hand as far as it got (the actions ended too early)


@dataclass
class _Setup:
    """What ``_build`` prepares: the hand and what the play needs from the record."""

    hand: Hand
    hole: list[list[int]]
    board: list[int]
    decisions: dict[int, PhhAction]
    stack_known: tuple[bool, ...]
    posts: tuple[int, ...]
    dead: tuple[int, ...]
    unrecorded: list[bool] = field(default_factory=list)
    free_folds: int = 0



def _chips(v: Any, what: str) -> int:
    if not isinstance(v, int):  # a Decimal: fractional, or an unknown (inf) stack
        raise _ReplayError(f"{what} = {format_amounts([v])[1:-1]}: expected a whole number of "
                           "chips", K_MONEY)
    return v


def _all_chips(vals: Iterable[Any], name: str) -> list[int]:
    """``_chips`` of every value (``name[i]`` in the message of the first that is not)."""
    out = list(vals)
    for v in out:
        if type(v) is not int:
            return [_chips(v, f"{name}[{i}]") for i, v in enumerate(out)]
    return out


def _stand_in(phh: PhhHand) -> int:
    """An unknown stack's stand-in: more than the record ever puts in (never limits an action)."""
    total = sum(abs(v) for v in (*phh.antes, *(phh.blinds_or_straddles or ())) if isinstance(
        v, int))
    total += sum(a.amount for a in phh.actions if isinstance(a.amount, int))
    return STAND_IN_FLOOR + total


def _blinds(phh: PhhHand, n: int) -> tuple[int, int, int, int, list[int], list[int]]:
    """(small blind, big blind, sb seat, bb seat, live posts, dead posts) from
    ``blinds_or_straddles`` (module docstring); raises _ReplayError with a named kind."""
    raw = phh.blinds_or_straddles or (0,) * n
    blinds = _all_chips(raw, "blinds_or_straddles")
    shown = list(raw)
    sb, bb = blinds[0], blinds[1]
    if n == 2:
        if sb > 0 and bb == 0:
            raise _ReplayError(f"blinds_or_straddles {shown}: a heads-up hand with one blind "
                               "only", K_BLINDS)
        if bb < sb:
            raise _ReplayError(f"blinds_or_straddles {shown}: heads-up p1 posts {raw[1]}, less "
                               f"than p2's {raw[0]}: the record does not say who had the "
                               "button", K_REVERSED_HU)
        if sb < 0 or bb <= 0:
            raise _ReplayError(f"blinds_or_straddles {shown}: expected a small blind (or 0) and "
                               "a larger big blind", K_BLINDS)
        return sb, bb, 1, 0, [0, 0], [0, 0]
    live = [0] * n
    dead = [0] * n
    sb_seat, bb_seat = 0, 1
    min_bet = phh.min_bet if phh.variant != "FT" else phh.small_bet
    if sb > 0 and bb == 0 and sb == min_bet:  # one blind only: p1 posts the big blind
        sb, bb, sb_seat, bb_seat = 0, sb, -1, 0
    if sb < 0 or bb < 0:
        raise _ReplayError(f"blinds_or_straddles {shown}: a post by a blind's own seat",
                           K_BLINDS)
    if bb <= 0 or sb > bb:
        raise _ReplayError(f"blinds_or_straddles {shown}: expected a small blind (or 0) and a "
                           "larger big blind in the first two entries", K_BLINDS)
    if sb == 0 and bb_seat == 1:
        sb_seat = -1
    for i in range(2, n):
        v = blinds[i]
        if v > 0 and i == 2 and phh.plain_straddle:
            continue  # p3's straddle (_build)
        if v > 0:
            raise _ReplayError(f"blinds_or_straddles {shown}: a straddle (p{i + 1} posts "
                               f"{raw[i]}): not supported", K_UNSUPPORTED)
        a = -v
        if a > 2 * bb:
            raise _ReplayError(f"blinds_or_straddles {shown}: p{i + 1} posts {raw[i]}, more "
                               "than a big blind live and one dead", K_BLINDS)
        live[i] = bb if a >= bb else 0
        dead[i] = a - live[i]
    return sb, bb, sb_seat, bb_seat, live, dead


def _merge_shown(dealt: list[int], shown: Iterable[int], player: int, act: PhhAction) -> None:
    for c in shown:
        if c < 0 or c in dealt:
            continue
        if -1 not in dealt:
            raise _ReplayError(f"{act.describe()}: p{player + 1} shows {format_card(c)} but was "
                               f"dealt {format_cards(dealt)}", K_CARDS)
        dealt[dealt.index(-1)] = c


_ALL_CARDS = tuple(range(N_CARDS))

@lru_cache(maxsize=4096)
def _table_config(n: int, structure: Any, small_blind: int, big_blind: int,
                  ante_trimming: bool, kw: tuple[tuple[str, int], ...]) -> TableConfig:
    """The table of a replay (hands repeat their tables: built once; a ValueError is raised
    each time, lru_cache keeps no exceptions)."""
    extra: dict[str, Any] = dict(kw)
    return TableConfig(n_seats=n, structure=structure, small_blind=small_blind,
                       big_blind=big_blind, ante_trimming=ante_trimming, **extra)


def _build(phh: PhhHand, all_in: dict[int, int]) -> _Setup:
    n = phh.n_players
    if n > MAX_SEATS:
        raise _ReplayError(f"{n} players: our tables seat at most {MAX_SEATS}", K_UNSUPPORTED)
    unknown = set(phh.unknown_stacks)
    stand_in = _stand_in(phh) if unknown else 0
    stacks = ([all_in.get(i, stand_in) if i in unknown else _chips(v, f"starting_stacks[{i}]")
               for i, v in enumerate(phh.starting_stacks)] if unknown
              else _all_chips(phh.starting_stacks, "starting_stacks"))
    if any(s <= 0 for s in stacks):
        raise _ReplayError(f"starting_stacks {stacks}: expected every stack > 0", K_SETUP)
    if sum(stacks) >= MAX_CHIPS:
        raise _ReplayError(f"starting_stacks {stacks}: {sum(stacks)} units in play: expected "
                           f"less than {MAX_CHIPS} (the engine's 64-bit chip counts)", K_MONEY)
    sb, bb, sb_seat, bb_seat, live, dead = _blinds(phh, n)
    antes = _all_chips(phh.antes, "antes")
    button = n - 1
    if n == 2:
        antes.reverse()  # heads-up: p1 (big blind) posts antes[1]
        if sb == 0:
            sb_seat = -1
    structure = SUPPORTED_VARIANTS[phh.variant]
    kw: dict[str, Any] = {}
    if phh.variant == "FT":
        kw["small_bet"] = _chips(phh.small_bet, "small_bet")
        kw["big_bet"] = _chips(phh.big_bet, "big_bet")
    else:
        kw["min_bet"] = _chips(phh.min_bet, "min_bet")
    try:
        cfg = _table_config(n, structure, sb or bb, bb, phh.ante_trimming_status,
                            tuple(sorted(kw.items())))
    except ValueError as e:
        raise _ReplayError(f"cannot set up the table: {e}", K_SETUP) from None

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
                                   f"{len(hole[a.player])} hole cards: expected {HOLE_CARDS}",
                                   K_CARDS)
        elif a.verb == "db":
            board.extend(a.cards)
            if len(board) > BOARD_CARDS:
                raise _ReplayError(f"{a.describe()}: {len(board)} board cards: expected at most "
                                   f"{BOARD_CARDS} "
                                   "(running it more than once is not supported)", K_CARDS)
        elif a.verb in ("sd", "pb"):
            raise _ReplayError(f"{a.describe()}: {a.verb!r} is not an action of Texas hold'em",
                               K_UNSUPPORTED)
    for cards in hole:
        cards.extend([-1] * (HOLE_CARDS - len(cards)))
    for a in phh.actions:
        if a.verb == "sm":
            p = int(a.actor)
            decisions[p] = a
            if a.cards:
                if len(a.cards) > HOLE_CARDS:
                    raise _ReplayError(f"{a.describe()}: shows {len(a.cards)} cards: "
                                       f"expected {HOLE_CARDS}", K_CARDS)
                _merge_shown(hole[p], a.cards, p, a)

    # the deck: the engine's dealing order (sim.dealing; seat s is the s-th dealt, from the
    # first seat left of the button), unknown cards and burns filled in: the known cards at
    # their positions (a card twice: the first repeat in deck order is named), the spare
    # cards in ascending order in the other positions
    hole_at, _, board_at = deck_positions(n)
    placed: dict[int, int] = {}
    for s in range(n):
        at = hole_at[s]
        for r, c in enumerate(hole[s]):
            if c >= 0:
                placed[at[r]] = c
    for k, c in enumerate(board):
        if c >= 0:
            placed[board_at[k]] = c
    order = sorted(placed)
    seen: set[int] = set()
    for p in order:
        c = placed[p]
        if c in seen:
            raise _ReplayError(f"card {format_card(c)} appears twice", K_CARDS)
        seen.add(c)
    deck = list(_ALL_CARDS)  # deck[c] == c: the spare cards, ascending
    for c in sorted(seen, reverse=True):
        del deck[c]
    for p in order:
        deck.insert(p, placed[p])
    try:
        straddle = _chips(phh.blinds_or_straddles[2], "blinds_or_straddles[2]") \
            if phh.plain_straddle and phh.blinds_or_straddles else 0
        hand = Hand(cfg, stacks, button=button, sb_seat=sb_seat, bb_seat=bb_seat, deck=deck,
                    antes=antes, auto_showdown=False, posts=None if straddle else live,
                    dead=None if straddle else dead, free_fold=True, straddle=straddle,
                    straddle_raise="big_blind")  # the PHH standard's reading (docs/import.md)
    except ValueError as e:
        raise _ReplayError(f"cannot set up the hand: {e}", K_SETUP) from None
    return _Setup(hand, hole, board, decisions,
                  tuple(i not in unknown for i in range(n)), tuple(live), tuple(dead),
                  [False] * n)


_SEAT_RE = re.compile(r"^hand \d+: seat (\d+) ")


def _engine_message(e: Exception) -> str:
    return _SEAT_RE.sub(lambda m: f"p{int(m.group(1)) + 1} ", str(e))


def _play(phh: PhhHand, all_in: dict[int, int]) -> _Setup:
    st = _build(phh, all_in)
    hand, hole, board, decisions = st.hand, st.hole, st.board, st.decisions
    dealt = 0
    # the engine driven on its state arrays (no objects per action); any rejection is
    # re-applied through Hand.apply for its message (a rejected action changes nothing)
    S, log, lg, n = hand._S, hand._log, hand._lg, hand.config.n_seats
    status_at = L.STATUS_
    for a in phh.actions:
        verb = a.verb
        if verb == "db":
            dealt += len(a.cards)
            if int(S[L.N_BOARD]) < dealt:
                raise _ReplayError(
                    f"{a.describe()}: the file deals board card {dealt} but the engine has dealt "
                    f"{len(hand.board)}: betting is not over (p{hand.to_act + 1} to act: "
                    f"{hand.legal_actions().describe()})"
                )
            continue
        if verb != "f" and verb != "cc" and verb != "cbr":
            continue
        seat = int(a.actor)
        street = int(S[L.STREET])
        if verb == "cc":
            # a check that PokerKit writes and our engine has no turn for: the seat is the only
            # one who could still bet, every other player in the hand is all-in with the bets
            # matched, so betting is closed and the engine has already moved on (a later
            # street than the file has dealt, or the showdown): a no-op (docs/import.md)
            # (the street's test first: the seats are read only when it holds)
            if street >= Street.SHOWDOWN or int(S[L.N_BOARD]) > dealt:
                statuses = S[status_at:status_at + n].tolist()
                if (statuses[seat] == SeatStatus.ACTIVE
                        and statuses.count(SeatStatus.ACTIVE) == 1
                        and SeatStatus.ALL_IN in statuses):
                    continue
        if street >= Street.SHOWDOWN:
            over = "the hand is already over" if hand.is_complete else (
                "betting is over (the engine is at showdown)")
            raise _ReplayError(f"{a.describe()}: {over}")
        if BOARD_BY_STREET[street] != dealt:
            raise _ReplayError(
                f"{a.describe()}: the engine bets on the {Street(street).name.lower()} but the "
                f"file has dealt {dealt} board cards"
            )
        if int(S[L.TO_ACT]) != seat:
            raise _ReplayError(f"{a.describe()}: out of turn: p{hand.to_act + 1} is to act "
                               f"({hand.legal_actions().describe()})")
        if verb == "f":
            kind, amount = _FOLD, 0
            engine.legal(S, lg)
            if lg[L.LG_CAN_CHECK]:
                st.free_folds += 1  # FOLD_CHECK_FREE: allowed (module docstring)
        elif verb == "cc":
            kind, amount = _CHECK_CALL, 0
        else:
            if not isinstance(a.amount, int):
                raise _ReplayError(f"{a.describe()}: amount {a.amount}: expected whole chips",
                                   K_MONEY)
            kind, amount = _BET_RAISE, int(a.amount or 0)
        if engine.apply(S, log, kind, amount) != Err.OK:
            try:  # the same action through the checked entry point: its message
                hand.apply(Action(seat, ActionKind(kind), amount), records=False)
            except IllegalAction as e:
                raise _ReplayError(f"{a.describe()}: {_engine_message(e)}") from None
        if S[L.N_LOG] != S[L.SEQ]:
            hand._check_log()  # the record log is full: a RuntimeError, as Hand.apply

    # showdown, in the engine's order
    at_showdown = False
    while not hand.is_complete:
        la = hand.legal_actions()
        if not la.showdown:
            raise _ReplayError(f"the actions end before the hand is over: p{la.seat + 1} to act "
                               f"({la.describe()})", K_ENDS_EARLY, st)
        at_showdown = True
        seat = la.seat
        d = decisions.get(seat)
        if d is not None and d.is_muck:
            if not la.can_muck:
                raise _ReplayError(f"{d.describe()}: p{seat + 1} mucks but would leave a pot "
                                   "without a hand: the engine requires a show", K_SHOWDOWN)
            hand.apply(Action.muck(seat), records=False)
        elif -1 in hole[seat]:
            # unrecorded cards: a muck where the rules allow it, else the last contender shows
            # the stand-in cards (the pot's winners are not proven by the record)
            st.unrecorded[seat] = True
            hand.apply(Action.muck(seat) if la.can_muck else Action.show(seat), records=False)
        else:
            hand.apply(Action.show(seat), records=False)
    got = hand.board
    if len(got) != len(board):
        raise _ReplayError(f"the engine dealt {len(got)} board cards ({format_cards(got)}), the "
                           f"file {len(board)} ({format_cards(board)})", K_BOARD)
    for k, (c, dealt) in enumerate(zip(board, got, strict=True)):
        if c >= 0 and c != dealt:
            raise _ReplayError(f"board card {k + 1}: the engine dealt {format_card(dealt)}, the "
                               f"file {format_card(c)}", K_BOARD)
        if c < 0 and at_showdown:
            raise _ReplayError(f"board card {k + 1} is unknown but the hand reaches a showdown",
                               K_BOARD)
    return st


def _unsaid_all_ins(st: _Setup) -> dict[int, int]:
    """The record's actions ended while a seat still had to act: with unknown stacks that is an
    all-in the record does not say. The stand-ins of the live seats with unknown stacks become
    what each put in, so they are all-in at their last chip (the second and last try)."""
    hand = st.hand
    live = (SeatStatus.ACTIVE, SeatStatus.ALL_IN)
    return {s: c for s, (c, status, known) in enumerate(zip(
        hand.contributed, hand.statuses, st.stack_known, strict=True))
        if not known and status in live and c > 0}


def replay(phh: PhhHand, index: int = 0, *, minor_units: bool = False) -> ReplayResult:
    """Replay one PHH hand through the engine and compare its finishing stacks.

    ``minor_units``: a hand with decimal amounts is replayed in its own minor units
    (``in_minor_units()``; the result's ``scale``, ``expected`` and ``actual`` are in them; an
    import converts every hand to the run's unit itself first). Without it such a hand is a
    ``K_MONEY`` error. Never raises for a bad or unsupported hand: the result carries the error
    and its ``kind``."""
    def failed(expected: list[int | Decimal] | None, **kw: Any) -> ReplayResult:
        return ReplayResult(source=phh.source, key=phh.key, index=index, variant=phh.variant,
                            ok=False, expected=expected, actual=None, **kw)

    written = None if phh.finishing_stacks is None else list(phh.finishing_stacks)
    reason = phh.unsupported_reason
    if reason is not None:
        return failed(written, error=reason, unsupported=True, kind=K_UNSUPPORTED)
    scale = phh.scale if minor_units else 0
    if scale:
        try:
            phh = phh.in_minor_units()
        except PhhError as e:
            return failed(written, error=str(e), kind=K_MONEY)
        expected = list(phh.finishing_stacks) if phh.finishing_stacks is not None else None
    else:
        expected = written
    try:
        try:
            st = _play(phh, {})
        except _ReplayError as e:
            if e.setup is None or all(e.setup.stack_known):
                raise
            try:
                st = _play(phh, _unsaid_all_ins(e.setup))
            except _ReplayError:
                raise e from None  # the first try's reason
    except _ReplayError as e:
        return failed(expected, error=f"{phh.where}: {e}", kind=e.kind,
                      unsupported=e.kind == K_UNSUPPORTED, scale=scale)
    except RuntimeError:  # Hand._check_log: more events than the engine's record log holds
        return failed(expected, error=f"{phh.where}: more events than the engine's record log "
                      f"holds ({L.DEFAULT_LOG_ROWS} rows)", kind=K_SETUP, scale=scale)
    hand = st.hand
    actual = hand.stacks
    return ReplayResult(source=phh.source, key=phh.key, index=index, variant=phh.variant,
                        ok=expected is None or actual == expected, expected=expected,
                        actual=actual, error=None, hand=hand, scale=scale,
                        stack_known=st.stack_known, cards_unrecorded=tuple(st.unrecorded),
                        free_folds=st.free_folds, posts=st.posts, dead=st.dead)
