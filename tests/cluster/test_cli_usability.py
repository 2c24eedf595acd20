"""The command line a person expects: ``--version``, help on every option with its default, a
suggestion for a mistyped command, option or choice, no silent prefix matching, one name for
one option across commands, and no pointer to a section that moved."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from cluster.cli import build_parser, main
from cluster.cli.parser import _subcommands

ROOT = Path(__file__).resolve().parents[2]


def _parsers(p: argparse.ArgumentParser, path: tuple[str, ...] = ("holdem",)
             ) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    yield path, p
    for name, sp in _subcommands(p).items():
        yield from _parsers(sp, (*path, name))


SKIP = (argparse._HelpAction, argparse._SubParsersAction, argparse._VersionAction)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert re.fullmatch(r"holdem \S+\n", capsys.readouterr().out)


def test_every_option_has_help_and_shows_its_default() -> None:
    missing = [f"{' '.join(path)} {a.option_strings or a.dest}"
               for path, p in _parsers(build_parser()) for a in p._actions
               if not isinstance(a, SKIP) and not a.help]
    assert missing == []
    certify = dict(_parsers(build_parser()))[("holdem", "certify")]
    text = certify.format_help()
    assert "(default: 1)" in text  # --seed
    assert "(default: philox)" in text  # --generator


@pytest.mark.parametrize("argv, hint", [
    (["certfy"], "did you mean certify?"),
    (["simulate", "--hands", "10", "--wokers", "2"], "did you mean --workers?"),
    (["simulate", "--hands", "10", "--structure", "nolimit"], "did you mean no-limit?"),
    (["rng", "tset"], "did you mean test?"),
])
def test_a_typo_gets_a_suggestion(argv: list[str], hint: str,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    assert hint in capsys.readouterr().err


def test_no_silent_prefix_matching(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--hand", "100", "--out", "x"])  # not --hands
    assert "(--hand is not an option of this command: did you mean --hands?)" in (
        capsys.readouterr().err)
    for _, p in _parsers(build_parser()):
        assert p.allow_abbrev is False


def test_one_name_for_one_option() -> None:
    """An option that picks structures is --structure in every command (a plural form may
    stay as an alias)."""
    for path, p in _parsers(build_parser()):
        for a in p._actions:
            if any("struct" in s for s in a.option_strings):
                assert "--structure" in a.option_strings, path


POINTER = re.compile(r"\((README|docs/[\w-]+\.md), \"?([^)\"]+)\"?\)")


def _headings(page: Path) -> list[str]:
    return [m.group(1).replace("`", "").lower()
            for m in re.finditer(r"^#{1,6} +(.*)$", page.read_text(), re.M)]


def test_pointers_to_sections_exist() -> None:
    """Every "(docs/page.md, Section)" a person reads (the help, the report page, messages)
    names a heading of that page; none points to a README section (they moved to docs/)."""
    texts = [a.help or "" for _, p in _parsers(build_parser()) for a in p._actions]
    texts += [f.read_text() for d in ("reports", "cluster/cli") for f in (ROOT / d).glob("*.py")]
    found = 0
    for text in texts:
        for page, section in POINTER.findall(text.replace("\n", " ")):
            section = re.sub(r"\s+|\" *\"", " ", section).strip().lower()
            assert page != "README", f"a pointer to a README section that moved: {section!r}"
            heads = _headings(ROOT / page)
            assert any(section in h for h in heads), (page, section)
            found += 1
    assert found >= 3
