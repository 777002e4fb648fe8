"""The model's checks added after the fourteenth set of faults (tests/independent/FAULTS14.md) was measured:
the dealer's no-more-bets call taken while wagering is already closed in a round still open (pure: no
device, no process)."""

from __future__ import annotations

from test_model_widened import play

from harness.explore import rules as R
from harness.explore.judge import Observed, differences, resets_after_hits
from harness.explore.model import TableModel
from harness.explore.ops import Comm, DealFirst, LoadShoe, NoMoreBets, OpenRound, PlaceWager, PressLockout


def test_no_more_bets_is_taken_in_an_open_round_however_wagering_closed(model: TableModel) -> None:
    # docs/protocol.md section 8: round.no_more_bets "is REFUSED with no round open, and where the table has
    # no such input"; closed by the button, the link or the first card, the round is still open
    opened = play(model, model.initial(), OpenRound(), PlaceWager(1, "player", 500),
                  LoadShoe(("2S", "3H", "4D", "5C", "6S", "7H")))
    for before in (PressLockout(), Comm(False), DealFirst()):
        closed = play(model, opened, before)
        assert closed.locked, before
        outs = model.step(closed, NoMoreBets())
        taken = [o for o in outs if o.answer.codes == frozenset({"ok"})]
        assert taken and all(o.events and o.events[0][1] == "no_more_bets" for o in taken)
        # once the first card is out the round is `dealing`, not `open` (section 8's state table): whether
        # it is still "open" to the call the text leaves to the device, so a refusal is taken there too
        refused = [o.choice for o in outs if o.answer.codes == frozenset({"REFUSED"})]
        assert refused == (["no more bets refused once the round is dealing"] if before == DealFirst() else []), before
    # with no round open it is refused
    idle = model.step(model.initial(), NoMoreBets())
    assert [o.answer.codes for o in idle] == [frozenset({"REFUSED"})]


def test_an_identity_field_with_a_control_character_is_a_difference(model: TableModel) -> None:
    # docs/protocol.md 6.1: a field is the text the master list records; NUL padding is not part of it
    out = model.step(model.initial(), OpenRound())[0]
    clean = {"controller location": "bench 1", "shoe location": "bench 1"}
    padded = {**clean, "controller location": "bench 1\u0000\u0000"}
    assert [d for d in differences(model, out, Observed(identity=clean), None) if d.rule == R.IDENTITY.name] == []
    found = [d for d in differences(model, out, Observed(identity=padded), None) if d.rule == R.IDENTITY.name]
    assert [(d.what, d.got) for d in found] == [("identity controller location", "bench 1\u0000\u0000")]


def test_a_table_paid_meter_is_reset_right_after_its_hit() -> None:
    # docs/protocol.md section 8: "a meter paid by the table is reset (reset) right after its hit"
    def seen(*events: tuple[str, int | None, str | None, str | None]) -> list[str]:
        return [d.got for d in resets_after_hits(Observed(settle_events=list(events)))]

    hit, reset = ("hit", 2, "major", None), ("reset", None, "major", None)
    assert seen(hit, reset, ("payout", 2, None, "table")) == []
    assert seen(hit, ("payout", 2, None, "table"), reset) == ["payout"]
    assert seen(hit, ("payout", 2, None, "table")) == ["payout"]
    assert seen(hit, ("hit", 2, None, None), reset, ("payout", 2, None, "table")) == ["hit"]
    # an attendant pays it: the reset waits for the key
    assert seen(hit, ("payout", 2, None, "attendant")) == []
    assert seen(("hit", 2, None, None), ("payout", 2, None, "table")) == []  # a fixed line: no meter to reset


def test_a_ping_whose_last_byte_came_late_must_be_answered_and_an_integral_float_is_a_float() -> None:
    from harness.explore.judge import line_differences
    from harness.explore.ops import op_text, parse_op

    def seen(kind: str, answers: list[tuple[str, int | None]], seq: int | None = 9) -> list[str]:
        return [d.rule for d in line_differences(Observed(op="bad_frame", frame_kind=kind, frame_seq=seq,
                                                          frame_answers=answers))]

    assert seen("late-byte", [("ok", 9)]) == []
    assert seen("late-byte", [("BAD_CRC", 0)]) == [R.FRAMING.name]  # abandoned before its last byte
    assert seen("integral-float", [("BAD_FRAME", 9)]) == [] and seen("integral-float", []) == []
    assert seen("integral-float", [("ok", 9)]) == [R.FRAMING.name]  # a command taken from it
    for text in ("bad_frame role=sensors kind=integral-float", "bad_frame role=shoe kind=late-byte"):
        assert op_text(parse_op(text)) == text


def test_a_hello_naming_a_version_not_offered_on_a_line_opened_again_is_a_finding() -> None:
    # docs/protocol.md 6.1: the device answers hello with the version it speaks among those offered
    from harness.explore.judge import line_differences

    fault = "controller: device answers hello with protocol 2, a version tablecert did not offer (offered 1)"
    found = line_differences(Observed(op="reconnect", hello_faults=[fault], unread=True))
    assert [(d.rule, d.got) for d in found] == [(R.HELLO_VERSION.name, fault)]
    assert line_differences(Observed(op="reconnect")) == []
