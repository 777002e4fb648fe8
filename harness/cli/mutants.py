"""``tablecert defects --mutants``: the mutation score of the suites (:mod:`harness.selfcheck.mutation.run`).

Exit status 0 when every mutant is killed or has a reviewed reason in
``harness/selfcheck/mutation/survivors.yaml`` and the score is at least :data:`TARGET_PERCENT`; 1 otherwise
(a survivor without a reason, a score below the target, or clean emulators that do not pass);
2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from decimal import Decimal
from typing import Any

from harness.errors import InputError

TARGET_PERCENT = Decimal(90)


def run_mutants(args: argparse.Namespace) -> int:
    from harness.selfcheck.mutation import run as mrun
    from harness.selfcheck.mutation import survivors

    if args.collect:
        return _collect(args)
    if args.matrix or args.variants or args.names or args.defect:
        raise InputError("--mutants runs on its own: no defect names, --matrix or --variants with it")
    if args.jobs < 1:
        raise InputError(f"--jobs {args.jobs}: at least 1")
    deadline = mrun.DEFAULT_DEADLINE_S if args.deadline is None else args.deadline
    if deadline <= 0:
        raise InputError(f"--deadline {args.deadline:g}: must be positive")
    points = mrun.all_points()
    reasons = survivors.load()
    chosen = mrun.choose(points, args.mutant, args.sample, args.seed or 0)
    selection = [p.id for p in chosen]
    if args.shard:
        chosen = args.shard.pick(chosen)
    if args.list:
        if args.json:
            print(json.dumps([{"id": p.id, "function": p.function, "code": p.code} for p in chosen], indent=2))
        else:
            for p in chosen:
                print(f"{p.id:<44} {p.function:<36} {p.code}")
            print(f"\n{len(chosen)} mutant(s)")
        return 0
    for problem in survivors.stale(reasons, points):
        print(f"mutants: stale reason: {problem}", file=sys.stderr)

    def progress(text: str) -> None:
        if not args.json:
            print(f"mutants: {text}", file=sys.stderr, flush=True)

    score = mrun.run_mutants(chosen, jobs=args.jobs, deadline_s=deadline, trace=not args.no_trace,
                             reasons=survivors.as_mapping(reasons, points), progress=progress)
    return _print(args, score, selection, str(args.shard or "1/1"))


def _print(args: argparse.Namespace, score: Any, selection: list[str], shard: str) -> int:
    from harness.selfcheck.mutation import report

    if args.json:
        # what --collect needs to merge shards: the whole selection (an unsharded run is shard 1/1)
        key = {"kind": "mutants", "shard": shard, "selection": selection, "no_trace": bool(args.no_trace)}
        print(json.dumps({**report.to_json(score), **key}, indent=2, ensure_ascii=False))
    else:
        print(report.render(score))
    ok = not score.problems and not score.unexplained and score.score() >= TARGET_PERCENT
    return 0 if ok else 1


def _collect(args: argparse.Namespace) -> int:
    """``--mutants --collect``: the shards' scores merged, printed as one run of the whole selection."""
    from harness.cli.shard import load_shards
    from harness.selfcheck.mutation import report, survivors
    from harness.selfcheck.mutation import run as mrun

    docs = load_shards(args.collect, "mutants", ("selection", "no_trace"))
    points = {p.id: p for p in mrun.all_points()}
    selection = list(docs[0]["selection"])
    unknown = [pid for pid in selection if pid not in points]
    if unknown:
        raise InputError(f"--collect: mutant {unknown[0]} is not in this source: the shards ran another version "
                         "of the emulator code")
    chosen = [points[pid] for pid in selection]
    reasons = survivors.as_mapping(survivors.load(), list(points.values()))
    score = report.merge_json(docs, chosen, reasons)
    return _print(args, score, selection, "1/1")
