"""The model's checks added after the eleventh set of faults (tests/independent/FAULTS11.md) was measured:
the shoe's cards after a power cycle, the shoe's ``error`` fault, a request with a broken CRC, and a write
of a field the device never takes at its value in force (pure: no device, no process)."""

from __future__ import annotations

from decimal import Decimal

import pytest
import test_model_widened as widened
from test_model_widened import play, rules_of

from harness.explore import rules as R
from harness.explore.judge import learn_shoe, stray_events
from harness.explore.model import REFUSED, TableModel
from harness.explore.ops import (
    BadFrame,
    ConfigWrite,
    DealFirst,
    DealRest,
    LoadShoe,
    NoMoreBets,
    OpenRound,
    PlaceWager,
    PowerCycle,
    ShoeError,
    VoidRound,
    op_from_dict,
    op_text,
    parse_op,
)
from harness.explore.state import State
from harness.profiles.load import load_profile

MIDI5 = load_profile("device_profiles/emulated-midi-5.yaml")
#: two naturals on four cards (player 8C TH, banker 8D TS), then a second such round
CARDS = ("8C", "8D", "TH", "TS", "9C", "9D", "KH", "KS", "2C", "3D")


def dealt_round(model: TableModel) -> State:
    return play(model, model.initial(), LoadShoe(CARDS), OpenRound(), PlaceWager(1, "player", 500), DealFirst(),
                DealRest())


def test_a_shoe_counting_its_cards_as_before_the_power_went_is_known_again(model: TableModel) -> None:
    s = dealt_round(model)
    assert (s.dealt, s.shoe) == (4, CARDS[4:])
    out = model.step(s, PowerCycle())[0]
    assert out.state.shoe is None and out.state.shoe_kept == (CARDS[4:], 4)
    learn_shoe(out, widened.shown(out.state, shoe=(4, 6), shoe_state="ready"))
    assert (out.state.shoe, out.state.dealt, out.state.shoe_kept) == (CARDS[4:], 4, None)
    # the next round's first card is the fifth since the load (docs/protocol.md 6.2: n counts from the load)
    opened = play(model, out.state, OpenRound(), PlaceWager(1, "player", 500))
    assert model.card_events(opened, DealFirst()) == (("shoe", "card", {"card": "9C", "n": 5}),)
    first = model.step(opened, DealFirst())[0]
    restarted = widened.shown(first.state, card_events_judged=True, locked=True, cause="card",
                              events=[("shoe", "card", {"card": "9C", "n": 1}, 9)])
    assert R.CARD_EVENTS.name in rules_of(model, first, restarted)


def test_a_shoe_counting_otherwise_after_power_up_stays_unknown(model: TableModel) -> None:
    out = model.step(dealt_round(model), PowerCycle())[0]
    learn_shoe(out, widened.shown(out.state, shoe=(0, 0), shoe_state="empty"))
    assert (out.state.shoe, out.state.shoe_kept) == (None, None)  # a choice the documents leave open
    twice = model.step(model.step(dealt_round(model), PowerCycle())[0].state, PowerCycle())[0]
    assert twice.state.shoe_kept == (CARDS[4:], 4)  # kept through a second cycle with no read between
    assert model.step(twice.state, LoadShoe(CARDS))[0].state.shoe_kept is None


def test_a_shoe_error_deals_no_card_and_must_send_its_event(model: TableModel) -> None:
    s = dealt_round(model)
    out = model.step(s, ShoeError())[0]
    assert (out.state.dealt, out.state.shoe) == (4, CARDS[4:])
    sent = ("shoe", "error", {"code": "E7", "text": "card jam"}, 12)
    assert rules_of(model, out, widened.shown(out.state, op="shoe_error", card_events_judged=True,
                                              events=[sent])) == []
    assert rules_of(model, out, widened.shown(out.state, op="shoe_error", card_events_judged=True,
                                              events=[])) == [R.SHOE.name]
    got = widened.shown(out.state, events=[sent])
    assert stray_events("shoe_error", got) == []
    assert [d.rule for d in stray_events("deal_rest", got)] == [R.SHOE.name]
    # the next card's n goes on from the four out: the error counted no card
    opened = play(model, out.state, OpenRound(), PlaceWager(1, "player", 500))
    assert model.card_events(opened, DealFirst())[0][2]["n"] == 5


def test_a_request_with_a_broken_crc_changes_nothing_and_the_event_seq_runs_on(model: TableModel) -> None:
    s = dealt_round(model)
    s.seqs["controller"] = 7
    out = model.step(s, BadFrame("controller"))
    assert len(out) == 1 and out[0].rules == (R.FRAMING.name, R.EVENT_SEQ.name)
    assert out[0].state.layout == s.layout and out[0].state.seqs == {**s.seqs}
    opened = model.step(out[0].state, OpenRound())[0]
    restarted = widened.shown(opened.state, locked=False, cause=None, fields={"round": opened.state.round},
                              events=[widened.lock(False, "round-open", 1)])
    assert R.EVENT_SEQ.name in rules_of(model, opened, restarted)
    on = widened.shown(opened.state, locked=False, cause=None, fields={"round": opened.state.round},
                       events=[widened.lock(False, "round-open", 8)])
    assert R.EVENT_SEQ.name not in rules_of(model, opened, on)


@pytest.mark.parametrize("op", [ShoeError(), BadFrame("shoe"), BadFrame("controller")])
def test_the_new_operations_are_written_and_read_back(op: object) -> None:
    assert parse_op(op_text(op)) == op  # type: ignore[arg-type]
    assert op_from_dict(op.to_dict()) == op  # type: ignore[attr-defined]


def test_a_field_never_taken_written_at_its_value_in_force_beside_a_change_may_be_taken_or_refused() -> None:
    # the independent table's profile: decks never written (docs/device-profiles.md config_writes), the meters
    # between rounds; docs/protocol.md 6.4: "A write of the values in force changes nothing and may be taken"
    model = TableModel(load_profile("tests/independent/independent-midi-5.yaml"))
    s = model.initial()
    both = model.step(s, ConfigWrite({"decks": s.decks, "meters": {"minor": {"rate": "0.5"}}}))
    assert sorted(o.answer.codes == REFUSED for o in both) == [False, True]
    taken = next(o for o in both if o.answer.codes != REFUSED)
    assert taken.state.meter_cfg["minor"].rate == Decimal("0.5")
    # a field never taken, changed: refused whatever comes beside it
    changed = model.step(s, ConfigWrite({"decks": s.decks - 1, "meters": {"minor": {"rate": "0.5"}}}))
    assert [o.answer.codes for o in changed] == [REFUSED]


def test_a_void_answered_without_its_void_flag_is_a_difference(model: TableModel) -> None:
    # docs/protocol.md section 8: round.settle with no card out voids the round, "RSP void: true"
    s = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 500), NoMoreBets())
    out = model.step(s, VoidRound())[0]
    end = ("controller", "round_end", {"round": out.state.round, "void": True}, 9)
    kept = dict(round_end=out.state.round, round_end_void=True, events=[end], locked=True, cause="no-more-bets")
    flagged = widened.shown(out.state, op="void", fields={"round": out.state.round, "void": True}, **kept)
    bare = widened.shown(out.state, op="void", fields={"round": out.state.round}, **kept)
    assert R.VOID.name not in rules_of(model, out, flagged)
    assert R.VOID.name in rules_of(model, out, bare)
