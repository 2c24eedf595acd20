"""Starting or joining Ray, and leaving it as we found it.

``ray_session(address, workers)`` is the one way the cluster code gets a Ray connection:

- Ray already initialised in this process (a test fixture, a notebook): use it, leave it running.
- ``address`` given, or ``RAY_ADDRESS`` set (``ray job submit`` sets it): join that cluster and
  disconnect afterwards (the cluster itself keeps running).
- Otherwise: start an embedded local Ray in this process with ``workers`` CPUs (default: all),
  no dashboard, no usage stats, no token auth; shut it down afterwards.

Within ``one_ray()`` (``holdem certify``: simulate, audit, reproduce and report), the first
``ray_session`` that starts or joins Ray keeps it for the next ones, shut down at the block's end:
Ray is started once per command, and each later block sees the first one's ``where`` and
``cpus`` (with its own ``worker_code`` record).

``Runtime`` is a command's runtime options (``--workers``, ``--address``, ``--key-memory``),
validated once where the command line is read and passed as one value.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from typing import Any

from audits.runfolder.errors import InputError

# Settings for a Ray we start ourselves on this machine.
LOCAL_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}


class RayUnreachable(InputError):
    """A Ray cluster that cannot be joined at the address given (one line, exit 2)."""


def set_local_env() -> None:
    """Default the environment for a local Ray (an explicit setting by the user wins)."""
    for k, v in LOCAL_ENV.items():
        os.environ.setdefault(k, v)


@dataclass(frozen=True)
class RaySession:
    """How this process talks to Ray: ``where`` is "local", "existing" or the cluster address;
    ``cpus`` is the cluster's CPU count. ``worker_code`` is the record of the compiled-code check
    every task of ``cluster.fanout`` makes on its worker (``driver``: this process's digest of
    its compiled-code keys, ``audits.jitcache``; ``tasks``: tasks whose worker matched it;
    ``workers``: the distinct worker processes among them): runs put it in their provenance."""

    where: str
    cpus: int
    started: bool
    worker_code: dict[str, Any] = field(default_factory=dict, compare=False)
    _workers: set[str] = field(default_factory=set, compare=False, repr=False)

    def checked(self, worker: str) -> None:
        """One more task's worker (``node:pid``) ran the driver's compiled code (the
        ``worker_code`` dict is updated in place: a record holding it sees every task)."""
        from audits import jitcache

        wc = self.worker_code
        wc.setdefault("driver", jitcache.identity_digest())
        wc["tasks"] = wc.get("tasks", 0) + 1
        self._workers.add(worker)
        wc["workers"] = len(self._workers)


MAX_WORKERS = 1 << 20  # tasks at once: more than any cluster holds CPUs
MAX_KEY_MEMORY_MB = 1 << 30  # a petabyte: no driver has more memory (bytes fit an int64)


@dataclass(frozen=True)
class Runtime:
    """Where a command runs: ``workers`` (None: all CPUs of a local Ray, or the default window
    on a cluster; 0: this process, without Ray), ``address`` (a Ray cluster to join; None:
    ``$RAY_ADDRESS``, else a local Ray) and ``key_memory`` (bytes for the collision tests' keys;
    None: the default). Made once (``of``) and passed as one value."""

    workers: int | None = None
    address: str | None = None
    key_memory: int | None = None

    @classmethod
    def of(cls, workers: int | None = None, address: str | None = None,
           key_memory_mb: int | None = None) -> Runtime:
        """The runtime of the command-line options (``key_memory_mb`` in MB). Raises
        ValueError (one line naming the option) for a value out of range."""
        if workers is not None and not 0 <= workers <= MAX_WORKERS:
            raise InputError(f"--workers {workers}: expected 0 .. {MAX_WORKERS:,}")
        if key_memory_mb is not None and not 0 < key_memory_mb <= MAX_KEY_MEMORY_MB:
            raise InputError(f"--key-memory {key_memory_mb}: expected a size in MB, 1 .. "
                             f"{MAX_KEY_MEMORY_MB:,}")
        return cls(workers, address, None if key_memory_mb is None else key_memory_mb << 20)

    @property
    def in_process(self) -> bool:
        return self.workers == 0

    def session(self) -> AbstractContextManager[RaySession | None]:
        """The Ray of this runtime for a ``with`` block (None when it runs in this process)."""
        return nullcontext() if self.in_process else ray_session(self.address, self.workers)

    def command(self) -> AbstractContextManager[None]:
        """The block of a command of several steps: Ray started at most once (``one_ray``)."""
        return nullcontext() if self.in_process else one_ray()


def cluster_cpus() -> int:
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def cpus_present() -> int:
    """CPUs of the nodes alive now (0 on an autoscaling cluster that has no worker yet)."""
    import ray

    return int(ray.cluster_resources().get("CPU", 0))


# Tasks kept queued on a cluster when ``--workers`` is not given. An autoscaler grows a cluster
# for the tasks that wait for a CPU, so the queue must not be sized from the CPUs present at the
# start (none, on a cluster that starts with no workers): 4,096 covers the configs' largest
# clusters (aws.yaml 120 x 32 = 3,840 CPUs, raycluster.yaml 400 x 8 = 3,200) with every CPU busy;
# a pending task costs the driver a few hundred bytes.
CLUSTER_WINDOW = 4096


def in_flight_window(session: RaySession, workers: int | None) -> int:
    """How many batch tasks to keep submitted at once.

    - an embedded local Ray (fixed size, no autoscaler): 2 per CPU, every CPU busy and the next
      task queued;
    - a cluster or an existing Ray with ``--workers N``: N (the user's cap);
    - a cluster without ``--workers``: ``max(2 x CPUs present, CLUSTER_WINDOW)``, enough
      pending demand for an autoscaler to grow the cluster to its maximum.
    """
    if session.where == "local":
        return 2 * session.cpus
    if workers:
        return workers
    return max(2 * session.cpus, CLUSTER_WINDOW)


@contextmanager
def ray_session(address: str | None = None, workers: int | None = None) -> Iterator[RaySession]:
    """Connect to (or start) Ray for the ``with`` block; see the module docstring."""
    import ray

    if _KEEP and len(_OPEN) > _KEEP[0] and ray.is_initialized():
        # a later step of a ``one_ray`` command: the Ray its first step started or joined
        yield replace(_OPEN[-1], worker_code={}, _workers=set())
        return
    if ray.is_initialized():
        yield RaySession("existing", cluster_cpus(), started=False)
        return
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address:
        try:
            ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
        except Exception as e:  # ConnectionError, ValueError, ... : one line (exit 2)
            lines = str(e).strip().splitlines()
            raise RayUnreachable(f"cannot join the Ray cluster at {address}: "
                                  f"{lines[0] if lines else type(e).__name__}") from None
        where = address
    else:
        set_local_env()
        ray.init(address="local", num_cpus=workers or os.cpu_count() or 1, include_dashboard=False,
                 log_to_driver=False, logging_level=logging.WARNING)
        where = "local"
    session = RaySession(where, cluster_cpus(), started=True)
    _OPEN.append(session)
    try:
        yield session
    finally:
        if not _KEEP:  # else kept for the next block of the command (``one_ray``)
            _OPEN.pop()
            ray.shutdown()


_OPEN: list[RaySession] = []  # the sessions this process started (or joined), innermost last
_KEEP: list[int] = []  # ``one_ray`` blocks open: how many sessions were open at their start


@contextmanager
def one_ray() -> Iterator[None]:
    """One Ray for a whole command: within the block, the first ``ray_session`` that starts
    (or joins) Ray leaves it running, every later one uses it, and it is shut down when the
    block ends. Nothing is started until a step needs Ray (a command that fails on its input,
    or runs in this process, never starts it)."""
    import ray

    _KEEP.append(len(_OPEN))
    try:
        yield
    finally:
        depth = _KEEP.pop()
        if not _KEEP and len(_OPEN) > depth:
            del _OPEN[depth:]
            ray.shutdown()
