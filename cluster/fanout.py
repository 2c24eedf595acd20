"""One fan-out: ``fn(*call)`` for every call, as Ray tasks or in this process, results in call
order.

``fan_out(fn, calls, session=...)`` is how ``holdem simulate``, ``holdem shuffle`` and
``holdem audit`` spread their per-file work (get a session from ``cluster.ray_runtime.ray_session``,
the one place that starts or joins Ray):

- a bounded window: at most ``window`` tasks submitted and not yet collected (the rest wait on
  the driver, a few hundred bytes each), so a run of any size never floods the object store;
- retries: a task whose worker or node died is run again, ``retries`` times (and, with
  ``retry_errors``, one that raised too: a transient storage error); then ``TaskFailed``, one
  line naming the call (``name(call)``), the exception type and its last line;
- errors the caller handles itself (``passthrough``: unusable input, say) are raised as the
  task raised them, without the Ray wrapping;
- cancellation: on any exception, ``KeyboardInterrupt`` or the iterator being closed, every task
  still in flight is cancelled (its worker killed), so nothing keeps running for a driver gone;
- results: the iterator yields ``fn``'s results in the order of ``calls``, whatever order the
  tasks finished in (a reduce that keeps the first examples must not see retries reorder them);
  ``on_done(index, result)`` is called in completion order, as each task ends (progress bars,
  manifests), before the results are yielded;
- notes: with ``say``, a line on what is queued and the CPUs present, and another whenever the
  cluster grew or shrank (an autoscaler at work);
- the code: each task first compares its worker's compiled-code keys (``audits.jitcache``: the
  hash of the sources its numba caches are keyed by) with the driver's; a worker that imported
  other sources fails the run (``CodeMismatch``, one line naming the worker and both digests,
  after the retries any failure gets); each match is counted in ``session.worker_code``;
- ``session=None`` runs every call in this process, one after the other, with the same order
  and callbacks; an exception there is this process's own and propagates as it is (there is no
  worker to lose, so no retry).

An argument that is the same object in every call (a spec, a filesystem, a list of audit names)
is put in Ray's object store once and passed to the tasks by reference.

The iterator is lazy: tasks are submitted as it is consumed (``list(fan_out(...))`` to run them
all). Task bodies must be importable module-level functions (Ray pickles them for the workers).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from audits.runfolder.errors import CheckFailed
from cluster.ray_runtime import RaySession, cpus_present

T = TypeVar("T")

TASK_RETRIES = 3  # runs of a task past the first, after a lost worker or node
CPU_LOOK_SECONDS = 10.0  # how often the driver looks at the cluster's CPUs (notes)


class TaskFailed(CheckFailed, RuntimeError):
    """A task failed on Ray after its retries (one line naming the call; the CLIs exit 1)."""


class CodeMismatch(TaskFailed):
    """A Ray worker runs code compiled from other sources than the driver's (one line)."""


def _worker_name() -> str:
    import os
    import socket

    return f"{socket.gethostname()}:{os.getpid()}"


def _checked_call(fn: Callable[..., T], driver_code: str, *args: Any) -> tuple[str, T]:
    """The task body on a worker: ``fn(*args)`` once the worker's compiled-code keys are the
    driver's; returns (the worker's name, the result)."""
    from audits import jitcache

    here = jitcache.identity_digest()
    if here != driver_code:
        keys = ", ".join(f"{k} {v}" for k, v in jitcache.identity()["keys"].items())
        raise CodeMismatch(f"the Ray worker {_worker_name()} runs other code than the driver: "
                           f"compiled-code digest {here} ({keys}) vs the driver's {driver_code}; "
                           "ship the same sources to every node (cluster/README.md)")
    return _worker_name(), fn(*args)


def _one_line(e: BaseException) -> str:
    lines = str(e).strip().splitlines()
    return lines[-1] if lines else ""


def _call_name(call: tuple[Any, ...]) -> str:
    return f"task {call[0]!r}" if call else "task"


def fan_out(
    fn: Callable[..., T],
    calls: Sequence[tuple[Any, ...]],
    *,
    session: RaySession | None,
    window: int | None = None,
    retries: int = TASK_RETRIES,
    retry_errors: bool | tuple[type[BaseException], ...] = True,
    name: Callable[[tuple[Any, ...]], str] = _call_name,
    label: str = "",
    passthrough: tuple[type[BaseException], ...] = (),
    on_done: Callable[[int, T], None] | None = None,
    say: Callable[[str], None] | None = None,
) -> Iterator[T]:
    """``fn(*call)`` for every call in ``calls``; yields the results in the order of ``calls``.

    ``session``: the Ray to run on (``cluster.ray_runtime.ray_session``), None for this process.
    ``window``: the most tasks in flight (default: 2 per CPU of the session, at least 1).
    ``retries``: Ray's ``max_retries``; ``retry_errors`` also retries the tasks that raised
    (True: any exception; a tuple: those types only).
    ``name(call)``: how ``TaskFailed`` names a failed call. ``label``: the tasks' kind in the
    notes ("batch": "6 batch tasks, up to 6 queued on Ray at once; 2 CPUs present").
    ``passthrough``: exception types re-raised as the task raised them.
    ``on_done(index, result)``: called as each call ends, in completion order.
    ``say``: where the notes go (None: no notes). See the module docstring.
    """
    if session is None:
        return _in_process(fn, calls, on_done)
    return _on_ray(fn, calls, session, window, retries, retry_errors, name, label, passthrough,
                   on_done, say)


def _in_process(fn: Callable[..., T], calls: Sequence[tuple[Any, ...]],
                on_done: Callable[[int, T], None] | None) -> Iterator[T]:
    for i, call in enumerate(calls):
        result = fn(*call)
        if on_done is not None:
            on_done(i, result)
        yield result


def _shared(calls: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The calls with every argument that is one object in all of them (and not a scalar) put in
    the object store once."""
    import ray

    if len(calls) < 2:
        return list(calls)
    first = calls[0]
    refs = {}
    for k, arg in enumerate(first):
        if isinstance(arg, (str, bytes, int, float, bool, type(None))):
            continue
        if all(len(c) > k and c[k] is arg for c in calls):
            refs[k] = ray.put(arg)
    if not refs:
        return list(calls)
    return [tuple(refs.get(k, a) for k, a in enumerate(c)) for c in calls]


def _on_ray(fn: Callable[..., T], calls: Sequence[tuple[Any, ...]], session: RaySession,
            window: int | None, retries: int,
            retry_errors: bool | tuple[type[BaseException], ...],
            name: Callable[[tuple[Any, ...]], str], label: str,
            passthrough: tuple[type[BaseException], ...],
            on_done: Callable[[int, T], None] | None,
            say: Callable[[str], None] | None) -> Iterator[T]:
    import ray

    n = len(calls)
    if n == 0:
        return
    in_flight = max(1, window if window is not None else 2 * session.cpus)
    cpus = cpus_present() if say is not None else 0
    kind = f"{label} " if label else ""
    if say is not None:
        say(f"holdem: {n} {kind}tasks, up to {min(in_flight, n)} queued on Ray at once; {cpus} "
            "CPUs present"
            + ("" if session.where == "local" else " (an autoscaler adds nodes for the queue)"))
    next_look = time.monotonic() + CPU_LOOK_SECONDS
    # ray's overload stub types retry_exceptions as bool; a list of exception types is the
    # documented other form
    task = ray.remote(max_retries=retries, retry_exceptions=retry_errors  # type: ignore[arg-type]
                      if isinstance(retry_errors, bool) else list(retry_errors))(_checked_call)
    # named as the function it runs (Ray's task table, a worker's process title ray::<name>)
    task = task.options(name=getattr(fn, "__name__", "task"))
    from audits import jitcache

    driver_code = jitcache.identity_digest()
    session.worker_code.setdefault("driver", driver_code)
    args = [(fn, driver_code, *call) for call in _shared(calls)]
    submitted = 0
    pending: list[Any] = []
    index_of: dict[Any, int] = {}
    held: dict[int, T] = {}  # finished, waiting for the calls before them
    yielded = 0
    try:
        while yielded < n:
            while submitted < n and len(pending) < in_flight:
                ref = task.remote(*args[submitted])
                index_of[ref] = submitted
                pending.append(ref)
                submitted += 1
            if pending:
                ready, pending = ray.wait(pending, num_returns=1)
                if say is not None and time.monotonic() >= next_look:  # grew or shrank: say so
                    next_look = time.monotonic() + CPU_LOOK_SECONDS
                    now_cpus = cpus_present()
                    if now_cpus != cpus:
                        say(f"holdem: {now_cpus} CPUs present (were {cpus}); {len(pending)} "
                            f"tasks queued or running, {n - submitted} more to submit")
                        cpus = now_cpus
                for ref in ready:
                    i = index_of.pop(ref)
                    worker, result = _get(ref, calls[i], retries, retry_errors, name,
                                          (CodeMismatch, *passthrough))
                    session.checked(worker)
                    if on_done is not None:
                        on_done(i, result)
                    held[i] = result
            while yielded in held:
                yield held.pop(yielded)
                yielded += 1
    finally:  # an error, Ctrl-C or the consumer gone: stop what still runs
        _cancel(pending)


CANCEL_ROUNDS = 3
CANCEL_WAIT_SECONDS = 0.5


def _cancel(refs: list[Any]) -> None:
    """Cancel the tasks of ``refs`` (their workers killed), and again those a round later not yet
    ended: Ray's cancellation is best effort, and misses a task that is being handed to the
    worker the task before it freed (measured: 1 run in 3 on a local Ray)."""
    import ray

    for _ in range(CANCEL_ROUNDS):
        if not refs:
            return
        for ref in refs:
            ray.cancel(ref, force=True)
        _, refs = ray.wait(refs, num_returns=len(refs), timeout=CANCEL_WAIT_SECONDS)


def _get(ref: Any, call: tuple[Any, ...], retries: int,
         retry_errors: bool | tuple[type[BaseException], ...],
         name: Callable[[tuple[Any, ...]], str],
         passthrough: tuple[type[BaseException], ...]) -> Any:
    import ray

    try:
        return ray.get(ref)
    except ray.exceptions.RayError as e:
        cause = getattr(e, "cause", None) or e
        kept = next((t for t in passthrough if isinstance(cause, t)), None)
        if kept is not None:
            if cause is not e:
                raise cause from None
            # a Ray error made a subclass of the cause's type without the cause: its last line
            raise kept(_one_line(e).split(f"{kept.__name__}: ", 1)[-1]) from None
        raised = isinstance(e, ray.exceptions.RayTaskError)  # else a worker or node lost
        retried = (not raised or retry_errors is True
                   or (isinstance(retry_errors, tuple) and isinstance(cause, retry_errors)))
        after = f" after {retries} retries" if retried else ""
        raise TaskFailed(f"{name(call)} failed{after}: {type(cause).__name__}: "
                         f"{_one_line(cause)}") from e
