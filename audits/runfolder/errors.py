"""The error bases of the project, and the run folder's own errors.

Two bases, so that a command maps them once: ``InputError`` is every one-line input error (a
path, a file, a field the command cannot use; the CLI exits 2) and ``CheckFailed`` every failed
check (a named FAIL; exit 1). Each message is one line naming the file, field, seat or hand and
what was expected.
"""

from __future__ import annotations

__all__ = ["CheckFailed", "InputError", "ManifestError", "OldLayoutError", "RunFolderError",
           "StorageError", "UnlistedFileError"]


class InputError(ValueError):
    """Unusable input, said in one line (exit 2)."""


class CheckFailed(Exception):  # noqa: N818 - a verdict, not an error of the program
    """A check that failed, said in one line naming what failed (exit 1)."""


class StorageError(InputError):
    """A location that cannot be used (bad URI, unknown scheme, unreachable store)."""


class RunFolderError(InputError):
    """A run folder that cannot be used (one line naming it; the CLI exits 2)."""


class OldLayoutError(RunFolderError):
    """A run folder of the old layout (``structure=<label>/...``): convert it first."""


class ManifestError(RunFolderError):
    """An unreadable manifest, or one another program wrote (one line, exit 2)."""


class UnlistedFileError(CheckFailed):
    """A file of the run's log (``RUN/log/**/*.parquet``) that its manifest does not list: the
    integrity audit's ``unlisted file`` FAIL, said the same way by every reader of the log."""
