"""PokerStars' tournament summaries (``PokerStars Tournament #N, No Limit Hold'em`` / ``Buy-In:
$10.00/$1.00 USD`` / ``180 players`` / ``Total Prize Pool: $1800.00 USD`` / ``1: name (country),
$540.00 (30%)`` / ``You finished in 12th place.``), read line by line as the operator's claims
(issue 34, point 3): the import records them and checks them against each other and against the
hands (``cluster.flows.summary_checks``); nothing here computes with them.

Every non-blank line of a summary is one of the known shapes below, or the summary is not read:
``read_summaries`` then names the file, the line, its text and what was expected (one line),
never a traceback. A file may hold several summaries (the site's e-mail of the last N
tournaments), each from its ``PokerStars Tournament #`` line; before the first, only the e-mail's
``Tournament History for your last N tournaments requested by ...`` line; anywhere, the e-mail's
``If you have any questions, ...`` footer. Amounts are kept as written (``$1,518.00``,
``€9.04``); ``money`` reads one (symbol, exact ``Decimal``).

Lines read (``HEAD`` the first, each other in any order after it):

- ``PokerStars [Home Game ]Tournament #N, GAME``;
- ``Buy-In: A[/B[/C]][ CODE]`` (prize part, [bounty,] fee; one part: the whole, unsplit);
- ``N players``; ``Total Prize Pool: A[ CODE]``;
- ``Tournament started ...``, ``Tournament finished ...`` (as written);
- ``K: NAME (WHERE), A (P%)`` (a paid place), ``K: NAME (WHERE),`` (unpaid),
  ``K: NAME (WHERE), still playing``;
- ``You finished in Kth place[ (eliminated at hand #H)].``, ``You are still playing.``,
  ``You made N rebuys and N addons for a total of CODE A.``
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from sim.histories.sources import decode_text, read_bytes

__all__ = ["FORMAT", "DETECT", "Place", "Summary", "SummaryFile", "Unread", "money",
           "read_summaries", "read_summary_file"]

FORMAT = "pokerstars-summary"  # the format name ``detect_format`` gives such a file
_AMT = r"[$€£₹]?[0-9][0-9,]{0,15}(?:\.[0-9]{1,6})?"
HEAD = re.compile(r"^PokerStars (?:Home Game )?Tournament #(?P<id>[0-9]{1,15}), (?P<game>.{1,80})$")
_PREAMBLE = re.compile(r"^Tournament History for your last [0-9]{1,4} tournaments? requested by "
                       r".{1,200}$")
# a file's first line that makes it a summary (``sim.histories.sites.text.detect_format``)
DETECT = re.compile(r"PokerStars (?:Home Game )?Tournament #[0-9]{1,15}, "
                    r"|Tournament History for your last [0-9]{1,4} tournaments? requested by ")
_FOOTER = re.compile(r"^If you have any questions, .{0,200}$")
_BUY_IN = re.compile(rf"^Buy-In: (?P<parts>{_AMT}(?:/{_AMT}){{0,2}})(?: (?P<code>[A-Z]{{2,5}}))?$")
_PLAYERS = re.compile(r"^(?P<n>[0-9]{1,7}) players?$")
_POOL = re.compile(rf"^Total Prize Pool: (?P<pool>{_AMT})(?: (?P<code>[A-Z]{{2,5}}))?$")
_TIME = re.compile(r"^Tournament (?P<what>started|finished) (?P<when>.{1,80})$")
_PLACE = re.compile(rf"^(?P<place>[0-9]{{1,7}}): (?P<name>.+?) \((?P<where>.*)\),"
                    rf"(?: (?P<prize>{_AMT}) \((?P<pct>[0-9]{{1,3}}(?:\.[0-9]{{1,6}})?)%\)"
                    r"| (?P<still>still playing))?$")
_YOU = re.compile(r"^You finished in (?P<place>[0-9]{1,7})(?:st|nd|rd|th) place"
                  r"(?: \(eliminated at hand #(?P<hand>[0-9]{1,20})\))?\.$")
_YOU_PLAYING = re.compile(r"^You are still playing\.?$")
_REBUYS = re.compile(rf"^You made (?P<rebuys>[0-9]{{1,5}}) rebuys? and (?P<addons>[0-9]{{1,5}}) "
                     rf"add-?ons? for a total of (?P<total>(?:[A-Z]{{2,5}} )?{_AMT})\.$")
_EXPECTED = ("a line of a PokerStars tournament summary (Buy-In, N players, Total Prize Pool, "
             "Tournament started/finished, 'K: NAME (WHERE), PRIZE (P%)', 'You finished in ...')")
MAX_LINE_CHARS = 2_000


def money(text: str) -> tuple[str, Decimal] | None:
    """(currency symbol, exact amount) of an amount as written (``$1,518.00`` -> ("$",
    1518.00); ``1000`` -> ("", 1000)); None when it is not one."""
    m = re.fullmatch(r"(?P<sym>[$€£₹]?)(?P<num>[0-9][0-9,]{0,15}(?:\.[0-9]{1,6})?)", text.strip())
    if m is None:
        return None
    try:
        return m["sym"], Decimal(m["num"].replace(",", ""))
    except InvalidOperation:
        return None


@dataclass(frozen=True)
class Place:
    """One place line: the place, the player (as written), where they play from, the prize and
    its percentage as written (None: unpaid or still playing)."""

    place: int
    player: str
    where: str
    prize: str | None
    percent: str | None
    still_playing: bool
    line: int


@dataclass(frozen=True)
class Summary:
    """One tournament's summary as the operator states it (amounts as written)."""

    source: str
    line: int  # the header's line (1-based)
    tournament: str
    game: str
    buy_in: tuple[str, ...] = ()  # the parts as written: (prize, [bounty,] fee), or (whole,)
    currency: str = ""  # the code written after the buy-in ("USD"), "" none
    players: int | None = None
    pool: str | None = None
    pool_currency: str = ""
    started: str | None = None
    finished: str | None = None
    places: tuple[Place, ...] = ()
    hero_place: int | None = None
    hero_eliminated_at: str | None = None  # the site's hand number
    hero_rebuys: str | None = None  # the rebuys line's figures, as written

    def record(self) -> dict[str, Any]:
        """The summary's facts as ``import.json`` records them (its places counted, not
        listed: a field of thousands would make the record as large as the file)."""
        paid = [p for p in self.places if p.prize is not None]
        return {"source": self.source, "line": self.line, "tournament": self.tournament,
                "game": self.game, "buy_in": "/".join(self.buy_in), "currency": self.currency,
                "players": self.players, "pool": self.pool, "places_listed": len(self.places),
                "paid_places": len(paid),
                "still_playing": sum(p.still_playing for p in self.places),
                "hero_place": self.hero_place}


@dataclass(frozen=True)
class Unread:
    """A summary that was not read: the first line it could not read and why."""

    source: str
    line: int
    text: str
    reason: str

    def describe(self) -> str:
        text = self.text if len(self.text) <= 80 else self.text[:77] + "..."
        return f"{self.source} line {self.line}: {text!r}: {self.reason}"


@dataclass
class SummaryFile:
    """The summaries of one file and those not read."""

    source: str
    summaries: list[Summary] = field(default_factory=list)
    unread: list[Unread] = field(default_factory=list)


def read_summary_file(path: str) -> SummaryFile:
    """``read_summaries`` of a file (a path or a URI); an unreadable file or one that is not
    text is one ``Unread`` (line 0)."""
    data = read_bytes(path)
    if isinstance(data, str):
        return SummaryFile(path, [], [Unread(path, 0, "", data)])
    decoded = decode_text(data)
    if isinstance(decoded, str):
        return SummaryFile(path, [], [Unread(path, 0, "", decoded)])
    return read_summaries(decoded[0], path)


def read_summaries(text: str, source: str = "<string>") -> SummaryFile:
    """Every summary of ``text``; a summary with a line that is none of the known shapes (or a
    fact stated twice, or no line at all after its header) is not read, its first such line
    named (``Unread``). Never raises for the text."""
    out = SummaryFile(source)
    lines = text.lstrip("\ufeff").splitlines()
    starts = [i for i, ln in enumerate(lines) if HEAD.match(ln.strip())]
    for i, ln in enumerate(lines[:starts[0] if starts else len(lines)]):
        s = ln.strip()
        if s and not _PREAMBLE.match(s) and not _FOOTER.match(s):
            out.unread.append(Unread(source, i + 1, s, "before any 'PokerStars Tournament #N, "
                                     "GAME' line: expected the summary's first line"))
            return out
    if not starts:
        out.unread.append(Unread(source, 0, "", "no 'PokerStars Tournament #N, GAME' line: "
                                 "not a tournament summary"))
        return out
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        got = _one(lines, start, end, source)
        (out.unread if isinstance(got, Unread) else out.summaries).append(got)  # type: ignore[arg-type]
    return out


def _one(lines: list[str], start: int, end: int, source: str) -> Summary | Unread:
    head = HEAD.match(lines[start].strip())
    assert head is not None
    facts: dict[str, Any] = {}
    places: list[Place] = []

    def once(key: str, value: Any, no: int, text: str) -> Unread | None:
        if key in facts:
            return Unread(source, no, text, f"stated twice in the summary of tournament "
                                            f"#{head['id']} (first: {facts[key]!r})")
        facts[key] = value
        return None

    for i in range(start + 1, end):
        raw = lines[i]
        s = raw.strip()
        no = i + 1
        if not s or _FOOTER.match(s):
            continue
        if len(raw) > MAX_LINE_CHARS:
            return Unread(source, no, s, f"longer than {MAX_LINE_CHARS:,} characters")
        bad: Unread | None = None
        if (m := _BUY_IN.match(s)) is not None:
            parts = tuple(m["parts"].split("/"))
            syms = {money(p)[0] for p in parts if money(p) is not None}  # type: ignore[index]
            if len(syms) > 1:
                return Unread(source, no, s, "a buy-in whose parts are in different currencies")
            bad = once("buy_in", parts, no, s) or once("currency", m["code"] or "", no, s)
        elif (m := _PLAYERS.match(s)) is not None:
            bad = once("players", int(m["n"]), no, s)
        elif (m := _POOL.match(s)) is not None:
            bad = once("pool", m["pool"], no, s) or once("pool_currency", m["code"] or "", no, s)
        elif (m := _TIME.match(s)) is not None:
            bad = once(m["what"], m["when"], no, s)
        elif (m := _PLACE.match(s)) is not None:
            places.append(Place(int(m["place"]), m["name"], m["where"], m["prize"], m["pct"],
                                m["still"] is not None, no))
        elif (m := _YOU.match(s)) is not None:
            bad = (once("hero_place", int(m["place"]), no, s)
                   or once("hero_eliminated_at", m["hand"], no, s))
        elif _YOU_PLAYING.match(s):
            bad = once("hero_place", None, no, s)
        elif (m := _REBUYS.match(s)) is not None:
            bad = once("hero_rebuys", f"{m['rebuys']} rebuys, {m['addons']} add-ons, {m['total']}",
                       no, s)
        else:
            return Unread(source, no, s, f"not {_EXPECTED}")
        if bad is not None:
            return bad
    seen: dict[int, Place] = {}
    for p in places:
        if p.place in seen:
            return Unread(source, p.line, f"{p.place}: {p.player}", f"place {p.place} listed "
                          f"twice (first at line {seen[p.place].line})")
        seen[p.place] = p
    if "buy_in" not in facts or "players" not in facts:
        return Unread(source, start + 1, lines[start].strip(), "the summary states no "
                      + ("'Buy-In:' line" if "buy_in" not in facts else "'N players' line"))
    return Summary(source, start + 1, head["id"], head["game"].strip(), facts["buy_in"],
                   facts.get("currency", ""), facts["players"], facts.get("pool"),
                   facts.get("pool_currency", ""), facts.get("started"), facts.get("finished"),
                   tuple(places), facts.get("hero_place"), facts.get("hero_eliminated_at"),
                   facts.get("hero_rebuys"))
