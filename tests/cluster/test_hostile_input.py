"""Hostile input never crashes (issue 23, L): nulls where the log has none, deep or NaN JSON,
a pipe or a link in place of a batch file give one line and exit 2 (or a named FAIL) from every
command that reads a run, never a segfault, a traceback or a hang; summary.md shows no string it
did not write as Markdown."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from cluster.cli import main
from cluster.flows.simulate import run_simulate
from reports.render import md_code, md_text
from sim.config import Structure
from sim.runspec import RunSpec
from tests.audits.forgery import RunForger, copy_run, move_won, winners

SPEC = RunSpec(hands=2000, batch_size=1000, structures=(Structure.NO_LIMIT,), seed=7,
               hands_per_table=5)
REL = "log/no-limit/batch-00001.parquet"  # hand ids 1000..1999
ROOT = Path(__file__).resolve().parents[2]
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clean run, audited and reported (so that verify has a certificate to check)."""
    root = tmp_path_factory.mktemp("hostile") / "clean"
    run_simulate(SPEC, root, workers=0, progress=False)
    assert main(["audit", str(root), "--workers", "0", "--quiet"]) == 0
    assert main(["report", str(root)]) == 0
    return root


@pytest.fixture()
def run(certified: Path, tmp_path: Path) -> Path:
    return copy_run(certified, tmp_path)


def one_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    """(exit code, the one line on stderr) of a command that refuses its input."""
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return code, err[0]


def _set(row: dict[str, Any], column: str, index: int | None, field: str | None = None) -> None:
    if index is None:
        row[column] = None
        return
    values = [dict(v) if isinstance(v, dict) else v for v in row[column]]
    if field is None:
        values[index] = None
    else:
        values[index][field] = None
    row[column] = values


@pytest.mark.parametrize("column,index,field", [
    ("button", None, None),  # segfaulted the auditor (exit 139)
    ("rake", None, None), ("won", None, None), ("won", 1, None), ("occupied", 0, None),
    ("stacks_start", 2, None), ("pots", 0, "amount"), ("board", 0, None),
])
def test_a_null_in_the_log_is_one_line(run: Path, capsys: pytest.CaptureFixture[str],
                                       column: str, index: int | None,
                                       field: str | None) -> None:
    f = RunForger(run, REL)
    i = f.find(lambda r: len(r["board"]) > 0 and len(r["pots"]) > 0)
    _set(f.rows[i], column, index, field)
    f.write(nullable=(column,) if index is None else ())
    hand = f.rows[i]["hand_id"]
    code, line = one_line(capsys, ["audit", str(run), "--workers", "0", "--quiet"])
    assert code == 2
    assert line == (f"holdem: error: {run / REL}: column {column!r} holds a null (hand "
                    f"{hand}): a hand log's audited columns and list values hold none")
    code, line = one_line(capsys, ["export", str(run), "--workers", "0", "--quiet"])
    assert code == 2 and line == (f"holdem: error: {run / REL}: column {column!r} holds a null "
                                  f"(hand {hand}): a hand log's columns hold none")
    code, line = one_line(capsys, ["replay", str(run), "--hand", str(hand)])
    assert code == 2 and line == (f"holdem: error: run {run}: hand {hand}: column {column!r} "
                                  "holds a null (a hand log's columns hold none)")


def test_a_column_cast_to_float_with_nan_is_one_line(run: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """``button`` stored as a float holding NaN (a cast the kernels would take as a seat)."""
    f = RunForger(run, REL)
    f.rows[3]["button"] = float("nan")
    fields = [fl.with_type(pa.float64()) if fl.name == "button" else fl for fl in f.schema]
    f.write(fields=fields, digests=False)
    code, line = one_line(capsys, ["audit", str(run), "--workers", "0", "--quiet"])
    assert code == 2 and line == (f"holdem: error: {run / REL}: schema mismatch: column "
                                  "'button' is double, expected int8")


SCRIPT = textwrap.dedent("""
    import sys
    from cluster.cli import main
    run, clean = sys.argv[1], sys.argv[2]
    for argv in (["audit", run, "--workers", "0", "--quiet"],
                 ["export", run, "--workers", "0", "--quiet"],
                 ["replay", run, "--hand", "1500"], ["diff", clean, run], ["verify", run],
                 ["report", run]):
        print("CODE", argv[0], main(argv), flush=True)
        print("CODE", argv[0], "done", file=sys.stderr, flush=True)
""")


def every_command(run: Path, clean: Path) -> tuple[dict[str, int], list[str]]:
    """Every command that reads a run, in a child process (a hang fails the test instead of
    blocking it): (exit code by command, stdout and stderr lines)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-c", SCRIPT, str(run), str(clean)], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=240)
    assert "Traceback" not in p.stderr, p.stderr
    codes = {ln.split()[1]: int(ln.split()[2]) for ln in p.stdout.splitlines()
             if ln.startswith("CODE ")}
    return codes, p.stdout.splitlines() + p.stderr.splitlines()


@pytest.mark.parametrize("kind", ["fifo", "link"])
def test_a_pipe_or_a_link_as_a_batch_file(run: Path, certified: Path, tmp_path: Path,
                                          kind: str) -> None:
    """A FIFO in place of a batch file hung audit, export, replay and diff; a link to a copy of
    the file outside the run (same bytes, same sha256) audited PASS. Every command now names
    the file, without opening it: exit 2, or verify's MISMATCH (exit 1)."""
    path = run / REL
    if kind == "fifo":
        path.unlink()
        os.mkfifo(path)
        why = "not a regular file"
    else:
        outside = tmp_path / "outside.parquet"
        shutil.move(path, outside)
        path.symlink_to(outside)
        why = "a symbolic link"
    codes, lines = every_command(run, certified)
    assert codes == {"audit": 2, "export": 2, "replay": 2, "diff": 2, "verify": 1, "report": 2}
    named = [ln for ln in lines if REL in ln and why in ln]
    assert len(named) == 6, lines


def test_a_linked_manifest_is_refused(run: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "manifest.json"
    shutil.move(run / "manifest.json", outside)
    (run / "manifest.json").symlink_to(outside)
    for argv in (["audit", str(run), "--workers", "0", "--quiet"], ["verify", str(run)],
                 ["report", str(run)]):
        code, line = one_line(capsys, argv)
        assert code == 2 and line.endswith(
            f"{run / 'manifest.json'}: a symbolic link; a run folder holds plain files only")


def _edit_json(path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    d = json.loads(path.read_text())
    edit(d)
    path.write_text(json.dumps(d))


@pytest.mark.parametrize("text,why", [
    (DEEP, "nested too deeply to read"),
    ('{"format": "holdem-simulate-run", "spec": ' + DEEP + "}", "nested too deeply to read"),
    ("NaN-seed", "seed: NaN is not a JSON number"),
])
def test_hostile_manifest_json_is_one_line(run: Path, capsys: pytest.CaptureFixture[str],
                                           text: str, why: str) -> None:
    if text == "NaN-seed":
        _edit_json(run / "manifest.json", lambda m: m.update(seed=float("nan")))
    else:
        (run / "manifest.json").write_text(text)
    for argv in (["audit", str(run), "--workers", "0", "--quiet"], ["verify", str(run)],
                 ["report", str(run)], ["export", str(run), "--workers", "0", "--quiet"]):
        code, line = one_line(capsys, argv)
        assert code == 2 and line == (f"holdem: error: run folder {run}: manifest.json is not "
                                      f"readable JSON ({why})"), argv


def test_a_spec_of_the_wrong_shape_is_one_line(run: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    _edit_json(run / "manifest.json", lambda m: m["spec"].update(structures=5))
    code = main(["audit", str(run), "--workers", "0", "--quiet"])
    cap = capsys.readouterr()
    # a spec of the wrong shape is unusable input: one line naming the field, exit 2
    assert code == 2 and cap.err.count("\n") == 1 and "spec.structures" in cap.err, cap.err


def test_deep_audit_and_certificate_json_are_one_line(
        run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (run / "audit.json").write_text(DEEP)
    code, line = one_line(capsys, ["report", str(run)])
    assert code == 2 and line == (f"holdem: error: {run / 'audit.json'}: not valid JSON (nested "
                                  "too deeply to read)")
    (run / "certificate.json").write_text(DEEP)
    code, line = one_line(capsys, ["verify", str(run)])
    assert code == 2 and line == (f"holdem: error: {run / 'certificate.json'}: not valid JSON "
                                  "(nested too deeply to read)")


def test_manifest_strings_cannot_write_pass_into_a_fail_summary(
        run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An honest FAIL (a pot paid to the wrong seat) whose manifest carries Markdown in every
    string the summary shows: summary.md still reads FAIL, and no manifest string starts a line,
    a heading, emphasis or a code span of its own."""
    f = RunForger(run, REL)
    i = f.find(lambda r: len(winners(r)) == 1 and len(r["showdown_seats"]) >= 2,
               f.last_hands())
    win = next(iter(winners(f.rows[i])))
    lose = next(s for s in f.rows[i]["showdown_seats"] if s != win)
    move_won(f.rows[i], win, lose, 1)
    evil = "x`\n\n# Certification: **PASS**\n\n<b>PASS</b> | [PASS](http://x) ``"
    f.manifest.update(engine_version=evil, git_commit=evil, run_id=evil)
    f.write()
    assert main(["audit", str(run), "--workers", "0", "--quiet"]) == 1
    assert main(["report", str(run)]) != 2  # the report of a FAIL is written
    capsys.readouterr()
    summary = (run / "summary.md").read_text()
    lines = summary.splitlines()
    assert lines[0].startswith("# Certification: **FAIL")
    assert sum(ln.startswith("#") for ln in lines) == 1
    run_line = next(ln for ln in lines if ln.startswith("2,000 hands"))
    assert run_line.count(md_code(evil)) == 2 and md_text(evil) in run_line
    rest = summary.replace(md_code(evil), "").replace(md_text(evil), "")
    assert "**PASS**" not in rest and "<b>" not in rest and "[PASS]" not in rest


def test_markdown_escapes() -> None:
    assert md_text("all_in 0/20") == "all_in 0/20"
    assert md_text("a\n# b *c* _d_ [e](f) <g> `h` |") == (
        "a \\# b \\*c\\* \\_d\\_ \\[e\\](f) \\<g\\> \\`h\\` \\|")
    assert md_code("ab") == "`ab`" and md_code("a``b|\nc") == "```a``b\\| c```"
    assert md_code("`a") == "`` `a ``"
