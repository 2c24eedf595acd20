"""The shuffle certificate: ``certificate.json`` (``format: "holdem-shuffle-certificate"``) and a
one-page ``report.html`` for ``holdem shuffle`` (our shuffler on its own) and ``holdem shuffle
audit`` (another system's decks). Formats what the audits computed; recomputes nothing.

Fields of certificate.json: ``verdict`` (PASS / FAIL), ``verdict_text``, ``verdict_reasons``,
``limitations`` (what it does not vouch for, in words), ``fault_injected``, ``source`` (what was
certified: ``kind`` "holdem shuffle" or "decks from another system", generator, seed, run id,
``decks_kept``, the files with their sha256), ``decks``, ``tests`` (the battery's overall result,
each test and the re-derivation: name, passed, applicable, decks, statistic, p_value,
holm_adjusted_p, example deck numbers), ``power`` (the power statement for the decks audited),
``timings``, ``issued``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from audits.result import AuditResult
from audits.runfolder import REPORT_FILES, RunFolder
from audits.runfolder.storage import Location
from reports.certificate import Certificate

CERT_FORMAT = "holdem-shuffle-certificate"
# version 2: ``verdict_text`` is the verdict and its reason in one sentence, as a run's
# certificate words it ("PASS", "PASS, LIMITED: ...", "FAIL: <audit>: <first reason>"), and the
# page prints it under its banner; a version 1 certificate ("FAIL (uniformity, ...)") keeps the
# page it was issued with, so that ``holdem verify`` still rebuilds it byte for byte
CERT_VERSION = 2


def _first_reason(r: AuditResult, results: list[AuditResult]) -> str:
    """A failing deck audit's first reason, in words: the battery's failed tests with their
    Holm-adjusted p-values, else its first violation (a deck and what differs), else counts."""
    failed = r.details.get("failed_tests") or []
    if failed:
        p = {t.name.rpartition(".")[2]: t.details.get("holm_adjusted_p") for t in results
             if t.name.startswith(r.name + ".")}
        return "failed tests " + ", ".join(
            f"{t}" + (f" (Holm p = {p[t]:.3g})" if isinstance(p.get(t), float) else "")
            for t in failed)
    viol = r.details.get("violations") or []
    if viol and isinstance(viol[0], dict) and viol[0].get("reason"):
        deck = viol[0].get("hand_id")
        more = r.failures - 1
        return (f"deck {deck}: " if deck is not None else "") + str(viol[0]["reason"]) + (
            f" (and {more:,} more)" if more > 0 else "")
    return f"{r.failures:,} failures in {r.hands_checked:,} decks"


def verdict_sentence(reasons: list[str], limits: list[str], results: list[AuditResult]) -> str:
    """The shuffle certificate's verdict in one sentence (``CERT_VERSION`` 2)."""
    if not reasons:
        return "PASS" if not limits else "PASS, LIMITED: " + " ".join(limits)
    first = reasons[0]
    by_name = {r.name: r for r in results}
    why = (_first_reason(by_name[first], results) if first in by_name else
           "no decks were audited" if first == "no decks" else "failed")
    also = f"; also failed: {', '.join(reasons[1:])}" if len(reasons) > 1 else ""
    return f"FAIL: {first}: {why}{also}"


@dataclass(frozen=True)
class ShuffleTest:
    """One entry of a shuffle certificate's ``tests``: a test of the battery over decks."""

    name: str
    passed: bool
    applicable: bool
    decks: int
    failures: int
    statistic: float | None
    p_value: float | None
    holm_adjusted_p: float | None
    example_deck_ids: tuple[int, ...]

    @classmethod
    def of(cls, r: AuditResult) -> ShuffleTest:
        return cls(r.name, r.passed, r.applicable, r.hands_checked, r.failures, r.statistic,
                   r.p_value, r.details.get("holm_adjusted_p"), r.example_hand_ids)

    @classmethod
    def from_dict(cls, d: Any, where: str = "certificate.json: tests") -> ShuffleTest:
        """The one reader of an entry as ``_entry`` wrote it (ValueError naming the field)."""
        def num(v: Any) -> bool:
            return v is None or (isinstance(v, int | float) and not isinstance(v, bool))

        if not isinstance(d, dict):
            raise ValueError(f"{where}: expected an object")
        checks = {"name": lambda v: isinstance(v, str),
                  "passed": lambda v: isinstance(v, bool),
                  "applicable": lambda v: isinstance(v, bool),
                  "decks": lambda v: isinstance(v, int) and not isinstance(v, bool),
                  "failures": lambda v: isinstance(v, int) and not isinstance(v, bool),
                  "statistic": num, "p_value": num, "holm_adjusted_p": num,
                  "example_deck_ids": lambda v: isinstance(v, list)}
        for key, ok in checks.items():
            if not ok(d.get(key)):
                raise ValueError(f"{where}.{key}: not what a shuffle certificate writes")
        return cls(d["name"], d["passed"], d["applicable"], d["decks"], d["failures"],
                   d["statistic"], d["p_value"], d["holm_adjusted_p"],
                   tuple(int(x) for x in d["example_deck_ids"]))


def _entry(r: AuditResult) -> dict[str, Any]:
    t = ShuffleTest.of(r)
    return {"name": t.name, "passed": t.passed, "applicable": t.applicable,
            "decks": t.decks, "failures": t.failures,
            "statistic": t.statistic, "p_value": t.p_value,
            "holm_adjusted_p": t.holm_adjusted_p,
            "example_deck_ids": list(t.example_deck_ids),
            "details": {k: v for k, v in r.details.items() if k != "residuals"}}


def build_deck_certificate(results: list[AuditResult], source: dict[str, Any],
                           timings: dict[str, Any] | None = None,
                           lab: dict[str, Any] | None = None) -> dict[str, Any]:
    """The certificate of a decks-only audit (``audits.deckaudit.reduce_tally``'s results);
    ``lab``: a laboratory's fields (``reports.lab``), carried as ``lab``."""
    by = {r.name: r for r in results}
    uni, red = by["uniformity"], by.get("rederivation")
    limits = []
    if not source.get("decks_kept", True):
        limits.append("The decks were not kept (--keep-decks false): the battery ran on them in "
                      "the workers as they were shuffled; there is no deck file to re-audit.")
    if red is None or not red.applicable:
        why = ("os-chacha20 keys come from the operating system and are not recorded"
               if source.get("generator") == "os-chacha20" else "the decks come from another "
               "system, with no key to derive them from")
        limits.append(f"The decks were not bound to keys ({why}): the certificate is of their "
                      "distribution only.")
    if not uni.applicable:
        limits.append("No decks were audited.")
    elif red is None or not red.applicable:  # a keyed deck is proven by its key
        dealt = [r for r in results if r.name.startswith("uniformity.") and r.applicable
                 and "worst_seats" in r.details]
        if dealt:
            limits.append("The decks carry no game: each was dealt as a hand to 2 to 10 seats "
                          "(seat s gets positions s and s + m, then burn, flop, burn, turn, "
                          "burn, river) for " + ", ".join(r.name for r in dealt) + "; the tests "
                          "that condition on the play (who was all-in, the pot, the players) "
                          "do not apply to them.")
        skipped = [f"{r.name} ({r.details.get('reason', 'not applicable')})" for r in results
                   if r.name.startswith("uniformity.") and not r.applicable]
        if skipped:
            limits.append("Not applied to these decks: " + "; ".join(skipped) + ".")
    reasons = [r.name for r in (uni, red) if r is not None and r.applicable and not r.passed]
    if not uni.applicable:
        reasons.append("no decks")
    word = "FAIL" if reasons else "PASS"
    text = verdict_sentence(reasons, limits, results)
    z = next((r.details.get("residuals") for r in results
              if r.name == "uniformity.card_position"), None)
    return {
        "format": CERT_FORMAT, "version": CERT_VERSION, "verdict": word, "verdict_text": text,
        "verdict_reasons": reasons, "limitations": limits,
        "fault_injected": source.get("inject"),
        "source": source, "decks": int(uni.hands_checked),
        "tests": [_entry(r) for r in results],
        "power": uni.details.get("power"),
        "card_position_residuals": z,
        "timings": timings or {},
        "issued": datetime.now(UTC).isoformat(timespec="seconds"),
        **({"lab": lab} if lab else {}),
    }


def render_html(cert: dict[str, Any]) -> str:
    """report.html: the verdict, what was certified, the power statement, every test."""
    from reports import plots
    from reports.render import CSS, esc, fmt_p, verdict_cell

    src = cert["source"]
    parts = [f"<!doctype html><html lang=en><head><meta charset=utf-8><title>shuffle "
             f"certificate {cert['verdict']}</title><style>{CSS}</style></head><body>"
             f"<div class='banner {cert['verdict']}'>Shuffle certificate: {esc(cert['verdict'])}"
             "</div>"]
    if int(cert.get("version") or 1) >= 2:  # the verdict's sentence (version 1 pages had none)
        parts.append(f"<p><b>Verdict:</b> {esc(cert.get('verdict_text'))}</p>")
    if cert["limitations"]:
        parts.append("<div class=limits><b>Not certified:</b><ul>" + "".join(
            f"<li>{esc(t)}</li>" for t in cert["limitations"]) + "</ul></div>")
    if cert.get("fault_injected"):
        parts.append(f"<div class=fault>FAULT INJECTED: {esc(cert['fault_injected'])} — a "
                     "deliberately broken shuffle; it must fail</div>")
    rows = [("what", src.get("kind")), ("decks audited", f"{cert['decks']:,}"),
            ("generator / seed", f"{src.get('generator')} / {src.get('seed')}"),
            ("decks kept on disk", "yes" if src.get("decks_kept") else "no"),
            ("run id / commit", f"{src.get('run_id')} / {src.get('git_commit')}")]
    t = cert.get("timings") or {}
    if t.get("wall_seconds"):
        rows.append(("wall time", f"{t['wall_seconds']:,.1f} s "
                                  f"({t.get('decks_per_second', 0):,.0f} decks/s)"))
    parts.append("<h2>What was certified</h2><table>" + "".join(
        f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in rows) + "</table>")
    if cert.get("lab"):
        from reports.lab import html_section

        parts.append(html_section(cert["lab"], esc, [str(t.get("name")) for t in
                                                     cert["tests"] if isinstance(t, dict)]))
    if cert.get("power"):
        parts.append(f"<h2>Power</h2><p>{esc(cert['power']['sentence'])}</p>")
    parts.append("<h2>Tests</h2><table><tr><th>test</th><th>verdict</th><th>decks</th>"
                 "<th>statistic</th><th>p-value</th><th>Holm p</th><th>examples</th></tr>")
    for i, raw in enumerate(cert["tests"]):
        e = ShuffleTest.from_dict(raw, f"certificate.json: tests[{i}]")
        cls, word = verdict_cell(e)
        stat = "" if e.statistic is None else f"{e.statistic:.4g}"
        parts.append(f"<tr><td>{esc(e.name)}</td><td class={cls}>{word}</td>"
                     f"<td class=num>{e.decks:,}</td><td class=num>{stat}</td>"
                     f"<td class=num>{fmt_p(e.p_value)}</td>"
                     f"<td class=num>{fmt_p(e.holm_adjusted_p)}</td>"
                     f"<td>{esc(', '.join(map(str, e.example_deck_ids[:5])))}</td></tr>")
    parts.append("</table>")
    if cert.get("card_position_residuals"):
        parts.append("<h2>Card × position residuals</h2>"
                     + plots.residual_heatmap(cert["card_position_residuals"]))
    files = src.get("files") or []
    if files:
        parts.append("<details><summary>Files and their sha256</summary><table>" + "".join(
            f"<tr><td>{esc(f['path'])}</td><td class=num>{f.get('decks', '')}</td>"
            f"<td><code>{esc(f['sha256'])}</code></td></tr>" for f in files[:2000])
            + "</table></details>")
    parts.append(f"<p class=small>Issued {esc(cert['issued'])}.</p></body></html>")
    return "".join(parts)


def write_files(out: Location, cert: dict[str, Any]) -> Certificate:
    """certificate.json and report.html into the folder ``out`` (each written atomically)."""
    folder = RunFolder.open(out)
    raw = (json.dumps(cert, indent=2) + "\n").encode()
    folder.write(REPORT_FILES["certificate"], raw)
    folder.write(REPORT_FILES["html"], render_html(cert))
    return Certificate(cert, raw)


def write_certificate(base: Location, results: list[AuditResult], manifest: dict[str, Any],
                      kept: bool, lab: dict[str, Any] | None = None) -> Certificate:
    """The certificate of a ``holdem shuffle`` run folder."""
    source = {"kind": "holdem shuffle (the game's own shuffle and streams)",
              "generator": manifest.get("generator"), "seed": manifest.get("seed"),
              "inject": manifest.get("inject"), "run_id": manifest.get("run_id"),
              "git_commit": manifest.get("git_commit"), "decks_kept": kept,
              "deck_key": manifest.get("deck_key"),
              "files": [{"path": f["path"], "decks": f["decks"], "sha256": f["sha256"]}
                        for f in manifest.get("files", [])] if kept else []}
    return write_files(base, build_deck_certificate(results, source, manifest.get("timings"),
                                                    lab))
