"""The house's maps are true: every module is listed in docs/development.md, no comment or
message cites a README section that moved to docs/, no private name is imported across modules,
and every module-level third-party import of the packages is a declared runtime dependency (a
plain ``pip install .`` must run every command)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("sim", "audits", "cluster", "reports")


def _modules() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")
                  if "__pycache__" not in p.parts)


def _rel(p: Path) -> str:
    return p.relative_to(ROOT).as_posix()


def test_every_module_is_listed_in_development_md() -> None:
    page = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    missing = [_rel(p) for p in _modules() if f"`{_rel(p)}`" not in page]
    assert not missing, f"modules not listed in docs/development.md: {missing}"
    listed = set(re.findall(r"`((?:sim|audits|cluster|reports)/[\w/]+\.py)`", page))
    gone = sorted(m for m in listed if not (ROOT / m).is_file())
    assert not gone, f"docs/development.md lists modules that do not exist: {gone}"


def test_no_pointer_to_a_readme_section() -> None:
    """README.md's sections moved to docs/: the code cites the page (a file path such as
    ``cluster/README.md`` is fine)."""
    stale = []
    for p in _modules():
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if _rel(p) == "sim/schema.py" and line.startswith("CARDS = "):
                continue  # the log's bytes (field metadata): its words change with the schema
            if re.search(r"README(?!\.md)", line):
                stale.append(f"{_rel(p)}:{i}: {line.strip()[:80]}")
    assert not stale, "pointers to README sections (cite the docs/ page):\n" + "\n".join(stale)


def test_no_private_name_imported_across_modules() -> None:
    """A name starting with ``_`` is its module's own: another module that needs it needs a
    public name."""
    found = []
    for p in _modules():
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            # the project's modules (a standard-library private, such as re._parser that
            # sim.histories.sites.relines reads patterns with, is that library's business)
            if (isinstance(node, ast.ImportFrom) and node.module and node.level == 0
                    and node.module.split(".")[0] in PACKAGES):
                found += [f"{_rel(p)}:{node.lineno}: from {node.module} import {a.name}"
                          for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert not found, "private names imported across modules:\n" + "\n".join(found)


def _top_level_imports(tree: ast.Module) -> set[str]:
    """Top-level module names imported when the module is imported (its body, and the bodies of
    top-level ``if``/``try`` blocks; not ``if TYPE_CHECKING:`` and not inside functions)."""
    out: set[str] = set()
    stack: list[ast.stmt] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module.split(".")[0])
        elif isinstance(node, ast.If):
            if "TYPE_CHECKING" in ast.unparse(node.test):
                stack += node.orelse
            else:
                stack += node.body + node.orelse
        elif isinstance(node, ast.Try):
            stack += node.body + node.orelse + node.finalbody
            for h in node.handlers:
                stack += h.body
    return out


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = set()
    for spec in project["dependencies"]:
        names.add(re.split(r"[\[<>=!~; ]", spec, maxsplit=1)[0].lower().replace("_", "-"))
    return names


def test_module_level_third_party_imports_are_runtime_dependencies() -> None:
    dists = packages_distributions()
    declared = _declared()
    bad = []
    for p in _modules():
        for name in sorted(_top_level_imports(ast.parse(p.read_text(encoding="utf-8")))):
            if name in PACKAGES or name in sys.stdlib_module_names or name == "__future__":
                continue
            owners = {d.lower().replace("_", "-") for d in dists.get(name, [name])}
            if not owners & declared:
                bad.append(f"{_rel(p)}: {name} (distribution {sorted(owners)})")
    assert not bad, ("module-level imports of packages that are not runtime dependencies "
                     "([project] dependencies of pyproject.toml):\n" + "\n".join(bad))


def test_the_dependency_check_sees_a_missing_dependency() -> None:
    """The check above can fail: an undeclared module-level import is found."""
    tree = ast.parse("import numpy\nif x:\n    import hypothesis\n"
                     "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pandas\n"
                     "def f():\n    import polars\n")
    assert _top_level_imports(tree) == {"numpy", "hypothesis", "typing"}
    assert "hypothesis" not in _declared() and "numpy" in _declared()


# a result's verdict fields, read by string key: only the readers of the documents may
# (``AuditResult.from_dict``, ``ShuffleTest.from_dict``); everything else holds typed records
_VERDICT_KEYS = re.compile(r"""(\[|\.get\()\s*["'](passed|applicable|example_hand_ids|"""
                           r"""hands_checked)["']""")
_READERS = {"audits/result.py", "reports/shuffle.py"}


def _verdict_key_reads(text: str) -> list[int]:
    return [text.count("\n", 0, m.start()) + 1 for m in _VERDICT_KEYS.finditer(text)]


def test_audit_results_are_read_by_their_reader_only() -> None:
    """Audit results, a certificate's audits and a shuffle certificate's tests travel as typed
    records (issue 32, point 2): no ``r["passed"]`` outside the reader."""
    found = [f"{_rel(p)}:{line}" for p in _modules() if _rel(p) not in _READERS
             for line in _verdict_key_reads(p.read_text(encoding="utf-8"))]
    assert not found, f"verdict fields read by string key outside the readers: {found}"


def test_the_reader_check_sees_a_string_key_read() -> None:
    assert _verdict_key_reads('ok = r["passed"] or not r.get("applicable")\n') == [1, 1]
    assert _verdict_key_reads("ok = r.passed\n") == []
