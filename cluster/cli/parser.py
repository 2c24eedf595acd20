"""The argument parser every ``holdem`` command uses: no silent prefix matching (``--hand`` is
never taken as ``--hands``), every option's default shown in its help, and a suggestion for a
mistyped command, option or choice (``difflib``)."""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Sequence
from typing import Any, NoReturn


class DefaultsFormatter(argparse.HelpFormatter):
    """Each option's help ends with its default when it has one worth showing and the help does
    not already say it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if (action.default not in (None, False, argparse.SUPPRESS) and action.option_strings
                and "default" not in text and action.nargs != 0):
            text += " (default: %(default)s)"
        return text


def _options(parser: argparse.ArgumentParser) -> list[str]:
    return [s for a in parser._actions for s in a.option_strings]


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            return dict(a.choices)
    return {}


def _command_parser(parser: argparse.ArgumentParser,
                    argv: Sequence[str]) -> argparse.ArgumentParser:
    """The (sub)parser of the command ``argv`` names (``holdem rng test`` -> its parser)."""
    here = parser
    for token in argv:
        subs = _subcommands(here)
        if token in subs:
            here = subs[token]
        elif not token.startswith("-") and subs:
            break
    return here


def suggestion(parser: argparse.ArgumentParser, message: str, argv: Sequence[str]) -> str:
    """" (did you mean ...?)" for the first mistyped option, command or choice of ``message``
    (argparse's error), or ""."""
    m = re.search(r"unrecognized arguments: (.*)", message)
    options = _options(_command_parser(parser, argv))
    # an option the command does not have, named in the error or anywhere in argv (a missing
    # required option is reported first when the typo was of that option)
    tokens = m.group(1).split() if m else [t for t in argv if t.startswith("--")]
    for token in tokens:
        name = token.split("=", 1)[0]
        if name.startswith("-") and name not in options:
            close = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
            if close:
                return (f" (did you mean {close[0]}?)" if m else
                        f" ({name} is not an option of this command: did you mean {close[0]}?)")
    m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
    if m:
        choices = [c.strip().strip("'") for c in m.group(2).split(",")]
        close = difflib.get_close_matches(m.group(1), choices, n=1, cutoff=0.5)
        return f" (did you mean {close[0]}?)" if close else ""
    return ""


class HoldemParser(argparse.ArgumentParser):
    """``allow_abbrev=False`` and ``DefaultsFormatter`` unless told otherwise; errors with a
    suggestion. Subparsers are of this class too (argparse makes them of the parent's class)."""

    argv: Sequence[str] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", DefaultsFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        super().error(message + suggestion(self, message, HoldemParser.argv))
