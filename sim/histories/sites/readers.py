"""The sites read by this project's own line reader (``sim.histories.sites.plain``), one module
each: their format names, how ``sim.histories.sites.text.detect_format`` knows their first line,
and their readers."""

from __future__ import annotations

from collections.abc import Callable
from re import Pattern

from sim.histories.read.phh import PhhFile
from sim.histories.sites import cake, ggpoker, pacific, winamax, wpn

__all__ = ["DETECT", "READERS"]

# format -> its reader (text, source) -> PhhFile
READERS: dict[str, Callable[[str, str], PhhFile]] = {
    "ggpoker": ggpoker.read,
    "888": pacific.read,
    "winamax": winamax.read,
    "wpn": wpn.read,
    "cake": cake.read,
}
# (a file's first line, format), tried before the PokerKit sites' patterns
DETECT: tuple[tuple[Pattern[str], str], ...] = (
    (ggpoker.DETECT, "ggpoker"),
    (pacific.DETECT, "888"),
    (winamax.DETECT, "winamax"),
    (wpn.DETECT, "wpn"),
    (cake.DETECT, "cake"),
)
