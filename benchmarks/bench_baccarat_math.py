"""Exact 8-deck baccarat math and the round oracle: how fast, against a plain baseline.

Prints seconds for :func:`harness.math.baccarat_exact.baccarat_counts` and for a straightforward
exact enumeration measured in the same run (card by card over the ten value classes, each draw
weighted by the probability of that value given what is left, accumulated as ``Fraction``), the
ratio between them, and that both agree.  Then rounds per second for
:func:`harness.games.baccarat.deal_round` over random 8-deck shoes.

    python benchmarks/bench_baccarat_math.py [--decks N] [--rounds N] [--skip-baseline]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.cards import SUITS, Card
from harness.games.baccarat import deal_round
from harness.math.baccarat_exact import baccarat_counts

DRAWS = {0: set(range(10)), 1: set(range(10)), 2: set(range(10)), 3: set(range(10)) - {8},
         4: set(range(2, 8)), 5: set(range(4, 8)), 6: {6, 7}, 7: set()}


def baseline(decks: int, by_rank: bool) -> dict[str, Fraction]:
    """Follow the deal card by card with exact Fraction probabilities (no shortcuts).

    ``by_rank``: the 13 ranks as the shoe holds them (ten, jack, queen, king separate); otherwise
    the 10 baccarat values (the four zero-valued ranks merged).
    """
    if by_rank:
        value = [*range(1, 10), 0, 0, 0, 0]
        left = [4 * decks] * 13
    else:
        value = list(range(10))
        left = [16 * decks] + [4 * decks] * 9
    classes = range(len(left))
    out = {k: Fraction(0) for k in ("banker", "player", "tie", "dragon7", "panda8", "natural")}

    def settle(p: list[int], b: list[int], prob: Fraction, natural: bool) -> None:
        pt, bt = sum(p) % 10, sum(b) % 10
        w = "player" if pt > bt else "banker" if bt > pt else "tie"
        out[w] += prob
        if natural:
            out["natural"] += prob
        if w == "banker" and len(b) == 3 and bt == 7:
            out["dragon7"] += prob
        if w == "player" and len(p) == 3 and pt == 8:
            out["panda8"] += prob

    def deal(p: list[int], b: list[int], prob: Fraction) -> None:
        n = len(p) + len(b)
        if n < 4:
            for k in classes:
                if left[k]:
                    q = prob * Fraction(left[k], sum(left))
                    left[k] -= 1
                    if n % 2 == 0:
                        deal([*p, value[k]], b, q)
                    else:
                        deal(p, [*b, value[k]], q)
                    left[k] += 1
            return
        pt, bt = sum(p) % 10, sum(b) % 10
        if n == 4 and (pt >= 8 or bt >= 8):
            settle(p, b, prob, True)
            return
        if n == 4 and pt <= 5:
            for k in classes:
                if left[k]:
                    q = prob * Fraction(left[k], sum(left))
                    left[k] -= 1
                    deal([*p, value[k]], b, q)
                    left[k] += 1
            return
        draws = bt <= 5 if len(p) == 2 else p[2] in DRAWS[bt]
        if len(b) == 2 and draws:
            for k in classes:
                if left[k]:
                    q = prob * Fraction(left[k], sum(left))
                    left[k] -= 1
                    settle(p, [*b, value[k]], q, False)
                    left[k] += 1
            return
        settle(p, b, prob, False)

    deal([], [], Fraction(1))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decks", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=200_000)
    ap.add_argument("--skip-baseline", action="store_true", help="time only the fast enumeration")
    args = ap.parse_args()

    runs = 5
    t0 = time.perf_counter()
    for _ in range(runs):
        counts = baccarat_counts(args.decks)
    fast = (time.perf_counter() - t0) / runs
    print(f"exact {args.decks}-deck baccarat (integer counts, value classes): {fast:.4f} s (mean of {runs})")
    for name in ("banker", "player", "tie", "dragon7", "panda8", "natural"):
        print(f"  {name:8} {getattr(counts, name):>22,} / {counts.total:,}")

    if not args.skip_baseline:
        for by_rank, label in ((True, "13 ranks"), (False, "10 values")):
            t0 = time.perf_counter()
            base = baseline(args.decks, by_rank)
            slow = time.perf_counter() - t0
            agree = all(base[k] == counts.probability(k) for k in base)
            print(f"baseline, card by card over {label} with Fraction: {slow:.2f} s; "
                  f"ratio baseline / fast: {slow / fast:,.0f}x; results agree: {agree}")
            if not agree:
                return 1

    rng = random.Random(20120929)
    shoe = [Card(r, s) for r in range(1, 14) for s in SUITS] * 8
    rng.shuffle(shoe)
    limit = len(shoe) - 6
    starts = [rng.randrange(limit) for _ in range(args.rounds)]
    t0 = time.perf_counter()
    for i in starts:
        deal_round(shoe[i : i + 6])
    dt = time.perf_counter() - t0
    print(f"deal_round: {args.rounds / dt:,.0f} rounds/s "
          f"({args.rounds:,} rounds, random 6-card slices of an 8-deck shoe)")

    ring = shoe + shoe[:6]
    t0 = time.perf_counter()
    pos = 0
    for _ in range(args.rounds):
        pos += deal_round(ring[pos : pos + 6]).cards_used
        if pos >= len(shoe):
            pos -= len(shoe)
    dt = time.perf_counter() - t0
    print(f"deal_round through the shoe (each round starts where the last ended): "
          f"{args.rounds / dt:,.0f} rounds/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
