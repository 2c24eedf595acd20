"""What a certificate says of the operator's tournament summaries imported with the hands
(PokerStars' ``TOURNAMENT SUMMARY`` files, issue 34 point 3): sentences made of ``import.json``'s
``summaries`` (read and checked by ``holdem import``; the certificate binds import.json's
sha256, ``holdem verify`` re-imports and re-checks them). Nothing is recomputed here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["summary_limitation", "summary_sentences"]


def _n(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _plural(k: int, one: str) -> str:
    return f"{k:,} {one}" + ("" if k == 1 else "s")


def summary_sentences(rec: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(the certificate's ``certified`` sentence, its ``not_certified`` ones) of an import
    record's summaries; ([], []) when the import read no summary file."""
    sm = rec.get("summaries")
    if not isinstance(sm, dict):
        return [], []
    got = sm.get("checks")
    checks: dict[str, Any] = got if isinstance(got, dict) else {}
    agree, disagree, unchecked = (_n(checks.get(k)) for k in ("agrees", "disagrees",
                                                              "not checked"))
    listed = [str(x) for x in sm.get("disagreements") or [] if isinstance(x, str)]
    verdict = (f"{_plural(disagree, 'disagreement')} (the first: {listed[0]})" if disagree
               and listed else f"{_plural(disagree, 'disagreement')}" if disagree
               else "no disagreement")
    done = [f"The operator's tournament summaries ({_plural(_n(sm.get('read')), 'summary')} "
            f"read of {_plural(_n(sm.get('tournaments')), 'tournament')}, "
            f"{_n(sm.get('tournaments_in_log')):,} with hands in the log) against themselves "
            "and the hands (the prize pool against its entries x the buy-in's prize part, the "
            "percentages, the places, the payouts against the pool, the buy-in, the places and "
            "prizes the hands claim, the eliminations and their order): "
            f"{agree:,} checks agree, {verdict}."]
    undone = []
    if _n(sm.get("not_read")):
        undone.append(f"{_plural(_n(sm.get('not_read')), 'tournament summary')} not read (a "
                      "line the reader does not know; import.json names each): their claims are "
                      "not checked.")
    if unchecked:
        undone.append(f"{_plural(unchecked, 'summary check')} that the record cannot decide (no "
                      "pool stated, places still running, another currency, a drawn pool, no "
                      "hand of the tournament in the log): not checked.")
    return done, undone


def summary_limitation(rec: dict[str, Any]) -> str | None:
    """The verdict's limitation when the operator's tournament summaries disagree with
    themselves or with the hands (None otherwise): the prize money is paid outside the hands,
    so the log cannot prove a payout wrong, but a lab cannot vouch for a tournament whose own
    statements contradict each other: the certificate is LIMITED and its first line names the
    first disagreement with its amounts."""
    sm = rec.get("summaries")
    if not isinstance(sm, dict):
        return None
    got = sm.get("checks")
    disagree = _n(got.get("disagrees")) if isinstance(got, dict) else 0
    if not disagree:
        return None
    listed = [str(x) for x in sm.get("disagreements") or [] if isinstance(x, str)]
    first = f" (the first: {listed[0]})" if listed else ""
    return (f"The operator's tournament summaries disagree with themselves or with the hands "
            f"in {_plural(disagree, 'check')}{first}: the prize money of those tournaments is "
            "not certified; import.json lists each disagreement with its amounts.")
