"""Run folders on an object store: ``holdem certify``, ``audit``, ``report``, ``replay`` and
``diff`` with an ``s3://`` URI, against a local S3 endpoint (moto's server on loopback, spoken
to by pyarrow's own S3 client, as a cluster's workers would speak to S3)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pyarrow.fs as pafs
import pytest

from audits.runfolder import batch_relpath, storage
from cluster.cli import main
from cluster.flows.simulate import run_simulate
from sim.runspec import DEFAULT_POPULATION, RunSpec

moto_server = pytest.importorskip("moto.server", reason="moto[server] (a dev dependency) is "
                                                        "needed for a local S3 endpoint")

BUCKET = "holdem-test"
REPO = Path(__file__).resolve().parents[2]
SPEC = dict(hands=2000, batch_size=1000, structures=("no-limit", "fixed-limit"), seed=4)


@pytest.fixture(scope="module")
def s3() -> Iterator[pafs.FileSystem]:
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    env = {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
           "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": f"http://{host}:{port}"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        fs, _ = pafs.FileSystem.from_uri(f"s3://{BUCKET}?allow_bucket_creation=true")
        fs.create_dir(BUCKET)
        yield fs
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        server.stop()


def _keys(fs: pafs.FileSystem, prefix: str) -> list[str]:
    infos = fs.get_file_info(pafs.FileSelector(f"{BUCKET}/{prefix}", recursive=True))
    return sorted(i.path.split("/", 2)[2] for i in infos if i.type == pafs.FileType.File)


def test_certify_audit_report_on_s3(s3: pafs.FileSystem, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    uri = f"s3://{BUCKET}/certify"
    args = ["--hands", "2000", "--batch-size", "1000", "--structure", "no-limit", "--seed", "4",
            "--out", uri, "--workers", "0", "--quiet"]
    assert main(["certify", *args]) == 0
    out = capsys.readouterr().out
    assert f"html: {uri}/report.html" in out and "verdict: PASS" in out
    keys = _keys(s3, "certify")
    for name in ("manifest.json", "audit.json", "certificate.json", "report.html", "summary.md",
                 batch_relpath("no-limit", 0),
                 batch_relpath("no-limit", 1)):
        assert name in keys
    assert not [k for k in keys if ".tmp" in k], keys  # nothing half-written stands
    cert = json.loads(storage.read_text(storage.join(uri, "certificate.json")))
    assert cert["verdict"] == "PASS"
    # the certificate binds the bytes on S3 too (re-simulated in this process: the session's Ray
    # workers were started before the endpoint was set)
    assert main(["verify", uri, "--workers", "0"]) == 0
    assert main(["audit", uri, "--workers", "0", "--quiet", "--only", "chips,deal"]) == 0
    assert "ALL PASS" in capsys.readouterr().out
    hand = json.loads(storage.read_text(storage.join(uri, "audit.json")))["results"]
    assert {r["name"] for r in hand} == {"chips", "deal", "integrity"}  # integrity: always
    # the same hands locally: diff reads both sides
    run_simulate(RunSpec(hands=2000, batch_size=1000, structures=("no-limit",), seed=4,
                         **DEFAULT_POPULATION),
                 tmp_path / "local", workers=0, progress=False)
    assert main(["diff", uri, str(tmp_path / "local")]) == 0
    assert main(["replay", uri, "--hand", "5"]) == 0
    assert "*** PRE-FLOP ***" in capsys.readouterr().out


@pytest.mark.slow
def test_certify_on_ray_workers_to_s3(s3: pafs.FileSystem) -> None:
    """The Ray path: batch tasks and audit tasks in Ray worker processes read and write the
    bucket themselves (a fresh embedded Ray in a child process, so that its workers inherit the
    endpoint settings, as cluster nodes inherit theirs)."""
    uri = f"s3://{BUCKET}/on-ray"
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    code = ("import sys; from cluster.cli import main; sys.exit(main(sys.argv[1:]))")
    res = subprocess.run(
        [sys.executable, "-c", code, "certify", "--hands", "2000", "--batch-size", "500",
         "--structure", "no-limit", "--seed", "4", "--out", uri, "--workers", "2", "--quiet"],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert f"html: {uri}/report.html" in res.stdout and "verdict: PASS" in res.stdout
    manifest = json.loads(storage.read_text(storage.join(uri, "manifest.json")))
    audit = json.loads(storage.read_text(storage.join(uri, "audit.json")))
    assert manifest["runtime"]["ray"] == "local" and manifest["totals"]["files"] == 4
    assert audit["runtime"]["ray"] == "ray" and audit["hands"] == 2000 and audit["passed"]
    assert not [k for k in _keys(s3, "on-ray") if ".tmp" in k]


def test_a_corrupt_object_is_named(s3: pafs.FileSystem,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    uri = f"s3://{BUCKET}/corrupt"
    run_simulate(RunSpec(**SPEC), uri, workers=0, progress=False)  # type: ignore[arg-type]
    rel = batch_relpath("fixed-limit", 1)
    with s3.open_output_stream(f"{BUCKET}/corrupt/{rel}") as f:
        f.write(b"PAR1 not really")
    assert main(["audit", uri, "--workers", "0", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{uri}/{rel}" in err and "not a readable Parquet file" in err
    assert main(["audit", f"s3://{BUCKET}/nowhere", "--workers", "0", "--quiet"]) == 2
    assert "no such run folder" in capsys.readouterr().err


def test_local_paths_are_unchanged(tmp_path: Path) -> None:
    run = tmp_path / "r"
    run_simulate(RunSpec(**SPEC), run, workers=0, progress=False)  # type: ignore[arg-type]
    from audits.io import run_files

    files = run_files(str(run))
    assert files and all(isinstance(f, Path) for f in files)
