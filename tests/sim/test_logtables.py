"""``sim.logview.logtables``: the four export tables agree, hand by hand, with the raw log they
come from, over random hands of every structure, cash and tournament, 2 to 10 seats of the default
population (side pots, uncalled returns, all-ins, heads-up and dead positions)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from sim.batch import simulate_batch
from sim.cards import format_card
from sim.config import Structure
from sim.evaluator import HandCategory
from sim.layout import EventKind
from sim.logview.logtables import (
    ACTION_LABELS,
    CATEGORY_NAMES,
    POSITION_NAMES,
    TABLE_SCHEMAS,
    LogTableError,
    build_tables,
)
from sim.runspec import DEFAULT_POPULATION, POLICY_NAMES, RunSpec
from sim.schema import decode_actions

BATCHES = 4
BATCH = 1000


def _rows_by_hand(table: pa.Table) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in table.to_pylist():
        out[r["hand_id"]].append(r)
    return out


@pytest.fixture(scope="module", params=[(f, s) for f in ("cash", "tournament") for s in Structure],
                ids=lambda p: f"{p[0]}-{p[1].label}")
def exported(request: pytest.FixtureRequest) -> tuple[pa.Table, dict[str, pa.Table]]:
    fmt, structure = request.param
    pop = {**DEFAULT_POPULATION, "format": fmt}
    spec = RunSpec(hands=BATCHES * BATCH, batch_size=BATCH, structures=(structure,), seed=29,
                   **pop)
    log = pa.concat_tables(simulate_batch(spec, structure, b).table for b in range(BATCHES))
    return log, build_tables(log)


def _dealt(row: dict[str, Any]) -> tuple[dict[int, list[int]], list[int]]:
    """Hole cards and board from the deck at the dealt positions (docs/engine.md's rules): one card
    at a time from the first occupied seat left of the button, two rounds; then a burn before
    the flop (3 cards), the turn and the river."""
    deck = np.frombuffer(row["deck"], np.int8).tolist()
    k = row["n_seats"]
    order = [(row["button"] + j) % k for j in range(1, k + 1)]
    order = [s for s in order if row["occupied"][s]]
    p = len(order)
    hole = {s: [deck[i], deck[p + i]] for i, s in enumerate(order)}
    pos = 2 * p
    board: list[int] = []
    for n_cards in (3, 1, 1):
        if len(board) >= len(row["board"]):
            break
        pos += 1  # burn
        board += deck[pos:pos + n_cards]
        pos += n_cards
    return hole, board


def test_schemas_and_metadata(exported: tuple[pa.Table, dict[str, pa.Table]]) -> None:
    _, tables = exported
    for name, t in tables.items():
        assert t.schema.equals(TABLE_SCHEMAS[name], check_metadata=True)
        for f in t.schema:
            assert f.metadata[b"unit"] and f.metadata[b"doc"], (name, f.name)


def test_every_hand_agrees_with_the_log(exported: tuple[pa.Table, dict[str, pa.Table]]) -> None:
    log, tables = exported
    hands = {r["hand_id"]: r for r in tables["hands"].to_pylist()}
    seats, actions, pots = (_rows_by_hand(tables[t]) for t in ("seats", "actions", "pots"))
    labels = {int(k): label for k, (label, _) in ACTION_LABELS.items()}
    seen: dict[str, int] = defaultdict(int)
    assert len(hands) == log.num_rows
    for row in log.to_pylist():
        hid = row["hand_id"]
        h, ss, acts, ps = hands[hid], seats[hid], actions[hid], pots[hid]
        k = row["n_seats"]
        occ = [s for s in range(k) if row["occupied"][s]]
        # hands
        assert h["pot"] == sum(row["contributed"]) == sum(a["added"] for a in acts)
        assert h["pot"] == sum(p["amount"] for p in ps)
        assert h["rake"] == row["rake"] == sum(p["rake"] for p in ps)
        assert h["n_players"] == len(occ) == len(ss)
        for c in ("structure", "format", "table_id", "hand_no", "button", "sb_seat", "bb_seat",
                  "small_blind", "big_blind", "ante", "level", "n_seats"):
            assert h[c] == row[c], c
        hole, board = _dealt(row)
        assert board == row["board"]
        assert h["board"] == " ".join(format_card(c) for c in board)
        showdown = len(row["showdown_seats"]) >= 2
        assert h["went_to_showdown"] == showdown
        street = ("showdown" if showdown else
                  {0: "preflop", 3: "flop", 4: "turn", 5: "river"}[len(board)])
        assert h["street_reached"] == street
        assert h["n_pots"] == len(row["pots"]) == len(ps)
        # pots
        for i, (p, lp) in enumerate(zip(ps, row["pots"], strict=True)):
            assert p["pot_index"] == i
            assert (p["amount"], p["rake"]) == (lp["amount"], lp["rake"])
            assert p["eligible"] == [s for s in range(k) if lp["eligible_mask"] >> s & 1]
            assert p["winners"] == [s for s in range(k) if lp["winners_mask"] >> s & 1]
        assert h["winners"] == [s for s in range(k) if row["won"][s] > 0]
        # seats
        assert sum(s["net"] for s in ss) == -row["rake"]
        shown = {s: r for s, sh, r in zip(row["showdown_seats"], row["showdown_shown"],
                                          row["showdown_ranks"], strict=True) if sh}
        assert [s["seat"] for s in ss] == occ
        for s in ss:
            j = s["seat"]
            assert s["player_id"] == row["player_ids"][j] >= 0
            assert s["policy"] == POLICY_NAMES[row["policy"][j]]
            assert s["hole"] == " ".join(format_card(c) for c in hole[j])
            assert hole[j] == row["hole_cards"][2 * j:2 * j + 2]
            assert s["stack_start"] == row["stacks_start"][j]
            assert s["contributed"] == row["contributed"][j]
            assert s["won"] == row["won"][j]
            assert s["net"] == s["won"] - s["contributed"]
            assert s["stack_end"] == row["stacks_end"][j]
            assert s["folded"] == row["folded"][j]
            assert s["showed"] == (j in shown)
            assert s["hand_category"] == (
                CATEGORY_NAMES[HandCategory(shown[j] >> 20)] if j in shown else None)
        pos = {s["seat"]: s["position"] for s in ss}
        assert len(set(pos.values())) == len(pos) and set(pos.values()) <= set(POSITION_NAMES)
        assert pos[row["bb_seat"]] == "BB"
        if len(occ) == 2:
            assert pos[row["button"]] == "BTN/SB"
            seen["heads-up"] += 1
        else:
            if row["button"] in pos:
                assert pos[row["button"]] == "BTN"
            else:
                seen["dead button"] += 1
            if row["sb_seat"] >= 0:
                assert pos[row["sb_seat"]] == "SB"
            others = [pos[s] for s in occ if s not in (row["button"], row["sb_seat"],
                                                       row["bb_seat"])]
            assert ("UTG" in others) == bool(others)
        # actions
        recs = decode_actions(row["actions"])
        assert len(acts) == len(recs)
        left = {s: row["stacks_start"][s] for s in occ}
        for i, (a, r) in enumerate(zip(acts, recs, strict=True)):
            assert a["seq"] == i and a["seat"] == r["seat"]
            assert a["action"] == labels[int(r["kind"])]
            assert a["street"] == ("preflop", "flop", "turn", "river")[r["street"]]
            assert a["to_street_total"] == r["to_street_total"]
            ret = r["kind"] == EventKind.RETURN_UNCALLED
            assert a["added"] == (-r["added"] if ret else r["added"])
            left[a["seat"]] -= a["added"]
            assert a["all_in"] == (a["added"] > 0 and left[a["seat"]] == 0)
            seen["return"] += ret
            seen["all-in"] += a["all_in"]
        seen["side pots"] += len(ps) >= 2
        seen["showdown"] += showdown
    for what in ("heads-up", "return", "all-in", "side pots", "showdown"):
        assert seen[what] > 0, what


def test_a_broken_log_is_named() -> None:
    spec = RunSpec(hands=50, batch_size=50)
    log = simulate_batch(spec, Structure.NO_LIMIT, 0).table
    with pytest.raises(LogTableError, match="player_ids"):
        build_tables(log.drop_columns(["player_ids"]))
    with pytest.raises(LogTableError, match="'pots'"):
        build_tables(log.drop_columns(["pots"]))
    bad = log.set_column(log.schema.get_field_index("actions"), "actions",
                         pa.array([b"\x00" * 5] * log.num_rows, pa.binary()))
    with pytest.raises(LogTableError, match="19-byte records"):
        build_tables(bad)
    empty = build_tables(log.slice(0, 0))
    assert all(t.num_rows == 0 for t in empty.values())
    sliced = build_tables(log.slice(10, 5))  # a slice of a table: offsets respected
    assert sliced["hands"].column("hand_id").to_pylist() == log.column("hand_id").to_pylist()[
        10:15]


def test_a_zero_chip_pot_has_a_winner_who_won_no_chips() -> None:
    """A dead small blind, no ante, every player folding to the big blind: the big blind's bet
    comes back, the logged pot has amount 0 and a winner. ``pots.winners`` names the seat
    awarded it; ``hands.winners`` (seats that won chips) does not."""
    spec = RunSpec(hands=BATCHES * BATCH, batch_size=BATCH, structures=(Structure.NO_LIMIT,),
                   seed=29, **{**DEFAULT_POPULATION, "format": "tournament"})
    log = pa.concat_tables(simulate_batch(spec, Structure.NO_LIMIT, b).table
                           for b in range(BATCHES))
    rows = [r for r in log.to_pylist()
            if r["sb_seat"] < 0 and any(p["amount"] == 0 for p in r["pots"])]
    assert rows, "no 0-chip pot in this run: pick another seed"
    ids = {r["hand_id"] for r in rows}
    tables = build_tables(log.filter(pa.compute.is_in(log["hand_id"],
                                                      pa.array(sorted(ids), pa.int64()))))
    hands = {r["hand_id"]: r for r in tables["hands"].to_pylist()}
    pots = _rows_by_hand(tables["pots"])
    for r in rows:
        zero = [p for p in pots[r["hand_id"]] if p["amount"] == 0]
        assert zero and all(p["winners"] == [r["bb_seat"]] for p in zero)
        assert all(w == 0 for w in r["won"])
        assert hands[r["hand_id"]]["winners"] == []


def test_no_code_table_of_the_readme_has_an_empty_code_column() -> None:
    from sim.logview.logtables import describe_codes

    for line in describe_codes().splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            assert line.strip("|").split("|")[0].strip(), line  # a code, or no code column


def test_unknown_hole_cards_are_documented_as_they_are_written() -> None:
    from sim.logview.logtables import HOLE_NAMES

    unknown = HOLE_NAMES[0]  # both cards -1: index (-1 + 1) * 53 + (-1 + 1)
    assert unknown == "?? ??"
    assert f'"{unknown}" when unknown' in TABLE_SCHEMAS["seats"].field("hole").metadata[
        b"doc"].decode()
