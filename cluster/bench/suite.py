"""``holdem bench all [--json OUT] [--quick]``: every benchmark in one process, one after the
other, each printing its own table; then one record of every figure with its peer measured in
the same run (the ratio between them is what compares across machines and loads), the machine
(cores, load average before and after, CPU model), the code (git commit, dirty flag, the
compiled-code keys of ``audits.jitcache``) and the sizes.

Each figure is what its benchmark reports: the median of its repeats. ``--quick`` runs every
benchmark at small sizes (seconds, for tests and smoke checks: the figures are then noisy)
and without Ray; ``--no-ray`` leaves out the two Ray benchmarks (``simulate`` on Ray,
``scale``).

The JSON (``FORMAT``): ``{"format", "version", "quick", "code", "machine", "sizes",
"figures": [{"bench", "figure", "value", "unit", "peer": {"figure", "value"} | null,
"ratio"}], "benches": {name: the benchmark's own result}}``; ``ratio`` is value / peer value.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cluster.bench.runner import BENCH_DEFAULTS

FORMAT = "holdem-bench-all"
VERSION = 1
# benchmark -> (hands, repeats) in --quick mode (every path but Ray's; the figures are noisy)
QUICK: dict[str, tuple[int, int]] = {
    "engine": (20_000, 2), "evaluator": (100_000, 2), "simulate": (4_000, 2),
    "audit": (4_000, 2), "diff": (4_000, 2), "shuffle": (20_000, 2), "export": (2_000, 2),
    "import": (600, 2)}
QUICK_BATCH = 1_000  # simulate's batch in --quick mode
QUICK_POKERKIT = 20  # PokerKit's hands (engine, import) in --quick mode
QUICK_TEXT = 100  # site-text hands (import) in --quick mode


def _figure(bench: str, figure: str, value: float | None, unit: str,
            peer: tuple[str, float | None] | None = None) -> dict[str, Any]:
    p = None if peer is None or peer[1] is None else {"figure": peer[0], "value": peer[1]}
    ratio = value / peer[1] if p and peer and peer[1] and value is not None else None
    return {"bench": bench, "figure": figure, "value": value, "unit": unit, "peer": p,
            "ratio": ratio}


def figures(benches: dict[str, Any]) -> list[dict[str, Any]]:
    """The flat list of figures, each with its peer from the same run where one exists."""
    out: list[dict[str, Any]] = []
    hs = "hands/s per core"
    e = benches.get("engine")
    if e:
        out.append(_figure("engine", "hands/s", e["hands_per_s"], hs,
                           ("PokerKit hands/s", e.get("pokerkit_hands_per_s"))))
        out.append(_figure("engine", "actions/s", e["actions_per_s"], "actions/s per core"))
    ev = benches.get("evaluator")
    if ev:
        out.append(_figure("evaluator", "evaluate7 hands/s", ev["hands_per_s"], hs))
    s = benches.get("simulate")
    if s:
        inproc = {r["hands"]: r["hands_per_second"] for r in s["rows"] if r["workers"] == 0}
        for r in s["rows"]:
            if r["workers"] == 0:
                out.append(_figure("simulate", f"in-process, {r['hands']:,} hands",
                                   r["hands_per_second"], "hands/s (wall, one process)",
                                   ("engine alone hands/s",
                                    e["hands_per_s"] if e else None)))
            else:
                out.append(_figure("simulate", f"Ray x{r['workers']}, {r['hands']:,} hands",
                                   r["hands_per_second"], "hands/s (wall)",
                                   ("in-process hands/s", inproc.get(r["hands"]))))
        us = s["breakdown_us_per_hand"]
        for k in ("play", "arrow"):
            out.append(_figure("simulate", f"{k} µs/hand", us[k], "µs per hand"))
        out.append(_figure("simulate", "Parquet encode µs/hand (every column)", us["encode"],
                           "µs per hand", ("Parquet encode µs/hand (4 columns)",
                                           us["peer_encode"])))
    a = benches.get("audit")
    if a:
        out.append(_figure("audit", "read + all audits", a["read_and_all_audits"], hs))
        out.append(_figure("audit", "all audits (excluding read)", a["all_audits"], hs))
        out.append(_figure("audit", "read + decode", a["read"], hs))
        out.append(_figure("audit", "Parquet decode (the audited columns)", a["parquet_decode"],
                           hs, ("Parquet decode (4 columns)", a["peer_parquet_decode"])))
        for name, v in a["audits"].items():
            out.append(_figure("audit", f"audit {name}", v, hs))
        out.append(_figure("audit", "sha256 of the files", a["sha256"], hs))
    d = benches.get("diff")
    if d:
        out.append(_figure("diff", "digest + match", d["digest_match"], hs,
                           ("Arrow Table.equals", d["peer_arrow_equals"])))
        for label, v in d["on_disk"].items():
            out.append(_figure("diff", f"on disk: {label}", v, hs))
    sh = benches.get("shuffle")
    if sh:
        for k, v in sh["ours"].items():
            peer = sh["numpy_permuted"].get(k)
            out.append(_figure("shuffle", k, v, "decks/s per core",
                               None if peer is None else ("numpy permuted", peer)))
    x = benches.get("export")
    if x:
        for k, v in x.items():
            out.append(_figure("export", k, v, hs))
    im = benches.get("import")
    if im:
        reader = "sim.histories.read.sections (TOML -> values)"
        hands = "sim.histories.read.phh.reads_phh (+ hands)"
        for k, v in im.items():
            if k.startswith("peer"):
                continue
            peer = (("tomllib (floats)", im.get("peer tomllib (floats)")) if k == reader
                    else ("PokerKit HandHistory (parse)",
                          im.get("peer PokerKit HandHistory (parse)")) if k == hands
                    else ("PokerKit site parsers (parse)",
                          im.get("peer PokerKit site parsers (parse)"))
                    if k == "site text: read, PokerKit's sites only"
                    else ("PHH whole import", im.get("whole import (read+replay+rows+tables)"))
                    if k == "site text: whole import (read+replay+rows+tables)" else None)
            out.append(_figure("import", k, v, hs, peer))
    sc = benches.get("scale")
    if sc:
        one = next((r["hands_per_second"] for r in sc["rows"] if r["workers"] == 1), None)
        for r in sc["rows"]:
            if r["workers"] != 1:
                out.append(_figure("scale", f"{r['workers']} Ray workers", r["hands_per_second"],
                                   "hands/s (wall)", ("1 Ray worker", one)))
    return out


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _load() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def machine() -> dict[str, Any]:
    """The machine the figures were measured on (load: 1, 5, 15-minute averages)."""
    try:
        usable: int | None = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {"cores": os.cpu_count(), "cores_usable": usable, "cpu": _cpu_model(),
            "platform": platform.platform(), "python": platform.python_version(),
            "load_before": _load()}


def code() -> dict[str, Any]:
    """The code measured: commit, dirty flag, how it was named, the compiled-code keys."""
    from audits import jitcache
    from audits.runfolder.provenance import code_identity, versions

    ident = code_identity()
    return {"git_commit": ident["git_commit"], "git_dirty": ident["git_dirty"],
            "identified_by": ident["identified_by"], "compiled": ident["compiled"],
            "toolchain": jitcache.identity()["toolchain"], "versions": versions()}


def check_writable(path: str | os.PathLike[str]) -> Path:
    """The JSON's path, refused up front (ValueError, one line) when its folder is missing or
    not writable: before minutes of benchmarks, not after."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"--json {path}: folder {parent} does not exist")
    if p.is_dir():
        raise ValueError(f"--json {path}: is a folder (expected a file name)")
    if not os.access(parent, os.W_OK):
        raise ValueError(f"--json {path}: folder {parent} is not writable")
    return p


def write_json(record: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write the record whole or not at all (a temporary name, then renamed)."""
    p = Path(path)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(record, indent=1, default=str) + "\n")
        os.replace(tmp, p)
    finally:
        tmp.unlink(missing_ok=True)


def run_all(*, quick: bool = False, ray: bool = True, json_out: str | None = None,
            say: Callable[[str], None] = print) -> dict[str, Any]:
    """Run every benchmark (see the module doc), print each one's table and a summary of the
    figures with their peers; write the record to ``json_out`` when given; return it. Raises
    ValueError (one line) for an unusable ``json_out`` before running anything."""
    out_path = check_writable(json_out) if json_out else None
    ray = ray and not quick
    sizes = dict(QUICK if quick else BENCH_DEFAULTS)
    if not quick:
        sizes["evaluator"] = (10_000_000, 3)
    if not ray:
        sizes.pop("scale", None)
    record: dict[str, Any] = {"format": FORMAT, "version": VERSION, "quick": quick,
                              "code": code(), "machine": machine(),
                              "sizes": {k: {"hands": h, "repeats": r}
                                        for k, (h, r) in sizes.items()}}
    benches: dict[str, Any] = {}
    real = sys.stdout  # what print wrote to before the benchmarks' output is redirected

    def emit(line: str) -> None:
        if say is print:
            print(line, file=real)
        else:
            say(line)

    t0 = time.perf_counter()
    pk = QUICK_POKERKIT if quick else 300
    for name in ("engine", "evaluator", "simulate", "audit", "diff", "shuffle", "export",
                 "import", "scale"):
        if name not in sizes:
            continue
        n, r = sizes[name]
        say(f"== holdem bench {name} ==")
        with contextlib.redirect_stdout(_Say(emit)):
            benches[name] = _run_one(name, n, r, quick=quick, ray=ray, pokerkit=pk)
    record["machine"]["load_after"] = _load()
    record["seconds"] = round(time.perf_counter() - t0, 1)
    record["figures"] = figures(benches)
    record["benches"] = benches
    say(f"== every figure with its peer (same run; {record['seconds']:.0f} s) ==")
    for f in record["figures"]:
        peer = (f"  vs {f['peer']['figure']} {_num(f['peer']['value'])}: {f['ratio']:,.2f}x"
                if f["peer"] else "")
        say(f"  {f['bench']:<9} {f['figure']:<46} {_num(f['value']):>14} {f['unit']}{peer}")
    if out_path:
        write_json(record, out_path)
        say(f"written: {out_path}")
    return record


def _num(v: float | None) -> str:
    return "n/a" if v is None else f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.2f}"


class _Say:
    """A text stream that hands each line a benchmark prints to ``say``."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self._say, self._buf = say, ""

    def write(self, text: str) -> int:
        self._buf += text
        while "\n" in self._buf:
            line, self._buf = self._buf.split("\n", 1)
            self._say(line)
        return len(text)

    def flush(self) -> None:
        pass


def _run_one(name: str, n: int, r: int, *, quick: bool, ray: bool, pokerkit: int) -> Any:
    """One benchmark's figures (its own function, its table printed)."""
    if name == "engine":
        from cluster.bench.engine import run_engine_bench

        return run_engine_bench(hands=n, repeats=r, pokerkit_hands=pokerkit)
    if name == "evaluator":
        from cluster.bench.evaluator import run_evaluator_bench

        res = run_evaluator_bench(n_hands=n, repeats=r, enumerate_all=not quick)
        print(f"evaluate7: {res['hands_per_s']:,.0f} hands/s (median of {r} x {n:,})")
        if not quick and not res["ok"]:
            raise RuntimeError("the evaluator's category counts are wrong (holdem bench "
                               "evaluator)")
        return res
    if name == "simulate":
        from cluster.bench.simulate import run_simulate_bench

        return run_simulate_bench(hands=n, repeats=r, batch_size=QUICK_BATCH if quick
                                  else 10_000, ray_workers=2 if ray and not quick else 0,
                                  out=sys.stdout)
    if name == "audit":
        from cluster.bench.audit import run_audit_bench

        return run_audit_bench(n, repeats=r)
    if name == "diff":
        from cluster.bench.diff import run_diff_bench

        return run_diff_bench(hands=n, repeats=r)
    if name == "shuffle":
        from cluster.bench.shuffle import run_shuffle_bench

        return run_shuffle_bench(decks=n, repeats=r)
    if name == "export":
        from cluster.bench.export import run_export_bench

        return run_export_bench(hands=n, repeats=r)
    if name == "import":
        from cluster.bench.import_phh import TEXT_HANDS, run_import_bench

        return run_import_bench(hands=n, repeats=r, pokerkit_hands=pokerkit,
                                text_hands=QUICK_TEXT if quick else TEXT_HANDS)
    from cluster.bench.scale import run_scale_bench

    return run_scale_bench(hands=n, repeats=r)
