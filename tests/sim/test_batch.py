"""The simulator's batches: pinned schema, determinism, per-hand reproducibility, and internal
consistency of every logged hand (chips, carry-over, replay through the engine)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from sim.batch import simulate_batch
from sim.config import Structure
from sim.digest import hand_digests
from sim.logview.row_replay import replay_row
from sim.rng import hand_deck
from sim.runspec import RunSpec
from sim.schema import HAND_SCHEMA, decode_actions

PINNED = [
    ("run_id", "string"), ("hand_id", "int64"), ("table_id", "int64"), ("hand_no", "int32"),
    ("structure", "string"), ("format", "string"), ("generator", "string"),
    ("seed_key", "list<item: uint64>"), ("n_seats", "int8"), ("occupied", "list<item: bool>"),
    ("button", "int8"), ("sb_seat", "int8"), ("bb_seat", "int8"), ("small_blind", "int64"),
    ("big_blind", "int64"), ("ante", "int64"), ("ante_mode", "int8"), ("ante_trimming", "bool"),
    ("min_bet", "int64"), ("small_bet", "int64"), ("big_bet", "int64"), ("raise_cap", "int8"),
    ("rake_bps", "int32"), ("rake_cap", "int64"), ("no_flop_no_drop", "bool"),
    ("level", "int16"), ("deck", "fixed_size_binary[52]"), ("hole_cards", "list<item: int8>"),
    ("burns", "list<item: int8>"), ("board", "list<item: int8>"), ("policy", "list<item: int8>"),
    ("player_ids", "list<item: int64>"),
    ("stacks_start", "list<item: int64>"), ("rebuys", "list<item: int64>"),
    ("stacks_end", "list<item: int64>"), ("contributed", "list<item: int64>"),
    ("returned", "list<item: int64>"), ("won", "list<item: int64>"),
    ("folded", "list<item: bool>"), ("timed_out", "list<item: bool>"), ("rake", "int64"),
    ("actions", "binary"), ("showdown_seats", "list<item: int8>"),
    ("showdown_shown", "list<item: bool>"), ("showdown_ranks", "list<item: int32>"),
    ("pots", "list<item: struct<amount: int64, rake: int64, eligible_mask: uint16, "
             "winners_mask: uint16>>"),
    ("fault", "string"),
    ("digest", "uint64"),
]


def test_schema_is_pinned() -> None:
    assert [(f.name, str(f.type)) for f in HAND_SCHEMA] == PINNED
    assert all(f.metadata and f.metadata[b"doc"] for f in HAND_SCHEMA)


@pytest.fixture(scope="module", params=[("cash", s) for s in Structure]
                + [("tournament", Structure.NO_LIMIT), ("tournament", Structure.FIXED_LIMIT)])
def batch(request: pytest.FixtureRequest) -> tuple[RunSpec, pa.Table]:
    fmt, structure = request.param
    spec = RunSpec(hands=3000, structures=(structure,), format=fmt, seed=7, batch_size=1500,
                   players=6)
    return spec, simulate_batch(spec, structure, 1).table


def test_batches_are_deterministic(batch: tuple[RunSpec, pa.Table]) -> None:
    spec, table = batch
    again = simulate_batch(spec, spec.structures[0], 1).table
    assert again.equals(table)
    other = simulate_batch(spec, spec.structures[0], 0).table
    assert not other.column("deck").equals(table.column("deck"))
    # batches reuse their work buffers: a table made earlier must not see later batches
    for t in (table, again, other):
        assert np.array_equal(hand_digests(t), t.column("digest").to_numpy())


def test_every_deck_is_reproducible_alone(batch: tuple[RunSpec, pa.Table]) -> None:
    _, table = batch
    for row in table.slice(0, 50).to_pylist():
        seed, table_id, hand_no = row["seed_key"]
        assert np.frombuffer(row["deck"], np.int8).tolist() == hand_deck(
            seed, table_id, hand_no).tolist()


def test_chips_are_conserved_and_carried(batch: tuple[RunSpec, pa.Table]) -> None:
    _, table = batch
    rows = table.to_pylist()
    prev_by_table: dict[int, dict] = {}
    for r in rows:
        assert sum(r["stacks_start"]) == sum(r["stacks_end"]) + r["rake"]
        for s in range(r["n_seats"]):
            assert r["stacks_end"][s] == r["stacks_start"][s] - r["contributed"][s] + r["won"][s]
            assert r["stacks_end"][s] >= 0
        prev = prev_by_table.get(r["table_id"])
        if prev is not None:
            assert r["hand_no"] == prev["hand_no"] + 1
            for s in range(r["n_seats"]):
                if r["occupied"][s] and prev["occupied"][s]:
                    assert r["stacks_start"][s] == prev["stacks_end"][s] + r["rebuys"][s]
                elif r["occupied"][s]:
                    assert r["stacks_start"][s] == r["rebuys"][s]  # a new player's buy-in
        prev_by_table[r["table_id"]] = r


def _check_player_ids(rows: list[dict]) -> int:
    """The documented rule: a new id (16 * hand_id + seat) exactly at a table's first hand or
    where the seat was empty in the table's previous hand, else the previous hand's id; -1 for
    an empty seat. Returns how many players sat down after a table's first hand."""
    prev_by_table: dict[int, dict] = {}
    owner: dict[int, tuple[int, int]] = {}
    arrivals = 0
    for r in rows:
        prev = prev_by_table.get(r["table_id"])
        for s in range(r["n_seats"]):
            pid = r["player_ids"][s]
            if not r["occupied"][s]:
                assert pid == -1
            elif prev is None or not prev["occupied"][s]:
                assert pid == 16 * r["hand_id"] + s, (r["hand_id"], s)
                assert owner.setdefault(pid, (r["table_id"], s)) == (r["table_id"], s)
                arrivals += prev is not None
            else:
                assert pid == prev["player_ids"][s]
        prev_by_table[r["table_id"]] = r
    return arrivals


def test_player_ids_follow_the_seat_history(batch: tuple[RunSpec, pa.Table]) -> None:
    _check_player_ids(batch[1].to_pylist())


def test_new_players_get_new_ids_and_rebuyers_keep_theirs() -> None:
    spec = RunSpec(hands=6000, seed=5, batch_size=6000, format="cash", players=6,
                   leave_ppm=20_000)
    rows = simulate_batch(spec, Structure.NO_LIMIT, 0).table.to_pylist()
    assert _check_player_ids(rows) > 20
    rebuys_kept = sum(1 for a, b in zip(rows, rows[1:], strict=False)
                      if a["table_id"] == b["table_id"]
                      for s in range(6) if a["occupied"][s] and a["stacks_end"][s] == 0
                      and b["occupied"][s] and b["player_ids"][s] == a["player_ids"][s])
    assert rebuys_kept > 0


def test_every_logged_hand_replays_through_the_engine(batch: tuple[RunSpec, pa.Table]) -> None:
    _, table = batch
    for row in table.slice(0, 400).to_pylist():
        hand = replay_row(row)  # raises unless stacks, rake and board match
        assert hand.is_complete


def test_hands_with_a_player_who_left_replay_to_their_logged_result() -> None:
    """The population disconnects players mid-hand (LEAVE, at a quarter of the timeout rate):
    those hands are logged with the leave and the return of the leaver's uncovered bet, his
    hand is dead (folded, nothing won), and each replays through the engine to its result."""
    from sim.layout import EventKind

    spec = RunSpec(hands=4000, seed=3, batch_size=4000, timeout_ppm=20_000)
    res = simulate_batch(spec, Structure.NO_LIMIT, 0)
    left = 0
    returned = 0
    for row in res.table.to_pylist():
        recs = decode_actions(row["actions"])
        at = [j for j, k in enumerate(recs["kind"]) if k == EventKind.LEAVE]
        if not at:
            continue
        left += 1
        (j,) = at  # at most one a hand
        seat = int(recs["seat"][j])
        assert row["folded"][seat] and row["won"][seat] == 0
        if j + 1 < len(recs) and recs["kind"][j + 1] == EventKind.RETURN_UNCALLED \
                and recs["seat"][j + 1] == seat:
            returned += 1
        replay_row(row)  # raises unless stacks, rake and board match
    assert left == res.counts["disconnects"] > 20 and returned > 0


def test_tournament_big_blind_advances_to_next_live_player() -> None:
    spec = RunSpec(hands=4000, format="tournament", seed=3, batch_size=4000, players=6)
    rows = simulate_batch(spec, Structure.NO_LIMIT, 0).table.to_pylist()
    prev = None
    dead_sb = hu = 0
    for r in rows:
        live = [s for s in range(6) if r["occupied"][s]]
        if prev is not None and prev["table_id"] == r["table_id"]:
            nxt = [(prev["bb_seat"] + i) % 6 for i in range(1, 7)]
            assert r["bb_seat"] == next(s for s in nxt if r["occupied"][s])
            if len(live) == 2:
                hu += 1
                assert r["button"] == r["sb_seat"] != r["bb_seat"]
            else:
                assert r["sb_seat"] in (prev["bb_seat"], -1)
                dead_sb += r["sb_seat"] == -1
        prev = r
    assert dead_sb > 0 and hu > 0


def test_actions_decode_and_counts_cover_rare_paths() -> None:
    spec = RunSpec(hands=5000, seed=11, batch_size=5000)
    res = simulate_batch(spec, Structure.NO_LIMIT, 0)
    recs = decode_actions(res.table.column("actions")[0].as_py())
    assert recs["kind"][0] in (0, 1)  # an ante or the small blind comes first
    for name in ("side_pots_3_or_more", "split_pots_odd_chips", "short_all_in_not_reopened",
                 "rake_cap_hit", "timeouts", "uncalled_returns", "rebuys"):
        assert res.counts[name] > 0, name


def test_chacha20_block_matches_rfc_8439() -> None:
    from sim.chacha import CHACHA_SIZE, chacha20_block

    cs = np.zeros(CHACHA_SIZE, dtype=np.int64)
    cs[:8] = np.frombuffer(bytes(range(32)), dtype="<u4")
    cs[8:11] = np.frombuffer(bytes.fromhex("000000090000004a00000000"), dtype="<u4")
    cs[11] = 1
    chacha20_block(cs)
    out = cs[12:28].astype("<u4").tobytes()
    assert out.hex().startswith("10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e")


def test_os_chacha20_decks_are_fresh_permutations() -> None:
    spec = RunSpec(hands=500, batch_size=500, generator="os-chacha20")
    a = simulate_batch(spec, Structure.NO_LIMIT, 0).table
    b = simulate_batch(spec, Structure.NO_LIMIT, 0).table
    assert not a.column("deck").equals(b.column("deck"))  # a new OS key every batch
    for value in a.column("deck").to_pylist()[:100]:
        assert sorted(np.frombuffer(value, np.int8).tolist()) == list(range(52))
    for row in a.slice(0, 100).to_pylist():
        replay_row(row)
