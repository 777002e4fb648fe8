"""Exact dealer final-hand distribution and the Hit and Run return (633a.13(l)(1))."""

from __future__ import annotations

from fractions import Fraction

import pytest

from harness.errors import InputError
from harness.games.interpretations import Interpretations
from harness.math.hitrun_exact import BUST, dealer_distribution, falling, hit_and_run_return, oracle_walk

#: the published calculator check: 6 decks, dealer hits soft 17, full shoe, dealer completes
PUBLISHED_BUST = {3: 0.173032, 4: 0.089392, 5: 0.020473, 6: 0.002638, 7: 0.000214, 8: 0.000012}


def test_reproduces_published_bust_by_card_count() -> None:
    bust = dealer_distribution(6, True).by_cards(bust=True)
    assert set(bust) == set(PUBLISHED_BUST)
    for n, p in PUBLISHED_BUST.items():
        assert round(float(bust[n]), 6) == p


@pytest.mark.parametrize(("decks", "h17"), [(1, True), (2, False), (6, False), (8, True)])
def test_distribution_is_a_distribution(decks: int, h17: bool) -> None:
    d = dealer_distribution(decks, h17)
    assert sum(d.probability(n, t) for n, t in d.counts) == 1
    assert sum(d.common_count(n, t) for n, t in d.counts) == d.total
    assert all(t == BUST or 17 <= t <= 21 for _, t in d.counts)


def test_soft17_rule_changes_the_distribution() -> None:
    h17, s17 = dealer_distribution(6, True), dealer_distribution(6, False)
    assert h17.probability(2, 17) < s17.probability(2, 17)
    assert h17.blackjack() == s17.blackjack()
    # blackjack: ace then ten-value or ten-value then ace from 312 cards
    assert h17.blackjack() == Fraction(2 * 24 * 96, 312 * 311)


@pytest.mark.parametrize("h17", [True, False])
def test_matches_oracle_walk_on_one_deck(h17: bool) -> None:
    assert dict(dealer_distribution(1, h17).counts) == oracle_walk(1, h17)


def test_return_per_line() -> None:
    r = hit_and_run_return(6, True, stake=500, meter=100_000)
    d = dealer_distribution(6, True)
    by = {line.category: line for line in r.lines}
    assert by["5-cards"].probability == d.by_cards()[5]
    assert by["5-cards"].returned_per_unit == 8
    assert by["7-cards"].returned_per_unit == 200
    assert by["8-plus-cards"].returned_per_unit == Fraction(500 + 100_000, 500)
    assert by["blackjack"].contribution == 4 * d.blackjack()
    assert r.total_return == sum(line.contribution for line in r.lines)
    assert r.house_edge == 1 - r.total_return
    bigger = hit_and_run_return(6, True, stake=500, meter=1_000_000)
    assert bigger.total_return > r.total_return


def test_bust_interpretation_lowers_the_return() -> None:
    no = Interpretations.from_overrides({"hr-bust-counts": False})
    assert hit_and_run_return(6, True, interpretations=no).total_return < hit_and_run_return(6, True).total_return


def test_falling_and_bad_decks() -> None:
    assert falling(10, 3) == 720 and falling(5, 0) == 1
    with pytest.raises(InputError):
        dealer_distribution(0, True)
