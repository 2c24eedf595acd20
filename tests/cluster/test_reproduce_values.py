"""Issue 38, point 2: ``holdem certify`` reproduces in the audit's read (``--reproduce values``,
the default) and catches what the byte comparison catches, without encoding a batch again.

Forgeries that change a batch file's bytes and none of its values (every hand, every column,
``digest`` included, as the simulator made them; the manifest's sha256, bytes and rows
restamped, as an attacker would): another codec, a metadata key, statistics on every column
(footer and page headers, all true to the data), other row groups, smaller pages. Each is named
DIFFERS, whether the file stands where this command's writer wrote other bytes (its sha256 is
not the writer's) or was kept from an earlier run (encoded again and compared). The footer
checks name the first four; smaller pages change only the pages' bytes, which the sha256 (the
writer's, or the re-encoded file's) catches."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from audits.runfolder import batch_relpath
from cluster.flows.audit import audit_run
from cluster.flows.reproduce_values import ValuesJob, outcome
from cluster.flows.simulate import (
    COLUMN_COMPRESSION,
    COLUMN_ENCODING,
    DICT_COLUMNS,
    ROW_GROUP_ROWS,
    STATS_COLUMNS,
)
from sim.runspec import RunSpec
from tests.audits.forgery import simulated_run

SPEC = RunSpec(hands=2000, batch_size=1000, seed=9)
F1 = batch_relpath("no-limit", 1)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return simulated_run(tmp_path_factory, SPEC, "values")


def _rewrite(run: Path, rel: str, metadata: dict[bytes, bytes] | None = None,
             **changes: Any) -> None:
    """The batch file written again as the writer writes it (``encode_batch``: the table the
    simulator makes, its key-value metadata) but with ``changes`` to the writer's settings and
    ``metadata`` added; the manifest restamped."""
    from cluster.flows.simulate import (
        META_BATCH,
        META_COUNTS,
        META_RUN_ID,
        META_STRUCTURE,
        simulated_table,
    )
    from sim.config import Structure

    table, _, counts = simulated_table(SPEC, Structure.parse("no-limit"), 1)
    meta = {**(table.schema.metadata or {}), META_RUN_ID: SPEC.fingerprint().encode(),
            META_STRUCTURE: b"no-limit", META_BATCH: b"1",
            META_COUNTS: json.dumps(counts, sort_keys=True).encode(), **(metadata or {})}
    opts: dict[str, Any] = {"compression": COLUMN_COMPRESSION, "write_statistics": STATS_COLUMNS,
                            "use_dictionary": DICT_COLUMNS, "column_encoding": COLUMN_ENCODING,
                            "row_group_size": ROW_GROUP_ROWS, **changes}
    path = run / rel
    pq.write_table(table.replace_schema_metadata(meta), path, **opts)
    data = path.read_bytes()
    manifest = json.loads((run / "manifest.json").read_text())
    for rec in manifest["files"]:
        if rec["path"] == rel:
            rec.update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    manifest["totals"]["bytes"] = sum(int(f["bytes"]) for f in manifest["files"])
    (run / "manifest.json").write_text(json.dumps(manifest, indent=2))


def _reproduce(run: Path, written: dict[str, str]) -> Any:
    """The certify's values reproduction of ``run`` (every planned batch, in the audit's read),
    ``written``: the sha256 the command's writer gave each file it wrote."""
    planned = {batch_relpath(s.label, b): (s.label, b) for s, b in SPEC.plan()}
    job = ValuesJob(SPEC, str(run), planned, written)
    audited = audit_run(str(run), workers=0, progress=False, reproduce=job)
    return audited, outcome(SPEC, str(run), audited.extras, job, workers=0, address=None)


def _shas(run: Path) -> dict[str, str]:
    return {rel: hashlib.sha256((run / rel).read_bytes()).hexdigest()
            for rel in (batch_relpath("no-limit", 0), F1)}


def test_the_writers_settings_rewrite_the_same_bytes(clean: Path, tmp_path: Path) -> None:
    """The forgeries below start from the writer's own settings: with no change they give the
    file's bytes back, so each differs from the clean file by its one change."""
    run = tmp_path / "run"
    shutil.copytree(clean, run)
    before = (run / F1).read_bytes()
    _rewrite(run, F1)
    assert (run / F1).read_bytes() == before


@pytest.mark.parametrize("kept", [False, True], ids=["written", "kept"])
def test_a_clean_run_reproduces(clean: Path, kept: bool) -> None:
    audited, rep = _reproduce(clean, {} if kept else _shas(clean))
    assert next(r for r in audited.results if r.name == "integrity").passed
    assert rep.ok and rep.batches == 2 and rep.hands == 2000, rep.message
    assert "match byte for byte" in rep.message
    assert ("2 kept from an earlier run encoded again" in rep.message) == kept


FORGERIES: dict[str, tuple[dict[str, Any], str | None]] = {
    "zstd": ({"compression": "zstd"}, "its compression is 'ZSTD', holdem simulate writes 'LZ4'"),
    "metadata-key": ({"metadata": {b"holdem.note": b"audited"}}, "holdem.note) is not what "
                     "holdem simulate writes"),
    "statistics": ({"write_statistics": True}, "its is_stats_set is True, holdem simulate "
                   "writes False"),
    "row-groups": ({"row_group_size": 400}, "its row groups hold [400, 400, 200] rows, holdem "
                   "simulate writes [1000]"),
    "pages": ({"data_page_size": 2048}, None),
}


@pytest.mark.parametrize("kept", [False, True], ids=["written", "kept"])
@pytest.mark.parametrize("forgery", list(FORGERIES))
def test_bytes_forged_with_the_same_values_differ(clean: Path, tmp_path: Path, forgery: str,
                                                  kept: bool) -> None:
    run = tmp_path / "run"
    shutil.copytree(clean, run)
    written = {} if kept else _shas(run)  # what the writer wrote, before the forgery
    before = pq.read_table(run / F1)
    changes, why = FORGERIES[forgery]
    _rewrite(run, F1, **changes)
    after = pq.read_table(run / F1)
    assert after.equals(before) and (run / F1).read_bytes() != (clean / F1).read_bytes()
    _, rep = _reproduce(run, written)
    assert not rep.ok and rep.path == F1 and rep.hand_id is None, rep.message
    if why is None:  # the footer is the writer's: only the bytes tell
        assert "its bytes differ from the re-simulated file's though every hand's content " \
               "matches" in rep.message
        assert ("its sha256 is not the one its writer gave it" in rep.message) != kept
    else:
        assert why in rep.message, rep.message


def test_a_forged_hand_is_named_in_the_audits_read(clean: Path, tmp_path: Path) -> None:
    """A value changed (the last hand's rake, digests restamped) names its hand and column."""
    from tests.audits.forgery import restamp_file

    run = tmp_path / "run"
    shutil.copytree(clean, run)
    t = pq.read_table(run / F1)
    rake = t.column("rake").to_pylist()
    rake[-1] += 1
    i = t.schema.get_field_index("rake")
    restamp_file(run, F1, t.set_column(i, t.schema.field(i), pa.array(rake, pa.int64())))
    _, rep = _reproduce(run, {})
    hid = int(t.column("hand_id")[-1].as_py())
    assert not rep.ok and rep.path == F1 and rep.hand_id == hid
    assert rep.message.startswith(f"{F1}: hand {hid} is not what the spec plays")


def test_a_file_read_in_chunks_is_compared_chunk_by_chunk(tmp_path: Path) -> None:
    """A batch larger than the audit's chunk is compared as the reader decodes it, chunk by
    chunk (cut between tables): the clean file agrees, a value in a later chunk is named at its
    row."""
    from audits.io import iter_batches
    from cluster.flows.reproduce_values import Comparison
    from cluster.flows.simulate import run_simulate, simulated_table
    from sim.config import Structure

    spec = RunSpec(hands=1000, batch_size=1000, seed=9, hands_per_table=100)  # 10 tables
    run_simulate(spec, tmp_path / "run", workers=0, progress=False)
    path = str(tmp_path / "run" / batch_relpath("no-limit", 0))
    table = simulated_table(spec, Structure.parse("no-limit"), 0)[0]
    cmp = Comparison(table)
    chunks = list(iter_batches(path, chunk_rows=300, on_table=cmp.chunk, extra=("digest",)))
    assert len(chunks) > 1 and cmp.rows == table.num_rows
    assert cmp.difference() == (None, None)
    rake = table.column("rake").to_pylist()
    rake[-1] += 1
    i = table.schema.get_field_index("rake")
    forged = table.set_column(i, table.schema.field(i), pa.array(rake, pa.int64()))
    cmp = Comparison(forged)
    list(iter_batches(path, chunk_rows=300, on_table=cmp.chunk, extra=("digest",)))
    why, hid = cmp.difference()
    assert hid == int(table.column("hand_id")[-1].as_py()) and why and "column rake" in why
