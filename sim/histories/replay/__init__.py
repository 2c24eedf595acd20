"""Stage ``replay``: hands -> the engine's played hands, the rules' result beside the operator's.

- Reference: ``reference.replay(hand, ...)`` plays one ``PhhHand`` through ``sim.hand.Hand``
  (the engine's own rules) and returns a ``ReplayResult``: the played hand, or the kind and
  message of why it stops (``KINDS``: an illegal action, actions ending early, an unsupported
  variant or straddle, ...). Unknown starting stacks get stand-ins (``STAND_IN_FLOOR``).
- Compiled: ``compiled.replay_block(block)`` plays every hand of a ``HandBlock`` in one numba
  call through the engine's kernels (``sim.engine.apply``/``legal``) -> ``Replayed`` (per hand:
  ok or not, the engine state arrays the rows read).

Hand-over: a hand the compiled replay does not mark ok goes to the reference, which names the
reason. The compiled side mirrors these public names of the reference: ``STAND_IN_FLOOR`` and
the variant table (``read.phh.SUPPORTED_VARIANTS``); equality is tested on every real hand
(``tests/sim/histories/test_replay_kernel.py``).
"""
