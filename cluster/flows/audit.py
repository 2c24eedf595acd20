"""``holdem audit``: the audits of ``audits.runner`` over a run folder, their files fanned out over
Ray (``cluster.fanout``, one task per file) or mapped in this process, with a progress bar.

The audits themselves (the per-file map, the key partitions, the reduces, the report) are
``audits.runner``'s, which may not import this package: the Ray fan-out reaches them as the
``map_files`` of ``audits.runner.run_audits``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from audits.io import AuditInputError
from audits.players import PlayerList
from audits.runfolder.storage import Location
from audits.runner import AuditReport, MapFiles, plan_audit, resolve, run_audits
from cluster.fanout import fan_out
from cluster.progress import Progress
from cluster.ray_runtime import RaySession, ray_session


def audit_window(session: RaySession, workers: int | None) -> int:
    """Audit tasks kept in flight: ``--workers`` when given, else 2 per CPU of the cluster (an
    audit usually follows a simulate that grew the cluster already)."""
    return workers or 2 * session.cpus


def ray_map_files(session: RaySession, window: int) -> MapFiles:
    """``audits.runner``'s ``map_files`` over Ray: one task per file, at most ``window`` at once,
    the results in file order. A task whose worker or node died runs again (3 times); a file that
    cannot be audited is unusable input (``AuditInputError``, raised as the task raised it);
    any other failure is ``cluster.fanout.TaskFailed`` naming the file."""

    def map_files(fn: Callable[..., Any], files: Sequence[str], args: tuple[Any, ...],
                  on_done: Callable[[str, Any], None]) -> list[Any]:
        return list(fan_out(fn, [(f, *args) for f in files], session=session, window=window,
                            retry_errors=False, name=lambda call: f"the audit of {call[0]}",
                            passthrough=(AuditInputError,),
                            on_done=lambda i, result: on_done(files[i], result)))

    return map_files


def audit_run(run: Location, names: Sequence[str] | None = None, *, workers: int | None = None,
              key_memory: int | None = None, address: str | None = None,
              progress: bool = True, reproduce: Any = None,
              players: PlayerList | None = None) -> AuditReport:
    """Audit the run folder ``run`` with the audits ``names`` (None: all) and always
    ``integrity`` (the verdict is bound to the bytes whatever else runs).

    ``workers=0`` maps the files in this process; otherwise on Ray
    (``cluster.ray_runtime.ray_session``: the Ray of this process, the cluster at ``address`` or
    ``$RAY_ADDRESS``, else an embedded local Ray of ``workers`` CPUs), ``workers`` then also
    bounding the tasks in flight. ``key_memory``: bytes for the collision tests' keys (see
    ``audits.runner.run_audits``). ``progress``: a bar of hands (every key partition past the
    first is one more pass over the files). ``players``: a lab's list of suspect players
    (``audits.players``, ``--players FILE``). Raises ``AuditInputError`` for an unusable folder,
    ``RayUnreachable`` for a cluster that cannot be joined, ``cluster.fanout.TaskFailed`` for a
    task that failed on Ray. ``reproduce``: a ``cluster.flows.reproduce_values.ValuesJob``:
    each planned batch is re-simulated in its file's task and compared with what the task
    decoded (``holdem certify``), the results in ``AuditReport.extras``.
    """
    names = resolve(names)
    if "integrity" not in names:
        names.append("integrity")
    plan = plan_audit(run, names, key_memory=key_memory, count=True)  # once: bar and audit
    assert plan.hands is not None
    how: dict[str, Any] = {}
    if reproduce is not None:
        from cluster.flows.reproduce_values import audit_and_reproduce

        how = {"map_fn": audit_and_reproduce, "map_args": (reproduce,)}
    with Progress(plan.hands * plan.passes, enabled=progress, desc="audit") as bar:
        def on_file(path: str, n: int) -> None:
            bar.update(n)

        if workers == 0:
            return run_audits(run, on_file=on_file, plan=plan, players=players, **how)
        with ray_session(address, workers) as session:
            return run_audits(run, on_file=on_file, plan=plan, players=players,
                              map_files=ray_map_files(session, audit_window(session, workers)),
                              runtime={"ray": "ray", "cpus": session.cpus,
                                       "worker_code": session.worker_code}, **how)
