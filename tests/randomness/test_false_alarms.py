"""The whole battery's false-alarm rate, over 200 seeds, within the stated level.

Each battery is run as a case runs it (every test together, Holm's step-down over them) on a correct
device's observations, seed after seed: the emulated shoe's shuffler (:class:`PackShuffler`, the
code behind ``test.shuffle``) for the shuffler and shoe batteries, the mystery meter model the
emulated controller awards by for the mystery battery.  The battery's family p-value
(:func:`battery.family_p`: it FAILs at level alpha exactly when this is at most alpha) is collected
per seed, so one run checks the family-wise rate at several levels: at each, the number of seeds
failing must not exceed what a rate of alpha exceeds with probability 0.1% (binomial), and at the
plan's own level the count must be the number of FAIL verdicts.
"""

from __future__ import annotations

import random
from decimal import Decimal

import numpy as np
import pytest
from scipy import stats as sps

from harness.emulators.shuffler import PackShuffler
from harness.progressive.mystery import MysteryConfig, MysteryMeter
from harness.randomness import battery
from harness.randomness.observations import MysteryAward
from harness.randomness.settings import RandomnessSettings

SEEDS = 200
DECKS = 8
N = 52 * DECKS
LEVELS = (0.01, 0.05, 0.10, 0.20)


def allowed(alpha: float, seeds: int = SEEDS) -> int:
    """False alarms a battery at level ``alpha`` exceeds with probability below 0.1%."""
    return int(sps.binom.isf(0.001, seeds, alpha))


def shuffles(seed: int, count: int, defects: tuple[str, ...] = ()) -> np.ndarray:
    """``count`` shuffles by the emulated shuffler, as final positions (shape ``(count, N)``)."""
    pack = PackShuffler(N, defects, seed)
    out = np.empty((count, N), dtype=np.int64)
    pre = pack.order.copy()
    for i in range(count):
        post = pack.shuffle().copy()
        out[i] = np.argsort(post)[pre]  # where each card of the order before went
        pre = post
    return out


def check(family: list[float], verdicts: list[str], plan: battery.Plan) -> dict[float, int]:
    counts = {a: sum(p <= a for p in family) for a in LEVELS}
    for a, c in counts.items():
        assert c <= allowed(a), f"{plan.kind}: {c}/{SEEDS} seeds reject at family level {a}"
    assert sum(v == "FAIL" for v in verdicts) == sum(p <= plan.alpha for p in family)
    assert "INCONCLUSIVE" not in verdicts  # the planned size: every seed gives a verdict
    print(f"{plan.kind}: false alarms over {SEEDS} seeds "
          + ", ".join(f"{c} at {a:g}" for a, c in counts.items()))
    return counts


@pytest.fixture(scope="module")
def plans() -> dict[str, battery.Plan]:
    pa = RandomnessSettings()
    md = RandomnessSettings(confidence=Decimal("0.95"))
    return {"99%": battery.plan_shuffler(pa, DECKS, "PA"), "95%": battery.plan_shuffler(md, DECKS, None)}


def test_correct_emulated_shuffler_family_wise_rate_over_200_seeds(plans: dict[str, battery.Plan]) -> None:
    most = max(p.required for p in plans.values())
    data = [shuffles(seed, most) for seed in range(SEEDS)]
    for plan in plans.values():
        assert len(plan.tests) == 5  # the whole battery, corrected together
        verdicts = [battery.run_shuffler(plan, pos[: plan.required]) for pos in data]
        check([battery.family_p(v.results) for v in verdicts], [v.outcome for v in verdicts], plan)


def test_correct_shoe_family_wise_rate_over_200_seeds() -> None:
    plan = battery.plan_shoe(RandomnessSettings(), N, "WV")
    assert plan.confidence == Decimal("0.99")
    family, verdicts = [], []
    for seed in range(SEEDS):
        pack = PackShuffler(N, (), 5_000 + seed)
        ids = np.stack([pack.shuffle().copy() % 52 for _ in range(plan.required)])
        ranks, red = ids % 13 + 1, ((ids // 13 == 1) | (ids // 13 == 2)).astype(np.int8)
        v = battery.run_shoe_arrays(plan, ranks, red)
        family.append(battery.family_p(v.results))
        verdicts.append(v.outcome)
    check(family, verdicts, plan)


def test_correct_mystery_controller_family_wise_rate_over_200_seeds() -> None:
    config = MysteryConfig.regulation(1)
    settings = RandomnessSettings()
    plan = battery.plan_mystery(settings, "PA", None, "uniform", config.reseed, config.must_hit_by)
    family, verdicts = [], []
    for seed in range(SEEDS):
        meter = MysteryMeter(config, rng=random.Random(seed))
        awards: list[MysteryAward] = []
        while len(awards) < plan.required:
            for _ in range(7):  # seven $5 Royal 9 wagers a round, one contribution each
                awards += [MysteryAward(h.paid, config.reseed, config.must_hit_by) for h in meter.contribute(500)]
        v = battery.run_mystery(plan, awards[: plan.required])
        family.append(battery.family_p(v.results))
        verdicts.append(v.outcome)
    check(family, verdicts, plan)
