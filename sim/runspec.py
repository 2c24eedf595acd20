"""What one ``holdem simulate`` run is: the frozen spec every batch is derived from.

A run is cut into batches of ``batch_size`` hands per structure. A batch's content depends only
on (spec, structure, batch index), never on which worker plays it or how many there are.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from sim.config import MAX_SEATS, Structure

FORMATS = ("cash", "tournament")
GENERATORS = ("philox", "os-chacha20")
FAULTS = (
    "naive-shuffle", "asf-shuffle", "mod8-shuffle", "seed32",  # shuffles
    "odd-chip-wrong-seat", "side-pot-ignores-eligibility", "chip-lost",  # payouts
    "button-skips", "bb-twice",  # rotation
    "short-allin-reopens",  # betting
    "mucks-winner",  # showdown
    "wrong-stream-position",  # deal
)


@dataclass(frozen=True, kw_only=True)
class RunSpec:
    """Every input of a run. ``hands`` is per structure."""

    hands: int
    structures: tuple[Structure, ...] = (Structure.NO_LIMIT,)
    players: int = 6
    format: str = "cash"
    seed: int = 1
    batch_size: int = 100_000
    small_blind: int = 1
    big_blind: int = 2
    buy_in_bb: int = 100  # cash buy-in / tournament starting stack, in big blinds
    hands_per_table: int = 1000  # cash tables are replaced after this many hands
    level_hands: int = 30  # tournament: hands per blind level
    rake_bps: int = 500
    rake_cap_bb: int = 3  # rake cap in big blinds (0 = none)
    timeout_ppm: int = 2000  # per-decision chance of a timeout, parts per million
    leave_ppm: int = 5000  # cash: per-hand chance that a player leaves
    generator: str = "philox"
    inject: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "structures",
                           tuple(Structure.parse(s) for s in self.structures))
        if self.hands < 1:
            raise ValueError(f"--hands {self.hands}: expected at least 1")
        if not 2 <= self.players <= MAX_SEATS:
            raise ValueError(f"--players {self.players}: expected 2..{MAX_SEATS}")
        if self.format not in FORMATS:
            raise ValueError(f"--format {self.format!r}: expected one of {', '.join(FORMATS)}")
        if not 0 <= self.seed < 2**63:
            raise ValueError(f"--seed {self.seed}: expected 0 <= seed < 2**63")
        if self.batch_size < 1:
            raise ValueError(f"--batch-size {self.batch_size}: expected at least 1")
        if self.generator not in GENERATORS:
            raise ValueError(f"generator {self.generator!r}: expected one of {GENERATORS}")
        if self.inject is not None and self.inject not in FAULTS:
            raise ValueError(f"--inject {self.inject!r}: expected one of {', '.join(FAULTS)}")
        if not self.structures:
            raise ValueError("no structure given")

    @property
    def reproducible(self) -> bool:
        return self.generator == "philox"

    def n_batches(self) -> int:
        return -(-self.hands // self.batch_size)

    def batch_hands(self, batch_index: int) -> int:
        """Hands in one batch (the last batch may be short)."""
        return min(self.batch_size, self.hands - batch_index * self.batch_size)

    def plan(self) -> list[tuple[Structure, int]]:
        """Every (structure, batch index) of the run, in a fixed order."""
        return [(s, b) for s in self.structures for b in range(self.n_batches())]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["structures"] = [s.label for s in self.structures]
        return d

    def fingerprint(self) -> str:
        """A digest of everything that determines the hands (not of how they are run)."""
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:16]

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunSpec:
        d = dict(d)
        d["structures"] = tuple(Structure.parse(s) for s in d["structures"])
        return cls(**d)
