"""The import of hand histories: an operator's files -> the rows of an imported run.

Arranged by stage; each stage's ``__init__`` states its contract (what goes in, what comes out,
what the compiled side hands to the reference). A stage with two implementations keeps them side
by side: ``reference`` (Python, the one that names every error and skip) and ``compiled`` (numba,
over flat arrays), tested equal on every hand the compiled side takes.

- ``read``: bytes -> hands. Reference: ``read.phh`` (``PhhFile`` of ``PhhHand``/``PhhSkip``) over
  ``read.sections`` (the TOML sections of a ``.phh``/``.phhs`` file); compiled: ``read.scan``
  -> ``read.block.HandBlock``.
- ``sites``: a site's own text export (PokerStars, Full Tilt, iPoker, ...) -> the same
  ``PhhFile`` (``sites.text``; ``sites.lines`` screens every line of a hand). Reference only.
- ``replay``: a hand -> the engine's played ``Hand`` (reference ``replay.reference``) or every hand
  of a block at once (compiled ``replay.compiled`` -> ``Replayed``).
- ``rows``: played hands -> the import's Arrow rows (``rows.reference.ROW_SCHEMA``; compiled
  ``rows.compiled``) and the file's counts (``rows.reference.FileImport``).
- ``files``: the dispatcher: one source file through both paths, hand by hand, in file order.
- ``sessions``: the rows of many files -> table sessions (hands of one table in play order,
  seats padded to one width).

The run folder, Parquet and Ray are not here: ``cluster.flows.import_histories`` drives this
package and writes the run.
"""
