"""Exact baccarat counts: the published counts for 8 decks, and independent enumerations for small shoes."""

import itertools
import json
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.errors import InputError
from harness.math.baccarat_exact import baccarat_counts, count_composition

# the published counts (Wizard of Odds, baccarat appendix): 8 decks, all ordered 6-card sequences.
REF_TOTAL = 4_998_398_275_503_360
REF = {
    "banker": (2_292_252_566_437_888, "0.458597422632763"),
    "player": (2_230_518_282_592_256, "0.446246609343597"),
    "tie": (475_627_426_473_216, "0.095155968023640"),
    "dragon7": (112_633_011_329_024, "0.022533820860380"),
    "panda8": (172_660_763_262_976, "0.034543218396415"),
    "natural": (1_714_696_016_515_584, "0.343049097331666"),
}
REF_EDGE_PERCENT = {
    "banker": "1.0579",
    "player": "1.2351",
    "tie": "14.3596",
    "dragon7": "7.6113",
    "panda8": "10.1876",
    "ez-banker": "1.0183",
}


def test_eight_decks_reproduce_reference_to_the_unit() -> None:
    c = baccarat_counts(8)
    assert c.total == REF_TOTAL == 416 * 415 * 414 * 413 * 412 * 411
    for name, (count, probability) in REF.items():
        assert getattr(c, name) == count, name
        p = c.probability(name)
        assert round(Decimal(p.numerator) / Decimal(p.denominator), 15) == Decimal(probability), name
    assert c.banker + c.player + c.tie == c.total


def test_eight_deck_house_edges() -> None:
    edges = baccarat_counts(8).house_edges()
    for wager, percent in REF_EDGE_PERCENT.items():
        e = edges[wager] * 100
        assert round(Decimal(e.numerator) / Decimal(e.denominator), 4) == Decimal(percent), wager
    c = baccarat_counts(8)
    assert edges["banker"] == Fraction(c.player - Fraction(95, 100) * c.banker, c.total)
    assert edges["dragon7"] == 1 - Fraction(41 * c.dragon7, c.total)


def test_as_dict_is_json() -> None:
    d = json.loads(json.dumps(baccarat_counts(8).as_dict()))
    assert d["total"] == REF_TOTAL and d["decks"] == 8
    assert d["outcomes"]["tie"] == {"count": REF["tie"][0], "total": REF_TOTAL,
                                    "probability": pytest.approx(0.095155968023640, abs=1e-15)}
    assert d["house_edge"]["ez-banker"] == pytest.approx(0.010183, abs=1e-6)
    n, den = map(int, d["house_edge_exact"]["player"].split("/"))
    assert Fraction(n, den) == baccarat_counts(8).house_edges()["player"]


@pytest.mark.parametrize("decks", [0, -1, True, 2.0])
def test_bad_decks(decks: object) -> None:
    with pytest.raises(InputError):
        baccarat_counts(decks)  # type: ignore[arg-type]


# --- independent enumerations ---------------------------------------------------------------------


def plain_outcome(vals: list[int]) -> tuple[str, bool, bool, bool, int]:
    """(winner, natural, dragon7, panda8, cards used) for a sequence of card values."""
    p = [vals[0], vals[2]]
    b = [vals[1], vals[3]]
    pt, bt = sum(p) % 10, sum(b) % 10
    if pt >= 8 or bt >= 8:
        w = "player" if pt > bt else "banker" if bt > pt else "tie"
        return w, True, False, False, 4
    i = 4
    third = None
    if pt <= 5:
        third = vals[i]
        p.append(third)
        i += 1
    rule = {0: range(10), 1: range(10), 2: range(10), 3: [0, 1, 2, 3, 4, 5, 6, 7, 9],
            4: range(2, 8), 5: range(4, 8), 6: range(6, 8), 7: []}
    if (bt <= 5) if third is None else third in rule[bt]:
        b.append(vals[i])
        i += 1
    pt, bt = sum(p) % 10, sum(b) % 10
    w = "player" if pt > bt else "banker" if bt > pt else "tie"
    return w, False, w == "banker" and len(b) == 3 and bt == 7, w == "player" and len(p) == 3 and pt == 8, i


def brute_force(values: list[int]) -> dict[str, int]:
    """Every ordered 6-card sequence of the physical cards (each value list entry is one card)."""
    out = dict.fromkeys(("banker", "player", "tie", "dragon7", "panda8", "natural", "total"), 0)
    for seq in itertools.permutations(values, 6):
        w, nat, d7, p8, _ = plain_outcome(list(seq))
        out[w] += 1
        out["natural"] += nat
        out["dragon7"] += d7
        out["panda8"] += p8
        out["total"] += 1
    return out


def as_counts(values: list[int]) -> dict[str, int]:
    comp = [values.count(v) for v in range(10)]
    c = count_composition(comp)
    return {k: getattr(c, k) for k in ("banker", "player", "tie", "dragon7", "panda8", "natural", "total")}


def test_small_shoe_against_brute_force() -> None:
    values = [0, 0, 1, 2, 3, 4, 5, 6, 7]
    assert as_counts(values) == brute_force(values)


@settings(max_examples=12, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=9), min_size=7, max_size=8))
def test_random_small_shoes_against_brute_force(values: list[int]) -> None:
    assert as_counts(values) == brute_force(values)


def by_value(comp: list[int]) -> dict[str, int]:
    """Card-by-card enumeration over values: follow the deal, weight each draw by what is left."""
    out = dict.fromkeys(("banker", "player", "tie", "dragon7", "panda8", "natural"), 0)
    n = sum(comp)
    left = list(comp)

    def walk(vals: list[int], weight: int) -> None:
        if len(vals) >= 4:
            try:
                w, nat, d7, p8, used = plain_outcome(vals)
            except IndexError:
                used = 0
            if used == len(vals):
                tail = 1
                for k in range(used, 6):
                    tail *= n - k
                out[w] += weight * tail
                out["natural"] += weight * tail * nat
                out["dragon7"] += weight * tail * d7
                out["panda8"] += weight * tail * p8
                return
        for v in range(10):
            if left[v]:
                k = left[v]
                left[v] -= 1
                walk([*vals, v], weight * k)
                left[v] += 1

    walk([], 1)
    return out


def test_one_deck_against_card_by_card_enumeration() -> None:
    c = baccarat_counts(1)
    expected = by_value([16] + [4] * 9)
    assert {k: getattr(c, k) for k in expected} == expected
    assert c.total == 52 * 51 * 50 * 49 * 48 * 47
