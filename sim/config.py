"""Frozen, keyword-only table configuration and the enums it uses."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import IntEnum
from typing import Any

from sim.layout import MAX_SEATS  # the engine's seat blocks: one declaration

# the pre-flop minimum raise over a straddle (docs/game.md#straddles): the straddler is the
# bigger blind (a raise adds at least the straddle), or one big blind over it (PokerKit's)
STRADDLE_RAISES = ("straddle", "big_blind")


class Structure(IntEnum):
    """Betting structure."""

    NO_LIMIT = 0
    POT_LIMIT = 1
    FIXED_LIMIT = 2

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", "-")

    @classmethod
    def parse(cls, text: str | int | Structure) -> Structure:
        if isinstance(text, cls):
            return text
        if isinstance(text, int):
            return cls(text)
        key = str(text).strip().lower().replace("_", "-")
        aliases = {"nl": "no-limit", "pl": "pot-limit", "fl": "fixed-limit", "limit": "fixed-limit"}
        key = aliases.get(key, key)
        for s in cls:
            if s.label == key:
                return s
        raise ValueError(
            f"unknown structure {text!r}: expected no-limit, pot-limit or fixed-limit"
        )


class AnteMode(IntEnum):
    """Who posts the ante: nobody, every seated player, or the big blind alone."""

    NONE = 0
    UNIFORM = 1
    BIG_BLIND = 2


@dataclass(frozen=True, kw_only=True)
class TableConfig:
    """Everything fixed about a table for a hand. Chips are integers.

    ``ante_trimming`` follows PHH's ``ante_trimming_status``: True layers antes into side pots like
    bets; False makes antes dead money in the main pot.

    Fixed-limit: ``small_bet`` (pre-flop and flop) and ``big_bet`` (turn and river) default to the
    big blind and twice the big blind; ``raise_cap`` counts full bets and raises per street (the big
    blind is not counted), 4 by default as in PHH/PokerKit. No-limit and pot-limit: ``min_bet`` is
    the minimum opening bet, the big blind by default.

    Rake: ``rake_bps`` basis points (500 = 5%) of the pot, floored to a whole chip, at most
    ``rake_cap`` (0 = no cap), none when the hand ends before the flop if ``no_flop_no_drop``.
    """

    n_seats: int
    structure: Structure = Structure.NO_LIMIT
    small_blind: int = 1
    big_blind: int = 2
    ante: int = 0
    ante_mode: AnteMode = AnteMode.NONE
    ante_trimming: bool = True
    small_bet: int = 0
    big_bet: int = 0
    raise_cap: int = 4
    min_bet: int = 0
    rake_bps: int = 0
    rake_cap: int = 0
    no_flop_no_drop: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "structure", Structure.parse(self.structure))
        mode = self.ante_mode
        if isinstance(mode, str):
            names = {m.name.lower(): m for m in AnteMode}
            if mode.lower() not in names:
                raise ValueError(f"config ante_mode={mode!r}: expected one of {', '.join(names)}")
            mode = names[mode.lower()]
        object.__setattr__(self, "ante_mode", AnteMode(mode))
        for name in ("n_seats", "small_blind", "big_blind", "ante", "small_bet", "big_bet",
                     "raise_cap", "min_bet", "rake_bps", "rake_cap"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"config {name}={v!r}: expected an integer")
        if not 2 <= self.n_seats <= MAX_SEATS:
            raise ValueError(f"config n_seats={self.n_seats}: expected 2..{MAX_SEATS} seats")
        if self.small_blind <= 0:
            raise ValueError(f"config small_blind={self.small_blind}: expected > 0")
        if self.big_blind < self.small_blind:
            raise ValueError(
                f"config big_blind={self.big_blind}: expected >= small_blind={self.small_blind}"
            )
        if self.ante < 0:
            raise ValueError(f"config ante={self.ante}: expected >= 0")
        if self.ante_mode == AnteMode.NONE and self.ante:
            raise ValueError(f"config ante={self.ante} with ante_mode NONE: set an ante_mode")
        if self.ante_mode != AnteMode.NONE and self.ante == 0:
            raise ValueError(f"config ante_mode={self.ante_mode.name} with ante=0: expected > 0")
        for name in ("small_bet", "big_bet", "min_bet", "rake_cap"):
            if getattr(self, name) < 0:
                raise ValueError(f"config {name}={getattr(self, name)}: expected >= 0")
        if self.raise_cap < 1:
            raise ValueError(f"config raise_cap={self.raise_cap}: expected >= 1")
        if not 0 <= self.rake_bps <= 10000:
            raise ValueError(f"config rake_bps={self.rake_bps}: expected 0..10000")
        if self.small_bet and self.big_bet and self.big_bet < self.small_bet:
            raise ValueError(
                f"config big_bet={self.big_bet}: expected >= small_bet={self.small_bet}"
            )

    @property
    def effective_small_bet(self) -> int:
        return self.small_bet or self.big_blind

    @property
    def effective_big_bet(self) -> int:
        return self.big_bet or 2 * self.effective_small_bet

    @property
    def effective_min_bet(self) -> int:
        if self.structure == Structure.FIXED_LIMIT:
            return self.effective_small_bet
        return self.min_bet or self.big_blind

    def ante_due(self, seat: int, bb_seat: int) -> int:
        """The ante the given seat owes this hand."""
        if self.ante_mode == AnteMode.UNIFORM:
            return self.ante
        if self.ante_mode == AnteMode.BIG_BLIND and seat == bb_seat:
            return self.ante
        return 0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["structure"] = self.structure.label
        d["ante_mode"] = self.ante_mode.name.lower()
        return d
