"""``holdem regress`` explains a change: the differing hands grouped by root cause
(``cluster.regression.rootcause``: the first hand of each table the two engines play
differently, with its first differing field and its rule paths; the rest counted apart), each
side's hand replayed by its own engine, simulate's option names, and simulate's default
population (cash and tournament tables in every structure) by default."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cluster.cli import build_parser, main
from cluster.flows.replay import find_row
from cluster.flows.simulate import run_simulate
from cluster.regression.digest_diff import diff_runs
from cluster.regression.regress import describe_plan, plan_spec, replay_by_own_engine
from cluster.regression.rootcause import root_causes, summary
from sim.digest import content_columns, hand_digests, with_digests
from sim.runspec import RunSpec, population_fields

ALL = ("no-limit", "pot-limit", "fixed-limit")
REPO = Path(__file__).resolve().parents[2]


def _as_engine_wrote_it(run: Path) -> None:
    """A run of the ``odd-chip-wrong-seat`` fault made into what an ENGINE whose rule sends
    the odd chips counter-clockwise writes: no fault named (the column cleared, the spec's
    ``inject`` dropped), every digest recomputed and every file's sha256 restamped."""
    m = json.loads((run / "manifest.json").read_text())
    for rec in m["files"]:
        f = run / rec["path"]
        t = pq.read_table(f)
        i = t.schema.get_field_index("fault")
        t = t.set_column(i, t.schema.field(i), pa.nulls(t.num_rows, t.schema.field(i).type))
        t = with_digests(t.drop_columns(["digest"]))
        pq.write_table(t, f, compression="zstd")
        rec["sha256"] = hashlib.sha256(f.read_bytes()).hexdigest()
    m["spec"]["inject"] = None
    (run / "manifest.json").write_text(json.dumps(m))


@pytest.fixture(scope="module")
def odd_chip(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the baseline run, the run of an engine with counter-clockwise odd chips): simulate's
    default population (mixed cash and tournament tables of 2 to 10 seats)."""
    root = tmp_path_factory.mktemp("odd")
    kw = dict(hands=3000, batch_size=1000, structures=ALL, seed=5, **population_fields())
    run_simulate(RunSpec(**kw), root / "base", workers=0, progress=False)  # type: ignore[arg-type]
    run_simulate(RunSpec(**kw, inject="odd-chip-wrong-seat"),  # type: ignore[arg-type]
                 root / "odd", workers=0, progress=False)
    _as_engine_wrote_it(root / "odd")
    return root / "base", root / "odd"


def _by_table(run: Path) -> dict[tuple[int, int], int]:
    """(table_id, hand_no) -> the hand's content digest without its hand_id, read plainly."""
    out: dict[tuple[int, int], int] = {}
    for f in sorted((run / "log").rglob("*.parquet")):
        t = pq.read_table(f)
        cols = [c for c in content_columns(t.schema.names) if c != "hand_id"]
        for tid, no, d in zip(t["table_id"].to_pylist(), t["hand_no"].to_pylist(),
                              hand_digests(t, cols).tolist(), strict=True):
            out[(tid, no)] = d
    return out


def test_root_causes_of_an_odd_chip_change(odd_chip: tuple[Path, Path]) -> None:
    base, odd = odd_chip
    res = diff_runs(base, odd, explain=False)
    m = res.match
    differing = m.differ + m.only_baseline + m.only_candidate
    assert m.differ > 100  # the change cascades through the tables' later hands
    rc = root_causes(base, odd, differing)
    # one root cause per table that plays differently: its first differing hand, every
    # earlier hand of the table the same on both sides (checked here by plain dictionaries)
    a, b = _by_table(base), _by_table(odd)
    tables = {t for (t, no), d in a.items() if b.get((t, no)) is not None and b[(t, no)] != d}
    assert sorted(c.table_id for c in rc.causes) == sorted(tables)
    for c in rc.causes:
        assert a[(c.table_id, c.hand_no)] != b[(c.table_id, c.hand_no)]
        assert all(a[(c.table_id, h)] == b[(c.table_id, h)] for h in range(c.hand_no))
    assert rc.consequent == differing - len(rc.causes) and 0 < rc.later <= rc.consequent
    # the rule the change touched stands out: every root cause paid a split pot's odd chip
    assert {c.field for c in rc.causes} == {"won"}
    assert {c.mark for c in rc.causes} == {"odd_chip"}
    assert all("odd_chip" in (c.paths_baseline or ()) and "odd_chip" in (c.paths_candidate or ())
               for c in rc.causes)
    assert rc.share["odd_chip"] < 0.05  # a rare path of all hands
    n = len(rc.causes)
    text = summary(rc)
    assert text.startswith(f"{n} root causes (one per affected table: ")
    assert f"{n} at odd_chip" in text and f"{rc.consequent:,} consequent hands" in text


def test_each_side_replayed_by_its_own_engine(odd_chip: tuple[Path, Path],
                                              tmp_path: Path) -> None:
    """The side-by-side's columns: each side's ``holdem replay`` in its own tree. This tree's
    engine replays its own run's hand; the other rule's hand it does not replay to its logged
    end, and a tree without an engine replays nothing: both give the facts that side's run
    logged, said so, never this tree's replay of the other side's hand."""
    base, odd = odd_chip
    rc = root_causes(base, odd, 1, paths=False)
    hid = rc.causes[0].hand_id
    own = replay_by_own_engine(sys.executable, REPO, str(REPO), {}, base, hid,
                               find_row(base, hid), "baseline")
    assert own.startswith(f"Hand {hid} (table ") and "*** SUMMARY ***" in own
    row = find_row(odd, hid)
    other = replay_by_own_engine(sys.executable, REPO, str(REPO), {}, odd, hid, row,
                                 "candidate")
    assert other.startswith("(not replayed by the candidate's engine: ")
    assert "does not replay" in other and "as logged" in other
    for s, w in enumerate(row["won"]):
        if row["occupied"][s]:
            assert f"seat {s}: starts {row['stacks_start'][s]}, " in other
            assert f"wins {w}, ends {row['stacks_end'][s]}" in other
    old = tmp_path / "old-tree" / "cluster"  # a tree whose package cannot replay
    old.mkdir(parents=True)
    (old / "__init__.py").write_text("raise ImportError('an engine without holdem replay')\n")
    text = replay_by_own_engine(sys.executable, old.parent, str(old.parent), {}, odd, hid, row,
                                "baseline")
    assert text.startswith("(not replayed by the baseline's engine: ")
    assert "an engine without holdem replay" in text and "as logged" in text


def test_default_runs_hold_cash_and_tournament_tables_in_every_structure() -> None:
    spec, size = plan_spec(20_000, ["all"], 1, population_fields(), None)
    assert spec.format == "mixed" and size is not None and size < 10_000
    for s in spec.structures:
        kinds = {spec.batch_table(s, i)[1] for i in range(spec.n_batches())}
        assert kinds == {"cash", "tournament"}, s.label
    # simulate's own batches of 10,000 would leave no-limit without a tournament table
    spec10, given = plan_spec(20_000, ["all"], 1, population_fields(), 10_000)
    assert given == 10_000 and "no-limit 2 cash;" in describe_plan(spec10)
    # one format asked for: simulate's batches as they are
    cash, none = plan_spec(20_000, ["no-limit"], 1, population_fields(format="cash"), None)
    assert none is None and cash.format == "cash"


def _option_table(parser: argparse.ArgumentParser, command: str
                  ) -> dict[str, argparse.Action]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {s: a for a in sub.choices[command]._actions for s in a.option_strings}


def test_regress_takes_simulates_option_names_and_forms(
        capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    sim, reg = _option_table(parser, "simulate"), _option_table(parser, "regress")
    shared = ["--hands", "--structure", "--game", "--population", "--players", "--format",
              "--tournament-pct", "--stacks", "--leave-above", "--tournament-stack", "--bots",
              "--seed", "--batch-size"]
    for name in shared:
        assert name in reg, name
        assert sim[name].choices == reg[name].choices or name == "--structure", name
    assert reg["--format"].choices == ["cash", "tournament", "mixed"]
    assert set(sim["--structure"].choices or ()) == {"no-limit", "pot-limit", "fixed-limit",
                                                     "all"}
    # simulate's forms, checked as simulate checks them, before anything is run (one line)
    for argv, expect in ((["--players", "2:x"], "--players '2:x': expected"),
                         (["--stacks", "9-3"], "--stacks '9-3': expected"),
                         (["--tournament-pct", "101"], "--tournament-pct 101: expected"),
                         (["--structure", "no-limit,bogus"], "--structure 'bogus': expected")):
        assert main(["regress", "--baseline", "HEAD", "--no-speed", *argv]) == 2
        err = capsys.readouterr().err
        assert expect in err and len(err.strip().splitlines()) == 1, err


# ---------------------------------------------------------------- end to end, in a copy


def _git(tree: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(tree), "-c", "user.email=t@t", "-c", "user.name=t",
                    *args], check=True, capture_output=True)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, f"{path}: {old!r} not found once"
    path.write_text(text.replace(old, new))


def _regress(tree: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("RAY_ADDRESS", None)
    return subprocess.run([sys.executable, "-m", "cluster.cli", "regress", "--baseline", "HEAD",
                           "--no-speed", *args], cwd=tree, env=env, capture_output=True,
                          text=True, timeout=1500, check=False)


def _columns(out: str) -> tuple[list[str], list[str]]:
    """The two columns of the report's side-by-side (``divergence.side_by_side``)."""
    lines = out.split("(its own engine)", 1)[1].splitlines()[2:]
    rows = [ln for ln in lines if len(ln) > 67 and ln[64:67] in ("   ", " | ", " < ", " > ")]
    return [r[:64].rstrip() for r in rows], [r[67:] for r in rows]


@pytest.mark.slow
def test_regress_explains_an_odd_chip_change_and_sees_a_tournament_change(
        tmp_path: Path) -> None:
    """The issue's two cases, each a candidate tree of its own (a committed copy of this
    checkout, then one rule changed): odd chips sent counter-clockwise (each column shows its
    own engine's payout, one root cause per affected table, at odd_chip), and a level schedule
    changed (a tournament-only rule: DIFFERENT by default, every root cause a tournament
    table's)."""
    from tests.audits.test_provenance import _copy

    tree = _copy(tmp_path)
    (tree / "pyproject.toml").write_text((REPO / "pyproject.toml").read_text())
    _git(tree, "init", "-q")
    _git(tree, "add", "-A")
    _git(tree, "commit", "-qm", "baseline")
    _edit(tree / "sim" / "engine.py", "            if fault == F_ODD_CHIP:\n",
          "            if fault == F_ODD_CHIP or n > 0:  # the change under test\n")
    r = _regress(tree, "--hands", "1000", "--keep")
    out = r.stdout
    assert r.returncode == 1 and "regress: DIFFERENT" in out, out + r.stderr
    n = int(re.search(r"DIFFERENT: ([0-9,]+) root causes? \(one per affected table", out)
            .group(1))  # type: ignore[union-attr]
    assert f"{n} at odd_chip)" in out and "first differing field won" in out
    assert "each side replayed by its own engine: hand " in out
    # each column is its own side's hand: the summary's stacks are the side's logged ones
    runs = Path(out.split("run folders kept in ")[1].split()[0])
    hid = int(out.split("each side replayed by its own engine: hand ")[1].split(":")[0])
    left, right = _columns(out)
    for col, run in ((left, runs / "baseline-all"), (right, runs / "cand-all")):
        row = find_row(run, hid)
        for s, here in enumerate(row["occupied"]):
            if here:
                a, b = row["stacks_start"][s], row["stacks_end"][s]
                assert any(x.strip().startswith(f"seat {s}: {a} -> {b} ") for x in col), (s, col)
    assert any("|" in x for x in out.splitlines() if "wins" in x)
    assert "prints the same history" not in out
    shutil.rmtree(runs.parent, ignore_errors=True)

    _git(tree, "checkout", "-q", "sim/engine.py")
    _edit(tree / "sim" / "session.py", "LEVEL_MULT = np.array([1, 2, 3, 4,",
          "LEVEL_MULT = np.array([1, 2, 4, 4,")
    r = _regress(tree, "--hands", "1000")
    out = r.stdout
    assert r.returncode == 1 and "regress: DIFFERENT" in out, out + r.stderr
    causes = re.search(r"root causes? \(one per affected table: ([^;]+);", out)
    assert causes is not None and causes.group(1).endswith(" tournament"), out
    assert "cash" not in causes.group(1)
    assert "first differing field small_blind" in out
    for label in ALL:  # both formats simulated in every structure, by default
        assert re.search(rf"{label} [0-9]+ cash \+ [0-9]+ tournament", out), out


@pytest.fixture(scope="module")
def default_changed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Runs of two engines whose ``level_hands`` default differs (30, then 25) for the same
    options: tournament tables in no-limit and fixed-limit, and a pair of os-chacha20 runs
    (never comparable)."""
    root = tmp_path_factory.mktemp("defaults")
    out = {}
    for unit in ("no-limit", "fixed-limit"):
        for side, level in (("baseline", 30), ("cand", 25)):
            spec = RunSpec(hands=300, batch_size=300, structures=(unit,), seed=3,
                           format="tournament", level_hands=level)  # type: ignore[arg-type]
            run_simulate(spec, root / f"{side}-{unit}", workers=0, progress=False)
            out[f"{side}-{unit}"] = root / f"{side}-{unit}"
    for side in ("a", "b"):
        spec = RunSpec(hands=100, batch_size=100, structures=("no-limit",),  # type: ignore[arg-type]
                       generator="os-chacha20")
        run_simulate(spec, root / f"os-{side}", workers=0, progress=False)
    return out


def test_a_changed_default_is_named_with_both_values(default_changed: dict[str, Path]) -> None:
    """``holdem diff``: not comparable, naming every differing field with both values;
    ``holdem regress`` (same options on both sides) compares them as a change of the engine."""
    from cluster.regression.runs import NotComparable, spec_mismatch

    base, cand = default_changed["baseline-no-limit"], default_changed["cand-no-limit"]
    with pytest.raises(NotComparable, match=r"^not comparable: level_hands differs \(baseline "
                                            r"30, candidate 25\)$"):
        diff_runs(base, cand)
    res = diff_runs(base, cand, spec_changes=True)
    assert res.exit_code == 1 and res.match.differ > 0
    assert res.notes[0] == ("the specs differ for the same options (the engines' defaults): "
                            "level_hands differs (baseline 30, candidate 25); compared hand by "
                            "hand as a change of the engine")
    assert spec_mismatch({"level_hands": 30, "seed": 1, "hands": 5},
                         {"level_hands": 25, "seed": 2, "hands": 9}) == (
        "2 spec fields differ: level_hands (baseline 30, candidate 25), seed (baseline 1, "
        "candidate 2)")  # hands: which hands a run holds, not what they are


def _fake_sides(monkeypatch: pytest.MonkeyPatch, runs: dict[str, Path]) -> None:
    """``run_regress`` without git or subprocesses: each side's simulate copies the run of
    ``runs`` for its structure (``baseline-UNIT``, ``cand-UNIT``)."""
    from cluster.regression import regress

    def simulate(python: str, tree: Path, out: Path, args: list[str], *rest: object) -> None:
        unit = args[args.index("--structure") + 1]
        shutil.copytree(runs[f"{out.name.split('-')[0]}-{unit}"], out)

    monkeypatch.setattr(regress, "resolve_ref", lambda ref: "f" * 40)
    monkeypatch.setattr(regress, "uncommitted_changes", lambda: [])
    monkeypatch.setattr(regress, "_git", lambda *a, **k: "")
    monkeypatch.setattr(regress, "_simulate", simulate)
    monkeypatch.setattr(regress, "replay_by_own_engine", lambda *a: "seat 0 wins 1")


def test_regress_of_a_changed_default_says_each_line_once_and_compares(
        default_changed: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``level_hands`` default changed between the two engines (issue 37, D6): regress
    compared nothing ("not comparable", exit 2) and said its lines once per structure; now the
    hands are compared (DIFFERENT, explained), the field named with both values, and the code
    lines said once."""
    from cluster.regression.regress import run_regress

    _fake_sides(monkeypatch, default_changed)
    lines: list[str] = []
    code = run_regress("HEAD", hands=300, structures=["no-limit", "fixed-limit"], seed=3,
                       population=population_fields(format="tournament"), speed=False,
                       say=lines.append)
    text = "\n".join(lines)
    said = text.splitlines()
    assert code == 1 and "regress: DIFFERENT" in text, text
    assert sum(x.startswith("baseline code:") for x in said) == 1, text
    assert sum(x.startswith("candidate code:") for x in said) == 1, text
    note = ("note: the specs differ for the same options (the engines' defaults): level_hands "
            "differs (baseline 30, candidate 25)")
    assert sum(x.startswith(note) for x in said) == 2, text  # once for each structure
    assert len([x for x in said if x.startswith("DIFFERENT: ")]) == 2, text
    assert "not comparable" not in text

    # runs that cannot be compared: said once, then once a structure that it holds too
    runs = {"baseline-no-limit": default_changed["baseline-no-limit"].parent / "os-a",
            "cand-no-limit": default_changed["baseline-no-limit"].parent / "os-b"}
    runs |= {k.replace("no-limit", "fixed-limit"): v for k, v in runs.items()}
    _fake_sides(monkeypatch, runs)
    lines.clear()
    code = run_regress("HEAD", hands=300, structures=["no-limit", "fixed-limit"], seed=3,
                       population=population_fields(format="tournament"), speed=False,
                       say=lines.append)
    text = "\n".join(lines)
    assert code == 2 and "regress: FAILED" in text, text
    assert sum("generator os-chacha20 is not reproducible" in x for x in text.splitlines()) \
        == 1, text
    assert "holdem: fixed-limit: not comparable either, for the same reason" in lines, text
