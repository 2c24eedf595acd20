"""``holdem audit`` over Ray (``cluster.flows.audit``): the same report as the audits in process,
key
partitions included; an unusable file is one line and exit 2 on Ray too."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from audits import shuffles
from audits import uniformity as u
from audits.runner import run_audits
from cluster.cli import main
from cluster.flows.audit import audit_run, ray_map_files
from cluster.ray_runtime import ray_session
from sim.config import Structure
from tests.audits.test_exact_audits import (
    EXACT,
    HANDS,
    simulated,
    tamper_won_swapped,
    write_run,
)
from tests.audits.test_uniformity import _rng, _run_with_decks


def test_ray_fan_out_matches_in_process(ray_local: None, tmp_path: Path) -> None:
    root = tmp_path / "run"
    for s in (Structure.NO_LIMIT, Structure.FIXED_LIMIT):
        write_run(root, simulated("cash", s))
    bad, _ = tamper_won_swapped(simulated("tournament", Structure.POT_LIMIT))
    write_run(root, bad)
    seen: list[int] = []
    with ray_session() as session:
        ray_res = run_audits(root, EXACT, on_file=lambda f, n: seen.append(n),
                             map_files=ray_map_files(session, 1))
    local = run_audits(root, EXACT)
    assert sum(seen) == 3 * HANDS
    assert [r.to_dict() for r in ray_res.results] == [r.to_dict() for r in local.results]
    assert not ray_res.passed
    report = audit_run(root, EXACT, progress=False)  # the Ray of this session, every CPU
    assert {k: v for k, v in report.runtime.items() if k != "worker_code"} == {"ray": "ray",
                                                                                "cpus": 2}
    # every task checked that its worker runs the driver's compiled code (audits.jitcache)
    from audits import jitcache

    assert report.runtime["worker_code"]["driver"] == jitcache.identity_digest()
    assert report.runtime["worker_code"]["tasks"] == 3  # one task per file
    assert [r.name for r in report.results] == [*EXACT, "integrity"]
    assert report.results[:-1] == local.results


def test_key_partitions_on_ray_count_as_in_process(ray_local: None, tmp_path: Path) -> None:
    rng = _rng(20)
    pool = shuffles.fair_fisher_yates(600, rng)  # a tiny deck space: many identical decks
    decks = pool[rng.integers(0, len(pool), 4_000)]
    root = _run_with_decks(tmp_path / "run", decks)
    budget = 4_000 * u.KEY_BYTES // 5  # five partitions

    def collisions(workers: int) -> tuple[dict, dict]:
        report = audit_run(root, ["uniformity"], workers=workers, key_memory=budget,
                           progress=False)
        assert report.runtime["key_partitions"] == {"uniformity": 5}
        tests = {t["name"]: t for t in report.results[0].details["tests"]}
        return tests["uniformity.duplicate_decks"], tests["uniformity.first_k_collisions"]

    (dup0, fk0), (dup_ray, fk_ray) = collisions(0), collisions(None)
    assert dup_ray["details"]["key_partitions"] == 5
    assert dup_ray["statistic"] == dup0["statistic"] > 5_000 and not dup_ray["passed"]
    assert fk_ray["statistic"] == fk0["statistic"]
    assert sorted(fk_ray["example_hand_ids"]) == sorted(fk0["example_hand_ids"])
    a, b = dup_ray["example_hand_ids"][:2]
    assert a != b and np.array_equal(decks[a], decks[b])


def test_an_unreadable_file_on_ray_is_one_line_exit_2(ray_local: None, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The worker's AuditInputError reaches the CLI as itself (not a failed task)."""
    root = write_run(tmp_path / "run", simulated("cash", Structure.NO_LIMIT))
    t = simulated("cash", Structure.FIXED_LIMIT)
    idx = t.schema.get_field_index("rake")
    write_run(root, t.set_column(idx, "rake", t.column("rake").cast(pa.int32())))
    capsys.readouterr()
    assert main(["audit", str(root), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert err.startswith("holdem: error: ") and "fixed-limit/batch-00000.parquet" in err
    assert "column 'rake' is int32, expected int64" in err


def test_an_audit_task_failing_in_certify_is_one_line_exit_1(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A Ray task that fails after its retries ends `holdem certify` as it ends `holdem audit`:
    one line on stderr naming the task, exit 1, no traceback."""
    import cluster.flows.audit
    from cluster.fanout import TaskFailed

    def failing(*args: object, **kwargs: object) -> None:
        raise TaskFailed("audit log/no-limit/batch-00000.parquet failed after 3 retries: "
                         "OSError: node lost")

    monkeypatch.setattr(cluster.flows.audit, "audit_run", failing)
    assert main(["certify", "--hands", "200", "--batch-size", "100", "--structure", "no-limit",
                 "--seed", "1", "--workers", "0", "--quiet", "--out", str(tmp_path / "c")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["holdem: audit log/no-limit/batch-00000.parquet failed after 3 retries: "
                   "OSError: node lost (rerun the command to resume)"]
