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

from typing import Any

from harness.bench.acts import InjectFault
from harness.devices.link import DeviceNak
from harness.devices.vocabulary import LINE_FAULTS, SHOE_FAULTS
from harness.errors import DeviceError, DeviceTimeout
from harness.suites.steps.registry import Action, Arg, step

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


@step("expect_request_lost", Action(
    doc="docs/protocol.md section 7, `no-answer`: with no round open, the controller's line fault `no-answer` "
    "(count 1) and then `round.open`: the request is \"lost: not executed, not answered\", so no answer comes "
    "within the host's 1 s deadline and `lockout.get` still reads wagering closed (no round opened).  The case's "
    "next `open_round` opens the round the lost one would have",
    acts=("fault",)))
def expect_request_lost(runner: Any, step: Any) -> None:
    ctrl = runner.controller()
    request = getattr(ctrl, "request", None)
    if request is None:
        raise DeviceError("expect_request_lost sends round.open itself: the controller's driver cannot")
    if not runner.round.between_rounds:
        raise DeviceError("expect_request_lost opens no round of its own: a round of this case is open")
    runner.perform(InjectFault("controller", "no-answer", (("count", 1),)))
    try:
        answer = f"answered {request('round.open', timeout_s=LOST_WAIT_S)}"
    except DeviceTimeout:
        answer = f"no answer within {LOST_WAIT_S} s"
    except DeviceNak as exc:
        answer = f"NAK {exc.code}"
    runner.measure(step, "the answer to round.open sent after the no-answer line fault", answer,
                   f"no answer within {LOST_WAIT_S} s (lost)", answer.startswith("no answer"))
    runner.pump(0.1)
    locked = ctrl.lockout_state()
    runner.measure(step, "lockout.get after the lost round.open", "locked" if locked else "open (a round opened)",
                   "locked (no round opened)", locked)
