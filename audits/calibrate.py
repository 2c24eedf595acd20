"""Calibration of the deck uniformity battery: false-alarm rates on fair decks and detection
rates of known shuffle faults at stated sample sizes.

    .venv/bin/python -m audits.calibrate --runs 500 --out calibration

writes ``calibration.md`` (the tables) and ``calibration.json``. Decks come from
``audits.shuffles`` (never from the simulator); each run is mapped in batches and reduced exactly
as a real audit is, with hole cards dealt from the top of each deck to 9 seats at tables of 500
hands (the button moving one seat a hand; the 9 players of a table given ids for the player
tests). ``seat0_best_of_class`` is a rig on fair decks: seat 0 gets the best hand of its class
at the table (issue 23's H3), which only the tests of who receives the cards see.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from audits import shuffles, stats
from audits.runfolder import storage
from audits.seats import TESTS as SEAT_TESTS
from audits.uniformity import ALPHA, TESTS, map_decks, uniformity_reduce

SEATS = 9
CLEAN_DECKS = 20_000
# fault -> sizes (decks per run); the targets: ASF <= 1,000, 8-bit modulo <= 20,000,
# 32-bit seed space <= 10,000,000
FAULT_SIZES: dict[str, tuple[int, ...]] = {
    "asf_off_by_one": (250, 500, 1_000),
    "naive_swap": (500, 1_000, 5_000),
    "eight_bit_modulo": (2_000, 5_000, 10_000, 20_000),
    "seed32": (100_000, 1_000_000, 10_000_000),
    "seat0_best_of_class": (2_000, 5_000, 10_000, 100_000),
}
TARGETS = {"asf_off_by_one": 1_000, "eight_bit_modulo": 20_000, "seed32": 10_000_000,
           "seat0_best_of_class": 100_000}
# rigs: applied to fair decks knowing the table's seats (``shuffles.seat0_best_of_class``)
RIGS = {"seat0_best_of_class": shuffles.seat0_best_of_class}
TABLE_HANDS = 500  # hands a calibration table plays (its 9 players' ids)


def run_once(shuffle: str, decks: int, rng: np.random.Generator, batch: int | None = None,
             alpha: float = ALPHA) -> dict[str, Any]:
    """Audit one run of ``decks`` decks from ``shuffle`` (in ``batch``-deck batches, default
    10 batches): the battery verdict and raw p-values."""
    gen = shuffles.SHUFFLES["fair" if shuffle in RIGS else shuffle]
    batch = batch or max(decks // 10, 1)
    parts = []
    for a in range(0, decks, batch):
        d = gen(min(batch, decks - a), rng)
        if shuffle in RIGS:
            d = RIGS[shuffle](d, SEATS, a)
        hands = np.arange(a, a + d.shape[0], dtype=np.int64)
        players = (hands // TABLE_HANDS)[:, None] * 16 + np.arange(SEATS)
        parts.append(map_decks(d, shuffles.deal_hole(d, SEATS, a, rotate=True), hand_id=hands,
                               player_ids=players))
    res = uniformity_reduce(parts, alpha)
    return {"rejected": not res[0].passed,
            "p": {r.name.split(".", 1)[1]: r.p_value for r in res[1:] if r.applicable},
            "failed_tests": res[0].details["failed_tests"]}


def _rate(k: int, n: int) -> dict[str, Any]:
    lo, hi = stats.wilson_interval(k, n)
    return {"count": k, "runs": n, "rate": k / n if n else 0.0, "ci95": [lo, hi]}


def _summarise(outs: list[dict[str, Any]], alpha: float) -> dict[str, Any]:
    n = len(outs)
    tests: dict[str, Any] = {}
    for t in TESTS:
        ps = [o["p"][t] for o in outs if t in o["p"]]
        if ps:
            tests[t] = _rate(sum(p <= alpha for p in ps), len(ps))
    return {"battery": _rate(sum(o["rejected"] for o in outs), n), "tests": tests}


def calibrate(runs: int = 200, sizes: dict[str, tuple[int, ...]] | None = None, seed: int = 0,
              fault_runs: int = 50, big_runs: int = 3, clean_decks: int = CLEAN_DECKS,
              alpha: float = ALPHA) -> dict[str, Any]:
    """False-alarm rates (``runs`` fair runs of ``clean_decks`` decks in 10 batches) and the
    detection rate of every fault at every size (``fault_runs`` runs; ``big_runs`` for sizes
    >= 1,000,000 decks)."""
    sizes = FAULT_SIZES if sizes is None else sizes
    rng = np.random.Generator(np.random.Philox(seed))
    t0 = time.perf_counter()
    clean = [run_once("fair", clean_decks, rng, None, alpha) for _ in range(runs)]
    out: dict[str, Any] = {
        "alpha": alpha, "seed": seed,
        "clean": {"decks": clean_decks, "batches": 10, **_summarise(clean, alpha)},
        "faults": {}, "targets": TARGETS,
    }
    t_clean = time.perf_counter() - t0
    for fault, ns in sizes.items():
        out["faults"][fault] = {}
        for n in ns:
            reps = big_runs if n >= 1_000_000 else fault_runs
            outs = [run_once(fault, n, rng, None, alpha) for _ in range(reps)]
            out["faults"][fault][str(n)] = _summarise(outs, alpha)
    out["power"] = {str(n): stats.power_summary(n, alpha) for n in (1_000_000, 10_000_000,
                                                                    100_000_000)}
    out["seconds"] = {"clean": t_clean, "total": time.perf_counter() - t0}
    return out


def _pct(r: dict[str, Any]) -> str:
    lo, hi = r["ci95"]
    return f"{r['rate']:.1%} [{lo:.1%}, {hi:.1%}]"


def to_markdown(results: dict[str, Any]) -> str:
    """The calibration as Markdown tables."""
    a = results["alpha"]
    c = results["clean"]
    lines = [
        f"### False alarms on fair decks ({c['battery']['runs']} runs of {c['decks']:,} decks, "
        f"{c['batches']} batches each; alpha = {a:g}, 95% Wilson intervals)",
        "",
        "| test | rejections | rate |",
        "|---|---:|---|",
        f"| **battery (Holm)** | {c['battery']['count']} | {_pct(c['battery'])} |",
    ]
    for t, r in c["tests"].items():
        lines.append(f"| {t} | {r['count']} | {_pct(r)} |")
    lines += ["", "### Detection of shuffle faults (battery with Holm, alpha = "
              f"{a:g})", "", "| fault | decks | runs | detected | tests that fired (raw p <= "
              "alpha, share of runs) |", "|---|---:|---:|---|---|"]
    for fault, by_n in results["faults"].items():
        for n, s in by_n.items():
            fired = ", ".join(f"{t} {r['rate']:.0%}" for t, r in s["tests"].items()
                              if r["rate"] >= 0.5)
            lines.append(f"| {fault} | {int(n):,} | {s['battery']['runs']} | "
                         f"{_pct(s['battery'])} | {fired or '-'} |")
    lines += _seat_markdown(results)
    lines += ["", "### Power of the card x position tests (probability 0.9, alpha 0.01)", ""]
    for _, p in results["power"].items():
        lines.append(f"- {p['sentence']}")
    any_p = next(iter(results["power"].values()))
    lines.append(f"- A 1% bias in one cell needs {any_p['decks_for_1pct_cell_single']:,.0f} decks "
                 f"(one pre-specified cell), {any_p['decks_for_1pct_cell_bonferroni']:,.0f} "
                 f"(largest cell, Bonferroni), {any_p['decks_for_1pct_chi2']:,.0f} (global "
                 "chi-square).")
    sec = results["seconds"]
    lines += ["", f"Calibration time: {sec['total']:.0f} s (seed {results['seed']})."]
    return "\n".join(lines) + "\n"


def _seat_markdown(results: dict[str, Any]) -> list[str]:
    """The tests of who receives the cards on their own: false alarms and the seat-0 rig."""
    c = results["clean"]
    seat = [(t, c["tests"][t]) for t in SEAT_TESTS if t in c["tests"]]
    rig = results["faults"].get("seat0_best_of_class")
    if not seat and not rig:
        return []
    lines = ["", "### Who receives the cards (seat and player tests, issue 23 H3)", ""]
    if seat:
        lines.append("False alarms (raw p <= alpha) on the fair runs above: " + "; ".join(
            f"{t} {r['count']}/{r['runs']} = {_pct(r)}" for t, r in seat))
    if rig:
        target = results.get("targets", {}).get("seat0_best_of_class")
        lines.append("")
        lines.append("Seat 0 dealt the best hand of its class at the table (fair decks, the "
                     "hands swapped; 9 seats, the button moving): the battery (Holm) FAILS it in "
                     + "; ".join(f"{_pct(s['battery'])} of {s['battery']['runs']} runs of "
                                 f"{int(n):,} hands" for n, s in rig.items())
                     + (f" (target: at most {target:,} hands)" if target else "") + "; the deck "
                     "tests alone: " + "; ".join(
                         f"{int(n):,} hands {_deck_only(s)}" for n, s in rig.items()) + ".")
    return lines


def _deck_only(s: dict[str, Any]) -> str:
    """How often any deck test fired (raw p <= alpha) in a fault's runs."""
    rates = [r["rate"] for t, r in s["tests"].items() if t not in SEAT_TESTS]
    if not rates or max(rates) == 0:
        return "no deck test fired"
    return f"at most {max(rates):.0%} of runs for any one test"


def write_table(results: dict[str, Any], path: str | Path) -> tuple[Path, Path]:
    """Write ``<path>.md`` and ``<path>.json`` (``path`` may carry either suffix or none)."""
    base = Path(path)
    if base.suffix in (".md", ".json"):
        base = base.with_suffix("")
    md, js = base.with_suffix(".md"), base.with_suffix(".json")
    md.parent.mkdir(parents=True, exist_ok=True)
    storage.write_atomic(md, to_markdown(results))
    storage.write_atomic(js, json.dumps(results, indent=2))
    return md, js


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200, help="fair runs for the false-alarm rate")
    ap.add_argument("--fault-runs", type=int, default=50, help="runs per fault and size")
    ap.add_argument("--big-runs", type=int, default=3, help="runs for sizes >= 1,000,000")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="calibration", help="output path without suffix")
    args = ap.parse_args(argv)
    res = calibrate(runs=args.runs, seed=args.seed, fault_runs=args.fault_runs,
                    big_runs=args.big_runs)
    md, js = write_table(res, args.out)
    print(to_markdown(res))
    print(f"wrote {md} and {js}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
