"""The verdict bound to the bytes (issue #13): the integrity audit against files forged the way an
attacker would (every column that could give the forgery away rewritten, row digests recomputed
with ``sim.digest``, the manifest's sha256, bytes, rows and totals rewritten), ``holdem report``
refusing a folder changed after the audit, and ``holdem verify`` with and without signatures."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from audits.integrity import PRODUCTS, id_ranges, reduce_integrity
from audits.runfolder import REPORT_FILES, SIGNATURE_FILE, batch_relpath
from audits.runner import AUDIT_FILE
from cluster.cli import main
from cluster.flows.simulate import run_simulate
from sim.digest import with_digests
from sim.logv4 import as_v3
from sim.runspec import RunSpec
from tests.audits.forgery import packed_like

F0 = batch_relpath("no-limit", 0)
F1 = batch_relpath("no-limit", 1)
HANDS = 2000  # two files of 1000


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-file run, audited and reported (signed with a key made by holdem keygen)."""
    root = tmp_path_factory.mktemp("integrity")
    run = root / "run"
    run_simulate(RunSpec(hands=HANDS, batch_size=HANDS // 2, structures=("no-limit",), seed=9),
                 run, workers=0, progress=False)
    assert main(["keygen", "--out", str(root / "key")]) == 0
    assert main(["keygen", "--out", str(root / "other")]) == 0
    assert main(["audit", str(run), "--workers", "0", "--quiet"]) == 0
    assert main(["report", str(run), "--sign-key", str(root / "key")]) == 0
    return run


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _manifest(run: Path) -> dict:
    return json.loads((run / "manifest.json").read_text())


def _write_manifest(run: Path, m: dict) -> None:
    """The manifest rewritten with totals consistent with its file records."""
    recs = m["files"]
    m["totals"] = {"hands": sum(r["hands"] for r in recs), "rows": sum(r["rows"] for r in recs),
                   "files": len(recs), "bytes": sum(r["bytes"] for r in recs)}
    (run / "manifest.json").write_text(json.dumps(m, indent=2) + "\n")


def _rewrite(run: Path, rel: str, table: pa.Table) -> None:
    """Write ``table`` as ``rel`` with fresh row digests, and record it in the manifest (sha256,
    bytes, rows, hands): what a careful forger leaves."""
    table = with_digests(table.drop_columns(["digest"]))
    f = run / rel
    table = packed_like(table, pq.read_schema(f))
    pq.write_table(table, f, compression="zstd")
    m = _manifest(run)
    for rec in m["files"]:
        if rec["path"] == rel:
            rec.update(sha256=hashlib.sha256(f.read_bytes()).hexdigest(), bytes=f.stat().st_size,
                       rows=table.num_rows, hands=table.num_rows)
    _write_manifest(run, m)


def _audit(run: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict, str]:
    rc = main(["audit", str(run), "--workers", "0", "--quiet"])
    out = capsys.readouterr().out
    audit = json.loads((run / AUDIT_FILE).read_text())
    integrity = next(r for r in audit["results"] if r["name"] == "integrity")
    return rc, integrity, out


def _reasons(integrity: dict) -> list[str]:
    return [v["reason"] for v in integrity["details"]["violations"]]


def test_the_clean_run_passes_and_records_what_it_audited(certified: Path) -> None:
    audit = json.loads((certified / AUDIT_FILE).read_text())
    integrity = next(r for r in audit["results"] if r["name"] == "integrity")
    assert integrity["passed"] and integrity["applicable"] and integrity["hands_checked"] == HANDS
    files = {f["path"]: f for f in audit["inputs"]["files"]}
    assert set(files) == {F0, F1}
    for rel in (F0, F1):
        assert files[rel]["sha256"] == hashlib.sha256((certified / rel).read_bytes()).hexdigest()
    cert = json.loads((certified / REPORT_FILES["certificate"]).read_text())
    assert cert["run"]["files"] == [{**f, "rows": f["rows"]} for f in audit["inputs"]["files"]]
    assert cert["run"]["audit_sha256"] == hashlib.sha256(
        (certified / AUDIT_FILE).read_bytes()).hexdigest()
    assert cert["run"]["manifest_sha256"] == audit["inputs"]["manifest"]["sha256"] == (
        hashlib.sha256((certified / "manifest.json").read_bytes()).hexdigest())


def test_garbage_file_dropped_from_the_manifest_fails(certified: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    run = _copy(certified, tmp_path / "run")
    (run / F1).write_bytes(b"\x00garbage" * 500)
    m = _manifest(run)
    m["files"] = [r for r in m["files"] if r["path"] != F1]
    _write_manifest(run, m)  # totals now say 1 file of 1000 hands: only the spec disagrees
    rc, integrity, out = _audit(run, capsys)
    assert rc == 1 and not integrity["passed"]
    assert f"{F1}: in the run folder but not listed in manifest.json" in _reasons(integrity)
    assert ("no-limit: 1,000 hands audited, the manifest's spec declares 2,000"
            in _reasons(integrity))
    assert "FAILED" in out
    assert main(["report", str(run)]) == 0
    cert = json.loads((run / REPORT_FILES["certificate"]).read_text())
    assert cert["verdict"] == "FAIL"
    assert [f["path"] for f in cert["run"]["unaudited_files"]] == [F1]
    capsys.readouterr()
    assert main(["verify", str(run)]) == 0  # the FAIL certificate speaks for these bytes
    out = capsys.readouterr().out
    assert out.startswith("VERIFIED: the certificate of 1,000 hands (verdict: FAIL")
    (run / F1).write_bytes(b"other garbage")
    assert main(["verify", str(run)]) == 1
    assert f"MISMATCH: {F1}: sha256 " in capsys.readouterr().out


def test_unlisted_file_fails(certified: Path, tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    run = _copy(certified, tmp_path / "run")
    shutil.copy(run / F0, run / batch_relpath("no-limit", 2))
    rc, integrity, _ = _audit(run, capsys)
    assert rc == 1
    assert _reasons(integrity) == [f"{batch_relpath('no-limit', 2)}: in the run folder but "
                                   "not listed in manifest.json"]


def test_parquet_named_like_a_temporary_write_fails(certified: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A file an attacker names like a leftover of an atomic write, but that the documented
    readers (``RUN/log/**/*.parquet``) take: the audit and ``holdem verify`` name it."""
    import polars as pl

    run = _copy(certified, tmp_path / "run")
    forged = "log/no-limit/.batch-00001.parquet.tmp-abc.parquet"
    shutil.copy(run / F1, run / forged)
    read = pl.scan_parquet(f"{run}/log/**/*.parquet").select(pl.len()).collect().item()
    assert read == HANDS + HANDS // 2  # what a reader of the log sees: the forged hands too
    capsys.readouterr()
    assert main(["verify", str(run)]) == 1
    assert f"MISMATCH: {forged}: in the run folder but not in certificate.json" in (
        capsys.readouterr().out)
    rc, integrity, _ = _audit(run, capsys)
    assert rc == 1
    assert _reasons(integrity) == [f"{forged}: in the run folder but not listed in "
                                   "manifest.json"]
    # a true leftover of put_atomic (12 hex digits, no .parquet): no reader takes it, not a file
    # of the run
    run2 = _copy(certified, tmp_path / "run2")
    shutil.copy(run2 / F1, run2 / "log/no-limit/.batch-00001.parquet.tmp-0123456789ab")
    assert pl.scan_parquet(f"{run2}/log/**/*.parquet").select(pl.len()).collect().item() == HANDS
    rc, integrity, _ = _audit(run2, capsys)
    assert rc == 0 and integrity["passed"]


def test_manifest_listing_files_outside_the_log_is_refused(
        certified: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The second file moved where the log's readers never look (a product folder), the
    manifest's path rewritten: the audit refuses the manifest, naming files[1].path."""
    run = _copy(certified, tmp_path / "run")
    hidden = "tables/x/batch-00001.parquet"
    (run / hidden).parent.mkdir(parents=True)
    (run / F1).rename(run / hidden)
    m = _manifest(run)
    m["files"][1]["path"] = hidden
    _write_manifest(run, m)
    capsys.readouterr()
    assert main(["audit", str(run), "--workers", "0", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"holdem: error: {run / 'manifest.json'}: files[1].path {hidden!r} is not a "
                   "batch file of the run (log/<label>/batch-<index:05d>.parquet)"]


def test_manifest_of_the_old_layout_gives_the_migrate_hint(
        certified: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Files at the new paths, the manifest still listing the old ones (a migration interrupted
    before the manifest was rewritten): the one-line hint, not "listed but missing"."""
    run = _copy(certified, tmp_path / "run")
    m = _manifest(run)
    for f in m["files"]:
        f["path"] = f"structure=no-limit/batch-{f['batch']:05d}.parquet"
    _write_manifest(run, m)
    capsys.readouterr()
    for argv in (["audit", str(run), "--workers", "0", "--quiet"],
                 ["export", str(run), "--workers", "0", "--quiet"]):
        assert main(argv) == 2
        assert capsys.readouterr().err.strip().splitlines() == [
            f"holdem: error: {run} uses the old layout (structure=no-limit/...); convert it "
            f"with `holdem migrate {run}`"]


def test_missing_file_fails(certified: Path, tmp_path: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    run = _copy(certified, tmp_path / "run")
    (run / F1).unlink()
    rc, integrity, _ = _audit(run, capsys)
    assert rc == 1 and integrity["hands_checked"] == HANDS // 2
    assert _reasons(integrity)[0] == f"{F1}: listed in manifest.json but missing"


def test_file_bytes_not_the_manifests_fail(certified: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    run = _copy(certified, tmp_path / "run")
    t = pq.read_table(run / F1)
    pq.write_table(t, run / F1, compression="zstd", compression_level=7)  # same rows, new bytes
    rc, integrity, _ = _audit(run, capsys)
    assert rc == 1 and len(_reasons(integrity)) == 1
    assert _reasons(integrity)[0].startswith(f"{F1}: sha256 ")
    assert "differs from the manifest's" in _reasons(integrity)[0]


def test_hand_total_short_fails(certified: Path, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    run = _copy(certified, tmp_path / "run")
    t = pq.read_table(run / F1)
    _rewrite(run, F1, t.slice(0, t.num_rows - 100))  # the last 100 hands dropped, all recorded
    rc, integrity, _ = _audit(run, capsys)
    assert rc == 1
    assert _reasons(integrity) == ["no-limit: 1,900 hands audited, the manifest's "
                                   "spec declares 2,000",
                                   # the restamped record disagrees with the spec's plan too
                                   "manifest.json: files[1].hands is 900, the spec gives 1000"]


def test_gap_in_hand_ids_fails(certified: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    run = _copy(certified, tmp_path / "run")
    t = pq.read_table(run / F1)
    first = t["hand_id"][0].as_py()
    shifted = pc.add(t["hand_id"], 10)  # the second file renumbered: 10 ids never logged
    _rewrite(run, F1, t.set_column(t.schema.get_field_index("hand_id"), "hand_id", shifted))
    rc, integrity, _ = _audit(run, capsys)
    assert rc == 1
    assert (f"no-limit: hand ids {first}..{first + 9} (10) missing (a gap in the "
            "stream)") in _reasons(integrity)
    assert first in integrity["example_hand_ids"]


def test_duplicate_hand_ids_fail(certified: Path, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    run = _copy(certified, tmp_path / "run")
    t0 = pq.read_table(run / F0)  # the same hands logged twice, as the second file too
    _rewrite(run, F1, t0)
    rc, integrity, _ = _audit(run, capsys)
    lo, hi = t0["hand_id"][0].as_py(), t0["hand_id"][-1].as_py()
    assert rc == 1
    assert (f"no-limit: hand ids {lo}..{hi} (1,000) appear more than once"
            in _reasons(integrity))
    assert (f"no-limit: hand ids {hi + 1}..{hi + 1000} (1,000) missing (a gap in the "
            "stream)") not in _reasons(integrity)  # after the last id: a short total, not a gap
    # the problem that names hands is in failing_hands.csv with the others' (issue 36)
    listed = (run / "failing_hands.csv").read_text()
    assert f"integrity,{lo}," in listed and "appear more than once" in listed


def test_id_ranges_merge() -> None:
    import numpy as np

    from audits.integrity import IdRanges

    parts = [IdRanges(5, {"x": id_ranges(np.array([4, 0, 1, 2, 2]))}),
             IdRanges(3, {"x": id_ranges(np.array([7, 8, 9]))})]
    res = reduce_integrity("integrity", parts)  # no manifest: duplicates only
    assert res.failures == 1 and res.example_hand_ids == (2,)
    assert "hand id 2 appear more than once" in res.details["violations"][0]["reason"]


def test_file_changed_after_the_audit_is_refused(certified: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    run = _copy(certified, tmp_path / "run")
    t = as_v3(pq.read_table(run / F0))
    won = t["won"].to_pylist()
    won[3][0], won[3][1] = won[3][1], won[3][0]
    field = t.schema.field("won")
    _rewrite(run, F0, t.set_column(t.schema.get_field_index("won"), field,
                                   pa.array(won, field.type)))
    capsys.readouterr()
    assert main(["report", str(run)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "the folder no longer matches audit.json: manifest.json: sha256" in err
    # the manifest left as it was: the batch file itself is named
    shutil.copy(certified / "manifest.json", run / "manifest.json")
    assert main(["report", str(run)]) == 2
    err = capsys.readouterr().err
    assert f"no longer matches audit.json: {F0}: sha256 " in err and "run `holdem audit" in err
    assert main(["verify", str(run)]) == 1
    assert f"MISMATCH: {F0}: sha256 " in capsys.readouterr().out
    # a file added after the audit
    run2 = _copy(certified, tmp_path / "run2")
    (run2 / "log" / "no-limit" / "notes.txt").write_text("x")
    assert main(["report", str(run2)]) == 2
    assert "log/no-limit/notes.txt: in the run folder but not in audit.json" in (
        capsys.readouterr().err)


def test_verify_a_received_run(certified: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = certified.parent / "key.pub"
    assert main(["verify", str(certified), "--public-key", str(key)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("VERIFIED: the certificate of 2,000 hands (verdict: PASS")
    from cluster.flows.signing import key_id, load_public_key

    assert f"signed by key {key_id(load_public_key(key))}" in out and "signature valid" in out
    # without the key nothing is authenticated: a signature present but unchecked exits 1
    # (issue #23: verify beside a stale .sig printed VERIFIED)
    assert main(["verify", str(certified)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("NOT AUTHENTICATED: ") and "nothing was authenticated" in out


def test_edited_certificate_fails_verify(certified: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    run = _copy(certified, tmp_path / "run")
    cert_path = run / REPORT_FILES["certificate"]
    cert = json.loads(cert_path.read_text())
    cert["run"]["hands"] = 4000  # a certificate that claims more hands than were audited
    cert_path.write_text(json.dumps(cert, indent=2))
    assert main(["verify", str(run)]) == 1
    out = capsys.readouterr().out
    assert "certificate.json: field run.hands disagrees with what audit.json" in out
    assert main(["verify", str(run), "--public-key", str(certified.parent / "key.pub")]) == 1
    assert "the signature does not verify" in capsys.readouterr().out
    # audit.json and certificate edited together: a hand total its own inputs contradict is
    # refused, naming the field
    audit = json.loads((run / AUDIT_FILE).read_text())
    audit["hands"] = 4000
    (run / AUDIT_FILE).write_text(json.dumps(audit, indent=2))
    cert["run"]["audit_sha256"] = hashlib.sha256((run / AUDIT_FILE).read_bytes()).hexdigest()
    cert_path.write_text(json.dumps(cert, indent=2))
    capsys.readouterr()
    assert main(["verify", str(run)]) == 2
    assert "field 'hands' is 4,000 but the files it records" in capsys.readouterr().err
    # a consistent edit that contradicts nothing (a p-value): only the signature catches it
    cert = json.loads((certified / REPORT_FILES["certificate"]).read_text())
    audit = json.loads((certified / AUDIT_FILE).read_text())
    uni = next(r for r in audit["results"] if r["name"] == "uniformity")
    uni["p_value"] = 0.5
    next(a for a in cert["audits"] if a["name"] == "uniformity")["p_value"] = 0.5
    (run / AUDIT_FILE).write_text(json.dumps(audit, indent=2))
    cert["run"]["audit_sha256"] = hashlib.sha256((run / AUDIT_FILE).read_bytes()).hexdigest()
    cert_path.write_text(json.dumps(cert, indent=2))
    capsys.readouterr()
    # consistent, so verify without a key finds no mismatch, but it does not say VERIFIED
    # beside a signature it did not check (exit 1: nothing was authenticated)
    assert main(["verify", str(run)]) == 1
    assert capsys.readouterr().out.startswith("NOT AUTHENTICATED: ")
    assert main(["verify", str(run), "--public-key", str(certified.parent / "key.pub")]) == 1
    assert f"{cert_path}: the signature does not verify" in capsys.readouterr().out


def test_signed_by_another_key_fails(certified: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    run = _copy(certified, tmp_path / "run")
    assert main(["report", str(run), "--sign-key", str(certified.parent / "other")]) == 0
    capsys.readouterr()
    assert main(["verify", str(run), "--public-key", str(certified.parent / "key.pub")]) == 1
    assert "signed by another key" in capsys.readouterr().out
    assert main(["verify", str(run), "--public-key", str(certified.parent / "other.pub")]) == 0
    assert main(["report", str(run)]) == 0  # unsigned again: the stale signature is removed
    assert not (run / SIGNATURE_FILE).exists()
    capsys.readouterr()
    assert main(["verify", str(run), "--public-key", str(certified.parent / "other.pub")]) == 1
    assert "certificate.sig: missing: the certificate is not signed" in capsys.readouterr().out


def test_verify_and_keys_bad_input(certified: Path, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(tmp_path / "absent")]) == 2
    run = _copy(certified, tmp_path / "run")
    (run / REPORT_FILES["certificate"]).write_text("{")
    assert main(["verify", str(run)]) == 2
    (tmp_path / "junk.pem").write_text("not a key")
    assert main(["verify", str(certified), "--public-key", str(tmp_path / "junk.pem")]) == 2
    assert main(["report", str(run), "--sign-key", str(tmp_path / "junk.pem")]) == 2
    assert main(["keygen", "--out", str(certified.parent / "key")]) == 2  # never overwritten
    err = [line for line in capsys.readouterr().err.splitlines() if line]
    assert len(err) == 5 and all(line.startswith("holdem: error: ") for line in err)
    assert "junk.pem: not a PEM public key" in err[2]


def test_products_are_not_files_of_the_run() -> None:
    assert {AUDIT_FILE, SIGNATURE_FILE, *REPORT_FILES.values()} <= PRODUCTS


@pytest.mark.parametrize("text,phrase", [
    ("[1", "not valid JSON"),
    ('{"format": "holdem-audit", "hands": 3, "seconds": 1, "results": 7}',
     "field 'results': expected list"),
    ('{"format": "holdem-audit", "hands": 3, "seconds": 1, "results": [{"name": "x"}]}',
     "results[0].passed: expected bool"),
])
def test_malformed_audit_json_is_one_line(certified: Path, tmp_path: Path, text: str,
                                          phrase: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    run = _copy(certified, tmp_path / "run")
    (run / AUDIT_FILE).write_text(text)
    assert main(["report", str(run)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and phrase in err and "audit.json" in err


def test_unwritable_output_and_truncated_parquet_are_one_line(
        certified: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a-file").write_text("")
    assert main(["simulate", "--hands", "10", "--batch-size", "10", "--workers", "0", "--quiet",
                 "--out", str(tmp_path / "a-file" / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "cannot write the run folder there" in err
    run = _copy(certified, tmp_path / "run")
    data = (run / F1).read_bytes()
    (run / F1).write_bytes(data[:len(data) // 2])
    assert main(["replay", str(run), "--hand", "5"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{F1}: not a readable Parquet file" in err


@pytest.mark.parametrize("folder", ["hand_id=7", "structure=pot-limit", "No-Limit"])
def test_a_label_a_reader_would_turn_into_a_column_is_refused(
        folder: str, certified: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Batch files moved to a `key=value` folder (DuckDB's hive partitioning would give every
    hand that column: hand_id = 7 for all) with the manifest rewritten: refused in one line."""
    run = _copy(certified, tmp_path / "run")
    (run / "log" / folder).mkdir()
    m = _manifest(run)
    for f in m["files"]:
        new = f"log/{folder}/batch-{f['batch']:05d}.parquet"
        (run / f["path"]).rename(run / new)
        f["path"] = new
    _write_manifest(run, m)
    capsys.readouterr()
    assert main(["audit", str(run), "--workers", "0", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "files[0].path" in err[0] and "not a batch file" in err[0]


def test_hands_in_the_folder_of_another_structure_fail(certified: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """No-limit hands moved to log/pot-limit/ (the manifest's paths and structure rewritten):
    a reader grouping by folder would count them as pot-limit; integrity names the file."""
    run = _copy(certified, tmp_path / "run")
    (run / "log" / "pot-limit").mkdir()
    m = _manifest(run)
    f = m["files"][1]
    new = batch_relpath("pot-limit", f["batch"])
    (run / f["path"]).rename(run / new)
    f.update(path=new, structure="pot-limit")
    _write_manifest(run, m)
    rc, integrity, _ = _audit(run, capsys)
    assert rc == 1 and not integrity["passed"]
    assert any("holds no-limit hands in the folder of pot-limit" in r
               for r in _reasons(integrity))


def test_without_a_manifest_an_extra_log_file_fails(certified: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """No manifest to bind to, a copy of a batch under another name in log/: the readers' glob
    takes it, so integrity fails it (it no longer passes as merely "unaudited")."""
    run = _copy(certified, tmp_path / "run")
    for name in ("manifest.json", AUDIT_FILE, *REPORT_FILES.values(), SIGNATURE_FILE):
        (run / name).unlink(missing_ok=True)
    shutil.copy(run / F0, run / "log" / "no-limit" / "extra.parquet")
    rc, integrity, _ = _audit(run, capsys)
    assert rc == 1 and not integrity["passed"]
    assert any(r.startswith("log/no-limit/extra.parquet: under log/ but not a batch file")
               for r in _reasons(integrity))


def test_links_in_the_folder_are_entries_never_followed(certified: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    """A broken link named like a batch file (filled later, every reader would take it): verify
    sees it as a file the certificate does not record; the audit refuses to read a link."""
    run = _copy(certified, tmp_path / "run")
    (run / "log" / "no-limit" / "batch-00009.parquet").symlink_to(tmp_path / "later.parquet")
    capsys.readouterr()
    assert main(["verify", str(run)]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH" in out and "log/no-limit/batch-00009.parquet" in out
    assert main(["audit", str(run), "--workers", "0", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "batch-00009.parquet: a symbolic link" in err


def test_a_path_listed_twice_is_refused(certified: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    run = _copy(certified, tmp_path / "run")
    m = _manifest(run)
    m["files"].append(dict(m["files"][0]))
    _write_manifest(run, m)
    capsys.readouterr()
    assert main(["audit", str(run), "--workers", "0", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert f"files[2].path {F0!r} is listed twice (files[0] too)" in err
