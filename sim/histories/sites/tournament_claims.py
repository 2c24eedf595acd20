"""What a tournament hand's text claims for its players beyond the hand's chips (issue 34,
point 3): finishing places, prizes, bounties, re-buys and add-ons, as the operator writes them.
They are the operator's claims: recorded in the import log (``op_claim_players``,
``op_claims``), never trusted by an audit and never computed with by the import.

One claim is ``(player, claim)``, ``claim`` one of ``place N``, ``prize AMOUNT``,
``bounty AMOUNT``, ``rebuy CHIPS AMOUNT``, ``add-on CHIPS AMOUNT`` (AMOUNT as written: ``$12.50``,
``250 StarsCoin``; CHIPS a whole number of the tournament's chips). The lines read:

- PokerStars: ``X finished the tournament in 3rd place[ and received $12.50.]``,
  ``X wins the tournament and receives $45.00 - congratulations!`` (place 1 and its prize),
  ``X wins the $5 bounty for eliminating Y``, ``X re-buys and receives 1500 chips for $1.00``,
  ``X takes the add-on and receives 3000 chips for $1.00``;
- Full Tilt: ``X finished in 3rd place[ and received $12.50]``;
- PartyPoker: ``Player X finished in 2 138.`` (the place; the second number is not read).
"""

from __future__ import annotations

import re

__all__ = ["claims"]

_AMOUNT = r"(?P<amount>[$€£]?[0-9](?:[0-9,]|\.(?=[0-9])){0,15}(?: [A-Za-z]{2,12})?)"
_CHIPS = r"(?P<chips>[0-9][0-9,]{0,15}) chips"
_ORD = r"(?P<place>[0-9]{1,6})(?:st|nd|rd|th)"
_LINES: dict[str, tuple[re.Pattern[str], ...]] = {
    "pokerstars": (
        re.compile(rf"^(?P<player>.+?) finished the tournament in {_ORD} place"
                   rf"(?: and received {_AMOUNT}\.?)?\s*$"),
        re.compile(rf"^(?P<player>.+?) wins the tournament and receives {_AMOUNT}"
                   r" - congratulations!\s*$"),
        re.compile(rf"^(?P<player>.+?) wins the {_AMOUNT} bounty for eliminating .+$"),
        re.compile(rf"^(?P<player>.+?) re-buys and receives {_CHIPS} for {_AMOUNT}\s*$"),
        re.compile(rf"^(?P<player>.+?) takes the add-on and receives {_CHIPS} for {_AMOUNT}\s*$"),
    ),
    "fulltilt": (
        re.compile(rf"^(?P<player>.+?) finished in {_ORD} place"
                   rf"(?: and (?:received|won) {_AMOUNT}\.?)?\s*$"),
    ),
    "partypoker": (
        re.compile(r"^Player (?P<player>.+?) finished in (?P<place>[0-9]{1,6})(?: [0-9]+)?\.\s*$"),
    ),
}
_KIND = {0: "place", 1: "win", 2: "bounty", 3: "rebuy", 4: "add-on"}


def claims(site: str, text: str, players: list[str]) -> tuple[tuple[str, str], ...]:
    """The claims (``(player, claim)``, in the text's order) of a hand's ``text`` at ``site``
    about one of its seated ``players``; a line naming nobody seated is not a claim about the
    hand's table and is not read."""
    patterns = _LINES.get(site)
    if not patterns:
        return ()
    seated = set(players)
    out: list[tuple[str, str]] = []
    for line in text.splitlines():
        for i, pattern in enumerate(patterns):
            m = pattern.match(line)
            if m is None or m["player"] not in seated:
                continue
            who, got = m["player"], m.groupdict()
            kind = "place" if site != "pokerstars" else _KIND[i]
            if kind == "place":
                out.append((who, f"place {int(got['place'])}"))
                if got.get("amount"):
                    out.append((who, f"prize {got['amount']}"))
            elif kind == "win":
                out += [(who, "place 1"), (who, f"prize {got['amount']}")]
            elif kind == "bounty":
                out.append((who, f"bounty {got['amount']}"))
            else:
                out.append((who, f"{kind} {int(got['chips'].replace(',', ''))} {got['amount']}"))
            break
    return tuple(out)
