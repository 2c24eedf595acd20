"""The audits are listed statically: every audit module exports its ``SPEC`` and
``audits.registry`` lists them in the documented order (nothing registers itself on import)."""

from __future__ import annotations

import importlib

import pytest

from audits import registry

ORDER = ["integrity", "deal", "stakes", "chips", "rotation", "payouts", "outcome", "betting",
         "coverage", "uniformity"]


def test_every_audit_module_exports_its_spec_in_the_documented_order() -> None:
    assert [s.name for s in registry.SPECS] == ORDER == registry.available()
    for name in ORDER:
        spec = importlib.import_module(f"audits.{name}").SPEC
        assert registry.REGISTRY[name] is spec and spec.description
    assert registry.REGISTRY["uniformity"].keys is not None  # its key pass for large runs


def test_resolve_keeps_the_order_asked_and_names_unknown_audits() -> None:
    assert registry.resolve(None) == ORDER
    assert registry.resolve(["chips", "deal", "chips"]) == ["chips", "deal"]
    with pytest.raises(ValueError, match="unknown audit.*nope"):
        registry.resolve(["deal", "nope"])
