"""What an audit module exports for the runner: its ``SPEC`` (name, map over a batch, reduce over
the partials, the one-line description written into ``audit.json``, and for an audit whose reduce
needs every hand's key at once, its ``KeyPass``). ``audits.registry`` lists the specs.

``map(batch)`` returns any picklable partial; ``reduce(name, partials)`` returns an
``AuditResult`` (``audits.result.reduce_partials`` for the exact audits' ``Partial``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from audits.io import Batch
from audits.result import AuditResult, reduce_partials

MapFn = Callable[[Batch], Any]
ReduceFn = Callable[[str, list[Any]], AuditResult]


@dataclass(frozen=True)
class KeyPass:
    """For an audit whose reduce needs one key of every hand at once (the uniformity battery's
    collision tests, 24 B a deck): when a run's keys exceed the driver's key memory, they are
    hash-partitioned. The main map keeps partition 0's keys (``restrict(partial, 0, P)``), then
    each of partitions 1..P-1 is one pass over the files (``keys(file, p, P)``, mapped like
    ``audits.runner.map_file``) whose keys are reduced at once (``reduce(keys) -> partial``)
    and handed, with the map's partials, to the audit's reduce. The driver never holds more
    than one partition."""

    partitions: Callable[[int, int], int]  # (hands, memory bytes) -> P
    restrict: Callable[[Any, int, int], Any]
    keys: Callable[[str, int, int], Any]
    reduce: Callable[[list[Any]], Any]


@dataclass(frozen=True)
class AuditSpec:
    name: str
    map: MapFn
    reduce: ReduceFn = reduce_partials
    description: str = ""
    keys: KeyPass | None = None
