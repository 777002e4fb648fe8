"""A case's judgement of the frames its devices sent (docs/protocol.md section 2, clause
``contract-2-frames-sent``; the count: :mod:`harness.devices.dropped`).

After every step, a frame a device sent on a line with no noise that failed its check FAILs the case,
and a case that then ran out of answers is that FAIL, not the rig's ERROR.  A cable's line is not
judged there (a failed frame may be the cable's): the step ``expect_frames_sent`` reads it as
advisory.  A line the case corrupts itself, with the line fault ``bad-crc`` or ``garbage``, is
excused for the rest of the case.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from harness.bench.acts import Act, InjectFault
from harness.devices.dropped import FrameWatch, shown

if TYPE_CHECKING:
    from harness.suites.load.model import Step

CLAUSE = "contract-2-frames-sent"
#: the line faults that corrupt a device's frames on purpose (docs/protocol.md section 7)
CORRUPTING = ("bad-crc", "garbage")


def saw(watch: FrameWatch, act: Act) -> None:
    """An act of the case: a corrupting line fault excuses its device's line for the rest of the case."""
    if isinstance(act, InjectFault) and act.fault in CORRUPTING:
        watch.excuse(act.role)


class Judged(Protocol):
    """What :func:`judge_frames` uses of a case (a step's context has it)."""

    frames: FrameWatch

    def measure(self, step: Step, name: str, value: Any, limit: Any, passed: bool, unit: str = "",
                detail: str = "", *, advisory: bool = False, clause: str | None = None) -> None: ...


def judge_frames(runner: Judged, step: Step, *, asked: bool = False) -> None:
    """Measure each line's dropped frames.  Unasked (after every step, and when a device fault stops
    one): those since the last judgement; a noiseless line that dropped one FAILs, nothing else is
    measured.  ``asked`` (the step ``expect_frames_sent``): every line is measured over the whole case,
    a cable's as advisory."""
    for role, noiseless, errors in runner.frames.take(from_start=asked):
        if not errors and not asked:
            continue
        name = (f"frames the {role} sent that fail their check (docs/protocol.md section 2)"
                + (", in the whole case" if asked else ""))
        if noiseless:
            runner.measure(step, name, len(errors), 0, not errors, unit="frames", clause=CLAUSE,
                           detail=("a line with no noise: the receiver dropped them, so what they answered was "
                                   f"never read; {shown(errors)}") if errors else "")
        elif asked:
            runner.measure(step, name, len(errors), 0, not errors, unit="frames", clause=CLAUSE,
                           advisory=bool(errors),
                           detail=(f"ADVISORY: on a cable a failed frame may be the cable's; {shown(errors)}"
                                   if errors else "a cable: a failed frame would be advisory"))
