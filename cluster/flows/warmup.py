"""``holdem warmup``: compile every numba kernel of ``sim/``, ``audits/``, ``cluster/`` and
``reports/`` into the shared compiled-code cache (``audits.jitcache``: ``ROOT/<label>-<key>``),
so that the first real command, and every Ray worker that uses the same ``ROOT``, loads machine
code instead of compiling it.

numba compiles a kernel for the argument types of its first call, so the way to compile exactly
what the commands run is to run them: tiny runs, in this process, into a temporary folder that
is removed (no job, no Ray, nothing left but the cache):

- ``holdem certify`` of the default population (cash and tournament tables of 2-10 seats, the
  real bots) in every structure: simulate, every audit (the collision keys partitioned, as a
  run larger than the driver's key memory is), reproduction, report;
- ``holdem simulate`` of the classic population (the stress bots), of the other deck
  generators and with a Python bot (``sim.pybots``: the table loop's second variant);
- ``holdem shuffle`` with and without the decks kept, ``holdem export``, ``holdem diff``;
- PHH hands imported and audited (no decks: the deal audit's known-cards path);
- the kernels of ``holdem rngtest`` (raw streams), ``holdem calibrate`` (planted shufflers),
  ``--inject`` (faulty decks) and the evaluators' array entry points, each called on a few
  values. The benchmarks' own kernels (``LAZY``) are left to ``holdem bench``, which compiles
  them before it times anything.

The steps run in ``jobs`` processes at once (default: the cores this process may use; 1: all
in this process), grouped so that a step that reads another's output runs after it in the same
process (export and diff read the certified run), the longest group first. The processes share
the cache: a kernel two of them need may be compiled by both (the cache keeps one), and numba's
index of a function is locked while it is read or written (``audits.jitcache``), so two
signatures saved at once cannot take each other's place.

Then every module of the four packages is imported and each compiled function (a numba
dispatcher) is counted: signatures loaded from the cache, signatures compiled now (in every
process), and the kernels no step called (compiled at their first call: named, so that a step
can be added). A second ``holdem warmup`` with the same sources compiles nothing.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audits import jitcache

TINY = 400  # hands per structure of the warm-up runs: every batch path, seconds of work
PHH_HAND = """variant = "NT"
antes = [0, 0]
blinds_or_straddles = [1, 2]
min_bet = 2
starting_stacks = [200, 150]
actions = ["d dh p1 AsAh", "d dh p2 ????", "p2 cc", "p1 cbr 8", "p2 cc", "d db 2c7d9h",
  "p1 cbr 10", "p2 f"]
finishing_stacks = [208, 142]
"""  # one heads-up hand (an imported run: no decks), in the form the Python reader takes
# two hands of one table in the form the compiled import path takes (sim.histories.files)
PHHS_HANDS = "".join(
    f"[{k}]\nvariant = 'NT'\nante_trimming_status = false\nantes = [0, 0, 0]\n"
    "blinds_or_straddles = [0.5, 1, 0]\nmin_bet = 1\n"
    f"starting_stacks = [{stacks}]\nactions = ['d dh p1 ????', 'd dh p2 ????', "
    "'d dh p3 AsAh', 'p3 cbr 3', 'p1 f', 'p2 cc', 'd db 2c7d9h', 'p2 cc', 'p3 cbr 4', "
    "'p2 cc', 'd db Ts', 'p2 cc', 'p3 cc', 'd db 3d', 'p2 cc', 'p3 cc', 'p2 sm ????', "
    f"'p3 sm AsAh']\nvenue = 'Warmup'\ntable = 'T'\nhand = {k}\ntime = 12:0{k}:00\n"
    "day = 1\nmonth = 7\nyear = 2009\ntime_zone_abbreviation = 'ET'\nseats = [2, 4, 6]\n"
    "seat_count = 6\nplayers = ['a', 'b', 'c']\nwinnings = [0, 0, 14.50]\n"
    "currency = 'USD'\n\n"
    for k, stacks in ((1, "50, 60.25, 70"), (2, "49.50, 53.25, 77.50")))


@dataclass
class WarmupResult:
    """What ``run_warmup`` did: seconds per step, and the kernels it found."""

    root: Path
    keys: dict[str, str]
    steps: list[tuple[str, float]] = field(default_factory=list)
    kernels: int = 0  # the project's cached kernels (inlined helpers aside)
    compiled: int = 0  # signatures compiled in this process (cache misses)
    loaded: int = 0  # signatures loaded from the cache
    uncached: list[str] = field(default_factory=list)  # kernels with no cache entry
    lazy: list[str] = field(default_factory=list)  # of those, compiled at first use (LAZY)
    seconds: float = 0.0


def half_keys(decks: int) -> int:
    """Key memory for half the collision keys of ``decks`` decks: two partitions, so the
    partitioned path (one extra pass over the deck column) is compiled too."""
    from audits.uniformity import KEY_BYTES

    return decks * KEY_BYTES // 2 + 1


def _steps(tmp: Path) -> list[tuple[str, Callable[[], object]]]:
    from cluster.flows.certify import certify
    from cluster.flows.export import run_export
    from cluster.flows.shuffle import ShuffleSpec, run_shuffle
    from cluster.flows.simulate import run_simulate
    from cluster.regression.digest_diff import diff_runs, match_digests
    from sim.config import Structure
    from sim.runspec import DEFAULT_POPULATION, RunSpec

    every = tuple(Structure)
    default = RunSpec(hands=TINY, batch_size=TINY // 2, structures=every, seed=1,
                      **DEFAULT_POPULATION)

    def certify_default() -> None:
        # key memory for half the collision keys: two partitions (one extra deck pass)
        certify(default, tmp / "certify", workers=0, calibration=None, progress=False,
                key_memory=half_keys(TINY * len(every)))

    def simulate_others() -> None:
        from sim.deckgen import GENERATORS

        run_simulate(RunSpec(hands=TINY, batch_size=TINY, structures=every, seed=2),
                     tmp / "classic", workers=0, progress=False)
        for i, g in enumerate(GENERATORS[1:]):
            run_simulate(RunSpec(hands=TINY // 4, batch_size=TINY // 4, seed=3 + i, generator=g,
                                 structures=(Structure.NO_LIMIT,)),
                         tmp / f"gen-{i}", workers=0, progress=False)
        python_bots()

    def python_bots() -> None:  # the table loop's variant that calls Python bots (sim.pybots)
        import hashlib

        from cluster.bench.pybots import NOOP_BOT
        from sim.pybots import PythonBot

        bot = tmp / "noop_bot.py"
        bot.write_text(NOOP_BOT)
        spec = RunSpec(hands=TINY // 4, batch_size=TINY // 4, seed=9, python_bots=(PythonBot(
            name="noop", kind="path", source=str(bot), callable="decide", weight=1,
            sha256=hashlib.sha256(bot.read_bytes()).hexdigest()),))
        run_simulate(spec, tmp / "python-bots", workers=0, progress=False)

    def shuffle() -> None:
        from sim.deckgen import GENERATORS

        for keep in (True, False):
            run_shuffle(ShuffleSpec(decks=2000, batch_size=1000, keep_decks=keep),
                        tmp / f"shuffle-{keep}", workers=0, key_memory=half_keys(2000),
                        progress=False)
        for g in GENERATORS[1:]:
            run_shuffle(ShuffleSpec(decks=1000, generator=g), tmp / f"shuffle-{g}", workers=0,
                        progress=False)

    def export_diff() -> None:
        import numpy as np

        run_export(tmp / "certify", tmp / "tables", workers=0)
        diff_runs(tmp / "certify", tmp / "certify", recompute=True)
        ids, digests = np.arange(3, dtype=np.int64), np.arange(3, dtype=np.uint64)
        match_digests(ids, digests, ids, digests)  # two identical runs never get this far

    def imported() -> None:
        from cluster.flows.audit import audit_run
        from cluster.flows.import_histories import import_phh

        phh = tmp / "hand.phh"
        phh.write_text(PHH_HAND, encoding="utf-8")
        phhs = tmp / "hands.phhs"
        phhs.write_text(PHHS_HANDS, encoding="utf-8")
        import_phh([str(phh), str(phhs)], tmp / "imported")
        audit_run(tmp / "imported", workers=0, progress=False)

    def tools() -> None:
        import numpy as np

        from audits.evaluator import eval7_brute_many, eval7_many
        from audits.keyed import derive_deck
        from audits.shuffles import SHUFFLES, pair_rig
        from sim.deckgen import (
            GENERATORS,
            SHUFFLE_FAULTS,
            draw_bits,
            faulty_decks,
            philox_decks,
            raw_output,
        )
        from sim.digest import combine_digests
        from sim.evaluator import category_of, evaluate, evaluate_many

        for g in GENERATORS:  # holdem rngtest
            raw_output(g, 1, 0, 2)
        draw_bits(philox_decks(1, 0, 4))
        for fault in SHUFFLE_FAULTS:  # --inject
            faulty_decks(1, 0, 4, fault)
        rng = np.random.default_rng(1)
        for shuffle in SHUFFLES.values():  # holdem calibrate's planted shufflers
            shuffle(4, rng)
        pair_rig(shuffle(4, rng), 2, 0.5, rng)  # the pooled deal tests' planted dealer
        seven = np.arange(7, dtype=np.int64).reshape(1, 7)
        eval7_many(seven)
        eval7_brute_many(seven)
        category_of(evaluate(list(range(7))))
        evaluate_many(seven)
        combine_digests(np.arange(3, dtype=np.uint64))
        derive_deck(9, 0, 1)  # a key's deck built forward (the audits' messages, the tests)

    return [("certify (default population, every structure; simulate, audit, reproduce, "
             "report)", certify_default),  # GROUPS: export and diff read this step's run
            ("simulate (classic population; other deck generators; a Python bot)",
             simulate_others),
            ("shuffle (decks kept and not; other deck generators)", shuffle),
            ("export, diff", export_diff),
            ("PHH hands imported and audited", imported),
            ("rngtest, calibrate, fault-injection and evaluator kernels", tools)]


# the steps (indices into ``_steps``) each process runs, in order: a step that reads another's
# output stays after it in its group; the groups are listed longest first (the order they start)
# (one process, fresh cache, 2026-12-04: certify 104 s, PHH 67, tools 10, simulate 8,
# shuffle 4, export 3)
GROUPS: tuple[tuple[int, ...], ...] = ((0, 3), (4,), (5,), (1,), (2,))

# kernels no step compiles, by design: the benchmarks' own (``holdem bench`` compiles them, or
# loads them, before it times anything), so the install does not pay for a rare command
LAZY = ("cluster.bench.", "sim.evaluator.count_categories_all7",
        "audits.keyed._check_keyed")  # the last: only `holdem bench audit` re-derives alone


def lazy(name: str) -> bool:
    """Whether the kernel ``name`` (module.function) is compiled at its first use by design."""
    return name.startswith(LAZY)


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def _run_group(tmp: str, group: tuple[int, ...]) -> tuple[list[tuple[str, float]], int, int]:
    """In a worker process: the group's steps in order; returns (label, seconds) per step and
    the signatures compiled and loaded meanwhile (a worker runs several groups: its counts are
    cumulative, so the group's are the difference)."""
    c0, h0 = _counts()
    steps = _steps(Path(tmp))
    done = []
    for i in group:
        label, step = steps[i]
        s0 = time.perf_counter()
        step()
        done.append((label, time.perf_counter() - s0))
    c1, h1 = _counts()
    return done, c1 - c0, h1 - h0


def _counts() -> tuple[int, int]:
    """Signatures compiled and loaded so far in this process (the kernels imported)."""
    ks = kernels()
    return (sum(sum(d.stats.cache_misses.values()) for _, d in ks),
            sum(sum(d.stats.cache_hits.values()) for _, d in ks))


def _import_all() -> None:
    """Import every module of the four packages (so every kernel is seen)."""
    for name in jitcache.PACKAGES:
        pkg = importlib.import_module(name)
        for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{name}."):
            try:
                importlib.import_module(info.name)
            except ImportError:  # an optional dependency (e.g. a dev-only peer) is absent
                continue


def kernels() -> list[tuple[str, Any]]:
    """(qualified name, dispatcher) of every numba-compiled function the four packages define,
    among the modules imported in this process (those inlined into their callers aside: they
    are never compiled, or cached, on their own)."""
    import sys

    from numba.core.dispatcher import Dispatcher

    out, seen = [], set()
    for modname, mod in sorted(sys.modules.items()):
        if modname.split(".")[0] not in jitcache.PACKAGES or mod is None:
            continue
        for attr, obj in sorted(vars(mod).items()):
            if (isinstance(obj, Dispatcher) and id(obj) not in seen
                    and getattr(obj.py_func, "__module__", None) == modname
                    and obj.targetoptions.get("inline", "never") != "always"):
                seen.add(id(obj))
                out.append((f"{modname}.{attr}", obj))
    return out


def run_warmup(say: Callable[[str], None] = print, jobs: int | None = None) -> WarmupResult:
    """Run the warm-up steps (see the module doc) in ``jobs`` processes (default: the cores;
    1: in this process) and count the kernels; returns the record."""
    t0 = time.perf_counter()
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise ValueError(f"jobs: expected at least 1, got {jobs}")
    res = WarmupResult(root=jitcache.cache_root(), keys=dict(jitcache.identity()["keys"]))
    say(f"holdem warmup: compiled-code cache {res.root} ("
        + ", ".join(f"{k} {v}" for k, v in res.keys.items()) + f"), {jobs} process"
        + ("es" if jobs > 1 else ""))
    tmp = Path(tempfile.mkdtemp(prefix="holdem-warmup-"))
    compiled = loaded = 0
    try:
        if jobs == 1:
            for label, step in _steps(tmp):
                s0 = time.perf_counter()
                step()
                res.steps.append((label, time.perf_counter() - s0))
                say(f"  {res.steps[-1][1]:6.1f} s  {label}")
        else:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor, as_completed

            # spawn: each worker a fresh interpreter (no forked numba or Ray state)
            with ProcessPoolExecutor(max_workers=min(jobs, len(GROUPS)),
                                     mp_context=multiprocessing.get_context("spawn")) as pool:
                futures = [pool.submit(_run_group, str(tmp), g) for g in GROUPS]
                for fut in as_completed(futures):
                    done, c, h = fut.result()
                    compiled, loaded = compiled + c, loaded + h
                    for label, secs in done:
                        res.steps.append((label, secs))
                        say(f"  {secs:6.1f} s  {label}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    _import_all()
    for name, d in kernels():
        res.kernels += 1
        res.compiled += sum(d.stats.cache_misses.values())
        res.loaded += sum(d.stats.cache_hits.values())
        if not is_cached(d):
            (res.lazy if lazy(name) else res.uncached).append(name)
    res.compiled += compiled
    res.loaded += loaded
    res.seconds = time.perf_counter() - t0
    cached = res.kernels - len(res.uncached) - len(res.lazy)
    say(f"holdem warmup: {res.kernels} kernels, {cached} of them in the cache"
        + (f" ({len(res.lazy)} compiled by `holdem bench` at first use)" if res.lazy else "")
        + f"; {res.compiled} signatures compiled now, {res.loaded} loaded, {res.seconds:.1f} s")
    if res.uncached:
        say(f"  not compiled by any step (compiled at first use): {', '.join(res.uncached)}")
    return res


def is_cached(d: Any) -> bool:
    """Whether the kernel has an entry in its cache: its index file exists (a kernel that only
    other kernels call is compiled, and cached, with its first caller; a warm caller loads its
    own machine code and never asks for the callee's, so the callee's signatures stay empty)."""
    cache = getattr(d, "_cache", None)
    index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
    return isinstance(index, str) and Path(index).is_file()
