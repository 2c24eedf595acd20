"""Readable hand histories: one hand as text a person can follow."""

from __future__ import annotations

from sim.cards import format_card, format_cards
from sim.evaluator import describe
from sim.hand import Hand, Record
from sim.layout import EventKind, Street

_STREET_TITLES = {Street.FLOP: "FLOP", Street.TURN: "TURN", Street.RIVER: "RIVER"}


def format_hand(hand: Hand, title: str = "") -> str:
    """The whole hand: seats and stacks, cards, every action, each pot and who won what."""
    cfg = hand.config
    n = cfg.n_seats
    lines = []
    head = title or f"Hand {hand.hand_id}"
    blinds = f"{cfg.small_blind}/{cfg.big_blind}"
    lines.append(f"{head}: {cfg.structure.label} hold'em {blinds}, {n} seats, "
                 f"button seat {hand.button}")
    for s in range(n):
        start = hand.starting_stacks[s]
        if start == 0:
            continue
        role = {hand.button: " (button)", hand.sb_seat: " (small blind)",
                hand.bb_seat: " (big blind)"}.get(s, "")
        lines.append(f"  seat {s}: {start} chips{role}  [{format_cards(hand.hole_cards(s), ' ')}]")
    street = Street.PREFLOP
    board: list[int] = []
    lines.append("*** PRE-FLOP ***")
    for r in hand.records:
        if r.kind in (EventKind.DEAL_HOLE, EventKind.BURN):
            continue
        if r.kind == EventKind.DEAL_BOARD:
            board.append(r.card)
            if r.street != street and r.street in _STREET_TITLES:
                street = r.street
            if (street == Street.FLOP and len(board) == 3) or street in (Street.TURN, Street.RIVER):
                lines.append(f"*** {_STREET_TITLES[street]} *** [{format_cards(board, ' ')}]")
            continue
        text = _event_text(hand, r)
        if r.kind in (EventKind.BET, EventKind.RAISE, EventKind.CALL) and \
                hand.statuses[r.seat].name == "ALL_IN" and _last_put(hand, r.seat) == r.seq:
            text += " (all-in)"
        lines.append("  " + text)
    lines.append("*** SUMMARY ***")
    for i, p in enumerate(hand.pots):
        kind = "main pot" if i == 0 else f"side pot {i}"
        lines.append(f"  {kind} {p.amount}" + (f" (rake {p.rake})" if p.rake else "")
                     + f": eligible seats {list(p.eligible)}, won by seats {list(p.winners)}")
    if board:
        lines.append(f"  board [{' '.join(format_card(c) for c in board)}]")
    for s in range(n):
        if hand.starting_stacks[s]:
            d = hand.stacks[s] - hand.starting_stacks[s]
            lines.append(f"  seat {s}: {hand.starting_stacks[s]} -> {hand.stacks[s]} ({d:+d})")
    return "\n".join(lines)


def _event_text(hand: Hand, r: Record) -> str:
    who = f"seat {r.seat}"
    k = r.kind
    if k == EventKind.ANTE:
        return f"{who} posts ante {r.added}"
    if k == EventKind.SMALL_BLIND:
        return f"{who} posts small blind {r.added}"
    if k == EventKind.BIG_BLIND:
        return f"{who} posts big blind {r.added}"
    if k == EventKind.STRADDLE:
        return f"{who} straddles {r.added}"
    if k == EventKind.POST:
        return f"{who} posts {r.added} live"
    if k == EventKind.DEAD_BLIND:
        return f"{who} posts {r.added} dead"
    if k == EventKind.FOLD:
        return f"{who} folds"
    if k == EventKind.CHECK:
        return f"{who} checks"
    if k == EventKind.CALL:
        return f"{who} calls {r.added}"
    if k == EventKind.BET:
        return f"{who} bets {r.to_street_total}"
    if k == EventKind.RAISE:
        return f"{who} raises to {r.to_street_total}"
    if k == EventKind.RETURN_UNCALLED:
        return f"uncalled {r.added} returned to {who}"
    if k == EventKind.LEAVE:
        return f"{who} leaves the table (hand dead)"
    if k == EventKind.SHOW:
        return (f"{who} shows [{format_cards(hand.hole_cards(r.seat), ' ')}] "
                f"({describe(r.strength)})")
    if k == EventKind.MUCK:
        return f"{who} mucks"
    if k == EventKind.WIN:
        return f"{who} wins {r.added} from pot {r.pot}"
    return f"rake {r.added}"


def _last_put(hand: Hand, seat: int) -> int:
    last = -1
    for r in hand.records:
        if r.seat == seat and r.kind in (EventKind.BET, EventKind.RAISE, EventKind.CALL,
                                          EventKind.SMALL_BLIND, EventKind.BIG_BLIND,
                                          EventKind.ANTE, EventKind.POST,
                                          EventKind.DEAD_BLIND, EventKind.STRADDLE):
            last = r.seq
    return last
