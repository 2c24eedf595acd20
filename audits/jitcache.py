"""Compiled code keyed by the code: numba's on-disk caches of ``sim/``, ``audits/``, ``cluster/``
and ``reports/`` live in directories named by a hash of every source they can depend on.

numba's own cache (``cache=True``) invalidates a function's machine code only when the function's
OWN file changes. A compiled caller inlines or links the functions it calls from other files, so
with numba's default a change to ``sim/engine.py`` left ``sim/session.py``'s cached loop running
the old engine (and ``holdem regress`` called a changed engine IDENTICAL). Here every function of a
package is cached under ``ROOT/<label>-<key>/<package path>/``, where ``key`` hashes:

- the Python sources of every package the compiled code may call into (its *closure*:
  ``sim`` -> sim; ``audits`` -> audits, which imports nothing else of the project (a test
  enforces it); ``cluster`` and ``reports`` -> all four packages), file by file (relative path
  and bytes);
- the interpreter (implementation, version, ABI flags) and the numba, llvmlite and numpy versions.

Any change anywhere in a closure gives a new key, so a fresh, empty cache: no command, test or Ray
worker can load machine code compiled from sources other than the ones it imported. (numba's
index also records the CPU and its features per compiled signature.) Identical sources share the
cache whatever checkout they sit in.

``ROOT`` is ``$HOLDEM_JIT_CACHE``, else ``$NUMBA_CACHE_DIR`` (the cluster image and the runtime env
set it), else ``$XDG_CACHE_HOME/holdem/numba`` (``~/.cache/holdem/numba``). When the first
process of a new key creates its directory, the key directories of the same label that are
neither among the ``KEEP`` most recently used nor used within ``KEEP_SECONDS`` are removed
(``make clean-cache`` removes them all).

``install()`` puts the locator first in numba's list; ``sim/__init__.py`` and
``audits/__init__.py`` call it, so it is in place before any ``@njit(cache=True)`` of the project
runs, in every process (the CLI, the tests, each Ray worker). ``identity()`` is the per-process
record of the keys (memoized at first use: the sources as they were imported), which the
provenance of every run, audit and certificate carries and every Ray task checks against the
driver's (``cluster.fanout``).

This module imports nothing of the project and only the standard library at import time.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import sys
import tempfile
import time
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

PACKAGES = ("sim", "audits", "cluster", "reports")
# the packages a package's compiled code may depend on
CLOSURE: dict[str, tuple[str, ...]] = {
    "sim": ("sim",),
    "audits": ("audits",),
    "cluster": PACKAGES,
    "reports": PACKAGES,
}
KEY_HEX = 16  # characters of the key in directory names and records
KEEP = 4  # key directories kept per label (the newest by use)
KEEP_SECONDS = 3600.0  # a key directory used within this is never pruned
USED_MARK = ".used"
ENV_ROOT = "HOLDEM_JIT_CACHE"
KEY_FORMAT = "holdem-jit-cache-1"

def cache_root() -> Path:
    """Where the keyed caches live (see the module docstring)."""
    for var in (ENV_ROOT, "NUMBA_CACHE_DIR"):
        v = os.environ.get(var, "").strip()
        if v:
            return Path(v).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "holdem" / "numba"


def package_sha256(directory: Path) -> str:
    """sha256 over the package's ``*.py`` files (relative path and bytes, in path order)."""
    h = hashlib.sha256()
    files = [p for p in directory.rglob("*.py") if "__pycache__" not in p.parts]
    for p in sorted(files, key=lambda q: q.relative_to(directory).as_posix()):
        rel = p.relative_to(directory).as_posix().encode()
        data = p.read_bytes()
        h.update(len(rel).to_bytes(8, "little") + rel + len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


@lru_cache(maxsize=1)
def _package_dirs() -> dict[str, Path]:
    """The directory each of the four packages is imported from in this process (a Ray runtime
    env's ``py_modules`` unpacks each package into a directory of its own, so they need not be
    siblings); a package that cannot be found is left out (its sources hash as "absent")."""
    out = {}
    for name in PACKAGES:
        mod = sys.modules.get(name)
        paths = list(getattr(mod, "__path__", None) or [])
        if not paths:
            try:
                spec = importlib.util.find_spec(name)
            except (ImportError, ValueError):
                spec = None
            paths = list(spec.submodule_search_locations or []) if spec else []
        if paths:
            out[name] = Path(paths[0]).resolve()
    return out


@lru_cache(maxsize=1)
def sources() -> dict[str, str]:
    """``package -> package_sha256`` of the sources, memoized: the code as this process first
    saw it (an edit while it runs does not change what it compiled from)."""
    dirs = _package_dirs()
    return {name: package_sha256(dirs[name]) if name in dirs and dirs[name].is_dir()
            else "absent" for name in PACKAGES}


def _toolchain() -> str:
    from importlib.metadata import PackageNotFoundError, version

    parts = [sys.implementation.name, sys.version.split()[0], getattr(sys, "abiflags", "")]
    for dist in ("numba", "llvmlite", "numpy"):
        try:
            parts.append(f"{dist}={version(dist)}")
        except PackageNotFoundError:
            parts.append(f"{dist}=absent")
    return " ".join(parts)


@cache
def key(label: str) -> str:
    """The cache key of ``label``'s closure (``KEY_HEX`` hex characters)."""
    src = sources()
    h = hashlib.sha256(f"{KEY_FORMAT}\n{_toolchain()}\n".encode())
    for name in CLOSURE[label]:
        h.update(f"{name}={src[name]}\n".encode())
    return h.hexdigest()[:KEY_HEX]


def identity() -> dict[str, Any]:
    """The compiled-code identity of this process: the root and each package's cache key."""
    return {"keys": {label: key(label) for label in CLOSURE}, "toolchain": _toolchain()}


def identity_digest() -> str:
    """One short digest of ``identity()['keys']`` (what a Ray task compares with the driver's)."""
    keys = identity()["keys"]
    return hashlib.sha256(repr(sorted(keys.items())).encode()).hexdigest()[:KEY_HEX]


def _label_of(py_file: str) -> tuple[str, Path] | None:
    """(package, the file's directory relative to the package's parent) for a file of the four
    packages, else None (numba's own locators then handle it)."""
    path = Path(py_file).resolve()
    for name, d in _package_dirs().items():
        if path.is_relative_to(d):
            return name, path.parent.relative_to(d.parent)
    return None


def _prune(root: Path, label: str, current: Path) -> None:
    """Remove the label's key directories that are neither recent nor among the newest."""
    now = time.time()
    dirs = []
    for d in root.glob(f"{label}-*"):
        if d == current or not d.is_dir() or d.is_symlink():
            continue
        mark = d / USED_MARK
        try:
            used = mark.stat().st_mtime if mark.exists() else d.stat().st_mtime
        except OSError:
            continue
        dirs.append((used, d))
    dirs.sort(reverse=True)
    for used, d in dirs[KEEP - 1:]:
        if now - used > KEEP_SECONDS:
            shutil.rmtree(d, ignore_errors=True)


_touched: set[Path] = set()


def key_dir(label: str) -> Path:
    """``ROOT/<label>-<key>``, created (and marked used) on first use in this process; a new one
    prunes its label's old ones. Falls back to a private temporary root when ROOT is not
    writable (never to an unkeyed cache)."""
    name = f"{label}-{key(label)}"
    for root in (cache_root(), Path(tempfile.gettempdir()) / f"holdem-numba-{os.getuid()}"):
        d = root / name
        if d in _touched:
            return d
        try:
            fresh = not d.exists()
            d.mkdir(parents=True, exist_ok=True)
            (d / USED_MARK).touch()
        except OSError:
            continue
        _touched.add(d)
        if fresh:
            _prune(root, label, d)
        return d
    d = Path(tempfile.mkdtemp(prefix="holdem-numba-")) / name
    d.mkdir(parents=True)
    _touched.add(d)
    return d


_installed = False


def install() -> None:
    """Put the keyed locator first in numba's list of cache locators (idempotent)."""
    global _installed
    if _installed:
        return
    from numba.core import caching

    class CodeKeyedCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        """A function of the project: cached under its closure's key directory, stamped with the
        key (an index written under another key is never read)."""

        def __init__(self, py_func: Any, py_file: str, label: str, rel: Path) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._label = label
            self._cache_path = str(key_dir(label) / rel)

        def get_cache_path(self) -> str:
            return self._cache_path

        def get_source_stamp(self) -> str:
            return key(self._label)

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            where = _label_of(py_file)
            if where is None:
                return None
            self = cls(py_func, py_file, *where)
            try:
                self.ensure_cache_path()
            except OSError:
                fallback = Path(tempfile.mkdtemp(prefix="holdem-numba-"))
                self._cache_path = str(fallback / f"{where[0]}-{key(where[0])}" / where[1])
                self.ensure_cache_path()
            return self

    classes = caching.CacheImpl._locator_classes
    if not any(c.__name__ == CodeKeyedCacheLocator.__name__ for c in classes):
        classes.insert(0, CodeKeyedCacheLocator)
    _installed = True
