"""Real sites' hands the import misread (issue 34): small copies of hands of ../shared/sitetext in
tests/fixtures/sitetext/real, each read exactly, and its outcome never a false accusation of the
operator."""

from __future__ import annotations

from decimal import Decimal as D
from pathlib import Path
from typing import Any

from audits.runner import run_audits
from cluster.cli import main
from sim.histories.sites.text import read_history

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "sitetext" / "real"


def _outcome(tmp_path: Path, *names: str) -> dict[str, Any]:
    """Import the fixtures as a lab would and run the outcome audit: its details."""
    src = tmp_path / "src"
    src.mkdir()
    for name in names:
        (src / name).write_bytes((REAL / name).read_bytes())
    run = tmp_path / "run"
    assert main(["import", str(src), "--out", str(run), "--workers", "0", "--quiet"]) in (0, 1)
    (res,) = run_audits(run, ["outcome"]).results
    return dict(res.details)


def test_ongame_finishing_stacks_of_players_who_sat_the_hand_out(tmp_path: Path) -> None:
    """Ongame's summary states every seated player's finishing stack, with ``, net: N`` only
    for those who put chips in: a player who folded without a bet finished with his stack (he
    was read as finishing with 0, "lost 12.88 more than his bets": a wrong payout on a fair
    hand)."""
    (h,) = read_history(REAL / "ongame-sitting-out.txt").hands
    assert h.finishing_stacks is not None
    fin = dict(zip(h.players, h.finishing_stacks, strict=True))
    assert fin == {"Player1": D("4.81"), "Player0": D("10.80"), "Player2": D("12.88"),
                   "Hero": D("14.18"), "Player4": D("8.60")}
    classes = _outcome(tmp_path, "ongame-sitting-out.txt")["classes"]
    assert classes == {"rake (no schedule: not checked)": 1}
