"""``holdem regress``'s speed check: is this tree's engine, simulation or audit slower than the
baseline's? (``--no-speed`` skips it.)

Both sides run the same benchmarks (:mod:`cluster.regression.speed_probe`: the compiled engine's
random-play loop, ``holdem simulate`` in process, read + every audit of that run), each in
processes of its own with its own tree and compiled cache, in the same run and interleaved:
``rounds`` rounds of one process per side, the order alternating (baseline first, then
candidate first, ...), so a change of the machine's load during the check falls on both sides.
Each process warms its code up (untimed) and takes ``repeats`` samples, in CPU seconds.

Per benchmark: the median of each side's samples, the candidate's time per hand relative to the
baseline's (``slowdown`` = baseline median / candidate median; 1.25 = 25% more time per hand),
the noise (the median distance of a side's samples from its median, relative to that median),
and a one-sided Mann-Whitney p-value (the candidate's samples slower than the baseline's). The
verdict: SLOWER when a slowdown exceeds ``1 + tolerance`` (default 10%) and the samples confirm
it (p <= ``ALPHA``); a slowdown past the tolerance that the samples do not confirm (the machine's
noise: processes of the same code differ by 10-40% on a loaded machine) is said as unconfirmed,
with the advice to rerun with more rounds, and does not fail. Else SAME. The noise is always
shown; above the tolerance the verdict is marked uncertain.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from audits.runfolder.errors import InputError

BENCHES = ("engine", "simulate", "audit")
TOLERANCE = 0.10  # fail when the candidate takes more than 10% more time per hand
ALPHA = 0.05  # ... and the samples confirm it (one-sided Mann-Whitney)
ROUNDS = 3
REPEATS = 3
HANDS = 40_000  # simulate and audit; the engine plays 4x as many
PROBE = Path(__file__).with_name("speed_probe.py")


@dataclass
class SpeedFigure:
    """One benchmark on both sides: samples in hands/s per core."""

    bench: str
    baseline: list[float]
    candidate: list[float]

    @property
    def baseline_median(self) -> float:
        return statistics.median(self.baseline)

    @property
    def candidate_median(self) -> float:
        return statistics.median(self.candidate)

    @property
    def slowdown(self) -> float:
        """The candidate's time per hand over the baseline's (from the medians)."""
        return self.baseline_median / self.candidate_median

    @property
    def p_value(self) -> float:
        """One-sided Mann-Whitney: the candidate's hands/s below the baseline's."""
        from scipy.stats import mannwhitneyu

        return float(mannwhitneyu(self.candidate, self.baseline, alternative="less").pvalue)

    @property
    def noise(self) -> float:
        """The median distance of a side's samples from its median, relative to that median
        (the larger of the two sides)."""
        return max(statistics.median(abs(x - m) for x in xs) / m
                   for xs, m in ((self.baseline, self.baseline_median),
                                 (self.candidate, self.candidate_median)))


@dataclass
class SpeedResult:
    """The speed check's figures and verdict."""

    tolerance: float
    figures: list[SpeedFigure] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # bench -> why (not measured)

    @property
    def past_tolerance(self) -> list[SpeedFigure]:
        return [f for f in self.figures if f.slowdown > 1 + self.tolerance]

    @property
    def slower(self) -> list[SpeedFigure]:
        """Past the tolerance, and confirmed by the samples."""
        return [f for f in self.past_tolerance if f.p_value <= ALPHA]

    @property
    def unconfirmed(self) -> list[SpeedFigure]:
        return [f for f in self.past_tolerance if f.p_value > ALPHA]

    @property
    def noisy(self) -> list[SpeedFigure]:
        return [f for f in self.figures if f.noise > self.tolerance]

    @property
    def verdict(self) -> str:
        return "SLOWER" if self.slower else "SAME" if self.figures else "NOT MEASURED"

    @property
    def exit_code(self) -> int:
        return 1 if self.slower else 0


def speed_verdict(baseline: Mapping[str, Sequence[float]],
                  candidate: Mapping[str, Sequence[float]],
                  tolerance: float = TOLERANCE) -> SpeedResult:
    """The verdict from each side's samples (bench -> hands/s); a bench measured on one side
    only is listed as skipped."""
    res = SpeedResult(tolerance)
    for bench in dict.fromkeys([*baseline, *candidate]):
        b, c = list(baseline.get(bench) or []), list(candidate.get(bench) or [])
        if b and c and min(b) > 0 and min(c) > 0:
            res.figures.append(SpeedFigure(bench, b, c))
        else:
            res.skipped[bench] = "not measured on the " + ("baseline" if not b else "candidate")
    return res


def format_speed(res: SpeedResult) -> str:
    """The speed check's table and verdict line."""
    tol = f"{res.tolerance:.0%}"
    lines = [f"speed (hands/s per core, user CPU time, median of each side's samples; fails when "
             f"the candidate takes more than {tol} more time per hand and its samples confirm "
             f"it, one-sided Mann-Whitney p <= {ALPHA}):",
             f"  {'bench':<9} {'baseline':>12} {'candidate':>12} {'time/hand':>10} "
             f"{'noise':>7} {'p':>7}  samples"]
    for f in res.figures:
        mark = ("  SLOWER" if f in res.slower else "  unconfirmed" if f in res.unconfirmed
                else "")
        lines.append(f"  {f.bench:<9} {f.baseline_median:>12,.0f} {f.candidate_median:>12,.0f} "
                     f"{f.slowdown:>9.2f}x {f.noise:>6.1%} {f.p_value:>7.3f}  "
                     f"{len(f.baseline)} + {len(f.candidate)}{mark}")
    for bench, why in res.skipped.items():
        lines.append(f"  {bench:<9} {why}")
    verdict = f"speed: {res.verdict}"
    if res.slower:
        verdict += " (" + ", ".join(f"{f.bench} {f.slowdown:.2f}x the baseline's time per hand"
                                    for f in res.slower) + f"; tolerance {tol})"
    if res.unconfirmed:
        verdict += ("; unconfirmed by the samples: " + ", ".join(
            f"{f.bench} {f.slowdown:.2f}x (p {f.p_value:.2f})" for f in res.unconfirmed)
            + " (rerun with more --speed-rounds)")
    if res.noisy:
        verdict += (f"; uncertain: noise above the tolerance on "
                    f"{', '.join(f.bench for f in res.noisy)} (rerun with more --speed-rounds "
                    "on a quieter machine)")
    lines.append(verdict)
    return "\n".join(lines)


class ProbeError(InputError, RuntimeError):
    """A side's probe process failed (one line)."""


def probe(python: str, tree: Path, env_path: str | None, expect: Path, env: Mapping[str, str],
          benches: Sequence[str], hands: int, repeats: int) -> dict[str, object]:
    """One sample process of one side (``speed_probe``): its parsed JSON line."""
    full = dict(os.environ)
    full.pop("RAY_ADDRESS", None)
    full.update(env)
    if env_path is None:
        full.pop("PYTHONPATH", None)
    else:
        full["PYTHONPATH"] = env_path
    r = subprocess.run([python, "-c", PROBE.read_text(), ",".join(benches), str(hands),
                        str(repeats)], capture_output=True, text=True, env=full, cwd=str(tree),
                       check=False)
    lines = [x for x in r.stdout.splitlines() if x.startswith("{")]
    if r.returncode != 0 or not lines:
        err = [x for x in r.stderr.strip().splitlines() if x.strip()]
        raise ProbeError(f"{tree}: the speed probe failed (exit {r.returncode}): "
                         f"{err[-1] if err else '(no output)'}")
    try:
        out = json.loads(lines[-1])
        files, _, _ = list(out["files"]), dict(out["samples"]), dict(out["errors"])
    except (ValueError, KeyError, TypeError):
        raise ProbeError(f"{tree}: the speed probe printed no result: {lines[-1][:200]}") from None
    for f in files:
        if not Path(f).resolve().is_relative_to(expect.resolve()):
            raise ProbeError(f"{tree}: the speed probe imported {f}, not from {expect}")
    return dict(out)


@dataclass
class Side:
    """How to run one side: its interpreter, tree (the probe's working directory), PYTHONPATH
    (None: the installed package), where its modules must come from, its cache environment."""

    python: str
    tree: Path
    env_path: str | None
    expect: Path
    env: dict[str, str]


def run_speed_check(baseline: Side, candidate: Side, *, benches: Sequence[str] = BENCHES,
                    hands: int = HANDS, rounds: int = ROUNDS, repeats: int = REPEATS,
                    tolerance: float = TOLERANCE,
                    say: Callable[[str], None] = print) -> SpeedResult:
    """Interleave ``rounds`` probe processes per side (the order alternating), collect their
    samples, and return the verdict (see the module doc)."""
    samples: dict[str, dict[str, list[float]]] = {"baseline": {}, "candidate": {}}
    errors: dict[str, dict[str, str]] = {"baseline": {}, "candidate": {}}
    sides = {"baseline": baseline, "candidate": candidate}
    for r in range(rounds):
        order = ("baseline", "candidate") if r % 2 == 0 else ("candidate", "baseline")
        for name in order:
            s = sides[name]
            out = probe(s.python, s.tree, s.env_path, s.expect, s.env, benches, hands, repeats)
            for bench, xs in dict(out["samples"]).items():  # type: ignore[call-overload]
                samples[name].setdefault(bench, []).extend(xs)
            errors[name].update(dict(out["errors"]))  # type: ignore[call-overload]
        say(f"speed: round {r + 1} of {rounds} measured ({' then '.join(order)})")
    res = speed_verdict(samples["baseline"], samples["candidate"], tolerance)
    measured = {f.bench for f in res.figures}
    for name, errs in errors.items():
        for bench, why in errs.items():
            if bench not in measured:
                res.skipped[bench] = f"not measured on the {name}: {why}"
    return res
