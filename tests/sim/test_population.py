"""The default population (issue 14): mixed seat counts and formats by batch, cash buy-in ranges
and leaving players, tournaments down to heads-up, fold-heavy bots; and its options."""

from __future__ import annotations

import argparse
from pathlib import Path

import pyarrow as pa
import pytest

from cluster.cli import build_parser, main, population_options
from sim.batch import simulate_batch
from sim.config import Structure
from sim.logview.row_replay import replay_row
from sim.runspec import DEFAULT_POPULATION, PLAN_BLOCK, RunSpec, parse_players, parse_stacks

HANDS = 24_000  # per structure, in batches of BATCH: several seat counts and both formats
BATCH = 3_000


@pytest.fixture(scope="module")
def played() -> dict[Structure, tuple[RunSpec, list[pa.Table], dict[str, int]]]:
    spec = RunSpec(hands=HANDS, batch_size=BATCH, structures=tuple(Structure), seed=1,
                   **DEFAULT_POPULATION)
    out = {}
    for s in spec.structures:
        tables, counts = [], {}
        for b in range(spec.n_batches()):
            res = simulate_batch(spec, s, b)
            tables.append(res.table)
            for k, v in res.counts.items():
                counts[k] = counts.get(k, 0) + v
        out[s] = (spec, tables, counts)
    return out


@pytest.mark.parametrize("structure", list(Structure))
def test_every_structure_reaches_the_rules(played: dict, structure: Structure) -> None:
    spec, tables, c = played[structure]
    formats = {t.column("format")[0].as_py() for t in tables}
    seats = {t.column("n_seats")[0].as_py() for t in tables}
    assert formats == {"cash", "tournament"}
    assert len(seats) >= 4, seats
    for t in tables:  # one seat count and one format per file (the audit reader's rule)
        assert len(set(t.column("n_seats").to_pylist())) == 1
        assert len(set(t.column("format").to_pylist())) == 1
    for name in ("all_ins", "side_pots", "walks", "uncontested", "dead_buttons",
                 "dead_small_blinds", "heads_up_transitions", "eliminations", "short_blinds",
                 "ante_hands", "rebuys", "timeouts", "uncalled_returns", "split_pots",
                 "short_all_in_not_reopened", "rake_cap_hit"):
        assert c[name] > 0, name
    if structure == Structure.FIXED_LIMIT:
        assert c["fixed_limit_caps"] > 0
    if structure == Structure.POT_LIMIT:
        assert c["pot_limit_max_raises"] > 0
    # most decisions before the flop are folds
    assert c["preflop_folds"] > c["preflop_decisions"] // 2


@pytest.mark.parametrize("structure", list(Structure))
def test_showdown_share_is_that_of_real_tables(played: dict, structure: Structure) -> None:
    _, tables, c = played[structure]
    shows = sum(sum(1 for x in t.column("showdown_seats").to_pylist() if len(x) > 1)
                for t in tables)
    assert 0.10 <= shows / HANDS <= 0.45, shows / HANDS
    assert shows == c["showdowns"]


def test_stacks_stay_bounded_and_short_stacks_post_what_they_have(played: dict) -> None:
    ante_modes: set[int] = set()
    below_one_bb = leaves = 0
    for s in Structure:
        _, tables, c = played[s]
        leaves += c["leaves_above_max"]
        for t in tables:
            ante_modes |= set(t.column("ante_mode").to_pylist())
            if t.column("format")[0].as_py() != "cash":
                continue
            for st, b in zip(t.column("stacks_start").to_pylist(),
                             t.column("big_blind").to_pylist(), strict=True):
                assert max(st) <= 750 * b  # a player past the threshold left (or the table ended)
                below_one_bb += sum(1 for x in st if 0 < x < b)
    assert leaves > 0 and below_one_bb > 0
    assert ante_modes == {0, 1, 2}  # no ante, antes from everyone, big-blind ante


def test_real_population_hands_replay_and_conserve_chips(played: dict) -> None:
    for s in Structure:
        _, tables, _ = played[s]
        for t in tables[:3]:
            rows = t.slice(0, 150).to_pylist()
            for row in rows:
                assert sum(row["stacks_start"]) == sum(row["stacks_end"]) + row["rake"]
                assert replay_row(row).is_complete


def test_batch_table_is_a_fixed_schedule() -> None:
    spec = RunSpec(hands=10**6, structures=tuple(Structure), **DEFAULT_POPULATION)
    again = RunSpec.from_dict(spec.to_dict())
    assert again == spec and again.fingerprint() == spec.fingerprint()
    plan = {(s, b): spec.batch_table(s, b) for s, b in spec.plan()}
    assert plan == {(s, b): again.batch_table(s, b) for s, b in spec.plan()}
    for s in Structure:  # every structure of `make run` plays tournaments with 3+ seats
        tables = [plan[(s, b)] for b in range(spec.n_batches())]
        # batches of PLAN_BLOCK hands: 100 a structure, 40 of them tournaments
        assert sum(f == "tournament" for _, f in tables) == 40
        assert any(f == "tournament" and n >= 3 for n, f in tables)
    assert len({n for n, _ in plan.values()}) >= 8
    # the classic spec: one 6-seat cash table, as before the population existed
    assert RunSpec(hands=10).batch_table(Structure.NO_LIMIT, 3) == (6, "cash")


def test_seat_and_format_schedules_do_not_lock() -> None:
    """Seats 2:1,10:1 at 50% tournaments: both schedules have period 2, and walked by the batch
    index alone every tournament batch had 2 seats and every cash batch 10. Every (seats,
    format) pair now comes in the product of the mixes (a quarter each), in every structure;
    a spec read back without ``seat_walk`` (a run made before) keeps the schedule it was made
    with, and a schedule that cannot lock (the default population) is the batch index's."""
    from collections import Counter

    spec = RunSpec(hands=200 * 50, batch_size=50, structures=tuple(Structure),
                   players="2:1,10:1", format="mixed", tournament_pct=50)
    assert spec.schedules_lock and spec.to_dict()["seat_walk"] == 2
    for s in Structure:
        pairs = Counter(spec.batch_table(s, b) for b in range(200))
        assert set(pairs) == {(n, f) for n in (2, 10) for f in ("cash", "tournament")}, pairs
        assert all(abs(c - 50) <= 2 for c in pairs.values()), pairs
    assert RunSpec.from_dict(spec.to_dict()) == spec
    old = {k: v for k, v in spec.to_dict().items() if k != "seat_walk"}
    before = RunSpec.from_dict(old)
    assert before.seat_walk == 1 and before.fingerprint() != spec.fingerprint()
    assert {before.batch_table(Structure.NO_LIMIT, b) for b in range(200)} \
        == {(2, "tournament"), (10, "cash")}  # what runs made before hold
    # 6:1,9:1 at 25%: periods 2 and 4
    spec = RunSpec(hands=400 * 50, batch_size=50, players="6:1,9:1", format="mixed",
                   tournament_pct=25)
    pairs = Counter(spec.batch_table(Structure.NO_LIMIT, b) for b in range(400))
    assert pairs == {(6, "tournament"): 50, (9, "tournament"): 50, (6, "cash"): 150,
                     (9, "cash"): 150}
    default = RunSpec(hands=10**6, **DEFAULT_POPULATION)
    assert not default.schedules_lock and "seat_walk" not in default.to_dict()
    assert RunSpec.from_dict(default.to_dict()).fingerprint() == default.fingerprint()


def test_varied_tables_make_the_same_batches_for_any_larger_batch_size() -> None:
    """A population whose tables vary is cut at PLAN_BLOCK hands a batch whatever --batch-size
    says above it: the same spec (fingerprint), so the same hands and the same plan; a run
    recorded with a larger batch (before the cap) keeps its own when read back."""
    specs = [RunSpec(hands=100_000, batch_size=bs, **DEFAULT_POPULATION)
             for bs in (PLAN_BLOCK, 50_000, 100_000)]
    assert {s.batch_size for s in specs} == {PLAN_BLOCK}
    assert len({s.fingerprint() for s in specs}) == 1
    tables = [specs[0].batch_table(Structure.NO_LIMIT, b) for b in range(specs[0].n_batches())]
    assert sum(f == "tournament" for _, f in tables) == 4  # its share of 40%
    # one table kind (classic): the batch size stays as given
    assert RunSpec(hands=100_000, batch_size=100_000).batch_size == 100_000
    old = {**specs[0].to_dict(), "batch_size": 100_000}
    assert RunSpec.from_dict(old).batch_size == 100_000


@pytest.mark.parametrize("text, parsed", [
    ("6", 6), ("2-4", ((2, 1), (3, 1), (4, 1))), ("2:1,6:3,9:2", ((2, 1), (6, 3), (9, 2))),
    ("6:2", ((6, 2),)),
])
def test_players_option_forms(text: str, parsed: object) -> None:
    assert parse_players(text) == parsed
    assert RunSpec(hands=1, players=parsed).seat_mix()  # type: ignore[arg-type]


def test_stacks_option_forms() -> None:
    assert parse_stacks("100") == (100, 100)
    assert parse_stacks("20-250") == (20, 250)


def _opts(*argv: str) -> dict[str, object]:
    args = build_parser().parse_args(["simulate", "--hands", "1", "--out", "x", *argv])
    assert isinstance(args, argparse.Namespace)
    return population_options(args)


def test_cli_population_defaults_and_presets() -> None:
    assert _opts() == DEFAULT_POPULATION
    classic = _opts("--population", "classic")
    assert RunSpec(hands=1, **classic) == RunSpec(hands=1)  # type: ignore[arg-type]
    mixed = _opts("--players", "6", "--format", "cash", "--stacks", "40-100")
    assert mixed["players"] == 6 and mixed["format"] == "cash"
    assert (mixed["buy_in_min_bb"], mixed["buy_in_bb"], mixed["leave_above_bb"]) == (40, 100, 300)
    assert _opts("--stacks", "100", "--bots", "classic")["buy_in_min_bb"] is None


@pytest.mark.parametrize("args, message", [
    (["--players", "1-4"], "--players 1: expected 2..10"),
    (["--players", "6:x"], "--players '6:x': expected a seat count"),
    (["--players", "6:0"], "--players: the weights add up to 0"),
    (["--stacks", "250-20"], "--stacks '250-20'"),
    (["--leave-above", "100"], "--leave-above 100: expected 0 (never) or at least"),
    (["--tournament-pct", "101"], "--tournament-pct 101: expected 0..100"),
])
def test_cli_rejects_bad_population(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    args: list[str], message: str) -> None:
    assert main(["simulate", "--hands", "10", *args, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not (tmp_path / "run").exists()
