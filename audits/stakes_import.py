"""The ``stakes`` audit of imported hand histories against the operator's game file (``holdem
import --game FILE``: the manifest's ``game``, in the run's minor units; docs/import.md).

Each hand, from its own columns:

- its ``structure`` is one of the game's (a game that names none: any);
- a cash hand (``format`` cash): its small and big blind, its ante and who posts it
  (``ante_mode``: 0 none, 1 every player, 2 the big blind) are the game's cash stakes; its bets
  the game's (no-limit and pot-limit: ``min_bet`` the big blind; fixed-limit: ``small_bet``,
  ``big_bet`` and ``raise_cap`` the game's);
- a tournament hand: its (small blind, big blind, ante, ante_mode) is one of the game's levels;
  its bets those of that level (``min_bet`` the big blind; fixed-limit: the big blind and twice
  it, the game's raise cap).

A failure names the hand and both values: what the record says and what the game says. What it
cannot check: which level a tournament hand should be at (an operator's record rarely says when
the level changed); the rake, which the ``outcome`` audit checks against the game's ``[rake]``.
Without a game the audit is not applicable (an import's configuration is its source's).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from audits.io import Batch
from audits.result import MAX_EXAMPLES, MAX_FAILING, Partial

__all__ = ["import_stakes_map"]

_MODES = {0: "no ante", 1: "every player", 2: "the big blind"}


def _strings(b: Batch, name: str) -> list[str]:
    """The string column ``name`` per row (dictionary codes to their values)."""
    codes = b.cols[name]
    values = list(b.cols[name + "_values"])
    if codes.dtype.kind == "f":
        return ["" if np.isnan(c) else str(values[int(c)]) for c in codes]
    return [str(values[int(c)]) for c in codes]


def _stakes_text(sb: int, bb: int, ante: int, mode: int) -> str:
    text = f"{sb}/{bb}"
    return text + (f" ante {ante} ({_MODES.get(mode, mode)})" if ante or mode else "")


def import_stakes_map(b: Batch, game: dict[str, Any]) -> Partial:
    """Each hand of an imported batch against the game's stakes (module docstring)."""
    c = b.cols
    n = b.n
    hid = c["hand_id"]
    structure = _strings(b, "structure")
    tourn = np.asarray([f == "tournament" for f in _strings(b, "format")], np.bool_)
    sb, bb = c["small_blind"].astype(np.int64), c["big_blind"].astype(np.int64)
    ante, mode = c["ante"].astype(np.int64), c["ante_mode"].astype(np.int64)
    min_bet, small = c["min_bet"].astype(np.int64), c["small_bet"].astype(np.int64)
    big, cap = c["big_bet"].astype(np.int64), c["raise_cap"].astype(np.int64)
    fixed = np.asarray([s == "fixed-limit" for s in structure], np.bool_)
    cash = game["cash"]
    g = (int(cash["small_blind"]), int(cash["big_blind"]), int(cash["ante"]),
         int(cash["ante_mode"]))
    levels = [tuple(int(x) for x in lv) for lv in game["tournament"]["levels"]]
    level_set = set(levels)
    allowed = game.get("structures")
    failing: list[tuple[int, str]] = []
    reasons: dict[str, int] = {}

    def bad(i: int, reason: str, detail: str) -> None:
        reasons[reason] = reasons.get(reason, 0) + 1
        if len(failing) < MAX_FAILING:
            failing.append((int(hid[i]), f"{reason}: {detail}"))

    for i in range(n):
        stakes = (int(sb[i]), int(bb[i]), int(ante[i]), int(mode[i]))
        if allowed is not None and structure[i] not in allowed:
            bad(i, "structure is not one of the game's",
                f"{structure[i]}, the game's {', '.join(allowed)}")
        elif not tourn[i] and stakes[:2] != g[:2]:
            bad(i, "blinds are not the game's cash stakes",
                f"{stakes[0]}/{stakes[1]}, the game's {g[0]}/{g[1]}")
        elif not tourn[i] and stakes[2:] != g[2:]:
            bad(i, "ante is not the game's cash ante",
                f"{stakes[2]} ({_MODES.get(stakes[3], stakes[3])}), the game's {g[2]} "
                f"({_MODES.get(g[3], g[3])})")
        elif tourn[i] and stakes not in level_set:
            bad(i, "blinds and ante are none of the game's tournament levels",
                f"{_stakes_text(*stakes)}, the game's levels "
                + ", ".join(_stakes_text(*lv) for lv in levels[:8])
                + (f" ... ({len(levels)} levels)" if len(levels) > 8 else ""))
        elif fixed[i]:
            want = ((int(cash["small_bet"]), int(cash["big_bet"]), int(cash["raise_cap"]))
                    if not tourn[i] else
                    (stakes[1], 2 * stakes[1], int(game["tournament"]["raise_cap"])))
            got = (int(small[i]), int(big[i]), int(cap[i]))
            if got != want:
                bad(i, "fixed-limit bets are not the game's",
                    f"small bet {got[0]}, big bet {got[1]}, raise cap {got[2]}; the game's "
                    f"{want[0]}, {want[1]}, {want[2]}")
        elif int(min_bet[i]) != stakes[1]:
            bad(i, "minimum bet is not the game's (the big blind)",
                f"{int(min_bet[i])}, the game's {stakes[1]}")
    return Partial(hands=n, failures=sum(reasons.values()), examples=failing[:MAX_EXAMPLES],
                   reasons=reasons, failing=failing,
                   totals={"import_cash": int(n - tourn.sum()),
                           "import_tournament": int(tourn.sum())})
