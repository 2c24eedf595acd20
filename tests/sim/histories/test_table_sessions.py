"""``sim.histories.sessions.rebuild``: site hand numbers written in other scripts' digits (the
natural order reads them as numbers, as ``int`` does; a digit-like character ``int`` refuses, a
superscript, is text: never a traceback on a hostile file's hand numbers); sessions never
joined across a skipped hand or a hand the stacks show missing (issue 34, point 6)."""

from __future__ import annotations

import json
from decimal import Decimal as D
from pathlib import Path

import pyarrow as pa

from audits.runner import run_audits
from cluster.cli import main
from sim.histories.files import import_file_bytes
from sim.histories.sessions import breaks_of, rebuild
from tests.sim.histories.test_file_import import _hand


def _table(hands: list[str]) -> pa.Table:
    text = "".join(_hand(k + 1).replace(f"hand = {70_001 + k}", f"hand = '{h}'")
                   for k, h in enumerate(hands))
    # one table, one time: ordered by the site hand number alone
    text = "\n".join("time = 00:01:30" if ln.startswith("time = ") else ln
                     for ln in text.split("\n"))
    res = import_file_bytes("t.phhs", text.encode())
    assert res.table is not None and res.imported == len(hands)
    return res.table


def test_hand_numbers_in_other_digits_are_ordered_as_numbers() -> None:
    table, _info = rebuild(_table(["\u0663", "12", "2"]))  # Arabic-Indic three
    assert table.column("site_hand").to_pylist() == ["2", "\u0663", "12"]


def test_superscript_digits_are_text() -> None:
    table, info = rebuild(_table(["5\u00b2", "\u00b2", "7"]))
    assert table.num_rows == 3 and info["tables"] == 1
    assert table.column("site_hand").to_pylist() == ["5\u00b2", "7", "\u00b2"]


def _hands_file(stacks: dict[int, str], broken: int | None = None, hands: int = 4) -> bytes:
    """Hands of one table (same players, same button, each starting with the stacks the one
    before left: provably adjacent, joined as one session); hand k's starting stacks replaced
    by ``stacks[k]``; hand ``broken`` made unreadable."""
    out = []
    carried = [D("41.35"), D("48.10"), D("50"), D("61.75"), D("101"), D("22.40")]
    for k in range(1, hands + 1):
        text = _hand(k).replace("time = 00:", "time = 01:")
        chain = "[" + ", ".join(str(v) for v in carried) + "]"
        text = "\n".join(f"starting_stacks = {stacks.get(k, chain)}" if ln.startswith(
            "starting_stacks") else ln for ln in text.split("\n"))
        # the hand's play: p1 wins 8.00 having put in 3.75, p2 posts 0.50, p4 puts in 3.75
        carried = [carried[0] + D("4.25"), carried[1] - D("0.50"), carried[2],
                   carried[3] - D("3.75"), carried[4], carried[5]]
        if k == broken:
            text = text.replace("'p4 f']", "'p4 f', 'p2 cbr 1']")  # after the hand ended
        out.append(text)
    return "".join(out).encode()


def test_a_skipped_hand_breaks_its_table_session(tmp_path: Path) -> None:
    """The hands around a skipped one are never joined: the later one's stacks would judge the
    earlier's payout across a hand the certificate does not hold. Counted ``skip_breaks``."""
    whole = import_file_bytes("t.phhs", _hands_file({}))
    assert whole.gaps == [] and rebuild(whole.table)[1]["sessions"] == 1
    res = import_file_bytes("t.phhs", _hands_file({}, broken=2))
    assert res.imported == 3 and sum(res.skipped.values()) == 1
    assert res.gaps == [1]  # between the file's rows 0 and 1
    assert res.table is not None
    table, info = rebuild(res.table, breaks_of(res.table.num_rows, res.gaps))
    assert info["sessions"] == 2 and info["skip_breaks"] == 1
    assert table.column("table_id").to_pylist() == [0, 1, 1]
    # through the CLI: the import's own count
    src = tmp_path / "src"
    src.mkdir()
    (src / "t.phhs").write_bytes(_hands_file({}, broken=2))
    run = tmp_path / "run"
    assert main(["import", str(src), "--out", str(run), "--workers", "0", "--quiet"]) in (0, 1)
    tables = json.loads((run / "import.json").read_text())["tables"]
    assert tables["sessions"] == 2 and tables["skip_breaks"] == 1


def test_tournament_stacks_that_show_a_hand_between_break_the_session(tmp_path: Path) -> None:
    """Two hands of a PartyPoker sit & go table, 68 s apart, the button moved: Player4 folded
    the first (won nothing, lost nothing) and starts the second with 450 less, Player0 with 450
    more. In a tournament chips move only through hands: one is missing between them (a file
    of selected hands), so they are not joined (``missing_hands``) and the outcome audit does
    not accuse the first hand ("starts with 1310, less than the record left him (1760)"). The
    same shape with the 450 gone from the table (a skim: nobody gains it) stays joined: the
    outcome audit names it."""
    real = Path(__file__).resolve().parents[2] / "fixtures" / "sitetext_real"
    text = (real / "partypoker-stt-missing-hand.txt").read_text()
    for name, body, sessions, wrong in (
            ("missing", text, 2, 0),
            ("skim", text.replace("Seat 5: Player0 ( 5,210 )", "Seat 5: Player0 ( 4,760 )"),
             1, 1)):
        src = tmp_path / name
        src.mkdir()
        (src / "stt.txt").write_text(body)
        run = tmp_path / f"{name}-run"
        assert main(["import", str(src), "--out", str(run), "--workers", "0", "--quiet"]) == 0
        tables = json.loads((run / "import.json").read_text())["tables"]
        assert tables["sessions"] == sessions, name
        assert tables.get("missing_hands", 0) == (1 if name == "missing" else 0)
        (res,) = run_audits(run, ["outcome"]).results
        assert res.details["classes"].get("wrong payout", 0) == wrong, name
