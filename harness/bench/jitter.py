"""How far the host's receive stamps can be trusted on this bench, measured at the start of a run.

Without a time-interval counter the lock-out latency is the time between two host receive stamps
taken on two serial lines (the shoe's card event, the controller's lock-out event).  Each stamp
carries the line's delivery delay: the adapter's buffering (an FTDI USB-serial adapter holds
received bytes up to its latency timer, 16 ms by default), the kernel's and the interpreter's
scheduling.  Only the *variation* of that delay between two events matters, and no single run of
the bench can show it better than a round trip over the same lines does.

:func:`measure` pings each table device ``samples`` times and takes, per line, the spread of the
round trips from the fastest to the 99th percentile; the bench's jitter is the larger of the two
lines' spreads.  A round trip contains the delays of both directions, so the figure errs on the
safe side.  The expectation then decides by host stamps only where the latency is farther than
that jitter from the limit; closer, its value is advisory (harness.suites.steps.expect).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from harness.errors import DeviceError

SAMPLES = 200
ROLES = ("shoe", "controller")


def _ms(ns: int) -> Decimal:
    return (Decimal(ns) / Decimal(1_000_000)).quantize(Decimal("0.001"))


def _percentile(values: list[int], q: int) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, (len(ordered) * q) // 100)]


def measure(rig: Any, samples: int = SAMPLES) -> dict[str, Any] | None:
    """Round trips on the shoe's and the controller's lines; None when neither answers pings."""
    lines: dict[str, Any] = {}
    for role in ROLES:
        dev = getattr(rig, role, None)
        ping = getattr(dev, "ping", None)
        if ping is None:
            continue
        rtts: list[int] = []
        try:
            for _ in range(samples):
                reply = ping()
                sent, got = getattr(reply, "t_sent_ns", 0), getattr(reply, "t_reply_ns", 0)
                rtts.append(got - sent if got > sent else 0)
        except DeviceError:
            continue
        if not rtts:
            continue
        lines[role] = {"samples": len(rtts), "min_ms": str(_ms(min(rtts))),
                       "p50_ms": str(_ms(_percentile(rtts, 50))), "p99_ms": str(_ms(_percentile(rtts, 99))),
                       "max_ms": str(_ms(max(rtts))),
                       "spread_ms": str(_ms(_percentile(rtts, 99) - min(rtts)))}
    if not lines:
        return None
    jitter = max(Decimal(v["spread_ms"]) for v in lines.values())
    return {"jitter_ms": str(jitter), "method": "ping round trips per line, 99th percentile minus fastest",
            "lines": lines}
