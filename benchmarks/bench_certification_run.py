"""Wall time of the full certification run against the emulators (issue target: under 60 s), and
of the same run split over two emulator instances per profile with ``-n 2 --dist loadfile``.

Both runs go through ``tablecert run`` exactly as the README's main command does: every suite,
every built-in emulator profile, emulators as separate processes behind ptys, records written.
Prints each wall time and the ratio of the split run to the single run (same machine, same
minute).  Usage: ``.venv/bin/python benchmarks/bench_certification_run.py``
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed_run(extra: list[str], report_dir: str) -> tuple[float, int, str]:
    cmd = [sys.executable, "-m", "harness", "run", "-q", "--report-dir", report_dir, *extra]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800, check=False)
    elapsed = time.perf_counter() - t0
    summary = proc.stdout[proc.stdout.find("profile "):] if "profile " in proc.stdout else proc.stdout[-2000:]
    return elapsed, proc.returncode, summary


def main() -> int:
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="tc-bench-") as tmp:
        single, code1, summary1 = timed_run([], tmp + "/single")
        print(summary1)
        split, code2, summary2 = timed_run(["-n", "2"], tmp + "/split")
        print(summary2)
    print(f"full certification run, one emulator per profile:        {single:6.1f} s (exit {code1}; target < 60 s)")
    print(f"same run, two emulator instances (-n 2 --dist loadfile): {split:6.1f} s (exit {code2})")
    print(f"ratio split / single: {split / single:.2f}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0 if code1 == 0 and code2 == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
