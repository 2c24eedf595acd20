"""The import's output is pinned: every column of every row, the counts, skip reasons and
messages of ``sim.histories.files.import_file`` (and the tables rebuilt with their digests) on the
real hands of ``../shared/realhands`` (skipped when absent), the site-text fixtures and
generated hands equal what the reference (pre-speed-up) import wrote, stored as hashes in
``tests/golden/import_output.json``. A speed-up of the reader, the replay or the rows that
changes one value fails here, naming the file and column.

Regenerate (only for an intended change of the output): ``HOLDEM_REGEN_IMPORT_GOLDEN=1``.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from cluster.bench.import_phh import _SYNTH_HAND, REALHANDS
from cluster.flows.import_histories import rebuild
from sim.digest import with_digests
from sim.histories.files import import_file
from sim.histories.read.phh import iter_phh_paths

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "tests" / "golden" / "import_output.json"
REGEN = bool(os.environ.get("HOLDEM_REGEN_IMPORT_GOLDEN"))


def _h(value: Any) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:24]


def snapshot(paths: list[str]) -> dict[str, Any]:
    """Per file: counts, skips, examples and a hash of every column; the rebuilt tables' hash
    of every column (with the digests)."""
    files: dict[str, Any] = {}
    parts = []
    for p in paths:
        res = import_file(p)
        cols = ({} if res.table is None else
                {name: _h(res.table.column(name).to_pylist()) for name in res.table.column_names})
        files[p] = {"sha256": res.sha256, "format": res.format, "submitted": res.submitted,
                    "imported": res.imported, "skipped": res.skipped,
                    "examples": _h(res.examples), "scale": res.scale,
                    "file_scale": res.file_scale, "currencies": res.currencies,
                    "odd_chip": _h(res.odd_chip), "seat_count_known": _h(res.seat_count_known),
                    "columns": cols}
        if res.table is not None:
            parts.append(res.table)
    out: dict[str, Any] = {"files": files}
    if parts:
        table, info = rebuild(pa.concat_tables(parts))
        table = with_digests(table)
        out["rebuilt"] = {name: _h(table.column(name).to_pylist())
                          for name in table.column_names}
        out["rebuild_info"] = _h(info)
    return out


def _check(group: str, got: dict[str, Any]) -> None:
    stored = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
    if REGEN:
        stored[group] = got
        GOLDEN.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
        return
    want = stored[group]
    assert set(got["files"]) == set(want["files"])
    for path, w in want["files"].items():
        g = got["files"][path]
        for key, value in w.items():
            if key == "columns":
                for col, hv in value.items():
                    assert g["columns"].get(col) == hv, f"{path}: column {col} differs"
                assert set(g["columns"]) == set(value), path
            else:
                assert g[key] == value, f"{path}: {key} differs"
    for col, hv in want.get("rebuilt", {}).items():
        assert got["rebuilt"].get(col) == hv, f"rebuilt tables: column {col} differs"
    assert got.get("rebuild_info") == want.get("rebuild_info")


@pytest.mark.skipif(not REALHANDS.is_dir(), reason="../shared/realhands is absent")
def test_realhands_import_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REALHANDS.parent)
    paths = [str(p) for p in iter_phh_paths([REALHANDS.relative_to(REALHANDS.parent)])]
    _check("realhands", snapshot(sorted(paths)))


def test_fixture_and_generated_import_unchanged(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    gen = tmp_path / "gen"
    gen.mkdir()
    for f in range(2):
        (gen / f"g{f}.phhs").write_text("".join(_SYNTH_HAND.format(
            k=k + 1, a=40 + k % 50, b=100 + k % 7, m=k % 60, h=10_000 * f + k)
            for k in range(40)))
    monkeypatch.chdir(tmp_path)
    got = snapshot(["gen/g0.phhs", "gen/g1.phhs"])
    monkeypatch.chdir(ROOT)
    site = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "fixtures" / "sitetext"
                                                     ).iterdir())
    got_site = snapshot(site)
    _check("generated", got)
    _check("sitetext", got_site)
