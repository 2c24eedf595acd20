"""The fixed layout of a hand's state: one int64 array, so the compiled core works on plain arrays.

Scalars live at fixed indices; per-seat values live in blocks of ``MAX_SEATS`` slots starting at
the ``*_`` offsets (``S[STACK_ + seat]``). Nothing here holds logic; ``sim.engine`` does.

Offsets are not typed by hand: each layout is one ordered declaration of (name, size) pieces
(``Blocks.take``), so two blocks cannot overlap and the size is the sum of the pieces. The
offsets stay plain module-level ints computed at import, which numba freezes into the compiled
code as constants (tests/sim/test_layout.py checks every layout, ``sim.session``'s too).
"""

from __future__ import annotations

from enum import IntEnum

from sim.cards import BOARD_CARDS, HOLE_CARDS, N_CARDS

MAX_SEATS = 10
MAX_POTS = MAX_SEATS + 1


class Blocks:
    """One flat int64 array's layout, declared piece by piece: ``take(name, size)`` returns the
    next free offset, so the pieces are disjoint and ``size`` is where the next one would go."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.pieces: list[tuple[str, int, int]] = []  # (name, offset, size), in order
        self.size = 0

    def take(self, name: str, size: int = 1) -> int:
        """The offset of a new piece of ``size`` slots (1 for a scalar) named ``name``."""
        if size < 1:
            raise ValueError(f"{self.name}.{name}: size {size} < 1")
        if any(name == p[0] for p in self.pieces):
            raise ValueError(f"{self.name}.{name}: declared twice")
        offset = self.size
        self.pieces.append((name, offset, size))
        self.size += size
        return offset


_S = Blocks("state")
# --- configuration, copied in at the start of a hand ---
N_SEATS = _S.take("N_SEATS")
STRUCTURE = _S.take("STRUCTURE")
SMALL_BLIND = _S.take("SMALL_BLIND")
BIG_BLIND = _S.take("BIG_BLIND")
ANTE_TRIM = _S.take("ANTE_TRIM")
SMALL_BET = _S.take("SMALL_BET")
BIG_BET = _S.take("BIG_BET")
RAISE_CAP = _S.take("RAISE_CAP")
MIN_BET = _S.take("MIN_BET")
RAKE_BPS = _S.take("RAKE_BPS")
RAKE_CAP = _S.take("RAKE_CAP")
NO_FLOP_NO_DROP = _S.take("NO_FLOP_NO_DROP")
AUTO_SHOWDOWN = _S.take("AUTO_SHOWDOWN")
CONFIG_SIZE = _S.size  # S[0:CONFIG_SIZE] is the config block (N_SEATS .. AUTO_SHOWDOWN)
CONFIG_BLOCK = CONFIG_SIZE + 1  # the block handed to start_hand: config + the injected fault code
# --- positions ---
BUTTON = _S.take("BUTTON")
SB_SEAT = _S.take("SB_SEAT")
BB_SEAT = _S.take("BB_SEAT")
# --- progress ---
STREET = _S.take("STREET")  # Street value
TO_ACT = _S.take("TO_ACT")  # seat to act (betting or showdown), -1 when none
CUR_BET = _S.take("CUR_BET")  # highest street total on this street
# size of the last full bet or raise on this street (minimum raise increment)
FULL_RAISE = _S.take("FULL_RAISE")
# street total reached by the last full bet or raise (fixed-limit completion)
FULL_LEVEL = _S.take("FULL_LEVEL")
N_RAISES = _S.take("N_RAISES")  # full bets and raises on this street (fixed-limit cap)
LAST_AGGR = _S.take("LAST_AGGR")  # seat of the last bet or raise on this street, -1 if none
N_DEALT = _S.take("N_DEALT")  # seats dealt hole cards (sim.dealing: the deck index of each card)
N_BOARD = _S.take("N_BOARD")
N_LOG = _S.take("N_LOG")  # rows written to the record log
RAKE = _S.take("RAKE")
N_POTS = _S.take("N_POTS")
SHOW_ORDER_POS = _S.take("SHOW_ORDER_POS")  # next index into SHOW_ORDER_
N_SHOW = _S.take("N_SHOW")  # number of seats in SHOW_ORDER_
SEQ = _S.take("SEQ")  # sequence number of the next record
FLOP_SEEN = _S.take("FLOP_SEEN")
N_ACTIVE = _S.take("N_ACTIVE")  # seats with status ACTIVE
N_LIVE = _S.take("N_LIVE")  # seats ACTIVE or ALL_IN
ACTIVE_MASK = _S.take("ACTIVE_MASK")  # bit s set: seat s has status ACTIVE (seat scans as bits)
# rule-path counters of this hand (for coverage statistics)
# decisions where a seat that acted faced only short all-ins
C_SHORT_NOT_REOPENED = _S.take("C_SHORT_NOT_REOPENED")
C_SHORT_REOPENED = _S.take("C_SHORT_REOPENED")  # decisions where short all-ins made a full raise
C_PL_MAX = _S.take("C_PL_MAX")  # pot-limit raises to exactly the pot maximum
C_FL_CAP = _S.take("C_FL_CAP")  # streets where the fixed-limit cap was reached
C_SHORT_ALLIN = _S.take("C_SHORT_ALLIN")  # all-in bets or raises smaller than a full one
FAULT = _S.take("FAULT")  # injected fault (sim.faults), 0 for the clean engine
# 1 once the injected fault changed something in this hand (sim.faults)
FAULT_FIRED = _S.take("FAULT_FIRED")
# 1: a fold is accepted even when checking is free (replayed histories only: sites allow it;
# set by ``start_hand_posts``, never by the simulator, so ``legal`` still offers no such fold)
FREE_FOLD = _S.take("FREE_FOLD")
# --- per-seat blocks ---
STACK_ = _S.take("STACK_", MAX_SEATS)  # chips behind
START_ = _S.take("START_", MAX_SEATS)  # stack at the start of the hand
BET_ = _S.take("BET_", MAX_SEATS)  # this street's total
CONTRIB_ = _S.take("CONTRIB_", MAX_SEATS)  # everything put in this hand (antes too), after returns
# dead money of the seat: its antes, and its dead blind posts (``start_hand_posts``, only with
# ante trimming off, where antes are dead money too)
ANTE_PAID_ = _S.take("ANTE_PAID_", MAX_SEATS)
STATUS_ = _S.take("STATUS_", MAX_SEATS)  # SeatStatus
# CUR_BET when the seat last acted on this street, -1 if it has not
ACTED_AT_ = _S.take("ACTED_AT_", MAX_SEATS)
HOLE_ = _S.take("HOLE_", HOLE_CARDS * MAX_SEATS)  # HOLE_ + 2 * seat + k (k < HOLE_CARDS)
WON_ = _S.take("WON_", MAX_SEATS)
RETURNED_ = _S.take("RETURNED_", MAX_SEATS)  # uncalled chips given back
SHOWN_ = _S.take("SHOWN_", MAX_SEATS)  # -1 undecided, 0 mucked, 1 shown
STRENGTH_ = _S.take("STRENGTH_", MAX_SEATS)  # evaluator strength of shown hands
SHOW_ORDER_ = _S.take("SHOW_ORDER_", MAX_SEATS)
ANTE_DUE_ = _S.take("ANTE_DUE_", MAX_SEATS)
# --- cards ---
BOARD_ = _S.take("BOARD_", BOARD_CARDS)
DECK_ = _S.take("DECK_", N_CARDS)
# --- pots ---
POT_AMOUNT_ = _S.take("POT_AMOUNT_", MAX_POTS)
POT_ELIGIBLE_ = _S.take("POT_ELIGIBLE_", MAX_POTS)  # bitmask of seats
POT_WINNERS_ = _S.take("POT_WINNERS_", MAX_POTS)  # bitmask of seats
POT_RAKE_ = _S.take("POT_RAKE_", MAX_POTS)

# --- legal-actions vector returned by the core ---
_LG = Blocks("legal")
LG_TO_ACT = _LG.take("LG_TO_ACT")
LG_CAN_FOLD = _LG.take("LG_CAN_FOLD")
LG_CAN_CHECK = _LG.take("LG_CAN_CHECK")
LG_CALL = _LG.take("LG_CALL")
LG_CAN_RAISE = _LG.take("LG_CAN_RAISE")
LG_MIN_TO = _LG.take("LG_MIN_TO")
LG_MAX_TO = _LG.take("LG_MAX_TO")
LG_PHASE = _LG.take("LG_PHASE")  # Street value
LG_CAN_MUCK = _LG.take("LG_CAN_MUCK")
LG_SIZE = _LG.size

# --- scratch blocks of the state ---
LG_ = _S.take("LG_", LG_SIZE)  # the legal-actions vector computed inside apply
LG_VALID = _S.take("LG_VALID")  # SEQ + 1 when the LG_ block holds this state's legal actions
LEVELS_ = _S.take("LEVELS_", MAX_SEATS)  # contribution levels while building pots
BEST_ = _S.take("BEST_", MAX_POTS)  # best hand shown so far per pot, during an automatic showdown
STATE_SIZE = _S.size

# --- record log: one row per event, LOG_COLS int64 columns ---
_LOG = Blocks("log")
LOG_SEQ = _LOG.take("LOG_SEQ")
LOG_STREET = _LOG.take("LOG_STREET")
LOG_SEAT = _LOG.take("LOG_SEAT")
LOG_KIND = _LOG.take("LOG_KIND")
LOG_TO = _LOG.take("LOG_TO")  # the seat's street total after the event (0 for table events)
LOG_ADDED = _LOG.take("LOG_ADDED")  # chips moved by the event (into the pot, or back to the seat)
LOG_CARD = _LOG.take("LOG_CARD")  # dealt card, or -1
LOG_POT = _LOG.take("LOG_POT")  # pot index for awards, or -1
LOG_STRENGTH = _LOG.take("LOG_STRENGTH")  # evaluator strength of a shown hand (SHOW), else -1
LOG_COLS = _LOG.size
DEFAULT_LOG_ROWS = 1024

LAYOUTS = (_S, _LG, _LOG)  # every layout declared here (tests/sim/test_layout.py)


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
    LEAVE = 5  # amount = the seat that leaves (any seat still in the hand, at any turn)


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
    POST = 16  # a live post outside the blinds (a returning player's big blind): on the street
    DEAD_BLIND = 17  # dead money posted by a returning player: into the pot, not on the street
    LEAVE = 18  # a player left the table or lost his connection: his hand is dead (a
    # RETURN_UNCALLED of his bet's uncovered part follows at once when there is one)
    STRADDLE = 19  # a live straddle: the seat left of the big blind, after the blinds, on the
    # street; pre-flop action starts left of it and it keeps the option (sim.engine)


PLAYER_EVENTS = (EventKind.FOLD, EventKind.CHECK, EventKind.CALL, EventKind.BET, EventKind.RAISE)
# the events a hand's ``actions`` column holds (sim.schema): posts, player actions, returns
LOGGED_EVENTS = (EventKind.ANTE, EventKind.SMALL_BLIND, EventKind.BIG_BLIND, EventKind.POST,
                 EventKind.DEAD_BLIND, *PLAYER_EVENTS, EventKind.RETURN_UNCALLED,
                 EventKind.LEAVE, EventKind.STRADDLE)


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
    NOT_IN_HAND = 11  # a LEAVE for a seat that is not in the hand (empty, folded, gone)


