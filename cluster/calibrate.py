"""``holdem calibrate``: how often each audit raises a false alarm on clean runs, and how often
it catches each injected fault of the engine (``--inject``).

Two parts:
- the exact audits against the engine's own faults (this module: simulate with ``sim``, audit
  with ``audits`` in this process): every fault must be caught in 100% of runs, and clean runs
  must never fail an exact audit;
- the deck-uniformity battery against reference shuffles at stated deck counts, false alarms
  near alpha (``audits.calibrate``, which deals its own decks at millions a second).

Writes ``calibration.md`` and ``calibration.json`` into ``--out``.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

# fault -> the audit that must catch it
EXACT_FAULTS = {
    "odd-chip-wrong-seat": "payouts",
    "side-pot-ignores-eligibility": "payouts",
    "chip-lost": "chips",
    "button-skips": "rotation",
    "bb-twice": "rotation",
    "short-allin-reopens": "betting",
}
EXACT_AUDITS = ("deal", "chips", "rotation", "payouts", "betting")


def _run(spec: Any, names: tuple[str, ...]) -> dict[str, bool]:
    from audits.runner import run_audits
    from cluster.simulate import run_simulate

    with tempfile.TemporaryDirectory() as tmp:
        run_simulate(spec, tmp, workers=0, progress=False)
        report = run_audits(tmp, list(names), workers=0)
    return {r.name: r.passed for r in report.results}


def calibrate_exact(runs: int = 5, hands: int = 60_000, seed: int = 100,
                    log: Any = print) -> dict[str, Any]:
    """Detection rate of each engine fault by its audit, and false alarms of the exact audits
    on clean runs (same seeds), over ``runs`` runs of ``hands`` hands (cash, no-limit and
    tournament alternately)."""
    from sim.runspec import RunSpec

    out: dict[str, Any] = {"runs": runs, "hands": hands, "faults": {}, "clean": {}}
    clean_fail = dict.fromkeys(EXACT_AUDITS, 0)
    for r in range(runs):
        fmt = "cash" if r % 2 == 0 else "tournament"
        spec = RunSpec(hands=hands, batch_size=hands, seed=seed + r, format=fmt)
        for name, ok in _run(spec, EXACT_AUDITS).items():
            clean_fail[name] += not ok
    out["clean"] = {a: {"false_alarms": k, "runs": runs} for a, k in clean_fail.items()}
    log(f"clean runs: false alarms {clean_fail}")
    for fault, audit in EXACT_FAULTS.items():
        caught = 0
        for r in range(runs):
            fmt = "cash" if r % 2 == 0 else "tournament"
            spec = RunSpec(hands=hands, batch_size=hands, seed=seed + r, format=fmt, inject=fault)
            caught += not _run(spec, (audit,))[audit]
        out["faults"][fault] = {"audit": audit, "caught": caught, "runs": runs}
        log(f"{fault}: caught by {audit} in {caught}/{runs} runs of {hands:,} hands")
    return out


def to_markdown(exact: dict[str, Any]) -> str:
    lines = [f"### Exact audits against the engine's faults ({exact['runs']} runs of "
             f"{exact['hands']:,} hands each, cash and tournament alternately)", "",
             "| fault | audit | caught |", "|---|---|---|"]
    for fault, r in exact["faults"].items():
        lines.append(f"| {fault} | {r['audit']} | {r['caught']}/{r['runs']} |")
    lines += ["", "| exact audit | false alarms on clean runs |", "|---|---|"]
    for a, r in exact["clean"].items():
        lines.append(f"| {a} | {r['false_alarms']}/{r['runs']} |")
    return "\n".join(lines) + "\n"


def run_calibration(out: str | Path, runs: int = 5, hands: int = 60_000,
                    uniformity_runs: int = 200) -> Path:
    """Both parts; returns the Markdown file."""
    from audits import calibrate as ucal

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    exact = calibrate_exact(runs=runs, hands=hands)
    uni = ucal.calibrate(runs=uniformity_runs)
    md = to_markdown(exact) + "\n" + ucal.to_markdown(uni)
    md += f"\nCalibration time: {time.perf_counter() - t0:.0f} s.\n"
    (out / "calibration.md").write_text(md)
    (out / "calibration.json").write_text(json.dumps({"exact": exact, "uniformity": uni},
                                                     indent=2, default=str))
    return out / "calibration.md"
