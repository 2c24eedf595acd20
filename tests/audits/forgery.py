"""Forging a run the way an attacker would: a hand's columns rewritten together so that they
tell one consistent story (the engine itself replays the hand's actions on the forged cards and
every derived column is taken from it), the row digests recomputed with ``sim.digest``, the file
rewritten with the same schema, metadata and compression, and the manifest's sha256, byte count
and row count of the file updated. What is left to give the forgery away is what the audits
check against primary facts: the key of each deck, the action log, the starting stacks."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sim.digest import with_digests
from sim.hand import Action, Hand
from sim.histories.rows.reference import showdown_and_pots
from sim.layout import EventKind
from sim.logv4 import ALL_PACKED, as_v3, to_v4
from sim.logview.row_replay import replay_row
from sim.schema import HAND_SCHEMA

Row = dict[str, Any]


def simulated_run(factory: Any, spec: Any, name: str) -> Path:
    """A clean run of ``spec`` simulated in this process under ``factory``'s temporary folder
    (a module-scoped fixture's ``tmp_path_factory``)."""
    from cluster.flows.simulate import run_simulate

    root = factory.mktemp(name) / "clean"
    run_simulate(spec, root, workers=0, progress=False)
    return root


def copy_run(src: Path, tmp_path: Path) -> Path:
    """A copy of the run folder ``src`` for one test to forge."""
    import shutil

    dst = tmp_path / "run"
    shutil.copytree(src, dst)
    return dst


def audit_cli(run: Path, capsys: Any) -> tuple[int, str]:
    """``holdem audit RUN`` in this process: (exit code, what it printed on both streams)."""
    from cluster.cli import main

    code = main(["audit", str(run), "--workers", "0", "--quiet"])
    cap = capsys.readouterr()
    return code, cap.out + cap.err


class RunForger:
    """Edit the rows of one batch file of a run folder and write them back consistently."""

    def __init__(self, run: Path, rel: str | None = None) -> None:
        self.run = run
        self.manifest = json.loads((run / "manifest.json").read_text())
        self.rel = rel or self.manifest["files"][0]["path"]
        self.path = run / self.rel
        table = pq.read_table(self.path)
        self.schema = table.schema
        # the rows as lists whatever the file's schema version (4 packs them: ``sim.logv4``)
        self.rows: list[Row] = as_v3(table).to_pylist()

    def index(self, hand_id: int) -> int:
        return next(i for i, r in enumerate(self.rows) if r["hand_id"] == hand_id)

    def last_hands(self) -> list[int]:
        """Rows that are the last hand of their table in this file (a forged result there is
        not carried into a later hand's starting stacks)."""
        last: dict[int, int] = {}
        for i, r in enumerate(self.rows):
            last[r["table_id"]] = i
        return sorted(last.values())

    def find(self, pred: Callable[[Row], bool], rows: list[int] | None = None) -> int:
        for i in rows if rows is not None else range(len(self.rows)):
            if pred(self.rows[i]):
                return i
        raise AssertionError("no hand in the run suits this forgery")

    def write(self, nullable_deck: bool = False, nullable: tuple[str, ...] = (),
              metadata: dict[bytes, bytes] | None = None,
              fields: list[pa.Field] | None = None, digests: bool = True,
              **options: Any) -> None:
        """The rows back into the file (digests recomputed) and the manifest restamped.
        ``nullable``: columns declared nullable (to hold a None); ``metadata``: key-value
        metadata added to the file's; ``fields``: the schema's fields instead of the file's
        (extra, reordered or retyped columns; the rows must hold them); ``digests``: False to
        write the rows' digests as they are (a table that cannot be digested); ``options``:
        more options of ``pq.write_table`` (a page index, bloom filters)."""
        fields = [f for f in (fields or self.schema) if f.name != "digest" or not digests]
        if nullable_deck:
            nullable = (*nullable, "deck")
        fields = [f.with_nullable(True) if f.name in nullable else f for f in fields]
        meta = {**(self.schema.metadata or {}), **(metadata or {})}
        # a packed column of schema 4 is built from its list, then packed as the writer packs
        lists = {f.name: f for f in HAND_SCHEMA}
        packed = {f.name for f in fields if f.name in ALL_PACKED and pa.types.is_binary(f.type)}
        schema = pa.schema([lists[f.name].with_nullable(f.nullable) if f.name in packed else f
                            for f in fields], metadata=meta)
        body = [{k: v for k, v in r.items() if k != "digest" or not digests} for r in self.rows]
        table = pa.Table.from_pylist(body, schema=schema)
        if digests:
            table = with_digests(table)
        if packed:
            out = {f.name: f for f in fields}
            table = to_v4(table, meta)
            table = pa.Table.from_arrays(table.columns, schema=pa.schema(
                [out.get(f.name, f) for f in table.schema], metadata=meta))
        table = table.replace_schema_metadata(meta)
        pq.write_table(table, self.path, compression="zstd", **options)
        self.restamp()

    def restamp(self) -> None:
        """The manifest's sha256, bytes and rows of the file made the file's again (after any
        change of its bytes)."""
        data = self.path.read_bytes()
        for rec in self.manifest["files"]:
            if rec["path"] == self.rel:
                rec["sha256"] = hashlib.sha256(data).hexdigest()
                rec["bytes"] = len(data)
                rec["rows"] = rec["hands"] = len(self.rows)
        totals = self.manifest.get("totals", {})
        if "bytes" in totals:
            totals["bytes"] = sum(int(f["bytes"]) for f in self.manifest["files"])
        (self.run / "manifest.json").write_text(json.dumps(self.manifest, indent=2))


def _burns(row: Row, deck: np.ndarray, n_board: int) -> list[int]:
    dealt = 2 * sum(1 for o in row["occupied"] if o)
    at = [dealt, dealt + 4, dealt + 6]
    streets = {0: 0, 3: 1, 4: 2, 5: 3}[n_board]
    return [int(deck[p]) for p in at[:streets]]


def replay_with_deck(row: Row, deck: np.ndarray) -> Row:
    """The row as the engine would have logged it had the hand been dealt ``deck``: the same
    actions replayed, every card, showdown, pot and chip column taken from the engine."""
    forged = dict(row)
    forged["deck"] = np.asarray(deck, np.int8).tobytes()
    hand = replay_row(forged, check=False)
    assert hand.is_complete, "the actions no longer finish the hand"
    return {**forged, **derived_columns(row, hand, deck)}


def derived_columns(row: Row, hand: Hand, deck: np.ndarray) -> Row:
    k = int(row["n_seats"])
    hole: list[int] = []
    for s in range(k):
        hole.extend(hand.hole_cards(s) if row["occupied"][s] else (-1, -1))
    seats, shown, ranks, pots = showdown_and_pots(hand)
    return {"hole_cards": hole, "board": hand.board,
            "burns": _burns(row, deck, len(hand.board)), "stacks_end": hand.stacks,
            "contributed": hand.contributed, "returned": hand.returned, "won": hand.won,
            "folded": hand.folded, "rake": hand.rake, "showdown_seats": seats,
            "showdown_shown": shown, "showdown_ranks": ranks, "pots": pots}


def deck_of(row: Row) -> np.ndarray:
    return np.frombuffer(row["deck"], np.int8).astype(np.int64)


def dealt_positions(row: Row, seat: int) -> tuple[int, int]:
    """Deck positions of a seat's two hole cards (one at a time from left of the button)."""
    k = int(row["n_seats"])
    order = [(int(row["button"]) + 1 + j) % k for j in range(k)]
    live = [s for s in order if row["occupied"][s]]
    i = live.index(seat)
    return i, i + len(live)


def swap_hole_cards(row: Row, a: int, b: int) -> np.ndarray:
    """A deck (a valid permutation) that deals seat a's cards to seat b and b's to a."""
    deck = deck_of(row).copy()
    pa_, pb = dealt_positions(row, a), dealt_positions(row, b)
    for x, y in zip(pa_, pb, strict=True):
        deck[x], deck[y] = deck[y], deck[x]
    return deck


def live_seats(row: Row) -> list[int]:
    return [s for s in range(int(row["n_seats"])) if row["occupied"][s] and not row["folded"][s]]


def winners(row: Row) -> set[int]:
    return {s for s in range(int(row["n_seats"])) if row["won"][s] > 0}


def move_won(row: Row, frm: int, to: int, chips: int) -> None:
    """Move ``chips`` of what seat ``frm`` won to seat ``to`` (won and stacks_end together)."""
    won, end = list(row["won"]), list(row["stacks_end"])
    won[frm] -= chips
    end[frm] -= chips
    won[to] += chips
    end[to] += chips
    row["won"], row["stacks_end"] = won, end


def replay_with_config(row: Row, **config: Any) -> Row:
    """The row as the engine would have logged it had the hand been played under other config
    columns (``big_blind=10``, ``rake_bps=10000``, ...): the same player actions replayed,
    the posts, uncalled returns, every card, pot and chip column and the ``actions`` log taken
    from the engine."""
    from sim.histories.rows.reference import _LOGGED
    from sim.schema import ACTION_DTYPE

    forged = {**row, **config}
    hand = replay_row(forged, check=False)
    assert hand.is_complete, "the actions no longer finish the hand"
    recs = [r for r in hand.records if r.kind in _LOGGED]
    packed = np.empty(len(recs), dtype=ACTION_DTYPE)
    for j, r in enumerate(recs):
        packed[j] = (int(r.street), r.seat, int(r.kind), r.to_street_total, r.added)
    return {**forged, **derived_columns(row, hand, deck_of(row)), "actions": packed.tobytes()}


def packed_like(table: pa.Table, stored: pa.Schema) -> pa.Table:
    """``table`` (rows edited as lists) in the layout of the file whose schema is ``stored``: its
    lists packed as the writer packs them when the file is of schema version 4 (``sim.logv4``),
    with the file's fields and the table's metadata."""
    if not any(n in ALL_PACKED and n in table.column_names
               and pa.types.is_binary(stored.field(n).type)
               and pa.types.is_list(table.schema.field(n).type) for n in stored.names):
        return table
    meta = table.schema.metadata
    packed = to_v4(table, meta)
    fields = [stored.field(f.name) if f.name in stored.names else f for f in packed.schema]
    return pa.Table.from_arrays(packed.columns, schema=pa.schema(fields, metadata=meta))


def restamp_file(run: Path, rel: str, table: pa.Table) -> None:
    """Write ``table`` (digests recomputed) as the batch file ``rel`` and restamp the manifest's
    sha256, bytes and rows of it."""
    body = table.drop_columns(["digest"]) if "digest" in table.column_names else table
    out = with_digests(body).replace_schema_metadata(table.schema.metadata)
    if (run / rel).exists():
        out = packed_like(out, pq.read_schema(run / rel))
    pq.write_table(out, run / rel, compression="zstd")
    restamp_file_bytes(run, rel)


def restamp_file_bytes(run: Path, rel: str) -> None:
    """The manifest's sha256, bytes and rows of the batch file ``rel`` made the file's."""
    data = (run / rel).read_bytes()
    rows = pq.read_metadata(run / rel).num_rows
    manifest = json.loads((run / "manifest.json").read_text())
    for rec in manifest["files"]:
        if rec["path"] == rel:
            rec.update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data),
                       rows=rows, hands=rows)
    manifest["totals"]["bytes"] = sum(int(f["bytes"]) for f in manifest["files"])
    (run / "manifest.json").write_text(json.dumps(manifest, indent=2))


def patch_footer_int(path: Path, old: int, new: int) -> int:
    """Rewrite an int64 statistic in a Parquet file's footer, as a forger edits the bytes: every
    8-byte little-endian ``old`` in the footer (a column chunk's min/max, both the deprecated
    and the current field) becomes ``new``; the footer keeps its length. Returns how many were
    rewritten (call ``RunForger.restamp`` after)."""
    data = bytearray(path.read_bytes())
    footer_len = int.from_bytes(data[-8:-4], "little")
    start = len(data) - 8 - footer_len
    footer = bytes(data[start:-8])
    a, b = old.to_bytes(8, "little", signed=True), new.to_bytes(8, "little", signed=True)
    n = footer.count(a)
    data[start:-8] = footer.replace(a, b)
    path.write_bytes(bytes(data))
    return n


def _class_key(a: int, b: int) -> tuple[int, int]:
    """(class: 0 pair, 1 suited, 2 offsuit; order within the class, higher is better)."""
    ra, rb = a // 4, b // 4
    kind = 0 if ra == rb else (1 if a % 4 == b % 4 else 2)
    return kind, max(ra, rb) * 13 + min(ra, rb)


def favour_seat(row: Row, seat: int = 0) -> Row | None:
    """Issue 23's H3 on one hand: ``seat`` gets the best starting hand of its own class (pair /
    suited / offsuit) dealt at the table, the two hands swapped in the deck (board and burns
    keep their positions) and the hand replayed by the engine on the new cards (showdown, pots,
    won, stacks: ``replay_with_deck``). None when the seat is empty or holds the best already.
    Consistent across hands only where no later hand starts from this one's stacks (a table's
    last hand)."""
    if not row["occupied"][seat]:
        return None
    hole = row["hole_cards"]
    seated = [s for s in range(int(row["n_seats"])) if row["occupied"][s]]
    kind, _ = _class_key(hole[2 * seat], hole[2 * seat + 1])
    best = max((s for s in seated if _class_key(hole[2 * s], hole[2 * s + 1])[0] == kind),
               key=lambda s: _class_key(hole[2 * s], hole[2 * s + 1])[1])
    if best == seat:
        return None
    return replay_with_deck(row, swap_hole_cards(row, seat, best))


def pack_hand(row: Row, hand: Hand) -> Row:
    """The row as the engine logged ``hand`` (a hand the forger played himself on the row's
    seats, stacks and deck): its ``actions`` log and every derived column."""
    from sim.histories.rows.reference import _LOGGED
    from sim.schema import ACTION_DTYPE

    recs = [r for r in hand.records if r.kind in _LOGGED]
    packed = np.empty(len(recs), dtype=ACTION_DTYPE)
    for j, r in enumerate(recs):
        packed[j] = (int(r.street), r.seat, int(r.kind), r.to_street_total, r.added)
    return {**row, **derived_columns(row, hand, deck_of(row)), "actions": packed.tobytes()}


def forged_walk(row: Row, straddle: int = 0, straddle_seat: int | None = None) -> Row:
    """The row replaced by a hand the engine plays on its seats, stacks, blinds and deck with
    the straddle the forger chooses (``straddle`` chips by ``straddle_seat``; 0: none), every
    player folding pre-flop to the last one: a legal hand, consistent in every column, whose
    only lie is its straddle."""
    from sim.logview.row_replay import config_from_row
    from sim.schema import decode_actions

    cfg = config_from_row(row)
    antes = [0] * cfg.n_seats
    for r in decode_actions(row["actions"]):
        if r["kind"] == int(EventKind.ANTE):
            antes[int(r["seat"])] = int(row["ante"])
    hand = Hand(cfg, list(row["stacks_start"]), button=int(row["button"]),
                sb_seat=int(row["sb_seat"]), bb_seat=int(row["bb_seat"]), deck=deck_of(row),
                antes=antes, hand_id=int(row["hand_id"]), straddle=straddle,
                straddle_seat=straddle_seat)
    while not hand.is_complete:
        la = hand.legal_actions()
        hand.apply(Action.fold(la.seat) if la.can_fold else Action.check_call(la.seat))
    return pack_hand(row, hand)
