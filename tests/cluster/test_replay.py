"""``holdem replay``: a logged row is dealt and played again, printed as a history or as PHH."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from audits.runfolder import (
    AUDIT_FILE,
    UNLISTED,
    UnlistedFileError,
    batch_relpath,
    list_batch_files,
    unlisted_reason,
)
from cluster.cli import main
from cluster.flows.replay import ReplayMismatch, replay_row_or_mismatch
from cluster.flows.simulate import run_dataset, run_simulate
from sim.histories.read.phh import loads_phh, phh_player_order
from sim.histories.replay.reference import replay
from sim.logv4 import as_v3
from sim.runspec import RunSpec
from sim.schema import decode_actions

ALL = ("no-limit", "pot-limit", "fixed-limit")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Small runs of every structure: cash with rake, cash without rake (PHH has no rake
    field), tournament (antes, dead blinds, dead button)."""
    root = tmp_path_factory.mktemp("replay")
    specs = {
        "cash": RunSpec(hands=400, batch_size=200, structures=ALL, seed=21),
        "unraked": RunSpec(hands=400, batch_size=400, structures=ALL, seed=22, rake_bps=0),
        "tournament": RunSpec(hands=600, batch_size=300, structures=ALL, seed=23, players=9,
                              format="tournament"),
    }
    for name, spec in specs.items():
        run_simulate(spec, root / name, workers=0, progress=False)
    return {name: root / name for name in specs}


@pytest.mark.parametrize("name", ["cash", "tournament"])
def test_every_logged_hand_replays(runs: dict[str, Path], name: str) -> None:
    rows = as_v3(run_dataset(runs[name]).to_table()).to_pylist()
    assert len(rows) in (1200, 1800)
    for row in rows:
        hand = replay_row_or_mismatch(row)
        assert hand.stacks == row["stacks_end"]
    if name == "tournament":
        assert any(r["sb_seat"] == -1 for r in rows)  # a dead small blind replayed too
        assert any(r["ante"] > 0 for r in rows)


def test_cli_prints_the_history(runs: dict[str, Path],
                                capsys: pytest.CaptureFixture[str]) -> None:
    table = as_v3(run_dataset(runs["cash"]).to_table())
    row = table.filter(pc.equal(table["structure"], "pot-limit")).slice(7, 1).to_pylist()[0]
    assert main(["replay", str(runs["cash"]), "--hand", str(row["hand_id"])]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Hand {row['hand_id']} (run {row['run_id']}, table {row['table_id']}")
    assert "pot-limit hold'em 1/2" in out and "*** PRE-FLOP ***" in out
    assert "*** SUMMARY ***" in out
    for s, (a, b) in enumerate(zip(row["stacks_start"], row["stacks_end"], strict=True)):
        if a:
            assert f"seat {s}: {a} -> {b} ({b - a:+d})" in out


def test_phh_output_verifies(runs: dict[str, Path], tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    rows = as_v3(run_dataset(runs["unraked"]).to_table()).to_pylist()
    picked = [next(r for r in rows if r["structure"] == s) for s in ALL]
    picked.append(next(r for r in rows if len(r["board"]) == 5 and len(r["showdown_seats"]) > 2))
    for row in picked:
        assert main(["replay", str(runs["unraked"]), "--hand", str(row["hand_id"]),
                     "--phh"]) == 0
        text = capsys.readouterr().out
        phh = loads_phh(text)[0]
        result = replay(phh)
        assert result.ok, result.error
        order = phh_player_order(replay_row_or_mismatch(row))
        assert result.actual == [row["stacks_end"][s] for s in order]
        assert phh.extra["hand"] == row["hand_id"]
        path = tmp_path / f"hand-{row['hand_id']}.phh"
        path.write_text(text)
    assert main(["phh", "verify", str(tmp_path)]) == 0  # and through the command itself


def test_phh_of_a_raked_hand_is_refused(runs: dict[str, Path],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    rows = run_dataset(runs["cash"]).to_table(columns=["hand_id", "rake"]).to_pylist()
    hid = next(r["hand_id"] for r in rows if r["rake"] > 0)
    assert main(["replay", str(runs["cash"]), "--hand", str(hid), "--phh"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "rake" in err[0]


def test_unknown_hand_and_folder(runs: dict[str, Path], tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(runs["cash"]), "--hand", "123456789"]) == 2
    assert "has no hand 123456789" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "nothing"), "--hand", "1"]) == 2
    assert "no such run folder" in capsys.readouterr().err  # the one lister's words


def test_a_tampered_row_does_not_replay(runs: dict[str, Path], tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    row = as_v3(run_dataset(runs["cash"]).to_table().slice(3, 1)).to_pylist()[0]
    moved = dict(row, stacks_end=[v + (1 if s == 0 else -1 if s == 1 else 0)
                                  for s, v in enumerate(row["stacks_end"])])
    with pytest.raises(ReplayMismatch, match="does not replay.*stacks"):
        replay_row_or_mismatch(moved)
    raised = decode_actions(row["actions"]).copy()
    k = next(i for i, a in enumerate(raised) if a["kind"] in (9, 10))  # a bet or raise
    raised[k]["to_street_total"] += 10**6
    with pytest.raises(ReplayMismatch, match="does not replay.*raise to"):
        replay_row_or_mismatch(dict(row, actions=raised.tobytes()))
    # through the command: a run whose file was rewritten with one chip moved
    run = tmp_path / "run"
    run_simulate(RunSpec(hands=50, batch_size=50, seed=4), run, workers=0, progress=False)
    path = list_batch_files(run)[0]
    table = pq.read_table(path)
    rows = table.to_pylist()
    end = rows[0]["stacks_end"]
    if isinstance(end, bytes):  # schema 4: packed
        moved = np.frombuffer(end, "<i8").copy()
        moved[0] += 1
        rows[0]["stacks_end"] = moved.tobytes()
    else:
        end[0] += 1
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)
    assert main(["replay", str(run), "--hand", str(rows[0]["hand_id"])]) == 1
    err = capsys.readouterr().err
    assert "does not replay" in err and f"hand {rows[0]['hand_id']}" in err and "stacks" in err


def test_a_malformed_action_log_is_a_one_line_input_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    run_simulate(RunSpec(hands=50, batch_size=50, seed=4), run, workers=0, progress=False)
    path = list_batch_files(run)[0]
    table = pq.read_table(path)
    rows = table.to_pylist()
    rows[0]["actions"] = rows[0]["actions"][:-3]  # not whole 19-byte records
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)
    assert main(["replay", str(run), "--hand", str(rows[0]["hand_id"])]) == 2
    err = capsys.readouterr().err
    assert f"hand {rows[0]['hand_id']}: column 'actions' is not whole 19-byte records" in err
    assert len(err.strip().splitlines()) == 1


def test_an_unlisted_file_in_the_log_fails_replay_as_it_fails_the_audit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every command reads the log through the run folder's one lister
    (``RunFolder.log_files``): a batch file the manifest does not list, holding hands that
    replay on their own, is not replayed around; replay fails it (exit 1) with the integrity
    audit's own words."""
    spec = RunSpec(hands=100, batch_size=50, structures=("no-limit",), seed=4)
    run, other = tmp_path / "run", tmp_path / "other"
    run_simulate(spec, run, workers=0, progress=False)
    run_simulate(RunSpec(hands=150, batch_size=50, structures=("no-limit",), seed=4), other,
                 workers=0, progress=False)
    extra = batch_relpath("no-limit", 2)
    (run / extra).write_bytes((other / extra).read_bytes())  # hands the run does not hold
    hand = pq.read_table(run / extra, columns=["hand_id"])["hand_id"][0].as_py()
    assert main(["replay", str(other), "--hand", str(hand)]) == 0  # it replays where listed
    capsys.readouterr()
    said = f"{UNLISTED}: {unlisted_reason(extra)}"
    assert main(["replay", str(run), "--hand", str(hand)]) == 1
    err = capsys.readouterr().err.strip()
    assert said in err and len(err.splitlines()) == 1
    with pytest.raises(UnlistedFileError, match=said):
        run_dataset(run)
    assert main(["audit", str(run), "--workers", "0", "--quiet", "--only", "integrity"]) == 1
    capsys.readouterr()
    audit = json.loads((run / AUDIT_FILE).read_text())
    integrity = next(r for r in audit["results"] if r["name"] == "integrity")
    assert unlisted_reason(extra) in [v["reason"] for v in integrity["details"]["violations"]]
    # and the export, which reads the log through the same lister, refuses it in the same words
    assert main(["export", str(run), "--out", str(tmp_path / "tables"), "--workers", "0"]) == 1
    err = capsys.readouterr().err.strip()
    assert said in err and len(err.splitlines()) == 1
    assert not (tmp_path / "tables").exists()
