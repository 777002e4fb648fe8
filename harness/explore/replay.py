"""A written sequence played again against a device, judged by the model step by step.

The YAML case an exploration writes (``expect_sequence``, :mod:`harness.suites.steps.explore`)
replays its operations here: from the table as it stands (its meters, payments and layout adopted,
its configuration held to the profile's Rules Submission), each operation through the same
performers, every observable compared with the model after it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from harness.devices.contract import ContractError
from harness.explore import rules as R
from harness.explore.device import ExploredTable
from harness.explore.judge import Difference, Observed, adopt, contract_difference, differences, frames_dropped, judge
from harness.explore.model import ExpectedAnswer, Permitted, TableModel
from harness.explore.ops import DealFirst, DealMisread, DealRest, LoadShoe, Op
from harness.explore.state import State


def start_outcome(state: State) -> Permitted:
    """The table before the first operation: as filed (its configuration) and as it stands."""
    return Permitted(None, ExpectedAnswer(), state, (R.CONFIG_AS_FILED.name,))


def round_need(model: TableModel, state: State, op: Op) -> int:
    """The cards the round being dealt takes (the device side deals exactly that many); for a shoe loaded
    again with the round's first cards out, the cards the round still takes from the new shoe."""
    if isinstance(op, DealRest):
        return state.round_need
    if isinstance(op, (DealFirst, DealMisread)) and state.shoe is not None:
        return model.round_length(state.shoe) or 0
    if isinstance(op, LoadShoe) and state.phase == "dealing":
        need = model.reloaded_need(state, op.cards)
        return 0 if need is None else need - len(state.round_cards)
    return 0


@dataclass
class ReplayedStep:
    index: int
    op: Op | None
    #: empty: the device did as the model permits
    differences: list[Difference]
    choice: str | None = None


def replay(model: TableModel, table: ExploredTable, ops: list[Op]) -> Iterator[ReplayedStep]:
    """Each operation's judgement, in order; stops after the first that differs (step 0 is the table
    before the first operation)."""
    table.settle_lines()
    try:
        obs = table.read(Observed())
        obs.identity = table.identity()
    except ContractError as exc:  # an answer outside the contract is a difference like any other (as explored)
        yield ReplayedStep(0, None, [contract_difference(exc)])
        return
    state = adopt(model, obs)
    diffs = differences(model, start_outcome(state), obs, None)
    yield ReplayedStep(0, None, diffs)
    if diffs:
        return
    identity = dict(obs.identity)
    for i, op in enumerate(ops, 1):
        if not model.legal(state, op):
            yield ReplayedStep(i, op, [Difference("the sequence", "an operation legal here", f"{op.name} in phase "
                                          f"{state.phase}", R.RULES[R.SHOE.name].name)])
            return
        outs = model.step(state, op)
        try:
            got = table.perform(op, round_need(model, state, op))
            out, diffs = judge(model, outs, got, identity)
        except ContractError as exc:
            yield ReplayedStep(i, op, [contract_difference(exc)])
            return
        dropped = frames_dropped(table.frames)  # every frame each device sent, as the explorer judges them
        yield ReplayedStep(i, op, diffs + dropped, out.choice if out is not None else None)
        if out is None or dropped:
            return
        state = out.state
