"""SCPI instruments of the emulated bench: a time-interval counter and a bench power supply.

Both speak newline-terminated SCPI over a raw socket (pyvisa ``TCPIP::127.0.0.1::PORT::SOCKET``
with ``read_termination``/``write_termination`` "\\n").  Queries answer one line; commands answer
nothing; an unknown header goes to the error queue (``SYST:ERR?`` -> ``-113,"Undefined header"``)
as on a real instrument.

* Counter: the real measurement model (configure the time interval, levels and slopes per
  channel, arm with ``INIT`` before the event, read with ``FETC?`` after it; ``MEAS:TINT?`` starts
  a new measurement), timed from the emulated devices' own edges (see :class:`EmulatedCounter`).
* Power supply: ``OUTP ON|OFF|1|0``, ``OUTP?``, ``VOLT <v>``, ``VOLT?``, ``MEAS:VOLT?``.  Its
  output powers the emulated shoe, sensors and controller.
* Switch unit (a relay multiplexer): ``ROUT:CLOS (@101,102)``, ``ROUT:OPEN (@101)``,
  ``ROUT:CLOS? (@101)`` -> ``1``, ``ROUT:OPEN:ALL``.  A channel the profile's bench wires to the
  table (``EmulatorConfig.wiring``) acts there when it closes: a button is pressed, a reset key
  turned, the controller-sensors cable broken (until the channel opens again).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol

from harness import __version__


class _Wiring(Protocol):
    @property
    def wiring(self) -> Mapping[str, str]: ...
    @property
    def defects(self) -> frozenset[str]: ...


class _Hands(Protocol):
    def handle(self, req: Mapping[str, Any]) -> dict[str, Any]: ...


class PoweredTable(Protocol):
    """The emulated table's lock and power (a :class:`harness.emulators.table.EmulatedTable`), as the
    instruments and the physical side use them."""

    @property
    def lock(self) -> AbstractContextManager[Any]: ...
    @property
    def powered(self) -> bool: ...
    def set_power(self, on: bool) -> None: ...


class InstrumentTable(PoweredTable, Protocol):
    """What the instruments use of the emulated table: its lock and power, the wiring of the switch
    unit's channels and the physical side they act on."""

    @property
    def cfg(self) -> _Wiring: ...
    @property
    def physical(self) -> _Hands: ...


NAN = "9.91E+37"


class Deferred:
    """An answer not known yet (a counter's ``FETC?`` before the measurement completes): the server
    asks :meth:`poll` until it gives the answer line."""

    def __init__(self, poll: Callable[[int], str | None]) -> None:
        self.poll = poll


class EmulatedInstrument:
    """Line-oriented SCPI with an error queue; subclasses add their headers."""

    idn = "tablecert,EMULATED,0,0"

    def __init__(self) -> None:
        self.errors: list[str] = []

    def handle_line(self, line: str) -> str | Deferred | None:
        """Process one program message (``;``-separated units); the answer line, ``None``, or a
        :class:`Deferred` answer when the message's one query waits for a measurement."""
        answers: list[str | Deferred] = []
        for unit in (u.strip() for u in line.strip().split(";")):
            if not unit:
                continue
            header, _, param = unit.partition(" ")
            answer = self.unit(header.upper(), param.strip())
            if answer is not None:
                answers.append(answer)
        if len(answers) == 1 and isinstance(answers[0], Deferred):
            return answers[0]
        return ";".join(a for a in answers if isinstance(a, str)) or None

    def unit(self, header: str, param: str) -> str | Deferred | None:
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


#: defect supply-acts-after-opc: how long after OUTP the output moves
SUPPLY_RELAY_S = 0.15
CHANNELS = ("1", "2")
#: the emulated signals swing 0 V to 5 V: a trigger level must lie between
SIGNAL_HIGH_V = Decimal(5)


class EmulatedCounter(EmulatedInstrument):
    """A universal counter measuring a single time interval, as the real ones do (Keysight 53220A/53230A,
    Agilent 53131A): configure, arm, fetch.

    * ``CONF:TINT (@1),(@2)``: time interval from channel 1 (the shoe's card-out sensor, a 5 V pulse
      per card) to channel 2 (the controller's lock-out line, 5 V while locked); levels back to
      auto, slopes back to positive, nothing armed.
    * ``INP1:LEV 1.5``, ``INP1:LEV:AUTO OFF|ON``, ``INP1:SLOP POS|NEG`` (and ``INP2``): the trigger
      level in volts and the edge.  Auto-level needs a repetitive signal to find the peaks; a
      single card and a single lock-out never give it one, so an auto-levelled channel never fires.
    * ``SYST:TIM 2`` (seconds, or ``INF``): the measurement timeout.
    * ``INIT``: arm.  The first channel-1 edge after arming starts, the next channel-2 edge stops.
    * ``FETC?``: the interval in seconds once measured (the answer waits for it), ``9.91E+37`` when
      the measurement timed out; error -230 and no answer when nothing was armed.
    * ``READ?`` = ``INIT`` + ``FETC?``; ``MEAS:TINT? (@1),(@2)`` = ``CONF`` + ``READ?``: a *new*
      measurement with auto levels, which is why asking it after the round never reads the round.
    """

    idn = f"tablecert,EMU-COUNTER-1,EMU-CNT-0001,{__version__}"

    def __init__(self, table: InstrumentTable) -> None:
        super().__init__()
        self.table = table
        #: the level on each input (the wiring, not the configuration: *RST and CONF keep it)
        self.inputs = dict.fromkeys(CHANNELS, False)
        self.wake: Callable[[], None] = lambda: None
        self._configure()
        self.timeout_ns: int | None = None
        self.armed_ns: int | None = None
        self.start_ns: int | None = None
        self.result: str | None = None

    def _configure(self) -> None:
        self.levels: dict[str, Decimal | None] = dict.fromkeys(CHANNELS)
        self.slopes = dict.fromkeys(CHANNELS, "POS")
        if "counter-conf-stop-slope-negative" in self.table.cfg.defects:
            self.slopes["2"] = "NEG"  # defect: CONF's defaults table with the stop slope negative
        self.armed_ns = None
        self.start_ns = None
        self.stop_ns: int | None = None
        self.result = None

    def _fires(self, channel: str, rising: bool) -> bool:
        level = self.levels[channel]
        if level is None or not Decimal(0) < level < SIGNAL_HIGH_V:
            return False
        return rising == (self.slopes[channel] == "POS")

    def edge(self, channel: int, high: bool, t_ns: int) -> None:
        """The level on an input goes high or low (called by the table with its lock held).  The
        counter triggers on a transition, as a real one does: a level set again (a line raised
        that was never lowered) is no edge."""
        ch = str(channel)
        was, self.inputs[ch] = self.inputs[ch], high
        if was == high:
            return
        rising = high
        if self.armed_ns is None or self.result is not None or t_ns < self.armed_ns or not self._fires(ch, rising):
            return
        if self.timeout_ns is not None and t_ns - self.armed_ns >= self.timeout_ns:
            self.result = NAN  # the measurement timed out before this edge: it measures nothing more
            self.wake()
            return
        if ch == "1" and self.start_ns is None:
            self.start_ns = t_ns
            if self.stop_ns is not None:  # defect counter-stop-before-start: the early stop taken
                self.result = f"{Decimal(self.stop_ns - t_ns).scaleb(-9):.9E}"
                self.wake()
        elif ch == "2" and self.start_ns is None and "counter-stop-before-start" in self.table.cfg.defects:
            self.stop_ns = self.stop_ns if self.stop_ns is not None else t_ns
        elif ch == "2" and self.start_ns is not None and t_ns >= self.start_ns:
            self.result = f"{Decimal(t_ns - self.start_ns).scaleb(-9):.9E}"
            self.wake()

    def _arm(self) -> None:
        self.armed_ns = time.perf_counter_ns()
        self.start_ns = None
        self.stop_ns = None
        self.result = None

    def _fetch(self) -> str | Deferred | None:
        if self.armed_ns is None and self.result is None:
            return self.error('-230,"Data corrupt or stale; no measurement initiated"')
        armed = self.armed_ns

        def poll(now_ns: int) -> str | None:
            with self.table.lock:
                if self.result is None and self.timeout_ns is not None and armed is not None \
                        and now_ns - armed >= self.timeout_ns:
                    self.result = NAN  # measurement timeout
                answer = self.result
                if answer is not None and "counter-fetch-erases" in self.table.cfg.defects:
                    self.result = self.armed_ns = None  # defect: the reading erased by reading it
                return answer

        answer = poll(time.perf_counter_ns())
        return answer if answer is not None else Deferred(poll)

    def unit(self, header: str, param: str) -> str | Deferred | None:
        with self.table.lock:
            return self._unit(header, param)

    def _unit(self, header: str, param: str) -> str | Deferred | None:
        m = re.fullmatch(r"INP(?:UT)?([12])?:(LEV(?:EL)?(?::AUTO)?|SLOP(?:E)?)", header)
        if m:
            return self._input(m.group(1) or "1", m.group(2), param.strip().upper())
        if header in ("CONF:TINT", "CONFIGURE:TINTERVAL", "MEAS:TINT?", "MEASURE:TINTERVAL?"):
            if param and not re.fullmatch(r"\(@1\)\s*,\s*\(@2\)", param):
                return self.error('-224,"Illegal parameter value"')
            self._configure()
            if header.startswith("MEAS"):
                self._arm()
                return self._fetch()
            return None
        if header in ("SYST:TIM", "SYSTEM:TIMEOUT"):
            if param.strip().upper() in ("INF", "INFINITY", "9.9E37"):
                # defect counter-timeout-inf-zero: INF parsed as a number, 0: every measurement times out at once
                self.timeout_ns = 0 if "counter-timeout-inf-zero" in self.table.cfg.defects else None
                return None
            try:
                seconds = Decimal(param)
            except InvalidOperation:
                return self.error('-224,"Illegal parameter value"')
            if not Decimal("0.001") <= seconds <= Decimal(2000):
                return self.error('-222,"Data out of range"')
            # defect counter-timeout-in-ms: the timeout read as milliseconds
            unit_ns = 1_000_000 if "counter-timeout-in-ms" in self.table.cfg.defects else 1_000_000_000
            self.timeout_ns = int(seconds * unit_ns)
            return None
        if header in ("INIT", "INIT:IMM", "INITIATE"):
            self._arm()
            return None
        if header in ("ABOR", "ABORT"):
            self.armed_ns = None
            return None
        if header in ("FETC?", "FETCH?"):
            return self._fetch()
        if header == "READ?":
            self._arm()
            return self._fetch()
        if header == "*RST":
            self._configure()
            self.timeout_ns = None
        return super().unit(header, param)

    def _input(self, channel: str, what: str, value: str) -> str | None:
        if what.startswith("SLOP"):
            if value not in ("POS", "NEG", "POSITIVE", "NEGATIVE"):
                return self.error('-224,"Illegal parameter value"')
            self.slopes[channel] = value[:3]
        elif what.endswith("AUTO"):
            if value not in ("ON", "OFF", "1", "0", "ONCE"):
                return self.error('-224,"Illegal parameter value"')
            if value in ("ON", "1"):
                self.levels[channel] = None
        else:
            try:
                self.levels[channel] = Decimal(value)
            except InvalidOperation:
                return self.error('-224,"Illegal parameter value"')
        return None


class EmulatedPowerSupply(EmulatedInstrument):
    idn = f"tablecert,EMU-PSU-1,EMU-PSU-0001,{__version__}"

    def __init__(self, table: InstrumentTable) -> None:
        super().__init__()
        self.table = table
        self.volts = Decimal("12.000")
        #: the output's setting, as the last OUTP wrote it
        self.setting = True

    def unit(self, header: str, param: str) -> str | Deferred | None:
        if header == "*OPC?" and "supply-opc-output-state" in self.table.cfg.defects:
            return "1" if self.setting else "0"  # defect: *OPC? answers the output's state, not completion
        if header in ("OUTP", "OUTPUT", "OUTP:STAT", "OUTPUT:STATE"):
            state = param.upper()
            if state not in ("ON", "OFF", "1", "0"):
                return self.error('-224,"Illegal parameter value"')
            was, self.setting = self.setting, state in ("ON", "1")
            if "supply-on-ignored-while-on" in self.table.cfg.defects and was and self.setting:
                return None  # defect: OUTP ON taken for nothing while the setting is on, whatever the table shows
            if "supply-on-restarts-output" in self.table.cfg.defects and was and self.setting and self.table.powered:
                # defect: OUTP ON restarts the output's ramp from 0 V: the table loses its power for a moment
                self.table.set_power(False)
                threading.Timer(SUPPLY_RELAY_S, self.table.set_power, args=(True,)).start()
                return None
            if "supply-acts-after-opc" in self.table.cfg.defects:
                # defect supply-acts-after-opc: the output relay moves 150 ms after the command is taken
                threading.Timer(SUPPLY_RELAY_S, self.table.set_power, args=(state in ("ON", "1"),)).start()
                return None
            self.table.set_power(state in ("ON", "1"))
            return None
        if header in ("OUTP?", "OUTPUT?", "OUTP:STAT?"):
            if "supply-on-ignored-while-on" in self.table.cfg.defects:
                return "1" if self.setting else "0"
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
            if "supply-volt-reads-output" in self.table.cfg.defects and not self.table.powered:
                return "0.000"  # defect: VOLT? reads the output's measured voltage, not the setting
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


class SwitchUnit(EmulatedInstrument):
    """Relay channels wired to the table's buttons, reset keys and the sensors cable."""

    idn = f"tablecert,EMU-SWITCH-1,EMU-SW-0001,{__version__}"

    def __init__(self, table: InstrumentTable) -> None:
        super().__init__()
        self.table = table
        self.closed: set[str] = set()

    def unit(self, header: str, param: str) -> str | Deferred | None:
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
