"""``validate`` refuses bench wiring that cannot work (issue 32), each with file:line:col."""

from pathlib import Path

import pytest

from harness.errors import InputError
from harness.profiles import load_profile_text

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = (ROOT / "device_profiles" / "hardware-example.yaml").read_text("utf-8")
SHOE = "/dev/serial/by-id/usb-FTDI_FT232R_USB_UART_A10K3XQ1-if00-port0"
SENSORS = "/dev/serial/by-id/usb-FTDI_FT232R_USB_UART_A10K3XQ2-if00-port0"


def _line(text: str, needle: str) -> int:
    """The line of the last ``needle`` (the second claim of an address is the one refused)."""
    return [i for i, line in enumerate(text.splitlines(), 1) if needle in line][-1]


@pytest.mark.parametrize(("old", "new", "said"), [
    (f"port: {SENSORS}", f"port: {SHOE}", "is also the shoe's port"),
    ("resource: TCPIP::192.0.2.11::5025::SOCKET", "resource: tcpip::192.0.2.10::5025::socket",
     "is also the counter's resource"),
    (f"port: {SHOE}", "port: socket://192.0.2.10", "has no port number"),
    (f"port: {SHOE}", "port: socket://192.0.2.10:99999", "port 99999 is not a TCP port"),
    (f"port: {SHOE}", "port: rfc2217://192.0.2.10:0", "port 0 is not a TCP port"),
    ('match: {serial: "BS-220017"}', 'match: {serial: ""}', "an empty serial pins nothing"),
])
def test_wiring_that_cannot_work_is_refused_where_it_is_written(old: str, new: str, said: str) -> None:
    assert old in EXAMPLE
    text = EXAMPLE.replace(old, new, 1)
    with pytest.raises(InputError) as info:
        load_profile_text(text, "bench.yaml")
    message = str(info.value)
    assert said in message, message
    assert f"bench.yaml:{_line(text, new)}:" in message


def test_the_example_bench_and_a_reachable_socket_pass() -> None:
    load_profile_text(EXAMPLE, "bench.yaml")
    load_profile_text(EXAMPLE.replace(f"port: {SHOE}", "port: socket://192.0.2.10:7001", 1), "bench.yaml")
