"""The common result type of every audit, and the partial (per-batch) record that maps produce."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from audits.runfolder.errors import InputError

MAX_EXAMPLES = 5
# failing hands an audit lists in full (failing_hands.csv) before it says the list is cut
MAX_FAILING = 1_000_000


@dataclass(frozen=True)
class AuditResult:
    """One audit's verdict over a run. ``statistic`` / ``p_value`` are None for exact audits;
    ``applicable`` is False when the run lacks what the audit needs (then ``passed`` is True)."""

    name: str
    passed: bool
    hands_checked: int
    failures: int
    example_hand_ids: tuple[int, ...] = ()
    statistic: float | None = None
    p_value: float | None = None
    details: dict[str, Any] = field(default_factory=dict)
    applicable: bool = True
    # every failing hand (hand_id, reason with its amounts), up to MAX_FAILING: written to
    # failing_hands.csv beside audit.json, not into it
    failing: tuple[tuple[int, str], ...] = field(default=(), compare=False, repr=False)
    # what the audit checks, in words (audit.json adds it beside each result: the registry's
    # description), read back with the result
    checks: str | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "applicable": self.applicable,
                "hands_checked": self.hands_checked, "failures": self.failures,
                "example_hand_ids": list(self.example_hand_ids), "statistic": self.statistic,
                "p_value": self.p_value, "details": self.details}

    @classmethod
    def from_dict(cls, d: Any, where: str = "result") -> AuditResult:
        """The one reader of a result as ``to_dict`` wrote it (audit.json's ``results``, a
        result's ``details.tests``, the certificate's ``audits``): every field checked for its
        type, ResultError naming the field otherwise. Keys besides the result's are ignored."""
        if not isinstance(d, dict):
            raise ResultError(f"{where}: expected an object")
        for key, types in _RESULT_FIELDS.items():
            v = d.get(key, ...)
            if not isinstance(v, types) or (isinstance(v, bool) and bool not in types):
                names = " or ".join("null" if t is type(None) else t.__name__ for t in types)
                raise ResultError(f"{where}.{key}: expected {names}, found "
                                  f"{'nothing' if v is ... else json.dumps(v)[:40]}")
        ids = d["example_hand_ids"]
        if not all(isinstance(h, int) and not isinstance(h, bool) for h in ids):
            raise ResultError(f"{where}.example_hand_ids: expected a list of hand ids")
        details = d.get("details", {})
        if not isinstance(details, dict):
            raise ResultError(f"{where}.details: expected an object")
        return cls(name=d["name"], passed=d["passed"], hands_checked=d["hands_checked"],
                   failures=d["failures"], example_hand_ids=tuple(ids),
                   statistic=d["statistic"], p_value=d["p_value"], details=details,
                   applicable=d["applicable"],
                   checks=d["checks"] if isinstance(d.get("checks"), str) else None)

    @property
    def ok(self) -> bool:
        """Passed, or not applicable (nothing it could check failed)."""
        return self.passed or not self.applicable

    @property
    def failed(self) -> bool:
        """Applicable and failed."""
        return self.applicable and not self.passed

    @property
    def top_level(self) -> bool:
        """An audit of its own, not one test of an audit's battery (``uniformity.<test>``)."""
        return "." not in self.name

    @property
    def tests(self) -> tuple[AuditResult, ...]:
        """The results of its battery's tests (``details.tests``), each read by ``from_dict``
        (entries that are not objects are left out: ``check_tests`` names them)."""
        tests = self.details.get("tests")
        if not isinstance(tests, list):
            return ()
        return tuple(AuditResult.from_dict(t, f"{self.name}.details.tests[{i}]")
                     for i, t in enumerate(tests) if isinstance(t, dict))

    def test(self, name: str) -> AuditResult | None:
        """The battery's test ``name`` (``runout_bins`` or ``uniformity.runout_bins``)."""
        for t in self.tests:
            if t.name == name or t.name.rpartition(".")[2] == name:
                return t
        return None


class ResultError(InputError):
    """A result that is not one ``AuditResult.to_dict`` writes (one line naming the field)."""


_RESULT_FIELDS: dict[str, tuple[type, ...]] = {
    "name": (str,), "passed": (bool,), "applicable": (bool,), "hands_checked": (int,),
    "failures": (int,), "example_hand_ids": (list,), "statistic": (int, float, type(None)),
    "p_value": (int, float, type(None)),
}


def read_results(doc: dict[str, Any], where: str = "audit.json") -> tuple[AuditResult, ...]:
    """The results of an audit.json as typed records (``AuditResult.from_dict`` each)."""
    results = doc.get("results")
    if not isinstance(results, list):
        raise ResultError(f"{where}: results: expected a list")
    return tuple(AuditResult.from_dict(r, f"{where}: results[{i}]")
                 for i, r in enumerate(results))


def by_name(results: tuple[AuditResult, ...] | list[AuditResult]) -> dict[str, AuditResult]:
    return {r.name: r for r in results}


@dataclass
class Partial:
    """What an exact audit's map returns for one batch: hands seen, failing hands, the first few
    violations as (hand_id, one-line reason), and failure counts per reason."""

    hands: int = 0
    failures: int = 0
    examples: list[tuple[int, str]] = field(default_factory=list)
    reasons: dict[str, int] = field(default_factory=dict)
    applicable: bool = True
    totals: dict[str, int] = field(default_factory=dict)  # summed over batches into details
    sample: list[dict[str, Any]] = field(default_factory=list)  # the first batch's is kept
    failing: list[tuple[int, str]] = field(default_factory=list)  # every failing hand


STREETS = ("pre-flop", "flop", "turn", "river")
_RANK_SUIT = ("23456789TJQKA", "cdhs")


def _value(key: str, v: Any) -> str | int:
    """A message value as its words: ``street...`` keys name the street, ``card...`` keys the
    card (code rank * 4 + suit, as the log stores it; -1 none), ``seats...`` keys the seats of
    a mask, ``seat_...`` one seat (-1 none), text as it is, others the integer."""
    if isinstance(v, str):
        return v
    n = int(v)
    if key.startswith("street"):
        return STREETS[n] if 0 <= n < len(STREETS) else f"street {n}"
    if key.startswith("seat_"):  # one seat, -1 none
        return f"seat {n}" if n >= 0 else "none"
    if key.startswith("seats"):  # a mask of seats (bit s = seat s)
        seats = [str(s) for s in range(64) if (n >> s) & 1]
        return ("seat " if len(seats) == 1 else "seats ") + ", ".join(seats) if seats else "none"
    if key.startswith("card"):
        return (_RANK_SUIT[0][n >> 2] + _RANK_SUIT[1][n & 3]) if 0 <= n < 52 else (
            "none" if n == -1 else f"code {n}")
    return n


def partial_from_codes(hand_id: np.ndarray, codes: np.ndarray, aux: np.ndarray,
                       messages: dict[int, str], *, logged: np.ndarray | None = None,
                       expected: np.ndarray | None = None,
                       values: dict[str, np.ndarray] | None = None) -> Partial:
    """Per-hand error codes (0 = fine) as a Partial; ``messages[code]`` may use ``{aux}`` and,
    when the audit gives them, ``{logged}`` (what the log says) and ``{expected}`` (what the
    rules give), and any key of ``values`` (per-hand arrays: a ``street...`` key is printed as
    the street's name, a ``card...`` key as the card). Every failing hand is kept with its
    reason (``failing``, up to ``MAX_FAILING``), the first ``MAX_EXAMPLES`` also as examples."""
    bad = np.flatnonzero(codes)
    p = Partial(hands=len(codes), failures=len(bad))
    if len(bad):
        kinds, counts = np.unique(codes[bad], return_counts=True)
        for c, k in zip(kinds, counts, strict=True):
            p.reasons[messages.get(int(c), f"code {int(c)}").split(":")[0]] = int(k)
        arrays = {"aux": aux, **({} if logged is None else {"logged": logged}),
                  **({} if expected is None else {"expected": expected}), **(values or {})}
        for i in bad[:MAX_FAILING]:
            msg = messages.get(int(codes[i]), f"code {int(codes[i])}")
            fields: dict[str, Any] = {"logged": "?", "expected": "?"}
            fields.update({key: _value(key, a[i]) for key, a in arrays.items()})
            p.failing.append((int(hand_id[i]), msg.format(**fields)))
        p.examples = p.failing[:MAX_EXAMPLES]
    return p


def reduce_partials(name: str, parts: list[Partial]) -> AuditResult:
    """The default reduce: sum the counts, keep the first examples."""
    hands = sum(p.hands for p in parts)
    failures = sum(p.failures for p in parts)
    examples: list[tuple[int, str]] = []
    reasons: dict[str, int] = {}
    for p in parts:
        examples.extend(p.examples)
        for r, k in p.reasons.items():
            reasons[r] = reasons.get(r, 0) + k
    examples = examples[:MAX_EXAMPLES]
    totals: dict[str, int] = {}
    for p in parts:
        for key, v in p.totals.items():
            totals[key] = totals.get(key, 0) + int(v)
    sample = next((p.sample for p in parts if p.sample), [])
    applicable = any(p.applicable for p in parts) if parts else False
    failing: list[tuple[int, str]] = []
    for p in parts:
        failing.extend(p.failing[:MAX_FAILING - len(failing)])
    return AuditResult(
        name=name, passed=failures == 0, hands_checked=hands, failures=failures,
        example_hand_ids=tuple(h for h, _ in examples),
        details={"violations": [{"hand_id": h, "reason": r} for h, r in examples],
                 "reasons": reasons, **({"totals": totals} if totals else {}),
                 **({"sample": sample} if sample else {})},
        applicable=applicable, failing=tuple(failing))
