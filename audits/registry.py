"""The audits ``holdem audit`` runs, in the order of its table and of ``audit.json``: each audit
module exports its ``SPEC`` (``audits.spec.AuditSpec``) and is listed here, statically.

``register(spec fields)`` adds an audit at run time (a caller's own audit, or a test's); nothing
registers itself on import.
"""

from __future__ import annotations

from collections.abc import Sequence

from audits import (
    betting,
    chips,
    coverage,
    deal,
    integrity,
    outcome,
    payouts,
    rotation,
    stakes,
    uniformity,
)
from audits.result import reduce_partials
from audits.runfolder.errors import InputError
from audits.spec import AuditSpec, KeyPass, MapFn, ReduceFn

SPECS: tuple[AuditSpec, ...] = (integrity.SPEC, deal.SPEC, stakes.SPEC, chips.SPEC, rotation.SPEC,
                                payouts.SPEC, outcome.SPEC, betting.SPEC, coverage.SPEC,
                                uniformity.SPEC)
REGISTRY: dict[str, AuditSpec] = {s.name: s for s in SPECS}


def register(name: str, map_fn: MapFn, reduce_fn: ReduceFn = reduce_partials,
             description: str = "", keys: KeyPass | None = None) -> None:
    """Add (or replace) an audit in the registry."""
    REGISTRY[name] = AuditSpec(name, map_fn, reduce_fn, description, keys)


def available() -> list[str]:
    """The registered audits' names, in order."""
    return list(REGISTRY)


def resolve(names: Sequence[str] | None) -> list[str]:
    """Validate audit names (None = all); raises ValueError naming unknown ones."""
    known = available()
    if not names:
        return known
    bad = [n for n in names if n not in REGISTRY]
    if bad:
        raise InputError(f"unknown audit(s) {', '.join(bad)}: expected some of {', '.join(known)}")
    return list(dict.fromkeys(names))
