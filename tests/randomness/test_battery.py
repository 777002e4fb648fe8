"""The batteries at their planned sizes: each declared defect of the emulated shuffler and of the
emulated mystery controller is caught with its planned power over 200 seeds, a short sample is
INCONCLUSIVE and never PASS (the false-alarm rates: test_false_alarms.py)."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import numpy as np
import pytest

from harness.randomness import battery
from harness.randomness.evidence import measurements
from harness.randomness.models import ShufflerModel
from harness.randomness.observations import MysteryAward, ShoeObservation
from harness.randomness.settings import RandomnessSettings
from harness.randomness.svg import histogram_svg
from harness.record.statistics import TEST_UNIT

SEEDS = 200
N = 416


@pytest.fixture(scope="module")
def settings() -> RandomnessSettings:
    return RandomnessSettings()


@pytest.mark.parametrize("defect", ["shuffler-few-riffles", "shuffler-biased-cut", "shuffler-stuck-card",
                                    "shuffler-short-period"])
@pytest.mark.parametrize("confidence", ["0.95", "0.99"])
def test_each_emulated_shuffler_defect_is_caught_at_its_planned_size(defect: str, confidence: str) -> None:
    """The emulated shuffler with the defect shuffles by the declared model at the declared size; that
    model, over 200 seeds at the battery's planned size, fails the whole battery (Holm) at least as
    often as the planned power says, and so do a few packs shuffled by the emulator's own code."""
    from test_false_alarms import shuffles

    from harness.emulators.shuffler import PackShuffler

    settings = RandomnessSettings(confidence=Decimal(confidence))
    plan = battery.plan_shuffler(settings, 8, None)
    need = plan.best[defect]
    assert need.n is not None and need.n <= plan.required and need.power is not None and need.power >= 0.99
    model = settings.shuffler.models(N)[defect]
    assert PackShuffler(N, (defect,), 1).model == model  # the emulator carries the declared size
    caught = sum(battery.run_shuffler(plan, model.shuffle(np.random.default_rng(10_000 + seed), plan.required,
                                                          N)).outcome == "FAIL" for seed in range(SEEDS))
    # planned power 99% (at the defect's own need, so at least that at the battery's size): more than
    # 6 misses in 200 has probability below 0.5%
    assert caught >= SEEDS - 6, f"{defect}: caught {caught}/{SEEDS} at {plan.required} shuffles"
    emulated = [battery.run_shuffler(plan, shuffles(seed, plan.required, (defect,))).outcome for seed in range(3)]
    assert emulated.count("FAIL") >= 2, emulated


@pytest.mark.parametrize("law", ["at-must-hit-by", "reseed-plus-one", "lower-half"])
@pytest.mark.parametrize("confidence", ["0.95", "0.99"])
def test_each_mystery_trigger_defect_is_caught_at_its_planned_size(law: str, confidence: str) -> None:
    """The mystery meter model with the emulated controller's bent trigger law, awarding as the controller
    does (seven $5 wagers a round), over 200 seeds at the battery's planned number of awards."""
    import random

    from harness.emulators.defects import BentTrigger
    from harness.progressive.mystery import MysteryConfig, MysteryMeter

    config = MysteryConfig.regulation(1)
    plan = battery.plan_mystery(RandomnessSettings(confidence=Decimal(confidence)), None, None, "uniform",
                                config.reseed, config.must_hit_by)
    assert plan.best[f"mystery-trigger-{law}"].n is not None
    caught = 0
    seeds = SEEDS if law == "lower-half" else 5  # a single amount: every seed gives the same awards
    for seed in range(seeds):
        meter = MysteryMeter(config, rng=random.Random(seed), law=BentTrigger(law))
        awards: list[MysteryAward] = []
        while len(awards) < plan.required:  # a round's seven $5 wagers as one contribution (an award
            # overshoots its trigger by at most $1.75 of the $750 range)
            awards += [MysteryAward(h.paid, config.reseed, config.must_hit_by) for h in meter.contribute(3_500)]
        assert all(config.reseed <= a.amount <= config.must_hit_by for a in awards)  # each award in range
        caught += battery.run_mystery(plan, awards[: plan.required]).outcome == "FAIL"
    assert caught >= seeds - 6 * seeds // SEEDS, f"{law}: caught {caught}/{seeds} at {plan.required} awards"


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


def test_measurements_are_exact_and_carry_the_test(settings: RandomnessSettings) -> None:
    plan = battery.plan_shuffler(settings, 1, "PA")
    verdict = battery.run_shuffler(plan, ShufflerModel().shuffle(np.random.default_rng(2), plan.required, 52))
    ms = measurements(verdict, "pa-607a2-shuffler")
    names = [m.name for m in ms]
    assert "rising-sequences p-value" in names and "card-position test" in names
    p = next(m for m in ms if m.name == "rising-sequences p-value")
    assert "H0:" in p.detail and "power" in p.detail and isinstance(p.value, str)
    test = next(m for m in ms if m.name == "rising-sequences test")
    assert test.unit == TEST_UNIT and test.value["n"] == plan.required and test.value["p_value"] == p.value
    assert test.value["power"] is not None and "shuffler-few-riffles" in test.value["planned_for"]
    hist = next(m for m in ms if m.name == "card-position test").value["histogram"]
    svg = histogram_svg(hist)
    assert svg.startswith("<svg") and svg.count("<rect") == 10 and "<script" not in svg
    assert histogram_svg(hist) == svg


def test_mystery_awards(settings: RandomnessSettings) -> None:
    plan = battery.plan_mystery(settings, "PA")
    assert set(plan.defects) == {"mystery-trigger-at-must-hit-by", "mystery-trigger-reseed-plus-one",
                                 "mystery-trigger-lower-half"}
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
    # a declared distance adds the guarantee against every law that far away (DKW: far more awards)
    wide = RandomnessSettings(mystery=dataclasses.replace(settings.mystery, distance=Decimal("0.3")))
    wide_plan = battery.plan_mystery(wide, "PA")
    assert wide_plan.best["trigger-law-distance"].n is not None
    assert wide_plan.required == wide_plan.best["trigger-law-distance"].n > plan.required


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


def test_a_certain_rejection_stops_early_and_changes_no_verdict(settings: RandomnessSettings) -> None:
    plan = battery.plan_mystery(settings, "PA")
    n = plan.required
    top = [MysteryAward(100_000, 25_000, 100_000)] * n
    k = next(k for k in range(1, n) if battery.mystery_rejection_certain(plan, top[:k]))
    assert k < n
    assert battery.mystery_rejection_certain(plan, top[: k - 1]) is None
    rng = np.random.default_rng(9)
    for _ in range(50):  # whatever the awards still to come, the planned test rejects
        rest = [MysteryAward(int(a), 25_000, 100_000) for a in rng.integers(25_000, 100_001, n - k)]
        assert battery.run_mystery(plan, top[:k] + rest).outcome == "FAIL"
    spread = [MysteryAward(25_000 + 75_000 * i // (n - k), 25_000, 100_000) for i in range(n - k)]
    assert battery.run_mystery(plan, top[:k] + spread).outcome == "FAIL"  # the kindest completion too
    verdict = battery.run_mystery(plan, top[:k], certain=battery.mystery_rejection_certain(plan, top[:k]))
    assert verdict.outcome == "FAIL" and "whatever the other" in verdict.message
    fair = [MysteryAward(int(a), 25_000, 100_000) for a in rng.integers(25_000, 100_001, n - 1)]
    assert all(battery.mystery_rejection_certain(plan, fair[:j]) is None for j in range(1, n))
