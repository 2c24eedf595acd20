"""The operator's outcome against the rules' payout (exact; imported hand histories only).

An imported hand keeps two results: the rules' (the replay: ``won``, ``stacks_end``) and the
operator's claim (``op_finishing``, ``op_winnings``, ``op_rake``, and the later hands of the same
table session, whose starting stacks show what the operator actually carried over). This audit
never reads ``won``: it rebuilds the rules' gross payout of every seat from the primary facts
with the payouts audit's own pot builder and evaluator (``audits.payouts``: contributions,
folds, the shown cards; no rake), then compares the operator's claim with it, per hand one
class (``CLASSES``):

- ``exact``: the operator paid every seat what the rules pay (no rake);
- ``rake``: the operator kept a rake, taken from the winners only, within the manifest's
  ``rake_schedule`` (percent of the pot, capped; caps by players; no flop no drop; plus the
  rounding step); ``rake (no schedule: not checked)`` when the import gave no schedule (the
  amounts are summed per venue);
- ``convention:<name>``: the ``winnings`` record reads right only under its venue's way of
  writing it (``VENUE_READINGS``, docs/import.md "Sites' winnings conventions");
- ``top-up``: a later hand shows a player with more chips than the hand left him, and no winner
  is short (allowed; counted, with the amount): a top-up never hides a shortfall;
- ``not attributable``: a later hand shows a player gaining about what the winners are short
  of, while the hand's own record states that shortfall as its rake (a top-up or a re-buy equal
  to a rake), or, in a cash hand whose record states no rake, the shortfall is within the
  schedule (or there is none): no record proves a pot paid to the wrong player (counted, not
  certified);
- ``not recorded``: no outcome in the record and no later hand to observe it;
- ``not checked``: the rules' payout could not be rebuilt (the payouts audit fails the hand);
- ``ambiguous``: a venue the audit does not know, whose ``winnings`` read under two
  conventions that disagree on what the operator kept, and no later hand shows which (not
  certified, never a silent choice in the operator's favour);
- ``wrong payout`` (FAIL): the operator paid a player more than the rules did (or a player the
  rules did not pay), a player lost more than his bets, kept more than the schedule allows
  (more than the rounding step over it), kept more than its record states, carried over less
  than its record paid, or a player (a loser, or a split pot's other winner) gained between half
  and all of what the winners are short of (the pot moved to him: in a tournament hand, in a
  hand whose record states a rake other than that, or beyond the schedule).

A pot is won only by a hand that is shown: a seat that mucked, or whose showdown cards are not
in the record (``cards_unrecorded``) while another contender of the pot showed, wins nothing
from it; only a pot where no contender's cards are known has winners the record cannot prove
(checked as a whole: what its eligible seats got together). Seats with an unknown stack
(``stack_known`` false) are not compared by their stacks. The later-hand evidence follows each
player (``player_ids``) to his next appearance in the session with a known stack, through the
hands he sat out (his stack unchanged) and those where his stack is unknown (his change by the
rules: payout minus bets).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

import numpy as np
from numba import njit

from audits.evaluator import TABLE
from audits.io import AuditInputError, Batch, string_is, table_order
from audits.payouts import (
    MINE,
    POT_AMOUNT,
    POT_ELIGIBLE,
    POT_RAKE,
    award_layer,
    board_of,
    build_pots,
    check_listing,
    live_levels,
    proven_winners,
    score_hands,
)
from audits.result import MAX_EXAMPLES, AuditResult, Partial, reduce_partials
from audits.spec import AuditSpec

EXACT, RAKE, RAKE_UNCHECKED, TOP_UP, NOT_RECORDED, NOT_CHECKED, AMBIGUOUS, WRONG = (
    "exact", "rake", "rake (no schedule: not checked)", "top-up", "not recorded", "not checked",
    "ambiguous", "wrong payout")
UNATTRIBUTED = "not attributable"
# how sites write ``winnings`` (docs/import.md, "Sites' winnings conventions"): per name, what it
# means
CONVENTIONS = {
    "collected+uncalled": "the amount collected including the uncalled bet returned",
    "net": "the net profit: what the winner collected minus what he put in (losers 0 or "
           "minus their bets)",
    "zero-uncontested": "all zeros when one player is left uncontested (no claim: the next "
                        "hand shows the payout)",
    "zeros": "all zeros whatever happened (no claim: the next hand shows the payout)",
}
# The readings of ``winnings`` each venue's PHH files are held to (docs/import.md, "Sites' winnings
# conventions", from ../shared/realhands: wherever two readings fit and disagree, the next hand
# shows the first): tried in order, the first the record fits is THE reading (the schedule is
# applied to it, never a second reading in the operator's favour). ``standard``: what each
# player collected, after the rake, without his uncalled bet. A site's text export is read by
# ``sim.histories.sites.text`` into the standard whatever the venue (``TEXT_READINGS``). A venue not
# listed is tried under every reading (``ALL_READINGS``); where two fit and disagree on what the
# operator kept, the hand is ``ambiguous`` unless its next hand shows the payout.
VENUE_READINGS: dict[str, tuple[str, ...]] = {
    "Absolute Poker": ("standard", "collected+uncalled"),
    "Full Tilt Poker": ("standard", "zero-uncontested", "zeros"),
    "iPoker Network": ("zero-uncontested", "zeros"),
    "Ongame Network": ("standard", "zeros"),
    "PartyPoker": ("collected+uncalled",),
    "PokerStars": ("standard", "zero-uncontested"),
}
TEXT_READINGS = ("standard",)
ALL_READINGS = ("standard", "collected+uncalled", "net", "zero-uncontested", "zeros")
PHH_FORMATS = ("phh", "")  # a source the manifest does not list is taken as PHH
# a site's text export (the format detected from its content) is judged as that site's hands
FORMAT_VENUES = {"pokerstars": "PokerStars", "fulltilt": "Full Tilt Poker",
                 "ipoker": "iPoker Network", "ongame": "Ongame Network",
                 "partypoker": "PartyPoker", "absolute": "Absolute Poker"}
CLASSES = (EXACT, RAKE, RAKE_UNCHECKED, *(f"convention:{c}" for c in CONVENTIONS), TOP_UP,
           UNATTRIBUTED, NOT_RECORDED, NOT_CHECKED, AMBIGUOUS, WRONG)
CLASS_CODE = {c: i for i, c in enumerate(CLASSES)}
CLASS_KEY = "outcome_class"  # b.derived: each hand's class, an index into CLASSES (holdem export)
MAX_POINTS = 3000  # rake-vs-pot points kept per venue for the report's scatter
MAX_WRONG = 200  # wrong payouts listed in full in audit.json (all are counted)
UNKNOWN_VENUE = "(unknown venue)"
UNPROVEN_NOTE = ("pots contested by unrecorded cards only, none shown (amounts checked, winners "
                 "not)")


@njit(cache=True, _nrt=False)
def _award_in_units(work, p, winners, button, k, unit):  # pragma: no cover - compiled
    # pot p split equally among ``winners`` in whole ``unit``s (a tournament's chip), the odd
    # units one each to the first winners clockwise from the button (``award_layer``'s rule in
    # the hand's own unit)
    nw = 0
    for s in range(k):
        if winners & (1 << s):
            nw += 1
    amt = work[POT_AMOUNT, p] - work[POT_RAKE, p]
    share = (amt // (nw * unit)) * unit
    odd = amt - share * nw
    s = button
    for _ in range(k):
        s = s + 1 if s + 1 < k else 0
        if winners & (1 << s):
            work[MINE, s] += share
            if odd > 0:
                give = unit if odd >= unit else odd
                work[MINE, s] += give
                odd -= give


@njit(cache=True, _nrt=False)
def _rules_kernel(occ, contrib, folded, hole, button, a_seat, a_kind, a_add, act_off, sv,
                  sshown, soff, dv, doff, trim, unrec, table, unit, work, won, pot_total,
                  unproven, unproven_amt, status):  # pragma: no cover - compiled
    # per hand, the rules' gross payout per seat (the payouts audit's pot rebuild, no rake)
    # into won[i]; the pots' total; the seats of pots whose winners the record cannot prove
    # (contested with no contender's cards known: ``payouts.proven_winners``) and those pots'
    # amount; status[i] != 0 when the hand cannot be rebuilt (the payouts audit names why)
    k = occ.shape[1]
    for i in range(occ.shape[0]):
        nlive, live, dead = live_levels(work, i, occ, contrib, folded, trim, a_seat, a_kind,
                                         a_add, act_off, k)
        nb = doff[i + 1] - doff[i]
        b0, b1, b2, b3, b4, bkey, blanes = board_of(dv, doff[i], nb)
        code, _ = check_listing(work, i, False, nlive, live, nb, sv, sshown, soff, k)
        if code == 0:
            code, _ = score_hands(work, i, False, nlive, live, nb, hole, unrec, table, bkey,
                                   blanes, b0, b1, b2, b3, b4, k)
        if code:
            status[i] = code
            continue
        npots, code, _ = build_pots(work, i, occ, folded, dead, k)
        if code:
            status[i] = code
            continue
        for s in range(k):
            work[MINE, s] = 0
        total = 0
        for p in range(npots):
            work[POT_RAKE, p] = 0
            total += work[POT_AMOUNT, p]
            elig = work[POT_ELIGIBLE, p]
            winners, _, proven = proven_winners(work, p, nb, -1, unrec, i, k)
            if not proven or winners == 0:  # no contender's cards known: amounts only
                unproven[i] |= elig
                unproven_amt[i] += work[POT_AMOUNT, p]
                continue
            if unit[i] > 1:
                _award_in_units(work, p, winners, button[i], k, unit[i])
            else:
                award_layer(work, p, winners, button[i], k)
        pot_total[i] = total
        for s in range(k):
            won[i, s] = work[MINE, s]


def chip_units(b: Batch, exponent: int) -> np.ndarray:
    """Per hand, the smallest amount its pots are split in (minor units): a tournament hand
    (``format`` tournament, currency ``chips``: the reader's, from the site's tournament header)
    is in whole chips, 10^exponent minor units, when every stack and contribution of the hand is
    whole chips (a cash hand written as a tournament keeps its cents); every other hand 1: a
    cash hand whose record names its currency ``chips`` (a PHH ``currency``, the operator's free
    text) is split as cash, never given a whole chip's odd chip to move."""
    unit = np.ones(b.n, np.int64)
    if exponent == 0 or "currency" not in b.imp or "format" not in b.cols:
        return unit
    values = b.imp["currency_values"]
    chips = [j for j, v in enumerate(values) if str(v) == "chips"]
    if not chips:
        return unit
    u = 10 ** exponent
    sc = b.seat
    whole = ((sc["stacks_start"] % u == 0) & (sc["contributed"] % u == 0)).all(axis=1)
    rows = np.isin(b.imp["currency"], chips) & whole & string_is(b, "format", "tournament")
    unit[rows] = u
    return unit


def rules_payouts(b: Batch, exponent: int = 0) -> dict[str, np.ndarray]:
    """The rules' gross payout per seat (n, k), the pots' total, the unproven seats' mask and
    amount, and a per-hand status (0: rebuilt); a tournament hand's pots split in whole chips
    (``chip_units``)."""
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
                  chip_units(b, exponent), np.zeros((10, k + 1), np.int64), out["won"],
                  out["pot_total"], out["unproven"], out["unproven_amt"], out["status"])
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
    jackpot: int = 0  # a fixed drop per hand besides the rake (a bad-beat jackpot's)
    jackpot_min_pot: int = 0  # taken from pots of at least this much
    venues: tuple[tuple[str, Schedule], ...] = ()  # a venue's own schedule

    def for_venue(self, venue: str) -> Schedule:
        """The schedule of a venue's hands: its own, else this one."""
        for name, s in self.venues:
            if name == venue:
                return s
        return self

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
        r = r if cap is None else min(r, Fraction(cap))
        return r + (self.jackpot if self.jackpot and pot >= self.jackpot_min_pot else 0)

    def text(self, money: Money) -> str:
        cap = "no cap" if self.cap is None else f"cap {money.fmt(self.cap)}"
        jackpot = "" if not self.jackpot else (
            f", jackpot {money.fmt(self.jackpot)}"
            + (f" from pots of {money.fmt(self.jackpot_min_pot)}" if self.jackpot_min_pot else ""))
        return (f"{self.percent}% {cap}" + (", no flop no drop" if self.no_flop_no_drop else "")
                + f", step {money.fmt(self.step)}" + jackpot)


def _int(v: Any, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise AuditInputError(f"manifest.json: {where}: expected a whole number of minor units "
                              f">= 0, found {v!r}")
    return v


def parse_schedule(raw: Any, where: str = "rake_schedule") -> Schedule | None:
    """The manifest's ``rake_schedule`` (None when none was given); AuditInputError naming the
    field when it is not what ``holdem import`` writes."""
    if raw is None:
        return None
    if isinstance(raw, dict) and "venues" in raw and where == "rake_schedule":
        venues = raw["venues"]
        if not isinstance(venues, dict):
            raise AuditInputError("manifest.json: rake_schedule.venues: expected an object")
        top = parse_schedule({k: v for k, v in raw.items() if k != "venues"}, where)
        assert top is not None
        subs = []
        for name, sub in sorted(venues.items()):
            s = parse_schedule(sub, f"rake_schedule.venues[{name!r}]")
            if s is None:
                raise AuditInputError(f"manifest.json: rake_schedule.venues[{name!r}]: expected "
                                      "an object")
            subs.append((str(name), s))
        return replace(top, venues=tuple(subs))
    if not isinstance(raw, dict):
        raise AuditInputError(f"manifest.json: {where}: expected an object or null, "
                              f"found {raw!r}")
    try:
        pct = Fraction(Decimal(str(raw.get("percent"))))
    except (InvalidOperation, ValueError, TypeError):
        pct = Fraction(-1)
    if isinstance(raw.get("percent"), bool | float) or not 0 <= pct <= 100:
        raise AuditInputError(f"manifest.json: {where}.percent: expected a decimal text "
                              f"in 0..100, found {raw.get('percent')!r}")
    cap = None if raw.get("cap") is None else _int(raw["cap"], f"{where}.cap")
    by: list[tuple[int, int, int]] = []
    caps = raw.get("caps_by_players") or {}
    if not isinstance(caps, dict):
        raise AuditInputError(f"manifest.json: {where}.caps_by_players: expected an object")
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
            raise AuditInputError(f"manifest.json: {where}.caps_by_players: key {key!r}: "
                                  "expected players as N, N-M or N+") from None
        by.append((lo, hi, _int(v, f"{where}.caps_by_players[{key!r}]")))
    nfnd = raw.get("no_flop_no_drop", False)
    if not isinstance(nfnd, bool):
        raise AuditInputError(f"manifest.json: {where}.no_flop_no_drop: expected true or "
                              f"false, found {nfnd!r}")
    step = _int(raw.get("step", 1), f"{where}.step") or 1
    return Schedule(pct, cap, tuple(by), nfnd, step,
                    _int(raw.get("jackpot", 0), f"{where}.jackpot"),
                    _int(raw.get("jackpot_min_pot", 0), f"{where}.jackpot_min_pot"))


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


def _winnings_fits(h: Hand, win: list[int], names: tuple[str, ...], fin_take: int | None,
                   money: Money) -> tuple[list[tuple[str, dict[int, int], int]], str,
                                          dict[int, int]]:
    """The readings of ``win`` (in the order of ``names``) the record fits as a payout, the
    schedule aside: nobody paid more than the rules pay him, nobody losing more than his bets,
    and the same take as the finishing stacks when the hand has them. Returns them as (name,
    payout, take), the first misfit's reason and its payout."""
    fits: list[tuple[str, dict[int, int], int]] = []
    first, first_paid = "", {}
    for name in names:
        reading = _reading(name, win, h)
        if reading is None:
            continue
        read_as = "" if name == "standard" else f" (read as {name})"
        why, take, _ = _compare(h, reading, None, money)
        if not why and fin_take is not None and take != fin_take:
            why = (f"winnings and finishing_stacks disagree (kept {money.fmt(take)} against "
                   f"{money.fmt(fin_take)})")
        if why:
            if not first:
                first, first_paid = why + read_as, reading
            continue
        fits.append((name, reading, take))
    return fits, first, first_paid


def classify(h: Hand, fin: list[int] | None, win: list[int] | None, op_rake: int,
             later: dict[int, tuple[int, int]] | None, sched: Schedule | None, money: Money,
             op_pot: int = -1, readings: tuple[str, ...] = ALL_READINGS,
             cash: bool = True) -> Verdict:
    """One hand's class (``CLASSES``) from its record and the later hands of its session.

    ``later``: None when the hand is its session's last; else per seat, the stack its player's
    next appearance in the session (with a known stack) implies he left this hand with, and the
    slack of that chain (the rake the schedule allows on pots he won in between with an unknown
    stack). ``readings``: the ``winnings`` readings of the hand's venue and source
    (``VENUE_READINGS``); ``ALL_READINGS`` for a venue the audit does not know. ``op_pot``: the
    total pot the record states (-1 unstated: a pot other than the rules' is counted in the
    notes). ``cash``: a cash hand (a player may top up between hands; a tournament's may not)."""
    v = Verdict()
    if op_pot >= 0 and op_pot != h.pot:
        v.notes.append("stated total pot other than the rules' pot")
    evidence = False
    ambiguous = False
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
        zero = "zero-uncontested" if h.live == 1 else "zeros"
        if not any(win) and (any(h.won) or h.unproven_amt) and zero in readings:
            convention = zero  # no claim: the next hand decides
        else:
            fits, first, first_paid = _winnings_fits(
                h, win, tuple(n for n in readings if n not in ("zeros", "zero-uncontested")),
                None if fin is None else v.take, money)
            if not fits:
                v.why = "winnings: " + (first or "not readable under the venue's conventions")
                v.cls, v.operator = WRONG, first_paid
                v.allowed = None if sched is None else sched.allowed(h.pot, h.players, h.flop)
                return v
            if readings is ALL_READINGS and len({take for _, _, take in fits}) > 1:
                # a venue the audit does not know, read two ways that disagree on what the
                # operator kept: no claim (never the reading in its favour)
                ambiguous = True
            else:
                name, reading, _ = fits[0]
                why, take, allowed = _compare(h, reading, sched, money)
                if why:
                    v.why = "winnings: " + why + ("" if name == "standard"
                                                  else f" (read as {name})")
                    v.cls, v.operator, v.allowed = WRONG, reading, allowed
                    return v
                paid = reading if paid is None else paid
                if fin is None:
                    v.take, v.allowed = take, allowed
                evidence = True
                # named only where it reads otherwise than the standard
                convention = "" if _reading("standard", win, h) == reading else name
    if op_rake >= 0 and v.take is not None and v.take > op_rake:
        v.cls, v.why = WRONG, (f"kept {money.fmt(v.take)} but its record states a rake of "
                               f"{money.fmt(op_rake)}")
        return v
    if later is not None:
        observed: dict[int, int] = {}
        surplus: dict[int, int] = {}
        for s in h.seats():
            if not h.occ[s] or not h.known[s] or s not in later:
                continue
            stack, slack = later[s]
            got = (paid[s] if paid is not None and s in paid else h.won[s])
            end = h.start[s] - h.contrib[s] + got
            diff = stack - end
            if diff < 0 and slack:  # a rake he may have paid on a pot won in between
                diff = min(0, diff + slack)
            if (h.unproven >> s) & 1 and not (paid is not None and s in paid):
                observed[s] = diff  # what it got from pots the record cannot attribute
            elif diff > 0:
                surplus[s] = diff
                observed[s] = got
            elif paid is not None and s in paid:
                if diff < 0:
                    v.cls, v.operator = WRONG, {s: paid[s] + diff}
                    v.why = (f"next hand: player {h.pids[s]} (seat {s}) starts with "
                             f"{money.fmt(stack)}, less than the record left him "
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
        # a top-up never hides a shortfall: a player (a loser, or a winner of a split pot) who
        # gains between half and all of what the winners are short of is the pot paid to the
        # wrong player, whatever the schedule
        claim = observed if paid is None else paid
        short = sum(h.won[s] - x for s, x in claim.items()
                    if not (h.unproven >> s) & 1 and h.won[s] > x)
        moved = next((s for s, x in sorted(surplus.items()) if 0 < x <= short <= 2 * x), -1)
        if moved >= 0 and op_rake >= 0 and short == op_rake:
            # the record itself says where the winners' shortfall went (its stated rake): the
            # later gain is a change the record cannot attribute (a top-up, a re-buy), not a
            # pot proven paid to the wrong player
            v.cls, v.topup = UNATTRIBUTED, surplus[moved]
            v.why = (f"next hand: {money.fmt(surplus[moved])} appears as player "
                     f"{h.pids[moved]}'s (seat {moved}) top-up, while the record states a "
                     f"rake of {money.fmt(op_rake)}, all the winners are short of")
            return v
        if moved >= 0 and op_rake < 0 and cash:
            # the record states no rake (888, PartyPoker): the winners' shortfall may be the
            # site's rake and the gain a top-up; only a shortfall over the schedule is proven
            allowed = None if sched is None else sched.allowed(h.pot, h.players, h.flop)
            if sched is None or allowed is None or short <= allowed + sched.step:
                v.cls, v.topup = UNATTRIBUTED, surplus[moved]
                v.why = (f"next hand: {money.fmt(surplus[moved])} appears as player "
                         f"{h.pids[moved]}'s (seat {moved}) top-up while the winners are short "
                         f"of {money.fmt(short)}, and the record states no rake: an unstated "
                         "rake and a top-up, or the pot moved, the record cannot tell")
                return v
        if moved >= 0:
            x = surplus[moved]
            v.cls = WRONG
            v.allowed = None if sched is None else sched.allowed(h.pot, h.players, h.flop)
            v.operator = {**claim, moved: x}
            v.why = (f"next hand: {money.fmt(x)} of the {money.fmt(short)} missing from "
                     f"the winners appears as player {h.pids[moved]}'s (seat {moved}) top-up")
            return v
        if paid is None:
            winners = [s for s in h.seats() if h.won[s] > 0 or (h.unproven >> s) & 1]
            covered = all(s in observed for s in winners)
            if observed:
                why, take, allowed = _compare(h, observed, sched, money)
                if why:
                    v.cls, v.operator, v.allowed = WRONG, observed, allowed
                    v.why = f"next hand: {why}"
                    return v
                if covered or take:  # (a winner seen short: at least that was kept)
                    v.take, v.allowed, evidence = take, allowed, True
                if not covered:
                    v.notes.append("a winner left before the next hand")
        elif surplus:
            evidence = True
        if surplus and not v.take:
            v.cls = TOP_UP
            return v
    if convention in ("zeros", "zero-uncontested") and evidence:
        convention = ""
    if ambiguous and not evidence:
        v.cls = AMBIGUOUS
    elif convention:
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
    unchecked: dict[str, int] = field(default_factory=dict)  # venue: rake kept, not checked
    money: dict[str, Any] = field(default_factory=dict)  # {"exponent", "currency"}
    schedule: dict[str, Any] | None = None  # the schedule in words and numbers (the report's)


def _later_stacks(b: Batch, occ: list[list[bool]], known: list[list[bool]],
                  pids: list[list[int]], start: list[list[int]],
                  change: list[list[tuple[int, bool] | None]], slack: list[int]
                  ) -> list[dict[int, tuple[int, int]] | None]:
    """Per row: None for the last hand of its table session, else per seat the stack its
    player's NEXT APPEARANCE in the session (same ``table_id``, a later ``hand_no``, with a known
    stack) says he left the hand with, and the slack of that chain. The chain goes through the
    hands he was absent from (his stack unchanged) and those where his stack is unknown (his
    change there is ``change``: the rules' payout minus his bets, and whether he won a pot;
    ``None`` ends the chain: a pot whose winners the record cannot prove, or a hand not
    rebuilt); a pot he won there with an unknown stack adds its allowed rake to the slack
    (``slack`` of that row)."""
    order = table_order(b)
    tid = b.cols["table_id"][order].tolist()
    out: list[dict[int, tuple[int, int]] | None] = [None] * b.n
    ahead: dict[int, tuple[int, int]] = {}  # player -> (his stack at this point, slack)
    for q in range(len(order) - 1, -1, -1):
        i = int(order[q])
        if q + 1 == len(order) or tid[q + 1] != tid[q]:
            ahead = {}  # the session's last hand
        else:
            out[i] = {s: ahead[p] for s, p in enumerate(pids[i])
                      if occ[i][s] and p in ahead}
        for s, p in enumerate(pids[i]):
            if not occ[i][s]:
                continue
            c = change[i][s]
            if known[i][s]:
                ahead[p] = (start[i][s], 0)
            elif p in ahead and c is not None:
                stack, sl = ahead[p]
                ahead[p] = (stack - c[0], sl + (slack[i] if c[1] else 0))
            else:
                ahead.pop(p, None)
    return out


def _text(b: Batch, name: str, i: int) -> str:
    return str(b.imp[name + "_values"][int(b.imp[name][i])])


def outcome_map(b: Batch) -> OutcomePartial:
    if not b.imp:
        note = ("imported without the import columns (re-import with holdem import)"
                if b.context.get("imported") else "not an imported run")
        return OutcomePartial(Partial(hands=b.n, applicable=False), notes={note: b.n})
    sched = parse_schedule(b.context.get("rake_schedule"))
    money = parse_money(b.context.get("money"))
    r = rules_payouts(b, money.exponent)
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
    hid = b.cols["hand_id"].tolist()
    status = r["status"]
    unproven = r["unproven"].tolist()
    venues = [_text(b, "venue", i) or UNKNOWN_VENUE for i in range(b.n)]
    # the venue each hand is JUDGED by: the lab's mapping of its file (``--venue``), else a
    # site text export's detected format; never a PHH file's own venue text (free text the
    # operator writes), whose hands are read every way (``ALL_READINGS``: where two readings
    # disagree, ambiguous) under the schedule's top level
    formats = b.context.get("source_formats") or {}
    labs = b.context.get("source_venues") or {}
    judged: list[str | None] = []
    for i in range(b.n):
        src = _text(b, "source_file", i)
        fmt = formats.get(src, "") if isinstance(formats, dict) else ""
        lab = labs.get(src) if isinstance(labs, dict) else None
        judged.append(str(lab) if lab else FORMAT_VENUES.get(fmt))

    def schedule_of(i: int) -> Schedule | None:
        if sched is None:
            return None
        v = judged[i]
        return sched if v is None else sched.for_venue(v)

    # each seat's change in a hand by the rules (None: not provable), and the rake a schedule
    # allows on the hand (a chain through a pot won with an unknown stack may have paid it)
    change: list[list[tuple[int, bool] | None]] = [
        [None if status[i] or (unproven[i] >> s) & 1 else (won[i][s] - contrib[i][s],
                                                          won[i][s] > 0)
         for s in range(b.k)] for i in range(b.n)]
    slack = [0 if (si := schedule_of(i)) is None else int(
        si.allowed(int(r["pot_total"][i]), sum(occ[i]), nb[i] >= 3) + si.step)
        for i in range(b.n)]
    later = _later_stacks(b, occ, known, pids, start, change, slack)
    out = OutcomePartial(Partial(hands=b.n), money={"exponent": money.exponent,
                                                    "currency": money.currency},
                         schedule=None if sched is None else {
                             "text": sched.text(money), "percent": str(sched.percent),
                             "cap": sched.cap, "step": sched.step,
                             "caps_by_players": [list(x) for x in sched.caps_by_players],
                             "no_flop_no_drop": sched.no_flop_no_drop,
                             "venues": {name: {"text": s.text(money), "percent": str(s.percent),
                                               "cap": s.cap} for name, s in sched.venues}})
    hands: dict[int, Hand] = {}

    def hand(i: int) -> Hand:
        if i not in hands:
            hands[i] = Hand(occ[i], start[i], contrib[i], ret[i], won[i], known[i], pids[i],
                            int(r["pot_total"][i]), int(r["unproven"][i]),
                            int(r["unproven_amt"][i]), sum(occ[i]), nb[i] >= 3,
                            sum(1 for s in range(b.k) if occ[i][s] and not folded[i][s]))
        return hands[i]

    tourn = string_is(b, "format", "tournament") if "format" in b.cols else np.zeros(b.n, bool)
    classes = np.full(b.n, -1, np.int8)  # each hand's class (CLASSES index): b.derived
    for i in range(b.n):
        venue = venues[i]
        if status[i]:
            v = Verdict(cls=NOT_CHECKED)
        else:
            fin = fv[foff[i]:foff[i + 1]].tolist() if foff[i + 1] > foff[i] else None
            win = wv[woff[i]:woff[i + 1]].tolist() if woff[i + 1] > woff[i] else None
            fmt = formats.get(_text(b, "source_file", i), "") if isinstance(formats, dict) else ""
            lab = judged[i]
            # a PHH file the lab did not map: every reading tried, those that disagree
            # ambiguous (not certified), whatever venue the operator's text names
            readings = (VENUE_READINGS.get(lab, ALL_READINGS) if lab else ALL_READINGS) \
                if fmt in PHH_FORMATS else TEXT_READINGS
            v = classify(hand(i), fin, win, op_rake[i], later[i], schedule_of(i), money,
                         op_pot[i], readings, cash=not tourn[i])
            hands.pop(i, None)
        classes[i] = CLASS_CODE[v.cls]
        per = out.counts.setdefault(venue, {})
        per[v.cls] = per.get(v.cls, 0) + 1
        for note in v.notes:
            out.notes[note] = out.notes.get(note, 0) + 1
        if r["unproven"][i]:
            out.notes[UNPROVEN_NOTE] = out.notes.get(UNPROVEN_NOTE, 0) + 1
        if not all(known[i][s] for s in range(b.k) if occ[i][s]):
            key = "hands with an unknown stack (that seat's stacks not compared)"
            out.notes[key] = out.notes.get(key, 0) + 1
        out.topups += v.topup
        if v.cls == RAKE_UNCHECKED and v.take:
            out.unchecked[venue] = out.unchecked.get(venue, 0) + v.take
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
            out.part.failing.append((int(hid[i]), msg))
            if len(out.wrong) < MAX_WRONG:
                out.wrong.append({"hand_id": hid[i], "site_hand": site, "file": src,
                                  "section": sec, "venue": venue, "why": v.why,
                                  "players": players, "rake_allowed": allowed,
                                  "reason": msg})
    b.derived[CLASS_KEY] = classes
    return out


def reduce_outcome(name: str, partials: list[Any]) -> AuditResult:
    parts = [p for p in partials if isinstance(p, OutcomePartial)]
    result = reduce_partials(name, [p.part for p in parts])
    counts: dict[str, dict[str, int]] = {}
    points: dict[str, list[list[int]]] = {}
    notes: dict[str, int] = {}
    wrong: list[dict[str, Any]] = []
    unchecked: dict[str, int] = {}
    for p in parts:
        for venue, x in p.unchecked.items():
            unchecked[venue] = unchecked.get(venue, 0) + x
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
        "venue_readings": {v: list(x) for v, x in VENUE_READINGS.items()},
        # what the operator kept where no schedule was given (minor units): counted, not checked
        "rake_not_checked": dict(sorted(unchecked.items())),
    })
    first = next((p for p in parts if p.part.applicable), None)
    if first is not None:
        details["money"], details["rake_schedule"] = first.money, first.schedule
    return result


SPEC = AuditSpec("outcome", outcome_map, reduce_outcome, description=(
    "imported hands: the operator's recorded payout (finishing stacks, winnings under each "
    "site's convention, stated rake) and the next hand's starting stacks against the rules' "
    "payout rebuilt from the contributions and shown cards; rake within the schedule"))
