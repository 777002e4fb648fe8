"""Device faults the emulators inject on demand, at the line layer (docs/protocol.md, section 7).

Why: a certification run must survive a device that goes silent, corrupts a frame, babbles, drops
its line, reboots or loses power in the middle of a round, and must end that case as FAIL, ERROR or
TIMEOUT with the transcript as evidence rather than hang or pass (issue 6, "Device faults").  These
faults live below the devices' state machines, in the server's line layer, so every device (shoe,
sensors, controller) gets them the same way, and the state machines stay free of fault plumbing.

Test channel command, on any device line::

    {"cmd": "test.fault", "kind": K, "count": N, "after_ms": A, "duration_ms": D}

The RSP to the command itself is always sent intact; the fault applies to what follows.

``no-answer``
    the next ``count`` (default 1) requests on this line are lost: not executed, not answered.
``bad-crc``
    the next ``count`` frames this device sends (answers or events) carry a corrupted CRC.
``garbage``
    the next ``count`` answers are replaced by line noise (including a false start-of-frame that
    announces a long frame, so the host's decoder must abandon a partial frame and resynchronise).
``disconnect``
    ``after_ms`` (default 0, at least 50 ms) later the line drops: a pty is closed and a fresh one published behind
    the same symlink, a TCP client is disconnected.  The device keeps its state.
``reboot``
    ``after_ms`` later this device restarts: it answers nothing for ``duration_ms`` (default 200),
    loses its volatile state (a round in progress), restarts its event SEQ at 1 and comes back from
    non-volatile storage (461a.12: meters survive).
``power-loss``
    ``after_ms`` later the whole table loses power (every device goes silent and loses volatile
    state); the bench supply's ``OUTP ON`` restores it, or ``duration_ms`` if given.
``off-contract``
    the next ``count`` answers (RSP) carry a field the protocol contract does not have
    (``"off_contract": true``): a host that holds every message to the contract reports the message
    kind once, naming the field; only a case that reads the field is cost by it.

Other kinds go to the device itself (the shoe's ``misread`` and ``error``).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from harness.devices.framing import HEADER, RSP, SOF, VERSION, Frame, FrameDecoder, encode_frame
from harness.devices.vocabulary import LINE_FAULTS, SHOE_FAULTS
from harness.emulators.table import EmulatedTable

KINDS = tuple(LINE_FAULTS)
DEVICE_KINDS = {"shoe": tuple(SHOE_FAULTS)}
#: the field an ``off-contract`` fault adds to an answer
OFF_CONTRACT_FIELD = "off_contract"
MAX_COUNT = 65535
MAX_MS = 600_000
DEFAULT_BOOT_MS = 200
DISCONNECT_GRACE_S = 0.05
GARBAGE_FALSE_LEN = 600  # the false SOF's LEN: long enough to swallow what follows for a while


class FaultArgs(Exception):
    """Malformed ``test.fault`` arguments; answered as NAK BAD_ARGS."""


def _int_arg(req: Mapping[str, Any], name: str, default: int | None, lo: int, hi: int) -> int | None:
    if name not in req or req[name] is None:
        return default
    value = req[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise FaultArgs(f"argument {name!r}: expected an integer, got {type(value).__name__}")
    if not lo <= value <= hi:
        raise FaultArgs(f"argument {name!r}: {value} outside {lo}..{hi}")
    return value


@dataclass(frozen=True)
class FaultRequest:
    kind: str
    count: int
    after_ms: int
    duration_ms: int | None

    @classmethod
    def parse(cls, req: Mapping[str, Any]) -> FaultRequest:
        kind = req.get("kind")
        if kind not in KINDS:
            raise FaultArgs(f"fault kind {kind!r}: known kinds are {', '.join(KINDS)}")
        count = _int_arg(req, "count", 1, 1, MAX_COUNT)
        after = _int_arg(req, "after_ms", 0, 0, MAX_MS)
        duration = _int_arg(req, "duration_ms", None, 0, MAX_MS)
        assert count is not None and after is not None
        return cls(str(kind), count, after, duration)


def garbage_bytes(n: int) -> bytes:
    """Line noise for the ``n``-th garbage answer: random bytes, then a false SOF with a long LEN."""
    rng = random.Random(n)
    noise = bytes(rng.randrange(256) for _ in range(24)).replace(SOF, b"\x00\x00")
    false_start = HEADER.pack(SOF, VERSION, 0x02, 0xFFFF, GARBAGE_FALSE_LEN)
    return noise + false_start + b'{"ok":tr'


def off_contract(frame: bytes) -> bytes:
    """The same answer with one field the protocol contract does not have."""
    decoded = [f for f in FrameDecoder().feed(frame) if isinstance(f, Frame)]
    if not decoded:
        return frame
    head = decoded[0]
    return encode_frame(head.type, head.seq, {**head.payload, OFF_CONTRACT_FIELD: True})


def corrupt_crc(frame: bytes) -> bytes:
    """The same frame with its CRC inverted: every receiver must reject it."""
    return frame[:-2] + bytes(b ^ 0xFF for b in frame[-2:])


@dataclass
class LineFaults:
    """The armed faults of one line; consulted by the server's ``DeviceLine`` on every request and frame."""

    no_answer: int = 0
    bad_crc: int = 0
    garbage: int = 0
    off_contract: int = 0
    garbled: int = 0  # how many answers were replaced so far (seeds the noise)
    log: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def swallow_request(self) -> bool:
        """True if this request is lost (``no-answer``)."""
        with self.lock:
            if self.no_answer <= 0:
                return False
            self.no_answer -= 1
            self.log.append("no-answer: request dropped")
            return True

    def outgoing(self, frame: bytes, answer: bool) -> bytes:
        """What actually goes on the wire for ``frame`` (an answer or an event)."""
        with self.lock:
            if answer and self.garbage > 0:
                self.garbage -= 1
                self.garbled += 1
                self.log.append("garbage: answer replaced by noise")
                return garbage_bytes(self.garbled)
            if answer and self.off_contract > 0 and frame[3] == RSP:
                self.off_contract -= 1
                self.log.append("off-contract: answer sent with a field the contract does not have")
                frame = off_contract(frame)
            if self.bad_crc > 0:
                self.bad_crc -= 1
                self.log.append("bad-crc: frame sent with a corrupted CRC")
                return corrupt_crc(frame)
            return frame

    def clear(self) -> None:
        with self.lock:
            self.no_answer = self.bad_crc = self.garbage = self.off_contract = 0


class FaultyLine(Protocol):
    """What the faults use of a device line (the server's ``DeviceLine``)."""

    @property
    def role(self) -> str: ...
    @property
    def faults(self) -> LineFaults: ...
    def restart_events(self) -> None: ...
    def answer_queued(self) -> None: ...


_Line = TypeVar("_Line", bound=FaultyLine)


class FaultServer(Protocol[_Line]):
    """What the faults use of the server (the ``EmulatorServer``) whose lines they break."""

    @property
    def table(self) -> EmulatedTable: ...
    @property
    def lines(self) -> Mapping[str, _Line]: ...
    def drop_line(self, line: _Line) -> None: ...
    def stop_waiting(self) -> None: ...


class FaultInjector(Generic[_Line]):
    """The server's side of the faults: arms line faults, runs timed ones in the selector thread."""

    def __init__(self, server: FaultServer[_Line]) -> None:
        self.server = server
        self._due: list[tuple[float, Callable[[], None]]] = []
        self._lock = threading.Lock()

    # -- the command ---------------------------------------------------------------------
    def handles(self, role: str, payload: Mapping[str, Any]) -> bool:
        """Whether this ``test.fault`` is a line fault (else the device's own kinds answer it)."""
        return payload.get("kind") not in DEVICE_KINDS.get(role, ())

    def command(self, line: _Line, payload: Mapping[str, Any]) -> tuple[dict[str, Any], Callable[[], None]]:
        """Arm a fault: the answer to send, and what to do once it is on the wire."""
        f = FaultRequest.parse(payload)
        answer: dict[str, Any] = {"kind": f.kind, "count": f.count, "after_ms": f.after_ms}
        if f.kind in ("no-answer", "bad-crc", "garbage", "off-contract"):
            with line.faults.lock:
                attr = f.kind.replace("-", "_")
                count = f.count
                defects = self.server.table.cfg.defects
                if f.kind == "no-answer" and "no-answer-loses-one" in defects:
                    count = 1  # defect: the fault's count read as one
                if f.kind == "bad-crc" and "bad-crc-one-more" in defects:
                    count += 1  # defect: one frame more corrupted than asked
                setattr(line.faults, attr, getattr(line.faults, attr) + count)
            return answer, _nothing
        action = {
            "disconnect": lambda: self._disconnect(line),
            "reboot": lambda: self._reboot(line, DEFAULT_BOOT_MS if f.duration_ms is None else f.duration_ms),
            "power-loss": lambda: self._power_loss(f.duration_ms),
        }[f.kind]
        delay_s = f.after_ms / 1000
        if f.kind == "disconnect":
            # a pty hang-up flushes unread input: give the host time to read the RSP first
            delay_s = max(delay_s, DISCONNECT_GRACE_S)
        if delay_s == 0:
            return answer, action
        return answer, lambda: self.schedule(delay_s, action)

    # -- timing --------------------------------------------------------------------------
    def schedule(self, delay_s: float, action: Callable[[], None]) -> None:
        with self._lock:
            self._due.append((time.monotonic() + delay_s, action))
            self._due.sort(key=lambda item: item[0])
        self.server.stop_waiting()

    def next_due(self, now: float) -> float | None:
        """Seconds until the next timed fault (None: nothing scheduled)."""
        with self._lock:
            return max(0.0, self._due[0][0] - now) if self._due else None

    def tick(self, now: float) -> None:
        """Run every timed fault that is due (called from the selector loop)."""
        while True:
            with self._lock:
                if not self._due or self._due[0][0] > now:
                    return
                _, action = self._due.pop(0)
            action()

    # -- the faults ----------------------------------------------------------------------
    def _disconnect(self, line: _Line) -> None:
        line.faults.log.append("disconnect: line dropped")
        if "disconnect-drops-every-line" in self.server.table.cfg.defects:
            for other in list(self.server.lines.values()):  # defect: one device's fault drops every line
                self.server.drop_line(other)
            return
        self.server.drop_line(line)

    def _reboot(self, line: _Line, boot_ms: int) -> None:
        table = self.server.table
        device = table.devices[line.role]
        line.faults.log.append(f"reboot: off for {boot_ms} ms")
        with table.lock:
            device.power_off()
        line.faults.clear()

        def back() -> None:
            with table.lock:
                if device.powered:
                    return
                if line.role != "shoe" or "shoe-reboot-keeps-seq" not in table.cfg.defects:
                    line.restart_events()  # (the defect: the shoe's warm start keeps its event counter)
                device.power_on()
            line.answer_queued()

        self.schedule(boot_ms / 1000, back)

    def _power_loss(self, duration_ms: int | None) -> None:
        table = self.server.table
        for line in self.server.lines.values():
            line.faults.clear()
            line.faults.log.append("power-loss: table unpowered")
        table.set_power(False)
        if duration_ms is None or "power-loss-duration-ignored" in table.cfg.defects:
            return  # (the defect: back only at the supply's OUTP ON)

        def back() -> None:
            if table.powered:
                return
            for line in self.server.lines.values():
                line.restart_events()
            table.set_power(True)

        self.schedule(duration_ms / 1000, back)


def _nothing() -> None:
    return None
