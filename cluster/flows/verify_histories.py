"""``holdem phh verify PATH...``: replay every hand of hand history files and folders through the
engine (``sim.histories.replay.reference.replay``) and tally the verdicts.

Files are read by ``sim.histories.sites.text.read_history``: PHH/PHHS or a site's text export
(detected from the content), hand by hand; a hand that cannot be read is an error of its own (its
reason) and the other hands of its file are replayed.

Each hand is replayed in its own minor units (cents: ``replay(..., minor_units=True)``). A hand
is ok iff it replays without error and, when the file has ``finishing_stacks``, our stacks equal
them (a site's rake shows as a mismatch: the ``outcome`` audit of an import classifies it). A
hand that does not replay is counted under its named kind (``sim.histories.replay.reference.KINDS``;
a section that cannot be read under ``unreadable: <kind>``). Hands of other games (or with
straddles) are *unsupported*: they are listed apart, their JSON line says ``"ok": false`` with an
error starting ``unsupported``, and they do not change the exit code. Folds while checking was free
(sites allow them) replay and are counted. Exit 0 iff every supported hand is ok, 1 otherwise,
2 when a path does not exist or no hand could be read (``PhhVerification.exit_code``).
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from sim.histories.read.phh import SUPPORTED_VARIANTS, format_amounts
from sim.histories.replay.reference import FOLD_CHECK_FREE, K_UNSUPPORTED, ReplayResult, replay
from sim.histories.sites.text import iter_history_paths, read_history

__all__ = ["PhhVerification", "format_summary", "format_unreadable", "verify_paths"]

PROGRESS_EVERY = 2000  # hands between two progress calls


@dataclass
class PhhVerification:
    """The tally of ``verify_paths``."""

    files: int = 0
    hands: int = 0
    seconds: float = 0.0
    by_variant: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    unsupported: Counter[str] = field(default_factory=Counter)  # variant -> hands
    load_errors: list[ReplayResult] = field(default_factory=list)  # unreadable files
    failures: list[ReplayResult] = field(default_factory=list)  # load errors included
    fold_free: int = 0  # folds while checking was free (replayed: sites allow them)
    reasons: Counter[str] = field(default_factory=Counter)  # kind -> hands not replayed
    mismatched_hands: int = 0  # replayed, finishing stacks differ
    unrecorded: int = 0  # replayed hands with a seat whose showdown cards are not recorded
    unknown_stacks: int = 0  # replayed hands with a stand-in for an unknown stack
    posts: int = 0  # replayed hands with a live or dead post outside the blinds

    @property
    def exit_code(self) -> int:
        """0 every supported hand ok, 1 a failure, 2 no hand could be read."""
        return 2 if self.hands == 0 else 1 if self.failures else 0


def verify_paths(paths: Iterable[str | Path], *,
                 on_result: Callable[[ReplayResult, bool], None] | None = None,
                 on_progress: Callable[[int, float], None] | None = None) -> PhhVerification:
    """Replay every hand of the given files and folders (searched recursively). ``on_result``
    is called with each hand's result and False, or an unreadable file's error result and True;
    ``on_progress`` with (hands replayed, seconds) every ``PROGRESS_EVERY`` hands. Raises
    FileNotFoundError naming the paths that do not exist."""
    paths = list(paths)
    missing = [str(p) for p in paths if not Path(p).exists()]
    if missing:
        raise FileNotFoundError(f"no such file or folder: {', '.join(missing)}")
    t0 = time.perf_counter()
    files = list(iter_history_paths(paths))
    v = PhhVerification(files=len(files))
    for f in files:
        pf = read_history(f)
        for sk in pf.skipped:
            r = ReplayResult(source=sk.source, key=sk.key, index=0, variant="?", ok=False,
                             expected=None, actual=None, error=sk.describe(),
                             kind=f"unreadable: {sk.kind}")
            if not pf.hands:
                v.load_errors.append(r)
            v.reasons[str(r.kind)] += 1
            v.failures.append(r)
            if on_result is not None:
                on_result(r, not pf.hands)
        for i, h in enumerate(pf.hands):
            r = replay(h, i, minor_units=True)
            v.hands += 1
            if r.unsupported:
                v.unsupported[r.variant if r.variant not in SUPPORTED_VARIANTS else
                              f"{r.variant} (straddles)"] += 1
            elif r.ok:
                v.by_variant[r.variant]["ok"] += 1
            else:
                v.by_variant[r.variant]["mismatched" if r.error is None else "errors"] += 1
                v.failures.append(r)
                if r.error is None:
                    v.mismatched_hands += 1
                else:
                    v.reasons[r.kind or "error"] += 1
            if r.hand is not None:
                v.fold_free += r.free_folds
                v.unrecorded += any(r.cards_unrecorded)
                v.unknown_stacks += not all(r.stack_known)
                v.posts += any(r.posts) or any(r.dead)
            if on_result is not None:
                on_result(r, False)
            if on_progress is not None and v.hands % PROGRESS_EVERY == 0:
                on_progress(v.hands, time.perf_counter() - t0)
    v.seconds = time.perf_counter() - t0
    return v


def _in_file_units(vals: list[int] | list[int | Decimal] | None, scale: int) -> str:
    """Amounts replayed in 10**-scale units, written in the file's unit (``[1.50, 3]``)."""
    if vals is None or not scale:
        return format_amounts(vals)
    return format_amounts([Decimal(v).scaleb(-scale) for v in vals])


def _fractional_note(r: ReplayResult) -> str:
    exp = r.expected or []
    if any(not isinstance(x, int) for x in exp) and r.actual is not None and sum(exp) == sum(
            r.actual):
        diff: list[int | Decimal] = [a - e for a, e in zip(r.actual, exp, strict=True)]
        if all(-1 < d < 1 for d in diff):
            return " (the file splits an odd chip into fractions; same total)"
    if exp and r.actual is not None and sum(r.actual) > sum(exp):
        less = _in_file_units([sum(r.actual) - sum(exp)], r.scale)[1:-1]
        return f" (the file's stacks hold {less} less: rake?)"
    return ""


def format_unreadable(v: PhhVerification, max_failures: int = 10) -> str:
    """The message when no hand could be read (exit 2)."""
    lines = [f"phh verify: no hand could be read ({v.files} files, "
             f"{len(v.load_errors)} unreadable)"]
    lines += [f"  {r.error}" for r in v.load_errors[:max_failures]]
    return "\n".join(lines)


def format_summary(v: PhhVerification, max_failures: int = 10) -> str:
    """The summary: hands by variant, unsupported, the first ``max_failures`` failures, and
    OK or FAILED."""
    by_variant = v.by_variant
    supported = sum(sum(c.values()) for c in by_variant.values())
    ok = sum(c["ok"] for c in by_variant.values())
    mism = sum(c["mismatched"] for c in by_variant.values())
    errs = sum(c["errors"] for c in by_variant.values()) + len(v.load_errors)
    lines = [f"phh verify: {v.hands} hands in {v.files} files, {v.seconds:.1f} s",
             f"  supported hands: {supported}: ok {ok}, mismatched {mism}, errors {errs}"]
    for name in sorted(by_variant):
        c = by_variant[name]
        lines.append(f"    {name}: ok {c['ok']}, mismatched {c['mismatched']}, "
                     f"errors {c['errors']}")
    if v.load_errors:
        lines.append(f"    unreadable files: {len(v.load_errors)}")
    if v.unsupported:
        parts = ", ".join(f"{name} {k}" for name, k in sorted(v.unsupported.items()))
        lines.append(f"  unsupported (not counted): {sum(v.unsupported.values())}: {parts}")
    replayed = v.hands - sum(v.unsupported.values()) - sum(
        n for k, n in v.reasons.items() if k != K_UNSUPPORTED)
    lines.append(f"  replayed: {replayed} of {v.hands} ({v.mismatched_hands} with other finishing "
                 f"stacks); with posts {v.posts}, unknown stacks {v.unknown_stacks}, unrecorded "
                 f"showdown cards {v.unrecorded}, {FOLD_CHECK_FREE} {v.fold_free}")
    not_replayed = {k: n for k, n in v.reasons.items() if k != K_UNSUPPORTED}
    if not_replayed:
        parts = ", ".join(f"{k} {n}" for k, n in sorted(not_replayed.items(),
                                                         key=lambda kv: (-kv[1], kv[0])))
        lines.append(f"  not replayed: {sum(not_replayed.values())}: {parts}")
    if v.failures and max_failures > 0:
        lines.append(f"  first failures ({min(max_failures, len(v.failures))} of "
                     f"{len(v.failures)}):")
        for r in v.failures[:max_failures]:
            if r.error is not None:
                lines.append(f"    {r.error}")
            else:
                where = r.source if r.key is None else f"{r.source} [{r.key}]"
                lines.append(f"    {where}: finishing stacks: expected "
                             f"{_in_file_units(r.expected, r.scale)}, got "
                             f"{_in_file_units(r.actual, r.scale)}{_fractional_note(r)}")
    lines.append("OK" if not v.failures else "FAILED")
    return "\n".join(lines)
