"""The Winning Poker Network's current text export (Americas Cardroom: ``Game Hand #N -
Tournament #N - Holdem(No Limit) - Level 8 (2000.00/4000.00)- 2021/02/25 22:07:46 UTC``), read
by ``sim.histories.sites.plain``; format ``wpn`` with the older ``Game started at:`` style
(``sim.histories.sites.wpn``).

PokerStars-like without colons after the names: ``X posts ante 400.00``, the blinds posted after
``*** HOLE CARDS ***`` (``posts the small blind``), ``raises 52615.00 to 54615.00`` (the street
total), ``Main pot N`` / ``Side pot(1) N`` after each street (a running total: no fact of its
own), ``collected N from main pot`` / ``side pot-1``; an uncontested winner has no collected
line, only the summary's ``did not show and won N`` (the pot after his uncalled bet came back),
which is then the payment; in a walk the big blind's ``won 9600.00`` and ``Total pot 9600.00``
hold his own uncalled 2,000 (as at 888), taken out of both. A seat ``will be allowed to play
after the button`` is not in the hand.

The 2026 style (NiCrook/PokerVector's ACR samples) writes ``Holdem (No Limit)`` with a space, a
cash hand's header without ``Game``: ``Hand #2651603487 - Holdem (No Limit) - $0.01/$0.02 -
2026/01/22 11:29:18 UTC`` (``, Ante $0.01`` after the stakes at an ante table) and its table line
without ``Table '...'``: ``McCook 9-max Seat #8 is the button``; the running ``Main pot $0.21 |
Rake $0.01`` lines state no fact; the summary's ``Total pot $3.87 | Rake $0.14 | JP Fee $0.06``
is the pot after the site kept 0.20 (rake and the jackpot fee; 4.07 was put in); a player who
folded may show (``X shows [Qc 2c]``, ``showed [Qc 2c] and folded on the Pre-Flop``); a
``BombPot`` (every player antes, no blinds, no pre-flop betting: a game the engine does not
play) is a named skip.
"""

from __future__ import annotations

import datetime as _dt
import re

from sim.histories.sites.plain import AMT, CARDS, Header, Site, Skip, amount

__all__ = ["DETECT", "SITE"]

DETECT = re.compile(r"(?:Game )?Hand #[0-9]+ - ")

_A = rf"(?P<amount>{AMT})"
_NUM = r"[$€]?[0-9][0-9.,]*"
_HEAD = re.compile(
    r"(?:Game )?Hand #(?P<hand>[0-9]{1,20}) - (?:Tournament #(?P<tid>[0-9]{1,20}) - )?"
    r"(?P<game>[A-Za-z0-9'/ ]{1,20}?) ?\((?P<limit>[A-Za-z ]{1,20})\) - "
    rf"(?:Level (?P<level>[0-9]{{1,3}}) \((?P<lsb>{_NUM})/(?P<lbb>{_NUM})\) ?- ?|"
    rf"(?P<sb>{_NUM})/(?P<bb>{_NUM})(?:, Ante (?P<ante>{_NUM}))? ?- ?)?"
    r"(?P<when>[0-9]{4}/[0-9]{2}/[0-9]{2} [0-9]{1,2}:[0-9]{2}:[0-9]{2})(?: (?P<zone>[A-Z]{2,4}))?")
_TABLE = re.compile(r"(?:Table '(?P<table>[^']{1,80})'|(?P<name>[^']{1,80}?)) "
                    r"(?P<max>[0-9]{1,2})-max Seat #(?P<button>[0-9]{1,2}) is the button")


def _header(lines: list[str]) -> Header:
    m = _HEAD.fullmatch(lines[0])
    if m is None:
        raise Skip(f"unrecognised line: the header {lines[0][:120]!r}")
    if m["game"] != "Holdem":
        raise Skip(f"unsupported variant: not hold'em ({m['game']!r})")
    variant = {"No Limit": "NT", "Pot Limit": "PT", "Fix Limit": "FT", "Limit": "FT",
               "Fixed Limit": "FT"}.get(m["limit"])
    if variant is None:
        raise Skip(f"unsupported variant: the header names no betting structure "
                   f"({m['limit']!r})")
    t = _TABLE.fullmatch(lines[1]) if len(lines) > 1 else None
    if t is None:
        raise Skip("unrecognised line: expected the table line after the header")
    sb, bb = (m["lsb"], m["lbb"]) if m["level"] else (m["sb"], m["bb"])
    return Header(
        hand=m["hand"], variant=variant,
        stakes=(amount(sb), amount(bb)) if sb and bb else None, bets_are_blinds=True,
        tournament=m["tid"], level=int(m["level"]) if m["level"] else None,
        table=(t["table"] or t["name"]) if not m["tid"] else
        f"{m['tid']} {t['table'] or t['name']}",
        seat_count=int(t["max"]), button=int(t["button"]),
        when=_dt.datetime.strptime(m["when"], "%Y/%m/%d %H:%M:%S"), zone=m["zone"],
        currency="USD" if bb and bb.startswith("$") and not m["tid"] else None, lines=2)


_POS = r"(?: \((?:button|small blind|big blind)\))*"
SITE = Site(
    name="wpn", venue="Winning Poker Network",
    starts=DETECT,
    header=_header,
    seat=re.compile(rf"Seat (?P<seat>[0-9]{{1,2}}): (?P<player>.{{1,40}}) \((?P<stack>{AMT})\)"
                    r"(?: is sitting out)?"),
    rules=(
        (r"Seat [0-9]{1,2}: .{1,40} will be allowed to play after the button", "none"),
        (rf"{{P}} posts ante {_A}(?: and is all-in)?", "ante"),
        (r"\*\*\* HOLE CARDS \*\*\*", "none"),
        # a running total
        (rf"(?:Main pot|Side pot\([0-9]{{1,2}}\)) {AMT}(?: \| Rake {AMT})?", "none"),
        (rf"{{P}} posts the small blind {_A}(?: and is all-in)?", "sb"),
        (rf"{{P}} posts the big blind {_A}(?: and is all-in)?", "bb"),
        (rf"Dealt to {{P}} \[(?P<cards>{CARDS})\]", "hole"),
        (r"{P} folds", "fold"),
        (r"{P} checks", "check"),
        (rf"{{P}} calls {_A}(?: and is all-in)?", "call"),
        (rf"{{P}} bets {_A}(?: and is all-in)?", "bet"),
        (rf"{{P}} raises {AMT} to {_A}(?: and is all-in)?", "raise_to"),
        (rf"\*\*\* FLOP \*\*\* \[(?P<cards>{CARDS})\]", "board"),
        (rf"\*\*\* (?:TURN|RIVER) \*\*\* \[(?P<old>{CARDS})\] \[(?P<cards>{CARDS})\]", "board"),
        (r"\*\*\* SHOW DOWN \*\*\*|\*\*\* SUMMARY \*\*\*", "none"),
        (rf"Uncalled bet \({_A}\) returned to {{P}}", "uncalled"),
        (rf"{{P}} shows \[(?P<cards>{CARDS})\](?: \(.{{0,120}}\))?", "show"),
        (r"{P} does not show", "muck"),
        (rf"{{P}} collected {_A} from (?:main pot|side pot-[0-9]{{1,2}})", "collect"),
        # the pot AFTER the site's take (as WPN's ``Pot: 7.85. Rake 0.15``): ACR 2651601073's
        # ``Total pot $3.87 | Rake $0.14 | JP Fee $0.06`` is the 3.87 its winner collects of
        # the 4.07 put in
        (rf"Total pot {_A}(?P<after>)(?: \| Rake (?P<rake>{AMT}))?(?: \| JP Fee (?P<jp>{AMT}))?",
         "total"),
        (rf"Board \[{CARDS}\]", "none"),
        (rf"Seat [0-9]{{1,2}}: {{P}}{_POS} (?:did not show|showed \[{CARDS}\]) and won {_A}"
         r"(?: with .{0,120})?", "won"),
        (rf"Seat [0-9]{{1,2}}: {{P}}{_POS} (?:folded on the (?:Pre-Flop|Flop|Turn|River)"
         rf"(?: and did not bet)?|showed \[{CARDS}\] and (?:lost with .{{0,120}}|folded on the "
         r"(?:Pre-Flop|Flop|Turn|River)(?: and did not bet)?))", "none"),
    ),
    skip_rules=((re.compile(r"^BombPot$"), "bomb pot (every player antes, no blinds, no "
                 "pre-flop betting)"),),
    ends=re.compile(r"^\*\*\* SUMMARY \*\*\*$"),
    walk_pays_blind=True,
)
