"""Time the compiled PHH replay (``sim.replay_kernel.replay_block``) against the Python replay
(``sim.handblock.replayed_from_python``) per file: µs per hand, median of 5 runs each, in
CPU time of this process (``time.process_time``: the machine may be shared).

    PYTHONPATH=. python scripts/time_replay_kernel.py [PATH ...]   (default ../shared/realhands)

Each file's hands are those ``block_from_hands`` takes, in the file's largest scale (as
tests/sim/test_replay_kernel.py reads them). Not a test: a measurement.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from sim.handblock import block_from_hands, replayed_from_python
from sim.phh import PhhError, PhhHand, iter_phh_paths, read_phh
from sim.replay_kernel import replay_block

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "realhands"


def _hands(path: Path) -> list[PhhHand]:
    out = []
    for h in read_phh(path).hands:
        try:
            block_from_hands([h], h.scale)
        except (ValueError, PhhError):
            continue
        out.append(h)
    return out


def _median(fn: Callable[[], object], runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def main(argv: list[str]) -> None:
    paths = argv or [str(DEFAULT)]
    replay_block(block_from_hands([], 0))  # compile (or load the cache) outside the timing
    tot_h = tot_k = tot_p = 0.0
    ok_k = ok_p = 0
    print(f"{'file':48} {'hands':>6} {'kernel µs/h':>12} {'python µs/h':>12} {'ok k/p':>10}")
    for path in iter_phh_paths(paths):
        hands = _hands(path)
        if not hands:
            continue
        exp = max(h.scale for h in hands)
        block = block_from_hands(hands, exp)
        k = _median(lambda: replay_block(block))  # noqa: B023 - called at once
        p = _median(lambda: replayed_from_python(hands, exp))  # noqa: B023
        rk, rp = replay_block(block), replayed_from_python(hands, exp)
        n = len(hands)
        tot_h += n
        tot_k += k
        tot_p += p
        ok_k += int(rk.ok.sum())
        ok_p += int(rp.ok.sum())
        print(f"{str(path)[-48:]:48} {n:6d} {k / n * 1e6:12.2f} {p / n * 1e6:12.1f} "
              f"{int(rk.ok.sum()):4d}/{int(rp.ok.sum()):<4d}")
    if tot_h:
        print(f"{'all':48} {int(tot_h):6d} {tot_k / tot_h * 1e6:12.2f} "
              f"{tot_p / tot_h * 1e6:12.1f} {ok_k:4d}/{ok_p:<4d}")


if __name__ == "__main__":
    main(sys.argv[1:])
