"""Deal integrity (exact), from the primary facts: the key, the deck, the manifest.

- Every deck dealt with the reproducible generator (``philox``) is the deck of its key: the
  audit derives it from ``seed_key`` with its own implementation of the documented stream
  (``audits.keyed``) and fails the first hand whose logged deck differs. ``seed_key`` must be
  ``[the manifest's seed, table_id, hand_no]`` of the hand it is logged with, and the rows'
  ``generator`` the manifest's.
- With ``os-chacha20`` (keyed from the operating system's entropy, unrecorded by design) a deck
  cannot be bound to a key: those hands are counted as ``unkeyed`` and the rest is checked.
- Every deck is a permutation of 0..51; hole cards, burns and board are the deck's cards in
  dealing order (hole cards one at a time clockwise from the first occupied seat left of the
  button, two rounds; then burn, 3 flop, burn, turn, burn, river, as far as the hand went); no
  card twice in a hand.
- A simulated run (its manifest says so, or its rows name a simulator's generator) must log every
  deck: null decks fail. Only imported hand histories (generator ``phh``) may lack them: then the
  audit is not applicable, the known cards (hole cards >= 0, board) are still checked for
  duplicates and cards at empty seats, and the certificate says the deal was not certified."""

from __future__ import annotations

import numpy as np
from numba import njit

from audits.io import Batch, string_is, table_order
from audits.keyed import MAX_BLOCKS, derive_deck, keyed_deck_matches
from audits.result import Partial, partial_from_codes
from audits.runfolder import batch_index
from audits.spec import AuditSpec

KEYED, UNKEYED, IMPORTED = "philox", "os-chacha20", "phh"  # the generators a row may name

MESSAGES = {
    1: "deck not a permutation of 0..51: position {aux} holds {card_logged}, the rules give "
       "each of the 52 cards once",
    2: "hole cards of seat {aux} are not the deck's cards in dealing order: the log says "
       "{card_logged}, the rules give {card_expected}",
    3: "empty seat {aux} holds cards: the log says {card_logged}, the rules give none",
    4: "burn/board card not the deck's card in dealing order: deck position {aux}, the log says "
       "{card_logged}, the rules give {card_expected}",
    5: "card {card_logged} appears twice in the hand, the rules give each card once",
    6: "burns and board lengths disagree: {logged} burns for a board of {aux} cards, the rules "
       "give {expected} burns (one a street dealt)",
    7: "deck is not the deck of its seed_key (philox stream, docs/engine.md 'Randomness'): "
       "position {aux} holds {card_logged}, the rules give {card_expected} (the key's deck)",
    8: "seed_key is not [run seed, table_id, hand_no] of this hand: entry {aux} is {key_logged}, "
       "the rules give {key_expected} (entry 3: its number of words)",
    9: "no deck logged in a simulated run (only imported hand histories may lack decks): the "
       "rules give every simulated hand its deck",
    10: "generator column differs from the run's manifest: the log says {generator}, the rules "
        "give the manifest's {manifest_generator}",
    11: "unknown generator: the log says {generator}, the rules give philox, os-chacha20 or phh",
    12: "table_id is not structure << 40 | batch << 20 | table: part {aux} (0 the structure, 1 "
        "the batch) is {logged}, the rules give {expected}",
    13: "the hand numbers of its table do not run 0, 1, 2, ... in order: hand_no {logged}, the "
        "rules give {expected}",
    14: "the table numbers of its batch are not consecutive: table {logged}, the rules give "
        "{expected}",
    15: "a tournament table's first hand does not start every player with the same stack: seat "
        "{aux} starts with {logged}, the rules give {expected} (the first seat's)",
}

KEY_FIELDS = ("seed", "table_id", "hand_no")


@njit(cache=True)
def _deal_kernel(deck, hole, occupied, button, bv, boff, dv, doff, codes, aux, logged,
                 expected):
    # logged / expected: what the log says and what the rules give (cards, counts), on failures
    n, k = occupied.shape
    one = np.uint64(1)
    for i in range(n):
        # permutation: 52 cards, each in 0..51, every one of the 52 bits set (sets of cards are
        # 64-bit masks, bit c = card c)
        seen = np.uint64(0)
        bad = False
        for j in range(52):
            c = deck[i, j]
            bad |= c < 0 or c > 51
            seen |= one << np.uint64(c & 63)
        if bad or seen != (one << np.uint64(52)) - one:
            codes[i] = 1
            continue
        # hole cards
        m = 0
        for s in range(k):
            if occupied[i, s]:
                m += 1
            elif hole[i, 2 * s] != -1 or hole[i, 2 * s + 1] != -1:
                codes[i] = 3
                aux[i] = s
                logged[i] = hole[i, 2 * s] if hole[i, 2 * s] != -1 else hole[i, 2 * s + 1]
        if codes[i]:
            continue
        b = button[i]
        pos = 0
        for rnd in range(2):
            s = b
            for _ in range(k):
                s = s + 1 if s + 1 < k else 0
                if occupied[i, s]:
                    if hole[i, 2 * s + rnd] != deck[i, pos] and codes[i] == 0:
                        codes[i] = 2
                        aux[i] = s
                        logged[i] = hole[i, 2 * s + rnd]
                        expected[i] = deck[i, pos]
                    pos += 1
        if codes[i]:
            continue
        nb = boff[i + 1] - boff[i]
        nd = doff[i + 1] - doff[i]
        if not ((nd == 0 and nb == 0) or (nd >= 3 and nd <= 5 and nb == nd - 2)):
            codes[i] = 6
            aux[i] = nd
            logged[i] = nb
            expected[i] = nd - 2 if nd >= 3 else 0
            continue
        for street in range(nb):
            if bv[boff[i] + street] != deck[i, pos] and codes[i] == 0:
                codes[i] = 4
                aux[i] = pos
                logged[i] = bv[boff[i] + street]
                expected[i] = deck[i, pos]
            pos += 1
            lo = 0 if street == 0 else street + 2
            hi = 3 if street == 0 else street + 3
            for t in range(lo, hi):
                if dv[doff[i] + t] != deck[i, pos] and codes[i] == 0:
                    codes[i] = 4
                    aux[i] = pos
                    logged[i] = dv[doff[i] + t]
                    expected[i] = deck[i, pos]
                pos += 1
        if codes[i]:
            continue
        # no card twice among everything dealt (hole, burns, board)
        seen = np.uint64(0)
        for j in range(2 * k):
            c = hole[i, j]
            if c >= 0:
                if c > 51 or (seen >> np.uint64(c)) & one:
                    codes[i] = 5
                    aux[i] = c
                    break
                seen |= one << np.uint64(c)
        for j in range(boff[i], boff[i + 1]):
            c = bv[j]
            if c < 0 or c > 51 or (seen >> np.uint64(c)) & one:
                codes[i] = 5
                aux[i] = c
            else:
                seen |= one << np.uint64(c)
        for j in range(doff[i], doff[i + 1]):
            c = dv[j]
            if c < 0 or c > 51 or (seen >> np.uint64(c)) & one:
                codes[i] = 5
                aux[i] = c
            else:
                seen |= one << np.uint64(c)


@njit(cache=True)
def _known_cards_kernel(hole, occupied, dv, doff, codes, aux, logged):
    """Without a deck: empty seats hold no cards and no known card (>= 0) appears twice."""
    n, k = occupied.shape
    seen = np.zeros(52, np.int64)
    for i in range(n):
        seen[:] = 0
        for s in range(k):
            if not occupied[i, s] and (hole[i, 2 * s] != -1 or hole[i, 2 * s + 1] != -1):
                codes[i] = 3
                aux[i] = s
                logged[i] = hole[i, 2 * s] if hole[i, 2 * s] != -1 else hole[i, 2 * s + 1]
        if codes[i]:
            continue
        for j in range(2 * k):
            c = hole[i, j]
            if c >= 0:
                if c > 51 or seen[c]:
                    codes[i] = 5
                    aux[i] = c
                    break
                seen[c] = 1
        if codes[i]:
            continue
        for j in range(doff[i], doff[i + 1]):
            c = dv[j]
            if c < 0 or c > 51 or seen[c]:
                codes[i] = 5
                aux[i] = c
                break
            seen[c] = 1


def _generator_codes(b: Batch) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the generator's kind (0 keyed, 1 unkeyed, 2 imported, -1 unknown) and the codes
    of rows whose generator is unknown (11) or differs from the manifest's (10). Decided once per
    distinct value (the column is dictionary-encoded), then spread to the rows."""
    values = b.cols["generator_values"]
    expected = b.context.get("generator")
    kinds = {KEYED: 0, UNKEYED: 1, IMPORTED: 2}
    kind_of = np.array([kinds.get(v, -1) for v in values] + [-1], np.int8)
    code_of = np.array([11 if v not in kinds else 10 if expected is not None and v != expected
                        else 0 for v in values] + [11], np.int32)
    idx = b.cols["generator"]
    if idx.dtype.kind == "f":  # nulls in the column (indices as floats, NaN): unknown
        idx = np.where(np.isnan(idx), len(values), idx).astype(np.int64)
    return kind_of[idx], code_of[idx]


@njit(cache=True, _nrt=False)
def _bind_keys(kind, skv, skoff, table_id, hand_no, seed, check_seed, deck, has_deck, codes,
               aux, buf, stream, draws, work, key_logged,
               key_expected):  # pragma: no cover - compiled
    """For each simulated row still passing: ``seed_key`` must be [run seed, table_id, hand_no]
    (code 8, aux = the entry; 3 = not three words), and a philox row's deck must be its key's
    (code 7). Returns the number of decks checked against their keys."""
    keyed = 0
    for i in range(kind.shape[0]):
        if codes[i] != 0 or kind[i] < 0 or kind[i] > 1:
            continue
        lo = skoff[i]
        if skoff[i + 1] - lo != 3:
            codes[i] = 8
            aux[i] = 3
            key_logged[i] = skoff[i + 1] - lo
            key_expected[i] = 3
            continue
        s0, s1, s2 = skv[lo], skv[lo + 1], skv[lo + 2]
        if check_seed and s0 != seed:
            codes[i] = 8
            aux[i] = 0
            key_logged[i], key_expected[i] = s0, seed
        elif s1 != np.uint64(table_id[i]):
            codes[i] = 8
            aux[i] = 1
            key_logged[i], key_expected[i] = s1, np.uint64(table_id[i])
        elif s2 != np.uint64(hand_no[i]):
            codes[i] = 8
            aux[i] = 2
            key_logged[i], key_expected[i] = s2, np.uint64(hand_no[i])
        elif has_deck and kind[i] == 0:
            keyed += 1
            if not keyed_deck_matches(s0, s1, s2, deck[i], buf, stream, draws, work):
                codes[i] = 7
    return keyed


@njit(cache=True, _nrt=False)
def _numbering(order, table_id, hand_id, hand_no, batch, tourn, occ, start, kind, codes,
               aux, logged, expected):  # pragma: no cover - compiled
    """The layout the key depends on (docs/log-schema.md): table_id = structure << 40 |
    batch << 20 | table, its structure the hand_id's and its batch the file's (``batch`` < 0:
    unknown); each table's hands numbered 0, 1, 2, ... (a chunk holds whole tables); the tables
    of a batch numbered consecutively; a tournament table starting every player level. So a
    hand cannot be given another key than its place in the run's numbering."""
    k = occ.shape[1]
    prev_t = np.int64(-1)
    expect = 0
    for q in range(order.shape[0]):
        i = order[q]
        t = np.int64(table_id[i])
        if t != prev_t:
            if (prev_t >= 0 and (prev_t >> 20) == (t >> 20)
                    and (t & 0xFFFFF) != (prev_t & 0xFFFFF) + 1 and codes[i] == 0
                    and (kind[i] == 0 or kind[i] == 1)):
                codes[i] = 14
                logged[i] = t & 0xFFFFF
                expected[i] = (prev_t & 0xFFFFF) + 1
            prev_t = t
            expect = 0
        if kind[i] != 0 and kind[i] != 1:
            expect = hand_no[i] + 1
            continue
        if codes[i] == 0:
            if (t >> 40) != (np.int64(hand_id[i]) >> 40):
                codes[i] = 12
                aux[i] = 0
                logged[i] = t >> 40
                expected[i] = np.int64(hand_id[i]) >> 40
            elif batch >= 0 and ((t >> 20) & 0xFFFFF) != batch:
                codes[i] = 12
                aux[i] = 1
                logged[i] = (t >> 20) & 0xFFFFF
                expected[i] = batch
            elif hand_no[i] != expect:
                codes[i] = 13
                logged[i] = hand_no[i]
                expected[i] = expect
            elif tourn[i] and hand_no[i] == 0:
                first = -1
                for s in range(k):
                    if occ[i, s]:
                        if first < 0:
                            first = start[i, s]
                        elif start[i, s] != first:
                            codes[i] = 15
                            aux[i] = s
                            logged[i] = start[i, s]
                            expected[i] = first
                            break
        expect = hand_no[i] + 1


class _Why:
    """What the log says and what the rules give for a batch's failing hands (ints, cards and
    seed_key words), filled by the kernels on a failure and for a few codes after them."""

    def __init__(self, n: int) -> None:
        self.logged = np.zeros(n, np.int64)
        self.expected = np.zeros(n, np.int64)
        self.key_logged = np.zeros(n, np.uint64)
        self.key_expected = np.zeros(n, np.uint64)

    def partial(self, b: Batch, codes: np.ndarray, aux: np.ndarray) -> Partial:
        """The batch's Partial, its reasons with both values (codes 1, 5, 7, 10 and 11 are
        explained here, for the failing hands only)."""
        values: dict[str, np.ndarray] = {
            "card_logged": self.logged, "card_expected": self.expected,
            "key_logged": self.key_logged, "key_expected": self.key_expected}
        twice = codes == 5
        self.logged[twice] = aux[twice]
        for i in np.flatnonzero((codes == 1) | (codes == 7)):
            self._deck_position(b, int(i), int(codes[i]), aux)
        gen = np.flatnonzero((codes == 10) | (codes == 11))
        if len(gen):
            names = np.array(list(b.cols["generator_values"]) + ["(none)"], dtype=object)
            idx = np.asarray(b.cols["generator"])
            idx = np.where(np.isnan(idx), len(names) - 1, idx) if idx.dtype.kind == "f" else idx
            shown = np.full(len(codes), "", dtype=object)
            shown[gen] = names[idx[gen].astype(np.int64)]
            values["generator"] = shown
            values["manifest_generator"] = np.full(len(codes), str(b.context.get("generator")),
                                                   dtype=object)
        return partial_from_codes(b.cols["hand_id"], codes, aux, MESSAGES, logged=self.logged,
                                  expected=self.expected, values=values)

    def _deck_position(self, b: Batch, i: int, code: int, aux: np.ndarray) -> None:
        """Code 1: the first position of the deck holding no card or one already seen; code 7:
        the first position where the deck differs from its key's (re-derived for this hand)."""
        assert b.deck is not None
        deck = b.deck[i].astype(np.int64)
        if code == 1:
            seen: set[int] = set()
            for pos, c in enumerate(deck):
                if not 0 <= c <= 51 or c in seen:
                    aux[i], self.logged[i] = pos, c
                    return
                seen.add(int(c))
            return
        values, off = b.var["seed_key"]
        s0, s1, s2 = (np.uint64(v) for v in values[off[i]:off[i] + 3])
        want = np.asarray(derive_deck(s0, s1, s2), np.int64)
        pos = int(np.flatnonzero(want != deck)[0])
        aux[i], self.logged[i], self.expected[i] = pos, deck[pos], want[pos]


def _check_numbering(b: Batch, kind: np.ndarray, codes: np.ndarray, aux: np.ndarray,
                     why: _Why) -> None:
    index = batch_index(b.path)
    _numbering(table_order(b), b.cols["table_id"], b.cols["hand_id"],
               b.cols["hand_no"].astype(np.int64), -1 if index is None else index,
               string_is(b, "format", "tournament"), b.seat["occupied"],
               b.seat["stacks_start"], kind, codes, aux, why.logged, why.expected)


def _check_keys(b: Batch, kind: np.ndarray, codes: np.ndarray, aux: np.ndarray,
                why: _Why) -> int:
    values, off = b.var["seed_key"]
    seed = b.context.get("seed")
    buf = np.empty(4 * MAX_BLOCKS, np.uint64)
    deck = b.deck if b.deck is not None else np.zeros((1, 52), np.int8)
    return int(_bind_keys(kind, values.astype(np.uint64, copy=False), off,
                          b.cols["table_id"], b.cols["hand_no"],
                          np.uint64(seed if seed is not None else 0), seed is not None, deck,
                          b.deck is not None, codes, aux, buf, buf.view(np.uint8),
                          np.zeros(52, np.int64), np.empty(52, np.int64), why.key_logged,
                          why.key_expected))


def deal_map(b: Batch) -> Partial:
    kind, codes = _generator_codes(b)
    aux = np.zeros(b.n, np.int64)
    why = _Why(b.n)
    simulated = bool(b.context.get("simulated")) or bool((kind != 2).any())
    totals = {"keyed": 0, "unkeyed": int((kind == 1).sum()), "imported": int((kind == 2).sum())}
    _check_numbering(b, kind, codes, aux, why)
    if b.deck is None:
        dv, doff = b.var["board"]
        _check_keys(b, kind, codes, aux, why)
        if simulated:
            # a simulated run's hands were dealt from decks: a log without them certifies nothing
            codes[codes == 0] = 9
            part = why.partial(b, codes, aux)
            part.totals = totals
            return part
        # no decks logged (imported PHH hands): the dealing order cannot be certified, so
        # the audit is not applicable; the known cards are still checked (no card twice, none
        # at an empty seat) and a violation makes it applicable and failing
        known = np.zeros(b.n, np.int32)
        kaux = np.zeros(b.n, np.int64)
        klogged = np.zeros(b.n, np.int64)
        _known_cards_kernel(b.hole, b.seat["occupied"], dv.astype(np.int64), doff, known, kaux,
                            klogged)
        take = (codes == 0) & (known != 0)
        codes[take], aux[take], why.logged[take] = known[take], kaux[take], klogged[take]
        part = why.partial(b, codes, aux)
        part.applicable = part.failures > 0
        part.totals = totals
        return part
    dealt = np.zeros(b.n, np.int32)
    daux = np.zeros(b.n, np.int64)
    dlogged = np.zeros(b.n, np.int64)
    dexpected = np.zeros(b.n, np.int64)
    bv, boff = b.var["burns"]
    dv, doff = b.var["board"]
    _deal_kernel(b.deck, b.hole, b.seat["occupied"], b.cols["button"].astype(np.int64),
                 bv.astype(np.int64), boff, dv.astype(np.int64), doff, dealt, daux, dlogged,
                 dexpected)
    take = (codes == 0) & (dealt != 0)
    codes[take] = dealt[take]
    aux[take] = daux[take]
    why.logged[take], why.expected[take] = dlogged[take], dexpected[take]
    # the key of every simulated row, and every philox deck against its key (a deck that is
    # not a permutation or not dealt in order failed above)
    totals["keyed"] = _check_keys(b, kind, codes, aux, why)
    part = why.partial(b, codes, aux)
    part.totals = totals
    return part


SPEC = AuditSpec("deal", deal_map, description=(
    "each philox deck re-derived from its key (seed_key = manifest seed, table, hand) with the "
    "audits' own Philox; hole cards, burns and board are that deck's cards in dealing order; "
    "a simulated run must log every deck"))
