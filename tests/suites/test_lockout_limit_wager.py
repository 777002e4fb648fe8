"""A wager timed after the first card and expected refused: the rules give the controller until the
lock-out limit (629a Royal 9 (a)(2)), so one it takes within the limit, before any lock-out was
reported, is a permitted behaviour (recorded PERMITTED), and one it takes past the limit, or after
it reported locking out, is a FAIL."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import yaml

from harness.devices.link import DeviceEvent
from harness.emulators.personas import apply_persona
from harness.profiles import load_profile
from harness.record import load_record
from harness.suites.steps.core import _within_lockout_limit

ROOT = Path(__file__).resolve().parents[2]
MIDI5 = ROOT / "device_profiles" / "emulated-midi-5.yaml"
MS = 1_000_000


def _runner(limit_ms: str, events: list[DeviceEvent], closed_by_dealer: bool = False) -> Any:
    base = load_profile(MIDI5)
    profile = dataclasses.replace(base, interpretations={**base.interpretations, "lockout-latency-limit-ms": limit_ms})
    rnd = SimpleNamespace(cards=[("2H", 100 * MS)], ctrl_events=events, closed_by_dealer=closed_by_dealer)
    return SimpleNamespace(profile=profile, round=rnd)


def _lockout(at_ms: int) -> DeviceEvent:
    return DeviceEvent("lockout", {"locked": True, "cause": "card"}, 0, at_ms * MS)


def test_a_wager_taken_within_the_limit_before_any_lockout_is_permitted() -> None:
    why = _within_lockout_limit(_runner("10.0", [_lockout(108)]), 105 * MS)
    assert why.startswith("PERMITTED: sent 5.000 ms after the first card, within the 10.0 ms lock-out limit")


def test_a_wager_taken_past_the_limit_is_not_permitted() -> None:
    assert _within_lockout_limit(_runner("10.0", []), 111 * MS) == ""
    assert _within_lockout_limit(_runner("1.0", []), 105 * MS) == ""


def test_a_wager_taken_after_the_lockout_was_reported_or_the_dealer_closed_is_not_permitted() -> None:
    assert _within_lockout_limit(_runner("10.0", [_lockout(103)]), 105 * MS) == ""
    nmb = DeviceEvent("no_more_bets", {}, 0, 101 * MS)
    assert _within_lockout_limit(_runner("10.0", [nmb]), 105 * MS) == ""
    assert _within_lockout_limit(_runner("10.0", [], closed_by_dealer=True), 105 * MS) == ""


def test_a_controller_locking_out_at_eight_tenths_of_a_10_ms_limit_passes_lockout_first_card(tmp_path: Path) -> None:
    """Variant 11 of seed 337982666: the case sent its late wager 5 ms after the first card, a
    controller with a 10 ms limit took it at 5.7 ms, and the case FAILed a compliant device."""
    data = yaml.safe_load(MIDI5.read_text())
    data["timing"] = {**(data.get("timing") or {}), "lockout_deadline_ms": "10.0"}
    data = apply_persona(data, "lockout-at-the-limit")
    assert Decimal(data["emulator"]["lockout_latency_ms"]) == 8
    data["name"] = "at-the-limit"
    path = tmp_path / "at-the-limit.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    report = tmp_path / "r"
    cmd = [sys.executable, "-m", "harness", "run", "suites/lockout/lockout.suite.yaml::lockout-first-card", "-q",
           "--profile", str(path), "--report-dir", str(report)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    (run_dir,) = [d for d in report.iterdir() if d.is_dir()]
    (case,) = load_record(run_dir).cases
    assert case.verdict == "PASS", proc.stdout[-3000:]
    late = [m for m in case.measurements if m.name.endswith("royal9 wager") and "first-card" in m.detail]
    assert late and late[0].value.startswith("rejected"), late
    assert "lock-out limit + 5" in late[0].detail
