"""Read hand histories whatever their format: PHH/PHHS and the sites' own text exports.

``read_history(path)`` returns a ``sim.histories.read.phh.PhhFile`` (hands as ``PhhHand``, skipped
hands with a named reason) for a ``.phh``/``.phhs`` file (``sim.histories.read.phh.read_phh``) or a
site's export: PokerStars, Full Tilt, iPoker (XML), Ongame, PartyPoker, Absolute; and GGPoker,
888poker, Winamax, WPN and Cake, which PokerKit has no parser of, by this project's own line
reader (``sim.histories.sites.readers``, ``sim.histories.sites.plain``). The format is
detected from the CONTENT (``detect_format``), never the file name. ``iter_history_paths`` lists the
files of paths and folders.

Site text is read hand by hand: the file is split at each hand's first line; every line of a
hand must have a known shape of its site (``sim.histories.sites.lines``: a fact line, or a harmless
table event such as chat, which is dropped), else the hand is skipped ("unrecognised line": a line
the importer does not understand may move chips); then the hand goes through PokerKit's parser
of its site (``pokerkit.notation``, the pinned version: its text stages
only, not its state replay) and then ``sim.histories.read.phh``'s validation, so every amount is
exact (PokerKit reads amounts from the text as ``int``/``Decimal``; no float) and bounded as in a
PHH file. A hand that cannot be read is a ``PhhSkip`` with its reason and the rest of the file is
read; an unknown format, an empty or binary file is one skip for the file. The encoding is
detected from the bytes (``sim.histories.sources.decode_text``: UTF-8 with or without a byte order
mark, UTF-16 of either byte order with or without one, Windows-1252); a PHH file must be UTF-8.

What PokerKit drops and this module reads from the text itself:
- the OUTCOME: each player's ``winnings`` (the lines that pay a pot), the ``total_pot`` and the
  ``rake`` (``PhhHand.total_pot``/``rake``; None when the text has no such line);
- dead and missed blinds (PokerStars ``posts small & big blinds``, Full Tilt ``posts a dead
  small blind``, Absolute ``Posts $1 dead $0.50``, Ongame ``posts dead blind``, PartyPoker
  ``posts big blind + dead``): a negative ``blinds_or_straddles`` entry (the live part, a big
  blind, plus the dead part: ``-(live + dead)``, see docs/import.md);
- showdown players whose cards are not in the text: ``pN sm ????``;
- table names with spaces (Full Tilt, Ongame), seat lines at the end of a line (Ongame), names
  with spaces in PartyPoker's pot lines, iPoker's actions out of order in the XML, its all-in
  action and its card notation (``SA H10``).

``winnings`` of a text hand is, for every site, what the site says it paid the player from the
pot(s): after the rake, WITHOUT the player's own uncalled bet returned. PartyPoker's ``wins $X``
and iPoker's ``win="$X"`` include the uncalled bet: it is subtracted (PartyPoker: the uncalled
bet computed from the actions, ``pot_contributions``; iPoker: from the players' ``bet``
attributes). So for every text hand: sum of contributions = ``total_pot`` = sum of
``winnings`` + ``rake`` when the site states them. iPoker states no pot or rake line: there
``total_pot`` = the sum of the ``bet`` attributes minus the uncalled bet and ``rake`` =
``total_pot`` minus the winnings. PartyPoker states neither: both None. Ongame also states each
player's finishing stack (``finishing_stacks``).
"""

from __future__ import annotations

import hashlib
import re
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from operator import add as _add
from pathlib import Path
from re import Match, Pattern
from typing import Any, cast
from xml.etree import ElementTree

from pokerkit.notation import (
    AbsolutePokerParser,
    FullTiltPokerParser,
    IPokerNetworkParser,
    OngameNetworkParser,
    PartyPokerParser,
    PokerStarsParser,
    REParser,
)
from pokerkit.utilities import Card

from sim.histories.read.phh import (
    PHH_SUFFIXES,
    Number,
    PhhError,
    PhhFile,
    PhhHand,
    PhhSkip,
    hand_from_dict,
    reads_phh,
)
from sim.histories.sites.lines import Unrecognised, screen
from sim.histories.sites.readers import DETECT as OWN_DETECT
from sim.histories.sites.readers import READERS as OWN_READERS
from sim.histories.sites.relines import LineParser
from sim.histories.sites.summary import DETECT as SUMMARY_DETECT
from sim.histories.sites.summary import FORMAT as SUMMARY_FORMAT
from sim.histories.sites.tournament_claims import claims
from sim.histories.sites.tournament_head import buy_in
from sim.histories.sites.tournament_head import level as level_of
from sim.histories.sources import decode_text, iter_paths, read_bytes

__all__ = [
    "FORMATS",
    "HISTORY_SUFFIXES",
    "MAX_HAND_CHARS",
    "MAX_LINE_CHARS",
    "detect_format",
    "iter_history_paths",
    "pot_contributions",
    "read_history",
    "read_history_bytes",
    "reads_history",
]

FORMATS = ("phh", "pokerstars", "fulltilt", "ipoker", "ongame", "partypoker", "absolute",
           *OWN_READERS,  # sim.histories.sites.readers (this project's own readers)
           SUMMARY_FORMAT)  # a PokerStars tournament summary: no hand (sim.histories.sites.summary)
TEXT_SUFFIXES = (".txt", ".xml", ".hh", ".log")
HISTORY_SUFFIXES = PHH_SUFFIXES + TEXT_SUFFIXES  # what a folder listing picks up
MAX_LINE_CHARS = 2_000  # a longer line skips its hand (the site parsers' patterns are per line)
MAX_HAND_CHARS = 256_000  # a longer hand is skipped
_HEAD_CHARS = 65_536  # the start of a file that detection reads

_AMT = r"(?P<amount>[0-9][0-9,]*(?:\.[0-9]+)?)"  # an amount as the sites write it (no sign)


def _amount(text: str) -> Decimal:
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        raise ValueError(f"amount {text!r}: expected a number") from None


# ---------------------------------------------------------------- the sites' parsers (subclassed
# where PokerKit 0.7.7's patterns miss a real line)


_RAISE_TO = re.compile(r": raises \D?[0-9.,]+ to \D?(?P<to>[0-9.,]+)")


class _Stars(PokerStarsParser, LineParser):
    ANTE_POSTING = re.compile(r"(?P<player>.+): posts the ante \D?(?P<ante>[0-9.,]+)")

    def _get_completion_betting_or_raising_to_amount(
            self, bets: Any, player: str, completion_betting_or_raising_amount: int,
            line: str) -> int:
        """``raises $4 to $6``: the raise to 6 (PokerKit adds the first amount to the highest
        bet: the same for the site's own text, but a tracker's re-export writes ``raises $6 to
        $6``, Holdem Manager's, which became a raise to 8)."""
        m = _RAISE_TO.search(line)
        if m is not None:
            return cast(int, _value(m["to"]))
        return super()._get_completion_betting_or_raising_to_amount(
            bets, player, completion_betting_or_raising_amount, line)


_DEALT_TO = re.compile(r"Dealt to (?P<player>.+?) \[(?P<cards>[0-9TJQKAcdhs ]+)\]")


class _FullTilt(FullTiltPokerParser, LineParser):
    HOLE_DEALING = _DEALT_TO
    VARIABLES = FullTiltPokerParser.VARIABLES | {
        "table": (re.compile(r"Table (?P<table>.+?)(?: \(\d+ max\))?(?: \(.*?\))? - "), str),
    }


class _Absolute(AbsolutePokerParser, LineParser):
    HOLE_DEALING = _DEALT_TO


class _Ongame(OngameNetworkParser, LineParser):
    ANTE_POSTING = re.compile(r"(?P<player>.+) posts ante \(?\D?(?P<ante>[0-9.,]+)\)?")
    HOLE_DEALING = re.compile(r"Dealing to (?P<player>.+?): \[(?P<cards>[0-9TJQKAcdhs ,]+)\]")
    SEATS = re.compile(r"Seat (?P<seat>\d+): (?P<player>.+) \(\D?[0-9.,]+\)(?!,)")
    STARTING_STACKS = re.compile(
        r"Seat \d+: (?P<player>.+) \(\D?(?P<starting_stack>[0-9.,]+)\)(?!,)")
    VARIABLES = OngameNetworkParser.VARIABLES | {
        "table": (re.compile(r"Table: (?P<table>.+?) \["), str),
    }
    # the summary's seat lines state every seated player's finishing stack, with ", net: N"
    # only for those who put chips in: PokerKit 0.7.7 reads only the latter, so a player who
    # sat the hand out finished with 0 (read "lost his stack": a false wrong payout)
    PLAYER_VARIABLES = OngameNetworkParser.PLAYER_VARIABLES | {
        "finishing_stacks": (
            re.compile(r"^Seat \d+: (?P<player>.+?) \(\D?(?P<finishing_stacks>[0-9.,]+)\)"
                       r"(?:, net: [+-]?\D?[0-9.,]+)?(?:, \[.*)?$"),
            None, int, _add),
    }

    def _parse_player_variables(self, s: str, parse_value: Callable[[str], Any]) -> Any:
        head, sep, summary = s.partition("\nSummary:\n")
        got = super()._parse_player_variables(head, parse_value)
        got.pop("finishing_stacks", None)
        if sep:
            finishing = super()._parse_player_variables(summary, parse_value)
            if "finishing_stacks" in finishing:
                got["finishing_stacks"] = finishing["finishing_stacks"]
        return got


class _Party(PartyPokerParser, LineParser):
    # tournament amounts are written without a currency ("[400]", "( 9,160 )"): PokerKit
    # 0.7.7's patterns require one and dropped the raise (the screen had let the line through)
    ANTE_POSTING = re.compile(r"(?P<player>.+) posts ante \[\D?(?P<ante>[0-9.,]+)(?: \w+)?\]")
    BLIND_OR_STRADDLE_POSTING = re.compile(
        r"(?P<player>.+) posts (small|big) blind \[\D?(?P<blind_or_straddle>[0-9.,]+)"
        r"(?: \w+)?\]\.?")
    STARTING_STACKS = re.compile(
        r"Seat \d+: (?P<player>.+) \( \D?(?P<starting_stack>[0-9.,]+)(?: \w+)? \)")
    COMPLETION_BETTING_OR_RAISING = re.compile(
        r"(?P<player>.+) (bets|raises|is all-In ) \[\D?(?P<amount>[0-9.,]+)(?: \w+)?\]")
    HOLE_DEALING = re.compile(r"Dealt to (?P<player>.+?) \[(?P<cards>[0-9TJQKAcdhs ,]+)\]")
    VARIABLES = PartyPokerParser.VARIABLES | {
        "seat_count": (re.compile(r"Total number of players : \d+/(?P<seat_count>\d+)"), int),
    }


_IPOKER_CARDS = r"(?P<cards>[0-9TJQKAcdhsCDHS ]+)"


class _IPoker(IPokerNetworkParser, LineParser):
    ANTE_POSTING = re.compile(  # type 15: an ante (PokerKit 0.7.7 reads none: pots came short)
        r'<action\b.*\bplayer="(?P<player>.+?)".*\btype="15".*\bsum="\D?(?P<ante>[0-9.,]+)"'
        r'.*/>')
    HOLE_DEALING = re.compile(
        r'<cards\b.*\btype="Pocket".*\bplayer="(?P<player>.+?)".*>' + _IPOKER_CARDS + "</cards>")
    BOARD_DEALING = re.compile(
        r'<cards\b.*\btype="(Flop|Turn|River)".*>' + _IPOKER_CARDS + "</cards>")
    COMPLETION_BETTING_OR_RAISING = re.compile(
        r'<action\b.*\bplayer="(?P<player>.+?)".*\btype="(5|6|7|23)"'
        r'.*\bsum="\D?(?P<amount>[0-9.,]+)".*/>')

    def _format_cards(self, m: Match[str]) -> str:
        out = []
        for word in m["cards"].split():
            w = word.replace("10", "T")
            if len(w) == 2 and w[0] in "cdhsCDHS":  # suit first (SA, H10)
                w = w[1] + w[0]
            out.append(w[0].upper() + w[1].lower())
        return "".join(map(repr, Card.parse("".join(out))))

    def _parse_final_seat(self, s: str) -> int:
        """The button's seat; 0 (no seat) when no player has ``dealer="1"``: a tournament's dead
        button, on the seat of a player knocked out (the order then comes from the blinds)."""
        try:
            return super()._parse_final_seat(s)
        except ValueError:
            return 0

    def _get_ordered_players(self, s: str, final_seat: int, parsed_blinds_or_straddles: Any,
                             players: list[str], seats: list[int]) -> list[str]:
        """The players from the small blind's seat to the button. PokerKit 0.7.7 takes the two
        seats after the button and then the players in the order of their first action, so a
        tournament hand with a big blind only (the small blind's player was knocked out) lost
        the players after the first who acted (an internal "'Hero' is not in list"). The
        seats' rotation from the button is taken when its first seats are the blinds'
        posters, in the order they posted; else PokerKit's order."""
        if final_seat in seats and len(players) > 2:
            rotation = REParser._get_ordered_players(
                self, s, final_seat, parsed_blinds_or_straddles, players, seats)
            posters = [x for x, v in parsed_blinds_or_straddles.items() if v]
            if posters and rotation[:len(posters)] == posters:
                return rotation
        if not parsed_blinds_or_straddles and final_seat not in seats:
            raise _Skip("no button seat and no blind in the hand")
        return super()._get_ordered_players(
            s, final_seat, parsed_blinds_or_straddles, players, seats)

    def _get_completion_betting_or_raising_to_amount(
            self, bets: Any, player: str, completion_betting_or_raising_amount: int,
            line: str) -> int:
        if 'type="6"' in line or 'type="7"' in line:  # raise by / all-in: the amount added
            return bets[player] + completion_betting_or_raising_amount
        return completion_betting_or_raising_amount


# ---------------------------------------------------------------- outcome lines


@dataclass
class SiteOutcome:
    """What a hand's text says it paid: per player name (as written) and the pot lines."""

    paid: dict[str, Decimal]
    total_pot: Decimal | None = None
    rake: Decimal | None = None
    includes_uncalled: bool = False  # paid includes the player's own uncalled bet
    recorded: bool = True  # False: the text has no line paying a pot
    bets: dict[str, Decimal] | None = None  # iPoker: each player's stated total bet


def _sum_lines(text: str, pattern: Pattern[str]) -> dict[str, Decimal]:
    paid: dict[str, Decimal] = {}
    for m in pattern.finditer(text):
        name = m["player"]
        paid[name] = paid.get(name, Decimal(0)) + _amount(m["amount"])
    return paid


def _first(text: str, pattern: Pattern[str]) -> Decimal | None:
    m = pattern.search(text)
    return None if m is None else _amount(m["amount"])


def _plus(*vals: Decimal | None) -> Decimal | None:
    got = [v for v in vals if v is not None]
    return sum(got, Decimal(0)) if got else None


_PS_COLLECT = re.compile(r"^(?P<player>.+?) collected \D?" + _AMT
                         + r" from (?:the )?(?:main |side )?pot(?:-\d+)?\s*$", re.M)
_PS_SUMMARY = re.compile(r"^Seat \d+: (?P<player>.+?)(?: \((?:button|small blind|big blind)\))*"
                         r" (?:collected|showed \[[^\]]*\] and won) \(\D?" + _AMT + r"\)", re.M)
_TOTAL_POT = re.compile(r"^Total pot \D?" + _AMT, re.M)
_RAKE = re.compile(r"\| Rake \D?" + _AMT)


def _stars_outcome(text: str) -> SiteOutcome:
    paid = _sum_lines(text, _PS_COLLECT) or _sum_lines(text, _PS_SUMMARY)
    return SiteOutcome(paid, _first(text, _TOTAL_POT), _first(text, _RAKE), recorded=bool(paid))


_FT_WINS = re.compile(r"^(?P<player>.+?) (?:wins|ties for) (?:the )?(?:main |side )?pot"
                      r"(?: #?\d+)? \(\D?" + _AMT + r"\)", re.M)


def _fulltilt_outcome(text: str) -> SiteOutcome:
    paid = _sum_lines(text, _FT_WINS)
    return SiteOutcome(paid, _first(text, _TOTAL_POT), _first(text, _RAKE), recorded=bool(paid))


_ABS_COLLECT = re.compile(r"^(?P<player>.+?) Collects \D?" + _AMT
                          + r" from (?:main|side) pot(?:[ -]?#?\d+)?", re.M)
_ABS_TOTAL = re.compile(r"^Total Pot\(\D?" + _AMT + r"\)", re.M)
_ABS_RAKE = re.compile(r"\| Rake \(\D?" + _AMT + r"\)")
_ABS_JACKPOT = re.compile(r"\| Jackpot Rake \(\D?" + _AMT + r"\)")


_ABS_RETURNED = re.compile(r"^.+? - returned \(\D?" + _AMT + r"\) : not called", re.M)


def _absolute_outcome(text: str) -> SiteOutcome:
    """Absolute writes an uncalled bet's return (``X - returned ($6) : not called``), except
    the big blind's in a walk: there ``Collects $6`` includes it (``Total Pot($6)``)."""
    paid = _sum_lines(text, _ABS_COLLECT)
    rake = _plus(_first(text, _ABS_RAKE), _first(text, _ABS_JACKPOT))  # both kept by the site
    return SiteOutcome(paid, _first(text, _ABS_TOTAL), rake, recorded=bool(paid),
                    includes_uncalled=_ABS_RETURNED.search(text) is None)


_ONG_POT = re.compile(r"^(?:Main|Side) pot(?: \d+)?: \D?" + _AMT + r" won by (?P<rest>.+)$",
                      re.M)
_ONG_SHARE = re.compile(r"(?P<player>.+?) \(\D?" + _AMT + r"\)(?:, |$)")
_ONG_RAKE = re.compile(r"^Rake taken: \D?" + _AMT, re.M)


def _ongame_outcome(text: str) -> SiteOutcome:
    paid: dict[str, Decimal] = {}
    pots: list[Decimal] = []
    for m in _ONG_POT.finditer(text):
        pots.append(_amount(m["amount"]))
        for s in _ONG_SHARE.finditer(m["rest"]):
            paid[s["player"]] = paid.get(s["player"], Decimal(0)) + _amount(s["amount"])
    total = sum(pots, Decimal(0)) if pots else None
    return SiteOutcome(paid, total, _first(text, _ONG_RAKE), recorded=bool(paid))


_PTY_WINS = re.compile(r"^(?P<player>.+?) wins \D?" + _AMT, re.M)


def _party_outcome(text: str) -> SiteOutcome:
    paid = _sum_lines(text, _PTY_WINS)
    return SiteOutcome(paid, None, None, includes_uncalled=True, recorded=bool(paid))


_IPN_PLAYER = re.compile(r'<player\b.*\bname="(?P<player>.+?)".*\bwin="\D?(?P<win>[0-9.,]+)"'
                         r'.*\bbet="\D?(?P<bet>[0-9.,]+)"')


def _ipoker_outcome(text: str) -> SiteOutcome:
    paid: dict[str, Decimal] = {}
    bets: dict[str, Decimal] = {}
    for line in text.splitlines():
        m = _IPN_PLAYER.search(line)
        if m is not None:
            paid[m["player"]] = _amount(m["win"])
            bets[m["player"]] = _amount(m["bet"])
    if not paid:
        return SiteOutcome({}, recorded=False)
    # win="..." includes the top bettor's uncalled excess: subtracted in ``with_outcome``,
    # from the actions (a post of a big blind and a dead small one, type 2 sum="$0.06" at
    # 0.02/0.04, is 0.04 live: its dead 0.02 calls nothing; the bet attributes' difference
    # made the uncalled 0.10, not 0.12, and the payout 0.02 above the rules')
    return SiteOutcome(paid, includes_uncalled=True, bets=bets)


# ---------------------------------------------------------------- dead and missed blinds


@dataclass(frozen=True)
class _Post:
    """A post PokerKit does not read: ``pattern`` (groups player and amount, or live and dead);
    ``live_bb``: the amount is a big blind plus dead money (the rest); else dead only unless a
    ``live`` group is present."""

    pattern: Pattern[str]
    live_bb: bool = False


@dataclass(frozen=True)
class _Site:
    name: str
    venue: str
    parser: type[LineParser]
    starts: Pattern[str]  # a line that starts a hand
    header: Pattern[str]  # a line of a hand's header (several may precede its first line)
    ends: str  # a hand without this text is truncated
    outcome: Callable[[str], SiteOutcome]
    posts: tuple[_Post, ...]
    blind_line: Callable[[str, str], str]  # a live big blind post PokerKit reads: (name, amount)
    cards_at_showdown: bool = False  # known dealt cards of a showdown player are shown


_SITES = {
    "pokerstars": _Site(
        "pokerstars", "PokerStars", _Stars,
        re.compile(r"PokerStars (?:Zoom |Home Game )?(?:Hand|Game) #"), re.compile(r"(?!)"),
        "*** SUMMARY ***", _stars_outcome,
        (_Post(re.compile(r"^(?P<player>.+): posts small & big blinds \D?" + _AMT), True),),
        lambda name, amt: f"{name}: posts big blind {amt}"),
    "fulltilt": _Site(
        "fulltilt", "Full Tilt Poker", _FullTilt,
        re.compile(r"Full ?Tilt ?Poker(?:\.fr)? (?:Game|Hand) #"), re.compile(r"(?!)"),
        "*** SUMMARY ***", _fulltilt_outcome,
        (_Post(re.compile(r"^(?P<player>.+) posts a dead (?:small |big )?blind of \D?" + _AMT)),
         # a player's post to enter (2013-14: "Player5 posts $0.02"): a live big blind, the
         # rest dead
         _Post(re.compile(r"^(?P<player>.+) posts \D?" + _AMT + r"$"), True)),
        lambda name, amt: f"{name} posts the big blind of {amt}"),
    "absolute": _Site(
        "absolute", "Absolute Poker", _Absolute,
        re.compile(r"Stage #"), re.compile(r"(?!)"),
        "*** SUMMARY ***", _absolute_outcome,
        (_Post(re.compile(r"^(?P<player>.+) - Posts \D?(?P<live>[0-9.,]+) dead \D?"
                          r"(?P<dead>[0-9.,]+)")),
         _Post(re.compile(r"^(?P<player>.+) - Posts dead \D?" + _AMT))),
        lambda name, amt: f"{name} - Posts big blind {amt}"),
    "ongame": _Site(
        "ongame", "Ongame Network", _Ongame,
        re.compile(r"\*\*\*\*\* History for hand "), re.compile(r"(?!)"),
        "Summary:", _ongame_outcome,
        (_Post(re.compile(r"^(?P<player>.+) posts dead blind \(\D?" + _AMT + r"\)")),),
        lambda name, amt: f"{name} posts big blind ({amt})"),
    "partypoker": _Site(
        "partypoker", "PartyPoker", _Party,
        re.compile(r"Game #\d+ starts\.|#Game No : |\*\*\*\*\* Hand History [Ff]or Game "),
        re.compile(r"Game #\d+ starts\.|#Game No : |\*\*\*\*\* Hand History [Ff]or Game "),
        " wins ", _party_outcome,
        (_Post(re.compile(r"^(?P<player>.+) posts big blind \+ dead \[\D?" + _AMT), True),),
        lambda name, amt: f"{name} posts big blind [{amt} USD]."),
    "ipoker": _Site(
        "ipoker", "iPoker Network", _IPoker,
        re.compile(r"<game\b"), re.compile(r"(?!)"),
        "</game>", _ipoker_outcome, (),
        lambda name, amt: "", cards_at_showdown=True),
}

# the first line of a file's content -> its format
_DETECT = (
    *OWN_DETECT,
    (SUMMARY_DETECT, SUMMARY_FORMAT),
    (re.compile(r"PokerStars (?:Zoom |Home Game )?(?:Hand|Game) #"), "pokerstars"),
    (re.compile(r"Full ?Tilt ?Poker(?:\.fr)? (?:Game|Hand) #"), "fulltilt"),
    (re.compile(r"Stage #[A-Z]?\d+"), "absolute"),
    (re.compile(r"\*\*\*\*\* History for hand "), "ongame"),
    (re.compile(r"Game #\d+ starts\.|#Game No : |\*\*\*\*\* Hand History [Ff]or Game "),
     "partypoker"),
    (re.compile(r"<\?xml\b|<session\b|<game gamecode="), "ipoker"),
    (re.compile(r"\[[^\]\n]+\]\s*$|[A-Za-z_][A-Za-z0-9_-]*\s*=|#"), "phh"),
)


def phh_by_first_line(first_line: str) -> bool | None:
    """Whether a text whose first line (up to its first "\\n") is ``first_line`` is a PHH text of
    sections (``.phhs``: True) or of one hand (False), decided from that line alone, as
    ``detect_format`` and ``reads_history`` decide; None when the line does not decide (blank,
    a comment, another format's, or holding other line breaks): ask ``detect_format``."""
    line = first_line.strip()
    if not line or line.startswith("#") or len(first_line.splitlines()) != 1:
        return None
    if not _DETECT[-1][0].match(line) or any(p.match(line) for p, _ in _DETECT[:-1]):
        return None
    return line.startswith("[")


# sites whose text shares a first line with a read site, told apart by a later header line:
# detected so that the skip names them (their text is not read yet)
_NOT_READ = re.compile(r"\*\*\*\*\* (?:Cassava|888poker|888\.\w{2,3}|Pacific Poker)"
                       r"(?: [A-Za-z]{1,20}){0,3} Hand History")  # "888poker Snap Poker Hand ..."
NOT_READ_SITES = {"888": "888poker / Pacific Poker (Cassava)"}


def detect_format(text: str) -> str | None:
    """The format of a file's content (one of ``FORMATS``, or a key of ``NOT_READ_SITES``),
    from its first non-blank lines; None when it is none of them."""
    head = text[:_HEAD_CHARS].lstrip("\ufeff")
    lines = head.splitlines()[:50]
    for no, line in enumerate(lines):
        line = line.strip()
        if not line:
            continue
        for pattern, name in _DETECT:
            if pattern.match(line):
                if name == "phh" and line.startswith("#") and not line.startswith("#Game"):
                    break  # a TOML comment: read on
                if name == "partypoker" and any(_NOT_READ.match(x.strip())
                                                for x in lines[no:no + 4]):
                    return "888"
                return name
        else:
            return None
    return None


# ---------------------------------------------------------------- files


def iter_history_paths(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Every hand history file named or found under ``paths``: a named file whatever its name;
    in a folder (recursively, natural order) the files ending in ``HISTORY_SUFFIXES``
    (``.phh``, ``.phhs``, ``.txt``, ``.xml``, ``.hh``, ``.log``; ``sim.histories.sources``).
    Raises FileNotFoundError for a missing path."""
    return iter_paths(paths, HISTORY_SUFFIXES)


def read_history(path: str | Path) -> PhhFile:
    """The hands of a hand history file of any supported format (detected from its content) and
    the hands that could not be read, each with its reason; ``PhhFile.format`` names the format.
    Never raises for the file's content."""
    path = Path(path)
    source = str(path)
    data = read_bytes(path)
    if isinstance(data, str):
        return PhhFile(source, [], [PhhSkip(source, None, 0, None, data)])
    return read_history_bytes(data, source)


def read_history_bytes(data: bytes, source: str) -> PhhFile:
    """``read_history`` of a file's bytes (read by the caller: a URI's), named ``source``; the
    ``PhhFile.sha256`` is the bytes'."""
    digest = hashlib.sha256(data).hexdigest()
    decoded = decode_text(data)
    if isinstance(decoded, str):
        return PhhFile(source, [], [PhhSkip(source, None, 0, None, decoded)], digest)
    text, encoding = decoded
    if encoding != "utf-8" and "\x00" not in text[:_HEAD_CHARS]:
        if detect_format(text) == "phh":  # PHH is UTF-8 (its specification)
            return PhhFile(source, [], [PhhSkip(source, None, 0, None, (
                f"not UTF-8 text: a PHH file is UTF-8 (this one reads as {encoding})"))], digest)
    return replace(reads_history(text, source=source), sha256=digest)


def reads_history(text: str, *, source: str = "<string>") -> PhhFile:
    """``read_history`` of a text. A PHH text whose first line is a ``[key]`` header holds
    several hands (``.phhs``), else one (``.phh``): the content decides, not the name."""
    if "\x00" in text[:_HEAD_CHARS]:
        return _file_skip(source, "unknown format: binary content (NUL bytes)", "unknown")
    fmt = detect_format(text)
    if fmt is None:
        if not text.strip():
            return _file_skip(source, "empty file: no hand")
        return _file_skip(source, "unknown format: not PHH nor a PokerStars, Full Tilt, iPoker, "
                                  "Ongame, PartyPoker, Absolute, GGPoker, 888poker, Winamax, "
                                  "WPN or Cake hand history", "unknown")
    if fmt == "phh":
        body = text.lstrip("\ufeff")
        first = next((ln.strip() for ln in body.splitlines()
                      if ln.strip() and not ln.strip().startswith("#")), "")
        f = reads_phh(body, source=source, many=first.startswith("["))
        return replace(f, format="phh")
    if fmt in OWN_READERS:
        return OWN_READERS[fmt](text, source)
    if fmt == SUMMARY_FORMAT:  # no hand: the import reads its facts (sim.histories.sites.summary)
        return PhhFile(source, [], [], format=fmt)
    if fmt in NOT_READ_SITES:
        return _file_skip(source, f"unknown format: a {NOT_READ_SITES[fmt]} hand history, a "
                                  "site whose text the import does not read yet", fmt)
    if fmt == "ipoker" and _XML_DECL.search(text) is not None:
        return _file_skip(source, "refused XML: a DTD or entity declaration (<!DOCTYPE, "
                                  "<!ENTITY): an export's XML declares neither", fmt)
    site = _SITES[fmt]
    hands: list[PhhHand] = []
    skipped: list[PhhSkip] = []
    index = 0
    for line_no, chunk, too_long, session in _split(text.lstrip("\ufeff"), site):
        index += 1
        h = _read_hand(site, chunk, too_long, session, source, str(index), line_no)
        (skipped if isinstance(h, PhhSkip) else hands).append(h)  # type: ignore[arg-type]
    if index == 0:
        return _file_skip(source, f"no hand in the file (a {fmt} text without a hand)", fmt)
    return PhhFile(source, hands, skipped, format=fmt)


def _file_skip(source: str, reason: str, fmt: str | None = None) -> PhhFile:
    return PhhFile(source, [], [PhhSkip(source, None, 0, None, reason)], format=fmt)


_XML_GAP = re.compile(r">\s*<")
_XML_ATTR = re.compile(r'\s+([A-Za-z_][\w.-]*)="([^"]*)"')
# the attribute order the site parser's patterns read (iPoker writes them in several orders)
_ATTR_ORDER = {"player": ("seat", "name", "chips", "dealer", "win", "bet"),
               "action": ("no", "player", "type", "sum"), "cards": ("type", "player")}
_XML_ELEMENT = re.compile(r"<(player|action|cards)((?:\s+[A-Za-z_][\w.-]*=\"[^\"]*\")*)\s*"
                          r"(/?>)(.*)$")


def _ipoker_canonical(line: str) -> str:
    """An iPoker ``<player>``, ``<action>`` or ``<cards>`` line with its attributes in one
    order (as the parser's patterns read them); a line with a repeated attribute is left as
    it is (the XML parser refuses it, ``_xml_game``)."""
    m = _XML_ELEMENT.match(line)
    if m is None:
        return line
    attrs = _XML_ATTR.findall(m.group(2))
    names = [k for k, _ in attrs]
    if len(set(names)) != len(names):
        return line
    order = _ATTR_ORDER[m.group(1)]
    ranked = sorted(attrs, key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))
    body = "".join(f' {k}="{v}"' for k, v in ranked)
    return f"<{m.group(1)}{body}{' ' if m.group(3) == '/>' else ''}{m.group(3)}{m.group(4)}"


_GAME_NO = re.compile(r"\d{6,}")


def _other_game(header: list[str], line: str) -> bool:
    """A header line ``line`` naming another game number than the header lines before it: the
    hand those announced has no body (PartyPoker writes ``Game #N starts.`` and ``#Game No :
    N`` before a hand, sometimes of a hand it never writes)."""
    new = set(_GAME_NO.findall(line))
    # only "Game #N starts." announces a hand: the 2012-16 styles write "#Game No : N" with
    # another counter than the hand's ("***** Hand History for Game M")
    old = {x for ln in header if ln.rstrip().endswith("starts.") for x in _GAME_NO.findall(ln)}
    return bool(new and old and not new & old)


def _numbered_lines(text: str, site: _Site) -> Iterator[tuple[int, str]]:
    """(line number, line) of a text; a line holding a hand's first line after other text (a
    file cut mid-line and joined to the next hand: ``*** RIVER *** [4d Kh JPokerStars Hand
    #...``) is two lines of one number: what the cut hand wrote (that hand is then truncated)
    and the next hand's first line."""
    inside = _SITE_STARTS_INSIDE.get(site.name)
    for no, raw in enumerate(text.splitlines(), 1):
        m = inside.search(raw) if inside is not None and len(raw) <= MAX_LINE_CHARS else None
        if m is not None:
            yield no, raw[:m.start()]
            raw = raw[m.start():]
        yield no, raw


def _split(text: str, site: _Site) -> Iterator[tuple[int, str, str | None, str]]:
    """(line of the hand's first line, the hand's text, why it is too large or None, the
    iPoker session header) per hand, in file order."""
    if site.name == "ipoker":
        text = _XML_GAP.sub(">\n<", text)  # one element per line, as PokerKit's patterns read
        text = text.replace(">\n</cards>", "></cards>")  # cards not shown: <cards ...></cards>
    cur: list[str] = []
    start = 0
    too_long: str | None = None
    size = 0
    session: list[str] = []
    in_game = False

    def flush() -> tuple[int, str, str | None, str]:
        return start, "\n".join(cur) + "\n", too_long, "\n".join(session)

    for no, raw in _numbered_lines(text, site):
        line = _ipoker_canonical(raw.strip()) if site.name == "ipoker" else raw.rstrip()
        if len(line) > MAX_LINE_CHARS:
            if cur:
                too_long = too_long or (f"line {no} has {len(line)} characters: expected at "
                                        f"most {MAX_LINE_CHARS}")
            continue
        starts = site.starts.match(line) is not None
        if site.name == "ipoker":
            if line.startswith("<session"):
                session = []
            if starts:
                if cur:
                    yield flush()
                cur, start, too_long, size, in_game = [line], no, None, len(line), True
            elif in_game:
                cur.append(line)
                size += len(line)
                if line.startswith("</game>"):
                    in_game = False
            else:
                session.append(line)
            continue
        if starts and cur and (any(ln.strip() and site.header.match(ln) is None for ln in cur)
                               or _other_game(cur, line)):
            yield flush()
            cur, too_long, size = [], None, 0
        if starts and not cur:
            start = no
        if cur or starts:
            cur.append(line)
            size += len(line)
            if size > MAX_HAND_CHARS and too_long is None:
                too_long = f"the hand has over {MAX_HAND_CHARS} characters: expected at most that"
    if cur:
        yield flush()


def _read_hand(site: _Site, chunk: str, too_long: str | None, session: str, source: str,
               key: str, line: int) -> PhhHand | PhhSkip:
    site_hand = _site_hand_number(site, chunk)
    if too_long is not None:
        return PhhSkip(source, key, line, site_hand, too_long)
    if site.ends not in chunk:
        return PhhSkip(source, key, line, site_hand,
                       f"truncated hand: no {site.ends.strip()!r} line")
    if site.name == "pokerstars":  # the single-pass reader first, this one when it is unsure
        from sim.histories.sites import stars_fast
        if stars_fast.ENABLED:
            fast = stars_fast.read_hand(chunk, session, source, key, line)
            if fast is not None:
                return fast
    try:
        _game(site, chunk, session)  # another game is named before its lines are screened
        chunk = _prepared(site, chunk)
        claimed = chunk  # the claim lines are screened out as harmless: read them first
        chunk = screen(site.name, chunk)  # every line known; harmless ones dropped
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            doc, outcome = _fields(site, chunk, session)
        h = hand_from_dict(doc, source, key, line)
        if doc["_tournament"]:  # the tournament, its level and buy-in (tournament_head.py)
            head = session if site.name == "ipoker" else "\n".join(chunk.split("\n", 6)[:6])
            h = replace(h, tournament=doc["_tournament"], level=level_of(site.name, head),
                        tournament_buy_in=buy_in(site.name, head),
                        claims=claims(site.name, claimed, doc["_names"]))
        got = with_outcome(h, outcome, doc["_names"])  # the outcome as the site's actions
        return answered_as_calls(got, h, doc, source, key, line)
    except (_Skip, Unrecognised) as e:
        return PhhSkip(source, key, line, site_hand, str(e))
    except PhhError as e:
        reason = str(e)
        prefix = f"{source} [{key}]: "
        return PhhSkip(source, key, line, site_hand,
                       reason[len(prefix):] if reason.startswith(prefix) else reason)
    except (ValueError, KeyError, IndexError, TypeError, ArithmeticError, AttributeError) as e:
        return PhhSkip(source, key, line, site_hand,
                       f"cannot parse the hand ({type(e).__name__}: {str(e)[:200]})")


class _Skip(Exception):
    """A hand this reader refuses, with its reason."""


_CASH_OUT = re.compile(r"^(?P<line>.{0,60}cashed out the hand for .{0,80})$", re.M)
_SITE_STARTS_INSIDE = {  # a next hand's first line glued inside a line (a file cut and joined)
    "pokerstars": re.compile(r"(?<=.)PokerStars (?:Zoom |Home Game )?(?:Hand|Game) #\d+: "),
}


def _prepared(site: _Site, chunk: str) -> str:
    """The hand's text in the one form the line shapes and the parser read, or _Skip for what
    the import does not model: a board run more than once (run it twice) or a player's
    cash-out (money paid outside the pot), each a named skip that the certificate lists as
    not certified. Rewritten, each exactly: Absolute's ten as ``10`` (``[10c Ah]``) and its
    ``(Preselection)`` suffix (an action chosen in advance: the same action); PartyPoker's
    later styles (``_party_text``)."""
    run = _RUN_TWICE.search(chunk)
    if run is not None:
        raise _Skip(f"unsupported: the board was run more than once ({run.group(0)!r}): "
                    "the engine deals one board")
    cash = _CASH_OUT.search(chunk) if "cashed out the hand for " in chunk else None
    if cash is not None:
        raise _Skip(f"unsupported: a cash-out ({cash['line'].strip()[:120]!r}): money paid "
                    "outside the pot, which the record's pots do not describe")
    if site.name == "absolute":
        chunk = _ABS_TEN.sub(lambda m: m.group(0).replace("10", "T"), chunk)
        chunk = _ABS_PRESELECTION.sub("", chunk)
    elif site.name == "partypoker":
        chunk = _party_text(chunk)
    return chunk


_ABS_TEN = re.compile(r"\[[^\]\n]{0,60}\]")  # a bracket of cards (its 10s become T)
_ABS_PRESELECTION = re.compile(r"(?<=\S) \(Preselection\)$", re.M)
_PTY_GLUED = re.compile(r"(is sitting out|does not show cards\.)(?=[^\s.])")
_PTY_SEAT_LOWER = re.compile(r"^seat (?=\d{1,2}: )", re.M)
_PTY_BRACKET = re.compile(r"\[ (?P<amount>[$€£]?[0-9][0-9.,]*(?: [A-Z]{3})?) \]")
_PTY_SYMBOL_AFTER = re.compile(r"\[ ?(?P<amount>[0-9][0-9.,]*) (?P<symbol>[$€£])\]")
# a comma with one or two digits after it is a decimal comma (a thousands separator has three)
_PTY_COMMA_DECIMAL = re.compile(r"(?<=\d),(?=\d{1,2}(?!\d))")
_PTY_POINT_THOUSANDS = re.compile(r"\d\.\d{3}(?!\d)")  # with decimal commas: 1.000 is 1000?


def _party_text(chunk: str) -> str:
    """PartyPoker's styles of 2012-16 (the Mac client, fastforward) in the shapes of its
    others: ``seat 1:`` is ``Seat 1:``, ``[ $0.20 USD ]`` is ``[$0.20 USD]``, two lines written
    as one (``Player3 is sitting outPlayer4 posts big blind``, ``does not show
    cards.Player2 wins``) are two, and amounts with a decimal comma (``$24,72``, ``[ $0,25
    USD ]``, ``[0,35 €]``) have a decimal point. A comma followed by one or two digits is a
    decimal comma (a thousands separator is followed by three); in a hand that has one, a
    point followed by three digits could be either (``1.000``): the hand is an "unrecognised
    line" skip, never read one way or the other."""
    chunk = _PTY_GLUED.sub(lambda m: m.group(1) + "\n", chunk)
    chunk = _PTY_SEAT_LOWER.sub("Seat ", chunk)
    chunk = _PTY_BRACKET.sub(lambda m: f"[{m['amount']}]", chunk)
    chunk = _PTY_SYMBOL_AFTER.sub(lambda m: f"[{m['symbol']}{m['amount']}]", chunk)
    if _PTY_COMMA_DECIMAL.search(chunk) is not None:
        if _PTY_POINT_THOUSANDS.search(chunk) is not None:
            raise _Skip("unrecognised line: amounts written with a decimal comma and, in the "
                        "same hand, a point before three digits (a thousands separator or "
                        "three decimals: the text does not say which)")
        chunk = _PTY_COMMA_DECIMAL.sub(".", chunk)
    return chunk


_HAND_NO = {
    "pokerstars": re.compile(r"(?:Hand|Game) #(\d+)"),
    "fulltilt": re.compile(r"(?:Game|Hand) #(\d+)"),
    "absolute": re.compile(r"Stage #([A-Z]?\d+)"),
    "ongame": re.compile(r"History for hand (\S+)"),
    "partypoker": re.compile(r"(?:[Ff]or Game |Game #|Game No : )(\d+)"),
    "ipoker": re.compile(r'gamecode="(\d+)"'),
}


_PTY_HAND_NO = re.compile(r"[Ff]or Game (\d+)")  # the hand's own number, before the others


def _site_hand_number(site: _Site, chunk: str) -> str | None:
    m = _PTY_HAND_NO.search(chunk[:2000]) if site.name == "partypoker" else None
    m = m or _HAND_NO[site.name].search(chunk[:2000])
    return None if m is None else m.group(1)[:200]


def _iter_posts(site: _Site, chunk: str) -> tuple[str, dict[str, Decimal], dict[str, Decimal]]:
    """The hand's text with each dead/missed blind post rewritten as PokerKit reads a live post
    (or removed when all dead), and the live and dead amounts per player name."""
    live: dict[str, Decimal] = {}
    dead: dict[str, Decimal] = {}
    if not site.posts:
        return chunk, live, dead
    bb = _big_blind(site, chunk)
    lines = []
    for line in chunk.split("\n"):
        for post in site.posts:
            m = post.pattern.match(line)
            if m is None:
                continue
            groups = m.groupdict()
            name = m["player"]
            if groups.get("live") is not None:
                lv, dv = _amount(m["live"]), _amount(m["dead"])
            elif post.live_bb:
                if bb is None:
                    raise _Skip(f"bad post: {line.strip()!r} before the big blind is known")
                lv, dv = bb, _amount(m["amount"]) - bb
            else:
                lv, dv = Decimal(0), _amount(m["amount"])
            if dv < 0:
                raise _Skip(f"bad post: {line.strip()!r}: less than a big blind of {bb}")
            live[name] = live.get(name, Decimal(0)) + lv
            dead[name] = dead.get(name, Decimal(0)) + dv
            line = site.blind_line(name, _money_text(line, lv)) if lv > 0 else ""
            break
        lines.append(line)
    return "\n".join(lines), live, dead


def _money_text(line: str, v: Decimal) -> str:
    m = re.search(r"[$€£]", line)
    return f"{m.group(0) if m else ''}{v}"


_RUN_TWICE = re.compile(r"\*\*\* (?:FIRST|SECOND|THIRD) (?:FLOP|TURN|RIVER)|run (?:it )?twice",
                        re.I)
_BB_LINE = re.compile(r"big blind(?: of)? [\[(]?\D?" + _AMT)
_STAKES = re.compile(r"\D?[0-9.,]+\s*/\s*\D?" + _AMT)


def _big_blind(site: _Site, chunk: str) -> Decimal | None:
    for line in chunk.split("\n"):
        if "+ dead" in line or "&" in line:
            continue
        m = _BB_LINE.search(line)
        if m is not None:
            return _amount(m["amount"])
    m = _STAKES.search(chunk.split("\n", 1)[0])
    return None if m is None else _amount(m["amount"])


_PTY_LEVEL_BLINDS = re.compile(r"^Blinds\((?P<sb>[0-9][0-9.,]*)/(?P<bb>[0-9][0-9.,]*)\)\s*$", re.M)
_PTY_BUTTON = re.compile(r"^Seat (?P<seat>\d+) is the button", re.M)
_PTY_SEAT = re.compile(r"^Seat (?P<seat>\d+): (?P<player>.+) \( \D?(?P<amount>[0-9][0-9.,]*)"
                       r"(?: \w+)? \)$", re.M)
_PTY_POSTS = re.compile(r" posts (?:small|big) blind", re.M)


def _party_implicit_blinds(chunk: str) -> str:
    """PartyPoker's tournament style of 2011 (``Blinds(150/300)`` on its own line) writes no
    post line: the blinds are the level's, posted by the two seats after the button (heads-up:
    the button, then the other), as the pots and the stacks of the next hands show. The two
    post lines are written into the hand (a stack shorter than its blind posts all of it); a
    hand with any post line, or without the level or the button, is left as it is."""
    level = _PTY_LEVEL_BLINDS.search(chunk)
    button = _PTY_BUTTON.search(chunk)
    if level is None or button is None or _PTY_POSTS.search(chunk) is not None:
        return chunk
    seats = sorted((int(m["seat"]), m["player"], _amount(m["amount"]))
                   for m in _PTY_SEAT.finditer(chunk))
    if len(seats) < 2 or len({x[0] for x in seats}) != len(seats):
        return chunk
    at = int(button["seat"])
    after = [x for x in seats if x[0] > at] + [x for x in seats if x[0] <= at]
    if len(seats) == 2:  # heads-up: the button posts the small blind
        after = after[1:] + after[:1]
    lines = []
    for (_, name, stack), kind, blind in ((after[0], "small", level["sb"]),
                                          (after[1], "big", level["bb"])):
        amount = min(stack, _amount(blind))
        lines.append(f"{name} posts {kind} blind [{amount}].")
    end = level.end()
    return chunk[:end] + "\n" + "\n".join(lines) + chunk[end:]


def _fields(site: _Site, chunk: str, session: str) -> tuple[dict[str, Any], SiteOutcome]:
    """The hand as PHH fields (PokerKit's parser stages, then what it misses) and its
    outcome."""
    p = site.parser()
    if site.name == "partypoker":
        chunk = _party_implicit_blinds(chunk)
    text, live, dead = _iter_posts(site, chunk)
    if site.name == "ipoker":
        _xml_game(chunk)
        for ln in text.split("\n"):
            if ln.startswith("<action") and _IPN_SUM_OK.search(ln) is None:
                raise _Skip(f"bad action: {ln[:200]!r}: expected sum=\"AMOUNT\"")
            t = _IPN_TYPE.search(ln) if ln.startswith("<action") else None
            if t is not None and t["type"] not in _IPN_TYPES and not _IPN_ZERO.search(ln):
                raise _Skip(f"bad action: {ln[:200]!r}: an action type {t['type']} the "
                            "importer does not know moves chips")
        text = _ipoker_in_order(text)
    pv = cast(Callable[[str], int], _value)  # PokerKit's annotation; values are exact
    try:
        final_seat = p._parse_final_seat(text)
    except ValueError:
        raise _Skip("no button seat in the hand") from None
    parsed_seats = p._parse_seats(text)
    _one_seat_each(p, text)
    parsed_players = p._parse_players(text)
    _stated_once(p, text, parsed_players, parsed_seats)
    game = _game(site, text, session)
    antes = p._parse_antes(text, pv)
    blinds: dict[str, Any] = p._parse_blinds_or_straddles(text, pv)
    stacks = p._parse_starting_stacks(text, pv)
    for name in sorted(parsed_players):  # a set: one order in every process
        if name not in parsed_seats or name not in stacks:
            raise _Skip(f"player {name!r} acts but has no seat line")
    players = sorted(parsed_players, key=parsed_seats.__getitem__)
    if len(players) < 2:
        raise _Skip(f"fewer than 2 players in the hand ({len(players)})")
    seats = [parsed_seats[x] for x in players]
    players = p._get_ordered_players(text, final_seat, cast(Any, blinds), players, seats)
    for name in dead:
        if name not in players:
            raise _Skip(f"a dead blind by {name!r}, who has no seat line")
    bb = _bb_of(blinds, players)
    for name in players[:2]:
        if dead.get(name):
            raise _Skip(f"unsupported: dead money posted by {name!r} from a blind's seat")
    for name in players[2:]:
        if dead.get(name) and not blinds[name] and dead[name] >= bb:
            raise _Skip(f"unsupported: a dead post by {name!r} of a big blind or more without "
                        "a live blind")
        blinds[name] = -blinds[name] - dead.get(name, 0)
    n = len(players)
    ante_list = [antes[x] for x in players]
    blind_list = [blinds[x] for x in players]
    if n == 2:
        ante_list.reverse()
        blind_list.reverse()
    actions = p._parse_actions(text, pv, players)
    actions = _complete_actions(actions, n, site.cards_at_showdown)
    variables = p._parse_variables(text, pv)
    if site.name == "ipoker" and session:
        for k, v in p._parse_variables(session, pv).items():
            variables.setdefault(k, v)
    pvars = p._parse_player_variables(text, pv)
    if n > 2 and 0 < blind_list[1] <= blind_list[0] and blind_list[1] == stacks[players[1]]:
        raise _Skip(f"unsupported: the big blind all in for {blind_list[1]}, no more than the "
                    "small blind: the site has the others call the full big blind, the engine "
                    "the amount posted")
    bb_posted = max(abs(b) for b in blind_list[:2]) if any(blind_list[:2]) else \
        _bb_of(blinds, players)
    doc: dict[str, Any] = {
        "variant": game.variant, "antes": ante_list, "blinds_or_straddles": blind_list,
        **_bet_sizes(game, bb_posted),
        "starting_stacks": [stacks[x] for x in players], "actions": actions,
        "players": list(players), "seats": [parsed_seats[x] for x in players],
        "venue": site.venue,
    }
    for k in ("time", "day", "month", "year", "time_zone_abbreviation", "hand", "table",
              "seat_count", "currency", "currency_symbol"):
        if variables.get(k) is not None:
            doc[k] = variables[k] if k not in ("hand", "table") else str(variables[k])
    if "hand" not in doc:  # a header style PokerKit's pattern misses (Home Game, "C123")
        number = _HAND_NO[site.name].search(text[:2000])
        if number is not None:
            doc["hand"] = number.group(1)[:200]
    tournament = _tournament(site, text, session)
    if tournament is not None:  # amounts are the tournament's chips, not money
        doc["currency"] = "chips"
        doc.pop("currency_symbol", None)
    if "currency" not in doc:
        m = _CURRENCY.search("\n".join(text.split("\n", 6)[:6]))
        if m is not None:
            doc["currency"] = m.group(1)
    doc["_tournament"] = tournament
    finishing = pvars.get("finishing_stacks")
    if finishing is not None and all(x in finishing for x in players):  # else not stated
        doc["finishing_stacks"] = [finishing[x] for x in players]
    doc["_names"] = list(players)
    return doc, site.outcome(text)


@dataclass(frozen=True)
class _Game:
    """A hand's game as its own header states it: the PHH variant (``NT``, ``PT``, ``FT``) and,
    for fixed limit, the header's two stakes (the bets, or the blinds: ``_bet_sizes``)."""

    variant: str
    stakes: tuple[Decimal, Decimal] | None = None
    header: str = ""


# a game that is not Texas hold'em, named in a hand's header (PokerStars, Full Tilt, iPoker
# <gametype>, Ongame's "(POT_LIMIT OMAHA_HI_LO ...)", PartyPoker's "PL Omaha", mixed rounds)
_NOT_HOLDEM = re.compile(
    r"\b(Omaha|OMAHA\w*|Stud|STUD\w*|Razz|RAZZ|Draw|DRAW|Badugi|Courchevel|Lowball|Triple|"
    r"Double Hold'em|Irish|Pineapple|Short ?Deck|6\+ Hold'em|HORSE|8-Game|Mixed|Hi/Lo|Hi-Lo|"
    r"5 Card|7 Card|2-7|5-Card|7-Card)\b", re.I)
_HOLDEM = re.compile(r"Hold ?'?em|HOLDEM|Holdem|\bLH\b|\bNLH\b", re.I)
_CAPPED = re.compile(r"\bCap\b|\bCAP\b")
_POT_LIMIT = re.compile(r"Pot Limit|POT_LIMIT|\bPL\b|\bPLH\b")
_NO_LIMIT = re.compile(r"No ?Limit|NO_LIMIT|\bNL\b|\bNLH\b", re.I)
_FIXED_LIMIT = re.compile(r"\bLimit\b|\bLIMIT\b|\bFL\b|Fix Limit|\bLH\b|\bL\b|\bNormal\b")
_HEADER_STAKES = re.compile(r"(?<![\w./])\D?(?P<a>[0-9][0-9,]*(?:\.[0-9]+)?)\s*/\s*\D?"
                            r"(?P<b>[0-9][0-9,]*(?:\.[0-9]+)?)(?![\d/])")
_GAMETYPE = re.compile(r"<gametype>(?P<game>[^<]*)</gametype>")


def _game_header(site: _Site, text: str, session: str) -> str:
    """The lines of a hand that name its game: iPoker's ``<gametype>`` (in the session), the
    others' first lines (PartyPoker's second, Ongame's ``Table:`` line)."""
    if site.name == "ipoker":
        m = _GAMETYPE.search(session) or _GAMETYPE.search(text)
        return "" if m is None else m["game"].strip()
    lines = [ln for ln in text.split("\n")[:6] if ln.strip()]
    if site.name == "ongame":
        return " ".join(ln for ln in lines if ln.startswith(("*****", "Table:")))
    if site.name == "partypoker":
        return " ".join(ln for ln in lines if not ln.startswith(("Seat ", "Table ", "Total ")))
    return lines[0] if lines else ""


def _game(site: _Site, text: str, session: str) -> _Game:
    """The hand's game and betting structure from its own header; _Skip for a game that is
    not Texas hold'em (named), a capped no-limit game, or a header that names no structure."""
    head = _game_header(site, text, session)
    shown = head[:120]
    if not head:
        raise _Skip("unsupported variant: the hand names no game (expected a header line "
                    "with the game)")
    other = _NOT_HOLDEM.search(head)
    if other is not None:
        raise _Skip(f"unsupported variant: not hold'em ({other.group(0)}: {shown!r})")
    if _HOLDEM.search(head) is None and site.name != "ipoker":
        raise _Skip(f"unsupported variant: not hold'em ({shown!r})")
    if site.name == "ipoker" and not re.match(r"(Holdem|LH)\b", head):
        raise _Skip(f"unsupported variant: not hold'em (<gametype>{shown}</gametype>)")
    if _CAPPED.search(head) is not None:
        raise _Skip(f"unsupported variant: capped no-limit hold'em ({shown!r}): a cap on each "
                    "player's bets the engine does not play")
    if _POT_LIMIT.search(head) is not None:
        return _Game("PT", header=shown)
    if _NO_LIMIT.search(head) is not None:
        return _Game("NT", header=shown)
    if _FIXED_LIMIT.search(head) is not None:
        stakes = [(_amount(m["a"]), _amount(m["b"])) for m in _HEADER_STAKES.finditer(head)]
        return _Game("FT", stakes[0] if stakes else None, shown)
    raise _Skip(f"unsupported variant: the header names no betting structure ({shown!r}): "
                "expected no limit, pot limit or limit")


def _bet_sizes(game: _Game, bb: Any) -> dict[str, Any]:
    """The PHH size fields of a hand: ``min_bet`` (the big blind) for no limit and pot limit;
    for fixed limit ``small_bet``/``big_bet`` from the header's stakes, which state either the
    bets (small bet = the big blind, the big bet twice it: PokerStars, Full Tilt, Absolute,
    Ongame, PartyPoker) or the blinds (iPoker, 888): the posted big blind tells which. The
    replay then checks every bet against these sizes."""
    if game.variant != "FT":
        return {"min_bet": bb}
    if game.stakes is None:
        raise _Skip(f"fixed-limit hold'em without its stakes in the header ({game.header!r})")
    a, b = game.stakes
    if b != 2 * a and not (bb and Decimal(bb) == b):
        raise _Skip(f"fixed-limit stakes {a}/{b} ({game.header!r}): expected a big bet twice "
                    "the small bet")
    small = b if bb and Decimal(bb) == b and b != a else a
    return {"small_bet": _value(str(small)), "big_bet": _value(str(2 * small))}


def _one_seat_each(p: LineParser, text: str) -> None:
    """_Skip "player in two seats" when one name has seat lines of two seat numbers (the
    parser would keep the last one and lose the other seat's player)."""
    seat_of: dict[str, str] = {}
    for _, m in p.matches(p.SEATS, text, nl=True):
        name, seat = m["player"], m["seat"]
        if seat_of.setdefault(name, seat) != seat:
            raise _Skip(f"player in two seats: {name[:60]!r} has seats {seat_of[name]} and "
                        f"{seat}")


# a tournament hand's header names its tournament (the id, else its name)
_TOURNAMENT = {
    "pokerstars": re.compile(r"Tournament #(?P<id>\d+)"),
    "fulltilt": re.compile(r"Game #\d+: .{0,120}?\((?P<id>\d+)\), Table "),
    "ongame": re.compile(r"\(TOURNAMENT: ?(?:\"[^\"]{0,80}\", )?(?P<id>[^,)]{0,80})"),
    "partypoker": re.compile(r"Trny: ?(?P<id>\d+)|Tournament #(?P<id2>\d+)|Tourney ID:? ?#?"
                             r"(?P<id3>\w+)"),
    "absolute": re.compile(r"Tourney ID:? ?#?(?P<id>\w+)|Tournament #(?P<id2>\d+)"),
    "ipoker": re.compile(r"<tournamentcode>(?P<id>[^<]{1,80})</tournamentcode>|"
                         r"<tournamentname>(?P<id2>[^<]{1,80})</tournamentname>"),
}
_ONGAME_TABLE_NO = re.compile(r"Table: .{0,80}?\[(?P<id>\d+)\]")


def _tournament(site: _Site, text: str, session: str) -> str | None:
    """The tournament a hand belongs to (its id as the site writes it, else its name; Ongame
    without either: its table number), None for a cash game hand."""
    head = session if site.name == "ipoker" else "\n".join(text.split("\n", 6)[:6])
    m = _TOURNAMENT[site.name].search(head)
    if m is None:
        return None
    tid = next((v.strip() for v in m.groupdict().values() if v and v.strip()), "")
    if not tid and site.name == "ongame":
        t = _ONGAME_TABLE_NO.search(head)
        tid = t["id"] if t is not None else ""
    return tid or "?"


def _stated_once(p: LineParser, text: str, players: set[str], seats: dict[str, int],
                 ) -> None:
    """_Skip "stated twice" when the hand states one fact twice with different values (the
    site parser would keep the last one: a seat line restated in the summary with another
    stack would replace the header's): the button seat, a player's stack or hole cards, two
    players in one seat; and a player posting two blinds or two antes in two lines (one is
    lost by the parser)."""
    facts: dict[tuple[str, str], str] = {}
    posts: dict[tuple[str, str], int] = {}
    checks = (("stack", p.STARTING_STACKS, "starting_stack"), ("hole cards", p.HOLE_DEALING,
              "cards"), ("button seat", p.FINAL_SEAT, "final_seat"),
              ("blind", p.BLIND_OR_STRADDLE_POSTING, ""), ("ante", p.ANTE_POSTING, ""))
    # every line's finds, in line order and then in the order of ``checks``
    lines = p.lines_of(text, nl=True)
    found = sorted((i, k, m) for k, (_, pattern, _) in enumerate(checks)
                   for i, m in p.matches(pattern, text, nl=True) if lines[i])
    for _i, k, m in found:
        what, _, group = checks[k]
        if not group:  # a post: two of one kind by one player
            if m["player"] in players:
                key = (what, m["player"])
                posts[key] = posts.get(key, 0) + 1
                if posts[key] > 1:
                    raise _Skip(f"stated twice: {m['player'][:60]!r} posts a {what} twice")
            continue
        who = m["player"] if what != "button seat" else ""
        value = m[group]
        if what == "hole cards":
            value = " ".join(sorted(re.split(r"[\s,]+", value.strip())))
        elif what == "stack":
            value = str(_amount(value))
        first = facts.setdefault((what, who), value)
        if first != value:
            whose = f"{who[:60]!r}'s " if who else "the "
            raise _Skip(f"stated twice: {whose}{what} is {first} and {value}")
    holder: dict[int, str] = {}
    for name in sorted(players):  # a set: one order in every process
        seat = seats.get(name)
        if seat is not None and holder.setdefault(seat, name) != name:
            raise _Skip(f"stated twice: seat {seat} is {holder[seat][:60]!r} and {name[:60]!r}")


_CURRENCY = re.compile(r"\b(USD|EUR|GBP|CAD|SEK|CHF|AUD)\b")


def _bb_of(blinds: dict[str, Any], players: list[str]) -> Any:
    vals = [abs(v) for v in blinds.values() if v]
    return max(vals) if vals else 0


def _value(raw: str) -> int | Decimal:
    v = _amount(raw)
    return int(v) if v == v.to_integral_value() and "." not in raw else v


def _complete_actions(actions: list[str], n: int, cards_at_showdown: bool) -> list[str]:
    """Every player dealt (``d dh pN ????`` unless the text shows the cards), and ``pN sm
    ????`` for each player at a showdown the text shows no cards of (known dealt cards at
    showdown: shown, for the sites that reveal them so)."""
    dealt: dict[int, str] = {}
    rest = []
    for a in actions:
        w = a.split()
        if w[:2] == ["d", "dh"]:
            dealt[int(w[2][1:]) - 1] = w[3]
        else:
            rest.append(a)
    folded = {int(a.split()[0][1:]) - 1 for a in rest if a.split()[1:2] == ["f"]}
    shown = {int(a.split()[0][1:]) - 1 for a in rest if a.split()[1:2] == ["sm"]}
    live = [i for i in range(n) if i not in folded]
    if len(live) >= 2:
        for i in live:
            if i not in shown:
                cards = dealt.get(i) if cards_at_showdown else None
                rest.append(f"p{i + 1} sm {cards or '????'}")
    return [f"d dh p{i + 1} {dealt.get(i, '????')}" for i in range(n)] + rest


_XML_DECL = re.compile(r"<!(?:DOCTYPE|ENTITY|ELEMENT|ATTLIST)\b", re.I)


def _xml_game(chunk: str) -> None:
    """One iPoker ``<game>`` through a real XML parser (``xml.etree``; no DTD or entity
    declaration reaches it): _Skip when it is not well-formed (a repeated attribute, an
    undefined entity, a tag left open) or states a fact twice (two ``<player>`` of one name or
    one seat, a player's pocket cards twice)."""
    if _XML_DECL.search(chunk) is not None or "<!" in chunk.replace("<!--", ""):
        raise _Skip("refused XML: a declaration (<!...) inside the game")
    try:
        game = ElementTree.fromstring(chunk)
    except ElementTree.ParseError as e:
        raise _Skip(f"not well-formed XML ({e})") from None
    names: set[str] = set()
    seats: set[str] = set()
    for el in game.iter("player"):
        name, seat = el.get("name", ""), el.get("seat", "")
        if name in names or seat in seats:
            raise _Skip(f"stated twice: <player> {name[:60]!r} (seat {seat[:4]}) is listed "
                        "twice or shares a seat")
        names.add(name)
        seats.add(seat)
    pocket: set[str] = set()
    for el in game.iter("cards"):
        if el.get("type") == "Pocket":
            who = el.get("player", "")
            if who in pocket:
                raise _Skip(f"stated twice: the pocket cards of {who[:60]!r}")
            pocket.add(who)


_IPN_TYPE = re.compile(r'\btype="(?P<type>[0-9]{1,4})"')
_IPN_TYPES = frozenset({"0", "1", "2", "3", "4", "5", "6", "7", "15", "23"})
_IPN_ZERO = re.compile(r'\bsum="\D?0*(?:\.0*)?"')  # other types (8, 9: sitting out) move none
_IPN_SUM_OK = re.compile(r'\bsum="[^0-9"]?[0-9][0-9.,]*"')
_ROUND = re.compile(r'<round\b[^>]*\bno="(\d+)"')
_ACTION_NO = re.compile(r'<action\b[^>]*\bno="(\d+)"')


def _ipoker_in_order(text: str) -> str:
    """The game with each round's cards first and its actions in their ``no`` order."""
    head: list[str] = []
    rounds: list[tuple[list[str], list[tuple[int, str]]]] = []
    tail: list[str] = []
    for line in text.split("\n"):
        if _ROUND.match(line):
            rounds.append(([line], []))
        elif rounds and not line.startswith("</game>") and not tail:
            m = _ACTION_NO.match(line)
            if m is not None:
                rounds[-1][1].append((int(m.group(1)), line))
            else:
                rounds[-1][0].append(line)
        elif rounds:
            tail.append(line)
        else:
            head.append(line)
    out = list(head)
    for other, acts in rounds:
        out += other
        out += [ln for _, ln in sorted(acts, key=lambda t: t[0])]
    return "\n".join(out + tail)


def with_outcome(h: PhhHand, outcome: SiteOutcome, names: list[str]) -> PhhHand:
    index = {name: i for i, name in enumerate(names)}
    if outcome.bets is not None:  # each stated total bet is what the actions put in
        put, back = pot_contributions(h)
        for name, stated in outcome.bets.items():
            i = index.get(name)
            if i is None and stated:
                raise _Skip(f"stated twice: {name!r} bet {stated} in his player line, but has "
                            "no action in the hand")
            if i is not None and Decimal(put[i]) + Decimal(back[i]) != stated:
                raise _Skip(f"stated twice: {name!r} bet {stated} in his player line, but his "
                            f"actions put in {Decimal(put[i]) + Decimal(back[i])}")
    for name, v in outcome.paid.items():
        if name not in index and v:
            raise _Skip(f"bad outcome: {name!r} is paid but is not a player of the hand")
    if not outcome.recorded:
        return replace(h, total_pot=outcome.total_pot, rake=outcome.rake)
    won = [outcome.paid.get(name, Decimal(0)) for name in names]
    total_pot, rake = outcome.total_pot, outcome.rake
    if outcome.includes_uncalled:
        put, uncalled = pot_contributions(h)
        for i, u in enumerate(uncalled):
            u = Decimal(u)
            if u and outcome.bets is not None and won[i] < u:  # iPoker: win includes it
                raise _Skip(f"bad outcome: {names[i]!r} bet {outcome.bets.get(names[i])} of "
                            f"which {u} was not called, but won {won[i]}")
            if u and won[i] >= u:
                won[i] -= u
        if outcome.bets is not None:  # iPoker states no pot: the actions' and the wins'
            total_pot = sum((Decimal(v) for v in put), Decimal(0))
            rake = total_pot - sum(won, Decimal(0))
    winnings = tuple(_kept(v) for v in won)
    return replace(h, winnings=winnings, total_pot=_opt_kept(total_pot),
                   rake=_opt_kept(rake), scale=max(h.scale, *(
                       _scale(v) for v in (*won, total_pot, rake)
                       if v is not None)))


def _scale(v: Decimal) -> int:
    exp = v.normalize().as_tuple().exponent
    return -exp if isinstance(exp, int) and exp < 0 else 0


def _kept(v: Decimal) -> Number:
    if not v.is_finite() or abs(v) >= 10**15 or _scale(v) > 6:
        raise _Skip(f"bad outcome: amount {v} cannot be represented")
    return int(v) if v == v.to_integral_value() else v


def _opt_kept(v: Decimal | None) -> Number | None:
    return None if v is None else _kept(v)


# ---------------------------------------------------------------- contributions


def pot_contributions(hand: PhhHand) -> tuple[tuple[Number, ...], tuple[Number, ...]]:
    """(what each player put in the pot, the uncalled bet returned to each) from the hand's
    antes, blinds (a negative entry: a live big blind and/or dead money, as docs/import.md says),
    calls and raises, in the hand's own unit (exact). A call is capped by the player's stack."""
    total, uncalled, _ = _contributions(hand)
    return total, uncalled


def answered_as_calls(got: PhhHand, h: PhhHand, doc: dict[str, Any], source: str, key: str,
                      line: int) -> PhhHand:
    """``got`` (the hand ``h`` with its outcome) with every raise nobody can answer
    (``unanswerable_raises`` of ``h``) replayed as the call it amounts to: ``doc``'s actions
    (the PHH fields ``h`` was made from) rewritten and read again; ``got`` itself when there
    is none. The outcome's checks read the raise as the text states it, before this."""
    calls = unanswerable_raises(h)
    if not calls:
        return got
    doc["actions"] = [f"p{h.actions[i].actor + 1} cc" if i in calls else a  # type: ignore[operator]
                      for i, a in enumerate(doc["actions"])]
    return replace(got, actions=hand_from_dict(doc, source, key, line).actions)


def unanswerable_raises(hand: PhhHand) -> set[int]:
    """The indices of the hand's raises that no other player could answer: every other
    player still in the hand has folded or has no more chips than the bet already faced
    (all in, or all in by calling). The sites accept such a raise and return its excess as an
    uncalled bet (PokerStars ``HomerrrJay: raises €2.70 to €5.90`` over an all-in, the last
    player to act holding less than the bet; Ongame, iPoker likewise); the rules the engine
    plays (and the betting audit checks) allow only a call there. Both move the same chips:
    the raise is replayed as the call, the site's uncalled bet never having been matched. A
    raise to more than the player has is not among them: the hand is refused as it is."""
    return _contributions(hand)[2]


# the last hand's contributions (``with_outcome`` and ``unanswerable_raises`` ask for the same
# hand in a row; a PhhHand is frozen, so its identity keeps its answer)
_LAST: list[tuple[Any, Any]] = [(None, None)]  # one (hand, answer): replaced whole, atomically


def _contributions(hand: PhhHand) -> tuple[tuple[Number, ...], tuple[Number, ...], set[int]]:
    last_hand, last = _LAST[0]
    if last_hand is hand:
        return last[0], last[1], set(last[2])
    got = _contributions_of(hand)
    _LAST[0] = (hand, got)
    return got[0], got[1], set(got[2])


def _contributions_of(hand: PhhHand) -> tuple[tuple[Number, ...], tuple[Number, ...], set[int]]:
    n = hand.n_players
    blinds: list[Number] = list(hand.blinds_or_straddles or (0,) * n)
    antes: list[Number] = list(hand.antes)
    if n == 2:
        blinds.reverse()
        antes.reverse()
    bb = (max((abs(Decimal(b)) for b in blinds[:2]), default=Decimal(0))
          or max((abs(Decimal(b)) for b in blinds), default=Decimal(0)))
    stack: list[Decimal] = [Decimal(v) for v in hand.starting_stacks]
    total = [Decimal(0)] * n
    street = [Decimal(0)] * n
    uncalled = [Decimal(0)] * n

    def put(i: int, v: Decimal, live: bool) -> None:
        v = min(v, stack[i])
        stack[i] -= v
        total[i] += v
        if live:
            street[i] += v

    for i, ante in enumerate(antes):
        put(i, Decimal(ante), False)
    for i, blind in enumerate(blinds):
        b = Decimal(blind)
        if b > 0:
            put(i, b, True)
        elif b < 0:
            v = -b
            live = bb if v >= bb else Decimal(0)
            put(i, live, True)
            put(i, v - live, False)

    def close_street() -> None:
        ranked = sorted(range(n), key=lambda j: street[j], reverse=True)
        if n > 1 and street[ranked[0]] > street[ranked[1]]:
            back = street[ranked[0]] - street[ranked[1]]
            top = ranked[0]
            total[top] -= back
            stack[top] += back
            uncalled[top] += back
        for j in range(n):
            street[j] = Decimal(0)

    folded = [False] * n
    unanswerable: set[int] = set()
    for k, a in enumerate(hand.actions):
        if a.verb == "db":
            close_street()
        elif a.verb == "f":
            folded[int(a.actor)] = True
        elif a.verb == "cc":
            p = int(a.actor)
            put(p, max(street) - street[p], True)
        elif a.verb == "cbr":
            p = int(a.actor)
            cur = max(street)
            to = Decimal(a.amount or 0)
            # a raise beyond his stack is no raise the site could accept: it stays a raise
            # (refused), never replayed as a call that hides it
            if cur < to <= stack[p] + street[p] and all(
                    folded[q] or stack[q] + street[q] <= cur for q in range(n) if q != p):
                unanswerable.add(k)
            put(p, to - street[p], True)
    close_street()
    return tuple(_num(v) for v in total), tuple(_num(v) for v in uncalled), unanswerable


def _num(v: Decimal) -> Number:
    return int(v) if v == v.to_integral_value() else v
