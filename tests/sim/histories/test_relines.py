"""The site parsers' fast line stages (sim.histories.sites.relines) answer as PokerKit's own."""

from __future__ import annotations

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
