"""The common result type of every audit, and the partial (per-batch) record that maps produce."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

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

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "applicable": self.applicable,
                "hands_checked": self.hands_checked, "failures": self.failures,
                "example_hand_ids": list(self.example_hand_ids), "statistic": self.statistic,
                "p_value": self.p_value, "details": self.details}


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


def partial_from_codes(hand_id: np.ndarray, codes: np.ndarray, aux: np.ndarray,
                       messages: dict[int, str], *, logged: np.ndarray | None = None,
                       expected: np.ndarray | None = None) -> Partial:
    """Per-hand error codes (0 = fine) as a Partial; ``messages[code]`` may use ``{aux}`` and,
    when the audit gives them, ``{logged}`` (what the log says) and ``{expected}`` (what the
    rules give). Every failing hand is kept with its reason (``failing``, up to
    ``MAX_FAILING``), the first ``MAX_EXAMPLES`` also as examples."""
    bad = np.flatnonzero(codes)
    p = Partial(hands=len(codes), failures=len(bad))
    if len(bad):
        kinds, counts = np.unique(codes[bad], return_counts=True)
        for c, k in zip(kinds, counts, strict=True):
            p.reasons[messages.get(int(c), f"code {int(c)}").split(":")[0]] = int(k)
        for i in bad[:MAX_FAILING]:
            msg = messages.get(int(codes[i]), f"code {int(codes[i])}")
            text = msg.format(aux=int(aux[i]),
                              logged="?" if logged is None else int(logged[i]),
                              expected="?" if expected is None else int(expected[i]))
            p.failing.append((int(hand_id[i]), text))
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
