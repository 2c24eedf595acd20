"""Bad options end in one line naming the option and what was expected, exit 2 (no traceback)."""

from __future__ import annotations

import pytest

from cluster.cli import main


@pytest.mark.parametrize(("argv", "needle"), [
    (["demo", "--players", "11"], "--players 11: expected 2..10 seats"),
    (["demo", "--players", "1"], "--players 1: expected 2..10 seats"),
    (["demo", "--hands", "0"], "--hands 0: expected at least 1"),
    (["demo", "--seed", "-1"], "--seed -1: expected 0 <= seed < 2**63"),
])
def test_demo_options(argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
