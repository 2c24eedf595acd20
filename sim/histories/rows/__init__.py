"""Stage ``rows``: played hands -> the import's rows (``reference.ROW_SCHEMA``: the log's schema
less the digest) and the file's counts (``reference.FileImport``: rows, skips by reason,
odd-chip lines).

- Reference: ``reference.import_hand`` makes one hand's row from its ``PhhHand`` and played
  ``Hand``; ``reference.import_read_file`` does a whole ``PhhFile``.
- Compiled: ``compiled.rows_of_block(block, replayed, ...)`` makes the rows of every ok hand of
  a block at once, column by column, without a Python object per hand.

Hand-over: a hand the compiled rows cannot describe goes to the reference. Both sides build the
same columns from the same public names of ``reference`` (``ROW_SCHEMA``, ``UTC_OFFSETS``,
``utc_seconds``); equality is tested column by column
(``tests/sim/histories/test_history_columns.py``).
"""
