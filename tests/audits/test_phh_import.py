"""``holdem phh import``: PHH hands -> a run folder; exact audits pass, and fail on tampering."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from audits.runner import run_audits
from cluster.flows.import_histories import format_import, import_phh
from sim.logv4 import as_v3
from tests.audits.forgery import packed_like

EXACT = ["deal", "chips", "rotation", "payouts", "betting"]

HANDS = {
    "ivey.phh": """
variant = "NT"
ante_trimming_status = true
antes = [500, 500, 500]
blinds_or_straddles = [1000, 2000, 0]
min_bet = 2000
starting_stacks = [1125600, 2000000, 553500]
actions = ["d dh p1 Ac2d", "d dh p2 ????", "d dh p3 7h6h", "p3 cbr 7000", "p1 cbr 23000",
  "p2 f", "p3 cc", "d db Jc3d5c", "p1 cbr 35000", "p3 cc", "d db 4h", "p1 cbr 90000",
  "p3 cbr 232600", "p1 cbr 1067100", "p3 cc", "p1 sm Ac2d", "p3 sm 7h6h", "d db Jh"]
finishing_stacks = [572100, 1997500, 1109500]
""",
    "headsup.phh": """
variant = "NT"
antes = [0, 0]
blinds_or_straddles = [1, 2]
min_bet = 2
starting_stacks = [200, 150]
actions = ["d dh p1 AsAh", "d dh p2 ????", "p2 cc", "p1 cbr 8", "p2 cc", "d db 2c7d9h",
  "p1 cbr 10", "p2 f"]
finishing_stacks = [208, 142]
""",
    "limit.phh": """
variant = "FT"
antes = [0, 0, 0, 0]
blinds_or_straddles = [1, 2, 0, 0]
small_bet = 2
big_bet = 4
starting_stacks = [100, 100, 100, 100]
actions = ["d dh p1 ????", "d dh p2 ????", "d dh p3 KsKd", "d dh p4 ????", "p3 cbr 4",
  "p4 f", "p1 f", "p2 cc", "d db 2c7d9h", "p2 cc", "p3 cbr 2", "p2 cc", "d db Th",
  "p2 cc", "p3 cc", "d db 3s", "p2 cbr 4", "p3 cc", "p2 sm QcQh", "p3 sm KsKd"]
""",
    "stud.phh": """
variant = "F7S"
antes = [1, 1]
bring_in = 1
small_bet = 2
big_bet = 4
starting_stacks = [100, 100]
actions = []
""",
}


@pytest.fixture()
def imported(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name, text in HANDS.items():
        (src / name).write_text(text)
    run = tmp_path / "run"
    res = import_phh([str(src)], run)
    assert res.exit_code == 0 and res.imported == 3
    text = format_import(res)
    assert "4 hands submitted, 3 imported, 1 skipped (1 unknown variant)" in text
    assert "stud.phh" in text  # skipped, one line
    return run


def _audit(run: Path) -> dict:
    return {r.name: r for r in run_audits(run, EXACT + ["uniformity"]).results}


def test_imported_hands_pass_the_exact_audits(imported: Path) -> None:
    m = json.loads((imported / "manifest.json").read_text())
    assert m["source"] == "import" and m["spec"] is None and m["hands"] == 3
    assert {s["rows"] for s in m["sources"]} == {0, 1}
    assert all(len(s["sha256"]) == 64 for s in m["sources"])
    res = _audit(imported)
    for name in ("chips", "rotation", "payouts", "betting"):
        assert res[name].passed and res[name].applicable, (name, res[name])
    assert res["deal"].passed
    assert not res["uniformity"].applicable and res["uniformity"].passed
    t = as_v3(pa.concat_tables(pq.read_table(imported / f["path"]) for f in m["files"]))
    rows = {r["hand_id"]: r for r in t.to_pylist()}
    assert all(r["deck"] is None and r["generator"] == "phh" for r in rows.values())
    ivey = next(r for r in rows.values() if r["n_seats"] == 3)
    assert ivey["stacks_end"] == [572100, 1997500, 1109500]
    assert ivey["hole_cards"][2:4] == [-1, -1]  # p2's cards are unknown
    assert (ivey["ante"], ivey["ante_mode"]) == (500, 1)


def test_tampered_chip_fails_the_chips_audit(imported: Path) -> None:
    m = json.loads((imported / "manifest.json").read_text())
    path = imported / next(f["path"] for f in m["files"] if f["structure"] == "fixed-limit")
    stored = pq.read_schema(path)
    t = as_v3(pq.read_table(path))
    end = t.column("stacks_end").to_pylist()
    end[0][0] += 1
    hand_id = t.column("hand_id")[0].as_py()
    t = t.set_column(t.schema.get_field_index("stacks_end"), "stacks_end",
                     pa.array(end, t.schema.field("stacks_end").type))
    pq.write_table(packed_like(t, stored), path)
    res = _audit(imported)
    assert not res["chips"].passed
    assert hand_id in res["chips"].example_hand_ids


SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "phh"


def test_import_and_audit_shared_phh(tmp_path: Path) -> None:
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED}: the shared PHH data set is absent")
    run = tmp_path / "run"
    assert import_phh([str(SHARED)], run).exit_code == 0
    m = json.loads((run / "manifest.json").read_text())
    # every NT/FT hand imports; the 8 Pluribus hands that record half chips make the run's
    # unit a tenth of a chip, in which the rules split their pots exactly as the record does
    assert set(m["skipped"]) == {"unknown variant"}, m["skipped"]
    report = json.loads((run / "import.json").read_text())
    assert report["money"]["exponent"] == 1 and report["replay_differs"] == 0
    assert m["hands"] == 10_019
    res = _audit(run)
    for name in ("chips", "rotation", "payouts", "betting"):
        assert res[name].passed and res[name].applicable, (name, res[name].details)
    assert res["deal"].passed
    # no decks: the deck tests are n/a; every card recorded (folded hands' too), so the
    # starting-hand classes per seat are tested (issue 23: who receives the cards)
    uni = res["uniformity"]
    assert uni.applicable and uni.passed, uni.details
    tests = {t["name"]: t for t in uni.details["tests"]}
    assert tests["uniformity.seat_hand_classes"]["applicable"]
    assert not tests["uniformity.card_position"]["applicable"]
    assert not tests["uniformity.seat_equity"]["applicable"]


def test_known_card_twice_fails_the_deal_audit(imported: Path) -> None:
    m = json.loads((imported / "manifest.json").read_text())
    path = imported / next(f["path"] for f in m["files"] if f["structure"] == "fixed-limit")
    stored = pq.read_schema(path)
    t = as_v3(pq.read_table(path))
    board = t.column("board").to_pylist()
    hole = t.column("hole_cards").to_pylist()
    board[0][0] = hole[0][4]  # p3's known king on the board too
    t = t.set_column(t.schema.get_field_index("board"), "board",
                     pa.array(board, t.schema.field("board").type))
    pq.write_table(packed_like(t, stored), path)
    res = _audit(imported)
    assert res["deal"].applicable and not res["deal"].passed
    assert t.column("hand_id")[0].as_py() in res["deal"].example_hand_ids


def test_imported_run_reads_in_diff_and_audit(imported: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from audits.runfolder import RunFolder, parse_batch_relpath
    from cluster.cli import main

    m = json.loads((imported / "manifest.json").read_text())
    assert m["format"] == "holdem-import" and m["manifest_version"] == 2
    folder = RunFolder.open(imported)
    assert [f["path"] for f in m["files"]] == folder.batch_relpaths()
    assert all(parse_batch_relpath(f["path"]) == (f["structure"], f["batch"])
               for f in m["files"])
    capsys.readouterr()
    assert main(["diff", str(imported), str(imported)]) == 0
    assert "IDENTICAL: 3 hands match" in capsys.readouterr().out
    assert main(["audit", str(imported), "--workers", "0", "--quiet",
                 "--only", ",".join(EXACT)]) == 0
    audit = json.loads((imported / "audit.json").read_text())
    integrity = next(r for r in audit["results"] if r["name"] == "integrity")
    assert integrity["passed"] and integrity["applicable"]  # bound to the importer's manifest


def test_import_to_a_uri(tmp_path: Path) -> None:
    src = tmp_path / "h.phh"
    src.write_text(HANDS["headsup.phh"])
    assert import_phh([str(src)], f"file://{tmp_path}/uri-run").exit_code == 0
    m = json.loads((tmp_path / "uri-run" / "manifest.json").read_text())
    assert [f["path"] for f in m["files"]] == ["log/no-limit/batch-00000.parquet"]
    assert run_audits(f"file://{tmp_path}/uri-run", EXACT).passed


def test_import_never_overwrites_another_run(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """An import into a simulated run's folder is refused in one line (exit 2) and changes
    nothing; into a previous import it replaces the hands and removes the stale audit files."""
    from cluster.cli import main
    from cluster.flows.simulate import run_simulate
    from sim.runspec import RunSpec

    sim_run = tmp_path / "simulated"
    run_simulate(RunSpec(hands=200, batch_size=100, structures=("no-limit",), seed=2), sim_run,
                 workers=0, progress=False)
    before = {p: p.read_bytes() for p in sim_run.rglob("*") if p.is_file()}
    src = tmp_path / "h.phh"
    src.write_text(HANDS["headsup.phh"])
    capsys.readouterr()
    assert main(["phh", "import", str(src), "--out", str(sim_run)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holdem-simulate-run" in err[0] and "nothing was changed" in err[0]
    assert {p: p.read_bytes() for p in sim_run.rglob("*") if p.is_file()} == before

    again = tmp_path / "imported"
    assert import_phh([str(src)], again).exit_code == 0
    assert main(["audit", str(again), "--workers", "0", "--quiet", "--only", "chips"]) == 0
    assert (again / "audit.json").is_file()
    res = import_phh([str(src)], again)
    assert res.removed == ["audit.json", "import.json"]
    assert not (again / "audit.json").exists() and (again / "import.json").exists()
    assert "removed the previous import's audit.json" in format_import(res)


def test_a_bad_section_skips_its_hand_not_its_file(tmp_path: Path) -> None:
    """Per hand, never per file: a .phhs whose second section holds an amount no currency can
    hold (``1e400``) and whose third is cut imports its good hands; each bad one is named with
    its file, section and reason, and counted by kind."""
    good = HANDS["headsup.phh"]
    bad = good.replace("starting_stacks = [200, 150]", "starting_stacks = [1e400, 150]")
    src = tmp_path / "hands.phhs"
    src.write_text(f"[1]\n{good}\n[2]\n{bad}\n[3]\n{good}\n[4]\nvariant = \"NT\"\nantes = [0,")
    run = tmp_path / "run"
    res = import_phh([str(src)], run)
    assert res.imported == 2
    named = [line for line in res.skipped_lines if str(src) in line]
    assert len(named) == 2 and any("[2]" in x for x in named) and any("[4]" in x for x in named)
    m = json.loads((run / "manifest.json").read_text())
    (entry,) = m["sources"]
    assert (entry["sections"], entry["rows"]) == (4, 2)
    assert sum(m["skipped"].values()) == 2
    assert {r.name: r.passed for r in run_audits(run, EXACT).results} == dict.fromkeys(EXACT,
                                                                                        True)
