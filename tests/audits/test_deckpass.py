"""The fused deck pass counts what the battery's passes count: the same partial, the same keys in
the same order, the same re-derivation tally and the same p-values, on fair and broken decks
with blank, invalid and mis-keyed rows among them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from audits import shuffles
from audits.deckaudit import read_keys, write_keys
from audits.decklog import seed_keys
from audits.deckpass import deck_pass
from audits.keyed import check_keyed
from audits.uniformity import UniformityPartial, map_decks, uniformity_reduce
from sim.deckgen import philox_decks

SEED = 7


def _reference(decks: np.ndarray, ids: np.ndarray, seed: int | None, tmp: Path
               ) -> tuple[UniformityPartial, np.ndarray, np.ndarray]:
    """The multi-pass path: map_decks, check_keyed over every row, write_keys' grouping."""
    p = map_decks(decks, hand_id=ids, deal_as_hands=True)
    bad = np.zeros(len(decks), np.uint8)
    if seed is not None and len(decks):
        t, h = seed_keys(ids)
        check_keyed(decks, np.full(len(decks), seed, np.uint64), t, h,
                    np.ones(len(decks), np.bool_), bad)
    write_keys(tmp / "ref.npy", p)
    return p, np.array(read_keys(tmp / "ref.npy")), bad


def _broken(n: int, start: int) -> np.ndarray:
    d = philox_decks(SEED, start, n).copy()
    d[3] = 0  # a blank row (a null slot read raw): not audited
    d[10, 5] = d[10, 6]  # a repeated card
    d[11, 0] = 60  # a card code out of range
    d[[20, 21]] = d[[21, 20]]  # fair decks under the wrong keys
    d[40] = d[30]  # a duplicate deck (and a wrong key)
    d[50, [7, 8]] = d[50, [8, 7]]  # one swap: a permutation, not its key's
    return d


def _same_partial(a: UniformityPartial, b: UniformityPartial) -> None:
    assert (a.decks, a.invalid, a.invalid_examples) == (b.decks, b.invalid, b.invalid_examples)
    assert a.batch_p == b.batch_p
    for name in ("card_position", "adjacent", "consecutive", "hand_classes"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert len(a.dealt) == len(b.dealt) == 9
    for x, y in zip(a.dealt, b.dealt, strict=True):
        assert x.hands == y.hands
        for name in ("classes", "masks", "wins", "pooled_m"):
            assert np.array_equal(getattr(x, name), getattr(y, name)), name


@pytest.mark.parametrize("seed", [SEED, None])
def test_one_pass_counts_what_the_passes_count(tmp_path: Path, seed: int | None) -> None:
    start = 998_000  # hand ids across a table boundary of the keys
    decks = _broken(3_000, start)
    ids = np.arange(start, start + len(decks), dtype=np.int64)
    ref, ref_keys, bad = _reference(decks, ids, seed, tmp_path)
    got = deck_pass(decks, ids, seed)
    _same_partial(got.partial, ref)
    assert got.partial.invalid == 2 and got.partial.decks == 2_997
    assert got.keys.dtype == ref_keys.dtype and np.array_equal(got.keys, ref_keys)
    if seed is None:
        assert got.keyed_checked == 0 and got.keyed_failures == 0
    else:
        where = np.flatnonzero(bad)
        assert got.keyed_checked == len(decks)
        assert got.keyed_failures == where.size == 7  # rows 3, 10, 11, 20, 21, 40, 50
        assert got.keyed_examples == [int(ids[i]) for i in where[:len(got.keyed_examples)]]


def test_same_p_values_on_broken_shuffles(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    for name in ("fair", "asf_off_by_one", "seed32"):
        decks = shuffles.SHUFFLES[name](2_000, rng)
        decks = np.concatenate([decks, decks[:5]])  # duplicates for the collision tests
        parts_ref, parts_got = [], []
        for a in range(0, len(decks), 700):
            ids = np.arange(a, min(a + 700, len(decks)), dtype=np.int64)
            ref, ref_keys, _ = _reference(decks[ids], ids, None, tmp_path)
            got = deck_pass(decks[ids].astype(np.int8), ids, None)  # int8 codes read the same
            _same_partial(got.partial, ref)
            assert np.array_equal(got.keys, ref_keys)
            parts_ref.append(ref)
            got.partial.first_k = got.keys["first_k"].copy()
            got.partial.deck_hash = got.keys["deck_hash"].copy()
            got.partial.hand_ids = got.keys["hand_id"].copy()
            parts_got.append(got.partial)
        r = {x.name: (x.p_value, x.passed) for x in uniformity_reduce(parts_ref)}
        g = {x.name: (x.p_value, x.passed) for x in uniformity_reduce(parts_got)}
        assert g == r, name


def test_empty_and_all_blank() -> None:
    for decks in (np.zeros((0, 52), np.uint8), np.zeros((4, 52), np.uint8)):
        ids = np.arange(len(decks), dtype=np.int64)
        got = deck_pass(decks, ids, SEED)
        ref = map_decks(decks, hand_id=ids, deal_as_hands=True)
        _same_partial(got.partial, ref)
        assert got.keys.size == 0
        assert got.keyed_failures == len(decks)
