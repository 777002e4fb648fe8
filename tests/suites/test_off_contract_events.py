"""An event with a field outside the contract costs only the step that asks for that field, and as a
FAIL: the runner's own bookkeeping (which lock-out causes the round saw) reads events as sent and
never raises, so a wrong ``cause`` on an unlock event FAILs ``expect_event`` instead of ERRORing the
case in the middle of its pump."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from harness.devices.contract import ContractError, OffContract, as_sent
from harness.devices.link import DeviceEvent
from harness.suites.load.model import Step
from harness.suites.run.context import RoundLog
from harness.suites.run.runner import CaseRunner
from harness.suites.steps.expect import expect_event

STEP = Step("expect_event", {}, "<test>", 1, 1, "- expect_event")


def _unlock_with_cause(cause: str) -> DeviceEvent:
    broken = ContractError("controller", "'lockout' event", "cause", "'round-open' was expected", "event:lockout")
    return DeviceEvent("lockout", OffContract({"locked": False, "cause": cause}, {"cause": broken}), 7, 1)


class Controller:
    def __init__(self, events: list[DeviceEvent]) -> None:
        self.queued = events

    def events(self, timeout_s: float = 0.0) -> list[DeviceEvent]:
        out, self.queued = self.queued, []
        return out


def _runner(events: list[DeviceEvent]) -> Any:
    measured: list[tuple[str, Any, bool]] = []
    runner = SimpleNamespace(
        rig=SimpleNamespace(shoe=None, sensors=None, controller=Controller(events)),
        performers=SimpleNamespace(observe=lambda role, evs: None), round=RoundLog(), hits_seen=[],
        link_lost_seen=False, measured=measured,
        profile=SimpleNamespace(timing=SimpleNamespace(response_timeout_ms=50)),
        measure=lambda step, name, value, limit, passed, *a, **k: measured.append((name, value, passed)))
    own_pump: Any = CaseRunner.pump  # the runner's own pump, on a stand-in holding what it touches
    runner.pump = lambda timeout_s=0.0: own_pump(runner, timeout_s)
    return runner


def test_the_pump_reads_an_off_contract_cause_as_sent_without_raising() -> None:
    runner = _runner([_unlock_with_cause("no-more-bets")])
    runner.pump()
    assert [e.name for e in runner.round.ctrl_events] == ["lockout"] and runner.link_lost_seen is False


def test_a_wrong_cause_fails_the_step_that_asks_for_it() -> None:
    runner = _runner([_unlock_with_cause("no-more-bets")])
    expect_event(runner, STEP, event="lockout", absent=False, match={"locked": False, "cause": "round-open"})
    assert [(name, passed) for name, _v, passed in runner.measured] == [
        ("'lockout' event with {'locked': False, 'cause': 'round-open'}", False)]


def test_as_sent_reads_the_field_an_off_contract_payload_would_raise_on() -> None:
    event = _unlock_with_cause("comm-lost")
    assert as_sent(event.payload, "cause") == "comm-lost" and as_sent({"a": 1}, "b", 2) == 2
