import pytest

from harness.cards import Card, check_against_shoe, parse_card, parse_cards
from harness.cards import card as card_of
from harness.errors import InputError


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [("KS", 13, "S"), ("9h", 9, "H"), ("TD", 10, "D"), ("10D", 10, "D"), ("K♠", 13, "S"), ("A♣", 1, "C"),
     ("Q♦", 12, "D"), ("J♥", 11, "H"), ("2C", 2, "C")],
)
def test_notation(text: str, rank: int, suit: str) -> None:
    assert parse_card(text) == Card(rank, suit)


@pytest.mark.parametrize(
    ("seq", "message"),
    [
        ("KS 9H KX", "card 3 'KX': unknown suit 'X'"),
        ("KS 1S", "card 2 '1S': unknown rank '1'"),
        ("KS 9H 3D 10", "card 4 '10': missing suit"),
        ("K", "card 1 'K': needs a rank and a suit, e.g. 'KS' or '9♥'"),
    ],
)
def test_bad_cards_name_position_and_problem(seq: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        parse_cards(seq)
    assert str(err.value) == message


def test_values() -> None:
    assert [c.baccarat_value for c in parse_cards("AS 9S TS JS QS KS")] == [1, 9, 0, 0, 0, 0]
    assert [c.blackjack_value for c in parse_cards("AS 9S TS KS")] == [1, 9, 10, 10]
    assert not parse_card("TS").is_face
    assert parse_card("JS").is_face


def test_shoe_limit() -> None:
    check_against_shoe(parse_cards("KS KS"), 2)
    with pytest.raises(InputError, match="card 4 'KS': copy 3 of KS, but a 2-deck shoe holds only 2"):
        check_against_shoe(parse_cards("KS 9H KS KS"), 2)


def test_a_combination_is_one_shape_from_the_profile_to_the_verdict() -> None:
    """The profile's, the oracle's and a command line's combination are one ``Combo``: a tuple of the king
    and the nine, written as the protocol writes it by ``codes()``."""
    from harness.cards import Combo
    from harness.games.royal9 import parse_combo

    combo = parse_combo("9H-KS")
    assert isinstance(combo, Combo) and combo == Combo(card_of("KS"), card_of("9H"))
    king, nine = combo
    assert (king.code, nine.code) == combo.codes() == ("KS", "9H") and combo.text() == "KS9H"
    assert combo == (card_of("KS"), card_of("9H"))  # a hand's (face, nine) key compares with it
    assert Combo.of_codes(["KS", "9H"]) == combo
    with pytest.raises(InputError, match="expected two cards"):
        Combo.of_codes(["KS"])
