"""The hash an audit records is the hash of the bytes it audited (review of issue 24).

``holdem certify`` carries the audit's sha256 of each batch file into the certificate instead of
hashing the file again, and ``holdem verify`` trusts a signed certificate's hashes without
re-auditing. So the sha256 in audit.json must be the digest of the very bytes the audits read:
if the audit hashed one read of the file and audited another, an attacker who can write to the
run folder while certify runs (a shared bucket) puts a forged file F in place for the hash, the
clean file G for the read, and F back afterwards: the certificate then says PASS for F's
sha256, and ``holdem verify`` (hashes and signature) accepts F.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from sim.runspec import RunSpec, Structure
from tests.audits.forgery import (
    RunForger,
    copy_run,
    live_seats,
    replay_with_deck,
    simulated_run,
    swap_hole_cards,
    winners,
)

SPEC = RunSpec(hands=1200, batch_size=1200, structures=(Structure.NO_LIMIT,), seed=47,
               hands_per_table=5)


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return simulated_run(tmp_path_factory, SPEC, "race")


def test_a_file_swapped_between_the_hash_and_the_read_is_not_certified(
        clean_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from audits.runfolder import storage
    from audits.runner import run_audits

    run = copy_run(clean_run, tmp_path)
    f = RunForger(run)
    clean = f.path.read_bytes()

    def ok(r: dict[str, Any]) -> bool:
        return len(r["showdown_seats"]) == 2 and len(live_seats(r)) == 2 and \
            len(r["pots"]) == 1 and len(winners(r)) == 1

    i = f.find(ok, f.last_hands())
    row = f.rows[i]
    (w,), loser = winners(row), [s for s in live_seats(row) if s not in winners(row)][0]
    f.rows[i] = replay_with_deck(row, swap_hole_cards(row, w, loser))
    f.write()  # the forgery F, the manifest restamped with its sha256
    forged = f.path.read_bytes()
    forged_sha = hashlib.sha256(forged).hexdigest()

    def swapped_after(real: Any) -> Any:
        """``real`` (a read of a file's bytes), after which the attacker puts G in F's place:
        the audit's first read of the file (its hash, or the one read it hashes and decodes)
        sees F, any later read G."""
        def read(location: Any) -> Any:
            got = real(location)
            if str(location).endswith(f.rel):
                f.path.write_bytes(clean)
            return got
        return read

    monkeypatch.setattr(storage, "file_sha256", swapped_after(storage.file_sha256))
    monkeypatch.setattr(storage, "read_bytes", swapped_after(storage.read_bytes))
    report = run_audits(run)
    f.path.write_bytes(forged)  # F back: the folder the certificate goes out with
    recorded = {r["path"]: r["sha256"] for r in report.inputs["files"]}
    certified_forgery = report.passed and recorded[f.rel] == forged_sha
    assert not certified_forgery, (
        f"{f.rel}: audit.json records the forged file's sha256 {forged_sha[:16]}... with a PASS: "
        "the audit hashed one read of the file and audited another")
