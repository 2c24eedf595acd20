"""Fairness to each seat and player (issue 23, point 6; H3): the uniformity battery's tests of
who receives the cards (``audits.seats``) — their exact laws, their power against a seat-0
shuffle, and a forged os-chacha20 run that every other audit passes."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from audits import calibrate, seats, shuffles
from audits.evaluator import evaluate
from audits.uniformity import map_decks, uniformity_map, uniformity_reduce
from cluster.cli import main
from cluster.flows.simulate import run_simulate
from sim.config import Structure
from sim.runspec import RunSpec
from tests.audits.forgery import RunForger, favour_seat

SEAT_TESTS = set(seats.TESTS)


def test_class_tables_are_the_1326_combinations() -> None:
    assert seats.CLASS_PROBS.size == 169
    combos = np.round(seats.CLASS_PROBS * 1326).astype(int)
    assert combos.sum() == 1326
    assert sorted(set(combos.tolist())) == [4, 6, 12]
    assert (combos == 6).sum() == 13 and (combos == 4).sum() == 78 and (combos == 12).sum() == 78
    # names and cards agree: ace of spades (51) with king of spades (47) is AKs, 7 and 2 offsuit
    assert seats.class_name(int(seats.CARD_CLASS[51, 47])) == "AKs"
    assert seats.class_name(int(seats.CARD_CLASS[5 * 4, 0 * 4 + 1])) == "72o"
    assert seats.class_name(int(seats.CARD_CLASS[50, 51])) == "AA"
    assert len({seats.class_name(c) for c in range(169)}) == 169
    assert seats.BAND_PROBS.sum() == pytest.approx(1.0)
    assert seats.BAND_PROBS.min() * 1326 == pytest.approx(18)  # AA-QQ
    assert seats.MIN_BANDS * seats.BAND_PROBS.min() >= 5
    assert seats.MIN_SEAT_CLASSES * seats.CLASS_PROBS.min() >= 5


def test_all_in_winner_is_the_best_seven_card_hand() -> None:
    """The map's winner (board from the deck after the hole cards) against a brute-force
    evaluation of every seat's 7 cards, ties left undecided."""
    rng = np.random.default_rng(11)
    decks = shuffles.fair_fisher_yates(300, rng)
    k = 6
    hole = np.full((300, 2 * k), -1, np.int64)
    occ = rng.random((300, k)) < 0.7
    occ[:, 0] = occ[:, 3] = True
    for i in range(300):
        live = [s for s in range(k) if occ[i, s]]
        m = len(live)
        for j, s in enumerate(live):
            hole[i, 2 * s], hole[i, 2 * s + 1] = decks[i, j], decks[i, j + m]
    p = seats.seat_map(hole, occ, decks)
    wins = np.zeros(seats.MAX_SEATS, int)
    masks = np.zeros(1 << seats.MAX_SEATS, int)
    for i in range(300):
        live = [s for s in range(k) if occ[i, s]]
        m = len(live)
        board = [int(decks[i, 2 * m + x]) for x in (1, 2, 3, 5, 7)]
        sc = {s: evaluate([int(hole[i, 2 * s]), int(hole[i, 2 * s + 1]), *board]) for s in live}
        best = max(sc.values())
        top = [s for s in live if sc[s] == best]
        if len(top) == 1:
            wins[top[0]] += 1
            masks[sum(1 << s for s in live)] += 1
    assert np.array_equal(p.wins, wins) and np.array_equal(p.masks, masks)
    assert p.hands == 300 and p.classes.sum() == occ.sum()


def test_imported_hands_count_only_when_the_source_recorded_unshown_cards() -> None:
    """Without a deck a hand counts for the class tests only when every occupied seat's cards
    are known and one of them folded (cards nobody showed were recorded: which cards are known
    did not depend on the play); never for the all-in winner (the board is known only when the
    players took the hand to the river)."""
    hole = np.array([[48, 49, -1, -1, 0, 5],  # seat 1 unknown
                     [48, 49, 12, 13, 0, 5],  # all known, nobody folded: shown at showdown
                     [48, 49, 12, 13, 0, 5]])  # all known, seat 2 folded: recorded
    occ = np.ones((3, 3), bool)
    folded = np.array([[False, False, True], [False, False, False], [False, False, True]])
    p = seats.seat_map(hole, occ, None, None, folded)
    assert p.hands == 1 and p.classes.sum() == 3 and p.masks.sum() == 0
    assert seats.seat_map(hole, occ).hands == 0  # no folds known: nothing counts


def test_seat_equity_law_is_exact_for_mixed_tables() -> None:
    """Wins drawn from the null law itself (uniform over each hand's occupied seats, tables of
    varying occupancy): the quadratic form's p-values are uniform (KS), never degenerate."""
    rng = np.random.default_rng(5)
    pvals = []
    for _ in range(200):
        masks = np.zeros(1 << seats.MAX_SEATS, np.int64)
        wins = np.zeros(seats.MAX_SEATS, np.int64)
        for msk, n in ((0b111111, 300), (0b101101, 200), (0b1111111111, 150), (0b11, 80)):
            masks[msk] += n
            live = [s for s in range(seats.MAX_SEATS) if msk >> s & 1]
            np.add.at(wins, rng.choice(live, n), 1)
        r = seats.seat_equity_test(masks, wins)
        assert r is not None and r["details"]["df"] == 9
        pvals.append(r["p"])
    from scipy import stats as ss

    assert ss.kstest(pvals, "uniform").pvalue > 0.001


def test_player_equity_pmf_is_the_poisson_binomial() -> None:
    h = np.zeros(seats.MAX_SEATS + 1, np.int64)
    h[2], h[3] = 3, 2
    pmf = seats.poisson_binomial_pmf(h)
    # brute force over the 2^5 outcomes
    probs = [0.5] * 3 + [1 / 3] * 2
    want = np.zeros(6)
    for wins in range(6):
        for who in combinations(range(5), wins):
            want[wins] += np.prod([probs[j] if j in who else 1 - probs[j] for j in range(5)])
    assert np.allclose(pmf, want)


def test_fair_decks_pass_and_the_seat0_shuffle_fails_at_5000_hands() -> None:
    """The calibration's own runs: fair decks pass every seat test; the seat-0 rig (H3) fails
    the battery at 5,000 hands through the seat tests while every deck test passes."""
    rng = np.random.Generator(np.random.Philox(23))
    fair = calibrate.run_once("fair", 5_000, rng)
    assert not SEAT_TESTS & set(fair["failed_tests"])
    assert SEAT_TESTS <= set(fair["p"])  # all four applicable (players with ids)
    rig = calibrate.run_once("seat0_best_of_class", 5_000, rng)
    assert rig["rejected"]
    assert {"seat_hand_classes", "seat_equity"} <= set(rig["failed_tests"])
    assert set(rig["failed_tests"]) <= SEAT_TESTS


def test_decks_without_hole_cards_or_decks_still_reduce() -> None:
    """A deck-only log (the shuffle certificate) has no seats: the seat tests are n/a; imported
    hands without decks get the seat tests alone."""
    rng = np.random.default_rng(2)
    d = shuffles.fair_fisher_yates(1_000, rng)
    res = {r.name.split(".")[-1]: r for r in uniformity_reduce([map_decks(d)])}
    assert all(not res[t].applicable for t in SEAT_TESTS)
    # imported: no deck column, every hole card known and a seat folded in each hand, 2 seats
    n = 3_000
    decks = shuffles.fair_fisher_yates(n, rng).astype(np.int64)
    hole = [[int(x[0]), int(x[2]), int(x[1]), int(x[3])] for x in decks]
    t = pa.table({"hole_cards": pa.array(hole, pa.list_(pa.int8())),
                  "occupied": pa.array([[True, True]] * n, pa.list_(pa.bool_())),
                  "folded": pa.array([[True, False]] * n, pa.list_(pa.bool_())),
                  "player_ids": pa.array([[7, 9]] * n, pa.list_(pa.int64()))})
    out = uniformity_reduce([uniformity_map(t)])
    byname = {r.name.split(".")[-1]: r for r in out}
    assert out[0].applicable and out[0].passed and out[0].hands_checked == n
    assert byname["seat_hand_classes"].applicable and byname["player_hand_classes"].applicable
    assert not byname["seat_equity"].applicable and not byname["player_equity"].applicable
    assert not byname["card_position"].applicable


# ---------------------------------------------------------------------------------------------
# H3, forged the way an attacker would


@pytest.fixture(scope="module")
def chacha_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One hand per table: no hand starts from another's stacks, so every hand can be re-dealt
    and replayed consistently (tests/audits/forgery.py)."""
    root = tmp_path_factory.mktemp("seats") / "chacha"
    spec = RunSpec(hands=HANDS, batch_size=HANDS // 2, generator="os-chacha20", seed=5,
                   structures=(Structure.NO_LIMIT,), hands_per_table=1)
    run_simulate(spec, root, workers=0, progress=False)
    return root


HANDS = 20_000


def test_seat0_favoured_os_chacha20_run_fails_the_seat_tests(
        chacha_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """H3: an os-chacha20 run (decks bound to no key) re-dealt so absolute seat 0 holds the best
    hand of its class at the table: the two hands swapped in the deck (a permutation, dealt in
    order), every hand replayed by the engine on its new cards (showdown, pots, won, stacks),
    row digests and the manifest restamped. Every exact audit passes it; the uniformity battery
    fails it through the seat tests, and ``holdem audit`` names them (exit 1)."""
    m = json.loads((chacha_run / "manifest.json").read_text())
    forged = won_before = won_after = 0
    for rec in m["files"]:
        f = RunForger(chacha_run, rec["path"])
        for i, row in enumerate(f.rows):
            won_before += row["won"][0] - row["contributed"][0]
            new = favour_seat(row, 0)
            if new is not None:
                f.rows[i] = new
                forged += 1
            won_after += f.rows[i]["won"][0] - f.rows[i]["contributed"][0]
        f.write()
    assert forged > HANDS // 3
    assert won_after > won_before  # what the rig is for: seat 0 wins more
    code = main(["audit", str(chacha_run), "--workers", "0", "--quiet"])
    out = capsys.readouterr().out
    assert code == 1, out
    audit = json.loads((chacha_run / "audit.json").read_text())
    res = {r["name"]: r for r in audit["results"]}
    for name in ("integrity", "deal", "chips", "rotation", "payouts", "betting"):
        assert res[name]["passed"], (name, res[name]["details"])
    assert res["deal"]["details"]["totals"]["unkeyed"] == HANDS
    uni = res["uniformity"]
    assert not uni["passed"] and "seat_hand_classes" in uni["details"]["failed_tests"]
    assert "uniformity: failed tests: " in out and "seat_hand_classes (Holm p" in out
    tests = {t["name"]: t for t in uni["details"]["tests"]}
    assert tests["uniformity.seat_hand_classes"]["details"]["worst_seat"] == 0


def test_calibration_shows_the_seat_tests() -> None:
    """``holdem calibrate`` (audits.calibrate) reports the seat tests' false alarms and the
    seat-0 rig's detection in their own section."""
    res = calibrate.calibrate(runs=3, sizes={"seat0_best_of_class": (2_000,)}, fault_runs=2,
                              clean_decks=4_000)
    assert set(seats.TESTS) <= set(res["clean"]["tests"])
    assert res["faults"]["seat0_best_of_class"]["2000"]["battery"]["count"] == 2
    md = calibrate.to_markdown(res)
    assert "### Who receives the cards" in md
    assert "seat_hand_classes 0/3" in md or "seat_hand_classes 1/3" in md
    assert "FAILS it in 100.0%" in md and "(target: at most 100,000 hands)" in md


def test_player_equity_binomial_shortcut_is_the_exact_law() -> None:
    """Players seated at one occupancy only take the vectorized binomial tail; it equals the
    convolution's (and a mixed player still takes the convolution)."""
    q = seats.SeatPartial()
    q.player_ids = np.array([1, 2])
    q.player_hands = np.zeros((2, seats.MAX_SEATS + 1), np.int64)
    q.player_hands[0, 6] = 400
    q.player_hands[1, 6], q.player_hands[1, 4] = 150, 100
    q.player_wins = np.array([95, 40])
    r = seats.player_equity_test(q)
    assert r is not None
    want = [seats._two_sided(seats.poisson_binomial_pmf(q.player_hands[j]),
                             int(q.player_wins[j])) for j in range(2)]
    assert r["p"] == pytest.approx(min(1.0, 2 * min(want)), rel=1e-9)
    assert r["details"]["worst_player"] == 1  # 95 wins where 66.7 are expected


def test_player_equity_batched_laws_equal_the_per_call_ones() -> None:
    """The batched logpmf (one scipy call over every player and m) and the direct pocketfft
    convolution give the very bits of the per-call ``binom.logpmf`` and
    ``scipy.signal.fftconvolve`` they replaced, so every p-value is unchanged."""
    from scipy import signal
    from scipy import stats as ss

    def per_call_pmf(h: np.ndarray) -> np.ndarray:
        pmf = np.ones(1)
        for m in range(2, h.size):
            if h[m]:
                b = np.exp(ss.binom.logpmf(np.arange(h[m] + 1), int(h[m]), 1.0 / m))
                pmf = (signal.fftconvolve(pmf, b) if pmf.size > 64 and b.size > 64
                       else np.convolve(pmf, b))
                pmf = np.clip(pmf, 0.0, None)
        return pmf / pmf.sum()

    rng = np.random.default_rng(25)
    q = seats.SeatPartial()
    q.player_ids = np.arange(60)
    q.player_hands = np.zeros((60, seats.MAX_SEATS + 1), np.int64)
    for i in range(60):  # every player mixed (2-5 occupancies), 100+ hands: the convolution
        ms = rng.choice(np.arange(2, seats.MAX_SEATS + 1), int(rng.integers(2, 6)), replace=False)
        q.player_hands[i, ms] = rng.integers(50, 300, ms.size)
    q.player_wins = np.array([rng.binomial(int(h.sum()), 0.25) for h in q.player_hands])
    want = []
    for h, w in zip(q.player_hands, q.player_wins, strict=True):
        pmf = per_call_pmf(h)
        assert np.array_equal(seats.poisson_binomial_pmf(h), pmf)
        want.append(seats._two_sided(pmf, int(w)))
    r = seats.player_equity_test(q)
    assert r is not None and r["details"]["players"] == 60
    assert r["p"] == seats.stats.bonferroni_min(want)
    assert r["details"]["worst_player_p"] == min(want)


@pytest.mark.parametrize("vals", [np.array([7, 3, 3, 9, 7, 12], np.int64),  # dense: the table
                                  np.array([5, 10**12, 5, -3], np.int64),  # sparse: the sort
                                  np.zeros(0, np.int64)])
def test_player_ids_and_inverse_are_numpy_unique(vals: np.ndarray) -> None:
    ids, inv = seats._ids_and_inverse(vals)
    want_ids, want_inv = np.unique(vals, return_inverse=True)
    assert np.array_equal(ids, want_ids) and np.array_equal(inv, want_inv)
    assert ids.dtype == want_ids.dtype and inv.dtype == want_inv.dtype


def test_player_partial_counts_every_seated_hand() -> None:
    """The compiled per-player pass against a plain loop over (hand, seat)."""
    rng = np.random.default_rng(5)
    n, k = 400, 6
    pid = rng.integers(-1, 30, (n, k))
    cls = rng.integers(-1, seats.N_CLASSES, (n, k))
    winner = rng.integers(-2, k, n)
    m = rng.integers(2, k + 1, n)
    p = seats.SeatPartial()
    seats._players(p, pid, cls, winner, m)
    bands, hands, wins = {}, {}, {}
    for i in range(n):
        for s in range(k):
            if cls[i, s] < 0 or pid[i, s] < 0:
                continue
            j = int(pid[i, s])
            bands.setdefault(j, np.zeros(seats.N_BANDS, np.int64))[
                seats.CLASS_BAND[cls[i, s]]] += 1
            hands.setdefault(j, np.zeros(seats.MAX_SEATS + 1, np.int64))
            wins.setdefault(j, 0)
            if winner[i] >= 0:
                hands[j][m[i]] += 1
                wins[j] += int(winner[i] == s)
    assert p.player_ids.tolist() == sorted(bands)
    for r, j in enumerate(p.player_ids.tolist()):
        assert p.player_bands[r].tolist() == bands[j].tolist()
        assert p.player_hands[r].tolist() == hands[j].tolist() and p.player_wins[r] == wins[j]
