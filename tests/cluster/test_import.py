"""``holdem import``: an operator's hand histories -> a run folder (issue #22 §1, §4; spec B).

The import columns and physical seats, exact money in the run's minor unit, tables rebuilt into
sessions across files, player ids by name, import.json, the ``phh import`` alias, the fan-out by
file on Ray, ``certify --import``, and every kind of hostile input skipped per hand or file with
its reason."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from audits.runner import run_audits
from cluster.cli import main
from cluster.flows.import_histories import import_phh
from sim.schema import IMPORT_SCHEMA

FIXTURES = Path(__file__).parent.parent / "fixtures" / "sitetext"
REALHANDS = Path(__file__).resolve().parents[2].parent / "shared" / "realhands"


def hand(key: str, *, table: str = "T1", venue: str = "Site", hand_no: int = 100,
         time: str = "00:00:30", seats: str = "[1, 3, 4]", seat_count: int = 6,
         stacks: str = "[10.05, 20, 30.10]", players: str = "['ann', 'bob', 'cid']",
         blinds: str = "[0.05, 0.10, 0]", actions: str | None = None, extra: str = "",
         variant: str = "NT") -> str:
    """One 3-handed hand (p1 small blind, p2 big blind, p3 button), as a .phhs section."""
    acts = actions or ("['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'p3 cbr 0.30', "
                       "'p1 f', 'p2 f']")
    return (f"[{key}]\nvariant = '{variant}'\nantes = [0, 0, 0]\n"
            f"blinds_or_straddles = {blinds}\nmin_bet = 0.10\nstarting_stacks = {stacks}\n"
            f"actions = {acts}\nvenue = '{venue}'\ntable = '{table}'\nhand = {hand_no}\n"
            f"time = {time}\nday = 1\nmonth = 7\nyear = 2009\ntime_zone_abbreviation = 'ET'\n"
            f"seats = {seats}\nseat_count = {seat_count}\nplayers = {players}\n"
            f"currency = 'USD'\n{extra}\n")


_ORDERS = [("[1, 3, 4]", ("ann", "bob", "cid")), ("[3, 4, 1]", ("bob", "cid", "ann")),
           ("[4, 1, 3]", ("cid", "ann", "bob"))]  # the button rotates 4 -> 1 -> 3 -> 4


def _carried(k: int, names: tuple[str, ...] | None = None) -> str:
    """The starting stacks of hand k of the T1 session (players ``names``, else hand k's):
    each player's stack carried from hand 0 through the hands before (``hand``'s default play:
    p1 posts 0.05, p2 0.10, p3 raises and wins them), as a real table's next hands show."""
    stack = {"ann": Decimal("10.05"), "bob": Decimal("20"), "cid": Decimal("30.10")}
    for j in range(k):
        p1, p2, p3 = _ORDERS[j % 3][1]
        stack[p1] -= Decimal("0.05")
        stack[p2] -= Decimal("0.10")
        stack[p3] += Decimal("0.15")
    return "[" + ", ".join(str(stack[x]) for x in (names or _ORDERS[k % 3][1])) + "]"


def rows(run: Path) -> list[dict[str, Any]]:
    m = json.loads((run / "manifest.json").read_text())
    t = pa.concat_tables(pq.read_table(run / f["path"]) for f in m["files"])
    return sorted(t.to_pylist(), key=lambda r: r["hand_id"])


def test_columns_physical_seats_and_the_operators_claims(tmp_path: Path) -> None:
    """A hand's row: physical seats (seats [1, 3, 4] of 6), money in cents, the source columns,
    the record's winnings/finishing stacks beside the rules' result, unknown stacks marked."""
    src = tmp_path / "a.phhs"
    src.write_text(hand("1", extra="winnings = [0, 0, 0.45]\nfinishing_stacks = "
                                   "[10, 19.90, 30.25]")
                   + hand("2", hand_no=101, time="00:01:30", stacks="[inf, 19.90, 30.25]",
                          seats="[3, 4, 1]", players="['bob', 'cid', 'ann']"))
    run = tmp_path / "run"
    res = import_phh([str(src)], run)
    assert (res.submitted, res.imported, res.skipped) == (2, 2, {})
    got = rows(run)
    first, second = got
    assert pq.read_schema(next((run / "log").rglob("*.parquet"))).names == IMPORT_SCHEMA.names
    assert first["n_seats"] == 6 and first["occupied"] == [True, False, True, True, False,
                                                           False]
    assert (first["button"], first["sb_seat"], first["bb_seat"]) == (3, 0, 2)
    assert first["stacks_start"] == [1005, 0, 2000, 3010, 0, 0]
    assert first["won"] == [0, 0, 0, 25, 0, 0]  # the rules': the blinds and his matched 10
    assert first["returned"] == [0, 0, 0, 20, 0, 0]
    assert first["op_winnings"] == [0, 0, 0, 45, 0, 0]
    assert first["op_finishing"] == [1000, 0, 1990, 3025, 0, 0]
    assert (first["op_rake"], first["op_pot"]) == (-1, -1)
    assert first["players"] == ["ann", "", "bob", "cid", "", ""]
    assert (first["source_file"], first["source_section"], first["site_hand"]) == (
        str(src), "1", "100")
    assert (first["venue"], first["table_name"], first["currency"]) == ("Site", "T1", "USD")
    assert (first["hand_time"], first["time_zone"]) == ("2009-07-01T00:00:30", "ET")
    assert first["time_utc"] == 1246420830  # 00:00:30 EDT = 04:00:30 UTC
    assert second["stack_known"] == [True, False, False, True, False, False]  # bob: inf
    assert second["op_winnings"] == [] and second["op_finishing"] == []
    # one id per name, everywhere; -1 for an empty seat
    assert first["player_ids"] == [0, -1, 1, 2, -1, -1]
    assert second["player_ids"] == first["player_ids"]
    m = json.loads((run / "manifest.json").read_text())
    assert m["format"] == "holdem-import" and m["money"] == {"exponent": 2, "currency": "USD"}
    meta = pq.read_metadata(run / m["files"][0]["path"]).metadata
    assert meta[b"holdem.import_version"] == b"3" and meta[b"holdem.schema_version"] == b"3"


def test_money_is_exact_and_one_unit_for_the_run(tmp_path: Path) -> None:
    """0.1 + 0.2 is 0.3 exactly; a file of whole chips beside a file in cents is converted at
    the run's unit (cents), and a file in tenths too."""
    tenths = tmp_path / "tenths.phhs"
    tenths.write_text(hand("1", stacks="[0.3, 0.3, 0.3]", blinds="[0.1, 0.2, 0]",
                           actions="['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'p3 f', "
                                   "'p1 cc', 'p2 cc', 'd db 2c3d4h', 'p1 cbr 0.1', 'p2 f']",
                           extra="finishing_stacks = [0.5, 0.1, 0.3]"))
    whole = tmp_path / "whole.phhs"
    whole.write_text(hand("1", table="T2", stacks="[100, 200, 300]", blinds="[1, 2, 0]",
                          actions="['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', "
                                  "'p3 cbr 6', 'p1 f', 'p2 f']").replace("min_bet = 0.10",
                                                                         "min_bet = 2"))
    cents = tmp_path / "cents.phhs"
    cents.write_text(hand("1", table="T3"))
    run = tmp_path / "run"
    res = import_phh([str(tenths), str(whole), str(cents)], run)
    assert res.imported == 3 and res.money["exponent"] == 2
    by_table = {r["table_name"]: r for r in rows(run)}
    t = by_table["T1"]
    assert t["stacks_start"][:1] == [30] and t["small_blind"] == 10 and t["big_blind"] == 20
    assert t["stacks_end"][0] == 50 and t["op_finishing"][0] == 50  # 0.3 - 0.2 + 0.4
    assert by_table["T2"]["stacks_start"][:1] == [10_000] and by_table["T2"]["big_blind"] == 200
    assert by_table["T3"]["stacks_start"][0] == 1005


def test_sessions_rebuilt_across_files(tmp_path: Path) -> None:
    """Hands of one table given out of order across two files form one session in (time, hand
    number) order; a missing hand (the button skips a seat) starts a new session (a gap); the
    same table name at two venues is two tables."""
    def at(k: int, button_first: bool = False) -> str:
        # the button rotates 4 -> 1 -> 3 -> 4 over seats 1, 3, 4
        seats, names = _ORDERS[k % 3]
        return hand(str(k), hand_no=100 + k, time=f"00:{k:02d}:00", seats=seats,
                    players=str(list(names)), stacks=_carried(k))

    (tmp_path / "a.phhs").write_text(at(2) + at(0))
    (tmp_path / "b.phhs").write_text(at(1) + at(3) + at(5))  # hand 4 missing: a gap
    (tmp_path / "c.phhs").write_text(hand("1", venue="Other", hand_no=7))
    run = tmp_path / "run"
    res = import_phh([str(tmp_path)], run)
    assert res.imported == 6
    assert res.tables == {"tables": 2, "sessions": 3, "gaps": 1, "button_stuck": 0,
                          "by_venue": {
        "Other": {"tables": 1, "sessions": 1, "gaps": 0, "button_stuck": 0},
        "Site": {"tables": 1, "sessions": 2, "gaps": 1, "button_stuck": 0}}}
    got = [r for r in rows(run) if r["venue"] == "Site"]
    assert [r["site_hand"] for r in got] == ["100", "101", "102", "103", "105"]
    assert [r["hand_no"] for r in got] == [0, 1, 2, 3, 0]
    assert len({r["table_id"] for r in got[:4]}) == 1 and got[4]["table_id"] != got[0][
        "table_id"]
    # rebuys: a session's first hand its stacks, then start - previous end per seat
    second = got[1]
    assert second["rebuys"] == [s - e for s, e in zip(second["stacks_start"],
                                                      got[0]["stacks_end"], strict=True)]
    assert got[0]["rebuys"] == got[0]["stacks_start"]
    report = json.loads((run / "import.json").read_text())
    assert report["tables"] == res.tables
    ids = {}
    for r in rows(run):
        for name, pid in zip(r["players"], r["player_ids"], strict=True):
            if name:
                assert ids.setdefault(name, pid) == pid
    assert sorted(ids) == ["ann", "bob", "cid"]


def test_import_json_counts_reasons_examples(tmp_path: Path) -> None:
    good = hand("1")
    src = tmp_path / "h.phhs"
    src.write_text(good + hand("2", variant="FO/5") + hand("3", stacks="[1e400, 20, 30]")
                   + "[4]\nvariant = 'NT'\nantes = [0,")
    run = tmp_path / "run"
    res = import_phh([str(src)], run)
    report = json.loads((run / "import.json").read_text())
    assert (report["submitted"], report["imported"]) == (4, 1)
    assert sum(report["skipped"].values()) == 3 and len(report["skipped"]) == 3
    assert "unknown variant" in report["skipped"]
    (f,) = report["files"]
    assert f["path"] == str(src) and len(f["sha256"]) == 64 and f["format"] == "phh"
    assert (f["submitted"], f["imported"], sum(f["skipped"].values())) == (4, 1, 3)
    for reason, examples in report["examples"].items():
        assert examples and all(e["file"] == str(src) and e["section"] for e in examples), reason
    assert report["examples"]["unknown variant"][0]["section"] == "2"
    m = json.loads((run / "manifest.json").read_text())
    assert m["skipped"] == report["skipped"] and m["hands"] == 1
    from cluster.flows.import_histories import counts_in_words, format_import

    assert counts_in_words(4, 1, report["skipped"]).startswith(
        "4 hands submitted, 1 imported, 3 skipped (")
    assert "1 unknown variant" in format_import(res)


def test_the_alias_and_the_rake_options(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """``holdem phh import`` is ``holdem import``; ``--rake`` is parsed strictly (a bad value is
    one line, exit 2, nothing written) and stored in the manifest in minor units."""
    src = tmp_path / "h.phhs"
    src.write_text(hand("1"))
    for bad in ("5", "x:3", "5:-1", "101:3", "nan:3", "5:0.0000001"):
        out = tmp_path / f"bad{len(bad)}"
        assert main(["import", str(src), "--out", str(out), "--workers", "0", "--quiet",
                     "--rake", bad]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "rake" in err[0], err
        assert not out.exists()
    sched = tmp_path / "s.toml"
    sched.write_text("percent = 5\ncap = 3\ncaps_by_players = {'2' = 0.5}\nstep = 0.01\n"
                     "no_flop_no_drop = true\n")
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["import", str(src), "--out", str(a), "--workers", "0", "--quiet",
                 "--rake-schedule", str(sched)]) == 0
    assert main(["phh", "import", str(src), "--out", str(b), "--workers", "0", "--quiet",
                 "--rake", "5:3"]) == 0
    ma = json.loads((a / "manifest.json").read_text())
    mb = json.loads((b / "manifest.json").read_text())
    assert ma["rake_schedule"] == {"percent": "5", "cap": 300, "caps_by_players": {"2": 50},
                                   "no_flop_no_drop": True, "step": 1, "jackpot": 0,
                                   "jackpot_min_pot": 0}
    assert mb["rake_schedule"]["cap"] == 300 and mb["rake_schedule"]["percent"] == "5"
    assert [f["sha256"] for f in ma["files"]] == [f["sha256"] for f in mb["files"]]
    sched.write_text("percent = 5\ncapp = 3\n")
    assert main(["import", str(src), "--out", str(tmp_path / "c"), "--workers", "0",
                 "--rake-schedule", str(sched)]) == 2
    assert "unknown key 'capp'" in capsys.readouterr().err


def test_fan_out_by_file_on_ray(tmp_path: Path, ray_local: None) -> None:
    """On Ray (one task a file) the run is the one this process makes, byte for byte."""
    for k in range(3):
        (tmp_path / "src").mkdir(exist_ok=True)
        (tmp_path / "src" / f"f{k}.phhs").write_text(hand("1", table=f"T{k}")
                                                     + hand("2", table=f"T{k}", hand_no=101,
                                                            time="00:01:00", seats="[3, 4, 1]",
                                                            players="['bob', 'cid', 'ann']",
                                                            stacks=_carried(1)))
    here, there = tmp_path / "here", tmp_path / "there"
    assert import_phh([str(tmp_path / "src")], here, workers=0).imported == 6
    assert import_phh([str(tmp_path / "src")], there, workers=2).imported == 6
    mh = json.loads((here / "manifest.json").read_text())
    mt = json.loads((there / "manifest.json").read_text())
    assert mh["files"] == mt["files"] and mh["tables"] == mt["tables"]
    assert (mh["tables"]["tables"], mh["tables"]["sessions"], mh["tables"]["gaps"]) == (3, 3, 0)


def test_certify_import_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``holdem certify --import``: import, audit and report in one command; the certificate
    exists, the deal is honestly not applicable (no deck)."""
    src = tmp_path / "h.phhs"
    src.write_text(hand("1") + hand("2", hand_no=101, time="00:01:00", seats="[3, 4, 1]",
                                    stacks="[20, 30.10, 10.05]",
                                    players="['bob', 'cid', 'ann']"))
    run = tmp_path / "run"
    code = main(["certify", "--import", str(src), "--out", str(run), "--workers", "0",
                 "--quiet"])
    out = capsys.readouterr().out
    assert "2 hands submitted, 2 imported, 0 skipped" in out
    assert (run / "certificate.json").is_file() and (run / "import.json").is_file()
    audit = json.loads((run / "audit.json").read_text())
    res = {r["name"]: r for r in audit["results"]}
    assert not res["deal"]["applicable"] or res["deal"]["passed"]
    assert res["integrity"]["passed"], res["integrity"]
    assert code in (0, 1)
    assert "verdict:" in out


def test_an_import_never_overwrites_another_run(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "manifest.json").write_text(json.dumps({"format": "holdem-simulate-run"}))
    src = tmp_path / "h.phhs"
    src.write_text(hand("1"))
    assert main(["import", str(src), "--out", str(out), "--workers", "0", "--quiet"]) == 2
    assert "not an import" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json"]
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    assert main(["import", str(src), "--out", str(a_file), "--workers", "0", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "a file, not a folder" in err[0] and a_file.read_text() == "x"


# ---------------------------------------------------------------- hostile input (issue §4)

GOOD = hand("1")


@pytest.mark.parametrize(("bad", "reason"), [
    ("[2]\nvariant = 'NT\nantes = [0, 0]\n", "not TOML"),
    ("[2]\nvariant = 'NT'\nantes = [0,", "not TOML"),
    (hand("2", stacks="[1e400, 20, 30]"), "amount not representable"),
    (hand("2", stacks="[nan, 20, 30]"), "amount not representable"),
    (hand("2", stacks="[-10, 20, 30]"), "negative amount"),
    (hand("2", stacks="[10.0000001, 20, 30]"), "amount not representable"),
    (hand("2", variant="F7S"), "unknown variant"),
    ("[2]\nvariant = 'NT'\nantes = [" + ", ".join(["0"] * 30) + "]\nblinds_or_straddles = ["
     + ", ".join(["1", "2"] + ["0"] * 28) + "]\nmin_bet = 2\nstarting_stacks = ["
     + ", ".join(["100"] * 30) + "]\nactions = []\n", "too many players"),
])
def test_hostile_hand_is_skipped_with_its_reason(tmp_path: Path, bad: str, reason: str) -> None:
    """Each broken hand is skipped with its named reason; the good hands of its file import."""
    src = tmp_path / "h.phhs"
    src.write_text(GOOD + bad + "\n" + hand("3", hand_no=102))
    run = tmp_path / "run"
    res = import_phh([str(src)], run)
    assert res.imported == 2, res.skipped
    assert res.skipped == {reason: 1}, res.examples
    (ex,) = res.examples[reason]
    assert ex["section"] == "2" and ex["file"] == str(src)


def test_a_huge_line_is_skipped_not_a_hang(tmp_path: Path) -> None:
    """A 100 MB line (a hostile file) is one skip with its reason, the file's other hands
    import."""
    src = tmp_path / "h.phhs"
    with src.open("w") as f:
        f.write(GOOD)
        f.write("[2]\nvariant = '" + "x" * 100_000_000 + "'\n\n")
        f.write(hand("3", hand_no=102))
    res = import_phh([str(src)], tmp_path / "run")
    assert res.imported == 2 and res.skipped == {"too large": 1}, res.skipped


def test_unreadable_files_are_skips(tmp_path: Path) -> None:
    """A file that is not UTF-8 or not TOML at all is a per-file skip with its reason; the other
    files import; nothing imported at all is exit 2 with nothing written."""
    (tmp_path / "src").mkdir()
    # 0x81 is no character in UTF-8, UTF-16 (no NUL pattern) nor Windows-1252
    (tmp_path / "src" / "a.phhs").write_bytes(b"\x81\x8d\x00garbage")
    (tmp_path / "src" / "b.phh").write_text("this is { not toml")
    (tmp_path / "src" / "c.phhs").write_text(GOOD)
    res = import_phh([str(tmp_path / "src")], tmp_path / "run")
    assert res.imported == 1 and set(res.skipped) == {"unreadable", "unknown format"}, res.skipped
    (tmp_path / "src" / "c.phhs").unlink()
    assert main(["import", str(tmp_path / "src"), "--out", str(tmp_path / "none"),
                 "--workers", "0", "--quiet"]) == 2
    assert not (tmp_path / "none" / "manifest.json").exists()


@pytest.mark.parametrize(("forge", "words"), [
    ({"metadata": {b"holdem.import_version": b"0"}}, ["holdem.import_version", "'0'"]),
    ({"drop": "op_winnings"}, ["missing column", "op_winnings"]),
])
def test_an_imported_file_is_exactly_the_importers(tmp_path: Path, forge: dict[str, Any],
                                                   words: list[str],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The integrity audit checks an imported file against the import schema: an import version
    it does not know, or an import column dropped (the operator's claim gone), fails it naming
    the file and the field, even with the manifest restamped."""
    from tests.audits.forgery import RunForger

    src = tmp_path / "h.phhs"
    src.write_text(hand("1", extra="winnings = [0, 0, 0.45]"))
    run = tmp_path / "run"
    assert import_phh([str(src)], run).imported == 1
    assert main(["audit", str(run), "--workers", "0", "--quiet", "--only", "integrity"]) == 0
    f = RunForger(run)
    if "drop" in forge:
        f.write(fields=[x for x in f.schema if x.name != forge["drop"]])
    else:
        f.write(metadata=forge["metadata"])
    capsys.readouterr()
    assert main(["audit", str(run), "--workers", "0", "--quiet", "--only", "integrity"]) == 1
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith("integrity:"))
    assert f.rel in line and all(w in line for w in words), out


def test_a_run_of_import_version_1_is_still_read(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Import version 2 added ``tournament`` and ``tournament_buy_in``, version 3 the
    operator's claims (``op_claim_players``, ``op_claims``): a version 1 or 2 file (without
    them) still passes the exact-file check and is audited as an import; a version 3 file
    without ``tournament`` fails it, naming the column."""
    from tests.audits.forgery import RunForger

    src = tmp_path / "h.phhs"
    src.write_text(hand("1", extra="winnings = [0, 0, 0.45]"))
    run = tmp_path / "run"
    assert import_phh([str(src)], run).imported == 1
    f = RunForger(run)
    f.write(fields=[x for x in f.schema if x.name not in ("op_claim_players", "op_claims")],
            metadata={b"holdem.import_version": b"2"})
    assert main(["audit", str(run), "--workers", "0", "--quiet", "--only",
                 "integrity,outcome"]) == 0
    f = RunForger(run)
    f.write(fields=[x for x in f.schema if x.name != "tournament"])
    capsys.readouterr()
    assert main(["audit", str(run), "--workers", "0", "--quiet", "--only", "integrity"]) == 1
    assert "tournament" in capsys.readouterr().out
    f = RunForger(run)
    f.write(fields=[x for x in f.schema if x.name != "tournament_buy_in"],
            metadata={b"holdem.import_version": b"1"})
    assert main(["audit", str(run), "--workers", "0", "--quiet", "--only",
                 "integrity,outcome"]) == 0


def test_sources_and_run_as_uris(tmp_path: Path) -> None:
    """Sources and the run folder as URIs (``file://``: the same code as s3:// or gs://)."""
    (tmp_path / "src" / "sub").mkdir(parents=True)
    (tmp_path / "src" / "sub" / "a.phhs").write_text(hand("1"))
    (tmp_path / "src" / "b.phhs").write_text(hand("1", table="T9"))
    res = import_phh([f"file://{tmp_path}/src"], f"file://{tmp_path}/run")
    assert (res.files, res.imported) == (2, 2)
    report = json.loads((tmp_path / "run" / "import.json").read_text())
    assert all(f["path"].startswith("file://") and len(f["sha256"]) == 64
               for f in report["files"])
    # nothing imported into a previous import: the folder is left as it was
    before = sorted(p.name for p in (tmp_path / "run").iterdir())
    (tmp_path / "bad.phhs").write_text("[1]\nvariant = 'F7S'\n")
    assert import_phh([str(tmp_path / "bad.phhs")], tmp_path / "run").imported == 0
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == before


def test_hands_without_names_have_no_player_ids(tmp_path: Path) -> None:
    """A record without ``players``: the names are unknown (""), their ids -1 (never one made-up
    name shared by strangers at two tables); the audits still read the run."""
    from audits.runner import run_audits

    src = tmp_path / "h.phhs"
    src.write_text(hand("1").replace("players = ['ann', 'bob', 'cid']\n", "")
                   + hand("2", table="T2").replace("players = ['ann', 'bob', 'cid']\n", ""))
    run = tmp_path / "run"
    assert import_phh([str(src)], run).imported == 2
    for r in rows(run):
        assert r["players"] == [""] * 6 and r["player_ids"] == [-1] * 6
    res = run_audits(run, ["integrity", "chips", "rotation", "payouts", "betting"])
    assert all(r.passed for r in res.results), [(r.name, r.details) for r in res.results]


def test_a_schedule_without_a_cap_has_none(tmp_path: Path) -> None:
    from cluster.flows.rake import RakeError, parse_rake, read_rake_schedule

    f = tmp_path / "s.toml"
    f.write_text("percent = 4.5\n")
    assert read_rake_schedule(f).to_manifest(2) == {
        "percent": "4.5", "cap": None, "caps_by_players": {}, "no_flop_no_drop": False,
        "step": 1, "jackpot": 0, "jackpot_min_pot": 0}
    assert parse_rake("5:0.5").to_manifest(2)["cap"] == 50
    with pytest.raises(RakeError, match="finer than the run's minor unit"):
        parse_rake("5:0.005").to_manifest(2)


def test_a_schedule_per_venue_with_a_jackpot_drop(tmp_path: Path) -> None:
    """A venue's table takes the top level's keys it leaves out; its jackpot drop is stored in
    minor units; a venue table's unknown key or a bad amount is one line naming it."""
    from cluster.flows.rake import RakeError, read_rake_schedule

    f = tmp_path / "s.toml"
    f.write_text("percent = 5\ncap = 3\n[venues.\"Absolute Poker\"]\njackpot = 0.50\n"
                 "jackpot_min_pot = 5\nstep = 0.05\n")
    m = read_rake_schedule(f).to_manifest(2)
    abs_ = m["venues"]["Absolute Poker"]
    assert (m["jackpot"], m["cap"], m["step"]) == (0, 300, 1)
    assert (abs_["percent"], abs_["cap"], abs_["jackpot"], abs_["jackpot_min_pot"],
            abs_["step"]) == ("5", 300, 50, 500, 5)
    for body, named in (("[venues.X]\ncapp = 1\n", "unknown key 'capp'"),
                        ("[venues.X]\njackpot = -1\n", "jackpot"),
                        ("venues = 3\n", "venues")):
        f.write_text("percent = 5\n" + body)
        with pytest.raises(RakeError, match=named):
            read_rake_schedule(f)


def test_names_hashed_under_a_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--hash-names KEYFILE``: no name is stored, each is its keyed hash (the same name the
    same pseudonym and player id at every table), the manifest says so; another key gives
    other pseudonyms; an unusable key file is one line, exit 2, nothing written."""
    src = tmp_path / "h.phhs"
    src.write_text(hand("1") + hand("2", table="T2", players="['cid', 'dee', 'ann']"))
    key = tmp_path / "k.bin"
    key.write_bytes(b"s" * 32)
    run = tmp_path / "run"
    assert main(["import", str(src), "--out", str(run), "--workers", "0", "--quiet",
                 "--hash-names", str(key)]) == 0
    got = rows(run)
    names = {n for r in got for n in r["players"] if n}
    assert len(names) == 4 and not names & {"ann", "bob", "cid", "dee"}
    assert all(len(n) == 16 for n in names)
    ids = {}
    for r in got:
        for name, pid in zip(r["players"], r["player_ids"], strict=True):
            if name:
                assert ids.setdefault(name, pid) == pid
    text = json.dumps(got, default=str) + (run / "import.json").read_text()
    assert not any(f"'{n}'" in text or f'"{n}"' in text for n in ("ann", "bob", "cid", "dee"))
    assert json.loads((run / "manifest.json").read_text())["player_names"].startswith(
        "hmac-sha256, key ")
    key.write_bytes(b"t" * 32)
    assert main(["import", str(src), "--out", str(tmp_path / "run2"), "--workers", "0",
                 "--quiet", "--hash-names", str(key)]) == 0
    assert not names & {n for r in rows(tmp_path / "run2") for n in r["players"]}
    key.write_bytes(b"short")
    capsys.readouterr()
    assert main(["import", str(src), "--out", str(tmp_path / "run3"), "--workers", "0",
                 "--quiet", "--hash-names", str(key)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--hash-names" in err[0] and "16 bytes" in err[0]
    assert not (tmp_path / "run3").exists()


def test_a_player_in_two_seats_is_a_skip(tmp_path: Path) -> None:
    """A hand whose record names one player in two seats is skipped "player in two seats"
    (counted in import.json with an example); the file's other hands import."""
    src = tmp_path / "h.phhs"
    src.write_text(GOOD + hand("2", hand_no=101, players="['ann', 'bob', 'ann']")
                   + hand("3", hand_no=102))
    run = tmp_path / "run"
    res = import_phh([str(src)], run)
    assert res.imported == 2 and res.skipped == {"player in two seats": 1}, res.examples
    (ex,) = res.examples["player in two seats"]
    assert ex["section"] == "2" and ex["site_hand"] == "101" and "'ann'" in ex["reason"]
    report = json.loads((run / "import.json").read_text())
    assert report["skipped"] == {"player in two seats": 1}
    assert report["files"][0]["skipped"] == {"player in two seats": 1}


def test_a_site_text_seat_line_twice_is_a_skip(tmp_path: Path) -> None:
    """In a site's text, one name on two seat lines is the same skip (the parser would keep
    one seat and lose the other player)."""
    text = (FIXTURES / "pokerstars.txt").read_text()
    src = tmp_path / "ps.txt"
    src.write_text(text.replace("Seat 5: zz_top ($60 in chips)", "Seat 5: omgmuffins ($60 in "
                                                                 "chips)", 1))
    res = import_phh([str(src)], tmp_path / "run")
    assert res.skipped == {"player in two seats": 1}, res.examples
    assert res.imported == 2


def _turn(k: int, **kw: Any) -> str:
    """Hand k of a 3-handed session at T1 whose button moves 4 -> 1 -> 3 (seats 1, 3, 4)."""
    seats, names = _ORDERS[k % 3]
    kw.setdefault("stacks", _carried(k))
    return hand(str(k), hand_no=100 + k, time=f"00:{k:02d}:00", seats=seats,
                players=str(list(names)), **kw)


def test_a_button_that_did_not_move_is_counted_and_kept_adjacent(tmp_path: Path) -> None:
    """The next hand at the same table, within the pause, the same players, each starting
    with exactly what the hand before left him, the button on the SAME seat: the stacks prove
    no hand between them. It stays in the session (so that rotation fails it) and is counted
    as button_stuck; the same with other players (another table under the same name, as
    iPoker's "HandHQ") is a gap, not counted."""
    stuck = _turn(2, stacks=_carried(2, ("bob", "cid", "ann"))).replace(
        "seats = [4, 1, 3]", "seats = [3, 4, 1]").replace("['cid', 'ann', 'bob']",
                                                          "['bob', 'cid', 'ann']")
    (tmp_path / "a.phhs").write_text(_turn(0) + _turn(1) + stuck)
    run = tmp_path / "run"
    res = import_phh([str(tmp_path / "a.phhs")], run)
    assert res.imported == 3
    assert (res.tables["sessions"], res.tables["gaps"], res.tables["button_stuck"]) == (1, 0, 1)
    assert res.tables["by_venue"]["Site"]["button_stuck"] == 1
    assert [r["hand_no"] for r in rows(run)] == [0, 1, 2]
    (r,) = run_audits(run, ["rotation"]).results
    assert not r.passed and r.failures == 1
    assert "button did not move" in r.details["violations"][0]["reason"]
    # other players at a table of the same name: a new session, not a stuck button
    other = _turn(2).replace("seats = [4, 1, 3]", "seats = [3, 4, 1]").replace(
        "['cid', 'ann', 'bob']", "['dan', 'eve', 'fay']")
    (tmp_path / "a.phhs").write_text(_turn(0) + _turn(1) + other)
    res = import_phh([str(tmp_path / "a.phhs")], tmp_path / "run2")
    assert (res.tables["sessions"], res.tables["gaps"], res.tables["button_stuck"]) == (2, 1, 0)


def test_hands_not_provably_adjacent_are_never_joined(tmp_path: Path) -> None:
    """Two hands of one table a minute apart (a parser's test files: ../shared/sitetext has
    PokerStars and PartyPoker tables whose hands come from several files). Nothing but the
    table name joins them: (1) the button on the same seat, the stacks not those the first
    hand left (it was joined: rotation "button did not move", and the outcome audit "starts
    with 104.42, less than the record left him"); (2) the button moved, a player who won
    nothing starting the second with less and another with more: chips moved between players,
    which a hand does (it was joined: "starts with 1083.00, less than the record left him
    (1241.00)"). Neither is joined: a gap, counted ``missing_hands``; no rotation or outcome
    failure. The record proves only what it holds."""
    stuck = _turn(2, stacks="[10, 19.90, 30.25]").replace(
        "seats = [4, 1, 3]", "seats = [3, 4, 1]").replace("['cid', 'ann', 'bob']",
                                                          "['bob', 'cid', 'ann']")
    moved = _turn(2, stacks="[29.65, 10.15, 20.35]")  # cid (lost the hand) 0.50 less, bob more
    for name, third in (("stuck", stuck), ("moved", moved)):
        (tmp_path / f"{name}.phhs").write_text(_turn(0) + _turn(1) + third)
        run = tmp_path / name
        res = import_phh([str(tmp_path / f"{name}.phhs")], run)
        assert res.imported == 3, name
        assert (res.tables["sessions"], res.tables["gaps"], res.tables["button_stuck"],
                res.tables.get("missing_hands")) == (2, 1, 0, 1), name
        for r in run_audits(run, ["rotation", "outcome"]).results:
            assert r.passed, (name, r.name, r.details)
    # the same second hand with the stacks carried: joined (and the rotation audit judges it)
    (tmp_path / "carried.phhs").write_text(_turn(0) + _turn(1) + _turn(2))
    res = import_phh([str(tmp_path / "carried.phhs")], tmp_path / "carried")
    assert (res.tables["sessions"], res.tables.get("missing_hands")) == (1, None)


def test_the_button_stays_when_the_small_blind_left(tmp_path: Path) -> None:
    """The sites' rule (8 hands of ../shared/realhands): the small blind leaves, the button
    stays on its seat and the blinds advance: adjacent, rotation passes."""
    four = ("[0.05, 0.10, 0, 0]", "[10, 20, 30, 40]", "[1, 2, 3, 5]",
            "['ann', 'bob', 'cid', 'dan']")
    acts4 = ("['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'd dh p4 ????', 'p3 f', "
             "'p4 f', 'p1 f']")
    first = hand("0", hand_no=100, blinds=four[0], stacks=four[1], seats=four[2],
                 players=four[3], actions=acts4).replace("antes = [0, 0, 0]",
                                                          "antes = [0, 0, 0, 0]")
    # ann (seat 1, small blind) left: button stays on seat 5 (dan), bob small, cid big
    second = hand("1", hand_no=101, time="00:01:00", seats="[2, 3, 5]",
                  players="['bob', 'cid', 'dan']", stacks="[19.95, 30, 40]")
    (tmp_path / "a.phhs").write_text(first + second)
    run = tmp_path / "run"
    res = import_phh([str(tmp_path / "a.phhs")], run)
    assert res.imported == 2, res.examples
    assert (res.tables["sessions"], res.tables["button_stuck"]) == (1, 0)
    (r,) = run_audits(run, ["rotation"]).results
    assert r.passed, r.details


def test_the_certificate_names_stuck_buttons() -> None:
    """The import section says how many hands had the button not moved."""
    from reports.imports import import_section

    sec = import_section({"hands": 3, "results": []}, {"format": "holdem-import"}, (
        {"submitted": 3, "imported": 3, "skipped": {}, "tables": {
            "tables": 1, "sessions": 1, "gaps": 0, "button_stuck": 1}}, "x"))
    assert sec is not None
    assert "1 hands with the button not moved" in " ".join(sec["certified"])


@pytest.mark.skipif(not REALHANDS.is_dir(), reason="../shared/realhands is not here")
def test_realhands_tables_and_posts(tmp_path: Path) -> None:
    """On the real corpus: every post comes from a seat absent from the previous adjacent hand
    (rotation passes with the post rule), no button is stuck (the 8 hands whose button stayed
    are all the small blind leaving)."""
    run = tmp_path / "run"
    res = import_phh([str(REALHANDS)], run)
    assert res.tables["button_stuck"] == 0
    assert res.tables["sessions"] == 667, res.tables
    (r,) = run_audits(run, ["rotation"]).results
    assert r.passed, r.details


def _four(key: str, seats: str, players: str, blinds: str, *, time: str) -> str:
    """A hand of len(players) players where every one after the big blind folds."""
    n = len(players.split(","))
    acts = ", ".join([f"'d dh p{k} ????'" for k in range(1, n + 1)]
                     + [f"'p{k} f'" for k in [*range(3, n + 1), 1]])
    return hand(key, hand_no=100 + int(key), time=time, seats=seats, players=players,
                blinds=blinds, stacks="[" + ", ".join(["20"] * n) + "]",
                actions=f"[{acts}]").replace("antes = [0, 0, 0]",
                                             "antes = [" + ", ".join(["0"] * n) + "]")


def _posting(newcomer: bool) -> str:
    """Hand 0 (ann small blind at seat 1, bob, cid, dan the button at seat 6), then hand 1
    (the button on ann) with a post: by eve, new at seat 5 (``newcomer``), else a dead small
    blind by ann, who played hand 0."""
    first = _four("0", "[1, 3, 4, 6]", "['ann', 'bob', 'cid', 'dan']",
                  "[0.05, 0.10, 0, 0]", time="00:00:00")
    if newcomer:
        return first + _four("1", "[3, 4, 5, 6, 1]", "['bob', 'cid', 'eve', 'dan', 'ann']",
                             "[0.05, 0.10, -0.10, 0, 0]", time="00:01:00")
    return first + _four("1", "[3, 4, 6, 1]", "['bob', 'cid', 'dan', 'ann']",
                         "[0.05, 0.10, 0, -0.05]", time="00:01:00")


@pytest.mark.parametrize("newcomer", [True, False])
def test_a_post_only_from_a_seat_absent_before(tmp_path: Path, newcomer: bool) -> None:
    """A post (live or dead) comes from a seat that was empty in the previous adjacent hand
    (or whose big blind was skipped): a newcomer's passes; a dead blind invented for a player
    who played the previous hand 60 s earlier fails rotation naming the hand and seat."""
    (tmp_path / "a.phhs").write_text(_posting(newcomer))
    run = tmp_path / "run"
    res = import_phh([str(tmp_path / "a.phhs")], run)
    assert res.imported == 2 and res.tables["sessions"] == 1, (res.examples, res.tables)
    (r,) = run_audits(run, ["rotation"]).results
    if newcomer:
        assert r.passed, r.details
    else:
        assert not r.passed and r.failures == 1
        (v,) = r.details["violations"]
        assert v["hand_id"] == 1 and "post (dead or live blind) of " in v["reason"] \
                and "by seat 0, who played the previous hand" in v["reason"] \
                and v["reason"].endswith("the rules give 0")


def test_tables_without_seat_count_are_padded_to_their_highest_seat(tmp_path: Path) -> None:
    """A table whose record gives no ``seat_count`` has as many seats as the highest seat any of
    its hands names: its smaller hands' per-seat columns are padded with empty seats (two hole
    cards each), a not-recorded outcome stays not recorded, and its hands stay adjacent."""
    src = tmp_path / "p.phhs"
    first = hand("1", seats="[1, 3, 4]", extra="winnings = [0, 0, 0.15]").replace(
        "seat_count = 6\n", "")
    second = hand("2", hand_no=101, time="00:01:00", seats="[3, 4, 9]",
                  stacks="[9.95, 19.90, 30.25]").replace("seat_count = 6\n", "")
    other = hand("3", table="T9", hand_no=5, seats="[1, 2, 3]").replace("seat_count = 6\n", "")
    src.write_text(first + second + other)
    run = tmp_path / "run"
    res = import_phh([str(src)], run)
    assert res.imported == 3
    got = {(r["table_name"], r["site_hand"]): r for r in rows(run)}
    a, b, c = got[("T1", "100")], got[("T1", "101")], got[("T9", "5")]
    assert a["n_seats"] == b["n_seats"] == 9 and c["n_seats"] == 3
    assert a["occupied"] == [True, False, True, True] + [False] * 5
    assert a["stacks_start"] == [1005, 0, 2000, 3010] + [0] * 5
    assert a["players"] == ["ann", "", "bob", "cid"] + [""] * 5
    assert a["hole_cards"] == [-1] * 18 and a["policy"] == [-1] * 9
    assert a["op_winnings"] == [0, 0, 0, 15] + [0] * 5
    assert b["op_winnings"] == [] and b["op_finishing"] == []
    assert a["table_id"] == b["table_id"] != c["table_id"] and b["hand_no"] == a["hand_no"] + 1


def test_a_hand_read_twice_is_kept_once_and_a_conflicting_copy_is_not_certified(
        tmp_path: Path) -> None:
    """An export that repeats its hands (one file twice, or hands repeated in a file) imports
    each site hand once, the copies counted "repeated hand" (no hand paid twice, no button
    "not moved"); two copies of one site hand that differ in a fact are both dropped, counted
    "stated twice"."""
    text = (Path(__file__).resolve().parents[1] / "fixtures" / "sitetext"
            / "pokerstars.txt").read_text()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.txt").write_text(text)
    (tmp_path / "src" / "b.txt").write_text(text)
    res = import_phh([str(tmp_path / "src")], tmp_path / "run", workers=0)
    assert (res.imported, res.skipped) == (3, {"repeated hand": 3}), res.skipped
    assert res.tables["gaps"] == 0 and res.tables["button_stuck"] == 0
    forged = text.replace("Seat 1: omgmuffins ($51.50 in chips)",
                          "Seat 1: omgmuffins ($61.50 in chips)")
    assert forged != text
    (tmp_path / "src" / "b.txt").write_text(forged)
    res = import_phh([str(tmp_path / "src")], tmp_path / "run2", workers=0)
    assert (res.imported, res.skipped) == (2, {"repeated hand": 2, "stated twice": 2})
