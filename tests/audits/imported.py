"""Synthetic imported runs in the exact layout of ``holdem import`` (spec22 §B): the hand schema
3 columns but ``digest``, the import columns, ``digest``; file metadata
``holdem.schema_version`` and ``holdem.import_version``; a ``holdem-import`` manifest with the
money unit and the rake schedule. Each hand is written as PHH (whole chips) and replayed by the
engine (``sim.histories.rows.reference``) for the rules' columns; the operator's record (``op_*``)
and the table sessions are what the test says, so that a test can write an operator's history as an
attacker would: the chips moved in the next hands' starting stacks, every later hand carrying
them."""

from __future__ import annotations

import hashlib
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from audits import logschema
from sim.digest import with_digests
from sim.histories.files import import_file


@dataclass
class H:
    """One hand of a synthetic import: three players p1 (small blind), p2 (big blind), p3."""

    stacks: list[int]
    actions: list[str]
    players: tuple[str, ...] = ("ann", "bob", "cid")
    venue: str = "Test Poker"
    table: str = "T1"
    site_hand: str = ""
    winnings: list[int] | None = None
    finishing: list[int] | None = None
    op_rake: int = -1
    op_pot: int = -1
    known: list[bool] | None = None
    unrecorded: list[bool] | None = None
    blinds: tuple[int, ...] = (1, 2, 0)
    extra: dict[str, Any] = field(default_factory=dict)  # row columns to overwrite

    def phh(self) -> str:
        acts = ", ".join(json.dumps(a) for a in self.actions)
        return (f'variant = "NT"\nantes = {[0] * len(self.stacks)}\n'
                f"blinds_or_straddles = {list(self.blinds)}\nmin_bet = 2\n"
                f"starting_stacks = {self.stacks}\nactions = [{acts}]\n")


def replayed(hands: list[H]) -> list[dict[str, Any]]:
    """The importer's rows of the hands (``sim.histories.files.import_file`` on one .phhs file of
    them), in order."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hands.phhs"
        path.write_text("".join(f"[{i + 1}]\n{h.phh()}\n" for i, h in enumerate(hands)))
        res = import_file(str(path))
        assert res.imported == len(hands) and res.table is not None, res.examples
        return res.table.to_pylist()


def _source(hands: list[H], venue: str, table: str) -> str:
    """The source file of a table's hands: ``src/T.phhs``, under its venue's folder when the
    run has that table name at several venues (one file, one venue the lab names)."""
    one = len({h.venue for h in hands if h.table == table}) <= 1
    return f"src/{table}.phhs" if one else f"src/{venue}/{table}.phhs"


def build_run(root: Path, hands: list[H], schedule: dict[str, Any] | None = None,
              exponent: int = 0, lab_venues: bool = True) -> Path:
    """A run folder of ``hands`` (one batch file); consecutive hands of one (venue, table) are
    one table session, the next hand's starting stacks as the hands give them."""
    rows = replayed(hands)
    ids: dict[str, int] = {}
    table_id = -1
    hand_no = 0
    prev: tuple[str, str] | None = None
    last_end: dict[int, int] = {}
    out = []
    for i, (h, r) in enumerate(zip(hands, rows, strict=True)):
        key = (h.venue, h.table)
        if key != prev:
            table_id += 1
            hand_no = 0
            last_end = {}
            prev = key
        k = len(h.stacks)
        known = h.known or [True] * k
        pids = [ids.setdefault(name, len(ids)) for name in h.players]
        rebuys = [(r["stacks_start"][s] - last_end[p] if p in last_end else r["stacks_start"][s])
                  if known[s] else 0 for s, p in enumerate(pids)]
        r.update({"hand_id": i, "table_id": table_id, "hand_no": hand_no, "player_ids": pids,
                  "rebuys": rebuys})
        r.update(h.extra)
        last_end = {p: r["stacks_end"][s] for s, p in enumerate(pids)}
        hand_no += 1
        r.pop("digest", None)
        r.update({"run_id": "imp-test",
            "source_file": _source(hands, h.venue, h.table), "source_section": str(i + 1),
            "site_hand": h.site_hand or f"SH-{1000 + i}", "venue": h.venue,
            "table_name": h.table, "hand_time": f"2009-07-01T00:{i:02d}:00", "time_zone": "ET",
            "time_utc": 1246420800 + 60 * i, "currency": "USD", "players": list(h.players),
            "stack_known": known, "cards_unrecorded": h.unrecorded or [False] * k,
            "op_winnings": h.winnings or [], "op_finishing": h.finishing or [],
            "op_rake": h.op_rake, "op_pot": h.op_pot, "tournament": "",
            "tournament_buy_in": "", "op_claim_players": [], "op_claims": []})
        out.append(r)
    fields = [pa.field(n, logschema.TYPES[n], nullable=n in logschema.IMPORT_NULLABLE)
              for n in logschema.import_column_order(3) if n != "digest"]
    meta = {logschema.META_SCHEMA_VERSION: b"3",
            logschema.META_IMPORT_VERSION: str(logschema.IMPORT_VERSION).encode()}
    body = pa.Table.from_pylist(out, schema=pa.schema(fields))
    try:
        table = with_digests(body)
    except TypeError:  # a digest that does not cover list<string> yet: the log columns'
        from sim.digest import content_columns, hand_digests
        from sim.schema import HAND_SCHEMA

        cols = [c for c in content_columns(body.schema.names)
                if c not in logschema.IMPORT_COLUMN_NAMES]
        table = body.append_column(HAND_SCHEMA.field("digest"),
                                   pa.array(hand_digests(body, cols), pa.uint64()))
    table = table.replace_schema_metadata(meta)
    rel = "log/no-limit/batch-00000.parquet"
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="zstd")
    data = path.read_bytes()
    manifest = {
        "format": "holdem-import", "manifest_version": 1, "source": "import",
        "run_id": out[0]["run_id"], "fingerprint": out[0]["run_id"], "spec": None,
        "structures": ["no-limit"], "hands": len(out),
        "files": [{"path": rel, "structure": "no-limit", "batch": 0, "hands": len(out),
                   "rows": len(out), "bytes": len(data),
                   "sha256": hashlib.sha256(data).hexdigest()}],
        "money": {"exponent": exponent, "currency": "USD"}, "rake_schedule": schedule,
        "inject": None, "schema_version": 3, "digest_version": 1,
    }
    if lab_venues:  # each source file with the venue the lab named (``holdem import --venue``)
        manifest["sources"] = [{"path": _source(hands, v, t), "format": "phh", "venue": v}
                               for v, t in dict.fromkeys((h.venue, h.table) for h in hands) if v]
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return root


# a showdown at 1/2: p3 raises to 6, p1 folds, p2 calls; p2 check-calls 10 on the flop, both
# check down; p3's kings beat p2's queens. Pot 33 (p1's 1, 16 each), p3 wins it all.
SHOWDOWN = ["d dh p1 ????", "d dh p2 ????", "d dh p3 ????", "p3 cbr 6", "p1 f", "p2 cc",
            "d db 2c7d9h", "p2 cc", "p3 cbr 10", "p2 cc", "d db Th", "p2 cc", "p3 cc",
            "d db 3s", "p2 cc", "p3 cc", "p2 sm QcQh", "p3 sm KsKd"]
SHOWDOWN_END = [99, 84, 117]  # from 100 each
# uncontested: p3 raises to 6, both blinds fold: 4 of it returned uncalled, pot 5 (1 + 2 + 2)
UNCONTESTED = ["d dh p1 ????", "d dh p2 ????", "d dh p3 ????", "p3 cbr 6", "p1 f", "p2 f"]
UNCONTESTED_END = [99, 98, 103]
FOLD_AROUND = ["d dh p1 ????", "d dh p2 ????", "d dh p3 ????", "p3 f", "p1 f"]  # a walk
