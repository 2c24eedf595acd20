"""Reference shuffles, fair and broken, used ONLY to calibrate and test the uniformity battery.

Each function returns ``n`` decks as an (n, 52) uint8 array (byte k = card at position k) drawn
with a numpy ``Generator``; millions of decks per second.

* ``fair_fisher_yates``: Fisher-Yates, j uniform in [0, i] from numpy's unbiased bounded ints.
* ``naive_swap``: for every i, swap card i with a uniform card of the whole deck (52^52 equally
  likely paths onto 52! orders: biased).
* ``asf_off_by_one``: the 1999 ASF Software shuffle (Planet Poker), from Arkin et al., "How We
  Learned to Cheat at Online Poker":
  ``for ctr := 1 to 52 do begin random_number := random(51) + 1; swap(card[ctr],
  card[random_number]) end`` -- random(51) is 0..50, so the partner is never card 52. The deck
  starts in order each hand; the original 52nd card can never end in the 52nd position, and the
  naive-swap bias comes on top.
* ``eight_bit_modulo``: Fisher-Yates whose j is an 8-bit random byte taken modulo i + 1
  (256 mod 52 = 48: low values 5/256, high values 4/256).
* ``seed32``: each deck fully determined by a uniform 32-bit seed (splitmix64 stream of the seed
  into Fisher-Yates): only 2^32 distinct decks, so C(N, 2) / 2^32 duplicate pairs among N decks.
* ``seat0_best_of_class`` (a rig, applied to fair decks dealt at a table): absolute seat 0 gets
  the best starting hand of its own class (pair / suited / offsuit) dealt at the table that
  hand, the two hands swapped in the deck (issue 23's H3). Every card/position count stays
  close to fair while the button moves; only tests of who receives the cards see it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

N = 52
CHUNK = 1_000_000


@njit(cache=True)
def _fy_from_draws(js, out):  # pragma: no cover - compiled
    """Fisher-Yates: step t (i = 51 - t) swaps position i with js[:, t] in [0, i]."""
    for d in range(js.shape[0]):
        for k in range(N):
            out[d, k] = k
        for t in range(N - 1):
            i = N - 1 - t
            j = js[d, t]
            tmp = out[d, i]
            out[d, i] = out[d, j]
            out[d, j] = tmp


@njit(cache=True)
def _forward_swaps(js, out):  # pragma: no cover - compiled
    """for i = 0..51: swap(deck[i], deck[js[:, i]])."""
    for d in range(js.shape[0]):
        for k in range(N):
            out[d, k] = k
        for i in range(N):
            j = js[d, i]
            tmp = out[d, i]
            out[d, i] = out[d, j]
            out[d, j] = tmp


@njit(cache=True)
def _modulo_fy(bytes_, out):  # pragma: no cover - compiled
    for d in range(bytes_.shape[0]):
        for k in range(N):
            out[d, k] = k
        for t in range(N - 1):
            i = N - 1 - t
            j = bytes_[d, t] % (i + 1)
            tmp = out[d, i]
            out[d, i] = out[d, j]
            out[d, j] = tmp


@njit(cache=True)
def _seeded_fy(seeds, out):  # pragma: no cover - compiled
    for d in range(seeds.shape[0]):
        x = seeds[d]
        for k in range(N):
            out[d, k] = k
        for t in range(N - 1):
            i = N - 1 - t
            x += np.uint64(0x9E3779B97F4A7C15)
            z = x
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z ^= z >> np.uint64(31)
            j = np.int64(((z >> np.uint64(32)) * np.uint64(i + 1)) >> np.uint64(32))
            tmp = out[d, i]
            out[d, i] = out[d, j]
            out[d, j] = tmp


def _chunked(n: int, fill: Callable[[int, np.ndarray], None]) -> np.ndarray:
    out = np.empty((n, N), np.uint8)
    for a in range(0, n, CHUNK):
        fill(a, out[a:a + CHUNK])
    return out


def fair_fisher_yates(n: int, rng: np.random.Generator) -> np.ndarray:
    """Fair decks: Fisher-Yates with unbiased j in [0, i]."""
    highs = np.arange(N, 1, -1, dtype=np.int64)  # i + 1 for i = 51..1

    def fill(_: int, out: np.ndarray) -> None:
        js = rng.integers(0, highs, size=(out.shape[0], N - 1), dtype=np.int64).astype(np.uint8)
        _fy_from_draws(js, out)
    return _chunked(n, fill)


def naive_swap(n: int, rng: np.random.Generator) -> np.ndarray:
    """Swap each position with a uniform position of the whole deck."""
    def fill(_: int, out: np.ndarray) -> None:
        _forward_swaps(rng.integers(0, N, size=(out.shape[0], N), dtype=np.uint8), out)
    return _chunked(n, fill)


def asf_off_by_one(n: int, rng: np.random.Generator) -> np.ndarray:
    """The ASF / Planet Poker shuffle: swap each position with a uniform one of the first 51."""
    def fill(_: int, out: np.ndarray) -> None:
        _forward_swaps(rng.integers(0, N - 1, size=(out.shape[0], N), dtype=np.uint8), out)
    return _chunked(n, fill)


def eight_bit_modulo(n: int, rng: np.random.Generator) -> np.ndarray:
    """Fisher-Yates with j = (uniform byte) mod (i + 1)."""
    def fill(_: int, out: np.ndarray) -> None:
        _modulo_fy(rng.integers(0, 256, size=(out.shape[0], N - 1), dtype=np.uint8), out)
    return _chunked(n, fill)


def seed32(n: int, rng: np.random.Generator) -> np.ndarray:
    """Decks fully determined by a uniform 32-bit seed."""
    def fill(_: int, out: np.ndarray) -> None:
        _seeded_fy(rng.integers(0, 2**32, size=out.shape[0], dtype=np.uint64), out)
    return _chunked(n, fill)


SHUFFLES: dict[str, Callable[[int, np.random.Generator], np.ndarray]] = {
    "fair": fair_fisher_yates,
    "naive_swap": naive_swap,
    "asf_off_by_one": asf_off_by_one,
    "eight_bit_modulo": eight_bit_modulo,
    "seed32": seed32,
}


def _seats_of(n: int, seats: int, first_hand: int, rotate: bool) -> np.ndarray:
    """(n, seats): the seat dealt the j-th card of each round in hand ``first_hand + i``: with
    ``rotate`` the button is seat h % seats and the first card goes to the seat on its left."""
    j = np.arange(seats, dtype=np.int64)
    if not rotate:
        return np.broadcast_to(j, (n, seats))
    h = np.arange(first_hand, first_hand + n, dtype=np.int64)[:, None]
    return (h + 1 + j) % seats


def deal_hole(decks: np.ndarray, seats: int = 9, first_hand: int = 0,
              rotate: bool = False) -> np.ndarray:
    """Hole cards as a dealer would take them from the top: the seat of the j-th card of a round
    gets positions j and j + seats (seat j itself; with ``rotate`` the button moves one seat a
    hand, ``first_hand`` being the first deck's hand number). (n, 2 * seats) int64, seat s in
    columns 2s, 2s + 1. Calibration only."""
    d = decks.astype(np.int64)
    n = d.shape[0]
    hole = np.empty((n, 2 * seats), np.int64)
    who = _seats_of(n, seats, first_hand, rotate)
    rows = np.arange(n)[:, None]
    hole[rows, 2 * who] = d[:, :seats]
    hole[rows, 2 * who + 1] = d[:, seats:2 * seats]
    return hole


def _class_key(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(class 0 pair / 1 suited / 2 offsuit, order within the class: higher is better)."""
    ra, rb = a // 4, b // 4
    hi, lo = np.maximum(ra, rb), np.minimum(ra, rb)
    kind = np.where(ra == rb, 0, np.where(a % 4 == b % 4, 1, 2))
    return kind, hi * 13 + lo


def seat0_best_of_class(decks: np.ndarray, seats: int = 9, first_hand: int = 0) -> np.ndarray:
    """The rig of issue 23's H3 on decks dealt by ``deal_hole(..., rotate=True)``: seat 0's
    hand is swapped with the best hand of its class at the table (a copy; the decks stay
    permutations)."""
    d = np.array(decks, copy=True)
    n = d.shape[0]
    who = _seats_of(n, seats, first_hand, True)
    pos0 = np.argmax(who == 0, axis=1)  # the round position of seat 0
    a, b = d[:, :seats].astype(np.int64), d[:, seats:2 * seats].astype(np.int64)
    kind, key = _class_key(a, b)
    rows = np.arange(n)
    mine = kind[rows, pos0]
    score = np.where(kind == mine[:, None], key, -1)
    best = np.argmax(score, axis=1)
    for off in (0, seats):
        x, y = d[rows, pos0 + off].copy(), d[rows, best + off].copy()
        d[rows, pos0 + off], d[rows, best + off] = y, x
    return d


@njit(cache=True)
def _pair_up(d, first, second, u, pick, q):  # pragma: no cover - compiled
    """Per deck and pair of positions (first[j], second[j]): with probability q (``u`` < q),
    when the card at ``second`` does not pair the one at ``first``, swap it with a card of the
    first's rank found among the positions after the last hole card (``pick`` chooses which)."""
    n = d.shape[0]
    top = 0
    for j in range(second.size):
        top = max(top, second[j] + 1)
    for i in range(n):
        for j in range(first.size):
            if u[i, j] >= q:
                continue
            r = d[i, first[j]] // 4
            if d[i, second[j]] // 4 == r:
                continue
            cands = 0
            for k in range(top, N):
                if d[i, k] // 4 == r:
                    cands += 1
            if cands == 0:
                continue
            want = int(pick[i, j] * cands)
            for k in range(top, N):
                if d[i, k] // 4 == r:
                    if want == 0:
                        tmp = d[i, k]
                        d[i, k] = d[i, second[j]]
                        d[i, second[j]] = tmp
                        break
                    want -= 1


def pair_rig(decks: np.ndarray, seats: int, q: float, rng: np.random.Generator,
             only_seat: int | None = None) -> np.ndarray:
    """A dealer that pairs hole cards (a copy; decks stay permutations): the hand dealt
    positions j and j + ``seats`` (every j, or ``only_seat``'s positions alone) has, with
    probability ``q``, its second card swapped with an undealt card of its first card's rank.
    ``q`` = 1/16 makes about 6% more pairs at every seat (pairs 1/17 -> (1 + 16 q) / 17);
    ``only_seat=0, seats=6, q=0.5``: positions 0 and 6 a pair 53% of the time."""
    d = np.array(decks, copy=True)
    js = np.arange(seats) if only_seat is None else np.array([only_seat])
    first, second = js.astype(np.int64), (js + seats).astype(np.int64)
    n = d.shape[0]
    _pair_up(d, first, second, rng.random((n, js.size)), rng.random((n, js.size)), q)
    return d


def player_pair_rig(decks: np.ndarray, seats: int, players: np.ndarray, targeted: np.ndarray,
                    q: float, rng: np.random.Generator, first_hand: int = 0) -> np.ndarray:
    """A dealer that pairs the hole cards of targeted players (a copy; decks stay
    permutations), on decks dealt by ``deal_hole(..., rotate=True)``: ``players`` and
    ``targeted`` are (n, seats) by absolute seat; a targeted seat's second card is swapped with
    an undealt card of its first card's rank with probability ``q`` (pairs (1 + 16 q) times as
    often)."""
    d = np.array(decks, copy=True)
    n = d.shape[0]
    who = _seats_of(n, seats, first_hand, True)  # the seat of each card of a round
    u = rng.random((n, seats))
    u[~np.take_along_axis(np.asarray(targeted, bool), who, axis=1)] = 1.0
    js = np.arange(seats, dtype=np.int64)
    _pair_up(d, js, js + seats, u, rng.random((n, seats)), q)
    return d
