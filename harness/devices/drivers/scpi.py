"""SCPI instruments over VISA: the time-interval counter and the bench power supply.

Opened by explicit resource name only (``TCPIP::127.0.0.1::PORT::SOCKET``, ``ASRL/dev/...::INSTR``,
or a pyvisa-sim name with ``backend="fixtures/visa/instruments.yaml@sim"``).  Never
``list_resources()``: with ``@py`` it broadcasts on the network (pyvisa-py's resource discovery).
Every command and answer goes to a transcript, stamped in the calling thread, which is the thread
that reads the answer (VISA I/O is synchronous).

Profile entry keys: ``resource`` (required), ``backend`` (default ``@py``), ``timeout_ms``
(default 2000).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, ClassVar, Self

from harness.devices.drivers.reference import check_options
from harness.devices.roles import Counter, PowerSupply
from harness.devices.transcript import IN, OUT, Transcript
from harness.errors import DeviceError, DeviceTimeout, InputError

SCPI_OPTIONS = frozenset({"resource", "backend", "timeout_ms"})
#: the pyvisa-sim definitions shipped with tablecert (a stateless counter and power supply)
SIM_DEFINITIONS = Path(__file__).resolve().parents[3] / "fixtures" / "visa" / "instruments.yaml"
SIM_BACKEND = f"{SIM_DEFINITIONS}@sim"
#: SCPI "not a number": the counter has no interval to report
SCPI_NAN = Decimal("9.91E+37")
#: a counter input's trigger level when the profile names none (volts; TTL-level signals)
DEFAULT_LEVEL = Decimal("1.5")


class ScpiInstrument:
    """A newline-terminated SCPI instrument opened through pyvisa by explicit resource name."""

    role: ClassVar[str] = ""
    options: ClassVar[frozenset[str]] = SCPI_OPTIONS

    def __init__(self, resource_name: str, backend: str = "@py", *, timeout_ms: int = 2000,
                 name: str | None = None) -> None:
        import pyvisa  # noqa: PLC0415 - some 160 ms: not at `tablecert validate` start-up

        self.resource_name = resource_name
        self.name = name or self.role or resource_name
        self._transcript = Transcript(self.name)
        self._errors = (pyvisa.errors.VisaIOError, pyvisa.errors.Error, OSError, ValueError)
        self._timeout_code = pyvisa.constants.StatusCode.error_timeout
        self._rm: Any = None
        self._inst: Any = None
        try:
            self._rm = pyvisa.ResourceManager(backend)
            self._inst = self._rm.open_resource(
                resource_name, read_termination="\n", write_termination="\n", timeout=timeout_ms
            )
        except self._errors as exc:
            self.close()
            raise DeviceError(f"cannot open VISA resource {resource_name} ({backend}): {exc}") from exc
        self.backend = backend
        self.resource_name = resource_name
        self.timeout_ms = timeout_ms
        self._transcript.note(f"opened {resource_name} with {backend}, timeout {timeout_ms} ms")

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> Self:
        check_options(cls.__name__, entry, cls.options)
        resource, backend, timeout_ms = cls.instrument_args(entry)
        return cls(resource, backend, timeout_ms=timeout_ms)

    @classmethod
    def instrument_args(cls, entry: Mapping[str, Any]) -> tuple[str, str, int]:
        """``resource``, ``backend`` and ``timeout_ms`` of a profile entry, checked."""
        resource = entry.get("resource")
        if not isinstance(resource, str) or not resource:
            raise InputError(f"{cls.role}: 'resource' must be a VISA resource name")
        if resource == "emulator":
            raise InputError(f"{cls.role}: resource 'emulator' must be replaced by the emulator's address")
        backend = str(entry.get("backend", "@py"))
        if backend == "@sim-fixture":
            backend = SIM_BACKEND
        timeout_ms = entry.get("timeout_ms", 2000)
        if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int) or timeout_ms <= 0:
            raise InputError(f"{cls.role}: timeout_ms must be a positive integer, got {timeout_ms!r}")
        return resource, backend, timeout_ms

    @property
    def transcript(self) -> Transcript:
        return self._transcript

    def _fail(self, what: str, exc: BaseException) -> DeviceError:
        if getattr(exc, "error_code", None) == self._timeout_code:
            self._transcript.note(f"timeout: {what}")
            return DeviceTimeout(f"{self.name}: no answer to {what!r}")
        self._transcript.note(f"error: {what}: {exc}")
        return DeviceError(f"{self.name}: {what!r} failed: {exc}")

    def write(self, command: str) -> None:
        if self._inst is None:
            raise DeviceError(f"{self.name}: instrument is closed")
        t_ns = time.perf_counter_ns()
        try:
            self._inst.write(command)
        except self._errors as exc:
            raise self._fail(command, exc) from exc
        self._transcript.add(OUT, "line", t_ns=t_ns, data=(command + "\n").encode(), text=command)

    def query(self, command: str) -> str:
        self.write(command)
        try:
            answer = str(self._inst.read())
        except self._errors as exc:
            raise self._fail(command, exc) from exc
        t_ns = time.perf_counter_ns()  # stamped in the thread that read the answer
        self._transcript.add(IN, "line", t_ns=t_ns, data=(answer + "\n").encode(), text=answer)
        return answer.strip()

    def idn(self) -> str:
        return self.query("*IDN?")

    @contextlib.contextmanager
    def waiting(self, timeout_ms: int) -> Iterator[None]:
        """A longer VISA timeout for one answer that waits on the instrument (a measurement)."""
        old = self._inst.timeout if self._inst is not None else None
        if self._inst is not None:
            self._inst.timeout = max(timeout_ms, self.timeout_ms)
        try:
            yield
        finally:
            if self._inst is not None and old is not None:
                self._inst.timeout = old

    def close(self) -> None:
        try:
            if self._inst is not None:
                self._inst.close()
        except self._errors:
            pass
        finally:
            self._inst = None
            try:
                if self._rm is not None:
                    self._rm.close()
            except self._errors:
                pass
            self._rm = None


def _decimal_answer(name: str, command: str, text: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise DeviceError(f"{name}: {command} answered {text!r}, not a number") from None
    if not value.is_finite():
        raise DeviceError(f"{name}: {command} answered {text!r}")
    return value


class ScpiCounter(ScpiInstrument, Counter):
    """Registry name ``scpi-counter``: a universal counter timing one interval, channel 1 (the card-out
    sensor) to channel 2 (the controller's lock-out line), the way these instruments measure a
    single event (Keysight 53220A/53230A, Agilent 53131A and peers):

    * at open, :meth:`configure`: ``CONF:TINT (@1),(@2)``, then per channel the trigger level with
      auto-level off (auto-level needs a repetitive signal; a card and a lock-out happen once) and
      the slope, and the measurement timeout ``SYST:TIM``;
    * :meth:`arm` before the first card: ``INIT``;
    * :meth:`fetch_interval_s` after the lock-out: ``FETC?`` (the instrument answers once the interval
      is measured; ``9.91E+37`` when the measurement timed out).

    ``MEAS:TINT?`` is never sent: MEASure sets the instrument back to its defaults and starts a new
    measurement, so asked after the round it never reads the round.

    Profile entry keys besides the instrument's: ``channels`` (start and stop, default ``["1", "2"]``),
    ``levels`` (volts per channel, default ``"1.5"``), ``slopes`` (``POS``/``NEG`` per channel,
    default ``POS``), ``measure_timeout_ms`` (default 2000).
    """

    role = "counter"
    options = SCPI_OPTIONS | {"channels", "levels", "slopes", "measure_timeout_ms"}

    def __init__(self, resource_name: str, backend: str = "@py", *, timeout_ms: int = 2000,
                 name: str | None = None, channels: tuple[str, str] = ("1", "2"),
                 levels: dict[str, Decimal] | None = None, slopes: dict[str, str] | None = None,
                 measure_timeout_ms: int = 2000) -> None:
        super().__init__(resource_name, backend, timeout_ms=timeout_ms, name=name)
        self.channels = channels
        self.levels = {ch: (levels or {}).get(ch, DEFAULT_LEVEL) for ch in channels}
        self.slopes = {ch: (slopes or {}).get(ch, "POS") for ch in channels}
        self.measure_timeout_ms = measure_timeout_ms
        #: the ``SYST:TIM`` in force (:meth:`configure`)
        self.timeout_now_ms = measure_timeout_ms
        self.armed = False

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> Self:
        check_options(cls.__name__, entry, cls.options)
        resource, backend, timeout_ms = cls.instrument_args(entry)
        channels = tuple(str(c) for c in entry.get("channels", ("1", "2")))
        if len(channels) != 2 or channels[0] == channels[1]:
            raise InputError(f"counter: channels must name the start and the stop channel, got {channels!r}")
        try:
            levels = {str(k): Decimal(str(v)) for k, v in dict(entry.get("levels") or {}).items()}
        except InvalidOperation:
            raise InputError(f"counter: levels must be volts, got {entry.get('levels')!r}") from None
        slopes = {str(k): str(v).upper() for k, v in dict(entry.get("slopes") or {}).items()}
        if any(v not in ("POS", "NEG") for v in slopes.values()):
            raise InputError(f"counter: slopes are POS or NEG, got {entry.get('slopes')!r}")
        timeout = entry.get("measure_timeout_ms", 2000)
        if isinstance(timeout, bool) or not isinstance(timeout, int) or timeout <= 0:
            raise InputError(f"counter: measure_timeout_ms must be a positive integer, got {timeout!r}")
        counter = cls(resource, backend, timeout_ms=timeout_ms,
                      channels=(channels[0], channels[1]), levels=levels, slopes=slopes, measure_timeout_ms=timeout)
        try:
            counter.configure()
        except BaseException:
            counter.close()
            raise
        return counter

    def configure(self, *, slopes: bool = True, measure_timeout_ms: int | None = None,
                  no_timeout: bool = False) -> None:
        """The interval set up as the profile says.  ``slopes=False`` leaves the slopes as ``CONF:TINT`` sets
        them ("slopes positive", docs/protocol.md section 9: a check of the instrument, for a profile that
        keeps the default ``POS``); ``measure_timeout_ms`` a shorter ``SYST:TIM`` for one measurement that
        must time out; ``no_timeout`` ``SYST:TIM INF`` ("`INF`: none", section 9) for one measurement that
        must not (the answer is still waited for no longer than the profile's timeout).  The next
        :meth:`configure` puts the profile's back."""
        start, stop = self.channels
        self.write("*CLS")
        self.write(f"CONF:TINT (@{start}),(@{stop})")
        for ch in self.channels:
            self.write(f"INP{ch}:LEV:AUTO OFF")
            self.write(f"INP{ch}:LEV {self.levels[ch]}")
            if slopes:
                self.write(f"INP{ch}:SLOP {self.slopes[ch]}")
        self.timeout_now_ms = measure_timeout_ms or self.measure_timeout_ms
        self.write("SYST:TIM INF" if no_timeout else f"SYST:TIM {Decimal(self.timeout_now_ms) / 1000}")
        self.query("*OPC?")
        self.armed = False

    def arm(self) -> None:
        self.write("INIT")
        self.armed = True

    def fetch_interval_s(self) -> Decimal | None:
        if not self.armed:
            return None  # nothing was armed for this event: there is no interval to read
        self.armed = False
        with self.waiting(self.timeout_now_ms + 2000):
            value = _decimal_answer(self.name, "FETC?", self.query("FETC?"))
        if value >= SCPI_NAN:
            return None
        self.intervals += 1
        return value

    def fetch_again(self) -> Decimal | None:
        """``FETC?`` asked again after :meth:`fetch_interval_s`, nothing armed since: the same reading (a
        measurement's result stays until the next ``INIT``; reading it does not erase it, as on any SCPI
        counter, e.g. Keysight 53200 series: "you can send FETCh? multiple times to retrieve the same
        data").  ``None`` for 9.91E+37."""
        with self.waiting(self.timeout_now_ms + 2000):
            value = _decimal_answer(self.name, "FETC?", self.query("FETC?"))
        return None if value >= SCPI_NAN else value


class ScpiPowerSupply(ScpiInstrument, PowerSupply):
    """Registry name ``scpi-power``: ``OUTP ON|OFF``, ``OUTP?``, ``VOLT <v>``, ``VOLT?``.

    Each setting is followed by ``*OPC?`` so the call returns only once the supply has acted:
    a power-loss test times its next step from the moment the output actually changed.
    """

    role = "power"

    def output(self, on: bool) -> None:
        self.write("OUTP ON" if on else "OUTP OFF")
        self.query("*OPC?")

    def output_state(self) -> bool:
        answer = self.query("OUTP?").upper()
        if answer in ("1", "ON"):
            return True
        if answer in ("0", "OFF"):
            return False
        raise DeviceError(f"{self.name}: OUTP? answered {answer!r}")

    def set_voltage(self, volts: Decimal) -> None:
        if not isinstance(volts, Decimal):
            raise TypeError("set_voltage takes a Decimal (no floats in the protocol)")
        self.write(f"VOLT {volts:.3f}")
        self.query("*OPC?")

    def voltage(self) -> Decimal:
        return _decimal_answer(self.name, "VOLT?", self.query("VOLT?"))


class ScpiSwitch(ScpiInstrument):
    """Driver name ``scpi-switch`` (a profile's ``bench.actuators``): a relay switch unit.

    ``ROUT:CLOS (@101)`` closes a channel, ``ROUT:OPEN (@101)`` opens it, each followed by ``*OPC?``
    so the call returns once the relay has moved.  Not a table role: the bench's performers
    (:mod:`harness.bench.performers`) press buttons, turn keys and break cables with it."""

    role = "switch"

    def close_channel(self, channel: str) -> None:
        self.write(f"ROUT:CLOS (@{channel})")
        self.query("*OPC?")

    def open_channel(self, channel: str) -> None:
        self.write(f"ROUT:OPEN (@{channel})")
        self.query("*OPC?")

    def is_closed(self, channel: str) -> bool:
        return self.query(f"ROUT:CLOS? (@{channel})") == "1"
