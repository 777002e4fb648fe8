"""Device faults end their case as FAIL, ERROR or TIMEOUT with the transcript as evidence, and the
run goes on (issue 6, "Device faults").

Each suite under ``suites/`` is run the way a lab runs a certification (pytest in a subprocess
against the emulators over real ptys, a record written), with a subprocess deadline so a harness
that waits forever fails here instead of hanging CI.  The verdicts are read back from the written
record with :func:`harness.record.load_record`.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.record import load_record
from harness.record.document import Record
from harness.record.model import CaseResult

ROOT = Path(__file__).resolve().parents[2]
SUITES = Path(__file__).parent / "suites"
PROFILE = "device_profiles/emulated-midi-5.yaml"
DEADLINE_S = 180  # a bound, not a speed claim: each run takes seconds


@dataclass
class Run:
    record: Record
    run_dir: Path
    output: str
    seconds: float

    def case(self, case_id: str) -> CaseResult:
        found = [c for c in self.record.cases if c.case_id == case_id]
        assert len(found) == 1, f"{case_id}: {[c.case_id for c in self.record.cases]}"
        return found[0]

    def transcript(self, case_id: str, role: str) -> str:
        """The transcript evidence of ``role`` attached to the case."""
        case = self.case(case_id)
        files = [e for e in case.evidence if e.kind == "transcript" and role in Path(e.path).name]
        assert files, f"{case_id}: no {role} transcript in {[e.path for e in case.evidence]}"
        return (self.run_dir / files[0].path).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Run]]:
    """Every fault suite run at once, each in its own process with its own emulator."""
    started: dict[str, tuple[subprocess.Popen[str], Path, float]] = {}
    try:
        for suite in sorted(SUITES.glob("*.suite.yaml")):
            name = suite.name.removesuffix(".suite.yaml")
            report = tmp_path_factory.mktemp(name)
            cmd = [sys.executable, "-m", "pytest", str(suite), "--tc-profile", PROFILE,
                   "--tc-report-dir", str(report), "-p", "no:cacheprovider", "-q", "-p", "no:xdist"]
            proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            started[name] = (proc, report, time.monotonic())
        out: dict[str, Run] = {}
        for name, (proc, report, t0) in started.items():
            output, _ = proc.communicate(timeout=DEADLINE_S)
            seconds = time.monotonic() - t0
            print(f"fault suite {name}: {seconds:.1f} s")
            run_dirs = [d for d in report.iterdir() if d.is_dir()]
            assert len(run_dirs) == 1, output
            out[name] = Run(load_record(run_dirs[0]), run_dirs[0], output, seconds)
        yield out
    finally:
        for proc, _, _ in started.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)


def _verdicts(run: Run) -> dict[str, str]:
    return {c.case_id: c.verdict for c in run.record.cases}


def test_every_fault_suite_ran_every_case(runs: dict[str, Run]) -> None:
    assert set(runs) == {"line_faults", "reboot", "disconnect", "power_loss", "contract"}
    for name, run in runs.items():
        assert "Traceback" not in run.output, run.output
        suite = (SUITES / f"{name}.suite.yaml").read_text(encoding="utf-8")
        assert len(run.record.cases) == suite.count("\n  - id: "), (name, _verdicts(run))


def test_no_answer_is_a_timeout_and_the_next_case_passes(runs: dict[str, Run]) -> None:
    run = runs["line_faults"]
    case = run.case("no-answer-times-out")
    assert case.verdict == "TIMEOUT", case.message
    assert "no reply to meters.get" in (case.message or "")
    assert "device transcript (tail)" in (case.message or "")
    text = run.transcript("no-answer-times-out", "controller")
    assert "test.fault" in text and "no-answer" in text
    assert "timeout: no reply to meters.get" in text
    assert run.case("after-no-answer").verdict == "PASS", run.case("after-no-answer").message


def test_bad_crc_is_a_timeout_with_the_crc_error_in_the_transcript(runs: dict[str, Run]) -> None:
    run = runs["line_faults"]
    case = run.case("bad-crc-times-out")
    assert case.verdict == "TIMEOUT", case.message
    text = run.transcript("bad-crc-times-out", "controller")
    assert "BAD_CRC" in text
    assert run.case("after-bad-crc").verdict == "PASS", run.case("after-bad-crc").message


def test_garbage_is_a_timeout_with_the_noise_in_the_transcript(runs: dict[str, Run]) -> None:
    run = runs["line_faults"]
    case = run.case("garbage-times-out")
    assert case.verdict == "TIMEOUT", case.message
    assert "no reply to test.load" in (case.message or "")
    text = run.transcript("garbage-times-out", "shoe")
    assert "outside any frame" in text
    assert "incomplete frame abandoned" in text  # the false SOF was given up, not waited on forever
    assert run.case("after-garbage").verdict == "PASS", run.case("after-garbage").message


def test_reboot_mid_round_fails_the_case_and_the_next_case_passes(runs: dict[str, Run]) -> None:
    run = runs["reboot"]
    case = run.case("controller-reboot-mid-round")
    assert case.verdict == "FAIL", case.message
    assert "locked-out" in (case.message or "")  # the reboot lost the open round
    failed = [m for m in case.measurements if m.outcome == "FAIL"]
    assert len(failed) == 2, [(m.name, m.value) for m in case.measurements]
    text = run.transcript("controller-reboot-mid-round", "controller")
    assert '"cause":"power"' in text
    assert "event seq gap" in text  # the rebooted device numbers its events from 1 again
    assert run.case("after-reboot").verdict == "PASS", run.case("after-reboot").message


def test_disconnect_mid_round_is_an_error_and_later_cases_are_skipped(runs: dict[str, Run]) -> None:
    run = runs["disconnect"]
    case = run.case("controller-disconnect-mid-round")
    assert case.verdict == "ERROR", case.message
    assert "link is down" in (case.message or "") or "went away" in (case.message or "")
    assert "link down" in run.transcript("controller-disconnect-mid-round", "controller")
    after = run.case("after-disconnect")
    assert after.verdict == "SKIP"
    assert "controller stopped answering" in (after.message or "")


def test_power_loss_restored_times_out_then_the_next_case_passes(runs: dict[str, Run]) -> None:
    run = runs["power_loss"]
    case = run.case("power-loss-mid-round-restored")
    assert case.verdict == "TIMEOUT", case.message
    assert "no reply to wager.place" in (case.message or "")
    assert "timeout: no reply to wager.place" in run.transcript("power-loss-mid-round-restored", "sensors")
    assert run.case("after-power-restored").verdict == "PASS", run.case("after-power-restored").message


def test_power_loss_that_lasts_skips_every_later_case_naming_the_dead_roles(runs: dict[str, Run]) -> None:
    run = runs["power_loss"]
    case = run.case("power-loss-mid-round-permanent")
    assert case.verdict == "TIMEOUT", case.message
    after = run.case("after-power-lost")
    assert after.verdict == "SKIP"
    for role in ("shoe", "sensors", "controller"):
        assert f"{role} stopped answering" in (after.message or "")


def test_an_answer_outside_the_contract_is_one_finding_per_kind_and_costs_no_case_that_does_not_read_it(
        runs: dict[str, Run]) -> None:
    """The meter read carries a field the contract does not have, in two cases (three answers): no
    step reads it, so both cases pass; the transcript notes each answer; the record holds one
    finding for the message kind, naming the field and the case that first sent it."""
    run = runs["contract"]
    for name in ("off-contract-answer-goes-on", "off-contract-answer-again", "after-off-contract"):
        assert run.case(name).verdict == "PASS", (name, run.case(name).message)
    text = run.transcript("off-contract-answer-goes-on", "controller")
    assert "contract: controller: reply to meters.get is outside the protocol contract at 'off_contract'" in text
    assert run.transcript("off-contract-answer-again", "controller").count("contract: controller: reply to") == 2
    assert run.record.contract["versions"] == {"shoe": 2, "sensors": 2, "controller": 2}
    assert run.record.contract["findings"] == [{
        "device": "controller", "message": "reply to meters.get", "definition": "reply:meters.get", "version": 2,
        "fields": [{"path": "off_contract", "problem": "a field the contract does not have (value true)",
                    "first_case": "off-contract-answer-goes-on"}]}]
    from harness.record.gap import render_gap_report as gap_report

    shown = ("controller: reply to meters.get outside contract version 2 (#/$defs/reply:meters.get) at "
             "'off_contract': a field the contract does not have (value true) (first in off-contract-answer-goes-on)")
    assert "## Messages outside the protocol contract" in gap_report(run.record)
    assert shown in " ".join(gap_report(run.record).split())
    assert shown.replace("'", "&#39;") in (run.run_dir / "record.html").read_text(encoding="utf-8")


def test_every_run_finished_its_record(runs: dict[str, Run]) -> None:
    for name, run in runs.items():
        assert (run.run_dir / "record.json").exists(), name
        assert run.seconds < DEADLINE_S
