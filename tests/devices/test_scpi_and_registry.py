"""SCPI drivers (pyvisa-sim fixture, pyvisa-py over loopback TCP and a pty) and the driver registry."""

from __future__ import annotations

import importlib.metadata
import os
import socket
import threading
import tty
from collections.abc import Iterator
from decimal import Decimal
from typing import Any, ClassVar

import pytest

from harness.devices import registry as registry_mod
from harness.devices.drivers.reference import ReferenceShoe
from harness.devices.drivers.scpi import SIM_BACKEND, ScpiCounter, ScpiPowerSupply
from harness.devices.registry import BUILTINS, Registry, driver_names, open_device
from harness.devices.roles import Shoe
from harness.errors import DeviceError, DeviceTimeout, InputError

COUNTER_SIM = "TCPIP::127.0.0.1::5025::SOCKET"
PSU_SIM = "TCPIP::127.0.0.1::5026::SOCKET"


def test_sim_counter_configures_arms_and_fetches() -> None:
    counter = ScpiCounter.from_entry({"driver": "scpi-counter", "resource": COUNTER_SIM, "backend": "@sim-fixture"})
    with counter:
        assert counter.idn().startswith("tablecert,SIM-COUNTER-1")
        assert counter.fetch_interval_s() is None  # nothing armed: nothing to read
        counter.arm()
        assert counter.fetch_interval_s() == Decimal("0.0003")
    sent = [e.text for e in counter.transcript.entries if e.direction == ">"]
    assert sent == ["*CLS", "CONF:TINT (@1),(@2)", "INP1:LEV:AUTO OFF", "INP1:LEV 1.5", "INP1:SLOP POS",
                    "INP2:LEV:AUTO OFF", "INP2:LEV 1.5", "INP2:SLOP POS", "SYST:TIM 2", "*OPC?", "*IDN?",
                    "INIT", "FETC?"]
    assert not any("MEAS" in line for line in sent)  # MEASure would start a new measurement


def test_counter_settings_from_the_profile_entry() -> None:
    entry = {"driver": "scpi-counter", "resource": COUNTER_SIM, "backend": "@sim-fixture", "channels": ["2", "1"],
             "levels": {"1": "2.5"}, "slopes": {"2": "neg"}, "measure_timeout_ms": 1500}
    with ScpiCounter.from_entry(entry) as counter:
        sent = [e.text for e in counter.transcript.entries if e.direction == ">"]
    assert sent == ["*CLS", "CONF:TINT (@2),(@1)", "INP2:LEV:AUTO OFF", "INP2:LEV 1.5", "INP2:SLOP NEG",
                    "INP1:LEV:AUTO OFF", "INP1:LEV 2.5", "INP1:SLOP POS", "SYST:TIM 1.5", "*OPC?"]
    for bad, message in (({"channels": ["1"]}, "start and the stop"), ({"levels": {"1": "high"}}, "volts"),
                         ({"slopes": {"1": "UP"}}, "POS or NEG"), ({"measure_timeout_ms": 0}, "positive")):
        with pytest.raises(InputError, match=message):
            ScpiCounter.from_entry({"driver": "scpi-counter", "resource": COUNTER_SIM, **bad})


def test_counter_set_up_for_a_check_and_back() -> None:
    """A check of the instrument (docs/protocol.md section 9): the slopes left as CONF:TINT sets them, or a short
    measurement timeout; the next configure() writes the profile's again."""
    with ScpiCounter.from_entry({"driver": "scpi-counter", "resource": COUNTER_SIM, "backend": "@sim-fixture",
                                 "measure_timeout_ms": 1500}) as counter:
        start = len(counter.transcript.entries)
        counter.configure(slopes=False, measure_timeout_ms=300)
        assert counter.timeout_now_ms == 300
        counter.configure()
        sent = [e.text for e in counter.transcript.entries[start:] if e.direction == ">"]
    assert sent == ["*CLS", "CONF:TINT (@1),(@2)", "INP1:LEV:AUTO OFF", "INP1:LEV 1.5", "INP2:LEV:AUTO OFF",
                    "INP2:LEV 1.5", "SYST:TIM 0.3", "*OPC?",
                    "*CLS", "CONF:TINT (@1),(@2)", "INP1:LEV:AUTO OFF", "INP1:LEV 1.5", "INP1:SLOP POS",
                    "INP2:LEV:AUTO OFF", "INP2:LEV 1.5", "INP2:SLOP POS", "SYST:TIM 1.5", "*OPC?"]
    assert counter.timeout_now_ms == 1500


def test_counter_with_no_timeout_and_a_reading_fetched_again() -> None:
    """docs/protocol.md section 9: SYST:TIM INF ("`INF`: none") for one measurement, and FETC? asked a second
    time with nothing armed since (the same reading); configure() puts the profile's timeout back."""
    with ScpiCounter.from_entry({"driver": "scpi-counter", "resource": COUNTER_SIM,
                                 "backend": "@sim-fixture"}) as counter:
        start = len(counter.transcript.entries)
        counter.configure(no_timeout=True)
        assert counter.timeout_now_ms == 2000  # the host still waits no longer than the profile's timeout
        counter.arm()
        assert counter.fetch_interval_s() == Decimal("0.0003")
        assert counter.fetch_again() == Decimal("0.0003")
        counter.configure()
        sent = [e.text for e in counter.transcript.entries[start:] if e.direction == ">"]
    assert sent[:9] == ["*CLS", "CONF:TINT (@1),(@2)", "INP1:LEV:AUTO OFF", "INP1:LEV 1.5", "INP1:SLOP POS",
                        "INP2:LEV:AUTO OFF", "INP2:LEV 1.5", "INP2:SLOP POS", "SYST:TIM INF"]
    assert sent[9:13] == ["*OPC?", "INIT", "FETC?", "FETC?"]
    assert sent[-2:] == ["SYST:TIM 2", "*OPC?"]


def test_sim_power_supply_via_registry() -> None:
    entry = {"driver": "scpi-power", "resource": "ASRL2::INSTR", "backend": "@sim-fixture", "timeout_ms": 500}
    psu = open_device("power", entry)
    try:
        assert isinstance(psu, ScpiPowerSupply)
        psu.output(False)
        assert psu.output_state() is True  # the fixture is stateless
        psu.set_voltage(Decimal(12))
        assert psu.voltage() == Decimal("12.000")
        with pytest.raises(TypeError):
            psu.set_voltage(12.0)  # type: ignore[arg-type]
    finally:
        psu.close()
    sent = [e.text for e in psu.transcript.entries if e.direction == ">"]
    assert sent == ["OUTP OFF", "*OPC?", "OUTP?", "VOLT 12.000", "*OPC?", "VOLT?"]


class LineServer:
    """A loopback SCPI peer: answers each line from a dict (missing = silence)."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers
        self.seen: list[str] = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.sock.settimeout(5.0)
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def resource(self) -> str:
        return f"TCPIP::127.0.0.1::{self.sock.getsockname()[1]}::SOCKET"

    def _serve(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            buf = b""
            while True:
                try:
                    data = conn.recv(4096)
                except OSError:
                    return
                if not data:
                    return
                buf += data
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    text = line.decode()
                    self.seen.append(text)
                    if text in self.answers:
                        conn.sendall((self.answers[text] + "\n").encode())


@pytest.fixture
def scpi_server() -> Iterator[LineServer]:
    server = LineServer({"*IDN?": "ACME,CNT-9,42,1.0", "FETC?": "9.91E+37", "*OPC?": "1", "OUTP?": "ON"})
    yield server
    server.sock.close()


def test_py_backend_over_loopback_tcp(scpi_server: LineServer) -> None:
    with ScpiCounter(scpi_server.resource, "@py", timeout_ms=1000) as counter:
        assert counter.idn() == "ACME,CNT-9,42,1.0"
        counter.arm()
        assert counter.fetch_interval_s() is None  # SCPI not-a-number: the measurement timed out
    assert scpi_server.seen == ["*IDN?", "INIT", "FETC?"]


def test_py_backend_timeout_is_device_timeout(scpi_server: LineServer) -> None:
    with ScpiPowerSupply(scpi_server.resource, "@py", timeout_ms=200) as psu:
        assert psu.output_state() is True
        with pytest.raises(DeviceTimeout):
            psu.voltage()  # the peer never answers VOLT?
        assert any("timeout" in line for line in psu.transcript.tail(5))


def test_py_backend_asrl_on_a_pty() -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)

    def peer() -> None:
        buf = b""
        while b"\n" not in buf:
            buf += os.read(master, 100)
        os.write(master, b"ACME,PSU-3,7,2.0\n")

    t = threading.Thread(target=peer, daemon=True)
    t.start()
    try:
        with ScpiPowerSupply(f"ASRL{path}::INSTR", "@py", timeout_ms=1000) as psu:
            assert psu.idn() == "ACME,PSU-3,7,2.0"
    finally:
        t.join(2.0)
        os.close(master)
        os.close(slave)


def test_bad_resource_is_device_error() -> None:
    with pytest.raises(DeviceError, match="cannot open"):
        ScpiCounter("NOT::A::RESOURCE", SIM_BACKEND)


def test_scpi_from_entry_validation() -> None:
    with pytest.raises(InputError, match="resource"):
        ScpiCounter.from_entry({"driver": "scpi-counter"})
    with pytest.raises(InputError, match="emulator"):
        ScpiCounter.from_entry({"driver": "scpi-counter", "resource": "emulator"})
    with pytest.raises(InputError, match="unknown device option"):
        ScpiCounter.from_entry({"driver": "scpi-counter", "resource": COUNTER_SIM, "port": "x"})


def test_builtin_driver_names() -> None:
    assert set(driver_names()) >= {"reference-shoe", "reference-sensors", "reference-controller",
                                   "scpi-counter", "scpi-power"}
    reg = Registry(group="tablecert.no-such-group")
    assert reg.info("reference-shoe").role == "shoe"
    assert reg.info("scpi-power").role == "power"
    with pytest.raises(InputError, match="unknown driver 'acme-shoe'"):
        reg.info("acme-shoe")
    with pytest.raises(InputError, match="implements the 'shoe' role"):
        reg.open("controller", {"driver": "reference-shoe", "port": "/dev/null"})
    with pytest.raises(InputError, match="unknown device role"):
        reg.open("dealer", {"driver": "reference-shoe"})


class AcmeShoe(Shoe):
    """A vendor driver the way a plugin would write one (only what the test touches)."""

    options = frozenset({"serial_number"})
    opened: ClassVar[list[dict[str, Any]]] = []

    @classmethod
    def from_entry(cls, entry: Any) -> AcmeShoe:
        cls.opened.append(dict(entry))
        return cls()

    def close(self) -> None:
        pass

    identity = status = wait_card = load = deal = fault = events = wait_event = None  # type: ignore[assignment]


class FakeDist:
    name = "acme-tablecert"


class FakeEntryPoint:
    def __init__(self, name: str, obj: object, value: str) -> None:
        self.name, self._obj, self.value, self.dist = name, obj, value, FakeDist()

    def load(self) -> object:
        if isinstance(self._obj, Exception):
            raise self._obj
        return self._obj


def test_plugins_from_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    eps = [
        FakeEntryPoint("acme-shoe", AcmeShoe, "acme:AcmeShoe"),
        FakeEntryPoint("reference-shoe", ReferenceShoe, "harness.devices.drivers.reference:ReferenceShoe"),
        FakeEntryPoint("scpi-counter", AcmeShoe, "acme:AcmeShoe"),
        FakeEntryPoint("broken", ImportError("no module acme2"), "acme2:X"),
        FakeEntryPoint("not-a-driver", dict, "builtins:dict"),
    ]
    seen_groups: list[str] = []

    def fake_entry_points(*, group: str) -> list[FakeEntryPoint]:
        seen_groups.append(group)
        return eps

    monkeypatch.setattr(registry_mod.importlib.metadata, "entry_points", fake_entry_points)
    reg = Registry()
    assert reg.info("acme-shoe").cls is AcmeShoe
    assert reg.info("acme-shoe").origin == "plugin acme-tablecert (acme:AcmeShoe)"
    assert reg.info("reference-shoe").cls is ReferenceShoe  # declared built-in: tolerated
    assert reg.info("scpi-counter").cls is BUILTINS["scpi-counter"]  # shadowing refused
    assert seen_groups == ["tablecert.drivers"]
    problems = " | ".join(reg.problems)
    assert "shadow a built-in" in problems and "failed to load" in problems and "does not subclass" in problems
    device = reg.open("shoe", {"driver": "acme-shoe", "serial_number": "X1"})
    assert isinstance(device, AcmeShoe)
    assert AcmeShoe.opened == [{"driver": "acme-shoe", "serial_number": "X1"}]
    assert importlib.metadata.entry_points is fake_entry_points
