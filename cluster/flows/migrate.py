"""``holdem migrate RUN --to 4``: a run's log rewritten in the log schema version 4
(``sim.logv4``), every hand unchanged, the manifest updated last.

A run folder of the old layout is first moved to today's (``audits.runfolder.migrate``). Then
each batch file the manifest lists is read, its bytes checked against the manifest's sha256 and
its hands against their stored digests (a file that is not the run's as recorded is refused,
never restamped), converted (a schema-2 file gains ``player_ids`` by their documented rule:
``16 * hand_id + seat`` of the hand where the player sat down, a new one where the seat was
empty in the table's previous hand) and encoded as the run's writer encodes version 4 (a
simulation's: ``cluster.flows.simulate``'s settings; an import's: zstd), with the file's own
key-value metadata, its ``holdem.schema_version`` made 4. Atomic as far as a folder of files can
be: every new file is written under a temporary name first; the manifest then records the new
files' sha256 (``migrating``), the files are renamed, and the manifest is rewritten without that
record, schema version 4. Interrupted, the command run again finishes the job (a file already
converted is known by the sha256 the record holds). ``audit.json`` and the certificate record the
old bytes: the command says to run ``holdem audit`` and ``holdem report`` again.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from audits.runfolder import RunFolder, RunFolderError, sha256_bytes
from audits.runfolder.names import AUDIT_FILE, CERTIFICATE, MANIFEST, is_temporary
from audits.runfolder.storage import TMP_MARK, TMP_RANDOM, Location

TO_VERSIONS = (4,)
META_VERSION = b"holdem.schema_version"
JOURNAL = "migrating"  # the manifest's record of a conversion under way


def _say(text: str) -> None:
    """No notes."""


def player_ids(table: pa.Table) -> pa.Array:
    """A schema-2 table's ``player_ids`` by the documented rule (``sim.schema``): a new id
    ``16 * hand_id + seat`` at a table's first hand and where the seat was empty in the table's
    previous hand, else the previous hand's id; -1 for an empty seat."""
    n = table.num_rows
    k = int(table.column("n_seats")[0].as_py()) if n else 0
    occ_list = table.column("occupied").combine_chunks()
    occ = np.asarray(occ_list.flatten().to_numpy(zero_copy_only=False), bool).reshape(n, k)
    tid = table.column("table_id").to_numpy()
    hid = table.column("hand_id").to_numpy()
    order = np.lexsort((table.column("hand_no").to_numpy(), tid))
    o_occ, o_tid = occ[order], tid[order]
    first = np.r_[True, o_tid[1:] != o_tid[:-1]]
    prev = np.vstack([np.zeros((1, k), bool), o_occ[:-1]]) if n else o_occ
    new = o_occ & (first[:, None] | ~prev)
    rows = np.where(new, np.arange(n)[:, None], -1)
    last_new = np.maximum.accumulate(rows, axis=0)
    ids = np.where(o_occ, 16 * hid[order][np.maximum(last_new, 0)] + np.arange(k), -1)
    out = np.empty_like(ids)
    out[order] = ids
    return pa.ListArray.from_arrays(pa.array(np.arange(0, (n + 1) * k, k, dtype=np.int32)),
                                    pa.array(out.reshape(-1), pa.int64()))


def converted(table: pa.Table, imported: bool) -> pa.Table:
    """One batch file's table (schema 2 or 3) in schema version 4, with the version-4 fields'
    documentation and the file's key-value metadata (its schema version made 4)."""
    from sim.logv4 import to_v4
    from sim.schema import hand_schema, import_schema

    if "player_ids" not in table.column_names:
        i = table.schema.get_field_index("policy") + 1
        table = table.add_column(i, pa.field("player_ids", pa.list_(pa.int64()), False),
                                 player_ids(table))
    packed = to_v4(table)
    want = import_schema(4) if imported else hand_schema(4)
    fields = [want.field(f.name).with_nullable(f.nullable) if f.name in want.names else f
              for f in packed.schema]
    meta = dict(table.schema.metadata or {})
    meta[META_VERSION] = b"4"
    return pa.Table.from_arrays(packed.columns, schema=pa.schema(fields, metadata=meta))


def _encode(table: pa.Table, imported: bool) -> bytes:
    if imported:
        from cluster.flows.import_histories import encode_rows

        return encode_rows(table)
    from cluster.flows.simulate import encode_table

    return encode_table(table).to_pybytes()


def _check_digests(table: pa.Table, where: str) -> None:
    """The file's hands are the ones its digests name (a forged hand is never re-encoded)."""
    from sim.digest import hand_digests

    if "digest" not in table.column_names:
        raise RunFolderError(f"{where}: no digest column (a log older than schema version 2): "
                             "holdem migrate cannot show its hands unchanged")
    stored = table.column("digest").to_numpy()
    again = hand_digests(table)
    bad = np.flatnonzero(stored != again)
    if len(bad):
        hand = table.column("hand_id")[int(bad[0])].as_py()
        raise RunFolderError(f"{where}: hand {hand}: its digest does not match its columns (the "
                             "file is not what the run wrote): audit the run; nothing converted")


def migrate_log(run: Location | os.PathLike[str], to: int = 4,
                say: Callable[[str], None] | None = None) -> int:
    """Convert the run folder ``run`` to log schema version ``to`` (4); returns the files
    converted. Raises RunFolderError (one line) before changing anything for a folder that is not
    a run (no manifest of a simulation or an import), a file that is not the run's as recorded,
    or a version it cannot convert."""
    from audits.runfolder import migrate as migrate_layout

    say = say or _say
    if to not in TO_VERSIONS:
        raise RunFolderError(f"--to {to}: holdem migrate converts a log to schema version "
                             f"{', '.join(map(str, TO_VERSIONS))}")
    folder = RunFolder.open(run)
    folder.require()
    if MANIFEST not in folder.listing():
        raise RunFolderError(f"{folder.label}: not a run folder (no {MANIFEST}): nothing to "
                             "migrate")
    raw = folder.read_manifest(any_layout=True)
    kind = (raw or {}).get("format")
    from audits.runspec import IMPORT_FORMATS, SIMULATE_FORMAT

    if kind not in (SIMULATE_FORMAT, *IMPORT_FORMATS):
        raise RunFolderError(f"{folder.location(MANIFEST)}: format {kind!r} is not a simulated "
                             "or imported run's: holdem migrate --to converts their logs only")
    if kind == SIMULATE_FORMAT and (raw or {}).get("status") != "complete":
        raise RunFolderError(f"{folder.location(MANIFEST)}: status {(raw or {}).get('status')!r}:"
                             " finish the run (the same holdem simulate command) before "
                             "converting its log")
    if any(_is_old(rel) for rel in folder.listing()):
        migrate_layout(run, say=say)
    manifest = folder.read_manifest()
    assert manifest is not None
    imported = kind in IMPORT_FORMATS
    version = manifest.get("schema_version")
    journal: dict[str, str] = dict(manifest.get(JOURNAL) or {})
    if version == to and not journal:
        say(f"{folder.label}: already log schema version {to}; nothing to convert")
        return 0
    if version not in (2, 3, to):
        raise RunFolderError(f"{folder.location(MANIFEST)}: schema_version {version!r}: holdem "
                             f"migrate converts versions 2 and 3")
    files = manifest.get("files")
    if not isinstance(files, list) or not all(isinstance(f, dict) and "path" in f
                                                for f in files):
        raise RunFolderError(f"{folder.location(MANIFEST)}: no 'files' list to convert")
    for rel in folder.listing():  # an interrupted run's temporaries (this command holds the lock)
        if is_temporary(rel):
            folder.delete(rel)
    pending: list[tuple[dict[str, Any], str, str, int]] = []  # (record, temporary, sha, bytes)
    try:
        _convert_all(folder, files, journal, version, imported, pending)
    except BaseException:  # nothing changed: the temporaries written so far removed
        for _, tmp, _, _ in pending:
            if tmp:
                folder.delete(tmp)
        raise
    manifest[JOURNAL] = {str(rec["path"]): sha for rec, _, sha, _ in pending}
    folder.write_manifest(manifest)  # the new bytes recorded before any file is replaced
    for rec, tmp, _, _ in pending:
        if tmp:
            _rename(folder, tmp, str(rec["path"]))
    for rec, _, sha, size in pending:
        rec["sha256"], rec["bytes"] = sha, size
    manifest.pop(JOURNAL)
    manifest["schema_version"] = to
    totals = manifest.get("totals")
    if isinstance(totals, dict) and "bytes" in totals:
        totals["bytes"] = sum(int(rec["bytes"]) for rec, _, _, _ in pending)
    if not imported:
        from cluster.flows.manifest import COMPRESSION_NOTE

        manifest["compression"] = COMPRESSION_NOTE
    folder.write_manifest(manifest)
    stale = [p for p in (AUDIT_FILE, CERTIFICATE) if p in folder.listing()]
    say(f"{folder.label}: {len(pending)} batch files in log schema version {to}"
        + (f"; {' and '.join(stale)} record the old bytes: run `holdem audit` and `holdem "
           "report` again" if stale else ""))
    return len(pending)


def _convert_all(folder: RunFolder, files: list[dict[str, Any]], journal: dict[str, str],
                 version: Any, imported: bool,
                 pending: list[tuple[dict[str, Any], str, str, int]]) -> None:
    """Each listed file checked and converted under a temporary name, appended to
    ``pending`` as (its record, the temporary, the new sha256, the new size); a file the journal
    of an interrupted run names with its bytes is kept as it is (no temporary)."""
    for rec in files:
        rel = str(rec["path"])
        data = folder.read_bytes(rel)
        sha = sha256_bytes(data)
        if journal.get(rel) == sha:  # converted by an interrupted run of this command
            pending.append((rec, "", sha, len(data)))
            continue
        if sha != rec.get("sha256"):
            raise RunFolderError(f"{folder.location(rel)}: its sha256 does not match the "
                                 "manifest's: holdem migrate converts only the files the run "
                                 "recorded (audit the run); nothing converted")
        table = pq.read_table(pa.BufferReader(data))
        got = (table.schema.metadata or {}).get(META_VERSION, b"").decode(errors="replace")
        if got not in ("2", "3"):
            raise RunFolderError(f"{folder.location(rel)}: metadata holdem.schema_version is "
                                 f"{got!r}, the manifest's {version!r}: nothing converted")
        _check_digests(table, str(folder.location(rel)))
        new = _encode(converted(table, imported), imported)
        tmp = _temporary(rel)
        with folder.fs.open_output_stream(folder.path(tmp)) as f:
            f.write(new)
        pending.append((rec, tmp, sha256_bytes(new), len(new)))


def _rename(folder: RunFolder, tmp: str, rel: str) -> None:
    """The converted file ``tmp`` renamed to the batch file ``rel`` (replacing it)."""
    folder.fs.move(folder.path(tmp), folder.path(rel))


def _is_old(rel: str) -> bool:
    from audits.runfolder.names import OLD_BATCH

    return OLD_BATCH.fullmatch(rel) is not None


def _temporary(rel: str) -> str:
    """A temporary name beside ``rel`` (``audits.runfolder.storage.TMP_NAME``: the folder's
    writers remove such leftovers, ``holdem verify`` refuses them)."""
    folder, _, name = rel.rpartition("/")
    return f"{folder}/.{name}{TMP_MARK}{uuid.uuid4().hex[:TMP_RANDOM]}"


__all__ = ["converted", "migrate_log", "player_ids"]
