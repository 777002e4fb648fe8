"""Suite actions for injecting device faults into any role (issue 6, "Device faults").

Why a separate action: the core ``fault`` step calls ``Shoe.fault`` and so reaches only the shoe,
while the faults that prove the harness survives a misbehaving rig (a silent device, a frame with a
bad CRC, line noise, a dropped line, a reboot, a power loss in the middle of a round) must reach the
bet sensors and the progressive controller too.  ``device_fault`` sends the emulator test channel's
``test.fault`` (docs/protocol.md, section 7; harness/emulators/faults.py) to the chosen role; a real
device answers it REFUSED "not an emulator", which ends the case as an ERROR, never a PASS.

The fault itself is not a measurement: what the device does afterwards is, and the case ends as
FAIL (an expectation no longer holds, e.g. wagers refused after a reboot lost the round), ERROR
(the line is down) or TIMEOUT (no usable answer within the request deadline), with the transcript
as evidence.  Example::

    - device_fault: {kind: power-loss, role: controller, duration_ms: 300}
"""

from __future__ import annotations

import time
from typing import Any

from harness.bench.acts import InjectFault
from harness.devices.link import DeviceNak, FramedLink, LostPings
from harness.devices.vocabulary import LINE_FAULTS, SHOE_FAULTS
from harness.errors import DeviceError, DeviceTimeout
from harness.suites.steps.registry import Action, Arg, choice, step

#: line-layer faults of every emulated device, then the shoe's own (harness/emulators/faults.py)
FAULT_KINDS = (*LINE_FAULTS, *SHOE_FAULTS)
FAULT_ROLES = ("shoe", "sensors", "controller")



@step("device_fault", Action(
    {
        "kind": Arg("enum", required=True, choices=FAULT_KINDS),
        "role": Arg("enum", default="controller", choices=FAULT_ROLES),
        "count": Arg("int"),
        "after_ms": Arg("int"),
        "duration_ms": Arg("int"),
    },
    shorthand="kind",
    doc="ask the emulator of `role` to inject a fault: `no-answer`, `bad-crc`, `garbage` (the next "
    "`count` requests/frames/answers), `off-contract` (the next `count` answers carry a field the "
    "protocol contract does not have), `disconnect` or `reboot` (`after_ms` later; a reboot lasts "
    "`duration_ms`), `power-loss` (the whole table, until `power: on` or `duration_ms`)",
    acts=("fault",)
))
def device_fault(runner: Any, step: Any, kind: str, role: str = "controller", count: int | None = None,
                    after_ms: int | None = None, duration_ms: int | None = None) -> None:
    """Send ``test.fault`` to ``role``; a driver without the test channel is a rig ERROR."""
    if getattr(runner.rig, role, None) is None:
        raise DeviceError(f"this case injects a fault into the {role} and the profile has none")
    args = tuple((k, v) for k, v in (("count", count), ("after_ms", after_ms), ("duration_ms", duration_ms))
                 if v is not None)
    runner.perform(InjectFault(role, kind, args))


#: how long an answer to the request the controller must lose is waited for (s): the host's request deadline
LOST_WAIT_S = 1.0


#: the controller's reboot in ``expect_request_lost by: reboot`` (ms), and how far into its silence the
#: request is sent and waited for (s)
REBOOT_MS = 300
SILENT_S = 0.05


@step("expect_request_lost", Action(
    {"by": choice("no-answer", "reboot", default="no-answer"), "count": Arg("int", default=1, lo=1, hi=8)},
    doc="docs/protocol.md section 7, with no round open: `by: no-answer`, the controller's line fault `no-answer` "
    "(`count`, default 1) and then `round.open`: the request is \"lost: not executed, not answered\", so no answer "
    "comes within the host's 1 s deadline; with `count` over one, a ping after it for each other request lost (no "
    "answer within 0.15 s, nor later), then a ping that must be answered (the fault loses count requests, no more); "
    "`by: reboot`, the line fault `reboot` (after 0 ms, 300 ms silent) and "
    "`round.open` sent 50 ms into the silence (\"requests time out meanwhile\"): no answer then, none once the "
    "controller is back.  Either way `lockout.get` still reads wagering closed (no round opened).  The case's "
    "next `open_round` opens the round the lost one would have",
    acts=("fault",)))
def expect_request_lost(runner: Any, step: Any, by: str = "no-answer", count: int = 1) -> None:
    ctrl = runner.controller()
    request = getattr(ctrl, "request", None)
    if request is None:
        raise DeviceError("expect_request_lost sends round.open itself: the controller's driver cannot")
    if not runner.round.between_rounds:
        raise DeviceError("expect_request_lost opens no round of its own: a round of this case is open")
    if by == "reboot":
        _lost_in_reboot(runner, step, ctrl)
        return
    runner.perform(InjectFault("controller", "no-answer", (("count", count),)))
    try:
        answer = f"answered {request('round.open', timeout_s=LOST_WAIT_S)}"
    except DeviceTimeout:
        answer = f"no answer within {LOST_WAIT_S} s"
    except DeviceNak as exc:
        answer = f"NAK {exc.code}"
    runner.measure(step, "the answer to round.open sent after the no-answer line fault", answer,
                   f"no answer within {LOST_WAIT_S} s (lost)", answer.startswith("no answer"))
    if count > 1:
        _the_rest_lost(runner, step, ctrl, count)
    runner.pump(0.1)
    _no_round_opened(runner, step, ctrl)


#: how long each ping after the round.open the no-answer fault loses is waited for (s): none may come
LOST_PING_S = 0.15


def _the_rest_lost(runner: Any, step: Any, ctrl: Any, count: int) -> None:
    link = getattr(ctrl, "link", None)
    if not isinstance(link, FramedLink):
        raise DeviceError("expect_request_lost with a count reads the controller's line: its driver has none")
    lost = link.pings_lost(count - 1, LOST_PING_S, LOST_WAIT_S)
    _measure_lost(runner, step, lost, f"the no-answer fault loses (count {count}, the round.open the first)")
    runner.pump(0.05)
    late = lost.late(link)
    runner.measure(step, "the pings the no-answer fault lost, answered late", len(late), 0, not late,
                   unit="answers")


def _measure_lost(runner: Any, step: Any, lost: LostPings, what: str) -> None:
    """Each ping of ``lost`` unanswered, and the ping after them answered."""
    answered = {n: answer for n, _seq, answer in lost.answered}
    for n in range(1, len(lost.seqs) + 1):
        runner.measure(step, f"the answer to ping {n} of those {what}", answered.get(n, "none readable"),
                       "none readable", n not in answered)
    runner.measure(step, f"the ping after those {what}",
                   "answered" if lost.next_answered else f"no answer within {LOST_WAIT_S} s",
                   "answered (the fault takes count, no more)", lost.next_answered)


def _no_round_opened(runner: Any, step: Any, ctrl: Any) -> None:
    locked = ctrl.lockout_state()
    runner.measure(step, "lockout.get after the lost round.open", "locked" if locked else "open (a round opened)",
                   "locked (no round opened)", locked)


def _lost_in_reboot(runner: Any, step: Any, ctrl: Any) -> None:
    link = getattr(ctrl, "link", None)
    if not isinstance(link, FramedLink):
        raise DeviceError("expect_request_lost by: reboot reads the controller's line: its driver has none")
    runner.perform(InjectFault("controller", "reboot", (("after_ms", 0), ("duration_ms", REBOOT_MS))))
    time.sleep(SILENT_S)
    seq, got = link.call_seq("round.open", None, SILENT_S)
    answer = "no answer" if got is None else f"answered {got}" if not isinstance(got, DeviceError) else f"{got}"
    runner.measure(step, f"the answer to round.open sent {SILENT_S * 1000:g} ms into the controller's reboot",
                   answer, "no answer (silent: requests time out meanwhile)", got is None)
    runner.wait_back()
    runner.pump(0.1)
    later = [code for code, s in link.unmatched if s == seq]
    runner.measure(step, "the round.open sent during the reboot, once the controller was back",
                   f"answered {later[0]}" if later else "never answered", "never answered (lost)", not later)
    _no_round_opened(runner, step, ctrl)


#: how long each ping whose answer a bad-crc or garbage line fault corrupts is waited for (s)
CORRUPT_WAIT_S = 0.15


@step("expect_corrupted_answers", Action(
    {"kind": choice("bad-crc", "garbage", required=True),
     "role": Arg("enum", default="controller", choices=FAULT_ROLES), "count": Arg("int", default=2, lo=1, hi=8)},
    doc="docs/protocol.md section 7, between rounds: the line fault `bad-crc` (\"the next count frames it sends carry "
    "a corrupted CRC\") or `garbage` (\"the next count answers are replaced by line noise\") of `role` with "
    "`count`, its own answer intact, then `count` pings: none has an answer the host can read (each waited for "
    "0.15 s), and the ping after them is answered (the fault corrupts count, no more); with `bad-crc` exactly "
    "`count` frames are dropped for their CRC.  The line is excused from the frames every step judges "
    "(`contract-2-frames-sent`) for the rest of the case",
    acts=("fault",)))
def expect_corrupted_answers(runner: Any, step: Any, kind: str, role: str = "controller", count: int = 2) -> None:
    link = getattr(getattr(runner.rig, role, None), "link", None)
    if not isinstance(link, FramedLink):
        raise DeviceError(f"expect_corrupted_answers reads the {role}'s line: its driver has none")
    runner.perform(InjectFault(role, kind, (("count", count),)))
    dropped_before = len(link.protocol_errors)
    lost = link.pings_lost(count, CORRUPT_WAIT_S, LOST_WAIT_S)
    _measure_lost(runner, step, lost, f"the {role}'s {kind} fault corrupts (count {count})")
    if kind == "bad-crc":
        runner.pump(0.05)
        dropped = sum(1 for e in link.protocol_errors[dropped_before:] if e.whole_frame)
        runner.measure(step, f"frames from the {role} dropped for a failed CRC", dropped, count, dropped == count,
                       unit="frames")

