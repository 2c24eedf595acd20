"""``holdem report --sign-key`` starts Ray once (review of issue 24, "Ray started once per
command"): it re-runs the audits to bind audit.json before signing and re-simulates the run
from its spec, two steps on Ray, which each started and shut down their own Ray."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cluster.test_single_pass import FakeRay, fake_ray  # noqa: F401 - the fixture


def test_report_signing_a_reproducible_run_starts_ray_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keys: Path,
        fake_ray: FakeRay) -> None:  # noqa: F811
    import cluster.flows.audit as flows_audit
    import cluster.flows.reproduce as flows_reproduce
    from cluster.flows.certify import certify, report
    from cluster.ray_runtime import ray_session
    from sim.runspec import RunSpec

    out = tmp_path / "run"
    spec = RunSpec(hands=300, batch_size=150, structures=("no-limit",), seed=5)
    certify(spec, str(out), workers=0, progress=False)  # in this process: no Ray
    assert fake_ray.inits == 0
    real_audit, real_reproduce = flows_audit.audit_run, flows_reproduce.reproduce_run

    def audit_run(run: Any, names: Any, *, workers: Any = None, address: Any = None,
                  **kw: Any) -> Any:
        with ray_session(address, 2):  # what a step on Ray does first; then the work itself
            pass
        return real_audit(run, names, workers=0, **kw)

    def reproduce_run(run: Any, *a: Any, workers: Any = None, address: Any = None,
                      **kw: Any) -> Any:
        with ray_session(address, 2):
            pass
        return real_reproduce(run, *a, workers=0, **kw)

    monkeypatch.setattr(flows_audit, "audit_run", audit_run)
    monkeypatch.setattr(flows_reproduce, "reproduce_run", reproduce_run)
    written = report(out, None, sign_key=keys, workers=2)
    assert written.verdict == "PASS" and "signature" in written.paths
    assert fake_ray.inits == 1 and fake_ray.shutdowns == 1 and not fake_ray.up
