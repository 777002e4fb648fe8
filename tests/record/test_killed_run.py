"""A real certification run killed with SIGKILL mid-way keeps every finished case."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from harness.record import load_record, verify

ROOT = Path(__file__).resolve().parents[2]


def _finished_cases(journal: Path) -> int:
    if not journal.exists():
        return 0
    return sum(1 for line in journal.read_text().splitlines() if '"case"' in line and '"verdict"' in line)


def test_sigkill_mid_run_keeps_finished_cases(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "pytest", str(ROOT / "suites" / "baccarat" / "tableau.suite.yaml"),
           "--tc-profile", str(ROOT / "device_profiles" / "emulated-ez-baccarat.yaml"),
           "--tc-report-dir", str(tmp_path), "--tc-run-id", "killed", "-p", "no:cacheprovider", "-q"]
    # its own process group: the run and the emulator it starts are ended together, by that group id
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    journal = tmp_path / "killed" / "journal.jsonl"
    try:
        deadline = time.monotonic() + 120
        while _finished_cases(journal) < 5 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be killed"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
    finished = _finished_cases(journal)
    assert finished >= 5
    record = load_record(tmp_path / "killed")
    assert not record.complete
    assert len(record.cases) >= finished >= 5
    assert all(c.verdict == "PASS" for c in record.cases)
    assert any("incomplete" in p for p in verify(tmp_path / "killed"))
