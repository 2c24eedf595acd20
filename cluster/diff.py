"""``holdem diff BASELINE CANDIDATE``: are two run folders the same hands?

Hand diff (the default). Both manifests' specs must agree on everything that determines the
hands (seed, players, format, blinds, generator, fault, batch size, ...): otherwise the runs are
not comparable (exit 2, naming the first differing field; so are two ``os-chacha20`` runs,
which cannot reproduce a deck). ``hands`` and ``structures`` may differ: hands present on one
side only are reported as missing. Hands are matched by
``hand_id`` and compared by a per-hand content digest (``sim.digest``: every column but
``run_id``; ``fault`` is content). Which digest: a batch file recorded with the same sha256 in
both manifests, whose bytes match it on both sides, is byte-identical (only its ``hand_id``
column is read). Every other file's hands are hashed from their content, and (when both runs
store a ``digest`` column of this ``DIGEST_VERSION`` over the same columns) checked against the
stored digest: a hand whose stored digest is not the digest of its content (a forged hand with
its digest left stale, or a forged digest) is a difference, named by file and hand_id. With
``--trust-digests`` the stored digests of files whose bytes match their manifest's sha256 are
read instead (the fast path, which believes them); ``--recompute`` hashes the content without
reading them. A file whose bytes do not match its manifest's sha256 is named in a note.
For the first differing hand both rows are fetched, compared field by field (cards, positions,
actions one by one, then showdown, pots, payouts) to name the first thing that differs, and
printed side by side as hand histories. Exit 0 identical, 1 different (or hands missing on one
side), 2 not comparable or unreadable input.

Columns present in one schema only (an engine that added a column) are not compared; the report
says so.

Statistical diff (``--stat``): the distributions of the two runs (any seeds) are compared:
win rate by position relative to the button, pot sizes, player-action frequencies by street,
showdown and all-in rates, and the manifests' rare-path counts, each with a two-sample test
(chi-square for frequencies, Kolmogorov-Smirnov for pot sizes, a conditional binomial test for
count rates) and a Holm correction over all tests. Exit 0 when nothing moved significantly,
1 when something did.
"""

from __future__ import annotations

import difflib
import hashlib
import io
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any

import numba as nb
import numpy as np
import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from audits.stats import holm
from sim.digest import DIGEST_VERSION, content_columns, hand_digests

EXIT_SAME = 0
EXIT_DIFFERENT = 1
EXIT_NOT_COMPARABLE = 2

# spec fields that decide which hands a run holds, not what they are
COVERAGE_FIELDS = ("hands", "structures")


class NotComparable(ValueError):
    """The runs cannot be compared (different config, missing or corrupt input): exit 2."""


# ---------------------------------------------------------------- reading the runs


@dataclass
class _Run:
    label: str
    fs: pafs.FileSystem
    base: str
    manifest: dict[str, Any]
    files: dict[str, str]  # relative path -> full path


def _open_run(run: str | os.PathLike[str]) -> _Run:
    from audits.runfolder import RunFolder, RunFolderError
    from cluster.manifest import MANIFEST_FORMAT
    from cluster.phh_import import MANIFEST_FORMAT as PHH_FORMAT

    label = os.fspath(run)
    try:
        folder = RunFolder.open(run)
        folder.require()
        rels = folder.batch_relpaths()
        if not rels:
            raise RunFolderError(f"run folder {label} holds no batch files")
        manifest = folder.read_manifest({MANIFEST_FORMAT, PHH_FORMAT})
    except RunFolderError as e:
        raise NotComparable(str(e)) from None
    if manifest is None:
        raise NotComparable(f"run folder {label} has no manifest.json")
    files = {rel: folder.path(rel) for rel in rels}
    return _Run(label, folder.fs, folder.base, manifest, files)


def _read(run: _Run, rel: str) -> bytes:
    try:
        with run.fs.open_input_stream(run.files[rel]) as f:
            return f.read()
    except OSError as e:
        raise NotComparable(f"{run.label}/{rel}: cannot read ({e})") from None


def _table(run: _Run, rel: str, data: bytes, columns: list[str] | None) -> pa.Table:
    try:
        return pq.read_table(pa.BufferReader(data), columns=columns)
    except (pa.ArrowException, OSError, ValueError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise NotComparable(f"{run.label}/{rel}: not a readable Parquet file ({first})") from None


def _schema(run: _Run) -> pa.Schema:
    rel = next(iter(sorted(run.files)))
    try:
        with run.fs.open_input_file(run.files[rel]) as f:
            return pq.read_schema(f)
    except (pa.ArrowException, OSError, ValueError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise NotComparable(f"{run.label}/{rel}: not a readable Parquet file ({first})") from None


def spec_mismatch(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """The first spec field (not a coverage field) that differs, as one phrase, or None. A field
    that one spec lacks (an older RunSpec) is compared with today's default."""
    import dataclasses

    from audits.runfolder import spec_difference
    from sim.runspec import RunSpec

    defaults = {f.name: (f.default if f.default is not dataclasses.MISSING
                         else f.default_factory() if f.default_factory is not dataclasses.MISSING
                         else "<absent>")
                for f in dataclasses.fields(RunSpec)}
    d = spec_difference(a, b, ignore=COVERAGE_FIELDS, defaults=defaults)
    return (None if d is None
            else f"{d.field} differs (baseline {json.dumps(d.a)}, candidate {json.dumps(d.b)})")


@dataclass
class _Side:
    """One run's (hand_id, digest) per batch file, and how each was obtained."""

    run: _Run
    parts: dict[str, tuple[np.ndarray, np.ndarray]]
    how: dict[str, str]  # "same-bytes" (digests 0), "stored", "verified" or "content"
    unverified: set[str] = field(default_factory=set)  # bytes differ from the manifest's sha256
    stale: dict[str, np.ndarray] = field(default_factory=dict)  # rel -> hand_ids whose stored
    # digest is not the digest of their content (verified mode)


def _recorded_shas(run: _Run) -> dict[str, str]:
    return {f["path"]: f["sha256"] for f in run.manifest.get("files") or []
            if isinstance(f, dict) and f.get("path") and f.get("sha256")}


_NO_STALE = np.zeros(0, dtype=np.int64)


def _file_digests(run: _Run, rel: str, columns: list[str], same_bytes: bool, stored: bool,
                  recorded: str | None, trust: bool = False
                  ) -> tuple[np.ndarray, np.ndarray, str, bool, np.ndarray]:
    """(hand_id, digest, how, bytes verified, stale hand_ids) of one batch file. The file's
    sha256 must match its manifest record for its byte identity with the other side to count.
    ``stored`` (both runs hash the same columns the same way): with ``trust``, the stored digest
    column is read when the bytes verify (the fast path); otherwise every hand's content is
    hashed and checked against its stored digest (a hand whose stored digest differs is stale:
    ``how`` "verified"). Without ``stored`` the content is hashed ("content")."""
    data = _read(run, rel)
    verified = recorded is not None and hashlib.sha256(data).hexdigest() == recorded
    if verified and same_bytes:
        t = _table(run, rel, data, ["hand_id"])
        return (t["hand_id"].to_numpy(), np.zeros(t.num_rows, dtype=np.uint64), "same-bytes",
                True, _NO_STALE)
    if verified and stored and trust:
        t = _table(run, rel, data, ["hand_id", "digest"])
        return t["hand_id"].to_numpy(), t["digest"].to_numpy(), "stored", True, _NO_STALE
    if stored:
        t = _table(run, rel, data, [*columns, "digest"])
        dig = hand_digests(t, columns)
        hid = t["hand_id"].to_numpy()
        stale = hid[t["digest"].to_numpy() != dig]
        return hid, dig, "verified", verified, stale
    t = _table(run, rel, data, columns)
    return t["hand_id"].to_numpy(), hand_digests(t, columns), "content", verified, _NO_STALE


def _digest_side(run: _Run, columns: list[str], same_bytes: set[str], stored: bool,
                 threads: int | None = None, only: set[str] | None = None,
                 trust: bool = False) -> _Side:
    """Every batch file's digests (``only``: just those files), on a thread pool (file reads,
    Parquet decoding, sha256 and the digest kernels release the GIL)."""
    from concurrent.futures import ThreadPoolExecutor

    rec = _recorded_shas(run)
    rels = sorted(run.files if only is None else only)

    def one(rel: str) -> tuple[np.ndarray, np.ndarray, str, bool, np.ndarray]:
        return _file_digests(run, rel, columns, rel in same_bytes, stored, rec.get(rel), trust)

    workers = threads if threads is not None else min(len(rels), os.cpu_count() or 1, 8)
    if workers <= 1:
        out = [one(rel) for rel in rels]
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            out = list(pool.map(one, rels))
    return _Side(run, {rel: (o[0], o[1]) for rel, o in zip(rels, out, strict=True)},
                 {rel: o[2] for rel, o in zip(rels, out, strict=True)},
                 {rel for rel, o in zip(rels, out, strict=True) if not o[3]},
                 {rel: o[4] for rel, o in zip(rels, out, strict=True) if len(o[4])})


def _ids_and_digests(side: _Side) -> tuple[np.ndarray, np.ndarray]:
    """(hand_id, digest) of every hand of one side, sorted by hand_id."""
    parts = [side.parts[rel] for rel in sorted(side.parts)]
    hid = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
    dig = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, dtype=np.uint64)
    return _sorted(side.run.label, hid, dig)


def digest_runs(a: _Run, b: _Run, columns: list[str], stored: bool,
                threads: int | None = None, trust: bool = False) -> tuple[_Side, _Side]:
    """Both sides' digests. Files recorded with the same sha256 on both sides, whose bytes
    verify on both, are byte-identical: not decoded (digest 0 on both sides). ``trust``: read
    the stored digests of the other files whose bytes verify, instead of checking them."""
    ra, rb = _recorded_shas(a), _recorded_shas(b)
    same = {rel for rel in set(a.files) & set(b.files) if ra.get(rel) and ra[rel] == rb.get(rel)}
    sa = _digest_side(a, columns, same, stored, threads, trust=trust)
    sb = _digest_side(b, columns, same, stored, threads, trust=trust)
    for side, other in ((sa, sb), (sb, sa)):  # identity held on one side only: hash it for real
        redo = {rel for rel, how in side.how.items()
                if how == "same-bytes" and other.how.get(rel) != "same-bytes"}
        if redo:
            fresh = _digest_side(side.run, columns, set(), stored, threads, only=redo,
                                 trust=trust)
            side.parts.update(fresh.parts)
            side.how.update(fresh.how)
            side.unverified |= fresh.unverified
            side.stale.update(fresh.stale)
    return sa, sb


def _sorted(label: str, hid: np.ndarray, dig: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if len(hid) > 1 and not bool(np.all(hid[1:] > hid[:-1])):
        order = np.argsort(hid, kind="stable")
        hid, dig = hid[order], dig[order]
        dup = np.flatnonzero(hid[1:] == hid[:-1])
        if len(dup):
            raise NotComparable(f"run {label}: hand_id {int(hid[dup[0]])} appears more than once")
    return np.ascontiguousarray(hid), np.ascontiguousarray(dig)


# ---------------------------------------------------------------- matching


@nb.njit(cache=True, nogil=True)
def _merge(ia: np.ndarray, da: np.ndarray, ib: np.ndarray, db: np.ndarray, k: int,
           first: np.ndarray) -> np.ndarray:
    """Walk two sorted hand_id arrays. Returns [same, differ, only_a, only_b]; ``first`` (3 x k)
    receives the first k hand_ids that differ / are only in a / only in b."""
    c = np.zeros(4, dtype=np.int64)
    i = 0
    j = 0
    na = len(ia)
    nb_ = len(ib)
    while i < na and j < nb_:
        x = ia[i]
        y = ib[j]
        if x == y:
            if da[i] == db[j]:
                c[0] += 1
            else:
                if c[1] < k:
                    first[0, c[1]] = x
                c[1] += 1
            i += 1
            j += 1
        elif x < y:
            if c[2] < k:
                first[1, c[2]] = x
            c[2] += 1
            i += 1
        else:
            if c[3] < k:
                first[2, c[3]] = y
            c[3] += 1
            j += 1
    while i < na:
        if c[2] < k:
            first[1, c[2]] = ia[i]
        c[2] += 1
        i += 1
    while j < nb_:
        if c[3] < k:
            first[2, c[3]] = ib[j]
        c[3] += 1
        j += 1
    return c


@dataclass
class Match:
    """The outcome of matching two runs' (hand_id, digest) arrays."""

    same: int
    differ: int
    only_baseline: int
    only_candidate: int
    first_differ: list[int]
    first_only_baseline: list[int]
    first_only_candidate: list[int]


def match_digests(ids_a: np.ndarray, dig_a: np.ndarray, ids_b: np.ndarray, dig_b: np.ndarray,
                  first: int = 10) -> Match:
    """Match two (hand_id, digest) arrays, each sorted by hand_id without duplicates."""
    k = max(int(first), 1)
    out = np.zeros((3, k), dtype=np.int64)
    c = _merge(ids_a, dig_a, ids_b, dig_b, k, out)
    return Match(int(c[0]), int(c[1]), int(c[2]), int(c[3]),
                 [int(x) for x in out[0, :min(k, c[1])]][:first],
                 [int(x) for x in out[1, :min(k, c[2])]][:first],
                 [int(x) for x in out[2, :min(k, c[3])]][:first])


# ---------------------------------------------------------------- the hand diff


@dataclass
class DiffResult:
    baseline: str
    candidate: str
    hands_baseline: int
    hands_candidate: int
    match: Match
    seconds: float
    notes: list[str] = field(default_factory=list)
    first_divergence: str | None = None  # the named first difference of the first hand
    side_by_side: str | None = None
    # hands whose stored digest is not the digest of their content: (run/file, hand_ids)
    stale: list[tuple[str, list[int]]] = field(default_factory=list)
    stale_count: int = 0

    @property
    def identical(self) -> bool:
        m = self.match
        return (m.differ == 0 and m.only_baseline == 0 and m.only_candidate == 0
                and self.stale_count == 0)

    @property
    def exit_code(self) -> int:
        return EXIT_SAME if self.identical else EXIT_DIFFERENT


def diff_runs(baseline: str | os.PathLike[str], candidate: str | os.PathLike[str], *,
              first: int = 10, explain: bool = True, recompute: bool = False,
              threads: int | None = None, trust_digests: bool = False) -> DiffResult:
    """Compare two run folders hand by hand (see the module docstring). By default every hand's
    content is hashed and checked against its stored digest (a stale or forged digest is a
    difference, named); ``trust_digests``: read the stored digests of files whose bytes match
    their manifest instead; ``recompute``: hash the content without reading stored digests.
    Raises NotComparable."""
    t0 = time.perf_counter()
    a = _open_run(baseline)
    b = _open_run(candidate)
    why = spec_mismatch(a.manifest.get("spec") or {}, b.manifest.get("spec") or {})
    if why:
        raise NotComparable(f"not comparable: {why}")
    gen = (a.manifest.get("spec") or {}).get("generator", "philox")
    if gen != "philox":
        raise NotComparable(f"not comparable: generator {gen} is not reproducible (its decks "
                            "come from OS entropy); use holdem diff --stat")
    notes: list[str] = []
    sa, sb = _schema(a), _schema(b)
    columns: list[str] = []
    for name in content_columns(sa.names):
        if name not in sb.names:
            notes.append(f"column {name} only in baseline: not compared")
        elif not sa.field(name).type.equals(sb.field(name).type):
            notes.append(f"column {name}: type {sa.field(name).type} vs "
                         f"{sb.field(name).type}: not compared")
        else:
            columns.append(name)
    notes += [f"column {n} only in candidate: not compared" for n in content_columns(sb.names)
              if n not in sa.names]
    if "hand_id" not in sa.names or "hand_id" not in sb.names:
        raise NotComparable("a run has no hand_id column")

    # stored digests are comparable when both sides hash the same columns the same way
    stored = (not recompute and not notes and "digest" in sa.names and "digest" in sb.names
              and a.manifest.get("digest_version") == DIGEST_VERSION
              and b.manifest.get("digest_version") == DIGEST_VERSION)
    side_a, side_b = digest_runs(a, b, columns, stored, threads, trust=trust_digests)
    stale: list[tuple[str, list[int]]] = []
    for side in (side_a, side_b):
        notes += [f"{side.run.label}/{rel}: its bytes do not match the sha256 its manifest "
                  "records (hashed from its content)" for rel in sorted(side.unverified)]
        stale += [(f"{side.run.label}/{rel}", [int(h) for h in side.stale[rel][:first]])
                  for rel in sorted(side.stale)]
    ids_a, dig_a = _ids_and_digests(side_a)
    ids_b, dig_b = _ids_and_digests(side_b)
    m = match_digests(ids_a, dig_a, ids_b, dig_b, first)
    res = DiffResult(a.label, b.label, len(ids_a), len(ids_b), m, time.perf_counter() - t0,
                     notes, stale=stale,
                     stale_count=sum(len(v) for side in (side_a, side_b)
                                     for v in side.stale.values()))
    if explain and m.first_differ:
        res.first_divergence, res.side_by_side = explain_hand(a.label, b.label,
                                                              m.first_differ[0])
    return res


# ---------------------------------------------------------------- explaining one hand

CARD_FIELDS = ("deck", "hole_cards", "burns", "board")
POSITION_FIELDS = (
    "structure", "format", "generator", "seed_key", "table_id", "hand_no", "n_seats", "occupied",
    "button", "sb_seat", "bb_seat", "policy", "small_blind", "big_blind", "ante", "ante_mode",
    "ante_trimming", "min_bet", "small_bet", "big_bet", "raise_cap", "rake_bps", "rake_cap",
    "no_flop_no_drop", "level", "stacks_start", "rebuys",
)
PAYOUT_FIELDS = (
    "folded", "timed_out", "showdown_seats", "showdown_shown", "showdown_ranks", "contributed",
    "returned", "pots", "rake", "won", "stacks_end", "fault",
)
SEAT_FIELDS = ("occupied", "policy", "stacks_start", "rebuys", "folded", "timed_out",
               "contributed", "returned", "won", "stacks_end")


def _card(c: Any) -> str:
    from sim.cards import format_card

    try:
        return format_card(int(c)) if c is not None and int(c) >= 0 else str(c)
    except (ValueError, IndexError):
        return str(c)


def _action_text(r: np.void | None) -> str:
    from sim.layout import EventKind, Street

    if r is None:
        return "(no action)"
    try:
        kind = EventKind(int(r["kind"])).name.lower()
    except ValueError:
        kind = f"kind {int(r['kind'])}"
    try:
        street = Street(int(r["street"])).name.lower()
    except ValueError:
        street = f"street {int(r['street'])}"
    return (f"{street}: seat {int(r['seat'])} {kind}, street total {int(r['to_street_total'])}, "
            f"chips moved {int(r['added'])}")


def _value_diff(name: str, va: Any, vb: Any) -> str:
    """One phrase naming where two values of a field differ."""
    if name == "deck" and isinstance(va, bytes) and isinstance(vb, bytes):
        for k, (x, y) in enumerate(zip(va, vb, strict=False)):
            if x != y:
                return f"deck position {k}: {_card(x)} vs {_card(y)}"
        return f"deck length {len(va)} vs {len(vb)}"
    if isinstance(va, list) and isinstance(vb, list):
        for k, (x, y) in enumerate(zip(va, vb, strict=False)):
            if x != y:
                where = (f"seat {k}" if name in SEAT_FIELDS
                         else f"seat {k // 2} card {k % 2}" if name == "hole_cards"
                         else f"pot {k}" if name == "pots" else f"[{k}]")
                if name in CARD_FIELDS:
                    x, y = _card(x), _card(y)
                return f"{name} {where}: {x} vs {y}"
        return f"{name}: {len(va)} entries vs {len(vb)} ({va} vs {vb})"
    return f"{name}: {va} vs {vb}"


def compare_rows(ra: dict[str, Any], rb: dict[str, Any]) -> list[tuple[str, str]]:
    """Every difference between two rows of the same hand, in order (cards, positions, actions
    one by one, payouts, anything else) as (category, phrase); ``run_id`` is not compared."""
    from sim.schema import decode_actions

    out: list[tuple[str, str]] = []

    def fields(names: tuple[str, ...], category: str) -> None:
        for name in names:
            if name in ra and name in rb and ra[name] != rb[name]:
                out.append((category, _value_diff(name, ra[name], rb[name])))

    fields(CARD_FIELDS, "card")
    fields(POSITION_FIELDS, "position")
    if "actions" in ra and "actions" in rb and ra["actions"] != rb["actions"]:
        try:
            aa, ab = decode_actions(ra["actions"]), decode_actions(rb["actions"])
        except ValueError:
            out.append(("action", "actions: the packed records differ (not decodable)"))
        else:
            for i in range(max(len(aa), len(ab))):
                x = aa[i] if i < len(aa) else None
                y = ab[i] if i < len(ab) else None
                if x is None or y is None or x.tobytes() != y.tobytes():
                    out.append(("action", f"action #{i}: {_action_text(x)} vs "
                                          f"{_action_text(y)}"))
                    break
    fields(PAYOUT_FIELDS, "payout")
    known = set(CARD_FIELDS) | set(POSITION_FIELDS) | set(PAYOUT_FIELDS) | {
        "actions", "run_id", "hand_id"}
    for name in sorted((set(ra) & set(rb)) - known):
        if ra[name] != rb[name]:
            out.append(("other", _value_diff(name, ra[name], rb[name])))
    return out


def _history(row: dict[str, Any]) -> str | None:
    from sim.history import format_hand
    from sim.rows import hand_from_row

    try:
        return format_hand(hand_from_row(row, check=False))
    except Exception:  # noqa: BLE001 - a row that does not rebuild: fall back to fields
        return None


def side_by_side(left: str, right: str, titles: tuple[str, str] = ("baseline", "candidate"),
                 width: int = 64) -> str:
    """Two texts in two columns, lines aligned by difflib; ``|`` marks lines that differ,
    ``<`` / ``>`` lines on one side only."""
    la, lb = left.splitlines(), right.splitlines()

    def cut(s: str) -> str:
        return s if len(s) <= width else s[:width - 1] + "~"

    rows = [f"{titles[0]:<{width}}   {titles[1]}", f"{'-' * width}   {'-' * width}"]
    sm = difflib.SequenceMatcher(a=la, b=lb, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            rows += [f"{cut(x):<{width}}   {cut(x)}" for x in la[i1:i2]]
            continue
        xs, ys = la[i1:i2], lb[j1:j2]
        for k in range(max(len(xs), len(ys))):
            x = xs[k] if k < len(xs) else ""
            y = ys[k] if k < len(ys) else ""
            mark = "|" if x and y else "<" if x else ">"
            rows.append(f"{cut(x):<{width}} {mark} {cut(y)}")
    return "\n".join(rows)


def explain_hand(baseline: str, candidate: str, hand_id: int) -> tuple[str, str]:
    """(the first difference of ``hand_id`` named, both hands side by side)."""
    from cluster.replay import find_row

    ra = find_row(baseline, hand_id)
    rb = find_row(candidate, hand_id)
    diffs = compare_rows(ra, rb)
    if not diffs:
        return f"hand {hand_id}: the digests differ but no compared field does", ""
    cat, text = diffs[0]
    what = {"card": "card", "position": "position", "action": "action", "payout": "payout",
            "other": "field"}[cat]
    head = f"hand {hand_id}: first differing {what}: {text}"
    if len(diffs) > 1:
        head += "\n  also: " + "\n  also: ".join(t for _, t in diffs[1:8])
        if len(diffs) > 8:
            head += f"\n  ... and {len(diffs) - 8} more"
    ha, hb = _history(ra), _history(rb)
    if ha is None or hb is None:
        body = "(a row does not rebuild into a hand; differing fields)\n" + "\n".join(
            f"  {t}" for _, t in diffs)
        return head, body
    body = side_by_side(ha, hb)
    if ha == hb:
        body += ("\n(replayed from cards and actions the two hands are the same: the rows differ "
                 "in logged values the replay recomputes)\n"
                 + "\n".join(f"  {t}" for _, t in diffs))
    return head, body


def format_diff(res: DiffResult) -> str:
    m = res.match
    lines = [f"baseline  {res.baseline}: {res.hands_baseline:,} hands",
             f"candidate {res.candidate}: {res.hands_candidate:,} hands"]
    lines += [f"note: {n}" for n in res.notes]
    if res.identical:
        lines.append(f"IDENTICAL: {m.same:,} hands match ({res.seconds:.2f} s)")
        return "\n".join(lines)
    if res.stale_count:
        lines.append(f"STALE DIGESTS: {res.stale_count:,} hands store a digest that is not the "
                     "digest of their content (stale or forged):")
        lines += [f"  {where}: hand_ids {', '.join(map(str, ids))}" for where, ids in res.stale]
    lines.append(f"DIFFERENT: {m.differ:,} of {m.same + m.differ:,} common hands differ; "
                 f"{m.only_baseline:,} only in baseline, {m.only_candidate:,} only in candidate "
                 f"({res.seconds:.2f} s)")
    if m.first_differ:
        lines.append("first differing hand_ids: " + ", ".join(map(str, m.first_differ)))
    if m.first_only_baseline:
        lines.append("first hand_ids only in baseline: "
                     + ", ".join(map(str, m.first_only_baseline)))
    if m.first_only_candidate:
        lines.append("first hand_ids only in candidate: "
                     + ", ".join(map(str, m.first_only_candidate)))
    if res.first_divergence:
        lines.append(res.first_divergence)
    if res.side_by_side:
        lines.append(res.side_by_side)
    return "\n".join(lines)


# ---------------------------------------------------------------- the statistical diff


@dataclass
class StatTest:
    name: str
    p: float
    detail: str
    p_holm: float = 1.0
    significant: bool = False


@dataclass
class StatResult:
    baseline: str
    candidate: str
    hands_baseline: int
    hands_candidate: int
    alpha: float
    tests: list[StatTest]
    notes: list[str] = field(default_factory=list)

    @property
    def moved(self) -> list[StatTest]:
        return [t for t in self.tests if t.significant]

    @property
    def exit_code(self) -> int:
        return EXIT_DIFFERENT if self.moved else EXIT_SAME


STAT_COLUMNS = ["table_id", "n_seats", "button", "occupied", "won", "contributed", "returned",
                "stacks_start", "showdown_seats", "actions"]
PLAYER_KINDS = (6, 7, 8, 9, 10)  # sim.layout.EventKind FOLD, CHECK, CALL, BET, RAISE
_N_POS = 10


@dataclass
class _Summary:
    """Per-table sums of one run (tables are the independent units: stacks carry over from hand
    to hand at a table, so hands are not independent draws)."""

    hands: np.ndarray  # (tables,)
    pos_hands: np.ndarray  # (tables, 10): hands with an occupied seat at button+p
    pos_wins: np.ndarray  # (tables, 10): ... where that seat won chips
    pot: np.ndarray  # (tables,): sum over hands of the chips put in
    showdowns: np.ndarray
    allins: np.ndarray
    actions: np.ndarray  # (tables, 6 streets, 16 kinds)


def _seat_matrix(col: pa.ChunkedArray, n: int) -> np.ndarray:
    flat = col.combine_chunks().flatten().to_numpy(zero_copy_only=False)
    return flat.reshape(n, -1)


def _summarise(run: _Run) -> _Summary:
    from sim.schema import ACTION_DTYPE

    parts: list[tuple[np.ndarray, ...]] = []
    for rel in sorted(run.files):
        t = _table(run, rel, _read(run, rel), STAT_COLUMNS)
        n = t.num_rows
        if n == 0:
            continue
        tables, tix = np.unique(t["table_id"].to_numpy(), return_inverse=True)
        m = len(tables)
        k = int(t["n_seats"][0].as_py())
        button = t["button"].to_numpy().astype(np.int64)
        occ = _seat_matrix(t["occupied"], n).astype(bool)
        won = _seat_matrix(t["won"], n)
        contrib = _seat_matrix(t["contributed"], n)
        returned = _seat_matrix(t["returned"], n)
        start = _seat_matrix(t["stacks_start"], n)
        pos = (np.arange(k)[None, :] - button[:, None]) % k
        cell = tix[:, None] * _N_POS + pos
        pos_hands = np.bincount(cell[occ], minlength=m * _N_POS).reshape(m, _N_POS)
        pos_wins = np.bincount(cell[occ & (won > 0)], minlength=m * _N_POS).reshape(m, _N_POS)
        hands = np.bincount(tix, minlength=m)
        pot = np.bincount(tix, weights=contrib.sum(axis=1), minlength=m)
        sd = np.diff(t["showdown_seats"].combine_chunks().offsets.to_numpy()) > 0
        showdowns = np.bincount(tix, weights=sd, minlength=m)
        allin = ((contrib + returned == start) & (start > 0) & occ).any(axis=1)
        allins = np.bincount(tix, weights=allin, minlength=m)
        acts = t["actions"].combine_chunks()
        bufs = acts.buffers()
        off = np.frombuffer(bufs[1], dtype=np.int32)[acts.offset:acts.offset + n + 1]
        rec = np.frombuffer(bufs[2], dtype=np.uint8)[off[0]:off[-1]].view(ACTION_DTYPE)
        owner = np.repeat(tix, np.diff(off) // ACTION_DTYPE.itemsize)
        code = (owner * 6 + np.clip(rec["street"].astype(np.int64), 0, 5)) * 16 \
            + np.clip(rec["kind"].astype(np.int64), 0, 15)
        actions = np.bincount(code, minlength=m * 96).reshape(m, 6, 16)
        parts.append((hands, pos_hands, pos_wins, pot, showdowns, allins, actions))
    if not parts:
        raise NotComparable(f"run {run.label} holds no hands")
    return _Summary(*(np.concatenate([p[i] for p in parts]) for i in range(7)))


def _ratio(y: np.ndarray, x: np.ndarray) -> tuple[float, float]:
    """Ratio estimate sum(y)/sum(x) over independent clusters and its (linearised) variance."""
    y = np.asarray(y, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    sx = x.sum()
    r = y.sum() / sx
    m = len(x)
    var = m / (m - 1) * float(((y - r * x) ** 2).sum()) / sx**2 if m > 1 else float("inf")
    return float(r), var


def _ratio_test(name: str, ya: np.ndarray, xa: np.ndarray, yb: np.ndarray, xb: np.ndarray,
                scale: float = 100.0, unit: str = "%") -> StatTest | None:
    """Two-sided z-test of equal ratios sum(y)/sum(x), clusters independent."""
    from scipy.stats import norm

    if xa.sum() == 0 or xb.sum() == 0 or len(xa) < 2 or len(xb) < 2:
        return None
    ra, va = _ratio(ya, xa)
    rb, vb = _ratio(yb, xb)
    if ra == rb:
        p = 1.0
    elif va + vb == 0:
        p = 0.0
    else:
        p = float(2 * norm.sf(abs(rb - ra) / np.sqrt(va + vb)))
    d = (rb - ra) * scale
    pts = " pts" if unit == "%" else ""
    return StatTest(name, p, f"{ra * scale:.3f}{unit} -> {rb * scale:.3f}{unit} "
                             f"({d:+.3f}{unit if unit != '%' else ''}{pts})")


def stat_diff(baseline: str | os.PathLike[str], candidate: str | os.PathLike[str], *,
              alpha: float = 0.01) -> StatResult:
    """Compare the two runs' distributions (see the module docstring). The units of every test
    are tables (or, for the manifests' counts, batch files), not hands."""
    from scipy.stats import mannwhitneyu

    from sim.layout import EventKind, Street

    a = _open_run(baseline)
    b = _open_run(candidate)
    notes = []
    why = spec_mismatch(a.manifest.get("spec") or {}, b.manifest.get("spec") or {})
    if why:
        notes.append(f"the specs differ: {why}")
    sa, sb = _summarise(a), _summarise(b)
    tests: list[StatTest | None] = []
    for p in range(_N_POS):
        tests.append(_ratio_test(f"win rate at button+{p}", sa.pos_wins[:, p],
                                 sa.pos_hands[:, p], sb.pos_wins[:, p], sb.pos_hands[:, p]))
    tests.append(_ratio_test("mean pot (chips put in)", sa.pot, sa.hands, sb.pot, sb.hands,
                             scale=1.0, unit=" chips"))
    ma, mb = sa.pot / np.maximum(sa.hands, 1), sb.pot / np.maximum(sb.hands, 1)
    if len(ma) >= 2 and len(mb) >= 2:
        mw = mannwhitneyu(ma, mb, alternative="two-sided")
        tests.append(StatTest("pot size by table (Mann-Whitney)", float(mw.pvalue),
                              f"median table mean pot {np.median(ma):.1f} -> "
                              f"{np.median(mb):.1f} ({len(ma)} vs {len(mb)} tables)"))
    for st in (Street.PREFLOP, Street.FLOP, Street.TURN, Street.RIVER):
        tot_a = sa.actions[:, int(st), list(PLAYER_KINDS)].sum(axis=1)
        tot_b = sb.actions[:, int(st), list(PLAYER_KINDS)].sum(axis=1)
        for kind in PLAYER_KINDS:
            tests.append(_ratio_test(
                f"{st.name.lower()} {EventKind(kind).name.lower()} share of actions",
                sa.actions[:, int(st), kind], tot_a, sb.actions[:, int(st), kind], tot_b))
    tests.append(_ratio_test("showdown rate", sa.showdowns, sa.hands, sb.showdowns, sb.hands))
    tests.append(_ratio_test("all-in rate", sa.allins, sa.hands, sb.allins, sb.hands))
    fa = [f for f in a.manifest.get("files") or [] if f.get("hands")]
    fb = [f for f in b.manifest.get("files") or [] if f.get("hands")]
    if len(fa) >= 2 and len(fb) >= 2:
        names = sorted({k for f in fa + fb for k in (f.get("counts") or {})})
        ha = np.array([f["hands"] for f in fa], dtype=np.float64)
        hb = np.array([f["hands"] for f in fb], dtype=np.float64)
        for name in names:
            ca = np.array([(f.get("counts") or {}).get(name, 0) for f in fa], dtype=np.float64)
            cb = np.array([(f.get("counts") or {}).get(name, 0) for f in fb], dtype=np.float64)
            if ca.sum() + cb.sum() == 0:
                continue
            tests.append(_ratio_test(f"count {name} per 1000 hands", ca, ha, cb, hb,
                                     scale=1000.0, unit=""))
    else:
        notes.append("rule-path counts not tested: fewer than 2 batch files in a run")
    kept = [t for t in tests if t is not None]
    for t, adj in zip(kept, holm([t.p for t in kept])[1], strict=True):
        t.p_holm = adj
        t.significant = adj < alpha
    return StatResult(a.label, b.label, int(sa.hands.sum()), int(sb.hands.sum()), alpha, kept,
                      notes)


def format_stat(res: StatResult, verbose: bool = False) -> str:
    lines = [f"baseline  {res.baseline}: {res.hands_baseline:,} hands",
             f"candidate {res.candidate}: {res.hands_candidate:,} hands"]
    lines += [f"note: {n}" for n in res.notes]
    moved = res.moved
    if not moved:
        lines.append(f"NOTHING MOVED: {len(res.tests)} tests, none significant at "
                     f"alpha {res.alpha} (Holm)")
    else:
        lines.append(f"MOVED: {len(moved)} of {len(res.tests)} tests significant at alpha "
                     f"{res.alpha} (Holm):")
        for t in sorted(moved, key=lambda t: t.p):
            lines.append(f"  {t.name}: {t.detail}  p={t.p:.2e}, Holm p={t.p_holm:.2e}")
    if verbose:
        out = io.StringIO()
        for t in res.tests:
            out.write(f"  {'*' if t.significant else ' '} {t.name}: {t.detail}  p={t.p:.3g}\n")
        lines.append("all tests:\n" + out.getvalue().rstrip())
    return "\n".join(lines)
