"""The docs' Python examples run: every ```pycon block of README.md and docs/*.md is a doctest
(the blocks of one page run in order, sharing their names), so a page whose example no longer
works fails the suite. docs/engine.md's example plays a whole hand (issue 37)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```pycon\n(.*?)^```", re.S | re.M)


def examples(markdown: str) -> str:
    """A page's ```pycon blocks, in order, as one doctest text."""
    return "\n".join(BLOCK.findall(markdown))


def run_examples(markdown: str, name: str) -> tuple[doctest.TestResults, str]:
    """Run a page's examples; (results, the failure report)."""
    test = doctest.DocTestParser().get_doctest(examples(markdown), {"__name__": "__docs__"},
                                               name, name, 0)
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    results = runner.run(test, out=report.append, clear_globs=True)
    return results, "".join(report)


@pytest.mark.parametrize("page", [p for p in PAGES if examples(p.read_text(encoding="utf-8"))],
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_pages_examples_run(page: Path) -> None:
    results, report = run_examples(page.read_text(encoding="utf-8"),
                                   page.relative_to(ROOT).as_posix())
    assert results.attempted > 0
    assert results.failed == 0, report


def test_engine_md_plays_a_hand_and_a_broken_example_fails() -> None:
    page = (ROOT / "docs" / "engine.md").read_text(encoding="utf-8")
    text = examples(page)
    assert "Hand(" in text and "hand.is_complete" in text and "seed=" in text
    results, _ = run_examples(page, "docs/engine.md")
    assert results.attempted >= 10 and results.failed == 0
    # the check has teeth: the same page showing another result fails, naming what it got
    assert page.count("stacks [212, 194, 194]>") == 1
    results, report = run_examples(page.replace("stacks [212, 194, 194]>",
                                                "stacks [194, 212, 194]>"), "broken")
    assert results.failed == 1 and "stacks [212, 194, 194]>" in report
