"""Deliberately broken engine variants, to prove the audits catch them (``--inject FAULT``).

Never on by default; a run made with one records it in its manifest and in every row's
``fault`` column. Codes are shared by the engine (payouts, betting), the shuffles (sim.rng) and
the sessions (rotation):

| code | name | what breaks |
|---|---|---|
| 1 | naive-shuffle | each card swaps with any of the 52 positions (biased permutations) |
| 2 | asf-shuffle | the 1999 ASF (Planet Poker) shuffle: swap with positions 0..50 only |
| 3 | mod8-shuffle | Fisher-Yates fed by one random byte taken modulo i+1 (modulo bias) |
| 4 | seed32 | each deck from a 32-bit seed (decks repeat after about 2^16 hands) |
| 5 | odd-chip-wrong-seat | odd chips go counter-clockwise from the button |
| 6 | side-pot-ignores-eligibility | side pots go to the best shown hand, eligible or not |
| 7 | chip-lost | one chip of the main pot vanishes in 1 hand of 10,000 |
| 8 | button-skips | the button skips a seat in 1 hand of 50 |
| 9 | bb-twice | the positions fail to move in 1 hand of 50 (a big blind posted twice) |
| 10 | short-allin-reopens | a short all-in reopens the betting |
"""

from __future__ import annotations

from sim.runspec import FAULTS

NONE = 0


def fault_code(name: str | None) -> int:
    """The code of a fault name (0 for None)."""
    if name is None:
        return NONE
    return FAULTS.index(name) + 1
