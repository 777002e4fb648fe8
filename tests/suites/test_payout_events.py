"""Every ``payout`` event of a round is kept: a second settlement payout for the same seat and wager
type is the device paying twice, a FAIL of the expectation, never a silent replacement of the first;
a mystery award's payout (category mystery) is not a second settlement (docs/protocol.md, section 8)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.cards import parse_cards
from harness.devices.link import DeviceEvent
from harness.games.interpretations import Interpretations
from harness.profiles import load_profile
from harness.suites.load.model import Case, Step
from harness.suites.run.oracle import Oracle
from harness.suites.run.rig import Rig
from harness.suites.run.runner import CaseRunner
from harness.suites.steps.expect import expect_payout
from harness.suites.steps.payouts import paid_more_than_once, settlements

ROOT = Path(__file__).resolve().parents[2]
STEP = Step("expect_payout", {}, "<test>", 1, 1, "- expect_payout")


def _payout(seq: int, returned: int, category: str | None = "royal9", seat: int = 1, stake: int = 500,
            kind: str = "royal9") -> DeviceEvent:
    return DeviceEvent("payout", {"event": "payout", "seat": seat, "type": kind, "category": category,
                                  "stake": stake, "returned": returned, "paid_by": "table"}, seq, seq)


def _hit(seq: int, amount: int | None, category: str = "royal9", seat: int = 1) -> DeviceEvent:
    return DeviceEvent("hit", {"event": "hit", "seat": seat, "category": category, "meter": None,
                               "amount": amount}, seq, seq)


def _runner(events: list[DeviceEvent]) -> CaseRunner:
    profile = load_profile(ROOT / "device_profiles" / "emulated-midi-5.yaml")
    case = Case("t", "payouts", "payouts", ("pa-midi-r9-paytable-5",), frozenset(), frozenset(), (STEP,),
                "<test>", 1, timeout_s=10)
    runner = CaseRunner(case, Rig(), Oracle(profile, Interpretations.from_overrides(dict(profile.interpretations))))
    runner.round.settled = True
    runner.round.ctrl_events = list(events)
    return runner


def _failed(runner: CaseRunner) -> list[tuple[str, Any]]:
    return [(m.name, m.value) for m in runner.measured if not m.passed]


def test_a_second_payout_is_kept_not_replacing_the_first() -> None:
    paid = settlements([_payout(1, 3000), _payout(2, 0)])
    assert paid[(1, "royal9")].times == 2 and paid[(1, "royal9")].returned == 3000
    assert paid_more_than_once(paid) == ["seat 1 royal9: 2 payout events: royal9 returned 3000; royal9 returned 0"]


def test_paid_twice_is_a_fail_even_when_the_amounts_add_up() -> None:
    runner = _runner([_payout(1, 3000), _payout(2, 0)])
    expect_payout(runner, STEP, type="royal9", seat=1, returned=3000)
    assert _failed(runner) == [("seat 1 royal9 settled by one payout event", 2)]


def test_the_same_payout_twice_fails_the_amount_too() -> None:
    runner = _runner([_payout(1, 3000), _payout(2, 3000)])
    expect_payout(runner, STEP, type="royal9", seat=1, returned=3000)
    assert _failed(runner) == [("seat 1 royal9 settled by one payout event", 2), ("seat 1 royal9 returned", 6000)]


def test_a_second_payout_after_none_is_a_fail_of_paid_nothing() -> None:
    runner = _runner([_payout(1, 0, category=None), _payout(2, 0, category=None)])
    expect_payout(runner, STEP, type="royal9", seat=1, none=True)
    assert _failed(runner) == [("seat 1 royal9 settled by one payout event", 2)]


def test_a_mystery_award_is_not_a_second_settlement() -> None:
    runner = _runner([_payout(1, 25000, category="mystery", stake=0), _hit(2, 2500), _payout(3, 3000)])
    expect_payout(runner, STEP, type="royal9", seat=1, returned=3000, category="royal9")
    assert _failed(runner) == []
    assert [m.name for m in runner.measured] == ["seat 1 royal9 line royal9 announced by a hit event",
                                                 "seat 1 royal9 hit amount for line royal9",
                                                 "seat 1 royal9 returned", "seat 1 royal9 category"]


def test_the_oracle_comparison_sees_a_wager_paid_twice() -> None:
    # Q♥ 4♠ 9♦ 3♣: Player Q 9 (9), Banker 4 3 (7): a plain Royal 9 for seat 1 ($5 returns $30)
    events = [_payout(1, 3000), _payout(2, 3000)]
    runner = _runner(events)
    runner.round.wagers = {(1, "royal9"): 500}
    runner.round.cards = [(c, 0) for c in parse_cards(["QH", "4S", "9D", "3C"])]
    expect_payout(runner, STEP, type="royal9", oracle=True)
    names = [name for name, _ in _failed(runner)]
    assert names == ["seat 1 royal9 returned (oracle: royal9)", "seat 1 royal9 settled by one payout event"]
    runner.round.ctrl_events = [_hit(0, None), events[0]]
    runner.measured.clear()
    expect_payout(runner, STEP, type="royal9", oracle=True)
    assert _failed(runner) == []


def test_a_fixed_line_paid_without_its_hit_is_a_fail() -> None:
    # docs/protocol.md, section 8: a wager that wins a paytable line has the line announced by `hit`
    runner = _runner([_payout(1, 3000)])
    expect_payout(runner, STEP, type="royal9", seat=1, returned=3000)
    assert _failed(runner) == [("seat 1 royal9 line royal9 announced by a hit event", 0)]
    runner = _runner([_hit(1, 2500, seat=2), _hit(2, 2500, category="royal9-tie"), _payout(3, 3000)])
    expect_payout(runner, STEP, type="royal9", seat=1, returned=3000)
    assert _failed(runner) == [("seat 1 royal9 line royal9 announced by a hit event", 0)]


def test_a_fixed_line_hit_is_for_what_the_line_awards() -> None:
    # Hit and Run 5 cards at 2 to 1 (an odds line): $5 returns $15, the hit is for the $10 won or null
    for amount, ok in ((1000, True), (None, True), (2000, False), (1500, False)):
        runner = _runner([_hit(1, amount, category="5-cards"),
                          _payout(2, 1500, category="5-cards", kind="hit-and-run")])
        expect_payout(runner, STEP, type="hit-and-run", seat=1, returned=1500)
        assert _failed(runner) == ([] if ok else [("seat 1 hit-and-run hit amount for line 5-cards", amount)])


def test_a_meter_line_hit_announces_the_award_the_payout_pays() -> None:
    """A meter jackpot's hit names the award its payout pays (the payout meters book the hits), also
    where the meter resets at the hit; midi-5 returns the stake with an award (award-returns-stake)."""
    for amount, ok in ((5_000_000, True), (4_999_999, False), (5_000_500, False)):
        hit = DeviceEvent("hit", {"event": "hit", "seat": 2, "category": "mega", "meter": "mega", "amount": amount},
                          1, 1)
        runner = _runner([hit, _payout(2, 5_000_500, category="mega", seat=2)])
        expect_payout(runner, STEP, type="royal9", seat=2, returned=5_000_500)
        assert _failed(runner) == [("seat 2 royal9 meter line mega paid by", "table")] + (  # _payout: by table
            [] if ok else [("seat 2 royal9 hit amount for meter line mega (mega)", amount)])
    # announced with another line at the seat: the payout is their sum, no amount is judged
    both = [DeviceEvent("hit", {"event": "hit", "seat": 2, "category": "mega", "meter": "mega", "amount": 1}, 1, 1),
            _hit(2, 2_500, category="royal9", seat=2), _payout(3, 5_000_500, category="mega", seat=2)]
    runner = _runner(both)
    expect_payout(runner, STEP, type="royal9", seat=2, returned=5_000_500)
    assert not [m for m in runner.measured if "hit amount for meter line" in m.name]


def test_a_meter_line_and_a_losing_wager_need_no_fixed_line_hit() -> None:
    mega = DeviceEvent("payout", {**_payout(3, 5000500, category="mega", seat=2).payload, "paid_by": "attendant"}, 3, 3)
    runner = _runner([_payout(1, 0, category=None), _payout(2, 0, category="lose", kind="player"), mega])
    expect_payout(runner, STEP, type="royal9", seat=1, none=True)
    expect_payout(runner, STEP, type="royal9", seat=2, returned=5000500)
    expect_payout(runner, STEP, type="player", seat=1, returned=0)
    assert _failed(runner) == []


def test_a_wager_that_won_several_lines_has_each_announced_not_each_amount_judged() -> None:
    # r9-one-award-per-wager false: suited royal 9 and royal 9 both paid on one wager, one payout
    runner = _runner([_hit(1, 7500, category="suited-royal9"), _hit(2, 2500), _payout(3, 10500,
                                                                                     category="suited-royal9")])
    expect_payout(runner, STEP, type="royal9", seat=1, returned=10500)
    assert _failed(runner) == []
    assert runner.measured[0].name == "seat 1 royal9 line suited-royal9 announced by a hit event"


def test_a_losing_royal9_settlement_where_no_wager_was_placed_is_a_fail() -> None:
    # docs/protocol.md, section 8: one settlement payout per accepted wager; an award (envy) may go
    # to a seat without a wager where the Rules Submission pays it so, a lost "wager" may not
    runner = _runner([_payout(1, 0, category=None, seat=2), _payout(2, 2500, category="mega-envy", seat=3, stake=0)])
    runner.round.wagers = {}
    runner.round.cards = [(c, 0) for c in parse_cards(["2H", "3C", "5D", "6S"])]
    expect_payout(runner, STEP, type="royal9", oracle=True)
    assert ("no Royal 9 wager settled at a seat where none was placed", "seat 2") in _failed(runner)
    assert not any("seat 3" in str(value) for name, value in _failed(runner) if name.startswith("no Royal 9"))


def test_a_royal9_payout_names_the_stake_the_table_accepted() -> None:
    # Q♥ 4♠ 9♦ 3♣: a plain Royal 9 for seat 1 ($5 returns $30)
    runner = _runner([_hit(0, None), _payout(1, 3000, stake=501)])
    runner.round.wagers = {(1, "royal9"): 500}
    runner.round.cards = [(c, 0) for c in parse_cards(["QH", "4S", "9D", "3C"])]
    expect_payout(runner, STEP, type="royal9", oracle=True)
    assert _failed(runner) == [("seat 1 royal9 payout stake (the wager accepted)", "501")]
    # an award at a seat that placed no Royal 9 wager (envy paid without one) names stake 0
    runner.round.ctrl_events = [_hit(0, None), _payout(1, 3000), _payout(2, 0, category=None, seat=2, stake=1)]
    runner.measured.clear()
    expect_payout(runner, STEP, type="royal9", oracle=True)
    assert ("seat 2 royal9 payout stake (the wager accepted)", "1") in _failed(runner)
    runner.round.ctrl_events = [_hit(0, None), _payout(1, 3000)]
    runner.measured.clear()
    expect_payout(runner, STEP, type="royal9", oracle=True)
    assert _failed(runner) == []


def test_an_accepted_wager_the_round_settles_without_a_payout_fails_under_the_settlement_clause() -> None:
    # docs/protocol.md section 8: every wager on the layout is settled by its one payout; a table that
    # drops one (a layout full at sixteen wagers) breaks that clause, whatever else the case checks
    runner = _runner([])
    runner.round.wagers = {(1, "royal9"): 500}
    runner.round.cards = [(c, 0) for c in parse_cards(["QH", "4S", "9D", "3C"])]
    expect_payout(runner, STEP, type="royal9", oracle=True)
    (missing,) = [m for m in runner.measured if m.name == "seat 1 royal9 settled by one payout event"]
    assert not missing.passed and missing.value == 0
    assert missing.clause.split(",") == ["pa-midi-r9-paytable-5", "contract-8-settlement-order"]
    runner.round.ctrl_events = [_hit(0, None), _payout(1, 3000)]
    runner.measured.clear()
    expect_payout(runner, STEP, type="royal9", oracle=True)
    assert _failed(runner) == []
