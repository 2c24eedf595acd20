"""The run folder, owned in one place: its file names, the listing of its batch files, its
manifest (the JSON level), its atomic writes and sha256, spec comparison, and the conversion of
an old-layout folder. ``holdem simulate``, ``phh import``, ``audit``, ``diff``, ``replay``,
``report``, ``verify`` and ``shuffle`` all go through it; ``audits.storage`` is the filesystem
layer underneath (local paths and pyarrow URIs, atomic put, streaming sha256).

Layout (a local path or any pyarrow filesystem URI)::

    RUN/manifest.json                                  what the run holds, how it was made
    RUN/audit.json                                     holdem audit
    RUN/report.html, certificate.json, summary.md,     holdem report (and --sign-key)
        certificate.sig
    RUN/log/<structure label>/batch-<index:05d>.parquet   the hand log: one file per batch
    RUN/log/decks/batch-<index:05d>.parquet            a ``holdem shuffle`` run's deck log

``RUN/log`` is a Parquet dataset on its own, and the run's JSON and HTML files stay beside it:
``pandas.read_parquet("RUN/log")``, ``polars.scan_parquet("RUN/log/**/*.parquet")`` and DuckDB's
``read_parquet('RUN/log/**/*.parquet', hive_partitioning=true)`` read it with no other argument.
The structure folders are plain names (``no-limit``, not ``structure=no-limit``): no reader
derives a partition column from them, so nothing conflicts with the files' own ``structure``
column, and every file stays self-contained.

The old layout (``RUN/structure=<label>/batch-<N>.parquet``, before issue 15) is refused by every
command with one line (``OldLayoutError``); ``holdem migrate RUN`` (``migrate``) converts it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Collection, Container, Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs

from audits import storage
from audits.storage import TMP_NAME, Location, StorageError, file_sha256

__all__ = [
    "AUDIT_FILE", "DECK_LABEL", "LAYOUT", "LOG_DIR", "MANIFEST", "MANIFEST_FORMATS", "PRODUCTS",
    "PRODUCT_FOLDERS",
    "KEY_DIR", "ManifestError", "OldLayoutError", "Resume", "RunFolder", "RunFolderError",
    "SpecDifference", "describe_spec_difference", "key_relpath",
    "batch_index", "batch_label", "batch_relpath", "deck_relpath", "file_sha256", "is_log_file",
    "is_product", "is_temporary",
    "list_batch_files", "migrate", "parse_batch_relpath", "parse_json", "read_manifest",
    "sha256_bytes", "spec_difference", "write_file", "write_manifest",
]

LOG_DIR = "log"
LAYOUT = f"{LOG_DIR}/<label>/batch-<index:05d>.parquet"
DECK_LABEL = "decks"  # a shuffle run's deck log: log/decks/batch-<index:05d>.parquet
MANIFEST = "manifest.json"
AUDIT_FILE = "audit.json"
# what holdem writes into a run folder besides its log (holdem audit, holdem report and the
# signature of `holdem report --sign-key`; reports.REPORT_FILES, a test ties them)
PRODUCTS = frozenset({MANIFEST, AUDIT_FILE, "report.html", "certificate.json", "summary.md",
                      "certificate.sig", "import.json"})  # import.json: ``holdem import``'s counts
# folders of derived products: `holdem export`'s tidy tables (made from the log, never read by an
# audit)
PRODUCT_FOLDERS = ("tables/",)
# the manifests a run folder may hold: simulate's, the PHH importer's, the shuffle command's
MANIFEST_FORMATS = frozenset({"holdem-simulate-run", "holdem-import", "holdem-phh-import",
                              "holdem-shuffle-run"})

_NAME = re.compile(r"batch-([0-9]{5,})\.parquet")
# a structure label as a folder name: plain lower-case words (never `key=value`, which a reader's
# hive partitioning would turn into a column the files do not hold)
_LABEL = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
# the old layout (before issue 15): structure=<label>/batch-<N>.parquet, a shuffle's decks/...
_OLD = re.compile(r"(structure=([^/]+)|decks)/batch-\d+\.parquet")


class RunFolderError(ValueError):
    """A run folder that cannot be used (one line naming it; the CLI exits 2)."""


class OldLayoutError(RunFolderError):
    """A run folder of the old layout (``structure=<label>/...``): convert it first."""


class ManifestError(RunFolderError):
    """An unreadable manifest, or one another program wrote (one line, exit 2)."""


# ---------------------------------------------------------------- names


def batch_relpath(label: str, index: int) -> str:
    """``log/<label>/batch-<index:05d>.parquet``: a batch file, relative to the run folder."""
    return f"{LOG_DIR}/{label}/batch-{int(index):05d}.parquet"


KEY_DIR = ".keys"  # a shuffle run's scratch: the collision keys of its batches, removed at the end


def key_relpath(index: int) -> str:
    """``.keys/batch-<index:05d>.npy``: a shuffle run's scratch file of one batch's keys."""
    return f"{KEY_DIR}/batch-{int(index):05d}.npy"


def deck_relpath(index: int) -> str:
    """A shuffle run's deck file, relative to the run folder."""
    return batch_relpath(DECK_LABEL, index)


def parse_batch_relpath(rel: str) -> tuple[str, int] | None:
    """(label, index) of a batch file's relative path, None for any other path."""
    parts = rel.split("/")
    if len(parts) != 3 or parts[0] != LOG_DIR or not _LABEL.fullmatch(parts[1]):
        return None
    m = _NAME.fullmatch(parts[2])
    return (parts[1], int(m.group(1))) if m else None


def batch_label(path: Location | str) -> str | None:
    """The label of the folder a batch file sits in (``.../log/no-limit/batch-00012.parquet``
    -> ``"no-limit"``), None for a path with no folder."""
    parts = str(path).replace("\\", "/").rsplit("/", 2)
    return parts[-2] if len(parts) >= 2 else None


def batch_index(path: Location | str) -> int | None:
    """The batch number a batch file's name carries (``.../batch-00012.parquet`` -> 12)."""
    m = _NAME.fullmatch(str(path).replace("\\", "/").rpartition("/")[2].partition("?")[0])
    return int(m.group(1)) if m else None


def is_temporary(name: str) -> bool:
    """A temporary name of an atomic write: exactly what ``storage.put_atomic`` writes,
    ``.<final name>.tmp-<12 lowercase hex digits>`` (``storage.TMP_NAME``), so never a name that
    a reader's ``*.parquet`` glob matches."""
    return TMP_NAME.fullmatch(name.rpartition("/")[2]) is not None


def is_log_file(rel: str) -> bool:
    """A file the documented readers of the log take (``RUN/log/**/*.parquet``, whatever its
    name): a file of the run, never a product, listed in the manifest or an integrity failure."""
    return rel.startswith(LOG_DIR + "/") and rel.endswith(".parquet")


def is_product(rel: str) -> bool:
    """A run's own JSON/HTML product, a file of a derived-product folder (``PRODUCT_FOLDERS``) or
    a temporary name (not a file of the log)."""
    if is_log_file(rel):
        return False
    return rel in PRODUCTS or rel.startswith(PRODUCT_FOLDERS) or is_temporary(rel)


def old_layout_message(label: str, old_dir: str) -> str:
    """The one line every command says about a folder of the old layout."""
    return (f"{label} uses the old layout ({old_dir}/...); convert it with "
            f"`holdem migrate {label}`")


# ---------------------------------------------------------------- JSON


class _Constant(str):
    """A ``NaN``/``Infinity`` met while parsing (found again to name the field holding it)."""


def _constant_path(x: Any, path: str = "") -> tuple[str, str] | None:
    """(the dotted path of the first ``_Constant`` in ``x``, its text), None when none."""
    if isinstance(x, _Constant):
        return path or "(top level)", str(x)
    items = x.items() if isinstance(x, dict) else enumerate(x) if isinstance(x, list) else ()
    for k, v in items:
        found = _constant_path(v, f"{path}.{k}" if path and isinstance(k, str)
                               else f"{path}[{k}]" if not isinstance(k, str) else k)
        if found is not None:
            return found
    return None


def parse_json(data: bytes | str, *, strict: bool = False) -> Any:
    """A run folder's JSON file, parsed; ValueError (one line) for anything else: invalid
    JSON, nesting too deep to read (RecursionError, never a traceback), and with ``strict``
    (the manifest: its writers never write them) ``NaN`` or ``Infinity``, named by the field
    that holds it (``spec.seed: NaN is not a JSON number``)."""
    try:
        if not strict:
            return json.loads(data)
        d = json.loads(data, parse_constant=_Constant)
        found = _constant_path(d)
    except RecursionError:
        raise ValueError("nested too deeply to read") from None
    if found is not None:
        raise ValueError(f"{found[0]}: {found[1]} is not a JSON number")
    return d


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


# ---------------------------------------------------------------- the folder


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
            m = _OLD.fullmatch(rel)
            if m:
                raise OldLayoutError(old_layout_message(self.label, m.group(1)))

    def batch_relpaths(self, listing: list[str] | None = None,
                       labels: Container[str] | None = None) -> list[str]:
        """The batch files (``log/<label>/batch-<N>.parquet``, relative), sorted; the labels
        ``labels`` only when given. Raises OldLayoutError for an old-layout folder."""
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
                      any_layout: bool = False) -> dict[str, Any] | None:
        """The folder's manifest.json as a JSON object, None when absent. ``formats``: the
        ``format`` values accepted (any when None). Raises ManifestError, and OldLayoutError for
        a manifest listing old-layout paths (a half-migrated folder) unless ``any_layout``
        (``migrate``); see ``check_listed``."""
        self.require_regular(MANIFEST)
        if self.fs.get_file_info(self.path(MANIFEST)).type != pafs.FileType.File:
            return None
        try:
            d = parse_json(self.read_bytes(MANIFEST).decode("utf-8"), strict=True)
        except (OSError, UnicodeDecodeError, ValueError, pa.ArrowException) as e:
            raise ManifestError(f"run folder {self.label}: {MANIFEST} is not readable JSON "
                                f"({e})") from None
        if not isinstance(d, dict):
            raise ManifestError(f"run folder {self.label}: {MANIFEST} is not a JSON object")
        if formats is not None and (not isinstance(d.get("format"), str)
                                    or d["format"] not in formats):
            raise ManifestError(f"run folder {self.label}: {MANIFEST} has format "
                                f"{d.get('format')!r}, expected "
                                + " or ".join(sorted(str(f) for f in formats)))
        if not any_layout:
            self.check_listed(d)
        return d

    def check_listed(self, d: dict[str, Any]) -> None:
        """Every path a manifest lists (``files[i].path``) is a batch file of the layout
        (``parse_batch_relpath``): the log the documented readers see (``RUN/log/**``) is all an
        audit binds. OldLayoutError for an old-layout path, ManifestError for any other."""
        files = d.get("files")
        if not isinstance(files, list):
            return
        seen: dict[str, int] = {}
        for i, f in enumerate(files):
            rel = f.get("path") if isinstance(f, dict) else None
            old = _OLD.fullmatch(rel) if isinstance(rel, str) else None
            if old:
                raise OldLayoutError(old_layout_message(self.label, old.group(1)))
            if not isinstance(rel, str) or parse_batch_relpath(rel) is None:
                raise ManifestError(f"{self.location(MANIFEST)}: files[{i}].path {rel!r} is not "
                                    f"a batch file of the run ({LAYOUT})")
            if rel in seen:
                raise ManifestError(f"{self.location(MANIFEST)}: files[{i}].path {rel!r} is "
                                    f"listed twice (files[{seen[rel]}] too)")
            seen[rel] = i

    def write_manifest(self, d: dict[str, Any]) -> dict[str, Any]:
        """Write manifest.json atomically (indented JSON); returns ``d``."""
        self.write(MANIFEST, json.dumps(d, indent=2) + "\n")
        return d


# ---------------------------------------------------------------- shortcuts by location


def list_batch_files(run: Location) -> list[Location]:
    """The batch files of a run folder as locations, sorted (OldLayoutError for an old one)."""
    folder = RunFolder.open(run)
    return [folder.location(rel) for rel in folder.batch_relpaths()]


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


# ---------------------------------------------------------------- converting an old folder


def _new_path(rel: str) -> str | None:
    m = _OLD.fullmatch(rel)
    if not m:
        return None
    return batch_relpath(m.group(2) or DECK_LABEL, batch_index(rel) or 0)


def migrate(run: Location | os.PathLike[str],
            say: Callable[[str], None] | None = None) -> int:
    """Convert an old-layout run folder: every ``structure=<label>/batch-<N>.parquet`` moves to
    ``log/<label>/batch-<N>.parquet`` (a shuffle run's ``decks/batch-<N>.parquet`` to
    ``log/decks/...``) (the bytes do not change, so every sha256 and size stays
    valid) and the manifest's paths (and ``layout``) are rewritten, atomically, after the moves.
    Running it again after an interruption finishes the job. Returns the files moved; raises
    RunFolderError (one line) on anything unexpected, before moving anything."""
    folder = RunFolder.open(run)
    folder.require()
    listing = folder.listing()
    moves: list[tuple[str, str]] = []
    for rel in listing:
        if is_product(rel):
            continue
        new = _new_path(rel)
        if new is not None:
            if new in listing:
                raise RunFolderError(f"{folder.location(rel)}: {new} exists as well; "
                                     "remove one of them")
            moves.append((rel, new))
        elif parse_batch_relpath(rel) is None:
            raise RunFolderError(f"{folder.location(rel)}: not a file of a run folder; move it "
                                 "away and run `holdem migrate` again")
    manifest = folder.read_manifest(any_layout=True)
    if manifest is not None:
        files = manifest.get("files")
        if not isinstance(files, list):
            raise RunFolderError(f"{folder.location(MANIFEST)}: no 'files' list to rewrite")
        for i, f in enumerate(files):
            listed = f.get("path") if isinstance(f, dict) else None
            if not isinstance(listed, str) or (_new_path(listed) is None
                                               and parse_batch_relpath(listed) is None):
                raise RunFolderError(f"{folder.location(MANIFEST)}: files[{i}].path {listed!r} is "
                                     "not a batch file of either layout")
    if not moves and (manifest is None or all(
            _new_path(f["path"]) is None for f in manifest["files"])):
        raise RunFolderError(f"{folder.label}: no files of the old layout "
                             "(structure=<label>/batch-<N>.parquet); nothing to convert")
    for rel, new in moves:
        folder.fs.create_dir(folder.path(new.rpartition("/")[0]), recursive=True)
        folder.fs.move(folder.path(rel), folder.path(new))
    old_dirs = {rel.partition("/")[0] for rel, _ in moves}
    if manifest is not None:  # rewritten before any old folder goes: a folder interrupted
        for f in manifest["files"]:  # in between is still recognised (and finished by a rerun)
            if _new_path(f["path"]) is not None:
                old_dirs.add(f["path"].partition("/")[0])
                f["path"] = _new_path(f["path"])
        if "layout" in manifest:
            manifest["layout"] = LAYOUT
        folder.write_manifest(manifest)
    for old_dir in sorted(old_dirs):
        try:
            info = folder.fs.get_file_info(pafs.FileSelector(folder.path(old_dir),
                                                             allow_not_found=True))
            if not info:
                folder.fs.delete_dir(folder.path(old_dir))
        except (pa.ArrowException, OSError):
            pass  # an object store has no folders to remove
    if say is not None:
        say(f"{folder.label}: {len(moves)} batch files moved to {LOG_DIR}/<label>/"
            + _stale_products(listing, manifest))
    return len(moves)


def _stale_products(listing: list[str], manifest: dict[str, Any] | None) -> str:
    """What ``migrate`` says of the products that record the old paths, and how to remake them
    (a shuffle run's certificate: by running its ``holdem shuffle`` again)."""
    stale = [p for p in (AUDIT_FILE, "certificate.json") if p in listing]
    if not stale:
        return ""
    verb = "records" if len(stale) == 1 else "record"
    if (manifest or {}).get("format") == "holdem-shuffle-run":
        how = ("run the same `holdem shuffle ... --out` again (it keeps the files and audits "
               "them again)")
    else:
        how = "run `holdem audit` and `holdem report` again"
    return f"; {' and '.join(stale)} {verb} the old paths: {how}"
