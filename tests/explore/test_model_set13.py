"""The model's checks added after the thirteenth set of faults (tests/independent/FAULTS13.md) was measured:
every kind of broken frame of section 2, requests pipelined and numbered past 32767, a `game` write, the
denomination written with meters at its floors, an initial above the limit in force written before a higher
limit, and the key of a meter with nothing waiting (pure: no device, no process)."""

from __future__ import annotations

import pytest
from test_model_widened import play

from harness.errors import InputError
from harness.explore import rules as R
from harness.explore.draws import Draws
from harness.explore.judge import Observed, judge, line_differences
from harness.explore.model import TableModel
from harness.explore.ops import BadFrame, ConfigWrite, Op, OpenRound, Pipelined, ResetKey, SeqFrom, op_text, parse_op
from harness.explore.state import Pending


@pytest.mark.parametrize("text", ["bad_frame role=shoe kind=duplicate-key", "bad_frame role=controller kind=version",
                                  "bad_frame role=sensors kind=stall", "pipelined role=shoe count=3",
                                  "seq_from role=controller seq=65535"])
def test_the_new_operations_read_back_as_written(text: str) -> None:
    assert op_text(parse_op(text)) == text


@pytest.mark.parametrize(("text", "why"), [("seq_from seq=0", "1..65535"), ("seq_from seq=65536", "1..65535"),
                                           ("pipelined count=1", "2..16"), ("bad_frame kind=garbage", "one of")])
def test_a_request_number_or_count_out_of_range_is_a_clear_error(text: str, why: str) -> None:
    with pytest.raises(InputError, match=why):
        parse_op(text)


@pytest.mark.parametrize("op", [BadFrame("controller", "version"), Pipelined("shoe", 3), SeqFrom("sensors", 40000)])
def test_a_line_operation_changes_nothing_on_the_table(model: TableModel, op: Op) -> None:
    s = play(model, model.initial(), OpenRound())
    outs = model.step(s, op)
    assert len(outs) == 1 and outs[0].state == s


def test_the_answers_to_each_kind_of_frame(model: TableModel) -> None:
    # VER 2: "a VERSION error"; the other good-CRC kinds: BAD_FRAME with the frame's SEQ; silence is allowed
    def seen(kind: str, answers: list[tuple[str, int | None]], seq: int | None = 9) -> list[str]:
        got = Observed(op="bad_frame", frame_kind=kind, frame_seq=seq, frame_answers=answers)
        return [d.rule for d in line_differences(got)]

    assert seen("version", [("VERSION", 9)]) == [] and seen("version", []) == []
    assert seen("version", [("BAD_FRAME", 9)]) == [R.FRAMING.name]
    assert seen("duplicate-key", [("ok", 9)]) == [R.FRAMING.name]  # a command taken from it
    assert seen("not-utf8", [("BAD_FRAME", 9)]) == []
    assert seen("stall", [("BAD_FRAME", 0)], seq=None) == []
    # a ping inside a false frame whose CRC fails: it must be answered (only the SOF is dropped)
    assert seen("nested", [("BAD_CRC", 0), ("ok", 9)]) == []
    assert seen("nested", [("BAD_CRC", 0)]) == [R.FRAMING.name]
    assert seen("nested", [("ok", 9), ("BAD_CRC", 9)]) == [R.FRAMING.name]
    stalled = Observed(op="bad_frame", frame_kind="stall", frame_stalled=True, unread=True)
    out, diffs = judge(model, model.step(model.initial(), BadFrame("sensors", "stall")), stalled)
    assert out is None and [d.rule for d in diffs] == [R.FRAMING.name]  # only the line is judged


def test_an_answer_with_a_seq_no_request_had_is_the_finding(model: TableModel) -> None:
    got = Observed(op="seq_from", seq_faults=["the controller answered ok with SEQ 0"], unread=True)
    out, diffs = judge(model, model.step(model.initial(), SeqFrom("controller", 32767)), got)
    assert out is None and [d.rule for d in diffs] == [R.REQUEST_SEQ.name]


def test_a_game_write_is_refused_and_changes_nothing(model: TableModel) -> None:
    s = model.initial()
    outs = model.step(s, ConfigWrite({"game": "baccarat"}))
    assert [o.answer.codes for o in outs] == [frozenset({"REFUSED", "BAD_ARGS"})] and outs[0].state == s
    assert ("game", "", "other") in Draws(model).templates()


def test_the_new_configuration_templates(model: TableModel) -> None:
    draws, s = Draws(model), model.initial()
    floor = draws.config_write(s, ("denomination+floor", "major", ""))
    assert floor == {"denomination": 100, "meters": {"major": {"initial": 9_000, "reset": 9_000}}}
    assert [o.answer.codes for o in model.step(s, ConfigWrite(floor))] == [frozenset({"ok"})]
    under = draws.config_write(s, ("denomination+floor", "major", "-1"))
    assert under is not None and under["meters"]["major"]["reset"] == 8_999
    assert [o.answer.codes for o in model.step(s, ConfigWrite(under))] == [frozenset({"REFUSED"})]
    limit = s.meter_cfg["major"].payout_limit
    assert limit is not None
    both = draws.config_write(s, ("initial+limit", "major", ""))
    assert both == {"meters": {"major": {"initial": limit + 100, "payout_limit": limit + 200}}}
    assert list(both["meters"]["major"]) == ["initial", "payout_limit"]  # the initial first: judged whole
    assert [o.answer.codes for o in model.step(s, ConfigWrite(both))] == [frozenset({"ok"})]


def test_the_key_of_a_meter_with_nothing_waiting_is_refused_while_another_waits(model: TableModel) -> None:
    # section 3: "a reset key with nothing to reset" is REFUSED, whatever else waits; the meter is not turned back
    s = model.initial()
    s.pending = (Pending("major", 2, s.meters["major"].amount, "major"),)
    idle = model.step(s, ResetKey("minor"))
    assert [o.answer.codes for o in idle] == [frozenset({"REFUSED"})] and idle[0].state.meters == s.meters
    assert idle[0].state.pending == s.pending


def test_a_denomination_reported_in_dollars_holds_a_write_to_no_floors(model: TableModel) -> None:
    # a table adopted as it stands may report a denomination that is no Royal 9 paytable's (1: dollars, not
    # cents); a write is then judged without floors, never an error of the explorer's own
    s = model.initial()
    s.denomination = 1
    outs = model.step(s, ConfigWrite({"meters": {"major": {"rate": "0.6"}}}))
    assert outs and all(o.answer.codes for o in outs)
