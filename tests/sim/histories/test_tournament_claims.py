"""The operator's tournament claims (issue 34, point 3): finishing places, prizes, bounties,
re-buys and add-ons a site's text writes are read into the import log (``op_claim_players``,
``op_claims``) as written, about the hand's seated players, and the players are keyed like
``players`` under ``--hash-names``; ``holdem export``'s ``tournaments`` table lists them per
tournament (``claims_stated``)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.dataset as ds

from cluster.cli import main
from sim.histories.sites.tournament_claims import claims

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "sitetext_real"


def test_each_sites_claim_lines_are_read_as_written() -> None:
    seated = ["Hero", "Player7", "J.R.66350", "0Player0"]
    stars = "\n".join([
        "Player7 finished the tournament in 53rd place",
        "Hero finished the tournament in 3rd place and received $12.50.",
        "J.R.66350 wins the tournament and receives $45.00 - congratulations!",
        "Hero wins the $5 bounty for eliminating Player7",
        "J.R.66350 re-buys and receives 3000 chips for $10.00",
        "Player7 re-buys and receives 3,000 chips for 250 StarsCoin",
        "Hero takes the add-on and receives 3000 chips for $1.00",
        "Nobody finished the tournament in 9th place",  # not seated at this table: not read
        "Hero collected 1155 from main pot",
    ])
    assert claims("pokerstars", stars, seated) == (
        ("Player7", "place 53"), ("Hero", "place 3"), ("Hero", "prize $12.50"),
        ("J.R.66350", "place 1"), ("J.R.66350", "prize $45.00"), ("Hero", "bounty $5"),
        ("J.R.66350", "rebuy 3000 $10.00"), ("Player7", "rebuy 3000 250 StarsCoin"),
        ("Hero", "add-on 3000 $1.00"))
    # Full Tilt and PartyPoker, lines as ../shared/sitetext has them
    assert claims("fulltilt", "Hero finished in 3rd place\n", seated) == (("Hero", "place 3"),)
    assert claims("partypoker", "Player 0Player0 finished in 4 169.\n", seated) == (
        ("0Player0", "place 4"),)
    assert claims("ggpoker", "Hero finished the tournament in 3rd place\n", seated) == ()


def test_the_claims_are_in_the_log_and_keyed_like_players(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "mtt.txt").write_bytes((REAL / "pokerstars-mtt.txt").read_bytes())
    key = tmp_path / "key"
    key.write_bytes(b"k" * 32)
    got = {}
    for hashed in (False, True):
        run = tmp_path / f"run{hashed}"
        args = ["import", str(src), "--out", str(run), "--workers", "0", "--quiet"]
        assert main([*args, "--hash-names", str(key)] if hashed else args) == 0
        assert main(["export", str(run), "--workers", "0", "--quiet"]) == 0
        rows = ds.dataset(run / "log").to_table(
            columns=["site_hand", "players", "op_claim_players", "op_claims"]).to_pylist()
        got[hashed] = {r["site_hand"]: r for r in rows}
    plain = got[False]
    tables = {r["site_tournament"]: r["claims_stated"] for r in ds.dataset(
        tmp_path / "runFalse" / "tables" / "tournaments").to_table().to_pylist()}
    assert tables == {"551010441": ["Hero: place 708"],
                      "1407056458": ["Player2: rebuy 3000 250 StarsCoin", "Player7: place 53"]}
    assert plain["72047901202"]["op_claim_players"] == ["Hero"]
    assert plain["72047901202"]["op_claims"] == ["place 708"]
    assert plain["145645009921"]["op_claim_players"] == ["Player2", "Player7"]
    assert plain["145645009921"]["op_claims"] == ["rebuy 3000 250 StarsCoin", "place 53"]
    for hand, r in got[True].items():
        assert r["op_claims"] == plain[hand]["op_claims"]
        pseudonym = dict(zip(plain[hand]["players"], r["players"], strict=True))
        assert r["op_claim_players"] == [pseudonym[p] for p in plain[hand]["op_claim_players"]]
        assert not set(r["op_claim_players"]) & set(plain[hand]["players"]) - {""}


_UNCHECKED = "not checked (no next hand of the session, or the run's unit unknown)"


def _claims_check(tmp_path: Path, name: str, text: str, cash: bool = False
                  ) -> dict[str, str | None]:
    src = tmp_path / name
    src.mkdir()
    (src / "h.txt").write_text(text)
    if cash:  # a cash file in cents beside it: the run's unit is 10^-2, a chip is 100 units
        (src / "cash.txt").write_bytes((REAL / "cake-cash.txt").read_bytes())
    run = tmp_path / f"{name}-run"
    assert main(["import", str(src), "--out", str(run), "--workers", "0", "--quiet"]) == 0
    assert main(["export", str(run), "--workers", "0", "--quiet"]) == 0
    return {r["site_tournament"]: r["claims_check"] for r in ds.dataset(
        run / "tables" / "tournaments").to_table().to_pylist()}


def test_a_rebuy_claim_is_checked_against_the_next_hands_stack(tmp_path: Path) -> None:
    """A real re-buy (PokerStars, 2007: ``Hero re-buys and receives 3000 chips for $10.00``,
    and the next hand Hero starts with 3000) matches; the operator who writes 2000 chips for it
    while the next hand's stack shows 3000 is named, as the operator's claim that the record
    contradicts. A claim with no next hand in the file is not checked, never a fault."""
    text = (REAL / "pokerstars-rebuy.txt").read_text()
    line = "Hero re-buys and receives 3000 chips for $10.00"
    assert text.count(line) == 1
    honest = _claims_check(tmp_path, "honest", text)
    assert honest == {"63858762": "re-buys and add-ons: 1 match the chips the next hand adds, "
                                  f"0 {_UNCHECKED}"}
    forged = _claims_check(tmp_path, "forged", text.replace(line, line.replace("3000", "2000")))
    assert forged == {"63858762": (
        f"re-buys and add-ons: 0 match the chips the next hand adds, 0 {_UNCHECKED}; the "
        "operator's claim that the record contradicts: Hero re-buys/add-ons 2000 chips in hand "
        "0 of table 0, the next hand adds 3000")}
    # the same with a cash file in cents in the run (the log's chips are then hundredths)
    assert _claims_check(tmp_path, "cents", text, cash=True) == honest
    alone = _claims_check(tmp_path, "alone", text[:text.index("PokerStars Game #", 10)])
    assert alone == {"63858762": "re-buys and add-ons: 0 match the chips the next hand adds, "
                                 f"1 {_UNCHECKED}"}
