"""Bots of one's own: Python policies that play seats of a simulated run (docs/game.md, Bots of
one's own).

A bot is a callable ``decide(view: PlayerView) -> Action``. ``PlayerView`` is what the seat to
act may know: its hole cards (text and ints), the board, the street, the pot, every seat's
stack, bet and status, the button and blinds, the legal actions with their amounts, and a seed
drawn from the hand's policy stream (``view.rng()`` is a numpy Generator from it), so a bot
that wants randomness plays the same hands again. It never sees another seat's cards.

The game file names the bots (``[bots.python.NAME]``: ``cluster.flows.game``); the spec records
each as ``PythonBot`` (name, source, callable, weight, sha256 of the source file). Seats draw
them by weight beside the built-in bots, as policy codes ``FIRST_CODE`` (8), 9, ... in the
spec's order. The compiled table loop (``sim.session.play_tables``) calls ``python_decision``
out of compiled code (numba ``objmode``) for those seats only, in a variant compiled only for
runs with Python bots; the built-in bots stay compiled.

A bot that returns anything but a legal action, or raises, stops the run with ``BotError``: one
line naming the bot, the hand (table id and hand number, as the log has them), the seat and what
was legal. ``load_bots`` imports the bots of a spec in this process (a Ray worker too) and
refuses one whose source no longer has the recorded sha256: a run, its resumption and its
reproduction all play the code the spec names.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from audits.runfolder.errors import InputError
from sim.cards import format_card
from sim.codes import (
    A_BET_RAISE,
    A_CHECK_CALL,
    A_FOLD,
    FLOP,
    PREFLOP,
    RIVER,
    S_ACTIVE,
    S_ALL_IN,
    S_FOLDED,
    TURN,
)
from sim.config import Structure
from sim.layout import (
    BB_SEAT,
    BET_,
    BIG_BLIND,
    BOARD_,
    BUTTON,
    CONTRIB_,
    FREE_FOLD,
    HOLE_,
    LG_CALL,
    LG_CAN_CHECK,
    LG_CAN_FOLD,
    LG_CAN_RAISE,
    LG_MAX_TO,
    LG_MIN_TO,
    N_BOARD,
    N_SEATS,
    SB_SEAT,
    SMALL_BLIND,
    STACK_,
    STATUS_,
    STREET,
    STRUCTURE,
)

__all__ = ["Action", "BotError", "Legal", "PlayerView", "PythonBot", "SeatView", "load_bots",
           "source_sha256"]

FIRST_CODE = 8  # the policy code of the spec's first Python bot (0..7: the built-in bots)
MAX_BOTS = 8  # Python bots a game may name
STREETS = {PREFLOP: "preflop", FLOP: "flop", TURN: "turn", RIVER: "river"}
STATUSES = {S_ACTIVE: "active", S_ALL_IN: "all-in", S_FOLDED: "folded"}


class BotError(InputError):
    """A Python bot that cannot play: not loadable, changed since the spec, returned an illegal
    action or raised (one line naming the bot, and the hand and seat when it was playing)."""


# ---------------------------------------------------------------- the interface


@dataclass(frozen=True)
class Action:
    """A bot's decision: ``Action.fold()``, ``Action.check_call()`` or ``Action.raise_to(n)``
    (bet or raise to a street total of ``n`` chips)."""

    kind: str  # "fold", "check-call" or "raise"
    to: int | None = None  # "raise": the street total to bet or raise to

    @classmethod
    def fold(cls) -> Action:
        return cls("fold")

    @classmethod
    def check_call(cls) -> Action:
        return cls("check-call")

    @classmethod
    def raise_to(cls, to: int) -> Action:
        return cls("raise", to)


@dataclass(frozen=True)
class Legal:
    """The seat's legal actions: fold only when facing a bet (``can_fold``), check when nothing
    is owed (``can_check``; else ``call`` chips complete the call, all-in if short), bet or
    raise to a street total from ``min_raise_to`` to ``max_raise_to`` (``can_raise``)."""

    can_fold: bool
    can_check: bool
    call: int
    can_raise: bool
    min_raise_to: int
    max_raise_to: int

    def describe(self) -> str:
        """One line: what this seat may do (the errors' "legal: ...")."""
        parts = ["fold"] if self.can_fold else []
        parts.append("check" if self.can_check else f"call {self.call}")
        if self.can_raise:
            parts.append(f"raise to {self.min_raise_to}" if self.min_raise_to == self.max_raise_to
                         else f"raise to {self.min_raise_to}..{self.max_raise_to}")
        return ", ".join(parts)


@dataclass(frozen=True)
class SeatView:
    """One seat as everyone sees it (no cards)."""

    seat: int
    stack: int  # chips behind
    bet: int  # this street's total
    contributed: int  # everything put in this hand (antes and blinds too)
    status: str  # "active", "all-in", "folded" or "out" (empty, or not dealt in)


@dataclass(frozen=True)
class PlayerView:
    """What the seat to act knows when it decides."""

    seat: int
    hole: tuple[str, str]  # ("As", "Td")
    hole_ints: tuple[int, int]  # rank * 4 + suit (ranks 2..A = 0..12, suits c d h s)
    board: tuple[str, ...]  # 0, 3, 4 or 5 cards
    board_ints: tuple[int, ...]
    street: str  # "preflop", "flop", "turn", "river"
    structure: str  # "no-limit", "pot-limit", "fixed-limit"
    pot: int  # every chip put in this hand, this street's bets included
    stack: int  # the seat's chips behind
    bet: int  # the seat's street total
    seats: tuple[SeatView, ...]  # every seat of the table, by seat number
    button: int
    small_blind_seat: int  # -1: a dead small blind (tournaments)
    big_blind_seat: int
    small_blind: int
    big_blind: int
    legal: Legal
    table_id: int  # as the log's table_id and hand_no
    hand_no: int
    seed: int  # drawn from the hand's policy stream: the same on every re-run

    def rng(self) -> np.random.Generator:
        """A numpy Generator seeded from ``seed`` (a new one each call)."""
        return np.random.default_rng(self.seed)


Bot = Callable[[PlayerView], Any]


@dataclass(frozen=True)
class PythonBot:
    """A Python bot as the spec records it: ``source`` is an absolute ``.py`` path or a module
    name (``kind`` says which), ``callable`` the function's name in it, ``sha256`` the digest of
    the source file's bytes."""

    name: str
    kind: str  # "path" or "module"
    source: str
    callable: str
    weight: int
    sha256: str

    @property
    def reference(self) -> str:
        return f"{self.source}:{self.callable}"


def module_file(module: str) -> Path:
    """The source file of an importable module (without importing it). Raises BotError."""
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError) as e:
        raise BotError(f"module {module!r}: cannot be found ({e})") from None
    if found is None or not found.origin or not found.origin.endswith(".py"):
        raise BotError(f"module {module!r}: no Python source file found on sys.path")
    return Path(found.origin)


def source_sha256(kind: str, source: str) -> str:
    """The sha256 of a bot's source file (``kind`` "path": the file; "module": its ``.py``)."""
    path = Path(source) if kind == "path" else module_file(source)
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as e:
        raise BotError(f"{path}: cannot read it ({e.strerror or e})") from None


# ---------------------------------------------------------------- loading


_LOADED: dict[tuple[str, str, str, str], Bot] = {}


def _import_path(path: Path) -> ModuleType:
    name = "holdem_bot_" + hashlib.sha256(str(path).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BotError(f"{path}: not a Python file")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[name]
        raise
    return mod


def load_bot(bot: PythonBot) -> Bot:
    """The callable of one bot, imported once per process, after checking its source's sha256
    against the spec's. Raises BotError (one line)."""
    key = (bot.kind, bot.source, bot.callable, bot.sha256)
    if key in _LOADED:
        return _LOADED[key]
    where = f"python bot {bot.name!r} ({bot.reference})"
    try:
        sha = source_sha256(bot.kind, bot.source)
    except BotError as e:
        raise BotError(f"{where}: {e}") from None
    if sha != bot.sha256:
        raise BotError(f"{where}: its source changed since the run's spec was made (sha256 "
                       f"{sha[:12]}, the spec records {bot.sha256[:12]}): not the bot the run "
                       "plays (restore its source, or make a new run with this one)")
    try:
        mod = (_import_path(Path(bot.source)) if bot.kind == "path"
               else importlib.import_module(bot.source))
    except BotError:
        raise
    except BaseException as e:  # the bot's own module failed: one line, no traceback
        raise BotError(f"{where}: importing it raised {type(e).__name__}: {_first(e)}") from None
    fn = getattr(mod, bot.callable, None)
    if not callable(fn):
        raise BotError(f"{where}: no callable {bot.callable!r} in it")
    _LOADED[key] = fn
    return fn


def load_bots(bots: tuple[PythonBot, ...]) -> tuple[Bot, ...]:
    """Every bot of a spec, in its order (policy codes ``FIRST_CODE``, ...)."""
    return tuple(load_bot(b) for b in bots)


# ---------------------------------------------------------------- the compiled loop's callout


class _Bound:
    """The bots of the batch being played and its workspace rows (state, legal actions)."""

    bots: tuple[PythonBot, ...] = ()
    fns: tuple[Bot, ...] = ()
    S: np.ndarray = np.zeros(0, np.int64)
    lg: np.ndarray = np.zeros(0, np.int64)


def bind(bots: tuple[PythonBot, ...], S: np.ndarray, lg: np.ndarray) -> None:
    """Make ``python_decision`` play these bots on this workspace (``sim.batch``)."""
    _Bound.bots, _Bound.fns = bots, load_bots(bots)
    _Bound.S, _Bound.lg = S, lg


def _first(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else "(no message)"


_CARD_TEXT = tuple(format_card(c) for c in range(52))
_LABELS = {int(st): st.label for st in Structure}


def view_of(S: np.ndarray, lg: np.ndarray, seat: int, seed: int, table_id: int,
            hand_no: int) -> PlayerView:
    """The seat's view of the hand in state ``S`` with legal actions ``lg``."""
    st = S.tolist()  # one conversion: indexing a numpy array item by item costs more
    g = lg.tolist()
    n = st[N_SEATS]
    seats = tuple(SeatView(s, st[STACK_ + s], st[BET_ + s], st[CONTRIB_ + s],
                           STATUSES.get(st[STATUS_ + s], "out")) for s in range(n))
    h0, h1 = st[HOLE_ + 2 * seat], st[HOLE_ + 2 * seat + 1]
    board = tuple(st[BOARD_: BOARD_ + st[N_BOARD]])
    legal = Legal(bool(g[LG_CAN_FOLD] or st[FREE_FOLD]), bool(g[LG_CAN_CHECK]), g[LG_CALL],
                  bool(g[LG_CAN_RAISE]), g[LG_MIN_TO], g[LG_MAX_TO])
    return PlayerView(
        seat=seat, hole=(_CARD_TEXT[h0], _CARD_TEXT[h1]), hole_ints=(h0, h1),
        board=tuple(_CARD_TEXT[c] for c in board), board_ints=board,
        street=STREETS.get(st[STREET], "showdown"), structure=_LABELS[st[STRUCTURE]],
        pot=sum(st[CONTRIB_: CONTRIB_ + n]), stack=st[STACK_ + seat], bet=st[BET_ + seat],
        seats=seats, button=st[BUTTON], small_blind_seat=st[SB_SEAT],
        big_blind_seat=st[BB_SEAT], small_blind=st[SMALL_BLIND], big_blind=st[BIG_BLIND],
        legal=legal, table_id=table_id, hand_no=hand_no, seed=seed)


_KINDS = {"fold": A_FOLD, "check-call": A_CHECK_CALL, "check": A_CHECK_CALL,
          "call": A_CHECK_CALL, "raise": A_BET_RAISE, "bet": A_BET_RAISE}
EXPECTED = ("expected Action.fold(), Action.check_call(), Action.raise_to(chips), or a tuple "
            "('fold',), ('check-call',) or ('raise', chips)")


def checked_action(got: Any, legal: Legal) -> tuple[int, int] | str:
    """(ActionKind, amount) of a bot's return value, or what is wrong with it (one phrase)."""
    if isinstance(got, Action):
        kind, to = got.kind, got.to
    elif isinstance(got, tuple) and len(got) in (1, 2) and isinstance(got[0], str):
        kind, to = got[0], got[1] if len(got) == 2 else None
    elif got is None:
        return f"returned None (no return statement reached?), not an action: {EXPECTED}"
    else:
        return f"returned {_show(got)} ({type(got).__name__}), not an action: {EXPECTED}"
    code = _KINDS.get(kind) if isinstance(kind, str) else None
    if code is None:
        return f"returned the action {_show(kind)}: expected fold, check-call or raise"
    if code != A_BET_RAISE and to is not None and (isinstance(to, bool) or to != 0):
        return f"returned {kind} with an amount ({_show(to)}): only a raise takes one"
    if code == A_FOLD:
        return (A_FOLD, 0) if legal.can_fold else "folded where it may check"
    if kind == "check" and not legal.can_check:
        return f"checked where a call of {legal.call} is owed"
    if code == A_CHECK_CALL:
        return A_CHECK_CALL, 0
    span = (f"{legal.min_raise_to}" if legal.min_raise_to == legal.max_raise_to
            else f"{legal.min_raise_to}..{legal.max_raise_to}")
    if not legal.can_raise:
        return (f"raised{'' if to is None else f' to {_show(to)}'} where no raise is allowed")
    if to is None:
        return (f"raised without an amount: expected ('raise', chips) or "
                f"Action.raise_to(chips), the street total to raise to, {span}")
    if isinstance(to, bool) or not isinstance(to, (int, np.integer)):
        return f"raised to {_show(to)}, not a whole number of chips (expected {span})"
    if not legal.min_raise_to <= to <= legal.max_raise_to:
        return f"raised to {int(to)}, outside {span}"
    return A_BET_RAISE, int(to)


def _show(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def python_decision(policy: int, seat: int, seed: int, table_id: int,
                    hand_no: int) -> tuple[int, int]:
    """(ActionKind, amount) of the Python bot with this policy code at ``seat``, called out of
    ``sim.session.play_tables`` (numba objmode) with the bound workspace. Raises BotError."""
    i = policy - FIRST_CODE
    bot, fn = _Bound.bots[i], _Bound.fns[i]
    view = view_of(_Bound.S, _Bound.lg, seat, seed, table_id, hand_no)
    where = (f"python bot {bot.name!r} ({bot.reference}) at table {table_id} hand {hand_no} "
             f"seat {seat} ({view.street})")
    legal = f"; legal: {view.legal.describe()}"
    try:
        got = fn(view)
    except KeyboardInterrupt:  # the user's interrupt stops the run as anywhere else
        raise
    except BaseException as e:  # SystemExit too: a bot cannot end the run silently
        tb = traceback.extract_tb(e.__traceback__)
        at = f" ({Path(tb[-1].filename).name}:{tb[-1].lineno})" if tb else ""
        what = (f"called sys.exit({'' if e.code is None else _show(e.code)}){at}: a bot "
                "returns an action, it cannot end the run" if isinstance(e, SystemExit)
                else f"raised {type(e).__name__}: {_first(e)}{at}")
        raise BotError(f"{where}: {what}{legal}") from None
    try:
        out = checked_action(got, view.legal)
    except Exception as e:  # a return value whose comparison or repr raises
        out = f"returned a value that cannot be read ({type(e).__name__}: {_first(e)})"
    if isinstance(out, str):
        raise BotError(f"{where}: {out}{legal}")
    return out
