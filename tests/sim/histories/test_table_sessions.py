"""``sim.histories.sessions.rebuild`` on site hand numbers written in other scripts' digits: the
natural order reads them as numbers (as ``int`` does), and a digit-like character ``int``
refuses (a superscript) is text: never a traceback on a hostile file's hand numbers."""

from __future__ import annotations

import pyarrow as pa

from sim.histories.files import import_file_bytes
from sim.histories.sessions import rebuild
from tests.sim.histories.test_file_import import _hand


def _table(hands: list[str]) -> pa.Table:
    text = "".join(_hand(k + 1).replace(f"hand = {70_001 + k}", f"hand = '{h}'")
                   for k, h in enumerate(hands))
    # one table, one time: ordered by the site hand number alone
    text = "\n".join("time = 00:01:30" if ln.startswith("time = ") else ln
                     for ln in text.split("\n"))
    res = import_file_bytes("t.phhs", text.encode())
    assert res.table is not None and res.imported == len(hands)
    return res.table


def test_hand_numbers_in_other_digits_are_ordered_as_numbers() -> None:
    table, _info = rebuild(_table(["\u0663", "12", "2"]))  # Arabic-Indic three
    assert table.column("site_hand").to_pylist() == ["2", "\u0663", "12"]


def test_superscript_digits_are_text() -> None:
    table, info = rebuild(_table(["5\u00b2", "\u00b2", "7"]))
    assert table.num_rows == 3 and info["tables"] == 1
    assert table.column("site_hand").to_pylist() == ["5\u00b2", "7", "\u00b2"]
