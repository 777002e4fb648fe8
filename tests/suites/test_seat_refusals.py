"""A wager at a seat the table does not have may be refused with a NAK (BAD_ARGS or REFUSED) instead
of ``accepted: false, reason: bad-seat`` (docs/protocol.md, section 6.3): the cases judge that answer
as the refusal it is, never an ERROR of the rig.  The emulator itself answers a seat outside the
protocol's 1..9 with NAK BAD_ARGS, so on a nine-seat table the seat past the last one is NAKed."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from harness.devices.link import DeviceNak
from harness.devices.roles import ControllerConfig, SeatCombo, Wager, WagerResult
from harness.games.interpretations import Interpretations
from harness.profiles import load_profile
from harness.record import load_record
from harness.suites.load.model import Case, Step
from harness.suites.run.oracle import Oracle
from harness.suites.run.rig import Rig
from harness.suites.run.runner import CaseRunner
from harness.suites.steps.core import wager
from harness.suites.steps.games import expect_areas

ROOT = Path(__file__).resolve().parents[2]
PROFILE = ROOT / "device_profiles" / "emulated-midi-5.yaml"
STEP = Step("expect_areas", {}, "<test>", 1, 1, "- expect_areas")


class NakingSensors:
    """Sensors that NAK a placement at a seat past the seventh, with ``code``."""

    def __init__(self, code: str) -> None:
        self.code = code

    def place(self, seat: int, type: str, amount: int) -> WagerResult:
        if seat > 7:
            raise DeviceNak("wager.place", self.code, f"no seat {seat}", 9)
        return WagerResult(True, None, 1, 2, seat, type, amount)

    def place_many(self, wagers: Sequence[Wager]) -> list[WagerResult]:
        return [self.place(w.seat, w.type, w.amount) for w in wagers]


class Controller:
    def config(self) -> ControllerConfig:
        return ControllerConfig(500, tuple(SeatCombo(s, None) for s in range(1, 8)), {}, None)


def _runner(sensors: Any) -> CaseRunner:
    profile = load_profile(PROFILE)
    case = Case("t", "areas", "areas", ("wa-230-15-040-2-nine-areas",), frozenset(), frozenset(), (STEP,),
                "<test>", 1, timeout_s=10)
    rig = Rig(sensors=sensors, controller=Controller())  # type: ignore[arg-type]
    return CaseRunner(case, rig, Oracle(profile, Interpretations.from_overrides(dict(profile.interpretations))))


@pytest.mark.parametrize("code", ["BAD_ARGS", "REFUSED"])
def test_a_nak_for_seats_past_the_table_is_the_refusal_the_areas_case_judges(code: str) -> None:
    runner = _runner(NakingSensors(code))
    expect_areas(runner, STEP, at_most=9)
    beyond = runner.measured[-1]
    assert (beyond.value, beyond.passed) == ("all refused", True)
    assert beyond.detail == "; ".join(f"seat {s}: bad-seat (NAK {code}: no seat {s})" for s in (8, 9, 10))


def test_a_nak_for_a_seat_past_the_table_is_a_bad_seat_rejection_of_the_wager_step() -> None:
    runner = _runner(NakingSensors("BAD_ARGS"))
    wager(runner, STEP, seat=10, type="player", expect="rejected", reason="bad-seat")
    m = runner.measured[-1]
    assert (m.value, m.passed, m.detail) == ("rejected (bad-seat)", True, "NAK BAD_ARGS: no seat 10")


def test_a_nak_for_a_seat_of_the_table_is_still_an_error() -> None:
    class TableSeatNak(NakingSensors):
        def place(self, seat: int, type: str, amount: int) -> WagerResult:
            raise DeviceNak("wager.place", "BAD_ARGS", "broken", 9)

    runner = _runner(TableSeatNak("BAD_ARGS"))
    with pytest.raises(DeviceNak):  # seat 3 is the table's: a NAK there is no refusal the contract allows
        runner.place_wagers((Wager(8, "player", 500), Wager(3, "player", 500)))


def test_the_emulators_nak_past_nine_seats_is_judged_by_the_wagering_areas_cases(tmp_path: Path) -> None:
    """The shipped seven-seat profile: seats 8 and 9 are refused in the answer (bad-seat), seat 10
    (outside 1..9) with NAK BAD_ARGS; the cases end with a verdict, PASS."""
    cases = ["suites/washington/wac-230-15-040.suite.yaml::at-most-nine-wagering-areas",
             "suites/washington/wac-230-15-040-hit-and-run.suite.yaml::at-most-nine-wagering-areas-hit-and-run"]
    verdicts: dict[str, str] = {}
    details: list[str] = []
    for name, case in zip(("emulated-midi-5", "emulated-hit-and-run"), cases, strict=True):
        report = tmp_path / name
        done = subprocess.run([sys.executable, "-m", "pytest", case, "--tc-profile",
                               str(ROOT / "device_profiles" / f"{name}.yaml"), "--tc-report-dir", str(report),
                               "-p", "no:cacheprovider", "-p", "no:xdist", "-q"], check=False, cwd=ROOT,
                              capture_output=True,
                              text=True, timeout=120)
        runs = [d for d in report.iterdir() if d.is_dir()]
        assert len(runs) == 1, done.stdout + done.stderr
        for c in load_record(runs[0]).cases:
            verdicts[c.case_id] = c.verdict
            details += [m.detail for m in c.measurements]
    assert verdicts == {"at-most-nine-wagering-areas": "PASS", "at-most-nine-wagering-areas-hit-and-run": "PASS"}
    refused = [d for d in details if d.startswith("seat 8: bad-seat")]
    assert refused == ["seat 8: bad-seat; seat 9: bad-seat; seat 10: bad-seat (NAK BAD_ARGS: seat 10: seats are "
                       "numbered 1 to 9)"] * 2, details
