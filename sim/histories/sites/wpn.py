"""The Winning Poker Network's (WPN: Americas Cardroom, Ya Poker) text export of the ``Game
started at:`` style, read by ``sim.histories.sites.plain`` (the current ``Game Hand #`` style:
``sim.histories.sites.acr``).

A hand: ``Game started at: 2016/8/2 10:53:49``, ``Game ID: 693968595 2/4 Airavata 2
(Hold'em)`` (the stakes, the table, the game in brackets; a tournament's ``10/20 $2.20 Turbo
Heads-up, Table 1``: its name stands for its id, which the hand does not write), ``Seat 2 is the
button``, seats ``Seat 1: ChazDazzle (20).``, then ``Player X has small blind (1)``, one line per
hole card (``received card: [5h]``, ``received a card.``), actions whose amounts are what the
action ADDS (``raises (3)``, ``calls (2)``, ``allin (1120)``), ``Uncalled bet (2) returned to X``,
``------ Summary ------``, ``Pot: 7.85. Rake 0.15`` (the pot AFTER the rake) and one line per
player stating his cards, his total bet and what he collected (``*Player X mucks (does not show
cards). Bets: 4. Collects: 7.85. Wins: 3.85.``): the bets are checked against the actions.

The header does not name the betting structure: stakes twice the posted blinds are a
fixed-limit game's bets (``2/4`` with blinds 1/2: the replay holds every bet to 2 and 4); stakes
equal to the blinds are read as no limit (a pot-limit hand would replay under no-limit rules,
which allow every pot-limit action). ``(Cap)`` tables (capped no limit) are "unsupported
variant", as are other games.
"""

from __future__ import annotations

import datetime as _dt
import re

from sim.histories.read.phh import PhhFile
from sim.histories.sites import acr
from sim.histories.sites.plain import AMT, CARDS, Header, Site, Skip, amount, read_site

__all__ = ["DETECT", "read"]

DETECT = re.compile(r"Game started at: [0-9]{4}/[0-9]{1,2}/[0-9]{1,2} |" + acr.DETECT.pattern)

_A = rf"(?P<amount>{AMT})"
_STARTED = re.compile(r"Game started at: (?P<when>[0-9]{4}/[0-9]{1,2}/[0-9]{1,2} "
                      r"[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2})")
_GAME = re.compile(
    r"Game ID: (?P<hand>[0-9]{1,20}) (?P<a>[0-9][0-9.,]*)/(?P<b>[0-9][0-9.,]*) "
    r"(?:(?P<tname>.{1,80}?), Table (?P<tno>[0-9]{1,4})|(?P<table>.{1,80}?)) "
    r"\((?P<game>[^()]{1,40})\)")
_BUTTON = re.compile(r"Seat (?P<seat>[0-9]{1,2}) is the button")
_BB = re.compile(r"Player .{1,40} has big blind \((?P<bb>[0-9][0-9.,]*)\)")


def _header(lines: list[str]) -> Header:
    s = _STARTED.fullmatch(lines[0])
    g = _GAME.fullmatch(lines[1]) if len(lines) > 1 else None
    b = _BUTTON.fullmatch(lines[2]) if len(lines) > 2 else None
    if s is None or g is None or b is None:
        raise Skip("unrecognised line: expected 'Game started at:', 'Game ID:' and the button's "
                   f"seat in the hand's first lines ({' | '.join(lines[:3])[:160]!r})")
    if g["game"] != "Hold'em":
        raise Skip(f"unsupported variant: not hold'em ({g['game']!r})")
    table = g["table"] or f"{g['tname']} {g['tno']}"
    if re.search(r"\(Cap\)", table):
        raise Skip(f"unsupported variant: capped no-limit hold'em ({table!r}): a cap on each "
                   "player's bets the engine does not play")
    a, bb_head = amount(g["a"]), amount(g["b"])
    posted = next((amount(m["bb"]) for ln in lines if (m := _BB.fullmatch(ln))), None)
    variant, stakes = "NT", None
    if posted is not None and bb_head == 2 * posted and a == posted:
        variant, stakes = "FT", (a, bb_head)
    return Header(
        hand=g["hand"], variant=variant, stakes=stakes,
        tournament=g["tname"] if g["tname"] else None, table=table, button=int(b["seat"]),
        when=_dt.datetime.strptime(s["when"], "%Y/%m/%d %H:%M:%S"), lines=3)


SITE = Site(
    name="wpn", venue="Winning Poker Network",
    starts=re.compile(r"Game started at: "),
    header=_header,
    seat=re.compile(rf"Seat (?P<seat>[0-9]{{1,2}}): (?P<player>.{{1,40}}) \((?P<stack>{AMT})\)\."),
    rules=(
        (rf"Player {{P}} has small blind \({_A}\)", "sb"),
        (rf"Player {{P}} has big blind \({_A}\)", "bb"),
        (r"Player {P} received card: \[(?P<cards>(?:[2-9TJQKA]|10)[cdhs])\]", "hole"),
        (r"Player {P} received a card\.", "hole"),
        (r"Player {P} folds", "fold"),
        (r"Player {P} checks", "check"),
        (rf"Player {{P}} calls \({_A}\)", "call"),
        (rf"Player {{P}} bets \({_A}\)", "bet"),
        (rf"Player {{P}} raises \({_A}\)", "raise_by"),
        (rf"Player {{P}} allin \({_A}\)", "allin"),
        (r"Player {P} is timed out\.", "none"),
        (r"Player {P} mucks cards", "muck"),
        (rf"\*\*\* FLOP \*\*\*: \[(?P<cards>{CARDS})\]", "board"),
        (rf"\*\*\* (?:TURN|RIVER) \*\*\*: \[(?P<old>{CARDS})\] \[(?P<cards>{CARDS})\]", "board"),
        (rf"Uncalled bet \({_A}\) returned to {{P}}", "uncalled"),
        (r"------ Summary ------", "none"),
        (rf"Pot: (?P<after>){_A}(?:\. Rake (?P<rake>{AMT}))?", "total"),
        (rf"Board: \[{CARDS}\]", "none"),
        (rf"\*?Player {{P}} (?:does not show cards\.|(?P<mucks>mucks) \(does not show"
         rf"(?: cards|: \[(?P<mcards>{CARDS})\])\)\.|shows: .{{0,80}}? "
         rf"\[(?P<cards>{CARDS})\]\.) ?Bets: (?P<bets>{AMT})\. Collects: {_A}\. "
         rf"(?:Wins|Loses): {AMT}\.", "seatsum"),
        (r"Game ended at: .{1,40}", "none"),
    ),
    ends=re.compile(r"^Game ended at: "),
)


def read(text: str, source: str) -> PhhFile:
    """The hands of a WPN text export: the ``Game started at:`` style, or the current
    ``Game Hand #`` style (``sim.histories.sites.acr``), told by the first line."""
    first = next((ln.strip().lstrip("\ufeff") for ln in text.splitlines() if ln.strip()), "")
    return read_site(text, source, acr.SITE if acr.DETECT.match(first) else SITE)
