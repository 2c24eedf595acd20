"""Issue 35: rigged dealers that keep every deck a permutation and every exact audit passing
(``tests/audits/rigs.py``: only unseen cards re-dealt, the engine replaying every hand on its
new deck, digests and manifest restamped), on an os-chacha20 run whose decks no key binds:
``holdem audit`` fails them through the tests that condition on the game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cluster.flows.simulate import run_simulate
from sim.config import Structure
from sim.runspec import RunSpec
from tests.audits.forgery import audit_cli, copy_run
from tests.audits.rigs import action_flop, bad_beat, rig_run

HANDS = 20_000
EXACT = ("integrity", "deal", "chips", "rotation", "payouts", "betting")


@pytest.fixture(scope="module")
def chacha_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rigs") / "chacha"
    spec = RunSpec(hands=HANDS, batch_size=HANDS // 2, generator="os-chacha20", seed=7,
                   structures=(Structure.NO_LIMIT,), hands_per_table=1)
    run_simulate(spec, root, workers=0, progress=False)
    return root


def _uniformity(run: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    audit = json.loads((run / "audit.json").read_text())
    res = {r["name"]: r for r in audit["results"]}
    for name in EXACT:
        assert res[name]["passed"], (name, res[name]["details"])
    uni = res["uniformity"]
    return uni, {t["name"].split(".", 1)[1]: t for t in uni["details"]["tests"]}


@pytest.mark.slow
def test_fair_run_passes_the_game_tests(chacha_run: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, out = audit_cli(chacha_run, capsys)
    uni, tests = _uniformity(chacha_run)
    assert uni["passed"], out
    for t in ("runout_calibration", "runout_bins", "runout_seats", "board_texture",
              "pooled_hand_classes", "pooled_hand_features"):
        assert tests[t]["applicable"], t


@pytest.mark.slow
@pytest.mark.parametrize("rig,kw,failing", [
    (bad_beat, {"q": 0.5}, "runout_calibration"),
    (action_flop, {"q": 0.5}, "board_texture"),
])
def test_rigged_dealers_fail(chacha_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                             rig: Any, kw: dict[str, Any], failing: str) -> None:
    run = copy_run(chacha_run, tmp_path)
    assert rig_run(run, rig, seed=3, **kw) > 1_000
    code, out = audit_cli(run, capsys)
    uni, tests = _uniformity(run)
    assert code == 1 and not uni["passed"]
    assert failing in uni["details"]["failed_tests"], uni["details"]["failed_tests"]
    assert f"{failing} (Holm p" in out
