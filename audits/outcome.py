"""The operator's outcome against the rules' payout (exact; imported hand histories only).

An imported hand keeps two results: the rules' (the replay: ``won``, ``stacks_end``) and the
operator's claim (``op_finishing``, ``op_winnings``, ``op_rake``, and the next hand of the same
table session, whose starting stacks show what the operator actually carried over). This audit
never reads ``won``: it rebuilds the rules' gross payout of every seat from the primary facts
with the payouts audit's own pot builder and evaluator (``audits.payouts``: contributions,
folds, the shown cards; no rake), then compares the operator's claim with it, per hand one
class (``CLASSES``):

- ``exact``: the operator paid every seat what the rules pay (no rake);
- ``rake``: the operator kept a rake, taken from the winners only, within the manifest's
  ``rake_schedule`` (percent of the pot, capped; caps by players; no flop no drop; plus the
  rounding step); ``rake (no schedule: not checked)`` when the import gave no schedule;
- ``convention:<name>``: the ``winnings`` record reads right only under a site's known way of
  writing it (``CONVENTIONS``, README "Sites' winnings conventions");
- ``top-up``: the next hand of the session shows a player with more chips than the hand left
  him (allowed; counted, with the amount);
- ``not recorded``: no outcome in the record and no adjacent next hand to observe it;
- ``not checked``: the rules' payout could not be rebuilt (the payouts audit fails the hand);
- ``wrong payout`` (FAIL): the operator paid a player more than the rules did (or a player the
  rules did not pay), a player lost more than his bets, kept more than the schedule allows
  (more than the rounding step over it), kept more than its record states, carried over less
  than its record paid, or a winner's shortfall reappears exactly as a loser's "top-up".

Seats with an unknown stack (``stack_known`` false) are not compared by their stacks (their
finishing stack and next-hand stack say nothing); pots contested by a seat whose showdown cards
are not in the record (``cards_unrecorded``) are checked as a whole (what their eligible seats
got together, never who among them won).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

import numpy as np
from numba import njit

from audits.evaluator import TABLE, board_parts
from audits.io import AuditInputError, Batch, table_order
from audits.payouts import (
    MINE,
    POT_AMOUNT,
    POT_ELIGIBLE,
    POT_RAKE,
    _award_layer,
    _build_pots,
    _check_listing,
    _live_levels,
    _pot_winners,
    _score_hands,
)
from audits.result import MAX_EXAMPLES, AuditResult, Partial, reduce_partials
from audits.spec import AuditSpec

EXACT, RAKE, RAKE_UNCHECKED, TOP_UP, NOT_RECORDED, NOT_CHECKED, WRONG = (
    "exact", "rake", "rake (no schedule: not checked)", "top-up", "not recorded", "not checked",
    "wrong payout")
# how sites write ``winnings`` (README, "Sites' winnings conventions"): per name, what it means
CONVENTIONS = {
    "collected+uncalled": "the amount collected including the uncalled bet returned",
    "net": "the net profit: what the winner collected minus what he put in (losers 0 or "
           "minus their bets)",
    "zero-uncontested": "all zeros when one player is left uncontested (no claim: the next "
                        "hand shows the payout)",
    "zeros": "all zeros whatever happened (no claim: the next hand shows the payout)",
}
CLASSES = (EXACT, RAKE, RAKE_UNCHECKED, *(f"convention:{c}" for c in CONVENTIONS), TOP_UP,
           NOT_RECORDED, NOT_CHECKED, WRONG)
MAX_POINTS = 3000  # rake-vs-pot points kept per venue for the report's scatter
MAX_WRONG = 200  # wrong payouts listed in full in audit.json (all are counted)
UNKNOWN_VENUE = "(unknown venue)"


@njit(cache=True, _nrt=False)
def _rules_kernel(occ, contrib, folded, hole, button, a_seat, a_kind, a_add, act_off, sv,
                  sshown, soff, dv, doff, trim, unrec, table, work, won, pot_total,
                  unproven, unproven_amt, status):  # pragma: no cover - compiled
    # per hand, the rules' gross payout per seat (the payouts audit's pot rebuild, no rake)
    # into won[i]; the pots' total; the seats of pots contested by a seat whose cards are not in
    # the record (their winners unproven) and those pots' amount; status[i] != 0 when the hand
    # cannot be rebuilt (the payouts audit names why)
    k = occ.shape[1]
    for i in range(occ.shape[0]):
        nlive, live, dead = _live_levels(work, i, occ, contrib, folded, trim, a_seat, a_kind,
                                         a_add, act_off, k)
        nb = doff[i + 1] - doff[i]
        d = doff[i]
        b0 = b1 = b2 = b3 = b4 = bkey = blanes = np.int64(0)
        if nb == 5:
            b0, b1, b2 = np.int64(dv[d]), np.int64(dv[d + 1]), np.int64(dv[d + 2])
            b3, b4 = np.int64(dv[d + 3]), np.int64(dv[d + 4])
            bkey, blanes = board_parts(b0, b1, b2, b3, b4)
        code, _ = _check_listing(work, i, False, nlive, live, nb, sv, sshown, soff, k)
        if code == 0:
            code, _ = _score_hands(work, i, False, nlive, live, nb, hole, unrec, table, bkey,
                                   blanes, b0, b1, b2, b3, b4, k)
        if code:
            status[i] = code
            continue
        npots, code, _ = _build_pots(work, i, occ, folded, dead, k)
        if code:
            status[i] = code
            continue
        mask = 0
        for s in range(k):
            if unrec[i, s]:
                mask |= 1 << s
            work[MINE, s] = 0
        total = 0
        for p in range(npots):
            work[POT_RAKE, p] = 0
            total += work[POT_AMOUNT, p]
            elig = work[POT_ELIGIBLE, p]
            cnt = 0
            for s in range(k):
                if (elig >> s) & 1:
                    cnt += 1
            winners, _ = _pot_winners(work, p, nb, -1, k)
            if cnt >= 2 and (elig & mask or winners == 0):
                unproven[i] |= elig
                unproven_amt[i] += work[POT_AMOUNT, p]
                continue
            _award_layer(work, p, winners, button[i], k)
        pot_total[i] = total
        for s in range(k):
            won[i, s] = work[MINE, s]


def rules_payouts(b: Batch) -> dict[str, np.ndarray]:
    """The rules' gross payout per seat (n, k), the pots' total, the unproven seats' mask and
    amount, and a per-hand status (0: rebuilt)."""
    n, k = b.n, b.k
    sc = b.seat
    sv, soff = b.var["showdown_seats"]
    sh, _ = b.var["showdown_shown"]
    dv, doff = b.var["board"]
    out: dict[str, np.ndarray] = {
        "won": np.zeros((n, k), np.int64), "pot_total": np.zeros(n, np.int64),
        "unproven": np.zeros(n, np.int64), "unproven_amt": np.zeros(n, np.int64),
        "status": np.zeros(n, np.int32)}
    _rules_kernel(sc["occupied"], sc["contributed"], sc["folded"], b.hole, b.cols["button"],
                  b.act["seat"], b.act["kind"], b.act["added"], b.act_off, sv, sh, soff, dv, doff,
                  b.cols["ante_trimming"], b.imp["cards_unrecorded"], TABLE,
                  np.zeros((10, k + 1), np.int64), out["won"], out["pot_total"],
                  out["unproven"], out["unproven_amt"], out["status"])
    return out


# ---------------------------------------------------------------------------------------------
# the rake schedule (manifest ``rake_schedule``, amounts in minor units)


@dataclass(frozen=True)
class Schedule:
    percent: Fraction
    cap: int | None
    caps_by_players: tuple[tuple[int, int, int], ...]  # (from, to, cap) players
    no_flop_no_drop: bool
    step: int

    def cap_for(self, players: int) -> int | None:
        for lo, hi, cap in self.caps_by_players:
            if lo <= players <= hi:
                return cap
        return self.cap

    def allowed(self, pot: int, players: int, flop: bool) -> Fraction:
        """The rake the schedule allows on a pot (before the rounding step)."""
        if self.no_flop_no_drop and not flop:
            return Fraction(0)
        r = pot * self.percent / 100
        cap = self.cap_for(players)
        return r if cap is None else min(r, Fraction(cap))

    def text(self, money: Money) -> str:
        cap = "no cap" if self.cap is None else f"cap {money.fmt(self.cap)}"
        return (f"{self.percent}% {cap}" + (", no flop no drop" if self.no_flop_no_drop else "")
                + f", step {money.fmt(self.step)}")


def _int(v: Any, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise AuditInputError(f"manifest.json: {where}: expected a whole number of minor units "
                              f">= 0, found {v!r}")
    return v


def parse_schedule(raw: Any) -> Schedule | None:
    """The manifest's ``rake_schedule`` (None when none was given); AuditInputError naming the
    field when it is not what ``holdem import`` writes."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise AuditInputError(f"manifest.json: rake_schedule: expected an object or null, "
                              f"found {raw!r}")
    try:
        pct = Fraction(Decimal(str(raw.get("percent"))))
    except (InvalidOperation, ValueError, TypeError):
        pct = Fraction(-1)
    if isinstance(raw.get("percent"), bool | float) or not 0 <= pct <= 100:
        raise AuditInputError("manifest.json: rake_schedule.percent: expected a decimal text "
                              f"in 0..100, found {raw.get('percent')!r}")
    cap = None if raw.get("cap") is None else _int(raw["cap"], "rake_schedule.cap")
    by: list[tuple[int, int, int]] = []
    caps = raw.get("caps_by_players") or {}
    if not isinstance(caps, dict):
        raise AuditInputError("manifest.json: rake_schedule.caps_by_players: expected an object")
    for key, v in caps.items():
        text = str(key).strip()
        try:
            if text.endswith("+"):
                lo, hi = int(text[:-1]), 99
            elif "-" in text:
                lo, hi = (int(x) for x in text.split("-", 1))
            else:
                lo = hi = int(text)
        except ValueError:
            raise AuditInputError(f"manifest.json: rake_schedule.caps_by_players: key {key!r}: "
                                  "expected players as N, N-M or N+") from None
        by.append((lo, hi, _int(v, f"rake_schedule.caps_by_players[{key!r}]")))
    nfnd = raw.get("no_flop_no_drop", False)
    if not isinstance(nfnd, bool):
        raise AuditInputError("manifest.json: rake_schedule.no_flop_no_drop: expected true or "
                              f"false, found {nfnd!r}")
    step = _int(raw.get("step", 1), "rake_schedule.step") or 1
    return Schedule(pct, cap, tuple(by), nfnd, step)


@dataclass(frozen=True)
class Money:
    exponent: int
    currency: str

    def fmt(self, v: int | Fraction) -> str:
        if isinstance(v, Fraction) and v.denominator != 1:
            return f"{float(v) / 10 ** self.exponent:.{self.exponent + 2}f}"
        x = Decimal(int(v)).scaleb(-self.exponent)
        return f"{x:.{self.exponent}f}"


def parse_money(raw: Any) -> Money:
    if not isinstance(raw, dict):
        return Money(0, "")
    e = raw.get("exponent", 0)
    if isinstance(e, bool) or not isinstance(e, int) or not 0 <= e <= 6:
        raise AuditInputError(f"manifest.json: money.exponent: expected 0..6, found {e!r}")
    return Money(e, str(raw.get("currency") or ""))


# ---------------------------------------------------------------------------------------------
# one hand


@dataclass
class Hand:
    """One hand's facts for the comparison (plain Python values)."""

    occ: list[bool]
    start: list[int]
    contrib: list[int]
    returned: list[int]
    won: list[int]  # the rules' gross payout
    known: list[bool]
    pids: list[int]
    pot: int
    unproven: int  # seat bits of pots whose winners the record cannot prove
    unproven_amt: int
    players: int
    flop: bool
    live: int

    def seats(self) -> range:
        return range(len(self.occ))


@dataclass
class Verdict:
    cls: str = NOT_RECORDED
    take: int | None = None  # what the operator kept (observed)
    allowed: Fraction | None = None
    why: str = ""
    operator: dict[int, int] = field(default_factory=dict)  # seat -> what the operator paid
    topup: int = 0
    notes: list[str] = field(default_factory=list)


def _compare(h: Hand, paid: dict[int, int], sched: Schedule | None, money: Money
             ) -> tuple[str, int, Fraction | None]:
    """The operator's payout ``paid`` (seat -> collected, the seats it covers) against the
    rules': (problem or "", what the operator kept, rake allowed)."""
    take = 0
    g_paid = 0
    allowed = None if sched is None else sched.allowed(h.pot, h.players, h.flop)
    for s, c in paid.items():
        if (h.unproven >> s) & 1:
            g_paid += c
            continue
        if c < 0:
            return (f"player {h.pids[s]} (seat {s}) lost {money.fmt(-c)} more than his bets"
                    ), take, allowed
        if c > h.won[s]:
            what = "a player the rules did not pay" if h.won[s] == 0 else "more than the rules"
            return (f"paid {what}: player {h.pids[s]} (seat {s}) got {money.fmt(c)}, the rules "
                    f"pay {money.fmt(h.won[s])}"), take, allowed
        take += h.won[s] - c
    if h.unproven:
        if g_paid > h.unproven_amt:
            return (f"paid {money.fmt(g_paid)} from pots of {money.fmt(h.unproven_amt)} whose "
                    "showdown cards are not recorded"), take, allowed
        if all(s in paid for s in h.seats() if (h.unproven >> s) & 1):
            take += h.unproven_amt - g_paid
    if allowed is not None and sched is not None and take > allowed + sched.step:
        return (f"kept {money.fmt(take)} of a pot of {money.fmt(h.pot)}: more than the rake "
                f"allowed ({money.fmt(allowed)}, {sched.text(money)})"), take, allowed
    return "", take, allowed


def _reading(name: str, w: list[int], h: Hand) -> dict[int, int] | None:
    """The operator's payout per seat read from ``winnings`` under a convention (None when the
    record cannot be read that way)."""
    out: dict[int, int] = {}
    for s in h.seats():
        if not h.occ[s]:
            if w[s]:
                return None
            continue
        if name == "standard":
            out[s] = w[s]
        elif name == "collected+uncalled":
            if h.returned[s] and w[s] < h.returned[s]:
                return None
            out[s] = w[s] - h.returned[s] if w[s] else 0
        elif name == "net":
            if w[s] > 0:
                out[s] = w[s] + h.contrib[s]
            elif w[s] in (0, -h.contrib[s]):
                out[s] = 0
            else:
                return None
    return out


def classify(h: Hand, fin: list[int] | None, win: list[int] | None, op_rake: int,
             nxt: Hand | None, sched: Schedule | None, money: Money,
             op_pot: int = -1) -> Verdict:
    """One hand's class (``CLASSES``) from its record and the next hand of its session
    (``op_pot``: the total pot the record states, -1 unstated: a pot other than the rules' is
    counted in the notes)."""
    v = Verdict()
    if op_pot >= 0 and op_pot != h.pot:
        v.notes.append("stated total pot other than the rules' pot")
    evidence = False
    convention = ""
    paid: dict[int, int] | None = None  # what the record says the operator paid
    if fin is not None:
        paid = {s: fin[s] - h.start[s] + h.contrib[s] for s in h.seats()
                if h.occ[s] and h.known[s]}
        if len(paid) < sum(h.occ):
            v.notes.append("finishing stack of an unknown stack not compared")
        why, take, allowed = _compare(h, paid, sched, money)
        if why:
            v.why, v.operator = f"finishing_stacks: {why}", paid
            v.cls, v.allowed = WRONG, allowed
            return v
        v.take, v.allowed, evidence = take, allowed, True
    if win is not None:
        if not any(win) and (any(h.won) or h.unproven_amt):
            convention = "zero-uncontested" if h.live == 1 else "zeros"
        else:
            first = ""
            for name in ("standard", "collected+uncalled", "net"):
                reading = _reading(name, win, h)
                if reading is None:
                    continue
                why, take, allowed = _compare(h, reading, sched, money)
                if not why:
                    paid = reading if paid is None else paid
                    if fin is None:
                        v.take, v.allowed = take, allowed
                    elif take != v.take:
                        first = first or ("winnings and finishing_stacks disagree (kept "
                                          f"{money.fmt(take)} against {money.fmt(v.take or 0)})")
                        continue  # winnings and finishing stacks must tell one story
                    evidence = True
                    convention = "" if name == "standard" else name
                    break
                # the reading that fails by the rake alone says most (else the first)
                if not first or (why.startswith("kept") and not first.startswith("kept")):
                    first, v.operator, v.allowed = (
                        why + ("" if name == "standard" else f" (read as {name})"),
                        reading, allowed)
            else:
                v.why = f"winnings: {first or 'not readable under any known convention'}"
                v.cls = WRONG
                return v
    if op_rake >= 0 and v.take is not None and v.take > op_rake:
        v.cls, v.why = WRONG, (f"kept {money.fmt(v.take)} but its record states a rake of "
                               f"{money.fmt(op_rake)}")
        return v
    if nxt is not None:
        where = {p: t for t, p in enumerate(nxt.pids) if nxt.occ[t]}
        observed: dict[int, int] = {}
        surplus: dict[int, int] = {}
        for s in h.seats():
            t = where.get(h.pids[s], -1) if h.occ[s] else -1
            if t < 0 or not h.known[s] or not nxt.known[t]:
                continue
            got = (paid[s] if paid is not None and s in paid else h.won[s])
            end = h.start[s] - h.contrib[s] + got
            diff = nxt.start[t] - end
            if (h.unproven >> s) & 1 and not (paid is not None and s in paid):
                observed[s] = diff  # what it got from pots the record cannot attribute
            elif diff > 0:
                surplus[s] = diff
                observed[s] = got
            elif paid is not None and s in paid:
                if diff < 0:
                    v.cls, v.operator = WRONG, {s: paid[s] + diff}
                    v.why = (f"next hand: player {h.pids[s]} (seat {s}) starts with "
                             f"{money.fmt(nxt.start[t])}, less than the record left him "
                             f"({money.fmt(end)})")
                    return v
            else:
                observed[s] = got + diff
        group = [s for s in observed if (h.unproven >> s) & 1 and (paid is None or s not in paid)]
        extra = sum(observed[s] for s in group) - h.unproven_amt
        if group and extra > 0:  # more than those pots held: a top-up among them
            s = max(group, key=lambda x: observed[x])
            take_back = min(extra, observed[s])
            observed[s] -= take_back
            surplus[s] = take_back
        v.topup = sum(surplus.values())
        if paid is None:
            winners = [s for s in h.seats() if h.won[s] > 0 or (h.unproven >> s) & 1]
            covered = all(s in observed for s in winners)
            if observed:
                why, take, allowed = _compare(h, observed, sched, money)
                # a winner's shortfall reappearing exactly as a loser's "top-up" is the pot
                # paid to the wrong player, whatever the schedule
                short = sum(h.won[s] - x for s, x in observed.items()
                            if not (h.unproven >> s) & 1 and h.won[s] > x)
                # (or, with a schedule, all of it but a rake the schedule allows)
                slack = None if sched is None or allowed is None else allowed + sched.step

                def _moved(x: int) -> bool:
                    return x == short or (slack is not None and x > slack
                                          and 0 <= short - x <= slack)

                moved = next((s for s, x in surplus.items() if h.won[s] == 0 and _moved(x)),
                             -1) if covered and short else -1
                if moved >= 0:
                    x = surplus[moved]
                    v.cls, v.allowed = WRONG, allowed
                    v.operator = {**observed, moved: x}
                    v.why = (f"next hand: {money.fmt(x)} of the {money.fmt(short)} missing from "
                             f"the winners appears as player {h.pids[moved]}'s (seat {moved}) "
                             "top-up")
                    return v
                if why:
                    v.cls, v.operator, v.allowed = WRONG, observed, allowed
                    v.why = f"next hand: {why}"
                    return v
                if covered:
                    v.take, v.allowed, evidence = take, allowed, True
                else:
                    v.notes.append("a winner left before the next hand")
        elif surplus:
            evidence = True
        if surplus:
            v.cls = TOP_UP
            return v
    if convention in ("zeros", "zero-uncontested") and evidence:
        convention = ""
    if convention:
        v.cls = f"convention:{convention}"
    elif v.take:
        v.cls = RAKE if sched is not None else RAKE_UNCHECKED
    elif evidence:
        v.cls = EXACT
    return v


# ---------------------------------------------------------------------------------------------
# the map and the reduce


@dataclass
class OutcomePartial:
    part: Partial
    counts: dict[str, dict[str, int]] = field(default_factory=dict)  # venue -> class -> hands
    points: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # venue: (pot, take)
    wrong: list[dict[str, Any]] = field(default_factory=list)
    notes: dict[str, int] = field(default_factory=dict)
    topups: int = 0
    money: dict[str, Any] = field(default_factory=dict)  # {"exponent", "currency"}
    schedule: dict[str, Any] | None = None  # the schedule in words and numbers (the report's)


def _next_rows(b: Batch) -> np.ndarray:
    """Per row, the row of the next hand of its table session (hand_no + 1), or -1."""
    order = table_order(b)
    nxt = np.full(b.n, -1, np.int64)
    t, hn = b.cols["table_id"][order], b.cols["hand_no"][order].astype(np.int64)
    adj = np.flatnonzero((t[1:] == t[:-1]) & (hn[1:] == hn[:-1] + 1))
    nxt[order[adj]] = order[adj + 1]
    return nxt


def _text(b: Batch, name: str, i: int) -> str:
    return str(b.imp[name + "_values"][int(b.imp[name][i])])


def outcome_map(b: Batch) -> OutcomePartial:
    if not b.imp:
        note = ("imported without the import columns (re-import with holdem import)"
                if b.context.get("imported") else "not an imported run")
        return OutcomePartial(Partial(hands=b.n, applicable=False), notes={note: b.n})
    sched = parse_schedule(b.context.get("rake_schedule"))
    money = parse_money(b.context.get("money"))
    r = rules_payouts(b)
    sc = b.seat
    occ, start = sc["occupied"].tolist(), sc["stacks_start"].tolist()
    contrib, ret = sc["contributed"].tolist(), sc["returned"].tolist()
    won = r["won"].tolist()
    known = b.imp["stack_known"].tolist()
    pids = sc["player_ids"].tolist() if "player_ids" in sc else [list(range(b.k))] * b.n
    folded = sc["folded"].tolist()
    nb = np.diff(b.var["board"][1]).tolist()
    wv, woff = b.imp["op_winnings"]
    fv, foff = b.imp["op_finishing"]
    op_rake, op_pot = b.imp["op_rake"].tolist(), b.imp["op_pot"].tolist()
    nxt = _next_rows(b).tolist()
    hid = b.cols["hand_id"].tolist()
    out = OutcomePartial(Partial(hands=b.n), money={"exponent": money.exponent,
                                                    "currency": money.currency},
                         schedule=None if sched is None else {
                             "text": sched.text(money), "percent": str(sched.percent),
                             "cap": sched.cap, "step": sched.step,
                             "caps_by_players": [list(x) for x in sched.caps_by_players],
                             "no_flop_no_drop": sched.no_flop_no_drop})
    hands: dict[int, Hand] = {}

    def hand(i: int) -> Hand:
        if i not in hands:
            hands[i] = Hand(occ[i], start[i], contrib[i], ret[i], won[i], known[i], pids[i],
                            int(r["pot_total"][i]), int(r["unproven"][i]),
                            int(r["unproven_amt"][i]), sum(occ[i]), nb[i] >= 3,
                            sum(1 for s in range(b.k) if occ[i][s] and not folded[i][s]))
        return hands[i]

    status = r["status"]
    for i in range(b.n):
        venue = _text(b, "venue", i) or UNKNOWN_VENUE
        if status[i]:
            v = Verdict(cls=NOT_CHECKED)
        else:
            fin = fv[foff[i]:foff[i + 1]].tolist() if foff[i + 1] > foff[i] else None
            win = wv[woff[i]:woff[i + 1]].tolist() if woff[i + 1] > woff[i] else None
            j = nxt[i]
            v = classify(hand(i), fin, win, op_rake[i], hand(j) if j >= 0 else None, sched,
                         money, op_pot[i])
            hands.pop(i, None)
        per = out.counts.setdefault(venue, {})
        per[v.cls] = per.get(v.cls, 0) + 1
        for note in v.notes:
            out.notes[note] = out.notes.get(note, 0) + 1
        if r["unproven"][i]:
            out.notes["pots contested by unrecorded cards (amounts checked, winners not)"] = (
                out.notes.get("pots contested by unrecorded cards (amounts checked, winners "
                              "not)", 0) + 1)
        if not all(known[i][s] for s in range(b.k) if occ[i][s]):
            key = "hands with an unknown stack (that seat's stacks not compared)"
            out.notes[key] = out.notes.get(key, 0) + 1
        out.topups += v.topup
        if v.take is not None and v.cls != WRONG:
            pts = out.points.setdefault(venue, [])
            if len(pts) < MAX_POINTS:
                pts.append((int(r["pot_total"][i]), v.take))
        if v.cls == WRONG:
            h = hand(i)
            site = _text(b, "site_hand", i)
            src, sec = _text(b, "source_file", i), _text(b, "source_section", i)
            seats = sorted({s for s, x in v.operator.items() if x}
                           | {s for s in h.seats() if h.won[s] or (h.unproven >> s) & 1})
            # rules None: the seat contests pots whose winners the record cannot prove
            players: list[dict[str, Any]] = [
                {"player_id": h.pids[s], "seat": s,
                 "rules": None if (h.unproven >> s) & 1 else h.won[s],
                 "operator": v.operator.get(s)} for s in seats]
            allowed = "no schedule" if v.allowed is None else money.fmt(v.allowed)
            msg = (f"wrong payout: site hand {site or '?'}, {src} [{sec}]: {v.why}; players "
                   + ", ".join(f"{p['player_id']} rules "
                               + ("?" if p["rules"] is None else money.fmt(p["rules"]))
                               + " operator "
                               + ("?" if p["operator"] is None else money.fmt(p["operator"]))
                               for p in players)
                   + (f" (? = among pots of {money.fmt(h.unproven_amt)} whose showdown cards "
                      "are not recorded)" if h.unproven else "")
                   + f"; rake allowed {allowed}")
            out.part.failures += 1
            out.part.reasons["wrong payout"] = out.part.reasons.get("wrong payout", 0) + 1
            if len(out.part.examples) < MAX_EXAMPLES:
                out.part.examples.append((hid[i], msg))
            if len(out.wrong) < MAX_WRONG:
                out.wrong.append({"hand_id": hid[i], "site_hand": site, "file": src,
                                  "section": sec, "venue": venue, "why": v.why,
                                  "players": players, "rake_allowed": allowed,
                                  "reason": msg})
    return out


def reduce_outcome(name: str, partials: list[Any]) -> AuditResult:
    parts = [p for p in partials if isinstance(p, OutcomePartial)]
    result = reduce_partials(name, [p.part for p in parts])
    counts: dict[str, dict[str, int]] = {}
    points: dict[str, list[list[int]]] = {}
    notes: dict[str, int] = {}
    wrong: list[dict[str, Any]] = []
    for p in parts:
        for venue, per in p.counts.items():
            into = counts.setdefault(venue, {})
            for c, x in per.items():
                into[c] = into.get(c, 0) + x
        for venue, pts in p.points.items():
            keep = points.setdefault(venue, [])
            keep.extend([list(x) for x in pts[:MAX_POINTS - len(keep)]])
        for key, x in p.notes.items():
            notes[key] = notes.get(key, 0) + x
        wrong.extend(p.wrong[:MAX_WRONG - len(wrong)])
    classes: dict[str, int] = {}
    for per in counts.values():
        for c, x in per.items():
            classes[c] = classes.get(c, 0) + x
    details = result.details
    if not result.applicable:
        details["note"] = ", ".join(notes) or "not an imported run"
        return result
    details.update({
        "classes": {c: classes[c] for c in CLASSES if c in classes},
        "per_venue": {v: {c: per[c] for c in CLASSES if c in per}
                      for v, per in sorted(counts.items())},
        "rake_points": points, "wrong_payouts": wrong,
        "notes": notes, "topped_up": sum(p.topups for p in parts),
        "conventions": CONVENTIONS,
    })
    first = next((p for p in parts if p.part.applicable), None)
    if first is not None:
        details["money"], details["rake_schedule"] = first.money, first.schedule
    return result


SPEC = AuditSpec("outcome", outcome_map, reduce_outcome, description=(
    "imported hands: the operator's recorded payout (finishing stacks, winnings under each "
    "site's convention, stated rake) and the next hand's starting stacks against the rules' "
    "payout rebuilt from the contributions and shown cards; rake within the schedule"))
