"""An ESTIMATE, not a measurement: the wall time of the full mutation run (``tablecert defects
--mutants``) over 1, 2 and 4 local workers and over 32 machines, computed from the journal of the
run so far (``benchmarks/results/mutants-journal.jsonl``, written by ``bench_mutants.py --journal``).

The full run takes hours, so it is not run here.  What the journal holds: each sitting's wall time,
its traced clean runs' share, the mutants it judged and its ``--jobs``; each mutant's outcome.

How it is computed (each assumption printed with its figure):

* a lower bound for one machine at 2 workers: the first sitting's wall time per judged mutant (a
  fresh pass, 2 jobs) times the mutants of today's source, plus one traced clean run;
* an upper bound: the wall time summed over every sitting (it includes mutants run again after a
  sharper case and sittings stopped by hand, so the full run once costs less);
* 1 worker: twice the 2-worker figure (each run is one busy process and the machine has 2 cores;
  a perfect 1 -> 2 speed-up, so this is the most 1 worker can take under that model);
* 4 workers: the 2-worker figure (2 cores: two more processes add no CPU);
* 32 machines of this kind, 2 workers each (``--shard K/32``): set-up, one traced clean run
  (every shard traces its own), the mutant time divided by 32, plus the slowest single mutant
  run in the journal (the last shard can end with it).

Run: ``.venv/bin/python benchmarks/estimate_mutants_fanout.py [--points N]`` (without ``--points``
the mutants of today's source are counted, ~100 s on a loaded machine).  Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

JOURNAL = Path(__file__).resolve().parent / "results" / "mutants-journal.jsonl"
#: set-up of a fresh CI machine (checkout, venv, install), as issue 30 measured it
SETUP_S = 30.0


def _hours(seconds: float) -> str:
    return f"{seconds:8.0f} s = {seconds / 3600:5.2f} h"


def main() -> None:
    ap = argparse.ArgumentParser(description="estimate the mutation run's wall time over workers and machines")
    ap.add_argument("--points", type=int, default=None, help="mutants of the source (default: counted)")
    ap.add_argument("--journal", type=Path, default=JOURNAL)
    args = ap.parse_args()
    sittings, judged_ids, slowest = [], set(), 0.0
    for line in args.journal.read_text("utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue  # a torn last line
        if "sitting" in row:
            sittings.append(row["sitting"])
        elif "outcome" in row:
            judged_ids.add(row["id"])
            slowest = max(slowest, float(row["seconds"]))
    if args.points is None:
        from harness.selfcheck.mutation.run import all_points

        args.points = len(all_points())
    first = sittings[0]
    per_mutant = float(first["wall_seconds"]) / int(first["judged"])
    traced = [float(s["trace_seconds"]) for s in sittings if float(s["trace_seconds"]) > 0]
    trace_s = sum(traced) / len(traced)
    total = sum(float(s["wall_seconds"]) for s in sittings)
    print("ESTIMATE computed from the journal (no mutation run was made for it)")
    print(f"journal: {len(sittings)} sittings, {len(judged_ids)} distinct mutants judged, wall time summed "
          f"{total:.0f} s; first sitting {first['judged']} judged in {first['wall_seconds']} s at --jobs "
          f"{first['jobs']} = {per_mutant:.1f} s per mutant; traced clean runs {trace_s:.0f} s (mean of "
          f"{len(traced)}); slowest mutant run {slowest:.0f} s; mutants of today's source {args.points}")
    low2 = trace_s + args.points * per_mutant
    high2 = total
    print(f"\n{'':<34} {'lower bound':>24} {'upper bound':>24}")
    rows = [("1 machine, 1 worker (2 x 2)", 2 * low2, 2 * high2),
            ("1 machine, 2 workers", low2, high2),
            ("1 machine, 4 workers (= 2: 2 cores)", low2, high2)]
    for label, lo, hi in rows:
        print(f"{label:<34} {_hours(lo):>24} {_hours(hi):>24}")
    lo32 = SETUP_S + trace_s + (low2 - trace_s) / 32 + slowest
    hi32 = SETUP_S + trace_s + (high2 - trace_s) / 32 + slowest
    print(f"{'32 machines x 2 workers (--shard)':<34} {_hours(lo32):>24} {_hours(hi32):>24}")
    print(f"\n32 machines against 1 machine at 2 workers: {low2 / lo32:.1f}x to {high2 / hi32:.1f}x faster; "
          f"each shard pays set-up ({SETUP_S:.0f} s) and its own traced clean runs ({trace_s:.0f} s)")


if __name__ == "__main__":
    main()
