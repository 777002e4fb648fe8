"""The run history index: how long indexing and the usual queries take over 1,000 indexed runs.

One synthetic record (as the plugin writes it) is indexed 1,000 times under different run ids, two
firmware versions and 50 device serials, into a fresh SQLite index (the default beside the reports),
and with ``--db URL`` into another database.  Printed: the time to index them, and the median of 20
of each query `tablecert history` makes (the newest 50; by device serial; by firmware version),
against the query over 10 indexed runs of the same run (the baseline: the ratio shows how the cost
grows with the index).  Nothing is asserted.

Run: ``.venv/bin/python benchmarks/bench_history.py [--db URL]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "record"))
from recordkit import build_run

from harness.history.index import open_index, put, query, rows_of


def fill(url: str, template: Path, n: int) -> float:
    engine = open_index(url)
    run, devs = rows_of(template) or ({}, [])
    t0 = time.perf_counter()
    for i in range(n):
        rid = f"20261205T{i:06d}Z-bench"
        put(engine, {**run, "run_id": rid, "started_at": f"2026-12-05T{i:06d}Z"},
            [{**d, "run_id": rid, "serial": f"SN-{i % 50:04d}", "software_version": f"2.4.{i % 2}"} for d in devs])
    return time.perf_counter() - t0


def timed(url: str, **kw: str) -> float:
    engine = open_index(url)
    samples = []
    for _ in range(20):
        t0 = time.perf_counter()
        query(engine, **kw)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", default=None, help="a database URL (default: a fresh SQLite file)")
    args = parser.parse_args()
    print(f"cpus {os.cpu_count()}, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        template = build_run(Path(tmp) / "template", verdicts=("PASS", "FAIL"))
        small, large = f"sqlite:///{tmp}/small.sqlite", args.db or f"sqlite:///{tmp}/large.sqlite"
        fill(small, template, 10)
        seconds = fill(large, template, 1000)
        print(f"indexed 1,000 runs in {seconds:.2f} s ({seconds:.2f} ms a run)")
        for what, kw in (("newest 50", {}), ("by device serial", {"device": "SN-0007"}),
                         ("by firmware", {"firmware": "2.4.1"})):
            base, big = timed(small, **kw), timed(large, **kw)
            print(f"query {what:<18} over 1,000 runs {big * 1000:7.2f} ms   over 10 runs {base * 1000:7.2f} ms   "
                  f"ratio {big / base:5.2f}")


if __name__ == "__main__":
    main()
