"""Red team of ``holdem certify``'s default reproduction (``--reproduce values``): what binds a
batch file's bytes in it is the sha256 this certify's writer computed in memory
(``Manifest.written``), so neither a folder prepared in advance nor a file swapped in after the
writer wrote it may pass on its values alone.

The forgery changes the bytes and no value (every hand, every column and the footer's facts as
the writer makes them: smaller pages, the one change only the bytes show), with the manifest's
sha256 and bytes restamped as an attacker would; the prepared folder's manifest also carries a
forged ``written`` map naming the forged file's sha256 (manifest.json is never where certify
takes it from)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cluster.flows import certify as certify_flow
from cluster.flows.simulate import run_simulate
from tests.cluster.test_reproduce_values import F1, SPEC, _rewrite

BYTES_ONLY = "its bytes differ from the re-simulated file's though every hand's content matches"
NOT_THE_WRITERS = "its sha256 is not the one its writer gave it"


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("values-forged") / "clean"
    run_simulate(SPEC, root, workers=0, progress=False)
    return root


def _certify(out: Path) -> Any:
    return certify_flow.certify(SPEC, out, workers=0, progress=False, calibration=None)


def test_a_prepared_folder_with_a_forged_written_map_is_encoded_again(
        clean: Path, tmp_path: Path) -> None:
    """The folder prepared in advance: F1 re-encoded with smaller pages, its sha256 restamped in
    the manifest and named in a forged ``written`` map. Certify keeps it (its sha256 is the
    manifest's), so no writer of this command made it: it is encoded again and compared, and
    its bytes are named."""
    out = tmp_path / "run"
    shutil.copytree(clean, out)
    _rewrite(out, F1, data_page_size=2048)
    forged = (out / F1).read_bytes()
    assert forged != (clean / F1).read_bytes()
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["written"] = {F1: hashlib.sha256(forged).hexdigest()}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2))
    res = _certify(out)
    assert (out / F1).read_bytes() == forged  # kept, not simulated again
    assert res.manifest is not None and F1 not in res.manifest.written
    rep = res.reproduction
    assert rep["status"] == "DIFFERS" and rep["path"] == F1 and rep["hand_id"] is None, rep
    assert BYTES_ONLY in rep["text"] and NOT_THE_WRITERS not in rep["text"]
    assert res.verdict == "FAIL"


def test_a_file_swapped_in_after_the_writer_is_not_the_writers(
        clean: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between certify's writer and its audit, F1 replaced by the same values in other bytes
    (the manifest restamped): the sha256 the writer gave it names it."""
    out = tmp_path / "run"
    real = certify_flow.audit_step

    def swap_then_audit(run: Any, **kw: Any) -> Any:
        _rewrite(Path(run), F1, data_page_size=2048)
        return real(run, **kw)

    monkeypatch.setattr(certify_flow, "audit_step", swap_then_audit)
    res = _certify(out)
    assert res.manifest is not None and F1 in res.manifest.written
    rep = res.reproduction
    assert rep["status"] == "DIFFERS" and rep["path"] == F1 and rep["hand_id"] is None, rep
    assert BYTES_ONLY in rep["text"] and NOT_THE_WRITERS in rep["text"]
    assert res.verdict == "FAIL"
