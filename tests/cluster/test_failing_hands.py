"""Failures a person can act on: every failing hand, with what the log says and what the rules
give, in failing_hands.csv (bound by the certificate, its first lines on the page), walked by
``holdem replay RUN --failing``; hand ids people can type."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from cluster.cli import main

RUN = ["--structure", "no-limit", "--population", "classic", "--seed", "3", "--workers", "0",
       "--quiet"]


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fault") / "run"
    assert main(["certify", "--hands", "2000", *RUN, "--inject", "odd-chip-wrong-seat",
                 "--out", str(out)]) == 1
    return out


def test_every_failing_hand_is_listed_with_amounts(faulty: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    cert = json.loads((faulty / "certificate.json").read_text())
    payouts = next(a for a in cert["audits"] if a["name"] == "payouts")
    rows = list(csv.DictReader((faulty / "failing_hands.csv").open()))
    mine = [r for r in rows if r["audit"] == "payouts"]
    assert payouts["failures"] > 5 and len(mine) == payouts["failures"]
    assert len({r["hand_id"] for r in mine}) == len(mine)
    for r in mine:  # the amounts: what the log says, what the rules give (odd chips apart)
        words = r["reason"].replace(",", "").split()
        assert "the rules give" in r["reason"], r
        won, rule = int(words[words.index("won") + 1]), int(words[-1])
        assert 0 < abs(won - rule) <= 3
    fh = cert["failing_hands"]
    assert fh["rows"] == len(rows) and fh["per_audit"]["payouts"] == len(mine)
    assert fh["first"][0]["reason"] == mine[0]["reason"]
    # the verdict's sentence names the first with its amounts
    assert cert["verdict_text"].startswith(f"FAIL: payouts: hand {mine[0]['hand_id']}: "
                                           f"{mine[0]['reason']}")
    page = (faulty / "report.html").read_text()
    assert "Failing hands" in page and "failing_hands.csv" in page
    # replay --failing walks them
    capsys.readouterr()
    assert main(["replay", str(faulty), "--failing", "--limit", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("=== failing hand ") == 2 and mine[0]["reason"] in out


def test_the_list_is_bound_by_the_certificate(faulty: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    run = tmp_path / "copy"
    shutil.copytree(faulty, run)
    assert main(["verify", str(run), "--no-reproduce"]) == 0
    capsys.readouterr()
    f = run / "failing_hands.csv"
    f.write_text(f.read_text().replace("the rules give", "the rules gave", 1))
    assert main(["verify", str(run), "--no-reproduce"]) == 1
    assert "failing_hands.csv: edited" in capsys.readouterr().out


def test_replay_takes_the_structures_own_hand_number(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fl"
    assert main(["simulate", "--hands", "300", "--structure", "fixed-limit", "--population",
                 "classic", "--workers", "0", "--quiet", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["replay", str(out), "--hand", "100"]) == 0
    own = capsys.readouterr().out
    assert own.startswith(f"Hand {(2 << 40) + 100} ")
    assert main(["replay", str(out), "--hand", str((2 << 40) + 100)]) == 0
    assert capsys.readouterr().out == own
    assert main(["replay", str(out), "--hand", "300"]) == 2
    err = capsys.readouterr().err
    assert "has no hand 300" in err or "has no fixed-limit hand 300" in err
    assert "its hand numbers 0..299: --hand N --structure fixed-limit" in err


def test_lab_fields_on_the_page_and_bound_by_the_signature(
        tmp_path: Path, keys: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lab = tmp_path / "lab.toml"
    lab.write_text('client = "Example Casino Ltd"\nsystem = "Example Poker Server"\n'
                   'version = "4.2.1"\nstandard = "GLI-19 v3.0"\n'
                   'certificate_number = "LAB-2026-0042"\nsigner = "A. Tester"\n'
                   '[clauses]\n"3.3.1 shuffle" = "uniformity audit"\n'
                   '[audits]\ndeal = "GLI-19 3.3.1"\npayouts = "GLI-19 3.5.4"\n')
    out = tmp_path / "run"
    assert main(["certify", "--hands", "300", *RUN, "--out", str(out), "--lab", str(lab),
                 "--sign-key", str(keys)]) == 0
    cert = json.loads((out / "certificate.json").read_text())
    assert cert["lab"]["certificate_number"] == "LAB-2026-0042"
    page = (out / "report.html").read_text()
    assert "Example Casino Ltd" in page and "3.3.1 shuffle" in page and "GLI-19 v3.0" in page
    assert "LAB-2026-0042" in (out / "summary.md").read_text()
    # the clauses each audit answers: every audit of the certificate, named or not
    assert "<td>deal</td><td>GLI-19 3.3.1</td>" in page
    assert "<td>rotation</td><td>none named</td>" in page
    assert "audit payouts answers: GLI-19 3.5.4" in (out / "summary.md").read_text()
    capsys.readouterr()
    assert main(["verify", str(out), "--public-key", f"{keys}.pub", "--no-reproduce"]) == 0
    path = out / "certificate.json"
    path.write_text(path.read_text().replace("LAB-2026-0042", "LAB-2026-0043"))
    assert main(["verify", str(out), "--public-key", f"{keys}.pub", "--no-reproduce"]) == 1
    assert "the signature does not verify" in capsys.readouterr().out
    lab.write_text('client = "x"\ncolour = "red"\n')
    assert main(["report", str(out), "--lab", str(lab), "--no-reproduce"]) == 2
    assert "unknown field 'colour'" in capsys.readouterr().err


# each engine fault, the audits it fails and a run that shows it (hands, structure, population)
FAULTS = {
    "button-skips": ("rotation", 1000, "no-limit"),
    "bb-twice": ("rotation", 1000, "no-limit"),
    "short-allin-reopens": ("betting", 3000, "no-limit"),
    "wrong-stream-position": ("deal", 1000, "no-limit"),
    "side-pot-ignores-eligibility": ("payouts", 3000, "no-limit"),
    "mucks-winner": ("payouts", 1000, "no-limit"),
}


@pytest.mark.slow
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_an_injected_fault_lists_every_failing_hand_with_both_values(
        fault: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every audit an injected fault fails lists each failing hand once in failing_hands.csv,
    as many as its failure count, each reason with what the log says and what the rules
    give."""
    audit, hands, structure = FAULTS[fault]
    out = tmp_path / "run"
    assert main(["simulate", "--hands", str(hands), "--structure", structure, "--population",
                 "classic", "--seed", "5", "--workers", "0", "--quiet", "--inject", fault,
                 "--out", str(out)]) == 0
    assert main(["audit", str(out), "--workers", "0"]) == 1
    capsys.readouterr()
    doc = json.loads((out / "audit.json").read_text())
    rows = list(csv.DictReader((out / "failing_hands.csv").open()))
    failed = {r["name"]: r for r in doc["results"] if not r["passed"] and r["applicable"]}
    assert audit in failed, sorted(failed)
    for name, r in failed.items():
        if "." in name or not r["hands_checked"] or r.get("statistic") is not None:
            continue  # a battery's test, or a statistical audit: no hand is proved wrong
        mine = [x for x in rows if x["audit"] == name]
        assert len(mine) == r["failures"] > 0, (name, len(mine), r["failures"])
        assert len({x["hand_id"] for x in mine}) == len(mine)
        for x in mine:
            assert "the rules give" in x["reason"] or "the rules" in x["reason"], x


def test_replay_takes_an_imports_site_hand_number(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """On an imported run, --hand N is also the site's hand number (--site-hand TEXT for any
    text); an unknown one is refused naming the ids and site hand numbers the run holds."""
    from cluster.flows.replay import HandNotFound, resolve_hand, resolve_site_hand

    src = tmp_path / "src"
    src.mkdir()
    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "sitetext"
    for name in ("pokerstars.txt", "absolute.txt"):
        (src / name).write_bytes((fixtures / name).read_bytes())
    run = tmp_path / "run"
    assert main(["import", str(src), "--out", str(run), "--workers", "0", "--quiet"]) == 0
    import pyarrow.dataset as ds

    rows = ds.dataset(run / "log", format="parquet").to_table(
        columns=["hand_id", "site_hand"]).to_pylist()
    last = rows[-1]
    assert int(last["site_hand"]) > last["hand_id"]  # a site number, not an id of the run
    assert resolve_hand(run, int(last["site_hand"])) == last["hand_id"]
    assert resolve_site_hand(run, last["site_hand"]) == last["hand_id"]
    assert resolve_hand(run, rows[1]["hand_id"]) == rows[1]["hand_id"]  # an id stays an id
    with pytest.raises(HandNotFound, match=r"has no hand id or site hand 99: it holds .*ids "
                                           rf"0\.\.{len(rows) - 1}; site hand numbers "
                                           rf"{rows[0]['site_hand']}, "):
        resolve_hand(run, 99)
    capsys.readouterr()
    assert main(["replay", str(run), "--site-hand", "X1"]) == 2
    err = capsys.readouterr().err
    assert "has no hand id or site hand X1" in err and "\n" not in err.strip()
