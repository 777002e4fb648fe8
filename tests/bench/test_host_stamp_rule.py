"""Host receive stamps never decide closer to the limit than the bench's jitter (an advisory value then)."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest

from harness.bench import jitter
from harness.suites.steps.expect import _host_stamped

LIMIT = Decimal("1.0")


def _judge(latency: str, jitter_ms: str | None) -> dict[str, Any]:
    got: dict[str, Any] = {}

    def measure(step: Any, name: str, value: Any, limit: Any, passed: bool, unit: str = "", detail: str = "",
                advisory: bool = False) -> None:
        got.update(value=value, passed=passed, advisory=advisory, detail=detail)

    runner = SimpleNamespace(host_jitter_ms=None if jitter_ms is None else Decimal(jitter_ms), measure=measure)
    _host_stamped(runner, None, Decimal(latency), LIMIT, "no time-interval counter")  # type: ignore[arg-type]
    return got


@pytest.mark.parametrize(("latency", "jitter_ms", "passed", "advisory"), [
    ("0.30", "0.50", True, False),    # 0.30 + 0.50 <= 1.0: a PASS however the stamps erred
    ("3.17", "0.50", False, False),   # 3.17 - 0.50 > 1.0: a FAIL however the stamps erred
    ("1.20", "0.50", False, True),    # within the jitter of the limit: advisory
    ("0.80", "0.50", True, True),
    ("0.30", "16.00", True, True),    # a 16 ms USB latency timer: nothing near 1 ms is decided
    ("3.17", None, False, False),     # no jitter measured (no bench): the stamps as they are
])
def test_host_stamps_decide_only_outside_the_jitter(latency: str, jitter_ms: str | None, passed: bool,
                                                     advisory: bool) -> None:
    got = _judge(latency, jitter_ms)
    assert (got["passed"], got["advisory"]) == (passed, advisory)
    if advisory:
        assert "ADVISORY" in got["detail"] and f"({jitter_ms} ms" in got["detail"]


class Pinged:
    def __init__(self, rtts_us: list[int]) -> None:
        self.rtts = iter(rtts_us)

    def ping(self) -> SimpleNamespace:
        rtt = next(self.rtts)
        return SimpleNamespace(t_sent_ns=1_000_000, t_reply_ns=1_000_000 + rtt * 1000)


def test_jitter_is_the_worse_lines_spread_from_fastest_to_99th_percentile() -> None:
    shoe = Pinged([100] * 98 + [900, 5000])
    ctrl = Pinged([120] * 100)
    got = jitter.measure(SimpleNamespace(shoe=shoe, controller=ctrl), samples=100)
    assert got is not None
    assert got["lines"]["shoe"]["spread_ms"] == "4.900" and got["lines"]["controller"]["spread_ms"] == "0.000"
    assert got["jitter_ms"] == "4.900"
    assert jitter.measure(SimpleNamespace(shoe=None, controller=None)) is None
