"""The import graph of the top-level packages, checked from the sources:

- ``audits/`` never imports the engine (``sim``) or the cluster code: the audits are independent
  oracles;
- ``audits/runfolder/`` (the run-folder contract: names, storage, listing, manifest, migrate,
  provenance, the error bases) imports nothing of the project outside itself, except
  ``audits.jitcache`` (which ``audits/__init__`` loads first anyway, and which imports nothing of
  the project: checked here too);
- ``reports/`` imports only ``reports`` and ``audits``."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AUDITS = ROOT / "audits"
RUNFOLDER = AUDITS / "runfolder"
REPORTS = ROOT / "reports"
PROJECT = {"sim", "audits", "cluster", "reports", "tests"}
FORBIDDEN = {"sim", "cluster"}
# what the leaf may import of the project besides itself: the numba cache locator (stdlib only)
LEAF_ALLOWED = {"audits.jitcache"}


def _imports(tree: ast.AST, package: str = "") -> list[str]:
    """Every module a source imports (absolute names; a relative import resolved against
    ``package``, the importing module's package, when given, else left out)."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if package:
                    parts = package.split(".")
                    base = ".".join([*parts[:len(parts) - node.level + 1],
                                     *([node.module] if node.module else [])])
                    names += [base, *(f"{base}.{a.name}" for a in node.names)]
                continue
            module = node.module or ""
            names.append(module)
            # ``from audits import jitcache``: the submodule is what is imported
            names += [f"{module}.{a.name}" for a in node.names if module in PROJECT]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module":
            if node.args and isinstance(node.args[0], ast.Constant):
                names.append(str(node.args[0].value))
    return names


def _module_imports(directory: Path) -> dict[str, list[str]]:
    """``relative file -> imported modules`` for every source under ``directory``."""
    out = {}
    for f in sorted(directory.rglob("*.py")):
        rel = f.relative_to(ROOT)
        package = ".".join(rel.parent.parts)
        out[str(rel)] = _imports(ast.parse(f.read_text(), filename=str(f)), package)
    return out


def test_audits_never_import_sim_or_cluster() -> None:
    found = _module_imports(AUDITS)
    assert found, "no audit modules found"
    bad = [f"{f} imports {name}" for f, names in found.items() for name in names
           if name.split(".")[0] in FORBIDDEN]
    assert not bad, "audits must not depend on the engine or the cluster code:\n" + "\n".join(bad)


def _outside_leaf(name: str) -> bool:
    """A module of the project that is neither the leaf package nor allowed to it."""
    if name.split(".")[0] not in PROJECT or name in LEAF_ALLOWED:
        return False
    return not (name == "audits.runfolder" or name.startswith("audits.runfolder."))


def test_the_run_folder_package_is_a_leaf() -> None:
    found = _module_imports(RUNFOLDER)
    assert len(found) >= 7, "the run-folder package's modules not found"
    bad = [f"{f} imports {name}" for f, names in found.items() for name in names
           if _outside_leaf(name) and name != "audits"]
    assert not bad, ("audits/runfolder/ imports nothing of the project outside itself:\n"
                     + "\n".join(bad))
    jit = AUDITS / "jitcache.py"
    project = [n for n in _imports(ast.parse(jit.read_text())) if n.split(".")[0] in PROJECT]
    assert not project, f"audits/jitcache.py must import nothing of the project: {project}"


def test_reports_import_only_reports_and_audits() -> None:
    found = _module_imports(REPORTS)
    assert found, "no report modules found"
    bad = [f"{f} imports {name}" for f, names in found.items() for name in names
           if name.split(".")[0] in PROJECT - {"reports", "audits"}]
    assert not bad, "reports must import only reports and audits:\n" + "\n".join(bad)


def test_the_walker_catches_an_import() -> None:
    tree = ast.parse("import sim.evaluator\nfrom cluster import cli\nfrom . import io\n")
    assert [n for n in _imports(tree) if n.split(".")[0] in FORBIDDEN] == ["sim.evaluator",
                                                                            "cluster",
                                                                            "cluster.cli"]
    # a relative import is resolved against the importing module's package
    leaf = ast.parse("from .. import runner\nfrom .names import LAYOUT\nfrom audits import io\n")
    names = _imports(leaf, "audits.runfolder")
    assert [n for n in names if _outside_leaf(n) and n != "audits"] == ["audits.runner",
                                                                         "audits.io"]
    assert "audits.runfolder.names.LAYOUT" in names
