"""What every emulated device shares: commands in, answers or refusals out, events through a sink.

A device's :meth:`EmulatedDevice.handle` takes one request payload (``{"cmd": ..., **args}``) and returns
the result dict of a RSP (``ok`` is added by the server) or a :class:`Refusal` that the server
sends as a NAK with its code (docs/protocol.md, "NAK codes").  Events go through the ``emit``
callback as ``(role, payload)``; the server numbers them and frames them as EVT.  Nothing here
touches a port, so the same state machines serve the in-process unit tests and the emulator
process.

Commands starting with ``test.`` are the emulator-only test channel: a real device answers them
REFUSED "not an emulator"; the emulators implement them to script shoes, links and faults.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from harness.devices import vocabulary
from harness.devices.vocabulary import NOT_AN_EMULATOR
from harness.emulators.config import EmulatorConfig

Emit = Callable[[str, dict[str, Any]], None]
#: commands that stand for an act at the table: the emulator answers them only with its test channel
REMOTE_ACTS = frozenset(vocabulary.REMOTE_ACTS)


def remote_refusal(cfg: EmulatorConfig, cmd: object) -> Refusal | None:
    """Without a test channel the emulator refuses ``test.*`` and the remote act commands as a real
    device does (docs/protocol.md, sections 7 and 11): those acts happen at its physical side."""
    if cfg.test_channel or not isinstance(cmd, str):
        return None
    if cmd.startswith("test."):
        return Refusal("REFUSED", NOT_AN_EMULATOR)
    if cmd in REMOTE_ACTS:
        return Refusal("REFUSED", f"{NOT_AN_EMULATOR}: {cmd} is done at the table")
    return None


@dataclass(frozen=True)
class Refusal:
    """A negative answer: ``code`` is a NAK code (REFUSED, BAD_ARGS, UNKNOWN_CMD, BUSY, ...)."""

    code: str
    reason: str

    def to_payload(self) -> dict[str, Any]:
        return {"code": self.code, "reason": self.reason}


class BadArgs(Exception):
    """Raised inside a handler for malformed arguments; answered as NAK BAD_ARGS."""


Answer = dict[str, Any] | Refusal
Handler = Callable[[Mapping[str, Any]], Answer]


def arg(req: Mapping[str, Any], name: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
    """Argument ``name`` of ``req`` of type ``kind`` (bools are not ints); BadArgs otherwise."""
    if name not in req:
        if default is ...:
            raise BadArgs(f"missing argument {name!r}")
        return default
    value = req[name]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise BadArgs(f"argument {name!r}: expected {'/'.join(k.__name__ for k in kinds)}, got a boolean")
    if not isinstance(value, kinds):
        raise BadArgs(f"argument {name!r}: expected {'/'.join(k.__name__ for k in kinds)}, "
                      f"got {type(value).__name__}")
    return value


def hello(req: Mapping[str, Any], spoken: int, role: str, *, names_offer: bool = False) -> Answer:
    """Version negotiation as a device that speaks contract version ``spoken`` (docs/protocol.md
    section 6.1): from version 2 the host's ``versions`` are read, version 1 reads ``version`` only."""
    offered = req.get("versions") if spoken >= 2 else None
    if not isinstance(offered, list):
        offered = [req.get("version", spoken)]
    if spoken not in offered:
        if names_offer:  # defect version-refusal-names-offer: the reason built from the offer alone
            return Refusal("VERSION", f"protocol {', '.join(map(repr, offered))} not supported")
        return Refusal("VERSION", f"protocol {', '.join(map(repr, offered))} not supported "
                                  f"(this device speaks {spoken})")
    return {"protocol": spoken, "role": role}


class EmulatedDevice:
    """Base of the shoe, sensors and controller: dispatch, hello/identity/ping, power."""

    role = "device"

    def __init__(self, cfg: EmulatorConfig, emit: Emit, lock: threading.RLock) -> None:
        self.cfg = cfg
        self._emit = emit
        self.lock = lock
        self.powered = True
        self.commands: dict[str, Handler] = {
            "hello": self._hello,
            "identity": lambda req: self.cfg.identity_for(self.role),
            "ping": lambda req: {},
        }

    def emit(self, event: str, **fields: Any) -> None:
        if self.powered:
            self._emit(self.role, {"event": event, **fields})

    def handle(self, req: Mapping[str, Any], *, remote: bool = True) -> Answer:
        """Answer one request payload (see the module docstring); ``remote`` false: the act comes
        from the physical side (a button, a key), not over the line."""
        cmd = req.get("cmd")
        if not isinstance(cmd, str):
            return Refusal("BAD_ARGS", "request has no 'cmd' string")
        refused = remote_refusal(self.cfg, cmd) if remote else None
        if refused is not None:
            return refused
        handler = self.commands.get(cmd)
        if handler is None:
            return Refusal("UNKNOWN_CMD", f"{self.role} has no command {cmd!r}")
        with self.lock:
            try:
                return handler(req)
            except BadArgs as exc:
                return Refusal("BAD_ARGS", str(exc))

    def _hello(self, req: Mapping[str, Any]) -> Answer:
        return hello(req, self.cfg.contract_version, self.role,
                     names_offer="version-refusal-names-offer" in self.cfg.defects)

    def power_off(self) -> None:
        """Volatile state is lost; subclasses clear theirs."""
        self.powered = False

    def power_on(self) -> None:
        self.powered = True
