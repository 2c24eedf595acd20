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


def _battery_with_shills(run: Path, frac: float, players: Any = None,
                         tries: int = 1) -> dict[str, Any]:
    import glob

    import numpy as np

    from audits.io import read_batch
    from audits.uniformity import uniformity_map, uniformity_reduce
    from tests.audits.rigs import shill_runouts

    rng = np.random.default_rng(3)
    parts, changed = [], 0
    for f in sorted(glob.glob(f"{run}/log/**/*.parquet", recursive=True)):
        b = read_batch(f)
        p = uniformity_map(b)
        if frac:
            p.runouts, c = shill_runouts(b, frac, rng, tries=tries)
            changed += c
        parts.append(p)
    res = uniformity_reduce(parts + ([players] if players is not None else []))
    return {"changed": changed, "overall": res[0],
            "tests": {r.name.split(".", 1)[1]: r for r in res[1:]}}


@pytest.mark.slow
def test_shill_runouts_fail_the_battery_on_the_default_population() -> None:
    """The shill run-out rig (a second run-out whenever a shill would lose) on a 100,000-hand
    default-population os-chacha20 run, stronger than the issue's (20% of the player ids, up
    to 5 re-deals until the shill wins something: the players of this population have 2-3
    run-outs each, so the list-free test's power is small; the issue's rig, 5% and one
    re-deal, at 500,000 hands gives a mean z about 1.8, see docs/audits.md): runout_dispersion
    fails the battery (z 10.1 and 9.6 on seeds 11 and 12; the former variance estimate gave
    8.0-11.6 over four runs, 10% of the ids 2.4-9.5: too close to call); the same run's own
    cards pass it; with the list of the issue's 5% of the ids and its one
    re-deal, ``listed_runouts`` fails it at this size (z 4.9-7.5)."""
    import tempfile

    from audits.players import PlayerList
    from tests.audits.rigs import shill_ids

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "chacha"
        from sim.runspec import population_fields

        spec = RunSpec(hands=100_000, generator="os-chacha20", seed=11,
                       structures=(Structure.NO_LIMIT,), **population_fields("default"))
        run_simulate(spec, root, workers=0, progress=False)
        fair = _battery_with_shills(root, 0.0)
        assert fair["overall"].passed, fair["overall"].details["failed_tests"]
        rig = _battery_with_shills(root, 0.2, tries=5)
        assert rig["changed"] > 200, rig["changed"]
        z = rig["tests"]["runout_dispersion"].statistic
        assert not rig["overall"].passed, z
        assert "runout_dispersion" in rig["overall"].details["failed_tests"]
        import numpy as np

        ids = np.arange(0, 16 * 110_000, dtype=np.int64)
        plist = PlayerList("shills.txt", "0" * 64,
                           tuple(str(i) for i in ids[shill_ids(ids, 0.05)]))
        five = _battery_with_shills(root, 0.05, plist)
        assert "listed_runouts" in five["overall"].details["failed_tests"]
        assert five["tests"]["listed_runouts"].statistic > 5
