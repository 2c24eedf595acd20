"""``sim.histories.rows.compiled.rows_of_block`` makes exactly the rows
``sim.histories.rows.reference._row`` makes (+ ``Columns.table()``), as ``_import_file`` calls it,
for every hand of a block: on the real hands of ``../shared/realhands`` (skipped when absent), a
sample of ``../shared/phh`` and targeted hands (seats, antes, zones, absent fields, names)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from sim import layout as L
from sim.cards import parse_cards
from sim.histories.read.block import (
    VARIANT_CODES,
    VERB_CODES,
    HandBlock,
    Replayed,
    block_from_hands,
    replayed_from_python,
)
from sim.histories.read.phh import MAX_SCALE, PhhError, PhhHand, iter_phh_paths, read_phh, reads_phh
from sim.histories.replay.reference import replay
from sim.histories.rows.compiled import rows_of_block
from sim.histories.rows.reference import Columns, NotRepresentable, _row

SHARED = Path(__file__).resolve().parents[3].parent / "shared"
REALHANDS = SHARED / "realhands"
PHH_CORPUS = SHARED / "phh"
PHH_SAMPLE_EVERY = 50  # every 50th file of ../shared/phh (about 200 files)


def _takes(h: PhhHand, exponent: int) -> bool:
    """``block_from_hands`` takes the hand (variant, verbs, amounts at ``exponent``)."""
    if h.variant not in VARIANT_CODES or any(a.verb not in VERB_CODES for a in h.actions):
        return False
    try:
        h.in_minor_units(exponent)
    except PhhError:
        return False
    return True


@dataclasses.dataclass
class Case:
    block: HandBlock
    replayed: Replayed
    want: pa.Table
    want_mask: np.ndarray


def _case(all_hands: Sequence[PhhHand], source: str) -> Case:
    """The block of the hands a block takes (exponent: the file's finest scale), the reference
    replay, and the Python rows of those hands as ``_import_file`` makes them."""
    exponent = min(MAX_SCALE, max((h.scale for h in all_hands), default=0))
    kept = [(i, h) for i, h in enumerate(all_hands) if _takes(h, exponent)]
    hands = [h for _, h in kept]
    sections = [h.key if h.key is not None else str(i + 1) for i, h in kept]
    block = block_from_hands(hands, exponent, sections)
    replayed = replayed_from_python(hands, exponent)
    cols = Columns()
    mask = []
    for j, raw in enumerate(hands):
        phh = raw.in_minor_units(exponent)
        r = replay(phh, j)
        if r.hand is None:
            mask.append(False)
            continue
        try:
            _row(cols, r.hand, phh, raw, source, sections[j], exponent,
                 tuple(r.cards_unrecorded))
        except NotRepresentable:
            mask.append(False)
            continue
        mask.append(True)
    return Case(block, replayed, cols.table(), np.asarray(mask, np.bool_))


def _differences(got: pa.Table, want: pa.Table) -> str | None:
    """The first differing column and row, or None when the tables are equal."""
    if got.schema != want.schema:
        return f"schemas differ: {got.schema} vs {want.schema}"
    if got.num_rows != want.num_rows:
        return f"{got.num_rows} rows, expected {want.num_rows}"
    for name in want.column_names:
        a, b = got.column(name), want.column(name)
        if not a.equals(b):
            al, bl = a.to_pylist(), b.to_pylist()
            row = next((i for i, (x, y) in enumerate(zip(al, bl, strict=True)) if x != y), None)
            if row is None:
                return f"column {name}: same values, different arrays ({a.type}, {b.type})"
            return f"column {name}, row {row}: {al[row]!r}, expected {bl[row]!r}"
    return None if got.equals(want) else "tables differ"


def _check(case: Case, source: str) -> pa.Table:
    got, mask = rows_of_block(case.block, case.replayed, source)
    assert mask.dtype == np.bool_ and mask.shape == (case.block.n_hands,)
    bad = np.flatnonzero(mask != case.want_mask)
    assert not len(bad), f"{source}: mask differs at hands {bad.tolist()}"
    diff = _differences(got, case.want)
    assert diff is None, f"{source}: {diff}"
    return got


def _check_hands(hands: Sequence[PhhHand], source: str) -> tuple[pa.Table, np.ndarray]:
    case = _case(hands, source)
    got = _check(case, source)
    return got, case.want_mask


# ---------------------------------------------------------------- corpora


@pytest.mark.skipif(not REALHANDS.is_dir(), reason="../shared/realhands is absent")
def test_every_real_hand_row_equals_the_python_row() -> None:
    paths = list(iter_phh_paths([REALHANDS]))
    assert paths
    rows = 0
    for path in paths:
        pf = read_phh(path)
        got, mask = _check_hands(pf.hands, str(path))
        rows += got.num_rows
    assert rows >= 1400  # 1,416 hands: every one the Python path imports has its row here


@pytest.mark.skipif(not PHH_CORPUS.is_dir(), reason="../shared/phh is absent")
def test_a_sample_of_the_phh_corpus_rows_equal_the_python_rows() -> None:
    paths = list(iter_phh_paths([PHH_CORPUS]))[::PHH_SAMPLE_EVERY]
    assert paths
    rows = 0
    for path in paths:
        got, _ = _check_hands(read_phh(path).hands, str(path))
        rows += got.num_rows
    assert rows > len(paths) // 2


# ---------------------------------------------------------------- targeted hands

_BASE = {
    "variant": "'NT'",
    "ante_trimming_status": "false",
    "antes": "[0, 0, 0]",
    "blinds_or_straddles": "[0.50, 1, 0]",
    "min_bet": "1",
    "starting_stacks": "[100, 80.25, 120]",
    "actions": ("['d dh p1 AsKs', 'd dh p2 ????', 'd dh p3 ????', 'p3 cbr 3', 'p1 cc', 'p2 f', "
                "'d db 2c7d9h', 'p1 cc', 'p3 cbr 5', 'p1 cc', 'd db Td', 'p1 cc', 'p3 cc', "
                "'d db Jc', 'p1 cc', 'p3 cc', 'p1 sm AsKs', 'p3 sm ????']"),
}


def _section(key: str, **fields: str | None) -> str:
    doc = {**_BASE, **fields}
    lines = [f"[{key.replace(' ', '-')}]"] + [f"{k} = {v}" for k, v in doc.items() if v is not None]
    return "\n".join(lines) + "\n"


def _hands(*sections: str) -> list[PhhHand]:
    pf = reads_phh("\n".join(sections), source="targeted.phhs", many=True)
    assert not pf.skipped, [s.describe() for s in pf.skipped]
    return pf.hands


def _row_of(got: pa.Table, mask: np.ndarray, hand: int) -> dict[str, object]:
    assert mask[hand]
    return {k: v[0] for k, v in got.slice(int(mask[:hand].sum()), 1).to_pydict().items()}


def test_seats_wrap_and_empty_seats() -> None:
    hands = _hands(
        # p1 (small blind) at seat 5 of 6, the button p3 at seat 2: one wrap
        _section("wrap", seats="[5, 6, 2]", seat_count="6",
                 players="['a', 'b', 'c']", winnings="[0, 0, 7.75]",
                 finishing_stacks="[92, 79.25, 128.75]"),
        # more seats than players, no seats field: p1..p3 at seats 1..3 of 9
        _section("empty", seat_count="9"),
        # seats without seat_count: the table has the largest seat
        _section("largest", seats="[2, 4, 7]"),
    )
    got, mask = _check_hands(hands, "targeted.phhs")
    wrap = _row_of(got, mask, 0)
    assert wrap["n_seats"] == 6
    assert wrap["occupied"] == [False, True, False, False, True, True]
    assert (wrap["button"], wrap["sb_seat"], wrap["bb_seat"]) == (1, 4, 5)
    assert wrap["players"] == ["", "c", "", "", "a", "b"]
    assert wrap["op_winnings"] == [0, 775, 0, 0, 0, 0]
    assert wrap["op_finishing"] == [0, 12875, 0, 0, 9200, 7925]
    assert wrap["stacks_start"] == [0, 12000, 0, 0, 10000, 8025]
    assert wrap["hole_cards"][8:10] == parse_cards("AsKs")  # p1's AsKs at seat 5 (index 4)
    assert wrap["hole_cards"][2:4] == [-1, -1]  # p3's cards unknown to the record
    assert wrap["showdown_seats"] == [4, 1] and wrap["cards_unrecorded"][1]
    actions = np.frombuffer(wrap["actions"], [("street", "i1"), ("seat", "i1"), ("kind", "i1"),
                                              ("to", "<i8"), ("added", "<i8")])
    assert actions["seat"][:2].tolist() == [4, 5]  # the blinds on the physical seats
    assert {p["eligible_mask"] for p in wrap["pots"]} == {(1 << 4) | (1 << 1)}
    empty = _row_of(got, mask, 1)
    assert empty["n_seats"] == 9 and empty["occupied"] == [True] * 3 + [False] * 6
    assert empty["players"] == [""] * 9 and empty["op_winnings"] == []
    largest = _row_of(got, mask, 2)
    assert largest["n_seats"] == 7 and largest["button"] == 6


def test_seats_not_representable_are_left_out() -> None:
    hands = _hands(
        _section("counter-clockwise", seats="[2, 1, 3]", seat_count="6"),
        _section("eleven seats", seat_count="11"),
        _section("fine"),
    )
    got, mask = _check_hands(hands, "targeted.phhs")
    assert mask.tolist() == [False, False, True]
    assert got.column("source_section").to_pylist() == ["fine"]


def test_antes() -> None:
    hands = _hands(
        _section("every", antes="[0.25, 0.25, 0.25]"),
        _section("big blind", antes="[0, 0.50, 0]"),
        _section("mixed", antes="[0.25, 0.50, 0]"),
        _section("two", antes="[0, 0.25, 0.25]"),
        # heads-up: the replay reverses the antes (p1 the big blind posts antes[1])
        _section("heads-up", antes="[0, 0.5]", blinds_or_straddles="[0.50, 1]",
                 starting_stacks="[100, 80]",
                 actions="['d dh p1 ????', 'd dh p2 ????', 'p2 f']"),
    )
    got, mask = _check_hands(hands, "targeted.phhs")
    assert mask.tolist() == [True, True, False, False, True]
    assert got.column("ante").to_pylist() == [25, 50, 50]
    assert got.column("ante_mode").to_pylist() == [1, 2, 2]


def test_times_and_zones() -> None:
    def when(key: str, day: str, t: str, zone: str | None) -> str:
        y, m, d = day.split("-")
        return _section(key, year=y, month=str(int(m)), day=str(int(d)), time=t,
                        time_zone_abbreviation=None if zone is None else f"'{zone}'")

    hands = _hands(
        when("et winter", "2009-01-15", "12:00:00", "ET"),
        when("et summer", "2009-07-01", "12:00:00", "ET"),
        when("before dst", "2009-03-08", "01:59:59", "ET"),
        when("dst starts", "2009-03-08", "02:00:00", "ET"),
        when("dst ends", "2009-11-01", "01:59:59", "et"),
        when("after dst", "2009-11-01", "02:00:00", "ET"),
        when("gmt-0910", "2009-07-01", "00:00:30", "GMT-0910"),
        when("cest", "2009-07-01", "00:00:30", "CEST"),
        when("unknown zone", "2009-07-01", "00:00:30", "XYZ"),
        when("no zone", "2009-07-01", "00:00:30", None),
        when("old", "999-02-28", "23:59:59", "UTC"),
        _section("no time", year="2009", month="7", day="1"),
        _section("no date", time="10:00:00", time_zone_abbreviation="'ET'"),
        _section("not a date", year="2009", month="2", day="30", time="10:00:00",
                 time_zone_abbreviation="'ET'"),
    )
    got, mask = _check_hands(hands, "targeted.phhs")
    assert mask.all()
    base = 1232020800  # 2009-01-15 12:00 UTC (14,259.5 days after 1970-01-01)
    utc = got.column("time_utc").to_pylist()
    assert utc[:2] == [base + 5 * 3600, base + 167 * 86400 + 4 * 3600]
    assert utc[2] - utc[3] == 3600 - 1  # 01:59:59 EST is 06:59:59 UTC, 02:00:00 EDT 06:00:00
    assert utc[5] - utc[4] == 1 + 3600  # 01:59:59 EDT, 02:00:00 EST
    july = 1246406400 + 30  # 2009-07-01 00:00:30 UTC
    assert utc[6:10] == [july + 550 * 60, july - 120 * 60, -1, -1]
    assert utc[11:] == [-1, -1, -1]
    text = got.column("hand_time").to_pylist()
    assert text[0] == "2009-01-15T12:00:00" and text[10] == "0999-02-28T23:59:59"
    assert text[11:] == ["", "", ""]
    assert got.column("time_zone").to_pylist()[4] == "et"


def test_absent_and_written_source_fields() -> None:
    hands = _hands(
        _section("bare"),
        _section("named", players='["Zoë", "李小龙", "Ørjan \\u00e9"]', table="'''AMY'S AVE'''",
                 venue="'Ongame Network'", hand="'R5-1676558-1009'", currency="'USD'",
                 currency_symbol="'$'"),
        _section("symbol", currency_symbol="'€'", table="42", hand="1234"),
    )
    got, mask = _check_hands(hands, "targeted.phhs")
    assert mask.all()
    cols = got.to_pydict()
    assert cols["players"][0] == ["", "", ""]
    assert cols["players"][1] == ["Zoë", "李小龙", "Ørjan é"]
    assert cols["table_name"] == ["", "AMY'S AVE", "42"]
    assert cols["site_hand"] == ["", "R5-1676558-1009", "1234"]
    assert cols["currency"] == ["", "USD", "€"]
    assert cols["venue"] == ["", "Ongame Network", ""]
    assert cols["hand_time"] == ["", "", ""] and cols["time_utc"] == [-1, -1, -1]
    assert cols["op_winnings"] == [[], [], []] and cols["op_finishing"] == [[], [], []]
    assert cols["op_rake"] == [-1] * 3 and cols["op_pot"] == [-1] * 3
    assert cols["source_file"] == ["targeted.phhs"] * 3
    assert cols["source_section"] == ["bare", "named", "symbol"]
    assert cols["stack_known"][0] == [True] * 3


def test_fixed_limit_unknown_stacks_and_a_failed_replay() -> None:
    hands = _hands(
        _section("fixed", variant="'FT'", min_bet=None, small_bet="1", big_bet="2",
                 actions="['d dh p1 AsKs', 'd dh p2 ????', 'd dh p3 ????', 'p3 cbr 2', "
                         "'p1 cc', 'p2 f', 'd db 2c7d9h', 'p1 cc', 'p3 cbr 1', 'p1 cc', "
                         "'d db Td', 'p1 cc', 'p3 cc', 'd db Jc', 'p1 cc', 'p3 cc', "
                         "'p1 sm AsKs', 'p3 sm ????']"),
        _section("unknown stack", starting_stacks="[inf, 80.25, 120]"),
        _section("illegal", actions="['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', "
                                    "'p3 cbr 0.10']"),
    )
    got, mask = _check_hands(hands, "targeted.phhs")
    assert mask.tolist() == [True, True, False]
    fixed = _row_of(got, mask, 0)
    assert fixed["structure"] == "fixed-limit"
    assert (fixed["min_bet"], fixed["small_bet"], fixed["big_bet"]) == (0, 100, 200)
    assert _row_of(got, mask, 1)["stack_known"] == [False, True, True]


def test_the_comparison_sees_a_wrong_state() -> None:
    """The differential can fail: a replay state with one seat's winnings changed gives a row
    that differs in ``won`` (named with its row)."""
    case = _case(_hands(_section("a"), _section("b")), "targeted.phhs")
    state = case.replayed.state.copy()
    state[1, L.WON_ + 2] += 1
    bad = dataclasses.replace(case.replayed, state=state)
    got, _ = rows_of_block(case.block, bad, "targeted.phhs")
    want = case.want.column("won")[1].as_py()
    wrong = [*want[:2], want[2] + 1]
    assert _differences(got, case.want) == f"column won, row 1: {wrong!r}, expected {want!r}"


def test_an_empty_block_and_a_block_without_rows() -> None:
    for hands in ([], _hands(_section("illegal", actions="['d dh p1 ????', 'p3 cbr 0.10']"))):
        case = _case(hands, "targeted.phhs")
        got = _check(case, "targeted.phhs")
        assert got.num_rows == 0 and got.schema == case.want.schema
