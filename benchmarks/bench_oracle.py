"""Baccarat rounds per second with Royal 9 resolved for seven seats (target >= 50,000/s).

Random 8-deck shoes are shuffled and cut into rounds before timing.  Each timed round runs
``deal_round`` and resolves the Royal 9 wagers of seven seats at current meter amounts.  The
baseline, measured in the same run, resolves the same rounds with a plain per-seat reading of
629a Royal 9 (e) that recomputes everything for every seat (no precomputed ownership, no cache).

Run: ``.venv/bin/python benchmarks/bench_oracle.py``
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from harness.cards import SUITS, Card
from harness.games.baccarat import deal_round
from harness.games.payouts import settle
from harness.games.royal9 import CATEGORIES, Royal9Table, parse_combo, royal9_paytable

LAYOUT = "1=KS9S,2=KH9H,3=KD9D,4=KC9C,5=KS9H,6=KH9S,7=KD9C"
METERS = {"mega": 5_000_000, "major": 45_000, "minor": 45_000}
SHOES = 400
PAYS = royal9_paytable(5)


def rounds(seed: int = 1) -> list[list[Card]]:
    rng = random.Random(seed)
    shoe = [Card(r, s) for r in range(1, 14) for s in SUITS] * 8
    out = []
    for _ in range(SHOES):
        rng.shuffle(shoe)
        i = 0
        while i + 6 <= len(shoe) - 14:  # cut card: 14 cards left behind
            rnd = deal_round(shoe[i : i + 6])
            out.append(shoe[i : i + 6])
            i += rnd.cards_used
    return out


def naive_resolve(first4: Sequence[Card], combos: dict[int, tuple[Card, Card]]) -> dict[int, int]:
    """Per seat, every category checked from scratch; returns seat -> cents returned."""
    pays = PAYS
    p, b = (first4[0], first4[2]), (first4[1], first4[3])

    def r9(h: tuple[Card, Card]) -> bool:
        return (h[0].is_face and h[1].rank == 9) or (h[1].is_face and h[0].rank == 9)

    def suited(h: tuple[Card, Card]) -> bool:
        return r9(h) and h[0].suit == h[1].suit

    def has(h: tuple[Card, Card], combo: tuple[Card, Card]) -> bool:
        return sorted(h) == sorted(combo)

    out = {}
    for seat, combo in combos.items():
        cats = []
        if has(p, combo) and has(b, combo):
            cats.append("mega")
        elif has(b, combo):
            cats.append("major")
        elif has(p, combo):
            cats.append("minor")
        if any(has(p, c) and has(b, c) for s, c in combos.items() if s != seat):
            cats.append("mega-envy")
        if suited(p) and suited(b):
            cats.append("suited-royal9-tie")
        if r9(p) and r9(b):
            cats.append("royal9-tie")
        if suited(p) or suited(b):
            cats.append("suited-royal9")
        if r9(p) or r9(b):
            cats.append("royal9")
        if not cats:
            out[seat] = 0
            continue
        best = min(cats, key=CATEGORIES.index)
        out[seat] = settle(pays[best], 500, METERS.get(best)).returned
    return out


def main() -> None:
    data = rounds()
    combos = {int(s): parse_combo(c) for s, c in (x.split("=") for x in LAYOUT.split(","))}
    table = Royal9Table(combos, 5)
    wagers = frozenset(combos)

    t0 = time.perf_counter()
    total = 0
    for cards in data:
        rnd = deal_round(cards)
        res = table.resolve(rnd.first_four(), wagers, METERS)
        total += len(res.seats)
    fast = time.perf_counter() - t0

    t0 = time.perf_counter()
    for cards in data:
        rnd = deal_round(cards)
        naive_resolve(rnd.first_four(), combos)
    slow = time.perf_counter() - t0

    # the two agree on every round (a benchmark of a wrong oracle is worthless)
    for cards in data[:20000]:
        ff = deal_round(cards).first_four()
        res = table.resolve(ff, wagers, METERS)
        got = {s.seat: s.settlement.returned if s.settlement else 0 for s in res.seats}
        assert got == naive_resolve(ff, combos), cards

    n = len(data)
    print(f"rounds: {n:,} from {SHOES} shuffled 8-deck shoes, Royal 9 for {len(combos)} seats "
          f"({total:,} seat results)")
    print(f"oracle  (deal_round + cached Royal 9): {n / fast:12,.0f} rounds/s  ({fast:.3f} s)  target >= 50,000/s")
    print(f"baseline (deal_round + naive Royal 9): {n / slow:12,.0f} rounds/s  ({slow:.3f} s)")
    print(f"speed-up: {slow / fast:.1f}x")


if __name__ == "__main__":
    main()
