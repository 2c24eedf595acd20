"""``holdem bench import``: reading PHH hand histories, hands per second per core.

The corpus: the real online hands of ``../shared/realhands`` (1,416 hands of six sites, .phhs,
dollars with cents) when present beside the repo, else ``SYNTHETIC_FILES`` generated .phhs files
of the same shape; its files are cycled to ``hands`` hands. The texts are in memory (the disk
is not timed). Each figure is the median of ``repeats`` in CPU seconds of this process:

- ``sim.histories.read.sections.read_sections``: the TOML of every hand read into values
  (amounts exact);
- ``sim.histories.read.phh.reads_phh``: the same plus every hand built and checked (``PhhHand``:
  fields, actions parsed, amounts exact);
- ``+ minor_units``: the same plus every amount converted to integer cents;
- ``reads_phh`` again with its memos (number tokens, decimals, parsed actions: values repeat
  across hands) cleared before every file text: no hand profits from another file's values
  (the cycled corpus repeats its files);
- the whole import (``holdem import``'s work per core, no disk): every hand read, converted to
  cents, replayed through the engine and made a row (``sim.histories.files.import_file_bytes``: the
  compiled path, with the Python path for the hands it does not take), then the tables rebuilt
  across files (``sim.histories.sessions``: ``pad_seats``, ``rebuild``) and the row digests
  computed (the Parquet encoding and the disk are not timed); the
  share of hands the compiled path took is printed;
- its steps alone, on the same files: the scan into ``HandBlock`` (``sim.histories.read.scan``), the
  replay (``sim.histories.replay.compiled``), the rows (``sim.histories.rows.compiled``);
- the same whole import by the Python path alone (``compiled=False``: the reference reader,
  replay and rows, what the import did before the compiled path), a peer in the same run;
- peers in the same run, on the same texts: ``tomllib.loads`` (floats, and with
  ``parse_float=Decimal`` as this reader returns) and, on the first ``pokerkit_hands`` hands,
  PokerKit's ``HandHistory.loads_all`` (its TOML reading and checks) and the same plus the
  replay of each hand's states (iterating the ``HandHistory``).
"""

from __future__ import annotations

import tomllib
import warnings
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pyarrow as pa

from cluster.bench.timing import median_cpu_seconds
from sim.digest import with_digests
from sim.histories.files import import_file_bytes
from sim.histories.read.phh import clear_memos, iter_phh_paths, reads_phh
from sim.histories.read.sections import read_sections
from sim.histories.sessions import pad_seats, rebuild

REALHANDS = Path(__file__).resolve().parents[2].parent / "shared" / "realhands"
SYNTHETIC_FILES = 4
TEXT_HANDS = 2_000  # site-text hands (cluster.bench.import_text); 0: none
_SYNTH_HAND = (
    "[{k}]\nvariant = 'NT'\nante_trimming_status = false\nantes = [0, 0, 0, 0, 0, 0]\n"
    "blinds_or_straddles = [0.25, 0.50, 0, 0, 0, 0]\nmin_bet = 0.50\n"
    "starting_stacks = [{a}.35, 48.10, 50, 61.75, {b}, 22.40]\n"
    "actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'd dh p4 ????', "
    "'d dh p5 ????', 'd dh p6 ????', 'p3 f', 'p4 cbr 1.50', 'p5 f', 'p6 f', 'p1 cc', "
    "'p2 f', 'd db 7h8s2c', 'p1 cc', 'p4 cbr 2.25', 'p1 cc', 'd db Qd', 'p1 cc', 'p4 cc', "
    "'d db 3s', 'p1 cbr 4', 'p4 f']\n"
    "venue = 'PokerStars'\ntime = 00:{m:02d}:30\nday = 1\nmonth = 7\nyear = 2009\n"
    "hand = {h}\nseats = [1, 2, 3, 4, 5, 6]\nseat_count = 6\ntable = '''AMY'S AVE'''\n"
    "players = ['a', 'b', 'c', 'd', 'e', 'f']\nwinnings = [11.50, 0, 0, 0, 0, 0]\n"
    "currency = 'USD'\ncurrency_symbol = '$'\n\n")


def corpus() -> tuple[str, list[str]]:
    """(what it is, the .phhs texts)."""
    if REALHANDS.is_dir():
        texts = [p.read_text(encoding="utf-8") for p in iter_phh_paths([REALHANDS])]
        if texts:
            return f"the real hands of {REALHANDS}", texts
    texts = ["".join(_SYNTH_HAND.format(k=k + 1, a=40 + k % 50, b=100 + k % 7, m=k % 60,
                                        h=10_000 * f + k) for k in range(300))
             for f in range(SYNTHETIC_FILES)]
    return "generated .phhs hands of the real hands' shape (../shared/realhands absent)", texts


def _cycle(texts: list[str], hands: int) -> tuple[list[str], int]:
    counts = [len(read_sections(t, many=True)) for t in texts]
    out, n, i = [], 0, 0
    while n < hands:
        out.append(texts[i % len(texts)])
        n += counts[i % len(texts)]
        i += 1
    return out, n


def run_import_bench(hands: int = 20_000, repeats: int = 5, pokerkit_hands: int = 300,
                     say: Callable[[str], None] = print,
                     text_hands: int = TEXT_HANDS) -> dict[str, float]:
    """Print the figures; return them (hands/s per core) by name."""
    if hands < 1 or repeats < 1:
        raise ValueError("--hands and --repeats: expected at least 1")
    if text_hands < 0:
        raise ValueError("--text-hands: expected 0 or more")
    what, base = corpus()
    texts, n = _cycle(base, hands)

    def fast() -> None:
        for t in texts:
            read_sections(t, many=True)

    def build() -> None:
        for t in texts:
            reads_phh(t, source="bench.phhs", many=True)

    def cold() -> None:
        for t in texts:
            clear_memos()
            reads_phh(t, source="bench.phhs", many=True)

    def cents() -> None:
        for t in texts:
            for h in reads_phh(t, source="bench.phhs", many=True).hands:
                h.minor_units(2)

    def peer_float() -> None:
        for t in texts:
            tomllib.loads(t)

    def peer_decimal() -> None:
        for t in texts:
            tomllib.loads(t, parse_float=Decimal)

    blobs = [t.encode() for t in texts]
    share = [0, 0]

    def whole_of(compiled: bool) -> Callable[[], None]:
        def run() -> None:
            parts, known = [], []
            share[:] = [0, 0]
            for k, data in enumerate(blobs):
                res = import_file_bytes(f"bench-{k}.phhs", data, 2, compiled=compiled)
                share[0] += res.compiled
                share[1] += res.imported
                if res.table is not None:
                    parts.append(res.table)
                    known += res.seat_count_known
            table, _ = rebuild(pad_seats(pa.concat_tables(parts), known))
            with_digests(table)
        return run

    steps = _steps(blobs, repeats, n)
    rates = {
        "whole import (read+replay+rows+tables)": n / median_cpu_seconds(whole_of(True), repeats),
    }
    took = share[:]
    rates.update(steps)
    rates.update({
        "peer: whole import, Python path": n / median_cpu_seconds(whole_of(False), repeats),
        "sim.histories.read.sections (TOML -> values)": n / median_cpu_seconds(fast, repeats),
        "sim.histories.read.phh.reads_phh (+ hands)": n / median_cpu_seconds(build, repeats),
        "+ minor_units (cents)": n / median_cpu_seconds(cents, repeats),
        "reads_phh, memos cleared every file": n / median_cpu_seconds(cold, repeats),
        "peer tomllib (floats)": n / median_cpu_seconds(peer_float, repeats),
        "peer tomllib (Decimal)": n / median_cpu_seconds(peer_decimal, repeats),
    })
    text_lines: list[str] = []
    if text_hands > 0:  # the sites' own text (cluster.bench.import_text)
        from cluster.bench.import_text import run_text_bench

        text_rates, text_lines = run_text_bench(
            text_hands, repeats, rates["whole import (read+replay+rows+tables)"])
        rates.update(text_rates)
    pk_note = ""
    if pokerkit_hands > 0:
        pk_rates, pk_note = _pokerkit(base, pokerkit_hands, repeats)
        rates.update(pk_rates)
    say(f"holdem bench import: {n:,} hands ({what}; {len(texts)} file texts in memory), "
        f"medians of {repeats}, CPU time; the compiled path took {took[0]:,} of the "
        f"{took[1]:,} hands imported")
    toml = rates["sim.histories.read.sections (TOML -> values)"]
    hands_rate = rates["sim.histories.read.phh.reads_phh (+ hands)"]
    for name, rate in rates.items():
        if name.startswith("peer tomllib"):
            vs = f"  (sim.histories.read.sections is {toml / rate:,.1f}x)"
        elif name == "peer PokerKit HandHistory (parse)":
            vs = f"  (reads_phh is {hands_rate / rate:,.1f}x)"
        elif name == "peer: whole import, Python path":
            whole_rate = rates["whole import (read+replay+rows+tables)"]
            vs = f"  (the whole import is {whole_rate / rate:,.1f}x)"
        elif name == "site text: whole import (read+replay+rows+tables)":
            whole_rate = rates["whole import (read+replay+rows+tables)"]
            vs = f"  ({rate / whole_rate:,.3f} of the PHH whole import)"
        elif name == "peer PokerKit site parsers (parse)":
            ours = rates["site text: read, PokerKit's sites only"]
            vs = f"  (our read of the same files is {ours / rate:,.1f}x)"
        elif name == "peer PokerKit parse + replay":
            whole_rate = rates["whole import (read+replay+rows+tables)"]
            vs = f"  (the whole import is {whole_rate / rate:,.1f}x, and makes rows)"
        else:
            vs = ""
        say(f"  {name:<36} {rate:>10,.0f} hands/s per core ({1e6 / rate:,.1f} µs/hand){vs}")
    if pk_note:
        say(f"  {pk_note}")
    for line in text_lines:
        say(f"  {line}")
    return rates


def _pokerkit(base: list[str], hands: int, repeats: int) -> tuple[dict[str, float], str]:
    try:
        from pokerkit import HandHistory
    except ImportError:  # pragma: no cover - pokerkit is a dev dependency
        return {}, "PokerKit is not installed: no PokerKit peer"
    texts, n = _cycle(base, hands)
    # the sections of the first texts until `hands` hands: time whole files (a fair cut)
    failed: list[int] = [0]

    def parse() -> list[object]:
        out: list[object] = []
        for t in texts:
            out.extend(HandHistory.loads_all(t))
        return out

    def replay() -> None:
        failed[0] = 0
        for hh in parse():
            try:
                for _state in hh:  # type: ignore[attr-defined]
                    pass
            except Exception:  # noqa: BLE001 - a hand PokerKit cannot replay is counted
                failed[0] += 1

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit warns on every site field it does not know
        rates = {
            "peer PokerKit HandHistory (parse)": n / median_cpu_seconds(parse, repeats),
            "peer PokerKit parse + replay": n / median_cpu_seconds(replay, repeats),
        }
    return rates, (f"PokerKit peers on {n:,} hands (--pokerkit-hands); {failed[0]} of them "
                   "PokerKit could not replay (timed all the same)")


def _steps(blobs: list[bytes], repeats: int, n: int) -> dict[str, float]:
    """The compiled path's steps alone (hands/s over all ``n`` hands of the texts)."""
    from sim.histories.read.scan import scan
    from sim.histories.replay.compiled import replay_block
    from sim.histories.rows.compiled import rows_of_block

    blocks = [scan(b, many=True).block.rescale(2) for b in blobs]
    replays = [replay_block(b) for b in blocks]

    def scans() -> None:
        for b in blobs:
            scan(b, many=True)

    def replay() -> None:
        for b in blocks:
            replay_block(b)

    def rows() -> None:
        for b, r in zip(blocks, replays, strict=True):
            rows_of_block(b, r, "bench.phhs")

    return {"  step: scan (sim.histories.read.scan)": n / median_cpu_seconds(scans, repeats),
            "  step: replay (sim.histories.replay.compiled)":
                n / median_cpu_seconds(replay, repeats),
            "  step: rows (sim.histories.rows.compiled)": n / median_cpu_seconds(rows, repeats)}
