"""``holdem export``'s ``tournaments`` table (issue 37): one row per tournament of a simulated
run, from its log and its spec (docs/game.md, Tournaments).

A tournament of the simulator is a sit & go: one table (``table_id``) from its first hand, its
entries the players of that hand, to the hand after which one player holds every chip. The row
holds what the log records (table size, entries, starting stacks, hands, the levels played,
every re-buy and add-on: a positive ``rebuys`` after the first hand, an add-on at or after the
game's add-on level) and what ``audits.tournaments`` derives from it with the spec's buy-in and
payouts, as the ``stakes`` audit does: the finishing places and prizes (derived, never logged).
A table that stops with its batch before one player holds every chip is not finished (no
places).

An imported run's tournament hands (``format`` "tournament": a site's tournament hand, or a PHH
hand with a ``level``) are grouped by the tournament the record names (the import column
``tournament``, within its ``venue``): one row per tournament of a batch file
(``cluster.flows.export_imported_tournaments``), with what the record shows: its table sessions,
hands, levels and the buy-in its headers state, as the operator's claim. The record of a player's
tables does not show the whole field: entries, places and prizes are not derived (null).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audits.tournaments import finishing_places, prizes
from cluster.flows.export_imported_tournaments import imported_tournaments
from sim.logv4 import as_v3

SIT_AND_GO = "sit & go"
_D = pa.dictionary(pa.int8(), pa.string())
_IDS = pa.list_(pa.int64())

# (name, type, unit or codes, doc)
FIELDS: list[tuple[str, pa.DataType, str, str]] = [
    ("tournament_id", pa.int64(), "id", "the tournament: its table's `table_id` (joins "
                                        "`hands.table_id`)"),
    ("format", _D, "sit & go", "the tournament's format: a sit & go (one table) in a "
                               "simulated run"),
    ("structure", _D, "no-limit | pot-limit | fixed-limit", "betting structure"),
    ("n_seats", pa.int8(), "seats", "the table's size"),
    ("entries", pa.int8(), "players", "players of its first hand (one buy-in each)"),
    ("starting_stack", pa.int64(), "chips", "an entry's stack at the first hand"),
    ("buy_in", pa.int64(), "currency units", "an entry's (and a re-buy's, an add-on's) price: "
                                             "the game's `buy_in` (null: the game gives none)"),
    ("hands", pa.int32(), "count", "hands played"),
    ("first_level", pa.int16(), "level", "the level of its first hand (from 0)"),
    ("last_level", pa.int16(), "level", "the level of its last hand"),
    ("levels_played", pa.int16(), "count", "levels at which at least one hand was played"),
    ("rebuys", pa.int32(), "count", "re-buys (a positive `rebuys` after the first hand, "
                                    "before the add-on level)"),
    ("add_ons", pa.int32(), "count", "add-ons (a positive `rebuys` at or after the game's "
                                     "add-on level)"),
    ("rebuy_chips", pa.int64(), "chips", "chips the re-buys and add-ons added"),
    ("prize_pool", pa.int64(), "currency units", "buy_in x (entries + re-buys + add-ons) "
                                                 "(null: no buy-in)"),
    ("finished", pa.bool_(), "flag", "one player holds every chip after its last hand (false: "
                                     "the batch ended it first; no places)"),
    ("places", _IDS, "player ids", "the players by finishing place, first place first "
                                   "(derived: audits/tournaments.py; null: not finished)"),
    ("place_seats", pa.list_(pa.int8()), "seats", "their seats, in the same order"),
    ("prizes", _IDS, "currency units", "each place's prize, first place first (the game's "
                                       "payouts of the pool; null: not finished or no payouts)"),
    # an imported run's (null in a simulated run's)
    ("site_tournament", pa.string(), "text", "an imported tournament as its record names it "
                                             "(the log's `tournament`; null: simulated)"),
    ("venue", pa.string(), "text", "an imported tournament's site (null: simulated)"),
    ("table_ids", _IDS, "ids", "an imported tournament's table sessions (join "
                               "`hands.table_id`; null: simulated)"),
    ("buy_in_stated", pa.string(), "text as written", "the buy-in its hands' headers state: the "
                                                      "operator's claim (null: not stated)"),
    ("claims_stated", pa.list_(pa.string()), "text as written: ``PLAYER: CLAIM``",
     "the places, prizes, bounties, re-buys and add-ons its hands' text claims, in table order "
     "(the log's `op_claim_players` and `op_claims`; the player keyed as the log holds it): the "
     "operator's claims, never checked against a prize pool the record does not state (null: "
     "none, or a simulated run)"),
    ("claims_check", pa.string(), "text", "the claims checked against the record: each re-buy "
     "or add-on claim against the chips the next hand of the table session adds to the "
     "player's stack (a mismatch: \"the operator's claim that the record contradicts\"); with "
     "the tournament's PokerStars summary imported beside the hands, the summary's checks "
     "(pool, percentages, places, payouts, buy-in, the hands' place and prize claims, "
     "eliminations and their order: docs/import.md), else prizes \"not checked\" (the record "
     "states no entrants; null: nothing checkable)"),
]
SCHEMA = pa.schema([pa.field(n, t, metadata={"unit": u, "doc": d}) for n, t, u, d in FIELDS],
                   metadata={"holdem.table": "tournaments"})
#: Log columns the table is made from (besides ``sim.logview.logtables.LOG_COLUMNS``).
LOG_COLUMNS = ("rebuys", "tournament", "tournament_buy_in", "op_claim_players", "op_claims",
               "players")


def _rule(facts: Any) -> tuple[int | None, list[int] | None, int]:
    """(buy-in, payouts, add-on level; 0: none) of a run's spec (``audits.runspec.RunFacts``;
    None: no spec)."""
    if facts is None:
        return None, None, 0
    add_on_level = int(facts.rebuy_rule("tournament")[4])
    payouts = facts["payouts"]
    return (facts["tournament_buy_in"], None if payouts is None else list(payouts),
            add_on_level)


def tournaments_table(log: pa.Table, facts: Any, money: Any = None,
                      summaries: Any = None) -> pa.Table:
    """The tournaments of one batch file's rows ``log`` (a hand log with ``LOG_COLUMNS``; its
    rows in table order, as every batch file's are); ``facts``: the run's spec facts (None
    without a manifest: no buy-in, no prizes); ``money``: an imported run's manifest ``money``
    (its ``exponent``: the log's chips are 10^-exponent of a chip); ``summaries``: an imported
    run's manifest ``summaries`` (the operator's tournament summaries checked at the import)."""
    if "rebuys" not in log.column_names or log.num_rows == 0:
        return SCHEMA.empty_table()
    if "site_hand" in log.column_names:  # an imported run's (module doc)
        exponent = money.get("exponent") if isinstance(money, dict) else None
        checked = summaries.get("tournaments") if isinstance(summaries, dict) else None
        return imported_tournaments(log, FIELDS, SCHEMA, exponent if isinstance(exponent, int)
                                    and not isinstance(exponent, bool) and 0 <= exponent <= 18
                                    else None, checked if isinstance(checked, dict) else None)
    tourn = pc.equal(log.column("format"), "tournament")
    if not pc.any(tourn).as_py():
        return SCHEMA.empty_table()
    rows = np.flatnonzero(tourn.to_numpy(zero_copy_only=False))
    t = as_v3(log.take(pa.array(rows)))  # schema 4's packed lists as lists
    tid = t.column("table_id").to_numpy()
    hand_no = t.column("hand_no").to_numpy()
    order = np.lexsort((hand_no, tid))
    tid = tid[order]
    cuts = np.flatnonzero(tid[1:] != tid[:-1]) + 1
    k = int(np.max(t.column("n_seats").to_numpy()))

    def seats(name: str, dtype: Any) -> np.ndarray:
        """A per-seat list column as (hands, k), in table order (0 past a table's seats)."""
        arr = t.column(name).combine_chunks()
        off = arr.offsets.to_numpy().astype(np.int64)
        lens = np.diff(off)
        values = np.asarray(arr.values.to_numpy(zero_copy_only=False), dtype)[off[0]:off[-1]]
        out = np.zeros((t.num_rows, k), dtype)
        out[np.repeat(np.arange(t.num_rows), lens),
            np.arange(len(values)) - np.repeat(off[:-1] - off[0], lens)] = values
        return out[order]

    occ, start, end = seats("occupied", bool), seats("stacks_start", np.int64), \
        seats("stacks_end", np.int64)
    rebuys, pids = seats("rebuys", np.int64), seats("player_ids", np.int64)
    level = t.column("level").to_numpy()[order]
    n_seats = t.column("n_seats").to_numpy()[order]
    structure = np.asarray(t.column("structure").to_numpy(zero_copy_only=False), object)[order]
    buy_in, payouts, add_on_level = _rule(facts)
    out: dict[str, list[Any]] = {n: [] for n, *_ in FIELDS}
    for r in np.split(np.arange(len(tid)), cuts):
        first = int(r[0])
        lv = level[r]
        bought = rebuys[r][1:] > 0
        late = (lv[1:] >= add_on_level)[:, None] if add_on_level else np.zeros((len(r) - 1, 1),
                                                                                bool)
        order_ = finishing_places(occ[r], start[r], end[r])
        entries = int(occ[first].sum())
        purchases = int(bought.sum())
        pool = None if buy_in is None else buy_in * (entries + purchases)
        out["tournament_id"].append(int(tid[first]))
        out["format"].append(SIT_AND_GO)
        out["structure"].append(str(structure[first]))
        out["n_seats"].append(int(n_seats[first]))
        out["entries"].append(entries)
        out["starting_stack"].append(int(start[first][occ[first]].max()) if entries else 0)
        out["buy_in"].append(buy_in)
        out["hands"].append(len(r))
        out["first_level"].append(int(lv[0]))
        out["last_level"].append(int(lv[-1]))
        out["levels_played"].append(len(np.unique(lv)))
        out["add_ons"].append(int((bought & late).sum()))
        out["rebuys"].append(purchases - out["add_ons"][-1])
        out["rebuy_chips"].append(int(np.where(bought, rebuys[r][1:], 0).sum()))
        out["prize_pool"].append(pool)
        out["finished"].append(order_ is not None)
        out["places"].append(None if order_ is None else [int(pids[first, s]) for s in order_])
        out["place_seats"].append(order_)
        out["prizes"].append(None if order_ is None or pool is None or payouts is None
                             else prizes(pool, payouts, len(order_)))
        for name in ("site_tournament", "venue", "table_ids", "buy_in_stated",
                     "claims_stated", "claims_check"):
            out[name].append(None)
    return pa.Table.from_pydict(out, schema=SCHEMA)


def describe() -> str:
    """The table's columns as Markdown (docs/export.md's text for them)."""
    out = ["**`tournaments`**", "", "| column | type | unit or codes | meaning |",
           "|---|---|---|---|"]
    out += [f"| `{name}` | `{typ}` | {unit} | {doc} |" for name, typ, unit, doc in FIELDS]
    return "\n".join(out)
