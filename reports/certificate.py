"""``certificate.json``: the machine-readable verdict of a certification.

Schema (``CERTIFICATE_SCHEMA``, JSON Schema draft 2020-12; ``format`` = "holdem-certificate",
``version`` = 1):

- ``verdict``: "PASS" iff every applicable audit passed, else "FAIL";
- ``verdict_text``: the verdict and its reason in one sentence (``reports.render.
  verdict_sentence``): "PASS", "PASS, LIMITED: <the limitations>" (a PASS that does not vouch
  for everything never reads as a plain PASS) or "FAIL: <audit>: <its first failure, with the
  hand and amounts>"; the page, summary.md, the CLI's last line and ``holdem verify`` say it;
- ``limitations``: sentences naming what was NOT certified: the deal and shuffle of imported
  hands without decks, decks that cannot be bound to a key (os-chacha20), audits not run or not
  applicable, a reproducible run not re-simulated from its spec (``reproduction``);
- ``fault_injected``: the fault name when the run was made with ``--inject`` (null otherwise);
- ``run``: ``run_id``, ``fingerprint``, ``engine_version``, ``git_commit``, ``seed``,
  ``generator``, ``reproducible`` (these three from the spec, never from the manifest's copies;
  null without a simulate spec), ``spec`` (the full config), ``hands``, ``hands_per_structure``
  (as the integrity audit counted them in the files), ``files`` (the audited files as
  audit.json records them: path, rows, bytes, sha256 of the bytes audited),
  ``unaudited_files`` (path, sha256 of other files the folder held, which the integrity audit
  names: a run with any FAILs), ``manifest_sha256`` (the manifest audited, null without one),
  ``audit_sha256`` (of the audit.json certified), ``created``, ``finished``;
- ``audits``: one entry per audit and per statistical test: ``name``, ``passed``,
  ``applicable``, ``hands_checked``, ``failures``, ``statistic``, ``p_value``,
  ``holm_adjusted_p`` (statistical tests), ``example_hand_ids``, ``checks`` (what the audit
  checks against which primary facts, one line), ``calibration`` (when ``holdem calibrate``'s
  calibration.json is at hand: the faults it caught among the runs they fired in, its false
  alarms);
- ``reproduction``: what re-simulating the run from its spec gave (``cluster.flows.reproduce``):
  ``status`` REPRODUCED (every batch the spec plans re-simulated to the file's exact bytes),
  DIFFERS (the first batch file that is not what the spec plays, ``path``, and its first
  differing hand, ``hand_id``: the verdict is FAIL, reason "reproduction"), NOT RUN (a
  reproducible run not re-simulated: ``--no-reproduce``, or ``holdem report`` alone; listed
  among the ``limitations``) or NOT REPRODUCIBLE (os-chacha20 decks, imported hands), with
  ``text`` (one line), ``batches`` and ``hands`` re-simulated, ``planned`` (the spec's batch
  files), ``seconds`` (its wall time); null in a certificate issued before it. For an imported
  run (``of`` = "sources"): the source files the manifest lists (found at their recorded paths
  or by sha256 under ``--sources DIR``) re-imported with the run's options and compared with
  its batch files, import.json and manifest: REPRODUCED, DIFFERS (the file and first hand
  named; FAIL), NOT REPRODUCIBLE (a source absent or changed since, the ``--hash-names`` key
  absent: the reason; a limitation: nothing binds the log to its sources) or NOT RUN
  (``--no-reproduce``; a limitation);
- ``power``: the deck-uniformity power statement for the decks audited (``sentence`` and the
  figures behind it), or null;
- ``rig_power`` (when a deal test that conditions on the game or pools the seats applied): for
  this run's size, the smallest rig of each kind its tests catch with probability 0.9 at alpha
  0.01 within the battery (``audits.rig_power``: the normal approximation of each test's
  statistic under the rig, with the counts of this run): ``sentences`` in words ("With 82,177
  run-outs, a bad-beat rig that re-deals 3.9% of the favourite's wins at an all-in run-out is
  caught with probability 0.9 (runout_calibration).") and ``rigs`` (rig, test, strength, size,
  level);
- ``documents``: the sha256 of ``summary.md`` and ``report.html`` as written with it (what a
  person reads is covered by ``holdem verify`` and the signature);
- ``not_checked``: what no audit checked, in words, printed on every certificate: for a
  simulated run whose hands the ``stakes`` audit checked against the spec, the bots' decisions
  and the table's random draws (checked for their rules, not re-drawn); otherwise also each
  hand's configuration and the table plan (taken as logged);
- ``claims_not_checked``: in words, what the certificate repeats from manifest.json as the
  run's own statements, not audited (commit, engine version, times, timings, runtime,
  provenance);
- ``verdict_reasons``: the audits whose failure makes a FAIL ("coverage" when a rule path stayed
  below its minimum);
- ``coverage``: rule-path counts of the audited hands, counted by the audits (the ``coverage``
  audit): ``coverage[structure][path] = {"count", "minimum", "ok"}`` for every path that can
  occur in that structure, and ``coverage[structure]["hands"]``;
- ``import`` (an imported run's only: operators' hand histories): ``counts`` in words ("2,989
  hands submitted, 2,981 imported, 8 skipped (3 unknown variant, ...)", from RUN/import.json,
  whose sha256 is ``import_sha256``), ``submitted``, ``imported``, ``skipped`` ({reason:
  count}), ``tables`` ({tables, sessions, gaps}), ``certified`` and ``not_certified`` (sentences:
  the legality of every action, payouts and rake where recorded or observable, rotation and chip
  carry-over on the rebuilt tables; the deal and shuffle never), ``classes`` and ``per_venue``
  (the outcome audit's class counts), ``rake_schedule`` (in words, null when none was given),
  ``money`` (the minor unit: exponent and currency);
- ``provenance``: ``simulate`` (manifest.json's ``provenance``) and ``audit`` (audit.json's):
  each ``code`` (``git_commit``, ``git_dirty``, ``identified_by``, ``sources_sha256``),
  ``versions`` (holdem, python, numba, numpy, pyarrow, scipy, ray) and ``command``, or null
  when the file has none (``audits.runfolder.provenance``);
- ``issued``: UTC time the certificate was written.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from audits.result import AuditResult

CERTIFICATE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "holdem certificate",
    "type": "object",
    "required": ["format", "version", "verdict", "verdict_text", "limitations",
                 "fault_injected", "run", "audits", "power", "coverage", "issued"],
    "properties": {
        "format": {"const": "holdem-certificate"},
        "version": {"const": 1},
        "verdict": {"enum": ["PASS", "FAIL"]},
        "verdict_text": {"type": "string"},
        "limitations": {"type": "array", "items": {"type": "string"}},
        "fault_injected": {"type": ["string", "null"]},
        "run": {
            "type": "object",
            "required": ["run_id", "hands", "files"],
            "properties": {
                "run_id": {"type": ["string", "null"]},
                "hands": {"type": "integer", "minimum": 0},
                "files": {"type": "array", "items": {
                    "type": "object", "required": ["path", "sha256"],
                    "properties": {"path": {"type": "string"},
                                   "rows": {"type": ["integer", "null"]},
                                   "bytes": {"type": ["integer", "null"]},
                                   "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"}}}},
                "unaudited_files": {"type": "array", "items": {
                    "type": "object", "required": ["path", "sha256"]}},
                "manifest_sha256": {"type": ["string", "null"]},
                "audit_sha256": {"type": ["string", "null"]},
            },
        },
        "audits": {"type": "array", "minItems": 1, "items": {
            "type": "object",
            "required": ["name", "passed", "applicable", "hands_checked", "failures",
                         "statistic", "p_value", "example_hand_ids"],
            "properties": {
                "name": {"type": "string"}, "passed": {"type": "boolean"},
                "applicable": {"type": "boolean"},
                "hands_checked": {"type": "integer", "minimum": 0},
                "failures": {"type": "integer", "minimum": 0},
                "statistic": {"type": ["number", "null"]},
                "p_value": {"type": ["number", "null"]},
                "holm_adjusted_p": {"type": ["number", "null"]},
                "example_hand_ids": {"type": "array", "items": {"type": "integer"}},
            }}},
        "reproduction": {"type": ["object", "null"], "required": ["status", "text"],
                         "properties": {
                             "status": {"enum": ["REPRODUCED", "DIFFERS", "NOT RUN",
                                                 "NOT REPRODUCIBLE"]},
                             "text": {"type": "string"},
                             "batches": {"type": "integer", "minimum": 0},
                             "planned": {"type": ["integer", "null"]},
                             "hands": {"type": "integer", "minimum": 0},
                             "path": {"type": ["string", "null"]},
                             "hand_id": {"type": ["integer", "null"]},
                             "of": {"enum": ["spec", "sources"]}}},
        "power": {"type": ["object", "null"]},
        "rig_power": {"type": "object", "required": ["sentences", "rigs"],
                      "properties": {"sentences": {"type": "array",
                                                   "items": {"type": "string"}},
                                     "rigs": {"type": "array", "items": {"type": "object"}}}},
        "coverage": {"type": "object"},
        "import": {"type": "object", "required": ["counts", "certified", "not_certified",
                                                  "classes", "per_venue"],
                   "properties": {"counts": {"type": "string"},
                                  "certified": {"type": "array", "items": {"type": "string"}},
                                  "not_certified": {"type": "array",
                                                    "items": {"type": "string"}},
                                  "classes": {"type": "object"},
                                  "per_venue": {"type": "object"},
                                  "import_sha256": {"type": ["string", "null"]}}},
        "failing_hands": {"type": "object", "required": ["path", "rows", "sha256", "first"],
                          "properties": {"path": {"type": "string"},
                                         "rows": {"type": "integer", "minimum": 1},
                                         "sha256": {"type": "string"},
                                         "per_audit": {"type": "object"},
                                         "first": {"type": "array"}}},
        "lab": {"type": "object"},
        "issued": {"type": "string"},
    },
}


@dataclass(frozen=True)
class CertifiedAudit:
    """One entry of a run certificate's ``audits`` as the code reads it back: the result
    (``AuditResult.from_dict``: name, passed, applicable, counts, statistic, p-value, example
    hands, ``checks``) and what the certificate adds beside it."""

    result: AuditResult
    holm_adjusted_p: float | None = None
    calibration: str | None = None

    @classmethod
    def from_dict(cls, d: Any, where: str = "certificate.json: audits") -> CertifiedAudit:
        res = AuditResult.from_dict(d, where)  # checks d is an object
        holm = d.get("holm_adjusted_p")
        cal = d.get("calibration")
        return cls(res, float(holm) if isinstance(holm, int | float) and not isinstance(
            holm, bool) else None, cal if isinstance(cal, str) else None)


def certified_audits(cert: Mapping[str, Any]) -> tuple[CertifiedAudit, ...]:
    """A run certificate's ``audits``, each read by ``CertifiedAudit.from_dict``."""
    return tuple(CertifiedAudit.from_dict(a, f"certificate.json: audits[{i}]")
                 for i, a in enumerate(cert.get("audits") or []))


@dataclass(frozen=True)
class Certificate(Mapping[str, Any]):
    """A certificate as it was written (certificate.json of a run or a shuffle,
    rng-certificate.json), handed across the flows' boundary as a typed value: its verdict and
    the facts a command prints are properties; the other fields read by name as in the JSON."""

    fields: dict[str, Any]
    raw: bytes = b""  # the exact bytes written (what a signature signs), when the writer has them

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    @property
    def verdict(self) -> str:
        """``PASS`` or ``FAIL``."""
        return str(self.fields["verdict"])

    @property
    def passed(self) -> bool:
        return self.verdict == "PASS"

    @property
    def verdict_text(self) -> str:
        return str(self.fields.get("verdict_text", ""))

    @property
    def limitations(self) -> list[str]:
        return [str(x) for x in self.fields.get("limitations") or []]

    @property
    def reproduction(self) -> dict[str, Any] | None:
        """The reproduction entry (status, text, ...) of a run's certificate, None without."""
        rep = self.fields.get("reproduction")
        return dict(rep) if isinstance(rep, dict) else None

    @property
    def power_sentence(self) -> str | None:
        """The power statement in words (a shuffle certificate), None without."""
        power = self.fields.get("power")
        return str(power["sentence"]) if isinstance(power, dict) and "sentence" in power else None

    @property
    def decks(self) -> int:
        """The decks certified (a shuffle certificate)."""
        return int(self.fields.get("decks") or 0)

    @property
    def wall_seconds(self) -> float:
        """The run's wall-clock seconds as the certificate records them (0 when it does not)."""
        return float((self.fields.get("timings") or {}).get("wall_seconds") or 0)
