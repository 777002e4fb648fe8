"""The model's wider reach: configuration writes in every state, per-meter payout limits and reset
amounts, the denomination in force for Royal 9 wagers, a controller reboot, a misread first card, the
link back mid-round, a wager placed again after no more bets, the Banker commission, and the answer
deadline of every read (pure: no device, no process)."""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

import pytest

from harness.cards import shoe_composition
from harness.explore import answer_times
from harness.explore import rules as R
from harness.explore.answer_times import AnswerClock
from harness.explore.draws import Draws
from harness.explore.judge import Observed, differences, judge
from harness.explore.model import Permitted, TableModel
from harness.explore.ops import (
    Comm,
    ConfigWrite,
    DealFirst,
    DealMisread,
    DealRest,
    LoadShoe,
    NoMoreBets,
    Op,
    OpenRound,
    PlaceWager,
    PowerCycle,
    PressLockout,
    Reboot,
    RemoveWager,
    ResetKey,
    op_text,
    parse_op,
)
from harness.explore.state import State
from harness.games.baccarat import deal_round
from harness.profiles.load import load_profile

MIDI5 = load_profile("device_profiles/emulated-midi-5.yaml")
# seat 1's personal king-9 (KS 9S) on the Banker hand: the major jackpot
MAJOR_HIT = ("2H", "KS", "3D", "9S", "4C", "5H")


def play(model: TableModel, s: State, *ops: Op, choice: str | None = None) -> State:
    for op in ops:
        outs = model.step(s, op)
        pick = next((o for o in outs if o.choice == choice), outs[0]) if choice else outs[0]
        s = pick.state
    return s


def taken(model: TableModel, s: State, op: Op) -> State:
    return play(model, s, op, choice="config write in range taken")


def shown(s: State, **fields: Any) -> Observed:
    """What a device that took state ``s`` shows (every observable as the model has it)."""
    base = Observed(code="ok", config=None, meters={n: m.amount for n, m in s.meters.items()},
                    residual={n: m.residual for n, m in s.meters.items()},
                    diverted={n: m.diverted for n, m in s.meters.items()},
                    layout=tuple(sorted((seat, kind, a) for (seat, kind), a in s.layout.items())),
                    locked=s.locked, cause=s.cause if s.locked else None, pending=s.pending,
                    cumulative_paid=s.cumulative_paid, paid_by_table=s.paid_by_table,
                    paid_by_attendant=s.paid_by_attendant)
    return Observed(**{**base.__dict__, **fields})


def lock(locked: bool, cause: str, seq: int) -> tuple[str, str, dict[str, object], int]:
    return ("controller", "lockout", {"event": "lockout", "locked": locked, "cause": cause}, seq)


def rules_of(model: TableModel, out: Permitted, got: Observed) -> list[str]:
    return [d.rule for d in differences(model, out, got, None)]


def test_a_config_write_in_an_open_round_with_no_wager_is_refused(model: TableModel) -> None:
    opened = play(model, model.initial(), OpenRound())
    assert opened.layout == {}
    for changes in ({"meters": {"major": {"rate": "2"}}}, {"commission": "4"}, {"denomination": 100}):
        outs = model.step(opened, ConfigWrite(changes))
        assert [o.answer.codes for o in outs] == [frozenset({"REFUSED"})]
        # a device that takes it answers ok: the answer is the difference, under config-live (6.4)
        diffs = differences(model, outs[0], shown(outs[0].state), None)
        assert [d.rule for d in diffs] == [R.CONFIG_LIVE.name]


def test_the_reset_key_puts_a_meter_back_to_its_reset_amount_in_force(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 500), PlaceWager(1, "royal9", 500),
             PressLockout(), LoadShoe(("2S", "3H", "4D", "5C", "6S", "7H")), DealFirst(), DealRest())
    assert s.meters["major"].amount == 45_002
    s = taken(model, s, ConfigWrite({"meters": {"major": {"reset": 45_001}}}))
    assert s.meter_cfg["major"].reset == 45_001 and s.meters["major"].amount == 45_002  # never turned back
    s = play(model, s, OpenRound(), PlaceWager(1, "player", 500), PlaceWager(1, "royal9", 500),
             LoadShoe(MAJOR_HIT), DealFirst(), DealRest())
    assert [p.meter for p in s.pending] == ["major"]
    out = model.step(s, ResetKey("major"))[0]
    assert out.answer.fields["amount"] == 45_001 and out.state.meters["major"].amount == 45_001
    initial = shown(out.state, fields={"meter": "major", "amount": 45_000},
                    meters={**{n: m.amount for n, m in out.state.meters.items()}, "major": 45_000})
    assert set(rules_of(model, out, initial)) == {R.RESET_KEY.name}


def test_each_meter_stops_at_its_own_payout_limit_and_diverts_the_rest(model: TableModel) -> None:
    s = taken(model, model.initial(), ConfigWrite({"meters": {"major": {"payout_limit": 45_001}}}))
    s = play(model, s, OpenRound(), PlaceWager(1, "player", 500), PlaceWager(1, "royal9", 500))
    out = model.step(s, PressLockout())[0]
    major = out.state.meters["major"]
    assert (major.amount, major.diverted, major.residual) == (45_001, 1, Decimal("0.5"))
    assert out.state.meters["mega"].amount == 5_000_006 and out.state.meters["mega"].diverted == 0
    assert R.CAP.name in out.rules
    ignored = shown(out.state, events=[lock(True, "button", 1)], fields={"locked": True},
                    meters={n: m.amount for n, m in out.state.meters.items()} | {"major": 45_002},
                    diverted={"mega": 0, "major": 0, "minor": 0})
    assert R.CAP.name in rules_of(model, out, ignored)


def test_a_royal9_wager_is_held_to_the_denomination_in_force(model: TableModel) -> None:
    s = taken(model, model.initial(), ConfigWrite({"denomination": 100}))
    assert s.denomination == 100
    s = play(model, s, OpenRound(), PlaceWager(2, "banker", 500))
    old = model.step(s, PlaceWager(2, "royal9", 500))[0]
    assert old.answer.accepted is False and "bad-amount" in old.answer.reasons
    accepted = shown(old.state)
    accepted.accepted = True
    assert rules_of(model, old, accepted) == [R.WAGER_REFUSE.name]
    assert model.step(s, PlaceWager(2, "royal9", 100))[0].answer.accepted is True


def test_the_banker_commission_written_is_the_one_settled_and_kept_across_power(model: TableModel) -> None:
    s = model.initial()
    assert s.commission == Decimal(5)
    assert model.step(s, ConfigWrite({"commission": "101"}))[0].answer.codes == {"REFUSED", "BAD_ARGS"}
    s = taken(model, s, ConfigWrite({"commission": "4"}))
    assert s.commission == Decimal(4)
    # banker 9 against player 0: the Banker wins, 1 to 1 less 4%
    s = play(model, s, OpenRound(), PlaceWager(1, "banker", 1000), LoadShoe(("TS", "9H", "KD", "KC", "2S", "3S")),
             DealFirst())
    out = model.step(s, DealRest())[0]
    assert out.settlement is not None and out.settlement.payouts[(1, "banker")] == (1000, 1960, "win")
    powered = model.step(out.state, PowerCycle())[0]
    from harness.explore.judge import config_view

    forgot = shown(powered.state, events=[lock(True, "power", 1)],
                   config={**config_view(powered.state), "commission": "5"})
    assert rules_of(model, powered, forgot) == [R.POWER.name]


def test_a_controller_reboot_must_send_its_power_lockout_and_may_keep_or_clear_the_layout(
        model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 500))
    s.seqs = {"controller": 9, "shoe": 4}
    outs = model.step(s, Reboot())
    assert {o.choice for o in outs} == {"controller reboot: the layout stays",
                                        "controller reboot: the layout is cleared"}
    for out in outs:
        assert (out.state.phase, out.state.locked, out.state.cause) == ("idle", True, "power")
        assert out.lock_event == (True, "power") and "controller" in out.state.seq_fresh
        assert rules_of(model, out, shown(out.state)) == [R.LOCKOUT_EVENT.name]  # no power lockout sent
        assert rules_of(model, out, shown(out.state, events=[lock(True, "power", 1)])) == []
    # the shoe did not reboot: its numbering goes on
    out = outs[0]
    restarted = shown(out.state, events=[lock(True, "power", 1), ("shoe", "card", {}, 1)])
    assert rules_of(model, out, restarted) == [R.EVENT_SEQ.name]
    idle = model.step(model.initial(), Reboot())
    assert len(idle) == 1 and idle[0].lock_event == (True, "power")


def test_a_misread_first_card_closes_wagering_as_a_card(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 500),
             LoadShoe(("8C", "2D", "TC", "3D", "5H", "6S")))
    assert model.legal(s, DealMisread())
    out = model.step(s, DealMisread())[0]
    assert out.timed and out.lock_event == (True, "card") and out.state.locked and out.state.phase == "dealing"
    still_open = shown(out.state, locked=False, cause=None)
    assert set(rules_of(model, out, still_open)) == {R.LOCKOUT.name, R.LOCKOUT_EVENT.name}
    later = model.step(out.state, PlaceWager(2, "player", 500))[0]
    assert later.answer.accepted is False


def test_the_link_back_mid_round_does_not_reopen_wagering(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 500), PlaceWager(1, "royal9", 500),
             Comm(False))
    out = model.step(s, Comm(True))[0]
    assert (out.state.locked, out.state.cause, out.lock_event) == (True, "comm-lost", None)
    reopened = shown(out.state, locked=False, cause=None, events=[lock(False, "round-open", 3)])
    assert set(rules_of(model, out, reopened)) == {R.LINK.name, R.LOCKOUT_EVENT.name}
    # a second close does not contribute again
    again = model.step(out.state, PressLockout())
    assert all(o.state.meters == out.state.meters for o in again)


def test_a_wager_placed_again_after_no_more_bets_is_refused(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 1000), NoMoreBets())
    out = model.step(s, PlaceWager(1, "player", 5000))[0]
    assert out.answer.accepted is False and "no-more-bets" in out.answer.reasons
    raised = shown(out.state, layout=((1, "player", 5000),))
    raised.accepted = True
    assert set(rules_of(model, out, raised)) == {R.WAGER_REFUSE.name, R.WAGER_ACCEPT.name}


def test_the_base_wager_under_a_royal9_wager_stays_or_goes_with_it(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 500), PlaceWager(1, "royal9", 500))
    outs = model.step(s, RemoveWager(1, "player"))
    alone = shown(s.clone(), fields={"removed": True}, layout=((1, "royal9", 500),))
    taken_out, diffs = judge(model, outs, alone)
    assert taken_out is None and {d.rule for d in diffs} <= {R.BASE_WAGER.name, R.WAGER_ACCEPT.name}


def test_a_read_late_every_time_is_a_finding_and_one_late_answer_is_not(model: TableModel) -> None:
    out = model.step(model.initial(), ResetKey("mega"))[0]
    slow = shown(out.state, code="REFUSED", slow=[("meters.get", Decimal("151.2"), 6)])
    assert rules_of(model, out, slow) == [R.ANSWER_TIME.name]


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.now += s


@pytest.mark.parametrize("answers_ms, slow", [([150, 20], False), ([150] * 6, True), ([30], False)])
def test_a_late_read_is_asked_again_and_judged_by_its_fastest(monkeypatch: pytest.MonkeyPatch,
                                                             answers_ms: list[int], slow: bool) -> None:
    clock = _Clock()
    monkeypatch.setattr(answer_times, "time", clock)
    times = list(answers_ms)

    def ask() -> str:
        clock.now += (times.pop(0) if times else 150) / 1000
        return "reading"

    obs = Observed()
    assert AnswerClock(lambda: [], 1.0).timed(obs, "meters.get", ask) == "reading"
    assert bool(obs.slow) is slow
    if slow:
        assert obs.slow == [("meters.get", Decimal("150.000"), 1 + answer_times.ANSWER_RETRIES)]


@pytest.mark.parametrize("shape", ["tie", "banker3", "player3", "royal9"])
def test_shaped_rounds(shape: str) -> None:
    draws = Draws(TableModel(MIDI5))
    assert sorted(c.code for c in draws.shoe) == sorted(c.code for c in shoe_composition(8).elements())
    for n in range(20):
        cards = draws.shaped_round(shape, random.Random(n))
        r = deal_round(list(cards))
        if shape == "tie":
            assert r.winner == "tie"
        elif shape == "royal9":  # a face card and a nine on the Player hand, the Banker hand or both
            hands = ({cards[0].rank, cards[2].rank}, {cards[1].rank, cards[3].rank})
            assert any(9 in h and h & {11, 12, 13} for h in hands)
        elif shape == "banker3":
            assert len(r.banker) == 3 and r.banker_total == 7 and r.winner != "player"
        else:
            assert len(r.player) == 3 and r.player_total == 8


def test_tableau_rounds_reach_every_cell_of_the_third_card_tableau() -> None:
    # 629a.8(c), (d): a Banker two-card total 0-7 against each Player third card 0-9, or a Player standing
    draws, rng, cells = Draws(TableModel(MIDI5)), random.Random(5), set()
    for _ in range(2000):
        cards = draws.shaped_round("tableau", rng)
        r = deal_round(list(cards))
        banker = (cards[1].baccarat_value + cards[3].baccarat_value) % 10
        player = (cards[0].baccarat_value + cards[2].baccarat_value) % 10
        assert banker <= 7 and player <= 7  # no natural: the tableau is played
        cells.add((banker, cards[4].baccarat_value if len(r.player) == 3 else "stood"))
    assert len(cells) == 8 * 11


def test_new_operations_read_back_as_written() -> None:
    for op in (Reboot(), DealMisread(), ConfigWrite({"commission": "4"})):
        assert parse_op(op_text(op)) == op


def test_a_refusal_reason_that_does_not_apply_breaks_the_refusal_reasons(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound())
    out = model.step(s, PlaceWager(3, "royal9", 500))[0]  # at the denomination, no base wager
    assert out.answer.reasons == {"no-base-wager"} and out.rules == (R.BASE_WAGER.name,)
    wrong = shown(out.state)
    wrong.accepted, wrong.reason = False, "bad-amount"
    assert rules_of(model, out, wrong) == [R.WAGER_REFUSE.name]


def test_a_read_late_by_the_hosts_own_delay_is_not_the_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    """Answers of 150 ms while the host's loopback echo takes 60 ms: 90 ms of it is the device's, within the
    deadline (docs/protocol.md section 5); with the echo at once, the same answers are late."""
    clock = _Clock()
    monkeypatch.setattr(answer_times, "time", clock)

    def ask() -> str:
        clock.now += 0.150
        return "reading"

    monkeypatch.setattr(answer_times.HOST_ECHO, "delay_s", lambda: 0.060)
    obs = Observed()
    answers = AnswerClock(lambda: [], 1.0)
    answers.timed(obs, "meters.get", ask)
    assert obs.slow == []
    monkeypatch.setattr(answer_times.HOST_ECHO, "delay_s", lambda: 0.0)
    answers.timed(obs, "meters.get", ask)
    assert [request for request, _ms, _tries in obs.slow] == ["meters.get"]


def test_the_host_echo_measures_a_round_trip() -> None:
    assert 0.0 < answer_times.HOST_ECHO.delay_s() < 2.0
