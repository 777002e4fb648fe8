"""``tablecert run``: one record per profile; with -n 2 the worker records merge into it."""

import subprocess
import sys
from pathlib import Path

from harness.record import load_record, verify

ROOT = Path(__file__).resolve().parents[2]


def _run(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    suites = [ROOT / "suites" / "hit-and-run", ROOT / "suites" / "washington" / "wac-230-15-040-hit-and-run.suite.yaml"]
    cmd = [sys.executable, "-m", "harness", "run", *map(str, suites), "-q",
           "--profile", str(ROOT / "device_profiles" / "emulated-hit-and-run.yaml"),
           "--report-dir", str(tmp_path), *extra]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


def test_split_run_merges_worker_records(tmp_path: Path) -> None:
    proc = _run(tmp_path, "-n", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    merged = [d for d in tmp_path.iterdir() if d.name.endswith("-emulated-hit-and-run")]
    workers = sorted(d for d in tmp_path.iterdir() if "-gw" in d.name)
    assert len(merged) == 1 and len(workers) == 2
    record = load_record(merged[0])
    assert verify(merged[0]) == []
    assert len(record.cases) == sum(len(load_record(w).cases) for w in workers) > 0
    assert all(c.verdict == "PASS" for c in record.cases)
    assert "PASS" in proc.stdout and str(merged[0] / "record.html") in proc.stdout


def test_unknown_profile_is_one_line_and_exit_2(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "harness", "run", "--profile", str(tmp_path / "nope.yaml")]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "no such file" in proc.stderr
    assert "Traceback" not in proc.stderr
