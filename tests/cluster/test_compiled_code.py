"""Compiled code is keyed by the code (``audits.jitcache``): with warm caches, a change to a helper
in one module that a compiled function in another module calls is seen, by a plain call, by
``holdem golden``, by ``holdem simulate`` and by ``holdem regress``; a cache compiled from other
sources is never loaded.

Each test works on a copy of the four packages (as a checkout or a worker would hold them) with
its own cache root (``HOLDEM_JIT_CACHE``), so the repository and the user's caches are untouched.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from audits import jitcache
from tests.audits.test_provenance import _copy  # the packages as a checkout ships them
from tests.cluster.warmcache import warm

ROOT = Path(__file__).resolve().parents[2]




def _run(tree: Path, cache: Path, *args: str, check: bool = True,
         timeout: int = 600) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree), jitcache.ENV_ROOT: str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("RAY_ADDRESS", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # .pyc files written, as a user's Python does
    r = subprocess.run([sys.executable, *args], cwd=tree, env=env, capture_output=True,
                       text=True, timeout=timeout, check=False)
    if check and r.returncode != 0:
        raise AssertionError(f"{args} exit {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return r


def _keys(tree: Path, cache: Path) -> dict[str, str]:
    r = _run(tree, cache, "-c", "import json; from audits import jitcache; "
             "print(json.dumps(jitcache.identity()['keys']))")
    return dict(json.loads(r.stdout))


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, f"{path}: {old!r} not found once"
    path.write_text(text.replace(old, new))


def test_keys_follow_every_source_of_the_closure(tmp_path: Path) -> None:
    tree, cache = _copy(tmp_path), tmp_path / "cache"
    k0 = _keys(tree, cache)
    assert k0 == jitcache.identity()["keys"]  # the same sources: the same keys, any checkout
    with open(tree / "sim" / "dealing.py", "a") as f:
        f.write("\n# one byte more\n")
    k1 = _keys(tree, cache)
    assert k1["sim"] != k0["sim"] and k1["cluster"] != k0["cluster"]
    assert k1["audits"] == k0["audits"]  # the audits never call the engine
    with open(tree / "audits" / "io.py", "a") as f:
        f.write("\n# one byte more\n")
    k2 = _keys(tree, cache)
    assert k2["audits"] != k1["audits"] and k2["cluster"] != k1["cluster"]
    assert k2["sim"] == k1["sim"]


PROBE_A = """from numba import njit


@njit(cache=True)
def base():
    return 1
"""
PROBE_B = """from numba import njit

from {pkg}.probe_a import base


@njit(cache=True)
def caller():
    return base() + 10
"""
CALL = "from {pkg}.probe_b import caller; print(caller())"


def _probe(tree: Path, pkg: str) -> None:
    d = tree / pkg
    d.mkdir(exist_ok=True)
    (d / "__init__.py").touch()
    (d / "probe_a.py").write_text(PROBE_A)
    (d / "probe_b.py").write_text(PROBE_B.format(pkg=pkg.replace("/", ".")))


def test_a_callee_changed_in_another_file_is_recompiled(tmp_path: Path) -> None:
    tree, cache = _copy(tmp_path), tmp_path / "cache"
    _probe(tree, "sim/probes")  # inside the engine's package: keyed caches
    _probe(tree, "plain")  # outside the project: numba's own caches, as a control
    for pkg in ("sim.probes", "plain"):
        r = _run(tree, cache, "-c", f"import sim; {CALL.format(pkg=pkg)}")
        assert r.stdout.split() == ["11"]
    assert list((cache / f"sim-{_keys(tree, cache)['sim']}" / "sim" / "probes").glob("*.nbi"))
    for pkg in ("sim/probes", "plain"):  # the callee changes; the caller's file does not
        _edit(tree / pkg / "probe_a.py", "return 1", "return 20")  # another size: no stale .pyc
    new = _run(tree, cache, "-c", f"import sim; {CALL.format(pkg='sim.probes')}")
    assert new.stdout.split() == ["30"]
    # the control shows what the keys prevent: numba's own cache runs the stale caller
    stale = _run(tree, cache, "-c", f"import sim; {CALL.format(pkg='plain')}")
    assert stale.stdout.split() == ["11"]


def test_a_cache_compiled_from_other_sources_is_never_loaded(tmp_path: Path) -> None:
    tree, cache = _copy(tmp_path), tmp_path / "cache"
    _probe(tree, "sim/probes")
    _run(tree, cache, "-c", CALL.format(pkg="sim.probes"))
    old = cache / f"sim-{_keys(tree, cache)['sim']}"
    _edit(tree / "sim" / "probes" / "probe_a.py", "return 1", "return 20")
    new = cache / f"sim-{_keys(tree, cache)['sim']}"
    assert new != old
    # the stale cache put where the new key looks (a copied cache, a restored image): its index
    # is stamped with the old key, so numba compiles afresh
    shutil.rmtree(new, ignore_errors=True)
    shutil.copytree(old, new)
    r = _run(tree, cache, "-c", CALL.format(pkg="sim.probes"))
    assert r.stdout.split() == ["30"]


def test_a_source_edited_while_a_process_runs_is_never_compiled(tmp_path: Path) -> None:
    """The key is hashed once per process; a module imported after its file changed would be
    compiled from other bytes than the key names (and cached under it): refused in one line."""
    tree, cache = _copy(tmp_path), tmp_path / "cache"
    _probe(tree, "sim/probes")
    a = tree / "sim" / "probes" / "probe_a.py"
    script = ("import sim.dealing, pathlib\n"  # the key is hashed here
              f"p = pathlib.Path({str(a)!r}); p.write_text(p.read_text().replace('1', '2'))\n"
              "from audits.jitcache import StaleCodeError\n"
              "try:\n    import sim.probes.probe_a\n"
              "except StaleCodeError as e:\n    print('refused:', e)\n")
    r = _run(tree, cache, "-c", script)
    assert "refused:" in r.stdout and "changed after this process hashed" in r.stdout, r.stdout
    assert not list(cache.rglob("probe_a*.nbi"))  # nothing cached under the old key


def test_a_stale_pyc_is_never_compiled(tmp_path: Path) -> None:
    """Python runs a stale ``.pyc`` when a same-size edit keeps the file's mtime (``cp -p``,
    ``rsync -a``): the function's code is not the file's, so it is refused, not cached under the
    key of the file's bytes."""
    tree, cache = _copy(tmp_path), tmp_path / "cache"
    _probe(tree, "sim/probes")
    a = tree / "sim" / "probes" / "probe_a.py"
    r = _run(tree, cache, "-c", CALL.format(pkg="sim.probes"))  # writes the .pyc, caches 11
    assert r.stdout.split() == ["11"]
    st = a.stat()
    _edit(a, "return 1", "return 2")  # the same size
    os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert list((a.parent / "__pycache__").glob("probe_a*.pyc"))
    r = _run(tree, cache, "-c", CALL.format(pkg="sim.probes"), check=False)
    assert r.returncode != 0 and "StaleCodeError" in r.stderr and "stale .pyc" in r.stderr
    shutil.rmtree(a.parent / "__pycache__")
    r = _run(tree, cache, "-c", CALL.format(pkg="sim.probes"))
    assert r.stdout.split() == ["12"]


def test_an_unwritable_root_gives_a_private_cold_cache(tmp_path: Path) -> None:
    """Never a shared folder of a predictable name (someone could plant machine code there)."""
    tree = _copy(tmp_path)
    _probe(tree, "sim/probes")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    planted = tmp_path / "tmp"
    planted.mkdir()
    env_tmp = {"TMPDIR": str(planted)}
    script = ("import os, pathlib; from sim.probes.probe_b import caller; "
              "import sim.probes.probe_b as b; p = pathlib.Path(b.caller._cache._cache_path); "
              "root = [q for q in p.parents if q.parent == pathlib.Path(os.environ['TMPDIR'])][0]; "
              "print(caller(), p, root.stat().st_mode & 0o077)")
    env = {**os.environ, "PYTHONPATH": str(tree), jitcache.ENV_ROOT: str(blocker / "cache"),
           **env_tmp}
    r = subprocess.run([sys.executable, "-c", script], cwd=tree, env=env, capture_output=True,
                       text=True, timeout=300, check=True)
    value, path, others = r.stdout.split()
    assert value == "11"
    made = Path(path).relative_to(planted).parts[0]
    assert made.startswith("holdem-numba-") and made != f"holdem-numba-{os.getuid()}"
    assert others == "0"  # only this user
    assert not (planted / made).exists()  # removed when the process ended: none piles up


def test_a_linked_subpackage_is_hashed(tmp_path: Path) -> None:
    tree, cache = _copy(tmp_path), tmp_path / "cache"
    outside = tmp_path / "outside"
    _probe(tmp_path, "outside")
    (tree / "sim" / "linked").symlink_to(outside, target_is_directory=True)
    k0 = _keys(tree, cache)["sim"]
    with open(outside / "probe_a.py", "a") as f:
        f.write("\n# one byte more\n")
    assert _keys(tree, cache)["sim"] != k0


def test_old_keys_are_pruned(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    for i in range(jitcache.KEEP + 2):
        d = cache / f"sim-{i:016x}"
        d.mkdir(parents=True)
        (d / jitcache.USED_MARK).touch()
        os.utime(d / jitcache.USED_MARK, (1000.0 + i, 1000.0 + i))  # long unused
    recent = cache / "sim-recent"
    recent.mkdir()
    (recent / jitcache.USED_MARK).touch()  # used now: kept whatever its rank
    (cache / "audits-0000000000000000").mkdir()  # another label: not this label's to prune
    current = cache / "sim-current"
    current.mkdir()
    jitcache._prune(cache, "sim", current)
    left = sorted(p.name for p in cache.iterdir())
    # the current, the recent, and the newest of the old up to KEEP in all
    kept_old = [f"sim-{i:016x}" for i in range(jitcache.KEEP + 2)][-(jitcache.KEEP - 2):]
    assert left == sorted(["audits-0000000000000000", "sim-current", "sim-recent", *kept_old])


@pytest.mark.slow
def test_golden_simulate_and_regress_see_a_helper_changed_in_another_module(
        tmp_path: Path) -> None:
    """The issue's case with warm caches: ``sim/dealing.py``'s ``hole_pos`` (called by the
    engine, which the session's compiled loop calls) changes; nothing is cleaned.

    Both caches start warm for the unchanged sources (``warmcache.warm``: the copy's keys are this
    checkout's), the test's own root and regress's baseline root, so the one cold compile is the
    one the test is about: the changed engine's."""
    tree, cache = _copy(tmp_path), tmp_path / "cache"
    keys = warm(cache)
    assert _keys(tree, cache) == keys
    warm(cache / "regress-baseline")
    (tree / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    golden = tree / "golden.json"
    cli = ["-m", "cluster.cli"]
    sim = [*cli, "simulate", "--hands", "1000", "--structure", "no-limit", "--seed", "3",
           "--workers", "0", "--quiet"]
    _run(tree, cache, *cli, "golden", "--update", "--file", str(golden))  # warm (or warms)
    _run(tree, cache, *sim, "--out", str(tmp_path / "before"))
    git = ["git", "-C", str(tree), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "baseline"], check=True)
    # the rule changes in one file; the compiled callers live in other files
    _edit(tree / "sim" / "dealing.py", "return round_ * n_dealt + i",
          "return i * HOLE_CARDS + round_")
    g = _run(tree, cache, *cli, "golden", "--file", str(golden), check=False)
    assert g.returncode == 1, g.stdout + g.stderr
    _run(tree, cache, *sim, "--out", str(tmp_path / "after"))
    d = _run(tree, cache, *cli, "diff", str(tmp_path / "before"), str(tmp_path / "after"),
             check=False)
    assert d.returncode == 1 and "DIFFERENT" in d.stdout, d.stdout + d.stderr
    new_sim = _keys(tree, cache)["sim"]
    assert new_sim != keys["sim"]
    baseline_dir = cache / "regress-baseline" / f"sim-{keys['sim']}"
    (baseline_dir / jitcache.USED_MARK).unlink(missing_ok=True)
    r = _run(tree, cache, *cli, "regress", "--baseline", "HEAD", "--hands", "1000",
             "--structures", "no-limit", "--no-speed", check=False, timeout=900)
    assert r.returncode == 1 and "regress: DIFFERENT" in r.stdout, r.stdout + r.stderr
    lines = {ln.split(":")[0]: ln for ln in r.stdout.splitlines() if " code: " in ln}
    base, cand = lines["baseline code"], lines["candidate code"]
    assert "compiled sim " in base and "compiled sim " in cand
    assert base.split("compiled sim ")[1][:16] == keys["sim"]
    assert cand.split("compiled sim ")[1][:16] == new_sim
    # each side ran from its own cache: the baseline's key directory under regress-baseline
    # was used by this regress (the mark is written by the process using it), and the changed
    # engine's compiled code is only in the candidate's root
    assert (baseline_dir / jitcache.USED_MARK).exists()
    assert list((cache / f"sim-{new_sim}").rglob("*.nbi"))
    assert not (cache / "regress-baseline" / f"sim-{new_sim}").exists()


def test_two_signatures_saved_at_once_keep_their_own_code(tmp_path: Path) -> None:
    """numba's save reads a function's index, numbers the new object after the entries it saw
    and rewrites the index: two processes saving at once (a parallel warmup, Ray workers) would
    both number theirs 1 and the index would name the other's code. The index is locked: the
    second save waits for the first and numbers its object 2."""
    import threading

    from numba.core import caching

    cls = caching.IndexDataCacheFile  # the project's (jitcache.install, at import of audits)
    assert cls.__name__ == "AuthenticatedCacheFile"
    first, second = cls(str(tmp_path), "f-1.py311", "stamp"), cls(str(tmp_path), "f-1.py311",
                                                                 "stamp")
    other = threading.Thread(target=second.save, args=(("sig-b",), {"code": "b"}))
    save_index = first._save_index
    blocked = []

    def racing_save_index(overloads: object) -> None:  # the other process saves meanwhile
        other.start()
        other.join(timeout=1.0)
        blocked.append(other.is_alive())
        save_index(overloads)

    first._save_index = racing_save_index  # type: ignore[method-assign]
    first.save(("sig-a",), {"code": "a"})
    other.join(timeout=30)
    assert blocked == [True] and not other.is_alive()
    assert first.load(("sig-a",)) == {"code": "a"}
    assert first.load(("sig-b",)) == {"code": "b"}
    assert sorted(p.name for p in tmp_path.glob("*.nbc")) == ["f-1.py311.1.nbc",
                                                              "f-1.py311.2.nbc"]



# in an empty cache: project kernels called from compiled code with constants (start_hand's
# calls of _record, _record's of _record_row; a caller of below), and what each callee was
# compiled for
CONSTANTS_PASSED = """
import json
import numpy as np
from numba import njit
from sim import engine, rng
from sim.config import Structure, TableConfig
from sim.hand import config_block

S, log, z = engine.new_state(), engine.new_log(), np.zeros(3, np.int64)
cfg = config_block(TableConfig(n_seats=3, structure=Structure.NO_LIMIT, small_blind=1,
                               big_blind=2))
engine.start_hand(S, log, cfg, z + 100, z, 0, 1, 2, np.arange(52, dtype=np.int64))

@njit
def draws(rs):
    return rng.below(rs, 100) + rng.below(rs, 52)

draws(rng.new_stream())
print(json.dumps({name: [[str(t) for t in sig] for sig in d.signatures]
                  for name, d in (("_record", engine._record),
                                  ("_record_row", engine._record_row), ("below", rng.below))}))
"""


def test_a_kernel_called_with_constants_is_compiled_once_for_their_types(
        tmp_path: Path) -> None:
    """numba's default compiles a callee again for every distinct constant its compiled callers
    pass (``_record_row`` 24 times in a warmup); the project's kernels are compiled once per
    argument types, except those marked ``literal_args`` (``sim.rng.below``)."""
    r = _run(ROOT, tmp_path / "cache", "-c", CONSTANTS_PASSED)
    sigs = json.loads(r.stdout.strip().splitlines()[-1])
    assert len(sigs["_record"]) == 1 and len(sigs["_record_row"]) == 1, sigs
    assert not any("Literal" in t for name in ("_record", "_record_row")
                   for sig in sigs[name] for t in sig), sigs
    assert sorted(sig[1] for sig in sigs["below"]) == ["Literal[int](100)", "Literal[int](52)"]
