"""WAC 230-15-040(8)(b): the Mini-Baccarat three-consecutive-games wager."""

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.cards import parse_cards
from harness.errors import InputError
from harness.games.baccarat import deal_round
from harness.games.payouts import Pay
from harness.games.streak import STREAK_LENGTH, TIE_RULES, resolve_streak3, settle_streak3, tie_rule_of

PAY = Pay("to", Decimal(7))


@pytest.mark.parametrize(
    ("wager", "winners", "result", "rounds", "wins"),
    [
        ("streak3-player", ["player", "player", "player"], "win", 3, 3),
        ("streak3-player", ["player", "player", "player", "banker"], "win", 3, 3),
        ("streak3-player", ["player", "banker", "player"], "lose", 2, 1),
        ("streak3-player", ["banker"], "lose", 1, 0),
        ("streak3-player", ["player", "player"], "open", 2, 2),
        ("streak3-player", [], "open", 0, 0),
        ("streak3-banker", ["banker", "banker", "banker"], "win", 3, 3),
        ("streak3-banker", ["banker", "banker", "player"], "lose", 3, 2),
        # wa-streak3-tie default "loses": a tie is a game the chosen hand did not win
        ("streak3-banker", ["banker", "tie", "banker", "banker"], "lose", 2, 1),
    ],
)
def test_resolve(wager: str, winners: list[str], result: str, rounds: int, wins: int) -> None:
    res = resolve_streak3(wager, winners)
    assert (res.wager, res.result, res.rounds, res.wins) == (wager, result, rounds, wins)


def test_tie_rules() -> None:
    seq = ["player", "tie", "player", "tie", "player"]
    lost = resolve_streak3("streak3-player", seq)
    assert (lost.result, lost.rounds, lost.wins) == ("lose", 2, 1)
    pushed = resolve_streak3("streak3-player", seq, tie_rule="push")
    assert (pushed.result, pushed.rounds, pushed.wins) == ("push", 2, 1)
    assert resolve_streak3("streak3-banker", ["tie"], tie_rule="push").result == "push"
    # a tie that would not count as a game is no reading: it would let the wager ride past three deals
    assert TIE_RULES == ("loses", "push")
    with pytest.raises(InputError, match="wa-streak3-tie 'skip'"):
        resolve_streak3("streak3-player", seq, tie_rule="skip")  # type: ignore[arg-type]


def test_tie_rule_in_force() -> None:
    assert tie_rule_of({}) == "loses"
    assert tie_rule_of({"wa-streak3-tie": "push", "other": True}) == "push"
    with pytest.raises(InputError, match="expected one of loses, push"):
        tie_rule_of({"wa-streak3-tie": "skip"})


def test_settle_from_dealt_rounds() -> None:
    player_win = deal_round(parse_cards("4S KH 3D 6C"))
    banker_win = deal_round(parse_cards("AS 5D 2H 8S 8C"))
    res, s = settle_streak3("streak3-player", [player_win] * 3, 500, PAY)
    assert res.result == "win" and s is not None and s.returned == 500 + 7 * 500
    res, s = settle_streak3("streak3-player", [player_win, banker_win], 500, PAY)
    assert res.result == "lose" and s is not None and s.returned == 0
    res, s = settle_streak3("streak3-player", [player_win], 500, PAY)
    assert res.result == "open" and s is None
    res, s = settle_streak3("streak3-banker", [banker_win, "tie"], 500, PAY, tie_rule="push")
    assert res.result == "push" and s is not None and s.returned == 500


def test_rejects() -> None:
    with pytest.raises(InputError, match="expected one of streak3-player, streak3-banker"):
        resolve_streak3("streak3-tie", [])
    with pytest.raises(InputError, match="wa-streak3-tie 'maybe'"):
        resolve_streak3("streak3-player", [], tie_rule="maybe")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="round 2: winner 'dragon'"):
        resolve_streak3("streak3-player", ["player", "dragon"])
    with pytest.raises(InputError, match="positive amount"):
        settle_streak3("streak3-player", [], -5, PAY)


@given(st.lists(st.sampled_from(["player", "banker", "tie"]), max_size=8), st.sampled_from(TIE_RULES),
       st.sampled_from(["streak3-player", "streak3-banker"]))
def test_every_tie_rule_decides_within_three_rounds(winners: list[str], tie_rule: str, wager: str) -> None:
    """(8)(b) excepts "the next three consecutive games" from single-deal resolution, no more."""
    side = wager.removeprefix("streak3-")
    res = resolve_streak3(wager, winners, tie_rule=tie_rule)  # type: ignore[arg-type]
    assert res.rounds <= STREAK_LENGTH
    if len(winners) >= STREAK_LENGTH:
        assert res.result != "open"
        assert (res.result == "win") == (winners[:3] == [side] * 3)
    if res.result == "push":
        assert tie_rule == "push" and winners[res.rounds - 1] == "tie"
    if res.result == "open":
        assert winners == [side] * len(winners) and len(winners) < STREAK_LENGTH
