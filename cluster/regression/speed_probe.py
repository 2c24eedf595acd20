"""One side's sample of ``holdem regress``'s speed check, run in a process of its own:
``python -c <this file's text> BENCHES HANDS REPEATS`` with ``PYTHONPATH`` (and the working
directory) set to that side's tree, so the baseline's engine runs under the baseline's code and
the candidate's under the candidate's. Prints one JSON line: ``{"files": [sim, cluster],
"samples": {bench: [hands/s per core, ...]}, "errors": {bench: one line}}``.

It calls only what every version of the project since the benchmarks were written has (the
compiled engine's random-play loop, ``run_simulate``, the audit benchmark), each warmed up
first (one untimed run of the same size: code loaded, buffers allocated), and times with the
user CPU time of the process (all its threads), not the wall clock: the neighbours' load counts
less. This file imports nothing at
module level beyond the standard library (it must run against any tree).
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SEATS, STACK = 6, 200


def _cpu() -> float:
    """User CPU seconds of this process (all threads): the kernel's part (page faults of fresh
    memory) swings with the machine's load, not with the code; without ``resource``, the
    process time."""
    try:
        import resource
    except ImportError:
        return time.process_time()
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime


def _engine(hands: int, repeats: int) -> list[float]:
    from cluster.bench.engine import play_random_hands
    from sim.config import Structure, TableConfig
    from sim.hand import config_block

    cfg = config_block(TableConfig(n_seats=SEATS, structure=Structure.NO_LIMIT, small_blind=1,
                                   big_blind=2))
    play_random_hands(cfg, hands, SEATS, STACK, 99)  # compiled code loaded, caches warm
    out = []
    for r in range(repeats):
        c0 = _cpu()
        play_random_hands(cfg, hands, SEATS, STACK, 1 + r)
        out.append(hands / (_cpu() - c0))
    return out


def _simulate(hands: int, repeats: int, tmp: Path) -> tuple[list[float], Path]:
    from cluster.flows.simulate import run_simulate
    from sim.config import Structure
    from sim.runspec import DEFAULT_POPULATION, RunSpec

    def spec(n: int, seed: int) -> Any:
        return RunSpec(hands=n, batch_size=min(n, 10_000), structures=(Structure.NO_LIMIT,),
                       seed=seed, **DEFAULT_POPULATION)

    # the first run of a process is slower (code loaded, the batch's buffers allocated): one
    # untimed run of the same shape first
    run_simulate(spec(hands, 99), tmp / "warm", workers=0, progress=False)
    out = []
    for _ in range(repeats):
        shutil.rmtree(tmp / "run", ignore_errors=True)
        c0 = _cpu()
        run_simulate(spec(hands, 7), tmp / "run", workers=0, progress=False)
        out.append(hands / (_cpu() - c0))
    return out, tmp / "run"


def _audit(hands: int, repeats: int, run: Path) -> list[float]:
    from cluster.bench.audit import run_audit_bench

    def one() -> float:
        # read (its user time where the bench gives it: the kernel's page faults swing with the
        # load) + every audit's map; each the median of 3 passes over the files
        r = run_audit_bench(hands, str(run), repeats=3, show=False)
        read_us = r.get("read_user_us") or 1e6 / r["read"]
        return float(1e6 / (read_us + 1e6 / r["all_audits"]))

    runs = [one() for _ in range(repeats + 1)]
    return runs[1:]  # the first: code loaded, files first read


def main(argv: list[str]) -> int:
    benches, hands, repeats = argv[0].split(","), int(argv[1]), int(argv[2])
    import cluster
    import sim

    res: dict[str, Any] = {"files": [sim.__file__, cluster.__file__], "samples": {},
                           "errors": {}}
    tmp = Path(tempfile.mkdtemp(prefix="holdem-speed-probe-"))
    run: Path | None = None
    try:
        for name in benches:
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    if name == "engine":
                        res["samples"][name] = _engine(4 * hands, repeats)
                    elif name == "simulate":
                        res["samples"][name], run = _simulate(hands, repeats, tmp)
                    elif name == "audit":
                        if run is None:
                            _, run = _simulate(hands, 1, tmp)
                        res["samples"][name] = _audit(hands, repeats, run)
                    else:
                        raise ValueError(f"unknown bench {name!r}")
            except Exception as e:  # noqa: BLE001 - a tree without this path: named, not fatal
                lines = str(e).strip().splitlines()
                res["errors"][name] = f"{type(e).__name__}: {lines[0] if lines else ''}"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
