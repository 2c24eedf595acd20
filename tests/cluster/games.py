"""Game files in tests (issue 37): a game's text as a run's spec, and a run's logged rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sim.runspec import RunSpec


def game_fields(text: str, where: str = "game.toml") -> dict[str, Any]:
    """The spec fields a game file's text gives (``cluster.flows.game.parse_game``; amounts
    read as Decimal, as ``holdem simulate --game`` reads them)."""
    import tomllib
    from decimal import Decimal

    from cluster.flows.game import parse_game

    return parse_game(tomllib.loads(text, parse_float=Decimal), where)


def game_spec(text: str, hands: int, batch_size: int, seed: int = 5) -> RunSpec:
    """The run spec of a game file's text: ``hands`` in batches of ``batch_size``."""
    from sim.config import Structure

    fields = game_fields(text)
    structures = tuple(Structure.parse(s) for s in fields.pop("structures", ["no-limit"]))
    return RunSpec(hands=hands, batch_size=batch_size, structures=structures, seed=seed,
                   **fields)


def log_rows(run: Path) -> list[dict[str, Any]]:
    """Every logged hand of a run folder, as dicts, in file order."""
    import pyarrow.parquet as pq

    return [r for p in sorted((run / "log").rglob("*.parquet"))
            for r in pq.read_table(p).to_pylist()]
