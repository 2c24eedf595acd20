"""``holdem export``'s tables beyond the hands' four: the ``tournaments`` of a re-buy sit & go
run (issue 37) against the ``stakes`` audit's places and prizes, and an imported run's operator
fields (issue 34, point 9) on real site exports with a wrong payout planted and the names hashed;
docs/export.md's pandas and DuckDB queries run on both and agree."""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import shutil
from pathlib import Path
from typing import Any

import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from cluster.cli import main
from cluster.flows.export_operator import describe as describe_operator
from cluster.flows.export_tournaments import SCHEMA
from cluster.flows.export_tournaments import describe as describe_tournaments
from tests.audits.test_outcome_forged import PS23_MUCKER
from tests.cluster.games import game_spec, log_rows
from tests.cluster.test_tournament_game import GAME

DOC = Path(__file__).resolve().parents[2] / "docs" / "export.md"
SITETEXT = Path(__file__).resolve().parents[1] / "fixtures" / "sitetext"


def _section(title: str) -> list[str]:
    text = DOC.read_text().split(f"\n## {title}", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", text, re.S)


def _run_blocks(title: str, placeholder: str, tables: Path, names: tuple[str, ...]
                ) -> list[dict[str, dict[tuple[Any, ...], tuple[float, ...]]]]:
    """Each python block of a docs section run on ``tables``: its results ``names`` as
    {key columns: values} (the key: every column but the numbers the query counts)."""
    out = []
    blocks = _section(title)
    assert len(blocks) == 2  # pandas and DuckDB
    for code in blocks:
        assert f'TABLES = "{placeholder}"' in code
        ns: dict[str, Any] = {}
        exec(compile(code.replace(placeholder, str(tables)), "docs/export.md", "exec"), ns)
        got = {}
        for name in names:
            frame = ns[name]
            keys = [c for c in frame.columns if frame[c].dtype.kind not in "iuf"
                    or c in ("small_blind", "big_blind")]
            got[name] = {tuple(None if v != v else v for v in row[keys]):
                         tuple(float(row[c]) for c in frame.columns if c not in keys)
                         for _, row in frame.iterrows()}
        out.append(got)
    return out


def _agree(results: list[dict[str, dict[Any, tuple[float, ...]]]]) -> None:
    first, other = results
    for name in first:
        assert first[name].keys() == other[name].keys(), name
        for key, values in first[name].items():
            assert all(math.isclose(a, b, rel_tol=1e-9)
                       for a, b in zip(values, other[name][key], strict=True)), (name, key)


def test_the_docs_column_tables_are_generated_from_the_code() -> None:
    text = DOC.read_text()
    assert describe_tournaments() in text
    assert describe_operator() in text


# ---------------------------------------------------------------- tournaments (issue 37)


@pytest.fixture(scope="module")
def sng(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from cluster.flows.simulate import run_simulate

    run = tmp_path_factory.mktemp("sng") / "run"
    run_simulate(game_spec(GAME, 600, 300), run, workers=0, progress=False)
    assert main(["export", str(run), "--workers", "0", "--quiet"]) == 0
    assert main(["audit", str(run), "--only", "stakes", "--workers", "0", "--quiet"]) == 0
    return run


def _tournaments(run: Path) -> list[dict[str, Any]]:
    return ds.dataset(run / "tables" / "tournaments").to_table().to_pylist()


def test_one_row_per_tournament_with_the_games_structure(sng: Path) -> None:
    rows = log_rows(sng)
    tables: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        tables.setdefault(r["table_id"], []).append(r)
    got = {t["tournament_id"]: t for t in _tournaments(sng)}
    assert got.keys() == tables.keys() and len(got) >= 3
    for tid, t in got.items():
        hands = sorted(tables[tid], key=lambda r: r["hand_no"])
        first = hands[0]
        assert (t["format"], t["structure"], t["n_seats"], t["hands"]) == (
            "sit & go", "no-limit", 6, len(hands))
        assert t["entries"] == sum(first["occupied"]) == 6
        assert (t["starting_stack"], t["buy_in"]) == (1500, 100)
        levels = [h["level"] for h in hands]
        assert (t["first_level"], t["last_level"], t["levels_played"]) == (
            levels[0], levels[-1], len(set(levels)))
        bought = [(h["level"], x) for h in hands[1:] for x in h["rebuys"] if x > 0]
        assert t["rebuys"] == sum(lv < 4 for lv, _ in bought)  # the add-on is at level 4
        assert t["add_ons"] == sum(lv >= 4 for lv, _ in bought)
        assert t["rebuy_chips"] == sum(x for _, x in bought)
        assert {x for lv, x in bought} <= {1500, 2000}
        assert t["prize_pool"] == 100 * (6 + len(bought))
        assert t["finished"] == (sum(x > 0 for x in hands[-1]["stacks_end"]) == 1)
    assert any(t["rebuys"] for t in got.values()) and any(t["add_ons"] for t in got.values())
    assert any(t["finished"] for t in got.values())
    assert not all(t["finished"] for t in got.values())  # a batch's last table stops with it
    schema = pq.read_schema(next((sng / "tables" / "tournaments").glob("part-*.parquet")))
    assert schema.remove_metadata().equals(SCHEMA.remove_metadata())


def test_places_and_prizes_are_the_stakes_audits(sng: Path) -> None:
    audit = json.loads((sng / "audit.json").read_text())
    listed = next(r for r in audit["results"] if r["name"] == "stakes")["details"]["tournaments"]
    got = {t["tournament_id"]: t for t in _tournaments(sng)}
    finished = [t for t in got.values() if t["finished"]]
    assert listed["finished"] == len(finished)
    assert listed["unfinished"] == len(got) - len(finished)
    assert listed["prize_pools"] == sum(t["prize_pool"] for t in finished)
    for a in listed["tables"]:
        t = got[a["table_id"]]
        assert (t["hands"], t["entries"], t["rebuys"] + t["add_ons"], t["prize_pool"]) == (
            a["hands"], a["entries"], a["purchases"], a["prize_pool"])
        assert t["places"] == [p[2] for p in a["places"]]
        assert t["place_seats"] == [p[1] for p in a["places"]]
        assert t["prizes"] == [p[4] for p in a["places"]]
        assert sum(t["prizes"]) == t["prize_pool"]
    for t in got.values():
        if not t["finished"]:
            assert t["places"] is None and t["prizes"] is None


def test_the_tournament_queries_in_pandas_and_duckdb_agree(sng: Path) -> None:
    results = _run_blocks("Tournaments: the `tournaments` table", "runs/sng/tables",
                          sng / "tables", ("t1", "t2"))
    _agree(results)
    t1, t2 = results[0]["t1"], results[0]["t2"]
    done = [t for t in _tournaments(sng) if t["finished"]]
    (row,) = t1.values()
    assert row[0] == len(done) and row[-1] == sum(t["prize_pool"] for t in done)
    assert sum(v[0] for v in t2.values()) == len(done)
    assert sum(v[1] for v in t2.values()) == sum(t["prizes"][0] for t in done)


def test_a_cash_runs_tournaments_are_empty(tmp_path: Path) -> None:
    from cluster.flows.simulate import run_simulate

    cash = GAME.split("[tournament]")[0].replace('format = "tournament"', 'format = "cash"')
    run_simulate(game_spec(cash, 100, 100), tmp_path / "run", workers=0, progress=False)
    assert main(["export", str(tmp_path / "run"), "--workers", "0", "--quiet"]) == 0
    assert _tournaments(tmp_path / "run") == []


# ---------------------------------------------------------------- imported (issue 34, point 9)


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, bytes]:
    """Real exports of six sites and a PokerStars hand whose pot went to the player who mucked
    (a wrong payout), imported with a rake schedule and the names hashed; (run, the same
    imported with the names, the key)."""
    pytest.importorskip("sim.histories.sites.text")
    base = tmp_path_factory.mktemp("imported")
    src = base / "src"
    src.mkdir()
    for f in SITETEXT.iterdir():
        if f.name != "pokerstars-2023.txt":  # the planted hand is its forgery
            shutil.copy(f, src / f.name)
    (src / "ps23.txt").write_text(PS23_MUCKER)
    key = b"the lab's secret key, 32 bytes.."
    (base / "key").write_bytes(key)
    common = ["--rake", "5:3", "--workers", "0", "--quiet"]
    assert main(["import", str(src), "--out", str(base / "run"), "--hash-names",
                 str(base / "key"), *common]) == 0
    assert main(["import", str(src), "--out", str(base / "named"), *common]) == 0
    return base / "run", base / "named", key


def _export(run: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["export", str(run), "--workers", "0", "--quiet"]) == 0
    return capsys.readouterr().out


def test_the_operators_fields_are_in_the_tables(imported: tuple[Path, Path, bytes],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    run, named, key = imported
    out = _export(run, capsys)
    assert "the run has not been audited" in out and "no verdict until `holdem audit RUN`" in out
    hands = {h["hand_id"]: h for h in ds.dataset(run / "tables" / "hands").to_table().to_pylist()}
    seats = ds.dataset(run / "tables" / "seats").to_table().to_pylist()
    rows = log_rows(run)
    assert len(hands) == len(rows) >= 19
    for r in rows:
        h = hands[r["hand_id"]]
        for col in ("site_hand", "venue", "table_name", "hand_time", "time_zone", "currency"):
            assert h[col] == (r[col] or None), col
        for col in ("op_pot", "op_rake"):
            assert h[col] == (r[col] if r[col] >= 0 else None), col
        assert (h["time_utc"].timestamp() if h["time_utc"] else -1) == r["time_utc"]
        assert h["outcome"] is not None
    assert {h["venue"] for h in hands.values()} >= {"PokerStars", "Full Tilt Poker",
                                                    "iPoker Network", "Ongame Network",
                                                    "PartyPoker", "Absolute Poker"}
    by_seat = {(r["hand_id"], s): (r["players"][s], r["op_winnings"], r["op_finishing"])
               for r in rows for s in range(r["n_seats"]) if r["occupied"][s]}
    assert len(seats) == len(by_seat)
    for s in seats:
        name, win, fin = by_seat[(s["hand_id"], s["seat"])]
        assert s["player"] == (name or None)
        assert s["op_winnings"] == (win[s["seat"]] if win else None)
        assert s["op_finishing"] == (fin[s["seat"]] if fin else None)
    assert any(s["op_winnings"] is not None for s in seats)
    # the names are the keyed hashes, and no part holds a name
    names = {n for r in log_rows(named) for n in r["players"] if n}
    assert len(names) >= 8
    assert {s["player"] for s in seats} == {
        hmac.new(key, n.encode(), "sha256").hexdigest()[:16] for n in names}
    text = json.dumps([ds.dataset(d).to_table().to_pylist() for d in (run / "tables").iterdir()
                       if d.is_dir()], default=str)
    assert "omgmuffins" in names and "PokerStars" in text
    assert not [n for n in names if n in text]


def test_wrong_payouts_by_venue_and_rake_by_stake(imported: tuple[Path, Path, bytes],
                                                  tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    run = imported[0]
    capsys.readouterr()
    assert main(["audit", str(run), "--only", "outcome", "--workers", "0", "--quiet"]) == 1
    out = _export(run, capsys)
    assert "those of the run's audit (audit.json, outcome FAIL), per venue and class" in out
    audit = json.loads((run / "audit.json").read_text())
    per_venue = next(r for r in audit["results"] if r["name"] == "outcome")["details"][
        "per_venue"]
    record = json.loads((run / "tables" / "export.json").read_text())["outcome"]
    assert record["per_venue"] == per_venue
    results = _run_blocks("An imported run: the operator's fields", "runs/acme/tables",
                          run / "tables", ("w1", "w2"))
    _agree(results)
    w1, w2 = results[0]["w1"], results[0]["w2"]
    assert {venue: wrong for (venue,), (_, wrong) in w1.items()} == {
        v: per.get("wrong payout", 0) for v, per in per_venue.items()}
    assert w1[("PokerStars",)][1] == 1  # the planted hand, and no other
    rows = log_rows(run)
    want: dict[tuple[int, int], list[int]] = {}
    for r in rows:
        acc = want.setdefault((r["currency"] or None, r["small_blind"], r["big_blind"]),
                              [0, 0, 0])
        acc[0] += 1
        acc[1] += r["op_rake"] > 0
        acc[2] += max(r["op_rake"], 0)
    assert {k: tuple(int(x) for x in v) for k, v in w2.items()} == {
        k: tuple(v) for k, v in want.items()}
    assert sum(v[2] for v in want.values()) > 0
    # an audit.json that counted otherwise (other code, another log) is named, not trusted
    other = tmp_path / "run"
    shutil.copytree(run, other)
    audit["results"] = [dict(r, details=dict(r["details"], per_venue={"PokerStars": {
        "exact": 1}})) if r["name"] == "outcome" else r for r in audit["results"]]
    (other / "audit.json").write_text(json.dumps(audit))
    assert "NOT those of the run's audit.json" in _export(other, capsys)


def test_the_export_of_an_imported_run_verifies_part_by_part(
        imported: tuple[Path, Path, bytes], tmp_path: Path) -> None:
    """``holdem verify`` makes each part again from its batch file (``encode_parts`` with the
    run's context): the operator's columns and the outcome classes come out the same."""
    from audits.runfolder import storage
    from cluster.flows.export import encode_parts, export_context

    run = imported[0]
    assert main(["export", str(run), "--workers", "0", "--quiet"]) == 0
    record = json.loads((run / "tables" / "export.json").read_text())
    manifest = json.loads((run / "manifest.json").read_text())
    context = export_context(manifest)
    for source in {p["source"] for p in record["parts"]}:
        src = storage.join(storage.as_location(run), source)
        name, _, encoded = encode_parts(str(run), str(src), (run / source).read_bytes(), context)
        for table, data, _ in encoded:
            assert hashlib.sha256(data).hexdigest() == hashlib.sha256(
                (run / "tables" / table / name).read_bytes()).hexdigest(), (table, name)


def test_a_spec_the_audits_refuse_is_one_line_exit_2(sng: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The tournaments' buy-in and payouts come from the manifest's spec, read by the audits'
    own reader: a spec it refuses is bad input, named, and nothing is written."""
    run = tmp_path / "run"
    shutil.copytree(sng, run, ignore=shutil.ignore_patterns("tables"))
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["spec"]["payouts"] = [50, "thirty"]
    (run / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert main(["export", str(run), "--workers", "0", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "manifest.json" in err and "payouts" in err, err
    assert "Traceback" not in err and not (run / "tables").exists()
