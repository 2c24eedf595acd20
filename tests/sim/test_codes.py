"""The ints the compiled code uses are the enums' values (sim.codes), fault sets are named
predicates over the fault table (sim.faults), and every stream purpose is sim.rng's."""

from __future__ import annotations

import re
from enum import IntEnum
from pathlib import Path

import pytest

from sim import codes, faults, rng
from sim.config import AnteMode, Structure
from sim.layout import (
    LOGGED_EVENTS,
    PLAYER_EVENTS,
    ActionKind,
    Err,
    EventKind,
    SeatStatus,
    Street,
)
from sim.runspec import FAULTS

# codes' prefix of each enum, and the names that are not the member's own
PREFIX: dict[type[IntEnum], str] = {SeatStatus: "S_", Street: "", Structure: "", AnteMode: "ANTE_",
                                    ActionKind: "A_", EventKind: "E_", Err: ""}
ALIASES = {(EventKind, "SMALL_BLIND"): "E_SB", (EventKind, "BIG_BLIND"): "E_BB",
           (EventKind, "RETURN_UNCALLED"): "E_RETURN"}


@pytest.mark.parametrize("enum", list(PREFIX), ids=lambda e: e.__name__)
def test_every_member_has_its_plain_int(enum: type[IntEnum]) -> None:
    for member in enum:
        name = ALIASES.get((enum, member.name), PREFIX[enum] + member.name)
        value = getattr(codes, name)
        assert type(value) is int and value == member.value, name


@pytest.mark.parametrize("kind", list(EventKind), ids=lambda k: k.name)
def test_event_predicates_are_the_named_sets(kind: EventKind) -> None:
    k = int(kind)
    assert codes.is_player_event(k) == (kind in PLAYER_EVENTS)
    assert codes.is_logged_event(k) == (kind in LOGGED_EVENTS)
    assert codes.is_voluntary_put(k) == (kind in (EventKind.CALL, EventKind.BET,
                                                  EventKind.RAISE))


def test_every_fault_is_acted_on_by_exactly_one_part() -> None:
    parts = [faults.SHUFFLE_FAULT_CODES, faults.ROTATION_FAULT_CODES, faults.ENGINE_FAULT_CODES,
             (faults.F_WRONG_STREAM,)]
    codes_seen = [c for part in parts for c in part]
    assert sorted(codes_seen) == list(range(1, len(FAULTS) + 1))
    for name in FAULTS:
        code = faults.fault_code(name)
        assert faults.fault_name(code) == name
        assert faults.is_shuffle_fault(code) == (code in faults.SHUFFLE_FAULT_CODES)
        assert faults.is_rotation_fault(code) == (code in faults.ROTATION_FAULT_CODES)
        assert faults.is_engine_fault(code) == (code in faults.ENGINE_FAULT_CODES)
    assert faults.fault_name(faults.NONE) is None
    assert not (faults.is_shuffle_fault(faults.NONE) or faults.is_rotation_fault(faults.NONE)
                or faults.is_engine_fault(faults.NONE))
    named = {v for k, v in vars(faults).items() if k.startswith("F_")}
    assert named == set(range(1, len(FAULTS) + 1))


def test_stream_purposes_are_distinct_and_only_named_in_sim_rng() -> None:
    purposes = [rng.DECK_PURPOSE, rng.POLICY_PURPOSE, rng.TABLE_PURPOSE]
    assert len(set(purposes)) == len(purposes)
    literal = re.compile(r"stream_init\([^()]*,\s*\d+\s*\)")
    sim = Path(rng.__file__).parent
    offenders = [f"{p.name}: {m.group(0)}" for p in sorted(sim.glob("*.py"))
                 for m in literal.finditer(p.read_text())]
    assert offenders == []
