"""The run folder's names: its files, its folders, the layout of its log, and the tests of a
relative path against them (``audits.runfolder``'s module docstring shows the layout). Every
file name a command writes into a run folder is defined here, once.
"""

from __future__ import annotations

import re

from audits.runfolder.storage import TMP_NAME, Location

LOG_DIR = "log"
LAYOUT = f"{LOG_DIR}/<label>/batch-<index:05d>.parquet"
DECK_LABEL = "decks"  # a shuffle run's deck log: log/decks/batch-<index:05d>.parquet
MANIFEST = "manifest.json"
AUDIT_FILE = "audit.json"  # holdem audit
# the files ``holdem report`` writes into a run folder
REPORT_FILES = {"html": "report.html", "certificate": "certificate.json", "summary": "summary.md"}
CERTIFICATE = REPORT_FILES["certificate"]
# the Ed25519 signature of certificate.json (``holdem report --sign-key``): 64 raw bytes
SIGNATURE_FILE = "certificate.sig"
IMPORT_FILE = "import.json"  # ``holdem import``'s counts, beside the manifest
# ``holdem audit``: every failing hand of every audit with its reason and amounts (CSV; its
# sha256 in audit.json, so the certificate binds it)
FAILING_FILE = "failing_hands.csv"
# what holdem writes into a run folder besides its log
PRODUCTS = frozenset({MANIFEST, AUDIT_FILE, *REPORT_FILES.values(), SIGNATURE_FILE, IMPORT_FILE,
                      FAILING_FILE})
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
OLD_BATCH = re.compile(r"(structure=([^/]+)|decks)/batch-\d+\.parquet")


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
