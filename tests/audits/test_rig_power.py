"""The certificate's power sentences (issue 35, point 3): for the run's own size, the smallest
rig of each kind its deal tests catch with probability 0.9 (``audits.rig_power``), in
certificate.json, summary.md and the page, shrinking as the run grows."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from audits import boards, rig_power, runouts, shuffles, uniformity
from reports.render import build_run_certificate, render_html, render_summary

RIGS = ("bad_beat", "big_pot_flop", "all_seat_pairs", "targeted_pairs", "shill_runout")


def _heads_up_battery(n: int, seed: int) -> dict[str, Any]:
    """The uniformity battery (as audit.json holds it) of ``n`` fair heads-up hands, each an
    all-in on the flop after a pre-flop pot of 20 big blinds (deck positions: hole 0-3, burn,
    flop, burn, turn, burn, river), the hands grouped into tables of 200 hands (two players)."""
    rng = np.random.default_rng(seed)
    d = shuffles.fair_fisher_yates(n, rng)
    di = d.astype(np.int64)
    hole = di[:, [0, 2, 1, 3]]
    board = (di[:, [5, 6, 7, 9, 11]].ravel(), np.arange(n + 1) * 5)
    burns = (di[:, [4, 8, 10]].ravel(), np.arange(n + 1) * 3)
    occ, folded = np.ones((n, 2), bool), np.zeros((n, 2), bool)
    pids = (np.arange(n)[:, None] // 200) * 16 + np.arange(2)
    # per hand: a pre-flop call of 20 and a flop call (the last decision, before the river)
    street = np.tile([0, 1], n)
    kind = np.full(2 * n, 8)
    added = np.tile([20.0, 0.0], n)
    off = np.arange(n + 1) * 2
    p = uniformity.map_decks(d, hole, np.arange(n), occupied=occ, player_ids=pids)
    p.runouts = runouts.runout_map_arrays(occ, folded, hole, board, burns, (street, kind, off),
                                          pids, 0, np.arange(n))
    p.boards = boards.board_map_arrays(occ, hole, board, (street, kind, added, off),
                                       np.ones(n))
    return uniformity.reduce_battery("uniformity", [p]).to_dict()


def _certificate(n: int) -> dict[str, Any]:
    results = [{"name": name, "passed": True, "applicable": True, "hands_checked": n,
                "failures": 0, "statistic": None, "p_value": None, "example_hand_ids": [],
                "details": {}} for name in ("integrity", "deal", "chips")]
    audit = {"results": [*results, _heads_up_battery(n, seed=n)], "hands": n}
    return build_run_certificate(audit, {})


def test_power_sentences_shrink_as_the_run_grows_and_are_on_every_page() -> None:
    small, big = _certificate(2_000), _certificate(8_000)
    got = {}
    for cert in (small, big):
        rp = cert["rig_power"]
        assert [r["rig"] for r in rp["rigs"]] == list(RIGS)
        assert rp["sentences"] == [r["sentence"] for r in rp["rigs"]]
        got[id(cert)] = {r["rig"]: r for r in rp["rigs"]}
        summary = render_summary(cert)
        page = render_html(cert, {"results": []}, {})
        for r in rp["rigs"]:
            assert r["size"] in r["sentence"]
            assert "caught with probability 0.9" in r["sentence"]
            assert r["sentence"] in summary.replace("\\", "")
            assert r["sentence"].replace("'", "&#x27;") in page
    s, b = got[id(small)], got[id(big)]
    for rig in RIGS:
        assert b[rig]["strength"] < s[rig]["strength"], rig
    # the bad-beat strength is (z + z_0.9) / sqrt(sum of the favourites' variances): four
    # times the run-outs, half the strength (the battery's level as m tests at each size)
    assert b["bad_beat"]["strength"] / s["bad_beat"]["strength"] == pytest.approx(0.5, rel=0.1)
    text = s["bad_beat"]["sentence"]
    assert text.startswith("With 2,000 run-outs, a bad-beat rig that re-deals ")
    assert "of the favourite's wins at an all-in run-out" in text


def test_a_rig_beyond_the_runs_reach_is_said_so() -> None:
    """Too few run-outs for any bad-beat rig: the sentence says that even re-dealing every
    favourite's win is caught with less than 0.9, and with what probability."""
    tests = {"runout_calibration": {"runouts": 40, "variance": 6.0}}
    (r,) = rig_power.rig_power(tests)
    assert r["strength"] is None
    assert r["sentence"].startswith("With 40 run-outs, no such rig is caught with probability "
                                    "0.9: a bad-beat rig that re-deals 100.0% of the favourite's")
    p = rig_power.predicted_power("bad_beat", 1.0, tests["runout_calibration"],
                                  0.01)
    assert f"caught with probability {p:.2f}" in r["sentence"]


def test_details_without_the_sums_give_no_sentence() -> None:
    """An audit.json written before the sums were recorded: no sentence, no crash."""
    tests = {"runout_calibration": {"runouts": 900}, "board_texture": {"by_feature": "garbage"}}
    assert rig_power.rig_power(tests) == []


def test_the_game_calibration_is_shown_beside_its_tests() -> None:
    """calibration.json's game part (``holdem calibrate --parts game``) is each test's evidence
    on the certificate: its false alarms per kind of run, and the power against its rig."""
    from reports.render import calibration_evidence

    cal = {"game": {"fair": {"imported": {"tests": {
        "runout_calibration": {"runs": 200, "false_alarms": 4, "band": [0, 6],
                               "verdict": "PASS"}}}},
        "power": [{"rig": "bad_beat", "test": "runout_calibration", "strength": 0.259,
                   "hands": 2_000, "runs": 40, "rejected": 31, "power": 0.78,
                   "predicted": 0.9}]}}
    ev = calibration_evidence(cal)["uniformity.runout_calibration"]
    assert ev == ("false alarms 4/200 fair imported runs (band [0, 6]: PASS); bad_beat 0.259 at "
                  "2,000 hands caught in 31/40 runs (formula 0.90)")
