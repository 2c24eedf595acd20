"""Golden digests: a small committed fingerprint of the engine's behaviour.

For every (structure, format) case, ``HANDS`` seeded hands are simulated in process
(``sim.batch.simulate_batch``, one batch) and reduced to content digests (``sim.digest``):
one combined digest of the whole case and one per ``CHUNK`` hands, so a failure names the
chunks (hand ranges) that moved. The file (``tests/golden/digests.json``) is JSON::

    {"format": "holdem-golden-digests", "digest_version": 1, "schema_version": 1,
     "seed": 20261129, "hands": 10000, "chunk": 1000, "players": 6,
     "cases": {"no-limit/cash": {"digest": "<16 hex>", "chunks": ["<16 hex>", ...]}, ...}}

``tests/cluster/test_golden.py`` recomputes the digests and fails on any difference: every
change of engine behaviour (cards, actions, payouts, the log's columns) fails the suite until it
is accepted deliberately with ``holdem golden --update``, whose commit must give the reason.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from audits.runfolder.errors import InputError

FORMAT = "holdem-golden-digests"
SEED = 20261129
HANDS = 10_000
CHUNK = 1_000
PLAYERS = 6
FORMATS = ("cash", "tournament")
DEFAULT_PATH = Path(__file__).resolve().parents[2] / "tests" / "golden" / "digests.json"


def case_digests(structure: str, fmt: str, *, hands: int = HANDS, chunk: int = CHUNK,
                 seed: int = SEED, players: int = PLAYERS) -> dict[str, Any]:
    """{"digest": hex, "chunks": [hex, ...]} of one (structure, format) case."""
    from sim.batch import simulate_batch
    from sim.config import Structure
    from sim.digest import combine_digests, hand_digests, hex_digest
    from sim.runspec import RunSpec

    s = Structure.parse(structure)
    spec = RunSpec(hands=hands, batch_size=hands, structures=(s,), format=fmt, seed=seed,
                   players=players)
    d = hand_digests(simulate_batch(spec, s, 0).table)
    return {"digest": hex_digest(combine_digests(d)),
            "chunks": [hex_digest(combine_digests(d[i:i + chunk]))
                       for i in range(0, len(d), chunk)]}


def compute_golden(*, hands: int = HANDS, chunk: int = CHUNK, seed: int = SEED,
                   players: int = PLAYERS) -> dict[str, Any]:
    """The golden document of the engine as it is now."""
    from sim.config import Structure
    from sim.digest import DIGEST_VERSION
    from sim.schema import SCHEMA_VERSION

    cases = {f"{s.label}/{fmt}": case_digests(s.label, fmt, hands=hands, chunk=chunk,
                                              seed=seed, players=players)
             for s in Structure for fmt in FORMATS}
    return {"format": FORMAT, "digest_version": DIGEST_VERSION,
            "schema_version": SCHEMA_VERSION, "seed": seed, "hands": hands, "chunk": chunk,
            "players": players, "cases": cases}


def load_golden(path: str | Path = DEFAULT_PATH) -> dict[str, Any] | None:
    p = Path(path)
    if not p.exists():
        return None
    try:
        d = json.loads(p.read_text())
    except ValueError as e:
        raise InputError(f"{p}: not JSON ({e})") from None
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise InputError(f"{p}: not a golden digests file")
    return d


def compare_golden(stored: dict[str, Any] | None, fresh: dict[str, Any]) -> list[str]:
    """What changed from ``stored`` to ``fresh``, one line each (empty: nothing)."""
    if stored is None:
        return ["no stored golden digests"]
    out = []
    for key in ("digest_version", "schema_version", "seed", "hands", "chunk", "players"):
        if stored.get(key) != fresh.get(key):
            out.append(f"{key}: {stored.get(key)} -> {fresh.get(key)}")
    chunk = fresh["chunk"]
    old, new = stored.get("cases", {}), fresh["cases"]
    for case in sorted(set(old) | set(new)):
        if case not in new:
            out.append(f"{case}: no longer computed")
            continue
        if case not in old:
            out.append(f"{case}: new case")
            continue
        if old[case].get("digest") == new[case]["digest"]:
            continue
        oc, nc = old[case].get("chunks", []), new[case]["chunks"]
        moved = [i for i in range(max(len(oc), len(nc)))
                 if i >= len(oc) or i >= len(nc) or oc[i] != nc[i]]
        ranges = ", ".join(f"{i * chunk}-{(i + 1) * chunk - 1}" for i in moved[:6])
        more = f" (+{len(moved) - 6} more)" if len(moved) > 6 else ""
        out.append(f"{case}: digest {old[case].get('digest')} -> {new[case]['digest']}; "
                   f"{len(moved)} of {len(nc)} chunks moved, first hands {ranges}{more}")
    return out


def dumps(doc: dict[str, Any]) -> str:
    """The file text: one case per line, so a diff of the file reads well."""
    head = {k: v for k, v in doc.items() if k != "cases"}
    lines = ["{"] + [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    lines.append('  "cases": {')
    items = sorted(doc["cases"].items())
    for i, (case, v) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        lines.append(f"    {json.dumps(case)}: {json.dumps(v)}{comma}")
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def check_golden(path: str | Path = DEFAULT_PATH) -> list[str]:
    """The changes between the stored digests and the engine now (empty: unchanged)."""
    return compare_golden(load_golden(path), compute_golden())


def update_golden(path: str | Path = DEFAULT_PATH) -> list[str]:
    """Rewrite the golden file from the engine now; returns what changed."""
    fresh = compute_golden()
    changes = compare_golden(load_golden(path), fresh)
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(dumps(fresh))
    return changes


def format_check(path: str | Path, changes: list[str]) -> str:
    """``holdem golden``'s report of ``check_golden``'s changes (exit 0 when empty, else 1)."""
    if not changes:
        return f"{path}: the engine reproduces every golden digest"
    return "\n".join([f"{path}: the engine's behaviour changed:", *(f"  {c}" for c in changes),
                      "if intended: holdem golden --update, and give the reason in the commit "
                      "message"])


def format_update(path: str | Path, changes: list[str]) -> str:
    """``holdem golden --update``'s report of ``update_golden``'s changes."""
    if not changes:
        return f"{path}: unchanged"
    return "\n".join([f"updated {path}:", *(f"  {c}" for c in changes),
                      "commit it with the reason the engine's behaviour changed"])


__all__ = ["CHUNK", "DEFAULT_PATH", "HANDS", "SEED", "case_digests", "check_golden",
           "compare_golden", "compute_golden", "dumps", "format_check", "format_update",
           "load_golden", "update_golden"]
