"""``holdem export RUN --phh --out DIR``: a simulated run's hands as the PHH files an operator
would hand in (``holdem import DIR --game FILE`` then audits them as an operator's).

One ``.phhs`` file per batch file, ``DIR/<label>-batch-<NNNNN>.phhs``, one section per hand in
the batch's table order, written under a temporary name and renamed; ``DIR/export-phh.json``
(written last) lists the files (sha256, hands), the hands written and the hands skipped with
their reason. Each hand is the logged row played again by the engine
(``sim.logview.row_replay.replay_row``, which must end with the logged stacks, rake and board)
and written by ``sim.histories.read.phh.hand_to_phh`` with:

- ``table``: the run's ``table_id``; ``hand``: its ``hand_id`` (an operator's site hand number:
  the importer orders a table's hands by it); ``seats`` (seat + 1) and ``seat_count``;
  ``players``: ``player <player_id>`` (``player_ids``; ``seat N`` in a log without them);
  ``venue``: the game's name (``holdem simulate`` for a run without a game file); money as
  chips (integers; no currency: an import reads them at exponent 0);
- ``time``, ``day``, ``month``, ``year`` (UTC): a table's hands a minute apart from 2026-01-01,
  with a pause of 30 minutes (a new session for the importer, which joins hands at most 10
  minutes apart) where PHH cannot state what happened between two hands: a hand skipped
  (below), or chips a player added between hands (a cash top-up: PHH has no record of it, and
  the importer would read the chips as a payout it cannot explain);
- a raked hand as an operator writes it: PHH has no rake field, the ``finishing_stacks`` are
  after the rake (the importer checks that rake against its schedule: ``--game``'s ``[rake]``);
- a tournament hand with the standard's ``level`` (the run's level + 1: the standard counts
  from 1) and ``event`` (the game's name and the table: a sit & go table is one tournament),
  which the importer reads as a tournament hand.

Skipped, counted and named (the first 20 hands of each reason listed): a hand PHH cannot
describe (a player who left mid-hand: ``LEAVE``; positions that are not the standard's, e.g. a
dead small blind or button; a fixed-limit raise cap other than 4) and a row that does not
replay to its logged result.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from audits.io import AuditInputError, run_inputs
from audits.runfolder import parse_batch_relpath, storage
from audits.runfolder.errors import InputError
from sim.logv4 import as_v3

__all__ = ["PhhExport", "export_phh", "row_phh"]

EXPORT_PHH_FILE = "export-phh.json"
# each table's hands are dated from START, HAND_SECONDS apart; a pause of PAUSE_SECONDS (more than
# the importer's 10 minutes: a new session) where PHH cannot state what happened between two
# hands: a hand it cannot describe, or chips a player added (a top-up)
START = dt.datetime(2026, 1, 1)
HAND_SECONDS, PAUSE_SECONDS = 60, 1800
MAX_LISTED = 20  # skipped hands listed per reason


class PhhExportError(InputError):
    """An unusable run or output folder (one line, exit 2)."""


@dataclass
class PhhExport:
    out: str
    files: list[dict[str, Any]] = field(default_factory=list)
    hands: int = 0
    written: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    examples: dict[str, list[int]] = field(default_factory=dict)
    seconds: float = 0.0


def _topped_up(prev: dict[str, Any], row: dict[str, Any]) -> bool:
    """A player of ``prev`` (the table's previous hand) added chips before ``row``: a seat with
    the same player and a rebuy (a cash top-up)."""
    pids, before = row.get("player_ids"), prev.get("player_ids")
    return any(r > 0 and row["occupied"][s] and prev["occupied"][s]
               and (pids is None or before is None or pids[s] == before[s])
               for s, r in enumerate(row["rebuys"]))


def _when(seconds: int) -> dict[str, Any]:
    """The PHH date and time fields of a hand ``seconds`` after the table's start (UTC)."""
    t = START + dt.timedelta(seconds=seconds)
    return {"time": t.time(), "time_zone_abbreviation": "UTC", "day": t.day,
            "month": t.month, "year": t.year}


def row_phh(row: dict[str, Any], venue: str, seconds: int) -> str:
    """One logged hand (a row of the run's log) as the PHH an operator hands in (module
    docstring), dated ``seconds`` after its table's start. Raises ValueError (a
    ``RowReplayError`` among them) for a hand PHH cannot describe or a row that does not replay
    to its logged result."""
    from sim.histories.read.phh import hand_to_phh, phh_player_order
    from sim.logview.row_replay import replay_row

    hand = replay_row(row, check=True)
    order = phh_player_order(hand)
    pids = row.get("player_ids")
    players = [f"player {pids[s]}" if pids else f"seat {s + 1}" for s in order]
    extra: dict[str, Any] = {"hand": int(row["hand_id"]), "table": int(row["table_id"]),
                             "seats": [s + 1 for s in order],
                             "seat_count": int(row["n_seats"]), "venue": venue,
                             **_when(seconds)}
    if row["format"] == "tournament":
        extra["level"] = int(row["level"]) + 1
        extra["event"] = f"{venue}: sit & go table {row['table_id']}"
    return hand_to_phh(hand, players=players, extra=extra, raked=True)


def _reason(e: Exception) -> str:
    """A skip's reason, one of a few names (the detail goes to the hand's listing)."""
    text = str(e)
    if "LEAVE" in text:
        return "a player left mid-hand (PHH has no action for it)"
    if "positions" in text:
        return "positions PHH cannot describe (a dead blind or button)"
    if "raise cap" in text:
        return "a fixed-limit raise cap other than 4"
    return "does not replay to its logged result"


def export_phh(run: str | os.PathLike[str], out: str | os.PathLike[str], *,
               progress: Callable[[str], None] | None = None) -> PhhExport:
    """Write the run's hands as PHH files into ``out`` (module docstring). Raises
    PhhExportError for a run that cannot be read or an output folder inside the run or not
    empty of anything but an earlier PHH export."""
    t0 = time.perf_counter()
    try:
        logs = run_inputs(storage.as_location(os.fspath(run)))
    except AuditInputError as e:
        raise PhhExportError(str(e)) from None
    manifest = logs.manifest or {}
    if manifest.get("source") == "import":
        raise PhhExportError(f"run {os.fspath(run)}: an import (its hands came from PHH "
                             "already): export a simulated run")
    spec = manifest.get("spec") or {}
    venue = str(spec.get("game") or "holdem simulate")
    dest = Path(out)
    if not storage.is_uri(os.fspath(run)):
        r = Path(run).resolve()
        if dest.resolve() == r or r in dest.resolve().parents:
            raise PhhExportError(f"--out {out}: inside the run folder; write the PHH files "
                                 "elsewhere (an import reads them as an operator's)")
    if dest.exists() and any(p.name != EXPORT_PHH_FILE and not p.name.endswith(".phhs")
                             for p in dest.iterdir()):
        raise PhhExportError(f"--out {out}: holds other files than a PHH export; choose a new "
                             "folder (nothing was changed)")
    dest.mkdir(parents=True, exist_ok=True)
    (dest / EXPORT_PHH_FILE).unlink(missing_ok=True)  # written last: absent = partial
    res = PhhExport(str(dest))
    fs = logs.folder.fs
    for rel in logs.files:
        parsed = parse_batch_relpath(rel)
        label, index = parsed if parsed is not None else ("log", len(res.files))
        try:
            with fs.open_input_file(logs.folder.path(rel)) as f:
                table = as_v3(pq.read_table(f))
        except (OSError, pa.ArrowException) as e:
            raise PhhExportError(f"{rel}: not a readable Parquet file "
                                 f"({str(e).splitlines()[0] if str(e) else e})") from None
        sections: list[str] = []
        rows = sorted(table.to_pylist(), key=lambda r: (r["table_id"], r["hand_no"]))
        prev: dict[str, Any] | None = None
        written_prev = False
        seconds = 0
        for row in rows:
            res.hands += 1
            hid = int(row["hand_id"])
            if prev is None or prev["table_id"] != row["table_id"]:
                seconds = 0
            else:
                seconds += HAND_SECONDS
                if not written_prev or _topped_up(prev, row):
                    seconds += PAUSE_SECONDS  # PHH cannot say what happened: a new session
            prev = row
            written_prev = False
            try:
                text = row_phh(row, venue, seconds)
            except (ValueError, TypeError, KeyError) as e:  # a null or a bad value: no replay
                reason = _reason(e)
                res.skipped[reason] = res.skipped.get(reason, 0) + 1
                listed = res.examples.setdefault(reason, [])
                if len(listed) < MAX_LISTED:
                    listed.append(hid)
                continue
            sections.append(f"[{hid}]\n{text}")
            res.written += 1
            written_prev = True
        name = f"{label}-batch-{index:05d}.phhs"
        data = "\n".join(sections).encode()
        tmp = dest / f".{name}.tmp"
        tmp.write_bytes(data)
        tmp.replace(dest / name)
        # the batch's format: the lab's word for ``holdem import --source-format`` (a PHH hand's
        # own level field chooses nothing on import: docs/import.md, "Who names the format")
        kinds = sorted({str(r.get("format") or "cash") for r in rows})
        res.files.append({"path": name, "batch_file": rel, "hands": len(sections),
                          "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
                          "format": kinds[0] if len(kinds) == 1 else "mixed"})
        if progress is not None:
            progress(f"export --phh: {rel}: {len(sections):,} of {len(rows):,} hands")
    stale = {p.name for p in dest.glob("*.phhs")} - {f["path"] for f in res.files}
    for name in stale:  # an earlier export's files this one did not write
        (dest / name).unlink()
    res.seconds = time.perf_counter() - t0
    record = {"format": "holdem-export-phh", "run": os.fspath(run),
              "run_id": manifest.get("run_id"), "venue": venue, "hands": res.hands,
              "written": res.written, "skipped": dict(sorted(res.skipped.items())),
              "skipped_hands": res.examples, "files": res.files,
              "money": {"unit": "chips", "exponent": 0}}
    tmp = dest / f".{EXPORT_PHH_FILE}.tmp"
    tmp.write_text(json.dumps(record, indent=1))
    tmp.replace(dest / EXPORT_PHH_FILE)
    return res
