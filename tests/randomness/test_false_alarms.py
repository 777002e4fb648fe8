"""The whole battery's false-alarm rate over 200 seeds, single-stage and through the two-stage procedure.

Each battery is run as a case runs it (every test together, Holm's step-down over them) on a correct
device's observations, seed after seed: the emulated shoe's shuffler (:class:`PackShuffler`, the
code behind ``test.shuffle``) for the shuffler and shoe batteries, the mystery meter model the
emulated controller awards by for the mystery battery.

* **Single stage.**  The battery's family p-value (:func:`battery.family_p`: it rejects at level
  alpha exactly when this is at most alpha) is collected per seed, so one run checks the
  family-wise rate at several levels: at each, the number of seeds rejecting must not exceed what a
  rate of alpha exceeds with probability 0.1% (binomial), and at the plan's own level the count
  must be the number of stage-1 rejections.
* **The procedure** (:mod:`harness.randomness.confirm`): a seed whose first sample rejects is given a
  second, independent sample of the planned size (another seed of the same device), and the
  procedure's verdict is FAIL only when both reject.  Its rate is at most alpha ** 2 (1e-4 at 99%,
  0.0025 at 95%) by the independence of the stages; 200 seeds expect 0.02 (99%) or 0.5 (95%)
  procedure FAILs, so the test holds the count to what alpha ** 2 exceeds with probability 0.1%
  (at most 1 at 99%, 4 at 95%) and checks that every procedure FAIL is a seed with two rejecting
  samples.  What 200 seeds can show is only that: the procedure's rate is not far above alpha ** 2
  (a rate of alpha, the single stage's, would give about 2 at 99% and 10 at 95%, and fail it);
  they cannot tell alpha ** 2 from a few times it.  The bound itself is the product of two
  independent stages' rates, each of which the single-stage half of the test measures.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from decimal import Decimal

import numpy as np
import pytest
from scipy import stats as sps

from harness.emulators.shuffler import PackShuffler
from harness.progressive.mystery import MysteryConfig, MysteryMeter
from harness.randomness import battery, confirm
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


def check(family: list[float], verdicts: list[battery.BatteryVerdict], plan: battery.Plan,
          second: Callable[[int], battery.BatteryVerdict]) -> dict[float, int]:
    """Single-stage rates at every level, then the procedure over the same seeds (``second(seed)``:
    the seed's independent confirming sample)."""
    counts = {a: sum(p <= a for p in family) for a in LEVELS}
    for a, c in counts.items():
        assert c <= allowed(a), f"{plan.kind}: {c}/{SEEDS} seeds reject at family level {a}"
    assert sum(v.rejects for v in verdicts) == sum(p <= plan.alpha for p in family)
    assert not any(v.outcome == "INCONCLUSIVE" for v in verdicts)  # the planned size: every seed gives a verdict
    assert plan.stages == 2 and plan.procedure_alpha == pytest.approx(plan.alpha ** 2)
    both = 0
    outcomes = []
    for seed, first in enumerate(verdicts):
        proc = confirm.run(plan, lambda k, first=first, seed=seed: first if k == 1 else second(seed))
        outcomes.append(proc.outcome)
        assert len(proc.stages) == (2 if first.rejects else 1)  # stage 2 only after a stage-1 rejection
        both += len(proc.stages) == 2 and proc.stages[1].rejects
    fails = outcomes.count("FAIL")
    assert fails == both and fails <= allowed(plan.procedure_alpha), \
        f"{plan.kind}: the procedure fails {fails}/{SEEDS} correct seeds"
    assert "INCONCLUSIVE" not in outcomes
    print(f"{plan.kind} at {float(plan.confidence):.0%}: single-stage false alarms over {SEEDS} seeds "
          + ", ".join(f"{c} at {a:g}" for a, c in counts.items())
          + f"; stage 2 run for {counts_at(family, plan.alpha)}; procedure FAILs {fails} "
            f"(at most {allowed(plan.procedure_alpha)} allowed for alpha^2 = {plan.procedure_alpha:g})")
    return counts


def counts_at(family: list[float], alpha: float) -> int:
    return sum(p <= alpha for p in family)


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
        check([battery.family_p(v.results) for v in verdicts], verdicts, plan,
              lambda seed, plan=plan: battery.run_shuffler(plan, shuffles(SEEDS + seed, plan.required)))


def test_correct_shoe_family_wise_rate_over_200_seeds() -> None:
    plan = battery.plan_shoe(RandomnessSettings(), N, "WV")
    assert plan.confidence == Decimal("0.99")

    def shoes(seed: int) -> battery.BatteryVerdict:
        pack = PackShuffler(N, (), seed)
        ids = np.stack([pack.shuffle().copy() % 52 for _ in range(plan.required)])
        ranks, red = ids % 13 + 1, ((ids // 13 == 1) | (ids // 13 == 2)).astype(np.int8)
        return battery.run_shoe_arrays(plan, ranks, red)

    verdicts = [shoes(5_000 + seed) for seed in range(SEEDS)]
    check([battery.family_p(v.results) for v in verdicts], verdicts, plan, lambda seed: shoes(6_000 + seed))


def test_correct_mystery_controller_family_wise_rate_over_200_seeds() -> None:
    config = MysteryConfig.regulation(1)
    settings = RandomnessSettings()
    plan = battery.plan_mystery(settings, "PA", None, "uniform", config.reseed, config.must_hit_by)

    def awards(seed: int) -> battery.BatteryVerdict:
        meter = MysteryMeter(config, rng=random.Random(seed))
        out: list[MysteryAward] = []
        while len(out) < plan.required:
            for _ in range(7):  # seven $5 Royal 9 wagers a round, one contribution each
                out += [MysteryAward(h.paid, config.reseed, config.must_hit_by) for h in meter.contribute(500)]
        return battery.run_mystery(plan, out[: plan.required])

    verdicts = [awards(seed) for seed in range(SEEDS)]
    check([battery.family_p(v.results) for v in verdicts], verdicts, plan, lambda seed: awards(SEEDS + seed))
