"""The sweeps of harness/suites/steps/sweeps.py on fake devices (no emulator): every line, meter,
field and state asked, and how each answer is judged (the cases themselves are proven on the
independent table's faults, tests/independent/FAULTS2.md)."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest

from harness.devices.link import DeviceNak, Reply
from harness.devices.roles import MeterReading
from harness.suites.run.context import NotApplicableHere
from harness.suites.steps import sweeps as sw
from harness.suites.steps.expect import caps_in_force

STEP = SimpleNamespace(clause=None)

CONFIG = {
    "game": "midibaccarat", "denomination": 500, "decks": 8, "commission": "5", "hit_soft17": None,
    "meters": {
        "mega": {"rate": "1.25", "initial": 5_000_000, "reset": 5_000_000, "payout_limit": 25_000_000,
                 "display_capacity": 99_999_999},
        "major": {"rate": "0.5", "initial": 45_000, "reset": 45_000, "payout_limit": 1_000_000,
                  "display_capacity": 9_999_999},
    },
}


class Measures(list[tuple[str, Any, Any, bool]]):
    def failed(self) -> list[str]:
        return [name for name, _v, _l, ok in self if not ok]


class FakeLink:
    def __init__(self, gaps: list[tuple[int, int]] | None = None) -> None:
        self.event_gaps = list(gaps or [])


class FakeDevice:
    """A device of the reference protocol whose answer to each command takes ``ms[cmd]`` (a list:
    one per try, the last repeated)."""

    def __init__(self, ms: dict[str, list[float]] | None = None, gaps: list[tuple[int, int]] | None = None) -> None:
        self.link = FakeLink(gaps)
        self.ms = ms or {}
        self.sent: list[str] = []

    def call(self, cmd: str, timeout_s: float | None = None, **args: Any) -> Reply:
        times = self.ms.get(cmd, [1.0])
        took = times[min(self.sent.count(cmd), len(times) - 1)]
        self.sent.append(cmd)
        return Reply({"ok": True}, 1, 1_000, 1_000 + int(took * 1_000_000))


class FakeController(FakeDevice):
    def __init__(self, takes: bool = False, **kw: Any) -> None:
        super().__init__(**kw)
        self.raw = {k: (dict(v) if isinstance(v, dict) else v) for k, v in CONFIG.items()}
        self.raw["meters"] = {k: dict(v) for k, v in CONFIG["meters"].items()}
        self.takes = takes
        self.writes: list[dict[str, Any]] = []

    def config(self) -> Any:
        return SimpleNamespace(raw=self.raw, denomination=self.raw["denomination"])

    def set_config(self, **fields: Any) -> None:
        self.writes.append(fields)
        if not self.takes:
            raise DeviceNak("config.set", "REFUSED", "live", 1)
        for k, v in fields.items():
            if k == "meters":
                for m, f in v.items():
                    self.raw["meters"][m].update(f)
            else:
                self.raw[k] = v


def _runner(rig: Any, reading: MeterReading | None = None, marks: dict[int, int] | None = None) -> Any:
    out = Measures()

    def measure(step: Any, name: str, value: Any, limit: Any, passed: bool, **kw: Any) -> None:
        out.append((name, value, limit, passed))

    return SimpleNamespace(rig=rig, measure=measure, measured=out, pump=lambda t=0.0: None,
                           controller=lambda: rig.controller, read_meters=lambda: reading,
                           seq_marks=marks or {})


def test_a_restart_at_one_is_no_gap_but_any_other_jump_is() -> None:
    assert sw.seq_gaps([(13, 1)]) == []
    assert sw.seq_gaps([(2, 3), (13, 1), (8, 10)]) == [(2, 3), (8, 10)]


def test_answer_time_is_judged_on_the_fastest_try() -> None:
    assert sw.fastest_ms([150_000_000, 2_500_000, 90_000_000]) == Decimal("2.500")
    # one slow sample (a loaded host) decides nothing; a device slow on every try fails
    ctrl = FakeController(ms={"meters.get": [150.0, 3.0], "config.get": [150.0]})
    rig = SimpleNamespace(shoe=FakeDevice(), sensors=None, controller=ctrl)
    runner = _runner(rig)
    sw.expect_answer_times(runner, STEP, tries=3)
    assert runner.measured.failed() == ["controller answers config.get (fastest of 3)"]
    assert ctrl.sent.count("meters.get") == 3 and "lockout.get" in ctrl.sent
    assert "shoe.status" in rig.shoe.sent


def test_a_slow_answer_seen_too_few_times_is_inconclusive() -> None:
    calls: list[tuple[Any, ...]] = []
    runner = SimpleNamespace(measure=lambda *a, **kw: calls.append((*a[1:], kw)))
    sw.measure_answer_time(runner, STEP, "controller answers round.open", [150_000_000], "slowest 150.000 ms",
                           few=True)
    sw.measure_answer_time(runner, STEP, "controller answers round.open", [150_000_000], "slowest 150.000 ms")
    sw.measure_answer_time(runner, STEP, "controller answers ping", [2_000_000], "every try: 2.000 ms", few=True)
    (name, best, limit, ok, kw), again, fast = calls
    assert (name, best, limit, ok) == ("controller answers round.open (fastest of 1)", Decimal("150.000"),
                                       "<= 100", False)
    assert kw == {"unit": "ms", "advisory": True, "detail": "slowest 150.000 ms; INCONCLUSIVE: too few answers "
                  "of this kind to judge one slow sample"}
    assert again[4] == {"unit": "ms", "advisory": False, "detail": "slowest 150.000 ms"}
    assert fast[3] is True and fast[4] == {"unit": "ms", "advisory": False, "detail": "every try: 2.000 ms"}


def test_answer_times_not_applicable_without_a_reference_line() -> None:
    rig = SimpleNamespace(shoe=None, sensors=None, controller=SimpleNamespace())
    with pytest.raises(NotApplicableHere):
        sw.expect_answer_times(_runner(rig), STEP)


def test_event_seq_judges_each_line_since_the_case_began() -> None:
    shoe = FakeDevice(gaps=[(4, 9)])            # before the case: not judged
    ctrl = FakeController(gaps=[(5, 7), (30, 1)])  # a gap, and a restart at 1
    rig = SimpleNamespace(shoe=shoe, sensors=None, controller=ctrl)
    runner = _runner(rig, marks={id(shoe.link): 1, id(ctrl.link): 0})
    shoe.link.event_gaps.append((12, 14))
    sw.expect_event_seq(runner, STEP)
    assert runner.measured.failed() == ["event SEQ gaps on the shoe's line in this case",
                                        "event SEQ gaps on the controller's line in this case"]
    shown = {name: value for name, value, _l, _ok in runner.measured}
    assert shown["event SEQ gaps on the controller's line in this case"] == "expected 5, got 7"


def test_with_no_restart_allowed_only_the_lines_first_event_of_the_case_may_be_numbered_one() -> None:
    """``restarts: none``: a SEQ back at 1 is a gap, but for the line's first event of the case (the table
    may have been powered up between cases, by the run's recovery after an earlier case)."""
    from harness.devices.transcript import Transcript

    def line(gaps: list[tuple[int, int]], first_seq: int) -> FakeDevice:
        dev = FakeDevice(gaps=gaps)
        dev.link.transcript = Transcript("x")  # type: ignore[attr-defined]
        dev.link.transcript.add("<", "frame", t_ns=1, text="EVT", type="EVT", seq=first_seq)  # type: ignore[attr-defined]
        return dev

    powered_up = line([(9, 1)], 1)  # the first event of the case numbered 1
    wrapped = line([(256, 1)], 250)  # numbered 1 mid-case: a counter held in one byte
    rig = SimpleNamespace(shoe=powered_up, sensors=None, controller=wrapped)
    runner = _runner(rig)
    runner.transcript_marks = {}
    sw.expect_event_seq(runner, STEP, restarts="none")
    assert runner.measured.failed() == ["event SEQ gaps on the controller's line in this case"]


def test_live_writes_cover_every_field_with_another_value() -> None:
    writes = {label: (w, back) for label, w, back in sw._live_writes(CONFIG)}
    assert writes["decks"] == ({"decks": 9}, {"decks": 8})
    assert writes["commission"] == ({"commission": "6"}, {"commission": "5"})
    assert "hit_soft17" not in writes  # not reported: not written
    assert writes["denomination"] == ({"denomination": 100}, {"denomination": 500})
    assert writes["major payout limit"][0] == {"meters": {"major": {"payout_limit": 999_999}}}
    assert set(writes) == {"decks", "commission", "denomination", "mega payout limit", "major payout limit"}


def test_a_write_taken_while_live_fails_and_is_written_back() -> None:
    declines = FakeController()
    runner = _runner(SimpleNamespace(controller=declines))
    sw.expect_writes_refused_while_live(runner, STEP)
    assert not runner.measured.failed()
    takes = FakeController(takes=True)
    runner = _runner(SimpleNamespace(controller=takes))
    sw.expect_writes_refused_while_live(runner, STEP)
    assert "commission written while live" in runner.measured.failed()
    assert takes.raw["commission"] == "5" and takes.raw["meters"]["major"]["payout_limit"] == 1_000_000


def _reading(meters: dict[str, int], diverted: dict[str, int] | None = None) -> MeterReading:
    raw = {"meters": meters, **({"diverted": diverted} if diverted is not None else {})}
    return MeterReading(meters, {}, 0, 0, 0, raw=raw)


def test_meters_are_held_to_the_caps_read_back() -> None:
    ctrl = FakeController()
    ctrl.raw["meters"]["major"]["payout_limit"] = 45_001  # written in the case
    runner = _runner(SimpleNamespace(controller=ctrl), _reading({"mega": 5_000_006, "major": 45_002}, {}))
    sw.expect_meters_within_caps(runner, STEP)
    assert runner.measured.failed() == ["major meter within its cap"]
    at_cap = _runner(SimpleNamespace(controller=ctrl), _reading({"mega": 5_000_006, "major": 45_001}))
    sw.expect_meters_within_caps(at_cap, STEP)
    assert at_cap.measured.failed() == ["major meter at its cap: diverted reported"]
    assert caps_in_force(_runner(SimpleNamespace(controller=ctrl))) == {"mega": 25_000_000, "major": 45_001}


def test_meters_at_reset_are_held_to_the_reset_read_back() -> None:
    ctrl = FakeController()
    ctrl.raw["meters"]["major"]["reset"] = 45_017
    good = _runner(SimpleNamespace(controller=ctrl), _reading({"mega": 5_000_000, "major": 45_017}))
    sw.expect_meters_at_reset(good, STEP, meters=("major",))
    assert not good.measured.failed()
    initial = _runner(SimpleNamespace(controller=ctrl), _reading({"mega": 5_000_000, "major": 45_000}))
    sw.expect_meters_at_reset(initial, STEP, meters=("all",))
    assert initial.measured.failed() == ["major meter after its reset"]
