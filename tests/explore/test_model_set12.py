"""The model's checks added after the twelfth set of faults (tests/independent/FAULTS12.md) was measured: the
bet sensors' reboot, another role's command, a frame with a good CRC around a payload that is not a command,
the answers to a broken frame, and the king-9 pairs no position holds (pure: no device, no process)."""

from __future__ import annotations

import pytest
import test_model_widened as widened
from test_model_set11 import CARDS
from test_model_widened import play, rules_of

from harness.cards import Card
from harness.errors import InputError
from harness.explore import rules as R
from harness.explore.draws import unheld_combinations
from harness.explore.judge import Observed, frame_differences
from harness.explore.model import TableModel
from harness.explore.ops import (
    BadFrame,
    DealFirst,
    DealRest,
    ForeignCommand,
    LoadShoe,
    Op,
    OpenRound,
    PlaceWager,
    Reboot,
    op_from_dict,
    op_text,
    parse_op,
)
from harness.explore.state import State


def settled(model: TableModel) -> State:
    return play(model, model.initial(), LoadShoe(CARDS), OpenRound(), PlaceWager(2, "player", 500), DealFirst(),
                DealRest())


def test_the_sensors_reboot_only_between_rounds(model: TableModel) -> None:
    opened = play(model, model.initial(), OpenRound())
    assert not model.legal(opened, Reboot("sensors"))
    assert model.legal(settled(model), Reboot("sensors")) and model.legal(model.initial(), Reboot("sensors"))
    assert model.legal(opened, Reboot())  # the controller's reboot: in any phase


def test_a_sensors_reboot_keeps_wagering_closed_and_may_keep_or_clear_the_layout(model: TableModel) -> None:
    s = settled(model)
    s.layout = {(2, "player"): 500}  # the last round's wager still listed
    outs = model.step(s, Reboot("sensors"))
    assert {o.choice for o in outs} == {
        "sensors reboot: the layout stays", "sensors reboot: the layout is cleared",
        "sensors reboot: the layout stays, the link seen lost: lockout cause comm-lost",
        "sensors reboot: the layout is cleared, the link seen lost: lockout cause comm-lost"}
    for out in outs:
        assert out.state.locked and out.state.phase == s.phase and out.state.round == s.round
        assert out.lock_event in (None, (True, "comm-lost"))
    # after it, the controller still refuses a wager at every seat (wagering is closed: section 6.3)
    out = outs[0]
    wager = model.step(out.state, PlaceWager(3, "player", 500))
    assert all(w.answer.accepted is False for w in wager)
    listed = sorted((seat, kind, amount) for (seat, kind), amount in wager[0].state.layout.items())
    accepted = widened.shown(wager[0].state, accepted=True, reason=None, layout=((3, "player", 500), *listed))
    assert R.WAGER_REFUSE.name in rules_of(model, wager[0], accepted)


def test_a_sensors_reboot_with_an_empty_layout_has_no_layout_choice(model: TableModel) -> None:
    outs = model.step(model.initial(), Reboot("sensors"))
    assert [o.choice for o in outs] == [None, "sensors reboot, the link seen lost: lockout cause comm-lost"]


def test_another_roles_command_is_unknown_and_changes_nothing(model: TableModel) -> None:
    s = settled(model)
    out = model.step(s, ForeignCommand("sensors", "meters.get"))
    assert len(out) == 1 and out[0].answer.codes == frozenset({"UNKNOWN_CMD"})
    assert out[0].rules == (R.FOREIGN.name,) and out[0].state.meters == s.meters
    answered = widened.shown(out[0].state, code="ok", fields={"mega": 5000000})
    assert R.FOREIGN.name in rules_of(model, out[0], answered)
    assert R.FOREIGN.name not in rules_of(model, out[0], widened.shown(out[0].state, code="UNKNOWN_CMD"))
    # an act's command may be REFUSED as well: a device without a test channel refuses it (section 11)
    act = model.step(s, ForeignCommand("shoe", "lockout.press"))
    assert act[0].answer.codes == frozenset({"UNKNOWN_CMD", "REFUSED"})


def test_a_foreign_command_must_be_another_roles() -> None:
    with pytest.raises(InputError, match="the sensors's own command"):
        parse_op("foreign role=sensors cmd=wager.list")
    with pytest.raises(InputError, match="must be one of"):
        parse_op("foreign role=sensors cmd=reset_key")
    with pytest.raises(InputError, match="kind must be one of crc, payload"):
        parse_op("bad_frame role=shoe kind=garbage")


@pytest.mark.parametrize("op", [Reboot(), Reboot("sensors"), BadFrame("sensors", "payload"), BadFrame("shoe"),
                                ForeignCommand("controller", "shoe.status")])
def test_the_new_operations_are_written_and_read_back(op: Op) -> None:
    assert parse_op(op_text(op)) == op
    assert op_from_dict(op.to_dict()) == op


def test_fields_added_later_are_left_out_at_their_default_so_earlier_lines_stay_as_written() -> None:
    assert op_text(Reboot()) == "reboot"
    assert op_text(BadFrame("controller")) == "bad_frame role=controller"
    assert op_text(Reboot("sensors")) == "reboot role=sensors"
    assert op_text(BadFrame("shoe", "payload")) == "bad_frame role=shoe kind=payload"


def test_the_answers_to_a_frame_whose_crc_failed() -> None:
    ok = Observed(op="bad_frame", frame_answers=[("BAD_CRC", 0), ("BAD_FRAME", None)])
    assert frame_differences(ok) == []
    assert frame_differences(Observed(op="bad_frame")) == []  # dropped without a word
    for wrong in (("BAD_CRC", 5), ("UNKNOWN_CMD", 0), ("ok", 5)):
        diffs = frame_differences(Observed(op="bad_frame", frame_answers=[wrong]))
        assert [d.rule for d in diffs] == [R.FRAMING.name]


def test_the_answer_to_a_good_crc_around_a_payload_that_is_not_a_command() -> None:
    # docs/protocol.md sections 2 and 3: a BAD_FRAME error whose SEQ can be trusted: NAK BAD_FRAME, the frame's SEQ
    assert frame_differences(Observed(op="bad_frame", frame_seq=7, frame_answers=[("BAD_FRAME", 7)])) == []
    for wrong in (("BAD_FRAME", 0), ("BAD_CRC", 7), ("ok", 7)):
        diffs = frame_differences(Observed(op="bad_frame", frame_seq=7, frame_answers=[wrong]))
        assert [d.rule for d in diffs] == [R.FRAMING.name], wrong


def test_the_king9_pairs_no_position_holds() -> None:
    held = [(1, (Card(13, "S"), Card(9, "S"))), (2, (Card(9, "H"), Card(13, "D")))]
    free = unheld_combinations(held, 8)
    assert len(free) == 14
    assert (Card(13, "S"), Card(9, "S")) not in free and (Card(13, "D"), Card(9, "H")) not in free
    assert (Card(13, "S"), Card(9, "H")) in free
    assert unheld_combinations(held, 1) == []  # both hands cannot show the same pair from one deck
