"""The operator's fields of an imported run in ``holdem export``'s tidy tables (issue 34,
point 9): appended to ``hands`` and ``seats`` when the log holds the import columns
(``sim.schema.IMPORT_FIELDS``), absent from a simulated run's tables.

- ``hands``: the site's hand number, venue, table, local time and zone, UTC time, currency, the
  operator's stated pot and rake, and the hand's ``outcome`` class: the outcome audit's
  (``audits.outcome.outcome_map``, the audit's own code run on the same checked bytes with the
  manifest's money, rake schedule and source formats);
- ``seats``: the player's name as the log holds it (the keyed hash when the import was given
  ``--hash-names``: the log never holds the raw name then), the operator's winnings and
  finishing stack.

A fact the record does not state is null (the log's sentinels: "" text, -1 amount or time, []
per-seat list). Money is in the run's minor unit (``manifest.json`` ``money``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audits.outcome import CLASS_KEY, CLASSES, outcome_map
from sim.logv4 import as_v3

_D = pa.dictionary(pa.int8(), pa.string())
_MONEY = "minor units (manifest money)"

# (name, type, unit, doc, log column)
HAND_FIELDS: list[tuple[str, pa.DataType, str, str, str]] = [
    ("site_hand", pa.string(), "text", "the site's hand number as written (null: unknown)",
     "site_hand"),
    ("venue", _D, "text", "the site (PHH `venue`, or the detected site of a text export; null: "
                          "unknown)", "venue"),
    ("table_name", pa.string(), "text", "the site's table name (null: unknown)", "table_name"),
    ("hand_time", pa.string(), "local ISO date-time",
     "the hand's local date and time as written (null: unknown)", "hand_time"),
    ("time_zone", _D, "text", "the time zone as written (null: unknown)", "time_zone"),
    ("time_utc", pa.timestamp("s", tz="UTC"), "UTC",
     "the hand's time in UTC (null: the zone is unknown)", "time_utc"),
    ("currency", _D, "text", "the currency as written (\"chips\" for a tournament hand; null: "
                             "unknown)", "currency"),
    ("op_pot", pa.int64(), _MONEY, "the total pot the operator's record states (null: not "
                                   "stated); `pot` is the replay's", "op_pot"),
    ("op_rake", pa.int64(), _MONEY, "the rake the operator's record states (null: not stated); "
                                    "`rake` is the schedule's", "op_rake"),
    ("outcome", _D, "code table: outcome classes",
     "the outcome audit's class of the hand (docs/import.md, The operator's outcome): "
     "exact, rake, wrong payout, ...; null: not classified (a log without the import columns)",
     ""),
]
SEAT_FIELDS: list[tuple[str, pa.DataType, str, str, str]] = [
    ("player", pa.string(), "text",
     "the player's name as the log holds it: the keyed hash (16 hex digits) when the import "
     "was given --hash-names, never the name then (null: no name)", "players"),
    ("op_winnings", pa.int64(), _MONEY, "the operator's recorded winnings of the seat (null: "
                                        "not recorded); `won` is the replay's", "op_winnings"),
    ("op_finishing", pa.int64(), _MONEY, "the operator's recorded finishing stack (null: not "
                                         "recorded); `stack_end` is the replay's",
     "op_finishing"),
]
#: Log columns the operator's fields are read from (an imported run's log holds them all).
LOG_COLUMNS = tuple(c for *_, c in HAND_FIELDS + SEAT_FIELDS if c)


def imported(names: list[str]) -> bool:
    """The log holds every import column the export carries (an imported run's)."""
    return all(c in names for c in LOG_COLUMNS)


def _field(name: str, typ: pa.DataType, unit: str, doc: str) -> pa.Field:
    return pa.field(name, typ, metadata={"unit": unit, "doc": doc})


def _blank_null(arr: pa.Array) -> pa.Array:
    return pc.if_else(pc.equal(arr, ""), pa.scalar(None, pa.string()), arr)


def _hand_columns(log: pa.Table, classes: np.ndarray | None) -> dict[str, pa.Array]:
    col = log.column
    out: dict[str, pa.Array] = {}
    for name, typ, _, _, src in HAND_FIELDS:
        if name == "outcome":
            codes = np.full(log.num_rows, -1, np.int8) if classes is None else classes
            out[name] = pa.DictionaryArray.from_arrays(
                pa.array(codes, pa.int8(), mask=codes < 0), pa.array(list(CLASSES)))
            continue
        arr = col(src).combine_chunks()
        if pa.types.is_string(arr.type):
            arr = _blank_null(arr)
            out[name] = arr.dictionary_encode().cast(typ) if isinstance(typ, pa.DictionaryType) \
                else arr
        elif name == "time_utc":
            out[name] = pc.if_else(pc.less(arr, 0), pa.scalar(None, pa.int64()), arr).cast(typ)
        else:
            out[name] = pc.if_else(pc.less(arr, 0), pa.scalar(None, pa.int64()), arr)
    return out


def _seat_columns(log: pa.Table) -> dict[str, pa.Array]:
    """Per occupied seat, in the seats table's order (hand order, then seat order)."""
    log = as_v3(log)  # schema 4's packed lists as lists
    occupied = log.column("occupied").combine_chunks()
    n_seats = log.column("n_seats").to_numpy().astype(np.int64)
    so = occupied.offsets.to_numpy().astype(np.int64)
    flat = np.asarray(occupied.values.to_numpy(zero_copy_only=False), bool)[so[0]:so[-1]]
    hand = np.repeat(np.arange(log.num_rows), n_seats)[flat]
    seat = (np.arange(int(so[-1] - so[0])) - np.repeat(so[:-1] - so[0], n_seats))[flat]
    out: dict[str, pa.Array] = {}
    for name, _, _, _, src in SEAT_FIELDS:
        arr = log.column(src).combine_chunks()
        off = arr.offsets.to_numpy().astype(np.int64)
        have = (off[1:] - off[:-1])[hand] == n_seats[hand]  # [] : not recorded
        idx = np.where(have, off[hand] + seat, 0)
        values = arr.values.take(pa.array(idx)) if len(arr.values) else \
            pa.nulls(len(idx), arr.type.value_type)
        values = pc.if_else(pa.array(have), values, pa.scalar(None, arr.type.value_type))
        out[name] = _blank_null(values) if name == "player" else values
    return out


def outcome_classes(src: Any, data: bytes, context: dict[str, Any]) -> np.ndarray:
    """Each hand's outcome class (index into ``audits.outcome.CLASSES``, -1 unclassified) of
    one batch file's bytes, by the outcome audit's map with the run's context
    (``audits.io.run_context`` of its manifest), in the file's row order."""
    from audits.io import iter_batches

    parts = []
    for b in iter_batches(src, data=data):
        b.context = context
        outcome_map(b)
        parts.append(b.derived.get(CLASS_KEY, np.full(b.n, -1, np.int8)))
    return np.concatenate(parts) if parts else np.zeros(0, np.int8)


def with_operator_fields(tables: dict[str, pa.Table], log: pa.Table,
                         classes: np.ndarray | None) -> dict[str, pa.Table]:
    """``tables`` (``sim.logview.logtables.build_tables`` of ``log``) with the operator's
    fields appended to ``hands`` and ``seats`` (module doc); ``classes``: per row the outcome
    class code, None for none."""
    out = dict(tables)
    for table, fields, cols in (("hands", HAND_FIELDS, _hand_columns(log, classes)),
                                ("seats", SEAT_FIELDS, _seat_columns(log))):
        t = out[table]
        for name, typ, unit, doc, _ in fields:
            t = t.append_column(_field(name, typ, unit, doc), cols[name])
        out[table] = t
    return out


def describe() -> str:
    """The operator's columns as Markdown (docs/export.md's text for them)."""
    out: list[str] = []
    for table, fields in (("hands", HAND_FIELDS), ("seats", SEAT_FIELDS)):
        out += [f"**`{table}`, after its columns above (an imported run)**", "",
                "| column | type | unit or codes | meaning |", "|---|---|---|---|"]
        out += [f"| `{name}` | `{typ}` | {unit} | {doc} |" for name, typ, unit, doc, _ in fields]
        out.append("")
    out += ["**outcome classes (`hands.outcome`, `audits.outcome.CLASSES`)**", "",
            "| name |", "|---|"] + [f"| `{c}` |" for c in CLASSES]
    return "\n".join(out)


UNKNOWN_VENUE = "(unknown venue)"  # audits.outcome's name for a hand without a venue


def class_counts(hands: pa.Table) -> dict[str, dict[str, int]]:
    """{venue: {outcome class: hands}} of an exported ``hands`` table (classified hands only),
    as the outcome audit counts them (``per_venue`` of its details)."""
    if "outcome" not in hands.column_names:
        return {}
    out: dict[str, dict[str, int]] = {}
    for venue, cls in zip(hands.column("venue").to_pylist(), hands.column("outcome").to_pylist(),
                          strict=True):
        if cls is not None:
            per = out.setdefault(venue or UNKNOWN_VENUE, {})
            per[cls] = per.get(cls, 0) + 1
    return out


def audit_note(audit: dict[str, Any] | None, counts: dict[str, dict[str, int]]) -> str:
    """What the run's ``audit.json`` (None: absent) says of the classes the export wrote
    (``counts``, per venue): the same, other, or no verdict (not audited)."""
    from audits.result import AuditResult, ResultError

    hands = sum(sum(per.values()) for per in counts.values())
    results = (audit or {}).get("results")
    found = next((r for r in results if isinstance(r, dict) and r.get("name") == "outcome"),
                 None) if isinstance(results, list) else None
    try:
        result = None if found is None else AuditResult.from_dict(found, "audit.json outcome")
    except ResultError:
        result = None  # not a result audit.json's writer wrote: no verdict to compare with
    if result is None:
        return (f"outcome classes of {hands:,} hands by the outcome audit's code "
                "(audits/outcome.py); the run has not been audited (no outcome result in "
                "audit.json): they are no verdict until `holdem audit RUN`")
    if result.details.get("per_venue") == counts:
        verdict = "PASS" if result.passed else "FAIL"
        return (f"outcome classes of {hands:,} hands: those of the run's audit (audit.json, "
                f"outcome {verdict}), per venue and class")
    return (f"outcome classes of {hands:,} hands by the outcome audit's code: NOT those of the "
            "run's audit.json (per venue and class; an audit of other code or another log): "
            "audit the run again")
