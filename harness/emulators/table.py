"""One emulated table: shoe, bet sensors and controller wired together, plus the instruments.

This is the in-process mode: :class:`EmulatedTable` holds the state machines and routes requests by role;
events go to the ``emit`` callback given (the server frames them; unit tests collect them in a
list).  The wiring a real table has is wired here too: the shoe's card-out line into the
controller, the sensors' acceptance through the controller, and the bench power supply's output
powering the shoe, the sensors and the controller (``OUTP OFF`` drops them all; ``OUTP ON``
reboots them from non-volatile storage).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from harness.cards import Card
from harness.emulators.base import Answer, Emit, Refusal
from harness.emulators.clock import Scheduler
from harness.emulators.config import EmulatorConfig
from harness.emulators.controller import Controller
from harness.emulators.nvstore import NVStore
from harness.emulators.physical import PhysicalSide
from harness.emulators.scpi import EmulatedCounter, EmulatedPowerSupply, SwitchUnit
from harness.emulators.sensors import Sensors
from harness.emulators.shoe import EmulatedShoe

ROLES = ("shoe", "sensors", "controller")
#: how long the card-out sensor's pulse stays high (its falling edge is what a NEG slope sees)
CARD_PULSE_NS = 50_000
INSTRUMENTS = ("counter", "power", "switch")


class EmulatedTable:
    """The state machines of one table; see the module docstring."""

    def __init__(self, cfg: EmulatorConfig, emit: Emit, nv_path: Path | None = None) -> None:
        self.cfg = cfg
        self.lock = threading.RLock()
        self.clock = Scheduler()
        if nv_path is None and cfg.nv_dir is not None:
            nv_path = cfg.nv_dir / "controller-nv.json"
        self.nv = NVStore(nv_path, fsync=cfg.nv_fsync)
        self.sensors = Sensors(cfg, emit, self.lock, self._gate, self._may_remove)
        self.controller = Controller(cfg, emit, self.lock, self.clock, self.sensors, self.nv)
        self.shoe = EmulatedShoe(cfg, emit, self.lock, self.clock, self._card_out)
        self.devices = {"shoe": self.shoe, "sensors": self.sensors, "controller": self.controller}
        self.counter = EmulatedCounter(self)
        self.controller.on_line = lambda high, t_ns: self.counter.edge(2, high, t_ns)
        self.power = EmulatedPowerSupply(self)
        self.switch = SwitchUnit(self)
        self.physical = PhysicalSide(self)
        #: called as the power comes back, before the devices boot (the server restarts its lines'
        #: event numbering there: docs/protocol.md section 4, from 1 after power-up)
        self.on_power_up: list[Callable[[], None]] = []

    def _card_out(self, card: Card, t_ns: int) -> None:
        """The shoe's card-out sensor: a pulse on the counter's channel 1, and the controller's input."""
        self.counter.edge(1, True, t_ns)
        self.counter.edge(1, False, t_ns + CARD_PULSE_NS)
        self.controller.card_out(card, t_ns)

    def _gate(self, seat: int, kind: str, amount: int) -> str | None:
        return self.controller.wager_refusal(seat, kind, amount)

    def _may_remove(self) -> str | None:
        return self.controller.removal_refusal()

    @property
    def powered(self) -> bool:
        return self.controller.powered

    def handle(self, role: str, req: Mapping[str, Any]) -> Answer | None:
        """Answer one request for ``role``; ``None`` when the device is unpowered (no answer)."""
        device = self.devices[role]
        if not device.powered:
            return None
        return device.handle(req)

    def set_power(self, on: bool) -> None:
        """The bench supply's output: off loses volatile state; on reboots from NV."""
        with self.lock:
            if on == self.powered:
                return
            if on:
                for hook in self.on_power_up:
                    hook()
            for device in (self.shoe, self.sensors, self.controller):
                if on:
                    device.power_on()
                else:
                    device.power_off()

    def close(self) -> None:
        self.clock.stop()


def refusal_or_result(answer: Answer) -> dict[str, Any]:
    """For callers that want one dict: ``{"ok": true, ...}`` or ``{"ok": false, "code", "reason"}``."""
    if isinstance(answer, Refusal):
        return {"ok": False, **answer.to_payload()}
    return {"ok": True, **answer}
