"""The outcome audit against forged operator histories written the way the red team wrote them
(PHH sessions imported with ``holdem import``, so that every later hand carries the forgery in
its starting stacks): a pot paid to the player who did not show (1), a winner who sits out or
has an unknown stack in the next hand (3), a ``winnings`` reading chosen in the operator's favour
(5), a moved pot hidden as a loser's top-up (6). Each is caught with exit 1 naming the site's
hand number, or classed ``ambiguous`` (not certified) where the record cannot say."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from audits.runner import run_audits
from cluster.cli import main
from tests.audits.forgery import RunForger, audit_cli

# hand 101 at table T1: A (seat 1, small blind), B (seat 2, big blind), C (seat 3, button);
# C raises to 10, A folds, B calls; C bets 10 on the flop, B calls; both check down and B's
# aces beat C's kings: a pot of 41 (A 1, B 20, C 20), B ends with 121, C with 80, A with 99.
# Hand 102 (button A): B small blind, C big blind, A folds, B folds: C wins B's 1.
# Hand 103 (button B): C, A, B; A folds, C folds: B wins C's 1.
SHOWDOWN = ["p3 cbr 10", "p1 f", "p2 cc", "d db 2c7d9s", "p2 cc", "p3 cbr 10", "p2 cc",
            "d db 3h", "p2 cc", "p3 cc", "d db Jc", "p2 cc", "p3 cc", "p2 sm AhAd", "p3 sm KhKd"]
FOLD = ["p3 f", "p1 f"]
HONEST_102 = [121, 80, 99]  # B, C, A
HONEST_103 = [81, 99, 120]  # C, A, B


def _hand(sec: int, number: int, seats: list[int], players: list[str], stacks: list[Any],
          actions: list[str], time: str, venue: str, extra: str = "") -> str:
    n = len(players)
    blinds = [1, 2] + [0] * (n - 2)
    acts = [f"d dh p{i + 1} ????" for i in range(n)] + actions
    stack_list = "[" + ", ".join(str(s) for s in stacks) + "]"
    return (f"[{sec}]\nvariant = 'NT'\nante_trimming_status = false\nantes = {[0] * n}\n"
            f"blinds_or_straddles = {blinds}\nmin_bet = 2\nstarting_stacks = {stack_list}\n"
            f"actions = {acts!r}\nvenue = '{venue}'\ntime = {time}\nday = 1\nmonth = 7\n"
            f"year = 2009\nhand = {number}\nseats = {seats}\nseat_count = 3\ntable = 'T1'\n"
            f"players = {players!r}\ncurrency = 'USD'\ntime_zone_abbreviation = 'UTC'\n"
            f"{extra}\n\n")


def session(s102: list[Any] | None = HONEST_102, s103: list[Any] | None = HONEST_103,
            first: list[str] = SHOWDOWN, venue: str = "RedTeam", extra: str = "",
            h102: str | None = None) -> str:
    """The red team's three-hand session (its gen.py) as a .phhs text: ``s102``/``s103`` the
    starting stacks of the next hands (None: the session ends before), ``h102`` a whole hand
    102 of its own."""
    out = _hand(1, 101, [1, 2, 3], ["A", "B", "C"], [100, 100, 100], first, "00:00:00", venue,
                extra)
    if h102 is not None:
        out += h102
    elif s102 is not None:
        out += _hand(2, 102, [2, 3, 1], ["B", "C", "A"], s102, FOLD, "00:00:30", venue)
    if s103 is not None and (s102 is not None or h102 is not None):
        out += _hand(3, 103, [3, 1, 2], ["C", "A", "B"], s103, FOLD, "00:01:00", venue)
    return out


def imported(tmp_path: Path, text: str, *flags: str, name: str = "t.phhs") -> Path:
    src = tmp_path / "src"
    src.mkdir(parents=True)
    (src / name).write_text(text)
    run = tmp_path / "run"
    assert main(["import", str(src), "--out", str(run), "--workers", "0", "--quiet",
                 *flags]) == 0
    return run


def outcome(run: Path) -> Any:
    (res,) = run_audits(run, ["outcome"]).results
    return res


def wrong_line(out: str) -> str:
    return next(x for x in out.splitlines() if "outcome:" in x and "wrong payout" in x)


RAKE = ("--rake", "5:3")


def test_the_honest_session_passes(tmp_path: Path) -> None:
    res = outcome(imported(tmp_path, session(), *RAKE))
    assert res.passed and res.details["classes"] == {"exact": 2, "not recorded": 1}


# ------------------------------------------------ (1) a pot is won only by a hand that is shown


def test_a_pot_paid_to_the_contender_whose_cards_are_unrecorded_exit_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """B showed aces; C's cards are ``sm ????``; the operator paid C, every later hand carrying
    it (the red team's f5)."""
    hidden = [*SHOWDOWN[:-1], "p3 sm ????"]
    honest = outcome(imported(tmp_path / "h", session(first=hidden), *RAKE))
    assert honest.passed and honest.details["classes"]["exact"] == 2
    run = imported(tmp_path / "f", session([80, 121, 99], [122, 99, 79], first=hidden), *RAKE)
    code, out = audit_cli(run, capsys)
    assert code == 1
    line = wrong_line(out)
    assert "site hand 101" in line and "t.phhs [1]" in line
    assert "41 of the 41 missing from the winners appears as player 2's" in line
    w = outcome(run).details["wrong_payouts"][0]
    assert {p["player_id"]: (p["rules"], p["operator"]) for p in w["players"]} == {
        1: (41, 0), 2: (0, 41)}
    # the same written in the hand's own winnings record
    run = imported(tmp_path / "w", session([80, 121, 99], [122, 99, 79], first=hidden,
                                           extra="winnings = [0, 0, 41]"), *RAKE)
    code, out = audit_cli(run, capsys)
    assert code == 1 and "winnings: paid a player the rules did not pay" in wrong_line(out)


PS23_MUCKER = """\
PokerStars Hand #245000000001:  Hold'em No Limit ($0.02/$0.05 USD) - 2023/05/06 14:22:31 CET \
[2023/05/06 8:22:31 ET]
Table 'Eurynome II' 6-max Seat #4 is the button
Seat 1: omgmuffins ($5.12 in chips)
Seat 2: p_two ($4.95 in chips)
Seat 3: p_three ($5 in chips)
Seat 4: p_four ($6.20 in chips)
Seat 5: p_five ($2.07 in chips)
Seat 6: p_six ($5.31 in chips)
p_five: posts small blind $0.02
p_six: posts big blind $0.05
*** HOLE CARDS ***
omgmuffins: raises $0.10 to $0.15
p_two: folds
p_three: folds
p_four: calls $0.15
p_five: calls $0.13
p_six: calls $0.10
*** FLOP *** [Td 4s 4c]
p_five: checks
p_six: checks
omgmuffins: bets $0.40
p_four: calls $0.40
p_five: folds
p_six: folds
*** TURN *** [Td 4s 4c] [Ah]
omgmuffins: bets $0.70
p_four: calls $0.70
*** RIVER *** [Td 4s 4c Ah] [2d]
omgmuffins: bets $1.04
p_four: calls $1.04
*** SHOW DOWN ***
omgmuffins: shows [As Ks] (two pair, Aces and Fours)
p_four: mucks hand
p_four collected $4.64 from pot
*** SUMMARY ***
Total pot $4.88 | Rake $0.24
Board [Td 4s 4c Ah 2d]
Seat 1: omgmuffins showed [As Ks] and lost with two pair, Aces and Fours
Seat 2: p_two folded before Flop (didn't bet)
Seat 3: p_three folded before Flop (didn't bet)
Seat 4: p_four (button) mucked and won ($4.64)
Seat 5: p_five (small blind) folded on the Flop
Seat 6: p_six (big blind) folded on the Flop
"""


def test_a_site_text_pot_paid_to_the_player_who_mucked_exit_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A PokerStars text hand: ``p_four collected $4.64``, ``p_four: mucks hand`` against
    omgmuffins' shown aces-up (the red team's ps23_mucker_paid.txt)."""
    pytest.importorskip("sim.histories.sites.text",
                        reason="the sites' text reader is not in this tree")
    run = imported(tmp_path, PS23_MUCKER, *RAKE, name="ps.txt")
    code, out = audit_cli(run, capsys)
    assert code == 1
    line = wrong_line(out)
    assert "site hand 245000000001" in line and "a player the rules did not pay" in line


def test_payouts_takes_no_logged_winner_who_did_not_show(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The log's own rules' result forged the same way (won, final stacks and the pot's winners
    given to C, whose cards are unrecorded; every later hand carrying it): the payouts audit
    rebuilds the pot for B, who showed."""
    hidden = [*SHOWDOWN[:-1], "p3 sm ????"]
    run = imported(tmp_path, session(first=hidden), *RAKE)
    f = RunForger(run)
    i = f.find(lambda r: r["site_hand"] == "101")
    row = f.rows[i]
    b, c = row["player_ids"].index(1), row["player_ids"].index(2)
    won, end = list(row["won"]), list(row["stacks_end"])
    won[b], won[c], end[b], end[c] = 0, won[b], end[b] - won[b], end[c] + won[b]
    row["won"], row["stacks_end"] = won, end
    row["pots"] = [{**p, "winners_mask": 1 << c} for p in row["pots"]]
    for r in f.rows:
        if r["table_id"] == row["table_id"] and r["hand_no"] > row["hand_no"]:
            for col in ("stacks_start", "stacks_end"):
                v = list(r[col])
                v[r["player_ids"].index(1)] -= 41
                v[r["player_ids"].index(2)] += 41
                r[col] = v
            if r["hand_no"] == row["hand_no"] + 1:
                r["rebuys"] = [0] * len(r["rebuys"])
    f.write()
    code, out = audit_cli(run, capsys)
    assert code == 1
    assert any("payouts" in x and "FAIL" in x for x in out.splitlines())
    assert not outcome(run).passed


# --------------------------------- (3) the next appearance of each player, not only hand + 1


def _sits_out(b_103: int) -> str:
    """Hand 102 heads-up between C and A (B sits out); B back in 103 with ``b_103``."""
    h102 = _hand(2, 102, [3, 1], ["C", "A"], [80, 99], ["p2 f"], "00:00:30", "RedTeam")
    return session(h102=h102, s103=[81, 98, b_103])


@pytest.mark.parametrize(("text", "honest"), [
    (_sits_out(80), _sits_out(121)),  # the red team's f2
    (session(["inf", 80, 99], [81, 99, 80]),  # f3: B's stack unknown in 102 only
     session(["inf", 80, 99], [81, 99, 120])),
], ids=["sits-out", "unknown-stack"])
def test_a_winner_who_sits_out_or_is_unknown_in_the_next_hand_is_followed(
        tmp_path: Path, text: str, honest: str, capsys: pytest.CaptureFixture[str]) -> None:
    clean = outcome(imported(tmp_path / "h", honest, *RAKE))
    assert clean.passed and clean.details["classes"].get("exact", 0) >= 1
    run = imported(tmp_path / "f", text, *RAKE)
    code, out = audit_cli(run, capsys)
    assert code == 1
    line = wrong_line(out)
    assert "site hand 101" in line and "more than the rake allowed" in line


# ---------------------------------------- (5) winnings read under the venue's own convention


def test_an_unknown_venues_winnings_read_two_ways_are_ambiguous_never_the_operators_way(
        tmp_path: Path) -> None:
    """``winnings = [0, 21, 0]`` on the last hand of a session: the standard reading says the
    operator kept 20 of 41, the net-profit reading that it kept nothing (the red team's f8)."""
    from reports.imports import outcome_limitations

    res = outcome(imported(tmp_path / "a", session(None, None, extra="winnings = [0, 21, 0]"),
                           *RAKE))
    assert res.passed and res.details["classes"] == {"ambiguous": 1}
    text = " ".join(outcome_limitations({"results": [res.to_dict()]}))
    assert "The payouts of 1 hand at venues whose way of writing winnings" in text
    # the next hand shows what B got: the record's reading no longer matters
    res = outcome(imported(tmp_path / "b", session(extra="winnings = [0, 21, 0]"), *RAKE))
    assert res.details["classes"] == {"exact": 2, "not recorded": 1}
    res = outcome(imported(tmp_path / "c", session([100, 80, 99], [81, 99, 99],
                                                   extra="winnings = [0, 21, 0]"), *RAKE))
    assert not res.passed and res.details["wrong_payouts"][0]["site_hand"] == "101"


@pytest.mark.parametrize("venue", ["PokerStars", "Ongame Network", "Full Tilt Poker"])
def test_a_known_venues_winnings_are_read_its_way_only(
        tmp_path: Path, venue: str, capsys: pytest.CaptureFixture[str]) -> None:
    run = imported(tmp_path, session(None, None, venue=venue, extra="winnings = [0, 21, 0]"),
                   *RAKE, "--venue", f"*.phhs={venue}")
    code, out = audit_cli(run, capsys)
    assert code == 1
    assert "site hand 101" in wrong_line(out) and "kept 20 of a pot of 41" in wrong_line(out)


def test_the_operators_venue_text_chooses_nothing(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The same underpayment under the operator's own venue field: ``PokerStars`` (a venue
    whose winnings read one way: a wrong payout), ``Pokerstars`` (unknown: read two ways,
    ambiguous) and ``Absolute Poker`` (a venue with its own schedule line): the lab did not name
    the file's venue, so every spelling is judged alike (every reading tried, the later hands
    deciding), never by the operator's text; named by the lab (``--venue``), the lab's venue
    decides: PokerStars' reading only, a wrong payout."""
    results = []
    for k, venue in enumerate(("PokerStars", "Pokerstars", "Absolute Poker")):
        run = imported(tmp_path / str(k), session(None, None, venue=venue,
                                                  extra="winnings = [0, 21, 0]"), *RAKE)
        code, _ = audit_cli(run, capsys)
        results.append((code, outcome(run).details["classes"]))
    assert results[0] == results[1] == results[2], results
    lab = imported(tmp_path / "lab", session(None, None, venue="Pokerstars",
                                             extra="winnings = [0, 21, 0]"),
                   *RAKE, "--venue", "t.phhs=PokerStars")
    code, out = audit_cli(lab, capsys)
    assert code == 1 and "kept 20 of a pot of 41" in wrong_line(out)


# -------------------------------------------------- (6) a top-up never hides a shortfall


@pytest.mark.parametrize(("flags", "moved", "cls"), [
    # the red team's f1b: B 40 short, C 39 up; the record states no rake and the lab gave no
    # schedule: an unstated rake and a top-up, or the pot moved: the record cannot tell
    ((), 39, "not attributable"),
    ((), 21, "not attributable"),  # just over half of B's 41
    ((), 20, "rake (no schedule: not checked)"),  # under half: C topped up
    (RAKE, 20, "wrong payout"),  # with a schedule the 41 kept is over it
    (RAKE, 39, "wrong payout"),
])
def test_a_pot_moved_to_a_loser_is_not_a_top_up(
        tmp_path: Path, flags: tuple[str, ...], moved: int, cls: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    short = 40 if moved == 39 else 41
    text = session([121 - short, 80 + moved, 99], [81 + moved, 99, 120 - short])
    run = imported(tmp_path, text, *flags)
    res = outcome(run)
    assert res.details["classes"]["exact"] == 1 and res.details["classes"][cls] == 1
    code, out = audit_cli(run, capsys)
    if cls == "wrong payout":
        assert code == 1 and "site hand 101" in wrong_line(out)
        if not flags:
            assert f"{moved} of the {short} missing from the winners appears as" in out
    elif cls == "not attributable":  # counted, not certified: no accusation, no PASS for it
        assert code == 0 and "wrong payout" not in res.details["classes"]
    else:
        assert code == 0 and res.details["rake_not_checked"] == {"RedTeam": 41}
        assert res.details["topped_up"] == 20


@pytest.mark.parametrize(("flags", "cls"), [((), "rake (no schedule: not checked)"),
                                            (RAKE, "rake")])
def test_a_winner_short_of_the_rake_beside_a_losers_top_up_is_rake(
        tmp_path: Path, flags: tuple[str, ...], cls: str) -> None:
    """B is 1 short (a rake), C tops up 50: the hand is rake (and the top-up counted), never
    a top-up hiding the shortfall."""
    res = outcome(imported(tmp_path, session([120, 130, 99], [131, 99, 119]), *flags))
    assert res.passed and res.details["classes"] == {cls: 1, "exact": 1, "not recorded": 1}
    assert res.details["topped_up"] == 50


@pytest.mark.parametrize(("b_103", "passed"), [(123, True), (122, True), (116, False)])
def test_a_pot_won_with_an_unknown_stack_in_between_allows_its_rake(
        tmp_path: Path, b_103: int, passed: bool) -> None:
    """B's stack is unknown in 102, where he wins C's big blind (2): 103 may show him 2 up, or
    1 up (a rake the schedule allows on that pot), but not 5 short of it."""
    h102 = _hand(2, 102, [2, 3, 1], ["B", "C", "A"], ["inf", 80, 99], ["p3 f", "p1 cbr 6", "p2 f"],
                 "00:00:30", "RedTeam")
    res = outcome(imported(tmp_path, session(h102=h102, s103=[78, 99, b_103]), *RAKE))
    assert res.passed == passed
    if not passed:
        assert res.details["wrong_payouts"][0]["site_hand"] == "101"


def test_a_split_pot_moved_to_one_winner_is_not_a_top_up() -> None:
    """Two winners of a split pot of 40 (20 each): the next hands show one with all of it, the
    other with nothing. With the lab's 5% schedule this is no rake of 20: the pot moved; without
    one (and no rake stated) the record cannot tell a rake and a top-up from it."""
    from audits.outcome import Hand, Money, classify

    h = Hand(occ=[True, True, True], start=[100, 100, 100], contrib=[20, 20, 0],
             returned=[0, 0, 0], won=[20, 20, 0], known=[True, True, True], pids=[7, 8, 9],
             pot=40, unproven=0, unproven_amt=0, players=3, flop=True, live=2)
    from fractions import Fraction

    from audits.outcome import Schedule

    later = {0: (120, 0), 1: (80, 0), 2: (100, 0)}
    five = Schedule(percent=Fraction(5), cap=None, caps_by_players=(), no_flop_no_drop=False,
                    step=0)
    v = classify(h, None, None, -1, later, five, Money(0, ""))
    assert v.cls == "wrong payout" and "appears as player 7's (seat 0) top-up" in v.why
    v = classify(h, None, None, -1, later, None, Money(0, ""))
    assert v.cls == "not attributable" and "the record states no rake" in v.why
    # a tournament hand: no top-up between hands, the pot moved
    v = classify(h, None, None, -1, later, None, Money(0, ""), cash=False)
    assert v.cls == "wrong payout"
    # a rake of 2 taken from the two (1 each) beside a third player's top-up of 50 is rake
    v = classify(h, None, None, -1, {0: (99, 0), 1: (99, 0), 2: (150, 0)}, None, Money(0, ""))
    assert v.cls == "rake (no schedule: not checked)" and v.take == 2 and v.topup == 50


def test_not_attributable_never_covers_what_the_record_proves() -> None:
    """Red team of issue 34's ``not attributable`` for a cash hand stating no rake: seat 1
    wins a pot of 40 (the lab's 5% schedule allows 2). The operator keeps 1 and the loser of
    seat 0 starts the next hand 1 up. Not attributable only while the record is silent: a
    record stating the full payment, a stated rake of 0, or a tournament proves the skim."""
    from fractions import Fraction

    from audits.outcome import Hand, Money, Schedule, classify

    h = Hand(occ=[True, True, True], start=[100, 100, 100], contrib=[20, 20, 0],
             returned=[0, 0, 0], won=[0, 40, 0], known=[True, True, True], pids=[7, 8, 9],
             pot=40, unproven=0, unproven_amt=0, players=3, flop=True, live=2)
    five = Schedule(percent=Fraction(5), cap=None, caps_by_players=(), no_flop_no_drop=False,
                    step=0)
    later = {0: (81, 0), 1: (119, 0), 2: (100, 0)}
    money = Money(0, "")
    # the record pays 39 and states no rake: an unstated rake of 1 beside a top-up of 1
    assert classify(h, [80, 119, 100], None, -1, later, five, money).cls == "not attributable"
    # the record pays all 40 (finishing stacks): the winner's next stack proves 1 taken
    v = classify(h, [80, 120, 100], None, -1, later, five, money)
    assert v.cls == "wrong payout" and "less than the record left him" in v.why
    # the record states a rake of 0: the 1 kept is proven
    v = classify(h, [80, 119, 100], None, 0, later, five, money)
    assert v.cls == "wrong payout" and "states a rake of" in v.why
    # a tournament hand: nobody tops up between hands, the chip moved
    assert classify(h, [80, 119, 100], None, -1, later, five, money,
                    cash=False).cls == "wrong payout"
    # a shortfall over the schedule (3 of 40 at 5%) beside the loser's gain of 3
    over = {0: (83, 0), 1: (117, 0), 2: (100, 0)}
    assert classify(h, None, None, -1, over, five, money).cls == "wrong payout"
