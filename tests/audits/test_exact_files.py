"""Exact files (issue 23, H4, M1 and L): a batch file whose bytes are bound to the manifest
(forgeries restamp its sha256, bytes and rows) must still be exactly what the simulator writes:
its schema (names, order, types, nullability), its key-value metadata, its footer statistics and
its label values, so that every reader (pandas, DuckDB's filtered scans) sees the hands the
audits saw. Each forgery is made the way an attacker would (``tests/audits/forgery.py``) and
``holdem audit`` fails its ``integrity`` naming the file and the column."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from audits import exactfile, io, logschema
from cluster.cli import main
from cluster.flows.simulate import META_BATCH, META_COUNTS, META_RUN_ID, META_STRUCTURE
from sim.config import Structure
from sim.runspec import RunSpec
from sim.schema import SCHEMA_VERSION, hand_schema
from tests.audits.forgery import RunForger, audit_cli, copy_run, patch_footer_int, simulated_run

SPEC = RunSpec(hands=3000, batch_size=1500, structures=(Structure.NO_LIMIT,), seed=31,
               hands_per_table=5)
REL = "log/no-limit/batch-00001.parquet"  # hand ids 1500..2999


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return simulated_run(tmp_path_factory, SPEC, "exact")


@pytest.fixture()
def run(clean_run: Path, tmp_path: Path) -> Path:
    return copy_run(clean_run, tmp_path)


def integrity_fails(run: Path, capsys: pytest.CaptureFixture[str], *words: str) -> str:
    """``holdem audit`` exits 1, integrity FAILs, and one of its lines names the batch file and
    every word."""
    code, out = audit_cli(run, capsys)
    assert code == 1, out
    assert any(line.startswith("integrity ") and "FAIL" in line for line in out.splitlines()), out
    lines = [ln for ln in out.splitlines() if ln.strip().startswith("integrity:")]
    assert any(str(run / REL) in ln and all(w in ln for w in words) for ln in lines), out
    return out


@pytest.mark.parametrize("version", [3, 4])
def test_the_audits_statement_of_the_log_is_the_simulators(version: int) -> None:
    """``audits.logschema`` (the audits may not import sim) is the simulator's schema of each
    version it writes (the default: ``SCHEMA_VERSION`` in both), field by field, and its keys
    are those ``holdem simulate`` writes."""
    schema = hand_schema(version)
    assert logschema.SCHEMA_VERSION == SCHEMA_VERSION
    want = [pa.field(f.name, f.type, f.nullable) for f in schema]
    got = logschema.expected_schema(version)
    assert [(f.name, str(f.type), f.nullable) for f in got] == [
        (f.name, str(f.type), f.nullable) for f in want]
    assert all(f.type.equals(w.type) for f, w in zip(got, want, strict=True))
    assert int(schema.metadata[logschema.META_SCHEMA_VERSION]) == version
    assert logschema.SIMULATOR_KEYS == {*schema.metadata, META_RUN_ID, META_STRUCTURE,
                                        META_BATCH, META_COUNTS}
    assert logschema.OLD_IMPORT_KEYS == set(schema.metadata)
    assert all(set(f.metadata) == logschema.FIELD_METADATA_KEYS for f in schema)
    expected = io.EXPECTED_V4 if version == 4 else io.EXPECTED
    assert expected == {n: logschema.types(version)[n] for n in expected}


def test_the_audits_statement_of_the_import_columns_is_the_importers() -> None:
    """``audits.logschema.IMPORT_COLUMNS`` (the audits' statement) is ``sim.schema``'s
    IMPORT_FIELDS, in order and type; an imported file's schema is the log's but ``digest``, the
    import columns, ``digest``, with both versions in its metadata; every import column documents
    its unit and meaning."""
    from sim.schema import IMPORT_FIELDS, import_schema

    IMPORT_SCHEMA = import_schema()  # the version the importer writes
    assert [(n, str(t)) for n, t in logschema.IMPORT_COLUMNS] == [
        (n, str(t)) for n, t, _, _ in IMPORT_FIELDS]
    got = logschema.expected_schema(logschema.SCHEMA_VERSION, logschema.IMPORT_NULLABLE, True)
    assert [(f.name, str(f.type), f.nullable) for f in got] == [
        (f.name, str(f.type), f.nullable) for f in IMPORT_SCHEMA]
    assert IMPORT_SCHEMA.names[-1] == "digest"
    assert IMPORT_SCHEMA.names[-1 - len(IMPORT_FIELDS):-1] == list(logschema.IMPORT_COLUMN_NAMES)
    assert set(IMPORT_SCHEMA.metadata) == logschema.IMPORT_KEYS
    assert int(IMPORT_SCHEMA.metadata[logschema.META_IMPORT_VERSION]) == logschema.IMPORT_VERSION
    for f in IMPORT_SCHEMA:
        assert set(f.metadata) == logschema.FIELD_METADATA_KEYS
        assert all(v.strip() for v in f.metadata.values()), f.name


def test_clean_files_pass(clean_run: Path) -> None:
    for rel in (REL, "log/no-limit/batch-00000.parquet"):
        pf = pq.ParquetFile(clean_run / rel)
        where = str(clean_run / rel)
        assert exactfile.schema_problems(pf, where, imported=False) == []
        assert exactfile.statistics_problems(pf, where) == []


def test_pandas_metadata_that_renames_columns_fails(run: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """H4: a ``pandas`` key whose column list swaps the names of ``won`` and ``contributed``:
    ``pd.read_parquet`` (docs/log-schema.md's reader) then shows each seat's contribution as its
    winnings. The values are unchanged (digests hold), the file is restamped."""
    f = RunForger(run, REL)
    df_meta = json.loads(pa.Table.from_pandas(
        pd.DataFrame({c: [0] for c in f.schema.names}), preserve_index=False
    ).schema.metadata[b"pandas"])
    for col in df_meta["columns"]:
        col["name"] = {"won": "contributed", "contributed": "won"}.get(col["name"], col["name"])
    f.write(metadata={b"pandas": json.dumps(df_meta).encode()})
    read = pd.read_parquet(run / REL)
    assert list(np.frombuffer(read["won"].iloc[0], "<i8")) == f.rows[0]["contributed"] != (
        f.rows[0]["won"])
    integrity_fails(run, capsys, "'pandas'", "not the writer's")


def test_footer_statistics_rewritten_fail(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """M1: the footer's max of ``hand_id`` lowered from 2999 to 2000: a filtered read of a hand
    above 2000 (``holdem replay``, DuckDB, pandas filters) skips the file."""
    f = RunForger(run, REL)
    assert patch_footer_int(run / REL, 2999, 2000) >= 1
    f.restamp()
    assert pd.read_parquet(run / REL, filters=[("hand_id", "==", 2500)]).empty  # misled
    integrity_fails(run, capsys, "footer statistics of hand_id", "2000", "2999")


def test_table_id_statistics_rewritten_fail(run: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    f = RunForger(run, REL)
    lo = min(r["table_id"] for r in f.rows)
    assert patch_footer_int(run / REL, lo, lo + 7) >= 1
    f.restamp()
    integrity_fails(run, capsys, "footer statistics of table_id")


@pytest.mark.parametrize("options,what", [
    ({"write_page_index": True}, "a page index"),
    ({"bloom_filter_options": {"hand_id": True}}, "a bloom filter")])
def test_page_index_or_bloom_filter_fails(run: Path, capsys: pytest.CaptureFixture[str],
                                          options: dict, what: str) -> None:
    """Indexes a filtered reader trusts besides the footer statistics (the writer writes
    none, so none is checked against the data): refused."""
    f = RunForger(run, REL)
    f.write(**options)
    integrity_fails(run, capsys, "hand_id", f"carries {what}")


def test_extra_column_fails(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = RunForger(run, REL)
    for r in f.rows:
        r["note"] = 1.5
    f.write(fields=[*f.schema, pa.field("note", pa.float64())])
    integrity_fails(run, capsys, "extra column", "'note'")


def test_columns_reordered_fail(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = RunForger(run, REL)
    fields = list(f.schema)
    i, j = f.schema.get_field_index("won"), f.schema.get_field_index("contributed")
    fields[i], fields[j] = fields[j], fields[i]
    f.write(fields=fields)
    integrity_fails(run, capsys, "out of the documented order", "'won'")


def test_column_declared_nullable_fails(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = RunForger(run, REL)
    f.write(nullable=("rake",))
    integrity_fails(run, capsys, "'rake'", "declared nullable")


def test_column_metadata_not_the_writers_fails(run: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    f = RunForger(run, REL)
    fields = [fl.with_metadata({**fl.metadata, b"pandas_type": b"x"}) if fl.name == "won"
              else fl for fl in f.schema]
    f.write(fields=fields)
    integrity_fails(run, capsys, "'won'", "'pandas_type'")


@pytest.mark.parametrize("column,value", [("format", "casino"), ("structure", "no-limit ")])
def test_unknown_label_values_fail(run: Path, capsys: pytest.CaptureFixture[str], column: str,
                                   value: str) -> None:
    """Every rule the audits pick by ``format`` (``tournament`` or else cash) and ``structure``
    is taken from a documented value only."""
    f = RunForger(run, REL)
    for r in f.rows:
        r[column] = value
    f.write()
    integrity_fails(run, capsys, f"column {column!r}", repr(value))


def test_file_metadata_naming_another_batch_fails(run: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    f = RunForger(run, REL)
    f.write(metadata={META_BATCH: b"0"})
    integrity_fails(run, capsys, "holdem.batch", "'0'")


def test_an_imported_run_passes_and_a_pandas_key_fails_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``holdem phh import`` writes its own exact files (``deck`` nullable, the schema version
    its only key, statistics on every column): they pass, and the same forgery fails them."""
    from cluster.flows.import_histories import import_phh
    from tests.audits.test_phh_import import HANDS

    src = tmp_path / "src"
    src.mkdir()
    for name, text in HANDS.items():
        (src / name).write_text(text)
    imported = tmp_path / "imported"
    assert import_phh([str(src)], imported).imported == 3
    code, out = audit_cli(imported, capsys)
    assert code == 0 and "integrity    PASS" in out, out
    rel = json.loads((imported / "manifest.json").read_text())["files"][0]["path"]
    assert pq.ParquetFile(imported / rel).metadata.row_group(0).column(1).is_stats_set
    f = RunForger(imported, rel)
    f.write(nullable_deck=True, metadata={b"pandas": b"{}"})
    code, out = audit_cli(imported, capsys)
    assert code == 1 and "'pandas'" in out and str(imported / rel) in out, out


def test_rows_out_of_table_order_are_refused(run: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Rows whose tables interleave (every table's hands spread over the file) would make one
    chunk of the audit the whole file: refused in one line, exit 2."""
    f = RunForger(run, REL)
    f.rows = f.rows[::2] + f.rows[1::2]
    f.write()
    code, out = audit_cli(run, capsys)
    assert code == 2, out
    assert out.strip().splitlines() == [
        f"holdem: error: {run / REL}: rows not in table order: table {f.rows[0]['table_id']} "
        f"starts again at row 750 (hand {f.rows[750]['hand_id']}) after other tables' hands; "
        "a batch file holds each table's hands together"]
    with pytest.raises(io.AuditInputError, match="rows not in table order"):  # read in chunks
        list(io.iter_batches(run / REL, chunk_rows=100))


def test_chunks_stay_bounded(clean_run: Path) -> None:
    """A file read in chunks of 100 rows: every chunk holds whole tables and at most 100 rows
    plus one table's hands."""
    sizes = [b.n for b in io.iter_batches(clean_run / REL, chunk_rows=100)]
    assert sum(sizes) == 1500 and max(sizes) <= 100 + SPEC.hands_per_table
    first = next(io.iter_batches(clean_run / REL, chunk_rows=100))
    assert first.file_check is not None
    assert all(b.file_check is None for b in list(io.iter_batches(clean_run / REL, 100))[1:])
    ids = np.concatenate([b.cols["hand_id"] for b in io.iter_batches(clean_run / REL, 100)])
    assert (np.diff(ids) == 1).all()


def test_a_run_of_schema_version_2_is_exact(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A run written before ``player_ids`` (schema version 2: the certified fixture of commit
    dde2c5b, migrated to the log/ layout) is the exact file of its version."""
    import tarfile

    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    with tarfile.open(fixtures / "old_layout_run.tgz") as tar:
        tar.extractall(tmp_path, filter="data")
    old = tmp_path / "oldrun"
    assert main(["migrate", str(old)]) == 0
    code, out = audit_cli(old, capsys)
    assert code == 0 and "integrity    PASS" in out, out
    rel = "log/no-limit/batch-00000.parquet"
    assert pq.ParquetFile(old / rel).schema_arrow.metadata[b"holdem.schema_version"] == b"2"
