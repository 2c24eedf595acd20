"""No import cycle among the project's modules (sim/, audits/, cluster/, reports/).

A static graph of the ``import`` / ``from ... import`` statements of every module: an edge
``a -> b`` when ``a`` imports ``b`` (a ``from p import m`` of a submodule ``p.m`` is an edge to
``p.m``; importing ``p.m`` also runs ``p/__init__.py``, an edge to ``p``). Imports under
``if TYPE_CHECKING:`` never run and are left out.

- Module-level imports (run when the module is imported) must form no cycle at all.
- Function-level (lazy) imports run later, so a cycle closed by one does not break an import;
  they are still listed: every lazy edge that closes a cycle must be in ``LAZY_CYCLE_EDGES``, so a
  new one is a decision, not an accident.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("sim", "audits", "cluster", "reports")

# lazy (function-level) imports that close a cycle, "importer -> imported": each is deliberate
LAZY_CYCLE_EDGES: frozenset[str] = frozenset({
    # text.py dispatches to the project's own readers (readers -> plain); plain reuses text's
    # outcome helpers (SiteOutcome, with_outcome, pot_contributions) when a hand is read
    "sim.histories.sites.plain -> sim.histories.sites.text",
    # text.py tries the single-pass PokerStars reader first when a hand is read; stars_fast
    # reuses text's header, outcome and checking helpers (the reference it must equal)
    "sim.histories.sites.text -> sim.histories.sites.stars_fast",
    # the log's schema documents version 4's packed columns from logv4's widths, and logv4
    # converts tables against the schema: each reads the other only when called
    "sim.logv4 -> sim.schema",
    "sim.schema -> sim.logv4",
})


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    """Every module of the four packages, by dotted name."""
    return {_module_name(f): f for pkg in PACKAGES for f in sorted((ROOT / pkg).rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def _targets(module: str, is_pkg: bool, node: ast.Import | ast.ImportFrom,
             known: set[str]) -> list[str]:
    """The project modules one import statement imports (with the packages it runs)."""
    names: list[str] = []
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            pkg = module.split(".") if is_pkg else module.split(".")[:-1]
            pkg = pkg[:len(pkg) - (node.level - 1)]
            base = ".".join(pkg + ([base] if base else []))
        names = [base] + [f"{base}.{a.name}" for a in node.names]
    out = []
    for name in names:
        parts = name.split(".")
        for i in range(1, len(parts) + 1):  # a.b.c runs a, a.b, a.b.c
            prefix = ".".join(parts[:i])
            # a package the importer lies in is already being imported (its __init__ runs
            # first): importing a sibling through it is no edge back to it
            if prefix in known and prefix != module and not module.startswith(prefix + "."):
                out.append(prefix)
    return out


def import_edges(modules: dict[str, Path]) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(module-level edges, function-level edges) between project modules."""
    known = set(modules)
    top: set[tuple[str, str]] = set()
    lazy: set[tuple[str, str]] = set()

    def visit(mod: str, is_pkg: bool, node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for c in child.orelse:
                    visit(mod, is_pkg, ast.Module(body=[c], type_ignores=[]), in_function)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for t in _targets(mod, is_pkg, child, known):
                    (lazy if in_function else top).add((mod, t))
                continue
            visit(mod, is_pkg, child, in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    for mod, path in modules.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        visit(mod, path.name == "__init__.py", tree, False)
    return top, lazy


def cycles(edges: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected components with a cycle (Tarjan), each sorted."""
    graph: dict[str, list[str]] = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def strong(v: str) -> None:  # recursive: the depth is at most the number of modules
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph[v]:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return sorted(found)


def test_no_module_level_import_cycle() -> None:
    modules = project_modules()
    assert len(modules) > 50 and "cluster.bench.simulate" in modules
    top, _ = import_edges(modules)
    assert ("cluster.bench.audit", "cluster.bench.runs") in top  # the walker sees real imports
    found = cycles(top)
    assert not found, "import cycles among module-level imports:\n" + "\n".join(
        " <-> ".join(c) for c in found)


def test_lazy_imports_that_close_a_cycle_are_listed() -> None:
    top, lazy = import_edges(project_modules())
    in_cycle = {m: i for i, comp in enumerate(cycles(top | lazy)) for m in comp}
    closing = {f"{a} -> {b}" for a, b in lazy
               if a in in_cycle and in_cycle.get(b) == in_cycle[a]}
    new = sorted(closing - LAZY_CYCLE_EDGES)
    assert not new, ("function-level imports closing an import cycle (break the cycle, or list "
                     "the edge in LAZY_CYCLE_EDGES and say why):\n" + "\n".join(new))


def test_the_walker_finds_a_planted_cycle(tmp_path: Path) -> None:
    src = {
        "a": "from b import x\n",
        "b": "import c\n",
        "c": "def f():\n    from a import y\n",  # lazy: closes a -> b -> c -> a
        "d": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import a\nimport e\n",
        "e": "import d\n",  # d <-> e at module level
    }
    modules = {}
    for name, text in src.items():
        (tmp_path / f"{name}.py").write_text(text)
        modules[name] = tmp_path / f"{name}.py"
    top, lazy = import_edges(modules)
    assert lazy == {("c", "a")} and ("d", "a") not in top
    assert cycles(top) == [["d", "e"]]
    assert cycles(top | lazy) == [["a", "b", "c"], ["d", "e"]]
