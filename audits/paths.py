"""The rule paths a certificate must have seen applied, counted by the audits from the log.

Each path is one bit of a per-hand flag word, set by the audit that knows it (the betting referee,
the payouts rebuild, or the coverage map from plain columns); ``audits.coverage`` counts them per
structure and compares each count with its minimum. One line of definition each (docs/audits.md's
coverage table is this table).

A path's ``per_million`` is its floor rate in the built-in games; its minimum in a run is the
``ALPHA`` Poisson quantile of that floor over the hands of its formats (``minimum``), so that a
correct engine falls below it with probability under ``ALPHA``; where the floor expects so few
that a count of 0 is plausible (fewer than ``certify_hands``), a path not seen is not certified
rather than failed. Below ``SMALL_RUN`` hands of a structure the run is too small to certify
coverage and the certificate says so instead of failing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import stats

SMALL_RUN = 100_000  # hands of a structure below which coverage is not certified (too small)
ALL = ("no-limit", "pot-limit", "fixed-limit")


@dataclass(frozen=True)
class Path:
    name: str
    bit: int
    per_million: int  # the minimum rate, hands per million of the structure
    definition: str
    structures: tuple[str, ...] = ALL
    # the table formats where the path can occur (the simulator's tournaments have no rake nor
    # rebuys, its cash tables no antes nor eliminations): its minimum scales with the hands of
    # those formats, and with none it is not certified rather than failed
    formats: tuple[str, ...] = ("cash", "tournament")


_COMMON, _RARE = 100, 5
PATHS: tuple[Path, ...] = (
    Path("uncontested", 0, _COMMON, "the hand ended with one player left (everybody else folded)"),
    Path("walk", 1, _RARE, "everybody folded to the big blind pre-flop: no call, bet or raise"),
    Path("showdown", 2, _COMMON, "two or more players reached the showdown"),
    Path("split_pot", 3, _COMMON, "a pot was split between two or more winners"),
    Path("odd_chip", 4, _RARE, "a split pot's chips did not divide evenly (odd chips dealt out)"),
    Path("side_pot", 5, _COMMON, "two or more pots (a main pot and a side pot)"),
    Path("side_pots_3plus", 6, _RARE, "three or more pots"),
    Path("all_in", 7, _COMMON, "a player put his last chip in (blind, ante, bet, raise or call)"),
    Path("short_all_in_not_reopened", 8, _RARE,
         "a player who had acted faced a raise smaller than a full raise (a short all-in) and "
         "could not re-raise"),
    Path("short_all_ins_reopened", 9, 1,
         "short all-ins that together made a full raise reopened the betting for a player who "
         "had acted (impossible in fixed-limit: an incomplete raise never moves the full level)",
         ("no-limit", "pot-limit")),
    Path("min_raise", 10, _COMMON,
         "a raise to exactly the minimum (the last full raise again), not all-in",
         ("no-limit", "pot-limit")),
    Path("uncalled_return", 11, _COMMON, "an uncalled bet was returned"),
    Path("bb_option_raise", 12, _RARE, "the big blind raised on his option (nobody raised before)"),
    Path("short_blind", 13, _RARE, "a blind posted all-in for less than its amount"),
    Path("ante", 14, _COMMON, "antes were posted",
         formats=("tournament",)),
    Path("big_blind_ante", 15, _RARE, "the big blind posted the ante for the table",
         formats=("tournament",)),
    Path("ante_all_in", 16, _RARE, "an ante took a player's last chip",
         formats=("tournament",)),
    Path("dead_button", 17, _RARE, "the button was on an empty seat (dead button)"),
    Path("dead_small_blind", 18, _RARE, "no small blind was posted (dead small blind)"),
    Path("heads_up_transition", 19, _RARE,
         "a table's first heads-up hand after a hand with three or more players"),
    Path("elimination", 20, _RARE, "a tournament player lost his last chip",
         formats=("tournament",)),
    Path("rebuy", 21, _RARE, "chips were added to a seat between two hands of a cash table",
         formats=("cash",)),
    Path("rake", 22, _COMMON, "rake was taken",
         formats=("cash",)),
    Path("rake_capped", 23, _RARE, "the rake reached its cap",
         formats=("cash",)),
    Path("no_flop_no_drop", 24, _RARE, "a raked game's hand ended before the flop: no rake",
         formats=("cash",)),
    Path("timeout", 25, _RARE, "a player timed out (checked if free, else folded)"),
    Path("wheel_straight", 26, _RARE, "a hand at showdown made A-2-3-4-5"),
    Path("board_plays", 27, _RARE,
         "a pot was won by the board itself (the best hand is the board)"),
    Path("kicker_decides", 28, _RARE,
         "the best two hands at showdown had the same category and top rank: a kicker decided"),
    Path("fl_raise_cap", 29, _RARE, "a fixed-limit street reached its raise cap",
         ("fixed-limit",)),
    Path("fl_incomplete_completed", 30, _RARE,
         "a fixed-limit raise completed an incomplete all-in bet or raise", ("fixed-limit",)),
    Path("pl_max_raise", 31, _RARE, "a pot-limit bet or raise to exactly the pot-limit maximum",
         ("pot-limit",)),
    Path("all_in_showdown", 32, _COMMON,
         "the betting ended with two or more hands live, at most one not all-in: every hand "
         "shown, the rest of the board run out"),
    Path("leave", 33, _RARE,
         "a player left the table or lost his connection mid-hand (LEAVE): his hand dead, his "
         "uncovered bet returned"),
)
BIT = {p.name: p.bit for p in PATHS}
N_PATHS = len(PATHS)

# the bits as plain ints for the compiled kernels
UNCONTESTED, WALK, SHOWDOWN, SPLIT_POT, ODD_CHIP, SIDE_POT, SIDE_POTS_3PLUS, ALL_IN = range(8)
SHORT_NOT_REOPENED, SHORTS_REOPENED, MIN_RAISE, UNCALLED_RETURN, BB_OPTION_RAISE = range(8, 13)
SHORT_BLIND, ANTE, BIG_BLIND_ANTE, ANTE_ALL_IN, DEAD_BUTTON, DEAD_SMALL_BLIND = range(13, 19)
HEADS_UP_TRANSITION, ELIMINATION, REBUY, RAKE, RAKE_CAPPED, NO_FLOP_NO_DROP = range(19, 25)
TIMEOUT, WHEEL, BOARD_PLAYS, KICKER, FL_CAP, FL_COMPLETED, PL_MAX = range(25, 32)
ALL_IN_SHOWDOWN, LEAVE = range(32, 34)


# the chance that a correct engine, taking a path at its floor rate, falls below the path's
# minimum: a count is a FAIL only when the run is large enough for this chance to be so small
ALPHA = 1e-4
EXPECT = -math.log(ALPHA)  # the expected count at the floor rate below which 0 is plausible


def expected(path: Path, hands: int) -> float:
    """The count the floor rate expects in ``hands`` hands of the path's formats."""
    return path.per_million * hands / 1_000_000


def minimum(path: Path, hands: int) -> int:
    """The count a run of ``hands`` hands (of the path's formats) must reach for ``path``: the
    ``ALPHA`` quantile of a Poisson count at the floor rate (a correct engine falls below it
    with probability under ``ALPHA``), at least 1. Below ``certify_hands`` that quantile is 0:
    a count of 0 is then not certified (too few hands), never a failure."""
    lam = expected(path, hands)
    if lam < EXPECT:
        return 1
    return max(1, int(stats.poisson.ppf(ALPHA, lam)))


def certify_hands(path: Path) -> int:
    """The hands of its formats a run needs before a count of 0 of ``path`` is a failure."""
    return math.ceil(EXPECT * 1_000_000 / path.per_million)
