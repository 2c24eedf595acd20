"""The sites' text hand histories (sim.histories.sites.text): each site's hands read with their
facts and the outcome the site recorded, chip conservation, replay, per-hand skips, detection from
content and bad input."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from dataclasses import replace
from decimal import Decimal as D
from pathlib import Path
from typing import Any

import pytest

from cluster.cli import main
from sim.histories.read.phh import PhhAction, PhhHand, parse_action, read_phh
from sim.histories.replay.reference import replay
from sim.histories.sites.text import (
    MAX_LINE_CHARS,
    detect_format,
    iter_history_paths,
    pot_contributions,
    read_history,
    reads_history,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "sitetext"
REALHANDS = Path(__file__).resolve().parents[3].parent / "shared" / "realhands"

# per site: file, format, venue, hand numbers, table, time zone, seat_count, currency
SITES: dict[str, dict[str, Any]] = {
    "pokerstars": {"file": "pokerstars.txt", "venue": "PokerStars", "table": "Aludra IV",
                   "hands": ["27850000001", "27850000002", "27850000003"], "zone": "ET",
                   "seat_count": 6, "currency": "USD",
                   "times": ["00:10:04", "00:11:10", "00:12:31"]},
    "fulltilt": {"file": "fulltilt.txt", "venue": "Full Tilt Poker", "table": "Aurora Borealis",
                 "hands": ["13000000001", "13000000002", "13000000003"], "zone": "ET",
                 "seat_count": 6, "currency": None,
                 "times": ["00:10:04", "00:11:10", "00:12:31"]},
    "absolute": {"file": "absolute.txt", "venue": "Absolute Poker", "table": "CORTEZ AVE",
                 "hands": ["1797800001", "1797800002", "1797800003"], "zone": "ET",
                 "seat_count": None, "currency": None,
                 "times": ["00:10:04", "00:11:10", "00:12:31"]},
    "ongame": {"file": "ongame.txt", "venue": "Ongame Network", "table": "Bnei Brak",
               "hands": ["R5-1704660-533", "R5-1704660-534", "R5-1704660-535"],
               "zone": "GMT+0100", "seat_count": None, "currency": None,
               "times": ["00:10:00", "00:11:00", "00:12:00"]},
    "partypoker": {"file": "partypoker.txt", "venue": "PartyPoker", "table": "Table  126581",
                   "hands": ["7000000001", "7000000002", "7000000003"], "zone": "EDT",
                   "seat_count": 6, "currency": "USD",
                   "times": ["00:10:04", "00:11:10", "00:12:31"]},
    "ipoker": {"file": "ipoker.xml", "venue": "iPoker Network", "table": "Bad Homburg, 262225321",
               "hands": ["3406284018", "3406284020", "3406284023"], "zone": None,
               "seat_count": None, "currency": "USD",
               "times": ["00:10:04", "00:11:10", "00:12:31"]},
}

# the three hands, the same play at every site (player order: small blind first, button last)
PLAYERS = [("kaptajn_k", "Ruby Tuesday", "zz_top", "omgmuffins"),
           ("Ruby Tuesday", "zz_top", "omgmuffins", "kaptajn_k"),
           ("zz_top", "omgmuffins", "kaptajn_k", "Ruby Tuesday")]
SEATS = [(2, 3, 5, 1), (3, 5, 1, 2), (5, 1, 2, 3)]
HAND2_ACTIONS = ["p3 cbr 1.50", "p4 cc", "p1 cbr 24.60", "p2 f", "p3 cc", "p4 cc",
                 "d db 2c7dJh", "p3 cc", "p4 cbr 10", "p3 cc", "d db 9s", "p3 cc", "p4 cc",
                 "d db 3c", "p3 cc", "p4 cc"]
HAND3_ACTIONS = ["p3 cc", "p4 cbr 2", "p1 f", "p2 f", "p3 cc", "d db 8h8c4d", "p3 cc",
                 "p4 cbr 3", "p3 cc", "d db Ks", "p3 cc", "p4 cc", "d db 5h", "p3 cbr 5",
                 "p4 cc", "p3 sm KdQc", "p4 sm ????"]  # Ruby Tuesday mucks: cards not recorded


def dec(*vals: str | int) -> list[D]:
    return [D(str(v)) for v in vals]


def read(site: str) -> list[PhhHand]:
    f = read_history(FIXTURES / SITES[site]["file"])
    assert f.format == site and f.skipped == [] and len(f.hands) == 3
    return f.hands


def acts(h: PhhHand, skip: tuple[str, ...] = ("dh",)) -> list[tuple[Any, ...]]:
    """The actions as (actor, verb, cards, amount): amounts compare by value (2 == 2.00)."""
    return [key(a) for a in h.actions if a.verb not in skip]


def key(a: PhhAction | None) -> tuple[Any, ...]:
    assert a is not None
    return (a.actor, a.verb, a.cards, a.amount)


def parsed(texts: list[str]) -> list[tuple[Any, ...]]:
    return [key(parse_action(t)) for t in texts]


def board(h: PhhHand) -> str:
    return "".join(a.text.split()[2] for a in h.actions if a.verb == "db")


@pytest.mark.parametrize("site", list(SITES))
def test_each_site_reads_its_hands_with_their_facts(site: str) -> None:
    s = SITES[site]
    hands = read(site)
    for i, h in enumerate(hands):
        assert (h.key, h.hand, h.table, h.venue) == (str(i + 1), s["hands"][i], s["table"],
                                                     s["venue"])
        assert h.time == dt.time.fromisoformat(s["times"][i]) and h.date == dt.date(2009, 7, 1)
        assert (h.time_zone_abbreviation, h.seat_count, h.currency) == (s["zone"],
                                                                        s["seat_count"],
                                                                        s["currency"])
        assert h.currency_symbol == "$" and h.variant == "NT" and h.scale == 2
        assert h.players == PLAYERS[i] and h.seats == SEATS[i]
        assert h.min_bet == D("0.50")
    ipoker = site == "ipoker"  # the iPoker hand 1 has no dead blind: zz_top posts a live one
    h1, h2, h3 = hands
    # hand 1: a returning player's dead blind, an uncontested pot, an uncalled bet
    assert list(h1.starting_stacks) == dec("49.75", "25.10", 60, 50)
    assert list(h1.blinds_or_straddles or ()) == dec("0.25", "0.50", "-0.50" if ipoker else
                                                     "-0.75", 0)
    assert acts(h1) == parsed(["p3 cc", "p4 cbr 1.50", "p1 f", "p2 f", "p3 f"])
    assert list(h1.winnings or ()) == dec(0, 0, 0, "1.75" if ipoker else 2)
    assert h1.total_pot == (None if site == "partypoker" else D("1.75" if ipoker else 2))
    assert h1.rake == (None if site in ("absolute", "partypoker") else 0)
    # hand 2: an all-in with a side pot, every hand shown, rake capped at $3
    stacks2 = dec("24.60", "59.50" if ipoker else "59.25", "51.25" if ipoker else "51.50",
                  "49.50")
    assert list(h2.starting_stacks) == stacks2
    assert list(h2.blinds_or_straddles or ()) == dec("0.25", "0.50", 0, 0)
    assert acts(h2, ("dh", "sm")) == parsed(HAND2_ACTIONS) and board(h2) == "2c7dJh9s3c"
    assert {a.text for a in h2.actions if a.verb == "sm"} == {"p1 sm QsQd", "p3 sm AhKd",
                                                              "p4 sm JcTs"}
    assert list(h2.winnings or ()) == dec("71.30", 0, 0, 20)
    if site != "partypoker":
        assert (h2.total_pot, h2.rake) == (D("94.30"), 3)
    # hand 3: a showdown where the loser mucks, a raked pot in cents
    assert acts(h3) == parsed(HAND3_ACTIONS) and board(h3) == "8h8c4dKs5h"
    assert list(h3.winnings or ()) == dec(0, 0, "19.72", 0)
    if site != "partypoker":
        assert (h3.total_pot, h3.rake) == (D("20.75"), D("1.03"))
    # the hero's cards where the site writes them
    assert "d dh p2 9c2d" in [a.text for a in h3.actions]
    if site == "ongame":  # the site's finishing stacks
        assert list(h3.finishing_stacks or ()) == dec("58.50", "16.40", "44.62", "61.30")


@pytest.mark.parametrize("site", list(SITES))
def test_chips_are_conserved_in_every_hand(site: str) -> None:
    for h in read(site):
        contrib, uncalled = pot_contributions(h)
        pot = sum(contrib)
        if h.total_pot is not None:  # what was put in = the pot the site states
            assert pot == h.total_pot, h.where
        if h.rake is not None:  # = what it paid + what it kept
            assert h.total_pot == sum(h.winnings or ()) + h.rake, h.where
        else:
            assert sum(h.winnings or ()) <= pot
        assert all(isinstance(v, int | D) and not isinstance(v, float)
                   for v in (*contrib, *(h.winnings or ())))
    h1 = read(site)[0]
    assert pot_contributions(h1)[1] == (0, 0, 0, 1)  # omgmuffins' uncalled $1 came back


@pytest.mark.parametrize("site", list(SITES))
def test_plain_blinds_hands_replay_and_the_site_paid_the_rules_payout_less_the_rake(
        site: str) -> None:
    h = read(site)[1]  # the all-in hand: plain blinds, every hand shown
    cents = h.in_minor_units(2)
    r = replay(cents)
    contrib, _ = pot_contributions(cents)
    assert r.error is None and r.actual is not None
    rules_won = [a - s + c for a, s, c in zip(r.actual, cents.starting_stacks, contrib,
                                             strict=True)]
    assert rules_won == [7430, 0, 0, 2000]  # main pot to the queens, the side pot to the jacks
    site_won = list(cents.winnings or ())
    assert site_won == [7130, 0, 0, 2000]
    assert sum(rules_won) - sum(site_won) == 300  # the rake
    if site == "ongame":  # its finishing stacks differ from the rules' by the rake only
        assert [a - f for a, f in zip(r.actual, cents.finishing_stacks or (), strict=True)] == [
            300, 0, 0, 0]


def corrupt(tmp_path: Path, site: str, old: str, new: str, name: str = "x.txt") -> Path:
    text = (FIXTURES / SITES[site]["file"]).read_text()
    assert old in text
    p = tmp_path / name
    p.write_text(text.replace(old, new, 1))
    return p


@pytest.mark.parametrize(("site", "old", "new", "kind"), [
    ("pokerstars", "Total pot $94.30 Main pot $74.30. Side pot $20. | Rake $3\n", "",
     "truncated hand"),  # with its SUMMARY cut off below
    ("pokerstars", "kaptajn_k: bets $10", "kaptajn_k: bets $1.0.0", "unrecognised line"),
    ("fulltilt", "Seat 2: kaptajn_k ($49.50)\n", "", "unparsable hand"),
    ("ongame", "Button: seat 2\n", "", "unparsable hand"),
    ("partypoker", "Ruby Tuesday wins $71.30", "Ghost wins $71.30", "bad outcome"),
    ("absolute", "Holdem  No Limit $0.50 - 2009-07-01 00:11:10",
     "Omaha Pot Limit $0.50 - 2009-07-01 00:11:10", "unsupported variant"),
    ("ipoker", '<action no="10" player="kaptajn_k" type="5" sum="$10" cards=""/>',
     '<action no="10" player="kaptajn_k" type="5" sum="$1e400" cards=""/>', "bad action"),
])
def test_a_broken_hand_in_the_middle_is_skipped_and_the_rest_read(
        tmp_path: Path, site: str, old: str, new: str, kind: str) -> None:
    if kind == "truncated hand":  # cut hand 2 after its showdown, before its summary
        text = (FIXTURES / SITES[site]["file"]).read_text()
        start = text.index("*** SUMMARY ***", text.index("Game #27850000002"))
        end = text.index("PokerStars Game #27850000003")
        p = tmp_path / "x.txt"
        p.write_text(text[:start] + "\n\n\n" + text[end:])
    else:
        p = corrupt(tmp_path, site, old, new)
    f = read_history(p)
    assert [h.hand for h in f.hands] == [SITES[site]["hands"][0], SITES[site]["hands"][2]]
    (sk,) = f.skipped
    assert (sk.key, sk.hand, sk.kind) == ("2", SITES[site]["hands"][1], kind), sk.describe()
    assert sk.line > 1 and str(p) in sk.describe()


@pytest.mark.parametrize("site", list(SITES))
def test_the_format_is_detected_from_the_content_not_the_name(tmp_path: Path, site: str) -> None:
    want = read_history(FIXTURES / SITES[site]["file"])
    for name in ("hands.phh", "hands.phhs", "hands", "hands.xml" if site != "ipoker" else "h.txt"):
        p = tmp_path / name
        shutil.copy(FIXTURES / SITES[site]["file"], p)
        got = read_history(p)
        assert got.format == site and got.skipped == []
        assert [(h.hand, h.winnings, h.actions, h.rake) for h in got.hands] == [
            (h.hand, h.winnings, h.actions, h.rake) for h in want.hands]
    assert detect_format("\ufeff\n\n" + (FIXTURES / SITES[site]["file"]).read_text()) == site


def test_a_phh_file_reads_as_before_whatever_its_name(tmp_path: Path) -> None:
    if not REALHANDS.is_dir():
        pytest.skip("no shared realhands corpus")
    src = REALHANDS / "ong" / "600nl-handhq_1.phhs"
    p = tmp_path / "exported.txt"
    shutil.copy(src, p)
    assert read_history(p).format == "phh"
    got, want = read_history(p).hands, read_phh(src).hands
    assert [replace(h, source=str(src)) for h in got] == want and len(want) > 50
    assert read_history(src).sha256 == read_phh(src).sha256


def test_bad_input_is_a_named_skip(tmp_path: Path) -> None:
    cases = {
        "binary.txt": (bytes(range(256)) * 8, "not UTF-8 text"),
        "nul.txt": (b"PokerStars Game #1:\x00\x00\x00", "unknown format"),
        "empty.txt": (b"", "empty file"),
        "blank.phh": (b"\n\n  \n", "empty file"),
        "notes.txt": (b"my notes about poker\n", "unknown format"),
    }
    for name, (data, kind) in cases.items():
        (tmp_path / name).write_bytes(data)
        f = read_history(tmp_path / name)
        assert f.hands == [] and [s.kind for s in f.skipped] == [kind], (name, f.skipped)
    missing = read_history(tmp_path / "missing.txt")
    assert [s.kind for s in missing.skipped] == ["unreadable file"]


def test_a_100_mb_line_skips_its_hand_only(tmp_path: Path) -> None:
    text = (FIXTURES / "pokerstars.txt").read_text()
    cut = text.index("PokerStars Game #27850000002")
    big = "x" * 100_000_000
    p = tmp_path / "big.txt"
    p.write_text(text[:cut] + "Ruby Tuesday said, \"" + big + "\"\n" + text[cut:])
    f = read_history(p)
    assert [h.hand for h in f.hands] == ["27850000002", "27850000003"]
    (sk,) = f.skipped
    assert sk.kind == "too large" and sk.hand == "27850000001"
    assert f"expected at most {MAX_LINE_CHARS}" in sk.reason
    p.write_text(big)  # a file of one huge line
    assert [s.kind for s in read_history(p).skipped] == ["unknown format"]


def test_folders_list_the_history_files(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    for name in ("a/ps.txt", "b.xml", "c.phhs", "README.md", "d.png"):
        (tmp_path / name).write_text("x")
    found = [p.relative_to(tmp_path).as_posix() for p in iter_history_paths([tmp_path])]
    assert found == ["a/ps.txt", "b.xml", "c.phhs"]
    assert list(iter_history_paths([tmp_path / "README.md"])) == [tmp_path / "README.md"]
    with pytest.raises(FileNotFoundError):
        list(iter_history_paths([tmp_path / "nope"]))


def test_phh_verify_reads_a_site_text_file(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    p = corrupt(tmp_path, "pokerstars", "kaptajn_k: bets $10", "kaptajn_k: bets $1.0.0")
    main(["phh", "verify", str(p), "--json"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 3 and all(r["source"] == str(p) for r in rows)
    bad = [r for r in rows if r["error"] and "(hand 27850000002)" in r["error"]]
    assert len(bad) == 1 and "unrecognised line" in bad[0]["error"]
    assert sorted(r["hand"] for r in rows if r not in bad) == ["1", "3"]


def test_the_pokerstars_outcome_pokerkit_drops_is_read() -> None:
    """The issue's 2023 cash hand shape: PokerKit's parser gave winnings all 0 and no rake."""
    f = read_history(FIXTURES / "pokerstars-2023.txt")  # with the byte order mark PS writes
    (h,) = f.hands
    assert (f.format, h.hand, h.table, h.time_zone_abbreviation) == (
        "pokerstars", "245000000001", "Eurynome II", "CET")
    assert h.players == ("p_five", "p_six", "omgmuffins", "p_two", "p_three", "p_four")
    assert list(h.winnings or ()) == dec(0, 0, "4.64", 0, 0, 0)
    assert (h.total_pot, h.rake) == (D("4.88"), D("0.24"))
    assert sum(pot_contributions(h)[0]) == D("4.88")
    mu = h.minor_units(2)
    assert (mu.winnings, mu.rake, mu.total_pot) == ((0, 0, 464, 0, 0, 0), 24, 488)


@pytest.mark.parametrize("site", list(SITES))
def test_every_hand_replays_dead_blinds_and_mucks_included(site: str) -> None:
    for h in read(site):
        cents = h.in_minor_units(2)
        r = replay(cents)
        assert r.error is None and r.actual is not None, r.error
        contrib, _ = pot_contributions(cents)
        rules_won = [a - s + c for a, s, c in zip(r.actual, cents.starting_stacks, contrib,
                                                 strict=True)]
        site_won = list(cents.winnings or ())
        assert sum(rules_won) == sum(contrib)  # the rules pay out the whole pot
        assert all(s <= w for s, w in zip(site_won, rules_won, strict=True))  # less the rake
        if cents.rake is not None:
            assert sum(rules_won) - sum(site_won) == cents.rake


def test_mangled_texts_never_raise() -> None:
    """Lines deleted, cut, swapped, repeated or with a character changed: every result is hands
    and named skips, never an exception."""
    import random

    rng = random.Random(22)
    for site in SITES:
        text = (FIXTURES / SITES[site]["file"]).read_text()
        for _ in range(40):
            lines = text.split("\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            op = rng.randrange(5)
            if op == 0:
                del lines[i]
            elif op == 1:
                lines[i] = lines[i][:rng.randrange(len(lines[i]) + 1)]
            elif op == 2 and lines[i]:
                k = rng.randrange(len(lines[i]))
                lines[i] = lines[i][:k] + rng.choice('0.$,-[]()#:x "<>') + lines[i][k + 1:]
            elif op == 3:
                lines[i], lines[j] = lines[j], lines[i]
            else:
                lines.insert(i, lines[j])
            f = reads_history("\n".join(lines), source=site)
            assert all(s.reason and s.kind for s in f.skipped)


def test_ipoker_xml_reads_the_same_on_one_line() -> None:
    """iPoker exports often hold a whole session on a few lines: elements are read one by one."""
    text = (FIXTURES / "ipoker.xml").read_text()
    one = "\t".join(line.strip() for line in text.splitlines())
    assert len(one.splitlines()) == 1 and len(one) > MAX_LINE_CHARS
    got, want = reads_history(one), read_history(FIXTURES / "ipoker.xml")
    assert got.skipped == [] and [(h.winnings, h.actions, h.rake) for h in got.hands] == [
        (h.winnings, h.actions, h.rake) for h in want.hands]


def test_one_phh_hand_or_many_is_read_from_the_content(tmp_path: Path) -> None:
    one = ('variant = "NT"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\n'
           'starting_stacks = [100, 100]\nactions = ["p2 f"]\n')
    (tmp_path / "one.phhs").write_text("# a comment\n" + one)
    (tmp_path / "many.phh").write_text(f"[a]\n{one}\n[b]\n{one}")
    assert [h.key for h in read_history(tmp_path / "one.phhs").hands] == [None]
    assert [h.key for h in read_history(tmp_path / "many.phh").hands] == ["a", "b"]


@pytest.mark.parametrize("site", list(SITES))
def test_no_float_holds_an_amount(site: str) -> None:
    for h in read(site):
        amounts = [*h.starting_stacks, *h.antes, *(h.blinds_or_straddles or ()),
                   *(h.winnings or ()), *(h.finishing_stacks or ()), h.min_bet, h.rake,
                   h.total_pot, *(a.amount for a in h.actions)]
        assert all(v is None or type(v) in (int, D) for v in amounts), amounts
        mu = h.minor_units(2)  # every amount a whole number of cents
        assert all(type(v) is int for v in (*mu.starting_stacks, *(mu.winnings or ())))


def _insert(site: str, after: str, lines: list[str]) -> str:
    """The site's fixture with ``lines`` inserted after the first line starting with
    ``after`` (in the first hand)."""
    text = (FIXTURES / SITES[site]["file"]).read_text()
    i = text.index("\n", text.index(after)) + 1
    return text[:i] + "".join(line + "\n" for line in lines) + text[i:]


def test_unrecognised_lines_skip_their_hand_with_the_count() -> None:
    """A line no shape of the site knows (junk, a line that may move chips: a rebuy) skips its
    hand, the reason counting them and quoting the first; the red team's 120 lines of 1,990
    ':' (26 s of regex backtracking in the parser's patterns before) are refused before any
    parser pattern runs; the other hands are read."""
    text = _insert("pokerstars", "omgmuffins: doesn't show hand", [":" * 1990] * 120)
    f = reads_history(text, source="redos.txt")
    assert [h.hand for h in f.hands] == SITES["pokerstars"]["hands"][1:]
    (sk,) = f.skipped
    assert sk.kind == "unrecognised line" and sk.hand == SITES["pokerstars"]["hands"][0]
    assert "120 lines no pokerstars shape knows" in sk.reason and "1,990 characters" in sk.reason
    for junk in ("zz_top adds $50 to his stack", "kaptajn_k: cashes out $20",
                 "Hand cancelled", "x" * 400):
        f = reads_history(_insert("pokerstars", "zz_top: checks", [junk]), source="x.txt")
        assert [s.kind for s in f.skipped] == ["unrecognised line"], junk
        assert repr(junk[:80]) in f.skipped[0].reason


@pytest.mark.parametrize(("site", "after", "lines"), [
    ("pokerstars", "zz_top: checks", ['Ruby Tuesday said, "' + "::" * 900 + '"',
                                      "newbie joins the table at seat #6",
                                      "sitter leaves the table", "zz_top is disconnected"]),
    ("fulltilt", "zz_top checks", ["Ruby Tuesday: nice hand", "sitter stands up"]),
    ("partypoker", "zz_top checks", ["newbie has joined the table.",
                                     "Ruby Tuesday: " + ":" * 1500]),
    ("ongame", "zz_top checks", ["sitter is sitting out"]),
])
def test_harmless_table_events_are_dropped(site: str, after: str, lines: list[str]) -> None:
    """Chat and table events that move no chip are known shapes: dropped before the parser
    (whatever their length up to the line limit), the hand read as without them."""
    want = read(site)
    got = reads_history(_insert(site, after, lines), source="x.txt")
    assert got.skipped == []
    assert [(h.hand, h.actions, h.winnings, h.starting_stacks) for h in got.hands] == [
        (h.hand, h.actions, h.winnings, h.starting_stacks) for h in want]


@pytest.mark.parametrize("site", list(SITES))
def test_every_fixture_line_has_a_known_shape(site: str) -> None:
    """The fixtures (the sites' real shapes): no line is unrecognised, none is dropped."""
    from sim.histories.sites.lines import FACTS

    f = read_history(FIXTURES / SITES[site]["file"])
    assert f.skipped == [] and len(f.hands) == len(SITES[site]["hands"])
    text = (FIXTURES / SITES[site]["file"]).read_text().lstrip("\ufeff")
    if site == "ipoker":  # the hands' lines (the session header is not a hand's)
        text = text[text.index("<game "):text.rindex("</game>")]
    for line in text.split("\n"):
        assert not line.strip() or FACTS[site].fullmatch(line.strip()), line


@pytest.mark.parametrize("encoding", [
    "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "cp1252"])
def test_every_encoding_the_sites_write_reads_the_same_hands(tmp_path: Path,
                                                            encoding: str) -> None:
    """UTF-8 with a byte order mark, UTF-16 with one (``utf-16``) or without (either byte
    order) and Windows-1252 (a euro sign, 0x80, in a table name) are detected from the bytes
    and read as the same hands as the UTF-8 file."""
    text = (FIXTURES / "pokerstars.txt").read_text().replace("Aludra IV", "Aludra \u20ac")
    (tmp_path / "utf8.txt").write_bytes(text.encode("utf-8"))
    want = read_history(tmp_path / "utf8.txt")
    p = tmp_path / "other.txt"
    p.write_bytes(text.encode(encoding))
    got = read_history(p)
    assert not got.skipped and len(want.hands) == 3
    assert [replace(h, source="") for h in got.hands] == [replace(h, source="")
                                                           for h in want.hands]
    assert got.hands[0].table == "Aludra \u20ac"


def test_bytes_of_no_known_encoding_are_one_named_skip(tmp_path: Path) -> None:
    """Bytes that are not UTF-8, UTF-16 nor Windows-1252 (0x81 is undefined there), UTF-16 cut
    in a character, and a PHH file that is not UTF-8: one skip naming why, no traceback."""
    text = (FIXTURES / "pokerstars.txt").read_text()
    cases = {
        "undefined.txt": text.encode() + b"\x81\xff",
        "cut.txt": b"\xff\xfe" + text.encode("utf-16-le") + b"\x00\xd8",
        "latin.phh": "variant = 'NT'\n# caf\u00e9\n".encode("cp1252"),
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        f = read_history(tmp_path / name)
        assert f.hands == [] and [s.kind for s in f.skipped] == ["not UTF-8 text"], name
        assert f.skipped[0].describe().startswith(str(tmp_path / name))


def _stars_hand_one() -> str:
    text = (FIXTURES / "pokerstars.txt").read_text()
    return text[:text.index("PokerStars Game #27850000002")]


def test_fixed_and_pot_limit_hands_import_with_their_structure_from_the_header() -> None:
    """The betting structure is the hand's own header's: a fixed-limit hand's sizes are its
    header's bets (small bet = the big blind), and the replay holds every bet to them: the
    same actions under a Limit header with a raise that is not the fixed size are refused."""
    hand = _stars_hand_one()
    fl = (hand.replace("Hold'em No Limit ($0.25/$0.50 USD)", "Hold'em Limit ($0.50/$1 USD)")
          .replace("raises $1 to $1.50", "raises $0.50 to $1")
          .replace("Uncalled bet ($1)", "Uncalled bet ($0.50)"))
    (h,) = reads_history(fl).hands
    assert (h.variant, h.small_bet, h.big_bet) == ("FT", D("0.5"), 1)
    assert replay(h.in_minor_units(2)).ok
    pl = hand.replace("Hold'em No Limit", "Hold'em Pot Limit")
    (h,) = reads_history(pl).hands
    assert (h.variant, h.min_bet) == ("PT", D("0.5")) and replay(h.in_minor_units(2)).ok
    wrong = hand.replace("Hold'em No Limit ($0.25/$0.50 USD)", "Hold'em Limit ($0.50/$1 USD)")
    (h,) = reads_history(wrong).hands
    r = replay(h.in_minor_units(2))
    assert r.kind == "action not legal" and "raise to 100" in (r.error or ""), r.error


@pytest.mark.parametrize(("header", "words"), [
    ("Omaha Pot Limit ($0.25/$0.50 USD)", "not hold'em (Omaha"),
    ("Omaha Hi/Lo Limit ($0.25/$0.50 USD)", "not hold'em (Omaha"),
    ("HORSE (Hold'em Limit, $0.25/$0.50 USD)", "not hold'em (HORSE"),
    ("7 Card Stud Limit ($0.25/$0.50 USD)", "not hold'em (7 Card"),
    ("Hold'em No Limit ($0.25/$0.50 - $20 Cap - USD)", "capped no-limit"),
])
def test_a_hand_that_is_not_hold_em_is_a_named_skip(header: str, words: str) -> None:
    text = _stars_hand_one().replace("Hold'em No Limit ($0.25/$0.50 USD)", header)
    f = reads_history(text)
    assert not f.hands and words in f.skipped[0].reason, f.skipped


def test_ipoker_game_type_is_checked() -> None:
    """iPoker's ``<gametype>`` names the game: Omaha is a named skip (it was read as no-limit
    hold'em), ``Holdem L`` is fixed limit with the blinds as its stakes (bets twice them)."""
    xml = (FIXTURES / "ipoker.xml").read_text()
    f = reads_history(xml.replace("<gametype>Holdem NL", "<gametype>Omaha PL"))
    assert not f.hands and all("not hold'em (Omaha" in s.reason for s in f.skipped)
    f = reads_history(xml.replace("<gametype>Holdem NL", "<gametype>Holdem L"))
    assert f.hands and {(h.variant, h.small_bet, h.big_bet) for h in f.hands} == {
        ("FT", D("0.5"), 1)}


@pytest.mark.parametrize(("forge", "words"), [
    # the operator restates the honest stack in the summary after skimming between hands
    (("Seat 5: zz_top folded before Flop",
      "Seat 5: zz_top folded before Flop\nSeat 1: omgmuffins ($40 in chips)"),
     "'omgmuffins''s stack is 50 and 40"),
    (("Dealt to omgmuffins [Ah Kh]", "Dealt to omgmuffins [Ah Kh]\nDealt to omgmuffins [Qs Qd]"),
     "hole cards is Ah Kh and Qd Qs"),
    (("Seat #1 is the button", "Seat #1 is the button\nTable 'Aludra IV' 6-max Seat #2 is the "
      "button"), "the button seat is 1 and 2"),
    (("Ruby Tuesday: posts big blind $0.50",
      "Ruby Tuesday: posts big blind $0.50\nRuby Tuesday: posts big blind $0.25"),
     "posts a blind twice"),
])
def test_a_fact_stated_twice_with_two_values_is_a_named_skip(forge: tuple[str, str],
                                                            words: str) -> None:
    """One fact, one value: the site parser keeps the LAST of two lines; a hand that states a
    stack, cards, the button or a blind twice is skipped "stated twice", and the same fact
    restated with the same value reads as before."""
    hand = _stars_hand_one()
    f = reads_history(hand.replace(*forge))
    assert not f.hands and f.skipped[0].reason.startswith("stated twice"), f.skipped
    assert words in f.skipped[0].reason, f.skipped[0].reason
    same = hand.replace("Seat 5: zz_top folded before Flop",
                        "Seat 5: zz_top folded before Flop\nSeat 1: omgmuffins ($50 in chips)")
    assert reads_history(same).hands == reads_history(hand).hands


@pytest.mark.parametrize(("forge", "words"), [
    (('chips="$50" dealer="1"', 'chips="$50" chips="$40" dealer="1"'), "not well-formed XML"),
    (('seat="1" name="omgmuffins" chips="$50"', 'seat="1" name="&skim;" chips="$50"'),
     "not well-formed XML"),
    (('<player seat="2" name="kaptajn_k" chips="$49.75"',
      '<player seat="1" name="omgmuffins" chips="$40" dealer="0" win="$0" bet="$0" rebuy="0" '
      'addon="0"/>\n<player seat="2" name="kaptajn_k" chips="$49.75"'), "stated twice"),
])
def test_ipoker_xml_goes_through_a_real_parser(forge: tuple[str, str], words: str) -> None:
    """A repeated attribute (the regex parser took the last), an entity, a player listed twice:
    the hand is a named skip; a DTD with entities refuses the file."""
    xml = (FIXTURES / "ipoker.xml").read_text()
    assert xml.count(forge[0]) == 1
    f = reads_history(xml.replace(forge[0], forge[1]))
    first = f.skipped[0]
    assert first.key == "1" and words in first.reason, f.skipped
    assert len(f.hands) == len(reads_history(xml).hands) - 1
    dtd = xml.replace('<?xml version="1.0" encoding="utf-8"?>',
                      '<?xml version="1.0"?>\n<!DOCTYPE session [<!ENTITY skim "40">]>')
    f = reads_history(dtd)
    assert not f.hands and "refused XML" in f.skipped[0].reason


def test_a_tournament_hand_is_a_tournament_in_chips() -> None:
    """A tournament hand (its header names the tournament) is logged ``format`` = tournament,
    its amounts in the tournament's chips (currency "chips", not the buy-in's dollars); a cash
    hand stays cash."""
    from sim.histories.files import import_file_bytes

    hand = _stars_hand_one()
    tourney = (hand.replace("Hold'em No Limit ($0.25/$0.50 USD)",
                            "Tournament #63858762, $5.00+$0.50 USD Hold'em No Limit - Level II "
                            "(25/50)")
               .replace("$0.25", "25").replace("$0.50", "50").replace("$0.75", "75")
               .replace("$1.50", "150").replace("$1 ", "100 ").replace("($1)", "(100)")
               .replace("$25.10", "2510").replace("$49.75", "4975").replace("$50", "5000")
               .replace("$40", "4000").replace("$60", "6000").replace("$2", "200"))
    (h,) = reads_history(tourney).hands
    assert (h.tournament, h.currency, h.starting_stacks[0]) == ("63858762", "chips", 4975)
    res = import_file_bytes("t.txt", tourney.encode())
    assert res.imported == 1 and res.table is not None
    assert res.table.column("format").to_pylist() == ["tournament"]
    assert res.table.column("currency").to_pylist() == ["chips"]
    cash = import_file_bytes("c.txt", hand.encode())
    assert cash.table is not None and cash.table.column("format").to_pylist() == ["cash"]


def test_ipoker_antes_and_attribute_orders_are_read() -> None:
    """iPoker writes a player's attributes in several orders and ``reg_code``: the hands read
    the same; an ante (type 15) is the player's ante (PokerKit read none: the pot came short
    by the antes); an action type the importer does not know that moves chips skips the
    hand."""
    xml = (FIXTURES / "ipoker.xml").read_text()
    want = reads_history(xml).hands
    line = '<player seat="1" name="omgmuffins" chips="$50" dealer="1" win="$2.75" bet="$1.50"'
    moved = xml.replace(line, '<player chips="$50" dealer="1" seat="1" win="$2.75" '
                              'name="omgmuffins" reg_code="-" bet="$1.50"')
    assert moved != xml and reads_history(moved).hands == want
    first = '<action no="1" player="kaptajn_k"'
    assert xml.count(first) == 1
    ante = xml.replace(first, '<action no="0" player="Ruby Tuesday" type="15" sum="$0.05"/>\n'
                       + first)
    # his ``bet`` attribute states his total put in again: without the ante, two values
    (skip,) = [s for s in reads_history(ante).skipped]
    assert skip.kind == "stated twice" and "'Ruby Tuesday' bet 0.50" in skip.reason
    bet = '<player seat="3" name="Ruby Tuesday" chips="$25.10" dealer="0" win="$0" bet="$0.50"'
    assert ante.count(bet) == 1
    ante = ante.replace(bet, bet.replace('bet="$0.50"', 'bet="$0.55"'))
    h = reads_history(ante).hands[0]
    assert h.antes[h.players.index("Ruby Tuesday")] == D("0.05") and sum(h.antes) == D("0.05")
    odd = xml.replace(first, '<action no="0" player="Ruby Tuesday" type="31" sum="$5"/>\n'
                      + first)
    assert "action type 31" in reads_history(odd).skipped[0].reason


def test_tournament_table_events_are_read() -> None:
    """PokerStars' tournament lines (a re-buy, a finishing place, a bounty) move no chip of
    the hand's pots: the hand reads as without them."""
    hand = _stars_hand_one()
    events = hand.replace("*** SUMMARY ***", "zz_top re-buys and receives 3000 chips for $10.00\n"
                          "sitter finished the tournament in 53rd place\n"
                          "omgmuffins wins the $2.50 bounty for eliminating sitter\n"
                          "*** SUMMARY ***")
    assert reads_history(events).hands == reads_history(hand).hands


def test_partypoker_amounts_without_a_currency_are_read() -> None:
    """PartyPoker's tournament lines write amounts without a currency (``raises [400]``,
    ``( 9,160 )``): every post, stack and raise is read as with one (the parser dropped the
    raise while the screen let the line through)."""
    text = (FIXTURES / "partypoker.txt").read_text()
    bare = text.replace(" USD )", " )").replace(" USD]", "]")
    assert bare != text
    got, want = reads_history(bare).hands, reads_history(text).hands
    assert len(got) == len(want) > 0
    for g, w in zip(got, want, strict=True):
        assert (g.starting_stacks, g.blinds_or_straddles, g.actions) == (
            w.starting_stacks, w.blinds_or_straddles, w.actions)


@pytest.mark.parametrize(("fixture", "old", "new", "hand"), [
    ("pokerstars.txt", "PokerStars Game #27850000001:", "PokerStars Home Game Hand "
     "#27850000001: {club}", "27850000001"),
    ("fulltilt.txt", "Full Tilt Poker Game #13000000001:", "Full Tilt Poker Hand "
     "#13000000001:", "13000000001"),
    ("fulltilt.txt", "Full Tilt Poker Game #13000000001:", "FullTiltPoker Game "
     "#13000000001:", "13000000001"),
    ("absolute.txt", "Stage #", "Stage #C", None),
])
def test_header_styles_of_the_sites_years_are_read(fixture: str, old: str, new: str,
                                                   hand: str | None) -> None:
    """PokerStars Home Game, Full Tilt ``Hand #``/``FullTiltPoker``, Absolute hand numbers with
    a letter: detected and read as the same hands."""
    text = (FIXTURES / fixture).read_text()
    assert old in text
    forged = text.replace(old, new, 1)
    got, want = reads_history(forged), reads_history(text)
    assert got.format == want.format and not got.skipped
    assert [h.actions for h in got.hands] == [h.actions for h in want.hands]
    if hand is not None:
        assert got.hands[0].hand == hand
    else:
        assert got.hands[0].hand is not None and got.hands[0].hand.startswith("C")


def test_888_is_not_mistaken_for_partypoker(tmp_path: Path) -> None:
    """888poker's export starts with PartyPoker's first line (``#Game No : N``): the next line
    names the site, and its hands go to the 888 reader (a PartyPoker hand renamed so is read
    as 888's and lacks its summary line: "truncated", never PartyPoker's reading); a file of
    no known format is format "unknown", not "phh"."""
    text = (FIXTURES / "partypoker.txt").read_text().replace(
        "***** Hand History for Game", "***** Cassava Hand History for Game")
    f = reads_history(text)
    assert f.format == "888" and not f.hands and f.skipped
    assert {s.reason for s in f.skipped} == {"truncated hand: no '** Summary **' line"}
    assert reads_history("my notes about poker\n").format == "unknown"
