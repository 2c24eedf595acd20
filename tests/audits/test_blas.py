"""The reduce's linear algebra on one BLAS thread: set inside the block, restored after."""

from __future__ import annotations

import numpy as np

from audits.blas import _controls, one_thread
from audits.seats import pooled_covariance


def test_one_thread_inside_restored_after() -> None:
    controls = _controls()
    if not controls:  # no OpenBLAS in this process (another BLAS): nothing to set
        return
    before = [g() for g, _ in controls]
    cov = pooled_covariance(np.array([0, 0, 0, 0, 0, 0, 5_000, 0, 0, 0, 0]))[1]
    with one_thread():
        assert [g() for g, _ in controls] == [1] * len(controls)
        a = np.linalg.eigh(cov)
        with_one = [g() for g, _ in controls]
    assert with_one == [1] * len(controls)
    assert [g() for g, _ in controls] == before
    with one_thread():  # the same bits each time
        b = np.linalg.eigh(cov)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
