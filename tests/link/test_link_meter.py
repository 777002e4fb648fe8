"""``Meter.contribute_at``: a common meter fed by linked tables at the rates they file, exact to the
fraction of a cent, the finer unit kept across a power cycle (the meter's state)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from harness.progressive.meter import Meter, MeterConfig


def test_rates_of_other_resolutions_are_exact() -> None:
    meter = Meter(MeterConfig("mega", Decimal("1.25"), 5_000_000, 5_000_000))
    meter.contribute_at(500, Decimal("1.25"))   # 6.25 c
    meter.contribute_at(500, Decimal("0.375"))  # 1.875 c: a finer unit
    meter.contribute_at(100, Decimal("2"))      # 2 c
    assert meter.amount == 5_000_010 and meter.residual == Decimal("0.125")
    assert meter.contributed == Fraction(10125, 1000)
    assert meter.contributed == meter.growth + meter.held + meter.diverted + Fraction(str(meter.residual))


def test_the_finer_unit_survives_the_state() -> None:
    meter = Meter(MeterConfig("mega", Decimal("1"), 5_000_000, 5_000_000))
    meter.contribute_at(7, Decimal("0.125"))    # 0.00875 c
    back = Meter.from_state(meter.to_state())
    assert back.residual == meter.residual == Decimal("0.00875")
    back.contribute_at(1, Decimal("1"))
    assert back.residual == Decimal("0.01875")
