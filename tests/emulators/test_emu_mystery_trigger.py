"""In-process: the mystery trigger defects bend the emulated controller's trigger law, and only that.

Each award of a bent controller still lies within [reseed, must-hit-by]; what changes is where the
hidden trigger is drawn.  The suites prove the distribution case catches each defect at its planned
number of awards (tests/killmatrix, suites/randomness/mystery.suite.yaml); these tests pin what each
defect does to the device, next to the clean device, through a power cycle too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from emu_helpers import bench, profile

from harness.emulators import defects
from harness.progressive.mystery import UniformCents

MYSTERY = {"configuration": 1, "distribution": "uniform", "paid_by": "table"}
RESEED, MUST_HIT_BY = 25_000, 100_000


def _mystery_bench(tmp_path: Path, *bent: str) -> Any:
    data = profile(defects=list(bent))
    data["rules"]["mystery"] = MYSTERY
    return bench(mapping=data, nv_path=tmp_path / "nv.json")


def _triggers(b: Any, draws: int) -> list[int]:
    """The hidden trigger now and after ``draws - 1`` reseeds (white box: the meter's own draw)."""
    meter = b.table.controller.bank["mystery"]
    out = [meter.trigger]
    for _ in range(draws - 1):
        meter._reseed()
        out.append(meter.trigger)
    return out


@pytest.mark.parametrize("defect, low, high", [
    ("mystery-trigger-at-must-hit-by", MUST_HIT_BY, MUST_HIT_BY),
    ("mystery-trigger-reseed-plus-one", RESEED + 1, RESEED + 1),
    ("mystery-trigger-lower-half", RESEED, (RESEED + MUST_HIT_BY) // 2),
])
def test_each_trigger_defect_draws_where_it_says_and_keeps_it_through_a_power_cycle(
        tmp_path: Path, defect: str, low: int, high: int) -> None:
    with _mystery_bench(tmp_path, defect) as b:
        drawn = _triggers(b, 200)
        assert all(low <= t <= high for t in drawn)
        assert len(set(drawn)) > 1 or low == high
        b.table.set_power(False)
        b.table.set_power(True)
        assert all(low <= t <= high for t in _triggers(b, 50))  # the restored meter draws by the same law
        assert b.table.controller.bank["mystery"].law.name == f"bent:{defect.removeprefix('mystery-trigger-')}"


def test_the_clean_controller_draws_over_the_whole_range(tmp_path: Path) -> None:
    with _mystery_bench(tmp_path) as b:
        drawn = _triggers(b, 400)
        assert isinstance(b.table.controller.bank["mystery"].law, UniformCents)
        assert min(drawn) < RESEED + 7_500 and max(drawn) > MUST_HIT_BY - 7_500  # both ends of the range
        assert sum(t > (RESEED + MUST_HIT_BY) // 2 for t in drawn) > 150  # upper half too


def test_a_bent_award_stays_within_the_range() -> None:
    law = defects.trigger_law(UniformCents(), {"mystery-trigger-reseed-plus-one"})
    assert law.probability(RESEED, MUST_HIT_BY, RESEED, RESEED + 1) == 1
    assert defects.trigger_law(UniformCents(), set()).name == "uniform"
    half = defects.BentTrigger("lower-half")
    assert half.probability(RESEED, MUST_HIT_BY, RESEED, MUST_HIT_BY) == 1
    assert half.probability(RESEED, MUST_HIT_BY, (RESEED + MUST_HIT_BY) // 2 + 1, MUST_HIT_BY) == 0
