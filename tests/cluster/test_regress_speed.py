"""``holdem regress``'s speed check (``cluster.regression.speed``): the verdict from given samples
(no timing in the asserts), and one smoke run of the real probes on two trees, the candidate
made several times slower on purpose."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cluster.cli import main
from cluster.regression.speed import (
    Side,
    format_speed,
    run_speed_check,
    speed_verdict,
)

ROOT = Path(__file__).resolve().parents[2]


def test_a_slowdown_past_the_tolerance_fails() -> None:
    # candidate engine: 20% more time per hand (100 -> 83.3 hands/s); simulate 5% more; audit
    # faster
    res = speed_verdict({"engine": [100, 101, 99], "simulate": [50, 50, 51], "audit": [10, 10]},
                        {"engine": [83.3, 84, 83], "simulate": [47.6, 48, 47], "audit": [12, 12]})
    assert [f.bench for f in res.slower] == ["engine"] and res.verdict == "SLOWER"
    assert res.exit_code == 1
    engine = res.figures[0]
    assert engine.slowdown == pytest.approx(100 / 83.3)
    text = format_speed(res)
    assert "speed: SLOWER (engine 1.20x the baseline's time per hand; tolerance 10%)" in text
    assert "simulate" in text and "SLOWER" not in text.splitlines()[3]  # simulate's row
    assert "uncertain" not in text


def test_a_slowdown_the_samples_do_not_confirm_does_not_fail() -> None:
    # the medians 15% apart, the samples interleaved (the machine's noise)
    res = speed_verdict({"engine": [100, 70, 120, 95]}, {"engine": [87, 110, 60, 86]})
    assert res.figures[0].slowdown == pytest.approx(97.5 / 86.5)
    assert res.figures[0].p_value > 0.05
    assert res.verdict == "SAME" and res.exit_code == 0 and res.unconfirmed
    assert "unconfirmed by the samples: engine 1.13x" in format_speed(res)


def test_within_the_tolerance_is_the_same_and_noise_is_shown() -> None:
    res = speed_verdict({"engine": [100, 100, 100]}, {"engine": [92, 93, 91.5]})  # 7.5% slower
    assert res.verdict == "SAME" and res.exit_code == 0 and not res.noisy
    # samples far from their median: the noise (25%) is above the tolerance, said, not hidden
    noisy = speed_verdict({"engine": [100, 130, 70, 100, 125]}, {"engine": [100, 100, 101]})
    assert noisy.figures[0].noise == pytest.approx(0.25)
    assert noisy.verdict == "SAME" and noisy.noisy
    assert "uncertain: noise above the tolerance on engine" in format_speed(noisy)
    # the tolerance is the caller's
    assert speed_verdict({"engine": [100, 101, 99]}, {"engine": [92, 92, 91]},
                         tolerance=0.05).verdict == "SLOWER"


def test_a_bench_one_side_could_not_run_is_skipped_not_failed() -> None:
    res = speed_verdict({"engine": [100], "audit": []}, {"engine": [100], "audit": [5.0]})
    assert res.verdict == "SAME" and res.skipped == {"audit": "not measured on the baseline"}
    assert "audit     not measured on the baseline" in format_speed(res)
    assert speed_verdict({}, {}).verdict == "NOT MEASURED"


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    for pkg in ("sim", "audits", "cluster", "reports"):
        shutil.copytree(ROOT / pkg, tree / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    return tree


def test_smoke_an_engine_made_slower_is_caught(tmp_path: Path) -> None:
    """The real probes, one round of 3 samples a side, engine only: the candidate tree's
    benchmark loop plays every hand four times (4x the work per hand counted), the baseline is
    this tree."""
    cand = _tree(tmp_path)
    bench = cand / "cluster" / "bench" / "engine.py"
    text = bench.read_text()
    old = "    return _play_random_hands(\n"
    assert text.count(old) == 1
    call = text[text.index(old) + len("    return "):text.index("\n\n", text.index(old))]
    bench.write_text(text.replace(old, f"    for _ in range(3):\n        {call}\n{old}"))
    said: list[str] = []
    res = run_speed_check(Side(sys.executable, ROOT, str(ROOT), ROOT, {}),
                          Side(sys.executable, cand, str(cand), cand, {}),
                          benches=("engine",), hands=5000, rounds=1, repeats=3, say=said.append)
    assert said == ["speed: round 1 of 1 measured (baseline then candidate)"]
    assert res.verdict == "SLOWER" and res.exit_code == 1
    assert res.figures[0].slowdown > 1.5  # 4x the work; far from any machine's noise


def test_a_side_that_does_not_run_its_own_code_is_one_line(tmp_path: Path) -> None:
    from cluster.regression.speed import ProbeError, probe

    # no packages in the tree: Python finds the installed ones, which are not that side's
    with pytest.raises(ProbeError, match="the speed probe imported .*, not from"):
        probe(sys.executable, tmp_path, str(tmp_path), tmp_path, {}, ("engine",), 1000, 1)
    for pkg in ("sim", "cluster"):  # packages that do not import
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("raise ImportError('broken tree')\n")
    with pytest.raises(ProbeError, match="the speed probe failed .*broken tree"):
        probe(sys.executable, tmp_path, str(tmp_path), tmp_path, {}, ("engine",), 1000, 1)


def test_regress_speed_options_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["regress", "--baseline", "HEAD", "--speed-rounds", "0"]) == 2
    err = capsys.readouterr().err
    assert "--speed-rounds 1 .. 1,000" in err and len(err.splitlines()) == 1
    worktrees = subprocess.run(["git", "-C", str(ROOT), "worktree", "list", "--porcelain"],
                               capture_output=True, text=True, check=True).stdout
    assert "holdem-regress-" not in worktrees
