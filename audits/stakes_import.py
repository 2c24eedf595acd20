"""The ``stakes`` audit of imported hand histories against the operator's game file (``holdem
import --game FILE``: the manifest's ``game``, in the run's minor units; docs/import.md).

Each hand, from its own columns:

- its ``structure`` is one of the game's (a game that names none: any);
- a cash hand (``format`` cash): its small and big blind, its ante and who posts it
  (``ante_mode``: 0 none, 1 every player, 2 the big blind) are the game's cash stakes; its bets
  the game's (no-limit and pot-limit: ``min_bet`` the big blind; fixed-limit: ``small_bet``,
  ``big_bet`` and ``raise_cap`` the game's); its straddle the game's (``audits.straddles``: the
  game's amount or the straddler's chips after its ante, posted in every hand of 3 or more
  players when the game's straddle is ``always``; none in a game without one);
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

from audits.io import Batch, string_is
from audits.result import MAX_EXAMPLES, MAX_FAILING, Partial
from audits.straddles import straddles

__all__ = ["import_stakes_map"]

_MODES = {0: "no ante", 1: "every player", 2: "the big blind"}


def _stakes_text(sb: int, bb: int, ante: int, mode: int) -> str:
    text = f"{sb}/{bb}"
    return text + (f" ante {ante} ({_MODES.get(mode, mode)})" if ante or mode else "")


def import_stakes_map(b: Batch, game: dict[str, Any]) -> Partial:
    """Each hand of an imported batch against the game's stakes (module docstring): the checks
    on whole columns, the reasons written for the failing hands only."""
    c = b.cols
    n = b.n
    hid = c["hand_id"]
    tourn = string_is(b, "format", "tournament")
    fixed = string_is(b, "structure", "fixed-limit")
    sb, bb = c["small_blind"].astype(np.int64), c["big_blind"].astype(np.int64)
    ante, mode = c["ante"].astype(np.int64), c["ante_mode"].astype(np.int64)
    min_bet, small = c["min_bet"].astype(np.int64), c["small_bet"].astype(np.int64)
    big, cap = c["big_bet"].astype(np.int64), c["raise_cap"].astype(np.int64)
    cash = game["cash"]
    g = (int(cash["small_blind"]), int(cash["big_blind"]), int(cash["ante"]),
         int(cash["ante_mode"]))
    levels = [tuple(int(x) for x in lv) for lv in game["tournament"]["levels"]]
    t_cap = int(game["tournament"]["raise_cap"])
    allowed = game.get("structures")
    in_game = np.ones(n, np.bool_)
    if allowed is not None:
        in_game = np.zeros(n, np.bool_)
        for name in allowed:
            in_game |= string_is(b, "structure", str(name))
    at_level = np.zeros(n, np.bool_)
    for a, bl, x, m in levels:
        at_level |= (sb == a) & (bb == bl) & (ante == x) & (mode == m)
    want_small = np.where(tourn, bb, int(cash["small_bet"]))
    want_big = np.where(tourn, 2 * bb, int(cash["big_bet"]))
    want_cap = np.where(tourn, t_cap, int(cash["raise_cap"]))
    posted, want_straddle, _ = straddles(b, int(cash.get("straddle", 0)),
                                         bool(cash.get("straddle_always", False)), ~tourn)
    # the first failing check per hand, in this order (0: none)
    checks = (~in_game,
              ~tourn & ((sb != g[0]) | (bb != g[1])),
              ~tourn & ((ante != g[2]) | (mode != g[3])),
              tourn & ~at_level,
              fixed & ((small != want_small) | (big != want_big) | (cap != want_cap)),
              ~fixed & (min_bet != bb),
              posted != want_straddle)
    code = np.zeros(n, np.int8)
    for k in range(len(checks), 0, -1):
        code[checks[k - 1]] = k
    failing: list[tuple[int, str]] = []
    reasons: dict[str, int] = {}
    for i in np.flatnonzero(code).tolist():
        k = int(code[i])
        if k == 1:
            reason = "structure is not one of the game's"
            detail = f"{_value(b, 'structure', i)}, the game's {', '.join(allowed or ())}"
        elif k == 2:
            reason = "blinds are not the game's cash stakes"
            detail = f"{sb[i]}/{bb[i]}, the game's {g[0]}/{g[1]}" + _level_hint(
                b, i, [lv[:2] for lv in levels].index((int(sb[i]), int(bb[i])))
                if (int(sb[i]), int(bb[i])) in [lv[:2] for lv in levels] else None)
        elif k == 3:
            reason = "ante is not the game's cash ante"
            detail = (f"{ante[i]} ({_MODES.get(int(mode[i]), int(mode[i]))}), the game's "
                      f"{g[2]} ({_MODES.get(g[3], g[3])})")
        elif k == 4:
            reason = "blinds and ante are none of the game's tournament levels"
            detail = (f"{_stakes_text(int(sb[i]), int(bb[i]), int(ante[i]), int(mode[i]))}, "
                      "the game's levels " + ", ".join(_stakes_text(*lv) for lv in levels[:8])
                      + (f" ... ({len(levels)} levels)" if len(levels) > 8 else ""))
        elif k == 5:
            reason = "fixed-limit bets are not the game's"
            detail = (f"small bet {small[i]}, big bet {big[i]}, raise cap {cap[i]}; the game's "
                      f"{want_small[i]}, {want_big[i]}, {want_cap[i]}")
        elif k == 6:
            reason = "minimum bet is not the game's (the big blind)"
            detail = f"{min_bet[i]}, the game's {bb[i]}"
        else:
            reason = "straddle is not the game's"
            detail = f"{posted[i]} (-1: two), the game's {want_straddle[i]} (0: none)"
        reasons[reason] = reasons.get(reason, 0) + 1
        if len(failing) < MAX_FAILING:
            failing.append((int(hid[i]), f"{reason}: {detail}"))
    n_tourn = int(tourn.sum())
    return Partial(hands=n, failures=int(np.count_nonzero(code)),
                   examples=failing[:MAX_EXAMPLES], reasons=reasons, failing=failing,
                   totals={"import_cash": n - n_tourn, "import_tournament": n_tourn})


def _level_hint(b: Batch, i: int, level: int | None) -> str:
    """A cash hand at the blinds of the game's tournament level ``level``: how the lab makes
    it a tournament hand (docs/import.md, "Who names the format"); empty for other blinds."""
    if level is None:
        return ""
    src = b.imp.get("source_file") if b.imp else None
    name = str(b.imp["source_file_values"][int(src[i])]).rsplit("/", 1)[-1] \
        if src is not None else "FILE"
    return (f" (the blinds of the game's tournament level {level}: if the hand is a "
            f"tournament's, import its file with --source-format '{name}=tournament')")


def _value(b: Batch, name: str, i: int) -> str:
    """The string column ``name`` of row ``i``."""
    code = b.cols[name][i]
    return "" if isinstance(code, float) and np.isnan(code) else str(
        b.cols[name + "_values"][int(code)])
