"""A game file's straddle (issue 37: ``[stakes] straddle``, docs/game.md): every cash hand of 3
or more players straddled by the seat left of the big blind ("always"), or a stated share of
them drawn per hand ("optional"); the audits recompute it from primary facts. Forgeries are
made as an attacker would (``tests.audits.forgery.forged_walk``: a legal hand the engine plays
on the row's seats, stacks and deck with the forger's straddle, every column taken from it,
digests and the manifest restamped): a straddle of another size fails ``stakes``, one by
another seat fails ``rotation``, a missing one fails ``stakes``, the straddler's option
skipped fails ``betting``, and so does a pre-flop raise that adds less than the straddle (the
game's default ``straddle_raise = "straddle"``), which a ``"big_blind"`` game allows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cluster.flows.game import parse_game
from sim.config import Structure
from sim.hand import Action, Hand
from sim.layout import EventKind
from sim.runspec import RunSpec
from sim.schema import decode_actions
from tests.audits.forgery import (
    RunForger,
    audit_cli,
    copy_run,
    deck_of,
    forged_walk,
    pack_hand,
    simulated_run,
)

GAME = """
name = "Acme 1/2 with a straddle"
[stakes]
small_blind = 1
big_blind = 2
straddle = "always"
straddle_amount = 5
small_bet = 3  # fixed-limit: the straddle is a full bet (big blind + small bet)
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


def _raised_one_big_blind_over(row: dict[str, Any], rule: str = "big_blind") -> dict[str, Any]:
    """The row replaced by a hand the engine plays on its seats, stacks and deck with the
    game's straddle (5 by the straddler) under ``rule``: the first seat to act raises to one
    big blind over the straddle (7: PokerKit's minimum, three chips short of the card rooms'
    10), everyone else folds: consistent in every column (``pack_hand`` restamps them)."""
    from sim.logview.row_replay import config_from_row

    hand = Hand(config_from_row(row), list(row["stacks_start"]), button=int(row["button"]),
                sb_seat=int(row["sb_seat"]), bb_seat=int(row["bb_seat"]), deck=deck_of(row),
                hand_id=int(row["hand_id"]), straddle=5, straddle_seat=_straddler(row),
                straddle_raise=rule)
    la = hand.legal_actions()
    hand.apply(Action.raise_to(la.seat, 7))
    while not hand.is_complete:
        la = hand.legal_actions()
        hand.apply(Action.fold(la.seat) if la.can_fold else Action.check_call(la.seat))
    return pack_hand(row, hand)


def _raisable(r: dict[str, Any]) -> bool:
    """A no-limit hand with the full straddle whose first pre-flop actor has 7 chips or more
    and nobody left after it short of a call."""
    if r["structure"] != "no-limit" or not _straddles(r) or _straddles(r)[0][1] != 5:
        return False
    return all(s >= 10 for o, s in zip(r["occupied"], r["stacks_start"], strict=True) if o)


def test_a_raise_adding_less_than_the_straddle_fails_betting(
        run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError):  # the engine refuses it under the game's rule
        f = RunForger(run)
        _raised_one_big_blind_over(f.rows[f.find(_raisable, f.last_hands())], "straddle")
    f = RunForger(run)
    i = f.find(_raisable, f.last_hands())
    f.rows[i] = _raised_one_big_blind_over(f.rows[i])
    f.write()
    code, out = audit_cli(run, capsys)
    v = _verdicts(run)
    assert code != 0 and not v["betting"]["passed"], out
    assert "bet/raise below the minimum" in out and "to 7 on the pre-flop, the rules give at " \
        "least 10" in out, out
    for name in ("stakes", "rotation", "chips", "payouts", "integrity"):
        assert v[name]["passed"], (name, out)  # a consistent hand: only its raise size lies


def test_a_big_blind_game_allows_it_and_records_the_rule(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    """``straddle_raise = "big_blind"``: the spec records it (the default is left out), the
    run audits PASS, and the same planted raise to 7 passes ``betting`` there."""
    text = GAME.replace('straddle_amount = 5', 'straddle_amount = 5\nstraddle_raise = "big_blind"')
    spec = game_spec(text, 60, (Structure.NO_LIMIT,))
    assert spec.to_dict()["straddle_raise"] == "big_blind"
    assert "straddle_raise" not in SPEC.to_dict()
    clean = simulated_run(tmp_path_factory, spec, "bigblind")
    run = copy_run(clean, tmp_path_factory.mktemp("bb"))
    f = RunForger(run)
    i = f.find(_raisable, f.last_hands())
    f.rows[i] = _raised_one_big_blind_over(f.rows[i])
    f.write()
    code, out = audit_cli(run, capsys)
    assert code == 0, out


@pytest.mark.parametrize("extra,want", [
    ('straddle_raise = "double"', "game.toml: [stakes]: straddle_raise: 'double': expected one "
                                  "of straddle, big_blind"),
    ('straddle_raise = 4', "game.toml: [stakes]: straddle_raise: 4: expected one of"),
])
def test_a_bad_straddle_raise_is_one_line_naming_the_key(extra: str, want: str) -> None:
    from cluster.flows.game import GameError

    with pytest.raises(GameError) as e:
        game_spec(GAME.replace("straddle_amount = 5", f"straddle_amount = 5\n{extra}"), 10,
                  (Structure.NO_LIMIT,))
    assert str(e.value).startswith(want) and "\n" not in str(e.value), str(e.value)
    with pytest.raises(ValueError, match="straddle_amount 5: a fixed-limit straddle is a full "
                                         "bet: expected the big blind plus the small bet, 4"):
        game_spec(GAME.replace("small_bet = 3", ""), 10, (Structure.FIXED_LIMIT,))
    with pytest.raises(GameError, match="straddle_raise: only with straddle = 'always' or "
                                        "'optional'"):
        game_spec(GAME.replace('straddle = "always"\nstraddle_amount = 5',
                               'straddle_raise = "big_blind"'), 10, (Structure.NO_LIMIT,))


def test_the_audits_read_the_rule_from_the_spec_and_refuse_it_without_a_straddle() -> None:
    """``audits.runspec`` (never ``sim``): the raise increment a full straddle sets is the
    game's straddle by default, 0 (a big blind over it) under ``"big_blind"``; a spec naming
    the rule without a straddle, or any other value, is refused naming the field."""
    import json as _json

    from audits.runspec import SpecError, parse_spec

    default = _json.loads(_json.dumps(SPEC.to_dict()))
    assert parse_spec(default).straddle_raise("cash") == 5
    assert parse_spec(default).straddle_raise("tournament") == 0
    bb = dict(default, straddle_raise="big_blind")
    assert parse_spec(bb).straddle_raise("cash") == 0
    for bad, want in ((dict(default, straddle_raise="straddle"), "spec.straddle_raise"),
                      ({k: v for k, v in bb.items() if k not in ("straddle", "straddle_amount")},
                       "spec.straddle_raise: big_blind: expected a straddle")):
        with pytest.raises(SpecError, match=want):
            parse_spec(bad)
    with pytest.raises(ValueError, match="straddle_raise big_blind: only with a straddle"):
        RunSpec(hands=10, batch_size=10, straddle_raise="big_blind")


@pytest.mark.slow
def test_an_import_checks_the_straddle_raise_only_when_the_game_file_states_it(
        clean_run: Path, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A site hand raised to one big blind over the straddle (the PHH standard's reading,
    PokerKit's) is imported as it was played; ``betting`` passes it under a game file that does
    not state ``straddle_raise`` (the PHH reading) and FAILS it, naming the hand, under one that
    states ``straddle_raise = "straddle"``."""
    from cluster.cli import main
    from tests.cluster.test_game_import import _import_hand_id, _plant

    exported = tmp_path / "phh"
    assert main(["export", str(clean_run), "--phh", "--out", str(exported), "--workers", "0",
                 "--quiet"]) == 0
    src, site = _plant(exported, tmp_path, clean_run, "cash",
                       lambda r: _raised_one_big_blind_over(r) if _raisable(r) else None)
    games = tmp_path_factory.mktemp("games")
    for stated in (False, True):
        game = games / f"straddle-{stated}.toml"
        game.write_text(GAME.replace("straddle_amount = 5", 'straddle_amount = 5\n'
                                     'straddle_raise = "straddle"') if stated else GAME)
        imp = tmp_path / f"imp-{stated}"
        assert main(["import", str(src), "--game", str(game), "--out", str(imp), "--workers",
                     "0", "--quiet"]) == 0
        capsys.readouterr()
        code, out = audit_cli(imp, capsys)
        hid = _import_hand_id(imp, site)
        if not stated:
            assert code == 0, out
            continue
        assert code == 1 and f"betting: hand {hid}: bet/raise below the minimum" in out, out
        assert "the rules give at least 10" in out, out
        for name in ("stakes", "chips", "payouts", "rotation"):
            assert f"{name}: hand {hid}" not in out, out
