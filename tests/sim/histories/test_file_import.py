"""The compiled import path (``sim.histories.files``: scan, replay kernel, columns) gives exactly
what the Python path (the reference reader, replay and rows) gives: every column of every row, the
counts, the skip reasons and their examples, the odd-chip lines, in the file's order; on the real
hands of ``../shared/realhands`` (skipped when absent), on files mixing good hands with hostile
ones, and on random edits of a file. And it takes the ordinary hands: a share of the real ones
below 95% means the speed-up is gone."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cluster.bench.import_phh import _SYNTH_HAND, REALHANDS
from sim.histories.files import import_file_bytes
from sim.histories.read.phh import clear_memos, iter_phh_paths
from sim.histories.rows.reference import FileImport

FIELDS = ("sha256", "format", "submitted", "imported", "skipped", "examples", "scale",
          "file_scale", "currencies", "odd_chip", "seat_count_known", "gaps")
ROOT = Path(__file__).resolve().parents[3]
SITE_FIXTURES = (ROOT / "tests" / "fixtures" / "sitetext",
                 ROOT / "tests" / "fixtures" / "sitetext_real")
SITETEXT = ROOT.parent / "shared" / "sitetext"


def same(path: str, data: bytes, scale: int | None = None) -> FileImport:
    """Both paths on one file: equal in every field (named on failure); the compiled result."""
    fast = import_file_bytes(path, data, scale)
    ref = import_file_bytes(path, data, scale, compiled=False)
    for name in FIELDS:
        assert getattr(fast, name) == getattr(ref, name), f"{path}: {name} differs"
    if ref.table is None:
        assert fast.table is None, path
    else:
        assert fast.table is not None, path
        assert fast.table.schema == ref.table.schema, path
        for name in ref.table.column_names:
            a, b = fast.table.column(name), ref.table.column(name)
            if not a.equals(b):
                rows = [i for i, (x, y) in enumerate(zip(a.to_pylist(), b.to_pylist(),
                                                         strict=True)) if x != y]
                raise AssertionError(f"{path}: column {name} differs first at row {rows[:1]}")
    return fast


def _hand(k: int) -> str:
    return _SYNTH_HAND.format(k=k, a=40 + k % 50, b=100 + k % 7, m=k % 60, h=70_000 + k)


def synthetic(hands: int = 12) -> bytes:
    return "".join(_hand(k + 1) for k in range(hands)).encode()


@pytest.mark.skipif(not REALHANDS.is_dir(), reason=f"{REALHANDS} absent (the real hands corpus "
                    "lives beside the repo, not in it)")
def test_real_hands_equal_and_compiled() -> None:
    took = imported = 0
    for p in iter_phh_paths([REALHANDS]):
        res = same(str(p), p.read_bytes())
        took += res.compiled
        imported += res.imported
    assert imported > 1_300
    assert took >= 0.95 * imported, f"the compiled path took {took} of {imported} hands"


def test_generated_hands_take_the_compiled_path() -> None:
    res = same("gen.phhs", synthetic(30))
    assert res.imported == 30 and res.compiled == 30
    # at the run's finer unit (the driver's redo of a file at the run's exponent)
    assert same("gen.phhs", synthetic(5), scale=4).compiled == 5
    # a unit the engine's amounts cannot take (beyond MAX_SCALE decimals): the Python path's
    # named skips, never a ValueError
    for scale in (7, -1):
        assert same("gen.phhs", synthetic(2), scale=scale).skipped == {
            "amount not representable": 2}


HOSTILE = {
    "not TOML": "[{k}]\nvariant = 'NT\nthis is = = not toml\n\n",
    "truncated": "[{k}]\nvariant = 'NT'\nantes = [0, 0\n",
    "1e400": "[{k}]\nvariant = 'NT'\nante_trimming_status = false\nantes = [0, 0]\n"
             "blinds_or_straddles = [1, 2]\nmin_bet = 2\nstarting_stacks = [1e400, 100]\n"
             "actions = ['d dh p1 ????', 'd dh p2 ????', 'p2 f']\n\n",
    "nan": "[{k}]\nvariant = 'NT'\nante_trimming_status = false\nantes = [0, 0]\n"
           "blinds_or_straddles = [1, 2]\nmin_bet = 2\nstarting_stacks = [nan, 100]\n"
           "actions = ['d dh p1 ????', 'd dh p2 ????', 'p2 f']\n\n",
    "negative stack": "[{k}]\nvariant = 'NT'\nante_trimming_status = false\nantes = [0, 0]\n"
                      "blinds_or_straddles = [1, 2]\nmin_bet = 2\nstarting_stacks = [-5, 100]\n"
                      "actions = ['d dh p1 ????', 'd dh p2 ????', 'p2 f']\n\n",
    "unknown variant": "[{k}]\nvariant = 'FO/2'\nante_trimming_status = false\nantes = [0, 0]\n"
                       "blinds_or_straddles = [1, 2]\nmin_bet = 2\nstarting_stacks = [50, 100]\n"
                       "actions = []\n\n",
    "30 players": "[{k}]\nvariant = 'NT'\nante_trimming_status = false\nantes = [" +
                  ", ".join(["0"] * 30) + "]\nblinds_or_straddles = [1, 2" + ", 0" * 28 +
                  "]\nmin_bet = 2\nstarting_stacks = [" + ", ".join(["100"] * 30) +
                  "]\nactions = []\n\n",
    "illegal raise": "[{k}]\nvariant = 'NT'\nante_trimming_status = false\nantes = [0, 0, 0]\n"
                     "blinds_or_straddles = [1, 2, 0]\nmin_bet = 2\n"
                     "starting_stacks = [100, 100, 100]\nactions = ['d dh p1 ????', "
                     "'d dh p2 ????', 'd dh p3 ????', 'p3 cbr 3']\n\n",
    # a straddle no bigger than the big blind: not one the engine plays (p3 above it is)
    "straddle": "[{k}]\nvariant = 'NT'\nante_trimming_status = false\nantes = [0, 0, 0]\n"
                "blinds_or_straddles = [1, 2, 2]\nmin_bet = 2\nstarting_stacks = [100, 100, 100]\n"
                "actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'p1 f', 'p2 f']\n\n",
    "ends early": "[{k}]\nvariant = 'NT'\nante_trimming_status = false\nantes = [0, 0, 0]\n"
                  "blinds_or_straddles = [1, 2, 0]\nmin_bet = 2\n"
                  "starting_stacks = [100, 100, 100]\nactions = ['d dh p1 ????', "
                  "'d dh p2 ????', 'd dh p3 ????', 'p3 f']\n\n",
    "cents too fine": "[{k}]\nvariant = 'NT'\nante_trimming_status = false\nantes = [0, 0]\n"
                      "blinds_or_straddles = [1, 2]\nmin_bet = 2\n"
                      "starting_stacks = [50.0000001, 100]\n"
                      "actions = ['d dh p1 ????', 'd dh p2 ????', 'p2 f']\n\n",
    "commentary": "[{k}]\nvariant = 'NT' # a comment\nante_trimming_status = false\n"
                  "antes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\n"
                  "starting_stacks = [50, 100]\n"
                  "actions = ['d dh p1 ????', 'd dh p2 ????', 'p1 f # gave up']\n\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_hands_among_good_ones(name: str) -> None:
    """A hostile hand between good ones: the same counts, reasons, messages and rows as the
    Python path (which names the reason); the good hands still compiled."""
    bad = HOSTILE[name].replace("{k}", "7")
    text = "".join(_hand(k) for k in range(1, 7)) + bad + "".join(
        _hand(k) for k in range(8, 12))
    res = same("mixed.phhs", text.encode())
    assert res.submitted == 11
    # an unclosed array runs on over the next header lines: the Python reader may then read the
    # whole file as one TOML document, so the scanner gives the whole file to it
    assert res.compiled == (0 if name == "truncated" else 10)


def test_a_hand_longer_than_the_engines_log_is_a_named_skip() -> None:
    """1,100 raises in one hand: more events than the engine's record log holds: a skip named
    "hand not playable" by both paths, never a crash; the file's other hands imported."""
    raises = ", ".join(f"'p{2 - k % 2} cbr {4 + 2 * k}'" for k in range(1_100))
    long = ("[9]\nvariant = 'NT'\nante_trimming_status = false\nantes = [0, 0]\n"
            "blinds_or_straddles = [1, 2]\nmin_bet = 2\nstarting_stacks = [100000, 100000]\n"
            f"actions = ['d dh p1 ????', 'd dh p2 ????', {raises}, 'p1 f']\n\n")
    res = same("long.phhs", ("".join(_hand(k) for k in range(1, 4)) + long).encode())
    assert res.imported == 3 and res.skipped == {"hand not playable": 1}


def test_chips_beyond_the_engines_64_bits_are_a_named_skip() -> None:
    """Two all-in stacks that fit 64 bits each (at 6 decimals) but not together: the pot would
    wrap (a negative pot, imported as if fine); both paths skip the hand "amount not
    representable" (an unknown stack's stand-in counts too), the file's other hands compiled."""
    def hu(k: int, a: str, b: str, bet: str = "5000000000000") -> str:
        return (f"[{k}]\nvariant = 'NT'\nante_trimming_status = false\nantes = [0, 0]\n"
                f"blinds_or_straddles = [1, 2]\nmin_bet = 2\nstarting_stacks = [{a}, {b}]\n"
                f"actions = ['d dh p1 AsAd', 'd dh p2 KsKd', 'p2 cbr {bet}', 'p1 cc', "
                "'d db 2c3c4h', 'd db 9d', 'd db Td']\n\n")
    big = "5000000000000.000001"
    for a, b in ((big, big), ("inf", big)):
        res = same("big.phhs", (_hand(1) + hu(2, a, b) + _hand(3)).encode())
        assert res.imported == 2 and res.compiled == 2
        assert res.skipped == {"amount not representable": 1}
        assert "units in play" in res.examples["amount not representable"][0]["reason"]
    # below the limit: imported, the pot whole
    res = same("fits.phhs", hu(1, "1000000000000.000001", "1000000000000",
                               "1000000000000").encode())
    assert res.imported == 1 and res.table is not None
    assert res.table.column("pots").to_pylist()[0][0]["amount"] == 2 * 10**18


def test_messages_quote_amounts_as_written_whatever_was_read_before() -> None:
    """``0.70`` and ``0.7`` (equal values) in two hands, one for the scanner and one (a
    comment) for the Python reader, skipped at a run unit of whole units: each message quotes
    its own hand's digits, on both paths and from a cold or a warm process (the reader's memo
    of decimals once gave every hand the digits of the first one the process had read)."""
    def sec(k: int, blind: str, note: str = "") -> str:
        return (f"[{k}]\nvariant = 'NT'\nante_trimming_status = false\nantes = [0, 0]\n"
                f"blinds_or_straddles = [{blind}, 1]\nmin_bet = 1{note}\n"
                "starting_stacks = [10, 10]\nactions = ['d dh p1 ????', 'd dh p2 ????', "
                "'p2 f']\n\n")
    data = (sec(1, "0.70") + sec(2, "0.7", "  # not for the scanner")).encode()
    for compiled in (True, False):
        clear_memos()
        res = import_file_bytes("m.phhs", data, 0, compiled=compiled)
        reasons = [e["reason"] for e in res.examples["amount not representable"]]
        assert [r.split(": ")[-1].split()[0] for r in reasons] == ["0.70", "0.7"], reasons
    same("m.phhs", data, 0)


def test_file_level_oddities_fall_back_whole() -> None:
    body = synthetic(4)
    for data in (b"\xef\xbb\xbf" + body,  # a byte order mark
                 body.replace(b"\n", b"\r\n"),  # Windows line ends
                 b"# an export\n" + body,  # a comment before the first section
                 body + _hand(2).encode(),  # a section key twice
                 body[:-40],  # cut inside the last hand
                 body + b"\x00\x00",  # NUL bytes
                 body + b"\xff\xfe"):  # not UTF-8
        same("odd.phhs", data)


def test_one_hand_phh_file() -> None:
    one = _hand(1).split("\n", 1)[1].encode()  # no section header: a .phh file
    res = same("one.phh", one)
    assert res.imported == 1 and res.compiled == 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_edits_give_the_python_paths_result(data: st.DataObject) -> None:
    """Random edits of a file (bytes deleted, repeated, replaced): never a crash, and always the
    Python path's result."""
    body = bytearray(synthetic(5))
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(body) - 1))
        kind = data.draw(st.sampled_from(["delete", "repeat", "replace", "digit"]))
        span = data.draw(st.integers(1, 12))
        if kind == "delete":
            del body[at:at + span]
        elif kind == "repeat":
            body[at:at] = body[at:at + span]
        elif kind == "replace":
            body[at:at + 1] = bytes([data.draw(st.sampled_from(b"[]'\"=.,#-0123456789 \nabp"))])
        else:
            body[at:at + 1] = bytes([data.draw(st.sampled_from(b"0123456789"))])
        if not body:
            body = bytearray(b"\n")
    same("edited.phhs", bytes(body))


def test_import_file_reads_the_file(tmp_path: Path) -> None:
    """``import_file`` on a path reads its bytes once and takes the compiled path."""
    from sim.histories.files import import_file

    p = tmp_path / "t.phhs"
    p.write_bytes(synthetic(3))
    res = import_file(str(p))
    assert res.imported == 3 and res.compiled == 3
    missing = import_file(str(tmp_path / "nope.phhs"))
    assert missing.imported == 0 and list(missing.skipped) == ["unreadable"]


def test_a_file_replayed_in_chunks_gives_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long file is replayed and made rows a chunk of hands at a time (the engine states of a
    chunk only): chunks of 3 hands over good and hostile hands give the Python path's result,
    odd-chip lines and section order included."""
    import sim.histories.files as fi

    monkeypatch.setattr(fi, "CHUNK_HANDS", 3)
    text = "".join(_hand(k) for k in range(1, 7)) + HOSTILE["illegal raise"].replace(
        "{k}", "7") + "".join(_hand(k) for k in range(8, 15))
    res = same("chunks.phhs", text.encode())
    assert res.imported == 13 and res.compiled == 13
    if REALHANDS.is_dir():
        ong = next(iter(iter_phh_paths([REALHANDS / "ong"])))  # finishing stacks: odd chips
        res = same(str(ong), ong.read_bytes())
        assert res.compiled == res.imported > 50


def _site_files(roots: list[Path]) -> list[Path]:
    from sim.histories.sites.text import iter_history_paths

    return [p for p in iter_history_paths(roots) if p.suffix != ".phh" and p.suffix != ".phhs"]


def _sites_equal(roots: list[Path], scale: int | None = None) -> tuple[int, int]:
    took = imported = 0
    for p in _site_files(roots):
        res = same(str(p), p.read_bytes(), scale)
        took += res.compiled
        imported += res.imported
    return took, imported


def test_site_text_hands_take_the_compiled_replay_and_rows() -> None:
    """A site's text (not PHH): its read hands replayed and made rows by the compiled path, the
    tournament's, the operator's rake, pot and claims put in from the read hand; every row,
    skip, odd-chip line and gap as the reference gives them, at the file's unit and a finer
    one."""
    took, imported = _sites_equal(list(SITE_FIXTURES))
    assert imported > 60
    assert took >= 0.95 * imported, f"the compiled path took {took} of {imported} hands"
    took, imported = _sites_equal([SITE_FIXTURES[0]], scale=4)
    assert took == imported > 0


@pytest.mark.skipif(not SITETEXT.is_dir(), reason=f"{SITETEXT} absent (the sites' real exports "
                    "live beside the repo, not in it)")
def test_real_site_exports_equal_and_compiled() -> None:
    took, imported = _sites_equal([SITETEXT])
    assert imported > 1_300
    assert took >= 0.95 * imported, f"the compiled path took {took} of {imported} hands"
