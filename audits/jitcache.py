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

``ROOT`` is ``$HOLDEM_JIT_CACHE`` (the cluster image and the runtime env set it; a leading ``~``
is the user's home), else ``$NUMBA_CACHE_DIR``, else ``$XDG_CACHE_HOME/holdem/numba``
(``~/.cache/holdem/numba``). ``holdem warmup`` (``cluster.flows.warmup``) fills it. When the first
process of a new key creates its directory, the key directories of the same label that are
neither among the ``KEEP`` most recently used nor used within ``KEEP_SECONDS`` are removed
(``make clean-cache`` removes them all).

``install()`` puts the locator first in numba's list (and types the calls between the
project's kernels without literal values: one compiled version per argument types, not one
per constant a caller passes; ``literal_args`` keeps numba's default for a kernel);
``sim/__init__.py`` and ``audits/__init__.py`` call it, so it is in place before any
``@njit(cache=True)`` of the project runs, in every process (the CLI, the tests, each Ray
worker). ``identity()`` is the per-process record of the keys (memoized at first use: the
sources as they were imported), which the provenance of every run, audit and certificate
carries and every Ray task checks against the driver's (``cluster.fanout``).

What is compiled is what was hashed: the sources are hashed once per process, and before a
function is compiled (``check_loaded``, from the locator) its file must still hash as it did and
its code object must be the one those bytes compile to. A file edited while the process runs
(a module imported after the edit) or a stale ``.pyc`` (a same-size edit that kept the mtime)
raises ``StaleCodeError`` (one line in the CLI, exit 2) instead of compiling other code under the
key. When ``ROOT`` cannot be written, a fresh private temporary root is used (mode 0700, cold).

Trust (issue 33): numba loads a cache index and its objects with ``pickle``, so whoever can write
a cache file runs code inside the audits. Two defences, both before numba unpickles a byte:

- **ownership**: the root, every key directory and every folder under it that a function's cache
  lives in must be a real folder owned by this user and not writable by group or others, and so
  must every ancestor of the root (owned by this user or root; a world-writable ancestor only with
  the sticky bit, as ``/tmp``). Otherwise this process uses a private temporary root (cold) and
  says so in one line on stderr (``untrusted_note``).
- **authentication**: every index (``.nbi``) and object (``.nbc``) this project writes carries an
  HMAC-SHA256 (``MAC_MAGIC`` + tag + numba's bytes) keyed by a per-user secret
  (``$XDG_CONFIG_HOME/holdem/jit-cache.key``, else ``~/.config/holdem/``; 32 random bytes, mode
  0600, created on first use) over the file's path relative to the root and its bytes. A file
  whose tag does not verify (planted, altered, copied from another name, written by another user
  or by numba itself) is read as absent: its function is compiled afresh and the file rewritten.
  A secret that is not a 0600 regular file of this user gives a private per-process secret and
  root (cold), with the note.

This module imports nothing of the project and only the standard library at import time.
"""

from __future__ import annotations

import atexit
import hashlib
import hmac
import importlib.util
import os
import shutil
import stat
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
# 2: files tagged (MAC_MAGIC), never shared with untagged; 3: calls between the project's
# kernels typed without literal values (``_typed_without_literals``)
KEY_FORMAT = "holdem-jit-cache-3"

def cache_root() -> Path:
    """Where the keyed caches live (see the module docstring)."""
    for var in (ENV_ROOT, "NUMBA_CACHE_DIR"):
        v = os.environ.get(var, "").strip()
        if v:
            return Path(v).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "holdem" / "numba"


def _py_files(directory: Path) -> list[Path]:
    """The package's ``*.py`` files (``__pycache__`` aside), linked folders followed (each real
    folder once), in relative-path order."""
    out: list[Path] = []
    seen: set[str] = set()
    for root, dirs, files in os.walk(directory, followlinks=True):
        real = os.path.realpath(root)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        out += [Path(root) / f for f in files if f.endswith(".py")]
    return sorted(out, key=lambda q: q.relative_to(directory).as_posix())


_FILES: dict[Path, str] = {}  # every hashed file (as imported, and resolved) -> its sha256


def package_sha256(directory: Path) -> str:
    """sha256 over the package's ``*.py`` files (relative path and bytes, in path order); each
    file's own sha256 is remembered (``check_loaded`` compares the code Python loaded with it)."""
    h = hashlib.sha256()
    for p in _py_files(directory):
        rel = p.relative_to(directory).as_posix().encode()
        data = p.read_bytes()
        _FILES[p.absolute()] = _FILES[p.resolve()] = hashlib.sha256(data).hexdigest()
        h.update(len(rel).to_bytes(8, "little") + rel + len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


class StaleCodeError(RuntimeError):
    """The code this process is about to compile is not the code its key was hashed from (a
    source edited while the process ran, a stale ``.pyc``): one line, nothing compiled or
    cached from it."""


@cache
def _file_code(py_file: str) -> Any:
    """The module code object of ``py_file`` compiled from the bytes the key hashed, read once
    per process (``StaleCodeError`` when the file is not, or no longer, those bytes)."""
    sources()
    path = Path(py_file)
    want = _FILES.get(path.absolute()) or _FILES.get(path.resolve())
    if want is None:
        raise StaleCodeError(f"{py_file}: compiled from a file the compiled-code key did not "
                             "hash (added while this process ran?): run the command again")
    try:
        data = path.read_bytes()
    except OSError as e:
        raise StaleCodeError(f"{py_file}: cannot be read again ({e.strerror})") from None
    if hashlib.sha256(data).hexdigest() != want:
        raise StaleCodeError(f"{py_file}: changed after this process hashed its sources (edited "
                             "while it ran?): run the command again")
    return compile(data, py_file, "exec", dont_inherit=True)  # not this module's __future__


def _find_code(code: Any, name: str, line: int) -> Any:
    for c in code.co_consts:
        if hasattr(c, "co_code"):
            if c.co_name == name and c.co_firstlineno == line:
                return c
            found = _find_code(c, name, line)
            if found is not None:
                return found
    return None


def check_loaded(py_func: Any, py_file: str) -> None:
    """Raise ``StaleCodeError`` unless ``py_func`` is compiled from the file's bytes that the key
    hashed: the file must still hash as it did (else it changed while this process ran), and
    Python's code object of the function must be the one those bytes compile to (else Python
    loaded something else: a stale ``.pyc``)."""
    code = py_func.__code__
    fresh = _find_code(_file_code(py_file), code.co_name, code.co_firstlineno)
    if fresh is None or fresh != code:
        name = getattr(py_func, "__qualname__", code.co_name)
        raise StaleCodeError(f"{py_file}: the code Python loaded for {name} is not the file's "
                             "(a stale .pyc in its __pycache__?): remove it and run again")


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
            out[name] = Path(paths[0]).absolute()
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


@cache
def _label_of(py_file: str) -> tuple[str, Path] | None:
    """(package, the file's directory relative to the package's parent) for a file of the four
    packages (as imported, or with links resolved), else None (numba's own locators then handle
    it)."""
    for path in (Path(py_file).absolute(), Path(py_file).resolve()):
        for name, d in _package_dirs().items():
            for root in (d, d.resolve()):
                if path.is_relative_to(root):
                    return name, path.parent.relative_to(root.parent)
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


_touched: dict[str, Path] = {}  # label -> its key directory in this process

# ---------------------------------------------------------------- trust (issue 33)

MAC_MAGIC = b"holdem-jit-mac-1\n"  # the first bytes of every cache file this project writes
MAC_BYTES = 32  # an HMAC-SHA256 tag
SECRET_BYTES = 32
_AUTH: dict[str, tuple[str, bytes]] = {}  # a function's cache folder -> (its root, the secret)
_ROOTS: dict[str, tuple[Path, bytes, bool]] = {}  # root as named -> (root used, secret, trusted)
rejected: list[str] = []  # cache files this process read as absent (their tag did not verify)
_noted: list[str] = []


def secret_path() -> Path:
    """The per-user secret every cache file's tag is keyed by."""
    xdg = os.environ.get("XDG_CONFIG_HOME", "").strip()
    base = Path(xdg) if xdg else Path.home() / ".config"
    return base / "holdem" / "jit-cache.key"


def unsafe_folder(path: Path, *, ancestor: bool = False) -> str | None:
    """Why another user could change what is in ``path`` (None: no one but this user, or root
    for an ancestor, can). An ancestor writable by others is allowed with the sticky bit."""
    try:
        st = os.lstat(path)
    except OSError as e:
        return f"{path} cannot be examined ({e.strerror})"
    if not stat.S_ISDIR(st.st_mode):
        return f"{path} is not a folder (a link or a file)"
    if st.st_uid != os.getuid() and not (ancestor and st.st_uid == 0):
        return f"{path} is owned by another user (uid {st.st_uid})"
    if st.st_mode & 0o022 and not (ancestor and st.st_mode & stat.S_ISVTX):
        return f"{path} is writable by group or others (mode {st.st_mode & 0o7777:o})"
    return None


def unsafe_chain(path: Path) -> str | None:
    """``unsafe_folder`` of the folder (links resolved) and of every ancestor."""
    real = Path(os.path.realpath(path))
    for a in reversed(real.parents):
        why = unsafe_folder(a, ancestor=True)
        if why:
            return why
    return unsafe_folder(real)


def _makedirs_private(path: Path) -> None:
    """Create the missing folders of ``path`` with mode 0700 (never group/world-writable,
    whatever the umask)."""
    missing = []
    p = path
    while not os.path.lexists(p):
        missing.append(p)
        p = p.parent
    for p in reversed(missing):
        try:
            p.mkdir(mode=0o700)
        except FileExistsError:
            pass


def _note(why: str) -> None:
    """One line on stderr, once per process, when a cache is not trusted."""
    if not _noted:
        _noted.append(why)
        print(f"holdem: note: compiled-code cache not used ({why}); this process compiles into "
              "a private, cold cache", file=sys.stderr)


def _create_secret(path: Path) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{os.urandom(4).hex()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, os.urandom(SECRET_BYTES))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)  # atomic, and never over a secret another process just made
    except FileExistsError:
        pass
    finally:
        os.unlink(tmp)


@cache
def user_secret() -> bytes | str:
    """The per-user secret (created on first use), or why there is none this process trusts."""
    path = secret_path()
    try:
        _makedirs_private(path.parent)
    except OSError as e:
        return f"{path.parent} cannot be made ({e.strerror})"
    why = unsafe_chain(path.parent)
    if why:
        return why
    for _ in range(2):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except FileNotFoundError:
            try:
                _create_secret(path)
            except OSError as e:
                return f"{path} cannot be made ({e.strerror})"
            continue
        except OSError as e:
            return f"{path} cannot be read ({e.strerror})"
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if (not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid()
                    or st.st_mode & 0o077):
                return (f"{path} must be a regular file of this user that only it can read "
                        "(mode 0600)")
            data = f.read(SECRET_BYTES + 1)
        if len(data) != SECRET_BYTES:
            return f"{path} is not a {SECRET_BYTES}-byte secret"
        return data
    return f"{path} cannot be made"


@cache
def _process_secret() -> bytes:
    return os.urandom(SECRET_BYTES)


def _private_root() -> Path:
    """A fresh directory only this process knows (mode 0700): a cold cache, never one someone
    else could have planted where a predictable name would be."""
    root = Path(tempfile.mkdtemp(prefix="holdem-numba-"))
    pid = os.getpid()
    # removed when this process ends (a forked child's exit leaves its parent's cache alone):
    # one cold cache a process, never a pile of them in the temporary folder
    def remove() -> None:
        if os.getpid() == pid:
            shutil.rmtree(root, ignore_errors=True)

    atexit.register(remove)
    return root


def _private() -> tuple[Path, bytes, bool]:
    return _private_root(), _process_secret(), False


def trusted_root(root: Path | None = None) -> tuple[Path, bytes, bool]:
    """(the root this process uses, the secret its files are tagged with, whether it is the
    named root): the named root when it and its ancestors are safe (``unsafe_chain``) and the
    user's secret is, else a private root and secret (with the note)."""
    root = cache_root() if root is None else root
    if str(root) in _ROOTS:
        return _ROOTS[str(root)]
    try:
        _makedirs_private(root)
        why = unsafe_chain(root)
    except OSError as e:
        why = f"{root} cannot be made ({e.strerror})"
    secret = user_secret() if why is None else None
    if isinstance(secret, str):
        why = secret
    if why is not None or not isinstance(secret, bytes):
        _note(why or "no secret")
        chosen = _private()
    else:
        chosen = (root, secret, True)
    _ROOTS[str(root)] = chosen
    return chosen


def tag(secret: bytes, rel: str, body: bytes) -> bytes:
    """The HMAC-SHA256 of a cache file: its path relative to the root, and its bytes."""
    rb = rel.encode()
    return hmac.new(secret, MAC_MAGIC + len(rb).to_bytes(8, "little") + rb + body,
                    hashlib.sha256).digest()


def key_dir(label: str) -> Path:
    """``ROOT/<label>-<key>``, created (and marked used) on first use in this process; a new one
    prunes its label's old ones. When ROOT cannot be written or is not trusted: a private
    temporary root (cold, never an unkeyed cache, never a shared predictable folder)."""
    if label in _touched:
        return _touched[label]
    name = f"{label}-{key(label)}"
    root, _secret, trusted = trusted_root()
    d = root / name
    fresh = False
    if trusted:
        try:
            fresh = not os.path.lexists(d)
            _makedirs_private(d)
            why = unsafe_folder(d)
            if why is None:
                (d / USED_MARK).touch()
        except OSError as e:
            why = f"{d} cannot be written ({e.strerror})"
        if why is not None:
            _note(why)
            root, secret, trusted = _private()
            _ROOTS[str(cache_root())] = (root, secret, trusted)
            d = root / name
            _makedirs_private(d)
            fresh = False
    _touched[label] = d
    if fresh:
        _prune(root, label, d)
    return d


def _authenticated_file(base: Any) -> Any:
    """numba's ``IndexDataCacheFile`` with every file of a project function's cache tagged on
    write and verified on read, before a byte of it is unpickled."""
    import io
    import pickle

    class AuthenticatedCacheFile(base):
        def _auth(self) -> tuple[str, bytes] | None:
            return _AUTH.get(self._cache_path)

        def _lock(self, exclusive: bool) -> int | None:
            """A lock on this function's index (``<index>.lock``, flock): numba's ``save``
            reads the index, numbers a new entry's object file after the entries it saw and
            rewrites the index, so two processes saving two signatures of one function at once
            (a parallel ``holdem warmup``, Ray workers) could each number theirs ``.1`` and
            leave the index naming the other's machine code. ``None``: no lock to be had
            (no ``fcntl``, or the folder cannot hold one), numba's behaviour as is."""
            try:
                import fcntl
            except ImportError:  # not POSIX
                return None
            try:
                fd = os.open(self._index_path + ".lock",
                             os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            except OSError:
                return None
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            return fd

        def save(self, key: Any, data: Any) -> None:
            fd = self._lock(True)
            try:
                super().save(key, data)
            finally:
                if fd is not None:
                    os.close(fd)  # releases the lock

        def load(self, key: Any) -> Any:
            fd = self._lock(False)
            try:
                return super().load(key)
            finally:
                if fd is not None:
                    os.close(fd)

        def _verified(self, path: str, auth: tuple[str, bytes]) -> bytes | None:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)  # FileNotFoundError: absent
            with os.fdopen(fd, "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    blob = b""
                else:
                    blob = f.read()
            head = len(MAC_MAGIC) + MAC_BYTES
            body = blob[head:]
            rel = os.path.relpath(path, auth[0]).replace(os.sep, "/")
            if (len(blob) < head or not blob.startswith(MAC_MAGIC) or not hmac.compare_digest(
                    blob[len(MAC_MAGIC):head], tag(auth[1], rel, body))):
                rejected.append(path)
                return None
            return body

        def _signed_write(self, path: str, body: bytes, auth: tuple[str, bytes]) -> None:
            rel = os.path.relpath(path, auth[0]).replace(os.sep, "/")
            with self._open_for_write(path) as f:
                f.write(MAC_MAGIC + tag(auth[1], rel, body) + body)

        def _load_index(self) -> Any:
            auth = self._auth()
            if auth is None:
                return super()._load_index()
            try:
                body = self._verified(self._index_path, auth)
            except OSError:
                return {}
            if body is None:
                return {}
            f = io.BytesIO(body)
            if pickle.load(f) != self._version:
                return {}
            stamp, overloads = pickle.loads(f.read())
            return overloads if stamp == self._source_stamp else {}

        def _save_index(self, overloads: Any) -> None:
            auth = self._auth()
            if auth is None:
                return super()._save_index(overloads)
            body = (pickle.dumps(self._version, protocol=-1)
                    + self._dump((self._source_stamp, overloads)))
            self._signed_write(self._index_path, body, auth)

        def _load_data(self, name: str) -> Any:
            auth = self._auth()
            if auth is None:
                return super()._load_data(name)
            body = self._verified(self._data_path(name), auth)
            if body is None:
                raise OSError(f"{name}: cache object failed its authentication")  # -> a miss
            return pickle.loads(body)

        def _save_data(self, name: str, data: Any) -> None:
            auth = self._auth()
            if auth is None:
                return super()._save_data(name, data)
            self._signed_write(self._data_path(name), self._dump(data), auth)

    return AuthenticatedCacheFile


LITERAL_ARGS = "_holdem_literal_args"


def literal_args(py_func: Any) -> Any:
    """Mark a kernel (under its ``@njit``) to be compiled for the constants its compiled callers
    pass, numba's default: for a hot helper whose code folds with them (``sim.rng.below``:
    the mask of ``below(rs, 100)`` is a constant), at one compile per distinct constant."""
    setattr(py_func, LITERAL_ARGS, True)
    return py_func


def _typed_without_literals(dispatcher: Any) -> None:
    """A project kernel called from compiled code is compiled for its arguments' types, never
    for the constants a caller passes (numba's default types a constant argument as its value,
    ``Literal[int](11)``, and compiles the callee again for every distinct constant a call site
    passes: ``sim.engine._record_row`` was compiled 24 times, the PHH scanner's ``_hand`` twice,
    a fifth of the install's compile time). One version per argument types; LLVM still sees
    the constants of a call it inlines. Calls from Python were already typed this way. A kernel
    marked ``literal_args`` keeps numba's default."""
    from numba.core.types.misc import unliteral

    base = dispatcher.get_call_template
    if getattr(base, "_holdem_unliteral", False):
        return

    def get_call_template(self: Any, args: Any, kws: Any) -> Any:
        if (getattr(self.py_func, "__module__", "").split(".")[0] in PACKAGES
                and not getattr(self.py_func, LITERAL_ARGS, False)):
            args = tuple(unliteral(a) for a in args)
            kws = {k: unliteral(v) for k, v in kws.items()}
        return base(self, args, kws)

    get_call_template._holdem_unliteral = True  # type: ignore[attr-defined]
    dispatcher.get_call_template = get_call_template


_installed = False


def install() -> None:
    """Put the keyed locator first in numba's list of cache locators, numba's cache files
    authenticated, and calls between the project's kernels typed without literal values
    (idempotent)."""
    global _installed
    if _installed:
        return
    from numba.core import caching

    class CodeKeyedCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        """A function of the project: cached under its closure's key directory, stamped with the
        key (an index written under another key is never read), every file tagged."""

        def __init__(self, py_func: Any, py_file: str, label: str, rel: Path) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._label = label
            self._rel = rel
            self._cache_path = str(key_dir(label) / rel)

        def get_cache_path(self) -> str:
            return self._cache_path

        def get_source_stamp(self) -> str:
            return key(self._label)

        def ensure_cache_path(self) -> None:
            """The function's folder: made 0700, every folder from the key directory down
            owned by this user and not writable by others (else a private root, with the
            note), registered with its root and secret for the tags."""
            kd = key_dir(self._label)
            root = str(kd.parent)
            auth_root = _ROOTS.get(str(cache_root()))
            secret = auth_root[1] if auth_root and Path(root) == auth_root[0] else None
            path = kd / self._rel
            why = None
            try:
                _makedirs_private(path)
                for p in (path, *path.parents):
                    why = why or unsafe_folder(p)
                    if p == kd:
                        break
            except OSError as e:
                why = f"{path} cannot be written ({e.strerror})"
            if why is not None or secret is None:
                if why is not None:
                    _note(why)
                priv, secret, _ = _private()
                path = priv / kd.name / self._rel
                _makedirs_private(path)
                root = str(priv)
            self._cache_path = str(path)
            _AUTH[self._cache_path] = (root, secret)

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            where = _label_of(py_file)
            if where is None:
                return None
            check_loaded(py_func, py_file)
            self = cls(py_func, py_file, *where)
            self.ensure_cache_path()
            return self

    classes = caching.CacheImpl._locator_classes
    if not any(c.__name__ == CodeKeyedCacheLocator.__name__ for c in classes):
        classes.insert(0, CodeKeyedCacheLocator)
    if caching.IndexDataCacheFile.__name__ != "AuthenticatedCacheFile":
        caching.IndexDataCacheFile = _authenticated_file(caching.IndexDataCacheFile)
    from numba.core.dispatcher import Dispatcher

    _typed_without_literals(Dispatcher)
    _installed = True
