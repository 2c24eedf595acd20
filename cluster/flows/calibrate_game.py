"""``holdem calibrate``'s deal tests that condition on the game (issue 35, point 3): their
false-alarm rate on fair runs of each kind, and their power against rigged dealers of stated
strengths, beside the power ``audits.rig_power`` predicts (what a certificate states).

Fair runs. One no-limit run of ``runs * hands`` hands (one hand a table: most hands are all-ins
run out) is simulated per kind and cut into ``runs`` runs of ``hands`` consecutive hands, each
audited alone exactly as ``holdem audit`` reduces a run (``uniformity_reduce`` of the map of
its hands: the decks, the run-outs, the boards):

- ``philox``: keyed decks; ``os-chacha20``: decks from the operating system's entropy;
- ``imported``: the hands as an operator's histories show them after ``holdem import``: no deck
  and no burns, hole cards only where the showdown showed them (``showdown_shown``: every live
  hand of an all-in run out, a river loser's only if he did not muck; none of a folded seat or
  of a hand won uncontested), the same cards ``holdem export --phh`` with every unshown hand
  written ``????`` and imported again gives (measured on 994 hands: every hand's known cards
  equal).

Player ids: a hand per table seats new players, so the hands are grouped into virtual tables of
``TABLE_HANDS`` hands whose seats keep their player (ids do not change a fair deal): the player
tests get players of 200 hands.

Rigged dealers (in this module, on the hands' arrays; the cards a rig moves are cards nobody has
seen yet, and the board and burns are re-read from the re-dealt deck at the engine's dealing
positions: burn, flop, burn, turn, burn, river after the hole cards):

- ``bad_beat`` q: at a run-out the favourite would win, the rest of the deck re-dealt with
  probability q;
- ``big_pot_flop`` q: after a pre-flop pot of 10 big blinds or more, an unpaired rainbow flop
  re-drawn with probability q (the actions after it are kept: the tests of the flop read the
  pre-flop pot only);
- ``shill_runout`` s: a share s of the players get a second run-out whenever they would lose;
- ``all_seat_pairs`` eps and ``targeted_pairs`` eps (5% of the players): fair decks dealt at
  9-seat tables of 500 hands (``audits.shuffles``), the second hole card paired to the first
  with probability eps / 16 (pairs (1 + eps) times as often).

A rig's power is the share of its runs in which its test rejects at the battery's level (alpha
/ m, Holm's first step), beside the mean power the formula predicts from each run's own counts,
and the share of runs the battery FAILS.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats as ss

from audits import boards, rig_power, runouts, seats, shuffles, uniformity

ALPHA = 0.01
KINDS = ("philox", "os-chacha20", "imported")
TESTS = (*runouts.TESTS, *boards.TESTS, "pooled_hand_classes", "pooled_hand_features",
         "player_dispersion")
TABLE_HANDS = 200
DECK_TABLE_HANDS = 500
# dealing positions after the 2m hole cards: burn, flop, burn, turn, burn, river
BOARD_AT = np.array([1, 2, 3, 5, 7])
BURN_AT = np.array([0, 4, 6])
STREET_AT = {0: 0, 1: 4, 2: 6}  # cards dealt after the hole cards by the end of a street
# rig -> (hands per run, strengths as multiples of the formula's 0.9-power strength)
RIG_SIZES: dict[str, int] = {"bad_beat": 2_000, "big_pot_flop": 20_000, "shill_runout": 2_000,
                             "all_seat_pairs": 20_000, "targeted_pairs": 100_000}
MULTIPLES = (0.5, 1.0)


@dataclass
class Hands:
    """Hands as the audits' maps read them (``audits.io.Batch`` columns, concatenated)."""

    occ: np.ndarray
    folded: np.ndarray
    hole: np.ndarray
    deck: np.ndarray | None
    board: tuple[np.ndarray, np.ndarray]
    burns: tuple[np.ndarray, np.ndarray] | None
    acts: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # street, kind, added, offsets
    big_blind: np.ndarray
    hand_id: np.ndarray
    pids: np.ndarray
    shown: np.ndarray  # (n, k): the cards shown at the showdown (an operator's history's)

    @property
    def n(self) -> int:
        return int(self.occ.shape[0])

    def take(self, a: int, b: int) -> Hands:
        """Hands a..b-1 (copies: a rig may change them)."""
        def rag(x: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
            v, o = x
            return v[o[a]:o[b]].copy(), o[a:b + 1] - o[a]

        st, kd, ad, off = self.acts
        acts = (st[off[a]:off[b]], kd[off[a]:off[b]], ad[off[a]:off[b]], off[a:b + 1] - off[a])
        return Hands(self.occ[a:b].copy(), self.folded[a:b].copy(), self.hole[a:b].copy(),
                     None if self.deck is None else self.deck[a:b].copy(), rag(self.board),
                     None if self.burns is None else rag(self.burns), acts,
                     self.big_blind[a:b], self.hand_id[a:b], self.pids[a:b].copy(),
                     self.shown[a:b])


def virtual_players(n: int, k: int, table_hands: int = TABLE_HANDS) -> np.ndarray:
    """(n, k) ids: hands grouped into tables of ``table_hands`` hands, each seat one player."""
    return (np.arange(n, dtype=np.int64)[:, None] // table_hands) * 16 + np.arange(k)


def load_hands(run: str | Path) -> Hands:
    """A simulated run's hands (its batch files of one seat count), checked to deal its board
    and burns from the dealing positions the rigs use."""
    from audits.io import read_batch, run_files

    bs = [read_batch(f) for f in run_files(run)]
    k = bs[0].k
    if any(b.k != k or b.deck is None for b in bs):
        raise RuntimeError(f"{run}: batch files of different seat counts or without decks")

    def cat_rag(name: str) -> tuple[np.ndarray, np.ndarray]:
        vals, offs, base = [], [np.zeros(1, np.int64)], 0
        for b in bs:
            v, o = b.var[name]
            vals.append(np.asarray(v, np.int64))
            offs.append(np.asarray(o[1:], np.int64) + base)
            base += int(o[-1])
        return np.concatenate(vals), np.concatenate(offs)

    act_off = [np.zeros(1, np.int64)]
    base = 0
    for b in bs:
        act_off.append(np.asarray(b.act_off[1:], np.int64) + base)
        base += int(b.act_off[-1])
    occ = np.concatenate([b.seat["occupied"] for b in bs]).astype(bool)
    h = Hands(occ, np.concatenate([b.seat["folded"] for b in bs]).astype(bool),
              np.concatenate([b.hole for b in bs]).astype(np.int64),
              np.concatenate([np.asarray(b.deck) for b in bs]).astype(np.uint8),
              cat_rag("board"), cat_rag("burns"),
              tuple(np.concatenate([np.asarray(b.act[c]) for b in bs]).astype(t)
                    for c, t in (("street", np.int64), ("kind", np.int64),
                                 ("added", np.float64))) + (np.concatenate(act_off),),  # type: ignore[arg-type]
              np.concatenate([b.cols["big_blind"] for b in bs]).astype(np.float64),
              np.concatenate([b.cols["hand_id"] for b in bs]).astype(np.int64),
              virtual_players(int(occ.shape[0]), k), _shown(bs, k))
    _check_positions(h)
    return h


def _shown(bs: list[Any], k: int) -> np.ndarray:
    """(n, k): the seats whose cards the showdown shows (``showdown_seats`` where
    ``showdown_shown``): what an operator's history shows."""
    out = []
    for b in bs:
        seats_, off = b.var["showdown_seats"]
        shown, _ = b.var["showdown_shown"]
        m = np.zeros((b.n, k), bool)
        rows = np.repeat(np.arange(b.n), np.diff(off))
        m[rows[shown], np.asarray(seats_, np.int64)[shown]] = True
        out.append(m)
    return np.concatenate(out)


def _positions(h: Hands) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per hand: 2m (the hole cards dealt), board length, burns length."""
    assert h.burns is not None
    return (2 * h.occ.sum(axis=1), np.diff(h.board[1]), np.diff(h.burns[1]))


def _check_positions(h: Hands) -> None:
    assert h.deck is not None and h.burns is not None
    two_m, nb, nu = _positions(h)
    for i in np.flatnonzero(nb > 0)[:2_000]:
        bv = h.board[0][h.board[1][i]:h.board[1][i + 1]]
        uv = h.burns[0][h.burns[1][i]:h.burns[1][i + 1]]
        if (not np.array_equal(bv, h.deck[i, two_m[i] + BOARD_AT[:nb[i]]])
                or not np.array_equal(uv, h.deck[i, two_m[i] + BURN_AT[:nu[i]]])):
            raise RuntimeError(f"hand {h.hand_id[i]}: the board is not dealt from the positions "
                               "the rigs assume")


def _redeal(h: Hands, rows: np.ndarray, street_at: np.ndarray, rng: np.random.Generator) -> None:
    """Shuffle every card of each row's deck after ``street_at`` cards past the hole cards
    again, and read its board and burns from the new deck (their lengths kept)."""
    assert h.deck is not None and h.burns is not None
    two_m, nb, nu = _positions(h)
    for i, at in zip(rows, street_at, strict=True):
        a = two_m[i] + at
        h.deck[i, a:] = rng.permutation(h.deck[i, a:])
        h.board[0][h.board[1][i]:h.board[1][i + 1]] = h.deck[i, two_m[i] + BOARD_AT[:nb[i]]]
        h.burns[0][h.burns[1][i]:h.burns[1][i + 1]] = h.deck[i, two_m[i] + BURN_AT[:nu[i]]]


# ---------------------------------------------------------------------------------------------
# the audit of one run's hands


def _runout_partial(h: Hands) -> runouts.RunoutPartial:
    st, kd, _, off = h.acts
    return runouts.runout_map_arrays(h.occ, h.folded, h.hole, h.board, h.burns, (st, kd, off),
                                     h.pids, runouts.MIN_BOARD, h.hand_id)


def imported_view(h: Hands) -> Hands:
    """The hands as an operator's histories give them after import: no deck, no burns, a hole
    card known only when shown at the showdown (every live hand of an all-in run out; a loser
    at the river may muck)."""
    hole = h.hole.copy()
    hole[~np.repeat(h.shown, 2, axis=1)] = -1
    return replace(h, hole=hole, deck=None, burns=None)


def partial(h: Hands) -> uniformity.UniformityPartial:
    """The uniformity battery's map of these hands (``uniformity_map`` of an audit batch)."""
    ro = _runout_partial(h)
    st, kd, ad, off = h.acts
    bo = boards.board_map_arrays(h.occ, h.hole, h.board, (st, kd, ad, off), h.big_blind)
    if h.deck is None:
        return uniformity.UniformityPartial(
            seats=seats.seat_map(h.hole, h.occ, None, h.pids, h.folded), runouts=ro, boards=bo)
    p = uniformity.map_decks(h.deck, h.hole, h.hand_id, occupied=h.occ, player_ids=h.pids)
    p.runouts, p.boards = ro, bo
    return p


def verdict(parts: list[uniformity.UniformityPartial]) -> dict[str, Any]:
    """The battery's verdict: raw p and details of every applicable test, the failed tests."""
    res = uniformity.uniformity_reduce(parts, ALPHA)
    tests = {r.name.split(".", 1)[1]: {"p": r.p_value, "details": r.details}
             for r in res[1:] if r.applicable}
    return {"rejected": not res[0].passed, "failed": list(res[0].details["failed_tests"]),
            "tests": tests, "level": rig_power.battery_level(tests, ALPHA)}


# ---------------------------------------------------------------------------------------------
# rigs on the hands' arrays


def _runout_rows(h: Hands, runs: int) -> np.ndarray:
    """The row of each run-out (the map's order): a full board, the last decision before the
    river, two or more live hands with their cards known."""
    st, kd, _, off = h.acts
    dec = np.isin(kd, (runouts.FOLD, runouts.CHECK, runouts.CALL, runouts.BET, runouts.RAISE))
    s = np.where(dec, st, -1)
    last = np.full(h.n, -1, np.int64)
    has = np.diff(off) > 0
    last[has] = np.maximum.reduceat(s, off[:-1][has]) if s.size else -1
    live = h.occ & ~h.folded
    known = ((h.hole.reshape(h.n, -1, 2) >= 0).all(axis=2) | ~live).all(axis=1)
    rows = np.flatnonzero((np.diff(h.board[1]) == 5) & (last >= 0) & (last <= 2)
                          & (live.sum(axis=1) >= 2) & known)
    if rows.size != runs:
        raise RuntimeError(f"{rows.size} run-out rows against {runs} run-outs mapped")
    return rows


def _runout_groups(q: runouts.RunoutPartial) -> tuple[np.ndarray, np.ndarray]:
    """(first row of each run-out's live hands, live hands per run-out)."""
    live = np.bincount(q.hand, minlength=q.runouts)
    return np.cumsum(live) - live, live


def rig_bad_beat(h: Hands, q: float, rng: np.random.Generator) -> int:
    """At a run-out the favourite would win outright, re-deal the rest with probability q."""
    p = _runout_partial(h)
    rows = _runout_rows(h, p.runouts)
    starts, _ = _runout_groups(p)
    order = np.lexsort((-p.select, p.hand))
    fav = order[starts]
    pick = (p.share[fav] == 1) & (rng.random(p.runouts) < q)
    at = np.array([STREET_AT[int(s)] for s in p.street[pick]], np.int64)
    _redeal(h, rows[pick], at, rng)
    return int(pick.sum())


def rig_shill(h: Hands, share: float, rng: np.random.Generator) -> int:
    """A share of the players (drawn once) get a second run-out whenever they would lose."""
    p = _runout_partial(h)
    rows = _runout_rows(h, p.runouts)
    ids = np.unique(h.pids)
    shills = rng.choice(ids, size=max(1, round(share * ids.size)), replace=False)
    mine = np.isin(p.player, shills)
    has = np.bincount(p.hand, weights=mine, minlength=p.runouts) > 0
    won = np.bincount(p.hand, weights=p.share * mine, minlength=p.runouts)
    pick = has & (won == 0)
    at = np.array([STREET_AT[int(s)] for s in p.street[pick]], np.int64)
    _redeal(h, rows[pick], at, rng)
    return int(pick.sum())


def _preflop_pot(h: Hands) -> np.ndarray:
    st, kd, ad, off = h.acts
    signed = np.where(np.isin(kd, boards.INTO_POT), ad, 0.0) - np.where(kd == boards.RETURN,
                                                                         ad, 0.0)
    signed = np.where(st == 0, signed, 0.0)
    c = np.concatenate([[0.0], np.cumsum(signed)])
    return c[off[1:]] - c[off[:-1]]


def rig_big_pot_flop(h: Hands, q: float, rng: np.random.Generator) -> int:
    """After a pre-flop pot of 10 big blinds or more, an unpaired rainbow flop is re-drawn
    (every card after the hole cards shuffled again) with probability q."""
    bv, bo = h.board
    nb = np.diff(bo)
    big = (nb >= 3) & (_preflop_pot(h) >= boards.BIG_POT_BB * h.big_blind)
    rows = np.flatnonzero(big)
    f = np.stack([bv[bo[rows] + j] for j in range(3)], axis=1)
    r, s = f // 4, f % 4
    distinct = lambda x: (x[:, 0] != x[:, 1]) & (x[:, 1] != x[:, 2]) & (x[:, 0] != x[:, 2])  # noqa: E731
    pick = rows[distinct(r) & distinct(s) & (rng.random(rows.size) < q)]
    _redeal(h, pick, np.zeros(pick.size, np.int64), rng)
    return int(pick.size)


def deck_run(n: int, rng: np.random.Generator, rig: str | None = None,
             eps: float = 0.0) -> uniformity.UniformityPartial:
    """``n`` fair decks dealt at 9-seat tables of 500 hands (the button moving, each seat one
    player), as ``audits.calibrate`` deals them; ``rig``: ``all_seat_pairs`` (every seat's pairs
    (1 + eps) times as often) or ``targeted_pairs`` (5% of the players')."""
    d = shuffles.fair_fisher_yates(n, rng)
    hands = np.arange(n)
    players = (hands // DECK_TABLE_HANDS)[:, None] * 16 + np.arange(9)
    if rig == "all_seat_pairs":
        d = shuffles.pair_rig(d, 9, eps / 16, rng)
    elif rig == "targeted_pairs":
        ids = np.unique(players)
        pick = rng.choice(ids, size=round(rig_power.TARGETED_SHARE * ids.size), replace=False)
        d = shuffles.player_pair_rig(d, 9, players, np.isin(players, pick), eps / 16, rng)
    return uniformity.map_decks(d, shuffles.deal_hole(d, 9, 0, rotate=True), hand_id=hands,
                                player_ids=players)


ARRAY_RIGS: dict[str, Callable[[Hands, float, np.random.Generator], int]] = {
    "bad_beat": rig_bad_beat, "big_pot_flop": rig_big_pot_flop, "shill_runout": rig_shill}


# ---------------------------------------------------------------------------------------------
# the calibration


def simulate(kind: str, hands: int, seed: int, folder: Path) -> Hands:
    """A fair no-limit run of ``hands`` hands, one a table (``imported``: philox, then seen as
    an operator's histories by ``imported_view`` per run)."""
    from cluster.flows.simulate import run_simulate
    from sim.config import Structure
    from sim.runspec import RunSpec

    gen = "os-chacha20" if kind == "os-chacha20" else "philox"
    spec = RunSpec(hands=hands, batch_size=min(hands, 500_000), generator=gen, seed=seed,
                   structures=(Structure.NO_LIMIT,), hands_per_table=1)
    run_simulate(spec, folder, workers=0, progress=False)
    return load_hands(folder)


def band(runs: int, alpha: float = ALPHA) -> tuple[int, int]:
    """The central 99% interval of the false alarms of ``runs`` fair runs at ``alpha``."""
    return int(ss.binom.ppf(0.005, runs, alpha)), int(ss.binom.isf(0.005, runs, alpha))


def false_alarms(outs: list[dict[str, Any]], alpha: float = ALPHA) -> dict[str, Any]:
    """Per test (and the battery): runs it applied in, raw p <= alpha, the band, PASS/FAIL."""
    rows: dict[str, Any] = {}
    for t in (*TESTS, "battery"):
        if t == "battery":
            k, n = sum(o["rejected"] for o in outs), len(outs)
        else:
            ps = [o["tests"][t]["p"] for o in outs if t in o["tests"]]
            k, n = sum(p <= alpha for p in ps), len(ps)
        if n == 0:
            continue
        lo, hi = band(n, alpha)
        ok = k <= hi if t == "battery" else lo <= k <= hi  # Holm: at most alpha
        rows[t] = {"runs": n, "false_alarms": k, "band": [0 if t == "battery" else lo, hi],
                   "verdict": "PASS" if ok else "FAIL"}
    return rows


def calibrate_fair(kind: str, pool: Hands, runs: int, hands: int) -> dict[str, Any]:
    outs = []
    for r in range(runs):
        h = pool.take(r * hands, (r + 1) * hands)
        outs.append(verdict([partial(imported_view(h) if kind == "imported" else h)]))
    return {"kind": kind, "runs": runs, "hands": hands, "tests": false_alarms(outs)}


def _rig_outs(rig: str, strength: float, hands: int, runs: int, pool: Hands | None,
              rng: np.random.Generator) -> list[dict[str, Any]]:
    outs = []
    for r in range(runs):
        if rig in ARRAY_RIGS:
            assert pool is not None
            a = (r * hands) % max(pool.n - hands + 1, 1)
            h = pool.take(a, a + hands)
            ARRAY_RIGS[rig](h, strength, rng)
            outs.append(verdict([partial(h)]))
        else:
            outs.append(verdict([deck_run(hands, rng, rig, strength)]))
    return outs


def calibrate_power(rig: str, hands: int, runs: int, pool: Hands | None, rng: np.random.Generator,
                    multiples: tuple[float, ...] = MULTIPLES,
                    strengths: tuple[float, ...] | None = None) -> list[dict[str, Any]]:
    """The rig at ``strengths`` (default: ``multiples`` of the strength the formula gives 0.9
    power at this size, from one fair run): per strength the runs whose test rejected at the
    battery's level, the formula's mean prediction and the battery's FAILs."""
    test = rig_power.TEST_OF[rig]
    if strengths is None:
        fair = _rig_outs(rig, 0.0, hands, 1, pool, rng)[0]
        if test not in fair["tests"]:
            return [{"rig": rig, "test": test, "hands": hands, "note": f"{test} not applicable"}]
        x = rig_power.smallest_rig(rig, fair["tests"][test]["details"], fair["level"])
        if x is None:
            return []
        strengths = tuple(m * x for m in multiples)
    rows = []
    for s in strengths:
        outs = _rig_outs(rig, s, hands, runs, pool, rng)
        hit = [o["tests"][test]["p"] <= o["level"] for o in outs
               if test in o["tests"]]
        pred = [rig_power.predicted_power(rig, s, o["tests"][test]["details"], o["level"])
                for o in outs if test in o["tests"]]
        rows.append({"rig": rig, "test": test, "strength": s,
                     "words": rig_power.describe(rig, s), "hands": hands, "runs": len(outs),
                     "rejected": int(sum(hit)), "power": float(np.mean(hit)) if hit else 0.0,
                     "predicted": float(np.mean(pred)) if pred else 0.0,
                     "battery_fails": int(sum(o["rejected"] for o in outs))})
    return rows


def calibrate_game(runs: int = 200, hands: int = 2_000, rig_runs: int = 50, seed: int = 35,
                   rig_sizes: dict[str, int] | None = None, kinds: tuple[str, ...] = KINDS,
                   log: Callable[[str], None] = print) -> dict[str, Any]:
    """False alarms of the game-conditioned and pooled deal tests on ``runs`` fair runs of
    ``hands`` hands of each kind, and the power of each rig at its size (``rig_runs`` runs at
    half and at the full strength the formula gives power 0.9)."""
    rig_sizes = RIG_SIZES if rig_sizes is None else rig_sizes
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    out: dict[str, Any] = {"alpha": ALPHA, "runs": runs, "hands": hands, "fair": {},
                           "power": [], "seconds": {}}
    chacha: Hands | None = None
    with tempfile.TemporaryDirectory() as tmp:
        for j, kind in enumerate(kinds):
            pool = simulate(kind, runs * hands, seed + j, Path(tmp) / kind)
            out["fair"][kind] = calibrate_fair(kind, pool, runs, hands)
            bad = [t for t, r in out["fair"][kind]["tests"].items() if r["verdict"] == "FAIL"]
            log(f"fair {kind}: {runs} runs of {hands:,} hands"
                + (f", outside the band: {', '.join(bad)}" if bad else ", every test in its band"))
            if kind == "os-chacha20":
                chacha = pool
        out["seconds"]["fair"] = time.perf_counter() - t0
        need = max((n for r, n in rig_sizes.items() if r in ARRAY_RIGS), default=0)
        if chacha is None or chacha.n < need:
            chacha = simulate("os-chacha20", max(need, hands) * 2, seed + 9, Path(tmp) / "rigs")
        for rig, n in rig_sizes.items():
            rows = calibrate_power(rig, n, rig_runs, chacha if rig in ARRAY_RIGS else None, rng)
            out["power"] += rows
            for r in rows:
                if "power" in r:
                    log(f"{rig} {r['strength']:.3f} at {n:,} hands: power {r['power']:.2f} "
                        f"(predicted {r['predicted']:.2f}), battery fails {r['battery_fails']}"
                        f"/{r['runs']}")
    out["seconds"]["total"] = time.perf_counter() - t0
    out["all_in_band"] = all(r["verdict"] == "PASS" for f in out["fair"].values()
                        for r in f["tests"].values())
    return out


def to_markdown(res: dict[str, Any]) -> str:
    a = res["alpha"]
    lines = [f"### Deal tests that condition on the game: false alarms on fair runs (raw p <= "
             f"{a:g}; band: the central 99% of Binomial(runs, {a:g}); the battery (Holm) at "
             "most its upper end)", "",
             "| test | kind of run | runs | hands | false alarms | band | verdict |",
             "|---|---|---:|---:|---:|---|---|"]
    for kind, f in res["fair"].items():
        for t, r in f["tests"].items():
            lines.append(f"| {t} | {kind} | {r['runs']} | {f['hands']:,} | {r['false_alarms']} "
                         f"| [{r['band'][0]}, {r['band'][1]}] | {r['verdict']} |")
    lines += ["", "### Power against rigged dealers (the rig's test rejecting at alpha / m, "
              "Holm's first step; *predicted*: `audits.rig_power`'s normal approximation from "
              "each run's own counts, what a certificate states)", "",
              "| rig | strength | test | hands | runs | power | predicted | battery FAILs |",
              "|---|---:|---|---:|---:|---:|---:|---:|"]
    for r in res["power"]:
        if "power" not in r:
            lines.append(f"| {r['rig']} | - | {r['test']} | {r['hands']:,} | - | - | - | "
                         f"{r.get('note', '')} |")
            continue
        lines.append(f"| {r['rig']} | {r['strength']:.3f} | {r['test']} | {r['hands']:,} | "
                     f"{r['runs']} | {r['power']:.2f} | {r['predicted']:.2f} | "
                     f"{r['battery_fails']}/{r['runs']} |")
    lines += ["", f"Game calibration: {'PASS' if res['all_in_band'] else 'FAIL'} "
              f"({res['seconds']['total']:.0f} s)."]
    return "\n".join(lines) + "\n"
