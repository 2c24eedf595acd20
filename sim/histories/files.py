"""One source file imported: its hands read, converted to the run's minor unit, replayed and
made rows (``sim.histories.rows.reference`` describes the rows), with its counts (``FileImport``).

Two paths give the same result (tested equal on every real hand we hold):

- the compiled path, for a PHH file (``.phh``/``.phhs`` content): the bytes are scanned into a
  ``HandBlock`` (``sim.histories.read.scan``: flat arrays, no Python object per hand), replayed in
  one numba call (``sim.histories.replay.compiled``) and made columns
  (``sim.histories.rows.compiled``);
- the Python path (``sim.histories.sites.text.read_history``,
  ``sim.histories.rows.reference.import_hand``), the reference: every hand the compiled path
  does not take whole;
- between them, a site's text (``_site_rows``): read by the Python readers, its hands made a
  block (``block_from_hands``) and replayed and made rows by the compiled steps, the site's
  own columns (tournament, the operator's rake, pot and claims) put in from the read hands.

A PHH file mixes them per hand: the sections the scanner is not certain of, the hands whose
compiled replay stops (an illegal action, the actions ending early, ...) and the hands the rows
cannot describe are read again by the Python reader (the file's other sections blanked, so line
numbers hold) and take the Python path, whose messages name the reasons. Rows, skips and
odd-chip lines keep the file's section order, as the Python path alone gives them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pyarrow as pa

from sim import layout as L
from sim.histories.read.block import HandBlock, Replayed
from sim.histories.read.phh import (
    MAX_SCALE,
    PhhError,
    PhhFile,
    PhhHand,
    PhhSkip,
    no_cyclic_gc,
    reads_phh,
)
from sim.histories.replay.reference import MAX_CHIPS, STAND_IN_FLOOR
from sim.histories.rows.reference import (
    Columns,
    FileImport,
    NotRepresentable,
    currency_pair,
    file_format,
    gap_positions,
    import_hand,
    import_read_file,
    odd_chip_line,
    site_columns,
)
from sim.histories.sites.text import detect_format, phh_by_first_line, read_history_bytes
from sim.histories.sources import read_bytes

__all__ = ["import_file", "import_file_bytes"]

_NL = 10
CHUNK_HANDS = 8192  # hands replayed and made rows at once (their engine states: ~5 KB a hand)


def import_file(path: str, scale: int | None = None,
                read: Callable[[str], PhhFile] | None = None) -> FileImport:
    """Read, convert (``scale`` decimals; None: the file's own finest) and replay every hand of
    one source file (a path or a URI); never raises for its content. ``read``: the Python
    reader's result instead of the file's bytes (the Python path only). The cyclic collector
    is paused meanwhile (``sim.histories.read.phh.no_cyclic_gc``)."""
    with no_cyclic_gc():
        if read is not None:
            return _python_path(path, read(path), scale)
        data = read_bytes(path)
        if isinstance(data, str):  # unreadable: one skip
            pf = PhhFile(path, [], [PhhSkip(path, None, 0, None, data)])
            return import_read_file(path, "phh", pf, scale)
        return _import_bytes(path, data, scale)


def import_file_bytes(path: str, data: bytes, scale: int | None = None, *,
                      compiled: bool = True) -> FileImport:
    """``import_file`` of a file's bytes named ``path``; ``compiled=False``: the Python path
    alone (the reference the compiled path is tested against)."""
    with no_cyclic_gc():
        if not compiled:
            pf = read_history_bytes(data, path)
            return import_read_file(path, file_format(pf, path), pf, scale)
        return _import_bytes(path, data, scale)


def _import_bytes(path: str, data: bytes, scale: int | None) -> FileImport:
    fast = _compiled(path, data, scale)
    if fast is not None:
        return fast
    return _python_path(path, read_history_bytes(data, path), scale)


def _python_path(path: str, pf: PhhFile, scale: int | None) -> FileImport:
    """The import of a file the Python reader read: a site's text has its hands replayed and
    made rows by the compiled path where a block takes them (``_site_rows``), the reference
    the others."""
    fmt = file_format(pf, path)
    if fmt in ("phh", "phhs") or not pf.hands:
        return import_read_file(path, fmt, pf, scale)
    return _site_rows(path, fmt, pf, scale)


def _blockable(h: PhhHand, scale: int) -> bool:
    """Whether a block can hold a read hand at ``scale`` (``sim.histories.read.block``): its
    variant and verbs, amounts whole at the scale, a time without fractions of a second, no
    more cards in an action than a block's row holds."""
    from sim.histories.read.block import MAX_ACTION_CARDS, VARIANT_CODES, VERB_CODES

    if h.variant not in VARIANT_CODES or h.scale > scale:
        return False
    t = h.time
    if t is not None and t.microsecond:
        return False
    return all(a.verb in VERB_CODES and len(a.cards) <= MAX_ACTION_CARDS for a in h.actions)


def _site_rows(path: str, fmt: str, pf: PhhFile, scale: int | None) -> FileImport:
    """A site text's import (``_python_path``): the hands a block holds replayed and made rows
    by the compiled path, their site columns (``site_columns``: the tournament, the operator's
    rake, pot and claims) put in from the read hands; every other hand, and every one the
    compiled path does not make a row of, by the reference (``import_hand``), which names its
    reason. The rows, skips, odd-chip lines and gaps are the reference's, in file order (tested
    equal on every site file we hold)."""
    from sim.histories.read.block import block_from_hands

    res = FileImport.opened(path, pf.sha256, fmt, sections=pf.sections, skipped=pf.skipped,
                            hand_scales=(h.scale for h in pf.hands), scale=scale)
    hands = pf.hands
    site: dict[int, tuple[object, ...]] = {}
    for i, h in enumerate(hands):
        if _blockable(h, res.scale):
            try:
                site[i] = site_columns(h, res.scale)
            except NotRepresentable:  # the reference names it
                continue
    take = np.asarray(sorted(site), np.int64)
    made_idx = np.zeros(0, np.int64)
    fast_table: pa.Table | None = None
    odd: list[tuple[int, str]] = []
    known_fast: list[bool] = []
    if len(take):
        try:
            b = block_from_hands([hands[i] for i in take.tolist()], res.scale,
                                 [h.key if h.key is not None else str(i + 1)
                                  for i, h in ((i, hands[i]) for i in take.tolist())])
        except (PhhError, ValueError):  # a hand the block refuses: the reference for all
            return import_read_file(path, fmt, pf, scale)
        big = _too_many_chips(b)
        if big.any():
            b, take = b.take(np.flatnonzero(~big)), take[~big]
        fast_table, made, odd = _replay_and_rows(b, take, path, True)
        made_idx = take[made]
        known_fast = (np.asarray(b.seat_count)[np.flatnonzero(made)] >= 0).tolist()
        fast_table = _with_site_columns(fast_table, [site[i] for i in made_idx.tolist()])
    fast = set(made_idx.tolist())
    cols = Columns()
    py_rows: list[int] = []
    currencies = {currency_pair(hands[i].currency, hands[i].currency_symbol) for i in fast}
    row_lines = [hands[i].line for i in sorted(fast)]
    skip_lines = [sk.line for sk in pf.skipped]
    for i, raw in enumerate(hands):
        if i in fast:
            continue
        before = len(res.odd_chip)
        if import_hand(res, cols, raw, i, res.path):
            currencies.add(currency_pair(raw.currency, raw.currency_symbol))
            row_lines.append(raw.line)
            py_rows.append(i)
        else:
            skip_lines.append(raw.line)
        odd += [(i, line) for line in res.odd_chip[before:]]
    res.imported += len(fast)
    res.compiled = len(fast)
    res.odd_chip = [line for _i, line in sorted(odd, key=lambda x: x[0])]
    res.gaps = gap_positions(sorted(row_lines), skip_lines)
    res.currencies = sorted(currencies)
    parts, order_hand, known = [], [], []
    if fast_table is not None and len(fast):
        parts.append(fast_table)
        order_hand += made_idx.tolist()
        known += known_fast
    if py_rows:
        parts.append(cols.table())
        order_hand += py_rows
        known += res.seat_count_known
    return _in_file_order(res, parts, order_hand, known)


def _in_file_order(res: FileImport, parts: list[pa.Table], places: list[int],
                   known: list[bool]) -> FileImport:
    """``res`` with its table: the row tables ``parts`` (compiled, then Python) as one, their
    rows sorted by their place in the file (``places``: a hand index or a section each), and
    ``seat_count_known`` (``known``, in the parts' order) sorted with them."""
    if not parts:
        res.table, res.seat_count_known = None, []
        return res
    table = pa.concat_tables(parts) if len(parts) > 1 else parts[0]
    order = np.argsort(np.asarray(places, np.int64), kind="stable")
    res.table = table.take(pa.array(order)) if len(parts) > 1 else table
    res.seat_count_known = [known[i] for i in order.tolist()]
    return res


def _with_site_columns(table: pa.Table, values: list[tuple[object, ...]]) -> pa.Table:
    """The compiled rows with their site columns (``SITE_COLUMNS``) set from ``values`` (one
    tuple per row, ``site_columns``)."""
    from sim.histories.rows.reference import SITE_COLUMNS

    for k, name in enumerate(SITE_COLUMNS):
        at = table.schema.get_field_index(name)
        f = table.schema.field(at)
        table = table.set_column(at, f, pa.array([v[k] for v in values], f.type))
    return table


def _phh_many(data: bytes) -> bool | None:
    """Whether a file the compiled path may take holds sections (``.phhs``: True) or one hand
    (False): a PHH text (as ``sim.histories.sites.text.read_history_bytes`` detects it) with no byte
    order mark and no NUL byte; None otherwise (the Python path). The scanner checks the UTF-8."""
    if data.startswith(b"\xef\xbb\xbf") or b"\x00" in data:
        return None
    end = data.find(b"\n")
    try:
        first = data[:end if end >= 0 else len(data)].decode("utf-8")
    except UnicodeDecodeError:
        return None
    many = phh_by_first_line(first)
    if many is not None:
        return many
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if detect_format(text) != "phh":
        return None
    line = next((ln.strip() for ln in text.splitlines()
                 if ln.strip() and not ln.strip().startswith("#")), "")
    return line.startswith("[")


def _masked(data: bytes, lo: np.ndarray, hi: np.ndarray, wanted: np.ndarray,
            ) -> tuple[str, dict[int, int]]:
    """The file's text for the Python reader with only the sections ``wanted`` (bool per
    section) kept byte for byte (the reader splits at header lines, so each kept section is the
    same chunk it reads in the whole file); each run of other sections is left as its first
    header line alone (a section the caller ignores). Returns the text and {header line in the
    text: section index}."""
    parts = [data[:int(lo[0])]]
    line = 1 + parts[0].count(b"\n")
    at: dict[int, int] = {}
    k, n = 0, len(lo)
    while k < n:
        start, end = int(lo[k]), int(hi[k])
        at[line] = k
        if wanted[k]:
            chunk = data[start:end]
            k += 1
        else:
            nl = data.find(b"\n", start, end)
            chunk = (data[start:nl] if nl >= 0 else data[start:end]) + b"\n"
            while k < n and not wanted[k]:
                k += 1
        parts.append(chunk)
        line += chunk.count(b"\n")
    return b"".join(parts).decode("utf-8"), at


def _python_hands(data: bytes, lo: np.ndarray, hi: np.ndarray, wanted: np.ndarray,
                  many: bool, source: str,
                  ) -> tuple[dict[int, PhhHand], list[tuple[int, PhhSkip]]] | None:
    """The Python reader's hands and skips of the sections ``wanted`` (bool per section), by
    section index (a skip's line is its line in the file); None when one cannot be placed (the
    caller takes the Python path)."""
    if not wanted.any():
        return {}, []
    if not many or wanted.all():
        pf = reads_phh(data.decode("utf-8"), source=source, many=many)
        if not many:
            return ({0: pf.hands[0]}, []) if pf.hands else ({}, [(0, s) for s in pf.skipped])
        text, at = None, None
    else:
        text, at = _masked(data, lo, hi, wanted)
        pf = reads_phh(text, source=source, many=True)
    # each header's line: 1 + the line ends before it
    ends = np.flatnonzero(np.frombuffer(data, np.uint8) == _NL)
    header_line = (np.searchsorted(ends, lo) + 1).tolist()
    if at is None:
        at = {line: k for k, line in enumerate(header_line)}
    hands: dict[int, PhhHand] = {}
    skips: list[tuple[int, PhhSkip]] = []
    for h in pf.hands:
        k = at.get(h.line)
        if k is None:
            return None
        if wanted[k]:
            hands[k] = h
    for sk in pf.skipped:
        k = at.get(sk.line)
        if k is None:
            return None
        if wanted[k]:
            skips.append((k, replace(sk, line=header_line[k])))
    if len(hands) + len(skips) != int(wanted.sum()):
        return None
    return hands, skips


def _compiled(path: str, data: bytes, scale: int | None) -> FileImport | None:
    """The compiled path's import of a PHH file, or None when the file as a whole is not for
    it (module docstring)."""
    from sim.histories.read.scan import scan

    if scale is not None and not 0 <= scale <= MAX_SCALE:
        return None  # the Python path names every hand "amount not representable"
    many = _phh_many(data)
    if many is None:
        return None
    sc = scan(data, many=many)
    if not sc.file_ok:
        return None
    nsec = sc.sections
    fast = np.asarray(sc.fast, np.bool_)
    if not many and not fast.all():
        return None
    lo, hi = np.asarray(sc.lo, np.int64), np.asarray(sc.hi, np.int64)
    first = _python_hands(data, lo, hi, ~fast, many, path)
    if first is None:
        return None
    py_hands, py_skips = first
    block = sc.block
    fast_sec = np.flatnonzero(fast)
    scales = [int(v) for v in np.asarray(block.scale).tolist()] + [
        h.scale for h in py_hands.values()]
    # the reading skips of the first pass are recorded with the second's (below), in order
    res = FileImport.opened(path, hashlib.sha256(data).hexdigest(), "phh", sections=nsec,
                            skipped=(), hand_scales=scales, scale=scale)
    # the block's hands whose amounts are whole at the run's unit (others: the Python path
    # names them "amount not representable")
    fits = np.asarray(block.scale, np.int64) <= res.scale
    b = (block if fits.all() else block.take(np.flatnonzero(fits))).rescale(res.scale)
    b_sec = fast_sec[fits]
    # and whose chips in play fit the engine (others: the Python path names them)
    big = _too_many_chips(b)
    if big.any():
        b, b_sec = b.take(np.flatnonzero(~big)), b_sec[~big]
    fast_table, made, odd_fast = _replay_and_rows(b, b_sec, path, many)
    again = np.zeros(nsec, np.bool_)
    again[fast_sec[~fits]] = True
    again[fast_sec[fits][big]] = True
    again[b_sec[~made]] = True
    second = _python_hands(data, lo, hi, again, many, path)
    if second is None:
        return None
    py_hands.update(second[0])
    py_skips += second[1]
    # reading skips first (as the Python path reports them), in section order
    for _k, sk in sorted(py_skips, key=lambda x: x[0]):
        res.skip_read(sk)
    cols = Columns()
    py_rows: list[int] = []
    odd: list[tuple[int, str]] = []
    currencies: set[str] = set()
    hand_index = _hand_indices(nsec, py_skips)
    skip_secs = [k for k, _sk in py_skips]
    for k in sorted(py_hands):
        raw = py_hands[k]
        before = len(res.odd_chip)
        if import_hand(res, cols, raw, hand_index[k], path):
            py_rows.append(k)
            currencies.add(currency_pair(raw.currency, raw.currency_symbol))
        else:
            skip_secs.append(k)
        odd += [(k, line) for line in res.odd_chip[before:]]
    # the compiled rows: counts, odd chips, currencies
    rows_sec = b_sec[made]
    idx = np.flatnonzero(made)
    res.imported += len(idx)
    res.compiled = len(idx)
    odd += odd_fast
    cur = b.currency.take(pa.array(idx)).to_pylist()
    sym = b.currency_symbol.take(pa.array(idx)).to_pylist()
    currencies |= {currency_pair(c, s) for c, s in set(zip(cur, sym, strict=True))}
    res.currencies = sorted(currencies)
    res.odd_chip = [line for _k, line in sorted(odd, key=lambda x: x[0])]
    res.gaps = gap_positions(sorted(rows_sec.tolist() + py_rows), skip_secs)
    # one table in section order
    known_py = res.seat_count_known
    known_fast = (np.asarray(b.seat_count)[idx] >= 0).tolist()
    parts, order_sec, known = [], [], []
    if len(idx):
        parts.append(fast_table)
        order_sec += rows_sec.tolist()
        known += known_fast
    if py_rows:
        parts.append(cols.table())
        order_sec += py_rows
        known += known_py
    return _in_file_order(res, parts, order_sec, known)


def _too_many_chips(b: HandBlock) -> np.ndarray:
    """Per hand: its starting stacks (an unknown one as its stand-in,
    ``sim.histories.replay.reference``) may reach ``MAX_CHIPS``, which the Python replay refuses.
    Integers only: every amount counted in whole 2^20 units rounded up (no sum can overflow), a
    factor 2 of margin: a hand near the limit takes the Python path, which decides."""
    p_lo, a_lo = np.asarray(b.p_lo, np.int64), np.asarray(b.a_lo, np.int64)
    if len(p_lo) < 2:
        return np.zeros(0, np.bool_)

    def per_hand(values: np.ndarray, lo: np.ndarray) -> np.ndarray:
        coarse = (np.abs(values) >> 20) + 1
        c = np.concatenate(([0], np.cumsum(coarse, dtype=np.int64)))
        return c[lo[1:]] - c[lo[:-1]]

    stack = np.asarray(b.stack, np.int64)
    unk = np.concatenate(([0], np.cumsum(stack < 0, dtype=np.int64)))
    unknown = unk[p_lo[1:]] - unk[p_lo[:-1]]  # unknown stacks per hand
    known = per_hand(np.where(stack < 0, 0, stack), p_lo)
    posts = per_hand(np.asarray(b.ante, np.int64), p_lo) + per_hand(np.asarray(b.blind,
                                                                              np.int64), p_lo)
    bets = per_hand(np.asarray(b.amount, np.int64), a_lo)
    stand_in = (STAND_IN_FLOOR >> 20) + 1 + posts + bets
    return np.asarray(known + unknown * stand_in >= (MAX_CHIPS >> 20) // 2, np.bool_)


def _replay_and_rows(b: HandBlock, secs: np.ndarray, path: str, many: bool,
                     ) -> tuple[pa.Table, np.ndarray, list[tuple[int, str]]]:
    """The block replayed and made rows, ``CHUNK_HANDS`` hands at a time (the engine states
    and logs of a chunk only: a file of a million hands needs no gigabytes): (the rows, made
    per hand of the block, the odd-chip lines by section)."""
    from sim.histories.replay.compiled import replay_block
    from sim.histories.rows.compiled import rows_of_block

    tables, made_parts, odd = [], [], []
    n = b.n_hands
    for start in range(0, max(n, 1), CHUNK_HANDS):
        stop = min(start + CHUNK_HANDS, n)
        part = b if n <= CHUNK_HANDS else b.take(np.arange(start, stop))
        rep = replay_block(part)
        table, made = rows_of_block(part, rep, path)
        made = np.asarray(made, np.bool_)
        odd += _odd_chips(part, rep, np.flatnonzero(made), secs[start:stop][made], path, many)
        tables.append(table)
        made_parts.append(made)
    return (pa.concat_tables(tables) if len(tables) > 1 else tables[0],
            np.concatenate(made_parts), odd)


def _hand_indices(nsec: int, skips: list[tuple[int, PhhSkip]]) -> list[int]:
    """Each section's index among the file's read hands (``PhhFile.hands``: sections less the
    skipped ones), as the Python path numbers them."""
    skipped = np.zeros(nsec, np.bool_)
    for k, _sk in skips:
        skipped[k] = True
    return (np.cumsum(~skipped) - 1).tolist()


def _odd_chips(b: HandBlock, rep: Replayed, idx: np.ndarray, secs: np.ndarray, path: str,
               many: bool) -> list[tuple[int, str]]:
    """(section, line) of each compiled row (hands ``idx`` of the block, at sections ``secs``)
    whose record's finishing stacks differ from the replay's: compared on every player at
    once, a line made for the differing hands only."""
    p_lo = np.asarray(b.p_lo, np.int64)
    row = np.zeros(b.n_hands, np.int64) - 1
    row[idx] = np.arange(len(idx))
    checked = np.asarray(b.has_finishing, np.bool_) & (row >= 0)
    if not checked.any():
        return []
    hand = np.repeat(np.arange(b.n_hands), np.diff(p_lo))  # each player's hand
    seat = np.arange(len(hand)) - p_lo[hand]
    actual_all = np.asarray(rep.state)[hand, L.STACK_ + seat]
    fin = np.asarray(b.finishing)
    differ = np.unique(hand[(actual_all != fin) & checked[hand]])
    out = []
    for h in differ.tolist():
        actual = actual_all[p_lo[h]:p_lo[h + 1]].tolist()
        expected = fin[p_lo[h]:p_lo[h + 1]].tolist()
        section = b.section[h].as_py()
        site = b.site_hand[h].as_py() or section
        where = f"{path} [{section}]" if many else path
        out.append((int(secs[row[h]]), odd_chip_line(where, site, expected, actual)))
    return out
