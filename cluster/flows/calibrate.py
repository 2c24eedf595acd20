"""``holdem calibrate``: how often each audit raises a false alarm on clean runs, and how often
it catches each injected fault of the engine (``--inject``).

Two parts:
- the exact audits against the engine's own faults (this module: simulate with ``sim``, audit
  with ``audits`` in this process): every fault must be caught in 100% of the runs it fired in,
  and clean runs must never fail an exact audit. A fault that fires in some hands only (1 hand of
  50, 1 showdown of 20, 1 hand of 10,000) may not fire at all in a short run: the engine counts
  the hands it changed (the manifest's ``counts.total.fault_fired``), and a run counts as a
  detection only when the fault fired in it. Both are reported: the runs it fired in, and the
  detections among them (plus any failure of the audit in a run it did not fire in, which would
  be a false alarm);
- the deck-uniformity battery against reference shuffles at stated deck counts, false alarms
  near alpha (``audits.calibrate``, which deals its own decks at millions a second), with its
  tests of who receives the cards (``audits.seats``) against the seat-0 rig of issue 23 (H3:
  seat 0 dealt the best hand of its class at the table), whose target is a FAIL at 100,000
  hands or fewer;
- the deal tests that condition on the game (run-outs, boards after big pots, the seats pooled,
  per-player over-dispersion): false alarms on fair runs of each kind (keyed, os-chacha20,
  imported) within their binomial band, and their power against rigged dealers beside the
  power the certificate's formula predicts (``calibrate_game``).

Writes ``calibration.md`` and ``calibration.json`` into ``--out``.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from audits.runfolder import storage

# fault -> the audit that must catch it
EXACT_FAULTS = {
    "odd-chip-wrong-seat": "payouts",
    "side-pot-ignores-eligibility": "payouts",
    "chip-lost": "chips",
    "button-skips": "rotation",
    "bb-twice": "rotation",
    "short-allin-reopens": "betting",
    "mucks-winner": "payouts",
    "wrong-stream-position": "deal",
}
EXACT_AUDITS = ("deal", "chips", "rotation", "payouts", "betting")


def _run(spec: Any, names: tuple[str, ...]) -> tuple[dict[str, bool], int]:
    """Simulate ``spec`` and audit it: ({audit: passed}, hands the injected fault fired in)."""
    from audits.runner import run_audits
    from cluster.flows.simulate import run_simulate

    with tempfile.TemporaryDirectory() as tmp:
        manifest = run_simulate(spec, tmp, workers=0, progress=False)
        report = run_audits(tmp, list(names))
    fired = manifest.count("fault_fired")
    return {r.name: r.passed for r in report.results}, fired


def calibrate_exact(runs: int = 5, hands: int = 60_000, seed: int = 100,
                    log: Any = print, faults: dict[str, str] | None = None) -> dict[str, Any]:
    """Detection rate of each engine fault by its audit, and false alarms of the exact audits
    on clean runs (same seeds), over ``runs`` runs of ``hands`` hands (cash, no-limit and
    tournament alternately). ``faults``: fault -> audit (default ``EXACT_FAULTS``).

    Per fault: ``fired`` runs (the fault changed at least one hand), ``caught`` among them,
    ``hands_fired`` over all runs, and ``failed_unfired``: runs the fault did not fire in but
    the audit failed (a false alarm; not a detection)."""
    from sim.runspec import RunSpec

    faults = EXACT_FAULTS if faults is None else faults
    out: dict[str, Any] = {"runs": runs, "hands": hands, "faults": {}, "clean": {}}
    clean_fail = dict.fromkeys(EXACT_AUDITS, 0)
    for r in range(runs):
        fmt = "cash" if r % 2 == 0 else "tournament"
        spec = RunSpec(hands=hands, batch_size=hands, seed=seed + r, format=fmt)
        passed, fired = _run(spec, EXACT_AUDITS)
        if fired:
            raise RuntimeError(f"a clean run reports fault_fired = {fired}")
        for name, ok in passed.items():
            clean_fail[name] += not ok
    out["clean"] = {a: {"false_alarms": k, "runs": runs} for a, k in clean_fail.items()}
    log(f"clean runs: false alarms {clean_fail}")
    for fault, audit in faults.items():
        fired_runs = caught = failed_unfired = hands_fired = 0
        for r in range(runs):
            fmt = "cash" if r % 2 == 0 else "tournament"
            spec = RunSpec(hands=hands, batch_size=hands, seed=seed + r, format=fmt, inject=fault)
            passed, fired = _run(spec, (audit,))
            hands_fired += fired
            if fired:
                fired_runs += 1
                caught += not passed[audit]
            else:
                failed_unfired += not passed[audit]
        out["faults"][fault] = {"audit": audit, "runs": runs, "fired": fired_runs,
                                "caught": caught, "hands_fired": hands_fired,
                                "failed_unfired": failed_unfired}
        log(f"{fault}: fired in {fired_runs}/{runs} runs of {hands:,} hands ({hands_fired:,} "
            f"hands), caught by {audit} in {caught}/{fired_runs} of them"
            + (f"; {audit} failed in {failed_unfired} runs it did not fire in"
               if failed_unfired else ""))
    return out


def to_markdown(exact: dict[str, Any]) -> str:
    lines = [f"### Exact audits against the engine's faults ({exact['runs']} runs of "
             f"{exact['hands']:,} hands each, cash and tournament alternately)", "",
             "A run counts as a detection only when the fault fired in it (changed at least one "
             "hand); *fired* is the runs it fired in, *caught* the detections among them.", "",
             "| fault | audit | fired | caught | hands fired | failed, not fired |",
             "|---|---|---|---|---:|---|"]
    for fault, r in exact["faults"].items():
        lines.append(f"| {fault} | {r['audit']} | {r['fired']}/{r['runs']} | "
                     f"{r['caught']}/{r['fired']} | {r['hands_fired']:,} | "
                     f"{r['failed_unfired']}/{r['runs'] - r['fired']} |")
    lines += ["", "| exact audit | false alarms on clean runs |", "|---|---|"]
    for a, r in exact["clean"].items():
        lines.append(f"| {a} | {r['false_alarms']}/{r['runs']} |")
    return "\n".join(lines) + "\n"


PARTS = ("exact", "uniformity", "game")


def run_calibration(out: str | Path, runs: int = 5, hands: int = 60_000,
                    uniformity_runs: int = 200, uniformity_big_runs: int = 3,
                    game_runs: int = 200, game_hands: int = 2_000, rig_runs: int = 40,
                    parts: tuple[str, ...] = PARTS) -> Path:
    """The ``parts`` asked for; returns the Markdown file. ``uniformity_runs``: runs of the
    uniformity battery per deck count (fair decks, and each shuffle fault's deck counts below
    1,000,000); ``uniformity_big_runs``: runs per deck count of 1,000,000 or more;
    ``game_runs`` fair runs of ``game_hands`` hands of each kind and ``rig_runs`` runs per rig
    and strength for the deal tests that condition on the game (``calibrate_game``)."""
    from audits import calibrate as ucal
    from cluster.flows import calibrate_game

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    md, js = "", {}
    if "exact" in parts:
        js["exact"] = calibrate_exact(runs=runs, hands=hands)
        md += to_markdown(js["exact"]) + "\n"
    if "uniformity" in parts:
        js["uniformity"] = ucal.calibrate(runs=uniformity_runs, fault_runs=uniformity_runs,
                                          big_runs=uniformity_big_runs)
        md += ucal.to_markdown(js["uniformity"]) + "\n"
    if "game" in parts:
        js["game"] = calibrate_game.calibrate_game(runs=game_runs, hands=game_hands,
                                                   rig_runs=rig_runs)
        md += calibrate_game.to_markdown(js["game"]) + "\n"
    md += f"Calibration time: {time.perf_counter() - t0:.0f} s.\n"
    storage.write_atomic(out / "calibration.md", md)
    storage.write_atomic(out / "calibration.json", json.dumps(js, indent=2, default=str))
    return out / "calibration.md"
