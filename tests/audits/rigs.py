"""Rigged dealers that keep every deck a permutation and every exact audit passing (issue 35):
each re-deals only cards nobody has seen yet, and the engine replays the hand's actions on the
new deck (``tests.audits.forgery.replay_with_deck``), digests and manifest restamped. They need
a run of one hand per table (no later hand starts from a forged hand's stacks)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from audits import runouts
from tests.audits.forgery import RunForger, deck_of, replay_with_deck

Row = dict[str, Any]
STREET_CARDS = {0: 0, 1: 4, 2: 6}  # cards dealt after the hole cards by the end of a street


def runout_state(row: Row) -> tuple[int, np.ndarray, np.ndarray] | None:
    """(street of the last decision, live seats, their exact equities) of a hand run out from
    before the river with two or more hands live; None otherwise."""
    from sim.schema import ACTION_DTYPE

    acts = np.frombuffer(row["actions"], ACTION_DTYPE)
    k = int(row["n_seats"])
    hole = np.array(row["hole_cards"], np.int64).reshape(1, 2 * k)
    board = np.array(row["board"], np.int64)
    burns = np.array(row["burns"], np.int64)
    p = runouts.runout_map_arrays(
        np.array([row["occupied"]]), np.array([row["folded"]]), hole,
        (board, np.array([0, board.size])), (burns, np.array([0, burns.size])),
        (acts["street"].astype(np.int64), acts["kind"].astype(np.int64),
         np.array([0, acts.size])))
    if p.runouts == 0:
        return None
    return int(p.street[0]), p.seat, p.equity


def _share(row: Row, seats: np.ndarray) -> np.ndarray:
    from audits.evaluator import evaluate

    b = list(row["board"])
    sc = np.array([evaluate([*row["hole_cards"][2 * s:2 * s + 2], *b]) for s in seats])
    best = sc == sc.max()
    return best / best.sum()


def redeal(row: Row, street: int, rng: np.random.Generator) -> Row:
    """The hand with every card after the cards dealt by ``street`` shuffled again."""
    deck = deck_of(row).copy()
    m = sum(1 for o in row["occupied"] if o)
    at = 2 * m + STREET_CARDS[street]
    deck[at:] = rng.permutation(deck[at:])
    return replay_with_deck(row, deck)


def bad_beat(row: Row, rng: np.random.Generator, q: float) -> Row | None:
    """At a run-out, when the favourite would win, re-deal the rest with probability q."""
    st = runout_state(row)
    if st is None:
        return None
    street, seats, eq = st
    fav = int(np.argmax(eq))
    if _share(row, seats)[fav] < 1 or rng.random() >= q:
        return None
    return redeal(row, street, rng)


def shill(row: Row, rng: np.random.Generator, shills: set[int]) -> Row | None:
    """A shill (player id in ``shills``) about to lose a run-out gets a second run-out."""
    st = runout_state(row)
    if st is None:
        return None
    street, seats, _ = st
    pids = row["player_ids"]
    mine = [j for j, s in enumerate(seats) if pids[s] in shills]
    if not mine or _share(row, seats)[mine].sum() > 0:
        return None
    return redeal(row, street, rng)


def rig_run(run: Path, rig: Any, seed: int = 0, **kw: Any) -> int:
    """Apply ``rig(row, rng, **kw)`` to every hand of the run; returns the hands changed."""
    rng = np.random.default_rng(seed)
    m = json.loads((run / "manifest.json").read_text())
    changed = 0
    for rec in m["files"]:
        f = RunForger(run, rec["path"])
        for i, row in enumerate(f.rows):
            new = rig(row, rng, **kw)
            if new is not None:
                f.rows[i] = new
                changed += 1
        f.write()
    return changed


def preflop_pot(row: Row) -> int:
    """Chips in the pot when the flop is dealt (posts, calls, bets and raises pre-flop, less an
    uncalled return)."""
    from sim.schema import ACTION_DTYPE

    a = np.frombuffer(row["actions"], ACTION_DTYPE)
    pre = a[a["street"] == 0]
    into = np.isin(pre["kind"], runouts_into_pot())
    return int(pre["added"][into].sum() - pre["added"][pre["kind"] == 11].sum())


def runouts_into_pot() -> tuple[int, ...]:
    from audits.boards import INTO_POT

    return INTO_POT


def action_flop(row: Row, rng: np.random.Generator, q: float, big_bb: int = 10) -> Row | None:
    """After a pre-flop pot of ``big_bb`` big blinds or more, an unpaired rainbow flop is
    re-drawn (every card after the hole cards shuffled again) with probability ``q``."""
    board = row["board"]
    if len(board) < 3 or preflop_pot(row) < big_bb * int(row["big_blind"]):
        return None
    f = [int(c) for c in board[:3]]
    if len({c // 4 for c in f}) < 3 or len({c % 4 for c in f}) < 3 or rng.random() >= q:
        return None
    return redeal(row, 0, rng)
