"""After a case that did not pass, the next case starts from the Rules Submission: a write the case
left in force (answered after its deadline under load, or never written back because the case
failed first) is written back before the next case (``Session._refile_meters``)."""

import subprocess
import sys
from pathlib import Path

from harness.record import load_record

ROOT = Path(__file__).resolve().parents[2]

SUITE = """\
spec: tablecert/suite/1
suite: recovery
title: A failed case's write does not reach the next case
jurisdiction: PA
cases:
  - id: leaves-a-write-in-force
    title: writes the mega display capacity down to its payout limit, then times out before writing it back
    clauses: [pa-461a12-j-display-limit]
    requires: [royal9, config-write]
    steps:
      - configure_meter: {meter: mega, display_capacity: "payout_limit", expect: accepted}
      - fault: no-answer
      - read_meters: now
      - configure_meter: {meter: mega, display_capacity: profile, expect: accepted}
      - expect_config: {}
  - id: starts-from-the-profile
    title: the configuration reads as filed, payout limits and display capacities included
    clauses: [pa-461a12-j-display-limit]
    requires: [royal9, config-write]
    steps:
      - expect_config: {}
"""


def test_a_failed_cases_write_is_written_back_before_the_next_case(tmp_path: Path) -> None:
    suite = tmp_path / "recovery.suite.yaml"
    suite.write_text(SUITE)
    cmd = [sys.executable, "-m", "harness", "run", str(suite), "-q",
           "--profile", str(ROOT / "device_profiles" / "emulated-midi-5.yaml"), "--report-dir", str(tmp_path / "r")]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert (tmp_path / "r").is_dir(), proc.stdout[-2000:] + proc.stderr[-2000:]
    (run_dir,) = (tmp_path / "r").iterdir()
    verdicts = {c.case_id: c.verdict for c in load_record(run_dir).cases}
    assert verdicts == {"leaves-a-write-in-force": "TIMEOUT", "starts-from-the-profile": "PASS"}, proc.stdout[-3000:]
