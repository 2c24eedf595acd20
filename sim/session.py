"""Tables over many hands, compiled: who sits where, stacks carried over, rebuys, leaves, blind
levels, the moving button (cash) and the dead button (tournament).

``play_tables`` plays hands into preallocated columnar arrays (see ``sim.batch`` for their
layout) and can stop early and resume (the table's state lives in ``TS``) when the action buffer
fills up. Everything random comes from per-hand Philox streams keyed by (seed, table id), one
per purpose (``sim.rng``): the deck, the bots, and the table's own events (leaves, policies,
first button).

Cash: seats start full with the buy-in; between hands a player below half the buy-in tops up to
it (a rebuy), a player may leave (the seat stays empty for 1-20 hands, then a new player sits
with the buy-in, logged as a rebuy of the whole stack); the button moves to the next occupied
seat. A table is replaced after ``hands_per_table`` hands.
Tournament: everyone starts with the same stack; blinds rise every ``level_hands`` hands and a
big-blind ante starts at level 4; busted players leave; the big blind moves to the next live
player every hand, the small blind is the previous big blind's seat (dead if that player is
out), the button is the previous small blind's seat (it may be empty); heads-up the button posts
the small blind and nobody posts the big blind twice in a row. The table ends when one player
is left and a new table starts.
A game may give tournaments re-buys and an add-on (``P_RB_*``, ``P_AO_*``: before a hand, drawn
from the table's stream of that hand; logged as rebuys; a busted player who does not re-buy is
eliminated) and levels by time (``P_LEVEL_SECONDS``: the level is the table's clock before the
hand // the level's seconds, each hand adding ``P_SEC_HAND`` + ``P_SEC_ACTION`` x its player
actions); docs/game.md.
During a hand a player may time out (``P_TIMEOUT_PPM`` per decision: checks if free, else folds)
or leave the table mid-hand (a disconnect, at a quarter of that rate: a ``LEAVE`` of a seat
still in the hand drawn uniformly, at anyone's turn; his hand is dead, his uncovered bet
returns to him, he is back for the next hand).

Real population (``P_BOTS`` 1, ``RunSpec.bots == "real"``): seats draw fold-heavy styles
(``sim.policies``) with a few stress bots among them. Cash buy-ins are drawn between the minimum
and the maximum (30% at the minimum, 40% at the maximum); a busted player rebuys or leaves; a
player below the minimum buy-in tops up only now and then (10% of hands), so short stacks play
on and post what they have; a player whose stack passes ``P_LEAVE_ABOVE`` leaves and is replaced
(a heads-up table he would leave with one player ends instead). Tournament tables start with
``P_TOURN_STACK``; half of them play antes from every player from level 3 (an eighth of the big
blind), the other half a big-blind ante from level 4.
"""


from __future__ import annotations

import numpy as np
from numba import njit, objmode

from sim import engine
from sim.cards import BOARD_CARDS, N_CARDS
from sim.chacha import CHACHA_SIZE, chacha_init, chacha_shuffle
from sim.codes import (
    A_CHECK_CALL,
    A_FOLD,
    A_LEAVE,
    ANTE_BIG_BLIND,
    ANTE_NONE,
    ANTE_UNIFORM,
    COMPLETE,
    E_ANTE,
    E_BB,
    E_BURN,
    E_FOLD,
    E_RETURN,
    E_SB,
    PREFLOP,
    S_ACTIVE,
    S_ALL_IN,
    S_FOLDED,
    is_logged_event,
    is_player_event,
    is_voluntary_put,
)
from sim.faults import (
    F_BB_TWICE,
    F_BUTTON_SKIPS,
    F_CHIP_LOST,
    F_MUCKS_WINNER,
    F_WRONG_STREAM,
    is_engine_fault,
    is_rotation_fault,
    is_shuffle_fault,
)
from sim.layout import (
    BIG_BET,
    BIG_BLIND,
    BOARD_,
    C_FL_CAP,
    C_PL_MAX,
    C_SHORT_ALLIN,
    C_SHORT_NOT_REOPENED,
    C_SHORT_REOPENED,
    CONFIG_BLOCK,
    CONFIG_SIZE,
    CONTRIB_,
    DECK_,
    DEFAULT_LOG_ROWS,
    FAULT_FIRED,
    HOLE_,
    LG_CAN_CHECK,
    LG_SIZE,
    LG_TO_ACT,
    LOG_ADDED,
    LOG_CARD,
    LOG_COLS,
    LOG_KIND,
    LOG_SEAT,
    LOG_STREET,
    LOG_TO,
    MAX_SEATS,
    MIN_BET,
    N_BOARD,
    N_LOG,
    N_POTS,
    N_SHOW,
    POT_AMOUNT_,
    POT_ELIGIBLE_,
    POT_RAKE_,
    POT_WINNERS_,
    RAKE,
    RAKE_CAP,
    RETURNED_,
    SHOW_ORDER_,
    SHOWN_,
    SMALL_BET,
    SMALL_BLIND,
    STACK_,
    STATE_SIZE,
    STATUS_,
    STREET,
    STRENGTH_,
    WON_,
    Blocks,
)
from sim.policies import N_POLICIES, decide, draw_real_policy
from sim.pybots import FIRST_CODE, MAX_BOTS, python_decision
from sim.rng import (
    DECK_PURPOSE,
    POLICY_PURPOSE,
    STREAM_SIZE,
    TABLE_PURPOSE,
    below,
    faulty_shuffle,
    next_u64,
    shuffle_deck,
    stream_init,
)
from sim.runspec import MAX_LEVELS, POLICY_NAMES

N_BOT_NAMES = len(POLICY_NAMES)

# --- P: run parameters ---
_P = Blocks("params")
P_FORMAT = _P.take("P_FORMAT")  # 0 cash, 1 tournament
P_N_SEATS = _P.take("P_N_SEATS")
P_BUY_IN = _P.take("P_BUY_IN")
P_HANDS_PER_TABLE = _P.take("P_HANDS_PER_TABLE")
P_LEVEL_HANDS = _P.take("P_LEVEL_HANDS")
P_TIMEOUT_PPM = _P.take("P_TIMEOUT_PPM")
P_LEAVE_PPM = _P.take("P_LEAVE_PPM")
P_SEED = _P.take("P_SEED")
P_TABLE_BASE = _P.take("P_TABLE_BASE")  # table ids of this batch are P_TABLE_BASE + k
P_SB = _P.take("P_SB")
P_BB = _P.take("P_BB")
P_RAKE_CAP = _P.take("P_RAKE_CAP")
P_FAULT = _P.take("P_FAULT")  # injected fault code (sim.faults), 0 = clean
# 0 Philox (reproducible), 1 ChaCha20 keyed from the OS (decks only)
P_GENERATOR = _P.take("P_GENERATOR")
P_KEY_ = _P.take("P_KEY_", 8)  # 8 words of the ChaCha20 key
# 0 classic stress bots, 1 the real population (styles, buy-in range, leaving)
P_BOTS = _P.take("P_BOTS")
P_BUY_IN_MIN = _P.take("P_BUY_IN_MIN")  # cash minimum buy-in (real population)
P_LEAVE_ABOVE = _P.take("P_LEAVE_ABOVE")  # cash: a stack above this leaves (0: never; real)
P_TOURN_STACK = _P.take("P_TOURN_STACK")  # tournament starting stack
# the game's own schedule (``RunSpec``'s game fields; every one 0 or -1 = today's default)
P_ANTE = _P.take("P_ANTE")  # cash: the ante in chips (0: none)
P_ANTE_MODE = _P.take("P_ANTE_MODE")  # cash: its AnteMode (UNIFORM or BIG_BLIND)
P_RAKE_CAPS_ = _P.take("P_RAKE_CAPS_", MAX_SEATS + 1)  # cash: cap at n players dealt in (-1)
P_SMALL_BET = _P.take("P_SMALL_BET")  # fixed-limit cash small bet (0: the big blind)
P_BIG_BET = _P.take("P_BIG_BET")  # fixed-limit cash big bet (0: twice the small bet)
P_N_LEVELS = _P.take("P_N_LEVELS")  # tournament: levels given (0: LEVEL_MULT of the blinds)
P_LEVEL_ANTE_MODE = _P.take("P_LEVEL_ANTE_MODE")  # with levels: the AnteMode of their antes
P_LEVELS_ = _P.take("P_LEVELS_", 3 * MAX_LEVELS)  # (sb, bb, ante) a level
P_BOT_MIX = _P.take("P_BOT_MIX")  # 1: seats draw from P_BOT_W_ (else the population's draw)
P_BOT_W_ = _P.take("P_BOT_W_", N_BOT_NAMES)  # weight of each built-in bot
# Python bots (``sim.pybots``): how many, and the weight of each (policy codes FIRST_CODE + i);
# without P_BOT_MIX the population's own draw weighs PY_POPULATION_WEIGHT beside them
P_PY_N = _P.take("P_PY_N")
P_PY_W_ = _P.take("P_PY_W_", MAX_BOTS)
# tournament re-buys (P_RB_MAX 0: none): at most P_RB_MAX a player, before a hand of a level
# below P_RB_UNTIL, by a player whose stack is at most P_RB_BELOW, for P_RB_CHIPS chips; the
# add-on (P_AO_CHIPS 0: none) before the table's first hand of level P_AO_LEVEL or above
P_RB_MAX = _P.take("P_RB_MAX")
P_RB_UNTIL = _P.take("P_RB_UNTIL")
P_RB_BELOW = _P.take("P_RB_BELOW")
P_RB_CHIPS = _P.take("P_RB_CHIPS")
P_AO_LEVEL = _P.take("P_AO_LEVEL")
P_AO_CHIPS = _P.take("P_AO_CHIPS")
# levels by time (0: by hands): a hand lasts P_SEC_HAND + P_SEC_ACTION x its player actions
P_LEVEL_SECONDS = _P.take("P_LEVEL_SECONDS")
P_SEC_HAND = _P.take("P_SEC_HAND")
P_SEC_ACTION = _P.take("P_SEC_ACTION")
# cash straddle (docs/game.md): its chips (0: none) and the percent of hands (with at least 3
# players dealt in) whose seat left of the big blind posts it, drawn from the table stream
P_STRADDLE = _P.take("P_STRADDLE")
P_STRADDLE_PCT = _P.take("P_STRADDLE_PCT")
P_STRADDLE_RAISE = _P.take("P_STRADDLE_RAISE")  # 1: a raise adds the straddle; 0: a big blind
P_SIZE = _P.size

# --- TS: the current table ---
_T = Blocks("table")
T_TABLE = _T.take("T_TABLE")  # index of the table within the batch (-1 before the first)
T_HAND = _T.take("T_HAND")  # next hand number at this table
T_BUTTON = _T.take("T_BUTTON")
# tournament: last hand's small blind position (a seat, maybe empty)
T_SB_POS = _T.take("T_SB_POS")
T_BB_POS = _T.take("T_BB_POS")
T_LIVE_PREV = _T.take("T_LIVE_PREV")  # players at the previous hand
# tournament: the AnteMode of the table's antes (UNIFORM from level 3, BIG_BLIND from level 4)
T_ANTE_KIND = _T.take("T_ANTE_KIND")
T_STACK_ = _T.take("T_STACK_", MAX_SEATS)
T_POLICY_ = _T.take("T_POLICY_", MAX_SEATS)
T_AWAY_ = _T.take("T_AWAY_", MAX_SEATS)  # cash: hands until a new player takes the empty seat
# the seat's player: 16 * (index in the batch of his first hand) + seat; -1 none
T_PLAYER_ = _T.take("T_PLAYER_", MAX_SEATS)
T_ELAPSED = _T.take("T_ELAPSED")  # tournament: the table's seconds before the next hand
T_AO_DONE = _T.take("T_AO_DONE")  # tournament: the add-on was offered
T_RB_N_ = _T.take("T_RB_N_", MAX_SEATS)  # tournament: re-buys the seat's player took
T_OUT_ = _T.take("T_OUT_", MAX_SEATS)  # tournament: 1 once the seat's player is eliminated
T_SIZE = _T.size

# --- per-hand scalar outputs H[i, :] ---
_H = Blocks("hand")
H_TABLE = _H.take("H_TABLE")
H_HAND_NO = _H.take("H_HAND_NO")
H_BUTTON = _H.take("H_BUTTON")
H_SB = _H.take("H_SB")
H_BB = _H.take("H_BB")
H_SB_AMT = _H.take("H_SB_AMT")
H_BB_AMT = _H.take("H_BB_AMT")
H_ANTE = _H.take("H_ANTE")
H_ANTE_MODE = _H.take("H_ANTE_MODE")
H_LEVEL = _H.take("H_LEVEL")
H_RAKE = _H.take("H_RAKE")
H_N_BOARD = _H.take("H_N_BOARD")
H_N_BURN = _H.take("H_N_BURN")
H_N_POTS = _H.take("H_N_POTS")
H_N_SHOW = _H.take("H_N_SHOW")
# actions of hand i are ACT[H_ACT_END of i-1 : H_ACT_END of i]
H_ACT_END = _H.take("H_ACT_END")
H_MIN_BET = _H.take("H_MIN_BET")
H_SMALL_BET = _H.take("H_SMALL_BET")
H_BIG_BET = _H.take("H_BIG_BET")
H_RAKE_CAP = _H.take("H_RAKE_CAP")
H_SIZE = _H.size

# --- per-seat outputs SE[field, i, seat] ---
_SE = Blocks("seat")
SE_OCC = _SE.take("SE_OCC")
SE_POLICY = _SE.take("SE_POLICY")
SE_START = _SE.take("SE_START")
SE_REBUY = _SE.take("SE_REBUY")
SE_END = _SE.take("SE_END")
SE_CONTRIB = _SE.take("SE_CONTRIB")
SE_RETURNED = _SE.take("SE_RETURNED")
SE_WON = _SE.take("SE_WON")
SE_FOLDED = _SE.take("SE_FOLDED")
SE_TIMEOUT = _SE.take("SE_TIMEOUT")
SE_HOLE0 = _SE.take("SE_HOLE0")
SE_HOLE1 = _SE.take("SE_HOLE1")
# T_PLAYER_ of the seat's player (sim.batch makes it the run-wide player id)
SE_PLAYER = _SE.take("SE_PLAYER")
SE_SIZE = _SE.size

# --- rule-path counters: each piece is named as in the manifest's ``counts`` ---
_C = Blocks("counts")
C_HANDS = _C.take("hands")
C_SHOWDOWNS = _C.take("showdowns")
C_SIDE_POTS_3 = _C.take("side_pots_3_or_more")  # hands with 3 or more pots
# split pots whose chips did not divide evenly
C_ODD_CHIP_SPLITS = _C.take("split_pots_odd_chips")
C_SHORT_NOT_REOPENED_ = _C.take("short_all_in_not_reopened")
C_SHORT_REOPENED_ = _C.take("short_all_in_reopened")
C_FL_CAPS = _C.take("fixed_limit_caps")
C_PL_MAX_RAISES = _C.take("pot_limit_max_raises")
C_RAKE_CAP_HIT = _C.take("rake_cap_hit")
C_DEAD_SB = _C.take("dead_small_blinds")
C_HU_TRANSITIONS = _C.take("heads_up_transitions")
C_TIMEOUTS = _C.take("timeouts")
C_REBUYS = _C.take("rebuys")
C_UNCALLED = _C.take("uncalled_returns")
C_SHORT_ALLINS = _C.take("short_all_ins")
C_DEAD_BUTTON = _C.take("dead_buttons")
C_TABLES = _C.take("tables")
C_SPLIT_POTS = _C.take("split_pots")
# hands in which the injected fault changed something (0 for a clean run)
C_FAULT_FIRED = _C.take("fault_fired")
C_UNCONTESTED = _C.take("uncontested")  # hands won without a showdown
# everyone folded to the big blind (no call, bet or raise)
C_WALKS = _C.take("walks")
C_ALL_INS = _C.take("all_ins")  # hands with a player all-in
C_SIDE_POTS = _C.take("side_pots")  # hands with 2 or more pots
C_SHORT_BLINDS = _C.take("short_blinds")  # blinds posted all-in for less than the blind
C_ANTE_ALL_INS = _C.take("ante_all_ins")  # antes posted all-in for less than the ante
C_ELIMINATIONS = _C.take("eliminations")  # tournament players busted
# cash players who left with a stack above the leave threshold
C_LEAVES_ABOVE = _C.take("leaves_above_max")
# player decisions before the flop that were folds
C_PREFLOP_FOLDS = _C.take("preflop_folds")
# player decisions before the flop (fold, check, call, bet, raise)
C_PREFLOP_DECISIONS = _C.take("preflop_decisions")
C_ANTES = _C.take("ante_hands")  # hands with antes
C_DISCONNECTS = _C.take("disconnects")  # players who left mid-hand (LEAVE)
N_COUNTS = _C.size
COUNT_NAMES = tuple(name for name, _, _ in _C.pieces)

PY_POPULATION_WEIGHT = 100
LEVEL_MULT = np.array([1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 120,
                       150, 200, 250, 300, 400, 500, 600, 800, 1000], dtype=np.int64)
ANTE_FROM_LEVEL = 4
UNIFORM_ANTE_FROM_LEVEL = 3  # real population, ante kind 1: an eighth of the big blind
TOPUP_PCT = 10  # real cash: per-hand chance that a player below the minimum buy-in tops up
REBUY_PCT = 60  # real cash: a busted player rebuys (else he leaves and a new player comes)
# tournament re-buys: a busted player rebuys at REBUY_PCT, a short one (chips left, at or below
# the game's threshold) at SHORT_REBUY_PCT a hand; a player still in takes the add-on at ADD_ON_PCT
SHORT_REBUY_PCT = 25
ADD_ON_PCT = 70
MUCKS_WINNER_ONE_IN = 20  # mucks-winner: planted in 1 hand of 20 (fires at its showdowns)
WRONG_STREAM_ONE_IN = 50  # wrong-stream-position: 1 hand of 50
CHIP_LOST_ONE_IN = 10_000
ROTATION_ONE_IN = 50  # button-skips, bb-twice
# a player leaves mid-hand (disconnects: LEAVE) at a quarter of the per-decision timeout rate
DISCONNECTS_PER_TIMEOUT = 4
MAX_HAND_ROWS = DEFAULT_LOG_ROWS  # log rows (and action records) a hand may use

# --- W: play_tables's scratch rows (new_workspace), one piece a row ---
_W = Blocks("workspace")
W_STATE = _W.take("W_STATE")  # the hand's state (sim.layout)
W_LEGAL = _W.take("W_LEGAL")  # the legal-actions vector
W_DECKS = _W.take("W_DECKS")  # the hand's deck and its fair twin (_WD)
W_STACKS = _W.take("W_STACKS")  # stacks at the start of the hand, by seat
W_ANTES = _W.take("W_ANTES")  # antes owed, by seat
W_REBUYS = _W.take("W_REBUYS")  # chips added before the hand, by seat
W_TIMED_OUT = _W.take("W_TIMED_OUT")  # 1 for the seat that timed out
W_CONFIG = _W.take("W_CONFIG")  # the hand's config block (sim.layout.CONFIG_BLOCK)
W_CHACHA = _W.take("W_CHACHA")  # the ChaCha20 state (sim.chacha)
W_ROWS = _W.size
# --- the W_DECKS row's columns ---
_WD = Blocks("workspace decks")
WD_DECK_ = _WD.take("WD_DECK_", N_CARDS)  # the deck the hand deals from
WD_FAIR_ = _WD.take("WD_FAIR_", N_CARDS)  # injected shuffle faults: the deck the hand's key gives
# the columns each row uses; W is as wide as the widest
W_USED = {W_STATE: STATE_SIZE, W_LEGAL: LG_SIZE, W_DECKS: _WD.size, W_STACKS: MAX_SEATS,
          W_ANTES: MAX_SEATS, W_REBUYS: MAX_SEATS, W_TIMED_OUT: MAX_SEATS, W_CONFIG: CONFIG_BLOCK,
          W_CHACHA: CHACHA_SIZE}
W_WIDTH = max(W_USED.values())

LAYOUTS = (_P, _T, _H, _SE, _C, _W, _WD)  # every layout declared here (tests/sim/test_layout.py)


def new_workspace() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scratch arrays for ``play_tables``: (W, log, rs)."""
    return (np.zeros((W_ROWS, W_WIDTH), dtype=np.int64),
            np.zeros((MAX_HAND_ROWS, LOG_COLS), dtype=np.int64),
            np.zeros((3, STREAM_SIZE), dtype=np.uint64))


@njit(cache=True, _nrt=False)
def _next_occupied(TS, n, seat):
    s = seat
    for _ in range(n):
        s = s + 1 if s + 1 < n else 0
        if TS[T_STACK_ + s] > 0:
            return s
    return -1


@njit(cache=True, _nrt=False)
def _count_occupied(TS, n):
    c = 0
    for s in range(n):
        if TS[T_STACK_ + s] > 0:
            c += 1
    return c


@njit(cache=True, _nrt=False)
def _weight_sum(P, first, n):
    total = 0
    for j in range(n):
        total += P[first + j]
    return total


@njit(cache=True, _nrt=False)
def _weighted_pick(P, first, n, r):
    """The j in 0..n-1 whose weight ``P[first + j]`` a draw ``r`` falls in (the weights laid end
    to end, in order); -1 when ``r`` is past them all."""
    for j in range(n):
        if r < P[first + j]:
            return j
        r -= P[first + j]
    return -1


@njit(cache=True, _nrt=False)
def _draw_policy(P, rs):
    """A seat's bot. With the game's mix or Python bots: one draw over the built-in share (the
    mix's weights, or ``PY_POPULATION_WEIGHT`` for the population's own draw) and each Python
    bot's weight; a draw that lands in the built-in share without a mix (or in a mix of no
    weight) draws the population's bot."""
    n_py = P[P_PY_N]
    mix = P[P_BOT_MIX] == 1
    if mix or n_py > 0:
        builtin = _weight_sum(P, P_BOT_W_, N_BOT_NAMES) if mix else PY_POPULATION_WEIGHT
        r = below(rs, builtin + _weight_sum(P, P_PY_W_, n_py))
        if r >= builtin and n_py > 0:
            return FIRST_CODE + _weighted_pick(P, P_PY_W_, n_py, r - builtin)
        if mix:
            p = _weighted_pick(P, P_BOT_W_, N_BOT_NAMES, r)
            if p >= 0:
                return p
    if P[P_BOTS] == 0:
        return below(rs, N_POLICIES)
    return draw_real_policy(rs)


@njit(cache=True, _nrt=False)
def _python_bot(policy, seat, seed, table_id, hand_no):
    """(kind, amount) of a Python bot (``sim.pybots.python_decision``), called out of the
    compiled loop (numba objmode: boxes five integers, runs the bot, unboxes two)."""
    with objmode(kind="int64", amount="int64"):
        kind, amount = python_decision(policy, seat, seed, table_id, hand_no)
    return kind, amount


@njit(cache=True, _nrt=False)
def _buy_in(P, rs):
    """A cash buy-in: the fixed one (classic), else 30% the minimum, 40% the maximum, the rest
    anywhere between."""
    hi = P[P_BUY_IN]
    lo = P[P_BUY_IN_MIN]
    if P[P_BOTS] == 0 or lo >= hi:
        return hi
    r = below(rs, 100)
    if r < 30:
        return lo
    if r < 70:
        return hi
    return lo + below(rs, hi - lo + 1)


@njit(cache=True, _nrt=False)
def _new_table(TS, P, rs):
    n = P[P_N_SEATS]
    TS[T_TABLE] += 1
    TS[T_HAND] = 0
    stream_init(rs, P[P_SEED], P[P_TABLE_BASE] + TS[T_TABLE], 0, TABLE_PURPOSE)
    tournament = P[P_FORMAT] == 1
    for s in range(MAX_SEATS):
        if s < n:
            TS[T_STACK_ + s] = P[P_TOURN_STACK] if tournament else _buy_in(P, rs)
            TS[T_POLICY_ + s] = _draw_policy(P, rs)
        else:
            TS[T_STACK_ + s] = 0
            TS[T_POLICY_ + s] = -1
        TS[T_AWAY_ + s] = 0
        TS[T_RB_N_ + s] = 0
        TS[T_OUT_ + s] = 0
    TS[T_ELAPSED] = 0
    TS[T_AO_DONE] = 0
    TS[T_BUTTON] = below(rs, n)
    TS[T_LIVE_PREV] = n
    if P[P_BOTS] == 0:
        TS[T_ANTE_KIND] = ANTE_BIG_BLIND
    else:
        TS[T_ANTE_KIND] = ANTE_UNIFORM if below(rs, 2) == 0 else ANTE_BIG_BLIND
    if P[P_N_LEVELS] > 0:  # the game's levels say who antes
        TS[T_ANTE_KIND] = P[P_LEVEL_ANTE_MODE]


@njit(cache=True, _nrt=False)
def _level(TS, P, hand_no):
    """A tournament hand's level: by time (the table's elapsed seconds // P_LEVEL_SECONDS)
    when the game sets it, else hand_no // P_LEVEL_HANDS."""
    if P[P_LEVEL_SECONDS] > 0:
        return TS[T_ELAPSED] // P[P_LEVEL_SECONDS]
    return hand_no // P[P_LEVEL_HANDS]


@njit(cache=True, _nrt=False)
def _tournament_between_hands(TS, P, rs, rebuys, counts):
    """Re-buys and the add-on before a tournament hand (not a table's first), drawn from the
    table's stream ``rs`` (TABLE_PURPOSE of the coming hand): in the re-buy levels a player at
    or below the threshold who has re-buys left rebuys at REBUY_PCT (busted) or
    SHORT_REBUY_PCT (chips left); a busted player who does not is eliminated for good. Before
    the table's first hand at the add-on level, each player with chips takes it at
    ADD_ON_PCT."""
    n = P[P_N_SEATS]
    level = _level(TS, P, TS[T_HAND])
    open_ = P[P_RB_MAX] > 0 and level < P[P_RB_UNTIL]
    for s in range(n):
        st = TS[T_STACK_ + s]
        if TS[T_OUT_ + s] == 1:
            continue
        if open_ and st <= P[P_RB_BELOW] and TS[T_RB_N_ + s] < P[P_RB_MAX]:
            if below(rs, 100) < (REBUY_PCT if st == 0 else SHORT_REBUY_PCT):
                rebuys[s] += P[P_RB_CHIPS]
                TS[T_STACK_ + s] = st + P[P_RB_CHIPS]
                TS[T_RB_N_ + s] += 1
                counts[C_REBUYS] += 1
                continue
        if st == 0:
            TS[T_OUT_ + s] = 1
    if P[P_AO_CHIPS] > 0 and TS[T_AO_DONE] == 0 and level >= P[P_AO_LEVEL]:
        TS[T_AO_DONE] = 1
        for s in range(n):
            if TS[T_STACK_ + s] > 0 and below(rs, 100) < ADD_ON_PCT:
                rebuys[s] += P[P_AO_CHIPS]
                TS[T_STACK_ + s] += P[P_AO_CHIPS]
                counts[C_REBUYS] += 1


@njit(cache=True, _nrt=False)
def _cash_must_end(TS, P):
    """Real cash: a player past the leave threshold would leave a table of two."""
    if P[P_LEAVE_ABOVE] <= 0 or _count_occupied(TS, P[P_N_SEATS]) > 2:
        return False
    for s in range(P[P_N_SEATS]):
        if TS[T_STACK_ + s] > P[P_LEAVE_ABOVE]:
            return True
    return False


@njit(cache=True, _nrt=False)
def _cash_between_hands_real(TS, P, rs, rebuys, counts):
    """``_cash_between_hands`` of the real population: drawn buy-ins, busted players rebuy or
    leave, short stacks top up now and then, rich players leave."""
    n = P[P_N_SEATS]
    for s in range(n):
        if TS[T_STACK_ + s] == 0 and TS[T_AWAY_ + s] > 0:
            TS[T_AWAY_ + s] -= 1
            if TS[T_AWAY_ + s] == 0:  # a new player sits down
                TS[T_STACK_ + s] = _buy_in(P, rs)
                TS[T_POLICY_ + s] = _draw_policy(P, rs)
                rebuys[s] = TS[T_STACK_ + s]
    for s in range(n):
        st = TS[T_STACK_ + s]
        if rebuys[s] != 0:
            continue
        if st > 0:
            rich = P[P_LEAVE_ABOVE] > 0 and st > P[P_LEAVE_ABOVE]
            if (rich or below(rs, 1_000_000) < P[P_LEAVE_PPM]) and _count_occupied(TS, n) > 2:
                TS[T_STACK_ + s] = 0  # leaves with his chips
                TS[T_AWAY_ + s] = 1 + below(rs, 20)
                if rich:
                    counts[C_LEAVES_ABOVE] += 1
            elif st < P[P_BUY_IN_MIN] and below(rs, 100) < TOPUP_PCT:
                b = _buy_in(P, rs)
                if b > st:
                    rebuys[s] = b - st
                    TS[T_STACK_ + s] = b
                    counts[C_REBUYS] += 1
        elif TS[T_AWAY_ + s] == 0:  # busted at the last hand
            if below(rs, 100) < REBUY_PCT or _count_occupied(TS, n) < 2:
                rebuys[s] = _buy_in(P, rs)
                TS[T_STACK_ + s] = rebuys[s]
                counts[C_REBUYS] += 1
            else:
                TS[T_AWAY_ + s] = 1 + below(rs, 20)
    if _count_occupied(TS, n) < 2:  # keep at least two players
        for s in range(n):
            if TS[T_STACK_ + s] == 0 and _count_occupied(TS, n) < 2:
                TS[T_STACK_ + s] = _buy_in(P, rs)
                TS[T_AWAY_ + s] = 0
                rebuys[s] = TS[T_STACK_ + s]


@njit(cache=True, _nrt=False)
def _cash_between_hands(TS, P, rs, rebuys, counts):
    """Leaves, new players and top-ups before a cash hand (not before a table's first)."""
    n = P[P_N_SEATS]
    buy_in = P[P_BUY_IN]
    for s in range(n):
        if TS[T_STACK_ + s] == 0 and TS[T_AWAY_ + s] > 0:
            TS[T_AWAY_ + s] -= 1
            if TS[T_AWAY_ + s] == 0:  # a new player sits down
                TS[T_STACK_ + s] = buy_in
                TS[T_POLICY_ + s] = _draw_policy(P, rs)  # below(rs, N_POLICIES) unless a game
                rebuys[s] = buy_in
    for s in range(n):
        st = TS[T_STACK_ + s]
        if st > 0 and rebuys[s] == 0 and below(rs, 1_000_000) < P[P_LEAVE_PPM] \
                and _count_occupied(TS, n) > 2:
            TS[T_STACK_ + s] = 0  # leaves with his chips
            TS[T_AWAY_ + s] = 1 + below(rs, 20)
        elif rebuys[s] == 0 and (st == 0 and TS[T_AWAY_ + s] == 0 or 0 < st < buy_in // 2):
            rebuys[s] = buy_in - st
            TS[T_STACK_ + s] = buy_in
            counts[C_REBUYS] += 1
    # busted players who did not leave were topped up above; keep at least two players
    if _count_occupied(TS, n) < 2:
        for s in range(n):
            if TS[T_STACK_ + s] == 0 and _count_occupied(TS, n) < 2:
                TS[T_STACK_ + s] = buy_in
                TS[T_AWAY_ + s] = 0
                rebuys[s] = buy_in


@njit(cache=True, _nrt=False)
def _draw_live_seat(S, n, rs):
    """A seat still in the hand (active or all-in), drawn uniformly."""
    live = 0
    for s in range(n):
        if S[STATUS_ + s] == S_ACTIVE or S[STATUS_ + s] == S_ALL_IN:
            live += 1
    r = below(rs, live)
    for s in range(n):
        if S[STATUS_ + s] == S_ACTIVE or S[STATUS_ + s] == S_ALL_IN:
            if r == 0:
                return s
            r -= 1
    return -1


@njit(cache=True, _nrt=False)
def _seat_players(TS, n, i):
    """Player identity after a cash table's leaves and arrivals before hand ``i``: a seat left
    empty (its player gone) forgets him; a player in a seat that had none is new, tagged
    ``16 * i + seat``. A busted player who rebuys keeps his tag (he never left the seat)."""
    for s in range(n):
        if TS[T_STACK_ + s] == 0 and TS[T_AWAY_ + s] > 0:
            TS[T_PLAYER_ + s] = -1
        elif TS[T_STACK_ + s] > 0 and TS[T_PLAYER_ + s] < 0:
            TS[T_PLAYER_ + s] = 16 * i + s


@njit(cache=True, _nrt=False)
def _positions(TS, P, first, counts, rs):
    """(button, sb_seat, bb_seat, fired) for the next hand; updates the table's position
    memory. ``fired``: an injected rotation fault dealt other positions than the clean rules."""
    n = P[P_N_SEATS]
    if first or not is_rotation_fault(P[P_FAULT]) or below(rs, ROTATION_ONE_IN) != 0:
        button, sb, bb = _moved_positions(TS, P, first, counts)
        return button, sb, bb, False
    # a faulty hand: first what the clean rules would deal (then forgotten), then the fault
    b0, sb0, bb0 = TS[T_BUTTON], TS[T_SB_POS], TS[T_BB_POS]
    c0, c1, c2 = counts[C_HU_TRANSITIONS], counts[C_DEAD_SB], counts[C_DEAD_BUTTON]
    cb, csb, cbb = _moved_positions(TS, P, first, counts)
    TS[T_BUTTON], TS[T_SB_POS], TS[T_BB_POS] = b0, sb0, bb0
    counts[C_HU_TRANSITIONS], counts[C_DEAD_SB], counts[C_DEAD_BUTTON] = c0, c1, c2
    if P[P_FAULT] == F_BB_TWICE and TS[T_STACK_ + bb0] > 0 and TS[T_STACK_ + sb0] > 0 \
            and TS[T_STACK_ + b0] > 0 and sb0 != bb0:
        button, sb, bb = b0, sb0, bb0  # FAULT: nothing moves, the big blind posts twice
    else:
        if P[P_FAULT] == F_BUTTON_SKIPS:
            TS[T_BUTTON] = _next_occupied(TS, n, TS[T_BUTTON])  # FAULT: skip a seat
            TS[T_BB_POS] = _next_occupied(TS, n, TS[T_BB_POS])
        button, sb, bb = _moved_positions(TS, P, first, counts)
    return button, sb, bb, button != cb or sb != csb or bb != cbb


@njit(cache=True, _nrt=False)
def _straddler(TS, n, sb, bb):
    """The seat that straddles: the first seat with chips left of the big blind, posting no
    blind; -1 with fewer than 3 players dealt in (heads-up has no straddle)."""
    if _count_occupied(TS, n) < 3:
        return -1
    s = _next_occupied(TS, n, bb)
    return s if s != sb and s != bb else -1


@njit(cache=True, _nrt=False)
def _moved_positions(TS, P, first, counts):
    """The clean rules of ``_positions`` from the table's position memory."""
    n = P[P_N_SEATS]
    live = _count_occupied(TS, n)
    if P[P_FORMAT] == 0 or first:
        button = TS[T_BUTTON] if first else _next_occupied(TS, n, TS[T_BUTTON])
        if TS[T_STACK_ + button] == 0:
            button = _next_occupied(TS, n, button)
        if live == 2:
            sb = button
            bb = _next_occupied(TS, n, button)
        else:
            sb = _next_occupied(TS, n, button)
            bb = _next_occupied(TS, n, sb)
        TS[T_BUTTON] = button
        TS[T_SB_POS] = sb
        TS[T_BB_POS] = bb
        return button, sb, bb
    # tournament, dead button: the big blind always advances to the next live player
    bb = _next_occupied(TS, n, TS[T_BB_POS])
    if live == 2:
        other = _next_occupied(TS, n, bb)
        button, sb = other, other
        if TS[T_LIVE_PREV] > 2:
            counts[C_HU_TRANSITIONS] += 1
    else:
        sb = TS[T_BB_POS]
        button = TS[T_SB_POS]
        if TS[T_STACK_ + sb] == 0:
            sb = -1
            counts[C_DEAD_SB] += 1
        if TS[T_STACK_ + button] == 0:
            counts[C_DEAD_BUTTON] += 1
    TS[T_BUTTON] = button
    TS[T_SB_POS] = sb if sb >= 0 else TS[T_BB_POS]
    TS[T_BB_POS] = bb
    return button, sb, bb


@njit(cache=True, _nrt=False)
def play_tables(cfg, P, TS, n_hands, start, H, SE, DECK, BOARD, BURNS, SHOW, POTS, ACT,
                counts, W, log, rs, py=None):
    """Play hands ``start .. n_hands - 1`` of a batch. Returns the index of the first hand not
    played (== n_hands when done; less when the action buffer ACT is nearly full).

    ``W``, ``log`` and ``rs`` are the workspace from ``new_workspace`` (compiled without the
    reference-counting runtime, this function allocates nothing).

    ``py``: None (the default) for a run of built-in bots only: that compiled variant holds no
    call out of compiled code (the branch below is pruned at compile time). ``True`` for a run
    with Python bots (``sim.pybots``, bound to ``W`` by the caller): a seat whose policy code
    is ``FIRST_CODE`` or more decides in Python, with a seed drawn from the hand's policy
    stream (the built-in bots' draws are unchanged)."""
    S = W[W_STATE]
    lg = W[W_LEGAL, :LG_SIZE]
    deck = W[W_DECKS, WD_DECK_ : WD_DECK_ + N_CARDS]
    fair = W[W_DECKS, WD_FAIR_ : WD_FAIR_ + N_CARDS]
    stacks = W[W_STACKS, :MAX_SEATS]
    antes = W[W_ANTES, :MAX_SEATS]
    rebuys = W[W_REBUYS, :MAX_SEATS]
    timed_out = W[W_TIMED_OUT, :MAX_SEATS]
    hcfg = W[W_CONFIG, :cfg.shape[0]]
    cs = W[W_CHACHA, :CHACHA_SIZE]
    chacha_key = P[P_KEY_ : P_KEY_ + 8]
    for k in range(cfg.shape[0]):
        hcfg[k] = cfg[k]
    rs_deck = rs[0]
    rs_bot = rs[1]
    rs_tab = rs[2]
    n = P[P_N_SEATS]
    act_pos = H[start - 1, H_ACT_END] if start > 0 else 0
    i = start
    while i < n_hands:
        if act_pos + MAX_HAND_ROWS > ACT.shape[0]:
            return i
        tournament = P[P_FORMAT] == 1
        for s in range(n):
            rebuys[s] = 0
            timed_out[s] = 0
        end_table = TS[T_TABLE] < 0
        drawn = False  # the table's stream of this hand already started (tournament re-buys)
        if not end_table:
            if tournament:
                if P[P_RB_MAX] > 0 or P[P_AO_CHIPS] > 0:
                    stream_init(rs_tab, P[P_SEED], P[P_TABLE_BASE] + TS[T_TABLE], TS[T_HAND],
                                TABLE_PURPOSE)
                    _tournament_between_hands(TS, P, rs_tab, rebuys, counts)
                    drawn = True
                end_table = _count_occupied(TS, n) < 2
            else:
                end_table = TS[T_HAND] >= P[P_HANDS_PER_TABLE] or _cash_must_end(TS, P)
        first = False
        if end_table:
            _new_table(TS, P, rs_tab)
            counts[C_TABLES] += 1
            first = True
            for s in range(n):
                rebuys[s] = TS[T_STACK_ + s]
            for s in range(MAX_SEATS):
                TS[T_PLAYER_ + s] = 16 * i + s if s < n else -1
        table_id = P[P_TABLE_BASE] + TS[T_TABLE]
        hand_no = TS[T_HAND]
        if first or not drawn:
            stream_init(rs_tab, P[P_SEED], table_id, hand_no, TABLE_PURPOSE)
        if not first and not tournament:
            if P[P_BOTS] == 0:
                _cash_between_hands(TS, P, rs_tab, rebuys, counts)
            else:
                _cash_between_hands_real(TS, P, rs_tab, rebuys, counts)
            _seat_players(TS, n, i)
        button, sb, bb, fired = _positions(TS, P, first, counts, rs_tab)
        TS[T_LIVE_PREV] = _count_occupied(TS, n)
        # blinds and antes of this hand
        level = _level(TS, P, hand_no) if tournament else 0
        ante = 0
        ante_mode = ANTE_NONE
        if tournament and P[P_N_LEVELS] > 0:  # the game's levels (the last one stays)
            at = P_LEVELS_ + 3 * min(level, P[P_N_LEVELS] - 1)
            sb_amt, bb_amt, ante = P[at], P[at + 1], P[at + 2]
            if ante > 0:
                ante_mode = TS[T_ANTE_KIND]
        else:
            mult = LEVEL_MULT[min(level, LEVEL_MULT.shape[0] - 1)]
            bb_amt = P[P_BB] * mult
            sb_amt = max(1, (P[P_SB] * mult))
        if tournament and P[P_N_LEVELS] == 0:
            if TS[T_ANTE_KIND] == ANTE_UNIFORM and level >= UNIFORM_ANTE_FROM_LEVEL:
                ante = max(1, bb_amt // 8)
                ante_mode = ANTE_UNIFORM
            elif TS[T_ANTE_KIND] == ANTE_BIG_BLIND and level >= ANTE_FROM_LEVEL:
                ante = bb_amt
                ante_mode = ANTE_BIG_BLIND
        elif not tournament and P[P_ANTE] > 0:  # the game's cash ante
            ante = P[P_ANTE]
            ante_mode = P[P_ANTE_MODE]
        small_bet = P[P_SMALL_BET] if not tournament and P[P_SMALL_BET] > 0 else bb_amt
        big_bet = P[P_BIG_BET] if not tournament and P[P_BIG_BET] > 0 else 2 * small_bet
        rake_cap = P[P_RAKE_CAP]
        for s in range(n):
            stacks[s] = TS[T_STACK_ + s]
        if not tournament and P[P_RAKE_CAPS_ + _count_occupied(TS, n)] >= 0:
            rake_cap = P[P_RAKE_CAPS_ + _count_occupied(TS, n)]  # the cap at this many players
        hcfg[SMALL_BLIND] = sb_amt
        hcfg[BIG_BLIND] = bb_amt
        hcfg[MIN_BET] = bb_amt
        hcfg[SMALL_BET] = small_bet
        hcfg[BIG_BET] = big_bet
        hcfg[RAKE_CAP] = rake_cap
        for s in range(n):
            antes[s] = ante if (s == bb and ante_mode == ANTE_BIG_BLIND) \
                or ante_mode == ANTE_UNIFORM else 0
        stream_init(rs_deck, P[P_SEED], table_id, hand_no, DECK_PURPOSE)
        stream_init(rs_bot, P[P_SEED], table_id, hand_no, POLICY_PURPOSE)
        fault = P[P_FAULT]
        if is_shuffle_fault(fault):
            faulty_shuffle(rs_deck, deck, fault)
        elif P[P_GENERATOR] == 1:
            chacha_init(cs, chacha_key, table_id, hand_no)
            chacha_shuffle(cs, deck)
        else:
            if fault == F_WRONG_STREAM and below(rs_tab, WRONG_STREAM_ONE_IN) == 0:
                next_u64(rs_deck)  # FAULT: one 64-bit word of the deck stream skipped
            shuffle_deck(rs_deck, deck)
        if is_shuffle_fault(fault) and P[P_GENERATOR] == 1:
            fired = True  # the faulty shuffle replaced the generator altogether
        elif is_shuffle_fault(fault) or (fault == F_WRONG_STREAM and P[P_GENERATOR] == 0):
            # fired: the deck differs from the one its key (seed, table, hand) gives
            stream_init(rs_deck, P[P_SEED], table_id, hand_no, DECK_PURPOSE)
            shuffle_deck(rs_deck, fair)
            for k in range(N_CARDS):
                if fair[k] != deck[k]:
                    fired = True
        hcfg[CONFIG_SIZE] = 0
        if fault == F_CHIP_LOST:
            if below(rs_tab, CHIP_LOST_ONE_IN) == 0:
                hcfg[CONFIG_SIZE] = fault
        elif fault == F_MUCKS_WINNER:
            if below(rs_tab, MUCKS_WINNER_ONE_IN) == 0:
                hcfg[CONFIG_SIZE] = fault
        elif is_engine_fault(fault):  # the engine's other faults act on every hand
            hcfg[CONFIG_SIZE] = fault
        straddler = -1
        if P[P_STRADDLE] > 0 and not tournament:
            straddler = _straddler(TS, n, sb, bb)
            if straddler >= 0 and P[P_STRADDLE_PCT] < 100 \
                    and below(rs_tab, 100) >= P[P_STRADDLE_PCT]:
                straddler = -1  # an optional straddle not taken this hand
        if straddler >= 0:
            engine.start_hand_straddle(S, log, hcfg, stacks, antes, button, sb, bb, deck,
                                       straddler, P[P_STRADDLE], 0, P[P_STRADDLE_RAISE])
        else:
            engine.start_hand(S, log, hcfg, stacks, antes, button, sb, bb, deck)
        # at most one timeout a hand: decision number `timeout_at`, which is below any given
        # count of decisions with probability (count * ppm / 1e6): the per-decision rate
        timeout_at = below(rs_tab, 1_000_000 // P[P_TIMEOUT_PPM]) if P[P_TIMEOUT_PPM] > 0 else -1
        # at most one disconnect a hand, the same way at a quarter of that rate: before decision
        # number `leave_at`, a seat still in the hand (any, not only the one to act) leaves
        leave_at = below(rs_tab, DISCONNECTS_PER_TIMEOUT * 1_000_000 // P[P_TIMEOUT_PPM]) \
            if P[P_TIMEOUT_PPM] > 0 else -1
        decision = 0
        while S[STREET] != COMPLETE:
            if decision == leave_at:
                leave_at = -1
                engine.apply(S, log, A_LEAVE, _draw_live_seat(S, n, rs_tab))
                counts[C_DISCONNECTS] += 1
                continue
            engine.legal_inline(S, lg)  # legal and apply inlined here: no call per action
            seat = lg[LG_TO_ACT]
            decision += 1
            if decision - 1 == timeout_at:
                kind = A_CHECK_CALL if lg[LG_CAN_CHECK] else A_FOLD
                amount = 0
                timed_out[seat] = 1
                counts[C_TIMEOUTS] += 1
            elif py is not None and TS[T_POLICY_ + seat] >= FIRST_CODE:
                seed = np.int64(next_u64(rs_bot) >> np.uint64(1))
                kind, amount = _python_bot(TS[T_POLICY_ + seat], seat, seed, table_id, hand_no)
            else:
                kind, amount = decide(TS[T_POLICY_ + seat], rs_bot, S, lg)
            engine.apply_inline(S, log, kind, amount)
        # ---- record the hand ----
        H[i, H_TABLE] = TS[T_TABLE]
        H[i, H_HAND_NO] = hand_no
        H[i, H_BUTTON] = button
        H[i, H_SB] = sb
        H[i, H_BB] = bb
        H[i, H_SB_AMT] = sb_amt
        H[i, H_BB_AMT] = bb_amt
        H[i, H_ANTE] = ante
        H[i, H_ANTE_MODE] = ante_mode
        H[i, H_LEVEL] = level
        H[i, H_RAKE] = S[RAKE]
        H[i, H_N_BOARD] = S[N_BOARD]
        H[i, H_MIN_BET] = bb_amt
        H[i, H_SMALL_BET] = small_bet
        H[i, H_BIG_BET] = big_bet
        H[i, H_RAKE_CAP] = rake_cap
        for k in range(N_CARDS):
            DECK[i, k] = S[DECK_ + k]
        for k in range(BOARD_CARDS):
            BOARD[i, k] = S[BOARD_ + k]
        for s in range(n):
            SE[SE_OCC, i, s] = 1 if stacks[s] > 0 else 0
            SE[SE_POLICY, i, s] = TS[T_POLICY_ + s] if stacks[s] > 0 else -1
            SE[SE_START, i, s] = stacks[s]
            SE[SE_REBUY, i, s] = rebuys[s]
            SE[SE_END, i, s] = S[STACK_ + s]
            SE[SE_CONTRIB, i, s] = S[CONTRIB_ + s]
            SE[SE_RETURNED, i, s] = S[RETURNED_ + s]
            SE[SE_WON, i, s] = S[WON_ + s]
            SE[SE_FOLDED, i, s] = 1 if S[STATUS_ + s] == S_FOLDED else 0
            SE[SE_TIMEOUT, i, s] = timed_out[s]
            SE[SE_HOLE0, i, s] = S[HOLE_ + 2 * s]
            SE[SE_HOLE1, i, s] = S[HOLE_ + 2 * s + 1]
            SE[SE_PLAYER, i, s] = TS[T_PLAYER_ + s] if stacks[s] > 0 else -1
            TS[T_STACK_ + s] = S[STACK_ + s]
        nburn = 0
        n_vol = 0
        n_player = 0
        for r in range(S[N_LOG]):
            kind = log[r, LOG_KIND]
            if is_voluntary_put(kind):
                n_vol += 1
            if is_player_event(kind):
                n_player += 1
                if log[r, LOG_STREET] == PREFLOP:
                    counts[C_PREFLOP_DECISIONS] += 1
                    if kind == E_FOLD:
                        counts[C_PREFLOP_FOLDS] += 1
            if kind == E_ANTE and log[r, LOG_ADDED] < ante:
                counts[C_ANTE_ALL_INS] += 1
            elif (kind == E_SB and log[r, LOG_ADDED] < sb_amt) \
                    or (kind == E_BB and log[r, LOG_ADDED] < bb_amt):
                counts[C_SHORT_BLINDS] += 1
            if kind == E_BURN:
                BURNS[i, nburn] = log[r, LOG_CARD]
                nburn += 1
            elif kind == E_RETURN:
                counts[C_UNCALLED] += 1
            if is_logged_event(kind):  # posts, player actions, returns
                rec = ACT[act_pos]  # the packed sim.schema.ACTION_DTYPE record
                rec["street"] = log[r, LOG_STREET]
                rec["seat"] = log[r, LOG_SEAT]
                rec["kind"] = kind
                rec["to_street_total"] = log[r, LOG_TO]
                rec["added"] = log[r, LOG_ADDED]
                act_pos += 1
        H[i, H_N_BURN] = nburn
        H[i, H_ACT_END] = act_pos
        nshow = S[N_SHOW] if S[STREET] == COMPLETE and S[N_SHOW] > 0 else 0
        H[i, H_N_SHOW] = nshow
        for k in range(nshow):
            s = S[SHOW_ORDER_ + k]
            SHOW[i, k, 0] = s
            SHOW[i, k, 1] = S[SHOWN_ + s]
            SHOW[i, k, 2] = S[STRENGTH_ + s] if S[SHOWN_ + s] == 1 else -1
        npots = S[N_POTS]
        H[i, H_N_POTS] = npots
        for p in range(npots):
            amt = S[POT_AMOUNT_ + p]
            rk = S[POT_RAKE_ + p]
            w = S[POT_WINNERS_ + p]
            POTS[i, p, 0] = amt
            POTS[i, p, 1] = rk
            POTS[i, p, 2] = S[POT_ELIGIBLE_ + p]
            POTS[i, p, 3] = w
            nw = 0
            for s in range(n):
                if w & (1 << s):
                    nw += 1
            if nw > 1:
                counts[C_SPLIT_POTS] += 1
                if (amt - rk) % nw != 0:
                    counts[C_ODD_CHIP_SPLITS] += 1
        counts[C_HANDS] += 1
        if fired or S[FAULT_FIRED] != 0:
            counts[C_FAULT_FIRED] += 1
        if nshow > 1:
            counts[C_SHOWDOWNS] += 1
        else:
            counts[C_UNCONTESTED] += 1
            if S[N_BOARD] == 0 and n_vol == 0 and S[STATUS_ + bb] != S_FOLDED:
                counts[C_WALKS] += 1
        if npots >= 2:
            counts[C_SIDE_POTS] += 1
        if ante > 0:
            counts[C_ANTES] += 1
        for s in range(n):
            if S[STATUS_ + s] == S_ALL_IN:
                counts[C_ALL_INS] += 1
                break
        if tournament:
            for s in range(n):
                if stacks[s] > 0 and S[STACK_ + s] == 0:
                    counts[C_ELIMINATIONS] += 1
        if npots >= 3:
            counts[C_SIDE_POTS_3] += 1
        counts[C_SHORT_NOT_REOPENED_] += S[C_SHORT_NOT_REOPENED]
        counts[C_SHORT_REOPENED_] += S[C_SHORT_REOPENED]
        counts[C_FL_CAPS] += S[C_FL_CAP]
        counts[C_PL_MAX_RAISES] += S[C_PL_MAX]
        counts[C_SHORT_ALLINS] += S[C_SHORT_ALLIN]
        if rake_cap > 0 and S[RAKE] == rake_cap:
            counts[C_RAKE_CAP_HIT] += 1
        if P[P_LEVEL_SECONDS] > 0:  # the level clock
            TS[T_ELAPSED] += P[P_SEC_HAND] + P[P_SEC_ACTION] * n_player
        TS[T_HAND] = hand_no + 1
        i += 1
    return i
