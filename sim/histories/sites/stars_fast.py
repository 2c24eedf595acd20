"""A single-pass reader of one PokerStars text hand: the hand ``sim.histories.sites.text`` reads,
from one look at each line, or None when it is not certain to read it the same way.

The reference reader (``text._read_hand``) runs about twenty stages over a hand, each a regex
pass over every line (the screen of ``lines.py``, PokerKit's parser stages of ``relines.py``,
the "stated twice" checks, ...): ~1 ms a hand. This reader visits each line ONCE: a cheap test
(its first characters, or the word after the player's ``": "``) picks the line's kind, ONE
compiled pattern of that kind checks the whole line and extracts its fields, and the facts are
accumulated as the reference's stages would find them (seats, stacks, antes, blinds, the PHH
action strings of ``relines.LineParser._parse_actions``). What the reference reads from the
hand's text as a whole (the header's game, time, table, currency, tournament, level and
buy-in, the outcome lines) is read by the reference's own functions on the same screened text,
and the hand is built by the same constructor and outcome steps (``hand_from_dict``,
``with_outcome``, ``answered_as_calls``, ``claims``), so the result is the reference's.

It is a pilot for the biggest site and it is conservative: it returns None (the caller then runs
the reference) for any line shape it does not know and for everything the reference treats
specially: a fact stated twice, dead blinds (``posts small & big blinds``), amounts with a
thousands comma, run it twice, a cash-out, Home Game and Zoom hands, a player name that could
make one of PokerKit's unanchored patterns match another line than its own (``:``, brackets,
``#``, ``*``, a name starting with an action word), a fact line too long for the screen,
line separators other than ``\\n``; and whenever a reference step it calls refuses the hand.
``ENABLED`` (environment ``HOLDEM_STARS_FAST=0`` turns it off) is the switch of the A/B.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import replace
from decimal import Decimal
from typing import Any

from pokerkit.utilities import rotated

from audits.runfolder.errors import InputError
from sim.histories.read.phh import PhhError, PhhHand, hand_from_dict
from sim.histories.sites import text as _t
from sim.histories.sites.lines import FACT_LINE_CHARS, FACTS, HARMLESS, NAME_CHARS
from sim.histories.sites.tournament_claims import claims
from sim.histories.sites.tournament_head import buy_in
from sim.histories.sites.tournament_head import level as level_of

__all__ = ["ENABLED", "read_hand"]

ENABLED = os.environ.get("HOLDEM_STARS_FAST", "1") != "0"

_SITE = _t._SITES["pokerstars"]
_P = _t._Stars
_FACT = FACTS["pokerstars"].fullmatch
_HARMLESS = HARMLESS["pokerstars"].fullmatch

_A = r"[$€£]?([0-9]{1,16}(?:\.[0-9]{1,6})?)"  # an amount, no thousands comma: its number
_CARD = r"[2-9TJQKA][cdhs]"
_ALLIN = r"(?: and is all-in)?"
_HEADER = re.compile(r"PokerStars (?:Hand|Game) #[0-9]+: .{0,200}")
_TABLE = re.compile(r"Table '[^':#*\[\]]{1,80}'(?: [0-9]{1,2}-max)?(?: \(Play Money\))?"
                    r" Seat #([0-9]{1,2}) is the button")
_NAME = rf"[^:\[\]()#*|]{{1,{NAME_CHARS}}}"  # a name no other line's pattern can misread
_SEAT = re.compile(rf"Seat ([0-9]{{1,2}}): ({_NAME}) \({_A} in chips(?:, {_A} bounty)?\)"
                   r"(?: is sitting out)?")
_DEALT = re.compile(rf"Dealt to ({_NAME}) \[({_CARD} {_CARD})\]")
_STREET = {"*** HOLE CARDS ***", "*** SHOW DOWN ***", "*** SUMMARY ***"}
_FLOP = re.compile(rf"\*\*\* FLOP \*\*\* \[({_CARD} {_CARD} {_CARD})\]")
_TURN = re.compile(rf"\*\*\* TURN \*\*\* \[{_CARD} {_CARD} {_CARD}\] \[({_CARD})\]")
_RIVER = re.compile(rf"\*\*\* RIVER \*\*\* \[{_CARD} {_CARD} {_CARD} {_CARD}\] \[({_CARD})\]")
_UNCALLED = re.compile(rf"Uncalled bet \({_A}\) returned to ({_NAME})")
_COLLECTED = re.compile(rf"{_NAME} collected {_A} from (?:the )?(?:main |side )?pot"
                        r"(?:-[0-9]{1,2})?")
_TOTAL = re.compile(rf"Total pot {_A}(?: Main pot {_A}\.)?(?: Side pot(?:-[0-9]{{1,2}})? {_A}\.)"
                    rf"{{0,9}}(?: \| Rake {_A})?")
_SUMMARY_SEAT = re.compile(r"Seat [0-9]{1,2}: (.{1,200})")
_BOARD = re.compile(rf"Board \[{_CARD}(?: {_CARD}){{2,4}}\]")
# the text after "NAME: ", by its first word
_VERB = {
    "folds": re.compile(rf"folds(?: \[{_CARD}(?: {_CARD}){{0,9}}\])?"),
    "checks": re.compile(r"checks"),
    "calls": re.compile(rf"calls {_A}{_ALLIN}"),
    "bets": re.compile(rf"bets {_A}{_ALLIN}"),
    "raises": re.compile(rf"raises {_A} to {_A}{_ALLIN}"),
    "posts": re.compile(rf"posts (small blind|big blind|the ante) {_A}{_ALLIN}"),
    "shows": re.compile(rf"shows \[({_CARD} {_CARD})\](?: \(([^\[\]()]{{0,100}})\))?"),
    "mucks": re.compile(r"mucks hand"),
    "doesn't": re.compile(r"doesn't show hand"),
}
# words a name may not start with: "Seat 3: folds guy (...)" would be a fold of "Seat 3" to
# PokerKit's unanchored patterns
_BAD_START = ("folds", "calls", "checks", "bets", "raises", "posts", "shows", "Seat", "Dealt",
              "Uncalled", "Total", "Board", "mucks", "doesn't")
_BAD_IN = ("Dealt to", " collected ", "in chips", "is the button", "-max", " said,")
_SUMMARY_BAD = (": ", "Dealt to", "***", "in chips", "#", "|")
_CLAIM_WORDS = (" finished the tournament in ", " wins the ", " re-buys and receives ",
                " takes the add-on and receives ")
_ODD_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _name_ok(name: str) -> bool:
    return (name == name.strip() and not name.startswith(_BAD_START)
            and not any(b in name for b in _BAD_IN))


class _No(InputError):
    """The fast reader is not certain: the reference reads the hand (never leaves
    ``read_hand``)."""


def read_hand(chunk: str, session: str, source: str, key: str, line: int) -> PhhHand | None:
    """The ``PhhHand`` that ``text._read_hand`` returns for the PokerStars hand ``chunk`` (a hand
    of ``text._split``: its lines, ``\\n``-separated, right-stripped), or None when this reader
    is not certain of it (module docstring); never a hand the reference would skip."""
    try:
        return _read(chunk, session, source, key, line)
    except (_No, _t._Skip, PhhError, ValueError, KeyError, IndexError, TypeError,
            ArithmeticError, AttributeError):
        return None


def _read(chunk: str, session: str, source: str, key: str, line: int) -> PhhHand:
    low = chunk.lower()
    if ("twice" in low or "*** first " in low or "*** second " in low or "*** third " in low
            or "cashed out the hand for " in chunk or _ODD_BREAKS.search(chunk) is not None):
        raise _No
    lines = chunk.split("\n")
    header = lines[0]
    if (_HEADER.fullmatch(header) is None or len(header) > FACT_LINE_CHARS
            or _FACT(header) is None or "Seat" in header or "is the button" in header
            or "Dealt" in header or "*" in header or header.count(": ") != 1
            or " collected " in header or "| Rake" in header):
        raise _No
    game = _t._game(_SITE, header, session)
    table = _TABLE.fullmatch(lines[1]) if len(lines) > 1 else None
    if table is None or " collected " in lines[1] or "| Rake" in lines[1]:
        raise _No
    final_seat = int(table[1])
    kept = [header, lines[1]]
    seat_of: dict[str, int] = {}  # the header's seat lines
    stacks: dict[str, str] = {}
    taken: set[int] = set()
    seats_any: dict[str, str] = {}  # PokerKit's SEATS on every line (summary lines too)
    antes: dict[str, str] = {}
    blinds: dict[str, str] = {}  # in post order
    acts: list[tuple[int, str, Any, Any]] = []  # (kind, name, a, b) in line order
    dealt: set[str] = set()
    paid: dict[str, Decimal] = {}  # the outcome (``text._stars_outcome``): collect lines
    total: Decimal | None = None  # the first "Total pot" line's
    rake: Decimal | None = None  # the first "| Rake"
    phase = 0  # 0 seats, 1 posts and streets, 2 summary
    seats_re = _P.SEATS
    for ln in lines[2:]:
        if not ln:
            kept.append("")
            continue
        if ln[0] == " " or len(ln) > FACT_LINE_CHARS:
            raise _No
        c = ln[0]
        if c == "*":
            if ln in _STREET:
                if ln == "*** SUMMARY ***":
                    phase = 2
                elif phase == 0:
                    phase = 1
                kept.append(ln)
                continue
            if phase != 1:
                raise _No
            m = _FLOP.fullmatch(ln) or _TURN.fullmatch(ln) or _RIVER.fullmatch(ln)
            if m is None:
                raise _No
            acts.append((2, "", m[1], None))
            kept.append(ln)
            continue
        if c == "S" and ln.startswith("Seat "):
            if phase == 0:
                m = _SEAT.fullmatch(ln)
                if m is None:
                    raise _No
                seat, name = int(m[1]), m[2]
                if name in seat_of or seat in taken or not _name_ok(name):
                    raise _No
                seat_of[name] = seat
                taken.add(seat)
                stacks[name] = m[3]
            elif phase == 2:
                m = _SUMMARY_SEAT.fullmatch(ln)
                if (m is None or m[1].startswith(_BAD_START)
                        or any(b in m[1] for b in _SUMMARY_BAD) or " from " in m[1]):
                    raise _No
            else:
                raise _No
            s = seats_re.search(ln)
            if s is not None and seats_any.setdefault(s["player"], s["seat"]) != s["seat"]:
                raise _No  # the reference: "player in two seats"
            kept.append(ln)
            continue
        i = ln.find(": ")
        if i > 0 and phase == 0 and not ln.startswith("Seat "):
            phase = 1
        if i > 0:
            name = ln[:i]
            rest = ln[i + 2:]
            verb = rest.split(" ", 1)[0]
            pattern = _VERB.get(verb)
            if pattern is not None:
                m = pattern.fullmatch(rest)
                if m is None or phase != 1 or name not in seat_of:
                    raise _No
                if verb == "posts":
                    what = m[1]
                    book = antes if what == "the ante" else blinds
                    if name in book:
                        raise _No  # a post twice: the reference's "stated twice"
                    book[name] = m[2]
                    if what != "the ante":
                        acts.append((0, name, m[2], None))
                elif verb == "folds":
                    acts.append((3, name, None, None))
                elif verb == "checks":
                    acts.append((4, name, None, None))
                elif verb == "calls":
                    acts.append((4, name, None, None))
                elif verb == "bets":
                    acts.append((5, name, m[1], None))
                elif verb == "raises":
                    acts.append((5, name, m[1], m[2]))
                elif verb == "shows":
                    if m[2] is not None:  # PokerKit's pattern wants text after the cards
                        acts.append((6, name, m[1], None))
                # mucks hand / doesn't show hand: no pattern of the reference reads them
                kept.append(ln)
                continue
        elif phase >= 1:
            if c == "D" and ln.startswith("Dealt to "):
                m = _DEALT.fullmatch(ln)
                if m is None or m[1] not in seat_of or m[1] in dealt:
                    raise _No
                dealt.add(m[1])
                acts.append((1, m[1], m[2], None))
                kept.append(ln)
                continue
            if c == "U" and ln.startswith("Uncalled bet ("):
                m = _UNCALLED.fullmatch(ln)
                if m is None or m[2] not in seat_of:
                    raise _No
                kept.append(ln)
                continue
            if c == "T" and ln.startswith("Total pot "):
                m = _TOTAL.fullmatch(ln)
                if m is None:
                    raise _No
                if total is None:
                    total = Decimal(m[1])
                if rake is None and m[4] is not None:
                    rake = Decimal(m[4])
                kept.append(ln)
                continue
            if c == "B" and ln.startswith("Board ["):
                if _BOARD.fullmatch(ln) is None:
                    raise _No
                kept.append(ln)
                continue
            if " collected " in ln:
                m = _COLLECTED.fullmatch(ln)
                if m is not None:
                    who = ln[:ln.find(" collected ")]
                    if who not in seat_of:
                        raise _No
                    paid[who] = paid.get(who, Decimal(0)) + Decimal(m[1])
                    kept.append(ln)
                    continue
        # not a fact line this reader knows: a harmless table event, or the reference decides
        if _FACT(ln) is not None or _HARMLESS(ln) is None:
            raise _No
        phase = max(phase, 1)
    if phase != 2 or not paid:
        raise _No
    text = "\n".join(kept)
    if " collected " in text:  # PokerKit's winnings stage reads (and may refuse) these
        win = _P.PLAYER_VARIABLES["winnings"][0].search
        for ln in kept:
            if " collected " in ln and (m := win(ln)) is not None:
                _t._value(m["winnings"])
    claimed = ""  # the lines ``claims`` could read (it reads the whole hand)
    if any(w in chunk for w in _CLAIM_WORDS):
        claimed = "\n".join(ln for ln in lines if any(w in ln for w in _CLAIM_WORDS))
    outcome = _t.SiteOutcome(paid, total, rake, recorded=True)
    return _build(game, text, final_seat, seat_of, stacks, antes, blinds, acts, claimed,
                  outcome, session, source, key, line)


def _build(game: Any, text: str, final_seat: int, seat_of: dict[str, int],
           stack_text: dict[str, str], ante_text: dict[str, str], blind_text: dict[str, str],
           acts: list[tuple[int, str, Any, Any]], claimed: str, outcome: _t.SiteOutcome,
           session: str, source: str,
           key: str, line: int) -> PhhHand:
    """The reference's ``_fields`` and ``_read_hand`` from the facts read."""
    value = _t._value
    parsed_players = {a[1] for a in acts if a[0] in (0, 3, 4, 5, 6)} | set(ante_text)
    if any(a[1] not in parsed_players for a in acts if a[0] == 1):
        raise _No  # dealt cards to a player who does nothing: the reference cannot name him
    players = sorted(parsed_players, key=seat_of.__getitem__)
    if len(players) < 2:
        raise _No
    seats = [seat_of[x] for x in players]
    blinds: defaultdict[str, Any] = defaultdict(int)
    for name, raw in blind_text.items():
        blinds[name] = value(raw)
    antes: defaultdict[str, Any] = defaultdict(int)
    for name, raw in ante_text.items():
        antes[name] = value(raw)
    stacks = {name: value(raw) for name, raw in stack_text.items()}
    if final_seat in seats:
        fi = seats.index(final_seat)
    elif blinds:
        first = players.index(next(iter(blinds)))
        fi = first if len(players) == 2 else first - 1
    else:
        raise _No
    players = list(rotated(players, -fi - 1))
    for name in players[2:]:
        blinds[name] = -blinds[name] - 0
    n = len(players)
    ante_list = [antes[x] for x in players]
    blind_list = [blinds[x] for x in players]
    if n == 2:
        ante_list.reverse()
        blind_list.reverse()
    actions = _actions(acts, players, value)
    actions = _t._complete_actions(actions, n, False)
    if n > 2 and 0 < blind_list[1] <= blind_list[0] and blind_list[1] == stacks[players[1]]:
        raise _No
    bb_posted = (max(abs(b) for b in blind_list[:2]) if any(blind_list[:2])
                 else _t._bb_of(blinds, players))
    doc: dict[str, Any] = {
        "variant": game.variant, "antes": ante_list, "blinds_or_straddles": blind_list,
        **_t._bet_sizes(game, bb_posted),
        "starting_stacks": [stacks[x] for x in players], "actions": actions,
        "players": list(players), "seats": [seat_of[x] for x in players],
        "venue": _SITE.venue,
    }
    variables = _variables(text)
    for k in ("time", "day", "month", "year", "time_zone_abbreviation", "hand", "table",
              "seat_count", "currency", "currency_symbol"):
        if variables.get(k) is not None:
            doc[k] = variables[k] if k not in ("hand", "table") else str(variables[k])
    if "hand" not in doc:
        number = _t._HAND_NO["pokerstars"].search(text[:2000])
        if number is not None:
            doc["hand"] = number.group(1)[:200]
    head = "\n".join(text.split("\n", 6)[:6])
    tournament = _t._tournament(_SITE, text, session)
    if tournament is not None:
        doc["currency"] = "chips"
        doc.pop("currency_symbol", None)
    if "currency" not in doc:
        m = _t._CURRENCY.search(head)
        if m is not None:
            doc["currency"] = m.group(1)
    doc["_tournament"] = tournament
    doc["_names"] = list(players)
    h = hand_from_dict(doc, source, key, line)
    if tournament:
        h = replace(h, tournament=tournament, level=level_of("pokerstars", head),
                    tournament_buy_in=buy_in("pokerstars", head),
                    claims=claims("pokerstars", claimed, doc["_names"]))
    got = _t.with_outcome(h, outcome, doc["_names"])
    return _t.answered_as_calls(got, h, doc, source, key, line)


def _actions(acts: list[tuple[int, str, Any, Any]], players: list[str], value: Any,
             ) -> list[str]:
    """``relines.LineParser._parse_actions`` (with ``_Stars``' raise-to) from the lines read."""
    index = {name: f"p{i + 1}" for i, name in enumerate(players)}
    bets: dict[str, Any] = {}
    out: list[str] = []
    for kind, name, a, b in acts:
        if kind == 2:
            out.append(f"d db {a.replace(' ', '')}")
            bets.clear()
            continue
        p = index[name]
        if kind == 0:
            bets[p] = value(a)
        elif kind == 1:
            out.append(f"d dh {p} {a.replace(' ', '')}")
        elif kind == 3:
            out.append(f"{p} f")
        elif kind == 4:
            out.append(f"{p} cc")
            bets[p] = max(bets.values(), default=0)
        elif kind == 5:
            top = max(bets.values(), default=0)
            to = value(b) if b is not None else top + value(a)
            bets[p] = to
            out.append(f"{p} cc" if to <= top else f"{p} cbr {to}")
        else:
            out.append(f"{p} sm {a.replace(' ', '')}")
    return out


def _variables(text: str) -> dict[str, Any]:
    """``_Stars``' header variables (``LineParser._parse_variables``) of the screened text."""
    found: dict[int, Any] = {}
    out: dict[str, Any] = {}
    for k, (pattern, parse) in _P.VARIABLES.items():
        pid = id(pattern)
        if pid not in found:
            found[pid] = pattern.search(text)
        m = found[pid]
        if m and k in m.groupdict():
            out[k] = (parse or _t._value)(m[k])
    return out
