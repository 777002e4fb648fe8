"""Waits that stand for an event: the power cut's silence is one wait for every device it feeds, an
expected event ends the wait when it arrives, a settled round's hits are taken without waiting,
a statistic's shoes are bulk prompts, and a hurried pace sleeps no pause shorter than a wake-up.

None of these asserts a time: each checks the order of events that makes the wait short (the pings
overlap; the event that arrives is found; the waits asked of the devices are zero)."""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest

from harness.bench import scripted
from harness.bench.acts import Deal, LoadShoe
from harness.bench.scripted import MIN_PAUSE_S, HumanPace
from harness.devices.link import DeviceEvent
from harness.errors import DeviceError, DeviceTimeout


def _event(name: str, **payload: Any) -> DeviceEvent:
    return DeviceEvent(name, payload, 0, 0)


def test_every_device_the_supply_feeds_is_pinged_at_once() -> None:
    """Three devices fed, each silent for its whole deadline: the three pings wait together (a
    barrier of three is passed only when all three are asked at the same time; asked one after
    another, the first would break it and the step would not end as three devices gone dark)."""
    from harness.profiles.model import DeviceSpec
    from harness.suites.steps.core import _went_dark

    barrier = threading.Barrier(3, timeout=5.0)
    measured: list[tuple[str, bool]] = []

    class Dark:
        def request(self, cmd: str, timeout_s: float | None = None) -> dict[str, Any]:
            barrier.wait()  # BrokenBarrierError (not a DeviceError) if the pings do not overlap
            raise DeviceTimeout(f"no reply to {cmd} within {timeout_s} s")

    runner = SimpleNamespace(
        controller=Dark, rig=SimpleNamespace(shoe=Dark(), sensors=Dark()),
        profile=SimpleNamespace(devices={"power": DeviceSpec(role="power", driver="scpi-power", resource="emulator")}),
        measure=lambda step, name, value, limit, ok, **kw: measured.append((name, ok)))
    _went_dark(runner, None)  # type: ignore[arg-type]
    assert measured == [(f"the {r} went dark with its power off", True) for r in ("controller", "shoe", "sensors")]


class _Runner:
    """A runner whose controller's events arrive one per pump, and which records each pump's wait."""

    def __init__(self, arriving: list[DeviceEvent], *, link: Any = None) -> None:
        self.arriving = list(arriving)
        self.waits: list[float] = []
        self.measured: list[tuple[str, Any, bool]] = []
        self.round = SimpleNamespace(ctrl_events=[], shoe_events=[])
        self.profile = SimpleNamespace(link=link, timing=SimpleNamespace(response_timeout_ms=Decimal(2000)))

    def pump(self, timeout_s: float = 0.0) -> None:
        self.waits.append(timeout_s)
        if self.arriving:
            self.round.ctrl_events.append(self.arriving.pop(0))

    def measure(self, step: Any, name: str, value: Any, limit: Any, ok: bool, **kw: Any) -> None:
        self.measured.append((name, value, ok))


def test_an_expected_event_is_waited_for_until_it_arrives() -> None:
    """The event sought comes after another event of the round: it is found (the wait goes on past the
    first event, up to the deadline), and the wait ends when it is there."""
    from harness.suites.steps.expect import expect_event

    runner = _Runner([_event("payout", seat=1), _event("hit", seat=3, meter="minor"), _event("payout", seat=3)])
    expect_event(runner, None, event="hit", absent=False, match={"seat": 3, "meter": "minor"})  # type: ignore[arg-type]
    assert runner.measured[-1][2] is True
    assert runner.arriving == [_event("payout", seat=3)]  # no pump after the hit arrived


class _Trailing(_Runner):
    """The event comes ``after_s`` after the step began (each pump sleeps what it is asked)."""

    def __init__(self, after_s: float, response_timeout_ms: int) -> None:
        super().__init__([])
        self.profile.timing.response_timeout_ms = Decimal(response_timeout_ms)
        self.due = time.monotonic() + after_s

    def pump(self, timeout_s: float = 0.0) -> None:
        time.sleep(timeout_s)
        if time.monotonic() >= self.due and not self.round.ctrl_events:
            self.round.ctrl_events.append(_event("no_more_bets"))


def test_an_event_may_trail_its_act_by_as_long_as_the_profile_gives_an_answer() -> None:
    """No clause times an event's report: one that comes 120 ms after the act (a bench's button, a
    loaded host) is there; with no time to answer in the profile the old 50 ms deadline misses it."""
    from harness.suites.steps.expect import expect_event

    for timeout_ms, found in ((2000, True), (0, False)):
        runner = _Trailing(0.12, timeout_ms)
        expect_event(runner, None, event="no_more_bets", absent=False)  # type: ignore[arg-type]
        assert runner.measured[-1][2] is found


def test_an_absent_event_still_has_the_whole_wait() -> None:
    from harness.suites.steps.expect import EVENT_WAIT_S, expect_event

    runner = _Runner([])
    expect_event(runner, None, event="hit", absent=True)  # type: ignore[arg-type]
    assert runner.waits == [EVENT_WAIT_S] and runner.measured[-1][2] is True
    late = _Runner([_event("hit", seat=1, meter="minor")])
    expect_event(late, None, event="hit", absent=True)  # type: ignore[arg-type]
    assert late.measured[-1][2] is False


def test_a_settled_rounds_hits_are_taken_without_waiting() -> None:
    """Every hit and payout of a round comes before its round_end: once round_end is in, the
    attendant's check asks no wait of the devices; before it (or on a link), it waits as before."""
    from harness.suites.steps.core import hits_to_pay

    def runner(events: list[DeviceEvent], link: Any = None) -> Any:
        r = _Runner([], link=link)
        r.round.ctrl_events.extend(events)
        r.interpretation = lambda name: None  # type: ignore[attr-defined]
        r.read_meters = lambda: SimpleNamespace(pending={})  # type: ignore[attr-defined]
        return r

    settled = runner([_event("payout", seat=1, type="banker"), _event("round_end", round=1)])
    assert hits_to_pay(settled)[0] == []
    assert settled.waits == [0.0]
    open_round = runner([_event("payout", seat=1, type="banker")])
    hits_to_pay(open_round)
    assert open_round.waits == [0.01]
    linked = runner([_event("round_end", round=1)], link=object())
    hits_to_pay(linked)
    assert linked.waits == [0.01]


def test_the_shoes_of_a_battery_are_bulk_prompts() -> None:
    from harness.suites.steps.randomness import _live_shoes

    asked: list[tuple[str, bool]] = []
    bulk = [False]
    cards: list[Any] = []

    @contextlib.contextmanager
    def bulk_rounds() -> Iterator[None]:
        bulk[0] = True
        try:
            yield
        finally:
            bulk[0] = False

    def perform(act: Any) -> None:
        asked.append((type(act).__name__, bulk[0]))
        if isinstance(act, Deal):
            cards.extend(SimpleNamespace(code=f"c{i}") for i in range(act.count or 0))

    runner = SimpleNamespace(shoe_decks=1, profile=SimpleNamespace(capabilities=()), perform=perform,
                             performers=SimpleNamespace(bulk_rounds=bulk_rounds), cards_read=lambda: cards,
                             wait_for=lambda what, pred, timeout_s: None if pred() else pytest.fail(what))
    shoes = _live_shoes(runner, 2, 3, 1)  # type: ignore[arg-type]
    assert [len(s.cards) for s in shoes] == [3, 3]
    assert asked == [(LoadShoe.__name__, True), (Deal.__name__, True)] * 2
    assert bulk == [False]


def test_a_hurried_pace_sleeps_no_pause_shorter_than_a_wake_up(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr(scripted.time, "sleep", slept.append)
    rng = random.Random(1)
    HumanPace(speed=Decimal(50_000)).wait(rng, 1.0)  # 20 us: not slept
    HumanPace(speed=Decimal(500)).wait(rng, 1.0)  # 2 ms, give or take the spread: slept
    assert len(slept) == 1 and slept[0] >= MIN_PAUSE_S
    # the draw is made either way: the seeded paces that follow do not depend on the speed
    a, b = random.Random(3), random.Random(3)
    HumanPace(speed=Decimal(50_000)).wait(a, 1.0)
    HumanPace(speed=Decimal(500)).wait(b, 1.0)
    assert a.random() == b.random()


def test_a_device_that_answers_with_its_power_off_is_still_an_error() -> None:
    """The pings at once keep the old verdict: the first fed device (in the profile's order) that
    answers ends the step as an ERROR, after the dark ones before it were measured."""
    from harness.profiles.model import DeviceSpec
    from harness.suites.steps.core import _went_dark

    measured: list[str] = []

    class Dev:
        def __init__(self, dark: bool) -> None:
            self.dark = dark

        def request(self, cmd: str, timeout_s: float | None = None) -> dict[str, Any]:
            if self.dark:
                raise DeviceTimeout("silent")
            return {}

    runner = SimpleNamespace(
        controller=lambda: Dev(True), rig=SimpleNamespace(shoe=Dev(False), sensors=Dev(False)),
        profile=SimpleNamespace(devices={"power": DeviceSpec(role="power", driver="scpi-power", resource="emulator")}),
        measure=lambda step, name, value, limit, ok, **kw: measured.append(name))
    with pytest.raises(DeviceError, match="the shoe still answers"):
        _went_dark(runner, None)  # type: ignore[arg-type]
    assert measured == ["the controller went dark with its power off"]


def test_a_lost_link_is_waited_for_until_the_controller_reports_it() -> None:
    """`comm: lost`: the controller may notice the cut any time within timing.comm_timeout_ms, so the
    step waits for its `lockout` report (cause comm-lost) before the next step judges it: a report that
    arrives three pumps after the cut is in the round's log when the step returns, and the wait ends
    there (the pump after it is never asked for)."""
    from harness.suites.run.runner import CaseRunner
    from harness.suites.steps.core import comm

    class Late(_Runner):
        def __init__(self, arriving: list[DeviceEvent], timeout_ms: str) -> None:
            super().__init__(arriving)
            self.profile = SimpleNamespace(link=None, timing=SimpleNamespace(comm_timeout_ms=Decimal(timeout_ms)))
            self.performed: list[Any] = []

        def controller(self) -> None:
            return None

        def perform(self, act: Any) -> None:
            self.performed.append(act)

        wait_for = CaseRunner.wait_for

    lost = _event("lockout", locked=True, cause="comm-lost")
    runner = Late([_event("payout", seat=1), _event("lockout", locked=False, cause="round-open"), lost,
                   _event("round_end")], "500")
    comm(runner, None, state="lost")  # type: ignore[arg-type]
    assert [a.connected for a in runner.performed] == [False]
    assert lost in runner.round.ctrl_events and runner.arriving == [_event("round_end")]
    # restoring the link waits for nothing; a controller that never reports it is left to the expectations
    back = Late([], "500")
    comm(back, None, state="restored")  # type: ignore[arg-type]
    assert back.waits == [0.0]  # the events before the act are taken in, nothing is waited for
    silent = Late([], "1")
    comm(silent, None, state="lost")  # type: ignore[arg-type]
    assert silent.round.ctrl_events == [] and len(silent.waits) > 1
