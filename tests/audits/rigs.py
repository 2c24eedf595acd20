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


def shill_ids(pid: np.ndarray, frac: float, salt: int = 0) -> np.ndarray:
    """Which player ids are shills: a share ``frac`` of them by a hash of the id."""
    h = ((pid.astype(np.uint64) + np.uint64(salt * 7919)) * np.uint64(0x9E3779B97F4A7C15)
         ) >> np.uint64(40)
    return (pid >= 0) & ((h % np.uint64(10_000)).astype(np.int64) < int(frac * 10_000))


def shill_runouts(b: Any, frac: float, rng: np.random.Generator, salt: int = 0,
                  tries: int = 1) -> tuple[runouts.RunoutPartial, int]:
    """The shill run-out rig on one batch's own cards (``audits.io.Batch`` of a simulated run):
    in every run-out in which a shill (``shill_ids``) is live and would win nothing, every card
    after those dealt by the all-in street is shuffled again (the board and burns taken from
    the new deck, as the dealer deals them; ``tries`` > 1: again, up to that many re-deals,
    until a shill wins something); returns the run-out partial the audit computes on
    the rigged boards, and the run-outs re-dealt. A forged run of the default population
    cannot carry it (the new chip flows change the stacks every later hand of the table starts
    from: the ``chips`` audit names the first), so the test applies it at the battery's map."""
    sc = b.seat
    bv, boff = b.var["board"]
    uv, uoff = b.var["burns"]
    occ, fold, pid = sc["occupied"], sc["folded"], sc["player_ids"]
    shill = shill_ids(pid, frac, salt)
    bv2, uv2 = bv.copy(), uv.copy()
    changed = 0
    for i in np.flatnonzero((shill & occ & ~fold).any(axis=1) & (np.diff(boff) == 5)):
        a0, a1 = b.act_off[i], b.act_off[i + 1]
        nbu = uoff[i + 1] - uoff[i]

        def deal(board: np.ndarray, burns: np.ndarray, i: int = i, a0: int = a0,
                 a1: int = a1, nbu: int = nbu) -> runouts.RunoutPartial:
            return runouts.runout_map_arrays(
                occ[i:i + 1], fold[i:i + 1], b.hole[i:i + 1], (board, np.array([0, 5])),
                (burns, np.array([0, nbu])),
                (b.act["street"][a0:a1], b.act["kind"][a0:a1], np.array([0, a1 - a0])))

        one = deal(bv[boff[i]:boff[i + 1]], uv[uoff[i]:uoff[i + 1]])
        if one.runouts == 0 or one.share[shill[i][one.seat]].sum() > 0:
            continue
        m = int(occ[i].sum())
        at = 2 * m + STREET_CARDS[int(one.street[0])]
        p = 2 * m
        for _ in range(tries):
            deck = b.deck[i].astype(np.int64)
            deck[at:] = rng.permutation(deck[at:])
            board, burns = deck[[p + 1, p + 2, p + 3, p + 5, p + 7]], deck[[p, p + 4, p + 6]][:nbu]
            if deal(board, burns).share[shill[i][one.seat]].sum() > 0:
                break
        bv2[boff[i]:boff[i] + 5] = board
        uv2[uoff[i]:uoff[i] + nbu] = burns
        changed += 1
    part = runouts.runout_map_arrays(occ, fold, b.hole, (bv2, boff), (uv2, uoff),
                                     (b.act["street"], b.act["kind"], b.act_off), pid,
                                     runouts.MIN_BOARD, b.cols.get("hand_id"),
                                     order_keys=(None, b.cols.get("table_id"),
                                                 b.cols.get("hand_no")))
    return part, changed
