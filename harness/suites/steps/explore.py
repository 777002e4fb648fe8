"""``expect_sequence``: a sequence of operations the explorer found and shrunk, played again.

``tablecert explore`` (docs/explore.md) writes each finding as a case with this one step: the
operations in order (``open_round``, ``wager seat=1 type=player amount=100``, ``load 9S QS ...``,
``deal_first``, ``deal_rest``, ``config_write {...}``, ``power_cycle``, ``comm down``, ...), each
carried out through the bench's performers and judged by the explorer's model of the device
contract (:mod:`harness.explore.model`): every observable after every operation (the meters to the
fraction of a cent, the payout meters, the pending payments, the layout, the configuration, the
lock-out and its cause, the shoe's counts, the round number, the identity) against every behaviour
the contract permits.  One measurement per operation, against the clause of the rule it applies.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from harness.bench.acts import PressLockout
from harness.devices.framing import next_seq
from harness.devices.registry import open_device
from harness.explore.device import OP_ACTS, ExploredTable, framed_roles, why_not_explorable
from harness.explore.model import TableModel, unsupported
from harness.explore.ops import BadFrame, ForeignCommand, Pipelined, SeqFrom, op_text, parse_op
from harness.explore.replay import replay
from harness.explore.rules import RULES
from harness.suites.run.context import NotApplicableHere
from harness.suites.run.rig import device_entry
from harness.suites.steps.registry import Action, Arg, step

if TYPE_CHECKING:
    from harness.profiles.model import Profile
    from harness.suites.load.model import Step
    from harness.suites.run.context import CaseContext


def sequence_acts(ops: Any) -> tuple[str, ...]:
    """The acts the operations ``ops`` (as written in a case) need besides the step's own: the button, no more
    bets, the reset key, the power, the link, and the faults only a test channel makes."""
    texts = ops if isinstance(ops, (list, tuple)) else ()
    names = (str(text).strip().partition(" ")[0] for text in texts)
    return tuple(dict.fromkeys(OP_ACTS[name] for name in names if name in OP_ACTS))


def sequence_unfit(profile: Profile) -> str | None:
    """Why no sequence can be played and judged on the profile's table: a table the model does not stand for,
    or a bench where a person performs the acts every operation needs (docs/explore.md)."""
    why = unsupported(profile)
    if why is not None:
        return f"the explorer's model cannot play {why}"
    return why_not_explorable(profile)


@step("expect_sequence", Action(
    {"ops": Arg("str-list", required=True)},
    shorthand="ops",
    doc="docs/explore.md: play the operations `ops` (as `tablecert explore` writes them: `open_round`, "
    "`wager seat=1 type=player amount=100`, `remove_wager seat=1 type=player`, `lockout_button`, "
    "`no_more_bets`, `load KS 9H ...`, `deal_first`, `deal_rest`, `reset_key mega`, `config_write {json}`, "
    "`power_cycle`, `comm down|up`, `void`, `reconnect`, `reboot`, `reboot role=sensors`, `deal_misread`, "
    "`shoe_error`, `bad_frame role=controller`, `bad_frame role=shoe kind=payload` (kinds crc, payload, "
    "duplicate-key, not-object, not-utf8, unknown-type, type-high-bits, version, oversized, nested, stall, "
    "integral-float, late-byte, split-start, full-length, spaced, after-false-header, empty, nan, trailing), "
    "`pipelined role=shoe count=3`, "
    "`seq_from role=controller seq=65535`, `foreign role=sensors cmd=meters.get`) from the table as it "
    "stands, and after each compare every observable (each read's answer time too) with the explorer's "
    "model of the device contract; stops at the first difference.  "
    "A case whose operations need an act no performer of the bench carries out (the button, the power, a "
    "fault only a test channel makes) is NOT APPLICABLE, and so is one on a table the model does not stand "
    "for (a mystery progressive, resets at the hit, no automatic lock-out) or on a bench where a person loads, "
    "deals or places the wagers (known before the run)",
    acts=("load", "deal", "wager", "remove-wager", "open-round"),
    acts_from=lambda args: sequence_acts(args.get("ops")),
    unfit=sequence_unfit,
))
def expect_sequence(runner: CaseContext, step: Step, ops: tuple[str, ...]) -> None:

    parsed = [parse_op(text, f"expect_sequence ops[{i}]") for i, text in enumerate(ops)]
    why = sequence_unfit(runner.profile)
    if why is not None:  # known before the run too (the step's unfit): kept for a profile changed since
        raise NotApplicableHere(why)
    framed = framed_roles(runner.profile)
    for op in parsed:
        if isinstance(op, (BadFrame, ForeignCommand, Pipelined, SeqFrom)) and op.role not in framed:
            raise NotApplicableHere(f"{op_text(op)}: the {op.role} is not reached on a line of its own through the "
                                    "reference protocol's driver (a frame is the host's act on that line)")
    model = TableModel(runner.profile)
    table = ExploredTable(runner.profile, runner.rig, runner.performers, royal9=model.royal9)
    table.stage = runner  # type: ignore[assignment]
    table.frames = runner.frames  # one watch: the sequence judges its frames, the case's after-step check the rest
    for judged in replay(model, table, parsed):
        name = "the table before the first operation" if judged.op is None else \
            f"operation {judged.index}: {op_text(judged.op)}"[:200]
        rule: Any = RULES.get(judged.differences[0].rule) if judged.differences else None
        shown = "; ".join(d.text() for d in judged.differences) or "as the model permits"
        runner.measure(step, name, shown[:2000], "as the model of docs/protocol.md permits", not judged.differences,
                       detail=(f"rule {rule.name} ({rule.source}): {rule.text}" if rule is not None else
                               judged.choice or ""),
                       clause=rule.clause if rule is not None else None)


@step("expect_event_seq_across_reconnect", Action(
    {},
    doc="docs/protocol.md section 4: after an event of the controller, the host closes its line to the "
    "controller and opens it again, and the lock-out button is pressed (by the bench's performer: the test "
    "channel, a relay or a person), which sends a lockout event while wagering is open; that event's SEQ must "
    "follow the last one seen before the reconnection",
    acts=("lockout-button",),
))
def expect_event_seq_across_reconnect(runner: CaseContext, step: Step) -> None:

    ctrl = runner.controller()
    spec = runner.profile.devices.get("controller")
    if spec is None or spec.port is None or getattr(ctrl, "request", None) is None:
        raise NotApplicableHere("the controller is not reached over a line of the reference protocol")
    runner.pump(0.05)
    seen = [e for e in runner.round.ctrl_events]
    if not seen:
        raise RuntimeError("expect_event_seq_across_reconnect needs an event of the controller first (open_round)")
    last = seen[-1].seq
    entry = device_entry(runner.profile, "controller", dict(getattr(runner.rig.emulator, "addresses", None) or {}))
    ctrl.close()
    again: Any = open_device("controller", entry)
    runner.rig.controller = again
    before = len(runner.round.ctrl_events)
    # the button, as the bench presses it (a bench twin has no test channel: its relay presses it)
    runner.perform(PressLockout())
    runner.round.closed_by_dealer = True
    deadline = time.monotonic() + 1.0
    while len(runner.round.ctrl_events) == before and time.monotonic() < deadline:
        runner.pump(0.02)
    got = runner.round.ctrl_events[before:]
    first = got[0].seq if got else None
    runner.measure(step, "the controller's first event SEQ after the host reconnected", first,
                   f"{next_seq(last)} (the successor of {last})", first == next_seq(last))
