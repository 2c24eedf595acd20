"""The filesystem layer under ``audits.runfolder`` (which owns the run folder's names, listing
and manifest). Where a run folder lives: a local path or any pyarrow filesystem URI (``s3://``,
``gs://``, ``hdfs://``, ``file://``; query options such as ``?endpoint_override=...`` are kept
on every path made from the run's URI). A cluster's workers write to shared storage, so the
audits and the report read and write there too.

Local paths stay ``pathlib.Path`` objects (messages name them as before); a location given as
a URI stays a string. Writes go to a temporary name in the same folder, then are renamed, so no
half-written file stands under a final name (on object stores the rename is a copy and a
delete: a reader sees the old object or the whole new one).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from audits.runfolder.errors import StorageError

Location = str | Path


def is_uri(location: Location | os.PathLike[str]) -> bool:
    return isinstance(location, str) and "://" in location


def as_location(location: Location | os.PathLike[str]) -> Location:
    """A URI string stays a string; anything else becomes a Path."""
    if isinstance(location, str) and is_uri(location):
        return location
    return Path(location)


def split(location: Location) -> tuple[pafs.FileSystem, str]:
    """(filesystem, path inside it) of a location."""
    if not is_uri(location):
        return pafs.LocalFileSystem(), str(Path(location).absolute())
    try:
        return pafs.FileSystem.from_uri(str(location))
    except (pa.ArrowException, ValueError, OSError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise StorageError(f"{location}: not a usable filesystem URI ({first})") from None


def join(location: Location, *parts: str) -> Location:
    """``location/part/...``; a URI keeps its ``?query`` at the end."""
    if not is_uri(location):
        return Path(location, *parts)
    text = str(location)
    base, q, query = text.partition("?")
    return "/".join([base.rstrip("/"), *parts]) + (q + query if q else "")


def _info(location: Location) -> pafs.FileInfo:
    fs, path = split(location)
    try:
        return fs.get_file_info(path)
    except (pa.ArrowException, OSError) as e:
        raise StorageError(f"{location}: cannot reach it ({e})") from None


def _local_kind(fs: pafs.FileSystem, path: str, wanted: Callable[[int], bool],
                other: str) -> str | None:
    """None when ``path`` is missing, on another filesystem or of the ``wanted`` kind (a
    ``stat.S_IS*`` test of its ``lstat`` mode), else ``"a symbolic link"`` or ``other``."""
    if not isinstance(fs, pafs.LocalFileSystem):
        return None
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if wanted(mode):
        return None
    return "a symbolic link" if stat.S_ISLNK(mode) else other


def not_regular(fs: pafs.FileSystem, path: str) -> str | None:
    """Why a local path is no file to read: ``"a symbolic link"`` (never followed: its bytes
    are another file's) or ``"not a regular file"`` (a pipe would block its reader forever, a
    device never ends); None for a regular file, a missing one, or one on another filesystem."""
    return _local_kind(fs, path, stat.S_ISREG, "not a regular file")


def not_folder(fs: pafs.FileSystem, path: str) -> str | None:
    """Why a local path is no folder to write into: ``"a symbolic link"`` (writes and deletes
    through it land in its target, outside the run) or ``"not a folder"``; None for a real
    folder, a missing one, or one on another filesystem."""
    return _local_kind(fs, path, stat.S_ISDIR, "not a folder")


def require_regular(fs: pafs.FileSystem, path: str, label: Location | None = None) -> None:
    """Raise StorageError naming the file unless it is a regular file (``not_regular``)."""
    why = not_regular(fs, path)
    if why is not None:
        raise StorageError(f"{label if label is not None else path}: {why}; a run folder "
                           "holds plain files only")


def is_file(location: Location) -> bool:
    """A regular file (on a local disk never through a link, never a pipe or device)."""
    fs, path = split(location)
    if not_regular(fs, path) is not None:
        return False
    return _info(location).type == pafs.FileType.File


def is_dir(location: Location) -> bool:
    return _info(location).type == pafs.FileType.Directory


def read_bytes(location: Location) -> bytes:
    fs, path = split(location)
    require_regular(fs, path, location)
    with fs.open_input_stream(path) as f:
        return f.read()


def read_text(location: Location) -> str:
    return read_bytes(location).decode()


HASH_BLOCK = 1 << 22  # bytes read at a time while hashing (hashlib releases the GIL on these)


def file_sha256(location: Location) -> tuple[str, int]:
    """(sha256 hex digest, size in bytes) of a file, in one streaming pass."""
    fs, path = split(location)
    require_regular(fs, path, location)
    return stream_sha256(fs, path)


def stream_sha256(fs: pafs.FileSystem, path: str) -> tuple[str, int]:
    """``file_sha256`` of a path inside a pyarrow filesystem (a regular file only)."""
    require_regular(fs, path)
    h = hashlib.sha256()
    size = 0
    with fs.open_input_stream(path) as f:
        while True:
            block = f.read(HASH_BLOCK)
            if not block:
                break
            h.update(block)
            size += len(block)
    return h.hexdigest(), size


def list_files(root: Location) -> list[str]:
    """Every file under a folder, as paths relative to it ("a/b.parquet"), sorted."""
    fs, base = split(root)
    base = base.rstrip("/")
    infos = fs.get_file_info(pafs.FileSelector(base, recursive=True, allow_not_found=True))
    return sorted(i.path[len(base):].lstrip("/") for i in infos
                  if i.type == pafs.FileType.File)


def relative(root: Location, location: Location) -> str:
    """``location`` as a path relative to the folder ``root`` ("a/b.parquet")."""
    base = split(root)[1].rstrip("/")
    path = split(location)[1]
    return path[len(base):].lstrip("/") if path.startswith(base + "/") else path


TMP_MARK = ".tmp-"  # temporary names: ".<final name>.tmp-<random>"
TMP_RANDOM = 12  # lowercase hex digits of <random>
# exactly the names put_atomic writes (runfolder.is_temporary): nothing else is a temporary
TMP_NAME = re.compile(r"\.(?P<final>.+)" + re.escape(TMP_MARK) + f"[0-9a-f]{{{TMP_RANDOM}}}")


def put_atomic(fs: pafs.FileSystem, path: str, data: bytes | pa.Buffer) -> None:
    """Write ``data`` to a temporary name in the same folder, then rename it to ``path``: no
    partial file ever stands under the final name."""
    folder, _, name = path.rpartition("/")
    tmp = f"{folder}/.{name}{TMP_MARK}{uuid.uuid4().hex[:TMP_RANDOM]}"
    try:
        with fs.open_output_stream(tmp) as f:
            f.write(data)
        fs.move(tmp, path)
    except BaseException:
        try:
            fs.delete_file(tmp)
        except (pa.ArrowException, OSError):
            pass
        raise


def write_atomic(location: Location, data: bytes | str) -> Location:
    """``put_atomic`` at a location (text is written as UTF-8)."""
    fs, path = split(location)
    put_atomic(fs, path, data.encode() if isinstance(data, str) else data)
    return location


def open_parquet(location: Location, read_dictionary: Sequence[str] | None = None
                 ) -> pq.ParquetFile:
    """A Parquet file for reading (local files are memory-mapped by pyarrow's reader); the
    columns named in ``read_dictionary`` read as dictionary arrays (as stored: no decoding of
    each row's string)."""
    rd = list(read_dictionary) if read_dictionary else None
    fs, path = split(location)
    require_regular(fs, path, location)
    if not is_uri(location):
        return pq.ParquetFile(location, read_dictionary=rd)
    return pq.ParquetFile(fs.open_input_file(path), read_dictionary=rd)
