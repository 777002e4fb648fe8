"""A device that answers each request late, within the 100 ms docs/protocol.md section 5 allows
(persona at-every-limit), passes the cases that probe a round while it is being dealt: the case
deals the round's first card alone, so the round is still in play for every probe however long each
answer takes (variant 0 of seed 11, persona at-every-limit: no-more-bets-at-the-first-card dealt the
whole round at a 40 ms pace, the round settled while the 80 ms answers came back, and the withdrawal
probe found the wager settled off the layout: FAIL)."""

from __future__ import annotations

import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from harness.emulators.personas import apply_persona
from harness.record import load_record

ROOT = Path(__file__).resolve().parents[2]
MIDI5 = ROOT / "device_profiles" / "emulated-midi-5.yaml"

pytestmark = pytest.mark.slow  # a minute: every answer of the run comes 80 ms late


def test_no_more_bets_at_the_first_card_passes_a_device_answering_at_the_limit(tmp_path: Path) -> None:
    data = yaml.safe_load(MIDI5.read_text())
    data["interpretations"] = {**(data.get("interpretations") or {}), "nmb-announcement": "first-card"}
    data = apply_persona(data, "at-every-limit")
    assert Decimal(data["emulator"]["answer_latency_ms"]) == 80
    data["name"] = "answers-at-the-limit"
    path = tmp_path / "answers-at-the-limit.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    report = tmp_path / "r"
    cmd = [sys.executable, "-m", "harness", "run", "suites/lockout/lockout.suite.yaml::no-more-bets-at-the-first-card",
           "-q", "--profile", str(path), "--report-dir", str(report)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    (run_dir,) = [d for d in report.iterdir() if d.is_dir()]
    (case,) = load_record(run_dir).cases
    assert case.verdict == "PASS", proc.stdout[-3000:]
    withdrawal = [m for m in case.measurements if m.name.endswith("banker withdrawal")]
    assert withdrawal and "still on the layout" in withdrawal[0].detail
