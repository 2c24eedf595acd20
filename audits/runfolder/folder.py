"""One run folder (``RunFolder``): where it is, its listing, the ONE lister of its log files
that every command reads through (``RunFolder.log_files``), its atomic writes and sha256, and
the resumption of a run into it (``RunFolder.resume``, with the spec comparison it reports).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Collection, Container, Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs

from audits.runfolder import manifest as _manifest
from audits.runfolder import storage
from audits.runfolder.errors import (
    OldLayoutError,
    RunFolderError,
    StorageError,
    UnlistedFileError,
)
from audits.runfolder.names import (
    LAYOUT,
    MANIFEST,
    OLD_BATCH,
    PRODUCT_FOLDERS,
    is_product,
    is_temporary,
    parse_batch_relpath,
)
from audits.runfolder.storage import Location

# ---------------------------------------------------------------- spec comparison


@dataclass(frozen=True)
class SpecDifference:
    """The first spec field two runs disagree on, with both values (``"<absent>"`` if absent)."""

    field: str
    a: Any
    b: Any


def spec_difference(a: Mapping[str, Any], b: Mapping[str, Any], *,
                    ignore: Container[str] = (),
                    defaults: Mapping[str, Any] | None = None) -> SpecDifference | None:
    """The first field (in name order) whose value differs between two spec dicts, skipping
    ``ignore``; a field one side lacks is compared with ``defaults`` (else ``"<absent>"``)."""
    defaults = defaults or {}
    for k in sorted(set(a) | set(b)):
        if k in ignore:
            continue
        va = a.get(k, defaults.get(k, "<absent>"))
        vb = b.get(k, defaults.get(k, "<absent>"))
        if va != vb:
            return SpecDifference(k, va, vb)
    return None


def describe_spec_difference(old: Mapping[str, Any], new: Mapping[str, Any]) -> str | None:
    """``spec_difference`` as ``"field Y differs (A vs B)"`` (A the folder's, B the new one)."""
    d = spec_difference(old, new)
    return None if d is None else f"field {d.field} differs ({_short(d.a)} vs {_short(d.b)})"


def _short(v: Any) -> str:
    text = json.dumps(v, sort_keys=True) if not isinstance(v, str) else v
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True)
class Resume:
    """What a rerun into a run folder may keep (``RunFolder.resume``)."""

    manifest: dict[str, Any] | None  # the folder's manifest (None: new folder, or none)
    found: list[str]  # the expected files present (to check against the manifest)
    stale: int  # temporary files of an interrupted run, removed




def sha256_bytes(data: bytes | memoryview | pa.Buffer) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class RunFolder:
    """One run folder: ``root`` as given (messages name it), its filesystem and path there."""

    root: Location
    fs: pafs.FileSystem
    base: str

    @classmethod
    def open(cls, run: Location | os.PathLike[str],
             filesystem: pafs.FileSystem | None = None) -> RunFolder:
        """A local path or URI (or a path inside an explicit pyarrow ``filesystem``)."""
        if filesystem is not None:
            text = os.fspath(run)
            return cls(text, filesystem, text.rstrip("/") or "/")
        root = storage.as_location(os.fspath(run) if not isinstance(run, str) else run)
        try:
            fs, base = storage.split(root)
        except StorageError as e:
            raise RunFolderError(str(e)) from None
        return cls(root, fs, base.rstrip("/") or "/")

    @property
    def label(self) -> str:
        return str(self.root)

    def location(self, rel: str) -> Location:
        """A file of the folder as a location (a Path, or a URI keeping its query)."""
        if isinstance(self.root, str) and not storage.is_uri(self.root):
            return f"{self.base}/{rel}"  # inside an explicit filesystem
        return storage.join(self.root, *rel.split("/"))

    def path(self, rel: str) -> str:
        """A file of the folder as a path inside ``fs``."""
        return f"{self.base}/{rel}"

    def relative(self, path: str) -> str:
        return path[len(self.base):].lstrip("/")

    def kind(self) -> pafs.FileType:
        try:
            return self.fs.get_file_info(self.base).type
        except (pa.ArrowException, OSError) as e:
            raise RunFolderError(f"{self.label}: cannot reach it ({e})") from None

    def exists(self) -> bool:
        return self.kind() == pafs.FileType.Directory

    def require(self) -> None:
        """Raise RunFolderError unless the folder exists."""
        if not self.exists():
            raise RunFolderError(f"run folder {self.label} does not exist")

    def listing(self) -> list[str]:
        """Every file under the folder, relative to it, sorted. On a local disk "file" means
        every entry that is not a real folder: symbolic links (to files or folders, even broken
        ones) and special files are entries of the folder too, never followed, so none can
        bring in data the listing does not name."""
        if isinstance(self.fs, pafs.LocalFileSystem):
            return self._local_listing()
        try:
            infos = self.fs.get_file_info(pafs.FileSelector(self.base, recursive=True,
                                                            allow_not_found=True))
        except (pa.ArrowException, OSError) as e:
            raise RunFolderError(f"{self.label}: cannot list it ({e})") from None
        return sorted(self.relative(i.path) for i in infos if i.type == pafs.FileType.File)

    def _local_listing(self) -> list[str]:
        out: list[str] = []

        def fail(e: OSError) -> None:
            raise RunFolderError(f"{self.label}: cannot list it ({e})")

        if not os.path.isdir(self.base) or os.path.islink(self.base):
            return out
        for top, dirs, names in os.walk(self.base, onerror=fail):
            links = [d for d in dirs if os.path.islink(os.path.join(top, d))]
            dirs[:] = [d for d in dirs if d not in links]
            out += [self.relative(os.path.join(top, n).replace(os.sep, "/"))
                    for n in (*names, *links)]
        return sorted(out)

    def resume(self, expected: Container[str], *, fingerprint: str, spec: Mapping[str, Any],
               read: Callable[[RunFolder], dict[str, Any] | None],
               scratch: tuple[str, ...] = ()) -> Resume:
        """Make the folder ready for a run (simulate, shuffle) that writes the files
        ``expected``, keeping what an earlier run of the same config left. Creates a missing
        folder. Raises RunFolderError (one line, before any change) for a file, an old layout, a
        manifest ``read`` refuses or of another config (``fingerprint``; ``spec`` names the
        first field that differs), and any file that is neither expected, one of the run's
        products (``is_product``) nor a temporary. Removes temporaries and the files under the
        ``scratch`` folders (a killed run's leftovers)."""
        kind = self.kind()
        if kind == pafs.FileType.File:
            raise RunFolderError(f"output {self.label} is a file, not a run folder")
        if kind == pafs.FileType.NotFound:
            self.fs.create_dir(self.base, recursive=True)
            return Resume(None, [], 0)
        listing = self.listing()
        self.check_layout(listing)
        old = read(self)
        if old is not None and old.get("fingerprint") != fingerprint:
            what = (describe_spec_difference(old.get("spec") or {}, spec)
                    or f"fingerprint differs ({old.get('fingerprint')} vs {fingerprint})")
            raise RunFolderError(f"run folder {self.label} was made with a different config: "
                                 f"{what}")
        found, leftovers = [], []
        for rel in listing:
            if rel in expected:
                found.append(rel)
            elif rel.startswith(PRODUCT_FOLDERS):  # export's tables/: its own business
                continue
            elif is_temporary(rel) or rel.startswith(tuple(f"{d}/" for d in scratch)):
                leftovers.append(rel)
            elif not is_product(rel):
                raise RunFolderError(f"run folder {self.label}: unexpected file {rel} (not a "
                                     "file of this run); move it away or choose another --out")
        for rel in leftovers:
            self.delete(rel)
        return Resume(old, found, sum(is_temporary(rel) for rel in leftovers))

    def check_layout(self, listing: list[str] | None = None) -> None:
        """Raise OldLayoutError when the folder holds batch files of the old layout."""
        for rel in self.listing() if listing is None else listing:
            m = OLD_BATCH.fullmatch(rel)
            if m:
                raise OldLayoutError(_manifest.old_layout_message(self.label, m.group(1)))

    def batch_relpaths(self, listing: list[str] | None = None,
                       labels: Container[str] | None = None) -> list[str]:
        """The batch files of the layout (``log/<label>/batch-<N>.parquet``, relative), sorted;
        the labels ``labels`` only when given. Raises OldLayoutError for an old-layout folder.
        What a writer cleans or resumes; a reader of the log takes ``log_files``."""
        listing = self.listing() if listing is None else listing
        self.check_layout(listing)
        out = []
        for rel in listing:
            parsed = parse_batch_relpath(rel)
            if parsed and (labels is None or parsed[0] in labels):
                self.require_regular(rel)  # never read through a link, never block on a pipe
                out.append(rel)
        return out

    def read_bytes(self, rel: str) -> bytes:
        self.require_regular(rel)
        with self.fs.open_input_stream(self.path(rel)) as f:
            return f.read()

    def sha256(self, rel: str) -> tuple[str, int]:
        """(sha256 hex digest, size) of a file of the folder, in one streaming pass. On a local
        disk only a regular file is read (RunFolderError for a link or a special file: a pipe
        would block the reader forever, a link's bytes are another file's)."""
        self.require_regular(rel)
        return storage.stream_sha256(self.fs, self.path(rel))

    def require_regular(self, rel: str) -> None:
        """RunFolderError naming the file when it is a link or a special file (on a local disk:
        ``storage.not_regular``)."""
        why = storage.not_regular(self.fs, self.path(rel))
        if why is not None:
            raise RunFolderError(f"{self.location(rel)}: {why}; a run folder holds plain files "
                                 "only")

    def write(self, rel: str, data: bytes | str | pa.Buffer) -> None:
        """Write a file of the folder atomically (temporary name, then rename), making its
        parent folders."""
        folder = rel.rpartition("/")[0]
        self.fs.create_dir(self.path(folder) if folder else self.base, recursive=True)
        storage.put_atomic(self.fs, self.path(rel), data.encode() if isinstance(data, str)
                           else data)

    def delete(self, rel: str) -> None:
        self.fs.delete_file(self.path(rel))

    def read_manifest(self, formats: Collection[str] | None = None, *,
                      any_layout: bool = False, unreadable_hint: str = ""
                      ) -> dict[str, Any] | None:
        """``audits.runfolder.manifest.read_manifest`` of this folder."""
        return _manifest.read_manifest(self, formats, any_layout=any_layout,
                                       unreadable_hint=unreadable_hint)

    def write_manifest(self, d: dict[str, Any]) -> dict[str, Any]:
        """Write manifest.json atomically (indented JSON); returns ``d``."""
        return _manifest.write_manifest(self, d)

    def log_files(self, *, missing_ok: bool = False,
                  manifest: dict[str, Any] | None | bool = True) -> LogFiles:
        """THE lister of the run's log, which every command reads through (audit, replay,
        export, report, ...): the batch files the manifest lists (in its order) when it lists
        any, else every batch file of the layout (``LAYOUT``) in path order; with the files the
        manifest lists but the folder lacks and, when there is a manifest, the files it does not
        list that are not the run's products (``LogFiles.unlisted``: what the integrity audit
        fails as ``UNLISTED``; ``LogFiles.require_listed`` refuses them).
        ``manifest``: the folder's manifest when the caller has read it already (``None``: it
        has none), else (``True``) it is read here. Raises RunFolderError (one line): no such
        folder, an old layout, a listed file missing (unless ``missing_ok`` and some listed
        file is present), no batch file at all, a file that is a link or a special file."""
        if not self.exists():
            raise RunFolderError(f"{self.label}: no such run folder")
        listing = self.listing()
        self.check_layout(listing)
        msha: str | None = None
        if manifest is True:
            m, msha = _manifest.read_manifest_and_sha256(self)
        else:
            m = manifest or None
        listed = _manifest.listed_paths(m) if m is not None else []
        present = set(listing)
        if listed:
            missing = [rel for rel in listed if rel not in present]
            if missing and (not missing_ok or len(missing) == len(listed)):
                raise RunFolderError(f"{self.location(missing[0])}: listed in {MANIFEST} but "
                                     "missing")
            files = [rel for rel in listed if rel in present]
            for rel in files:
                self.require_regular(rel)  # never read through a link, never block on a pipe
            known = set(listed)
            unlisted = [rel for rel in listing if rel not in known and not is_product(rel)]
        else:
            missing = []
            files = self.batch_relpaths(listing)
            read = set(files)
            unlisted = ([rel for rel in listing if rel not in read and not is_product(rel)]
                        if m is not None else [])
            for rel in files:
                self.require_regular(rel)  # never read through a link, never block on a pipe
        if not files:
            raise RunFolderError(f"{self.label}: no batch files ({LAYOUT})")
        return LogFiles(self, listing, m, msha, files, missing, unlisted)


@dataclass(frozen=True)
class LogFiles:
    """The run's log as ``RunFolder.log_files`` found it (relative paths)."""

    folder: RunFolder
    listing: list[str]  # every file of the folder
    manifest: dict[str, Any] | None  # the manifest read with it (None: none)
    manifest_sha256: str | None  # the sha256 of the manifest's bytes as read here (None: none,
    # or the caller passed the manifest in)
    files: list[str]  # the batch files to read
    missing: list[str]  # listed by the manifest, absent
    unlisted: list[str]  # files the manifest does not list (products aside)

    def locations(self) -> list[Location]:
        return [self.folder.location(rel) for rel in self.files]

    def paths(self) -> list[str]:
        """The batch files as paths inside ``folder.fs``."""
        return [self.folder.path(rel) for rel in self.files]

    def require_listed(self) -> LogFiles:
        """``UnlistedFileError`` for the first file the manifest does not list, in the words of
        the integrity audit's FAIL (``UNLISTED``, ``unlisted_reason``): a reader of the log
        never reads around a file the audit fails."""
        if self.unlisted:
            raise UnlistedFileError(f"run folder {self.folder.label}: {UNLISTED}: "
                                    + unlisted_reason(self.unlisted[0]))
        return self


UNLISTED = "unlisted file"  # the integrity audit's name of the failure, and every reader's


def unlisted_reason(rel: str) -> str:
    """What the integrity audit and every reader of the log say of a file of the folder that
    the manifest does not list."""
    return f"{rel}: in the run folder but not listed in {MANIFEST}"


# ---------------------------------------------------------------- shortcuts by location


def list_batch_files(run: Location) -> list[Location]:
    """The batch files of a run folder as locations (``RunFolder.log_files``)."""
    return RunFolder.open(run).log_files().locations()


def read_manifest(run: Location, formats: Collection[str] | None = None
                  ) -> dict[str, Any] | None:
    return RunFolder.open(run).read_manifest(formats)


def write_manifest(run: Location, d: dict[str, Any]) -> dict[str, Any]:
    return RunFolder.open(run).write_manifest(d)


def write_file(run: Location, rel: str, data: bytes | str) -> Location:
    """Write one file of a run folder atomically; returns its location."""
    folder = RunFolder.open(run)
    folder.write(rel, data)
    return folder.location(rel)
