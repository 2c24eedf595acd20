"""``holdem export``: the four datasets of a run folder, their metadata, the README's snippets
(pandas, polars and DuckDB agree), the README's generated tables, Ray, bad input."""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from cluster.cli import main
from cluster.export import run_export
from cluster.simulate import run_simulate
from sim.config import Structure
from sim.runspec import DEFAULT_POPULATION, RunSpec
from sim.tables import TABLE_NAMES, TABLE_SCHEMAS, describe_codes, describe_tables

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("export") / "run"
    spec = RunSpec(hands=6000, batch_size=2000, structures=tuple(Structure), seed=13,
                   **DEFAULT_POPULATION)
    run_simulate(spec, path, workers=0, progress=False)
    assert main(["export", str(path), "--workers", "0", "--quiet"]) == 0
    return path


def test_export_writes_four_datasets_with_documented_columns(run: Path) -> None:
    log = ds.dataset(sorted(run.glob("log/*/*.parquet")), format="parquet").to_table(
        columns=["hand_id", "contributed"])
    for name in TABLE_NAMES:
        parts = sorted((run / "tables" / name).glob("part-*.parquet"))
        assert len(parts) == 9, name  # 3 structures x 3 batches
        schema = pq.read_schema(parts[0])
        assert schema.remove_metadata().equals(TABLE_SCHEMAS[name].remove_metadata())
        for f in schema:
            assert f.metadata[b"unit"] and f.metadata[b"doc"], (name, f.name)
            assert schema.metadata[f"holdem.column.{f.name}".encode()]
    hands = ds.dataset(run / "tables" / "hands").to_table()
    assert sorted(hands.column("hand_id").to_pylist()) == sorted(
        log.column("hand_id").to_pylist())
    actions = ds.dataset(run / "tables" / "actions").to_table(columns=["added"])
    total = sum(sum(c) for c in log.column("contributed").to_pylist())
    assert pa.compute.sum(hands.column("pot")).as_py() == total
    assert pa.compute.sum(actions.column("added")).as_py() == total
    assert isinstance(hands.schema.field("structure").type, pa.DictionaryType)


def test_the_run_still_audits_and_a_new_export_replaces_the_old(run: Path,
                                                                tmp_path: Path) -> None:
    assert main(["audit", str(run), "--only", "integrity", "--workers", "0", "--quiet"]) == 0
    stale = run / "tables" / "pots" / "part-no-limit-99999.parquet"
    shutil.copy(next((run / "tables" / "pots").glob("part-*.parquet")), stale)
    before = {p: p.read_bytes() for p in (run / "tables").rglob("*.parquet") if p != stale}
    res = run_export(run, workers=0)
    assert res.removed == ["pots/part-no-limit-99999.parquet"] and not stale.exists()
    assert {p: p.read_bytes() for p in (run / "tables").rglob("*.parquet")} == before
    assert not [p for p in (run / "tables").rglob("*") if p.name.startswith(".")]


def test_export_on_ray_writes_the_same_bytes(run: Path, tmp_path: Path,
                                             ray_local: None) -> None:
    res = run_export(run, tmp_path / "t", workers=2)
    assert res.files == 9 and res.hands == 18_000
    for p in (run / "tables").rglob("*.parquet"):
        assert (tmp_path / "t" / p.relative_to(run / "tables")).read_bytes() == p.read_bytes()


# ---------------------------------------------------------------- the README


def _section() -> str:
    text = README.read_text()
    return text.split("## Analysing a run: `holdem export`", 1)[1].split("\n## ", 1)[0]


def _normalise(frame: Any) -> dict[str, tuple[float, ...]]:
    """A result as {key: values}, whatever tool made it (pandas or polars frame)."""
    if hasattr(frame, "to_pandas"):
        frame = frame.to_pandas()
    out = {}
    for row in frame.itertuples(index=False):
        out[str(row[0])] = tuple(float(v) for v in row[1:])
    return out


def test_readme_snippets_run_and_the_three_tools_agree(run: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", _section(), re.S)
    assert len(blocks) == 3
    results = []
    for code in blocks:
        assert 'TABLES = "runs/main/tables"' in code
        ns: dict[str, Any] = {}
        exec(compile(code.replace("runs/main/tables", str(run / "tables")), "README", "exec"),
             ns)
        results.append([_normalise(ns[q]) for q in ("q1", "q2", "q3")])
    first = results[0]
    for other in results[1:]:
        for a, b in zip(first, other, strict=True):
            assert a.keys() == b.keys()
            for key in a:
                assert all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9)
                           for x, y in zip(a[key], b[key], strict=True)), key
    q1, q2, q3 = first
    assert set(q1) <= {"random", "calling-station", "tight-aggressive", "maniac", "nit",
                       "regular", "loose-aggressive", "recreational"} and len(q1) >= 5
    assert set(q2) == {s.label for s in Structure} and all(0 < v[0] < 1 for v in q2.values())
    assert {"fold", "call"} <= set(q3)
    # side pots, from the raw log with no export
    log = ds.dataset(sorted(run.glob("log/*/*.parquet")), format="parquet").to_table(
        columns=["structure", "pots"]).to_pylist()
    for label, (share,) in q2.items():
        rows = [r for r in log if r["structure"] == label]
        assert share == pytest.approx(sum(len(r["pots"]) >= 2 for r in rows) / len(rows))


def test_readme_tables_are_generated_from_the_code() -> None:
    text = README.read_text()
    assert describe_tables() in text
    assert describe_codes() in text


# ---------------------------------------------------------------- bad input


def _error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("holdem: error: ") and "\n" not in err and "Traceback" not in err
    return err


def test_bad_input_is_one_line_exit_2(run: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert "no such run folder" in _error(capsys, ["export", str(tmp_path / "nope"),
                                                   "--workers", "0"])
    broken = tmp_path / "broken"
    shutil.copytree(run, broken, ignore=shutil.ignore_patterns("tables"))
    victim = sorted(broken.glob("log/*/*.parquet"))[1]
    victim.write_bytes(victim.read_bytes()[:5000])
    err = _error(capsys, ["export", str(broken), "--workers", "0", "--quiet"])
    assert victim.name in err
    old = tmp_path / "old"
    shutil.copytree(run, old, ignore=shutil.ignore_patterns("tables"))
    first = sorted(old.glob("log/*/*.parquet"))[0]
    pq.write_table(pq.read_table(first).drop_columns(["player_ids"]), first)
    err = _error(capsys, ["export", str(old), "--workers", "0", "--quiet"])
    assert first.name in err and "player_ids" in err
    assert not [p for p in (old / "tables").rglob("*") if p.is_file()
                and "part-" in p.name and p.name.startswith(".")]
    assert "--workers -1" in _error(capsys, ["export", str(run), "--workers", "-1"])
