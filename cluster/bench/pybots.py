"""``holdem bench pybots``: what a Python bot's decision costs (``sim.pybots``: the compiled
table loop calls out of compiled code through numba objmode for a seat with a Python bot).

Two runs of the same tables (6-seat cash, the real population, one batch of ``hands`` hands)
are timed in this process, compiled code warmed up first, each the median of ``repeats``:

- built-in: the built-in bots alone (the compiled path): the engine's and the bots' time per
  player decision (fold, check, call, bet, raise in the log);
- python: nearly every seat (weight 1,000,000 against the built-in bots' 100) plays a no-op
  Python bot (it returns check-call at once), its calls counted by the bot: time per decision.

The difference is the cost of a Python decision on top of the bot's own time (the no-op bot's
own time is measured apart, calling it on one view: the figure printed subtracts it). Of it,
building the ``PlayerView`` is timed apart too (``sim.pybots.view_of`` on one state).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

NOOP_BOT = '''CALLS = [0]


def decide(view):
    CALLS[0] += 1
    return ("check-call", 0)
'''


def _decisions(table: Any) -> int:
    """Player decisions (fold, check, call, bet, raise) in a batch's rows."""
    from sim.codes import E_BET, E_CALL, E_CHECK, E_FOLD, E_RAISE
    from sim.schema import ACTION_DTYPE

    rec = np.frombuffer(b"".join(table.column("actions").to_pylist()), dtype=ACTION_DTYPE)
    return int(np.isin(rec["kind"], [E_FOLD, E_CHECK, E_CALL, E_BET, E_RAISE]).sum())


def run_pybots_bench(hands: int = 20_000, repeats: int = 5) -> dict[str, float]:
    """Print and return the figures (µs per decision; module docstring)."""
    import hashlib

    from sim import pybots
    from sim.batch import simulate_batch
    from sim.config import Structure
    from sim.runspec import DEFAULT_POPULATION, RunSpec

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "noop_bot.py"
        path.write_text(NOOP_BOT)
        bot = pybots.PythonBot(name="noop", kind="path", source=str(path), callable="decide",
                               weight=1_000_000,
                               sha256=hashlib.sha256(path.read_bytes()).hexdigest())
        base = {**DEFAULT_POPULATION, "players": 6, "format": "cash"}
        builtin = RunSpec(hands=hands, batch_size=hands, **base)
        python = RunSpec(hands=hands, batch_size=hands, **base, python_bots=(bot,))
        fn = pybots.load_bot(bot)
        calls = fn.__globals__["CALLS"]
        simulate_batch(builtin, Structure.NO_LIMIT, 0)  # compile, or load the cache
        simulate_batch(python, Structure.NO_LIMIT, 0)
        per_builtin, per_python = [], []
        for _ in range(repeats):
            res = simulate_batch(builtin, Structure.NO_LIMIT, 0)
            per_builtin.append(res.play_seconds / max(1, _decisions(res.table)) * 1e6)
            calls[0] = 0
            res = simulate_batch(python, Structure.NO_LIMIT, 0)
            per_python.append(res.play_seconds / max(1, calls[0]) * 1e6)
        n_calls = calls[0]
        # the no-op bot's own time and the view's, on one state of a hand in progress
        S = np.zeros(pybots._Bound.S.shape, np.int64)
        S[:] = pybots._Bound.S
        lg = pybots._Bound.lg.copy()
        from sim.layout import N_SEATS

        S[N_SEATS] = max(2, min(int(S[N_SEATS]), 10))
        view = pybots.view_of(S, lg, 0, 1, 0, 0)
        k = 20_000
        t0 = time.perf_counter()
        for _ in range(k):
            fn(view)
        own = (time.perf_counter() - t0) / k * 1e6
        t0 = time.perf_counter()
        for _ in range(k):
            pybots.view_of(S, lg, 0, 1, 0, 0)
        view_us = (time.perf_counter() - t0) / k * 1e6
    b, p = statistics.median(per_builtin), statistics.median(per_python)
    out = {"builtin_us": b, "python_us": p, "bot_own_us": own, "view_us": view_us,
           "overhead_us": p - b - own, "python_decisions": float(n_calls)}
    print(f"built-in bots (compiled): {b:.3f} µs a decision (engine and bot; median of "
          f"{repeats}, {hands:,} hands)")
    print(f"no-op Python bot: {p:.2f} µs a decision ({n_calls:,} Python decisions a run)")
    print(f"the no-op bot's own time: {own:.2f} µs; building its PlayerView: {view_us:.2f} µs")
    print(f"a Python bot decision costs {p - b - own:.1f} µs on top of the bot's own time")
    return out
