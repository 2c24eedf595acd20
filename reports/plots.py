"""Plots as inline SVG text (matplotlib, no external resources). Each takes numbers an audit
already computed; nothing here recomputes a statistic."""

from __future__ import annotations

import io
from collections.abc import Sequence
from fractions import Fraction

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

RANKS = "23456789TJQKA"
SUITS = "cdhs"


def _svg(fig: plt.Figure) -> str:
    """The figure as SVG text, the same bytes for the same numbers (no date, fixed ids): a
    page ``holdem verify`` can make again and compare."""
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "holdem"}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]


def residual_heatmap(z: Sequence[Sequence[float]]) -> str:
    """52 x 52 standardized residuals: rows = deck position, columns = card."""
    fig, ax = plt.subplots(figsize=(7.2, 6.2))
    lim = max(4.0, max(abs(v) for row in z for v in row))
    im = ax.imshow(z, cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto",
                   interpolation="nearest")
    ax.set_xlabel("card (2c 2d 2h 2s 3c ... As)")
    ax.set_ylabel("position in the deck")
    ticks = list(range(0, 52, 4))
    ax.set_xticks(ticks, [RANKS[t >> 2] + SUITS[t & 3] for t in ticks], fontsize=7)
    ax.set_yticks(list(range(0, 52, 5)))
    fig.colorbar(im, ax=ax, label="standardized residual (z)")
    ax.set_title("Card x position: standardized residuals")
    return _svg(fig)


def pvalue_histogram_qq(pvalues: Sequence[float]) -> str:
    """Histogram and QQ plot of per-batch p-values against U(0, 1)."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(8, 3.2))
    a.hist(pvalues, bins=10, range=(0, 1), color="#4a78b5", edgecolor="white")
    a.axhline(len(pvalues) / 10, color="k", lw=1, ls="--", label="uniform")
    a.set_xlabel("per-batch card x position p-value")
    a.set_ylabel("batches")
    a.legend(fontsize=8)
    ps = sorted(pvalues)
    n = len(ps)
    a_exp = [(i + 0.5) / n for i in range(n)]
    b.plot([0, 1], [0, 1], color="k", lw=1, ls="--")
    b.plot(a_exp, ps, "o", ms=3, color="#c0392b")
    b.set_xlabel("expected (uniform quantile)")
    b.set_ylabel("observed p-value")
    b.set_title("QQ plot", fontsize=9)
    return _svg(fig)


def starting_hands(per_seat: dict[str, dict], expected: dict[str, float]) -> str:
    """Observed share of pairs / suited / offsuit per seat against the exact odds."""
    fig, ax = plt.subplots(figsize=(8, 3.2))
    seats = sorted(per_seat, key=int)
    names = ["pair", "suited", "offsuit"]
    width = 0.8 / 3
    all_shares = []
    for k, name in enumerate(names):
        shares = []
        for s in seats:
            c = per_seat[s]["counts"]
            total = sum(c) or 1
            shares.append(c[k] / total / expected[name])
        all_shares += shares
        ax.bar([i + (k - 1) * width for i in range(len(seats))], shares, width, label=name)
    ax.axhline(1.0, color="k", lw=1, ls="--")
    ax.set_xticks(range(len(seats)), [f"seat {s}" for s in seats])
    ax.set_ylabel("observed / exact odds")
    spread = max(0.05, max(abs(x - 1) for x in all_shares) * 1.3)
    ax.set_ylim(1 - spread, 1 + spread)
    ax.legend(fontsize=8, ncol=3)
    ax.set_title("Starting-hand classes per seat (1.0 = exact odds: pair 1/17, suited 4/17)")
    return _svg(fig)


def rotation_timeline(sample: Sequence[dict]) -> str:
    """Button (B), small blind (S) and big blind (BB) per hand at one table; empty seats grey."""
    n_seats = len(sample[0]["occupied"])
    fig, ax = plt.subplots(figsize=(8, 0.35 * n_seats + 1.4))
    for h, row in enumerate(sample):
        for s in range(n_seats):
            if not row["occupied"][s]:
                ax.add_patch(plt.Rectangle((h - 0.5, s - 0.5), 1, 1, color="#e6e8ec", lw=0))
        ax.text(h, row["button"], "B", ha="center", va="center", fontsize=7, weight="bold")
        if row["sb"] >= 0:
            ax.plot(h, row["sb"], "s", ms=7, color="#f0a030", alpha=0.8)
        ax.plot(h, row["bb"], "o", ms=8, color="#c0392b", alpha=0.8)
    ax.set_xlim(-0.5, len(sample) - 0.5)
    ax.set_ylim(n_seats - 0.5, -0.5)
    ax.set_yticks(range(n_seats), [f"seat {s}" for s in range(n_seats)], fontsize=8)
    ax.set_xlabel(f"hand number at table {sample[0]['table_id']} "
                  f"(from hand {sample[0]['hand_no']})")
    ax.set_title("Blind rotation: B = button, orange square = small blind, red dot = big blind;"
                 " grey = empty seat", fontsize=9)
    return _svg(fig)


def rake_scatter(points: dict[str, Sequence[Sequence[int]]], schedule: dict | None,
                 exponent: int, currency: str) -> str:
    """What the operator kept against the pot, per venue (the outcome audit's points, minor
    units), with the schedule's line: percent of the pot up to its cap."""
    fig, ax = plt.subplots(figsize=(8, 4))
    unit = 10 ** exponent
    top = 1.0
    for venue, pts in sorted(points.items()):
        if not pts:
            continue
        xs = [p[0] / unit for p in pts]
        ys = [p[1] / unit for p in pts]
        top = max(top, *xs)
        ax.scatter(xs, ys, s=10, alpha=0.6, label=f"{venue} ({len(pts):,})")
    lines = [("schedule", schedule)] if schedule else []
    venues = schedule.get("venues") if schedule else None
    if isinstance(venues, dict):  # a venue's own schedule (the one its hands were held to)
        lines += [(f"{name}'s schedule", s) for name, s in sorted(venues.items())
                  if name in points]
    for style, (label, sched) in zip(("--", ":", "-.", (0, (1, 3)), (0, (5, 1)), (0, (3, 1, 1, 1))),
                                     lines, strict=False):
        pct = float(Fraction(sched["percent"])) / 100  # "5", "4.5" or "9/2" (outcome's text)
        cap = sched.get("cap")
        low = 1 / unit  # a curve on the log axis: geometric steps from the minor unit
        xs = [0.0] + [low * (top / low) ** (f / 200) for f in range(201)]
        if cap is not None and pct > 0:
            xs = sorted({*xs, cap / unit / pct} if cap / unit / pct < top else set(xs))
        ys = [x * pct if cap is None else min(x * pct, cap / unit) for x in xs]
        ax.plot(xs, ys, color="k", lw=1.2, ls=style, label=f"{label}: {sched.get('text')}")
    ax.set_xscale("symlog", linthresh=1.0)  # small and large pots alike
    ax.set_xlabel(f"pot ({currency or 'currency units'}; logarithmic above 1)")
    ax.set_ylabel(f"kept by the operator ({currency or 'currency units'})")
    ax.legend(fontsize=7)
    ax.set_title("Rake against pot per venue (hands whose payout was recorded or observed)",
                 fontsize=9)
    return _svg(fig)
