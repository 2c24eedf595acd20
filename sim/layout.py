"""The fixed layout of a hand's state: one int64 array, so the compiled core works on plain arrays.

Scalars live at fixed indices; per-seat values live in blocks of ``MAX_SEATS`` slots starting at
the ``*_`` offsets (``S[STACK_ + seat]``). Nothing here holds logic; ``sim.engine`` does.
"""

from __future__ import annotations

from enum import IntEnum

MAX_SEATS = 10
MAX_POTS = MAX_SEATS + 1

# --- configuration, copied in at the start of a hand ---
N_SEATS = 0
STRUCTURE = 1
SMALL_BLIND = 2
BIG_BLIND = 3
ANTE_TRIM = 4
SMALL_BET = 5
BIG_BET = 6
RAISE_CAP = 7
MIN_BET = 8
RAKE_BPS = 9
RAKE_CAP = 10
NO_FLOP_NO_DROP = 11
AUTO_SHOWDOWN = 12
# --- positions ---
BUTTON = 13
SB_SEAT = 14
BB_SEAT = 15
# --- progress ---
STREET = 16  # Street value
TO_ACT = 17  # seat to act (betting or showdown), -1 when none
CUR_BET = 18  # highest street total on this street
FULL_RAISE = 19  # size of the last full bet or raise on this street (minimum raise increment)
FULL_LEVEL = 20  # street total reached by the last full bet or raise (fixed-limit completion)
N_RAISES = 21  # full bets and raises on this street (fixed-limit cap)
LAST_AGGR = 22  # seat of the last bet or raise on this street, -1 if none
DECK_POS = 23  # next card of the deck to deal
N_BOARD = 24
N_LOG = 25  # rows written to the record log
RAKE = 26
N_POTS = 27
SHOW_ORDER_POS = 28  # next index into SHOW_ORDER_
N_SHOW = 29  # number of seats in SHOW_ORDER_
SEQ = 30  # sequence number of the next record
FLOP_SEEN = 31
N_ACTIVE = 32  # seats with status ACTIVE
N_LIVE = 33  # seats ACTIVE or ALL_IN
# rule-path counters of this hand (for coverage statistics)
C_SHORT_NOT_REOPENED = 34  # decisions where a seat that acted faced only short all-ins
C_SHORT_REOPENED = 35  # decisions where short all-ins added up to a full raise
C_PL_MAX = 36  # pot-limit raises to exactly the pot maximum
C_FL_CAP = 37  # streets where the fixed-limit cap was reached
C_SHORT_ALLIN = 38  # all-in bets or raises smaller than a full bet or raise
FAULT = 39  # injected fault (sim.faults), 0 for the clean engine
# --- per-seat blocks ---
STACK_ = 40  # chips behind
START_ = 50  # stack at the start of the hand
BET_ = 60  # this street's total
CONTRIB_ = 70  # everything put in this hand (antes included), after returns
ANTE_PAID_ = 80
STATUS_ = 90  # SeatStatus
ACTED_AT_ = 100  # CUR_BET when the seat last acted on this street, -1 if it has not
HOLE_ = 110  # two cards per seat: HOLE_ + 2 * seat + k
WON_ = 130
RETURNED_ = 140  # uncalled chips given back
SHOWN_ = 150  # -1 undecided, 0 mucked, 1 shown
STRENGTH_ = 160  # evaluator strength of shown hands
SHOW_ORDER_ = 170
ANTE_DUE_ = 180
BOARD_ = 190  # 5 cards
DECK_ = 195  # 52 cards
POT_AMOUNT_ = 250  # MAX_POTS pots
POT_ELIGIBLE_ = 261  # bitmask of seats
POT_WINNERS_ = 272  # bitmask of seats
POT_RAKE_ = 283
FAULT_FIRED = 294  # 1 once the injected fault changed something in this hand (sim.faults)
LG_ = 300  # scratch: the legal-actions vector computed inside apply
LG_VALID = 309  # scratch: SEQ + 1 when the LG_ block holds this state's legal actions
LEVELS_ = 310  # scratch: contribution levels while building pots
STATE_SIZE = 320

# --- record log: one row per event, LOG_COLS int64 columns ---
LOG_SEQ = 0
LOG_STREET = 1
LOG_SEAT = 2
LOG_KIND = 3
LOG_TO = 4  # street total after the event (bets), or the strength (show)
LOG_ADDED = 5  # chips moved by the event (into the pot, or back to the seat)
LOG_CARD = 6  # dealt card, or -1
LOG_POT = 7  # pot index for awards, or -1
LOG_COLS = 8
DEFAULT_LOG_ROWS = 1024


class SeatStatus(IntEnum):
    EMPTY = 0
    ACTIVE = 1  # in the hand with chips behind
    ALL_IN = 2
    FOLDED = 3
    OUT = 4  # seated but sitting out this hand (no chips)


class Street(IntEnum):
    PREFLOP = 0
    FLOP = 1
    TURN = 2
    RIVER = 3
    SHOWDOWN = 4
    COMPLETE = 5


class ActionKind(IntEnum):
    """What a player can do: the one entry point ``apply`` takes one of these."""

    FOLD = 0
    CHECK_CALL = 1
    BET_RAISE = 2  # amount = this street's total after the bet ("raise to")
    SHOW = 3
    MUCK = 4


class EventKind(IntEnum):
    """Kinds of records the engine emits (player actions and forced events)."""

    ANTE = 0
    SMALL_BLIND = 1
    BIG_BLIND = 2
    DEAL_HOLE = 3
    BURN = 4
    DEAL_BOARD = 5
    FOLD = 6
    CHECK = 7
    CALL = 8
    BET = 9
    RAISE = 10
    RETURN_UNCALLED = 11
    SHOW = 12
    MUCK = 13
    WIN = 14
    RAKE = 15


PLAYER_EVENTS = (EventKind.FOLD, EventKind.CHECK, EventKind.CALL, EventKind.BET, EventKind.RAISE)


class Err(IntEnum):
    """Error codes of the compiled core (0 is success)."""

    OK = 0
    HAND_OVER = 1
    NOT_BETTING = 2
    NOT_SHOWDOWN = 3
    CANNOT_FOLD = 4
    CANNOT_RAISE = 5
    RAISE_TOO_SMALL = 6
    RAISE_TOO_LARGE = 7
    BAD_KIND = 8
    LOG_FULL = 9
    CANNOT_MUCK = 10


# legal-actions vector returned by the core
LG_TO_ACT = 0
LG_CAN_FOLD = 1
LG_CAN_CHECK = 2
LG_CALL = 3
LG_CAN_RAISE = 4
LG_MIN_TO = 5
LG_MAX_TO = 6
LG_PHASE = 7  # Street value
LG_CAN_MUCK = 8
LG_SIZE = 9
