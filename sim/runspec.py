"""What one ``holdem simulate`` run is: the frozen spec every batch is derived from.

A run is cut into batches of ``batch_size`` hands per structure. A batch's content depends only
on (spec, structure, batch index), never on which worker plays it or how many there are.

The population (who sits at the tables) is part of the spec: ``players`` (one seat count, or a
mix of seat counts with weights), ``format`` (cash, tournament, or a mix with
``tournament_pct`` % tournament batches), the cash buy-in range ``buy_in_min_bb`` ..
``buy_in_bb``, ``leave_above_bb`` (a cash player whose stack runs past it leaves and is
replaced), ``tournament_stack_bb`` and ``bots`` (``classic``: the four stress bots; ``real``:
fold-heavy styles that play like real tables, with some stress bots among them). Every batch
file holds one seat count and one format (``batch_table``), chosen by a fixed schedule of the
batch index, so the output stays the same for any worker count. A run whose tables vary
cuts its batches at ``PLAN_BLOCK`` hands at most, so a larger ``--batch-size`` makes the same
batches: every structure gets its cash and tournament share whatever the batch size.
``DEFAULT_POPULATION`` is the command line's default: mixed tables that reach every rule path
(``RunSpec``'s own defaults stay the single 6-seat cash table of classic bots that the golden
digests pin). A batch size above what the run uses (its hands, or ``PLAN_BLOCK`` for varied
tables) is recorded as that: the same spec, whatever was asked.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

from sim.config import MAX_SEATS, STRADDLE_RAISES, Structure
from sim.pybots import MAX_BOTS, PythonBot

FORMATS = ("cash", "tournament")
SPEC_FORMATS = (*FORMATS, "mixed")
BOTS = ("classic", "real")
# the command line's default population (mixed tables; see the module doc)
DEFAULT_POPULATION: dict[str, Any] = {
    "players": ((2, 2), (3, 1), (4, 1), (5, 1), (6, 5), (7, 1), (8, 2), (9, 4), (10, 1)),
    "format": "mixed",
    "tournament_pct": 40,
    "buy_in_min_bb": 20,
    "buy_in_bb": 250,
    "leave_above_bb": 750,
    "tournament_stack_bb": 60,
    "bots": "real",
}


def parse_players(text: str | int) -> int | tuple[tuple[int, int], ...]:
    """``6`` (one seat count), ``2-10`` (every count of a range, equal weights) or
    ``2:1,6:3,9:2`` (seat counts with weights). Raises ValueError (one line)."""
    t = str(text).strip().replace(" ", "")
    try:
        if t.isdigit():
            return int(t)
        if ":" not in t and t.count("-") == 1:
            lo, hi = (int(x) for x in t.split("-"))
            if lo > hi:
                raise ValueError
            return tuple((n, 1) for n in range(lo, hi + 1))
        mix = []
        for part in t.split(","):
            n, _, w = part.partition(":")
            mix.append((int(n), int(w) if w else 1))
        return tuple(mix)
    except ValueError:
        raise ValueError(f"--players {text!r}: expected a seat count (6), a range (2-10) or a "
                         f"mix of counts with weights (2:1,6:3,9:2)") from None


def parse_stacks(text: str | int) -> tuple[int, int]:
    """``100`` (every cash buy-in 100 big blinds) or ``20-250`` (min-max): (min, max)."""
    t = str(text).strip().replace(" ", "")
    try:
        lo, _, hi = t.partition("-")
        a, b = int(lo), int(hi) if hi else int(lo)
        if not 1 <= a <= b:
            raise ValueError
        return a, b
    except ValueError:
        raise ValueError(f"--stacks {text!r}: expected a buy-in in big blinds (100) or a range "
                         f"MIN-MAX with 1 <= MIN <= MAX (20-250)") from None


# ``--population classic``: one 6-seat cash table of 100 big blinds with the classic stress
# bots, the population before issue 14 (``RunSpec``'s own defaults)
CLASSIC_POPULATION: dict[str, Any] = {
    "players": 6, "format": "cash", "buy_in_min_bb": None, "buy_in_bb": 100,
    "leave_above_bb": 0, "tournament_stack_bb": None, "bots": "classic"}


def population_fields(preset: str = "default", *, base: dict[str, Any] | None = None,
                      players: str | None = None,
                      format: str | None = None, tournament_pct: int | None = None,
                      stacks: str | None = None, leave_above: int | None = None,
                      tournament_stack: int | None = None,
                      bots: str | None = None) -> dict[str, Any]:
    """The ``RunSpec`` population fields of a preset (``default``: ``DEFAULT_POPULATION``;
    ``classic``: ``CLASSIC_POPULATION``) overridden by the values given (the command line's
    population options: ``players`` as ``parse_players`` reads it, ``stacks`` as
    ``parse_stacks``; a range of stacks sets the default leave threshold to 3x its maximum).
    Raises ValueError (one line) on a bad value. ``base`` (a game file's fields:
    ``cluster.flows.game``) replaces the preset."""
    pop: dict[str, Any] = dict(base if base is not None else DEFAULT_POPULATION
                               if preset == "default" else CLASSIC_POPULATION)
    if players is not None:
        pop["players"] = parse_players(players)
    if format is not None:
        pop["format"] = format
    if tournament_pct is not None:
        pop["tournament_pct"] = tournament_pct
    if stacks is not None:
        lo, hi = parse_stacks(stacks)
        pop["buy_in_min_bb"], pop["buy_in_bb"] = (None if lo == hi else lo), hi
        if pop["leave_above_bb"]:  # the default leave threshold follows the maximum
            pop["leave_above_bb"] = 3 * hi
    if leave_above is not None:
        pop["leave_above_bb"] = leave_above
    if tournament_stack is not None:
        pop["tournament_stack_bb"] = tournament_stack
    if bots is not None:
        pop["bots"] = bots
    return pop

def _coprime_stride(w: int) -> int:
    """A stride near 0.618 w, coprime with w: a schedule that spreads over the whole mix."""
    s = max(1, round(0.618 * w))
    while math.gcd(s, w) != 1:
        s += 1
    return s
# the plan's block: a run whose tables vary (a mixed format or a mix of seat counts) cuts each
# structure's hands into batches of at most this many, so that the schedule of table kinds (one
# seat count and format a batch) is the same for every --batch-size from it up: the hands, and
# with them the coverage and the verdict, do not depend on how the work was split
PLAN_BLOCK = 10_000
GENERATORS = ("philox", "os-chacha20")
FAULTS = (
    "naive-shuffle", "asf-shuffle", "mod8-shuffle", "seed32",  # shuffles
    "odd-chip-wrong-seat", "side-pot-ignores-eligibility", "chip-lost",  # payouts
    "button-skips", "bb-twice",  # rotation
    "short-allin-reopens",  # betting
    "mucks-winner",  # showdown
    "wrong-stream-position",  # deal
)


ANTE_MODES = ("every-player", "big-blind")
# how ``batch_table`` walks the seat mix of a mixed run (cash and tournament batches) whose seat
# schedule (period: the weights' sum w) and format schedule (period: 100 / gcd(pct, 100)) share
# a factor: by the batch index the two lock (players "2:1,10:1" at 50% tournaments: every
# tournament batch 2 seats, every cash batch 10), so walk 2 advances the seat schedule by the
# batches of the same format before it; walk 1 is how runs made before walked it (a spec
# without ``seat_walk``). Schedules that cannot lock keep the batch index (their walks agree)
SEAT_WALKS = (1, 2)
# the built-in bots by policy code (``sim.policies``; docs/export.md, Codes: policies)
POLICY_NAMES = ("random", "calling-station", "tight-aggressive", "maniac", "nit", "regular",
                "loose-aggressive", "recreational")
MAX_LEVELS = 100  # tournament levels a game may give (the last one stays)
MAX_GAME_NAME = 120
# the largest chip amount a spec may give (a blind, ante, bet, rake cap, level or stack in
# chips): ten seats of it, rebuys included, stay exact in every audit's arithmetic
MAX_CHIPS = 10**9
# the game fields (``RunSpec``, after ``extra``) and their defaults: a spec records one only
# when it differs, so runs made before game files existed keep their fingerprints
GAME_DEFAULTS: dict[str, Any] = {
    "game": None, "ante": 0, "ante_mode": "every-player", "rake_cap": None,
    "rake_caps_by_players": (), "no_flop_no_drop": True, "raise_cap": 4, "small_bet": None,
    "big_bet": None, "levels": None, "tournament_ante_mode": "every-player", "bot_mix": None,
    "python_bots": None, "rebuys": None, "add_on": None, "level_seconds": 0,
    "seconds_per_hand": 20, "seconds_per_action": 5, "tournament_buy_in": None, "payouts": None,
    "straddle": "none", "straddle_amount": None, "straddle_pct": 50,
    "straddle_raise": "straddle"}
# the straddle policies of a cash game (docs/game.md): none, the seat left of the big blind
# always straddles, or it straddles in straddle_pct percent of the hands (drawn per hand)
STRADDLES = ("none", "always", "optional")
# tournament re-buys and the add-on as the spec records them (dicts of these keys)
REBUY_KEYS = ("max", "until_level", "at_or_below", "chips")
ADD_ON_KEYS = ("at_level", "chips")
MAX_PAID = MAX_SEATS  # places a payout structure pays (a tournament table seats at most 10)

MAX_BOT_WEIGHT = 1_000_000
BOT_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")


def check_python_bots(bots: Any) -> tuple[PythonBot, ...]:
    """The spec's Python bots as ``PythonBot`` values, each checked (ValueError, one line):
    1..``MAX_BOTS`` bots, distinct names (lower-case letters, digits, - and _; not a built-in
    bot's), a path or a module, a weight 1..``MAX_BOT_WEIGHT``, a sha256 in hex."""
    out = tuple(b if isinstance(b, PythonBot) else PythonBot(**b) for b in bots)
    if not 1 <= len(out) <= MAX_BOTS:
        raise ValueError(f"python bots: {len(out)} given, expected 1..{MAX_BOTS}")
    for b in out:
        if not (0 < len(b.name) <= 40 and set(b.name) <= BOT_NAME_CHARS) \
                or b.name in POLICY_NAMES:
            raise ValueError(f"python bot {b.name!r}: expected a name of 1..40 lower-case "
                             "letters, digits, - and _, not a built-in bot's")
        if b.kind not in ("path", "module") or not b.source or not b.callable.isidentifier():
            raise ValueError(f"python bot {b.name!r}: expected a path or a module and a "
                             "callable's name")
        if isinstance(b.weight, bool) or not isinstance(b.weight, int) \
                or not 1 <= b.weight <= MAX_BOT_WEIGHT:
            raise ValueError(f"python bot {b.name!r}: weight {b.weight!r}: expected "
                             f"1..{MAX_BOT_WEIGHT:,}")
        if len(b.sha256) != 64 or set(b.sha256) - set("0123456789abcdef"):
            raise ValueError(f"python bot {b.name!r}: sha256 {b.sha256!r}: expected 64 hex "
                             "digits")
    if len({b.name for b in out}) != len(out):
        raise ValueError("python bots: a name given twice")
    return out


MAX_ID = 2**63 - 1  # hand and deck ids are int64 in the log
MAX_BATCH_SIZE = 2**31 - 1  # rows of one batch file
MAX_BATCHES = 1_000_000  # batch files of a run: its manifest lists each one


def check_sizes(count: int, batch_size: int, streams: int, option: str) -> None:
    """ValueError (one line naming ``option``) unless ``count`` items in batches of
    ``batch_size`` (``streams`` runs of them: structures) fit the log's formats: ids are int64,
    a batch file holds at most ``MAX_BATCH_SIZE`` rows, a run at most ``MAX_BATCHES`` files.
    Checked before anything is planned or allocated."""
    if not 1 <= batch_size <= MAX_BATCH_SIZE:
        raise ValueError(f"--batch-size {batch_size}: expected 1 .. {MAX_BATCH_SIZE:,}")
    if not 1 <= count or count * max(streams, 1) > MAX_ID:
        raise ValueError(f"{option} {count}: expected 1 .. {MAX_ID // max(streams, 1):,} (ids "
                         "are int64)")
    batches = -(-count // batch_size) * max(streams, 1)
    if batches > MAX_BATCHES:
        raise ValueError(f"{option} {count:,} in batches of {batch_size:,}: {batches:,} batch "
                         f"files, over the {MAX_BATCHES:,} a run holds; raise --batch-size")


# the rules version of this engine, recorded in every spec (``RunSpec.rules``): 2 = all-in
# showdowns face up and players who leave mid-hand (issue 39); a spec without the key was made
# by an engine of version 1 (the river's muck rule at every showdown, no LEAVE)
RULES = 2


@dataclass(frozen=True, kw_only=True)
class RunSpec:
    """Every input of a run. ``hands`` is per structure."""

    hands: int
    structures: tuple[Structure, ...] = (Structure.NO_LIMIT,)
    players: int | tuple[tuple[int, int], ...] = 6  # a seat count, or ((seats, weight), ...)
    format: str = "cash"  # cash, tournament or mixed (by batch)
    tournament_pct: int = 40  # mixed: the share of tournament batches, in percent
    seed: int = 1
    batch_size: int = 100_000
    small_blind: int = 1
    big_blind: int = 2
    buy_in_bb: int = 100  # cash (maximum) buy-in, in big blinds
    buy_in_min_bb: int | None = None  # cash minimum buy-in (None: every buy-in is buy_in_bb)
    leave_above_bb: int = 0  # cash: a player whose stack passes this leaves (0: never)
    tournament_stack_bb: int | None = None  # tournament starting stack (None: buy_in_bb)
    bots: str = "classic"  # classic (stress bots) or real (fold-heavy styles, some stress bots)
    hands_per_table: int = 1000  # cash tables are replaced after this many hands
    level_hands: int = 30  # tournament: hands per blind level
    rake_bps: int = 500
    rake_cap_bb: int = 3  # rake cap in big blinds (0 = none)
    timeout_ppm: int = 2000  # per-decision chance of a timeout, parts per million
    leave_ppm: int = 5000  # cash: per-hand chance that a player leaves
    generator: str = "philox"
    inject: str | None = None
    rules: int = RULES  # the engine's rules version (above); only this engine's can be run
    extra: dict[str, Any] = field(default_factory=dict)
    # --- the game's own schedule (a game file, ``cluster.flows.game``); each is recorded in
    # the spec only when it differs from its default, so a run without them keeps its
    # fingerprint (``GAME_DEFAULTS``) ---
    game: str | None = None  # the game's name, as its file gives it
    ante: int = 0  # cash: the ante in chips (0: none)
    ante_mode: str = "every-player"  # cash: who posts it (every-player or big-blind)
    rake_cap: int | None = None  # cash: the rake cap in chips (None: rake_cap_bb big blinds)
    rake_caps_by_players: tuple[tuple[int, int], ...] = ()  # ((players dealt in, cap), ...)
    no_flop_no_drop: bool = True  # cash: no rake from a hand that ends before the flop
    raise_cap: int = 4  # fixed-limit: full bets and raises a street
    small_bet: int | None = None  # fixed-limit cash: chips (None: the big blind)
    big_bet: int | None = None  # fixed-limit cash: chips (None: twice the small bet)
    levels: tuple[tuple[int, int, int], ...] | None = None  # tournament (sb, bb, ante) a level
    tournament_ante_mode: str = "every-player"  # with levels: who posts a level's ante
    bot_mix: tuple[tuple[str, int], ...] | None = None  # (bot name, weight): who the seats draw
    # bots of one's own (``sim.pybots.PythonBot``: name, source, callable, weight, sha256 of the
    # source), policy codes 8, 9, ... in this order, drawn by weight beside the built-in bots
    python_bots: tuple[PythonBot, ...] | None = None
    # tournament re-buys (max a player, until_level, at_or_below, chips): before a hand of a
    # level below until_level, a player whose stack is at or below at_or_below chips may buy
    # chips (at most max times); the add-on (at_level, chips): before the table's first hand of
    # level at_level or above, each player still in may buy chips once (docs/game.md)
    rebuys: tuple[int, int, int, int] | None = None
    add_on: tuple[int, int] | None = None
    # levels by time (0: by hands, level_hands): the level of a hand is the table's elapsed
    # seconds before it // level_seconds; a hand lasts seconds_per_hand + seconds_per_action x
    # its player actions (fold, check, call, bet, raise)
    level_seconds: int = 0
    seconds_per_hand: int = 20
    seconds_per_action: int = 5
    # payouts: a buy-in (currency units) per entry, re-buy and add-on, and the percent of the
    # prize pool each finishing place takes (a derivation from the log: audits/tournaments.py)
    tournament_buy_in: int | None = None
    payouts: tuple[int, ...] | None = None
    # cash straddle (``STRADDLES``): a live straddle of straddle_amount chips (None: twice the
    # big blind) by the seat left of the big blind, in every hand of 3 or more players
    # ("always") or in straddle_pct percent of them ("optional"); tournaments never straddle
    straddle: str = "none"
    straddle_amount: int | None = None
    straddle_pct: int = 50
    straddle_raise: str = "straddle"
    # the seat walk of a mixed run whose two schedules would lock (``batch_table``,
    # ``SEAT_WALK``); recorded only for such a spec, and only when 2
    seat_walk: int = 2

    def __post_init__(self) -> None:
        object.__setattr__(self, "structures",
                           tuple(Structure.parse(s) for s in self.structures))
        if self.hands < 1:
            raise ValueError(f"--hands {self.hands}: expected at least 1")
        if self.rules != RULES:
            raise ValueError(f"rules {self.rules}: this engine plays rules version {RULES} only "
                             "(a run made under other rules cannot be played again)")
        players = self.players
        if isinstance(players, str):
            players = parse_players(players)
        if not isinstance(players, int):
            players = tuple((int(n), int(w)) for n, w in players)
            if len(players) == 1 and players[0][1] > 0:
                players = players[0][0]
        object.__setattr__(self, "players", players)
        for n, w in self.seat_mix():
            if not 2 <= n <= MAX_SEATS:
                raise ValueError(f"--players {n}: expected 2..{MAX_SEATS} seats")
            if w < 0:
                raise ValueError(f"--players: weight {w} of {n} seats: expected >= 0")
        if sum(w for _, w in self.seat_mix()) < 1:
            raise ValueError("--players: the weights add up to 0")
        if self.format not in SPEC_FORMATS:
            raise ValueError(f"--format {self.format!r}: expected one of "
                             f"{', '.join(SPEC_FORMATS)}")
        if not 0 <= self.tournament_pct <= 100:
            raise ValueError(f"--tournament-pct {self.tournament_pct}: expected 0..100")
        if self.bots not in BOTS:
            raise ValueError(f"--bots {self.bots!r}: expected one of {', '.join(BOTS)}")
        if self.seat_walk not in SEAT_WALKS:
            raise ValueError(f"seat_walk {self.seat_walk!r}: expected one of "
                             f"{', '.join(map(str, SEAT_WALKS))}")
        if not self.schedules_lock:  # the walks agree: one spec, whatever was given
            object.__setattr__(self, "seat_walk", 2)
        lo = self.buy_in_min_bb if self.buy_in_min_bb is not None else self.buy_in_bb
        if not 1 <= lo <= self.buy_in_bb:
            raise ValueError(f"--stacks {lo}-{self.buy_in_bb}: expected 1 <= MIN <= MAX")
        if self.leave_above_bb and self.leave_above_bb < self.buy_in_bb:
            raise ValueError(f"--leave-above {self.leave_above_bb}: expected 0 (never) or at "
                             f"least the maximum buy-in ({self.buy_in_bb})")
        if self.tournament_stack_bb is not None and self.tournament_stack_bb < 1:
            raise ValueError(f"--tournament-stack {self.tournament_stack_bb}: expected >= 1")
        if not 0 <= self.seed < 2**63:
            raise ValueError(f"--seed {self.seed}: expected 0 <= seed < 2**63")
        if self.batch_size < 1:
            raise ValueError(f"--batch-size {self.batch_size}: expected at least 1")
        check_sizes(self.hands, self.batch_size, len(self.structures), "--hands")
        # a batch size past what the run can use names the same batches: one spec, one
        # fingerprint, the same hands whatever was asked
        cap = min(self.hands, PLAN_BLOCK if self.varied else self.batch_size)
        if self.batch_size > cap:
            object.__setattr__(self, "batch_size", cap)
        if self.generator not in GENERATORS:
            raise ValueError(f"generator {self.generator!r}: expected one of {GENERATORS}")
        if self.inject is not None and self.inject not in FAULTS:
            raise ValueError(f"--inject {self.inject!r}: expected one of {', '.join(FAULTS)}")
        if not self.structures:
            raise ValueError("no structure given")
        self._check_game()

    def _check_chips(self) -> None:
        """Every chip amount of the spec at most ``MAX_CHIPS`` (one line naming it)."""
        bb = self.big_blind
        stack = self.tournament_stack_bb if self.tournament_stack_bb is not None \
            else self.buy_in_bb
        amounts = [("small blind", self.small_blind), ("big blind", bb), ("ante", self.ante),
                   ("buy-in", self.buy_in_bb * bb), ("tournament stack", stack * bb),
                   ("leave threshold", self.leave_above_bb * bb),
                   ("rake cap", self.rake_cap or self.rake_cap_bb * bb),
                   ("small bet", self.small_bet or 0), ("big bet", self.big_bet or 0),
                   ("straddle", self.straddle_amount or 0)]
        amounts += [(f"rake cap at {n} players", int(c)) for n, c in self.rake_caps_by_players]
        amounts += [(f"level {i + 1}", max(int(x) for x in lv))
                    for i, lv in enumerate(self.levels or ())]
        for what, v in amounts:
            if v > MAX_CHIPS:
                raise ValueError(f"{what} {v:,} chips: expected at most {MAX_CHIPS:,}")

    def _check_game(self) -> None:
        """The game's schedule fields (normalised to tuples), each in its range (one line)."""
        if self.small_blind < 1 or self.big_blind < self.small_blind:
            raise ValueError(f"blinds {self.small_blind}/{self.big_blind}: expected 1 <= small "
                             "blind <= big blind")
        if self.game is not None and not (isinstance(self.game, str) and 0 < len(self.game)
                                          <= MAX_GAME_NAME):
            raise ValueError(f"game name {self.game!r}: expected 1..{MAX_GAME_NAME} characters")
        if self.ante < 0:
            raise ValueError(f"ante {self.ante}: expected >= 0 chips")
        self._check_chips()
        for name in ("ante_mode", "tournament_ante_mode"):
            if getattr(self, name) not in ANTE_MODES:
                raise ValueError(f"{name} {getattr(self, name)!r}: expected one of "
                                 f"{', '.join(ANTE_MODES)}")
        if not 0 <= self.rake_bps <= 10_000:
            raise ValueError(f"rake {self.rake_bps} basis points: expected 0..10,000")
        if self.rake_cap is not None and (self.rake_cap < 0 or self.rake_cap_bb):
            raise ValueError(f"rake cap {self.rake_cap} chips: expected >= 0, and no cap in "
                             f"big blinds beside it (rake_cap_bb {self.rake_cap_bb})")
        caps = tuple((int(n), int(c)) for n, c in self.rake_caps_by_players)
        object.__setattr__(self, "rake_caps_by_players", caps)
        for n, c in caps:
            if not 2 <= n <= MAX_SEATS or c < 0:
                raise ValueError(f"rake cap at {n} players: {c}: expected 2..{MAX_SEATS} "
                                 "players and a cap >= 0 chips")
        if len({n for n, _ in caps}) != len(caps):
            raise ValueError("rake caps by players: a player count given twice")
        if self.raise_cap < 1:
            raise ValueError(f"raise cap {self.raise_cap}: expected >= 1")
        sb_, bb_ = self.small_bet, self.big_bet
        if (sb_ is not None and sb_ < 1) or (bb_ is not None and bb_ < (sb_ or self.big_blind)):
            raise ValueError(f"fixed-limit bets {sb_}/{bb_}: expected a small bet >= 1 and a "
                             "big bet >= the small bet")
        if self.levels is not None:
            levels = tuple((int(a), int(b), int(c)) for a, b, c in self.levels)
            object.__setattr__(self, "levels", levels)
            if not 1 <= len(levels) <= MAX_LEVELS:
                raise ValueError(f"levels: {len(levels)} given, expected 1..{MAX_LEVELS}")
            for i, (a, b, c) in enumerate(levels):
                if not 1 <= a <= b or c < 0:
                    raise ValueError(f"level {i + 1}: blinds {a}/{b} ante {c}: expected 1 <= "
                                     "small blind <= big blind and an ante >= 0")
        if self.bot_mix is not None:
            mix = tuple((str(n), int(w)) for n, w in self.bot_mix)
            object.__setattr__(self, "bot_mix", mix)
            for name, w in mix:
                if name not in POLICY_NAMES or w < 0:
                    raise ValueError(f"bot {name!r} weight {w}: expected one of "
                                     f"{', '.join(POLICY_NAMES)} with a weight >= 0")
            if len({n for n, _ in mix}) != len(mix) or sum(w for _, w in mix) < 1:
                raise ValueError("bot mix: a bot named twice, or the weights add up to 0")

        if self.python_bots is not None:
            object.__setattr__(self, "python_bots", check_python_bots(self.python_bots))
        self._check_straddle()
        self._check_tournament()

    @property
    def straddle_chips(self) -> int:
        """The cash straddle in chips (0: none; default twice the big blind)."""
        if self.straddle == "none":
            return 0
        return self.straddle_amount if self.straddle_amount is not None else 2 * self.big_blind

    def _check_straddle(self) -> None:
        """The straddle policy: one of ``STRADDLES``, above the big blind, on cash tables of 3
        seats or more (one line)."""
        if self.straddle not in STRADDLES:
            raise ValueError(f"straddle {self.straddle!r}: expected one of {', '.join(STRADDLES)}")
        if self.straddle_raise not in STRADDLE_RAISES:
            raise ValueError(f"straddle_raise {self.straddle_raise!r}: expected one of "
                             f"{', '.join(STRADDLE_RAISES)}")
        if not 1 <= self.straddle_pct <= 99:
            raise ValueError(f"straddle_pct {self.straddle_pct}: expected 1..99 percent")
        if self.straddle_amount is not None and self.straddle_amount <= self.big_blind:
            raise ValueError(f"straddle {self.straddle_amount} chips: expected more than the big "
                             f"blind ({self.big_blind})")
        if self.straddle == "none":
            if self.straddle_raise != "straddle":
                raise ValueError(f"straddle_raise {self.straddle_raise}: only with a straddle "
                                 "(straddle always or optional)")
            return
        seats = [self.players] if isinstance(self.players, int) else [
            n for n, w in (parse_players(self.players) if isinstance(self.players, str)
                           else self.players) if w > 0]
        if min(seats) < 3:
            raise ValueError(f"straddle {self.straddle}: tables of {min(seats)} seats have no "
                             "straddle (heads-up): expected tables of 3 seats or more")
        full_bet = self.big_blind + (self.small_bet or self.big_blind)
        if Structure.FIXED_LIMIT in self.structures and self.straddle_chips != full_bet:
            raise ValueError(f"straddle_amount {self.straddle_chips}: a fixed-limit straddle is "
                             f"a full bet: expected the big blind plus the small bet, {full_bet} "
                             "chips (or no fixed-limit structure)")
        if self.format == "tournament":
            raise ValueError(f"straddle {self.straddle}: tournaments play no straddle (format "
                             "tournament): expected cash or mixed tables")

    def _check_tournament(self) -> None:
        """Re-buys, the add-on, levels by time and payouts (normalised to tuples; one line)."""
        if self.rebuys is not None:
            rb = tuple(int(x) for x in self.rebuys)
            object.__setattr__(self, "rebuys", rb)
            if len(rb) != 4 or not (1 <= rb[0] <= 100 and rb[1] >= 1 and rb[2] >= 0
                                    and rb[3] >= 1):
                raise ValueError(f"rebuys {rb}: expected (max 1..100, until_level >= 1, "
                                 "at_or_below >= 0, chips >= 1)")
        if self.add_on is not None:
            ao = tuple(int(x) for x in self.add_on)
            object.__setattr__(self, "add_on", ao)
            if len(ao) != 2 or ao[0] < 1 or ao[1] < 1:
                raise ValueError(f"add_on {ao}: expected (at_level >= 1, chips >= 1)")
            if self.rebuys is not None and ao[0] < self.rebuys[1]:
                raise ValueError(f"add_on at level {ao[0]}: expected at or after the re-buys "
                                 f"end (until_level {self.rebuys[1]})")
        if self.level_seconds < 0 or self.seconds_per_hand < 0 or self.seconds_per_action < 0 \
                or self.seconds_per_hand + self.seconds_per_action < 1:
            raise ValueError(f"level clock {self.level_seconds}/{self.seconds_per_hand}/"
                             f"{self.seconds_per_action}: expected seconds >= 0 and a hand "
                             "lasting at least 1 second")
        if (self.payouts is None) != (self.tournament_buy_in is None):
            raise ValueError("payouts and tournament_buy_in: expected both or neither")
        if self.payouts is not None:
            pay = tuple(int(x) for x in self.payouts)
            object.__setattr__(self, "payouts", pay)
            if not 1 <= len(pay) <= MAX_PAID or any(p < 1 for p in pay) or sum(pay) != 100:
                raise ValueError(f"payouts {list(pay)}: expected 1..{MAX_PAID} percentages "
                                 ">= 1 adding up to 100")
        if self.tournament_buy_in is not None and self.tournament_buy_in < 1:
            raise ValueError(f"tournament buy-in {self.tournament_buy_in}: expected >= 1")

    def seat_mix(self) -> tuple[tuple[int, int], ...]:
        """((seat count, weight), ...) of the run's tables."""
        return ((self.players, 1),) if isinstance(self.players, int) else self.players

    @property
    def varied(self) -> bool:
        """Whether the run's tables vary from batch to batch (a mixed format or two or more seat
        counts): its batches are then at most ``PLAN_BLOCK`` hands."""
        return self.format == "mixed" or sum(1 for _, w in self.seat_mix() if w > 0) > 1

    @property
    def max_seats(self) -> int:
        return max(n for n, w in self.seat_mix() if w > 0)

    @property
    def schedules_lock(self) -> bool:
        """Whether the seat schedule and the format schedule of a mixed run share a period
        factor (``SEAT_WALKS``): walked by the batch index alone, some (seat count, format)
        pairs would never meet."""
        if self.format != "mixed":
            return False
        w = sum(wt for _, wt in self.seat_mix())
        return math.gcd(w, 100 // math.gcd(self.tournament_pct, 100)) > 1

    def batch_table(self, structure: Structure, batch_index: int) -> tuple[int, str]:
        """(seat count, format) of every table of one batch: a fixed schedule of the batch
        index (offset by structure) that visits the seat mix and the format mix in their
        proportions (a stride through the weighted list; tournaments every
        ``100 / tournament_pct`` batches). When the two schedules lock (``schedules_lock``),
        the stride advances by the batches of the batch's own format before it (walk 2,
        ``SEAT_WALKS``), so each pair comes in the product of the two mixes."""
        expanded = [n for n, w in sorted(self.seat_mix()) for _ in range(w)]
        w = len(expanded)
        st = int(structure)  # a Structure (the spec's, parsed once when it was made)
        j = batch_index + st
        pct = self.tournament_pct
        tourn = self.format == "mixed" and (j + 1) * pct // 100 != j * pct // 100
        step = j
        if self.seat_walk == 2 and self.schedules_lock:
            before = j * pct // 100  # tournament batches before j (from 0)
            step = before if tourn else j - before
        seats = expanded[(w // 2 + step * _coprime_stride(w) + st * (w // 3)) % w]
        if self.format != "mixed":
            return seats, self.format
        return seats, "tournament" if tourn else "cash"

    def population(self) -> dict[str, Any]:
        """The population fields of the spec (what the manifest shows as ``population``)."""
        d = self.to_dict()
        return {k: d[k] for k in ("players", "format", "tournament_pct", "buy_in_min_bb",
                                  "buy_in_bb", "leave_above_bb", "tournament_stack_bb", "bots",
                                  "hands_per_table", "level_hands", "leave_ppm")}

    @property
    def reproducible(self) -> bool:
        return self.generator == "philox"

    def n_batches(self) -> int:
        return -(-self.hands // self.batch_size)

    def batch_hands(self, batch_index: int) -> int:
        """Hands in one batch (the last batch may be short)."""
        return min(self.batch_size, self.hands - batch_index * self.batch_size)

    def plan(self) -> list[tuple[Structure, int]]:
        """Every (structure, batch index) of the run, in a fixed order."""
        return [(s, b) for s in self.structures for b in range(self.n_batches())]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["structures"] = [s.label for s in self.structures]
        if not isinstance(self.players, int):
            d["players"] = [list(x) for x in self.players]  # as JSON gives it back
        for key, default in GAME_DEFAULTS.items():  # the game's fields only when set
            if d[key] == default or (isinstance(d[key], tuple) and not d[key] and not default):
                del d[key]
        if not self.schedules_lock or self.seat_walk == 1:
            del d["seat_walk"]  # absent: walk 1 (runs made before), or schedules that agree
        for key in ("rake_caps_by_players", "levels", "bot_mix"):
            if key in d:
                d[key] = [list(x) for x in d[key]]
        if "python_bots" in d:
            d["python_bots"] = [dict(b) for b in d["python_bots"]]
        if "rebuys" in d:
            d["rebuys"] = dict(zip(REBUY_KEYS, d["rebuys"], strict=True))
        if "add_on" in d:
            d["add_on"] = dict(zip(ADD_ON_KEYS, d["add_on"], strict=True))
        if "payouts" in d:
            d["payouts"] = list(d["payouts"])
        return d

    @property
    def cash_rake_cap(self) -> int:
        """The rake cap of a cash hand in chips (0: none), before the caps by players."""
        return self.rake_cap if self.rake_cap is not None else self.rake_cap_bb * self.big_blind

    def fingerprint(self) -> str:
        """A digest of everything that determines the hands (not of how they are run)."""
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:16]

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunSpec:
        d = dict(d)
        d["structures"] = tuple(Structure.parse(s) for s in d["structures"])
        if isinstance(d.get("players"), list):
            d["players"] = tuple(tuple(x) for x in d["players"])
        for key in ("rake_caps_by_players", "levels", "bot_mix"):
            if isinstance(d.get(key), list):
                d[key] = tuple(tuple(x) for x in d[key])
        if isinstance(d.get("rebuys"), dict):
            d["rebuys"] = tuple(d["rebuys"][k] for k in REBUY_KEYS)
        if isinstance(d.get("add_on"), dict):
            d["add_on"] = tuple(d["add_on"][k] for k in ADD_ON_KEYS)
        if isinstance(d.get("payouts"), list):
            d["payouts"] = tuple(d["payouts"])
        if isinstance(d.get("python_bots"), list):
            d["python_bots"] = tuple(PythonBot(**b) if isinstance(b, dict) else b
                                     for b in d["python_bots"])
        d.setdefault("seat_walk", 1)  # a spec without it: walk 1 (``SEAT_WALKS``)
        spec = cls(**d)
        if spec.batch_size != d.get("batch_size", spec.batch_size):
            # a run recorded before batches were capped at PLAN_BLOCK: its own batch size
            object.__setattr__(spec, "batch_size", int(d["batch_size"]))
        return spec
