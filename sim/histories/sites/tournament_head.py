"""What a tournament hand's header states of its tournament besides its id (issue 34, point 3):
its blind level (``level``: PokerStars ``Level XIX``, Full Tilt and PartyPoker ``Level 3``) and
its buy-in (``buy_in``): the operator's claim of what an entry cost, kept as written
(``$0.98+$0.02``, ``€0``, ``Free``, ``250 SC``): its money is not the hand's chips, and the
import never computes with it. None when the site writes no buy-in in the hand (GGPoker,
WPN/ACR and 888 name the tournament only; Full Tilt's hand header only a sit & go's
``$N + $N``).
"""

from __future__ import annotations

import re

__all__ = ["buy_in", "level"]

_MONEY = r"[$€£]?[0-9][0-9.,]{0,15}"
_BUY_IN: dict[str, re.Pattern[str]] = {
    # PokerStars: ``Tournament #N, $0.98+$0.02 USD Hold'em``, ``Tournament #N, Freeroll Hold'em``
    "pokerstars": re.compile(rf"Tournament #\d+, (?P<b>Freeroll|[0-9]{{1,12}} SC|{_MONEY}"
                             rf"(?:\+{_MONEY}){{0,3}}(?: [A-Z]{{3}})?) "),
    # Full Tilt: ``Game #N: $2 + $0.25 Sit & Go (123), Table 1``
    "fulltilt": re.compile(rf"Game #\d+: (?P<b>{_MONEY} ?\+ ?{_MONEY}) "),
    # Ongame: ``(TOURNAMENT: "name", R-271-14, buy-in: €0)``
    "ongame": re.compile(r"\(TOURNAMENT: .{0,120}?buy-in: (?P<b>[^)\n]{1,40})\)"),
    # Winamax: ``Tournament "Freeroll 100€" buyIn: Free level: 0``
    "winamax": re.compile(r"buyIn: (?P<b>.{1,40}?) level: "),
    # PartyPoker: ``NL Texas Hold'em $11 USD Buy-in Trny: 59658935``
    "partypoker": re.compile(rf"(?P<b>{_MONEY}(?: ?\+ ?{_MONEY})?(?: [A-Z]{{3}})?) Buy-in "),
    # iPoker: the session's ``<buyin>$5+$0.50</buyin>``, else ``<totalbuyin>``
    "ipoker": re.compile(r"<buyin>(?P<b>[^<]{1,40})</buyin>|"
                         r"<totalbuyin>(?P<b2>[^<]{1,40})</totalbuyin>"),
}


def buy_in(site: str, head: str) -> str | None:
    """The buy-in as the hand's header (``head``: its first lines; iPoker: its session's
    general block) states it, None when it states none."""
    pattern = _BUY_IN.get(site)
    m = pattern.search(head) if pattern is not None else None
    if m is None:
        return None
    value = next((v.strip() for v in m.groupdict().values() if v and v.strip()), "")
    return value or None


_LEVEL = re.compile(r"\bLevel:? ?(?P<lv>[IVXLC]{1,9}|[0-9]{1,4})\b")
_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}


def _roman(text: str) -> int | None:
    """A Roman numeral's value (subtractive pairs as written: ``XIX`` 19), None when it is not
    one written the standard way."""
    total = 0
    for i, ch in enumerate(text):
        v = _ROMAN[ch]
        total += -v if i + 1 < len(text) and _ROMAN[text[i + 1]] > v else v
    return total if total >= 1 and _to_roman(total) == text else None


def _to_roman(n: int) -> str:
    out = []
    for v, r in ((100, "C"), (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"),
                 (4, "IV"), (1, "I")):
        while n >= v:
            out.append(r)
            n -= v
    return "".join(out)


def level(site: str, head: str) -> int | None:
    """The blind level (counted from 1, as the sites count) a text site's tournament hand
    header states, None when it states none (the sites read by ``plain.py`` give theirs)."""
    if site not in ("pokerstars", "fulltilt", "partypoker"):
        return None
    m = _LEVEL.search(head)
    if m is None:
        return None
    lv = m["lv"]
    n = int(lv) if lv.isdigit() else _roman(lv)
    return n if n is not None and 1 <= n <= 9999 else None
