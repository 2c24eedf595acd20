"""A game's tournament structure (issue 37, point 1): re-buys, the add-on, levels by time and
payouts simulated, logged (``rebuys``, ``level``), audited by ``stakes`` against the game's rule
and the level clock recomputed from the logged actions, and each tournament table's places and
prizes derived from the log. Forgeries are made as an attacker would (``tests.audits.forgery``:
the engine replays the hand under the forged stacks or configuration, digests and the manifest
restamped)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from audits.runspec import parse_spec
from audits.tournaments import finishing_places, prizes, table_results
from tests.audits.forgery import RunForger, audit_cli, copy_run, replay_with_config, simulated_run
from tests.cluster.games import game_spec, log_rows

GAME = """
name = "Acme re-buy sit & go"
[stakes]
small_blind = 5
big_blind = 10
[tables]
players = 6
format = "tournament"
[tournament]
starting_stack = 1500
levels = [[10, 20], [15, 30], [25, 50, 5], [50, 100, 10], [100, 200, 25], [200, 400, 50]]
level_seconds = 600
seconds_per_hand = 20
seconds_per_action = 5
rebuys = { max = 2, until_level = 4, at_or_below = 0, chips = 1500 }
add_on = { at_level = 4, chips = 2000 }
buy_in = 100
payouts = [50, 30, 20]
"""
SPEC = game_spec(GAME, 1600, 800)
LEVELS = [(10, 20, 0), (15, 30, 0), (25, 50, 5), (50, 100, 10), (100, 200, 25), (200, 400, 50)]


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return simulated_run(tmp_path_factory, SPEC, "tourn")


@pytest.fixture()
def run(clean_run: Path, tmp_path: Path) -> Path:
    return copy_run(clean_run, tmp_path)


def _player_actions(row: dict[str, Any]) -> int:
    from sim.schema import ACTION_DTYPE

    kinds = np.frombuffer(row["actions"], ACTION_DTYPE)["kind"]
    return int(np.isin(kinds, (6, 7, 8, 9, 10)).sum())  # fold, check, call, bet, raise


def _stakes(run: Path) -> dict[str, Any]:
    audit = json.loads((run / "audit.json").read_text())
    return next(r for r in audit["results"] if r["name"] == "stakes")


def test_rebuys_add_on_time_levels_and_payouts_simulate_and_pass(
        clean_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = audit_cli(clean_run, capsys)
    assert code == 0, out
    spec = json.loads((clean_run / "manifest.json").read_text())["spec"]
    assert spec["rebuys"] == {"max": 2, "until_level": 4, "at_or_below": 0, "chips": 1500}
    assert spec["add_on"] == {"at_level": 4, "chips": 2000}
    assert spec["level_seconds"] == 600 and spec["payouts"] == [50, 30, 20]
    assert spec["tournament_buy_in"] == 100
    rows = sorted(log_rows(clean_run), key=lambda r: (r["table_id"], r["hand_no"]))
    by_table: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        by_table.setdefault(r["table_id"], []).append(r)
    rebuys = add_ons = 0
    for hands in by_table.values():
        elapsed, counts, offered = 0, [0] * 6, False
        for j, r in enumerate(hands):
            # the documented clock, recomputed here from the logged actions
            assert r["level"] == elapsed // 600
            assert (r["small_blind"], r["big_blind"], r["ante"]) == LEVELS[min(r["level"], 5)]
            elapsed += 20 + 5 * _player_actions(r)
            if j == 0:
                continue
            add_on_hand = not offered and r["level"] >= 4
            offered = offered or add_on_hand
            prev = hands[j - 1]
            for s, chips in enumerate(r["rebuys"]):
                if chips == 1500:  # a re-buy: in its levels, by a busted player, twice at most
                    assert r["level"] < 4 and prev["stacks_end"][s] == 0 and counts[s] < 2
                    counts[s] += 1
                    rebuys += 1
                elif chips == 2000:  # the add-on: once, at the table's first level-4 hand
                    assert add_on_hand and prev["stacks_end"][s] > 0
                    add_ons += 1
                else:
                    assert chips == 0
    assert rebuys >= 5 and add_ons >= 5
    assert max(r["level"] for r in rows) >= 5
    t = _stakes(clean_run)["details"]["tournaments"]
    assert t["finished"] >= 3
    for table in t["tables"]:
        assert table["prize_pool"] == 100 * (table["entries"] + table["purchases"])
        assert sum(p[-1] for p in table["places"]) == table["prize_pool"]
        assert [p[0] for p in table["places"]] == list(range(1, 7))


def _tournament_last_hand(f: RunForger, pred: Any) -> int:
    return f.find(pred, f.last_hands())


def _covered(row: dict[str, Any], s: int) -> bool:
    """Seat ``s`` played the hand without going all-in (more chips change none of its
    actions) and bought nothing before it."""
    return bool(row["occupied"][s] and row["contributed"][s] < row["stacks_start"][s]
                and row["rebuys"][s] == 0)


def _forge_rebuy(f: RunForger, i: int, chips: int) -> dict[str, Any]:
    """A rebuy of ``chips`` for a seat that does not go all-in: the stack starts that much
    higher, the engine replays the hand, the chips still balance."""
    row = f.rows[i]
    s = next(s for s in range(row["n_seats"]) if _covered(row, s))
    start, rebuys = list(row["stacks_start"]), list(row["rebuys"])
    start[s] += chips
    rebuys[s] += chips
    f.rows[i] = replay_with_config(row, stacks_start=start, rebuys=rebuys)
    assert f.rows[i]["stacks_end"][s] == row["stacks_end"][s] + chips
    return row


def test_a_rebuy_after_the_rebuy_levels_fails_stakes(run: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    f = RunForger(run)
    i = _tournament_last_hand(f, lambda r: r["level"] >= 5 and any(
        _covered(r, s) for s in range(r["n_seats"])))
    row = _forge_rebuy(f, i, 1500)
    f.write()
    code, out = audit_cli(run, capsys)
    assert code == 1, out
    assert f"stakes: hand {row['hand_id']}: rebuy of seat" in out, out
    assert f"chips: hand {row['hand_id']}" not in out, out  # the chips balance


def test_a_rebuy_of_a_player_with_chips_fails_stakes(tmp_path_factory: pytest.TempPathFactory,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Re-buys open all tournament long, only for a busted player: a rebuy of a player who
    still has chips is outside the rule's threshold."""
    spec = game_spec(GAME.replace("until_level = 4", "until_level = 100")
                     .replace("add_on = { at_level = 4, chips = 2000 }\n", ""), 400, 400)
    run = simulated_run(tmp_path_factory, spec, "tourn2")
    f = RunForger(run)
    i = _tournament_last_hand(f, lambda r: any(_covered(r, s) for s in range(r["n_seats"])))
    row = _forge_rebuy(f, i, 1500)
    f.write()
    code, out = audit_cli(run, capsys)
    assert code == 1, out
    assert f"stakes: hand {row['hand_id']}: rebuy of seat" in out, out


def test_a_forged_level_under_time_levels_fails_stakes(run: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The last hand of a table moved to the next level, its blinds and ante that level's
    (the hand replayed under them): only the clock of the logged actions gives it away."""
    f = RunForger(run)

    def forged(row: dict[str, Any]) -> dict[str, Any] | None:
        for lv in (row["level"] - 1, row["level"] + 1):
            sb, bb, ante = LEVELS[min(max(lv, 0), 5)]
            try:  # the logged actions must stay legal under that level's blinds
                return replay_with_config(row, level=lv, small_blind=sb, big_blind=bb,
                                          ante=ante, ante_mode=2 if ante else 0, min_bet=bb,
                                          small_bet=bb, big_bet=2 * bb)
            except Exception:
                continue
        return None

    i = _tournament_last_hand(f, lambda r: r["level"] > 0 and forged(r) is not None)
    row = f.rows[i]
    f.rows[i] = forged(row)
    f.write()
    code, out = audit_cli(run, capsys)
    assert code == 1, out
    assert (f"stakes: hand {row['hand_id']}: level is not the spec's: level "
            f"{f.rows[i]['level']}, the rules give {row['level']}") in out, out


def test_places_and_prizes_of_a_small_tournament_by_hand() -> None:
    """Four players, buy-in 100, payouts 50/30/20. Hand 0: seat 0 busts; hand 1: seat 0
    rebuys 1000 and seat 1 busts (no rebuy); hand 2: seats 2 (1500 at the start) and 3 (1000)
    bust together. Places: seat 0, then seat 2 (the larger stack), seat 3, seat 1. Pool: 4
    entries and 1 re-buy, 500: 250, 150, 100, 0."""
    occ = np.array([[1, 1, 1, 1], [1, 1, 1, 1], [1, 0, 1, 1]], bool)
    start = np.array([[1000] * 4, [1000, 1500, 1500, 1000], [2500, 0, 1500, 1000]])
    end = np.array([[0, 1500, 1500, 1000], [2500, 0, 1500, 1000], [5000, 0, 0, 0]])
    rebuys = np.array([[1000] * 4, [1000, 0, 0, 0], [0, 0, 0, 0]])
    assert finishing_places(occ, start, end) == [0, 2, 3, 1]
    res = table_results(occ, start, end, rebuys, np.array([[10, 11, 12, 13]] * 3),
                        np.array([[5, 4, 7, 3]] * 3), 100, [50, 30, 20],
                        ("random", "calling-station", "tight-aggressive", "maniac", "nit",
                         "regular", "loose-aggressive", "recreational"))
    assert res == {"entries": 4, "purchases": 1, "prize_pool": 500, "places": [
        [1, 0, 10, "regular", 250], [2, 2, 12, "recreational", 150],
        [3, 3, 13, "maniac", 100], [4, 1, 11, "nit", 0]]}
    # equal stacks busted together: the lower seat finishes better
    occ2 = np.ones((1, 3), bool)
    assert finishing_places(occ2, np.array([[500, 500, 500]]), np.array([[1500, 0, 0]])) \
        == [0, 1, 2]
    assert finishing_places(occ2, np.array([[500] * 3]), np.array([[700, 800, 0]])) is None
    # rounding and places the table lacks go to the first place
    assert prizes(333, [50, 30, 20], 3) == [168, 99, 66]
    assert prizes(200, [50, 30, 20], 2) == [140, 60]


def test_the_spec_records_the_structure_strictly() -> None:
    from audits.runspec import SpecError

    d = json.loads(json.dumps(SPEC.to_dict()))
    assert parse_spec(d).digest == SPEC.fingerprint()
    for key, value in (("rebuys", {"max": 2, "until_level": 4, "chips": 1500}),
                       ("add_on", {"at_level": 4, "chips": 2000.0}),
                       ("payouts", [50, 30, 30]), ("level_seconds", 0)):
        bad = {**d, key: value}
        with pytest.raises(SpecError, match=f"spec.{key}"):
            parse_spec(bad)
    with pytest.raises(SpecError, match="spec.add_on"):
        parse_spec({**d, "add_on": {"at_level": 2, "chips": 2000}})
