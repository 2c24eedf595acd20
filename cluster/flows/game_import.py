"""A game file as the schedule an operator's imported hands are audited against (``holdem import
--game FILE``, ``certify --import ... --game FILE``; docs/import.md, "An import against a game
file").

``read_import_game(path)`` reads the game file as simulate does (``cluster.flows.game``: the same
strict reading, the same defaults) and keeps what an imported hand can be checked against:

- ``rake``: the game's ``[rake]`` as the import's rake schedule (``cluster.flows.rake``; without
  ``[rake]``, the simulator's default rake: 5 % capped at 3 big blinds, no flop no drop), which
  the ``outcome`` audit checks each raked hand against;
- the stakes the ``stakes`` audit checks each hand against (``to_manifest``, the manifest's
  ``game``): the structures (none named: any), the cash stakes (blinds, ante and who posts it,
  fixed-limit bets and raise cap, the straddle when the game has one) and every tournament
  level a hand may be played at (the file's ``levels``, or the built-in schedule's levels with
  each ante kind a table may have).

**Amounts.** A game's amounts are chips; an import's are its currency's minor units (the
manifest's ``money.exponent`` E). One chip is one unit of the import's currency, so an amount
of the game is ``chips * 10**E`` minor units, exactly as ``--rake``'s amounts are currency units:
the simulated run's PHH export (``holdem export --phh``) writes chips, E = 0, one for one. A
game in cents (blinds 0.05/0.10) is not a game file (its amounts are whole chips).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from cluster.flows.rake import RakeSchedule

__all__ = ["ImportGame", "read_import_game"]

ANTE_NONE, ANTE_UNIFORM, ANTE_BIG_BLIND = 0, 1, 2  # the log's ante_mode codes
_MODE = {"every-player": ANTE_UNIFORM, "big-blind": ANTE_BIG_BLIND}


@dataclass(frozen=True)
class ImportGame:
    """A game's schedule in chips: ``cash`` = (small blind, big blind, ante, ante mode, small
    bet, big bet, raise cap); ``levels`` = the tournament's (small blind, big blind, ante, ante
    mode) a hand may be played at; ``structures`` None: any."""

    name: str | None
    path: str
    structures: tuple[str, ...] | None
    cash: tuple[int, int, int, int, int, int, int]
    levels: tuple[tuple[int, int, int, int], ...]
    raise_cap: int
    rake: RakeSchedule
    straddle: tuple[int, bool] = (0, False)  # a cash straddle: (chips, 0 none; always)
    # the minimum raise over it the ``betting`` audit checks: the PHH standard's reading (one
    # big blind over it) unless the game file states ``straddle_raise = "straddle"``
    straddle_raise: str = "big_blind"

    def to_manifest(self, exponent: int) -> dict[str, Any]:
        """The manifest's ``game``: the stakes in minor units of ``10**-exponent``."""
        u = 10 ** exponent
        sb, bb, ante, mode, small, big, cap = self.cash
        return {"name": self.name, "file": self.path,
                "structures": None if self.structures is None else list(self.structures),
                "chip": f"1 chip = 10^{exponent} minor units (one unit of the currency)",
                "cash": {"small_blind": sb * u, "big_blind": bb * u, "ante": ante * u,
                         "ante_mode": mode, "small_bet": small * u, "big_bet": big * u,
                         "raise_cap": cap,
                         **({"straddle": self.straddle[0] * u, "straddle_always":
                             self.straddle[1]} if self.straddle[0] else {}),
                         **({"straddle_raise": "straddle"} if self.straddle[0]
                            and self.straddle_raise == "straddle" else {})},
                "tournament": {"levels": [[a * u, b * u, c * u, m] for a, b, c, m in self.levels],
                               "raise_cap": self.raise_cap}}

    @classmethod
    def from_manifest(cls, d: dict[str, Any], exponent: int, rake: RakeSchedule
                      ) -> ImportGame:
        """The game ``to_manifest(exponent)`` wrote (a re-import; the caller checks the round
        trip). Raises KeyError, TypeError or ValueError for another record."""
        u = 10 ** exponent

        def chips(v: Any) -> int:
            if isinstance(v, bool) or not isinstance(v, int) or v % u:
                raise ValueError(f"{v!r}: not whole chips")
            return v // u

        c = d["cash"]
        cash = (chips(c["small_blind"]), chips(c["big_blind"]), chips(c["ante"]),
                int(c["ante_mode"]), chips(c["small_bet"]), chips(c["big_bet"]),
                int(c["raise_cap"]))
        levels = tuple((chips(a), chips(b), chips(x), int(m))
                       for a, b, x, m in d["tournament"]["levels"])
        st = d["structures"]
        straddle = (chips(c.get("straddle", 0)), bool(c.get("straddle_always", False)))
        rule = c.get("straddle_raise", "big_blind")
        if rule not in ("straddle", "big_blind"):
            raise ValueError(f"straddle_raise {rule!r}: expected straddle or big_blind")
        return cls(d["name"], str(d["file"]), None if st is None else tuple(st), cash, levels,
                   int(d["tournament"]["raise_cap"]), rake, straddle, rule)


def read_import_game(path: str | Path) -> ImportGame:
    """The game file ``path`` as an import's schedule (module docstring). Raises
    ``cluster.flows.game.GameError`` (one line naming the file and the key)."""
    from cluster.flows.game import GameError, read_game
    from sim.runspec import RunSpec

    fields = read_game(path)
    # an imported straddle is checked by the PHH standard's reading unless the game file says
    # otherwise (docs/import.md): only a stated straddle_raise, not the simulator's default
    stated_rule = fields.get("straddle_raise", "big_blind")
    structures = fields.pop("structures", None)
    fields.pop("python_bots", None)  # the bots play no part in an imported hand's stakes
    try:
        spec = RunSpec(hands=1, batch_size=1, **fields)
    except (TypeError, ValueError) as e:
        raise GameError(f"--game {path}: {e}") from None
    sb, bb = spec.small_blind, spec.big_blind
    mode = _MODE[spec.ante_mode] if spec.ante else ANTE_NONE
    small = spec.small_bet if spec.small_bet is not None else bb
    big = spec.big_bet if spec.big_bet is not None else 2 * small
    cash = (sb, bb, spec.ante, mode, small, big, spec.raise_cap)
    cap = spec.rake_cap if spec.rake_cap is not None else spec.rake_cap_bb * bb
    rake = RakeSchedule(Decimal(spec.rake_bps) / 100, Decimal(cap) if cap else None,
                        {n: Decimal(c) for n, c in spec.rake_caps_by_players},
                        spec.no_flop_no_drop)
    return ImportGame(spec.game, str(Path(path)), None if structures is None
                      else tuple(str(s) for s in structures), cash,
                      _levels(spec), spec.raise_cap, rake,
                      (spec.straddle_chips, spec.straddle == "always"), stated_rule)


def _levels(spec: Any) -> tuple[tuple[int, int, int, int], ...]:
    """Every (small blind, big blind, ante, ante mode) a tournament hand of the game may be
    played at: the game's levels (the ante posted as ``tournament_ante_mode`` says), or the
    built-in schedule (``audits.runspec.LEVEL_MULT``), each level with no ante, and from its
    ante levels on the ante kinds a table may draw (an eighth of the big blind from every
    player, or the big blind's big-blind ante)."""
    from audits.runspec import BB_ANTE_FROM_LEVEL, LEVEL_MULT, UNIFORM_ANTE_FROM_LEVEL

    if spec.levels is not None:
        mode = _MODE[spec.tournament_ante_mode]
        return tuple(dict.fromkeys((a, b, c, mode if c else ANTE_NONE)
                                   for a, b, c in spec.levels))
    out: list[tuple[int, int, int, int]] = []
    for i, m in enumerate(LEVEL_MULT):
        sb, bb = max(1, spec.small_blind * m), spec.big_blind * m
        out.append((sb, bb, 0, ANTE_NONE))
        if i >= UNIFORM_ANTE_FROM_LEVEL:
            out.append((sb, bb, max(1, bb // 8), ANTE_UNIFORM))
        if i >= BB_ANTE_FROM_LEVEL:
            out.append((sb, bb, bb, ANTE_BIG_BLIND))
    return tuple(dict.fromkeys(out))
