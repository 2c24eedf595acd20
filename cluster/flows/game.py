"""A platform's own game, from a TOML file (``--game FILE`` of simulate, certify and regress):
its structures and stakes, rake, tables, buy-ins, tournament structure and bots, read strictly
into the ``RunSpec`` fields that make the hands (docs/game.md has the format).

``read_game(path)`` returns those fields as keyword arguments of ``RunSpec``; anything it cannot
use raises ``GameError``: one line naming the file and the key (``[stakes] big_blind``) and what
was expected. A key the simulator does not model yet (a rake step, a jackpot) is
refused by name with the reason, never ignored; ``[tournament]`` also takes re-buys, an add-on,
levels by time and payouts (``_tournament_extras``). Keys the file leaves out take the
command line's defaults (``sim.runspec.DEFAULT_POPULATION`` and ``RunSpec``'s), so a game file
with only ``[stakes]`` is today's game at its own blinds.

The ``[rake]`` table is the import's rake schedule format (``cluster.flows.rake``; percent of
the pot, ``cap``, ``caps_by_players``, ``no_flop_no_drop``), its amounts in chips.
"""

from __future__ import annotations

import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any

from audits.runfolder.errors import InputError
from cluster.flows.rake import RakeError, schedule_from_table

__all__ = ["GameError", "check_structures", "read_game", "parse_game"]

MAX_BYTES = 1_000_000
# table -> its keys
KEYS: dict[str, frozenset[str]] = {
    "": frozenset({"name", "structures", "stakes", "rake", "tables", "cash", "tournament",
                   "bots"}),
    "stakes": frozenset({"small_blind", "big_blind", "ante", "ante_mode", "small_bet",
                         "big_bet", "raise_cap", "straddle", "straddle_amount",
                         "straddle_pct", "straddle_raise"}),
    "tables": frozenset({"players", "format", "tournament_pct", "hands_per_table",
                         "leave_ppm", "timeout_ppm"}),
    "cash": frozenset({"buy_in_bb", "leave_above_bb"}),
    "tournament": frozenset({"starting_stack", "level_hands", "levels", "ante_mode", "rebuys",
                             "add_on", "level_seconds", "seconds_per_hand",
                             "seconds_per_action", "buy_in", "payouts"}),
    "bots": frozenset({"population", "mix", "python"}),
}
PYTHON_BOT_KEYS = frozenset({"path", "module", "callable", "weight"})
# keys a platform may expect that the simulator does not model yet: refused with the reason
NOT_MODELLED: dict[str, str] = {
    "tournament.prizes": "prizes are given as payouts = [percent of the pool by place, ...] "
                         "with buy_in",
    "tournament.add_ons": "one add-on a player: add_on = { at_level = N, chips = N }",
    "tournament.addons": "one add-on a player: add_on = { at_level = N, chips = N }",
    "tournament.level_minutes": "levels by time are given in seconds: level_seconds",
    "rake.step": "the simulator rakes whole chips (step 1); another step is not simulated",
    "rake.jackpot": "a jackpot drop is not simulated",
    "rake.jackpot_min_pot": "a jackpot drop is not simulated",
}
STRUCTURES = ("no-limit", "pot-limit", "fixed-limit")


class GameFields(dict[str, Any]):
    """``RunSpec`` keyword arguments of a game file, and what the file set itself:
    ``explicit_leave`` (its own ``leave_above_bb``, which ``--stacks`` then leaves alone)."""

    explicit_leave: bool = False
    stakes_given: frozenset[str] = frozenset()  # the [stakes] keys the file gives

    def derive(self, fields: dict[str, Any]) -> GameFields:
        """``fields`` (these overridden by the command line) with this file's attributes."""
        out = GameFields(fields)
        out.explicit_leave, out.stakes_given = self.explicit_leave, self.stakes_given
        return out


class GameError(InputError):
    """An unusable game file (one line naming the file and the key)."""


def read_game(path: str | Path) -> GameFields:
    """The ``RunSpec`` keyword arguments of a game file (module docstring)."""
    where = f"--game {path}"
    try:
        raw = Path(path).read_bytes()
    except OSError as e:
        raise GameError(f"{where}: cannot read it ({e.strerror or e})") from None
    if len(raw) > MAX_BYTES:
        raise GameError(f"{where}: larger than 1 MB")
    try:
        doc = tomllib.loads(raw.decode("utf-8"), parse_float=Decimal)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise GameError(f"{where}: not TOML ({str(e).splitlines()[0]})") from None
    return parse_game(doc, where, base=Path(path).parent)


def _int(v: Any, key: str, where: str, lo: int = 0, hi: int | None = None) -> int:
    """An integer ``lo..hi`` (``hi`` None: a chip amount, at most ``MAX_CHIPS``)."""
    from sim.runspec import MAX_CHIPS

    hi = MAX_CHIPS if hi is None else hi
    if isinstance(v, bool) or not isinstance(v, int) or v < lo or v > hi:
        shown = str(v) if isinstance(v, Decimal) else repr(v)
        raise GameError(f"{where}: {key}: {shown}: expected an integer {lo:,}..{hi:,}")
    return v


def _str(v: Any, key: str, where: str, choices: tuple[str, ...]) -> str:
    if not isinstance(v, str) or v not in choices:
        raise GameError(f"{where}: {key}: {v!r}: expected one of {', '.join(choices)}")
    return v


def _table(doc: dict[str, Any], name: str, where: str) -> dict[str, Any]:
    sub = doc.get(name, {})
    if not isinstance(sub, dict):
        raise GameError(f"{where}: {name}: expected a table ([{name}])")
    for key in sub:
        full = f"{name}.{key}"
        if full in NOT_MODELLED:
            raise GameError(f"{where}: [{name}] {key}: {NOT_MODELLED[full]}")
        if name in KEYS and key not in KEYS[name]:
            raise GameError(f"{where}: [{name}] {key}: unknown key (expected "
                            f"{', '.join(sorted(KEYS[name]))})")
    return sub


def parse_game(doc: dict[str, Any], where: str = "game", *,
               base: Path | None = None) -> GameFields:
    """The ``RunSpec`` keyword arguments of a parsed game document (``read_game``); ``base``:
    the folder a Python bot's ``path`` is relative to (the game file's; default: the current
    folder)."""
    from sim.config import MAX_SEATS
    from sim.runspec import (
        ANTE_MODES,
        DEFAULT_POPULATION,
        MAX_GAME_NAME,
        MAX_LEVELS,
        POLICY_NAMES,
        parse_players,
    )

    for key in doc:
        if key not in KEYS[""]:
            raise GameError(f"{where}: {key}: unknown key (expected "
                            f"{', '.join(sorted(KEYS['']))})")
    out = GameFields(DEFAULT_POPULATION)
    name = doc.get("name")
    if name is not None:
        if not isinstance(name, str) or not 0 < len(name.strip()) <= MAX_GAME_NAME \
                or not name.isprintable():
            raise GameError(f"{where}: name: expected a text of 1..{MAX_GAME_NAME} printable "
                            "characters on one line")
        out["game"] = name.strip()
    if "structures" in doc:
        st = doc["structures"]
        if not isinstance(st, list) or not st or any(s not in STRUCTURES for s in st) \
                or len(set(st)) != len(st):
            raise GameError(f"{where}: structures: {st!r}: expected a list of distinct "
                            f"structures of {', '.join(STRUCTURES)}")
        out["structures"] = tuple(st)

    stakes = _table(doc, "stakes", where)
    w = f"{where}: [stakes]"
    sb = _int(stakes.get("small_blind", 1), "small_blind", w, 1)
    bb = _int(stakes.get("big_blind", 2 * sb if "small_blind" in stakes else 2), "big_blind",
              w, 1)
    if bb < sb:
        raise GameError(f"{w}: big_blind {bb}: expected at least the small blind ({sb})")
    out["small_blind"], out["big_blind"] = sb, bb
    out.stakes_given = frozenset(stakes)
    if "ante" in stakes:
        out["ante"] = _int(stakes["ante"], "ante", w, 0)
    if "ante_mode" in stakes:
        out["ante_mode"] = _str(stakes["ante_mode"], "ante_mode", w, ANTE_MODES)
    if "small_bet" in stakes:
        out["small_bet"] = _int(stakes["small_bet"], "small_bet", w, 1)
    if "big_bet" in stakes:
        out["big_bet"] = _int(stakes["big_bet"], "big_bet", w, out.get("small_bet", bb))
    if "raise_cap" in stakes:
        out["raise_cap"] = _int(stakes["raise_cap"], "raise_cap", w, 1, 100)
    out.update(_straddle(stakes, w, bb))

    if "rake" in doc:
        out.update(_rake(doc["rake"], f"{where}: [rake]"))

    tables = _table(doc, "tables", where)
    w = f"{where}: [tables]"
    if "players" in tables:
        v = tables["players"]
        if isinstance(v, bool) or not isinstance(v, (int, str)):
            raise GameError(f"{w}: players: {v!r}: expected a seat count (9) or a text "
                            "(\"2-10\", \"2:1,6:3,9:2\")")
        try:
            players = parse_players(v)
        except ValueError as e:
            raise GameError(f"{w}: players: {str(e).partition(': ')[2]}") from None
        mix = ((players, 1),) if isinstance(players, int) else players
        if any(not 2 <= n <= MAX_SEATS or not 0 <= wt <= 1_000_000 for n, wt in mix) \
                or sum(wt for _, wt in mix) < 1:
            raise GameError(f"{w}: players: {v!r}: expected seat counts 2..{MAX_SEATS} with "
                            "weights 0..1,000,000 adding up to at least 1")
        out["players"] = players
    if "format" in tables:
        out["format"] = _str(tables["format"], "format", w, ("cash", "tournament", "mixed"))
    if "tournament_pct" in tables:
        out["tournament_pct"] = _int(tables["tournament_pct"], "tournament_pct", w, 0, 100)
    if "hands_per_table" in tables:
        out["hands_per_table"] = _int(tables["hands_per_table"], "hands_per_table", w, 1,
                                      1 << 20)
    for key in ("leave_ppm", "timeout_ppm"):
        if key in tables:
            out[key] = _int(tables[key], key, w, 0, 1_000_000)

    cash = _table(doc, "cash", where)
    w = f"{where}: [cash]"
    if "buy_in_bb" in cash:
        v = cash["buy_in_bb"]
        if isinstance(v, list) and len(v) == 2:
            lo, hi = (_int(x, "buy_in_bb", w, 1) for x in v)
            if lo > hi:
                raise GameError(f"{w}: buy_in_bb: {v!r}: expected [MIN, MAX] with MIN <= MAX")
        else:
            lo = hi = _int(v, "buy_in_bb", w, 1)
        out["buy_in_min_bb"], out["buy_in_bb"] = (None if lo == hi else lo), hi
        if out["leave_above_bb"]:  # the default leave threshold follows the maximum
            out["leave_above_bb"] = 3 * hi
    if "leave_above_bb" in cash:
        out["leave_above_bb"] = _int(cash["leave_above_bb"], "leave_above_bb", w, 0)
        if out["leave_above_bb"] and out["leave_above_bb"] < out["buy_in_bb"]:
            raise GameError(f"{w}: leave_above_bb {out['leave_above_bb']}: expected 0 (never) "
                            f"or at least the largest buy-in ({out['buy_in_bb']})")
        out.explicit_leave = True  # --stacks does not recompute it (options.population)

    tourn = _table(doc, "tournament", where)
    w = f"{where}: [tournament]"
    if "starting_stack" in tourn:
        stack = _int(tourn["starting_stack"], "starting_stack", w, 1)
        if stack % bb:
            raise GameError(f"{w}: starting_stack {stack}: expected a multiple of the big "
                            f"blind ({bb}: [stakes] big_blind)")
        out["tournament_stack_bb"] = stack // bb
    if "level_hands" in tourn:
        out["level_hands"] = _int(tourn["level_hands"], "level_hands", w, 1, 1 << 20)
    if "levels" in tourn:
        out["levels"] = _levels(tourn["levels"], w, MAX_LEVELS)
        out["tournament_ante_mode"] = "big-blind"
    if "levels" in tourn and "starting_stack" in tourn \
            and out["tournament_stack_bb"] * bb < out["levels"][0][1]:
        raise GameError(f"{w}: starting_stack {out['tournament_stack_bb'] * bb}: expected at "
                        f"least the first level's big blind ({out['levels'][0][1]})")
    if "ante_mode" in tourn:
        if "levels" not in tourn:
            raise GameError(f"{w}: ante_mode: only with levels (the built-in schedule gives "
                            "each table its ante)")
        out["tournament_ante_mode"] = _str(tourn["ante_mode"], "ante_mode", w, ANTE_MODES)

    out.update(_tournament_extras(tourn, w))
    _inert(doc, out, where)
    if "structures" in out:
        check_structures(out, out["structures"], where, "structures")
    if out.get("straddle", "none") != "none":
        _straddle_tables(out, f"{where}: [stakes] straddle")

    bots = _table(doc, "bots", where)
    w = f"{where}: [bots]"
    if "population" in bots:
        out["bots"] = _str(bots["population"], "population", w, ("classic", "real"))
    if "mix" in bots:
        mix = bots["mix"]
        if not isinstance(mix, dict) or not mix:
            raise GameError(f"{w}: mix: expected a table of bot = weight "
                            f"({', '.join(POLICY_NAMES)})")
        for bot in mix:
            if bot not in POLICY_NAMES:
                raise GameError(f"{w}: mix: {bot!r}: expected a bot of "
                                f"{', '.join(POLICY_NAMES)}")
        out["bot_mix"] = tuple((bot, _int(mix[bot], f"mix.{bot}", w, 0, 1_000_000))
                               for bot in POLICY_NAMES if bot in mix)
        if sum(v for _, v in out["bot_mix"]) < 1:
            raise GameError(f"{w}: mix: the weights add up to 0")
    if "python" in bots:
        out["python_bots"] = _python_bots(bots["python"], w, base or Path.cwd())
    return out


# keys that act only at cash tables / tournament tables (a table's keys: all of them)
CASH_ONLY = {"stakes": ("ante", "ante_mode", "small_bet", "big_bet"), "rake": None,
             "tables": ("hands_per_table", "leave_ppm"), "cash": None}
FIXED_LIMIT_ONLY = ("small_bet", "big_bet", "raise_cap")


def _max_seats(players: Any) -> int:
    return players if isinstance(players, int) else max(n for n, wt in players if wt > 0)


def _inert(doc: dict[str, Any], out: dict[str, Any], where: str) -> None:
    """Refuse a key the game's other values leave without effect (docs/game.md, "Keys that
    would do nothing"), one line naming it and what it needs: a cash key in a game without
    cash tables, a ``[tournament]`` key in one without tournament tables, ``tournament_pct``
    beside a single format, an ante mode without an ante, rake keys without a rake, a rake cap
    or a paid place for more players than the tables seat."""
    fmt, pct = out["format"], out["tournament_pct"]
    tables = doc.get("tables", {})
    if "tournament_pct" in tables and fmt != "mixed":
        raise GameError(f"{where}: [tables] tournament_pct: only with format = \"mixed\" "
                        f"(format is {fmt!r}: every batch is {fmt})")
    shown = f"[tables] format is {fmt!r}" + (f" with tournament_pct {pct}" if fmt == "mixed"
                                             else "")
    has_cash = fmt == "cash" or (fmt == "mixed" and pct < 100)
    has_tourn = fmt == "tournament" or (fmt == "mixed" and pct > 0)
    if not has_tourn and doc.get("tournament"):
        key = next(iter(doc["tournament"]))
        raise GameError(f"{where}: [tournament] {key}: the game has no tournament tables "
                        f"({shown}): expected format tournament or mixed, or no [tournament]")
    if not has_cash:
        for table, keys in CASH_ONLY.items():
            given = [k for k in doc.get(table, {}) if keys is None or k in keys]
            if given:
                raise GameError(f"{where}: [{table}] {given[0]}: acts only at cash tables, and "
                                f"the game has none ({shown}; tournaments take no rake and "
                                "play their levels): expected format cash or mixed, or no "
                                f"{given[0]}")
    stakes, tourn, rake = doc.get("stakes", {}), doc.get("tournament", {}), doc.get("rake", {})
    if "ante_mode" in stakes and not out.get("ante"):
        raise GameError(f"{where}: [stakes] ante_mode: only with an ante (ante is "
                        f"{out.get('ante', 0)}): expected ante >= 1, or no ante_mode")
    if "ante_mode" in tourn and not any(a for _, _, a in out["levels"]):
        raise GameError(f"{where}: [tournament] ante_mode: no level has an ante: expected a "
                        "level [small blind, big blind, ante] with an ante >= 1, or no "
                        "ante_mode")
    if isinstance(rake, dict) and out.get("rake_bps") == 0:
        other = [k for k in rake if k != "percent"]
        if other:
            raise GameError(f"{where}: [rake] {other[0]}: no rake to act on (percent is 0): "
                            f"expected a percent above 0, or no {other[0]}")
    seats = _max_seats(out["players"])
    for n, _ in out.get("rake_caps_by_players", ()):
        if n > seats:
            raise GameError(f"{where}: [rake] caps_by_players.{n}: the tables seat at most "
                            f"{seats} ([tables] players): expected player counts 2..{seats}")
    if len(out.get("payouts") or ()) > seats:
        raise GameError(f"{where}: [tournament] payouts: {len(out['payouts'])} places paid, "
                        f"and the tables seat at most {seats} ([tables] players): expected at "
                        f"most {seats} places")


def check_structures(fields: dict[str, Any], structures: Any, where: str, given_by: str) -> None:
    """The game's keys that depend on the structures played (``given_by``: the file's
    ``structures`` or the command line's ``--structure``), one line naming the key: fixed-limit
    bets and raise cap only with a fixed-limit structure; a fixed-limit straddle a full bet
    (the big blind plus the small bet)."""
    labels = [getattr(st, "label", st) for st in structures]
    fixed = "fixed-limit" in labels
    w = f"{where}: [stakes]"
    for key in FIXED_LIMIT_ONLY:
        if key in getattr(fields, "stakes_given", ()) and not fixed:
            raise GameError(f"{w} {key}: only with a fixed-limit structure ({given_by}: "
                            f"{', '.join(labels)}): expected fixed-limit among the structures, "
                            f"or no {key}")
    if fixed and fields.get("straddle", "none") != "none":
        bb = fields["big_blind"]
        full = bb + (fields.get("small_bet") or bb)
        amount = fields.get("straddle_amount") or 2 * bb
        if amount != full:
            raise GameError(f"{w} straddle_amount: {amount} chips"
                            + ("" if fields.get("straddle_amount") else " (its default, twice "
                               "the big blind)")
                            + f": a fixed-limit straddle is a full bet: expected the big blind "
                            f"plus the small bet, {full} chips, or no fixed-limit structure "
                            f"({given_by}: {', '.join(labels)})")


def _straddle(stakes: dict[str, Any], where: str, bb: int) -> dict[str, Any]:
    """``[stakes] straddle`` (none, always, optional), ``straddle_amount`` (chips, more than
    the big blind; default twice it), ``straddle_pct`` (optional: percent of the hands) and
    ``straddle_raise`` (straddle: a pre-flop raise adds at least the straddle; big_blind: one
    big blind over it, as PokerKit): the ``RunSpec`` fields of the same names."""
    from sim.runspec import STRADDLE_RAISES, STRADDLES

    policy = _str(stakes.get("straddle", "none"), "straddle", where, STRADDLES)
    out: dict[str, Any] = {"straddle": policy} if "straddle" in stakes else {}
    for key, needs in (("straddle_amount", ("always", "optional")),
                       ("straddle_pct", ("optional",)),
                       ("straddle_raise", ("always", "optional"))):
        if key in stakes and policy not in needs:
            raise GameError(f"{where}: {key}: only with straddle = "
                            f"{' or '.join(repr(p) for p in needs)} (straddle is {policy!r})")
    if "straddle_amount" in stakes:
        out["straddle_amount"] = _int(stakes["straddle_amount"], "straddle_amount", where,
                                      bb + 1)
    if "straddle_pct" in stakes:
        out["straddle_pct"] = _int(stakes["straddle_pct"], "straddle_pct", where, 1, 99)
    if "straddle_raise" in stakes:
        out["straddle_raise"] = _str(stakes["straddle_raise"], "straddle_raise", where,
                                     STRADDLE_RAISES)
    return out


def _straddle_tables(out: dict[str, Any], where: str) -> None:
    """A straddle needs cash tables of 3 seats or more (heads-up, the seat left of the big
    blind is the small blind; tournaments play none)."""
    players = out["players"]
    seats = [players] if isinstance(players, int) else [n for n, wt in players if wt > 0]
    if min(seats) < 3:
        raise GameError(f"{where}: {out['straddle']!r}: the tables include {min(seats)} seats "
                        "and heads-up has no straddle: expected [tables] players of 3 seats "
                        "or more (the default mix has 2-seat tables)")
    if out.get("format") == "tournament":
        raise GameError(f"{where}: {out['straddle']!r}: tournaments play no straddle: expected "
                        "[tables] format cash or mixed (its cash tables straddle)")


def _python_bots(v: Any, where: str, base: Path) -> tuple[Any, ...]:
    """``[bots.python.NAME]`` tables: ``path`` (a ``.py`` file, relative to the game file) or
    ``module`` (importable), ``callable`` (default ``decide``), ``weight`` (default 1): each a
    ``sim.pybots.PythonBot`` with its source's sha256."""
    from sim.pybots import MAX_BOTS, BotError, PythonBot, module_file, source_sha256
    from sim.runspec import MAX_BOT_WEIGHT, check_python_bots

    if not isinstance(v, dict) or not 1 <= len(v) <= MAX_BOTS:
        raise GameError(f"{where}: python: expected 1..{MAX_BOTS} tables [bots.python.NAME]")
    out = []
    for name, t in v.items():
        w = f"{where} python.{name}"
        if not isinstance(t, dict):
            raise GameError(f"{w}: expected a table ([bots.python.{name}] with path or module)")
        for key in t:
            if key not in PYTHON_BOT_KEYS:
                raise GameError(f"{w}: {key}: unknown key (expected "
                                f"{', '.join(sorted(PYTHON_BOT_KEYS))})")
        if ("path" in t) == ("module" in t):
            raise GameError(f"{w}: expected path = \"FILE.py\" or module = \"pkg.mod\" "
                            "(one of them)")
        fn = t.get("callable", "decide")
        if not isinstance(fn, str) or not fn.isidentifier():
            raise GameError(f"{w}: callable: {fn!r}: expected a function's name")
        weight = _int(t.get("weight", 1), "weight", w, 1, MAX_BOT_WEIGHT)
        try:
            if "path" in t:
                if not isinstance(t["path"], str) or not t["path"].endswith(".py"):
                    raise GameError(f"{w}: path: {t['path']!r}: expected a .py file")
                path = (base / t["path"]).resolve()
                if not path.is_file():
                    raise GameError(f"{w}: path: {path}: no such file")
                kind, source = "path", str(path)
            else:
                mod = t["module"]
                if not isinstance(mod, str) or not all(p.isidentifier() for p in mod.split(".")):
                    raise GameError(f"{w}: module: {mod!r}: expected a module name (pkg.mod)")
                module_file(mod)
                kind, source = "module", mod
            sha = source_sha256(kind, source)
        except BotError as e:
            raise GameError(f"{w}: {e}") from None
        out.append(PythonBot(name=name, kind=kind, source=source, callable=fn, weight=weight,
                             sha256=sha))
    try:
        return check_python_bots(out)
    except ValueError as e:
        raise GameError(f"{where}: {e}") from None


def _tournament_extras(t: dict[str, Any], where: str) -> dict[str, Any]:
    """``[tournament]`` re-buys, the add-on, levels by time and payouts: the ``RunSpec``
    fields ``rebuys``, ``add_on``, ``level_seconds``, ``seconds_per_hand``,
    ``seconds_per_action``, ``tournament_buy_in`` and ``payouts`` (docs/game.md)."""
    from sim.runspec import ADD_ON_KEYS, MAX_PAID, REBUY_KEYS

    out: dict[str, Any] = {}

    def sub(key: str, keys: tuple[str, ...], required: tuple[str, ...]) -> dict[str, Any]:
        v = t[key]
        if not isinstance(v, dict):
            raise GameError(f"{where}: {key}: expected a table {{ {', '.join(keys)} }}")
        for k in v:
            if k not in keys:
                raise GameError(f"{where}: {key}.{k}: unknown key (expected "
                                f"{', '.join(keys)})")
        for k in required:
            if k not in v:
                raise GameError(f"{where}: {key}.{k}: missing")
        return v

    if "rebuys" in t:
        v = sub("rebuys", REBUY_KEYS, ("until_level", "chips"))
        rb = (_int(v.get("max", 1), "rebuys.max", where, 1, 100),
              _int(v["until_level"], "rebuys.until_level", where, 1, 1 << 20),
              _int(v.get("at_or_below", 0), "rebuys.at_or_below", where, 0),
              _int(v["chips"], "rebuys.chips", where, 1))
        out["rebuys"] = rb
    if "add_on" in t:
        v = sub("add_on", ADD_ON_KEYS, ADD_ON_KEYS)
        ao = (_int(v["at_level"], "add_on.at_level", where, 1, 1 << 20),
              _int(v["chips"], "add_on.chips", where, 1))
        if "rebuys" in out and ao[0] < out["rebuys"][1]:
            raise GameError(f"{where}: add_on.at_level {ao[0]}: expected at or after the "
                            f"re-buys end (rebuys.until_level {out['rebuys'][1]})")
        out["add_on"] = ao
    if "level_seconds" in t:
        if "level_hands" in t:
            raise GameError(f"{where}: level_seconds: beside level_hands (a level is a number "
                            "of hands or of seconds, not both)")
        out["level_seconds"] = _int(t["level_seconds"], "level_seconds", where, 1, 1 << 30)
    for key in ("seconds_per_hand", "seconds_per_action"):
        if key in t:
            if "level_seconds" not in t:
                raise GameError(f"{where}: {key}: only with level_seconds (the level clock)")
            out[key] = _int(t[key], key, where, 0, 1 << 20)
    if out.get("seconds_per_hand", 20) + out.get("seconds_per_action", 5) < 1:
        raise GameError(f"{where}: seconds_per_hand: a hand must last at least 1 second")
    if ("buy_in" in t) != ("payouts" in t):
        raise GameError(f"{where}: {'payouts' if 'buy_in' in t else 'buy_in'}: missing "
                        "(buy_in and payouts go together)")
    if "payouts" in t:
        out["tournament_buy_in"] = _int(t["buy_in"], "buy_in", where, 1, 1 << 40)
        v = t["payouts"]
        if not isinstance(v, list) or not 1 <= len(v) <= MAX_PAID:
            raise GameError(f"{where}: payouts: expected a list of 1..{MAX_PAID} percentages "
                            "(first place first)")
        pay = tuple(_int(x, f"payouts[{i}]", where, 1, 100) for i, x in enumerate(v, 1))
        for i in range(1, len(pay)):
            if pay[i] > pay[i - 1]:
                raise GameError(f"{where}: payouts[{i + 1}]: {pay[i]}% for place {i + 1}, more "
                                f"than place {i}'s {pay[i - 1]}%: expected each place paid at "
                                "most what the place before it is")
        if sum(pay) != 100:
            raise GameError(f"{where}: payouts: {list(pay)} add up to {sum(pay)}, expected "
                            "100 (percent of the prize pool)")
        out["payouts"] = pay
    return out


def _levels(v: Any, where: str, max_levels: int) -> tuple[tuple[int, int, int], ...]:
    """``[[small blind, big blind, ante], ...]`` (the ante may be left out: 0)."""
    if not isinstance(v, list) or not 1 <= len(v) <= max_levels:
        raise GameError(f"{where}: levels: expected a list of 1..{max_levels} levels "
                        "[small blind, big blind, ante]")
    out: list[tuple[int, int, int]] = []
    for i, lv in enumerate(v, 1):
        if not isinstance(lv, list) or len(lv) not in (2, 3):
            raise GameError(f"{where}: levels[{i}]: {lv!r}: expected [small blind, big blind] "
                            "or [small blind, big blind, ante]")
        a = _int(lv[0], f"levels[{i}] small blind", where, 1)
        b = _int(lv[1], f"levels[{i}] big blind", where, a)
        c = _int(lv[2], f"levels[{i}] ante", where, 0) if len(lv) == 3 else 0
        if out and (a < out[-1][0] or b < out[-1][1]):
            raise GameError(f"{where}: levels[{i}]: blinds {a}/{b} below levels[{i - 1}]'s "
                            f"{out[-1][0]}/{out[-1][1]}: expected blinds that never fall from "
                            "one level to the next")
        out.append((a, b, c))
    return tuple(out)


def _rake(v: Any, where: str) -> dict[str, Any]:
    """The ``RunSpec`` rake fields of a ``[rake]`` table (the import's schedule format, in
    chips): ``rake_bps``, ``rake_cap`` (0: none), ``rake_caps_by_players``,
    ``no_flop_no_drop``."""
    if not isinstance(v, dict):
        raise GameError(f"{where}: expected a table ([rake])")
    for key in v:
        if f"rake.{key}" in NOT_MODELLED:
            raise GameError(f"{where} {key}: {NOT_MODELLED['rake.' + key]}")
    try:
        sched = schedule_from_table(dict(v), where, {})
    except RakeError as e:
        text = str(e)
        raise GameError(text if text.startswith(where) else f"{where} {text}") from None
    zero = [k for k, c in (("cap", sched.cap), *((f"caps_by_players.{n}", c) for n, c in
                                                 sched.caps_by_players.items())) if c == 0]
    if zero:
        raise GameError(f"{where} {zero[0]} 0: expected a cap above 0 (no rake: percent = 0; "
                        "no cap: leave cap out)")
    bps = sched.percent * 100
    if bps != bps.to_integral_value():
        raise GameError(f"{where} percent {sched.percent}: expected a multiple of 0.01 (the "
                        "simulator rakes in basis points)")

    def chips(d: Decimal, key: str) -> int:
        if d != d.to_integral_value():
            raise GameError(f"{where} {key} {d}: expected whole chips")
        return int(d)

    return {"rake_bps": int(bps), "rake_cap_bb": 0,
            "rake_cap": 0 if sched.cap is None else chips(sched.cap, "cap"),
            "rake_caps_by_players": tuple((n, chips(c, f"caps_by_players.{n}"))
                                          for n, c in sorted(sched.caps_by_players.items())),
            "no_flop_no_drop": sched.no_flop_no_drop}
