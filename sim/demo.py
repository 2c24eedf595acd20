"""``holdem demo``: a few seeded hands with random-legal-action players, printed as histories."""

from __future__ import annotations

import random

from sim.config import TableConfig
from sim.hand import Action, Hand
from sim.logview.hand_text import format_hand


def play_random(hand: Hand, rnd: random.Random) -> Hand:
    """Finish ``hand`` with uniformly drawn legal actions (a Python-level stress bot)."""
    while not hand.is_complete:
        la = hand.legal_actions()
        r = rnd.random()
        if la.can_fold and r < 0.2:
            hand.apply(Action.fold(la.seat))
        elif la.can_raise and r > 0.7:
            hand.apply(Action.raise_to(la.seat, rnd.randint(la.min_raise_to, la.max_raise_to)))
        else:
            hand.apply(Action.check_call(la.seat))
    return hand


def demo_histories(hands: int = 3, seed: int = 1, players: int = 6) -> list[str]:
    """``hands`` seeded hands at one table of ``players`` seats (200 chips each, a busted
    player rebuys), as readable histories."""
    cfg = TableConfig(n_seats=players, small_blind=1, big_blind=2)
    rnd = random.Random(seed)
    stacks = [200] * players
    out = []
    for h in range(hands):
        hand = Hand(cfg, stacks, button=h % players, seed=seed, hand_id=h)
        play_random(hand, rnd)
        out.append(format_hand(hand))
        stacks = [s if s > 0 else 200 for s in hand.stacks]
    return out
