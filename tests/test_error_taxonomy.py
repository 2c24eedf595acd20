"""One error taxonomy (issue 24): every exception class the project defines is a one-line input
error (``InputError``, exit 2) or a failed check (``CheckFailed``, exit 1), so that ``holdem``
maps the two bases once (``cluster.cli.main``), or it is in the short allow-list below."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

from audits.runfolder.errors import CheckFailed, InputError

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("sim", "audits", "cluster", "reports")

# Exceptions that are neither, each for a reason:
ALLOWED = {
    # internal control flow: raised and caught inside one module, never reaching a command
    # a section to skip while reading a site's text export
    "sim.histories.sites.text._Skip",
    # a hand the project's own site reader refuses, turned into a PhhSkip by its caller
    "sim.histories.sites.plain.Skip",
    # a PHH construct the fast reader leaves to the full parser
    "sim.histories.read.sections._Unsupported",
    # nesting too deep for the fast reader (same fallback)
    "sim.histories.read.sections._TooDeep",
    # a replay that stops, turned into a ReplayResult
    "sim.histories.replay.reference._ReplayError",
    # raised by the compiled-code guard that ``audits/__init__`` installs before anything else
    # loads (it cannot import the run folder); ``cluster.cli.main`` maps it to exit 2
    "audits.jitcache.StaleCodeError",
}


def _project_exceptions() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for pkg in PACKAGES:
        root = importlib.import_module(pkg)
        for info in pkgutil.walk_packages(root.__path__, pkg + "."):
            if info.name.endswith("__main__"):
                continue
            mod = importlib.import_module(info.name)
            for name, c in vars(mod).items():
                if (inspect.isclass(c) and issubclass(c, BaseException)
                        and c.__module__ == mod.__name__):
                    found[f"{mod.__name__}.{name}"] = c
    return found


def test_every_exception_is_an_input_error_or_a_failed_check() -> None:
    found = _project_exceptions()
    assert "cluster.flows.replay.ReplayMismatch" in found
    assert "sim.histories.read.phh.PhhError" in found
    bad = sorted(name for name, c in found.items()
                 if not issubclass(c, (InputError, CheckFailed)) and name not in ALLOWED)
    assert not bad, f"derive these from InputError or CheckFailed (or allow-list them): {bad}"
    stale = sorted(set(ALLOWED) - set(found))
    assert not stale, f"allow-listed but gone: {stale}"
    both = sorted(n for n, c in found.items() if issubclass(c, InputError)
                  and issubclass(c, CheckFailed))
    assert not both, f"an input error or a failed check, not both: {both}"


def test_no_nested_exception_class() -> None:
    """A class defined inside a function escapes the enumeration above: none subclasses an
    exception by its name (``...Error``, ``...Exception``, ``...Failed``, ``...Mismatch``)."""
    nested = []
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            tree = ast.parse(path.read_text())
            top = {id(n) for n in tree.body}
            for node in ast.walk(tree):
                if not isinstance(node, ast.ClassDef) or id(node) in top:
                    continue
                names = [ast.unparse(b) for b in node.bases]
                if any(n.endswith(("Error", "Exception", "Failed", "Mismatch")) for n in names):
                    nested.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not nested, nested


def test_the_cli_maps_the_two_bases_once() -> None:
    """No handler of ``cluster/cli/`` catches an exception itself except the one translator
    (``options.as_input``) and the parse of ``rng test --tests``; ``main`` maps the bases."""
    handlers: dict[str, int] = {}
    for path in sorted((ROOT / "cluster" / "cli").glob("*.py")):
        tree = ast.parse(path.read_text())
        handlers[path.name] = sum(isinstance(n, ast.ExceptHandler) for n in ast.walk(tree))
    assert handlers.pop("options.py") == 2 and handlers.pop("tools.py") == 1
    assert all(n == 0 for name, n in handlers.items() if name != "__init__.py"), handlers
