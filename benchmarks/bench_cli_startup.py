"""Start-up time of the ``tablecert`` command: ``--help``, ``run --help`` and ``validate`` of one profile.

Targets (issue 30): ``tablecert --help`` under 0.3 s and ``validate`` of one profile under 0.6 s on
a 2-core machine.  Each command runs as a fresh process (as a user and every subprocess of the
matrices start it) ``--repeat`` times; the median and the minimum wall times are printed.

The baseline is measured in the same run: the ``harness`` package of ``--before REF`` (a git commit;
default the commit before the command imported lazily) is extracted with ``git archive`` into a
temporary folder and the same commands run from it with the same interpreter, so both figures
share the machine's load.  Printed: each figure, the ratio after / before, and the target.
Nothing is asserted.

Run: ``.venv/bin/python benchmarks/bench_cli_startup.py [--repeat 7] [--before REF]``
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the last commit whose ``tablecert`` imported every command's dependencies (scipy, numpy) up front
BEFORE = "1f3c463"
PROFILE = str(ROOT / "device_profiles" / "emulated-mini-baccarat.yaml")
COMMANDS: list[tuple[str, list[str], float | None]] = [
    ("tablecert --help", ["--help"], 0.3),
    ("tablecert run --help", ["run", "--help"], None),
    ("tablecert validate PROFILE", ["validate", PROFILE], 0.6),
]


def _time(python_path: Path, argv: list[str], repeat: int) -> list[float]:
    code = "import sys; from harness.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "PYTHONPATH": str(python_path), "TABLECERT_HOME": str(ROOT)}
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        # run from the package's own folder: ``python -c`` puts the working directory first on sys.path
        proc = subprocess.run([sys.executable, "-c", code, *argv], cwd=python_path, env=env, capture_output=True,
                              timeout=120, check=False)
        out.append(time.perf_counter() - t0)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{argv}: exit {proc.returncode}: {proc.stderr.decode()[-400:]}")
    return out


def _extract(ref: str, into: Path) -> None:
    blob = subprocess.run(["git", "archive", "--format=tar", ref, "harness"], cwd=ROOT, capture_output=True,
                          check=True, timeout=120).stdout
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        tar.extractall(into, filter="data")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--before", default=BEFORE, help=f"git commit of the baseline (default {BEFORE})")
    args = ap.parse_args()
    print(f"cpus {os.cpu_count()}, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{args.repeat} runs each, median (min)")
    with tempfile.TemporaryDirectory() as tmp:
        _extract(args.before, Path(tmp))
        print(f"{'command':<30} {'before ' + args.before:>18} {'now':>16} {'now/before':>11} {'target':>8}")
        for _, argv, _ in COMMANDS:  # warm-up: compile the extracted baseline's bytecode, fill the disk cache
            _time(Path(tmp), argv, 1)
            _time(ROOT, argv, 1)
        for label, argv, target in COMMANDS:
            # interleaved, so a burst of load on the machine hits both alike
            before, now = [], []
            for _ in range(args.repeat):
                before += _time(Path(tmp), argv, 1)
                now += _time(ROOT, argv, 1)
            b, n = statistics.median(before), statistics.median(now)
            tgt = f"< {target:.1f} s" if target else "-"
            print(f"{label:<30} {b:7.3f} s ({min(before):.3f}) {n:6.3f} s ({min(now):.3f}) {n / b:10.2f}x {tgt:>8}")


if __name__ == "__main__":
    main()
