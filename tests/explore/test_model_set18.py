"""The model's checks added while the eighteenth set of faults (tests/independent/FAULTS18.md) was being measured,
for the seventeenth set's misses: a request lost to the no-answer line fault, and a write after a refusal (pure:
no device, no process)."""

from __future__ import annotations

from test_model import _shown
from test_model_widened import play

from harness.explore import rules as R
from harness.explore.judge import differences
from harness.explore.model import LOST, TableModel
from harness.explore.ops import LostRequest, OpenRound, PlaceWager, SupplyOn, op_text, parse_op


def test_a_request_lost_to_no_answer_is_not_answered_and_opens_no_round(model: TableModel) -> None:
    # docs/protocol.md section 7, no-answer: "the next count (default 1) requests are lost: not executed, not
    # answered"
    s = model.initial()
    assert model.legal(s, LostRequest())
    assert not model.legal(play(model, s, OpenRound()), LostRequest())  # between rounds only
    (out,) = model.step(s, LostRequest())
    assert out.answer.codes == {LOST} and out.rules == (R.LOST_REQUEST.name,)
    assert (out.state.phase, out.state.locked, out.state.round) == (s.phase, s.locked, s.round)
    assert differences(model, out, _shown(out.state, code=LOST), None) == []
    # answered (executed, its answer not lost): a difference of rule lost-request
    answered = _shown(out.state, code="ok", fields={"round": 1})
    assert R.LOST_REQUEST.name in {d.rule for d in differences(model, out, answered, None)}
    # and a round opened by it shows in what the host reads after
    opened = play(model, s, OpenRound())
    assert differences(model, out, _shown(opened, code=LOST), None) != []
    # the op is written in a finding's case and read back
    assert parse_op(op_text(LostRequest())) == LostRequest()


def test_outp_on_with_the_output_on_changes_nothing(model: TableModel) -> None:
    # docs/protocol.md section 9: OUTP ON switches the output on; on already, there is nothing to switch
    s = play(model, play(model, model.initial(), OpenRound()), PlaceWager(1, "player", 1000))
    assert model.legal(s, SupplyOn())
    (out,) = model.step(s, SupplyOn())
    assert out.answer.codes == {"ok"} and out.rules == (R.INSTRUMENTS.name,)
    assert (out.state.phase, out.state.locked, out.state.layout) == (s.phase, s.locked, s.layout)
    assert differences(model, out, _shown(out.state, code="ok"), None) == []
    # the table cut for a moment (its layout lost, wagering closed by the power): differences
    cut = _shown(out.state, code="ok", layout=(), locked=True, cause="power")
    assert differences(model, out, cut, None) != []
    assert parse_op(op_text(SupplyOn())) == SupplyOn()
