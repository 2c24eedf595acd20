"""Fault injection on one machine, for ``tests/cluster/test_fault_tolerance.py`` (a test harness:
no production code uses this module).

Every scenario runs in processes of its own, so that no Ray state leaks into pytest (or into the
session Ray of ``tests/cluster/conftest.py``) and a crash cannot take the test process with it:

``python -m tests.cluster.faulttest scenario --fault F --phase P --dir DIR [--run RUN]``
    Starts a local multi-node Ray (``ray.cluster_utils.Cluster``: a head with no CPUs, so the
    tasks run only on two worker nodes of 1 CPU each; no dashboard, no usage stats, no auth),
    runs a driver (below) against it, injects fault F while the tasks run and writes a JSON
    report to ``DIR/report.json``. P is ``simulate`` (``holdem simulate`` of ``SIM_ARGS`` into
    ``DIR/run``) or ``audit`` (``holdem audit RUN``). F is one of

    - ``worker``: SIGKILL the worker process of the first task to start (killed before it wrote
      anything), then SIGKILL the worker of another task just *after* its work was done (file
      renamed into place, result not yet returned), so Ray retries both;
    - ``node``: ``Cluster.remove_node`` of the node running the first task to start (its raylet,
      object store and workers die), mid-task;
    - ``driver``: SIGKILL the driver once some but not all tasks have finished (for simulate:
      once a batch file has landed), then run the same command again.

``python -m tests.cluster.faulttest serve --dir DIR``
    The same, for many scenarios on ONE such cluster (what the tests use: starting a cluster
    takes longer than a scenario): starts it, prints ``READY``, then runs one scenario per JSON
    line read on stdin (``{"fault", "phase", "dir", "run"}``) and answers each with one line
    ``DONE <report path>`` or ``ERROR <text>``. Before each scenario the cluster is brought back
    to its shape (a removed node replaced: two live worker nodes of 1 CPU), so every scenario
    starts on the same cluster a fresh one would give; it shuts down at the end of stdin.

``python -m tests.cluster.faulttest drive --markers DIR --delay S -- HOLDEM-ARGS...``
    The real ``holdem`` command (``cluster.cli.main``) with one change, made in this driver
    process only: the bodies of the Ray tasks, ``cluster.flows.simulate.write_batch`` and
    ``audits.runner.map_file``, are wrapped by ``slowed``. Both drivers look these module globals
    up when they fan them out (``cluster.fanout``), so patching the global is enough; the wrapped
    function is pickled by value and shipped to the workers with the task like any other. The
    wrapper writes a marker file (pid, node id, task, "start") into DIR, sleeps S seconds, does
    the real work, writes a "done" marker and sleeps S/2 seconds more before returning: the
    tasks become slow enough to be killed at a known point, and their results are unchanged.
    Production code holds no test hook.

Every process of a scenario (the cluster's, the drivers, the workers) finds this module as
``tests.cluster.faulttest`` through ``PYTHONPATH`` (the repository root is put first).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from audits.runfolder import RunFolder, batch_relpath

# The run every simulate scenario makes: 4 batches, two per worker node (small: the tasks are
# made slow by DELAY, not by their size).
SIM_HANDS = 10_000
SIM_BATCHES = 4
SIM_ARGS = ["simulate", "--hands", str(SIM_HANDS), "--batch-size", str(SIM_HANDS // SIM_BATCHES),
            "--structure", "no-limit", "--seed", "17", "--quiet"]
DELAY = 1.5  # seconds a task sleeps before its work (and half of it after)
TIMEOUT = 90.0  # seconds any one wait may take
ROOT = Path(__file__).resolve().parents[2]  # the repository: ``tests`` is a package there
MODULE = "tests.cluster.faulttest"


def _env(env: dict[str, str]) -> dict[str, str]:
    """``env`` for a process of a scenario: a local Ray's settings (``cluster.ray_runtime``), no
    cluster address inherited, this repository first on ``PYTHONPATH``."""
    from cluster.ray_runtime import LOCAL_ENV

    out = {k: v for k, v in env.items() if k != "RAY_ADDRESS"} | LOCAL_ENV
    out["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return out


# ---------------------------------------------------------------- markers and the task wrapper


def _task_label(kind: str, args: tuple[Any, ...]) -> str:
    if kind == "simulate":  # write_batch(spec, structure, batch_index, folder)
        return batch_relpath(args[1].label, int(args[2])).removesuffix(".parquet")
    path = Path(str(args[0]))  # map_file(path, names)
    return f"{path.parent.name}/{path.stem}"


def write_marker(markers: str, record: dict[str, Any]) -> None:
    """One JSON file per event, written under a hidden name and renamed (never read half)."""
    name = f"{record['event']}-{uuid.uuid4().hex[:12]}.json"
    tmp = os.path.join(markers, f".{name}")
    with open(tmp, "w") as f:
        json.dump(record, f)
    os.replace(tmp, os.path.join(markers, name))


def read_markers(markers: Path) -> list[dict[str, Any]]:
    """Every marker written so far, oldest first. pathlib's glob also matches hidden names:
    skip the temporary ones (being written, or left half-written by a killed worker)."""
    out = [json.loads(p.read_text()) for p in markers.glob("*.json")
           if not p.name.startswith(".")]
    return sorted(out, key=lambda r: r["time"])


def slowed(fn: Callable[..., Any], kind: str, markers: str, delay: float) -> Callable[..., Any]:
    """``fn`` with a marker and a sleep before and after its work (see the module docstring)."""

    def task_body(*args: Any, **kwargs: Any) -> Any:
        import ray

        base = {"kind": kind, "task": _task_label(kind, args), "pid": os.getpid(),
                "node": ray.get_runtime_context().get_node_id()}
        write_marker(markers, {**base, "event": "start", "time": time.time()})
        time.sleep(delay)
        result = fn(*args, **kwargs)
        write_marker(markers, {**base, "event": "done", "time": time.time()})
        time.sleep(delay / 2)
        return result

    task_body.__name__ = task_body.__qualname__ = f"slowed_{fn.__name__}"
    return task_body


def drive(markers: str, delay: float, argv: list[str]) -> int:
    """``holdem ARGV`` with slowed task bodies (this process only)."""
    import audits.runner
    import cluster.flows.simulate
    from cluster.cli import main

    cluster.flows.simulate.write_batch = slowed(  # type: ignore[assignment]
        cluster.flows.simulate.write_batch, "simulate", markers, delay)
    audits.runner.map_file = slowed(  # type: ignore[assignment]
        audits.runner.map_file, "audit", markers, delay)
    return main(argv)


# ---------------------------------------------------------------- the scenarios


def _wait(what: str, cond: Callable[[], Any], proc: subprocess.Popen[bytes] | None = None,
          timeout: float = TIMEOUT) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the driver exited ({proc.returncode}) before {what}")
        time.sleep(0.05)
    raise TimeoutError(f"timed out waiting for {what}")


def _landed(run: Path) -> list[str]:
    return RunFolder.open(run).batch_relpaths()


def _tail(path: Path, lines: int = 15) -> str:
    if not path.exists():
        return ""
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


WORKER_NODES = 2  # worker nodes of 1 CPU each; the head has no CPU


def start_cluster() -> Any:
    """The local multi-node Ray of the scenarios (see the module docstring)."""
    import ray._common.utils
    from ray.cluster_utils import Cluster

    os.environ.update(_env(dict(os.environ)))  # the nodes' workers inherit it
    os.environ.pop("RAY_ADDRESS", None)
    # a fresh cluster prestarts workers for its first driver only: for every driver here, so
    # that each scenario finds what a fresh cluster gives it
    os.environ["RAY_enable_worker_prestart"] = "1"
    cluster = Cluster(initialize_head=True,
                      head_node_args={"num_cpus": 0, "include_dashboard": False})
    # Cluster() records its address in /tmp/ray/ray_current_cluster, where any other process's
    # plain ray.init() would find it and join this cluster instead of starting its own Ray:
    # forget it at once (the drivers get the address explicitly).
    ray._common.utils.reset_ray_address()
    try:
        restore_cluster(cluster)
    except BaseException:
        cluster.shutdown()
        raise
    return cluster


def restore_cluster(cluster: Any) -> None:
    """Bring the cluster to its shape: ``WORKER_NODES`` worker nodes of 1 CPU, all registered
    alive, no other node alive (a node removed by a scenario replaced by a fresh one), and every
    CPU free (nothing of an earlier scenario's drivers still running)."""
    while len(cluster.worker_nodes) < WORKER_NODES:
        cluster.add_node(num_cpus=1)
    state = cluster.global_state
    want = {n.node_id for n in cluster.list_all_nodes()}
    workers = [n.node_id for n in cluster.worker_nodes]

    def ready() -> bool:
        if set(state._live_node_ids()) != want:
            return False
        free = state.available_resources_per_node()
        return all(free.get(n, {}).get("CPU") == 1 for n in workers)

    _wait("the cluster's nodes alive (and only them), every CPU free", ready)


def scenario(fault: str, phase: str, work: Path, run: Path | None = None,
             delay: float = DELAY, cluster: Any = None) -> dict[str, Any]:
    """Run one scenario (see the module docstring); returns (and writes) its report. On
    ``cluster`` (``start_cluster``) when given, left running; else on a cluster of its own."""
    markers = work / "markers"
    markers.mkdir(parents=True)
    if phase == "simulate":
        run = work / "run"
        args = [*SIM_ARGS, "--out", str(run)]
    elif run is not None:
        args = ["audit", str(run), "--quiet"]
    else:
        raise ValueError("the audit phase needs --run")
    report: dict[str, Any] = {"fault": fault, "phase": phase, "run": str(run), "kills": [],
                              "drivers": []}
    t0 = time.monotonic()
    own = cluster is None
    if cluster is None:
        cluster = start_cluster()
    else:
        restore_cluster(cluster)
    try:
        nodes = list(cluster.worker_nodes)
        report["cluster_seconds"] = round(time.monotonic() - t0, 2)
        report["cluster_shared"] = not own
        cmd = [sys.executable, "-m", MODULE, "drive", "--markers", str(markers),
               "--delay", str(delay), "--", *args]

        def start(i: int) -> subprocess.Popen[bytes]:
            """The first driver joins with --address; a rerun joins through RAY_ADDRESS, as
            the entrypoint of `ray job submit` does."""
            env = dict(os.environ)
            if i == 0:
                argv = [*cmd, "--address", cluster.address]
            else:
                argv, env["RAY_ADDRESS"] = cmd, cluster.address
            with open(work / f"driver{i}.out", "wb") as out, \
                    open(work / f"driver{i}.err", "wb") as err:
                return subprocess.Popen(argv, stdout=out, stderr=err, cwd=work, env=env)

        def starts() -> list[dict[str, Any]]:
            return [m for m in read_markers(markers) if m["event"] == "start"]

        proc = start(0)
        t_run = time.monotonic()
        if fault == "worker":
            first = _wait("a task to start", starts, proc)[0]
            os.kill(first["pid"], signal.SIGKILL)
            report["kills"].append({**first, "landed": _landed(run) if phase == "simulate"
                                    else None})

            def other_done() -> dict[str, Any] | None:
                killed = {k["pid"] for k in report["kills"]}
                return next((m for m in read_markers(markers) if m["event"] == "done"
                             and m["pid"] not in killed and m["task"] != first["task"]), None)

            second = _wait("another task to finish its work", other_done, proc)
            os.kill(second["pid"], signal.SIGKILL)
            report["kills"].append({**second, "landed": _landed(run) if phase == "simulate"
                                    else None})
        elif fault == "node":
            first = _wait("a task to start", starts, proc)[0]
            node = next(n for n in nodes if n.node_id == first["node"])
            cluster.remove_node(node, allow_graceful=False)
            report["kills"].append({**first, "removed_node": node.node_id})
        elif fault == "driver":
            if phase == "simulate":
                landed = _wait("a batch file to land", lambda: _landed(run), proc)
            else:
                landed = _wait("an audit map to finish", lambda: [
                    m for m in read_markers(markers) if m["event"] == "done"], proc)
            proc.send_signal(signal.SIGKILL)
            report["kills"].append({"pid": proc.pid, "what": "driver",
                                    "finished_before": len(landed)})
            rc = proc.wait(TIMEOUT)
            report["drivers"].append({"rc": rc, "seconds": round(time.monotonic() - t_run, 2),
                                      "stderr": _tail(work / "driver0.err"),
                                      "joined": "--address"})
            proc = start(1)
            t_run = time.monotonic()
        else:
            raise ValueError(f"unknown fault {fault!r}")
        rc = proc.wait(TIMEOUT)
        i = len(report["drivers"])
        report["drivers"].append({"rc": rc, "seconds": round(time.monotonic() - t_run, 2),
                                  "stderr": _tail(work / f"driver{i}.err"),
                                  "joined": "--address" if i == 0 else "RAY_ADDRESS"})
        report["address"] = cluster.address
        report["markers"] = read_markers(markers)
        report["seconds"] = round(time.monotonic() - t0, 2)
    finally:
        if own:
            cluster.shutdown()
    (work / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    return report


def serve(work: Path) -> None:
    """Scenarios read from stdin, one JSON line each, on one cluster (see the module docstring).
    Answers on stdout, prefixed: nothing else this process prints is taken for an answer."""
    work.mkdir(parents=True, exist_ok=True)
    cluster = start_cluster()
    try:
        print(f"{ANSWER} READY", flush=True)
        for line in sys.stdin:
            if not line.strip():
                continue
            req = json.loads(line)
            try:
                d = Path(req["dir"])
                d.mkdir(parents=True, exist_ok=True)
                scenario(req["fault"], req["phase"], d,
                         Path(req["run"]) if req.get("run") else None, cluster=cluster)
                print(f"{ANSWER} DONE {d / 'report.json'}", flush=True)
            except Exception as e:  # noqa: BLE001 - answered, the next scenario may run
                msg = f"{type(e).__name__}: {e}".replace("\n", " | ")
                print(f"{ANSWER} ERROR {msg}", flush=True)
    finally:
        cluster.shutdown()


ANSWER = "FAULTTEST"  # the prefix of serve's answers on stdout


class ScenarioServer:
    """``serve`` in a fresh Python process (what the tests use): ``run`` runs one scenario on
    the shared cluster and returns its report, as ``run_scenario`` does on a cluster of its
    own; ``close`` shuts the cluster down."""

    def __init__(self, work: Path, timeout: float = 240.0) -> None:
        import queue
        import threading

        work.mkdir(parents=True, exist_ok=True)
        self.work = work
        self.timeout = timeout
        self._err = open(work / "serve.err", "wb")  # noqa: SIM115 - closed by close()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", MODULE, "serve", "--dir", str(work)], env=_env(
                dict(os.environ)), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self._err, text=True, cwd=work)
        self._answers: queue.Queue[str | None] = queue.Queue()

        def read() -> None:
            assert self.proc.stdout is not None
            for out in self.proc.stdout:
                if out.startswith(ANSWER + " "):
                    self._answers.put(out[len(ANSWER) + 1:].rstrip("\n"))
            self._answers.put(None)  # the process ended

        threading.Thread(target=read, daemon=True).start()
        self._answer("the scenario cluster to start", expect="READY")

    def _answer(self, what: str, expect: str = "DONE ") -> str:
        import queue

        try:
            got = self._answers.get(timeout=self.timeout)
        except queue.Empty:
            got = f"ERROR timed out after {self.timeout} s"
        if got is None or not got.startswith(expect):
            raise RuntimeError(f"{what} failed: {got or f'exit {self.proc.poll()}'}\n"
                               + _tail(self.work / "serve.err", 30))
        return got[len(expect):]

    def run(self, fault: str, phase: str, work: Path, run: Path | None = None
            ) -> dict[str, Any]:
        assert self.proc.stdin is not None
        work.mkdir(parents=True, exist_ok=True)
        req = {"fault": fault, "phase": phase, "dir": str(work),
               "run": str(run) if run is not None else None}
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        try:
            report = Path(self._answer(f"scenario {fault}/{phase}"))
        except RuntimeError as e:
            drivers = "".join(f"\n--- {p.name}:\n{_tail(p)}"
                              for p in sorted(work.glob("driver*")))
            raise RuntimeError(f"{e}{drivers}") from None
        return json.loads(report.read_text())

    def close(self) -> None:
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        finally:
            self._err.close()


def run_scenario(fault: str, phase: str, work: Path, run: Path | None = None,
                 timeout: float = 240.0) -> dict[str, Any]:
    """``scenario`` in a fresh Python process (what the tests call); returns its report."""
    work.mkdir(parents=True, exist_ok=True)
    env = _env(dict(os.environ))
    cmd = [sys.executable, "-m", MODULE, "scenario", "--fault", fault,
           "--phase", phase, "--dir", str(work)]
    if run is not None:
        cmd += ["--run", str(run)]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if res.returncode != 0 or not (work / "report.json").exists():
        drivers = "".join(f"\n--- {p.name}:\n{_tail(p)}" for p in sorted(work.glob("driver*")))
        raise RuntimeError(f"scenario {fault}/{phase} failed ({res.returncode}):\n"
                           + "\n".join(res.stderr.splitlines()[-30:]) + drivers)
    return json.loads((work / "report.json").read_text())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=f"python -m {MODULE}")
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("drive", help="holdem with slowed Ray task bodies")
    d.add_argument("--markers", required=True)
    d.add_argument("--delay", type=float, default=DELAY)
    d.add_argument("holdem", nargs=argparse.REMAINDER)
    s = sub.add_parser("scenario", help="one fault scenario on a local multi-node cluster")
    s.add_argument("--fault", required=True, choices=["worker", "node", "driver"])
    s.add_argument("--phase", required=True, choices=["simulate", "audit"])
    s.add_argument("--dir", required=True, type=Path)
    s.add_argument("--run", type=Path, default=None)
    s.add_argument("--delay", type=float, default=DELAY)
    v = sub.add_parser("serve", help="scenarios read from stdin, on one cluster")
    v.add_argument("--dir", required=True, type=Path)
    a = p.parse_args(argv)
    if a.cmd == "drive":
        rest = a.holdem[1:] if a.holdem[:1] == ["--"] else a.holdem
        return drive(a.markers, a.delay, rest)
    if a.cmd == "serve":
        serve(a.dir)
        return 0
    scenario(a.fault, a.phase, a.dir, a.run, a.delay)
    return 0


if __name__ == "__main__":
    sys.exit(main())
