"""Issue 33, "no door for the party under audit": each row of the red-team review, reproduced the
way an attacker (or a hostile folder or file) would, and the defence asserted; variations too.

Compiled-code cache (``audits.jitcache``): a planted or altered cache file is never unpickled; a
cache root or key folder another user can write is never used (a private cache, one note).
"""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = ("from audits import jitcache; from audits.evaluator import score5; "
         "print(score5(48, 44, 40, 36, 32)); print('rejected', len(jitcache.rejected))")


class Evil:
    """What an attacker pickles: unpickling it runs a command (here: touch a marker file)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return os.system, (f"touch {self.marker}",)


def _jit(tmp: Path, *, root: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOLDEM_JIT_CACHE": str(root or tmp / "c"),
           "XDG_CONFIG_HOME": str(tmp / "cfg")}
    env.pop("NUMBA_CACHE_DIR", None)
    return subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                          text=True, timeout=300, check=True)


def _index(root: Path) -> Path:
    (nbi,) = root.glob("audits-*/audits/evaluator.score5-*.nbi")
    return nbi


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A cache root the user filled (score5 compiled and cached), and the score it returns."""
    tmp = tmp_path_factory.mktemp("jit")
    r = _jit(tmp)
    return tmp, r.stdout.split()[0]


def _copy(honest: tuple[Path, str], tmp: Path) -> Path:
    shutil.copytree(honest[0] / "c", tmp / "c")
    shutil.copytree(honest[0] / "cfg", tmp / "cfg")
    return tmp / "c"


def test_honest_cache_is_loaded_and_tagged(honest: tuple[Path, str], tmp_path: Path) -> None:
    root = _copy(honest, tmp_path)
    r = _jit(tmp_path)
    assert r.stdout.split() == [honest[1], "rejected", "0"] and not r.stderr
    from audits import jitcache
    assert _index(root).read_bytes().startswith(jitcache.MAC_MAGIC)
    key = tmp_path / "cfg" / "holdem" / "jit-cache.key"
    assert key.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("where", ["index", "object", "index-restamped"])
def test_planted_cache_file_is_never_unpickled(honest: tuple[Path, str], tmp_path: Path,
                                               where: str) -> None:
    """Row 1: whoever can write the cache folder plants an index (or an object) that runs code
    when numba unpickles it; a forger without the user's secret restamps the tag with his own."""
    from audits import jitcache
    root = _copy(honest, tmp_path)
    marker = tmp_path / "pwned"
    evil = pickle.dumps(Evil(marker))
    nbi = _index(root)
    if where == "index":
        nbi.write_bytes(evil)  # numba's own format: a bare pickle
    elif where == "object":
        (nbc,) = nbi.parent.glob("evaluator.score5-*.1.nbc")
        nbc.write_bytes(evil)
    else:
        rel = nbi.relative_to(root).as_posix()
        nbi.write_bytes(jitcache.MAC_MAGIC + jitcache.tag(b"x" * 32, rel, evil) + evil)
    r = _jit(tmp_path)
    assert not marker.exists()
    out = r.stdout.split()
    assert out[:2] == [honest[1], "rejected"] and int(out[2]) >= 1  # read as absent
    assert _index(root).read_bytes().startswith(jitcache.MAC_MAGIC)  # compiled afresh, retagged


def test_object_moved_under_another_name_is_refused(honest: tuple[Path, str],
                                                    tmp_path: Path) -> None:
    """A genuine, tagged object of one function copied over another's: the tag names the file."""
    root = _copy(honest, tmp_path)
    nbcs = sorted(root.glob("audits-*/audits/evaluator.*.1.nbc"))
    (score,) = [p for p in nbcs if ".score5-" in p.name]
    other = next(p for p in nbcs if p != score)
    shutil.copyfile(other, score)
    out = _jit(tmp_path).stdout.split()
    assert out[:2] == [honest[1], "rejected"] and int(out[2]) >= 1


@pytest.mark.parametrize("door", ["root-other-owner", "key-group-writable", "root-link-out",
                                  "secret-readable"])
def test_cache_others_can_write_is_not_used(honest: tuple[Path, str], tmp_path: Path,
                                            door: str) -> None:
    """A cache root or key folder another user owns or can write (or a secret others can read):
    never loaded from, a private cold cache instead, one note on stderr."""
    root = _copy(honest, tmp_path)
    marker = tmp_path / "pwned"
    nbi = _index(root)
    named = root
    if door == "root-other-owner":
        os.chown(root, 4242, 4242) if os.getuid() == 0 else pytest.skip("needs root to chown")
    elif door == "key-group-writable":
        nbi.parent.parent.parent.chmod(0o775)
    elif door == "root-link-out":
        (tmp_path / "open").mkdir(mode=0o777)
        os.chmod(tmp_path / "open", 0o777)
        shutil.move(root, tmp_path / "open" / "c")
        named = tmp_path / "link"
        named.symlink_to(tmp_path / "open" / "c")
        nbi = _index(tmp_path / "open" / "c")
    else:
        (tmp_path / "cfg" / "holdem" / "jit-cache.key").chmod(0o644)
    # the attacker's planted index is tagged with the real secret (he could read it, or it is
    # his own cache): only the folder checks keep it out
    from audits import jitcache
    secret = (tmp_path / "cfg" / "holdem" / "jit-cache.key").read_bytes()
    evil = pickle.dumps(Evil(marker))
    base = tmp_path / "open" / "c" if door == "root-link-out" else root
    rel = nbi.relative_to(base).as_posix()
    nbi.write_bytes(jitcache.MAC_MAGIC + jitcache.tag(secret, rel, evil) + evil)
    r = _jit(tmp_path, root=named)
    assert not marker.exists()
    assert r.stdout.split()[0] == honest[1]
    note = r.stderr.strip().splitlines()
    assert len(note) == 1 and "compiled-code cache not used" in note[0], r.stderr
