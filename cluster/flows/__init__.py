"""The command flows: each ``holdem`` command's work as a function that returns its result
(simulate, audit, certify, verify, reproduce, import, export, replay, shuffle, ...), called by
the CLI (``cluster.cli``) and by Ray jobs alike; what runs on Ray is ``cluster.fanout`` and
``cluster.ray_runtime``."""
