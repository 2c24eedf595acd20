"""The site parsers' fast line stages (sim.histories.sites.relines) answer as PokerKit's own."""

from __future__ import annotations

import os
import random
import re

import pytest

from sim.histories.sites.relines import anchored_at_start, required_choices, required_text
from sim.histories.sites.text import _SITES


@pytest.mark.parametrize("pattern,anchored,need", [
    (r"(?P<player>.+): folds", True, (": folds",)),
    (r".*x", True, ("x",)),
    (r"(?P<player>.+): folds|Seat", False, ()),  # a top-level alternative
    (r"(?P<p>.+) (?P=p) folds", False, (" ", " folds")),  # a back-reference
    (r"(.+)\1", False, ()),
    (r"Seat (?P<seat>\d+): (?P<player>.+) \(", False, ("Seat ", ": ", " (")),
    (r".+?: folds", False, (": folds",)),  # lazy: the leftmost start may differ
])
def test_which_patterns_match_at_the_start_and_what_they_need(
        pattern: str, anchored: bool, need: tuple[str, ...]) -> None:
    p = re.compile(pattern)
    assert anchored_at_start(p) is anchored
    assert sorted(required_text(p)) == sorted(need)


@pytest.mark.parametrize("pattern,need", [
    (r"(?P<player>.+): folds", ((": folds",),)),
    (r"(?P<player>.+): (bet|raise)s \D?(?P<amount>[0-9.]+)", ((": bets ", ": raises "),)),
    (r'<action.*\btype="(1|2)".*/>', (('<action',), ('/>',), ('type="1"', 'type="2"'))),
    (r"(?P<player>.+) - (Bets|All-In(\(Raise\))?) x", ((" - ",), (" x",))),  # optional: a gap
    (r"Seat [12]: (?i:hero)", (("Seat 1: ", "Seat 2: "),)),  # a case-insensitive group: a gap
    (r"x[^ab]y", (("x",), ("y",))),  # a negated class is no choice
    (r"(?P<player>.+): folds|Seat", ()),  # a top-level alternative
    (r"(?i)hero folds", ()),  # case-insensitive
    (r"(?!)", ((),)),  # matches nothing: no line is tried
])
def test_what_every_match_contains(pattern: str, need: tuple[tuple[str, ...], ...]) -> None:
    """The texts a line must hold before the pattern is tried: a run of literals and of
    literal alternatives is one requirement met by any of its texts."""
    got = required_choices(re.compile(pattern))
    assert sorted(map(sorted, got)) == sorted(map(sorted, need))


def test_fast_find_equals_search_on_every_sites_patterns() -> None:
    """Every pattern of every site parser, on lines made of the pieces the patterns look for
    (names with colons, spaces and brackets; amounts; keywords): ``find`` returns the match
    ``re.search`` returns (same span and groups), or none when it does."""
    rng = random.Random(34)
    pieces = ["Seat 3: ", "Hero", "a: b", " (", "$1.50", ")", ": folds", " folds", ": calls ",
              ": raises $2 to $4", " posts small blind ", "[Ah Kd]", " shows ", " in chips",
              '<action no="1" player="x" type="3" sum="1"/>', " - Posts big blind ", "***",
              'type="1" ', 'type="23"', ' sum="$2"', "<cards ", 'type="Flop">', "</cards>",
              ": bets $1", " raises ", " checks", " - Bets 4", " - All-In(Raise) 9",
              " is the button", ": posts the ante 5", "Dealt to Hero [As Ks]", " ", ":"]
    lines = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 7))) for _ in range(3000)]
    checked = 0
    for site in _SITES.values():
        parser = site.parser()
        for name in dir(parser):
            pattern = getattr(parser, name, None)
            if not isinstance(pattern, re.Pattern):
                continue
            for line in lines:
                want, got = pattern.search(line), parser.find(pattern, line)
                assert (want is None) == (got is None), (site.name, name, line)
                if want is not None and got is not None:
                    assert (want.span(), want.groupdict()) == (got.span(), got.groupdict())
                checked += 1
            # the lines of a hand at once: the same lines found, the same matches
            for lo in range(0, len(lines), 300):
                hand = "\n".join(lines[lo:lo + 300])
                found = [(i, m.span(), m.groupdict())
                         for i, m in parser.matches(pattern, hand, nl=True)]
                assert found == [(i, m.span(), m.groupdict())
                                 for i, line in enumerate(hand.split("\n"))
                                 if (m := pattern.search(line))], (site.name, name)
    assert checked > 100_000


def test_a_skip_names_the_same_player_in_every_process() -> None:
    """Two players act without a seat line: the reason names one of them, the same one whatever
    the process's string hash seed (the players are a set; its order once came from the seed,
    so two runs of one file gave two reasons)."""
    import subprocess
    import sys

    hand = "\n".join([
        "PokerStars Game #27850000001:  Hold'em No Limit ($0.25/$0.50 USD) - 2009/07/01 0:10:04 ET",
        "Table 'Aludra IV' 6-max Seat #1 is the button",
        "Seat 1: omgmuffins ($50 in chips)",
        "Seat 2: kaptajn_k ($49.75 in chips)",
        "kaptajn_k: posts small blind $0.25",
        "omgmuffins: posts big blind $0.50",
        "*** HOLE CARDS ***",
        "ghost_one: folds", "ghost_two: folds", "zz_unseated: folds",
        "kaptajn_k: folds",
        "Uncalled bet ($0.25) returned to omgmuffins",
        "omgmuffins collected $0.50 from pot",
        "*** SUMMARY ***",
        "Total pot $0.50 | Rake $0",
        "Seat 1: omgmuffins (big blind) collected ($0.50)",
        "Seat 2: kaptajn_k (small blind) folded before Flop", "", ""])
    code = ("import sys; from sim.histories.sites.text import reads_history; "
            "print(reads_history(sys.stdin.read()).skipped[0].reason)")
    reasons = {subprocess.run([sys.executable, "-c", code], input=hand, text=True, check=True,
                              capture_output=True, env={**os.environ, "PYTHONHASHSEED": seed},
                              ).stdout.strip() for seed in ("1", "2", "3", "4", "5", "6")}
    assert reasons == {"player 'ghost_one' acts but has no seat line"}
