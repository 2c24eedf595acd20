"""Red team of ``--suspects FILE`` (``audits.players``): the audited party cannot steer which
players the targeted deal tests test, nor make a re-run of the audits (signing, ``holdem
verify --reaudit``) confirm another list under the lab's list's sha256."""

from __future__ import annotations

import hmac
from pathlib import Path

import pytest

from audits import players as listed

KEY = b"k" * 16


def _keyed(name: str) -> str:
    """A name as ``holdem import --hash-names`` stores it (``hash_names``: every name keyed)."""
    return hmac.new(KEY, name.encode(), "sha256").hexdigest()[:16]


def _list(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "suspects.txt"
    p.write_text(text)
    return p


def test_a_name_of_digits_under_hash_names_is_that_player(tmp_path: Path) -> None:
    """An operator's insider named ``1234`` (screen names of digits are allowed on sites): the
    import keyed his name as every other; the lab lists him by name. The list must test him,
    not the import's player id 1234 (another player, here Carol), and not no one."""
    names = {_keyed("Alice"): 0, _keyed("1234"): 7, _keyed("Carol"): 1234}  # ``_names``
    plist = listed.read_players(_list(tmp_path, "1234\nAlice\n"), KEY)
    ids, readable = plist.ids(names)
    assert ids.tolist() == [0, 7] and readable == 2


def test_a_recorded_list_cannot_carry_another_lists_sha256(tmp_path: Path) -> None:
    """The audited party names the lab's list (its sha256) in audit.json and tests a decoy: a
    re-run (signing, ``holdem verify --reaudit``) refuses the record, since the sha256 is that
    of the entries tested; the honest record is taken back as it was."""
    lab = listed.read_players(_list(tmp_path, "# the lab's suspects\n17\n33\n"))
    forged = {**lab.record(), "entries": ["5"]}  # the lab's file named, a decoy tested
    audit = {"results": [{"name": "uniformity", "details": {"players_list": forged}}]}
    with pytest.raises(listed.PlayersInputError, match="not that of its 1 entries"):
        listed.recorded_list(audit)
    honest = {"results": [{"name": "uniformity", "details": {"players_list": lab.record()}}]}
    assert listed.recorded_list(honest) == lab
    assert lab.sha256 == listed.entries_sha256(("17", "33"))  # what a verifier recomputes


def test_a_name_with_a_hash_sign_is_that_player(tmp_path: Path) -> None:
    """Sites allow ``#`` in names: the lab lists ``Bob#2``; cut at the ``#`` it would test
    ``Bob`` (another player) instead. A comment starts a line or follows a blank."""
    plist = listed.read_players(_list(tmp_path, "# suspects\nBob#2   # the insider\nAl #x\n"))
    assert plist.entries == ("Bob#2", "Al")
    ids, readable = plist.ids({"Bob": 1, "Bob#2": 2, "Al": 3})
    assert ids.tolist() == [2, 3] and readable == 2
