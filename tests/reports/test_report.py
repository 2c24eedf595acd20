"""The certificate a person reads: a small run simulated, audited and rendered; its structure
checked against the audit JSON, the certificate against its schema, and (where Chromium is
installed) the page rendered to a PNG that must not be blank."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

from cluster.flows.certify import certify, report
from reports.certificate import CERTIFICATE_SCHEMA
from sim.runspec import RunSpec


def _certify(tmp: Path, inject: str | None = None) -> Path:
    out = tmp / ("faulty" if inject else "clean")
    spec = RunSpec(hands=6000, batch_size=3000, structures=("no-limit", "fixed-limit"), seed=3,
                   inject=inject)
    res = certify(spec, str(out), workers=0, progress=False)
    # the verdict returned is the one certificate.json was written with
    cert = json.loads((out / "certificate.json").read_text())
    assert (res.verdict, res.exit_code) == (cert["verdict"], 0 if cert["verdict"] == "PASS" else 1)
    assert res.report.limitations == cert["limitations"]
    assert res.audit.passed == (inject is None) and Path(res.audit_path) == out / "audit.json"
    assert res.manifest is not None and res.manifest.hands == 12_000
    assert Path(res.report.paths["certificate"]) == out / "certificate.json"
    return out


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _certify(tmp_path_factory.mktemp("cert"))


def test_certificate_matches_the_audit_and_its_schema(clean: Path) -> None:
    cert = json.loads((clean / "certificate.json").read_text())
    jsonschema.validate(cert, CERTIFICATE_SCHEMA)
    audit = json.loads((clean / "audit.json").read_text())
    assert cert["verdict"] == "PASS" and cert["fault_injected"] is None
    by_name = {a["name"]: a for a in cert["audits"]}
    for r in audit["results"]:
        a = by_name[r["name"]]
        assert (a["passed"], a["hands_checked"], a["failures"], a["p_value"]) == (
            r["passed"], r["hands_checked"], r["failures"], r["p_value"])
    assert cert["run"]["hands"] == 12000 and cert["power"]["sentence"].startswith("With 12,000")
    chips = next(r for r in audit["results"] if r["name"] == "chips")["details"]["totals"]
    assert chips["chips_put_in_pots"] == chips["chips_won"] + chips["rake"]


def test_report_shows_every_audit_with_its_numbers_and_no_external_resource(clean: Path) -> None:
    page = (clean / "report.html").read_text()
    audit = json.loads((clean / "audit.json").read_text())
    cert = json.loads((clean / "certificate.json").read_text())
    # 6,000 hands are too small to certify rule-path coverage: a PASS that says it is limited
    assert "<div class='banner PASS'>PASS, LIMITED</div>" in page
    assert f"<b>Verdict:</b> {html.escape(cert['verdict_text'])}" in page
    assert "too small to certify coverage" in page
    for r in audit["results"]:
        assert f"<td>{r['name']}</td>" in page
        assert f"{r['hands_checked']:,}" in page
    for key in ("Provenance", "Card x position", "Starting-hand classes", "Power.",
                "Rule-path coverage", "side pots 3plus", "(min ", "Chip conservation",
                "Blind rotation", "pots minus won minus rake"):
        assert key in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "<link" not in page and "<script" not in page
    # the code that ran: the keys its compiled caches were keyed by (audits.jitcache)
    from audits import jitcache

    keys = jitcache.identity()["keys"]
    assert f"sim {keys['sim']}" in page and f"audits {keys['audits']}" in page
    summary = (clean / "summary.md").read_text()
    assert summary.startswith("# Certification: **PASS, LIMITED**")


def test_report_returns_the_verdict_it_wrote_and_signs(clean: Path, tmp_path: Path) -> None:
    from cluster.flows.signing import keygen

    priv, _ = keygen(tmp_path / "key")
    written = report(clean, sign_key=priv)
    assert written.verdict == json.loads((clean / "certificate.json").read_text())["verdict"]
    assert Path(written.paths["signature"]) == clean / "certificate.sig"
    assert "signature" not in report(clean).paths and not (clean / "certificate.sig").exists()


def test_injected_fault_fails_and_shows_the_failing_hands(tmp_path: Path) -> None:
    out = _certify(tmp_path, inject="odd-chip-wrong-seat")
    cert = json.loads((out / "certificate.json").read_text())
    assert cert["verdict"] == "FAIL" and cert["fault_injected"] == "odd-chip-wrong-seat"
    page = (out / "report.html").read_text()
    assert "FAULT INJECTED: odd-chip-wrong-seat" in page
    failing = next(a for a in cert["audits"] if a["name"] == "payouts")
    assert not failing["passed"]
    first = failing["example_hand_ids"][0]
    assert f"Replay of hand {first}:" in page and "*** PRE-FLOP ***" in page


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_report_renders_in_headless_chromium(clean: Path, tmp_path: Path) -> None:
    png = tmp_path / "report.png"
    subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1100,2400",
         f"--screenshot={png}", (clean / "report.html").as_uri()],
        check=True, capture_output=True, timeout=120)
    from PIL import Image

    img = Image.open(png).convert("L")
    colors = img.getcolors(maxcolors=1 << 20) or []
    assert len(colors) > 50, "blank or broken render"
    # the green PASS banner is at the top
    top = Image.open(png).convert("RGB").crop((100, 20, 600, 60))
    r, g, b = top.resize((1, 1)).getpixel((0, 0))
    assert g > r and g > b


def test_certify_command_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                    ) -> None:
    from cluster.cli import main

    out = tmp_path / "run"
    cmd = ["certify", "--hands", "3000", "--structure", "no-limit", "--workers", "0",
           "--batch-size", "1500", "--quiet", "--out", str(out)]
    assert main(cmd) == 0
    assert (out / "report.html").is_file() and (out / "summary.md").is_file()
    capsys.readouterr()
    assert main(cmd) == 0  # again (`make run` twice): the run is kept, its report redone
    assert "3,000 hands in 2 files (2 reused)" in capsys.readouterr().out
    bad = tmp_path / "bad"
    assert main(["certify", "--hands", "3000", "--structure", "no-limit", "--workers", "0",
                 "--quiet", "--inject", "odd-chip-wrong-seat", "--out", str(bad)]) == 1
    assert main(["report", str(tmp_path / "missing")]) == 2


def test_calibration_tables_are_included_when_available(clean: Path, tmp_path: Path) -> None:
    cal = tmp_path / "calibration.md"
    cal.write_text("### Exact audits against the engine's faults\n\n| fault | audit | caught |\n"
                   "|---|---|---|\n| chip-lost | chips | 10/10 |\n")
    report(clean, calibration=cal)
    page = (clean / "report.html").read_text()
    assert "<h2>Calibration</h2>" in page
    assert "<td>chip-lost</td><td>chips</td><td>10/10</td>" in page
    report(clean, calibration=tmp_path / "absent.md")
    assert "<h2>Calibration</h2>" not in (clean / "report.html").read_text()
