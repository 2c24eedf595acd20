"""``holdem report RUN``: the certificate of a run folder as ``report.html`` (one
self-contained page, plots inline as SVG, printable), ``certificate.json`` and ``summary.md``.

Everything shown comes from ``audit.json`` (the audits' results) and ``manifest.json`` (the
run's provenance); this module formats, it recomputes nothing. Replays of failing hands are
passed in by the caller (``histories``), since reports/ does not run the engine.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from audits import runspec
from audits.result import AuditResult, by_name, read_results
from audits.rig_power import ALPHA, POWER, rig_power
from audits.runfolder import REPORT_FILES, RunFolder, storage
from audits.runfolder.storage import Location
from audits.runner import AUDIT_FILE
from reports import imports, plots
from reports.certificate import CERTIFICATE_SCHEMA, Certificate, certified_audits
from reports.inputs import ReportInputError, load_inputs
from reports.lab import html_section as lab_html
from reports.lab import summary_lines as lab_summary
from reports.summaries import summary_limitation


def _flat_results(audit: dict[str, Any]) -> list[AuditResult]:
    """Every audit, and each statistical test of a battery right after its battery."""
    out = []
    for r in read_results(audit):
        out.append(r)
        out.extend(r.tests)
    return out


def _uniformity(audit: dict[str, Any]) -> AuditResult | None:
    return by_name(read_results(audit)).get("uniformity")


def _test(u: AuditResult | None, name: str) -> AuditResult | None:
    return None if u is None else u.test(f"uniformity.{name}")


SEAT_TESTS = {"seat_hand_classes": "the starting-hand classes per absolute seat (169; 9 bands "
                                   "below 1,700 hands)",
              "player_hand_classes": "9 starting-hand bands per player",
              "seat_equity": "the all-in winner per seat",
              "player_equity": "the all-in winner per player",
              "pooled_hand_classes": "the 169 starting-hand classes pooled over every seat",
              "pooled_hand_features": "pairs, suited and connected hands pooled over every seat",
              "runout_calibration": "every run-out after an all-in (the favourite's share "
                                    "against its equity at the all-in point)",
              "runout_bins": "run-outs by the favourite's equity",
              "runout_seats": "run-outs per seat",
              "runout_players": "run-outs per player",
              "runout_dispersion": "players luckier in run-outs than chance (over-dispersion)",
              "board_texture": "flop, turn and river texture after big pots and small",
              "player_dispersion": "players dealt better cards than chance (over-dispersion)"}
GAME_TESTS = ("runout_calibration", "runout_bins", "runout_seats", "runout_players",
              "runout_dispersion", "board_texture")
# a lab's list of suspect players (``--suspects FILE``): named only when the list was given
LISTED_TESTS = {"listed_pairs": "the listed suspect players' pairs",
                "listed_hand_bands": "the listed suspect players' hand bands",
                "listed_runouts": "the listed suspect players' run-out luck"}


def _tests_by_short_name(uni: AuditResult) -> dict[str, AuditResult]:
    return {t.name.rpartition(".")[2]: t for t in uni.tests}


def seen_cards_verdict(uni: AuditResult | None) -> str:
    """An imported run's deal verdict from the cards that were seen, in words ('' when none of
    the tests that condition on the game applied)."""
    if uni is None:
        return ""
    tests = _tests_by_short_name(uni)
    ran = [t for t in GAME_TESTS if t in tests and tests[t].applicable]
    if not ran:
        return ""
    failed = [t for t in ran if not tests[t].passed]
    return ("Their deal was tested from the cards that were seen (" + ", ".join(
        SEAT_TESTS[t] for t in ran) + "): " + ("FAILED " + ", ".join(failed) if failed else
                                               "no test rejected a fair deal") +
            ". A run-out after an all-in is not selected by the players' decisions (every live "
            "hand is shown and the rest of the board is dealt after the last decision), so its "
            "law given the cards seen is exact; cards shown at a showdown are selected by the "
            "decisions and serve only as known cards, never as a sample of hands; folded cards "
            "nobody showed are counted among the unseen cards and taken as uniform over them "
            "(the folds, decisions on those cards, bend that law slightly). What this cannot "
            "show: a bias in the cards of hands that were folded and never shown.")


def _battery_tested(uni: AuditResult | None) -> str:
    """What the uniformity battery tested, in words: the deck tests and, by name, which tests
    of who receives the cards applied (the others, and why not)."""
    if uni is None:
        return "the uniformity battery was not run"
    tests = _tests_by_short_name(uni)
    ran = [w for t, w in {**SEAT_TESTS, **LISTED_TESTS}.items()
           if t in tests and tests[t].applicable]
    skipped = [w for t, w in SEAT_TESTS.items() if t in tests and not tests[t].applicable]
    text = ("the uniformity battery tested the decks' card/position, adjacency, collision and "
            "consecutive-deck frequencies and who receives the cards: "
            + (", ".join(ran) if ran else "none of its seat and player tests applied")
            + ", each against its exact law under a fair deal (statistical: a rig smaller than "
            "the power this certificate states for its size, under 'Power against rigged "
            "dealers', is not excluded)")
    if skipped:
        text += "; not applicable here: " + ", ".join(skipped)
    return text


def rig_power_of(uni: AuditResult | None) -> dict[str, Any] | None:
    """The smallest rig of each kind this run's deal tests catch with probability 0.9, from
    their own counts (``audits.rig_power``), or None when none of their tests applied."""
    if uni is None or not uni.applicable:
        return None
    tests = {n: t.details for n, t in _tests_by_short_name(uni).items() if t.applicable}
    rigs = rig_power(tests)
    if not rigs:
        return None
    return {"power": POWER, "alpha": ALPHA, "level": rigs[0]["level"],
            "sentences": [r["sentence"] for r in rigs], "rigs": rigs}


def calibration_evidence(cal: dict[str, Any] | None) -> dict[str, str]:
    """Per audit, one line of the evidence ``holdem calibrate`` measured (``calibration.json``):
    each engine fault it must catch (detections among the runs the fault fired in) and its false
    alarms on clean runs; for the uniformity battery its false-alarm rate and the smallest deck
    count at which each shuffle fault was always detected."""
    if not isinstance(cal, dict):
        return {}
    out: dict[str, list[str]] = {}
    exact = cal.get("exact") or {}
    for fault, r in (exact.get("faults") or {}).items():
        if isinstance(r, dict) and "audit" in r:
            out.setdefault(r["audit"], []).append(
                f"{fault} caught in {r.get('caught', 0)}/{r.get('fired', 0)} runs it fired in")
    for name, r in (exact.get("clean") or {}).items():
        if isinstance(r, dict):
            out.setdefault(name, []).append(
                f"false alarms {r.get('false_alarms', 0)}/{r.get('runs', 0)} clean runs")
    uni = cal.get("uniformity") or {}
    clean = (uni.get("clean") or {}).get("battery")
    if isinstance(clean, dict):
        out.setdefault("uniformity", []).append(
            f"false alarms {clean.get('count')}/{clean.get('runs')} fair runs of "
            f"{(uni.get('clean') or {}).get('decks', 0):,} decks")
    seat = {t: r for t, r in ((uni.get("clean") or {}).get("tests") or {}).items()
            if t in SEAT_TESTS and isinstance(r, dict)}
    if seat:
        out.setdefault("uniformity", []).append(
            "seat and player tests' false alarms (raw p <= alpha) " + ", ".join(
                f"{t} {r.get('count')}/{r.get('runs')}" for t, r in seat.items()))
    for fault, sizes in (uni.get("faults") or {}).items():
        full = [int(n) for n, r in sizes.items()
                if isinstance(r, dict) and (r.get("battery") or {}).get("rate") == 1.0]
        if full:
            out.setdefault("uniformity", []).append(
                f"{fault} detected in every run from {min(full):,} decks")
    _game_evidence(cal.get("game"), out)
    return {name: "; ".join(lines) for name, lines in out.items()}


def _game_evidence(game: Any, out: dict[str, list[str]]) -> None:
    """The deal tests conditioned on the game (``holdem calibrate --parts game``): each test's
    false alarms per kind of run, and each rig's simulated power beside the formula's."""
    if not isinstance(game, dict):
        return
    for kind, f in (game.get("fair") or {}).items():
        if not isinstance(f, dict):
            continue
        for t, r in (f.get("tests") or {}).items():
            if isinstance(r, dict) and t != "battery":
                out.setdefault(f"uniformity.{t}", []).append(
                    f"false alarms {r.get('false_alarms')}/{r.get('runs')} fair {kind} runs "
                    f"(band {r.get('band')}: {r.get('verdict')})")
    for r in game.get("power") or []:
        if not isinstance(r, dict) or not all(
                isinstance(r.get(k), int | float) and not isinstance(r.get(k), bool)
                for k in ("strength", "hands", "predicted")):
            continue
        out.setdefault(f"uniformity.{r.get('test')}", []).append(
            f"{r.get('rig')} {r['strength']:.3f} at {int(r['hands']):,} hands caught in "
            f"{r.get('rejected')}/{r.get('runs')} runs (formula {r['predicted']:.2f})")


def coverage_of(audit: dict[str, Any]) -> dict[str, Any]:
    """``coverage[structure][path] = {count, minimum, ok}`` and ``coverage[structure]["hands"]``,
    as the coverage audit counted them from the log (empty when it did not run)."""
    cov = by_name(read_results(audit)).get("coverage")
    return (cov.details.get("per_structure") or {}) if cov is not None else {}


# what no audit checks in a run without the stakes audit (imported hand histories, or an
# audit.json of an older holdem): printed on its certificate so that a plain PASS is never read
# as vouching for it
NOT_CHECKED = (
    "Each hand's configuration (blinds, antes, bet sizes, rake rate and cap, no-flop-no-drop) is "
    "taken as logged: the chips are checked against the configuration the hand logs, not "
    "against the run's spec.",
    "Which hands sit at which table is checked for numbering (tables of a batch numbered from "
    "0, hands of a table from 0, in order), not re-derived from the run's table plan: a hand's "
    "deck is bound to the key of the table and hand number it logs. `holdem verify RUN "
    "--reproduce` re-simulates the run from its spec and compares every hand.",
)
# what no audit checks in an import audited against the operator's game file (``holdem import
# --game``): the stakes are the game's, not re-derived from the hand's place in a tournament
NOT_CHECKED_IMPORT_GAME = (
    "Each hand's blinds, ante and bets are checked against the game file's stakes (cash) or "
    "levels (tournaments): a tournament hand at any of the game's levels passes, whichever "
    "level its place in the tournament gives; the rake against the game's [rake] (outcome).")
# what no audit checks in a simulated run whose every hand the stakes audit checked against
# the spec (docs/audits.md, "Every column, and what checks it")
NOT_CHECKED_SIMULATED = (
    "The bots' decisions: which legal action each seat took (every action is checked for "
    "legality, and every chip against the rules, but not re-derived from the bot's code and "
    "stream), and which decision timed out.",
    "The table's random draws are checked against their rules and ranges, not re-drawn from "
    "the table's stream: which bot sits in a seat, who leaves and when a new player sits down, "
    "the buy-in drawn within the population's range, the first button, a tournament table's "
    "ante kind. `holdem verify RUN --reproduce` re-simulates the run from its spec and "
    "compares every hand.",
)


# what the certificate repeats from manifest.json as the run's own statements: no audit checks
# them (``audits.runspec.claim_problems`` checks only status, schema_version, digest_version)
CLAIMS_NOT_CHECKED = (
    "Stated by the run, not audited: the commit and engine version that made it, its created "
    "and finished times, timings, runtime and provenance (which code and command ran) are "
    "repeated from manifest.json as the run wrote them.",
)


def not_checked(audit: dict[str, Any]) -> list[str]:
    """What no audit of this audit.json checked, in words: with the stakes audit applicable
    (a simulated run's every hand against its spec), only the bots' decisions and the table's
    random draws; else also each hand's configuration and the table plan."""
    stakes = by_name(read_results(audit)).get("stakes")
    if stakes is not None and stakes.applicable and "import_cash" in (
            stakes.details.get("totals") or {}):  # an import against its game file
        return [NOT_CHECKED_IMPORT_GAME, *NOT_CHECKED[1:]]
    if stakes is not None and stakes.applicable:
        return list(NOT_CHECKED_SIMULATED)
    return list(NOT_CHECKED)


def game_line(spec: Any) -> str:
    """The stakes a simulated run's spec played, in one line (its game's name first): the cash
    blinds, ante, rake and cap (not for a tournament-only run), fixed-limit bets, tournament
    levels and stack, the bot mix. Empty without a spec."""
    if not isinstance(spec, dict) or "big_blind" not in spec:
        return ""
    try:
        bb = int(spec["big_blind"])
        fmt = spec.get("format")
        parts = []
        if fmt != "tournament":
            parts.append(f"cash blinds {int(spec['small_blind']):,}/{bb:,}")
            if spec.get("ante"):
                who = "the big blind" if spec.get("ante_mode") == "big-blind" else "every player"
                parts.append(f"ante {int(spec['ante']):,} ({who})")
            cap = spec.get("rake_cap")
            cap = int(spec.get("rake_cap_bb", 0)) * bb if cap is None else int(cap)
            rake = f"rake {int(spec['rake_bps']) / 100:g}%" + (f" capped at {cap:,}" if cap
                                                                else " uncapped")
            if spec.get("rake_caps_by_players"):
                rake += " (" + ", ".join(f"{int(c):,} at {int(n)} players"
                                         for n, c in spec["rake_caps_by_players"]) + ")"
            if spec.get("no_flop_no_drop", True):
                rake += ", no flop no drop"
            parts.append(rake)
            if spec.get("small_bet") or spec.get("big_bet") or "raise_cap" in spec:
                small = int(spec.get("small_bet") or bb)
                parts.append(f"fixed-limit bets {small:,}/"
                             f"{int(spec.get('big_bet') or 2 * small):,}, "
                             f"{int(spec.get('raise_cap', 4))} raises a street")
        levels = spec.get("levels")
        if fmt in ("tournament", "mixed"):
            stack = int(spec.get("tournament_stack_bb") or spec["buy_in_bb"]) * bb
            each = int(spec["level_hands"])
            if levels:
                first, last = levels[0], levels[-1]
                n = len(levels)
                antes = next((f", antes from level {i + 1}" for i, lv in enumerate(levels)
                              if int(lv[2])), ", no antes")
                size = "" if spec.get("level_seconds") else f" of {each:,} hands"
                parts.append(f"tournaments of {stack:,} chips, {n} level{'s' * (n != 1)}{size} "
                             f"from {int(first[0]):,}/{int(first[1]):,} to "
                             f"{int(last[0]):,}/{int(last[1]):,}{antes}")
            else:
                parts.append(f"tournaments of {stack:,} chips, blinds {int(spec['small_blind']):,}"
                             f"/{bb:,} rising every {each:,} hands (the built-in schedule)")
            parts.extend(_tournament_parts(spec))
        if spec.get("bot_mix"):
            parts.append("bots " + ", ".join(f"{name} {int(w):,}" for name, w in spec["bot_mix"]))
        if spec.get("python_bots"):  # bots of one's own (sim.pybots): each with its source
            parts.append("Python bots " + ", ".join(
                f"{b['name']} (weight {int(b['weight']):,}, {b['source']}:{b['callable']}, "
                f"source sha256 {str(b['sha256'])[:12]})" for b in spec["python_bots"]))
    except (KeyError, TypeError, ValueError):
        return ""
    line = ", ".join(parts)
    return f"{spec['game']}: {line}" if isinstance(spec.get("game"), str) else line


def _tournament_parts(spec: dict[str, Any]) -> list[str]:
    """The game line's tournament extras: levels by time, re-buys, the add-on, payouts."""
    out = []
    if spec.get("level_seconds"):
        out.append(f"levels of {int(spec['level_seconds']):,} seconds (a hand "
                   f"{int(spec.get('seconds_per_hand', 20))} s + "
                   f"{int(spec.get('seconds_per_action', 5))} s an action)")
    rb = spec.get("rebuys")
    if rb:
        out.append(f"up to {int(rb['max'])} re-buys of {int(rb['chips']):,} chips at or below "
                   f"{int(rb['at_or_below']):,} before level {int(rb['until_level'])}")
    ao = spec.get("add_on")
    if ao:
        out.append(f"an add-on of {int(ao['chips']):,} chips at level {int(ao['at_level'])}")
    if spec.get("payouts"):
        out.append(f"buy-in {int(spec['tournament_buy_in']):,} paying "
                   + "/".join(f"{int(p)}" for p in spec["payouts"]) + "% of the pool")
    return out


def tournament_lines(t: Any) -> list[str]:
    """The certificate's tournament results (its ``tournaments``: the stakes audit's details)
    in lines: the tables' count and prize pools, then the places and prizes of the first
    tables (one line each)."""
    if not isinstance(t, dict):
        return []
    try:
        lines = [f"Tournaments: {int(t['finished']):,} finished tables "
                 f"({int(t['unfinished']):,} stopped with their batch, without places), prize "
                 f"pools {int(t['prize_pools']):,} in all; places and prizes derived from the "
                 "log (the stakes audit's details list them):"]
        for table in t["tables"][:5]:
            paid = ", ".join(f"{int(p[0])}. player {p[2]} ({p[3]}) {int(p[4]):,}"
                             for p in table["places"] if int(p[4]) > 0)
            lines.append(f"table {int(table['table_id'])}: pool "
                         f"{int(table['prize_pool']):,}: {paid}")
    except (KeyError, TypeError, ValueError):
        return []
    return lines


def run_facts(manifest: dict[str, Any]) -> dict[str, Any]:
    """The seed, generator, reproducibility and fault of a run as its spec gives them (a
    simulated run's: ``audits.runspec``; the manifest's other fields are never read for them),
    null where there is no spec that parses."""
    if manifest.get("format") != runspec.SIMULATE_FORMAT:
        return {"seed": None, "generator": None, "reproducible": None, "inject": None}
    try:
        facts = runspec.parse_spec(manifest.get("spec"))
    except runspec.SpecError:
        return {"seed": None, "generator": None, "reproducible": None, "inject": None}
    return {"seed": facts["seed"], "generator": facts["generator"],
            "reproducible": facts["generator"] == "philox", "inject": facts["inject"]}


def hands_counted(audit: dict[str, Any]) -> dict[str, int]:
    """Hands per structure as the integrity audit counted them in the files (not the
    manifest's claims)."""
    integ = by_name(read_results(audit)).get("integrity")
    per = integ.details.get("hands_per_structure") if integ is not None else None
    if isinstance(per, dict):
        return {str(k): int(v) for k, v in per.items()}
    return {}

# the certificate's ``reproduction`` statuses (``cluster.flows.reproduce``)
REPRODUCTION_STATUSES = ("REPRODUCED", "DIFFERS", "NOT RUN", "NOT REPRODUCIBLE")


def reproduction_limitation(reproduction: dict[str, Any] | None) -> str | None:
    """The limitation of a reproducible run that was not re-simulated, or of an imported run
    not re-imported from its sources (None otherwise)."""
    if isinstance(reproduction, dict) and reproduction.get("of") == "sources" and (
            reproduction.get("status") in ("NOT RUN", "NOT REPRODUCIBLE")):
        return ("The log was not re-imported from the operator's source files "
                f"({reproduction.get('text')}): nothing binds it to the sources the manifest "
                "lists (a log edited after the import, its digests and hashes restamped, "
                "audits clean). `holdem verify RUN --sources DIR` re-imports the sources and "
                "compares every file.")
    if not isinstance(reproduction, dict) or reproduction.get("status") != "NOT RUN":
        return None
    return ("The hands were not re-simulated from the spec "
            f"({reproduction.get('text')}): a hand the spec does not play (moved to another "
            "table, other blinds, antes or rake) audits clean when every column agrees. "
            "`holdem verify RUN` re-simulates every batch and compares the files byte for byte.")


def limitations(audit: dict[str, Any]) -> list[str]:
    """What this certificate does not vouch for, in words (from audit.json): audits that were
    not applicable or not run, and decks that could not be bound to a key."""
    results = by_name(read_results(audit))
    out: list[str] = []
    deal = results.get("deal")
    totals = deal.details.get("totals", {}) if deal is not None else {}
    if deal is None:
        out.append("The deal was not audited (deal not among the audits run): nothing binds the "
                   "cards to a deck or a key.")
    elif not deal.applicable:
        seen = seen_cards_verdict(results.get("uniformity"))
        out.append(f"The deal and the shuffle were NOT certified: the {deal.hands_checked:,} "
                   "hands are imported hand histories without decks; only their known cards "
                   "were checked (no card twice, none at an empty seat)."
                   + (" " + seen if seen else ""))
    uni = results.get("uniformity")
    if totals.get("unkeyed"):
        out.append(f"{totals['unkeyed']:,} hands were dealt with os-chacha20, keyed from the "
                   "operating system's entropy and not recorded by design: their decks cannot "
                   "be bound to a key, so nothing excludes a deal chosen hand by hand. Checked "
                   "instead: each deck is a permutation of the 52 cards, every card dealt is the "
                   "deck's card in dealing order, and " + _battery_tested(uni) + ".")
    if uni is None:
        out.append("The shuffle's uniformity was not audited (uniformity not among the audits "
                   "run).")
    elif not uni.applicable and (deal is None or deal.applicable):
        out.append("The shuffle's uniformity was not certified (no decks to test).")
    for name in ("chips", "rotation", "payouts", "betting"):
        r = results.get(name)
        if r is None:
            out.append(f"{name} was not audited (not among the audits run).")
        elif not r.applicable:
            out.append(f"{name} was not certified (not applicable to these hands).")
    integ = results.get("integrity")
    if integ is None:
        out.append("The files were not bound to a manifest (integrity not among the audits run): "
                   "nothing shows that every hand of the run was audited.")
    elif not integ.applicable:
        out.append("The files could not be bound to a manifest (integrity not applicable: "
                   f"{integ.details.get('note', 'no manifest.json')}): hands or files "
                   "could be missing, and hands need not share the run's seed.")
    out += imports.outcome_limitations(audit)
    cov = results.get("coverage")
    if cov is None:
        out.append("Rule-path coverage was not counted (coverage not among the audits run): "
                   "nothing shows which rules the hands applied.")
    elif cov.details.get("note"):
        out.append(f"Rule-path coverage: {cov.details['note']}.")
    # every other built-in audit that audit.json records as not run (``holdem audit --only``)
    # is named too: the verdict's first line says LIMITED whatever was left out (issue 33)
    named = {"deal", "uniformity", "chips", "rotation", "payouts", "betting", "integrity",
             "coverage"}
    for name in audit.get("not_run") or []:
        if name not in results and name not in named:
            out.append(f"{name} was not audited (not among the audits run): this "
                       "certificate does not vouch for what it checks.")
    return out


def first_reason(result: AuditResult) -> str:
    """An audit's first failure in words, with its hand and amounts where it names one: the
    first violation, else its failed tests with their p-values, else its counts."""
    details = result.details
    violations = details.get("violations") or []
    if violations and isinstance(violations[0], dict):
        v = violations[0]
        where = "" if v.get("hand_id") is None else f"hand {v['hand_id']}: "
        more = result.failures - 1
        return f"{where}{v.get('reason')}" + (f" (and {more:,} more)" if more > 0 else "")
    failed = details.get("failed_tests")
    if failed:
        return "failed tests " + ", ".join(str(t) for t in failed)
    if result.p_value is not None:
        return f"p = {fmt_p(result.p_value)}"
    return f"{result.failures:,} failures in {result.hands_checked:,} hands"


def verdict_sentence(word: str, reasons: list[str], audit: dict[str, Any],
                     reproduction: dict[str, Any] | None, limits: list[str]) -> str:
    """The verdict and its reason in one sentence, the same on the page, certificate.json,
    summary.md, the command line and ``holdem verify``: "PASS", "PASS, LIMITED: <what was not
    certified>" or "FAIL: <audit>: <first reason with amounts>" (the other failing audits
    named after it)."""
    if word == "PASS":
        if not limits:
            return "PASS"
        return "PASS, LIMITED: " + " ".join(limits)
    results = by_name(read_results(audit))
    first = reasons[0] if reasons else "?"
    if first == "reproduction" and isinstance(reproduction, dict):
        why = str(reproduction.get("text"))
    elif first in results:
        why = first_reason(results[first])
    else:
        why = "failed"
    also = f"; also failed: {', '.join(reasons[1:])}" if len(reasons) > 1 else ""
    return f"FAIL: {first}: {why}{also}"


def legacy_verdict_text(cert: dict[str, Any]) -> str:
    """The verdict_text a certificate issued before issue 36 had ("FAIL (coverage), LIMITED:
    ..."): ``holdem verify`` accepts it in a certificate of that time."""
    reasons, limits = cert.get("verdict_reasons") or [], cert.get("limitations") or []
    word = str(cert.get("verdict"))
    return ((f"{word} ({', '.join(reasons)})" if reasons else word)
            + (", LIMITED: " + " ".join(limits) if limits else ""))


def build_run_certificate(audit: dict[str, Any], manifest: dict[str, Any],
                      audit_sha256: str | None = None,
                      calibration: dict[str, Any] | None = None,
                      reproduction: dict[str, Any] | None = None,
                      import_record: tuple[dict[str, Any], str] | None = None
                      ) -> dict[str, Any]:
    """The certificate of an audit: its files are the bytes audit.json records as audited
    (``inputs``), with the manifest's and audit.json's own sha256; ``calibration`` (the
    calibration.json of ``holdem calibrate``) adds the evidence beside each audit;
    ``reproduction`` (``cluster.flows.reproduce``: REPRODUCED, DIFFERS, NOT RUN, NOT REPRODUCIBLE)
    what re-simulating the run from its spec gave: DIFFERS fails the certificate (reason
    ``reproduction``), NOT RUN is a limitation. ``import_record``: an imported run's
    import.json and its sha256 (``reports.imports.load_import``): the certificate's
    ``import`` entry says in words what was certified and what was not, with its counts."""
    u = _uniformity(audit)
    evidence = calibration_evidence(calibration)
    flat = _flat_results(audit)
    entries = []
    for r in flat:
        entries.append({
            "name": r.name, "passed": r.passed, "applicable": r.applicable,
            "hands_checked": r.hands_checked, "failures": r.failures,
            "statistic": r.statistic, "p_value": r.p_value,
            "holm_adjusted_p": r.details.get("holm_adjusted_p"),
            "example_hand_ids": list(r.example_hand_ids),
            **({"checks": r.checks} if r.checks else {}),
            **({"calibration": evidence[r.name]} if r.name in evidence else {}),
        })
    verdict = all(r.ok for r in flat if r.top_level)
    inputs = audit.get("inputs") or {}
    per_structure = hands_counted(audit)
    facts = run_facts(manifest)
    limits = limitations(audit)
    if import_record is not None:  # skipped hands above 1% of a source's: LIMITED
        skip_limit = imports.skipped_not_certified(import_record[0])[1]
        if skip_limit:
            limits.append(skip_limit)
        summary_limit = summary_limitation(import_record[0])  # prize money contradicted
        if summary_limit:
            limits.append(summary_limit)
    unreproduced = reproduction_limitation(reproduction)
    if unreproduced:
        limits.append(unreproduced)
    reasons = [r.name for r in flat if r.top_level and r.failed]
    if isinstance(reproduction, dict) and reproduction.get("status") == "DIFFERS":
        verdict = False
        reasons.append("reproduction")
    word = "PASS" if verdict else "FAIL"
    imported = imports.import_section(audit, manifest, import_record)
    stakes = by_name(read_results(audit)).get("stakes")
    tourn = stakes.details.get("tournaments") if stakes is not None else None
    return {
        "format": "holdem-certificate", "version": 1,
        "verdict": word,
        "verdict_text": verdict_sentence(word, reasons, audit, reproduction, limits),
        "verdict_reasons": reasons,
        "limitations": limits,
        "not_checked": not_checked(audit),
        "claims_not_checked": list(CLAIMS_NOT_CHECKED),
        "fault_injected": facts["inject"] or audit.get("inject"),
        "run": {
            "run_id": manifest.get("run_id", audit.get("run_id")),
            "fingerprint": manifest.get("fingerprint"),
            "engine_version": manifest.get("engine_version"),
            "git_commit": manifest.get("git_commit"),
            "seed": facts["seed"], "generator": facts["generator"],
            "reproducible": facts["reproducible"], "spec": manifest.get("spec"),
            "hands": int(audit.get("hands", 0)), "hands_per_structure": per_structure,
            "files": [{"path": f["path"], "rows": f.get("rows"), "bytes": f.get("bytes"),
                       "sha256": f["sha256"]} for f in inputs.get("files", [])],
            "unaudited_files": [{"path": f["path"], "sha256": f["sha256"]}
                                for f in inputs.get("unaudited") or []],
            "manifest_sha256": (inputs.get("manifest") or {}).get("sha256"),
            "audit_sha256": audit_sha256,
            "created": manifest.get("created"), "finished": manifest.get("finished"),
            "timings": manifest.get("timings"),
        },
        "audits": entries,
        "reproduction": reproduction,
        "power": u.details.get("power") if u is not None else None,
        # the lab's list of suspect players the deal tests targeted (``--players FILE``): its
        # sha256, entries and how many matched a player of the run
        **({"players_list": u.details["players_list"]}
           if u is not None and u.details.get("players_list") else {}),
        # the smallest rig of each kind caught with probability 0.9 at this run's size
        **({"rig_power": rp} if (rp := rig_power_of(u)) else {}),
        "coverage": coverage_of(audit),
        # every failing hand, in failing_hands.csv (bound by its sha256), its first lines here
        **({"failing_hands": audit["failing_hands"]} if audit.get("failing_hands") else {}),
        **({"import": imported} if imported is not None else {}),
        # a game with payouts: each finished tournament table's places and prizes, derived
        # from the log by the stakes audit (audits/tournaments.py; the first tables)
        **({"tournaments": tourn} if tourn else {}),
        # which code, libraries and command made the hands and the audit
        # (audits.runfolder.provenance)
        "provenance": {"simulate": manifest.get("provenance"), "audit": audit.get("provenance")},
        "issued": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def fmt_p(p: float | None) -> str:
    if p is None:
        return ""
    return f"{p:.3g}" if p >= 1e-4 else f"{p:.1e}"


class _Verdicted(Protocol):
    @property
    def applicable(self) -> bool: ...

    @property
    def passed(self) -> bool: ...


def verdict_cell(entry: _Verdicted) -> tuple[str, str]:
    """(CSS class, word) of one audit or test result: n/a, PASS or FAIL."""
    if not entry.applicable:
        return "na", "n/a"
    return ("pass", "PASS") if entry.passed else ("fail", "FAIL")


# Markdown's inline punctuation (CommonMark escapes any ASCII punctuation with a backslash):
# emphasis, code, links and images, raw HTML and entities, strikethrough, table cells
# (an underscore inside a word never opens or closes emphasis: ``all_in`` stays as it is)
_MD_SPECIAL = re.compile(r"([\\`*\[\]<>~|&!#]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def md_text(x: Any) -> str:
    """A value as inert Markdown text on one line (summary.md never lets a string it did not
    write, from the manifest or audit.json, start a line, a heading, emphasis, a link or HTML):
    control characters and line breaks become spaces, Markdown punctuation is escaped."""
    return _MD_SPECIAL.sub(r"\\\1", _CONTROL.sub(" ", str(x)))


def md_code(x: Any) -> str:
    """A value as an inline code span on one line (shown as it is, never interpreted): fenced by
    more backticks than it holds in a row, its pipes escaped (a table cell's, GFM)."""
    text = _CONTROL.sub(" ", str(x)).replace("|", "\\|")
    run = max((len(m) for m in re.findall("`+", text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _count(x: Any) -> str:
    return f"{x:,}" if isinstance(x, int) and not isinstance(x, bool) else md_text(x)


def _audit_names(cert: dict[str, Any]) -> list[str]:
    """The certificate's own audits (not their batteries' tests), for the lab's clause table."""
    return [str(a["name"]) for a in cert.get("audits") or []
            if isinstance(a, dict) and "." not in str(a.get("name"))]


def render_summary(cert: dict[str, Any]) -> str:
    """summary.md: every value taken from the certificate is escaped (``md_text``,
    ``md_code``); only the words and the table around them are this function's own."""
    lines = [f"# Certification: **{md_text(cert['verdict'])}"
             f"{', LIMITED' if cert.get('limitations') else ''}**", "",
             f"Verdict: {md_text(cert.get('verdict_text') or cert['verdict'])}", ""]
    if isinstance(cert.get("lab"), dict):
        lines += lab_summary(cert["lab"], md_text, _audit_names(cert))
    for text in cert.get("limitations", []):
        lines.append(f"> NOT CERTIFIED: {md_text(text)}")
    if cert.get("limitations"):
        lines.append("")
    for text in cert.get("not_checked", []):
        lines.append(f"> Not checked by any audit: {md_text(text)}")
    if cert.get("not_checked"):
        lines.append("")
    for text in cert.get("claims_not_checked", []):
        lines.append(f"> {md_text(text)}")
    if cert.get("claims_not_checked"):
        lines.append("")
    if cert["fault_injected"]:
        lines += [f"> FAULT INJECTED: {md_code(cert['fault_injected'])} (a deliberately broken "
                  "engine)", ""]
    rep = cert.get("reproduction")
    if isinstance(rep, dict):
        lines += [f"Reproduction: **{md_text(rep.get('status'))}**: {md_text(rep.get('text'))}",
                  ""]
    run = cert["run"]
    if cert.get("import") is not None:  # an operator's histories: no seed, a replaying engine
        lines += [f"{_count(run['hands'])} imported hands, run {md_code(run['run_id'])}, "
                  f"replayed by the engine {md_text(run['engine_version'])} at "
                  f"{md_code(run['git_commit'])}.", ""]
    else:
        lines += [f"{_count(run['hands'])} hands, run {md_code(run['run_id'])}, engine "
                  f"{md_text(run['engine_version'])} at {md_code(run['git_commit'])}, seed "
                  f"{_count(run['seed'])} ({md_text(run['generator'])}).", ""]
        game = game_line(run.get("spec"))
        if game:
            lines += [f"The game: {md_text(game)}.", ""]
    lines += ["| audit | verdict | hands | failures | p-value | Holm p | checked against |",
              "|---|---|---|---|---|---|---|"]
    for entry in certified_audits(cert):
        a = entry.result
        lines.append(f"| {md_text(a.name)} | {verdict_cell(a)[1]} | {_count(a.hands_checked)} | "
                     f"{_count(a.failures)} | {fmt_p(a.p_value)} | "
                     f"{fmt_p(entry.holm_adjusted_p)} | {md_text(a.checks or '')} |")
    tourn = tournament_lines(cert.get("tournaments"))
    if tourn:
        lines += ["", md_text(tourn[0]), "", *("- " + md_text(x) for x in tourn[1:])]
    if isinstance(cert.get("import"), dict):
        lines += ["", *imports.summary_lines(cert["import"], md_text)]
    if cert["power"]:
        lines += ["", md_text(cert["power"]["sentence"])]
    if isinstance(cert.get("rig_power"), dict):
        lines += ["", "Power against rigged dealers (probability 0.9, alpha 0.01 within the "
                  "battery):", "", *(f"- {md_text(x)}" for x in cert["rig_power"]["sentences"])]
    cov = cert.get("coverage") or {}
    if cov:
        lines += ["", "Rule-path coverage (count / minimum; ✗ below):", ""]
        for st in sorted(cov):
            cells = [f"{md_text(k)} {_count(v['count'])}/"
                     + ("not certified" if v.get("certified") is False else
                        f"{_count(v['minimum'])}{'' if v['ok'] else ' ✗'}")
                     for k, v in cov[st].items() if k != "hands"]
            lines.append(f"- {md_text(st)} ({_count(cov[st]['hands'])} hands): "
                         + ", ".join(cells))
    return "\n".join(lines) + "\n"


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:980px;
margin:24px auto;padding:0 16px;color:#1d2330;line-height:1.45}
h1{margin:0}h2{border-bottom:1px solid #d5d9e0;padding-bottom:4px;margin-top:32px}
.banner{padding:18px 22px;border-radius:8px;font-size:28px;font-weight:700;color:white}
.PASS{background:#1e8449}.FAIL{background:#b03a2e}
.fault{background:#7d3c98;color:white;padding:10px 16px;border-radius:6px;margin-top:10px;
font-weight:700;letter-spacing:.5px}
table{border-collapse:collapse;width:100%;font-size:14px;margin:8px 0}
th,td{border-bottom:1px solid #e3e6eb;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#f4f6f9}td.num{text-align:right;font-variant-numeric:tabular-nums}
.limits{background:#fdf2e0;border:1px solid #e0a040;padding:8px 14px;border-radius:6px;
margin-top:10px}
.pass{color:#1e8449;font-weight:600}.fail{color:#b03a2e;font-weight:700}.na{color:#7b8494}
pre{background:#f7f8fa;border:1px solid #e3e6eb;padding:10px;font-size:12px;overflow-x:auto}
.small{color:#5c6575;font-size:13px}svg{max-width:100%;height:auto}
@media print{.banner,.fault{-webkit-print-color-adjust:exact;print-color-adjust:exact}}
"""


def esc(x: Any) -> str:
    return html.escape(str(x))


def markdown_tables(md: str) -> str:
    """The headings and pipe tables of a Markdown text (``holdem calibrate``'s) as HTML."""
    out: list[str] = []
    rows: list[list[str]] = []

    def flush() -> None:
        if rows:
            head, body = rows[0], [r for r in rows[2:]]
            out.append("<table><tr>" + "".join(f"<th>{esc(c)}</th>" for c in head) + "</tr>"
                       + "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>"
                                 for r in body) + "</table>")
            rows.clear()

    for line in md.splitlines():
        if line.startswith("|"):
            rows.append([c.strip().replace("**", "") for c in line.strip().strip("|").split("|")])
            continue
        flush()
        if line.startswith("#"):
            out.append(f"<h3>{esc(line.lstrip('#').strip())}</h3>")
        elif line.strip():
            out.append(f"<p class=small>{esc(line.strip())}</p>")
    flush()
    return "".join(out)


def coverage_table(cov: dict[str, Any]) -> str:
    """Coverage per structure: a row per path, a column per structure, the count with its
    minimum beside it; zeros and shortfalls flagged."""
    structures = sorted(cov)
    names: list[str] = []
    for st in structures:
        names += [k for k in cov[st] if k != "hands" and k not in names]
    head = "".join(f"<th>{esc(st)}<br><span class=small>{cov[st]['hands']:,} hands</span></th>"
                   for st in structures)
    rows = []
    for name in names:
        cells = []
        for st in structures:
            e = cov[st].get(name)
            if e is None:
                cells.append("<td class=na>cannot occur</td>")
                continue
            if e.get("impossible"):
                cells.append("<td class=na>cannot occur in this game</td>")
                continue
            if e.get("certified") is False:
                why = ("no tables of its format" if not e.get("minimum") else
                       "too few hands, or this game's own rules and bots")
                cells.append(f"<td class=na>{e['count']:,} <span class=small>({why}: not "
                             "certified)</span></td>")
                continue
            cls = "fail" if not e["ok"] or e["count"] == 0 else "num"
            flag = " ✗ below minimum" if not e["ok"] else ""
            cells.append(f"<td class={cls}>{e['count']:,} <span class=small>(min "
                         f"{e['minimum']:,}){flag}</span></td>")
        rows.append(f"<tr><th>{esc(name.replace('_', ' '))}</th>{''.join(cells)}</tr>")
    return ("<h2>Rule-path coverage</h2><p class=small>How often the audited hands applied each "
            "rule path, counted by the audits from the log, per structure, with the minimum the "
            "certificate requires (it scales with the hands of the formats where the path can "
            "occur; docs/audits.md, Coverage). In a structure of at least 100,000 hands a count "
            "below its minimum fails the certificate with the reason coverage when a correct "
            "engine falls below it with probability under 1 in 10,000 (the minimum is the "
            "Poisson quantile of the path's floor rate); a path not seen in too few hands for "
            "that, a smaller structure, or a game of its own below the built-in games' floors "
            "is not certified (LIMITED), never failed.</p>"
            f"<table><tr><th>path</th>{head}</tr>{''.join(rows)}</table>")


def _plot(audit: str, field: str, draw: Callable[[], str]) -> str:
    """A plot of audit.json's details, or ReportInputError naming the field when it is not of
    the shape ``holdem audit`` writes (one line, never a traceback)."""
    try:
        return draw()
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as e:  # (matplotlib's
        # ConversionError is a TypeError)
        raise ReportInputError(f"{AUDIT_FILE}: the {audit} result's details.{field}: not what "
                               f"holdem audit writes ({type(e).__name__}: "
                               f"{(str(e).splitlines() or [''])[0][:80]})") from None


def render_html(cert: dict[str, Any], audit: dict[str, Any], manifest: dict[str, Any],
                histories: dict[int, str] | None = None,
                calibration: tuple[str, str] | None = None) -> str:
    histories = histories or {}
    run = cert["run"]
    parts = [f"<!doctype html><html lang=en><head><meta charset=utf-8>"
             f"<title>holdem certificate {cert['verdict']}</title><style>{CSS}</style></head>"
             f"<body><div class='banner {cert['verdict']}'>{cert['verdict']}"
             f"{', LIMITED' if cert.get('limitations') else ''}</div>"
             f"<p class=verdict><b>Verdict:</b> {esc(cert.get('verdict_text') or cert['verdict'])}"
             "</p>"]
    if isinstance(cert.get("lab"), dict):
        parts.append(lab_html(cert["lab"], esc, _audit_names(cert)))
    if cert.get("limitations"):
        parts.append("<div class=limits><b>Not certified by this report:</b><ul>" + "".join(
            f"<li>{esc(t)}</li>" for t in cert["limitations"]) + "</ul></div>")
    if cert.get("not_checked"):
        parts.append("<p class=small><b>Not checked by any audit, in any run:</b></p><ul "
                     "class=small>" + "".join(f"<li>{esc(t)}</li>" for t in cert["not_checked"])
                     + "</ul>")
    for text in cert.get("claims_not_checked") or []:
        parts.append(f"<p class=small>{esc(text)}</p>")
    if cert["fault_injected"]:
        parts.append(f"<div class=fault>FAULT INJECTED: {esc(cert['fault_injected'])} — this run"
                     " used a deliberately broken engine and must fail</div>")
    parts.append(f"<p>{run['hands']:,} hands audited.</p>")
    if isinstance(cert.get("import"), dict):
        parts.append(imports.section_html(cert["import"], audit))
    rep = cert.get("reproduction")
    if isinstance(rep, dict):
        parts.append(f"<p><b>Reproduction: {esc(rep.get('status'))}</b>: {esc(rep.get('text'))}"
                     "</p>")
    # provenance
    spec = run.get("spec") or {}
    rows = [("run id", run["run_id"]),
            ("engine", f"{run['engine_version']} at {run['git_commit']}"),
            ("seed / generator", f"{run['seed']} / {run['generator']} "
             f"({'reproducible' if run.get('reproducible') else 'not reproducible'})"),
            ("hands per structure", ", ".join(f"{k}: {v:,}" for k, v in
                                              run["hands_per_structure"].items())),
            *([("the game", game_line(spec))] if game_line(spec) else []),
            ("created / finished", f"{run.get('created')} / {run.get('finished')}"),
            ("audited", f"{audit.get('created')} in {audit.get('seconds', 0):.1f} s")]
    for side, prov in (cert.get("provenance") or {}).items():
        code = prov.get("code") if isinstance(prov, dict) else None
        keys = code.get("compiled") if isinstance(code, dict) else None
        if isinstance(keys, dict) and keys:  # the numba caches' keys: the code that ran
            rows.append((f"compiled code ({side})",
                         ", ".join(f"{k} {v}" for k, v in keys.items() if k != "reports")))
    if run.get("timings"):
        t = run["timings"]
        rows.append(("simulation", f"{t.get('wall_seconds')} s, "
                                   f"{t.get('hands_per_second', 0):,.0f} hands/s"))
    parts.append("<h2>Provenance</h2><table>" + "".join(
        f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in rows) + "</table>")
    parts.append("<details><summary>Full configuration</summary><pre>"
                 + esc(json.dumps(spec, indent=2)) + "</pre></details>")
    if run["files"]:
        parts.append("<details><summary>Audited files and their sha256</summary><table>"
                     "<tr><th>file</th><th>rows</th><th>sha256</th></tr>" + "".join(
                         f"<tr><td>{esc(f['path'])}</td><td class=num>{f['rows']}</td>"
                         f"<td><code>{esc(f['sha256'])}</code></td></tr>" for f in run["files"])
                     + "".join(f"<tr><td>{name}</td><td></td><td><code>{esc(run.get(key))}</code>"
                               "</td></tr>" for name, key in (("manifest.json", "manifest_sha256"),
                                                              ("audit.json", "audit_sha256")))
                     + "</table></details>")
    # audits
    parts.append("<h2>Audits</h2><table><tr><th>audit</th><th>verdict</th><th>hands</th>"
                 "<th>failures</th><th>statistic</th><th>p-value</th><th>Holm p</th>"
                 "<th>checked against</th><th>calibration</th></tr>")
    for entry in certified_audits(cert):
        a = entry.result
        cls, word = verdict_cell(a)
        stat = "" if a.statistic is None else f"{a.statistic:.4g}"
        parts.append(f"<tr><td>{esc(a.name)}</td><td class={cls}>{word}</td>"
                     f"<td class=num>{a.hands_checked:,}</td>"
                     f"<td class=num>{a.failures:,}</td><td class=num>{stat}</td>"
                     f"<td class=num>{fmt_p(a.p_value)}</td>"
                     f"<td class=num>{fmt_p(entry.holm_adjusted_p)}</td>"
                     f"<td class=small>{esc(a.checks or '')}</td>"
                     f"<td class=small>{esc(entry.calibration or 'not measured')}</td></tr>")
    parts.append("</table>")
    results = read_results(audit)
    for r in results:
        note = r.details.get("note")
        if note and not r.applicable:
            parts.append(f"<p class=small>{esc(r.name)}: n/a: {esc(note)}</p>")
    fh = cert.get("failing_hands")
    if isinstance(fh, dict):
        per = ", ".join(f"{k} {v:,}" for k, v in (fh.get("per_audit") or {}).items())
        parts.append(f"<h2>Failing hands</h2><p>{fh.get('rows', 0):,} failing hands ({esc(per)}), "
                     f"every one in <code>{esc(fh.get('path'))}</code> (sha256 <code>"
                     f"{esc(fh.get('sha256'))}</code>, bound by this certificate; <code>holdem "
                     "replay RUN --failing</code> walks them); the first:</p><table><tr>"
                     "<th>audit</th><th>hand</th><th>what the log says and what the rules give"
                     "</th></tr>"
                     + "".join(f"<tr><td>{esc(x.get('audit'))}</td><td class=num>"
                               f"{esc(x.get('hand_id'))}</td><td>{esc(x.get('reason'))}</td></tr>"
                               for x in fh.get("first") or []) + "</table>")
    for r in results:
        viol = r.details.get("violations") or []
        if r.ok:
            continue
        parts.append(f"<h3>{esc(r.name)}: failing hands</h3><ul>")
        for v in viol:
            where = "" if v.get("hand_id") is None else f"hand {v['hand_id']}: "
            parts.append(f"<li>{esc(where)}{esc(v['reason'])}</li>")
        parts.append("</ul>")
        for h in r.example_hand_ids:
            if h in histories:
                parts.append(f"<p>Replay of hand {h}:</p><pre>{esc(histories[h])}</pre>")
    # deck uniformity
    u = _uniformity(audit)
    if u and u.applicable:
        parts.append("<h2>Deck uniformity</h2>")
        if cert["power"]:
            pw = cert["power"]
            parts.append(f"<p><b>Power.</b> {esc(pw['sentence'])}</p>")
        cp = _test(u, "card_position")
        if cp and cp.details.get("residuals"):
            parts.append(_plot("uniformity.card_position", "residuals",
                               lambda: plots.residual_heatmap(cp.details["residuals"])))
        ks = _test(u, "batch_pvalues_ks")
        if ks and ks.applicable and ks.details.get("pvalues"):
            parts.append(_plot("uniformity.batch_pvalues_ks", "pvalues",
                               lambda: plots.pvalue_histogram_qq(ks.details["pvalues"])))
        sh = _test(u, "starting_hands")
        if sh and sh.applicable:
            parts.append(_plot("uniformity.starting_hands", "per_seat",
                               lambda: plots.starting_hands(sh.details["per_seat"],
                                                            sh.details["expected_fractions"])))
    if isinstance(cert.get("rig_power"), dict):
        parts.append("<h2>Power against rigged dealers</h2><p class=small>The smallest rig of "
                     "each kind this run's deal tests catch with probability 0.9 at alpha 0.01 "
                     "within the battery, from this run's own counts (normal approximation of "
                     "each test's statistic; checked against simulated rigs by <code>holdem "
                     "calibrate</code>).</p><ul>"
                     + "".join(f"<li>{esc(x)}</li>" for x in cert["rig_power"]["sentences"])
                     + "</ul>")
    named = by_name(results)
    chips = named["chips"].details.get("totals") if "chips" in named else None
    if chips:
        parts.append("<h2>Chip conservation</h2><table>" + "".join(
            f"<tr><th>{esc(k.replace('_', ' '))}</th><td class=num>{v:,}</td></tr>"
            for k, v in chips.items()) + "</table>")
        parts.append("<p class=small>Every chip put in a pot was won or raked: "
                     "pots minus won minus rake must be 0.</p>")
    sample = named["rotation"].details.get("sample") if "rotation" in named else None
    if sample:
        parts.append("<h2>Blind rotation</h2>" + _plot(
            "rotation", "sample", lambda: plots.rotation_timeline(sample)))
    if calibration:
        parts.append("<h2>Calibration</h2><p class=small>False-alarm and detection rates "
                     f"measured by <code>holdem calibrate</code> ({esc(calibration[0])}).</p>"
                     + markdown_tables(calibration[1]))
    # coverage
    cov = cert["coverage"]
    if cov:
        parts.append(coverage_table(cov))
    parts.append(f"<p class=small>Issued {cert['issued']} by holdem. certificate.json holds "
                 "the same verdict for machines.</p></body></html>")
    return "".join(parts)


@dataclass(frozen=True)
class WrittenReport:
    """What ``write_report_files`` wrote: the files (``html``, ``certificate``, ``summary``; and
    ``signature`` once signed) and the certificate itself, whose verdict is the run's, with the
    exact bytes written to certificate.json (``certificate_bytes``: what a signature signs,
    never read back)."""

    paths: dict[str, Location]
    certificate: Certificate
    certificate_bytes: bytes = b""

    @property
    def verdict(self) -> str:
        """``PASS`` or ``FAIL``, as certificate.json says."""
        return self.certificate.verdict

    @property
    def limitations(self) -> list[str]:
        """What the certificate does not vouch for, in words."""
        return self.certificate.limitations


def write_report_files(run: Location, histories: dict[int, str] | None = None,
                 calibration: str | Path | None = None,
                 reproduction: dict[str, Any] | None = None,
                 inputs: tuple[dict[str, Any], dict[str, Any]] | None = None,
                 lab: dict[str, Any] | None = None) -> WrittenReport:
    """Write report.html, certificate.json and summary.md into the run folder (a local path or
    a URI); ``calibration`` is a ``calibration.md`` of ``holdem calibrate`` to include (when
    available); ``reproduction`` the certificate's reproduction entry (``build_run_certificate``);
    ``inputs``: (audit.json, manifest.json) as ``load_inputs`` gave them to the caller (the
    folder then not checked against audit.json a second time), else read here.
    Returns the paths written and the certificate (its verdict and bytes)."""
    run = storage.as_location(run)
    cal = None
    cal_json: dict[str, Any] | None = None
    if calibration is not None and Path(calibration).is_file():
        cal = (str(calibration), Path(calibration).read_text())
        sibling = Path(calibration).with_suffix(".json")
        if sibling.is_file():
            try:
                cal_json = json.loads(sibling.read_text())
            except ValueError:
                cal_json = None  # evidence is optional: a broken file is not shown
    audit, manifest = load_inputs(run) if inputs is None else inputs
    folder = RunFolder.open(run)
    cert = build_run_certificate(audit, manifest, folder.sha256(AUDIT_FILE)[0], cal_json,
                             reproduction, imports.load_import(run))
    if lab:  # the laboratory's fields (reports.lab): in the certificate, so signed
        cert["lab"] = lab
    out = {key: folder.location(name) for key, name in REPORT_FILES.items()}
    # the pages a person reads are written first and their sha256 recorded in the certificate,
    # so that `holdem verify` (and a signature) covers them too
    docs = {"summary": render_summary(cert),
            "html": render_html(cert, audit, manifest, histories, cal)}
    for key, text in docs.items():
        folder.write(REPORT_FILES[key], text)
    cert["documents"] = {REPORT_FILES[key]: hashlib.sha256(text.encode()).hexdigest()
                         for key, text in docs.items()}
    data = json.dumps(cert, indent=2).encode()
    folder.write(REPORT_FILES["certificate"], data)
    return WrittenReport(out, Certificate(cert), data)


__all__ = ["CERTIFICATE_SCHEMA", "ReportInputError", "WrittenReport", "build_run_certificate",
           "load_inputs", "render_html", "render_summary", "write_report_files"]
