"""Rule-path coverage, counted by the audits from the log (not by the engine's counters).

A certificate vouches for the rules it saw applied. The betting referee and the payouts rebuild
flag the paths each hand took as they check it (``Batch.derived``); this map adds the paths that
plain columns show (dead button, eliminations, ...), counts them per structure, and the reduce
compares every count with its minimum (``audits.paths``: the floor rate's Poisson quantile).
The result FAILS, naming the structure, path, count and minimum, when a path that can occur in
a structure stays below its minimum where a correct engine would do so with probability under
``paths.ALPHA`` (a rare path not seen in fewer hands, a game of one's own or an import below the
built-in games' floors, and a path the game rules out are not certified instead); a structure
with fewer than ``paths.SMALL_RUN`` hands is too small to certify coverage, which the result
says with the hands it has and needs (not applicable) instead of failing. A path that occurs
only at some table formats (antes and eliminations at tournaments, rake and rebuys at cash
tables) has its minimum scaled by the hands of those formats; a run without them does not
certify it, and says so, rather than failing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit

from audits import paths as P
from audits.io import Batch, string_is, table_order
from audits.result import AuditResult
from audits.runspec import GAME_DEFAULTS
from audits.spec import AuditSpec

NAME = "coverage"
NEEDS = ("betting_paths", "payout_paths")  # the maps that flag paths: betting and payouts
FORMATS = ("cash", "tournament")


@dataclass
class CoveragePartial:
    counts: dict[str, np.ndarray] = field(default_factory=dict)  # structure -> count per bit
    hands: dict[str, int] = field(default_factory=dict)
    # structure -> {format: hands} (cash, tournament; a path's minimum scales with its formats')
    by_format: dict[str, dict[str, int]] = field(default_factory=dict)
    complete: bool = True  # every flagging audit ran on this batch
    # the paths the run's spec rules out (a game without antes, rake, a cap, ...): not counted
    impossible: frozenset[str] = frozenset()
    # the floors (audits.paths) hold for the built-in games only: a simulated run without a
    # game's own schedule or bots; elsewhere a shortfall is not certified, never a failure
    calibrated: bool = True


def spec_paths(b: Batch) -> tuple[frozenset[str], bool]:
    """(the paths the run's spec rules out, whether the floors apply to its hands): from the
    simulate spec (``b.context["facts"]``); an imported run's hands follow their operator's
    game, so the floors do not apply to them."""
    facts = b.context.get("facts")
    if facts is None:
        return frozenset(), not b.context.get("imported", False)
    s = facts.spec
    out = set()
    if not s["rake_bps"]:
        out |= {"rake", "rake_capped", "no_flop_no_drop"}
    if facts.rake("cash")[1] == 0 and not any(c for _, c in s["rake_caps_by_players"]):
        out.add("rake_capped")
    if not s["no_flop_no_drop"]:
        out.add("no_flop_no_drop")
    levels = s["levels"]
    if levels is not None:
        if not any(lv[2] for lv in levels):
            out |= {"ante", "big_blind_ante", "ante_all_in"}
        elif s["tournament_ante_mode"] != "big-blind":
            out.add("big_blind_ante")
    defaults = {k: v for k, v in s.items() if k in GAME_DEFAULTS and k != "game"}
    calibrated = all(v == GAME_DEFAULTS[k] for k, v in defaults.items()) and not s.get(
        "python_bots")
    return frozenset(out), calibrated


@njit(cache=True, _nrt=False)
def _count_paths(flags, struct, tourn, cash, occ, button, sb, ante_mode, ante, hand_no, rebuys,
                 stacks_end, timed_out, table_id, order, counts):  # pragma: no cover - compiled
    """Add the paths plain columns show to each hand's flags and count every set bit per
    structure (``counts[structure code, bit]``), in one pass."""
    n, k = occ.shape
    for i in range(n):
        f = flags[i]
        if ante_mode[i] == 2 and ante[i] > 0:
            f |= 1 << P.BIG_BLIND_ANTE
        if not occ[i, button[i]]:
            f |= 1 << P.DEAD_BUTTON
        if sb[i] < 0:
            f |= 1 << P.DEAD_SMALL_BLIND
        players = 0
        for s in range(k):
            if occ[i, s]:
                players += 1
                if tourn[i] and stacks_end[i, s] == 0:
                    f |= 1 << P.ELIMINATION
                if cash[i] and hand_no[i] > 0 and rebuys[i, s] > 0:
                    f |= 1 << P.REBUY
            if timed_out[i, s]:
                f |= 1 << P.TIMEOUT
        flags[i] = f
    # a table's first heads-up hand after a hand with three or more players (a chunk holds
    # every hand of its tables; ``order`` sorts them by table and hand number)
    prev = -1
    prev_players = 0
    for q in range(n):
        i = order[q]
        players = 0
        for s in range(k):
            if occ[i, s]:
                players += 1
        if (prev >= 0 and table_id[prev] == table_id[i] and hand_no[prev] + 1 == hand_no[i]
                and prev_players >= 3 and players == 2):
            flags[i] |= 1 << P.HEADS_UP_TRANSITION
        prev = i
        prev_players = players
    for i in range(n):
        f = flags[i]
        while f:
            low = f & -f
            bit = 0
            while (low >> bit) != 1:
                bit += 1
            counts[struct[i], bit] += 1
            f ^= low


def _flag_and_count(b: Batch) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(each hand's path flags, its structure code, the structure labels, the counts per
    structure and path) of one batch whose flagging maps have run."""
    flags = np.zeros(b.n, np.int64)
    for key in NEEDS:
        if key in b.derived:
            flags |= b.derived[key]
    labels = b.cols["structure_values"]
    struct = b.cols["structure"]
    if struct.dtype.kind == "f":  # a null structure: counted under "unknown"
        labels = np.append(labels, "unknown")
        struct = np.where(np.isnan(struct), len(labels) - 1, struct)
    struct = struct.astype(np.int64)
    counts = np.zeros((len(labels), P.N_PATHS), np.int64)
    c = b.cols
    s = b.seat
    _count_paths(flags, struct, string_is(b, "format", "tournament"),
                 string_is(b, "format", "cash"), s["occupied"], c["button"].astype(np.int64),
                 c["sb_seat"], c["ante_mode"], c["ante"], c["hand_no"].astype(np.int64),
                 s["rebuys"], s["stacks_end"], s["timed_out"], c["table_id"], table_order(b),
                 counts)
    return flags, struct, labels, counts


def hand_paths(b: Batch) -> np.ndarray:
    """Each hand's rule paths as the coverage map counts them (bits of ``audits.paths``): the
    flags of the betting and payouts maps (run on ``b`` first; a path they flag is missing
    otherwise) with the paths the plain columns show. ``holdem regress`` names the paths of the
    hands where two engines part (``cluster.regression.rootcause``)."""
    return _flag_and_count(b)[0]


def coverage_map(b: Batch) -> CoveragePartial:
    impossible, calibrated = spec_paths(b)
    part = CoveragePartial(complete=all(k in b.derived for k in NEEDS), impossible=impossible,
                           calibrated=calibrated)
    _, struct, labels, counts = _flag_and_count(b)
    hands = np.bincount(struct, minlength=len(labels))
    fmt_hands = {f: np.bincount(struct[string_is(b, "format", f)], minlength=len(labels))
                 for f in FORMATS}
    for code, label in enumerate(labels):
        if hands[code]:
            part.counts[str(label)] = counts[code]
            part.hands[str(label)] = int(hands[code])
            part.by_format[str(label)] = {f: int(fmt_hands[f][code]) for f in FORMATS}
    return part


def coverage_reduce(name: str, parts: list[CoveragePartial]) -> AuditResult:
    counts: dict[str, np.ndarray] = {}
    hands: dict[str, int] = {}
    by_format: dict[str, dict[str, int]] = {}
    complete = bool(parts) and all(p.complete for p in parts)
    impossible = frozenset().union(*(p.impossible for p in parts)) if parts else frozenset()
    calibrated = all(p.calibrated for p in parts)
    unseen: list[str] = []  # too few hands for a count of 0 to be a failure
    uncalibrated: list[str] = []  # below the built-in games' floor in a game of one's own
    for p in parts:
        for label, c in p.counts.items():
            counts[label] = counts.get(label, np.zeros(P.N_PATHS, np.int64)) + c
            hands[label] = hands.get(label, 0) + p.hands[label]
            mine = by_format.setdefault(label, dict.fromkeys(FORMATS, 0))
            for f, n_f in p.by_format.get(label, {}).items():
                mine[f] = mine.get(f, 0) + n_f
    per_structure: dict[str, Any] = {}
    short: list[str] = []
    too_small: list[str] = []
    untested: dict[str, list[str]] = {}  # "structure: no tournament hands" -> paths
    for label in sorted(counts):
        n = hands[label]
        entry: dict[str, Any] = {"hands": n}
        certifiable = n >= P.SMALL_RUN
        if not certifiable:
            too_small.append(f"{label} has {n:,} hands of the {P.SMALL_RUN:,} it needs")
        for path in P.PATHS:
            if label not in path.structures:
                continue
            count = int(counts[label][path.bit])
            if path.name in impossible:
                entry[path.name] = {"count": count, "minimum": 0, "ok": True,
                                    "certified": False, "impossible": True}
                continue
            # the hands where the path can occur: of its formats (a run without them, or a
            # log without the format column, does not certify it)
            base = sum(by_format.get(label, {}).get(f, 0) for f in path.formats)
            if base == 0:
                entry[path.name] = {"count": count, "minimum": 0, "ok": True,
                                    "certified": False}
                if certifiable:
                    untested.setdefault(f"{label} has no {' or '.join(path.formats)} hands",
                                        []).append(path.name)
                continue
            minimum = P.minimum(path, base)
            ok = count >= minimum
            entry[path.name] = {"count": count, "minimum": minimum, "ok": ok}
            if not certifiable or ok:
                continue
            if P.expected(path, base) < P.EXPECT:  # 0 is plausible for a correct engine
                entry[path.name].update(ok=True, certified=False)
                unseen.append(f"{label}/{path.name} (0 in {base:,} hands; "
                              f"{P.certify_hands(path):,} make a 0 a failure)")
            elif not calibrated:
                entry[path.name].update(ok=True, certified=False)
                uncalibrated.append(f"{label}/{path.name} ({count:,} in {base:,} hands, the "
                                    f"built-in games' floor {minimum:,})")
            else:
                short.append(f"{label}/{path.name} below its minimum ({count:,} of "
                             f"{minimum:,} in {base:,} hands; a correct engine falls below "
                             f"it with probability under {P.ALPHA:g})")
        per_structure[label] = entry
    applicable = complete and len(too_small) < len(counts)
    details: dict[str, Any] = {
        "per_structure": per_structure, "short": short, "too_small": too_small,
        "small_run": P.SMALL_RUN, "unseen": unseen, "uncalibrated": uncalibrated,
        "impossible": sorted(impossible), "alpha": P.ALPHA,
        "violations": [{"hand_id": None, "reason": s} for s in short[:5]],
    }
    notes = []
    if not complete:
        notes.append("coverage needs the betting and payouts audits in the same run: not "
                     "certified")
    else:
        if too_small:
            notes.append("too small to certify coverage: " + "; ".join(too_small))
        if untested:
            notes.append("not certified, their tables absent: " + "; ".join(
                f"{why} ({', '.join(paths)})" for why, paths in untested.items()))
        if unseen:
            notes.append("not seen, too few hands to certify: " + "; ".join(unseen))
        if uncalibrated:
            notes.append("rarer than in the built-in games (this game's own rules or bots "
                         "set how often a path occurs): not certified: "
                         + "; ".join(uncalibrated))
        if impossible:
            notes.append("cannot occur in this game: " + ", ".join(sorted(impossible)))
    if notes:
        details["note"] = "; ".join(notes)
    failures = len(short) if applicable else 0
    return AuditResult(name=name, passed=failures == 0, hands_checked=sum(hands.values()),
                       failures=failures, details=details, applicable=applicable)


SPEC = AuditSpec("coverage", coverage_map, coverage_reduce, description=(
    "the rule paths the betting referee and the payouts rebuild saw applied, and those the "
    "columns show, counted per structure against documented minimums (audits.paths)"))
