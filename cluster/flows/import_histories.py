"""``holdem import PATH... --out RUN`` (alias ``holdem phh import``): an operator's hand histories
-> a run folder the audits read.

Sources: files or folders, paths or URIs (``audits.runfolder.storage``). The work fans out BY FILE
through ``cluster.fanout.fan_out`` (Ray; ``workers=0`` in this process): each task reads,
converts and replays one file (``sim.histories.files.import_file``). The run's money unit is the
finest any file needs (``10**-E``, E <= 6): a file converted at a coarser unit is done again at
E (rare: a run's files share their currency). The driver then rebuilds the tables across files
(``sim.histories.sessions.rebuild``): the hands of one (venue, table name), ordered by (time, site
hand number), form table SESSIONS of adjacent hands (button moved to the next occupied seat, same
seats and stakes, no pause over ``MAX_PAUSE_SECONDS``; or the button stayed because the small
blind left, as the sites do); anything else starts a new session (a gap, counted). A button on
the SAME seat with the same players otherwise keeps the hands adjacent, so that the rotation
audit fails it (no missing hand explains it), counted as ``button_stuck``.
``table_id`` = the session, ``hand_no`` = the hand's place in it, ``rebuys`` = a session's first
stacks, then each seat's start minus its previous end (negative: what the operator took between
the hands, judged by the outcome audit; for an unknown stack the difference of the stand-ins,
so the session balances and says nothing), ``player_ids`` =
one id per player name over the run (sorted names, from 0; -1 empty seat).

Layout (as ``holdem simulate`` writes, through ``audits.runfolder``)::

    RUN/log/<label>/batch-<index:05d>.parquet   rows of sim.schema.import_schema() (zstd)
    RUN/import.json                             counts, per file, examples, tables, money
    RUN/manifest.json                           format "holdem-import"

One ``n_seats`` and structure per batch file (the audits read one table size a file); a
session's hands are consecutive rows of one file. Every file is written atomically, the manifest
last: nothing half-written carries a final name. An existing RUN is replaced only when it is a
previous import (its batch files, audit and report removed); anything else is refused.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from audits.runfolder import (
    IMPORT_FILE,
    MANIFEST,
    PRODUCTS,
    SIGNATURE_FILE,
    RunFolder,
    RunFolderError,
    batch_relpath,
    sha256_bytes,
    storage,
)
from audits.runfolder.provenance import provenance
from cluster.flows.manifest import engine_version, git_commit
from cluster.flows.manifest import now as manifest_now
from cluster.flows.rake import RakeError, RakeSchedule
from cluster.flows.summary_checks import check_summaries
from sim.digest import DIGEST_VERSION, with_digests
from sim.histories.files import import_file
from sim.histories.rows.reference import FileImport
from sim.histories.sessions import breaks_of, pad_seats, rebuild
from sim.histories.sites.summary import FORMAT as SUMMARY_FORMAT
from sim.histories.sites.summary import SummaryFile, read_summary_file
from sim.histories.sites.text import HISTORY_SUFFIXES, iter_history_paths
from sim.logv4 import to_v4
from sim.schema import (
    IMPORT_SCHEMA,
    IMPORT_VERSION,
    LOG_VERSION_4,
    SCHEMA_VERSION,
    import_schema,
)

__all__ = ["IMPORT_FILE", "MANIFEST_FORMAT", "PhhImport", "format_import", "import_phh",
           "rebuild"]

MANIFEST_FORMAT = "holdem-import"
OLD_FORMAT = "holdem-phh-import"
MANIFEST_VERSION = 2
SMALL_IMPORT_BYTES = 8_000_000  # local sources up to this size: in this process by default
PROGRESS_SECONDS = 5.0  # a progress line at most this often
BATCH_ROWS = 200_000  # rows per batch file at most (whole sessions)


def import_run_id(sources: list[dict[str, Any]]) -> str:
    """The run_id of an import of these sources (``import_phh`` names its run with it;
    ``holdem verify`` recomputes it, ``cluster.flows.reproduce``): the digest of their paths
    and sha256."""
    return "imp-" + hashlib.sha256("\n".join(sorted(
        f"{s.get('path')} {s.get('sha256')}" for s in sources)).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class PhhImport:
    """What ``import_phh`` did."""

    root: str  # the run folder written (its label: a path or a URI)
    files: int
    submitted: int
    imported: int
    skipped: dict[str, int]  # {reason: hands}
    examples: dict[str, list[dict[str, str]]]
    tables: dict[str, Any]
    money: dict[str, Any]
    seconds: float
    odd_chip: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    # PHH hands whose own level field says tournament, judged as cash (``judge_formats``)
    tournament_fields_as_cash: int = 0
    tournament_files_as_cash: tuple[str, ...] = ()  # their files, in path order
    # the operator's tournament summaries read and checked (``cluster.flows.summary_checks``)
    summaries: dict[str, Any] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """0 at least one hand imported, 2 none."""
        return 0 if self.imported else 2

    @property
    def skipped_lines(self) -> list[str]:
        return [ex["reason"] for exs in self.examples.values() for ex in exs]


def counts_in_words(submitted: int, imported: int, skipped: dict[str, int]) -> str:
    """"2,989 hands submitted, 2,981 imported, 8 skipped (3 unknown variant, ...)"."""
    n = sum(skipped.values())
    what = ", ".join(f"{c:,} {r}" for r, c in sorted(skipped.items(), key=lambda x: (-x[1], x[0])))
    return (f"{submitted:,} hands submitted, {imported:,} imported, {n:,} skipped"
            + (f" ({what})" if what else ""))


def tournament_notice(hands: int, files: tuple[str, ...], shown: int = 4) -> str:
    """The import's line on PHH hands whose own fields say tournament, judged as cash: how many,
    and the exact ``--source-format`` options that make their files tournaments (a file by its
    name when no other file has it, else its path; the first ``shown`` files)."""
    names = [Path(f).name for f in files]
    keys = [n if names.count(n) == 1 else f for n, f in zip(names, files, strict=True)]
    opts = " ".join(f"--source-format '{k}=tournament'" for k in keys[:shown])
    more = (f" (and {len(keys) - shown} more files: a glob names them all, e.g. "
            f"--source-format '{Path(files[0]).parent.name or '.'}/*=tournament')"
            if len(keys) > shown else "")
    return (f"{hands:,} PHH hands whose own level field says tournament judged as cash, in "
            f"{len(files)} file{'s' if len(files) != 1 else ''}: held to the rake schedule, "
            "stakes (a --game's cash blinds) and top-ups; only the lab makes a tournament: if "
            f"they are tournament hands, import again with {opts}{more} (docs/import.md, "
            "\"Who names the format\")")


def format_import(res: PhhImport) -> str:
    """Examples of each skip reason, then the summary lines."""
    lines = [f"skipped ({reason}): {ex['reason']}" for reason, exs in res.examples.items()
             for ex in exs]
    if res.tournament_fields_as_cash:
        lines.append(tournament_notice(res.tournament_fields_as_cash,
                                       res.tournament_files_as_cash))
    for why in res.summaries.get("not_read_examples", []):
        lines.append(f"summary not read: {why}")
    for what in res.summaries.get("disagreements", []):
        lines.append(f"summary disagrees: {what}")
    if res.summaries.get("read") or res.summaries.get("not_read"):
        sm, c = res.summaries, res.summaries.get("checks", {})
        lines.append(f"{sm['read']:,} tournament summaries read ({sm['not_read']:,} not read) of "
                     f"{sm['tournaments']:,} tournaments, {sm['tournaments_in_log']:,} with hands "
                     f"in the log: checks {c.get('agrees', 0):,} agree, "
                     f"{c.get('disagrees', 0):,} disagree, {c.get('not checked', 0):,} not "
                     "checked")
    if res.removed:
        lines.append(f"removed the previous import's {', '.join(res.removed)} (they described "
                     "its hands; run `holdem audit` and `holdem report` again)")
    t = res.tables
    lines.append(f"{res.files} files: {counts_in_words(res.submitted, res.imported, res.skipped)}"
                 f"; {t.get('tables', 0)} tables, {t.get('sessions', 0)} sessions, "
                 f"{t.get('gaps', 0)} gaps"
                 + "".join(f", {t[key]} {words}" for key, words in (
                     ("skip_breaks", "at a skipped hand"),
                     ("missing_hands", "where the stacks show a hand missing")) if t.get(key))
                 + f", {t.get('button_stuck', 0)} buttons not moved; "
                 f"money in 10^-{res.money.get('exponent', 0)} "
                 f"{res.money.get('currency') or 'units'}; {res.seconds:.1f} s -> {res.root}")
    return "\n".join(lines)


# ---------------------------------------------------------------- sources


def source_paths(paths: list[str]) -> list[str]:
    """Every source file named or found (recursively, in natural order) under ``paths``, local
    or URI. Raises FileNotFoundError for a missing path."""
    out: list[str] = []
    for p in paths:
        if storage.is_uri(p):
            if storage.is_file(p):
                out.append(p)
            elif storage.is_dir(p):
                out += [str(storage.join(p, rel)) for rel in storage.list_files(p)
                        if rel.lower().endswith(HISTORY_SUFFIXES)]
            else:
                raise FileNotFoundError(f"{p}: no such file or folder")
            continue
        if not Path(p).exists():
            raise FileNotFoundError(f"{p}: no such file or folder")
        out += [str(f) for f in iter_history_paths([p])]
    return list(dict.fromkeys(out))


def run_currency(pairs: list[str]) -> str:
    """The run's currency from the hands' "code|symbol" pairs: the one ISO code written (hands
    that give only its symbol agree with it), else the one symbol, else "mixed: ..." ("" when
    no hand says)."""
    codes = {p.split("|")[0] for p in pairs} - {""}
    symbols = {p.split("|")[1] for p in pairs} - {""}
    if len(codes) == 1:
        code = next(iter(codes))
        by_code = {p.split("|")[1] for p in pairs if p.split("|")[0] == code} - {""}
        if symbols <= by_code or not by_code and len(symbols) <= 1:
            return code
    if not codes and len(symbols) <= 1:
        return next(iter(symbols), "")
    return "mixed: " + ", ".join(sorted(codes | symbols))


# ---------------------------------------------------------------- tables


# ---------------------------------------------------------------- the command


def as_written(rows: pa.Table, version: int = SCHEMA_VERSION) -> pa.Table:
    """The import's rows (``IMPORT_SCHEMA``'s lists, digests appended) as a batch file of the log
    schema ``version`` holds them (4: the lists packed, ``sim.logv4``)."""
    if version == LOG_VERSION_4:
        rows = to_v4(rows)
    return pa.Table.from_arrays(rows.columns, schema=import_schema(version))


def encode_rows(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue().to_pybytes()


Imported = tuple[FileImport, SummaryFile | None]  # a file's hands, and its summaries (if one)


def _import_task(path: str, scale: int | None) -> Imported:
    res = import_file(path, scale)
    return res, read_summary_file(path) if res.format == SUMMARY_FORMAT else None


def _files_of(paths: list[str], scale_of: dict[str, int | None], workers: int | None,
              address: str | None, say: Callable[[str], None] | None,
              on_done: Callable[[int, Imported], None]) -> list[Imported]:
    from cluster.fanout import fan_out
    from cluster.ray_runtime import ray_session

    calls = [(p, scale_of.get(p)) for p in paths]
    if workers == 0:
        return list(fan_out(_import_task, calls, session=None, on_done=on_done))
    with ray_session(address, workers) as session:
        return list(fan_out(_import_task, calls, session=session, label="import",
                            window=workers or None, on_done=on_done, say=say,
                            name=lambda call: f"import of {call[0]}"))


def _local_bytes(files: list[str]) -> int | None:
    """The sources' total size when every one is a local file, else None."""
    total = 0
    for f in files:
        if storage.is_uri(f):
            return None
        try:
            total += Path(f).stat().st_size
        except OSError:
            return None
    return total


def read_name_key(path: str | Path) -> bytes:
    """The secret of ``--hash-names``: a regular file of at least 16 bytes (RunFolderError, one
    line, otherwise). ``holdem keygen``'s private key file serves, or any random bytes."""
    try:
        p = Path(path)
        if not p.is_file():
            raise RunFolderError(f"--hash-names {path}: not a regular file")
        key = p.read_bytes()
    except OSError as e:
        raise RunFolderError(f"--hash-names {path}: cannot read it ({e.strerror or e})") from None
    if len(key) < 16:
        raise RunFolderError(f"--hash-names {path}: {len(key)} bytes: expected a secret of at "
                             "least 16 bytes")
    return key


def name_hash(key: bytes) -> Callable[[str], str]:
    """A player name's keyed hash under ``key`` (HMAC-SHA256, 16 hex digits; "" stays ""), as
    ``hash_names`` writes it."""
    import hmac

    return lambda name: hmac.new(key, name.encode(), "sha256").hexdigest()[:16] if name else ""


def hash_names(table: pa.Table, key: bytes) -> pa.Table:
    """The ``players`` column (and ``op_claim_players``: the players the operator's tournament
    claims name) with each name replaced by its keyed hash (HMAC-SHA256 under ``key``, 16 hex
    digits): the same name is the same pseudonym everywhere in the run (and in every run
    imported under the same key); "" (an empty seat) stays ""."""
    hashed_name = name_hash(key)
    memo: dict[str, str] = {"": ""}
    for column in ("players", "op_claim_players"):
        i = table.schema.get_field_index(column)
        if i < 0:
            continue
        names = table.column(column).combine_chunks()
        flat = names.values.to_pylist()
        for name in flat:
            if name not in memo:
                memo[name] = hashed_name(name)
        hashed = pa.ListArray.from_arrays(names.offsets, pa.array([memo[x] for x in flat],
                                                                  pa.string()))
        table = table.set_column(i, table.schema.field(i), hashed)
    return table


def lab_venue(path: str, venues: list[tuple[str, str]] | None) -> str | None:
    """The venue the lab maps a source file to: the first (glob, venue) whose glob matches
    the file's path or its name (``fnmatch``), else None (no mapping: a PHH file is read the
    standard way under the schedule's top level; a site's text export by its format)."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    for glob, venue in venues or ():
        if fnmatch.fnmatchcase(path, glob) or fnmatch.fnmatchcase(name, glob):
            return venue
    return None


GAME_FORMATS = ("cash", "tournament")  # ``--source-format GLOB=cash|tournament``
PHH_FILE = "phh"  # a FileImport's format for a PHH file (a site's text export: the site's name)


def judge_formats(table: pa.Table, results: list[FileImport],
                  formats: list[tuple[str, str]] | None
                  ) -> tuple[pa.Table, dict[str, str], int, tuple[str, ...]]:
    """Each PHH hand's ``format`` (cash or tournament: how every audit judges it) from the
    lab's mapping of its file (``--source-format GLOB=cash|tournament``, ``lab_venue``'s matching),
    never from the operator's fields (issue 34, point 5): a PHH hand whose own ``level``,
    ``tournament`` or ``event`` field makes the reader call it a tournament's is judged as
    cash, held to the rake schedule, stakes, top-ups and sessions, unless the lab maps its file
    to tournament (docs/import.md, "Who names the format"). A site's text export keeps the
    format its header states (checked against the hand). Returns the table, the lab's format
    of each PHH source (the manifest's ``sources[].judged_as``), how many hands' own fields
    said tournament but were judged as cash, and their files (sorted)."""
    judged = {r.path: lab_venue(r.path, formats) or "cash"
              for r in results if r.format == PHH_FILE and r.imported}
    if not judged or not table.num_rows:
        return table, judged, 0, ()
    src = table.column("source_file")
    phh_rows = pc.is_in(src, value_set=pa.array(list(judged), pa.string()))
    tour_files = [path for path, f in judged.items() if f == "tournament"]
    lab_tour = pc.is_in(src, value_set=pa.array(tour_files, pa.string()))
    old = table.column("format")
    new = pc.if_else(phh_rows, pc.if_else(lab_tour, "tournament", "cash"), old)
    as_cash = pc.and_(pc.equal(old, "tournament"), pc.equal(new, "cash"))
    overridden = int(pc.sum(as_cash).as_py() or 0)
    files = tuple(sorted(set(pc.filter(src, as_cash).to_pylist()))) if overridden else ()
    i = table.schema.get_field_index("format")
    return (table.set_column(i, table.schema.field(i), new.cast(old.type)), judged, overridden,
            files)


def import_phh(paths: list[str], out: str | Path, *, rake: RakeSchedule | None = None,
               workers: int | None = 0, address: str | None = None,
               progress: bool = False, name_key: bytes | None = None,
               game: Any = None, venues: list[tuple[str, str]] | None = None,
               formats: list[tuple[str, str]] | None = None) -> PhhImport:
    """Import the hands of the source files and folders ``paths`` into the run folder ``out``
    (a path or a URI; its manifest only when a hand was imported). ``workers=0``: in this
    process; None or N: on Ray (module docstring). Raises FileNotFoundError for a missing path,
    RunFolderError for an unusable output folder, RakeError for a rake amount finer than the
    run's unit. ``name_key``: store each player name's keyed hash, never the name
    (``hash_names``). ``game``: a game file's schedule (``cluster.flows.game_import.ImportGame``):
    its rake is the rake schedule (``rake`` must then be None) and its stakes are recorded in
    the manifest's ``game`` (in the run's minor unit) for the ``stakes`` audit. ``venues``: the
    lab's mapping of source files to venues ((glob, venue) pairs, ``--venue``): each source's
    ``venue`` in the manifest, which the outcome audit judges it by (``lab_venue``).
    ``formats``: the lab's mapping of PHH files to cash or tournament ((glob, format) pairs,
    ``--source-format``): how every audit judges their hands (``judge_formats``; cash without
    it)."""
    if game is not None:
        if rake is not None:
            raise ValueError("import: a game's [rake] is the rake schedule: no other beside it")
        rake = game.rake
    t0 = time.perf_counter()
    created = manifest_now()
    files = source_paths(paths)
    folder = RunFolder.open(out)
    if storage.is_file(folder.label):
        raise RunFolderError(f"run folder {folder.label}: a file, not a folder (nothing was "
                             "changed)")
    stale = _replaceable(folder)
    say = (lambda text: print(text, file=sys.stderr, flush=True)) if progress else None
    done = [0, 0]
    last = [t0]

    def tick(_i: int, got: Imported) -> None:  # a line every PROGRESS_SECONDS, and the last
        r = got[0]
        done[0] += 1
        done[1] += r.submitted
        now = time.perf_counter()
        if say is not None and (now - last[0] >= PROGRESS_SECONDS or done[0] == len(files)):
            last[0] = now
            say(f"import: {done[0]:,}/{len(files):,} files, {done[1]:,} hands read "
                f"({done[1] / max(now - t0, 1e-9):,.0f} hands/s)")

    if workers is None and address is None:
        size = _local_bytes(files)
        if size is not None and size <= SMALL_IMPORT_BYTES:  # Ray's start would cost more
            workers = 0
            if say is not None:
                say(f"import: {len(files):,} files, {size / 1e6:.1f} MB: read in this process "
                    f"(at most {SMALL_IMPORT_BYTES // 10**6} MB; --workers N for Ray)")
    both = _files_of(files, {}, workers, address, say, tick)
    results = [r for r, _s in both]
    summary_files = [sf for _r, sf in both if sf is not None]
    exponent = max((r.file_scale for r in results if r.imported), default=0)
    redo = [r.path for r in results if r.imported and r.scale != exponent]
    if redo:  # a file converted at a coarser unit than the run's: again at the run's
        again = {r.path: r for r, _s in _files_of(redo, dict.fromkeys(redo, exponent), workers,
                                                  address, say, tick)}
        results = [again.get(r.path, r) for r in results]
    money = {"exponent": exponent, "currency": run_currency(
        [c for r in results if r.imported for c in r.currencies])}
    rake_manifest = rake.to_manifest(exponent) if rake is not None else None
    game_manifest = game.to_manifest(exponent) if game is not None else None
    parts = [r.table for r in results if r.table is not None]
    table = pa.concat_tables(parts) if parts else IMPORT_SCHEMA.empty_table().drop(["digest"])
    table = pad_seats(table, [k for r in results if r.table is not None
                              for k in r.seat_count_known])
    if name_key is not None:
        table = hash_names(table, name_key)
    table, judged_as, as_cash, as_cash_files = judge_formats(table, results, formats)
    breaks = np.concatenate([breaks_of(r.table.num_rows, r.gaps) for r in results
                             if r.table is not None] or [np.zeros(0, np.int8)])
    table, tables = rebuild(table, breaks)
    run_id = import_run_id([{"path": r.path, "sha256": r.sha256} for r in results])
    table = table.set_column(0, table.schema.field("run_id"),
                             pa.array([run_id] * table.num_rows, pa.string()))
    submitted = sum(r.submitted for r in results)
    imported = table.num_rows  # a hand read twice is one row (``rebuild``: repeated hands)
    skipped: dict[str, int] = {}
    for reason, key in (("repeated hand", "repeated"), ("stated twice", "conflicting")):
        if tables.get(key):
            skipped[reason] = skipped.get(reason, 0) + int(tables[key])
    examples: dict[str, list[dict[str, str]]] = {}
    for r in results:
        for reason, count in r.skipped.items():
            skipped[reason] = skipped.get(reason, 0) + count
            examples.setdefault(reason, [])
            examples[reason] += r.examples.get(reason, [])[:5 - len(examples[reason])]
    odd = [line for r in results for line in r.odd_chip]
    root = folder.label
    summaries, summaries_manifest = check_summaries(
        summary_files, table, exponent, name_hash(name_key) if name_key is not None else str)
    if not imported:  # nothing to write: the folder is left as it was
        return PhhImport(str(root), len(files), submitted, 0, dict(sorted(skipped.items())),
                         examples, tables, money, time.perf_counter() - t0, odd, [],
                         summaries=summaries if summary_files else {})
    if folder.exists():
        for old in [*folder.batch_relpaths(), *stale]:
            folder.delete(old)
    records = _write_batches(folder, table, run_id)
    lab = {r.path: lab_venue(r.path, venues) for r in results}
    per_file = [{"path": r.path, "sha256": r.sha256, "format": r.format,
                 "submitted": r.submitted, "imported": r.imported, "skipped": r.skipped,
                 **({"venue": lab[r.path]} if lab[r.path] else {}),
                 **({"judged_as": judged_as[r.path]} if r.path in judged_as else {})}
                for r in results]
    report = {"import_version": IMPORT_VERSION, "submitted": submitted, "imported": imported,
              "skipped": dict(sorted(skipped.items())), "files": per_file,
              "examples": examples, "tables": tables, "money": money,
              "rake_schedule": rake_manifest, "replay_differs": len(odd),
              # PHH hands whose own fields say tournament, judged as cash (no --source-format)
              "tournament_fields_judged_as_cash": as_cash,
              # the operator's tournament summaries: read, checked (cluster.flows.summary_checks)
              **({"summaries": summaries} if summary_files else {}),
              **({"game": game_manifest} if game is not None else {})}
    if imported:  # the manifest last: a folder without it is no run
        text = json.dumps(report, indent=1)
        folder.write(IMPORT_FILE, text)
        manifest = {
            "format": MANIFEST_FORMAT, "manifest_version": MANIFEST_VERSION, "source": "import",
            "import_version": IMPORT_VERSION, "run_id": run_id, "fingerprint": run_id,
            "spec": None, "structures": sorted({f["structure"] for f in records}),
            "hands": imported, "submitted": submitted, "skipped": dict(sorted(skipped.items())),
            "sources": [{"path": r.path, "sha256": r.sha256, "format": r.format,
                         "sections": r.submitted, "rows": r.imported,
                         **({"venue": lab[r.path]} if lab[r.path] else {}),
                         **({"judged_as": judged_as[r.path]} if r.path in judged_as else {})}
                        for r in results],
            "files": records, "tables": tables, "money": money, "rake_schedule": rake_manifest,
            **({"game": game_manifest} if game is not None else {}),
            **({"summaries": summaries_manifest} if summary_files else {}),
            "import_file": {"path": IMPORT_FILE, "sha256": sha256_bytes(text.encode())},
            "inject": None, "schema_version": SCHEMA_VERSION, "digest_version": DIGEST_VERSION,
            # the code whose engine gave the rules' results (won, stacks_end, pots): stated
            "engine_version": engine_version(), "git_commit": git_commit(),
            "provenance": provenance(), "created": created, "finished": manifest_now(),
            "player_names": "as recorded" if name_key is None else (
                "hmac-sha256, key " + hashlib.sha256(name_key).hexdigest()[:16]),
        }
        folder.write_manifest(manifest)
    return PhhImport(str(root), len(files), submitted, imported, dict(sorted(skipped.items())),
                     examples, tables, money, time.perf_counter() - t0, odd, stale, as_cash,
                     as_cash_files, summaries if summary_files else {})


def _groups(table: pa.Table) -> Iterator[tuple[str, pa.Table]]:
    """(structure label, rows) per batch file: one structure and table size each, whole
    sessions of at most about BATCH_ROWS rows, in session order."""
    struct = table.column("structure").to_pylist()
    seats = table.column("n_seats").to_pylist()
    tid = table.column("table_id").to_pylist()
    by: dict[tuple[str, int], list[int]] = {}
    for i, key in enumerate(zip(struct, seats, strict=True)):
        by.setdefault(key, []).append(i)
    for (label, _k), rows in sorted(by.items()):
        chunk: list[int] = []
        for j, i in enumerate(rows):
            chunk.append(i)
            last = j + 1 == len(rows)
            if last or (len(chunk) >= BATCH_ROWS and tid[rows[j + 1]] != tid[i]):
                yield label, table.take(pa.array(chunk, pa.int64()))
                chunk = []


def _write_batches(folder: RunFolder, table: pa.Table, run_id: str) -> list[dict[str, Any]]:
    records = []
    batch_of: dict[str, int] = {}
    hand_id = 0
    for label, part in _groups(table):
        part = part.set_column(part.schema.get_field_index("hand_id"),
                               part.schema.field("hand_id"),
                               pa.array(np.arange(hand_id, hand_id + part.num_rows,
                                                  dtype=np.int64)))
        hand_id += part.num_rows
        part = as_written(with_digests(part))
        b = batch_of.get(label, 0)
        batch_of[label] = b + 1
        rel = batch_relpath(label, b)
        data = encode_rows(part)
        folder.write(rel, data)
        records.append({"path": rel, "structure": label, "batch": b, "hands": part.num_rows,
                        "rows": part.num_rows, "bytes": len(data), "sha256": sha256_bytes(data)})
    return records


def _replaceable(folder: RunFolder) -> list[str]:
    """An output folder an import may write: new, empty, or a previous import (its batch files
    are replaced; returns its import.json, audit and report files, stale once they are).
    Anything else, a simulated or shuffle run above all, is refused (RunFolderError) before a
    byte is touched."""
    if not folder.exists():
        return []
    listing = folder.listing()
    folder.check_layout(listing)
    manifest = folder.read_manifest()
    kind = manifest.get("format") if manifest is not None else None
    if (manifest is not None and kind not in (MANIFEST_FORMAT, OLD_FORMAT)) or (
            manifest is None and folder.batch_relpaths(listing)):
        what = f"a {kind} run" if kind else "batch files without a manifest"
        raise RunFolderError(f"run folder {folder.label}: holds {what}, not an import; "
                             "import into a new folder (nothing was changed)")
    if SIGNATURE_FILE in listing:  # a signed certificate is never removed by an import
        raise RunFolderError(f"run folder {folder.label}: holds a signed certificate "
                             f"({SIGNATURE_FILE}); import into a new folder (nothing was changed)")
    return [rel for rel in listing if (rel in PRODUCTS)
            and rel != MANIFEST]


__all__ += ["RakeError", "counts_in_words"]
