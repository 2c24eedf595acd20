"""Deck files: the deck-only log of ``holdem shuffle`` and the decks of another system's shuffler
(``holdem shuffle audit FILE...``), read into an (n, 52) uint8 array of card codes.

Card codes: ``card = rank * 4 + suit``, rank 0..12 = 2, 3, ..., T, J, Q, K, A and suit 0..3 =
c, d, h, s; so ``2c`` = 0, ``2d`` = 1, ``As`` = 51. Position k of a row is the k-th card of the
deck (position 0 is dealt first).

The deck-only log (one Parquet file per batch, ``log/decks/batch-<index:05d>.parquet``): columns
``hand_id`` (int64, the deck's number d in the run) and ``deck`` (fixed_size_binary(52), byte k =
card code at position k). With the ``philox`` generator deck d is the deck of the hand key
``seed_key = [seed, d // 1000, d % 1000]`` (seed from the manifest): the audits re-derive it
(``audits.keyed``).

Files from elsewhere, one deck per row:

- Parquet: a column ``deck`` holding 52 bytes (binary), a list of 52 integer codes, or a string
  of 52 two-character cards; else 52 integer columns (positions 0..51 in column order).
- CSV: 52 fields per row, each an integer code 0..51 or a two-character card (``As``, ``Td``,
  ``2c``; ``10`` for T also accepted); or one field of 52 cards (``AsKd...`` or ``As Kd ...``).
  A first line that is not a deck (a header) is skipped.

A bad row (a repeated or missing card, a wrong length, an unknown card) is refused with one
line naming the file and the row (``DeckFileError``).
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from audits.runfolder.errors import InputError

N = 52
HANDS_PER_TABLE = 1000  # deck d <-> seed_key [seed, d // 1000, d % 1000] (docs/log-schema.md)
RANKS = "23456789TJQKA"
SUITS = "cdhs"
CHUNK_ROWS = 1_000_000


class DeckFileError(InputError):
    """A deck file that cannot be certified (one line naming the file and the row)."""


def seed_keys(hand_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(table_id, hand_no) of deck numbers in a deck-only log."""
    h = np.asarray(hand_ids, np.int64)
    return (h // HANDS_PER_TABLE).astype(np.uint64), (h % HANDS_PER_TABLE).astype(np.uint64)


def card_code(text: str) -> int:
    """The code of a two-character card (``As`` -> 51), or -1 when it is not one."""
    t = text.strip()
    if t[:2] == "10":
        t = "T" + t[2:]
    if len(t) != 2:
        return -1
    r, s = RANKS.find(t[0].upper()), SUITS.find(t[1].lower())
    return -1 if r < 0 or s < 0 else r * 4 + s


def card_text(code: int) -> str:
    return RANKS[code >> 2] + SUITS[code & 3]


def check_rows(decks: np.ndarray, where: str, first_row: int = 0) -> None:
    """Every row a permutation of 0..51, else DeckFileError naming the first bad row."""
    if decks.ndim != 2 or decks.shape[1] != N:
        raise DeckFileError(f"{where}: expected 52 cards a row, found {decks.shape[-1]}")
    srt = np.sort(decks, axis=1)
    bad = np.flatnonzero((srt != np.arange(N, dtype=srt.dtype)).any(axis=1))
    if bad.size:
        i = int(bad[0])
        row = decks[i].astype(np.int64)
        out = [int(c) for c in row if c >= N]
        if out:
            raise DeckFileError(f"{where}: row {first_row + i}: card code {out[0]} is not 0..51")
        counts = np.bincount(row, minlength=N)
        dup, missing = int(np.argmax(counts > 1)), int(np.argmax(counts == 0))
        raise DeckFileError(f"{where}: row {first_row + i}: card {card_text(dup)} ({dup}) "
                            f"appears twice and {card_text(missing)} ({missing}) is missing")


MAX_LINE = 1024  # bytes of a CSV line: 52 short fields (a longer line is no deck)
MAX_CODE_DIGITS = 2  # a card code is 0..51


def _code(field: str) -> int | None:
    """An ASCII decimal card code's value (None: not one); never a Unicode digit, a sign, a
    float or an unbounded number."""
    if not (field.isascii() and field.isdigit()):
        return None
    return int(field) if len(field.lstrip("0") or "0") <= MAX_CODE_DIGITS else N


def _is_card(field: str) -> bool:
    f = field.strip()
    code = _code(f)
    return (code is not None and code < N) or card_code(f) >= 0 or card_code(f[:2]) >= 0


def _row_cards(fields: list[str], where: str, row: int) -> list[int]:
    if len(fields) == 1:
        t = "".join(fields[0].split())
        if len(t) != 2 * N:
            raise DeckFileError(f"{where}: row {row}: expected 52 cards, found a field of "
                                f"{len(t)} characters")
        fields = [t[i:i + 2] for i in range(0, 2 * N, 2)]
    if len(fields) != N:
        raise DeckFileError(f"{where}: row {row}: expected 52 cards, found {len(fields)}")
    out = []
    for f in fields:
        f = f.strip()
        code = _code(f)
        if code is not None:
            if code >= N:
                raise DeckFileError(f"{where}: row {row}: card code {f[:12]}"
                                    f"{'...' if len(f) > 12 else ''} is not 0..51")
            c = code
        else:
            c = card_code(f)
            if c < 0:
                raise DeckFileError(f"{where}: row {row}: unknown card {f!r} (expected a code "
                                    "0..51 or a rank in 23456789TJQKA and a suit in cdhs)")
        if c >= N:
            raise DeckFileError(f"{where}: row {row}: card code {c} is not 0..51")
        out.append(c)
    return out


def _ascii_lines(f: io.BufferedReader, label: str, at: list[int]) -> Iterator[str]:
    """The file's lines as text, each at most ``MAX_LINE`` bytes and ASCII (DeckFileError
    naming the row otherwise); ``at[0]`` counts the lines read."""
    while True:
        line = f.readline(MAX_LINE + 1)
        if not line:
            return
        at[0] += 1
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            raise DeckFileError(f"{label}: row {at[0]}: a line over {MAX_LINE:,} bytes (a deck "
                                "is 52 short fields)")
        try:
            yield line.decode("ascii")
        except UnicodeDecodeError as e:
            raise DeckFileError(f"{label}: row {at[0]}: byte 0x{line[e.start]:02x} at column "
                                f"{e.start + 1} is not ASCII (a deck file holds card codes "
                                "0..51 or cards like As)") from None


def _csv_chunks(path: Path, label: str) -> Iterator[tuple[int, np.ndarray]]:
    with open(path, "rb") as f:
        rows: list[list[int]] = []
        first = 0
        at = [0]
        reader = csv.reader(_ascii_lines(f, label, at))
        while True:
            try:
                fields = next(reader)
            except StopIteration:
                break
            except csv.Error as e:
                raise DeckFileError(f"{label}: row {at[0]}: not CSV ({e})") from None
            lineno = at[0] - 1
            if not fields or (len(fields) == 1 and not fields[0].strip()):
                continue
            try:
                cards = _row_cards(fields, label, lineno + 1)
            except DeckFileError:
                if lineno == 0 and not any(_is_card(x) for x in fields):  # a header line
                    first = 1
                    continue
                raise
            rows.append(cards)
            if len(rows) >= CHUNK_ROWS:
                yield first, np.asarray(rows, np.uint8)
                first += len(rows)
                rows = []
        if rows:
            yield first, np.asarray(rows, np.uint8)


def _parquet_decks(col: pa.Array, label: str, first: int) -> np.ndarray:
    n = len(col)
    if col.null_count:
        i = int(np.flatnonzero(~col.is_valid().to_numpy(zero_copy_only=False))[0])
        raise DeckFileError(f"{label}: row {first + i + 1}: deck is null")
    t = col.type
    if pa.types.is_fixed_size_binary(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
        if pa.types.is_fixed_size_binary(t) and t.byte_width == N:
            buf = col.buffers()[1]
            return np.frombuffer(buf, np.uint8)[col.offset * N:(col.offset + n) * N].reshape(n, N)
        vals = col.to_pylist()
        for i, v in enumerate(vals):
            if len(v) != N:
                raise DeckFileError(f"{label}: row {first + i + 1}: expected 52 bytes, found "
                                    f"{len(v)}")
        return np.frombuffer(b"".join(vals), np.uint8).reshape(n, N)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        lens = np.asarray(col.value_lengths().to_numpy(zero_copy_only=False))
        if (lens != N).any():
            i = int(np.flatnonzero(lens != N)[0])
            raise DeckFileError(f"{label}: row {first + i + 1}: expected 52 cards, found "
                                f"{int(lens[i])}")
        if not pa.types.is_integer(t.value_type):
            raise DeckFileError(f"{label}: column deck holds lists of {t.value_type}: expected "
                                "integer card codes 0..51")
        vals = np.asarray(col.flatten().to_numpy(zero_copy_only=False), np.int64).reshape(n, N)
        bad = np.flatnonzero(((vals < 0) | (vals >= N)).any(axis=1))
        if bad.size:
            i = int(bad[0])
            c = int(vals[i][(vals[i] < 0) | (vals[i] >= N)][0])
            raise DeckFileError(f"{label}: row {first + i + 1}: card code {c} is not 0..51")
        return vals.astype(np.uint8)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return np.asarray([_row_cards([v], label, first + i + 1)
                           for i, v in enumerate(col.to_pylist())], np.uint8).reshape(n, N)
    raise DeckFileError(f"{label}: column deck has type {t}: expected 52 bytes, a list of 52 "
                        "codes or a string of 52 cards")


def _parquet_chunks(path: Path, label: str) -> Iterator[tuple[int, np.ndarray]]:
    try:
        pf = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as e:
        raise DeckFileError(f"{label}: not a readable Parquet file ({str(e).splitlines()[0]})"
                            ) from None
    names = pf.schema_arrow.names
    if "deck" in names:
        cols = ["deck"]
    elif len(names) == N:
        cols = names
    else:
        raise DeckFileError(f"{label}: expected a column 'deck' or 52 integer columns, found "
                            f"{len(names)} columns")
    first = 0
    for rb in pf.iter_batches(batch_size=CHUNK_ROWS, columns=cols):
        if cols == ["deck"]:
            decks = _parquet_decks(rb.column(0), label, first)
        else:
            vals = np.stack([np.asarray(rb.column(k).to_numpy(zero_copy_only=False))
                             for k in range(N)], axis=1)
            if not np.issubdtype(vals.dtype, np.integer):
                raise DeckFileError(f"{label}: the 52 columns must hold integer card codes")
            bad = np.flatnonzero(((vals < 0) | (vals >= N)).any(axis=1))
            if bad.size:
                raise DeckFileError(f"{label}: row {first + int(bad[0]) + 1}: a card code is "
                                    "not 0..51")
            decks = vals.astype(np.uint8)
        yield first, decks
        first += len(decks)


def iter_deck_file(path: str | os.PathLike[str]) -> Iterator[np.ndarray]:
    """The decks of a Parquet or CSV file in chunks of (n, 52) uint8, every row checked (rows
    are numbered from 1, as a spreadsheet shows them; a CSV header is row 1)."""
    p = Path(path)
    if not p.is_file():
        raise DeckFileError(f"{p}: no such file")
    with open(p, "rb") as f:
        parquet = f.read(4) == b"PAR1"
    chunks = _parquet_chunks(p, str(p)) if parquet else _csv_chunks(p, str(p))
    for first, decks in chunks:
        check_rows(decks, str(p), first + 1)
        yield decks


def write_csv(decks: np.ndarray, path: str | os.PathLike[str], cards: bool = False) -> None:
    """Decks as CSV (codes, or two-character cards with ``cards``): tests and examples."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    for row in np.asarray(decks):
        w.writerow([card_text(int(c)) for c in row] if cards else [int(c) for c in row])
    Path(path).write_text(out.getvalue())
