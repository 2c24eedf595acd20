"""Imported tournaments are tournaments (issue 34, point 3): every tournament hand of a site's
text is a tournament in the import log, with the tournament the record names (``tournament``),
its level and the buy-in its header states (``tournament_buy_in``, the operator's claim as
written), chips as the unit; the table sessions never join two tournaments' tables; and
``holdem export``'s ``tournaments`` table has one row per tournament of an imported run. The
whole of ../shared/sitetext is checked when it is present."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pytest

from audits.runner import run_audits
from cluster.cli import main
from sim.histories.sessions import rebuild
from sim.histories.sources import decode_text

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "sitetext_real"
SHARED = Path(__file__).resolve().parents[4] / "shared" / "sitetext"

# fixture -> {site hand: (tournament, level counted from 0, buy-in as written)}; "" cash
TOURNAMENT_HANDS: dict[str, dict[str, tuple[str, int, str]]] = {
    "pokerstars-mtt.txt": {"72047901202": ("551010441", 4, "$100+$9 USD"),
                           "145645009921": ("1407056458", 10, "250 SC")},
    "ggpoker-mtt.txt": {"TM600571038": ("25313426", 13, "")},
    "winamax-mtt.txt": {"56408884989919569-1-1319722234": ("13133717", 0, "Free"),
                        "56408884989919569-2-1319722416": ("13133717", 0, "Free")},
    "partypoker-stt-no-posts.txt": {"10315752770": ("59658935", 6, "$11 USD"),
                                    "10315754293": ("59658935", 6, "$11 USD"),
                                    "10315747121": ("59658923", 5, "$55 USD")},
    "ipoker-mtt.xml": {"3869492660": ("$3,500 GP R/A", 0, "$5+$0.50"),
                       "3869492722": ("$3,500 GP R/A", 0, "$5+$0.50")},
    "wpn-sng-utf16.txt": {"695367612": ("$2.20 Turbo Heads-up", 0, "")},
    "cake-cash.txt": {},
}


def _import(tmp_path: Path, files: dict[str, bytes], export: bool = False) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name, body in files.items():
        (src / name).write_bytes(body)
    run = tmp_path / "run"
    assert main(["import", str(src), "--out", str(run), "--workers", "0", "--quiet"]) == 0
    if export:
        assert main(["export", str(run), "--workers", "0", "--quiet"]) == 0
    return run


def _log(run: Path, columns: list[str]) -> list[dict[str, Any]]:
    return ds.dataset(run / "log").to_table(columns=columns).to_pylist()


def test_every_tournament_hand_is_a_tournament_with_its_id_level_and_buy_in(
        tmp_path: Path) -> None:
    run = _import(tmp_path, {n: (REAL / n).read_bytes() for n in TOURNAMENT_HANDS},
                  export=True)
    rows = _log(run, ["source_file", "site_hand", "format", "tournament", "level",
                      "tournament_buy_in", "currency"])
    want = {h: v for hands in TOURNAMENT_HANDS.values() for h, v in hands.items()}
    seen = set()
    for r in rows:
        name = Path(r["source_file"]).name
        if r["site_hand"] in want:
            seen.add(r["site_hand"])
            tid, level, buy_in = want[r["site_hand"]]
            assert (r["format"], r["tournament"], r["level"], r["tournament_buy_in"],
                    r["currency"]) == ("tournament", tid, level, buy_in, "chips"), r
        else:  # the cash hands
            assert name == "cake-cash.txt", r
            assert (r["format"], r["tournament"], r["tournament_buy_in"]) == ("cash", "", "")
    assert seen == set(want)
    # the export: one row per tournament, with its hands, levels and stated buy-in
    got = {t["site_tournament"]: t for t in
           ds.dataset(run / "tables" / "tournaments").to_table().to_pylist()}
    assert set(got) == {v[0] for v in want.values()}
    party = got["59658935"]
    assert (party["venue"], party["format"], party["hands"], party["first_level"],
            party["last_level"], party["buy_in_stated"]) == ("PartyPoker", "tournament", 2, 6, 6,
                                                             "$11 USD")
    assert got["25313426"]["buy_in_stated"] is None  # GGPoker's header states no buy-in
    assert got["551010441"]["places"] is None and got["551010441"]["entries"] is None
    hands = ds.dataset(run / "tables" / "hands").to_table(columns=["table_id"]).to_pylist()
    assert sum(len(t["table_ids"]) for t in got.values()) == len(
        {h["table_id"] for h in hands} - {r["table_id"] for r in _cash_tables(run)})


def _cash_tables(run: Path) -> list[dict[str, Any]]:
    return [r for r in _log(run, ["table_id", "format"]) if r["format"] == "cash"]


def test_two_tournaments_tables_of_one_name_are_never_one_table(tmp_path: Path) -> None:
    """Winamax's two hands of one tournament table are one session; the same two hands with the
    second in another tournament (the operator's sit & go tables are all "Table 1") are two
    tables: a chip carried between them would judge one tournament by another's stacks."""
    run = _import(tmp_path, {"w.txt": (REAL / "winamax-mtt.txt").read_bytes()})
    table = ds.dataset(run / "log").to_table()
    same, _ = rebuild(table.drop_columns(["digest"]))
    assert len(set(same.column("table_id").to_pylist())) == 1
    tour = table.column("tournament").to_pylist()
    tour[1] = "13133718"
    other = table.set_column(table.schema.get_field_index("tournament"),
                             table.schema.field("tournament"), pa.array(tour))
    split, info = rebuild(other.drop_columns(["digest"]))
    assert len(set(split.column("table_id").to_pylist())) == 2 and info["tables"] == 2


def test_chips_and_rotation_run_per_tournament_table(tmp_path: Path) -> None:
    """A tournament table's hands are one table of the log (its hands numbered in order), the
    second's stacks carried from the first's: the chip carry-over and rotation audits judge
    them as one table, and pass on the real hands."""
    run = _import(tmp_path, {"w.txt": (REAL / "winamax-mtt.txt").read_bytes()})
    rows = _log(run, ["table_id", "tournament", "hand_no", "rebuys", "stacks_start",
                      "stacks_end", "occupied"])
    assert {r["tournament"] for r in rows} == {"13133717"}
    assert len({r["table_id"] for r in rows}) == 1
    first, second = sorted(rows, key=lambda r: r["hand_no"])
    assert (first["hand_no"], second["hand_no"]) == (0, 1)
    assert first["rebuys"] == first["stacks_start"]
    both = [s for s, (a, b) in enumerate(zip(first["occupied"], second["occupied"],
                                              strict=True)) if a and b]
    assert len(both) >= 2 and all(second["stacks_start"][s] == first["stacks_end"][s]
                                  + second["rebuys"][s] for s in both)
    # a chip enters between the hands only where a player was out of chips (a re-buy)
    assert all(first["stacks_end"][s] == 0 for s in both if second["rebuys"][s])
    res = {r.name: r for r in run_audits(run, ["chips", "rotation"]).results}
    assert res["chips"].passed and res["rotation"].passed


# ---------------------------------------------------------------- ../shared/sitetext

# venue -> (tournament hands imported, tournaments named), measured on ../shared/sitetext
# (after the remaining site-text lines were read: more tournament hands import)
SHARED_TOURNAMENTS = {
    "888poker": (0, 0), "Absolute Poker": (0, 0), "Cake Poker": (0, 0),
    "Full Tilt Poker": (7, 7), "GGPoker": (60, 2), "Ongame Network": (47, 4),
    "PartyPoker": (13, 7), "PokerStars": (412, 12), "Winamax": (27, 1),
    "Winning Poker Network": (11, 2), "iPoker Network": (304, 5),
}
# a tournament's mark in a file's text, read independently of the readers
_MARK = re.compile(r"Tournament|TOURNAMENT|Tourney|Trny|<tournament(?:code|name)>|"
                   r"\(\d{6,}\), Table |Game ID: \d+ \S+ .{1,80}, Table ")


@pytest.mark.slow
@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/sitetext is absent")
def test_shared_samples_every_tournament_hand_is_a_tournament(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    run = tmp_path / "run"
    assert main(["import", str(SHARED), "--out", str(run), "--workers", "0", "--quiet"]) == 0
    rows = _log(run, ["source_file", "venue", "format", "tournament", "currency"])
    by_venue: dict[str, tuple[int, set[str]]] = {}
    by_file: dict[str, set[str]] = {}
    for r in rows:
        assert (r["format"] == "tournament") == (r["tournament"] != ""), r
        if r["tournament"]:
            assert r["currency"] == "chips", r
            n, ids = by_venue.get(r["venue"], (0, set()))
            by_venue[r["venue"]] = (n + 1, ids | {r["tournament"]})
        by_venue.setdefault(r["venue"], (0, set()))
        by_file.setdefault(r["source_file"], set()).add(r["format"])
    assert {v: (n, len(ids)) for v, (n, ids) in by_venue.items()} == SHARED_TOURNAMENTS
    for path, formats in by_file.items():
        got = decode_text(Path(path).read_bytes())
        assert not isinstance(got, str)
        marked = _MARK.search(got[0]) is not None
        assert formats == ({"tournament"} if marked else {"cash"}), (path, formats)
