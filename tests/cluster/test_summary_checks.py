"""The operator's tournament summaries checked at ``holdem import`` (issue 34, point 3;
``cluster.flows.summary_checks``): honest summaries agree; summaries forged the way an operator
would forge them (a pool shorted with its prizes, percentages and the hands' claims made to
match; a paid place left out; a prize the hands claim otherwise; places swapped with the hands'
claims swapped too; a player claimed out who still holds chips; another buy-in) are each caught
with the amounts; what cannot be decided is "not checked"; a malformed summary is one named line;
``holdem verify``'s re-import gives the same checks and catches an edited record of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cluster.cli import main
from cluster.flows.reproduce import reproduce_import
from cluster.flows.summary_checks import check_summaries
from sim.histories.sites.summary import read_summaries

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
_MTT = (FIXTURES / "sitetext_real" / "pokerstars-mtt.txt").read_text()
# a real PokerStars MTT hand (tournament 551010441, $100+$9): Hero all-in, loses, out; its time
# in ET alone (the import knows ET's offset, not PT's: a hand's time_utc)
HAND_A = _MTT[:_MTT.index("PokerStars Hand #", 10)].replace(
    "2011/12/12 10:45:40 PT [2011/12/12 13:45:40 ET]", "2011/12/12 13:45:40 ET")
# the same hand ten minutes later with Villain in Hero's seat (Villain busts in it)
HAND_B = (HAND_A.replace("Hero", "Villain").replace("72047901202", "72047901299")
          .replace("13:45:40", "13:55:40"))
CLAIM = "Hero finished the tournament in 708th place"


def _hands(a_claim: str = "Hero finished the tournament in 4th place",
           b_claim: str = "Villain finished the tournament in 3rd place and received $200.00.",
           extra_a: str = "") -> str:
    assert HAND_A.count(CLAIM) == 1
    b = HAND_B.replace(CLAIM.replace("Hero", "Villain"), b_claim)
    return HAND_A.replace(CLAIM, a_claim + extra_a) + b


def _summary(pool: str = "$1000.00", buy_in: str = "$100.00/$9.00",
             paid: tuple[tuple[str, str, str], ...] = (
                 ("Player4", "$500.00", "50"), ("Player0", "$300.00", "30"),
                 ("Villain", "$200.00", "20")),
             unpaid: tuple[str, ...] = ("Hero", "Player1", "Player2", "Player3", "Player5",
                                        "Player6", "Player7"),
             drop: int | None = None, hero_place: int = 4) -> str:
    lines = ["PokerStars Tournament #551010441, No Limit Hold'em", f"Buy-In: {buy_in} USD",
             "10 players", f"Total Prize Pool: {pool} USD",
             "Tournament started 2011/12/12 10:00:00 PT [2011/12/12 13:00:00 ET]",
             "Tournament finished 2011/12/12 12:00:00 PT [2011/12/12 15:00:00 ET]"]
    places = [f"  {k}: {who} (Somewhere), {prize} ({pct}%)"
              for k, (who, prize, pct) in enumerate(paid, 1)]
    places += [f"  {k}: {who} (Somewhere), " for k, who in enumerate(unpaid, len(paid) + 1)]
    if drop is not None:
        del places[drop - 1]
    return "\n".join([*lines, "", *places, "",
                      f"You finished in {hero_place}th place (eliminated at hand "
                      "#72047901202).", ""])


def _import(tmp: Path, name: str, hands: str, summary: str, *args: str,
            ) -> tuple[dict[str, dict[str, str]], dict[str, Any], Path]:
    src = tmp / name
    src.mkdir()
    (src / "hands.txt").write_text(hands)
    (src / "summary.txt").write_text(summary)
    run = tmp / f"{name}-run"
    assert main(["import", str(src), "--out", str(run), "--workers", "0", "--quiet",
                 *args]) == 0
    record = json.loads((run / "import.json").read_text())["summaries"]
    (s,) = record["summaries"]
    return {c["check"]: c for c in s["checks"]}, record, run


def _results(checks: dict[str, dict[str, str]]) -> dict[str, str]:
    return {name: c["result"] for name, c in checks.items()}


def test_an_honest_summary_agrees_with_itself_and_the_hands(tmp_path: Path) -> None:
    checks, record, run = _import(tmp_path, "honest", _hands(), _summary())
    assert _results(checks) == dict.fromkeys(
        ("pool", "percentages", "places", "payouts", "buy-in", "hand claims", "eliminations",
         "elimination order"), "agrees")
    assert checks["pool"]["text"] == ("pool $1,000.00 stated, at least 10 entries x the prize "
                                      "part $100.00 = $1,000.00")
    assert checks["payouts"]["text"] == ("3 prizes sum to $1,000.00, the pool is $1,000.00: "
                                         "every place listed, the pool paid out")
    assert checks["eliminations"]["text"] == ("2 players eliminated in a hand of the log, with "
                                              "no chip at its end")
    assert (record["read"], record["tournaments"], record["tournaments_in_log"]) == (1, 1, 1)
    assert record["checks"] == {"agrees": 8, "disagrees": 0, "not checked": 0}
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["summaries"]["tournaments"]["551010441"].startswith(
        "summary pool, percentages, places, payouts, buy-in, hand claims, eliminations, "
        "elimination order: agree")
    assert [s["format"] for s in manifest["sources"]] == ["pokerstars", "pokerstars-summary"]
    # the export's tournaments table says it where the claims are checked
    assert main(["export", str(run), "--workers", "0", "--quiet"]) == 0
    import pyarrow.dataset as ds

    (row,) = ds.dataset(run / "tables" / "tournaments").to_table().to_pylist()
    assert "summary pool, percentages, places, payouts" in row["claims_check"]
    assert "not checked (the record states no entrants" not in row["claims_check"]
    # holdem verify's re-import reads and checks the summary again: the same record
    rep = reproduce_import(str(run), sources=str(tmp_path / "honest"))
    assert rep.ok, rep.message
    # an edited record of the checks is not what the sources give
    rec = json.loads((run / "import.json").read_text())
    rec["summaries"]["checks"] = {"agrees": 9, "disagrees": 0, "not checked": 0}
    (run / "import.json").write_text(json.dumps(rec, indent=1))
    rep = reproduce_import(str(run), sources=str(tmp_path / "honest"))
    assert not rep.ok and "import.json: field summaries" in rep.message


def test_a_pool_shorted_consistently_is_caught_by_its_entries(tmp_path: Path) -> None:
    """The operator states a pool of $900 for 10 entries of $100 (+$9), pays it out by the
    stated percentages and writes the shorted prize in the hand too: only the entries give it
    away."""
    forged = _summary(pool="$900.00", paid=(("Player4", "$450.00", "50"),
                                            ("Player0", "$270.00", "30"),
                                            ("Villain", "$180.00", "20")))
    hands = _hands(b_claim="Villain finished the tournament in 3rd place and received $180.00.")
    checks, record, _ = _import(tmp_path, "short", hands, forged)
    assert checks["pool"] == {"check": "pool", "result": "disagrees", "text": (
        "pool $900.00 stated, $100.00 less than its 10 entries x the prize part $100.00 = "
        "$1,000.00: the pool is short")}
    assert {k: v for k, v in _results(checks).items() if v != "agrees"} == {"pool": "disagrees"}
    assert record["disagreements"] == [
        f"tournament #551010441 ({tmp_path}/short/summary.txt line 1): pool: "
        + checks["pool"]["text"]]


def test_a_paid_place_missing_is_named_with_the_money_it_leaves(tmp_path: Path) -> None:
    checks, _, _ = _import(tmp_path, "missing", _hands(), _summary(drop=2))
    assert checks["places"]["result"] == "disagrees"
    assert checks["places"]["text"] == ("the summary counts 10 players and lists 9 places: "
                                        "place 2 not listed")
    assert checks["payouts"] == {"check": "payouts", "result": "disagrees", "text": (
        "2 prizes sum to $700.00, the pool is $1,000.00: $300.00 of the pool is paid to no "
        "listed place (place 2 not listed)")}


def test_a_prize_the_hand_claims_otherwise_is_named(tmp_path: Path) -> None:
    hands = _hands(b_claim="Villain finished the tournament in 3rd place and received $250.00.")
    checks, _, _ = _import(tmp_path, "prize", hands, _summary())
    assert checks["hand claims"] == {"check": "hand claims", "result": "disagrees", "text": (
        "hand 72047901299 claims Villain received $250.00, the summary pays Villain $200.00 "
        "(place 3)")}
    assert {k for k, v in _results(checks).items() if v != "agrees"} == {"hand claims"}


def test_places_swapped_with_the_hands_claims_are_out_of_elimination_order(
        tmp_path: Path) -> None:
    """Hero is out at 13:45 ET, Villain at 13:55: the operator pays Hero third and Villain
    fourth, and writes the hands' place lines to match; the order of the eliminations gives it
    away."""
    forged = _summary(paid=(("Player4", "$500.00", "50"), ("Player0", "$300.00", "30"),
                            ("Hero", "$200.00", "20")),
                      unpaid=("Villain", "Player1", "Player2", "Player3", "Player5", "Player6",
                              "Player7"), hero_place=3)
    hands = _hands(a_claim="Hero finished the tournament in 3rd place and received $200.00.",
                   b_claim="Villain finished the tournament in 4th place")
    checks, _, _ = _import(tmp_path, "order", hands, forged)
    assert checks["hand claims"]["result"] == "agrees"
    assert checks["elimination order"] == {
        "check": "elimination order", "result": "disagrees", "text": (
            "Hero was eliminated in hand 72047901202 before Villain in hand 72047901299, the "
            "summary places Hero 3, ahead of Villain's 4")}


def test_a_player_claimed_out_with_chips_left_and_another_buy_in(tmp_path: Path) -> None:
    hands = _hands(extra_a="\nPlayer0 finished the tournament in 2nd place")
    checks, _, _ = _import(tmp_path, "chips", hands, _summary(buy_in="$90.00/$19.00"))
    assert checks["eliminations"] == {"check": "eliminations", "result": "disagrees", "text": (
        "hand 72047901202 says Player0 finished in place 2, the rules' replay of the hand "
        "leaves Player0 7,056 chips")}
    assert checks["buy-in"] == {"check": "buy-in", "result": "disagrees", "text": (
        "the hands' headers state $100+$9 USD, the summary $90.00/$19.00 USD")}
    # the pool (10 x $90 = $900 <= $1,000) is then no fault: more than the entries is allowed
    assert checks["pool"]["result"] == "agrees"


def test_what_cannot_be_decided_is_not_checked() -> None:
    """No pool stated, a buy-in of one part, currencies that differ, a drawn pool of a
    three-player sit & go (2 x the whole buy-in, below 3 x the prize part), places still
    running: none is a disagreement."""
    base = _summary()

    def results(text: str) -> dict[str, str]:
        record, _ = check_summaries([read_summaries(text, "s.txt")], _empty(), 0)
        return {c["check"]: c["result"] for c in record["summaries"][0]["checks"]}

    assert results(base.replace("Total Prize Pool: $1000.00 USD\n", ""))["pool"] == "not checked"
    assert results(base.replace("$100.00/$9.00", "$109.00"))["pool"] == "not checked"
    assert results(base.replace("Total Prize Pool: $1000.00 USD",
                                "Total Prize Pool: €1000.00 EUR"))["pool"] == "not checked"
    spin = ("PokerStars Tournament #1, No Limit Hold'em\nBuy-In: $0.93/$0.07 USD\n3 players\n"
            "Total Prize Pool: $2.00 USD\n 1: a (X), $2.00 (100%)\n 2: b (Y), \n 3: c (Z), \n")
    got = results(spin)
    assert got["pool"] == "not checked" and got["payouts"] == "agrees"
    # the same shortfall with four players is no drawn pool
    assert results(spin.replace("3 players", "4 players") + " 4: d (W), \n")["pool"] == \
        "disagrees"
    running = base.replace("$500.00 (50%)", "still playing").replace(
        "$300.00 (30%)", "still playing")
    got = results(running)
    assert got["payouts"] == "agrees"  # $200 paid, no more than the pool; equal not checked
    assert {got[c] for c in ("buy-in", "hand claims", "eliminations",
                             "elimination order")} == {"not checked"}


def _empty() -> Any:
    from sim.schema import IMPORT_SCHEMA

    return IMPORT_SCHEMA.empty_table()


def test_a_malformed_summary_is_one_named_line(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    bad = _summary().replace("10 players", "10 players (2 re-entries)")
    src = tmp_path / "bad"
    src.mkdir()
    (src / "hands.txt").write_text(_hands())
    (src / "summary.txt").write_text(bad)
    assert main(["import", str(src), "--out", str(tmp_path / "run"), "--workers", "0"]) == 0
    out = capsys.readouterr().out
    assert (f"summary not read: {src}/summary.txt line 3: '10 players (2 re-entries)': not a "
            "line of a PokerStars tournament summary") in out
    assert "0 tournament summaries read (1 not read)" in out
    record = json.loads((tmp_path / "run" / "import.json").read_text())["summaries"]
    assert (record["read"], record["not_read"], record["summaries"]) == (0, 1, [])


def test_the_certificate_says_what_the_summaries_show(tmp_path: Path) -> None:
    """The certificate's import section states the summaries' checks from import.json (which it
    binds by sha256): the shortfall of a shorted pool, with its amounts."""
    forged = _summary(pool="$900.00", paid=(("Player4", "$450.00", "50"),
                                            ("Player0", "$270.00", "30"),
                                            ("Villain", "$180.00", "20")))
    hands = _hands(b_claim="Villain finished the tournament in 3rd place and received $180.00.")
    checks, _, run = _import(tmp_path, "cert", hands, forged)
    assert main(["audit", str(run), "--workers", "0", "--quiet"]) in (0, 1)
    assert main(["report", str(run)]) in (0, 1)
    section = json.loads((run / "certificate.json").read_text())["import"]
    (said,) = [s for s in section["certified"] if s.startswith("The operator's tournament")]
    assert said.startswith("The operator's tournament summaries (1 summary read of 1 "
                           "tournament, 1 with hands in the log)")
    assert said.endswith("7 checks agree, 1 disagreement (the first: tournament #551010441 "
                         f"({tmp_path}/cert/summary.txt line 1): pool: "
                         + checks["pool"]["text"] + ").")
    # the prize money is paid outside the hands: not a FAIL, but the first line says LIMITED
    cert = json.loads((run / "certificate.json").read_text())
    (limit,) = [s for s in cert["limitations"] if s.startswith("The operator's tournament")]
    assert limit.startswith("The operator's tournament summaries disagree with themselves or "
                            "with the hands in 1 check (the first: tournament #551010441 ")
    assert checks["pool"]["text"] in limit
    assert "LIMITED" in cert["verdict_text"] and "tournament summaries disagree" in (
        cert["verdict_text"])


def test_agreeing_summaries_limit_nothing(tmp_path: Path) -> None:
    """An honest summary adds no limitation: the verdict's first line is not LIMITED by it."""
    _, _, run = _import(tmp_path, "honest", _hands(), _summary())
    assert main(["audit", str(run), "--workers", "0", "--quiet"]) in (0, 1)
    assert main(["report", str(run)]) in (0, 1)
    cert = json.loads((run / "certificate.json").read_text())
    assert not [s for s in cert["limitations"] if "tournament summaries" in s]


def test_under_hash_names_the_summary_is_compared_under_the_same_keys(tmp_path: Path) -> None:
    key = tmp_path / "key"
    key.write_bytes(b"k" * 32)
    hands = _hands(b_claim="Villain finished the tournament in 3rd place and received $250.00.")
    checks, record, _ = _import(tmp_path, "hashed", hands, _summary(), "--hash-names", str(key))
    from cluster.flows.import_histories import name_hash

    villain = name_hash(b"k" * 32)("Villain")
    assert checks["eliminations"]["result"] == "agrees"  # the hands' pseudonyms are found
    assert checks["hand claims"]["text"] == (
        f"hand 72047901299 claims {villain} received $250.00, the summary pays {villain} "
        "$200.00 (place 3)")
    assert "Villain" not in json.dumps(record)


SUMMARIES = FIXTURES / "summaries"


def _checked(*texts: tuple[str, str]) -> list[dict[str, str]]:
    files = [read_summaries(text, name) for name, text in texts]
    record, _ = check_summaries(files, _empty(), 0)
    return [{c["check"]: c["result"] for c in s["checks"]} for s in record["summaries"]]


def test_the_real_summaries_disagree_with_nothing() -> None:
    got = _checked(*[(p.name, p.read_text(encoding="utf-8"))
                     for p in sorted(SUMMARIES.glob("*.txt"))])
    assert [r["pool"] for r in got] == ["agrees"] * 5
    assert all("disagrees" not in r.values() for r in got)
    by_name = dict(zip(sorted(p.name for p in SUMMARIES.glob("*.txt")), got, strict=True))
    assert by_name["stars-mtt-usd-20-200708.txt"]["payouts"] == "agrees"
    # 35 prizes sum to the pool exactly; the pool is far above 236 x $505 (re-buys)
    assert by_name["stars-plo-mtt-rebuy-usd-505-202005.txt"]["payouts"] == "agrees"
    assert by_name["stars-sng-eur-10-201101.txt"]["percentages"] == "not checked"


def test_a_prize_moved_off_its_percentage_is_named() -> None:
    text = (SUMMARIES / "stars-mtt-usd-20-200708.txt").read_text(encoding="utf-8")
    forged = text.replace("$640.32 (11.60%)", "$740.32 (11.60%)")
    files = [read_summaries(forged, "mtt.txt")]
    record, _ = check_summaries(files, _empty(), 0)
    checks = {c["check"]: c for c in record["summaries"][0]["checks"]}
    assert checks["percentages"]["text"] == ("place 3 (aufgehts007): $740.32 stated, 11.60% of "
                                             "the pool $5,520.00 is $640.32")
    assert checks["payouts"]["text"] == ("27 prizes sum to $5,620.00, the pool is $5,520.00: "
                                         "$100.00 more than the pool is paid")


def test_names_written_otherwise_are_matched_or_not_checked(tmp_path: Path) -> None:
    """An e-mail's quoted-printable escapes are decoded into the hands' names; a name the
    summary lists otherwise is no proof that the player is missing, and a player of several
    entries (``NAME [2]``) may be claimed out in a hand for an earlier entry: not checked. The
    winner's place claim is no elimination (the winner keeps the chips)."""
    from cluster.flows.summary_checks import player_name

    assert player_name("WRUUUUM [2]") == "WRUUUUM"
    assert player_name("Skjerv=C3=B8y") == "Skjervøy"
    assert player_name("a=ZZ") == "a=ZZ"
    forged = _summary().replace("Villain (Somewhere)", "Vil=E2=82=ACain (Somewhere)")
    checks, _, _ = _import(tmp_path, "names", _hands(), forged)
    assert checks["hand claims"] == {"check": "hand claims", "result": "agrees", "text": (
        "1 place or prize the hands claim as the summary states")}  # Hero's; Villain's not
    reentry = _summary().replace("  4: Hero (Somewhere)", "  4: Hero [2] (Somewhere)")
    checks, _, _ = _import(tmp_path, "reentry", _hands(a_claim="Hero finished the tournament "
                                                              "in 9th place"), reentry)
    assert checks["hand claims"]["result"] == "agrees"  # Villain's two; Hero's 9th unchecked
    hands = _hands(extra_a="\nPlayer4 wins the tournament and receives $500.00 - "
                           "congratulations!")
    checks, _, _ = _import(tmp_path, "winner", hands, _summary())
    assert checks["eliminations"]["result"] == "agrees"
    assert checks["hand claims"]["text"] == ("5 places and prizes the hands claim as the summary "
                                             "states")
