"""The line shapes of the sites' text hand histories: every line of a hand is known or the hand
is skipped.

``screen(site, text)`` classifies each line of one hand of a site's export
(``sim.histories.sites.text``)
BEFORE PokerKit's parser sees it:

- a FACT line (``FACTS[site]``): a shape the parser or ``sim.histories.sites.text`` reads (header,
  seats, posts, actions, cards, pots, summary). Kept;
- a HARMLESS line (``HARMLESS[site]``): a table event that moves no chip and that the parser
  ignores (chat, a player joining, leaving, sitting out, disconnected, timing out). Dropped, so
  its length and content never reach the parser's patterns;
- anything else is UNRECOGNISED: the hand is skipped ("unrecognised line", with how many and
  the first one). A line the importer does not understand may move chips (a rebuy, a cash-out,
  a cancelled hand): silently ignoring it would certify a hand the record does not describe.

Every shape is anchored (``fullmatch``) and its variable parts are bounded (a name at most
``NAME_CHARS`` characters, an amount, cards, a bounded free text), so classifying a line costs
a bounded number of steps whatever it holds; a FACT line is at most ``FACT_LINE_CHARS``
characters (an unrecognised line of any length costs no more). The parser's own unanchored
patterns (``(?P<player>.+) folds``: quadratic in a line's length) thus only ever see known,
short lines. Shapes come from the sites' exports (tests/fixtures/sitetext, written in their real
shape) and the sites' documented table events.
"""

from __future__ import annotations

import re
from re import Pattern

from audits.runfolder.errors import InputError

__all__ = ["FACTS", "FACT_LINE_CHARS", "HARMLESS", "NAME_CHARS", "Unrecognised", "screen"]

NAME_CHARS = 40  # a player name: the sites allow 12 to 20 characters
FACT_LINE_CHARS = 300  # a known line that carries facts is never longer

_N = rf".{{1,{NAME_CHARS}}}?"  # a name (lazy, bounded: at most NAME_CHARS tries)
_A = r"[$€£]?[0-9][0-9,]{0,15}(?:\.[0-9]{1,6})?"  # an amount
_C = r"\[[2-9TJQKAcdhsX ,]{0,30}\]"  # cards
_T = r"[^\[\]]{0,100}"  # a hand's description ("two pair, Aces and Fours")
_SEAT = r"[0-9]{1,2}"
_STREETS = r"\*\*\* [A-Z ]{3,20} \*\*\*(?: \[[^\]]{0,40}\]){0,2}"


def _any(*shapes: str) -> Pattern[str]:
    return re.compile("|".join(f"(?:{s})" for s in shapes))


FACTS: dict[str, Pattern[str]] = {
    "pokerstars": _any(
        r"\ufeff?PokerStars (?:Zoom |Home Game )?(?:Hand|Game) #[0-9]+: .{0,200}",
        rf"Table '.{{1,80}}'(?: {_SEAT}-max)?(?: \(Play Money\))? Seat #{_SEAT} is the button",
        rf"Seat {_SEAT}: {_N} \({_A} in chips(?:, {_A} bounty)?\)(?: is sitting out)?",
        rf"{_N}: posts (?:small blind|big blind|the ante|small & big blinds) {_A}"
        r"(?: and is all-in)?",
        rf"{_N}: (?:folds|checks|mucks hand|doesn't show hand)",
        rf"{_N}: folds {_C}",  # folds and shows cards (no chip moves)
        rf"{_N}: (?:calls|bets) {_A}(?: and is all-in)?",
        rf"{_N}: raises {_A} to {_A}(?: and is all-in)?",
        rf"{_N}: shows {_C}(?: \({_T}\))?",
        _STREETS,
        rf"Dealt to {_N} {_C}",
        rf"Uncalled bet \({_A}\) returned to {_N}",
        rf"{_N} collected {_A} from (?:the )?(?:main |side )?pot(?:-[0-9]{{1,2}})?",
        rf"Total pot {_A}(?: Main pot {_A}\.)?(?: Side pot(?:-[0-9]{{1,2}})? {_A}\.){{0,9}}"
        rf"(?: \| Rake {_A})?",
        rf"Board {_C}",
        rf"Seat {_SEAT}: .{{1,200}}",  # the summary's seat lines (a restatement)
    ),
    "fulltilt": _any(
        r"\ufeff?Full ?Tilt ?Poker(?:\.fr)? (?:Game|Hand) #[0-9]+: .{0,200}",
        rf"Seat {_SEAT}: {_N} \({_A}\)(?:, is sitting out)?",
        rf"{_N} posts (?:the small blind|the big blind|a dead (?:small |big )?blind) of {_A}",
        rf"{_N} antes {_A}",
        rf"{_N} posts {_A}",  # a post to enter: a live big blind (text.py)
        rf"The button is in seat #{_SEAT}",
        _STREETS,  # 2013-14: the pot after the street's cards, a restatement
        rf"{_STREETS} \(Total Pot: {_A}, [0-9]{{1,2}} Players(?:, [0-9]{{1,2}} All-In)?\)",
        rf"Dealt to {_N} {_C}",
        rf"{_N} (?:folds|checks|mucks)",
        rf"{_N} (?:calls|bets|raises to) {_A}(?:,? and is all in)?",
        rf"{_N} shows {_C}(?: {_T})?",
        rf"{_N} (?:wins|ties for) (?:the )?(?:main |side )?pot(?: #?[0-9]{{1,2}})? \({_A}\)"
        rf"(?: with {_T})?",
        rf"Uncalled bet of {_A} returned to {_N}",
        rf"Total pot {_A}(?: Main pot {_A}\.?)?(?: Side pot(?: [0-9]{{1,2}})? {_A}\.?){{0,9}}"
        rf"(?: \| Rake {_A})?",
        rf"Board: {_C}",
        rf"Seat {_SEAT}: .{{1,200}}",
    ),
    "absolute": _any(
        r"\ufeff?Stage #[A-Z]?[0-9]+: .{0,200}",
        rf"Table: .{{1,80}} Seat #{_SEAT} is the (?:dead )?dealer",
        rf"Seat {_SEAT} - {_N} \({_A} in chips\)(?: .{{0,40}})?",
        rf"{_N} - Posts (?:small blind|big blind|dead) {_A}",
        rf"{_N} - Posts {_A} dead {_A}",
        rf"{_N} - Ante {_A}",
        rf"{_N} - (?:Checks|Folds|Mucks|Does not show)",
        rf"{_N} - (?:Calls|Bets) {_A}",
        rf"{_N} - (?:Raises|All-In\(Raise\)) {_A} to {_A}",
        rf"{_N} - All-In {_A}",
        rf"{_N} - Shows {_C}(?: \({_T}\))?",
        rf"{_N} - returned \({_A}\) : not called",
        _STREETS,
        rf"Dealt to {_N} {_C}",
        rf"{_N} Collects {_A} from (?:main|side) pot(?:[ -]?#?[0-9]{{1,2}})?",
        rf"Total Pot\({_A}\)(?: \| (?:Jackpot )?Rake \({_A}\)){{0,2}}",
        rf"Board {_C}",
        rf"Seat {_SEAT}: .{{1,200}}",
    ),
    "ongame": _any(
        r"\ufeff?\*\*\*\*\* (?:History for|End of) hand .{1,60}"
        r"(?: \(TOURNAMENT: .{0,160}\))? \*\*\*\*\*",
        r"Start hand: .{1,80}",
        r"Table: .{1,120}",
        rf"User: {_N}",
        rf"Button: seat {_SEAT}",
        rf"Players in round: {_SEAT}(?: \({_SEAT}\))?",
        rf"Seat {_SEAT}: {_N} \({_A}\)(?:, net: [+-]?{_A}(?:,? {_C})?(?: \({_T}\))?)?",
        rf"{_N} posts (?:small blind|big blind|dead blind|ante) \({_A}\)",
        rf"{_N} posts ante {_A}",
        rf"---(?: Dealing (?:flop|turn|river) {_C})?",
        r"Dealing pocket cards",
        rf"Dealing to {_N}: {_C}",
        rf"{_N} (?:folds|checks|mucks|doesn't show)",
        rf"{_N} (?:calls|bets) {_A}(?: \[all in\])?",
        rf"{_N} raises {_A} to {_A}(?: \[all in\])?",
        rf"{_N} shows {_C}(?: \({_T}\))?",
        r"Summary:",
        rf"(?:Main|Side) pot(?: [0-9]{{1,2}})?: {_A} won by .{{1,200}}",
        rf"Rake taken: {_A}",
        rf"Board: {_C}",
    ),
    "partypoker": _any(
        r"\ufeff?Game #[0-9]+ starts\.",
        r"#Game No : [0-9]+",
        r"\*\*\*\*\* Hand History [Ff]or Game [0-9]+ \*\*\*\*\*",
        r".{1,40} Texas Hold'em - .{1,100}",
        r"(?:.{1,40} )?Texas Hold'em  ?(?:.{1,40} )?Trny: ?[0-9]{1,12} .{1,140}",  # tournament
        r"Trny: ?[0-9]{1,12} Level: ?[0-9]{1,3}",
        # thousands written with a comma or (2016) a space: ``Blinds-Antes(1 200/2 400 -400)``
        r"Blinds(?:-Antes)?\([0-9][0-9, ]{0,12}/[0-9][0-9, ]{0,12}(?: -[0-9][0-9, ]{0,12})?\)",
        r"Table .{1,80} \( ?(?:Real|Play) Money ?\)",
        rf"Seat {_SEAT} is the button",
        rf"Total number of players : {_SEAT}(?:/{_SEAT})?",
        rf"Seat {_SEAT}: {_N} \( {_A}(?: [A-Z]{{3}})? \)",
        rf"{_N} posts (?:small blind|big blind|big blind \+ dead|ante) \[{_A}(?: [A-Z]{{3}})?\]"
        r"\.?",
        rf"\*\* Dealing (?:down cards|Flop|Turn|River) \*\*(?: {_C})?",
        rf"Dealt to {_N} {_C}",
        rf"{_N} (?:folds|checks)",
        rf"{_N} (?:calls|bets|raises) \[{_A}(?: [A-Z]{{3}})?\]",
        rf"{_N} is all-In {{1,2}}\[{_A}(?: [A-Z]{{3}})?\]",
        rf"{_N} (?:shows|doesn't show) {_C}{_T}",
        rf"{_N} does not show cards\.",
        rf"{_N} wins {_A}(?: [A-Z]{{3}}| chips)?(?: from the (?:main|side) pot(?: [0-9]{{1,2}})?)?"
        rf"(?: with {_T})?",
    ),
    "ipoker": _any(
        r'<game gamecode="[0-9]{1,20}">',
        r"</?(?:game|general|players|round)>",
        r'<round no="[0-9]{1,3}">',
        r"<startdate>[0-9A-Za-z:/ .-]{8,30}</startdate>",
        rf'<player seat="{_SEAT}" name="[^"]{{1,{NAME_CHARS}}}"(?: [a-z_]{{1,16}}="[^"]{{0,30}}")'
        r"{0,16} ?/>",
        rf'<action no="[0-9]{{1,4}}" player="[^"]{{1,{NAME_CHARS}}}"'
        r'(?: [a-z_]{1,16}="[^"]{0,30}"){0,8} ?/>',
        rf'<cards type="[A-Za-z]{{1,12}}"(?: player="[^"]{{0,{NAME_CHARS}}}")?>'
        r"[0-9A-Za-z ]{0,30}</cards>",
    ),
}

HARMLESS: dict[str, Pattern[str]] = {
    "pokerstars": _any(
        rf'{_N} said, ".*"',
        rf"{_N}:? (?:is sitting out|sits out|is away|has returned|is disconnected|is connected"
        r"|has timed out(?: while disconnected| while being disconnected)?|leaves the table"
        rf"|joins the table at seat #{_SEAT}|will be allowed to play after the button"
        r"|was removed from the table for failing to post)",
        # a tournament's events: no chip of this hand's pots (a re-buy's chips start the next
        # hand: its starting stack, which the sessions carry as a rebuy)
        rf"{_N} finished the tournament(?: in [0-9]{{1,6}}(?:st|nd|rd|th) place)?"
        rf"(?: and received {_A}\.?)?",
        rf"{_N} re-buys and receives [0-9,]{{1,12}} chips for {_A}(?: StarsCoin)?",
        rf"{_N} takes the add-on and receives [0-9,]{{1,12}} chips for {_A}(?: StarsCoin)?",
        rf"{_N} wins (?:the|an?) {_A} bounty for eliminating {_N}",
        rf"{_N} wins the tournament and receives {_A} - congratulations!",
        r"Betting is capped",  # fixed limit: the street's raises are capped (a fact the
        # replay checks from the actions; the line moves no chip)
    ),
    "fulltilt": _any(
        rf"(?!\*\*\* ){_N}: .*",  # chat (never a street line)
        rf"{_N} (?:is sitting out|stands up|sits down|has reconnected|has been disconnected"
        r"|has timed out|has returned|is feeling .{0,40}|has [0-9]{1,3} seconds left to act"
        r"|has requested TIME|seconds left to act)",
        # a top-up for the next hand (its starting stack: the sessions' rebuy)
        rf"{_N} adds {_A}",
        # an all-in's hand named on the river, its cards shown on an earlier line
        rf"{_N} shows (?:a pair|two pair|three of a kind|a straight|a flush|a full house"
        r"|four of a kind|a straight flush|a royal flush|high card)\b[\w ,-]{0,60}",
    ),
    "absolute": _any(
        rf"{_N} - (?:Sits Out|Sitting Out|Returned|Time has expired|Disconnected"
        r"|sitout \(wait for BB\))",
        rf"{_N}: .*",
    ),
    "ongame": _any(
        rf"{_N} (?:is sitting out|sits out|has joined the table|has left the table"
        r"|is disconnected|is connected|timed out)",
    ),
    "partypoker": _any(
        rf"{_N}: .*",  # chat
        rf"{_N} (?:has joined the table|has left the table|is sitting out|is disconnected"
        r"|is connected|will be using (?:his|her|their) time bank for this hand"
        r"|did not respond in time|could not respond in time\.?(?:\(disconnected\))?)\.?",
        r"Your time bank will be activated in [0-9]{1,3} secs\..{0,100}",
        rf"{_N} has [0-9]{{1,3}} seconds left to act\.?",
        # a tournament's finishing place (no chip of this hand's pots)
        rf"Player {_N} finished in [0-9]{{1,6}}(?: [0-9]{{1,6}})?\.?",
    ),
    "ipoker": _any(
        r"<!--.{0,200}-->",
        r"<servername>[A-Za-z0-9.-]{1,80}</servername>",
        # an empty seat (a tournament's dead button: the player knocked out), no chip
        rf'<player seat="{_SEAT}" name="" chips="\D?0(?:\.0+)?" dealer="[01]"'
        r' win="\D?0(?:\.0+)?" bet="\D?0(?:\.0+)?" ?/>',
    ),
}


class Unrecognised(InputError):
    """A hand with lines no shape of its site knows: how many and the first."""


def screen(site: str, text: str) -> str:
    """The hand's text with its harmless lines removed (blank lines kept, empty); Unrecognised
    when a line is neither a fact nor harmless (the message counts them and quotes the first)."""
    facts = FACTS[site].fullmatch
    harmless = HARMLESS[site].fullmatch
    kept: list[str] = []
    bad = 0
    first = ""
    for no, line in enumerate(text.split("\n"), 1):
        probe = line.strip()
        if not probe:
            kept.append("")  # blank (spaces dropped: the parser never scans them)
        elif len(probe) <= FACT_LINE_CHARS and facts(probe) is not None:
            kept.append(line)
        elif harmless(probe) is None:
            bad += 1
            if not first:
                first = f"line {no} of the hand: {probe[:80]!r}" + (
                    f" ({len(probe):,} characters)" if len(probe) > 80 else "")
    if bad:
        raise Unrecognised(f"unrecognised line{'s' if bad > 1 else ''}: {bad} line"
                           f"{'s' if bad > 1 else ''} no {site} shape knows (first, {first})")
    return "\n".join(kept)
