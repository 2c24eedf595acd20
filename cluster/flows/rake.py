"""The rake schedule an import is audited against: ``--rake PCT:CAP`` or ``--rake-schedule
FILE.toml``, parsed strictly (``RakeError``: one line, the CLI exits 2) as exact decimals, then
stored in the manifest in the run's minor unit (``to_manifest``).

TOML keys: ``percent`` (0..100), ``cap`` (currency units; absent: no cap, the manifest's
``null``), ``caps_by_players`` (a
table ``{"2" = 0.5, "3" = 1}``: the cap at that many players dealt in), ``no_flop_no_drop``
(bool), ``step`` (the rounding step in currency units; default the minor unit), ``jackpot`` (a
fixed drop per hand on top of the rake, in currency units: a bad-beat jackpot's, e.g. Absolute
Poker's $0.50, which its text exports print as ``Jackpot Rake``) and ``jackpot_min_pot`` (the
smallest pot it is taken from; default 0). A ``[venues."NAME"]`` table (NAME as the hands'
``venue`` says, e.g. ``[venues."Absolute Poker"]``) holds the same keys for that venue's hands
(``percent`` required; keys it leaves out take the top level's): one file for an operator's
several rooms. Anything else is refused.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from audits.runfolder.errors import InputError

__all__ = ["RakeError", "RakeSchedule", "parse_rake", "read_rake_schedule", "schedule_from_table"]

_KEYS = frozenset({"percent", "cap", "caps_by_players", "no_flop_no_drop", "step", "jackpot",
                   "jackpot_min_pot"})
_VENUES = "venues"
MAX_PLAYERS = 10


class RakeError(InputError):
    """An unusable rake option or schedule file (one line)."""


@dataclass(frozen=True)
class RakeSchedule:
    """Amounts as exact decimals of the currency unit."""

    percent: Decimal
    cap: Decimal | None  # None: no cap
    caps_by_players: dict[int, Decimal] = field(default_factory=dict)
    no_flop_no_drop: bool = False
    step: Decimal | None = None  # None: the run's minor unit
    jackpot: Decimal = Decimal(0)  # a fixed drop per hand besides the rake
    jackpot_min_pot: Decimal = Decimal(0)  # from pots of at least this much
    venues: dict[str, RakeSchedule] = field(default_factory=dict)  # a venue's own schedule

    def to_manifest(self, exponent: int) -> dict[str, Any]:
        """The manifest's ``rake_schedule`` in minor units of ``10**-exponent`` (RakeError when
        an amount is finer than that unit)."""
        def units(v: Decimal, what: str) -> int:
            u = v.scaleb(exponent)
            if u != u.to_integral_value():
                raise RakeError(f"rake {what} {v}: finer than the run's minor unit "
                                f"(10^-{exponent} of the currency)")
            return int(u)

        return {"percent": str(self.percent),
                "cap": None if self.cap is None else units(self.cap, "cap"),
                "caps_by_players": {str(k): units(v, f"caps_by_players.{k}")
                                    for k, v in sorted(self.caps_by_players.items())},
                "no_flop_no_drop": self.no_flop_no_drop,
                "step": units(self.step, "step") if self.step is not None else 1,
                "jackpot": units(self.jackpot, "jackpot"),
                "jackpot_min_pot": units(self.jackpot_min_pot, "jackpot_min_pot"),
                **({"venues": {name: s.to_manifest(exponent)
                               for name, s in sorted(self.venues.items())}}
                   if self.venues else {})}

    @classmethod
    def from_manifest(cls, d: dict[str, Any], exponent: int) -> RakeSchedule:
        """The schedule ``to_manifest(exponent)`` wrote (for a re-import:
        ``cluster.flows.reproduce``;
        the caller checks the round trip)."""
        def cur(v: Any) -> Decimal:
            if isinstance(v, bool) or not isinstance(v, int):
                raise RakeError(f"rake schedule amount {v!r}: expected minor units")
            return Decimal(v).scaleb(-exponent)

        return cls(Decimal(str(d["percent"])), None if d.get("cap") is None else cur(d["cap"]),
                   {int(k): cur(v) for k, v in (d.get("caps_by_players") or {}).items()},
                   bool(d.get("no_flop_no_drop")), cur(d.get("step", 1)),
                   cur(d.get("jackpot", 0)), cur(d.get("jackpot_min_pot", 0)),
                   {str(k): cls.from_manifest(v, exponent)
                    for k, v in (d.get("venues") or {}).items()})


def _amount(v: Any, what: str, *, lo: Decimal = Decimal(0), hi: Decimal | None = None) -> Decimal:
    if isinstance(v, bool) or not isinstance(v, (int, Decimal, str)):
        raise RakeError(f"rake {what}: {v!r}: expected a number")
    try:
        d = Decimal(v)
    except (InvalidOperation, ValueError):
        raise RakeError(f"rake {what}: {v!r}: expected a number") from None
    if not d.is_finite() or d < lo or (hi is not None and d > hi):
        bound = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise RakeError(f"rake {what}: {v}: expected a finite number {bound}")
    if d.as_tuple().exponent < -6:  # type: ignore[operator]
        raise RakeError(f"rake {what}: {v}: more than 6 decimals")
    return d


def parse_rake(text: str) -> RakeSchedule:
    """``PCT:CAP`` (``5:3``: 5 % of the pot, at most 3 currency units a hand)."""
    pct, sep, cap = text.partition(":")
    if not sep or not pct.strip() or not cap.strip():
        raise RakeError(f"--rake {text!r}: expected PCT:CAP, e.g. 5:3 (5 % of the pot, at most "
                        "3 units of the currency a hand)")
    return RakeSchedule(_amount(pct.strip(), "percent", hi=Decimal(100)),
                        _amount(cap.strip(), "cap"))


def read_rake_schedule(path: str | Path) -> RakeSchedule:
    """A TOML schedule file (module docstring)."""
    try:
        raw = Path(path).read_bytes()
    except OSError as e:
        raise RakeError(f"--rake-schedule {path}: cannot read it ({e.strerror or e})") from None
    if len(raw) > 1_000_000:
        raise RakeError(f"--rake-schedule {path}: larger than 1 MB")
    try:
        doc = tomllib.loads(raw.decode("utf-8"), parse_float=Decimal)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise RakeError(f"--rake-schedule {path}: not TOML ({str(e).splitlines()[0]})") from None
    venues = doc.pop(_VENUES, {})
    if not isinstance(venues, dict):
        raise RakeError(f"--rake-schedule {path}: venues: expected a table of venues")
    top = schedule_from_table(doc, f"--rake-schedule {path}", {})
    by_venue: dict[str, RakeSchedule] = {}
    for name, sub in venues.items():
        if not isinstance(sub, dict) or not name.strip():
            raise RakeError(f"--rake-schedule {path}: venues.{name!r}: expected a table of the "
                            "schedule's keys")
        by_venue[name] = schedule_from_table(dict(sub), f"--rake-schedule {path}: "
                                                        f"venues.{name!r}", doc)
    return replace(top, venues=by_venue)


def schedule_from_table(doc: dict[str, Any], where: str, base: dict[str, Any]
                        ) -> RakeSchedule:
    """One schedule's keys, a TOML table as ``tomllib`` gives it (``base``: the top level's,
    for a venue's keys left out; the game file's ``[rake]``: ``cluster.flows.game``)."""
    extra = sorted(set(doc) - _KEYS)
    if extra:
        raise RakeError(f"{where}: unknown key {extra[0]!r} (expected "
                        f"{', '.join(sorted(_KEYS | ({_VENUES} if not base else set())))})")
    doc = {**{k: v for k, v in base.items() if k in _KEYS}, **doc}
    if "percent" not in doc:
        raise RakeError(f"{where}: missing key 'percent'")
    caps: dict[int, Decimal] = {}
    by = doc.get("caps_by_players", {})
    if not isinstance(by, dict):
        raise RakeError(f"{where}: caps_by_players: expected a table")
    for k, v in by.items():
        if not (k.isascii() and k.isdigit() and 2 <= int(k) <= MAX_PLAYERS):
            raise RakeError(f"{where}: caps_by_players key {k!r}: expected a "
                            f"number of players 2..{MAX_PLAYERS}")
        caps[int(k)] = _amount(v, f"caps_by_players.{k}")
    nfnd = doc.get("no_flop_no_drop", False)
    if not isinstance(nfnd, bool):
        raise RakeError(f"{where}: no_flop_no_drop: expected true or false")
    step = _amount(doc["step"], "step") if "step" in doc else None
    if step is not None and step == 0:
        raise RakeError(f"{where}: step 0: expected a positive step")
    jackpot = _amount(doc.get("jackpot", 0), "jackpot")
    jackpot_min = _amount(doc.get("jackpot_min_pot", 0), "jackpot_min_pot")
    return RakeSchedule(_amount(doc["percent"], "percent", hi=Decimal(100)),
                        _amount(doc["cap"], "cap") if "cap" in doc else None, caps, nfnd, step,
                        jackpot, jackpot_min)
