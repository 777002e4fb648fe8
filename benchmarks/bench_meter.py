"""Contributions per second for a 3-meter Royal 9 bank (mega 1%, major 0.5%, minor 0.5%).

Compares the integer-numerator model (harness.progressive.MeterBank) with a straightforward
baseline that keeps each residual as a ``Fraction`` and multiplies by a ``Fraction`` rate, both run
here on the same wagers, and checks that they end with the same meters and residuals.

    .venv/bin/python benchmarks/bench_meter.py [--wagers N]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.progressive import Meter, MeterBank, MeterConfig

RATES = {"mega": Decimal("1"), "major": Decimal("0.5"), "minor": Decimal("0.5")}
SEEDS = {"mega": 5_000_000, "major": 45_000, "minor": 45_000}


def model(wagers: list[int]) -> tuple[float, dict[str, tuple[int, Fraction]]]:
    bank = MeterBank([Meter(MeterConfig(n, RATES[n], SEEDS[n], SEEDS[n], None, 99_999_999)) for n in RATES])
    start = time.perf_counter()
    for w in wagers:
        bank.contribute(w)
    elapsed = time.perf_counter() - start
    return elapsed, {n: (m.amount, Fraction(m.residual)) for n, m in bank.meters.items()}


def baseline(wagers: list[int]) -> tuple[float, dict[str, tuple[int, Fraction]]]:
    rates = {n: Fraction(r) / 100 for n, r in RATES.items()}
    amounts = dict(SEEDS)
    residuals = {n: Fraction(0) for n in RATES}
    start = time.perf_counter()
    for w in wagers:
        for n, rate in rates.items():
            total = residuals[n] + w * rate
            whole = math.floor(total)
            amounts[n] = min(amounts[n] + whole, 99_999_999)
            residuals[n] = total - whole
    elapsed = time.perf_counter() - start
    return elapsed, {n: (amounts[n], residuals[n]) for n in RATES}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wagers", type=int, default=300_000)
    args = parser.parse_args()
    rng = random.Random(9)
    wagers = [rng.choice((100, 500, 500, 1_000, 2_500, 333)) for _ in range(args.wagers)]
    t_model, end_model = min((model(wagers) for _ in range(3)), key=lambda r: r[0])
    t_base, end_base = min((baseline(wagers) for _ in range(3)), key=lambda r: r[0])
    if end_model != end_base:
        print(f"MISMATCH: model {end_model} baseline {end_base}")
        return 1
    n = len(wagers)
    print(f"3-meter bank, {n:,} qualifying wagers (best of 3)")
    print(f"  model (integer numerators): {n / t_model:>12,.0f} wagers/s  {3 * n / t_model:>12,.0f} contributions/s")
    print(f"  baseline (Fraction):        {n / t_base:>12,.0f} wagers/s  {3 * n / t_base:>12,.0f} contributions/s")
    print(f"  ratio model/baseline: {t_base / t_model:.1f}x; end meters identical: {end_model == end_base}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
