"""The ``stakes`` audit (exact): every hand's configuration and place in the run recomputed from
the run's spec (``audits.runspec``), never taken as logged.

For an import given a game file (``holdem import --game``) each hand's structure, blinds, ante
and bets against the game's (``audits.stakes_import``); without one the audit is not applicable
to imported hand histories (their configuration is their source's). For a simulated run (a
manifest with its spec), each hand of batch file ``log/<label>/batch-<b>.parquet``:

- its table is the spec's plan for that batch: ``n_seats`` and ``format`` (``batch_table``);
  ``hand_id`` in the batch's range of its structure's stream; ``run_id`` the spec's fingerprint;
  ``fault`` the spec's ``inject`` (null for a clean run);
- blinds, antes, bet sizes and rake are the spec's schedule (``RunFacts.blinds``,
  ``ante_mode``, ``bet_sizes``, ``rake_caps``, ``policies``), which a game file may set
  (docs/game.md: a cash ante, a rake cap in chips and by players dealt in, no-flop-no-drop,
  fixed-limit bets and raise cap, tournament levels (sb, bb, ante) and who antes, a bot mix);
  the built-in schedule: cash, ``level`` 0, the spec's
  blinds, no ante, ``rake_bps`` and ``rake_cap_bb`` big blinds of rake; tournament, ``level`` =
  ``hand_no // level_hands``, the blinds times the level's multiplier (``runspec.LEVEL_MULT``),
  one ante kind per table (every player from level 3, an eighth of the big blind, at least 1;
  or the big blind a big blind from level 4; classic bots: the big-blind ante only), no rake;
  ``min_bet`` = ``small_bet`` = the big blind, ``big_bet`` twice it, ``raise_cap`` 4,
  ``no_flop_no_drop`` true, ``ante_trimming`` false (the payouts and betting audits then check
  the chips against this configuration);
- the straddle (``audits.straddles``; docs/game.md): a cash game's straddle posted at the game's
  amount (or the straddler's chips left after its ante), in every hand of 3 or more players
  under ``always``; none in a game without one or at a tournament table; one a hand;
- buy-ins and rebuys: a table's first hand seats every seat with a buy-in (rebuys = stacks):
  cash within the population's range (``buy_in_min_bb``..``buy_in_bb`` big blinds; classic
  bots exactly ``buy_in_bb``), tournament the starting stack; later a cash rebuy ends within
  the range, tops up only a stack below the threshold (classic: half the buy-in; real: the
  minimum buy-in) and a new player's rebuy is his stack; a tournament rebuys only by the
  game's rule (``rebuys``: its chips, before a hand of a level below until_level, by a player
  whose previous stacks_end is at most at_or_below, at most max a player; ``add_on``: its
  chips, once, at the table's first hand of level at_level or above, by a player with chips),
  and never without one;
- levels by time (``level_seconds``): each hand's level recomputed from the logged player
  actions of its table's earlier hands (``time_levels``);
- with payouts, each finished tournament table's places and prizes (``audits.tournaments``)
  are listed in the details;
- hands per table: a cash table plays at most ``hands_per_table`` hands and only the batch's
  last table may stop short without a reason (heads-up with a stack above ``leave_above_bb``); a
  tournament table ends when one player has chips, and not before;
- numbering: the tables of a batch run 0, 1, 2, ... and its hand ids follow the tables and
  their hand numbers; ``player_ids`` by the documented rule (a new id ``16 * hand_id + seat``
  at a table's first hand and where the seat was empty in the table's previous hand, else the
  previous hand's id; -1 for an empty seat); ``policy`` one of the population's bots, the same
  for a player's every hand, -1 for an empty seat.

What it cannot check: the bots' decisions and the table's random draws (which bot a seat gets,
who leaves, the buy-in drawn within its range): checked for their rules, not re-drawn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit

from audits.io import Batch, string_is, table_order
from audits.result import MAX_EXAMPLES, AuditResult, Partial, partial_from_codes, reduce_partials
from audits.runfolder import batch_index, batch_label
from audits.runspec import (
    ANTE_BIG_BLIND,
    ANTE_UNIFORM,
    BB_ANTE_FROM_LEVEL,
    STRUCT_SHIFT,
    STRUCTURE_CODES,
    UNIFORM_ANTE_FROM_LEVEL,
    RunFacts,
)
from audits.spec import AuditSpec
from audits.stakes_import import import_stakes_map
from audits.straddles import straddles
from audits.tournaments import MAX_LISTED, table_results

MESSAGES = {
    1: "n_seats is not the spec's for this batch: {logged} seats, the rules give {aux}",
    2: "format is not the spec's for this batch: the log says {format}, the rules give "
       "{spec_format}",
    3: "hand_id is not in this batch's range of the spec: hand_id {logged}, the rules give "
       "{lo}..{expected} (its structure's stream from index {aux})",
    4: "run_id is not the spec's fingerprint: the log says {run_id}, the rules give {digest}",
    5: "fault column differs from the spec's inject: the log says {fault}, the rules give "
       "{inject}",
    6: "level is not the spec's: level {logged}, the rules give {expected} (hand_no // "
       "level_hands, or by time the table's elapsed seconds before the hand // "
       "level_seconds; 0 for cash)",
    7: "small blind is not the spec's schedule: small blind {logged}, the rules give {expected}",
    8: "big blind is not the spec's schedule: big blind {logged}, the rules give {expected}",
    9: "ante or ante_mode is not the spec's schedule for this level and table: ante {logged} "
       "(mode {logged2}), the rules give {expected} (mode {aux})",
    10: "bet sizes (min_bet, small_bet, big_bet, raise_cap) are not the spec's: the log says "
        "{logged}, {small_bet}, {big_bet}, {raise_cap}, the rules give {aux}, {want_small}, "
        "{want_big}, {want_cap}",
    11: "rake_bps is not the spec's: {logged}, the rules give {aux}",
    12: "rake_cap is not the spec's: {logged} chips, the rules give {aux}",
    13: "no_flop_no_drop or ante_trimming is not the simulator's: the log says {logged}, "
        "{logged2}, the rules give {expected}, 0 (1 true, 0 false)",
    14: "a table's first hand does not seat seat {aux} with a buy-in: stacks_start {logged}, "
        "rebuys {logged2}, the rules give every seat occupied and rebuys = stacks_start",
    15: "buy-in of seat {aux} outside the population's range: {logged}, the rules give "
        "{lo}..{expected} (spec buy_in_min_bb..buy_in_bb, or the tournament stack)",
    16: "rebuy of seat {aux} against the rules: rebuy {logged}, the rules give {expected} (a "
        "tournament rebuy or add-on only within the game's rule: its levels, count a player, "
        "threshold and chips; a cash top-up only below the threshold; a new player's stack; "
        "never negative)",
    17: "hand_no beyond the spec's hands_per_table: hand_no {logged}, the rules give at most "
        "{expected}",
    18: "the table played on after it had to end: its previous hand left {logged} players with "
        "chips, the rules end it (one player with chips in a tournament; heads-up with a stack "
        "above leave_above_bb in cash)",
    19: "a table other than the batch's last ended without a reason after {aux} hands (cash: "
        "hands_per_table; tournament: one player left)",
    20: "player_ids of seat {aux} are not by the documented rule: {logged}, the rules give "
        "{expected} (16 * hand_id + seat at the player's first hand, the same id while the "
        "seat stays occupied, -1 empty)",
    21: "policy of seat {aux} is not by the rule: {logged}, the rules give {expected} (-2: one "
        "of the population's bots; the same for a player's every hand, -1 empty)",
    22: "table and hand numbers do not run 0, 1, 2, ... in hand-id order: table {aux}, hand_no "
        "{logged}, the rules give hand_no {expected} of a table numbered on from the previous",
    23: "the batch's tables are not numbered from 0: its first table is {aux}, the rules give 0",
    24: "the hand is in a batch file of no batch of the spec's plan: the rules give the plan's "
        "batch files only",
    26: "the batch's tables do not run on across its chunks: table {aux} follows table "
        "{logged}, the rules give table {expected}",
    25: "ante kind is not one per table by the built-in schedule at this level: ante {logged} "
        "(mode {logged2}), the rules give one kind a table, from its level on",
    27: "straddle is not the game's: seat {aux} straddled {logged}, the rules give {expected} "
        "(the game's straddle, or the seat's chips left after its ante when fewer; 0: none: "
        "no straddle in this game or format, at most one a hand)",
}


@njit(cache=True, _nrt=False)
def _live(occ, end, i, k, leave_above):
    """(seats of hand ``i`` left with chips, whether one holds more than ``leave_above``)."""
    live = 0
    rich = False
    for s in range(k):
        if occ[i, s] and end[i, s] > 0:
            live += 1
            if end[i, s] > leave_above:
                rich = True
    return live, rich


@njit(cache=True, _nrt=False)
def _tables(order, table_id, hand_id, hand_no, tourn, kinds_rule, occ, start, rebuys, end, pids,
            has_pids, policy, pol_mask, ante_mode, level, ante, bb_col, lo, hi, tstack,
            topup_below, hpt, leave_above, kinds_mask, rule, rb_n, codes, aux, t_num, t_last,
            t_hands, t_ok):  # pragma: no cover
    """The checks across the hands of each table, in table order (a chunk holds whole tables).
    Fills codes/aux per hand and, per table, its number, last hand's row, hands and whether it
    ended by a rule (``t_ok``); returns the number of tables."""
    k = occ.shape[1]
    nt = 0
    prev = -1
    pos = 0
    kinds = kinds_mask
    rb_max, rb_until, rb_below, rb_chips, ao_level, ao_chips = (rule[0], rule[1], rule[2],
                                                                rule[3], rule[4], rule[5])
    ao_done = False
    for q in range(order.shape[0]):
        i = order[q]
        t = table_id[i]
        new = prev < 0 or t != table_id[prev]
        if new:
            if prev >= 0:
                if (t & 0xFFFFF) != (table_id[prev] & 0xFFFFF) + 1 and codes[i] == 0:
                    codes[i] = 22
                    aux[i] = t & 0xFFFFF
            t_num[nt] = t & 0xFFFFF
            t_hands[nt] = 0
            nt += 1
            pos = 0
            kinds = kinds_mask
            ao_done = False
            for s in range(k):
                rb_n[s] = 0
        if prev >= 0 and hand_id[i] != hand_id[prev] + 1 and codes[i] == 0:
            codes[i] = 22
            aux[i] = t & 0xFFFFF
        if hand_no[i] != pos and codes[i] == 0:
            codes[i] = 22
            aux[i] = t & 0xFFFFF
        # ante kind (the built-in schedule): one per table, consistent with every hand's level
        if kinds_rule:
            m = ante_mode[i]
            lv = level[i]
            allowed = 0
            if m == 0:
                if lv < UNIFORM_ANTE_FROM_LEVEL:
                    allowed |= 1 << ANTE_UNIFORM
                if lv < BB_ANTE_FROM_LEVEL:
                    allowed |= 1 << ANTE_BIG_BLIND
            elif m == ANTE_UNIFORM and lv >= UNIFORM_ANTE_FROM_LEVEL \
                    and ante[i] == max(1, bb_col[i] // 8):
                allowed = 1 << ANTE_UNIFORM
            elif m == ANTE_BIG_BLIND and lv >= BB_ANTE_FROM_LEVEL and ante[i] == bb_col[i]:
                allowed = 1 << ANTE_BIG_BLIND
            if kinds & allowed == 0:
                if codes[i] == 0:
                    codes[i] = 25
                    aux[i] = m
            else:
                kinds &= allowed
        if not tourn and hand_no[i] >= hpt and codes[i] == 0:
            codes[i] = 17
            aux[i] = hpt
        if pos == 0:
            for s in range(k):
                if codes[i] == 0 and (not occ[i, s] or rebuys[i, s] != start[i, s]):
                    codes[i] = 14
                    aux[i] = s
                elif codes[i] == 0 and ((tourn and start[i, s] != tstack) or (
                        not tourn and not lo <= start[i, s] <= hi)):
                    codes[i] = 15
                    aux[i] = s
        else:
            # the table had to end after its previous hand? (a busted tournament player who
            # rebuys by the game's rule keeps it going: checked below)
            live, rich = _live(occ, end, prev, k, leave_above)
            for s in range(k):
                if tourn and rebuys[i, s] > 0 and occ[prev, s] and end[prev, s] == 0:
                    live += 1
            if codes[i] == 0 and ((tourn and live < 2) or (
                    not tourn and leave_above > 0 and live <= 2 and rich)):
                codes[i] = 18
            # the add-on is offered before the table's first hand at its level or above
            ao_hand = ao_chips > 0 and not ao_done and level[i] >= ao_level
            if ao_hand:
                ao_done = True
            for s in range(k):
                r = rebuys[i, s]
                if tourn and r > 0 and occ[i, s] and occ[prev, s]:
                    # the game's re-buy (in its levels, at or below its threshold, its chips,
                    # at most max a player) or add-on (once, a player still in, its chips)
                    if rb_max > 0 and level[i] < rb_until and r == rb_chips \
                            and end[prev, s] <= rb_below and rb_n[s] < rb_max:
                        rb_n[s] += 1
                        continue
                    if ao_hand and r == ao_chips and end[prev, s] > 0:
                        continue
                    if codes[i] == 0:
                        codes[i] = 16
                        aux[i] = s
                    continue
                bad = r < 0 or (r > 0 and (tourn or not occ[i, s]))
                if not bad and occ[i, s] and not occ[prev, s] and r != start[i, s]:
                    bad = True  # a new player's rebuy is his stack
                if not bad and r > 0 and occ[prev, s] and 0 < end[prev, s] \
                        and end[prev, s] >= topup_below:
                    bad = True  # a top-up of a stack not below the threshold
                if bad and codes[i] == 0:
                    codes[i] = 16
                    aux[i] = s
                elif r > 0 and not tourn and not lo <= start[i, s] <= hi and codes[i] == 0:
                    codes[i] = 15
                    aux[i] = s
        for s in range(k):
            o = occ[i, s]
            cont = pos > 0 and occ[prev, s]
            if has_pids:
                want = -1
                if o:
                    want = pids[prev, s] if cont else 16 * hand_id[i] + s
                if pids[i, s] != want and codes[i] == 0:
                    codes[i] = 20
                    aux[i] = s
            p = policy[i, s]
            okp = p == -1 if not o else (0 <= p < 62 and (pol_mask >> p) & 1 == 1
                                         and (not cont or p == policy[prev, s]))
            if not okp and codes[i] == 0:
                codes[i] = 21
                aux[i] = s
        t_last[nt - 1] = i
        t_hands[nt - 1] += 1
        pos += 1
        prev = i
    for j in range(nt):
        i = t_last[j]
        live, rich = _live(occ, end, i, k, leave_above)
        if tourn:
            t_ok[j] = live < 2
        else:
            t_ok[j] = t_hands[j] == hpt or (leave_above > 0 and live <= 2 and rich)
    return nt


PLAYER_ACTIONS = (6, 7, 8, 9, 10)  # fold, check, call, bet, raise (docs/log-schema.md)


def time_levels(b: Batch, order: np.ndarray, level_seconds: int, per_hand: int,
                per_action: int) -> np.ndarray:
    """Each hand's level under levels by time, from the log alone: a hand lasts ``per_hand``
    + ``per_action`` x its player actions (fold, check, call, bet, raise in ``actions``); its
    level is the seconds its table's earlier hands lasted (in table order, a chunk holding
    whole tables) // ``level_seconds``."""
    kind = b.act["kind"]
    is_player = np.isin(kind, PLAYER_ACTIONS).astype(np.int64)
    cum = np.zeros(len(kind) + 1, np.int64)
    np.cumsum(is_player, out=cum[1:])
    actions = cum[b.act_off[1:]] - cum[b.act_off[:-1]]
    secs = (per_hand + per_action * actions)[order]
    tid = b.cols["table_id"][order]
    total = np.cumsum(secs)
    before = total - secs  # seconds of every earlier hand in this order
    first = np.ones(len(order), np.bool_)
    first[1:] = tid[1:] != tid[:-1]
    start = np.maximum.accumulate(np.where(first, np.arange(len(order)), 0))
    elapsed = before - before[start]  # of the table's earlier hands only
    out = np.empty(len(order), np.int64)
    out[order] = elapsed // level_seconds
    return out


@dataclass
class StakesPartial:
    """One chunk: the per-hand checks, and for the checks across chunks of a batch its block
    of tables (label, batch, first and last table number, first and last hand id in table
    order) and the tables that did not end by a rule (table number, last hand id, hands)."""

    part: Partial
    blocks: list[tuple[str, int, int, int, int, int]] = field(default_factory=list)
    open_tables: list[tuple[str, int, int, int, int]] = field(default_factory=list)
    # tournament places and prizes (a game with payouts: audits.tournaments), by table id
    tournaments: list[dict[str, Any]] = field(default_factory=list)
    unfinished: int = 0


def _first(codes: np.ndarray, aux: np.ndarray, bad: np.ndarray, code: int,
           value: np.ndarray | int = 0, why: _Why | None = None,
           logged: np.ndarray | int | None = None,
           expected: np.ndarray | int | None = None) -> None:
    """Code ``code`` (aux ``value``) for the rows in ``bad`` that have no code yet; with
    ``why``, what the log says (``logged``) and what the rules give (``expected``) there."""
    take = bad & (codes == 0)
    if not take.any():
        return
    codes[take] = code
    aux[take] = value[take] if isinstance(value, np.ndarray) else value
    if why is not None:
        why.ensure()
        if logged is not None:
            why.logged[take] = logged[take] if isinstance(logged, np.ndarray) else logged
        if expected is not None:
            why.expected[take] = expected[take] if isinstance(expected, np.ndarray) else expected


class _Why:
    """A batch's failing hands' values: what the log says and what the rules give (the
    vectorized checks fill them as they fail a row, ``explain`` the table checks' after).
    Allocated at the first failure: a clean batch pays nothing."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.logged = self.expected = self.logged2 = self.lo = np.zeros(0, np.int64)

    def ensure(self) -> None:
        if len(self.logged) != self.n:
            self.logged, self.expected, self.logged2, self.lo = (
                np.zeros(self.n, np.int64) for _ in range(4))

    def explain(self, b: Batch, codes: np.ndarray, aux: np.ndarray, tourn: bool,
                facts: RunFacts, hid: np.ndarray) -> None:
        """The values of the checks across a table's hands (codes 14 to 18, 20 to 22, 25), for
        the failing rows only."""
        self.ensure()
        bad = np.flatnonzero((codes >= 14) & (codes != 19) & (codes != 23) & (codes != 24))
        if not len(bad):
            return
        sc, c = b.seat, b.cols
        order = table_order(b)
        prev = np.full(b.n, -1, np.int64)
        place = np.zeros(b.n, np.int64)
        same = c["table_id"][order[1:]] == c["table_id"][order[:-1]]
        prev[order[1:][same]] = order[:-1][same]
        for q in range(1, len(order)):
            if same[q - 1]:
                place[order[q]] = place[order[q - 1]] + 1
        lo, hi = facts.buy_in_range()
        for i in bad:
            code, s, h = int(codes[i]), int(aux[i]), int(prev[i])
            occ = bool(sc["occupied"][i, s]) if 0 <= s < b.k else False
            cont = h >= 0 and occ and bool(sc["occupied"][h, s])
            if code == 14:
                self.logged[i], self.logged2[i] = sc["stacks_start"][i, s], sc["rebuys"][i, s]
            elif code == 15:
                self.logged[i] = sc["stacks_start"][i, s]
                self.lo[i], self.expected[i] = ((facts.tournament_stack(),) * 2 if tourn
                                                else (lo, hi))
            elif code == 16:
                self.logged[i] = sc["rebuys"][i, s]
                self.expected[i] = sc["stacks_start"][i, s] if occ and not cont else 0
            elif code == 17:
                self.logged[i] = c["hand_no"][i]
                self.expected[i] = facts.spec["hands_per_table"] - 1
            elif code == 18 and h >= 0:
                self.logged[i] = int(((sc["stacks_end"][h] > 0) & sc["occupied"][h]).sum())
            elif code == 20:
                self.logged[i] = sc["player_ids"][i, s]
                self.expected[i] = (-1 if not occ else sc["player_ids"][h, s] if cont
                                    else 16 * int(hid[i]) + s)
            elif code == 21:
                self.logged[i] = sc["policy"][i, s]
                self.expected[i] = -1 if not occ else sc["policy"][h, s] if cont else -2
            elif code == 22:
                self.logged[i], self.expected[i] = c["hand_no"][i], place[i]
            elif code == 25:
                self.logged[i], self.logged2[i] = c["ante"][i], c["ante_mode"][i]


def _texts(b: Batch, name: str, rows: np.ndarray) -> np.ndarray:
    """The string column ``name`` at ``rows`` (elsewhere empty), as a message's values."""
    out = np.full(b.n, "", dtype=object)
    if len(rows):
        values = list(b.cols[f"{name}_values"]) + ["null"]
        idx = b.cols[name]
        if idx.dtype.kind == "f":
            idx = np.where(np.isnan(idx), len(values) - 1, idx)
        out[rows] = [str(values[int(j)]) for j in idx[rows]]
    return out


def _string_matches(b: Batch, name: str, value: str | None) -> np.ndarray:
    """Per row: the string column equals ``value`` (None: is null)."""
    codes = b.cols[name]
    if value is None:
        return np.isnan(codes) if codes.dtype.kind == "f" else np.zeros(b.n, np.bool_)
    return string_is(b, name, value)


def stakes_map(b: Batch) -> StakesPartial:
    facts: RunFacts | None = b.context.get("facts")
    if facts is None:
        game = b.context.get("game")
        if b.context.get("imported") and isinstance(game, dict):
            return StakesPartial(import_stakes_map(b, game))  # ``holdem import --game``
        return StakesPartial(Partial(hands=b.n, applicable=False))
    c = b.cols
    hid = c["hand_id"]
    codes = np.zeros(b.n, np.int32)
    aux = np.zeros(b.n, np.int64)
    why = _Why(b.n)
    label, batch = batch_label(b.path), batch_index(b.path)
    if label not in STRUCTURE_CODES or batch is None or not facts.in_plan(label, batch):
        codes[:] = 24
        return StakesPartial(partial_from_codes(hid, codes, aux, MESSAGES))
    seats, fmt = facts.batch_table(label, batch)
    tourn = fmt == "tournament"
    s = facts.spec
    _first(codes, aux, np.full(b.n, b.k != seats), 1, seats, why, b.k)
    _first(codes, aux, ~string_is(b, "format", fmt), 2)
    first = batch * s["batch_size"]
    index = hid & ((1 << STRUCT_SHIFT) - 1)
    base = STRUCTURE_CODES[label] << STRUCT_SHIFT
    _first(codes, aux, ((hid >> STRUCT_SHIFT) != STRUCTURE_CODES[label]) | (index < first)
           | (index >= first + facts.batch_hands(batch)), 3, first, why, hid,
           base + first + facts.batch_hands(batch) - 1)
    if why.n and len(why.lo):
        why.lo[codes == 3] = base + first
    _first(codes, aux, ~string_is(b, "run_id", facts.digest), 4)
    _first(codes, aux, ~_string_matches(b, "fault", s["inject"]), 5)
    hand_no = c["hand_no"].astype(np.int64)
    clock = facts.level_clock() if tourn else None
    lv, sb, bb, level_ante = facts.blinds(
        fmt, hand_no, None if clock is None else time_levels(b, table_order(b), *clock))
    _first(codes, aux, c["level"] != lv, 6, lv, why, c["level"], lv)
    _first(codes, aux, c["small_blind"] != sb, 7, sb, why, c["small_blind"], sb)
    _first(codes, aux, c["big_blind"] != bb, 8, bb, why, c["big_blind"], bb)
    ante_mode = facts.ante_mode(fmt)
    if ante_mode >= 0:  # the game names the ante and who posts it
        want_mode = np.where(level_ante > 0, ante_mode, 0)
        _first(codes, aux, (c["ante"] != level_ante) | (c["ante_mode"] != want_mode), 9,
               want_mode, why, c["ante"], level_ante)
    elif not tourn:
        _first(codes, aux, (c["ante"] != 0) | (c["ante_mode"] != 0), 9, 0, why, c["ante"], 0)
    else:
        _first(codes, aux, (c["ante_mode"] == 0) & (c["ante"] != 0), 9, 0, why, c["ante"], 0)
    if len(why.logged2):
        why.logged2[codes == 9] = c["ante_mode"][codes == 9]
    small_bet, big_bet, raise_cap = facts.bet_sizes(fmt, bb)
    _first(codes, aux, (c["min_bet"] != bb) | (c["small_bet"] != small_bet)
           | (c["big_bet"] != big_bet) | (c["raise_cap"] != raise_cap), 10, bb, why,
           c["min_bet"])
    straddle, always = facts.straddle(fmt)
    posted, want, st_seat = straddles(b, straddle, always)
    _first(codes, aux, posted != want, 27, st_seat, why, posted, want)
    rake_bps, _ = facts.rake(fmt)
    players = b.seat["occupied"].sum(axis=1).astype(np.int64)
    rake_cap = facts.rake_caps(fmt, players)
    _first(codes, aux, c["rake_bps"] != rake_bps, 11, rake_bps, why, c["rake_bps"])
    _first(codes, aux, c["rake_cap"] != rake_cap, 12, rake_cap, why, c["rake_cap"])
    nfnd = s["no_flop_no_drop"]
    _first(codes, aux, (c["no_flop_no_drop"].astype(np.bool_) != nfnd)
           | c["ante_trimming"].astype(np.bool_), 13, 0, why,
           c["no_flop_no_drop"].astype(np.int64), int(bool(nfnd)))
    if len(why.logged2):
        why.logged2[codes == 13] = c["ante_trimming"][codes == 13]
    order = table_order(b)
    n = b.n
    t_num, t_last = np.zeros(n, np.int64), np.zeros(n, np.int64)
    t_hands, t_ok = np.zeros(n, np.int64), np.zeros(n, np.bool_)
    has_pids = "player_ids" in b.seat
    pids = b.seat["player_ids"] if has_pids else np.zeros((1, b.k), np.int64)
    lo, hi = facts.buy_in_range()
    pol_mask = sum(1 << p for p in facts.policies())
    kinds_mask = sum(1 << kind for kind in facts.ante_kinds())
    nt = _tables(order, c["table_id"], hid, hand_no, tourn, tourn and ante_mode < 0,
                 b.seat["occupied"],
                 b.seat["stacks_start"], b.seat["rebuys"], b.seat["stacks_end"], pids, has_pids,
                 b.seat["policy"].astype(np.int64), pol_mask, c["ante_mode"].astype(np.int64),
                 c["level"].astype(np.int64), c["ante"], c["big_blind"], lo, hi,
                 facts.tournament_stack(), facts.topup_below(), s["hands_per_table"],
                 s["leave_above_bb"] * s["big_blind"], kinds_mask,
                 np.asarray(facts.rebuy_rule(fmt), np.int64), np.zeros(b.k, np.int64), codes,
                 aux, t_num, t_last, t_hands, t_ok)
    values: dict[str, np.ndarray] = {}
    if codes.any():  # the failing hands' values (nothing is built for a clean batch)
        why.explain(b, codes, aux, tourn, facts, hid)
        n_ = np.zeros(b.n, np.int64)
        values = {"logged2": why.logged2, "lo": why.lo, "small_bet": c["small_bet"],
                  "big_bet": c["big_bet"], "raise_cap": c["raise_cap"],
                  "want_small": n_ + small_bet, "want_big": n_ + big_bet,
                  "want_cap": n_ + raise_cap,
                  **{key: _texts(b, key, np.flatnonzero(codes == code))
                     for key, code in (("format", 2), ("run_id", 4), ("fault", 5))},
                  "spec_format": np.full(b.n, fmt, dtype=object),
                  "digest": np.full(b.n, facts.digest, dtype=object),
                  "inject": np.full(b.n, str(s["inject"] or "null"), dtype=object)}
    part = partial_from_codes(hid, codes, aux, MESSAGES,
                              logged=why.logged if len(why.logged) else None,
                              expected=why.expected if len(why.expected) else None,
                              values=values)
    if not has_pids:
        part.totals = {"player_ids_absent": n}
    out = StakesPartial(part)
    if tourn and s["payouts"] is not None:
        _tournaments(out, b, order, facts)
    if nt:
        out.blocks.append((label, batch, int(t_num[0]), int(t_num[nt - 1]), int(hid[order[0]]),
                           int(hid[order[-1]])))
        for j in np.flatnonzero(~t_ok[:nt]):
            out.open_tables.append((label, batch, int(t_num[j]), int(hid[t_last[j]]),
                                    int(t_hands[j])))
    return out


def _tournaments(out: StakesPartial, b: Batch, order: np.ndarray, facts: RunFacts) -> None:
    """Each tournament table's places and prizes (``audits.tournaments``) into ``out``."""
    tid = b.cols["table_id"][order]
    cuts = np.flatnonzero(tid[1:] != tid[:-1]) + 1
    sc = b.seat
    pids = sc.get("player_ids")
    for rows in np.split(order, cuts):
        res = table_results(sc["occupied"][rows], sc["stacks_start"][rows],
                            sc["stacks_end"][rows], sc["rebuys"][rows],
                            None if pids is None else pids[rows], sc["policy"][rows],
                            facts["tournament_buy_in"], list(facts["payouts"]),
                            facts.policy_names())
        if res is None:
            out.unfinished += 1
        else:
            out.tournaments.append({"table_id": int(b.cols["table_id"][rows[0]]),
                                    "hands": len(rows), **res})


def reduce_stakes(name: str, partials: list[Any]) -> AuditResult:
    """The chunks' per-hand checks, and per batch: its blocks of tables in table order from
    table 0, one contiguous run of hand ids; only its last table may end without a reason."""
    parts = [p for p in partials if isinstance(p, StakesPartial)]
    extra = Partial(hands=0)

    def bad(hand: int, code: int, value: int, logged: int = 0, expected: int = 0) -> None:
        extra.failures += 1
        reason = MESSAGES[code].split(":")[0]
        extra.reasons[reason] = extra.reasons.get(reason, 0) + 1
        text = MESSAGES[code].format(aux=value, logged=logged, expected=expected)
        if len(extra.examples) < MAX_EXAMPLES:
            extra.examples.append((hand, text))
        extra.failing.append((hand, text))

    blocks: dict[tuple[str, int], list[tuple[int, int, int, int]]] = {}
    for p in parts:
        for label, batch, t0, t1, h0, h1 in p.blocks:
            blocks.setdefault((label, batch), []).append((t0, t1, h0, h1))
    last_table: dict[tuple[str, int], int] = {}
    for key in sorted(blocks):
        bl = sorted(blocks[key])
        if bl[0][0] != 0:
            bad(bl[0][2], 23, bl[0][0])
        for a, b in zip(bl, bl[1:], strict=False):
            if b[0] != a[1] + 1 or b[2] != a[3] + 1:
                bad(b[2], 26, b[0], a[1], a[1] + 1)
        last_table[key] = bl[-1][1]
    for p in parts:
        for label, batch, t, last_hand, hands in p.open_tables:
            if last_table.get((label, batch)) != t:
                bad(last_hand, 19, hands)
    extra.applicable = extra.failures > 0
    result = reduce_partials(name, [extra] + [p.part for p in parts])
    tables = sorted((t for p in parts for t in p.tournaments), key=lambda t: t["table_id"])
    unfinished = sum(p.unfinished for p in parts)
    if tables or unfinished:
        result.details["tournaments"] = {
            "finished": len(tables), "unfinished": unfinished,
            "prize_pools": sum(t["prize_pool"] for t in tables),
            "note": ("places and prizes derived from the log (audits/tournaments.py): "
                     "elimination order, ties by the stack at the hand's start; a table that "
                     "stops with its batch before one player holds every chip has none"),
            "tables": tables[:MAX_LISTED]}
    if not result.applicable:
        result.details["note"] = ("no simulate spec and no game file (imported hand histories "
                                  "without --game, or no manifest): each hand's configuration "
                                  "is taken as logged")
    elif result.details.get("totals", {}).get("player_ids_absent"):
        result.details["note"] = "player_ids absent (a schema 2 log): not checked"
    return result


SPEC = AuditSpec("stakes", stakes_map, reduce_stakes, description=(
    "each hand against the run's spec: its batch's seats and format, hand ids, blinds, antes, "
    "bet sizes, rake rate and cap per the schedule (tournament levels), buy-ins and rebuys "
    "within the population's range, hands per table and why each table ended, tables "
    "numbered from 0, player_ids and bots by their rules"))
