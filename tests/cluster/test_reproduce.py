"""`holdem verify RUN` (reproduction is its default, `--reproduce` its alias): the log
re-simulated from its spec. It catches what the audits cannot see from the log alone: a hand
moved to a made-up table at the end of a batch (dealt that table's key, every column consistent,
the manifest restamped)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cluster.cli import main
from sim.rng import hand_deck
from tests.audits.forgery import RunForger, live_seats, replay_with_deck


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("repro") / "run"
    assert main(["certify", "--hands", "6000", "--structure", "no-limit", "--population",
                 "classic", "--batch-size", "3000", "--workers", "0", "--quiet",
                 "--out", str(out)]) == 0
    return out


def test_a_clean_run_reproduces(certified: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(certified), "--reproduce"]) == 0
    assert "REPRODUCED: 2 of 2 batch files (6,000 hands)" in capsys.readouterr().out
    assert main(["verify", str(certified), "--reproduce", "1"]) == 0


def test_a_hand_moved_to_a_new_table_is_named(certified: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    shutil.copytree(certified, run)
    for name in ("audit.json", "certificate.json", "report.html", "summary.md"):
        (run / name).unlink()
    f = RunForger(run)
    i = f.find(lambda r: len(live_seats(r)) >= 2, f.last_hands())
    row = f.rows[i]
    new_table = max(r["table_id"] for r in f.rows) + 1
    moved = dict(row, table_id=new_table, hand_no=0, rebuys=list(row["stacks_start"]),
                 seed_key=[f.manifest["seed"], new_table, 0])
    f.rows[i] = replay_with_deck(moved, hand_deck(f.manifest["seed"], new_table, 0))
    f.write()
    assert main(["audit", str(run), "--workers", "0", "--quiet"]) in (0, 1)
    # the forger's report skips the reproduction: a PASS, LIMITED certificate saying so
    assert main(["report", str(run), "--no-reproduce"]) == 0
    cert = json.loads((run / "certificate.json").read_text())
    assert cert["reproduction"]["status"] == "NOT RUN"
    assert any("not re-simulated" in t for t in cert["limitations"])
    capsys.readouterr()
    for args in ([], ["--reproduce"]):  # the default, and its alias
        assert main(["verify", str(run), *args]) == 1
        assert f"hand {row['hand_id']} is not what the spec plays" in capsys.readouterr().out
    # holdem report re-simulates by default: its certificate FAILs, naming the hand, and
    # verify then finds the FAIL certificate true
    assert main(["report", str(run)]) == 0
    cert = json.loads((run / "certificate.json").read_text())
    assert cert["verdict"] == "FAIL" and "reproduction" in cert["verdict_reasons"]
    assert cert["reproduction"]["hand_id"] == row["hand_id"]
    capsys.readouterr()
    assert main(["verify", str(run)]) == 0
    assert "as the FAIL certificate says" in capsys.readouterr().out


def test_a_run_that_cannot_be_reproduced_says_so(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Reproduction is the default now (issue #23): a run of os-chacha20 has nothing to
    re-simulate, which the certificate and verify's line say (NOT REPRODUCIBLE), not an error;
    the explicit --reproduce of before is the default's alias."""
    out = tmp_path / "chacha"
    # fresh entropy: the uniformity battery may (at alpha) fail such a run; not what is tested
    rc = main(["certify", "--hands", "2000", "--structure", "no-limit", "--generator",
               "os-chacha20", "--workers", "0", "--quiet", "--out", str(out)])
    assert rc in (0, 1)
    cert = json.loads((out / "certificate.json").read_text())
    assert cert["reproduction"]["status"] == "NOT REPRODUCIBLE"
    assert "os-chacha20" in cert["reproduction"]["text"]
    capsys.readouterr()
    assert main(["verify", str(out), "--reproduce"]) == 0
    assert "not reproducible (os-chacha20 decks): not re-simulated" in capsys.readouterr().out


@pytest.mark.parametrize("edit", ["summary-edited", "html-deleted", "html-swapped"])
def test_the_pages_a_person_reads_are_covered(certified: Path, tmp_path: Path, edit: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """summary.md and report.html are bound to the certificate: editing, deleting or swapping
    them (e.g. a PASS page beside a FAIL certificate) fails verify, naming the file."""
    run = tmp_path / "run"
    shutil.copytree(certified, run)
    if edit == "summary-edited":
        (run / "summary.md").write_text((run / "summary.md").read_text().replace("FAIL", "PASS")
                                        + "\n")
        name = "summary.md"
    elif edit == "html-deleted":
        (run / "report.html").unlink()
        name = "report.html"
    else:
        (run / "report.html").write_text("<html>PASS</html>")
        name = "report.html"
    capsys.readouterr()
    assert main(["verify", str(run)]) == 1
    out = capsys.readouterr().out
    assert f"{name}:" in out and "sha256 is not the one the certificate records" in out
