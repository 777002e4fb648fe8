"""The emulated Mini-Baccarat three-consecutive-games wager (Wash. Admin. Code 230-15-040(8)(b)):
placed like any wager, riding on the layout between its games, settled by the oracle, never in a
fourth game; kept in non-volatile storage over a power cycle."""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

import pytest
from emu_helpers import Bench, bench

#: natural-free rounds with a known winner (P 7 v B 6; P 3+8=1 v B 3; a natural 9-9 tie)
PLAYER = ["4S", "KH", "3D", "6C"]
BANKER = ["AS", "5D", "2H", "8S", "8C"]
TIE = ["KC", "AH", "9D", "8D"]
ROUND = {"player": PLAYER, "banker": BANKER, "tie": TIE}

MINI: dict[str, Any] = {
    "game": "minibaccarat",
    "rules": {"decks": 8, "commission": "5%", "seats": [{"seat": 1}, {"seat": 2}, {"seat": 4}],
              "streak3": {"pays": "7 to 1"}},
    "emulator": {"lockout_latency_us": 0, "deal_pace_us": 0, "seed": 3},
}


def mini(*, defect: str | None = None, tie: str | None = None, pays: str | None = "7 to 1",
         game: str = "minibaccarat") -> dict[str, Any]:
    p = copy.deepcopy(MINI)
    p["game"] = game
    if pays is None:
        del p["rules"]["streak3"]
    else:
        p["rules"]["streak3"]["pays"] = pays
    if defect:
        p["emulator"]["defect"] = defect
    if tie:
        p["interpretations"] = {"wa-streak3-tie": tie}
    return p


def play(b: Bench, winner: str) -> list[dict[str, Any]]:
    """Open a round, deal one with that winner, return the controller events of the round."""
    b.ok("controller", "round.open")
    return deal(b, winner)


def deal(b: Bench, winner: str) -> list[dict[str, Any]]:
    start = len(b.events)
    b.deal(ROUND[winner])
    deadline = time.monotonic() + 2.0
    while not any(ev["event"] == "round_end" for _, ev in b.events[start:]):
        assert time.monotonic() < deadline, "the round was not settled within 2 s"
        time.sleep(0.0005)
    return [ev for role, ev in b.events[start:] if role == "controller" and ev["event"] in ("payout", "wager_rides")]


def listed(b: Bench) -> list[dict[str, Any]]:
    return list(b.ok("sensors", "wager.list")["wagers"])


def test_a_player_streak_rides_three_games_and_is_paid_then_leaves() -> None:
    with bench(mapping=mini()) as b:
        b.ok("controller", "round.open")
        assert b.wager(2, "streak3-player", 500) is None
        assert listed(b) == [{"seat": 2, "type": "streak3-player", "amount": 500, "games": 0}]
        assert deal(b, "player") == [{"event": "wager_rides", "seat": 2, "type": "streak3-player", "games": 1,
                                      "wins": 1}]
        b.ok("controller", "round.open")  # the next round does not clear it
        assert listed(b) == [{"seat": 2, "type": "streak3-player", "amount": 500, "games": 1}]
        assert b.wager(2, "streak3-player", 1000) == "riding"
        refusal = b.refused("sensors", "wager.remove", seat=2, type="streak3-player")
        assert (refusal.code, refusal.reason) == ("REFUSED", "riding")
        assert b.wager(1, "streak3-player", 500) is None  # another seat starts its own streak
        events = deal(b, "player")
        assert {"event": "wager_rides", "seat": 2, "type": "streak3-player", "games": 2, "wins": 2} in events
        assert {"event": "wager_rides", "seat": 1, "type": "streak3-player", "games": 1, "wins": 1} in events
        b.ok("controller", "round.open")
        events = deal(b, "player")
        assert {"event": "payout", "seat": 2, "type": "streak3-player", "category": "win", "stake": 500,
                "returned": 4000, "paid_by": "table"} in events
        assert [e["seat"] for e in events if e["event"] == "wager_rides"] == [1]
        assert [w["seat"] for w in listed(b)] == [1]
        events = play(b, "player")  # the fourth game is seat 1's third; seat 2 is no longer in play
        assert [(e["event"], e["seat"]) for e in events] == [("payout", 1)]
        assert listed(b) == []
        assert play(b, "player") == []


def test_a_banker_streak_loses_in_its_second_game_and_takes_no_third() -> None:
    with bench(mapping=mini()) as b:
        b.ok("controller", "round.open")
        b.wager(4, "streak3-banker", 2500)
        assert deal(b, "banker")[0]["event"] == "wager_rides"
        events = play(b, "player")
        assert events == [{"event": "payout", "seat": 4, "type": "streak3-banker", "category": "lose",
                           "stake": 2500, "returned": 0, "paid_by": "table"}]
        assert listed(b) == [] and play(b, "banker") == []


@pytest.mark.parametrize(("tie", "category", "returned"), [(None, "lose", 0), ("loses", "lose", 0),
                                                            ("push", "push", 500)])
def test_a_tie_in_the_streak_follows_wa_streak3_tie(tie: str | None, category: str, returned: int) -> None:
    with bench(mapping=mini(tie=tie)) as b:
        b.ok("controller", "round.open")
        b.wager(1, "streak3-banker", 500)
        deal(b, "banker")
        (event,) = play(b, "tie")
        assert (event["event"], event["category"], event["returned"]) == ("payout", category, returned)
        assert listed(b) == []


@pytest.mark.parametrize("pays", ["8 for 1", "5 to 1"])
def test_the_pay_is_the_rules_submissions(pays: str) -> None:
    with bench(mapping=mini(pays=pays)) as b:
        b.ok("controller", "round.open")
        b.wager(1, "streak3-player", 500)
        deal(b, "player")
        play(b, "player")
        (event,) = play(b, "player")
        assert event["returned"] == (4000 if pays == "8 for 1" else 3000)


def test_placed_with_the_refusals_of_any_wager() -> None:
    with bench(mapping=mini()) as b:
        assert b.wager(1, "streak3-player", 500) == "locked-out"
        b.ok("controller", "round.open")
        assert b.wager(3, "streak3-player", 500) == "bad-seat"
        assert b.wager(1, "streak3-banker", 0) == "bad-amount"
        assert b.wager(1, "streak3-banker", 500) is None
        assert b.ok("sensors", "wager.remove", seat=1, type="streak3-banker") == {"removed": True}
        b.ok("controller", "round.no_more_bets")
        assert b.wager(1, "streak3-banker", 500) == "no-more-bets"
        b.ok("controller", "round.settle")  # no card: the round is void
        b.ok("controller", "round.open")
        b.ok("controller", "test.link", up=False)
        assert b.wager(1, "streak3-banker", 500) == "comm-lost"


@pytest.mark.parametrize("mapping", [mini(pays=None), mini(game="midibaccarat"), mini(game="baccarat")],
                         ids=["mini-without-streak3", "midibaccarat", "baccarat"])
def test_offered_only_on_a_mini_baccarat_table_that_submits_it(mapping: dict[str, Any]) -> None:
    with bench(mapping=mapping) as b:
        b.ok("controller", "round.open")
        assert b.wager(1, "streak3-player", 500) == "disabled"


def test_a_riding_wager_is_kept_over_a_power_cycle(tmp_path: Path) -> None:
    with bench(mapping=mini(), nv_path=tmp_path / "nv.json") as b:
        b.ok("controller", "round.open")
        b.wager(1, "streak3-player", 500)
        deal(b, "player")
        b.table.set_power(False)
        b.table.set_power(True)
        assert listed(b) == [{"seat": 1, "type": "streak3-player", "amount": 500, "games": 1}]
        play(b, "player")
        assert play(b, "player")[0]["returned"] == 4000


def test_a_wager_placed_for_a_round_that_never_dealt_is_not_riding() -> None:
    with bench(mapping=mini()) as b:
        b.ok("controller", "round.open")
        b.wager(1, "streak3-player", 500)
        b.ok("controller", "round.settle")  # void: no game was played
        assert listed(b) == []


# -- the defects ------------------------------------------------------------------------------------

def test_defect_rides_a_fourth_game() -> None:
    with bench(mapping=mini(defect="streak3-rides-a-fourth-game")) as b:
        b.ok("controller", "round.open")
        b.wager(1, "streak3-player", 500)
        for _ in range(2):
            deal(b, "player")
            b.ok("controller", "round.open")
        assert deal(b, "player")[0] == {"event": "wager_rides", "seat": 1, "type": "streak3-player", "games": 3,
                                        "wins": 3}
        assert play(b, "banker")[0]["category"] == "lose"


def test_defect_settled_in_one_deal() -> None:
    with bench(mapping=mini(defect="streak3-settled-in-one-deal")) as b:
        b.ok("controller", "round.open")
        b.wager(1, "streak3-player", 500)
        assert deal(b, "player")[0]["returned"] == 4000
        assert listed(b) == []


def test_defect_removable_while_riding() -> None:
    with bench(mapping=mini(defect="streak3-removable-while-riding")) as b:
        b.ok("controller", "round.open")
        b.wager(1, "streak3-player", 500)
        deal(b, "player")
        b.ok("controller", "round.open")
        assert b.ok("sensors", "wager.remove", seat=1, type="streak3-player") == {"removed": True}
        assert deal(b, "player") == []


def test_defect_cleared_at_round_open() -> None:
    with bench(mapping=mini(defect="streak3-cleared-at-round-open")) as b:
        b.ok("controller", "round.open")
        b.wager(1, "streak3-player", 500)
        deal(b, "player")
        assert listed(b) != []
        b.ok("controller", "round.open")
        assert listed(b) == [] and deal(b, "player") == []


def test_defect_lost_at_power_off(tmp_path: Path) -> None:
    with bench(mapping=mini(defect="streak3-lost-at-power-off"), nv_path=tmp_path / "nv.json") as b:
        b.ok("controller", "round.open")
        b.wager(1, "streak3-player", 500)
        deal(b, "player")
        b.table.set_power(False)
        b.table.set_power(True)
        assert listed(b) == []
