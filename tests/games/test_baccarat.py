"""The punto banco / EZ Baccarat round oracle and its wager settlement.

Every tableau cell is checked against a table written out here by hand from the punto banco rules, and
random 8-deck shoes are checked against an independent, deliberately plain re-statement of the
rules inside this file.
"""

import random
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.cards import SUITS, Card, parse_cards
from harness.errors import InputError
from harness.games.baccarat import BaccaratRound, commission_cents, deal_round, ez_paytable, settle_wager
from harness.games.payouts import Pay

# Banker's two-card total -> Player's third-card values on which Banker draws (the punto banco tableau).
BANKER_DRAWS_ON = {
    0: "0123456789",
    1: "0123456789",
    2: "0123456789",
    3: "012345679",
    4: "234567",
    5: "4567",
    6: "67",
    7: "",
}
# a card of each baccarat value (value 0 as a king)
VALUE_CARD = {0: "KD", 1: "AD", 2: "2D", 3: "3D", 4: "4D", 5: "5D", 6: "6D", 7: "7D", 8: "8D", 9: "9D"}


def cards_for(player2: tuple[int, int], banker2: tuple[int, int], *rest: int) -> list[Card]:
    p1, p2 = player2
    b1, b2 = banker2
    order = [p1, b1, p2, b2, *rest]
    return parse_cards([VALUE_CARD[v] for v in order])


@pytest.mark.parametrize("banker_total", range(8))
@pytest.mark.parametrize("p3", range(10))
def test_tableau_cell_after_player_draws(banker_total: int, p3: int) -> None:
    # Player 2 + 2 = 4 draws; Banker K + banker_total.
    cards = cards_for((2, 2), (0, banker_total), p3, 5)
    rnd = deal_round(cards)
    draws = str(p3) in BANKER_DRAWS_ON[banker_total]
    assert len(rnd.player) == 3
    assert rnd.player_total == (4 + p3) % 10
    assert len(rnd.banker) == (3 if draws else 2)
    assert rnd.cards_used == (6 if draws else 5)
    assert rnd.banker_total == ((banker_total + 5) % 10 if draws else banker_total)
    if draws:
        with pytest.raises(InputError) as err:
            deal_round(cards[:5])
        assert str(err.value) == (
            f"round needs a 6th card: Banker draws on {banker_total} against Player's third card {p3}"
        )
    else:
        assert deal_round(cards[:5]) == rnd


@pytest.mark.parametrize("player_total", [6, 7])
@pytest.mark.parametrize("banker_total", range(8))
def test_player_stands_banker_draws_on_0_to_5(player_total: int, banker_total: int) -> None:
    cards = cards_for((0, player_total), (0, banker_total), 3, 9)
    rnd = deal_round(cards)
    assert len(rnd.player) == 2 and rnd.player_total == player_total
    if banker_total <= 5:
        assert rnd.cards_used == 5
        assert rnd.banker == (cards[1], cards[3], cards[4])
        assert rnd.banker_total == (banker_total + 3) % 10
        with pytest.raises(InputError, match=r"^round needs a 5th card: Banker draws on "):
            deal_round(cards[:4])
    else:
        assert rnd.cards_used == 4 and rnd.banker_total == banker_total


@pytest.mark.parametrize("player_total", range(6))
def test_player_draws_on_0_to_5(player_total: int) -> None:
    cards = cards_for((0, player_total), (0, 7), 1)
    assert deal_round(cards).player_total == (player_total + 1) % 10
    with pytest.raises(InputError) as err:
        deal_round(cards[:4])
    assert str(err.value) == f"round needs a 5th card: Player draws on {player_total}"


@pytest.mark.parametrize(("p", "b", "winner"), [(8, 0, "player"), (9, 8, "player"), (0, 9, "banker"),
                                                (3, 8, "banker"), (8, 8, "tie"), (9, 9, "tie")])
def test_natural_stops_the_deal(p: int, b: int, winner: str) -> None:
    rnd = deal_round(cards_for((0, p), (0, b)))
    assert rnd.natural and rnd.cards_used == 4 and rnd.winner == winner
    assert (rnd.player_total, rnd.banker_total) == (p, b)
    assert not rnd.dragon7 and not rnd.panda8


def test_short_sequence() -> None:
    with pytest.raises(InputError) as err:
        deal_round(parse_cards("KS 9H 3D"))
    assert str(err.value) == "round needs 4 cards, got 3"
    with pytest.raises(InputError, match="round needs 4 cards, got 0"):
        deal_round([])


def test_hand_checked_rounds() -> None:
    # P: 4S 3D = 7 stands; B: KH 6C = 6 stands -> Player 7 beats 6.
    rnd = deal_round(parse_cards("4S KH 3D 6C 9S 9S"))
    assert (rnd.winner, rnd.player_total, rnd.banker_total, rnd.cards_used) == ("player", 7, 6, 4)
    assert rnd.first_four() == tuple(parse_cards("4S KH 3D 6C"))
    # P: AS 2H = 3 draws 8C -> 1; B: 5D 8S = 3, Player's third 8: Banker stands -> Banker 3 wins.
    rnd = deal_round(parse_cards("AS 5D 2H 8S 8C 4D"))
    assert (rnd.winner, rnd.player_total, rnd.banker_total, rnd.cards_used) == ("banker", 1, 3, 5)
    # P: TS 5H = 5 draws 4C -> 9; B: 2D 2S = 4 draws on 4: QH -> 4. Player 9.
    rnd = deal_round(parse_cards("TS 2D 5H 2S 4C QH"))
    assert (rnd.winner, rnd.player_total, rnd.banker_total, rnd.cards_used) == ("player", 9, 4, 6)
    assert rnd.player == tuple(parse_cards("TS 5H 4C")) and rnd.banker == tuple(parse_cards("2D 2S QH"))


def test_dragon7_and_panda8_flags() -> None:
    # P 4+2 = 6 stands; B 0+5 = 5 draws 2 -> three-card 7 beats 6: Dragon 7.
    d7 = deal_round(parse_cards("4S KS 2H 5H 2D"))
    assert (d7.winner, d7.banker_total, d7.dragon7, d7.panda8) == ("banker", 7, True, False)
    # Three-card 7 against Player 7 is a tie, not a Dragon 7; a two-card 7 is not one either.
    assert not deal_round(parse_cards("4S KS 3H 5H 2D")).dragon7
    assert not deal_round(parse_cards("4S KS 2H 7H")).dragon7
    # P 2+3 = 5 draws 3 -> 8; B 0+0 draws 5 -> 5: Panda 8.
    p8 = deal_round(parse_cards("2S KS 3H KH 3D 5C"))
    assert (p8.winner, p8.player_total, p8.panda8, p8.dragon7) == ("player", 8, True, False)
    # Banker reaching 8 or 9 with its third card: no Panda 8.
    assert not deal_round(parse_cards("2S KS 3H KH 3D 8C")).panda8
    assert not deal_round(parse_cards("2S KS 3H KH 3D 9C")).panda8
    # A two-card 8 is a natural, not a Panda 8.
    assert not deal_round(parse_cards("4S KS 4H KH")).panda8


# --- settlement ---------------------------------------------------------------------------------

PLAYER_WIN = deal_round(parse_cards("4S KH 3D 6C"))  # 7 v 6
BANKER_WIN = deal_round(parse_cards("AS 5D 2H 8S 8C"))  # 1 v 3
TIE = deal_round(parse_cards("KS KH 7D 7C"))  # 7 v 7
DRAGON7 = deal_round(parse_cards("4S KS 2H 5H 2D"))
PANDA8 = deal_round(parse_cards("2S KS 3H KH 3D 5C"))


def returned(rnd: BaccaratRound, wager: str, stake: int, **kw: object) -> tuple[str, int]:
    label, s = settle_wager(rnd, wager, stake, **kw)  # type: ignore[arg-type]
    assert s.stake == stake
    return label, s.returned


def test_player_and_banker() -> None:
    assert returned(PLAYER_WIN, "player", 1000) == ("win", 2000)
    assert returned(PLAYER_WIN, "banker", 1000) == ("lose", 0)
    assert returned(BANKER_WIN, "banker", 1000) == ("win", 1950)
    assert returned(BANKER_WIN, "player", 1000) == ("lose", 0)
    assert returned(BANKER_WIN, "banker", 1000, commission=Decimal(4)) == ("win", 1960)
    # EZ: no commission, Dragon 7 pushes the Banker wager, Panda 8 is an ordinary Player win.
    assert returned(BANKER_WIN, "banker", 1000, game="ez-baccarat") == ("win", 2000)
    assert returned(DRAGON7, "banker", 1000, game="ez-baccarat") == ("push", 1000)
    assert returned(DRAGON7, "banker", 1000) == ("win", 1950)
    assert returned(DRAGON7, "player", 1000, game="ez-baccarat") == ("lose", 0)
    assert returned(PANDA8, "player", 1000, game="ez-baccarat") == ("win", 2000)


def test_commission_rounding() -> None:
    # 5% of 30 cents is 1.5 cents: rounded down by default (bac-commission-rounding).
    assert commission_cents(30, Decimal(5)) == 1
    assert commission_cents(30, Decimal(5), "up") == 2
    assert commission_cents(2500, Decimal(5)) == 125
    assert returned(BANKER_WIN, "banker", 30) == ("win", 59)
    assert returned(BANKER_WIN, "banker", 30, commission_rounding="up") == ("win", 58)


def test_tie() -> None:
    assert returned(TIE, "tie", 500) == ("win", 4500)
    assert returned(TIE, "player", 500) == ("push", 500)
    assert returned(TIE, "banker", 500) == ("push", 500)
    assert returned(TIE, "banker", 500, game="ez-baccarat") == ("push", 500)
    assert returned(PLAYER_WIN, "tie", 500) == ("lose", 0)


def test_ez_paytable_is_the_regulation_s() -> None:
    # 627a.12(f)-(g): Dragon 7 at 40 to 1, Panda 8 at 25 to 1 (catalogue pa-ez-dragon7 / pa-ez-panda8)
    assert ez_paytable() == {"dragon7": Pay("to", Decimal(40)), "panda8": Pay("to", Decimal(25))}


def test_ez_insurance() -> None:
    assert returned(DRAGON7, "dragon7", 500, game="ez-baccarat") == ("win", 500 + 40 * 500)
    assert returned(PANDA8, "panda8", 500, game="ez-baccarat") == ("win", 500 + 25 * 500)
    assert returned(PANDA8, "dragon7", 500, game="ez-baccarat") == ("lose", 0)
    assert returned(DRAGON7, "panda8", 500, game="ez-baccarat") == ("lose", 0)
    assert returned(TIE, "dragon7", 500, game="ez-baccarat") == ("lose", 0)


def test_ez_interpretation_overrides() -> None:
    seven_tie = deal_round(parse_cards("4S KS 3H 5H 2D"))  # Player 7, Banker 5 + 2 = three-card 7
    assert seven_tie.winner == "tie" and not seven_tie.dragon7
    assert returned(seven_tie, "dragon7", 500, game="ez-baccarat") == ("lose", 0)
    assert returned(seven_tie, "dragon7", 500, game="ez-baccarat",
                    dragon7_definition="banker-three-card-7") == ("win", 20500)
    assert returned(DRAGON7, "dragon7", 500, game="ez-baccarat",
                    dragon7_definition="banker-three-card-7") == ("win", 20500)
    assert returned(PANDA8, "player", 500, game="ez-baccarat", player_on_panda8="push") == ("push", 500)
    assert returned(PANDA8, "player", 500, player_on_panda8="push") == ("win", 1000)  # not EZ


@pytest.mark.parametrize(
    ("wager", "stake", "kw", "message"),
    [
        ("dragon7", 500, {}, "offered only on an EZ Baccarat table"),
        ("royal9", 500, {}, "not a baccarat wager"),
        ("player", 0, {}, "expected a positive amount"),
        ("player", 500, {"game": "blackjack"}, "expected 'baccarat' or 'ez-baccarat'"),
        ("banker", 500, {"commission": Decimal(101)}, "must be between 0% and 100%"),
    ],
)
def test_settle_rejects(wager: str, stake: int, kw: dict[str, object], message: str) -> None:
    with pytest.raises(InputError, match=message):
        settle_wager(PLAYER_WIN, wager, stake, **kw)  # type: ignore[arg-type]


# --- random shoes against an independent re-statement ------------------------------------------

SHOE_8 = [Card(r, s) for r in range(1, 14) for s in SUITS] * 8


def plain_value(c: Card) -> int:
    return 0 if c.rank >= 10 else c.rank


def plain_round(cards: list[Card]) -> tuple[list[Card], list[Card]]:
    """The punto banco rules as written, with no shared tables."""
    player = [cards[0], cards[2]]
    banker = [cards[1], cards[3]]
    nxt = 4

    def total(hand: list[Card]) -> int:
        return sum(plain_value(c) for c in hand) % 10

    if total(player) in (8, 9) or total(banker) in (8, 9):
        return player, banker
    third = None
    if total(player) <= 5:
        player.append(cards[nxt])
        third = plain_value(cards[nxt])
        nxt += 1
    b = total(banker)
    if third is None:
        draw = b <= 5
    elif b <= 2:
        draw = True
    elif b == 3:
        draw = third != 8
    elif b == 4:
        draw = third in (2, 3, 4, 5, 6, 7)
    elif b == 5:
        draw = third in (4, 5, 6, 7)
    elif b == 6:
        draw = third in (6, 7)
    else:
        draw = False
    if draw:
        banker.append(cards[nxt])
    return player, banker


@settings(max_examples=600, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(min_value=0, max_value=3))
def test_random_shoes_match_plain_rules(rng: random.Random, extra: int) -> None:
    cards = rng.sample(SHOE_8, 6 + extra)
    rnd = deal_round(cards)
    player, banker = plain_round(cards)
    pt = sum(plain_value(c) for c in player) % 10
    bt = sum(plain_value(c) for c in banker) % 10
    assert rnd.player == tuple(player) and rnd.banker == tuple(banker)
    assert (rnd.player_total, rnd.banker_total) == (pt, bt)
    assert 0 <= rnd.player_total < 10 and 0 <= rnd.banker_total < 10
    assert rnd.cards_used == len(player) + len(banker) and rnd.cards_used in (4, 5, 6)
    assert rnd.winner == ("player" if pt > bt else "banker" if bt > pt else "tie")
    first = [plain_value(c) for c in cards[:4]]
    assert rnd.natural == ((first[0] + first[2]) % 10 >= 8 or (first[1] + first[3]) % 10 >= 8)
    assert rnd.dragon7 == (len(banker) == 3 and bt == 7 and pt < 7)
    assert rnd.panda8 == (len(player) == 3 and pt == 8 and bt < 8)
    assert rnd.first_four() == tuple(cards[:4])
    # exactly the cards used are needed; one fewer names the missing card
    assert deal_round(cards[: rnd.cards_used]) == rnd
    if rnd.cards_used > 4:
        with pytest.raises(InputError, match=rf"^round needs a {rnd.cards_used}th card: "):
            deal_round(cards[: rnd.cards_used - 1])


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(min_value=1, max_value=1_000_000))
def test_random_settlement_is_consistent(rng: random.Random, stake: int) -> None:
    rnd = deal_round(rng.sample(SHOE_8, 6))
    for wager in ("player", "banker", "tie"):
        label, s = settle_wager(rnd, wager, stake)
        ez_label, ez = settle_wager(rnd, wager, stake, game="ez-baccarat")
        assert label in ("win", "lose", "push") and s.returned >= 0
        if wager == "banker" and rnd.winner == "banker":
            assert s.net == stake - commission_cents(stake, Decimal(5))
            assert ez_label == ("push" if rnd.dragon7 else "win")
            assert ez.net == (0 if rnd.dragon7 else stake)
        else:
            assert (ez_label, ez) == (label, s)
    total_insurance = sum(
        settle_wager(rnd, w, stake, game="ez-baccarat")[1].net for w in ("dragon7", "panda8")
    )
    expected = (40 * stake if rnd.dragon7 else -stake) + (25 * stake if rnd.panda8 else -stake)
    assert total_insurance == expected
