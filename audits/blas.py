"""The reduce's small linear algebra on one BLAS thread.

The battery's reduce decomposes a few hundred-by-hundred covariance matrices
(``audits.seats._mahalanobis``: eighteen 169 x 169 ``eigh`` for decks dealt as hands). OpenBLAS
runs them on every core by default: on a busy machine its spinning threads made one ``eigh``
take 0.3-0.8 s instead of 2 ms (the shuffle certificate's reduce was 3-6 s whatever the number
of decks), and its results depend on the thread count in their last bits. ``one_thread()``
runs a block with every OpenBLAS loaded in the process on one thread (the count restored
after), so the reduce costs milliseconds and gives the same bits on any machine. Where no
OpenBLAS is found (another BLAS, another platform) it does nothing.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache

_NAMES = ("openblas_{}_num_threads", "openblas_{}_num_threads64_",
          "scipy_openblas_{}_num_threads64_", "scipy_openblas_{}_num_threads")
_lock = threading.Lock()


@lru_cache(maxsize=1)
def _controls() -> tuple[tuple[Callable[[], int], Callable[[int], None]], ...]:
    """(get, set) of the thread count of each OpenBLAS mapped into this process (Linux)."""
    import numpy as np

    np.linalg.eigh(np.eye(2))  # numpy's BLAS loaded
    try:
        with open("/proc/self/maps") as f:
            paths = sorted({line.split()[-1] for line in f
                            if "openblas" in line.lower() and ".so" in line.split()[-1]})
    except OSError:
        return ()
    out = []
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in _NAMES:
            get, put = name.format("get"), name.format("set")
            if hasattr(lib, get) and hasattr(lib, put):
                g, s = getattr(lib, get), getattr(lib, put)
                g.restype, s.argtypes = ctypes.c_int, [ctypes.c_int]
                out.append((g, s))
                break
    return tuple(out)


@contextmanager
def one_thread() -> Iterator[None]:
    """Every OpenBLAS of the process on one thread inside the block."""
    with _lock:
        saved = [(s, g()) for g, s in _controls()]
        for s, _ in saved:
            s(1)
        try:
            yield
        finally:
            for s, n in saved:
                s(n)
