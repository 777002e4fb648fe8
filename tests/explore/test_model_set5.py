"""The model's checks added after the fifth set of faults (tests/independent/FAULTS5.md) showed what it
did not compare: the shoe's card events, the order of wager.list, the events a taken no more bets and
a reset key send, a lockout event while wagering neither closes nor opens, the NAK a well-formed write
may get, and a payout limit removed (pure: no device, no process)."""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from types import MappingProxyType
from typing import Any

import test_model_widened as widened
from test_model_widened import play, rules_of

from harness.explore import rules as R
from harness.explore.draws import Draws, merge_changes
from harness.explore.judge import Observed
from harness.explore.model import Permitted, TableModel, malformed
from harness.explore.ops import (
    ConfigWrite,
    DealFirst,
    DealMisread,
    DealRest,
    LoadShoe,
    OpenRound,
    PlaceWager,
    PressLockout,
    ResetKey,
)
from harness.explore.state import Pending, State
from harness.profiles.load import load_profile

MIDI5 = load_profile("device_profiles/emulated-midi-5.yaml")
CARDS = ("8C", "2D", "TC", "3D", "5H", "6S")  # player 8C TC (8), banker 2D 3D (5): a natural, four cards


def shown(s: State, **fields: Any) -> Observed:
    """The state as a device shows it, its shoe reached through the reference driver (card events judged)."""
    return widened.shown(s, **{"card_events_judged": True, **fields})


def card(code: str, n: int, seq: int) -> tuple[str, str, dict[str, Any], int]:
    return ("shoe", "card", {"event": "card", "card": code, "n": n}, seq)


def test_every_card_dealt_is_sent_once_with_its_code_and_count_before_the_shoe_answers(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), LoadShoe(CARDS))
    first = model.step(s, DealFirst())[0]
    lock = ("controller", "lockout", {"locked": True, "cause": "card"}, 2)
    assert first.events == (("shoe", "card", {"card": "8C", "n": 1}),)
    assert rules_of(model, first, shown(first.state, events=[lock, card("8C", 1, 1)])) == []
    # held back (batched with the next card, or late past the shoe's answer): missing from its step
    assert rules_of(model, first, shown(first.state, events=[lock])) == [R.CARD_EVENTS.name]
    assert rules_of(model, first, shown(first.state, events=[lock, card("8D", 1, 1)])) == [R.CARD_EVENTS.name]
    assert rules_of(model, first, shown(first.state, events=[lock, card("8C", 2, 1)])) == [R.CARD_EVENTS.name]
    twice = [lock, card("8C", 1, 1), card("8C", 1, 2)]
    assert R.CARD_EVENTS.name in rules_of(model, first, shown(first.state, events=twice))
    rest = model.step(first.state, DealRest())[0]
    assert [f["card"] for _r, _n, f in rest.events] == ["2D", "TC", "3D"]
    assert [f["n"] for _r, _n, f in rest.events] == [2, 3, 4]
    # the earlier card's event arriving only now: late (its count was already answered)
    late = shown(rest.state, events=[card("8C", 1, 2), card("2D", 2, 3), card("TC", 3, 4), card("3D", 4, 5)])
    assert R.CARD_EVENTS.name in rules_of(model, rest, late)
    # a shoe reached by another driver is not held to its line's order
    assert R.CARD_EVENTS.name not in rules_of(model, rest, shown(rest.state, card_events_judged=False))


def test_a_misread_first_card_is_sent_as_misread(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), LoadShoe(CARDS))
    out = model.step(s, DealMisread())[0]
    assert out.events == (("shoe", "misread", {"n": 1}),)
    lock = ("controller", "lockout", {"locked": True, "cause": "card"}, 1)
    misread = ("shoe", "misread", {"event": "misread", "n": 1, "raw": "??"}, 1)
    assert rules_of(model, out, shown(out.state, events=[lock, misread])) == []
    assert rules_of(model, out, shown(out.state, events=[lock, card("8C", 1, 1)])) == [R.CARD_EVENTS.name]


def test_wager_list_is_in_seat_order(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 500), PlaceWager(2, "player", 500))
    out = model.step(s, PlaceWager(1, "royal9", 500))[0]
    assert rules_of(model, out, shown(out.state, accepted=True, layout_seats=(1, 1, 2))) == []
    grouped = shown(out.state, accepted=True, layout_seats=(1, 2, 1))  # grouped by wager type
    assert rules_of(model, out, grouped) == [R.WAGER_LIST.name]


def test_the_reset_key_sends_its_reset_event(model: TableModel) -> None:
    s = model.initial()
    s.pending = (Pending("major", 2, 45_002, "major"),)
    out = model.step(s, ResetKey("major"))[0]
    reset = s.meter_cfg["major"].reset
    assert out.events == (("controller", "reset", {"meter": "major", "amount": reset}),)
    fields = {"meter": "major", "amount": reset}
    sent = ("controller", "reset", {"meter": "major", "amount": reset}, 1)
    assert rules_of(model, out, shown(out.state, fields=fields, events=[sent])) == []
    assert rules_of(model, out, shown(out.state, fields=fields)) == [R.RESET_KEY.name]


def test_a_lockout_event_while_wagering_stays_closed_is_a_difference(model: TableModel) -> None:
    closed = play(model, model.initial(), OpenRound(), PressLockout())
    out = model.step(closed, PlaceWager(1, "player", 500))[0]
    extra = ("controller", "lockout", {"locked": True, "cause": "button"}, 1)
    assert rules_of(model, out, shown(out.state, accepted=False, reason="locked-out", events=[extra])) == [
        R.LOCKOUT_EVENT.name]


def test_a_well_formed_write_is_refused_never_bad_args() -> None:
    assert malformed({"decks": 17}) and malformed({"decks": "8"}) and malformed({"commission": "101"})
    assert malformed({"meters": {"major": {"reset": -1}}}) and malformed({"meters": {"jackpot": {"rate": "1"}}})
    assert malformed({"meters": {"major": {"payout_limit": "lots"}}}) and malformed({"colour": "red"})
    assert malformed({"seats": [{"seat": 10, "combo": None}]})
    assert malformed({"seats": [{"seat": 1, "combo": ["KS"]}]})
    assert not malformed({"meters": {"major": {"payout_limit": None, "reset": 1}}})
    assert not malformed({"seats": [{"seat": 1, "combo": ["QS", "9S"]}], "denomination": 200, "decks": 16})


def test_a_payout_limit_removed_may_be_taken_or_refused_never_bad_args(model: TableModel) -> None:
    s = model.initial()
    outs = model.step(s, ConfigWrite({"meters": {"mega": {"payout_limit": None}}}))
    assert {o.choice for o in outs} == {"config write in range taken", "config write in range refused"}
    assert all(o.answer.codes <= {"ok", "REFUSED"} for o in outs)
    taken = next(o for o in outs if o.answer.codes == {"ok"})
    assert taken.state.meter_cfg["mega"].payout_limit is None


def test_a_limit_is_written_where_the_next_wager_lands(model: TableModel) -> None:
    draws = Draws(model)
    s = model.initial()
    s.meters["major"].residual = Decimal("0.5")
    amount = s.meters["major"].amount
    # one $5 wager at 0.5 % adds 2.5 cents: with 0.5 carried, 3 whole cents
    assert draws.config_write(s, ("payout_limit", "major", "land")) == {
        "meters": {"major": {"payout_limit": amount + 3}}}
    assert draws.config_write(s, ("payout_limit", "major", "land-1")) == {
        "meters": {"major": {"payout_limit": amount + 2}}}
    assert draws.config_write(s, ("payout_limit", "major", "null")) == {"meters": {"major": {"payout_limit": None}}}


def test_two_writes_joined_in_one() -> None:
    joined = merge_changes({"commission": "4", "meters": {"major": {"rate": "2"}}},
                           {"meters": {"major": {"reset": 45_001}, "minor": {"rate": "1"}}})
    assert joined == {"commission": "4", "meters": {"major": {"rate": "2", "reset": 45_001}, "minor": {"rate": "1"}}}


def _major_round(model: TableModel) -> tuple[State, Permitted]:
    """Seat 2's Royal 9 wager wins the major: its combination on the Banker hand."""
    s = model.initial()
    combo = dict(s.seats)[2]
    assert combo is not None
    king, nine = combo
    s = play(model, s, OpenRound(), PlaceWager(2, "player", 500), PlaceWager(2, "royal9", 500),
             LoadShoe(("2C", king, "3D", nine, "4C", "5H")), DealFirst())
    return s, model.step(s, DealRest())[0]


def test_a_meter_won_is_announced_by_its_hit_and_paid_by_an_attendant(model: TableModel) -> None:
    _s, out = _major_round(model)
    assert out.settlement is not None and out.settlement.attendant == {(2, "royal9")}
    (pending,) = out.state.pending
    hit = [e for e in out.events if e[1] == "hit"]
    assert hit == [("controller", "hit", {"seat": 2, "meter": "major", "amount": pending.amount})]
    payouts = dict(out.settlement.payouts)
    cards = [card(c, n, n) for n, c in enumerate(out.settlement.cards[1:], 2)]
    sent = [*cards, ("controller", "hit", {"seat": 2, "meter": "major", "amount": pending.amount,
                                           "category": pending.category}, 1)]
    right = shown(out.state, payouts=payouts, round_end=None, events=sent, hit_seats=(2,),
                  paid_by={(2, "royal9"): "attendant", (2, "player"): "table"})
    assert rules_of(model, out, right) == []
    table_paid = shown(out.state, payouts=payouts, events=sent, hit_seats=(2,), paid_by={(2, "royal9"): "table"})
    assert rules_of(model, out, table_paid) == [R.HIT.name]
    no_hit = shown(out.state, payouts=payouts, events=cards, paid_by={(2, "royal9"): "attendant"})
    assert rules_of(model, out, no_hit) == [R.HIT.name]
    # a hit naming a seat the settlement pays nothing (the combination's owner, not the winner)
    stray = shown(out.state, payouts=payouts, events=sent, hit_seats=(2, 1), paid_by={(2, "royal9"): "attendant"})
    assert rules_of(model, out, stray) == [R.ROYAL9_PAY.name]
    # the base wager's win is the table's to pay: an attendant named for it (no key, no meter) is a difference
    base = shown(out.state, payouts=payouts, round_end=None, events=sent, hit_seats=(2,),
                 paid_by={(2, "royal9"): "attendant", (2, "player"): "attendant"})
    assert rules_of(model, out, base) == [R.SETTLE.name]


def test_the_configuration_names_the_tables_game_and_the_shoe_its_state(model: TableModel) -> None:
    s = play(model, model.initial(), LoadShoe(CARDS))
    out = model.step(s, OpenRound())[0]
    opened = [("controller", "lockout", {"locked": False, "cause": "round-open"}, 1)]
    assert rules_of(model, out, shown(out.state, events=opened, config_game="midibaccarat",
                                      shoe=(0, 6), shoe_state="ready")) == []
    assert rules_of(model, out, shown(out.state, events=opened, config_game="baccarat")) == [R.CONFIG_AS_FILED.name]
    assert rules_of(model, out, shown(out.state, events=opened, shoe=(0, 6), shoe_state="empty")) == [R.SHOE.name]


def test_an_event_the_step_could_not_have_caused_is_a_difference(model: TableModel) -> None:
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 500))
    out = model.step(s, PlaceWager(2, "player", 500))[0]
    payout = ("controller", "payout", {"seat": 1, "type": "player", "stake": 500, "returned": 0}, 1)
    assert rules_of(model, out, shown(out.state, accepted=True, op="wager", events=[payout])) == [R.SETTLE.name]
    reset = ("controller", "reset", {"meter": "mega", "amount": 5_000_000}, 1)
    assert rules_of(model, out, shown(out.state, accepted=True, op="wager", events=[reset])) == [R.RESET_KEY.name]
    jam = ("shoe", "error", {"code": "E7", "text": "card jam"}, 1)
    assert rules_of(model, out, shown(out.state, accepted=True, op="wager", events=[jam])) == [R.SHOE.name]
    assert rules_of(model, out, shown(out.state, accepted=True, op="wager")) == []


def test_rounds_opened_and_voided_in_a_row_are_numbered_one_more_each(model: TableModel) -> None:
    from harness.explore.ops import VoidRounds
    s = model.initial()
    s.round = 254
    assert model.legal(s, VoidRounds(3)) and not model.legal(play(model, s, OpenRound()), VoidRounds(3))
    out = model.step(s, VoidRounds(3))[0]
    assert out.state.round == 257 and out.state.phase == "settled" and out.answer.fields["first_round"] == 255
    events: list[tuple[str, str, dict[str, Any], int]] = []
    for i, r in enumerate((255, 256, 257)):
        events += [("controller", "lockout", {"locked": False, "cause": "round-open"}, 3 * i + 1),
                   ("controller", "lockout", {"locked": True, "cause": "no-more-bets"}, 3 * i + 2),
                   ("controller", "round_end", {"round": r, "void": True}, 3 * i + 3)]
    fields = {"first_round": 255, "rounds_consecutive": True}
    got = shown(out.state, op="void_rounds", fields=fields, events=events)
    assert rules_of(model, out, got) == []
    # a counter of one byte: 255, then 0
    wrapped = [*events[:3], *events[3:5], ("controller", "round_end", {"round": 0, "void": True}, 6), *events[6:]]
    assert rules_of(model, out, shown(out.state, op="void_rounds", fields={**fields, "rounds_consecutive": False},
                                      events=wrapped)) == [R.ROUND_NUMBER.name, R.VOID.name]


def test_a_payout_limit_at_the_initial_amount_follows_meter_payout_limit_check(model: TableModel) -> None:
    # 461a.12(k)(1), interpretation meter-payout-limit-check: set-and-reset (the default) holds a written limit
    # to the initial and reset amounts too; current-only to the amount on the meter alone
    s = model.initial()
    cfg = s.meter_cfg["major"]
    s.meters["major"].amount = cfg.initial - 100  # below the initial amount (after a reset to a lower one)
    write = ConfigWrite({"meters": {"major": {"payout_limit": cfg.initial}}})
    strict = model.step(s, write)
    assert [o.answer.codes for o in strict] == [{"REFUSED"}] and R.CONFIG_LIMIT.name in strict[0].rules
    lenient = TableModel(dataclasses.replace(MIDI5, interpretations=MappingProxyType(
        {**MIDI5.interpretations, "meter-payout-limit-check": "current-only"})))
    outs = lenient.step(s, write)
    assert {o.choice for o in outs} == {"config write in range taken", "config write in range refused"}
    # at or below the meter it is refused under either reading
    at_meter = ConfigWrite({"meters": {"major": {"payout_limit": s.meters["major"].amount}}})
    assert [o.answer.codes for o in lenient.step(s, at_meter)] == [{"REFUSED"}]
