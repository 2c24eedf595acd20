"""A run folder's log (``RUN/log``, ``audits.runfolder``) reads in the tools people use, with
the one-liners the README gives and no other argument: pyarrow, DuckDB, polars and pandas see the
same hands and the same totals (a dictionary-encoded string column, list columns) as the log's
own reader, with the run's JSON files beside the log."""

from __future__ import annotations

from pathlib import Path

import pyarrow.compute as pc
import pyarrow.dataset as ds
import pytest

from audits.runfolder import LOG_DIR
from cluster.flows.simulate import run_dataset, run_simulate
from sim.runspec import RunSpec


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("readers") / "run"
    run_simulate(RunSpec(hands=3000, batch_size=1000, structures=("no-limit", "fixed-limit"),
                         seed=9, format="tournament"), out, workers=0, progress=False)
    (out / "audit.json").write_text("{}")  # the run's JSON files stay beside the log
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
    t = ds.dataset(run / LOG_DIR, format="parquet").to_table(columns=["structure", "hand_id"])
    assert t.num_rows == sum(v[0] for v in truth.values())


def test_duckdb(run: Path, truth: dict[str, tuple[int, int, int]]) -> None:
    duckdb = pytest.importorskip("duckdb", reason="duckdb is a dev dependency")
    rows = duckdb.sql(f"select structure, count(*), sum(rake), sum(list_sum(won)) from "
                      f"read_parquet('{run}/log/**/*.parquet', hive_partitioning=true) "
                      "group by 1 order by 1").fetchall()
    assert {r[0]: (r[1], r[2], r[3]) for r in rows} == truth


def test_polars(run: Path, truth: dict[str, tuple[int, int, int]]) -> None:
    pl = pytest.importorskip("polars", reason="polars is a dev dependency")
    df = (pl.scan_parquet(f"{run}/log/**/*.parquet").group_by("structure")
          .agg(pl.len(), pl.col("rake").sum(), pl.col("won").list.sum().sum()).collect())
    assert {r[0]: (r[1], r[2], r[3]) for r in df.rows()} == truth


def test_pandas(run: Path, truth: dict[str, tuple[int, int, int]]) -> None:
    pd = pytest.importorskip("pandas", reason="pandas is a dev dependency")
    df = pd.read_parquet(run / LOG_DIR)
    assert len(df) == sum(v[0] for v in truth.values())
    for s, (hands, rake, won) in truth.items():
        part = df[df["structure"] == s]
        assert (len(part), int(part["rake"].sum()), int(sum(sum(w) for w in part["won"]))) == (
            hands, rake, won)


def test_every_codec_reads(run: Path) -> None:
    """The log's codecs (LZ4_RAW; ``deck`` and ``digest`` uncompressed): DuckDB and polars read
    the packed blobs and the nested columns to the same totals as pyarrow."""
    duckdb = pytest.importorskip("duckdb", reason="duckdb is a dev dependency")
    pl = pytest.importorskip("polars", reason="polars is a dev dependency")
    t = run_dataset(run).to_table(columns=["actions", "deck", "digest", "occupied", "pots"])
    want = (pc.sum(pc.binary_length(t["actions"])).as_py(),
            pc.sum(pc.binary_length(t["deck"])).as_py(),
            pc.sum(pc.list_flatten(t["occupied"]).cast("int64")).as_py(),
            pc.sum(pc.list_value_length(t["pots"])).as_py(),
            len(set(t["digest"].to_pylist())))
    got = duckdb.sql(
        "select sum(octet_length(actions)), sum(octet_length(deck)), "
        "sum(list_sum(list_transform(occupied, lambda x: x::int))), sum(len(pots)), "
        f"count(distinct digest) from read_parquet('{run}/log/**/*.parquet')").fetchall()[0]
    assert got == want
    df = pl.read_parquet(f"{run}/log/**/*.parquet")
    assert df.select(pl.col("actions").bin.size().sum(), pl.col("deck").bin.size().sum(),
                     pl.col("occupied").list.sum().sum(), pl.col("pots").list.len().sum(),
                     pl.col("digest").n_unique()).rows()[0] == want
