"""The full mutation run: every mutant of the device-side emulator code certified (``tablecert defects
--mutants``), with the score, the counts by module, operator and outcome, the wall time, and the
survivors with their reviewed reasons.

Baseline in the same run: the traced clean runs that start it (one certification of every built-in
emulated profile); the ratio full run / baseline says how many clean certifications the score costs.
Options: ``--jobs N`` (default 2; the machine is shared), ``--sample N --seed S`` for a part of it,
``--order-seed S`` to run the mutants in a shuffled order (a run stopped early is then a uniform
sample), ``--json FILE`` to keep every mutant's outcome.
``--journal FILE`` writes each mutant's outcome as it is judged (JSON lines) and runs only the
mutants the file has no outcome for: a run stopped part way (hours on two cores) is continued by the
same command, and the score is printed over every mutant the journal holds; a mutant that passed
some profiles of its plan before the stop goes on from the next one.  ``--only unreviewed``
runs the mutants without a reviewed reason in survivors.yaml, ``--only reviewed`` the others
(they survived an earlier run; re-running them checks their reasons still hold).  ``--grown``
re-opens the journal's survivors (or the ``--mutant`` ones) on the profiles of their plan they have
not passed: when a profile joins the run (a choice profile, harness.selfcheck.mutation.run.CHOICE_PROFILES),
a survivor is certified there too, without certifying again where it passed; ``--fresh ID`` runs
that mutant from its first profile in the same sitting (the rig under it changed: an instrument).
Usage: ``.venv/bin/python benchmarks/bench_mutants.py [--jobs 2] [--journal mutants.jsonl]``  (hours)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.selfcheck.mutation import journal, report, survivors  # noqa: E402
from harness.selfcheck.mutation import run as mrun  # noqa: E402
from harness.selfcheck.mutation.operators import Point  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--sample", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--order-seed", type=int, default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--journal", type=Path, default=None)
    parser.add_argument("--mutant", action="append", default=[],
                        help="only this mutant (repeatable); run even if the journal judged it (a sharper case)")
    parser.add_argument("--only", choices=("unreviewed", "reviewed"), default=None)
    parser.add_argument("--fresh", action="append", default=[],
                        help="with --grown: this mutant (repeatable) is run from the first profile of its plan, "
                             "what it passed before not counted (the rig under it changed)")
    parser.add_argument("--grown", action="store_true",
                        help="re-open the journal's survivors (or the --mutant ones) on the profiles of their "
                             "plan they have not passed: a plan grows when a profile joins the run")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}", flush=True)
    points = mrun.all_points()
    chosen = mrun.choose(points, args.mutant, args.sample, args.seed)
    if args.order_seed is not None:
        random.Random(args.order_seed).shuffle(chosen)
    reasons = survivors.load()
    for problem in survivors.stale(reasons, points):
        print(f"stale reason: {problem}")
    mapping = survivors.as_mapping(reasons, points)
    if args.only is not None:
        chosen = [p for p in chosen if (p.id in mapping) == (args.only == "reviewed")]
    if args.grown and not args.journal:
        parser.error("--grown goes with --journal (the survivors and the profiles they passed are read from it)")
    done = journal.load(args.journal, points) if args.journal else {}
    grown = journal.survivor_passes(args.journal, points) if args.grown else {}
    fresh = set(args.fresh)
    if fresh - {p.id for p in points}:
        parser.error(f"--fresh: no such mutant: {', '.join(sorted(fresh - {p.id for p in points}))}")
    if fresh and not args.grown:
        parser.error("--fresh goes with --grown (without it, --mutant ID runs a mutant afresh)")
    if args.grown:
        todo = [p for p in chosen if p.id in grown or p.id in fresh]
    else:
        todo = chosen if args.mutant else journal.pending(chosen, done)
    if args.journal:
        print(f"journal {args.journal}: {len(done)} mutant(s) judged already; {len(todo)} to run", flush=True)

    def keep(outcome: mrun.MutantOutcome) -> None:
        if args.journal:
            journal.append(args.journal, outcome)

    def went_on(point: Point, profile: str, cases_run: int, seconds: Decimal) -> None:
        if args.journal:
            journal.passed(args.journal, point, profile, cases_run, seconds)

    # the profiles each mutant passed in earlier sittings are not certified again (--mutant starts afresh)
    before = journal.passed_profiles(args.journal, points) if args.journal and not args.mutant else {}
    if args.grown:  # a survivor goes on with the profiles its grown plan adds (its passes include its passed rows)
        before = {pid: passes for pid, passes in grown.items() if pid not in fresh}
    if before:
        print(f"journal: {sum(1 for p in todo if p.id in before)} of them passed part of their plan before; "
              "they go on from the next profile", flush=True)

    started, judged = time.monotonic(), len(done)
    try:
        score = mrun.run_mutants(todo, jobs=args.jobs, reasons=mapping, on_outcome=keep,
                                 progress=lambda text: print(text, file=sys.stderr, flush=True),
                                 passed_before=before, on_passed=went_on)
    except KeyboardInterrupt:  # a sitting stopped by hand: its wall time still counts (the trace's is not split out)
        if args.journal:
            now = len(journal.load(args.journal, points))
            journal.sitting(args.journal, wall_seconds=Decimal(str(round(time.monotonic() - started, 1))),
                            trace_seconds=Decimal(0), judged=now - judged, jobs=args.jobs)
            print(f"interrupted: {now - judged} mutant(s) judged in this sitting are in {args.journal}")
        return 130
    if args.journal and not score.problems:
        journal.sitting(args.journal, wall_seconds=score.wall_seconds, trace_seconds=score.trace_seconds,
                        judged=len(score.outcomes), jobs=args.jobs)
        return whole(args.journal, points, mapping, score)
    print(report.render(score))
    ran = [o for o in score.outcomes if o.verdict != "NOT-COVERED"]
    mutant_s = score.wall_seconds - score.trace_seconds
    print(f"\nmutants: {len(score.outcomes)} of {len(points)} ({len(ran)} run, "
          f"{len(score.outcomes) - len(ran)} not covered by any suite)")
    print(f"baseline, the traced clean runs of {len(score.traces)} profile(s): {score.trace_seconds} s")
    print(f"full mutation run: {score.wall_seconds} s; ratio full / baseline: "
          f"{score.wall_seconds / max(score.trace_seconds, Decimal(1)):.1f}; "
          f"{mutant_s / max(len(ran), 1):.1f} s of wall time per mutant run ({args.jobs} job(s))")
    if args.json:
        args.json.write_text(json.dumps(report.to_json(score), indent=2) + "\n", encoding="utf-8")
    return 0 if not score.problems else 1


def whole(path: Path, points: list[Point], mapping: dict[str, tuple[str, str]], last: mrun.Score) -> int:
    """The score over every mutant the journal holds, and the wall time over all its sittings."""
    done = journal.load(path, points)
    outcomes = [done[p.id] for p in points if p.id in done]
    held = journal.sittings(path)
    wall = sum((Decimal(s["wall_seconds"]) for s in held), Decimal(0))
    traces = sum((Decimal(s["trace_seconds"]) for s in held), Decimal(0))
    score = mrun.Score(outcomes, last.traces, wall, last.jobs, len(points), mapping, [], traces)
    print(report.render(score))
    ran = [o for o in outcomes if o.verdict != "NOT-COVERED"]
    missing = [p for p in points if p.id not in done]
    print(f"\njournal: {len(outcomes)} of {len(points)} mutants judged ({len(ran)} run, "
          f"{len(outcomes) - len(ran)} not covered by any suite); {len(missing)} not judged yet "
          f"({sum(1 for p in missing if p.id in mapping)} of them with a reviewed reason)")
    print(f"wall time over {len(held)} sitting(s): {wall} s, of which traced clean runs {traces} s; "
          f"{(wall - traces) / max(len(ran), 1):.1f} s of wall time per mutant run ({last.jobs} job(s))")
    if missing and all(p.id in mapping for p in missing):
        bound = mrun.Score(outcomes + [mrun.MutantOutcome(p, "SURVIVED", detail="not re-run: reviewed reason")
                                       for p in missing], [], wall, last.jobs, len(points), mapping)
        print(f"every mutant not judged has a reviewed reason; counted as the survivor it was: "
              f"score {bound.score()}% over all {len(points)} (a lower bound: a re-run can only kill more)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
