"""Winamax's text export (``Winamax Poker - ...``), read by ``sim.histories.sites.plain``.

The header names a tournament (``Tournament "Freeroll 100€" buyIn: Free level: 0 - HandId:
#56408884989919569-1-1319722234 - Holdem no limit (10/20) - 2011/10/27 15:30:34 UTC``: the level
counted from 0, the stakes ``(ante/small/big)`` when there is an ante; the tournament's number is
in the table's name, ``'Freeroll 100€(13133717)#336'``) or a cash game (``CashGame``), amounts in
chips or in euros written after the number (``0.02€``). Names may hold spaces (``dies irae 67``):
they are read from the seat lines. The streets restate the board (``*** TURN *** [9h 5c
Td][3h]``). Winamax writes no uncalled-bet line: the winner's ``collected`` and the ``Total pot``
include his uncalled bet (a river all-in of 2,670 that nobody calls: ``collected 3720``, the
pot 1,050 and the 2,670 back; the next hand's stack agrees); the reader takes the uncalled bet
out of both, to the standard. ``Total pot N | No rake`` or ``| Rake N``. A new or returning
player's ``posts big blind 0.05€ out of position`` is a live big blind (2024 cash).
"""

from __future__ import annotations

import datetime as _dt
import re

from sim.histories.read.phh import PhhFile
from sim.histories.sites.plain import AMT, CARDS, Header, Site, Skip, amount, read_site

__all__ = ["DETECT", "read"]

DETECT = re.compile(r"Winamax Poker - ")

_A = rf"(?P<amount>{AMT})"
_HEAD = re.compile(
    r"Winamax Poker - (?:(?P<tour>Tournament) \"(?P<tname>.{1,120}?)\" buyIn: .{1,60}? "
    r"level: (?P<level>[0-9]{1,3}) - |(?P<cash>CashGame) - )"
    r"HandId: #(?P<hand>[0-9][0-9-]{0,60}) - (?P<game>.{1,40}?) "
    r"\((?:[0-9.,]+[€$]?/)?(?P<sb>[0-9.,]+[€$]?)/(?P<bb>[0-9.,]+[€$]?)\) - "
    r"(?P<when>[0-9]{4}/[0-9]{2}/[0-9]{2} [0-9]{1,2}:[0-9]{2}:[0-9]{2})(?: (?P<zone>[A-Z]{2,4}))?")
_TABLE = re.compile(r"Table: '(?P<table>.{1,100}?)' (?P<max>[0-9]{1,2})-max "
                    r"\((?P<money>real money|play money)\) Seat #(?P<button>[0-9]{1,2}) "
                    r"is the button")
_TOURNEY_NO = re.compile(r"\((?P<id>[0-9]{3,})\)")


def _header(lines: list[str]) -> Header:
    m = _HEAD.fullmatch(lines[0])
    if m is None:
        raise Skip(f"unrecognised line: the header {lines[0][:120]!r}")
    game = m["game"]
    structure = {"Holdem no limit": "NT", "Holdem pot limit": "PT",
                 "Holdem fixed limit": "FT", "Holdem limit": "FT"}.get(game)
    if structure is None:
        raise Skip(f"unsupported variant: not hold'em ({game!r})" if "Holdem" not in game
                   else f"unsupported variant: the header names no betting structure ({game!r})")
    t = _TABLE.fullmatch(lines[1]) if len(lines) > 1 else None
    if t is None:
        raise Skip("unrecognised line: expected the table line after the header")
    tid = None
    if m["tour"]:
        n = _TOURNEY_NO.search(t["table"])
        tid = n["id"] if n is not None else m["tname"]
    euro = "€" in m["bb"]
    return Header(
        hand=m["hand"], variant=structure, stakes=(amount(m["sb"]), amount(m["bb"])),
        bets_are_blinds=True, tournament=tid,
        level=int(m["level"]) + 1 if m["level"] is not None else None,
        table=t["table"], seat_count=int(t["max"]), button=int(t["button"]),
        when=_dt.datetime.strptime(m["when"], "%Y/%m/%d %H:%M:%S"), zone=m["zone"],
        currency="EUR" if euro and t["money"] == "real money" else None, lines=2)


_POS = r"(?: \((?:button|small blind|big blind)\))*"
SITE = Site(
    name="winamax", venue="Winamax",
    starts=DETECT,
    header=_header,
    seat=re.compile(rf"Seat (?P<seat>[0-9]{{1,2}}): (?P<player>.{{1,40}}) \((?P<stack>{AMT})"
                    rf"(?:, {AMT} bounty)?\)"),
    rules=(
        (r"\*\*\* ANTE/BLINDS \*\*\*", "none"),
        (rf"{{P}} posts ante {_A}", "ante"),
        (rf"{{P}} posts small blind {_A}", "sb"),
        # a player who joins (or returns) between the button and the big blind posts a live big
        # blind "out of position" (20183568-874: ``LF-Genie49 posts big blind 0.05€ out of
        # position``, then ``LF-Genie49 checks``; his next stack is 0.05 less)
        (rf"{{P}} posts big blind {_A}(?: out of position)?", "bb"),
        (rf"Dealt to {{P}} \[(?P<cards>{CARDS})\]", "hole"),
        (r"\*\*\* PRE-FLOP \*\*\*", "deal"),
        (r"{P} folds", "fold"),
        (r"{P} checks", "check"),
        (rf"{{P}} calls {_A}(?: and is all-in)?", "call"),
        (rf"{{P}} bets {_A}(?: and is all-in)?", "bet"),
        (rf"{{P}} raises {AMT} to {_A}(?: and is all-in)?", "raise_to"),
        (rf"\*\*\* FLOP \*\*\* \[(?P<cards>{CARDS})\]", "board"),
        (rf"\*\*\* (?:TURN|RIVER) \*\*\* \[(?P<old>{CARDS})\]\[(?P<cards>{CARDS})\]", "board"),
        (r"\*\*\* SHOW DOWN \*\*\*|\*\*\* SUMMARY \*\*\*", "none"),
        (rf"{{P}} shows \[(?P<cards>{CARDS})\](?: \(.{{0,80}}\))?", "show"),
        (rf"{{P}} collected {_A} from (?:main |side )?pot(?: ?[0-9]{{1,2}})?", "collect"),
        (rf"Total pot {_A} \| (?:(?P<norake>No) rake|Rake (?P<rake>{AMT}))", "total"),
        (rf"Board: \[{CARDS}\]", "none"),
        (rf"Seat [0-9]{{1,2}}: {{P}}{_POS} (?:showed \[{CARDS}\] and )?won {_A}"
         r"(?: with .{0,80})?", "won"),
        (rf"Seat [0-9]{{1,2}}: {{P}}{_POS} (?:folded on the (?:pre-flop|flop|turn|river)|"
         rf"showed \[{CARDS}\] and lost(?: with .{{0,80}})?)", "none"),
    ),
    ends=re.compile(r"^\*\*\* SUMMARY \*\*\*$"),
    pot_holds_uncalled=True,
)


def read(text: str, source: str) -> PhhFile:
    """The hands of a Winamax text export."""
    return read_site(text, source, SITE)
