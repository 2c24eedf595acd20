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

from cluster.flows.import_histories import rebuild
from sim.digest import with_digests
from sim.histories.files import import_file
from sim.histories.read.phh import iter_phh_paths

ROOT = Path(__file__).resolve().parents[3]
REALHANDS = ROOT.parent / "shared" / "realhands"
# one six-handed hand of the real hands' shape, formatted into the generated files whose import
# tests/golden/import_output.json pins (the test's own copy: the benchmark's corpus may change)
GENERATED_HAND = (
    "[{k}]\nvariant = 'NT'\nante_trimming_status = false\nantes = [0, 0, 0, 0, 0, 0]\n"
    "blinds_or_straddles = [0.25, 0.50, 0, 0, 0, 0]\nmin_bet = 0.50\n"
    "starting_stacks = [{a}.35, 48.10, 50, 61.75, {b}, 22.40]\n"
    "actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'd dh p4 ????', "
    "'d dh p5 ????', 'd dh p6 ????', 'p3 f', 'p4 cbr 1.50', 'p5 f', 'p6 f', 'p1 cc', "
    "'p2 f', 'd db 7h8s2c', 'p1 cc', 'p4 cbr 2.25', 'p1 cc', 'd db Qd', 'p1 cc', 'p4 cc', "
    "'d db 3s', 'p1 cbr 4', 'p4 f']\n"
    "venue = 'PokerStars'\ntime = 00:{m:02d}:30\nday = 1\nmonth = 7\nyear = 2009\n"
    "hand = {h}\nseats = [1, 2, 3, 4, 5, 6]\nseat_count = 6\ntable = '''AMY'S AVE'''\n"
    "players = ['a', 'b', 'c', 'd', 'e', 'f']\nwinnings = [11.50, 0, 0, 0, 0, 0]\n"
    "currency = 'USD'\ncurrency_symbol = '$'\n\n")
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
        (gen / f"g{f}.phhs").write_text("".join(GENERATED_HAND.format(
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
