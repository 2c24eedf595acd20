"""The log documents itself: every column of the Parquet log carries its unit (or the code table
its values come from) and its meaning in the field metadata, and the log table of docs/log-schema.md
is the one the schema generates."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from cluster.flows.simulate import run_simulate
from sim.runspec import RunSpec
from sim.schema import HAND_SCHEMA, describe_schema

SCHEMA_DOC = Path(__file__).resolve().parents[2] / "docs" / "log-schema.md"


def test_every_log_column_states_its_unit_and_meaning(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run_simulate(RunSpec(hands=50, batch_size=50, structures=("no-limit",), seed=1), run,
                 workers=0, progress=False)
    schema = pq.read_schema(next((run / "log").rglob("*.parquet")))
    assert schema.names == HAND_SCHEMA.names
    for f in schema:  # as written in the file, not only as declared
        md = f.metadata or {}
        assert md.get(b"unit", b"").strip() and md.get(b"doc", b"").strip(), f.name
    codes = {f.name: f.metadata[b"unit"].decode() for f in schema}
    for name in ("deck", "hole_cards", "board", "burns"):
        assert "code table: cards" in codes[name]
    assert "code table: policies" in codes["policy"]
    assert "code table: actions" in codes["actions"] and "streets" in codes["actions"]
    assert "hand categories" in codes["showdown_ranks"]


def test_docs_log_table_is_generated_from_the_schema() -> None:
    assert describe_schema() in SCHEMA_DOC.read_text()
    assert describe_schema(imported=True) in SCHEMA_DOC.read_text()
