"""Stage ``read``: a source's bytes -> its hands, each with its section (line) in the file.

- Reference: ``sections.read_sections`` splits a ``.phh``/``.phhs`` text into TOML sections and
  reads their values (amounts exact: ``int``/``Decimal``); ``phh.reads_phh``/``phh.read_phh``
  build and check each hand (``PhhHand``) or name why it is skipped (``PhhSkip``) in a ``PhhFile``.
- Compiled: ``scan.scan(data, many=...)`` reads the same bytes in one numba pass into a
  ``block.HandBlock`` (flat arrays, amounts in integers of ``10**-MAX_SCALE``), each section
  marked ``fast`` only when the reference reads it without error to the very same block.

Hand-over: every section not ``fast`` (and a whole file whose split is in doubt: ``file_ok``
False) is read again by the reference, whose result or skip reason is the import's. The
equality is tested section by section (``block.block_from_hands`` builds the reference's
block).
"""
