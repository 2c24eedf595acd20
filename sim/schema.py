"""THE Arrow schema of a logged hand: one row per hand. Defined once, documented field by field
(docs/log-schema.md's table is generated from ``FIELDS``), pinned by a test.

Per-seat lists have ``n_seats`` entries, index = seat. Cards are ints 0..51 (``sim.cards``),
-1 where a seat is empty. Chips are int64. Action and event kinds are ``sim.layout.EventKind``.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

# the log schema version the simulator and the importer write by default (``hand_schema``)
SCHEMA_VERSION = 3  # 2: + digest; 3: + player_ids; 4 (sim.logv4, --log-version 4): lists packed
LOG_VERSION_3 = 3  # ``HAND_SCHEMA``'s: the list columns as Parquet lists

# ``actions`` is a packed little-endian record array per hand (fast to write and to audit):
ACTION_DTYPE = np.dtype([
    ("street", "i1"),
    ("seat", "i1"),
    ("kind", "i1"),
    ("to_street_total", "<i8"),
    ("added", "<i8"),
])
ACTION_RECORD_BYTES = ACTION_DTYPE.itemsize  # 19
SEAT_MASK_TYPE = pa.uint16()  # a pot's eligible and winning seats, bit s = seat s
SEAT_MASK_BITS = SEAT_MASK_TYPE.bit_width  # the seats a mask can name
POT_TYPE = pa.struct([
    ("amount", pa.int64()),
    ("rake", pa.int64()),
    ("eligible_mask", SEAT_MASK_TYPE),
    ("winners_mask", SEAT_MASK_TYPE),
])

# (name, type, documentation)
FIELDS: list[tuple[str, pa.DataType, str]] = [
    ("run_id", pa.string(), "the run's id (spec fingerprint); identical hands share it"),
    ("hand_id", pa.int64(), "unique in the run: structure << 40 | index of the hand in its "
                            "structure's stream"),
    ("table_id", pa.int64(), "unique in the run: structure << 40 | batch << 20 | table in batch"),
    ("hand_no", pa.int32(), "hand number at its table, from 0"),
    ("structure", pa.string(), "no-limit, pot-limit or fixed-limit"),
    ("format", pa.string(), "cash or tournament"),
    ("generator", pa.string(), "philox (reproducible) or os-chacha20 (not reproducible)"),
    ("seed_key", pa.list_(pa.uint64()),
     "[seed, table_id, hand_no]: with the philox generator the deck is "
     "Philox4x64(key=[seed, table_id], counter=[0, 0, hand_no, 0]) through Fisher-Yates "
     "(sim.rng); with os-chacha20 the deck comes from ChaCha20 under an unrecorded OS key"),
    ("n_seats", pa.int8(), "seats at the table"),
    ("occupied", pa.list_(pa.bool_()), "per seat: a player with chips sat there this hand"),
    ("button", pa.int8(), "button seat (may be empty under the dead-button rule)"),
    ("sb_seat", pa.int8(), "small blind seat, -1 when the small blind is dead"),
    ("bb_seat", pa.int8(), "big blind seat"),
    ("small_blind", pa.int64(), "small blind amount"),
    ("big_blind", pa.int64(), "big blind amount"),
    ("ante", pa.int64(), "ante amount (0 = none)"),
    ("ante_mode", pa.int8(), "0 none, 1 every player, 2 the big blind alone"),
    ("ante_trimming", pa.bool_(), "true: antes layered into side pots; false: dead money"),
    ("min_bet", pa.int64(), "minimum opening bet (no-limit, pot-limit)"),
    ("small_bet", pa.int64(), "fixed-limit bet pre-flop and on the flop"),
    ("big_bet", pa.int64(), "fixed-limit bet on the turn and river"),
    ("raise_cap", pa.int8(), "fixed-limit full bets/raises per street"),
    ("rake_bps", pa.int32(), "rake in basis points of the pot"),
    ("rake_cap", pa.int64(), "rake cap in chips (0 = none)"),
    ("no_flop_no_drop", pa.bool_(), "no rake when the hand ends before the flop"),
    ("level", pa.int16(), "tournament blind level (0 for cash)"),
    ("deck", pa.binary(52), "the full shuffled order of the 52 cards: byte k = the card at "
                            "position k (numpy: np.frombuffer(value, np.int8))"),
    ("hole_cards", pa.list_(pa.int8()), "2 per seat: seat s holds [2s, 2s+1]; -1 if empty"),
    ("burns", pa.list_(pa.int8()), "burned cards, in order"),
    ("board", pa.list_(pa.int8()), "board cards, in order"),
    ("policy", pa.list_(pa.int8()), "per seat bot: 0 random, 1 calling station, 2 tight-"
                                     "aggressive, 3 maniac, 4 nit, 5 regular, 6 loose-"
                                     "aggressive, 7 recreational; -1 empty"),
    ("player_ids", pa.list_(pa.int64()),
     "per seat the player's id, unique in the run and the same for all his hands: 16 * hand_id "
     "of the first hand he played + his seat (players never change seats or tables); a busted "
     "cash player who rebuys keeps his id, a new player in an emptied seat gets a new one; -1 "
     "empty. Not in the digest: it is a label derived from the table's seat history (a new id "
     "exactly where a seat was empty in the table's previous hand, or at its first hand)"),
    ("stacks_start", pa.list_(pa.int64()), "per seat chips at the start (after rebuys)"),
    ("rebuys", pa.list_(pa.int64()), "per seat chips added between the previous hand and this one"),
    ("stacks_end", pa.list_(pa.int64()), "per seat chips at the end"),
    ("contributed", pa.list_(pa.int64()), "per seat chips put in the pot (antes included), "
                                          "after uncalled returns"),
    ("returned", pa.list_(pa.int64()), "per seat uncalled chips given back"),
    ("won", pa.list_(pa.int64()), "per seat chips won from the pots"),
    ("folded", pa.list_(pa.bool_()), "per seat: folded, or left mid-hand (a LEAVE action): a "
                                     "dead hand"),
    ("timed_out", pa.list_(pa.bool_()), "per seat: timed out once (checked if free, else folded)"),
    ("rake", pa.int64(), "rake taken"),
    ("actions", pa.binary(),
     "in order: antes, blinds, a straddle, player actions, uncalled returns and leaves (a "
     "LEAVE, at anyone's turn, then the return of the leaver's uncovered bet), packed as "
     "19-byte records "
     "(int8 street, int8 seat, int8 kind, int64 to_street_total, int64 added; little-endian; "
     "numpy: np.frombuffer(value, sim.schema.ACTION_DTYPE)); kind = sim.layout.EventKind; "
     "to_street_total = the seat's street total after the action; added = chips moved"),
    ("showdown_seats", pa.list_(pa.int8()), "seats at showdown, in the order they showed or "
                                            "mucked"),
    ("showdown_shown", pa.list_(pa.bool_()), "for each showdown seat: shown (true) or mucked"),
    ("showdown_ranks", pa.list_(pa.int32()), "for each showdown seat: hand strength "
                                             "(sim.evaluator encoding; -1 if mucked)"),
    ("pots", pa.list_(POT_TYPE), "the engine's pots, main first: amount before rake, rake, "
                                 "eligible and winning seats as bitmasks (bit s = seat s)"),
    ("fault", pa.string(), "the injected fault, null for a clean engine"),
    ("digest", pa.uint64(), "the hand's 64-bit content digest (``sim.digest``, its version in the "
                            "manifest's ``digest_version``) over every other column but "
                            "``run_id``: ``holdem diff`` matches hands by it"),
]

# the text is part of every log file (each column's field metadata): it keeps its words (the
# section it names is in docs/export.md now) until the schema's next version
CARDS = "code table: cards (card = rank * 4 + suit; README, Codes)"
# every column's unit, or the code table its values come from (docs/export.md, Codes)
UNITS: dict[str, str] = {
    "run_id": "text (16 hex digits)", "hand_id": "id (int)", "table_id": "id (int)",
    "hand_no": "count (hands)", "structure": "text: no-limit|pot-limit|fixed-limit",
    "format": "text: cash|tournament", "generator": "text: philox|os-chacha20",
    "seed_key": "Philox key words (uint64)", "n_seats": "count (seats)",
    "occupied": "per seat: bool", "button": "seat index (0..n_seats-1)",
    "sb_seat": "seat index, -1 dead", "bb_seat": "seat index", "small_blind": "chips",
    "big_blind": "chips", "ante": "chips", "ante_mode": "code: 0 none, 1 every player, 2 big blind",
    "ante_trimming": "bool", "min_bet": "chips", "small_bet": "chips", "big_bet": "chips",
    "raise_cap": "count (bets and raises)", "rake_bps": "basis points of the pot",
    "rake_cap": "chips (0 = none)", "no_flop_no_drop": "bool",
    "level": "count (blind level, 0 cash)", "deck": CARDS + ", 52 bytes by deck position",
    "hole_cards": CARDS + ", -1 empty seat", "burns": CARDS, "board": CARDS,
    "policy": "code table: policies, -1 empty seat", "player_ids": "id (int), -1 empty seat",
    "stacks_start": "chips per seat", "rebuys": "chips per seat", "stacks_end": "chips per seat",
    "contributed": "chips per seat", "returned": "chips per seat", "won": "chips per seat",
    "folded": "per seat: bool", "timed_out": "per seat: bool", "rake": "chips",
    "actions": "19-byte records: street (code table: streets), seat index, kind (code table: "
               "actions), to_street_total (chips), added (chips)",
    "showdown_seats": "seat index", "showdown_shown": "bool",
    "showdown_ranks": "hand strength (code table: hand categories = value >> 20), -1 mucked",
    "pots": "amount, rake: chips; eligible_mask, winners_mask: seat bitmasks (bit s = seat s)",
    "fault": "text: a fault name (holdem simulate --inject), null clean",
    "digest": "64-bit hash (uint64)",
}

# ``holdem import``'s own columns (``holdem import`` runs only; after every other column, before
# ``digest``, which covers them). Money in the run's minor unit (manifest ``money``). No nulls:
# a sentinel marks an absent fact. Seats are the table's physical seats.
IMPORT_VERSION = 3  # 2: the tournament columns; 3: the operator's tournament claims (issue 34)
IMPORT_FIELDS: list[tuple[str, pa.DataType, str, str]] = [  # (name, type, unit, doc)
    ("source_file", pa.string(), "text (a path or URI)",
     "the source file, as listed in the manifest's ``sources[].path``"),
    ("source_section", pa.string(), "text",
     "the .phhs section key, or the hand's 1-based index in a .phh or text file"),
    ("site_hand", pa.string(), "text", "the site's hand number as written (\"\" unknown)"),
    ("venue", pa.string(), "text", "the site (PHH ``venue``; \"\" unknown)"),
    ("table_name", pa.string(), "text", "the site's table name (\"\" unknown)"),
    ("hand_time", pa.string(), "local ISO date-time (2009-07-01T00:00:30)",
     "the hand's local date and time as written (\"\" unknown)"),
    ("time_zone", pa.string(), "text (ET, CEST, GMT-0910)",
     "the time zone as written (\"\" unknown)"),
    ("time_utc", pa.int64(), "seconds since 1970-01-01 UTC, -1 unknown",
     "the hand's time in UTC when its zone is known, else -1"),
    ("currency", pa.string(), "text (ISO code or symbol)",
     "the currency as written (\"\" unknown)"),
    ("players", pa.list_(pa.string()), "per seat: text, \"\" empty seat or no name",
     "per seat the player's name as the record writes it (``player_ids``: one id per name over "
     "the run, -1 without a name)"),
    ("stack_known", pa.list_(pa.bool_()), "per seat: bool",
     "per seat: the starting stack is the record's (false: unknown, ``inf``; stacks_start is a "
     "stand-in large enough never to limit an action)"),
    ("cards_unrecorded", pa.list_(pa.bool_()), "per seat: bool",
     "per seat: reached showdown with cards the record does not hold (``sm ????``)"),
    ("op_winnings", pa.list_(pa.int64()), "minor units per seat, [] not recorded",
     "the operator's ``winnings`` as recorded (its claim; the replay's are ``won``)"),
    ("op_finishing", pa.list_(pa.int64()), "minor units per seat, [] not recorded",
     "the operator's ``finishing_stacks`` as recorded (the replay's are ``stacks_end``)"),
    ("op_rake", pa.int64(), "minor units, -1 not recorded",
     "the rake the record states (the replay's schedule rake is ``rake``)"),
    ("op_pot", pa.int64(), "minor units, -1 not recorded", "the total pot the record states"),
    ("tournament", pa.string(), "text, \"\" a cash game",
     "the tournament the hand belongs to as the record names it: its id (PokerStars "
     "``Tournament #N``, GGPoker, Winamax, Full Tilt, PartyPoker, Ongame, WPN), else its name "
     "(iPoker, PHH ``event``); ``format`` is \"tournament\" exactly when it is not \"\""),
    ("tournament_buy_in", pa.string(), "text as written, \"\" not stated",
     "the buy-in the record states for the tournament (``$0.98+$0.02``, ``€0``, ``Free``): "
     "the operator's claim, in money, never the hand's chips"),
    ("op_claim_players", pa.list_(pa.string()), "per claim: text (keyed like ``players``)",
     "the player each of the operator's tournament claims (``op_claims``, same order) is about, "
     "as the record names them"),
    ("op_claims", pa.list_(pa.string()), "per claim: ``place N``, ``prize AMOUNT``, ``bounty "
     "AMOUNT``, ``rebuy CHIPS AMOUNT``, ``add-on CHIPS AMOUNT``; [] none",
     "the operator's claims a tournament hand's text makes (finishing places, prizes, bounties, "
     "re-buys, add-ons; AMOUNT as written, CHIPS in the tournament's chips): never trusted by "
     "an audit"),
]
IMPORT_UNITS: dict[str, str] = {name: unit for name, _, unit, _ in IMPORT_FIELDS}

HAND_SCHEMA = pa.schema(
    [pa.field(name, typ, nullable=(name == "fault"), metadata={"unit": UNITS[name], "doc": doc})
     for name, typ, doc in FIELDS],
    metadata={"holdem.schema_version": str(LOG_VERSION_3)},
)

# schema version 4 (``sim.logv4``): the same columns in the same order, every list column of
# ``FIELDS`` stored as ``binary`` (its entries packed little-endian), the rest unchanged
LOG_VERSION_4 = 4
LOG_VERSIONS = (LOG_VERSION_3, LOG_VERSION_4)  # what ``holdem simulate --log-version`` writes
PACKED_DOC = ("; schema 4: binary, the row's entries packed little-endian ({width}: "
              "numpy np.frombuffer(value, {dtype}))")


def _v4_field(f: pa.Field) -> pa.Field:
    from sim import logv4

    if f.name not in logv4.ALL_PACKED:
        return f
    w = logv4.width(f.name)
    dtype = ("sim.logv4.POT_DTYPE" if f.name == "pots" else "'?'" if w == 1 and
             pa.types.is_boolean(f.type.value_type) else
             repr(np.dtype(f.type.value_type.to_pandas_dtype()).newbyteorder("<").str))
    doc = (f.metadata[b"doc"].decode()
           + PACKED_DOC.format(width=f"{w} byte{'s' if w > 1 else ''} an entry", dtype=dtype))
    return f.with_type(pa.binary()).with_metadata({b"unit": f.metadata[b"unit"], b"doc": doc})


HAND_SCHEMA_V4 = pa.schema([_v4_field(f) for f in HAND_SCHEMA],
                           metadata={"holdem.schema_version": str(LOG_VERSION_4)})


def hand_schema(version: int = SCHEMA_VERSION) -> pa.Schema:
    """The hand schema of a log ``version`` (3 or 4)."""
    if version not in LOG_VERSIONS:
        raise ValueError(f"log schema version {version}: expected one of "
                         f"{', '.join(map(str, LOG_VERSIONS))}")
    return HAND_SCHEMA_V4 if version == LOG_VERSION_4 else HAND_SCHEMA


def _field(name: str, typ: pa.DataType, unit: str, doc: str, nullable: bool) -> pa.Field:
    return pa.field(name, typ, nullable=nullable, metadata={"unit": unit, "doc": doc})


# an imported batch file: the hand columns but ``digest`` (``deck`` nullable: no deck), the
# import columns, ``digest``
IMPORT_SCHEMA = pa.schema(
    [f.with_nullable(True) if f.name == "deck" else f for f in HAND_SCHEMA
     if f.name != "digest"]
    + [_field(n, t, u, d, False) for n, t, u, d in IMPORT_FIELDS] + [HAND_SCHEMA.field("digest")],
    metadata={"holdem.schema_version": str(LOG_VERSION_3),
              "holdem.import_version": str(IMPORT_VERSION)},
)
# an imported batch file of schema version 4: the hand columns of version 4, the import columns
# as in version 3
IMPORT_SCHEMA_V4 = pa.schema(
    [HAND_SCHEMA_V4.field(f.name).with_nullable(f.nullable) if f.name in HAND_SCHEMA_V4.names
     else f for f in IMPORT_SCHEMA],
    metadata={"holdem.schema_version": str(LOG_VERSION_4),
              "holdem.import_version": str(IMPORT_VERSION)},
)


def import_schema(version: int = SCHEMA_VERSION) -> pa.Schema:
    """The schema of an imported batch file of log ``version`` (3 or 4)."""
    hand_schema(version)  # the version checked
    return IMPORT_SCHEMA_V4 if version == LOG_VERSION_4 else IMPORT_SCHEMA


def describe_schema(imported: bool = False, version: int = SCHEMA_VERSION) -> str:
    """The schema as a Markdown table (for docs/log-schema.md; ``imported``: the import columns;
    ``version``: the hand columns of that log version)."""
    rows = ["| field | type | unit or codes | meaning |", "|---|---|---|---|"]
    fields = ([(n, t, u, d) for n, t, u, d in IMPORT_FIELDS] if imported
              else [(f.name, f.type, UNITS[f.name], f.metadata[b"doc"].decode())
                    for f in hand_schema(version)])
    for name, typ, unit, doc in fields:
        cells = [unit.replace("|", "\\|"), doc.replace("|", "\\|")]
        rows.append(f"| `{name}` | `{typ}` | {cells[0]} | {cells[1]} |")
    return "\n".join(rows)


def decode_actions(value: bytes) -> np.ndarray:
    """One hand's ``actions`` value as a record array (fields of ACTION_DTYPE)."""
    return np.frombuffer(value, ACTION_DTYPE)
