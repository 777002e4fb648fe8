"""The main job is deterministic in its verdict: ``tablecert run`` passes N consecutive runs (default
20) on every built-in emulator profile.

Each run is the README's main command (every suite, every ``device_profiles/emulated-*.yaml``, the
emulators as separate processes, records written) with a fresh emulator seed, so the hidden mystery
trigger, the shuffler and every bulk round differ from run to run: a case that passes only for some
draws shows up here as a run that does not PASS.  Prints, per profile, how many runs passed and the
cases that ever did not, the wall time of every run, and the slowest run against the median (the
baseline measured in the same sitting).  Exit 0 only when every run of every profile passed.

Usage: ``.venv/bin/python benchmarks/bench_repeat_runs.py [--runs N] [--profile P ...]``
(about 80 s a run on a quiet two-core machine).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def one_run(report_dir: Path, profiles: list[str]) -> tuple[float, int, dict[str, tuple[str, list[str]]]]:
    cmd = [sys.executable, "-m", "harness", "run", "-q", "--report-dir", str(report_dir)]
    for p in profiles:
        cmd += ["--profile", p]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=3600, check=False)
    elapsed = time.perf_counter() - t0
    verdicts: dict[str, tuple[str, list[str]]] = {}
    for run_dir in sorted(p for p in report_dir.iterdir() if p.is_dir()):
        record = json.loads((run_dir / "record.json").read_text())
        name = str(record.get("profile", {}).get("name") or run_dir.name)
        bad = [f"{c['case_id']} {c['verdict']}" for c in record.get("cases", [])
               if c.get("verdict") not in ("PASS", "NOT APPLICABLE")]
        verdicts[name] = (str(record.get("verdict", "?")), bad)
    return elapsed, proc.returncode, verdicts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20, help="consecutive runs (default 20)")
    ap.add_argument("--profile", action="append", default=[], help="only this profile (repeatable)")
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; {args.runs} run(s)", flush=True)
    passes: Counter[str] = Counter()
    seen: set[str] = set()
    failures: dict[str, Counter[str]] = defaultdict(Counter)
    walls: list[float] = []
    codes: list[int] = []
    with tempfile.TemporaryDirectory(prefix="tc-repeat-") as tmp:
        for i in range(args.runs):
            wall, code, verdicts = one_run(Path(tmp) / f"run-{i:02d}", args.profile)
            walls.append(wall)
            codes.append(code)
            for name, (verdict, bad) in verdicts.items():
                seen.add(name)
                passes[name] += verdict == "PASS"
                failures[name].update(bad)
            shown = ", ".join(f"{n} {v}" for n, (v, _) in sorted(verdicts.items()))
            print(f"run {i + 1:>2}/{args.runs}: exit {code}, {wall:6.1f} s  {shown}", flush=True)
    print()
    print(f"{'profile':<28} {'passed':>9}  cases that did not pass (times)")
    for name in sorted(seen):
        bad = "; ".join(f"{case} x{n}" for case, n in failures[name].most_common()) or "-"
        print(f"{name:<28} {passes[name]:>4}/{args.runs:<4}  {bad}")
    median = statistics.median(walls)
    print(f"\nwall time per run: median {median:.1f} s, min {min(walls):.1f} s, max {max(walls):.1f} s; "
          f"slowest / median {max(walls) / median:.2f}; total {sum(walls):.0f} s")
    print(f"runs with exit 0: {codes.count(0)}/{args.runs}; load average after: {os.getloadavg()[0]:.2f}")
    every = all(passes[n] == args.runs for n in seen) and codes.count(0) == args.runs
    print("every run of every profile PASSED" if every else "NOT every run passed")
    return 0 if every else 1


if __name__ == "__main__":
    sys.exit(main())
