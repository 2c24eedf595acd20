"""One side's sample of ``holdem regress``'s speed check, run in a process of its own:
``python -c <this file's text> BENCHES HANDS REPEATS`` with ``PYTHONPATH`` (and the working
directory) set to that side's tree, so the baseline's engine runs under the baseline's code and
the candidate's under the candidate's. Prints one JSON line: ``{"files": [sim, cluster],
"samples": {bench: [hands/s per core, ...]}, "errors": {bench: one line}}``.

It calls only what every version of the project since the benchmarks were written has (the
compiled engine's random-play loop, ``run_simulate``, the audit benchmark), each warmed up
first (compiled code loaded, untimed), and times with the CPU time of the process (all its
threads), not the wall clock: the neighbours' load counts less. This file imports nothing at
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


def _engine(hands: int, repeats: int) -> list[float]:
    from cluster.bench.engine import play_random_hands
    from sim.config import Structure, TableConfig
    from sim.hand import config_block

    cfg = config_block(TableConfig(n_seats=SEATS, structure=Structure.NO_LIMIT, small_blind=1,
                                   big_blind=2))
    play_random_hands(cfg, 10, SEATS, STACK, 1)  # compiled code loaded
    out = []
    for r in range(repeats):
        c0 = time.process_time()
        play_random_hands(cfg, hands, SEATS, STACK, 1 + r)
        out.append(hands / (time.process_time() - c0))
    return out


def _simulate(hands: int, repeats: int, tmp: Path) -> tuple[list[float], Path]:
    from cluster.simulate import run_simulate
    from sim.config import Structure
    from sim.runspec import DEFAULT_POPULATION, RunSpec

    def spec(n: int, seed: int) -> Any:
        return RunSpec(hands=n, batch_size=min(n, 10_000), structures=(Structure.NO_LIMIT,),
                       seed=seed, **DEFAULT_POPULATION)

    run_simulate(spec(1000, 99), tmp / "warm", workers=0, progress=False)
    out = []
    for _ in range(repeats):
        shutil.rmtree(tmp / "run", ignore_errors=True)
        c0 = time.process_time()
        run_simulate(spec(hands, 7), tmp / "run", workers=0, progress=False)
        out.append(hands / (time.process_time() - c0))
    return out, tmp / "run"


def _audit(hands: int, repeats: int, run: Path) -> list[float]:
    from cluster.bench.audit import run_audit_bench

    return [run_audit_bench(hands, str(run), repeats=1, show=False)["read_and_all_audits"]
            for _ in range(repeats)]


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
