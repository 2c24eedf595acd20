"""The compiled core's arrays: every layout's blocks are disjoint and inside its size, and each
offset constant is the one its declaration computed (sim.layout, sim.session)."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from sim import chacha, rng
from sim import layout as L
from sim import session as ss
from sim.cards import BOARD_CARDS, HOLE_CARDS, N_CARDS
from sim.chacha import CHACHA_SIZE
from sim.layout import Blocks
from sim.schema import SEAT_MASK_BITS


def layout_errors(blocks: Blocks, module: ModuleType | None) -> list[str]:
    """What is wrong with a layout: overlapping or out-of-range pieces, and (given the module
    that declares it) piece names whose module constant is not the piece's offset."""
    errors = []
    used: dict[int, str] = {}
    for name, offset, size in blocks.pieces:
        if size < 1 or offset < 0 or offset + size > blocks.size:
            errors.append(f"{blocks.name}.{name}: [{offset}, {offset + size}) outside "
                          f"[0, {blocks.size})")
        for k in range(offset, offset + size):
            if k in used:
                errors.append(f"{blocks.name}.{name} overlaps {used[k]} at {k}")
                break
            used[k] = name
        if module is not None and getattr(module, name, None) != offset:
            errors.append(f"{blocks.name}.{name}: constant {getattr(module, name, None)} is not "
                          f"its offset {offset}")
    return errors


MODULES = (L, ss, rng, chacha)  # every module that declares a layout


def _layout(module: ModuleType, name: str) -> Blocks:
    return next(b for b in module.LAYOUTS if b.name == name)


@pytest.mark.parametrize("blocks", [b for m in MODULES for b in m.LAYOUTS], ids=lambda b: b.name)
def test_blocks_disjoint_and_inside_size(blocks: Blocks) -> None:
    module = next(m for m in MODULES if blocks in m.LAYOUTS)
    # the counters' pieces are named as in the manifest, not after their C_* constants
    assert layout_errors(blocks, None if blocks.name == "counts" else module) == []
    assert sum(size for _, _, size in blocks.pieces) == blocks.size


def test_the_check_catches_overlaps_and_wrong_constants() -> None:
    bad = Blocks("bad")
    bad.take("A_", 4)
    bad.take("B")
    bad.pieces.append(("C", 2, 2))  # a hand-typed offset inside A_
    bad.pieces.append(("D", 4, 3))  # past the end
    module = ModuleType("m")
    module.A_, module.B, module.C, module.D = 0, 5, 2, 4  # type: ignore[attr-defined]
    errors = layout_errors(bad, module)
    assert any("C overlaps A_" in e for e in errors)
    assert any("D: [4, 7) outside" in e for e in errors)
    assert any("B: constant 5 is not its offset 4" in e for e in errors)
    with pytest.raises(ValueError, match="declared twice"):
        bad.take("A_")
    with pytest.raises(ValueError, match="size 0"):
        bad.take("E", 0)


def test_sizes_are_the_declarations() -> None:
    assert L.STATE_SIZE == L.LAYOUTS[0].size
    assert L.LG_SIZE == L.LAYOUTS[1].size
    assert L.LOG_COLS == L.LAYOUTS[2].size
    assert (ss.P_SIZE, ss.T_SIZE, ss.H_SIZE, ss.SE_SIZE, ss.N_COUNTS, ss.W_ROWS) == \
        tuple(_layout(ss, name).size for name in ("params", "table", "hand", "seat", "counts",
                                                  "workspace"))
    # the config block is the state's first pieces, the injected fault code right after it
    assert [p[0] for p in L.LAYOUTS[0].pieces[:L.CONFIG_SIZE]][-1] == "AUTO_SHOWDOWN"
    assert L.CONFIG_BLOCK == L.CONFIG_SIZE + 1


def test_count_names_are_the_counter_pieces() -> None:
    names = [name for name, _, _ in _layout(ss, "counts").pieces]
    assert list(ss.COUNT_NAMES) == names and len(set(names)) == len(names) == ss.N_COUNTS


def test_workspace_rows_hold_what_play_tables_puts_in_them() -> None:
    W, log, rs = ss.new_workspace()
    assert W.shape == (ss.W_ROWS, ss.W_WIDTH)
    # every row says how many columns it uses, and they fit
    assert sorted(ss.W_USED) == list(range(ss.W_ROWS))
    assert max(ss.W_USED.values()) <= W.shape[1]
    used = {ss.W_STATE: L.STATE_SIZE, ss.W_LEGAL: L.LG_SIZE, ss.W_CONFIG: L.CONFIG_BLOCK,
            ss.W_CHACHA: CHACHA_SIZE, ss.W_DECKS: 2 * N_CARDS}
    assert all(ss.W_USED[row] >= size for row, size in used.items())
    assert all(ss.W_USED[row] >= L.MAX_SEATS
               for row in (ss.W_STACKS, ss.W_ANTES, ss.W_REBUYS, ss.W_TIMED_OUT))
    # the deck row holds the deck and its fair twin side by side
    decks = _layout(ss, "workspace decks")
    assert decks.size <= ss.W_USED[ss.W_DECKS]
    assert [(name, size) for name, _, size in decks.pieces] == \
        [("WD_DECK_", N_CARDS), ("WD_FAIR_", N_CARDS)]
    assert log.shape == (L.DEFAULT_LOG_ROWS, L.LOG_COLS)
    assert rs.dtype == np.uint64


def test_card_blocks_are_the_card_counts() -> None:
    sizes = {name: size for name, _, size in L.LAYOUTS[0].pieces}
    assert sizes["DECK_"] == N_CARDS and sizes["BOARD_"] == BOARD_CARDS
    assert sizes["HOLE_"] == HOLE_CARDS * L.MAX_SEATS


def test_seat_masks_name_every_seat() -> None:
    assert SEAT_MASK_BITS >= L.MAX_SEATS and L.MAX_POTS == L.MAX_SEATS + 1
