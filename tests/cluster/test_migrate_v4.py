"""``holdem migrate RUN --to 4`` (issue 38, item 1): a run's log rewritten in schema version 4,
every hand unchanged: the committed old fixture (schema 2, old layout) and a fresh schema-3
run convert to files that audit to the same verdicts, with the same digests (a schema-2 file's
``player_ids`` by their rule); a simulated run's converted files are the bytes ``holdem simulate
--log-version 4`` writes; a file that is not the run's as recorded is refused before anything
changes; an interrupted conversion finishes when run again; a folder that is no run is refused in
one line."""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from cluster.cli import main
from cluster.flows.migrate import migrate_log
from cluster.flows.simulate import run_simulate
from sim.runspec import DEFAULT_POPULATION, RunSpec
from sim.schema import HAND_SCHEMA_V4

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SPEC = RunSpec(hands=2000, batch_size=1000, structures=("no-limit", "fixed-limit"), seed=9,
               **DEFAULT_POPULATION)


@pytest.fixture(scope="module")
def v3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("m4") / "v3"
    run_simulate(SPEC, run, workers=0, progress=False, log_version=3)
    return run


def _verdicts(run: Path) -> dict[str, object]:
    """Each audit's verdict and counts (``audit.json``'s results, the run's bytes aside)."""
    d = json.loads((run / "audit.json").read_text())
    return {a["name"]: (a["passed"], a["applicable"], a["hands_checked"], a["failures"],
                        a["p_value"]) for a in d["results"]}


def _audit(run: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["audit", str(run), "--workers", "0", "--quiet"]) == 0, capsys.readouterr()
    capsys.readouterr()
    return _verdicts(run)


def _digests(run: Path) -> dict[str, np.ndarray]:
    m = json.loads((run / "manifest.json").read_text())
    return {f["path"]: pq.read_table(run / f["path"], columns=["digest"]).column(
        "digest").to_numpy() for f in m["files"]}


def test_the_old_fixture_converts_and_audits_the_same(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Schema 2 in the old layout (commit dde2c5b): moved, converted, every verdict as before;
    its ``player_ids``, derived by their rule, pass the stakes audit (which a schema-2 log
    skipped)."""
    with tarfile.open(FIXTURES / "old_layout_run.tgz") as tar:
        tar.extractall(tmp_path, filter="data")
    run = tmp_path / "oldrun"
    before = json.loads((run / "audit.json").read_text())
    old_digests = {f"log/no-limit/{p.name}": pq.read_table(p, columns=["digest"]).column(
        "digest").to_numpy() for p in sorted((run / "structure=no-limit").glob("*.parquet"))}
    assert main(["migrate", str(run), "--to", "4"]) == 0
    out = capsys.readouterr().out
    assert "2 batch files in log schema version 4" in out and "holdem audit" in out
    m = json.loads((run / "manifest.json").read_text())
    assert m["schema_version"] == 4 and "migrating" not in m
    for rel, d in _digests(run).items():
        assert np.array_equal(d, old_digests[rel])
        t = pq.read_table(run / rel)
        assert t.schema.equals(HAND_SCHEMA_V4, check_metadata=False)
        assert t.schema.metadata[b"holdem.schema_version"] == b"4"
    after = _audit(run, capsys)
    for a in before["results"]:  # the audits of its day: the same verdicts on the same hands
        assert after[a["name"]][:4] == (a["passed"], a["applicable"], a["hands_checked"],
                                        a["failures"]), a["name"]
    results = json.loads((run / "audit.json").read_text())["results"]
    stakes = next(a for a in results if a["name"] == "stakes")
    assert stakes["passed"] and "player_ids absent" not in stakes["details"].get("note", "")


def test_a_fresh_run_converts_to_the_bytes_simulate_writes(
        v3: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    shutil.copytree(v3, run)
    before = _audit(run, capsys)
    assert migrate_log(run, 4) == 4
    direct = tmp_path / "direct"
    run_simulate(SPEC, direct, workers=0, progress=False, log_version=4)
    m, d = (json.loads((r / "manifest.json").read_text()) for r in (run, direct))
    assert [(f["path"], f["sha256"], f["bytes"]) for f in m["files"]] == [
        (f["path"], f["sha256"], f["bytes"]) for f in d["files"]]
    assert m["totals"]["bytes"] == d["totals"]["bytes"] and m["compression"] == d["compression"]
    assert _audit(run, capsys) == before


def test_a_file_not_as_recorded_is_refused_before_anything_changes(
        v3: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    shutil.copytree(v3, run)
    m = json.loads((run / "manifest.json").read_text())
    last = run / m["files"][-1]["path"]
    data = bytearray(last.read_bytes())
    data[len(data) // 2] ^= 1
    last.write_bytes(bytes(data))
    listing = sorted(p.name for p in run.rglob("*"))
    manifest = (run / "manifest.json").read_bytes()
    assert main(["migrate", str(run), "--to", "4"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(last) in err and "sha256 does not match" in err
    assert sorted(p.name for p in run.rglob("*")) == listing  # no temporary left, none renamed
    assert (run / "manifest.json").read_bytes() == manifest


def test_an_interrupted_conversion_finishes_when_run_again(
        v3: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Killed after the first rename: the manifest records the new bytes (``migrating``), so the
    command run again knows the converted file and converts the rest."""
    from cluster.flows import migrate

    run = tmp_path / "run"
    shutil.copytree(v3, run)
    real_rename = migrate._rename
    moves: list[str] = []

    def rename(folder: object, tmp: str, rel: str) -> None:
        if moves:
            raise KeyboardInterrupt  # the process killed
        moves.append(rel)
        real_rename(folder, tmp, rel)  # type: ignore[arg-type]

    monkeypatch.setattr(migrate, "_rename", rename)
    with pytest.raises(KeyboardInterrupt):
        migrate_log(run, 4)
    monkeypatch.undo()
    assert json.loads((run / "manifest.json").read_text())["schema_version"] == 3
    assert migrate_log(run, 4) == 4
    assert not [p for p in run.rglob(".*")]  # the leftovers of the first run removed
    direct = tmp_path / "direct"
    run_simulate(SPEC, direct, workers=0, progress=False, log_version=4)
    m, d = (json.loads((r / "manifest.json").read_text()) for r in (run, direct))
    assert [f["sha256"] for f in m["files"]] == [f["sha256"] for f in d["files"]]


def test_a_folder_that_is_no_run_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "notes.txt").write_text("x")
    assert main(["migrate", str(tmp_path / "junk"), "--to", "4"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (f"holdem: error: {tmp_path / 'junk'}: not a run folder (no "
                           "manifest.json): nothing to migrate")
