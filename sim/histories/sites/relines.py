"""PokerKit's line-by-line parser stages (``pokerkit.notation.REParser``, the pinned 0.7.7),
the same results at a fraction of the cost: the site text import's hot spot.

PokerKit's stages call ``re.search(PATTERN, line)`` for every line of a hand, once per stage
(the blind pattern alone runs in four of them), and most of its patterns start with
``(?P<player>.+)``: a search that fails tries the pattern again at every character of the line,
each try running ``.+`` to the line's end and back (quadratic in the line). ``LineParser``
gives the same answer faster:

- ``find(pattern, line)``: ``pattern.match`` instead of ``search`` when the pattern starts with
  a greedy ``.+`` or ``.*`` (named group or not) and has no top-level alternative and no
  back-reference: on a line (no ``\\n``) a match at any position k is also one at position 0
  (``.+`` takes the first k characters too) and the search tries position 0 first with the same
  backtracking order, so both return the same match or both none;
- a line without the pattern's required texts (its runs of top-level literal characters,
  ``required_text``: ``: folds``) is no match without running the pattern;
- each (pattern, line) is searched once per hand: a parser object reads one hand
  (``sim.histories.sites.text._fields`` makes one per hand), the answers are kept on it;
- the patterns are called directly (no ``re`` module cache look-up per call).

Each stage below is PokerKit 0.7.7's own code with ``search(P, line)`` replaced by
``self.find(P, line)``; a site class's own override of a stage still wins (``LineParser`` is
placed after the site class: ``class _Stars(PokerStarsParser, LineParser)``). The import's
golden output (``tests/golden/import_output.json``) and the reader tests hold it equal.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from re import Match, Pattern
from re import _constants as _sre_c  # type: ignore[attr-defined]
from re import _parser as _sre_parse  # type: ignore[attr-defined]
from typing import Any

from pokerkit.notation import REParser

__all__ = ["LineParser", "anchored_at_start", "required_text"]

# id(pattern) -> (the pattern, its finder): a Pattern's own hash reads its whole code
_FINDERS: dict[int, tuple[Pattern[str], Callable[[str], Match[str] | None]]] = {}


def _leading_any(item: Any) -> bool:
    """Whether a parsed pattern item is a greedy ``.+``/``.*`` (maybe in a capturing group)."""
    op, av = item
    if op is _sre_c.SUBPATTERN:
        body = list(av[-1])
        return len(body) == 1 and _leading_any(body[0])
    if op is _sre_c.MAX_REPEAT:
        lo, _hi, sub = av
        sub = list(sub)
        return lo <= 1 and len(sub) == 1 and sub[0][0] is _sre_c.ANY
    return False


def anchored_at_start(pattern: Pattern[str]) -> bool:
    """Whether ``pattern.search(line)`` equals ``pattern.match(line)`` on every line without a
    ``\\n`` (module docstring): it starts with a greedy ``.+``/``.*``, has no top-level ``|``
    and no back-reference."""
    if "(?P=" in pattern.pattern or re.search(r"\\[1-9]", pattern.pattern):
        return False
    try:
        parsed = list(_sre_parse.parse(pattern.pattern, pattern.flags))
    except Exception:  # noqa: BLE001 - an unparseable pattern keeps search
        return False
    return bool(parsed) and _leading_any(parsed[0])


def required_text(pattern: Pattern[str]) -> tuple[str, ...]:
    """Runs of literal characters every match of ``pattern`` contains (its top-level literals in
    a row, the longest first), () when none is known (a top-level ``|``, case-insensitive)."""
    if pattern.flags & re.IGNORECASE:
        return ()
    try:
        parsed = list(_sre_parse.parse(pattern.pattern, pattern.flags))
    except Exception:  # noqa: BLE001 - no filter
        return ()
    runs, run = [], ""
    for op, av in parsed:
        if op is _sre_c.LITERAL:
            run += chr(av)
            continue
        if run:
            runs.append(run)
        run = ""
    if run:
        runs.append(run)
    return tuple(sorted(runs, key=len, reverse=True))


def _finder(pattern: Pattern[str]) -> Callable[[str], Match[str] | None]:
    got = _FINDERS.get(id(pattern))
    if got is not None and got[0] is pattern:
        return got[1]
    call = pattern.match if anchored_at_start(pattern) else pattern.search
    need = required_text(pattern)
    f: Callable[[str], Match[str] | None] = call
    if len(need) == 1:
        one = need[0]

        def f(line: str) -> Match[str] | None:
            return call(line) if one in line else None
    elif need:
        def f(line: str) -> Match[str] | None:
            for text in need:
                if text not in line:
                    return None
            return call(line)
    _FINDERS[id(pattern)] = (pattern, f)
    return f


class LineParser(REParser):
    """PokerKit's line stages with ``find`` (module docstring). Placed after a PokerKit site
    class in the bases, so the site's own overrides win."""

    def find(self, pattern: Pattern[str], line: str) -> Match[str] | None:
        """``re.search(pattern, line)`` of one line (no ``\\n``), remembered for this hand."""
        memo: dict[tuple[Pattern[str], str], Match[str] | None] | None
        memo = self.__dict__.get("_line_memo")
        if memo is None:
            memo = self.__dict__["_line_memo"] = {}
        key = (pattern, line)
        try:
            return memo[key]
        except KeyError:
            m = memo[key] = _finder(pattern)(line)
            return m

    def _lines(self, s: str) -> list[str]:
        cache: dict[str, list[str]] | None = self.__dict__.get("_split_memo")
        if cache is None:
            cache = self.__dict__["_split_memo"] = {}
        got = cache.get(s)
        if got is None:
            got = cache[s] = s.splitlines()
        return got

    def _parse_final_seat(self, s: str) -> int:
        m = self.FINAL_SEAT.search(s)
        if m is None:
            raise ValueError('Unable to parse final seat.')
        return int(m['final_seat'])

    def _parse_seats(self, s: str) -> dict[str, int]:
        seats = {}
        for line in self._lines(s):
            if m := self.find(self.SEATS, line):
                seats[m['player']] = int(m['seat'])
        return seats

    def _parse_players(self, s: str) -> set[str]:
        players = set()
        patterns = (self.ANTE_POSTING, self.BLIND_OR_STRADDLE_POSTING, self.FOLDING,
                    self.CHECKING_OR_CALLING, self.COMPLETION_BETTING_OR_RAISING,
                    self.HOLE_CARDS_SHOWING)
        for line in self._lines(s):
            for pattern in patterns:
                if m := self.find(pattern, line):
                    players.add(m['player'])
        return players

    def _parse_antes(self, s: str, parse_value: Callable[[str], int]) -> defaultdict[str, int]:
        antes: defaultdict[str, int] = defaultdict(int)
        for line in self._lines(s):
            if m := self.find(self.ANTE_POSTING, line):
                antes[m['player']] = parse_value(m['ante'])
        return antes

    def _parse_blinds_or_straddles(self, s: str, parse_value: Callable[[str], int],
                                   ) -> defaultdict[str, int]:
        blinds_or_straddles: defaultdict[str, int] = defaultdict(int)
        for line in self._lines(s):
            if m := self.find(self.BLIND_OR_STRADDLE_POSTING, line):
                blinds_or_straddles[m['player']] = parse_value(m['blind_or_straddle'])
        return blinds_or_straddles

    def _parse_starting_stacks(self, s: str, parse_value: Callable[[str], int],
                               ) -> dict[str, int]:
        starting_stacks = {}
        for line in self._lines(s):
            if m := self.find(self.STARTING_STACKS, line):
                starting_stacks[m['player']] = parse_value(m['starting_stack'])
        return starting_stacks

    def _parse_actions(self, s: str, parse_value: Callable[[str], int],
                       players: Sequence[str]) -> list[str]:
        def format_player(m: Match[str]) -> str:
            return f'p{players.index(m["player"]) + 1}'

        bets: defaultdict[str, int] = defaultdict(int)
        actions = []
        find = self.find
        for line in self._lines(s):
            action = None
            if m := find(self.BLIND_OR_STRADDLE_POSTING, line):
                bets[format_player(m)] = parse_value(m['blind_or_straddle'])
            elif m := find(self.HOLE_DEALING, line):
                action = f'd dh {format_player(m)} {self._format_cards(m)}'
            elif m := find(self.BOARD_DEALING, line):
                action = f'd db {self._format_cards(m)}'
                bets.clear()
            elif m := find(self.FOLDING, line):
                action = f'{format_player(m)} f'
            elif m := find(self.CHECKING_OR_CALLING, line):
                formatted_player = format_player(m)
                action = f'{formatted_player} cc'
                bets[formatted_player] = max(bets.values(), default=0)
            elif m := find(self.COMPLETION_BETTING_OR_RAISING, line):
                formatted_player = format_player(m)
                max_bet = max(bets.values(), default=0)
                bets[formatted_player] = self._get_completion_betting_or_raising_to_amount(
                    bets, formatted_player, parse_value(m['amount']), line)
                if bets[formatted_player] <= max_bet:
                    action = f'{formatted_player} cc'
                else:
                    action = f'{formatted_player} cbr {bets[formatted_player]}'
            elif m := find(self.HOLE_CARDS_SHOWING, line):
                action = f'{format_player(m)} sm {self._format_cards(m)}'
            if action is not None:
                actions.append(action)
        return actions

    def _parse_variables(self, s: str, parse_value: Callable[[str], Any]) -> dict[str, Any]:
        variables = {}
        for key, (pattern, parse_pattern) in self.VARIABLES.items():
            if parse_pattern is None:
                parse_pattern = parse_value
            if (m := pattern.search(s)) and key in m.groupdict():
                variables[key] = parse_pattern(m[key])
        return variables

    def _parse_player_variables(self, s: str, parse_value: Callable[[str], Any],
                                ) -> dict[str, defaultdict[str, Any]]:
        player_variables = {}
        for key, (pattern, parse_pattern, default_value_factory, merge) in \
                self.PLAYER_VARIABLES.items():
            sub: defaultdict[str, Any] = defaultdict(default_value_factory)
            if parse_pattern is None:
                parse_pattern = parse_value
            for line in self._lines(s):
                if m := self.find(pattern, line):
                    player = m['player']
                    sub[player] = merge(sub[player], parse_pattern(m[key]))
            if sub:
                player_variables[key] = sub
        return player_variables
