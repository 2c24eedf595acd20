"""The verdict is a property of the hands, not of how the work was split: the same run certified
with other batch sizes and worker counts gives the same hands, coverage, verdict and
certificate (its times aside)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cluster.flows.certify import certify
from sim.runspec import DEFAULT_POPULATION, PLAN_BLOCK, RunSpec

HANDS = 2 * PLAN_BLOCK  # two blocks: the plan's schedule of table kinds is exercised


def _comparable(cert: dict[str, Any]) -> dict[str, Any]:
    """A certificate less what states when and how fast the work ran (the page and summary
    show those times, so their hashes go too)."""
    out = {k: v for k, v in cert.items() if k not in ("issued", "provenance", "documents")}
    out["reproduction"] = {k: v for k, v in cert["reproduction"].items() if k != "seconds"}
    run = dict(cert["run"])
    # manifest.json and audit.json hold their own times: their sha256 differ, their files not
    for k in ("created", "finished", "timings", "audit_sha256", "manifest_sha256"):
        run.pop(k, None)
    out["run"] = run
    return out


@pytest.mark.slow
def test_verdict_coverage_and_certificate_do_not_depend_on_batch_size_or_workers(
        tmp_path: Path, ray_local: None) -> None:
    certs = {}
    for batch_size, workers in ((PLAN_BLOCK, 0), (HANDS, 2), (100_000, 0)):
        spec = RunSpec(hands=HANDS, batch_size=batch_size, structures=("pot-limit",), seed=3,
                       **DEFAULT_POPULATION)
        out = tmp_path / f"b{batch_size}-w{workers}"
        res = certify(spec, out, workers=workers, calibration=None, progress=False)
        certs[(batch_size, workers)] = json.loads((out / "certificate.json").read_text())
        assert res.reproduction["status"] == "REPRODUCED"
    first, *rest = certs.values()
    assert first["coverage"]["pot-limit"]["hands"] == HANDS
    assert len(first["run"]["files"]) == 2  # two batches of one table kind each
    for other in rest:
        assert other["verdict_text"] == first["verdict_text"]
        assert other["coverage"] == first["coverage"]
        a, b = _comparable(other), _comparable(first)
        assert a == b, {k: (a["run"][k], b["run"][k]) for k in a["run"]
                        if a["run"][k] != b["run"][k]}


def test_a_too_small_run_says_how_many_hands_it_needs() -> None:
    """Coverage of a structure below its minimum hands is LIMITED, naming what it has and
    needs; a path whose tables the run did not play is not certified rather than failed."""
    import numpy as np

    from audits import paths as P
    from audits.coverage import CoveragePartial, coverage_reduce

    small = CoveragePartial(counts={"no-limit": np.ones(P.N_PATHS, np.int64)},
                            hands={"no-limit": 20_000},
                            by_format={"no-limit": {"cash": 20_000, "tournament": 0}})
    res = coverage_reduce("coverage", [small])
    assert not res.applicable
    assert "no-limit has 20,000 hands of the 100,000 it needs" in res.details["note"]
    big = CoveragePartial(counts={"no-limit": np.full(P.N_PATHS, 1000, np.int64)},
                          hands={"no-limit": 200_000},
                          by_format={"no-limit": {"cash": 200_000, "tournament": 0}})
    res = coverage_reduce("coverage", [big])
    assert res.applicable and res.passed
    entry = res.details["per_structure"]["no-limit"]
    assert entry["elimination"]["certified"] is False and entry["rake"]["ok"] is True
    assert "no-limit has no tournament hands (ante, big_blind_ante, ante_all_in, elimination)" \
        in res.details["note"]
    big.counts["no-limit"][P.RAKE] = 0  # a cash path at cash tables still fails, with amounts
    res = coverage_reduce("coverage", [big])
    assert not res.passed
    assert res.details["short"] == ["no-limit/rake below its minimum (0 of 6 in 200,000 hands; "
                                    "a correct engine falls below it with probability under "
                                    "0.0001)"]
