"""The single-pass PokerStars reader (``sim.histories.sites.stars_fast``) returns exactly the
reference reader's hand or None: on every PokerStars hand of the committed fixtures and of
../shared/sitetext (skipped when absent), on those hands edited at random (a line duplicated,
dropped, two swapped, an amount changed, a seat restated with another stack) and through the
whole import of a file."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from sim.histories.read.phh import PhhSkip
from sim.histories.sites import stars_fast
from sim.histories.sites import text as T

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = sorted((ROOT / "tests" / "fixtures").glob("sitetext*"))
SHARED = ROOT.parent / "shared" / "sitetext" / "pokerstars"
SITE = T._SITES["pokerstars"]


def _hands(folders: list[Path]) -> list[tuple[str, str, str, int]]:
    """(source, chunk, session, line) of every complete PokerStars hand in the folders' files."""
    out = []
    for folder in folders:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            decoded = T.decode_text(path.read_bytes())
            if isinstance(decoded, str) or T.detect_format(decoded[0]) != "pokerstars":
                continue
            for line, chunk, too_long, session in T._split(decoded[0].lstrip("\ufeff"), SITE):
                if too_long is None and SITE.ends in chunk:
                    out.append((str(path), chunk, session, line))
    return out


def _reference(chunk: str, session: str, source: str, line: int,
               monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.setattr(stars_fast, "ENABLED", False)
    got = T._read_hand(SITE, chunk, None, session, source, "1", line)
    monkeypatch.setattr(stars_fast, "ENABLED", True)
    return got


def _check(hands: list[tuple[str, str, str, int]], monkeypatch: pytest.MonkeyPatch,
           ) -> tuple[int, int]:
    """(hands the reference imports, of them taken by the fast reader); every hand the fast
    reader gives equals the reference's."""
    imported = taken = 0
    for source, chunk, session, line in hands:
        ref = _reference(chunk, session, source, line, monkeypatch)
        fast = stars_fast.read_hand(chunk, session, source, "1", line)
        if not isinstance(ref, PhhSkip):
            imported += 1
        if fast is None:
            continue
        assert not isinstance(ref, PhhSkip), f"{source}:{line}: the reference skips ({ref.reason})"
        assert fast == ref, f"{source}:{line}: the fast reader's hand differs"
        taken += 1
    return imported, taken


def test_fixtures_equal_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    hands = _hands(FIXTURES)
    assert len(hands) >= 10
    imported, taken = _check(hands, monkeypatch)
    assert taken >= 0.8 * imported  # cash, tournaments, all-ins, side pots of the fixtures


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/sitetext/pokerstars is absent")
def test_shared_corpus_equal_and_mostly_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    imported, taken = _check(_hands([SHARED]), monkeypatch)
    assert imported > 600
    assert taken >= 0.9 * imported, f"the fast reader took {taken} of {imported} hands"


def test_what_it_refuses() -> None:
    """Dead blinds, a cash-out, run it twice, a name with a colon, a thousands comma: None
    (the reference reads them)."""
    hand = next(h for h in _hands(FIXTURES) if "posts small & big blinds" not in h[1]
                and stars_fast.read_hand(h[1], h[2], h[0], "1", h[3]) is not None)
    source, chunk, session, line = hand
    seat = re.search(r"^Seat \d+: (.+?) \(", chunk, re.M)
    assert seat is not None
    name = seat[1]
    edits = [
        chunk.replace("*** HOLE CARDS ***", f"{name}: posts small & big blinds 3\n"
                      "*** HOLE CARDS ***"),
        chunk.replace("*** SUMMARY ***", f"{name} cashed out the hand for $5\n*** SUMMARY ***"),
        chunk.replace("*** SUMMARY ***", "*** FIRST FLOP *** [2c 3d 4h]\n*** SUMMARY ***"),
        chunk.replace(name, name[:1] + ":" + name[1:]),
    ]
    for edited in edits:
        assert stars_fast.read_hand(edited, session, source, "1", line) is None


_AMOUNT = re.compile(r"(?<=[ $€(])[0-9]+(?:\.[0-9]+)?")


def _edit(chunk: str, rng: random.Random) -> str:
    lines = chunk.split("\n")
    body = list(range(1, len(lines) - 1))
    kind = rng.randrange(5)
    i = rng.choice(body)
    if kind == 0:  # a line duplicated
        lines.insert(i, lines[i])
    elif kind == 1:  # a line dropped
        del lines[i]
    elif kind == 2:  # two lines swapped
        j = rng.choice(body)
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == 3:  # an amount changed
        spots = [(k, m) for k, ln in enumerate(lines) for m in _AMOUNT.finditer(ln)]
        if spots:
            k, m = rng.choice(spots)
            new = str(int(float(m.group(0))) + rng.choice((1, 2, 10)))
            lines[k] = lines[k][:m.start()] + new + lines[k][m.end():]
    else:  # a seat restated with another stack
        seats = [ln for ln in lines if re.match(r"Seat \d+: .+ \(.*in chips", ln)]
        if seats:
            seat = rng.choice(seats)
            lines.insert(rng.choice(body), re.sub(r"\(\D?[0-9.]+ in chips",
                                                  "(7777 in chips", seat))
    return "\n".join(lines)


def test_random_edits_are_none_or_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(73)
    hands = _hands(FIXTURES)
    if SHARED.is_dir():
        hands += rng.sample(_hands([SHARED]), 150)
    differs = 0
    for source, chunk, session, line in hands:
        for _ in range(4):
            edited = _edit(chunk, rng)
            differs += edited != chunk
            _check([(source, edited, session, line)], monkeypatch)
    assert differs > len(hands)  # the edits did edit


def test_whole_import_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file's import (hands, skips, their order) is the same with the fast reader on or
    off."""
    for path in sorted(p for f in FIXTURES for p in f.glob("pokerstars*")):
        on = T.read_history(path)
        monkeypatch.setattr(stars_fast, "ENABLED", False)
        off = T.read_history(path)
        monkeypatch.setattr(stars_fast, "ENABLED", True)
        assert on == off, path
