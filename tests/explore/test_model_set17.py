"""The model's checks added after the seventeenth set of faults (tests/independent/FAULTS17.md) was measured:
the key of a meter the table does not have, the shoe's own reboot, and a hello answered as another role on a
line opened again (pure: no device, no process)."""

from __future__ import annotations

from test_model import _shown
from test_model_widened import play

from harness.explore import rules as R
from harness.explore.judge import Observed, differences, judge, line_differences
from harness.explore.model import TableModel
from harness.explore.ops import DealFirst, LoadShoe, OpenRound, PlaceWager, Reboot, ResetKey, op_text, parse_op

CARDS = ("2S", "3H", "4D", "5C", "6S", "7H", "8D", "9C")


def test_the_key_of_a_meter_the_table_does_not_have_is_refused_and_changes_nothing(model: TableModel) -> None:
    # docs/protocol.md section 3: "a reset key with nothing to reset" is REFUSED; a meter the table does not have
    # is also an argument out of range (BAD_ARGS)
    s = model.initial()
    assert "mystery" not in s.meters and model.legal(s, ResetKey("mystery"))
    (out,) = model.step(s, ResetKey("mystery"))
    assert out.answer.codes == {"REFUSED", "BAD_ARGS"} and out.state.meters == s.meters
    (mega,) = model.step(s, ResetKey("mega"))  # a meter it has, with nothing waiting: REFUSED alone
    assert mega.answer.codes == {"REFUSED"}
    # answered as if a meter were reset: a difference of rule reset-key
    taken = _shown(out.state, code="ok", fields={"meter": "mystery", "amount": 0})
    assert R.RESET_KEY.name in {d.rule for d in differences(model, out, taken, None)}


def test_the_shoes_reboot_keeps_the_table_and_leaves_its_cards_to_what_it_counts(model: TableModel) -> None:
    # docs/protocol.md section 7: a reboot restarts the device from non-volatile storage, its event SEQ at 1
    s = play(model, model.initial(), LoadShoe(CARDS))
    assert model.legal(s, Reboot("shoe"))
    assert not model.legal(play(model, s, OpenRound()), Reboot("shoe"))  # between rounds only
    (out,) = model.step(s, Reboot("shoe"))
    assert out.state.shoe is None and out.state.shoe_kept == (CARDS, 0) and "shoe" in out.state.seq_fresh
    assert (out.state.phase, out.state.locked, out.state.meters) == (s.phase, s.locked, s.meters)
    # it counts its cards as before: known again, and the next round's first card closes wagering as ever
    kept, diffs = judge(model, [out], _shown(out.state, shoe=(0, 8), shoe_state="ready"))
    assert kept is not None and not diffs and kept.state.shoe == CARDS
    dealt = play(model, kept.state, OpenRound(), PlaceWager(1, "player", 500), DealFirst())
    assert dealt.locked and dealt.cause == "card"
    assert op_text(parse_op("reboot role=shoe")) == "reboot role=shoe"


def test_a_hello_answered_as_another_role_on_a_line_opened_again_is_a_finding() -> None:
    # docs/protocol.md 6.1: "The host checks that role matches the role the profile gives the device"
    fault = "sensors: device answers as 'shoe', the profile puts it in the 'sensors' role"
    found = line_differences(Observed(op="reconnect", hello_faults=[fault], unread=True))
    assert [(d.rule, d.got) for d in found] == [(R.HELLO_VERSION.name, fault)]


def test_cards_dealt_at_once_come_before_the_deals_answer(model: TableModel) -> None:
    # docs/protocol.md section 7, test.deal: "as card events (0 = at once, before the RSP)"
    out = model.step(model.initial(), OpenRound())[0]
    assert [d for d in differences(model, out, _shown(out.state, dealt_at_once=(3, 3)), None)
            if d.rule == R.CARD_EVENTS.name] == []
    late = [(d.rule, d.expected, d.got) for d in differences(model, out, _shown(out.state, dealt_at_once=(0, 3)), None)]
    assert (R.CARD_EVENTS.name, "all 3", 0) in late


def test_a_replayed_answer_outside_the_contract_is_a_difference_not_an_error(model: TableModel) -> None:
    # docs/protocol.md section 3 ("Messages outside the contract"): a case played as the explorer plays it FAILs
    # on such a message, as the explorer finds it, under rule contract-message
    from typing import Any

    from harness.devices.contract import ContractError
    from harness.explore.replay import replay

    s = model.initial()

    class Table:
        def settle_lines(self) -> None: ...

        def read(self, obs: Observed) -> Observed:
            return _shown(s, config=None)

        def identity(self) -> dict[str, Any]:
            return {}

        def perform(self, op: object, need: int) -> Observed:
            raise ContractError("controller", "reply to round.open", "round", "missing (the contract requires it)",
                                "reply:round.open")

    steps = list(replay(model, Table(), [OpenRound()]))  # type: ignore[arg-type]
    assert steps[0].differences == []
    (diff,) = steps[-1].differences
    assert steps[-1].index == 1 and diff.rule == R.CONTRACT_MESSAGE.name and "round.open" in diff.what
