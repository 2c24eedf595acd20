"""The purpose-built PHH reader (sim.histories.read.sections) against tomllib, per-hand reading,
exact money and hostile files (sim.histories.read.phh)."""

from __future__ import annotations

import datetime as dt
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.histories.read.phh import (
    MAX_SCALE,
    SKIP_KINDS,
    PhhError,
    iter_phh_paths,
    load_phh,
    read_phh,
    reads_phh,
)
from sim.histories.read.sections import MAX_SECTION_CHARS, read_sections
from sim.histories.replay.reference import replay

# ../shared beside the repo (the checkout's parent: also where CI clones it with shared/ beside)
SHARED = Path(__file__).resolve().parents[3].parent / "shared"
CORPORA = [SHARED / "phh", SHARED / "realhands"]


def _norm(v: Any) -> Any:
    """Values compared by type and text: Decimal('1.50') is not Decimal('1.5'), NaN == NaN."""
    if isinstance(v, dict):
        return {k: _norm(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_norm(x) for x in v]
    return (type(v).__name__, repr(v))


def _ours(text: str, many: bool) -> Any:
    secs = read_sections(text, many=many)
    assert all(s.error is None for s in secs), [s.error for s in secs if s.error]
    if not many:
        return secs[0].fields
    return {s.key: s.fields for s in secs}


def _ref(text: str) -> Any:
    return tomllib.loads(text, parse_float=Decimal)


# ------------------------------------------------------------------ the corpora


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda p: p.name)
def test_equal_to_tomllib_on_every_hand(corpus: Path) -> None:
    if not corpus.exists():
        pytest.skip(f"{corpus} not present (the shared data set beside the repo)")
    hands = fallback = 0
    for path in iter_phh_paths([corpus]):
        text = path.read_text(encoding="utf-8")
        many = path.suffix == ".phhs"
        assert _norm(_ours(text, many)) == _norm(_ref(text)), path
        secs = read_sections(text, many=many)
        hands += len(secs)
        fallback += sum(s.fallback for s in secs)
    assert hands >= (10_088 if corpus.name == "phh" else 1_416)
    assert fallback == 0  # every hand of the corpora is read by the fast path


def test_realhands_read_whole_with_their_fields() -> None:
    root = SHARED / "realhands"
    if not root.exists():
        pytest.skip(f"{root} not present (the shared data set beside the repo)")
    n = 0
    venues: set[str] = set()
    for path in iter_phh_paths([root]):
        f = read_phh(path)
        assert not f.skipped, [s.describe() for s in f.skipped]
        for h in f.hands:
            n += 1
            venues.add(h.venue or "")
            assert h.hand is not None and h.year == 2009 and h.time is not None
            assert h.scale <= 2
            mu = h.minor_units(2)  # every hand converts to cents
            assert len(mu.starting_stacks) == h.n_players
            if h.venue == "iPoker Network":
                assert h.unknown_stacks and None in mu.starting_stacks
    assert n == 1_416 and len(venues) == 6


def test_realhands_replay_in_cents() -> None:
    """The foundation for the import: a hand in minor units replays with the integer engine
    (what it cannot replay yet, dead blinds, unknown stacks, 'sm ????' at showdown, is named)."""
    root = SHARED / "realhands"
    if not root.exists():
        pytest.skip(f"{root} not present (the shared data set beside the repo)")
    ok = named = 0
    for path in iter_phh_paths([root]):
        for i, h in enumerate(read_phh(path).hands):
            r = replay(h.in_minor_units(2), i)
            ok += r.error is None
            named += r.error is not None and bool(r.error)
    assert ok >= 1_000 and ok + named == 1_416


# ------------------------------------------------------------------ generated TOML

_bare = st.from_regex(r"[A-Za-z0-9_-]{1,8}", fullmatch=True)
_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x7f"),
                max_size=12)
_lit = st.from_regex(r"[^'\x00-\x08\x0a-\x1f\x7f]{0,10}", fullmatch=True)
_num_text = st.one_of(
    st.integers(-10**20, 10**20).map(str),
    st.from_regex(r"[+-]?(0|[1-9](_?[0-9]){0,5})(\.[0-9](_?[0-9]){0,4})?([eE][+-]?[0-9]{1,3})?",
                  fullmatch=True),
    st.sampled_from(["inf", "+inf", "-inf", "nan", "-nan", "0.0", "1e400", "00", "1__0"]),
)
_scalar = st.one_of(
    _num_text,
    _lit.map(lambda s: f"'{s}'"),
    _text.map(lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"')
              .replace("\n", "\\n") + '"'),
    _lit.map(lambda s: f"'''{s}'''"),
    st.sampled_from(["'''AMY'S AVE'''", "'''\nx\ny'''", "''''a'''''", "true", "false",
                     "00:00:00", "23:59:59.123", "1979-05-27", "0x1F", "{a = 1}"]),
    st.from_regex(r"([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]", fullmatch=True),
)


def _array(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    sep = st.sampled_from([", ", ",", " , ", ",\n  ", ",  # c\n  ", ",\r\n"])
    return st.tuples(st.lists(inner, max_size=5), sep, st.booleans()).map(
        lambda t: "[" + t[1].join(t[0]) + (t[1] if t[2] and t[0] else "") + "]")


_value = st.recursive(_scalar, _array, max_leaves=8)
_key = st.one_of(_bare, _lit.map(lambda s: f"'{s}'"))
_line = st.tuples(_key, _value, st.sampled_from(["", "  # note", "\t#"])).map(
    lambda t: f"{t[0]} = {t[1]}{t[2]}")
_section = st.tuples(st.one_of(_bare, st.integers(0, 99).map(str)),
                     st.lists(_line, max_size=6),
                     st.sampled_from(["\n", "\r\n", "\n\n# a comment\n"]))


def _doc(sections: list[tuple[str, list[str], str]]) -> str:
    return "".join(f"[{k}]{nl}" + nl.join(lines) + nl for k, lines, nl in sections)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_section, max_size=4))
def test_generated_documents_equal_tomllib(sections: list[tuple[str, list[str], str]]) -> None:
    text = _doc(sections)
    try:
        ref = _ref(text)
    except (tomllib.TOMLDecodeError, ValueError):
        ref = None
    secs = read_sections(text, many=True)
    if ref is not None:
        assert all(s.error is None for s in secs), [s.error for s in secs]
        assert _norm({s.key: s.fields for s in secs}) == _norm(ref)
    else:  # tomllib refuses the file: some section is refused, the others are each tomllib's
        assert any(s.error is not None for s in secs)
        for s in secs:
            if s.error is None and s.key is not None:
                assert isinstance(s.fields, dict)


@settings(max_examples=150, deadline=None)
@given(st.lists(_line, max_size=8), st.sampled_from(["\n", "\r\n"]))
def test_generated_phh_documents_equal_tomllib(lines: list[str], nl: str) -> None:
    text = nl.join(lines) + nl
    try:
        ref = _ref(text)
    except (tomllib.TOMLDecodeError, ValueError):
        (sec,) = read_sections(text, many=False)
        assert sec.error is not None and sec.fields is None
        return
    assert _norm(_ours(text, False)) == _norm(ref)


@settings(max_examples=150, deadline=None)
@given(st.lists(_section, min_size=1, max_size=3), st.data())
def test_damaged_documents_never_raise(sections: list[tuple[str, list[str], str]],
                                       data: st.DataObject) -> None:
    text = _doc(sections)
    cut = data.draw(st.integers(0, len(text)))
    junk = data.draw(st.sampled_from(["", "'", '"', "[", "]", "=", "\n[", "'''", "\x00", "#"]))
    text = text[:cut] + junk + text[cut:]
    secs = read_sections(text, many=True)  # never raises
    try:
        ref = _ref(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return
    if all(isinstance(v, dict) for v in ref.values()):
        assert all(s.error is None for s in secs)
        assert _norm({s.key: s.fields for s in secs}) == _norm(ref)
    else:  # keys outside any table (e.g. the header commented out): not hands, named
        assert any(s.error is not None and "top-level key" in s.error for s in secs)
        assert _norm({s.key: s.fields for s in secs if s.error is None}) == _norm(
            {k: v for k, v in ref.items() if isinstance(v, dict)})
    f = reads_phh(text, source="gen.phhs", many=True)  # never raises either
    assert f.sections == len(secs)


def test_fallback_gives_tomllib_values() -> None:
    text = ('[1]\na = "tab\\there"\nb = 1979-05-27\nc = 0x1F\nd = {x = 1}\n'
            "[2]\ne = 'plain'\n")
    secs = read_sections(text, many=True)
    assert [s.fallback for s in secs] == [True, False]
    assert _norm({s.key: s.fields for s in secs}) == _norm(_ref(text))


def test_memoized_lines_read_as_tomllib_wherever_they_stand() -> None:
    """A line read once is memoized (sim.histories.read.sections.LINE_MEMO): the same text again as
    a line, a duplicate key, inside a multi-line string or array, or as the last line without its
    newline still reads as tomllib does; the memo's values are not shared between hands."""
    warm = "[1]\nantes = [0, 0]\nvenue = 'X'\nplayers = ['a', 'b']\nday = 1\n"
    assert _norm(_ours(warm, True)) == _norm(_ref(warm))
    again = ("[1]\nantes = [0, 0]\nvenue = 'X'\nplayers = ['a', 'b']\n"
             "[2]\nx = \'\'\'\nantes = [0, 0]\n\'\'\'\nz = [\n1,\n]\nday = 1")
    assert _norm(_ours(again, True)) == _norm(_ref(again))
    dup = "[1]\nantes = [0, 0]\nantes = [0, 0]\n[2]\nday = 1\n"
    secs = read_sections(dup, many=True)
    assert secs[0].fields is None and secs[0].error and "bad TOML" in secs[0].error
    assert secs[1].fields == {"day": 1}
    one, two = (read_sections(warm, many=True)[0].fields for _ in range(2))
    assert one is not None and two is not None and one["players"] is not two["players"]
    one["players"].append("c")
    assert two["players"] == ["a", "b"]


def test_the_collector_is_paused_only_while_reading() -> None:
    """reads_phh and import_file pause the cyclic collector (sim.histories.read.phh.no_cyclic_gc)
    and leave it as they found it, on an error too."""
    import gc

    from sim.histories.files import import_file

    def boom(path: str) -> Any:
        assert not gc.isenabled()
        raise RuntimeError("boom")

    was = gc.isenabled()
    try:
        for enabled in (True, False):
            gc.enable() if enabled else gc.disable()
            reads_phh("[1]\nvariant = 'NT'\n[2]\nbad = [\n", many=True)
            assert gc.isenabled() is enabled
            with pytest.raises(RuntimeError):
                import_file("x.phhs", 2, read=boom)
            assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def test_subtables_and_tables_defined_elsewhere_are_tomllib_s() -> None:
    text = ("[1]\na = 1\n[1.sub]\nb = 2\n[2.x]\nc = 3\n[2]\nd = 4\n[3]\ne = [\n  [1, 2],\n"
            "  [3],\n]\n")
    assert _norm(_ours(text, True)) == _norm(_ref(text))


def test_multiline_strings_and_header_lookalikes() -> None:
    text = "[1]\nt = '''AMY'S AVE'''\nu = '''\n[2]\nx'''\n[3]\nv = 1\n"
    assert _norm(_ours(text, True)) == _norm(_ref(text))
    assert set(_ours(text, True)) == {"1", "3"}


# ------------------------------------------------------------------ exact money

HAND = ("variant = 'NT'\nantes = [0, 0, 0]\nblinds_or_straddles = [0.50, 1, 0]\nmin_bet = 1\n"
        "starting_stacks = [200.30, 81.60, {s3}]\nactions = ['d dh p1 ????', 'd dh p2 ????', "
        "'d dh p3 ????', 'p3 cbr 2.00', 'p1 f', 'p2 cc', 'd db AsKsQs', 'p2 cc', 'p3 cc', "
        "'d db 2c', 'p2 cc', 'p3 cc', 'd db 3d', 'p2 cc', 'p3 cc', 'p2 sm ????', 'p3 sm AhAd']\n"
        "winnings = [0, 0, 4.25]\nfinishing_stacks = [199.80, 79.60, 201.25]\n"
        "hand = {hand}\ntable = '''AMY'S AVE'''\nseats = [2, 4, 6]\nseat_count = 6\n"
        "time = 00:02:30\nday = 1\nmonth = 7\nyear = 2009\ntime_zone_abbreviation = 'ET'\n"
        "venue = 'PokerStars'\ncurrency = 'USD'\ncurrency_symbol = '$'\n")


def test_amounts_are_exact_and_convert_to_minor_units() -> None:
    (h,) = load_phh_text(HAND.format(s3=197, hand="'R5-1'"))
    assert h.starting_stacks == (Decimal("200.30"), Decimal("81.60"), 197)
    assert all(isinstance(v, int | Decimal) and not isinstance(v, float)
               for v in (*h.starting_stacks, *h.antes, *(h.winnings or ())))
    assert h.blinds_or_straddles == (Decimal("0.50"), 1, 0)
    assert [a.amount for a in h.actions if a.verb == "cbr"] == [2]  # '2.00' is whole
    assert isinstance(h.actions[3].amount, int)
    assert h.scale == 2
    mu = h.minor_units()
    assert mu.scale == 2 and mu.starting_stacks == (20030, 8160, 19700)
    assert mu.blinds_or_straddles == (50, 100, 0) and mu.min_bet == 100
    assert mu.finishing_stacks == (19980, 7960, 20125) and mu.winnings == (0, 0, 425)
    assert mu.bets[3] == 200 and mu.bets[0] is None
    assert h.minor_units(4).starting_stacks == (2_003_000, 816_000, 1_970_000)
    c = h.in_minor_units()
    assert c.starting_stacks == (20030, 8160, 19700) and c.actions[3].amount == 200
    assert c.winnings == (0, 0, 425) and c.blinds_or_straddles == (50, 100, 0) and c.scale == 0
    assert c.actions[3].index == 3 and c.hand == "R5-1" and c.venue == "PokerStars"
    with pytest.raises(PhhError, match=r"starting_stacks\[0\]: 200.30 is not a whole number"):
        h.minor_units(0)
    # the standard's optional fields, typed
    assert (h.hand, h.table, h.seats, h.seat_count) == ("R5-1", "AMY'S AVE", (2, 4, 6), 6)
    assert h.time == dt.time(0, 2, 30) and h.local_datetime == dt.datetime(2009, 7, 1, 0, 2, 30)
    assert (h.time_zone_abbreviation, h.venue, h.currency, h.currency_symbol) == (
        "ET", "PokerStars", "USD", "$")
    assert h.line == 1 and h.key is None
    shows = [a for a in h.actions if a.verb == "sm"]
    assert shows[0].cards == (-1, -1) and not shows[0].is_muck  # 'sm ????': unknown cards
    (h2,) = load_phh_text(HAND.format(s3=197, hand=12345))
    assert h2.hand == "12345"
    (h3,) = load_phh_text(HAND.format(s3=197, hand=1).replace("year = 2009", "year = " + "9" * 30))
    assert h3.date is None and h3.local_datetime is None  # not a date: None, no traceback


def load_phh_text(text: str) -> list[Any]:
    f = reads_phh(text, source="t.phh")
    assert not f.skipped, [s.describe() for s in f.skipped]
    return f.hands


def test_unknown_stacks_dead_blinds_and_straddles() -> None:
    (h,) = load_phh_text(HAND.format(s3="inf", hand=1))
    assert h.unknown_stacks == (2,) and h.minor_units().starting_stacks[2] is None
    assert h.unsupported_reason is None  # replayed with a stand-in (sim.histories.replay.reference)
    text = HAND.format(s3=197, hand=1).replace("[0.50, 1, 0]", "[0.50, 1, -1]")
    (h,) = load_phh_text(text)
    assert h.dead_blinds == ((2, 1),) and h.minor_units().blinds_or_straddles == (50, 100, -100)
    assert h.unsupported_reason is None  # a post: replayed (sim.histories.replay.reference)
    (h,) = load_phh_text(HAND.format(s3=197, hand=1).replace("[0.50, 1, 0]", "[0.50, 1, 2]"))
    assert h.straddles == ((2, 2),) and h.unsupported_reason is None  # p3's: played
    # a straddle no bigger than the big blind is not one the engine plays: a named skip
    (h,) = load_phh_text(HAND.format(s3=197, hand=1).replace("[0.50, 1, 0]", "[0.50, 1, 1]"))
    assert h.straddles == ((2, 1),) and "straddles" in (h.unsupported_reason or "")


def test_chip_files_keep_their_behaviour() -> None:
    # an integral decimal is an int; half chips stay exact; the replay refuses fractions
    text = HAND.format(s3=197, hand=1).replace("0.50", "1").replace("200.30", "200").replace(
        "81.60", "81")
    (h,) = load_phh_text(text)
    assert h.starting_stacks == (200, 81, 197) and h.scale == 2  # winnings 4.25
    r = replay(load_phh_text(HAND.format(s3=197, hand=1))[0])
    assert r.error is not None and "whole number of chips" in r.error


# ------------------------------------------------------------------ hostile files

GOOD = ("[{k}]\nvariant = 'NT'\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\n"
        "starting_stacks = [100, 100]\nactions = ['d dh p1 ????', 'd dh p2 ????', 'p2 f']\n"
        "hand = {k}\n")


def _file_with(tmp_path: Path, bad: str) -> Path:
    p = tmp_path / "x.phhs"
    p.write_text(GOOD.format(k=1) + bad + GOOD.format(k=3), encoding="utf-8")
    return p


@pytest.mark.parametrize(("bad", "reason"), [
    (GOOD.format(k=2).replace("[100, 100]", "[1e400, 100]"), "cannot be represented"),
    (GOOD.format(k=2).replace("[100, 100]", "[true, 100]"), "expected a number, got True"),
    (GOOD.format(k=2).replace("[100, 100]", "[nan, 100]"), "expected a number, got nan"),
    (GOOD.format(k=2).replace("[100, 100]", "[-5, 100]"), "expected a number >= 0, got -5"),
    (GOOD.format(k=2).replace("[100, 100]", "[-5.5, 5.5]"), "expected a number >= 0, got -5.5"),
    (GOOD.format(k=2).replace("[1, 2]", "[0.5, 2]").replace("[100, 100]", "[100, -0.5]"),
     "expected a number >= 0, got -0.5"),
    (GOOD.format(k=2).replace("[100, 100]", "[inf, 100]").replace("[0, 0]", "[inf, 0]"),
     "expected a finite number"),
    (GOOD.format(k=2).replace("[100, 100]", "[1.0000001, 100]"), f"at most {MAX_SCALE} decimals"),
    (GOOD.format(k=2).replace("'p2 f'", "'p2 cbr 1e400'"), "expected an amount below"),
    (GOOD.format(k=2).replace("'p2 f'", "'p2 cbr nan'"), "expected a number"),
    (GOOD.format(k=2).replace("min_bet = 2", "min_bet = [2"), "bad TOML"),
    (GOOD.format(k=2).replace("min_bet = 2\n", ""), "missing required field min_bet"),
    (GOOD.format(k=2).replace("hand = 2", "hand = 2\nhand = 2"), "bad TOML"),
    ("[2]\nhand = 2\nantes = [0, 0]\nstarting_stacks = [1\n", "bad TOML"),  # truncated
    ("[2]\nvariant = 'NT'\nhand = 2\nx = 1" + "0" * 5000 + "\n", "bad TOML"),
    ("[1]\nhand = 2\n", "duplicate section [1]"),
    (GOOD.format(k=2).replace("min_bet = 2\n", "min_bet = 2\n[2\n"), "bad TOML"),  # a cut header
    (GOOD.format(k=2).replace("min_bet = 2\n", "min_bet = 2\n[[x]\n"), "bad TOML"),
])
def test_bad_section_is_skipped_and_the_rest_is_read(tmp_path: Path, bad: str,
                                                     reason: str) -> None:
    f = read_phh(_file_with(tmp_path, bad))
    assert [h.key for h in f.hands] == ["1", "3"]
    (sk,) = f.skipped
    assert reason in sk.reason, sk.describe()
    assert sk.source.endswith("x.phhs") and sk.key in ("1", "2") and sk.line > 1
    assert sk.kind in SKIP_KINDS
    assert (sk.kind == "bad field") == ("True" in reason)
    assert sk.hand == "2", sk.describe()
    assert "x.phhs [" in sk.describe() and "(hand 2)" in sk.describe()
    with pytest.raises(PhhError, match="x.phhs"):
        load_phh(tmp_path / "x.phhs")  # the strict form names it


def test_truncated_last_section(tmp_path: Path) -> None:
    p = tmp_path / "cut.phhs"
    text = GOOD.format(k=1) + GOOD.format(k=2)
    p.write_text(text[: text.rindex("actions") + 20], encoding="utf-8")  # cut mid-array
    f = read_phh(p)
    assert [h.key for h in f.hands] == ["1"]
    (sk,) = f.skipped
    assert sk.key == "2" and "bad TOML" in sk.reason


def test_huge_line_is_skipped_without_parsing(tmp_path: Path) -> None:
    bad = "[2]\nhand = 2\nactions = ['" + "x" * 100_000_000 + "']\n"  # a 100 MB line
    f = read_phh(_file_with(tmp_path, bad))
    assert [h.key for h in f.hands] == ["1", "3"]
    (sk,) = f.skipped
    assert f"expected at most {MAX_SECTION_CHARS:,}" in sk.reason and sk.hand == "2"


def test_thirty_players_and_unknown_variant_are_named(tmp_path: Path) -> None:
    n = 30
    bad = (f"[2]\nvariant = 'NT'\nantes = {[0] * n}\nblinds_or_straddles = {[1, 2] + [0] * (n - 2)}"
           f"\nmin_bet = 2\nstarting_stacks = {[100] * n}\nactions = ['p3 f']\nhand = 2\n"
           "[4]\nvariant = 'XYZ'\nantes = [0, 0]\nstarting_stacks = [5, 5]\nactions = []\n")
    f = read_phh(_file_with(tmp_path, bad))
    assert not f.skipped
    by_key = {h.key: h for h in f.hands}
    assert by_key["2"].unsupported_reason == "unsupported: 30 players (our tables seat at most " \
        f"{__import__('sim.config').config.MAX_SEATS})"
    assert by_key["4"].unsupported_reason == "unsupported variant XYZ"
    assert replay(by_key["2"]).unsupported and replay(by_key["4"]).unsupported


@pytest.mark.parametrize(("content", "reason"), [
    (b"\x89PNG\r\n\x1a\n\x00\x00binary", "not UTF-8"),
    (b"this is not toml at all\n", "bad TOML"),
    (b"variant = 'NT'\n", "top-level key 'variant'"),
    (b"[a.b]\nx = 1\n[a.b", "bad TOML"),
])
def test_bad_file_is_one_named_skip(tmp_path: Path, content: bytes, reason: str) -> None:
    p = tmp_path / "bad.phhs"
    p.write_bytes(content)
    f = read_phh(p)
    assert not f.hands and f.skipped and reason in f.skipped[0].reason
    assert f.skipped[0].describe().startswith(str(p))
    assert f.skipped[0].kind in ("not UTF-8 text", "not TOML", "not a hand")
    assert f.sha256 is not None and len(f.sha256) == 64
    f = read_phh(tmp_path / "missing.phhs")
    assert "cannot read the file" in f.skipped[0].reason


def test_random_damage_never_raises() -> None:
    """Cut, insert and overwrite at random in a .phhs text: every outcome is hands and named
    skips, never a traceback."""
    import random

    base = "".join(GOOD.format(k=k) for k in range(1, 6)) + HAND.replace("{s3}", "inf").replace(
        "{hand}", "6").replace("variant", "[6]\nvariant", 1)
    rng = random.Random(22)
    alphabet = [*"[]'\"=#\n,.-0123456789eEinf ?pdhcbrsm\t\\:{}", "'''", "nan", "1e400", "\x00"]
    skipped = 0
    for _ in range(400):
        i = rng.randrange(len(base))
        j = i + rng.randrange(40)
        junk = "".join(rng.choice(alphabet) for _ in range(rng.randrange(6)))
        text = base[:i] + junk + base[j:] if rng.random() < 0.8 else base[:i]
        f = reads_phh(text, source="f.phhs", many=True)
        skipped += len(f.skipped)
        assert all(s.reason and s.kind in SKIP_KINDS for s in f.skipped)
    assert skipped > 100  # the damage was seen


@pytest.mark.parametrize("depth", [9, 500, 3000, 100_000])
def test_arrays_nested_too_deep_are_a_named_skip(depth: int) -> None:
    """Arrays nested deeper than MAX_DEPTH (the red team's 500 deep crashed with a
    RecursionError): that hand is skipped "nested too deep", the others are read; whichever
    reader meets it (ours, or tomllib for a section it is given), never a RecursionError."""
    from sim.histories.read.sections import MAX_DEPTH, parse_toml

    good = "variant = 'NT'\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\n" \
           "starting_stacks = [100, 100]\nactions = ['d dh p1 ????', 'd dh p2 ????', 'p2 f']\n"
    deep = "[" * depth + "]" * depth
    for extra in (f"x = {deep}\n", f"x = {deep}\ny = \"a\\tb\"\n"):  # 2nd: tomllib's
        f = reads_phh(f"[1]\n{good}\n[2]\n{good}{extra}\n[3]\n{good}", many=True)
        assert [h.key for h in f.hands] == ["1", "3"]
        (sk,) = f.skipped
        assert sk.key == "2" and sk.kind == "nested too deep", sk.reason
        assert f"at most {MAX_DEPTH}" in sk.reason
        one = reads_phh(good + extra)
        assert one.hands == [] and [s.kind for s in one.skipped] == ["nested too deep"]
        with pytest.raises(ValueError, match="nested too deep"):
            parse_toml(good + extra)
    ok = "[" * MAX_DEPTH + "]" * MAX_DEPTH  # at the limit: read (an unknown field, kept)
    assert len(reads_phh(f"[1]\n{good}x = {ok}\n", many=True).hands) == 1
