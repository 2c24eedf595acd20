"""Fixtures of the cluster tests: one local Ray for the whole session (started on first use)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def ray_local() -> Iterator[None]:
    """An embedded Ray with 2 CPUs, no dashboard, no usage stats, no auth (started as the CLI
    starts one: ``cluster.ray_runtime.ray_session``); shut down at the end. ``run_simulate`` and
    the others use it (and leave it running) instead of starting their own."""
    from cluster.ray_runtime import ray_session

    os.environ.pop("RAY_ADDRESS", None)
    with ray_session(None, 2):  # someone else's Ray already running: used, left alone
        yield
