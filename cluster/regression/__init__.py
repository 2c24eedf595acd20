"""Regression tools: is the engine still dealing and playing the same hands?

- :mod:`~cluster.regression.runs`: two run folders opened for comparison (shared ground);
- :mod:`~cluster.regression.digest_diff`: ``holdem diff``, hand by hand by content digest;
- :mod:`~cluster.regression.divergence`: the first difference of one hand named, side by side;
- :mod:`~cluster.regression.stat_diff`: ``holdem diff --stat``, distributions with Holm;
- :mod:`~cluster.regression.regress`: ``holdem regress``, the engine at a git ref vs this tree;
- :mod:`~cluster.regression.golden`: ``holdem golden``, the committed golden digests.
"""
