"""The audits' fast paths agree with their plain references: the prime-product 7-card evaluator
with the 21-subset scorer and with the engine's evaluator (a different algorithm), the one-pass
action decoder with numpy's structured view, booleans unpacked from their bitmap and string
columns taken as the dictionaries they are read as with arrow's own conversions, and chunked
reading (cut only between tables) with reading the whole file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from audits import io
from audits.evaluator import N_RANK_MULTISETS, eval7_brute_many, eval7_many
from audits.runfolder import batch_relpath, list_batch_files
from audits.runner import run_audits
from sim.batch import simulate_batch
from sim.config import Structure
from sim.runspec import RunSpec


def _random_hands(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1)[:, :7].astype(np.int64)


def _flushy_hands(n: int, seed: int) -> np.ndarray:
    """7 cards from two suits only: most hands hold 5, 6 or 7 cards of one suit."""
    rng = np.random.default_rng(seed)
    idx = np.argsort(rng.random((n, 26)), axis=1)[:, :7]
    return ((idx // 2) * 4 + (idx % 2) * 3).astype(np.int64)


def test_rank_multiset_table_is_complete() -> None:
    assert N_RANK_MULTISETS == 49205  # multisets of 7 of 13 ranks, each rank at most 4 times


def test_fast_evaluator_equals_the_21_subset_reference() -> None:
    hands = np.concatenate([_random_hands(200_000, 11), _flushy_hands(100_000, 12)])
    assert np.array_equal(eval7_many(hands), eval7_brute_many(hands))
    # every card order gives the same score
    perm = np.random.default_rng(13).permuted(hands[:50_000], axis=1)
    assert np.array_equal(eval7_many(perm), eval7_many(hands[:50_000]))


def test_fast_evaluator_orders_hands_like_the_engine() -> None:
    from sim.evaluator import evaluate_many  # a second opinion from a different algorithm

    hands = np.concatenate([_random_hands(300_000, 21), _flushy_hands(100_000, 22)])
    mine = eval7_many(hands)
    ref = np.asarray(evaluate_many(hands.astype(np.int8)))
    o = np.argsort(mine, kind="stable")
    dm, dr = np.diff(mine[o]), np.diff(ref[o])
    assert (dr[dm > 0] > 0).all() and (dr[dm == 0] == 0).all()
    assert len(np.unique(mine >> 20)) == 9  # every category seen


def test_action_decoder_matches_numpy_view() -> None:
    rng = np.random.default_rng(5)
    rec = np.zeros(1001, io.ACTION_DTYPE)
    for f in io.ACTION_DTYPE.names:
        info = np.iinfo(io.ACTION_DTYPE[f])
        rec[f] = rng.integers(info.min, info.max, len(rec), dtype=io.ACTION_DTYPE[f])
    raw = np.frombuffer(rec.tobytes(), np.uint8)
    for lo in (0, 19, 38 * 7):  # offsets into the buffer: unaligned starts
        out = io.decode_actions(raw[lo:])
        for f in io.ACTION_DTYPE.names:
            assert np.array_equal(out[f], rec[f][lo // 19:]), f
    assert all(len(v) == 0 for v in io.decode_actions(np.zeros(0, np.uint8)).values())


def test_bitmap_booleans_equal_arrow_conversion() -> None:
    rng = np.random.default_rng(3)
    arr = pa.array(rng.random(1000) < 0.3)
    for lo, n in ((0, 1000), (1, 999), (7, 9), (13, 1), (8, 0), (995, 5)):
        part = arr.slice(lo, n)
        got = io._values(part)
        assert got.dtype == np.bool_ and np.array_equal(got, part.to_numpy(zero_copy_only=False))
    lists = pa.array([[True, False, True], [False, False, True], [True, True, False]])
    values, off = io._list_parts(lists.slice(1))
    assert values.tolist() == [False, False, True, True, True, False] and off.tolist() == [0, 3, 6]
    with_null = pa.array([True, None, False])  # nulls: arrow's objects, as before
    assert io._values(with_null).tolist() == [True, None, False]


def test_string_codes_equal_dictionary_encode() -> None:
    def plain(arr: pa.Array) -> tuple[list, list]:
        enc = arr.dictionary_encode()
        return (enc.indices.to_numpy(zero_copy_only=False).tolist(), enc.dictionary.to_pylist())

    cases = [pa.array(["b", "a", "b"]), pa.array(["x"] * 4), pa.array(["a", None, "a"])]
    for arr in cases:
        for read in (arr, arr.dictionary_encode()):
            codes, values = io._string_codes(read)
            ref_codes, ref_values = plain(arr)
            assert np.array_equal(codes, ref_codes, equal_nan=True) and \
                values.tolist() == ref_values, (arr, read.type)
    # a dictionary as read with a value no row of this slice holds, or out of first-seen order
    loose = pa.DictionaryArray.from_arrays(pa.array([1, 1, 2], pa.int32()),
                                           pa.array(["a", "b", "c"]))
    codes, values = io._string_codes(loose)
    assert codes.tolist() == [0, 0, 1] and values.tolist() == ["b", "c"]
    # recoded from the indices (no per-row strings): a dictionary holding a value twice, int8
    # indices; the codes are arrow's own (int32, order of first appearance)
    for dup in (pa.DictionaryArray.from_arrays(pa.array([3, 0, 2, 1, 3], pa.int8()),
                                               pa.array(["b", "a", "b", "c"])),
                pa.DictionaryArray.from_arrays(pa.array([2, 2, 0], pa.int32()),
                                               pa.array(["p", "q", "r"]))):
        codes, values = io._string_codes(dup)
        ref_codes, ref_values = plain(dup.dictionary_decode())
        assert codes.dtype == np.int32 and codes.tolist() == ref_codes
        assert values.tolist() == ref_values


def test_string_columns_read_as_dictionaries(run_dir: Path, tmp_path: Path) -> None:
    """The string columns read as dictionaries and decode as from plain strings; a file whose
    string column is missing or of another type still names it."""
    path = list_batch_files(run_dir)[0]
    pf, _ = io.open_checked(path)
    assert pa.types.is_dictionary(pf.schema_arrow.field("structure").type)
    b = io.read_batch(path)
    assert b.cols["structure_values"].tolist() == ["pot-limit"]
    assert b.cols["structure"].dtype == np.int32 and not b.cols["structure"].any()
    t = pq.read_table(path)
    bad = tmp_path / "bad.parquet"
    pq.write_table(t.drop_columns(["format"]), bad)
    with pytest.raises(io.AuditInputError, match="missing column 'format'"):
        io.read_batch(bad)
    i = t.schema.get_field_index("generator")
    pq.write_table(t.set_column(i, "generator", t.column(i).cast(pa.binary())), bad)
    with pytest.raises(io.AuditInputError, match="column 'generator' is binary, expected string"):
        io.read_batch(bad)


def test_cut_points_never_split_a_table() -> None:
    assert io._cut_points(np.array([0, 0, 1, 1, 1, 2])).tolist() == [2, 5, 6]
    # interleaved tables: 0 returns after 1, so no cut before row 4
    assert io._cut_points(np.array([0, 1, 0, 2, 3, 3])).tolist() == [3, 4, 6]
    assert io._cut_points(np.array([5, 5, 5])).tolist() == [3]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = RunSpec(hands=4000, batch_size=4000, structures=(Structure.POT_LIMIT,), seed=9,
                   hands_per_table=300)
    table = simulate_batch(spec, Structure.POT_LIMIT, 0).table
    root = tmp_path_factory.mktemp("chunked")
    path = root / batch_relpath("pot-limit", 0)
    path.parent.mkdir(parents=True)
    pq.write_table(table, path, row_group_size=1500)
    return root


def test_chunked_reading_equals_whole_file(run_dir: Path) -> None:
    path = list_batch_files(run_dir)[0]
    whole = io.read_batch(path)
    chunks = list(io.iter_batches(path, chunk_rows=700))
    assert len(chunks) > 3 and sum(b.n for b in chunks) == whole.n
    table_ids = [set(b.cols["table_id"].tolist()) for b in chunks]
    for a in range(len(table_ids)):
        for b in range(a + 1, len(table_ids)):
            assert not table_ids[a] & table_ids[b]  # a table is never split
    cat = np.concatenate
    for f in whole.act:
        assert np.array_equal(cat([b.act[f] for b in chunks]), whole.act[f])
    for f in whole.pots:
        assert np.array_equal(cat([b.pots[f] for b in chunks]), whole.pots[f])
    for f in whole.seat:
        assert np.array_equal(cat([b.seat[f] for b in chunks]), whole.seat[f])
    for f in whole.var:
        assert np.array_equal(cat([b.var[f][0] for b in chunks]), whole.var[f][0])
    assert np.array_equal(cat([b.deck for b in chunks]), whole.deck)
    assert np.array_equal(cat([b.hole for b in chunks]), whole.hole)


def test_audits_agree_chunked_or_whole(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exact = ["deal", "chips", "rotation", "payouts", "betting"]
    whole = run_audits(run_dir, exact)
    monkeypatch.setattr(io, "CHUNK_ROWS", 700)
    chunked = run_audits(run_dir, exact)
    assert whole.passed and chunked.passed
    assert [(r.name, r.hands_checked, r.failures) for r in whole.results] == \
        [(r.name, r.hands_checked, r.failures) for r in chunked.results]
    # a tampered hand is still found when reading in chunks
    path = list_batch_files(run_dir)[0]
    t = pq.read_table(path)
    won = t.column("won").to_pylist()
    row = next(i for i, w in enumerate(won) if i > 2000 and len(set(w)) >= 2)
    a = next(s for s, x in enumerate(won[row]) if x > 0)
    b = next(s for s, x in enumerate(won[row]) if x != won[row][a])
    won[row][a], won[row][b] = won[row][b], won[row][a]
    idx = t.schema.get_field_index("won")
    t = t.set_column(idx, t.schema.field(idx), pa.array(won, t.schema.field(idx).type))
    pq.write_table(t, path, row_group_size=1500)
    res = {r.name: r for r in run_audits(run_dir, ["payouts", "chips"]).results}
    assert not res["payouts"].passed
    assert t.column("hand_id")[row].as_py() in res["payouts"].example_hand_ids
