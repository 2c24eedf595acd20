"""The run facts of a ``holdem simulate`` run, from its manifest's ``spec`` alone.

A simulated run's manifest carries the spec every hand was made from (``sim.runspec.RunSpec``,
written by ``cluster.flows.manifest``). The audits read the run's facts (seed, generator, hands per
structure, the population, the tables of each batch, the blinds, rake and buy-ins) from that
spec and nowhere else, with their own code (this module never imports the simulator):

- ``parse_spec`` takes the spec as JSON gives it back and checks it field by field: exactly the
  known keys (``FIELDS``), each of its JSON type (an integer is an integer: not a string, a
  float, NaN, a boolean or null), in its range (the constraints ``RunSpec`` enforces). Anything
  else raises ``SpecError`` naming the field (``holdem audit`` exits 2 on it);
- ``fingerprint`` is the digest of the canonical spec (sorted-key JSON), which the manifest's
  ``fingerprint`` and ``run_id`` and every row's ``run_id`` must be;
- ``manifest_problems`` names every other manifest field that repeats a run fact (``seed``,
  ``generator``, ``inject``, ``reproducible``, ``fault_injected``, ``population``, each file's
  ``structure``, ``batch`` and ``hands``) and disagrees with the spec: the integrity audit fails
  on each;
- ``RunFacts`` re-derives what the spec determines: the batches of the plan and their hands,
  the seat count and format of each batch (``batch_table``: the documented schedule), the
  population section, and each hand's blinds, antes, bet sizes and rake (``audits.stakes``
  checks every hand against them).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from audits import logschema
from audits.runfolder.errors import InputError

SIMULATE_FORMAT = "holdem-simulate-run"  # cluster.flows.manifest.MANIFEST_FORMAT
PHH_FORMAT = "holdem-phh-import"  # the old ``holdem phh import`` (no import columns)
IMPORT_FORMAT = "holdem-import"  # cluster.flows.import_histories.MANIFEST_FORMAT
IMPORT_FORMATS = (IMPORT_FORMAT, PHH_FORMAT)
# structure label -> the code hand_id and table_id carry in their bits 40.. (docs/log-schema.md)
STRUCTURE_CODES = {"no-limit": 0, "pot-limit": 1, "fixed-limit": 2}
FORMATS = ("cash", "tournament")
SPEC_FORMATS = (*FORMATS, "mixed")
BOTS = ("classic", "real")
GENERATORS = ("philox", "os-chacha20")
FAULTS = ("naive-shuffle", "asf-shuffle", "mod8-shuffle", "seed32", "odd-chip-wrong-seat",
          "side-pot-ignores-eligibility", "chip-lost", "button-skips", "bb-twice",
          "short-allin-reopens", "mucks-winner", "wrong-stream-position")
MAX_SEATS = 10
TABLE_BITS, STRUCT_SHIFT = 20, 40  # table_id = structure << 40 | batch << 20 | table
# the policies (bots) each population seats (docs/export.md, Codes: policies): classic = the four
# stress bots; real = the styles 4..7 with random, calling station and maniac among them
POLICIES = {"classic": frozenset({0, 1, 2, 3}), "real": frozenset({0, 1, 3, 4, 5, 6, 7})}
# tournaments (docs/simulate.md): blinds = the spec's blinds times LEVEL_MULT[level], level =
# hand_no // level_hands (the last multiplier stays); per table, either an ante from every
# player from level UNIFORM_ANTE_FROM_LEVEL (max(1, big blind // 8)), or (classic bots: always)
# a big-blind ante of one big blind from level BB_ANTE_FROM_LEVEL
LEVEL_MULT = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 120, 150, 200,
              250, 300, 400, 500, 600, 800, 1000)
UNIFORM_ANTE_FROM_LEVEL, BB_ANTE_FROM_LEVEL = 3, 4
ANTE_NONE, ANTE_UNIFORM, ANTE_BIG_BLIND = 0, 1, 2  # the ante_mode column
RAISE_CAP = 4  # fixed-limit full bets and raises a street (a game may set its own)
ANTE_MODES = ("every-player", "big-blind")
MAX_CHIPS = 10**9  # the largest chip amount of a spec (sim.runspec.MAX_CHIPS)
MAX_LEVELS = 100
# the built-in bots by policy code (docs/export.md, Codes: policies)
BOT_NAMES = ("random", "calling-station", "tight-aggressive", "maniac", "nit", "regular",
             "loose-aggressive", "recreational")
PY_FIRST_CODE = 8  # the policy code of a spec's first Python bot (sim.pybots.FIRST_CODE)
MAX_PY_BOTS = 8
PY_BOT_KEYS = ("name", "kind", "source", "callable", "weight", "sha256")
_BOT_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")
_HEX = frozenset("0123456789abcdef")


class SpecError(InputError):
    """A simulated run's spec that is not exactly the simulator's: one line naming the field."""


def _int(lo: int | None = None, hi: int | None = None, null: bool = False
         ) -> tuple[str, Any]:
    what = "an integer" + (f" {lo}..{hi}" if lo is not None and hi is not None
                           else f" >= {lo}" if lo is not None else "")
    return (what + (" or null" if null else ""), (lo, hi, null))


# key -> (expected, in words; the check's arguments): every key a spec has, in RunSpec's order
FIELDS: dict[str, tuple[str, Any]] = {
    "hands": _int(1, (1 << STRUCT_SHIFT) - 1),
    "structures": ("a non-empty list of distinct structure labels (no-limit, pot-limit, "
                   "fixed-limit)", None),
    "players": (f"a seat count 2..{MAX_SEATS}, or a list of two or more [seats, weight] pairs "
                "(seats 2..10, weights >= 0 adding up to at least 1)", None),
    "format": ("one of " + ", ".join(SPEC_FORMATS), SPEC_FORMATS),
    "tournament_pct": _int(0, 100),
    "seed": _int(0, (1 << 63) - 1),
    "batch_size": _int(1),
    "small_blind": _int(1, MAX_CHIPS),
    "big_blind": _int(1, MAX_CHIPS),
    "buy_in_bb": _int(1),
    "buy_in_min_bb": _int(1, null=True),
    "leave_above_bb": _int(0),
    "tournament_stack_bb": _int(1, null=True),
    "bots": ("one of " + ", ".join(BOTS), BOTS),
    "hands_per_table": _int(1),
    "level_hands": _int(1),
    "rake_bps": _int(0, 10_000),
    "rake_cap_bb": _int(0),
    "timeout_ppm": _int(0, 1_000_000),
    "leave_ppm": _int(0, 1_000_000),
    "generator": ("one of " + ", ".join(GENERATORS), GENERATORS),
    "inject": ("null or a fault name (" + ", ".join(FAULTS) + ")", (None, *FAULTS)),
    "extra": ("{} (no other input exists)", None),
    # the engine's rules version (sim.runspec.RULES); absent from runs made before version 2
    "rules": _int(2, 2),
    # the game's own schedule (a game file; docs/game.md): each present only when it differs
    # from its default (GAME_DEFAULTS), so runs without them keep their fingerprints
    "game": ("a game name of 1..120 characters", None),
    "ante": _int(1, MAX_CHIPS),
    "ante_mode": ("one of " + ", ".join(ANTE_MODES), ANTE_MODES),
    "rake_cap": _int(0, MAX_CHIPS),
    "rake_caps_by_players": (f"a non-empty list of [players 2..{MAX_SEATS}, cap >= 0] pairs, "
                             "each player count once", None),
    "no_flop_no_drop": ("false (absent: true)", None),
    "raise_cap": _int(1),
    "small_bet": _int(1, MAX_CHIPS),
    "big_bet": _int(1, MAX_CHIPS),
    "levels": (f"a list of 1..{MAX_LEVELS} [small blind, big blind, ante] levels (1 <= small "
               "blind <= big blind <= 10^9, 0 <= ante <= 10^9)", None),
    "tournament_ante_mode": ("big-blind (absent: every-player)", ("big-blind",)),
    "bot_mix": ("a list of [bot name, weight] pairs (names of " + ", ".join(BOT_NAMES)
                + " once each; weights >= 0 adding up to at least 1)", None),
    # bots of one's own (sim.pybots.PythonBot), policy codes PY_FIRST_CODE, ... in this order
    "python_bots": (f"a list of 1..{MAX_PY_BOTS} bots {{name, kind (path or module), source, "
                    "callable, weight 1..1,000,000, sha256}, each name once and no built-in "
                    "bot's", None),
    # tournament re-buys and add-on, levels by time, payouts (docs/game.md)
    "rebuys": ("{max 1..100, until_level >= 1, at_or_below >= 0, chips >= 1}", None),
    "add_on": ("{at_level >= 1, chips >= 1}", None),
    "level_seconds": _int(1),
    "seconds_per_hand": _int(0),
    "seconds_per_action": _int(0),
    "tournament_buy_in": _int(1),
    "payouts": (f"a list of 1..{MAX_SEATS} percentages >= 1 adding up to 100", None),
    # a cash straddle (docs/game.md): always or optional (absent: none), its chips (absent:
    # twice the big blind) and the percent of hands of an optional one
    "straddle": ("always or optional (absent: none)", ("always", "optional")),
    "straddle_amount": _int(2, MAX_CHIPS),
    "straddle_pct": _int(1, 99),
    # the pre-flop minimum raise over it: big_blind (absent: straddle, a raise adds at least
    # the straddle)
    "straddle_raise": ("big_blind (absent: straddle)", ("big_blind",)),
    # how a mixed run whose seat and format schedules lock walks its seat mix (batch_table):
    # 2 (absent: 1, as runs made before walked it)
    "seat_walk": _int(2, 2),
}
REBUY_KEYS = ("max", "until_level", "at_or_below", "chips")
ADD_ON_KEYS = ("at_level", "chips")
# the game keys and what their absence means (sim.runspec.GAME_DEFAULTS)
GAME_DEFAULTS: dict[str, Any] = {
    "game": None, "ante": 0, "ante_mode": "every-player", "rake_cap": None,
    "rake_caps_by_players": [], "no_flop_no_drop": True, "raise_cap": RAISE_CAP,
    "small_bet": None, "big_bet": None, "levels": None, "tournament_ante_mode": "every-player",
    "bot_mix": None, "python_bots": None, "rebuys": None, "add_on": None, "level_seconds": 0,
    "seconds_per_hand": 20, "seconds_per_action": 5, "tournament_buy_in": None,
    "payouts": None, "straddle": "none", "straddle_amount": None, "straddle_pct": 50,
    "straddle_raise": "straddle"}
# keys a spec may lack (runs made before the key existed, or a game value at its default):
# what their absence means is said where they are read
OPTIONAL_KEYS = frozenset({"rules", "seat_walk", *GAME_DEFAULTS})


def rules_version(spec: dict[str, Any]) -> int:
    """The engine rules a run was made under: 2 (all-in showdowns face up, LEAVE) when its spec
    says so; 1 without the key (runs made before: the muck rule at every showdown)."""
    return int(spec.get("rules", 1))


def _show(v: Any) -> str:
    text = json.dumps(v) if not isinstance(v, float) else repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_int(v: Any) -> bool:
    return type(v) is int  # not bool, float (NaN), str or None


def _check_value(key: str, v: Any) -> bool:
    expected, arg = FIELDS[key]
    if isinstance(arg, tuple) and len(arg) == 3 and expected.startswith("an integer"):
        lo, hi, null = arg
        if v is None:
            return bool(null)
        return _is_int(v) and (lo is None or v >= lo) and (hi is None or v <= hi)
    if key == "structures":
        return (isinstance(v, list) and bool(v) and all(isinstance(s, str) for s in v)
                and all(s in STRUCTURE_CODES for s in v) and len(set(v)) == len(v))
    if key == "players":
        if _is_int(v):
            return 2 <= v <= MAX_SEATS
        return (isinstance(v, list) and len(v) >= 2
                and all(isinstance(p, list) and len(p) == 2 and _is_int(p[0]) and _is_int(p[1])
                        and 2 <= p[0] <= MAX_SEATS and p[1] >= 0 for p in v)
                and sum(p[1] for p in v) >= 1)
    if key == "extra":
        return v == {} and isinstance(v, dict)
    if key in GAME_DEFAULTS:
        return _game_value(key, v)
    return isinstance(arg, tuple) and (v is None or isinstance(v, str)) and v in arg


def _pairs(v: Any, first: Any) -> bool:
    """A non-empty list of [key, integer >= 0] pairs, each key once (``first`` checks a key)."""
    return (isinstance(v, list) and bool(v)
            and all(isinstance(p, list) and len(p) == 2 and first(p[0]) and _is_int(p[1])
                    and p[1] >= 0 for p in v)
            and len({json.dumps(p[0]) for p in v}) == len(v))


def _game_value(key: str, v: Any) -> bool:
    """A game key's value (present only when it differs from its default)."""
    if key == "game":
        return isinstance(v, str) and 0 < len(v) <= 120
    if key == "no_flop_no_drop":
        return v is False
    if key == "rake_caps_by_players":
        return _pairs(v, lambda n: _is_int(n) and 2 <= n <= MAX_SEATS) and all(
            p[1] <= MAX_CHIPS for p in v)
    if key == "bot_mix":
        return _pairs(v, lambda n: n in BOT_NAMES) and sum(p[1] for p in v) >= 1
    if key == "python_bots":
        return (isinstance(v, list) and 1 <= len(v) <= MAX_PY_BOTS and all(map(_py_bot, v))
                and len({b["name"] for b in v}) == len(v))
    if key in ("rebuys", "add_on"):
        keys = REBUY_KEYS if key == "rebuys" else ADD_ON_KEYS
        return (isinstance(v, dict) and sorted(v) == sorted(keys)
                and all(_is_int(x) for x in v.values())
                and (key == "add_on" or 1 <= v["max"] <= 100)
                and all(v[k] >= (0 if k == "at_or_below" else 1) for k in keys))
    if key == "payouts":
        return (isinstance(v, list) and 1 <= len(v) <= MAX_SEATS and all(map(_is_int, v))
                and all(x >= 1 for x in v) and sum(v) == 100)
    if key == "levels":
        return (isinstance(v, list) and 1 <= len(v) <= MAX_LEVELS
                and all(isinstance(lv, list) and len(lv) == 3 and all(map(_is_int, lv))
                        and 1 <= lv[0] <= lv[1] <= MAX_CHIPS and 0 <= lv[2] <= MAX_CHIPS
                        for lv in v))
    expected, arg = FIELDS[key]
    if expected.startswith("an integer"):
        lo, hi, _ = arg
        return _is_int(v) and v >= lo and (hi is None or v <= hi)
    return isinstance(v, str) and v in arg


def _py_bot(b: Any) -> bool:
    """One Python bot of a spec: exactly its keys, each of its type and form."""
    def text(k: str) -> bool:
        return isinstance(b[k], str) and 0 < len(b[k]) <= 4096

    return (isinstance(b, dict) and sorted(b) == sorted(PY_BOT_KEYS)
            and all(text(k) for k in ("name", "kind", "source", "callable", "sha256"))
            and len(b["name"]) <= 40 and set(b["name"]) <= _BOT_NAME_CHARS
            and b["name"] not in BOT_NAMES and b["kind"] in ("path", "module")
            and b["callable"].isidentifier()
            and _is_int(b["weight"]) and 1 <= b["weight"] <= 1_000_000
            and len(b["sha256"]) == 64 and set(b["sha256"]) <= _HEX)


def parse_spec(spec: Any, where: str = "manifest.json") -> RunFacts:
    """The run facts of a simulated run's ``spec`` (as JSON gives it back), checked: exactly
    the keys of ``FIELDS``, each of its type and range, and the constraints between fields.
    Raises SpecError naming the field."""
    if spec is None:
        raise SpecError(f"{where}: spec: missing (a holdem simulate run's manifest carries the "
                        "spec its hands were made from)")
    if not isinstance(spec, dict):
        raise SpecError(f"{where}: spec: expected an object, found {_show(spec)}")
    unknown = [k for k in spec if k not in FIELDS]
    if unknown:
        raise SpecError(f"{where}: spec.{unknown[0]}: unknown key (a spec has exactly "
                        f"{', '.join(FIELDS)})")
    for key in FIELDS:
        if key not in spec and key in OPTIONAL_KEYS:
            continue
        if key not in spec:
            raise SpecError(f"{where}: spec.{key}: missing (expected {FIELDS[key][0]})")
        if not _check_value(key, spec[key]):
            raise SpecError(f"{where}: spec.{key}: expected {FIELDS[key][0]}, found "
                            f"{_show(spec[key])}")
    s = spec
    if s["big_blind"] < s["small_blind"]:
        raise SpecError(f"{where}: spec.big_blind: {s['big_blind']} is below the small blind "
                        f"{s['small_blind']}")
    if s["buy_in_min_bb"] is not None and s["buy_in_min_bb"] > s["buy_in_bb"]:
        raise SpecError(f"{where}: spec.buy_in_min_bb: {s['buy_in_min_bb']} is above buy_in_bb "
                        f"{s['buy_in_bb']}")
    if s["leave_above_bb"] and s["leave_above_bb"] < s["buy_in_bb"]:
        raise SpecError(f"{where}: spec.leave_above_bb: expected 0 (never) or at least "
                        f"buy_in_bb ({s['buy_in_bb']}), found {s['leave_above_bb']}")
    bb = s["big_blind"]
    for key, chips in (("buy_in_bb", s["buy_in_bb"] * bb),
                       ("tournament_stack_bb", (s["tournament_stack_bb"] or 0) * bb),
                       ("leave_above_bb", s["leave_above_bb"] * bb),
                       ("rake_cap_bb", s["rake_cap_bb"] * bb)):
        if chips > MAX_CHIPS:
            raise SpecError(f"{where}: spec.{key}: {chips:,} chips at big blind {bb:,}: "
                            f"expected at most {MAX_CHIPS:,}")
    if s.get("rake_cap") is not None and s["rake_cap_bb"]:
        raise SpecError(f"{where}: spec.rake_cap: a cap in chips beside rake_cap_bb "
                        f"{s['rake_cap_bb']} (a spec gives one)")
    small_bet = s.get("small_bet") or s["big_blind"]
    if s.get("big_bet") is not None and s["big_bet"] < small_bet:
        raise SpecError(f"{where}: spec.big_bet: {s['big_bet']} is below the small bet "
                        f"{small_bet}")
    if s.get("rebuys") and s.get("add_on") \
            and s["add_on"]["at_level"] < s["rebuys"]["until_level"]:
        raise SpecError(f"{where}: spec.add_on: at_level {s['add_on']['at_level']} is before "
                        f"the re-buys end (until_level {s['rebuys']['until_level']})")
    if ("payouts" in s) != ("tournament_buy_in" in s):
        raise SpecError(f"{where}: spec.{'payouts' if 'payouts' not in s else 'tournament_buy_in'}"
                        ": missing (payouts and tournament_buy_in go together)")
    if s.get("seconds_per_hand", 20) + s.get("seconds_per_action", 5) < 1:
        raise SpecError(f"{where}: spec.seconds_per_hand: a hand must last at least 1 second")
    if s.get("straddle_amount") is not None and (s.get("straddle", "none") == "none"
                                                 or s["straddle_amount"] <= s["big_blind"]):
        raise SpecError(f"{where}: spec.straddle_amount: {s['straddle_amount']}: expected a "
                        f"straddle (spec.straddle) of more than the big blind {s['big_blind']}")
    if "straddle_raise" in s and s.get("straddle", "none") == "none":
        raise SpecError(f"{where}: spec.straddle_raise: {s['straddle_raise']}: expected a "
                        "straddle (spec.straddle) it applies to")
    if -(-s["hands"] // s["batch_size"]) > 1 << TABLE_BITS:
        raise SpecError(f"{where}: spec.batch_size: {s['hands']:,} hands make more than "
                        f"{1 << TABLE_BITS:,} batches")
    players = s["players"]
    mix = ((players, 1),) if _is_int(players) else tuple((int(n), int(w)) for n, w in players)
    facts = RunFacts(spec={**GAME_DEFAULTS, **spec}, digest=fingerprint(spec), mix=mix)
    if "seat_walk" in s and not facts.schedules_lock():
        raise SpecError(f"{where}: spec.seat_walk: expected only on a mixed run whose seat and "
                        "format schedules share a period factor (absent otherwise)")
    return facts


def fingerprint(spec: dict[str, Any]) -> str:
    """The digest of a spec as the manifest records it (its ``fingerprint`` and ``run_id``): the
    first 16 hex digits of the sha256 of its sorted-key JSON."""
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]


def _coprime_stride(w: int) -> int:
    """A stride near 0.618 w, coprime with w (the schedule's step through the seat mix)."""
    s = max(1, round(0.618 * w))
    while math.gcd(s, w) != 1:
        s += 1
    return s


@dataclass(frozen=True)
class RunFacts:
    """A parsed spec (``parse_spec``) and what it determines."""

    spec: dict[str, Any]
    digest: str
    mix: tuple[tuple[int, int], ...]  # (seats, weight) of the tables

    def __getitem__(self, key: str) -> Any:
        return self.spec[key]

    @property
    def structures(self) -> list[str]:
        return list(self.spec["structures"])

    def n_batches(self) -> int:
        return -(-self.spec["hands"] // self.spec["batch_size"])

    def batch_hands(self, batch: int) -> int:
        """Hands in one batch (the last may be short)."""
        return min(self.spec["batch_size"], self.spec["hands"] - batch * self.spec["batch_size"])

    def in_plan(self, label: str | None, batch: int | None) -> bool:
        """Whether (structure label, batch index) is a batch of the run."""
        return (label in self.spec["structures"] and batch is not None
                and 0 <= batch < self.n_batches())

    def plan(self) -> list[tuple[str, int]]:
        """Every (structure label, batch index) of the run."""
        return [(s, b) for s in self.structures for b in range(self.n_batches())]

    def schedules_lock(self) -> bool:
        """Whether a mixed run's seat schedule (period w, the weights' sum) and format schedule
        (period 100 / gcd(pct, 100)) share a factor: walked by the batch index alone they lock
        (``batch_table``)."""
        if self.spec["format"] != "mixed":
            return False
        w = sum(weight for _, weight in self.mix)
        return math.gcd(w, 100 // math.gcd(self.spec["tournament_pct"], 100)) > 1

    def batch_table(self, label: str, batch: int) -> tuple[int, str]:
        """(seat count, format) of every table of one batch: the documented schedule
        (docs/simulate.md, Simulating; ``RunSpec.batch_table``): j = batch + structure code;
        with a mixed format, batch j is a tournament when (j + 1) * pct // 100 differs from
        j * pct // 100; the seat count is entry (w // 2 + k * stride + code * (w // 3)) mod w of
        the seat mix expanded by weight (sorted, w entries; stride the coprime of w near
        0.618 w), where k = j, or, when the two schedules lock and the spec says
        ``seat_walk`` 2, the number of batches of j's format before it (j * pct // 100
        tournaments, the rest cash)."""
        code = STRUCTURE_CODES[label]
        mix = sorted(self.mix)
        w = sum(weight for _, weight in mix)
        j = batch + code
        fmt = self.spec["format"]
        pct = self.spec["tournament_pct"]
        tourn = fmt == "mixed" and (j + 1) * pct // 100 != j * pct // 100
        k = j
        if self.spec.get("seat_walk", 1) == 2 and self.schedules_lock():
            k = j * pct // 100 if tourn else j - j * pct // 100
        at = (w // 2 + k * _coprime_stride(w) + code * (w // 3)) % w
        seats = mix[-1][0]
        for n_seats, weight in mix:  # entry `at` of the mix expanded by weight
            if at < weight:
                seats = n_seats
                break
            at -= weight
        if fmt != "mixed":
            return seats, fmt
        return seats, "tournament" if tourn else "cash"

    def population(self) -> dict[str, Any]:
        """The manifest's ``population`` section this spec gives (``cluster.flows.manifest``)."""
        s = self.spec
        batches: dict[str, list[list[Any]]] = {}
        by_seats: dict[str, int] = {}
        by_format: dict[str, int] = {}
        for label in self.structures:
            batches[label] = []
            for b in range(self.n_batches()):
                seats, fmt = self.batch_table(label, b)
                batches[label].append([seats, fmt])
                by_seats[str(seats)] = by_seats.get(str(seats), 0) + self.batch_hands(b)
                by_format[fmt] = by_format.get(fmt, 0) + self.batch_hands(b)
        return {**{k: s[k] for k in ("players", "format", "tournament_pct", "buy_in_min_bb",
                                     "buy_in_bb", "leave_above_bb", "tournament_stack_bb",
                                     "bots", "hands_per_table", "level_hands", "leave_ppm")},
                "batches": batches,
                "hands_by_seats": dict(sorted(by_seats.items(), key=lambda kv: int(kv[0]))),
                "hands_by_format": by_format}

    # --- the stakes of the tables (chips) ---
    def buy_in_range(self) -> tuple[int, int]:
        """(min, max) chips of a cash buy-in (a new player, a rebuy, a top-up ends there): the
        classic bots always buy in for buy_in_bb; the real population between buy_in_min_bb
        (when set) and buy_in_bb big blinds."""
        s, bb = self.spec, self.spec["big_blind"]
        hi = s["buy_in_bb"] * bb
        lo = hi if s["bots"] == "classic" or s["buy_in_min_bb"] is None else s["buy_in_min_bb"] * bb
        return lo, hi

    def topup_below(self) -> int:
        """A cash player with chips left tops up only when his stack is below this: half the
        buy-in (classic bots), the minimum buy-in (real population)."""
        lo, hi = self.buy_in_range()
        return hi // 2 if self.spec["bots"] == "classic" else lo

    def tournament_stack(self) -> int:
        s = self.spec
        return (s["tournament_stack_bb"] or s["buy_in_bb"]) * s["big_blind"]

    def rake(self, fmt: str) -> tuple[int, int]:
        """(rake_bps, rake_cap in chips) of a table of this format (tournaments: no rake),
        before the caps by players dealt in (``rake_caps``)."""
        s = self.spec
        if fmt != "cash":
            return 0, 0
        cap = s["rake_cap"] if s["rake_cap"] is not None else s["rake_cap_bb"] * s["big_blind"]
        return s["rake_bps"], cap

    def rake_caps(self, fmt: str, players: np.ndarray) -> np.ndarray:
        """Per hand, the rake cap in chips at its number of players dealt in (``players``):
        the game's cap at that count when it gives one, else ``rake``'s."""
        cap = np.full(players.shape, self.rake(fmt)[1], np.int64)
        if fmt == "cash":
            for n, c in self.spec["rake_caps_by_players"]:
                cap[players == n] = c
        return cap

    def blinds(self, fmt: str, hand_no: np.ndarray, level: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per hand of a table of this format: (level, small blind, big blind, the level's
        ante or -1 where the built-in schedule leaves it to the table's ante kind). Cash: level
        0, the spec's blinds, the game's ante (0: none). Tournament: level = hand_no //
        level_hands; the game's levels (the last one stays) or the built-in schedule, the
        blinds times ``LEVEL_MULT[level]``. ``level``: each hand's level where the game gives
        levels by time (``level_clock``), instead of hand_no // level_hands."""
        s = self.spec
        n = hand_no.shape[0]
        if fmt != "tournament":
            return (np.zeros(n, np.int64), np.full(n, s["small_blind"], np.int64),
                    np.full(n, s["big_blind"], np.int64), np.full(n, s["ante"], np.int64))
        lv = hand_no // s["level_hands"] if level is None else level
        if s["levels"] is not None:
            table = np.asarray(s["levels"], np.int64)
            row = table[np.minimum(lv, len(table) - 1)]
            return lv, row[:, 0], row[:, 1], row[:, 2]
        mult = np.asarray(LEVEL_MULT, np.int64)[np.minimum(lv, len(LEVEL_MULT) - 1)]
        return (lv, np.maximum(1, s["small_blind"] * mult), s["big_blind"] * mult,
                np.full(n, -1, np.int64))

    def level_clock(self) -> tuple[int, int, int] | None:
        """(level_seconds, seconds_per_hand, seconds_per_action) of levels by time: a hand
        lasts seconds_per_hand + seconds_per_action x its player actions (fold, check, call,
        bet, raise in its ``actions``), and its level is the table's elapsed seconds before it
        // level_seconds; None: levels by hands."""
        s = self.spec
        if not s["level_seconds"]:
            return None
        return s["level_seconds"], s["seconds_per_hand"], s["seconds_per_action"]

    def rebuy_rule(self, fmt: str) -> tuple[int, int, int, int, int, int]:
        """A tournament's re-buy and add-on rule: (max a player, until_level, at_or_below,
        chips, add-on at_level, add-on chips); zeros where the game gives none (cash: none,
        its rebuys are the population's)."""
        s = self.spec
        rb, ao = s["rebuys"], s["add_on"]
        if fmt != "tournament":
            return 0, 0, 0, 0, 0, 0
        out = (rb["max"], rb["until_level"], rb["at_or_below"], rb["chips"]) if rb else (0,) * 4
        return (*out, *((ao["at_level"], ao["chips"]) if ao else (0, 0)))

    def ante_mode(self, fmt: str) -> int:
        """The ante_mode of a hand with an ante where the game names it (cash; tournaments with
        levels); -1 where the built-in schedule gives each table its kind (``ante_kinds``)."""
        s = self.spec
        if fmt == "cash":
            mode = s["ante_mode"]
        elif s["levels"] is not None:
            mode = s["tournament_ante_mode"]
        else:
            return -1
        return ANTE_UNIFORM if mode == "every-player" else ANTE_BIG_BLIND

    def straddle(self, fmt: str) -> tuple[int, bool]:
        """(the straddle in chips, 0 for none; whether every hand of 3 or more players has
        one): the game's straddle at a cash table (``always``: every such hand, by the first
        occupied seat left of the big blind; ``optional``: some of them, drawn per hand),
        none at a tournament table."""
        s = self.spec
        if fmt != "cash" or s["straddle"] == "none":
            return 0, False
        amount = s["straddle_amount"] if s["straddle_amount"] is not None \
            else 2 * s["big_blind"]
        return amount, s["straddle"] == "always"

    def straddle_raise(self, fmt: str) -> int:
        """The pre-flop raise increment a full straddle sets (docs/game.md#straddles): the
        game's straddle in chips under ``straddle_raise = "straddle"`` (the straddler is the
        bigger blind; in fixed-limit the straddle is the street's first raise), 0 under
        ``"big_blind"`` (one big blind over it, as PokerKit) or with no straddle."""
        amount, _ = self.straddle(fmt)
        return amount if self.spec["straddle_raise"] == "straddle" else 0

    def bet_sizes(self, fmt: str, bb: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        """Per hand: (small bet, big bet) and the raise cap: the game's fixed-limit bets at a
        cash table, else the big blind and twice it."""
        s = self.spec
        small = np.asarray(bb, np.int64)
        if fmt == "cash" and s["small_bet"] is not None:
            small = np.full(bb.shape, s["small_bet"], np.int64)
        big = 2 * small
        if fmt == "cash" and s["big_bet"] is not None:
            big = np.full(bb.shape, s["big_bet"], np.int64)
        return small, big, s["raise_cap"]

    def policies(self) -> frozenset[int]:
        """The bots the seats may draw: the game's mix (weight above 0), else the
        population's; and the game's Python bots, codes ``PY_FIRST_CODE``, ... in the spec's
        order (each weighs at least 1)."""
        mix = self.spec["bot_mix"]
        builtin = (frozenset(BOT_NAMES.index(name) for name, w in mix if w > 0)
                   if mix is not None else POLICIES[self.spec["bots"]])
        python = range(PY_FIRST_CODE, PY_FIRST_CODE + len(self.spec["python_bots"] or ()))
        return builtin | frozenset(python)

    def policy_names(self) -> tuple[str, ...]:
        """The name of each policy code the run's log may hold: the built-in bots, then the
        game's Python bots."""
        return BOT_NAMES + tuple(b["name"] for b in self.spec["python_bots"] or ())

    def ante_kinds(self) -> tuple[int, ...]:
        """The ante modes a tournament table of the built-in schedule may play (one per
        table)."""
        return (ANTE_BIG_BLIND,) if self.spec["bots"] == "classic" else (ANTE_UNIFORM,
                                                                          ANTE_BIG_BLIND)


def manifest_problems(m: dict[str, Any], facts: RunFacts) -> list[tuple[str, str]]:
    """(field, one line) for every manifest field that repeats a run fact and disagrees with
    the spec (a field absent is no disagreement: nothing reads it)."""
    out: list[tuple[str, str]] = []
    s = facts.spec

    def differs(field: str, got: Any, want: Any) -> None:
        if type(got) is not type(want) or got != want:
            out.append((field, f"manifest.json: {field} is {_show(got)}, the spec gives "
                               f"{_show(want)}"))

    if "run_id" in m:
        differs("run_id", m["run_id"], facts.digest)
    for key in ("seed", "generator", "inject"):
        if key in m:
            differs(key, m[key], s[key])
    if "reproducible" in m:
        differs("reproducible", m["reproducible"], s["generator"] == "philox")
    if ("fault_injected" in m) != (s["inject"] is not None):
        out.append(("fault_injected", "manifest.json: fault_injected "
                    + ("present in a clean run" if s["inject"] is None
                       else f"missing, the spec injects {s['inject']}")))
    if "population" in m:
        want = facts.population()
        got = m["population"]
        if not isinstance(got, dict):
            differs("population", got, want)
        else:
            for key in sorted(set(want) | set(got)):
                if key not in got or key not in want or json.dumps(got[key], sort_keys=True) \
                        != json.dumps(want[key], sort_keys=True):
                    out.append((f"population.{key}", f"manifest.json: population.{key} is "
                                f"{_show(got.get(key))}, the spec gives {_show(want.get(key))}"))
    for i, f in enumerate(m.get("files") or []):
        if not isinstance(f, dict) or not isinstance(f.get("path"), str):
            continue
        parts = f["path"].split("/")
        if len(parts) != 3 or not parts[2].startswith("batch-"):
            continue
        label, digits = parts[1], parts[2][len("batch-"):].partition(".")[0]
        batch = int(digits) if digits.isdigit() else -1
        if not facts.in_plan(label, batch):
            out.append((f"files[{i}]", f"manifest.json: files[{i}] {f['path']} is no batch of "
                                       f"the spec's plan ({facts.n_batches():,} a structure)"))
            continue
        wants: tuple[tuple[str, Any], ...] = (("structure", label), ("batch", batch),
                                              ("hands", facts.batch_hands(batch)))
        for key, value in wants:
            if key in f:
                differs(f"files[{i}].{key}", f[key], value)
    return out


def spec_problems(m: dict[str, Any] | None) -> list[tuple[int | None, str, str]]:
    """The integrity audit's problems (hand id None, kind, one line) with a simulate manifest's
    spec: not exactly the simulator's, or another manifest field disagreeing with it; a manifest
    listing files that is neither a simulated run's nor an import's binds them to nothing."""
    if not m:
        return []
    if m.get("format") not in (SIMULATE_FORMAT, *IMPORT_FORMATS):
        return [(None, "manifest format", f"manifest.json: format {_show(m.get('format'))}: "
                 f"expected {SIMULATE_FORMAT!r} (its spec gives the run's facts), "
                 f"{IMPORT_FORMAT!r} or {PHH_FORMAT!r}")]
    if m.get("format") != SIMULATE_FORMAT:
        return []
    claims: list[tuple[int | None, str, str]] = [(None, "manifest claim", text)
                                                 for text in claim_problems(m)]
    try:
        facts = parse_spec(m.get("spec"))
    except SpecError as e:
        return [*claims, (None, "spec", str(e))]
    return claims + [(None, "spec disagreement", text) for _, text in manifest_problems(m, facts)]


def claim_problems(m: dict[str, Any]) -> list[str]:
    """A simulate manifest's claims about itself that a certificate cannot stand on: a
    ``status`` other than "complete" (an interrupted or failed run), a ``schema_version`` or
    ``digest_version`` this audit does not know (rows of another layout or digest)."""
    out = []
    if m.get("status") != "complete":
        out.append(f"manifest.json: status is {_show(m.get('status'))}, expected 'complete' "
                   "(the run did not finish)")
    for key, known in (("schema_version", tuple(logschema.VERSION_COLUMNS)),
                       ("digest_version", logschema.DIGEST_VERSIONS)):
        v = m.get(key)
        if key in m and (type(v) is not int or v not in known):
            out.append(f"manifest.json: {key} is {_show(v)}, expected one of "
                       f"{', '.join(map(str, sorted(known)))}")
    return out
