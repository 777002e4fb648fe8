"""The model's and the judge's side of this stop's explorer operations (pure: no device, no process): the
no-answer line fault's count, the bad-crc and garbage line faults with theirs, what a reboot must lose, and
the frames a device sent that fail their check."""

from __future__ import annotations

import pytest
from test_model import _shown
from test_model_widened import play

from harness.devices.dropped import FrameWatch
from harness.devices.framing import BAD_CRC, ProtocolError
from harness.errors import InputError
from harness.explore import rules as R
from harness.explore.judge import Observed, differences, frames_dropped, line_differences
from harness.explore.model import LOST, TableModel
from harness.explore.ops import (
    BadFrame,
    Comm,
    CorruptAnswers,
    DealFirst,
    LineDrop,
    LoadShoe,
    LostRequest,
    OpenRound,
    ShoeRefusal,
    op_from_dict,
    op_text,
    parse_op,
)


def test_corrupted_answers_change_nothing_between_rounds_only(model: TableModel) -> None:
    s = model.initial()
    op = CorruptAnswers("shoe", "garbage", 2)
    assert model.legal(s, op) and not model.legal(play(model, s, OpenRound()), op)
    (out,) = model.step(s, op)
    assert out.rules == (R.LINE_FAULTS.name,) and out.state.phase == s.phase
    assert differences(model, out, _shown(out.state), None) == []
    assert op_text(op) == "corrupt_answers role=shoe kind=garbage count=2" and parse_op(op_text(op)) == op
    assert op_text(CorruptAnswers()) == "corrupt_answers role=controller kind=bad-crc"  # count 1 left out


def test_a_dropped_line_changes_nothing_between_rounds_or_with_wagering_open(model: TableModel) -> None:
    s = model.initial()
    op = LineDrop("sensors")
    opened = play(model, s, OpenRound())
    assert model.legal(s, op) and model.legal(opened, op)
    dealing = play(model, play(model, opened, LoadShoe(("9S", "6D", "9C", "3H"))), DealFirst())
    assert dealing.phase == "dealing" and not model.legal(dealing, op)  # a lock-out due could go unseen
    assert not model.legal(play(model, s, Comm(False)), op)
    (out,) = model.step(opened, op)
    assert out.rules == (R.LINE_DROP.name, R.EVENT_SEQ.name) and out.state.phase == "open"
    assert differences(model, out, _shown(out.state), None) == []
    assert op_text(op) == "line_drop role=sensors" and parse_op(op_text(op)) == op
    assert parse_op("bad_frame role=shoe kind=crc-at-once") == BadFrame("shoe", "crc-at-once")


def test_a_shoe_refusal_changes_nothing_in_any_phase(model: TableModel) -> None:
    opened = play(model, model.initial(), OpenRound())
    dealing = play(model, play(model, opened, LoadShoe(("9S", "6D", "9C", "3H"))), DealFirst())
    for s in (model.initial(), opened, dealing):
        for kind, codes in (("overfull", {"BAD_ARGS"}), ("none", {"ok", "BAD_ARGS", "REFUSED"})):
            op = ShoeRefusal(kind)
            assert model.legal(s, op)
            (out,) = model.step(s, op)
            assert out.answer.codes == codes and out.state.phase == s.phase and out.state.shoe == s.shoe
            assert out.state.dealt == s.dealt
    assert op_text(ShoeRefusal("none")) == "shoe_refusal kind=none" and parse_op("shoe_refusal") == ShoeRefusal()


@pytest.mark.parametrize("data", [{"op": "lost_request", "count": 0}, {"op": "corrupt_answers", "count": 9},
                                  {"op": "corrupt_answers", "kind": "no-answer"}])
def test_a_count_or_kind_out_of_range_is_refused(data: dict[str, object]) -> None:
    with pytest.raises(InputError):
        op_from_dict(data)


def test_a_lost_request_with_a_count_is_written_and_read_back(model: TableModel) -> None:
    (out,) = model.step(model.initial(), LostRequest(3))
    assert out.answer.codes == {LOST}
    assert parse_op(op_text(LostRequest(3))) == LostRequest(3) and op_text(LostRequest()) == "lost_request"


def test_what_a_line_fault_or_a_reboot_should_have_lost_is_a_difference_of_its_rule() -> None:
    got = Observed(op="reboot", lost_faults=[("the controller's ping (SEQ 7) sent while it was silent in its reboot",
                                              "lost", "answered once the device was back", R.LOST_REQUEST.name),
                                             ("ping 1 after the shoe's bad-crc line fault", "no answer the host can "
                                              "read", "answered", R.LINE_FAULTS.name)])
    assert [d.rule for d in line_differences(got)] == [R.LOST_REQUEST.name, R.LINE_FAULTS.name]


def _rig(*errors: ProtocolError, noiseless: bool = True) -> object:
    from types import SimpleNamespace
    link = SimpleNamespace(protocol_errors=list(errors), transport=SimpleNamespace(noiseless=noiseless))
    return SimpleNamespace(controller=SimpleNamespace(link=link))


def test_a_frame_that_fails_its_check_is_a_finding_of_rule_frames_sent() -> None:
    rig = _rig()
    watch = FrameWatch(rig)
    assert frames_dropped(watch) == []
    rig.controller.link.protocol_errors.append(ProtocolError(BAD_CRC, "CRC 0x1201 != 0xE855", raw=b"\xa5\x5a"))  # type: ignore[attr-defined]
    (diff,) = frames_dropped(watch)
    assert diff.rule == R.FRAMES_SENT.name and diff.got.startswith("1: BAD_CRC")
    assert frames_dropped(watch) == []  # taken once
    cable = _rig(ProtocolError(BAD_CRC, "noise", raw=b"\xa5\x5a"), noiseless=False)
    watch = FrameWatch(cable)
    cable.controller.link.protocol_errors.append(ProtocolError(BAD_CRC, "noise", raw=b"\xa5\x5a"))  # type: ignore[attr-defined]
    assert frames_dropped(watch) == []  # a cable's line: not the explorer's finding
