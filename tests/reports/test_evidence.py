"""The certificate says, per audit, what it checked against which facts, the calibration
evidence beside it when there is some, and in words what it does not vouch for."""

from __future__ import annotations

from typing import Any

from reports.render import build_run_certificate, calibration_evidence, md_text, render_summary


def _audit(**over: Any) -> dict[str, Any]:
    results = []
    for name in ("integrity", "deal", "chips", "rotation", "payouts", "betting", "coverage",
                 "uniformity"):
        r = {"name": name, "passed": True, "applicable": True, "hands_checked": 10,
             "failures": 0, "statistic": None, "p_value": None, "example_hand_ids": [],
             "details": {}, "checks": f"{name} against facts"}
        r.update(over.get(name, {}))
        results.append(r)
    return {"results": results, "hands": 10}


def test_plain_pass_has_no_limitations() -> None:
    cert = build_run_certificate(_audit(deal={"details": {"totals": {"keyed": 10}}}), {})
    assert cert["verdict"] == cert["verdict_text"] == "PASS" and cert["limitations"] == []
    assert cert["audits"][1]["checks"] == "deal against facts"
    assert "LIMITED" not in render_summary(cert)


def test_imported_hands_without_decks_read_as_limited() -> None:
    cert = build_run_certificate(_audit(deal={"applicable": False},
                                    uniformity={"applicable": False}), {})
    assert cert["verdict"] == "PASS" and cert["verdict_text"].startswith("PASS, LIMITED")
    assert any("deal and the shuffle were NOT certified" in t for t in cert["limitations"])
    summary = render_summary(cert)
    assert "**PASS, LIMITED**" in summary and "NOT CERTIFIED" in summary
    assert f"Verdict: {md_text(cert['verdict_text'])}" in summary


def test_unkeyed_decks_are_named_with_what_was_checked_instead() -> None:
    cert = build_run_certificate(_audit(deal={"details": {"totals": {"unkeyed": 7}}}), {})
    (text,) = cert["limitations"]
    assert "7 hands were dealt with os-chacha20" in text and "cannot be bound to a key" in text
    assert "Checked instead" in text


def test_unkeyed_decks_limitation_names_the_seat_tests_that_ran() -> None:
    """Issue 23 (H3): the os-chacha20 limitation says what the battery tested, by name, and
    which tests of who receives the cards did not apply; never a bare "pass the battery"."""
    def test(name: str, applicable: bool) -> dict[str, Any]:
        return {"name": f"uniformity.{name}", "passed": True, "applicable": applicable,
                "hands_checked": 10, "failures": 0, "statistic": None, "p_value": None,
                "example_hand_ids": [], "details": {}}
    tests = [test("card_position", True), test("seat_hand_classes", True),
             test("seat_equity", True), test("player_hand_classes", False),
             test("player_equity", False)]
    cert = build_run_certificate(_audit(deal={"details": {"totals": {"unkeyed": 7}}},
                                    uniformity={"details": {"tests": tests}}), {})
    (text,) = cert["limitations"]
    assert "pass the uniformity battery" not in text
    assert "the starting-hand classes per absolute seat (169" in text
    assert "the all-in winner per seat" in text
    assert "not applicable here: 9 starting-hand bands per player, the all-in winner per " \
           "player" in text
    assert "nothing excludes a deal chosen hand by hand" in text


def test_audits_not_run_are_limitations() -> None:
    audit = _audit()
    audit["results"] = [r for r in audit["results"] if r["name"] != "payouts"]
    cert = build_run_certificate(audit, {})
    assert any(t.startswith("payouts was not audited") for t in cert["limitations"])


def test_calibration_evidence_beside_each_audit() -> None:
    cal = {"exact": {"faults": {"mucks-winner": {"audit": "payouts", "runs": 10, "fired": 9,
                                                 "caught": 9}},
                     "clean": {"payouts": {"false_alarms": 0, "runs": 10}}},
           "uniformity": {"clean": {"decks": 20000, "battery": {"count": 6, "runs": 1000}},
                          "faults": {"asf_off_by_one": {"250": {"battery": {"rate": 0.7}},
                                                        "500": {"battery": {"rate": 1.0}}}}}}
    ev = calibration_evidence(cal)
    assert ev["payouts"] == ("mucks-winner caught in 9/9 runs it fired in; false alarms 0/10 "
                             "clean runs")
    assert "asf_off_by_one detected in every run from 500 decks" in ev["uniformity"]
    cert = build_run_certificate(_audit(), {}, None, cal)
    by = {a["name"]: a for a in cert["audits"]}
    assert by["payouts"]["calibration"] == ev["payouts"] and "calibration" not in by["chips"]


def test_coverage_shortfall_fails_with_the_reason_and_a_small_run_is_limited() -> None:
    per = {"fixed-limit": {"hands": 200_000, "all_in": {"count": 0, "minimum": 20, "ok": False},
                           "showdown": {"count": 9_000, "minimum": 20, "ok": True}}}
    short = "fixed-limit/all_in below its minimum (0 of 20 in 200,000 hands)"
    cert = build_run_certificate(_audit(coverage={"passed": False, "failures": 1, "details": {
        "per_structure": per, "short": [short],
        "violations": [{"hand_id": None, "reason": short}]}}), {})
    assert cert["verdict"] == "FAIL" and cert["verdict_reasons"] == ["coverage"]
    # the verdict and its first reason, with the amounts, in one sentence
    assert cert["verdict_text"] == f"FAIL: coverage: {short}"
    assert cert["coverage"]["fixed-limit"]["all_in"] == {"count": 0, "minimum": 20, "ok": False}
    assert "all_in 0/20 ✗" in render_summary(cert)
    small = build_run_certificate(_audit(coverage={"applicable": False, "details": {
        "note": "too small to certify coverage: no-limit (fewer than 100,000 hands)"}}), {})
    assert small["verdict"] == "PASS" and small["verdict_text"].startswith("PASS, LIMITED")
    assert any("too small to certify coverage" in t for t in small["limitations"])


def test_unbound_files_and_what_no_audit_checks_are_said() -> None:
    cert = build_run_certificate(_audit(integrity={"applicable": False, "details": {
        "note": "no manifest.json: the files could not be bound"}}), {})
    assert cert["verdict_text"].startswith("PASS, LIMITED")
    assert any("could not be bound to a manifest" in t for t in cert["limitations"])
    plain = build_run_certificate(_audit(), {})
    assert plain["verdict_text"] == "PASS" and len(plain["not_checked"]) == 2
    assert "Not checked by any audit" in render_summary(plain)
