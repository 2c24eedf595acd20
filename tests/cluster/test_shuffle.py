"""``holdem shuffle``: the game's decks in a deck-only log, certified; resume and refusals;
planted faults caught at docs/shuffle.md's deck counts; ``holdem shuffle audit`` of other decks."""

from __future__ import annotations

import hashlib
import html
import json
from pathlib import Path

import numpy as np
import pytest

from audits import shuffles
from audits.decklog import write_csv
from audits.runfolder import RunFolder, deck_relpath
from cluster.cli import main
from cluster.flows.shuffle import ShuffleSpec, run_shuffle
from sim.rng import hand_deck

CLI = ["shuffle", "--decks", "25000", "--batch-size", "10000", "--seed", "5", "--quiet"]


def _cert(run: Path) -> dict:
    return json.loads((run / "certificate.json").read_text())


def _tests(cert: dict) -> dict:
    return {t["name"]: t for t in cert["tests"]}


def _files(run: Path) -> dict[str, str]:
    return {str(p.relative_to(run)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in (run / rel for rel in RunFolder.open(run).batch_relpaths())}


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("shuffle") / "run"
    assert main([*CLI, "--out", str(run), "--workers", "0"]) == 0
    return run


def test_deck_log_is_the_game_decks_and_certified(baseline: Path) -> None:
    import pyarrow.parquet as pq

    m = json.loads((baseline / "manifest.json").read_text())
    assert m["status"] == "complete" and m["totals"]["decks"] == 25_000
    assert [f["decks"] for f in m["files"]] == [10_000, 10_000, 5_000]
    for f in m["files"]:
        assert hashlib.sha256((baseline / f["path"]).read_bytes()).hexdigest() == f["sha256"]
    t = pq.read_table(baseline / deck_relpath(1))
    assert t.schema.names == ["hand_id", "deck"]
    for row in (0, 999, 5_432):
        d = t.column("hand_id")[row].as_py()
        deck = np.frombuffer(t.column("deck")[row].as_py(), np.uint8)
        assert (deck == hand_deck(5, d // 1000, d % 1000)).all()
    cert = _cert(baseline)
    assert cert["verdict"] == "PASS" and cert["decks"] == 25_000 and not cert["limitations"]
    tests = _tests(cert)
    assert tests["rederivation"]["applicable"] and tests["rederivation"]["decks"] == 25_000
    assert tests["uniformity"]["passed"]
    assert "With 25,000 decks" in cert["power"]["sentence"]
    assert [f["sha256"] for f in cert["source"]["files"]] == [f["sha256"] for f in m["files"]]
    assert "Shuffle certificate: PASS" in (baseline / "report.html").read_text()
    assert not (baseline / ".keys").exists()


def test_ray_writes_the_same_files(baseline: Path, tmp_path: Path, ray_local: None) -> None:
    assert main([*CLI, "--out", str(tmp_path / "r")]) == 0
    assert _files(tmp_path / "r") == _files(baseline)


def test_resume_keeps_good_files_and_redoes_the_rest(baseline: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    import shutil

    run = tmp_path / "run"
    shutil.copytree(baseline, run)
    (run / deck_relpath(0)).unlink()
    p = run / deck_relpath(2)
    p.write_bytes(p.read_bytes()[:-1] + b"x")
    (run / "log/decks/.batch-00001.parquet.tmp-0123456789ab").write_bytes(b"half")
    assert main([*CLI, "--out", str(run), "--workers", "0"]) == 0
    assert "batch-00002.parquet: not as the manifest records it" in capsys.readouterr().out
    assert _files(run) == _files(baseline)
    assert json.loads((run / "manifest.json").read_text())["timings"]["batches_reused"] == 1


def test_refusals(baseline: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    import shutil

    run = tmp_path / "run"
    shutil.copytree(baseline, run)
    assert main([*CLI[:-3], "--seed", "6", "--quiet", "--out", str(run), "--workers", "0"]) == 2
    assert "made with a different config: field seed differs (5 vs 6)" in capsys.readouterr().err
    (run / "stray.txt").write_text("x")
    assert main([*CLI, "--out", str(run), "--workers", "0"]) == 2
    assert "unexpected file stray.txt" in capsys.readouterr().err
    assert main(["shuffle", "--decks", "0", "--out", str(tmp_path / "z")]) == 2


def test_keep_decks_false_and_chacha(tmp_path: Path) -> None:
    cert = run_shuffle(ShuffleSpec(decks=20_000, batch_size=5_000, keep_decks=False),
                       tmp_path / "a", workers=0, progress=False)
    assert cert["verdict"] == "PASS" and not (tmp_path / "a/decks").exists()
    assert any("not kept" in t for t in cert["limitations"])
    assert _tests(cert)["rederivation"]["applicable"]
    cert = run_shuffle(ShuffleSpec(decks=20_000, batch_size=5_000, generator="os-chacha20"),
                       tmp_path / "b", workers=0, progress=False)
    assert cert["verdict"] == "PASS" and not _tests(cert)["rederivation"]["applicable"]
    assert any("not bound to keys (os-chacha20" in t for t in cert["limitations"])


# docs/shuffle.md's calibration table: ASF <= 1,000 decks, naive swap <= 5,000, 8-bit modulo
# <= 20,000, 32-bit seed space <= 10,000,000
@pytest.mark.parametrize("fault,decks", [("asf-shuffle", 1_000), ("naive-shuffle", 5_000),
                                         ("mod8-shuffle", 20_000)])
def test_planted_faults_fail_the_battery(tmp_path: Path, fault: str, decks: int) -> None:
    cert = run_shuffle(ShuffleSpec(decks=decks, batch_size=decks, inject=fault,
                                   keep_decks=False), tmp_path / "f", workers=0, progress=False)
    assert cert["verdict"] == "FAIL" and cert["fault_injected"] == fault
    assert not _tests(cert)["uniformity"]["passed"]  # the battery itself, not only the keys
    # the verdict and its reason in one sentence, as a run's certificate words it, on the page
    assert cert["verdict_text"].startswith("FAIL: uniformity: failed tests "), cert["verdict_text"]
    assert "Holm p = " in cert["verdict_text"]
    page = (tmp_path / "f" / "report.html").read_text()
    assert f"<b>Verdict:</b> {html.escape(cert['verdict_text'])}" in page


@pytest.mark.slow
def test_seed32_caught_at_ten_million(tmp_path: Path) -> None:
    cert = run_shuffle(ShuffleSpec(decks=10_000_000, batch_size=2_000_000, inject="seed32",
                                   keep_decks=False), tmp_path / "f", workers=0, progress=False)
    t = _tests(cert)
    assert not t["uniformity"]["passed"] and not t["uniformity.duplicate_decks"]["passed"]


def test_audit_decks_from_elsewhere(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    # (seed 3's decks, dealt as hands to 8 seats, gave seat 5 a 169-class chi-square of p 7e-6:
    # a false alarm of the battery at its rate (Holm p 0.008); this test is of the files' path)
    rng = np.random.default_rng(4)
    write_csv(shuffles.fair_fisher_yates(6_000, rng), tmp_path / "fair.csv", cards=True)
    write_csv(shuffles.fair_fisher_yates(4_000, rng), tmp_path / "fair2.csv")
    out = tmp_path / "cert"
    assert main(["shuffle", "audit", str(tmp_path / "fair.csv"), str(tmp_path / "fair2.csv"),
                 "--out", str(out), "--quiet"]) == 0
    cert = _cert(out)
    assert cert["decks"] == 10_000 and cert["source"]["kind"] == "decks from another system"
    assert [f["decks"] for f in cert["source"]["files"]] == [6_000, 4_000]
    assert any("not bound to keys" in t for t in cert["limitations"])
    write_csv(shuffles.asf_off_by_one(2_000, rng), tmp_path / "asf.csv")
    assert main(["shuffle", "audit", str(tmp_path / "asf.csv"), "--out", str(tmp_path / "c2"),
                 "--quiet"]) == 1
    bad = shuffles.fair_fisher_yates(10, rng)
    bad[6, 0] = bad[6, 1]
    write_csv(bad, tmp_path / "bad.csv")
    capsys.readouterr()
    assert main(["shuffle", "audit", str(tmp_path / "bad.csv"), "--out",
                 str(tmp_path / "c3"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "bad.csv: row 7: card" in err and "appears twice" in err
    assert not (tmp_path / "c3" / "certificate.json").exists()
