"""The sites read by the project's own line reader (sim/histories/sites/plain.py): GGPoker,
888poker, Winamax, WPN and Cake (issue 34, point 2). Each site's real hands (small copies of
../shared/sitetext in tests/fixtures/sitetext_real) read exactly, import, replay and are paid as
the rules pay; what a reader does not understand, or what the text states twice, is a named skip
naming the file, the hand and the line; a payout forged as an operator would forge it is caught.
The whole of ../shared/sitetext's samples of these sites is checked when it is present."""

from __future__ import annotations

import json
import re
from decimal import Decimal as D
from pathlib import Path
from typing import Any

import pytest

from audits.runner import run_audits
from cluster.cli import main
from sim.histories.sites.text import detect_format, read_history, reads_history
from sim.histories.sources import decode_text

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "sitetext_real"
SHARED = Path(__file__).resolve().parents[4] / "shared" / "sitetext"
FIXTURES = {  # file -> (format, hands)
    "ggpoker-mtt.txt": ("ggpoker", 1),
    "888-limit.txt": ("888", 3),
    "888-nolimit.txt": ("888", 2),
    "888-snap.txt": ("888", 2),  # 888poker Snap, 2020 (a public sample)
    "winamax-mtt.txt": ("winamax", 2),
    "wpn-limit-utf16.txt": ("wpn", 1),
    "wpn-sng-utf16.txt": ("wpn", 1),
    "cake-cash.txt": ("cake", 5),
    "acr-mtt.txt": ("wpn", 4),  # WPN's current style (a public sample of an ACR tournament)
}


def _text(name: str) -> str:
    got = decode_text((REAL / name).read_bytes())  # as the import decodes it (UTF-16 too)
    assert not isinstance(got, str), got
    return got[0]


def _import(tmp_path: Path, files: dict[str, str | bytes]) -> tuple[int, dict[str, Any]]:
    """Import the files as a lab would (in this process) and audit the run: the audit's exit
    code and each audit's result."""
    src = tmp_path / "src"
    src.mkdir()
    for name, body in files.items():
        (src / name).write_bytes(body if isinstance(body, bytes) else body.encode())
    run = tmp_path / "run"
    assert main(["import", str(src), "--out", str(run), "--workers", "0", "--quiet"]) == 0
    results = run_audits(run, ["chips", "rotation", "payouts", "outcome", "betting"]).results
    return 0, {r.name: r for r in results}


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_each_site_is_detected_from_its_content_and_every_hand_read(name: str) -> None:
    fmt, n = FIXTURES[name]
    f = read_history(REAL / name)
    assert f.format == fmt == detect_format(_text(name))
    assert len(f.hands) == n and not f.skipped


def test_ggpoker_tournament_hand_read_exactly() -> None:
    """Hashed names, antes, the tournament and its level, ``Total pot | Rake | Jackpot |
    Bingo`` (the site's fees summed as its rake), chips as the unit."""
    (h,) = read_history(REAL / "ggpoker-mtt.txt").hands
    assert h.hand == "TM600571038" and h.tournament == "25313426" and h.level == 14
    assert h.currency == "chips" and h.variant == "NT" and h.min_bet == 600
    assert h.players[:3] == ("e15d8ef6", "69040cb9", "Hero")  # small blind, big blind, ...
    assert h.blinds_or_straddles[:2] == (300, 600) and set(h.antes) == {75}
    assert h.winnings == (0, 0, 28315, 0, 0, 0, 0) and h.total_pot == 28315 and h.rake == 0


def test_888_limit_hands_dealt_down_and_a_player_who_sits_out() -> None:
    """888's header states the BLINDS of a fixed-limit game (``$0.01/$0.02 Blinds Fix Limit``:
    bets 0.02 and 0.04); ``raises [$0.04]`` adds 0.04; the winner's ``collected`` is after the
    rake and without his uncalled bet; a player who "folds" before the deal instead of posting
    his big blind sits the hand out."""
    first, showdown, sat_out = read_history(REAL / "888-limit.txt").hands
    assert (first.variant, first.small_bet, first.big_bet) == ("FT", D("0.02"), D("0.04"))
    assert first.winnings is not None and first.winnings[4] == D("0.05")  # Barrydos, 0.02 back
    assert first.total_pot is None and first.rake is None  # 888 states neither
    assert showdown.winnings is not None and showdown.winnings[1] == D("0.24")
    # ``mucks [ 4s, 6h ]``: the cards a muck states speak (888 pays a "mucked" hand the side
    # pot it wins: test_888_mucked_hand_paid_the_side_pot_it_wins); this one loses either way
    assert [a.text for a in showdown.actions if a.verb == "sm"] == ["p2 sm Ks5s", "p7 sm 4s6h"]
    assert "SkiNNeR14" not in sat_out.players and sat_out.players[:2] == ("Flash190",
                                                                         "pokergallo")


def test_888_returning_players_dead_blind_and_the_walk() -> None:
    """``posts dead blind [$0.01 + $0.02]``: a live big blind and a dead small blind (-0.03);
    in a walk the big blind ``collected [ $0.03 ]``, his own 0.01 of uncalled blind included
    (his next stack is 0.01 up): the standard's winnings are 0.02."""
    dead, walk = read_history(REAL / "888-nolimit.txt").hands
    assert dead.blinds_or_straddles is not None and dead.blinds_or_straddles[6] == D("-0.03")
    assert walk.winnings == (0, D("0.02"), 0, 0, 0, 0, 0, 0)


_GG_CASH = """Poker Hand #HD2255183008: Hold'em No Limit ($0.01/$0.02) - 2025/04/07 23:48:32
Table 'NLHWhite9' 6-max Seat #4 is the button
Seat 1: Hero ($1.64 in chips)
Seat 4: 6c2a9622 ($1.95 in chips)
Seat 5: 23cee45e ($2.05 in chips)
23cee45e: posts small blind $0.01
Hero: posts big blind $0.02
*** HOLE CARDS ***
Dealt to Hero [Qd 6c]
Dealt to 6c2a9622\x20
Dealt to 23cee45e\x20
6c2a9622: raises $0.04 to $0.06
23cee45e: folds
Hero: calls $0.04
*** FLOP *** [Kd 9s 7h]
Hero: bets $0.40
6c2a9622: calls $0.40
*** TURN *** [Kd 9s 7h] [7c]
Hero: bets $0.50
6c2a9622: folds
Uncalled bet ($0.50) returned to Hero
*** SHOWDOWN ***
Hero collected $0.88 from pot
*** SUMMARY ***
Total pot $0.93 | Rake $0.04 | Jackpot $0.01 | Bingo $0 | Fortune $0 | Tax $0
Board [Kd 9s 7h 7c]
Seat 1: Hero (big blind) won ($0.88)
Seat 4: 6c2a9622 (button) folded on the Turn
Seat 5: 23cee45e (small blind) folded before Flop
"""


def test_ggpoker_cash_fees_are_the_sites_take() -> None:
    """A GGPoker cash hand (written in the site's shape: a hero, hashed names, a ``Dealt to``
    line per seat, the fees line): the rake is the rake and the jackpot drop, both kept."""
    (h,) = reads_history(_GG_CASH).hands
    assert h.currency == "USD" and h.tournament is None and h.min_bet == D("0.02")
    assert h.players == ("23cee45e", "Hero", "6c2a9622")
    assert h.winnings == (0, D("0.88"), 0) and h.total_pot == D("0.93")
    assert h.rake == D("0.05")  # 0.04 + 0.01: 0.93 = 0.88 + 0.05


def test_888_snap_2020() -> None:
    """888poker Snap (2020): the header names the product; a walk's ``collected [ $0.15 ]``
    holds the big blind's own 0.05."""
    walk, raised = read_history(REAL / "888-snap.txt").hands
    assert walk.hand == "1393225818" and walk.winnings == (0, D("0.10"), 0, 0, 0, 0)
    assert raised.winnings is not None and raised.winnings[2] == D("1.02")


_WINAMAX_CASH = ("Winamax Poker - CashGame - HandId: #5184093-13-1357000000 - Holdem no limit "
                 "(0.01€/0.02€) - 2013/01/01 00:26:40 UTC\n"
                 """Table: 'Nice 02' 5-max (real money) Seat #2 is the button
Seat 1: dies irae 67 (2€)
Seat 2: x Razhiel (1.50€)
Seat 3: Hero (2.10€)
*** ANTE/BLINDS ***
Hero posts small blind 0.01€
dies irae 67 posts big blind 0.02€
Dealt to Hero [Ah Kd]
*** PRE-FLOP ***
x Razhiel raises 0.04€ to 0.06€
Hero calls 0.05€
dies irae 67 folds
*** FLOP *** [2c 7d Ts]
Hero checks
x Razhiel bets 0.10€
Hero calls 0.10€
*** TURN *** [2c 7d Ts][Qh]
Hero checks
x Razhiel checks
*** RIVER *** [2c 7d Ts Qh][3s]
Hero bets 0.20€
x Razhiel folds
Hero collected 0.52€ from pot
*** SUMMARY ***
Total pot 0.54€ | Rake 0.02€
Board: [2c 7d Ts Qh 3s]
Seat 1: dies irae 67 (big blind) folded on the pre-flop
Seat 2: x Razhiel (button) folded on the river
Seat 3: Hero (small blind) won 0.52€
""")


def test_winamax_cash_in_euros_with_names_of_several_words() -> None:
    """A Winamax cash hand in the site's shape: euros after the amounts, names with spaces
    (``dies irae 67``, ``x Razhiel``, read from the seat lines), a river bet nobody calls that
    Winamax leaves in ``collected`` and ``Total pot``: the standard's 0.32 won of a pot of
    0.34, 0.02 raked."""
    (h,) = reads_history(_WINAMAX_CASH).hands
    assert h.currency == "EUR" and h.players == ("Hero", "dies irae 67", "x Razhiel")
    assert h.starting_stacks == (D("2.10"), 2, D("1.50"))
    assert h.winnings == (D("0.32"), 0, 0) and h.total_pot == D("0.34") and h.rake == D("0.02")


def test_winamax_tournament_and_the_uncalled_bet_inside_the_pot() -> None:
    """The tournament's number from the table's name, its level counted from 0 by Winamax;
    a river all-in nobody calls: Winamax's ``collected 3720`` and ``Total pot 3720`` hold the
    2,670 that came back: the winnings and the pot are 1,050."""
    showdown, uncalled = read_history(REAL / "winamax-mtt.txt").hands
    assert showdown.tournament == "13133717" and showdown.level == 1
    assert showdown.winnings is not None and showdown.winnings[7] == 6110
    assert uncalled.winnings is not None and uncalled.winnings[0] == 1050
    assert uncalled.total_pot == 1050


def test_wpn_utf16_limit_and_sit_and_go() -> None:
    """WPN's UTF-16 export: ``2/4`` with blinds 1/2 is a fixed-limit game's bets; ``Pot: 7.85.
    Rake 0.15`` is the pot after the rake; a sit & go (its name for its id), all-ins."""
    (lim,) = read_history(REAL / "wpn-limit-utf16.txt").hands
    assert (lim.variant, lim.small_bet, lim.big_bet) == ("FT", 2, 4)
    assert lim.winnings == (0, D("7.85")) and lim.total_pot == 8 and lim.rake == D("0.15")
    (sng,) = read_history(REAL / "wpn-sng-utf16.txt").hands
    assert sng.tournament == "$2.20 Turbo Heads-up" and sng.currency == "chips"
    assert sng.winnings == (0, 3000) and sng.total_pot == 3000


def test_acr_current_style_tournament() -> None:
    """WPN's ``Game Hand #`` style: the blinds posted after ``*** HOLE CARDS ***``, ``Main pot``
    running totals, an uncontested winner paid by the summary's ``did not show and won``, a
    seat "allowed to play after the button" out of the hand, and the walk's ``won 9600.00``
    that holds the big blind's own uncalled 2,000."""
    first, _, _, walk = read_history(REAL / "acr-mtt.txt").hands
    assert first.tournament == "24139358" and first.level == 8 and first.n_players == 7
    assert "joeyv" not in first.players and first.winnings == (0, 0, 0, 0, 0, 0, 24800)
    assert first.total_pot == 24800
    assert walk.winnings == (0, 7600, 0, 0, 0, 0, 0, 0, 0) and walk.total_pot == 7600


def test_cake_dealer_seat_and_walk() -> None:
    hands = read_history(REAL / "cake-cash.txt").hands
    assert [h.hand for h in hands][:2] == ["2701011985001689", "2701011985001690"]
    assert hands[0].winnings == (D("0.56"), 0)  # a pot of 0.60 less 0.04
    assert hands[2].winnings == (D("0.10"), 0)  # the walk: "wins $0.15", 0.05 his own


def test_new_sites_import_replay_and_are_paid_as_the_rules_pay(tmp_path: Path) -> None:
    """Every fixture hand imports, replays legally, conserves chips and no payout is wrong;
    tournament hands are tournaments in the log."""
    import pyarrow.parquet as pq

    files: dict[str, str | bytes] = {n: (REAL / n).read_bytes() for n in FIXTURES}
    files.pop("cake-cash.txt")  # its heads-up to three-handed button: rotation's, not ours
    _, res = _import(tmp_path, files)
    for name in ("chips", "payouts", "outcome", "betting", "rotation"):
        assert res[name].passed, (name, res[name].details)
    classes = res["outcome"].details["classes"]
    assert "wrong payout" not in classes and sum(classes.values()) == 16
    report = json.loads((tmp_path / "run" / "import.json").read_text())
    # ACR 718599164: an all-in re-raise over an all-in that nobody can answer (the big blind
    # all in for less) is replayed as the call it amounts to, as at the PokerKit sites
    assert (report["submitted"], report["imported"]) == (16, 16)
    assert report["skipped"] == {}
    log = pq.read_table(sorted((tmp_path / "run" / "log").rglob("*.parquet")))
    formats = log.column("format").to_pylist()
    assert formats.count("tournament") == 8  # GGPoker 1, Winamax 2, WPN 1, ACR 4


def _skip_of(text: str) -> tuple[str, str | None]:
    f = reads_history(text, source="forged.txt")
    assert not f.hands, [h.hand for h in f.hands]
    (s,) = f.skipped
    return s.reason, s.hand


@pytest.mark.parametrize(("name", "old", "new", "reason"), [
    ("ggpoker-mtt.txt", "*** SHOWDOWN ***", "Hero: Receives Cashout (5,000)\n*** SHOWDOWN ***",
     "unsupported: an all-in cash-out (line 47: 'Hero: Receives Cashout (5,000)')"),
    ("ggpoker-mtt.txt", "*** SUMMARY ***", "Cash Drop to Pot : total 100\n*** SUMMARY ***",
     "unsupported: a Cash Drop (the site adds money to the pot)"),
    ("ggpoker-mtt.txt", "*** SHOWDOWN ***", "Hero adds 5,000 chips\n*** SHOWDOWN ***",
     "unrecognised line: line 47 'Hero adds 5,000 chips'"),
    ("ggpoker-mtt.txt", "Seat 8: 31afb6e2 (button) folded",
     "Seat 4: Hero (12,820 in chips)\nSeat 8: 31afb6e2 (button) folded",
     "stated twice: 'Hero''s stack is 13820 and 12820"),
    ("ggpoker-mtt.txt", "won (28,315)", "won (28,415)",
     "stated twice: the pot lines pay Hero 28315 and the summary Hero 28415"),
    ("ggpoker-mtt.txt", "69040cb9: calls 1,665", "69040cb9: calls 1,565",
     "bad action: '69040cb9' calls 1565, the call is 1665"),
    ("ggpoker-mtt.txt", "Hold'em No Limit", "Omaha Pot Limit",
     "unsupported variant: not hold'em ('Omaha Pot Limit')"),
    ("winamax-mtt.txt", "Holdem no limit", "Omaha pot limit",
     "unsupported variant: not hold'em ('Omaha pot limit')"),
    ("888-nolimit.txt", "Blinds No Limit Holdem", "Blinds Pot Limit Omaha",
     "unsupported variant: not hold'em ('Omaha')"),
    ("wpn-sng-utf16.txt", "Bets: 1500. Collects: 3000", "Bets: 1400. Collects: 3000",
     "stated twice: 'NEVERSLICE' bets 1400 in the summary, his actions put in 1500"),
    ("cake-cash.txt", "1UIG***8: returns uncalled bet $0.30",
     "1UIG***8: returns uncalled bet $0.20",
     "stated twice: the uncalled bet returned to '1UIG***8' is 0.20 in the text, the actions "
     "leave 0.30"),
])
def test_a_line_not_understood_or_a_fact_stated_twice_is_a_named_skip(
        name: str, old: str, new: str, reason: str) -> None:
    """Never the last value kept, never a line dropped: the hand is skipped, its reason names
    the line (its number in the file and its text) or the two values."""
    text = _text(name)
    assert old in text
    forged = text.replace(old, new, 1)
    f = reads_history(forged, source="forged.txt")
    got = [s for s in f.skipped if reason in s.reason]
    assert len(got) == 1, [s.reason for s in f.skipped]
    assert got[0].hand is not None and got[0].hand in forged
    assert got[0].describe().startswith("forged.txt [")


def test_a_payout_forged_through_the_next_hand_is_a_wrong_payout(tmp_path: Path) -> None:
    """An operator pays Slayton 100 chips more than the pot and states it everywhere: his
    collected line, the total pot, the summary and his stack in the next hand. The hand's own
    contributions prove the pot was 6,110: a wrong payout."""
    text = _text("winamax-mtt.txt")
    forged = (text.replace("collected 6110 from pot", "collected 6210 from pot")
              .replace("Total pot 6110 | No rake", "Total pot 6210 | No rake")
              .replace("and won 6110 with", "and won 6210 with")
              .replace("Seat 5: Slayton (6110)", "Seat 5: Slayton (6210)"))
    assert forged.count("6210") == 4
    _, res = _import(tmp_path, {"forged.txt": forged})
    out = res["outcome"]
    assert not out.passed and out.details["classes"].get("wrong payout") == 1
    assert "56408884989919569-1-1319722234" in " ".join(map(str, out.details["violations"]))


# ---------------------------------------------------------------- ../shared/sitetext

# the sites' samples: hands, imported, skips by reason, and the wrong payouts the outcome
# audit names, each explained in docs/import.md
SHARED_FIGURES = {
    "ggpoker": (60, 60, {}, set()),
    # 79911308: a loser's automatic top-up equal to the unstated rake: not attributable
    "888": (90, 90, {}, set()),
    "winamax": (27, 27, {}, set()),
    "wpn": (15, 12, {"unsupported variant": 3}, set()),  # (Cap) tables: capped no limit
    "cake": (20, 20, {}, set()),
}


@pytest.mark.slow
@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/sitetext is absent")
@pytest.mark.parametrize("site", sorted(SHARED_FIGURES))
def test_shared_samples_of_each_new_site(site: str, tmp_path: Path) -> None:
    hands, imported, skips, wrong = SHARED_FIGURES[site]
    got_hands = got_imported = 0
    kinds: dict[str, int] = {}
    for path in sorted((SHARED / site).iterdir()):
        f = read_history(path)
        assert f.format == site
        got_hands += f.sections
        got_imported += len(f.hands)
        for s in f.skipped:
            kinds[s.kind] = kinds.get(s.kind, 0) + 1
    assert (got_hands, got_imported, kinds) == (hands, imported, skips)
    files: dict[str, str | bytes] = {p.name: p.read_bytes() for p in (SHARED / site).iterdir()}
    _, res = _import(tmp_path, files)
    for name in ("chips", "payouts", "betting"):
        assert res[name].passed, (name, res[name].details)
    found = {m.group(1) for v in res["outcome"].details["violations"]
             for m in [re.search(r"site hand (\S+?),", str(v))] if m}
    assert found == wrong


def test_winamax_no_rake_is_a_stated_rake_of_zero(tmp_path: Path) -> None:
    """Red team (issue 34, point 6): ``Total pot 0.54€ | No rake`` states that the site kept
    nothing. Read as "no rake stated", the 0.02 the operator kept from the winner passed as a
    rake within the schedule; the hand's own record proves it a wrong payout."""
    forged = _WINAMAX_CASH.replace("| Rake 0.02€", "| No rake")
    (h,) = reads_history(forged).hands
    assert h.rake == 0 and h.total_pot == D("0.34") and h.winnings == (D("0.32"), 0, 0)
    _, res = _import(tmp_path, {"forged.txt": forged})
    out = res["outcome"]
    assert not out.passed and out.details["classes"].get("wrong payout") == 1
