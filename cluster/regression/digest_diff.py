"""``holdem diff BASELINE CANDIDATE``: are two run folders the same hands? (the hand diff)

Both manifests' specs must agree on everything that determines the
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
The first differing hand is explained (:mod:`cluster.regression.divergence`: the first card,
position, action or payout that differs, both hands side by side). Exit 0 identical, 1
different (or hands missing on one side), 2 not comparable or unreadable input.

Columns present in one schema only (an engine that added a column) are not compared; the report
says so.

The statistical diff (``--stat``) is :mod:`cluster.regression.stat_diff`.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, field

import numba as nb
import numpy as np

from cluster.regression.divergence import explain_hand
from cluster.regression.runs import (
    EXIT_DIFFERENT,
    EXIT_SAME,
    ComparedRun,
    NotComparable,
    compared_columns,
    open_run,
    read_file,
    read_schema,
    read_table,
    spec_mismatch,
)
from sim.digest import DIGEST_VERSION, hand_digests


@dataclass
class _Side:
    """One run's (hand_id, digest) per batch file, and how each was obtained."""

    run: ComparedRun
    parts: dict[str, tuple[np.ndarray, np.ndarray]]
    how: dict[str, str]  # "same-bytes" (digests 0), "stored", "verified" or "content"
    unverified: set[str] = field(default_factory=set)  # bytes differ from the manifest's sha256
    stale: dict[str, np.ndarray] = field(default_factory=dict)  # rel -> hand_ids whose stored
    # digest is not the digest of their content (verified mode)


def _recorded_shas(run: ComparedRun) -> dict[str, str]:
    return {f["path"]: f["sha256"] for f in run.manifest.get("files") or []
            if isinstance(f, dict) and f.get("path") and f.get("sha256")}


_NO_STALE = np.zeros(0, dtype=np.int64)


def _file_digests(run: ComparedRun, rel: str, columns: list[str], same_bytes: bool, stored: bool,
                  recorded: str | None, trust: bool = False
                  ) -> tuple[np.ndarray, np.ndarray, str, bool, np.ndarray]:
    """(hand_id, digest, how, bytes verified, stale hand_ids) of one batch file. The file's
    sha256 must match its manifest record for its byte identity with the other side to count.
    ``stored`` (both runs hash the same columns the same way): with ``trust``, the stored digest
    column is read when the bytes verify (the fast path); otherwise every hand's content is
    hashed and checked against its stored digest (a hand whose stored digest differs is stale:
    ``how`` "verified"). Without ``stored`` the content is hashed ("content")."""
    data = read_file(run, rel)
    verified = recorded is not None and hashlib.sha256(data).hexdigest() == recorded
    if verified and same_bytes:
        t = read_table(run, rel, data, ["hand_id"])
        return (t["hand_id"].to_numpy(), np.zeros(t.num_rows, dtype=np.uint64), "same-bytes",
                True, _NO_STALE)
    if verified and stored and trust:
        t = read_table(run, rel, data, ["hand_id", "digest"])
        return t["hand_id"].to_numpy(), t["digest"].to_numpy(), "stored", True, _NO_STALE
    if stored:
        t = read_table(run, rel, data, [*columns, "digest"])
        dig = hand_digests(t, columns)
        hid = t["hand_id"].to_numpy()
        stale = hid[t["digest"].to_numpy() != dig]
        return hid, dig, "verified", verified, stale
    t = read_table(run, rel, data, columns)
    return t["hand_id"].to_numpy(), hand_digests(t, columns), "content", verified, _NO_STALE


def _digest_side(run: ComparedRun, columns: list[str], same_bytes: set[str], stored: bool,
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
    return sorted_by_hand_id(side.run.label, hid, dig)


def digest_runs(a: ComparedRun, b: ComparedRun, columns: list[str], stored: bool,
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


def sorted_by_hand_id(label: str, hid: np.ndarray, dig: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """(hand_id, digest) sorted by hand_id; NotComparable when a hand_id repeats."""
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
              threads: int | None = None, trust_digests: bool = False,
              spec_changes: bool = False) -> DiffResult:
    """Compare two run folders hand by hand (see the module docstring). By default every hand's
    content is hashed and checked against its stored digest (a stale or forged digest is a
    difference, named); ``trust_digests``: read the stored digests of files whose bytes match
    their manifest instead; ``recompute``: hash the content without reading stored digests.
    ``spec_changes`` (``holdem regress``: both sides ran the same options, so their specs
    differ only where the engines' defaults do): specs that differ are compared hand by hand,
    the fields named in a note. Raises NotComparable."""
    t0 = time.perf_counter()
    a = open_run(baseline)
    b = open_run(candidate)
    why = spec_mismatch(a.manifest.get("spec") or {}, b.manifest.get("spec") or {})
    if why and not spec_changes:
        raise NotComparable(f"not comparable: {why}")
    notes0 = ([f"the specs differ for the same options (the engines' defaults): {why}; "
               "compared hand by hand as a change of the engine"] if why else [])
    gen = (a.manifest.get("spec") or {}).get("generator", "philox")
    if gen != "philox":
        raise NotComparable(f"not comparable: generator {gen} is not reproducible (its decks "
                            "come from OS entropy); use holdem diff --stat")
    columns, notes = compared_columns(a, b)
    sa, sb = read_schema(a), read_schema(b)
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
                     notes0 + notes, stale=stale,
                     stale_count=sum(len(v) for side in (side_a, side_b)
                                     for v in side.stale.values()))
    if explain and m.first_differ:
        res.first_divergence, res.side_by_side = explain_hand(a.label, b.label,
                                                              m.first_differ[0])
    return res



def format_diff(res: DiffResult, causes: str | None = None) -> str:
    """The report of a hand diff; ``causes``: the differences grouped by root cause in one
    phrase (``rootcause.summary``), said first on the DIFFERENT line."""
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
    lines.append(f"DIFFERENT: {causes + '; ' if causes else ''}"
                 f"{m.differ:,} of {m.same + m.differ:,} common hands differ; "
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


