"""Hand histories -> rows of ``sim.schema.IMPORT_SCHEMA``, one source file at a time (pure: the
file's text in, an Arrow table and its counts out; ``cluster.flows.import_histories`` fans files
out and rebuilds the tables across them).

Each hand is read (``read_source``: the one reader, ``sim.histories.sites.text.read_history``),
converted to the run's minor unit (``scale`` decimals: amounts are
``Decimal`` text times ``10**scale``, never a float) and replayed with
``sim.histories.replay.reference.replay``. Its row is the replay's result on the table's PHYSICAL
seats (``seat_count``, else the largest of ``seats``, else the number of players; PHH player i sits
at ``seats[i] - 1``, else i), with
the record's own claims beside it, never replaced:

- ``won``, ``stacks_end``, ``rake``, ``pots``, ``showdown_*``: the rules' (the replay's);
  ``op_winnings``, ``op_finishing``, ``op_rake``, ``op_pot``: the operator's, as recorded;
- ``deck`` null (a record has no deck), ``burns`` empty, ``hole_cards`` the record's known cards
  (-1 unknown), ``seed_key`` empty, ``generator`` "phh", ``policy`` -1, ``format`` "cash"
  ("tournament" for a site text's tournament hand and a PHH hand with a ``level``:
  ``PhhHand.tournament``, named in ``tournament``, its header's buy-in in
  ``tournament_buy_in``, the operator's places, prizes, bounties, re-buys and add-ons in
  ``op_claim_players``/``op_claims``; ``level`` the level less 1, 0 when not recorded);
- ``stack_known`` false where the record says ``inf`` (``stacks_start`` holds the replay's
  stand-in); ``cards_unrecorded`` true for a seat at showdown with none of its cards recorded;
- ``ante``/``ante_mode``: one ante for everybody is mode 1, the big blind's alone mode 2, other
  ante lists are skipped ("antes not representable");
- the source columns (file, section, site hand, venue, table, time, currency) as written;
  ``time_utc`` from the zone when ``UTC_OFFSETS`` knows it (``ET`` by the date's US daylight
  saving), else -1;
- ``run_id``, ``hand_id``, ``table_id``, ``hand_no``, ``rebuys``, ``player_ids`` are the run's:
  the driver sets them when it rebuilds the tables (placeholders here).

A hand that cannot be read, represented or replayed is skipped with a named reason (``REASONS``)
and an example line; the rest of its file is imported.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

import numpy as np
import pyarrow as pa

from audits.runfolder.errors import InputError
from sim import layout as L
from sim.hand import Hand
from sim.histories.read.phh import MAX_SCALE, PhhError, PhhFile, PhhHand, PhhSkip
from sim.histories.replay.reference import replay
from sim.histories.sites.text import read_history, read_history_bytes
from sim.layout import LOGGED_EVENTS, MAX_SEATS, EventKind, SeatStatus
from sim.schema import ACTION_DTYPE, IMPORT_SCHEMA

__all__ = ["FileImport", "NotRepresentable", "import_hand", "import_read_file", "read_source",
           "showdown_and_pots"]

_LOGGED = frozenset(int(k) for k in LOGGED_EVENTS)
_IS_LOGGED = np.zeros(max(_LOGGED) + 1 + 64, np.bool_)  # by event kind
_IS_LOGGED[sorted(_LOGGED)] = True
_IS_LOGGED_LIST = _IS_LOGGED.tolist()
_SHOW, _MUCK = int(EventKind.SHOW), int(EventKind.MUCK)
_PACK = struct.Struct("<bbbqq").pack  # ACTION_DTYPE: street, seat, kind, to_street_total, added
assert struct.calcsize("<bbbqq") == ACTION_DTYPE.itemsize
ROW_SCHEMA = pa.schema([f for f in IMPORT_SCHEMA if f.name != "digest"],
                       metadata=IMPORT_SCHEMA.metadata)
MAX_EXAMPLES = 5  # examples kept per skip reason
_ROW_NAMES = tuple(f.name for f in ROW_SCHEMA)
# the engine state a row reads (sim.layout offsets), read once per hand as a list
_STATE_READ = L.LG_
_HOLE, _N_LOG, _N_POTS, _N_BOARD, _BOARD = L.HOLE_, L.N_LOG, L.N_POTS, L.N_BOARD, L.BOARD_
_POT_AMOUNT, _POT_RAKE = L.POT_AMOUNT_, L.POT_RAKE_
_POT_ELIGIBLE, _POT_WINNERS = L.POT_ELIGIBLE_, L.POT_WINNERS_
_BUTTON, _SB_SEAT, _BB_SEAT, _RAKE, _STATUS = L.BUTTON, L.SB_SEAT, L.BB_SEAT, L.RAKE, L.STATUS_
_START, _STACK, _CONTRIB, _RETURNED, _WON = L.START_, L.STACK_, L.CONTRIB_, L.RETURNED_, L.WON_
_LK, _LSTREET, _LSEAT, _LTO, _LADDED, _LSTRENGTH = (L.LOG_KIND, L.LOG_STREET, L.LOG_SEAT,
                                                   L.LOG_TO, L.LOG_ADDED, L.LOG_STRENGTH)
_FOLDED = int(SeatStatus.FOLDED)
_IDENTITY = [list(range(k)) for k in range(MAX_SEATS + 1)]

# fixed offsets of the zones the sites write, in minutes east of UTC (``ET``: US Eastern, by date)
UTC_OFFSETS: dict[str, int] = {
    "UTC": 0, "GMT": 0, "WET": 0, "BST": 60, "WEST": 60, "CET": 60, "CEST": 120, "EET": 120,
    "EEST": 180, "MSK": 180, "EST": -300, "EDT": -240, "CST": -360, "CDT": -300, "MST": -420,
    "MDT": -360, "PST": -480, "PDT": -420, "AKST": -540, "AKDT": -480, "HST": -600,
    "AEST": 600, "AEDT": 660,
}
GMT_OFFSET = re.compile(r"^(?:GMT|UTC)([+-])(\d{1,2}):?(\d{2})?$")


def read_source(path: str) -> PhhFile:
    """The one reader of a source file: PHH or a site's text export, detected from its content
    (``sim.histories.sites.text.read_history``)."""
    return read_history(path)


def read_source_bytes(data: bytes, source: str) -> PhhFile:
    """A source file's bytes (a URI's, read by the caller) as ``read_source`` reads a file."""
    return read_history_bytes(data, source)


def _us_eastern_dst(d: _dt.datetime) -> bool:
    """US daylight saving (since 2007): second Sunday of March 02:00 to first Sunday of
    November 02:00, local."""
    start, end = _us_eastern_dst_span(d.year)
    return start <= d < end


@lru_cache(maxsize=256)
def _us_eastern_dst_span(year: int) -> tuple[_dt.datetime, _dt.datetime]:
    march = _dt.datetime(year, 3, 8, 2)
    start = march + _dt.timedelta(days=(6 - march.weekday()) % 7)
    nov = _dt.datetime(year, 11, 1, 2)
    end = nov + _dt.timedelta(days=(6 - nov.weekday()) % 7)
    return start, end


def utc_seconds(local: _dt.datetime | None, zone: str | None) -> int:
    """Seconds since 1970 UTC of a local time in ``zone`` as written, -1 when either is unknown."""
    if local is None or not zone:
        return -1
    z = zone.strip().upper()
    if z == "ET":
        minutes = -240 if _us_eastern_dst(local) else -300
    elif z in UTC_OFFSETS:
        minutes = UTC_OFFSETS[z]
    else:
        m = GMT_OFFSET.match(z)
        if m is None:
            return -1
        minutes = int(m.group(2)) * 60 + int(m.group(3) or 0)
        if minutes > 14 * 60:
            return -1
        minutes = -minutes if m.group(1) == "-" else minutes
    epoch = _dt.datetime(1970, 1, 1)
    return int((local - epoch).total_seconds()) - minutes * 60


class NotRepresentable(InputError):
    """A hand the row schema cannot describe: ``reason`` (a ``REASONS`` name) and the detail."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


# the reasons a hand is skipped (import.json ``skipped`` keys)
REASONS = (
    "unreadable", "not TOML", "too large", "amount not representable", "negative amount",
    "missing field", "bad action", "bad field", "unknown variant", "too many players",
    "straddle", "blinds", "antes not representable", "seats", "replay failed",
    # the replay's own kinds (sim.histories.replay.reference.KINDS)
    "blinds not understood", "heads-up blinds reversed", "cards inconsistent",
    "action not legal", "actions end early", "showdown not replayable", "board differs",
    "hand not playable",
)


def skip_reason(text: str, unsupported: bool) -> str:
    """The ``REASONS`` name of a replay's error text."""
    t = text.lower()
    if "variant" in t:
        return "unknown variant"
    if "players" in t and ("seat at most" in t or "tables seat" in t):
        return "too many players"
    if "dead blind" in t:
        return "dead blind"
    if "unsupported: straddle" in t:
        return "straddle"
    if "expected a small blind" in t:
        return "blinds"
    if "unknown starting stacks" in t or "inf" in t.split():
        return "unknown stacks"
    if "whole number" in t or "whole chips" in t or "not representable" in t:
        return "amount not representable"
    return "replay failed"


def read_skip_reason(kind: str) -> str:
    """The ``REASONS`` name of a ``sim.histories.read.phh.PhhSkip.kind``."""
    return {"not UTF-8 text": "unreadable", "unreadable file": "unreadable",
            "duplicate section": "bad field", "not a hand": "bad field"}.get(kind, kind)


@dataclass
class FileImport:
    """One source file imported: its rows (``table``, no digest, run columns placeholders) and
    counts. ``scale``: the decimals the amounts were converted at; ``file_scale``: the finest
    the file's hands need (the driver redoes a file whose ``scale`` is below the run's)."""

    path: str
    sha256: str | None
    format: str
    submitted: int = 0
    imported: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    examples: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    scale: int = 0
    file_scale: int = 0
    currencies: list[str] = field(default_factory=list)
    odd_chip: list[str] = field(default_factory=list)
    table: pa.Table | None = None
    seat_count_known: list[bool] = field(default_factory=list)  # per row: from ``seat_count``
    compiled: int = 0  # rows made by the compiled path (``sim.histories.files``)
    # where the file's skipped hands lie among its rows: p = a skipped hand between row p-1
    # and row p (0: before the first, len(rows): after the last); a table session never
    # bridges it (``sim.histories.sessions.rebuild``)
    gaps: list[int] = field(default_factory=list)

    @classmethod
    def opened(cls, path: str, sha256: str | None, fmt: str, *, sections: int,
               skipped: Iterable[PhhSkip], hand_scales: Iterable[int],
               scale: int | None) -> FileImport:
        """The one builder of a file's import, for both paths: its sections, the reading skips
        (in the order given: section order), the finest scale its hands need and the scale
        its amounts are converted at (``scale``; None: the file's own). Rows are added by
        ``import_hand`` (reference) or the compiled rows."""
        res = cls(path=path, sha256=sha256, format=fmt, submitted=sections)
        for sk in skipped:
            res.skip_read(sk)
        res.file_scale = min(MAX_SCALE, max(hand_scales, default=0))
        res.scale = res.file_scale if scale is None else scale
        return res

    def skip_read(self, sk: PhhSkip) -> None:
        """A section the reader could not read, under its reason's name."""
        self.skip(read_skip_reason(sk.kind), sk.key or "", sk.hand or "", sk.describe())

    def skip(self, reason: str, section: str, site_hand: str, text: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1
        ex = self.examples.setdefault(reason, [])
        if len(ex) < MAX_EXAMPLES:
            ex.append({"file": self.path, "section": section, "site_hand": site_hand,
                       "reason": text})


def showdown_and_pots(hand: Hand) -> tuple[list[int], list[bool], list[int],
                                            list[dict[str, int]]]:
    """The row's showdown columns (seats in order, shown, rank or -1) and pots of a finished
    hand, as the log stores them (the replay's seats)."""
    seats, shown, ranks = [], [], []
    for r in hand.records:
        if r.kind == EventKind.SHOW:
            seats.append(r.seat)
            shown.append(True)
            ranks.append(r.strength)
        elif r.kind == EventKind.MUCK:
            seats.append(r.seat)
            shown.append(False)
            ranks.append(-1)
    pots = [{"amount": p.amount, "rake": p.rake,
             "eligible_mask": sum(1 << s for s in p.eligible),
             "winners_mask": sum(1 << s for s in p.winners)} for p in hand.pots]
    return seats, shown, ranks, pots


def _ante(hand: Hand, phh: PhhHand) -> tuple[int, int]:
    due = [int(v) for v in phh.antes]
    if len(due) == 2:
        due.reverse()  # heads-up: p1 (big blind) posts antes[1] (as sim.histories.replay.reference)
    if not any(due):
        return 0, 0
    if len(set(due)) == 1:
        return due[0], 1
    if [s for s, v in enumerate(due) if v] == [hand.bb_seat]:
        return due[hand.bb_seat], 2
    raise NotRepresentable("antes not representable",
                           f"antes {list(phh.antes)}: neither one ante for every player nor a "
                           "big-blind ante")


def _level(raw: PhhHand) -> int:
    """The row's ``level``: a PHH hand's ``level`` (counted from 1) counted from 0 as the
    simulator's; 0 otherwise (cash, or a tournament whose record names no level)."""
    lv = getattr(raw, "level", None)
    return min(lv - 1, 32767) if lv else 0


def physical_seats(phh: PhhHand) -> tuple[int, list[int]]:
    """(seats at the table, the physical seat of each PHH player). Raises NotRepresentable
    ("seats") for seats the table cannot hold or players not in clockwise order."""
    seats = phh.seats
    k, where = _seats_of(phh.n_players, None if seats is None else tuple(seats),
                         phh.seat_count)
    return k, list(where)


@lru_cache(maxsize=4096)
def _seats_of(n: int, seats: tuple[int, ...] | None,
              seat_count: int | None) -> tuple[int, tuple[int, ...]]:
    """physical_seats of a hand's (players, seats, seat_count): a table's hands repeat them
    (built once; lru_cache keeps no exceptions: a NotRepresentable is raised each time)."""
    if seats is None:
        k = max(n, seat_count or 0)
        where = list(range(n))
    else:
        where = [s - 1 for s in seats]
        k = seat_count if seat_count is not None else max(seats, default=0)
        if len(where) != n or len(set(where)) != n or min(where, default=0) < 0 or (
                max(where, default=0) >= k):
            raise NotRepresentable("seats", f"seats {list(seats)} (seat_count "
                                   f"{seat_count}): expected {n} distinct seats 1..{k}")
        # p1..pN are clockwise from the small blind to the button: exactly one wrap around
        wraps = sum(where[(i + 1) % n] < where[i] for i in range(n))
        if n > 1 and wraps != 1:
            raise NotRepresentable("seats", f"seats {list(seats)}: the players are not in "
                                   "clockwise order (p1 the small blind ... the button last)")
    if k > MAX_SEATS:
        raise NotRepresentable("too many players", f"{k} seats: our tables seat at most "
                               f"{MAX_SEATS}")
    return k, tuple(where)


# the row's columns a site text's hand sets and a PHH hand of the compiled path leaves at their
# defaults (``site_columns`` gives them in this order)
SITE_COLUMNS = ("format", "level", "op_rake", "op_pot", "tournament", "tournament_buy_in",
                "op_claim_players", "op_claims")


def site_columns(raw: PhhHand, scale: int) -> tuple[Any, ...]:
    """A read hand's values of ``SITE_COLUMNS`` at ``scale``, as ``_row`` writes them (a
    NotRepresentable for a stated rake or pot not whole at the scale)."""
    op_rake = getattr(raw, "rake", None)
    op_pot = getattr(raw, "total_pot", None)
    return ("tournament" if raw.tournament else "cash", _level(raw),
            _units(op_rake, scale) if op_rake is not None else -1,
            _units(op_pot, scale) if op_pot is not None else -1,
            raw.tournament or "", raw.tournament_buy_in or "",
            [who for who, _ in raw.claims], [c for _, c in raw.claims])


def _units(v: Any, scale: int) -> int:
    """A stated amount (Decimal or int, as sitetext gives ``rake``/``total_pot``) in units."""
    try:
        d = Decimal(v) if not isinstance(v, Decimal) else v
        if not d.is_finite() or d < 0:
            raise NotRepresentable("amount not representable", f"{v}: not an amount")
        u = d.scaleb(scale)
        if u != u.to_integral_value() or u >= 2**63:
            raise NotRepresentable("amount not representable",
                                   f"{v}: not a whole number of 10^-{scale} units")
        return int(u)
    except (InvalidOperation, TypeError, ValueError) as e:
        if isinstance(e, NotRepresentable):
            raise
        raise NotRepresentable("amount not representable", f"{v!r}: not an amount") from None


class Columns:
    """The rows of one file: one tuple per row in ROW_SCHEMA's order (one append per hand),
    turned into columns once per file (``zip(*rows)``, in C)."""

    def __init__(self) -> None:
        self.rows: list[tuple[Any, ...]] = []

    def table(self) -> pa.Table:
        columns = list(zip(*self.rows, strict=True)) if self.rows else [()] * len(ROW_SCHEMA)
        arrays = [pa.array(list(vals), f.type)
                  for f, vals in zip(ROW_SCHEMA, columns, strict=True)]
        return pa.Table.from_arrays(arrays, schema=ROW_SCHEMA)


def _remap(mask: int, where: list[int]) -> int:
    """A seat mask of the replay's seats on the physical seats."""
    out = 0
    for s, p in enumerate(where):
        if mask >> s & 1:
            out |= 1 << p
    return out


def _row(cols: Columns, hand: Hand, phh: PhhHand, raw: PhhHand, source: str, section: str,
         scale: int, unrecorded_by_replay: tuple[bool, ...] = ()) -> None:
    """Append one replayed hand (``phh`` in minor units, ``raw`` as written) on its physical
    seats (``unrecorded_by_replay``: the replay's per-player unrecorded showdown cards). The
    engine's state is read once as a list of ints (no per-field numpy reads, no Record
    objects); a NotRepresentable leaves ``cols`` unchanged."""
    cfg = hand.config
    n = cfg.n_seats
    k, where = physical_seats(raw)
    ante, ante_mode = _ante(hand, phh)
    S = hand._S[:_STATE_READ].tolist()
    same = k == n and where == _IDENTITY[n]  # PHH player i at seat i

    def per_seat(start: int, empty: Any) -> list[Any]:
        """The engine's seat block at ``start`` on the physical seats."""
        values = S[start:start + n]
        if same:
            return values
        out = [empty] * k
        for i, v in enumerate(values):
            out[where[i]] = v
        return out

    def spread(values: list[Any], empty: Any) -> list[Any]:
        if same and len(values) == n:
            return list(values)
        out = [empty] * k
        for i, v in enumerate(values):
            out[where[i]] = v
        return out

    known: list[set[int]] = [set() for _ in range(n)]
    for a in phh.actions:
        verb = a.verb
        if verb == "dh" and a.player is not None:
            known[a.player].update(c for c in a.cards if c >= 0)
        elif verb == "sm" and a.cards:
            known[int(a.actor)].update(c for c in a.cards if c >= 0)
    hole = [-1] * (2 * k)
    for s in range(n):
        ks = known[s]
        if ks:
            for j in (0, 1):
                c = S[_HOLE + 2 * s + j]
                if c in ks:
                    hole[2 * where[s] + j] = c
    # the engine's record log, read as rows of ints (no Record objects): the logged events
    # packed as ACTION_DTYPE records (19 bytes, little-endian), the showdown's shows and mucks
    seat_map = [*where, -1]  # seat -1 (table events) stays -1
    packed = bytearray()
    sd_seats: list[int] = []
    sd_shown: list[bool] = []
    sd_ranks: list[int] = []
    logged = _IS_LOGGED_LIST
    for r in hand._log[:S[_N_LOG]].tolist():
        kind = r[_LK]
        if logged[kind]:
            packed += _PACK(r[_LSTREET], seat_map[r[_LSEAT]], kind, r[_LTO], r[_LADDED])
        if kind == _SHOW or kind == _MUCK:
            sd_seats.append(r[_LSEAT])
            sd_shown.append(kind == _SHOW)
            sd_ranks.append(r[_LSTRENGTH] if kind == _SHOW else -1)
    n_pots = S[_N_POTS]
    blocks = zip(S[_POT_AMOUNT:_POT_AMOUNT + n_pots], S[_POT_RAKE:_POT_RAKE + n_pots],
                 S[_POT_ELIGIBLE:_POT_ELIGIBLE + n_pots],
                 S[_POT_WINNERS:_POT_WINNERS + n_pots], strict=True)
    if where == _IDENTITY[n]:
        full = (1 << n) - 1
        pots = [{"amount": a, "rake": r, "eligible_mask": e & full, "winners_mask": w & full}
                for a, r, e, w in blocks]
    else:
        pots = [{"amount": a, "rake": r, "eligible_mask": _remap(e, where),
                 "winners_mask": _remap(w, where)} for a, r, e, w in blocks]
    unknown = raw.unknown_stacks
    if len(unrecorded_by_replay) == n:
        unrecorded = list(unrecorded_by_replay)
    else:
        at_showdown = set(sd_seats)
        unrecorded = [s in at_showdown and not known[s] for s in range(n)]
    # no names (or not one per player): unknown, "" (no player id: a made-up name would make
    # strangers at other tables one player)
    names = list(raw.players) if raw.players is not None and len(raw.players) == n else [""] * n
    local = raw.local_datetime
    zone = raw.time_zone_abbreviation or ""
    op_rake = getattr(raw, "rake", None)
    op_pot = getattr(raw, "total_pot", None)
    op_rake_units = _units(op_rake, scale) if op_rake is not None else -1
    op_pot_units = _units(op_pot, scale) if op_pot is not None else -1
    sb = S[_SB_SEAT]
    folded_code = _FOLDED
    folded = [v == folded_code for v in S[_STATUS:_STATUS + n]]
    full_seats = [False] * k
    # in ROW_SCHEMA's order (``_ROW_NAMES``)
    values: tuple[Any, ...] = (
        "", 0, 0, 0, cfg.structure.label,
        "tournament" if raw.tournament else "cash", "phh", [], k,
        spread([True] * n, False), where[S[_BUTTON]],
        where[sb] if sb >= 0 else -1, where[S[_BB_SEAT]],
        cfg.small_blind, cfg.big_blind, ante, ante_mode,
        cfg.ante_trimming, cfg.min_bet, cfg.small_bet,
        cfg.big_bet, cfg.raise_cap, cfg.rake_bps,
        cfg.rake_cap, cfg.no_flop_no_drop, _level(raw), None,
        hole, [], S[_BOARD:_BOARD + S[_N_BOARD]], [-1] * k,
        spread([-1] * n, -1), per_seat(_START, 0),
        [0] * k, per_seat(_STACK, 0),
        per_seat(_CONTRIB, 0), per_seat(_RETURNED, 0),
        per_seat(_WON, 0), spread(folded, False), full_seats,
        S[_RAKE], bytes(packed), [where[s] for s in sd_seats],
        sd_shown, sd_ranks, pots, None,
        source, section, raw.hand or "",
        raw.venue or "", raw.table or "",
        local.isoformat() if local is not None else "", zone,
        utc_seconds(local, zone), raw.currency or raw.currency_symbol or "",
        spread(names, ""), spread([i not in unknown for i in range(n)], False),
        spread(unrecorded, False),
        spread(list(phh.winnings), 0) if phh.winnings is not None else [],
        spread(list(phh.finishing_stacks), 0) if phh.finishing_stacks is not None else [],
        op_rake_units,
        op_pot_units,
        raw.tournament or "", raw.tournament_buy_in or "",
        [who for who, _ in raw.claims], [c for _, c in raw.claims],
    )
    cols.rows.append(values)


def file_format(pf: PhhFile, path: str) -> str:
    """The source's format as import.json names it."""
    fmt = getattr(pf, "format", None)
    if isinstance(fmt, str) and fmt:
        return fmt
    return "phhs" if path.endswith(".phhs") else "phh"


def import_hand(res: FileImport, cols: Columns, raw: PhhHand, index: int, path: str) -> int:
    """One read hand (``raw``, the ``index``-th of its file) converted at ``res.scale``,
    replayed and appended to ``cols`` as a row, or skipped with its reason (counted in
    ``res``). Returns the rows appended (1 or 0)."""
    section = raw.key if raw.key is not None else str(index + 1)
    site = raw.hand or ""
    try:
        phh = raw.in_minor_units(res.scale)
    except PhhError as e:
        res.skip("amount not representable", section, site, str(e))
        return 0
    r = replay(phh, index)
    if r.hand is None:
        text = r.error or "the replay failed"
        text = text if text.startswith(raw.where) else f"{raw.where}: {text}"
        kind = getattr(r, "kind", None)
        reason = skip_reason(text, r.unsupported) if kind in (None, "unsupported") else kind
        res.skip(reason, section, site, text)
        return 0
    try:  # a NotRepresentable appends no row
        _row(cols, r.hand, phh, raw, path, section, res.scale,
             tuple(getattr(r, "cards_unrecorded", ()) or ()))
    except NotRepresentable as e:
        res.skip(e.reason, section, site, f"{raw.where}: {e}")
        return 0
    if not r.ok and phh.finishing_stacks is not None:
        res.odd_chip.append(odd_chip_line(raw.where, site or section, r.expected, r.actual))
    res.imported += 1
    res.seat_count_known.append(raw.seat_count is not None)
    return 1


def odd_chip_line(where: str, hand: str, expected: Any, actual: Any) -> str:
    """The line of a replayed hand whose finishing stacks differ from the record's."""
    return (f"{where} hand {hand}: the record's finishing stacks {expected}, the rules' "
            f"{actual}")


def currency_pair(currency: str | None, symbol: str | None) -> str:
    """A hand's "code|symbol" (``FileImport.currencies``)."""
    return f"{currency or ''}|{symbol or ''}"


def gap_positions(rows: list[int], skips: list[int]) -> list[int]:
    """``FileImport.gaps`` from the file order of its rows and of its skipped hands (a line or
    a section index each; ``rows`` ascending): the distinct places of the skips among the
    rows."""
    if not skips:
        return []
    return sorted({bisect.bisect_left(rows, k) for k in skips})


def import_read_file(path: str, fmt: str, pf: PhhFile, scale: int | None) -> FileImport:
    """The import of a file read by the Python reader (``pf``): every hand replayed and made a
    row (``import_hand``)."""
    res = FileImport.opened(path, pf.sha256, fmt, sections=pf.sections, skipped=pf.skipped,
                            hand_scales=(h.scale for h in pf.hands), scale=scale)
    cols = Columns()
    currencies: set[str] = set()
    row_lines: list[int] = []
    skip_lines = [sk.line for sk in pf.skipped]
    for i, raw in enumerate(pf.hands):
        if import_hand(res, cols, raw, i, res.path):
            currencies.add(currency_pair(raw.currency, raw.currency_symbol))
            row_lines.append(raw.line)
        else:
            skip_lines.append(raw.line)
    res.gaps = gap_positions(row_lines, skip_lines)
    res.currencies = sorted(currencies)
    res.table = cols.table() if res.imported else None
    return res
