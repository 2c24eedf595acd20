"""A run folder of the old layout (``structure=<label>/batch-<N>.parquet``, before issue 15):
every command says in one line how to convert it (exit 2), and ``holdem migrate`` converts it
into a folder every command reads, with the same bytes."""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

import pytest

from audits.runfolder import LAYOUT, RunFolder, parse_batch_relpath
from cluster.cli import main
from cluster.flows.simulate import run_simulate
from sim.runspec import RunSpec

SPEC = RunSpec(hands=600, batch_size=300, structures=("no-limit", "pot-limit"), seed=4)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("migrate") / "run"
    run_simulate(SPEC, run, workers=0, progress=False)
    return run


def _to_old_layout(src: Path, dst: Path) -> Path:
    """``src`` as the previous holdem wrote it: structure=<label>/ folders, old manifest paths."""
    shutil.copytree(src, dst)
    folder = RunFolder.open(dst)
    for rel in folder.batch_relpaths():
        label, b = parse_batch_relpath(rel)  # type: ignore[misc]
        old = dst / f"structure={label}" / f"batch-{b:05d}.parquet"
        old.parent.mkdir(exist_ok=True)
        (dst / rel).rename(old)
    shutil.rmtree(dst / "log")
    m = json.loads((dst / "manifest.json").read_text())
    for f in m["files"]:
        f["path"] = f"structure={f['structure']}/batch-{f['batch']:05d}.parquet"
    m["layout"] = "structure=<label>/batch-<index:05d>.parquet"
    (dst / "manifest.json").write_text(json.dumps(m, indent=2))
    return dst


def test_every_command_names_the_old_layout(fresh: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    old = _to_old_layout(fresh, tmp_path / "old")
    line = (f"holdem: error: {old} uses the old layout (structure=no-limit/...); convert it "
            f"with `holdem migrate {old}`")
    phh = tmp_path / "hand.phh"
    phh.write_text('variant = "NT"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\n'
                   'starting_stacks = [200, 150]\nactions = ["d dh p1 AsAh", "d dh p2 ????", '
                   '"p2 f"]\n')
    commands = [
        ["simulate", "--hands", "600", "--batch-size", "300", "--structure", "no-limit",
         "--seed", "4", "--workers", "0", "--quiet", "--population", "classic",
         "--out", str(old)],
        ["audit", str(old), "--workers", "0", "--quiet"],
        ["diff", str(fresh), str(old)],
        ["diff", "--stat", str(old), str(fresh)],
        ["replay", str(old), "--hand", "0"],
        ["report", str(old)],
        ["phh", "import", str(phh), "--out", str(old)],
    ]
    for argv in commands:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [line], (argv, err)


def test_migrate_converts_and_keeps_the_bytes(fresh: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    old = _to_old_layout(fresh, tmp_path / "old")
    assert main(["migrate", str(old)]) == 0
    assert "4 batch files moved" in capsys.readouterr().out
    a = json.loads((fresh / "manifest.json").read_text())
    b = json.loads((old / "manifest.json").read_text())
    assert b["layout"] == LAYOUT and a["files"] == b["files"]  # paths, sha256, bytes
    assert RunFolder.open(old).listing() == RunFolder.open(fresh).listing()
    assert main(["diff", str(fresh), str(old)]) == 0
    assert "IDENTICAL" in capsys.readouterr().out
    assert main(["audit", str(old), "--workers", "0", "--quiet", "--only", "chips"]) == 0
    # a second conversion has nothing to do: one line, exit 2
    capsys.readouterr()
    assert main(["migrate", str(old)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nothing to convert" in err[0]


def test_an_interrupted_migration_gives_the_hint_and_migrate_finishes(
        fresh: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    old = _to_old_layout(fresh, tmp_path / "old")

    def interrupted(self: RunFolder, d: dict) -> dict:
        raise KeyboardInterrupt  # between the moves and the manifest

    with monkeypatch.context() as m:
        m.setattr(RunFolder, "write_manifest", interrupted)
        assert main(["migrate", str(old)]) != 0  # the CLI says "interrupted"
    assert (old / "log").is_dir() and not list(old.glob("structure=*/*.parquet"))
    line = (f"holdem: error: {old} uses the old layout (structure=no-limit/...); convert it "
            f"with `holdem migrate {old}`")
    capsys.readouterr()
    for argv in (["audit", str(old), "--workers", "0", "--quiet"],
                 ["export", str(old), "--workers", "0", "--quiet"],
                 ["diff", str(fresh), str(old)]):
        assert main(argv) == 2, argv
        assert capsys.readouterr().err.strip().splitlines() == [line], argv
    assert main(["migrate", str(old)]) == 0
    assert json.loads((old / "manifest.json").read_text())["files"] == json.loads(
        (fresh / "manifest.json").read_text())["files"]
    assert RunFolder.open(old).listing() == RunFolder.open(fresh).listing()
    assert not list(old.glob("structure=*"))  # the emptied old folders removed at last


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_verify_reads_a_certificate_issued_before_the_log_layout(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run certified and signed by holdem before the log/ layout (commit dde2c5b: 40 hands in
    structure=no-limit/) still verifies as it was received; a byte changed in a batch file is a
    MISMATCH naming it (verify compares the paths the certificate records)."""
    with tarfile.open(FIXTURES / "old_layout_run.tgz") as tar:
        tar.extractall(tmp_path, filter="data")
    run, pub = tmp_path / "oldrun", str(FIXTURES / "old_layout_run.pub")
    assert (run / "structure=no-limit" / "batch-00000.parquet").is_file()
    assert main(["verify", str(run), "--public-key", pub]) == 0
    out = capsys.readouterr().out
    assert out.startswith("VERIFIED: the certificate of 40 hands (verdict: PASS")
    assert "signature valid" in out
    batch = run / "structure=no-limit" / "batch-00001.parquet"
    data = bytearray(batch.read_bytes())
    data[len(data) // 2] ^= 1
    batch.write_bytes(bytes(data))
    assert main(["verify", str(run), "--public-key", pub]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH" in out and "structure=no-limit/batch-00001.parquet" in out


def test_regress_converts_a_baseline_of_the_old_layout(fresh: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """`holdem regress --baseline <a commit before the log/ layout>`: the baseline engine writes
    structure=<label>/ folders; regress converts its (temporary) run folder so the runs compare."""
    from cluster.regression.regress import _to_current_layout

    old = _to_old_layout(fresh, tmp_path / "baseline")
    said: list[str] = []
    _to_current_layout(old, said.append)
    assert len(said) == 1 and "4 batch files moved" in said[0]
    assert main(["diff", str(old), str(fresh)]) == 0
    assert "IDENTICAL" in capsys.readouterr().out
    _to_current_layout(fresh, said.append)  # a folder of the current layout is left alone
    assert len(said) == 1
