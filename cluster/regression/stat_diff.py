"""``holdem diff --stat BASELINE CANDIDATE``: did two runs' distributions move?

The distributions of the two runs (any seeds) are compared:
win rate by position relative to the button, pot sizes, player-action frequencies by street,
showdown and all-in rates, and the manifests' rare-path counts, each with a two-sample test
(chi-square for frequencies, Kolmogorov-Smirnov for pot sizes, a conditional binomial test for
count rates) and a Holm correction over all tests. Exit 0 when nothing moved significantly,
1 when something did. Both run folders are read as the hand diff reads them
(:mod:`cluster.regression.runs`).
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from audits.stats import holm
from cluster.regression.runs import (
    EXIT_DIFFERENT,
    EXIT_SAME,
    ComparedRun,
    NotComparable,
    open_run,
    read_file,
    read_table,
    spec_mismatch,
)
from sim.config import MAX_SEATS
from sim.layout import PLAYER_EVENTS, EventKind, Street
from sim.logv4 import as_v3


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
PLAYER_KINDS = PLAYER_EVENTS  # fold, check, call, bet, raise
_N_POS = MAX_SEATS  # positions button+0 .. button+9
_N_STREETS = len(Street)
_N_KINDS = len(EventKind)


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
    actions: np.ndarray  # (tables, streets, event kinds)


def _seat_matrix(col: pa.ChunkedArray, n: int) -> np.ndarray:
    flat = col.combine_chunks().flatten().to_numpy(zero_copy_only=False)
    return flat.reshape(n, -1)


def _summarise(run: ComparedRun) -> _Summary:
    from sim.schema import ACTION_DTYPE

    parts: list[tuple[np.ndarray, ...]] = []
    for rel in sorted(run.files):
        t = as_v3(read_table(run, rel, read_file(run, rel), STAT_COLUMNS))
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
        code = (owner * _N_STREETS
                + np.clip(rec["street"].astype(np.int64), 0, _N_STREETS - 1)) * _N_KINDS \
            + np.clip(rec["kind"].astype(np.int64), 0, _N_KINDS - 1)
        actions = np.bincount(code, minlength=m * _N_STREETS * _N_KINDS).reshape(
            m, _N_STREETS, _N_KINDS)
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

    a = open_run(baseline)
    b = open_run(candidate)
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
