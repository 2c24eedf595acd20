"""Running audits over a run folder: the registered audits (``audits.registry``: name -> map
over a batch, reduce over the partials), a map over the batch files (in this process;
``cluster.flows.audit`` fans it out over Ray, one task per file, through
``run_audits(map_files=...)``), the reduce, and the ``audit.json`` report.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa

from audits import runfolder
from audits.integrity import Binding, FileFacts, is_product
from audits.io import (
    AuditInputError,
    OnTable,
    iter_batches,
    run_context,
    run_inputs,
)
from audits.players import PlayerList
from audits.registry import REGISTRY, SPECS, resolve
from audits.registry import available as available  # the registry's, for callers
from audits.registry import register as register
from audits.result import AuditResult
from audits.runfolder import storage
from audits.runfolder.storage import Location
from audits.runspec import SIMULATE_FORMAT

# map_files(fn, files, args, on_done): fn(file, *args) for every file, the results in file order
# (whatever order they were computed in), on_done(file, result) as each one ends
MapFiles = Callable[[Callable[..., Any], Sequence[str], tuple[Any, ...],
                     Callable[[str, Any], None]], list[Any]]


def cgroup_memory_limit(proc_cgroup: str = "/proc/self/cgroup",
                        root: str = "/sys/fs/cgroup") -> int | None:
    """The memory limit of this process's container (cgroup v2 ``memory.max`` or v1
    ``memory.limit_in_bytes``, of its own cgroup or the namespace root), None when unlimited or
    unknown. A Kubernetes pod's ``limits.memory`` is this limit, whatever the host's RAM."""
    try:
        with open(proc_cgroup) as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    candidates = [f"{root}/memory.max", f"{root}/memory/memory.limit_in_bytes"]
    for line in lines:
        _, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        path = path.rstrip("/")
        if controllers == "" and path:
            candidates.append(f"{root}{path}/memory.max")
        elif "memory" in controllers.split(",") and path:
            candidates.append(f"{root}/memory{path}/memory.limit_in_bytes")
    limits = []
    for c in candidates:
        try:
            with open(c) as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < 1 << 60:  # "max" / ~2^63: no limit
            limits.append(int(text))
    return min(limits) if limits else None


def default_key_memory() -> int:
    """The driver memory the key reduces may use: a quarter of the memory this process may
    use (the machine's RAM, or the container's cgroup limit when that is lower)."""
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        ram = 4 << 30
    limit = cgroup_memory_limit()
    return min(ram, limit) // 4 if limit else ram // 4


AUDIT_FILE = runfolder.AUDIT_FILE  # what ``write_audit_json`` writes into the run folder
FAILING_FILE = runfolder.FAILING_FILE  # and beside it: every failing hand, when there is one
FAILING_SHOWN = 20  # failing hands audit.json (and so the page) repeats from the file


def failing_csv(results: Sequence[AuditResult]) -> tuple[str, int]:
    """(the text of failing_hands.csv, its rows): every failing hand of every audit, in audit
    then hand order as the audits found them: ``audit,hand_id,reason`` (the reason with what
    the log says and what the rules give, where the audit names amounts)."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["audit", "hand_id", "reason"])
    rows = 0
    for r in results:
        for hid, reason in r.failing:
            w.writerow([r.name, hid, reason])
            rows += 1
    return buf.getvalue(), rows


class ChunkPartials(list):
    """The partials of one audit over the chunks of one large file (each a separate partial for
    the reduce, like the partials of separate files)."""


def map_file(path: str, names: Sequence[str], partitions: dict[str, int] | None = None,
             context: dict[str, Any] | None = None, *, on_table: OnTable | None = None,
             extra: Sequence[str] = ()
             ) -> tuple[str, int, dict[str, Any], tuple[str, int]]:
    """Read one batch file's bytes once, hash them (sha256 and size) and decode those same
    bytes in bounded chunks (cut between tables), running every named audit's map on each
    chunk: the sha256 audit.json records (and certify carries into the certificate) is that of
    the bytes audited, never of another read of the file (a file swapped in between would be
    certified under the other's hash). A file of one
    chunk gives one partial per audit; a larger file gives a ``ChunkPartials`` list per audit.
    ``partitions[name] = P`` keeps only key partition 0 of P in that audit's partials
    (``KeyPass``). ``context``: the run's facts from its manifest (``audits.io.run_context``),
    which the maps check rows against. Returns (path, hands, partials by audit, (sha256,
    bytes)). ``on_table`` and ``extra``: as ``audits.io.iter_batches`` (the reproduction of
    ``holdem certify`` sees each chunk decoded, in this one read)."""
    try:
        data = storage.read_bytes(storage.as_location(path))
    except (OSError, pa.ArrowException, storage.StorageError) as e:
        raise AuditInputError(f"{path}: cannot read it ({e})") from None
    digest = (hashlib.sha256(data).hexdigest(), len(data))
    hands = 0
    out: dict[str, Any] = {}
    for b in iter_batches(path, data=data, on_table=on_table, extra=extra):
        b.context = context or {}
        hands += b.n
        for name in names:
            part = REGISTRY[name].map(b)
            spec_keys = REGISTRY[name].keys
            if partitions and partitions.get(name, 1) > 1 and spec_keys is not None:
                part = spec_keys.restrict(part, 0, partitions[name])
            if name not in out:
                out[name] = part
            elif isinstance(out[name], ChunkPartials):
                out[name].append(part)
            else:
                out[name] = ChunkPartials([out[name], part])
        del b
    return path, hands, out, digest


def _partials(parts: list[tuple[str, int, dict[str, Any], Any]], name: str) -> list[Any]:
    flat: list[Any] = []
    for p in parts:
        v = p[2][name]
        if isinstance(v, ChunkPartials):
            flat.extend(v)
        else:
            flat.append(v)
    return flat


def count_hands(files: Sequence[Location]) -> int:
    """Rows in the files from their Parquet footers (also catches unreadable files early)."""
    total = 0
    for f in files:
        try:
            total += storage.open_parquet(f).metadata.num_rows
        except Exception as e:
            raise AuditInputError(
                f"{f}: not a readable Parquet file ({type(e).__name__})") from None
    return total


# what a simulated run that planted a fault says of its hands (cluster.flows.manifest writes it into
# manifest.json as ``FAULT INJECTED: <fault>. <this>``; the audit shows ``<fault>. <this>``)
SIMULATED_FAULT_NOTE = ("These hands were dealt or paid by a deliberately broken engine; this log "
                        "must FAIL certification.")


def fault_warning(inject: str) -> str:
    """The warning of a simulated run that planted the fault ``inject``."""
    return f"{inject}. {SIMULATED_FAULT_NOTE}"


@dataclass
class AuditReport:
    run: str
    results: list[AuditResult]
    files: int
    hands: int
    seconds: float
    manifest: dict[str, Any] | None = None
    runtime: dict[str, Any] = field(default_factory=dict)
    # what was audited: {"manifest": {"path", "sha256"} | None, "files": [{"path", "sha256",
    # "bytes", "rows"}], "unaudited": [{"path", "sha256"}] (other files in the folder)} (paths
    # relative to the run folder)
    inputs: dict[str, Any] = field(default_factory=dict)
    # what a ``run_audits(map_fn=...)`` map returned past ``map_file``'s fields, by file (not
    # in audit.json)
    extras: dict[str, tuple[Any, ...]] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    @property
    def inject(self) -> str | None:
        """The fault the run planted: its spec's ``inject`` (a simulated run's manifest), else
        the manifest's ``inject``."""
        m = self.manifest or {}
        facts = run_context(m).get("facts") if m.get("format") == SIMULATE_FORMAT else None
        return facts["inject"] if facts is not None else m.get("inject")

    @property
    def fault_injected(self) -> str | None:
        """The warning of a run that planted a fault: for a simulated run, made from its spec's
        ``inject`` (a value, never parsed back out of the manifest's text:
        ``fault_warning``); for another manifest, its ``fault_injected`` text."""
        m = self.manifest or {}
        if m.get("format") == SIMULATE_FORMAT:
            return None if self.inject is None else fault_warning(self.inject)
        text = (m.get("fault_injected") if self.inject else None) or self.inject
        if not text:
            return None
        text = str(text)
        return text[len("FAULT INJECTED:"):].strip() if text.startswith("FAULT INJECTED:") else text

    def to_dict(self) -> dict[str, Any]:
        from audits.runfolder.provenance import provenance

        m = self.manifest or {}
        return {
            "format": "holdem-audit", "version": 1, "run": self.run,
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "passed": self.passed, "run_id": m.get("run_id"), "fingerprint": m.get("fingerprint"),
            "inject": self.inject, "fault_injected": self.fault_injected,
            "files": self.files, "hands": self.hands, "seconds": round(self.seconds, 3),
            "hands_per_second": round(self.hands / self.seconds) if self.seconds > 0 else None,
            "runtime": self.runtime, "inputs": self.inputs,
            "results": [{**r.to_dict(), "checks": REGISTRY[r.name].description}
                        if r.name in REGISTRY else r.to_dict() for r in self.results],
            "provenance": provenance(),  # the audit code, library versions, command line
            "failing_hands": self.failing_record(),
            # the built-in audits this audit.json lacks (``holdem audit --only``): the
            # certificate names each as not audited
            "not_run": [s.name for s in SPECS if s.name not in {r.name for r in self.results}],
        }

    def failing_record(self) -> dict[str, Any] | None:
        """audit.json's ``failing_hands``: failing_hands.csv's name, rows (per audit), sha256
        and first lines; None when no audit failed a hand (no file)."""
        text, rows = failing_csv(self.results)
        if not rows:
            return None
        per = {r.name: len(r.failing) for r in self.results if r.failing}
        # an audit whose failures pass MAX_FAILING (or that fails hands it cannot list one by
        # one): its list is the first of them, said here with the count it has
        cut = {r.name: r.failures for r in self.results
               if r.failing and len(r.failing) < r.failures}
        first = [{"audit": r.name, "hand_id": h, "reason": why} for r in self.results
                 for h, why in r.failing[:FAILING_SHOWN]][:FAILING_SHOWN]
        return {"path": FAILING_FILE, "rows": rows, "per_audit": per,
                **({"cut": cut} if cut else {}),
                "sha256": hashlib.sha256(text.encode()).hexdigest(), "first": first}


def map_in_process(fn: Callable[..., Any], files: Sequence[str], args: tuple[Any, ...],
                   on_done: Callable[[str, Any], None]) -> list[Any]:
    """The ``MapFiles`` of this process: ``fn(file, *args)`` for each file in turn."""
    out = []
    for f in files:
        out.append(fn(f, *args))
        on_done(f, out[-1])
    return out


def key_partitions(names: Sequence[str], files: Sequence[Location], key_memory: int | None,
                   hands: int | None = None) -> dict[str, int]:
    """How many key partitions each audit with a ``KeyPass`` needs (only those above 1): each
    partition past the first is one more pass over the files (``hands`` counted when None)."""
    keyed = [n for n in names if REGISTRY[n].keys is not None]
    if not keyed:
        return {}
    hands = count_hands(files) if hands is None else hands
    memory = default_key_memory() if key_memory is None else key_memory
    out = {n: REGISTRY[n].keys.partitions(hands, memory) for n in keyed}  # type: ignore[union-attr]
    return {n: p for n, p in out.items() if p > 1}


@dataclass(frozen=True)
class AuditPlan:
    """An audit's setup, made once (``plan_audit``) and used by both the progress bar and the
    audit: the audits to run, the run's batch files (from its manifest), the folder's listing,
    the manifest (read once), the run's facts, its hands (when counted) and the key partitions
    (``key_partitions``)."""

    root: Location
    names: list[str]
    files: list[Location]
    listing: list[str]
    manifest: dict[str, Any] | None
    manifest_sha256: str | None  # of the bytes the manifest was parsed from (one read)
    context: dict[str, Any]
    hands: int | None
    partitions: dict[str, int]

    @property
    def passes(self) -> int:
        """Passes over the files: one, plus one per key partition past the first."""
        return 1 + sum(p - 1 for p in self.partitions.values())


def plan_audit(run: Location, names: Sequence[str] | None = None, *,
               key_memory: int | None = None, hands: int | None = None,
               count: bool = False) -> AuditPlan:
    """The setup of an audit of ``run`` with ``names`` (None: all): the folder listed and its
    manifest read once (``audits.io.run_inputs``), its hands counted from the files' footers
    when ``count`` (for a progress bar; else ``hands`` as given), the run's facts
    (``run_context``: exit 2 for a run without them) and the key partitions."""
    selected = resolve(names)
    root = storage.as_location(run)
    log = run_inputs(root, missing_ok=True)
    located, listing, manifest = log.locations(), log.listing, log.manifest
    if count and hands is None:
        hands = count_hands(located)
    context = run_context(manifest)  # the run's facts from its spec (exit 2 when it has none)
    partitions = key_partitions(selected, located, key_memory, hands)
    return AuditPlan(root, selected, located, listing, manifest, log.manifest_sha256, context,
                     hands, partitions)


def run_audits(run: Location, names: Sequence[str] | None = None, *,
               on_file: Callable[[str, int], None] | None = None,
               key_memory: int | None = None, hands: int | None = None,
               map_files: MapFiles = map_in_process,
               runtime: dict[str, Any] | None = None,
               plan: AuditPlan | None = None,
               map_fn: Callable[..., Any] | None = None,
               map_args: tuple[Any, ...] = (),
               players: PlayerList | None = None) -> AuditReport:
    """Audit a run folder. The files are mapped by ``map_files`` (default: in this process, one
    after the other; ``cluster.flows.audit`` passes one that fans them out over Ray, and describes
    it
    in ``runtime``, audit.json's record of where the audit ran). ``on_file(path, hands)``
    reports progress.
    ``key_memory`` bounds the bytes of per-hand keys an audit's reduce holds at once (default: a
    quarter of this machine's RAM, or of its container's memory limit when lower); a larger run
    costs extra passes over one column, each file of which is reported to ``on_file`` too.
    ``hands``: the run's row count when the caller has read it already (else the files' footers
    are read for it when a key memory applies). ``plan``: the setup the caller made already
    (``plan_audit``; ``names``, ``key_memory`` and ``hands`` are then its). ``players``: a
    lab's list of suspect players (``audits.players``): the uniformity battery adds its
    targeted tests and records the list.
    Every file is hashed (``AuditReport.inputs``) whichever audits run; the ``integrity`` audit
    checks the hashes against the manifest (``holdem audit`` always runs it).
    ``map_fn``: the per-file map (None: ``map_file``, looked up at the call), called as
    ``map_file`` is with ``map_args`` after its own; a result of more than ``map_file``'s
    four fields keeps the rest as ``AuditReport.extras[path]`` (``holdem certify``'s
    reproduction in the audit's read: ``cluster.flows.reproduce_values``)."""
    if plan is None:
        plan = plan_audit(run, names, key_memory=key_memory, hands=hands)
    selected, root, manifest = plan.names, plan.root, plan.manifest
    files = [str(f) for f in plan.files]
    context, partitions = plan.context, plan.partitions
    t0 = time.perf_counter()
    runtime = dict(runtime or {"ray": "in-process"})
    hands_of: dict[str, int] = {}

    def _key_progress(f: str, _: Any) -> None:
        if on_file:
            on_file(f, hands_of.get(f, 0))

    def _main_progress(f: str, res: tuple[str, int, dict[str, Any], Any]) -> None:
        hands_of[f] = res[1]
        if on_file:
            on_file(f, res[1])

    # the partials in file order, whatever order the map ended in: the reduces keep the first
    # examples and samples, so the completion order (which a retried task changes) must not
    # reach the report
    parts = map_files(map_fn or map_file, files, (selected, partitions, context, *map_args),
                      _main_progress)
    extras = {p[0]: p[4:] for p in parts if len(p) > 4}
    extra: dict[str, list[Any]] = {}
    for name, count in partitions.items():
        kp = REGISTRY[name].keys
        assert kp is not None
        extra[name] = [kp.reduce(map_files(kp.keys, files, (p, count), _key_progress))
                       for p in range(1, count)]
    if partitions:
        runtime["key_partitions"] = partitions
    binding, inputs = _bind(root, manifest, plan.manifest_sha256, plan.listing, parts)
    if "integrity" in selected:
        extra.setdefault("integrity", []).append(binding)
    if players is not None and "uniformity" in selected:
        extra.setdefault("uniformity", []).append(players)
    seconds = time.perf_counter() - t0
    results = [REGISTRY[name].reduce(name, _partials(parts, name) + extra.get(name, []))
               for name in selected]
    return AuditReport(run=str(run), results=results, files=len(files),
                       hands=sum(p[1] for p in parts),
                       seconds=seconds, manifest=manifest, runtime=runtime, inputs=inputs,
                       extras=extras)


def _bind(root: Location, manifest: dict[str, Any] | None, msha: str | None, listing: list[str],
          parts: list[tuple[str, int, dict[str, Any], tuple[str, int]]]
          ) -> tuple[Binding, dict[str, Any]]:
    """The integrity audit's view of the folder (its listing, as the audit's setup took it;
    the manifest's missing files, the audited files' facts) and audit.json's record of the
    audited inputs. ``msha``: the sha256 of the manifest's bytes the setup parsed."""
    try:
        folder = runfolder.RunFolder.open(root)
        present = set(listing)
        missing = ([rel for rel in runfolder.listed_paths(manifest) if rel not in present]
                   if manifest is not None else [])
        facts = [FileFacts(storage.relative(root, p[0]), p[3][0], p[3][1], p[1]) for p in parts]
        audited = {f.path for f in facts}
        # files the audit did not read (the integrity audit names them), hashed all the same:
        # the report certifies the folder as it was
        others = [{"path": rel, "sha256": folder.sha256(rel)[0]}
                  for rel in listing if rel not in audited and not is_product(rel)]
    except (OSError, pa.ArrowException, storage.StorageError, runfolder.RunFolderError) as e:
        raise AuditInputError(f"{root}: cannot list or read it ({e})") from None
    inputs = {"manifest": {"path": "manifest.json", "sha256": msha} if msha else None,
              "files": [f.to_dict() for f in facts], "unaudited": others}
    return Binding(manifest, listing, missing, facts), inputs


def write_audit_json(report: AuditReport, path: Location | None = None) -> Location:
    """Write ``audit.json`` (into the run folder, local or a URI, by default)."""
    text = json.dumps(report.to_dict(), indent=2, default=str) + "\n"
    if path is not None:
        return storage.write_atomic(storage.as_location(path), text)
    root = storage.as_location(report.run)
    failing, rows = failing_csv(report.results)
    folder = runfolder.RunFolder.open(root)
    if rows:  # written before audit.json, which records its sha256
        runfolder.write_file(root, FAILING_FILE, failing)
    elif storage.is_file(folder.location(FAILING_FILE)):  # a stale list never stays
        folder.delete(FAILING_FILE)
    return runfolder.write_file(root, AUDIT_FILE, text)


def format_table(report: AuditReport) -> str:
    """The results as a plain-text table, with the first violations of failing audits."""
    lines = []
    fault = report.fault_injected
    if fault:
        bar = "!" * 72
        lines += [bar, f"!!! FAULT INJECTED: {fault}",
                  "!!! this log is MEANT to fail certification", bar]
    lines.append(f"{'audit':<12} {'verdict':<8} {'hands':>12} {'failures':>10}  "
                 "p-value   first failing hands")
    for r in report.results:
        verdict = "n/a" if not r.applicable else ("PASS" if r.passed else "FAIL")
        p = "" if r.p_value is None else f"{r.p_value:.3g}"
        ex = ", ".join(str(h) for h in r.example_hand_ids[:3])
        lines.append(f"{r.name:<12} {verdict:<8} {r.hands_checked:>12,} {r.failures:>10,}  "
                     f"{p:<9} {ex}")
    for r in report.results:
        if not r.applicable and r.details.get("note"):
            lines.append(f"  {r.name}: n/a: {r.details['note']}")
        if not r.passed and r.details.get("failed_tests"):  # a statistical battery's tests
            adj = {t.get("name", "").rpartition(".")[2]: t.get("details", {}).get(
                "holm_adjusted_p") for t in r.details.get("tests", [])}
            lines.append(f"  {r.name}: failed tests: " + ", ".join(
                f"{t} (Holm p {adj[t]:.3g})" if isinstance(adj.get(t), float) else t
                for t in r.details["failed_tests"]))
        for v in r.details.get("violations", [])[:3] if not r.passed else []:
            where = "" if v["hand_id"] is None else f"hand {v['hand_id']}: "
            lines.append(f"  {r.name}: {where}{v['reason']}")
    rate = f", {report.hands / report.seconds:,.0f} hands/s" if report.seconds > 0 else ""
    lines.append(f"{report.hands:,} hands in {report.files} files, {report.seconds:.2f} s{rate}: "
                 f"{'ALL PASS' if report.passed else 'FAILED'}")
    return "\n".join(lines)
