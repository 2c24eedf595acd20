"""``holdem export``'s ``tournaments`` rows of an imported run (issue 34, point 3): one row per
tournament the log names (its ``venue`` and ``tournament``) in one batch file, from its hands'
rows in the log's table order.

A row holds what the record shows: the tournament as the record names it, its site, its table
sessions (``table_ids``: join ``hands.table_id``; the first is ``tournament_id``), its hands, the
levels they were played at, the largest table, the buy-in its hands' headers state (as
written: the operator's claim; two different statements are both kept, joined by " | ", so that a
contradiction shows) and the places, prizes, bounties, re-buys and add-ons its hands' text claims
(``claims_stated``, import version 3: the operator's claims, as written). The record of a
player's tables is not the whole field: entries, starting stack, re-buys, places and prizes are
not derived (null), and no claimed prize is checked against a prize pool from the hands alone:
no site's hand text states the entrants the pool needs (docs/export.md); with the tournament's
PokerStars summary imported beside its hands, ``claims_check`` holds the summary's checks
(``cluster.flows.summary_checks``: its pool, payouts, places and the hands' claims). The
simulated sit & go's columns are documented in ``cluster.flows.export_tournaments``. A
tournament whose hands lie in several batch files has one row per file: sum ``hands`` grouping
by (``venue``, ``site_tournament``).

Before import version 2 the log names no tournament: such a run's table is empty; before version
3 it holds no claims (``claims_stated`` null).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from sim.logv4 import as_v3

IMPORTED = "tournament"  # an imported tournament's ``format``: a sit & go or an MTT alike


def imported_tournaments(log: pa.Table, fields: list[tuple[str, pa.DataType, str, str]],
                         schema: pa.Schema, exponent: int | None = 0,
                         summaries: dict[str, Any] | None = None) -> pa.Table:
    """The rows of ``log``'s (an imported batch file's) tournaments, in the table
    ``export_tournaments`` documents (``fields``, ``schema``); ``exponent``: the run's money
    exponent (a log chip is 10^-exponent of a chip: a run of mixed currencies keeps cents; None:
    unknown, the chip claims are not checked); ``summaries``: {PokerStars tournament id: its
    summary's checks in a sentence} (the manifest's ``summaries.tournaments``)."""
    if "tournament" not in log.column_names or log.num_rows == 0:
        return schema.empty_table()
    tourn = pc.and_(pc.equal(log.column("format"), "tournament"),
                    pc.not_equal(log.column("tournament"), ""))
    rows = np.flatnonzero(tourn.to_numpy(zero_copy_only=False))
    if not len(rows):
        return schema.empty_table()
    t = as_v3(log.take(pa.array(rows)))  # schema 4's packed lists as lists
    venue = t.column("venue").to_pylist()
    name = t.column("tournament").to_pylist()
    table_id = t.column("table_id").to_numpy()
    hand_no = t.column("hand_no").to_numpy()
    level = t.column("level").to_numpy()
    n_seats = t.column("n_seats").to_numpy()
    structure = t.column("structure").to_pylist()
    buy_in = t.column("tournament_buy_in").to_pylist()
    claimed = ([[f"{who}: {c}" for who, c in zip(p, cs, strict=True)] for p, cs in
                zip(t.column("op_claim_players").to_pylist(), t.column("op_claims").to_pylist(),
                    strict=True)]
               if "op_claims" in t.column_names else [[] for _ in range(t.num_rows)])
    checks = (_chip_claims(t, exponent) if "op_claims" in t.column_names
              else [[] for _ in range(t.num_rows)])
    groups: dict[tuple[str, str], list[int]] = {}
    for i in np.lexsort((hand_no, table_id)).tolist():
        groups.setdefault((venue[i], name[i]), []).append(i)
    out: dict[str, list[Any]] = {n: [] for n, *_ in fields}
    for (v, tid), r in sorted(groups.items()):
        lv = level[r]
        tables = list(dict.fromkeys(int(x) for x in table_id[r]))
        stated = list(dict.fromkeys(b for b in (buy_in[i] for i in r) if b))
        claims = [c for i in r for c in claimed[i]]
        row: dict[str, Any] = {n: None for n, *_ in fields}
        row.update(
            tournament_id=tables[0], format=IMPORTED, structure=structure[r[0]],
            n_seats=int(n_seats[r].max()), hands=len(r), first_level=int(lv[0]),
            last_level=int(lv[-1]), levels_played=len(np.unique(lv)), site_tournament=tid,
            venue=v, table_ids=tables, buy_in_stated=" | ".join(stated) if stated else None,
            claims_stated=claims or None, claims_check=_summary(
                [c for i in r for c in checks[i]], claims,
                _stars_summary(summaries, v, tid)))
        for n in out:
            out[n].append(row[n])
    return pa.Table.from_pydict(out, schema=schema)


def _chip_claims(t: pa.Table, exponent: int | None) -> list[list[str | None]]:
    """Per row: each re-buy or add-on claim's check against the record, a claim's chips summed
    per player: None when the next hand of the table session (same ``table_id``, the next
    ``hand_no``, the player in the same seat) adds exactly those chips to the player's stack
    (its ``rebuys``), the contradiction as text when it adds another amount, "" when the session
    has no next hand with the player or the run's unit is unknown (not checked). The log's
    chips are 10^-``exponent`` of a chip."""
    table_id = t.column("table_id").to_pylist()
    hand_no = t.column("hand_no").to_pylist()
    players = t.column("players").to_pylist()
    rebuys = t.column("rebuys").to_pylist()
    at = {(tid, h): i for i, (tid, h) in enumerate(zip(table_id, hand_no, strict=True))}
    out: list[list[str | None]] = []
    for i, (who_list, claim_list) in enumerate(zip(t.column("op_claim_players").to_pylist(),
                                                   t.column("op_claims").to_pylist(),
                                                   strict=True)):
        chips: dict[str, int] = {}
        for who, c in zip(who_list, claim_list, strict=True):
            kind, _, rest = c.partition(" ")
            if kind in ("rebuy", "add-on"):
                chips[who] = chips.get(who, 0) + int(rest.split(" ", 1)[0])
        got: list[str | None] = []
        nxt = at.get((table_id[i], hand_no[i] + 1))
        for who, n in chips.items():
            seat = players[i].index(who) if who in players[i] else -1
            if (exponent is None or nxt is None or seat < 0 or seat >= len(players[nxt])
                    or players[nxt][seat] != who):
                got.append("")
            elif rebuys[nxt][seat] == n * 10 ** exponent:
                got.append(None)
            else:
                added = rebuys[nxt][seat] / 10 ** exponent
                got.append(f"{who} re-buys/add-ons {n} chips in hand {hand_no[i]} of table "
                           f"{table_id[i]}, the next hand adds {added:g}")
        out.append(got)
    return out


def _stars_summary(summaries: dict[str, Any] | None, venue: str, tid: str) -> str | None:
    """The checks of a PokerStars tournament's summary (None: none was imported)."""
    if not summaries or (venue and "pokerstars" not in venue.lower()):
        return None
    got = summaries.get(tid)
    return got if isinstance(got, str) and got else None


def _summary(checks: list[str | None], claims: list[str],
             summary: str | None = None) -> str | None:
    """A tournament's ``claims_check`` (None: it claims nothing checkable); ``summary``: its
    operator's summary's checks (``cluster.flows.summary_checks``), which check its prizes."""
    parts = []
    if checks:
        bad = [c for c in checks if c]
        parts.append(f"re-buys and add-ons: {checks.count(None)} match the chips the next hand "
                     f"adds, {checks.count('')} not checked (no next hand of the session, or the "
                     "run's unit unknown)")
        parts += [f"the operator's claim that the record contradicts: {c}" for c in bad]
    if summary is not None:
        parts.append(summary)
        if any(": bounty " in c for c in claims):
            parts.append("bounties: not checked (a summary states no bounty)")
    elif any(": prize " in c or ": bounty " in c for c in claims):
        parts.append("prizes and bounties: not checked (the record states no entrants, so no "
                     "prize pool)")
    return "; ".join(parts) or None
