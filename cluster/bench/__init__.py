"""Benchmarks, one module each, all run by :mod:`cluster.bench.runner` (``holdem bench NAME``):

- :mod:`~cluster.bench.engine`: complete hands in the compiled engine, PokerKit as the peer;
- :mod:`~cluster.bench.evaluator`: the 7-card evaluator and the full enumeration;
- :mod:`~cluster.bench.simulate`: ``holdem simulate`` end to end, in process and on Ray;
- :mod:`~cluster.bench.scale`: ``holdem simulate`` with 1 and 2 Ray workers;
- :mod:`~cluster.bench.audit`: reading and every audit's map, per core;
- :mod:`~cluster.bench.diff`: ``holdem diff``;
- :mod:`~cluster.bench.shuffle`: the deck-only path of ``holdem shuffle``;
- :mod:`~cluster.bench.export`: ``holdem export``;
- :mod:`~cluster.bench.import_phh`: reading PHH hand histories (``sim.histories.read.sections``),
  tomllib and PokerKit as peers.

They live in cluster/ because they drive the simulator, the audits and the cluster code
together (the audits may not import the simulator; sim/ stays free of timing harnesses).
"""
