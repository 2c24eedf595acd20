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
- buy-ins and rebuys: a table's first hand seats every seat with a buy-in (rebuys = stacks):
  cash within the population's range (``buy_in_min_bb``..``buy_in_bb`` big blinds; classic
  bots exactly ``buy_in_bb``), tournament the starting stack; later a cash rebuy ends within
  the range, tops up only a stack below the threshold (classic: half the buy-in; real: the
  minimum buy-in) and a new player's rebuy is his stack; a tournament never rebuys;
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

MESSAGES = {
    1: "n_seats is not the spec's for this batch ({aux} seats)",
    2: "format is not the spec's for this batch",
    3: "hand_id is not in this batch's range of the spec (its structure's stream from index "
       "{aux})",
    4: "run_id is not the spec's fingerprint",
    5: "fault column differs from the spec's inject",
    6: "level is not the spec's (expected {aux}: hand_no // level_hands, 0 for cash)",
    7: "small blind is not the spec's schedule (expected {aux})",
    8: "big blind is not the spec's schedule (expected {aux})",
    9: "ante or ante_mode is not the spec's schedule for this level and table (mode {aux})",
    10: "bet sizes (min_bet, small_bet, big_bet, raise_cap) are not the spec's (big blind {aux})",
    11: "rake_bps is not the spec's (expected {aux})",
    12: "rake_cap is not the spec's (expected {aux} chips)",
    13: "no_flop_no_drop or ante_trimming is not the simulator's (true, false)",
    14: "a table's first hand does not seat seat {aux} with a buy-in (every seat occupied, "
        "rebuys = stacks_start)",
    15: "buy-in of seat {aux} outside the population's range (spec buy_in_min_bb..buy_in_bb, "
        "or the tournament stack)",
    16: "rebuy of seat {aux} against the rules (a tournament after its first hand, a top-up "
        "above the threshold, a new player's rebuy not his stack, a negative rebuy)",
    17: "hand_no beyond the spec's hands_per_table ({aux})",
    18: "the table played on after it had to end (after its previous hand: one player with "
        "chips in a tournament; heads-up with a stack above leave_above_bb in cash)",
    19: "a table other than the batch's last ended without a reason after {aux} hands (cash: "
        "hands_per_table; tournament: one player left)",
    20: "player_ids of seat {aux} are not by the documented rule (16 * hand_id + seat at the "
        "player's first hand, the same id while the seat stays occupied, -1 empty)",
    21: "policy of seat {aux} is not by the rule (one of the population's bots, the same for a "
        "player's every hand, -1 empty)",
    22: "table and hand numbers do not run 0, 1, 2, ... in hand-id order (table {aux})",
    23: "the batch's tables are not numbered from 0 (its first table is {aux})",
    24: "the hand is in a batch file of no batch of the spec's plan",
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
            topup_below, hpt, leave_above, kinds_mask, codes, aux, t_num, t_last, t_hands,
            t_ok):  # pragma: no cover
    """The checks across the hands of each table, in table order (a chunk holds whole tables).
    Fills codes/aux per hand and, per table, its number, last hand's row, hands and whether it
    ended by a rule (``t_ok``); returns the number of tables."""
    k = occ.shape[1]
    nt = 0
    prev = -1
    pos = 0
    kinds = kinds_mask
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
                    codes[i] = 9
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
            # the table had to end after its previous hand?
            live, rich = _live(occ, end, prev, k, leave_above)
            if codes[i] == 0 and ((tourn and live < 2) or (
                    not tourn and leave_above > 0 and live <= 2 and rich)):
                codes[i] = 18
            for s in range(k):
                r = rebuys[i, s]
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


@dataclass
class StakesPartial:
    """One chunk: the per-hand checks, and for the checks across chunks of a batch its block
    of tables (label, batch, first and last table number, first and last hand id in table
    order) and the tables that did not end by a rule (table number, last hand id, hands)."""

    part: Partial
    blocks: list[tuple[str, int, int, int, int, int]] = field(default_factory=list)
    open_tables: list[tuple[str, int, int, int, int]] = field(default_factory=list)


def _first(codes: np.ndarray, aux: np.ndarray, bad: np.ndarray, code: int,
           value: np.ndarray | int = 0) -> None:
    """Code ``code`` (aux ``value``) for the rows in ``bad`` that have no code yet."""
    take = bad & (codes == 0)
    codes[take] = code
    aux[take] = value[take] if isinstance(value, np.ndarray) else value


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
    label, batch = batch_label(b.path), batch_index(b.path)
    if label not in STRUCTURE_CODES or batch is None or not facts.in_plan(label, batch):
        codes[:] = 24
        return StakesPartial(partial_from_codes(hid, codes, aux, MESSAGES))
    seats, fmt = facts.batch_table(label, batch)
    tourn = fmt == "tournament"
    s = facts.spec
    _first(codes, aux, np.full(b.n, b.k != seats), 1, seats)
    _first(codes, aux, ~string_is(b, "format", fmt), 2)
    first = batch * s["batch_size"]
    index = hid & ((1 << STRUCT_SHIFT) - 1)
    _first(codes, aux, ((hid >> STRUCT_SHIFT) != STRUCTURE_CODES[label]) | (index < first)
           | (index >= first + facts.batch_hands(batch)), 3, first)
    _first(codes, aux, ~string_is(b, "run_id", facts.digest), 4)
    _first(codes, aux, ~_string_matches(b, "fault", s["inject"]), 5)
    hand_no = c["hand_no"].astype(np.int64)
    lv, sb, bb, level_ante = facts.blinds(fmt, hand_no)
    _first(codes, aux, c["level"] != lv, 6, lv)
    _first(codes, aux, c["small_blind"] != sb, 7, sb)
    _first(codes, aux, c["big_blind"] != bb, 8, bb)
    ante_mode = facts.ante_mode(fmt)
    if ante_mode >= 0:  # the game names the ante and who posts it
        want_mode = np.where(level_ante > 0, ante_mode, 0)
        _first(codes, aux, (c["ante"] != level_ante) | (c["ante_mode"] != want_mode), 9,
               want_mode)
    elif not tourn:
        _first(codes, aux, (c["ante"] != 0) | (c["ante_mode"] != 0), 9,
               c["ante_mode"].astype(np.int64))
    else:
        _first(codes, aux, (c["ante_mode"] == 0) & (c["ante"] != 0), 9, 0)
    small_bet, big_bet, raise_cap = facts.bet_sizes(fmt, bb)
    _first(codes, aux, (c["min_bet"] != bb) | (c["small_bet"] != small_bet)
           | (c["big_bet"] != big_bet) | (c["raise_cap"] != raise_cap), 10, bb)
    rake_bps, _ = facts.rake(fmt)
    players = b.seat["occupied"].sum(axis=1).astype(np.int64)
    rake_cap = facts.rake_caps(fmt, players)
    _first(codes, aux, c["rake_bps"] != rake_bps, 11, rake_bps)
    _first(codes, aux, c["rake_cap"] != rake_cap, 12, rake_cap)
    nfnd = s["no_flop_no_drop"]
    _first(codes, aux, (c["no_flop_no_drop"].astype(np.bool_) != nfnd)
           | c["ante_trimming"].astype(np.bool_), 13)
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
                 s["leave_above_bb"] * s["big_blind"], kinds_mask, codes, aux, t_num, t_last,
                 t_hands, t_ok)
    part = partial_from_codes(hid, codes, aux, MESSAGES)
    if not has_pids:
        part.totals = {"player_ids_absent": n}
    out = StakesPartial(part)
    if nt:
        out.blocks.append((label, batch, int(t_num[0]), int(t_num[nt - 1]), int(hid[order[0]]),
                           int(hid[order[-1]])))
        for j in np.flatnonzero(~t_ok[:nt]):
            out.open_tables.append((label, batch, int(t_num[j]), int(hid[t_last[j]]),
                                    int(t_hands[j])))
    return out


def reduce_stakes(name: str, partials: list[Any]) -> AuditResult:
    """The chunks' per-hand checks, and per batch: its blocks of tables in table order from
    table 0, one contiguous run of hand ids; only its last table may end without a reason."""
    parts = [p for p in partials if isinstance(p, StakesPartial)]
    extra = Partial(hands=0)

    def bad(hand: int, code: int, value: int) -> None:
        extra.failures += 1
        reason = MESSAGES[code].split(":")[0]
        extra.reasons[reason] = extra.reasons.get(reason, 0) + 1
        text = MESSAGES[code].format(aux=value, logged="?", expected="?")
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
                bad(b[2], 22, b[0])
        last_table[key] = bl[-1][1]
    for p in parts:
        for label, batch, t, last_hand, hands in p.open_tables:
            if last_table.get((label, batch)) != t:
                bad(last_hand, 19, hands)
    extra.applicable = extra.failures > 0
    result = reduce_partials(name, [extra] + [p.part for p in parts])
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
