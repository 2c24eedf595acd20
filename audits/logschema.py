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

# (name, type), in the file's column order (schema version 3)
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
SCHEMA_VERSION = 3
# the columns of each schema version a run may hold (2: before player_ids)
VERSION_COLUMNS: dict[int, tuple[str, ...]] = {
    3: tuple(n for n, _ in LOG_COLUMNS),
    2: tuple(n for n, _ in LOG_COLUMNS if n != "player_ids"),
}
# the row digest algorithms these audits know (``sim.digest.DIGEST_VERSION``: a manifest's
# ``digest_version``; a test checks the two agree)
DIGEST_VERSIONS = (1,)
NULLABLE = frozenset({"fault"})  # null for a clean engine
# an imported hand history has no deck: the PHH importer's files declare ``deck`` nullable
IMPORT_NULLABLE = NULLABLE | {"deck"}
# a column's own metadata: its unit or code table, and its documentation (README's log table)
FIELD_METADATA_KEYS = frozenset({b"unit", b"doc"})
# the file's key-value metadata: what ``holdem simulate`` writes (the PHH importer writes the
# schema version alone); Parquet's own copy of the Arrow schema besides
META_SCHEMA_VERSION = b"holdem.schema_version"
META_RUN_ID = b"holdem.run_id"
META_STRUCTURE = b"holdem.structure"
META_BATCH = b"holdem.batch"
META_COUNTS = b"holdem.counts"
SIMULATOR_KEYS = frozenset({META_SCHEMA_VERSION, META_RUN_ID, META_STRUCTURE, META_BATCH,
                            META_COUNTS})
IMPORT_KEYS = frozenset({META_SCHEMA_VERSION})
ARROW_SCHEMA_KEY = b"ARROW:schema"
STRUCTURES = ("no-limit", "pot-limit", "fixed-limit")
FORMATS = ("cash", "tournament")
TYPES: dict[str, pa.DataType] = dict(LOG_COLUMNS)


def expected_schema(version: int, nullable: frozenset[str] = NULLABLE) -> list[pa.Field]:
    """The fields (no metadata) a batch file of schema ``version`` holds, in order."""
    return [pa.field(n, TYPES[n], nullable=n in nullable) for n in VERSION_COLUMNS[version]]
