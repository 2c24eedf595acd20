"""``holdem bench engine``: complete 6-max no-limit hands with random-legal-action players.

Everything per hand runs compiled: shuffle, blinds, dealing, the betting loop with the bot's
decisions, evaluation and pot award. The same workload runs on PokerKit (when installed) in the
same process for a ratio. Figures are medians of repeated runs on one core.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

import numpy as np
from numba import njit

from sim import engine
from sim.codes import COMPLETE
from sim.config import Structure, TableConfig
from sim.evaluator import evaluate7
from sim.hand import config_block
from sim.layout import LG_SIZE, N_SHOW, STACK_, STREET
from sim.policies import random_legal
from sim.rng import DECK_PURPOSE, POLICY_PURPOSE, new_stream, shuffle_deck, stream_init


def play_random_hands(cfg: np.ndarray, n_hands: int, n_seats: int, stack: int,
                      seed: int) -> tuple[int, int]:
    """Play ``n_hands`` independent hands; returns (actions applied, chips checksum)."""
    return _play_random_hands(
        cfg, n_hands, n_seats, seed, engine.new_state(), engine.new_log(),
        np.zeros(LG_SIZE, dtype=np.int64), np.empty(52, dtype=np.int64),
        np.full(n_seats, stack, dtype=np.int64), np.zeros(n_seats, dtype=np.int64),
        new_stream(), new_stream())


@njit(cache=True, _nrt=False)
def _play_random_hands(cfg, n_hands, n_seats, seed, S, log, lg, deck, stacks, antes, rs_deck,
                       rs_bot):
    actions = 0
    checksum = 0
    for h in range(n_hands):
        stream_init(rs_deck, seed, 0, h, DECK_PURPOSE)
        stream_init(rs_bot, seed, 0, h, POLICY_PURPOSE)
        shuffle_deck(rs_deck, deck)
        button = h % n_seats
        if n_seats == 2:
            sb, bb = button, (button + 1) % n_seats
        else:
            sb, bb = (button + 1) % n_seats, (button + 2) % n_seats
        engine.start_hand(S, log, cfg, stacks, antes, button, sb, bb, deck)
        while S[STREET] != COMPLETE:
            engine.legal_inline(S, lg)
            kind, amount = random_legal(rs_bot, lg)
            engine.apply_inline(S, log, kind, amount)
            actions += 1
        checksum += S[STACK_ + (h % n_seats)]
    return actions, checksum


def _pokerkit_hands(n_hands: int, n_seats: int, stack: int, seed: int) -> int:
    """The same workload on PokerKit; returns actions applied."""
    from pokerkit import Automation, NoLimitTexasHoldem

    rnd = random.Random(seed)
    autos = (
        Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING, Automation.HOLE_DEALING, Automation.BOARD_DEALING,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING,
    )
    actions = 0
    for _ in range(n_hands):
        st = NoLimitTexasHoldem.create_state(autos, True, 0, (1, 2), 2, (stack,) * n_seats, n_seats)
        while st.status:
            r = rnd.randrange(100)
            if r < 15 and st.can_fold() and st.checking_or_calling_amount:
                st.fold()
            elif r >= 65 and st.can_complete_bet_or_raise_to():
                lo = st.min_completion_betting_or_raising_to_amount
                hi = st.max_completion_betting_or_raising_to_amount
                assert lo is not None and hi is not None  # a completion is possible here
                q = rnd.randrange(100)
                amt = lo if q < 40 else hi if q < 55 else rnd.randint(lo, hi)
                st.complete_bet_or_raise_to(amt)
            else:
                st.check_or_call()
            actions += 1
    return actions


def run_engine_bench(hands: int = 1_000_000, repeats: int = 5, pokerkit_hands: int = 300,
                     n_seats: int = 6, stack: int = 200, seed: int = 1) -> dict[str, float]:
    """Print and return hands/s and actions/s (median of ``repeats``), and the PokerKit ratio."""
    cfg = config_block(TableConfig(n_seats=n_seats, structure=Structure.NO_LIMIT,
                                   small_blind=1, big_blind=2))
    new_stream()
    t0 = time.perf_counter()
    play_random_hands(cfg, 10, n_seats, stack, seed)  # compile or load the cache
    print(f"compile/load: {time.perf_counter() - t0:.1f} s")
    rates, arates = [], []
    for r in range(repeats):
        t0 = time.perf_counter()
        actions, _ = play_random_hands(cfg, hands, n_seats, stack, seed + r)
        dt = time.perf_counter() - t0
        rates.append(hands / dt)
        arates.append(actions / dt)
    out = {"hands_per_s": statistics.median(rates), "actions_per_s": statistics.median(arates),
           "actions_per_hand": actions / hands}
    print(f"holdem engine: {n_seats}-max no-limit, random legal actions, 1 core, "
          f"{hands:,} hands x {repeats}")
    print(f"  hands/s   median {out['hands_per_s']:,.0f}  (min {min(rates):,.0f}, "
          f"max {max(rates):,.0f})")
    print(f"  actions/s median {out['actions_per_s']:,.0f}  "
          f"({out['actions_per_hand']:.2f} actions/hand)")
    if pokerkit_hands > 0:
        try:
            prates = []
            for r in range(3):
                t0 = time.perf_counter()
                _pokerkit_hands(pokerkit_hands, n_seats, stack, seed + r)
                prates.append(pokerkit_hands / (time.perf_counter() - t0))
            pk = statistics.median(prates)
            out["pokerkit_hands_per_s"] = pk
            out["ratio"] = out["hands_per_s"] / pk
            print(f"  PokerKit  median {pk:,.0f} hands/s ({pokerkit_hands} hands x 3), "
                  f"ratio {out['ratio']:,.0f}x")
        except ImportError:
            print("  PokerKit not installed (pip install -e '.[dev]'): peer skipped")
    return out


@njit(cache=True, _nrt=False)
def _stage_hands(cfg, n_hands, n_seats, seed, S, log, lg, deck, stacks, antes, rs_deck, rs_bot,
                 upto):
    """The engine bench's loop cut after stage ``upto`` (0: the two streams and the shuffle,
    1: + start_hand, 2: the whole hand); returns (actions, evaluations at showdown)."""
    actions = 0
    shown = 0
    for h in range(n_hands):
        stream_init(rs_deck, seed, 0, h, DECK_PURPOSE)
        stream_init(rs_bot, seed, 0, h, POLICY_PURPOSE)
        shuffle_deck(rs_deck, deck)
        if upto == 0:
            continue
        button = h % n_seats
        sb, bb = (button + 1) % n_seats, (button + 2) % n_seats
        engine.start_hand(S, log, cfg, stacks, antes, button, sb, bb, deck)
        if upto == 1:
            continue
        while S[STREET] != COMPLETE:
            engine.legal_inline(S, lg)
            kind, amount = random_legal(rs_bot, lg)
            engine.apply_inline(S, log, kind, amount)
            actions += 1
        shown += S[N_SHOW]
    return actions, shown


@njit(cache=True, _nrt=False)
def _legal_only(S, lg, n):
    for _ in range(n):
        engine.legal_inline(S, lg)
    return lg[0]


@njit(cache=True, _nrt=False)
def _bot_only(rs, lg, n):
    t = 0
    for _ in range(n):
        kind, amount = random_legal(rs, lg)
        t += kind + amount
    return t


@njit(cache=True, _nrt=False)
def _eval_only(cards, n):
    t = 0
    for i in range(n):
        j = 7 * (i % (cards.shape[0] // 7))
        t += evaluate7(cards[j], cards[j + 1], cards[j + 2], cards[j + 3], cards[j + 4],
                       cards[j + 5], cards[j + 6])
    return t


def engine_stages(hands: int = 300_000, repeats: int = 3, n_seats: int = 6, stack: int = 200,
                  seed: int = 1, calls: int = 2_000_000, show: bool = True) -> dict[str, float]:
    """Where the engine bench's time goes, µs per hand (medians of ``repeats``, one process):
    the streams and shuffle, start_hand (blinds, deal, first decision), and the betting loop
    split into legal() and the bot by timing each alone on a started hand, evaluation at
    showdown by timing evaluate7 alone times the evaluations per hand, and apply() (with the
    pot building, award and logging) as the rest."""
    cfg = config_block(TableConfig(n_seats=n_seats, structure=Structure.NO_LIMIT,
                                   small_blind=1, big_blind=2))
    S, log = engine.new_state(), engine.new_log()
    lg, deck = np.zeros(LG_SIZE, dtype=np.int64), np.empty(52, dtype=np.int64)
    stacks, antes = np.full(n_seats, stack, dtype=np.int64), np.zeros(n_seats, dtype=np.int64)
    rs_deck, rs_bot = new_stream(), new_stream()

    def timed(fn: Any, *args: Any) -> tuple[float, Any]:
        fn(*args)  # compile or load
        ts, out = [], None
        for _ in range(repeats):
            t0 = time.process_time()
            out = fn(*args)
            ts.append(time.process_time() - t0)
        return statistics.median(ts), out

    per: dict[str, float] = {}
    cum = []
    res: Any = None
    for upto in range(3):
        t, res = timed(_stage_hands, cfg, hands, n_seats, seed, S, log, lg, deck, stacks,
                       antes, rs_deck, rs_bot, upto)
        cum.append(1e6 * t / hands)
    actions, shown = res
    engine.start_hand(S, log, cfg, stacks, antes, 0, 1, 2, deck)
    t_legal, _ = timed(_legal_only, S, lg, calls)
    engine.legal(S, lg)
    t_bot, _ = timed(_bot_only, rs_bot, lg, calls)
    cards = np.concatenate([np.random.default_rng(seed + i).permutation(52)[:7]
                            for i in range(1000)]).astype(np.int64)
    t_eval, _ = timed(_eval_only, cards, calls)
    a, e = actions / hands, shown / hands
    per["streams + shuffle"] = cum[0]
    per["start_hand"] = cum[1] - cum[0]
    per["legal()"] = 1e6 * t_legal / calls * a
    per["bot (random_legal)"] = 1e6 * t_bot / calls * a
    per["evaluate7 at showdown"] = 1e6 * t_eval / calls * e
    per["apply() and the rest"] = cum[2] - cum[1] - sum(per[k] for k in (
        "legal()", "bot (random_legal)", "evaluate7 at showdown"))
    per["total"] = cum[2]
    if show:
        print(f"engine stages: {hands:,} hands x {repeats}, {a:.2f} actions and {e:.2f} "
              "evaluations a hand, µs/hand")
        for k, v in per.items():
            print(f"  {k:<24} {v:6.3f}")
    return per


def warm_stages() -> None:
    """Compile (or load) the stage profile's kernels on tiny inputs (``holdem warmup``)."""
    engine_stages(hands=10, repeats=1, calls=10, show=False)
