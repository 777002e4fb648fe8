"""Royal 9 exact math time (target < 1 s for 8 decks) and the Hit and Run calculator time.

Royal 9: the exact 8-deck calculation (13 card classes, falling-product counts, each hand-key pair
resolved by the oracle) against a brute-force baseline measured in the same run: every ordered
four-card deal pushed through the oracle.  The full 8-deck brute force (416·415·414·413 ≈ 2.95e10
deals) cannot run, so its time is extrapolated from the oracle's rate over BRUTE_DEALS random
ordered deals from the 8-deck shoe (a sampled baseline).  The exact method's counts are also
checked equal to a complete brute force of a reduced 20-card shoe, so the speed is not bought
with a wrong answer.

Hit and Run: the memoised exact dealer distribution (6 decks, H17) against an un-memoised walk of
every value sequence through the round oracle (the baseline), both exact.

Run: ``.venv/bin/python benchmarks/bench_royal9_math.py``
"""

from __future__ import annotations

import itertools
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable

from harness.cards import SUITS, Card
from harness.games.royal9 import Royal9Table
from harness.math import hitrun_exact
from harness.math.royal9_exact import default_table, royal9_math

BRUTE_DEALS = 300_000


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def brute(table: Royal9Table, deals: Iterable[tuple[Card, ...]]) -> tuple[dict[int, Counter[str]], int]:
    out: dict[int, Counter[str]] = {s: Counter() for s in table.seat_combos}
    n = 0
    for deal in deals:
        for s in table.resolve(deal).seats:
            out[s.seat][s.category or "lose"] += 1
        n += 1
    return out, n


def main() -> None:
    table = default_table(5)
    exact8 = best_of(lambda: royal9_math(table, decks=8))
    print(f"Royal 9 exact, 8 decks, 7 seats: {exact8:.3f} s  (target < 1 s)")

    shoe = [Card(r, s) for r in range(1, 14) for s in SUITS] * 8
    rng = random.Random(7)
    sample = [tuple(rng.sample(shoe, 4)) for _ in range(BRUTE_DEALS)]
    t0 = time.perf_counter()
    _, n = brute(table, sample)
    rate = n / (time.perf_counter() - t0)
    full8 = 416 * 415 * 414 * 413
    print(f"brute force through the oracle: {rate:,.0f} deals/s over {n:,} random deals; "
          f"8 decks ({full8:,} deals) would take ~{full8 / rate / 3600:,.0f} h")
    print(f"speed-up vs extrapolated brute force: {full8 / rate / exact8:,.0f}x")

    small = [Card(r, s) for r in (13, 12, 9, 10, 2) for s in "SH"] * 2
    small_table = Royal9Table(
        {s: c for s, c in table.seat_combos.items() if c[0].suit in "SH" and c[1].suit in "SH"})
    t0 = time.perf_counter()
    want, n = brute(small_table, itertools.permutations(small, 4))
    tb = time.perf_counter() - t0
    t0 = time.perf_counter()
    got = royal9_math(small_table, composition=Counter(small))
    te = time.perf_counter() - t0
    same = all(dict(s.counts) == dict(want[s.seat]) for s in got.seats)
    print(f"reduced 20-card shoe ({n:,} deals): brute {tb:.3f} s, exact {te:.4f} s, ratio {tb / te:,.0f}x, "
          f"identical counts: {same}")
    assert same

    def fresh() -> None:
        hitrun_exact.dealer_distribution.cache_clear()
        hitrun_exact.dealer_distribution(6, True)

    th = best_of(fresh)
    t0 = time.perf_counter()
    walked = hitrun_exact.oracle_walk(6, True)
    tw = time.perf_counter() - t0
    same = walked == dict(hitrun_exact.dealer_distribution(6, True).counts)
    print(f"Hit and Run exact, 6 decks H17: {th * 1000:.1f} ms; oracle walk baseline {tw:.2f} s; "
          f"ratio {tw / th:,.0f}x; identical counts: {same}")
    assert same


if __name__ == "__main__":
    main()
