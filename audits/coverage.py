"""Rule-path coverage, counted by the audits from the log (not by the engine's counters).

A certificate vouches for the rules it saw applied. The betting referee and the payouts rebuild
flag the paths each hand took as they check it (``Batch.derived``); this map adds the paths that
plain columns show (dead button, eliminations, ...), counts them per structure, and the reduce
compares every count with its minimum (``audits.paths``). The result FAILS, naming the
structure and path, when a path that can occur in a structure stays below its minimum; a
structure with fewer than ``paths.SMALL_RUN`` hands is too small to certify coverage, which the
result says (not applicable) instead of failing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from audits import paths as P
from audits.io import Batch, string_value
from audits.result import AuditResult

NAME = "coverage"
NEEDS = ("betting_paths", "payout_paths")  # the maps that flag paths: betting and payouts


@dataclass
class CoveragePartial:
    counts: dict[str, np.ndarray] = field(default_factory=dict)  # structure -> count per bit
    hands: dict[str, int] = field(default_factory=dict)
    complete: bool = True  # every flagging audit ran on this batch


def column_paths(b: Batch) -> np.ndarray:
    """The paths plain columns show, as per-hand flag words."""
    rows = np.arange(b.n)
    occ = b.seat["occupied"]
    c = b.cols
    fmt = string_value(b, "format")
    flags = np.zeros(b.n, np.int64)

    def put(mask: np.ndarray, bit: int) -> None:
        flags[mask] |= np.int64(1) << bit

    put((c["ante_mode"] == 2) & (c["ante"] > 0), P.BIG_BLIND_ANTE)
    put(~occ[rows, c["button"].astype(np.int64)], P.DEAD_BUTTON)
    put(c["sb_seat"] < 0, P.DEAD_SMALL_BLIND)
    put((fmt == "tournament") & (occ & (b.seat["stacks_end"] == 0)).any(axis=1), P.ELIMINATION)
    put((fmt == "cash") & (c["hand_no"] > 0) & (b.seat["rebuys"] > 0).any(axis=1), P.REBUY)
    put(b.seat["timed_out"].any(axis=1), P.TIMEOUT)
    # a table's first heads-up hand after a hand with three or more players (a chunk holds
    # every hand of its tables)
    players = occ.sum(axis=1)
    order = np.lexsort((c["hand_no"], c["table_id"]))
    t, h, n = c["table_id"][order], c["hand_no"][order], players[order]
    follows = np.r_[False, (t[1:] == t[:-1]) & (h[1:] == h[:-1] + 1)]
    prev_players = np.r_[0, n[:-1]]
    hu = np.zeros(b.n, np.bool_)
    hu[order] = follows & (prev_players >= 3) & (n == 2)
    put(hu, P.HEADS_UP_TRANSITION)
    return flags


def coverage_map(b: Batch) -> CoveragePartial:
    part = CoveragePartial(complete=all(k in b.derived for k in NEEDS))
    flags = column_paths(b)
    for key in NEEDS:
        if key in b.derived:
            flags |= b.derived[key]
    structure = string_value(b, "structure")
    for label in np.unique(structure):
        rows = structure == label
        f = flags[rows]
        part.counts[str(label)] = np.array(
            [int(((f >> bit) & 1).sum()) for bit in range(P.N_PATHS)], np.int64)
        part.hands[str(label)] = int(rows.sum())
    return part


def coverage_reduce(name: str, parts: list[CoveragePartial]) -> AuditResult:
    counts: dict[str, np.ndarray] = {}
    hands: dict[str, int] = {}
    complete = bool(parts) and all(p.complete for p in parts)
    for p in parts:
        for label, c in p.counts.items():
            counts[label] = counts.get(label, np.zeros(P.N_PATHS, np.int64)) + c
            hands[label] = hands.get(label, 0) + p.hands[label]
    per_structure: dict[str, Any] = {}
    short: list[str] = []
    too_small: list[str] = []
    for label in sorted(counts):
        n = hands[label]
        entry: dict[str, Any] = {"hands": n}
        certifiable = n >= P.SMALL_RUN
        if not certifiable:
            too_small.append(label)
        for path in P.PATHS:
            if label not in path.structures:
                continue
            count = int(counts[label][path.bit])
            minimum = P.minimum(path, n)
            ok = count >= minimum
            entry[path.name] = {"count": count, "minimum": minimum, "ok": ok}
            if certifiable and not ok:
                short.append(f"{label}/{path.name}")
        per_structure[label] = entry
    applicable = complete and len(too_small) < len(counts)
    details: dict[str, Any] = {
        "per_structure": per_structure, "short": short, "too_small": too_small,
        "small_run": P.SMALL_RUN,
        "violations": [{"hand_id": None, "reason": f"{s} below its minimum"}
                       for s in short[:5]],
    }
    if not complete:
        details["note"] = ("coverage needs the betting and payouts audits in the same run: not "
                           "certified")
    elif too_small:
        details["note"] = (f"too small to certify coverage: {', '.join(too_small)} "
                           f"(fewer than {P.SMALL_RUN:,} hands)")
    failures = len(short) if applicable else 0
    return AuditResult(name=name, passed=failures == 0, hands_checked=sum(hands.values()),
                       failures=failures, details=details, applicable=applicable)
