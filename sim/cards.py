"""Cards as ints 0..51: ``card = rank * 4 + suit``.

rank 0..12 is 2..A; suit 0..3 is clubs, diamonds, hearts, spades. So ``2c`` is 0 and ``As`` is 51.

As text a card is its rank (``23456789TJQKA``; ``10`` for ``T`` is accepted, the rank in either
case) and its suit (``cdhs``, either case): ``As``, ``Td``, ``10d``, ``td``. The Python API takes
cards as ints or as text, mixed if need be (``cards_of``: one place) and shows them as text
(``format_card``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

RANKS = "23456789TJQKA"
SUITS = "cdhs"
N_CARDS = 52  # cards in the deck
HOLE_CARDS = 2  # a seat's hole cards
BOARD_CARDS = 5  # the community cards of a hand run out to the river


def card_rank(card: int) -> int:
    """Rank index 0..12 (2..A) of a card."""
    return card >> 2


def card_suit(card: int) -> int:
    """Suit index 0..3 (c, d, h, s) of a card."""
    return card & 3


def parse_card(text: str) -> int:
    """Parse one card such as ``As``, ``Td`` or ``2c`` (rank case-insensitive, ``10`` accepted)."""
    t = text.strip()
    if t[:2] == "10":
        t = "T" + t[2:]
    if len(t) != 2:
        raise ValueError(f"bad card {text!r}: expected a rank in {RANKS} and a suit in {SUITS}")
    r = RANKS.find(t[0].upper())
    s = SUITS.find(t[1].lower())
    if r < 0 or s < 0:
        raise ValueError(f"bad card {text!r}: expected a rank in {RANKS} and a suit in {SUITS}")
    return r * 4 + s


_CARD_TOKEN = re.compile(r"10.|..|.")  # one card of concatenated text ("AsKd", "10dAs")
CARD_EXPECTED = (f"an int 0..{N_CARDS - 1} or a card as text: a rank in {RANKS} (or 10) and a "
                 f"suit in {SUITS}, e.g. 'As', 'Td'")


def card_of(value: int | str | np.integer, where: str) -> int:
    """One card given as an int 0..51 or as text (``parse_card``); ``where`` names it in the
    one-line ValueError (e.g. ``"deck[7]"``)."""
    if isinstance(value, str):
        try:
            return parse_card(value)
        except ValueError:
            raise ValueError(f"{where}: {value!r} is not a card: expected {CARD_EXPECTED}"
                             ) from None
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        if 0 <= value < N_CARDS:
            return int(value)
    raise ValueError(f"{where}: {value} is not a card: expected {CARD_EXPECTED}")


def cards_of(cards: str | Iterable[int | str | np.integer], name: str) -> list[int]:
    """Cards given as ints, as text cards or both mixed (``[51, "Kd"]``), or as one text
    (``"As Kd"``, ``"AsKd"``, ``"As,Kd"``). A bad card raises a one-line ValueError naming
    ``name``, the card's position and what was expected: ``deck[7]: 'Xs' is not a card: ...``.
    Repeats are not checked here (``check_distinct``)."""
    if isinstance(cards, str):
        items: list[int | str | np.integer] = []
        for token in cards.replace(",", " ").split():
            items.extend(_CARD_TOKEN.findall(token))
        return [card_of(c, f"{name}[{i}]") for i, c in enumerate(items)]
    if isinstance(cards, np.ndarray):
        ints = cards.ndim == 1 and cards.dtype.kind in "iu"
        out: list[int] = cards.astype(np.int64).tolist() if ints else []
    else:
        cards = list(cards)
        out = cards if all(type(c) is int for c in cards) else []  # type: ignore[assignment]
        ints = bool(out) or not cards
    if ints and (not out or (min(out) >= 0 and max(out) < N_CARDS)):
        return list(out)  # all ints in range: checked at once (the replays' decks)
    return [card_of(c, f"{name}[{i}]") for i, c in enumerate(cards)]


def parse_cards(text: str) -> list[int]:
    """Parse concatenated or space-separated cards: ``'AsKd'``, ``'As Kd'``."""
    t = "".join(text.split())
    if len(t) % 2:
        raise ValueError(f"bad cards {text!r}: odd number of characters")
    return [parse_card(t[i : i + 2]) for i in range(0, len(t), 2)]


def format_card(card: int) -> str:
    """Format a card int as ``As``; -1 (unknown) formats as ``??``."""
    if card < 0:
        return "??"
    if card >= N_CARDS:
        raise ValueError(f"bad card {card}: expected 0..51")
    return RANKS[card >> 2] + SUITS[card & 3]


def format_cards(cards: Iterable[int], sep: str = "") -> str:
    """Format several cards, joined by ``sep``."""
    return sep.join(format_card(int(c)) for c in cards)


def check_distinct(cards: Sequence[int]) -> None:
    """Raise ValueError naming the first card that appears twice."""
    seen: set[int] = set()
    for c in cards:
        if c in seen:
            raise ValueError(f"card {format_card(c)} dealt twice")
        seen.add(c)
