"""Mystery progressive (Royal 9 (h)): hidden trigger, award, reseed, persistence."""

from __future__ import annotations

import json
import random
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.errors import InputError
from harness.progressive import (
    Meter,
    MeterBank,
    MeterConfig,
    MeterError,
    MysteryConfig,
    MysteryMeter,
    ProgressiveOptions,
    UniformCents,
    trigger_chi_square,
)


class FixedRng(random.Random):
    """Draws the given triggers in order (then the last one forever)."""

    def __init__(self, values: list[int]) -> None:
        super().__init__(0)
        self.values = list(values)

    def randint(self, a: int, b: int) -> int:
        value = self.values.pop(0) if len(self.values) > 1 else self.values[0]
        assert a <= value <= b
        return value


def identity_holds(m: Meter) -> bool:
    return m.contributed == m.growth + m.held + m.diverted + Fraction(m.residual)


def test_regulation_configurations() -> None:
    c = MysteryConfig.regulation(2)
    assert (c.reseed, c.must_hit_by, c.rate, c.configuration) == (10_000, 50_000, Decimal(5), 2)
    MysteryConfig.regulation(3).check()


@pytest.mark.parametrize(("config", "message"), [
    (MysteryConfig(20_000, 100_000, Decimal(5), 1),
     r"mystery configuration 1 reseed is \$200.00, the regulation says \$250.00 \(pa-midi-r9-mystery\)"),
    (MysteryConfig(25_000, 90_000, Decimal(5), 1), "must-hit-by is"),
    (MysteryConfig(10_000, 20_000, Decimal(5), 3), "rate is 5%, the regulation says 2%"),
    (MysteryConfig(20_000, 20_000, Decimal(2)), "below must-hit-by"),
    (MysteryConfig(10_000, 20_000, Decimal(2), distribution="normal"), "known distributions"),
    (MysteryConfig(10_000, 20_000, Decimal(2), configuration=4), "configurations 1, 2 and 3"),
])
def test_configuration_refused(config: MysteryConfig, message: str) -> None:
    with pytest.raises(InputError, match=message):
        config.check()
    with pytest.raises(InputError):
        MysteryMeter(config, rng=1)


def test_must_hit_by_within_display() -> None:
    with pytest.raises(InputError, match=r"461a\.12\(j\)"):
        MysteryMeter(MysteryConfig.regulation(1), rng=1, display_capacity=99_999)


def test_trigger_drawn_with_injected_rng_is_deterministic() -> None:
    a = MysteryMeter(MysteryConfig.regulation(1), rng=42)
    b = MysteryMeter(MysteryConfig.regulation(1), rng=random.Random(42))
    assert a.trigger == b.trigger == random.Random(42).randint(25_000, 100_000)


def test_trigger_amount_award_carries_excess_onto_reseed() -> None:
    m = MysteryMeter(MysteryConfig.regulation(3), options=ProgressiveOptions(mystery_award_amount="trigger-amount"),
                     rng=FixedRng([10_010, 15_000]))  # 2%
    assert m.contribute(400) == ()            # 8 cents: 10_008
    (hit,) = m.contribute(400)                # 10_016 crosses 10_010
    assert (hit.paid, hit.meter_amount, hit.carried, hit.pending) == (10_010, 10_010, 6, False)
    assert m.amount == 10_006 and m.trigger == 15_000
    assert identity_holds(m)


def test_default_award_is_the_meter_at_trigger() -> None:
    m = MysteryMeter(MysteryConfig.regulation(3), options=ProgressiveOptions(mystery_award_amount="meter-at-trigger"),
                     rng=FixedRng([10_010, 15_000]))
    m.contribute(400)
    (hit,) = m.contribute(400)
    assert (hit.paid, hit.carried) == (10_016, 0) and m.amount == 10_000


def test_reached_award_is_capped_at_must_hit_by() -> None:
    m = MysteryMeter(MysteryConfig.regulation(3), options=ProgressiveOptions(mystery_award_amount="meter-at-trigger"),
                     rng=FixedRng([20_000, 15_000]))
    (hit,) = m.contribute(600_000)            # 12_000 cents: 22_000 reached
    assert hit.paid == 20_000 and hit.carried == 2_000 and m.amount == 12_000


def test_trigger_at_reseed_hits_on_first_whole_cent() -> None:
    m = MysteryMeter(MysteryConfig.regulation(3), options=ProgressiveOptions(mystery_award_amount="trigger-amount"),
                     rng=FixedRng([10_000, 15_000]))
    assert m.contribute(25) == ()             # half a cent: not reached yet
    (hit,) = m.contribute(25)
    assert hit.paid == 10_000 and m.amount == 10_001


def test_one_huge_contribution_can_win_several_awards_never_past_must_hit_by() -> None:
    m = MysteryMeter(MysteryConfig.regulation(3), options=ProgressiveOptions(mystery_award_amount="trigger-amount"),
                     rng=FixedRng([12_000, 11_000, 19_000]))
    hits = m.contribute(1_000_000)            # 20_000 cents
    assert [h.paid for h in hits] == [12_000, 11_000, 19_000]
    assert [h.carried for h in hits] == [18_000, 17_000, 8_000]
    assert m.amount == 18_000 < m.trigger == 19_000
    assert identity_holds(m)


def test_attendant_paid_mystery_pends_and_redraws_at_reset_key() -> None:
    config = MysteryConfig(10_000, 20_000, Decimal(2), 3, paid_by="attendant")
    m = MysteryMeter(config, options=ProgressiveOptions(mystery_award_amount="trigger-amount"),
                     rng=FixedRng([10_010, 10_005, 18_000]))
    m.contribute(400)
    (hit,) = m.contribute(400)
    assert hit.pending and m.amount == 10_010 and m.held == 6 and m.trigger == 10_010
    assert m.contribute(400) == ()            # held while pending
    assert m.held == 14 and m.amount == 10_010
    (again,) = m.reset_key()                  # 10_014 >= new trigger 10_005: the held cents win it
    assert again.paid == 10_005 and again.pending
    assert identity_holds(m)


def test_mystery_is_not_won_by_a_hand() -> None:
    with pytest.raises(MeterError):
        MysteryMeter(MysteryConfig.regulation(1), rng=1).hit()


@settings(deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32), number=st.sampled_from([1, 2, 3]),
       wagers=st.lists(st.integers(min_value=0, max_value=300_000), max_size=120),
       reached=st.booleans(), attendant=st.booleans())
def test_trigger_within_range_and_never_past_must_hit_by(seed: int, number: int, wagers: list[int],
                                                         reached: bool, attendant: bool) -> None:
    base = MysteryConfig.regulation(number)
    config = MysteryConfig(base.reseed, base.must_hit_by, base.rate, number,
                           paid_by="attendant" if attendant else "table")
    opts = ProgressiveOptions(mystery_award_amount="meter-at-trigger" if reached else "trigger-amount")
    m = MysteryMeter(config, options=opts, rng=seed)
    for w in wagers:
        trigger = m.trigger
        hits = m.contribute(w)
        for hit in hits:
            assert config.reseed <= hit.paid <= config.must_hit_by
        if hits and not reached:
            assert hits[0].paid == trigger    # the hidden trigger drawn before this wager
        if m.pending is not None:
            m.reset_key()
        assert config.reseed <= m.trigger <= config.must_hit_by
        assert config.reseed <= m.amount <= config.must_hit_by
        assert m.pending is not None or m.amount < m.trigger
        assert identity_holds(m)


@settings(deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32),
       wagers=st.lists(st.integers(min_value=0, max_value=200_000), max_size=50))
def test_power_cycle_keeps_trigger_and_continues_identically(seed: int, wagers: list[int]) -> None:
    bank = MeterBank([Meter(MeterConfig("mega", Decimal(1), 5_000_000, 5_000_000)),
                      MysteryMeter(MysteryConfig.regulation(2), rng=seed)])
    for w in wagers:
        bank.contribute(w)
    state = json.loads(json.dumps(bank.to_state()))
    rng_state = bank["mystery"].rng.getstate()       # type: ignore[attr-defined]
    rng = random.Random()
    rng.setstate(rng_state)
    again = MeterBank.from_state(state, rng=rng)
    assert again.to_state() == bank.to_state()
    assert again["mystery"].trigger == bank["mystery"].trigger  # type: ignore[attr-defined]
    for w in (100_000, 250_000, 3_000_000):
        assert again.contribute(w) == bank.contribute(w)
    assert again.to_state() == bank.to_state()


def test_restored_trigger_outside_range_refused() -> None:
    state = MysteryMeter(MysteryConfig.regulation(1), rng=1).to_state()
    with pytest.raises(InputError, match="outside"):
        MysteryMeter.from_state(dict(state, trigger=100_001))


def test_uniform_law_probabilities() -> None:
    law = UniformCents()
    assert law.probability(100, 199, 100, 149) == Fraction(1, 2)
    assert law.probability(100, 199, 0, 99) == 0
    assert sum(law.probability(100, 199, v, v) for v in range(100, 200)) == 1


def test_triggers_are_uniform_over_many_reseeds() -> None:
    m = MysteryMeter(MysteryConfig.regulation(1), rng=2024,
                     options=ProgressiveOptions(mystery_award_amount="trigger-amount"))
    awards = []
    while len(awards) < 4_000:
        awards.extend(h.paid for h in m.contribute(2_000_000))   # $20,000 at 5%: several awards each
    result = trigger_chi_square(awards, 25_000, 100_000, bins=20)
    assert result.dof == 19
    assert result.p_value > 0.001


def test_skewed_triggers_fail_the_chi_square() -> None:
    rng = random.Random(5)
    skewed = [min(rng.randint(25_000, 100_000), rng.randint(25_000, 100_000)) for _ in range(4_000)]
    assert trigger_chi_square(skewed, 25_000, 100_000, bins=20).p_value < 1e-6
