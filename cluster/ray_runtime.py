"""Starting or joining Ray, and leaving it as we found it.

``ray_session(address, workers)`` is the one way the cluster code gets a Ray connection:

- Ray already initialised in this process (a test fixture, a notebook): use it, leave it running.
- ``address`` given, or ``RAY_ADDRESS`` set (``ray job submit`` sets it): join that cluster and
  disconnect afterwards (the cluster itself keeps running).
- Otherwise: start an embedded local Ray in this process with ``workers`` CPUs (default: all),
  no dashboard, no usage stats, no token auth; shut it down afterwards.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

# Settings for a Ray we start ourselves on this machine.
LOCAL_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}


def set_local_env() -> None:
    """Default the environment for a local Ray (an explicit setting by the user wins)."""
    for k, v in LOCAL_ENV.items():
        os.environ.setdefault(k, v)


@dataclass(frozen=True)
class RaySession:
    """How this process talks to Ray: ``where`` is "local", "existing" or the cluster address;
    ``cpus`` is the cluster's CPU count."""

    where: str
    cpus: int
    started: bool


def cluster_cpus() -> int:
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))


@contextmanager
def ray_session(address: str | None = None, workers: int | None = None) -> Iterator[RaySession]:
    """Connect to (or start) Ray for the ``with`` block; see the module docstring."""
    import ray

    if ray.is_initialized():
        yield RaySession("existing", cluster_cpus(), started=False)
        return
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address:
        try:
            ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
        except Exception as e:  # ConnectionError, ValueError, ... : one line for the CLI
            lines = str(e).strip().splitlines()
            raise ConnectionError(f"cannot join the Ray cluster at {address}: "
                                  f"{lines[0] if lines else type(e).__name__}") from None
        where = address
    else:
        set_local_env()
        ray.init(address="local", num_cpus=workers or os.cpu_count() or 1, include_dashboard=False,
                 log_to_driver=False, logging_level=logging.WARNING)
        where = "local"
    try:
        yield RaySession(where, cluster_cpus(), started=True)
    finally:
        ray.shutdown()
