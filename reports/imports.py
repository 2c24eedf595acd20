"""What a certificate says of an imported run (operators' hand histories, #22 §3): in words,
what was certified and what was not, the import's counts from ``RUN/import.json``, and the
``outcome`` audit's classes per venue; the report's rake-against-pot scatter and classes table.

Everything comes from audit.json, manifest.json and import.json (whose sha256 the certificate
records); nothing is recomputed here.
"""

from __future__ import annotations

import hashlib
import html
from decimal import Decimal
from typing import Any

from audits import runfolder, runspec
from audits.result import AuditResult, by_name, read_results
from audits.runfolder import IMPORT_FILE, RunFolder, RunFolderError, storage
from audits.runfolder.storage import Location
from reports import plots
from reports.inputs import ReportInputError
from reports.summaries import summary_sentences

# the outcome classes whose payout was neither recorded nor observed (or not rebuilt)
NO_CLAIM = ("not recorded", "not checked", "convention:zeros", "convention:zero-uncontested",
            "ambiguous")


def load_import(run: Location) -> tuple[dict[str, Any], str] | None:
    """(import.json, its sha256) of a run folder; None when it has none; ReportInputError
    when it is not a JSON object."""
    try:
        folder = RunFolder.open(storage.as_location(run))
        if IMPORT_FILE not in folder.listing():
            return None
        data = folder.read_bytes(IMPORT_FILE)
    except (OSError, storage.StorageError, RunFolderError) as e:
        raise ReportInputError(f"{run}/{IMPORT_FILE}: cannot read it ({e})") from None
    try:
        rec = runfolder.parse_json(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise ReportInputError(f"{run}/{IMPORT_FILE}: not valid JSON ({e})") from None
    if not isinstance(rec, dict):
        raise ReportInputError(f"{run}/{IMPORT_FILE}: expected an object")
    return rec, hashlib.sha256(data).hexdigest()


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _n(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def counts_text(rec: dict[str, Any]) -> str:
    """"2,989 hands submitted, 2,981 imported, 8 skipped (3 unknown variant, ...)"."""
    skipped = _dict(rec.get("skipped"))
    total = sum(_n(x) for x in skipped.values())
    why = ", ".join(f"{_n(x):,} {reason}" for reason, x in
                    sorted(skipped.items(), key=lambda kv: (-_n(kv[1]), str(kv[0]))) if _n(x))
    return (f"{_n(rec.get('submitted')):,} hands submitted, {_n(rec.get('imported')):,} "
            f"imported, {total:,} skipped" + (f" ({why})" if why else ""))


def _result(audit: dict[str, Any], name: str) -> AuditResult | None:
    return by_name(read_results(audit)).get(name)


def _verdict(r: AuditResult | None) -> str:
    if r is None:
        return "not run"
    if not r.applicable:
        return "not applicable"
    return "PASS" if r.passed else f"FAIL ({_hands(r.failures)})"


def _hands(x: int) -> str:
    return f"{x:,} hand" + ("" if x == 1 else "s")


def _classes_text(classes: dict[str, int]) -> str:
    return ", ".join(f"{c} {x:,}" for c, x in classes.items()) or "none"


def _stuck_text(tables: dict[str, Any]) -> str:
    """", N hands with the button not moved": the same players, within the pause, the button
    on the same seat: no missing hand explains it (the rotation audit fails them)."""
    n = _n(tables.get("button_stuck"))
    return (f", {n:,} hands with the button not moved (no missing hand explains them: "
            "rotation fails them)") if n else ""


def import_section(audit: dict[str, Any], manifest: dict[str, Any],
                   record: tuple[dict[str, Any], str] | None) -> dict[str, Any] | None:
    """The certificate's ``import`` entry of an imported run (None for any other run)."""
    if manifest.get("format") not in runspec.IMPORT_FORMATS:
        return None
    rec, sha = record if record is not None else ({}, None)
    out_r = _result(audit, "outcome")
    det = out_r.details if out_r is not None else {}
    classes = _dict(det.get("classes"))
    per_venue = _dict(det.get("per_venue"))
    tables = _dict(rec.get("tables"))
    hands = int(audit.get("hands", 0))
    observed = sum(x for c, x in classes.items() if c not in NO_CLAIM)
    certified = [
        f"The legality of every action of the {hands:,} imported hands, blinds and posts "
        f"included (betting): {_verdict(_result(audit, 'betting'))}.",
        f"Pots and payouts by the rules from the actions and the shown cards (payouts): "
        f"{_verdict(_result(audit, 'payouts'))}.",
        f"The operator's payouts and rake where the outcome was recorded or observable in the "
        f"next hand (outcome): {_hands(observed)} of {hands:,} ({_classes_text(classes)}): "
        f"{_verdict(out_r)}.",
        "Table rotation and chip carry-over on the rebuilt tables"
        + (f" ({_n(tables.get('sessions')):,} sessions of {_n(tables.get('tables')):,} tables, "
           f"{_n(tables.get('gaps')):,} gaps{_stuck_text(tables)})" if tables else "")
        + f" (rotation: {_verdict(_result(audit, 'rotation'))}; chips: "
        f"{_verdict(_result(audit, 'chips'))}).",
    ]
    not_certified = ["The deal and the shuffle: an operator's hand history holds no deck, "
                     "so nothing binds the cards to a shuffle."]
    not_certified += outcome_limitations(audit)
    gaps = _n(tables.get("gaps"))
    if gaps:  # a session broken there: the next hand's stacks judge nothing across it
        not_certified.append(
            f"The players' stacks across the {gaps:,} gaps between two hands of one table not "
            "provably adjacent (a pause, a skipped hand, the site's counter or the stacks "
            "showing a hand between them): chips added or taken there are not checked "
            "(chips, outcome).")
    skipped_line, _ = skipped_not_certified(rec)
    if skipped_line:
        not_certified.append(skipped_line)
    summaries_done, summaries_undone = summary_sentences(rec)  # reports.summaries
    certified += summaries_done
    not_certified += summaries_undone
    return {
        "counts": counts_text(rec) if rec else "import.json absent: the import's counts are "
                                              "not known",
        "submitted": _n(rec.get("submitted")), "imported": _n(rec.get("imported")),
        "skipped": _dict(rec.get("skipped")),
        "tables": tables, "import_sha256": sha,
        "certified": certified, "not_certified": not_certified,
        "classes": classes, "per_venue": per_venue,
        "rake_schedule": _schedule_text(det.get("rake_schedule")),
        "money": det.get("money"),
    }


SKIP_LIMIT = 0.01  # skipped hands above this share of a source's hands: the verdict is LIMITED


def skipped_not_certified(rec: dict[str, Any]) -> tuple[str | None, str | None]:
    """(the import's skipped hands as not certified, in words; the limitation when more than
    ``SKIP_LIMIT`` of a source format's submitted hands were skipped: None otherwise). A source
    format is what the import detected from the content (``pokerstars``, ``ipoker``, ``phh``,
    ...), never a name the operator wrote; import.json without per-file counts is judged on
    its totals."""
    skipped = _dict(rec.get("skipped"))
    total = sum(_n(x) for x in skipped.values())
    if not total:
        return None, None
    why = ", ".join(f"{_n(x):,} {k}" for k, x in
                    sorted(skipped.items(), key=lambda kv: (-_n(kv[1]), str(kv[0]))) if _n(x))
    line = (f"{_hands(total)} of the {_n(rec.get('submitted')):,} submitted were skipped and "
            f"are not certified ({why}); import.json lists each reason with examples.")
    per: dict[str, list[int]] = {}
    files = rec.get("files")
    for f in files if isinstance(files, list) else []:
        if isinstance(f, dict):
            got = per.setdefault(str(f.get("format") or "?"), [0, 0])
            got[0] += _n(f.get("submitted"))
            got[1] += sum(_n(x) for x in _dict(f.get("skipped")).values())
    if not per:
        per = {"all sources": [_n(rec.get("submitted")), total]}
    else:  # copies of one hand that differ in a fact, all dropped at the run's level (no file's
        # counts hold them): an operator's conflicting copy must not hide hands under the limit
        conflicting = _n(_dict(rec.get("tables")).get("conflicting"))
        if conflicting:
            per["conflicting copies (all sources)"] = [_n(rec.get("submitted")), conflicting]
    over = [(fmt, sk / sub) for fmt, (sub, sk) in sorted(per.items())
            if sub and sk / sub > SKIP_LIMIT]
    if not over:
        return line, None
    shares = ", ".join(f"{fmt} {share:.1%}" for fmt, share in over)
    return line, (f"{_hands(total)} of the {_n(rec.get('submitted')):,} submitted were skipped "
                  f"and not certified, above {SKIP_LIMIT:.0%} of a source's hands ({shares}).")


def outcome_limitations(audit: dict[str, Any]) -> list[str]:
    """What the outcome audit could not vouch for, in words (for the certificate's
    limitations)."""
    r = _result(audit, "outcome")
    if r is None or not r.applicable:
        return []
    det = r.details
    classes = _dict(det.get("classes"))
    notes = _dict(det.get("notes"))
    out = []
    if classes.get("not recorded"):
        out.append(f"The payouts of {_hands(classes['not recorded'])}: the record holds no "
                   "outcome and no adjacent next hand of the table shows it (not recorded).")
    if classes.get("rake (no schedule: not checked)"):
        kept = sum(_n(x) for x in _dict(det.get("rake_not_checked")).values())
        amount = "" if not kept else f" ({_amount(kept, _dict(det.get('money')))} in all)"
        out.append(f"The rake of {_hands(classes['rake (no schedule: not checked)'])}{amount}: "
                   "no rake schedule was given at import (--rake PCT:CAP), so what the operator "
                   "kept was counted, not checked.")
    if classes.get("ambiguous"):
        out.append(f"The payouts of {_hands(classes['ambiguous'])} at venues whose way of "
                   "writing winnings the audit does not know: the record reads two ways that "
                   "disagree on what the operator kept, and no next hand shows which "
                   "(ambiguous).")
    if classes.get("not attributable"):
        out.append(f"The stack changes after {_hands(classes['not attributable'])}: a player "
                   "gained in the next hand about what the winners were short of, while the "
                   "record states that shortfall as its rake, or, in a cash hand, states no "
                   "rake and the shortfall is within the rake schedule or there is none (a "
                   "top-up or re-buy beside a rake, or the pot paid to him: the record cannot "
                   "tell; not attributable).")
    zeros = sum(x for c, x in classes.items() if c in ("convention:zeros",
                                                        "convention:zero-uncontested"))
    if zeros:
        out.append(f"{_hands(zeros)} whose winnings are all zeros (the site's convention) "
                   "and that no next hand shows: no payout claim to check.")
    if classes.get("not checked"):
        out.append(f"{_hands(classes['not checked'])} whose rules' payout could not be rebuilt "
                   "(named by the payouts audit).")
    for note, x in notes.items():
        if "unrecorded" in note or "unknown stack" in note:
            out.append(f"{x:,} {note}.")
    return out


def _amount(x: int, money: dict[str, Any]) -> str:
    """Minor units in the run's currency, as text ("12.34 USD")."""
    e = min(max(_n(money.get("exponent")), 0), 6)
    return f"{Decimal(x).scaleb(-e):.{e}f}" + (f" {money['currency']}"
                                              if money.get("currency") else "")


def summary_lines(sec: dict[str, Any], md_text: Any) -> list[str]:
    """summary.md's lines of the import section (``md_text`` escapes every value)."""
    lines = ["## Imported hand histories", "", md_text(sec["counts"]) + ".", ""]
    lines += [f"- Certified: {md_text(t)}" for t in sec["certified"]]
    lines += [f"- NOT certified: {md_text(t)}" for t in sec["not_certified"]]
    if sec.get("rake_schedule"):
        lines += ["", f"Rake schedule: {md_text(sec['rake_schedule'])}."]
    if sec["per_venue"]:
        lines += ["", "| venue | " + " | ".join(md_text(c) for c in sec["classes"]) + " |",
                  "|---|" + "---|" * len(sec["classes"])]
        for venue, per in sec["per_venue"].items():
            lines.append(f"| {md_text(venue)} | "
                         + " | ".join(f"{per.get(c, 0):,}" for c in sec["classes"]) + " |")
    return lines + [""]


def _e(x: Any) -> str:
    return html.escape(str(x))


def _schedule_text(sched: Any) -> str | None:
    """The schedule in words, each venue's own after the default (None: none was given)."""
    if not isinstance(sched, dict):
        return None
    text = str(sched.get("text"))
    venues = sched.get("venues")
    if isinstance(venues, dict) and venues:
        text += "; " + "; ".join(f"{name}: {_dict(v).get('text')}"
                                 for name, v in sorted(venues.items()))
    return text


def section_html(sec: dict[str, Any], audit: dict[str, Any]) -> str:
    """report.html's import section: the counts, what was (not) certified, the classes per
    venue, the rake-against-pot scatter with the schedule's cap, and every wrong payout."""
    parts = ["<h2>Imported hand histories</h2>", f"<p><b>{_e(sec['counts'])}.</b></p>",
             "<p>Certified:</p><ul>" + "".join(f"<li>{_e(t)}</li>" for t in sec["certified"])
             + "</ul><p>Not certified:</p><ul>"
             + "".join(f"<li>{_e(t)}</li>" for t in sec["not_certified"]) + "</ul>"]
    if sec["per_venue"]:
        head = "".join(f"<th>{_e(c)}</th>" for c in sec["classes"])
        rows = "".join(
            f"<tr><td>{_e(v)}</td>" + "".join(f"<td class=num>{per.get(c, 0):,}</td>"
                                              for c in sec["classes"]) + "</tr>"
            for v, per in sec["per_venue"].items())
        parts.append("<h3>Outcome classes per venue</h3><table><tr><th>venue</th>"
                     f"{head}</tr>{rows}</table>")
    outcome = _result(audit, "outcome")
    det = outcome.details if outcome is not None else {}
    conv = det.get("conventions")
    if isinstance(conv, dict) and conv:
        parts.append("<p class=small>Winnings conventions: " + "; ".join(
            f"<b>{_e(k)}</b>: {_e(v)}" for k, v in conv.items()) + ".</p>")
    points = det.get("rake_points")
    if isinstance(points, dict) and any(points.values()):
        money = _dict(det.get("money"))
        sched = det.get("rake_schedule") if isinstance(det.get("rake_schedule"), dict) else None
        try:
            parts.append("<h3>Rake against pot size</h3>" + plots.rake_scatter(
                points, sched, int(money.get("exponent", 0)), str(money.get("currency", ""))))
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as e:
            raise ReportInputError(f"audit.json: the outcome result's details.rake_points: not "
                                   f"what holdem audit writes ({type(e).__name__})") from None
    wrong = det.get("wrong_payouts")
    if isinstance(wrong, list) and wrong:
        parts.append("<h3>Wrong payouts</h3><ul>" + "".join(
            f"<li>{_e(w.get('reason', ''))}</li>" for w in wrong if isinstance(w, dict))
            + "</ul>")
    return "".join(parts)

