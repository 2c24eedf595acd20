"""Reproduction: re-simulate a run's batches from its spec and compare them with the folder's
files, byte for byte. ``holdem certify`` and ``holdem verify`` do it by default for a run of the
reproducible generator (``--no-reproduce`` skips it; ``holdem verify --reproduce N`` samples N
batch files, drawn from the operating system's entropy so that no one can know beforehand which
files will be checked, and names them).

The audits check the engine against primary facts without running it; they cannot tell where a
hand sits in the run's table plan, nor what configuration the spec gave it (a hand moved to a
made-up table, raked 100% or played with other blinds audits clean when every column agrees). A
run made with the reproducible generator is a pure function of its spec: a batch simulated again
(``cluster.simulate.simulated_batch``) gives back the file's exact bytes. So each planned batch
(``RunSpec.plan``: what the spec plays, never the manifest's list of files) is re-simulated and
the sha256 of its bytes compared with the file's; only when they differ are the rows read, to
name the first hand whose content (``sim.digest``, computed here from the columns, never read
from the stored ``digest``) is not what the spec plays, or to say that the hands agree and the
file's schema, metadata or encoding does not. This trusts the engine to reproduce the run; the
audits are what check the engine.

The batches are fanned out (``cluster.fanout``: Ray tasks, or this process with ``workers=0``).
"""

from __future__ import annotations

import hashlib
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from audits import storage
from audits.io import AuditInputError, load_manifest
from audits.runfolder import MANIFEST, RunFolder, RunFolderError, batch_relpath

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


class ReproduceInputError(ValueError):
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

    @property
    def status(self) -> str:
        return REPRODUCED if self.ok else DIFFERS

    def record(self) -> dict[str, Any]:
        """The certificate's ``reproduction`` entry."""
        text = self.message.removeprefix(f"{REPRODUCED}: ")
        return {"status": self.status, "text": text, "batches": self.batches,
                "planned": self.planned, "hands": self.hands, "path": self.path,
                "hand_id": self.hand_id, "seconds": round(self.seconds, 2)}


def not_run(text: str, status: str = NOT_RUN) -> dict[str, Any]:
    """A ``reproduction`` entry for a run that was not re-simulated, and why."""
    return {"status": status, "text": text, "batches": 0, "planned": None, "hands": 0,
            "path": None, "hand_id": None}


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


def _first_difference(stored_bytes: bytes, again_bytes: bytes) -> tuple[str, int | None]:
    """Why two batch files differ: the first hand whose content differs (its hand_id), else the
    rows or the file's form (schema, metadata, encoding, statistics)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from sim.digest import content_columns, hand_digests

    again = pq.read_table(pa.BufferReader(again_bytes))
    try:
        stored = pq.read_table(pa.BufferReader(stored_bytes))
    except (pa.ArrowException, OSError, ValueError) as e:
        return f"not a readable Parquet file ({str(e).splitlines()[0]})", None
    missing = [c for c in again.schema.names if c not in stored.schema.names]
    if missing:
        return f"column {missing[0]} is missing", None
    n = min(stored.num_rows, again.num_rows)
    cols = content_columns(again.schema.names)
    try:
        a = hand_digests(stored.slice(0, n).select(cols), cols)
    except (pa.ArrowException, ValueError, TypeError, KeyError) as e:
        return f"its hands cannot be read as the spec's ({str(e).splitlines()[0]})", None
    b = hand_digests(again.slice(0, n).select(cols), cols)
    if not np.array_equal(a, b):
        i = int(np.flatnonzero(a != b)[0])
        hid = again.column("hand_id")[i].as_py()
        return (f"hand {hid} is not what the spec plays (re-simulated from the seed, it "
                "differs)"), int(hid)
    if stored.num_rows != again.num_rows:
        return (f"{stored.num_rows:,} hands logged, the spec plays {again.num_rows:,}",
                None if stored.num_rows > n else int(again.column("hand_id")[n].as_py()))
    return ("its bytes differ from the re-simulated file's though every hand's content matches "
            "(the file's schema, metadata, encoding or footer statistics are not what holdem "
            "simulate writes)"), None


def reproduce_batch(spec: Any, structure: str, batch: int, path: str) -> dict[str, Any]:
    """One planned batch re-simulated and compared with the file at ``path`` (the body of a
    Ray task): ``{"rel", "ok", "hands", "why", "hand_id"}``."""
    from cluster.simulate import simulated_batch
    from sim.config import Structure

    st = Structure.parse(structure)
    rel = batch_relpath(st.label, batch)
    data, hands, _ = simulated_batch(spec, st, batch)
    again = data.to_pybytes()
    try:
        stored = storage.read_bytes(path) if storage.is_file(path) else None
    except (OSError, storage.StorageError) as e:
        return {"rel": rel, "ok": False, "hands": 0, "hand_id": None,
                "why": f"cannot be read ({str(e).splitlines()[0] if str(e) else e})"}
    if stored is None:
        return {"rel": rel, "ok": False, "hands": 0, "hand_id": None,
                "why": "missing (the spec plays this batch)"}
    if hashlib.sha256(stored).digest() == hashlib.sha256(again).digest():
        return {"rel": rel, "ok": True, "hands": hands, "hand_id": None, "why": None}
    why, hid = _first_difference(stored, again)
    return {"rel": rel, "ok": False, "hands": 0, "hand_id": hid, "why": why}


def reproduce_spec(spec: Any, run: str, batches: int | None = None, *,
                   rng: random.Random | None = None,
                   workers: int | None = 0, address: str | None = None,
                   only: set[str] | None = None,
                   on_batch: Callable[[str, int], None] | None = None) -> Reproduced:
    """Re-simulate the batches ``spec`` plans (all; a sample of ``batches`` drawn with ``rng``,
    by default ``secrets.SystemRandom``: unpredictable, so a forger cannot know which files are
    checked; or those whose path is in ``only``) and compare each with the run folder's
    file of that name, byte for byte; the first that differs is named (its first differing
    hand when the hands differ). ``workers=0`` in this process, else Ray tasks
    (``cluster.ray_runtime.ray_session``; ``effective_workers``: a handful of batches without
    a Ray to join run in this process)."""
    import contextlib

    from cluster.fanout import fan_out
    from cluster.ray_runtime import in_flight_window, ray_session

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
    calls = [(spec, s, b, str(folder.location(batch_relpath(s, b)))) for s, b in plan]
    done = hands = 0
    t0 = time.perf_counter()
    workers = effective_workers(len(calls), workers, address)
    with (contextlib.nullcontext() if workers == 0 or not calls
          else ray_session(address, workers)) as session:
        results = fan_out(reproduce_batch, calls, session=session,
                          window=None if session is None else in_flight_window(session, workers),
                          name=lambda call: f"the reproduction of {call[3]}", label="batch")
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


def reproduce_run(run: str, batches: int | None = None, *, rng: random.Random | None = None,
                  workers: int | None = 0, address: str | None = None,
                  on_batch: Callable[[str, int], None] | None = None) -> Reproduced:
    """Re-simulate a received run from the spec its manifest carries (``reproduce_spec``).
    ReproduceInputError when it cannot be (no manifest or spec, not reproducible)."""
    root = storage.as_location(run)
    try:
        folder = RunFolder.open(root)
        folder.check_layout()
        manifest = load_manifest(root)
    except (AuditInputError, RunFolderError) as e:
        raise ReproduceInputError(str(e)) from None
    where = str(folder.location(MANIFEST))
    if manifest is None:
        raise ReproduceInputError(f"{where}: missing (nothing to re-simulate from)")
    spec = spec_of(manifest, where)
    return reproduce_spec(spec, run, batches, rng=rng, workers=workers,
                          address=address, on_batch=on_batch)
