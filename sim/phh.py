"""Read and write hand histories in the PHH format (the phh-std project's TOML standard).

Reading: ``load_phh(path)`` returns the hands of a ``.phh`` file (one hand) or of a ``.phhs``
file (several hands, each under a table key such as ``[1]``, the key kept on the hand);
``iter_phh_paths`` expands folders recursively in a deterministic (natural) order. Any violation
raises ``PhhError`` naming the file, the hand key, the field or action and what was expected.

What is kept: the state-construction fields (``variant``, ``antes``, ``blinds_or_straddles``,
``min_bet``, ``small_bet``, ``big_bet``, ``starting_stacks``, ``actions``), ``finishing_stacks``,
``ante_trimming_status`` (default false, as the standard says), ``players`` and every other
field in ``extra``. TOML comments, action commentaries (``# ...``) and user-defined fields (a
leading underscore) are dropped. Numbers stay as written: ``int``, or ``float`` when the file
writes a non-integral value (fractional chips); an integral float such as ``9900.0`` becomes an
``int``.

Player order (standard): p1 is the small blind ... the last player has the button; heads-up the
arrays ``antes`` and ``blinds_or_straddles`` are assigned in reverse (p1 posts the big blind and
the big blind's ante, p2 is the button and posts the small blind).

Variants: ``NT`` (no-limit) and ``FT`` (fixed-limit) Texas hold'em, and ``PT`` (pot-limit Texas
hold'em, an extension of this project with the fields of ``NT``) are supported. Every other code
parses (so that a folder of mixed games can be listed) but ``unsupported_reason`` names it.

Writing: ``hand_to_phh(hand)`` writes a completed ``sim.hand.Hand`` (standard positions) as PHH
text that ``sim.phh_verify`` replays to the same finishing stacks. A show is written
``pN sm <cards>`` and a muck as a bare ``pN sm`` (as PokerKit writes them).
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sim.cards import format_cards, parse_card
from sim.config import Structure
from sim.layout import ANTE_DUE_, EventKind

if TYPE_CHECKING:
    from sim.hand import Hand

__all__ = [
    "PHH_SUFFIXES",
    "SUPPORTED_VARIANTS",
    "PhhAction",
    "PhhError",
    "PhhHand",
    "hand_to_phh",
    "iter_phh_paths",
    "load_phh",
    "loads_phh",
    "parse_action",
    "phh_player_order",
]

PHH_SUFFIXES = (".phh", ".phhs")
SUPPORTED_VARIANTS = {
    "NT": Structure.NO_LIMIT,
    "PT": Structure.POT_LIMIT,
    "FT": Structure.FIXED_LIMIT,
}
Number = int | float

# fields that build the hand, per supported variant (the other codes: the common ones only)
_COMMON_REQUIRED = ("variant", "antes", "starting_stacks", "actions")
_REQUIRED = {
    "NT": ("blinds_or_straddles", "min_bet"),
    "PT": ("blinds_or_straddles", "min_bet"),
    "FT": ("blinds_or_straddles", "small_bet", "big_bet"),
}
_CORE_FIELDS = frozenset({
    "variant", "antes", "blinds_or_straddles", "min_bet", "small_bet", "big_bet",
    "starting_stacks", "actions", "finishing_stacks", "ante_trimming_status", "players",
})
# verbs a player may use, and the dealer's
_PLAYER_VERBS = frozenset({"f", "cc", "cbr", "sm", "sd", "pb"})
_DEALER_VERBS = frozenset({"dh", "db"})


class PhhError(ValueError):
    """A PHH file or hand that violates the standard (or what this reader supports)."""


@dataclass(frozen=True, slots=True)
class PhhAction:
    """One parsed action notation.

    ``actor`` is ``'d'`` for the dealer, else the 0-based player index (``p1`` is 0). ``verb`` is
    the notation's verb: ``dh``, ``db`` (dealer), ``f``, ``cc``, ``cbr``, ``sm``, ``sd``, ``pb``.
    ``player`` is the player dealt to by ``d dh pN`` (0-based), else the acting player or None
    for ``d db``. ``cards`` holds card ints, -1 for an unknown ``??``. ``amount`` is the ``cbr``
    street total. For ``sm``: no cards is a muck, cards are a show, and ``dash`` marks
    ``pN sm -`` (show the cards dealt). ``index`` is the position in ``actions``; ``text`` is the
    notation without its commentary.
    """

    actor: str | int
    verb: str
    player: int | None = None
    cards: tuple[int, ...] = ()
    amount: Number | None = None
    dash: bool = False
    index: int = -1
    text: str = ""

    @property
    def is_dealer(self) -> bool:
        return self.actor == "d"

    @property
    def is_muck(self) -> bool:
        return self.verb == "sm" and not self.cards and not self.dash

    def describe(self) -> str:
        return f"action {self.index + 1} {self.text!r}"


@dataclass(frozen=True)
class PhhHand:
    """One hand of a PHH file, fields as written (player order p1..pN)."""

    source: str
    key: str | None  # the table key in a .phhs file, None for a .phh file
    variant: str
    antes: tuple[Number, ...]
    blinds_or_straddles: tuple[Number, ...] | None
    min_bet: Number | None
    small_bet: Number | None
    big_bet: Number | None
    starting_stacks: tuple[Number, ...]
    actions: tuple[PhhAction, ...]
    finishing_stacks: tuple[Number, ...] | None
    ante_trimming_status: bool
    players: tuple[str, ...] | None
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def n_players(self) -> int:
        return len(self.starting_stacks)

    @property
    def where(self) -> str:
        """``file`` or ``file [key]``, for messages."""
        return self.source if self.key is None else f"{self.source} [{self.key}]"

    @property
    def unsupported_reason(self) -> str | None:
        """Why this hand cannot be replayed as Texas hold'em, or None."""
        if self.variant not in SUPPORTED_VARIANTS:
            return f"unsupported variant {self.variant}"
        blinds = self.blinds_or_straddles or ()
        if any(b for b in blinds[2:]):
            return ("unsupported: straddles (a nonzero blinds_or_straddles entry after the big "
                    "blind)")
        return None


# ---------------------------------------------------------------- reading


def _natural_key(path: Path) -> list[Any]:
    return [(0, int(t), "") if t.isdigit() else (1, 0, t)
            for t in re.split(r"(\d+)", path.as_posix()) if t]


def iter_phh_paths(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Every ``.phh``/``.phhs`` file named or found (recursively, natural order) under ``paths``.

    Files are yielded as given whatever their suffix. Raises FileNotFoundError for a missing path.
    """
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = [f for f in path.rglob("*") if f.suffix in PHH_SUFFIXES and f.is_file()]
            yield from sorted(found, key=_natural_key)
        elif path.is_file():
            yield path
        else:
            raise FileNotFoundError(f"{path}: no such file or folder")


def load_phh(path: str | Path) -> list[PhhHand]:
    """The hands of a ``.phh`` (one) or ``.phhs`` (one per table key) file."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise PhhError(f"{path}: not UTF-8 text ({e})") from e
    return loads_phh(text, source=str(path), many=path.suffix == ".phhs")


def loads_phh(text: str, *, source: str = "<string>", many: bool = False) -> list[PhhHand]:
    """Parse PHH text: one hand, or (``many``) a ``.phhs`` text of hands under table keys."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PhhError(f"{source}: bad TOML: {e}") from e
    if not many:
        return [_hand_from_dict(doc, source, None)]
    hands = []
    for key, value in doc.items():
        if not isinstance(value, dict):
            raise PhhError(
                f"{source}: top-level key {key!r}: expected a table of hand fields "
                "(a .phhs file holds hands under table keys such as [1])"
            )
        hands.append(_hand_from_dict(value, source, str(key)))
    return hands


def _number(v: Any, where: str, name: str, *, allow_inf: bool = False) -> Number:
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise PhhError(f"{where}: field {name}: expected a number, got {v!r}")
    if isinstance(v, float):
        if math.isnan(v) or (math.isinf(v) and not allow_inf):
            raise PhhError(f"{where}: field {name}: expected a finite number, got {v!r}")
        if v.is_integer():
            return int(v)
    return v


def _numbers(v: Any, where: str, name: str, n: int | None, *,
             allow_inf: bool = False) -> tuple[Number, ...]:
    if isinstance(v, int | float) and not isinstance(v, bool) and n is not None:
        v = [v] * n  # a single value for every player (as PokerKit accepts)
    if not isinstance(v, list):
        raise PhhError(f"{where}: field {name}: expected an array of numbers, got {v!r}")
    out = tuple(_number(x, where, f"{name}[{i}]", allow_inf=allow_inf) for i, x in enumerate(v))
    if any(x < 0 for x in out):
        raise PhhError(f"{where}: field {name}: expected numbers >= 0, got {list(out)}")
    if n is not None and len(out) != n:
        raise PhhError(
            f"{where}: field {name}: expected {n} values (one per player, as starting_stacks), "
            f"got {len(out)}"
        )
    return out


def _parse_cards(text: str) -> tuple[int, ...]:
    if len(text) % 2:
        raise ValueError(f"cards {text!r}: expected 2 characters per card")
    out = []
    for i in range(0, len(text), 2):
        c = text[i : i + 2]
        out.append(-1 if c == "??" else parse_card(c))
    return tuple(out)


def _parse_player(word: str, n: int | None) -> int:
    if len(word) < 2 or word[0] != "p" or not word[1:].isdigit():
        raise ValueError(f"{word!r}: expected a player such as p1")
    k = int(word[1:])
    if k < 1 or (n is not None and k > n):
        raise ValueError(f"player {word!r}: expected p1..p{n}")
    return k - 1


def _parse_amount(word: str) -> Number:
    try:
        v = float(word.replace(",", "")) if not word.lstrip("-").isdigit() else int(word)
    except ValueError:
        raise ValueError(f"amount {word!r}: expected a number") from None
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"amount {word!r}: expected a finite number")
        if v.is_integer():
            v = int(v)
    if v <= 0:
        raise ValueError(f"amount {word!r}: expected a positive number")
    return v


def parse_action(text: str, index: int = -1, n_players: int | None = None) -> PhhAction | None:
    """Parse one action notation; None for a no-op (empty or commentary only).

    Raises ValueError naming what was expected (``PhhError`` when called through a loader).
    """
    note = text.split("#", 1)[0]
    words = note.split()
    if not words:
        return None
    clean = " ".join(words)
    actor, verb, args = words[0], (words[1] if len(words) > 1 else ""), words[2:]
    if actor == "d":
        if verb == "db":
            if len(args) != 1:
                raise ValueError("expected 'd db CARDS'")
            return PhhAction("d", "db", None, _parse_cards(args[0]), index=index, text=clean)
        if verb == "dh":
            if len(args) != 2:
                raise ValueError("expected 'd dh pN CARDS'")
            p = _parse_player(args[0], n_players)
            return PhhAction("d", "dh", p, _parse_cards(args[1]), index=index, text=clean)
        raise ValueError(f"unknown dealer action {verb!r}: expected dh or db")
    p = _parse_player(actor, n_players)
    if verb not in _PLAYER_VERBS:
        raise ValueError(
            f"unknown action {verb!r}: expected f, cc, cbr, sm, sd or pb" if verb
            else "missing verb: expected f, cc, cbr, sm, sd or pb"
        )
    if verb == "cbr":
        if len(args) != 1:
            raise ValueError("expected 'pN cbr AMOUNT'")
        return PhhAction(p, "cbr", p, amount=_parse_amount(args[0]), index=index, text=clean)
    if verb in ("sm", "sd"):
        if len(args) > 1:
            raise ValueError(f"expected 'pN {verb}' or 'pN {verb} CARDS'")
        if verb == "sm" and args == ["-"]:
            return PhhAction(p, "sm", p, dash=True, index=index, text=clean)
        cards = _parse_cards(args[0]) if args else ()
        return PhhAction(p, verb, p, cards, index=index, text=clean)
    if args:
        raise ValueError(f"expected 'pN {verb}' with no argument")
    return PhhAction(p, verb, p, index=index, text=clean)


def _hand_from_dict(doc: dict[str, Any], source: str, key: str | None) -> PhhHand:
    where = source if key is None else f"{source} [{key}]"
    for name in _COMMON_REQUIRED:
        if name not in doc:
            raise PhhError(f"{where}: missing required field {name}")
    variant = doc["variant"]
    if not isinstance(variant, str) or not variant:
        raise PhhError(f"{where}: field variant: expected a variant code such as 'NT'")
    for name in _REQUIRED.get(variant, ()):
        if name not in doc:
            raise PhhError(f"{where}: missing required field {name} (variant {variant})")
    stacks = _numbers(doc["starting_stacks"], where, "starting_stacks", None, allow_inf=True)
    n = len(stacks)
    if n < 2:
        raise PhhError(f"{where}: field starting_stacks: expected at least 2 players, got {n}")
    antes = _numbers(doc["antes"], where, "antes", n)
    blinds = (_numbers(doc["blinds_or_straddles"], where, "blinds_or_straddles", n)
              if "blinds_or_straddles" in doc else None)
    bets: dict[str, Number | None] = {}
    for name in ("min_bet", "small_bet", "big_bet"):
        bets[name] = _number(doc[name], where, name) if name in doc else None
    finishing = (_numbers(doc["finishing_stacks"], where, "finishing_stacks", n)
                 if "finishing_stacks" in doc else None)
    trim = doc.get("ante_trimming_status", False)
    if not isinstance(trim, bool):
        raise PhhError(f"{where}: field ante_trimming_status: expected true or false, got {trim!r}")
    players = doc.get("players")
    if players is not None:
        if not isinstance(players, list) or not all(isinstance(x, str) for x in players):
            raise PhhError(f"{where}: field players: expected an array of strings")
        if len(players) != n:
            raise PhhError(f"{where}: field players: expected {n} names, got {len(players)}")
        players = tuple(players)
    raw_actions = doc["actions"]
    if not isinstance(raw_actions, list):
        raise PhhError(f"{where}: field actions: expected an array of strings")
    actions = []
    for i, text in enumerate(raw_actions):
        if not isinstance(text, str):
            raise PhhError(f"{where}: actions[{i}]: expected a string, got {text!r}")
        try:
            a = parse_action(text, i, n)
        except ValueError as e:
            raise PhhError(f"{where}: field actions: action {i + 1} {text!r}: {e}") from None
        if a is not None:
            actions.append(a)
    extra = {k: v for k, v in doc.items() if k not in _CORE_FIELDS and not k.startswith("_")}
    return PhhHand(
        source=source, key=key, variant=variant, antes=antes, blinds_or_straddles=blinds,
        min_bet=bets["min_bet"], small_bet=bets["small_bet"], big_bet=bets["big_bet"],
        starting_stacks=stacks, actions=tuple(actions), finishing_stacks=finishing,
        ante_trimming_status=trim, players=players, extra=extra,
    )


# ---------------------------------------------------------------- writing


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise ValueError(f"cannot write {v!r} as a PHH value")


def phh_player_order(hand: Hand) -> list[int]:
    """Our seats in PHH player order: small blind first, button last; heads-up the big blind
    first. Requires standard positions (sb and bb the two seats in the hand left of the button;
    heads-up the button posts the small blind)."""
    n = hand.config.n_seats
    starting = hand.starting_stacks
    seats = [(hand.button + i) % n for i in range(1, n + 1) if starting[(hand.button + i) % n] > 0]
    if len(seats) == 2:
        if (hand.sb_seat, hand.bb_seat) != (hand.button, seats[0]):
            raise ValueError("heads-up hand without standard positions (button posts the small "
                             "blind): PHH cannot describe it")
        return [hand.bb_seat, hand.button]
    if seats[-1] != hand.button or (hand.sb_seat, hand.bb_seat) != (seats[0], seats[1]):
        raise ValueError("hand without standard positions (button in the hand, small and big "
                         "blind the next two players): PHH cannot describe it")
    return seats


def hand_to_phh(
    hand: Hand,
    *,
    players: Sequence[str] | None = None,
    extra: dict[str, Any] | None = None,
) -> str:
    """PHH text for a completed ``sim.hand.Hand`` with standard positions.

    Players are written in PHH order (``phh_player_order``); ``players`` optionally names them in
    that order; ``extra`` adds fields (e.g. ``{"hand": 7}``). The text holds the dealt cards,
    every action, each show (``pN sm CARDS``) and muck (bare ``pN sm``), and
    ``finishing_stacks``. PHH has no rake or raise-cap field: raked hands and a fixed-limit
    raise cap other than 4 are refused.
    """
    if not hand.is_complete:
        raise ValueError("hand_to_phh: the hand is not complete")
    cfg = hand.config
    if cfg.rake_bps:
        raise ValueError("hand_to_phh: PHH has no rake field; write unraked hands only")
    if cfg.structure == Structure.FIXED_LIMIT and cfg.raise_cap != 4:
        raise ValueError(f"hand_to_phh: PHH fixed-limit has a raise cap of 4, not {cfg.raise_cap}")
    order = phh_player_order(hand)
    player_of = {s: i for i, s in enumerate(order)}
    n = len(order)
    state = hand.state_array
    antes = [int(state[ANTE_DUE_ + s]) for s in order]
    if n == 2:
        antes.reverse()  # reverse-assigned heads-up: antes[1] is p1's (the big blind's)
    blinds = [cfg.small_blind, cfg.big_blind] + [0] * (n - 2)  # heads-up too: [sb, bb]
    variant = {v: k for k, v in SUPPORTED_VARIANTS.items()}[cfg.structure]
    lines = [f"variant = {_toml_value(variant)}",
             f"ante_trimming_status = {_toml_value(cfg.ante_trimming)}",
             f"antes = {_toml_value(antes)}",
             f"blinds_or_straddles = {_toml_value(blinds)}"]
    if cfg.structure == Structure.FIXED_LIMIT:
        lines.append(f"small_bet = {cfg.effective_small_bet}")
        lines.append(f"big_bet = {cfg.effective_big_bet}")
    else:
        lines.append(f"min_bet = {cfg.effective_min_bet}")
    starting = hand.starting_stacks
    lines.append(f"starting_stacks = {_toml_value([starting[s] for s in order])}")
    acts = [f"d dh p{i + 1} {format_cards(hand.hole_cards(s))}" for i, s in enumerate(order)]
    board: list[int] = []
    for r in hand.records:
        k = r.kind
        if k != EventKind.DEAL_BOARD and board:
            acts.append("d db " + format_cards(board))
            board = []
        if k == EventKind.DEAL_BOARD:
            board.append(r.card)
        elif k == EventKind.FOLD:
            acts.append(f"p{player_of[r.seat] + 1} f")
        elif k in (EventKind.CHECK, EventKind.CALL):
            acts.append(f"p{player_of[r.seat] + 1} cc")
        elif k in (EventKind.BET, EventKind.RAISE):
            acts.append(f"p{player_of[r.seat] + 1} cbr {r.to_street_total}")
        elif k == EventKind.SHOW:
            acts.append(f"p{player_of[r.seat] + 1} sm {format_cards(hand.hole_cards(r.seat))}")
        elif k == EventKind.MUCK:
            acts.append(f"p{player_of[r.seat] + 1} sm")
    if board:
        acts.append("d db " + format_cards(board))
    lines.append("actions = [")
    lines.extend(f"  {_toml_value(a)}," for a in acts)
    lines.append("]")
    if players is not None:
        if len(players) != n:
            raise ValueError(f"hand_to_phh: players: expected {n} names, got {len(players)}")
        lines.append(f"players = {_toml_value(list(players))}")
    stacks = hand.stacks
    lines.append(f"finishing_stacks = {_toml_value([stacks[s] for s in order])}")
    for key, v in (extra or {}).items():
        if key in _CORE_FIELDS:
            raise ValueError(f"hand_to_phh: extra field {key!r} is written by hand_to_phh itself")
        name = (key if re.fullmatch(r"[A-Za-z0-9_-]+", key)
                else json.dumps(key, ensure_ascii=False))
        lines.append(f"{name} = {_toml_value(v)}")
    return "\n".join(lines) + "\n"
