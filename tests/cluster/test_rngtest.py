"""``holdem rng test``: the generator's raw output and its Fisher-Yates draws through dieharder;
without dieharder the certificate says the battery was not run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from audits import sp80022
from audits.keyed import stream_words
from cluster.cli import main
from cluster.flows import rngtest
from sim.deckgen import draw_bits, philox_decks, raw_output

SAMPLE = """#=============================================================================#
        test_name   |ntup| tsamples |psamples|  p-value |Assessment
#=============================================================================#
   diehard_birthdays|   0|       100|     100|0.48506867|  PASSED
         diehard_runs|   0|    100000|     100|0.00000000|  FAILED
"""


def test_raw_output_is_each_hands_deck_stream() -> None:
    raw = np.frombuffer(raw_output("philox", 3, 999, 2), "<u8")
    w = np.empty(16, np.uint64)
    stream_words(3, 0, 999, w)
    assert (raw[:16] == w).all()
    stream_words(3, 1, 0, w)
    assert (raw[16:] == w).all()


def test_draw_bits_are_the_power_of_two_draws() -> None:
    # the identity deck: every draw r_i = i, so the 15 bits are 31, 15, 7, 3, 1 (all ones)
    bits = np.unpackbits(np.frombuffer(draw_bits(np.tile(np.arange(52, dtype=np.uint8),
                                                         (64, 1))), np.uint8))
    assert bits.size == 64 * 15 and bits.all()
    fair = np.unpackbits(np.frombuffer(draw_bits(philox_decks(1, 0, 50_000)), np.uint8))
    assert abs(fair.mean() - 0.5) < 0.003


def test_parse_output() -> None:
    rows = rngtest.parse_output(SAMPLE)
    assert [(r["name"], r["p_value"], r["assessment"]) for r in rows] == [
        ("diehard_birthdays", 0.48506867, "PASSED"), ("diehard_runs", 0.0, "FAILED")]


@pytest.mark.slow  # NIST SP 800-22 on 100 sequences of 1,000,000 bits: about 40 s
def test_without_dieharder_the_battery_was_not_run(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rngtest, "dieharder_path", lambda: None)
    assert main(["rng", "test", "--out", str(tmp_path), "--quiet"]) == 1
    cert = json.loads((tmp_path / "rng-certificate.json").read_text())
    assert cert["verdict"] == "NOT RUN" and cert["battery"]["run"] is False
    assert "not run" in cert["verdict_text"] and "PASS" not in cert["verdict_text"]
    # NIST SP 800-22 runs in process beside it: its P-values on the certificate
    nist = cert["nist"]
    assert nist["standard"] == "NIST SP 800-22 rev. 1a" and nist["sequences"] == 100
    assert [t["name"] for t in nist["tests"]] == list(sp80022.TESTS)
    assert all(len(t["p_values"]) == 100 and t["passed"] for t in nist["tests"])
    assert nist["not_implemented"] == [] and nist["not_judged"] == []
    # the excursion tests apply only to walks with 500 cycles or more: counted over those
    exc = next(t for t in nist["tests"] if t["name"] == "random_excursions_+1")
    assert 30 < exc["applicable"] < 100 and exc["p_values"].count(None) == 100 - exc[
        "applicable"]
    assert (f"NIST SP 800-22 (its 15 tests, {len(sp80022.TESTS)} P-values a sequence, on 100 "
            "sequences of 1,000,000 bits): every test within") in cert["verdict_text"]


@pytest.mark.skipif(shutil.which("dieharder") is None,
                    reason="dieharder is not installed (apt-get install dieharder; .ci/run does)")
@pytest.mark.parametrize("generator,stream", [
    ("philox", "raw"), ("os-chacha20", "raw"),
    pytest.param("philox", "draws", marks=pytest.mark.slow)])  # 40M decks: about a minute
def test_dieharder_runs_and_names_tests(tmp_path: Path, generator: str, stream: str,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    code = main(["rng", "test", "--generator", generator, "--stream", stream, "--tests",
                 "100,15", "--out", str(tmp_path), "--quiet"]) if generator == "philox" else None
    if generator == "os-chacha20":
        # a key from the OS: its NIST verdict is a fair coin's (about 1% FAIL), not asserted;
        # the battery's size kept small (NIST on the game's philox stream is checked above)
        monkeypatch.setattr(rngtest, "NIST_SEQUENCES", 2)
        code = main(["rng", "test", "--generator", generator, "--stream", stream, "--tests",
                     "100,15", "--out", str(tmp_path), "--quiet"])
    assert code == 0 or (generator == "os-chacha20" and code == 1)
    cert = json.loads((tmp_path / "rng-certificate.json").read_text())
    b = cert["battery"]
    assert b["run"] and b["name"] == "dieharder" and b["version"].startswith("3.")
    assert [t["name"] for t in b["tests"]] == ["sts_monobit", "diehard_runs", "diehard_runs"]
    assert all(0 <= t["p_value"] <= 1 for t in b["tests"])


@pytest.mark.skipif(shutil.which("dieharder") is None, reason="dieharder is not installed")
def test_dieharder_fails_a_biased_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    def biased(*_: object) -> object:
        rng = np.random.default_rng(0)
        while True:
            yield (rng.random(1 << 20) < 0.52).astype(np.uint8).tobytes()  # bytes 0/1

    rows, _ = rngtest.run_one(shutil.which("dieharder") or "", 100, biased, 120)
    assert rows and rows[0]["assessment"] == "FAILED"


def test_a_nist_failure_is_retested_on_the_next_sequences(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """An entry below section 4.2 on the first sequences is run again on the next (disjoint)
    ones; it fails the certificate only if it fails there too."""
    from dataclasses import replace

    calls: list[bytes] = []
    real = sp80022.battery

    def first_fails(data: bytes, n: int, m: int) -> sp80022.NistBattery:
        calls.append(data)
        res = real(data, n, m)
        if len(calls) == 1:  # the first sample's frequency entry made to fail
            res = replace(res, tests=tuple(replace(t, passed=False) if t.name == "frequency"
                                           else t for t in res.tests))
        return res

    monkeypatch.setattr(sp80022, "battery", first_fails)
    nist = rngtest.nist_battery("philox", "raw", 1, n=100_000, m=10)
    assert len(calls) == 2 and len(calls[1]) == 125_000 and calls[0] != calls[1]
    assert nist.failed == ["frequency"] and nist.retest is not None
    assert nist.confirmed_failures == [] and nist.passed
    assert nist.to_dict()["retest"]["sequences"] == 10
