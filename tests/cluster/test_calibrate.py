"""``holdem calibrate``: a run is a detection only when the fault fired in it, and the options
reach the computation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from audits import calibrate as ucal
from cluster.cli import main
from cluster.flows import calibrate as cal


def test_a_run_is_a_detection_only_when_the_fault_fired(monkeypatch: pytest.MonkeyPatch) -> None:
    # (audit passed, hands fired) of four runs with the fault, in order
    runs = iter([(False, 0), (False, 3), (True, 5), (True, 0)])

    def fake_run(spec: Any, names: tuple[str, ...]) -> tuple[dict[str, bool], int]:
        if spec.inject is None:
            return dict.fromkeys(names, True), 0
        passed, fired = next(runs)
        return {names[0]: passed}, fired

    monkeypatch.setattr(cal, "_run", fake_run)
    out = cal.calibrate_exact(runs=4, hands=10, log=lambda *_: None,
                              faults={"mucks-winner": "payouts"})
    assert out["faults"]["mucks-winner"] == {"audit": "payouts", "runs": 4, "fired": 2,
                                             "caught": 1, "hands_fired": 8,
                                             "failed_unfired": 1}
    assert "| mucks-winner | payouts | 2/4 | 1/2 | 8 | 1/2 |" in cal.to_markdown(out)


def test_a_short_run_the_fault_cannot_fire_in_is_neither_a_miss_nor_a_detection() -> None:
    # chip-lost fires in 1 hand of 10,000: not in these 60 hands; wrong-stream-position (1 deck
    # of 50) does
    out = cal.calibrate_exact(runs=1, hands=60, log=lambda *_: None,
                              faults={"chip-lost": "chips", "wrong-stream-position": "deal"})
    lost = out["faults"]["chip-lost"]
    assert lost["fired"] == lost["caught"] == lost["hands_fired"] == lost["failed_unfired"] == 0
    assert "| chip-lost | chips | 0/1 | 0/0 | 0 | 0/1 |" in cal.to_markdown(out)
    wrong = out["faults"]["wrong-stream-position"]
    assert wrong["fired"] == 1 and wrong["hands_fired"] > 0
    assert all(r["false_alarms"] == 0 for r in out["clean"].values())


def test_uniformity_options_reach_the_battery(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    def fake_exact(**kw: Any) -> dict[str, Any]:
        seen.update(kw)
        return {"runs": kw["runs"], "hands": kw["hands"], "faults": {}, "clean": {}}

    monkeypatch.setattr(cal, "calibrate_exact", fake_exact)
    monkeypatch.setattr(ucal, "FAULT_SIZES", {"asf_off_by_one": (100, 300)})
    assert main(["calibrate", "--out", str(tmp_path), "--runs", "2", "--hands", "10",
                 "--uniformity-runs", "4", "--uniformity-big-runs", "1",
                 "--parts", "exact,uniformity"]) == 0
    assert seen == {"runs": 2, "hands": 10}
    uni = json.loads((tmp_path / "calibration.json").read_text())["uniformity"]
    assert uni["clean"]["battery"]["runs"] == 4  # fair decks
    assert {n: s["battery"]["runs"] for n, s in uni["faults"]["asf_off_by_one"].items()} == \
        {"100": 4, "300": 4}  # every deck count


def test_big_deck_counts_take_their_own_run_count(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    seen: dict[str, Any] = {}
    monkeypatch.setattr(cal, "calibrate_exact", lambda **kw: {"runs": 1, "hands": 1,
                                                              "faults": {}, "clean": {}})
    monkeypatch.setattr(ucal, "calibrate", lambda **kw: seen.update(kw) or {})
    monkeypatch.setattr(ucal, "to_markdown", lambda res: "")
    assert main(["calibrate", "--out", str(tmp_path), "--uniformity-runs", "9",
                 "--uniformity-big-runs", "2", "--parts", "exact,uniformity"]) == 0
    assert seen == {"runs": 9, "fault_runs": 9, "big_runs": 2}


def test_the_game_part_takes_its_sizes_and_writes_its_table(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``--parts game``: the deal tests conditioned on the game alone, at the sizes given
    (two fair runs of 500 hands of each kind, no rig: the real calibration, small), its table
    in calibration.md and .json; an unknown part is refused in one line."""
    from cluster.flows import calibrate_game

    real = calibrate_game.calibrate_game
    seen: dict[str, Any] = {}

    def small(**kw: Any) -> dict[str, Any]:
        seen.update(kw)
        return real(**kw, rig_sizes={}, log=lambda s: None)

    monkeypatch.setattr(calibrate_game, "calibrate_game", small)
    assert main(["calibrate", "--out", str(tmp_path), "--parts", "game", "--game-runs", "2",
                 "--game-hands", "500", "--rig-runs", "3"]) == 0
    assert seen == {"runs": 2, "hands": 500, "rig_runs": 3}
    res = json.loads((tmp_path / "calibration.json").read_text())
    assert set(res) == {"game"} and set(res["game"]["fair"]) == set(calibrate_game.KINDS)
    md = (tmp_path / "calibration.md").read_text()
    assert "| runout_calibration | imported | 2 | 500 |" in md
    capsys.readouterr()
    assert main(["calibrate", "--out", str(tmp_path), "--parts", "game,dice"]) == 2
    assert "--parts game,dice: expected a comma-separated list of" in capsys.readouterr().err
