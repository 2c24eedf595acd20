"""Golden digests: any change in the engine's behaviour fails here until it is accepted with
``holdem golden --update`` (and a commit message giving the reason)."""

from __future__ import annotations

import copy
from pathlib import Path

from cluster.cli import main
from cluster.regression.golden import (
    CHUNK,
    DEFAULT_PATH,
    HANDS,
    compare_golden,
    compute_golden,
    dumps,
    load_golden,
)


def test_engine_reproduces_the_golden_digests() -> None:
    stored = load_golden(DEFAULT_PATH)
    assert stored is not None, f"{DEFAULT_PATH} is missing: run `holdem golden --update`"
    changes = compare_golden(stored, compute_golden())
    assert not changes, (
        "the engine's behaviour changed (the hands it deals, plays or pays differ from "
        f"{DEFAULT_PATH.name}):\n  " + "\n  ".join(changes) + "\nIf this change is intended, "
        "run `holdem golden --update` and give the reason in the commit message; if not, "
        "`holdem regress --baseline HEAD` shows the first hand that differs.")


def test_file_is_small_and_complete() -> None:
    stored = load_golden(DEFAULT_PATH)
    assert stored is not None
    assert DEFAULT_PATH.stat().st_size < 4096
    assert len(stored["cases"]) == 6
    assert all(len(c["chunks"]) == HANDS // CHUNK for c in stored["cases"].values())
    assert DEFAULT_PATH.read_text() == dumps(stored)


def test_a_moved_chunk_is_named() -> None:
    stored = load_golden(DEFAULT_PATH)
    assert stored is not None
    fresh = copy.deepcopy(stored)
    case = fresh["cases"]["pot-limit/tournament"]
    case["chunks"][3] = "0" * 16
    case["digest"] = "1" * 16
    changes = compare_golden(stored, fresh)
    assert len(changes) == 1
    assert changes[0].startswith("pot-limit/tournament: digest ")
    assert "1 of 10 chunks moved, first hands 3000-3999" in changes[0]


def test_cli_check_and_update(tmp_path: Path, capsys: object) -> None:
    f = tmp_path / "g.json"
    assert main(["golden", "--update", "--file", str(f)]) == 0
    assert main(["golden", "--file", str(f)]) == 0
    doc = load_golden(f)
    assert doc is not None
    doc["cases"]["no-limit/cash"]["chunks"][0] = "f" * 16
    doc["cases"]["no-limit/cash"]["digest"] = "f" * 16
    f.write_text(dumps(doc))
    assert main(["golden", "--file", str(f)]) == 1
    assert main(["golden", "--update", "--file", str(f)]) == 0
    assert main(["golden", "--file", str(f)]) == 0
