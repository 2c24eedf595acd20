"""Issue #23, points 1 and 5: reproduction is part of the certificate, and a signature signs only
what was checked.

- ``holdem certify`` re-simulates every batch the spec plans and compares the files byte for
  byte; its certificate carries the result (REPRODUCED, or DIFFERS naming the first differing
  hand); ``--no-reproduce`` is a limitation, and even then the batches a resumed folder already
  held are re-simulated (M2: a lab's certify on an ``--out`` folder prepared by someone else,
  with a pot raked 100% in a kept batch, must not end in a signed PASS);
- ``holdem report --sign-key`` signs only a certificate the audits re-run on the folder's bytes
  give (M3: a failing run whose audit.json was edited to PASS is not signed);
- ``holdem verify`` checks ``tables/`` against ``export.json`` (and re-derives every part).

The forgeries are made as an attacker would (``tests.audits.forgery.RunForger``: the engine
replays the forged hand, row digests recomputed, the manifest's sha256, bytes and rows
restamped)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from audits.runfolder import batch_relpath
from cluster.cli import main
from cluster.flows.export import encode_table
from tests.audits.forgery import RunForger, deck_of, live_seats, replay_with_deck

RUN = ["--hands", "4000", "--structure", "no-limit", "--population", "classic",
       "--batch-size", "2000", "--seed", "5", "--workers", "0", "--quiet"]
F1 = batch_relpath("no-limit", 1)


def _cert(run: Path) -> dict:
    return json.loads((run / "certificate.json").read_text())


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("certify") / "run"
    assert main(["certify", *RUN, "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """M2: an --out folder prepared by someone else: the run simulated with the lab's spec,
    then one pot of batch 1 raked 100% (a table's last hand that saw a flop, the rake rate set
    to 10000 bps without a cap and the hand replayed by the engine under it: every column, the
    row digests and the manifest agree). Returns (folder, the forged hand_id)."""
    out = tmp_path_factory.mktemp("prepared") / "run"
    assert main(["simulate", *RUN, "--out", str(out)]) == 0
    f = RunForger(out, F1)

    def raked(r: dict) -> bool:
        return len(live_seats(r)) >= 2 and len(r["board"]) >= 3 and r["rake"] > 0
    i = f.find(raked, f.last_hands())
    row = dict(f.rows[i], rake_bps=10_000, rake_cap=0)
    f.rows[i] = replay_with_deck(row, deck_of(row))
    assert f.rows[i]["rake"] == sum(f.rows[i]["contributed"]) and sum(f.rows[i]["won"]) == 0
    f.write()
    return out, int(row["hand_id"])


def test_certify_carries_the_reproduction(certified: Path) -> None:
    rep = _cert(certified)["reproduction"]
    assert rep["status"] == "REPRODUCED" and rep["batches"] == rep["planned"] == 2
    assert rep["hands"] == 4000 and "match byte for byte" in rep["text"]
    assert "Reproduction: **REPRODUCED**" in (certified / "summary.md").read_text()
    assert not any("re-simulated" in t for t in _cert(certified)["limitations"])


def test_no_reproduce_is_a_limitation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["certify", *RUN, "--no-reproduce", "--out", str(out)]) == 0
    cert = _cert(out)
    assert cert["reproduction"]["status"] == "NOT RUN"
    assert "the other 2 were made by this certify" in cert["reproduction"]["text"]
    assert "LIMITED" in cert["verdict_text"]
    assert any(t.startswith("The hands were not re-simulated from the spec (--no-reproduce")
               for t in cert["limitations"])
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last == f"verdict: {cert['verdict_text']}"  # the certificate's sentence, last
    assert last.startswith("verdict: PASS, LIMITED: ") and "The hands were not re-simulated" in last
    # verify re-simulates all the same (its default) and finds the certificate true
    assert main(["verify", str(out)]) == 0
    assert "REPRODUCED: 2 of 2 batch files" in capsys.readouterr().out


@pytest.mark.parametrize("extra", [[], ["--no-reproduce"], ["--reproduce", "bytes"]])
def test_certify_on_a_folder_prepared_by_someone_else(
        prepared: tuple[Path, int], keys: Path, tmp_path: Path, extra: list[str],
        capsys: pytest.CaptureFixture[str]) -> None:
    """M2: the lab's certify --sign-key resumes the folder (every batch kept: its sha256 is the
    manifest's) and the audits pass the 100% rake (the chips are checked against the
    configuration the hand logs); the re-simulation of the kept batch names the hand, so the
    signed certificate is a FAIL, not a PASS, with or without --no-reproduce, in the audit's
    read (the default) or by a second encode (--reproduce bytes)."""
    src, hand = prepared
    out = tmp_path / "run"
    shutil.copytree(src, out)
    rc = main(["certify", *RUN, *extra, "--sign-key", str(keys), "--out", str(out)])
    printed = capsys.readouterr().out
    assert rc == 1
    cert = _cert(out)
    # (the audits pass it while they check the chips against the configuration the hand logs;
    # once they check it against the spec, they fail it too)
    assert cert["verdict"] == "FAIL" and "reproduction" in cert["verdict_reasons"]
    assert cert["reproduction"]["status"] == "DIFFERS"
    assert cert["reproduction"]["path"] == F1 and cert["reproduction"]["hand_id"] == hand
    assert f"reproduction: DIFFERS: {F1}: hand {hand} is not what the spec plays" in printed
    assert "(1 reused)" not in printed and "(2 reused)" in printed  # nothing simulated again


def test_verify_names_the_hand_of_the_prepared_folder(
        prepared: tuple[Path, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same folder audited and reported the forger's way (--no-reproduce: PASS, LIMITED):
    verify re-simulates by default and names the hand."""
    src, hand = prepared
    out = tmp_path / "run"
    shutil.copytree(src, out)
    assert main(["audit", str(out), "--workers", "0", "--quiet"]) in (0, 1)
    assert main(["report", str(out), "--no-reproduce"]) == 0
    capsys.readouterr()
    assert main(["verify", str(out)]) == 1
    out_line = capsys.readouterr().out
    assert out_line.startswith(f"MISMATCH: {F1}: hand {hand} is not what the spec plays")


def test_bytes_that_differ_with_the_same_hands_are_named(
        certified: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """File sha256 first: a batch rewritten with the same rows (another encoding, metadata and
    statistics, the manifest restamped) is not the file the spec makes, though no hand
    differs."""
    out = tmp_path / "run"
    shutil.copytree(certified, out)
    f = RunForger(out, F1)
    f.write()  # the same rows, rewritten with zstd and pyarrow's defaults
    assert main(["audit", str(out), "--workers", "0", "--quiet"]) == 0
    assert main(["report", str(out), "--no-reproduce"]) == 0
    capsys.readouterr()
    assert main(["verify", str(out)]) == 1
    line = capsys.readouterr().out
    assert f"MISMATCH: {F1}: its bytes differ from the re-simulated file's though every hand's" \
           " content matches" in line


def test_report_does_not_sign_an_audit_json_edited_to_pass(
        tmp_path: Path, keys: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """M3: a failing run (a planted payout fault) whose audit.json was edited to say PASS (every
    result passed, no failures or examples, the report's own consistency checks satisfied):
    report --sign-key re-runs the audits on the bytes, names the field and signs nothing."""
    out = tmp_path / "run"
    assert main(["certify", *RUN, "--inject", "button-skips", "--out", str(out)]) == 1
    audit = json.loads((out / "audit.json").read_text())
    assert not audit["passed"]
    audit["passed"] = True
    for r in audit["results"]:
        if r["p_value"] is None:
            r.update(passed=True, failures=0, example_hand_ids=[])
            r.get("details", {}).pop("violations", None)
    (out / "audit.json").write_text(json.dumps(audit, indent=2))
    assert main(["report", str(out)]) == 0  # an unsigned report renders what it is given
    assert _cert(out)["verdict"] == "PASS"
    capsys.readouterr()
    assert main(["report", str(out), "--sign-key", str(keys)]) == 1
    err = capsys.readouterr().err
    assert "audit.json: the certificate's field " in err and "nothing signed" in err
    assert len(err.strip().splitlines()) == 1
    assert not (out / "certificate.sig").exists()
    # the honest audit.json: its FAIL is signed (what was checked)
    assert main(["audit", str(out), "--workers", "0", "--quiet"]) == 1
    assert main(["report", str(out), "--sign-key", str(keys)]) == 0
    assert _cert(out)["verdict"] == "FAIL" and (out / "certificate.sig").exists()
    capsys.readouterr()
    assert main(["verify", str(out), "--public-key", f"{keys}.pub"]) == 0


def _exported(certified: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(certified, out)
    assert main(["export", str(out), "--workers", "0", "--quiet"]) == 0
    return out


def test_verify_checks_tables_against_export_json(certified: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = _exported(certified, tmp_path)
    capsys.readouterr()
    assert main(["verify", str(out), "--no-reproduce"]) == 0
    assert "tables/ (holdem export) matches its export.json" in capsys.readouterr().out
    # a part rewritten (a seat's chips won moved to another player) with export.json restamped:
    # only making the part again from its batch file shows it
    rel = "seats/" + next(p.name for p in (out / "tables" / "seats").iterdir())
    part = out / "tables" / rel
    t = pq.read_table(part)
    won = t.column("won")
    i = t.schema.get_field_index("won")
    t = t.set_column(i, t.schema.field(i), pc.add(won, 1))
    data = encode_table(t).to_pybytes()
    part.write_bytes(data)
    rec = json.loads((out / "tables" / "export.json").read_text())
    for p in rec["parts"]:
        if p["path"] == rel:
            p.update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    (out / "tables" / "export.json").write_text(json.dumps(rec, indent=2))
    assert main(["verify", str(out), "--no-reproduce"]) == 1
    assert f"tables/{rel}: not what `holdem export` makes of" in capsys.readouterr().out


@pytest.mark.parametrize("edit", ["extra-file", "no-export-json", "other-manifest", "part-edited"])
def test_tables_that_do_not_match_export_json(certified: Path, tmp_path: Path, edit: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = _exported(certified, tmp_path)
    tables = out / "tables"
    record = tables / "export.json"
    if edit == "extra-file":
        (tables / "hands" / "part-extra.parquet").write_bytes(b"x")
        phrase = "hands/part-extra.parquet: not a part export.json lists"
    elif edit == "no-export-json":
        record.unlink()
        phrase = "export.json: missing: tables/ holds a partial or foreign export"
    elif edit == "other-manifest":
        rec = json.loads(record.read_text())
        rec["manifest"]["sha256"] = "0" * 64
        record.write_text(json.dumps(rec))
        phrase = "made from a manifest.json of sha256 0000000000000000..."
    else:
        part = next((tables / "actions").iterdir())
        part.write_bytes(part.read_bytes() + b"\0")
        phrase = f"actions/{part.name}: edited: its sha256 is not the one export.json records"
    capsys.readouterr()
    assert main(["verify", str(out), "--no-reproduce"]) == 1
    assert phrase in capsys.readouterr().out


def test_verify_reproduce_options(certified: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--reproduce N samples N files; --reproduce alone is the default's alias; with
    --no-reproduce the line says the run was not re-simulated; both at once is a usage error."""
    assert main(["verify", str(certified), "--reproduce", "1"]) == 0
    assert "REPRODUCED: 1 of 2 batch files (2,000 hands)" in capsys.readouterr().out
    assert main(["verify", str(certified), "--no-reproduce"]) == 0
    line = capsys.readouterr().out
    assert "not re-simulated (--no-reproduce)" in line and "nothing was authenticated" in line
    assert main(["verify", str(certified), "--reproduce", "1", "--no-reproduce"]) == 2
    assert "choose one" in capsys.readouterr().err
