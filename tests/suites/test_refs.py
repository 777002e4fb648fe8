"""References to amounts resolved when a step runs (harness/suites/load/refs.py), and the meter growth
expected against them (expect_meters `grown`)."""

import dataclasses
from decimal import Decimal
from pathlib import Path

import pytest

from harness.devices.roles import MeterReading
from harness.profiles import load_profile
from harness.suites.load import refs

ROOT = Path(__file__).resolve().parents[2]


class _Runner:
    def __init__(self, mega: int, initial: int, reset: int) -> None:
        profile = load_profile(ROOT / "device_profiles" / "emulated-midi-5.yaml")
        rules = profile.rules
        meters = dict(rules.meters)
        meters["mega"] = dataclasses.replace(meters["mega"], initial=initial, reset=reset)
        self.profile = dataclasses.replace(profile, rules=dataclasses.replace(rules, meters=meters))
        self.reading = MeterReading(meters={"mega": mega}, residual={"mega": Decimal(0)}, cumulative_paid=0,
                                    paid_by_table=0, paid_by_attendant=0)

    def read_meters(self) -> MeterReading:
        return self.reading


@pytest.mark.parametrize(("mega", "initial", "reset", "current"), [
    (1_000_064, 1_002_550, 1_000_050, 1_002_550),  # after a reset below the initial amount: the initial
    (5_000_010, 5_000_000, 5_000_000, 5_000_010),  # after play: the meter
    (4_000_000, 5_000_000, 5_500_000, 5_500_000),  # a reset above the initial amount
])
def test_current_is_the_greatest_of_the_meter_and_its_initial_and_reset(mega: int, initial: int, reset: int,
                                                                        current: int) -> None:
    runner = _Runner(mega, initial, reset)
    ref = refs.parse_ref("current + $0.01")
    assert ref is not None
    assert refs.amount(runner, "mega", ref, "payout_limit") == current + 1  # type: ignore[arg-type]
    assert refs.amount(runner, "mega", refs.parse_ref("meter"), "payout_limit") == mega  # type: ignore[arg-type]


def test_current_is_not_a_mystery_amount() -> None:
    profile = load_profile(ROOT / "device_profiles" / "emulated-midi-5-mystery.yaml")
    assert profile.rules.mystery is not None
    ref = refs.parse_ref("current")
    assert ref is not None
    assert refs.missing(profile, "mystery", ref) == \
        "a mystery meter has no payout limit of its own (its must-hit-by bounds it)"
    assert refs.missing(profile, "mega", ref) is None


def test_meter_growth_stops_at_the_meter_s_limit() -> None:
    """expect_meters grown: a meter at its payout limit grows no further (the excess is diverted,
    461a.12(j), (k)(1)); variant 21 of seed 2026, a 5% major meter with a $950.01 limit, reached it
    after a run's play and its growth of 0 was FAILed against the 200 cents its wagers contribute."""
    from types import SimpleNamespace

    from harness.suites.steps.expect import _grown

    profile = load_profile(ROOT / "device_profiles" / "emulated-midi-5.yaml")
    limit = profile.rules.meters["major"].payout_limit
    assert limit is not None

    def reading(major: int) -> MeterReading:
        return MeterReading(meters={"major": major}, residual={"major": Decimal(0)}, cumulative_paid=0,
                            paid_by_table=0, paid_by_attendant=0)

    measured: list[tuple[object, object, bool]] = []
    runner = SimpleNamespace(profile=profile, rates_written={}, stakes_since=lambda name: 40_000,
                             hit_since=lambda name: set(),
                             measure=lambda step, name, got, want, ok, **kw: measured.append((got, want, ok)))
    _grown(runner, None, "start", reading(limit), reading(limit), ("major",))  # type: ignore[arg-type]
    _grown(runner, None, "start", reading(limit - 50), reading(limit), ("major",))  # type: ignore[arg-type]
    _grown(runner, None, "start", reading(limit - 50), reading(limit - 40), ("major",))  # type: ignore[arg-type]
    assert measured == [(0, 0, True), (50, 50, True), (10, 50, False)]
