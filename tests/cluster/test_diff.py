"""``holdem diff`` / ``holdem regress`` and the per-hand content digest (``sim.digest``)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from audits import jitcache
from audits.runfolder import batch_relpath
from cluster.bench.diff import run_diff_bench
from cluster.cli import main
from cluster.flows.simulate import run_dataset, run_simulate
from cluster.regression.digest_diff import diff_runs, digest_runs, match_digests
from cluster.regression.divergence import compare_rows
from cluster.regression.runs import NotComparable, open_run, spec_mismatch
from cluster.regression.stat_diff import stat_diff
from sim.batch import simulate_batch
from sim.config import Structure
from sim.digest import combine_digests, content_columns, hand_digests, with_digests
from sim.runspec import RunSpec
from sim.schema import ACTION_DTYPE
from tests.cluster.warmcache import warm

ALL = ("no-limit", "pot-limit", "fixed-limit")
REPO = Path(__file__).resolve().parents[2]


def _spec(**kw: object) -> RunSpec:
    base: dict[str, object] = dict(hands=3000, batch_size=1000, structures=ALL, seed=5)
    base.update(kw)
    return RunSpec(**base)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("diff")
    specs = {
        "base": _spec(),
        "same": _spec(),
        "seed": _spec(seed=6),
        "more": _spec(hands=4000),
    }
    for name, spec in specs.items():
        run_simulate(spec, root / name, workers=0, progress=False)
    return {name: root / name for name in specs}


def _won_plus_one(value: bytes | list[int]) -> bytes | list[int]:
    """A hand's ``won`` with one chip more for seat 0 (schema 4: its packed bytes)."""
    if isinstance(value, bytes):
        won = np.frombuffer(value, "<i8").copy()
        won[0] += 1
        return won.tobytes()
    return [value[0] + 1, *value[1:]]


def _tamper(src: Path, dst: Path, what: str) -> int:
    """Copy the run ``src`` to ``dst`` and change one value of one hand; returns its hand_id."""
    shutil.copytree(src, dst)
    f = dst / batch_relpath("pot-limit", 1)
    t = pq.read_table(f)
    i = 17
    col = {"payout": "won", "action": "actions", "card": "deck"}[what]
    values = t[col].to_pylist()
    if what == "action":  # a hand with a bet or raise
        i = next(k for k, v in enumerate(t["actions"].to_pylist())
                 if (np.frombuffer(v, ACTION_DTYPE)["kind"] >= 9).any()
                 and (np.frombuffer(v, ACTION_DTYPE)["kind"] <= 10).any())
    if what == "payout":
        values[i] = _won_plus_one(values[i])
    elif what == "action":
        rec = np.frombuffer(values[i], ACTION_DTYPE).copy()
        j = int(np.flatnonzero((rec["kind"] >= 9) & (rec["kind"] <= 10))[0])  # a bet/raise
        rec["to_street_total"][j] += 1
        rec["added"][j] += 1
        values[i] = rec.tobytes()
    else:
        deck = bytearray(values[i])
        deck[0], deck[1] = deck[1], deck[0]  # two hole cards trade places
        values[i] = bytes(deck)
    field = t.schema.field(col)
    t = t.set_column(t.schema.get_field_index(col), field, pa.array(values, field.type))
    pq.write_table(t, f, compression="zstd")
    return int(t["hand_id"][i].as_py())


# ---------------------------------------------------------------- the digest


@pytest.fixture(scope="module")
def table() -> pa.Table:
    spec = RunSpec(hands=3000, batch_size=3000, structures=("pot-limit",), seed=3,
                   format="tournament", players=9)
    return simulate_batch(spec, Structure.POT_LIMIT, 0).table


def test_digest_ignores_layout(table: pa.Table) -> None:
    d = hand_digests(table)
    assert d.dtype == np.uint64 and len(np.unique(d)) == len(d)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, row_group_size=700)
    back = pq.read_table(pa.BufferReader(sink.getvalue()))
    assert back["deck"].num_chunks > 1
    assert np.array_equal(hand_digests(back), d)
    assert np.array_equal(hand_digests(table.slice(777, 1000)), d[777:1777])
    # a slice whose lists all have the same length takes the fixed-width kernel
    lengths = np.array([len(b) for b in table["board"].to_pylist()])
    five = np.flatnonzero(lengths == 5)
    run = five[np.flatnonzero(np.diff(five) == 1)[0]]
    assert np.array_equal(hand_digests(table.slice(run, 2)), d[run:run + 2])
    assert hand_digests(table.slice(0, 0)).size == 0
    # run_id is not content
    other = table.set_column(0, table.schema.field(0),
                             pa.array(["x"] * table.num_rows, pa.string()))
    assert np.array_equal(hand_digests(other), d)


def test_every_content_column_counts(table: pa.Table) -> None:
    small = table.slice(100, 5).combine_chunks()
    d = hand_digests(small)
    rows = small.to_pylist()
    for name in content_columns(small.schema.names):
        changed = [dict(r) for r in rows]
        v = changed[2][name]
        if isinstance(v, bool):
            v = not v
        elif isinstance(v, int):
            v = v + 1
        elif isinstance(v, str):
            v = v + "x"
        elif v is None:
            v = "planted"
        elif isinstance(v, bytes):
            v = bytes([(v[0] + 1) % 256]) + v[1:] if v else b"\x00"
        elif isinstance(v, list):
            if not v:
                v = changed[1][name] or changed[3][name] or v
                if not v:
                    continue
            elif isinstance(v[0], dict):
                v = [dict(v[0], amount=v[0]["amount"] + 1)] + v[1:]
            elif isinstance(v[0], bool):
                v = [not v[0]] + v[1:]
            else:
                v = [v[0] + 1] + v[1:]
        changed[2][name] = v
        t2 = pa.Table.from_pylist(changed, schema=small.schema)
        d2 = hand_digests(t2)
        assert d2[2] != d[2], name
        assert np.array_equal(np.delete(d2, 2), np.delete(d, 2)), name


def test_digest_same_without_jit(table: pa.Table, tmp_path: Path) -> None:
    small = table.slice(0, 40)
    pq.write_table(small, tmp_path / "t.parquet")
    code = ("import pyarrow.parquet as pq, sys; from sim.digest import hand_digests; "
            "print(','.join(str(int(x)) for x in hand_digests(pq.read_table(sys.argv[1]))))")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    r = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", code,
                        str(tmp_path / "t.parquet")], capture_output=True, text=True, env=env,
                       cwd=REPO, check=True)
    assert [int(x) for x in r.stdout.strip().split(",")] == [int(x) for x in
                                                             hand_digests(small)]


def test_combine_is_order_sensitive(table: pa.Table) -> None:
    d = hand_digests(table)
    assert combine_digests(d) != combine_digests(d[::-1])
    assert combine_digests(d[:-1]) != combine_digests(d)


def test_match_counts_and_first() -> None:
    ia = np.array([1, 2, 3, 5, 8], dtype=np.int64)
    ib = np.array([2, 3, 4, 5, 9], dtype=np.int64)
    da = np.array([10, 20, 30, 50, 80], dtype=np.uint64)
    db = np.array([20, 31, 40, 51, 90], dtype=np.uint64)
    m = match_digests(ia, da, ib, db, first=1)
    assert (m.same, m.differ, m.only_baseline, m.only_candidate) == (1, 2, 2, 2)
    assert (m.first_differ, m.first_only_baseline, m.first_only_candidate) == ([3], [1], [4])


def test_bench_prints_rate(capsys: pytest.CaptureFixture[str]) -> None:
    res = run_diff_bench(20_000, repeats=1)
    out = capsys.readouterr().out
    assert res["digest_match"] > 0 and res["peer_arrow_equals"] > 0 and "peer: Arrow" in out
    assert len(res["on_disk"]) == 4 and all(v > 0 for v in res["on_disk"].values())
    assert "two identical runs" in out
    assert "--trust-digests (stored read)" in out and "sha256 of both sides' files" in out


# ---------------------------------------------------------------- holdem diff


def test_same_seed_is_identical(runs: dict[str, Path],
                                capsys: pytest.CaptureFixture[str]) -> None:
    res = diff_runs(runs["base"], runs["same"])
    assert res.identical and res.match.same == 9000
    assert main(["diff", str(runs["base"]), str(runs["same"])]) == 0
    assert "IDENTICAL: 9,000 hands match" in capsys.readouterr().out


@pytest.mark.parametrize("what,phrase", [
    ("payout", "first differing payout: won seat 0:"),
    ("action", "first differing action: action #"),
    ("card", "first differing card: deck position 0:"),
])
def test_a_tampered_hand_is_named(runs: dict[str, Path], tmp_path: Path, what: str,
                                  phrase: str, capsys: pytest.CaptureFixture[str]) -> None:
    hand_id = _tamper(runs["same"], tmp_path / "t", what)
    assert main(["diff", str(runs["base"]), str(tmp_path / "t"), "--first", "3"]) == 1
    out = capsys.readouterr().out
    assert "DIFFERENT: 1 of 9,000 common hands differ" in out
    assert "batch-00001.parquet: its bytes do not match the sha256 its manifest records" in out
    assert f"first differing hand_ids: {hand_id}\n" in out
    assert f"hand {hand_id}: {phrase}" in out
    assert "baseline" in out and "candidate" in out
    if what == "payout":  # the replay recomputes the payout: the logged values are listed
        assert "*** PRE-FLOP ***" in out
        assert "the rows differ in logged values the replay recomputes" in out
    else:  # side by side with the differing lines marked, or the differing fields
        assert " | " in out or "does not rebuild" in out


def _restamp(run: Path, rel: str, table: pa.Table) -> None:
    """Write ``table`` (its digests recomputed) as ``rel`` of ``run`` and record the file's
    new sha256 in the manifest: what an engine that really dealt these rows would leave."""
    f = run / rel
    table = with_digests(table.drop_columns(["digest"]))
    pq.write_table(table, f, compression="zstd", compression_level=4)
    m = json.loads((run / "manifest.json").read_text())
    for rec in m["files"]:
        if rec["path"] == rel:
            rec["sha256"] = hashlib.sha256(f.read_bytes()).hexdigest()
    (run / "manifest.json").write_text(json.dumps(m))


def test_stored_digests_are_read_when_the_bytes_verify(runs: dict[str, Path],
                                                       tmp_path: Path) -> None:
    shutil.copytree(runs["same"], tmp_path / "t")
    rel = batch_relpath("no-limit", 2)
    t = pq.read_table(tmp_path / "t" / rel)
    _restamp(tmp_path / "t", rel, t)  # the same rows in other bytes
    a, b = open_run(runs["base"]), open_run(tmp_path / "t")
    cols = content_columns(pq.read_schema(tmp_path / "t" / rel).names)
    side_a, side_b = digest_runs(a, b, cols, stored=True, trust=True)
    assert side_b.how[rel] == side_a.how[rel] == "stored" and not side_b.unverified
    assert {h for r, h in side_b.how.items() if r != rel} == {"same-bytes"}
    side_a, side_b = digest_runs(a, b, cols, stored=True)  # the default: checked, not believed
    assert side_b.how[rel] == side_a.how[rel] == "verified" and not side_b.stale
    assert diff_runs(runs["base"], tmp_path / "t").identical
    assert diff_runs(runs["base"], tmp_path / "t", trust_digests=True).identical
    # a hand that really changed, with its digest and sha256 recorded: caught from the digest
    won = t["won"].to_pylist()
    won[7] = _won_plus_one(won[7])
    field = t.schema.field("won")
    t = t.set_column(t.schema.get_field_index("won"), field, pa.array(won, field.type))
    _restamp(tmp_path / "t", rel, t)
    res = diff_runs(runs["base"], tmp_path / "t")
    assert res.match.first_differ == [int(t["hand_id"][7].as_py())] and not res.notes
    assert diff_runs(runs["base"], tmp_path / "t", recompute=True).match.differ == 1


def _forge_undealt_cards(run: Path, rel: str, row: int) -> int:
    """An attacker's card forgery: two undealt cards of one hand's deck trade places (nothing
    dealt, played or paid changes, so no other column gives it away), the file rewritten with
    the row's stored digest left as it was, the manifest's sha256 and bytes rewritten. Returns
    the hand_id."""
    f = run / rel
    t = pq.read_table(f)
    decks = t["deck"].to_pylist()
    deck = bytearray(decks[row])
    deck[50], deck[51] = deck[51], deck[50]  # 6-max: 20 cards at most are dealt or burnt
    decks[row] = bytes(deck)
    field = t.schema.field("deck")
    t = t.set_column(t.schema.get_field_index("deck"), field, pa.array(decks, field.type))
    pq.write_table(t, f, compression="zstd")
    m = json.loads((run / "manifest.json").read_text())
    for rec in m["files"]:
        if rec["path"] == rel:
            rec["sha256"] = hashlib.sha256(f.read_bytes()).hexdigest()
            rec["bytes"] = f.stat().st_size
    (run / "manifest.json").write_text(json.dumps(m, indent=2))
    return int(t["hand_id"][row].as_py())


def test_a_forged_card_with_a_stale_digest_is_named(runs: dict[str, Path], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(runs["same"], tmp_path / "t")
    rel = batch_relpath("pot-limit", 1)
    hand_id = _forge_undealt_cards(tmp_path / "t", rel, 23)
    assert main(["diff", str(runs["base"]), str(tmp_path / "t")]) == 1
    out = capsys.readouterr().out
    assert "STALE DIGESTS: 1 hands store a digest that is not the digest of their content" in out
    assert f"t/{rel}: hand_ids {hand_id}\n" in out
    assert f"first differing hand_ids: {hand_id}\n" in out
    assert f"hand {hand_id}: first differing card: deck position 50:" in out
    # the old fast path believes the stale digest: the forgery goes unseen
    assert main(["diff", str(runs["base"]), str(tmp_path / "t"), "--trust-digests"]) == 0
    assert "IDENTICAL" in capsys.readouterr().out
    assert main(["diff", str(runs["base"]), str(tmp_path / "t"), "--trust-digests",
                 "--recompute"]) == 2


def test_a_row_that_does_not_rebuild_lists_fields(runs: dict[str, Path], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(runs["same"], tmp_path / "t")
    f = tmp_path / "t" / batch_relpath("fixed-limit", 2)
    t = pq.read_table(f)
    values = t["actions"].to_pylist()
    values[5] = values[5][:-3]  # no longer whole 19-byte records
    field = t.schema.field("actions")
    t = t.set_column(t.schema.get_field_index("actions"), field, pa.array(values, field.type))
    pq.write_table(t, f, compression="zstd")
    assert main(["diff", str(runs["base"]), str(tmp_path / "t")]) == 1
    out = capsys.readouterr().out
    assert f"first differing hand_ids: {t['hand_id'][5].as_py()}" in out
    assert "actions: the packed records differ (not decodable)" in out
    assert "does not rebuild" in out


def test_different_seeds_are_not_comparable(runs: dict[str, Path],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(NotComparable, match="seed differs"):
        diff_runs(runs["base"], runs["seed"])
    assert main(["diff", str(runs["base"]), str(runs["seed"])]) == 2
    err = capsys.readouterr().err
    assert "seed" in err and len(err.strip().splitlines()) == 1


def test_missing_and_corrupt_input(runs: dict[str, Path], tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(runs["base"]), str(tmp_path / "nope")]) == 2
    assert "does not exist" in capsys.readouterr().err
    shutil.copytree(runs["same"], tmp_path / "bad")
    (tmp_path / "bad" / batch_relpath("no-limit", 0)).write_bytes(b"junk")
    assert main(["diff", str(runs["base"]), str(tmp_path / "bad")]) == 2
    err = capsys.readouterr().err
    assert "batch-00000.parquet" in err and len(err.strip().splitlines()) == 1


def test_os_entropy_runs_are_not_comparable(tmp_path: Path) -> None:
    spec = _spec(hands=200, batch_size=200, structures=("no-limit",), generator="os-chacha20")
    for n in "ab":
        run_simulate(spec, tmp_path / n, workers=0, progress=False)
    with pytest.raises(NotComparable, match="os-chacha20 is not reproducible"):
        diff_runs(tmp_path / "a", tmp_path / "b")
    assert not stat_diff(tmp_path / "a", tmp_path / "b").moved


def test_more_hands_are_reported_missing(runs: dict[str, Path]) -> None:
    res = diff_runs(runs["base"], runs["more"], first=2)
    m = res.match
    assert (m.same, m.differ, m.only_baseline, m.only_candidate) == (9000, 0, 0, 3000)
    assert m.first_only_candidate == [3000, 3001] and res.exit_code == 1


def test_spec_mismatch_defaults() -> None:
    a = _spec().to_dict()
    b = dict(a)
    del b["leave_ppm"]  # an older spec without the field: today's default applies
    assert spec_mismatch(a, b) is None
    b["leave_ppm"] = 1
    assert "leave_ppm differs" in (spec_mismatch(a, b) or "")
    assert spec_mismatch(a, dict(a, hands=1)) is None  # coverage, not config


def test_compare_rows_order(runs: dict[str, Path]) -> None:
    rows = run_dataset(runs["base"]).to_table().slice(0, 1).to_pylist()
    ra = rows[0]
    rb = dict(ra, won=list(ra["won"]), board=list(ra["board"]))
    rb["won"][1] += 5
    rb["board"][0] = (rb["board"][0] + 1) % 52
    diffs = compare_rows(ra, rb)
    assert [c for c, _ in diffs] == ["card", "payout"]


# ---------------------------------------------------------------- holdem diff --stat


@pytest.fixture(scope="module")
def stat_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("stat")
    specs = {
        "a": _spec(hands=6000, batch_size=2000),
        "b": _spec(hands=6000, batch_size=2000),
        "seed": _spec(hands=6000, batch_size=2000, seed=9),
        "timeouts": _spec(hands=6000, batch_size=2000, timeout_ppm=200_000),
        "fault": _spec(hands=6000, batch_size=2000, inject="side-pot-ignores-eligibility"),
    }
    for name, spec in specs.items():
        run_simulate(spec, root / name, workers=0, progress=False)
    return {name: root / name for name in specs}


def test_stat_identical_and_other_seed_move_nothing(stat_runs: dict[str, Path],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    res = stat_diff(stat_runs["a"], stat_runs["b"])
    assert not res.moved and len(res.tests) > 30
    assert all(t.p == 1.0 for t in res.tests)
    assert not stat_diff(stat_runs["a"], stat_runs["seed"]).moved
    assert main(["diff", "--stat", str(stat_runs["a"]), str(stat_runs["seed"])]) == 0
    assert "NOTHING MOVED" in capsys.readouterr().out


@pytest.mark.parametrize("name,expect", [("timeouts", "count timeouts"),
                                         ("fault", "win rate at button+")])
def test_stat_reports_what_moved(stat_runs: dict[str, Path], name: str, expect: str,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    res = stat_diff(stat_runs["a"], stat_runs[name])
    assert any(t.name.startswith(expect) for t in res.moved), [t.name for t in res.moved]
    assert main(["diff", "--stat", str(stat_runs["a"]), str(stat_runs[name])]) == 1
    out = capsys.readouterr().out
    assert "MOVED:" in out and expect in out


# ---------------------------------------------------------------- holdem regress


@pytest.mark.slow
def test_regress_against_head(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The committed HEAD against this working tree: identical unless the working tree changed
    the engine (then this test says so rather than failing on someone's work in progress).

    Both sides run from a cache root of the test's own, warm for this checkout's sources
    (``warmcache.warm``): a clean working tree's HEAD has the same keys, so neither side
    compiles; a side whose sources differ compiles, as it would anyway."""
    for label in jitcache.CLOSURE:  # this process keeps its own root
        jitcache.key_dir(label)
    warm(tmp_path / "jit")
    warm(tmp_path / "jit" / "regress-baseline")
    monkeypatch.setenv(jitcache.ENV_ROOT, str(tmp_path / "jit"))  # regress's two sides
    code = main(["regress", "--baseline", "HEAD", "--hands", "2000",
                 "--structures", "no-limit", "fixed-limit", "--no-speed"])
    out = capsys.readouterr().out
    assert "baseline: HEAD = " in out and "speed: not checked (--no-speed)" in out
    assert out.count("hands match") + out.count("DIFFERENT") == 2  # one diff per structure
    r = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "sim"],
                       capture_output=True, text=True, check=False)
    if r.stdout.strip():
        assert code in (0, 1)
    else:
        assert code == 0 and "regress: IDENTICAL" in out
    worktrees = subprocess.run(["git", "-C", str(REPO), "worktree", "list", "--porcelain"],
                               capture_output=True, text=True, check=True).stdout
    assert "holdem-regress-" not in worktrees  # cleaned up


def test_regress_bad_ref(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["regress", "--baseline", "no-such-ref-xyz"]) == 2
    assert "not a commit" in capsys.readouterr().err

