"""Deliberately broken engine variants, to prove the audits catch them (``--inject FAULT``).

Never on by default; a run made with one records it in its manifest and in every row's
``fault`` column. Codes are shared by the engine (payouts, showdown, betting), the shuffles
(sim.rng) and the sessions (rotation, the deck's stream position):

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
| 11 | mucks-winner | a winning hand mucked at showdown, in 1 hand of 20 (below) |
| 12 | wrong-stream-position | 1 deck of 50 shuffled from a wrong stream position |

mucks-winner is planted in 1 hand of 20, drawn before the deal (so at 1 showdown in 20 of 2 or
more live hands): the first hand in showdown order that wins or ties a pot, and is not alone in
a pot it is eligible for, is mucked; the other hands are shown or mucked by the usual rule as if
it were not there, and its pots go to the best of them; every column (shown, ranks, winners,
won, stacks) tells that story and chips are conserved. wrong-stream-position shuffles 1 deck of
50 one 64-bit word further into the hand's Philox deck stream: a fair permutation, dealt by the
rules, but not the deck of its ``seed_key`` (which names the key the hand should come from);
Philox only (with ``--generator os-chacha20`` it does nothing).

``counts["fault_fired"]`` (``sim.batch.simulate_batch``, summed into the manifest's ``counts``)
is the number of hands in which the injected fault changed something, 0 for a clean run:

- shuffles (1-4) and wrong-stream-position: hands whose deck differs from the deck of their
  ``seed_key`` (``sim.rng.hand_deck``); every hand for 1-4 with ``--generator os-chacha20``
  (the faulty shuffle replaces the generator);
- odd-chip-wrong-seat: hands with a pot whose odd chips reach other seats than clockwise;
- side-pot-ignores-eligibility: hands with a side pot whose winners differ from the eligible
  best hands;
- chip-lost: hands where the chip vanished (the fault is planted in 1 hand of 10,000);
- button-skips, bb-twice: hands whose button, small or big blind differ from what the clean
  rules deal from the same table state;
- short-allin-reopens: hands with a raise the clean rules forbid (a seat that faced only short
  all-ins since it acted);
- mucks-winner: hands where a winning hand was mucked (showdowns of 1 hand in 20 with a victim).

The 1-in-N choices are drawn from the hand's table stream (``sim.rng.TABLE_PURPOSE``, after
leaves and positions): they shift that hand's later table draws (its timeout), never a deck or
the bots. Which part acts on a code is named next to the codes below (``is_shuffle_fault``,
``is_rotation_fault``, ``is_engine_fault``; wrong-stream-position is the session's own).
mucks-winner acts on automatic showdowns (every simulated batch); a ``sim.hand.Hand`` with
``auto_showdown=False`` ignores it.
"""

from __future__ import annotations

from numba import njit

from sim.runspec import FAULTS

NONE = 0


def fault_code(name: str | None) -> int:
    """The code of a fault name (0 for None)."""
    if name is None:
        return NONE
    return FAULTS.index(name) + 1


def fault_name(code: int) -> str | None:
    """The name of a fault code (None for 0): the inverse of ``fault_code``."""
    if code == NONE:
        return None
    return FAULTS[code - 1]


# the codes of the table above, by name (plain ints: the compiled code compares against them)
F_NAIVE_SHUFFLE = fault_code("naive-shuffle")
F_ASF_SHUFFLE = fault_code("asf-shuffle")
F_MOD8_SHUFFLE = fault_code("mod8-shuffle")
F_SEED32 = fault_code("seed32")
F_ODD_CHIP = fault_code("odd-chip-wrong-seat")
F_SIDE_POT_ELIGIBILITY = fault_code("side-pot-ignores-eligibility")
F_CHIP_LOST = fault_code("chip-lost")
F_BUTTON_SKIPS = fault_code("button-skips")
F_BB_TWICE = fault_code("bb-twice")
F_SHORT_ALLIN_REOPENS = fault_code("short-allin-reopens")
F_MUCKS_WINNER = fault_code("mucks-winner")
F_WRONG_STREAM = fault_code("wrong-stream-position")


# the faults that replace the shuffle (sim.rng.faulty_shuffle)
SHUFFLE_FAULT_CODES = (F_NAIVE_SHUFFLE, F_ASF_SHUFFLE, F_MOD8_SHUFFLE, F_SEED32)
# the faults that move the button or the blinds wrongly (sim.session)
ROTATION_FAULT_CODES = (F_BUTTON_SKIPS, F_BB_TWICE)
# the faults the hand's engine acts on (sim.engine, handed in with the config block)
ENGINE_FAULT_CODES = (F_ODD_CHIP, F_SIDE_POT_ELIGIBILITY, F_CHIP_LOST, F_SHORT_ALLIN_REOPENS,
                      F_MUCKS_WINNER)


@njit(cache=True, _nrt=False)
def is_shuffle_fault(code: int) -> bool:
    """``code`` replaces the shuffle: naive, ASF, mod8 or seed32 (``SHUFFLE_FAULT_CODES``)."""
    return code in SHUFFLE_FAULT_CODES


@njit(cache=True, _nrt=False)
def is_rotation_fault(code: int) -> bool:
    """``code`` moves the button or the blinds wrongly: button-skips, bb-twice."""
    return code in ROTATION_FAULT_CODES


@njit(cache=True, _nrt=False)
def is_engine_fault(code: int) -> bool:
    """The hand's engine acts on ``code``: odd-chip-wrong-seat, side-pot-ignores-eligibility,
    chip-lost, short-allin-reopens, mucks-winner (``ENGINE_FAULT_CODES``)."""
    return code in ENGINE_FAULT_CODES
