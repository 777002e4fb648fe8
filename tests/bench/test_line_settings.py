"""Profile fields a real device needs: serial framing and flow control, the counter's inputs."""

from __future__ import annotations

import os
import tty
from decimal import Decimal

import pytest

from harness.devices.drivers.reference import open_serial_link
from harness.errors import InputError
from harness.profiles import load_profile_text
from harness.suites.run.profile_rig import open_rig

BASE = """spec: tablecert/profile/1
name: t
game: midibaccarat
devices:
  shoe: {driver: reference-shoe, port: /dev/serial/by-id/usb-x, parity: even, stopbits: "2", bytesize: 7,
         rtscts: true, xonxoff: false}
  sensors: {driver: reference-sensors, port: emulator}
  controller: {driver: reference-controller, port: emulator}
  counter: {driver: scpi-counter, resource: emulator, channels: ["1", "2"], levels: {"1": "2.5", "2": "1.2"},
            slopes: {"2": neg}, measure_timeout_ms: 1500}
capabilities: [royal9, latency-counter]
rules:
  denomination: 5
  seats:
    - {seat: 1, combo: [KS, 9S]}
  meters:
    mega: {rate: "1%", initial: "$50,000", reset: "$50,000"}
    major: {rate: "0.5%", initial: "$450", reset: "$450"}
    minor: {rate: "0.5%", initial: 450, reset: "450.00"}
"""


def test_serial_and_counter_settings_are_profile_fields() -> None:
    profile = load_profile_text(BASE, "p.yaml")
    assert dict(profile.devices["shoe"].options) == {"parity": "E", "stopbits": 2, "bytesize": 7, "rtscts": True,
                                                     "xonxoff": False}
    assert dict(profile.devices["counter"].options) == {
        "channels": ["1", "2"], "levels": {"1": "2.5", "2": "1.2"}, "slopes": {"2": "NEG"}, "measure_timeout_ms": 1500}


@pytest.mark.parametrize(("old", "new", "message"), [
    ("parity: even", "parity: sometimes", "devices.shoe.parity"),
    ('stopbits: "2"', 'stopbits: "3"', "devices.shoe.stopbits"),
    ("bytesize: 7", "bytesize: 9", "devices.shoe.bytesize"),
    ("port: emulator}\n  controller", "port: emulator, rtscts: yes-please}\n  controller", "rtscts"),
    ('slopes: {"2": neg}', 'slopes: {"2": up}', "devices.counter.slopes.2"),
    ('channels: ["1", "2"]', 'channels: ["1", "1"]', "two different channels"),
    ('levels: {"1": "2.5"', 'levels: {"1": "high"', "devices.counter.levels.1"),
])
def test_bad_settings_say_where(old: str, new: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        load_profile_text(BASE.replace(old, new), "p.yaml")


def test_settings_on_the_wrong_device_are_refused() -> None:
    text = BASE.replace("sensors: {driver: reference-sensors, port: emulator}",
                        "sensors: {driver: reference-sensors, port: emulator, levels: {\"1\": \"1\"}}")
    with pytest.raises(InputError, match="only the time-interval counter"):
        load_profile_text(text, "p.yaml")
    text = BASE.replace("resource: emulator, channels", "resource: emulator, parity: odd, channels")
    with pytest.raises(InputError, match="only a serial port has parity"):
        load_profile_text(text, "p.yaml")


def test_pyserial_opens_a_line_with_those_settings() -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        link, _ = open_serial_link({"port": os.ttyname(slave), "parity": "E", "stopbits": Decimal("1.5"),
                                    "bytesize": 7, "rtscts": True, "xonxoff": True}, "shoe")
        port = link.transport.port  # type: ignore[attr-defined]
        assert (port.parity, port.stopbits, port.bytesize, port.rtscts, port.xonxoff) == ("E", 1.5, 7, True, True)
        link.close()
    finally:
        os.close(master)
        os.close(slave)


def test_the_counter_is_configured_from_the_profile(tmp_path: object) -> None:
    text = BASE.replace("port: /dev/serial/by-id/usb-x, parity: even, stopbits: \"2\", bytesize: 7,\n"
                        "         rtscts: true, xonxoff: false", "port: emulator")
    rig = open_rig(load_profile_text(text, "p.yaml"))
    try:
        sent = [e.text for e in rig.counter.transcript.entries if e.direction == ">"]  # type: ignore[union-attr]
        assert sent[:9] == ["*CLS", "CONF:TINT (@1),(@2)", "INP1:LEV:AUTO OFF", "INP1:LEV 2.5", "INP1:SLOP POS",
                            "INP2:LEV:AUTO OFF", "INP2:LEV 1.2", "INP2:SLOP NEG", "SYST:TIM 1.5"]
    finally:
        rig.close()


def _with_power(power: str) -> str:
    return BASE.replace("capabilities: [royal9, latency-counter]",
                        f"  power: {power}\ncapabilities: [royal9, latency-counter, power-control]")


def test_what_the_power_supply_feeds() -> None:
    bench = load_profile_text(_with_power("{driver: scpi-power, resource: TCPIP::192.0.2.11::5025::SOCKET}"), "p.yaml")
    assert bench.devices["power"].powers == ("controller",)  # a bench supply: the controller unless stated
    emulated = load_profile_text(_with_power("{driver: scpi-power, resource: emulator}"), "p.yaml")
    assert emulated.devices["power"].powers == ("controller", "shoe", "sensors")  # the emulated table's mains
    stated = load_profile_text(_with_power("{driver: scpi-power, resource: emulator, feeds: [controller, shoe]}"),
                               "p.yaml")
    assert stated.devices["power"].powers == ("controller", "shoe")


@pytest.mark.parametrize(("feeds", "message"), [
    ("[shoe, sensors]", "feeds the controller"),
    ("[controller, controller]", "each role once"),
    ("[controller, counter]", r"devices\.power\.feeds\[1\]"),
])
def test_bad_feeds_say_where(feeds: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        load_profile_text(_with_power(f"{{driver: scpi-power, resource: emulator, feeds: {feeds}}}"), "p.yaml")


def test_feeds_is_the_power_supply_s_own() -> None:
    text = BASE.replace("sensors: {driver: reference-sensors, port: emulator}",
                        "sensors: {driver: reference-sensors, port: emulator, feeds: [controller]}")
    with pytest.raises(InputError, match="only the power supply feeds devices"):
        load_profile_text(text, "p.yaml")
