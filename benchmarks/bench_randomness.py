"""Randomness batteries: planned sample sizes and wall times of every test, at 95% and 99% confidence.

For each battery (the shuffler on an 8-deck pack, the 416-card shoe, mystery awards of configuration
1) and each confidence level: the wall time of the planning; per test, the observations it needs
for each declared defect it is planned for (99% power), and the wall time of running it on the
battery's planned number of observations of a correct device (median of 7), against a baseline
measured in the same run: generating those observations (the emulated shuffler's model, the mystery meter model).
Then, per battery and level, the whole battery's false alarms (Holm over its tests) over 200 seeds
of a correct device, single-stage and through the two-stage confirmation procedure (a seed whose
sample is rejected gets an independent second sample; the procedure fails it only when both are
rejected), with the wall time.  The sizes are per stage (planned for the stage power, 0.9950 for
99%).  ``--suites`` also times ``pytest suites/randomness`` on each shipped profile (the emulator
in its own process), ``--twin`` on its bench twin too.  Nothing here asserts a time.

    .venv/bin/python benchmarks/bench_randomness.py [--seeds 200] [--suites [--twin]]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from harness.progressive.mystery import MysteryConfig, MysteryMeter
from harness.randomness import battery, confirm, stats
from harness.randomness.models import ShufflerModel
from harness.randomness.observations import MysteryAward
from harness.randomness.settings import RandomnessSettings

ROOT = Path(__file__).resolve().parents[1]
LEVELS = {"95%": Decimal("0.95"), "99%": Decimal("0.99")}
DECKS = 8
N = 52 * DECKS
CONFIG = MysteryConfig.regulation(1)
#: timed calls per figure (the median is printed)
REPEATS = 7


def clock(fn: Callable[[], Any]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def median_time(fn: Callable[[], Any], repeats: int = REPEATS) -> float:
    """The median wall time of ``repeats`` calls (after one warm-up call)."""
    fn()
    return statistics.median(clock(fn)[1] for _ in range(repeats))


def shoe_arrays(rng: np.random.Generator, m: int) -> tuple[np.ndarray, np.ndarray]:
    ids = ShufflerModel().shuffle(rng, m, N) % 52  # a uniform order of the card ids of the shoe
    return ids % 13 + 1, ((ids // 13 == 1) | (ids // 13 == 2)).astype(np.int8)


def mystery_awards(seed: int, m: int) -> list[MysteryAward]:
    meter = MysteryMeter(CONFIG, rng=random.Random(seed))
    out: list[MysteryAward] = []
    while len(out) < m:
        out += [MysteryAward(h.paid, CONFIG.reseed, CONFIG.must_hit_by) for h in meter.contribute(500)]
    return out[:m]


def batteries(settings: RandomnessSettings) -> list[tuple[battery.Plan, float, Callable[[int, int], Any],
                                                          dict[str, Callable[[Any], Any]],
                                                          Callable[[battery.Plan, Any], battery.BatteryVerdict]]]:
    """(plan, planning seconds, data(seed, m), test name -> run on data, the battery on data)."""
    shuffler, t1 = clock(lambda: battery.plan_shuffler(settings, DECKS, None))
    shoe, t2 = clock(lambda: battery.plan_shoe(settings, N, None))
    mystery, t3 = clock(lambda: battery.plan_mystery(settings, None, None, "uniform", CONFIG.reseed,
                                                     CONFIG.must_hit_by))
    bins = settings.shuffler.bins
    return [
        (shuffler, t1, lambda seed, m: ShufflerModel().shuffle(np.random.default_rng(seed), m, N),
         {"card-position": lambda p: stats.card_positions(p, bins=bins),
          "position-correlation": stats.position_correlation, "adjacent-pairs": stats.adjacent_pairs,
          "rising-sequences": stats.rising_sequence_test,
          "repeated-shuffles": stats.repeated_shuffles},
         lambda plan, p: battery.run_shuffler(plan, p, bins)),
        (shoe, t2, lambda seed, m: shoe_arrays(np.random.default_rng(seed), m),
         {"runs": lambda d: stats.runs_test(d[1]), "serial-correlation": lambda d: stats.serial_correlation(d[0]),
          "card-position": lambda d: stats.rank_positions(d[0], bins=settings.shoe.bins)},
         lambda plan, d: battery.run_shoe_arrays(plan, d[0], d[1], settings.shoe.bins)),
        (mystery, t3, mystery_awards,
         {"kolmogorov-smirnov": lambda a: battery.run_mystery(mystery, a)}, battery.run_mystery),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=200, help="correct-device seeds for the false alarms")
    ap.add_argument("--suites", action="store_true", help="also time pytest suites/randomness per shipped profile")
    ap.add_argument("--twin", action="store_true", help="with --suites: also on each profile's bench twin")
    args = ap.parse_args()
    print(f"cpus {os.cpu_count()}, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          "(a shared machine: wall times include other people's load)")
    print(f"\n{'battery':<9} {'level':<5} {'test':<21} {'needs (defect: n)':<58} {'planned':>8} {'test s':>8} "
          f"{'data s':>7} {'ratio':>6}")
    alarms: list[str] = []
    for label, conf in LEVELS.items():
        settings = RandomnessSettings(confidence=conf)
        for plan, t_plan, data, tests, whole in batteries(settings):
            obs = data(1, plan.required)
            t_data = median_time(lambda data=data, plan=plan: data(1, plan.required))
            for test in plan.tests:
                needs = ", ".join(f"{n.defect.removeprefix('shuffler-').removeprefix('mystery-trigger-')}: "
                                  f"{n.n if n.n is not None else '-'}" for n in plan.needs if n.test == test
                                  and n.n is not None) or "not planned for a declared defect"
                t_test = median_time(lambda test=test, obs=obs, tests=tests: tests[test](obs))
                print(f"{plan.kind:<9} {label:<5} {test:<21} {needs:<58} {plan.required:>8} {t_test:>8.4f} "
                      f"{t_data:>7.3f} {t_test / max(t_data, 1e-9):>6.2f}")
            print(f"{plan.kind:<9} {label:<5} {'(planning)':<21} {'':<58} {plan.required:>8} {t_plan:>8.3f}")
            t0 = time.perf_counter()
            firsts = [whole(plan, data(10_000 + s, plan.required)) for s in range(args.seeds)]
            family = [battery.family_p(v.results) for v in firsts]
            procs = [confirm.run(plan, lambda k, v=v, s=s, plan=plan, whole=whole, data=data:
                                 v if k == 1 else whole(plan, data(20_000_000 + s, plan.required)))
                     for s, v in enumerate(firsts)]
            dt = time.perf_counter() - t0
            counts = ", ".join(f"{sum(p <= a for p in family)} at {a:g}" for a in (0.01, 0.05, 0.10))
            failed = sum(p <= plan.alpha for p in family)
            confirmed = sum(p.outcome == "FAIL" for p in procs)
            alarms.append(f"  {plan.kind:<9} {label}: single stage {failed}/{args.seeds} = {failed / args.seeds:.3f} "
                          f"at its level {plan.alpha:g} (family-wise, {len(plan.tests)} test(s), Holm; by family "
                          f"level: {counts}); procedure {confirmed}/{args.seeds} (bound alpha^2 = "
                          f"{plan.procedure_alpha:g}, stage 2 run {sum(len(p.stages) == 2 for p in procs)} times); "
                          f"{dt:.1f} s for {args.seeds} batteries of {plan.required} {plan.unit} a stage")
    print(f"\nfalse alarms of a correct device over {args.seeds} seeds at the planned size:")
    print("\n".join(alarms))
    if args.suites:
        time_suites(("", " --tc-bench-twin") if args.twin else ("",))


def time_suites(channels: tuple[str, ...]) -> None:
    print("\npytest suites/randomness per shipped profile (emulator in its own process; wall time; the mystery "
          "case's rounds vary with the controller's unseeded triggers):")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    for profile in sorted((ROOT / "device_profiles").glob("emulated-*.yaml")):
        for channel in channels:
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.perf_counter()
                proc = subprocess.run([sys.executable, "-m", "pytest", "suites/randomness", "-q", "-p",
                                       "no:cacheprovider", "-o", "testpaths=", "--tc-profile", str(profile),
                                       "--tc-report-dir", tmp, *channel.split()], cwd=ROOT, capture_output=True,
                                      text=True, timeout=1800, env=env, check=False)
                dt = time.perf_counter() - t0
                rounds = sorted({m for j in Path(tmp).glob("*/journal.jsonl")
                                 for m in re.findall(r"over (\d+) rounds", j.read_text())})
            tail = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr.strip()[-200:]
            where = "bench twin" if channel else "test channel"
            print(f"  {profile.stem:<26} {where:<12} {dt:7.1f} s  {'/'.join(rounds) or '-'} rounds  {tail}")


if __name__ == "__main__":
    main()
