"""Which code made a run, also where there is no ``.git``: on a cluster.

A run's files name the code that made them (``manifest.json``, ``audit.json``, the certificate).
From a git checkout that is ``git rev-parse HEAD`` plus a dirty flag. On a cluster the code
arrives without ``.git`` (the launcher's rsync and the runtime env's upload exclude it, the
image copies only the packages), so the commit is written down where ``.git`` still exists:

``python -m audits.provenance``
    run at the repository root before ``docker build``, ``ray up`` or ``ray job submit``: writes
    ``audits/build_info.json`` (git-ignored; shipped with the packages, installed as package data)
    with the commit, the dirty flag and the sha256 of every package's Python sources.
    ``--check`` prints what a run would record here and exits 1 when the code cannot be named.

At run time ``code_identity()`` asks git when the packages are loaded from a checkout; else it
reads ``build_info.json`` and trusts it only if the sources loaded now hash to what was stamped
(a stamp left from an older commit names no commit: ``git_commit`` is then ``"unknown"`` and
``identified_by`` says why).

``provenance()`` is the block ``manifest.json`` and ``audit.json`` record (the certificate
copies both): ``code`` (the above), ``versions`` (holdem, Python, numba, numpy, pyarrow, scipy,
ray) and ``command`` (``sys.argv`` of the process that wrote the file).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from audits import jitcache  # stdlib only, imports nothing of the project (a test checks)
from audits.jitcache import PACKAGES
from audits.runfolder import storage

STAMP_NAME = "build_info.json"
STAMP_FORMAT = "holdem-build-info"
UNKNOWN = "unknown"


def package_dir(name: str) -> Path | None:
    """The directory ``import name`` loads the package from (None if it is not importable)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]).resolve() if locations else None


def sources_sha256() -> dict[str, str]:
    """``package -> package_sha256`` of the four packages as loaded in this process (hashed once
    per process, by ``audits.jitcache``: the same hashes its compiled caches are keyed by)."""
    return dict(jitcache.sources())


def _git(directory: Path, *args: str) -> str | None:
    try:
        r = subprocess.run(["git", "-C", str(directory), *args], capture_output=True, text=True,
                           timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout if r.returncode == 0 else None


def git_state(directory: Path) -> tuple[str, bool] | None:
    """(commit, dirty) of the checkout holding ``directory``, or None outside one. Dirty: a
    tracked or new file of the packages or pyproject.toml differs from the commit (the stamp
    itself excepted)."""
    head = (_git(directory, "rev-parse", "HEAD") or "").strip()
    top = (_git(directory, "rev-parse", "--show-toplevel") or "").strip()
    if len(head) != 40 or not top:
        return None
    status = _git(Path(top), "status", "--porcelain", "--", *PACKAGES, "pyproject.toml")
    if status is None:
        return None
    stamp = f"audits/{STAMP_NAME}"
    changed = [ln for ln in status.splitlines() if ln.strip() and not ln.endswith(stamp)]
    return head, bool(changed)


def stamp_path() -> Path | None:
    d = package_dir("audits")
    return d / STAMP_NAME if d else None


def read_stamp() -> dict[str, Any] | None:
    p = stamp_path()
    if p is None or not p.is_file():
        return None
    try:
        d = json.loads(p.read_text())
    except (OSError, ValueError):
        return None
    return d if isinstance(d, dict) and d.get("format") == STAMP_FORMAT else None


@lru_cache(maxsize=1)
def code_identity() -> dict[str, Any]:
    """``git_commit``, ``git_dirty`` (None when unknown), ``identified_by`` (``"git"``,
    ``"build_info"`` or why neither could name it), ``sources_sha256`` of the loaded code and
    ``compiled``: the keys its numba caches are keyed by (``audits.jitcache``), package by
    package: the machine code that ran was compiled from exactly these sources."""
    sources = sources_sha256()
    compiled = jitcache.identity()["keys"]
    here = package_dir("audits")
    live = git_state(here) if here else None
    if live is not None:
        return {"git_commit": live[0], "git_dirty": live[1], "identified_by": "git",
                "sources_sha256": sources, "compiled": compiled}
    stamp = read_stamp()
    if stamp is None:
        why = (f"no git checkout and no audits/{STAMP_NAME} (run `python -m audits.provenance` at "
               "the repository root before building or submitting)")
        return {"git_commit": UNKNOWN, "git_dirty": None, "identified_by": why,
                "sources_sha256": sources, "compiled": compiled}
    if stamp.get("sources_sha256") != sources:
        stale = sorted(k for k in PACKAGES
                       if (stamp.get("sources_sha256") or {}).get(k) != sources[k])
        why = (f"audits/{STAMP_NAME} names commit {str(stamp.get('git_commit'))[:12]} but the "
               f"loaded {', '.join(stale)} differ from it (stale stamp)")
        return {"git_commit": UNKNOWN, "git_dirty": None, "identified_by": why,
                "sources_sha256": sources, "compiled": compiled}
    return {"git_commit": str(stamp.get("git_commit", UNKNOWN)),
            "git_dirty": stamp.get("git_dirty"), "identified_by": "build_info",
            "sources_sha256": sources, "compiled": compiled}


def _version(module: str) -> str:
    try:
        m = __import__(module)
        return str(getattr(m, "__version__", UNKNOWN))
    except Exception:  # noqa: BLE001 - a missing or broken package is recorded, not fatal
        return UNKNOWN


def holdem_version() -> str:
    try:
        from importlib.metadata import version

        return version("holdem")
    except Exception:  # noqa: BLE001
        stamp = read_stamp() or {}
        return str(stamp.get("version", UNKNOWN))


def versions() -> dict[str, str]:
    return {
        "holdem": holdem_version(),
        "python": sys.version.split()[0],
        **{m: _version(m) for m in ("numba", "numpy", "pyarrow", "scipy", "ray")},
    }


def provenance() -> dict[str, Any]:
    """The block recorded in manifest.json and audit.json (see the module docstring)."""
    return {"code": dict(code_identity()), "versions": versions(), "command": list(sys.argv)}


# ---------------------------------------------------------------- writing the stamp


def _project_version(root: Path) -> str:
    import tomllib

    try:
        return str(tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"])
    except (OSError, KeyError, ValueError):
        return UNKNOWN


def write_stamp() -> tuple[Path, dict[str, Any]]:
    """Write ``audits/build_info.json`` for the checkout the packages are loaded from. Raises
    ``ValueError`` (one line) outside a git checkout."""
    here = package_dir("audits")
    live = git_state(here) if here else None
    if here is None or live is None:
        raise ValueError(f"{here or 'sim'}: not in a git checkout: nothing to stamp")
    code_identity.cache_clear()
    d = {"format": STAMP_FORMAT, "git_commit": live[0], "git_dirty": live[1],
         "version": _project_version(here.parent), "sources_sha256": sources_sha256(),
         "stamped": datetime.now(UTC).isoformat(timespec="seconds")}
    path = here / STAMP_NAME
    storage.write_atomic(path, json.dumps(d, indent=2) + "\n")
    return path, d


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m audits.provenance", description=(
        f"write audits/{STAMP_NAME} (the commit of this checkout, for runs made where .git is "
        "not shipped), or with --check print what a run records here"))
    p.add_argument("--check", action="store_true",
                   help="print the code identity; exit 1 when it names no commit")
    args = p.parse_args(argv)
    if args.check:
        ident = code_identity()
        dirty = {True: " (dirty)", False: "", None: ""}[ident["git_dirty"]]
        print(f"code: {ident['git_commit']}{dirty}, identified by {ident['identified_by']}")
        return 0 if ident["git_commit"] != UNKNOWN else 1
    try:
        path, d = write_stamp()
    except ValueError as e:
        print(f"holdem: error: {e}", file=sys.stderr)
        return 2
    print(f"{path}: commit {d['git_commit']}{' (dirty)' if d['git_dirty'] else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
