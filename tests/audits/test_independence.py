"""The audits are independent oracles: nothing under audits/ may import the engine (sim) or the
cluster code."""

from __future__ import annotations

import ast
from pathlib import Path

AUDITS = Path(__file__).resolve().parents[2] / "audits"
FORBIDDEN = {"sim", "cluster"}


def _imports(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                continue  # relative imports stay inside audits/
            names.append(node.module or "")
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module":
            if node.args and isinstance(node.args[0], ast.Constant):
                names.append(str(node.args[0].value))
    return names


def test_audits_never_import_sim_or_cluster() -> None:
    files = sorted(AUDITS.rglob("*.py"))
    assert files, "no audit modules found"
    bad = []
    for f in files:
        for name in _imports(ast.parse(f.read_text(), filename=str(f))):
            if name.split(".")[0] in FORBIDDEN:
                bad.append(f"{f.relative_to(AUDITS.parent)} imports {name}")
    assert not bad, "audits must not depend on the engine or the cluster code:\n" + "\n".join(bad)


def test_the_walker_catches_an_import() -> None:
    tree = ast.parse("import sim.evaluator\nfrom cluster import cli\nfrom . import io\n")
    assert [n for n in _imports(tree) if n.split(".")[0] in FORBIDDEN] == ["sim.evaluator",
                                                                            "cluster"]
