"""Every relative link of README.md, docs/*.md and cluster/README.md points to a file of the
repository and, when it names an anchor (``page.md#section``), to a heading of that page (as
GitHub makes anchors of headings)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "cluster" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    """The text without fenced code blocks and inline code spans (links there are code)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces to
    hyphens, a repeated heading suffixed -1, -2, ..."""
    seen: dict[str, int] = {}
    out = set()
    for line in re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M).splitlines():
        m = re.match(r"#{1,6} +(.*?) *#*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).replace("`", "").lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def links(page: Path) -> list[str]:
    return [t for t in LINK.findall(_prose(page.read_text()))
            if not re.match(r"[a-z][a-z0-9+.-]*:", t)]  # http:, https:, mailto: are not ours


def test_the_docs_exist_and_have_links() -> None:
    assert len(PAGES) >= 10
    assert len(links(ROOT / "README.md")) >= 10


def broken(page: Path) -> list[str]:
    """The relative links of a page that point to no file, or to no heading of their page."""
    bad = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            bad.append(f"{target}: no such file")
        elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
            bad.append(f"{target}: no heading #{anchor} in {dest.name}")
    return bad


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    assert not broken(page), f"{page.relative_to(ROOT)}: " + "; ".join(broken(page))


def test_a_broken_link_is_caught(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other\n\n## Its part (one)\n\n## Its part (one)\n")
    page = tmp_path / "p.md"
    page.write_text("# A title: `x`\n\n"
                    "[ok](#a-title-x) [bad](#nope) [gone](missing.md) `[c](z.md)`\n"
                    "[o](other.md#its-part-one-1) [no](other.md#its-part-one-2)\n"
                    "[w](https://x.y/z)\n```\n[code](nowhere.md)\n```\n")
    assert anchors(page) == {"a-title-x"}
    assert anchors(tmp_path / "other.md") == {"other", "its-part-one", "its-part-one-1"}
    assert broken(page) == ["#nope: no heading #nope in p.md", "missing.md: no such file",
                            "other.md#its-part-one-2: no heading #its-part-one-2 in other.md"]


# files the docs name that a command makes (not in the repository)
GENERATED = {"audits/build_info.json"}
CODE_PATH = re.compile(r"`((?:sim|audits|cluster|reports|tests|docs)/[\w./-]*)`")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_source_path_named_exists(page: Path) -> None:
    """A module or test the docs name in code (`sim/schema.py`) exists: a renamed or moved
    file shows here, not in a reader's failed search."""
    named = set(CODE_PATH.findall(page.read_text())) - GENERATED
    assert not [p for p in sorted(named) if not (ROOT / p).exists()], page.relative_to(ROOT)
