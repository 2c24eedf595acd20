"""Single-pass flows (issue 24, point 3): Ray started once per command, the runtime options
validated once, the signing key loaded once, the certificate signed from the bytes written, the
audit's setup (listing, manifest) made once, the batch plan computed once per batch."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest


class FakeRay:
    """``ray.init``/``shutdown``/``is_initialized``/``cluster_resources``, counted."""

    def __init__(self) -> None:
        self.up = False
        self.inits = 0
        self.shutdowns = 0

    def init(self, *a: Any, **k: Any) -> None:
        assert not self.up, "ray.init while Ray is up"
        self.up = True
        self.inits += 1

    def shutdown(self) -> None:
        self.up = False
        self.shutdowns += 1

    def is_initialized(self) -> bool:
        return self.up

    def cluster_resources(self) -> dict[str, float]:
        return {"CPU": 3.0}


@pytest.fixture
def fake_ray(monkeypatch: pytest.MonkeyPatch) -> FakeRay:
    import ray

    fake = FakeRay()
    for name in ("init", "shutdown", "is_initialized", "cluster_resources"):
        monkeypatch.setattr(ray, name, getattr(fake, name))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    return fake


def test_one_ray_starts_ray_once_for_every_step(fake_ray: FakeRay) -> None:
    from cluster.ray_runtime import one_ray, ray_session

    with one_ray():
        assert fake_ray.inits == 0  # nothing started until a step needs Ray
        with ray_session(None, 2) as first:
            first.checked("node:1")
        with ray_session(None, 2) as second, ray_session(None, 2) as third:
            pass
        assert fake_ray.inits == 1 and fake_ray.shutdowns == 0 and fake_ray.up
    assert fake_ray.inits == 1 and fake_ray.shutdowns == 1 and not fake_ray.up
    # every step sees the first one's Ray, each with its own record of the worker code
    assert (first.where, first.cpus) == (second.where, second.cpus) == (third.where, 3) \
        == ("local", 3)
    assert first.worker_code["tasks"] == 1 and second.worker_code == {}


def test_without_one_ray_each_session_starts_its_own(fake_ray: FakeRay) -> None:
    from cluster.ray_runtime import ray_session

    for _ in range(2):
        with ray_session(None, 2):
            pass
    assert (fake_ray.inits, fake_ray.shutdowns) == (2, 2)


def test_one_ray_leaves_a_ray_it_did_not_start(fake_ray: FakeRay) -> None:
    from cluster.ray_runtime import one_ray, ray_session

    fake_ray.up = True  # a test fixture's or a notebook's Ray
    with one_ray():
        with ray_session(None, 2) as s:
            assert s.where == "existing" and not s.started
        with ray_session(None, 2) as s:
            assert s.where == "existing"
    assert (fake_ray.inits, fake_ray.shutdowns, fake_ray.up) == (0, 0, True)


def test_one_ray_shuts_down_on_failure(fake_ray: FakeRay) -> None:
    from cluster.ray_runtime import one_ray, ray_session

    with pytest.raises(RuntimeError), one_ray():
        with ray_session(None, 2):
            pass
        raise RuntimeError("a step failed")
    assert (fake_ray.inits, fake_ray.shutdowns, fake_ray.up) == (1, 1, False)


def test_runtime_is_validated_once_with_the_cli_messages() -> None:
    from cluster.ray_runtime import Runtime

    rt = Runtime.of(3, "ray://head:10001", 512)
    assert (rt.workers, rt.address, rt.key_memory) == (3, "ray://head:10001", 512 << 20)
    assert Runtime.of().key_memory is None and Runtime.of(0).in_process
    from audits.runfolder.errors import InputError

    with pytest.raises(InputError, match=r"^--workers -1: expected 0 \.\. 1,048,576$"):
        Runtime.of(-1)
    with pytest.raises(InputError, match=r"^--key-memory 0: expected a size in MB, 1 \.\. "):
        Runtime.of(2, None, 0)


def test_certify_loads_the_key_once_signs_what_it_wrote_and_plans_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keys: Path) -> None:
    """One in-process certify: the signing key read once, certificate.json never read back to
    be signed (its signature verifies over the file), the audit's setup made once, the batch
    plan asked once per batch simulated (simulate and reproduction)."""
    from audits import io as audits_io
    from audits import runner
    from audits.runfolder import storage
    from cluster.flows import signing
    from cluster.flows.certify import certify
    from sim.runspec import RunSpec

    counts: dict[str, int] = {"key": 0, "plan": 0, "inputs": 0, "cert_read": 0,
                              "batch_table": 0}
    real_read, real_plan = signing._read, runner.plan_audit
    real_inputs, real_bytes = audits_io.run_inputs, storage.read_bytes
    real_table = RunSpec.batch_table

    def key_read(path: Any, what: str) -> bytes:
        counts["key"] += 1
        return real_read(path, what)

    def plan(*a: Any, **k: Any) -> Any:
        counts["plan"] += 1
        return real_plan(*a, **k)

    def inputs(*a: Any, **k: Any) -> Any:
        counts["inputs"] += 1
        return real_inputs(*a, **k)

    def read_bytes(loc: Any) -> bytes:
        counts["cert_read"] += str(loc).endswith("certificate.json")
        return real_bytes(loc)

    def batch_table(self: RunSpec, structure: Any, index: int) -> tuple[int, str]:
        counts["batch_table"] += 1
        return real_table(self, structure, index)

    monkeypatch.setattr(signing, "_read", key_read)
    monkeypatch.setattr(runner, "plan_audit", plan)
    monkeypatch.setattr("cluster.flows.audit.plan_audit", plan)
    monkeypatch.setattr(audits_io, "run_inputs", inputs)
    monkeypatch.setattr(runner, "run_inputs", inputs)
    monkeypatch.setattr(storage, "read_bytes", read_bytes)
    monkeypatch.setattr(RunSpec, "batch_table", batch_table)

    spec = RunSpec(hands=300, batch_size=150, structures=("no-limit",), seed=5)
    out = tmp_path / "run"
    res = certify(spec, str(out), workers=0, sign_key=keys, progress=False)
    assert res.report.paths.get("signature") is not None
    assert counts["key"] == 1 and counts["plan"] == 1 and counts["inputs"] == 1
    assert counts["cert_read"] == 0
    # 2 batches simulated + 2 re-simulated, once each; the manifest's population once per batch
    assert counts["batch_table"] == 2 + 2 + 2
    pub = signing.load_public_key(f"{keys}.pub")
    data = (out / "certificate.json").read_bytes()
    assert data == res.report.certificate_bytes
    assert signing.signature_valid(pub, data, (out / "certificate.sig").read_bytes())
    assert json.loads(data)["verdict"] == res.verdict
    assert res.manifest is not None and res.manifest.hands == 300  # the typed Manifest


def test_certify_hashes_each_batch_file_once_after_writing_and_report_rehashes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In one certify, a batch file's bytes are hashed once after they are on disk (by the audit
    that reads them; simulate hashes the bytes it writes) and that hash is carried to the
    report; a later `holdem report` hashes them again, so a file changed after the audit is
    still refused."""
    from audits.runfolder import storage
    from cluster.cli import main
    from cluster.flows.certify import certify
    from sim.runspec import RunSpec

    hashed: dict[str, int] = {}
    real = storage.stream_sha256

    def stream_sha256(fs: Any, path: str) -> tuple[str, int]:
        if path.endswith(".parquet"):
            hashed[path] = hashed.get(path, 0) + 1
        return real(fs, path)

    real_read = storage.read_bytes

    def read_bytes(location: Any) -> bytes:  # the audit hashes the one read it decodes
        if str(location).endswith(".parquet") and sys._getframe(1).f_code.co_name == "map_file":
            hashed[str(location)] = hashed.get(str(location), 0) + 1
        return real_read(location)

    monkeypatch.setattr(storage, "stream_sha256", stream_sha256)
    monkeypatch.setattr(storage, "read_bytes", read_bytes)
    out = tmp_path / "run"
    spec = RunSpec(hands=300, batch_size=150, structures=("no-limit",), seed=5)
    certify(spec, str(out), workers=0, progress=False)
    batches = sorted(str(p) for p in (out / "log").rglob("*.parquet"))
    assert len(batches) == 2 and sorted(hashed) == batches
    assert set(hashed.values()) == {1}, hashed
    # the report run on its own re-hashes, and refuses a file changed after the audit
    hashed.clear()
    assert main(["report", str(out), "--no-reproduce"]) == 0
    assert set(hashed.values()) == {1}
    first = Path(batches[0])
    data = bytearray(first.read_bytes())
    data[-20] ^= 1
    first.write_bytes(bytes(data))
    assert main(["report", str(out), "--no-reproduce"]) == 2
