"""The hand log's file contract, stated by the audits (which never import ``sim``): the exact
Arrow schema of a batch file (column names, order, types, nullability), the key-value metadata
the simulator writes, and the values of its label columns. ``tests/audits/test_exact_files.py``
ties this statement to the simulator's ``sim.schema.HAND_SCHEMA``; ``audits.exactfile`` checks
each batch file against it.
"""

from __future__ import annotations

import pyarrow as pa

_L = pa.list_
POT = pa.struct([("amount", pa.int64()), ("rake", pa.int64()),
                 ("eligible_mask", pa.uint16()), ("winners_mask", pa.uint16())])

# (name, type), in the file's column order (schema version 3; version 4: ``LOG_COLUMNS_V4``)
LOG_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("run_id", pa.string()), ("hand_id", pa.int64()), ("table_id", pa.int64()),
    ("hand_no", pa.int32()), ("structure", pa.string()), ("format", pa.string()),
    ("generator", pa.string()), ("seed_key", _L(pa.uint64())), ("n_seats", pa.int8()),
    ("occupied", _L(pa.bool_())), ("button", pa.int8()), ("sb_seat", pa.int8()),
    ("bb_seat", pa.int8()), ("small_blind", pa.int64()), ("big_blind", pa.int64()),
    ("ante", pa.int64()), ("ante_mode", pa.int8()), ("ante_trimming", pa.bool_()),
    ("min_bet", pa.int64()), ("small_bet", pa.int64()), ("big_bet", pa.int64()),
    ("raise_cap", pa.int8()), ("rake_bps", pa.int32()), ("rake_cap", pa.int64()),
    ("no_flop_no_drop", pa.bool_()), ("level", pa.int16()), ("deck", pa.binary(52)),
    ("hole_cards", _L(pa.int8())), ("burns", _L(pa.int8())), ("board", _L(pa.int8())),
    ("policy", _L(pa.int8())), ("player_ids", _L(pa.int64())),
    ("stacks_start", _L(pa.int64())), ("rebuys", _L(pa.int64())),
    ("stacks_end", _L(pa.int64())), ("contributed", _L(pa.int64())),
    ("returned", _L(pa.int64())), ("won", _L(pa.int64())), ("folded", _L(pa.bool_())),
    ("timed_out", _L(pa.bool_())), ("rake", pa.int64()), ("actions", pa.binary()),
    ("showdown_seats", _L(pa.int8())), ("showdown_shown", _L(pa.bool_())),
    ("showdown_ranks", _L(pa.int32())), ("pots", _L(POT)), ("fault", pa.string()),
    ("digest", pa.uint64()),
)
SCHEMA_VERSION = 3  # the version ``holdem simulate`` and ``holdem import`` write by default
# schema version 4: the same columns in the same order, each of these list columns stored as
# ``binary``: the row's entries one after the other, little-endian, of this numpy dtype (a bool
# one byte, 0 or 1; ``pots`` as records of POT_RECORD); the other columns as in version 3
PACKED: dict[str, str] = {
    "seed_key": "<u8", "occupied": "|b1", "hole_cards": "|i1", "burns": "|i1", "board": "|i1",
    "policy": "|i1", "player_ids": "<i8", "stacks_start": "<i8", "rebuys": "<i8",
    "stacks_end": "<i8", "contributed": "<i8", "returned": "<i8", "won": "<i8",
    "folded": "|b1", "timed_out": "|b1", "showdown_seats": "|i1", "showdown_shown": "|b1",
    "showdown_ranks": "<i4",
}
POT_RECORD = [("amount", "<i8"), ("rake", "<i8"), ("eligible_mask", "<u2"),
              ("winners_mask", "<u2")]  # 20 bytes
PACKED_COLUMNS = (*PACKED, "pots")
LOG_COLUMNS_V4: tuple[tuple[str, pa.DataType], ...] = tuple(
    (n, pa.binary() if n in PACKED_COLUMNS else t) for n, t in LOG_COLUMNS)
# the columns of each schema version a run may hold (2: before player_ids; 4: packed lists)
VERSION_COLUMNS: dict[int, tuple[str, ...]] = {
    4: tuple(n for n, _ in LOG_COLUMNS_V4),
    3: tuple(n for n, _ in LOG_COLUMNS),
    2: tuple(n for n, _ in LOG_COLUMNS if n != "player_ids"),
}
# the row digest algorithms these audits know (``sim.digest.DIGEST_VERSION``: a manifest's
# ``digest_version``; a test checks the two agree)
DIGEST_VERSIONS = (1,)
NULLABLE = frozenset({"fault"})  # null for a clean engine
# an imported hand history has no deck: the importer's files declare ``deck`` nullable
IMPORT_NULLABLE = NULLABLE | {"deck"}
# ``holdem import``'s files (import version 1): the schema-3 columns but ``digest``, these
# columns, then ``digest`` (which covers them). No nulls: a sentinel marks an absent fact
# (documented field by field in ``sim.schema.IMPORT_FIELDS``; a test ties the two).
IMPORT_VERSION = 3
IMPORT_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("source_file", pa.string()), ("source_section", pa.string()), ("site_hand", pa.string()),
    ("venue", pa.string()), ("table_name", pa.string()), ("hand_time", pa.string()),
    ("time_zone", pa.string()), ("time_utc", pa.int64()), ("currency", pa.string()),
    ("players", _L(pa.string())), ("stack_known", _L(pa.bool_())),
    ("cards_unrecorded", _L(pa.bool_())), ("op_winnings", _L(pa.int64())),
    ("op_finishing", _L(pa.int64())), ("op_rake", pa.int64()), ("op_pot", pa.int64()),
    ("tournament", pa.string()), ("tournament_buy_in", pa.string()),
    ("op_claim_players", _L(pa.string())), ("op_claims", _L(pa.string())),
)
IMPORT_COLUMN_NAMES = tuple(n for n, _ in IMPORT_COLUMNS)
# the import columns of each import version a run may hold (1: before the tournament columns;
# 2: before the operator's tournament claims)
_CLAIMS = ("op_claim_players", "op_claims")
IMPORT_VERSION_COLUMNS: dict[int, tuple[str, ...]] = {
    3: IMPORT_COLUMN_NAMES,
    2: tuple(n for n in IMPORT_COLUMN_NAMES if n not in _CLAIMS),
    1: tuple(n for n in IMPORT_COLUMN_NAMES
             if n not in ("tournament", "tournament_buy_in", *_CLAIMS)),
}
# a column's own metadata: its unit or code table, and its documentation (docs/log-schema.md's
# table)
FIELD_METADATA_KEYS = frozenset({b"unit", b"doc"})
# the file's key-value metadata: what ``holdem simulate`` writes (``holdem import`` writes the
# schema and import versions; the old PHH importer the schema version alone); Parquet's own copy
# of the Arrow schema besides
META_SCHEMA_VERSION = b"holdem.schema_version"
META_IMPORT_VERSION = b"holdem.import_version"
META_RUN_ID = b"holdem.run_id"
META_STRUCTURE = b"holdem.structure"
META_BATCH = b"holdem.batch"
META_COUNTS = b"holdem.counts"
SIMULATOR_KEYS = frozenset({META_SCHEMA_VERSION, META_RUN_ID, META_STRUCTURE, META_BATCH,
                            META_COUNTS})
IMPORT_KEYS = frozenset({META_SCHEMA_VERSION, META_IMPORT_VERSION})
OLD_IMPORT_KEYS = frozenset({META_SCHEMA_VERSION})  # format "holdem-phh-import"
ARROW_SCHEMA_KEY = b"ARROW:schema"
STRUCTURES = ("no-limit", "pot-limit", "fixed-limit")
FORMATS = ("cash", "tournament")
TYPES: dict[str, pa.DataType] = {**dict(LOG_COLUMNS), **dict(IMPORT_COLUMNS)}
TYPES_V4: dict[str, pa.DataType] = {**dict(LOG_COLUMNS_V4), **dict(IMPORT_COLUMNS)}


def types(version: int) -> dict[str, pa.DataType]:
    """Each column's type in a file of schema ``version``."""
    return TYPES_V4 if version >= 4 else TYPES


def import_column_order(version: int, import_version: int = IMPORT_VERSION) -> tuple[str, ...]:
    """An imported file's columns (schema ``version``, import ``import_version``): the log's but
    ``digest``, the import columns, ``digest``."""
    return (*(n for n in VERSION_COLUMNS[version] if n != "digest"),
            *IMPORT_VERSION_COLUMNS[import_version], "digest")


def expected_schema(version: int, nullable: frozenset[str] = NULLABLE,
                    import_columns: bool = False,
                    import_version: int = IMPORT_VERSION) -> list[pa.Field]:
    """The fields (no metadata) a batch file of schema ``version`` holds, in order
    (``import_columns``: a ``holdem import`` file's of ``import_version``, with its import
    columns)."""
    names = (import_column_order(version, import_version) if import_columns
             else VERSION_COLUMNS[version])
    typ = types(version)
    return [pa.field(n, typ[n], nullable=n in nullable) for n in names]
