"""The benchmarks (cluster/bench): one runner, and figures that measure what they say."""

from __future__ import annotations

from pathlib import Path

import pytest

from cluster.bench.audit import run_audit_bench
from cluster.bench.runner import BENCH_DEFAULTS, BENCHMARKS, run_bench
from cluster.bench.runs import PEER_COLUMNS, simulate_bench_run
from cluster.cli import main


def test_audit_bench_splits_parquet_decoding_and_measures_the_peer(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    simulate_bench_run(str(tmp_path / "run"), 3000, "classic")
    res = run_audit_bench(3000, tmp_path / "run", names=["chips"], repeats=1)
    out = capsys.readouterr().out
    assert res["hands"] == 3000 and set(res["audits"]) == {"chips"}
    assert res["parquet_decode"] > 0 and res["peer_parquet_decode"] > 0
    assert "of which pyarrow's Parquet decoding" in out
    # the user part of reading (what does not swing with the machine's load) is at most all of it
    assert 0 <= res["read_user_us"] <= 1.05e6 / res["read"] and "user time" in out
    assert f"{len(PEER_COLUMNS)} columns ({', '.join(PEER_COLUMNS)})" in out
    assert res["sha256"] > 0 and "sha256 of files" in out and "% on read + all audits" in out


def test_bench_audit_simulates_its_own_run(capsys: pytest.CaptureFixture[str]) -> None:
    """Without --run the benchmark's first step deals the hands it times (not the CLI)."""
    assert main(["bench", "audit", "--hands", "2000", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "audit bench: 2,000 hands, one process, median of 1" in out
    assert "read + all" in out


def test_bench_audit_of_a_missing_run_is_a_one_line_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "audit", "--run", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("holdem: error: ") and "missing" in err and len(err.splitlines()) == 1


def test_runner_knows_every_benchmark() -> None:
    assert set(BENCH_DEFAULTS) | {"evaluator"} == set(BENCHMARKS)
    with pytest.raises(ValueError, match="unknown benchmark 'nope'"):
        run_bench("nope")


def test_bench_breakdown_times_each_step_of_a_batch() -> None:
    from cluster.bench.simulate import time_breakdown

    split = time_breakdown(500, 2)
    assert set(split) == {"play", "arrow", "encode", "peer_encode"}
    assert all(v > 0 for v in split.values())


def test_bench_import_measures_the_reader_and_its_peers(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import cluster.bench.import_phh as bench

    monkeypatch.setattr(bench, "REALHANDS", Path("/nonexistent"))  # the generated corpus
    rates = bench.run_import_bench(hands=600, repeats=1, pokerkit_hands=20)
    out = capsys.readouterr().out
    assert "holdem bench import: 600 hands (generated .phhs hands" in out
    assert set(rates) >= {"sim.histories.read.sections (TOML -> values)",
                          "sim.histories.read.phh.reads_phh (+ hands)",
                          "peer tomllib (floats)", "peer PokerKit parse + replay"}
    assert all(r > 0 for r in rates.values())
    assert "0 of them PokerKit could not replay" in out


# ---------------------------------------------------------------- holdem bench all


def test_bench_all_quick_writes_every_figure_with_its_peer(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from audits import jitcache
    from cluster.bench.suite import FORMAT

    out = tmp_path / "bench.json"
    assert main(["bench", "all", "--quick", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    rec = json.loads(out.read_text())
    assert rec["format"] == FORMAT and rec["quick"] is True
    # the code and the machine the figures belong to
    assert rec["code"]["compiled"] == jitcache.identity()["keys"]
    assert rec["code"]["git_commit"] and "git_dirty" in rec["code"]
    assert rec["machine"]["cores"] >= 1 and len(rec["machine"]["load_after"]) == 3
    # every benchmark ran (the Ray ones are left out by --quick)
    assert set(rec["benches"]) == {"engine", "evaluator", "simulate", "audit", "diff", "shuffle",
                                   "export", "import"}
    figs = {(f["bench"], f["figure"]): f for f in rec["figures"]}
    peers = {b: f["peer"]["figure"] for (b, _), f in figs.items() if f["peer"]}
    assert peers["engine"] == "PokerKit hands/s" and peers["shuffle"] == "numpy permuted"
    assert peers["diff"] == "Arrow Table.equals" and peers["import"]
    assert figs[("audit", "Parquet decode (the audited columns)")]["peer"]["value"] > 0
    for f in rec["figures"]:
        if f["peer"]:  # the ratio is the figure over its peer from this same run
            assert f["ratio"] == pytest.approx(f["value"] / f["peer"]["value"])
    assert "every figure with its peer" in printed and f"written: {out}" in printed
    assert "holdem engine: 6-max no-limit" in printed  # each benchmark's own table too


@pytest.mark.parametrize("argv,expect", [
    (["bench", "all", "--json", "/nonexistent-dir/x.json"], "does not exist"),
    (["bench", "all", "--hands", "10"], "per benchmark"),
    (["bench", "engine", "--json", "x.json"], "are for bench all"),
])
def test_bench_all_refuses_bad_options_before_running(
        argv: list[str], expect: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("holdem: error: ") and expect in err and len(err.splitlines()) == 1


def test_bench_modules_do_not_import_each_other() -> None:
    """simulate and audit share cluster.bench.runs; neither imports the other (no cycle)."""
    import ast

    root = Path(__file__).resolve().parents[2] / "cluster" / "bench"
    for a, b in (("simulate", "audit"), ("audit", "simulate")):
        tree = ast.parse((root / f"{a}.py").read_text())
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert f"cluster.bench.{b}" not in imported, f"{a}.py imports {b}.py"


def test_engine_stages_split_the_bench_loop() -> None:
    """The stage profile's parts add up to the whole loop, and a hand takes actions and, at
    random legal play, showdowns."""
    from cluster.bench.engine import engine_stages

    per = engine_stages(hands=2000, repeats=1, calls=1000, show=False)
    parts = [v for k, v in per.items() if k != "total"]
    assert sum(parts) == pytest.approx(per["total"])
    assert all(per[k] >= 0 for k in ("streams + shuffle", "legal()", "bot (random_legal)",
                                      "evaluate7 at showdown"))
    assert per["total"] > 0


def test_bench_certify_times_both_reproductions(capsys: pytest.CaptureFixture[str]) -> None:
    """``holdem bench certify``: the values reproduction's own cost and its peer, the bytes
    one, measured in the same rounds (each run reproduced, else the bench stops)."""
    from cluster.bench.certify import run_certify_bench

    res = run_certify_bench(hands=2000, repeats=1, population="classic")
    us = res["us_per_hand"]
    assert set(us) == {"simulate", "audit", "audit + reproduce values", "reproduce values",
                       "values, by difference", "reproduce bytes"}
    assert us["reproduce bytes"] > 0 and us["reproduce values"] > 0
    assert "reproduction: values" in capsys.readouterr().out


def test_site_text_bench_reads_the_fixtures_beside_pokerkits_site_parsers() -> None:
    """Issue 34 point 10: the sites' own text per core (the repo's real fixtures when
    ../shared/sitetext is absent), PokerKit's parsers on the same files, the ratio to PHH."""
    import cluster.bench.import_text as text

    what, files = text.text_corpus(Path("/nonexistent"))
    assert "tests/fixtures/sitetext_real" in what
    fmts = {fmt for _, _, fmt, _ in files}
    assert {"pokerstars", "ipoker", "fulltilt", "ggpoker"} <= fmts and "phh" not in fmts
    rates, lines = text.run_text_bench(40, 1, phh_rate=1000.0, shared=Path("/nonexistent"))
    assert set(rates) == {"site text: whole import (read+replay+rows+tables)",
                          "site text: read (sim.histories.sites.text)",
                          "site text: read, PokerKit's sites only",
                          "peer PokerKit site parsers (parse)"}
    assert all(r > 0 for r in rates.values())
    assert lines[0].startswith("site text: ") and "imported" in lines[0]
    assert any("PokerKit's parsers on the" in ln for ln in lines)
    assert "of the PHH path's whole import per core" in lines[-1]


@pytest.mark.slow
def test_bench_import_command_prints_the_site_text_figures(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import cluster.bench.import_phh as bench
    import cluster.bench.import_text as text

    monkeypatch.setattr(bench, "REALHANDS", Path("/nonexistent"))
    monkeypatch.setattr(text, "SHARED", Path("/nonexistent"))
    assert main(["bench", "import", "--hands", "300", "--repeats", "1", "--pokerkit-hands", "0",
                 "--text-hands", "40"]) == 0
    out = capsys.readouterr().out
    assert "site text: whole import" in out and "tests/fixtures/sitetext_real" in out
    assert "peer PokerKit site parsers (parse)" in out
    assert "of the PHH path's whole import per core" in out
