"""A platform's own game from a game file (issue 37, point 1): read strictly, simulated into the
run's spec, and every hand checked against the game's schedule by the ``stakes`` audit; a hand
played under another rake, blinds or ante fails it. Forgeries are made as an attacker would
(``tests.audits.forgery``: the engine replays the hand under the forged configuration, digests
and the manifest restamped)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from audits.runspec import parse_spec
from cluster.cli import main
from cluster.flows.game import GameError, read_game
from sim.runspec import RunSpec
from tests.audits.forgery import (
    RunForger,
    audit_cli,
    copy_run,
    replay_with_config,
    simulated_run,
)
from tests.cluster.games import game_fields, game_spec, log_rows

GAME = """
name = "Acme 5/10 and a sit & go"
structures = ["no-limit", "fixed-limit"]

[stakes]
small_blind = 5
big_blind = 10
ante = 1

[rake]
percent = 4.5
cap = 20
no_flop_no_drop = true

[tables]
players = 9
format = "mixed"
tournament_pct = 50
hands_per_table = 25

[cash]
buy_in_bb = [40, 100]

[tournament]
starting_stack = 1500
level_hands = 10
levels = [[10, 20], [15, 30], [25, 50, 5], [50, 100, 10], [100, 200, 25]]
ante_mode = "every-player"
"""


SPEC = game_spec(GAME, 1200, 300)


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return simulated_run(tmp_path_factory, SPEC, "game")


@pytest.fixture()
def run(clean_run: Path, tmp_path: Path) -> Path:
    return copy_run(clean_run, tmp_path)


def test_the_games_hands_carry_its_schedule_and_pass_every_audit(
        clean_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = audit_cli(clean_run, capsys)
    assert code == 0, out
    audit = json.loads((clean_run / "audit.json").read_text())
    stakes = next(r for r in audit["results"] if r["name"] == "stakes")
    assert stakes["applicable"] and stakes["hands_checked"] == 2400
    rows = log_rows(clean_run)
    cash = [r for r in rows if r["format"] == "cash"]
    tourn = [r for r in rows if r["format"] == "tournament"]
    assert cash and tourn and {r["n_seats"] for r in rows} == {9}
    assert {(r["small_blind"], r["big_blind"], r["ante"], r["ante_mode"]) for r in cash} \
        == {(5, 10, 1, 1)}
    assert {(r["rake_bps"], r["rake_cap"]) for r in cash} == {(450, 20)}
    assert max(r["rake"] for r in cash) == 20  # the cap is reached
    levels = {(r["level"], r["small_blind"], r["big_blind"], r["ante"]) for r in tourn}
    assert (0, 10, 20, 0) in levels and (2, 25, 50, 5) in levels
    assert all(lv >= 4 for lv, sb, bb, a in levels if (sb, bb, a) == (100, 200, 25))
    assert {r["stacks_start"][0] for r in tourn if r["hand_no"] == 0} == {1500}
    spec = json.loads((clean_run / "manifest.json").read_text())["spec"]
    assert spec["game"] == "Acme 5/10 and a sit & go" and spec["rake_cap"] == 20


def _last_cash_hands(f: RunForger) -> list[int]:
    return [i for i in f.last_hands() if f.rows[i]["format"] == "cash"]


def _file_of(run: Path, fmt: str) -> str:
    m = json.loads((run / "manifest.json").read_text())
    for rec in m["files"]:
        import pyarrow.parquet as pq

        if pq.read_table(run / rec["path"], columns=["format"])["format"][0].as_py() == fmt:
            return str(rec["path"])
    raise AssertionError(f"no {fmt} batch")


def test_a_hand_raked_at_another_rate_fails_stakes(run: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    f = RunForger(run, _file_of(run, "cash"))
    i = f.find(lambda r: len(r["board"]) >= 3 and 0 < r["rake"] < 20, _last_cash_hands(f))
    row = f.rows[i]
    f.rows[i] = replay_with_config(row, rake_bps=1000, rake_cap=40)
    assert f.rows[i]["rake"] > row["rake"]
    f.write()
    code, out = audit_cli(run, capsys)
    assert code == 1, out
    assert (f"stakes: hand {row['hand_id']}: rake_bps is not the spec's: 1000, the rules give "
            "450") in out
    for name in ("chips", "payouts"):  # the chips agree with the forged configuration
        assert f"{name}: hand {row['hand_id']}" not in out, out


def test_a_hand_with_other_blinds_fails_stakes(run: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A tournament table's last hand, at a level above the first, played again at the first
    level's blinds (10/20) with the same actions."""
    f = RunForger(run, _file_of(run, "tournament"))
    i = f.find(lambda r: r["big_blind"] > 20, f.last_hands())
    row = f.rows[i]
    f.rows[i] = replay_with_config(row, small_blind=10, big_blind=20, min_bet=20,
                                   small_bet=20, big_bet=40)
    f.write()
    code, out = audit_cli(run, capsys)
    assert code == 1, out
    assert (f"stakes: hand {row['hand_id']}: small blind is not the spec's schedule: small "
            f"blind 10, the rules give {row['small_blind']}") in out, out


def test_a_cash_hand_without_the_games_ante_fails_stakes(
        run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = RunForger(run, _file_of(run, "cash"))
    i = f.find(lambda r: len(r["board"]) >= 3, _last_cash_hands(f))
    row = f.rows[i]
    f.rows[i] = replay_with_config(row, ante=0, ante_mode=0)
    f.write()
    code, out = audit_cli(run, capsys)
    assert code == 1, out
    assert (f"stakes: hand {row['hand_id']}: ante or ante_mode is not the spec's schedule for "
            f"this level and table: ante 0 (mode 0), the rules give {row['ante']} (mode "
            f"{row['ante_mode']})") in out, out


def test_caps_by_players_bets_and_bots_of_the_game(tmp_path_factory: pytest.TempPathFactory,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The rest of the schedule: a rake cap by players dealt in, no rake without a flop left
    off, fixed-limit bets of the game's own, a raise cap, a big-blind ante and a bot mix."""
    spec = game_spec("""
        structures = ["fixed-limit"]
        [stakes]
        small_blind = 1
        big_blind = 2
        small_bet = 4
        big_bet = 8
        raise_cap = 3
        ante = 2
        ante_mode = "big-blind"
        [rake]
        percent = 10
        cap = 3
        caps_by_players = { "2" = 1, "3" = 2 }
        [tables]
        players = "2:1,3:1,6:1"
        format = "cash"
        hands_per_table = 40
        [bots.mix]
        calling-station = 3
        maniac = 1
        """, 900, 300, seed=3)
    run = simulated_run(tmp_path_factory, spec, "game2")
    code, out = audit_cli(run, capsys)
    assert code == 0, out
    rows = log_rows(run)
    caps = {(sum(r["occupied"]), r["rake_cap"]) for r in rows}
    assert {(2, 1), (3, 2)} <= caps and all(c == 3 for n, c in caps if n > 3)
    assert {(r["small_bet"], r["big_bet"], r["raise_cap"], r["no_flop_no_drop"])
            for r in rows} == {(4, 8, 3, False)}
    assert any(r["rake"] > 0 and not r["board"] for r in rows)  # raked without a flop
    assert {r["ante_mode"] for r in rows} == {2}
    assert {p for r in rows for p in r["policy"]} - {-1} == {1, 3}  # -1: an empty seat


def test_the_default_game_keeps_the_specs_fingerprint() -> None:
    """A spec without a game records none of the game keys: runs made before game files keep
    their fingerprints (the golden digests pin the hands themselves)."""
    d = RunSpec(hands=10).to_dict()
    assert "game" not in d and "levels" not in d and "rake_cap" not in d
    assert parse_spec(json.loads(json.dumps(d))).digest == RunSpec(hands=10).fingerprint()
    assert parse_spec(json.loads(json.dumps(SPEC.to_dict()))).digest == SPEC.fingerprint()


BAD_GAMES = {
    "unknown table key": ("[stakes]\nbig_blnd = 10\n", "[stakes] big_blnd: unknown key"),
    "unknown top key": ("rakes = 1\n", "rakes: unknown key"),
    "blind a string": ("[stakes]\nbig_blind = \"10\"\n", "big_blind: '10': expected an integer"),
    "big below small": ("[stakes]\nsmall_blind = 5\nbig_blind = 2\n", "big_blind 2"),
    "rake in tenths of bps": ("[rake]\npercent = 4.555\n", "percent 4.555: expected a multiple"),
    "rake cap in cents": ("[rake]\npercent = 5\ncap = 2.5\n", "cap 2.5: expected whole chips"),
    "rake jackpot": ("[rake]\npercent = 5\njackpot = 1\n", "jackpot drop is not simulated"),
    "payouts without a buy-in": ("[tournament]\npayouts = [50, 30, 20]\n",
                                 "[tournament]: buy_in: missing"),
    "payouts not adding to 100": ("[tournament]\nbuy_in = 10\npayouts = [50, 30]\n",
                                  "payouts: [50, 30] add up to 80"),
    "levels in minutes": ("[tournament]\nlevel_minutes = 10\n", "level_seconds"),
    "levels by hands and time": ("[tournament]\nlevel_hands = 10\nlevel_seconds = 600\n",
                                 "level_seconds: beside level_hands"),
    "a clock without time levels": ("[tournament]\nseconds_per_hand = 30\n",
                                    "seconds_per_hand: only with level_seconds"),
    "rebuys without chips": ("[tournament]\nrebuys = { max = 2, until_level = 4 }\n",
                             "rebuys.chips: missing"),
    "rebuys unknown key": ("[tournament]\nrebuys = { until_level = 4, chips = 10, "
                           "price = 3 }\n", "rebuys.price: unknown key"),
    "rebuys max a string": ("[tournament]\nrebuys = { max = \"2\", until_level = 4, "
                            "chips = 10 }\n", "rebuys.max: '2': expected an integer"),
    "add-on before the rebuys end": ("[tournament]\nrebuys = { until_level = 4, chips = 10 }\n"
                                     "add_on = { at_level = 2, chips = 20 }\n",
                                     "add_on.at_level 2: expected at or after"),
    "add_ons": ("[tournament]\nadd_ons = 1\n", "add_on = { at_level"),
    "straddle not a policy": ("[stakes]\nstraddle = true\n",
                              "[stakes]: straddle: True: expected one of none, always, optional"),
    "straddle at the big blind": ("[stakes]\nstraddle = \"always\"\nstraddle_amount = 2\n"
                                  "[tables]\nplayers = 6\n",
                                  "straddle_amount: 2: expected an integer 3.."),
    "straddle beyond the chips": ("[stakes]\nstraddle = \"always\"\n"
                                  "straddle_amount = 2000000000\n[tables]\nplayers = 6\n",
                                  "straddle_amount: 2000000000: expected an integer "
                                  "3..1,000,000,000"),
    "straddle on heads-up tables": ("[stakes]\nstraddle = \"always\"\n",
                                    "[stakes] straddle: 'always': the tables include 2 seats"),
    "straddle in tournaments": ("[stakes]\nstraddle = \"optional\"\n[tables]\nplayers = 6\n"
                                "format = \"tournament\"\n", "tournaments play no straddle"),
    "straddle amount without a straddle": ("[stakes]\nstraddle_amount = 4\n",
                                           "straddle_amount: only with straddle"),
    "straddle percent of a mandatory one": ("[stakes]\nstraddle = \"always\"\n"
                                            "straddle_pct = 50\n[tables]\nplayers = 6\n",
                                            "straddle_pct: only with straddle = 'optional'"),
    "straddle percent 100": ("[stakes]\nstraddle = \"optional\"\nstraddle_pct = 100\n"
                             "[tables]\nplayers = 6\n", "straddle_pct: 100: expected an "
                             "integer 1..99"),
    "level not a pair": ("[tournament]\nlevels = [[10]]\n", "levels[1]"),
    "level big below small": ("[tournament]\nlevels = [[10, 5]]\n", "levels[1] big blind"),
    "stack off the big blind": ("[stakes]\nbig_blind = 10\nsmall_blind = 5\n[tournament]\n"
                                "starting_stack = 1505\n", "starting_stack 1505"),
    "unknown bot": ("[bots.mix]\noracle = 1\n", "'oracle': expected a bot of"),
    "players": ("[tables]\nplayers = \"two\"\n", "players"),
    "format": ("[tables]\nformat = \"league\"\n", "format: 'league'"),
    "not toml": ("[stakes\n", "not TOML"),
}


@pytest.mark.parametrize("name", sorted(BAD_GAMES))
def test_a_bad_game_file_is_one_line_naming_the_key(name: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    text, want = BAD_GAMES[name]
    path = tmp_path / "game.toml"
    path.write_text(text)
    with pytest.raises(GameError) as e:
        read_game(path)
    assert want in str(e.value) and str(path) in str(e.value) and "\n" not in str(e.value)
    out = tmp_path / "out"
    code = main(["simulate", "--game", str(path), "--hands", "10", "--out", str(out),
                 "--workers", "0", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and want in err and "Traceback" not in err, err
    assert not out.exists()


def test_command_line_options_override_the_game(tmp_path: Path) -> None:
    import argparse

    from cluster.cli import options as o

    path = tmp_path / "game.toml"
    path.write_text(GAME)
    p = argparse.ArgumentParser()
    o.add_run_options(p, 100, "no-limit", "x")
    spec = o.run_spec(p.parse_args(["--game", str(path), "--players", "6"]))
    assert spec.players == 6 and spec.big_blind == 10 and spec.levels is not None
    assert [s.label for s in spec.structures] == ["no-limit", "fixed-limit"]
    spec = o.run_spec(p.parse_args(["--game", str(path), "--structure", "pot-limit"]))
    assert [s.label for s in spec.structures] == ["pot-limit"]
    with pytest.raises(o.UsageError, match="--game and --population"):
        o.run_spec(p.parse_args(["--game", str(path), "--population", "classic"]))


GAME_SPEC_FORGERIES = {
    "levels with a float": ("levels", [[10, 20.5, 0]]),
    "a level with big below small": ("levels", [[20, 10, 0]]),
    "no_flop_no_drop at its default": ("no_flop_no_drop", True),
    "a bot of nobody's": ("bot_mix", [["oracle", 1]]),
    "rake caps by 11 players": ("rake_caps_by_players", [[11, 3]]),
    "an ante mode of nobody's": ("ante_mode", "dealer"),
    "a negative rake cap": ("rake_cap", -1),
}


@pytest.mark.parametrize("name", sorted(GAME_SPEC_FORGERIES))
def test_a_game_key_that_is_not_the_simulators_is_refused(name: str) -> None:
    from audits.runspec import SpecError

    key, value = GAME_SPEC_FORGERIES[name]
    d = json.loads(json.dumps(SPEC.to_dict()))
    d[key] = value
    with pytest.raises(SpecError, match=f"spec.{key}"):
        parse_spec(d)


def test_the_docs_example_is_a_valid_game() -> None:
    """docs/game.md's example parses and makes a spec with every table of the format set."""
    import re

    text = (Path(__file__).resolve().parents[2] / "docs" / "game.md").read_text()
    block = re.search(r"```toml\n(.*?)```", text, re.S)
    assert block is not None
    fields = game_fields(block.group(1), "docs/game.md")
    fields.pop("structures")
    spec = RunSpec(hands=100, **fields)
    assert spec.game and spec.ante == 1 and spec.rake_bps == 450 and spec.rake_cap == 20
    assert spec.levels and spec.bot_mix and spec.rake_caps_by_players == ((2, 10), (3, 15))
    assert spec.tournament_stack_bb == 150 and spec.leave_above_bb == 300


REVIEW_GAMES = {  # what a reviewer found accepted and should not be (one line, exit 2)
    "a rake cap of 0": ("[rake]\npercent = 5\ncap = 0\n", "cap 0: expected a cap above 0"),
    "a cap of 0 at 2 players": ("[rake]\npercent = 5\ncap = 10\ncaps_by_players = "
                                "{ \"2\" = 0 }\n", "caps_by_players.2 0"),
    "a huge big blind": ("[stakes]\nbig_blind = 9223372036854775807\n", "big_blind"),
    "a huge rake cap": ("[rake]\npercent = 5\ncap = 99999999999999999999999\n", "rake"),
    "a huge level": ("[tournament]\nlevels = [[4611686018427387904, 9223372036854775807]]\n",
                     "levels[1]"),
    "buy-ins past the chip bound": ("[stakes]\nsmall_blind = 1000000\nbig_blind = 2000000\n"
                                    "[cash]\nbuy_in_bb = 1000\n", "buy-in"),
    "no seat count": ("[tables]\nplayers = 11\n", "[tables]: players"),
    "weights of 0": ("[tables]\nplayers = \"2:0,6:0\"\n", "[tables]: players"),
    "leave below the buy-in": ("[cash]\nbuy_in_bb = 100\nleave_above_bb = 50\n",
                               "[cash]: leave_above_bb 50"),
    "a stack below the first level": ("[tournament]\nstarting_stack = 10\nlevels = "
                                      "[[10, 20]]\n", "starting_stack 10"),
    "a name on two lines": ("name = \"Acme\\n5/10\"\n", "name"),
    "a rake above 100%": ("[rake]\npercent = 101\n", "[rake]"),
}


def _simulate_game(text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                   ) -> tuple[int, str, Path, Path]:
    """(exit code, stderr, the game file, the run folder) of a 10-hand simulate of ``text``."""
    path = tmp_path / "game.toml"
    path.write_text(text)
    out = tmp_path / "out"
    code = main(["simulate", "--game", str(path), "--hands", "10", "--out", str(out),
                 "--workers", "0", "--quiet"])
    return code, capsys.readouterr().err, path, out


@pytest.mark.parametrize("name", sorted(REVIEW_GAMES))
def test_what_a_review_found_accepted_is_refused(name: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    text, want = REVIEW_GAMES[name]
    code, err, path, out = _simulate_game(text, tmp_path, capsys)
    assert code == 2 and want in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1 and not out.exists(), err


INERT_GAMES = {  # nonsense, or a key its context leaves without effect: one line, exit 2
    "blinds that fall": ("[tournament]\nlevels = [[10, 20], [25, 50], [15, 30]]\n",
                         "[tournament]: levels[3]: blinds 15/30 below levels[2]'s 25/50"),
    "a small blind that falls": ("[tournament]\nlevels = [[10, 20], [5, 20]]\n",
                                 "levels[2]: blinds 5/20 below levels[1]'s 10/20"),
    "second paid more than first": ("[tournament]\nbuy_in = 10\npayouts = [30, 50, 20]\n",
                                    "[tournament]: payouts[2]: 50% for place 2, more than "
                                    "place 1's 30%"),
    "more places paid than seats": ("[tables]\nplayers = 3\n[tournament]\nbuy_in = 10\n"
                                    "payouts = [40, 30, 20, 10]\n",
                                    "[tournament] payouts: 4 places paid, and the tables seat "
                                    "at most 3"),
    "an ante mode without an ante": ("[stakes]\nante_mode = \"big-blind\"\n",
                                     "[stakes] ante_mode: only with an ante (ante is 0)"),
    "an ante mode with ante 0": ("[stakes]\nante = 0\nante_mode = \"big-blind\"\n",
                                 "[stakes] ante_mode: only with an ante"),
    "a level ante mode without level antes": ("[tournament]\nlevels = [[10, 20], [15, 30]]\n"
                                              "ante_mode = \"every-player\"\n",
                                              "[tournament] ante_mode: no level has an ante"),
    "tournament_pct of a cash game": ("[tables]\nformat = \"cash\"\ntournament_pct = 30\n",
                                      "[tables] tournament_pct: only with format = \"mixed\" "
                                      "(format is 'cash'"),
    "tournament keys in a cash game": ("[tables]\nformat = \"cash\"\n[tournament]\n"
                                       "starting_stack = 1000\n",
                                       "[tournament] starting_stack: the game has no "
                                       "tournament tables"),
    "tournament keys at 0% tournaments": ("[tables]\ntournament_pct = 0\n[tournament]\n"
                                          "level_hands = 20\n",
                                          "[tournament] level_hands: the game has no "
                                          "tournament tables ([tables] format is 'mixed' with "
                                          "tournament_pct 0)"),
    "a rake in a tournament game": ("[tables]\nformat = \"tournament\"\n[rake]\n"
                                    "percent = 5\n", "[rake] percent: acts only at cash "
                                    "tables, and the game has none"),
    "a cash ante in a tournament game": ("[stakes]\nante = 1\n[tables]\nformat = "
                                         "\"tournament\"\n", "[stakes] ante: acts only at "
                                         "cash tables"),
    "buy-ins in a tournament game": ("[tables]\nformat = \"tournament\"\n[cash]\n"
                                     "buy_in_bb = 100\n", "[cash] buy_in_bb: acts only at "
                                     "cash tables"),
    "cash tables replaced in a tournament game": ("[tables]\nformat = \"tournament\"\n"
                                                  "hands_per_table = 50\n",
                                                  "[tables] hands_per_table: acts only at "
                                                  "cash tables"),
    "players leaving at 100% tournaments": ("[tables]\ntournament_pct = 100\nleave_ppm = 10\n",
                                            "[tables] leave_ppm: acts only at cash tables"),
    "a rake cap without a rake": ("[rake]\npercent = 0\ncap = 5\n",
                                  "[rake] cap: no rake to act on (percent is 0)"),
    "no-flop-no-drop without a rake": ("[rake]\npercent = 0\nno_flop_no_drop = true\n",
                                       "[rake] no_flop_no_drop: no rake to act on"),
    "a cap for more players than the seats": ("[tables]\nplayers = 6\n[rake]\npercent = 5\n"
                                              "caps_by_players = { \"9\" = 4 }\n",
                                              "[rake] caps_by_players.9: the tables seat at "
                                              "most 6"),
    "fixed-limit bets in a no-limit game": ("structures = [\"no-limit\"]\n[stakes]\n"
                                            "small_bet = 4\n", "[stakes] small_bet: only with "
                                            "a fixed-limit structure (structures: no-limit)"),
    "a raise cap in a pot-limit game": ("structures = [\"pot-limit\"]\n[stakes]\n"
                                        "raise_cap = 3\n", "[stakes] raise_cap: only with a "
                                        "fixed-limit structure"),
    "fixed-limit bets without the structure": ("[stakes]\nbig_bet = 8\n",
                                               "[stakes] big_bet: only with a fixed-limit "
                                               "structure (the command's default --structure: "
                                               "no-limit)"),
    # D3: a fixed-limit straddle that is not a full bet names the file and the [stakes] key
    "a fixed-limit straddle of the default amount": (
        "structures = [\"fixed-limit\"]\n[stakes]\nstraddle = \"always\"\nsmall_bet = 4\n"
        "[tables]\nplayers = 6\nformat = \"cash\"\n",
        "[stakes] straddle_amount: 4 chips (its default, twice the big blind): a fixed-limit "
        "straddle is a full bet: expected the big blind plus the small bet, 6 chips"),
    "a fixed-limit straddle of another amount": (
        "structures = [\"no-limit\", \"fixed-limit\"]\n[stakes]\nstraddle = \"optional\"\n"
        "straddle_amount = 5\n[tables]\nplayers = 6\n",
        "[stakes] straddle_amount: 5 chips: a fixed-limit straddle is a full bet"),
}


@pytest.mark.parametrize("name", sorted(INERT_GAMES))
def test_a_key_that_would_do_nothing_is_refused(name: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """What a verification found accepted silently (issue 37): falling blinds, rising payouts,
    and keys their context ignores; each one line naming the file and the key, exit 2."""
    text, want = INERT_GAMES[name]
    code, err, path, out = _simulate_game(text, tmp_path, capsys)
    assert code == 2 and want in err and f"--game {path}: " in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()


def test_a_straddle_the_command_lines_fixed_limit_cannot_play_names_the_key(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The game's straddle is a no-limit one; ``--structure fixed-limit`` beside it: the line
    names the game file, the [stakes] key and the option that made it fixed-limit."""
    path = tmp_path / "game.toml"
    path.write_text("[stakes]\nstraddle = \"always\"\nstraddle_amount = 5\n[tables]\n"
                    "players = 6\n")
    code = main(["simulate", "--game", str(path), "--structure", "fixed-limit", "--hands", "10",
                 "--out", str(tmp_path / "out"), "--workers", "0", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert (f"--game {path}: [stakes] straddle_amount: 5 chips: a fixed-limit straddle is a "
            "full bet: expected the big blind plus the small bet, 4 chips, or no fixed-limit "
            "structure (--structure: fixed-limit)") in err, err


def test_stacks_leave_the_games_own_leave_threshold(tmp_path: Path) -> None:
    import argparse

    from cluster.cli import options as o

    path = tmp_path / "game.toml"
    p = argparse.ArgumentParser()
    o.add_run_options(p, 100, "no-limit", "x")
    path.write_text("[cash]\nbuy_in_bb = 100\nleave_above_bb = 900\n")
    spec = o.run_spec(p.parse_args(["--game", str(path), "--stacks", "500"]))
    assert spec.leave_above_bb == 900 and spec.buy_in_bb == 500
    path.write_text("[cash]\nbuy_in_bb = 100\n")
    assert o.run_spec(p.parse_args(["--game", str(path), "--stacks", "500"])).leave_above_bb \
        == 1500  # without its own: 3x the largest buy-in, as --stacks alone


@pytest.mark.parametrize("key,value", [("ante", 2**63), ("levels", [[1, 2**63, 0]]),
                                       ("rake_caps_by_players", [[2, 2**63]]),
                                       ("small_bet", 10**12)])
def test_a_forged_spec_with_huge_chips_is_one_line(key: str, value: Any) -> None:
    from audits.runspec import SpecError

    d = json.loads(json.dumps(SPEC.to_dict()))
    d[key] = value
    with pytest.raises(SpecError, match=f"spec.{key}"):
        parse_spec(d)


def test_a_classic_population_with_a_bot_mix_passes_stakes(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    """New players at a classic cash table draw from the game's mix too (a reviewer's false
    accusation: they drew from the four stress bots)."""
    spec = game_spec("[bots]\npopulation = \"classic\"\nmix = { nit = 5, random = 0 }\n"
                     "[tables]\nplayers = 6\nformat = \"cash\"\n", 1500, 500, seed=4)
    run = simulated_run(tmp_path_factory, spec, "classicmix")
    code, out = audit_cli(run, capsys)
    assert code == 0, out
    assert {p for r in log_rows(run) for p in r["policy"]} - {-1} == {4}
