"""Fixtures of the whole suite: the os-chacha20 key source seeded per test.

An os-chacha20 run takes its keys from the operating system (``sim.chacha.os_key``), so a test
asserting that such a run's fair decks PASS the battery would fail at the battery's own alpha
(1%) on some runs, and a failure could not be replayed. Here the key source is a stream seeded
by the test's node id, set up before the test's fixtures (a module fixture takes the seed of the
first test that needs it): each call still gets fresh, unrecorded bytes, and every run of the
suite draws the same ones. Ray workers started by a test are other processes and keep the real
source (the os-chacha20 tests run with ``workers=0``).
"""

from __future__ import annotations

import hashlib
import random

import pytest


class SeededSecrets:
    """The part of :mod:`secrets` that ``sim.chacha`` uses, from a seeded stream."""

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def seed(self, text: str) -> None:
        self.rng.seed(int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little"))

    def token_bytes(self, n: int) -> bytes:
        return self.rng.randbytes(n)


SECRETS = SeededSecrets()


def pytest_configure(config: pytest.Config) -> None:
    import sim.chacha

    sim.chacha.secrets = SECRETS  # type: ignore[assignment]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    SECRETS.seed(item.nodeid)
