"""``holdem export``: the datasets of a run folder, their metadata, docs/export.md's snippets
(pandas, polars and DuckDB agree), its generated tables, Ray, bad input."""

from __future__ import annotations

import hashlib
import json
import math
import re
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from cluster.cli import main
from cluster.flows import export as export_mod
from cluster.flows.export import EXPORT_FILE, EXPORT_TABLES, run_export
from cluster.flows.export_tournaments import SCHEMA as TOURNAMENTS
from cluster.flows.simulate import run_simulate
from sim.config import Structure
from sim.logv4 import as_v3
from sim.logview.logtables import TABLE_SCHEMAS, describe_codes, describe_tables
from sim.runspec import DEFAULT_POPULATION, RunSpec

EXPORT_DOC = Path(__file__).resolve().parents[2] / "docs" / "export.md"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("export") / "run"
    spec = RunSpec(hands=6000, batch_size=2000, structures=tuple(Structure), seed=13,
                   **DEFAULT_POPULATION)
    run_simulate(spec, path, workers=0, progress=False)
    assert main(["export", str(path), "--workers", "0", "--quiet"]) == 0
    return path


def test_export_writes_the_datasets_with_documented_columns(run: Path) -> None:
    log = as_v3(ds.dataset(sorted(run.glob("log/*/*.parquet")), format="parquet").to_table(
        columns=["hand_id", "contributed"]))
    schemas = {**TABLE_SCHEMAS, "tournaments": TOURNAMENTS}
    for name in EXPORT_TABLES:
        parts = sorted((run / "tables" / name).glob("part-*.parquet"))
        assert len(parts) == 9, name  # 3 structures x 3 batches
        schema = pq.read_schema(parts[0])
        assert schema.remove_metadata().equals(schemas[name].remove_metadata())
        for f in schema:
            assert f.metadata[b"unit"] and f.metadata[b"doc"], (name, f.name)
            assert schema.metadata[f"holdem.column.{f.name}".encode()]
    hands = ds.dataset(run / "tables" / "hands").to_table()
    assert sorted(hands.column("hand_id").to_pylist()) == sorted(
        log.column("hand_id").to_pylist())
    actions = ds.dataset(run / "tables" / "actions").to_table(columns=["added"])
    total = sum(sum(c) for c in log.column("contributed").to_pylist())
    assert pa.compute.sum(hands.column("pot")).as_py() == total
    assert pa.compute.sum(actions.column("added")).as_py() == total
    assert isinstance(hands.schema.field("structure").type, pa.DictionaryType)


def test_the_run_still_audits_and_a_new_export_replaces_the_old(run: Path,
                                                                tmp_path: Path) -> None:
    assert main(["audit", str(run), "--only", "integrity", "--workers", "0", "--quiet"]) == 0
    stale = run / "tables" / "pots" / "part-no-limit-99999.parquet"
    shutil.copy(next((run / "tables" / "pots").glob("part-*.parquet")), stale)
    before = {p: p.read_bytes() for p in (run / "tables").rglob("*.parquet") if p != stale}
    res = run_export(run, workers=0)
    assert res.removed == ["pots/part-no-limit-99999.parquet"] and not stale.exists()
    assert {p: p.read_bytes() for p in (run / "tables").rglob("*.parquet")} == before
    assert not [p for p in (run / "tables").rglob("*") if p.name.startswith(".")]


def test_export_on_ray_writes_the_same_bytes(run: Path, tmp_path: Path,
                                             ray_local: None) -> None:
    res = run_export(run, tmp_path / "t", workers=2)
    assert res.files == 9 and res.hands == 18_000
    for p in (run / "tables").rglob("*.parquet"):
        assert (tmp_path / "t" / p.relative_to(run / "tables")).read_bytes() == p.read_bytes()
    assert (tmp_path / "t" / EXPORT_FILE).read_bytes() == (
        run / "tables" / EXPORT_FILE).read_bytes()


# ---------------------------------------------------------------- docs/export.md


def _section() -> str:
    text = EXPORT_DOC.read_text()
    return text.split("## Analysing a run: `holdem export`", 1)[1].split("\n## ", 1)[0]


def _normalise(frame: Any) -> dict[str, tuple[float, ...]]:
    """A result as {key: values}, whatever tool made it (pandas or polars frame)."""
    if hasattr(frame, "to_pandas"):
        frame = frame.to_pandas()
    out = {}
    for row in frame.itertuples(index=False):
        out[str(row[0])] = tuple(float(v) for v in row[1:])
    return out


def test_export_doc_snippets_run_and_the_three_tools_agree(run: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", _section(), re.S)
    assert len(blocks) == 3
    results = []
    for code in blocks:
        assert 'TABLES = "runs/main/tables"' in code
        ns: dict[str, Any] = {}
        code = code.replace("runs/main/tables", str(run / "tables"))
        exec(compile(code, "docs/export.md", "exec"), ns)
        results.append([_normalise(ns[q]) for q in ("q1", "q2", "q3")])
    first = results[0]
    for other in results[1:]:
        for a, b in zip(first, other, strict=True):
            assert a.keys() == b.keys()
            for key in a:
                assert all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9)
                           for x, y in zip(a[key], b[key], strict=True)), key
    q1, q2, q3 = first
    assert set(q1) <= {"random", "calling-station", "tight-aggressive", "maniac", "nit",
                       "regular", "loose-aggressive", "recreational"} and len(q1) >= 5
    assert set(q2) == {s.label for s in Structure} and all(0 < v[0] < 1 for v in q2.values())
    assert {"fold", "call"} <= set(q3)
    # side pots, from the raw log with no export
    log = as_v3(ds.dataset(sorted(run.glob("log/*/*.parquet")), format="parquet").to_table(
        columns=["structure", "pots"])).to_pylist()
    for label, (share,) in q2.items():
        rows = [r for r in log if r["structure"] == label]
        assert share == pytest.approx(sum(len(r["pots"]) >= 2 for r in rows) / len(rows))


def test_export_doc_tables_are_generated_from_the_code() -> None:
    text = EXPORT_DOC.read_text()
    assert describe_tables() in text
    assert describe_codes() in text


# ---------------------------------------------------------------- bad input


def _error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("holdem: error: ") and "\n" not in err and "Traceback" not in err
    return err


def _record(run: Path, f: Path) -> None:
    """The manifest's record of ``f`` (sha256, bytes) made to match its bytes."""
    m = json.loads((run / "manifest.json").read_text())
    rel = f.relative_to(run).as_posix()
    for rec in m["files"]:
        if rec["path"] == rel:
            rec.update(sha256=hashlib.sha256(f.read_bytes()).hexdigest(), bytes=f.stat().st_size)
    (run / "manifest.json").write_text(json.dumps(m, indent=2) + "\n")


def test_bad_input_is_one_line_exit_2(run: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert "no such run folder" in _error(capsys, ["export", str(tmp_path / "nope"),
                                                   "--workers", "0"])
    broken = tmp_path / "broken"
    shutil.copytree(run, broken, ignore=shutil.ignore_patterns("tables"))
    victim = sorted(broken.glob("log/*/*.parquet"))[1]
    victim.write_bytes(victim.read_bytes()[:5000])
    err = _error(capsys, ["export", str(broken), "--workers", "0", "--quiet"])
    assert victim.name in err
    old = tmp_path / "old"
    shutil.copytree(run, old, ignore=shutil.ignore_patterns("tables"))
    first = sorted(old.glob("log/*/*.parquet"))[0]
    pq.write_table(pq.read_table(first).drop_columns(["player_ids"]), first)
    _record(old, first)  # as an older holdem left it: the manifest records these bytes
    err = _error(capsys, ["export", str(old), "--workers", "0", "--quiet"])
    assert first.name in err and "player_ids" in err
    assert not [p for p in (old / "tables").rglob("*") if p.is_file()
                and "part-" in p.name and p.name.startswith(".")]
    assert "--workers -1" in _error(capsys, ["export", str(run), "--workers", "-1"])


# ---------------------------------------------------------------- trust: bytes and export.json


def _parts_on_disk(tables: Path) -> dict[str, bytes]:
    return {p.relative_to(tables).as_posix(): p.read_bytes() for p in tables.rglob("*.parquet")}


def test_export_json_lists_exactly_the_parts_on_disk(run: Path) -> None:
    rec = json.loads((run / "tables" / EXPORT_FILE).read_text())
    on_disk = _parts_on_disk(run / "tables")
    assert rec["format"] == "holdem-export"
    assert [p["path"] for p in rec["parts"]] == sorted(on_disk)
    for p in rec["parts"]:
        data = on_disk[p["path"]]
        assert p["sha256"] == hashlib.sha256(data).hexdigest() and p["bytes"] == len(data)
        assert p["rows"] == pq.read_metadata(run / "tables" / p["path"]).num_rows
        assert p["table"] == p["path"].split("/")[0]
        assert (run / p["source"]).is_file()
    assert rec["manifest"] == {"path": "manifest.json", "sha256": hashlib.sha256(
        (run / "manifest.json").read_bytes()).hexdigest()}
    assert rec["totals"]["hands"] == 18_000 and rec["totals"]["files"] == 9
    assert rec["totals"]["parts"] == len(on_disk) == 45
    assert rec["totals"]["rows"] == {t: sum(p["rows"] for p in rec["parts"] if p["table"] == t)
                                     for t in EXPORT_TABLES}
    section = " ".join(_section().split())
    assert "export.json" in section and "partial export" in section
    assert "does not cover" in section and "re-export" in section


def test_an_interrupted_export_leaves_no_export_json(run: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    assert (copy / "tables" / EXPORT_FILE).is_file()  # a complete export before
    encode = export_mod.encode_table
    calls = []

    def interrupted(table: pa.Table, *args: Any) -> Any:
        calls.append(1)
        if len(calls) > 9:  # inside the part loop, in the third batch file
            raise KeyboardInterrupt
        return encode(table, *args)

    monkeypatch.setattr(export_mod, "encode_table", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_export(copy, workers=0)
    assert not (copy / "tables" / EXPORT_FILE).exists()
    monkeypatch.setattr(export_mod, "encode_table", encode)
    run_export(copy, workers=0)
    rec = json.loads((copy / "tables" / EXPORT_FILE).read_text())
    assert [p["path"] for p in rec["parts"]] == sorted(_parts_on_disk(copy / "tables"))


def test_a_batch_file_not_as_the_manifest_records_it_is_refused(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A column changed the way a forger would (a valid Parquet file, every other column kept)
    but the manifest left as it was: the export refuses it, exit 2, naming the file."""
    copy = tmp_path / "run"
    shutil.copytree(run, copy, ignore=shutil.ignore_patterns("tables"))
    victim = sorted(copy.glob("log/*/*.parquet"))[4]
    t = pq.read_table(victim)
    i = t.schema.get_field_index("rake")
    t = t.set_column(i, t.schema.field(i), pa.compute.add(t["rake"], 1).cast(t["rake"].type))
    pq.write_table(t, victim, compression="zstd")
    err = _error(capsys, ["export", str(copy), "--workers", "0", "--quiet"])
    assert err.startswith(f"holdem: error: {victim}: ") and "manifest.json records" in err
    assert "the file changed after the run wrote it" in err
    assert not (copy / "tables" / EXPORT_FILE).exists()
    # one bit flipped, the size kept: the sha256, checked before the bytes are parsed
    data = bytearray((run / victim.relative_to(copy)).read_bytes())
    data[len(data) // 3] ^= 4
    victim.write_bytes(bytes(data))
    err = _error(capsys, ["export", str(copy), "--workers", "0", "--quiet"])
    assert err.startswith(f"holdem: error: {victim}: sha256 ")
    assert "differs from manifest.json's" in err


def test_unwritable_or_misplaced_out_is_one_line(run: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    afile = tmp_path / "afile"
    afile.write_text("")
    assert str(afile) in _error(capsys, ["export", str(run), "--workers", "0", "--quiet",
                                         "--out", str(afile)])
    assert str(afile / "sub") in _error(capsys, ["export", str(run), "--workers", "0",
                                                 "--quiet", "--out", str(afile / "sub")])
    before = sorted(p.relative_to(run).as_posix() for p in run.rglob("*"))
    for inside in (run, run / "log" / "tables", run / "log", run / "tables" / "x"):
        err = _error(capsys, ["export", str(run), "--workers", "0", "--quiet",
                              "--out", str(inside)])
        assert f"--out {inside}: inside the run folder" in err
    assert sorted(p.relative_to(run).as_posix() for p in run.rglob("*")) == before

    def read_only(fs: Any, path: str, data: bytes) -> None:  # what a read-only folder says
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(export_mod.storage, "put_atomic", read_only)
    out = tmp_path / "ro"
    err = _error(capsys, ["export", str(run), "--workers", "0", "--quiet", "--out", str(out)])
    assert f"{out}: cannot write the tables there (PermissionError" in err


def test_a_deck_log_is_not_exported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "shuffle"
    (run / "log" / "decks").mkdir(parents=True)
    pq.write_table(pa.table({"hand_id": pa.array([0, 1], pa.int64()),
                             "deck": pa.array([bytes(range(52))] * 2, pa.binary(52))}),
                   run / "log" / "decks" / "batch-00000.parquet")
    err = _error(capsys, ["export", str(run), "--workers", "0", "--quiet"])
    assert "a deck log (a `holdem shuffle` run), not a hand log" in err


def test_an_exported_run_resumes(run: Path) -> None:
    """`holdem simulate` (and certify, through it) into a run folder holding tables/."""
    spec = RunSpec(hands=6000, batch_size=2000, structures=tuple(Structure), seed=13,
                   **DEFAULT_POPULATION)
    m = run_simulate(spec, run, workers=0, progress=False)
    assert m.status == "complete" and m.batches_reused == 9
    assert (run / "tables" / EXPORT_FILE).is_file()
