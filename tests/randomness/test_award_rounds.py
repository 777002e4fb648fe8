"""The rounds played for mystery awards: every settlement checked and the meters conserved, with a
reading only at the start, after a hit and at the end (harness.suites.steps.award_rounds)."""

from __future__ import annotations

import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from harness.devices.roles import MeterReading
from harness.profiles.model import MeterSettings
from harness.progressive.meter import Meter, MeterConfig
from harness.record.journal import load_record
from harness.suites.steps.award_rounds import advance

ROOT = Path(__file__).resolve().parents[2]
PROFILE = ROOT / "device_profiles" / "emulated-midi-5-mystery.yaml"

SUITE = """\
spec: tablecert/suite/1
suite: award-rounds
title: rounds for mystery awards
jurisdiction: PA
cases:
  - id: award-rounds
    title: a few awards
    clauses: [pa-midi-r9-h-random-trigger]
    requires: [royal9, mystery]
    timeout_s: 300
    steps:
      - expect_mystery_distribution: {awards: 1}
"""


def test_meters_carried_forward_exactly_as_a_meter_contributes() -> None:
    rates = {"minor": Decimal("0.35"), "mega": Decimal("1.25")}
    meters = {name: Meter(MeterConfig(name, rate, 45_000, 45_000)) for name, rate in rates.items()}
    reading = MeterReading({n: m.amount for n, m in meters.items()}, {n: Decimal(0) for n in meters}, 0, 0, 0)
    settings = {n: MeterSettings(n, rate, 45_000, 45_000) for n, rate in rates.items()}
    for rnd in range(1, 40):
        stakes = 500 * (rnd % 8)
        for m in meters.values():
            for _ in range(rnd % 8):
                m.contribute(500)
        reading = advance(reading, settings, stakes)
        for name, m in meters.items():
            assert reading.meters[name] == m.amount
            assert reading.residual[name] == Decimal(m.residual_num) / Decimal(m.den)
    held = advance(reading, settings, 500, frozenset({"mega"}))
    assert held.meters["mega"] == reading.meters["mega"] and held.meters["minor"] >= reading.meters["minor"]


def _run(tmp_path: Path, *extra: str) -> dict[str, object]:
    suites = tmp_path / "suites"
    suites.mkdir(parents=True)
    (suites / "award.suite.yaml").write_text(SUITE)
    report = tmp_path / "record"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    proc = subprocess.run([sys.executable, "-m", "pytest", str(suites), "-q", "-p", "no:cacheprovider", "-o",
                           "testpaths=", "--rootdir", str(ROOT), "--tc-profile", str(PROFILE), "--tc-report-dir",
                           str(report), *extra], cwd=ROOT, capture_output=True, text=True, timeout=280, env=env,
                          check=False)
    runs = sorted(report.iterdir()) if report.is_dir() else []
    assert len(runs) == 1, proc.stdout[-3000:] + proc.stderr[-2000:]
    (case,) = load_record(runs[0]).cases
    return {"verdict": case.verdict, "message": case.message,
            **{m.name.split(" over ")[0]: m for m in case.measurements}}


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_every_round_is_checked_and_a_dropped_residual_is_caught(tmp_path: Path) -> None:
    clean = _run(tmp_path / "clean")
    assert clean["verdict"] == "INCONCLUSIVE", clean["message"]  # one award of the planned ten
    payouts, conserved = clean["payouts matching the oracle"], clean["meter contributions conserved"]
    assert payouts.outcome == conserved.outcome == "PASS"  # type: ignore[attr-defined]
    assert payouts.value == payouts.limit > 0 and conserved.value == conserved.limit > 0  # type: ignore[attr-defined]
    broken = _run(tmp_path / "broken", "--tc-defect", "residual-dropped")
    assert broken["verdict"] == "FAIL", broken["message"]
    assert broken["meter contributions conserved"].outcome == "FAIL"  # type: ignore[attr-defined]
