"""Holes a red-team review found in the merged issue-23 work, each forged or fed the way an
attacker (or a hostile folder) would:

A. ``certify`` on an os-chacha20 ``--out`` folder it did not create (batches swapped in from
   another run, manifest restamped) is refused: such batches cannot be re-simulated;
B. ``verify --reproduce N`` draws its sample from the OS entropy and names the files;
E. ``export`` never writes or removes through a linked ``RUN/tables`` (or table folder);
F. a mistyped field of audit.json is one line naming it, from ``report`` and ``verify``;
G. a FIFO (or a link) as a key file is refused at once, never read;
H. ``verify`` reads only the report pages a certificate's ``documents`` may name."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
from pathlib import Path

import pytest

from audits.runfolder import batch_relpath
from cluster.cli import main
from cluster.flows import reproduce
from cluster.flows.simulate import run_simulate
from sim.config import Structure
from sim.runspec import RunSpec
from tests.audits.forgery import RunForger

SPEC = RunSpec(hands=3000, batch_size=1000, structures=(Structure.NO_LIMIT,), seed=11)
LAST = batch_relpath("no-limit", 2)


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clean run of 3 batches, audited and reported (without re-simulation: quick)."""
    root = tmp_path_factory.mktemp("redteam") / "clean"
    run_simulate(SPEC, root, workers=0, progress=False)
    assert main(["audit", str(root), "--workers", "0", "--quiet"]) == 0
    assert main(["report", str(root), "--no-reproduce"]) == 0
    return root


@pytest.fixture()
def run(certified: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "run"
    shutil.copytree(certified, dst)
    return dst


def one_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return code, err[0]


# ---------------------------------------------------------------- A


CHACHA = ["--hands", "2000", "--structure", "no-limit", "--population", "classic",
          "--batch-size", "1000", "--seed", "3", "--generator", "os-chacha20", "--workers", "0",
          "--quiet"]


def _swapped_chacha_folder(tmp_path: Path) -> tuple[Path, dict[Path, bytes]]:
    """An os-chacha20 run folder with a batch of another run of the same spec swapped in, its
    manifest's sha256 and bytes restamped (so a resume would keep it); and its bytes."""
    out, other = tmp_path / "run", tmp_path / "other"
    assert main(["simulate", *CHACHA, "--out", str(out)]) == 0
    assert main(["simulate", *CHACHA, "--out", str(other)]) == 0
    rel = batch_relpath("no-limit", 1)
    shutil.copyfile(other / rel, out / rel)
    RunForger(out, rel).restamp()
    return out, {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}


def test_certify_refuses_an_os_chacha20_folder_holding_batches(
        tmp_path: Path, keys: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A: the forger simulates two os-chacha20 runs of the lab's spec, swaps a batch of the
    second into the first (the manifest's sha256 and bytes restamped, so resume keeps it) and
    hands the folder to the lab: certify --sign-key refuses it (exit 2, one line) and writes
    nothing: neither a certificate nor a signature, every batch byte left as it was."""
    out, before = _swapped_chacha_folder(tmp_path)
    capsys.readouterr()
    code, line = one_line(capsys, ["certify", *CHACHA, "--sign-key", str(keys),
                                   "--out", str(out)])
    assert code == 2
    assert "2 batch file(s)" in line and "os-chacha20 cannot re-simulate" in line
    assert line.endswith("use a new --out")
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert not (out / "certificate.json").exists() and not (out / "certificate.sig").exists()


def test_simulate_never_resumes_os_chacha20_batches(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A, through ``holdem simulate``: the forger prepares the folder with a batch of another
    run swapped in (restamped) and lets the lab's own simulate "resume" it, to audit and sign
    later: simulate refuses the folder (exit 2, one line) and changes no byte of it."""
    out, before = _swapped_chacha_folder(tmp_path)
    capsys.readouterr()
    code, line = one_line(capsys, ["simulate", *CHACHA, "--out", str(out)])
    assert code == 2
    assert "os-chacha20 cannot re-simulate" in line and line.endswith("use a new --out")
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


# ---------------------------------------------------------------- B


class _LastOnes(random.Random):
    """Stands in for secrets.SystemRandom: draws the last files of the plan."""

    def sample(self, population, k, *, counts=None):  # type: ignore[no-untyped-def,override]
        return list(population)[-k:]


def test_verify_samples_from_the_os_entropy_and_names_the_files(
        run: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """B: the forger edits the batch that a fixed seed would not sample; the sample comes from
    secrets.SystemRandom (here made to draw the last file), so it is checked and named."""
    capsys.readouterr()
    assert main(["verify", str(run), "--reproduce", "2"]) == 0
    line = capsys.readouterr().out
    named = line.split("sampled at random from the OS entropy: ")[1].split(")")[0].split(", ")
    assert len(named) == 2 and all((run / rel).is_file() for rel in named)

    f = RunForger(run, LAST)
    i = f.last_hands()[0]
    f.rows[i] = dict(f.rows[i], player_ids=list(reversed(f.rows[i]["player_ids"])))
    f.write()
    assert main(["audit", str(run), "--workers", "0", "--quiet"]) in (0, 1)
    assert main(["report", str(run), "--no-reproduce"]) == 0
    monkeypatch.setattr(reproduce.secrets, "SystemRandom", _LastOnes)
    capsys.readouterr()
    assert main(["verify", str(run), "--reproduce", "1"]) == 1
    line = capsys.readouterr().out
    assert line.startswith(f"MISMATCH: {LAST}: ")
    assert f"(sampled at random from the OS entropy: {LAST})" in line


# ---------------------------------------------------------------- E


@pytest.mark.parametrize("where", ["tables", "tables/hands", "fifo"])
def test_export_never_writes_through_a_linked_tables(
        run: Path, tmp_path: Path, where: str, capsys: pytest.CaptureFixture[str]) -> None:
    """E: RUN/tables (or its hands/ folder) is a link to a folder outside the run holding a
    victim's files named like parts (or tables is a FIFO): export refuses it, one line, exit 2,
    and nothing outside the run is written or removed."""
    victim = tmp_path / "victim"
    (victim / "hands").mkdir(parents=True)
    (victim / "hands" / "part-precious.parquet").write_bytes(b"keep me")
    (victim / "part-precious.parquet").write_bytes(b"keep me too")
    if where == "tables":
        (run / "tables").symlink_to(victim, target_is_directory=True)
    elif where == "tables/hands":
        (run / "tables").mkdir()
        (run / "tables" / "hands").symlink_to(victim / "hands", target_is_directory=True)
    else:
        os.mkfifo(run / "tables")
    before = sorted((p, p.read_bytes()) for p in victim.rglob("*") if p.is_file())
    for argv in (["export", str(run)], ["export", str(run), "--out", str(run / "tables")]):
        code, line = one_line(capsys, argv)
        assert code == 2
        what = "not a folder" if where == "fifo" else "a symbolic link"
        assert f"{where if where != 'fifo' else 'tables'}: {what}" in line
        assert sorted((p, p.read_bytes()) for p in victim.rglob("*") if p.is_file()) == before


# ---------------------------------------------------------------- F


def _edit_audit(run: Path, name: str, key: str, value: object) -> None:
    path = run / "audit.json"
    audit = json.loads(path.read_text())
    for r in audit["results"]:
        if r["name"] == name:
            r["details"][key] = value
    path.write_text(json.dumps(audit))


def _restamp_certificate(run: Path) -> None:
    cert = json.loads((run / "certificate.json").read_text())
    cert["run"]["audit_sha256"] = hashlib.sha256((run / "audit.json").read_bytes()).hexdigest()
    (run / "certificate.json").write_text(json.dumps(cert, indent=2))


@pytest.mark.parametrize("name,key,value,field", [
    ("integrity", "hands_per_structure", {"no-limit": "x"}, "hands_per_structure"),
    ("integrity", "hands_per_structure", "x", "hands_per_structure"),
    ("integrity", "violations", 1.5, "violations"),
    ("deal", "totals", {"unkeyed": "x"}, "totals.unkeyed"),
    ("deal", "totals", "x", "totals"),
    ("coverage", "per_structure", {"no-limit": {"all_in": {"count": "x"}}}, "per_structure"),
    ("coverage", "per_structure", {"no-limit": {"hands": "x"}}, "per_structure"),
    ("uniformity", "tests", None, "tests"),
])
def test_a_mistyped_audit_field_is_one_line(run: Path, name: str, key: str, value: object,
                                            field: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """F: report, and verify once the certificate's audit_sha256 is restamped, name the field
    (one line, exit 2), never a traceback."""
    _edit_audit(run, name, key, value)
    code, line = one_line(capsys, ["report", str(run), "--no-reproduce"])
    assert code == 2 and f"details.{field}" in line and "audit.json" in line
    _restamp_certificate(run)
    code, line = one_line(capsys, ["verify", str(run), "--no-reproduce"])
    assert code == 2 and f"details.{field}" in line


@pytest.mark.parametrize("name,key,value", [("rotation", "sample", "x"),
                                            ("rotation", "sample", [{"button": "x"}])])
def test_a_mistyped_plot_field_is_one_line(run: Path, name: str, key: str, value: object,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """F: what report.html plots from audit.json (here the rotation sample) names the field
    when it is not of the shape holdem audit writes (one line, exit 2)."""
    _edit_audit(run, name, key, value)
    code, line = one_line(capsys, ["report", str(run), "--no-reproduce"])
    assert code == 2 and f"audit.json: the {name} result's details.{key}: not what" in line


# ---------------------------------------------------------------- G


@pytest.mark.parametrize("kind", ["fifo", "link to a fifo"])
def test_a_key_file_that_is_a_fifo_is_refused(
        run: Path, keys: Path, tmp_path: Path, kind: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    """G: a FIFO given as a key (or a link to one) would block its reader forever: refused at
    once (one line, exit 2) by verify, report and certify."""
    key = tmp_path / "key.pem"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    if kind == "fifo":
        key = fifo
    else:
        key.symlink_to(fifo)
    for argv in (["verify", str(run), "--no-reproduce", "--public-key", str(key)],
                 ["report", str(run), "--no-reproduce", "--sign-key", str(key)],
                 ["certify", *CHACHA, "--sign-key", str(key), "--out", str(tmp_path / "c")]):
        code, line = one_line(capsys, argv)
        assert code == 2 and f"{key}: not a regular file" in line, line
    assert not (tmp_path / "c").exists()


def test_a_key_reached_through_a_link_is_read(run: Path, keys: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A key kept where a link points (a Kubernetes secret mount) is the user's key: read."""
    link = tmp_path / "linked.pub"
    link.symlink_to(Path(f"{keys}.pub"))
    assert main(["verify", str(run), "--no-reproduce", "--public-key", str(link)]) in (0, 1)
    out = capsys.readouterr()
    assert "not a regular file" not in out.err and "cannot read" not in out.err, out.err


# ---------------------------------------------------------------- H


@pytest.mark.parametrize("names", [("summary.md", "report.html", "../../outside.txt"),
                                   ("../../outside.txt", "report.html"),
                                   ("summary.md",)])
def test_verify_reads_only_the_report_pages(run: Path, tmp_path: Path, names: tuple[str, ...],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """H: an unsigned certificate whose ``documents`` name a file outside the run (with that
    file's true sha256) or leave a page out: a named failure, the outside file never bound."""
    outside = tmp_path / "outside.txt"
    outside.write_text("not of the run")
    cert = json.loads((run / "certificate.json").read_text())
    docs = dict(cert["documents"])
    cert["documents"] = {n: docs.get(n) or hashlib.sha256(outside.read_bytes()).hexdigest()
                         for n in names}
    (run / "certificate.json").write_text(json.dumps(cert, indent=2))
    capsys.readouterr()
    assert main(["verify", str(run), "--no-reproduce"]) == 1
    line = capsys.readouterr().out
    assert "certificate.json: field documents names" in line
    assert "expected exactly the report pages summary.md, report.html" in line


# ---------------------------------------------------------------- D


@pytest.mark.parametrize("key,value", [("status", "running"), ("status", None),
                                       ("schema_version", 99), ("schema_version", "3"),
                                       ("digest_version", 2)])
def test_a_manifest_claim_the_audit_cannot_stand_on_fails_integrity(
        run: Path, key: str, value: object, capsys: pytest.CaptureFixture[str]) -> None:
    """D: a manifest edited to claim an unfinished run or an unknown row layout or digest (the
    sha256 of nothing else changes): integrity FAILs naming the field."""
    path = run / "manifest.json"
    m = json.loads(path.read_text())
    if value is None:
        del m[key]
    else:
        m[key] = value
    path.write_text(json.dumps(m, indent=2))
    capsys.readouterr()
    assert main(["audit", str(run), "--workers", "0", "--quiet"]) == 1
    audit = json.loads((run / "audit.json").read_text())
    integ = next(r for r in audit["results"] if r["name"] == "integrity")
    assert not integ["passed"] and integ["details"]["reasons"].get("manifest claim") == 1
    assert any(f"manifest.json: {key} is" in v["reason"] for v in integ["details"]["violations"])


def test_the_certificate_says_which_claims_are_the_runs_own(certified: Path) -> None:
    """D: commit, engine version, times and provenance are repeated as the run's statements,
    and the certificate says so in words (certificate.json and summary.md)."""
    from audits.logschema import DIGEST_VERSIONS
    from sim.digest import DIGEST_VERSION

    assert DIGEST_VERSION in DIGEST_VERSIONS
    cert = json.loads((certified / "certificate.json").read_text())
    (claims,) = cert["claims_not_checked"]
    assert claims.startswith("Stated by the run, not audited: the commit and engine version")
    assert "provenance" in claims and "timings" in claims
    assert "Stated by the run, not audited" in (certified / "summary.md").read_text()
