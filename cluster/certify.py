"""``holdem certify``: simulate, audit and report in one command; and the replays of failing
hands that the report shows (the engine runs here, in cluster/, never in reports/)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

MAX_REPLAYS = 12


def failing_histories(run: str | Path, results: list[dict[str, Any]]) -> dict[int, str]:
    """Readable histories of the first failing hands of each failing audit."""
    from cluster.replay import find_row
    from sim.history import format_hand
    from sim.rows import hand_from_row

    out: dict[int, str] = {}
    for r in results:
        if r["passed"] or not r["applicable"]:
            continue
        for hid in r["example_hand_ids"][:3]:
            if len(out) >= MAX_REPLAYS or int(hid) in out:
                continue
            try:
                row = find_row(run, int(hid))
            except Exception as e:  # noqa: BLE001 - a report must render whatever is broken
                out[int(hid)] = f"(hand {hid} not found: {e})"
                continue
            try:
                hand = hand_from_row(row, check=False)
                text = format_hand(hand)
                logged = list(row["stacks_end"])
                if hand.stacks != logged:
                    text += (f"\n*** the log says the hand ended with stacks {logged}; the clean "
                             f"engine ends it with {hand.stacks}")
                out[int(hid)] = text
            except ValueError as e:
                out[int(hid)] = (f"(the clean engine cannot replay hand {hid}: {e})\n"
                                 f"logged stacks: {list(row['stacks_start'])} -> "
                                 f"{list(row['stacks_end'])}")
    return out


DEFAULT_CALIBRATION = Path("runs/calibration/calibration.md")


def report(run: str | Path, calibration: str | Path | None = DEFAULT_CALIBRATION,
           sign_key: str | Path | None = None) -> dict[str, str | Path]:
    """``holdem report RUN``: write report.html, certificate.json and summary.md (with the
    calibration tables of ``holdem calibrate`` when that file exists). ``sign_key``: an Ed25519
    private key (PEM) whose signature of certificate.json is written to certificate.sig; without
    one, a signature left by an earlier report is removed (it would not match)."""
    from audits import storage
    from audits.runfolder import RunFolder
    from cluster.signing import load_private_key, sign
    from reports import SIGNATURE_FILE
    from reports.render import load_inputs, write_report

    key = load_private_key(sign_key) if sign_key is not None else None  # before writing
    audit, _ = load_inputs(run)
    paths = write_report(run, failing_histories(run, audit["results"]), calibration)
    folder = RunFolder.open(storage.as_location(run))
    sig = folder.location(SIGNATURE_FILE)
    if key is not None:
        folder.write(SIGNATURE_FILE, sign(key, storage.read_bytes(paths["certificate"])))
        paths["signature"] = sig
    elif storage.is_file(sig):
        folder.delete(SIGNATURE_FILE)
    return paths
