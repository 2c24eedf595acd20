"""The exact audits on imported hands with posts after the blinds, one blind only, free folds and
unrecorded showdown cards: legal ones pass, forged misuses fail naming the hand (RunForger:
every column that could give the forgery away rewritten with it)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from audits.io import DEAD_BLIND, POST
from audits.runner import run_audits
from cluster.flows.import_histories import import_phh
from sim.layout import EventKind
from sim.schema import ACTION_DTYPE, decode_actions
from tests.audits.forgery import RunForger

EXACT = ["chips", "rotation", "payouts", "betting"]

# shapes of ../shared/realhands hands, in whole units (the old importer's unit)
HANDS = {
    # ong/1000nl-handhq_1 [2]: p3 posts 5 dead at 5/10
    "dead.phh": """variant = 'NT'
antes = [0, 0, 0, 0, 0]
blinds_or_straddles = [5, 10, -5, 0, 0]
min_bet = 10
starting_stacks = [714, 1015, 1000, 1244, 3324]
actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'd dh p4 ????', 'd dh p5 ????',
  'p3 cc', 'p4 f', 'p5 f', 'p1 f', 'p2 cc', 'd db JhQsKc', 'p2 cc', 'p3 cbr 11', 'p2 cc',
  'd db 4h', 'p2 cc', 'p3 cc', 'd db 4c', 'p2 cbr 21', 'p3 cc', 'p2 sm 3dKs', 'p3 sm 8cQd']
""",
    # a live big blind from the button (p4), who checks his option
    "live.phh": """variant = 'NT'
antes = [0, 0, 0, 0]
blinds_or_straddles = [3, 6, 0, -6]
min_bet = 6
starting_stacks = [594, 1204, 417, 948]
actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'd dh p4 ????', 'p3 cc', 'p4 cc',
  'p1 cc', 'p2 cc', 'd db Ts6s3s', 'p1 cbr 12', 'p2 f', 'p3 f', 'p4 f']
""",
    # abs/100nl-handhq_2 [66]: one blind only, a walk
    "oneblind.phh": """variant = 'NT'
antes = [0, 0, 0, 0]
blinds_or_straddles = [100, 0, 0, 0]
min_bet = 100
starting_stacks = [13145, 21230, 8055, 13210]
actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'd dh p4 ????', 'p2 f', 'p3 f',
  'p4 f']
""",
    # abs/50nl-handhq_1 [4]: a fold while checking is free
    "freefold.phh": """variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [50, 50, 50]
actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'p3 cc', 'p1 cc', 'p2 cc',
  'd db 2c7d9h', 'p1 f', 'p2 cbr 2', 'p3 f']
""",
    # both hands unrecorded at a showdown: the first mucks, the last contender shows
    "unrecorded.phh": """variant = 'NT'
antes = [0, 0]
blinds_or_straddles = [1, 2]
min_bet = 2
starting_stacks = [50, 50]
actions = ['d dh p1 ????', 'd dh p2 ????', 'p2 cc', 'p1 cc', 'd db 2c7d9h', 'p1 cc', 'p2 cc',
  'd db Tc', 'p1 cc', 'p2 cc', 'd db 3s', 'p1 cbr 4', 'p2 cc', 'p1 sm ????', 'p2 sm ????']
""",
}


@pytest.fixture()
def imported(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name, text in HANDS.items():
        (src / name).write_text(text)
    run = tmp_path / "run"
    assert import_phh([str(src)], run).exit_code == 0
    return run


def _failing(run: Path, name: str) -> tuple[set[int], list[str]]:
    (res,) = run_audits(run, [name]).results
    return set(res.example_hand_ids), [v["reason"] for v in res.details["violations"]]


def _forger(run: Path, pred: Callable[[dict[str, Any]], bool]) -> tuple[RunForger, int]:
    """The forger of the batch file holding a row that suits ``pred``, and the row's index."""
    for rec in json.loads((run / "manifest.json").read_text())["files"]:
        f = RunForger(run, rec["path"])
        for i, r in enumerate(f.rows):
            if pred(r):
                return f, i
    raise AssertionError("no hand in the run suits this forgery")


def _has(kind: EventKind) -> Callable[[dict[str, Any]], bool]:
    return lambda r: any(int(a["kind"]) == kind for a in decode_actions(r["actions"]))


def _all_rows(run: Path) -> list[dict[str, Any]]:
    m = json.loads((run / "manifest.json").read_text())
    return [r for rec in m["files"] for r in RunForger(run, rec["path"]).rows]


def _pack(recs: Any) -> bytes:
    out = np.empty(len(recs), dtype=ACTION_DTYPE)
    for j, a in enumerate(recs):
        out[j] = tuple(int(a[x]) for x in ("street", "seat", "kind", "to_street_total", "added"))
    return out.tobytes()


def test_audit_constants_are_the_engines() -> None:
    assert (POST, DEAD_BLIND) == (int(EventKind.POST), int(EventKind.DEAD_BLIND))


def test_imported_posts_pass_the_exact_audits(imported: Path) -> None:
    rows = _all_rows(imported)
    kinds = {int(a["kind"]) for r in rows for a in decode_actions(r["actions"])}
    assert {POST, DEAD_BLIND} <= kinds
    assert any(r["sb_seat"] == -1 for r in rows)  # the one-blind hand
    assert any(any(r["cards_unrecorded"]) for r in rows)  # the import's column (spec22 B)
    for name in EXACT:
        assert _failing(imported, name) == (set(), []), name


def test_a_dead_post_counted_toward_the_call_fails(imported: Path) -> None:
    f, i = _forger(imported, _has(EventKind.DEAD_BLIND))
    row = f.rows[i]
    acts = decode_actions(row["actions"]).copy()
    d = next(j for j, a in enumerate(acts) if a["kind"] == DEAD_BLIND)
    s = int(acts[d]["seat"])
    c = next(j for j, a in enumerate(acts) if a["seat"] == s and a["kind"] == EventKind.CALL)
    acts[c]["added"] -= 5  # the dead 5 counted toward the call of 10: the seat pays 5 less
    winner = int(np.argmax(row["won"]))
    # the forger's consistent story: the seat kept 5, the pot (and the winner) 5 less
    row["actions"] = _pack(acts)
    row["contributed"] = [v - 5 if t == s else v for t, v in enumerate(row["contributed"])]
    row["stacks_end"] = [v + 5 if t == s else v - 5 if t == winner else v
                         for t, v in enumerate(row["stacks_end"])]
    row["won"] = [v - 5 if t == winner else v for t, v in enumerate(row["won"])]
    row["pots"] = [{**p, "amount": p["amount"] - 5} for p in row["pots"]]
    f.write()
    assert _failing(imported, "chips") == (set(), [])  # the chips still balance
    bad, why = _failing(imported, "betting")
    # the reason names the seat, the street and both amounts: the log's and the rules'
    called = int(acts[c]["added"])
    assert bad == {row["hand_id"]} and why[0].startswith(
        f"wrong call amount: seat {s} called {called} on the pre-flop, the rules give "
        f"{called + 5} "), why


def test_a_live_post_denied_its_option_fails(imported: Path) -> None:
    f, i = _forger(imported, _has(EventKind.POST))
    row = f.rows[i]
    acts = decode_actions(row["actions"])
    p = next(j for j, a in enumerate(acts) if a["kind"] == POST)
    s = int(acts[p]["seat"])
    # the poster's check of its option (it moves no chip) cut from the log
    chk = next(j for j, a in enumerate(acts) if a["seat"] == s and a["kind"] == EventKind.CHECK
               and a["street"] == 0)
    row["actions"] = _pack([a for j, a in enumerate(acts) if j != chk])
    f.write()
    assert _failing(imported, "chips") == (set(), [])
    bad, why = _failing(imported, "betting")
    assert bad == {row["hand_id"]} and why[0].startswith("out of turn: seat")


@pytest.mark.parametrize("misuse", ["blind seat", "short live post", "dead on the street",
                                    "dead too big", "dead before live"])
def test_a_misused_post_fails(imported: Path, misuse: str) -> None:
    kind = EventKind.DEAD_BLIND if misuse.startswith("dead") else EventKind.POST
    f, i = _forger(imported, _has(kind))
    row = f.rows[i]
    acts = decode_actions(row["actions"]).copy()
    p = next(j for j, a in enumerate(acts) if a["kind"] == kind)
    s = int(acts[p]["seat"])
    if misuse == "blind seat":  # the post moved to the big blind's seat, chips and all
        b = int(row["bb_seat"])
        for a in acts:
            if a["seat"] == s and a["street"] == 0 and a["kind"] in (POST, EventKind.CHECK):
                a["seat"] = b
        s = b
    elif misuse == "short live post":  # 3 of the 6 posted live, 3 more with the check made a call
        acts[p]["added"] = acts[p]["to_street_total"] = 3
    elif misuse == "dead on the street":
        acts[p]["to_street_total"] = acts[p]["added"]
    elif misuse == "dead too big":  # a dead post of a whole big blind (that is a live one)
        acts[p]["added"] = int(row["big_blind"])
    else:  # a dead post logged before the live posts: add a live post after it
        extra = acts[p].copy()
        extra["kind"] = POST
        acts = np.concatenate([acts[: p + 1], [extra], acts[p + 1:]])
    row["actions"] = _pack(acts)
    f.write()
    bad, why = _failing(imported, "betting")
    assert row["hand_id"] in bad
    assert any(w.startswith("wrong post") for w in why), why
    if misuse == "short live post":  # what the log says beside what the rules give
        assert any(w.startswith(f"wrong post: seat {s} posted 3, the rules give "
                                f"{int(row['big_blind'])} ") for w in why), why
    if misuse == "dead too big":
        assert any(w.startswith(f"wrong post: seat {s} posted {int(row['big_blind'])}, the "
                                f"rules give {int(row['big_blind']) - 1} ") for w in why), why


def test_free_folds_pass_only_in_imported_hands(imported: Path) -> None:
    f, i = _forger(imported, lambda r: r["n_seats"] == 3)
    hid = f.rows[i]["hand_id"]
    assert _failing(imported, "betting") == (set(), [])
    f.rows[i]["generator"] = "keyed"  # claimed simulated: the simulator never folds for free
    f.write()
    bad, why = _failing(imported, "betting")
    assert bad == {hid} and why[0].startswith("illegal fold")


def test_unrecorded_pot_winners_are_not_judged_but_amounts_are(imported: Path) -> None:
    f, i = _forger(imported, lambda r: r["n_seats"] == 2)
    row = f.rows[i]
    (pot,) = row["pots"]
    winner = int(np.argmax(row["won"]))
    loser = 1 - winner
    # the winners of a pot the record cannot prove: the other seat paid instead is accepted
    row["pots"] = [{**pot, "winners_mask": 1 << loser}]
    row["won"], row["stacks_end"] = row["won"][::-1], [
        row["stacks_start"][t] - row["contributed"][t] + row["won"][1 - t] for t in range(2)]
    f.write()
    assert _failing(imported, "payouts") == (set(), [])
    assert _failing(imported, "chips") == (set(), [])
    # ... but not a payout above the pot
    row["won"] = [v + 1 if t == loser else v for t, v in enumerate(row["won"])]
    row["stacks_end"] = [v + 1 if t == loser else v for t, v in enumerate(row["stacks_end"])]
    row["stacks_start"] = [v + 1 if t == winner else v for t, v in enumerate(row["stacks_start"])]
    row["rebuys"] = list(row["stacks_start"])
    f.write()
    bad, why = _failing(imported, "payouts")
    assert bad == {row["hand_id"]} and why[0].startswith("payout mismatch")


def test_a_post_by_a_seat_without_chips_fails(imported: Path) -> None:
    f, i = _forger(imported, _has(EventKind.DEAD_BLIND))
    row = f.rows[i]
    acts = decode_actions(row["actions"])
    d = next(j for j, a in enumerate(acts) if a["kind"] == DEAD_BLIND)
    poster = int(acts[d]["seat"])
    # an empty seat (a player who folded, taken out of the hand) made the dead poster
    empty = next(s for s in range(int(row["n_seats"])) if s != poster and s != row["button"]
                 and s not in (row["sb_seat"], row["bb_seat"]) and row["folded"][s])
    kept = []
    for j, a in enumerate(acts):
        if a["seat"] == empty:
            continue  # its fold
        if j == d:
            a = a.copy()
            a["seat"] = empty
        kept.append(a)
    row["actions"] = _pack(kept)
    for col, v in (("occupied", False), ("stacks_start", 0), ("rebuys", 0), ("stacks_end", 0),
                   ("folded", False), ("player_ids", -1)):
        row[col] = [v if t == empty else x for t, x in enumerate(row[col])]
    f.write()
    bad, why = _failing(imported, "betting")
    assert row["hand_id"] in bad and why[0].startswith("wrong post: seat"), why
