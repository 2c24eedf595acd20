"""The site-text half of ``holdem bench import``: the sites' own text exports imported per core,
beside PokerKit's parse of the same hands.

The corpus: the real exports of ``../shared/sitetext`` (about 1,560 hands of eleven sites) when
present beside the repo, else the real fixtures of ``tests/fixtures/sitetext_real`` and
``tests/fixtures/sitetext``; only the files whose content is a site's text (not PHH, not a file
the import refuses whole). Its files are cycled to ``hands`` hands (hands as the reader splits
them: imported or skipped with a reason), their bytes in memory (the disk is not timed). Each
figure is hands/s per core: the median of ``repeats`` in CPU seconds of this process, after a
warm-up pass (the compiled code, the regular expressions and the memos made once per process, as
a Ray worker that imports many files has them):

- the whole import: ``sim.histories.files.import_file_bytes`` of every file (decoded, read,
  checked, replayed, made rows: what a Ray task of ``holdem import`` does per file), then the
  tables rebuilt across the files and the row digests (as the PHH figure beside it);
- the read alone (``sim.histories.sites.text.read_history_bytes``);
- the peer: PokerKit's own parser of each site (``pokerkit.notation``: PokerStars, Full Tilt,
  iPoker, Ongame, PartyPoker, Absolute) on the files of those sites (its ``__call__``: the hands
  split, parsed and replayed into ``HandHistory``; its tracebacks for the hands it cannot parse
  are not printed), with our read of the same files beside it.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from cluster.bench.timing import median_cpu_seconds
from sim.digest import with_digests
from sim.histories.files import import_file_bytes
from sim.histories.sessions import pad_seats, rebuild
from sim.histories.sites.text import iter_history_paths, read_history_bytes
from sim.histories.sources import decode_text

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "sitetext"
FIXTURES = (ROOT / "tests" / "fixtures" / "sitetext_real", ROOT / "tests" / "fixtures" / "sitetext")
# our format name -> PokerKit's parser class of that site (pokerkit.notation)
PK_PARSERS = {"pokerstars": "PokerStarsParser", "fulltilt": "FullTiltPokerParser",
              "ipoker": "IPokerNetworkParser", "ongame": "OngameNetworkParser",
              "partypoker": "PartyPokerParser", "absolute": "AbsolutePokerParser"}


def text_corpus(shared: Path | None = None) -> tuple[str, list[tuple[str, bytes, str, int]]]:
    """(what it is, [(name, bytes, format, hands)]) of the site-text files."""
    shared = SHARED if shared is None else shared
    roots = [shared] if shared.is_dir() else [p for p in FIXTURES if p.is_dir()]
    what = (f"the real site exports of {shared}" if roots == [shared] else
            "the real fixtures of tests/fixtures/sitetext_real and tests/fixtures/sitetext "
            f"({shared} absent)")
    files = []
    for p in iter_history_paths(roots):
        data = p.read_bytes()
        pf = read_history_bytes(data, str(p))
        fmt = pf.format or ""
        hands = len(pf.hands) + sum(1 for s in pf.skipped if s.key is not None)
        if fmt in ("", "phh", "unknown") or hands == 0:
            continue
        files.append((str(p), data, fmt, hands))
    return what, files


def _cycled(files: list[tuple[str, bytes, str, int]], hands: int,
            ) -> Iterator[tuple[str, bytes, str, int]]:
    n, i = 0, 0
    while n < hands and files:
        name, data, fmt, k = files[i % len(files)]
        yield f"{name}#{i // len(files)}", data, fmt, k
        n += k
        i += 1


def run_text_bench(hands: int, repeats: int, phh_rate: float | None = None,
                   shared: Path | None = None) -> tuple[dict[str, float], list[str]]:
    """The site-text figures (hands/s per core by name) and the lines that describe them."""
    what, base = text_corpus(shared)
    if not base:
        return {}, [f"site text: no site-text file in {what}: no figure"]
    files = list(_cycled(base, hands))
    n = sum(k for *_, k in files)
    counts = [0, 0]

    def whole() -> None:
        parts, known = [], []
        counts[:] = [0, 0]
        for name, data, _, _ in files:
            res = import_file_bytes(name, data, 2)
            counts[0] += res.submitted
            counts[1] += res.imported
            if res.table is not None:
                parts.append(res.table)
                known += res.seat_count_known
        table, _ = rebuild(pad_seats(pa.concat_tables(parts), known))
        with_digests(table)

    def read() -> None:
        for name, data, _, _ in files:
            read_history_bytes(data, name)

    whole()  # the warm-up: once per process, as a Ray worker is after its first file
    rates = {"site text: whole import (read+replay+rows+tables)":
             n / median_cpu_seconds(whole, repeats),
             "site text: read (sim.histories.sites.text)": n / median_cpu_seconds(read, repeats)}
    lines = [f"site text: {n:,} hands ({what}; {len(base)} files cycled to {len(files)}), "
             f"{counts[1]:,} of {counts[0]:,} imported, the rest skipped with a reason"]
    pk = _pokerkit_peer(files, repeats)
    if pk is not None:
        rate, ours, done, tried = pk
        rates["peer PokerKit site parsers (parse)"] = rate
        rates["site text: read, PokerKit's sites only"] = ours
        lines.append(f"PokerKit's parsers on the {tried:,} hands of its six sites: it parsed "
                     f"{done:,} (the rest it cannot: timed all the same); our read of the same "
                     f"files is {ours / rate:,.1f}x its rate")
    if phh_rate:
        ratio = rates["site text: whole import (read+replay+rows+tables)"] / phh_rate
        lines.append(f"site text's whole import is {ratio:.3f} of the PHH path's whole import "
                     "per core (issue 34's goal: at least 0.25)")
    return rates, lines


def _pokerkit_peer(files: list[tuple[str, bytes, str, int]], repeats: int,
                   ) -> tuple[float, float, int, int] | None:
    try:
        import pokerkit.notation as notation
    except ImportError:  # pragma: no cover - pokerkit is a runtime dependency
        return None
    mine = [(name, data, fmt) for name, data, fmt, _ in files if fmt in PK_PARSERS]
    if not mine:
        return None
    texts = []
    for _name, data, fmt in mine:
        decoded = decode_text(data)
        if not isinstance(decoded, str):
            texts.append((getattr(notation, PK_PARSERS[fmt])(), decoded[0].lstrip("\ufeff")))
    tally = [0, 0]

    def parse() -> None:
        tally[:] = [0, 0]
        with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            for parser, text in texts:
                gen: Any = parser(text)
                while True:
                    try:
                        next(gen)
                        tally[0] += 1
                    except StopIteration as stop:
                        tally[1] += stop.value or 0
                        break
                    except Exception:  # noqa: BLE001 - a hand it cannot parse: counted
                        break

    def ours() -> None:
        for name, data, _ in mine:
            read_history_bytes(data, name)

    parse()
    tried = max(tally[1], 1)
    ours_n = sum(k for _, _, fmt, k in files if fmt in PK_PARSERS)
    return (tried / median_cpu_seconds(parse, repeats),
            ours_n / median_cpu_seconds(ours, repeats), tally[0], tally[1])
