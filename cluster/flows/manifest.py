"""``manifest.json``: what a ``holdem simulate`` run folder holds and how it was made.

This module builds the manifest from a ``RunSpec``; reading and writing it (the JSON level,
atomically: temporary file, then rename) is ``audits.runfolder``'s. It is rewritten as batches
finish, so a killed
run leaves a manifest that lists every batch already on disk; the next run of the same command
checks those files against their checksums and simulates only the rest.

Fields (JSON object, in this order):

``format``
    ``"holdem-simulate-run"``: what this file is.
``manifest_version``
    version of this layout (1).
``status``
    ``"running"`` while batches are being written (or when the run was killed), ``"complete"``
    when every batch of the plan is on disk with a verified checksum, ``"failed"`` when the run
    stopped on an error (``error`` then holds the message).
``fault_injected``
    only present when the run planted a fault (``--inject``): a warning naming the fault. Such a
    log is meant to FAIL certification.
``run_id``
    the spec fingerprint; every row's ``run_id`` column and every file's ``holdem.run_id``
    Parquet metadata hold it.
``fingerprint``
    the same digest (``RunSpec.fingerprint``): a rerun into this folder must have it.
``spec``
    every input of the run (``RunSpec.to_dict``): ``hands`` (per structure), ``structures``,
    ``players``, ``format``, ``seed``, ``batch_size``, blinds, stacks, rake, ``generator``,
    ``inject``, ...
``population``
    who sits at the tables (``RunSpec.population``): ``players`` (a seat count or
    [[seats, weight], ...]), ``format`` (cash, tournament or mixed), ``tournament_pct``,
    ``buy_in_min_bb``, ``buy_in_bb``, ``leave_above_bb``, ``tournament_stack_bb``, ``bots``,
    ``hands_per_table``, ``level_hands``, ``leave_ppm``; and ``batches``: per structure label,
    the [seat count, format] of every batch file in batch order (``RunSpec.batch_table``), with
    ``hands`` per seat count and per format summed over the run.
``seed``, ``generator``, ``inject``
    copies from ``spec`` for the reader's convenience (``inject`` is null for a clean run). The
    spec is the only source of the run's facts: the audits parse it exactly
    (``audits.runspec``: its keys and JSON types, the digest ``fingerprint`` and ``run_id``) and
    never read these copies, ``population`` or the files' ``structure``, ``batch`` and
    ``hands`` for them; each must equal what the spec gives, or the integrity audit fails.
``reproducible``
    true for the ``philox`` generator (any hand can be dealt again from the seed); false for
    ``os-chacha20`` (cards come from the operating system's entropy), with ``reproducible_note``
    saying so.
``schema_version``
    ``sim.schema.SCHEMA_VERSION`` of the rows.
``digest_version``
    ``sim.digest.DIGEST_VERSION`` of the rows' ``digest`` column.
``engine_version``
    version of the ``holdem`` package that simulated the hands.
``git_commit``
    the commit of the code that ran (``audits.runfolder.provenance.code_identity``):
    ``git rev-parse HEAD`` from a checkout, else the commit stamped into
    ``audits/build_info.json`` when the loaded sources still hash to it (a cluster: no ``.git``
    is shipped), else ``"unknown"``.
``git_dirty``
    true when the packages differed from that commit (null when unknown).
``layout``, ``compression``
    ``"log/<label>/batch-<index:05d>.parquet"`` (``audits.runfolder.LAYOUT``) and the log's
    codecs, ``"lz4; deck, digest: none"`` (Parquet LZ4_RAW; those two columns uncompressed).
``totals``
    ``hands``, ``rows``, ``files``, ``bytes`` over the files listed.
``counts``
    how often rare rule paths were taken (``simulate_batch``'s counts), summed: ``total`` and
    ``per_structure`` (label -> name -> count). ``fault_fired``: hands in which the ``--inject``
    fault changed something (``sim.faults``; 0 for a clean run).
``files``
    one entry per batch file, in plan order: ``path`` (relative to the run folder),
    ``structure``, ``batch``, ``hands``, ``rows``, ``bytes``, ``sha256`` (of the file's bytes),
    ``counts``, ``seconds`` (simulate + encode + write; null when the file was recovered from a
    killed run), ``peak_rss_mb`` (peak resident memory of the worker process; null if unknown).
``timings``
    of the last invocation: ``wall_seconds``, ``hands_simulated``, ``hands_per_second``
    (simulated hands / wall), ``batches_simulated``, ``batches_reused`` (kept from an earlier
    invocation), ``batch_seconds_median``, ``batch_seconds_max``.
``runtime``
    of the last invocation: ``ray`` (``"in-process"`` without Ray, ``"local"`` embedded Ray,
    ``"existing"`` an already-initialised Ray, or the cluster address), ``workers``, ``cpus``,
    ``python``, ``pyarrow``, ``ray_version``, ``platform``.
``provenance``
    of the last invocation (``audits.runfolder.provenance.provenance``): ``code`` (``git_commit``,
    ``git_dirty``, ``identified_by``: ``"git"``, ``"build_info"`` or why neither named it,
    ``sources_sha256`` per package), ``versions`` (holdem, python, numba, numpy, pyarrow, scipy,
    ray) and ``command`` (the process's ``sys.argv``).
``created``, ``updated``, ``finished``
    UTC ISO-8601 times: the folder's first run, this write, completion (null until complete).
``error``
    only when ``status`` is ``"failed"``.
"""

from __future__ import annotations

import platform
import statistics
import sys
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from audits.runfolder import LAYOUT, ManifestError, RunFolder
from audits.runfolder import MANIFEST as MANIFEST_NAME
from sim.runspec import RunSpec

MANIFEST_FORMAT = "holdem-simulate-run"
MANIFEST_VERSION = 1
# the log's codec (Parquet LZ4_RAW, read by pyarrow, pandas, polars and DuckDB) and the columns
# stored uncompressed (shuffled decks and hash digests do not compress; `cluster.flows.simulate`)
COMPRESSION = "lz4"
UNCOMPRESSED_COLUMNS = ("deck", "digest")
COMPRESSION_NOTE = f"{COMPRESSION}; {', '.join(UNCOMPRESSED_COLUMNS)}: none"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def engine_version() -> str:
    try:
        from importlib.metadata import version

        return version("holdem")
    except Exception:
        return "unknown"


def git_commit() -> str:
    """The commit of the loaded code (``audits.runfolder.provenance.code_identity``), else
    "unknown"."""
    from audits.runfolder.provenance import code_identity

    return str(code_identity()["git_commit"])


@dataclass
class FileRecord:
    """One batch file of the run (see ``files`` in the module docstring)."""

    path: str
    structure: str
    batch: int
    hands: int
    rows: int
    bytes: int
    sha256: str
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float | None = None
    peak_rss_mb: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FileRecord:
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in d.items() if k in names})


def population(spec: RunSpec) -> dict[str, Any]:
    """The manifest's ``population`` section (see the module doc)."""
    batches: dict[str, list[list[Any]]] = {}
    by_seats: dict[str, int] = {}
    by_format: dict[str, int] = {}
    for s in spec.structures:
        batches[s.label] = []
        for b in range(spec.n_batches()):
            seats, fmt = spec.batch_table(s, b)
            batches[s.label].append([seats, fmt])
            by_seats[str(seats)] = by_seats.get(str(seats), 0) + spec.batch_hands(b)
            by_format[fmt] = by_format.get(fmt, 0) + spec.batch_hands(b)
    return {**spec.population(), "batches": batches,
            "hands_by_seats": dict(sorted(by_seats.items(), key=lambda kv: int(kv[0]))),
            "hands_by_format": by_format}


def sum_counts(records: Iterable[dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for c in records:
        for k, v in c.items():
            total[k] = total.get(k, 0) + int(v)
    return dict(sorted(total.items()))


def fault_warning(inject: str) -> str:
    """The manifest's ``fault_injected`` warning of a run that planted the fault ``inject``
    (the audit's ``audits.runner.fault_warning``, the same words)."""
    from audits.runner import fault_warning as audit_warning

    return f"FAULT INJECTED: {audit_warning(inject)}"


class Manifest:
    """The manifest of one run folder (a JSON object; see the module docstring)."""

    def __init__(self, spec: RunSpec, created: str | None = None,
                 schema_version: int | None = None) -> None:
        from sim.schema import SCHEMA_VERSION

        self.spec = spec
        # the log schema of the run's files (``holdem simulate --log-version``)
        self.schema_version = SCHEMA_VERSION if schema_version is None else schema_version
        self.created = created or now()
        self.files: dict[str, FileRecord] = {}
        # the batch files this process's writers made (path -> the sha256 of the bytes they
        # encoded), never read from a folder: kept ones are not here (not in manifest.json)
        self.written: dict[str, str] = {}
        self.status = "running"
        self.finished: str | None = None
        self.error: str | None = None
        self.timings: dict[str, Any] = {}
        self.runtime: dict[str, Any] = {}
        self._order = {f"{s.label}/{b}": i for i, (s, b) in enumerate(spec.plan())}
        from audits.runfolder.provenance import code_identity, provenance

        self._population: dict[str, Any] | None = None  # the plan's tables, computed once
        self._git = git_commit()
        self._dirty = code_identity()["git_dirty"]
        self.provenance = provenance()

    def population(self) -> dict[str, Any]:
        """The ``population`` section (``population``: every batch's table), computed once: the
        manifest is rewritten as batches finish, its plan never changes."""
        if self._population is None:
            self._population = population(self.spec)
        return self._population

    def add(self, rec: FileRecord) -> None:
        self.files[rec.path] = rec

    # what a caller of ``run_simulate`` reads, typed (the JSON object is ``to_dict``'s)
    @property
    def hands(self) -> int:
        """Hands in the run's files (the manifest's ``totals.hands``)."""
        return sum(r.hands for r in self.files.values())

    def count(self, name: str) -> int:
        """A rare-path count summed over the files (``counts.total[name]``; 0 when absent)."""
        return sum(int(r.counts.get(name, 0)) for r in self.files.values())

    @property
    def hands_per_second(self) -> float | None:
        return self.timings.get("hands_per_second")

    @property
    def batches_reused(self) -> int:
        return int(self.timings.get("batches_reused", 0))

    @property
    def fault_warning(self) -> str | None:
        """The manifest's ``fault_injected`` warning (a run that planted a fault), else None."""
        return fault_warning(self.spec.inject) if self.spec.inject else None

    def records(self) -> list[FileRecord]:
        return sorted(self.files.values(),
                      key=lambda r: self._order.get(f"{r.structure}/{r.batch}", 1 << 62))

    def set_timings(self, wall: float, simulated: list[FileRecord], reused: int) -> None:
        secs = [r.seconds for r in simulated if r.seconds is not None]
        hands = sum(r.hands for r in simulated)
        self.timings = {
            "wall_seconds": round(wall, 3),
            "hands_simulated": hands,
            "hands_per_second": round(hands / wall, 1) if wall > 0 else None,
            "batches_simulated": len(simulated),
            "batches_reused": reused,
            "batch_seconds_median": round(statistics.median(secs), 3) if secs else None,
            "batch_seconds_max": round(max(secs), 3) if secs else None,
        }

    def set_runtime(self, where: str, workers: int | None, cpus: int | None) -> None:
        try:
            import ray

            ray_version = ray.__version__
        except Exception:  # pragma: no cover - ray is a dependency
            ray_version = "unknown"
        import pyarrow

        self.runtime = {
            "ray": where, "workers": workers, "cpus": cpus,
            "python": sys.version.split()[0], "pyarrow": pyarrow.__version__,
            "ray_version": ray_version, "platform": platform.platform(),
        }

    def to_dict(self) -> dict[str, Any]:
        from sim.digest import DIGEST_VERSION

        spec = self.spec
        recs = self.records()
        per_structure: dict[str, dict[str, int]] = {}
        for s in spec.structures:
            per_structure[s.label] = sum_counts(r.counts for r in recs if r.structure == s.label)
        d: dict[str, Any] = {
            "format": MANIFEST_FORMAT,
            "manifest_version": MANIFEST_VERSION,
            "status": self.status,
        }
        if spec.inject:
            d["fault_injected"] = fault_warning(spec.inject)
        d.update({
            "run_id": spec.fingerprint(),
            "fingerprint": spec.fingerprint(),
            "spec": spec.to_dict(),
            "population": self.population(),
            "seed": spec.seed,
            "generator": spec.generator,
            "inject": spec.inject,
            "reproducible": spec.reproducible,
        })
        if not spec.reproducible:
            d["reproducible_note"] = (f"generator {spec.generator} draws cards from the "
                                      "operating system's entropy: rerunning this spec deals "
                                      "different hands, and the seed does not reproduce them")
        d.update({
            "schema_version": self.schema_version,
            "digest_version": DIGEST_VERSION,
            "engine_version": engine_version(),
            "git_commit": self._git,
            "git_dirty": self._dirty,
            "layout": LAYOUT,
            "compression": COMPRESSION_NOTE,
            "totals": {
                "hands": sum(r.hands for r in recs),
                "rows": sum(r.rows for r in recs),
                "files": len(recs),
                "bytes": sum(r.bytes for r in recs),
            },
            "counts": {"total": sum_counts(r.counts for r in recs),
                       "per_structure": per_structure},
            "files": [r.to_dict() for r in recs],
            "timings": self.timings,
            "runtime": self.runtime,
            "provenance": self.provenance,
            "created": self.created,
            "updated": now(),
            "finished": self.finished,
        })
        if self.error:
            d["error"] = self.error
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any], spec: RunSpec) -> Manifest:
        m = cls(spec, created=d.get("created"))
        for f in d.get("files", []):
            m.add(FileRecord.from_dict(f))
        return m


def read_manifest(folder: RunFolder) -> dict[str, Any] | None:
    """The simulate manifest of a run folder, or None (``ManifestError`` for an unreadable one,
    another program's, or another version)."""
    d = folder.read_manifest({MANIFEST_FORMAT},
                             unreadable_hint="; remove it to rebuild it from the batch files")
    if d is not None and d.get("manifest_version") != MANIFEST_VERSION:
        raise ManifestError(f"run folder {folder.label}: manifest version "
                            f"{d.get('manifest_version')} is not supported (expected "
                            f"{MANIFEST_VERSION})")
    return d


def write_manifest(folder: RunFolder, manifest: Manifest) -> dict[str, Any]:
    """Write the manifest through the run folder's owner (atomically); returns it."""
    return folder.write_manifest(manifest.to_dict())


__all__ = [
    "COMPRESSION", "COMPRESSION_NOTE", "LAYOUT", "MANIFEST_NAME", "UNCOMPRESSED_COLUMNS",
    "FileRecord", "Manifest", "ManifestError",
    "engine_version", "git_commit", "population", "read_manifest",
    "sum_counts", "write_manifest",
]
