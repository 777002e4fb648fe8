from decimal import Decimal

import pytest

from harness.errors import InputError
from harness.games.payouts import Pay, parse_pay, settle


@pytest.mark.parametrize(
    ("text", "pay"),
    [
        ("40 to 1", Pay("to", Decimal(40))),
        ("200 for 1", Pay("for", Decimal(200))),
        ("$5,000", Pay("fixed", Decimal(500000))),
        ("$25", Pay("fixed", Decimal(2500))),
        ("100% of mega jackpot", Pay("meter", Decimal(100), "mega")),
        ("100% major jackpot", Pay("meter", Decimal(100), "major")),
        ("100% of meter", Pay("meter", Decimal(100), "meter")),
        ("push", Pay("push")),
    ],
)
def test_parse_pay(text: str, pay: Pay) -> None:
    assert parse_pay(text) == pay


def test_parse_pay_rejects() -> None:
    with pytest.raises(InputError):
        parse_pay("lots")


def test_to_keeps_stake_for_includes_it() -> None:
    assert settle(Pay("to", Decimal(40)), 500).returned == 500 + 20000
    assert settle(Pay("for", Decimal(200)), 500).returned == 100000
    assert settle(Pay("for", Decimal(8)), 500).net == 3500
    assert settle(Pay("fixed", Decimal(2500)), 500).returned == 3000
    assert settle(Pay("fixed", Decimal(2500)), 500, award_returns_stake=False).returned == 2500
    assert settle(Pay("meter", Decimal(100), "mega"), 500, 5_012_345).returned == 5_012_845
    assert settle(Pay("push"), 500).net == 0
    assert settle(Pay("lose"), 500).returned == 0
    assert settle(Pay("to", Decimal("0.95")), 1000).returned == 1950


def test_describe_reads_like_the_paytable() -> None:
    assert parse_pay("100% of meter").describe() == "100% of meter"
    assert parse_pay("100% of mega jackpot").describe() == "100% of mega meter"
    assert parse_pay("200 for 1").describe() == "200 for 1"
    assert parse_pay("$5,000").describe() == "$5,000"
