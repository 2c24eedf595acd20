"""``holdem warmup`` (cluster/flows/warmup.py): every kernel of the project compiled into the shared
cache, so that later commands and Ray workers load machine code instead of compiling."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from audits import jitcache
from cluster.flows.warmup import _import_all, is_cached, kernels, lazy

ROOT = Path(__file__).resolve().parents[2]

# a fresh process: tiny commands of every kind in this process, then the count of signatures it
# had to compile (numba's cache misses) over every kernel of the project
COMPILED_BY_A_RUN = """
import tempfile
from cluster.flows.certify import certify
from cluster.flows.shuffle import ShuffleSpec, run_shuffle
from cluster.flows.warmup import kernels
from sim.config import Structure
from sim.runspec import DEFAULT_POPULATION, RunSpec
tmp = tempfile.mkdtemp()
certify(RunSpec(hands=300, batch_size=100, structures=tuple(Structure), seed=5,
                **DEFAULT_POPULATION), tmp + "/run", workers=0, calibration=None,
        progress=False)
run_shuffle(ShuffleSpec(decks=3000, batch_size=1000, keep_decks=False), tmp + "/shuffle",
            workers=0, progress=False)
print(sum(sum(d.stats.cache_misses.values()) for _, d in kernels()))
"""


def test_every_kernel_of_the_project_is_found() -> None:
    _import_all()
    names = {name for name, _ in kernels()}
    assert len(names) > 100
    for name in ("sim.engine.apply", "sim.session.play_tables", "audits.betting._referee",
                 "audits.keyed.keyed_deck_matches", "cluster.bench.engine._play_random_hands"):
        assert name in names or any(n.startswith(name) for n in names), name
    # helpers inlined into their callers are never compiled or cached on their own
    assert "sim.digest._word" not in names
    assert all(d.targetoptions.get("inline", "never") != "always" for _, d in kernels())


def test_a_kernel_of_an_empty_cache_is_not_cached(tmp_path: Path) -> None:
    from numba import njit

    @njit(cache=True)
    def _probe(x: int) -> int:  # a function outside the packages: numba's own cache
        return x + 1

    assert not is_cached(_probe)  # never called: no index
    assert all(isinstance(is_cached(d), bool) for _, d in kernels())


@pytest.mark.slow
def test_after_warmup_nothing_compiles() -> None:
    """In the cache root every command uses: `holdem warmup` leaves every kernel in the cache
    (after `make venv`'s own warmup it compiles at most what changed since); then a certify and
    a shuffle of every structure, in a new process, compile nothing, and a second warmup
    neither. (The same root as the suite's, not an empty one: a cold compile of every kernel
    costs two minutes here and proves nothing more than "every kernel in the cache".)"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def run(*args: str) -> str:
        r = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=1200, check=False)
        assert r.returncode == 0, r.stdout + r.stderr
        return r.stdout

    first = run("-m", "cluster.cli", "warmup")
    assert "not compiled by any step" not in first
    kernels_line = first.strip().splitlines()[-1]
    n = int(kernels_line.split("holdem warmup: ")[1].split(" kernels")[0])
    cached = int(kernels_line.split(" kernels, ")[1].split(" of them")[0])
    left = int(kernels_line.split("(")[1].split(" compiled by")[0]) if "(" in kernels_line else 0
    assert cached + left == n  # the rest: the benchmarks' own (LAZY), left to `holdem bench`
    assert run("-c", COMPILED_BY_A_RUN).split() == ["0"]
    again = run("-m", "cluster.cli", "warmup").strip().splitlines()[-1]
    assert f"{n} kernels, {cached} of them in the cache" in again
    assert "; 0 signatures compiled now" in again


def test_ray_workers_use_the_drivers_cache(ray_local: None) -> None:
    """A local Ray's workers inherit the driver's cache root and compute the same keys (a
    remote cluster gets the root from the image or the runtime env: test_configs)."""
    import ray

    @ray.remote
    def where() -> tuple[str, dict[str, str]]:
        from audits import jitcache as jc

        return str(jc.cache_root()), dict(jc.identity()["keys"])

    root, keys = ray.get(where.remote())
    assert root == str(jitcache.cache_root()) and keys == jitcache.identity()["keys"]


def test_the_parallel_groups_run_every_step_once_after_what_it_reads(tmp_path: Path) -> None:
    from cluster.flows.warmup import GROUPS, _steps

    labels = [label for label, _ in _steps(tmp_path)]
    assert sorted(i for g in GROUPS for i in g) == list(range(len(labels)))
    export = next(i for i, label in enumerate(labels) if label.startswith("export"))
    certify = next(i for i, label in enumerate(labels) if label.startswith("certify"))
    group = next(g for g in GROUPS if export in g)  # export and diff read the certified run
    assert certify in group and group.index(certify) < group.index(export)


def test_warmup_jobs_is_checked() -> None:
    from cluster.cli import main

    assert main(["warmup", "--jobs", "0"]) == 2


def test_only_the_benchmarks_kernels_are_left_to_their_first_use() -> None:
    """The install skips the kernels of `holdem bench` alone (it compiles them before timing);
    every kernel a command other than a benchmark runs is compiled by a warmup step."""
    _import_all()
    names = [name for name, _ in kernels()]
    left = [name for name in names if lazy(name)]
    assert "cluster.bench.engine._play_random_hands" in left
    assert all(n.startswith("cluster.bench.") or n in ("sim.evaluator.count_categories_all7",
                                                        "audits.keyed._check_keyed")
               for n in left), left
    for name in ("sim.session.play_tables", "audits.betting._referee", "sim.engine.apply"):
        assert name in names and not lazy(name)
