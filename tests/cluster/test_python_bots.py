"""Bots of one's own (issue 37, point 2): a bot written in Python from docs/game.md plays in a
certified run that reproduces; a bot that returns an illegal action or raises stops the run with
one line; a changed bot is another spec and is refused where the spec names the old one; the
stakes audit accepts exactly the spec's bots (a forged policy code, digests and manifest
restamped, fails it); the export names the bot."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from audits.runspec import SpecError, parse_spec
from cluster.cli import main
from cluster.flows.game import GameError, read_game
from sim.config import Structure
from sim.runspec import RunSpec
from tests.audits.forgery import RunForger, audit_cli, copy_run

DOCS = Path(__file__).resolve().parents[2] / "docs" / "game.md"
GAME = """
name = "Mine against the field"
structures = ["no-limit"]
[tables]
players = 6
format = "cash"
hands_per_table = 50
[bots.python.mine]
path = "mybot.py"
weight = 60
"""


def docs_bot() -> str:
    """The bot docs/game.md shows (its python block)."""
    block = re.search(r"```python\n(.*?)```", DOCS.read_text(), re.S)
    assert block is not None
    return block.group(1)


def game_folder(tmp: Path, bot: str = "", game: str = GAME) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "mybot.py").write_text(bot or docs_bot())
    (tmp / "game.toml").write_text(game)
    return tmp / "game.toml"


def spec_of(game: Path, hands: int = 300, batch_size: int = 150) -> RunSpec:
    fields = read_game(game)
    structures = tuple(Structure.parse(s) for s in fields.pop("structures", ["no-limit"]))
    return RunSpec(hands=hands, batch_size=batch_size, structures=structures, seed=7, **fields)


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """``holdem certify --game`` of the docs' bot, in this process: (the run, its output)."""
    import contextlib
    import io

    tmp = tmp_path_factory.mktemp("pybots")
    game = game_folder(tmp)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(["certify", "--game", str(game), "--hands", "300", "--batch-size", "150",
                     "--seed", "7", "--out", str(tmp / "run"), "--workers", "0", "--quiet"])
    assert code == 0, out.getvalue()
    return tmp / "run", out.getvalue()


def test_a_bot_from_the_docs_plays_a_certified_run_that_reproduces(
        certified: tuple[Path, str]) -> None:
    import pyarrow.parquet as pq

    run, out = certified
    assert "REPRODUCED: 2 of 2 batch files" in out and "NOT REPRODUCED" not in out
    audit = json.loads((run / "audit.json").read_text())
    stakes = next(r for r in audit["results"] if r["name"] == "stakes")
    assert stakes["passed"] and stakes["applicable"] and stakes["hands_checked"] == 300
    spec = json.loads((run / "manifest.json").read_text())["spec"]
    (bot,) = spec["python_bots"]
    assert bot["name"] == "mine" and bot["weight"] == 60 and bot["kind"] == "path"
    assert bot["source"] == str((run.parent / "mybot.py").resolve())
    rows = [r for p in sorted((run / "log").rglob("*.parquet"))
            for r in pq.read_table(p, columns=["policy", "actions"]).to_pylist()]
    policies = {p for r in rows for p in r["policy"]}
    assert 8 in policies and policies - {-1, 8}  # the bot beside built-in bots
    summary = (run / "summary.md").read_text()
    assert f"Python bots mine (weight 60, {bot['source']}:decide, source sha256 " \
        f"{bot['sha256'][:12]})" in summary


def test_the_export_names_the_bot(certified: tuple[Path, str], tmp_path: Path) -> None:
    import pyarrow.dataset as ds

    run, _ = certified
    run = copy_run(run, tmp_path)
    assert main(["export", str(run), "--workers", "0", "--quiet"]) == 0
    seats = ds.dataset(run / "tables" / "seats").to_table(columns=["policy"])
    names = set(seats.column("policy").to_pylist())
    assert "mine" in names and "regular" in names


def test_the_same_spec_plays_the_same_hands_and_a_changed_bot_is_another_spec(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Re-simulating gives identical rows; editing the bot changes the spec's fingerprint, and
    the old spec refuses to play the changed code (resume and reproduction alike)."""
    from sim import pybots
    from sim.batch import simulate_batch
    from sim.pybots import BotError

    game = game_folder(tmp_path)
    spec = spec_of(game)
    a = simulate_batch(spec, Structure.NO_LIMIT, 1).table
    b = simulate_batch(spec, Structure.NO_LIMIT, 1).table
    assert a.equals(b)
    (tmp_path / "mybot.py").write_text(docs_bot() + "\n# tuned\n")
    changed = spec_of(game)
    assert changed.fingerprint() != spec.fingerprint()
    assert changed.python_bots[0].sha256 != spec.python_bots[0].sha256  # type: ignore[index]
    # a process that loaded the bot keeps the code it hashed; a new one (a resumption, the
    # reproduction, another worker) finds the file changed
    monkeypatch.setattr(pybots, "_LOADED", {})
    with pytest.raises(BotError, match="its source changed since the run's spec was made"):
        simulate_batch(spec, Structure.NO_LIMIT, 0)


def test_a_spec_without_python_bots_records_none() -> None:
    assert "python_bots" not in RunSpec(hands=10).to_dict()


ILLEGAL = '''
from sim.pybots import Action


def decide(view):
    if view.legal.can_raise:
        return Action.raise_to(view.legal.max_raise_to + 1)
    return Action.check_call()
'''
RAISES = '''
def decide(view):
    if view.street == "flop":
        return {}["no such key"]
    return ("check-call",)
'''
FOLDS_FOR_FREE = '''
def decide(view):
    return ("fold",) if view.street == "flop" else ("check-call",)
'''
NOT_AN_ACTION = '''
def decide(view):
    return 3
'''
EXITS = '''
import sys


def decide(view):
    sys.exit(3)
'''
RAISES_NO_AMOUNT = '''
def decide(view):
    return ("raise",) if view.legal.can_raise else ("check-call",)
'''
LEGAL = r"; legal: (fold, )?(call \d+|check)(, raise to \d+(\.\.\d+)?)?$"


@pytest.mark.parametrize(("bot", "what"), [
    (ILLEGAL, r"raised to (\d+), outside \d+\.\.\d+; legal: (fold, )?(call \d+|check), raise to "
              r"\d+\.\.\d+$"),
    (RAISES, r"raised KeyError: 'no such key' \(mybot\.py:4\)" + LEGAL),
    (FOLDS_FOR_FREE, r"folded where it may check; legal: check"),
    (NOT_AN_ACTION, r"returned 3 \(int\), not an action: expected Action\.fold\(\), "
                    r"Action\.check_call\(\), Action\.raise_to\(chips\), or a tuple \('fold',\), "
                    r"\('check-call',\) or \('raise', chips\)" + LEGAL),
    # a bot that calls sys.exit() ended simulate silently (SystemExit escaped)
    (EXITS, r"called sys\.exit\(3\) \(mybot\.py:6\): a bot returns an action, it cannot end "
            r"the run" + LEGAL),
    # ("raise",) was "raised to 0"
    (RAISES_NO_AMOUNT, r"raised without an amount: expected \('raise', chips\) or "
                       r"Action\.raise_to\(chips\), the street total to raise to, \d+(\.\.\d+)?"
                       + LEGAL),
])
def test_a_bot_that_breaks_the_rules_stops_the_run_in_one_line(
        bot: str, what: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = game_folder(tmp_path, bot, GAME.replace("weight = 60", "weight = 1000000"))
    code = main(["simulate", "--game", str(game), "--hands", "200", "--out",
                 str(tmp_path / "run"), "--workers", "0", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert re.search(r"^holdem: error: python bot 'mine' \(.*mybot\.py:decide\) at table \d+ "
                     r"hand \d+ seat \d \((preflop|flop|turn|river)\): " + what, lines[0]), lines[0]
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "failed" and not manifest["files"]


CALL_2 = dict(can_fold=True, can_check=False, call=2, can_raise=True, min_raise_to=4,
              max_raise_to=500)
CHECK = dict(can_fold=False, can_check=True, call=0, can_raise=True, min_raise_to=2,
             max_raise_to=500)
MALFORMED = [  # (the bot's return, the seat's legal actions, the error after "seat 0 (flop): ")
    (None, CALL_2, "returned None (no return statement reached?), not an action: expected "
                   "Action.fold(), "),
    ("fold", CALL_2, "returned 'fold' (str), not an action: expected Action.fold()"),
    (("raise", 10, 20), CALL_2, "returned ('raise', 10, 20) (tuple), not an action"),
    ({"kind": "fold"}, CALL_2, "returned {'kind': 'fold'} (dict), not an action"),
    (("allin",), CALL_2, "returned the action 'allin': expected fold, check-call or raise"),
    (("raise",), CALL_2, "raised without an amount: expected ('raise', chips) or "
                         "Action.raise_to(chips), the street total to raise to, 4..500"),
    (("raise", None), CALL_2, "raised without an amount"),
    (("raise", 501), CALL_2, "raised to 501, outside 4..500"),
    (("raise", 3), CALL_2, "raised to 3, outside 4..500"),
    (("raise", 10.5), CALL_2, "raised to 10.5, not a whole number of chips (expected 4..500)"),
    (("raise", True), CALL_2, "raised to True, not a whole number of chips"),
    (("raise", "10"), CALL_2, "raised to '10', not a whole number of chips"),
    (("check",), CALL_2, "checked where a call of 2 is owed"),
    (("fold",), CHECK, "folded where it may check"),
    (("check-call", 50), CALL_2, "returned check-call with an amount (50): only a raise takes "
                                 "one"),
    (("raise", 10), dict(CALL_2, can_raise=False), "raised to 10 where no raise is allowed"),
]


@pytest.mark.parametrize(("got", "legal", "want"), MALFORMED)
def test_a_malformed_return_is_one_precise_line(got: Any, legal: dict[str, Any], want: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Each malformed return (issue 37, D4) is one line naming the bot, the hand, the seat and
    street of the decision, what is wrong and what was legal."""
    from sim import pybots

    view = _flop_view(monkeypatch, lambda v: got, legal)
    with pytest.raises(pybots.BotError) as e:
        pybots.python_decision(pybots.FIRST_CODE, 0, 1, 7, 3)
    text = str(e.value)
    assert text.startswith("python bot 'mine' (/games/mybot.py:decide) at table 7 hand 3 seat 0 "
                           "(flop): " + want), text
    assert text.endswith(f"; legal: {view.legal.describe()}") and "\n" not in text, text


def test_an_exit_is_the_bots_error_and_an_interrupt_still_interrupts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from sim import pybots

    def exits(view: Any) -> Any:
        sys.exit()

    _flop_view(monkeypatch, exits, CALL_2)
    with pytest.raises(pybots.BotError, match=r"seat 0 \(flop\): called sys\.exit\(\) \(.*\): a "
                                              r"bot returns an action, it cannot end the run; "
                                              r"legal: fold, call 2, raise to 4\.\.500$"):
        pybots.python_decision(pybots.FIRST_CODE, 0, 1, 7, 3)

    def interrupted(view: Any) -> Any:
        raise KeyboardInterrupt

    _flop_view(monkeypatch, interrupted, CALL_2)
    with pytest.raises(KeyboardInterrupt):
        pybots.python_decision(pybots.FIRST_CODE, 0, 1, 7, 3)
    _flop_view(monkeypatch, lambda v: ("raise", 500), CALL_2)  # a legal return plays
    assert pybots.python_decision(pybots.FIRST_CODE, 0, 1, 7, 3) == (pybots.A_BET_RAISE, 500)


def _flop_view(monkeypatch: pytest.MonkeyPatch, fn: Any, legal: dict[str, Any]) -> Any:
    """Bind ``fn`` as bot 'mine' (policy code 8) deciding on a flop with ``legal``."""
    from sim import pybots

    view = pybots.PlayerView(
        seat=0, hole=("As", "Td"), hole_ints=(51, 34), board=("2c", "7h", "Kd"),
        board_ints=(0, 22, 45), street="flop", structure="no-limit", pot=12, stack=500,
        bet=0, seats=(), button=1, small_blind_seat=1, big_blind_seat=0, small_blind=1,
        big_blind=2, legal=pybots.Legal(**legal), table_id=7, hand_no=3, seed=1)
    bot = pybots.PythonBot(name="mine", kind="path", source="/games/mybot.py",
                           callable="decide", weight=1, sha256="0" * 64)
    monkeypatch.setattr(pybots._Bound, "bots", (bot,))
    monkeypatch.setattr(pybots._Bound, "fns", (fn,))
    monkeypatch.setattr(pybots, "view_of", lambda *a: view)
    return view


@pytest.mark.parametrize(("table", "why"), [
    ("[bots.python.mine]\nweight = 2", "expected path"),
    ('[bots.python.mine]\npath = "mybot.py"\nmodule = "x"', "one of them"),
    ('[bots.python.mine]\npath = "nothere.py"', "no such file"),
    ('[bots.python.mine]\npath = "mybot.py"\nweight = 0', "weight: 0: expected an integer"),
    ('[bots.python.mine]\npath = "mybot.py"\ncolour = 1', "colour: unknown key"),
    ('[bots.python.mine]\npath = "mybot.py"\ncallable = "no way"', "callable"),
    ('[bots.python.regular]\npath = "mybot.py"', "not a built-in bot's"),
    ('[bots.python.mine]\nmodule = "no_such_module_anywhere"', "cannot be found|no Python"),
])
def test_a_bad_python_bot_table_is_one_line_naming_it(table: str, why: str,
                                                      tmp_path: Path) -> None:
    game = game_folder(tmp_path, game=table)
    with pytest.raises(GameError, match=why) as e:
        read_game(game)
    assert "[bots]" in str(e.value) and "\n" not in str(e.value)


def test_a_bot_by_module_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "acme_bots_test").mkdir()
    (tmp_path / "acme_bots_test" / "__init__.py").write_text("")
    (tmp_path / "acme_bots_test" / "shark.py").write_text(docs_bot())
    monkeypatch.syspath_prepend(str(tmp_path))
    game = game_folder(tmp_path, game='[tables]\nformat = "cash"\nplayers = 6\n'
                       '[bots.python.shark]\nmodule = "acme_bots_test.shark"\nweight = 100')
    spec = spec_of(game, hands=100, batch_size=100)
    bot = spec.python_bots[0]  # type: ignore[index]
    assert (bot.kind, bot.source, bot.callable) == ("module", "acme_bots_test.shark", "decide")
    from sim.batch import simulate_batch

    rows = simulate_batch(spec, Structure.NO_LIMIT, 0).table.column("policy").to_pylist()
    assert any(8 in r for r in rows)


@pytest.fixture(scope="module")
def two_bot_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from cluster.flows.simulate import run_simulate

    tmp = tmp_path_factory.mktemp("pybots2")
    run = tmp / "run"
    run_simulate(spec_of(game_folder(tmp), hands=300, batch_size=300), run, workers=0,
                 progress=False)
    return run


def test_the_stakes_audit_rejects_a_policy_code_outside_the_specs_bots(
        two_bot_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Code 9 would be a second Python bot: the spec names one. The seat's code is changed in
    every hand of its table (a continuing player keeps his bot), digests and manifest
    restamped: only the stakes audit can tell."""
    code, out = audit_cli(two_bot_run, capsys)
    assert code == 0, out
    run = copy_run(two_bot_run, tmp_path)
    f = RunForger(run)
    i = f.find(lambda r: 8 in r["policy"])
    table, seat = f.rows[i]["table_id"], f.rows[i]["policy"].index(8)
    forged: list[Any] = []
    for r in f.rows:
        if r["table_id"] == table and r["policy"][seat] == 8:
            r["policy"][seat] = 9
            forged.append(r["hand_id"])
    f.write()
    code, out = audit_cli(run, capsys)
    assert code == 1, out
    audit = json.loads((run / "audit.json").read_text())
    failed = {r["name"] for r in audit["results"] if r["applicable"] and not r["passed"]}
    assert failed == {"stakes"}, out
    stakes = next(r for r in audit["results"] if r["name"] == "stakes")
    assert stakes["example_hand_ids"][0] == forged[0]


@pytest.mark.parametrize(("key", "value"), [
    ("python_bots", []),
    ("python_bots", [{"name": "mine"}]),
    ("python_bots", [{"name": "mine", "kind": "path", "source": "/x.py", "callable": "decide",
                      "weight": 0, "sha256": "0" * 64}]),
    ("python_bots", [{"name": "nit", "kind": "path", "source": "/x.py", "callable": "decide",
                      "weight": 1, "sha256": "0" * 64}]),
    ("python_bots", [{"name": "mine", "kind": "url", "source": "/x.py", "callable": "decide",
                      "weight": 1, "sha256": "0" * 64}]),
    ("python_bots", [{"name": "mine", "kind": "path", "source": "/x.py", "callable": "decide",
                      "weight": 1, "sha256": "xyz"}]),
])
def test_the_audits_read_python_bots_strictly(key: str, value: Any, tmp_path: Path) -> None:
    d = json.loads(json.dumps(spec_of(game_folder(tmp_path)).to_dict()))
    parse_spec(d)  # the simulator's own spec parses
    d[key] = value
    with pytest.raises(SpecError, match=f"spec.{key}"):
        parse_spec(d)


def test_a_run_with_a_python_bot_resumes_to_the_same_files(
        certified: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A batch lost (the run killed before it was written) is simulated again on resume, the
    kept one checked by playing it again with the bot: the files are the ones of the run made
    at once."""
    from cluster.flows.simulate import run_simulate

    run = copy_run(certified[0], tmp_path)
    manifest = json.loads((run / "manifest.json").read_text())
    want = {f["path"]: f["sha256"] for f in manifest["files"]}
    lost = sorted(want)[-1]
    (run / lost).unlink()
    spec = RunSpec.from_dict(manifest["spec"])
    run_simulate(spec, run, workers=0, progress=False)
    assert "resuming" in capsys.readouterr().err
    again = json.loads((run / "manifest.json").read_text())
    assert {f["path"]: f["sha256"] for f in again["files"]} == want


def test_ray_workers_load_the_bot_and_write_the_same_files(
        ray_local: None, certified: tuple[Path, str], tmp_path: Path) -> None:
    """Local Ray (the same machine): each worker imports the bot the spec names, and the run's
    files are the in-process run's, byte for byte."""
    from cluster.flows.simulate import run_simulate

    manifest = json.loads((certified[0] / "manifest.json").read_text())
    spec = RunSpec.from_dict(manifest["spec"])
    m = run_simulate(spec, tmp_path / "run", workers=2, progress=False).to_dict()
    assert m["runtime"]["ray"] == "existing"
    assert {f["path"]: f["sha256"] for f in m["files"]} \
        == {f["path"]: f["sha256"] for f in manifest["files"]}


def test_verify_with_a_changed_bot_is_one_line_naming_it(
        certified: tuple[Path, str], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The reproduction of ``holdem verify`` plays the bot the spec names: where its source has
    changed it says so in one line (exit 2) rather than judging the run."""
    from sim import pybots

    run = certified[0]
    bot = run.parent / "mybot.py"
    text = bot.read_text()
    monkeypatch.setattr(pybots, "_LOADED", {})  # a verifier's fresh process
    try:
        bot.write_text(text + "\n# tuned since\n")
        code = main(["verify", str(run), "--workers", "0"])
    finally:
        bot.write_text(text)
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "python bot 'mine'" in err and "its source changed" in err
