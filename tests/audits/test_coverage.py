"""Rule-path coverage is counted by the audits from the log: each path's count agrees with an
independent count from the rows, every path appears where the population reaches it, and a run
whose population cannot reach a path fails certification with the reason coverage and the path
named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest

from audits import paths as P
from audits.runfolder import list_batch_files
from audits.runner import run_audits
from cluster.cli import main
from cluster.flows.simulate import run_simulate
from sim.config import Structure
from sim.logv4 import as_v3
from sim.runspec import RunSpec


def test_bit_constants_are_the_table() -> None:
    assert [p.bit for p in P.PATHS] == list(range(P.N_PATHS)) and P.N_PATHS <= 63
    named = {"uncontested": P.UNCONTESTED, "walk": P.WALK, "showdown": P.SHOWDOWN,
             "split_pot": P.SPLIT_POT, "odd_chip": P.ODD_CHIP, "side_pot": P.SIDE_POT,
             "side_pots_3plus": P.SIDE_POTS_3PLUS, "all_in": P.ALL_IN,
             "short_all_in_not_reopened": P.SHORT_NOT_REOPENED,
             "short_all_ins_reopened": P.SHORTS_REOPENED, "min_raise": P.MIN_RAISE,
             "uncalled_return": P.UNCALLED_RETURN, "bb_option_raise": P.BB_OPTION_RAISE,
             "short_blind": P.SHORT_BLIND, "ante": P.ANTE, "big_blind_ante": P.BIG_BLIND_ANTE,
             "ante_all_in": P.ANTE_ALL_IN, "dead_button": P.DEAD_BUTTON,
             "dead_small_blind": P.DEAD_SMALL_BLIND,
             "heads_up_transition": P.HEADS_UP_TRANSITION, "elimination": P.ELIMINATION,
             "rebuy": P.REBUY, "rake": P.RAKE, "rake_capped": P.RAKE_CAPPED,
             "no_flop_no_drop": P.NO_FLOP_NO_DROP, "timeout": P.TIMEOUT,
             "wheel_straight": P.WHEEL, "board_plays": P.BOARD_PLAYS,
             "kicker_decides": P.KICKER, "fl_raise_cap": P.FL_CAP,
             "fl_incomplete_completed": P.FL_COMPLETED, "pl_max_raise": P.PL_MAX,
             "all_in_showdown": P.ALL_IN_SHOWDOWN, "leave": P.LEAVE}
    assert named == P.BIT


def test_minimum_is_the_floors_poisson_quantile() -> None:
    """A count fails only where a correct engine at the path's floor rate falls below the
    minimum with probability under ALPHA; below ``certify_hands`` a 0 is not certified."""
    from scipy import stats

    common = next(p for p in P.PATHS if p.name == "showdown")
    rare = next(p for p in P.PATHS if p.name == "ante_all_in")
    assert P.minimum(common, 1) == 1 and P.minimum(rare, 40_000) == 1
    for path, hands in ((common, 1_000_000), (common, 2_000_000), (rare, 5_000_000)):
        m, lam = P.minimum(path, hands), P.expected(path, hands)
        assert stats.poisson.cdf(m - 1, lam) < P.ALPHA <= stats.poisson.cdf(m, lam)
        assert m < lam  # below the floor's expectation, not at it
    assert P.expected(rare, P.certify_hands(rare)) >= P.EXPECT
    assert P.expected(rare, P.certify_hands(rare) - 1) < P.EXPECT


def _rows(run: Path) -> list[dict]:
    return [r for f in list_batch_files(run)
            for r in as_v3(pq.read_table(f)).to_pylist()]


def _independent(rows: list[dict]) -> dict[str, int]:
    """Counts of the paths a row shows directly, computed here from the rows."""
    def live(r: dict) -> int:
        return sum(o and not f for o, f in zip(r["occupied"], r["folded"], strict=True))
    out = {
        "showdown": sum(live(r) >= 2 for r in rows),
        "uncontested": sum(live(r) == 1 for r in rows),
        "side_pot": sum(len(r["pots"]) >= 2 for r in rows),
        "side_pots_3plus": sum(len(r["pots"]) >= 3 for r in rows),
        "split_pot": sum(any(bin(p["winners_mask"]).count("1") >= 2 and p["amount"] > p["rake"]
                             for p in r["pots"]) for r in rows),
        "rake": sum(r["rake"] > 0 for r in rows),
        "dead_small_blind": sum(r["sb_seat"] < 0 for r in rows),
        "dead_button": sum(not r["occupied"][r["button"]] for r in rows),
        "ante": sum(any(rec[2] == 0 for rec in np.frombuffer(r["actions"], ACTIONS).tolist())
                    for r in rows),
        "uncalled_return": sum(any(rec[2] == 11 for rec in
                                   np.frombuffer(r["actions"], ACTIONS).tolist()) for r in rows),
        "timeout": sum(any(r["timed_out"]) for r in rows),
        "leave": sum(any(rec[2] == 18 for rec in np.frombuffer(r["actions"], ACTIONS).tolist())
                     for r in rows),
        "all_in_showdown": sum(live(r) >= 2 and sum(
            o and not f and s - c > 0 for o, f, s, c in zip(
                r["occupied"], r["folded"], r["stacks_start"], r["contributed"], strict=True))
            <= 1 for r in rows),
        "all_in": sum(any(c == s and s > 0 for c, s in zip(
            (a + b for a, b in zip(r["contributed"], r["returned"], strict=True)),
            r["stacks_start"], strict=True)) for r in rows),
    }
    return out


def _replayed(rows: list[dict]) -> dict[str, int]:
    """Counts of betting paths from the engine's own legal ranges, replaying each hand (an
    independent computation: the audit's referee never calls the engine)."""
    from sim.hand import Action, Hand
    from sim.logview.row_replay import config_from_row

    out = dict.fromkeys(("min_raise", "pl_max_raise", "bb_option_raise", "walk"), 0)
    for r in rows:
        cfg = config_from_row(r)
        acts = np.frombuffer(r["actions"], ACTIONS).tolist()
        antes = [0] * cfg.n_seats
        for rec in acts:
            if rec[2] == 0:
                antes[rec[1]] = int(r["ante"])
        hand = Hand(cfg, list(r["stacks_start"]), button=r["button"], sb_seat=r["sb_seat"],
                    bb_seat=r["bb_seat"], deck=np.frombuffer(r["deck"], np.int8).astype(int),
                    antes=antes)
        flags: set[str] = set()
        raised_pre = voluntary_pre = False
        for street, seat, kind, to, _ in acts:
            if kind == 18:  # a LEAVE: at anyone's turn, not a decision
                hand.apply(Action.leave(seat))
            if kind not in (6, 7, 8, 9, 10):
                continue
            la = hand.legal_actions()
            if kind in (9, 10):
                all_in = hand.stacks[seat] + hand.bets[seat]
                if (kind == 10 and cfg.structure.label != "fixed-limit"
                        and to == la.min_raise_to < all_in):
                    flags.add("min_raise")
                if (cfg.structure.label == "pot-limit" and to == la.max_raise_to
                        and la.max_raise_to < all_in):
                    flags.add("pl_max_raise")
                if street == 0 and seat == r["bb_seat"] and not raised_pre:
                    flags.add("bb_option_raise")
                if street == 0:
                    raised_pre = voluntary_pre = True
                hand.apply(Action.raise_to(seat, to))
            else:
                if kind == 8 and street == 0:
                    voluntary_pre = True
                hand.apply(Action.fold(seat) if kind == 6 else Action.check_call(seat))
        live = [s for s in range(cfg.n_seats) if r["occupied"][s] and not r["folded"][s]]
        if not voluntary_pre and not r["board"] and live == [r["bb_seat"]]:
            flags.add("walk")
        for name in flags:
            out[name] += 1
    return out


ACTIONS = np.dtype([("street", "i1"), ("seat", "i1"), ("kind", "i1"),
                    ("to_street_total", "<i8"), ("added", "<i8")])


@pytest.mark.parametrize("fmt", ["cash", "tournament"])
def test_counts_agree_with_the_rows(tmp_path: Path, fmt: str) -> None:
    spec = RunSpec(hands=8000, batch_size=4000, structures=tuple(Structure), seed=5, format=fmt)
    run_simulate(spec, tmp_path / "run", workers=0, progress=False)
    res = {r.name: r for r in run_audits(tmp_path / "run").results}
    cov = res["coverage"]
    assert not cov.applicable and "too small to certify coverage" in cov.details["note"]
    rows = _rows(tmp_path / "run")
    for label in ("no-limit", "pot-limit", "fixed-limit"):
        mine = [r for r in rows if r["structure"] == label]
        entry = cov.details["per_structure"][label]
        assert entry["hands"] == len(mine) == 8000
        for name, count in {**_independent(mine), **_replayed(mine)}.items():
            if name in entry:
                assert entry[name]["count"] == count, (label, name)
        # where the population reaches a path, it is counted
        for name in ("walk", "odd_chip", "bb_option_raise", "wheel_straight", "board_plays",
                     "kicker_decides", "timeout", "leave"):
            assert entry[name]["count"] > 0, (label, name)
        # deep fixed-limit cash tables never go all-in (test_deep_fixed_limit_cash_...)
        assert (entry["all_in_showdown"]["count"] > 0) == (entry["all_in"]["count"] > 0), label
        if fmt == "tournament":
            for name in ("dead_button", "dead_small_blind", "heads_up_transition",
                         "elimination", "ante", "big_blind_ante", "short_blind", "ante_all_in"):
                assert entry[name]["count"] > 0, (label, name)
        else:
            for name in ("rebuy", "rake", "rake_capped", "no_flop_no_drop"):
                assert entry[name]["count"] > 0, (label, name)
    assert "fl_raise_cap" in cov.details["per_structure"]["fixed-limit"]
    assert "fl_raise_cap" not in cov.details["per_structure"]["no-limit"]
    assert "pl_max_raise" in cov.details["per_structure"]["pot-limit"]
    assert "min_raise" not in cov.details["per_structure"]["fixed-limit"]


def test_deep_fixed_limit_cash_fails_certification_on_coverage(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fixed-limit cash with deep stacks only (the classic population: 100 big blinds, rebuys)
    never puts a player all-in: its certificate
    fails with the reason coverage, naming the paths."""
    out = tmp_path / "fl"
    code = main(["certify", "--hands", str(P.SMALL_RUN), "--structure", "fixed-limit",
                 "--population", "classic", "--workers", "0", "--batch-size", "50000", "--quiet",
                 "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 1, text
    assert "fixed-limit/all_in below its minimum" in text
    cert = json.loads((out / "certificate.json").read_text())
    assert cert["verdict"] == "FAIL" and cert["verdict_reasons"] == ["coverage"]
    assert cert["coverage"]["fixed-limit"]["all_in"]["ok"] is False
    assert cert["coverage"]["fixed-limit"]["hands"] == P.SMALL_RUN


def test_audits_doc_lists_every_path_with_its_minimum() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "audits.md").read_text()
    section = doc.split("### Coverage: the rule paths", 1)[1].split("\n### ", 1)[0]
    rows = {}
    for line in section.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0].strip("`")] = (int(cells[2]), cells[3])
    assert rows == {p.name: (p.per_million, p.definition) for p in P.PATHS}


def test_rare_betting_paths_are_reached_and_counted(tmp_path: Path) -> None:
    """The rarest betting paths show up: in a classic-population run (stress bots, uneven
    stacks) short all-ins that do and do not reopen the betting, pot-limit maximum raises,
    minimum raises; in the default population's fixed-limit tables caps and completions."""
    from sim.runspec import DEFAULT_POPULATION

    spec = RunSpec(hands=40_000, batch_size=40_000, structures=("no-limit", "pot-limit"), seed=5)
    run_simulate(spec, tmp_path / "run", workers=0, progress=False)
    # fixed-limit all-ins need short stacks: the default population's
    fl = RunSpec(hands=40_000, batch_size=20_000, structures=("fixed-limit",), seed=5,
                 **DEFAULT_POPULATION)
    run_simulate(fl, tmp_path / "fl", workers=0, progress=False)
    cov = {}
    for run in ("run", "fl"):
        cov.update(next(r for r in run_audits(tmp_path / run).results
                        if r.name == "coverage").details["per_structure"])
    for label in ("no-limit", "pot-limit"):
        for name in ("short_all_ins_reopened", "short_all_in_not_reopened", "min_raise"):
            assert cov[label][name]["count"] > 0, (label, name)
    assert cov["pot-limit"]["pl_max_raise"]["count"] > 0
    for name in ("fl_raise_cap", "fl_incomplete_completed", "short_all_in_not_reopened"):
        assert cov["fixed-limit"][name]["count"] > 0, name
    assert "short_all_ins_reopened" not in cov["fixed-limit"]  # cannot occur there


def _partial(counts: dict[str, int], hands: int, **kw: object) -> Any:
    from audits.coverage import CoveragePartial

    c = np.zeros(P.N_PATHS, np.int64)
    for name, n in counts.items():
        c[P.BIT[name]] = n
    return CoveragePartial(counts={"no-limit": c}, hands={"no-limit": hands},
                           by_format={"no-limit": {"cash": hands // 2,
                                                   "tournament": hands - hands // 2}}, **kw)


def _all_common(hands: int) -> dict[str, int]:
    """Every path of no-limit at twice its floor's expectation (a healthy run)."""
    return {p.name: 2 * int(P.expected(p, hands)) + 1 for p in P.PATHS
            if "no-limit" in p.structures}


def test_a_shortfall_fails_only_where_a_correct_engine_rarely_falls_short() -> None:
    from audits.coverage import coverage_reduce

    hands = 400_000
    ok = coverage_reduce("coverage", [_partial(_all_common(hands), hands)])
    assert ok.passed and ok.applicable and "note" not in ok.details, ok.details
    # a rare path never seen in 200,000 tournament hands: plausible for a correct engine
    # (expected 1 at the floor rate): not certified, never a FAIL
    counts = {**_all_common(hands), "ante_all_in": 0}
    unseen = coverage_reduce("coverage", [_partial(counts, hands)])
    assert unseen.passed and "not seen, too few hands" in unseen.details["note"]
    assert "no-limit/ante_all_in" in unseen.details["unseen"][0]
    # a common path at 0 in 400,000 hands: a correct engine never does that: FAIL
    counts = {**_all_common(hands), "showdown": 0}
    short = coverage_reduce("coverage", [_partial(counts, hands)])
    assert not short.passed and "no-limit/showdown below its minimum" in short.details["short"][0]
    # the same in a game of one's own (its bots may never show down): not certified
    own = coverage_reduce("coverage", [_partial(counts, hands, calibrated=False)])
    assert own.passed and "rarer than in the built-in games" in own.details["note"]
    # paths the game rules out are said so, whatever their count
    none = coverage_reduce("coverage", [_partial({**_all_common(hands), "rake": 0},
                                                 hands, impossible=frozenset({"rake"}))])
    assert none.passed and none.details["per_structure"]["no-limit"]["rake"]["impossible"]
    assert "cannot occur in this game: rake" in none.details["note"]


def test_the_spec_rules_out_paths_and_marks_games_of_ones_own() -> None:
    from types import SimpleNamespace

    from audits.coverage import spec_paths
    from audits.runspec import parse_spec
    from sim.runspec import RunSpec

    def of(**kw: Any) -> tuple[frozenset[str], bool]:
        spec = json.loads(json.dumps(RunSpec(hands=10, **kw).to_dict()))
        batch: Any = SimpleNamespace(context={"facts": parse_spec(spec)})
        return spec_paths(batch)

    assert of() == (frozenset(), True)
    assert of(rake_bps=0) == (frozenset({"rake", "rake_capped", "no_flop_no_drop"}), True)
    impossible, calibrated = of(levels=((10, 20, 0), (20, 40, 0)))
    assert impossible == {"ante", "big_blind_ante", "ante_all_in"} and not calibrated
    assert of(levels=((10, 20, 2),), tournament_ante_mode="every-player")[0] == {
        "big_blind_ante"}
    assert of(game="Acme") == (frozenset(), True)  # a name alone is the built-in game
    imported: Any = SimpleNamespace(context={"imported": True})
    assert spec_paths(imported) == (frozenset(), False)
