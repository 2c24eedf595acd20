"""888poker / Pacific Poker (Cassava) text exports, read by ``sim.histories.sites.plain``.

A hand opens with ``#Game No : N`` and ``***** Cassava Hand History for Game N *****`` (888poker,
888.pt, Pacific Poker, ``888poker Snap Poker``: the same shape), then ``$0.01/$0.02 Blinds No Limit
Holdem - *** 08 03 2011 13:24:27`` (the header's stakes are the BLINDS, also for fixed limit: ``Fix
Limit`` bets are the big blind and twice it), the table (``(Real Money)``, ``(Practice Play)``:
play chips, or a tournament's ``Tournament #N ... - Table #N``), ``Seat 4 is the button`` and the
seats with their amounts in spaced brackets (``( $0.91 )``, ``( 1,168.50 )``). Amounts in action
lines are what the action ADDS (``raises [$0.07]`` puts in 0.07 more, as ``calls`` does). The cards
are "dealt down" (``** Dealing down cards **``; only the hero's are written: ``Dealt to X [ Jc, 2d
]``) and the streets are ``** Dealing flop ** [ 6d, Kh, 4d ]``. The summary states what each winner
``collected [ $0.24 ]`` after the rake; no pot, rake or uncalled-bet line: ``total_pot`` and
``rake`` are None (the outcome audit rebuilds them). An uncalled bet is not in the winner's
``collected`` (the raiser of 0.04 whom all fold collects 0.05 of a pot of 0.07: the next hand's
stack agrees), except in a walk, where the big blind collects the whole pot, his own blind included
(0.03 of blinds of 0.01 and 0.02: his next stack is 0.01 up). ``mucks [ 4s, 6h ]`` states the
cards of a hand a hand shown before it beats: they speak (888 pays such a hand the side pot it
wins: game 775396118); ``did not show his hand`` a muck.
"""

from __future__ import annotations

import datetime as _dt
import re

from sim.histories.read.phh import PhhFile
from sim.histories.sites.plain import AMT, Header, Site, Skip, amount, read_site

__all__ = ["DETECT", "read"]

DETECT = re.compile(r"\*\*\*\*\* (?:Cassava|888poker|888\.\w{2,3}|Pacific Poker)"
                    r"(?: [A-Za-z]{1,20}){0,3} Hand History for Game [0-9]+ \*\*\*\*\*")

_A = rf"(?P<amount>{AMT})"
_C = r"(?P<cards>(?:[2-9TJQKA]|10)[cdhs](?:, (?:[2-9TJQKA]|10)[cdhs]){0,4})"
_GAME_NO = re.compile(r"#Game No : (?P<hand>[0-9]+)")
_GAME = re.compile(
    rf"(?P<sb>{AMT})/(?P<bb>{AMT}) Blinds (?P<limit>No Limit|Pot Limit|Fix Limit|Limit) "
    r"(?P<game>.{1,40}?) - \*\*\* (?P<when>[0-9]{2} [0-9]{2} [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2})")
_TABLE = re.compile(r"Table (?P<table>.{1,80}?)(?: (?P<max>[0-9]{1,2}) Max)? "
                    r"\((?P<money>Real Money|Practice Play)\)")
_TOURNEY = re.compile(r"Tournament #(?P<tid>[0-9]+) .{0,80}?- Table #(?P<table>[0-9]+)"
                      r"(?: (?P<max>[0-9]{1,2}) Max)? \((?P<money>Real Money|Practice Play)\)")
_BUTTON = re.compile(r"Seat (?P<seat>[0-9]{1,2}) is the button")
_COUNT = re.compile(r"Total number of players : [0-9]{1,2}(?:/(?P<max>[0-9]{1,2}))?")


def _header(lines: list[str]) -> Header:
    at = 0
    hand = None
    while at < len(lines) and (DETECT.fullmatch(lines[at]) or _GAME_NO.fullmatch(lines[at])):
        m = re.search(r"(?:Game No : |for Game )([0-9]+)", lines[at])
        number = m.group(1) if m else None
        if hand is not None and number != hand:
            raise Skip(f"stated twice: the game number is {hand} and {number}")
        hand = number
        at += 1
    if hand is None or at + 4 > len(lines):
        raise Skip("truncated hand: no game line after the game number")
    g = _GAME.fullmatch(lines[at])
    if g is None:
        raise Skip(f"unrecognised line: the game line {lines[at][:120]!r}")
    if g["game"] != "Holdem":
        raise Skip(f"unsupported variant: not hold'em ({g['game']!r})")
    t = _TABLE.fullmatch(lines[at + 1])
    tour = _TOURNEY.fullmatch(lines[at + 1]) if t is None else None
    if t is None and tour is None:
        raise Skip(f"unrecognised line: the table line {lines[at + 1][:120]!r}")
    b = _BUTTON.fullmatch(lines[at + 2])
    c = _COUNT.fullmatch(lines[at + 3])
    if b is None or c is None:
        raise Skip("unrecognised line: expected the button and the number of players after the "
                   "table line")
    variant = {"No Limit": "NT", "Pot Limit": "PT"}.get(g["limit"], "FT")
    tab = t or tour
    assert tab is not None
    seat_count = tab["max"] or c["max"]
    sb = g["sb"]
    return Header(
        hand=hand, variant=variant, stakes=(amount(g["sb"]), amount(g["bb"])),
        bets_are_blinds=True, tournament=tour["tid"] if tour else None,
        table=tab["table"] if tour is None else f"{tour['tid']} {tour['table']}",
        seat_count=int(seat_count) if seat_count else None, button=int(b["seat"]),
        when=_dt.datetime.strptime(g["when"], "%d %m %Y %H:%M:%S"),
        currency=("USD" if "$" in sb else "EUR" if "€" in sb else "GBP" if "£" in sb else None)
        if tab["money"] == "Real Money" else None, lines=at + 4)


SITE = Site(
    name="888", venue="888poker",
    starts=re.compile(r"#Game No : [0-9]|" + DETECT.pattern),
    header=_header,
    seat=re.compile(rf"Seat (?P<seat>[0-9]{{1,2}}): (?P<player>.{{1,40}}) \( (?P<stack>{AMT}) \)"),
    rules=(
        (rf"{{P}} posts ante \[{_A}\]", "ante"),
        (rf"{{P}} posts small blind \[{_A}\]", "sb"),
        (rf"{{P}} posts big blind \[{_A}\]", "bb"),
        (rf"{{P}} posts dead blind \[(?P<dead>{AMT}) \+ {_A}\]", "deadbb"),
        (r"\*\* Dealing down cards \*\*", "deal"),
        (rf"Dealt to {{P}} \[ {_C} \]", "hole"),
        (r"{P} folds", "fold"),
        (r"{P} checks", "check"),
        (rf"{{P}} calls \[{_A}\]", "call"),
        (rf"{{P}} bets \[{_A}\]", "bet"),
        (rf"{{P}} raises \[{_A}\]", "raise_by"),
        (rf"\*\* Dealing (?:flop|turn|river) \*\* \[ {_C} \]", "board"),
        (r"\*\* Summary \*\*", "none"),
        (rf"{{P}} shows \[ {_C} \]", "show"),
        # the cards a muck states are read as shown: 888 writes "mucks" for a hand that a hand
        # shown before it beats, and still pays it the side pot it wins (tournament 78669312,
        # game 775396118: ``SYSTEM3RROR mucks [ Td, 9d ]``, beaten by the main pot's two pair,
        # collects the side pot his tens win); a mucked loser loses either way
        (rf"{{P}} mucks \[ {_C} \]", "show"),
        (r"{P} did not show his hand", "muck"),
        (rf"{{P}} collected \[ {_A} \]", "collect"),
    ),
    ends=re.compile(r"^\*\* Summary \*\*$"),
    start_pairs=True,
    states_uncalled=False,
    walk_pays_blind=True,
)


def read(text: str, source: str) -> PhhFile:
    """The hands of an 888poker / Pacific Poker text export."""
    return read_site(text, source, SITE)
