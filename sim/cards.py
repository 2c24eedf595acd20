"""Cards as ints 0..51: ``card = rank * 4 + suit``.

rank 0..12 is 2..A; suit 0..3 is clubs, diamonds, hearts, spades. So ``2c`` is 0 and ``As`` is 51.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

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
