"""The checks of the operator's tournament summaries (``sim.histories.sites.summary``) at
``holdem import`` (issue 34, point 3): each summary against itself and against the imported
hands of its tournament, every result with the amounts (stated against expected) and named for
what the record proves; what cannot be decided is "not checked", never a disagreement.

Per summary, in this order (``CHECKS``):

- ``pool``: the prize pool stated against its entries x the buy-in's prize part (the first of
  ``A/B[/C]``; the players the summary counts are at most the entries, re-entries counting
  again): a pool smaller is a shortfall the summary proves; a larger one is not a fault (added
  money, a guarantee's overlay, re-entries or re-buys, none of which the summary states). Not
  checked: no pool stated, a buy-in of one part (its prize part unknown), currencies that
  differ, or a drawn pool (at most 3 players and the pool a whole multiple, 2 or more, of the
  whole buy-in: a lottery sit & go, whose pool may be below its entries x prize part);
- ``percentages``: each prize against its percentage of the pool, within one unit of the
  percentage's last decimal as written (PokerStars truncates: 19.2758% is written 19.275%; 3
  decimals when fewer than 2 are written, its zeros dropped) and one of the prize's last digit;
- ``places``: every place from 1 to the players listed (a place missing or beyond the players
  is the summary contradicting its own count);
- ``payouts``: the prizes summed, at most the pool, and equal to it (within half of the
  amounts' last digit per paid place: each prize rounded) when every place is listed and none
  is still playing; not checked when a prize's currency differs;
- ``buy-in``: the summary's buy-in against the one its hands' headers state (``$100+$9 USD``
  against ``$100.00/$9.00 USD``: the same amounts, part by part); not checked when one is not
  money (``Freeroll``, ``250 SC``);
- ``hand claims``: each place and prize a hand of the tournament claims for a player (``X
  finished the tournament in 2nd place and received $X``; the log's ``op_claims``) against the
  summary's place line of that player (``player_name``: an e-mail's quoted-printable escapes
  decoded); a player the summary lists under no such name is not checked (names are written
  otherwise in places: escapes, entities), nor one of several entries (``NAME [2]``: which
  entry a hand's line is about is not known);
- ``eliminations``: a player the hands say finished in a hand (a place claim after the first:
  the winner keeps the chips), or whom the summary says was eliminated at a hand of the log
  (``You finished ... (eliminated at hand #H)``), holds no chip at the end of that hand by the
  rules' replay (``stacks_end``);
- ``elimination order``: of two such players eliminated at different known times (``time_utc``),
  the earlier has the worse place in the summary.

The results are recorded in ``import.json`` (``summaries``) and, one sentence per tournament, in
the manifest (``summaries.tournaments``, which ``holdem export``'s ``tournaments.claims_check``
shows); ``holdem verify`` re-imports the sources, so re-reads and re-checks them.
"""

from __future__ import annotations

import quopri
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pyarrow as pa

from sim.histories.sites.summary import Place, Summary, SummaryFile, money

__all__ = ["CHECKS", "check_summaries"]

CHECKS = ("pool", "percentages", "places", "payouts", "buy-in", "hand claims", "eliminations",
          "elimination order")
AGREES, DISAGREES, UNCHECKED = "agrees", "disagrees", "not checked"
_REENTRY = re.compile(r" \[[0-9]{1,4}\]$")  # ``NAME [2]``: a player's second entry
MAX_LISTED = 20  # disagreements and unread summaries listed in import.json at most
_LOG_COLUMNS = ("tournament", "venue", "site_hand", "players", "op_claim_players", "op_claims",
                "stacks_end", "time_utc", "tournament_buy_in")


def _fmt(sym: str, amount: Decimal) -> str:
    return f"{sym}{amount:,}" if amount >= 0 else f"-{sym}{-amount:,}"


def _ulp(*amounts: Decimal) -> Decimal:
    """One unit of the finest last digit of ``amounts`` (0.01 for cents)."""
    exp = min((int(a.as_tuple().exponent) for a in amounts), default=0)
    return Decimal(1).scaleb(min(exp, 0))


def _n(k: int, one: str, many: str | None = None) -> str:
    return f"{k:,} {one if k == 1 else many or one + 's'}"


def _result(name: str, result: str, text: str) -> dict[str, str]:
    return {"check": name, "result": result, "text": text}


def _pool(s: Summary) -> tuple[dict[str, str], tuple[str, Decimal] | None]:
    """The pool check, and the pool as (symbol, amount) when it is comparable to the prizes."""
    if s.pool is None:
        return _result("pool", UNCHECKED, "the summary states no prize pool"), None
    pool = money(s.pool)
    parts = [money(p) for p in s.buy_in]
    if pool is None or any(p is None for p in parts):
        return _result("pool", UNCHECKED, f"an amount not read as money (pool {s.pool}, buy-in "
                       f"{'/'.join(s.buy_in)})"), None
    sym, amount = pool
    if len(parts) < 2:
        return _result("pool", UNCHECKED, f"the buy-in {s.buy_in[0]} is not split into a prize "
                       "part and a fee"), pool
    syms = {p[0] for p in parts if p is not None}
    if syms != {sym} or (s.currency and s.pool_currency and s.currency != s.pool_currency):
        return _result("pool", UNCHECKED, f"the pool ({s.pool} {s.pool_currency}) and the "
                       f"buy-in ({'/'.join(s.buy_in)} {s.currency}) are in different "
                       "currencies"), pool
    prize = parts[0][1]  # type: ignore[index]
    whole = sum((p[1] for p in parts if p is not None), Decimal(0))
    n = s.players or 0
    expected = prize * n
    if amount >= expected:
        more = "" if amount == expected else (
            f"; {_fmt(sym, amount - expected)} more: added money, a guarantee's overlay, "
            "re-entries or re-buys (the summary states none of them)")
        return _result("pool", AGREES, f"pool {_fmt(sym, amount)} stated, at least {n:,} "
                       f"entries x the prize part {_fmt(sym, prize)} = {_fmt(sym, expected)}"
                       + more), pool
    k = amount / whole if whole else Decimal(0)
    if n <= 3 and k == k.to_integral_value() and k >= 2:
        return _result("pool", UNCHECKED, f"pool {_fmt(sym, amount)} = {k} x the whole buy-in "
                       f"{_fmt(sym, whole)} for {n} players: a drawn pool (a lottery sit & go), "
                       f"not {n} x the prize part"), pool
    short = _fmt(sym, expected - amount)
    return _result("pool", DISAGREES, f"pool {_fmt(sym, amount)} stated, {short}"
                   f" less than its {n:,} entries x the prize part {_fmt(sym, prize)} = "
                   f"{_fmt(sym, expected)}: the pool is short"), pool


def _percentages(s: Summary, pool: tuple[str, Decimal] | None,
                 name: Callable[[str], str]) -> dict[str, str]:
    paid = [p for p in s.places if p.prize is not None and p.percent is not None]
    if not paid:
        return _result("percentages", UNCHECKED, "no prize with a percentage listed")
    if pool is None:
        return _result("percentages", UNCHECKED, "no prize pool to take percentages of")
    sym, total = pool
    bad, other = [], 0
    for p in paid:
        got = money(p.prize or "")
        if got is None or got[0] != sym:
            other += 1
            continue
        pct = Decimal(p.percent or "0")
        # one unit of the percentage's last decimal (PokerStars truncates: 19.2758% is written
        # 19.275%; a percentage of fewer than 2 decimals had its zeros dropped from 3)
        written = -int(pct.as_tuple().exponent)
        digits = written if written >= 2 else 3
        expected = total * pct / 100
        tol = total * Decimal(1).scaleb(-digits - 2) + _ulp(got[1])
        if abs(got[1] - expected) > tol:
            share = _fmt(sym, expected.quantize(_ulp(got[1])))
            bad.append(f"place {p.place} ({name(p.player)}): {_fmt(sym, got[1])} stated, "
                       f"{p.percent}% of the pool {_fmt(sym, total)} is {share}")
    if bad:
        return _result("percentages", DISAGREES, "; ".join(bad[:5]) + (
            f" (and {len(bad) - 5} more)" if len(bad) > 5 else ""))
    return _result("percentages", AGREES if len(paid) > other else UNCHECKED,
                   f"{_n(len(paid) - other, 'prize')} each their percentage of the pool"
                   + (f", {other} in another currency not checked" if other else ""))


def _missing(s: Summary) -> tuple[list[int], list[int]]:
    listed = {p.place for p in s.places}
    n = s.players or 0
    return ([k for k in range(1, n + 1) if k not in listed], sorted(k for k in listed if k > n))


def _places(s: Summary) -> dict[str, str]:
    if not s.places:
        return _result("places", UNCHECKED, "no place listed")
    missing, beyond = _missing(s)
    if not missing and not beyond:
        return _result("places", AGREES, f"places 1 to {s.players:,} listed")
    what = []
    if missing:
        what.append(f"place{'s' if len(missing) > 1 else ''} "
                    f"{', '.join(map(str, missing[:10]))}{' ...' if len(missing) > 10 else ''} "
                    "not listed")
    if beyond:
        what.append(f"place {beyond[0]} listed beyond its {s.players:,} players")
    return _result("places", DISAGREES, f"the summary counts {s.players:,} players and lists "
                   f"{len(s.places):,} places: " + ", ".join(what))


def _payouts(s: Summary, pool: tuple[str, Decimal] | None) -> dict[str, str]:
    if pool is None:
        return _result("payouts", UNCHECKED, "no prize pool stated to pay out")
    sym, total = pool
    paid = [money(p.prize) for p in s.places if p.prize is not None]
    if any(p is None or p[0] != sym for p in paid):
        return _result("payouts", UNCHECKED, "a prize in another currency than the pool's")
    amounts = [p[1] for p in paid if p is not None]
    got = sum(amounts, Decimal(0))
    tol = _ulp(total, *amounts) / 2 * len(amounts)
    still = sum(p.still_playing for p in s.places)
    missing, _ = _missing(s)
    complete = not still and not missing and bool(s.places)
    head = f"{_n(len(amounts), 'prize')} sum to {_fmt(sym, got)}, the pool is {_fmt(sym, total)}"
    if got - total > tol:
        return _result("payouts", DISAGREES, f"{head}: {_fmt(sym, got - total)} more than the "
                       "pool is paid")
    if complete and total - got > tol:
        return _result("payouts", DISAGREES, f"{head}: {_fmt(sym, total - got)} of the pool is "
                       "paid to no place, though every place is listed")
    if total - got > tol and missing and not still:
        return _result("payouts", DISAGREES, f"{head}: {_fmt(sym, total - got)} of the pool is "
                       f"paid to no listed place (place {missing[0]} not listed)")
    if complete:
        return _result("payouts", AGREES, f"{head}: every place listed, the pool paid out")
    return _result("payouts", AGREES, f"{head}: no more than the pool; equal not checked "
                   f"({still:,} still playing)")


def _claim_amount(text: str) -> tuple[str, Decimal] | None:
    return money(text.split(" ", 1)[0])


def _chips(value: int, unit: int) -> str:
    """Log chips (10^-exponent of a chip) as the tournament's chips, exactly."""
    return f"{(Decimal(value) / unit).normalize():,f}"


def _eliminated(r: dict[str, Any], who: str, said: str, unit: int, bad: list[str],
                gone: dict[str, tuple[int, str]]) -> None:
    """A claim (``said``) that ``who`` went out in hand ``r``: the rules' replay must leave him
    no chip (else a disagreement in ``bad``, with the chips left); kept in ``gone`` with the
    hand's time for the order of eliminations. A player not seated there is not checked."""
    seat = r["players"].index(who) if who in r["players"] else -1
    chips = r["stacks_end"][seat] if 0 <= seat < len(r["stacks_end"]) else None
    if chips:
        bad.append(f"{said}, the rules' replay of the hand leaves {who} {_chips(chips, unit)} "
                   "chips")
    elif chips is not None:
        gone.setdefault(who, (r["time_utc"], r["site_hand"]))


class _Log:
    """The log's rows of one tournament, as the checks read them."""

    def __init__(self, rows: list[dict[str, Any]], exponent: int) -> None:
        self.rows = rows
        self.unit = 10 ** exponent


def player_name(written: str) -> str:
    """A summary's player name as the hands write it: without a re-entry's ``[N]``
    (``WRUUUUM [2]``), an e-mail's quoted-printable escapes decoded (``Skjerv=C3=B8y`` is
    ``Skjervøy``) when they are UTF-8."""
    name = _REENTRY.sub("", written)
    if re.search(r"=[0-9A-F]{2}", name):
        try:
            name = quopri.decodestring(name.encode("utf-8")).decode("utf-8")
        except (UnicodeDecodeError, ValueError):
            pass
    return name


def _parts(text: str, sep: str) -> list[tuple[str, Decimal]] | None:
    """A buy-in's parts as money (``$100+$9 USD`` by "+", ``$100.00/$9.00`` by "/"), None when
    one is not money."""
    body = text.strip()
    if " " in body:
        body, code = body.rsplit(" ", 1)
        if not code.isalpha() or not code.isupper():
            return None
    got = [money(p) for p in body.split(sep)]
    return None if any(g is None for g in got) else got  # type: ignore[return-value]


def _buy_in(s: Summary, log: _Log) -> dict[str, str]:
    stated = sorted({r["tournament_buy_in"] for r in log.rows if r["tournament_buy_in"]})
    mine = _parts("/".join(s.buy_in), "/")
    if not stated or mine is None:
        return _result("buy-in", UNCHECKED, "the hands state no buy-in" if not stated else
                       f"the summary's buy-in {'/'.join(s.buy_in)} is not money")
    bad, read = [], 0
    for text in stated:
        theirs = _parts(text, "+")
        if theirs is None:
            continue
        read += 1
        if theirs != mine:
            bad.append(f"the hands' headers state {text}, the summary {'/'.join(s.buy_in)}"
                       + (f" {s.currency}" if s.currency else ""))
    if bad:
        return _result("buy-in", DISAGREES, "; ".join(bad))
    if not read:
        return _result("buy-in", UNCHECKED, f"the hands' buy-in ({stated[0]}) is not money")
    return _result("buy-in", AGREES, f"the hands' headers state {stated[0]}, the summary's "
                   f"{'/'.join(s.buy_in)}")


def _hand_checks(s: Summary, log: _Log, name: Callable[[str], str]) -> list[dict[str, str]]:
    """The buy-in, hand claims, eliminations and elimination order checks."""
    # a player of several entries (``NAME [2]``): which entry a hand's place line is about is
    # not known, so none of them is checked
    by_player: dict[str, Place] = {name(player_name(p.player)): p for p in s.places
                                   if not _REENTRY.search(p.player)}
    claims_bad, claims_ok, claims_unchecked = [], 0, 0
    elim_bad: list[str] = []
    gone: dict[str, tuple[int, str]] = {}  # player -> (time_utc, site hand) of the elimination
    out = [_buy_in(s, log)]
    for r in log.rows:
        for who, claim in zip(r["op_claim_players"], r["op_claims"], strict=True):
            kind, _, value = claim.partition(" ")
            if kind not in ("place", "prize"):
                continue
            p = by_player.get(who)
            if p is None:  # not listed, or written otherwise (an e-mail's escapes): no proof
                claims_unchecked += 1
            elif kind == "place":
                if int(value) == p.place:
                    claims_ok += 1
                else:
                    claims_bad.append(f"hand {r['site_hand']} claims {who} place {value}, the "
                                      f"summary places {who} {p.place}")
            else:
                stated, listed = _claim_amount(value), money(p.prize) if p.prize else None
                if stated is None:
                    claims_unchecked += 1
                elif listed is None or listed != stated:
                    claims_bad.append(f"hand {r['site_hand']} claims {who} received {value}, the "
                                      f"summary pays {who} {p.prize or 'nothing'} (place "
                                      f"{p.place})")
                else:
                    claims_ok += 1
            if kind == "place" and int(value) > 1:  # the winner keeps every chip
                _eliminated(r, who, f"hand {r['site_hand']} says {who} finished in place "
                            f"{value}", log.unit, elim_bad, gone)
    if claims_bad:
        out.append(_result("hand claims", DISAGREES, "; ".join(claims_bad[:5])))
    elif claims_ok:
        said = _n(claims_ok, "place or prize", "places and prizes")
        out.append(_result("hand claims", AGREES, f"{said} the hands claim as the summary "
                           "states"))
    else:
        out.append(_result("hand claims", UNCHECKED, "no hand of the log claims a place or "
                           "prize of a player the summary lists" if not claims_unchecked else
                           f"{claims_unchecked} claims of players the summary does not list "
                           "by that name (or an amount not read)"))
    hero = (next((p for p in s.places if p.place == s.hero_place), None)
            if s.hero_eliminated_at else None)
    if hero is not None:
        at: dict[str, Any] | None = next(
            (x for x in log.rows if x["site_hand"] == s.hero_eliminated_at), None)
        who = name(player_name(hero.player))
        if at is not None and who in at["players"] and hero.place > 1:
            _eliminated(at, who, f"the summary says {who} (place {hero.place}) was eliminated "
                        f"at hand {s.hero_eliminated_at}", log.unit, elim_bad, gone)
    elim_ok = len(gone)
    if elim_bad:
        out.append(_result("eliminations", DISAGREES, "; ".join(elim_bad[:5])))
    else:
        out.append(_result("eliminations", AGREES if elim_ok else UNCHECKED,
                           f"{_n(elim_ok, 'player')} eliminated in a hand of the log, with no "
                           "chip at its end" if elim_ok else "no elimination in a hand of the log"))
    timed = sorted(((t, h, who) for who, (t, h) in gone.items()
                    if t >= 0 and who in by_player), key=lambda x: x[0])
    bad_order = []
    for i, (t1, h1, a) in enumerate(timed):
        for t2, h2, b in timed[i + 1:]:
            if t2 > t1 and by_player[a].place < by_player[b].place:
                bad_order.append(f"{a} was eliminated in hand {h1} before {b} in hand {h2}, the "
                                 f"summary places {a} {by_player[a].place}, ahead of {b}'s "
                                 f"{by_player[b].place}")
    if bad_order:
        out.append(_result("elimination order", DISAGREES, "; ".join(bad_order[:5])))
    else:
        out.append(_result("elimination order", AGREES if len(timed) > 1 else UNCHECKED,
                           f"{len(timed)} eliminations at known times in the order of their "
                           "places" if len(timed) > 1 else
                           "fewer than two eliminations at known times in the log"))
    return out


def _rows_by_tournament(table: pa.Table, ids: set[str]) -> dict[str, list[dict[str, Any]]]:
    if not ids or table.num_rows == 0 or "tournament" not in table.column_names:
        return {}
    import pyarrow.compute as pc

    keep = pc.is_in(table.column("tournament"), value_set=pa.array(sorted(ids), pa.string()))
    rows = table.filter(keep).select(list(_LOG_COLUMNS)).to_pylist()
    out: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        venue = (r["venue"] or "").lower()
        if venue and "pokerstars" not in venue:
            continue
        out.setdefault(r["tournament"], []).append(r)
    return out


def _sentence(checks: list[dict[str, str]]) -> str:
    """A tournament's checks in one sentence (the manifest's, the export's ``claims_check``)."""
    bad = [c for c in checks if c["result"] == DISAGREES]
    ok = [c["check"] for c in checks if c["result"] == AGREES]
    no = [c["check"] for c in checks if c["result"] == UNCHECKED]
    parts = [f"the operator's summary: {c['check']} disagrees: {c['text']}" for c in bad]
    if ok:
        parts.append(f"summary {', '.join(ok)}: agree")
    if no:
        parts.append(f"summary {', '.join(no)}: not checked")
    return "; ".join(parts)


def check_summaries(files: list[SummaryFile], table: pa.Table, exponent: int,
                    name: Callable[[str], str] = str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(``import.json``'s ``summaries``, the manifest's ``summaries``) of the summaries read
    (``files``, in source order) checked against themselves and the import's rows ``table``
    (the log's chips 10^-``exponent`` of a chip); ``name``: a summary's player name as the log
    keys it (``--hash-names``: its keyed hash)."""
    summaries = [s for f in files for s in f.summaries]
    unread = [u for f in files for u in f.unread]
    rows = _rows_by_tournament(table, {s.tournament for s in summaries})
    listed: list[dict[str, Any]] = []
    counts = dict.fromkeys((AGREES, DISAGREES, UNCHECKED), 0)
    disagreements: list[str] = []
    per_tournament: dict[str, list[str]] = {}
    for s in summaries:
        pool_check, pool = _pool(s)
        checks = [pool_check, _percentages(s, pool, name), _places(s), _payouts(s, pool)]
        log = _Log(rows.get(s.tournament, []), exponent)
        checks += _hand_checks(s, log, name) if log.rows else [
            _result(c, UNCHECKED, "no hand of the tournament in the log")
            for c in ("buy-in", "hand claims", "eliminations", "elimination order")]
        for c in checks:
            counts[c["result"]] += 1
            if c["result"] == DISAGREES and len(disagreements) < MAX_LISTED:
                disagreements.append(f"tournament #{s.tournament} ({s.source} line {s.line}): "
                                     f"{c['check']}: {c['text']}")
        rec = s.record()
        rec.pop("source", None)
        listed.append({"source": s.source, **rec, "hands_in_log": len(log.rows),
                       "checks": checks})
        per_tournament.setdefault(s.tournament, []).append(_sentence(checks))
    in_log = sorted({s.tournament for s in summaries if rows.get(s.tournament)})
    record = {"files": len(files), "read": len(summaries), "not_read": len(unread),
              "not_read_examples": [u.describe() for u in unread[:MAX_LISTED]],
              "tournaments": len({s.tournament for s in summaries}),
              "tournaments_in_log": len(in_log), "checks": counts,
              "disagreements": disagreements, "summaries": listed}
    manifest = {"read": len(summaries), "not_read": len(unread),
                "tournaments_in_log": len(in_log), "checks": counts,
                "tournaments": {t: " | ".join(v) for t, v in sorted(per_tournament.items())}}
    return record, manifest
