"""The platform's own game imported from the simulated hands' PHH (issue 37): ``holdem export
RUN --phh`` writes the run's hands as an operator would hand them in, ``holdem import ... --game
FILE`` reads them against the game file (its [rake] the rake schedule, its stakes checked by the
``stakes`` audit), and the audits say what they say of the simulated run. A hand the operator
forged with other blinds (its actions and finishing stacks consistent: the engine played it at
those blinds) fails ``stakes`` naming the hand; a hand raked at another rate is a wrong payout.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from cluster.cli import main
from cluster.flows.export_phh import START, row_phh
from sim.histories.read.phh import loads_phh
from tests.audits.forgery import audit_cli, replay_with_config, simulated_run
from tests.cluster.games import game_spec, log_rows
from tests.cluster.test_game import GAME

SPEC = game_spec(GAME, 400, 200, seed=7)
VENUE = "Acme 5/10 and a sit & go"


@pytest.fixture(scope="module")
def sim_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return simulated_run(tmp_path_factory, SPEC, "game-import")


@pytest.fixture(scope="module")
def game_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("game") / "acme.toml"
    path.write_text(GAME)
    return path


@pytest.fixture(scope="module")
def exported(sim_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("phh") / "acme-phh"
    assert main(["export", str(sim_run), "--phh", "--out", str(out), "--quiet"]) == 0
    return out


def lab_formats(exported: Path) -> list[str]:
    """The lab's word on which exported files are a tournament's (export-phh.json's per-file
    format): ``--source-format`` flags; a PHH hand's own level field chooses nothing."""
    files = json.loads((exported / "export-phh.json").read_text())["files"]
    return [x for f in files if f["format"] == "tournament"
            for x in ("--source-format", f"{f['path']}=tournament")]


def _import(src: Path, out: Path, game: Path) -> None:
    assert main(["import", str(src), "--game", str(game), "--out", str(out), "--workers", "0",
                 "--quiet", *lab_formats(src)]) == 0


def test_the_export_writes_every_hand_phh_can_describe(sim_run: Path, exported: Path) -> None:
    rec = json.loads((exported / "export-phh.json").read_text())
    rows = log_rows(sim_run)
    assert rec["hands"] == len(rows) == 800
    assert rec["written"] + sum(rec["skipped"].values()) == rec["hands"]
    assert rec["written"] > 0.95 * rec["hands"]
    for reason, hands in rec["skipped_hands"].items():
        assert reason in rec["skipped"] and hands
    skipped = {h for hands in rec["skipped_hands"].values() for h in hands}
    hands = [h for f in sorted(exported.glob("*.phhs")) for h in loads_phh(f.read_text(),
                                                                           many=True)]
    assert len(hands) == rec["written"] and not skipped & {int(h.hand or -1) for h in hands}
    by_id = {r["hand_id"]: r for r in rows}
    raked = [h for h in hands if by_id[int(h.hand or -1)]["rake"] > 0]
    assert raked  # raked hands are exported, their finishing stacks after the rake
    for h in raked[:20]:
        row = by_id[int(h.hand or -1)]
        order = [s - 1 for s in h.seats or ()]
        assert list(h.finishing_stacks or ()) == [row["stacks_end"][s] for s in order]
        assert sum(row["stacks_start"]) - sum(row["stacks_end"]) == row["rake"]
    tourn = [h for h in hands if h.tournament]
    assert tourn and all(h.level == by_id[int(h.hand or -1)]["level"] + 1 for h in tourn)
    assert {by_id[int(h.hand or -1)]["format"] for h in tourn} == {"tournament"}
    assert all(h.venue == VENUE and h.seat_count == 9 for h in hands)


def test_the_games_import_audits_as_the_simulated_run(
        sim_run: Path, exported: Path, game_file: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out = audit_cli(sim_run, capsys)
    assert code == 0, out
    imp = tmp_path / "imp"
    _import(exported, imp, game_file)
    capsys.readouterr()
    code, out = audit_cli(imp, capsys)
    assert code == 0, out
    audit = {r["name"]: r for r in json.loads((imp / "audit.json").read_text())["results"]}
    written = json.loads((exported / "export-phh.json").read_text())["written"]
    for name in ("stakes", "chips", "rotation", "payouts", "outcome", "betting"):
        assert audit[name]["applicable"] and audit[name]["passed"], (name, audit[name])
        assert audit[name]["hands_checked"] == written, name
    manifest = json.loads((imp / "manifest.json").read_text())
    assert manifest["game"]["name"] == VENUE and manifest["money"]["exponent"] == 0
    assert manifest["game"]["cash"]["small_blind"] == 5
    assert manifest["rake_schedule"]["percent"] == "4.5"
    assert manifest["rake_schedule"]["cap"] == 20
    rows = log_rows(imp)
    fmt = {r["format"] for r in rows}
    assert fmt == {"cash", "tournament"}  # tournament hands come back as tournaments
    sim = {r["hand_id"]: r for r in log_rows(sim_run)}
    assert all((r["format"], r["level"]) == (sim[int(r["site_hand"])]["format"],
                                            sim[int(r["site_hand"])]["level"]) for r in rows)
    assert {(r["small_blind"], r["big_blind"], r["ante"]) for r in rows
            if r["format"] == "cash"} == {(5, 10, 1)}
    assert any(r["op_finishing"] != r["stacks_end"] for r in rows)  # raked hands kept raked
    classes = audit["outcome"]["details"]["classes"]
    assert classes.get("rake", 0) > 0 and "wrong payout" not in classes
    # without the game the stakes audit is not applicable, as for any import
    plain = tmp_path / "plain"
    assert main(["import", str(exported), "--out", str(plain), "--workers", "0",
                 "--quiet"]) == 0
    capsys.readouterr()
    audit_cli(plain, capsys)
    res = {r["name"]: r for r in json.loads((plain / "audit.json").read_text())["results"]}
    assert not res["stakes"]["applicable"]


def test_an_import_without_the_labs_formats_says_exactly_what_to_pass(
        exported: Path, game_file: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A mixed game's export imported without ``--source-format`` (issue 37, D5): its
    tournament hands are judged as cash (the operator's level field chooses nothing), and the
    import's line gives the exact options, the ones export-phh.json's formats give; the
    ``stakes`` failures of those hands say it again, naming the file."""
    import shlex

    imp = tmp_path / "imp"
    assert main(["import", str(exported), "--game", str(game_file), "--out", str(imp),
                 "--workers", "0", "--quiet"]) == 0
    out = capsys.readouterr()
    (line,) = [x for x in (out.out + out.err).splitlines() if "judged as cash" in x]
    suggested = shlex.split(line.split("import again with ", 1)[1].split(" (docs/", 1)[0])
    want = lab_formats(exported)
    assert sorted(zip(suggested[::2], suggested[1::2], strict=True)) == sorted(
        (a, Path(b).name) for a, b in zip(want[::2], want[1::2], strict=True)), line
    code, text = audit_cli(imp, capsys)
    assert code == 1, text
    assert re.search(r"stakes: hand \d+: blinds are not the game's cash stakes: \d+/\d+, the "
                     r"game's 5/10 \(the blinds of the game's tournament level \d+: if the hand "
                     r"is a tournament's, import its file with --source-format "
                     r"'[a-z-]+-batch-\d+\.phhs=tournament'\)", text), text


def _sections(path: Path) -> list[tuple[int, str]]:
    """(hand id, section text) of a .phhs file, in order."""
    parts = re.split(r"(?m)^\[(\d+)\]\n", path.read_text())
    return [(int(parts[i]), parts[i + 1]) for i in range(1, len(parts), 2)]


def _plant(exported: Path, tmp_path: Path, sim_run: Path, fmt: str,
           forge: Any) -> tuple[Path, int]:
    """A copy of the export with one hand of a ``fmt`` table replaced by ``forge(row)`` (a row
    played again by the engine, or None when the row does not suit), written as the export
    writes it (the same date, table, players): the last hand of its table in its file, so
    that no later hand carries its stacks. Returns (the copy, the forged hand's site hand)."""
    dst = tmp_path / "forged-phh"
    shutil.copytree(exported, dst)
    by_id = {r["hand_id"]: r for r in log_rows(sim_run)}
    for f in sorted(dst.glob("*.phhs")):
        sections = _sections(f)
        for j, (hid, text) in enumerate(sections):
            row = by_id[hid]
            last = j + 1 == len(sections) or by_id[sections[j + 1][0]]["table_id"] \
                != row["table_id"]
            if not last or row["format"] != fmt:
                continue
            forged = forge(row)
            if forged is None:
                continue
            (h,) = loads_phh(text)
            seconds = int((dt.datetime.combine(h.date or START.date(), h.time or dt.time())
                           - START).total_seconds())
            sections[j] = (hid, row_phh(forged, VENUE, seconds))
            f.write_text("\n".join(f"[{k}]\n{t}" for k, t in sections))
            return dst, hid
    raise AssertionError(f"no {fmt} hand suits this forgery")


def _import_hand_id(imp: Path, site_hand: int) -> int:
    (hid,) = [r["hand_id"] for r in log_rows(imp) if r["site_hand"] == str(site_hand)]
    return int(hid)


def _planted_audit(sim_run: Path, exported: Path, game_file: Path, tmp_path: Path,
                   capsys: pytest.CaptureFixture[str], fmt: str, forge: Any) -> tuple[str, int]:
    """The export with one ``fmt`` hand forged (``_plant``), imported with the game and
    audited: the audit fails; (what it printed, the forged hand's id in the import)."""
    src, site = _plant(exported, tmp_path, sim_run, fmt, forge)
    imp = tmp_path / "imp"
    _import(src, imp, game_file)
    capsys.readouterr()
    code, out = audit_cli(imp, capsys)
    assert code == 1, out
    return out, _import_hand_id(imp, site)


def _at_blinds(small: int, big: int) -> Any:
    """A forgery: the hand played again by the engine at these blinds (its bets the blinds'),
    None where its actions no longer fit them."""

    def forge(row: dict[str, Any]) -> dict[str, Any] | None:
        try:
            return replay_with_config(row, small_blind=small, big_blind=big, min_bet=big,
                                      small_bet=big, big_bet=2 * big)
        except (AssertionError, ValueError):  # the actions no longer fit these blinds
            return None

    return forge


def test_a_hand_planted_with_other_blinds_fails_stakes(
        sim_run: Path, exported: Path, game_file: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The operator's forgery: a cash hand played at 10/20 (its actions replayed by the engine
    at those blinds: every amount, pot and finishing stack consistent)."""
    out, hid = _planted_audit(sim_run, exported, game_file, tmp_path, capsys, "cash",
                              _at_blinds(10, 20))
    assert (f"stakes: hand {hid}: blinds are not the game's cash stakes: 10/20, the game's "
            "5/10") in out, out
    for name in ("chips", "payouts", "betting", "outcome"):  # consistent: only stakes sees it
        assert f"{name}: hand {hid}" not in out, out


def test_a_tournament_hand_at_no_level_of_the_game_fails_stakes(
        sim_run: Path, exported: Path, game_file: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A sit & go hand played at 20/40 (no level of the game's schedule)."""
    out, hid = _planted_audit(sim_run, exported, game_file, tmp_path, capsys, "tournament",
                              _at_blinds(20, 40))
    assert f"stakes: hand {hid}: blinds and ante are none of the game's tournament levels: " \
           "20/40" in out, out


def test_a_hand_raked_at_another_rate_is_a_wrong_payout(
        sim_run: Path, exported: Path, game_file: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A cash hand raked 10% capped at 40 (more than the game's 4.5% capped at 20 allows):
    the finishing stacks are after that rake, every other amount as played."""

    def forge(row: dict[str, Any]) -> dict[str, Any] | None:
        if len(row["board"]) < 3 or row["rake"] == 0:
            return None
        pot = sum(row["contributed"]) - sum(row["returned"])
        out = replay_with_config(row, rake_bps=1000, rake_cap=40)
        return out if out["rake"] > min(pot * 45 // 1000, 20) + 1 else None

    out, hid = _planted_audit(sim_run, exported, game_file, tmp_path, capsys, "cash", forge)
    assert f"outcome: hand {hid}: wrong payout" in out, out
    assert f"stakes: hand {hid}" not in out, out


def test_game_and_rake_are_exclusive(exported: Path, game_file: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["import", str(exported), "--game", str(game_file), "--rake", "5:3", "--out",
                 str(tmp_path / "x"), "--workers", "0"])
    assert code == 2
    assert "--game and --rake/--rake-schedule: choose one" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_a_manifest_game_not_as_import_writes_it_is_bad_input(
        exported: Path, game_file: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    imp = tmp_path / "imp"
    _import(exported, imp, game_file)
    manifest = json.loads((imp / "manifest.json").read_text())
    manifest["game"]["cash"]["small_blind"] = "5"
    (imp / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    code, out = audit_cli(imp, capsys)
    assert code == 2, out
    assert "manifest.json: field game: cash: expected the blinds" in out
    assert "Traceback" not in out


def test_certify_import_with_the_game_reproduces_and_says_what_it_checked(
        exported: Path, game_file: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cert"
    code = main(["certify", "--import", str(exported), "--game", str(game_file), "--out",
                 str(out), "--workers", "0", "--quiet", *lab_formats(exported)])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "reproduction: REPRODUCED" in text, text
    cert = json.loads((out / "certificate.json").read_text())
    assert "checked against the game file's stakes" in json.dumps(cert), cert
    # the lab's word on the tournament files, recorded and followed by the reproduction
    sources = json.loads((out / "manifest.json").read_text())["sources"]
    assert {s["judged_as"] for s in sources} == {"cash", "tournament"}
    assert json.loads((out / "manifest.json").read_text())["game"]["name"] == VENUE


def test_hands_of_another_structure_or_ante_than_the_games_fail_stakes(
        exported: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same hands against a game that names no-limit only and an ante of 2: the
    fixed-limit hands are of no structure of the game's, the no-limit cash hands' ante of 1 is
    not the game's; the no-limit tournament hands are at the game's levels."""
    other = tmp_path / "other.toml"
    other.write_text(GAME.replace('structures = ["no-limit", "fixed-limit"]',
                                  'structures = ["no-limit"]').replace("ante = 1", "ante = 2"))
    imp = tmp_path / "imp"
    _import(exported, imp, other)
    capsys.readouterr()
    code, out = audit_cli(imp, capsys)
    assert code == 1, out
    stakes = next(r for r in json.loads((imp / "audit.json").read_text())["results"]
                  if r["name"] == "stakes")
    rows = log_rows(imp)
    fixed = sum(r["structure"] == "fixed-limit" for r in rows)
    nl_cash = sum(r["structure"] == "no-limit" and r["format"] == "cash" for r in rows)
    assert fixed and nl_cash
    assert stakes["details"]["reasons"] == {"structure is not one of the game's": fixed,
                                            "ante is not the game's cash ante": nl_cash}
    failing = (imp / "failing_hands.csv").read_text()
    assert "structure is not one of the game's: fixed-limit, the game's no-limit" in failing
    assert "ante is not the game's cash ante: 1 (every player), the game's 2 (every player)" \
        in failing


def test_the_phh_level_field_makes_a_tournament_hand() -> None:
    """The standard's optional ``level`` (an integer from 1) marks a tournament's hand, named by
    its ``event``; a hand without it is a cash game's; a bad level skips the hand, named."""
    from sim.histories.read.phh import reads_phh

    base = ('variant = "NT"\nantes = [0, 0]\nblinds_or_straddles = [10, 20]\nmin_bet = 20\n'
            'starting_stacks = [1000, 1000]\nactions = ["d dh p1 AsKs", "d dh p2 2c3d", '
            '"p2 f"]\n')
    (cash,) = loads_phh(base)
    assert cash.tournament is None and cash.level is None
    (t,) = loads_phh(base + 'level = 3\nevent = "Sunday sit & go"\n')
    assert t.tournament == "Sunday sit & go" and t.level == 3
    (t,) = loads_phh(base + "level = 1\n")
    assert t.tournament == "tournament" and t.level == 1
    for bad in ("level = 0\n", 'level = "3"\n'):
        f = reads_phh(base + bad)
        assert not f.hands and "field level" in f.skipped[0].reason


def test_a_game_without_rake_or_levels_takes_the_simulators_defaults(tmp_path: Path) -> None:
    """No [rake]: the simulator's 5 % capped at 3 big blinds, no flop no drop; no levels: the
    built-in schedule's, each with the ante kinds a table may draw (as simulate plays them)."""
    from decimal import Decimal

    from cluster.flows.game_import import read_import_game

    path = tmp_path / "plain.toml"
    path.write_text('name = "Plain"\n[stakes]\nsmall_blind = 5\nbig_blind = 10\n')
    g = read_import_game(path)
    assert (g.rake.percent, g.rake.cap, g.rake.no_flop_no_drop) == (Decimal(5), Decimal(30),
                                                                   True)
    assert g.cash == (5, 10, 0, 0, 10, 20, 4) and g.structures is None
    assert (5, 10, 0, 0) in g.levels and (15, 30, 0, 0) in g.levels
    assert (20, 40, 5, 1) in g.levels and (20, 40, 40, 2) not in g.levels  # bb ante from 4
    assert (25, 50, 50, 2) in g.levels and (25, 50, 6, 1) in g.levels
    m = g.to_manifest(2)  # a game's chip is a currency unit: 100 minor units at exponent 2
    assert m["cash"]["small_blind"] == 500 and m["tournament"]["levels"][0] == [500, 1000, 0, 0]
