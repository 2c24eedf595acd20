"""PHH hand histories -> rows of ``sim.schema.HAND_SCHEMA`` (pure: no files).

Each supported hand (variants NT, FT, PT) is replayed with ``sim.phh_verify.replay``; its row is
built from the replayed ``sim.hand.Hand`` (seat i = PHH player i, button last; heads-up p2 is the
button). Choices, where the source lacks a fact or the schema expects a simulator's:

- ``deck`` null (PHH has no deck; the replay fills unknown cards with spare cards, which are not
  facts), ``burns`` empty: the deal audit (which still checks that no known card appears twice)
  and the statistical deck audits are not applicable;
- ``hole_cards``: a seat's card is the replayed card when the file names it (``d dh`` or a show
  ``sm``), else -1 (``????``, mucked or never shown);
- ``showdown_*``, ``pots``, ``won``, ``returned``, ``contributed``, ``rake``, ``stacks_end``: the
  replay's; cards shown at showdown come from the replay (cards speak);
- ``format`` "cash": the rotation audit checks a cash hand's blinds against the button (PHH's
  seat order satisfies it); "phh" would be neither cash nor tournament;
- every hand is its own table: ``table_id`` = ``hand_id`` = the hand's running index over the
  import, ``hand_no`` 0, so across-hand rotation and chip carry-over checks do not apply;
  ``rebuys`` = the starting stacks (a new table's buy-in), so chips in == chips out per table;
- ``seed_key`` empty, ``generator`` "phh", ``policy`` -1 per seat, ``timed_out`` false,
  ``fault`` null, ``level`` 0, ``run_id`` "phh-" + a digest of the source names;
- ``ante``/``ante_mode`` from the file's per-player ``antes``: one amount for every player is
  mode 1, the big blind's alone mode 2; other ante lists cannot be described: skipped;
- ``structure`` from the variant (NT no-limit, FT fixed-limit, PT pot-limit);
- stacks are our engine's: the 8 Pluribus hands whose files record half chips (a split pot's odd
  chip given as X.5 each) are imported with our stacks (odd chip to the first winner clockwise
  from the button) and counted in ``ImportResult.odd_chip``.

Hands that are unsupported (other variants, straddles) or do not replay are skipped and listed
in ``ImportResult.skipped`` (one line each).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import cast

import numpy as np
import pyarrow as pa

from sim.digest import with_digests
from sim.hand import Hand
from sim.layout import LOGGED_EVENTS, EventKind
from sim.phh import PhhHand
from sim.phh_verify import replay
from sim.schema import ACTION_DTYPE, HAND_SCHEMA

__all__ = ["ImportResult", "hand_row", "import_hands"]

_LOGGED = frozenset(LOGGED_EVENTS)


@dataclass
class ImportResult:
    """Rows grouped by (structure label, n_seats); ``sources`` in row order per hand_id."""

    tables: dict[tuple[str, int], pa.Table] = field(default_factory=dict)
    imported: int = 0
    skipped: list[str] = field(default_factory=list)  # one line per skipped hand
    unsupported: int = 0
    failed: int = 0
    odd_chip: list[str] = field(default_factory=list)  # stacks differ from the file's halves
    per_source: dict[str, int] = field(default_factory=dict)  # rows imported per source file


def _known_cards(phh: PhhHand) -> list[set[int]]:
    known: list[set[int]] = [set() for _ in range(phh.n_players)]
    for a in phh.actions:
        if a.verb == "dh" and a.player is not None:
            known[a.player].update(c for c in a.cards if c >= 0)
        elif a.verb == "sm" and a.cards:
            known[int(a.actor)].update(c for c in a.cards if c >= 0)
    return known


class NotRepresentable(ValueError):
    """A replayed hand the row schema cannot describe."""


def _ante(hand: Hand, phh: PhhHand) -> tuple[int, int]:
    """(ante, ante_mode) from the file's per-player antes: the same ante for everybody is mode 1,
    an ante of the big blind's alone mode 2; anything else has no place in the schema."""
    due = [int(v) for v in phh.antes]
    if len(due) == 2:
        due.reverse()  # heads-up: p1 (big blind) posts antes[1] (as sim.phh_verify)
    nonzero = {v for v in due if v}
    if not nonzero:
        return 0, 0
    if len(set(due)) == 1:
        return due[0], 1
    if [s for s, v in enumerate(due) if v] == [hand.bb_seat]:
        return due[hand.bb_seat], 2
    raise NotRepresentable(f"antes {list(phh.antes)}: neither one ante for every player nor a "
                           "big-blind ante")


def showdown_and_pots(hand: Hand) -> tuple[list[int], list[bool], list[int],
                                            list[dict[str, int]]]:
    """The row's showdown columns (seats in order, shown, rank or -1) and pots of a finished
    hand, as the log stores them."""
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


def hand_row(hand: Hand, phh: PhhHand, hand_id: int, run_id: str) -> dict[str, object]:
    """One replayed hand as a row (a dict of Python values in HAND_SCHEMA); raises
    NotRepresentable for antes the schema cannot describe."""
    cfg = hand.config
    k = cfg.n_seats
    ante, ante_mode = _ante(hand, phh)
    known = _known_cards(phh)
    hole: list[int] = []
    for s in range(k):
        for c in hand.hole_cards(s):
            hole.append(c if c in known[s] else -1)
    recs = [r for r in hand.records if r.kind in _LOGGED]
    packed = np.empty(len(recs), dtype=ACTION_DTYPE)
    for j, r in enumerate(recs):
        packed[j] = (int(r.street), r.seat, int(r.kind), r.to_street_total, r.added)
    show_seats, show_shown, show_ranks, pots = showdown_and_pots(hand)
    start = hand.starting_stacks
    return {
        "run_id": run_id, "hand_id": hand_id, "table_id": hand_id, "hand_no": 0,
        "structure": cfg.structure.label, "format": "cash", "generator": "phh", "seed_key": [],
        "n_seats": k, "occupied": [True] * k, "button": hand.button, "sb_seat": hand.sb_seat,
        "bb_seat": hand.bb_seat, "small_blind": cfg.small_blind, "big_blind": cfg.big_blind,
        "ante": ante, "ante_mode": ante_mode, "ante_trimming": cfg.ante_trimming,
        "min_bet": cfg.min_bet, "small_bet": cfg.small_bet, "big_bet": cfg.big_bet,
        "raise_cap": cfg.raise_cap, "rake_bps": cfg.rake_bps, "rake_cap": cfg.rake_cap,
        "no_flop_no_drop": cfg.no_flop_no_drop, "level": 0, "deck": None, "hole_cards": hole,
        "burns": [], "board": hand.board, "policy": [-1] * k,
        "player_ids": [16 * hand_id + s for s in range(k)], "stacks_start": start,
        "rebuys": list(start), "stacks_end": hand.stacks, "contributed": hand.contributed,
        "returned": hand.returned, "won": hand.won, "folded": hand.folded,
        "timed_out": [False] * k, "rake": hand.rake, "actions": packed.tobytes(),
        "showdown_seats": show_seats, "showdown_shown": show_shown,
        "showdown_ranks": show_ranks, "pots": pots, "fault": None,
    }


_SCHEMA = pa.schema([f.with_nullable(True) if f.name == "deck" else f for f in HAND_SCHEMA
                     if f.name != "digest"], metadata=HAND_SCHEMA.metadata)


def rows_to_table(rows: list[dict[str, object]]) -> pa.Table:
    """Rows -> a table in HAND_SCHEMA (``deck`` nullable: PHH has no decks), with digests."""
    return with_digests(pa.Table.from_pylist(rows, schema=_SCHEMA))


def import_hands(hands: Iterable[PhhHand]) -> ImportResult:
    """Replay and convert hands (in order); see the module docstring."""
    hands = list(hands)
    run_id = "phh-" + hashlib.sha256(
        "\n".join(sorted({h.source for h in hands})).encode()).hexdigest()[:16]
    res = ImportResult()
    groups: dict[tuple[str, int], list[dict[str, object]]] = {}
    index_in_file: dict[str, int] = {}
    for phh in hands:
        i = index_in_file.get(phh.source, 0)
        index_in_file[phh.source] = i + 1
        r = replay(phh, i)
        if r.hand is None:
            if r.unsupported:
                res.unsupported += 1
            else:
                res.failed += 1
            res.skipped.append(f"{phh.where} hand {r.label}: {r.error}")
            continue
        try:
            row = hand_row(r.hand, phh, res.imported, run_id)
        except NotRepresentable as e:
            res.failed += 1
            res.skipped.append(f"{phh.where} hand {r.label}: {e}")
            continue
        if not r.ok:  # replayed, finishing stacks differ: the half-chip files
            res.odd_chip.append(f"{phh.where} hand {r.label}: file {r.expected}, ours {r.actual}")
        res.imported += 1
        res.per_source[phh.source] = res.per_source.get(phh.source, 0) + 1
        n_seats = cast(int, row["n_seats"])  # hand_row writes Python ints
        groups.setdefault((str(row["structure"]), n_seats), []).append(row)
    res.tables = {key: rows_to_table(rows) for key, rows in sorted(groups.items())}
    return res
