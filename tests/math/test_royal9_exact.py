"""Exact Royal 9 math (629a Royal 9 (e)-(g)) against the published counts and brute force."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

from harness.cards import Card
from harness.games.interpretations import Interpretations
from harness.games.royal9 import Royal9Table, parse_combo
from harness.math.royal9_exact import default_table, key_pair_counts, royal9_math

TOTAL8 = 416 * 415 * 414 * 413


def test_reference_facts_for_eight_decks() -> None:
    m = royal9_math(default_table(5))
    assert m.total == TOTAL8
    assert Fraction(m.hands["player-royal9"], m.total) == Fraction(6144, 172640)
    assert Fraction(m.hands["player-suited-royal9"], m.total) == Fraction(1536, 172640)
    assert Fraction(m.hands["player-KS9H"], m.total) == Fraction(128, 172640)
    for seat in m.seats:
        assert sum(seat.counts.values()) == m.total


def test_mega_major_minor_counts() -> None:
    m = royal9_math(default_table(5))
    s1 = m.seats[0]
    assert s1.combo == parse_combo("KS9S")
    # KS 9S on both hands, either order on each: 8·8·2 for Player, 7·7·2 for Banker
    assert s1.counts["mega"] == 8 * 8 * 2 * 7 * 7 * 2
    assert m.meter_hits["mega"] == 7 * s1.counts["mega"]
    # envy: one of the six other combinations on both hands
    assert s1.counts["mega-envy"] == 6 * s1.counts["mega"]


def test_return_follows_the_paytable() -> None:
    t = default_table(5)
    m = royal9_math(t)
    s = m.seats[0]
    floors = t.floors
    fixed = {"mega-envy": 500000, "suited-royal9-tie": 150000, "royal9-tie": 25000,
             "suited-royal9": 5000, "royal9": 2500, "mega": floors["mega"], "major": floors["major"],
             "minor": floors["minor"]}
    expect = sum(cnt * (500 + fixed[c]) for c, cnt in s.counts.items() if c != "lose")
    assert s.returned == Fraction(expect, m.total * 500)
    richer = royal9_math(t, meters={"mega": 10_000_000, "major": 100_000, "minor": 100_000})
    assert richer.seats[0].returned > s.returned
    one = royal9_math(default_table(1))
    assert one.denomination == 1 and one.seats[0].counts == s.counts


def _brute(table: Royal9Table, cards: list[Card]) -> dict[int, Counter[str]]:
    out: dict[int, Counter[str]] = {s: Counter() for s in table.seat_combos}
    for deal in itertools.permutations(cards, 4):
        r = table.resolve(deal)
        for s in r.seats:
            out[s.seat][s.category or "lose"] += 1
    return out


def test_matches_brute_force_on_a_small_shoe() -> None:
    cards = [Card(r, s) for r in (13, 12, 9, 10, 2) for s in "SH"] * 2
    table = Royal9Table({1: parse_combo("KS9S"), 2: parse_combo("KH9S"), 3: parse_combo("KS9H")})
    m = royal9_math(table, composition=Counter(cards))
    brute = _brute(table, cards)
    assert m.total == 20 * 19 * 18 * 17
    for s in m.seats:
        assert dict(s.counts) == dict(brute[s.seat])
    assert m.seats[0].counts["mega"] > 0 and m.seats[0].counts["mega-envy"] > 0


def test_order_sensitive_halves_royal9_hands() -> None:
    comp = Counter({Card(r, s): 8 for r in range(1, 14) for s in "SHDC"})
    both = key_pair_counts(comp)
    first = key_pair_counts(comp, order_insensitive=False)
    n_both = sum(c for (pk, _), c in both.items() if pk is not None)
    n_first = sum(c for (pk, _), c in first.items() if pk is not None)
    assert 2 * n_first == n_both


def test_unsuited_table_has_one_seat() -> None:
    interp = Interpretations.from_overrides({"r9-personal-combo-suited": False})
    m = royal9_math(default_table(5, interp))
    assert len(m.seats) == 1
    # any king-9 on both hands: 2·32·32 for Player, 2·31·31 for Banker
    assert m.seats[0].counts["mega"] == 2 * 32 * 32 * 2 * 31 * 31
