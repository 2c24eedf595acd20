"""``holdem regress --baseline REF``: does the engine in this working tree deal and play the same
hands as the engine at git ``REF``?

1. ``git worktree add --detach TMP/baseline REF`` (a temporary checkout of the committed REF).
2. Both engines simulate the same spec (``holdem simulate --workers 0 --quiet``), each in its own
   process, into temporary run folders: the baseline with ``PYTHONPATH=TMP/baseline`` and this
   venv's interpreter, the candidate with ``PYTHONPATH=<this working tree>``. The child checks
   that it imported ``sim`` and ``cluster`` from the intended tree.
   Each side compiles into its own numba cache (``audits.jitcache``: keyed by its sources, so a
   change in any file a compiled function calls gives a fresh cache): the candidate under this
   process's cache root, the baseline under ``ROOT/regress-baseline`` (and, for a baseline
   older than the keyed caches, a temporary ``NUMBA_CACHE_DIR``). The report names both sides'
   compiled-code keys, as each run's manifest recorded them: warm or cold caches, the code that
   ran is the code that is named.
   What they simulate: simulate's run and population options as given (simulate's names and
   forms), by default simulate's default population: cash and tournament tables in every
   structure (``plan_spec`` cuts the batches smaller when simulate's would leave a structure
   without one of the two formats).
3. ``cluster.regression.digest_diff.diff_runs`` compares them hand by hand (exit 0 identical,
   1 different); the differences are grouped by root cause (``cluster.regression.rootcause``:
   the first hand of each table the engines play differently, its first differing field and
   rule paths; the rest counted as consequences), and the first root cause is shown side by
   side, each side's hand replayed by ITS OWN engine (``replay_by_own_engine``: ``holdem
   replay`` run in that side's tree).
4. The speed check (``cluster.regression.speed``; ``--no-speed`` skips it): the engine, the
   simulation and the audits of both sides timed in the same run, interleaved, each side in
   its own processes with its own tree and cache; exit 1 (SLOWER) when the candidate takes
   more than the tolerance (10%) more time per hand than the baseline on one of them.
5. The worktree and the run folders are removed (``--keep`` keeps the run folders).

The candidate is the CURRENT working tree, uncommitted changes included (the report says when
there are any); the baseline is the committed REF.

Why ``PYTHONPATH`` and not a venv per side: the engine's dependencies (numpy, numba, pyarrow)
are the same on both sides unless REF changed them, and this needs no install (seconds, not
minutes). The limits: a baseline that needs other versions of dependencies, or that builds
compiled extensions, or whose package layout differs from ``sim``/``cluster`` at the top
level, will not run this way. ``--full-venv`` then creates ``TMP/venv`` and runs
``pip install TMP/baseline`` there (its pinned dependencies: needs the package index or a
wheel cache), and runs the baseline with that interpreter.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from audits import jitcache, runfolder
from audits.runfolder.errors import InputError
from cluster.regression import speed as speed_check
from cluster.regression.digest_diff import DiffResult, diff_runs, format_diff
from cluster.regression.divergence import explain_rows, logged_text
from cluster.regression.rootcause import format_root_causes, root_causes, summary
from cluster.regression.runs import EXIT_NOT_COMPARABLE, NotComparable

REPO_ROOT = Path(__file__).resolve().parents[2]
ALL_STRUCTURES = ("no-limit", "pot-limit", "fixed-limit")


class RegressError(InputError, RuntimeError):
    """A step of the regression check failed (one line; exit 2)."""


def _git(*args: str, cwd: Path = REPO_ROOT) -> str:
    r = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True,
                       check=False)
    if r.returncode != 0:
        raise RegressError(f"git {' '.join(args)}: {r.stderr.strip() or r.stdout.strip()}")
    return r.stdout.strip()


def resolve_ref(ref: str) -> str:
    """The commit sha of ``ref`` (RegressError if unknown)."""
    try:
        return _git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    except RegressError:
        raise RegressError(f"--baseline {ref}: not a commit of {REPO_ROOT}") from None


def uncommitted_changes() -> list[str]:
    """``git status --porcelain`` lines of the working tree (untracked files included)."""
    out = _git("status", "--porcelain")
    return [line for line in out.splitlines() if line.strip()]


def _units(structures: Sequence[str]) -> list[str]:
    labels = []
    for s in structures:
        for part in s.split(","):
            part = part.strip()
            if part == "all":
                labels += list(ALL_STRUCTURES)
            elif part:
                if part not in ALL_STRUCTURES:
                    raise RegressError(f"--structure {part!r}: expected one of "
                                       f"{', '.join(ALL_STRUCTURES)} or all")
                labels.append(part)
    labels = [s for s in ALL_STRUCTURES if s in labels]
    if not labels:
        raise RegressError("no structure given")
    return ["all"] if labels == list(ALL_STRUCTURES) else labels


def _side_env(cache: dict[str, str], env_path: str | None) -> dict[str, str]:
    """The environment of one side's processes: its compiled cache, its tree on PYTHONPATH
    (None: the package installed in its venv), no Ray cluster to join."""
    env = dict(os.environ)
    env.pop("RAY_ADDRESS", None)
    env.update(cache)
    if env_path is None:
        env.pop("PYTHONPATH", None)
    else:
        env["PYTHONPATH"] = env_path
    return env


def _simulate(python: str, tree: Path, out: Path, args: list[str], env_path: str | None,
              expect: Path, cache: dict[str, str]) -> None:
    env = _side_env(cache, env_path)
    check = ("import sim, cluster, sys; print(sim.__file__); print(cluster.__file__)")
    r = subprocess.run([python, "-c", check], capture_output=True, text=True, env=env,
                       cwd=str(tree), check=False)
    if r.returncode != 0:
        raise RegressError(f"{tree}: the engine does not import: {_last(r.stderr)}")
    for line in r.stdout.split():
        if not Path(line).resolve().is_relative_to(expect.resolve()):
            raise RegressError(f"{tree}: python imported {line}, not from {expect}")
    cmd = [python, "-m", "cluster.cli", "simulate", *args, "--workers", "0", "--quiet",
           "--out", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(tree), check=False)
    if r.returncode != 0:
        raise RegressError(f"{tree}: holdem simulate failed (exit {r.returncode}): "
                           f"{_last(r.stderr)}")


def replay_by_own_engine(python: str, tree: Path, env_path: str | None, cache: dict[str, str],
                         run: Path, hand_id: int, row: dict[str, Any], who: str) -> str:
    """One side's hand as its OWN engine replays it: ``holdem replay RUN --hand ID`` run by
    that side's interpreter with that side's tree (the command every engine version has, so
    an older baseline answers in its own words), which also checks that the replay ends the
    hand as its log does. When that engine cannot replay it (an engine without the command, or
    a row it does not replay to), the facts its engine logged, said so; never this tree's
    replay of the other side's hand (that shows this engine's rules in both columns)."""
    env = _side_env(cache, env_path)
    cmd = [python, "-m", "cluster.cli", "replay", str(run), "--hand", str(hand_id)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(tree), check=False)
    if r.returncode == 0 and r.stdout.strip():
        return re.sub(r"\(run [0-9a-f]+, ", "(", r.stdout.rstrip(), count=1)
    return (f"(not replayed by the {who}'s engine: {_last(r.stderr or r.stdout)}; the facts "
            f"its engine logged)\n{logged_text(row)}")


def _caches(tmp: Path) -> tuple[dict[str, str], dict[str, str]]:
    """The environment that gives each side its own compiled cache: (baseline, candidate)."""
    root = jitcache.cache_root()
    baseline = {jitcache.ENV_ROOT: str(root / "regress-baseline"),
                "NUMBA_CACHE_DIR": str(tmp / "numba-baseline")}  # a baseline without the keys
    return baseline, {jitcache.ENV_ROOT: str(root)}


def code_line(run: Path) -> str:
    """The compiled-code keys a run's manifest records (``audits.jitcache``), in words."""
    try:
        manifest = runfolder.RunFolder.open(run).read_manifest(any_layout=True) or {}
    except (OSError, ValueError):
        manifest = {}
    code = (manifest.get("provenance") or {}).get("code") or {}
    keys = code.get("compiled") if isinstance(code, dict) else None
    if not isinstance(keys, dict) or not keys:
        return "compiled-code keys not recorded (an engine older than the keyed caches)"
    return "compiled " + ", ".join(f"{k} {keys[k]}" for k in ("sim", "audits", "cluster")
                                   if k in keys)


def _last(text: str) -> str:
    lines = [x for x in text.strip().splitlines() if x.strip()]
    return lines[-1] if lines else "(no output)"


def _to_current_layout(run: Path, say: Callable[[str], None]) -> None:
    """A baseline engine older than the ``log/<label>/`` layout writes ``structure=<label>/``:
    convert its run folder (the same bytes, the manifest's paths rewritten) so that the two runs
    compare."""
    try:
        runfolder.RunFolder.open(run).check_layout()
    except runfolder.OldLayoutError:
        moved = runfolder.migrate(run)
        say(f"the baseline wrote the old run-folder layout: {moved} batch files moved to "
            f"{runfolder.LOG_DIR}/ (holdem migrate)")


def _explained(res: DiffResult, base_out: Path, cand_out: Path, sha: str,
               base_replay: Callable[[Path, int, dict[str, Any]], str],
               cand_replay: Callable[[Path, int, dict[str, Any]], str]) -> str:
    """The hand diff's report with the differences grouped by root cause
    (``cluster.regression.rootcause``) and the first root cause side by side, each side's
    hand replayed by its own engine."""
    from cluster.flows.replay import find_row

    m = res.match
    rc = root_causes(base_out, cand_out, m.differ + m.only_baseline + m.only_candidate)
    out = [format_diff(res, summary(rc)), format_root_causes(rc)]
    if rc.causes:
        c = rc.causes[0]
        ra, rb = find_row(base_out, c.hand_id_baseline), find_row(cand_out, c.hand_id)
        head, body = explain_rows(
            c.hand_id, ra, rb, base_replay(base_out, c.hand_id_baseline, ra),
            cand_replay(cand_out, c.hand_id, rb),
            (f"baseline {sha[:12]} (its own engine)", "candidate (this working tree)"),
            "each engine's replay of its own hand prints the same history: the rows differ in "
            "logged values the history does not show")
        moved = (f" (hand {c.hand_id_baseline} in the baseline)"
                 if c.hand_id_baseline != c.hand_id else "")
        out += [f"the first root cause{moved}, each side replayed by its own engine: {head}",
                body]
    else:
        first = m.first_differ[0] if m.first_differ else None
        out.append("no table plays differently: the differing hands moved (hand_id) or one "
                   "run holds hands the other lacks" + (f"; first: hand {first}"
                                                        if first is not None else ""))
    return "\n".join(out)


def plan_spec(hands: int, units: Sequence[str], seed: int, population: dict[str, Any],
              batch_size: int | None) -> tuple[Any, int | None]:
    """(this tree's ``RunSpec`` of the runs, the ``--batch-size`` to pass to both sides: None
    for simulate's own). Without a batch size given, simulate's own is kept when every
    structure's batches hold both table formats of a mixed population; else the smallest
    number of batches per structure that gives each both (a population of 20,000 hands per
    structure makes two batches of 10,000, and no-limit's two are both cash tables). Raises
    RegressError (one line) for options the spec refuses."""
    from sim.config import Structure
    from sim.runspec import RunSpec

    structures = tuple(Structure) if units == ["all"] else tuple(Structure.parse(u)
                                                                  for u in units)

    population = {k: v for k, v in population.items() if k != "structures"}  # the units'

    def spec(size: int | None) -> Any:
        try:
            extra: dict[str, Any] = {} if size is None else {"batch_size": size}
            return RunSpec(hands=hands, structures=structures, seed=seed, **population,
                           **extra)
        except (ValueError, TypeError) as e:
            raise RegressError(str(e).splitlines()[0]) from None

    default = spec(batch_size)
    if batch_size is not None or default.format != "mixed" or _both_formats(default):
        return default, batch_size
    for n in range(default.n_batches() + 1, min(hands, 100) + 1):
        size = -(-hands // n)
        s = spec(size)
        if _both_formats(s):
            return s, size
    return default, None


def _both_formats(spec: Any) -> bool:
    return all(len({spec.batch_table(s, i)[1] for i in range(spec.n_batches())}) == 2
               for s in spec.structures)


def describe_plan(spec: Any) -> str:
    """The runs in words: population, and each structure's batches by table format."""
    mix = spec.seat_mix()
    seats = (str(spec.players) if isinstance(spec.players, int)
             else ",".join(f"{n}:{w}" for n, w in mix))
    fmt = (f"mixed ({spec.tournament_pct}% tournament batches)" if spec.format == "mixed"
           else spec.format)
    per = []
    for s in spec.structures:
        kinds = [spec.batch_table(s, i)[1] for i in range(spec.n_batches())]
        per.append(f"{s.label} " + " + ".join(f"{kinds.count(f)} {f}" for f in
                                              ("cash", "tournament") if f in kinds))
    return (f"{spec.format if spec.format != 'mixed' else 'cash and tournament'} tables; "
            f"blinds {spec.small_blind}/{spec.big_blind}, seats {seats}, format {fmt}, bots "
            f"{spec.bots}, seed {spec.seed}; batches of "
            f"{spec.batch_size:,} hands: " + "; ".join(per))


def run_regress(baseline: str, *, hands: int = 20_000, structures: Sequence[str] = ("all",),
                seed: int = 1, population: dict[str, Any] | None = None,
                sim_args: Sequence[str] = (), batch_size: int | None = None, first: int = 10,
                full_venv: bool = False, keep: bool = False, speed: bool = True,
                speed_rounds: int = speed_check.ROUNDS, speed_hands: int = speed_check.HANDS,
                tolerance: float = speed_check.TOLERANCE,
                say: Callable[[str], None] = print) -> int:
    """Run the regression check; prints the report; returns the exit code (0 identical and not
    slower, 1 different or slower, 2 a step failed). ``population``: the ``RunSpec``
    population fields (default: simulate's default population,
    ``sim.runspec.population_fields()``), and ``sim_args`` the population options as given
    (simulate's names and forms), passed to both sides' ``holdem simulate``."""
    from sim.runspec import population_fields

    if speed and (not 1 <= speed_rounds <= 1_000 or not 1000 <= speed_hands <= 10**9
                  or not 0 < tolerance < 10):
        raise RegressError("--speed-rounds 1 .. 1,000, --speed-hands 1,000 .. 10^9 and "
                           "0 < --tolerance < 10 expected")
    sha = resolve_ref(baseline)
    units = _units(structures)
    pop = population_fields() if population is None else population
    plans = {unit: plan_spec(hands, [unit], seed, pop, batch_size) for unit in units}
    dirty = uncommitted_changes()
    say(f"baseline: {baseline} = {sha[:12]} (committed); candidate: the working tree "
        f"{REPO_ROOT}" + (f" WITH {len(dirty)} uncommitted change(s)" if dirty else " (clean)"))
    tmp = Path(tempfile.mkdtemp(prefix="holdem-regress-"))
    tree = tmp / "baseline"
    added = False
    t0 = time.perf_counter()
    try:
        _git("worktree", "add", "--detach", str(tree), sha)
        added = True
        python = sys.executable
        path: str | None = str(tree)  # None: the baseline's installed package
        if full_venv:
            venv = tmp / "venv"
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True,
                           capture_output=True)
            python = str(venv / "bin" / "python")
            r = subprocess.run([python, "-m", "pip", "install", "--quiet", str(tree)],
                               capture_output=True, text=True, check=False)
            if r.returncode != 0:
                raise RegressError(f"--full-venv: pip install failed: {_last(r.stderr)}")
            path = None  # the installed package
        worst = 0
        said: set[str] = set()  # lines said for an earlier structure
        base_cache, cand_cache = _caches(tmp)
        base_cwd = tree if path else tmp

        def base_replay(run: Path, hand_id: int, row: dict[str, Any]) -> str:
            return replay_by_own_engine(python, base_cwd, path, base_cache, run, hand_id, row,
                                        "baseline")

        def cand_replay(run: Path, hand_id: int, row: dict[str, Any]) -> str:
            return replay_by_own_engine(sys.executable, REPO_ROOT, str(REPO_ROOT), cand_cache,
                                        run, hand_id, row, "candidate")

        for unit in units:
            spec, size = plans[unit]
            args = ["--hands", str(hands), "--structure", unit, "--seed", str(seed), *sim_args]
            if size:
                args += ["--batch-size", str(size)]
            base_out, cand_out = tmp / "runs" / f"baseline-{unit}", tmp / "runs" / f"cand-{unit}"
            say(f"simulating {hands:,} hands per structure ({unit}) with both engines: "
                f"{describe_plan(spec)} ...")
            _simulate(python, base_cwd, base_out, args, path, tree if path else tmp / "venv",
                      base_cache)
            _to_current_layout(base_out, say)
            _simulate(sys.executable, REPO_ROOT, cand_out, args, str(REPO_ROOT), REPO_ROOT,
                      cand_cache)
            for line in (f"baseline code: {code_line(base_out)}",
                         f"candidate code: {code_line(cand_out)}"):
                if line not in said:  # the same code for every structure: said once
                    said.add(line)
                    say(line)
            try:
                res = diff_runs(base_out, cand_out, first=first, explain=False,
                                spec_changes=True)
            except NotComparable as e:
                line = f"holdem: {e}"
                say(line if line not in said
                    else f"holdem: {unit}: not comparable either, for the same reason")
                said.add(line)
                worst = max(worst, EXIT_NOT_COMPARABLE)
                continue
            if res.identical or res.stale_count:
                say(format_diff(res))
            else:
                try:
                    report = _explained(res, base_out, cand_out, sha, base_replay,
                                        cand_replay)
                except (InputError, ValueError, OSError) as e:  # the runs, read again
                    first_line = str(e).splitlines()[0] if str(e) else type(e).__name__
                    report = f"{format_diff(res)}\nroot causes not found: {first_line}"
                say(report)
            worst = max(worst, res.exit_code)
        hands_word = "IDENTICAL" if worst == 0 else "DIFFERENT" if worst == 1 else "FAILED"
        speed_word = ""
        if speed:
            say(f"timing both sides, interleaved ({speed_rounds} rounds) ...")
            base_side = speed_check.Side(python, tree if path else tmp, path,
                                         tree if path else tmp / "venv", base_cache)
            cand_side = speed_check.Side(sys.executable, REPO_ROOT, str(REPO_ROOT), REPO_ROOT,
                                         cand_cache)
            try:
                sp = speed_check.run_speed_check(base_side, cand_side, hands=speed_hands,
                                                 rounds=speed_rounds, tolerance=tolerance,
                                                 say=say)
            except speed_check.ProbeError as e:
                raise RegressError(str(e)) from None
            say(speed_check.format_speed(sp))
            worst = max(worst, sp.exit_code)
            speed_word = f", speed {sp.verdict}"
        else:
            say("speed: not checked (--no-speed)")
        say(f"regress: {hands_word}{speed_word} ({time.perf_counter() - t0:.1f} s)")
        if keep:
            say(f"run folders kept in {tmp / 'runs'}")
        return worst
    finally:
        if added:
            try:
                _git("worktree", "remove", "--force", str(tree))
            except RegressError as e:
                say(f"holdem: warning: {e}")
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
        elif tree.exists():
            shutil.rmtree(tree, ignore_errors=True)
