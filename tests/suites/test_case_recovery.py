"""After a case that did not pass, the next case starts from the Rules Submission: a write the case
left in force (answered after its deadline under load, or never written back because the case
failed first) is written back before the next case (``Session._refile_meters``)."""

import subprocess
import sys
from pathlib import Path
from typing import Any

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


def _run(tmp_path: Path, text: str) -> tuple[str, dict[str, Any]]:
    """Run the suite ``text`` on the built-in $5 table; its output and its cases by id."""
    suite = tmp_path / "recovery.suite.yaml"
    suite.write_text(text)
    cmd = [sys.executable, "-m", "harness", "run", str(suite), "-q",
           "--profile", str(ROOT / "device_profiles" / "emulated-midi-5.yaml"), "--report-dir", str(tmp_path / "r")]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert (tmp_path / "r").is_dir(), proc.stdout[-2000:] + proc.stderr[-2000:]
    (run_dir,) = [d for d in (tmp_path / "r").iterdir() if d.is_dir()]
    return proc.stdout, {c.case_id: c for c in load_record(run_dir).cases}


def test_a_failed_cases_write_is_written_back_before_the_next_case(tmp_path: Path) -> None:
    stdout, cases = _run(tmp_path, SUITE)
    verdicts = {k: c.verdict for k, c in cases.items()}
    assert verdicts == {"leaves-a-write-in-force": "TIMEOUT", "starts-from-the-profile": "PASS"}, stdout[-3000:]


#: the case after one that left a hit waiting: it must be given its round
NEXT_ROUND = """\
  - id: plays-the-next-round
    title: the next case opens a round and plays it
    clauses: [pa-midi-r9-a2-lockout]
    requires: [royal9]
    steps:
      - open_round
      - wagers: {seats: all, type: player}
      - deal: {cards: "2H 3C 5D 6S", pace_ms: "2"}
      - expect_meters: {grown: all}
"""


HIT_SUITE = """\
spec: tablecert/suite/1
suite: recovery-hit
title: A FAIL that wins an unplanned hit is a FAIL, and the next case is not refused a round for it
jurisdiction: PA
cases:
  - id: wins-an-unplanned-hit
    title: a Royal 9 wager the device should refuse wins the minor, and the round after is refused
    clauses: [pa-midi-r9-a2-lockout]
    requires: [royal9]
    given:
      owner: {seat: with-combo}
      cards: {stack: "minor:seat=${owner}"}
    steps:
      - open_round
      - wagers: {seats: all, type: player}
      - wagers: all
      - wager: {seat: "${owner}", type: royal9, expect: rejected}
      - deal: {cards: "${cards}", pace_ms: "2"}
      - open_round
      - expect_lockout: {locked: false}
""" + NEXT_ROUND


def test_a_fail_that_leaves_a_hit_waiting_is_a_fail_and_the_key_is_turned_before_the_next_case(
        tmp_path: Path) -> None:
    """The second Royal 9 wager is accepted where it must be refused (a FAIL), it wins the minor and
    the round after is refused for the waiting reset key (a device fault, caused by what already
    failed): the case is FAIL with the fault named, and recovery turns the key so the next case runs."""
    stdout, cases = _run(tmp_path, HIT_SUITE)
    assert {k: c.verdict for k, c in cases.items()} == {"wins-an-unplanned-hit": "FAIL",
                                                        "plays-the-next-round": "PASS"}, stdout[-3000:]
    message = cases["wins-an-unplanned-hit"].message or ""
    assert "then the case could not go on at step 6 (open_round)" in message
    assert "awaiting the reset key" in message


PASS_HIT_SUITE = """\
spec: tablecert/suite/1
suite: recovery-pass-hit
title: A case that passes with an award still waiting for the reset key does not cost the next case its round
jurisdiction: PA
cases:
  - id: passes-with-a-hit-waiting
    title: the minor is won and the case ends before the attendant turns the key
    clauses: [pa-461a12-b1-meter-shows-award]
    requires: [royal9, reset-key]
    given:
      owner: {seat: with-combo}
      cards: {stack: "minor:seat=${owner}"}
    steps:
      - open_round
      - wagers: {seats: all, type: player}
      - wagers: all
      - deal: {cards: "${cards}", pace_ms: "2"}
      - expect_event: {event: hit, match: {seat: "${owner}", meter: minor}}
""" + NEXT_ROUND


def test_a_pass_that_leaves_a_hit_waiting_has_the_key_turned_before_the_next_case(tmp_path: Path) -> None:
    """An award a passing case did not key (on a mystery table, a trigger its rounds reached) waits for
    the reset key: the attendant pays it after the case, so the next case is not refused its round."""
    stdout, cases = _run(tmp_path, PASS_HIT_SUITE)
    assert {k: c.verdict for k, c in cases.items()} == {"passes-with-a-hit-waiting": "PASS",
                                                        "plays-the-next-round": "PASS"}, stdout[-3000:]
