"""``tablecert run --resume``: a bench run killed with SIGKILL mid-way, then interrupted with Ctrl-C,
then finished, gives the cases and verdicts of an uninterrupted run, in three sittings, and verifies;
a device that is not the one the run started with is refused (exit 3) and the journal is untouched."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness import exitcodes
from harness.record import load_record, verify

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "suites" / "baccarat" / "tableau.suite.yaml"
PROFILE = ROOT / "device_profiles" / "emulated-ez-baccarat.yaml"
ENV = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}


def _cases(journal: Path) -> int:
    if not journal.exists():
        return 0
    return sum(1 for line in journal.read_text().splitlines() if '"type":"case"' in line)


def _wait_for_cases(proc: subprocess.Popen[bytes], journal: Path, n: int) -> None:
    deadline = time.monotonic() + 120
    while _cases(journal) < n and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be stopped"


def _tablecert(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=ENV, check=False)


def _verdicts(run: Path) -> dict[str, str]:
    return {c.case_id: c.verdict for c in load_record(run).cases}


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.usefixtures("sigint_delivered")  # Ctrl-C must reach the run
def test_a_killed_then_interrupted_bench_run_resumes_to_the_uninterrupted_verdicts(tmp_path: Path) -> None:
    whole = tmp_path / "whole"
    done = _tablecert("run", str(SUITE), "--profile", str(PROFILE), "--bench-twin", "--report-dir", str(whole), "-q")
    assert done.returncode == exitcodes.PARTIAL, done.stdout[-2000:]  # one suite: a selection
    uninterrupted = _verdicts(next(d for d in whole.iterdir() if d.is_dir()))

    # sitting 1: killed with SIGKILL (the run and the emulator it started, by their process group)
    cmd = [sys.executable, "-m", "pytest", str(SUITE), "--tc-profile", str(PROFILE), "--tc-bench-twin",
           "--tc-report-dir", str(tmp_path), "--tc-run-id", "bench", "-p", "no:cacheprovider", "-q",
           "-o", "testpaths="]
    run = tmp_path / "bench"
    journal = run / "journal.jsonl"
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV,
                            start_new_session=True)
    try:
        _wait_for_cases(proc, journal, 15)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
    killed_after = _cases(journal)

    # a controller that is not the one the run started with: refused before any case, journal untouched
    real = journal.read_bytes()
    lines = [json.loads(line) for line in real.splitlines()]
    for entry in lines:
        if entry["type"] == "identity" and entry["role"] == "controller":
            entry["identity"]["software_version"] = "0.0.1"
    forged = b"".join(json.dumps(e, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
                      for e in lines)
    journal.write_bytes(forged)
    refused = _tablecert("run", "--resume", str(run), "-q")
    assert refused.returncode == 3, refused.stdout[-2000:] + refused.stderr[-2000:]
    assert "not resumed: a device is not the one the run started with" in refused.stdout
    assert "software_version was '0.0.1' at the start of the run" in refused.stdout
    assert journal.read_bytes() == forged
    journal.write_bytes(real)

    # sitting 2: Ctrl-C (SIGINT to tablecert run) during the resumed run: INTERRUPTED, exit 130
    second = subprocess.Popen([sys.executable, "-m", "harness", "run", "--resume", str(run), "-q"], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=ENV, start_new_session=True)
    try:
        _wait_for_cases(second, journal, killed_after + 10)
        second.send_signal(signal.SIGINT)
        out, _ = second.communicate(timeout=120)
    finally:
        if second.poll() is None:
            os.killpg(second.pid, signal.SIGKILL)
            second.wait(10)
    assert second.returncode == 130, out.decode()[-2000:]
    interrupted = load_record(run)
    assert interrupted.complete and interrupted.derived_verdict()[0] == "INTERRUPTED" and verify(run) == []

    # sitting 3: to the end
    last = _tablecert("run", "--resume", str(run), "-q")
    assert last.returncode == exitcodes.PARTIAL, last.stdout[-3000:]
    assert verify(run) == []
    record = load_record(run)
    assert _verdicts(run) == uninterrupted
    assert [s.end for s in record.sittings] == ["killed", "interrupted", "finished"]
    assert len(record.sittings[0].cases) == killed_after
    assert sum(len(s.kept) for s in record.sittings) == len(uninterrupted)
    assert {r for s in record.sittings[1:] for r in s.identities} >= {"shoe", "sensors", "controller"}
    assert all("--tc-resume" in s.command for s in record.sittings[1:])
    assert "in 3 sittings" in (run / "record.html").read_text()
    # a finished run has nothing to resume
    again = _tablecert("run", "--resume", str(run))
    assert again.returncode == 2 and "nothing to resume" in again.stderr
