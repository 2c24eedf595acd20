"""The lab's list of suspect players (``--suspects FILE`` of ``holdem audit``, there also
``--players FILE``, and of ``holdem certify``, whose ``--players`` is the seats per table) and
the targeted deal tests it adds to the uniformity battery.

The list-free tests (``player_dispersion``, ``runout_dispersion``, the per-player Bonferroni
tests) must find favoured players among thousands; a lab that already suspects some players
(a complaint, another site's findings) tests exactly those, one test over all of them at once:

- ``listed_pairs``: the listed players' pocket pairs over all their hands, against the exact
  pair fraction 3/51 (Binomial, two-sided, normal with the exact variance);
- ``listed_hand_bands``: their hands over the 9 bands of ``audits.seats`` (pair / suited /
  offsuit x high card A-Q, J-8, 7-2: the hole-card quality), Pearson chi-square, 8 df;
- ``listed_runouts``: their summed share minus exact equity over every run-out they were live
  in (``audits.runouts``), over the root of its exact variance (the covariance of two listed
  players who met in one run-out included), normal, two-sided.

A hand is one deal: each listed seat's class is counted; two listed players at one deal are
counted as independent (two disjoint hands of one deck: the pair indicator's covariance is 0.08%
of its variance). The list's entries are player ids (a simulated run's ``player_ids``) or names
as the run stores them (an imported run's ``players``; under ``--hash-names KEYFILE`` of
``holdem certify --import`` every entry is a name, keyed with that key first as the import
keyed every name, digits included). The file: UTF-8 text, one entry a line, ``#`` at the start
of a line or after a blank starts a comment (``Bob#2`` is a name), blank lines ignored.
audit.json records the list (``players_list``: the sha256 of its entries as tested, one a line
(``entries_sha256``: a re-run refuses a record whose entries do not give it), the file's own
sha256 (``file_sha256``), its entries, how many
were readable as an id or a name of the run, how many matched a player the run holds) in the
battery's details, and the certificate carries it, so a
verifier knows which list was tested; a re-run of the audits (signing, ``holdem verify``)
takes the list from that record.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats as ss

from audits import stats
from audits.runfolder.errors import InputError

MAX_ENTRIES = 1_000_000
MAX_ENTRY = 200  # characters of one entry
MAX_BYTES = 64 << 20
TESTS = ("listed_pairs", "listed_hand_bands", "listed_runouts")
MIN_LISTED_HANDS = 50
MIN_LISTED_RUNOUTS = 10
# a comment: a "#" that starts the line or follows a blank ("Bob#2" is a name, as sites allow)
COMMENT = re.compile(r"(?:^|\s)#")


class PlayersInputError(InputError):
    """A players list that cannot be used (one line naming the file, line and what was
    expected): exit 2."""


def entries_sha256(entries: tuple[str, ...] | list[str]) -> str:
    """The list's digest: the sha256 of its entries as tested (keyed under ``--hash-names``),
    one a line in file order, each line ended by a newline. A verifier recomputes it from the
    recorded entries, so a record cannot name one list and carry another."""
    return hashlib.sha256("".join(f"{e}\n" for e in entries).encode()).hexdigest()


@dataclass(frozen=True)
class PlayerList:
    """The entries of a players list, in file order; ``sha256``: ``entries_sha256`` of them;
    ``file_sha256``: the sha256 of the file's bytes as read (comments and blanks included: the
    lab's own reference, which no re-run can derive)."""

    source: str
    sha256: str
    entries: tuple[str, ...]
    file_sha256: str = ""

    def record(self) -> dict[str, Any]:
        return {"source": self.source, "sha256": self.sha256, "file_sha256": self.file_sha256,
                "entries": list(self.entries)}

    @classmethod
    def from_record(cls, rec: Any) -> PlayerList | None:
        """The list audit.json recorded (None when there is none or it is not a list record).
        PlayersInputError when the recorded sha256 is not that of the recorded entries (a
        record edited to name the lab's list while testing another)."""
        if not isinstance(rec, dict) or not isinstance(rec.get("entries"), list):
            return None
        entries = tuple(str(e) for e in rec["entries"])
        digest = str(rec.get("sha256", ""))
        if digest != entries_sha256(entries):
            raise PlayersInputError("audit.json: players_list: its sha256 is not that of its "
                                    f"{len(entries):,} entries: expected the list that was "
                                    "tested (audit again with the lab's --suspects FILE)")
        return cls(str(rec.get("source", "")), digest, entries,
                   str(rec.get("file_sha256", "")))

    def ids(self, names: dict[str, int] | None) -> tuple[np.ndarray, int]:
        """(the player ids the entries name, how many entries name one): an entry is a name of
        ``names`` (an imported run's), else a decimal player id."""
        out, matched = set(), 0
        for e in self.entries:
            if names and e in names:
                out.add(names[e])
                matched += 1
            elif e.isdigit() and e.isascii():
                out.add(int(e))
                matched += 1
        return np.array(sorted(out), np.int64), matched


def read_players(path: str | Path, name_key: bytes | None = None) -> PlayerList:
    """The list of ``--suspects FILE``; ``name_key``: key each entry (a name, digits or not) as
    ``--hash-names`` keyed the run's names. PlayersInputError (one line) for a bad file."""
    where = f"--suspects {path}"
    try:
        p = Path(path)
        if not p.is_file():
            raise PlayersInputError(f"{where}: not a regular file")
        if p.stat().st_size > MAX_BYTES:
            raise PlayersInputError(f"{where}: larger than {MAX_BYTES >> 20} MB: expected one "
                                    "player id or name a line")
        data = p.read_bytes()
    except OSError as e:
        raise PlayersInputError(f"{where}: cannot read it ({e.strerror or e})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        at = data[:e.start].count(b"\n") + 1
        raise PlayersInputError(f"{where}: line {at}: not UTF-8 text: expected one player id "
                                "or name a line") from None
    entries: list[str] = []
    seen: dict[str, int] = {}
    for no, raw in enumerate(text.split("\n"), 1):
        line = COMMENT.split(raw, 1)[0].strip()
        if not line:
            continue
        if any(ord(c) < 32 or ord(c) == 127 for c in line):
            raise PlayersInputError(f"{where}: line {no}: a control character: expected one "
                                    "player id or name a line")
        if len(line) > MAX_ENTRY:
            raise PlayersInputError(f"{where}: line {no}: {len(line)} characters: expected a "
                                    f"player id or name of at most {MAX_ENTRY}")
        if line.startswith("-") and line[1:].isdigit():
            raise PlayersInputError(f"{where}: line {no}: {line!r}: expected a player id >= 0 "
                                    "(-1 marks an empty seat) or a name")
        if line in seen:
            raise PlayersInputError(f"{where}: line {no}: {line!r} again (first on line "
                                    f"{seen[line]}): expected each player once")
        seen[line] = no
        entries.append(line)
        if len(entries) > MAX_ENTRIES:
            raise PlayersInputError(f"{where}: line {no}: more than {MAX_ENTRIES:,} players")
    if not entries:
        raise PlayersInputError(f"{where}: no player: expected one player id or name a line "
                                "('#' comments and blank lines aside)")
    if name_key is not None:  # every entry a name, keyed as the import keyed every name
        # (digits too: an entry ``1234`` left as an id would test the import's player 1234, not
        # the player named 1234)
        entries = [hmac.new(name_key, e.encode(), "sha256").hexdigest()[:16] for e in entries]
    return PlayerList(p.name, entries_sha256(entries), tuple(entries),
                      hashlib.sha256(data).hexdigest())


# ---------------------------------------------------------------------------------------------
# the targeted tests


def pairs_test(bands: np.ndarray, band_probs: np.ndarray) -> dict[str, Any] | None:
    """``bands``: the listed players' counts over the 9 bands (pairs the first 3)."""
    n = int(bands.sum())
    if n < MIN_LISTED_HANDS:
        return None
    x = float(bands[:3].sum())
    pr = float(band_probs[:3].sum())
    lo = float(ss.binom.cdf(x, n, pr))
    hi = float(ss.binom.sf(x - 1, n, pr))
    z = (x - n * pr) / math.sqrt(n * pr * (1 - pr))
    return {"statistic": z, "p": min(1.0, 2 * min(lo, hi)), "details": {
        "law": "exact binomial, two-sided: the listed players' pocket pairs (3/51 of hands)",
        "hands": n, "pairs": int(x), "expected": n * pr, "relative": x / (n * pr) - 1}}


def bands_test(bands: np.ndarray, band_probs: np.ndarray,
               band_names: tuple[str, ...]) -> dict[str, Any] | None:
    n = int(bands.sum())
    if n * float(band_probs.min()) < 5:
        return None
    x2, df, p = stats.pearson_probs(bands, band_probs)
    e = n * band_probs
    return {"statistic": x2, "p": p, "details": {
        "law": "chi2 over the 9 bands (exact fractions of the 1,326 combinations)", "df": df,
        "hands": n, "per_band": {b: {"count": int(c), "expected": float(x)}
                                 for b, c, x in zip(band_names, bands, e, strict=True)}}}


def runouts_test(listed_rows: np.ndarray, hand: np.ndarray, d: np.ndarray,
                 pair_a: np.ndarray, pair_b: np.ndarray, pair_c: np.ndarray
                 ) -> dict[str, Any] | None:
    """``listed_rows``: which run-out rows (live hands) are the listed players'; ``d`` each row's
    share minus equity; (pair_a, pair_b, pair_c): every ordered pair of rows of one run-out and
    its covariance (``audits.runouts.pair_entries``)."""
    if not listed_rows.any():
        return None
    n_rows = int(listed_rows.sum())
    runs = int(np.unique(hand[listed_rows]).size)
    if runs < MIN_LISTED_RUNOUTS:
        return None
    both = listed_rows[pair_a] & listed_rows[pair_b]
    var = float(pair_c[both].sum())
    # the variance estimated from the residuals dealt, run-out by run-out (unbiased, and
    # self-normalizing: a pre-flop run-out's sampled variance can be 0 for a hand that loses)
    per = np.bincount(hand[listed_rows], weights=d[listed_rows])
    var_hat = float((per * per).sum())
    if var <= 0 or var_hat <= 0:
        return None
    r = float(d[listed_rows].sum())
    z = r / math.sqrt(var_hat)
    return {"statistic": z, "p": float(2 * ss.norm.sf(abs(z))), "details": {
        "law": "normal, two-sided: the listed players' summed share minus equity over their "
               "live run-out hands, over the root of its variance estimated from the residuals "
               "of each run-out (self-normalized; the computed variance beside it)",
        "runouts": runs, "live_hands": n_rows, "luck": r, "luck_per_runout": r / n_rows,
        "variance_estimate": var_hat, "variance_model": var}}


NOT_APPLICABLE = {
    "listed_pairs": "not applicable: no --players list, or fewer than "
                    f"{MIN_LISTED_HANDS} hands of the listed players with their cards known",
    "listed_hand_bands": "not applicable: no --players list, or too few hands of the listed "
                         "players (5 expected in the rarest band)",
    "listed_runouts": "not applicable: no --players list, or fewer than "
                      f"{MIN_LISTED_RUNOUTS} run-outs with a listed player live",
}


def recorded_list(audit: Any) -> PlayerList | None:
    """The players list an audit.json (as a dict) records as tested, for a re-run of its
    audits (signing, ``holdem verify``) to test the same list."""
    for r in (audit.get("results") or []) if isinstance(audit, dict) else []:
        if isinstance(r, dict) and r.get("name") == "uniformity":
            return PlayerList.from_record((r.get("details") or {}).get("players_list"))
    return None
