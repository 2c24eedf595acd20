"""``holdem simulate``: identical logs for any worker count, resume, refusals, filesystems."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest

from audits.runfolder import batch_relpath
from cluster.cli import main
from cluster.flows.manifest import MANIFEST_NAME
from cluster.flows.simulate import RunFolderError, run_dataset, run_simulate
from sim.runspec import DEFAULT_POPULATION, RunSpec

# the command line's default population (mixed seat counts and formats by batch)
SPEC = RunSpec(hands=2500, batch_size=1000, structures=("no-limit", "fixed-limit"), seed=11,
               **DEFAULT_POPULATION)
CLI = ["simulate", "--hands", "2500", "--batch-size", "1000", "--seed", "11", "--quiet"]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _files(run: Path) -> dict[str, str]:
    """relative path -> sha256 of every batch file."""
    return {str(p.relative_to(run)): _sha(p) for p in sorted(run.rglob("*.parquet"))}


def _manifest(run: Path) -> dict:
    return json.loads((run / MANIFEST_NAME).read_text())


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """SPEC simulated in this process (workers=0): the reference for the other tests."""
    run = tmp_path_factory.mktemp("baseline") / "run"
    manifest = run_simulate(SPEC, run, workers=0, progress=False).to_dict()
    return run, manifest


def test_layout_and_manifest(baseline: tuple[Path, dict]) -> None:
    run, m = baseline
    assert m["status"] == "complete" and m["finished"]
    assert sorted(_files(run)) == [batch_relpath(s, b)
                                   for s in ("fixed-limit", "no-limit") for b in range(3)]
    assert m["fingerprint"] == SPEC.fingerprint() == m["run_id"]
    assert RunSpec.from_dict(m["spec"]) == SPEC
    assert m["reproducible"] is True and m["inject"] is None and "fault_injected" not in m
    assert m["totals"] == {"hands": 5000, "rows": 5000, "files": 6,
                           "bytes": sum(f["bytes"] for f in m["files"])}
    assert [f["batch"] for f in m["files"]] == [0, 1, 2, 0, 1, 2]  # plan order
    assert [f["hands"] for f in m["files"]] == [1000, 1000, 500] * 2
    for f in m["files"]:
        assert _sha(run / f["path"]) == f["sha256"]
        assert (run / f["path"]).stat().st_size == f["bytes"]
    # counts: per structure = sum of its files; total = sum of the structures
    for label, per in m["counts"]["per_structure"].items():
        files = [f for f in m["files"] if f["structure"] == label]
        assert per["hands"] == sum(f["hands"] for f in files) == 2500
        assert per == {k: sum(f["counts"][k] for f in files) for k in per}
    total = m["counts"]["total"]
    assert total["hands"] == 5000
    assert total == {k: sum(p[k] for p in m["counts"]["per_structure"].values()) for k in total}
    assert m["timings"]["batches_simulated"] == 6 and m["timings"]["hands_per_second"] > 0
    assert isinstance(m["schema_version"], int) and m["engine_version"] and m["git_commit"]
    # provenance: the checkout's commit, the libraries, the command line of this process
    prov = m["provenance"]
    assert prov["code"]["identified_by"] == "git" and len(m["git_commit"]) == 40
    assert prov["code"]["git_commit"] == m["git_commit"]
    assert m["git_dirty"] in (True, False)
    import numba
    import numpy
    assert prov["versions"]["numba"] == numba.__version__
    assert prov["versions"]["numpy"] == numpy.__version__
    assert set(prov["versions"]) >= {"holdem", "python", "pyarrow", "ray"}
    assert prov["command"] and isinstance(prov["command"], list)
    # the files are LZ4 Parquet (deck and digest uncompressed) with the hand schema; hand ids
    # are unique in the run
    table = run_dataset(run).to_table()
    assert table.num_rows == 5000
    assert len(set(table.column("hand_id").to_pylist())) == 5000
    md = pq.read_metadata(run / m["files"][0]["path"])
    codecs = {md.row_group(0).column(i).path_in_schema: md.row_group(0).column(i).compression
              for i in range(md.num_columns)}
    assert codecs.pop("deck") == codecs.pop("digest") == "UNCOMPRESSED"
    assert set(codecs.values()) == {"LZ4"}  # LZ4_RAW in the file (pyarrow names it LZ4)
    assert m["compression"] == "lz4; deck, digest: none"


@pytest.mark.parametrize("workers", [1, 2])
def test_same_bytes_for_any_worker_count(ray_local: None, baseline: tuple[Path, dict],
                                         tmp_path: Path, workers: int) -> None:
    base_run, base_m = baseline
    run = tmp_path / "run"
    m = run_simulate(SPEC, run, workers=workers, progress=False).to_dict()
    assert m["runtime"]["ray"] == "existing"
    assert _files(run) == _files(base_run)  # the writer is deterministic: same bytes
    assert run_dataset(run).to_table().equals(run_dataset(base_run).to_table())
    strip = ("seconds", "peak_rss_mb")
    assert ([{k: v for k, v in f.items() if k not in strip} for f in m["files"]]
            == [{k: v for k, v in f.items() if k not in strip} for f in base_m["files"]])
    assert m["counts"] == base_m["counts"]


def test_resume_after_killed_run(ray_local: None, baseline: tuple[Path, dict],
                                 tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base_run, _ = baseline
    run = tmp_path / "run"
    run_simulate(SPEC, run, workers=2, progress=False)
    # a kill before the manifest recorded the last batches: no manifest, a missing batch, a
    # half-written temporary file
    (run / MANIFEST_NAME).unlink()
    (run / batch_relpath("no-limit", 1)).unlink()
    stale = run / "log/no-limit/.batch-00001.parquet.tmp-0123456789ab"
    stale.write_bytes(b"PAR1 half a file")
    m = run_simulate(SPEC, run, workers=2, progress=False).to_dict()
    assert m["status"] == "complete"
    assert not stale.exists()
    assert _files(run) == _files(base_run)
    assert m["timings"]["batches_reused"] == 5 and m["timings"]["batches_simulated"] == 1
    recovered = [f for f in m["files"] if f["seconds"] is None]
    assert len(recovered) == 5  # recovered from disk: checksum recorded, counts from metadata
    assert m["counts"] == baseline[1]["counts"]
    assert "stale temporary" in capsys.readouterr().err
    # a complete run again: nothing to do (and Ray is not needed)
    m2 = run_simulate(SPEC, run, workers=2, progress=False).to_dict()
    assert m2["timings"]["batches_reused"] == 6 and m2["timings"]["batches_simulated"] == 0
    assert m2["created"] == m["created"]


def test_resume_with_manifest_redoes_only_missing(baseline: tuple[Path, dict],
                                                  tmp_path: Path) -> None:
    run = tmp_path / "run"
    run_simulate(SPEC, run, workers=0, progress=False)
    (run / batch_relpath("fixed-limit", 2)).unlink()
    m = run_simulate(SPEC, run, workers=0, progress=False).to_dict()
    assert m["timings"]["batches_simulated"] == 1
    assert _files(run) == _files(baseline[0])


def test_refuses_folder_of_another_config(baseline: tuple[Path, dict], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    assert main([*CLI, "--workers", "0", "--out", str(run)]) == 0
    before = _files(run)
    capsys.readouterr()
    assert main([*CLI[:-2], "12", "--quiet", "--workers", "0", "--out", str(run)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"holdem: error: run folder {run} was made with a different config: "
                   "field seed differs (11 vs 12)")
    assert _files(run) == before
    assert main([*CLI, "--players", "4", "--workers", "0", "--out", str(run)]) == 2
    err = capsys.readouterr().err
    assert "field players differs ([[2, 2], [3, 1]" in err and "vs 4)" in err


def test_refuses_to_resume_with_an_engine_that_plays_differently(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Same spec, another engine (here: one that takes one more chip of rake in the last hand
    of a batch): the rerun refuses with exit 2, names the batch and hand, and writes nothing."""
    import pyarrow as pa

    import sim.batch
    from sim.digest import with_digests

    run = tmp_path / "run"
    assert main([*CLI, "--workers", "0", "--out", str(run)]) == 0
    (run / batch_relpath("no-limit", 0)).unlink()  # a run to resume
    before = _files(run)
    capsys.readouterr()
    real = sim.batch.simulate_batch

    def other_engine(spec, structure, batch_index, *version):  # type: ignore[no-untyped-def]
        res = real(spec, structure, batch_index, *version)
        t = res.table.drop_columns(["digest"])
        rake = t.column("rake").to_pylist()
        rake[-1] += 1
        i = t.schema.get_field_index("rake")
        t = t.set_column(i, t.schema.field(i), pa.array(rake, pa.int64()))
        return type(res)(with_digests(t), res.counts, res.hands, res.seconds, res.play_seconds)

    monkeypatch.setattr(sim.batch, "simulate_batch", other_engine)
    assert main([*CLI, "--workers", "0", "--out", str(run)]) == 2
    err = capsys.readouterr().err
    # the kept batch with the fewest hands is the one replayed
    assert f"this engine does not play {batch_relpath('no-limit', 2)}" in err
    assert "resuming would mix" in err
    hand = int(err.split("(hand ")[1].split(" ")[0])
    assert hand % 1000 == 499  # the last hand of the smallest kept batch (500 hands)
    assert _files(run) == before
    monkeypatch.setattr(sim.batch, "simulate_batch", real)
    assert main([*CLI, "--workers", "0", "--out", str(run)]) == 0  # the same engine resumes


def test_foreign_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    (run / "log/no-limit").mkdir(parents=True)
    (run / "log/no-limit/notes.txt").write_text("mine")
    assert main([*CLI, "--workers", "0", "--out", str(run)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "log/no-limit/notes.txt" in err[0]
    # a batch of a structure (or index) outside the plan is foreign too
    (run / "log/no-limit/notes.txt").unlink()
    (run / "log/pot-limit").mkdir()
    (run / batch_relpath("pot-limit", 0)).write_bytes(b"x")
    with pytest.raises(RunFolderError, match=batch_relpath("pot-limit", 0)):
        run_simulate(SPEC, run, workers=0, progress=False)


def test_batch_of_another_run_without_manifest_is_refused(baseline: tuple[Path, dict],
                                                         tmp_path: Path) -> None:
    run = tmp_path / "run"
    other = RunSpec(hands=2500, batch_size=1000, structures=("no-limit", "fixed-limit"), seed=5)
    run_simulate(other, run, workers=0, progress=False)
    (run / MANIFEST_NAME).unlink()
    with pytest.raises(RunFolderError, match=r"batch-0000\d.parquet was made with a different"):
        run_simulate(SPEC, run, workers=0, progress=False)


@pytest.mark.parametrize("with_manifest", [True, False])
def test_corrupt_batch_is_named_and_simulated_again(
        baseline: tuple[Path, dict], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        with_manifest: bool) -> None:
    run = tmp_path / "run"
    run_simulate(SPEC, run, workers=0, progress=False)
    if not with_manifest:
        (run / MANIFEST_NAME).unlink()
    victim = run / batch_relpath("fixed-limit", 1)
    good = victim.read_bytes()
    victim.write_bytes(good[: len(good) // 2])  # truncated, as by a disk problem
    capsys.readouterr()
    m = run_simulate(SPEC, run, workers=0, progress=False).to_dict()
    err = capsys.readouterr().err
    assert batch_relpath("fixed-limit", 1) in err and "simulating it again" in err
    assert victim.read_bytes() == good
    assert m["timings"]["batches_simulated"] == 1
    assert _files(run) == _files(baseline[0])


def test_unreadable_manifest_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / MANIFEST_NAME).write_text("{not json")
    with pytest.raises(RunFolderError, match="manifest.json is not readable JSON"):
        run_simulate(SPEC, run, workers=0, progress=False)


def test_failed_batch_leaves_no_partial_file(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import sim.batch

    real = sim.batch.simulate_batch

    def flaky(spec, structure, batch_index, *version):  # type: ignore[no-untyped-def]
        if batch_index == 1:
            raise RuntimeError("worker lost")
        return real(spec, structure, batch_index, *version)

    monkeypatch.setattr(sim.batch, "simulate_batch", flaky)
    run = tmp_path / "run"
    with pytest.raises(RuntimeError, match="worker lost"):
        run_simulate(SPEC, run, workers=0, progress=False)
    m = _manifest(run)
    assert m["status"] == "failed" and "worker lost" in m["error"]
    assert [f["path"] for f in m["files"]] == [batch_relpath("no-limit", 0)]
    assert sorted(p.name for p in run.rglob("*") if p.is_file()) == [
        "batch-00000.parquet", MANIFEST_NAME]  # no temporary file, no partial batch
    monkeypatch.setattr(sim.batch, "simulate_batch", real)
    assert run_simulate(SPEC, run, workers=0, progress=False).status == "complete"


def test_file_uri_output(baseline: tuple[Path, dict], tmp_path: Path) -> None:
    run = tmp_path / "run"
    m = run_simulate(SPEC, f"file://{run}", workers=0, progress=False).to_dict()
    assert m["status"] == "complete"
    assert _files(run) == _files(baseline[0])
    assert run_dataset(f"file://{run}").count_rows() == 5000


def test_explicit_filesystems(baseline: tuple[Path, dict], tmp_path: Path) -> None:
    sub = pafs.SubTreeFileSystem(str(tmp_path), pafs.LocalFileSystem())
    run_simulate(SPEC, "runs/a", workers=0, progress=False, filesystem=sub)
    assert _files(tmp_path / "runs/a") == _files(baseline[0])
    mock = pafs._MockFileSystem()  # in memory: an object store without a network
    m = run_simulate(SPEC, "bucket/run", workers=0, progress=False, filesystem=mock).to_dict()
    with mock.open_input_stream(f"bucket/run/{m['files'][0]['path']}") as f:
        assert hashlib.sha256(f.read()).hexdigest() == m["files"][0]["sha256"]
    assert run_dataset("bucket/run", mock).to_table().equals(run_dataset(baseline[0]).to_table())
    again = run_simulate(SPEC, "bucket/run", workers=0, progress=False, filesystem=mock).to_dict()
    assert again["timings"]["batches_reused"] == 6


def test_fault_and_generator_are_recorded(tmp_path: Path) -> None:
    spec = RunSpec(hands=300, batch_size=300, inject="chip-lost", generator="os-chacha20")
    m = run_simulate(spec, tmp_path / "run", workers=0, progress=False).to_dict()
    keys = list(m)
    assert keys.index("fault_injected") < keys.index("spec")  # loud: near the top
    assert "chip-lost" in m["fault_injected"] and m["inject"] == "chip-lost"
    assert m["reproducible"] is False and "os-chacha20" in m["reproducible_note"]
    table = run_dataset(tmp_path / "run").to_table(columns=["fault"])
    assert set(table.column("fault").to_pylist()) == {"chip-lost"}


@pytest.mark.parametrize("args, message", [
    (["--hands", "0"], "--hands 0: expected at least 1"),
    (["--hands", "10", "--players", "11"], "--players 11: expected 2..10"),
    (["--hands", "10", "--inject", "nope"], "--inject 'nope'"),
    (["--hands", "10", "--batch-size", "0"], "--batch-size 0"),
    (["--hands", "10", "--workers", "-1"], "--workers -1"),
])
def test_cli_rejects_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 args: list[str], message: str) -> None:
    assert main(["simulate", *args, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not (tmp_path / "run").exists()


def test_parquet_metadata_names_the_batch(baseline: tuple[Path, dict]) -> None:
    run, m = baseline
    meta = pq.read_schema(run / batch_relpath("no-limit", 2)).metadata
    assert meta[b"holdem.run_id"] == SPEC.fingerprint().encode()
    assert meta[b"holdem.structure"] == b"no-limit" and meta[b"holdem.batch"] == b"2"
    assert json.loads(meta[b"holdem.counts"]) == m["files"][2]["counts"]
    from sim.schema import HAND_SCHEMA

    assert pq.read_schema(run / m["files"][0]["path"]).equals(HAND_SCHEMA, check_metadata=False)


def test_refuses_to_resume_a_log_without_digests(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A run folder of an older log schema (no digest column) is not resumed into this one."""
    run = tmp_path / "run"
    assert main([*CLI, "--workers", "0", "--out", str(run)]) == 0
    old = run / batch_relpath("no-limit", 2)
    pq.write_table(pq.read_table(old).drop_columns(["digest"]), old)
    m = _manifest(run)
    for f in m["files"]:
        if f["path"].endswith("batch-00002.parquet"):
            f["sha256"] = _sha(old)
    (run / MANIFEST_NAME).write_text(json.dumps(m))
    (run / batch_relpath("no-limit", 0)).unlink()
    capsys.readouterr()
    assert main([*CLI, "--workers", "0", "--out", str(run)]) == 2
    assert "batch-00002.parquet has no digest column" in capsys.readouterr().err
    assert not (run / batch_relpath("no-limit", 0)).exists()


def test_in_flight_window_grows_an_autoscaling_cluster() -> None:
    """Without --workers a cluster gets a queue deep enough for its autoscaler (not 2 x the
    CPUs present at the start: none, on a cluster that starts with no workers); --workers caps
    it; an embedded local Ray keeps 2 per CPU."""
    from cluster.ray_runtime import CLUSTER_WINDOW, RaySession, in_flight_window

    cluster = RaySession("10.0.0.1:6379", 1, started=True)  # 0 CPUs present: cluster_cpus -> 1
    assert in_flight_window(cluster, None) == CLUSTER_WINDOW >= 3_840  # aws.yaml's max CPUs
    assert in_flight_window(RaySession("10.0.0.1:6379", 4000, True), None) == 8000
    assert in_flight_window(cluster, 1600) == 1600
    assert in_flight_window(RaySession("existing", 2, False), None) == CLUSTER_WINDOW
    assert in_flight_window(RaySession("existing", 2, False), 3) == 3
    assert in_flight_window(RaySession("local", 2, True), None) == 4
    assert in_flight_window(RaySession("local", 2, True), 2) == 4


def test_progress_says_what_is_queued_and_the_cpus_present(
        ray_local: None, baseline: tuple[Path, dict], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    run_simulate(SPEC, tmp_path / "run", progress=True)
    err = capsys.readouterr().err
    assert "holdem: 6 batch tasks, up to 6 queued on Ray at once; 2 CPUs present" in err
    run_simulate(SPEC, tmp_path / "run2", workers=1, progress=True)
    assert "up to 1 queued on Ray at once" in capsys.readouterr().err
