"""Naming the first difference of one hand between two runs, for ``holdem diff``: both rows
are fetched, compared field by field (cards, positions, actions one by one, then showdown, pots,
payouts) to name the first thing that differs, and printed side by side as hand histories."""

from __future__ import annotations

import difflib
from typing import Any

import numpy as np

CARD_FIELDS = ("deck", "hole_cards", "burns", "board")
POSITION_FIELDS = (
    "structure", "format", "generator", "seed_key", "table_id", "hand_no", "n_seats", "occupied",
    "button", "sb_seat", "bb_seat", "policy", "small_blind", "big_blind", "ante", "ante_mode",
    "ante_trimming", "min_bet", "small_bet", "big_bet", "raise_cap", "rake_bps", "rake_cap",
    "no_flop_no_drop", "level", "stacks_start", "rebuys",
)
PAYOUT_FIELDS = (
    "folded", "timed_out", "showdown_seats", "showdown_shown", "showdown_ranks", "contributed",
    "returned", "pots", "rake", "won", "stacks_end", "fault",
)
SEAT_FIELDS = ("occupied", "policy", "stacks_start", "rebuys", "folded", "timed_out",
               "contributed", "returned", "won", "stacks_end")


def _card(c: Any) -> str:
    from sim.cards import format_card

    try:
        return format_card(int(c)) if c is not None and int(c) >= 0 else str(c)
    except (ValueError, IndexError):
        return str(c)


def _action_text(r: np.void | None) -> str:
    from sim.layout import EventKind, Street

    if r is None:
        return "(no action)"
    try:
        kind = EventKind(int(r["kind"])).name.lower()
    except ValueError:
        kind = f"kind {int(r['kind'])}"
    try:
        street = Street(int(r["street"])).name.lower()
    except ValueError:
        street = f"street {int(r['street'])}"
    return (f"{street}: seat {int(r['seat'])} {kind}, street total {int(r['to_street_total'])}, "
            f"chips moved {int(r['added'])}")


def _value_diff(name: str, va: Any, vb: Any) -> str:
    """One phrase naming where two values of a field differ."""
    if name == "deck" and isinstance(va, bytes) and isinstance(vb, bytes):
        for k, (x, y) in enumerate(zip(va, vb, strict=False)):
            if x != y:
                return f"deck position {k}: {_card(x)} vs {_card(y)}"
        return f"deck length {len(va)} vs {len(vb)}"
    if isinstance(va, list) and isinstance(vb, list):
        for k, (x, y) in enumerate(zip(va, vb, strict=False)):
            if x != y:
                where = (f"seat {k}" if name in SEAT_FIELDS
                         else f"seat {k // 2} card {k % 2}" if name == "hole_cards"
                         else f"pot {k}" if name == "pots" else f"[{k}]")
                if name in CARD_FIELDS:
                    return f"{name} {where}: {_card(x)} vs {_card(y)}"
                return f"{name} {where}: {x} vs {y}"
        return f"{name}: {len(va)} entries vs {len(vb)} ({va} vs {vb})"
    return f"{name}: {va} vs {vb}"


def compare_rows(ra: dict[str, Any], rb: dict[str, Any]) -> list[tuple[str, str]]:
    """Every difference between two rows of the same hand, in order (cards, positions, actions
    one by one, payouts, anything else) as (category, phrase); ``run_id`` is not compared."""
    from sim.schema import decode_actions

    out: list[tuple[str, str]] = []

    def fields(names: tuple[str, ...], category: str) -> None:
        for name in names:
            if name in ra and name in rb and ra[name] != rb[name]:
                out.append((category, _value_diff(name, ra[name], rb[name])))

    fields(CARD_FIELDS, "card")
    fields(POSITION_FIELDS, "position")
    if "actions" in ra and "actions" in rb and ra["actions"] != rb["actions"]:
        try:
            aa, ab = decode_actions(ra["actions"]), decode_actions(rb["actions"])
        except ValueError:
            out.append(("action", "actions: the packed records differ (not decodable)"))
        else:
            for i in range(max(len(aa), len(ab))):
                x = aa[i] if i < len(aa) else None
                y = ab[i] if i < len(ab) else None
                if x is None or y is None or x.tobytes() != y.tobytes():
                    out.append(("action", f"action #{i}: {_action_text(x)} vs "
                                          f"{_action_text(y)}"))
                    break
    fields(PAYOUT_FIELDS, "payout")
    known = set(CARD_FIELDS) | set(POSITION_FIELDS) | set(PAYOUT_FIELDS) | {
        "actions", "run_id", "hand_id"}
    for name in sorted((set(ra) & set(rb)) - known):
        if ra[name] != rb[name]:
            out.append(("other", _value_diff(name, ra[name], rb[name])))
    return out


def _history(row: dict[str, Any]) -> str | None:
    from sim.logview.hand_text import format_hand
    from sim.logview.row_replay import replay_row

    try:
        return format_hand(replay_row(row, check=False))
    except Exception:  # noqa: BLE001 - a row that does not rebuild: fall back to fields
        return None


def side_by_side(left: str, right: str, titles: tuple[str, str] = ("baseline", "candidate"),
                 width: int = 64) -> str:
    """Two texts in two columns, lines aligned by difflib; ``|`` marks lines that differ,
    ``<`` / ``>`` lines on one side only."""
    la, lb = left.splitlines(), right.splitlines()

    def cut(s: str) -> str:
        return s if len(s) <= width else s[:width - 1] + "~"

    rows = [f"{titles[0]:<{width}}   {titles[1]}", f"{'-' * width}   {'-' * width}"]
    sm = difflib.SequenceMatcher(a=la, b=lb, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            rows += [f"{cut(x):<{width}}   {cut(x)}" for x in la[i1:i2]]
            continue
        xs, ys = la[i1:i2], lb[j1:j2]
        for k in range(max(len(xs), len(ys))):
            x = xs[k] if k < len(xs) else ""
            y = ys[k] if k < len(ys) else ""
            mark = "|" if x and y else "<" if x else ">"
            rows.append(f"{cut(x):<{width}} {mark} {cut(y)}")
    return "\n".join(rows)


def field_of(phrase: str) -> str:
    """The field a phrase of ``compare_rows`` names: ``won`` of "won seat 3: 13 vs 14",
    ``action`` of "action #4: ...", ``deck`` of "deck position 7: ..."."""
    return phrase.split(" ", 1)[0].rstrip(":")


SAME_REPLAY = ("replayed from cards and actions the two hands are the same: the rows differ in "
               "logged values the replay recomputes")


def explain_hand(baseline: str, candidate: str, hand_id: int) -> tuple[str, str]:
    """(the first difference of ``hand_id`` named, both hands side by side), both replayed by
    this process's engine (``holdem diff``: two run folders, one engine at hand)."""
    from cluster.flows.replay import find_row

    ra = find_row(baseline, hand_id)
    rb = find_row(candidate, hand_id)
    return explain_rows(hand_id, ra, rb, _history(ra), _history(rb))


def explain_rows(hand_id: int, ra: dict[str, Any], rb: dict[str, Any], ha: str | None,
                 hb: str | None, titles: tuple[str, str] = ("baseline", "candidate"),
                 same_note: str = SAME_REPLAY) -> tuple[str, str]:
    """(the first difference of the two rows of ``hand_id`` named, the histories ``ha`` and
    ``hb`` side by side; a history that is None: the differing fields instead; two equal
    histories: ``same_note`` and the differing fields)."""
    diffs = compare_rows(ra, rb)
    if not diffs:
        return f"hand {hand_id}: the digests differ but no compared field does", ""
    cat, text = diffs[0]
    what = {"card": "card", "position": "position", "action": "action", "payout": "payout",
            "other": "field"}[cat]
    head = f"hand {hand_id}: first differing {what}: {text}"
    if len(diffs) > 1:
        head += "\n  also: " + "\n  also: ".join(t for _, t in diffs[1:8])
        if len(diffs) > 8:
            head += f"\n  ... and {len(diffs) - 8} more"
    if ha is None or hb is None:
        body = "(a row does not rebuild into a hand; differing fields)\n" + "\n".join(
            f"  {t}" for _, t in diffs)
        return head, body
    body = side_by_side(ha, hb, titles)
    if ha == hb:
        body += (f"\n({same_note})\n"
                 + "\n".join(f"  {t}" for _, t in diffs))
    return head, body


def logged_text(row: dict[str, Any]) -> str:
    """A logged hand's facts as its own engine wrote them (no replay): the table, the stakes
    and each seat's stack, chips put in, winnings and final stack; the pots and the rake."""
    fmt = row.get("format", "?")
    level = f", level {row.get('level')}" if fmt == "tournament" else ""
    lines = [f"Hand {row.get('hand_id')} (table {row.get('table_id')} hand {row.get('hand_no')}, "
             f"{fmt}{level}), as logged",
             f"blinds {row.get('small_blind')}/{row.get('big_blind')}, ante {row.get('ante')}, "
             f"button seat {row.get('button')}"]
    occ = row.get("occupied") or []
    for s, here in enumerate(occ):
        if not here:
            continue

        def at(name: str, s: int = s) -> Any:
            v = row.get(name)
            return v[s] if isinstance(v, list) and s < len(v) else "?"

        folded = " (folded)" if at("folded") is True else ""
        lines.append(f"seat {s}: starts {at('stacks_start')}, puts in {at('contributed')}, "
                     f"wins {at('won')}, ends {at('stacks_end')}{folded}")
    board = row.get("board")
    if isinstance(board, list) and board:
        lines.append("board " + " ".join(_card(c) for c in board))
    pots = row.get("pots")
    if isinstance(pots, list):
        for k, pot in enumerate(pots):
            lines.append(f"pot {k}: {pot}")
    lines.append(f"rake {row.get('rake')}")
    return "\n".join(lines)
