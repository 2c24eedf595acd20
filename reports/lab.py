"""A testing laboratory's fields on a certificate (``--lab FILE.toml`` of ``holdem certify`` and
``holdem report``): who the certificate is for, what was tested, against which standard, its
number and signer. They go into certificate.json as ``lab`` (so a signature binds them), on
the page and in summary.md. Every value is the lab's own statement, printed as given; no audit
checks it (the page says so).

The file (TOML)::

    client = "Example Casino Ltd"
    system = "Example Poker Server"          # the system under test
    version = "4.2.1"
    submitted = "RNG library and dealing module, build 4.2.1-17"
    standard = "GLI-19 v3.0"
    certificate_number = "LAB-2026-0042"
    signer = "A. Tester, Senior Engineer"
    rng = "the operator's ChaCha20 DRBG, seeded from /dev/urandom at start"

    [clauses]                                 # clause -> what answers it
    "3.3.1 shuffle" = "uniformity audit, holdem shuffle"
    "3.5 game rules" = "betting, payouts, rotation, chips audits"

    [audits]                                  # audit (or test) -> the clauses it answers
    deal = "GLI-19 3.3.1, 3.3.2"
    uniformity = "GLI-19 3.3.1"
    payouts = "GLI-19 3.5.4"

Every page prints the ``[audits]`` table as "Clauses each audit answers": one row for each
audit (a shuffle certificate: each test; an rng certificate: each battery) of that
certificate, with the clauses the lab names for it ("none named" otherwise), so the lab cites
a row of a signed page; an audit the file names that the certificate does not hold is listed as
"not on this certificate".
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from audits.runfolder.errors import InputError

FIELDS = {  # key -> its row title on the page
    "certificate_number": "certificate number",
    "client": "client",
    "system": "system under test",
    "version": "version",
    "submitted": "what was submitted",
    "standard": "standard",
    "rng": "RNG and seeding (as the operator declares them)",
    "signer": "signer",
}
MAX_TEXT = 500


class LabInputError(InputError):
    """A lab file that cannot be used (one line naming the file and field): exit 2."""


def read_lab(path: str | Path) -> dict[str, Any]:
    """The lab fields of a TOML file: only the keys of ``FIELDS`` (strings) and ``clauses`` (a
    table of strings); anything else is refused naming the key."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise LabInputError(f"--lab {path}: cannot read it ({e.strerror or e})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise LabInputError(f"--lab {path}: not TOML ({str(e).splitlines()[0]})") from None
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key == "clauses":
            if not isinstance(value, dict) or not all(
                    isinstance(v, str) and len(v) <= MAX_TEXT for v in value.values()):
                raise LabInputError(f"--lab {path}: clauses: expected a table of clause = "
                                    "\"what answers it\" strings")
            out["clauses"] = {str(k): v for k, v in value.items()}
        elif key == "audits":
            if not isinstance(value, dict) or not all(
                    isinstance(v, str) and v.strip() and len(v) <= MAX_TEXT
                    for v in value.values()):
                raise LabInputError(f"--lab {path}: audits: expected a table of audit = "
                                    "\"the clauses it answers\" strings")
            out["audits"] = {str(k): v for k, v in value.items()}
        elif key in FIELDS:
            if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
                raise LabInputError(f"--lab {path}: {key}: expected a non-empty string of at "
                                    f"most {MAX_TEXT} characters")
            out[key] = value
        else:
            raise LabInputError(f"--lab {path}: unknown field {key!r} (expected "
                                f"{', '.join([*FIELDS, 'clauses', 'audits'])})")
    if not out:
        raise LabInputError(f"--lab {path}: no field (expected {', '.join(FIELDS)})")
    return out


def lab_rows(lab: dict[str, Any]) -> list[tuple[str, str]]:
    """(title, value) of the fields given, in ``FIELDS`` order."""
    return [(title, str(lab[key])) for key, title in FIELDS.items() if key in lab]


def audit_clauses(lab: dict[str, Any], names: list[str]) -> list[tuple[str, str]]:
    """(audit, the clauses it answers) for each of the certificate's own audits (``names``
    without a dot), then each other audit or test the lab names: with its clauses when the
    certificate holds it (a battery's test, ``uniformity.card_position``), else said to be not
    on this certificate."""
    given = lab.get("audits") or {}
    rows = [(n, given.get(n, "none named")) for n in names if "." not in n]
    rows += [(n, c if n in names else f"{c} (not on this certificate)")
             for n, c in given.items() if n not in names or "." in n]
    return rows


def html_section(lab: dict[str, Any], esc: Any, names: list[str] | None = None) -> str:
    """The page's laboratory section (``esc``: the page's HTML escape; ``names``: the audits
    or tests of the certificate, for the table of the clauses each answers)."""
    rows = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in lab_rows(lab))
    text = f"<h2>Laboratory</h2><table>{rows}</table>"
    clauses = lab.get("clauses") or {}
    if clauses:
        text += ("<table><tr><th>clause of the standard</th><th>answered by</th></tr>"
                 + "".join(f"<tr><td>{esc(k)}</td><td>{esc(v)}</td></tr>"
                           for k, v in clauses.items()) + "</table>")
    if lab.get("audits"):
        text += ("<h3>Clauses each audit answers</h3><table><tr><th>audit</th>"
                 "<th>clauses of the standard it answers</th></tr>"
                 + "".join(f"<tr><td>{esc(a)}</td><td>{esc(c)}</td></tr>"
                           for a, c in audit_clauses(lab, names or [])) + "</table>")
    return text + ("<p class=small>The laboratory's statements, printed as given and bound by "
                   "the signature; no audit checks them.</p>")


def summary_lines(lab: dict[str, Any], md: Any, names: list[str] | None = None) -> list[str]:
    """summary.md's laboratory lines (``md``: its escape)."""
    lines = [f"- {md(k)}: {md(v)}" for k, v in lab_rows(lab)]
    lines += [f"- clause {md(k)}: {md(v)}" for k, v in (lab.get("clauses") or {}).items()]
    if lab.get("audits"):
        lines += [f"- audit {md(a)} answers: {md(c)}"
                  for a, c in audit_clauses(lab, names or [])]
    return ["Laboratory (its statements, bound by the signature, not audited):", "", *lines, ""]
