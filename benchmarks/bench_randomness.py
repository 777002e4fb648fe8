"""Randomness batteries: planned sample sizes and wall times, at 95% and 99% confidence.

For each battery (shuffler on an 8-deck pack, shoe, mystery awards) and each confidence level:
the planned sample size (power 99% against the default declared defects), the wall time of the
planning, and the wall time of running the battery on that many observations of a correct
device (numpy-generated), against a baseline measured in the same run: generating the
observations alone.  Then the false-alarm count over 200 seeds of the correct shuffler at each
level.  Nothing here asserts a time.

    .venv/bin/python benchmarks/bench_randomness.py
"""

from __future__ import annotations

import os
import time
from decimal import Decimal

import numpy as np

from harness.cards import shoe_composition
from harness.randomness import battery
from harness.randomness.models import ShufflerModel
from harness.randomness.observations import MysteryAward, ShoeObservation
from harness.randomness.settings import RandomnessSettings

LEVELS = {"95%": Decimal("0.95"), "99%": Decimal("0.99")}
N = 416
SEEDS = 200


def clock(fn):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main() -> None:
    print(f"cpus {os.cpu_count()}, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    cards = [c.code for c, k in shoe_composition(8).items() for _ in range(k)]
    print(f"{'battery':<10} {'level':<5} {'needed':>8} {'unit':<9} {'plan s':>7} {'data s':>7} {'battery s':>9} "
          f"{'ratio':>6}  per test (test: n for its defect)")
    for label, conf in LEVELS.items():
        s = RandomnessSettings(confidence=conf)
        rng = np.random.default_rng(1)
        plan, t_plan = clock(lambda s=s: battery.plan_shuffler(s, 8, None))
        pos, t_data = clock(lambda plan=plan, rng=rng: ShufflerModel().shuffle(rng, plan.required, N))
        _, t_run = clock(lambda plan=plan, pos=pos: battery.run_shuffler(plan, pos))
        row(plan, label, t_plan, t_data, t_run)
        plan, t_plan = clock(lambda s=s: battery.plan_shoe(s, N, None))
        shoes, t_data = clock(lambda plan=plan, rng=rng: [ShoeObservation(tuple(rng.permutation(cards)))
                                                  for _ in range(plan.required)])
        _, t_run = clock(lambda plan=plan, shoes=shoes: battery.run_shoe(plan, shoes))
        row(plan, label, t_plan, t_data, t_run)
        plan, t_plan = clock(lambda s=s: battery.plan_mystery(s, None))
        awards, t_data = clock(lambda plan=plan, rng=rng: [MysteryAward(int(a), 25_000, 100_000)
                                                  for a in rng.integers(25_000, 100_001, plan.required)])
        _, t_run = clock(lambda plan=plan, awards=awards: battery.run_mystery(plan, awards))
        row(plan, label, t_plan, t_data, t_run)
    print(f"\nfalse alarms of the correct shuffler over {SEEDS} seeds at the planned size (stated level alpha):")
    for label, conf in LEVELS.items():
        plan = battery.plan_shuffler(RandomnessSettings(confidence=conf), 8, None)
        t0 = time.perf_counter()
        alarms = sum(battery.run_shuffler(plan, ShufflerModel().shuffle(np.random.default_rng(seed), plan.required,
                                                                        N)).outcome == "FAIL"
                     for seed in range(SEEDS))
        print(f"  {label}: {alarms}/{SEEDS} = {alarms / SEEDS:.3f} (alpha {plan.alpha:.2f}), "
              f"{time.perf_counter() - t0:.1f} s for {SEEDS} batteries of {plan.required} shuffles")


def row(plan: battery.Plan, label: str, t_plan: float, t_data: float, t_run: float) -> None:
    per = ", ".join(f"{b.test}: {b.n}" for b in plan.best.values())
    print(f"{plan.kind:<10} {label:<5} {plan.required:>8} {plan.unit:<9} {t_plan:>7.2f} {t_data:>7.3f} "
          f"{t_run:>9.3f} {t_run / max(t_data, 1e-9):>6.1f}  {per}")


if __name__ == "__main__":
    main()
