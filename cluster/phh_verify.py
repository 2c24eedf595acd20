"""``holdem phh verify PATH...``: replay every hand of hand history files and folders through the
engine (``sim.phh_verify.replay``) and tally the verdicts.

Files are read by ``sim.histories.read_history``: PHH/PHHS or a site's text export (detected from
the content), hand by hand; a hand that cannot be read is an error of its own (its reason) and
the other hands of its file are replayed.

A hand is ok iff it replays without error and, when the file has ``finishing_stacks``, our
stacks equal them. Hands of other games (or with straddles) are *unsupported*: they are listed
apart, their JSON line says ``"ok": false`` with an error starting ``unsupported``, and they do
not change the exit code. Exit 0 iff every supported hand is ok, 1 otherwise, 2 when a path
does not exist or no hand could be read (``PhhVerification.exit_code``).
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from sim.histories import iter_history_paths, read_history
from sim.phh import SUPPORTED_VARIANTS, format_amounts
from sim.phh_verify import FOLD_CHECK_FREE, ReplayResult, replay

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
    fold_free: list[str] = field(default_factory=list)  # folds while checking was free

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
        got = read_history(f)
        for sk in got.skipped:
            r = ReplayResult(source=str(f), key=sk.key, index=0, variant="?", ok=False,
                             expected=None, actual=None, error=sk.describe())
            v.load_errors.append(r)
            v.failures.append(r)
            if on_result is not None:
                on_result(r, True)
        for i, h in enumerate(got.hands):
            r = replay(h, i)
            v.hands += 1
            if r.unsupported:
                v.unsupported[r.variant if r.variant not in SUPPORTED_VARIANTS else
                              f"{r.variant} (straddles)"] += 1
            elif r.ok:
                v.by_variant[r.variant]["ok"] += 1
            else:
                v.by_variant[r.variant]["mismatched" if r.error is None else "errors"] += 1
                v.failures.append(r)
                if r.error is not None and FOLD_CHECK_FREE in r.error:
                    v.fold_free.append(r.error)
            if on_result is not None:
                on_result(r, False)
            if on_progress is not None and v.hands % PROGRESS_EVERY == 0:
                on_progress(v.hands, time.perf_counter() - t0)
    v.seconds = time.perf_counter() - t0
    return v


def _fractional_note(r: ReplayResult) -> str:
    exp = r.expected or []
    if any(not isinstance(x, int) for x in exp) and r.actual is not None and sum(exp) == sum(
            r.actual):
        diff: list[int | Decimal] = [a - e for a, e in zip(r.actual, exp, strict=True)]
        if all(-1 < d < 1 for d in diff):
            return " (the file splits an odd chip into fractions; same total)"
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
        lines.append(f"    unreadable (files or hands): {len(v.load_errors)}")
    if v.unsupported:
        parts = ", ".join(f"{name} {k}" for name, k in sorted(v.unsupported.items()))
        lines.append(f"  unsupported (not counted): {sum(v.unsupported.values())}: {parts}")
    if v.fold_free:
        lines.append(f"  folds while checking was free (rejected by the engine): "
                     f"{len(v.fold_free)}")
    if v.failures and max_failures > 0:
        lines.append(f"  first failures ({min(max_failures, len(v.failures))} of "
                     f"{len(v.failures)}):")
        for r in v.failures[:max_failures]:
            if r.error is not None:
                lines.append(f"    {r.error}")
            else:
                where = r.source if r.key is None else f"{r.source} [{r.key}]"
                lines.append(f"    {where}: finishing stacks: expected "
                             f"{format_amounts(r.expected)}, got {r.actual}{_fractional_note(r)}")
    lines.append("OK" if not v.failures else "FAILED")
    return "\n".join(lines)
