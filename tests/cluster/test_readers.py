"""A run folder reads in the tools people use: pyarrow, DuckDB, polars and pandas see the same
hands and the same totals as the log's own reader."""

from __future__ import annotations

from pathlib import Path

import pyarrow.compute as pc
import pyarrow.dataset as ds
import pytest

from cluster.simulate import run_dataset, run_simulate
from sim.runspec import RunSpec


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("readers") / "run"
    run_simulate(RunSpec(hands=3000, batch_size=1000, structures=("no-limit", "fixed-limit"),
                         seed=9, format="tournament"), out, workers=0, progress=False)
    return out


@pytest.fixture(scope="module")
def truth(run: Path) -> dict[str, tuple[int, int, int]]:
    """structure -> (hands, sum of rake, sum over seats of won), by our own reader."""
    t = run_dataset(run).to_table(columns=["structure", "rake", "won"])
    out = {}
    for s in ("fixed-limit", "no-limit"):
        part = t.filter(pc.equal(t["structure"], s))
        won = pc.sum(pc.list_flatten(part["won"])).as_py()
        out[s] = (part.num_rows, pc.sum(part["rake"]).as_py() or 0, won)
    return out


def test_pyarrow_dataset(run: Path, truth: dict[str, tuple[int, int, int]]) -> None:
    t = ds.dataset(run, format="parquet", exclude_invalid_files=True).to_table(
        columns=["structure", "hand_id"])
    assert t.num_rows == sum(v[0] for v in truth.values())


def test_duckdb(run: Path, truth: dict[str, tuple[int, int, int]]) -> None:
    duckdb = pytest.importorskip("duckdb", reason="duckdb is a dev dependency")
    rows = duckdb.sql(f"select structure, count(*), sum(rake), sum(list_sum(won)) "
                      f"from read_parquet('{run}/*/*.parquet') group by 1 order by 1").fetchall()
    assert {r[0]: (r[1], r[2], r[3]) for r in rows} == truth


def test_polars(run: Path, truth: dict[str, tuple[int, int, int]]) -> None:
    pl = pytest.importorskip("polars", reason="polars is a dev dependency")
    df = (pl.scan_parquet(f"{run}/*/*.parquet").group_by("structure")
          .agg(pl.len(), pl.col("rake").sum(), pl.col("won").list.sum().sum()).collect())
    assert {r[0]: (r[1], r[2], r[3]) for r in df.rows()} == truth


def test_pandas(run: Path, truth: dict[str, tuple[int, int, int]]) -> None:
    pd = pytest.importorskip("pandas", reason="pandas is a dev dependency")
    for s, (hands, rake, won) in truth.items():
        df = pd.read_parquet(run / f"structure={s}")
        assert (len(df), int(df["rake"].sum()), int(sum(sum(w) for w in df["won"]))) == (
            hands, rake, won)
