"""The wheel ships the PEP 561 marker: each package of the project has a ``py.typed`` file and
pyproject.toml declares it as package data, so a built wheel holds it and users' type checkers
read the hints (issue 37). The wheel itself is not built here (too slow for the suite)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _setuptools() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"]


def test_every_package_ships_py_typed() -> None:
    tool = _setuptools()
    packages = [p.rstrip("*") for p in tool["packages"]["find"]["include"]]
    assert sorted(packages) == ["audits", "cluster", "reports", "sim"]
    data = tool["package-data"]
    for pkg in packages:
        assert "py.typed" in data.get(pkg, []) + data.get("*", []), \
            f"pyproject.toml [tool.setuptools.package-data] {pkg}: py.typed not declared"
        marker = ROOT / pkg / "py.typed"
        assert marker.is_file(), f"{pkg}/py.typed missing"
        # an empty marker: the package is typed inline (not "partial\n", which is for stubs)
        assert marker.read_text(encoding="utf-8").strip() == "", f"{pkg}/py.typed not empty"
