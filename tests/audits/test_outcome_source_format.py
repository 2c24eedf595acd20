"""Issue 34, point 5: the operator's own PHH fields never choose how a hand is judged. A PHH
hand with ``level`` (or ``tournament``/``event``) is read as a tournament's by the reader, and a
tournament hand is held to no rake schedule, stakes or top-up rule of a cash game: only the
lab's ``holdem import --source-format GLOB=tournament`` makes it one. The forgeries below are the
operator's: a cash hand paid 10 short, every later hand carrying the short stack, every hand of
the file given the tournament field (docs/import.md, "Who names the format")."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from cluster.cli import main
from tests.audits.forgery import audit_cli
from tests.audits.test_outcome_forged import RAKE, imported, outcome, session, wrong_line

# hand 101: B wins the pot of 41 and is paid 31 (10 kept; the schedule 5% capped at 3 allows
# 2); hand 102 starts B with 111, and B, the small blind, folds his 1 to C; hand 103 carries it
SHORT_102, SHORT_103 = [111, 80, 99], [81, 99, 110]
FIELDS = ["level = 1", "level = 3\nevent = 'Sunday Million'", "tournament = 'Sunday Million'"]


def tournament_session(field: str) -> str:
    """The short-paid session with ``field`` in every hand (the operator's consistent claim)."""
    return session(SHORT_102, SHORT_103).replace("time_zone_abbreviation = 'UTC'\n",
                                                 f"time_zone_abbreviation = 'UTC'\n{field}\n")


def formats(run: Path) -> set[str]:
    return {str(x) for f in sorted(run.rglob("*.parquet"))
            for x in pq.read_table(f, columns=["format"]).column("format").to_pylist()}


@pytest.mark.parametrize("field", FIELDS)
def test_a_short_paid_cash_hand_given_tournament_fields_is_caught(
        tmp_path: Path, field: str, capsys: pytest.CaptureFixture[str]) -> None:
    run = imported(tmp_path, tournament_session(field), *RAKE)
    assert formats(run) == {"cash"}
    manifest = json.loads((run / "manifest.json").read_text())
    assert [s.get("judged_as") for s in manifest["sources"]] == ["cash"]
    report = json.loads((run / "import.json").read_text())
    # the reader calls a hand with ``level`` a tournament's (``event`` names it); a field the
    # standard does not define, as ``tournament``, is the operator's and makes nothing
    assert report["tournament_fields_judged_as_cash"] == (3 if "level" in field else 0)
    code, out = audit_cli(run, capsys)
    assert code == 1
    line = wrong_line(out)
    assert "site hand 101" in line and "t.phhs [1]" in line
    assert not outcome(run).passed


@pytest.mark.parametrize("field", ["level = 1", "level = 2\nevent = 'Sunday Million'"])
def test_a_short_paid_hand_alone_given_tournament_fields_stays_in_its_cash_session(
        tmp_path: Path, field: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The field on the short-paid hand only: read as a tournament's, its table key (tournament,
    table) would part it from the cash session whose next hand shows the short stack, leaving a
    hand with no outcome recorded and no later hand (``not recorded``, no FAIL). Judged as cash
    it stays in its session, and the next hand proves the 10 kept."""
    text = session(SHORT_102, SHORT_103, extra=field)
    run = imported(tmp_path, text, *RAKE)
    assert formats(run) == {"cash"}
    code, out = audit_cli(run, capsys)
    assert code == 1
    line = wrong_line(out)
    assert "site hand 101" in line and "kept 10 of a pot of 41" in line


def test_the_same_honest_session_with_tournament_fields_passes_as_cash(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No false accusation: an honest session whose hands say ``level = 1`` judged as cash;
    the import says so."""
    text = session().replace("time_zone_abbreviation = 'UTC'\n",
                             "time_zone_abbreviation = 'UTC'\nlevel = 1\n")
    src = tmp_path / "src"
    src.mkdir()
    (src / "t.phhs").write_text(text)
    capsys.readouterr()
    assert main(["import", str(src), "--out", str(tmp_path / "run"), "--workers", "0",
                 *RAKE]) == 0
    assert "3 PHH hands whose own level field says tournament judged as cash" \
        in capsys.readouterr().out
    res = outcome(tmp_path / "run")
    assert res.passed and res.details["classes"] == {"exact": 2, "not recorded": 1}


def test_a_lab_mapped_tournament_file_keeps_its_tournament_judgement(tmp_path: Path) -> None:
    run = imported(tmp_path / "t", tournament_session("level = 1"), *RAKE,
                   "--source-format", "*.phhs=tournament")
    assert formats(run) == {"tournament"}
    manifest = json.loads((run / "manifest.json").read_text())
    assert [s.get("judged_as") for s in manifest["sources"]] == ["tournament"]
    assert json.loads((run / "import.json").read_text())["tournament_fields_judged_as_cash"] == 0
    # the lab's word on a file without the operator's fields: a tournament's too
    run = imported(tmp_path / "u", session(), *RAKE, "--source-format", "t.phhs=tournament")
    assert formats(run) == {"tournament"}
    # a glob that matches no file leaves the default: cash
    run = imported(tmp_path / "v", tournament_session("level = 1"), *RAKE,
                   "--source-format", "other/*=tournament")
    assert formats(run) == {"cash"}


@pytest.mark.parametrize("bad", ["*.phhs", "*.phhs=mtt", "=tournament"])
def test_a_bad_source_format_is_a_one_line_usage_error(
        tmp_path: Path, bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "t.phhs").write_text(session())
    assert main(["import", str(src), "--out", str(tmp_path / "run"), "--workers", "0",
                 "--quiet", "--source-format", bad]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--source-format" in err[0]
    assert not (tmp_path / "run").exists()


HIGH_BLINDS = """\
variant = 'NT'
ante_trimming_status = false
antes = [0, 0, 0]
blinds_or_straddles = [15, 30, 0]
min_bet = 30
starting_stacks = [3000, 3000, 3000]
actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'p3 f', 'p1 f']
table = 'T1'
hand = 7
players = ['A', 'B', 'C']
"""


def test_a_cash_hand_at_a_tournament_levels_blinds_is_held_to_the_cash_stakes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A game of 1/2 cash: a hand at 15/30 given ``level = 1`` is not a tournament's hand at
    the game's first level 15/30 unless the lab says so (the stakes audit's door)."""
    game = tmp_path / "game.toml"
    game.write_text('name = "Plain"\n[stakes]\nsmall_blind = 1\nbig_blind = 2\n'
                    "[tournament]\nlevels = [[15, 30]]\n")
    text = HIGH_BLINDS + "level = 1\n"
    run = imported(tmp_path / "c", text, "--game", str(game), name="t.phh")
    code, out = audit_cli(run, capsys)
    assert code == 1 and "stakes: hand 0: blinds" in out, out
    run = imported(tmp_path / "t", text, "--game", str(game), "--source-format",
                   "t.phh=tournament", name="t.phh")
    code, out = audit_cli(run, capsys)
    assert "stakes: hand" not in out, out
