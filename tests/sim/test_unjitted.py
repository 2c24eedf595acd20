"""The compiled core is plain Python too: under NUMBA_DISABLE_JIT=1 it plays the very same
hands (so the code can be read, debugged and stepped through as Python)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

from sim.batch import simulate_batch
from sim.config import Structure
from sim.runspec import RunSpec

SCRIPT = "from tests.sim.test_unjitted import _digest; print(_digest())"


def _digest() -> str:
    h = hashlib.sha256()
    for fmt in ("cash", "tournament"):
        for st in Structure:
            t = simulate_batch(RunSpec(hands=120, batch_size=120, format=fmt, seed=9), st, 0).table
            for c in t.columns:
                h.update(str(c.to_pylist()).encode())
    return h.hexdigest()


def test_unjitted_engine_plays_identical_hands() -> None:
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                         text=True, timeout=300, check=True)
    assert out.stdout.strip() == _digest()
