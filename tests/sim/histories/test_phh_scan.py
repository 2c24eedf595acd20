"""The compiled PHH scanner (sim.histories.read.scan) against the Python path
(sim.histories.read.phh.reads_phh then sim.histories.read.block.block_from_hands): the same
sections, and every section it calls fast gives the very same block; hostile bytes never crash it.
And HandBlock.take / rescale."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.histories.read.block import HandBlock, block_from_hands
from sim.histories.read.phh import PhhFile, reads_phh
from sim.histories.read.scan import Scan, scan

SHARED = Path(__file__).resolve().parents[3].parent / "shared"
REAL = SHARED / "realhands"
PHH = SHARED / "phh"


def _files(root: Path) -> list[Path]:
    if not root.is_dir():
        pytest.skip(f"{root} is absent (the shared corpus beside the checkout)")
    return sorted(p for p in root.rglob("*") if p.suffix in (".phh", ".phhs"))


def _python(data: bytes, many: bool) -> PhhFile | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return reads_phh(text, many=many)


def check(data: bytes, many: bool) -> Scan:
    """scan(data) against the Python path: the same number of sections, lo/hi tiling the
    file from the first header, and the fast sections' block equal to the reference."""
    s = scan(data, many=many)
    n = len(s.fast)
    assert len(s.lo) == len(s.hi) == n
    assert s.block.n_hands == int(s.fast.sum())
    if not s.file_ok:
        assert n == 0 and s.block.n_hands == 0
        return s
    ref = _python(data, many)
    assert ref is not None, "file_ok on bytes that are not UTF-8"
    assert s.sections == n == ref.sections
    if n:
        assert s.hi[-1] == len(data)
        assert np.array_equal(s.lo[1:], s.hi[:-1])
        assert (not many and s.lo[0] == 0) or (many and data[: s.lo[0]].strip() == b"")
    if many:
        by_key = {h.key: h for h in ref.hands}
        skipped = {k.key for k in ref.skipped}
        keys = s.block.section.to_pylist()
        for k in keys:
            assert k not in skipped, f"section [{k}] fast but the Python reader skips it"
        hands = [by_key[k] for k in keys]
    else:
        hands = ref.hands if s.block.n_hands else []
    want = block_from_hands(hands, 6)
    assert s.block.equal(want) == []
    return s


def _fast_share(files: list[Path]) -> tuple[int, int]:
    fast = total = 0
    for f in files:
        s = check(f.read_bytes(), f.suffix == ".phhs")
        assert s.file_ok, f
        fast += int(s.fast.sum())
        total += s.sections
    return fast, total


def test_realhands_differential_and_fast_share() -> None:
    files = _files(REAL)
    by_site: dict[str, list[Path]] = {}
    for f in files:
        by_site.setdefault(f.parent.name, []).append(f)
    assert len(by_site) == 6
    fast_all = total_all = 0
    for site, fs in sorted(by_site.items()):
        fast, total = _fast_share(fs)
        assert total > 0
        assert fast / total > 0.97, (site, fast, total)
        fast_all += fast
        total_all += total
    assert total_all == 1416


def _phh_sample(k: int | None) -> list[Path]:
    files = _files(PHH)
    if k is None or k >= len(files):
        return files
    rng = random.Random(22)
    top = [f for f in files if f.parent == PHH or "wsop" in f.parts]  # the odd ones: all
    rest = [f for f in files if f not in set(top)]
    return top + rng.sample(rest, k)


def test_phh_corpus_sample_differential() -> None:
    files = _phh_sample(400)
    fast, total = _fast_share(files)
    assert total == len(files)
    assert fast > 0.9 * 400  # the pluribus hands are plain; wsop and the famous ones are not


@pytest.mark.slow
def test_phh_corpus_whole_differential() -> None:
    fast, total = _fast_share(_phh_sample(None))
    assert total == 10_088


# ---------------------------------------------------------------- hostile and edited bytes

def _real_text() -> bytes:
    """The first 2 sections of one file per site (unknown stacks, dead blinds, cents, names
    with an apostrophe ...), their keys made unique."""
    files = [f for f in _files(REAL) if f.name.endswith("_1.phhs")]
    seen: set[str] = set()
    out = []
    for f in files:
        site = f.parent.name
        if site in seen:
            continue
        seen.add(site)
        data = f.read_bytes()
        cut = [i + 1 for i in range(len(data)) if data.startswith(b"\n[", i)]
        for k, chunk in enumerate((data[: cut[0]], data[cut[0] : cut[1]])):
            body = chunk.split(b"\n", 1)[1]
            out.append(f"[{site}{k}]\n".encode() + body)
    return b"".join(out)


@pytest.mark.parametrize("edit", [
    b"",  # empty
    b"\xef\xbb\xbf",  # a BOM
    b"\xff\xfe",  # not UTF-8
    b"[1]\nvariant = 'NT'\n" + b"x" * 200_000,  # a long line
    b"\x00\x00[1]\n",  # NUL bytes
    b"[1]\n[1]\n",  # a key twice
    b"[1]\nstarting_stacks = [1e400, 2]\n",
    b"[1]\nstarting_stacks = [nan, 2]\n",
    b"[1]\nactions = [\n[2]\n]\n",  # a header-like line inside an array
    b"[1]\nvenue = '''a\n[2]\nb'''\n",  # ... inside a multi-line string
    b"[1]\n[a.b]\nx = 1\n",
    b"[1] # c\nvariant = 'NT'\n",
    b"junk\n[1]\n",
    b"[1]\nvariant = 'NT'\r",
], ids=lambda e: repr(e[:24]))
def test_hostile_files_never_crash(edit: bytes) -> None:
    for many in (True, False):
        check(edit, many)
        check(_real_text() + edit, many)
        check(edit + _real_text(), many)


def test_thirty_players_and_extremes() -> None:
    n = 30
    text = ("[1]\nvariant = 'NT'\nantes = [" + ", ".join(["0"] * n) + "]\n"
            "blinds_or_straddles = [1, 2" + ", 0" * (n - 2) + "]\nmin_bet = 2\n"
            "starting_stacks = [" + ", ".join(["8999999999999.999999"] * n) + "]\n"
            "actions = ['d dh p30 AsKd', 'p3 cbr 0.000001', 'p30 sm -']\n")
    s = check(text.encode(), True)
    assert s.fast.tolist() == [True]
    assert s.block.stack[0] == 8_999_999_999_999_999_999
    over = text.replace("8999999999999.999999", "9000000000000")
    assert check(over.encode(), True).fast.tolist() == [False]


_BASE = """[1]
variant = 'NT'
ante_trimming_status = false
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [200.30, inf, 197]
actions = ['d dh p1 ????', 'd dh p2 AsKd', 'd dh p3 ????', 'p3 cbr 6.50', 'p1 f', 'p2 cc', \
'd db 2c3d4h', 'p2 sm -']
hand = 123
table = '''AMY'S AVE'''
seats = [1, 4, 6]
seat_count = 6
players = ['a', 'b', 'c']
time = 00:02:30
day = 1
month = 7
year = 2009
venue = 'X'
winnings = [0, 0, 9.5]
"""


@pytest.mark.parametrize(("old", "new", "fast"), [
    ("", "", True),
    ("\n", "\r\n", True),  # CRLF
    ("[0, 0, 0]", "[ 0 ,\t0, 0, ]", True),  # spaces, tabs, a trailing comma
    ("min_bet = 2", "min_bet = 2.000000000", True),  # trailing zeros are not decimals
    ("p3 cbr 6.50", "p3  cbr  006.50", True),  # the action reader's words and digits
    ("venue = 'X'", "venue = 'X' # c", False),  # a comment
    ("'p1 f'", "'p1 f # folds'", False),  # commentary
    ("venue = 'X'", 'venue = "X"', False),  # a basic string
    ("venue = 'X'", "author = 'X'", False),  # an unknown key
    ("day = 1", "day = 1\nday = 1", False),  # a key twice
    ("min_bet = 2", "min_bet = 2.0000001", False),  # 7 decimals
    ("min_bet = 2", "min_bet = 2e0", False),
    ("min_bet = 2", "min_bet = +2", False),
    ("min_bet = 2", "min_bet = 02", False),
    ("min_bet = 2", "min_bet = 1_0", False),
    ("min_bet = 2", "min_bet = inf", False),
    ("[200.30, inf, 197]", "[200.30, nan, 197]", False),
    ("[200.30, inf, 197]", "[200.30, -inf, 197]", False),
    ("[200.30, inf, 197]", "[200.30, 1e400, 197]", False),
    ("[1, 2, 0]", "[1, 2, -2]", True),  # a dead blind
    ("[0, 0, 9.5]", "[0, 0, -9.5]", False),  # a negative amount
    ("['a', 'b', 'c']", "['a', 'b', 'a']", False),  # a name twice
    ("['a', 'b', 'c']", "['a', 'b']", False),  # lengths
    ("[1, 4, 6]", "[1, 4, 7]", False),  # a seat above seat_count
    ("[1, 4, 6]", "[1, 4, 4]", False),  # a seat twice
    ("'NT'", "'NL'", False),
    ("'p2 sm -'", "'p2 sd'", False),  # not a block verb
    ("'d db 2c3d4h'", "'d db 2c3d4x'", False),  # a bad card
    ("'d db 2c3d4h'", "'d db 2c3d4h5s6s7s'", False),  # more than MAX_ACTION_CARDS
    ("'d db 2c3d4h'", "'d db 2c3d4H'", True),  # suits are case-insensitive
    ("'p1 f'", "'p4 f'", False),  # no p4
    ("'p1 f'", "'p01 f'", True),  # p01 is p1 for the reader
    ("00:02:30", "24:00:00", False),
    ("00:02:30", "00:02:30.5", False),
    ("ante_trimming_status = false", "ante_trimming_status = False", False),
    ("hand = 123", "hand = 12.5", False),
    ("hand = 123", "hand = true", False),
    ("hand = 123", "hand = '12 3'", True),
    ("actions = [", "actions = [\n", False),  # a multi-line array
    ("'p3 cbr 6.50'", "'p3 cbr 0'", False),  # a bet of nothing
    ("min_bet = 2\n", "", False),  # a required field missing
])
def test_directed_edits(old: str, new: str, fast: bool) -> None:
    assert old in _BASE
    text = _BASE.replace(old, new)
    for many in (True, False):
        body = text if many else text.split("\n", 1)[1]
        s = check(body.encode(), many)
        assert s.file_ok
        assert s.fast.tolist() == [fast], (old, new, many)


_MUTATIONS = ("delete", "duplicate", "insert", "swap", "number")
_INSERTS = [b"'", b"''", b"'''", b'"', b"#", b"[", b"]", b",", b"\n", b"\r", b"\t", b" ",
            b"\x00", b"\xc3", b"\xa9", b"-", b".", b"0", b"1", b"9", b"inf", b"nan", b"e5",
            b"_", b"+", b"p1", b"p99", b"??", b"sm", b"cbr", b"dh", b"[1]\n", b"true", b"=",
            b"10", b"x = 1\n", b"hand = 5\n", b"\n[2]\n", b"7.1234567", b"1e400"]


def _mutate(data: bytes, rng: random.Random, k: int) -> bytes:
    b = bytearray(data)
    for _ in range(k):
        kind = rng.choice(_MUTATIONS)
        i = rng.randrange(len(b) + 1)
        j = min(len(b), i + rng.randrange(1, 12))
        if kind == "delete":
            del b[i:j]
        elif kind == "duplicate":
            b[i:i] = b[i:j]
        elif kind == "insert":
            b[i:i] = rng.choice(_INSERTS)
        elif kind == "swap":  # two lines' values
            lines = bytes(b).split(b"\n")
            x, y = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[x], lines[y] = lines[y], lines[x]
            b = bytearray(b"\n".join(lines))
        else:  # change a digit
            digits = [m for m in range(len(b)) if 48 <= b[m] <= 57]
            if digits:
                b[rng.choice(digits)] = rng.choice(b"0123456789.-")
    return bytes(b)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 6), many=st.booleans())
def test_mutated_sections_fast_only_when_equal(seed: int, k: int, many: bool) -> None:
    data = _real_text()
    rng = random.Random(seed)
    if not many:  # one section as a .phh file
        starts = [i + 1 for i in range(len(data)) if data.startswith(b"\n[", i)]
        at = rng.choice([0, *starts])
        start = data.index(b"\n", at) + 1
        end = data.find(b"\n[", start)
        data = data[start : (end + 1 if end >= 0 else len(data))]
    check(_mutate(data, rng, k), many)


def test_mutation_catches_a_wrong_scanner(monkeypatch: pytest.MonkeyPatch) -> None:
    """The differential check can fail: a scanner that drops one decimal is caught."""
    data = _real_text()
    s = scan(data, many=True)
    s.block.stack[0] += 1
    ref = reads_phh(data.decode(), many=True)
    assert s.block.equal(block_from_hands(ref.hands[: s.block.n_hands], 6)) == ["stack"]


# ---------------------------------------------------------------- take and rescale


def _real_block() -> HandBlock:
    data = _real_text()
    return block_from_hands(reads_phh(data.decode(), many=True).hands, 6)


def _iter_takes(n: int) -> Iterator[list[int]]:
    yield []
    yield list(range(n))
    yield [n - 1, 0, 2]
    yield [1, 1, 3]


def test_take_equals_the_reference_of_those_hands() -> None:
    data = _real_text()
    hands = reads_phh(data.decode(), many=True).hands
    block = block_from_hands(hands, 6)
    for idx in _iter_takes(len(hands)):
        got = block.take(np.asarray(idx, np.int64))
        want = block_from_hands([hands[i] for i in idx], 6, [hands[i].key or "" for i in idx])
        assert got.equal(want) == [], idx
    with pytest.raises(IndexError):
        block.take(np.asarray([len(hands)]))


def test_rescale_equals_the_reference_at_that_exponent() -> None:
    data = _real_text()
    hands = reads_phh(data.decode(), many=True).hands
    assert max(h.scale for h in hands) == 2  # cents
    block = block_from_hands(hands, 6)
    for e in (6, 4, 2):
        assert block.rescale(e).equal(block_from_hands(hands, e)) == []
    with pytest.raises(ValueError, match="scale 2"):
        block.rescale(1)
    bad = block_from_hands(hands, 6)
    bad.scale[:] = 0
    bad.ante[0] = 7  # not a whole number of units at exponent 0
    with pytest.raises(ValueError, match="not a whole number of 10\\^-0 units"):
        bad.rescale(0)
    # the absent/unknown -1 stay -1
    assert (block.rescale(2).min_bet == np.where(block.min_bet == -1, -1,
                                                  block.min_bet // 10_000)).all()


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=40), pad=st.integers(0, 20))
def test_utf8_check_is_pythons(data: bytes, pad: int) -> None:
    from sim.histories.read.scan import _utf8_ok

    for text in (data, b"a" * pad + data, b"a" * pad + data + "é𝄞".encode() + b"b" * pad):
        try:
            text.decode("utf-8")
            want = True
        except UnicodeDecodeError:
            want = False
        assert bool(_utf8_ok(np.frombuffer(text, np.uint8))) == want, text
