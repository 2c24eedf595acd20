"""A hand with names: the Python face of the compiled engine (``sim.engine``).

``Hand`` validates its inputs, applies actions through the single entry point ``apply`` and
answers the single query ``legal_actions``; errors are ``IllegalAction`` / ``ValueError`` with a
message that names the seat, the action and the legal range. A rejected action leaves the hand
exactly as it was. Every applied action and forced event is a frozen ``Record``.

The deck is never dealt in order by accident: ``Hand`` takes either ``deck=`` (52 cards, as ints
or as text such as ``"As"``, ``sim.cards.cards_of``) or ``seed=`` (a deck shuffled from it by the
game's own Philox shuffle, ``sim.rng.hand_deck``: reproducible). Cards are shown as text in the
reprs and in ``Record.describe``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from audits.runfolder.errors import InputError
from sim import engine
from sim import layout as L
from sim.cards import BOARD_CARDS, HOLE_CARDS, cards_of, format_card, format_cards
from sim.config import STRADDLE_RAISES, TableConfig
from sim.dealing import deck_positions
from sim.evaluator import describe as describe_strength
from sim.layout import ActionKind, Err, EventKind, SeatStatus, Street
from sim.rng import hand_deck

_ALL_CARDS = list(range(52))
_SEED_MAX = 2**63 - 1  # as a run's --seed (sim.runspec); hand ids too (int64 in the log)
_CONFIG_BLOCKS: dict[tuple[TableConfig, bool], np.ndarray] = {}


class IllegalAction(InputError):
    """An action that the rules do not allow now; the hand is unchanged."""


@dataclass(frozen=True, slots=True)
class Action:
    """A player's action. ``amount`` is the street total after a bet or raise ("raise to")."""

    seat: int
    kind: ActionKind
    amount: int = 0

    @classmethod
    def fold(cls, seat: int) -> Action:
        return cls(seat, ActionKind.FOLD)

    @classmethod
    def check_call(cls, seat: int) -> Action:
        return cls(seat, ActionKind.CHECK_CALL)

    @classmethod
    def raise_to(cls, seat: int, to_street_total: int) -> Action:
        return cls(seat, ActionKind.BET_RAISE, to_street_total)

    @classmethod
    def show(cls, seat: int) -> Action:
        return cls(seat, ActionKind.SHOW)

    @classmethod
    def muck(cls, seat: int) -> Action:
        return cls(seat, ActionKind.MUCK)

    @classmethod
    def leave(cls, seat: int) -> Action:
        """Seat ``seat`` leaves the table or loses its connection (at anyone's turn, before the
        showdown): its hand is dead and its uncovered bet returns to it (``sim.engine._leave``)."""
        return cls(seat, ActionKind.LEAVE)

    def describe(self) -> str:
        if self.kind == ActionKind.BET_RAISE:
            return f"bet/raise to {self.amount}"
        return self.kind.name.lower().replace("_", "/")


@dataclass(frozen=True, slots=True, repr=False)
class Record:
    """One applied action or forced event, fit to be a log row (``card`` an int, as logged; its
    repr and ``describe`` show it as text)."""

    hand_id: int
    seq: int
    street: Street
    seat: int  # -1 for table events (burn, board, rake)
    kind: EventKind
    to_street_total: int  # the seat's street total after the event, in chips (0 if none)
    added: int  # chips moved: into the pot (antes, blinds, bets) or to the seat (returns, wins)
    card: int = -1  # dealt or burned card, -1 if none
    pot: int = -1  # pot index of a WIN, -1 otherwise
    strength: int = -1  # a SHOW's hand strength (sim.evaluator encoding), -1 otherwise

    def describe(self) -> str:
        """The record as one line, its card as text: ``"flop: table deal board Ah"``,
        ``"preflop: seat 2 big blind 2 (street total 2)"`` (chips put in or won), a shown
        hand's strength in words."""
        who = "table" if self.seat < 0 else f"seat {self.seat}"
        out = f"{self.street.name.lower()}: {who} {self.kind.name.lower().replace('_', ' ')}"
        if self.card >= 0:
            out += f" {format_card(self.card)}"
        if self.added:
            out += f" {self.added}"
        if self.pot >= 0:
            out += f" from pot {self.pot}"
        if self.to_street_total:
            out += f" (street total {self.to_street_total})"
        if self.strength >= 0:
            out += f" ({describe_strength(self.strength)})"
        return out

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v}" for k, v in (("card", format_card(self.card)),
                                                  ("pot", self.pot), ("strength", self.strength))
                        if v not in (-1, "??"))
        return (f"Record(hand_id={self.hand_id}, seq={self.seq}, street={self.street.name}, "
                f"seat={self.seat}, kind={self.kind.name}, "
                f"to_street_total={self.to_street_total}, added={self.added}{extra})")


@dataclass(frozen=True, slots=True)
class LegalActions:
    """What the seat to act may do. Raise amounts are street totals ("raise to")."""

    seat: int
    can_fold: bool
    can_check: bool
    call_amount: int
    can_raise: bool
    min_raise_to: int
    max_raise_to: int
    showdown: bool = False
    can_muck: bool = False

    def describe(self) -> str:
        if self.seat < 0:
            return "no action (hand complete)"
        if self.showdown:
            return "show" + (" or muck" if self.can_muck else " (cannot muck: hand may win)")
        parts = []
        if self.can_fold:
            parts.append("fold")
        parts.append("check" if self.can_check else f"call {self.call_amount}")
        if self.can_raise:
            rng = (f"{self.min_raise_to}" if self.min_raise_to == self.max_raise_to
                   else f"{self.min_raise_to}..{self.max_raise_to}")
            parts.append(f"raise to {rng}")
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class Pot:
    amount: int  # before rake
    rake: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]


def config_block(config: TableConfig, auto_showdown: bool = True, fault: int = 0) -> np.ndarray:
    """The config as the int64 block the compiled core copies into its state (``fault``: an
    injected fault code from sim.faults, 0 for the clean engine)."""
    cfg = np.zeros(L.CONFIG_BLOCK, dtype=np.int64)
    cfg[L.CONFIG_SIZE] = fault
    cfg[L.N_SEATS] = config.n_seats
    cfg[L.STRUCTURE] = int(config.structure)
    cfg[L.SMALL_BLIND] = config.small_blind
    cfg[L.BIG_BLIND] = config.big_blind
    cfg[L.ANTE_TRIM] = int(config.ante_trimming)
    cfg[L.SMALL_BET] = config.effective_small_bet
    cfg[L.BIG_BET] = config.effective_big_bet
    cfg[L.RAISE_CAP] = config.raise_cap
    cfg[L.MIN_BET] = config.effective_min_bet
    cfg[L.RAKE_BPS] = config.rake_bps
    cfg[L.RAKE_CAP] = config.rake_cap
    cfg[L.NO_FLOP_NO_DROP] = int(config.no_flop_no_drop)
    cfg[L.AUTO_SHOWDOWN] = int(auto_showdown)
    return cfg


def standard_positions(occupied: Sequence[bool], button: int) -> tuple[int, int]:
    """(sb_seat, bb_seat) for a moving button: the two occupied seats left of the button;
    heads-up the button posts the small blind."""
    n = len(occupied)
    seats = [(button + i) % n for i in range(1, n + 1) if occupied[(button + i) % n]]
    if len(seats) < 2:
        raise ValueError(f"a hand needs at least 2 players with chips, got {len(seats)}")
    if len(seats) == 2:
        if not occupied[button]:
            raise ValueError(f"heads-up: button seat {button} must hold a player")
        return button, seats[0]
    return seats[0], seats[1]


def _straddle_seat(config: TableConfig, occupied: Sequence[bool], sb_seat: int, bb_seat: int,
                   straddle: int, seat: int | None) -> int:
    """The straddler: ``seat`` if given, else the first seat with chips left of the big blind;
    checked (one-line ValueError): at least 3 players, a straddle above the big blind, a seat
    with chips that posts no blind."""
    n = len(occupied)
    if isinstance(straddle, bool) or int(straddle) != straddle or straddle <= config.big_blind:
        raise ValueError(f"straddle {straddle!r}: expected more chips than the big blind "
                         f"({config.big_blind})")
    if sum(occupied) < 3:
        raise ValueError(f"straddle: a hand of {sum(occupied)} players has no straddle "
                         "(expected at least 3)")
    if seat is None:
        seat = next((bb_seat + i) % n for i in range(1, n) if occupied[(bb_seat + i) % n])
    if not 0 <= seat < n or not occupied[seat] or seat in (sb_seat, bb_seat):
        raise ValueError(f"straddle seat {seat}: expected a seat with chips that posts no "
                         "blind")
    return seat


def _deck(deck: str | Sequence[int | str] | np.ndarray | None, seed: int | None,
          hand_id: int) -> np.ndarray:
    """The hand's 52 cards as int64: ``deck`` (ints or text) if given, else shuffled from
    ``seed`` (``sim.rng.hand_deck(seed, 0, hand_id)``); neither is a one-line ValueError."""
    if deck is None:
        if seed is None:
            raise ValueError("no cards: pass seed=N (a deck shuffled from it, reproducibly) or "
                             "deck= (52 cards, ints 0..51 or text such as 'As', 'Td')")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not (
                0 <= seed <= _SEED_MAX):
            raise ValueError(f"seed: {seed!r} is not a seed: expected an int 0..2**63-1")
        if isinstance(hand_id, bool) or not isinstance(hand_id, (int, np.integer)) or not (
                0 <= hand_id <= _SEED_MAX):
            raise ValueError(f"hand_id: {hand_id!r}: expected an int >= 0 (it selects the "
                             "seeded deck)")
        return hand_deck(int(seed), 0, int(hand_id))
    if isinstance(deck, np.ndarray) and deck.ndim == 1 and deck.dtype.kind in "iu":
        arr = deck.astype(np.int64)
        if arr.shape == (52,) and sorted(arr.tolist()) == _ALL_CARDS:
            return arr  # a whole deck of ints (the replays): checked at once
    elif isinstance(deck, list) and len(deck) == 52 and set(map(type, deck)) == {int} and (
            sorted(deck) == _ALL_CARDS):
        return np.asarray(deck, dtype=np.int64)
    cards = cards_of(deck, "deck")
    if len(cards) != 52:
        raise ValueError(f"deck: expected 52 cards, got {len(cards)}")
    if sorted(cards) != _ALL_CARDS:
        first: dict[int, int] = {}
        for i, c in enumerate(cards):
            if c in first:
                raise ValueError(f"deck[{i}]: {format_card(c)} is already deck[{first[c]}]: "
                                 "expected 52 distinct cards")
            first[c] = i
    return np.asarray(cards, dtype=np.int64)


def _hole_at(dealt: list[int], seat: int) -> list[int]:
    """The deck indices of ``seat``'s hole cards, ``dealt`` the seats in the dealing order."""
    hole, _, _ = deck_positions(len(dealt))
    return hole[dealt.index(seat)]


def _place(deck: np.ndarray, dealt: list[int], holes: Mapping[int, str | Sequence[int | str]],
           board: str | Sequence[int | str]) -> np.ndarray:
    """``deck`` with the ``holes`` and ``board`` cards put where the dealing order deals them,
    the other cards in the order ``deck`` had them."""
    wanted: list[tuple[str, int, int]] = []  # (argument, deck index, card)
    for seat, text in holes.items():
        if seat not in dealt:
            raise ValueError(f"holes: seat {seat} is not dealt cards (the seats with chips: "
                             f"{sorted(dealt)})")
        cards = cards_of(text, f"holes[{seat}]")
        if len(cards) != HOLE_CARDS:
            raise ValueError(f"holes[{seat}]: expected {HOLE_CARDS} cards, got {len(cards)}")
        wanted += [(f"holes[{seat}][{r}]", at, c)
                   for r, (at, c) in enumerate(zip(_hole_at(dealt, seat), cards, strict=True))]
    cards = cards_of(board, "board")
    if len(cards) > BOARD_CARDS:
        raise ValueError(f"board: expected at most {BOARD_CARDS} cards, got {len(cards)}")
    _, _, board_at = deck_positions(len(dealt))
    wanted += [(f"board[{k}]", board_at[k], c) for k, c in enumerate(cards)]
    placed: dict[int, int] = {}  # deck index -> card
    named: dict[int, str] = {}  # card -> the argument that named it first
    for name, at, c in wanted:
        if c in named:
            raise ValueError(f"{name}: {format_card(c)} is already {named[c]}")
        named[c] = name
        placed[at] = c
    rest = iter(c for c in deck.tolist() if c not in named)
    return np.asarray([placed[i] if i in placed else next(rest) for i in range(len(deck))],
                      dtype=np.int64)


def _per_seat(vals: Sequence[int] | None, n: int, name: str) -> list[int]:
    """A per-seat list of whole amounts >= 0 (zeros when None)."""
    if vals is None:
        return [0] * n
    out = [int(v) for v in vals] if len(vals) == n else []
    if len(vals) != n or out != list(vals) or (out and min(out) < 0):
        raise ValueError(f"{name}: expected {n} whole amounts >= 0, got {list(vals)}")
    return out


_ERR_TEXT = {
    Err.HAND_OVER: "the hand is complete",
    Err.NOT_BETTING: "the hand is at showdown: show or muck",
    Err.NOT_SHOWDOWN: "show/muck is only allowed at showdown",
    Err.CANNOT_FOLD: "nothing to call: check instead of folding",
    Err.CANNOT_RAISE: "raising is not allowed",
    Err.RAISE_TOO_SMALL: "amount below the minimum",
    Err.RAISE_TOO_LARGE: "amount above the maximum",
    Err.BAD_KIND: "unknown action kind",
    Err.CANNOT_MUCK: "this hand may still win a pot: it must be shown",
    Err.NOT_IN_HAND: "this seat is not in the hand (empty, folded or gone)",
}


class Hand:
    """One hand of Texas Hold'em from the blinds to the pot awards.

    The cards come from ``deck=`` or ``seed=``, one of them required (there is no default deck):

    - ``seed=N`` (an int 0 .. 2**63 - 1, as a run's ``--seed``): the deck is shuffled from it,
      reproducibly, by the game's own shuffle (``sim.rng.hand_deck(seed, 0, hand_id)``:
      Philox4x64 keyed by the seed, Fisher-Yates): the same ``seed`` and ``hand_id`` deal the
      same cards, another ``hand_id`` another deck (a loop of hands passes ``hand_id=i``).
    - ``deck=``: the 52 cards in dealing order, each an int 0..51 or text (``"As"``, ``"Td"``,
      ``"10d"``; rank 23456789TJQKA, suit cdhs, either case), mixed if need be, or one text of
      52 cards (``"As Kd ..."``). An explicit deck wins: ``seed`` is then not used
      (``hand.seed`` is the seed the deck came from, None for an explicit deck).

    ``holes={seat: "AsKd"}`` and ``board="Ah Kd 7c"`` (up to 5 cards, the flop first) put those
    cards where the dealing order deals them (``sim.dealing``); the other cards keep the order
    of the deck that ``deck=`` or ``seed=`` gives. Cards as in ``deck=``.
    """

    def __init__(
        self,
        config: TableConfig,
        stacks: Sequence[int],
        *,
        button: int = 0,
        sb_seat: int | None = None,
        bb_seat: int | None = None,
        deck: str | Sequence[int | str] | np.ndarray | None = None,
        seed: int | None = None,
        antes: Sequence[int] | None = None,
        hand_id: int = 0,
        auto_showdown: bool = True,
        log_rows: int = L.DEFAULT_LOG_ROWS,
        posts: Sequence[int] | None = None,
        dead: Sequence[int] | None = None,
        free_fold: bool = False,
        holes: Mapping[int, str | Sequence[int | str]] | None = None,
        board: str | Sequence[int | str] | None = None,
        straddle: int = 0,
        straddle_seat: int | None = None,
        straddle_raise: str = "straddle",
    ) -> None:
        """``posts``/``dead`` (replayed histories): per seat, chips posted live after the blinds
        (a returning player's big blind; the seat keeps its option) and dead (into the main pot,
        never toward a call); ``free_fold``: accept a fold when checking is free (sites allow
        it; the simulator never sets it). See ``sim.engine.start_hand_posts``. ``deck`` or
        ``seed``: see the class docstring. A bad argument raises a one-line ValueError naming
        it (a card: ``deck[7]: 'Xs' is not a card: expected ...``). ``straddle``: chips of a
        live straddle posted after the blinds by ``straddle_seat`` (default: the first seat
        with chips left of the big blind; at least 3 players), more than the big blind; see
        ``sim.engine.start_hand_straddle``. ``straddle_raise``: the pre-flop minimum raise over
        it, ``"straddle"`` (the straddler is the bigger blind: a raise adds at least the
        straddle) or ``"big_blind"`` (one big blind over it, as PokerKit and the PHH standard
        play it); docs/game.md#straddles."""
        if straddle_raise not in STRADDLE_RAISES:
            raise ValueError(f"straddle_raise {straddle_raise!r}: expected one of "
                             f"{', '.join(STRADDLE_RAISES)}")
        n = config.n_seats
        if len(stacks) != n:
            raise ValueError(f"stacks: expected {n} values (one per seat), got {len(stacks)}")
        for s, v in enumerate(stacks):
            if int(v) != v or v < 0:
                raise ValueError(f"seat {s}: stack {v!r} must be a whole number >= 0")
        if not 0 <= button < n:
            raise ValueError(f"button seat {button}: expected 0..{n - 1}")
        occupied = [v > 0 for v in stacks]
        if sb_seat is None and bb_seat is None:
            sb_seat, bb_seat = standard_positions(occupied, button)
        if bb_seat is None or not 0 <= bb_seat < n or not occupied[bb_seat]:
            raise ValueError(f"big blind seat {bb_seat}: expected a seat with chips")
        if sb_seat is None:
            sb_seat = -1
        if sb_seat != -1 and (not 0 <= sb_seat < n or not occupied[sb_seat]):
            raise ValueError(f"small blind seat {sb_seat}: expected a seat with chips or -1 (dead)")
        if sum(occupied) < 2:
            raise ValueError(f"a hand needs at least 2 players with chips, got {sum(occupied)}")
        deck_arr = _deck(deck, seed, hand_id)
        dealt: list[int] = []  # the seats dealt, in the dealing order (holes=, board=)
        if holes or board:
            dealt = [(button + i) % n for i in range(1, n + 1) if occupied[(button + i) % n]]
            deck_arr = _place(deck_arr, dealt, holes or {}, board or [])
        if antes is None:
            antes = [config.ante_due(s, bb_seat) if occupied[s] else 0 for s in range(n)]
        if len(antes) != n or any(a < 0 for a in antes):
            raise ValueError(f"antes: expected {n} values >= 0")
        extra = [_per_seat(v, n, name) for v, name in ((posts, "posts"), (dead, "dead"))]
        if any(extra[1]) and config.ante_trimming:
            raise ValueError("dead posts with ante trimming on: not supported (a dead blind is "
                             "dead money like an untrimmed ante)")
        for name, vals in zip(("posts", "dead"), extra, strict=True):
            for s, v in enumerate(vals):
                if v and not occupied[s]:
                    raise ValueError(f"{name}: seat {s} posts {v} but has no chips")
        if straddle:
            straddle_seat = _straddle_seat(config, occupied, sb_seat, bb_seat, straddle,
                                           straddle_seat)
            if posts is not None or dead is not None:
                raise ValueError("straddle: not with posts= or dead= (a replayed history's "
                                 "posts after the blinds)")
        self.config = config
        self.hand_id = hand_id
        self.seed = seed if deck is None else None
        self._S = engine.new_state()
        self._log = engine.new_log(log_rows)
        self._lg = np.zeros(L.LG_SIZE, dtype=np.int64)
        cfg = _CONFIG_BLOCKS.get((config, auto_showdown))
        if cfg is None:  # the engine only reads the block: one per config (replays repeat them)
            cfg = config_block(config, auto_showdown)
            if len(_CONFIG_BLOCKS) >= 4096:
                _CONFIG_BLOCKS.clear()
            _CONFIG_BLOCKS[(config, auto_showdown)] = cfg
        st = np.asarray(stacks, dtype=np.int64)
        an = np.asarray(antes, dtype=np.int64)
        if straddle:
            engine.start_hand_straddle(self._S, self._log, cfg, st, an, button, sb_seat, bb_seat,
                                       deck_arr, straddle_seat, int(straddle), int(free_fold),
                                       int(straddle_raise == "straddle"))
        elif posts is None and dead is None and not free_fold:
            engine.start_hand(self._S, self._log, cfg, st, an, button, sb_seat, bb_seat, deck_arr)
        else:
            engine.start_hand_posts(
                self._S, self._log, cfg, st, an, button, sb_seat, bb_seat, deck_arr,
                np.asarray(extra[0], dtype=np.int64), np.asarray(extra[1], dtype=np.int64),
                int(free_fold))
        self._check_log()
        for seat, cards in (holes or {}).items():  # the dealing order is the engine's
            if self.hole_cards(seat) != tuple(deck_arr[p] for p in _hole_at(dealt, seat)):
                raise RuntimeError(f"seat {seat} was dealt {format_cards(self.hole_cards(seat))}"
                                   f", not {cards!r}: sim.dealing and the engine disagree")

    # ---- the entry point and the query ----
    def legal_actions(self) -> LegalActions:
        """The legal actions of the seat to act (seat -1 when the hand is complete)."""
        lg = self._lg
        engine.legal(self._S, lg)
        return LegalActions(
            seat=int(lg[L.LG_TO_ACT]),
            can_fold=bool(lg[L.LG_CAN_FOLD]),
            can_check=bool(lg[L.LG_CAN_CHECK]),
            call_amount=int(lg[L.LG_CALL]),
            can_raise=bool(lg[L.LG_CAN_RAISE]),
            min_raise_to=int(lg[L.LG_MIN_TO]),
            max_raise_to=int(lg[L.LG_MAX_TO]),
            showdown=int(lg[L.LG_PHASE]) == Street.SHOWDOWN,
            can_muck=bool(lg[L.LG_CAN_MUCK]),
        )

    def apply(self, action: Action, *, records: bool = True) -> tuple[Record, ...]:
        """Apply one player action (a ``LEAVE`` is any seat's, whoever is to act); returns the
        records it produced (its own and the forced events that followed; ``records=False``:
        none are built, e.g. for a replay that reads the log as arrays). Raises IllegalAction,
        leaving the hand unchanged."""
        S = self._S
        to_act = int(S[L.TO_ACT])
        if int(S[L.STREET]) == Street.COMPLETE:
            raise IllegalAction(f"hand {self.hand_id}: seat {action.seat} {action.describe()}: "
                                "the hand is complete")
        leave = action.kind == ActionKind.LEAVE
        if action.seat != to_act and not leave:
            raise IllegalAction(
                f"hand {self.hand_id}: seat {action.seat} {action.describe()}: out of turn, "
                f"seat {to_act} is to act"
            )
        before = int(S[L.N_LOG])
        err = engine.apply(S, self._log, int(action.kind),
                           int(action.seat if leave else action.amount))
        if err != Err.OK:
            la = self.legal_actions()
            raise IllegalAction(
                f"hand {self.hand_id}: seat {action.seat} {action.describe()}: "
                f"{_ERR_TEXT.get(Err(err), 'illegal')} (legal: {la.describe()})"
            )
        if S[L.N_LOG] != S[L.SEQ]:
            self._check_log()
        return self._records(before, int(S[L.N_LOG])) if records else ()

    # ---- views ----
    def _check_log(self) -> None:
        if self._S[L.N_LOG] != self._S[L.SEQ]:
            raise RuntimeError(
                f"hand {self.hand_id}: record log full ({self._log.shape[0]} rows); "
                "pass a larger log_rows"
            )

    def _records(self, start: int, stop: int) -> tuple[Record, ...]:
        rows = self._log[start:stop]
        return tuple(
            Record(self.hand_id, int(r[L.LOG_SEQ]), Street(int(r[L.LOG_STREET])),
                   int(r[L.LOG_SEAT]), EventKind(int(r[L.LOG_KIND])), int(r[L.LOG_TO]),
                   int(r[L.LOG_ADDED]), int(r[L.LOG_CARD]), int(r[L.LOG_POT]),
                   int(r[L.LOG_STRENGTH]))
            for r in rows
        )

    @property
    def records(self) -> tuple[Record, ...]:
        return self._records(0, int(self._S[L.N_LOG]))

    def _seat_block(self, offset: int) -> list[int]:
        return self._S[offset : offset + self.config.n_seats].tolist()

    @property
    def state_array(self) -> np.ndarray:
        """A copy of the raw state without the core's scratch blocks (for tests and debugging)."""
        return self._S[: L.LG_].copy()

    @property
    def street(self) -> Street:
        return Street(int(self._S[L.STREET]))

    @property
    def street_code(self) -> int:
        """``street`` as a plain int (no enum: for replay loops)."""
        return int(self._S[L.STREET])

    @property
    def status_codes(self) -> list[int]:
        """``statuses`` as plain ints (``SeatStatus`` values)."""
        return self._seat_block(L.STATUS_)

    @property
    def is_complete(self) -> bool:
        return int(self._S[L.STREET]) == Street.COMPLETE

    @property
    def to_act(self) -> int:
        return int(self._S[L.TO_ACT])

    @property
    def button(self) -> int:
        return int(self._S[L.BUTTON])

    @property
    def sb_seat(self) -> int:
        return int(self._S[L.SB_SEAT])

    @property
    def bb_seat(self) -> int:
        return int(self._S[L.BB_SEAT])

    @property
    def stacks(self) -> list[int]:
        return self._seat_block(L.STACK_)

    @property
    def starting_stacks(self) -> list[int]:
        return self._seat_block(L.START_)

    @property
    def bets(self) -> list[int]:
        """This street's totals."""
        return self._seat_block(L.BET_)

    @property
    def contributed(self) -> list[int]:
        """All chips each seat put in this hand (antes included), after returns."""
        return self._seat_block(L.CONTRIB_)

    @property
    def returned(self) -> list[int]:
        return self._seat_block(L.RETURNED_)

    @property
    def won(self) -> list[int]:
        return self._seat_block(L.WON_)

    @property
    def statuses(self) -> list[SeatStatus]:
        return [SeatStatus(v) for v in self._seat_block(L.STATUS_)]

    @property
    def folded(self) -> list[bool]:
        return [s == SeatStatus.FOLDED for s in self.status_codes]

    @property
    def rake(self) -> int:
        return int(self._S[L.RAKE])

    @property
    def board(self) -> list[int]:
        return [int(c) for c in self._S[L.BOARD_ : L.BOARD_ + int(self._S[L.N_BOARD])]]

    @property
    def deck(self) -> list[int]:
        return [int(c) for c in self._S[L.DECK_ : L.DECK_ + 52]]

    def hole_cards(self, seat: int) -> tuple[int, int]:
        return int(self._S[L.HOLE_ + 2 * seat]), int(self._S[L.HOLE_ + 2 * seat + 1])

    @property
    def shown(self) -> list[int]:
        """Per seat: 1 shown, 0 mucked, -1 did not reach showdown."""
        return self._seat_block(L.SHOWN_)

    @property
    def strengths(self) -> list[int]:
        return self._seat_block(L.STRENGTH_)

    @property
    def pot_blocks(self) -> list[tuple[int, int, int, int]]:
        """``pots`` as (amount, rake, eligible seat mask, winners seat mask), no objects."""
        S = self._S
        n = int(S[L.N_POTS])
        return list(zip(S[L.POT_AMOUNT_:L.POT_AMOUNT_ + n].tolist(),
                        S[L.POT_RAKE_:L.POT_RAKE_ + n].tolist(),
                        S[L.POT_ELIGIBLE_:L.POT_ELIGIBLE_ + n].tolist(),
                        S[L.POT_WINNERS_:L.POT_WINNERS_ + n].tolist(), strict=True))

    @property
    def hole_block(self) -> list[int]:
        """Every seat's two hole cards, seat by seat (``hole_cards`` of all seats)."""
        return self._S[L.HOLE_:L.HOLE_ + 2 * self.config.n_seats].tolist()

    @property
    def pots(self) -> list[Pot]:
        S = self._S
        out = []
        n = self.config.n_seats
        for p in range(int(S[L.N_POTS])):
            elig = int(S[L.POT_ELIGIBLE_ + p])
            win = int(S[L.POT_WINNERS_ + p])
            out.append(Pot(
                int(S[L.POT_AMOUNT_ + p]), int(S[L.POT_RAKE_ + p]),
                tuple(s for s in range(n) if elig >> s & 1),
                tuple(s for s in range(n) if win >> s & 1),
            ))
        return out

    def __repr__(self) -> str:
        """The hand at a glance, cards as text: ``<Hand 0 flop, seat 1 to act; board Ah Kd
        7c; holes 0:AsKs 1:7d7c 2:Qh2c; stacks [194, 194, 194]>`` (seats without chips left
        out of the holes)."""
        state = ("complete" if self.is_complete
                 else f"{self.street.name.lower()}, seat {self.to_act} to act")
        holes = " ".join(f"{s}:{format_cards(self.hole_cards(s))}"
                         for s in range(self.config.n_seats) if self.starting_stacks[s])
        return (f"<Hand {self.hand_id} {state}; board {format_cards(self.board, ' ') or '-'}; "
                f"holes {holes}; stacks {self.stacks}>")

    def copy(self) -> Hand:
        other = object.__new__(Hand)
        other.config = self.config
        other.hand_id = self.hand_id
        other.seed = self.seed
        other._S = self._S.copy()
        other._log = self._log.copy()
        other._lg = np.zeros(L.LG_SIZE, dtype=np.int64)
        return other

    @property
    def dead_paid(self) -> list[int]:
        """Per seat the dead money put in: untrimmed antes and dead blind posts."""
        return self._seat_block(L.ANTE_PAID_)
