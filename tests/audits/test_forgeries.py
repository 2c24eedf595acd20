"""Forgeries made the way an attacker would make them (tests/audits/forgery.py: every column of
the hand rewritten together by replaying it through the engine, row digests recomputed, the
manifest's sha256, bytes and rows restamped) are caught by ``holdem audit`` with exit 1 and the
hand named, because the audits check the log against primary facts: each deck against its key,
``folded`` against the action log, every live hand at showdown from its cards."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cluster.cli import main
from cluster.flows.simulate import run_simulate
from sim.config import Structure
from sim.runspec import RunSpec
from tests.audits.forgery import (
    RunForger,
    audit_cli,
    copy_run,
    deck_of,
    live_seats,
    move_won,
    replay_with_deck,
    simulated_run,
    swap_hole_cards,
    winners,
)

# short cash tables: many tables' last hands, where a forged result is not carried into a later
# hand's starting stacks (the only place an attacker could not rewrite consistently)
SPEC = RunSpec(hands=6000, batch_size=3000, structures=(Structure.NO_LIMIT,), seed=31,
               hands_per_table=5)


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return simulated_run(tmp_path_factory, SPEC, "forge")


@pytest.fixture()
def run(clean_run: Path, tmp_path: Path) -> Path:
    return copy_run(clean_run, tmp_path)


def assert_caught(run: Path, capsys: pytest.CaptureFixture[str], audit: str,
                  *hand_ids: int) -> str:
    code, out = audit_cli(run, capsys)
    assert code == 1, out
    for h in hand_ids:
        assert f"{audit}: hand {h}:" in out, out
    return out


def test_clean_run_passes(clean_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = audit_cli(clean_run, capsys)
    assert code == 0, out


def _showdown_hand(f: RunForger, live: int = 2, single_pot: bool = True,
                   rows: list[int] | None = None) -> int:
    def ok(r: dict) -> bool:
        return (len(r["showdown_seats"]) == live and len(live_seats(r)) == live
                and (not single_pot or len(r["pots"]) == 1) and len(winners(r)) == 1)
    return f.find(ok, f.last_hands() if rows is None else rows)


def test_another_player_wins_the_tables_last_hand(run: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Deck, hole cards, burns, board, showdown, ranks, pots, won and stacks_end rewritten so
    that the loser wins: every column agrees, only the deck is not its key's."""
    f = RunForger(run)
    i = _showdown_hand(f)
    row = f.rows[i]
    (w,), loser = winners(row), [s for s in live_seats(row) if s not in winners(row)][0]
    forged = replay_with_deck(row, swap_hole_cards(row, w, loser))
    assert forged["won"][loser] > 0 and forged["won"][w] == 0  # the other player wins now
    f.rows[i] = forged
    f.write()
    out = assert_caught(run, capsys, "deal", row["hand_id"])
    assert "not the deck of its seed_key" in out


def test_best_hand_mucked_and_paid_to_the_loser(run: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    f = RunForger(run)
    i = _showdown_hand(f)
    row = dict(f.rows[i])
    (w,) = winners(row)
    loser = next(s for s in live_seats(row) if s != w)
    j = row["showdown_seats"].index(w)
    row["showdown_shown"] = [False if q == j else v for q, v in enumerate(row["showdown_shown"])]
    row["showdown_ranks"] = [-1 if q == j else v for q, v in enumerate(row["showdown_ranks"])]
    row["pots"] = [{**p, "winners_mask": 1 << loser} for p in row["pots"]]
    move_won(row, w, loser, row["won"][w])
    f.rows[i] = row
    f.write()
    out = assert_caught(run, capsys, "payouts", row["hand_id"])
    assert "illegal muck" in out


def test_decks_nulled_and_a_losers_cards_swapped_for_winning_ones(
        run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = RunForger(run)
    i = _showdown_hand(f)
    row = f.rows[i]
    (w,) = winners(row)
    loser = next(s for s in live_seats(row) if s != w)
    f.rows[i] = replay_with_deck(row, swap_hole_cards(row, w, loser))
    for r in f.rows:
        r["deck"] = None
    f.write(nullable_deck=True)
    out = assert_caught(run, capsys, "deal", f.rows[0]["hand_id"])
    assert "no deck logged in a simulated run" in out
    assert "deal         FAIL" in out


def test_folded_without_a_fold_action(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A live loser marked folded, dropped from the showdown and from every pot's eligible
    players: pots, showdown and chips agree; the action log never folds him."""
    f = RunForger(run)
    i = f.find(lambda r: len(r["showdown_seats"]) >= 3 and len(winners(r)) == 1
               and len(live_seats(r)) == len(r["showdown_seats"]))
    row = dict(f.rows[i])
    (w,) = winners(row)
    victim = next(s for s in row["showdown_seats"] if s != w)
    j = row["showdown_seats"].index(victim)
    row["folded"] = [True if s == victim else v for s, v in enumerate(row["folded"])]
    for col in ("showdown_seats", "showdown_shown", "showdown_ranks"):
        row[col] = [v for q, v in enumerate(row[col]) if q != j]
    row["pots"] = [{**p, "eligible_mask": p["eligible_mask"] & ~(1 << victim)}
                   for p in row["pots"]]
    f.rows[i] = row
    f.write()
    out = assert_caught(run, capsys, "betting", row["hand_id"])
    assert "folded column disagrees with the action log" in out


def test_two_hands_decks_swapped(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = RunForger(run)
    last = f.last_hands()
    a = f.find(lambda r: len(r["board"]) == 5, last)
    b = f.find(lambda r: len(r["board"]) == 5
               and r["occupied"] == f.rows[a]["occupied"] and r is not f.rows[a],
               [x for x in last if x != a])
    da, db = deck_of(f.rows[a]), deck_of(f.rows[b])
    f.rows[a], f.rows[b] = replay_with_deck(f.rows[a], db), replay_with_deck(f.rows[b], da)
    f.write()
    assert_caught(run, capsys, "deal", f.rows[a]["hand_id"], f.rows[b]["hand_id"])


def test_a_fair_permutation_that_is_not_the_keys(run: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    f = RunForger(run)
    i = f.last_hands()[3]
    f.rows[i] = replay_with_deck(f.rows[i], np.random.default_rng(5).permutation(52))
    f.write()
    assert_caught(run, capsys, "deal", f.rows[i]["hand_id"])


def test_pot_split_among_wrong_eligible_players_sums_preserved(
        run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = RunForger(run)
    i = _showdown_hand(f)
    row = dict(f.rows[i])
    (w,) = winners(row)
    other = next(s for s in live_seats(row) if s != w)
    pot = row["pots"][0]
    assert pot["eligible_mask"] & (1 << other)
    row["pots"] = [{**pot, "winners_mask": (1 << w) | (1 << other)}]
    move_won(row, w, other, row["won"][w] // 2)
    f.rows[i] = row
    f.write()
    assert sum(row["won"]) + row["rake"] == sum(row["contributed"])
    assert_caught(run, capsys, "payouts", row["hand_id"])


def test_odd_chip_moved_in_a_tables_last_hand(run: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    f = RunForger(run)

    def odd_split(r: dict) -> bool:
        wins = sorted(winners(r))
        return len(r["pots"]) == 1 and len(wins) == 2 and r["won"][wins[0]] != r["won"][wins[1]]
    i = f.find(odd_split, f.last_hands())
    row = dict(f.rows[i])
    a, b = sorted(winners(row), key=lambda s: -row["won"][s])  # a holds the odd chip
    move_won(row, a, b, 1)
    f.rows[i] = row
    f.write()
    out = assert_caught(run, capsys, "payouts", row["hand_id"])
    # the amounts: the log's payout of the seat beside the rules'
    assert (f"seat {b} won {row['won'][b]}, the rules give {row['won'][b] - 1}" in out
            or f"seat {a} won {row['won'][a]}, the rules give {row['won'][a] + 1}" in out)


def test_os_chacha20_decks_are_unkeyed_and_the_certificate_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Decks from the operating system's entropy cannot be bound to a key: the deal audit
    counts them as unkeyed (and still checks the rest), the certificate says so in words."""
    import json

    spec = RunSpec(hands=400, batch_size=400, generator="os-chacha20", seed=3)
    root = tmp_path / "chacha"
    run_simulate(spec, root, workers=0, progress=False)
    # fresh entropy: the uniformity battery may fail such a run at alpha; not what is tested
    assert main(["audit", str(root), "--workers", "0", "--quiet", "--only",
                 "deal,chips,rotation,payouts,betting,coverage"]) == 0
    deal = next(r for r in json.loads((root / "audit.json").read_text())["results"]
                if r["name"] == "deal")
    assert deal["details"]["totals"] == {"keyed": 0, "unkeyed": 400, "imported": 0}
    assert main(["report", str(root)]) == 0
    cert = json.loads((root / "certificate.json").read_text())
    assert cert["verdict"] == "PASS" and cert["verdict_text"].startswith("PASS, LIMITED")
    assert any("os-chacha20" in t and "cannot be bound to a key" in t
               for t in cert["limitations"])
    # relabelling philox rows as os-chacha20 to dodge the key check fails against the spec (the
    # run's facts come from it alone: the forger restamps its fingerprint and every copy)
    from audits.runspec import fingerprint

    f = RunForger(root)
    m = f.manifest
    m["spec"]["generator"] = m["generator"] = "philox"
    m["reproducible"] = True
    m["fingerprint"] = m["run_id"] = fingerprint(m["spec"])
    (root / "manifest.json").write_text(json.dumps(m))
    capsys.readouterr()
    code, out = audit_cli(root, capsys)
    assert code == 1 and "generator column differs from the run's manifest" in out


def _all_in_showdown(r: dict) -> bool:
    live = live_seats(r)
    behind = [s for s in live if r["stacks_start"][s] - r["contributed"][s] > 0]
    return len(live) >= 2 and len(behind) <= 1


def test_a_losing_hand_mucked_at_an_all_in_showdown(run: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A simulated all-in showdown shows every hand (seed 004 "All In"): a loser's hand logged
    as mucked after a better one was shown (a muck the river rule would allow), with its rank
    gone and every other column as it was (payouts unchanged), digests and manifest restamped,
    is a FAIL naming the hand."""
    f = RunForger(run)

    def ok(r: dict) -> bool:
        if not _all_in_showdown(r) or len(r["pots"]) != 1 or len(winners(r)) != 1:
            return False
        (w,) = winners(r)
        return r["showdown_seats"].index(w) < len(r["showdown_seats"]) - 1

    i = f.find(ok)
    row = dict(f.rows[i])
    assert all(row["showdown_shown"])  # the engine showed every hand
    (w,) = winners(row)
    j = len(row["showdown_seats"]) - 1  # the last to show, after the winner: a legal river muck
    loser = row["showdown_seats"][j]
    row["showdown_shown"] = [False if q == j else v for q, v in enumerate(row["showdown_shown"])]
    row["showdown_ranks"] = [-1 if q == j else v for q, v in enumerate(row["showdown_ranks"])]
    f.rows[i] = row
    f.write()
    out = assert_caught(run, capsys, "payouts", row["hand_id"])
    assert f"muck at an all-in showdown: seat {loser} mucked" in out


def test_a_leave_logged_for_a_seat_that_had_folded(run: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A LEAVE record slipped into the action log after the seat's own fold (a seat no longer
    in the hand cannot leave it), digests and manifest restamped: the betting referee fails
    the hand naming the seat."""
    from sim.layout import EventKind
    from sim.schema import ACTION_DTYPE, decode_actions

    f = RunForger(run)

    def ok(r: dict) -> bool:
        kinds = decode_actions(r["actions"])["kind"].tolist()
        return EventKind.FOLD in kinds and kinds.index(EventKind.FOLD) < len(kinds) - 1

    i = f.find(ok)
    row = dict(f.rows[i])
    recs = decode_actions(row["actions"]).copy()
    j = recs["kind"].tolist().index(EventKind.FOLD)
    leave = np.array([(recs["street"][j], recs["seat"][j], EventKind.LEAVE,
                       recs["to_street_total"][j], 0)], dtype=ACTION_DTYPE)
    row["actions"] = np.concatenate([recs[:j + 1], leave, recs[j + 1:]]).tobytes()
    f.rows[i] = row
    f.write()
    out = assert_caught(run, capsys, "betting", row["hand_id"])
    assert f"wrong leave: seat {int(recs['seat'][j])} not in the hand" in out
