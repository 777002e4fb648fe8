"""Validating large suites: CPU time per case as the suite grows (redteam: 1,500 cases took 30 s).

Suites of 15 (the largest shipped suite's size), 150 and 1,500 cases of nine steps each are
written to a temporary folder and validated as ``tablecert validate`` does (one YAML parse, then
every case checked).  Printed: the file size, the CPU seconds of the parse and of the checks, and
the CPU per case against the 15-case suite's (the baseline of the same run): a ratio near 1 means
the cost grows linearly with the size (every step used to split the whole file into lines again,
and ``validate`` parsed each file twice).  Nothing is asserted.

Run: ``.venv/bin/python benchmarks/bench_validate.py``
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "loading"))
from test_suite_scale import suite_text

from harness.suites.load.schema import load_suite
from harness.yamlload import load_yaml

SIZES = (15, 150, 1500)


def measure(path: Path) -> tuple[float, float, int]:
    t0 = time.process_time()
    node = load_yaml(path)
    t1 = time.process_time()
    suite = load_suite(path, node=node)
    t2 = time.process_time()
    return t1 - t0, t2 - t1, len(suite.cases)


def main() -> None:
    print(f"cpus {os.cpu_count()}, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        warm = Path(tmp) / "warm.suite.yaml"
        warm.write_text(suite_text(2))
        measure(warm)  # the step modules are imported by the first validation
        base_per_case = None
        for n in SIZES:
            path = Path(tmp) / f"s{n}.suite.yaml"
            path.write_text(suite_text(n))
            parse, check, cases = measure(path)
            per_case = (parse + check) / cases
            base_per_case = base_per_case or per_case
            print(f"{cases:>5} cases, {path.stat().st_size / 1024:7.0f} KiB: parse {parse:6.2f} s, "
                  f"checks {check:6.2f} s CPU; {per_case * 1000:6.2f} ms per case, "
                  f"{per_case / base_per_case:5.2f} x the 15-case suite's")


if __name__ == "__main__":
    main()
