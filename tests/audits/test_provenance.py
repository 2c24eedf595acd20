"""audits.runfolder.provenance: the commit of the code where no .git is shipped (a cluster),
and when a stamp may not be believed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from audits.jitcache import package_sha256
from audits.runfolder.provenance import PACKAGES, STAMP_NAME, code_identity

ROOT = Path(__file__).resolve().parents[2]


def _copy(tmp: Path) -> Path:
    """The four packages copied out of the checkout, as rsync or a runtime env ships them."""
    dest = tmp / "shipped"
    for name in PACKAGES:
        shutil.copytree(ROOT / name, dest / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    return dest


def _check(where: Path) -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": str(where)}
    r = subprocess.run([sys.executable, "-m", "audits.provenance", "--check"], cwd=where, env=env,
                       capture_output=True, text=True, timeout=120, check=False)
    return r.returncode, r.stdout + r.stderr


def _git_head() -> str:
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()


def test_the_checkout_is_identified_by_git():
    ident = code_identity()
    if ident["identified_by"] != "git":
        pytest.skip("not run from a git checkout")
    assert ident["git_commit"] == _git_head()
    assert set(ident["sources_sha256"]) == set(PACKAGES)


def test_a_stamp_names_the_commit_only_while_the_code_matches_it(tmp_path):
    if code_identity()["identified_by"] != "git":
        pytest.skip("not run from a git checkout")
    shipped = _copy(tmp_path)
    stamp = shipped / "audits" / STAMP_NAME
    stamp.unlink(missing_ok=True)  # a stamp of the checkout itself may have been copied
    rc, out = _check(shipped)
    assert rc == 1 and "code: unknown" in out and "python -m audits.provenance" in out
    # the stamp as `python -m audits.provenance` writes it at the checkout (not touching the
    # checkout's own file: the same function, pointed at the copy's sources)
    d = {"format": "holdem-build-info", "git_commit": _git_head(), "git_dirty": False,
         "version": "0.1.0",
         "sources_sha256": {n: package_sha256(shipped / n) for n in PACKAGES}}
    stamp.write_text(json.dumps(d))
    rc, out = _check(shipped)
    assert rc == 0 and f"code: {_git_head()}, identified by build_info" in out
    # one changed source file: the stamp no longer vouches for the code
    with open(shipped / "audits" / "io.py", "a") as f:
        f.write("\n# edited after the stamp\n")
    rc, out = _check(shipped)
    assert rc == 1 and "stale stamp" in out and "audits" in out


def test_stamp_outside_a_checkout_is_one_line_exit_2(tmp_path):
    shipped = _copy(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(shipped)}
    r = subprocess.run([sys.executable, "-m", "audits.provenance"], cwd=shipped, env=env,
                       capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "not in a git checkout" in r.stderr
