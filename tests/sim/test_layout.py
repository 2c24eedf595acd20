"""The compiled core's arrays: every layout's blocks are disjoint and inside its size, and each
offset constant is the one its declaration computed (sim.layout, sim.session)."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from sim import chacha, rng
from sim import layout as L
from sim import session as ss
from sim.chacha import CHACHA_SIZE
from sim.layout import Blocks


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
    assert (ss.P_SIZE, ss.T_SIZE, ss.H_SIZE, ss.SE_SIZE, ss.N_COUNTS) == \
        tuple(b.size for b in ss.LAYOUTS)
    # the config block is the state's first pieces, the injected fault code right after it
    assert [p[0] for p in L.LAYOUTS[0].pieces[:L.CONFIG_SIZE]][-1] == "AUTO_SHOWDOWN"
    assert L.CONFIG_BLOCK == L.CONFIG_SIZE + 1


def test_count_names_are_the_counter_pieces() -> None:
    names = [name for name, _, _ in ss.LAYOUTS[-1].pieces]
    assert list(ss.COUNT_NAMES) == names and len(set(names)) == len(names) == ss.N_COUNTS


def test_workspace_rows_hold_what_play_tables_puts_in_them() -> None:
    W, log, rs = ss.new_workspace()
    assert W.shape[1] >= max(L.STATE_SIZE, 2 * 52, L.CONFIG_BLOCK, CHACHA_SIZE)
    assert log.shape == (L.DEFAULT_LOG_ROWS, L.LOG_COLS)
    assert rs.dtype == np.uint64
