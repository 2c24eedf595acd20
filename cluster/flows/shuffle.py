"""``holdem shuffle``: certify the shuffler alone on up to billions of decks.

A run folder (a local path or a URI, as for ``holdem simulate``)::

    RUN/manifest.json                         format "holdem-shuffle-run": spec, files, timings
    RUN/log/decks/batch-<index:05d>.parquet   the deck-only log (``--keep-decks true``):
                                              hand_id int64, deck fixed_size_binary(52)
    RUN/certificate.json, RUN/report.html  the shuffle certificate (reports.shuffle)

Deck ``d`` is the game's deck of hand key ``(seed, d // 1000, d % 1000)`` (``sim.deckgen``).
Each batch is a Ray task that shuffles its decks in one compiled call and writes its file under a
temporary name, then renames it; the manifest records each file's sha256 as it lands. Then every
file is audited by a second task that checks its bytes against the manifest and runs the
uniformity battery and the keyed re-derivation on them (``audits.deckaudit``); the collision
keys are spilled to ``RUN/.keys/`` (removed at the end) and reduced on the driver range by range
within ``--key-memory``. Names, listing, manifest I/O and atomic writes: ``audits.runfolder`` (a
folder of the old layout, ``RUN/decks/...``, is refused: ``holdem migrate RUN``). With
``--keep-decks false`` one task per batch shuffles and audits in memory and no deck is written
(the certificate says so).

Resume: running the same command again keeps every deck file whose sha256 matches the manifest
and shuffles the rest; the audit always reads every file again (a certificate is of the bytes on
disk now); with ``--keep-decks false`` a rerun starts over. A folder made with another spec,
or holding files that are not the run's, is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from audits import runfolder
from audits.runfolder import RunFolder, RunFolderError, storage
from audits.runfolder.errors import InputError
from audits.runfolder.storage import Location
from cluster.progress import measure_peak_rss_mb

if TYPE_CHECKING:
    from reports.certificate import Certificate

MANIFEST_FORMAT = "holdem-shuffle-run"
MANIFEST_VERSION = 1
META_RUN_ID = b"holdem.run_id"
META_BATCH = b"holdem.batch"


class ShuffleRunError(InputError):
    """The run folder or options cannot be used (one line; exit 2)."""


@dataclass(frozen=True)
class ShuffleSpec:
    """Everything that defines a deck-only run."""

    decks: int
    seed: int = 1
    generator: str = "philox"
    batch_size: int = 1_000_000
    keep_decks: bool = True
    inject: str | None = None

    def __post_init__(self) -> None:
        from sim.deckgen import GENERATORS, SHUFFLE_FAULTS

        if self.decks < 1:
            raise ShuffleRunError(f"--decks {self.decks}: expected >= 1")
        if self.batch_size < 1:
            raise ShuffleRunError(f"--batch-size {self.batch_size}: expected >= 1")
        from sim.runspec import check_sizes

        try:
            check_sizes(self.decks, self.batch_size, 1, "--decks")
        except ValueError as e:
            raise ShuffleRunError(str(e)) from None
        if not 0 <= self.seed < 2**64:
            raise ShuffleRunError(f"--seed {self.seed}: expected 0 .. 2^64 - 1")
        if self.generator not in GENERATORS:
            raise ShuffleRunError(f"--generator {self.generator}: expected one of "
                                  f"{', '.join(GENERATORS)}")
        if self.inject is not None and self.inject not in SHUFFLE_FAULTS:
            raise ShuffleRunError(f"--inject {self.inject}: expected one of "
                                  f"{', '.join(SHUFFLE_FAULTS)}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def fingerprint(self) -> str:
        text = json.dumps({**self.to_dict(), "kind": "deck-only", "stream": 1}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def keyed(self) -> bool:
        """Decks bound to a recorded key (re-derivable by the audits)."""
        return self.generator == "philox"

    def plan(self) -> list[tuple[int, int, int]]:
        """(batch index, first deck, decks) of every batch."""
        return [(b, a, min(self.batch_size, self.decks - a))
                for b, a in enumerate(range(0, self.decks, self.batch_size))]


deck_relpath = runfolder.deck_relpath


# ---------------------------------------------------------------- the tasks


def encode_decks(decks: Any, start: int, spec: ShuffleSpec, batch: int) -> bytes:
    """The Parquet bytes of one batch of the deck-only log (uncompressed: shuffled decks do not
    compress; hand_id delta-encoded)."""
    import numpy as np

    n = decks.shape[0]
    deck = pa.FixedSizeBinaryArray.from_buffers(pa.binary(52), n,
                                                [None, pa.py_buffer(decks.reshape(-1))])
    table = pa.table({"hand_id": pa.array(np.arange(start, start + n, dtype=np.int64)),
                      "deck": deck})
    meta = {META_RUN_ID: spec.fingerprint().encode(), META_BATCH: str(batch).encode(),
            b"holdem.seed": str(spec.seed).encode(), b"holdem.generator": spec.generator.encode()}
    sink = pa.BufferOutputStream()
    pq.write_table(table.replace_schema_metadata(meta), sink, compression="none",
                   use_dictionary=False, write_statistics=["hand_id"],
                   column_encoding={"hand_id": "DELTA_BINARY_PACKED"})
    return sink.getvalue().to_pybytes()


def write_deck_batch(spec: ShuffleSpec, batch: int, start: int, n: int,
                     base: Location) -> dict[str, Any]:
    """Shuffle one batch and write its file (temporary name, then rename): its record."""
    from sim.deckgen import make_decks

    t0 = time.perf_counter()
    decks = make_decks(spec.generator, spec.seed, start, n, spec.inject)
    data = encode_decks(decks, start, spec, batch)
    rel = deck_relpath(batch)
    RunFolder.open(base).write(rel, data)
    return {"path": rel, "batch": batch, "start": start, "decks": n, "bytes": len(data),
            "sha256": runfolder.sha256_bytes(data),
            "seconds": round(time.perf_counter() - t0, 4), "peak_rss_mb": measure_peak_rss_mb()}


def audit_file_task(base: Location, rec: dict[str, Any], seed: int | None) -> Any:
    """Audit one deck file of the run (the audits' own code, on the bytes on disk)."""
    from audits.deckaudit import audit_deck_file

    t0 = time.perf_counter()
    folder = RunFolder.open(base)
    keys = folder.location(runfolder.key_relpath(rec["batch"]))
    out = audit_deck_file(folder.location(rec["path"]), rec["sha256"], seed, keys)
    return out, {"batch": rec["batch"], "seconds": round(time.perf_counter() - t0, 4),
                 "peak_rss_mb": measure_peak_rss_mb()}


def shuffle_audit_task(spec: ShuffleSpec, batch: int, start: int, n: int,
                       base: Location) -> Any:
    """``--keep-decks false``: shuffle one batch and audit it in memory; nothing is written but
    the collision keys."""
    import numpy as np

    from audits.deckaudit import audit_batch
    from sim.deckgen import make_decks

    t0 = time.perf_counter()
    decks = make_decks(spec.generator, spec.seed, start, n, spec.inject)
    keys = RunFolder.open(base).location(runfolder.key_relpath(batch))
    out = audit_batch(decks, np.arange(start, start + n, dtype=np.int64),
                      spec.seed if spec.keyed else None, keys)
    return out, {"batch": batch, "seconds": round(time.perf_counter() - t0, 4),
                 "peak_rss_mb": measure_peak_rss_mb()}


# ---------------------------------------------------------------- the folder


def _manifest(spec: ShuffleSpec, files: dict[int, dict[str, Any]], status: str,
              extra: dict[str, Any]) -> dict[str, Any]:
    from cluster.flows.manifest import engine_version, git_commit, now

    recs = [files[b] for b in sorted(files)]
    return {
        "format": MANIFEST_FORMAT, "manifest_version": MANIFEST_VERSION, "status": status,
        **({"fault_injected": f"FAULT INJECTED: {spec.inject}. These decks come from a "
                              "deliberately broken shuffle; they must FAIL certification."}
           if spec.inject else {}),
        "run_id": spec.fingerprint(), "fingerprint": spec.fingerprint(), "spec": spec.to_dict(),
        "seed": spec.seed, "generator": spec.generator, "inject": spec.inject,
        "keep_decks": spec.keep_decks, "reproducible": spec.keyed,
        "deck_key": "deck d is the deck of seed_key [seed, d // 1000, d % 1000]",
        "engine_version": engine_version(), "git_commit": git_commit(),
        "layout": deck_relpath(0).replace("00000", "<index:05d>") if spec.keep_decks else None,
        "totals": {"decks": sum(r["decks"] for r in recs), "files": len(recs),
                   "bytes": sum(r["bytes"] for r in recs)},
        "files": recs, **extra, "updated": now(),
    }


def _check_folder(spec: ShuffleSpec, base: Location, say: Callable[[str], None]
                  ) -> dict[int, dict[str, Any]]:
    """The deck files already there that need no work (sha256 as the manifest says)."""
    folder = RunFolder.open(base)

    def read(f: RunFolder) -> dict[str, Any] | None:
        try:
            return f.read_manifest({MANIFEST_FORMAT})
        except runfolder.ManifestError as e:
            raise ShuffleRunError(f"{f.location(runfolder.MANIFEST)}: not a holdem shuffle "
                                  f"manifest ({e}); choose another --out") from None

    try:
        expected = {deck_relpath(b): b for b, _, _ in spec.plan()} if spec.keep_decks else {}
        resumed = folder.resume(expected, fingerprint=spec.fingerprint(), spec=spec.to_dict(),
                                read=read, scratch=(runfolder.KEY_DIR,))
        recorded = {f["path"]: f for f in (resumed.manifest or {}).get("files", [])
                    if isinstance(f, dict)}
        if resumed.found and not spec.keyed:
            # no key binds these decks: a file in the folder could be anyone's (issue 33), so
            # none is kept, as certify never resumes os-chacha20 batches
            raise ShuffleRunError(
                f"run folder {folder.label} holds {len(resumed.found)} deck file(s) "
                f"({resumed.found[0]}, ...): generator {spec.generator} cannot re-derive them, "
                "so a shuffle never resumes them; use a new --out")
        kept: dict[int, dict[str, Any]] = {}
        for rel in resumed.found:
            sha, _ = folder.sha256(rel)
            rec = recorded.get(rel)
            if rec is not None and rec.get("sha256") == sha:
                kept[expected[rel]] = rec
            else:
                say(f"{rel}: not as the manifest records it; shuffling it again")
        return kept
    except (storage.StorageError, RunFolderError) as e:
        raise ShuffleRunError(str(e)) from None


def _task_name(call: tuple[Any, ...]) -> str:
    """How a failed task is named: (spec, batch, first deck, decks, base) for the shuffles,
    (base, file record, seed) for the audits of the deck files."""
    if isinstance(call[0], ShuffleSpec):
        return f"batch {call[1]} (decks {call[2]:,} to {call[2] + call[3] - 1:,})"
    return f"the audit of {call[1]['path']}"


def run_shuffle(spec: ShuffleSpec, out: str | os.PathLike[str], *, address: str | None = None,
                workers: int | None = None, key_memory: int | None = None,
                progress: bool = True, sign_key: str | None = None,
                lab: dict[str, Any] | None = None) -> Certificate:
    """Shuffle, write (or not), audit and certify; returns the certificate. ``sign_key``: an
    Ed25519 private key (loaded before any work) whose signature of certificate.json goes to
    certificate.sig; without one a stale signature is removed. ``lab``: a laboratory's fields
    (``reports.lab``), in the certificate and on its page."""
    from audits.deckaudit import DeckTally
    from cluster.flows.signing import load_private_key, write_signature

    key = None if sign_key is None else load_private_key(sign_key)
    base = storage.as_location(os.fspath(out))
    t0 = time.perf_counter()
    files = _check_folder(spec, base, lambda s: print(f"holdem: {s}", flush=True))
    reused = len(files)
    seed = spec.seed if spec.keyed else None
    tally = DeckTally()
    tasks: list[dict[str, Any]] = []
    times: dict[str, Any] = {}

    def manifest(status: str, **extra: Any) -> None:
        RunFolder.open(base).write_manifest(_manifest(spec, files, status, {
            "timings": {**times, "batches_reused": reused}, **extra}))

    manifest("running")
    try:
        cert = _run(spec, base, workers, address, key_memory, progress, files, tasks, times,
                    tally, seed, t0, manifest, lab)
        write_signature(base, runfolder.SIGNATURE_FILE, key, cert.raw)
        return cert
    except BaseException as e:
        manifest("failed", error=f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        raise


def _run(spec: ShuffleSpec, base: Location, workers: int | None, address: str | None,
         key_memory: int | None, progress: bool, files: dict[int, dict[str, Any]],
         tasks: list[dict[str, Any]], times: dict[str, Any], tally: Any, seed: int | None,
         t0: float, manifest: Callable[..., None], lab: dict[str, Any] | None = None
         ) -> Certificate:
    import contextlib

    from audits.deckaudit import reduce_tally
    from audits.decklog import DeckFileError
    from audits.runner import default_key_memory
    from cluster.fanout import fan_out
    from cluster.flows.manifest import now
    from cluster.progress import Progress
    from reports.shuffle import write_certificate

    last = [0.0]
    session: Any = contextlib.nullcontext()
    if workers != 0:
        from cluster.ray_runtime import ray_session

        session = ray_session(address, workers)
    with session as s:
        def run(fn: Callable[..., Any], calls: list[tuple[Any, ...]],
                on_result: Callable[[Any], None]) -> None:
            """Every call through ``cluster.fanout`` (2 tasks per CPU on Ray), each result to
            ``on_result`` as it ends; a bad deck file is unusable input, not a task failure."""
            for _ in fan_out(fn, calls, session=s, name=_task_name,
                             passthrough=(DeckFileError,), on_done=lambda _, r: on_result(r)):
                pass

        if spec.keep_decks:
            todo = [(spec, b, a, n, base) for b, a, n in spec.plan() if b not in files]
            t = time.perf_counter()
            with Progress(sum(c[3] for c in todo), enabled=progress, desc="decks") as bar:
                def landed(rec: dict[str, Any]) -> None:
                    files[rec["batch"]] = rec
                    tasks.append({k: rec[k] for k in ("batch", "seconds", "peak_rss_mb")})
                    bar.update(rec["decks"])
                    if time.perf_counter() - last[0] > 1.0:
                        manifest("running")
                        last[0] = time.perf_counter()

                run(write_deck_batch, todo, landed)
            times["shuffle_write_seconds"] = round(time.perf_counter() - t, 3)
            manifest("written")
            calls: list[tuple[Any, ...]] = [(base, files[b], seed) for b in sorted(files)]
            fn: Callable[..., Any] = audit_file_task
        else:
            calls = [(spec, b, a, n, base) for b, a, n in spec.plan()]
            fn = shuffle_audit_task
        t = time.perf_counter()
        with Progress(spec.decks, enabled=progress, desc="audit") as bar:
            def audited(res: Any) -> None:
                out_, info = res
                tally.add(out_)
                tasks.append({"audit_" + k if k != "batch" else k: v for k, v in info.items()})
                bar.update(out_.decks)

            run(fn, calls, audited)
    times["audit_seconds"] = round(time.perf_counter() - t, 3)
    t = time.perf_counter()
    memory = default_key_memory() if key_memory is None else key_memory
    results = reduce_tally(tally, memory, keyed=spec.keyed)
    times["reduce_seconds"] = round(time.perf_counter() - t, 3)
    fs, root = storage.split(storage.join(base, runfolder.KEY_DIR))
    with contextlib.suppress(OSError, pa.ArrowException):
        fs.delete_dir(root)
    wall = time.perf_counter() - t0
    times.update({"wall_seconds": round(wall, 3),
                  "decks_per_second": round(spec.decks / wall, 1),
                  "driver_peak_rss_mb": measure_peak_rss_mb(),
                  "worker_peak_rss_mb": max((x.get("peak_rss_mb") or x.get("audit_peak_rss_mb")
                                             or 0) for x in tasks) if tasks else None})
    manifest("complete", finished=now())
    m = RunFolder.open(base).read_manifest({MANIFEST_FORMAT}) or {}
    return write_certificate(base, results, m, kept=spec.keep_decks, lab=lab)


AUDIT_KIND = "decks from another system"  # the source kind of a ``shuffle audit`` certificate
AUDIT_WRITES = frozenset({runfolder.REPORT_FILES["certificate"], runfolder.REPORT_FILES["html"]})


def _own_audit_folder(folder: RunFolder) -> None:
    """``shuffle audit --out`` writes only into a new (or empty) folder or one an earlier
    ``shuffle audit`` made (its two files, its kind of certificate): never over another run's
    certificate or report (ShuffleRunError, one line, before anything is written)."""
    try:
        if not folder.exists():
            if folder.kind() != pafs.FileType.NotFound:
                raise ShuffleRunError(f"output {folder.label} is a file, not a folder")
            return
        listing = folder.listing()
        other = sorted(set(listing) - AUDIT_WRITES)
        cert = runfolder.CERTIFICATE
        kind = None
        if not other and cert in listing:
            try:
                kind = ((json.loads(folder.read_bytes(cert)).get("source") or {}).get("kind"))
            except (ValueError, AttributeError, RunFolderError):
                kind = None
        if other or (listing and kind != AUDIT_KIND):
            what = other[0] if other else f"{cert} of another kind of run"
            raise ShuffleRunError(f"output {folder.label} holds {what}: `holdem shuffle audit` "
                                  "writes only into a new folder or one of its own (nothing "
                                  "of another run is overwritten); choose another --out")
    except (storage.StorageError, RunFolderError) as e:
        raise ShuffleRunError(str(e)) from None


def audit_files(paths: list[str], out: str | os.PathLike[str], *,
                key_memory: int | None = None, progress: bool = True,
                sign_key: str | None = None, lab: dict[str, Any] | None = None) -> Certificate:
    """``holdem shuffle audit FILE...``: certify decks another system's shuffler produced (the
    battery and its power statement; no key to re-derive them from). Decks are numbered from 0
    across the files in order (the certificate's example deck ids). Raises
    ``audits.decklog.DeckFileError`` for a bad file or row (nothing is written then)."""
    import contextlib

    import numpy as np

    from audits.deckaudit import DeckTally, audit_batch, reduce_tally
    from audits.decklog import DeckFileError, iter_deck_file
    from audits.runner import default_key_memory
    from cluster.flows.signing import load_private_key, write_signature

    key = None if sign_key is None else load_private_key(sign_key)
    t0 = time.perf_counter()
    base = storage.as_location(os.fspath(out))
    folder = RunFolder.open(base)
    _own_audit_folder(folder)
    tally = DeckTally()
    files = []
    first = 0
    try:
        for path in paths:
            n0 = first
            for decks in iter_deck_file(path):
                ids = np.arange(first, first + len(decks), dtype=np.int64)
                keys = folder.location(runfolder.key_relpath(len(tally.key_files)))
                tally.add(audit_batch(decks, ids, None, keys))
                first += len(decks)
            sha, size = storage.file_sha256(path)
            files.append({"path": os.fspath(path), "decks": first - n0, "bytes": size,
                          "sha256": sha, "first_deck_id": n0})
        if first == 0:
            raise DeckFileError(f"{', '.join(map(str, paths))}: no decks")
        memory = default_key_memory() if key_memory is None else key_memory
        results = reduce_tally(tally, memory, keyed=False)
    finally:
        fs, root = storage.split(folder.location(runfolder.KEY_DIR))
        with contextlib.suppress(OSError, pa.ArrowException):
            fs.delete_dir(root)
    from reports.shuffle import build_deck_certificate, write_files

    wall = time.perf_counter() - t0
    source = {"kind": "decks from another system", "generator": "external", "seed": None,
              "decks_kept": True, "files": files,
              "card_codes": "card = rank * 4 + suit (2c = 0, 2d = 1, ..., As = 51)"}
    timings = {"wall_seconds": round(wall, 3), "decks_per_second": round(first / wall, 1),
               "driver_peak_rss_mb": measure_peak_rss_mb()}
    cert = write_files(base, build_deck_certificate(results, source, timings, lab))
    write_signature(base, runfolder.SIGNATURE_FILE, key, cert.raw)
    return cert
