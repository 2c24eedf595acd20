"""Shuffle and rng-test certificates signed with ``--sign-key`` and checked by ``holdem verify
--public-key``: VERIFIED naming the key id; a changed deck file, page or certificate is a
MISMATCH; an unchecked signature is NOT AUTHENTICATED."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from audits import shuffles
from audits.decklog import write_csv
from audits.runfolder import deck_relpath
from cluster.cli import main
from cluster.flows.signing import key_id, load_public_key


def _verify(run: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["verify", str(run), *extra])
    return code, capsys.readouterr().out.strip()


@pytest.fixture(scope="module")
def signed_shuffle(tmp_path_factory: pytest.TempPathFactory, keys: Path) -> Path:
    out = tmp_path_factory.mktemp("shuffle") / "run"
    assert main(["shuffle", "--decks", "25000", "--batch-size", "10000", "--seed", "5",
                 "--quiet", "--workers", "0", "--out", str(out), "--sign-key", str(keys)]) == 0
    return out


def test_a_signed_shuffle_verifies_and_names_the_key(
        signed_shuffle: Path, keys: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, line = _verify(signed_shuffle, capsys, "--public-key", f"{keys}.pub")
    assert code == 0, line
    kid = key_id(load_public_key(f"{keys}.pub"))
    assert line.startswith("VERIFIED: a shuffle certificate of 25,000 decks (verdict: PASS)")
    assert "3 of 3 re-derived from seed 5 match byte for byte" in line
    assert f"signed by key {kid}" in line
    code, line = _verify(signed_shuffle, capsys)  # a signature left unchecked
    assert code == 1 and line.startswith("NOT AUTHENTICATED: ")


def test_a_shuffle_certificate_of_version_1_still_verifies(
        signed_shuffle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A certificate issued before the verdict's sentence (version 1: "PASS" or "FAIL (...)",
    a page without the sentence) keeps verifying: its page is rebuilt as it was issued."""
    from reports.shuffle import render_html

    run = tmp_path / "v1"
    shutil.copytree(signed_shuffle, run)
    (run / "certificate.sig").unlink()
    cert = json.loads((run / "certificate.json").read_text())
    assert cert["version"] == 2 and "<b>Verdict:</b>" in (run / "report.html").read_text()
    cert["version"] = 1
    (run / "certificate.json").write_text(json.dumps(cert, indent=2) + "\n")
    (run / "report.html").write_text(render_html(cert))
    assert "<b>Verdict:</b>" not in (run / "report.html").read_text()
    code, line = _verify(run, capsys)
    assert line.startswith("VERIFIED: a shuffle certificate of 25,000 decks"), line


@pytest.mark.parametrize("change", ["deck", "deck-restamped", "certificate", "page"])
def test_a_change_is_a_mismatch(signed_shuffle: Path, keys: Path, tmp_path: Path, change: str,
                                capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    shutil.copytree(signed_shuffle, run)
    cert_path = run / "certificate.json"
    if change.startswith("deck"):
        f = run / deck_relpath(1)
        data = bytearray(f.read_bytes())
        data[len(data) // 2] ^= 1
        f.write_bytes(bytes(data))
        if change == "deck-restamped":  # the forger restamps the hash, and cannot sign
            import hashlib

            cert = json.loads(cert_path.read_text())
            for rec in cert["source"]["files"]:
                if rec["path"] == deck_relpath(1):
                    rec["sha256"] = hashlib.sha256(bytes(data)).hexdigest()
            cert_path.write_text(json.dumps(cert, indent=2) + "\n")
            from reports.shuffle import render_html  # the page made again, consistently

            (run / "report.html").write_text(render_html(cert))
            (run / "certificate.sig").unlink()
    elif change == "certificate":
        cert_path.write_text(cert_path.read_text().replace('"seed": 5', '"seed": 6', 1))
    else:
        page = run / "report.html"
        page.write_text(page.read_text().replace("PASS", "PASS!", 1))
    code, line = _verify(run, capsys, "--public-key", f"{keys}.pub")
    assert code == 1 and line.startswith("MISMATCH: "), line
    if change == "deck":
        assert f"{deck_relpath(1)}: edited" in line
    elif change == "deck-restamped":
        assert "certificate.sig: missing" in line
        code, line = _verify(run, capsys)  # unsigned: the re-derivation finds the decks
        assert code == 1 and f"{deck_relpath(1)}: not the decks seed 5 makes" in line
    elif change == "certificate":
        assert "the signature does not verify" in line
    else:
        assert "report.html: edited" in line


def test_external_decks_bind_the_hash_of_what_was_audited(
        tmp_path: Path, keys: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(3)
    write_csv(shuffles.fair_fisher_yates(3_000, rng), tmp_path / "fair.csv")
    out = tmp_path / "cert"
    main(["shuffle", "audit", str(tmp_path / "fair.csv"), "--out", str(out), "--quiet",
          "--sign-key", str(keys)])
    code, line = _verify(out, capsys, "--public-key", f"{keys}.pub")
    assert code == 0 and "1 of 1 deck files audited still have their sha256" in line, line
    with (tmp_path / "fair.csv").open("a") as f:
        f.write("\n")
    code, line = _verify(out, capsys, "--public-key", f"{keys}.pub")
    assert code == 1 and "fair.csv: sha256 is not the one the certificate records" in line


@pytest.fixture
def small_nist(monkeypatch: pytest.MonkeyPatch) -> None:
    """NIST SP 800-22 on 2 sequences, not 100 (its battery is tested in test_rngtest.py)."""
    from cluster.flows import rngtest

    monkeypatch.setattr(rngtest, "NIST_SEQUENCES", 2)


@pytest.mark.usefixtures("small_nist")
def test_rng_certificate_signed_and_verified(tmp_path: Path, keys: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "rng"
    main(["rng", "test", "--generator", "philox", "--tests", "0", "--quiet", "--out", str(out),
          "--sign-key", str(keys)])
    assert (out / "rng-certificate.sig").is_file()
    code, line = _verify(out, capsys, "--public-key", f"{keys}.pub")
    assert code == 0 and line.startswith("VERIFIED: an rng certificate of philox"), line
    assert f"signed by key {key_id(load_public_key(f'{keys}.pub'))}" in line
    cert = out / "rng-certificate.json"
    cert.write_text(cert.read_text().replace('"seed": 1', '"seed": 2', 1))
    code, line = _verify(out, capsys, "--public-key", f"{keys}.pub")
    assert code == 1 and "the signature does not verify" in line


LAB = ('certificate_number = "LAB-2026-0042"\nclient = "Example Casino Ltd"\n'
       'standard = "GLI-19 v3.0"\n[audits]\nuniformity = "GLI-19 3.3.1"\n'
       '"uniformity.card_position" = "GLI-19 3.3.1 (a)"\ndeal = "GLI-19 3.3.2"\n')


@pytest.mark.usefixtures("small_nist")
def test_lab_fields_on_the_shuffle_and_rng_certificates(
        tmp_path: Path, keys: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--lab on holdem shuffle and holdem rng test: the lab's fields and the clauses each audit
    answers on the shuffle page and in both certificates, bound by their signatures."""
    lab = tmp_path / "lab.toml"
    lab.write_text(LAB)
    out = tmp_path / "sh"
    assert main(["shuffle", "--decks", "2000", "--out", str(out), "--workers", "0", "--quiet",
                 "--lab", str(lab), "--sign-key", str(keys)]) == 0
    cert = json.loads((out / "certificate.json").read_text())
    assert cert["lab"]["audits"]["uniformity"] == "GLI-19 3.3.1"
    page = (out / "report.html").read_text()
    assert "LAB-2026-0042" in page and "Clauses each audit answers" in page
    assert "<td>uniformity</td><td>GLI-19 3.3.1</td>" in page
    assert "<td>uniformity.card_position</td><td>GLI-19 3.3.1 (a)</td>" in page
    assert "<td>deal</td><td>GLI-19 3.3.2 (not on this certificate)</td>" in page
    code, line = _verify(out, capsys, "--public-key", f"{keys}.pub")
    assert code == 0 and "certificate number LAB-2026-0042" in line, line
    path = out / "certificate.json"
    path.write_text(path.read_text().replace("LAB-2026-0042", "LAB-2026-0043"))
    code, line = _verify(out, capsys, "--public-key", f"{keys}.pub")
    assert code == 1 and "the signature does not verify" in line, line
    rng = tmp_path / "rng"
    main(["rng", "test", "--generator", "philox", "--tests", "0", "--quiet", "--out", str(rng),
          "--lab", str(lab), "--sign-key", str(keys)])
    assert json.loads((rng / "rng-certificate.json").read_text())["lab"]["client"] == (
        "Example Casino Ltd")
    code, line = _verify(rng, capsys, "--public-key", f"{keys}.pub")
    assert code == 0 and "certificate number LAB-2026-0042" in line, line
    lab.write_text('[audits]\ndeal = 3\n')
    capsys.readouterr()
    assert main(["rng", "test", "--out", str(tmp_path / "x"), "--lab", str(lab)]) == 2
    assert "audits: expected a table of audit" in capsys.readouterr().err
