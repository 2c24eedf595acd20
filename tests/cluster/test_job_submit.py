"""The Ray Jobs path for real (issue 16): a local Ray head with its job server on loopback plus
a second node started with ``ray start``, ``holdem certify`` submitted with ``ray job submit`` and
the project's own ``cluster/configs/runtime_env.yaml``, as cluster/README.md's "try the cluster
path on one machine" section does it.

- ``test_certify_through_ray_job_submit``: the job succeeds; its run folder holds exactly the
  batch files an in-process run of the same command makes (byte for byte), and a PASS
  certificate that ``holdem verify`` accepts and that names this checkout's commit (stamped by
  ``python -m audits.provenance``: the uploaded code has no ``.git``).
- ``test_job_survives_the_worker_node_dying``: the worker node's raylet is SIGKILLed while one
  of its workers runs a batch task (seen by its process title, ``ray::write_batch``); the job
  still succeeds, with the same files, the node is marked dead and Ray's task table shows the
  retry.

Every Ray process here belongs to this module (``ray start --block`` children, in their own
session, a private temp dir, ports picked free at run time); teardown stops exactly those. The
two tests share the head (starting one takes longer than a job); each starts with a live worker
node (a fresh one when an earlier test killed it) and looks only at its own job's tasks.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from audits.runfolder import RunFolder
from cluster.cli import main

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# the README's command (certify: simulate + audit + report), 9 batches over 3 structures
CERTIFY = ["certify", "--hands", "30000", "--batch-size", "10000", "--seed", "5"]
BATCHES = 9
TIMEOUT = 600.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _node_ports() -> list[str]:
    """Ports of one node, all picked free (two nodes share this machine, and so do other Ray
    users: no default port)."""
    out = []
    for opt in ("--node-manager-port", "--object-manager-port", "--dashboard-agent-listen-port",
                "--dashboard-agent-grpc-port", "--metrics-export-port",
                "--runtime-env-agent-port"):
        out += [opt, str(_free_port())]
    return out


def _wait(what: str, cond: Callable[[], Any], timeout: float = TIMEOUT,
          every: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(every)
    raise TimeoutError(f"timed out waiting for {what}")


def _psutil() -> Any:
    """psutil, which Ray ships (ray/thirdparty_files, on sys.path once ray is imported)."""
    import importlib

    import ray  # noqa: F401

    return importlib.import_module("psutil")


def _get_json(url: str) -> Any:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return json.loads(r.read())
    except (OSError, ValueError):
        return None


@dataclass
class LocalCluster:
    """A head (1 CPU, job server on 127.0.0.1:dashboard) and one worker node (1 CPU)."""

    tmp: Path
    env: dict[str, str]
    gcs: int = 0
    dashboard: int = 0
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.dashboard}"

    def _start(self, name: str, args: list[str]) -> None:
        log = open(self.tmp / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        self.procs[name] = subprocess.Popen(
            [str(BIN / "ray"), "start", "--block", "--num-cpus", "1",
             "--node-ip-address", "127.0.0.1", "--object-store-memory", "100000000",
             "--disable-usage-stats", *_node_ports(), *args],
            env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def start(self) -> None:
        self.gcs, self.dashboard = _free_port(), _free_port()
        self._start("head", ["--head", "--port", str(self.gcs), "--temp-dir", str(self.tmp),
                             "--include-dashboard", "true", "--dashboard-host", "127.0.0.1",
                             "--dashboard-port", str(self.dashboard),
                             "--ray-client-server-port", str(_free_port())])
        _wait("the job server", lambda: self._alive() and _get_json(f"{self.url}/api/version"),
              timeout=120)
        self.start_worker()

    def start_worker(self) -> None:
        """The worker node (again: a new node when the last one died); two nodes alive."""
        self._start("worker", ["--address", f"127.0.0.1:{self.gcs}"])
        _wait("2 nodes alive", lambda: self._alive() and len(self.nodes("ALIVE")) == 2,
              timeout=120)

    def worker_alive(self) -> bool:
        """The worker node's ``ray start --block`` runs, its raylet too, and two nodes are
        alive (no other node of an earlier worker)."""
        if self.procs["worker"].poll() is not None:
            return False
        psutil = _psutil()
        kids = psutil.Process(self.procs["worker"].pid).children(recursive=True)
        if not any(p.name() == "raylet" and p.status() != psutil.STATUS_ZOMBIE for p in kids):
            return False
        return len(self.nodes("ALIVE")) == 2

    def ensure_worker(self) -> None:
        """A live worker node: the present one, or a new one (the dead one stopped first)."""
        if self.worker_alive():
            return
        old = self.procs.pop("worker")
        self._stop([old])
        _wait("the dead worker node marked dead", lambda: len(self.nodes("ALIVE")) == 1,
              timeout=120)
        self.start_worker()

    def _alive(self) -> bool:
        for name, p in self.procs.items():
            if p.poll() is not None:
                log = (self.tmp / f"{name}.log").read_text(errors="replace")[-3000:]
                raise RuntimeError(f"ray start ({name}) exited {p.returncode}:\n{log}")
        return True

    def nodes(self, state: str | None = None) -> list[dict[str, Any]]:
        d = _get_json(f"{self.url}/api/v0/nodes?limit=100&detail=true") or {}
        rows = ((d.get("data") or {}).get("result") or {}).get("result") or []
        return [n for n in rows if state is None or n.get("state") == state]

    def tasks(self, **filters: str) -> list[dict[str, Any]]:
        q = "&".join(f"filter_keys={k}&filter_predicates=%3D&filter_values={v}"
                     for k, v in filters.items())
        d = _get_json(f"{self.url}/api/v0/tasks?limit=1000&detail=true&{q}") or {}
        return ((d.get("data") or {}).get("result") or {}).get("result") or []

    def worker_raylet(self) -> int:
        psutil = _psutil()
        kids = psutil.Process(self.procs["worker"].pid).children(recursive=True)
        return next(p.pid for p in kids if p.name() == "raylet")

    def worker_running(self, title: str) -> bool:
        """A process of the worker node runs a task: Ray sets a worker's process title to
        ``ray::<function>`` while it executes it (``ray::IDLE`` otherwise)."""
        psutil = _psutil()
        for p in psutil.Process(self.procs["worker"].pid).children(recursive=True):
            try:
                if " ".join(p.cmdline()).startswith(title):
                    return True
            except psutil.Error:
                continue
        return False

    def submit(self, out: Path) -> subprocess.Popen[str]:
        """``ray job submit`` as the README writes it, from the repository root."""
        cmd = [str(BIN / "ray"), "job", "submit", "--address", self.url,
               "--runtime-env", "cluster/configs/runtime_env.yaml", "--",
               "holdem", *CERTIFY, "--out", str(out)]
        return subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)

    def stop(self) -> None:
        """Stop exactly this cluster's processes: each ``ray start --block`` and every process
        under it (raylet, GCS, dashboard, agents, workers, the job's driver)."""
        self._stop(list(self.procs.values()))

    def _stop(self, procs: list[subprocess.Popen[bytes]]) -> None:
        """Stop these ``ray start --block`` processes and every process under them."""
        psutil = _psutil()
        mine: list[Any] = []
        for p in procs:
            try:
                mine += [psutil.Process(p.pid), *psutil.Process(p.pid).children(recursive=True)]
            except psutil.NoSuchProcess:
                pass
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        _, alive = psutil.wait_procs(mine, timeout=20)
        for p in alive:
            try:
                p.kill()
            except psutil.NoSuchProcess:
                pass
        psutil.wait_procs(alive, timeout=10)
        for p in procs:
            p.wait(timeout=10)


@pytest.fixture(scope="module")
def shared_cluster() -> Iterator[LocalCluster]:
    # a short private temp dir: Ray's unix sockets live under it (path length limit), and no
    # other Ray on this machine shares it
    tmp = Path(tempfile.mkdtemp(prefix="hj", dir="/tmp"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env.update(RAY_USAGE_STATS_ENABLED="0", RAY_AUTH_MODE="disabled",
               PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}")
    env.pop("PYTHONPATH", None)  # the job must run the code the runtime env uploads
    c = LocalCluster(tmp, env)
    try:
        c.start()
        yield c
    finally:
        c.stop()
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture
def local_cluster(shared_cluster: LocalCluster) -> LocalCluster:
    """The module's cluster with a live worker node."""
    shared_cluster.ensure_worker()
    return shared_cluster


@pytest.fixture(scope="module")
def stamped() -> dict[str, Any]:
    """``python -m audits.provenance`` at the repository root, as the README says to before
    submitting: what the certificate must then name."""
    r = subprocess.run([sys.executable, "-m", "audits.provenance"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120, check=False)
    if r.returncode == 2:
        pytest.skip(f"not a git checkout: {r.stderr.strip()}")
    assert r.returncode == 0, r.stderr
    return json.loads((ROOT / "audits" / "build_info.json").read_text())


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """sha256 of every batch file of the same command run in this process (no Ray)."""
    run = tmp_path_factory.mktemp("ref") / "run"
    assert main([*CERTIFY, "--workers", "0", "--quiet", "--out", str(run)]) == 0
    return _batches(run)


def _batches(run: Path) -> dict[str, str]:
    return {str(p.relative_to(run)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in (run / rel for rel in RunFolder.open(run).batch_relpaths())}


def _finish(proc: subprocess.Popen[str]) -> str:
    try:
        out, _ = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        raise AssertionError(f"ray job submit did not finish:\n{out[-5000:]}") from None
    assert proc.returncode == 0, out[-5000:]
    return out


def _check_run(cluster: LocalCluster, run: Path, reference: dict[str, str],
               stamped: dict[str, Any], log: str) -> dict[str, Any]:
    assert "verdict: PASS" in log and "succeeded" in log, log[-3000:]
    assert _batches(run) == reference and len(reference) == BATCHES
    names = {p.name for p in run.iterdir()}
    assert {"manifest.json", "audit.json", "certificate.json", "report.html",
            "summary.md"} <= names
    assert not [n for n in names if n.startswith(".")]  # no temporary file left
    cert = json.loads((run / "certificate.json").read_text())
    assert cert["verdict"] == "PASS" and cert["run"]["hands"] == 90_000
    # the commit, although the job ran uploaded code without .git: the stamp, checked against
    # the sources the job loaded
    assert cert["run"]["git_commit"] == stamped["git_commit"]
    for part in ("simulate", "audit"):
        prov = cert["provenance"][part]
        assert prov["code"]["identified_by"] == "build_info", prov
        assert prov["code"]["git_dirty"] == stamped["git_dirty"]
        assert prov["code"]["sources_sha256"] == stamped["sources_sha256"]
        assert prov["command"][1:3] == ["certify", "--hands"]
        assert set(prov["versions"]) >= {"holdem", "python", "numba", "numpy", "pyarrow", "ray"}
    m = json.loads((run / "manifest.json").read_text())
    # the driver joined this cluster through the RAY_ADDRESS the job server set
    assert m["runtime"]["ray"].endswith(f":{cluster.gcs}")
    assert main(["verify", str(run)]) == 0  # the certificate is what audit + manifest give
    return cert


def test_certify_through_ray_job_submit(local_cluster: LocalCluster, stamped: dict[str, Any],
                                        reference: dict[str, str], tmp_path: Path) -> None:
    run = tmp_path / "run"
    t0 = time.monotonic()
    log = _finish(local_cluster.submit(run))
    print(f"job: {time.monotonic() - t0:.1f} s")
    _check_run(local_cluster, run, reference, stamped, log)
    assert "9 batch tasks, up to 9 queued on Ray at once; 2 CPUs present" in log


def test_job_survives_the_worker_node_dying(local_cluster: LocalCluster,
                                            stamped: dict[str, Any], reference: dict[str, str],
                                            tmp_path: Path) -> None:
    run = tmp_path / "run"
    (worker,) = [n for n in local_cluster.nodes("ALIVE") if not n.get("is_head_node")]
    earlier = {t["task_id"] for t in local_cluster.tasks(name="write_batch")}  # other jobs'
    t0 = time.monotonic()
    proc = local_cluster.submit(run)

    def batch_running_on_worker() -> bool:
        assert proc.poll() is None, "the job ended before a batch ran on the worker node"
        return local_cluster.worker_running("ray::write_batch")

    _wait("a batch task running on the worker node", batch_running_on_worker, every=0.02)
    landed_before = len(_batches(run))
    os.kill(local_cluster.worker_raylet(), signal.SIGKILL)
    killed_at = time.monotonic() - t0
    log = _finish(proc)
    print(f"job: {time.monotonic() - t0:.1f} s, worker raylet killed at {killed_at:.1f} s "
          f"({landed_before} of {BATCHES} files landed)")
    assert landed_before < BATCHES
    _check_run(local_cluster, run, reference, stamped, log)
    # the node is gone, and a batch it ran was attempted again elsewhere
    _wait("the worker node marked dead (GCS health checks)", lambda: worker["node_id"] in {
        n["node_id"] for n in local_cluster.nodes("DEAD")}, timeout=120)
    _wait("a retried batch task of this job in Ray's task table", lambda: [
        t for t in local_cluster.tasks(name="write_batch")
        if int(t.get("attempt_number") or 0) >= 1 and t["task_id"] not in earlier], timeout=60)
    m = json.loads((run / "manifest.json").read_text())
    assert sorted(f["path"] for f in m["files"]) == sorted(reference)  # each recorded once
