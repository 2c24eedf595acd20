"""The compiled PHH replay: every hand of a ``HandBlock`` replayed through the engine in one
numba kernel (``replay_block``), equal to ``sim.histories.replay.reference.replay`` on every hand it
marks ok.

``sim.histories.replay.reference`` stays the reference and the one that names errors: a hand the
compiled replay cannot take whole, or on any doubt, is ``ok`` False and the caller replays it in
Python. Per hand the kernel does what ``phh_replay._play`` does (``_build``, ``_blinds``,
``_stand_in``, the action loop, the showdown loop, the board check, and the second try of
``_unsaid_all_ins`` when the actions end early with unknown stacks), driving the same engine
kernels in the same order (``start_hand_posts`` or, for p3's straddle, ``start_hand_straddle``,
``legal`` where ``Hand.legal_actions`` is called, ``apply``), so the state, the record log and
the unrecorded flags are those of the Python replay.

Python work is per distinct table: ``_prepare`` (compiled) reads the blinds of every hand and
gives each its table key (n, structure, small blind, big blind, ante trimming, min bet or small
and big bet); each distinct key becomes a ``TableConfig`` and its ``sim.hand.config_block``
(a key ``TableConfig`` refuses: its hands are not ok); ``_replay_all`` replays the hands.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from sim import layout as L
from sim.cards import BOARD_CARDS, HOLE_CARDS, N_CARDS
from sim.codes import (
    A_BET_RAISE,
    A_CHECK_CALL,
    A_FOLD,
    A_MUCK,
    A_SHOW,
    COMPLETE,
    OK,
    S_ACTIVE,
    S_ALL_IN,
    SHOWDOWN,
)
from sim.config import MAX_SEATS, Structure, TableConfig
from sim.dealing import BOARD_BY_STREET, board_pos, hole_pos
from sim.engine import apply, legal, start_hand_posts, start_hand_straddle
from sim.hand import config_block
from sim.histories.read.block import (
    MAX_ACTION_CARDS,
    STATE_WIDTH,
    VARIANT_CODES,
    VERB_CODES,
    HandBlock,
    Replayed,
)
from sim.histories.read.phh import SUPPORTED_VARIANTS
from sim.histories.replay.reference import STAND_IN_FLOOR

__all__ = ["replay_block"]

_V_DH, _V_DB, _V_F, _V_CC, _V_CBR, _V_SM = (VERB_CODES[v] for v in ("dh", "db", "f", "cc", "cbr",
                                                                       "sm"))
_FT = VARIANT_CODES["FT"]
# variant code -> Structure value
_STRUCTURE = np.zeros(max(VARIANT_CODES.values()) + 1, np.int64)
for _name, _code in VARIANT_CODES.items():
    _STRUCTURE[_code] = int(SUPPORTED_VARIANTS[_name])
KEY_WIDTH = 7  # n, structure, small blind, big blind, ante trimming, min bet | small bet, big bet
_BIG = 1 << 62  # a stand-in above this: refused (the Python replay's int64 arrays would overflow)
# the results of one try of a hand
_DONE, _ENDS_EARLY, _FAILED = 0, 1, 2
_LOG_ROWS = L.DEFAULT_LOG_ROWS  # a Hand's record log (Hand.__init__'s default)
_STREET_BOARD = np.asarray(BOARD_BY_STREET, np.int64)


# ---------------------------------------------------------------- blinds and tables

@njit(cache=True)
def _blinds(blind, p0, n, one_blind_bet, live, dead):
    """``phh_replay._blinds`` (and ``_build``'s heads-up dead small blind): (ok, small blind,
    big blind, sb seat, bb seat, straddle); fills live[p0:p0 + n] and dead[p0:p0 + n]. The
    straddle: p3's, the one the engine plays (``PhhHand.plain_straddle``: 3 players or more,
    both blinds posted, above the big blind, no post after them), else 0."""
    for i in range(n):
        live[p0 + i] = 0
        dead[p0 + i] = 0
    sb = blind[p0]
    bb = blind[p0 + 1]
    if n == 2:
        if sb > 0 and bb == 0:
            return False, 0, 0, 0, 0, 0
        if bb < sb:
            return False, 0, 0, 0, 0, 0
        if sb < 0 or bb <= 0:
            return False, 0, 0, 0, 0, 0
        return True, sb, bb, (-1 if sb == 0 else 1), 0, 0
    sb_seat = 0
    bb_seat = 1
    if sb > 0 and bb == 0 and sb == one_blind_bet:  # one blind only: p1 posts the big blind
        bb = sb
        sb = 0
        sb_seat = -1
        bb_seat = 0
    if sb < 0 or bb < 0:
        return False, 0, 0, 0, 0, 0
    if bb <= 0 or sb > bb:
        return False, 0, 0, 0, 0, 0
    if sb == 0 and bb_seat == 1:
        sb_seat = -1
    straddle = blind[p0 + 2]
    if straddle > 0:  # p3's straddle: played when plain, else unsupported
        if sb_seat != 0 or sb <= 0 or straddle <= bb:
            return False, 0, 0, 0, 0, 0
        for i in range(3, n):
            if blind[p0 + i] != 0:
                return False, 0, 0, 0, 0, 0
        return True, sb, bb, sb_seat, bb_seat, straddle
    for i in range(2, n):
        v = blind[p0 + i]
        if v > 0:  # a straddle other than p3's: unsupported
            return False, 0, 0, 0, 0, 0
        a = -v
        if a > 2 * bb:
            return False, 0, 0, 0, 0, 0
        lv = bb if a >= bb else 0
        live[p0 + i] = lv
        dead[p0 + i] = a - lv
    return True, sb, bb, sb_seat, bb_seat, 0


@njit(cache=True)
def _prepare(n_arr, variant, ante_trimming, min_bet, small_bet, big_bet, p_lo, blind,
             structure_of):
    """Per hand: ok so far, sb seat, bb seat, its table's index in the distinct keys, its
    straddle (0: none); per player the live and dead posts; and the distinct table keys
    ``[K, KEY_WIDTH]``."""
    H = n_arr.shape[0]
    P = p_lo[H]
    ok = np.zeros(H, np.bool_)
    sb_seat = np.zeros(H, np.int64)
    bb_seat = np.zeros(H, np.int64)
    cfg_idx = np.full(H, -1, np.int64)
    strad = np.zeros(H, np.int64)
    live = np.zeros(P, np.int64)
    dead = np.zeros(P, np.int64)
    keys = np.zeros((max(H, 1), KEY_WIDTH), np.int64)
    n_keys = 0
    key = np.zeros(KEY_WIDTH, np.int64)
    last = -1
    for h in range(H):
        n = n_arr[h]
        if n < 2 or n > MAX_SEATS or p_lo[h + 1] - p_lo[h] != n:
            continue
        if variant[h] < 0 or variant[h] >= structure_of.shape[0]:
            continue
        ft = variant[h] == _FT
        good, sb, bb, s_seat, b_seat, st = _blinds(blind, p_lo[h], n,
                                                   small_bet[h] if ft else min_bet[h], live,
                                                   dead)
        if not good:
            continue
        key[0] = n
        key[1] = structure_of[variant[h]]
        key[2] = sb if sb != 0 else bb
        key[3] = bb
        key[4] = 1 if ante_trimming[h] else 0
        if ft:
            if small_bet[h] < 0 or big_bet[h] < 0:  # absent (or negative: TableConfig refuses)
                continue
            key[5] = small_bet[h]
            key[6] = big_bet[h]
        else:
            if min_bet[h] < 0:
                continue
            key[5] = min_bet[h]
            key[6] = 0
        found = -1
        if last >= 0:
            same = True
            for j in range(KEY_WIDTH):
                if keys[last, j] != key[j]:
                    same = False
                    break
            if same:
                found = last
        if found < 0:
            for k in range(n_keys):
                same = True
                for j in range(KEY_WIDTH):
                    if keys[k, j] != key[j]:
                        same = False
                        break
                if same:
                    found = k
                    break
        if found < 0:
            for j in range(KEY_WIDTH):
                keys[n_keys, j] = key[j]
            found = n_keys
            n_keys += 1
        last = found
        ok[h] = True
        sb_seat[h] = s_seat
        bb_seat[h] = b_seat
        cfg_idx[h] = found
        strad[h] = st
    return ok, sb_seat, bb_seat, cfg_idx, strad, live, dead, keys[:n_keys].copy()


_CONFIGS: dict[tuple[int, ...], np.ndarray | None] = {}


def _config_block(key: tuple[int, ...]) -> np.ndarray | None:
    """The engine's config block of a table key (``phh_replay._table_config`` with
    ``auto_showdown`` off, as ``Hand`` builds it), None when ``TableConfig`` refuses it."""
    if key in _CONFIGS:
        return _CONFIGS[key]
    n, structure, small_blind, big_blind, trim, m1, m2 = key
    kw: dict[str, Any] = ({"small_bet": m1, "big_bet": m2} if structure == Structure.FIXED_LIMIT
                          else {"min_bet": m1})
    try:
        cfg: np.ndarray | None = config_block(TableConfig(
            n_seats=n, structure=Structure(structure), small_blind=small_blind,
            big_blind=big_blind, ante_trimming=bool(trim), **kw), auto_showdown=False)
    except ValueError:
        cfg = None
    if len(_CONFIGS) >= 4096:
        _CONFIGS.clear()
    _CONFIGS[key] = cfg
    return cfg


# ---------------------------------------------------------------- one hand

@njit(cache=True)
def _cards(h, n, a_lo, verb, actor, player, n_cards, cards, hole, board, decision, n_hole):
    """``_build``'s cards: hole[2 * seat + k] (dealt, completed by shows; -1 unknown),
    board[:nb] (-1 unknown), decision[seat] (the seat's last ``sm`` action, -1 none).
    Returns nb, or -1 when the record's cards are inconsistent."""
    for s in range(MAX_SEATS):
        hole[2 * s] = -1
        hole[2 * s + 1] = -1
        decision[s] = -1
        n_hole[s] = 0
    nb = 0
    for a in range(a_lo[h], a_lo[h + 1]):
        v = verb[a]
        k = n_cards[a]
        if k < 0 or k > MAX_ACTION_CARDS:
            return -1
        for j in range(k):
            c = cards[a, j]
            if c < -1 or c >= N_CARDS:
                return -1
        if v == _V_DH:
            p = player[a]
            if p < 0 or p >= n:
                return -1
            for j in range(k):
                if n_hole[p] >= HOLE_CARDS:
                    return -1
                hole[2 * p + n_hole[p]] = cards[a, j]
                n_hole[p] += 1
        elif v == _V_DB:
            for j in range(k):
                if nb >= BOARD_CARDS:
                    return -1
                board[nb] = cards[a, j]
                nb += 1
        elif v == _V_F or v == _V_CC or v == _V_CBR or v == _V_SM:
            p = actor[a]
            if p < 0 or p >= n:
                return -1
            if v != _V_SM and k != 0:
                return -1
        else:
            return -1
    for a in range(a_lo[h], a_lo[h + 1]):
        if verb[a] != _V_SM:
            continue
        p = actor[a]
        decision[p] = a
        k = n_cards[a]
        if k == 0:
            continue
        if k > HOLE_CARDS:
            return -1
        for j in range(k):  # _merge_shown
            c = cards[a, j]
            if c < 0 or hole[2 * p] == c or hole[2 * p + 1] == c:
                continue
            if hole[2 * p] == -1:
                hole[2 * p] = c
            elif hole[2 * p + 1] == -1:
                hole[2 * p + 1] = c
            else:
                return -1
    return nb


@njit(cache=True)
def _deck(n, hole, board, nb, deck, placed, seen):
    """``_build``'s deck: the known cards at their dealing positions, the spare cards in
    ascending order elsewhere. False when a card appears twice."""
    for c in range(N_CARDS):
        placed[c] = -1
        seen[c] = False
    for s in range(n):
        for r in range(HOLE_CARDS):
            c = hole[2 * s + r]
            if c >= 0:
                if seen[c]:
                    return False
                seen[c] = True
                placed[hole_pos(n, r, s)] = c
    for k in range(nb):
        c = board[k]
        if c >= 0:
            if seen[c]:
                return False
            seen[c] = True
            placed[board_pos(n, k)] = c
    spare = 0
    for pos in range(N_CARDS):
        if placed[pos] >= 0:
            deck[pos] = placed[pos]
        else:
            while seen[spare]:
                spare += 1
            deck[pos] = spare
            spare += 1
    return True


@njit(cache=True)
def _stand_in(h, n, p0, a_lo, ante, blind, verb, amount):
    """``phh_replay._stand_in``: STAND_IN_FLOOR plus every amount the record names; -1 when
    that is not a sure int64 (the Python replay's arrays could not hold it)."""
    total = 0
    for i in range(n):
        v = ante[p0 + i]
        w = blind[p0 + i]
        if v > _BIG or v < -_BIG or w > _BIG or w < -_BIG:
            return -1
        total += abs(v) + abs(w)
        if total > _BIG:
            return -1
    for a in range(a_lo[h], a_lo[h + 1]):
        if verb[a] == _V_CBR:
            v = amount[a]
            if v > _BIG or v < 0:
                return -1
            total += v
            if total > _BIG:
                return -1
    return STAND_IN_FLOOR + total


@njit(cache=True)
def _play(h, n, a_lo, verb, actor, amount, n_cards, dash, S, log, lg, cfg, stacks, antes,
          sb_seat, bb_seat, deck, live, dead, hole, board, nb, decision, unrec, straddle):
    """``phh_replay._play`` after ``_build``'s checks: _DONE, _ENDS_EARLY or _FAILED."""
    for s in range(n):
        unrec[s] = False
    if straddle > 0:  # p3's (seat 2), as ``Hand(straddle=)``, by the PHH reading (big_blind)
        start_hand_straddle(S, log, cfg, stacks, antes, n - 1, sb_seat, bb_seat, deck, 2,
                            straddle, 1, 0)
    else:
        start_hand_posts(S, log, cfg, stacks, antes, n - 1, sb_seat, bb_seat, deck, live, dead,
                         1)
    if S[L.N_LOG] != S[L.SEQ]:
        return _FAILED  # the record log is full (Hand._check_log)
    dealt = 0
    for a in range(a_lo[h], a_lo[h + 1]):
        v = verb[a]
        if v == _V_DB:
            dealt += n_cards[a]
            if S[L.N_BOARD] < dealt:
                return _FAILED
            continue
        if v != _V_F and v != _V_CC and v != _V_CBR:
            continue
        seat = actor[a]
        street = S[L.STREET]
        if v == _V_CC and (street >= SHOWDOWN or S[L.N_BOARD] > dealt):
            # the "cc with no turn" no-op (phh_replay._play)
            n_act = 0
            any_all_in = False
            for s in range(n):
                st = S[L.STATUS_ + s]
                if st == S_ACTIVE:
                    n_act += 1
                elif st == S_ALL_IN:
                    any_all_in = True
            if S[L.STATUS_ + seat] == S_ACTIVE and n_act == 1 and any_all_in:
                continue
        if street >= SHOWDOWN:
            return _FAILED
        if _STREET_BOARD[street] != dealt:
            return _FAILED
        if S[L.TO_ACT] != seat:
            return _FAILED
        if v == _V_F:
            kind = A_FOLD
            legal(S, lg)  # as the Python replay (it counts free folds)
            amt = 0
        elif v == _V_CC:
            kind = A_CHECK_CALL
            amt = 0
        else:
            kind = A_BET_RAISE
            amt = amount[a]
        if apply(S, log, kind, amt) != OK:
            return _FAILED
        if S[L.N_LOG] != S[L.SEQ]:
            return _FAILED
    at_showdown = False
    while S[L.STREET] != COMPLETE:
        legal(S, lg)
        if lg[L.LG_PHASE] != SHOWDOWN:
            return _ENDS_EARLY
        at_showdown = True
        seat = lg[L.LG_TO_ACT]
        if seat < 0 or seat >= n:
            return _FAILED
        d = decision[seat]
        can_muck = lg[L.LG_CAN_MUCK] != 0
        if d >= 0 and n_cards[d] == 0 and not dash[d]:  # a muck
            if not can_muck:
                return _FAILED
            kind = A_MUCK
        elif hole[2 * seat] < 0 or hole[2 * seat + 1] < 0:
            unrec[seat] = True
            kind = A_MUCK if can_muck else A_SHOW
        else:
            kind = A_SHOW
        if apply(S, log, kind, 0) != OK:
            return _FAILED
        if S[L.N_LOG] != S[L.SEQ]:
            return _FAILED
    if S[L.N_BOARD] != nb:
        return _FAILED
    for k in range(nb):
        c = board[k]
        if c >= 0 and c != S[L.BOARD_ + k]:
            return _FAILED
        if c < 0 and at_showdown:
            return _FAILED
    return _DONE


@njit(cache=True)
def _replay_all(n_arr, p_lo, a_lo, stack, ante, blind, verb, actor, player, amount, n_cards, cards,
                dash, ante_trimming, prep_ok, sb_seat, bb_seat, cfg_idx, cfgs, cfg_ok, live,
                dead, strad):
    H = n_arr.shape[0]
    P = p_lo[H]
    ok = np.zeros(H, np.bool_)
    state = np.zeros((H, STATE_WIDTH), np.int64)
    log_lo = np.zeros(H + 1, np.int64)
    unrecorded = np.zeros(P, np.bool_)
    out = np.zeros((max(64, 32 * H), L.LOG_COLS), np.int64)
    rows = 0
    S = np.zeros(L.STATE_SIZE, np.int64)
    log = np.zeros((_LOG_ROWS, L.LOG_COLS), np.int64)
    lg = np.zeros(L.LG_SIZE, np.int64)
    hole = np.zeros(2 * MAX_SEATS, np.int64)
    board = np.zeros(BOARD_CARDS, np.int64)
    decision = np.zeros(MAX_SEATS, np.int64)
    unrec = np.zeros(MAX_SEATS, np.bool_)
    deck = np.zeros(N_CARDS, np.int64)
    placed = np.zeros(N_CARDS, np.int64)
    seen = np.zeros(N_CARDS, np.bool_)
    n_hole = np.zeros(MAX_SEATS, np.int64)
    stacks = np.zeros(MAX_SEATS, np.int64)
    antes = np.zeros(MAX_SEATS, np.int64)
    lv = np.zeros(MAX_SEATS, np.int64)
    dd = np.zeros(MAX_SEATS, np.int64)
    for h in range(H):
        log_lo[h + 1] = rows
        if not prep_ok[h] or not cfg_ok[cfg_idx[h]]:
            continue
        n = n_arr[h]
        p0 = p_lo[h]
        # stacks: known ones > 0; unknown ones (-1) the stand-in (phh_replay._stand_in)
        unknown = False
        bad = False
        for i in range(n):
            v = stack[p0 + i]
            if v == -1:
                unknown = True
            elif v <= 0:
                bad = True
        if bad:
            continue
        stand_in = 0
        if unknown:
            stand_in = _stand_in(h, n, p0, a_lo, ante, blind, verb, amount)
            if stand_in < 0:
                continue
        any_dead = False
        for i in range(n):
            stacks[i] = stack[p0 + i] if stack[p0 + i] != -1 else stand_in
            # heads-up: p1 (big blind) posts antes[1]
            antes[i] = ante[p0 + (n - 1 - i if n == 2 else i)]
            if antes[i] < 0:
                bad = True
            lv[i] = live[p0 + i]
            dd[i] = dead[p0 + i]
            if dd[i] != 0:
                any_dead = True
        if bad or (any_dead and ante_trimming[h]):
            continue
        nb = _cards(h, n, a_lo, verb, actor, player, n_cards, cards, hole, board, decision,
                    n_hole)
        if nb < 0:
            continue
        if not _deck(n, hole, board, nb, deck, placed, seen):
            continue
        cfg = cfgs[cfg_idx[h]]
        r = _play(h, n, a_lo, verb, actor, amount, n_cards, dash, S, log, lg, cfg, stacks,
                  antes, sb_seat[h], bb_seat[h], deck, lv, dd, hole, board, nb, decision, unrec,
                  strad[h])
        if r == _ENDS_EARLY and unknown:
            # _unsaid_all_ins: each live unknown stack that put chips in is all-in with them
            for i in range(n):
                if stack[p0 + i] == -1:
                    st = S[L.STATUS_ + i]
                    c = S[L.CONTRIB_ + i]
                    if (st == S_ACTIVE or st == S_ALL_IN) and c > 0:
                        stacks[i] = c
            r = _play(h, n, a_lo, verb, actor, amount, n_cards, dash, S, log, lg, cfg, stacks,
                      antes, sb_seat[h], bb_seat[h], deck, lv, dd, hole, board, nb, decision,
                      unrec, strad[h])
        if r != _DONE:
            continue
        ok[h] = True
        for k in range(STATE_WIDTH):
            state[h, k] = S[k]
        m = S[L.N_LOG]
        if rows + m > out.shape[0]:
            bigger = np.zeros((max(2 * out.shape[0], rows + m), L.LOG_COLS), np.int64)
            bigger[:rows] = out[:rows]
            out = bigger
        for i in range(m):
            for j in range(L.LOG_COLS):
                out[rows + i, j] = log[i, j]
        rows += m
        log_lo[h + 1] = rows
        for i in range(n):
            unrecorded[p0 + i] = unrec[i]
    return ok, state, log_lo, out[:rows].copy(), unrecorded


# ---------------------------------------------------------------- the block

def replay_block(block: HandBlock) -> Replayed:
    """Every hand of ``block`` replayed as ``sim.histories.replay.reference.replay`` replays it
    (module docstring): ``ok`` False where the Python replay fails, or might (it replays those)."""
    prep_ok, sb_seat, bb_seat, cfg_idx, strad, live, dead, keys = _prepare(
        block.n, block.variant, block.ante_trimming, block.min_bet, block.small_bet,
        block.big_bet, block.p_lo, block.blind, _STRUCTURE)
    k = len(keys)
    cfgs = np.zeros((max(k, 1), L.CONFIG_BLOCK), np.int64)
    cfg_ok = np.zeros(max(k, 1), np.bool_)
    for i, key in enumerate(keys.tolist()):
        cfg = _config_block(tuple(key))
        if cfg is not None:
            cfgs[i] = cfg
            cfg_ok[i] = True
    cfg_idx = np.where(cfg_idx < 0, 0, cfg_idx)  # prep_ok is False there
    ok, state, log_lo, log, unrecorded = _replay_all(
        block.n, block.p_lo, block.a_lo, block.stack, block.ante, block.blind, block.verb,
        block.actor, block.player, block.amount, block.n_cards, block.cards, block.dash,
        block.ante_trimming,
        prep_ok, sb_seat, bb_seat, cfg_idx, cfgs, cfg_ok, live, dead, strad)
    return Replayed(ok=ok, state=state, log_lo=log_lo, log=log, unrecorded=unrecorded)
