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


# ---------------------------------------------------------------- run folders (rows 2, 8, 10, 11)

SHUFFLE = ["shuffle", "--decks", "2000", "--batch-size", "1000", "--workers", "0", "--quiet"]


def _files(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def one_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    from cluster.cli import main

    capsys.readouterr()
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return code, err[0]


def test_shuffle_never_resumes_decks_it_cannot_rederive(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Row 2: the attacker prepares an os-chacha20 shuffle folder (his decks, the manifest's
    sha256 restamped, as a resumed run's): the lab's shuffle refuses it, one line, exit 2,
    nothing written; a folder holding one deck file of a killed run likewise."""
    import hashlib
    import json

    from cluster.cli import main

    out = tmp_path / "S"
    assert main([*SHUFFLE, "--generator", "os-chacha20", "--out", str(out)]) == 0
    rigged = out / "log" / "decks" / "batch-00001.parquet"
    other = tmp_path / "other"
    assert main([*SHUFFLE, "--generator", "os-chacha20", "--out", str(other)]) == 0
    shutil.copyfile(other / "log" / "decks" / "batch-00001.parquet", rigged)
    m = json.loads((out / "manifest.json").read_text())
    for f in m["files"]:
        if f["path"].endswith("batch-00001.parquet"):
            f["sha256"] = hashlib.sha256(rigged.read_bytes()).hexdigest()
    (out / "manifest.json").write_text(json.dumps(m))
    for cut in ("", "certificate.json"):
        if cut:
            (out / cut).unlink()
            (out / "log" / "decks" / "batch-00000.parquet").unlink()
        before = _files(out)
        code, line = one_line(capsys, [*SHUFFLE, "--generator", "os-chacha20", "--out",
                                       str(out)])
        assert code == 2 and "cannot re-derive them" in line and "use a new --out" in line
        assert _files(out) == before


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A small simulated run, audited, reported and signed (and the key)."""
    from cluster.cli import main

    tmp = tmp_path_factory.mktemp("signed")
    run, key = tmp / "run", tmp / "key"
    assert main(["keygen", "--out", str(key)]) == 0
    assert main(["simulate", "--hands", "2000", "--batch-size", "1000", "--population",
                 "classic", "--workers", "0", "--quiet", "--out", str(run)]) == 0
    assert main(["audit", str(run), "--workers", "0", "--quiet"]) == 0
    assert main(["report", str(run), "--no-reproduce", "--sign-key", str(key),
                 "--workers", "0"]) == 0
    return run, key


@pytest.fixture()
def signed_copy(signed: tuple[Path, Path], tmp_path: Path) -> Path:
    dst = tmp_path / "run"
    shutil.copytree(signed[0], dst)
    return dst


def _decks_csv(path: Path, n: int = 50) -> Path:
    import numpy as np

    from audits.decklog import write_csv

    rng = np.random.default_rng(5)
    write_csv(np.array([rng.permutation(52) for _ in range(n)], dtype=np.uint8), path)
    return path


@pytest.mark.parametrize("folder", ["signed", "simulate-only", "file"])
def test_shuffle_audit_never_overwrites_another_run(
        signed_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        folder: str) -> None:
    """Row 8: ``shuffle audit DECKS --out RUN`` on a signed run (or any run, or a file) is
    refused before a byte is written: its certificate and report stay as they were."""
    decks = _decks_csv(tmp_path / "decks.csv")
    out = signed_copy
    if folder == "simulate-only":
        for name in ("certificate.json", "certificate.sig", "report.html", "summary.md",
                     "audit.json"):
            (out / name).unlink()
    elif folder == "file":
        out = tmp_path / "a-file"
        out.write_text("precious")
    before = _files(out) if out.is_dir() else {out: out.read_bytes()}
    code, line = one_line(capsys, ["shuffle", "audit", str(decks), "--out", str(out)])
    assert code == 2 and str(out) in line
    assert (_files(out) if out.is_dir() else {out: out.read_bytes()}) == before


def test_shuffle_audit_reruns_into_its_own_folder(tmp_path: Path) -> None:
    from cluster.cli import main

    decks = _decks_csv(tmp_path / "decks.csv")
    out = tmp_path / "A"
    assert main(["shuffle", "audit", str(decks), "--out", str(out), "--quiet"]) in (0, 1)
    assert main(["shuffle", "audit", str(decks), "--out", str(out), "--quiet"]) in (0, 1)
    assert sorted(p.name for p in out.iterdir()) == ["certificate.json", "report.html"]


HOLD = """import sys, time
from audits.runfolder.lock import locked
with locked(sys.argv[1], "certify"):
    print("held", flush=True)
    sys.stdin.read()
"""


@pytest.mark.parametrize("command", ["certify-import", "report", "audit", "verify",
                                     "simulate", "shuffle"])
def test_a_second_command_in_a_folder_is_refused(
        signed_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        command: str) -> None:
    """Row 10: while one holdem command holds a run folder, a second one (another certify
    --import into it, a report, an audit, a verify...) is refused at once, one line, exit 2,
    and the folder is left as it was."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(signed_copy)], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        before = _files(signed_copy)
        argv = {"certify-import": ["certify", "--import", str(tmp_path), "--out",
                                   str(signed_copy), "--workers", "0", "--quiet"],
                "report": ["report", str(signed_copy), "--no-reproduce"],
                "audit": ["audit", str(signed_copy), "--workers", "0", "--quiet"],
                "verify": ["verify", str(signed_copy), "--no-reproduce"],
                "simulate": ["simulate", "--hands", "2000", "--batch-size", "1000",
                             "--population", "classic", "--workers", "0", "--quiet",
                             "--out", str(signed_copy)],
                "shuffle": [*SHUFFLE, "--out", str(signed_copy)]}[command]
        code, line = one_line(capsys, argv)
        assert code == 2 and "in use by another holdem command" in line
        assert _files(signed_copy) == before
    finally:
        holder.communicate("", timeout=60)


@pytest.mark.parametrize("where", ["top", "log", "keys"])
def test_leftovers_are_refused_by_verify_and_removed_by_a_writer(
        signed_copy: Path, signed: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
        where: str) -> None:
    """Row 11: a signed, verifying folder holding a leftover of an interrupted write (any size,
    any content) no longer verifies; the next writer (here ``audit``) removes it."""
    from cluster.cli import main

    pub = f"{signed[1]}.pub"
    assert main(["verify", str(signed_copy), "--no-reproduce", "--public-key", pub]) == 0
    planted = {"top": signed_copy / ".certificate.json.tmp-0123456789ab",
               "log": signed_copy / "log" / "no-limit" / ".batch-00000.parquet.tmp-abcdefabcdef",
               "keys": signed_copy / ".keys" / "batch-00000.npy"}[where]
    planted.parent.mkdir(exist_ok=True)
    planted.write_bytes(os.urandom(4096))
    capsys.readouterr()
    assert main(["verify", str(signed_copy), "--no-reproduce", "--public-key", pub]) == 1
    out = capsys.readouterr().out
    assert out.startswith("MISMATCH: ") and "leftover of an interrupted write" in out
    assert main(["audit", str(signed_copy), "--workers", "0", "--quiet"]) == 0
    assert not planted.exists()
