"""Fixtures of the cluster tests: one local Ray for the whole session (started on first use)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def ray_local() -> Iterator[None]:
    """An embedded Ray with 2 CPUs, no dashboard, no usage stats, no auth; shut down at the end.
    ``run_simulate`` uses it (and leaves it running) instead of starting its own."""
    import ray

    from cluster.ray_runtime import set_local_env

    set_local_env()
    os.environ.pop("RAY_ADDRESS", None)
    if ray.is_initialized():  # pragma: no cover - someone else's Ray: leave it alone
        yield
        return
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()
