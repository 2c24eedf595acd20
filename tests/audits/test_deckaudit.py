"""The shuffle certificate's deck audit: batches folded on the driver and collision keys reduced
range by range give the battery's own results, whatever the memory; bad decks and keys fail."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from audits import shuffles
from audits.deckaudit import DeckTally, audit_batch, reduce_tally
from audits.decklog import DeckFileError, iter_deck_file, write_csv
from audits.keyed import derive_deck
from audits.uniformity import map_decks, uniformity_reduce


def _tally(decks: np.ndarray, tmp: Path, seed: int | None, batch: int) -> DeckTally:
    t = DeckTally()
    for i, a in enumerate(range(0, len(decks), batch)):
        ids = np.arange(a, min(a + batch, len(decks)))
        t.add(audit_batch(decks[ids], ids, seed, tmp / f"k{i}.npy"))
    return t


def _by_name(results: list) -> dict:
    return {r.name: r for r in results}


@pytest.mark.parametrize("memory", [1 << 30, 3_000])
def test_same_results_as_the_battery(tmp_path: Path, memory: int) -> None:
    rng = np.random.default_rng(5)
    decks = shuffles.fair_fisher_yates(6_000, rng)
    decks[4000] = decks[17]  # one duplicate deck
    decks[5000, :9] = decks[99, :9]  # and a first-9 collision (rest fixed up to a permutation)
    rest = [c for c in range(52) if c not in set(decks[5000, :9])]
    decks[5000, 9:] = rng.permutation(rest)
    ours = _by_name(reduce_tally(_tally(decks, tmp_path, None, 1000), memory, keyed=False))
    ref = _by_name(uniformity_reduce([map_decks(decks[a:a + 1000],
                                                hand_id=np.arange(a, a + 1000),
                                                deal_as_hands=True)
                                      for a in range(0, 6000, 1000)]))
    for name, r in ref.items():
        assert ours[name].p_value == pytest.approx(r.p_value, rel=1e-9, abs=1e-300), name
        assert ours[name].passed == r.passed
    assert ours["uniformity.duplicate_decks"].details["pairs"] == 1
    assert ours["uniformity.first_k_collisions"].details["pairs"] == 2
    assert not ours["uniformity"].passed
    assert ours["uniformity"].details["key_ranges"] == (1 if memory > 1e6 else 68)
    assert not ours["rederivation"].applicable


def test_rederivation_binds_decks_to_keys(tmp_path: Path) -> None:
    decks = np.stack([derive_deck(9, d // 1000, d % 1000) for d in range(990, 1010)]
                     ).astype(np.uint8)
    ids = np.arange(990, 1010)
    ok = audit_batch(decks, ids, 9, tmp_path / "a.npy")
    assert ok.keyed_checked == 20 and ok.keyed_failures == 0
    swapped = decks.copy()
    swapped[[3, 4]] = swapped[[4, 3]]  # fair decks, wrong keys
    bad = audit_batch(swapped, ids, 9, tmp_path / "b.npy")
    assert bad.keyed_failures == 2 and bad.keyed_examples == [993, 994]


def test_deck_files_csv_codes_cards_and_errors(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    decks = shuffles.fair_fisher_yates(50, np.random.default_rng(1))
    write_csv(decks, tmp_path / "codes.csv")
    write_csv(decks, tmp_path / "cards.csv", cards=True)
    pq.write_table(pa.table({"deck": pa.array([bytes(r) for r in decks], pa.binary(52))}),
                   tmp_path / "d.parquet")
    pq.write_table(pa.table({"deck": [list(map(int, r)) for r in decks]}), tmp_path / "l.parquet")
    (tmp_path / "strings.csv").write_text(
        "deck\n" + "\n".join(" ".join("23456789TJQKA"[c >> 2] + "cdhs"[c & 3] for c in r)
                             for r in decks) + "\n")
    for name in ("codes.csv", "cards.csv", "d.parquet", "l.parquet", "strings.csv"):
        got = np.concatenate(list(iter_deck_file(tmp_path / name)))
        assert (got == decks).all(), name
    bad = decks.copy()
    bad[7, 3] = bad[7, 4]
    write_csv(bad, tmp_path / "dup.csv")
    with pytest.raises(DeckFileError, match=r"dup.csv: row 8: card .* appears twice"):
        list(iter_deck_file(tmp_path / "dup.csv"))
    (tmp_path / "short.csv").write_text("\n".join(",".join(map(str, r)) for r in decks[:3])
                                        + "\n" + ",".join(map(str, range(51))) + "\n")
    with pytest.raises(DeckFileError, match=r"short.csv: row 4: expected 52 cards, found 51"):
        list(iter_deck_file(tmp_path / "short.csv"))
    cards = [["23456789TJQKA"[c >> 2] + "cdhs"[c & 3] for c in r] for r in decks[:2]]
    cards[1][5] = "Xx"
    cards[0][7] = "1x"  # a bad first row is a bad row, not a header
    (tmp_path / "unk2.csv").write_text("\n".join(",".join(r) for r in cards) + "\n")
    with pytest.raises(DeckFileError, match=r"unk2.csv: row 1: unknown card '1x'"):
        list(iter_deck_file(tmp_path / "unk2.csv"))
