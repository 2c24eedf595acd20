"""Reproduction: re-simulate a run's batches from its spec and compare them with the folder's
files, byte for byte. ``holdem certify`` and ``holdem verify`` do it by default for a run of the
reproducible generator (``--no-reproduce`` skips it; ``holdem verify --reproduce N`` samples N
batch files, drawn from the operating system's entropy so that no one can know beforehand which
files will be checked, and names them).

The audits check the engine against primary facts without running it; they cannot tell where a
hand sits in the run's table plan, nor what configuration the spec gave it (a hand moved to a
made-up table, raked 100% or played with other blinds audits clean when every column agrees). A
run made with the reproducible generator is a pure function of its spec: a batch simulated again
(``cluster.flows.simulate.simulated_batch``) gives back the file's exact bytes. So each planned
batch
(``RunSpec.plan``: what the spec plays, never the manifest's list of files) is re-simulated and
the sha256 of its bytes compared with the file's; only when they differ are the rows read, to
name the first hand whose content (``sim.digest``, computed here from the columns, never read
from the stored ``digest``) is not what the spec plays, or to say that the hands agree and the
file's schema, metadata or encoding does not. This trusts the engine to reproduce the run; the
audits are what check the engine.

The batches are fanned out (``cluster.fanout``: Ray tasks, or this process with ``workers=0``).
``holdem certify`` does it by default in the audit's read instead, with no second encode
(``cluster.flows.reproduce_values``; ``--reproduce bytes`` is this module's way).
"""

from __future__ import annotations

import hashlib
import json
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from audits.io import AuditInputError, load_manifest
from audits.runfolder import MANIFEST, RunFolder, RunFolderError, batch_relpath, storage
from audits.runfolder.errors import InputError

# the statuses a certificate's ``reproduction`` can carry
REPRODUCED = "REPRODUCED"  # every planned batch re-simulated to the file's bytes
DIFFERS = "DIFFERS"  # a batch is not what the spec plays (named): the certificate FAILs
NOT_RUN = "NOT RUN"  # a reproducible run that was not re-simulated (a limitation)
NOT_REPRODUCIBLE = "NOT REPRODUCIBLE"  # os-chacha20, imported hands: nothing to re-simulate
STATUSES = (REPRODUCED, DIFFERS, NOT_RUN, NOT_REPRODUCIBLE)  # reports.render's, in order


# a Ray start costs more than simulating this many batches: below it, without --workers and
# without a Ray to join, the work runs in this process
IN_PROCESS_TASKS = 2


def effective_workers(tasks: int, workers: int | None, address: str | None) -> int | None:
    """``workers``, or 0 (this process) for a handful of tasks when no Ray is given or running."""
    import os

    if workers is not None or tasks > IN_PROCESS_TASKS or address or os.environ.get(
            "RAY_ADDRESS"):
        return workers
    import ray

    return None if ray.is_initialized() else 0


class ReproduceInputError(InputError):
    """The run cannot be re-simulated (not a simulated run, no spec, not reproducible)."""


@dataclass
class Reproduced:
    ok: bool
    message: str
    batches: int = 0  # batch files re-simulated and matched
    hands: int = 0
    planned: int = 0  # batch files the spec plans
    path: str | None = None  # the first batch file that differs
    hand_id: int | None = None  # its first hand that differs (None: the hands agree, or none)
    seconds: float = 0.0  # wall time of the re-simulation
    sampled: list[str] | None = None  # a sample's batch files (None: every planned batch)
    of: str = "spec"  # "sources": an imported run re-imported from its source files

    @property
    def status(self) -> str:
        return REPRODUCED if self.ok else DIFFERS

    def record(self) -> dict[str, Any]:
        """The certificate's ``reproduction`` entry."""
        text = self.message.removeprefix(f"{REPRODUCED}: ")
        return {"status": self.status, "text": text, "batches": self.batches,
                "planned": self.planned, "hands": self.hands, "path": self.path,
                "hand_id": self.hand_id, "seconds": round(self.seconds, 2),
                **({"of": self.of} if self.of != "spec" else {})}


def not_run(text: str, status: str = NOT_RUN, of: str = "spec") -> dict[str, Any]:
    """A ``reproduction`` entry for a run that was not re-simulated (``of="sources"``: an
    import not re-imported), and why."""
    return {"status": status, "text": text, "batches": 0, "planned": None, "hands": 0,
            "path": None, "hand_id": None, **({"of": of} if of != "spec" else {})}


def spec_of(manifest: dict[str, Any], where: str) -> Any:
    """The ``RunSpec`` of a simulate manifest (its fingerprint checked); ReproduceInputError
    when there is none or it is not reproducible."""
    from sim.runspec import RunSpec

    if manifest.get("format") != "holdem-simulate-run" or not isinstance(manifest.get("spec"),
                                                                          dict):
        raise ReproduceInputError(f"{where}: not a holdem simulate run (no spec to re-simulate "
                                  "from)")
    try:
        spec = RunSpec.from_dict(manifest["spec"])
    except (TypeError, ValueError, KeyError, AttributeError) as e:
        raise ReproduceInputError(f"{where}: spec is not a run config of this holdem ({e})"
                                  ) from None
    if spec.fingerprint() != manifest.get("fingerprint"):
        raise ReproduceInputError(f"{where}: spec does not hash to the manifest's fingerprint "
                                  f"{manifest.get('fingerprint')}")
    if not spec.reproducible:
        raise ReproduceInputError(f"{where}: generator {spec.generator} is not reproducible: its "
                                  "decks came from the operating system's entropy")
    return spec


def _compare_rows(stored_bytes: bytes, again_bytes: bytes, cols: list[str], reading: str
                  ) -> tuple[str | None, Any, Any, int | None]:
    """A stored batch file against the one made again, hand by hand over ``cols`` (row
    digests): (why the stored file cannot be compared, else None; both tables; the first row
    whose content differs, None when the rows both hold agree). ``reading``: what its hands
    are read as, for the message."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from sim.digest import hand_digests

    again = pq.read_table(pa.BufferReader(again_bytes))
    try:
        stored = pq.read_table(pa.BufferReader(stored_bytes))
    except (pa.ArrowException, OSError, ValueError) as e:
        return f"not a readable Parquet file ({str(e).splitlines()[0]})", None, again, None
    missing = [c for c in again.schema.names if c not in stored.schema.names]
    if missing:
        return f"column {missing[0]} is missing", stored, again, None
    n = min(stored.num_rows, again.num_rows)
    try:
        a = hand_digests(stored.slice(0, n).select(cols), cols)
    except (pa.ArrowException, ValueError, TypeError, KeyError) as e:
        return (f"its hands cannot be read as {reading} ({str(e).splitlines()[0]})", stored,
                again, None)
    b = hand_digests(again.slice(0, n).select(cols), cols)
    differ = np.flatnonzero(a != b)
    return None, stored, again, int(differ[0]) if differ.size else None


def _first_difference(stored_bytes: bytes, again_bytes: bytes) -> tuple[str, int | None]:
    """Why two batch files differ: the first hand whose content differs (its hand_id), else the
    rows or the file's form (schema, metadata, encoding, statistics)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from sim.digest import content_columns

    cols = content_columns(pq.read_schema(pa.BufferReader(again_bytes)).names)
    problem, stored, again, i = _compare_rows(stored_bytes, again_bytes, cols, "the spec's")
    if problem is not None:
        return problem, None
    if i is not None:
        hid = again.column("hand_id")[i].as_py()
        return (f"hand {hid} is not what the spec plays (re-simulated from the seed, it "
                "differs)"), int(hid)
    n = min(stored.num_rows, again.num_rows)
    if stored.num_rows != again.num_rows:
        return (f"{stored.num_rows:,} hands logged, the spec plays {again.num_rows:,}",
                None if stored.num_rows > n else int(again.column("hand_id")[n].as_py()))
    return ("its bytes differ from the re-simulated file's though every hand's content matches "
            "(the file's schema, metadata, encoding or footer statistics are not what holdem "
            "simulate writes)"), None


def reproduce_batch(spec: Any, structure: str, batch: int, path: str,
                    version: int | None = None) -> dict[str, Any]:
    """One planned batch re-simulated in the log schema ``version`` (the run's) and compared
    with the file at ``path`` (the body of a Ray task): ``{"rel", "ok", "hands", "why",
    "hand_id"}``."""
    from cluster.flows.simulate import simulated_batch
    from sim.config import Structure

    st = Structure.parse(structure)
    rel = batch_relpath(st.label, batch)
    data, hands, _ = simulated_batch(spec, st, batch, version)
    again = data.to_pybytes()
    try:
        stored = storage.read_bytes(path) if storage.is_file(path) else None
    except (OSError, storage.StorageError) as e:
        return {"rel": rel, "ok": False, "hands": 0, "hand_id": None,
                "why": f"cannot be read ({str(e).splitlines()[0] if str(e) else e})"}
    if stored is None:
        return {"rel": rel, "ok": False, "hands": 0, "hand_id": None,
                "why": "missing (the spec plays this batch)"}
    if stored == again:  # byte for byte (no hash of either: both are in memory)
        return {"rel": rel, "ok": True, "hands": hands, "hand_id": None, "why": None}
    why, hid = _first_difference(stored, again)
    return {"rel": rel, "ok": False, "hands": 0, "hand_id": hid, "why": why}


def reproduce_spec(spec: Any, run: str, batches: int | None = None, *,
                   rng: random.Random | None = None,
                   workers: int | None = 0, address: str | None = None,
                   only: set[str] | None = None,
                   on_batch: Callable[[str, int], None] | None = None,
                   version: int | None = None) -> Reproduced:
    """Re-simulate the batches ``spec`` plans (all; a sample of ``batches`` drawn with ``rng``,
    by default ``secrets.SystemRandom``: unpredictable, so a forger cannot know which files are
    checked; or those whose path is in ``only``) and compare each with the run folder's
    file of that name, byte for byte; the first that differs is named (its first differing
    hand when the hands differ). ``workers=0`` in this process, else Ray tasks
    (``cluster.ray_runtime.ray_session``; ``effective_workers``: a handful of batches without
    a Ray to join run in this process). ``version``: the run's log schema version (its
    manifest's ``schema_version``; default ``sim.schema.SCHEMA_VERSION``)."""
    import contextlib

    from cluster.fanout import fan_out
    from cluster.ray_runtime import in_flight_window, ray_session
    from sim.pybots import BotError

    root = storage.as_location(run)
    folder = RunFolder.open(root)
    plan = [(s.label, b) for s, b in spec.plan()]
    sampled: list[str] | None = None
    if only is not None:
        plan = [(s, b) for s, b in plan if batch_relpath(s, b) in only]
    elif batches is not None and batches < len(plan):
        picked = set((rng or secrets.SystemRandom()).sample(plan, max(1, batches)))
        plan = [p for p in plan if p in picked]  # in plan order
        sampled = [batch_relpath(s, b) for s, b in plan]
    calls = [(spec, s, b, str(folder.location(batch_relpath(s, b))), version) for s, b in plan]
    done = hands = 0
    t0 = time.perf_counter()
    workers = effective_workers(len(calls), workers, address)
    with (contextlib.nullcontext() if workers == 0 or not calls
          else ray_session(address, workers)) as session:
        results = fan_out(reproduce_batch, calls, session=session,
                          window=None if session is None else in_flight_window(session, workers),
                          name=lambda call: f"the reproduction of {call[3]}", label="batch",
                          passthrough=(BotError,))  # a Python bot not playable here: one line
        try:
            for r in results:
                if not r["ok"]:
                    return Reproduced(False, f"{r['rel']}: {r['why']}{_named(sampled)}", done,
                                      hands, len(spec.plan()), r["rel"], r["hand_id"],
                                      time.perf_counter() - t0, sampled)
                done += 1
                hands += r["hands"]
                if on_batch:
                    on_batch(r["rel"], r["hands"])
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                close()
    total = len(spec.plan())
    return Reproduced(True, f"REPRODUCED: {done} of {total} batch files ({hands:,} hands) "
                            f"re-simulated from the spec match byte for byte{_named(sampled)}",
                      done, hands, total, seconds=time.perf_counter() - t0, sampled=sampled)


def _named(sampled: list[str] | None) -> str:
    """The files of a sample, named (nothing for a full reproduction)."""
    if sampled is None:
        return ""
    return f" (sampled at random from the OS entropy: {', '.join(sampled)})"


def _open_run(run: str) -> tuple[RunFolder, dict[str, Any] | None]:
    """A received run folder (its layout checked) and its manifest (None when absent);
    ReproduceInputError when unreadable."""
    root = storage.as_location(run)
    try:
        folder = RunFolder.open(root)
        folder.check_layout()
        return folder, load_manifest(root)
    except (AuditInputError, RunFolderError) as e:
        raise ReproduceInputError(str(e)) from None


def reproduce_run(run: str, batches: int | None = None, *, rng: random.Random | None = None,
                  workers: int | None = 0, address: str | None = None,
                  on_batch: Callable[[str, int], None] | None = None) -> Reproduced:
    """Re-simulate a received run from the spec its manifest carries (``reproduce_spec``).
    ReproduceInputError when it cannot be (no manifest or spec, not reproducible)."""
    folder, manifest = _open_run(run)
    where = str(folder.location(MANIFEST))
    if manifest is None:
        raise ReproduceInputError(f"{where}: missing (nothing to re-simulate from)")
    spec = spec_of(manifest, where)
    return reproduce_spec(spec, run, batches, rng=rng, workers=workers,
                          address=address, on_batch=on_batch, version=log_version(manifest))


def log_version(manifest: dict[str, Any]) -> int | None:
    """The log schema version a run's files are re-simulated in: its manifest's
    ``schema_version`` when the simulator writes it, else None (the default)."""
    from sim.schema import LOG_VERSIONS

    v = manifest.get("schema_version")
    return v if isinstance(v, int) and v in LOG_VERSIONS else None


# ---------------------------------------------------------------- an import: re-import


class NotReproducible(ReproduceInputError):
    """An imported run that cannot be re-imported here (a source absent or not the one the
    manifest lists, the name key absent): NOT REPRODUCIBLE, with the reason."""


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """The first path (``run.files[3].sha256``) where two JSON values differ, or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}".lstrip(".")
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d.lstrip(".")
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None if len(a) == len(b) else f"{path} (length {len(a)} vs {len(b)})"
    same = json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    return None if same else path.lstrip(".")


def _import_manifest(run: str) -> tuple[RunFolder, dict[str, Any]]:
    from audits.runspec import IMPORT_FORMATS

    folder, manifest = _open_run(run)
    if manifest is None or manifest.get("format") not in IMPORT_FORMATS:
        raise ReproduceInputError(f"{folder.location(MANIFEST)}: not an imported run")
    return folder, manifest


def run_id_difference(manifest: dict[str, Any]) -> str | None:
    """Why an import manifest's run_id is not the digest of the sources it lists (None: it
    is)."""
    sources = manifest.get("sources")
    if sources is None or sources == []:
        return None  # nothing to check it against: NOT REPRODUCIBLE (``reproduce_import``)
    if not isinstance(sources, list) or not all(
            isinstance(s, dict) and isinstance(s.get("path"), str)
            and isinstance(s.get("sha256"), str) for s in sources):
        return "manifest.json: field sources: expected the imported files with path and sha256"
    from cluster.flows.import_histories import import_run_id

    want = import_run_id(sources)
    if manifest.get("run_id") != want:
        return (f"manifest.json: run_id {manifest.get('run_id')} is not the digest of the "
                f"sources it lists ({want}): the log is not the import of those files")
    return None


MAX_SOURCE_BYTES = 1 << 34  # 16 GiB: a source file above it is never read by a re-import
NEVER_READ = ("/proc", "/sys", "/dev")  # the lab's machine never reads a source there


class SourceChanged(NotReproducible):
    """A source the manifest lists is present where the lab allows reading it, with another
    sha256: the log is not bound to it (``verify`` exits 1)."""


def _inside(real: str, root: str) -> bool:
    return real == root or real.startswith(root.rstrip("/") + "/")


def _readable_source(path: str, roots: list[str]) -> str | None:
    """Why the lab's machine does not read ``path`` as a source (None: it may). Only a local
    regular file, links resolved, inside one of ``roots`` (the run folder, ``--sources DIR``,
    the paths the lab gave this command), never under /proc, /sys or /dev, at most
    ``MAX_SOURCE_BYTES``; never opened before all of that holds (a FIFO or a device never
    blocks the reader)."""
    import os
    import stat

    if storage.is_uri(path) and not str(path).startswith("file://"):
        return "a URI the lab did not name" if path not in roots else None
    local = storage.split(path)[1] if storage.is_uri(path) else path
    real = os.path.realpath(local)
    if any(_inside(real, d) for d in NEVER_READ):
        return "a system path (/proc, /sys, /dev)"
    if not any(_inside(real, os.path.realpath(r)) for r in roots if not storage.is_uri(r)):
        return "outside the run folder and --sources"
    try:
        st = os.stat(real)
    except OSError:
        return "absent"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if st.st_size > MAX_SOURCE_BYTES:
        return f"over {MAX_SOURCE_BYTES:,} bytes"
    return None


def _sha256_index(folder: str) -> dict[str, str]:
    """sha256 -> a file of that content under a local folder (recursively): regular files only,
    links never followed, none over ``MAX_SOURCE_BYTES``, never under /proc, /sys or /dev."""
    import os
    import stat
    from pathlib import Path

    out: dict[str, str] = {}
    base = Path(folder)
    if not base.is_dir():
        raise ReproduceInputError(f"--sources {folder}: no such folder")
    real = os.path.realpath(folder)
    if any(_inside(real, d) for d in NEVER_READ):
        raise ReproduceInputError(f"--sources {folder}: a system folder (/proc, /sys, /dev)")
    for top, dirs, names in os.walk(real):
        dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(top, d)))
        for name in sorted(names):
            p = os.path.join(top, name)
            st = os.lstat(p)
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_SOURCE_BYTES:
                continue
            h = hashlib.sha256()
            with open(p, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
            out.setdefault(h.hexdigest(), p)
    return out


def _same_name(path: str, sources: str, roots: list[str]) -> str | None:
    """The sha256 of the file under ``sources`` at the source's recorded relative path, else of
    its name (None: no such readable file)."""
    import os

    name = str(path).rstrip("/").rsplit("/", 1)[-1]
    rel = str(path) if not os.path.isabs(str(path)) and not storage.is_uri(path) else name
    for cand in dict.fromkeys((os.path.join(sources, rel), os.path.join(sources, name))):
        if _readable_source(cand, roots) is None:
            try:
                return storage.file_sha256(cand)[0]
            except (OSError, storage.StorageError):
                return None
    return None


def locate_sources(manifest: dict[str, Any], sources: str | None = None, *,
                   run: str | None = None, named: tuple[str, ...] = ()) -> dict[str, str]:
    """Each source the manifest lists -> where its bytes are: at its recorded path when the lab
    allows reading it there (``_readable_source``: under the run folder ``run``, under
    ``sources`` or one of the paths ``named`` on this command's line; a manifest never chooses
    what the lab's machine reads) and the file there has the recorded sha256, else a file of
    that sha256 under ``sources`` (a local folder). NotReproducible naming the first source that
    is absent or not read (SourceChanged: present with another sha256). No hash of a file
    outside those folders is ever taken or printed."""
    listed = manifest["sources"]
    roots = [r for r in (run, sources, *named) if r]
    index: dict[str, str] | None = None
    found: dict[str, str] = {}
    problems: list[tuple[str, bool]] = []
    for s in listed:
        path, sha = s["path"], s["sha256"]
        there: str | None = None
        refused = _readable_source(path, roots)
        if refused is None:
            try:
                there = storage.file_sha256(path)[0]
            except (OSError, storage.StorageError):
                there = None
        if there == sha:
            found[path] = path
            continue
        if sources is not None:
            if index is None:
                index = _sha256_index(sources)
            if sha in index:
                found[path] = index[sha]
                continue
            if there is None:  # the file of its name under DIR: the lab named it, it differs
                there = _same_name(path, sources, roots)
        where = f" nor under {sources}" if sources is not None else ""
        if there is None and refused not in (None, "absent"):
            problems.append((f"source {path}: not read ({refused}: the lab's machine reads "
                             "only the run folder, --sources DIR and the paths given it), and "
                             f"no file{where.replace(' nor', '')} has its sha256 {sha[:16]}... "
                             "(give --sources DIR)", False))
            continue
        problems.append((
            f"source {path}: absent (no file at its recorded path{where} has its sha256 "
            f"{sha[:16]}...)" if there is None else
            f"source {path}: its sha256 is {there[:16]}..., the manifest lists {sha[:16]}... "
            f"(edited since the import, or not the file imported{where and ', and none'}"
            f"{where})", there is not None))
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        changed = [text for text, was_changed in problems if was_changed]
        if changed:
            raise SourceChanged(changed[0] + more)
        raise NotReproducible(problems[0][0] + more)
    return found


def _game_of(manifest: dict[str, Any], rake: Any) -> Any:
    """The game file's schedule the import was given (``--game``), rebuilt from the manifest's
    ``game`` and rake schedule (None: none)."""
    from cluster.flows.game_import import ImportGame

    game = manifest.get("game")
    if game is None:
        return None
    exponent = int((manifest.get("money") or {}).get("exponent", 0))
    try:
        if rake is None:
            raise ValueError("a game without its rake schedule")
        out = ImportGame.from_manifest(game, exponent, rake)
        ok = out.to_manifest(exponent) == game
    except (TypeError, ValueError, KeyError, AttributeError):
        ok = False
    if not ok:
        raise ReproduceInputError("manifest.json: field game: not a game holdem import writes")
    return out


def _rake_of(manifest: dict[str, Any]) -> Any:
    """The RakeSchedule the import was given, rebuilt from the manifest (None: none)."""
    from cluster.flows.rake import RakeError, RakeSchedule

    sched = manifest.get("rake_schedule")
    if sched is None:
        return None
    exponent = (manifest.get("money") or {}).get("exponent", 0)
    try:
        rake = RakeSchedule.from_manifest(sched, int(exponent))
        ok = rake.to_manifest(int(exponent)) == sched
    except (RakeError, TypeError, ValueError, KeyError, AttributeError):
        ok = False
    if not ok:
        raise ReproduceInputError("manifest.json: field rake_schedule: not a schedule holdem "
                                  "import writes")
    return rake


def _name_key_check(manifest: dict[str, Any], name_key: bytes | None) -> None:
    said = str(manifest.get("player_names") or "as recorded")
    if said == "as recorded":
        return
    if name_key is None:
        raise NotReproducible(f"the player names were stored as their keyed hash ({said}): "
                              "re-importing needs that key (--hash-names KEYFILE)")
    given = hashlib.sha256(name_key).hexdigest()[:16]
    if given not in said:
        raise NotReproducible(f"the key given (--hash-names, key {given}) is not the one the "
                              f"player names were hashed with ({said})")


def _translate(value: Any, paths: dict[str, str]) -> Any:
    """A JSON value with each staged source path replaced by the path the manifest records."""
    if isinstance(value, dict):
        return {k: _translate(v, paths) for k, v in value.items()}
    if isinstance(value, list):
        return [_translate(v, paths) for v in value]
    if isinstance(value, str):
        for staged, recorded in paths.items():
            value = value.replace(staged, recorded)
    return value


def _restage_table(data: bytes, paths: dict[str, str], run_id: str) -> bytes:
    """A re-imported batch file with the staged source paths and run_id made the recorded ones
    (digests recomputed; encoded as holdem import writes it)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from cluster.flows.import_histories import as_written, encode_rows
    from sim.digest import with_digests
    from sim.logv4 import as_v3

    t = pq.read_table(pa.BufferReader(data)).drop(["digest"])
    version = 4 if (t.schema.metadata or {}).get(b"holdem.schema_version") == b"4" else 3
    t = as_v3(t)
    src = [paths.get(x, x) for x in t.column("source_file").to_pylist()]
    i = t.schema.get_field_index("source_file")
    t = t.set_column(i, t.schema.field(i), pa.array(src, pa.string()))
    t = t.set_column(0, t.schema.field(0), pa.array([run_id] * t.num_rows, pa.string()))
    return encode_rows(as_written(with_digests(t), version))


def _first_row_difference(stored: bytes, again: bytes) -> tuple[str, int | None]:
    """The first hand of a batch file that is not what re-importing gives, named by its
    hand_id, site hand number, source file and section."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = [c for c in pq.read_schema(pa.BufferReader(again)).names if c != "digest"]
    problem, a, b, i = _compare_rows(stored, again, cols, "an import's")
    if problem is not None:
        return problem, None
    if i is not None:
        row = {c: b.column(c)[i].as_py() for c in ("hand_id", "site_hand", "source_file",
                                                    "source_section")}
        diff = next((c for c in cols if a.column(c)[i].as_py() != b.column(c)[i].as_py()), "?")
        return (f"hand {row['hand_id']} (site hand {row['site_hand'] or '?'}, "
                f"{row['source_file']} section {row['source_section']}) is not what re-importing "
                f"the source gives (column {diff} differs)"), int(row["hand_id"])
    if a.num_rows != b.num_rows:
        return f"{a.num_rows:,} hands logged, re-importing the sources gives {b.num_rows:,}", None
    return ("its bytes differ from the re-imported file's though every hand's columns match "
            "(the file's digests, metadata or encoding are not what holdem import writes)"), None


# the manifest's fields re-importing must give again (batch files' bytes, import.json apart)
IMPORT_FIELDS = ("run_id", "structures", "hands", "submitted", "skipped", "sources", "tables",
                 "summaries",
                 "money", "rake_schedule", "game", "player_names", "import_version",
                 "schema_version", "digest_version")


def _glob_escape(path: str) -> str:
    """``path`` as a glob that matches itself only."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in path)


def _engine_note(manifest: dict[str, Any]) -> str:
    """Why a re-import may differ besides the log: another engine than the import's."""
    from cluster.flows.manifest import engine_version

    then, now = manifest.get("engine_version"), engine_version()
    return "" if then == now else (f" (imported by engine {then}, re-imported by {now}: the "
                                   "rules' columns may differ for that reason)")


def reproduce_import(run: str, *, sources: str | None = None, name_key: bytes | None = None,
                     workers: int | None = None, address: str | None = None,
                     named: tuple[str, ...] = ()) -> Reproduced:
    """Re-import an imported run from the source files its manifest lists (at their recorded
    paths, or found by sha256 under ``sources``) with its recorded options (rake schedule, name
    key) into a temporary folder (``cluster.flows.import_histories.import_phh``, the one import)
    and compare
    every batch file byte for byte, import.json and the manifest's import fields with the run's:
    the first that differs is named (a batch file's first differing hand). The run_id is
    checked against the sources first. Raises NotReproducible (sources absent or changed, the
    name key absent) and ReproduceInputError (not an import)."""
    rep = _reproduce_import(run, sources, name_key, workers, address, named)
    rep.of = "sources"
    if not rep.ok and rep.path != MANIFEST:
        _, manifest = _import_manifest(run)
        rep.message += _engine_note(manifest)
    return rep


def _reproduce_import(run: str, sources: str | None, name_key: bytes | None,
                      workers: int | None, address: str | None,
                      named: tuple[str, ...] = ()) -> Reproduced:
    import json
    import shutil
    import tempfile
    from pathlib import Path

    from cluster.flows.import_histories import IMPORT_FILE, import_phh

    t0 = time.perf_counter()
    folder, manifest = _import_manifest(run)
    why = run_id_difference(manifest)
    files = [f for f in manifest.get("files") or [] if isinstance(f, dict)]
    if why:
        return Reproduced(False, why, 0, 0, len(files), MANIFEST, None,
                          time.perf_counter() - t0)
    from cluster.flows.import_histories import MANIFEST_FORMAT

    if manifest.get("format") != MANIFEST_FORMAT:
        raise NotReproducible(f"an import of an earlier holdem ({manifest.get('format')}): "
                              "import its sources again to bind the log to them")
    if not manifest.get("sources"):
        raise NotReproducible("the manifest lists no source files (not as holdem import "
                              "writes it): nothing to re-import")
    _name_key_check(manifest, name_key)
    rake = _rake_of(manifest)
    game = _game_of(manifest, rake)
    if game is not None:
        rake = None  # the game's [rake] is the schedule
    found = locate_sources(manifest, sources, run=run, named=named)
    recorded = [s["path"] for s in manifest["sources"]]
    moved = sum(found[p] != p for p in recorded)
    tmp = Path(tempfile.mkdtemp(prefix="holdem-reimport-"))
    try:
        staged: dict[str, str] = {}
        if moved:  # every source under a name that sorts as its recorded path does
            for rank, p in enumerate(sorted(recorded)):
                name = Path(p.rstrip("/")).name or "source"
                dst = tmp / "sources" / f"{rank:06d}" / name
                dst.parent.mkdir(parents=True)
                dst.write_bytes(storage.read_bytes(found[p]))
                staged[str(dst)] = p
            paths = [next(k for k, v in staged.items() if v == p) for p in recorded]
        else:
            paths = recorded
        out = tmp / "run"
        try:
            # the lab's venue of each source, as recorded (its path as given now)
            venues = [(_glob_escape(path), str(s["venue"])) for path, s in zip(
                paths, manifest["sources"], strict=True) if isinstance(s, dict) and s.get("venue")]
            # the lab's format of each PHH source (--source-format), as recorded
            formats = [(_glob_escape(path), str(s["judged_as"])) for path, s in zip(
                paths, manifest["sources"], strict=True)
                if isinstance(s, dict) and s.get("judged_as") == "tournament"]
            import_phh(paths, str(out), rake=rake, workers=workers, address=address,
                       progress=False, name_key=name_key, game=game, venues=venues or None,
                       formats=formats or None)
        except (OSError, storage.StorageError) as e:  # a source gone since it was found
            raise NotReproducible(f"the sources cannot be read again ({e})") from None
        except (RunFolderError, ValueError) as e:
            raise ReproduceInputError(f"the sources cannot be imported again ({e})") from None
        again = RunFolder.open(storage.as_location(str(out)))
        mine = again.read_manifest() or {}
        if staged:
            mine = {**_translate(mine, staged), "run_id": manifest.get("run_id")}
        by_rel = {f.get("path"): f for f in mine.get("files") or []}
        done = hands = 0
        for rec in files:
            rel = str(rec.get("path"))
            if rel not in by_rel:
                return Reproduced(False, f"{rel}: re-importing the sources gives no such batch "
                                  "file", done, hands, len(files), rel, None,
                                  time.perf_counter() - t0)
            data = again.read_bytes(rel)
            if staged:
                data = _restage_table(data, staged, str(manifest.get("run_id")))
            try:
                stored = folder.read_bytes(rel)
            except (OSError, storage.StorageError, RunFolderError) as e:
                return Reproduced(False, f"{rel}: cannot be read ({e})", done, hands, len(files),
                                  rel, None, time.perf_counter() - t0)
            if stored != data:
                text, hid = _first_row_difference(stored, data)
                return Reproduced(False, f"{rel}: {text}", done, hands, len(files), rel, hid,
                                  time.perf_counter() - t0)
            done += 1
            hands += int(by_rel[rel].get("rows") or 0)
        extra = sorted(set(by_rel) - {str(f.get("path")) for f in files})
        if extra:
            return Reproduced(False, f"{extra[0]}: re-importing the sources gives this batch "
                              "file, the run has none", done, hands, len(files), extra[0], None,
                              time.perf_counter() - t0)
        for key in IMPORT_FIELDS:
            if json.dumps(mine.get(key), sort_keys=True) != json.dumps(manifest.get(key),
                                                                       sort_keys=True):
                return Reproduced(False, f"manifest.json: field {key} is not what re-importing "
                                  "the sources gives", done, hands, len(files), MANIFEST, None,
                                  time.perf_counter() - t0)
        rec_again = json.loads(again.read_bytes(IMPORT_FILE))
        if staged:
            rec_again = _translate(rec_again, staged)
        try:
            stored_rec = json.loads(folder.read_bytes(IMPORT_FILE))
        except (OSError, ValueError, storage.StorageError, RunFolderError) as e:
            return Reproduced(False, f"{IMPORT_FILE}: cannot be read ({e})", done, hands,
                              len(files), IMPORT_FILE, None, time.perf_counter() - t0)
        where = first_difference(stored_rec, rec_again)
        if where is not None:
            return Reproduced(False, f"{IMPORT_FILE}: field {where} is not what re-importing "
                              "the sources gives", done, hands, len(files), IMPORT_FILE, None,
                              time.perf_counter() - t0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    n = len(recorded)
    how = (f", {moved} of them found by sha256 under {sources}" if moved else
           " at their recorded paths")
    return Reproduced(True, f"REPRODUCED: re-imported from the {n} source file(s) the manifest "
                            f"lists (sha256 matched{how}): {done} of {len(files)} batch files "
                            f"({hands:,} hands), import.json and the manifest match",
                      done, hands, len(files), seconds=time.perf_counter() - t0)
