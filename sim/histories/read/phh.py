"""Read and write hand histories in the PHH format (the phh-std project's TOML standard).

Reading, per hand: ``read_phh(path)`` (``reads_phh(text)``) returns a ``PhhFile``: the hands of a
``.phh`` file (one hand) or of a ``.phhs`` file (several hands, each under a table key such as
``[1]``, the key and its line kept on the hand) and the ``skipped`` sections, each with a named
reason (file, section key, line, the site's hand number when readable). A section that cannot be
read never stops the rest of the file; nothing raises for bad content (not TOML, a truncated
section, a huge line, ``1e400``, ``nan``, negative stacks ...). ``load_phh``/``loads_phh`` are the
strict form: the hands, or ``PhhError`` for the first skipped section. ``iter_phh_paths``
expands folders recursively in a deterministic (natural) order. The TOML is read by
``sim.histories.read.sections`` (a purpose-built reader equal to ``tomllib``, which it falls back
to).

What is kept: the state-construction fields (``variant``, ``antes``, ``blinds_or_straddles``,
``min_bet``, ``small_bet``, ``big_bet``, ``starting_stacks``, ``actions``), ``finishing_stacks``,
``ante_trimming_status`` (default false, as the standard says), ``players`` and every other
field in ``extra``; and, typed, the optional fields of the standard a lab needs: ``winnings``,
``hand`` (the site's hand number, as text), ``table``, ``seats``, ``seat_count``, ``time``,
``day``/``month``/``year``, ``time_zone_abbreviation``, ``venue``, ``currency``,
``currency_symbol``. TOML comments, action commentaries (``# ...``) and user-defined fields (a
leading underscore) are dropped.

Money is exact: no float ever holds an amount. Amounts are parsed from their text as
``decimal.Decimal`` and kept as ``int`` when integral (``9900.0`` and ``2.00`` are ``int``), else
as ``Decimal`` (``22.80``). ``inf`` in ``starting_stacks`` is an unknown stack (kept as
``Decimal('Infinity')``; ``unknown_stacks`` names them); ``nan``, any other ``inf``, a negative
amount (except a dead blind: a negative ``blinds_or_straddles`` entry), an amount of
``MAX_AMOUNT`` or more or with more than ``MAX_SCALE`` decimals skips the hand with its reason.
``PhhHand.scale`` is the smallest number of decimals making every amount of the hand integral;
``PhhHand.minor_units(scale)`` converts the hand's amounts to integers (e.g. cents: scale 2).

Player order (standard): p1 is the small blind ... the last player has the button; heads-up the
arrays ``antes`` and ``blinds_or_straddles`` are assigned in reverse (p1 posts the big blind and
the big blind's ante, p2 is the button and posts the small blind).

Variants: ``NT`` (no-limit) and ``FT`` (fixed-limit) Texas hold'em, and ``PT`` (pot-limit Texas
hold'em, an extension of this project with the fields of ``NT``) are supported. Every other code
parses (so that a folder of mixed games can be listed) but ``unsupported_reason`` names it.

Writing: ``hand_to_phh(hand)`` writes a completed ``sim.hand.Hand`` (standard positions) as PHH
text that ``sim.histories.replay.reference`` replays to the same finishing stacks. A show is written
``pN sm <cards>`` and a muck as a bare ``pN sm`` (as PokerKit writes them).
"""

from __future__ import annotations

import datetime as _dt
import gc
import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audits.runfolder.errors import InputError
from sim.cards import format_cards, parse_card
from sim.config import MAX_SEATS, Structure
from sim.histories.read.sections import LINE_MEMO, NUMBER_MEMO, Section, read_sections
from sim.histories.sources import iter_paths, read_bytes
from sim.layout import ANTE_DUE_, EventKind

if TYPE_CHECKING:
    from sim.hand import Hand

__all__ = [
    "MAX_AMOUNT",
    "MAX_SCALE",
    "PHH_SUFFIXES",
    "SKIP_KINDS",
    "SUPPORTED_VARIANTS",
    "MinorUnits",
    "PhhAction",
    "PhhError",
    "PhhFile",
    "PhhHand",
    "PhhSkip",
    "clear_memos",
    "format_amounts",
    "hand_to_phh",
    "iter_phh_paths",
    "load_phh",
    "loads_phh",
    "parse_action",
    "phh_player_order",
    "read_phh",
    "reads_phh",
]

PHH_SUFFIXES = (".phh", ".phhs")
SUPPORTED_VARIANTS = {
    "NT": Structure.NO_LIMIT,
    "PT": Structure.POT_LIMIT,
    "FT": Structure.FIXED_LIMIT,
}
Number = int | Decimal  # an amount as written: int when integral, else an exact Decimal
MAX_SCALE = 6  # at most this many decimals in an amount (cents are 2)
MAX_AMOUNT = 10**15  # an amount (in the file's unit) must be below this
_INT64 = 2**63
_INF = Decimal("Infinity")

# fields that build the hand, per supported variant (the other codes: the common ones only)
_COMMON_REQUIRED = ("variant", "antes", "starting_stacks", "actions")
_REQUIRED = {
    "NT": ("blinds_or_straddles", "min_bet"),
    "PT": ("blinds_or_straddles", "min_bet"),
    "FT": ("blinds_or_straddles", "small_bet", "big_bet"),
}
_CORE_FIELDS = frozenset({
    "variant", "antes", "blinds_or_straddles", "min_bet", "small_bet", "big_bet",
    "starting_stacks", "actions", "finishing_stacks", "ante_trimming_status", "players",
})
# verbs a player may use, and the dealer's
_PLAYER_VERBS = frozenset({"f", "cc", "cbr", "sm", "sd", "pb"})
_DEALER_VERBS = frozenset({"dh", "db"})


class PhhError(InputError):
    """A PHH file or hand that violates the standard (or what this reader supports)."""


@dataclass(frozen=True, slots=True)
class PhhAction:
    """One parsed action notation.

    ``actor`` is ``'d'`` for the dealer, else the 0-based player index (``p1`` is 0). ``verb`` is
    the notation's verb: ``dh``, ``db`` (dealer), ``f``, ``cc``, ``cbr``, ``sm``, ``sd``, ``pb``.
    ``player`` is the player dealt to by ``d dh pN`` (0-based), else the acting player or None
    for ``d db``. ``cards`` holds card ints, -1 for an unknown ``??``. ``amount`` is the ``cbr``
    street total. For ``sm``: no cards is a muck, cards are a show, and ``dash`` marks
    ``pN sm -`` (show the cards dealt). ``index`` is the position in ``actions``; ``text`` is the
    notation without its commentary.
    """

    actor: str | int
    verb: str
    player: int | None = None
    cards: tuple[int, ...] = ()
    amount: Number | None = None
    dash: bool = False
    index: int = -1
    text: str = ""

    @property
    def is_dealer(self) -> bool:
        return self.actor == "d"

    @property
    def is_muck(self) -> bool:
        return self.verb == "sm" and not self.cards and not self.dash

    def describe(self) -> str:
        return f"action {self.index + 1} {self.text!r}"


@dataclass(frozen=True)
class PhhHand:
    """One hand of a PHH file, fields as written (player order p1..pN).

    ``line`` is the line of the hand's section header (1 for a .phh file; 0 when unknown).
    ``hand`` is the site's hand number as text (``1234`` and ``'R5-1676558-1009'`` alike);
    ``table`` likewise (the standard's number, or a site's table name).
    ``scale`` is the smallest number of decimals that makes every amount of the hand integral.
    """

    source: str
    key: str | None  # the table key in a .phhs file, None for a .phh file
    variant: str
    antes: tuple[Number, ...]
    blinds_or_straddles: tuple[Number, ...] | None
    min_bet: Number | None
    small_bet: Number | None
    big_bet: Number | None
    starting_stacks: tuple[Number, ...]
    actions: tuple[PhhAction, ...]
    finishing_stacks: tuple[Number, ...] | None
    ante_trimming_status: bool
    players: tuple[str, ...] | None
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    line: int = 0
    winnings: tuple[Number, ...] | None = None
    hand: str | None = None
    table: str | None = None
    seats: tuple[int, ...] | None = None
    seat_count: int | None = None
    time: _dt.time | None = None
    day: int | None = None
    month: int | None = None
    year: int | None = None
    time_zone_abbreviation: str | None = None
    venue: str | None = None
    currency: str | None = None
    currency_symbol: str | None = None
    scale: int = 0
    rake: Number | None = None  # the rake the record states (site text), None when absent
    total_pot: Number | None = None  # the total pot the record states, None when absent
    tournament: str | None = None  # a tournament (id or name; PHH: a hand with ``level``, named
    # by its ``event``); None: a cash game
    level: int | None = None  # PHH ``level``: the tournament's blind level (counted from 1)
    tournament_buy_in: str | None = None  # the buy-in a site's header states, as written
    # the operator's claims of places, prizes, bounties, re-buys and add-ons (player, claim):
    # sim.histories.sites.tournament_claims
    claims: tuple[tuple[str, str], ...] = ()

    @property
    def n_players(self) -> int:
        return len(self.starting_stacks)

    @property
    def where(self) -> str:
        """``file`` or ``file [key]``, for messages."""
        return self.source if self.key is None else f"{self.source} [{self.key}]"

    @property
    def unknown_stacks(self) -> tuple[int, ...]:
        """Players (0-based) whose starting stack is unknown (``inf``)."""
        return tuple(i for i, v in enumerate(self.starting_stacks) if v == _INF)

    @property
    def dead_blinds(self) -> tuple[tuple[int, Number], ...]:
        """(player, amount) of each negative ``blinds_or_straddles`` entry: a post by a returning
        player (amount > 0 here), live or dead as ``sim.histories.replay.reference`` reads it."""
        blinds = self.blinds_or_straddles or ()
        return tuple((i, -v) for i, v in enumerate(blinds) if v < 0)

    @property
    def straddles(self) -> tuple[tuple[int, Number], ...]:
        """(player, amount) of each positive ``blinds_or_straddles`` entry after the big blind's
        (a straddle, or a missed blind posted live)."""
        blinds = self.blinds_or_straddles or ()
        return tuple((i, v) for i, v in enumerate(blinds) if i >= 2 and v > 0)

    @property
    def plain_straddle(self) -> bool:
        """One straddle the engine plays (``sim.engine.start_hand_straddle``): p3's, the seat
        left of the big blind, 3 or more players, above the big blind, both blinds posted and
        no post after them."""
        b = self.blinds_or_straddles or ()
        return (self.n_players >= 3 and len(b) >= 3 and self.straddles == ((2, b[2]),)
                and not self.dead_blinds and b[0] > 0 and b[2] > b[1] > 0)

    @property
    def date(self) -> _dt.date | None:
        """``year``/``month``/``day`` as a date, None when missing or not a date."""
        if self.year is None or self.month is None or self.day is None:
            return None
        try:
            return _dt.date(self.year, self.month, self.day)
        except (ValueError, OverflowError):
            return None

    @property
    def local_datetime(self) -> _dt.datetime | None:
        """The date and ``time`` (local to ``time_zone_abbreviation``), None when missing."""
        d = self.date
        if d is None or self.time is None:
            return None
        return _dt.datetime.combine(d, self.time)

    @property
    def unsupported_reason(self) -> str | None:
        """Why this hand cannot be replayed as Texas hold'em, or None (posts and unknown stacks
        are replayed: ``sim.histories.replay.reference``)."""
        if self.variant not in SUPPORTED_VARIANTS:
            return f"unsupported variant {self.variant}"
        if self.n_players > MAX_SEATS:
            return f"unsupported: {self.n_players} players (our tables seat at most {MAX_SEATS})"
        if self.straddles and not self.plain_straddle:
            return ("unsupported: straddles (a positive blinds_or_straddles entry after the big "
                    "blind other than one straddle by p3 above the big blind, without posts)")
        return None

    def minor_units(self, scale: int | None = None) -> MinorUnits:
        """Every amount of the hand as an integer number of ``10**-scale`` units (``scale``
        None: the hand's own ``scale``). Raises PhhError when an amount is not integral at
        ``scale`` or does not fit in 64 bits."""
        sc = self.scale if scale is None else scale
        if not 0 <= sc <= MAX_SCALE:
            raise PhhError(f"{self.where}: scale {sc}: expected 0..{MAX_SCALE}")
        fast_units = _fast_units

        def conv(vals: tuple[Number, ...] | None, name: str) -> tuple[int, ...] | None:
            if vals is None:
                return None
            fast = tuple([fast_units(v, sc) for v in vals])
            if None not in fast:
                return fast  # type: ignore[return-value]  # no None left
            return tuple(_to_units(v, sc, self.where, f"{name}[{i}]")
                         for i, v in enumerate(vals))

        def one(v: Number | None, name: str) -> int | None:
            if v is None:
                return None
            u = fast_units(v, sc)
            return u if u is not None else _to_units(v, sc, self.where, name)

        # an unknown (inf) stack is None; an int is never inf
        stacks: tuple[int | None, ...] = tuple([
            None if type(v) is not int and v == _INF else fast_units(v, sc)
            for v in self.starting_stacks])
        if None in stacks and any(u is None and v != _INF for u, v in zip(
                stacks, self.starting_stacks, strict=True)):
            stacks = tuple(None if v == _INF else _to_units(v, sc, self.where,
                                                            f"starting_stacks[{i}]")
                           for i, v in enumerate(self.starting_stacks))
        bets = tuple([None if a.amount is None else fast_units(a.amount, sc)
                      for a in self.actions])
        if None in bets and any(u is None and a.amount is not None for u, a in zip(
                bets, self.actions, strict=True)):
            bets = tuple(None if a.amount is None else _to_units(a.amount, sc, self.where,
                                                                 a.describe())
                         for a in self.actions)
        return MinorUnits(
            scale=sc, antes=conv(self.antes, "antes") or (),
            blinds_or_straddles=conv(self.blinds_or_straddles, "blinds_or_straddles"),
            min_bet=one(self.min_bet, "min_bet"), small_bet=one(self.small_bet, "small_bet"),
            big_bet=one(self.big_bet, "big_bet"), starting_stacks=stacks,
            finishing_stacks=conv(self.finishing_stacks, "finishing_stacks"),
            winnings=conv(self.winnings, "winnings"), bets=bets,
            rake=one(self.rake, "rake"), total_pot=one(self.total_pot, "total_pot"))

    def in_minor_units(self, scale: int | None = None) -> PhhHand:
        """This hand with every amount an integer of ``10**-scale`` units (scale None: the
        hand's own ``scale``), e.g. to replay a hand in cents with the integer engine; an
        unknown (``inf``) stack stays unknown. Raises PhhError as ``minor_units``."""
        mu = self.minor_units(scale)
        acts = tuple([a if u is None else _with_amount(a, u)
                      for a, u in zip(self.actions, mu.bets, strict=True)])
        stacks = tuple([_INF if v is None else v for v in mu.starting_stacks])
        # dataclasses.replace without its per-call field walk (no __post_init__: a copy of
        # the fields with these changed is the same hand)
        out = object.__new__(type(self))
        out.__dict__.update(self.__dict__)
        out.__dict__.update(antes=mu.antes, blinds_or_straddles=mu.blinds_or_straddles,
                            min_bet=mu.min_bet, small_bet=mu.small_bet, big_bet=mu.big_bet,
                            starting_stacks=stacks, actions=acts,
                            finishing_stacks=mu.finishing_stacks, winnings=mu.winnings,
                            rake=mu.rake, total_pot=mu.total_pot, scale=0)
        return out


# (id of a parsed action, its amount in units) -> (that action, the action with the amount):
# parsed actions are shared across hands (``_parse_action_cached``), so are their conversions;
# the entry holds the action, so its id is not reused while the entry lives
_WITH_AMOUNT: dict[tuple[int, int], tuple[PhhAction, PhhAction]] = {}


def _with_amount(a: PhhAction, units: int) -> PhhAction:
    """``a`` with its ``cbr`` amount replaced by ``units`` (memoized)."""
    key = (id(a), units)
    hit = _WITH_AMOUNT.get(key)
    if hit is not None and hit[0] is a:
        return hit[1]
    out = PhhAction(a.actor, a.verb, a.player, a.cards, units, a.dash, a.index, a.text)
    if len(_WITH_AMOUNT) >= 65_536:
        _WITH_AMOUNT.clear()
    _WITH_AMOUNT[key] = (a, out)
    return out


@dataclass(frozen=True, slots=True)
class MinorUnits:
    """A hand's amounts as integers of ``10**-scale`` of the file's unit (scale 2: cents of a
    dollar). ``starting_stacks`` holds None for an unknown (``inf``) stack; ``blinds_or_straddles``
    keeps a dead blind negative; ``bets[i]`` is action i's ``cbr`` amount (None for others)."""

    scale: int
    antes: tuple[int, ...]
    blinds_or_straddles: tuple[int, ...] | None
    min_bet: int | None
    small_bet: int | None
    big_bet: int | None
    starting_stacks: tuple[int | None, ...]
    finishing_stacks: tuple[int, ...] | None
    winnings: tuple[int, ...] | None
    bets: tuple[int | None, ...]
    rake: int | None = None
    total_pot: int | None = None


def _decimals(v: Number) -> int:
    """The decimals ``v`` needs to be integral (0 for an int)."""
    if isinstance(v, int):
        return 0
    exp = v.normalize().as_tuple().exponent
    return -exp if isinstance(exp, int) and exp < 0 else 0


_UNITS: dict[tuple[Number, int], int] = {}  # (finite amount, scale) -> units, converted before
_UNITS_MAX = 1 << 16
_POW10 = tuple(10**k for k in range(MAX_SCALE + 1))


def _fast_units(v: Number, scale: int) -> int | None:
    """``_to_units(v, scale, ...)`` when it succeeds (memoized: amounts repeat across hands),
    None when the caller must take ``_to_units`` for its error."""
    if type(v) is int:
        u = v * _POW10[scale]
        return u if -_INT64 < u < _INT64 else None
    try:
        return _UNITS[(v, scale)]
    except KeyError:
        pass
    except TypeError:  # a signalling NaN is not hashable
        return None
    try:
        u = _to_units(v, scale, "", "")
    except PhhError:
        return None
    if len(_UNITS) >= _UNITS_MAX:
        _UNITS.clear()
    _UNITS[(v, scale)] = u
    return u


def _to_units(v: Number, scale: int, where: str, name: str) -> int:
    if isinstance(v, int):
        u = v * 10**scale
    else:
        if not v.is_finite():
            raise PhhError(f"{where}: {name}: {v} has no value in units")
        if _decimals(v) > scale:
            raise PhhError(f"{where}: {name}: {v} is not a whole number of 10^-{scale} units")
        u = int(v.scaleb(scale))  # exact: at most 15 + MAX_SCALE digits (MAX_AMOUNT)
    if not -_INT64 < u < _INT64:
        raise PhhError(f"{where}: {name}: {v} at scale {scale} does not fit in 64 bits")
    return u


def format_amounts(values: Iterable[Number | None] | None) -> str:
    """Amounts as written: ``[10162.5, 9900, inf]`` (no ``Decimal('...')``)."""
    if values is None:
        return "None"
    return "[" + ", ".join(_fmt(v) for v in values) + "]"


def _fmt(v: Number | None) -> str:
    if v is None:
        return "None"
    if isinstance(v, Decimal):
        return "inf" if v == _INF else str(v)
    return str(v)


@dataclass(frozen=True, slots=True)
class PhhSkip:
    """A section (a hand) that could not be read: ``source`` file, section ``key`` (None for
    a .phh file or text outside any section), its ``line`` (0 unknown), the site's ``hand``
    number when readable, and the ``reason``."""

    source: str
    key: str | None
    line: int
    hand: str | None
    reason: str

    @property
    def kind(self) -> str:
        """The reason's category, for counts (``{kind: count}``): one of ``SKIP_KINDS``."""
        r = self.reason
        for needle, kind in _SKIP_KIND_OF:
            if needle in r:
                return kind
        return "bad field"

    def describe(self) -> str:
        where = self.source if self.key is None else f"{self.source} [{self.key}]"
        at = f" line {self.line}" if self.line else ""
        site = f" (hand {self.hand})" if self.hand is not None else ""
        return f"{where}{at}{site}: {self.reason}"


# (a needle of the reason, its kind), first match wins
_SKIP_KIND_OF = (
    ("unrecognised line", "unrecognised line"),
    ("not UTF-8", "not UTF-8 text"),
    ("cannot read the file", "unreadable file"),
    ("characters: expected at most", "too large"),
    ("whose hands are not all under", "too large"),
    ("arrays nested too deep", "nested too deep"),
    ("bad TOML", "not TOML"),
    ("duplicate section", "duplicate section"),
    ("top-level key", "not a hand"),
    ("missing required field", "missing field"),
    ("player in two seats", "player in two seats"),
    ("field actions", "bad action"),
    ("actions[", "bad action"),
    ("cannot be represented", "amount not representable"),
    ("decimals", "amount not representable"),
    ("got nan", "amount not representable"),
    ("expected a finite number", "amount not representable"),
    (">= 0, got", "negative amount"),
    ("empty file", "empty file"),
    ("unknown format", "unknown format"),
    ("truncated hand", "truncated hand"),
    ("unsupported variant", "unsupported variant"),
    ("stated twice", "stated twice"),
    ("bad outcome", "bad outcome"),
    ("bad post", "bad post"),
    ("bad action", "bad action"),
    ("the board was run more than once", "run it twice"),
    ("a cash-out", "cash-out"),
    ("unsupported:", "unsupported"),
    ("cannot parse the hand", "unparsable hand"),
    ("no hand in the file", "no hand"),
    ("no button seat", "unparsable hand"),
    ("has no seat line", "unparsable hand"),
    ("fewer than 2 players", "unparsable hand"),
)
SKIP_KINDS = tuple(dict.fromkeys([k for _, k in _SKIP_KIND_OF] + ["bad field"]))


@dataclass(frozen=True)
class PhhFile:
    """What ``read_phh`` read from one file: ``hands`` in file order and ``skipped``
    sections; ``sections`` = len(hands) + len(skipped); ``sha256`` of the file's bytes (None
    for a text or an unreadable file); ``format``: ``phh`` or a site's text format
    (``sim.histories.sites.text.FORMATS``), None when unknown."""

    source: str
    hands: list[PhhHand]
    skipped: list[PhhSkip]
    sha256: str | None = None
    format: str | None = "phh"

    @property
    def sections(self) -> int:
        return len(self.hands) + len(self.skipped)


# ---------------------------------------------------------------- reading


def iter_phh_paths(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Every ``.phh``/``.phhs`` file named or found (recursively, natural order) under ``paths``
    (``sim.histories.sources.iter_paths``). Files are yielded as given whatever their suffix.
    Raises FileNotFoundError for a missing path."""
    return iter_paths(paths, PHH_SUFFIXES)


def read_phh(path: str | Path) -> PhhFile:
    """The hands of a ``.phh`` (one) or ``.phhs`` (one per table key) file and the sections
    that could not be read, each with its reason. Never raises for the file's content; an
    unreadable file (missing, not UTF-8) is one skipped entry."""
    path = Path(path)
    data = read_bytes(path)
    if isinstance(data, str):
        return PhhFile(str(path), [], [PhhSkip(str(path), None, 0, None, data)])
    digest = hashlib.sha256(data).hexdigest()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return PhhFile(str(path), [], [PhhSkip(str(path), None, 0, None,
                                               f"not UTF-8 text ({e})")], digest)
    f = reads_phh(text, source=str(path), many=path.suffix == ".phhs")
    return PhhFile(f.source, f.hands, f.skipped, digest)


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """The cyclic garbage collector paused (as it was on exit). Reading and importing make
    millions of short-lived objects without cycles (refcounting frees them): the collector's
    passes over them cost a fifth to a third of an import and free nothing."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def reads_phh(text: str, *, source: str = "<string>", many: bool = False) -> PhhFile:
    """``read_phh`` of a text: one hand, or (``many``) a ``.phhs`` text of hands under table
    keys."""
    hands: list[PhhHand] = []
    skipped: list[PhhSkip] = []
    with no_cyclic_gc():
        for sec in read_sections(text, many=many):
            h = _hand_of_section(sec, source)
            if isinstance(h, PhhSkip):
                skipped.append(h)
            else:
                hands.append(h)
    return PhhFile(source, hands, skipped)


def _hand_of_section(sec: Section, source: str) -> PhhHand | PhhSkip:
    if sec.fields is None:
        return PhhSkip(source, sec.key, sec.line, sec.hand, sec.error or "unreadable")
    site = _site_hand(sec.fields.get("hand"))
    try:
        return hand_from_dict(sec.fields, source, sec.key, sec.line)
    except PhhError as e:
        where = source if sec.key is None else f"{source} [{sec.key}]"
        reason = str(e)
        if reason.startswith(where + ": "):
            reason = reason[len(where) + 2 :]
        return PhhSkip(source, sec.key, sec.line, site, reason)
    except (ValueError, ArithmeticError, TypeError) as e:  # defensive: never a traceback
        return PhhSkip(source, sec.key, sec.line, site,
                       f"unreadable hand ({type(e).__name__}: {str(e)[:200]})")


def _site_hand(v: Any) -> str | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str) and v:
        return v[:200]
    return None


def load_phh(path: str | Path) -> list[PhhHand]:
    """The hands of a ``.phh`` (one) or ``.phhs`` (one per table key) file; raises PhhError
    for the first section that cannot be read (``read_phh`` skips it and reads on)."""
    return _strict(read_phh(path))


def loads_phh(text: str, *, source: str = "<string>", many: bool = False) -> list[PhhHand]:
    """Parse PHH text: one hand, or (``many``) a ``.phhs`` text of hands under table keys;
    raises PhhError for the first section that cannot be read."""
    return _strict(reads_phh(text, source=source, many=many))


def _strict(f: PhhFile) -> list[PhhHand]:
    if f.skipped:
        sk = f.skipped[0]
        where = sk.source if sk.key is None else f"{sk.source} [{sk.key}]"
        raise PhhError(f"{where}: {sk.reason}")
    return f.hands


# a valid amount (finite, 0 <= v < MAX_AMOUNT, at most MAX_SCALE decimals) -> (value as kept,
# decimals)
_DEC: dict[Decimal, tuple[Number, int]] = {}


def _dec_info(v: Decimal) -> tuple[Number, int]:
    """A finite Decimal's value as kept (an int when integral, else ``v`` itself with its own
    digits: ``0.70`` stays ``0.70`` after ``0.7`` was read, so a message quotes the file
    whatever the process read before) and its decimals (memoized: values repeat across hands;
    equal values share one entry)."""
    info = _DEC.get(v)
    if info is not None:
        return (v, info[1]) if info[1] else info
    d = _decimals(v)
    info = (int(v) if d == 0 else v, d)
    if 0 <= v < MAX_AMOUNT and d <= MAX_SCALE:  # only valid amounts: a fast path's memo
        if len(_DEC) >= 65_536:
            _DEC.clear()
        _DEC[v] = info
    return info


def clear_memos() -> None:
    """Forget the memoized lines, number tokens, decimals and actions (benchmarks: a cold
    start)."""
    _DEC.clear()
    LINE_MEMO.clear()
    NUMBER_MEMO.clear()
    _UNITS.clear()
    _WITH_AMOUNT.clear()
    _parse_action_cached.cache_clear()


def _number(v: Any, where: str, name: str, *, allow_inf: bool = False,
            allow_negative: bool = False) -> Number:
    if type(v) is int and 0 <= v < MAX_AMOUNT:
        return v
    if isinstance(v, bool) or not isinstance(v, int | Decimal):
        raise PhhError(f"{where}: field {name}: expected a number, got {v!r}"[:300])
    if isinstance(v, Decimal):
        if v.is_nan():
            raise PhhError(f"{where}: field {name}: expected a number, got nan")
        if v.is_infinite():
            if allow_inf and v > 0:
                return v
            raise PhhError(f"{where}: field {name}: expected a finite number, got {_fmt(v)}")
    if not -MAX_AMOUNT < v < MAX_AMOUNT:
        raise PhhError(f"{where}: field {name}: {_fmt(v)}: expected an amount below "
                       f"{MAX_AMOUNT:.0e} (an amount that large cannot be represented)")
    if v < 0 and not allow_negative:
        raise PhhError(f"{where}: field {name}: expected a number >= 0, got {_fmt(v)}")
    if isinstance(v, Decimal):
        kept, d = _dec_info(v)
        if d > MAX_SCALE:
            raise PhhError(f"{where}: field {name}: {v}: expected at most {MAX_SCALE} "
                           "decimals")
        return kept
    return v


def _numbers(v: Any, where: str, name: str, n: int | None, *,
             allow_inf: bool = False, allow_negative: bool = False) -> tuple[Number, ...]:
    if isinstance(v, int | Decimal) and not isinstance(v, bool) and n is not None:
        v = [v] * n  # a single value for every player (as PokerKit accepts)
    if not isinstance(v, list):
        raise PhhError(f"{where}: field {name}: expected an array of numbers, got {v!r}")
    get = _DEC.get
    out: list[Number] = []
    for i, x in enumerate(v):
        if type(x) is int and 0 <= x < MAX_AMOUNT:
            out.append(x)
        elif type(x) is Decimal and (info := get(x)) is not None:
            out.append(x if info[1] else info[0])  # a fraction as written (``_dec_info``)
        else:
            out.append(_number(x, where, f"{name}[{i}]", allow_inf=allow_inf,
                               allow_negative=allow_negative))
    if n is not None and len(out) != n:
        raise PhhError(
            f"{where}: field {name}: expected {n} values (one per player, as starting_stacks), "
            f"got {len(out)}"
        )
    return tuple(out)


def _parse_cards(text: str) -> tuple[int, ...]:
    if len(text) % 2:
        raise ValueError(f"cards {text!r}: expected 2 characters per card")
    out = []
    for i in range(0, len(text), 2):
        c = text[i : i + 2]
        out.append(-1 if c == "??" else parse_card(c))
    return tuple(out)


def _parse_player(word: str, n: int | None) -> int:
    if len(word) < 2 or word[0] != "p" or not word[1:].isdigit():
        raise ValueError(f"{word!r}: expected a player such as p1")
    k = int(word[1:])
    if k < 1 or (n is not None and k > n):
        raise ValueError(f"player {word!r}: expected p1..p{n}")
    return k - 1


_AMOUNT = re.compile(r"[+-]?(?:[0-9][0-9,]*(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _parse_amount(word: str) -> Number:
    if _AMOUNT.fullmatch(word) is None:
        raise ValueError(f"amount {word!r}: expected a number")
    v = Decimal(word.replace(",", ""))
    if not v < MAX_AMOUNT:
        raise ValueError(f"amount {word!r}: expected an amount below {MAX_AMOUNT:.0e}")
    if _decimals(v) > MAX_SCALE:
        raise ValueError(f"amount {word!r}: expected at most {MAX_SCALE} decimals")
    if v <= 0:
        raise ValueError(f"amount {word!r}: expected a positive number")
    return int(v) if v == v.to_integral_value() else v


def parse_action(text: str, index: int = -1, n_players: int | None = None) -> PhhAction | None:
    """Parse one action notation; None for a no-op (empty or commentary only).

    Raises ValueError naming what was expected (``PhhError`` when called through a loader).
    """
    return _parse_action_cached(text, index, n_players)


@lru_cache(maxsize=65_536)
def _parse_action_cached(text: str, index: int, n_players: int | None) -> PhhAction | None:
    """``parse_action`` (immutable results; actions repeat across hands: 'd dh p1 ????' is
    action 0 of every hand of p1)."""
    note = text.split("#", 1)[0]
    words = note.split()
    if not words:
        return None
    clean = " ".join(words)
    actor, verb, args = words[0], (words[1] if len(words) > 1 else ""), words[2:]
    if actor == "d":
        if verb == "db":
            if len(args) != 1:
                raise ValueError("expected 'd db CARDS'")
            return PhhAction("d", "db", None, _parse_cards(args[0]), index=index, text=clean)
        if verb == "dh":
            if len(args) != 2:
                raise ValueError("expected 'd dh pN CARDS'")
            p = _parse_player(args[0], n_players)
            return PhhAction("d", "dh", p, _parse_cards(args[1]), index=index, text=clean)
        raise ValueError(f"unknown dealer action {verb!r}: expected dh or db")
    p = _parse_player(actor, n_players)
    if verb not in _PLAYER_VERBS:
        raise ValueError(
            f"unknown action {verb!r}: expected f, cc, cbr, sm, sd or pb" if verb
            else "missing verb: expected f, cc, cbr, sm, sd or pb"
        )
    if verb == "cbr":
        if len(args) != 1:
            raise ValueError("expected 'pN cbr AMOUNT'")
        return PhhAction(p, "cbr", p, amount=_parse_amount(args[0]), index=index, text=clean)
    if verb in ("sm", "sd"):
        if len(args) > 1:
            raise ValueError(f"expected 'pN {verb}' or 'pN {verb} CARDS'")
        if verb == "sm" and args == ["-"]:
            return PhhAction(p, "sm", p, dash=True, index=index, text=clean)
        cards = _parse_cards(args[0]) if args else ()
        return PhhAction(p, verb, p, cards, index=index, text=clean)
    if args:
        raise ValueError(f"expected 'pN {verb}' with no argument")
    return PhhAction(p, verb, p, index=index, text=clean)


def _opt(doc: dict[str, Any], name: str, kind: type | tuple[type, ...], where: str,
         what: str) -> Any:
    v = doc.get(name)
    if v is None:
        return None
    if not isinstance(v, kind) or isinstance(v, bool) and kind is int:
        raise PhhError(f"{where}: field {name}: expected {what}, got {v!r}"[:300])
    return v


def _actions_slow(raw_actions: list[Any], where: str, n: int) -> list[PhhAction]:
    actions = []
    for i, text in enumerate(raw_actions):
        if not isinstance(text, str):
            raise PhhError(f"{where}: actions[{i}]: expected a string, got {text!r}"[:300])
        try:
            a = parse_action(text, i, n)
        except ValueError as e:
            raise PhhError(f"{where}: field actions: action {i + 1} {text!r}: {e}"[:400]) \
                from None
        if a is not None:
            actions.append(a)
    return actions


def _one_seat_each(players: Sequence[str], where: str) -> None:
    """PhhError "player in two seats" when one name (not "") is given to two players of a
    hand: a record that seats one player twice cannot say whose chips are whose."""
    if len(set(players)) == len(players):
        return
    first: dict[str, int] = {}
    for i, name in enumerate(players):
        if name and name in first:
            raise PhhError(f"{where}: field players: player in two seats: {name[:60]!r} is "
                           f"players {first[name] + 1} and {i + 1}")
        first.setdefault(name, i)


def hand_from_dict(doc: dict[str, Any], source: str, key: str | None,
                    line: int = 1) -> PhhHand:
    where = source if key is None else f"{source} [{key}]"
    for name in _COMMON_REQUIRED:
        if name not in doc:
            raise PhhError(f"{where}: missing required field {name}")
    variant = doc["variant"]
    if not isinstance(variant, str) or not variant:
        raise PhhError(f"{where}: field variant: expected a variant code such as 'NT'")
    for name in _REQUIRED.get(variant, ()):
        if name not in doc:
            raise PhhError(f"{where}: missing required field {name} (variant {variant})")
    stacks = _numbers(doc["starting_stacks"], where, "starting_stacks", None, allow_inf=True)
    n = len(stacks)
    if n < 2:
        raise PhhError(f"{where}: field starting_stacks: expected at least 2 players, got {n}")
    antes = _numbers(doc["antes"], where, "antes", n)
    blinds = (_numbers(doc["blinds_or_straddles"], where, "blinds_or_straddles", n,
                       allow_negative=True)
              if "blinds_or_straddles" in doc else None)
    bets: dict[str, Number | None] = {}
    for name in ("min_bet", "small_bet", "big_bet"):
        bets[name] = _number(doc[name], where, name) if name in doc else None
    finishing = (_numbers(doc["finishing_stacks"], where, "finishing_stacks", n)
                 if "finishing_stacks" in doc else None)
    winnings = (_numbers(doc["winnings"], where, "winnings", n)
                if "winnings" in doc else None)
    trim = doc.get("ante_trimming_status", False)
    if not isinstance(trim, bool):
        raise PhhError(f"{where}: field ante_trimming_status: expected true or false, got {trim!r}")
    players = doc.get("players")
    if players is not None:
        if not isinstance(players, list) or not all(isinstance(x, str) for x in players):
            raise PhhError(f"{where}: field players: expected an array of strings")
        if len(players) != n:
            raise PhhError(f"{where}: field players: expected {n} names, got {len(players)}")
        players = tuple(players)
        _one_seat_each(players, where)
    seats = doc.get("seats")
    if seats is not None:
        if (not isinstance(seats, list) or len(seats) != n
                or not all(isinstance(x, int) and not isinstance(x, bool) and 0 < x < 1000
                           for x in seats)):
            raise PhhError(f"{where}: field seats: expected {n} seat numbers (1, 2, ...), "
                           f"got {seats!r}"[:300])
        seats = tuple(seats)
    seat_count = _opt(doc, "seat_count", int, where, "a number of seats")
    if seats is not None and seat_count is not None and max(seats) > seat_count:
        raise PhhError(f"{where}: field seats: seat {max(seats)} at a table of "
                       f"seat_count {seat_count}")
    hand = doc.get("hand")
    if hand is not None and (isinstance(hand, bool) or not isinstance(hand, int | str)):
        raise PhhError(f"{where}: field hand: expected a hand number or text, got {hand!r}"[:300])
    time = _opt(doc, "time", _dt.time, where, "a local time such as 00:02:30")
    dates = {name: _opt(doc, name, int, where, "an integer") for name in ("day", "month", "year")}
    texts = {name: _opt(doc, name, str, where, "a string")
             for name in ("time_zone_abbreviation", "venue", "currency", "currency_symbol")}
    table = doc.get("table")  # the standard's int, or a site's table name
    if table is not None and (isinstance(table, bool) or not isinstance(table, int | str)):
        raise PhhError(f"{where}: field table: expected a table number or name, got "
                       f"{table!r}"[:300])
    # the standard's tournament level (an integer, typically from 1): the hand is a tournament's,
    # named by its ``event`` (the standard's event name) when given
    level = _opt(doc, "level", int, where, "a tournament level (1, 2, ...)")
    if level is not None and level < 1:
        raise PhhError(f"{where}: field level: expected a tournament level 1, 2, ..., got {level}")
    event = _opt(doc, "event", str, where, "a string")
    tournament = None if level is None else (event.strip() or "tournament" if event
                                             else "tournament")
    raw_actions = doc["actions"]
    if not isinstance(raw_actions, list):
        raise PhhError(f"{where}: field actions: expected an array of strings")
    try:  # the fast path (memoized actions); _actions_slow names a bad one
        acts = [_parse_action_cached(t, i, n) for i, t in enumerate(raw_actions)]
        actions = [a for a in acts if a is not None]
    except (ValueError, TypeError, AttributeError):
        actions = _actions_slow(raw_actions, where, n)
    amounts = [*stacks, *antes, *(blinds or ()), *(finishing or ()), *(winnings or ()),
               *(v for v in bets.values() if v is not None),
               *(a.amount for a in actions if a.amount is not None)]
    scale = max((_dec_info(v)[1] for v in amounts if type(v) is Decimal and v.is_finite()),
                default=0)
    extra = {k: v for k, v in doc.items() if k not in _CORE_FIELDS and not k.startswith("_")}
    return _new_hand(
        source=source, key=key, variant=variant, antes=antes, blinds_or_straddles=blinds,
        min_bet=bets["min_bet"], small_bet=bets["small_bet"], big_bet=bets["big_bet"],
        starting_stacks=stacks, actions=tuple(actions), finishing_stacks=finishing,
        ante_trimming_status=trim, players=players, extra=extra, line=line,
        winnings=winnings, hand=None if hand is None else str(hand), seats=seats,
        seat_count=seat_count, time=time, day=dates["day"], month=dates["month"],
        year=dates["year"], time_zone_abbreviation=texts["time_zone_abbreviation"],
        venue=texts["venue"], currency=texts["currency"],
        currency_symbol=texts["currency_symbol"],
        table=None if table is None else str(table), scale=scale, rake=None, total_pot=None,
        tournament=tournament, level=level,
    )


def _new_hand(**fields: Any) -> PhhHand:
    """``PhhHand(**fields)`` given every field, without the frozen dataclass's
    ``object.__setattr__`` per field (PhhHand has no ``__post_init__``)."""
    out = object.__new__(PhhHand)
    out.__dict__.update(fields)
    return out


# ---------------------------------------------------------------- writing


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, _dt.time):  # a TOML local time (the standard's ``time``)
        return v.isoformat(timespec="seconds")
    if isinstance(v, int | Decimal):
        return _fmt(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise ValueError(f"cannot write {v!r} as a PHH value")


def phh_player_order(hand: Hand) -> list[int]:
    """Our seats in PHH player order: small blind first, button last; heads-up the big blind
    first. Requires standard positions (sb and bb the two seats in the hand left of the button;
    heads-up the button posts the small blind)."""
    n = hand.config.n_seats
    starting = hand.starting_stacks
    seats = [(hand.button + i) % n for i in range(1, n + 1) if starting[(hand.button + i) % n] > 0]
    if len(seats) == 2:
        if (hand.sb_seat, hand.bb_seat) != (hand.button, seats[0]):
            raise ValueError("heads-up hand without standard positions (button posts the small "
                             "blind): PHH cannot describe it")
        return [hand.bb_seat, hand.button]
    if seats[-1] != hand.button or (hand.sb_seat, hand.bb_seat) != (seats[0], seats[1]):
        raise ValueError("hand without standard positions (button in the hand, small and big "
                         "blind the next two players): PHH cannot describe it")
    return seats


def hand_to_phh(
    hand: Hand,
    *,
    players: Sequence[str] | None = None,
    extra: dict[str, Any] | None = None,
    raked: bool = False,
) -> str:
    """PHH text for a completed ``sim.hand.Hand`` with standard positions.

    Players are written in PHH order (``phh_player_order``); ``players`` optionally names them in
    that order; ``extra`` adds fields (e.g. ``{"hand": 7}``). The text holds the dealt cards,
    every action, each show (``pN sm CARDS``) and muck (bare ``pN sm``), and
    ``finishing_stacks``. PHH has no rake or raise-cap field and no action for a player who
    leaves mid-hand: raked hands, a fixed-limit raise cap other than 4 and hands with a
    ``LEAVE`` are refused. ``raked=True`` writes a raked hand as an operator's record does:
    ``finishing_stacks`` after the rake, which a reader can tell only from a rake schedule
    (``holdem export --phh``; ``holdem import --rake``/``--game`` checks it).
    """
    if not hand.is_complete:
        raise ValueError("hand_to_phh: the hand is not complete")
    cfg = hand.config
    if cfg.rake_bps and not raked:
        raise ValueError("hand_to_phh: PHH has no rake field; write unraked hands only")
    if cfg.structure == Structure.FIXED_LIMIT and cfg.raise_cap != 4:
        raise ValueError(f"hand_to_phh: PHH fixed-limit has a raise cap of 4, not {cfg.raise_cap}")
    if any(r.kind == EventKind.LEAVE for r in hand.records):
        raise ValueError("hand_to_phh: a player left mid-hand (LEAVE): PHH has no action for it")
    order = phh_player_order(hand)
    player_of = {s: i for i, s in enumerate(order)}
    n = len(order)
    state = hand.state_array
    antes = [int(state[ANTE_DUE_ + s]) for s in order]
    if n == 2:
        antes.reverse()  # reverse-assigned heads-up: antes[1] is p1's (the big blind's)
    blinds = [cfg.small_blind, cfg.big_blind] + [0] * (n - 2)  # heads-up too: [sb, bb]
    # posts after the blinds: negative entries (sim.histories.replay.reference)
    for r in hand.records:
        if r.kind == EventKind.POST:  # a live post is the big blind (or all the stack)
            blinds[player_of[r.seat]] -= cfg.big_blind
        elif r.kind == EventKind.DEAD_BLIND:
            blinds[player_of[r.seat]] -= r.added
        elif r.kind == EventKind.STRADDLE:  # p3, the seat left of the big blind: what it
            # posted; a short straddle at most a big blind was its last chips, which any
            # straddle above the big blind posts the same (a reader takes that for one)
            blinds[player_of[r.seat]] = max(r.added, cfg.big_blind + 1)
    variant = {v: k for k, v in SUPPORTED_VARIANTS.items()}[cfg.structure]
    lines = [f"variant = {_toml_value(variant)}",
             f"ante_trimming_status = {_toml_value(cfg.ante_trimming)}",
             f"antes = {_toml_value(antes)}",
             f"blinds_or_straddles = {_toml_value(blinds)}"]
    if cfg.structure == Structure.FIXED_LIMIT:
        lines.append(f"small_bet = {cfg.effective_small_bet}")
        lines.append(f"big_bet = {cfg.effective_big_bet}")
    else:
        lines.append(f"min_bet = {cfg.effective_min_bet}")
    starting = hand.starting_stacks
    lines.append(f"starting_stacks = {_toml_value([starting[s] for s in order])}")
    acts = [f"d dh p{i + 1} {format_cards(hand.hole_cards(s))}" for i, s in enumerate(order)]
    board: list[int] = []
    shows: list[str] = []
    for r in hand.records:
        k = r.kind
        if k != EventKind.DEAL_BOARD and board:
            acts.append("d db " + format_cards(board))
            board = []
        if k == EventKind.DEAL_BOARD:
            board.append(r.card)
        elif k == EventKind.FOLD:
            acts.append(f"p{player_of[r.seat] + 1} f")
        elif k in (EventKind.CHECK, EventKind.CALL):
            acts.append(f"p{player_of[r.seat] + 1} cc")
        elif k in (EventKind.BET, EventKind.RAISE):
            acts.append(f"p{player_of[r.seat] + 1} cbr {r.to_street_total}")
        elif k == EventKind.SHOW:
            shows.append(f"p{player_of[r.seat] + 1} sm {format_cards(hand.hole_cards(r.seat))}")
        elif k == EventKind.MUCK:
            shows.append(f"p{player_of[r.seat] + 1} sm")
    if board:
        acts.append("d db " + format_cards(board))
    acts.extend(shows)  # after the board (an all-in showdown shows before it: PHH shows after)
    lines.append("actions = [")
    lines.extend(f"  {_toml_value(a)}," for a in acts)
    lines.append("]")
    if players is not None:
        if len(players) != n:
            raise ValueError(f"hand_to_phh: players: expected {n} names, got {len(players)}")
        lines.append(f"players = {_toml_value(list(players))}")
    stacks = hand.stacks
    lines.append(f"finishing_stacks = {_toml_value([stacks[s] for s in order])}")
    for key, v in (extra or {}).items():
        if key in _CORE_FIELDS:
            raise ValueError(f"hand_to_phh: extra field {key!r} is written by hand_to_phh itself")
        name = (key if re.fullmatch(r"[A-Za-z0-9_-]+", key)
                else json.dumps(key, ensure_ascii=False))
        lines.append(f"{name} = {_toml_value(v)}")
    return "\n".join(lines) + "\n"
