"""The deck uniformity battery: exact laws, clean runs pass, broken shuffles fail.

Decks come from ``audits.shuffles`` (fast, numpy Philox) and, for the Arrow path, from the
simulator. Fixed seeds chosen so the clean runs pass at alpha 0.01; the false-alarm rate itself is
checked statistically in the slow test.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest

from audits import players, shuffles
from audits import uniformity as u
from audits.calibrate import calibrate, run_once, write_table
from audits.runfolder import batch_relpath, list_batch_files


def _rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.Philox(seed))


def _audit(decks: np.ndarray, batches: int = 1) -> list:
    parts = []
    for i, d in enumerate(np.array_split(decks, batches)):
        off = sum(len(x) for x in np.array_split(decks, batches)[:i])
        hands = np.arange(off, off + len(d), dtype=np.int64)
        players = (hands // 500)[:, None] * 16 + np.arange(9)  # tables of 500 hands
        parts.append(u.map_decks(d, shuffles.deal_hole(d), hand_id=hands, player_ids=players))
    return u.uniformity_reduce(parts)


def _by_name(results: list) -> dict:
    return {r.name: r for r in results}


# ---------------------------------------------------------------------------------------------
# exact laws


def test_starting_hand_class_odds_are_exact() -> None:
    combos = np.array(list(itertools.combinations(range(52), 2)), dtype=np.int64)
    counts = u._hand_classes(combos)[0]
    assert counts.tolist() == [78, 312, 936]  # 13 * 6 pairs, 4 * 78 suited, the rest offsuit
    total = len(combos)
    assert [Fraction(int(c), total) for c in counts] == [Fraction(1, 17), Fraction(4, 17),
                                                          Fraction(12, 17)]
    assert u.HAND_CLASS_PROBS == pytest.approx([1 / 17, 4 / 17, 12 / 17])


def _adjacency_vectors(n: int) -> tuple[np.ndarray, np.ndarray]:
    """All permutations of n cards -> their off-diagonal adjacency indicator vectors."""
    off = ~np.eye(n, dtype=bool)
    rows = []
    for perm in itertools.permutations(range(n)):
        a = np.zeros((n, n))
        for x, y in itertools.pairwise(perm):
            a[x, y] += 1
        rows.append(a[off])
    return np.array(rows), off


@pytest.mark.parametrize("n", [5, 6])
def test_adjacent_statistic_is_the_exact_mahalanobis_form(n: int) -> None:
    vecs, off = _adjacency_vectors(n)
    cov = np.cov(vecs.T, bias=True)
    assert np.linalg.matrix_rank(cov, tol=1e-10) == n * (n - 1) - 1
    pinv = np.linalg.pinv(cov, rcond=1e-10)
    rng = np.random.default_rng(n)
    for decks in (50, 1000):
        idx = rng.integers(0, len(vecs), size=decks)
        counts = np.zeros((n, n))
        counts[off] = vecs[idx].sum(axis=0)
        d = counts[off] - decks / n
        want = d @ pinv @ d / decks
        got, df = u.adjacent_statistic(counts, decks)
        assert df == n * (n - 1) - 1
        assert got == pytest.approx(want, rel=1e-8)


def test_position_tables_scale_by_51_over_52() -> None:
    """Pearson X2 of a random permutation's position matrix is n/(n-1) chi2((n-1)^2): check the
    factor against the exact covariance for n = 5 (the code uses n = 52)."""
    n = 5
    mats = np.array([np.eye(n)[list(p)].ravel() for p in itertools.permutations(range(n))])
    pinv = np.linalg.pinv(np.cov(mats.T, bias=True), rcond=1e-10)
    rng = np.random.default_rng(1)
    counts = mats[rng.integers(0, len(mats), size=300)].sum(axis=0)
    d = counts - 300 / n
    pearson = (d * d).sum() / (300 / n)
    assert d @ pinv @ d / 300 == pytest.approx(pearson * (n - 1) / n, rel=1e-8)


# ---------------------------------------------------------------------------------------------
# clean runs


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_clean_decks_pass(seed: int) -> None:
    res = _audit(shuffles.fair_fisher_yates(20_000, _rng(seed)), batches=10)
    overall = res[0]
    assert overall.name == "uniformity" and overall.passed, overall.details
    assert overall.hands_checked == 20_000
    names = {r.name for r in res if r.applicable}
    # every test of the decks ran, KS included (the game's tests need a game, the listed
    # players' tests a lab's list: not here)
    untested = u.GAME_TESTS + players.TESTS
    assert {f"uniformity.{t}" for t in u.TESTS if t not in untested} <= names
    for r in res[1:]:
        if r.name.split(".", 1)[1] not in untested:
            assert r.passed and r.p_value is not None and 0 <= r.p_value <= 1


def test_clean_statistics_sit_near_their_degrees_of_freedom() -> None:
    res = _by_name(_audit(shuffles.fair_fisher_yates(50_000, _rng(11))))
    for t, df in (("card_position", 2601), ("suit_position", 153), ("rank_position", 612),
                  ("adjacent_pairs", 2651), ("consecutive_decks", 2703)):
        r = res[f"uniformity.{t}"]
        assert r.details["df"] == df
        assert abs(r.statistic - df) < 5 * np.sqrt(2 * df), t


def test_simulated_run_passes_through_arrow() -> None:
    from sim.batch import simulate_batch
    from sim.config import Structure
    from sim.runspec import RunSpec

    table = simulate_batch(RunSpec(hands=20_000, batch_size=20_000), Structure.NO_LIMIT, 0).table
    res = _by_name(u.run_uniformity([table]))
    assert res["uniformity"].passed, res["uniformity"].details
    assert res["uniformity"].hands_checked == 20_000
    assert res["uniformity.consecutive_decks"].details["pairs"] > 9_000
    assert res["uniformity.starting_hands"].applicable
    # the arrow path and the raw path agree
    decks = np.frombuffer(table.column("deck").combine_chunks().buffers()[1], np.uint8)
    raw = u.map_decks(decks.reshape(-1, 52)[:20_000])
    arrow = u.uniformity_map(table)
    assert np.array_equal(raw.card_position, arrow.card_position)
    assert np.array_equal(raw.adjacent, arrow.adjacent)


def test_split_into_batches_gives_the_same_statistics() -> None:
    decks = shuffles.fair_fisher_yates(6_000, _rng(4))
    one = _by_name(_audit(decks, 1))
    six = _by_name(_audit(decks, 6))
    for t in ("card_position", "adjacent_pairs", "starting_hands", "first_k_collisions"):
        assert one[f"uniformity.{t}"].statistic == pytest.approx(six[f"uniformity.{t}"].statistic)
    assert not one["uniformity.batch_pvalues_ks"].applicable
    assert six["uniformity.batch_pvalues_ks"].applicable


# ---------------------------------------------------------------------------------------------
# broken shuffles


def test_asf_shuffle_fails_at_1000_decks() -> None:
    res = _by_name(_audit(shuffles.asf_off_by_one(1_000, _rng(7))))
    assert not res["uniformity"].passed
    cell = res["uniformity.card_position_max_cell"]
    assert not cell.passed
    # the documented flaw: the original 52nd card never ends in the 52nd position
    assert (cell.details["worst_position"], cell.details["worst_card"]) == (51, 51)
    assert cell.details["worst_count"] == 0


def test_eight_bit_modulo_fails_at_20000_decks() -> None:
    res = _by_name(_audit(shuffles.eight_bit_modulo(20_000, _rng(8)), batches=10))
    assert not res["uniformity"].passed
    assert not res["uniformity.card_position"].passed


def test_naive_swap_fails_at_1000_decks() -> None:
    assert not _audit(shuffles.naive_swap(1_000, _rng(9)))[0].passed


def test_seed_space_caught_by_duplicates_with_hand_ids() -> None:
    decks = shuffles.seed32(1_000_000, _rng(10))
    res = _by_name(_audit(decks, batches=4))
    dup = res["uniformity.duplicate_decks"]
    assert not res["uniformity"].passed and not dup.passed
    assert 60 < dup.statistic < 190  # C(1e6, 2) / 2^32 = 116 identical pairs expected
    a, b = dup.example_hand_ids[:2]
    assert np.array_equal(decks[a], decks[b]) and a != b
    # frequency tests see nothing
    assert res["uniformity.card_position"].passed


def test_planted_first_k_collision_is_seen() -> None:
    decks = shuffles.fair_fisher_yates(2_000, _rng(12))
    decks[1500, :9] = decks[100, :9]
    rest = [c for c in range(52) if c not in set(decks[100, :9].tolist())]
    decks[1500, 9:] = rest
    res = _by_name(_audit(decks))
    fk = res["uniformity.first_k_collisions"]
    assert fk.statistic == 1 and not fk.passed and set(fk.example_hand_ids) == {100, 1500}
    assert res["uniformity.duplicate_decks"].statistic == 0


# ---------------------------------------------------------------------------------------------
# inputs


def test_no_decks_is_not_applicable() -> None:
    table = pa.table({"deck": pa.array([None] * 10, pa.binary(52)),
                      "hand_id": pa.array(range(10), pa.int64())})
    res = u.run_uniformity([table])
    assert res[0].applicable is False and res[0].passed
    assert "no decks" in res[0].details["reason"]
    assert all(not r.applicable for r in res)
    assert u.run_uniformity([pa.table({"hand_id": [1, 2]})])[0].applicable is False


def test_invalid_deck_fails_with_its_hand_id() -> None:
    decks = shuffles.fair_fisher_yates(1_000, _rng(13))
    decks[17, 3] = decks[17, 4]
    res = u.uniformity_reduce([u.map_decks(decks, hand_id=np.arange(1_000) + 500)])
    assert not res[0].passed
    assert res[0].details["invalid_decks"] == 1 and res[0].example_hand_ids == (517,)
    assert res[0].hands_checked == 999


def test_partially_null_decks_are_skipped() -> None:
    decks = shuffles.fair_fisher_yates(1_000, _rng(14))
    values = [bytes(d) for d in decks]
    values[5] = None
    table = pa.table({"deck": pa.array(values, pa.binary(52)),
                      "hand_id": pa.array(range(1_000), pa.int64())})
    res = u.run_uniformity([table])
    assert res[0].passed and res[0].hands_checked == 999


# ---------------------------------------------------------------------------------------------
# slow: speed, false-alarm rate, calibration


@pytest.mark.slow
def test_false_alarm_rate_is_at_most_alpha() -> None:
    """400 clean runs of 5,000 decks: each test rejects at about 1%, the Holm battery at most
    1%. P(Binomial(400, 0.01) >= 12) < 1e-3."""
    from scipy import stats as sps

    rng = _rng(99)
    outs = [run_once("fair", 5_000, rng) for _ in range(400)]
    battery = sum(o["rejected"] for o in outs)
    assert sps.binom.sf(battery - 1, 400, 0.01) > 1e-3
    for t in u.TESTS:
        ps = [o["p"][t] for o in outs if t in o["p"]]
        k = sum(p <= 0.01 for p in ps)
        assert sps.binom.sf(k - 1, len(ps), 0.01) > 1e-3, (t, k, len(ps))
    # card x position p-values are uniform
    from audits.stats import ks_uniform
    assert ks_uniform([o["p"]["card_position"] for o in outs])[1] > 1e-3
    assert ks_uniform([o["p"]["adjacent_pairs"] for o in outs])[1] > 1e-3


@pytest.mark.slow
def test_calibration_detects_the_faults_at_target_sizes(tmp_path) -> None:
    res = calibrate(runs=50, fault_runs=10, big_runs=1,
                    sizes={"asf_off_by_one": (1_000,), "eight_bit_modulo": (20_000,),
                           "seed32": (10_000_000,)})
    for fault, n in (("asf_off_by_one", 1_000), ("eight_bit_modulo", 20_000),
                     ("seed32", 10_000_000)):
        assert res["faults"][fault][str(n)]["battery"]["rate"] == 1.0
    assert res["clean"]["battery"]["rate"] <= 0.06
    md, js = write_table(res, tmp_path / "calibration")
    assert "battery (Holm)" in md.read_text() and js.exists()


def test_runner_runs_the_battery_on_a_run_folder(tmp_path) -> None:
    import pyarrow.parquet as pq

    from audits.runner import REGISTRY, run_audits
    from sim.batch import simulate_batch
    from sim.config import Structure
    from sim.runspec import RunSpec

    spec = RunSpec(hands=6_000, batch_size=1_000)
    folder = (tmp_path / batch_relpath("no-limit", 0)).parent
    folder.mkdir(parents=True)
    for b in range(6):
        table = simulate_batch(spec, Structure.NO_LIMIT, b).table
        pq.write_table(table, folder / f"batch-{b:05d}.parquet")
    assert "uniformity" in REGISTRY
    report = run_audits(tmp_path, ["uniformity"])
    (res,) = report.results
    assert res.name == "uniformity" and res.passed and res.hands_checked == 6_000
    tests = {t["name"]: t for t in res.details["tests"]}
    assert tests["uniformity.batch_pvalues_ks"]["applicable"]  # 6 batches of 1,000 decks
    assert tests["uniformity.consecutive_decks"]["details"]["pairs"] > 2_500


def _run_with_decks(root, decks: np.ndarray, batch: int = 1_000):
    """A run folder of simulated hands whose decks are replaced by ``decks``."""
    import pyarrow.parquet as pq

    from sim.batch import simulate_batch
    from sim.config import Structure
    from sim.runspec import RunSpec

    n = len(decks)
    spec = RunSpec(hands=n, batch_size=batch)
    folder = (root / batch_relpath("no-limit", 0)).parent
    folder.mkdir(parents=True)
    for b in range(n // batch):
        table = simulate_batch(spec, Structure.NO_LIMIT, b).table
        col = pa.array([bytes(d) for d in decks[b * batch:(b + 1) * batch].astype(np.uint8)],
                       pa.binary(52))
        table = table.set_column(table.schema.get_field_index("deck"), "deck", col)
        pq.write_table(table, folder / f"batch-{b:05d}.parquet")
    return root


def test_collision_keys_over_memory_budget_are_partitioned_with_the_same_counts(tmp_path
                                                                               ) -> None:
    """A run whose keys exceed the key memory: the driver holds one hash partition at a time
    (extra passes over the deck column), and the collision counts, verdict and examples are
    those of the one-pass reduce (on Ray: tests/cluster/test_audit.py)."""
    from audits.runner import run_audits

    rng = _rng(20)
    pool = shuffles.fair_fisher_yates(600, rng)  # a tiny deck space: many identical decks
    decks = pool[rng.integers(0, len(pool), 4_000)]
    decks[3_500, :9] = decks[10, :9]  # and one first-9 collision that is not a duplicate
    decks[3_500, 9:] = decks[10, 9:][::-1]
    root = _run_with_decks(tmp_path / "run", decks)

    def collisions(**kw):
        report = run_audits(root, ["uniformity"], **kw)
        (res,) = report.results
        tests = {t["name"]: t for t in res.details["tests"]}
        return report, res, tests["uniformity.duplicate_decks"], tests[
            "uniformity.first_k_collisions"]

    one, res1, dup1, fk1 = collisions()
    assert "key_partitions" not in one.runtime and dup1["details"]["key_partitions"] == 1
    budget = 4_000 * u.KEY_BYTES // 5  # five partitions
    seen: list[int] = []
    part, res5, dup5, fk5 = collisions(key_memory=budget,
                                       on_file=lambda f, n: seen.append(n))
    assert part.runtime["key_partitions"] == {"uniformity": 5}
    assert sum(seen) == 5 * 4_000  # progress: the main pass, then 4 passes over the decks
    assert dup5["details"]["key_partitions"] == 5

    def pairs(keys: list[bytes]) -> int:
        return int(sum(c * (c - 1) // 2 for c in np.unique(keys, return_counts=True)[1]))

    expected_dups = pairs([bytes(d) for d in decks])
    expected_fk = pairs([bytes(d[:9]) for d in decks])
    assert expected_fk > expected_dups > 5_000
    for dup, fk in ((dup1, fk1), (dup5, fk5)):
        assert dup["statistic"] == expected_dups and not dup["passed"]
        assert fk["statistic"] == expected_fk
        a, b = dup["example_hand_ids"][:2]
        assert a != b and np.array_equal(decks[a], decks[b])
    assert not res1.passed and not res5.passed


def test_a_partly_null_deck_column_is_unusable_input(tmp_path) -> None:
    import pyarrow.parquet as pq

    from audits.io import AuditInputError
    from audits.runner import run_audits

    root = _run_with_decks(tmp_path / "run", shuffles.fair_fisher_yates(1_000, _rng(21)))
    path = list_batch_files(root)[0]
    t = pq.read_table(path)
    decks = t.column("deck").to_pylist()
    decks[7] = None
    t = t.set_column(t.schema.get_field_index("deck"), "deck", pa.array(decks, pa.binary(52)))
    pq.write_table(t, path)
    with pytest.raises(AuditInputError, match=r"batch-00000.parquet: column 'deck' is null in 1 "
                                              r"of 1000 rows \(e.g. hand 7\)"):
        run_audits(root, ["uniformity"])
