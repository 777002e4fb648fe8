"""Invariant checkers: a clean meter passes, each defect is caught; chi-square helpers."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.progressive import (
    Contribution,
    Correction,
    JackpotHit,
    Meter,
    MeterAudit,
    MeterBank,
    MeterConfig,
    MeterSpec,
    MysteryConfig,
    MysteryMeter,
    Reading,
    Reset,
    chi_square,
    chi_square_sf,
    hit_frequency_chi_square,
)
from harness.progressive.invariants import Observation, check_observations, regularized_gamma_q, trigger_bins


def make_bank(seed: int = 1) -> MeterBank:
    return MeterBank([
        Meter(MeterConfig("mega", Decimal("1"), 5_000_000, 5_000_000, 6_000_000, 99_999_999)),
        Meter(MeterConfig("major", Decimal("0.5"), 45_000, 45_000, 50_000, 9_999_999)),
        Meter(MeterConfig("minor", Decimal("0.333"), 45_000, 45_000, None, 9_999_999)),
        MysteryMeter(MysteryConfig.regulation(3), rng=seed),
    ])


def read(bank: MeterBank) -> Iterator[Observation]:
    for m in bank.meters.values():
        yield Reading(m.name, m.amount, m.residual, m.held, m.diverted)


def hit_obs(bank: MeterBank, hits: list) -> Iterator[Observation]:  # type: ignore[type-arg]
    for h in hits:
        yield JackpotHit(h.meter, h.paid, h.meter_amount, h.pending)
        if not h.pending:
            yield Reset(h.meter, bank[h.meter].config.reset)


def clean_run(actions: list[tuple[str, int]], seed: int) -> list[Observation]:
    bank = make_bank(seed)
    obs: list[Observation] = list(read(bank))
    for action, amount in actions:
        if action == "wager":
            obs.append(Contribution(amount))
            obs.extend(hit_obs(bank, bank.contribute(amount)))
        elif action in ("table", "attendant"):
            name = ["mega", "major", "minor"][amount % 3]
            if bank[name].pending is None:
                obs.extend(hit_obs(bank, [bank.hit(name, paid_by=action)]))  # type: ignore[arg-type]
        elif action == "key":
            for m in bank.meters.values():
                if m.pending is not None:
                    obs.append(Reset(m.name, m.config.reset))
                    obs.extend(hit_obs(bank, list(m.reset_key())))
        obs.extend(read(bank))
    return obs


def specs() -> list[MeterSpec]:
    return [MeterSpec.of(m) for m in make_bank().meters.values()]


actions_strategy = st.lists(
    st.tuples(st.sampled_from(["wager", "wager", "wager", "table", "attendant", "key"]),
              st.integers(min_value=0, max_value=400_000)),
    max_size=60)


@settings(deadline=None)
@given(actions=actions_strategy, seed=st.integers(min_value=0, max_value=1000))
def test_clean_model_has_no_violations(actions: list[tuple[str, int]], seed: int) -> None:
    assert check_observations(specs(), clean_run(actions, seed)) == []


def _kinds(observations: list[Observation]) -> set[str]:
    return {v.kind for v in check_observations(specs(), observations)}


BASE = [Reading("major", 45_000), Contribution(100)]


def test_dropped_fraction_of_a_cent_is_caught() -> None:
    # $1 at 0.5% is half a cent: a device that drops it reads residual 0
    assert _kinds([*BASE, Reading("major", 45_000, Decimal("0"))]) == {"conservation"}
    assert _kinds([*BASE, Reading("major", 45_000, Decimal("0.5"))]) == set()


def test_rate_slightly_off_is_caught() -> None:
    obs: list[Observation] = [Reading("major", 45_000)]
    obs += [Contribution(500)] * 100                  # 250 cents at 0.5%
    assert _kinds([*obs, Reading("major", 45_250)]) == set()
    assert _kinds([*obs, Reading("major", 45_255)]) == {"conservation"}   # 0.51%


def test_conservation_message_states_the_difference() -> None:
    (v,) = check_observations(specs(), [*BASE, Reading("major", 45_000)])
    assert "off by -0.5 cents" in v.message and v.clause.startswith("Royal 9") and v.index == 2


def test_decrease_without_hit_is_caught_and_hit_excuses_it() -> None:
    assert "decrease-without-hit" in _kinds([Reading("major", 46_000), Reading("major", 45_500)])
    assert _kinds([Reading("major", 46_000), JackpotHit("major", 46_000), Reset("major", 45_000),
                   Reading("major", 45_000)]) == set()


def test_meters_lost_on_power_cycle_are_caught() -> None:
    kinds = _kinds([Reading("mega", 5_123_456), Reading("mega", 5_000_000)])
    assert {"decrease-without-hit", "conservation"} <= kinds


def test_reset_below_floor_and_reset_to_zero_are_caught() -> None:
    kinds = _kinds([Reading("major", 46_000), JackpotHit("major", 46_000), Reset("major", 0),
                    Reading("major", 0)])
    assert kinds == {"reset-amount", "below-reset"}
    assert _kinds([Reading("major", 46_000), JackpotHit("major", 46_000), Reset("major", 40_000),
                   Reading("major", 40_000)]) == {"reset-amount", "below-reset"}


def test_wrap_past_display_capacity_is_caught() -> None:
    obs: list[Observation] = [Reading("minor", 9_999_990), Contribution(10_000_000)]
    kinds = _kinds([*obs, Reading("minor", 23_290, Decimal("0"))])
    assert {"decrease-without-hit", "conservation"} <= kinds
    assert "past-limit" in _kinds([Reading("minor", 10_000_000)])


def test_diverted_excess_balances() -> None:
    assert _kinds([Reading("major", 49_999), Contribution(1_000),
                   Reading("major", 50_000, Decimal(0), 0, 4)]) == set()


def test_mystery_past_must_hit_by_is_caught() -> None:
    assert "mystery-past-must-hit-by" in _kinds([Reading("mystery", 20_001)])
    assert "mystery-past-must-hit-by" in _kinds([JackpotHit("mystery", 20_500)])
    assert _kinds([JackpotHit("mystery", 20_000)]) == set()


def test_wrong_reseed_is_caught() -> None:
    assert _kinds([Reset("mystery", 9_000)]) == {"reset-amount"}


def test_corrections_need_a_reason() -> None:
    assert _kinds([Reading("major", 46_000), Correction("major", 46_000, 45_800, "fault ticket 7"),
                   Reading("major", 45_800)]) == set()
    assert _kinds([Reading("major", 46_000), Correction("major", 46_000, 45_800, ""),
                   Reading("major", 45_800)]) == {"undocumented-correction"}


def test_pending_hit_balances_until_reset_key() -> None:
    assert _kinds([Reading("major", 46_000), JackpotHit("major", 46_000, pending=True),
                   Contribution(2_000), Reading("major", 46_000, Decimal(0), 10),
                   Reset("major", 45_000), Reading("major", 45_010)]) == set()


def test_unknown_meter_and_residual_range() -> None:
    assert _kinds([Reading("grand", 1)]) == {"unknown-meter"}
    assert _kinds([Contribution(5, ("grand",))]) == {"unknown-meter"}
    assert "residual-range" in _kinds([Reading("major", 45_000, Decimal("1.5"))])


def test_audit_keeps_a_bounded_list_but_counts_everything() -> None:
    audit = MeterAudit(specs(), keep=3)
    for _ in range(10):
        audit.feed(Reading("major", 1))
    assert len(audit.violations) == 3 and audit.total == 10 and audit.counts == {"below-reset": 10}


def test_audit_for_bank() -> None:
    bank = make_bank()
    audit = MeterAudit.for_bank(bank)
    assert audit.feed_all(read(bank)) == []


# -- chi-square ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("x", "dof", "p"), [
    (3.841458820694124, 1, 0.05), (6.634896601021214, 1, 0.01), (18.307038053275146, 10, 0.05),
    (30.143527205646155, 19, 0.05), (124.34211340400407, 100, 0.05), (0.0, 5, 1.0),
])
def test_chi_square_sf_against_tabulated_quantiles(x: float, dof: int, p: float) -> None:
    assert chi_square_sf(x, dof) == pytest.approx(p, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("x", [0.01, 0.5, 1.0, 2.5, 7.0, 30.0, 200.0])
def test_chi_square_sf_closed_forms(x: float) -> None:
    assert chi_square_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-10, abs=1e-300)
    assert chi_square_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-10, abs=1e-300)
    # even dof 2k: Poisson tail sum(e^-x/2 (x/2)^i / i!, i < k)
    k = 5
    poisson = sum(math.exp(-x / 2) * (x / 2) ** i / math.factorial(i) for i in range(k))
    assert chi_square_sf(x, 2 * k) == pytest.approx(poisson, rel=1e-10, abs=1e-300)


def test_regularized_gamma_domain() -> None:
    assert regularized_gamma_q(3.0, 0.0) == 1.0
    with pytest.raises(ValueError):
        regularized_gamma_q(0.0, 1.0)
    with pytest.raises(ValueError):
        chi_square_sf(1.0, 0)


def test_chi_square_statistic() -> None:
    result = chi_square([10, 20, 30], [20, 20, 20])
    assert result.statistic == pytest.approx(10.0) and result.dof == 2
    assert result.p_value == pytest.approx(math.exp(-5))
    assert not result.passes(0.05) and result.passes(0.001)
    with pytest.raises(ValueError):
        chi_square([1], [1])
    with pytest.raises(ValueError):
        chi_square([1, 2], [0, 3])


def test_hit_frequency_against_exact_probabilities() -> None:
    rng = random.Random(11)
    p_royal9 = Fraction(6144, 172640)
    p_suited = Fraction(1536, 172640)
    trials = 50_000
    counts = {"royal9": 0, "suited": 0}
    for _ in range(trials):
        u = rng.random()
        if u < p_suited:
            counts["suited"] += 1
        elif u < p_suited + p_royal9:
            counts["royal9"] += 1
    fair = hit_frequency_chi_square(counts, trials, {"royal9": p_royal9, "suited": p_suited})
    assert fair.dof == 2 and fair.p_value > 0.001
    doubled = hit_frequency_chi_square(counts, trials, {"royal9": p_royal9 / 2, "suited": p_suited})
    assert doubled.p_value < 1e-9
    with pytest.raises(ValueError):
        hit_frequency_chi_square({"grand": 1}, 10, {"royal9": p_royal9})


def test_trigger_bins_cover_the_range_exactly() -> None:
    ranges = trigger_bins(25_000, 100_000, 7)
    assert ranges[0][0] == 25_000 and ranges[-1][1] == 100_000
    assert all(b[0] == a[1] + 1 for a, b in itertools.pairwise(ranges))
    with pytest.raises(ValueError):
        trigger_bins(1, 3, 4)
