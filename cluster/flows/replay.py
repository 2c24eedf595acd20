"""``holdem replay RUN --hand ID``: one logged hand, dealt and played again through ``sim.hand``.

The row is found with a dataset filter on ``hand_id`` over the run folder's log as every command
reads it (``RunFolder.log_files``: a log file the manifest does not list fails the replay as it
fails the audit, ``UnlistedFileError``), and rebuilt by ``sim.row_replay.replay_row``
(table config, starting stacks, positions, deck, antes; the logged player actions applied in
order), which must end with the logged stacks, rake and board. The hand is then printed as a
history (``sim.hand_text.format_hand``) or as PHH (``sim.histories.read.phh.hand_to_phh``), which
``holdem phh verify`` accepts. No poker logic lives here.
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

    try:
        table = run_dataset(run, filesystem).to_table(filter=ds.field("hand_id") == hand_id)
    except (pa.ArrowException, OSError) as e:  # a truncated or corrupt batch file
        raise RunFolderError(_unreadable(run, filesystem, e)) from None
    if table.num_rows == 0:
        raise HandNotFound(f"run {os.fspath(run)} has no hand {hand_id}")
    if table.num_rows > 1:
        raise ReplayMismatch(f"run {os.fspath(run)} holds hand {hand_id} {table.num_rows} times")
    return table.to_pylist()[0]


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
    """The logged hand rebuilt and played again (``sim.row_replay.replay_row``, which checks the
    finishing stacks, rake and board). Raises ReplayMismatch when the row does not replay."""
    from sim.row_replay import replay_row

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
    from sim.hand_text import format_hand
    from sim.histories.read.phh import hand_to_phh

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
