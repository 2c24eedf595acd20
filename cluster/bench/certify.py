"""``holdem bench certify``: what each step of ``holdem certify`` costs per hand, in this process
(CPU seconds of every thread, per core), and the reproduction's two modes side by side.

One run of ``hands`` no-limit hands (100,000-hand batches) is simulated once per round into a
fresh folder (its writer's sha256 kept, as certify keeps them); then, in each round, in turn:

- ``audit``: every audit over the folder (``audit_run``, as ``holdem audit`` runs them);
- ``audit + reproduce values``: the same audit with every batch re-simulated in its file's task
  and compared with what the task decoded (``--reproduce values``, certify's default);
- ``reproduce bytes``: every batch re-simulated, encoded again and compared byte for byte after
  the audit (``--reproduce bytes``, ``cluster.flows.reproduce.reproduce_spec``).

The values mode's own cost (``reproduce values``) is the CPU its tasks spent re-simulating and
comparing, the audit's read and maps aside (timed inside each task); ``values, by difference``
is ``audit + reproduce values`` less ``audit`` of the same round (what the whole step adds,
noisier: two audits' reduces). The peer is the bytes mode measured in the same round. Medians
over the rounds.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _cpu(fn: Callable[[], Any]) -> tuple[float, Any]:
    c0 = time.process_time()
    out = fn()
    return time.process_time() - c0, out


def _round(spec: Any, out: Path) -> dict[str, float]:
    """One round on a fresh folder: each step's CPU µs per hand."""
    from audits.runfolder import batch_relpath
    from cluster.flows.audit import audit_run
    from cluster.flows.reproduce import reproduce_spec
    from cluster.flows.reproduce_values import ValuesJob, outcome
    from cluster.flows.simulate import run_simulate

    sim, manifest = _cpu(lambda: run_simulate(spec, out, workers=0, progress=False))
    planned = {batch_relpath(s.label, b): (s.label, b) for s, b in spec.plan()}
    job = ValuesJob(spec, str(out), planned, dict(manifest.written))
    audit, _ = _cpu(lambda: audit_run(str(out), workers=0, progress=False))
    both, audited = _cpu(lambda: audit_run(str(out), workers=0, progress=False, reproduce=job))
    rep = outcome(spec, str(out), audited.extras, job, workers=0, address=None)
    byt, rb = _cpu(lambda: reproduce_spec(spec, str(out), workers=0))
    if not (rep.ok and rb.ok):
        raise RuntimeError(f"the bench's run did not reproduce: {rep.message} / {rb.message}")
    shutil.rmtree(out, ignore_errors=True)
    n = manifest.hands
    own = sum(float(e[0].get("cpu") or 0.0) for e in audited.extras.values() if e)
    return {k: v / n * 1e6 for k, v in (
        ("simulate", sim), ("audit", audit), ("audit + reproduce values", both),
        ("reproduce values", own), ("values, by difference", both - audit),
        ("reproduce bytes", byt))}


def run_certify_bench(hands: int = 200_000, repeats: int = 3, population: str = "default",
                      say: Callable[[str], None] = print) -> dict[str, Any]:
    """Print the figures (µs per hand, medians of ``repeats`` rounds); return them."""
    from cluster.bench.runs import bench_spec

    spec = bench_spec(population, hands=hands, batch_size=min(hands, 100_000), seed=1)
    tmp = Path(tempfile.mkdtemp(prefix="holdem-bench-certify-"))
    rows: dict[str, list[float]] = {}
    try:
        # a small untimed round first: every kernel loaded, every module imported
        _round(bench_spec(population, hands=1000, batch_size=1000, seed=1), tmp / "warm-up")
        for r in range(repeats):
            for k, v in _round(spec, tmp / f"run-{r}").items():
                rows.setdefault(k, []).append(v)
            say(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.2f}" for k, v in rows.items())
                + " µs/hand")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    med = {k: statistics.median(v) for k, v in rows.items()}
    say(f"holdem certify, {hands:,} no-limit hands ({population} population), 1 core, CPU "
        f"µs/hand, medians of {repeats}:")
    for k, v in med.items():
        say(f"  {k:<26} {v:6.2f}")
    say(f"  reproduction: values {med['reproduce values']:.2f} against bytes "
        f"{med['reproduce bytes']:.2f} µs/hand (the peer, same rounds)")
    return {"us_per_hand": med, "rounds": rows, "hands": hands}
