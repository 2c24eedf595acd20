"""Finishing places and prizes of tournament tables, derived from the log and the spec alone
(docs/game.md, Payouts): prize amounts are a derivation, never a log column.

A tournament table's players finish in the order they are eliminated: a player is eliminated
at the hand he ends with no chips and after which his seat is empty (a busted player who
re-buys is not eliminated). The last player with chips is first; players eliminated in the same
hand are ranked by their stacks at that hand's start (the larger stack finishes better), equal
stacks by seat number (the lower seat finishes better). A table that stops with its batch
before one player holds every chip has no places (it is counted as unfinished).

The prize pool is the buy-in (currency units) times the entries and purchases: every seat of
the table's first hand is one entry, every re-buy and add-on (a positive ``rebuys`` after the
first hand) one purchase. Place p takes ``pool * payouts[p - 1] // 100``; what rounding leaves
and the shares of places the table does not have (fewer players than paid places) go to the
first place, so the whole pool is paid.
"""

from __future__ import annotations

from typing import Any

import numpy as np

MAX_LISTED = 20  # tournament tables listed in the stakes audit's details


def finishing_places(occ: np.ndarray, start: np.ndarray, end: np.ndarray) -> list[int] | None:
    """The seats of one tournament table by finishing place (first place first), from its
    hands in hand order (per hand and seat: occupied, stacks_start, stacks_end); None when
    the table did not finish (more than one player with chips after its last hand)."""
    n, k = occ.shape
    if n == 0 or int(np.sum(end[-1] > 0)) != 1:
        return None
    out: list[int] = [int(np.flatnonzero(end[-1] > 0)[0])]
    for j in range(n - 1, -1, -1):
        gone = [s for s in range(k) if occ[j, s] and end[j, s] == 0
                and (j == n - 1 or not occ[j + 1, s])]
        out.extend(sorted(gone, key=lambda s: (-int(start[j, s]), s)))
    return out


def prizes(pool: int, payouts: list[int], places: int) -> list[int]:
    """Each place's prize (first place first) of a pool shared by ``payouts`` percentages among
    a table of ``places`` players (module doc: the remainder goes to the first place)."""
    paid = [pool * pct // 100 for pct in payouts[:places]]
    paid += [0] * (places - len(paid))
    paid[0] += pool - sum(paid)
    return paid


def table_results(occ: np.ndarray, start: np.ndarray, end: np.ndarray, rebuys: np.ndarray,
                  pids: np.ndarray | None, policy: np.ndarray, buy_in: int,
                  payouts: list[int], names: tuple[str, ...]) -> dict[str, Any] | None:
    """One tournament table's result (its hands in hand order): entries, purchases, prize
    pool and its places ``[place, seat, player_id, bot, prize]``; None when unfinished."""
    order = finishing_places(occ, start, end)
    if order is None:
        return None
    entries = int(np.sum(occ[0]))
    purchases = int(np.sum(rebuys[1:] > 0))
    pool = buy_in * (entries + purchases)
    paid = prizes(pool, payouts, len(order))
    places = []
    for p, s in enumerate(order):
        code = int(policy[0, s])
        places.append([p + 1, s, int(pids[0, s]) if pids is not None else None,
                       names[code] if 0 <= code < len(names) else str(code), paid[p]])
    return {"entries": entries, "purchases": purchases, "prize_pool": pool, "places": places}
