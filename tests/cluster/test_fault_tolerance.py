"""Fault tolerance on one machine (issue 7 §3): a worker killed, a node removed, the driver killed,
during ``holdem simulate`` and during ``holdem audit`` on a local multi-node Ray cluster.

The scenarios run in processes of their own (``tests/cluster/faulttest.py``: the cluster owner,
the drivers), so they neither use nor disturb the session Ray of conftest.py. They share one
local multi-node cluster (``ScenarioServer``: starting one takes longer than a scenario), brought
back to its shape before each (two live worker nodes, every CPU free; a removed node replaced);
each scenario has its own drivers, markers and run folder. The references are made
here without Ray: the same ``holdem simulate`` command with ``--workers 0`` and the audits
in-process.
After every fault the run must complete with exactly the planned files, each byte-identical to
the reference (sha256 and table), no temporary or extra file, and the same audit results.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from audits.runfolder import batch_relpath
from audits.runner import run_audits
from cluster.cli import main
from tests.cluster.faulttest import SIM_ARGS, SIM_BATCHES, SIM_HANDS, ScenarioServer

pytestmark = pytest.mark.slow

PLANNED = [batch_relpath("no-limit", b) for b in range(SIM_BATCHES)]


def _all_files(run: Path) -> list[str]:
    """Every file under the run folder (hidden ones too), relative, sorted."""
    return sorted(str(p.relative_to(run)) for p in run.rglob("*") if p.is_file())


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _results(report: dict[str, Any]) -> list[dict[str, Any]]:
    return json.loads(json.dumps(report["results"]))  # tuples -> lists, as in audit.json


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The run of SIM_ARGS simulated in this process (no Ray) and its in-process audit."""
    run = tmp_path_factory.mktemp("reference") / "run"
    assert main([*SIM_ARGS, "--out", str(run), "--workers", "0"]) == 0
    audit = run_audits(run).to_dict()
    assert audit["passed"] and audit["files"] == SIM_BATCHES
    return {"run": run, "sha": {f: _sha(run / f) for f in PLANNED}, "audit": audit}


@pytest.fixture(scope="module")
def faults(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScenarioServer]:
    """The cluster every scenario of this module runs on (shut down after the last)."""
    server = ScenarioServer(tmp_path_factory.mktemp("cluster"))
    try:
        yield server
    finally:
        server.close()


def _check_run(run: Path, ref: dict[str, Any]) -> None:
    """Exactly the planned files plus the manifest, each identical to the reference's."""
    assert _all_files(run) == sorted([*PLANNED, "manifest.json"])  # no temp, extra or missing
    for f in PLANNED:
        assert _sha(run / f) == ref["sha"][f], f
        assert pq.read_table(run / f).equals(pq.read_table(ref["run"] / f)), f
    m = json.loads((run / "manifest.json").read_text())
    assert m["status"] == "complete"
    assert sorted(r["path"] for r in m["files"]) == PLANNED  # each batch recorded once
    assert {r["path"]: r["sha256"] for r in m["files"]} == ref["sha"]
    assert m["totals"]["hands"] == m["totals"]["rows"] == SIM_HANDS


def _retried(report: dict[str, Any], kill: dict[str, Any]) -> list[dict[str, Any]]:
    """The attempts of the killed task that started after the kill, in other processes."""
    return [m for m in report["markers"] if m["event"] == "start" and m["task"] == kill["task"]
            and m["pid"] != kill["pid"] and m["time"] > kill["time"]]


def _check_fault_hit(report: dict[str, Any]) -> None:
    """The fault happened mid-run and the run then finished (exit 0)."""
    assert report["drivers"][-1]["rc"] == 0, report["drivers"][-1]["stderr"]
    done = {m["task"] for m in report["markers"] if m["event"] == "done"}
    assert len(done) == SIM_BATCHES
    if report["fault"] == "worker":
        first, second = report["kills"]
        assert first["event"] == "start" and second["event"] == "done"
        assert first["task"] != second["task"]
        assert _retried(report, first) and _retried(report, second)  # Ray retried both
    elif report["fault"] == "node":
        (kill,) = report["kills"]
        again = _retried(report, kill)
        assert again and all(m["node"] != kill["removed_node"] for m in again)
        later = [m for m in report["markers"] if m["time"] > kill["time"]]
        assert all(m["node"] != kill["removed_node"] for m in later)  # the node is gone
    else:
        (kill,) = report["kills"]
        assert report["drivers"][0]["rc"] == -9  # SIGKILL, then the same command again
        assert 0 < kill["finished_before"] < SIM_BATCHES
        assert len(report["drivers"]) == 2


@pytest.mark.parametrize("fault", ["worker", "node", "driver"])
def test_simulate_survives(fault: str, reference: dict[str, Any], faults: ScenarioServer,
                           tmp_path: Path) -> None:
    report = faults.run(fault, "simulate", tmp_path)
    _check_fault_hit(report)
    run = Path(report["run"])
    _check_run(run, reference)
    if fault == "driver":  # the second command resumed: it kept the batches already landed
        m = json.loads((run / "manifest.json").read_text())
        assert m["timings"]["batches_reused"] >= report["kills"][0]["finished_before"]
        # and it joined the cluster through RAY_ADDRESS alone, as under `ray job submit`
        assert [d["joined"] for d in report["drivers"]] == ["--address", "RAY_ADDRESS"]
        assert m["runtime"]["ray"] == report["address"]
    audit = run_audits(run).to_dict()
    assert audit["passed"] == reference["audit"]["passed"]
    assert _results(audit) == _results(reference["audit"])


@pytest.mark.parametrize("fault", ["worker", "node", "driver"])
def test_audit_survives(fault: str, reference: dict[str, Any], faults: ScenarioServer,
                        tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(reference["run"], run)
    report = faults.run(fault, "audit", tmp_path / "scenario", run=run)
    _check_fault_hit(report)
    assert _all_files(run) == sorted([*PLANNED, "audit.json", "manifest.json"])
    for f in PLANNED:  # the audit only reads the batch files
        assert _sha(run / f) == reference["sha"][f]
    audit = json.loads((run / "audit.json").read_text())
    ref = reference["audit"]
    assert audit["passed"] is ref["passed"] is True
    assert (audit["files"], audit["hands"]) == (ref["files"], ref["hands"])
    assert audit["runtime"]["ray"] == "ray"  # it really ran on the cluster
    assert _results(audit) == _results(ref)
