"""The project's own reader of a site's text export, line by line: for the sites PokerKit has
no parser of (GGPoker, 888/Pacific, Winamax, WPN/ACR, Cake; one small module each).

A site module describes its text as a ``Site``: the line that starts a hand, a ``header``
function (the hand's first lines: hand number, game, stakes, tournament, level, table, time), the
seat line, and its RULES: one anchored pattern per line shape, each of a KIND (below). The player
names of a hand are those of its seat lines; ``{P}`` in a rule is the alternation of exactly those
names (longest first), so names with spaces (Winamax ``dies irae 67``) or with the words of an
action in them read right, and a line naming a player without a seat is not a known shape.

Every line of a hand must match a rule, or the hand is skipped "unrecognised line" naming the
file line and its text: a line the reader does not understand may move chips. Amounts are exact
(``Decimal`` from the text; ``1,050``, ``$0.02``, ``0.02€`` and ``( $0.91 )`` alike). What the
text states twice is checked against itself: a seat, stack or hole card stated twice with
another value, a call of another amount than the rules' call, an uncalled bet returned that is
not the uncalled bet, a board restated otherwise, a summary's ``won (X)`` that is not what the
pot lines paid: each a named skip ("stated twice", "bad action"), never the last value kept.

Kinds (the groups a rule's pattern has):
- ``seat`` (seat, player, stack; dealer: the button's seat line, Cake), ``button`` (seat);
- posts: ``ante``/``sb``/``bb``/``dead`` (player, amount), ``deadbb`` (player, dead, amount: a
  returning player's dead small blind and live big blind); ``deal`` (the hole cards are dealt:
  a ``fold`` before it by a player who posted nothing is a player sitting the hand out, 888);
- actions: ``fold``/``check`` (player), ``call``/``bet``/``raise_by``/``allin`` (player,
  amount: the chips the action ADDS), ``raise_to`` (player, amount: the street total),
  ``allin_street`` (an all-in read only where the player has put nothing in on the street,
  where the amount added and the street total are one; else a named skip);
- cards: ``hole`` (player, cards optional; several lines add cards), ``board`` (cards: the
  street's new cards; old: the board restated, optional), ``show``/``muck`` (player, cards
  optional: a muck's cards are dealt cards, the player mucks);
- outcome: ``collect`` (player, amount: paid from a pot after the rake, summed), ``uncalled``
  (player, amount), ``total`` (amount; every other amount group, rake, jackpot, ..., is kept by
  the site and summed into the rake; a ``norake`` group: the line states a rake of 0; an
  ``after`` group: the pot is stated after the rake),
  ``won`` (player, amount: the summary's restatement of a payment), ``seatsum`` (player, bets,
  amount, cards or mcards: WPN's summary line of a player's total bet, what he collected and
  his cards shown or mucked);
- ``skip`` (a shape read exactly but not supported: a named skip), ``none`` (a line that states
  no fact: street markers, restatements of seats and boards).

The result is a PHH hand (``sim.histories.read.phh.hand_from_dict``: the standard's player
order, p1 the small blind ... the button last, heads-up reversed), with the outcome read as
``sim.histories.sites.text`` reads the other sites: ``winnings`` what each player collected after
the rake without his own uncalled bet, ``total_pot`` and ``rake`` as stated (None when the text
states none).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from re import Pattern
from typing import Any

from sim.histories.read.phh import PhhError, PhhFile, PhhHand, PhhSkip, hand_from_dict
from sim.histories.sites.tournament_head import buy_in

__all__ = ["AMT", "CARDS", "Header", "Site", "Skip", "amount", "read_site"]

MAX_LINE_CHARS = 2_000  # as sim.histories.sites.text: a longer line skips its hand
MAX_HAND_LINES = 2_000
NAME_CHARS = 40

# an amount as these sites write it: an optional currency sign before or after, thousands
# commas, a decimal point (888: "( $0.91 )", "[$0.02]", Winamax: "0.02€", GGPoker: "1,050")
AMT = r"[$€£]?\s?[0-9][0-9,]{0,15}(?:\.[0-9]{1,6})?\s?(?:[$€£]|USD|EUR)?"
CARDS = r"[2-9TJQKA10][cdhs](?:[ ,]{1,2}(?:[2-9TJQKA]|10)[cdhs]){0,4}"


class Skip(Exception):
    """A hand the reader refuses, with its reason (a ``PhhSkip`` kind's needle first)."""


def amount(text: str) -> Decimal:
    """An amount's exact value from its text (``$1,050.50``, ``0.02€``, ``[ $0.05 ]``)."""
    t = re.sub(r"[\s$€£\[\]()]|USD|EUR", "", text).replace(",", "")
    try:
        v = Decimal(t)
    except InvalidOperation:
        raise Skip(f"bad action: amount {text.strip()!r}: expected a number") from None
    if not v.is_finite() or v < 0:
        raise Skip(f"bad action: amount {text.strip()!r}: expected a number")
    return v


@dataclass
class Header:
    """What a hand's header states."""

    hand: str
    variant: str  # NT, PT or FT
    stakes: tuple[Decimal, Decimal] | None = None  # FT: the small and big bet when stated
    bets_are_blinds: bool = False  # FT: the header's stakes are the blinds (bets: bb, 2 bb)
    tournament: str | None = None
    level: int | None = None  # counted from 1
    table: str | None = None
    seat_count: int | None = None
    button: int | None = None
    when: _dt.datetime | None = None
    zone: str | None = None
    currency: str | None = None
    lines: int = 1  # how many of the hand's first lines the header read


@dataclass(frozen=True)
class Site:
    name: str  # the format's name
    venue: str
    starts: Pattern[str]  # a line that starts a hand
    header: Callable[[list[str]], Header]  # the hand's lines -> its header (Skip: refused)
    seat: Pattern[str]  # groups seat, player, stack
    rules: tuple[tuple[str, str], ...]  # (pattern with {P} for a player, kind)
    ends: Pattern[str]  # a hand without a line matching this is truncated
    skip_rules: tuple[tuple[Pattern[str], str], ...] = ()  # (shape, reason): a named skip
    start_pairs: bool = False  # two start lines of one hand number may open it (888)
    states_uncalled: bool = True  # the text returns an uncalled bet in a line of its own
    walk_pays_blind: bool = False  # in a walk the big blind "collects" his own blind too (888)
    pot_holds_uncalled: bool = False  # collected and total pot include the uncalled bet (Winamax)


@dataclass
class _State:
    names: list[str]
    seats: dict[str, int]
    stacks: dict[str, Decimal]
    button: int | None
    antes: dict[str, Decimal] = field(default_factory=dict)
    sb: dict[str, Decimal] = field(default_factory=dict)
    bb: dict[str, Decimal] = field(default_factory=dict)
    dead: dict[str, Decimal] = field(default_factory=dict)
    holes: dict[str, list[str]] = field(default_factory=dict)
    shows: dict[str, list[str] | None] = field(default_factory=dict)  # None: mucked
    acts: list[tuple[str, str, Decimal | None]] = field(default_factory=list)  # (verb, who, to)
    board: list[str] = field(default_factory=list)
    paid: dict[str, Decimal] = field(default_factory=dict)
    won: dict[str, Decimal] = field(default_factory=dict)
    uncalled: dict[str, Decimal] = field(default_factory=dict)
    bets: dict[str, Decimal] = field(default_factory=dict)  # a summary's stated total bets
    total: Decimal | None = None
    rake: Decimal | None = None
    street: int = 0
    put: dict[str, Decimal] = field(default_factory=dict)  # this street
    left: dict[str, Decimal] = field(default_factory=dict)  # stack left
    folded: set[str] = field(default_factory=set)
    acted: bool = False  # a betting action was read (posts are over)
    dealt: bool = False  # the site's "cards are dealt" line was read
    marks_deal: bool = False  # the site writes such a line (a rule of kind "deal")
    out: set[str] = field(default_factory=set)  # declined to post before the deal: sat out


def _name_alt(names: list[str]) -> str:
    alt = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return f"(?P<player>{alt})"


def _cards(text: str | None) -> list[str]:
    if not text:
        return []
    out = []
    for w in re.split(r"[\s,]+", text.strip()):
        if not w:
            continue
        w = w.replace("10", "T")
        if not re.fullmatch(r"[2-9TJQKA][cdhs]", w):
            raise Skip(f"bad action: card {w!r}: expected a card such as Ah")
        out.append(w)
    return out


def _split(text: str, site: Site) -> Iterator[tuple[int, list[tuple[int, str]]]]:
    """(line number of the hand's first line, its non-blank lines with their numbers)."""
    cur: list[tuple[int, str]] = []
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip().lstrip("\ufeff")
        if not line:
            continue
        if site.starts.match(line):
            if cur and not (site.start_pairs and all(site.starts.match(x) for _, x in cur)):
                yield cur[0][0], cur
                cur = []
            cur.append((no, line))
        elif cur:
            cur.append((no, line))
    if cur:
        yield cur[0][0], cur


def read_site(text: str, source: str, site: Site) -> PhhFile:
    """The hands of a site's text export and the hands skipped, each with its reason."""
    hands: list[PhhHand] = []
    skipped: list[PhhSkip] = []
    index = 0
    for line_no, lines in _split(text.lstrip("\ufeff"), site):
        index += 1
        got = _read_hand(site, lines, source, str(index), line_no)
        (skipped if isinstance(got, PhhSkip) else hands).append(got)  # type: ignore[arg-type]
    if index == 0:
        return PhhFile(source, [], [PhhSkip(source, None, 0, None, (
            f"no hand in the file (a {site.name} text without a hand)"))], format=site.name)
    return PhhFile(source, hands, skipped, format=site.name)


_HAND_NO = re.compile(r"(?:Game No : |Game ID: |HandId: #|Hand ?#)([A-Z]{0,3}[0-9][0-9-]*)")


def _read_hand(site: Site, lines: list[tuple[int, str]], source: str, key: str,
               line: int) -> PhhHand | PhhSkip:
    m = _HAND_NO.search("\n".join(ln for _, ln in lines[:3]))
    number = None if m is None else m.group(1)[:200]
    for no, ln in lines:
        if len(ln) > MAX_LINE_CHARS:
            return PhhSkip(source, key, line, number, (
                f"line {no} has {len(ln)} characters: expected at most {MAX_LINE_CHARS}"))
    if len(lines) > MAX_HAND_LINES:
        return PhhSkip(source, key, line, number, (
            f"the hand has over {MAX_HAND_LINES} lines: expected at most that"))
    if not any(site.ends.search(ln) for _, ln in lines):
        end = re.sub(r"\\(.)", r"\1", site.ends.pattern).strip("^$")
        return PhhSkip(source, key, line, number, f"truncated hand: no {end!r} line")
    try:
        head = site.header([ln for _, ln in lines])
        number = head.hand
        got = _build(site, head, lines, source, key, line)
        if head.tournament is not None:  # the buy-in its header states (tournament_head.py)
            got = replace(got, tournament_buy_in=buy_in(
                site.name, "\n".join(ln for _, ln in lines[:head.lines])))
        return got
    except Skip as e:
        return PhhSkip(source, key, line, number, str(e))
    except PhhError as e:
        reason = str(e)
        prefix = f"{source} [{key}]: "
        return PhhSkip(source, key, line, number,
                       reason[len(prefix):] if reason.startswith(prefix) else reason)
    except (ValueError, KeyError, IndexError, TypeError, ArithmeticError, AttributeError) as e:
        return PhhSkip(source, key, line, number,
                       f"cannot parse the hand ({type(e).__name__}: {str(e)[:200]})")


def _seats(site: Site, head: Header, lines: list[tuple[int, str]]) -> _State:
    seats: dict[str, int] = {}
    stacks: dict[str, Decimal] = {}
    holder: dict[int, str] = {}
    button = head.button
    for _, ln in lines[head.lines:]:
        m = site.seat.fullmatch(ln)
        if m is None:
            continue
        name, seat, stack = m["player"], int(m["seat"]), amount(m["stack"])
        if len(name) > NAME_CHARS:
            raise Skip(f"bad action: player name {name[:60]!r}...: expected at most "
                       f"{NAME_CHARS} characters")
        if seats.setdefault(name, seat) != seat:
            raise Skip(f"player in two seats: {name[:60]!r} has seats {seats[name]} and {seat}")
        if holder.setdefault(seat, name) != name:
            raise Skip(f"stated twice: seat {seat} is {holder[seat][:60]!r} and {name[:60]!r}")
        if stacks.setdefault(name, stack) != stack:
            raise Skip(f"stated twice: {name[:60]!r}'s stack is {stacks[name]} and {stack}")
        if m.groupdict().get("dealer"):  # the button marked on its seat line (Cake)
            if button is not None and button != seat:
                raise Skip(f"stated twice: the button seat is {button} and {seat}")
            button = seat
    if len(seats) < 2:
        raise Skip(f"fewer than 2 players in the hand ({len(seats)})")
    names = sorted(seats, key=seats.__getitem__)
    return _State(names, seats, stacks, button, left=dict(stacks),
                  put=dict.fromkeys(names, Decimal(0)))


def _build(site: Site, head: Header, lines: list[tuple[int, str]], source: str, key: str,
           line: int) -> PhhHand:
    st = _seats(site, head, lines)
    st.marks_deal = any(kind == "deal" for _, kind in site.rules)
    rules = _rules(site, tuple(st.names))
    for no, ln in lines[head.lines:]:
        if site.seat.fullmatch(ln) is not None:
            continue
        for shape, reason in site.skip_rules:
            if shape.search(ln):
                raise Skip(f"unsupported: {reason} (line {no}: {ln[:120]!r})")
        for pattern, kind in rules:
            m = pattern.fullmatch(ln)
            if m is not None:
                _event(st, kind, m, no, ln)
                break
        else:
            raise Skip(f"unrecognised line: line {no} {ln[:120]!r}: a line the importer does not "
                       "understand may move chips")
    return _hand(site, head, st, source, key, line)


@lru_cache(maxsize=256)
def _rules(site: Site, names: tuple[str, ...]) -> list[tuple[Pattern[str], str]]:
    """A site's line shapes with ``{P}`` the names of one hand's seats (a table's hands share
    them: cached)."""
    p = _name_alt(list(names))
    return [(re.compile(pat.replace("{P}", p)), kind) for pat, kind in site.rules]


def _g(m: Any, name: str) -> str | None:
    return m.groupdict().get(name)


def _event(st: _State, kind: str, m: Any, no: int, ln: str) -> None:
    who = _g(m, "player")
    at = f"(line {no}: {ln[:120]!r})"
    amt = amount(m["amount"]) if _g(m, "amount") is not None else None
    if kind == "none":
        return
    if kind == "deal":
        st.dealt = True
        return
    if kind == "button":
        seat = int(m["seat"])
        if st.button is not None and st.button != seat:
            raise Skip(f"stated twice: the button seat is {st.button} and {seat}")
        st.button = seat
        return
    if kind in ("ante", "sb", "bb", "dead", "deadbb"):
        assert who is not None and amt is not None
        if kind == "deadbb":  # a returning player's big blind (live) and small blind (dead)
            _event(st, "dead", _Fake({"player": who, "amount": m["dead"]}), no, ln)
            kind = "bb"
        if st.acted:
            raise Skip(f"unsupported: a post after the betting began {at}")
        book = {"ante": st.antes, "sb": st.sb, "bb": st.bb, "dead": st.dead}[kind]
        if who in book:
            raise Skip(f"stated twice: {who[:60]!r} posts a {kind} twice")
        if amt > st.left[who]:
            raise Skip(f"bad post: {who[:60]!r} posts {amt} with {st.left[who]} {at}")
        book[who] = amt
        st.left[who] -= amt
        if kind in ("sb", "bb"):
            st.put[who] += amt
        return
    if kind == "hole":
        assert who is not None
        cards = _cards(_g(m, "cards"))
        st.holes.setdefault(who, []).extend(cards)
        if len(st.holes[who]) > 2:
            raise Skip(f"stated twice: {who[:60]!r} is dealt {len(st.holes[who])} hole cards")
        return
    if kind == "board":
        old, new = _cards(_g(m, "old")), _cards(m["cards"])
        if old and old != st.board:
            raise Skip(f"stated twice: the board is {' '.join(st.board)} and {' '.join(old)} {at}")
        if not new:
            raise Skip(f"bad action: a street without its cards {at}")
        _close_street(st)
        st.board.extend(new)
        st.acts.append(("db", "".join(new), None))
        return
    if kind in ("show", "muck"):
        assert who is not None
        cards = _cards(_g(m, "cards"))
        if cards:
            known = st.holes.setdefault(who, [])
            if known and sorted(known) != sorted(cards):
                raise Skip(f"stated twice: {who[:60]!r}'s hole cards are {' '.join(known)} and "
                           f"{' '.join(cards)}")
            st.holes[who] = cards
        prev = st.shows.get(who, "unset")
        value = cards if kind == "show" else None
        if prev != "unset" and prev != value and not (kind == "muck" and prev):
            raise Skip(f"stated twice: {who[:60]!r} shows and mucks {at}")
        if prev == "unset" or kind == "show":
            st.shows[who] = value
        return
    if kind == "collect":
        assert who is not None and amt is not None
        st.paid[who] = st.paid.get(who, Decimal(0)) + amt
        return
    if kind == "seatsum":  # WPN: a player's summary (his cards, bets and what he collected)
        assert who is not None and amt is not None
        if _g(m, "cards"):
            _event(st, "show", _Fake({"player": who, "cards": m["cards"]}), no, ln)
        elif _g(m, "mcards") or _g(m, "mucks"):
            _event(st, "muck", _Fake({"player": who, "cards": _g(m, "mcards") or ""}), no, ln)
        if who in st.bets:
            raise Skip(f"stated twice: {who[:60]!r}'s summary line {at}")
        st.bets[who] = amount(m["bets"])
        if amt:
            st.paid[who] = st.paid.get(who, Decimal(0)) + amt
        return
    if kind == "won":
        assert who is not None and amt is not None
        st.won[who] = st.won.get(who, Decimal(0)) + amt
        return
    if kind == "uncalled":
        assert who is not None and amt is not None
        if who in st.uncalled:
            raise Skip(f"stated twice: an uncalled bet returned to {who[:60]!r} twice")
        st.uncalled[who] = amt
        return
    if kind == "total":
        if st.total is not None:
            raise Skip(f"stated twice: the total pot {at}")
        kept = [amount(v) for k, v in m.groupdict().items()
                if k not in ("amount", "after", "norake") and v is not None]
        # ``norake``: the line states that the site kept nothing (Winamax ``| No rake``): a
        # rake of 0, never "not stated" (which lets a take within the schedule pass)
        st.rake = sum(kept, Decimal(0)) if kept or _g(m, "norake") is not None else None
        st.total = amt
        if amt is not None and _g(m, "after") is not None:  # WPN: the pot after the rake
            st.total = amt + (st.rake or Decimal(0))
        return
    if kind == "skip":
        raise Skip(f"unsupported: {m.groupdict().get('why') or 'a line'} {at}")
    assert who is not None
    if who in st.out:
        raise Skip(f"bad action: {who[:60]!r} acts after sitting the hand out {at}")
    if who in st.folded:
        raise Skip(f"bad action: {who[:60]!r} acts after folding {at}")
    if kind == "fold" and st.marks_deal and not st.dealt and who not in st.sb and \
            who not in st.bb and who not in st.antes:
        st.out.add(who)  # 888: a player who declines his blind "folds" before the deal
        return
    st.acted = True
    top = max(st.put.values())
    mine = st.put[who]
    if kind == "fold":
        st.folded.add(who)
        st.acts.append(("f", who, None))
        return
    if kind == "check":
        if mine != top and st.left[who] > 0:
            raise Skip(f"bad action: {who[:60]!r} checks facing a bet of {top - mine} {at}")
        st.acts.append(("cc", who, None))
        return
    assert amt is not None
    if kind == "allin_street" and mine:  # "is all in $X": the same added or as the street total
        raise Skip(f"unsupported: an all-in of {amt} after {mine} on the street: the text does "
                   f"not say whether it adds {amt} or makes the street total {amt} {at}")
    to = amt if kind == "raise_to" else mine + amt
    add = to - mine
    if add > st.left[who]:
        raise Skip(f"bad action: {who[:60]!r} puts in {add} with {st.left[who]} left {at}")
    if kind == "call" or (kind in ("allin", "allin_street") and to <= top):
        owed = min(top - mine, st.left[who])
        if add > owed and any(v == top and not st.left[x] for x, v in st.bb.items()):
            # ACR 2651598942: ``posts the big blind 419.00 and is all-in`` at 2500/5000, the next
            # player ``calls 5000.00``: the site has the others call the full big blind
            raise Skip(f"unsupported: the big blind all in for {top}, less than a big blind: the "
                       f"site has the others call the full big blind, the engine the amount "
                       f"posted {at}")
        if add != owed:
            raise Skip(f"bad action: {who[:60]!r} calls {add}, the call is {owed} {at}")
        st.acts.append(("cc", who, None))
    else:
        if to <= top and not (kind == "bet" and top == 0):
            raise Skip(f"bad action: {who[:60]!r} {kind.replace('_', 's ')} to {to}, not above "
                       f"the bet of {top} {at}")
        st.acts.append(("cbr", who, to))
    st.put[who] = to
    st.left[who] -= add


class _Fake:
    """A match of given groups (a line that states two posts)."""

    def __init__(self, groups: dict[str, str]) -> None:
        self._g = groups

    def __getitem__(self, k: str) -> str:
        return self._g[k]

    def groupdict(self) -> dict[str, str]:
        return self._g


def _close_street(st: _State) -> None:
    st.street += 1
    st.put = dict.fromkeys(st.names, Decimal(0))


def _order(st: _State) -> list[str]:
    """The players in the standard's order: from the seat after the button round to the
    button; only players dealt in (a seat with no post, card or action sat the hand out)."""
    inn = [n for n in st.names if n not in st.out and (
           n in st.antes or n in st.sb or n in st.bb or n in st.dead or n in st.holes
           or any(who == n for _, who, _ in st.acts))]
    if len(inn) < 2:
        raise Skip(f"fewer than 2 players in the hand ({len(inn)})")
    if st.button is None:
        raise Skip("no button seat in the hand")
    after = [n for n in inn if st.seats[n] > st.button] + [n for n in inn
                                                            if st.seats[n] <= st.button]
    return after


def _hand(site: Site, head: Header, st: _State, source: str, key: str, line: int) -> PhhHand:
    from sim.histories.sites.text import (  # noqa: PLC0415 (text imports us)
        SiteOutcome,
        answered_as_calls,
        with_outcome,
    )

    players = _order(st)
    n = len(players)
    index = {x: i for i, x in enumerate(players)}
    sbs = list(st.sb)
    if len(sbs) > 1:
        raise Skip(f"unsupported: {len(sbs)} small blinds posted")
    blinds = [Decimal(0)] * n
    if n == 2:  # heads-up: the button posts the small blind, p1 the big blind
        if sbs and index[sbs[0]] != 1 or any(index[x] != 0 for x in st.bb):
            raise Skip("unsupported: heads-up blinds reversed (the button posts the big blind)")
        if st.dead:
            raise Skip("unsupported: a dead blind posted heads-up")
        blinds = [st.bb.get(players[0], Decimal(0)), st.sb.get(players[1], Decimal(0))]
    else:
        if sbs and index[sbs[0]] != 0:
            raise Skip("unsupported: the small blind is not posted by the seat after the button")
        first_bb = 1 if sbs else 0  # one blind only: p1 posts the big blind
        if players[first_bb] not in st.bb:
            raise Skip("unsupported: no big blind posted by the seat after the small blind")
        for i, x in enumerate(players):
            live, dead = st.bb.get(x, Decimal(0)) if i > 0 or not sbs else Decimal(0), \
                st.dead.get(x, Decimal(0))
            if i == 0 and sbs:
                blinds[0] = st.sb[x]
                if dead:
                    raise Skip(f"unsupported: dead money posted by {x[:60]!r} from a blind's seat")
            elif i == first_bb:
                blinds[i] = live
                if dead:
                    raise Skip(f"unsupported: dead money posted by {x[:60]!r} from a blind's seat")
            elif live or dead:  # a returning player's post: its big blind live, the rest dead
                if live and live != st.bb[players[first_bb]]:
                    raise Skip(f"unsupported: {x[:60]!r} posts {live}, not the big blind")
                if not live and dead >= st.bb[players[first_bb]]:
                    raise Skip(f"unsupported: a dead post by {x[:60]!r} of a big blind or more "
                               "without a live blind")
                blinds[i] = -(live + dead)
    bb = max((abs(v) for v in blinds[:2]), default=Decimal(0))
    if bb <= 0:
        raise Skip("unsupported: no big blind posted")
    antes = [st.antes.get(x, Decimal(0)) for x in players]
    if n == 2:
        blinds.reverse()
        antes.reverse()
    doc: dict[str, Any] = {
        "variant": head.variant, "antes": [_num(v) for v in antes],
        "blinds_or_straddles": [_num(v) for v in blinds],
        "starting_stacks": [_num(st.stacks[x]) for x in players],
        "players": players, "seats": [st.seats[x] for x in players], "venue": site.venue,
        "hand": head.hand,
    }
    if head.variant == "FT":
        if head.stakes is None:
            raise Skip("fixed-limit hold'em without its stakes in the header")
        a, b = head.stakes
        small = b if head.bets_are_blinds else a
        if not head.bets_are_blinds and b != 2 * a:
            raise Skip(f"fixed-limit stakes {a}/{b}: expected a big bet twice the small bet")
        doc["small_bet"], doc["big_bet"] = _num(small), _num(2 * small)
    else:
        doc["min_bet"] = _num(bb)
    doc["actions"] = _actions(st, players)
    for k, v in (("table", head.table), ("seat_count", head.seat_count),
                 ("time_zone_abbreviation", head.zone)):
        if v is not None:
            doc[k] = v
    if head.seat_count is not None and max(doc["seats"]) > head.seat_count:
        doc.pop("seat_count")
    if head.when is not None:
        doc.update(year=head.when.year, month=head.when.month, day=head.when.day,
                   time=head.when.time())
    if head.tournament is not None:
        doc["currency"] = "chips"
        doc["event"] = head.tournament
        doc["level"] = head.level if head.level is not None and head.level >= 1 else 1
    elif head.currency is not None:
        doc["currency"] = head.currency
    h = hand_from_dict(doc, source, key, line)
    h = replace(h, tournament=head.tournament, level=head.level if head.tournament else None)
    walk = not st.board and all(verb == "f" for verb, _, _ in st.acts)
    if site.states_uncalled and not site.pot_holds_uncalled and not (walk and
                                                                     site.walk_pays_blind):
        _check_uncalled(h, st, players)
    if st.won and st.paid and {k: v for k, v in st.won.items() if v} != {
            k: v for k, v in st.paid.items() if v}:
        raise Skip(f"stated twice: the pot lines pay {_fmt(st.paid)} and the summary "
                   f"{_fmt(st.won)}")
    paid = st.paid or st.won
    total = st.total
    holds_uncalled = site.pot_holds_uncalled or (site.walk_pays_blind and walk)
    if holds_uncalled and total is not None:  # the pot as stated holds the uncalled bet
        from sim.histories.sites.text import pot_contributions  # noqa: PLC0415

        total -= sum((Decimal(v) for v in pot_contributions(h)[1]), Decimal(0))
    outcome = SiteOutcome(dict(paid), total, st.rake, recorded=bool(paid),
                       includes_uncalled=holds_uncalled)
    got = with_outcome(h, outcome, players)
    # a raise nobody can answer (every other player folded or all in for no more than the bet
    # faced) is replayed as the call it amounts to, as the PokerKit sites' (text.py): the site
    # returns its excess as an uncalled bet (ACR 718599164: ``raises 52615.00 to 54615.00 and
    # is all-in`` over an all-in of 54,200, the big blind all in for less; ``Uncalled bet
    # (415.00)``), which the checks above read from the raise as the text states it
    return answered_as_calls(got, h, doc, source, key, line)


def _fmt(d: dict[str, Decimal]) -> str:
    return ", ".join(f"{k[:40]} {v}" for k, v in sorted(d.items()))


def _check_uncalled(h: PhhHand, st: _State, players: list[str]) -> None:
    from sim.histories.sites.text import pot_contributions  # noqa: PLC0415

    put, back = pot_contributions(h)
    for i, x in enumerate(players):
        if x in st.bets and Decimal(put[i]) != st.bets[x]:
            raise Skip(f"stated twice: {x[:60]!r} bets {st.bets[x]} in the summary, his actions "
                       f"put in {put[i]}")
    for i, x in enumerate(players):
        stated = st.uncalled.get(x, Decimal(0))
        if Decimal(back[i]) != stated:
            raise Skip(f"stated twice: the uncalled bet returned to {x[:60]!r} is {stated} in "
                       f"the text, the actions leave {back[i]}")


def _actions(st: _State, players: list[str]) -> list[str]:
    index = {x: i for i, x in enumerate(players)}
    out = [f"d dh p{index[x] + 1} {''.join(st.holes.get(x) or []) or '????'}"
           if len(st.holes.get(x) or []) in (0, 2) else _bad_hole(x) for x in players]
    for verb, who, to in st.acts:
        if verb == "db":
            out.append(f"d db {who}")
            continue
        if who not in index:
            raise Skip(f"bad action: {who[:60]!r} acts but is not dealt in")
        out.append(f"p{index[who] + 1} {verb}" + (f" {_num(to)}" if to is not None else ""))
    live = [x for x in players if x not in st.folded]
    if len(live) >= 2:  # a showdown: each live player shows, mucks, or is unrecorded
        for x in live:
            shown = st.shows.get(x, "unset")
            if shown == "unset":
                out.append(f"p{index[x] + 1} sm ????")
            elif shown is None:
                out.append(f"p{index[x] + 1} sm")
            else:
                out.append(f"p{index[x] + 1} sm {''.join(shown)}")
    return out


def _bad_hole(x: str) -> str:
    raise Skip(f"bad action: {x[:60]!r} is dealt one hole card")


def _num(v: Decimal | None) -> Any:
    assert v is not None
    return int(v) if v == v.to_integral_value() else v
