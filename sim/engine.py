"""The hand state machine: compiled core over one int64 state array (see ``sim.layout``).

Two calls drive a hand after ``start_hand``: ``apply(S, log, kind, amount)`` applies the player
action of the seat to act and returns an error code (0 = applied; anything else leaves the state
exactly as it was), and ``legal(S, out)`` fills the legal-actions vector. Forced events (antes,
blinds, dealing, burns, uncalled returns, showdown, pot awards, rake) happen inside the engine and
are written as rows of ``log``. ``sim.hand.Hand`` wraps this with names and exceptions.

Rules implemented here (tests in tests/sim/test_rules.py):
- blinds from the two seats left of the button (positions are given by the caller, so dead
  button / dead small blind work); heads-up the button posts the small blind;
- antes before blinds; a stack too short posts what it has and is all-in;
- replayed histories only (``start_hand_posts``): posts after the blinds by returning players,
  live (on the street; the poster keeps the option like the big blind) then dead (dead money in
  the main pot, like an untrimmed ante); and, when asked, a fold while checking is free;
- hole cards one at a time clockwise from the first seat left of the button (heads-up: the big
  blind gets the first card); a burn before the flop, the turn and the river;
- a straddle (``start_hand_straddle``): a live blind posted after the blinds by the seat the
  caller names (the first seat left of the big blind), at most its stack (all-in for less as a
  blind); it is the bet to call, pre-flop action starts left of it and it acts last with the
  option; the minimum raise stays one big blind (``MIN_BET``) over it, as PokerKit plays
  ``blinds_or_straddles=(sb, bb, straddle)`` (tests/sim/test_differential.py);
- pre-flop action starts left of the big blind (heads-up: the button), post-flop at the first
  active seat left of the button; the big blind has the option;
- minimum opening bet ``MIN_BET``; a raise must add at least the last full bet or raise of the
  street; all-in for less is always allowed; a player who already acted may raise again only if
  the bet has risen by at least one full raise since he acted (several short all-ins add up);
- pot-limit: raise-to at most the pot after the call, plus the call;
- fixed-limit: small bet pre-flop and flop, big bet turn and river; raise-to = last full level +
  one bet (so an incomplete all-in bet or raise is completed, not re-raised on top); at most
  ``RAISE_CAP`` full bets or raises a street;
- uncalled bets return at the end of each betting round; pots are layered from contributions
  (antes too when ante trimming is on, else antes are dead money in the main pot); a layer above
  every live player's contribution joins the pot below; each pot goes to the best shown hands
  among its eligible players, split equally, odd chips one each to the first winners clockwise
  from the button;
- showdown order: the river's last bettor or raiser, else the first live seat left of the
  button; a hand is mucked only when it cannot win any pot against the hands already shown;
  the automatic showdown shows every live hand when the betting ended with at most one of them
  not all-in (seed 004 "All In", TDA: all hands face up at an all-in showdown);
- a player who leaves (``apply(S, log, A_LEAVE, seat)``, any seat still in the hand, at any
  turn before the showdown): his hand is dead, the part of his bet no other player covered
  returns to him at once, the betting goes on for the others (seed 004, "Politique de
  Sécurité et de Fair-Play");
- rake: basis points of the pot (never of returned chips), capped, none without a flop when
  no-flop-no-drop is set; taken from the main pot first.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.cards import BOARD_CARDS, HOLE_CARDS, N_CARDS
from sim.codes import (
    A_BET_RAISE,
    A_CHECK_CALL,
    A_FOLD,
    A_LEAVE,
    A_MUCK,
    A_SHOW,
    BAD_KIND,
    CANNOT_FOLD,
    CANNOT_MUCK,
    CANNOT_RAISE,
    COMPLETE,
    E_ANTE,
    E_BB,
    E_BET,
    E_BURN,
    E_CALL,
    E_CHECK,
    E_DEAD_BLIND,
    E_DEAL_BOARD,
    E_DEAL_HOLE,
    E_FOLD,
    E_LEAVE,
    E_MUCK,
    E_POST,
    E_RAISE,
    E_RAKE,
    E_RETURN,
    E_SB,
    E_SHOW,
    E_STRADDLE,
    E_WIN,
    FIXED_LIMIT,
    FLOP,
    HAND_OVER,
    NOT_BETTING,
    NOT_IN_HAND,
    NOT_SHOWDOWN,
    OK,
    POT_LIMIT,
    RAISE_TOO_LARGE,
    RAISE_TOO_SMALL,
    RIVER,
    S_ACTIVE,
    S_ALL_IN,
    S_FOLDED,
    SHOWDOWN,
)
from sim.dealing import STREET_CARDS, board_pos, burn_pos, hole_pos
from sim.evaluator import board_masks, evaluate7, evaluate_on_board
from sim.faults import (
    F_CHIP_LOST,
    F_MUCKS_WINNER,
    F_ODD_CHIP,
    F_SHORT_ALLIN_REOPENS,
    F_SIDE_POT_ELIGIBILITY,
)
from sim.layout import (
    ACTED_AT_,
    ACTIVE_MASK,
    ANTE_DUE_,
    ANTE_PAID_,
    ANTE_TRIM,
    AUTO_SHOWDOWN,
    BB_SEAT,
    BEST_,
    BET_,
    BIG_BET,
    BIG_BLIND,
    BOARD_,
    BUTTON,
    C_FL_CAP,
    C_PL_MAX,
    C_SHORT_ALLIN,
    C_SHORT_NOT_REOPENED,
    C_SHORT_REOPENED,
    CONFIG_SIZE,
    CONTRIB_,
    CUR_BET,
    DECK_,
    DEFAULT_LOG_ROWS,
    FAULT,
    FAULT_FIRED,
    FLOP_SEEN,
    FREE_FOLD,
    FULL_LEVEL,
    FULL_RAISE,
    HOLE_,
    LAST_AGGR,
    LEVELS_,
    LG_,
    LG_CALL,
    LG_CAN_CHECK,
    LG_CAN_FOLD,
    LG_CAN_MUCK,
    LG_CAN_RAISE,
    LG_MAX_TO,
    LG_MIN_TO,
    LG_PHASE,
    LG_SIZE,
    LG_TO_ACT,
    LG_VALID,
    LOG_ADDED,
    LOG_CARD,
    LOG_COLS,
    LOG_KIND,
    LOG_POT,
    LOG_SEAT,
    LOG_SEQ,
    LOG_STREET,
    LOG_STRENGTH,
    LOG_TO,
    MAX_SEATS,
    MIN_BET,
    N_ACTIVE,
    N_BOARD,
    N_DEALT,
    N_LIVE,
    N_LOG,
    N_POTS,
    N_RAISES,
    N_SEATS,
    N_SHOW,
    NO_FLOP_NO_DROP,
    POT_AMOUNT_,
    POT_ELIGIBLE_,
    POT_RAKE_,
    POT_WINNERS_,
    RAISE_CAP,
    RAKE,
    RAKE_BPS,
    RAKE_CAP,
    RETURNED_,
    SB_SEAT,
    SEQ,
    SHOW_ORDER_,
    SHOW_ORDER_POS,
    SHOWN_,
    SMALL_BET,
    SMALL_BLIND,
    STACK_,
    START_,
    STATE_SIZE,
    STATUS_,
    STREET,
    STRENGTH_,
    STRUCTURE,
    TO_ACT,
    WON_,
)

# LOW_BIT[1 << s] == s: the seat of a mask's lowest set bit (``m & -m``), for the walks over
# ACTIVE_MASK
LOW_BIT = np.zeros(1 << MAX_SEATS, dtype=np.int64)
for _s in range(MAX_SEATS):
    LOW_BIT[1 << _s] = _s


def new_state() -> np.ndarray:
    """A fresh state array."""
    return np.zeros(STATE_SIZE, dtype=np.int64)


def new_log(rows: int = DEFAULT_LOG_ROWS) -> np.ndarray:
    """A fresh record log."""
    return np.zeros((rows, LOG_COLS), dtype=np.int64)


@njit(cache=True, _nrt=False)
def _record_row(S, log, seat, kind, to, added, card, pot, strength):
    n = S[N_LOG]
    if n < log.shape[0]:
        log[n, LOG_SEQ] = S[SEQ]
        log[n, LOG_STREET] = S[STREET]
        log[n, LOG_SEAT] = seat
        log[n, LOG_KIND] = kind
        log[n, LOG_TO] = to
        log[n, LOG_ADDED] = added
        log[n, LOG_CARD] = card
        log[n, LOG_POT] = pot
        log[n, LOG_STRENGTH] = strength
        S[N_LOG] = n + 1
    S[SEQ] += 1


@njit(cache=True, _nrt=False)
def _record(S, log, seat, kind, to, added, card, pot):
    """A log row of an event that shows no hand (strength -1)."""
    _record_row(S, log, seat, kind, to, added, card, pot, -1)


@njit(cache=True, _nrt=False)
def _is_live(S, s):
    st = S[STATUS_ + s]
    return st == S_ACTIVE or st == S_ALL_IN


@njit(cache=True, _nrt=False)
def _count_live(S):
    return S[N_LIVE]


@njit(cache=True, _nrt=False)
def _goes_all_in(S, s):
    """Active seat s has no chips behind any more: all-in (status, count, ACTIVE_MASK)."""
    S[STATUS_ + s] = S_ALL_IN
    S[N_ACTIVE] -= 1
    S[ACTIVE_MASK] &= ~(1 << s)


@njit(cache=True, _nrt=False)
def _put(S, s, amount):
    """Move ``amount`` chips from seat s's stack into its street bet."""
    S[STACK_ + s] -= amount
    S[BET_ + s] += amount
    S[CONTRIB_ + s] += amount
    if S[STACK_ + s] == 0 and S[STATUS_ + s] == S_ACTIVE:
        _goes_all_in(S, s)


@njit(cache=True, _nrt=False)
def _needs_action(S, s, n_active):
    if S[STATUS_ + s] != S_ACTIVE:
        return False
    if S[ACTED_AT_ + s] == S[CUR_BET]:
        return False
    if n_active == 1 and S[BET_ + s] >= S[CUR_BET]:
        return False
    return True


@njit(cache=True, _nrt=False)
def _next_to_act(S, after):
    """First seat clockwise after ``after`` (ending with ``after`` itself) that must act: a walk
    over the active seats' bits only (``_needs_action`` without its status test)."""
    n = S[N_SEATS]
    n_active = S[N_ACTIVE]
    cur = S[CUR_BET]
    a = after + 1
    m = S[ACTIVE_MASK]
    rot = ((m >> a) | (m << (n - a))) & ((1 << n) - 1)  # bit k: seat (after + 1 + k) mod n
    while rot != 0:
        low = rot & -rot
        rot ^= low
        s = a + LOW_BIT[low]
        if s >= n:
            s -= n
        if S[ACTED_AT_ + s] != cur and not (n_active == 1 and S[BET_ + s] >= cur):
            return s
    return -1


@njit(cache=True, _nrt=False)
def _first_live_left_of_button(S):
    n = S[N_SEATS]
    s = S[BUTTON]
    for _ in range(n):
        s = s + 1 if s + 1 < n else 0
        if _is_live(S, s):
            return s
    return -1


@njit(cache=True, _nrt=False, inline="always")
def _setup(S, cfg, stacks, antes, button, sb_seat, bb_seat, deck):
    """Clear the state and seat the hand: config, positions, deck, stacks and antes due."""
    for k in range(S.shape[0]):
        S[k] = 0
    for k in range(CONFIG_SIZE):
        S[k] = cfg[k]
    S[FAULT] = cfg[CONFIG_SIZE] if cfg.shape[0] > CONFIG_SIZE else 0
    n = S[N_SEATS]
    S[BUTTON] = button
    S[SB_SEAT] = sb_seat
    S[BB_SEAT] = bb_seat
    S[TO_ACT] = -1
    S[LAST_AGGR] = -1
    for k in range(N_CARDS):
        S[DECK_ + k] = deck[k]
    for k in range(BOARD_CARDS):
        S[BOARD_ + k] = -1
    for s in range(MAX_SEATS):
        S[ACTED_AT_ + s] = -1
        S[SHOWN_ + s] = -1
        S[STRENGTH_ + s] = -1
        S[HOLE_ + 2 * s] = -1
        S[HOLE_ + 2 * s + 1] = -1
    for s in range(n):
        if stacks[s] > 0:
            S[STATUS_ + s] = S_ACTIVE
            S[N_ACTIVE] += 1
            S[ACTIVE_MASK] |= 1 << s
            S[N_LIVE] += 1
            S[STACK_ + s] = stacks[s]
            S[START_ + s] = stacks[s]
            S[ANTE_DUE_ + s] = antes[s]


@njit(cache=True, _nrt=False, inline="always")
def _dead_money(S, log, s, amt, kind):
    """Seat s puts ``amt`` dead chips in the pot (not on the street): an ante or a dead blind."""
    S[STACK_ + s] -= amt
    S[CONTRIB_ + s] += amt
    S[ANTE_PAID_ + s] += amt
    if S[STACK_ + s] == 0:
        _goes_all_in(S, s)
    _record(S, log, s, kind, S[BET_ + s], amt, -1, -1)


@njit(cache=True, _nrt=False, inline="always")
def _post_forced(S, log, button, sb_seat, bb_seat):
    """Antes clockwise from the first seat left of the button, then the blinds."""
    n = S[N_SEATS]
    s = button
    for _ in range(n):
        s = s + 1 if s + 1 < n else 0
        due = S[ANTE_DUE_ + s]
        if S[STATUS_ + s] == S_ACTIVE and due > 0:
            amt = min(due, S[STACK_ + s])
            S[STACK_ + s] -= amt
            S[CONTRIB_ + s] += amt
            S[ANTE_PAID_ + s] = amt
            if S[STACK_ + s] == 0:
                _goes_all_in(S, s)
            _record(S, log, s, E_ANTE, 0, amt, -1, -1)
    # blinds
    if sb_seat >= 0 and S[STATUS_ + sb_seat] == S_ACTIVE:
        amt = min(S[SMALL_BLIND], S[STACK_ + sb_seat])
        _put(S, sb_seat, amt)
        _record(S, log, sb_seat, E_SB, S[BET_ + sb_seat], amt, -1, -1)
    if bb_seat >= 0 and S[STATUS_ + bb_seat] == S_ACTIVE:
        amt = min(S[BIG_BLIND], S[STACK_ + bb_seat])
        _put(S, bb_seat, amt)
        _record(S, log, bb_seat, E_BB, S[BET_ + bb_seat], amt, -1, -1)


@njit(cache=True, _nrt=False, inline="always")
def _deal_and_open(S, log, button, bb_seat, open_raise):
    """The street's bet level after the posts, the hole cards, and the first decision (or the
    run-out when nobody can act): pre-flop action starts left of ``bb_seat`` (the straddler's
    seat when there is a straddle), else of the button. ``open_raise`` > 0: a full straddle
    under the "straddle" rule (docs/game.md#straddles): the pre-flop raise increment is that
    many chips (no-limit, pot-limit), and in fixed-limit the straddle is the street's first
    raise of the capped count."""
    n = S[N_SEATS]
    cur = 0
    for s in range(n):
        cur = max(cur, S[BET_ + s])
    S[CUR_BET] = cur
    S[FULL_LEVEL] = cur
    _reset_raise_sizes(S)
    if open_raise > 0:
        if S[STRUCTURE] == FIXED_LIMIT:
            S[N_RAISES] = 1
        else:
            S[FULL_RAISE] = open_raise
    # hole cards, one at a time, from the deck indices of the dealing order (sim.dealing)
    first = _first_live_left_of_button(S)
    n_dealt = 0
    for s in range(n):
        if _is_live(S, s):
            n_dealt += 1
    S[N_DEALT] = n_dealt
    for r in range(HOLE_CARDS):
        s = first - 1 if first > 0 else n - 1
        i = 0
        for _ in range(n):
            s = s + 1 if s + 1 < n else 0
            if _is_live(S, s):
                c = S[DECK_ + hole_pos(n_dealt, r, i)]
                i += 1
                S[HOLE_ + 2 * s + r] = c
                _record(S, log, s, E_DEAL_HOLE, 0, 0, c, -1)
    S[TO_ACT] = _next_to_act(S, bb_seat if bb_seat >= 0 else button)
    if S[TO_ACT] < 0 or _count_live(S) <= 1:
        _close_betting(S, log)


@njit(cache=True, _nrt=False)
def start_hand(S, log, cfg, stacks, antes, button, sb_seat, bb_seat, deck):
    """Set up a hand: post antes and blinds, deal hole cards, and run to the first decision.

    ``cfg`` is the config block (see ``sim.hand.config_block``); ``stacks[s] == 0`` means seat s
    is not in this hand; ``antes[s]`` is the ante seat s owes; ``sb_seat`` may be -1 (dead small
    blind); ``deck`` is the shuffled N_CARDS-card order the hand deals from.
    """
    _setup(S, cfg, stacks, antes, button, sb_seat, bb_seat, deck)
    _post_forced(S, log, button, sb_seat, bb_seat)
    _deal_and_open(S, log, button, bb_seat, 0)
    return OK


@njit(cache=True, _nrt=False)
def start_hand_straddle(S, log, cfg, stacks, antes, button, sb_seat, bb_seat, deck,
                        straddle_seat, straddle, free_fold, straddle_raise):
    """``start_hand`` with a straddle: after the blinds ``straddle_seat`` (the caller's choice:
    the first seat with chips left of the big blind; ``sim.hand.Hand`` checks it) posts
    ``straddle`` chips live (at most its stack: a short straddle is all-in, like a blind),
    logged as ``STRADDLE``; pre-flop action then starts left of the straddler, who acts last
    and keeps the option. ``free_fold`` as in ``start_hand_posts`` (a replayed history).
    ``straddle_raise`` != 0: the "straddle" rule (the straddler is the bigger blind: a full
    straddle sets the pre-flop raise increment to ``straddle`` chips, or in fixed-limit counts
    as the first raise); 0: PokerKit's (one big blind over it). A short straddle (all-in for
    less than ``straddle``) is no full raise: the increment stays the big blind."""
    _setup(S, cfg, stacks, antes, button, sb_seat, bb_seat, deck)
    S[FREE_FOLD] = 1 if free_fold != 0 else 0
    _post_forced(S, log, button, sb_seat, bb_seat)
    s = straddle_seat
    opened = 0
    if s >= 0 and S[STATUS_ + s] == S_ACTIVE and straddle > 0:
        amt = min(straddle, S[STACK_ + s])
        _put(S, s, amt)
        _record(S, log, s, E_STRADDLE, S[BET_ + s], amt, -1, -1)
        if straddle_raise != 0 and amt == straddle:
            opened = straddle
    _deal_and_open(S, log, button, s if s >= 0 else bb_seat, opened)
    return OK


@njit(cache=True, _nrt=False)
def start_hand_posts(S, log, cfg, stacks, antes, button, sb_seat, bb_seat, deck, live, dead,
                     free_fold):
    """``start_hand`` for a replayed history with posts outside the blinds (the simulator never
    calls it). After the blinds: ``live[s]`` chips posted live by seat s (a returning player's
    big blind: on the street, the seat keeps its option), then ``dead[s]`` chips posted dead
    (into the main pot like an untrimmed ante, never toward a call), each clockwise from the
    first seat left of the button, each at most the seat's stack (a short post is all-in).
    ``free_fold`` != 0 accepts a fold when checking is free (sites allow it; ``legal`` does not
    offer it). The caller refuses dead posts with ante trimming on (sim.hand.Hand)."""
    _setup(S, cfg, stacks, antes, button, sb_seat, bb_seat, deck)
    S[FREE_FOLD] = 1 if free_fold != 0 else 0
    _post_forced(S, log, button, sb_seat, bb_seat)
    n = S[N_SEATS]
    for which in range(2):
        s = button
        for _ in range(n):
            s = s + 1 if s + 1 < n else 0
            due = live[s] if which == 0 else dead[s]
            if due <= 0 or S[STATUS_ + s] != S_ACTIVE:
                continue
            amt = min(due, S[STACK_ + s])
            if which == 0:
                _put(S, s, amt)
                _record(S, log, s, E_POST, S[BET_ + s], amt, -1, -1)
            else:
                _dead_money(S, log, s, amt, E_DEAD_BLIND)
    _deal_and_open(S, log, button, bb_seat, 0)
    return OK


@njit(cache=True, _nrt=False)
def _street_bet_size(S):
    if S[STREET] <= FLOP:
        return S[SMALL_BET]
    return S[BIG_BET]


@njit(cache=True, _nrt=False)
def _reset_raise_sizes(S):
    if S[STRUCTURE] == FIXED_LIMIT:
        S[FULL_RAISE] = _street_bet_size(S)
    else:
        S[FULL_RAISE] = S[MIN_BET]
    S[N_RAISES] = 0


@njit(cache=True, _nrt=False)
def _pot_total(S):
    t = 0
    for s in range(S[N_SEATS]):
        t += S[CONTRIB_ + s]
    return t


@njit(cache=True, _nrt=False, inline="always")
def _compute_legal(S):
    """Write the legal actions of the seat to act into the S[LG_:] scratch block."""
    if S[LG_VALID] == S[SEQ] + 1:
        return
    S[LG_VALID] = S[SEQ] + 1
    for k in range(LG_SIZE):
        S[LG_ + k] = 0
    S[LG_ + LG_TO_ACT] = S[TO_ACT]
    S[LG_ + LG_PHASE] = S[STREET]
    s = S[TO_ACT]
    if s < 0:
        return
    if S[STREET] == SHOWDOWN:
        S[LG_ + LG_CAN_MUCK] = 1 if _can_muck(S, s) else 0
        return
    bet = S[BET_ + s]
    stack = S[STACK_ + s]
    cur = S[CUR_BET]
    S[LG_ + LG_CALL] = min(cur - bet, stack)
    S[LG_ + LG_CAN_CHECK] = 1 if cur == bet else 0
    S[LG_ + LG_CAN_FOLD] = 1 if cur > bet else 0
    can_raise = stack > cur - bet
    if S[STRUCTURE] == FIXED_LIMIT and S[N_RAISES] >= S[RAISE_CAP]:
        can_raise = False
    if S[ACTED_AT_ + s] >= 0 and cur - S[ACTED_AT_ + s] < S[FULL_RAISE]:
        if S[FAULT] != F_SHORT_ALLIN_REOPENS:
            can_raise = False  # only short all-ins since this seat acted: betting not reopened
    if can_raise:
        # someone else who could still answer a raise (seat s is active: N_ACTIVE counts it)
        other = False
        m = S[ACTIVE_MASK] & ~(1 << s)
        while m != 0:
            low = m & -m
            m ^= low
            t = LOW_BIT[low]
            if S[STACK_ + t] + S[BET_ + t] > cur:
                other = True
                break
        can_raise = other
    if not can_raise:
        return
    all_in_to = bet + stack
    if S[STRUCTURE] == FIXED_LIMIT:
        lo = S[FULL_LEVEL] + _street_bet_size(S)
        hi = lo
    else:
        lo = cur + S[FULL_RAISE]
        if S[STRUCTURE] == POT_LIMIT:
            hi = cur + _pot_total(S) + (cur - bet)
            hi = max(hi, lo)
        else:
            hi = all_in_to
    S[LG_ + LG_CAN_RAISE] = 1
    S[LG_ + LG_MIN_TO] = min(lo, all_in_to)
    S[LG_ + LG_MAX_TO] = min(hi, all_in_to)


@njit(cache=True, _nrt=False)
def legal(S, out):
    """Fill ``out`` (int64[LG_SIZE]) with the legal actions of the seat to act."""
    legal_inline(S, out)


@njit(cache=True, _nrt=False, inline="always")
def legal_inline(S, out):
    """``legal`` inlined into its compiled caller."""
    _compute_legal(S)
    for k in range(LG_SIZE):
        out[k] = S[LG_ + k]


@njit(cache=True, _nrt=False)
def apply(S, log, kind, amount):
    """Apply the action of the seat to act (``A_LEAVE``: of seat ``amount``, whoever is to
    act). Returns 0, or an error code with S unchanged. (The kernel Python calls; compiled
    callers call ``apply_inline``, the same code inlined into them.)"""
    return apply_inline(S, log, kind, amount)


@njit(cache=True, _nrt=False, inline="always")
def apply_inline(S, log, kind, amount):
    """``apply`` inlined into its compiled caller (the table loop, the benchmarks): no call
    and return per action."""
    s = S[TO_ACT]
    if S[STREET] == COMPLETE or s < 0:
        return HAND_OVER
    if kind == A_LEAVE:
        if S[STREET] == SHOWDOWN:
            return NOT_BETTING
        return _leave(S, log, amount)
    if kind == A_SHOW or kind == A_MUCK:
        if S[STREET] != SHOWDOWN:
            return NOT_SHOWDOWN
        if kind == A_MUCK and not _can_muck(S, s):
            return CANNOT_MUCK
        _show_or_muck(S, log, s, kind == A_SHOW)
        _advance_showdown(S, log)
        return OK
    if S[STREET] == SHOWDOWN:
        return NOT_BETTING
    _compute_legal(S)
    cur = S[CUR_BET]
    if kind != A_FOLD and kind != A_CHECK_CALL and kind != A_BET_RAISE:
        return BAD_KIND
    if kind == A_FOLD and S[LG_ + LG_CAN_FOLD] == 0 and S[FREE_FOLD] == 0:
        return CANNOT_FOLD
    if kind == A_BET_RAISE:
        if S[LG_ + LG_CAN_RAISE] == 0:
            return CANNOT_RAISE
        if amount < S[LG_ + LG_MIN_TO]:
            return RAISE_TOO_SMALL
        if amount > S[LG_ + LG_MAX_TO]:
            return RAISE_TOO_LARGE
    acted = S[ACTED_AT_ + s]
    if kind == A_BET_RAISE and S[FAULT] == F_SHORT_ALLIN_REOPENS and acted >= 0 \
            and cur - acted < S[FULL_RAISE]:
        S[FAULT_FIRED] = 1  # a raise the clean engine would not have allowed
    if acted >= 0 and cur > acted and S[FULL_LEVEL] <= acted:
        # this seat faces only short all-ins since it acted (rule-path statistics)
        if cur - acted < S[FULL_RAISE]:
            S[C_SHORT_NOT_REOPENED] += 1
        elif S[LG_ + LG_CAN_RAISE] != 0:
            S[C_SHORT_REOPENED] += 1
    if kind == A_FOLD:
        S[STATUS_ + s] = S_FOLDED
        S[N_ACTIVE] -= 1
        S[ACTIVE_MASK] &= ~(1 << s)
        S[N_LIVE] -= 1
        _record(S, log, s, E_FOLD, S[BET_ + s], 0, -1, -1)
    elif kind == A_CHECK_CALL:
        amt = S[LG_ + LG_CALL]
        _put(S, s, amt)
        S[ACTED_AT_ + s] = cur
        _record(S, log, s, E_CHECK if amt == 0 else E_CALL, S[BET_ + s], amt, -1, -1)
    else:
        added = amount - S[BET_ + s]
        increment = amount - cur
        _put(S, s, added)
        if S[STRUCTURE] == FIXED_LIMIT:
            full = amount >= S[FULL_LEVEL] + _street_bet_size(S)
        else:
            full = increment >= S[FULL_RAISE]
        if S[STRUCTURE] == POT_LIMIT and amount == S[LG_ + LG_MAX_TO] and S[STACK_ + s] > 0:
            S[C_PL_MAX] += 1
        if full:
            if S[STRUCTURE] != FIXED_LIMIT:
                S[FULL_RAISE] = increment
            S[FULL_LEVEL] = amount
            S[N_RAISES] += 1
            if S[STRUCTURE] == FIXED_LIMIT and S[N_RAISES] == S[RAISE_CAP]:
                S[C_FL_CAP] += 1
        else:
            S[C_SHORT_ALLIN] += 1
        S[CUR_BET] = amount
        S[ACTED_AT_ + s] = amount
        S[LAST_AGGR] = s
        _record(S, log, s, E_BET if cur == 0 else E_RAISE, amount, added, -1, -1)
    if _count_live(S) <= 1:
        _close_betting(S, log)
        return OK
    nxt = _next_to_act(S, s)
    if nxt >= 0:
        S[TO_ACT] = nxt
    else:
        _close_betting(S, log)
    return OK


@njit(cache=True, _nrt=False)
def _uncovered(S, s):
    """The part of seat s's bet on this street that no other seat's contribution covers
    (antes count for covering only with ante trimming on, as for the uncalled returns)."""
    trim = S[ANTE_TRIM] != 0
    mine = S[CONTRIB_ + s] - (0 if trim else S[ANTE_PAID_ + s])
    other = 0
    for t in range(S[N_SEATS]):
        if t != s:
            other = max(other, S[CONTRIB_ + t] - (0 if trim else S[ANTE_PAID_ + t]))
    return max(0, min(mine - other, S[BET_ + s]))


@njit(cache=True, _nrt=False)
def _leave(S, log, s):
    """Seat s leaves (disconnects) during the betting: its hand is dead (folded: it wins
    nothing), the uncovered part of its bet returns to it at once, the bet to call drops to the
    highest bet left standing (the street's full raise size and raise count stay), and the
    betting goes on for the others (the hand ends when one live seat is left)."""
    if s < 0 or s >= S[N_SEATS] or not _is_live(S, s):
        return NOT_IN_HAND
    _record(S, log, s, E_LEAVE, S[BET_ + s], 0, -1, -1)
    back = _uncovered(S, s)
    if S[STATUS_ + s] == S_ACTIVE:
        S[N_ACTIVE] -= 1
        S[ACTIVE_MASK] &= ~(1 << s)
    S[STATUS_ + s] = S_FOLDED
    S[N_LIVE] -= 1
    if back > 0:
        S[STACK_ + s] += back
        S[BET_ + s] -= back
        S[CONTRIB_ + s] -= back
        S[RETURNED_ + s] += back
        _record(S, log, s, E_RETURN, S[BET_ + s], back, -1, -1)
        cur = 0
        for t in range(S[N_SEATS]):
            cur = max(cur, S[BET_ + t])
        S[CUR_BET] = cur
        S[FULL_LEVEL] = min(S[FULL_LEVEL], cur)
    if _count_live(S) <= 1:
        _close_betting(S, log)
        return OK
    to = S[TO_ACT]
    if not _needs_action(S, to, S[N_ACTIVE]):
        nxt = _next_to_act(S, to)
        if nxt >= 0:
            S[TO_ACT] = nxt
        else:
            _close_betting(S, log)
    return OK


@njit(cache=True, _nrt=False)
def _return_uncalled(S, log):
    """Give back the part of the top contribution that nobody matched (at most this street's
    bet). Contributions count antes when ante trimming is on: an ante can match a bet."""
    n = S[N_SEATS]
    trim = S[ANTE_TRIM] != 0
    top = -1
    first = -1
    second = 0
    for s in range(n):
        c = S[CONTRIB_ + s] - (0 if trim else S[ANTE_PAID_ + s])
        if c > top:
            second = max(second, top)
            top = c
            first = s
        elif c > second:
            second = c
    if first < 0:
        return
    excess = min(top - second, S[BET_ + first])
    if excess > 0:
        S[STACK_ + first] += excess
        S[BET_ + first] -= excess
        S[CONTRIB_ + first] -= excess
        S[RETURNED_ + first] += excess
        if S[STATUS_ + first] == S_ALL_IN:
            S[STATUS_ + first] = S_ACTIVE
            S[N_ACTIVE] += 1
            S[ACTIVE_MASK] |= 1 << first
        _record(S, log, first, E_RETURN, S[BET_ + first], excess, -1, -1)


@njit(cache=True, _nrt=False)
def _deal_street(S, log):
    """Burn and deal the board cards of the street just begun (deck indices: sim.dealing)."""
    street = S[STREET]
    n_dealt = S[N_DEALT]
    _record(S, log, -1, E_BURN, 0, 0, S[DECK_ + burn_pos(n_dealt, street)], -1)
    for _ in range(STREET_CARDS[street]):
        c = S[DECK_ + board_pos(n_dealt, S[N_BOARD])]
        S[BOARD_ + S[N_BOARD]] = c
        S[N_BOARD] += 1
        _record(S, log, -1, E_DEAL_BOARD, 0, 0, c, -1)
    if street == FLOP:
        S[FLOP_SEEN] = 1


@njit(cache=True, _nrt=False)
def _close_betting(S, log):
    """End the betting round; deal on (running out the board when nobody can bet) or finish."""
    while True:
        _return_uncalled(S, log)
        for s in range(S[N_SEATS]):
            S[BET_ + s] = 0
            S[ACTED_AT_ + s] = -1
        S[TO_ACT] = -1
        if _count_live(S) <= 1:
            _build_pots(S, log)
            _award(S, log)
            return
        if S[STREET] == RIVER:
            _start_showdown(S, log)
            return
        if S[AUTO_SHOWDOWN] != 0 and S[N_ACTIVE] <= 1 and S[N_SHOW] == 0:
            _show_all_in(S, log)  # nobody can bet any more: hands face up, then the board
        S[STREET] += 1
        S[CUR_BET] = 0
        S[FULL_LEVEL] = 0
        S[LAST_AGGR] = -1
        _reset_raise_sizes(S)
        _deal_street(S, log)
        nxt = _next_to_act(S, S[BUTTON])
        if nxt >= 0:
            S[TO_ACT] = nxt
            return


@njit(cache=True, _nrt=False)
def _layer_amount(S, lo, hi, trim):
    """Chips all seats put in between contribution levels lo and hi."""
    t = 0
    for s in range(S[N_SEATS]):
        c = S[CONTRIB_ + s] - (0 if trim else S[ANTE_PAID_ + s])
        t += min(c, hi) - min(c, lo)
    return t


@njit(cache=True, _nrt=False)
def _build_pots(S, log):
    n = S[N_SEATS]
    trim = S[ANTE_TRIM] != 0
    nl = 0  # distinct live contribution levels, kept sorted in S[LEVELS_:]
    for s in range(n):
        if _is_live(S, s):
            c = S[CONTRIB_ + s] - (0 if trim else S[ANTE_PAID_ + s])
            k = 0
            while k < nl and S[LEVELS_ + k] < c:
                k += 1
            if k < nl and S[LEVELS_ + k] == c:
                continue
            for j in range(nl, k, -1):
                S[LEVELS_ + j] = S[LEVELS_ + j - 1]
            S[LEVELS_ + k] = c
            nl += 1
    dead = 0
    if not trim:
        for s in range(n):
            dead += S[ANTE_PAID_ + s]
    npots = 0
    prev = 0
    for k in range(nl):
        lvl = S[LEVELS_ + k]
        amt = _layer_amount(S, prev, lvl, trim)
        if npots == 0:
            amt += dead
        elig = 0
        contributors = 0
        only = -1
        for s in range(n):
            c = S[CONTRIB_ + s] - (0 if trim else S[ANTE_PAID_ + s])
            if _is_live(S, s) and c >= lvl:
                elig |= 1 << s
            if c > prev:
                contributors += 1
                only = s
        if contributors == 1 and npots > 0 and amt > 0:
            # nobody else put chips in this layer: it is returned, not won
            S[STACK_ + only] += amt
            S[CONTRIB_ + only] -= amt
            S[RETURNED_ + only] += amt
            _record(S, log, only, E_RETURN, 0, amt, -1, -1)
        elif amt > 0 or (npots == 0 and k == nl - 1):
            S[POT_AMOUNT_ + npots] = amt
            S[POT_ELIGIBLE_ + npots] = elig
            npots += 1
        prev = lvl
    # chips above every live contribution (folded players' excess) join the top pot
    extra = _layer_amount(S, prev, 1 << 62, trim)
    if extra > 0:
        S[POT_AMOUNT_ + npots - 1] += extra
    S[N_POTS] = npots
    # rake
    total = 0
    for p in range(npots):
        total += S[POT_AMOUNT_ + p]
    rake = 0
    if S[RAKE_BPS] > 0 and (S[FLOP_SEEN] != 0 or S[NO_FLOP_NO_DROP] == 0):
        rake = total * S[RAKE_BPS] // 10000
        if S[RAKE_CAP] > 0:
            rake = min(rake, S[RAKE_CAP])
    S[RAKE] = rake
    left = rake
    for p in range(npots):
        take = min(left, S[POT_AMOUNT_ + p])
        S[POT_RAKE_ + p] = take
        left -= take
    if rake > 0:
        _record(S, log, -1, E_RAKE, 0, rake, -1, -1)


@njit(cache=True, _nrt=False)
def _final_board_card(S, k):
    """Board card k as the hand ends: dealt already, else the card the dealing order will deal
    there (an all-in showdown's hands are shown before the rest of the board)."""
    if k < S[N_BOARD]:
        return S[BOARD_ + k]
    return S[DECK_ + board_pos(S[N_DEALT], k)]


@njit(cache=True, _nrt=False)
def _strength(S, s):
    """Seat s's hand strength with the board the hand ends with."""
    return evaluate7(S[HOLE_ + 2 * s], S[HOLE_ + 2 * s + 1],
                     _final_board_card(S, 0), _final_board_card(S, 1), _final_board_card(S, 2),
                     _final_board_card(S, 3), _final_board_card(S, 4))


@njit(cache=True, _nrt=False)
def _board(S):
    """The masks of the board the hand ends with (``sim.evaluator.board_masks``): evaluated once
    per showdown, each hand's two cards added (``_strength_on``)."""
    return board_masks(_final_board_card(S, 0), _final_board_card(S, 1),
                       _final_board_card(S, 2), _final_board_card(S, 3), _final_board_card(S, 4))


@njit(cache=True, _nrt=False)
def _strength_on(S, s, board):
    """``_strength`` of seat s given ``_board(S)``."""
    return evaluate_on_board(board, S[HOLE_ + 2 * s], S[HOLE_ + 2 * s + 1])


@njit(cache=True, _nrt=False)
def _show_order(S):
    """The showdown order into S[SHOW_ORDER_:]: from the river's last bettor or raiser if still
    live, else from the first live seat left of the button, clockwise; returns its length."""
    n = S[N_SEATS]
    start = S[LAST_AGGR] if S[STREET] == RIVER or S[STREET] == SHOWDOWN else -1
    if start < 0 or not _is_live(S, start):
        start = _first_live_left_of_button(S)
    k = 0
    s = start - 1 if start > 0 else n - 1
    for _ in range(n):
        s = s + 1 if s + 1 < n else 0
        if _is_live(S, s):
            S[SHOW_ORDER_ + k] = s
            k += 1
    S[N_SHOW] = k
    S[SHOW_ORDER_POS] = 0
    return k


@njit(cache=True, _nrt=False)
def _show_all_in(S, log):
    """The automatic all-in showdown before the run-out: every live hand shown in showdown
    order, with the strength it ends with (the ``mucks-winner`` fault mucks the first hand
    that holds the best of them instead)."""
    k = _show_order(S)
    victim = -1
    if S[FAULT] == F_MUCKS_WINNER:
        best = -1
        for i in range(k):
            best = max(best, _strength(S, S[SHOW_ORDER_ + i]))
        for i in range(k):
            if victim < 0 and _strength(S, S[SHOW_ORDER_ + i]) == best:
                victim = S[SHOW_ORDER_ + i]
    board = _board(S)
    for i in range(k):
        s = S[SHOW_ORDER_ + i]
        S[STRENGTH_ + s] = _strength_on(S, s, board)
        if s == victim:
            _show_or_muck(S, log, s, False)  # FAULT: a winning hand mucked
            S[FAULT_FIRED] = 1
        else:
            _show_or_muck(S, log, s, True)
    S[SHOW_ORDER_POS] = k


@njit(cache=True, _nrt=False)
def _start_showdown(S, log):
    shown = S[N_SHOW] > 0  # an all-in showdown's hands were shown before the run-out
    S[STREET] = SHOWDOWN
    _build_pots(S, log)
    if shown:
        _award(S, log)
        return
    k = _show_order(S)
    if S[AUTO_SHOWDOWN] != 0:
        # the betting ended with at most one live hand not all-in: every hand is shown
        face_up = S[N_ACTIVE] <= 1
        victim = _muck_victim(S) if S[FAULT] == F_MUCKS_WINNER else -1
        npots = S[N_POTS]
        for p in range(npots):
            S[BEST_ + p] = -1  # nobody has shown yet
        board = _board(S)
        for i in range(k):
            s = S[SHOW_ORDER_ + i]
            st = _strength_on(S, s, board)
            S[STRENGTH_ + s] = st
            if s == victim:
                _show_or_muck(S, log, s, False)  # FAULT: a winning hand mucked
                S[FAULT_FIRED] = 1
                continue
            # shown if it wins or ties a pot it is eligible for against the hands shown so far
            # (each pot's best shown hand is kept as the hands are shown)
            bit = 1 << s
            wins = face_up
            for p in range(npots):
                if S[POT_ELIGIBLE_ + p] & bit and st >= S[BEST_ + p]:
                    wins = True
            _show_or_muck(S, log, s, wins)
            if wins:
                for p in range(npots):
                    if S[POT_ELIGIBLE_ + p] & bit:
                        S[BEST_ + p] = max(S[BEST_ + p], st)
        S[SHOW_ORDER_POS] = k
        _award(S, log)
    else:
        S[TO_ACT] = S[SHOW_ORDER_]


@njit(cache=True, _nrt=False)
def _muck_victim(S):
    """The ``mucks-winner`` fault's victim: the first seat in showdown order whose hand wins or
    ties a pot (the best hand among the pot's eligible live seats), provided every pot it is
    eligible for has another live seat to take it; -1 if none. Only for ``--inject``."""
    n = S[N_SEATS]
    for i in range(S[N_SHOW]):
        s = S[SHOW_ORDER_ + i]
        bit = 1 << s
        mine = _strength(S, s)
        wins = False
        alone = False
        for p in range(S[N_POTS]):
            elig = S[POT_ELIGIBLE_ + p]
            if elig & bit == 0:
                continue
            if elig == bit:
                alone = True
                break
            best = -1
            for t in range(n):
                if elig & (1 << t):
                    best = max(best, _strength(S, t))
            if mine == best:
                wins = True
        if wins and not alone:
            return s
    return -1


@njit(cache=True, _nrt=False)
def _can_muck(S, s):
    """A muck may not leave a pot that seat s is eligible for with no hand left to win it."""
    bit = 1 << s
    for p in range(S[N_POTS]):
        elig = S[POT_ELIGIBLE_ + p]
        if elig & bit == 0:
            continue
        other = False
        for t in range(S[N_SEATS]):
            if t != s and elig & (1 << t) and S[SHOWN_ + t] != 0:
                other = True
        if not other:
            return False
    return True


@njit(cache=True, _nrt=False)
def _show_or_muck(S, log, s, show):
    if show:
        if S[STRENGTH_ + s] < 0:
            S[STRENGTH_ + s] = _strength(S, s)
        S[SHOWN_ + s] = 1
        _record_row(S, log, s, E_SHOW, 0, 0, -1, -1, S[STRENGTH_ + s])
    else:
        S[SHOWN_ + s] = 0
        _record(S, log, s, E_MUCK, 0, 0, -1, -1)


@njit(cache=True, _nrt=False)
def _advance_showdown(S, log):
    S[SHOW_ORDER_POS] += 1
    if S[SHOW_ORDER_POS] < S[N_SHOW]:
        S[TO_ACT] = S[SHOW_ORDER_ + S[SHOW_ORDER_POS]]
    else:
        S[TO_ACT] = -1
        _award(S, log)


@njit(cache=True, _nrt=False)
def _pot_winners(S, elig, uncontested):
    """Bitmask of the best hands among the seats of ``elig`` that showed (or are alone)."""
    best = -1
    winners = 0
    for s in range(S[N_SEATS]):
        if elig & (1 << s) == 0:
            continue
        if uncontested or S[SHOWN_ + s] == 1 or elig == (1 << s):
            st = S[STRENGTH_ + s]
            if winners == 0 or st > best:
                best = st
                winners = 1 << s
            elif st == best:
                winners |= 1 << s
    return winners


@njit(cache=True, _nrt=False)
def _odd_chip_seats(S, winners, odd, step):
    """Bitmask of the first ``odd`` seats of ``winners`` from the button, going clockwise
    (``step`` 1) or counter-clockwise (-1)."""
    n = S[N_SEATS]
    s = S[BUTTON]
    out = 0
    for _ in range(n):
        s = (s + step) % n
        if winners & (1 << s) and odd > 0:
            out |= 1 << s
            odd -= 1
    return out


@njit(cache=True, _nrt=False)
def _award(S, log):
    n = S[N_SEATS]
    fault = S[FAULT]
    uncontested = _count_live(S) == 1
    for p in range(S[N_POTS]):
        amt = S[POT_AMOUNT_ + p] - S[POT_RAKE_ + p]
        elig = S[POT_ELIGIBLE_ + p]
        if fault == F_SIDE_POT_ELIGIBILITY and p > 0:
            elig = 0  # FAULT: a side pot open to every hand at showdown
            for s in range(n):
                if S[SHOWN_ + s] == 1:
                    elig |= 1 << s
            if elig == 0:
                elig = S[POT_ELIGIBLE_ + p]
        winners = _pot_winners(S, elig, uncontested)
        if fault == F_SIDE_POT_ELIGIBILITY and p > 0 \
                and winners != _pot_winners(S, S[POT_ELIGIBLE_ + p], uncontested):
            S[FAULT_FIRED] = 1  # an ineligible hand took (a share of) the side pot
        S[POT_WINNERS_ + p] = winners
        k = 0
        for s in range(n):
            if winners & (1 << s):
                k += 1
        if k == 0 or amt <= 0:
            continue
        share = amt // k
        odd = amt - share * k
        if fault == F_CHIP_LOST and p == 0:
            odd -= 1  # FAULT: one chip of the main pot vanishes
            S[FAULT_FIRED] = 1
        if fault == F_ODD_CHIP and odd > 0 \
                and _odd_chip_seats(S, winners, odd, -1) != _odd_chip_seats(S, winners, odd, 1):
            S[FAULT_FIRED] = 1  # the odd chips reach other seats than clockwise
        s = S[BUTTON]
        for _ in range(n):
            if fault == F_ODD_CHIP:
                s = s - 1 if s > 0 else n - 1  # FAULT: odd chips counter-clockwise
            else:
                s = s + 1 if s + 1 < n else 0
            if winners & (1 << s):
                won = share
                if odd > 0:
                    won += 1
                    odd -= 1
                elif odd < 0:
                    won -= 1
                    odd += 1
                S[WON_ + s] += won
                S[STACK_ + s] += won
                _record(S, log, s, E_WIN, 0, won, -1, p)
    S[STREET] = COMPLETE
    S[TO_ACT] = -1
