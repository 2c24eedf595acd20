"""Fixtures of the cluster tests: one local Ray for the whole session (started on first use)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

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


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An Ed25519 signing key made by ``holdem keygen`` (its public key beside it, ``.pub``)."""
    from cluster.cli import main

    root = tmp_path_factory.mktemp("keys")
    assert main(["keygen", "--out", str(root / "key")]) == 0
    return root / "key"
