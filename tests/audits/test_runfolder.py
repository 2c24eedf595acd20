"""``audits.runfolder``: the one owner of the run folder's names, listing, manifest and writes."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from audits import runfolder as rf
from audits.runfolder import storage


def test_names_round_trip() -> None:
    rel = rf.batch_relpath("no-limit", 12)
    assert rel == "log/no-limit/batch-00012.parquet"
    assert rf.parse_batch_relpath(rel) == ("no-limit", 12)
    assert rf.batch_index(f"/x/y/{rel}") == 12 and rf.batch_index("s3://b/run/" + rel) == 12
    assert rf.deck_relpath(3) == "log/decks/batch-00003.parquet"
    for other in ("structure=no-limit/batch-00000.parquet", "log/batch-00000.parquet",
                  "log/no-limit/.batch-00000.parquet.tmp-abc", "log/no-limit/notes.txt",
                  "manifest.json", "log/a/b/batch-00000.parquet"):
        assert rf.parse_batch_relpath(other) is None, other
    assert rf.batch_index("notes.txt") is None
    assert rf.is_product("audit.json") and not rf.is_product(rel)


class _RecordingFs:
    """What ``storage.put_atomic`` asks of a filesystem, recorded (the temporary name)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def open_output_stream(self, path: str) -> Any:
        self.names.append(path)
        return io.BytesIO()

    def move(self, src: str, dst: str) -> None:
        self.names.append(dst)


def test_temporary_names_are_exactly_what_put_atomic_writes() -> None:
    fs = _RecordingFs()
    storage.put_atomic(fs, "/run/log/no-limit/batch-00001.parquet", b"x")  # type: ignore[arg-type]
    tmp, final = fs.names
    assert final == "/run/log/no-limit/batch-00001.parquet"
    assert rf.is_temporary(tmp) and rf.is_product(tmp.removeprefix("/run/"))
    # names an attacker picks so that a reader's `RUN/log/**/*.parquet` glob takes the file:
    # none is a temporary, none a product (the integrity audit names them as unlisted)
    for forged in ("log/no-limit/.batch-00001.parquet.tmp-abc.parquet",
                   "log/no-limit/.batch-00001.parquet.tmp-0123456789ab.parquet",
                   "log/no-limit/.x.tmp-0123456789ab/batch-00000.parquet",
                   "log/.tmp-0123456789ab.parquet", "log/no-limit/notes.parquet"):
        assert not rf.is_temporary(forged) and not rf.is_product(forged), forged
    for other in (".batch-00000.parquet.tmp-abc", ".batch-00000.parquet.tmp-0123456789AB",
                  ".batch-00000.parquet.tmp-0123456789abc", "batch-00000.parquet.tmp-0123456789ab",
                  "..tmp-0123456789ab"):
        assert not rf.is_temporary(f"log/no-limit/{other}"), other


def test_spec_difference() -> None:
    assert rf.spec_difference({"a": 1, "b": 2}, {"b": 2, "a": 1}) is None
    d = rf.spec_difference({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 5, "c": 4})
    assert (d.field, d.a, d.b) == ("b", 2, 5)  # the first field in name order
    assert rf.spec_difference({"a": 1}, {"a": 2}, ignore={"a"}) is None
    # a field one side lacks is compared with the default when one is given
    assert rf.spec_difference({"a": 1}, {}, defaults={"a": 1}) is None
    d = rf.spec_difference({"a": 1}, {})
    assert (d.field, d.a, d.b) == ("a", 1, "<absent>")


def test_listing_manifest_and_atomic_write(tmp_path: Path) -> None:
    run = tmp_path / "run"
    folder = rf.RunFolder.open(run)
    assert not folder.exists()
    for rel in (rf.batch_relpath("pot-limit", 1), rf.batch_relpath("no-limit", 0)):
        folder.write(rel, b"PAR1")
    folder.write("log/no-limit/.batch-00001.parquet.tmp-0123456789ab", b"half")  # not a batch file
    assert folder.batch_relpaths() == [rf.batch_relpath("no-limit", 0),
                                       rf.batch_relpath("pot-limit", 1)]
    assert rf.list_batch_files(run) == [run / "log/no-limit/batch-00000.parquet",
                                        run / "log/pot-limit/batch-00001.parquet"]
    assert folder.read_manifest() is None
    rf.write_manifest(run, {"format": "holdem-simulate-run", "files": []})
    assert rf.read_manifest(run, {"holdem-simulate-run"})["files"] == []
    with pytest.raises(rf.ManifestError, match="has format 'holdem-simulate-run', expected x"):
        rf.read_manifest(run, {"x"})
    (run / "manifest.json").write_text("{broken")
    with pytest.raises(rf.ManifestError, match="manifest.json is not readable JSON"):
        rf.read_manifest(run)
    assert folder.sha256(rf.batch_relpath("no-limit", 0)) == (rf.sha256_bytes(b"PAR1"), 4)
    assert not [p for p in run.rglob("*") if p.is_file() and ".tmp-" in p.name
                and "half" not in p.read_text(errors="replace")]


def _old_folder(root: Path) -> Path:
    """A run folder of the old layout, with a manifest listing its files."""
    files = []
    for label, b in (("no-limit", 0), ("no-limit", 1), ("pot-limit", 0)):
        p = root / f"structure={label}" / f"batch-{b:05d}.parquet"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(f"{label}{b}".encode())
        files.append({"path": f"structure={label}/batch-{b:05d}.parquet", "bytes": 10,
                      "sha256": rf.sha256_bytes(p.read_bytes())})
    (root / "manifest.json").write_text(json.dumps({
        "format": "holdem-simulate-run", "layout": "structure=<label>/batch-<index:05d>.parquet",
        "files": files}))
    return root


def test_old_layout_is_named_and_migrated(tmp_path: Path) -> None:
    run = _old_folder(tmp_path / "run")
    with pytest.raises(rf.OldLayoutError) as e:
        rf.list_batch_files(run)
    assert str(e.value) == (f"{run} uses the old layout (structure=no-limit/...); convert it "
                            f"with `holdem migrate {run}`")
    said: list[str] = []
    assert rf.migrate(run, say=said.append) == 3
    assert len(said) == 1 and "3 batch files moved" in said[0]
    m = json.loads((run / "manifest.json").read_text())
    assert m["layout"] == rf.LAYOUT
    assert [f["path"] for f in m["files"]] == [rf.batch_relpath("no-limit", 0),
                                              rf.batch_relpath("no-limit", 1),
                                              rf.batch_relpath("pot-limit", 0)]
    for f in m["files"]:  # the bytes did not change: every recorded sha256 still holds
        assert rf.sha256_bytes((run / f["path"]).read_bytes()) == f["sha256"]
    assert sorted(p.name for p in run.iterdir()) == ["log", "manifest.json"]
    with pytest.raises(rf.RunFolderError, match="nothing to convert"):
        rf.migrate(run)


def test_migrate_refuses_unexpected_files_before_moving(tmp_path: Path) -> None:
    run = _old_folder(tmp_path / "run")
    (run / "structure=no-limit" / "notes.txt").write_text("mine")
    before = sorted(str(p) for p in run.rglob("*"))
    with pytest.raises(rf.RunFolderError, match="notes.txt: not a file of a run folder"):
        rf.migrate(run)
    assert sorted(str(p) for p in run.rglob("*")) == before
    (run / "structure=no-limit" / "notes.txt").unlink()
    before = sorted(str(p) for p in run.rglob("*"))
    m = json.loads((run / "manifest.json").read_text())
    m["files"][0]["path"] = "elsewhere/x.parquet"
    (run / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(rf.RunFolderError, match=r"files\[0\]\.path 'elsewhere/x.parquet'"):
        rf.migrate(run)
    assert sorted(str(p) for p in run.rglob("*")) == before
    with pytest.raises(rf.RunFolderError, match="does not exist"):
        rf.migrate(tmp_path / "absent")


def test_shuffle_decks_of_the_old_layout(tmp_path: Path) -> None:
    run = tmp_path / "run"
    (run / "decks").mkdir(parents=True)
    (run / "decks" / "batch-00000.parquet").write_bytes(b"d")
    with pytest.raises(rf.OldLayoutError, match=r"old layout \(decks/\.\.\.\)"):
        rf.RunFolder.open(run).check_layout()
    assert rf.migrate(run) == 1
    assert (run / rf.deck_relpath(0)).read_bytes() == b"d"


def test_an_interrupted_migration_is_recognised_and_finished(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    run = _old_folder(tmp_path / "run")

    def interrupted(self: rf.RunFolder, d: dict[str, Any]) -> dict[str, Any]:
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(rf.RunFolder, "write_manifest", interrupted)
        with pytest.raises(KeyboardInterrupt):
            rf.migrate(run)
    # the files moved, the manifest still old: the old folders are still there (the manifest is
    # rewritten before they go), and every reader of the manifest gives the one-line hint
    assert (run / "structure=no-limit").is_dir() and (run / "log/no-limit").is_dir()
    hint = (f"{run} uses the old layout (structure=no-limit/...); convert it with "
            f"`holdem migrate {run}`")
    with pytest.raises(rf.OldLayoutError) as e:
        rf.read_manifest(run)
    assert str(e.value) == hint
    said: list[str] = []
    assert rf.migrate(run, say=said.append) == 0  # finishes the job
    assert sorted(p.name for p in run.iterdir()) == ["log", "manifest.json"]
    assert [f["path"] for f in rf.read_manifest(run)["files"]] == [
        rf.batch_relpath("no-limit", 0), rf.batch_relpath("no-limit", 1),
        rf.batch_relpath("pot-limit", 0)]


def test_a_manifest_listing_files_outside_the_log_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "run"
    folder = rf.RunFolder.open(run)
    for rel in (rf.batch_relpath("no-limit", 0), "tables/x/batch-00001.parquet"):
        folder.write(rel, b"PAR1")
    files = [{"path": rf.batch_relpath("no-limit", 0)}, {"path": "tables/x/batch-00001.parquet"}]
    rf.write_manifest(run, {"format": "holdem-simulate-run", "files": files})
    with pytest.raises(rf.ManifestError) as e:
        rf.read_manifest(run)
    assert str(e.value) == (f"{run / 'manifest.json'}: files[1].path "
                            "'tables/x/batch-00001.parquet' is not a batch file of the run "
                            f"({rf.LAYOUT})")


def test_migrate_says_what_to_run_again(tmp_path: Path) -> None:
    run = _old_folder(tmp_path / "run")
    (run / "certificate.json").write_text("{}")
    said: list[str] = []
    rf.migrate(run, say=said.append)
    assert said[0].endswith("; certificate.json records the old paths: run `holdem audit` and "
                            "`holdem report` again")
    shuffle = tmp_path / "shuffle"
    (shuffle / "decks").mkdir(parents=True)
    (shuffle / "decks" / "batch-00000.parquet").write_bytes(b"d")
    (shuffle / "manifest.json").write_text(json.dumps({
        "format": "holdem-shuffle-run", "files": [{"path": "decks/batch-00000.parquet"}]}))
    for p in ("audit.json", "certificate.json"):
        (shuffle / p).write_text("{}")
    said.clear()
    rf.migrate(shuffle, say=said.append)
    assert "audit.json and certificate.json record the old paths" in said[0]
    assert "holdem shuffle" in said[0] and "holdem audit" not in said[0]


def test_resume_keeps_products_removes_leftovers_and_refuses_strangers(tmp_path: Path) -> None:
    """The one resume check simulate and shuffle share (``RunFolder.resume``)."""
    from audits.runfolder import RunFolder, RunFolderError, key_relpath

    run = tmp_path / "run"
    folder = RunFolder.open(run)
    read = RunFolder.read_manifest
    spec = {"seed": 1, "hands": 10}
    made = folder.resume(set(), fingerprint="f1", spec=spec, read=read)
    assert run.is_dir() and made.manifest is None and made.found == [] and made.stale == 0
    files = {"log/no-limit/batch-00000.parquet": b"x", "audit.json": b"{}",
             "tables/hands/part-no-limit-00000.parquet": b"t",
             "tables/hands/.part-no-limit-00001.parquet.tmp-0123456789ab": b"t",
             "log/no-limit/.batch-00001.parquet.tmp-0123456789ab": b"half",
             key_relpath(3): b"k"}
    for rel, data in files.items():
        folder.write(rel, data)
    folder.write_manifest({"format": "holdem-simulate-run", "fingerprint": "f1", "spec": spec,
                           "files": []})
    got = folder.resume({"log/no-limit/batch-00000.parquet"}, fingerprint="f1", spec=spec,
                        read=read, scratch=(".keys",))
    assert got.found == ["log/no-limit/batch-00000.parquet"] and got.stale == 1
    assert got.manifest is not None and got.manifest["fingerprint"] == "f1"
    left = set(folder.listing())
    assert "log/no-limit/.batch-00001.parquet.tmp-0123456789ab" not in left  # a killed write
    assert key_relpath(3) not in left  # scratch
    assert {"audit.json", "tables/hands/part-no-limit-00000.parquet",
            "tables/hands/.part-no-limit-00001.parquet.tmp-0123456789ab"} <= left  # products
    with pytest.raises(RunFolderError, match=r"different config: field seed differs \(1 vs 2\)"):
        folder.resume(set(), fingerprint="f2", spec={"seed": 2, "hands": 10}, read=read)
    folder.write("log/no-limit/batch-00007.parquet", b"y")
    with pytest.raises(RunFolderError, match="unexpected file log/no-limit/batch-00007.parquet"):
        folder.resume({"log/no-limit/batch-00000.parquet"}, fingerprint="f1", spec=spec,
                      read=read)
    assert (run / "log/no-limit/batch-00007.parquet").is_file()  # refused before any change
    (run / "plain").write_bytes(b"")
    with pytest.raises(RunFolderError, match="is a file, not a run folder"):
        RunFolder.open(run / "plain").resume(set(), fingerprint="f1", spec=spec, read=read)


def test_batch_paths_are_plain_ascii_names() -> None:
    """Only the names holdem writes: a lower-case label (never `key=value`, which hive
    partitioning turns into a column) and five or more ASCII digits."""
    assert rf.parse_batch_relpath("log/no-limit/batch-00012.parquet") == ("no-limit", 12)
    assert rf.parse_batch_relpath("log/decks/batch-123456.parquet") == ("decks", 123456)
    for bad in ("log/hand_id=7/batch-00000.parquet", "log/No-Limit/batch-00000.parquet",
                "log/no-limit/batch-\u0660\u0660\u0660\u0660\u0661.parquet",
                "log/no-limit/batch-1.parquet", "log/-x/batch-00000.parquet",
                "log/.hidden/batch-00000.parquet", "log/no-limit/sub/batch-00000.parquet"):
        assert rf.parse_batch_relpath(bad) is None, bad


def test_the_error_bases(tmp_path: Path) -> None:
    """Every run-folder input error is an ``InputError`` (exit 2), a file the manifest does not
    list a ``CheckFailed`` (exit 1): the bases a command maps once."""
    for cls in (rf.RunFolderError, rf.ManifestError, rf.OldLayoutError, rf.StorageError):
        assert issubclass(cls, rf.InputError) and issubclass(cls, ValueError), cls
        assert not issubclass(cls, rf.CheckFailed), cls
    assert issubclass(rf.UnlistedFileError, rf.CheckFailed)
    assert not issubclass(rf.UnlistedFileError, rf.InputError)
    with pytest.raises(rf.InputError):
        rf.RunFolder.open("nosuchscheme://bucket/run")
    with pytest.raises(rf.InputError, match="no such run folder"):
        rf.RunFolder.open(tmp_path / "none").log_files()


def test_one_lister_reads_the_manifest_and_names_what_it_does_not_list(tmp_path: Path) -> None:
    """``RunFolder.log_files``: the manifest's files in its order (a listed file missing is an
    error unless ``missing_ok``), every other file that is not a product ``unlisted``."""
    run = tmp_path / "run"
    a, b, c = (rf.batch_relpath("no-limit", i) for i in range(3))
    for rel in (a, b, c, "log/notes.txt", "audit.json", "tables/x.csv"):
        (run / rel).parent.mkdir(parents=True, exist_ok=True)
        (run / rel).write_bytes(b"x")
    folder = rf.RunFolder.open(run)
    assert folder.log_files().files == [a, b, c]  # no manifest: the layout
    assert folder.log_files().unlisted == []
    rf.write_manifest(run, {"files": [{"path": b}, {"path": a}]})
    logs = folder.log_files()
    assert logs.files == [b, a] and logs.missing == []
    assert logs.unlisted == [c, "log/notes.txt"]
    assert logs.locations() == [run / b, run / a]
    with pytest.raises(rf.UnlistedFileError, match=f"{rf.UNLISTED}: {c}: in the run folder "
                       "but not listed in manifest.json"):
        logs.require_listed()
    (run / a).unlink()
    with pytest.raises(rf.RunFolderError, match="listed in manifest.json but missing"):
        folder.log_files()
    partial = folder.log_files(missing_ok=True)
    assert partial.files == [b] and partial.missing == [a]
    # a caller that has read the manifest passes it (read once per command)
    assert folder.log_files(manifest=None, missing_ok=True).files == [b, c]
