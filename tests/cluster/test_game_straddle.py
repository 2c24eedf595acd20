"""A game file's straddle (issue 37: ``[stakes] straddle``, docs/game.md): every cash hand of 3
or more players straddled by the seat left of the big blind ("always"), or a stated share of
them drawn per hand ("optional"); the audits recompute it from primary facts. Forgeries are
made as an attacker would (``tests.audits.forgery.forged_walk``: a legal hand the engine plays
on the row's seats, stacks and deck with the forger's straddle, every column taken from it,
digests and the manifest restamped): a straddle of another size fails ``stakes``, one by
another seat fails ``rotation``, a missing one fails ``stakes``, the straddler's option
skipped fails ``betting``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cluster.flows.game import parse_game
from sim.config import Structure
from sim.layout import EventKind
from sim.runspec import RunSpec
from sim.schema import decode_actions
from tests.audits.forgery import RunForger, audit_cli, copy_run, forged_walk, simulated_run

GAME = """
name = "Acme 1/2 with a straddle"
[stakes]
small_blind = 1
big_blind = 2
straddle = "always"
straddle_amount = 5
[tables]
players = "3:1,6:2,9:1"
format = "cash"
hands_per_table = 40
"""


def game_spec(text: str, hands: int, structures: tuple[Structure, ...]) -> RunSpec:
    import tomllib
    from decimal import Decimal

    fields = parse_game(tomllib.loads(text, parse_float=Decimal), "game.toml")
    return RunSpec(hands=hands, batch_size=hands, structures=structures, seed=11, **fields)


SPEC = game_spec(GAME, 400, (Structure.NO_LIMIT, Structure.POT_LIMIT, Structure.FIXED_LIMIT))


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return simulated_run(tmp_path_factory, SPEC, "straddle")


@pytest.fixture()
def run(clean_run: Path, tmp_path: Path) -> Path:
    return copy_run(clean_run, tmp_path)


def _rows(run: Path) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    return [r for p in sorted((run / "log").rglob("*.parquet"))
            for r in pq.read_table(p).to_pylist()]


def _straddler(row: dict[str, Any]) -> int:
    """The first seat with chips left of the big blind (-1 with fewer than 3 players)."""
    k, occ = int(row["n_seats"]), [o and s > 0 for o, s in zip(row["occupied"],
                                                                row["stacks_start"],
                                                                strict=True)]
    if sum(occ) < 3:
        return -1
    return next((int(row["bb_seat"]) + i) % k for i in range(1, k)
                if occ[(int(row["bb_seat"]) + i) % k])


def _straddles(row: dict[str, Any]) -> list[tuple[int, int]]:
    return [(int(r["seat"]), int(r["added"])) for r in decode_actions(row["actions"])
            if r["kind"] == EventKind.STRADDLE]


def _verdicts(run: Path) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in json.loads((run / "audit.json").read_text())["results"]}


def test_the_games_straddle_is_posted_and_every_audit_passes(
        clean_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = audit_cli(clean_run, capsys)
    assert code == 0, out
    rows = _rows(clean_run)
    straddled = 0
    for r in rows:
        want = _straddler(r)
        got = _straddles(r)
        if want < 0:
            assert got == [], r["hand_id"]
            continue
        assert len(got) == 1 and got[0][0] == want, (r["hand_id"], got, want)
        # the game's 5 chips, or a short straddler's last chips (this game has no ante)
        assert got[0][1] == min(5, r["stacks_start"][want]), r["hand_id"]
        straddled += 1
    assert straddled > 0.9 * len(rows)
    # the straddler acts last pre-flop: the first pre-flop decision is left of him
    r = next(r for r in rows if _straddles(r))
    first = next(a for a in decode_actions(r["actions"])
                 if a["kind"] in (EventKind.FOLD, EventKind.CALL, EventKind.RAISE))
    k = int(r["n_seats"])
    assert int(first["seat"]) == next((_straddler(r) + i) % k for i in range(1, k)
                                      if r["occupied"][(_straddler(r) + i) % k])


def _forge(run: Path, make: Any) -> RunForger:
    """The last hand of a table with a straddle, replaced by ``make(row)``."""
    f = RunForger(run)
    i = f.find(lambda r: bool(_straddles(r)) and _straddles(r)[0][1] == 5,
               f.last_hands())
    f.rows[i] = make(f.rows[i])
    f.write()
    return f


def test_a_straddle_of_another_size_fails_stakes(run: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _forge(run, lambda r: forged_walk(r, 6, _straddler(r)))
    code, out = audit_cli(run, capsys)
    v = _verdicts(run)
    assert code != 0 and not v["stakes"]["passed"], out
    assert "straddle is not the game's" in out and "straddled 6, the rules give 5" in out, out
    for name in ("betting", "rotation", "chips", "payouts", "integrity"):
        assert v[name]["passed"], (name, out)  # a legal, consistent hand: only its size lies


def test_a_missing_straddle_fails_stakes(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _forge(run, lambda r: forged_walk(r))
    code, out = audit_cli(run, capsys)
    v = _verdicts(run)
    assert code != 0 and not v["stakes"]["passed"] and "straddled 0, the rules give 5" in out
    assert v["betting"]["passed"] and v["chips"]["passed"], out


def test_a_straddle_by_another_seat_fails_rotation(run: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    def other_seat(r: dict[str, Any]) -> dict[str, Any]:
        k, t = int(r["n_seats"]), _straddler(r)
        seat = next((t + i) % k for i in range(1, k) if r["occupied"][(t + i) % k]
                    and (t + i) % k not in (int(r["sb_seat"]), int(r["bb_seat"])))
        return forged_walk(r, 5, seat)

    _forge(run, other_seat)
    code, out = audit_cli(run, capsys)
    v = _verdicts(run)
    assert code != 0 and not v["rotation"]["passed"] and "straddle misplaced" in out, out
    assert not v["betting"]["passed"] and "wrong straddle" in out, out


def test_the_straddlers_option_skipped_fails_betting(run: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A hand where the straddler checked his option: the check removed (it moved no chip, so
    every other column stays true), as if the flop came before he could act."""
    from sim.schema import ACTION_DTYPE

    def option_checked(r: dict[str, Any]) -> bool:
        acts = decode_actions(r["actions"])
        pre = [a for a in acts if a["street"] == 0 and a["kind"] in
               (EventKind.FOLD, EventKind.CHECK, EventKind.CALL, EventKind.BET, EventKind.RAISE)]
        return bool(_straddles(r)) and bool(pre) and pre[-1]["kind"] == EventKind.CHECK \
            and int(pre[-1]["seat"]) == _straddles(r)[0][0]

    f = RunForger(run)
    i = f.find(option_checked)
    acts = np.frombuffer(f.rows[i]["actions"], ACTION_DTYPE)
    j = max(x for x in range(len(acts)) if acts[x]["street"] == 0
            and acts[x]["kind"] == EventKind.CHECK)
    f.rows[i]["actions"] = np.delete(acts, j).tobytes()
    f.write()
    code, out = audit_cli(run, capsys)
    v = _verdicts(run)
    assert code != 0 and not v["betting"]["passed"], out
    assert v["stakes"]["passed"] and v["chips"]["passed"], out


@pytest.mark.slow
def test_an_optional_straddle_is_a_stated_share_of_the_hands(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    text = GAME.replace('straddle = "always"', 'straddle = "optional"\nstraddle_pct = 30')
    spec = game_spec(text, 300, (Structure.NO_LIMIT,))
    assert spec.to_dict()["straddle_pct"] == 30 and spec.straddle_chips == 5
    run = simulated_run(tmp_path_factory, spec, "optional")
    code, out = audit_cli(run, capsys)
    assert code == 0, out
    rows = [r for r in _rows(run) if _straddler(r) >= 0]
    share = sum(1 for r in rows if _straddles(r)) / len(rows)
    assert 0.18 < share < 0.42, share  # 30% drawn per hand from the table's stream


@pytest.mark.slow
def test_the_straddle_game_imported_from_its_phh_audits_the_same(
        clean_run: Path, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``holdem export --phh`` writes each straddle as p3's ``blinds_or_straddles`` entry, the
    import replays it against the game file and every audit passes; the operator's forgery (a
    hand whose straddle was 6, played again by the engine: every amount and finishing stack
    consistent) fails ``stakes`` naming the hand."""
    from cluster.cli import main
    from tests.cluster.test_game_import import _import_hand_id, _plant

    game = tmp_path_factory.mktemp("game") / "straddle.toml"
    game.write_text(GAME)
    exported = tmp_path / "phh"
    assert main(["export", str(clean_run), "--phh", "--out", str(exported), "--workers", "0",
                 "--quiet"]) == 0
    imp = tmp_path / "imp"
    assert main(["import", str(exported), "--game", str(game), "--out", str(imp),
                 "--workers", "0", "--quiet"]) == 0
    capsys.readouterr()
    code, out = audit_cli(imp, capsys)
    assert code == 0, out
    assert sum(1 for r in _rows(imp) if _straddles(r)) > 0.9 * len(_rows(imp))

    def forge(row: dict[str, Any]) -> dict[str, Any] | None:
        return forged_walk(row, 6, _straddler(row)) if _straddles(row) else None

    src, site = _plant(exported, tmp_path, clean_run, "cash", forge)
    imp2 = tmp_path / "imp2"
    assert main(["import", str(src), "--game", str(game), "--out", str(imp2), "--workers", "0",
                 "--quiet"]) == 0
    capsys.readouterr()
    code, out = audit_cli(imp2, capsys)
    hid = _import_hand_id(imp2, site)
    assert code == 1 and f"stakes: hand {hid}: straddle is not the game's: 6" in out, out
    for name in ("chips", "payouts", "betting", "rotation"):
        assert f"{name}: hand {hid}" not in out, out
