"""Host side of :mod:`harness.selfcheck.mutation.batch_plugin`: mutants run several to one certification process.

The mutants are taken in stages: at stage k every mutant not yet killed runs on the k-th profile of
its plan (:func:`harness.selfcheck.mutation.run.plan_point`), grouped by profile into batches of at most
``size`` mutants, each batch one pytest process through the kill matrix's runner.  A mutant a batch
did not get to (the process died or ran past its deadline before its group) is run again on its
own, so no mutant is judged by another's failure.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from decimal import Decimal
from pathlib import Path

from harness.selfcheck import killmatrix
from harness.selfcheck.mutation.batch_plugin import BATCH_ENV
from harness.selfcheck.mutation.operators import Point
from harness.verdict import Verdict

Plan = list[tuple[str, list[str]]]
Runner = Callable[[killmatrix.Job, float], killmatrix.JobResult]
#: the deadline of a batch: this long per mutant in it, on top of the run's own
PER_MUTANT_S = 90.0


def batch_job(profile: str, groups: Sequence[tuple[Point, list[str]]], spec: Path, lean: Sequence[str]
              ) -> killmatrix.Job:
    targets = list(dict.fromkeys(c for _, cases in groups for c in cases))
    return killmatrix.job_for(profile, targets=tuple(targets),
                              extra_args=(*lean, "-p", "harness.selfcheck.mutation.batch_plugin"),
                              env=((BATCH_ENV, str(spec)),))


def run_batch(profile: str, groups: Sequence[tuple[Point, list[str]]], runner: Runner, deadline_s: float,
              lean: Sequence[str]) -> tuple[dict[str, killmatrix.JobResult], Decimal]:
    """One batch: each mutant's cases of ``profile``; the results of the mutants it got to."""
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tablecert-mutants-batch-") as tmp:
        spec, results = Path(tmp) / "batch.json", Path(tmp) / "results.jsonl"
        spec.write_text(json.dumps({"results": str(results),
                                    "groups": [{"mutant": p.id, "cases": c} for p, c in groups]}), encoding="utf-8")
        job = batch_job(profile, groups, spec, lean)
        whole = runner(job, deadline_s + PER_MUTANT_S * len(groups))
        per_group: dict[int, list[killmatrix.CaseOutcome]] = {}
        if results.is_file():
            for line in results.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                per_group.setdefault(int(row["group"]), []).append(
                    killmatrix.CaseOutcome(str(row["case"]), str(row["verdict"]), (), row.get("message") or None))
    out: dict[str, killmatrix.JobResult] = {}
    last = max(per_group, default=-1)
    for gi, (point, _) in enumerate(groups):
        cases = per_group.get(gi)
        if cases is None:
            continue  # never reached: run again alone
        if gi == last and whole.error and all(c.verdict in (Verdict.PASS, Verdict.SKIP) for c in cases):
            continue  # the process ended (deadline, crash) during this group: judged again alone
        result = killmatrix.JobResult(killmatrix.job_for(profile), cases)
        out[point.id] = result
    per_mutant = Decimal(str(round((time.monotonic() - t0) / max(1, len(groups)), 1)))
    return out, per_mutant


def chunks(items: Sequence[tuple[Point, list[str]]], size: int) -> list[list[tuple[Point, list[str]]]]:
    return [list(items[i:i + size]) for i in range(0, len(items), size)]


def run_stages(points: Sequence[Point], plans: dict[str, Plan], *, runner: Runner, jobs: int, deadline_s: float,
               size: int, lean: Sequence[str],
               judge: Callable[[killmatrix.JobResult], tuple[str, str | None, str]],
               single: Callable[[Point, Plan], tuple[str, str | None, str, str | None]],
               done: Callable[[Point, str, str | None, str | None, int, Decimal, str], None],
               passed: Callable[[Point, str, int, Decimal], None] | None = None) -> None:
    """Run every planned mutant in batches, stage by stage; ``done`` hears each final verdict
    (point, verdict, profile, case, cases run, seconds, detail); ``passed`` hears each mutant that
    passed one profile of its plan and goes on to the next (point, profile, cases run, seconds), so a
    run stopped part way need not certify it on that profile again."""
    pending = [p for p in points if plans[p.id]]
    ran: dict[str, int] = {p.id: 0 for p in pending}
    spent: dict[str, Decimal] = {p.id: Decimal(0) for p in pending}
    stage = 0
    while pending:
        batches: list[tuple[str, list[tuple[Point, list[str]]]]] = []
        by_profile: dict[str, list[tuple[Point, list[str]]]] = {}
        for p in pending:
            profile, cases = plans[p.id][stage]
            by_profile.setdefault(profile, []).append((p, cases))
        for profile, groups in by_profile.items():
            batches += [(profile, chunk) for chunk in chunks(groups, size)]

        def one(batch: tuple[str, list[tuple[Point, list[str]]]]) -> list[tuple[Point, killmatrix.JobResult | None,
                                                                                 Decimal, str]]:
            profile, groups = batch
            results, each = run_batch(profile, groups, runner, deadline_s, lean)
            return [(p, results.get(p.id), each, profile) for p, _ in groups]

        still: list[Point] = []
        # each batch's mutants are judged as soon as it ends (a journal keeps them), not at the stage's end
        with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="mutant-batches") as pool:
            for future in as_completed([pool.submit(one, b) for b in batches]):
                for point, result, each, profile in future.result():
                    spent[point.id] += each
                    if result is None:  # the batch never reached it: alone, on the rest of its plan
                        verdict, by, detail, where = single(point, plans[point.id][stage:])
                        done(point, verdict, where, by, ran[point.id], spent[point.id], detail)
                        continue
                    ran[point.id] += len(result.cases)
                    verdict, by, detail = judge(result)
                    if verdict != "SURVIVED":
                        done(point, verdict, profile, by, ran[point.id], spent[point.id], detail)
                    elif stage + 1 < len(plans[point.id]):
                        still.append(point)
                        if passed is not None:
                            passed(point, profile, len(result.cases), each)
                    else:
                        done(point, "SURVIVED", None, None, ran[point.id], spent[point.id],
                             "passed on " + ", ".join(p for p, _ in plans[point.id]))
        order = {p.id: i for i, p in enumerate(points)}
        pending = sorted(still, key=lambda p: order[p.id])
        stage += 1
