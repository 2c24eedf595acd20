"""The differences of two runs grouped by root cause, for ``holdem regress``.

When an engine change alters one hand of a table, the table's later hands differ too: the
stacks, and with them the bets, all-ins, eliminations and seat turnover, carry the change on. A
count of differing hands then measures how long the tables are, not what changed. So the
differing hands (the common hands whose digests differ, and the hands one side has and the
other lacks: a tournament that ends sooner) are grouped by table (``table_id``, unique in a
run): the first differing hand of each table (by ``hand_no``) is a ROOT CAUSE; the table's later
differing hands are its CONSEQUENCES, counted apart.

For each root cause (the first ``DETAIL``): the field that differs first
(``divergence.compare_rows``) and the rule paths the hand took on each side, by the coverage
audit's names (``audits.coverage.hand_paths``: the betting and payouts audits' flags and the
paths plain columns show, recomputed from each side's own log by this tree's audits). Root causes
are grouped by their MARKING path: of the paths the hand took (on either side), the one most
over-represented among the root causes relative to its share of all hands, so that the rule the
change touches stands out (an odd-chip change's root causes all took ``odd_chip``, a path of
about 1% of hands).
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cluster.regression.divergence import compare_rows, field_of
from cluster.regression.runs import (
    ComparedRun,
    NotComparable,
    compared_columns,
    open_run,
    read_file,
    read_table,
)

DETAIL = 5_000  # root causes whose rows are read for the first field and the paths
EXAMPLES = 3  # hand ids named per group
LIFT = 4.0  # a marking path: taken by the root causes at least this many times as often ...
MARK_SHARE = 0.20  # ... as by all hands, and by at least this share of them (and two)
# the order in which a root cause's differences are named: what the hand was set up with,
# then what was dealt, played, run out and paid (``compare_rows`` names cards first: a hand
# whose blinds changed and ended on another street differs in its burns too)
CAUSAL = {"position": 0, "deck": 1, "hole_cards": 1, "action": 2, "burns": 3, "board": 3,
          "payout": 4}
NO_MARK = "(no path stands out)"


@dataclass
class RootCause:
    """The first differing hand of one table."""

    hand_id: int
    table_id: int
    hand_no: int
    structure: str
    format: str
    consequences: int  # the table's later hands that differ or one side only played
    hand_id_baseline: int = -1  # the same (table, hand) in the baseline (moved: another id)
    field: str = ""  # the first differing field (won, action, deck, ...); "" when not read
    text: str = ""  # the first difference in words
    paths_baseline: tuple[str, ...] | None = None
    paths_candidate: tuple[str, ...] | None = None
    mark: str = ""  # the marking path (see the module docstring)


@dataclass
class RootCauses:
    causes: list[RootCause]
    consequent: int  # differing hands (by hand_id) that are not root causes
    tables: int  # tables of the runs (the affected ones are len(causes))
    detailed: int  # root causes whose rows were read
    share: dict[str, float] = field(default_factory=dict)  # each path's share of all hands
    paths_note: str | None = None  # why the paths are missing, when they are
    later: int = 0  # later hands of the root causes' tables that differ (or one side only)

    def counts(self, attr: str) -> Counter[str]:
        return Counter(getattr(c, attr) for c in self.causes[:self.detailed]
                       if getattr(c, attr))


@dataclass
class _Hands:
    """One run's hands keyed by table: hand_id, table_id, hand_no, the content digest without
    the hand_id (``sim.digest``; the hand's place in its batch is no part of it), structure and
    format."""

    hand_id: np.ndarray
    table_id: np.ndarray
    hand_no: np.ndarray
    digest: np.ndarray
    structure: list[str]
    format: list[str]


def shared_columns(a: ComparedRun, b: ComparedRun) -> list[str]:
    """The content columns (``sim.digest``) both runs hold with the same type; NotComparable
    when one lacks what matching by table needs."""
    cols, _ = compared_columns(a, b)
    missing = [c for c in ("hand_id", "table_id", "hand_no", "structure", "format")
               if c not in cols]
    if missing:
        raise NotComparable(f"the runs do not both hold column {missing[0]!r}")
    return cols


def _hands(run: ComparedRun, columns: list[str]) -> _Hands:
    """Every hand of ``run``, file by file (``columns``: the content both runs share)."""
    from sim.digest import hand_digests

    parts: list[tuple[np.ndarray, ...]] = []
    strings: tuple[list[str], list[str]] = ([], [])
    cols = [c for c in columns if c != "hand_id"]
    for rel in sorted(run.files):
        t = read_table(run, rel, read_file(run, rel), ["hand_id", *cols])
        parts.append((t.column("hand_id").to_numpy(), t.column("table_id").to_numpy(),
                      t.column("hand_no").to_numpy(), hand_digests(t, cols)))
        for k, name in enumerate(("structure", "format")):
            strings[k].extend(str(v) for v in t.column(name).to_pylist())
    if not parts:
        z = np.zeros(0, np.int64)
        return _Hands(z, z, z, z.astype(np.uint64), [], [])
    arr = [np.concatenate([p[k] for p in parts]) for k in range(4)]
    return _Hands(arr[0], arr[1], arr[2], arr[3], strings[0], strings[1])


def _rows(run: str | os.PathLike[str], ids: list[int]) -> dict[int, dict[str, Any]]:
    import pyarrow as pa
    import pyarrow.dataset as ds

    from cluster.flows.simulate import run_dataset

    if not ids:
        return {}
    from sim.logv4 import as_v3

    t = as_v3(run_dataset(run).to_table(
        filter=ds.field("hand_id").isin(pa.array(ids, pa.int64()))))
    return {int(r["hand_id"]): r for r in t.to_pylist()}


def _paths(run: str | os.PathLike[str], ids: set[int]
           ) -> tuple[dict[int, int], np.ndarray, int]:
    """({hand_id: its path flags} of ``ids``, each path's count over all the run's hands, the
    run's hands): the betting and payouts audits' maps and the coverage flags, file by file."""
    from audits import betting, payouts
    from audits import paths as P
    from audits.coverage import hand_paths
    from audits.io import iter_batches, load_manifest, run_context, run_files

    loc = os.fspath(run)
    context = run_context(load_manifest(loc))
    want = np.array(sorted(ids), np.int64)
    found: dict[int, int] = {}
    counts = np.zeros(P.N_PATHS, np.int64)
    hands = 0
    bits = np.arange(P.N_PATHS, dtype=np.int64)
    for file in run_files(loc):
        for b in iter_batches(file):
            b.context = context
            betting.betting_map(b)
            payouts.payouts_map(b)
            flags = hand_paths(b)
            counts += ((flags[:, None] >> bits) & 1).sum(axis=0)
            hands += b.n
            hid = b.cols["hand_id"]
            for i in np.flatnonzero(np.isin(hid, want)):
                found[int(hid[i])] = int(flags[i])
    return found, counts, hands


def path_names(flags: int) -> tuple[str, ...]:
    from audits import paths as P

    return tuple(p.name for p in P.PATHS if flags >> p.bit & 1)


def root_causes(baseline: str | os.PathLike[str], candidate: str | os.PathLike[str],
                differing: int, *, detail: int = DETAIL, paths: bool = True) -> RootCauses:
    """The differences of two runs grouped by table (see the module docstring). ``differing``:
    the hands the hand_id diff found differing or on one side only; those that are not root
    causes are consequences.

    The hands are matched by (table_id, hand_no), not by hand_id: a table's hands are dealt
    and played from streams keyed by its id and hand number, so a table whose own play is
    unchanged deals the same hands even when an earlier table of its batch ended sooner or
    later and its hands moved to other hand_ids (those differ by hand_id: consequences)."""
    a, b = open_run(baseline), open_run(candidate)
    columns = shared_columns(a, b)
    ha, hb = _hands(a, columns), _hands(b, columns)
    na = len(ha.hand_id)
    keys, inv = np.unique(np.stack([np.concatenate([ha.table_id, hb.table_id]),
                                    np.concatenate([ha.hand_no, hb.hand_no])], axis=1),
                          axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    nk = len(keys)
    ka, kb = inv[:na], inv[na:]
    pos_a = np.full(nk, -1, np.int64)
    pos_b = np.full(nk, -1, np.int64)
    pos_a[ka] = np.arange(na)
    pos_b[kb] = np.arange(len(hb.hand_id))
    both = (pos_a >= 0) & (pos_b >= 0)
    differ = np.zeros(nk, np.bool_)
    differ[both] = ha.digest[pos_a[both]] != hb.digest[pos_b[both]]
    changed = differ | (both != ((pos_a >= 0) | (pos_b >= 0)))  # or on one side only
    # keys are sorted by (table, hand_no): a table's first differing key is its root cause
    dk = np.flatnonzero(differ)
    first_of_table = dk[np.r_[True, keys[dk[1:], 0] != keys[dk[:-1], 0]]] if len(dk) else dk
    root_tables = keys[first_of_table, 0]
    changed_tables, changed_count = np.unique(keys[changed, 0], return_counts=True)
    per_table = dict(zip(changed_tables.tolist(), changed_count.tolist(), strict=True))
    later = sum(per_table[int(t)] for t in root_tables) - len(first_of_table)
    causes = []
    for k in first_of_table:
        i, j = int(pos_a[k]), int(pos_b[k])
        causes.append(RootCause(int(hb.hand_id[j]), int(keys[k, 0]), int(keys[k, 1]),
                                hb.structure[j], hb.format[j],
                                per_table[int(keys[k, 0])] - 1,
                                hand_id_baseline=int(ha.hand_id[i])))
    causes.sort(key=lambda c: c.hand_id)
    n_tables = len(np.unique(keys[:, 0])) if nk else 0
    out = RootCauses(causes, max(differing - len(causes), 0), n_tables,
                     min(len(causes), detail), later=later)
    shown = causes[:out.detailed]
    ra = _rows(baseline, [c.hand_id_baseline for c in shown])
    rb = _rows(candidate, [c.hand_id for c in shown])
    for c in shown:
        diffs = compare_rows(ra[c.hand_id_baseline], rb[c.hand_id])
        diffs = [d for d in diffs if field_of(d[1]) not in ("player_ids", "digest")] or diffs
        diffs.sort(key=lambda d: CAUSAL.get(d[0] if d[0] != "card" else field_of(d[1]), 5))
        if diffs:
            c.field, c.text = field_of(diffs[0][1]), diffs[0][1]
        else:
            c.field, c.text = "(none)", "no compared field differs"
    if paths:
        _add_paths(out, baseline, candidate)
    return out


def _add_paths(out: RootCauses, baseline: str | os.PathLike[str],
               candidate: str | os.PathLike[str]) -> None:
    from audits import paths as P
    from audits.runfolder.errors import InputError

    shown = out.causes[:out.detailed]
    try:
        fa, ca, na = _paths(baseline, {c.hand_id_baseline for c in shown})
        fb, cb, nb = _paths(candidate, {c.hand_id for c in shown})
    except (InputError, OSError, ValueError, KeyError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        out.paths_note = f"rule paths not computed: {first}"
        return
    total = max(na + nb, 1)
    out.share = {p.name: float(ca[p.bit] + cb[p.bit]) / total for p in P.PATHS}
    for c in shown:
        c.paths_baseline = (path_names(fa[c.hand_id_baseline]) if c.hand_id_baseline in fa
                            else None)
        c.paths_candidate = path_names(fb[c.hand_id]) if c.hand_id in fb else None
    taken = Counter(p for c in shown for p in _union(c))
    n = max(len(shown), 1)

    def lift(p: str) -> float:
        share = out.share.get(p, 0.0)
        return (taken[p] / n) / share if share else float("inf")

    # a path stands out when the root causes take it at least LIFT times as often as all hands
    # do, and enough of them (not one odd hand) take it
    marking = {p for p in taken if lift(p) >= LIFT and taken[p] >= max(2, MARK_SHARE * n)}
    for c in shown:
        union = _union(c) & marking
        c.mark = (max(union, key=lambda p: (lift(p), -out.share.get(p, 0.0))) if union
                  else NO_MARK)


def _union(c: RootCause) -> set[str]:
    return set(c.paths_baseline or ()) | set(c.paths_candidate or ())


def _ids(ids: list[int]) -> str:
    return ", ".join(map(str, ids[:EXAMPLES])) + (", ..." if len(ids) > EXAMPLES else "")


def _counted(c: Counter[str], limit: int = 6) -> str:
    items = c.most_common()
    text = ", ".join(f"{k} {v:,}" for k, v in items[:limit])
    return text + (f", ... ({len(items) - limit} more)" if len(items) > limit else "")


def summary(rc: RootCauses) -> str:
    """The change in one phrase: "45 root causes (one per affected table: 23 cash, 22
    tournament; first differing field won 45; 45 at odd_chip), 21,881 consequent hands"."""
    n = len(rc.causes)
    if n == 0:
        return (f"0 root causes (no table plays differently), {rc.consequent:,} hands moved or "
                "on one side only")
    fmts = Counter(c.format for c in rc.causes)
    parts = ["one per affected table: " + ", ".join(f"{v:,} {k}"
                                                     for k, v in sorted(fmts.items()))]
    fields = rc.counts("field")
    if fields:
        parts.append("first differing field " + ", ".join(f"{k} {v:,}"
                                                    for k, v in fields.most_common(3))
                     + (", ..." if len(fields) > 3 else ""))
    marks = rc.counts("mark")
    marks.pop(NO_MARK, None)
    if marks:
        parts.append(", ".join(f"{v:,} at {k}" for k, v in marks.most_common(3))
                     + (", ..." if len(marks) > 3 else ""))
    return (f"{n:,} root cause{'s' if n != 1 else ''} ({'; '.join(parts)}), "
            f"{rc.consequent:,} consequent hand{'s' if rc.consequent != 1 else ''}")


def format_root_causes(rc: RootCauses) -> str:
    """The report's root-cause section."""
    n = len(rc.causes)
    shown = rc.causes[:rc.detailed]
    lines = [f"root causes: {n:,} (the first hand of each affected table that the two engines "
             f"play differently: {n:,} of {rc.tables:,} tables); {rc.consequent:,} consequent "
             "hands"]
    moved = rc.consequent - rc.later
    if moved > 0:
        lines.append(f"  consequent: {rc.later:,} later hands of the same tables (the rule "
                     f"again, or the stacks it changed), and {moved:,} hands of tables that "
                     "play alike but moved to other hand_ids (an earlier table of their batch "
                     "ended sooner or later)")
    else:
        lines.append("  consequent: the same tables' later hands (the rule again, or the "
                     "stacks it changed)")
    lines.append("  first root causes (the candidate run's hand_ids): "
                 + ", ".join(str(c.hand_id) for c in rc.causes[:10])
                 + (", ..." if n > 10 else ""))
    lines.append("  by table format: " + _counted(Counter(c.format for c in rc.causes)))
    lines.append("  by structure: " + _counted(Counter(c.structure for c in rc.causes)))
    if rc.detailed < n:
        lines.append(f"  (the first {rc.detailed:,} root causes read for the fields and paths "
                     "below)")
    fields = rc.counts("field")
    if fields:
        lines.append("  first differing field: " + _counted(fields))
    if rc.paths_note:
        lines.append(f"  {rc.paths_note}")
    marks = rc.counts("mark")
    if marks:
        lines.append(f"  by rule path (coverage's names: of the paths each took, the one most "
                     f"over-represented among the root causes, at least {LIFT:g}x its share of "
                     f"all hands and taken by {MARK_SHARE:.0%} of them):")
        for mark, count in marks.most_common(12):
            ids = [c.hand_id for c in shown if c.mark == mark]
            share = rc.share.get(mark)
            of_all = f"{share:.1%} of all hands" if share is not None else "-"
            lines.append(f"    {mark:<26} {count:>7,}  ({of_all}; e.g. hand {_ids(ids)})")
        if len(marks) > 12:
            lines.append(f"    ... and {len(marks) - 12} more paths")
        taken = Counter(p for c in shown for p in _union(c))
        lines.append("  paths the root causes took: " + _counted(taken, 10))
        apart = [c for c in shown if c.paths_baseline is not None
                 and c.paths_candidate is not None and c.paths_baseline != c.paths_candidate]
        if apart:
            c = apart[0]
            lines.append(
                f"  the two sides took different paths in {len(apart):,} root causes, e.g. "
                f"hand {c.hand_id}: baseline {', '.join(c.paths_baseline or ()) or '-'}; "
                f"candidate {', '.join(c.paths_candidate or ()) or '-'}")
    return "\n".join(lines)
