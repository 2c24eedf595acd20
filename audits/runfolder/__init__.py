"""The run folder, owned in one place (a leaf package: it imports nothing of the project
outside itself): its file names, the listing of its batch files, its
manifest (the JSON level), its atomic writes and sha256, spec comparison, and the conversion of
an old-layout folder. ``holdem simulate``, ``phh import``, ``audit``, ``diff``, ``replay``,
``report``, ``verify`` and ``shuffle`` all go through it; ``storage`` is the filesystem
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

Its modules: ``errors`` (the error bases, ``InputError``/``CheckFailed``, and the folder's own),
``storage`` (the filesystem layer), ``names`` (every file name and the layout), ``manifest``
(the manifest's JSON and the one check of the paths it lists), ``folder`` (``RunFolder`` and
its ONE lister of the log, ``RunFolder.log_files``), ``migrate`` and ``provenance`` (which code
made a run).
"""

from __future__ import annotations

from audits.runfolder.errors import (
    CheckFailed,
    InputError,
    ManifestError,
    OldLayoutError,
    RunFolderError,
    StorageError,
    UnlistedFileError,
)
from audits.runfolder.folder import (
    UNLISTED,
    LogFiles,
    Resume,
    RunFolder,
    SpecDifference,
    describe_spec_difference,
    list_batch_files,
    read_manifest,
    sha256_bytes,
    spec_difference,
    unlisted_reason,
    write_file,
    write_manifest,
)
from audits.runfolder.manifest import check_listed, listed_paths, old_layout_message, parse_json
from audits.runfolder.migrate import migrate
from audits.runfolder.names import (
    AUDIT_FILE,
    CERTIFICATE,
    DECK_LABEL,
    FAILING_FILE,
    IMPORT_FILE,
    KEY_DIR,
    LAYOUT,
    LOG_DIR,
    MANIFEST,
    MANIFEST_FORMATS,
    PRODUCT_FOLDERS,
    PRODUCTS,
    REPORT_FILES,
    SIGNATURE_FILE,
    batch_index,
    batch_label,
    batch_relpath,
    deck_relpath,
    is_log_file,
    is_product,
    is_temporary,
    key_relpath,
    parse_batch_relpath,
)
from audits.runfolder.storage import Location, file_sha256

__all__ = [
    "AUDIT_FILE", "FAILING_FILE", "CERTIFICATE", "DECK_LABEL", "IMPORT_FILE", "KEY_DIR",
    "LAYOUT", "LOG_DIR",
    "MANIFEST", "MANIFEST_FORMATS", "PRODUCTS", "PRODUCT_FOLDERS", "REPORT_FILES",
    "SIGNATURE_FILE", "UNLISTED",
    "CheckFailed", "InputError", "Location", "LogFiles", "ManifestError", "OldLayoutError",
    "Resume", "RunFolder", "RunFolderError", "SpecDifference", "StorageError",
    "UnlistedFileError",
    "batch_index", "batch_label", "batch_relpath", "check_listed", "deck_relpath",
    "describe_spec_difference", "file_sha256", "is_log_file", "is_product", "is_temporary",
    "key_relpath", "list_batch_files", "listed_paths", "migrate", "old_layout_message",
    "parse_batch_relpath", "parse_json", "read_manifest", "sha256_bytes", "spec_difference",
    "unlisted_reason", "write_file", "write_manifest",
]
