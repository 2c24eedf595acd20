"""The compiled PHH scanner: a ``.phh``/``.phhs`` file's bytes -> a ``HandBlock`` of the hands
it reads with certainty, every other section flagged for the Python reader
(``sim.histories.read.phh``).

``scan(data, many=...)`` splits the file into its sections exactly as
``sim.histories.read.sections`` does (a ``.phhs`` file on its ``[key]`` header lines, a ``.phh``
file as one section) and reads, in
one compiled pass, each section written in the plain form PokerKit and the sites' exports use:

- lines ``key = value`` (bare key; spaces or tabs; ``\\n`` or ``\\r\\n``) and blank lines;
- the known PHH keys only, each once; values on their line: literal strings (``'...'``, and
  ``'''...'''`` for a scalar string), integers and decimals ``[-]digits[.digits]`` (no leading
  zeros, underscores, exponents or ``+``), ``inf`` in ``starting_stacks``, ``true``/``false``,
  a time ``HH:MM:SS``, one-line arrays of these (a trailing comma allowed);
- actions ``d db``, ``d dh``, ``f``, ``cc``, ``cbr``, ``sm`` (cards, ``????``, ``-`` or none).

A section is ``fast`` only when the Python path (``reads_phh`` then ``block_from_hands``) reads
it without an error and gives the very same block: every check of
``sim.histories.read.phh.hand_from_dict``, ``_numbers``, ``parse_action`` and
``PhhHand.in_minor_units`` the section needs is made here, and anything outside the form above (a
comment, a double-quoted string, a multi-line array, an unknown key, a number form, a 7th decimal, a
name twice, ...) leaves the section to the Python reader, which gives its result or its skip reason.
``file_ok`` is False when the split itself is in doubt (a BOM, not UTF-8, text before the first
header, a header-like line that is not a plain ``[key]`` header, a key twice, a multi-line string or
array open at a section's end (the Python reader may then read the whole file at once)): the caller
reads the whole file in Python.

Amounts are integers of ``10**-6`` (``MAX_SCALE``) of the file's unit; ``HandBlock.rescale``
brings a block to the import's exponent. The block's strings are UTF-8 slices of the buffer,
gathered into one Arrow array per file (no Python object per hand).

Never a crash, a hang or a read out of bounds on hostile bytes: every loop is bounded by the
buffer, a section over ``MAX_SECTION_BYTES`` is not parsed, arrays grow as needed
(tests/sim/histories/test_phh_scan.py also runs clean under ``NUMBA_BOUNDSCHECK=1``).

Cost: about 4-5 µs of CPU per hand of the realhands sample (2 shared cores; the compiled
kernel about 4, the Python around it about 30 µs per file: a one-hand ``.phh`` file costs
that much). ``holdem bench import`` times it (its ``scan`` step).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
from numba import njit

from sim.histories.read.block import MAX_ACTION_CARDS, HandBlock
from sim.histories.read.phh import MAX_SCALE

__all__ = ["Scan", "scan"]

assert MAX_SCALE == 6 and MAX_ACTION_CARDS == 5  # the kernel's constants below

# the keys a fast section may hold (field ids: their index)
_KEY_NAMES = ("variant", "ante_trimming_status", "antes", "blinds_or_straddles", "min_bet",
              "small_bet", "big_bet", "starting_stacks", "actions", "finishing_stacks",
              "players", "winnings", "hand", "table", "seats", "seat_count", "time", "day",
              "month", "year", "time_zone_abbreviation", "venue", "currency", "currency_symbol")
F_VARIANT, F_TRIM, F_ANTES, F_BLINDS, F_MIN, F_SMALL, F_BIG, F_STACKS, F_ACTIONS, F_FINISH, \
    F_PLAYERS, F_WIN, F_HAND, F_TABLE, F_SEATS, F_SEATC, F_TIME, F_DAY, F_MONTH, F_YEAR, \
    F_ZONE, F_VENUE, F_CUR, F_CURSYM = range(24)
NF = len(_KEY_NAMES)
_KEYS = np.zeros((NF, 32), np.uint8)
_KLEN = np.zeros(NF, np.int64)
for _i, _k in enumerate(_KEY_NAMES):
    _KEYS[_i, : len(_k)] = np.frombuffer(_k.encode(), np.uint8)
    _KLEN[_i] = len(_k)

# per-hand columns of the kernel's table
(H_N, H_VARIANT, H_TRIM, H_MIN, H_SMALL, H_BIG, H_HB, H_HF, H_HW, H_HS, H_HP, H_SEATC,
 H_SCALE, H_YEAR, H_MONTH, H_DAY, H_HOUR, H_MINUTE, H_SECOND, H_NACT) = range(20)
H_STR = 20  # then (start, end) byte spans of the 7 string columns
S_SECTION, S_HAND, S_VENUE, S_TABLE, S_ZONE, S_CUR, S_CURSYM = range(7)
NH = H_STR + 14
# per-player columns
P_STACK, P_ANTE, P_BLIND, P_FIN, P_WIN, P_SEAT, P_NS, P_NE = range(8)
NP = 8
# per-action columns
A_VERB, A_ACTOR, A_PLAYER, A_AMOUNT, A_NCARDS, A_DASH, A_CARD = range(7)
NA = A_CARD + 5

MAX_PLAYERS = 64  # a fast hand has at most this many players (more: the Python reader)
MAX_SECTION_BYTES = 1_000_000  # sim.histories.read.sections.MAX_SECTION_CHARS (bytes >= characters)
_UNIT = 1_000_000  # 10**MAX_SCALE
_MAX_WHOLE = 9_000_000_000_000  # a whole part below this fits int64 at 6 decimals


# card ranks and suits by byte (sim.cards.parse_card: case-insensitive), -1 for others
_RANK_OF = np.full(256, -1, np.int64)
_SUIT_OF = np.full(256, -1, np.int64)
for _i, _c in enumerate("23456789TJQKA"):
    _RANK_OF[ord(_c)] = _RANK_OF[ord(_c.lower())] = _i
for _i, _c in enumerate("cdhs"):
    _SUIT_OF[ord(_c)] = _SUIT_OF[ord(_c.upper())] = _i


@njit(cache=True)
def _utf8_ok(b):
    """Strict UTF-8 as Python's decoder takes it (no overlongs, surrogates or > U+10FFFF)."""
    n = len(b)
    i = 0
    while i < n:
        c = b[i]
        if c < 0x80:
            i += 1
            if i + 8 <= n and (i & 7) == 0:  # ASCII 8 bytes at a time
                w = b[i : n - (n - i) % 8].view(np.uint64)
                j = 0
                while j < len(w) and (w[j] & np.uint64(0x8080808080808080)) == 0:
                    j += 1
                i += 8 * j
            continue
        if 0xC2 <= c <= 0xDF:
            k = 1
        elif 0xE0 <= c <= 0xEF:
            k = 2
        elif 0xF0 <= c <= 0xF4:
            k = 3
        else:
            return False
        if i + k >= n:
            return False
        c1 = b[i + 1]
        lo1, hi1 = 0x80, 0xBF
        if c == 0xE0:
            lo1 = 0xA0
        elif c == 0xED:
            hi1 = 0x9F
        elif c == 0xF0:
            lo1 = 0x90
        elif c == 0xF4:
            hi1 = 0x8F
        if c1 < lo1 or c1 > hi1:
            return False
        for j in range(2, k + 1):
            if b[i + j] < 0x80 or b[i + j] > 0xBF:
                return False
        i += k + 1
    return True


@njit(cache=True, inline="always")
def _is_digit(c):
    return 48 <= c <= 57


@njit(cache=True, inline="always")
def _is_ws(c):
    return c == 32 or c == 9


@njit(cache=True, inline="always")
def _is_delim(c):
    return c == 32 or c == 9 or c == 44 or c == 93  # space tab , ]


@njit(cache=True, inline="always")
def _is_key_char(c):
    return (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122) or c == 95 or c == 45


@njit(cache=True, inline="always")
def _is_ctrl(c):
    """A character a one-line TOML string may not hold (tab allowed)."""
    return c < 9 or (10 <= c <= 31) or c == 127


@njit(cache=True, inline="always")
def _skip_ws(b, p, e):
    while p < e and _is_ws(b[p]):
        p += 1
    return p


@njit(cache=True)
def _amount(b, p, e, allow_neg, allow_inf):
    """A TOML number ``[-](0|[1-9][0-9]*)[.[0-9]+]`` (or ``inf`` when allowed) at ``p`` as
    ``sim.histories.read.phh._number`` keeps it: (status 0 bad / 1 finite / 2 inf, position after,
    units of 10**-6, decimals after trailing zeros)."""
    neg = False
    if p < e and b[p] == 45:
        neg = True
        p += 1
    if p + 3 <= e and b[p] == 105 and b[p + 1] == 110 and b[p + 2] == 102:  # inf
        p += 3
        if neg or not allow_inf or (p < e and not _is_delim(b[p])):
            return 0, p, 0, 0
        return 2, p, -1, 0
    if p >= e or not _is_digit(b[p]):
        return 0, p, 0, 0
    whole = 0
    if b[p] == 48:
        p += 1
        if p < e and _is_digit(b[p]):
            return 0, p, 0, 0  # a leading zero
    else:
        k = 0
        while p < e and _is_digit(b[p]):
            if k >= 13:
                return 0, p, 0, 0
            whole = whole * 10 + (b[p] - 48)
            k += 1
            p += 1
    frac, dec = _fraction(b, p, e)
    if frac < 0:
        return 0, p, 0, 0
    p = _after_fraction(b, p, e)
    if p < e and not _is_delim(b[p]):
        return 0, p, 0, 0
    if whole >= _MAX_WHOLE:
        return 0, p, 0, 0
    units = whole * _UNIT + frac
    if neg and units != 0 and not allow_neg:
        return 0, p, 0, 0
    return 1, p, -units if neg else units, dec


@njit(cache=True, inline="always")
def _fraction(b, p, e):
    """The ``.digits`` at ``p`` (none: 0, 0) as (units of 10**-6, decimals after trailing
    zeros); (-1, 0) when malformed or more than 6 decimals that are not zeros."""
    if p >= e or b[p] != 46:
        return 0, 0
    p += 1
    if p >= e or not _is_digit(b[p]):
        return -1, 0
    frac = 0
    dec = 0
    k = 0
    while p < e and _is_digit(b[p]):
        d = b[p] - 48
        if k < 6:
            frac = frac * 10 + d
            if d != 0:
                dec = k + 1
        elif d != 0:
            return -1, 0
        k += 1
        p += 1
    while k < 6:
        frac *= 10
        k += 1
    return frac, dec


@njit(cache=True, inline="always")
def _after_fraction(b, p, e):
    if p < e and b[p] == 46:
        p += 1
        while p < e and _is_digit(b[p]):
            p += 1
    return p


@njit(cache=True, inline="always")
def _uint(b, p, e, maxd):
    """A TOML integer without sign (no leading zero), at most ``maxd`` digits, followed by a
    delimiter or ``e``: (ok, position after, value)."""
    if p >= e or not _is_digit(b[p]):
        return False, p, 0
    s = p
    v = 0
    if b[p] == 48:
        p += 1
    else:
        while p < e and _is_digit(b[p]):
            if p - s >= maxd:
                return False, p, 0
            v = v * 10 + (b[p] - 48)
            p += 1
    if p < e and not _is_delim(b[p]):
        return False, p, 0
    return True, p, v


@njit(cache=True, inline="always")
def _literal(b, p, e, multi):
    """A literal string at ``p`` (``'...'``; ``'''...'''`` on one line when ``multi``): (ok,
    position after, start, end of its text in ``b``)."""
    if p >= e or b[p] != 39:
        return False, p, 0, 0
    if p + 2 < e and b[p + 1] == 39 and b[p + 2] == 39:
        if not multi:
            return False, p, 0, 0
        s = p + 3
        q = s
        while q + 2 < e:
            if b[q] == 39 and b[q + 1] == 39 and b[q + 2] == 39:
                break
            c = b[q]
            if c < 9 or (11 <= c <= 31) or c == 127:
                return False, p, 0, 0
            q += 1
        if q + 2 >= e:
            return False, p, 0, 0
        r = q + 3
        while r < e and b[r] == 39:
            r += 1
        if r - q > 5:
            return False, p, 0, 0
        return True, r, s, r - 3
    s = p + 1
    q = s
    while q < e and b[q] != 39:
        if _is_ctrl(b[q]):
            return False, p, 0, 0
        q += 1
    if q >= e:
        return False, p, 0, 0
    if q + 1 < e and b[q + 1] == 39:
        return False, p, 0, 0  # '' followed by a quote
    return True, q + 1, s, q


@njit(cache=True, inline="always")
def _rest_blank(b, p, e):
    return _skip_ws(b, p, e) == e


@njit(cache=True)
def _array_next(b, p, e, first):
    """After ``[`` (``first``) or an element: the position of the next element; at the
    closing ``]``, -2 - the position after it; -1 when malformed."""
    p = _skip_ws(b, p, e)
    if first:
        if p < e and b[p] == 93:
            return -2 - (p + 1)
        return p
    if p < e and b[p] == 93:
        return -2 - (p + 1)
    if p >= e or b[p] != 44:
        return -1
    p = _skip_ws(b, p + 1, e)
    if p < e and b[p] == 93:
        return -2 - (p + 1)
    return p


@njit(cache=True)
def _numbers(b, s, e, out, col, row0, n, allow_neg, allow_inf):
    """A one-line array of amounts (``_amount``'s form)
    into ``out[row0:row0 + n, col]``: (count or -1, scale)."""
    p = s
    if p >= e or b[p] != 91:
        return -1, 0
    p += 1
    k = 0
    scale = 0
    while p < e and (b[p] == 32 or b[p] == 9):
        p += 1
    if p < e and b[p] == 93:
        p += 1
    else:
        while True:
            status, p, units, dec = _amount(b, p, e, allow_neg, allow_inf)
            if status == 0:
                return -1, 0
            if k >= n:
                return -1, 0
            out[row0 + k, col] = units
            if dec > scale:
                scale = dec
            k += 1
            q = _array_next(b, p, e, False)
            if q == -1:
                return -1, 0
            if q <= -2:
                p = -2 - q
                break
            p = q
    while p < e and (b[p] == 32 or b[p] == 9):
        p += 1
    if p != e:
        return -1, 0
    return k, scale


@njit(cache=True)
def _grow(a, need):
    if need <= a.shape[0]:
        return a
    m = max(need, 2 * a.shape[0] + 16)
    out = np.empty((m, a.shape[1]), a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def _same(b, s1, e1, s2, e2):
    if e1 - s1 != e2 - s2:
        return False
    for i in range(e1 - s1):
        if b[s1 + i] != b[s2 + i]:
            return False
    return True


@njit(cache=True, inline="always")
def _cards(b, s, e, ac, a):
    """Cards ``s..e`` (``sim.histories.read.phh._parse_cards``) into action row ``a``: ok."""
    m = e - s
    if m <= 0 or (m & 1) == 1 or m > 10:
        return False
    k = m >> 1
    for i in range(k):
        c1 = b[s + 2 * i]
        c2 = b[s + 2 * i + 1]
        if c1 == 63 and c2 == 63:
            ac[a, A_CARD + i] = -1
        else:
            r = _RANK_OF[c1]
            t = _SUIT_OF[c2]
            if r < 0 or t < 0:
                return False
            ac[a, A_CARD + i] = r * 4 + t
    ac[a, A_NCARDS] = k
    return True


@njit(cache=True, inline="always")
def _player(b, s, e, n):
    """``pN`` (``sim.histories.read.phh._parse_player``: digits, leading zeros too) -> 0-based, -1
    if bad."""
    if e - s < 2 or b[s] != 112:
        return -1
    k = 0
    for i in range(s + 1, e):
        if not _is_digit(b[i]):
            return -1
        k = k * 10 + (b[i] - 48)
        if k > 1_000_000:
            k = 1_000_000
    if k < 1 or k > n:
        return -1
    return k - 1


@njit(cache=True, inline="always")
def _word_is(b, s, e, w0, w1, w2, m):
    if e - s != m:
        return False
    if b[s] != w0:
        return False
    if m > 1 and b[s + 1] != w1:
        return False
    if m > 2 and b[s + 2] != w2:
        return False
    return True


@njit(cache=True)
def _action(b, s, e, n, ac, a):
    """One action's text ``s..e`` into row ``a`` (``sim.histories.read.phh.parse_action``): (ok,
    decimals)."""
    nw = 0
    s0 = e0 = s1 = e1 = s2 = e2 = s3 = e3 = 0
    p = s
    while p < e:
        c = b[p]
        if _is_ws(c):
            p += 1
            continue
        q = p
        while q < e and not _is_ws(b[q]):
            c = b[q]
            if c < 33 or c > 126 or c == 35:  # non-ASCII, control, '#': the Python reader
                return False, 0
            q += 1
        if nw == 0:
            s0, e0 = p, q
        elif nw == 1:
            s1, e1 = p, q
        elif nw == 2:
            s2, e2 = p, q
        elif nw == 3:
            s3, e3 = p, q
        else:
            return False, 0
        nw += 1
        p = q
    if nw < 2:
        return False, 0
    for j in range(A_CARD, NA):
        ac[a, j] = -1
    ac[a, A_NCARDS] = 0
    ac[a, A_DASH] = 0
    ac[a, A_AMOUNT] = 0
    if _word_is(b, s0, e0, 100, 0, 0, 1):  # d
        ac[a, A_ACTOR] = -1
        if _word_is(b, s1, e1, 100, 98, 0, 2):  # db
            if nw != 3:
                return False, 0
            ac[a, A_VERB] = 1
            ac[a, A_PLAYER] = -1
            return _cards(b, s2, e2, ac, a), 0
        if _word_is(b, s1, e1, 100, 104, 0, 2):  # dh
            if nw != 4:
                return False, 0
            pl = _player(b, s2, e2, n)
            if pl < 0:
                return False, 0
            ac[a, A_VERB] = 0
            ac[a, A_PLAYER] = pl
            return _cards(b, s3, e3, ac, a), 0
        return False, 0
    pl = _player(b, s0, e0, n)
    if pl < 0:
        return False, 0
    ac[a, A_ACTOR] = pl
    ac[a, A_PLAYER] = pl
    if _word_is(b, s1, e1, 102, 0, 0, 1):  # f
        ac[a, A_VERB] = 2
        return nw == 2, 0
    if _word_is(b, s1, e1, 99, 99, 0, 2):  # cc
        ac[a, A_VERB] = 3
        return nw == 2, 0
    if _word_is(b, s1, e1, 99, 98, 114, 3):  # cbr
        if nw != 3:
            return False, 0
        ac[a, A_VERB] = 4
        units, dec = _bet(b, s2, e2)
        if units <= 0:
            return False, 0
        ac[a, A_AMOUNT] = units
        return True, dec
    if _word_is(b, s1, e1, 115, 109, 0, 2):  # sm
        ac[a, A_VERB] = 5
        if nw == 2:
            return True, 0
        if nw != 3:
            return False, 0
        if e2 - s2 == 1 and b[s2] == 45:  # '-'
            ac[a, A_DASH] = 1
            return True, 0
        return _cards(b, s2, e2, ac, a), 0
    return False, 0


@njit(cache=True, inline="always")
def _bet(b, s, e):
    """A ``cbr`` amount ``[0-9]+[.[0-9]+]`` (``sim.histories.read.phh._parse_amount``, leading zeros
    too): (units of 10**-6, or -1 when not certain; decimals)."""
    p = s
    whole = 0
    while p < e and 48 <= b[p] <= 57:
        whole = whole * 10 + (b[p] - 48)
        if whole >= _MAX_WHOLE:
            return -1, 0
        p += 1
    if p == s:
        return -1, 0
    frac, dec = _fraction(b, p, e)
    if frac < 0:
        return -1, 0
    p = _after_fraction(b, p, e)
    if p != e:
        return -1, 0
    return whole * _UNIT + frac, dec


@njit(cache=True)
def _scalar_amount(b, s, e, out, row, col):
    """``key = AMOUNT`` (non-negative, finite) into ``out[row, col]``: decimals, -1 if bad."""
    st, p, units, dec = _amount(b, s, e, False, False)
    if st != 1 or not _rest_blank(b, p, e):
        return -1
    out[row, col] = units
    return dec


@njit(cache=True)
def _scalar_uint(b, s, e, maxd):
    ok, p, v = _uint(b, s, e, maxd)
    if not ok or not _rest_blank(b, p, e):
        return -1
    return v


@njit(cache=True)
def _text(b, s, e, hd, h, col, int_too):
    """``key = 'text'`` (or an integer, kept as its digits, when ``int_too``): its span into
    ``hd[h]`` string column ``col``; ok."""
    ok, p, ts, te = _literal(b, s, e, True)
    if not ok and int_too:
        ok, p, v = _uint(b, s, e, 18)
        ts, te = s, p
    if not ok or not _rest_blank(b, p, e):
        return False
    hd[h, H_STR + 2 * col] = ts
    hd[h, H_STR + 2 * col + 1] = te
    return True


@njit(cache=True, inline="always")
def _key_id(b, s, e):
    m = e - s
    for f in range(NF):
        if _KLEN[f] != m:
            continue
        same = True
        for i in range(m):
            if _KEYS[f, i] != b[s + i]:
                same = False
                break
        if same:
            return f
    return -1


@njit(cache=True)
def _fields(b, bs, be, fs, fe):
    """The ``key = value`` lines of ``bs..be``: each known key's value span into ``fs``/``fe``
    (-1 absent); False for any other line, an unknown key or a key twice."""
    for f in range(NF):
        fs[f] = -1
        fe[f] = -1
    p = bs
    while p < be:
        q = p
        while q < be and b[q] != 10:
            q += 1
        e = q
        if e > p and b[e - 1] == 13 and q < len(b):
            e -= 1
        x = _skip_ws(b, p, e)
        p = q + 1
        if x == e:
            continue
        k0 = x
        while x < e and _is_key_char(b[x]):
            x += 1
        if x == k0:
            return False
        f = _key_id(b, k0, x)
        if f < 0 or fs[f] >= 0:
            return False
        x = _skip_ws(b, x, e)
        if x >= e or b[x] != 61:
            return False
        fs[f] = _skip_ws(b, x + 1, e)
        fe[f] = e
    return True


@njit(cache=True)
def _hand(b, bs, be, hd, h, pl, p0, ac, a0, fs, fe):
    """The section body ``bs..be`` into hand row ``h``, players from ``p0``, actions from
    ``a0``: (ok, players, actions, pl, ac) (the arrays grown as needed)."""
    if not _fields(b, bs, be, fs, fe):
        return False, 0, 0, pl, ac
    if fs[F_VARIANT] < 0 or fs[F_ANTES] < 0 or fs[F_STACKS] < 0 or fs[F_ACTIONS] < 0:
        return False, 0, 0, pl, ac
    # variant
    ok, p, ts, te = _literal(b, fs[F_VARIANT], fe[F_VARIANT], True)
    if not ok or not _rest_blank(b, p, fe[F_VARIANT]) or te - ts != 2 or b[ts + 1] != 84:
        return False, 0, 0, pl, ac
    c = b[ts]
    variant = 0 if c == 78 else (1 if c == 80 else (2 if c == 70 else -1))  # N P F
    if variant < 0 or fs[F_BLINDS] < 0:
        return False, 0, 0, pl, ac
    if variant == 2:
        if fs[F_SMALL] < 0 or fs[F_BIG] < 0:
            return False, 0, 0, pl, ac
    elif fs[F_MIN] < 0:
        return False, 0, 0, pl, ac
    hd[h, H_VARIANT] = variant
    # per-player amounts
    pl = _grow(pl, p0 + MAX_PLAYERS)
    n, scale = _numbers(b, fs[F_STACKS], fe[F_STACKS], pl, P_STACK, p0, MAX_PLAYERS,
                        False, True)
    if n < 2:
        return False, 0, 0, pl, ac
    k, sc = _numbers(b, fs[F_ANTES], fe[F_ANTES], pl, P_ANTE, p0, n, False, False)
    if k != n:
        return False, 0, 0, pl, ac
    scale = max(scale, sc)
    k, sc = _numbers(b, fs[F_BLINDS], fe[F_BLINDS], pl, P_BLIND, p0, n, True, False)
    if k != n:
        return False, 0, 0, pl, ac
    scale = max(scale, sc)
    hd[h, H_HB] = 1
    for col, f, hc in ((P_FIN, F_FINISH, H_HF), (P_WIN, F_WIN, H_HW)):
        if fs[f] >= 0:
            k, sc = _numbers(b, fs[f], fe[f], pl, col, p0, n, False, False)
            if k != n:
                return False, 0, 0, pl, ac
            scale = max(scale, sc)
            hd[h, hc] = 1
        else:
            hd[h, hc] = 0
            for i in range(n):
                pl[p0 + i, col] = 0
    for f, hc in ((F_MIN, H_MIN), (F_SMALL, H_SMALL), (F_BIG, H_BIG)):
        if fs[f] >= 0:
            sc = _scalar_amount(b, fs[f], fe[f], hd, h, hc)
            if sc < 0:
                return False, 0, 0, pl, ac
            scale = max(scale, sc)
        else:
            hd[h, hc] = -1
    # ante_trimming_status
    trim = 0
    if fs[F_TRIM] >= 0:
        s, e = fs[F_TRIM], fe[F_TRIM]
        if e - s >= 4 and _word_is(b, s, s + 3, 116, 114, 117, 3) and b[s + 3] == 101:
            trim = 1
            p = s + 4
        elif (e - s >= 5 and _word_is(b, s, s + 3, 102, 97, 108, 3) and b[s + 3] == 115
              and b[s + 4] == 101):
            p = s + 5
        else:
            return False, 0, 0, pl, ac
        if not _rest_blank(b, p, e):
            return False, 0, 0, pl, ac
    hd[h, H_TRIM] = trim
    # players: literal strings, no name twice
    hd[h, H_HP] = 0
    for i in range(n):
        pl[p0 + i, P_NS] = 0
        pl[p0 + i, P_NE] = 0
    if fs[F_PLAYERS] >= 0:
        s, e = fs[F_PLAYERS], fe[F_PLAYERS]
        if s >= e or b[s] != 91:
            return False, 0, 0, pl, ac
        k = _names(b, s, e, pl, p0, n)
        if k != n:
            return False, 0, 0, pl, ac
        hd[h, H_HP] = 1
    # seats: distinct 1..999
    hd[h, H_HS] = 0
    most = 0
    for i in range(n):
        pl[p0 + i, P_SEAT] = 0
    if fs[F_SEATS] >= 0:
        s, e = fs[F_SEATS], fe[F_SEATS]
        if s >= e or b[s] != 91:
            return False, 0, 0, pl, ac
        p = s + 1
        k = 0
        first = True
        while True:
            q = _array_next(b, p, e, first)
            first = False
            if q <= -2:
                p = -2 - q
                break
            if q == -1 or k >= n:
                return False, 0, 0, pl, ac
            ok, p, v = _uint(b, q, e, 3)
            if not ok or v < 1:
                return False, 0, 0, pl, ac
            for j in range(k):
                if pl[p0 + j, P_SEAT] == v:
                    return False, 0, 0, pl, ac
            pl[p0 + k, P_SEAT] = v
            most = max(most, v)
            k += 1
        if k != n or not _rest_blank(b, p, e):
            return False, 0, 0, pl, ac
        hd[h, H_HS] = 1
    hd[h, H_SEATC] = -1
    if fs[F_SEATC] >= 0:
        v = _scalar_uint(b, fs[F_SEATC], fe[F_SEATC], 9)
        if v < 0 or (hd[h, H_HS] == 1 and most > v):
            return False, 0, 0, pl, ac
        hd[h, H_SEATC] = v
    # dates and time
    for f, hc in ((F_YEAR, H_YEAR), (F_MONTH, H_MONTH), (F_DAY, H_DAY)):
        v = -1
        if fs[f] >= 0:
            v = _scalar_uint(b, fs[f], fe[f], 9)
            if v < 0:
                return False, 0, 0, pl, ac
        hd[h, hc] = v
    hd[h, H_HOUR] = -1
    hd[h, H_MINUTE] = -1
    hd[h, H_SECOND] = -1
    if fs[F_TIME] >= 0:
        s, e = fs[F_TIME], fe[F_TIME]
        if e - s < 8 or b[s + 2] != 58 or b[s + 5] != 58 or not _rest_blank(b, s + 8, e):
            return False, 0, 0, pl, ac
        for i in (0, 1, 3, 4, 6, 7):
            if not _is_digit(b[s + i]):
                return False, 0, 0, pl, ac
        hh = (b[s] - 48) * 10 + b[s + 1] - 48
        mm = (b[s + 3] - 48) * 10 + b[s + 4] - 48
        ss = (b[s + 6] - 48) * 10 + b[s + 7] - 48
        if hh > 23 or mm > 59 or ss > 59:
            return False, 0, 0, pl, ac
        hd[h, H_HOUR] = hh
        hd[h, H_MINUTE] = mm
        hd[h, H_SECOND] = ss
    # strings
    for col in range(1, 7):
        hd[h, H_STR + 2 * col] = 0
        hd[h, H_STR + 2 * col + 1] = 0
    for f, col, int_too in ((F_HAND, S_HAND, True), (F_TABLE, S_TABLE, True),
                            (F_VENUE, S_VENUE, False), (F_ZONE, S_ZONE, False),
                            (F_CUR, S_CUR, False), (F_CURSYM, S_CURSYM, False)):
        if fs[f] >= 0 and not _text(b, fs[f], fe[f], hd, h, col, int_too):
            return False, 0, 0, pl, ac
    # actions
    k, sc, ac = _actions(b, fs[F_ACTIONS], fe[F_ACTIONS], n, ac, a0)
    if k < 0:
        return False, 0, 0, pl, ac
    scale = max(scale, sc)
    hd[h, H_N] = n
    hd[h, H_NACT] = k
    hd[h, H_SCALE] = scale
    return True, n, k, pl, ac


@njit(cache=True)
def _names(b, s, e, pl, p0, n):
    """A one-line array of literal strings, no two the same, into the name spans of rows
    ``p0...`` of ``pl``: their count, -1 if bad."""
    if s >= e or b[s] != 91:
        return -1
    p = s + 1
    k = 0
    while p < e and (b[p] == 32 or b[p] == 9):
        p += 1
    if p < e and b[p] == 93:
        p += 1
    else:
        while True:
            if p >= e or b[p] != 39 or k >= n:
                return -1
            q = p + 1
            while q < e and b[q] != 39:
                c = b[q]
                if (c < 32 and c != 9) or c == 127:
                    return -1
                q += 1
            if q >= e:
                return -1
            ts = p + 1
            for j in range(k):
                js = pl[p0 + j, P_NS]
                je = pl[p0 + j, P_NE]
                if je - js == q - ts:
                    same = True
                    for x in range(q - ts):
                        if b[js + x] != b[ts + x]:
                            same = False
                            break
                    if same:
                        return -1
            pl[p0 + k, P_NS] = ts
            pl[p0 + k, P_NE] = q
            k += 1
            p = q + 1
            q = _array_next(b, p, e, False)
            if q == -1:
                return -1
            if q <= -2:
                p = -2 - q
                break
            p = q
    while p < e and (b[p] == 32 or b[p] == 9):
        p += 1
    if p != e:
        return -1
    return k


@njit(cache=True)
def _actions(b, s, e, n, ac, a0):
    """A one-line array of literal action strings into rows ``a0...`` of ``ac`` (grown):
    (count or -1, scale, ac)."""
    if s >= e or b[s] != 91:
        return -1, 0, ac
    quotes = 0
    for i in range(s, e):
        if b[i] == 39:
            quotes += 1
    ac = _grow(ac, a0 + quotes // 2 + 1)
    p = s + 1
    k = 0
    scale = 0
    while p < e and (b[p] == 32 or b[p] == 9):
        p += 1
    if p < e and b[p] == 93:
        p += 1
    else:
        while True:
            if p >= e or b[p] != 39:
                return -1, 0, ac
            q = p + 1
            while q < e and b[q] != 39:
                c = b[q]
                if c < 32 and c != 9:
                    return -1, 0, ac
                q += 1
            if q >= e:
                return -1, 0, ac
            ok, sc = _action(b, p + 1, q, n, ac, a0 + k)
            if not ok:
                return -1, 0, ac
            if sc > scale:
                scale = sc
            k += 1
            p = q + 1
            q = _array_next(b, p, e, False)
            if q == -1:
                return -1, 0, ac
            if q <= -2:
                p = -2 - q
                break
            p = q
    while p < e and (b[p] == 32 or b[p] == 9):
        p += 1
    if p != e:
        return -1, 0, ac
    return k, scale, ac


@njit(cache=True)
def _open_at_end(b, s, e):
    """Whether a TOML lexer reading ``s..e`` ends inside an array, an inline table or a
    multi-line string (the Python reader may then read the whole file as one document)."""
    depth = 0
    i = s
    while i < e:
        c = b[i]
        if c == 35:  # '#': a comment to the end of the line
            while i < e and b[i] != 10:
                i += 1
            continue
        if c == 39 or c == 34:
            if i + 2 < e and b[i + 1] == c and b[i + 2] == c:
                j = i + 3
                while True:
                    if j + 2 >= e:
                        return True
                    if c == 34 and b[j] == 92:
                        j += 2
                        continue
                    if b[j] == c and b[j + 1] == c and b[j + 2] == c:
                        break
                    j += 1
                j += 3
                while j < e and b[j] == c:
                    j += 1
                i = j
                continue
            j = i + 1
            while j < e and b[j] != c and b[j] != 10:
                if c == 34 and b[j] == 92:
                    j += 1
                j += 1
            i = j + 1
            continue
        if c == 91 or c == 123:
            depth += 1
        elif c == 93 or c == 125:
            depth -= 1
        i += 1
    return depth > 0


@njit(cache=True)
def _key_hash(b, s, e):
    x = np.uint64(1469598103934665603)
    for i in range(s, e):
        x = (x ^ np.uint64(b[i])) * np.uint64(1099511628211)
    return x


@njit(cache=True)
def _headers(b):
    """A .phhs text's header lines: (ok, lo, key start, key end, body start) per section;
    not ok when the split is in doubt (module docstring)."""
    L = len(b)
    cap = 64
    out = np.empty((cap, 4), np.int64)
    m = 0
    p = 0
    while p < L:
        q = p
        while q < L and b[q] != 10:
            q += 1
        x = _skip_ws(b, p, q)
        if x < q and b[x] == 91:
            y = _skip_ws(b, x + 1, q)
            k0 = y
            while y < q and _is_key_char(b[y]):
                y += 1
            k1 = y
            y = _skip_ws(b, y, q)
            if k1 == k0 or y >= q or b[y] != 93:
                return False, out[:0]
            y = _skip_ws(b, y + 1, q)
            if not (y == q or (y == q - 1 and b[y] == 13 and q < L)):
                return False, out[:0]
            if m == cap:
                cap *= 2
                out = _grow(out, cap)
            out[m, 0] = p
            out[m, 1] = k0
            out[m, 2] = k1
            out[m, 3] = min(q + 1, L)
            m += 1
        elif m == 0:  # before the first header: blank lines only
            if not (x == q or (x == q - 1 and b[x] == 13 and q < L)):
                return False, out[:0]
        p = q + 1
    out = out[:m]
    if m > 1:  # a key twice: the caller reads the file
        hs = np.empty(m, np.uint64)
        for i in range(m):
            hs[i] = _key_hash(b, out[i, 1], out[i, 2])
        order = np.argsort(hs)
        for j in range(m - 1):
            i1 = order[j]
            i2 = order[j + 1]
            if hs[i1] == hs[i2] and _same(b, out[i1, 1], out[i1, 2], out[i2, 1], out[i2, 2]):
                return False, out[:0]
    return True, out


@njit(cache=True)
def _kernel(b, many):
    """The scan (``scan``): (file_ok, per section [lo, hi, key start, key end, fast], hands
    [H, NH], players [P, NP], actions [A, NA])."""
    L = len(b)
    hd = np.zeros((0, NH), np.int64)
    pl = np.zeros((0, NP), np.int64)
    ac = np.zeros((0, NA), np.int64)
    sec = np.zeros((0, 5), np.int64)
    if L >= 3 and b[0] == 0xEF and b[1] == 0xBB and b[2] == 0xBF:
        return False, sec, hd, pl, ac
    if not _utf8_ok(b):
        return False, sec, hd, pl, ac
    if many:
        ok, heads = _headers(b)
        if not ok:
            return False, sec, hd, pl, ac
    else:
        heads = np.zeros((1, 4), np.int64)  # one section: the whole text, body from 0
    m = heads.shape[0]
    sec = np.zeros((m, 5), np.int64)
    hd = np.zeros((m, NH), np.int64)
    pl = np.zeros((16 * m + MAX_PLAYERS, NP), np.int64)
    ac = np.zeros((64 * m + 16, NA), np.int64)
    fs = np.empty(NF, np.int64)
    fe = np.empty(NF, np.int64)
    h = 0
    p0 = 0
    a0 = 0
    for i in range(m):
        lo = heads[i, 0]
        hi = heads[i + 1, 0] if i + 1 < m else L
        sec[i, 0] = lo
        sec[i, 1] = hi
        sec[i, 2] = heads[i, 1]
        sec[i, 3] = heads[i, 2]
        ok = False
        if hi - lo <= MAX_SECTION_BYTES:
            ok, np_, na_, pl, ac = _hand(b, heads[i, 3] if many else 0, hi, hd, h, pl, p0,
                                         ac, a0, fs, fe)
        if ok:
            sec[i, 4] = 1
            hd[h, H_STR + 2 * S_SECTION] = heads[i, 1]
            hd[h, H_STR + 2 * S_SECTION + 1] = heads[i, 2]
            h += 1
            p0 += np_
            a0 += na_
        elif many and _open_at_end(b, lo, hi):
            return False, sec[:0], hd[:0], pl[:0], ac[:0]
    return True, sec, hd[:h], pl[:p0], ac[:a0]


@njit(cache=True)
def _gather_all(b, hd, pl):
    """The block's strings in one array: the 7 string columns of the hands (each H long),
    then the names of the hands that have ``players``: (int32 offsets, data, names)."""
    H = hd.shape[0]
    names = 0
    for h in range(H):
        if hd[h, H_HP]:
            names += hd[h, H_N]
    m = 7 * H + names
    off = np.zeros(m + 1, np.int32)
    total = 0
    for j in range(7):
        for h in range(H):
            total += hd[h, H_STR + 2 * j + 1] - hd[h, H_STR + 2 * j]
            off[j * H + h + 1] = total
    k = 7 * H
    p = 0
    for h in range(H):
        n = hd[h, H_N]
        if hd[h, H_HP]:
            for i in range(p, p + n):
                total += pl[i, P_NE] - pl[i, P_NS]
                k += 1
                off[k] = total
        p += n
    data = np.empty(max(total, 1), np.uint8)
    q = 0
    for j in range(7):
        for h in range(H):
            for x in range(hd[h, H_STR + 2 * j], hd[h, H_STR + 2 * j + 1]):
                data[q] = b[x]
                q += 1
    p = 0
    for h in range(H):
        n = hd[h, H_N]
        if hd[h, H_HP]:
            for i in range(p, p + n):
                for x in range(pl[i, P_NS], pl[i, P_NE]):
                    data[q] = b[x]
                    q += 1
        p += n
    return off, data, names


_LIST = pa.list_(pa.string())
_ONE = (pa.array([], pa.string()), pa.array(["1"], pa.string()))  # a .phh file's section


@dataclass
class Scan:
    """What ``scan`` read from one file (module docstring)."""

    file_ok: bool  # False: the caller reads the whole file with the Python reader
    sections: int  # sim.histories.read.phh.PhhFile.sections of the file (when file_ok)
    fast: np.ndarray  # bool[sections]: this section's hand is in ``block``
    lo: np.ndarray  # int64[sections]: byte offset of the section's header line
    hi: np.ndarray  # int64[sections]: byte offset where the section ends
    block: HandBlock  # the fast sections' hands in order, amounts at exponent MAX_SCALE


def scan(data: bytes, *, many: bool) -> Scan:
    """The hands of a ``.phhs`` (``many``) or ``.phh`` file's bytes that the compiled path
    reads with certainty (module docstring)."""
    b = np.frombuffer(data, np.uint8)
    ok, sec, hd, pl, ac = _kernel(b, many)
    if not ok:
        sec = np.zeros((0, 5), np.int64)
        hd, pl, ac = hd[:0], pl[:0], ac[:0]
    H = hd.shape[0]
    hc = np.ascontiguousarray(hd.T)  # per-hand columns, each contiguous
    pc = np.ascontiguousarray(pl.T)
    acc = np.ascontiguousarray(ac.T)
    n = hc[H_N]
    p_lo = np.zeros(H + 1, np.int64)
    np.cumsum(n, out=p_lo[1:])
    a_lo = np.zeros(H + 1, np.int64)
    np.cumsum(hc[H_NACT], out=a_lo[1:])
    has_players = hc[H_HP].astype(np.bool_)
    # every string of the block in one array: 7 columns of H, then the players' names
    off, data, n_names = _gather_all(b, hd, pl)
    text = pa.StringArray.from_buffers(len(off) - 1, pa.py_buffer(off), pa.py_buffer(data))

    def strings(j: int) -> pa.Array:
        return text.slice(j * H, H)

    section = strings(S_SECTION) if many else _ONE[H]
    list_off = np.zeros(H + 1, np.int32)
    np.cumsum(np.where(has_players, n, 0), out=list_off[1:])
    players = pa.Array.from_buffers(_LIST, H, [None, pa.py_buffer(list_off)],
                                    children=[text.slice(7 * H, n_names)])
    bools = hc[[H_TRIM, H_HB, H_HF, H_HW, H_HS]].astype(np.bool_)
    block = HandBlock(
        exponent=MAX_SCALE, n=n, variant=hc[H_VARIANT].astype(np.int8),
        ante_trimming=bools[0], min_bet=hc[H_MIN], small_bet=hc[H_SMALL], big_bet=hc[H_BIG],
        has_blinds=bools[1], has_finishing=bools[2], has_winnings=bools[3],
        has_seats=bools[4], has_players=has_players, seat_count=hc[H_SEATC],
        scale=hc[H_SCALE], year=hc[H_YEAR], month=hc[H_MONTH], day=hc[H_DAY],
        hour=hc[H_HOUR], minute=hc[H_MINUTE], second=hc[H_SECOND], p_lo=p_lo, a_lo=a_lo,
        stack=pc[P_STACK], ante=pc[P_ANTE], blind=pc[P_BLIND], finishing=pc[P_FIN],
        winnings=pc[P_WIN], seat=pc[P_SEAT], verb=acc[A_VERB].astype(np.int8),
        actor=acc[A_ACTOR], player=acc[A_PLAYER], amount=acc[A_AMOUNT],
        n_cards=acc[A_NCARDS], cards=np.ascontiguousarray(ac[:, A_CARD:NA]),
        dash=acc[A_DASH].astype(np.bool_), section=section, site_hand=strings(S_HAND),
        venue=strings(S_VENUE), table=strings(S_TABLE), zone=strings(S_ZONE),
        currency=strings(S_CUR), currency_symbol=strings(S_CURSYM), players=players)
    return Scan(file_ok=bool(ok), sections=int(sec.shape[0]), fast=sec[:, 4].astype(np.bool_),
                lo=sec[:, 0].copy(), hi=sec[:, 1].copy(), block=block)
