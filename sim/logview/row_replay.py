"""From a logged row back to a live ``Hand``: the replay path of ``holdem replay`` and the
tests that prove every logged hand replays through the engine to the logged result."""

from __future__ import annotations

from typing import Any

import numpy as np

from audits.runfolder.errors import CheckFailed
from sim.config import AnteMode, Structure, TableConfig
from sim.hand import Action, Hand
from sim.layout import EventKind
from sim.schema import decode_actions

_PLAYER = {
    EventKind.FOLD: Action.fold,
    EventKind.CHECK: Action.check_call,
    EventKind.CALL: Action.check_call,
}


class RowReplayError(CheckFailed, ValueError):
    """A logged row that does not replay to its logged result."""


def config_from_row(row: dict[str, Any]) -> TableConfig:
    return TableConfig(
        n_seats=int(row["n_seats"]), structure=Structure.parse(row["structure"]),
        small_blind=int(row["small_blind"]), big_blind=int(row["big_blind"]),
        ante=int(row["ante"]) if int(row["ante_mode"]) else 0,
        ante_mode=AnteMode(int(row["ante_mode"])), ante_trimming=bool(row["ante_trimming"]),
        small_bet=int(row["small_bet"]), big_bet=int(row["big_bet"]),
        raise_cap=int(row["raise_cap"]), min_bet=int(row["min_bet"]),
        rake_bps=int(row["rake_bps"]), rake_cap=int(row["rake_cap"]),
        no_flop_no_drop=bool(row["no_flop_no_drop"]),
    )


def replay_row(row: dict[str, Any], check: bool = True) -> Hand:
    """Rebuild a logged hand by replaying its player actions; with ``check``, raise
    RowReplayError unless the replay ends with the logged stacks, rake and board."""
    if row.get("deck") is None:
        raise RowReplayError(f"hand {row['hand_id']} has no deck (an imported hand history): "
                             "replay it from its source with `holdem phh verify`")
    cfg = config_from_row(row)
    sb = int(row["sb_seat"])
    deck = np.frombuffer(row["deck"], dtype=np.int8).astype(np.int64)
    antes = [0] * cfg.n_seats
    posts = [0] * cfg.n_seats  # a replayed history's posts after the blinds (live, dead)
    dead = [0] * cfg.n_seats
    straddle, straddle_seat = 0, None  # a straddle post (cash game files, docs/game.md)
    for r in decode_actions(row["actions"]):
        if r["kind"] == EventKind.ANTE:
            antes[int(r["seat"])] = int(row["ante"])
        elif r["kind"] == EventKind.POST:
            posts[int(r["seat"])] += int(r["added"])
        elif r["kind"] == EventKind.DEAD_BLIND:
            dead[int(r["seat"])] += int(r["added"])
        elif r["kind"] == EventKind.STRADDLE:  # a short one was the seat's last chips: the
            # same post from any straddle above it (Hand wants one above the big blind)
            straddle = max(int(r["added"]), cfg.big_blind + 1)
            straddle_seat = int(r["seat"])
    has_posts = any(posts) or any(dead)
    hand = Hand(cfg, list(row["stacks_start"]), button=int(row["button"]),
                sb_seat=sb, bb_seat=int(row["bb_seat"]), deck=deck, antes=antes,
                hand_id=int(row["hand_id"]), posts=posts if has_posts else None,
                dead=dead if has_posts else None, free_fold=row.get("generator") == "phh",
                straddle=straddle, straddle_seat=straddle_seat,
                # the row does not say the game's straddle_raise: one big blind over the
                # straddle accepts every raise, cap and reopening the "straddle" rule does
                straddle_raise="big_blind")
    for r in decode_actions(row["actions"]):
        kind = EventKind(int(r["kind"]))
        seat = int(r["seat"])
        if kind in _PLAYER:
            hand.apply(_PLAYER[kind](seat))
        elif kind in (EventKind.BET, EventKind.RAISE):
            hand.apply(Action.raise_to(seat, int(r["to_street_total"])))
        elif kind == EventKind.LEAVE:
            hand.apply(Action.leave(seat))
    if check:
        where = f"hand {row['hand_id']}"
        if not hand.is_complete:
            raise RowReplayError(f"{where}: the logged actions do not finish the hand")
        if hand.stacks != list(row["stacks_end"]):
            raise RowReplayError(f"{where}: replay ends with stacks {hand.stacks}, "
                                 f"logged {list(row['stacks_end'])}")
        if hand.rake != int(row["rake"]) or hand.board != list(row["board"]):
            raise RowReplayError(f"{where}: replay rake/board differ from the log")
    return hand
