"""The sources of an import: the one walker of files and folders, and a source's bytes.

Every command that lists hand history files (``holdem import``, ``holdem phh verify``, the
benchmarks, the tests over ``../shared``) lists them here, and every reader of a source's bytes
reads them here: a path, or a URI the run folder's storage reads (``s3://...``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

__all__ = ["decode_text", "iter_paths", "natural_key", "read_bytes"]


def natural_key(path: Path) -> list[Any]:
    """Sort key of a path in natural order: ``f2`` before ``f10``."""
    return [(0, int(t), "") if t.isdigit() else (1, 0, t)
            for t in re.split(r"(\d+)", path.as_posix()) if t]


def iter_paths(paths: Iterable[str | Path], suffixes: tuple[str, ...]) -> Iterator[Path]:
    """Every file named or found under ``paths``: a named file whatever its name; in a folder
    (recursively, natural order) the files whose suffix, in lower case, is one of ``suffixes``.
    Raises FileNotFoundError for a missing path."""
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = [f for f in path.rglob("*") if f.suffix.lower() in suffixes and f.is_file()]
            yield from sorted(found, key=natural_key)
        elif path.is_file():
            yield path
        else:
            raise FileNotFoundError(f"{path}: no such file or folder")


def read_bytes(path: str | Path) -> bytes | str:
    """The bytes of a source (a path or a URI), or why it cannot be read: "cannot read the file
    (REASON)", the reason the import records as the file's one skip."""
    from audits.runfolder import storage

    try:
        if isinstance(path, str) and storage.is_uri(path):
            return storage.read_bytes(path)
        return Path(path).read_bytes()
    except (OSError, storage.StorageError) as e:
        return f"cannot read the file ({getattr(e, 'strerror', None) or e})"


_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))
_SNIFF = 4096  # the bytes whose NUL pattern tells UTF-16 without a byte order mark


def _utf16_order(data: bytes) -> str | None:
    """"utf-16-le"/"utf-16-be" when the start of ``data`` has a NUL in every other byte (and
    none in the others), as text of Latin letters in UTF-16 without a byte order mark has."""
    head = data[:_SNIFF - _SNIFF % 2]
    if len(head) < 4:
        return None
    even, odd = head[0::2].count(0), head[1::2].count(0)
    pairs = len(head) // 2
    if odd >= pairs * 0.6 and even == 0:
        return "utf-16-le"
    if even >= pairs * 0.6 and odd == 0:
        return "utf-16-be"
    return None


def decode_text(data: bytes) -> tuple[str, str] | str:
    """A text file's characters and its encoding, detected from the bytes alone: a byte order
    mark (UTF-8, UTF-16 of either byte order; the mark is dropped; a one-byte line end after
    UTF-16 text is dropped too), else UTF-16 from its NUL
    bytes, else UTF-8, else Windows-1252 (the sites' exports of the 2000s: "\u20ac" is 0x80).
    Each is decoded strictly. Or why the bytes are none of these: "not UTF-8 text, UTF-16 nor
    Windows-1252 (WHERE)", the file's one skip."""
    for bom, enc in _BOMS:
        if data.startswith(bom):
            body = data[len(bom):]
            if enc != "utf-8" and len(body) % 2 and body[-1:] in (b"\n", b"\r"):
                body = body[:-1]  # one line end of one byte appended to UTF-16 (by a copy)
            try:
                return body.decode(enc), enc
            except UnicodeDecodeError as e:
                return (f"not UTF-8 text, UTF-16 nor Windows-1252 (a {enc.upper()} byte order "
                        f"mark, then {e.reason} at byte {e.start + len(bom)})")
    order = _utf16_order(data)
    if order is not None:
        try:
            return data.decode(order), order
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as e:
        first = e
    try:
        return data.decode("cp1252"), "windows-1252"
    except UnicodeDecodeError:
        return (f"not UTF-8 text, UTF-16 nor Windows-1252 ({first.reason}: byte "
                f"0x{data[first.start]:02x} at {first.start})")
