"""PokerStars' tournament summaries (issue 34, point 3) read exactly: real summaries
(tests/fixtures/summaries, README.md there names their sources) give the numbers their text
states, the format is detected from the content, and a summary with a line the reader does not
know is named in one line (file, line, text, what was expected), never a traceback."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from sim.histories.sites.summary import FORMAT, money, read_summaries, read_summary_file
from sim.histories.sites.text import detect_format, reads_history

SUMMARIES = Path(__file__).resolve().parents[2] / "fixtures" / "summaries"


def test_an_emailed_summary_is_read_exactly() -> None:
    path = SUMMARIES / "stars-husng-usd-10-201011.txt"
    text = path.read_text(encoding="utf-8")
    assert detect_format(text) == FORMAT
    f = read_summary_file(str(path))
    assert f.unread == []
    (s,) = f.summaries
    assert (s.tournament, s.game, s.buy_in, s.currency) == (
        "329052872", "No Limit Hold'em", ("$10.00", "$0.50"), "USD")
    assert (s.players, s.pool, s.pool_currency) == (2, "$20.00", "USD")
    assert (s.started, s.finished) == ("2010/11/07 8:03:52 ET", "2010/11/07 8:21:44 ET")
    assert s.line == 4  # after the e-mail's first line and two blank lines
    assert [(p.place, p.player, p.where, p.prize, p.percent) for p in s.places] == [
        (1, "s0rrow", "Perth", "$20.00", "100"), (2, "v.v.75", "Грязи", None, None)]
    assert (s.hero_place, s.hero_eliminated_at) == (1, None)
    # a summary is no hand: the hand reader gives none and skips nothing
    pf = reads_history(text, source=str(path))
    assert (pf.format, pf.hands, pf.skipped) == (FORMAT, [], [])


def test_a_finished_mtt_is_read_line_by_line() -> None:
    path = SUMMARIES / "stars-mtt-usd-20-200708.txt"
    text = path.read_text(encoding="utf-8")
    (s,) = read_summary_file(str(path)).summaries
    lines = [ln for ln in text.splitlines() if ln.startswith(" ") and ": " in ln]
    assert s.players == 276 == len(lines) == len(s.places)
    assert (s.buy_in, s.currency, s.pool, s.hero_place) == (("$20.00", "$2.00"), "", "$5520.00", 2)
    paid = [p for p in s.places if p.prize is not None]
    assert len(paid) == 27 and paid[-1].place == 27
    assert sum(money(p.prize or "")[1] for p in paid) == Decimal("5520.00")  # type: ignore[index]
    by_place = {p.place: p for p in s.places}
    assert (by_place[3].player, by_place[3].prize, by_place[3].percent) == (
        "aufgehts007", "$640.32", "11.60")
    # names and places with parentheses and commas, as written
    assert (by_place[35].player, by_place[35].where) == ("badkarmatom", "Horn (HOLLAND)")
    assert (by_place[119].player, by_place[176].where) == ("Bravo,Jonny", "Melbourne, Victoria")
    assert by_place[27].line == text.splitlines().index(" 27: Mr. Redline (Woodbridge), "
                                                        "$38.64 (0.70%)") + 1


def test_a_running_sit_and_go_and_a_drawn_pool() -> None:
    (s,) = read_summary_file(str(SUMMARIES / "stars-sng-eur-10-201101.txt")).summaries
    assert (s.buy_in, s.pool, s.players) == (("€9.04", "€0.96"), "€81.36", 9)
    assert [p.still_playing for p in s.places] == [True] * 7 + [False] * 2
    assert (s.hero_place, s.hero_eliminated_at) == (8, "56087971216")
    (t,) = read_summary_file(str(SUMMARIES / "stars-6plus-3max-usd-1-201907.txt")).summaries
    assert (t.game, t.buy_in, t.pool, t.hero_eliminated_at) == (
        "No Limit 6+ Hold'em", ("$0.92", "$0.08"), "$3.00", "202860360641")


def test_a_malformed_summary_is_one_named_line() -> None:
    text = (SUMMARIES / "stars-husng-usd-10-201011.txt").read_text(encoding="utf-8")
    bad = text.replace("Total Prize Pool: $20.00 USD", "Total Prize Pool: twenty dollars")
    f = read_summaries(bad, "sums.txt")
    assert f.summaries == []
    (u,) = f.unread
    assert u.line == 7
    why = u.describe()
    assert "\n" not in why
    assert why.startswith("sums.txt line 7: 'Total Prize Pool: twenty dollars': not a line of a "
                          "PokerStars tournament summary")
    twice = text.replace(" 2: v.v.75 (Грязи),", " 1: v.v.75 (Грязи),")
    (u,) = read_summaries(twice, "s.txt").unread
    assert u.describe() == ("s.txt line 11: '1: v.v.75': place 1 listed twice (first at line "
                            "10)")
    no_players = text.replace("2 players\n", "")
    (u,) = read_summaries(no_players, "s.txt").unread
    assert u.describe() == ("s.txt line 4: \"PokerStars Tournament #329052872, No Limit "
                            "Hold'em\": the summary states no 'N players' line")
    # the next summary of a file is still read
    two = bad + "\n" + (SUMMARIES / "stars-6plus-3max-usd-1-201907.txt").read_text()
    f = read_summaries(two, "two.txt")
    assert [s.tournament for s in f.summaries] == ["2663538841"] and len(f.unread) == 1


def test_a_rebuy_mtt_with_crlf_line_ends() -> None:
    path = SUMMARIES / "stars-plo-mtt-rebuy-usd-505-202005.txt"
    assert b"\r\n" in path.read_bytes()
    (s,) = read_summary_file(str(path)).summaries
    assert (s.tournament, s.game, s.buy_in, s.players, s.pool) == (
        "2874010306", "Pot Limit Omaha", ("$505.00", "$25.00"), 236, "$462580.00")
    assert (s.hero_place, s.hero_rebuys) == (47, "5 rebuys, 1 add-ons, USD 3,180.00")
    paid = [p for p in s.places if p.prize is not None]
    assert (len(s.places), len(paid)) == (236, 35)
    assert (paid[0].player, paid[0].prize, paid[0].percent) == (
        "locomi", "$89,165.94", "19.275")
    assert sum(money(p.prize or "")[1] for p in paid) == Decimal("462580.00")  # type: ignore[index]
    assert s.places[-1].player == "7Be/\\eC7"
