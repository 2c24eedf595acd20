"""Log schema version 4 (issue 38, item 1): the list columns stored as packed little-endian
binary. The same run written in versions 3 and 4 holds the same hands (the same digests), the
audits decode the same arrays from both and give the same verdicts; the audits' statement of
version 4 (``audits.logschema``) is the simulator's (``sim.schema``, ``sim.logv4``); a packed
value that is not whole entries, or a bool byte other than 0 and 1, is refused in one line; one
line of pandas, polars or DuckDB reads a version-4 log."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from audits import exactfile, io, logschema
from cluster.flows.simulate import run_simulate
from sim import logv4
from sim.config import Structure
from sim.runspec import DEFAULT_POPULATION, RunSpec
from sim.schema import HAND_SCHEMA, HAND_SCHEMA_V4, IMPORT_SCHEMA_V4
from tests.audits.forgery import audit_cli, copy_run, restamp_file, restamp_file_bytes

SPEC = RunSpec(hands=4000, batch_size=2000, structures=(Structure.NO_LIMIT, Structure.POT_LIMIT),
               seed=38, **DEFAULT_POPULATION)
REL = "log/no-limit/batch-00001.parquet"
LIST_TYPES = {f.name: f.type for f in HAND_SCHEMA}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    root = tmp_path_factory.mktemp("v4")
    out = {}
    for v in (3, 4):
        run_simulate(SPEC, root / f"v{v}", workers=0, progress=False, log_version=v)
        out[v] = root / f"v{v}"
    return out


def test_the_audits_statement_of_version_4_is_the_simulators() -> None:
    got = logschema.expected_schema(4)
    assert [(f.name, str(f.type), f.nullable) for f in got] == [
        (f.name, str(f.type), f.nullable) for f in HAND_SCHEMA_V4]
    assert HAND_SCHEMA_V4.names == HAND_SCHEMA.names  # same columns, same order
    assert int(HAND_SCHEMA_V4.metadata[logschema.META_SCHEMA_VERSION]) == 4
    assert set(logschema.PACKED_COLUMNS) == set(logschema.PACKED) | {"pots"} == set(
        logv4.ALL_PACKED)
    for name, dt in logschema.PACKED.items():  # each entry's bytes and meaning
        typ = logv4.PACKED_COLUMNS[name]
        assert LIST_TYPES[name].value_type.equals(typ)
        assert np.dtype(dt).itemsize == logv4.width(name)
        assert np.dtype(dt).kind == ("b" if pa.types.is_boolean(typ) else
                                     np.dtype(typ.to_pandas_dtype()).kind)
    assert np.dtype(logschema.POT_RECORD) == logv4.POT_DTYPE
    imported = logschema.expected_schema(4, logschema.IMPORT_NULLABLE, True)
    assert [(f.name, str(f.type), f.nullable) for f in imported] == [
        (f.name, str(f.type), f.nullable) for f in IMPORT_SCHEMA_V4]
    for f in HAND_SCHEMA_V4:  # the documentation states the layout of each packed column
        assert set(f.metadata) == logschema.FIELD_METADATA_KEYS
        assert (b"schema 4: binary" in f.metadata[b"doc"]) == (f.name in logv4.ALL_PACKED)


def test_both_versions_hold_the_same_hands(runs: dict[int, Path]) -> None:
    """Per file: the same digests (stored and recomputed), the version-4 table is the version-3
    table packed, and unpacked it is the version-3 table again."""
    from sim.digest import hand_digests

    m3, m4 = (json.loads((runs[v] / "manifest.json").read_text()) for v in (3, 4))
    assert (m3["schema_version"], m4["schema_version"]) == (3, 4)
    assert [f["path"] for f in m3["files"]] == [f["path"] for f in m4["files"]]
    for rec in m3["files"]:
        t3, t4 = (pq.read_table(runs[v] / rec["path"]) for v in (3, 4))
        assert t4.schema.equals(HAND_SCHEMA_V4, check_metadata=False)
        assert t3.column("digest").equals(t4.column("digest"))
        assert np.array_equal(hand_digests(t4), t4.column("digest").to_numpy())
        assert logv4.to_v4(t3.drop(["digest"])).equals(t4.drop(["digest"]))
        assert logv4.to_v3(t4).equals(t3)


def test_the_audits_read_the_same_arrays_from_both(runs: dict[int, Path]) -> None:
    for f3, f4 in zip(io.run_files(runs[3]), io.run_files(runs[4]), strict=True):
        b3, b4 = io.read_batch(f3), io.read_batch(f4)
        assert b3.seat.keys() == b4.seat.keys() and b3.var.keys() == b4.var.keys()
        for name in b3.seat:
            assert b3.seat[name].dtype == b4.seat[name].dtype, name
            assert np.array_equal(b3.seat[name], b4.seat[name]), name
        for name in b3.var:
            for x, y in zip(b3.var[name], b4.var[name], strict=True):
                assert x.dtype == y.dtype and np.array_equal(x, y), name
        assert np.array_equal(b3.hole, b4.hole)
        assert np.array_equal(b3.pot_off, b4.pot_off)
        for name in b3.pots:
            assert np.array_equal(b3.pots[name], b4.pots[name]), name
        for name in b3.act:
            assert np.array_equal(b3.act[name], b4.act[name]), name


def _verdicts(run: Path) -> dict[str, object]:
    d = json.loads((run / "audit.json").read_text())
    d.pop("inputs"), d.pop("run"), d.pop("seconds"), d.pop("hands_per_second"), d.pop("created")
    d.pop("provenance")
    return d


def test_the_same_run_in_both_versions_audits_to_identical_results(
        runs: dict[int, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = {}
    for v in (3, 4):
        run = copy_run(runs[v], tmp_path / f"v{v}")
        code, out = audit_cli(run, capsys)
        assert code == 0, out
        results[v] = _verdicts(run)
    assert results[3] == results[4]
    pf = pq.ParquetFile(runs[4] / REL)
    assert exactfile.schema_problems(pf, str(runs[4] / REL), imported=False) == []


def _forged(run: Path, name: str, edit: object) -> None:
    """Rewrite one packed column of the batch file (digests recomputed where they can be,
    manifest restamped: a forger's consistent file)."""
    t = pq.read_table(run / REL)
    values = t.column(name).combine_chunks().to_pylist()
    values[5] = edit(values[5])  # type: ignore[operator]
    i = t.schema.get_field_index(name)
    t = t.set_column(i, t.schema.field(i), pa.array(values, pa.binary()))
    if name != "pots":
        restamp_file(run, REL, t)
        return
    with pytest.raises(ValueError, match="pots: row 5"):  # no digest: the stored one kept
        restamp_file(run, REL, t)
    pq.write_table(t, run / REL, compression="zstd")
    restamp_file_bytes(run, REL)


@pytest.mark.parametrize(("name", "edit", "words"), [
    ("stacks_end", lambda v: v[:-3], ["'stacks_end'", "not whole 8-byte entries"]),
    ("folded", lambda v: b"\x02" + v[1:], ["'folded'", "other than 0 or 1"]),
    ("pots", lambda v: v + b"\x00", ["'pots'", "not whole 20-byte entries"]),
])
def test_a_packed_value_that_is_not_whole_entries_is_refused(
        runs: dict[int, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        name: str, edit: object, words: list[str]) -> None:
    run = copy_run(runs[4], tmp_path)
    _forged(run, name, edit)
    code, out = audit_cli(run, capsys)
    assert code == 2, out
    line = out.strip().splitlines()[-1]
    assert str(run / REL) in line and all(w in line for w in words), out


def test_one_line_reads_of_a_version_4_log(runs: dict[int, Path]) -> None:
    """pandas, polars and DuckDB read the log folder in one line each; a packed value reads as
    the version-3 list in one numpy call (docs/log-schema.md)."""
    import duckdb
    import pandas as pd
    import polars as pl

    log = runs[4] / "log"
    want = pq.read_table(runs[3] / "log" / "no-limit").to_pandas()
    df = pd.read_parquet(log / "no-limit")
    assert len(df) == len(want)
    for i in (0, 17, len(df) - 1):
        for name in ("stacks_end", "won", "folded", "board", "hole_cards"):
            dt = logschema.PACKED[name]
            assert list(np.frombuffer(df[name].iloc[i], dt)) == list(want[name].iloc[i]), name
        pots = np.frombuffer(df["pots"].iloc[i], logv4.POT_DTYPE)
        assert list(pots["amount"]) == [p["amount"] for p in want["pots"].iloc[i]]
    pl_df = pl.read_parquet(log / "no-limit" / "*.parquet")
    assert pl_df.height == len(df) and pl_df["stacks_end"].dtype == pl.Binary
    n = duckdb.sql(f"select count(*) from '{log}/*/*.parquet' where octet_length(stacks_end) "
                   "= 8 * n_seats").fetchall()
    assert n == [(SPEC.hands * 2,)]


def test_every_reader_reads_version_4_as_version_3(
        runs: dict[int, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``holdem export`` (the tidy tables, the per-seat reshaping), ``replay``, ``diff`` (by
    digests, and ``--stat``), ``export --phh`` and the re-simulation of ``reproduce`` read a
    version-4 run as its version-3 twin."""
    from cluster.cli import main
    from cluster.flows.reproduce import reproduce_run

    out: dict[int, dict[str, object]] = {}
    for v in (3, 4):
        run = copy_run(runs[v], tmp_path / f"v{v}")
        assert main(["export", str(run), "--quiet"]) == 0, capsys.readouterr()
        capsys.readouterr()
        tables = {name: pq.read_table(run / "tables" / name)
                  for name in ("hands", "seats", "actions", "pots", "tournaments")}
        assert main(["replay", str(run), "--hand", "1234"]) == 0
        replay = capsys.readouterr().out
        assert main(["export", str(run), "--phh", "--out", str(tmp_path / f"phh{v}"),
                     "--quiet"]) == 0, capsys.readouterr()
        capsys.readouterr()
        phh = {p.name: p.read_text() for p in sorted((tmp_path / f"phh{v}").rglob("*.phh*"))}
        out[v] = {"replay": replay, "phh": phh,
                  **{n: t.replace_schema_metadata(None) for n, t in tables.items()}}
        assert reproduce_run(str(run)).ok
    for key in out[3]:
        a, b = out[3][key], out[4][key]
        assert (a.equals(b) if isinstance(a, pa.Table) else a == b), key
    assert main(["diff", str(runs[3]), str(runs[4])]) == 0
    assert "IDENTICAL" in capsys.readouterr().out
    assert main(["diff", str(runs[3]), str(runs[4]), "--stat"]) == 0, capsys.readouterr()
