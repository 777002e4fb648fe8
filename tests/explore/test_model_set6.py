"""The model's checks added after the sixth set of faults (tests/independent/FAULTS6.md) was measured:
a settled round's round_end saying void, a hit not followed by its seat's payout, and a card dealt
mid-round that does not complete it (pure: no device, no process)."""

from __future__ import annotations

from typing import Any

import test_model_widened as widened
from test_model_widened import play, rules_of

from harness.explore import rules as R
from harness.explore.judge import Observed
from harness.explore.model import Permitted, TableModel
from harness.explore.ops import Comm, DealFirst, DealNext, DealRest, LoadShoe, OpenRound, PlaceWager, PressLockout
from harness.explore.state import State
from harness.profiles.load import load_profile

MIDI5 = load_profile("device_profiles/emulated-midi-5.yaml")
SIX = ("AH", "2C", "2D", "3S", "4H", "5C")  # player AH 2D draws 4H, banker 2C 3S draws 5C: six cards


def shown(s: State, **fields: Any) -> Observed:
    return widened.shown(s, **fields)


def settled(model: TableModel) -> Permitted:
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 500), LoadShoe(SIX), DealFirst())
    return model.step(s, DealRest())[0]


def test_a_round_settled_on_its_cards_does_not_end_void(model: TableModel) -> None:
    out = settled(model)
    assert out.settlement is not None
    payouts = dict(out.settlement.payouts)
    assert rules_of(model, out, shown(out.state, payouts=payouts)) == []
    assert rules_of(model, out, shown(out.state, payouts=payouts, round_end_void=True)) == [R.VOID.name]


def test_each_hit_is_followed_by_its_seats_payout(model: TableModel) -> None:
    out = settled(model)
    assert out.settlement is not None
    payouts = dict(out.settlement.payouts)
    right = shown(out.state, payouts=payouts, settle_order=[("hit", 1), ("payout", 1)], hit_seats=(1,))
    assert rules_of(model, out, right) == []
    late = shown(out.state, payouts=payouts, settle_order=[("payout", 1), ("hit", 1)], hit_seats=(1,))
    assert rules_of(model, out, late) == [R.PAYOUT_ORDER.name]
    # the hit, then another seat's payout before its own: the hit is not followed by its wager's payout
    # (section 8: "the hit events of the lines and meters the wager wins and then its one payout")
    apart = shown(out.state, payouts=payouts, settle_order=[("hit", 1), ("payout", 2), ("payout", 1)], hit_seats=(1,))
    assert R.PAYOUT_ORDER.name in rules_of(model, out, apart)


def test_a_card_mid_round_keeps_the_round_dealing(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 500), LoadShoe(SIX), DealFirst())
    assert s.round_need == 6 and model.legal(s, DealNext())
    s = play(model, s, DealNext(), DealNext(), DealNext(), DealNext())
    assert (s.phase, s.dealt, len(s.round_cards)) == ("dealing", 5, 5)
    assert not model.legal(s, DealNext())  # the sixth card is the round's last: DealRest settles on it
    out = model.step(s, DealRest())[0]
    assert out.settlement is not None and out.settlement.cards == SIX
    assert [f["card"] for _r, _n, f in out.events if _n == "card"] == ["5C"]
    # a round opened while two of its cards are out is refused (section 8: REFUSED while unsettled)
    two = play(model, model.initial(), OpenRound(), LoadShoe(SIX), DealFirst(), DealNext())
    assert model.step(two, OpenRound())[0].answer.codes == {"REFUSED"}


def test_a_lock_out_line_the_counter_measured_before_must_edge_in_every_timed_round(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 500), LoadShoe(SIX))
    out = model.step(s, DealFirst())[0]
    assert out.timed
    events = [widened.lock(True, "card", 5)]
    assert rules_of(model, out, shown(out.state, events=events)) == []
    assert rules_of(model, out, shown(out.state, events=events, lock_no_edge=True)) == [R.LATENCY.name]
    # a step that times no lock-out (wagering was closed already) judges no line
    closed = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 500), PressLockout(), LoadShoe(SIX))
    late = model.step(closed, DealFirst())[0]
    assert not late.timed and rules_of(model, late, shown(late.state, lock_no_edge=True)) == []


def test_a_wager_placed_with_wager_place_raises_no_sensor_event(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound())
    out = model.step(s, PlaceWager(1, "player", 500))[0]
    event = ("sensors", "wager", {"seat": 1, "type": "player", "amount": 500, "accepted": True}, 1)
    assert rules_of(model, out, shown(out.state, op="wager", accepted=True, events=[event])) == []  # by hand
    got = shown(out.state, op="wager", accepted=True, events=[event], sensor_events_judged=True)
    assert rules_of(model, out, got) == [R.WAGER_NO_EVENT.name]
    refused = model.step(model.initial(), PlaceWager(1, "player", 500))[0]  # no round open: locked-out
    got = shown(refused.state, op="wager", accepted=False, reason="locked-out", sensor_events_judged=True,
                events=[("sensors", "wager", {"accepted": False, "reason": "locked-out"}, 1)])
    assert rules_of(model, refused, got) == [R.WAGER_NO_EVENT.name]


def test_a_round_closed_by_the_lost_link_alone_refuses_wagers_comm_lost(model: TableModel) -> None:
    lost = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 500), Comm(up=False))
    assert (lost.locked, lost.cause) == (True, "comm-lost")
    # section 8, Link loss: "wagers are refused comm-lost"; locked-out is for a first card, the button or no round
    assert model.refusal_reasons(lost, PlaceWager(2, "player", 500)) == {"comm-lost"}
    idle = play(model, model.initial(), Comm(up=False))  # no round open: either reason describes it
    assert model.refusal_reasons(idle, PlaceWager(2, "player", 500)) == {"comm-lost", "locked-out"}


def test_a_fixed_royal9_line_won_must_send_its_hit_at_the_paytables_award(model: TableModel) -> None:
    # player QH 9H (a suited Royal 9 on the Player hand, no seat's personal king-9), banker 2C 3S; seat 1 wagers
    cards = ("QH", "2C", "9H", "3S", "4D", "5D")
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 500), PlaceWager(1, "royal9", 500),
             LoadShoe(cards), DealFirst())
    out = model.step(s, DealRest())[0]
    assert out.settlement is not None
    stake, returned, category = out.settlement.payouts[(1, "royal9")]
    assert category is not None and returned > stake
    hits = [f for _r, n, f in out.events if n == "hit"]
    assert hits == [{"seat": 1, "category": category, "amount": hits[0]["amount"]}]
    assert isinstance(hits[0]["amount"], int) and hits[0]["amount"] > 0
    payouts = dict(out.settlement.payouts)
    order = [("hit", 1), ("payout", 1), ("payout", 1)]
    right = ("controller", "hit", {"seat": 1, "category": category, "meter": None, "amount": hits[0]["amount"]}, 9)
    assert rules_of(model, out, shown(out.state, payouts=payouts, settle_order=order, hit_seats=(1,),
                                      events=[right])) == []
    dollars = (*right[:2], {**right[2], "amount": hits[0]["amount"] // 100}, 9)  # the award in dollars
    assert rules_of(model, out, shown(out.state, payouts=payouts, settle_order=order, hit_seats=(1,),
                                      events=[dollars])) == [R.ROYAL9_PAY.name]
    assert rules_of(model, out, shown(out.state, payouts=payouts)) == [R.ROYAL9_PAY.name]  # no hit at all
