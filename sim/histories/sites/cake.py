"""Cake Poker's text export (``Hand#2701011985001689 - Paris (6-max) 11985 -- $0.05/$0.10 NL
Hold'em -- 2011/08/28 - 00:53:30``), read by ``sim.histories.sites.plain``.

The button is the seat line marked ``DEALER``; actions are PokerStars-like (``Hero: raises to
$0.30``: the street total; ``calls $0.20``: the amount added), cards are written with commas
(``[7c,Th]``), the uncalled bet is returned in its own line (``X: returns uncalled bet $0.30``),
``***SHOW DOWN***`` precedes the results and the winner ``wins $0.56`` after the rake (no pot or
rake line: ``total_pot`` and ``rake`` are None; in a walk the big blind wins the whole pot, his own
blind included, as at 888). ``X: is all in $1.63`` is read where X has put nothing in on the
street (the amount added and the street total are then one); after a bet of his on the street
it is a named skip (the text does not say which it is). Some exports begin with a byte order mark
written twice (the second as Windows-1252 text, ``ï»¿``). Cash games only: another header (a
tournament's) is a named skip.
"""

from __future__ import annotations

import datetime as _dt
import re

from sim.histories.read.phh import PhhFile
from sim.histories.sites.plain import AMT, CARDS, Header, Site, Skip, amount, read_site

__all__ = ["DETECT", "read"]

DETECT = re.compile(r"(?:ï»¿)?Hand#[0-9]+ - ")

_A = rf"(?P<amount>{AMT})"
_HEAD = re.compile(
    r"(?:ï»¿)?Hand#(?P<hand>[0-9]{1,24}) - (?P<table>.{1,80}?) \((?P<max>[0-9]{1,2})-max\)"
    r"(?: [0-9]{1,12})? -- (?P<sb>[$€]?[0-9][0-9.,]*)/(?P<bb>[$€]?[0-9][0-9.,]*) "
    r"(?P<limit>NL|PL|FL|Limit|No Limit|Pot Limit) (?P<game>.{1,30}?) -- "
    r"(?P<when>[0-9]{4}/[0-9]{2}/[0-9]{2} - [0-9]{2}:[0-9]{2}:[0-9]{2})")


def _header(lines: list[str]) -> Header:
    m = _HEAD.fullmatch(lines[0])
    if m is None:
        raise Skip(f"unrecognised line: the header {lines[0][:120]!r}")
    if m["game"] != "Hold'em":
        raise Skip(f"unsupported variant: not hold'em ({m['game']!r})")
    variant = {"NL": "NT", "No Limit": "NT", "PL": "PT", "Pot Limit": "PT"}.get(m["limit"], "FT")
    return Header(
        hand=m["hand"], variant=variant, stakes=(amount(m["sb"]), amount(m["bb"])),
        table=m["table"], seat_count=int(m["max"]),
        when=_dt.datetime.strptime(m["when"], "%Y/%m/%d - %H:%M:%S"),
        currency="USD" if m["bb"].startswith("$") else None, lines=1)


SITE = Site(
    name="cake", venue="Cake Poker",
    starts=DETECT,
    header=_header,
    seat=re.compile(rf"Seat (?P<seat>[0-9]{{1,2}}): (?P<player>.{{1,40}}) \((?P<stack>{AMT}) in "
                    r"chips\)(?: (?P<dealer>DEALER))?"),
    rules=(
        (rf"{{P}}: posts small blind {_A}", "sb"),
        (rf"{{P}}: posts big blind {_A}", "bb"),
        (rf"Dealt to {{P}} \[(?P<cards>{CARDS})\]", "hole"),
        (r"{P}: folds", "fold"),
        (r"{P}: checks", "check"),
        (rf"{{P}}: calls {_A}", "call"),
        (rf"{{P}}: bets {_A}", "bet"),
        (rf"{{P}}: raises to {_A}", "raise_to"),
        (rf"{{P}}: is all in {_A}", "allin_street"),
        (rf"\*\*\* (?:FLOP|TURN|RIVER) \*\*\* \[(?P<cards>{CARDS})\]", "board"),
        (rf"{{P}}: returns uncalled bet {_A}", "uncalled"),
        (r"\*\*\*SHOW DOWN\*\*\*", "none"),
        (rf"{{P}}: shows \[(?P<cards>{CARDS})\](?: \(.{{0,80}}\))?", "show"),
        (rf"{{P}}:? mucks(?: \[(?P<cards>{CARDS})\])?(?: \(.{{0,40}}\))?(?: \.)?", "muck"),
        (rf"{{P}} wins {_A}(?: with .{{0,80}})?", "collect"),
    ),
    ends=re.compile(r"^\*\*\*SHOW DOWN\*\*\*$"),
    walk_pays_blind=True,
)


def read(text: str, source: str) -> PhhFile:
    """The hands of a Cake Poker text export."""
    return read_site(text, source, SITE)
