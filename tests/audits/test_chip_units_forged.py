"""Red team of the whole-chip split (``audits.outcome.chip_units``, issue 34): only a tournament
hand's pots are split in whole chips. A cash hand whose operator names its currency ``chips``
(PHH ``currency``, free text) in a run in cents is split in cents: the label never lets the
operator pay a whole chip's odd chip ($1 here) to one of two tied winners."""

from __future__ import annotations

from pathlib import Path

from audits.runner import run_audits
from cluster.cli import main

_CENTS = """[1]
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [0.01, 0.02, 0]
min_bet = 0.02
starting_stacks = [2, 2, 2]
actions = ["d dh p1 ????", "d dh p2 ????", "d dh p3 ????", "p3 f", "p1 f"]
currency = "USD"
"""

# p1 folds his small blind; p2 and p3 tie with ace-king: a pot of 5 (units of $1 at this
# table), 2.50 each in cents; the operator pays p2 3 and p3 2 (the odd "chip")
_TIE = """[1]
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = ["d dh p1 2c3d", "d dh p2 AhKd", "d dh p3 AsKc", "p3 cc", "p1 f", "p2 cc",
           "d db QdJs4h", "p2 cc", "p3 cc", "d db 8c", "p2 cc", "p3 cc", "d db 3h", "p2 cc",
           "p3 cc", "p2 sm AhKd", "p3 sm AsKc"]
currency = "chips"
winnings = [0, 3, 2]
"""


def test_a_cash_hand_labelled_chips_is_split_in_cents(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "cents.phhs").write_text(_CENTS)
    (src / "tie.phhs").write_text(_TIE)
    run = tmp_path / "run"
    assert main(["import", str(src), "--out", str(run), "--workers", "0", "--quiet"]) == 0
    (out,) = run_audits(run, ["outcome"]).results
    assert out.details["money"]["exponent"] == 2
    assert not out.passed and out.details["classes"].get("wrong payout") == 1
