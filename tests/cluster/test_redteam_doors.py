"""Issue 33, "no door for the party under audit": each row of the red-team review, reproduced the
way an attacker (or a hostile folder or file) would, and the defence asserted; variations too.

Compiled-code cache (``audits.jitcache``): a planted or altered cache file is never unpickled; a
cache root or key folder another user can write is never used (a private cache, one note).
"""

from __future__ import annotations

import json
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


# ---------------------------------------------------------------- signatures (rows 3, 4, 5, 12)


@pytest.fixture()
def operator(tmp_path: Path) -> Path:
    from tests.cluster.test_import_reproduce import CLEAN, MOVED

    d = tmp_path / "operator"
    d.mkdir()
    (d / "clean.phhs").write_text(CLEAN)
    (d / "moved.phhs").write_text(MOVED)
    return d


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    from cluster.cli import main

    capsys.readouterr()
    code = main(list(argv))
    cap = capsys.readouterr()
    return code, cap.out + cap.err


def test_a_subset_of_the_audits_is_never_signed(
        operator: Path, tmp_path: Path, signed: tuple[Path, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    """Row 3: the operator's wrong payout fails ``outcome``; he audits everything else
    (``--only``) and asks for a signature: refused, exit 1, nothing signed. A simulated run
    audited without ``deal`` likewise."""
    run, key = tmp_path / "imp", signed[1]
    assert _cli(capsys, "import", str(operator / "moved.phhs"), "--out", str(run),
                "--workers", "0", "--quiet")[0] == 0
    code, _ = _cli(capsys, "audit", str(run), "--only", "integrity,chips,rotation,payouts,"
                   "betting", "--workers", "0", "--quiet")
    assert code == 0  # the subset passes
    code, out = _cli(capsys, "report", str(run), "--sign-key", str(key), "--workers", "0",
                     "--sources", str(operator))
    assert code == 1 and "audit(s) of a certificate not run" in out and "outcome" in out, out
    assert not (run / "certificate.sig").exists()
    # unsigned, the subset's certificate says in its first line what it does not vouch for
    assert _cli(capsys, "report", str(run), "--workers", "0", "--sources", str(operator))[0] == 0
    cert = json.loads((run / "certificate.json").read_text())
    assert cert["verdict_text"].startswith("PASS, LIMITED: "), cert["verdict_text"]
    assert any(x.startswith("outcome was not audited") for x in cert["limitations"])
    assert any(x.startswith("stakes was not audited") for x in cert["limitations"])

    sim = tmp_path / "sim"
    shutil.copytree(signed[0], sim)
    (sim / "certificate.sig").unlink()
    names = "integrity,stakes,chips,rotation,payouts,outcome,betting,coverage,uniformity"
    assert _cli(capsys, "audit", str(sim), "--only", names, "--workers", "0", "--quiet")[0] == 0
    code, out = _cli(capsys, "report", str(sim), "--no-reproduce", "--sign-key", str(key),
                     "--workers", "0")
    assert code == 1 and "(deal)" in out and not (sim / "certificate.sig").exists(), out


def test_an_import_is_signed_only_with_its_sources(
        operator: Path, tmp_path: Path, signed: tuple[Path, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    """Row 4: the operator edits his imported log after the import (the wrong payout made
    exact, digests and hashes restamped) and sends the folder without its sources: the lab's
    ``report --sign-key`` refuses to sign (nothing binds the log to the sources); given the
    sources (``--sources DIR``) the forgery is found and the certificate FAILs."""
    from tests.cluster.test_import_reproduce import forge_after_import

    run, key = tmp_path / "forged", signed[1]
    code, out = _cli(capsys, "certify", "--import", str(operator / "moved.phhs"), "--out",
                     str(run), "--workers", "0", "--quiet", "--rake", "5:3")
    assert code == 1, out
    forge_after_import(run)
    assert _cli(capsys, "audit", str(run), "--workers", "0", "--quiet")[0] == 0
    lab = tmp_path / "lab"
    shutil.copytree(run, lab / "received")  # the lab works from another folder
    received = lab / "received"
    cwd = os.getcwd()
    try:
        os.chdir(lab)
        code, out = _cli(capsys, "report", "received", "--sign-key", str(key), "--workers", "0")
        assert code == 1 and "signed only when its sources are imported again" in out, out
        assert not (received / "certificate.sig").exists()
        code, out = _cli(capsys, "report", "received", "--sign-key", str(key), "--workers", "0",
                         "--sources", str(operator))
        assert code == 0, out
    finally:
        os.chdir(cwd)
    import json

    cert = json.loads((received / "certificate.json").read_text())
    assert cert["verdict"] == "FAIL" and cert["reproduction"]["status"] == "DIFFERS"


def test_a_source_changed_after_certification_fails_verify(
        operator: Path, tmp_path: Path, signed: tuple[Path, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    """Row 5: a certified, signed import (REPRODUCED); the source is edited afterwards: verify
    with the key and the sources exits 1 naming it (it said NOT REPRODUCIBLE and exited 0)."""
    run, key = tmp_path / "run", signed[1]
    code, out = _cli(capsys, "certify", "--import", str(operator / "clean.phhs"), "--out",
                     str(run), "--workers", "0", "--quiet", "--sign-key", str(key))
    assert code == 0 and "reproduction: REPRODUCED" in out, out
    from cluster.flows.signing import key_id, load_public_key

    kid = key_id(load_public_key(f"{key}.pub"))
    assert f"signed by key: {kid}" in out  # row 12: the key id printed with every signature
    pub = ["--public-key", f"{key}.pub", "--workers", "0", "--sources", str(operator)]
    code, out = _cli(capsys, "verify", str(run), *pub)
    assert code == 0 and "REPRODUCED" in out and kid in out, out
    src = operator / "clean.phhs"
    src.write_text(src.read_text().replace("starting_stacks = [121, 80, 99]",
                                           "starting_stacks = [80, 121, 99]"))
    code, out = _cli(capsys, "verify", str(run), *pub)
    assert code == 1 and out.startswith("MISMATCH: source ") and "clean.phhs" in out, out
    # moved under another name in the sources folder: the same
    src.rename(operator / "renamed.phhs")
    code, out = _cli(capsys, "verify", str(run), *pub)
    assert code in (0, 1) and "REPRODUCED:" not in out.replace("NOT REPRODUCIBLE", ""), out


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o660])
def test_a_signing_key_others_can_read_is_refused(
        signed_copy: Path, signed: tuple[Path, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str], mode: int) -> None:
    """Row 12: a private key readable (or writable) by group or others signs nothing: one line,
    exit 2, no signature written."""
    key = tmp_path / "key"
    shutil.copyfile(signed[1], key)
    key.chmod(mode)
    (signed_copy / "certificate.sig").unlink()
    code, line = one_line(capsys, ["report", str(signed_copy), "--no-reproduce", "--sign-key",
                                   str(key), "--workers", "0"])
    assert code == 2 and "readable by group or others" in line and "chmod 600" in line
    assert not (signed_copy / "certificate.sig").exists()


# ---------------------------------------------------------------- what the lab reads (row 6)


def _point_sources_at(run: Path, paths: list[str]) -> None:
    """The forger's manifest: its sources are files of the lab's machine; run_id restamped in
    the manifest and every row (digests recomputed), as a consistent forgery would."""
    import json

    from cluster.flows.import_histories import import_run_id
    from tests.audits.forgery import RunForger

    f = RunForger(run)
    f.manifest["sources"] = [dict(f.manifest["sources"][0], path=p, sha256="0" * 64)
                             for p in paths]
    rid = import_run_id(f.manifest["sources"])
    f.manifest["run_id"] = rid
    for r in f.rows:
        r["run_id"] = rid
    f.write()
    json.loads((run / "manifest.json").read_text())


def test_the_manifest_never_chooses_what_the_lab_reads(
        operator: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Row 6: an import manifest naming /proc/self/pagemap (a hang), a device, and a secret file
    of the lab's machine as its sources: report and verify end promptly, read none of them, and
    print no hash of them."""
    import hashlib

    secret = tmp_path / "lab-secret.txt"
    secret.write_text("the lab's private notes")
    run = tmp_path / "run"
    assert _cli(capsys, "import", str(operator / "clean.phhs"), "--out", str(run),
                "--workers", "0", "--quiet")[0] == 0
    _point_sources_at(run, ["/proc/self/pagemap", "/dev/zero", str(secret),
                            f"{run}/../lab-secret.txt"])
    assert _cli(capsys, "audit", str(run), "--workers", "0", "--quiet")[0] in (0, 1)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # in a process of its own: a reader that opened /proc/self/pagemap would hang, not fail
    r = subprocess.run([sys.executable, "-m", "cluster.cli", "report", str(run), "--workers",
                        "0"], env=env, capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    said = r.stdout + r.stderr + (run / "certificate.json").read_text()
    for more in ([], ["--sources", str(tmp_path / "operator")]):
        code, out = _cli(capsys, "verify", str(run), "--workers", "0", *more)
        assert code in (0, 1)
        said += out
    digest = hashlib.sha256(secret.read_bytes()).hexdigest()
    assert digest[:16] not in said and "not read" in said


def test_the_source_reader_refuses_each_door(tmp_path: Path) -> None:
    """Variations: a link out of the sources folder, a FIFO, /proc and /sys, a path outside:
    never read (a FIFO would block the reader), never hashed."""
    from cluster.flows.reproduce import NotReproducible, SourceChanged, locate_sources

    src = tmp_path / "src"
    src.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    (src / "link.phhs").symlink_to(outside)
    os.mkfifo(src / "fifo.phhs")
    (src / "ok.phhs").write_text("hands")
    for path in (str(src / "link.phhs"), str(src / "fifo.phhs"), "/proc/self/environ",
                 "/sys/kernel/notes", str(outside)):
        manifest = {"sources": [{"path": path, "sha256": "0" * 64}]}
        with pytest.raises(NotReproducible) as e:
            locate_sources(manifest, str(src), run=str(tmp_path / "run"))
        assert not isinstance(e.value, SourceChanged) and "sha256 is" not in str(e.value)
    manifest = {"sources": [{"path": str(src / "ok.phhs"), "sha256": "0" * 64}]}
    with pytest.raises(SourceChanged):
        locate_sources(manifest, str(src), run=str(tmp_path / "run"))


# ---------------------------------------------------------------- bounded input (rows 7, 9)


@pytest.mark.parametrize("argv", [
    ["simulate", "--hands", str(10**20), "--out", "{tmp}/s"],
    ["simulate", "--hands", str(2**62), "--batch-size", "1000", "--out", "{tmp}/s"],
    ["simulate", "--hands", "1000", "--batch-size", str(2**40), "--out", "{tmp}/s"],
    ["certify", "--hands", str(10**20), "--out", "{tmp}/c"],
    ["shuffle", "--decks", str(10**20), "--out", "{tmp}/d"],
    ["shuffle", "--decks", str(10**12), "--batch-size", "10", "--out", "{tmp}/d"],
    ["replay", "{tmp}", "--hand", str(10**20)],
    ["replay", "{tmp}", "--hand", "-1"],
    ["audit", "{tmp}", "--workers", str(10**18)],
    ["audit", "{tmp}", "--key-memory", str(10**18)],
])
def test_unbounded_sizes_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      argv: list[str]) -> None:
    """Row 7: counts and ids beyond what the formats hold (int64 ids, batch files a run can
    list, rows of a file) are refused at once: one line, exit 2, nothing written."""
    code, line = one_line(capsys, [a.format(tmp=tmp_path) for a in argv])
    assert code == 2 and ("expected" in line or "over the" in line), line
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("text", ["١٥", "2.9", "1_000", "0x10", "9" * 5001])
def test_integer_options_take_ascii_digits_only(tmp_path: Path, text: str) -> None:
    """Row 9's variation on the command line: a Unicode digit, a float, an underscore, hex or
    thousands of digits is no count (argparse's usage error, exit 2)."""
    from cluster.cli import main

    with pytest.raises(SystemExit) as e:
        main(["shuffle", "--decks", text, "--out", str(tmp_path / "d")])
    assert e.value.code == 2


def _deck_line(codes: list[int]) -> str:
    return ",".join(map(str, codes))


@pytest.mark.parametrize("hostile", ["huge-field", "not-utf8", "latin1", "5001-digits",
                                     "unicode-digits", "float", "negative", "huge-quoted",
                                     "nul"])
def test_hostile_deck_files_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         hostile: str) -> None:
    """Row 9: a deck CSV with a field over 131,072 characters, bytes that are not UTF-8 (or
    not ASCII), a 5,001-digit code, Unicode digits, a float: one line naming the file and row,
    exit 2, never a traceback, nothing written."""
    good = _deck_line(list(range(52)))
    row = list(range(52))
    bad = {"huge-field": "7" * 200_000 + "," + good,
           "not-utf8": good.replace("13", "\xff\xfe", 1),
           "latin1": good.replace("13", "\xe9", 1),
           "5001-digits": _deck_line(row[:51]) + "," + "5" * 5001,
           "unicode-digits": _deck_line(row[:51]) + ",\u0665\u0661",
           "float": _deck_line(row[:50]) + ",50.9,51",
           "negative": _deck_line(row[:51]) + ",-51",
           "huge-quoted": '"' + "1" * 300_000,
           "nul": good.replace("13", "1\x003", 1)}[hostile]
    path = tmp_path / "decks.csv"
    data = (good + "\n" + bad + "\n").encode("latin-1" if hostile != "unicode-digits"
                                              else "utf-8")
    path.write_bytes(data)
    out = tmp_path / "out"
    code, line = one_line(capsys, ["shuffle", "audit", str(path), "--out", str(out)])
    assert code == 2 and str(path) in line and "row 2" in line, line
    assert not out.exists() or not any(out.iterdir())


def test_a_float_parquet_deck_is_refused(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Row 9 in Parquet: a deck column of 52 floats (2.9) is no list of card codes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "decks.parquet"
    pq.write_table(pa.table({"deck": pa.array([[c + 0.9 for c in range(52)]],
                                              pa.list_(pa.float64()))}), path)
    code, line = one_line(capsys, ["shuffle", "audit", str(path), "--out",
                                   str(tmp_path / "o")])
    assert code == 2 and "integer card codes" in line


def test_verify_reaudit_catches_an_audit_json_the_audits_do_not_give(
        signed_copy: Path, signed: tuple[Path, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Row 1's last step: a run certified where the audits were subverted (a planted cache makes
    them PASS whatever the log holds): one payout moved in the log (manifest restamped), the
    PASS audit.json restamped with the forged files' sha256, the certificate rebuilt from it and
    signed. ``verify`` with the key alone takes the subverted audits' word (exit 0); with
    ``--reaudit`` it re-runs them on this machine's code and names the field (exit 1)."""
    import hashlib
    import json

    from cluster.flows.signing import load_private_key, sign
    from reports.render import build_run_certificate
    from tests.audits.forgery import RunForger, move_won

    pub = ["--public-key", f"{signed[1]}.pub", "--no-reproduce", "--workers", "0"]
    code, out = _cli(capsys, "verify", str(signed_copy), *pub, "--reaudit")
    assert code == 0 and "audits re-run here give this certificate" in out, out
    rel = "log/no-limit/batch-00001.parquet"
    f = RunForger(signed_copy, rel)
    i = next(i for i, r in enumerate(f.rows) if max(r["won"]) > 0)
    won = list(f.rows[i]["won"])
    w = won.index(max(won))
    move_won(f.rows[i], w, next(s for s in range(len(won)) if s != w), 1)
    f.write()
    audit = json.loads((signed_copy / "audit.json").read_text())
    sha = {p: hashlib.sha256((signed_copy / p).read_bytes()).hexdigest()
           for p in ("manifest.json", rel)}
    audit["inputs"]["manifest"]["sha256"] = sha["manifest.json"]
    for rec in audit["inputs"]["files"]:
        if rec["path"] == rel:
            rec["sha256"], rec["bytes"] = sha[rel], (signed_copy / rel).stat().st_size
    (signed_copy / "audit.json").write_text(json.dumps(audit, indent=2))
    cert = json.loads((signed_copy / "certificate.json").read_text())
    asha = hashlib.sha256((signed_copy / "audit.json").read_bytes()).hexdigest()
    manifest = json.loads((signed_copy / "manifest.json").read_text())
    fresh = build_run_certificate(audit, manifest, asha, reproduction=cert.get("reproduction"))
    for k in ("issued", "documents"):
        fresh[k] = cert.get(k)
    for mine, theirs in zip(fresh["audits"], cert["audits"], strict=False):
        if "calibration" in theirs:
            mine["calibration"] = theirs["calibration"]
    data = json.dumps(fresh, indent=2).encode() + b"\n"
    (signed_copy / "certificate.json").write_bytes(data)
    (signed_copy / "certificate.sig").write_bytes(sign(load_private_key(signed[1]), data))
    code, out = _cli(capsys, "verify", str(signed_copy), *pub)
    assert code == 0, out  # without --reaudit the subverted audits' word is taken
    code, out = _cli(capsys, "verify", str(signed_copy), *pub, "--reaudit")
    assert code == 1 and "the audits re-run here on these bytes give another certificate" in out


@pytest.mark.parametrize("argv", [
    ["simulate", "--hands", "200", "--structure", "no-limit", "--batch-size", "100",
     "--workers", "0", "--quiet"],
    ["simulate", "--hands", "200", "--structure", "no-limit", "--batch-size", "100",
     "--generator", "os-chacha20", "--workers", "0", "--quiet"],
    ["shuffle", "--decks", "1000", "--generator", "os-chacha20", "--workers", "0", "--quiet"],
    ["import", str(Path(__file__).resolve().parents[1] / "fixtures" / "sitetext" / "fulltilt.txt"),
     "--workers", "0", "--quiet"],
], ids=["simulate", "simulate-chacha", "shuffle-chacha", "import"])
def test_a_run_folder_named_through_a_link_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    """Review of row 8/10: ``--out LINK`` to another run's folder. The folder checks (new,
    empty, its own kind) and the lock would look at the link while the writes went to its
    target: a run folder named through a symbolic link is refused, one line, exit 2, and the
    target (here a signed run's files) keeps every byte."""
    target, link = tmp_path / "signed-run", tmp_path / "link"
    target.mkdir()
    (target / "certificate.json").write_text('{"verdict": "PASS"}')
    (target / "certificate.sig").write_bytes(b"sig")
    link.symlink_to(target)
    before = {p.name: p.read_bytes() for p in target.iterdir()}
    code, line = one_line(capsys, [*argv, "--out", str(link)])
    assert code == 2 and "a symbolic link" in line and "name the folder itself" in line, line
    assert {p.name: p.read_bytes() for p in target.iterdir()} == before


def test_an_import_never_replaces_a_signed_import(
        operator: Path, tmp_path: Path, signed: tuple[Path, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    """Review of row 8: the operator's other export imported into the folder of a signed,
    certified import (``--out`` of the lab's earlier run): refused, one line, exit 2; the
    signed run keeps every byte (an unsigned earlier import is still replaced, as designed)."""
    run, key = tmp_path / "imp", signed[1]
    code, out = _cli(capsys, "certify", "--import", str(operator / "clean.phhs"), "--out",
                     str(run), "--sign-key", str(key), "--workers", "0", "--quiet")
    assert (run / "certificate.sig").is_file(), out
    before = _files(run)
    code, line = one_line(capsys, ["import", str(operator / "moved.phhs"), "--out", str(run),
                                   "--workers", "0", "--quiet"])
    assert code == 2 and "holds a signed certificate" in line, line
    assert _files(run) == before


@pytest.mark.parametrize("argv", [
    ["bench", "engine", "--hands", "1" + "0" * 29],
    ["diff", "a", "b", "--first", str(2**63 - 1)],
    ["diff", "a", "b", "--stat", "--alpha", "nan"],
    ["diff", "a", "b", "--stat", "--alpha", "1.5"],
    ["verify", "run", "--reproduce", "١٥"],
    ["calibrate", "--runs", "1" + "0" * 18],
    ["regress", "--baseline", "HEAD", "--tolerance", "inf"],
], ids=["bench-hands", "diff-first", "alpha-nan", "alpha-above-1", "reproduce-unicode",
        "calibrate-runs", "tolerance-inf"])
def test_every_tool_option_is_bounded(capsys: pytest.CaptureFixture[str],
                                      argv: list[str]) -> None:
    """Review of row 7: the tools' numeric options too (bench, diff, calibrate, demo, regress,
    verify): a value past its bound, a Unicode digit, nan or inf is one usage line and exit 2,
    before any work (never a traceback, an overflow, or a run that never ends)."""
    from cluster.cli import main

    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "error: argument" in err, err
