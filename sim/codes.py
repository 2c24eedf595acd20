"""The enum values the compiled code needs, as plain ints derived from the IntEnums in one place.

numba freezes module-level ints into the compiled code as constants; the IntEnums themselves
(``sim.layout``, ``sim.config``) stay the single source of the values, so nothing retypes them.
Sets of event kinds are named predicates (``is_player_event``), not ranges of values.
"""

from __future__ import annotations

from numba import njit

from sim.config import AnteMode, Structure
from sim.layout import ActionKind, Err, EventKind, SeatStatus, Street

# SeatStatus
S_EMPTY = int(SeatStatus.EMPTY)
S_ACTIVE = int(SeatStatus.ACTIVE)
S_ALL_IN = int(SeatStatus.ALL_IN)
S_FOLDED = int(SeatStatus.FOLDED)
S_OUT = int(SeatStatus.OUT)
# Street
PREFLOP = int(Street.PREFLOP)
FLOP = int(Street.FLOP)
TURN = int(Street.TURN)
RIVER = int(Street.RIVER)
SHOWDOWN = int(Street.SHOWDOWN)
COMPLETE = int(Street.COMPLETE)
# Structure
NO_LIMIT = int(Structure.NO_LIMIT)
POT_LIMIT = int(Structure.POT_LIMIT)
FIXED_LIMIT = int(Structure.FIXED_LIMIT)
# AnteMode
ANTE_NONE = int(AnteMode.NONE)
ANTE_UNIFORM = int(AnteMode.UNIFORM)
ANTE_BIG_BLIND = int(AnteMode.BIG_BLIND)
# ActionKind
A_FOLD = int(ActionKind.FOLD)
A_CHECK_CALL = int(ActionKind.CHECK_CALL)
A_BET_RAISE = int(ActionKind.BET_RAISE)
A_SHOW = int(ActionKind.SHOW)
A_MUCK = int(ActionKind.MUCK)
A_LEAVE = int(ActionKind.LEAVE)
# EventKind
E_ANTE = int(EventKind.ANTE)
E_SB = int(EventKind.SMALL_BLIND)
E_BB = int(EventKind.BIG_BLIND)
E_DEAL_HOLE = int(EventKind.DEAL_HOLE)
E_BURN = int(EventKind.BURN)
E_DEAL_BOARD = int(EventKind.DEAL_BOARD)
E_FOLD = int(EventKind.FOLD)
E_CHECK = int(EventKind.CHECK)
E_CALL = int(EventKind.CALL)
E_BET = int(EventKind.BET)
E_RAISE = int(EventKind.RAISE)
E_RETURN = int(EventKind.RETURN_UNCALLED)
E_SHOW = int(EventKind.SHOW)
E_MUCK = int(EventKind.MUCK)
E_WIN = int(EventKind.WIN)
E_RAKE = int(EventKind.RAKE)
E_POST = int(EventKind.POST)
E_DEAD_BLIND = int(EventKind.DEAD_BLIND)
E_LEAVE = int(EventKind.LEAVE)
E_STRADDLE = int(EventKind.STRADDLE)
# Err
OK = int(Err.OK)
HAND_OVER = int(Err.HAND_OVER)
NOT_BETTING = int(Err.NOT_BETTING)
NOT_SHOWDOWN = int(Err.NOT_SHOWDOWN)
CANNOT_FOLD = int(Err.CANNOT_FOLD)
CANNOT_RAISE = int(Err.CANNOT_RAISE)
RAISE_TOO_SMALL = int(Err.RAISE_TOO_SMALL)
RAISE_TOO_LARGE = int(Err.RAISE_TOO_LARGE)
BAD_KIND = int(Err.BAD_KIND)
LOG_FULL = int(Err.LOG_FULL)
CANNOT_MUCK = int(Err.CANNOT_MUCK)
NOT_IN_HAND = int(Err.NOT_IN_HAND)


@njit(cache=True, _nrt=False)
def is_player_event(kind: int) -> bool:
    """A player's betting decision: fold, check, call, bet or raise (``PLAYER_EVENTS``)."""
    return kind == E_FOLD or kind == E_CHECK or kind == E_CALL or kind == E_BET or kind == E_RAISE


@njit(cache=True, _nrt=False)
def is_voluntary_put(kind: int) -> bool:
    """A player's decision that puts chips in: call, bet or raise."""
    return kind == E_CALL or kind == E_BET or kind == E_RAISE


@njit(cache=True, _nrt=False)
def is_logged_event(kind: int) -> bool:
    """An event of a hand's ``actions`` column (``LOGGED_EVENTS``): posts, player decisions,
    uncalled returns and leaves."""
    return kind == E_ANTE or kind == E_SB or kind == E_BB or kind == E_POST \
        or kind == E_DEAD_BLIND or is_player_event(kind) or kind == E_RETURN or kind == E_LEAVE \
        or kind == E_STRADDLE
