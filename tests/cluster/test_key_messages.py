"""A key file that cannot be read is said once, in one line (review of issue 24: SigningKeyError
is an InputError, so a ValueError, and the reader's own error was caught and wrapped again in
"not an unencrypted PEM private key (signing key ...: cannot read it (...))")."""

from __future__ import annotations

from pathlib import Path

import pytest

from cluster.cli import main
from cluster.flows.signing import SigningKeyError, load_private_key, load_public_key


def test_report_with_a_missing_signing_key_is_one_plain_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nokey.pem"
    code = main(["report", str(tmp_path), "--no-reproduce", "--sign-key", str(missing)])
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and err.count(str(missing)) == 1, err
    assert "cannot read it" in err and "not an unencrypted" not in err, err


@pytest.mark.parametrize("load", [load_private_key, load_public_key])
def test_a_missing_key_file_is_not_wrapped_twice(tmp_path: Path, load: object) -> None:
    missing = tmp_path / "nokey.pem"
    with pytest.raises(SigningKeyError) as e:
        load(missing)  # type: ignore[operator]
    assert str(e.value).count(str(missing)) == 1 and "cannot read it" in str(e.value)
