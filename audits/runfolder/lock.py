"""One command at a time in a run folder (issue 33): an exclusive lock per run folder for every
command that writes one (simulate, certify, import, shuffle, shuffle audit, audit, report,
export), a shared one for a command that only reads it (verify); and the leftovers of an
interrupted write (``.<name>.tmp-<hex>``, a shuffle's ``.keys/`` scratch) removed by the writer
that holds the lock and refused by ``verify``.

The lock is ``flock`` on the folder itself (an open descriptor of the directory): no lock file
in the folder, released by the kernel when the process ends however it ends (a killed command
never leaves a stale lock). A second command is refused at once, one line naming the folder
(``FolderBusyError``, exit 2), before it reads or writes a byte. An object store (``s3://`` and
the like) has no such lock: the docs say so, and one command per folder is the operator's rule
there.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from collections.abc import Iterator

from audits.runfolder import storage
from audits.runfolder.errors import RunFolderError
from audits.runfolder.names import KEY_DIR, is_temporary

__all__ = ["FolderBusyError", "leftovers", "locked", "remove_leftovers"]


class FolderBusyError(RunFolderError):
    """Another holdem command holds the run folder (one line, exit 2)."""


def _local_path(location: storage.Location | os.PathLike[str]) -> str | None:
    loc = storage.as_location(os.fspath(location))
    if not storage.is_uri(loc):
        return os.fspath(loc)
    if str(loc).startswith("file://"):
        return storage.split(loc)[1]
    return None  # an object store: no lock


def leftovers(location: storage.Location | os.PathLike[str]) -> list[str]:
    """The leftovers of an interrupted write in a local run folder (relative paths, sorted):
    every ``.<name>.tmp-<hex>`` temporary anywhere in it, and the shuffle's ``.keys/`` scratch
    folder. Links are listed, never followed."""
    path = _local_path(location)
    if path is None or not os.path.isdir(path) or os.path.islink(path):
        return []
    out = []
    for top, dirs, names in os.walk(path):
        rel_top = os.path.relpath(top, path).replace(os.sep, "/")
        rel_top = "" if rel_top == "." else rel_top + "/"
        if rel_top == "" and KEY_DIR in dirs:
            out.append(KEY_DIR + "/")
            dirs.remove(KEY_DIR)
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(top, d))]
        out += [rel_top + n for n in names if is_temporary(n)]
    return sorted(out)


def remove_leftovers(location: storage.Location | os.PathLike[str]) -> int:
    """Remove ``leftovers`` (the caller holds the folder's exclusive lock: no other command is
    writing them); returns how many."""
    path = _local_path(location)
    found = leftovers(location) if path is not None else []
    for rel in found:
        full = os.path.join(str(path), rel.rstrip("/"))
        if rel.endswith("/") and not os.path.islink(full):
            shutil.rmtree(full, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(full)
    return len(found)


@contextlib.contextmanager
def locked(location: storage.Location | os.PathLike[str], command: str, *,
           create: bool = False, shared: bool = False) -> Iterator[None]:
    """Hold the run folder's lock for the body: exclusive (a writer), or ``shared`` (a reader).
    ``create``: make the folder first when it is missing (removed again at the end when the
    command left it empty). A folder that does not exist otherwise, or that is not local, is not
    locked (the command says what is wrong with it). A writer removes the folder's leftovers
    once it holds the lock."""
    path = _local_path(location)
    if path is None:
        yield
        return
    path = os.path.normpath(path)
    if os.path.islink(path):
        # the checks of a folder (new, empty, its own kind) and its lock would look at the link
        # while the writes went to its target: a run folder is named as itself
        raise RunFolderError(f"run folder {location}: a symbolic link (to "
                             f"{os.readlink(path)[:200]}): name the folder itself")
    made = False
    if create and not os.path.lexists(path):
        try:
            os.makedirs(path)
            made = True
        except FileExistsError:
            pass
        except OSError:
            yield  # the command reports the folder it cannot make
            return
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        yield  # not a folder (a file, a link, absent): the command refuses it in its words
        return
    try:
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            raise FolderBusyError(
                f"run folder {location}: in use by another holdem command (a {command} must "
                "wait until it ends, or choose another folder)") from None
        if not shared:
            remove_leftovers(path)
        yield
    finally:
        os.close(fd)
        if made:
            with contextlib.suppress(OSError):
                os.rmdir(path)  # only when empty: nothing of the command's is removed
