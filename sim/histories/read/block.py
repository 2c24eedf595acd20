"""The hands of one source file as flat arrays (``HandBlock``): what the compiled import path
reads (``sim.histories.read.scan`` fills one from a file's bytes), replays
(``sim.histories.replay.compiled``) and turns into rows (``sim.histories.rows.compiled``) without a
Python object per hand.

A block holds only hands the compiled path can take whole: a supported variant (NT, PT, FT),
the verbs ``dh db f cc cbr sm``, amounts that are whole numbers of the block's unit. Anything
else is read, replayed and reported by the Python path (``sim.histories.read.phh``,
``sim.histories.replay.reference``, ``sim.histories.rows.reference``), which stays the reference:
``block_from_hands`` builds a block from its parsed hands, and the compiled path is tested equal to
it on every hand.

Layout (H hands, P = their players in all, A = their actions in all; amounts are integers of
``10**-exponent`` of the currency, as ``PhhHand.in_minor_units(exponent)`` gives them):

- per hand ``[H]``: ``n`` players, ``variant`` (``VARIANT_CODES``), ``ante_trimming``,
  ``min_bet``/``small_bet``/``big_bet`` (-1 absent), ``has_blinds``/``has_finishing``/
  ``has_winnings``/``has_seats``/``has_players``, ``seat_count`` (-1 absent), ``scale`` (the
  hand's own decimals, ``PhhHand.scale``), ``year``/``month``/``day``/``hour``/``minute``/
  ``second`` (-1 absent; the time's fields all -1 when ``time`` is absent), ``p_lo``
  ``[H + 1]`` and ``a_lo`` ``[H + 1]``: offsets of each hand's players and actions;
- per player ``[P]`` (p1..pN of each hand in order): ``stack`` (-1: unknown, ``inf``),
  ``ante``, ``blind`` (signed; 0 when absent), ``finishing``, ``winnings`` (0 when absent),
  ``seat`` (as written, 1-based; 0 when absent);
- per action ``[A]`` (the hand's actions in order, commentary-only entries dropped as the
  reader drops them): ``verb`` (``VERB_CODES``), ``actor`` (0-based player; -1 the dealer),
  ``player`` (``PhhAction.player``: the player dealt to by ``d dh``, else the actor; -1 for
  ``d db``), ``amount`` (the ``cbr`` street total; 0 otherwise), ``n_cards`` and ``cards``
  ``[A, MAX_ACTION_CARDS]`` (card codes of ``sim.cards``, -1 for ``??``, padded with -1),
  ``dash`` (``pN sm -``);
- strings, Arrow arrays ``[H]``: ``section`` (the table key; the 1-based hand index when the
  file has none), ``site_hand``, ``venue``, ``table``, ``zone``
  (``time_zone_abbreviation``), ``currency``, ``currency_symbol`` ("" when absent), and
  ``players`` (list of strings; empty when absent).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np
import pyarrow as pa

from sim import layout as L
from sim.histories.read.phh import PhhHand

__all__ = ["MAX_ACTION_CARDS", "STATE_WIDTH", "VARIANT_CODES", "VERB_CODES", "HandBlock",
           "Replayed", "block_from_hands", "replayed_from_python"]

VARIANT_CODES = {"NT": 0, "PT": 1, "FT": 2}  # sim.histories.read.phh.SUPPORTED_VARIANTS' keys
VERB_CODES = {"dh": 0, "db": 1, "f": 2, "cc": 3, "cbr": 4, "sm": 5}
MAX_ACTION_CARDS = 5  # a flop is 3; an sm shows at most 2 (more: a replay error, Python path)

_I64 = np.int64
STATE_WIDTH = L.LG_  # the engine state a row reads: S[:STATE_WIDTH] (sim.layout offsets)


@dataclass
class HandBlock:
    """The hands of one file as flat arrays (module docstring)."""

    exponent: int
    # per hand
    n: np.ndarray
    variant: np.ndarray
    ante_trimming: np.ndarray
    min_bet: np.ndarray
    small_bet: np.ndarray
    big_bet: np.ndarray
    has_blinds: np.ndarray
    has_finishing: np.ndarray
    has_winnings: np.ndarray
    has_seats: np.ndarray
    has_players: np.ndarray
    seat_count: np.ndarray
    scale: np.ndarray
    year: np.ndarray
    month: np.ndarray
    day: np.ndarray
    hour: np.ndarray
    minute: np.ndarray
    second: np.ndarray
    p_lo: np.ndarray
    a_lo: np.ndarray
    # per player
    stack: np.ndarray
    ante: np.ndarray
    blind: np.ndarray
    finishing: np.ndarray
    winnings: np.ndarray
    seat: np.ndarray
    # per action
    verb: np.ndarray
    actor: np.ndarray
    player: np.ndarray
    amount: np.ndarray
    n_cards: np.ndarray
    cards: np.ndarray
    dash: np.ndarray
    # strings
    section: pa.Array
    site_hand: pa.Array
    venue: pa.Array
    table: pa.Array
    zone: pa.Array
    currency: pa.Array
    currency_symbol: pa.Array
    players: pa.Array

    @property
    def n_hands(self) -> int:
        return len(self.n)

    def take(self, index: np.ndarray) -> HandBlock:
        """The hands at these positions, in that order (per-player and per-action arrays and
        their offsets rebuilt, string arrays taken)."""
        idx = np.asarray(index, _I64).reshape(-1)
        if len(idx) and (idx.min() < 0 or idx.max() >= self.n_hands):
            raise IndexError(f"HandBlock.take: index out of 0..{self.n_hands - 1}")
        p_rows, p_lo = _ranges(self.p_lo, idx)
        a_rows, a_lo = _ranges(self.a_lo, idx)
        at = pa.array(idx, pa.int64())
        out: dict[str, object] = {"exponent": self.exponent, "p_lo": p_lo, "a_lo": a_lo}
        for f in fields(self):
            name = f.name
            if name in out:
                continue
            v = getattr(self, name)
            if isinstance(v, pa.Array):
                out[name] = v.take(at)
            elif name in _PER_PLAYER:
                out[name] = v[p_rows]
            elif name in _PER_ACTION:
                out[name] = v[a_rows]
            else:
                out[name] = v[idx]
        return HandBlock(**out)  # type: ignore[arg-type]

    def rescale(self, exponent: int) -> HandBlock:
        """This block with every amount divided by ``10**(self.exponent - exponent)`` (the
        absent -1 of ``min_bet``/``small_bet``/``big_bet`` and the unknown -1 of ``stack``
        kept). The caller rescales only hands whose ``scale <= exponent``: the division is
        exact, and a ValueError says so when it is not."""
        if not 0 <= exponent <= self.exponent:
            raise ValueError(f"HandBlock.rescale: exponent {exponent}: expected "
                             f"0..{self.exponent}")
        if len(self.scale) and int(self.scale.max()) > exponent:
            raise ValueError(f"HandBlock.rescale: a hand of scale {int(self.scale.max())} "
                             f"cannot be written at exponent {exponent}")
        f = 10 ** (self.exponent - exponent)
        out = {fl.name: getattr(self, fl.name) for fl in fields(self)}
        out["exponent"] = exponent
        if f == 1:
            return HandBlock(**out)
        for name in _AMOUNTS:
            v = getattr(self, name)
            keep = (v == -1) if name in _MINUS_ONE_ABSENT else np.zeros(len(v), np.bool_)
            if np.any((v % f != 0) & ~keep):
                raise ValueError(f"HandBlock.rescale: {name}: an amount is not a whole "
                                 f"number of 10^-{exponent} units")
            out[name] = np.where(keep, v, v // f)
        return HandBlock(**out)

    def equal(self, other: HandBlock) -> list[str]:
        """The names of the fields that differ (empty: the same block)."""
        out = []
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            if isinstance(a, pa.Array):
                same = isinstance(b, pa.Array) and a.to_pylist() == b.to_pylist()
            elif isinstance(a, np.ndarray):
                same = (isinstance(b, np.ndarray) and a.shape == b.shape
                        and bool(np.array_equal(a, b)))
            else:
                same = a == b
            if not same:
                out.append(f.name)
        return out


_PER_PLAYER = frozenset({"stack", "ante", "blind", "finishing", "winnings", "seat"})
_PER_ACTION = frozenset({"verb", "actor", "player", "amount", "n_cards", "cards", "dash"})
_AMOUNTS = ("min_bet", "small_bet", "big_bet", "stack", "ante", "blind", "finishing",
            "winnings", "amount")
_MINUS_ONE_ABSENT = frozenset({"min_bet", "small_bet", "big_bet", "stack"})


def _ranges(lo: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows ``lo[i]:lo[i + 1]`` of each ``i`` of ``idx`` in order, and their new offsets."""
    starts = lo[idx]
    counts = lo[idx + 1] - starts
    new_lo = np.zeros(len(idx) + 1, _I64)
    np.cumsum(counts, out=new_lo[1:])
    rows = np.repeat(starts - new_lo[:-1], counts) + np.arange(new_lo[-1], dtype=_I64)
    return rows, new_lo


def _amount(v: object) -> int:
    return -1 if v is None else int(v)  # type: ignore[call-overload]


def block_from_hands(hands: Sequence[PhhHand], exponent: int,
                     sections: Sequence[str] | None = None) -> HandBlock:
    """The reference block of parsed hands (``sim.histories.read.phh``), every amount converted with
    ``PhhHand.in_minor_units(exponent)`` (a PhhError propagates: such a hand belongs to no
    block). ``sections``: each hand's section as the import names it (default: its key, else
    its 1-based place). Hands of other variants or verbs: a ValueError."""
    cols: dict[str, list[object]] = {f.name: [] for f in fields(HandBlock)}
    p_lo, a_lo = [0], [0]
    for i, raw in enumerate(hands):
        if raw.variant not in VARIANT_CODES:
            raise ValueError(f"{raw.where}: variant {raw.variant}: not in a block")
        h = raw.in_minor_units(exponent)
        n = raw.n_players
        cols["n"].append(n)
        cols["variant"].append(VARIANT_CODES[raw.variant])
        cols["ante_trimming"].append(bool(raw.ante_trimming_status))
        cols["min_bet"].append(_amount(h.min_bet))
        cols["small_bet"].append(_amount(h.small_bet))
        cols["big_bet"].append(_amount(h.big_bet))
        cols["has_blinds"].append(h.blinds_or_straddles is not None)
        cols["has_finishing"].append(h.finishing_stacks is not None)
        cols["has_winnings"].append(h.winnings is not None)
        cols["has_seats"].append(raw.seats is not None)
        cols["has_players"].append(raw.players is not None)
        cols["seat_count"].append(-1 if raw.seat_count is None else raw.seat_count)
        cols["scale"].append(raw.scale)
        for name in ("year", "month", "day"):
            v = getattr(raw, name)
            cols[name].append(-1 if v is None else v)
        t = raw.time
        cols["hour"].append(-1 if t is None else t.hour)
        cols["minute"].append(-1 if t is None else t.minute)
        cols["second"].append(-1 if t is None else t.second)
        cols["stack"] += [-1 if not isinstance(v, int) else v for v in h.starting_stacks]
        cols["ante"] += list(h.antes)
        cols["blind"] += list(h.blinds_or_straddles or (0,) * n)
        cols["finishing"] += list(h.finishing_stacks or (0,) * n)
        cols["winnings"] += list(h.winnings or (0,) * n)
        cols["seat"] += list(raw.seats or (0,) * n)
        p_lo.append(p_lo[-1] + n)
        for a in h.actions:
            if a.verb not in VERB_CODES:
                raise ValueError(f"{raw.where}: verb {a.verb}: not in a block")
            cols["verb"].append(VERB_CODES[a.verb])
            cols["actor"].append(-1 if a.actor == "d" else int(a.actor))
            cols["player"].append(-1 if a.player is None else a.player)
            cols["amount"].append(0 if a.amount is None else int(a.amount))
            cols["n_cards"].append(len(a.cards))
            cols["cards"].append(list(a.cards) + [-1] * (MAX_ACTION_CARDS - len(a.cards)))
            cols["dash"].append(a.dash)
        a_lo.append(a_lo[-1] + len(h.actions))
        cols["section"].append(sections[i] if sections is not None else (
            raw.key if raw.key is not None else str(i + 1)))
        cols["site_hand"].append(raw.hand or "")
        cols["venue"].append(raw.venue or "")
        cols["table"].append(raw.table or "")
        cols["zone"].append(raw.time_zone_abbreviation or "")
        cols["currency"].append(raw.currency or "")
        cols["currency_symbol"].append(raw.currency_symbol or "")
        cols["players"].append(list(raw.players or ()))
    bools = {"ante_trimming", "has_blinds", "has_finishing", "has_winnings", "has_seats",
             "has_players", "dash"}
    strings = {"section", "site_hand", "venue", "table", "zone", "currency", "currency_symbol"}
    out: dict[str, object] = {"exponent": exponent}
    for f in fields(HandBlock):
        name = f.name
        if name == "exponent":
            continue
        if name == "p_lo":
            out[name] = np.asarray(p_lo, _I64)
        elif name == "a_lo":
            out[name] = np.asarray(a_lo, _I64)
        elif name == "players":
            out[name] = pa.array(cols[name], pa.list_(pa.string()))
        elif name in strings:
            out[name] = pa.array(cols[name], pa.string())
        elif name in bools:
            out[name] = np.asarray(cols[name], np.bool_)
        elif name == "cards":
            out[name] = np.asarray(cols[name], _I64).reshape(-1, MAX_ACTION_CARDS)
        elif name in ("verb", "variant"):
            out[name] = np.asarray(cols[name], np.int8)
        else:
            out[name] = np.asarray(cols[name], _I64)
    return HandBlock(**out)  # type: ignore[arg-type]


@dataclass
class Replayed:
    """A block's hands replayed through the engine (``sim.histories.replay.compiled``), per hand:

    - ``ok`` ``[H]``: replayed to the end without an error (False: the Python path replays
      the hand again, for its skip reason or its row);
    - ``state`` ``[H, STATE_WIDTH]``: the engine state ``S[:STATE_WIDTH]`` after the hand
      (``Hand._S``; zeros where not ok);
    - ``log_lo`` ``[H + 1]`` and ``log`` ``[rows, sim.layout.LOG_COLS]``: each hand's record
      log, ``Hand._log[:S[N_LOG]]`` (no rows where not ok);
    - ``unrecorded`` ``[P]``: ``ReplayResult.cards_unrecorded`` per player (p1..pN of each
      hand; False where not ok).
    """

    ok: np.ndarray
    state: np.ndarray
    log_lo: np.ndarray
    log: np.ndarray
    unrecorded: np.ndarray


def replayed_from_python(hands: Sequence[PhhHand], exponent: int) -> Replayed:
    """The reference ``Replayed`` of parsed hands: each replayed by
    ``sim.histories.replay.reference.replay`` after ``in_minor_units(exponent)`` (as
    ``sim.histories.rows.reference`` does)."""
    from sim.histories.replay.reference import replay

    ok, states, lo, logs, unrec = [], [], [0], [], []
    for i, raw in enumerate(hands):
        r = replay(raw.in_minor_units(exponent), i)
        n = raw.n_players
        if r.hand is None:
            ok.append(False)
            states.append(np.zeros(STATE_WIDTH, _I64))
            unrec += [False] * n
            lo.append(lo[-1])
            continue
        S = r.hand._S
        ok.append(True)
        states.append(S[:STATE_WIDTH].copy())
        rows = r.hand._log[:int(S[L.N_LOG])]
        logs.append(rows.copy())
        lo.append(lo[-1] + len(rows))
        unrec += list(r.cards_unrecorded) if len(r.cards_unrecorded) == n else [False] * n
    return Replayed(
        ok=np.asarray(ok, np.bool_),
        state=np.asarray(states, _I64).reshape(-1, STATE_WIDTH),
        log_lo=np.asarray(lo, _I64),
        log=(np.concatenate(logs) if logs else np.zeros((0, L.LOG_COLS), _I64)),
        unrecorded=np.asarray(unrec, np.bool_))
