"""GGPoker's text export (``Poker Hand #TM...``, ``#HD...``, ``#RC...``), read by
``sim.histories.sites.plain``.

The shape is PokerStars' with GGPoker's own lines: players are anonymised to hashes
(``e15d8ef6``; only ``Hero`` keeps a name), every seat gets a ``Dealt to NAME`` line (cards only
for the hero), the header names the tournament (``Tournament #25313426, ... Hold'em No Limit -
Level14(300/600)``) or the cash stakes (``Hold'em No Limit ($0.01/$0.02)``), and the summary's
``Total pot 28,315 | Rake 0 | Jackpot 0 | Bingo 0 | Fortune 0 | Tax 0``: every amount after the
pot is kept by the site (rake and fees) and read as the hand's rake. Lines GGPoker writes whose
chips this reader does not follow exactly are named skips: a Cash Drop (the site adds money to
the pot), an all-in cash-out (``Pays Cashout Risk``, ``Receives Cashout``), insurance, a board run
twice, a straddle; other games (Omaha, short deck) are "unsupported variant".
"""

from __future__ import annotations

import datetime as _dt
import re

from sim.histories.read.phh import PhhFile
from sim.histories.sites.plain import AMT, CARDS, Header, Site, Skip, amount, read_site

__all__ = ["DETECT", "read"]

DETECT = re.compile(r"Poker Hand #[A-Z]{0,3}[0-9]+: ")

_A = rf"(?P<amount>{AMT})"
_NUM = r"[$€£]?[0-9][0-9.,]*"
_GAME = (r"(?P<game>(?:Hold'em|Omaha[0-9]?(?: Hi/Lo| Hi-Lo)?|PLO[0-9-]*|Short ?Deck(?: Hold'em)?|"
         r"6\+ Hold'em) (?:No Limit|Pot Limit|Fixed Limit|Limit))")
_HEAD = re.compile(
    r"Poker Hand #(?P<hand>[A-Z]{0,3}[0-9]+): "
    r"(?:Tournament #(?P<tid>[0-9]+), (?P<tname>.{0,120}?) )?" + _GAME
    + rf"\s*(?:\((?P<sb>{_NUM})/(?P<bb>{_NUM})\))?\s+-\s+"
    r"(?:Level ?(?P<level>[0-9]+) ?\([0-9,.]+/[0-9,.]+(?:\([0-9,.]+\))?\)\s+-\s+)?"
    r"(?P<when>[0-9]{4}/[0-9]{2}/[0-9]{2} [0-9]{1,2}:[0-9]{2}:[0-9]{2})(?: (?P<zone>[A-Z]{2,4}))?")
_TABLE = re.compile(r"Table '(?P<table>[^']{1,80})' (?P<max>[0-9]{1,2})-max "
                    r"Seat #(?P<button>[0-9]{1,2}) is the button")


def _header(lines: list[str]) -> Header:
    m = _HEAD.fullmatch(lines[0])
    if m is None:
        raise Skip(f"unrecognised line: the header {lines[0][:120]!r}")
    game = m["game"].strip()
    if not re.fullmatch(r"Hold'em (?:No Limit|Pot Limit|Limit|Fixed Limit)", game):
        raise Skip(f"unsupported variant: not hold'em ({game!r})"
                   if "Hold'em" not in game or re.search(r"Short|6\+", game)
                   else f"unsupported variant: the header names no betting structure ({game!r})")
    variant = {"No Limit": "NT", "Pot Limit": "PT"}.get(game[8:], "FT")
    t = _TABLE.fullmatch(lines[1]) if len(lines) > 1 else None
    if t is None:
        raise Skip("unrecognised line: expected the table line after the header")
    stakes = None
    if m["sb"] is not None:
        stakes = (amount(m["sb"]), amount(m["bb"]))
    currency = "USD" if m["sb"] and m["sb"].startswith("$") else None
    return Header(
        hand=m["hand"], variant=variant, stakes=stakes, bets_are_blinds=True,
        tournament=m["tid"], level=int(m["level"]) if m["level"] else None,
        table=t["table"] if not m["tid"] else f"{m['tid']} {t['table']}",
        seat_count=int(t["max"]), button=int(t["button"]),
        when=_dt.datetime.strptime(m["when"], "%Y/%m/%d %H:%M:%S"), zone=m["zone"],
        currency=currency, lines=2)


_WHY = ("a Cash Drop (the site adds money to the pot)", "an all-in cash-out",
        "insurance", "a straddle", "a board run twice")
SITE = Site(
    name="ggpoker", venue="GGPoker",
    starts=re.compile(r"Poker Hand #"),
    header=_header,
    seat=re.compile(rf"Seat (?P<seat>[0-9]{{1,2}}): (?P<player>.{{1,40}}) \((?P<stack>{AMT}) in "
                    rf"chips(?:, {AMT} bounty)?\)(?: is sitting out)?"),
    rules=(
        (rf"{{P}}: posts the ante {_A}", "ante"),
        (rf"{{P}}: posts small blind {_A}", "sb"),
        (rf"{{P}}: posts big blind {_A}", "bb"),
        (r"\*\*\* HOLE CARDS \*\*\*", "deal"),
        (rf"Dealt to {{P}}(?: \[(?P<cards>{CARDS})\])?", "hole"),
        (r"{P}: folds", "fold"),
        (r"{P}: checks", "check"),
        (rf"{{P}}: calls {_A}(?: and is all-in)?", "call"),
        (rf"{{P}}: bets {_A}(?: and is all-in)?", "bet"),
        (rf"{{P}}: raises {AMT} to {_A}(?: and is all-in)?", "raise_to"),
        (rf"\*\*\* FLOP \*\*\* \[(?P<cards>{CARDS})\]", "board"),
        (rf"\*\*\* (?:TURN|RIVER) \*\*\* \[(?P<old>{CARDS})\] \[(?P<cards>{CARDS})\]", "board"),
        (rf"{{P}}: shows \[(?P<cards>{CARDS})\](?: \(.{{0,80}}\))?", "show"),
        (r"{P}: (?:mucks hand|doesn't show hand)", "muck"),
        (rf"Uncalled bet \({_A}\) returned to {{P}}", "uncalled"),
        (r"\*\*\* SHOWDOWN \*\*\*|\*\*\* SUMMARY \*\*\*", "none"),
        (rf"{{P}} collected {_A} from (?:the )?(?:main |side )?pot(?:-?[0-9]{{1,2}})?", "collect"),
        (rf"Total pot {_A}(?: Main pot {AMT}\.)?(?: Side pot(?:-[0-9]{{1,2}})? {AMT}\.){{0,9}}"
         rf"(?: \| Rake (?P<rake>{AMT}))?(?: \| Jackpot (?P<jackpot>{AMT}))?"
         rf"(?: \| Bingo (?P<bingo>{AMT}))?(?: \| Fortune (?P<fortune>{AMT}))?"
         rf"(?: \| Tax (?P<tax>{AMT}))?", "total"),
        (rf"Board \[{CARDS}\]", "none"),  # the board restated (checked by the streets)
        (rf"Seat [0-9]{{1,2}}: {{P}}(?: \((?:button|small blind|big blind)\))* "
         rf"(?:showed \[{CARDS}\] and )?(?:won|collected) \({_A}\)(?: with .{{0,80}})?", "won"),
        (rf"Seat [0-9]{{1,2}}: {{P}}(?: \((?:button|small blind|big blind)\))* "
         rf"(?:folded (?:before Flop|on the (?:Flop|Turn|River))(?: \(didn't bet\))?|"
         rf"showed \[{CARDS}\] and lost(?: with .{{0,80}})?|mucked(?: \[{CARDS}\])?|lost)",
         "none"),
    ),
    ends=re.compile(r"^\*\*\* SUMMARY \*\*\*$"),
    skip_rules=(
        (re.compile(r"^Cash Drop to Pot"), _WHY[0]),
        (re.compile(r"Cashout|Cash Out|cashed out", re.I), _WHY[1]),
        (re.compile(r"[Ii]nsurance"), _WHY[2]),
        (re.compile(r": straddle "), _WHY[3]),
        (re.compile(r"^\*\*\* (?:FIRST|SECOND|THIRD) (?:FLOP|TURN|RIVER) \*\*\*"), _WHY[4]),
    ),
)


def read(text: str, source: str) -> PhhFile:
    """The hands of a GGPoker text export."""
    return read_site(text, source, SITE)
