"""The exact audits pass on clean simulated runs of every structure and format, and fail, naming
the hand, on single-value tampering and on injected engine faults."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from audits.evaluator import eval7_many, evaluate
from audits.io import ACTION_DTYPE, AuditInputError, read_batch
from audits.runfolder import batch_relpath
from audits.runner import REGISTRY, format_table, run_audits, write_audit_json
from cluster.flows.calibrate import EXACT_FAULTS
from sim.batch import simulate_batch
from sim.config import Structure
from sim.layout import EventKind
from sim.runspec import RunSpec

EXACT = ("deal", "chips", "rotation", "payouts", "betting")
HANDS = 3000
_CACHE: dict[tuple[str, Structure, str | None], pa.Table] = {}


def simulated(fmt: str, structure: Structure, inject: str | None = None) -> pa.Table:
    key = (fmt, structure, inject)
    if key not in _CACHE:
        spec = RunSpec(hands=HANDS, batch_size=HANDS, structures=(structure,), format=fmt,
                       seed=7, inject=inject)
        _CACHE[key] = simulate_batch(spec, structure, 0).table
    return _CACHE[key]


def write_run(root: Path, table: pa.Table, manifest: dict | None = None) -> Path:
    path = root / batch_relpath(table.column("structure")[0].as_py(), 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)
    if manifest is not None:
        (root / "manifest.json").write_text(json.dumps(manifest))
    return root


def set_value(table: pa.Table, column: str, row: int, value: object) -> pa.Table:
    values = table.column(column).to_pylist()
    values[row] = value
    idx = table.schema.get_field_index(column)
    return table.set_column(idx, table.schema.field(idx), pa.array(values, table.schema.field(idx)
                                                                   .type))


def audit(root: Path) -> dict[str, object]:
    return {r.name: r for r in run_audits(root, EXACT).results}


CONFIGS = [(f, s) for f in ("cash", "tournament") for s in Structure]


@pytest.mark.parametrize(("fmt", "structure"), CONFIGS, ids=[f"{f}-{s.label}" for f, s in CONFIGS])
def test_clean_runs_pass(tmp_path: Path, fmt: str, structure: Structure) -> None:
    root = write_run(tmp_path, simulated(fmt, structure))
    results = audit(root)
    for name in EXACT:
        r = results[name]
        assert r.passed, (name, r.details)
        assert r.hands_checked == HANDS and r.failures == 0 and r.p_value is None


def _row_where(table: pa.Table, pred) -> int:  # noqa: ANN001
    for i, row in enumerate(table.to_pylist()):
        if pred(row):
            return i
    raise AssertionError("no suitable hand")


def tamper_chip_moved(t: pa.Table) -> tuple[pa.Table, int]:
    r = _row_where(t, lambda h: sum(1 for x in h["stacks_end"] if x > 0) >= 2)
    end = t.column("stacks_end")[r].as_py()
    a, b = [s for s, x in enumerate(end) if x > 0][:2]
    end[a] -= 1
    end[b] += 1
    return set_value(t, "stacks_end", r, end), r


def tamper_deck_duplicate(t: pa.Table) -> tuple[pa.Table, int]:
    r = 10
    deck = bytearray(t.column("deck")[r].as_py())
    deck[40] = deck[41]
    return set_value(t, "deck", r, bytes(deck)), r


def tamper_hole_duplicate(t: pa.Table) -> tuple[pa.Table, int]:
    r = _row_where(t, lambda h: sum(h["occupied"]) >= 2)
    hole = t.column("hole_cards")[r].as_py()
    occ = [s for s, o in enumerate(t.column("occupied")[r].as_py()) if o]
    hole[2 * occ[1]] = hole[2 * occ[0]]
    return set_value(t, "hole_cards", r, hole), r


def tamper_button_moved(t: pa.Table) -> tuple[pa.Table, int]:
    r = 20
    occ = t.column("occupied")[r].as_py()
    b = t.column("button")[r].as_py()
    k = len(occ)
    nb = next(s % k for s in range(b + 1, b + k + 1) if occ[s % k])
    return set_value(t, "button", r, nb), r


def tamper_won_swapped(t: pa.Table) -> tuple[pa.Table, int]:
    r = _row_where(t, lambda h: len(set(h["won"])) >= 2)
    won = t.column("won")[r].as_py()
    a = next(s for s, x in enumerate(won) if x > 0)
    b = next(s for s, x in enumerate(won) if x != won[a])
    won[a], won[b] = won[b], won[a]
    return set_value(t, "won", r, won), r


def tamper_action_amount(t: pa.Table) -> tuple[pa.Table, int]:
    def has_call(h: dict) -> bool:
        a = np.frombuffer(h["actions"], ACTION_DTYPE)
        return bool(((a["kind"] == 8) & (a["added"] > 0)).any())

    r = _row_where(t, has_call)
    a = np.frombuffer(t.column("actions")[r].as_py(), ACTION_DTYPE).copy()
    j = int(np.flatnonzero((a["kind"] == 8) & (a["added"] > 0))[0])
    a["added"][j] += 1
    a["to_street_total"][j] += 1
    return set_value(t, "actions", r, a.tobytes()), r


TAMPERS = {
    "chip moved between stacks_end": (tamper_chip_moved, "chips"),
    "card duplicated in the deck": (tamper_deck_duplicate, "deal"),
    "card duplicated in hole cards": (tamper_hole_duplicate, "deal"),
    "button moved": (tamper_button_moved, "rotation"),
    "won swapped": (tamper_won_swapped, "payouts"),
    "action amount changed": (tamper_action_amount, "betting"),
}


@pytest.mark.parametrize("fmt", ["cash", "tournament"])
@pytest.mark.parametrize("tamper", list(TAMPERS))
def test_tampering_fails_naming_the_hand(tmp_path: Path, tamper: str, fmt: str) -> None:
    structure = Structure.NO_LIMIT if fmt == "cash" else Structure.FIXED_LIMIT
    fn, audit_name = TAMPERS[tamper]
    table, row = fn(simulated(fmt, structure))
    hand_id = table.column("hand_id")[row].as_py()
    r = audit(write_run(tmp_path, table))[audit_name]
    assert not r.passed and r.failures >= 1
    assert hand_id in r.example_hand_ids, (r.example_hand_ids, r.details)


_FIRED: dict[str | None, int] = {}


def _fired(fault: str) -> int:
    if fault not in _FIRED:
        spec = RunSpec(hands=HANDS, batch_size=HANDS, structures=(Structure.NO_LIMIT,),
                       format="cash", seed=7, inject=fault)
        res = simulate_batch(spec, Structure.NO_LIMIT, 0)
        _CACHE[("cash", Structure.NO_LIMIT, fault)] = res.table
        _FIRED[fault] = res.counts["fault_fired"]
    return _FIRED[fault]


# every engine fault of `holdem calibrate` but chip-lost (1 hand in 10,000: calibrate runs it)
FAULT_CASES = [(f, a) for f, a in EXACT_FAULTS.items() if f != "chip-lost"]


@pytest.mark.parametrize(("fault", "audit_name"), FAULT_CASES, ids=[f for f, _ in FAULT_CASES])
def test_injected_faults_fail(tmp_path: Path, fault: str, audit_name: str) -> None:
    fired = _fired(fault)
    assert fired > 0, f"{fault} never fired in {HANDS} hands"
    table = simulated("cash", Structure.NO_LIMIT, fault)
    r = audit(write_run(tmp_path, table, {"inject": fault,
                                          "fault_injected": f"FAULT INJECTED: {fault}"}))
    assert not r[audit_name].passed
    if fault in ("mucks-winner", "wrong-stream-position"):
        # faults only a check against primary facts can see: every hand they fired in is named
        assert r[audit_name].failures == fired, (r[audit_name].failures, fired)


def test_report_and_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cluster.cli import main

    root = write_run(tmp_path / "clean", simulated("cash", Structure.POT_LIMIT),
                     {"run_id": "abc", "fingerprint": "abc", "inject": None})
    only = ",".join(EXACT)
    assert main(["audit", str(root), "--workers", "0", "--quiet", "--only", only]) == 0
    report = json.loads((root / "audit.json").read_text())
    assert report["passed"] and report["fingerprint"] == "abc"
    assert {r["name"] for r in report["results"]} == {*EXACT, "integrity"}  # integrity: always
    assert "could not be bound" in report["results"][-1]["details"]["note"]  # no files listed
    assert "ALL PASS" in capsys.readouterr().out
    bad, _ = tamper_won_swapped(simulated("cash", Structure.POT_LIMIT))
    root = write_run(tmp_path / "bad", bad, {"inject": "chip-lost",
                                             "fault_injected": "FAULT INJECTED: chip-lost"})
    assert main(["audit", str(root), "--workers", "0", "--quiet", "--only", "payouts"]) == 1
    out = capsys.readouterr().out
    assert "FAULT INJECTED" in out and "FAIL" in out
    assert main(["audit", str(root), "--workers", "0", "--only", "nope"]) == 2


def test_unusable_input_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cluster.cli import main

    with pytest.raises(AuditInputError, match="no such run folder"):
        run_audits(tmp_path / "absent")
    corrupt = tmp_path / "corrupt" / batch_relpath("no-limit", 0)
    corrupt.parent.mkdir(parents=True)
    corrupt.write_bytes(b"not parquet at all")
    with pytest.raises(AuditInputError, match="batch-00000.parquet: not a readable Parquet"):
        run_audits(tmp_path / "corrupt")
    assert main(["audit", str(tmp_path / "corrupt"), "--workers", "0", "--quiet"]) == 2
    assert "batch-00000.parquet" in capsys.readouterr().err
    foreign = tmp_path / "foreign" / batch_relpath("no-limit", 0)
    foreign.parent.mkdir(parents=True)
    pq.write_table(pa.table({"x": [1, 2]}), foreign)
    with pytest.raises(AuditInputError, match=r"schema mismatch: \d+ of \d+ columns missing"):
        read_batch(foreign)
    t = simulated("cash", Structure.NO_LIMIT)
    idx = t.schema.get_field_index("rake")
    wrong = t.set_column(idx, "rake", t.column("rake").cast(pa.int32()))
    with pytest.raises(AuditInputError, match="column 'rake' is int32, expected int64"):
        run_audits(write_run(tmp_path / "wrongtype", wrong))
    root = tmp_path / "listed"
    root.mkdir()
    (root / "manifest.json").write_text(json.dumps({"files": [{"path": batch_relpath("x", 0)}]}))
    with pytest.raises(AuditInputError, match="listed in manifest.json but missing"):
        run_audits(root)


def test_registry_accepts_more_audits(tmp_path: Path) -> None:
    from audits.result import Partial
    from audits.runner import register

    register("count-only", lambda b: Partial(hands=b.n))
    try:
        root = write_run(tmp_path, simulated("cash", Structure.NO_LIMIT))
        res = run_audits(root, ["count-only"])
        assert res.results[0].passed and res.results[0].hands_checked == HANDS
        write_audit_json(res)
        assert "count-only" in format_table(res)
    finally:
        REGISTRY.pop("count-only")


def test_evaluator_orders_hands_like_a_reference() -> None:
    from sim.evaluator import evaluate_many  # tests may use the engine as a second opinion

    rng = np.random.default_rng(3)
    hands = np.argsort(rng.random((20000, 52)), axis=1)[:, :7].astype(np.int64)
    mine = eval7_many(hands)
    ref = np.asarray(evaluate_many(hands.astype(np.int8)))
    o = np.argsort(mine, kind="stable")
    dm, dr = np.diff(mine[o]), np.diff(ref[o])
    assert (dr[dm > 0] > 0).all() and (dr[dm == 0] == 0).all()


def card(text: str) -> int:
    return "23456789TJQKA".index(text[0]) * 4 + "cdhs".index(text[1])


def test_evaluator_known_hands() -> None:
    def ev(s: str) -> int:
        return evaluate([card(c) for c in s.split()])

    wheel, six_high = ev("Ac 2d 3h 4s 5c"), ev("2d 3h 4s 5c 6d")
    assert wheel < six_high < ev("2c 4c 6c 8c Tc") < ev("2c 2d 2h 3s 3c")
    assert ev("Ah As Kd Qc 2s") > ev("Ah As Kd Jc Ts")
    assert ev("Ah Kh Qh Jh Th 2c 3d") > ev("As Ad Ah Ac Kd 2c 3d")
    assert ev("7c 7d 2h 2s 9c Kd 3h") == ev("7h 7s 2c 2d 9d Kc 4h")


def test_simulated_run_without_decks_fails_deal(tmp_path: Path) -> None:
    """A simulated run's hands were dealt from decks: dropping them certifies nothing."""
    t = simulated("cash", Structure.NO_LIMIT).drop_columns(["deck"])
    res = {r.name: r for r in run_audits(write_run(tmp_path, t), EXACT).results}
    assert res["deal"].applicable and not res["deal"].passed
    assert res["deal"].failures == HANDS
    assert res["deal"].example_hand_ids[0] == t.column("hand_id")[0].as_py()
    assert "no deck logged in a simulated run" in res["deal"].details["violations"][0]["reason"]


def test_deal_not_applicable_for_imported_hands_without_decks(tmp_path: Path) -> None:
    """Hands that name no simulator (imported histories: generator phh, no key) may lack decks;
    then the deal audit is not applicable (the certificate says the deal was not certified)."""
    t = simulated("cash", Structure.NO_LIMIT).drop_columns(["deck"])
    n = t.num_rows
    t = t.set_column(t.schema.get_field_index("generator"), "generator",
                     pa.array(["phh"] * n, pa.string()))
    t = t.set_column(t.schema.get_field_index("seed_key"), "seed_key",
                     pa.array([[]] * n, pa.list_(pa.uint64())))
    res = {r.name: r for r in run_audits(write_run(tmp_path, t), EXACT).results}
    assert not res["deal"].applicable and res["deal"].passed
    assert res["deal"].details["totals"]["imported"] == n
    assert all(res[name].passed for name in EXACT)


def _edit_action(t: pa.Table, kind: int, street_min: int, edit) -> tuple[pa.Table, int]:  # noqa: ANN001
    acts = t.column("actions").to_pylist()
    for r, value in enumerate(acts):
        a = np.frombuffer(value, ACTION_DTYPE).copy()
        hits = np.flatnonzero((a["kind"] == kind) & (a["street"] >= street_min))
        if len(hits):
            edit(a[hits[0]:hits[0] + 1])
            return set_value(t, "actions", r, a.tobytes()), r
    raise AssertionError("no suitable action")


def _check_to_fold(rec: np.ndarray) -> None:
    rec["kind"] = EventKind.FOLD


def _bet_plus_one(rec: np.ndarray) -> None:
    rec["added"] += 1
    rec["to_street_total"] += 1


def _one_chip_short(rec: np.ndarray) -> None:
    rec["added"] -= 1


def _one_chip_over(rec: np.ndarray) -> None:
    rec["added"] += 1


def _to_the_next_seat(rec: np.ndarray) -> None:
    rec["seat"] ^= 1


def _bet_times_ten(rec: np.ndarray) -> None:
    extra = rec["to_street_total"] * 9
    rec["added"] += extra
    rec["to_street_total"] += extra


@pytest.mark.parametrize(("structure", "kind", "edit", "reason"), [
    (Structure.NO_LIMIT, EventKind.CHECK, _check_to_fold, "illegal fold"),
    (Structure.FIXED_LIMIT, EventKind.BET, _bet_plus_one, "above the maximum"),
    (Structure.POT_LIMIT, EventKind.BET, _bet_times_ten, "above the maximum"),
    (Structure.NO_LIMIT, EventKind.RETURN_UNCALLED, _one_chip_short, "uncalled bet return wrong"),
    (Structure.POT_LIMIT, EventKind.RETURN_UNCALLED, _one_chip_over, "uncalled bet return wrong"),
    (Structure.FIXED_LIMIT, EventKind.RETURN_UNCALLED, _to_the_next_seat,
     "uncalled bet return wrong"),
], ids=["fold-for-free", "fixed-limit-size", "pot-limit-max", "return-short", "return-over",
        "return-to-another-seat"])
def test_betting_rule_violations(tmp_path: Path, structure: Structure, kind: int, edit,  # noqa: ANN001
                                 reason: str) -> None:
    table, row = _edit_action(simulated("cash", structure), kind,
                              0 if kind == EventKind.RETURN_UNCALLED else 1, edit)
    r = audit(write_run(tmp_path, table))["betting"]
    hand_id = table.column("hand_id")[row].as_py()
    assert not r.passed and hand_id in r.example_hand_ids
    assert any(reason in v["reason"] for v in r.details["violations"]), r.details


def test_betting_violation_codes_are_named() -> None:
    """Every code the referee returns is a named constant of audits.betting, with a message."""
    from audits import betting
    named = {v: k for k, v in vars(betting).items() if k.startswith("V_")}
    assert len(named) == len([k for k in vars(betting) if k.startswith("V_")])  # distinct
    assert set(betting.MESSAGES) == set(named) and betting.OK not in named
