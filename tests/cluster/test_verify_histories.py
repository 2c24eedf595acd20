"""``holdem phh verify``: JSON lines, the summary and the exit codes
(cluster.flows.verify_histories)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cluster.cli import main
from cluster.flows.verify_histories import verify_paths


def nt(stacks: str, actions: str, extra: str = "") -> str:
    return (f'variant = "NT"\nantes = [0, 0, 0]\nblinds_or_straddles = [1, 2, 0]\n'
            f"min_bet = 2\nstarting_stacks = {stacks}\nactions = [{actions}]\n{extra}")


def test_verify_json_summary_and_exit_codes(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    good = nt("[100, 100, 100]", '"p3 f", "p1 f"', extra="finishing_stacks = [99, 101, 100]")
    (tmp_path / "1.phh").write_text(good)
    (tmp_path / "2.phh").write_text(good.replace("[99, 101, 100]", "[100, 100, 100]"))
    (tmp_path / "3.phh").write_text('variant = "FB"\nantes = [0, 0]\nstarting_stacks = [1, 1]\n'
                                    'actions = []\n')
    (tmp_path / "4.phhs").write_text(f"[x]\n{good}\n")
    (tmp_path / "5.phh").write_text("not = [toml\n")
    assert main(["phh", "verify", str(tmp_path), "--json"]) == 1
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["hand"] for r in rows] == [0, 0, 0, "x", None]  # None: the unreadable file
    assert set(rows[0]) == {"source", "hand", "ok", "expected", "actual", "error", "kind",
                            "scale"}
    assert rows[0]["ok"] and rows[0]["actual"] == [99, 101, 100]
    assert not rows[1]["ok"] and rows[1]["error"] is None and rows[1]["expected"] == [100] * 3
    assert not rows[2]["ok"] and rows[2]["error"] == "unsupported variant FB"
    assert not rows[4]["ok"] and rows[4]["error"]

    assert main(["phh", "verify", str(tmp_path / "2.phh")]) == 1
    out = capsys.readouterr().out
    assert "mismatched 1" in out and "finishing stacks: expected [100, 100, 100], got" in out
    assert out.rstrip().endswith("FAILED")
    for name in ("2.phh", "5.phh"):
        (tmp_path / name).unlink()
    assert main(["phh", "verify", str(tmp_path)]) == 0  # unsupported hands do not count
    out = capsys.readouterr().out
    assert "unsupported (not counted): 1: FB 1" in out and out.rstrip().endswith("OK")

    assert main(["phh", "verify", str(tmp_path / "missing")]) == 2
    assert "phh verify: no such file or folder:" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["phh", "verify", str(empty)]) == 2
    assert "no hand could be read (0 files, 0 unreadable)" in capsys.readouterr().err


def test_verify_paths_tallies_without_printing(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "1.phh").write_text(nt("[100, 100, 100]", '"p3 f", "p1 f"',
                                       extra="finishing_stacks = [99, 101, 100]"))
    seen = []
    v = verify_paths([tmp_path], on_result=lambda r, unreadable: seen.append((r.ok, unreadable)))
    assert (v.files, v.hands, v.exit_code, seen) == (1, 1, 0, [(True, False)])
    assert capsys.readouterr() == ("", "")
    with pytest.raises(FileNotFoundError, match="missing"):
        verify_paths([tmp_path / "missing"])


REALHANDS = Path(__file__).resolve().parents[2].parent / "shared" / "realhands"


def test_verify_counts_the_real_hands_by_reason(capsys: pytest.CaptureFixture[str]) -> None:
    """``holdem phh verify ../shared/realhands``: 99% replay, the rest named and counted."""
    if not REALHANDS.is_dir():
        pytest.skip(f"{REALHANDS}: the shared real hands are absent")
    assert main(["phh", "verify", str(REALHANDS), "--show", "0"]) == 1  # Ongame's rake
    out = capsys.readouterr().out
    assert "phh verify: 1416 hands in 18 files" in out
    assert "replayed: 1409 of 1416 (107 with other finishing stacks)" in out
    assert "fold while checking is free 3" in out
    assert "not replayed: 7: actions end early 6, heads-up blinds reversed 1" in out
    rows = []
    assert main(["phh", "verify", str(REALHANDS / "ong" / "600nl-handhq_1.phhs"), "--json"]) == 1
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    live = next(r for r in rows if r["hand"] == "9")
    assert live["scale"] == 2 and live["expected"][2] == 44200  # cents
