"""The frames each device line dropped because the device sent them wrong (docs/protocol.md section 2,
clause ``contract-2-frames-sent``), counted from a mark.

The driver's reader drops a frame that fails its check and writes it into the transcript; the request
it answered then waits for its deadline.  On a line that carries no noise (a pty or a 127.0.0.1 socket:
:attr:`~harness.devices.transport.Transport.noiseless`) such a frame is the sender's.  Counted: a frame
whose CRC fails, whose CRC is good around a bad VER, an unknown TYPE or a payload that is not a JSON
object, or whose header announces more than 4096 bytes
(:attr:`~harness.devices.framing.ProtocolError.whole_frame`).  Not counted: bytes outside any
frame and a frame cut off, which a sender losing its power leaves.  A certification case judges them
after each step (harness.suites.run.frames); the explorer after each operation.
"""

from __future__ import annotations

from typing import Any

from harness.devices.framing import ProtocolError

ROLES = ("shoe", "sensors", "controller")


def _link(rig: Any, role: str) -> Any:
    return getattr(getattr(rig, role, None), "link", None)


class FrameWatch:
    """Where each device line's dropped frames stood when last taken, and the lines excused (a line
    fault corrupting them on purpose).  The rig's links are looked up at each take: a line opened again
    is a new link, counted from its start."""

    def __init__(self, rig: Any) -> None:
        self.rig = rig
        self.marks: dict[str, int] = {}
        self.excused: set[str] = set()
        for role in ROLES:
            errors = getattr(_link(rig, role), "protocol_errors", None)
            if isinstance(errors, list):
                self.marks[role] = len(errors)
        #: where each line stood when the watch began
        self.start = dict(self.marks)

    def excuse(self, role: str) -> None:
        """``role``'s line is corrupted on purpose (the line fault ``bad-crc`` or ``garbage``): not taken."""
        self.excused.add(role)

    def take(self, *, from_start: bool = False) -> list[tuple[str, bool, list[ProtocolError]]]:
        """Each line's (role, noiseless, the whole frames it dropped since last taken, or since the watch
        began), the excused lines left out."""
        out = []
        for role, mark in (self.start if from_start else self.marks).items():
            link = _link(self.rig, role)
            errors = getattr(link, "protocol_errors", None)
            if not isinstance(errors, list):
                continue
            self.marks[role] = len(errors)
            if role in self.excused:
                continue
            noiseless = bool(getattr(link.transport, "noiseless", False))
            out.append((role, noiseless, [e for e in errors[mark if mark <= len(errors) else 0:] if e.whole_frame]))
        return out


def shown(errors: list[ProtocolError]) -> str:
    """The first three dropped frames, each with its first 48 bytes."""
    return "; ".join(f"{e.code}: {e.reason} ({e.raw[:48].hex(' ')}{' ...' if len(e.raw) > 48 else ''})"
                     for e in errors[:3]) + (f"; and {len(errors) - 3} more" if len(errors) > 3 else "")
