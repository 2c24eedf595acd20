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
- a line without the pattern's required texts (``required_choices``: its runs of top-level
  literal characters and literal alternatives, ``: folds``; ``type="(1|2)"`` is ``type="1"`` or
  ``type="2"``) is no match without running the pattern, and a hand without them is no match on
  any line: ``matches`` answers a stage's question for all the lines of a hand at once, one
  list comprehension whose filters run in C;
- each (pattern, hand) is searched once per hand: a parser object reads one hand
  (``sim.histories.sites.text._fields`` makes one per hand), the answers are kept on it;
- the patterns are called directly (no ``re`` module cache look-up per call).

Each stage below is PokerKit 0.7.7's own code with its loop of ``search(P, line)`` over the lines
replaced by ``self.matches(P, s)`` (the elif chain of ``_parse_actions``: each line's first
pattern that finds it); a site class's own override of a stage still wins (``LineParser`` is
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

__all__ = ["LineParser", "anchored_at_start", "matches_in", "required_choices", "required_text"]

# id(pattern) -> (the pattern, its finder): a Pattern's own hash reads its whole code
_FINDERS: dict[int, tuple[Pattern[str], Callable[[str], Match[str] | None]]] = {}
_PLANS: dict[int, tuple[Pattern[str], Callable[[str], Match[str] | None],
                        tuple[tuple[str, ...], ...]]] = {}


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


def _parsed(pattern: Pattern[str]) -> list[Any] | None:
    """The pattern's top-level parsed items, None when no literal filter can be drawn from them
    (case-insensitive, or not parseable)."""
    if pattern.flags & re.IGNORECASE:
        return None
    try:
        return list(_sre_parse.parse(pattern.pattern, pattern.flags))
    except Exception:  # noqa: BLE001 - no filter
        return None


def required_text(pattern: Pattern[str]) -> tuple[str, ...]:
    """Runs of literal characters every match of ``pattern`` contains (its top-level literals in
    a row, the longest first), () when none is known (a top-level ``|``, case-insensitive)."""
    parsed = _parsed(pattern)
    if parsed is None:
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


_MAX_CHOICES = 32  # alternatives one requirement may hold (their product in a run)


def _choices(op: Any, av: Any) -> tuple[str, ...] | None:
    """The texts one parsed pattern item matches, when it matches one of a few literal texts
    (a literal, a class of literal characters, a group of literals or of literal alternatives),
    else None."""
    if op is _sre_c.LITERAL:
        return (chr(av),)
    if op is _sre_c.IN:
        if all(o is _sre_c.LITERAL for o, _ in av):
            return tuple(chr(c) for _, c in av)
        return None
    if op is _sre_c.SUBPATTERN:
        _group, add, delete, body = av
        if add or delete:
            return None
        body = list(body)
        if len(body) == 1 and body[0][0] is _sre_c.BRANCH:
            out: list[str] = []
            for branch in body[0][1][1]:
                got = _sequence(list(branch))
                if got is None:
                    return None
                out += got
            return tuple(dict.fromkeys(out)) if len(out) <= _MAX_CHOICES else None
        return _sequence(body)
    return None


def _sequence(items: list[Any]) -> tuple[str, ...] | None:
    texts: tuple[str, ...] = ("",)
    for op, av in items:
        got = _choices(op, av)
        if got is None or len(texts) * len(got) > _MAX_CHOICES:
            return None
        texts = tuple(t + g for t in texts for g in got)
    return texts


def required_choices(pattern: Pattern[str]) -> tuple[tuple[str, ...], ...]:
    """What every match of ``pattern`` contains, as requirements each met by one of its texts:
    the runs of top-level items that match one of a few literal texts (``: folds``;
    ``type="(1|2)"`` is ``type="1"`` or ``type="2"``). Single texts first, the longest first;
    () when nothing is known (a top-level ``|``, case-insensitive); ``((),)``, a requirement no
    text meets, for a pattern that matches nothing (``(?!)``: a stage a site does not have)."""
    parsed = _parsed(pattern)
    if parsed is None:
        return ()
    runs: list[tuple[str, ...]] = []
    run: tuple[str, ...] = ("",)
    for op, av in parsed:
        if op is _sre_c.ASSERT_NOT and not list(av[1]):  # (?!): no line matches
            return ((),)
        got = _choices(op, av)
        if got is not None and len(run) * len(got) <= _MAX_CHOICES:
            run = tuple(t + g for t in run for g in got)
            continue
        if run != ("",):
            runs.append(run)
        run = ("",)
    if run != ("",):
        runs.append(run)
    runs = [tuple(dict.fromkeys(r)) for r in runs]
    return tuple(sorted(runs, key=lambda r: (len(r) > 1, -min(map(len, r)))))


def _plan(pattern: Pattern[str],
          ) -> tuple[Callable[[str], Match[str] | None], tuple[tuple[str, ...], ...]]:
    """(the call that answers ``re.search(pattern, line)`` on a line, the pattern's
    requirements, ``required_choices``): memoised by the pattern's identity."""
    got = _PLANS.get(id(pattern))
    if got is not None and got[0] is pattern:
        return got[1], got[2]
    call = pattern.match if anchored_at_start(pattern) else pattern.search
    need = required_choices(pattern)
    _PLANS[id(pattern)] = (pattern, call, need)
    return call, need


def _meets(line: str, need: Sequence[tuple[str, ...]]) -> bool:
    for texts in need:
        for t in texts:
            if t in line:
                break
        else:
            return False
    return True


def _finder(pattern: Pattern[str]) -> Callable[[str], Match[str] | None]:
    got = _FINDERS.get(id(pattern))
    if got is not None and got[0] is pattern:
        return got[1]
    call, need = _plan(pattern)
    f: Callable[[str], Match[str] | None] = call
    if need:
        def f(line: str) -> Match[str] | None:
            return call(line) if _meets(line, need) else None
    _FINDERS[id(pattern)] = (pattern, f)
    return f


def matches_in(pattern: Pattern[str], s: str, lines: list[str]) -> list[tuple[int, Match[str]]]:
    """(index, match) of each of ``lines`` (the lines of ``s``, in order) on which
    ``re.search(pattern, line)`` matches: a requirement of the pattern (``required_choices``)
    that ``s`` does not meet answers at once, else one pass of the lines with the requirements
    tested in C first."""
    call, need = _plan(pattern)
    kept = []
    for texts in need:
        present = tuple(t for t in texts if t in s)
        if not present:
            return []
        kept.append(present)
    if not kept:
        return [(i, m) for i, line in enumerate(lines) if (m := call(line))]
    if len(kept[0]) == 1:
        one, rest = kept[0][0], kept[1:]
        if not rest:
            return [(i, m) for i, line in enumerate(lines) if one in line and (m := call(line))]
        return [(i, m) for i, line in enumerate(lines)
                if one in line and _meets(line, rest) and (m := call(line))]
    return [(i, m) for i, line in enumerate(lines) if _meets(line, kept) and (m := call(line))]


class LineParser(REParser):
    """PokerKit's line stages with ``find`` (module docstring). Placed after a PokerKit site
    class in the bases, so the site's own overrides win."""

    def find(self, pattern: Pattern[str], line: str) -> Match[str] | None:
        """``re.search(pattern, line)`` of one line (no ``\\n``), remembered for this hand."""
        memo: dict[tuple[int, str], Match[str] | None] | None
        memo = self.__dict__.get("_line_memo")
        if memo is None:
            memo = self.__dict__["_line_memo"] = {}
        key = (id(pattern), line)  # the pattern is a class constant: alive, one identity
        try:
            return memo[key]
        except KeyError:
            m = memo[key] = _finder(pattern)(line)
            return m

    def matches(self, pattern: Pattern[str], s: str, *, nl: bool = False,
                ) -> list[tuple[int, Match[str]]]:
        """(line index, match) of the lines of ``s`` that ``pattern`` finds, in order: the lines
        of ``s.splitlines()`` (PokerKit's stages), or of ``s.split("\\n")`` with ``nl``;
        remembered for this hand."""
        memo: dict[tuple[int, str, bool], list[tuple[int, Match[str]]]] | None
        memo = self.__dict__.get("_matches_memo")
        if memo is None:
            memo = self.__dict__["_matches_memo"] = {}
        key = (id(pattern), s, nl)
        got = memo.get(key)
        if got is None:
            got = memo[key] = matches_in(pattern, s, self.lines_of(s, nl=nl))
        return got

    def lines_of(self, s: str, *, nl: bool = False) -> list[str]:
        """``s.splitlines()`` (or ``s.split("\\n")`` with ``nl``), made once per hand."""
        cache: dict[tuple[str, bool], list[str]] | None = self.__dict__.get("_split_memo")
        if cache is None:
            cache = self.__dict__["_split_memo"] = {}
        got = cache.get((s, nl))
        if got is None:
            got = cache[(s, nl)] = s.split("\n") if nl else s.splitlines()
        return got

    def _lines(self, s: str) -> list[str]:
        return self.lines_of(s)

    def _parse_final_seat(self, s: str) -> int:
        m = self.FINAL_SEAT.search(s)
        if m is None:
            raise ValueError('Unable to parse final seat.')
        return int(m['final_seat'])

    def _parse_seats(self, s: str) -> dict[str, int]:
        seats = {}
        for _, m in self.matches(self.SEATS, s):
            seats[m['player']] = int(m['seat'])
        return seats

    def _parse_players(self, s: str) -> set[str]:
        players = set()
        for pattern in (self.ANTE_POSTING, self.BLIND_OR_STRADDLE_POSTING, self.FOLDING,
                        self.CHECKING_OR_CALLING, self.COMPLETION_BETTING_OR_RAISING,
                        self.HOLE_CARDS_SHOWING):
            for _, m in self.matches(pattern, s):
                players.add(m['player'])
        return players

    def _parse_antes(self, s: str, parse_value: Callable[[str], int]) -> defaultdict[str, int]:
        antes: defaultdict[str, int] = defaultdict(int)
        for _, m in self.matches(self.ANTE_POSTING, s):
            antes[m['player']] = parse_value(m['ante'])
        return antes

    def _parse_blinds_or_straddles(self, s: str, parse_value: Callable[[str], int],
                                   ) -> defaultdict[str, int]:
        blinds_or_straddles: defaultdict[str, int] = defaultdict(int)
        for _, m in self.matches(self.BLIND_OR_STRADDLE_POSTING, s):
            blinds_or_straddles[m['player']] = parse_value(m['blind_or_straddle'])
        return blinds_or_straddles

    def _parse_starting_stacks(self, s: str, parse_value: Callable[[str], int],
                               ) -> dict[str, int]:
        starting_stacks = {}
        for _, m in self.matches(self.STARTING_STACKS, s):
            starting_stacks[m['player']] = parse_value(m['starting_stack'])
        return starting_stacks

    def _parse_actions(self, s: str, parse_value: Callable[[str], int],
                       players: Sequence[str]) -> list[str]:
        def format_player(m: Match[str]) -> str:
            return f'p{players.index(m["player"]) + 1}'

        # each line's first pattern of PokerKit's elif chain that finds it, in line order
        first: dict[int, tuple[int, Match[str]]] = {}
        for kind, pattern in enumerate((
                self.BLIND_OR_STRADDLE_POSTING, self.HOLE_DEALING, self.BOARD_DEALING,
                self.FOLDING, self.CHECKING_OR_CALLING, self.COMPLETION_BETTING_OR_RAISING,
                self.HOLE_CARDS_SHOWING)):
            for i, m in self.matches(pattern, s):
                if i not in first:
                    first[i] = (kind, m)
        lines = self.lines_of(s)
        bets: defaultdict[str, int] = defaultdict(int)
        actions = []
        for i in sorted(first):
            kind, m = first[i]
            action = None
            if kind == 0:
                bets[format_player(m)] = parse_value(m['blind_or_straddle'])
            elif kind == 1:
                action = f'd dh {format_player(m)} {self._format_cards(m)}'
            elif kind == 2:
                action = f'd db {self._format_cards(m)}'
                bets.clear()
            elif kind == 3:
                action = f'{format_player(m)} f'
            elif kind == 4:
                formatted_player = format_player(m)
                action = f'{formatted_player} cc'
                bets[formatted_player] = max(bets.values(), default=0)
            elif kind == 5:
                formatted_player = format_player(m)
                max_bet = max(bets.values(), default=0)
                bets[formatted_player] = self._get_completion_betting_or_raising_to_amount(
                    bets, formatted_player, parse_value(m['amount']), lines[i])
                if bets[formatted_player] <= max_bet:
                    action = f'{formatted_player} cc'
                else:
                    action = f'{formatted_player} cbr {bets[formatted_player]}'
            else:
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
            for _, m in self.matches(pattern, s):
                player = m['player']
                sub[player] = merge(sub[player], parse_pattern(m[key]))
            if sub:
                player_variables[key] = sub
        return player_variables
