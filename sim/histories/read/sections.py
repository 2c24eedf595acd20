"""A fast reader for the TOML subset PHH and PHHS files use, equal to ``tomllib`` by construction.

``read_sections(text, many=...)`` splits a PHH text into its hands and parses each into a dict
of TOML values, exactly as ``tomllib.loads(text, parse_float=Decimal)`` would (floats are
``decimal.Decimal`` built from their text, never a binary float):

- a ``.phhs`` text (``many``): one ``Section`` per table header (``[1]``, ``['x']``,
  ``["x"]``); a ``.phh`` text: one section with key None holding the whole document;
- understood here: comments, ``key = value`` with bare or quoted keys, literal strings
  (``'...'``, ``'''...'''`` even over lines), basic strings without escapes (``"..."``),
  integers and decimals (underscores, exponents, signs), ``inf``/``nan``, ``true``/``false``,
  local times (``00:02:30``), arrays of these (nested, over lines, trailing commas, comments);
- anything else (escapes, dates, inline tables, dotted keys, hex integers, a duplicate key,
  invalid TOML ...) sends THAT section to ``tomllib`` (its header and its lines); so a result
  is always tomllib's. A section tomllib refuses gets ``error`` (the rest is still read);
- a line starting with ``[`` that is not a simple header (``[a.b]``, ``[[a]]``, junk) stays in
  its section (tomllib reads that section); when a section is refused, the whole file is given
  to tomllib once: if it accepts it (a header-like line inside a multi-line string, a table of
  a section defined in another), its result is the answer;
- limits (never a hang or a traceback): a section over ``MAX_SECTION_CHARS`` characters is an
  error section without being parsed (and the whole file is not given to tomllib); nor is a
  file of more than ``MAX_WHOLE_FILE_CHARS``; arrays nested deeper than ``MAX_DEPTH`` (a hand
  nests two deep at most) make their section an error ("nested too deep", tomllib is not
  asked: its recursion is the hostile file's lever), whichever reader met them.

Differences from ``tomllib`` on purpose (a .phhs file is hands, and one bad hand must not lose
the others): a section tomllib refuses does not invalidate the file, and a repeated table key
is a per-section error ("duplicate section") instead of a file error.
"""

from __future__ import annotations

import datetime as _dt
import re
import tomllib
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

__all__ = ["MAX_DEPTH", "MAX_SECTION_CHARS", "MAX_WHOLE_FILE_CHARS", "Section", "parse_toml",
           "read_sections"]

MAX_SECTION_CHARS = 1_000_000  # a hand is about 1-3 KB; a longer section is hostile
MAX_WHOLE_FILE_CHARS = 64_000_000  # tomllib reads at most this much at once
MAX_DEPTH = 8  # arrays nested at most this deep (PHH uses 1; a hostile file 10,000)


@dataclass(frozen=True, slots=True)
class Section:
    """One hand's TOML table: ``key`` (the header's key; None for a .phh document), ``line``
    (1-based line of the header, 1 for a .phh), ``fields`` (the parsed values) or ``error``
    (why it could not be read; ``fields`` is then None), ``fallback`` (parsed by tomllib)."""

    key: str | None
    line: int
    fields: dict[str, Any] | None
    error: str | None = None
    fallback: bool = False
    hand: str | None = None  # the site's hand number of an error section, when readable


class _Unsupported(Exception):
    """Something this reader does not parse itself: tomllib decides."""


class _TooDeep(Exception):
    """Arrays nested deeper than MAX_DEPTH: the section is refused, tomllib is not asked."""


def _too_deep_text() -> str:
    return f"arrays nested too deep: expected at most {MAX_DEPTH} levels"


def _depth(v: Any) -> int:
    """How deep lists and tables nest in a parsed value (iterative: never a RecursionError)."""
    most = 0
    todo = [(v, 0)]
    while todo:
        x, d = todo.pop()
        if isinstance(x, list | dict):
            d += 1
            most = max(most, d)
            if d > MAX_DEPTH + 1:
                return d
            todo.extend((y, d) for y in (x.values() if isinstance(x, dict) else x))
    return most


_CTRL = "\x00-\x08\x0a-\x1f\x7f"
_WS = re.compile(r"[ \t]*")
# whitespace, newlines and comments between array values
_FILL = re.compile(rf"(?:[ \t]*(?:#[^{_CTRL}]*)?(?:\r?\n))*[ \t]*")
_EOL = re.compile(rf"[ \t]*(?:#[^{_CTRL}]*)?(?:\r?\n|\Z)")
_BLANK = re.compile(rf"(?:[ \t]*(?:#[^{_CTRL}]*)?(?:\r?\n))*[ \t]*(?:#[^{_CTRL}]*)?\Z")
_KEY = re.compile(rf"([A-Za-z0-9_-]+)|'([^'{_CTRL}]*)'|\"([^\"\\{_CTRL}]*)\"")
_EQ = re.compile(r"[ \t]*=[ \t]*")
_LITERAL = re.compile(rf"'([^'{_CTRL}]*)'")
_BASIC = re.compile(rf"\"([^\"\\{_CTRL}]*)\"")
_ML_BAD = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_DIGITS = r"[0-9](?:_?[0-9])*"
_NUMBER = re.compile(
    rf"[+-]?(?:(?:0|[1-9](?:_?[0-9])*)(?P<f>(?:\.{_DIGITS})?(?:[eE][+-]?{_DIGITS})?)"
    r"|(?P<s>inf|nan))(?=[ \t,\]#\r\n]|\Z)")
_TIME = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])(?:\.([0-9]{1,6})[0-9]*)?"
                   r"(?=[ \t,\]#\r\n]|\Z)")
_BOOL = re.compile(r"(true|false)(?=[ \t,\]#\r\n]|\Z)")
# fast paths: a one-line array of literal strings, or of decimal numbers
_STR_ARRAY = re.compile(rf"\[[ \t]*((?:'[^'{_CTRL}]*'[ \t]*,[ \t]*)*'[^'{_CTRL}]*'[ \t]*,?)?"
                        r"[ \t]*\]")
_STR_ITEM = re.compile(rf"'([^'{_CTRL}]*)'")
_NUM = rf"[+-]?(?:(?:0|[1-9](?:_?[0-9])*)(?:\.{_DIGITS})?(?:[eE][+-]?{_DIGITS})?|inf|nan)"
_NUM_ARRAY = re.compile(rf"\[[ \t]*((?:{_NUM}[ \t]*,[ \t]*)*{_NUM}[ \t]*,?)?[ \t]*\]")
# one whole `key = value` line of the common shapes (after blank and comment lines), one match
_LINE = re.compile(
    rf"(?:[ \t]*(?:#[^{_CTRL}]*)?\r?\n)*[ \t]*(?P<k>[A-Za-z0-9_-]+)[ \t]*=[ \t]*(?:"
    rf"'(?P<s>[^'{_CTRL}]*)'(?!')"
    rf"|\"(?P<q>[^\"\\{_CTRL}]*)\"(?!\")"
    rf"|(?P<n>{_NUM})"
    rf"|(?P<ea>\[[ \t]*\])"
    rf"|\[[ \t]*(?P<sa>(?:'[^'{_CTRL}]*'[ \t]*,[ \t]*)*'[^'{_CTRL}]*'[ \t]*,?)[ \t]*\]"
    rf"|\[[ \t]*(?P<na>(?:{_NUM}[ \t]*,[ \t]*)*{_NUM}[ \t]*,?)[ \t]*\]"
    r"|(?P<b>true|false)"
    r"|(?P<t>(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9])"
    rf")[ \t]*(?:#[^{_CTRL}]*)?(?:\r?\n|\Z)")
# a header line as this reader splits on: [key] with a simple key; matched in "\n" + text
# (a pattern starting with a literal scans fast, a 100 MB line included)
_HEADER = re.compile(
    rf"\n[ \t]*\[[ \t]*(?:([A-Za-z0-9_-]+)|'([^'{_CTRL}]*)'|\"([^\"\\{_CTRL}]*)\")[ \t]*\]"
    rf"[ \t]*(?:#[^{_CTRL}]*)?(?=\r?\n|\Z)")
_NON_INT = frozenset(".eEin")
_HAND_LINE = re.compile(r"^[ \t]*hand[ \t]*=[ \t]*(?:'([^'\n]{1,200})'|\"([^\"\n]{1,200})\"|"
                        r"([0-9]{1,30}))[ \t]*(?:#.*)?\r?$", re.M)


def _hand_hint(text: str) -> str | None:
    m = _HAND_LINE.search(text, 0, min(len(text), MAX_SECTION_CHARS))
    return None if m is None else next(g for g in m.groups() if g is not None)


NUMBER_MEMO: dict[str, int | Decimal] = {}  # memo of number tokens (values are immutable)


def _num(tok: str) -> int | Decimal:
    v = NUMBER_MEMO.get(tok)
    if v is None:
        v = int(tok) if _NON_INT.isdisjoint(tok) else Decimal(tok)
        if len(NUMBER_MEMO) >= 65_536:
            NUMBER_MEMO.clear()
        NUMBER_MEMO[tok] = v
    return v


def _nums(inner: str) -> list[int | Decimal]:
    """The numbers of a validated one-line array body (``1, 2.5 ,3,``)."""
    toks = (inner.replace(" ", "") if "\t" not in inner else re.sub(r"[ \t]", "", inner)
            ).split(",")
    if not toks[-1]:
        toks.pop()
    get = NUMBER_MEMO.get
    out = [get(t) for t in toks]
    if None in out:
        out = [_num(t) for t in toks]
    return out  # type: ignore[return-value]  # no None left


def _value(s: str, pos: int, depth: int = 0) -> tuple[Any, int]:
    """The value starting at ``pos`` (``depth`` arrays deep) and the position after it;
    _Unsupported otherwise, _TooDeep for arrays nested deeper than MAX_DEPTH."""
    c = s[pos : pos + 1]
    if c == "'":
        if s.startswith("'''", pos):
            return _ml_literal(s, pos + 3)
        m = _LITERAL.match(s, pos)
        if m is None:
            raise _Unsupported
        return m.group(1), m.end()
    if c == '"':
        m = _BASIC.match(s, pos)
        if m is None or s.startswith('"""', pos):
            raise _Unsupported
        return m.group(1), m.end()
    if c == "[":
        return _array(s, pos, depth + 1)
    if c == "t" or c == "f":
        m = _BOOL.match(s, pos)
        if m is None:
            raise _Unsupported
        return m.group(1) == "true", m.end()
    if c and c in "0123456789" and s[pos + 2 : pos + 3] == ":":
        m = _TIME.match(s, pos)
        if m is None:
            raise _Unsupported
        frac = m.group(4)
        micro = int(frac.ljust(6, "0")) if frac else 0
        return _dt.time(int(m.group(1)), int(m.group(2)), int(m.group(3)), micro), m.end()
    m = _NUMBER.match(s, pos)
    if m is None:
        raise _Unsupported
    tok = m.group()
    if m.group("f") or m.group("s"):
        return Decimal(tok), m.end()
    return int(tok), m.end()


def _ml_literal(s: str, pos: int) -> tuple[str, int]:
    """A ``'''`` string whose body starts at ``pos`` (a newline right after the opening
    delimiter is trimmed); the closing run of 3 to 5 quotes gives its extra quotes to the
    string, as TOML says."""
    if s.startswith("\n", pos):
        pos += 1
    start = pos
    end = s.find("'''", pos)
    if end < 0:
        raise _Unsupported
    q = end + 3
    while q < len(s) and s[q] == "'":
        q += 1
    if q - end > 5:
        raise _Unsupported
    body = s[start : q - 3]
    if _ML_BAD.search(body) is not None:
        raise _Unsupported  # a control character (a carriage return too): tomllib decides
    return body, q


def _array(s: str, pos: int, depth: int = 1) -> tuple[list[Any], int]:
    if depth > MAX_DEPTH:
        raise _TooDeep
    m = _STR_ARRAY.match(s, pos)
    if m is not None:
        inner = m.group(1)
        return (_STR_ITEM.findall(inner) if inner else []), m.end()
    m = _NUM_ARRAY.match(s, pos)
    if m is not None:
        inner = m.group(1)
        return (_nums(inner) if inner else []), m.end()
    out: list[Any] = []
    pos += 1
    while True:
        pos = _FILL.match(s, pos).end()  # type: ignore[union-attr]  # matches the empty string
        if s.startswith("]", pos):
            return out, pos + 1
        v, pos = _value(s, pos, depth)
        out.append(v)
        pos = _FILL.match(s, pos).end()  # type: ignore[union-attr]
        if s.startswith(",", pos):
            pos += 1
        elif s.startswith("]", pos):
            return out, pos + 1
        else:
            raise _Unsupported


# memo of whole `key = value` lines read by _LINE: the line's text (its newline included) ->
# (key, value, is_list); a table's hands repeat most of their lines (variant, antes, blinds,
# venue, seats, players, date, currency). _LINE never looks past a line's newline (its classes
# exclude it; only its leading blank lines cross one: such matches are not kept), so a line
# reads the same wherever it stands. Values are immutable (a list is kept as a tuple and
# copied out).
LINE_MEMO: dict[str, tuple[str, Any, bool]] = {}
_LINE_MEMO_CHARS = 240  # longer lines (actions, long stacks) rarely repeat: not kept
# fields that differ from hand to hand: never kept (they would only fill the memo)
_PER_HAND_KEYS = frozenset({"hand", "time", "starting_stacks", "finishing_stacks", "winnings",
                            "actions", "rake", "total_pot"})


def _table(s: str, pos: int) -> dict[str, Any]:
    """The ``key = value`` lines of ``s`` from ``pos`` to its end."""
    out: dict[str, Any] = {}
    n = len(s)
    line = _LINE.match
    memo = LINE_MEMO
    find = s.find
    while True:
        eol = find("\n", pos, pos + _LINE_MEMO_CHARS) + 1
        if eol:
            hit = memo.get(s[pos:eol])
            if hit is not None:
                key, kept, is_list = hit
                if key in out:
                    raise _Unsupported
                out[key] = list(kept) if is_list else kept
                pos = eol
                continue
        m = line(s, pos)
        if m is not None:
            key = m.group("k")
            if key in out:
                raise _Unsupported
            g = m.lastgroup
            v: Any
            if g == "s" or g == "q" or g == "sa":
                v = m.group(g)
                if g == "sa":
                    v = _STR_ITEM.findall(v)
            elif g == "n":
                v = _num(m.group(g))
            elif g == "na":
                v = _nums(m.group(g))
            elif g == "ea":
                v = []
            elif g == "b":
                v = m.group(g) == "true"
            else:
                h, mi, se = m.group("t").split(":")
                v = _dt.time(int(h), int(mi), int(se))
            out[key] = v
            if eol and m.end() == eol and key not in _PER_HAND_KEYS:  # one whole line: kept
                if len(memo) >= 65_536:
                    memo.clear()
                memo[s[pos:eol]] = (key, tuple(v), True) if type(v) is list else (key, v, False)
            pos = m.end()
            continue
        pos = _FILL.match(s, pos).end()  # type: ignore[union-attr]
        if pos >= n:
            return out
        m = _KEY.match(s, pos)
        if m is None:
            raise _Unsupported
        key = m.group(1) if m.group(1) is not None else (
            m.group(2) if m.group(2) is not None else m.group(3))
        e = _EQ.match(s, m.end())
        if e is None or e.end() == m.end() or key in out:
            raise _Unsupported  # no '=' (or a dotted key), or a duplicate key
        v, pos = _value(s, e.end())
        out[key] = v
        m = _EOL.match(s, pos)
        if m is None:
            raise _Unsupported
        pos = m.end()


def _tomllib_section(text: str) -> tuple[dict[str, Any] | None, str | None]:
    try:
        doc = tomllib.loads(text, parse_float=Decimal)
        if _depth(doc) > MAX_DEPTH + 2:  # + 2: the document's and a section's tables
            return None, _too_deep_text()
        return doc, None
    except tomllib.TOMLDecodeError as e:
        return None, f"bad TOML: {e}"
    except RecursionError:
        return None, _too_deep_text()
    except (ValueError, MemoryError) as e:  # e.g. an integer of 5,000 digits
        return None, f"bad TOML: {type(e).__name__}: {str(e)[:200]}"


def parse_toml(text: str) -> dict[str, Any]:
    """One TOML document of the subset (tomllib for anything else), floats as Decimal.
    Raises ``tomllib.TOMLDecodeError`` (or ValueError) as tomllib does."""
    try:
        return _table(text, 0)
    except _TooDeep:
        raise ValueError(_too_deep_text()) from None
    except _Unsupported:
        doc = tomllib.loads(text, parse_float=Decimal)
        if _depth(doc) > MAX_DEPTH + 2:
            raise ValueError(_too_deep_text()) from None
        return doc


def _one(text: str, key: str | None, line: int, body_start: int) -> Section:
    if len(text) > MAX_SECTION_CHARS:
        return Section(key, line, None, f"section of {len(text):,} characters: expected at most "
                                        f"{MAX_SECTION_CHARS:,} (a hand is a few KB)",
                       hand=_hand_hint(text))
    try:
        return Section(key, line, _table(text, body_start))
    except _TooDeep:
        return Section(key, line, None, _too_deep_text(), hand=_hand_hint(text))
    except _Unsupported:
        pass
    except (ValueError, ArithmeticError):  # e.g. int() of 5,000 digits: tomllib decides
        pass
    doc, err = _tomllib_section(text)
    if doc is None:
        return Section(key, line, None, err, True, _hand_hint(text))
    if key is None:
        return Section(None, line, doc, None, True)
    if set(doc) != {key} or not isinstance(doc[key], dict):
        return Section(key, line, None, "bad TOML: the section does not hold one table", True,
                       _hand_hint(text))
    return Section(key, line, doc[key], None, True)


def read_sections(text: str, *, many: bool) -> list[Section]:
    """The hands of a PHH text (see the module docstring); never raises for bad content."""
    if not many:
        return [_one(text, None, 1, 0)]
    nl = "\n" + text  # offsets in nl are one more than in text: a match's "\n" is at text[i-1]
    headers = list(_HEADER.finditer(nl))  # other lines starting with '[' ([1.x], [[x]], an
    # array's continuation, junk) stay in their section: tomllib reads that section
    out: list[Section] = []
    lead = text[: headers[0].start()] if headers else text
    if _BLANK.match(lead) is None:
        out.extend(_top_level(lead))
    seen: set[str] = set()
    line = 1 + lead.count("\n")
    oversize = False
    for i, h in enumerate(headers):
        start = h.start()  # the header line's first character in text
        end = headers[i + 1].start() if i + 1 < len(headers) else len(text)
        key = h.group(1) if h.group(1) is not None else (
            h.group(2) if h.group(2) is not None else h.group(3))
        chunk = text[start:end]
        if key in seen:
            out.append(Section(key, line, None, f"duplicate section [{key}] (an earlier "
                                                "section has the same key)",
                               hand=_hand_hint(chunk)))
        else:
            seen.add(key)
            sec = _one(chunk, key, line, h.end() - 1 - start)
            oversize = (oversize or len(chunk) > MAX_SECTION_CHARS
                        or sec.error == _too_deep_text())  # tomllib is not asked for the file
            out.append(sec)
        line += chunk.count("\n")
    if (not oversize and len(text) <= MAX_WHOLE_FILE_CHARS
            and any(sec.error is not None for sec in out)):
        whole, _err = _tomllib_section(text)
        if whole is not None:  # e.g. a header-like line inside a multi-line string, or a
            return _sections_of(whole)  # table of a section defined in another
    return out


def _top_level(lead: str) -> list[Section]:
    """Text before the first header of a .phhs file: its keys are not hands (a table there,
    from a header such as [a.b], is)."""
    if len(lead) > MAX_SECTION_CHARS:
        return [Section(None, 1, None, f"text before the first section of {len(lead):,} "
                                       f"characters: expected at most {MAX_SECTION_CHARS:,}")]
    doc, err = _tomllib_section(lead)
    if doc is None:
        return [Section(None, 1, None, err, True)]
    return _sections_of(doc)


def _sections_of(doc: dict[str, Any]) -> list[Section]:
    out = []
    for k, v in doc.items():
        if isinstance(v, dict):
            out.append(Section(str(k), 0, v, None, True))
        else:
            out.append(Section(None, 1, None, f"top-level key {k!r}: expected a table of hand "
                                              "fields (a .phhs file holds hands under table "
                                              "keys such as [1])", True))
    return out
