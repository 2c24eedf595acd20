"""``holdem replay RUN --hand ID``: one logged hand, dealt and played again through ``sim.hand``.

The row is found with a dataset filter on ``hand_id`` over the run folder's log as every command
reads it (``RunFolder.log_files``: a log file the manifest does not list fails the replay as it
fails the audit, ``UnlistedFileError``), and rebuilt by ``sim.logview.row_replay.replay_row``
(table config, starting stacks, positions, deck, antes; the logged player actions applied in
order), which must end with the logged stacks, rake and board. The hand is then printed as a
history (``sim.logview.hand_text.format_hand``) or as PHH
(``sim.histories.read.phh.hand_to_phh``), which ``holdem phh verify`` accepts. No poker logic
lives here.

Ids people can type (``resolve_hand``): a simulated hand's id packs its structure in bits 40..
(no-limit 0, pot-limit 1, fixed-limit 2) above its number in the structure's stream, so
``--hand 1000`` is also taken as hand 1000 of the run's structure (of ``--structure``, when the
run has several); on an imported run ``--hand N`` is also the site's hand number as the source
wrote it (the ``site_hand`` column; ``--site-hand TEXT`` for one that is not a number), when
no hand has that id; an id the run does not hold is refused naming the ids it does hold (and
an import's site hand numbers).
``holdem replay RUN --failing`` walks failing_hands.csv (``holdem audit``'s complete list of
failing hands), each hand with the reason and amounts the audit gave.
"""

from __future__ import annotations

import os
from typing import Any

import pyarrow.fs as pafs

from audits.runfolder.errors import CheckFailed, InputError
from sim.hand import Hand


class HandNotFound(InputError, LookupError):
    """No row of the run has this hand id (exit 2)."""


class ReplayMismatch(CheckFailed):
    """The row does not replay to what it logged (exit 1)."""


class NoPhh(InputError):
    """PHH cannot describe this hand (rake, non-standard positions): exit 2."""


def find_row(run: str | os.PathLike[str], hand_id: int,
             filesystem: pafs.FileSystem | None = None) -> dict[str, Any]:
    """The row of ``hand_id`` in the run folder ``run`` (a dataset filter; row-group statistics
    skip the files that cannot hold it)."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    from cluster.flows.simulate import RunFolderError, run_dataset
    from sim.logv4 import as_v3

    try:
        table = as_v3(run_dataset(run, filesystem).to_table(
            filter=ds.field("hand_id") == hand_id))
    except (pa.ArrowException, OSError) as e:  # a truncated or corrupt batch file
        raise RunFolderError(_unreadable(run, filesystem, e)) from None
    if table.num_rows == 0:
        raise HandNotFound(f"run {os.fspath(run)} has no hand {hand_id}")
    if table.num_rows > 1:
        raise ReplayMismatch(f"run {os.fspath(run)} holds hand {hand_id} {table.num_rows} times")
    return table.to_pylist()[0]


STRUCT_SHIFT = 40  # a simulated hand id: structure code << 40 | the hand's number in its stream
STRUCTURE_CODES = {"no-limit": 0, "pot-limit": 1, "fixed-limit": 2}


def id_ranges(run: str | os.PathLike[str]) -> dict[str, tuple[int, int, int]]:
    """Per structure of the run: (first hand id, last hand id, hands)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from cluster.flows.simulate import RunFolderError, run_dataset

    try:
        t = run_dataset(run).to_table(columns=["hand_id", "structure"])
    except (pa.ArrowException, OSError) as e:  # a truncated or corrupt batch file
        raise RunFolderError(_unreadable(run, None, e)) from None
    out: dict[str, tuple[int, int, int]] = {}
    for label in sorted(set(t.column("structure").to_pylist()) - {None}):
        ids = t.filter(pc.equal(t.column("structure"), label)).column("hand_id")
        mm = pc.min_max(ids).as_py()
        out[str(label)] = (int(mm["min"]), int(mm["max"]), len(ids))
    return out


def _ranges_text(ranges: dict[str, tuple[int, int, int]]) -> str:
    parts = []
    for label, (lo, hi, n) in ranges.items():
        code = lo >> STRUCT_SHIFT
        base = code << STRUCT_SHIFT
        own = (f" (its hand numbers {lo - base:,}..{hi - base:,}: --hand N --structure {label})"
               if code else "")
        parts.append(f"{label} {n:,} hands, ids {lo}..{hi}{own}")
    return "; ".join(parts) or "no hands"


def _site_hands(run: str | os.PathLike[str]) -> Any:
    """(hand_id, site_hand, venue, table) of every hand of an imported run (None when the log
    has no ``site_hand`` column: a simulated run)."""
    import pyarrow as pa

    from cluster.flows.simulate import RunFolderError, run_dataset

    try:
        dataset = run_dataset(run)
        if "site_hand" not in dataset.schema.names:
            return None
        cols = [c for c in ("hand_id", "site_hand", "venue", "table_name")
                if c in dataset.schema.names]
        return dataset.to_table(columns=cols)
    except (pa.ArrowException, OSError) as e:  # a truncated or corrupt batch file
        raise RunFolderError(_unreadable(run, None, e)) from None


def resolve_site_hand(run: str | os.PathLike[str], site_hand: str,
                      sites: Any | None = None) -> int:
    """The hand id of the imported hand whose site hand number is ``site_hand`` (as written).
    Raises HandNotFound naming a few of the run's site hand numbers, or the hands that share
    it (a site hand number may repeat across venues and tables: then ``--hand ID``)."""
    import pyarrow.compute as pc

    t = _site_hands(run) if sites is None else sites
    if t is None:
        raise HandNotFound(f"run {os.fspath(run)} is not an import: it has no site hand numbers "
                           "(--hand N takes its hand ids or structure numbers)")
    hit = t.filter(pc.equal(t.column("site_hand"), site_hand))
    if hit.num_rows == 1:
        return int(hit.column("hand_id")[0].as_py())
    if hit.num_rows > 1:
        rows = hit.to_pylist()[:5]
        which = ", ".join(f"{r['hand_id']} ({r.get('venue') or '?'}, table "
                          f"{r.get('table_name') or '?'})" for r in rows)
        raise HandNotFound(f"run {os.fspath(run)}: site hand {site_hand} names "
                           f"{hit.num_rows} hands: {which}: --hand ID")
    known = [v for v in t.column("site_hand").to_pylist() if v]
    shown = ", ".join(known[:3]) + (f", ... {known[-1]}" if len(known) > 3 else "")
    raise HandNotFound(f"run {os.fspath(run)} has no hand id or site hand {site_hand}: it "
                       f"holds {_ranges_text(id_ranges(run))}; site hand numbers "
                       f"{shown or 'unknown'} ({len(known):,}; --site-hand TEXT)")


def resolve_hand(run: str | os.PathLike[str], hand: int, structure: str | None = None) -> int:
    """The packed hand id ``--hand`` (and ``--structure``) name: ``hand`` itself when the run
    holds it and no structure is given; else hand number ``hand`` of the structure's stream
    (the run's only structure, or ``structure``); else, on an imported run, the hand whose
    site hand number is ``hand``. Raises HandNotFound naming the ids the run holds."""
    ranges = id_ranges(run)
    if structure is None:
        if any(lo <= hand <= hi for lo, hi, _ in ranges.values()):
            return hand
        if len(ranges) == 1:
            structure = next(iter(ranges))
    if structure is not None and structure in ranges and 0 <= hand < 1 << STRUCT_SHIFT:
        lo, hi, _ = ranges[structure]
        packed = (lo >> STRUCT_SHIFT << STRUCT_SHIFT) + hand
        if lo <= packed <= hi:
            return packed
    sites = _site_hands(run)
    if sites is not None:
        return resolve_site_hand(run, str(hand), sites)
    where = f" {structure}" if structure else ""
    raise HandNotFound(f"run {os.fspath(run)} has no{where} hand {hand}: it holds "
                       + _ranges_text(ranges))


def replayed_text(row: dict[str, Any]) -> str:
    """A logged row played again by the clean engine, as a readable history, with what the log
    says where it ends the hand otherwise (its stacks). Raises ValueError when the clean engine
    cannot replay it."""
    from sim.logview.hand_text import format_hand
    from sim.logview.row_replay import replay_row

    hand = replay_row(row, check=False)
    text = format_hand(hand)
    logged = list(row["stacks_end"])
    if hand.stacks != logged:
        text += (f"\n*** the log says the hand ended with stacks {logged}; the clean engine "
                 f"ends it with {hand.stacks}")
    return text


def replay_failing(run: str | os.PathLike[str], limit: int | None = None) -> list[str]:
    """Each failing hand of failing_hands.csv (``limit`` at most), as a title naming the audit
    and its reason with the amounts, then the hand played again by the clean engine (and, when
    the log ends it otherwise, what the log says)."""
    import csv
    import io

    from audits.runfolder import FAILING_FILE, RunFolder, storage

    loc = RunFolder.open(run).location(FAILING_FILE)
    if not storage.is_file(loc):
        raise HandNotFound(f"run {os.fspath(run)} has no {FAILING_FILE}: `holdem audit` found no "
                           "failing hand there (or was not run)")
    text = storage.read_bytes(loc).decode()
    reasons: dict[int, list[str]] = {}
    for rec in csv.DictReader(io.StringIO(text)):
        reasons.setdefault(int(rec["hand_id"]), []).append(f"{rec['audit']}: {rec['reason']}")
    out = []
    for hid in list(reasons)[:limit]:
        head = f"=== failing hand {hid}: " + "; ".join(reasons[hid])
        try:
            body = replayed_text(find_row(run, hid))
        except (InputError, ValueError) as e:
            body = f"(not replayed: {e})"
        out.append(f"{head}\n{body}")
    return out


def _unreadable(run: str | os.PathLike[str], filesystem: pafs.FileSystem | None,
                error: Exception) -> str:
    """One line naming the first batch file of ``run`` that does not open as Parquet."""
    import pyarrow.parquet as pq

    from audits.runfolder import RunFolder

    logs = RunFolder.open(run, filesystem).log_files()
    fs = logs.folder.fs
    for path in logs.paths():
        try:
            with fs.open_input_file(path) as f:
                pq.ParquetFile(f).schema_arrow  # noqa: B018 - reads the footer
        except Exception as e:  # noqa: BLE001 - any failure names this file
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            return f"{path}: not a readable Parquet file ({first})"
    first = str(error).splitlines()[0] if str(error) else type(error).__name__
    return f"run {os.fspath(run)}: a batch file cannot be read ({first})"


def replay_row_or_mismatch(row: dict[str, Any]) -> Hand:
    """The logged hand rebuilt and played again (``sim.logview.row_replay.replay_row``, which
    checks the finishing stacks, rake and board). Raises ReplayMismatch when the row does not
    replay."""
    from sim.logview.row_replay import replay_row

    try:
        return replay_row(row, check=True)
    except ValueError as e:  # RowReplayError, IllegalAction, a bad config or deck
        fault = f" (this run has the fault {row['fault']!r} injected)" if row.get("fault") else ""
        raise ReplayMismatch(f"the row does not replay{fault}: {e}") from None


def _holds_null(v: Any) -> bool:
    """A row's value is null, or holds a null (a list's value, a pot's field)."""
    if v is None:
        return True
    if isinstance(v, list):
        return any(_holds_null(x) for x in v)
    if isinstance(v, dict):
        return any(_holds_null(x) for x in v.values())
    return False


def replay_hand(run: str | os.PathLike[str], hand_id: int, *, phh: bool = False,
                filesystem: pafs.FileSystem | None = None) -> str:
    """The history text (or PHH text) of one hand of a run, after checking that it replays."""
    from cluster.flows.simulate import RunFolderError
    from sim.histories.read.phh import hand_to_phh
    from sim.logview.hand_text import format_hand

    row = find_row(run, hand_id, filesystem)
    null = next((k for k, v in row.items() if k not in ("fault", "deck") and _holds_null(v)),
                None)
    if null is not None:
        raise RunFolderError(f"run {os.fspath(run)}: hand {hand_id}: column {null!r} holds a "
                             "null (a hand log's columns hold none)")
    actions = row.get("actions")
    if not isinstance(actions, bytes) or len(actions) % 19:
        raise RunFolderError(f"run {os.fspath(run)}: hand {hand_id}: column 'actions' is not "
                             f"whole 19-byte records ({len(actions or b'')} bytes)")
    hand = replay_row_or_mismatch(row)
    if phh:
        try:
            return hand_to_phh(hand, extra={"hand": hand_id, "table": row["table_id"]})
        except ValueError as e:
            raise NoPhh(f"hand {hand_id}: {e}") from None
    title = (f"Hand {hand_id} (run {row['run_id']}, table {row['table_id']} hand "
             f"{row['hand_no']}, {row['format']}"
             + (f", level {row['level']}" if row["format"] == "tournament" else "") + ")")
    return format_hand(hand, title=title)
