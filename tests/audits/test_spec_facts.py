"""The spec is the only source of run facts, and every per-hand fact is checked against it
(issue 23, points 2 and 4). Each forgery is made the way an attacker would make it: the rows
rewritten consistently (the engine replays the hand, or whole batches are simulated under
another spec), row digests recomputed, the manifest's sha256, bytes and rows restamped, and
where the spec is touched its fingerprint and run_id recomputed. ``holdem audit`` then exits 1
naming the hand or the field (2 for a spec that is not the simulator's)."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from audits.runspec import RunFacts, SpecError, fingerprint, parse_spec
from cluster.cli import main
from cluster.flows.manifest import population
from cluster.flows.simulate import run_simulate
from sim import session as ss
from sim.batch import _Buffers, _params, _to_arrow, table_config
from sim.config import Structure
from sim.hand import config_block
from sim.logv4 import as_v3
from sim.rng import hand_deck
from sim.runspec import RunSpec, population_fields
from tests.audits.forgery import (
    RunForger,
    audit_cli,
    copy_run,
    replay_with_config,
    replay_with_deck,
    restamp_file,
    simulated_run,
    swap_hole_cards,
    winners,
)

# the default population (mixed seats, cash and tournament batches: batch 2 is a tournament),
# short cash tables so that a batch holds many tables and their last hands
SPEC = RunSpec(hands=2000, batch_size=500, structures=(Structure.NO_LIMIT,), seed=11,
               hands_per_table=25, **population_fields("default"))


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return simulated_run(tmp_path_factory, SPEC, "specfacts")


@pytest.fixture()
def run(clean_run: Path, tmp_path: Path) -> Path:
    return copy_run(clean_run, tmp_path)


def manifest(run: Path) -> dict[str, Any]:
    return json.loads((run / "manifest.json").read_text())


def write_manifest(run: Path, m: dict[str, Any]) -> None:
    (run / "manifest.json").write_text(json.dumps(m, indent=2))


def restamp_spec(m: dict[str, Any]) -> None:
    """What a forger does after editing the spec: its fingerprint and run_id recomputed."""
    if isinstance(m.get("spec"), dict):
        m["fingerprint"] = m["run_id"] = fingerprint(m["spec"])


def test_clean_run_passes_every_spec_check(clean_run: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, out = audit_cli(clean_run, capsys)
    assert code == 0, out
    audit = json.loads((clean_run / "audit.json").read_text())
    stakes = next(r for r in audit["results"] if r["name"] == "stakes")
    assert stakes["applicable"] and stakes["hands_checked"] == 2000
    fmts = [f for _, f in population(SPEC)["batches"]["no-limit"]]
    assert "tournament" in fmts and "cash" in fmts  # both schedules were checked


def test_the_audits_spec_reading_agrees_with_the_simulator() -> None:
    """The audits' own re-implementation of the table plan and the population section (never
    importing sim/) gives what the simulator writes, for several populations."""
    for spec in (SPEC, RunSpec(hands=50_000, batch_size=1000, structures=tuple(Structure),
                               **population_fields("default", players="2-10")),
                 RunSpec(hands=3000, batch_size=100, **population_fields("classic")),
                 # schedules that lock (docs/simulate.md): walked by format, and as before
                 RunSpec(hands=20_000, batch_size=100, structures=tuple(Structure),
                         **population_fields("default", players="2:1,10:1",
                                             tournament_pct=50)),
                 RunSpec(hands=20_000, batch_size=100, seat_walk=1,
                         **population_fields("default", players="6:1,9:1",
                                             tournament_pct=25))):
        facts = parse_spec(json.loads(json.dumps(spec.to_dict())))
        assert facts.digest == spec.fingerprint()
        assert facts.population() == json.loads(json.dumps(population(spec)))
        for s, b in spec.plan():
            assert facts.batch_table(s.label, b) == spec.batch_table(s, b)
    with pytest.raises(SpecError, match="spec.seat_walk: expected only on a mixed run"):
        parse_spec({**SPEC.to_dict(), "seat_walk": 2})  # a schedule that cannot lock


# --- H5, H1: the spec parses with the exact keys and types, or the run is refused ---------

SPEC_FORGERIES = {
    "spec removed": (lambda m: m.pop("spec"), "spec: missing"),
    "unknown key": (lambda m: m["spec"].update(house_edge=1), "spec.house_edge: unknown key"),
    "format renamed": (lambda m: m["spec"].update(fmt=m["spec"].pop("format")), "spec.fmt"),
    "players as a string": (lambda m: m["spec"].update(players="6"), "spec.players"),
    "seed as a string": (lambda m: m["spec"].update(seed="11"), "spec.seed"),
    "seed NaN": (lambda m: m["spec"].update(seed=math.nan), "spec.seed"),
    "seed null": (lambda m: m["spec"].update(seed=None), "spec.seed"),
    "seed a float": (lambda m: m["spec"].update(seed=11.0), "spec.seed"),
    "hands a boolean": (lambda m: m["spec"].update(hands=True), "spec.hands"),
    "rake above 100%": (lambda m: m["spec"].update(rake_bps=20_000), "spec.rake_bps"),
    "extra inputs": (lambda m: m["spec"].update(extra={"bots": "omniscient"}), "spec.extra"),
}


@pytest.mark.parametrize("name", sorted(SPEC_FORGERIES))
def test_a_spec_that_is_not_the_simulators_is_refused(run: Path, name: str,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    forge, field = SPEC_FORGERIES[name]
    m = manifest(run)
    forge(m)
    restamp_spec(m)
    write_manifest(run, m)
    code, out = audit_cli(run, capsys)
    assert code == 2, out
    assert field in out and "manifest.json" in out, out


def test_parse_spec_names_the_missing_key() -> None:
    d = SPEC.to_dict()
    del d["level_hands"]
    with pytest.raises(SpecError, match="spec.level_hands: missing"):
        parse_spec(d)
    assert isinstance(parse_spec(SPEC.to_dict()), RunFacts)


@pytest.mark.parametrize("value", ["11", math.nan, None, 12])
def test_a_top_level_seed_other_than_the_specs_fails_integrity(
        run: Path, value: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """H1: the manifest's top-level seed is a copy; written as a string, NaN, null or another
    number it disagrees with the spec, and integrity names it (NaN, which no JSON writer of
    ours writes, is unreadable input: exit 2 naming the field)."""
    m = manifest(run)
    m["seed"] = value
    write_manifest(run, m)
    code, out = audit_cli(run, capsys)
    if isinstance(value, float):
        assert code == 2 and "seed: NaN is not a JSON number" in out, out
        return
    assert code == 1, out
    assert "integrity" in out and "manifest.json: seed is" in out, out


def test_a_hand_dealt_from_a_seed_of_the_forgers_choice_fails_deal(
        run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """H1: the top-level seed nulled (the deal audit used to skip its seed check then) and a
    table's last hand dealt from another seed's key: the deal audit binds seed_key to the
    spec's seed and names the hand."""
    f = RunForger(run)
    i = f.find(lambda r: len(r["showdown_seats"]) >= 2, f.last_hands())
    row = f.rows[i]
    deck = hand_deck(777, int(row["table_id"]), int(row["hand_no"]))
    f.rows[i] = {**replay_with_deck(row, deck), "seed_key": [777, row["table_id"],
                                                            row["hand_no"]]}
    f.manifest["seed"] = None
    f.write()
    code, out = audit_cli(run, capsys)
    assert code == 1, out
    assert f"deal: hand {row['hand_id']}: seed_key is not [run seed" in out, out
    assert "manifest.json: seed is null" in out, out


def test_a_hand_labelled_phh_in_a_simulated_run_fails(run: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """H2: the manifest's generator nulled and a forged hand (hole cards swapped, replayed)
    labelled ``phh`` so that its deck is bound to no key: the deal audit takes the generator
    from the spec and names the hand; integrity names the manifest's generator."""
    f = RunForger(run)
    i = f.find(lambda r: len(r["showdown_seats"]) == 2 and len(winners(r)) == 1,
               f.last_hands())
    row = f.rows[i]
    a, b = row["showdown_seats"][:2]
    f.rows[i] = {**replay_with_deck(row, swap_hole_cards(row, a, b)), "generator": "phh"}
    f.manifest["generator"] = None
    f.write()
    code, out = audit_cli(run, capsys)
    assert code == 1, out
    assert f"deal: hand {row['hand_id']}: generator column differs" in out, out
    assert "manifest.json: generator is null" in out, out


@pytest.mark.parametrize("field", ["population", "files", "inject", "reproducible", "no files",
                                   "format", "import format"])
def test_manifest_fields_that_disagree_with_the_spec_fail_integrity(
        run: Path, field: str, capsys: pytest.CaptureFixture[str]) -> None:
    m = manifest(run)
    if field == "population":
        m["population"]["batches"]["no-limit"][2] = [6, "cash"]
        named = "population.batches"
    elif field == "files":
        m["files"][1]["hands"] = 400
        named = "files[1].hands"
    elif field == "no files":  # H5: a simulated run binds its files, whatever it lists
        m["files"] = []
        named = "audited but not listed in manifest.json"
    elif field == "format":  # no longer a simulated run's manifest: its spec escapes nothing
        m["format"] = "holdem-run"
        named = "manifest.json: format \"holdem-run\": expected"
    elif field == "import format":  # its hands are a simulator's: not an import's
        m["format"] = "holdem-phh-import"
        named = "generator column differs"
    elif field == "inject":
        m["inject"] = "mucks-winner"
        named = "manifest.json: inject is"
    else:
        m["reproducible"] = False
        named = "manifest.json: reproducible is"
    write_manifest(run, m)
    code, out = audit_cli(run, capsys)
    assert code == 1, out
    assert named in out, out


# --- point 4: every per-hand fact against the spec -----------------------------------------

def _cash_rows(f: RunForger) -> list[int]:
    return [i for i in f.last_hands() if f.rows[i]["format"] == "cash"]


def test_one_hand_raked_100_percent_fails_stakes(run: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """M6: a cash table's last hand that saw a flop played again under a 100% rake without a
    cap: pots, won, stacks and the rake all the engine's."""
    f = RunForger(run)
    i = f.find(lambda r: len(r["board"]) >= 3 and r["rake"] > 0, _cash_rows(f))
    row = f.rows[i]
    f.rows[i] = replay_with_config(row, rake_bps=10_000, rake_cap=0)
    assert f.rows[i]["rake"] > row["rake"]
    f.write()
    code, out = audit_cli(run, capsys)
    assert code == 1, out
    assert f"stakes: hand {row['hand_id']}: rake_bps is not the spec's: 10000, the rules " \
           f"give {row['rake_bps']}" in out, out


def test_blinds_times_five_in_one_hand_fails_stakes(run: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """M6: a walk (everybody folds to the big blind) at a cash table's last hand, played
    again with the blinds and bet sizes times 5: the posts and the uncalled return are the
    engine's."""
    f = RunForger(run)

    def walk(r: dict[str, Any]) -> bool:
        return (not r["board"] and sum(r["folded"]) == sum(r["occupied"]) - 1
                and r["won"][r["bb_seat"]] > 0 and r["sb_seat"] >= 0
                and min(r["stacks_start"][r["sb_seat"]], r["stacks_start"][r["bb_seat"]])
                > 5 * r["big_blind"])
    i = f.find(walk, _cash_rows(f))
    row = f.rows[i]
    bb = 5 * row["big_blind"]
    f.rows[i] = replay_with_config(row, small_blind=5 * row["small_blind"], big_blind=bb,
                                   min_bet=bb, small_bet=bb, big_bet=2 * bb)
    f.write()
    code, out = audit_cli(run, capsys)
    assert code == 1, out
    assert f"stakes: hand {row['hand_id']}: small blind is not the spec's schedule: small " \
           f"blind {5 * row['small_blind']}, the rules give {row['small_blind']}" in out, out
    for name in ("chips", "payouts", "betting"):  # the chips are consistent with the forgery
        assert f"{name}: hand {row['hand_id']}" not in out, out


def test_player_ids_relabelled_fail_stakes(run: Path, capsys: pytest.CaptureFixture[str]
                                           ) -> None:
    """M4: one made-up player sits in every winning seat (outside the row digest)."""
    f = RunForger(run)
    first = None
    for r in f.rows:
        ids = list(r["player_ids"])
        for s in winners(r):
            ids[s] = 4242
        if ids != r["player_ids"] and first is None:
            first = r["hand_id"]
        r["player_ids"] = ids
    f.write()
    code, out = audit_cli(run, capsys)
    assert code == 1, out
    assert f"stakes: hand {first}: player_ids of seat" in out, out


def _simulate_batch(spec: RunSpec, structure: Structure, index: int, first_table: int
                    ) -> pa.Table:
    """``sim.batch.simulate_batch`` with the batch's tables numbered from ``first_table``:
    every hand dealt from its (new) key, every column the engine's."""
    n = spec.batch_hands(index)
    k, _ = spec.batch_table(structure, index)
    cfg = config_block(table_config(spec, structure, index))
    params = _params(spec, structure, index)
    params[ss.P_TABLE_BASE] += first_table  # the tables' keys (decks, bots, events)
    ts = np.zeros(ss.T_SIZE, dtype=np.int64)
    ts[ss.T_TABLE] = -1
    b = _Buffers.get(n, k)
    counts = np.zeros(ss.N_COUNTS, dtype=np.int64)
    w, log, rs = ss.new_workspace()
    done = 0
    while done < n:
        done = ss.play_tables(cfg, params, ts, n, done, b.H, b.SE, b.DECK, b.BOARD, b.BURNS,
                              b.SHOW, b.POTS, b.ACT, counts, w, log, rs)
        if done < n:
            b.ACT = np.concatenate([b.ACT, np.empty_like(b.ACT)])
    table = _to_arrow(spec, structure, index, n, k, b.H, b.SE, b.DECK, b.BOARD, b.BURNS,
                      b.SHOW, b.POTS, b.ACT)
    rows = table.to_pylist()
    for r in rows:  # the logged table number and key: the ones the hands were dealt from
        r["table_id"] += first_table
        r["seed_key"] = [r["seed_key"][0], r["table_id"], r["hand_no"]]
    return pa.Table.from_pylist(rows, schema=table.schema)


def test_a_batch_with_tables_numbered_from_31_fails_stakes(
        run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """M5: batch 1 simulated again with its tables numbered 31, 32, ...: every deck its
    key's, stacks, ids and digests consistent; only the numbering from 0 gives it away."""
    rel = "log/no-limit/batch-00001.parquet"
    forged = _simulate_batch(SPEC, Structure.NO_LIMIT, 1, 31)
    old = pq.read_table(run / rel)
    assert forged.column("hand_id").equals(old.column("hand_id"))
    assert forged.column("table_id")[0].as_py() & 0xFFFFF == 31
    restamp_file(run, rel, forged.cast(as_v3(old).schema).replace_schema_metadata(
        old.schema.metadata))
    code, out = audit_cli(run, capsys)
    assert code == 1, out
    first = old.column("hand_id")[0].as_py()
    assert f"stakes: hand {first}: the batch's tables are not numbered from 0: its first " \
           "table is 31, the rules give 0" in out, out
    for name in ("deal", "chips", "rotation", "payouts", "betting"):
        assert f"\n{name:<12} PASS" in out, out


FORGED_SPECS = {
    "15% rake": ({"rake_bps": 1500}, "rake_bps is not the spec's"),
    "2000 bb buy-ins": ({"buy_in_bb": 2000, "buy_in_min_bb": 2000, "leave_above_bb": 6000},
                        "buy-in of seat"),
    "levels every 2 hands": ({"level_hands": 2}, "level is not the spec's"),
    "classic bots": ({"bots": "classic", "buy_in_min_bb": None}, "policy of seat"),
}


@pytest.mark.parametrize("name", sorted(FORGED_SPECS))
def test_a_run_made_under_another_spec_fails_stakes(run: Path, tmp_path: Path, name: str,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    """M6: the whole run simulated under another spec (15% rake, 2000 bb buy-ins, levels every
    2 hands, other bots) and shipped under the original: the manifest's spec, fingerprint,
    run_id and population are the original's, every row's run_id too, digests recomputed and
    the files restamped. The stakes audit names the hands."""
    changes, reason = FORGED_SPECS[name]
    other = replace(SPEC, **changes)
    made = tmp_path / "made"
    run_simulate(other, made, workers=0, progress=False)
    m = manifest(run)
    m_other = manifest(made)
    m_other.update({k: m[k] for k in ("spec", "fingerprint", "run_id", "population")})
    write_manifest(made, m_other)
    for rec in m_other["files"]:
        t = pq.read_table(made / rec["path"])
        rid = pa.array([m["run_id"]] * t.num_rows, t.schema.field("run_id").type)
        restamp_file(made, rec["path"],
                     t.set_column(t.schema.get_field_index("run_id"), "run_id", rid))
    code, out = audit_cli(made, capsys)
    assert code == 1, out
    assert "stakes: hand " in out and reason in out, out


def test_a_tables_last_hand_moved_to_the_next_table_fails_stakes(
        run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A cash table's last hand moved to the next table as its hand 0, every hand of that
    table renumbered and dealt from its new key: the table it left ended short without a
    reason (only the batch's last table may)."""
    f = RunForger(run)
    assert f.rows[0]["format"] == "cash"
    t0 = f.rows[0]["table_id"]
    last = max(i for i, r in enumerate(f.rows) if r["table_id"] == t0)
    seed = SPEC.seed
    for i, r in enumerate(f.rows):
        if i == last or r["table_id"] == t0 + 1:
            no = 0 if i == last else r["hand_no"] + 1
            moved = {**r, "table_id": t0 + 1, "hand_no": no, "seed_key": [seed, t0 + 1, no]}
            f.rows[i] = replay_with_deck(moved, hand_deck(seed, t0 + 1, no))
    f.write()
    code, out = audit_cli(run, capsys)
    assert code == 1, out
    assert (f"stakes: hand {f.rows[last - 1]['hand_id']}: a table other than the batch's last "
            "ended without a reason after 24 hands") in out, out


def test_the_certificate_states_what_the_audit_counted_and_only_the_bots_are_unchecked(
        run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The manifest's claims of hands per structure (its engine counters) and its copies of
    the seed are not what the certificate states: it takes the hands the integrity audit
    counted and the seed from the spec; with every hand checked against the spec, not_checked
    names only the bots' decisions and the table's random draws."""
    m = manifest(run)
    m["counts"]["per_structure"]["no-limit"]["hands"] = 999_999
    write_manifest(run, m)
    code, out = audit_cli(run, capsys)
    assert code == 0, out
    assert main(["report", str(run)]) == 0
    cert = json.loads((run / "certificate.json").read_text())
    assert cert["run"]["hands_per_structure"] == {"no-limit": 2000}
    assert (cert["run"]["seed"], cert["run"]["generator"]) == (11, "philox")
    assert len(cert["not_checked"]) == 2
    assert cert["not_checked"][0].startswith("The bots' decisions")
    assert "configuration" not in " ".join(cert["not_checked"])
    assert main(["verify", str(run)]) == 0  # the certificate is what report builds again
