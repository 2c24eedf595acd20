"""A warm compiled-code cache for a test's own cache root (``audits.jitcache``).

The caches are keyed by the sources (a hash of every file a compiled function may depend on), so
the key directories of this process's root hold machine code compiled from exactly the sources
that have the same keys, wherever they are checked out. ``warm`` copies them into another root:
a command run there with the same sources loads them, as on a machine that already ran it; a
command run with other sources has other keys and compiles afresh, as it would anyway.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from audits import jitcache


def warm(root: Path) -> dict[str, str]:
    """Copy this process's key directories (the current keys of every label) into ``root``
    (nothing when this session has not compiled them: the first command then compiles);
    returns the keys."""
    keys = dict(jitcache.identity()["keys"])
    for label, key in keys.items():
        src = jitcache.cache_root() / f"{label}-{key}"
        if src.is_dir():
            shutil.copytree(src, root / f"{label}-{key}", dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("*.tmp.*", jitcache.USED_MARK))
    return keys
