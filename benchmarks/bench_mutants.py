"""The full mutation run: every mutant of the device-side emulator code certified (``tablecert defects
--mutants``), with the score, the counts by module, operator and outcome, the wall time, and the
survivors with their reviewed reasons.

Baseline in the same run: the traced clean runs that start it (one certification of every built-in
emulated profile); the ratio full run / baseline says how many clean certifications the score costs.
Options: ``--jobs N`` (default 2; the machine is shared), ``--sample N --seed S`` for a part of it,
``--order-seed S`` to run the mutants in a shuffled order (a run stopped early is then a uniform
sample), ``--json FILE`` to keep every mutant's outcome.
Usage: ``.venv/bin/python benchmarks/bench_mutants.py [--jobs 2]``  (hours, not minutes)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.mutation import report, survivors  # noqa: E402
from harness.mutation import run as mrun  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--sample", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--order-seed", type=int, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}", flush=True)
    points = mrun.all_points()
    chosen = mrun.choose(points, (), args.sample, args.seed)
    if args.order_seed is not None:
        random.Random(args.order_seed).shuffle(chosen)
    reasons = survivors.load()
    for problem in survivors.stale(reasons, points):
        print(f"stale reason: {problem}")
    score = mrun.run_mutants(chosen, jobs=args.jobs, reasons=survivors.as_mapping(reasons, points),
                             progress=lambda text: print(text, file=sys.stderr, flush=True))
    print(report.render(score))
    ran = [o for o in score.outcomes if o.verdict != "NOT-COVERED"]
    mutant_s = score.wall_seconds - score.trace_seconds
    print(f"\nmutants: {len(score.outcomes)} of {len(points)} ({len(ran)} run, "
          f"{len(score.outcomes) - len(ran)} not covered by any suite)")
    print(f"baseline, the traced clean runs of {len(score.traces)} profile(s): {score.trace_seconds} s")
    print(f"full mutation run: {score.wall_seconds} s; ratio full / baseline: "
          f"{score.wall_seconds / max(score.trace_seconds, 1):.1f}; "
          f"{mutant_s / max(len(ran), 1):.1f} s of wall time per mutant run ({args.jobs} job(s))")
    if args.json:
        args.json.write_text(json.dumps(report.to_json(score), indent=2) + "\n", encoding="utf-8")
    return 0 if not score.problems else 1


if __name__ == "__main__":
    sys.exit(main())
