"""``holdem verify RUN --reproduce [N]``: re-simulate a run's batches from its spec and compare
every hand with the log.

The audits check the engine against primary facts without running it; they cannot tell where a
hand sits in the run's table plan (which tables a batch has, which hands a table plays), so a
hand moved to a made-up table is dealt that table's key and audits clean. A run made with the
reproducible generator is a pure function of its spec: re-simulating a batch with the engine
gives back every hand, so comparing each hand's content digest (``sim.digest``, computed here
from the columns, never read from the stored ``digest``) with the file's finds any hand that is
not what the spec plays, named. This trusts the engine to reproduce the run; the audits are what
check the engine.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from audits import storage
from audits.io import AuditInputError, load_manifest
from audits.runfolder import MANIFEST, RunFolder, RunFolderError


class ReproduceInputError(ValueError):
    """The run cannot be re-simulated (not a simulated run, no spec, not reproducible)."""


@dataclass
class Reproduced:
    ok: bool
    message: str
    batches: int = 0
    hands: int = 0


def _spec(manifest: dict[str, Any], where: str) -> Any:
    from sim.runspec import RunSpec

    if manifest.get("format") != "holdem-simulate-run" or not isinstance(manifest.get("spec"),
                                                                          dict):
        raise ReproduceInputError(f"{where}: not a holdem simulate run (no spec to re-simulate "
                                  "from)")
    try:
        spec = RunSpec.from_dict(manifest["spec"])
    except (TypeError, ValueError, KeyError) as e:
        raise ReproduceInputError(f"{where}: spec is not a run config of this holdem ({e})"
                                  ) from None
    if spec.fingerprint() != manifest.get("fingerprint"):
        raise ReproduceInputError(f"{where}: spec does not hash to the manifest's fingerprint "
                                  f"{manifest.get('fingerprint')}")
    if spec.generator != "philox":
        raise ReproduceInputError(f"{where}: generator {spec.generator} is not reproducible: its "
                                  "decks came from the operating system's entropy")
    return spec


def reproduce_run(run: str, batches: int | None = None, *, sample_seed: int = 0,
                  on_batch: Callable[[str, int], None] | None = None) -> Reproduced:
    """Re-simulate ``batches`` of the run's batch files (all when None; otherwise a sample drawn
    with ``sample_seed``) and compare every hand; the first hand that differs is named."""
    from sim.batch import simulate_batch
    from sim.config import Structure
    from sim.digest import content_columns, hand_digests

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
    spec = _spec(manifest, where)
    records = [f for f in manifest.get("files") or [] if isinstance(f, dict)]
    if batches is not None and batches < len(records):
        records = random.Random(sample_seed).sample(records, max(1, batches))
    done = hands = 0
    for rec in records:
        rel = str(rec.get("path"))
        path = folder.location(rel)
        try:
            stored = storage.open_parquet(path).read()
            again = simulate_batch(spec, Structure.parse(str(rec["structure"])),
                                   int(rec["batch"])).table
        except (OSError, ValueError, KeyError, TypeError, storage.StorageError) as e:
            raise ReproduceInputError(f"{path}: cannot be re-simulated ({e})") from None
        if stored.num_rows != again.num_rows:
            return Reproduced(False, f"{rel}: {stored.num_rows:,} hands logged, the spec plays "
                                     f"{again.num_rows:,}", done, hands)
        cols = [c for c in content_columns(again.schema.names) if c in stored.schema.names]
        a, b = hand_digests(stored, cols), hand_digests(again, cols)
        if not np.array_equal(a, b):
            i = int(np.flatnonzero(a != b)[0])
            return Reproduced(False, f"{rel}: hand {stored.column('hand_id')[i].as_py()} is not "
                                     "what the spec plays (re-simulated from the seed, it differs)",
                              done, hands)
        done += 1
        hands += stored.num_rows
        if on_batch:
            on_batch(rel, stored.num_rows)
    return Reproduced(True, f"REPRODUCED: {done} of {len(manifest.get('files') or [])} batch "
                            f"files ({hands:,} hands) re-simulated from the spec match hand for "
                            "hand", done, hands)
