"""Blackjack dealer play and the Hit and Run wager (633a.13(l)(1) as amended in 2012)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.cards import SUITS, Card, parse_cards
from harness.errors import InputError
from harness.games.blackjack import (
    CATEGORIES,
    DealerHand,
    dealer_hand,
    hand_total,
    hit_and_run_category,
    hit_and_run_paytable,
    settle_hit_and_run,
)
from harness.games.interpretations import Interpretations


def test_paytable_is_the_amended_regulation() -> None:
    table = hit_and_run_paytable()
    assert list(table) == list(CATEGORIES)
    assert [(p.kind, int(p.value)) for p in table.values()] == [
        ("meter", 100), ("for", 200), ("for", 25), ("for", 8), ("for", 4)]


@pytest.mark.parametrize(("cards", "total", "soft"), [
    ("AS 6D", 17, True), ("AS 6D KC", 17, False), ("AS AD", 12, True), ("KS QD", 20, False),
    ("AS AD AH AC 3S", 17, True), ("9S 7D 6C", 22, False),
])
def test_hand_total(cards: str, total: int, soft: bool) -> None:
    assert hand_total(parse_cards(cards)) == (total, soft)


def test_soft17_rule() -> None:
    h = dealer_hand(parse_cards("AS 6D 4C"), hit_soft17=True)
    assert (h.total, h.soft, h.n_cards, len(h.cards)) == (21, True, 3, 3)
    s = dealer_hand(parse_cards("AS 6D 4C"), hit_soft17=False)
    assert (s.total, s.soft, s.n_cards) == (17, True, 2)


def test_blackjack_stops_the_hand() -> None:
    h = dealer_hand(parse_cards("AS KD 5C"), hit_soft17=True)
    assert h.blackjack and h.n_cards == 2 and h.total == 21
    assert not dealer_hand(parse_cards("KD 5C 6H"), hit_soft17=True).blackjack  # three-card 21


def test_bust_hand_counts_its_cards() -> None:
    h = dealer_hand(parse_cards("2S 2D 2C 3H 4S KD 9H"), hit_soft17=True)
    assert h.bust and h.n_cards == 6 and h.total == 23
    assert hit_and_run_category(h) == "6-cards"
    no = Interpretations.from_overrides({"hr-bust-counts": False})
    assert hit_and_run_category(h, interpretations=no) is None


@pytest.mark.parametrize(("cards", "message"), [
    ("TS 5D", "round needs a 3rd card: dealer hits 15"),
    ("TS 3D 2C", "round needs a 4th card: dealer hits 15"),
    ("AS 6D", "round needs a 3rd card: dealer hits soft 17"),
    ("KS", "round needs a 2nd card: the dealer's hand starts with two cards"),
    ("2S 2D 2C 2H 3S 3D", "round needs a 7th card: dealer hits 14"),
    ("2S 2D 2C 2H 3S 3D AS AD", "round needs a 9th card: dealer hits 16"),
])
def test_short_sequence_names_the_draw(cards: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        dealer_hand(parse_cards(cards), hit_soft17=True)
    assert str(err.value) == message


def test_dealer_not_completing_takes_cards_as_given() -> None:
    stop = Interpretations.from_overrides({"hr-dealer-completes": False})
    h = dealer_hand(parse_cards("TS 5D"), hit_soft17=True, interpretations=stop)
    assert (h.n_cards, h.total, h.bust) == (2, 15, False)


def test_extra_cards_are_not_used() -> None:
    h = dealer_hand(parse_cards("TS 7D 5C 5C"), hit_soft17=True)
    assert h.cards == tuple(parse_cards("TS 7D")) and h.n_cards == 2


@pytest.mark.parametrize(("cards", "category", "returned"), [
    ("2S 2D 2C 2H 3S 7D", "6-cards", 25 * 500),  # 25 for 1: stake included
    ("2S 2D 2C 2H TS", "5-cards", 8 * 500),
    ("2S 2D 2C 2H 3S 3D AS 3C", "8-plus-cards", 500 + 123_456),  # meter + stake back
    ("2S 2D 2C 2H 3S 3D AS AD 5C", "8-plus-cards", 500 + 123_456),
    ("2S 2D 2C 2H 3S 3D 5C", "7-cards", 200 * 500),
    ("AS QD", "blackjack", 4 * 500),
    ("TS 6D 2C 5H", None, 0),
])
def test_settle_hit_and_run(cards: str, category: str | None, returned: int) -> None:
    h = dealer_hand(parse_cards(cards), hit_soft17=True)
    cat, s = settle_hit_and_run(h, 500, 123_456)
    assert cat == category and s.stake == 500 and s.returned == returned


def test_meter_award_without_stake_back() -> None:
    h = dealer_hand(parse_cards("2S 2D 2C 2H 3S 3D AS 3C"), hit_soft17=True)
    interp = Interpretations.from_overrides({"award-returns-stake": False})
    assert settle_hit_and_run(h, 500, 100_000, interpretations=interp)[1].returned == 100_000


def test_bad_stake() -> None:
    with pytest.raises(InputError, match="stake"):
        settle_hit_and_run(DealerHand((), 20, False, False, False, 2), 0)


SHOE = [Card(r, s) for r in range(1, 14) for s in SUITS] * 6


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), h17=st.booleans())
def test_dealer_rule_holds_on_random_shoes(seed: int, h17: bool) -> None:
    cards = random.Random(seed).sample(SHOE, 15)
    h = dealer_hand(cards, hit_soft17=h17)
    assert list(h.cards) == cards[: h.n_cards]
    for k in range(2, h.n_cards):  # every card drawn was needed
        total, soft = hand_total(cards[:k])
        assert total < 17 or (total == 17 and soft and h17)
        assert not (k == 2 and total == 21)
    total, soft = hand_total(h.cards)
    assert (total, soft, total > 21) == (h.total, h.soft, h.bust)
    assert h.total >= 17 and not (h.total == 17 and h.soft and h17)
