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

__all__ = ["iter_paths", "natural_key", "read_bytes"]


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
