"""The batteries at their planned sizes: a correct shuffler passes at the stated false-alarm rate
over 200 seeds, each declared defect is caught with its planned power, a short sample is
INCONCLUSIVE and never PASS."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest
from scipy import stats as sps

from harness.randomness import battery
from harness.randomness.evidence import measurements
from harness.randomness.models import ShufflerModel
from harness.randomness.observations import MysteryAward, ShoeObservation
from harness.randomness.settings import RandomnessSettings
from harness.randomness.svg import histogram_svg

SEEDS = 200
N = 416


def allowed_false_alarms(alpha: float, seeds: int = SEEDS) -> int:
    """The count a battery at level alpha exceeds with probability below 0.1%."""
    return int(sps.binom.isf(0.001, seeds, alpha))


@pytest.fixture(scope="module")
def settings() -> RandomnessSettings:
    return RandomnessSettings()


@pytest.mark.parametrize("jurisdiction", ["PA", "MD"])
def test_correct_shuffler_false_alarm_rate_over_200_seeds(settings: RandomnessSettings, jurisdiction: str) -> None:
    plan = battery.plan_shuffler(settings, 8, jurisdiction)
    assert plan.confidence == (Decimal("0.95") if jurisdiction == "MD" else Decimal("0.99"))
    alarms = 0
    for seed in range(SEEDS):
        pos = ShufflerModel().shuffle(np.random.default_rng(seed), plan.required, N)
        verdict = battery.run_shuffler(plan, pos)
        assert verdict.outcome in ("PASS", "FAIL")
        alarms += verdict.outcome == "FAIL"
    assert alarms <= allowed_false_alarms(plan.alpha), f"{alarms} false alarms in {SEEDS} at alpha {plan.alpha}"


@pytest.mark.parametrize("defect", ["shuffler-few-riffles", "shuffler-biased-cut", "shuffler-stuck-card",
                                    "shuffler-short-period"])
def test_each_declared_defect_is_caught_at_its_planned_size(settings: RandomnessSettings, defect: str) -> None:
    plan = battery.plan_shuffler(settings, 8, "PA")
    model = settings.shuffler.models(N)[defect]
    need = plan.best[defect]
    assert need.n is not None and need.power is not None and need.power >= 0.99
    caught = 0
    for seed in range(SEEDS):
        pos = model.shuffle(np.random.default_rng(10_000 + seed), need.n, N)
        caught += battery.run_shuffler(plan, pos).outcome == "FAIL"
    # planned power 99%: more than 6 misses in 200 has probability below 0.5%
    assert caught >= SEEDS - 6, f"{defect}: caught {caught}/{SEEDS} at {need.n} shuffles"


def test_short_sample_is_inconclusive_with_the_number_still_needed(settings: RandomnessSettings) -> None:
    plan = battery.plan_shuffler(settings, 8, "PA")
    pos = ShufflerModel().shuffle(np.random.default_rng(1), 20, N)
    verdict = battery.run_shuffler(plan, pos)
    assert verdict.outcome == "INCONCLUSIVE"
    assert verdict.still_needed == plan.required - 20
    assert f"{plan.required - 20} more needed" in verdict.message
    # a gross defect is a FAIL even on a short sample
    few = ShufflerModel("riffles", riffles=4).shuffle(np.random.default_rng(1), 20, N)
    assert battery.run_shuffler(plan, few).outcome == "FAIL"


def test_measurements_are_exact_and_carry_a_histogram(settings: RandomnessSettings) -> None:
    plan = battery.plan_shuffler(settings, 1, "PA")
    verdict = battery.run_shuffler(plan, ShufflerModel().shuffle(np.random.default_rng(2), plan.required, 52))
    ms = measurements(verdict, "pa-607a2-shuffler")
    names = [m.name for m in ms]
    assert "rising-sequences p-value" in names and "card-position histogram" in names
    p = next(m for m in ms if m.name == "rising-sequences p-value")
    assert "H0:" in p.detail and "power" in p.detail and isinstance(p.value, str)
    hist = next(m for m in ms if m.name == "card-position histogram")
    svg = histogram_svg(hist.value)
    assert svg.startswith("<svg") and svg.count("<rect") == 10 and "<script" not in svg
    assert histogram_svg(hist.value) == svg


def test_mystery_awards(settings: RandomnessSettings) -> None:
    plan = battery.plan_mystery(settings, "PA")
    rng = np.random.default_rng(3)
    fair = [MysteryAward(int(a), 25_000, 100_000) for a in rng.integers(25_000, 100_001, plan.required)]
    assert battery.run_mystery(plan, fair).outcome == "PASS"
    low = [MysteryAward(int(a), 25_000, 100_000) for a in rng.integers(25_000, 62_501, plan.required)]
    assert battery.run_mystery(plan, low).outcome == "FAIL"
    top = [MysteryAward(100_000, 25_000, 100_000)] * plan.required
    assert battery.run_mystery(plan, top).outcome == "FAIL"
    short = battery.run_mystery(plan, fair[:5])
    assert short.outcome == "INCONCLUSIVE" and short.still_needed == plan.required - 5
    over = battery.run_mystery(plan, [*fair[:5], MysteryAward(100_001, 25_000, 100_000)])
    assert over.outcome == "FAIL" and "above must-hit-by" in over.message


def test_shoe_battery(settings: RandomnessSettings) -> None:
    plan = battery.plan_shoe(settings, N, "WV")
    rng = np.random.default_rng(4)
    from harness.cards import shoe_composition

    cards = [c.code for c, k in shoe_composition(8).items() for _ in range(k)]
    shoes = [ShoeObservation(tuple(rng.permutation(cards))) for _ in range(plan.required)]
    assert battery.run_shoe(plan, shoes).outcome == "PASS"
    assert battery.run_shoe(plan, shoes[:3]).outcome == "INCONCLUSIVE"
    ordered = [ShoeObservation(tuple(sorted(cards))) for _ in range(3)]
    assert battery.run_shoe(plan, ordered).outcome == "FAIL"
