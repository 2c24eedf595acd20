"""Tables over many hands, compiled: who sits where, stacks carried over, rebuys, leaves, blind
levels, the moving button (cash) and the dead button (tournament).

``play_tables`` plays hands into preallocated columnar arrays (see ``sim.batch`` for their
layout) and can stop early and resume (the table's state lives in ``TS``) when the action buffer
fills up. Everything random comes from per-hand Philox streams keyed by (seed, table id):
purpose 0 the deck, 1 the bots, 2 the table's own events (leaves, policies, first button).

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
from numba import njit

from sim import engine
from sim.chacha import CHACHA_SIZE, chacha_init, chacha_shuffle
from sim.faults import fault_code
from sim.layout import (
    BIG_BET,
    BIG_BLIND,
    BOARD_,
    C_FL_CAP,
    C_PL_MAX,
    C_SHORT_ALLIN,
    C_SHORT_NOT_REOPENED,
    C_SHORT_REOPENED,
    CONTRIB_,
    DECK_,
    FAULT_FIRED,
    HOLE_,
    LG_CAN_CHECK,
    LG_SIZE,
    LG_TO_ACT,
    LOG_ADDED,
    LOG_CARD,
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
)
from sim.policies import N_POLICIES, decide, draw_real_policy
from sim.rng import below, faulty_shuffle, next_u64, shuffle_deck, stream_init

SESSION_PURPOSE = 2
COMPLETE = 5
E_DEAL_HOLE, E_BURN, E_DEAL_BOARD = 3, 4, 5
E_RETURN, E_SHOW, E_MUCK, E_WIN, E_RAKE = 11, 12, 13, 14, 15

# --- P: run parameters ---
P_FORMAT = 0  # 0 cash, 1 tournament
P_N_SEATS = 1
P_BUY_IN = 2
P_HANDS_PER_TABLE = 3
P_LEVEL_HANDS = 4
P_TIMEOUT_PPM = 5
P_LEAVE_PPM = 6
P_SEED = 7
P_TABLE_BASE = 8  # table ids of this batch are P_TABLE_BASE + k
P_SB = 9
P_BB = 10
P_RAKE_CAP = 11
P_FAULT = 12  # injected fault code (sim.faults), 0 = clean
P_GENERATOR = 13  # 0 Philox (reproducible), 1 ChaCha20 keyed from the OS (decks only)
P_KEY_ = 14  # 8 words of the ChaCha20 key
P_BOTS = 22  # 0 classic stress bots, 1 the real population (styles, buy-in range, leaving)
P_BUY_IN_MIN = 23  # cash minimum buy-in (real population)
P_LEAVE_ABOVE = 24  # cash: a stack above this leaves (0: never; real population)
P_TOURN_STACK = 25  # tournament starting stack
P_SIZE = 32

# --- TS: the current table ---
T_TABLE = 0  # index of the table within the batch (-1 before the first)
T_HAND = 1  # next hand number at this table
T_BUTTON = 2
T_SB_POS = 3  # tournament: last hand's small blind position (a seat, maybe empty)
T_BB_POS = 4
T_LIVE_PREV = 5  # players at the previous hand
T_ANTE_KIND = 6  # tournament: 1 antes from every player from level 3, 2 big-blind ante from 4
T_STACK_ = 10
T_POLICY_ = 20
T_AWAY_ = 30  # cash: hands until a new player takes the empty seat
T_PLAYER_ = 40  # the seat's player: 16 * (index in the batch of his first hand) + seat; -1 none
T_SIZE = 50

# --- per-hand scalar outputs H[i, :] ---
H_TABLE = 0
H_HAND_NO = 1
H_BUTTON = 2
H_SB = 3
H_BB = 4
H_SB_AMT = 5
H_BB_AMT = 6
H_ANTE = 7
H_ANTE_MODE = 8
H_LEVEL = 9
H_RAKE = 10
H_N_BOARD = 11
H_N_BURN = 12
H_N_POTS = 13
H_N_SHOW = 14
H_ACT_END = 15  # actions of hand i are ACT[H_ACT_END of i-1 : H_ACT_END of i]
H_MIN_BET = 16
H_SMALL_BET = 17
H_BIG_BET = 18
H_RAKE_CAP = 19
H_SIZE = 20

# --- per-seat outputs SE[field, i, seat] ---
SE_OCC = 0
SE_POLICY = 1
SE_START = 2
SE_REBUY = 3
SE_END = 4
SE_CONTRIB = 5
SE_RETURNED = 6
SE_WON = 7
SE_FOLDED = 8
SE_TIMEOUT = 9
SE_HOLE0 = 10
SE_HOLE1 = 11
SE_PLAYER = 12  # T_PLAYER_ of the seat's player (sim.batch makes it the run-wide player id)
SE_SIZE = 13

# --- rule-path counters ---
C_HANDS = 0
C_SHOWDOWNS = 1
C_SIDE_POTS_3 = 2  # hands with 3 or more pots
C_ODD_CHIP_SPLITS = 3  # split pots whose chips did not divide evenly
C_SHORT_NOT_REOPENED_ = 4
C_SHORT_REOPENED_ = 5
C_FL_CAPS = 6
C_PL_MAX_RAISES = 7
C_RAKE_CAP_HIT = 8
C_DEAD_SB = 9
C_HU_TRANSITIONS = 10
C_TIMEOUTS = 11
C_REBUYS = 12
C_UNCALLED = 13
C_SHORT_ALLINS = 14
C_DEAD_BUTTON = 15
C_TABLES = 16
C_SPLIT_POTS = 17
C_FAULT_FIRED = 18  # hands in which the injected fault changed something (0 for a clean run)
C_UNCONTESTED = 19  # hands won without a showdown
C_WALKS = 20  # everyone folded to the big blind (no call, bet or raise)
C_ALL_INS = 21  # hands with a player all-in
C_SIDE_POTS = 22  # hands with 2 or more pots
C_SHORT_BLINDS = 23  # blinds posted all-in for less than the blind
C_ANTE_ALL_INS = 24  # antes posted all-in for less than the ante
C_ELIMINATIONS = 25  # tournament players busted
C_LEAVES_ABOVE = 26  # cash players who left with a stack above the leave threshold
C_PREFLOP_FOLDS = 27  # player decisions before the flop that were folds
C_PREFLOP_DECISIONS = 28  # player decisions before the flop (fold, check, call, bet, raise)
C_ANTES = 29  # hands with antes
N_COUNTS = 30
COUNT_NAMES = (
    "hands", "showdowns", "side_pots_3_or_more", "split_pots_odd_chips",
    "short_all_in_not_reopened", "short_all_in_reopened", "fixed_limit_caps",
    "pot_limit_max_raises", "rake_cap_hit", "dead_small_blinds", "heads_up_transitions",
    "timeouts", "rebuys", "uncalled_returns", "short_all_ins", "dead_buttons", "tables",
    "split_pots", "fault_fired", "uncontested", "walks", "all_ins", "side_pots",
    "short_blinds", "ante_all_ins", "eliminations", "leaves_above_max", "preflop_folds",
    "preflop_decisions", "ante_hands",
)

LEVEL_MULT = np.array([1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 120,
                       150, 200, 250, 300, 400, 500, 600, 800, 1000], dtype=np.int64)
ANTE_FROM_LEVEL = 4
UNIFORM_ANTE_FROM_LEVEL = 3  # real population, ante kind 1: an eighth of the big blind
TOPUP_PCT = 10  # real cash: per-hand chance that a player below the minimum buy-in tops up
REBUY_PCT = 60  # real cash: a busted player rebuys (else he leaves and a new player comes)
F_BUTTON_SKIPS, F_BB_TWICE = fault_code("button-skips"), fault_code("bb-twice")
F_WRONG_STREAM = fault_code("wrong-stream-position")
SHUFFLE_FAULTS = 4  # codes 1..4 replace the shuffle (sim.rng.faulty_shuffle)
MUCKS_WINNER_ONE_IN = 20  # mucks-winner: planted in 1 hand of 20 (fires at its showdowns)
WRONG_STREAM_ONE_IN = 50  # wrong-stream-position: 1 hand of 50
CHIP_LOST_ONE_IN = 10_000
ROTATION_ONE_IN = 50  # button-skips, bb-twice
CONFIG_SIZE = engine.CONFIG_SIZE


def new_workspace() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scratch arrays for ``play_tables``: (W, log, rs)."""
    return (np.zeros((9, STATE_SIZE), dtype=np.int64), np.zeros((1024, 8), dtype=np.int64),
            np.zeros((3, 11), dtype=np.uint64))


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
def _draw_policy(P, rs):
    if P[P_BOTS] == 0:
        return below(rs, N_POLICIES)
    return draw_real_policy(rs)


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
    stream_init(rs, P[P_SEED], P[P_TABLE_BASE] + TS[T_TABLE], 0, SESSION_PURPOSE)
    tournament = P[P_FORMAT] == 1
    for s in range(MAX_SEATS):
        if s < n:
            TS[T_STACK_ + s] = P[P_TOURN_STACK] if tournament else _buy_in(P, rs)
            TS[T_POLICY_ + s] = _draw_policy(P, rs)
        else:
            TS[T_STACK_ + s] = 0
            TS[T_POLICY_ + s] = -1
        TS[T_AWAY_ + s] = 0
    TS[T_BUTTON] = below(rs, n)
    TS[T_LIVE_PREV] = n
    TS[T_ANTE_KIND] = 2 if P[P_BOTS] == 0 else 1 + below(rs, 2)


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
                TS[T_POLICY_ + s] = below(rs, N_POLICIES)
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
    if first or (P[P_FAULT] != F_BUTTON_SKIPS and P[P_FAULT] != F_BB_TWICE) \
            or below(rs, ROTATION_ONE_IN) != 0:
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
                counts, W, log, rs):
    """Play hands ``start .. n_hands - 1`` of a batch. Returns the index of the first hand not
    played (== n_hands when done; less when the action buffer ACT is nearly full).

    ``W``, ``log`` and ``rs`` are the workspace from ``new_workspace`` (compiled without the
    reference-counting runtime, this function allocates nothing)."""
    S = W[0]
    lg = W[1, :LG_SIZE]
    deck = W[2, :52]
    fair = W[2, 52:104]  # injected shuffle faults: the deck the hand's key gives
    stacks = W[3, :MAX_SEATS]
    antes = W[4, :MAX_SEATS]
    rebuys = W[5, :MAX_SEATS]
    timed_out = W[6, :MAX_SEATS]
    hcfg = W[7, :cfg.shape[0]]
    cs = W[8, :CHACHA_SIZE]
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
        if act_pos + 1024 > ACT.shape[0]:
            return i
        tournament = P[P_FORMAT] == 1
        end_table = TS[T_TABLE] < 0
        if not end_table:
            if tournament:
                end_table = _count_occupied(TS, n) < 2
            else:
                end_table = TS[T_HAND] >= P[P_HANDS_PER_TABLE] or _cash_must_end(TS, P)
        for s in range(n):
            rebuys[s] = 0
            timed_out[s] = 0
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
        stream_init(rs_tab, P[P_SEED], table_id, hand_no, SESSION_PURPOSE)
        if not first and not tournament:
            if P[P_BOTS] == 0:
                _cash_between_hands(TS, P, rs_tab, rebuys, counts)
            else:
                _cash_between_hands_real(TS, P, rs_tab, rebuys, counts)
            _seat_players(TS, n, i)
        button, sb, bb, fired = _positions(TS, P, first, counts, rs_tab)
        TS[T_LIVE_PREV] = _count_occupied(TS, n)
        # blinds and antes of this hand
        level = hand_no // P[P_LEVEL_HANDS] if tournament else 0
        mult = LEVEL_MULT[min(level, LEVEL_MULT.shape[0] - 1)]
        bb_amt = P[P_BB] * mult
        sb_amt = max(1, (P[P_SB] * mult))
        ante = 0
        ante_mode = 0
        if tournament:
            if TS[T_ANTE_KIND] == 1 and level >= UNIFORM_ANTE_FROM_LEVEL:
                ante = max(1, bb_amt // 8)
                ante_mode = 1
            elif TS[T_ANTE_KIND] == 2 and level >= ANTE_FROM_LEVEL:
                ante = bb_amt
                ante_mode = 2
        hcfg[SMALL_BLIND] = sb_amt
        hcfg[BIG_BLIND] = bb_amt
        hcfg[MIN_BET] = bb_amt
        hcfg[SMALL_BET] = bb_amt
        hcfg[BIG_BET] = 2 * bb_amt
        hcfg[RAKE_CAP] = P[P_RAKE_CAP]
        for s in range(n):
            stacks[s] = TS[T_STACK_ + s]
            antes[s] = ante if (s == bb and ante_mode == 2) or ante_mode == 1 else 0
        stream_init(rs_deck, P[P_SEED], table_id, hand_no, 0)
        stream_init(rs_bot, P[P_SEED], table_id, hand_no, 1)
        fault = P[P_FAULT]
        if 1 <= fault <= SHUFFLE_FAULTS:
            faulty_shuffle(rs_deck, deck, fault)
        elif P[P_GENERATOR] == 1:
            chacha_init(cs, chacha_key, table_id, hand_no)
            chacha_shuffle(cs, deck)
        else:
            if fault == F_WRONG_STREAM and below(rs_tab, WRONG_STREAM_ONE_IN) == 0:
                next_u64(rs_deck)  # FAULT: one 64-bit word of the deck stream skipped
            shuffle_deck(rs_deck, deck)
        if 1 <= fault <= SHUFFLE_FAULTS and P[P_GENERATOR] == 1:
            fired = True  # the faulty shuffle replaced the generator altogether
        elif 1 <= fault <= SHUFFLE_FAULTS or (fault == F_WRONG_STREAM and P[P_GENERATOR] == 0):
            # fired: the deck differs from the one its key (seed, table, hand) gives
            stream_init(rs_deck, P[P_SEED], table_id, hand_no, 0)
            shuffle_deck(rs_deck, fair)
            for k in range(52):
                if fair[k] != deck[k]:
                    fired = True
        hcfg[CONFIG_SIZE] = 0
        if fault == engine.F_CHIP_LOST:
            if below(rs_tab, CHIP_LOST_ONE_IN) == 0:
                hcfg[CONFIG_SIZE] = fault
        elif fault == engine.F_MUCKS_WINNER:
            if below(rs_tab, MUCKS_WINNER_ONE_IN) == 0:
                hcfg[CONFIG_SIZE] = fault
        elif fault >= 5 and fault != F_WRONG_STREAM:
            hcfg[CONFIG_SIZE] = fault
        engine.start_hand(S, log, hcfg, stacks, antes, button, sb, bb, deck)
        # at most one timeout a hand: decision number `timeout_at`, which is below any given
        # count of decisions with probability (count * ppm / 1e6): the per-decision rate
        timeout_at = below(rs_tab, 1_000_000 // P[P_TIMEOUT_PPM]) if P[P_TIMEOUT_PPM] > 0 else -1
        decision = 0
        while S[STREET] != COMPLETE:
            engine.legal(S, lg)
            seat = lg[LG_TO_ACT]
            decision += 1
            if decision - 1 == timeout_at:
                kind = 1 if lg[LG_CAN_CHECK] else 0
                amount = 0
                timed_out[seat] = 1
                counts[C_TIMEOUTS] += 1
            else:
                kind, amount = decide(TS[T_POLICY_ + seat], rs_bot, S, lg)
            engine.apply(S, log, kind, amount)
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
        H[i, H_SMALL_BET] = bb_amt
        H[i, H_BIG_BET] = 2 * bb_amt
        H[i, H_RAKE_CAP] = P[P_RAKE_CAP]
        for k in range(52):
            DECK[i, k] = S[DECK_ + k]
        for k in range(5):
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
            SE[SE_FOLDED, i, s] = 1 if S[STATUS_ + s] == 3 else 0
            SE[SE_TIMEOUT, i, s] = timed_out[s]
            SE[SE_HOLE0, i, s] = S[HOLE_ + 2 * s]
            SE[SE_HOLE1, i, s] = S[HOLE_ + 2 * s + 1]
            SE[SE_PLAYER, i, s] = TS[T_PLAYER_ + s] if stacks[s] > 0 else -1
            TS[T_STACK_ + s] = S[STACK_ + s]
        nburn = 0
        n_vol = 0
        for r in range(S[N_LOG]):
            kind = log[r, LOG_KIND]
            if 8 <= kind <= 10:
                n_vol += 1
            if log[r, LOG_STREET] == 0 and 6 <= kind <= 10:
                counts[C_PREFLOP_DECISIONS] += 1
                if kind == 6:
                    counts[C_PREFLOP_FOLDS] += 1
            if kind == 0 and log[r, LOG_ADDED] < ante:
                counts[C_ANTE_ALL_INS] += 1
            elif (kind == 1 and log[r, LOG_ADDED] < sb_amt) \
                    or (kind == 2 and log[r, LOG_ADDED] < bb_amt):
                counts[C_SHORT_BLINDS] += 1
            if kind == E_BURN:
                BURNS[i, nburn] = log[r, LOG_CARD]
                nburn += 1
            elif kind == E_RETURN:
                counts[C_UNCALLED] += 1
            if kind <= 2 or (6 <= kind <= 11):  # posts, player actions, returns
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
            if S[N_BOARD] == 0 and n_vol == 0 and S[STATUS_ + bb] != 3:
                counts[C_WALKS] += 1
        if npots >= 2:
            counts[C_SIDE_POTS] += 1
        if ante > 0:
            counts[C_ANTES] += 1
        for s in range(n):
            if S[STATUS_ + s] == 2:
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
        if P[P_RAKE_CAP] > 0 and S[RAKE] == P[P_RAKE_CAP]:
            counts[C_RAKE_CAP_HIT] += 1
        TS[T_HAND] = hand_no + 1
        i += 1
    return i
