"""Driver settings a real device or instrument needs beyond its address (docs/device-profiles.md).

Serial lines (``port:``): a device's framing and flow control, passed to pyserial unchanged:

    parity: none | even | odd | mark | space     (default none)
    stopbits: 1 | 1.5 | 2                        (default 1; write "1.5" quoted)
    bytesize: 5 | 6 | 7 | 8                      (default 8)
    rtscts: true | false                         (hardware flow control, default false)
    xonxoff: true | false                        (software flow control, default false)

The time-interval counter (``driver: scpi-counter``), as its inputs are wired on the bench:

    channels: ["1", "2"]                         (start: the card-out sensor; stop: the lock-out line)
    levels: {"1": "1.5", "2": "1.5"}             (trigger levels in volts; auto-level is never used)
    slopes: {"1": POS, "2": POS}                 (the edge that counts on each channel)
    measure_timeout_ms: 2000                     (the instrument's measurement timeout)
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from harness.schema import Fields, check_decimal, check_enum, check_str

SERIAL_KEYS = ("parity", "stopbits", "bytesize", "rtscts", "xonxoff")
COUNTER_KEYS = ("channels", "levels", "slopes", "measure_timeout_ms")
PARITY = {"none": "N", "even": "E", "odd": "O", "mark": "M", "space": "S"}
_CHANNEL = r"[1-4]"


def line_options(f: Fields, driver: str, port: str | None) -> dict[str, Any]:
    """The serial and counter settings of one ``devices:`` entry, checked (driver-ready values)."""
    out: dict[str, Any] = {}
    serial = [k for k in SERIAL_KEYS if k in f]
    if serial and port is None:
        raise f.error(serial[0], "only a serial port has parity, stop bits, byte size and flow control")
    if "parity" in f:
        out["parity"] = PARITY[f.get_enum("parity", list(PARITY))]
    if "stopbits" in f:
        stop = check_enum(str(f.raw("stopbits")), f.loc("stopbits"), f.name("stopbits"), ["1", "1.5", "2"])
        out["stopbits"] = {"1": 1, "1.5": Decimal("1.5"), "2": 2}[stop]
    if "bytesize" in f:
        out["bytesize"] = f.get_int("bytesize", lo=5, hi=8)
    for flag in ("rtscts", "xonxoff"):
        if flag in f:
            out[flag] = f.get_bool(flag)
    counter = [k for k in COUNTER_KEYS if k in f]
    if counter and driver != "scpi-counter":
        raise f.error(counter[0], "only the time-interval counter (scpi-counter) has channels, levels and slopes")
    if "channels" in f:
        node = f.get_list("channels")
        channels = [check_str(v, loc, f"{f.name('channels')}[{i}]", pattern=_CHANNEL)
                    for i, v, loc in node.enumerate_locs()]
        if len(channels) != 2 or channels[0] == channels[1]:
            raise f.error("channels", "two different channels: the start (card out) and the stop (lock-out)")
        out["channels"] = channels
    for key in ("levels", "slopes"):
        if key in f:
            mf = f.get_map(key, optional=("1", "2", "3", "4"))
            if key == "levels":
                out[key] = {str(k): str(check_decimal(mf.raw(str(k)), mf.loc(str(k)), mf.name(str(k)),
                                                      lo=Decimal("-10"), hi=Decimal("10"))) for k in mf}
            else:
                out[key] = {str(k): check_enum(str(mf.raw(str(k))).upper(), mf.loc(str(k)), mf.name(str(k)),
                                               ["POS", "NEG"]) for k in mf}
    if "measure_timeout_ms" in f:
        out["measure_timeout_ms"] = f.get_int("measure_timeout_ms", lo=1, hi=3_600_000)
    return out
