"""SCPI instruments of the emulated bench: a time-interval counter and a bench power supply.

Both speak newline-terminated SCPI over a raw socket (pyvisa ``TCPIP::127.0.0.1::PORT::SOCKET``
with ``read_termination``/``write_termination`` "\\n").  Queries answer one line; commands answer
nothing; an unknown header goes to the error queue (``SYST:ERR?`` -> ``-113,"Undefined header"``)
as on a real instrument.

* Counter: ``MEAS:TINT? (@1),(@2)`` is the interval from the last card out of the shoe (channel 1,
  the card-out line) to the controller's lock-out (channel 2), in seconds, taken from the
  emulated devices' own timestamps; ``9.91E+37`` (SCPI "not a number") when no card-caused
  lock-out has happened since power-up.
* Power supply: ``OUTP ON|OFF|1|0``, ``OUTP?``, ``VOLT <v>``, ``VOLT?``, ``MEAS:VOLT?``.  Its
  output powers the emulated shoe, sensors and controller.
* Switch unit (a relay multiplexer): ``ROUT:CLOS (@101,102)``, ``ROUT:OPEN (@101)``,
  ``ROUT:CLOS? (@101)`` -> ``1``, ``ROUT:OPEN:ALL``.  A channel the profile's bench wires to the
  table (``EmulatorConfig.wiring``) acts there when it closes: a button is pressed, a reset key
  turned, the controller-sensors cable broken (until the channel opens again).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from harness import __version__

if TYPE_CHECKING:
    from harness.emulators.table import Table

NAN = "9.91E+37"


class Instrument:
    """Line-oriented SCPI with an error queue; subclasses add their headers."""

    idn = "tablecert,EMULATED,0,0"

    def __init__(self) -> None:
        self.errors: list[str] = []

    def handle_line(self, line: str) -> str | None:
        """Process one program message (``;``-separated units); the answer line or ``None``."""
        answers = []
        for unit in (u.strip() for u in line.strip().split(";")):
            if not unit:
                continue
            header, _, param = unit.partition(" ")
            answer = self.unit(header.upper(), param.strip())
            if answer is not None:
                answers.append(answer)
        return ";".join(answers) if answers else None

    def unit(self, header: str, param: str) -> str | None:
        if header == "*IDN?":
            return self.idn
        if header in ("*RST", "*CLS"):
            self.errors.clear()
            return None
        if header == "*OPC?":
            return "1"
        if header in ("SYST:ERR?", "SYSTEM:ERROR?", "SYST:ERR:NEXT?"):
            return self.errors.pop(0) if self.errors else '0,"No error"'
        return self.error('-113,"Undefined header"')

    def error(self, text: str) -> str | None:
        """Queue an error; a command that fails answers nothing (hence ``None``)."""
        self.errors.append(text)
        del self.errors[:-20]
        return None


class Counter(Instrument):
    idn = f"tablecert,EMU-COUNTER-1,EMU-CNT-0001,{__version__}"

    def __init__(self, table: Table) -> None:
        super().__init__()
        self.table = table

    def unit(self, header: str, param: str) -> str | None:
        if header in ("MEAS:TINT?", "MEASURE:TINTERVAL?"):
            if param and not re.fullmatch(r"\(@1\)\s*,\s*\(@2\)", param):
                return self.error('-224,"Illegal parameter value"')
            with self.table.lock:
                interval = self.table.controller.interval_ns()
            if interval is None:
                return NAN
            return f"{Decimal(interval).scaleb(-9):.9E}"
        return super().unit(header, param)


class PowerSupply(Instrument):
    idn = f"tablecert,EMU-PSU-1,EMU-PSU-0001,{__version__}"

    def __init__(self, table: Table) -> None:
        super().__init__()
        self.table = table
        self.volts = Decimal("12.000")

    def unit(self, header: str, param: str) -> str | None:
        if header in ("OUTP", "OUTPUT", "OUTP:STAT", "OUTPUT:STATE"):
            state = param.upper()
            if state not in ("ON", "OFF", "1", "0"):
                return self.error('-224,"Illegal parameter value"')
            self.table.set_power(state in ("ON", "1"))
            return None
        if header in ("OUTP?", "OUTPUT?", "OUTP:STAT?"):
            return "1" if self.table.powered else "0"
        if header in ("VOLT", "VOLTAGE"):
            try:
                value = Decimal(param)
            except InvalidOperation:
                return self.error('-224,"Illegal parameter value"')
            if not Decimal(0) <= value <= Decimal(30):
                return self.error('-222,"Data out of range"')
            self.volts = value
            return None
        if header in ("VOLT?", "VOLTAGE?"):
            return f"{self.volts:.3f}"
        if header in ("MEAS:VOLT?", "MEASURE:VOLTAGE?"):
            return f"{self.volts if self.table.powered else Decimal(0):.3f}"
        return super().unit(header, param)


def channel_list(param: str) -> list[str] | None:
    """``(@101,102,105:107)`` -> ["101", "102", "105", "106", "107"]; None when malformed."""
    m = re.fullmatch(r"\(@([0-9:,\s]+)\)", param.strip())
    if m is None:
        return None
    out: list[str] = []
    for part in (p.strip() for p in m.group(1).split(",")):
        lo, sep, hi = part.partition(":")
        if not lo.isdigit() or (sep and not hi.isdigit()):
            return None
        out += [str(n) for n in range(int(lo), int(hi) + 1)] if sep else [lo]
    return out


class SwitchUnit(Instrument):
    """Relay channels wired to the table's buttons, reset keys and the sensors cable."""

    idn = f"tablecert,EMU-SWITCH-1,EMU-SW-0001,{__version__}"

    def __init__(self, table: Table) -> None:
        super().__init__()
        self.table = table
        self.closed: set[str] = set()

    def unit(self, header: str, param: str) -> str | None:
        if header in ("ROUT:OPEN:ALL", "ROUTE:OPEN:ALL", "*RST"):
            for ch in sorted(self.closed):
                self._set(ch, False)
            return super().unit(header, param) if header == "*RST" else None
        if header in ("ROUT:CLOS", "ROUTE:CLOSE", "ROUT:OPEN", "ROUTE:OPEN", "ROUT:CLOS?", "ROUTE:CLOSE?"):
            channels = channel_list(param)
            if channels is None:
                return self.error('-224,"Illegal parameter value"')
            if header.endswith("?"):
                return ",".join("1" if ch in self.closed else "0" for ch in channels)
            for ch in channels:
                self._set(ch, header.startswith("ROUT:CLOS") or header.startswith("ROUTE:CLOSE"))
            return None
        return super().unit(header, param)

    def _set(self, channel: str, close: bool) -> None:
        if (channel in self.closed) == close:
            return
        if close:
            self.closed.add(channel)
        else:
            self.closed.discard(channel)
        target = self.table.cfg.wiring.get(channel)
        if target is None:
            return
        act, _, meter = target.partition(":")
        physical = self.table.physical
        if act == "comm":
            physical.handle({"act": "cable", "connected": not close})
        elif not close:
            return  # a button or a key acts when the contact closes
        elif act == "reset-key":
            physical.handle({"act": "key", "meter": meter})
        else:
            physical.handle({"act": "button", "name": {"lockout-button": "lockout"}.get(act, act)})
