"""Not a test (pytest collects test_*.py only): times ``sim.history_columns.rows_of_block`` per
file of ``../shared/realhands`` against ``sim.history_rows._row`` + ``_Columns.table()`` on the
same hands (the replay excluded from both: ``Replayed`` and the Python ``Hand``s are made
first), then on one large block (every real hand, repeated) where the per-call cost is spread.
Prints µs/hand, the median of 5 runs.

    PYTHONPATH=$PWD python tests/sim/bench_history_columns.py [REPEAT]
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from sim.handblock import Replayed
from sim.history_columns import rows_of_block
from sim.history_rows import NotRepresentable, _Columns, _row
from sim.phh import PhhHand, iter_phh_paths, no_cyclic_gc, read_phh
from sim.phh_replay import replay
from tests.sim.test_history_columns import REALHANDS, Case, _case

RUNS = 5


def _median_us(fn: Callable[[], object], runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def _python_rows(hands: Sequence[PhhHand], case: Case, source: str) -> Callable[[], object]:
    """``_import_file``'s row step on the hands of ``case`` (replayed beforehand)."""
    exponent = case.block.exponent
    sections = case.block.section.to_pylist()
    done = []
    for j, raw in enumerate(hands):
        phh = raw.in_minor_units(exponent)
        r = replay(phh, j)
        if r.hand is not None:
            done.append((r, phh, raw, sections[j]))

    def run() -> object:
        cols = _Columns()
        for r, phh, raw, section in done:
            try:
                _row(cols, r.hand, phh, raw, source, section, exponent,
                     tuple(r.cards_unrecorded))
            except NotRepresentable:
                pass
        return cols.table()

    return run


def _tiled(replayed: Replayed, times: int) -> Replayed:
    """``replayed`` of a block's hands repeated ``times`` times."""
    sizes = np.diff(replayed.log_lo)
    return Replayed(
        ok=np.tile(replayed.ok, times), state=np.tile(replayed.state, (times, 1)),
        log_lo=np.concatenate([[0], np.cumsum(np.tile(sizes, times))]),
        log=np.tile(replayed.log, (times, 1)), unrecorded=np.tile(replayed.unrecorded, times))


def main(repeat: int) -> None:
    print(f"{'file':32} {'hands':>6} {'rows_of_block µs/hand':>22} {'_row+table µs/hand':>19}")
    totals = [0.0, 0.0, 0]
    by_exponent: dict[int, list[PhhHand]] = {}
    for path in iter_phh_paths([REALHANDS]):
        source = str(path)
        hands = read_phh(path).hands
        case = _case(hands, source)
        kept = [h for h in hands if h.key in set(case.block.section.to_pylist())]
        by_exponent.setdefault(case.block.exponent, []).extend(kept)
        python_rows = _python_rows(kept, case, source)
        rows_of_block(case.block, case.replayed, source)  # compiled (or loaded) once
        n = case.block.n_hands
        with no_cyclic_gc():
            new = _median_us(lambda c=case, s=source: rows_of_block(c.block, c.replayed, s))
            old = _median_us(python_rows)
        totals[0] += new
        totals[1] += old
        totals[2] += n
        print(f"{'/'.join(Path(path).parts[-2:]):32} {n:6d} {new / n:22.2f} {old / n:19.2f}")
    n = int(totals[2])
    print(f"{'all files':32} {n:6d} {totals[0] / n:22.2f} {totals[1] / n:19.2f}")
    exponent, hands = max(by_exponent.items(), key=lambda kv: len(kv[1]))
    case = _case(hands * repeat, "big.phhs")  # block_from_hands of the repeated hands
    one = _case(hands, "big.phhs")
    case.replayed = _tiled(one.replayed, repeat)  # the replay of a repeat is the same replay
    python_rows = _python_rows(hands * repeat, case, "big.phhs")
    with no_cyclic_gc():
        new = _median_us(lambda: rows_of_block(case.block, case.replayed, "big.phhs"))
        old = _median_us(python_rows)
    n = case.block.n_hands
    print(f"{'one block (all, x' + str(repeat) + ')':32} {n:6d} {new / n:22.2f} {old / n:19.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 8)
