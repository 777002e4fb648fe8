"""``expect_event`` with ``except``: a mystery award (which the hidden trigger may bring in any round)
is left out of "no hit in this round", and nothing else is; the shoe's events (a misread) are looked
for among the shoe's, not the controller's."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace
from typing import Any

from harness.devices.link import DeviceEvent
from harness.suites.run.context import Measured
from harness.suites.steps.expect import expect_event


class _Round:
    def __init__(self, events: list[DeviceEvent], shoe_events: list[DeviceEvent]) -> None:
        self.ctrl_events = events
        self.shoe_events = shoe_events


class _Runner:
    def __init__(self, events: list[DeviceEvent], shoe_events: list[DeviceEvent] | None = None) -> None:
        self.round = _Round(events, shoe_events or [])
        self.measured: list[Measured] = []
        self.profile = SimpleNamespace(timing=SimpleNamespace(response_timeout_ms=Decimal(0)))  # no event trails

    def pump(self, timeout_s: float = 0.0) -> None:
        return None

    def measure(self, step: Any, name: str, value: Any, limit: Any, passed: bool, **kw: Any) -> None:
        self.measured.append(Measured(name, value, kw.get("unit", ""), limit, passed, ""))


def _hit(category: str, meter: str) -> DeviceEvent:
    return DeviceEvent("hit", {"event": "hit", "seat": 3, "category": category, "meter": meter, "amount": 10580},
                       1, 0)


def _judge(events: list[DeviceEvent], **args: Any) -> bool:
    runner: Any = _Runner(events)
    expect_event(runner, None, "hit", True, **args)  # type: ignore[arg-type]
    (m,) = runner.measured
    return bool(m.passed)


def test_a_mystery_award_is_left_out_of_no_hit_only_where_the_case_says_so() -> None:
    mystery = _hit("mystery", "mystery")
    minor = _hit("royal9", "minor")
    assert _judge([mystery], **{"except": {"category": "mystery"}})
    assert not _judge([mystery])
    assert not _judge([mystery, minor], **{"except": {"category": "mystery"}})
    assert _judge([])


def test_a_shoe_event_is_found_among_the_shoe_events_only() -> None:
    misread = DeviceEvent("misread", {"event": "misread", "n": 1, "raw": "??"}, 1, 0)
    found: Any = _Runner([], [misread])
    expect_event(found, None, "misread", False, match={"n": 1})  # type: ignore[arg-type]
    wrong_n: Any = _Runner([], [misread])
    expect_event(wrong_n, None, "misread", False, match={"n": 2})  # type: ignore[arg-type]
    on_the_controller_line: Any = _Runner([misread], [])
    expect_event(on_the_controller_line, None, "misread", False)  # type: ignore[arg-type]
    assert [m.passed for r in (found, wrong_n, on_the_controller_line) for m in r.measured] == [True, False, False]
