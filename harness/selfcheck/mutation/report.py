"""The mutation score as text and as JSON: counts by module, operator and outcome, the score, the
wall time, and every survivor with its reviewed reason (or ``NO REASON``, which a reader must fix)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from harness.errors import InputError
from harness.selfcheck import killmatrix
from harness.selfcheck.mutation.operators import Point
from harness.selfcheck.mutation.run import KILLS, MutantOutcome, Score, Trace, trace_left_out

OUTCOMES = ("KILLED", "ERROR", "TIMEOUT", "CRASH", "SURVIVED", "NOT-COVERED")
FAMILIES = ("arithmetic", "comparison", "boolean", "negation", "constant", "drop-call", "drop-assign",
            "return-None")


def family(operator: str) -> str:
    """The operator's family: ``Lt>LtE`` -> comparison, ``const-0>1`` -> constant, ..."""
    op = operator.split("#", 1)[0]
    if op.startswith("const-") or op in ("True>False", "False>True"):
        return "constant"
    if op in ("drop-call", "drop-assign", "return-None"):
        return op
    if op.startswith("negate-") or op == "drop-not":
        return "negation"
    if op in ("And>Or", "Or>And"):
        return "boolean"
    left = op.removeprefix("aug-").split(">", 1)[0]
    if left in ("Lt", "LtE", "Gt", "GtE", "Eq", "NotEq", "In", "NotIn", "Is", "IsNot"):
        return "comparison"
    return "arithmetic"


def _survivor_line(o: MutantOutcome, score: Score) -> str:
    verdict, why = score.reasons.get(o.point.id, ("NO REASON", "needs a sharper case or an argument"))
    return f"  {o.point.id:<42} {o.verdict:<11} {verdict:<12} {why}\n      {o.point.code}"


def render(score: Score) -> str:
    lines: list[str] = []
    if score.problems:
        lines.append("The clean emulators do not pass the traced run; no mutant was run:")
        lines += [f"  {p}" for p in score.problems]
        return "\n".join(lines)
    for t in score.traces:
        left = trace_left_out(t)
        lines.append(f"trace {t.profile}: {len(t.passed)} case(s) passed, "
                     f"{t.line_count()} line(s) of the mutated modules ran"
                     + (f"; not passing clean, never selected: {', '.join(left)}" if left else ""))
    outcomes = score.outcomes
    lines.append("")
    lines.append(f"{'MODULE':<12} {'MUTANTS':>7} " + " ".join(f"{o:>11}" for o in OUTCOMES))
    by_module: dict[str, Counter[str]] = {}
    for o in outcomes:
        by_module.setdefault(o.point.module, Counter())[o.verdict] += 1
    for module, counts in by_module.items():
        lines.append(f"{module:<12} {sum(counts.values()):>7} " + " ".join(f"{counts[v]:>11}" for v in OUTCOMES))
    lines.append("")
    lines.append(f"{'OPERATOR':<12} {'MUTANTS':>7} {'KILLED(ANY)':>11}")
    by_family: dict[str, Counter[str]] = {f: Counter() for f in FAMILIES}
    for o in outcomes:
        by_family[family(o.point.operator)]["all"] += 1
        by_family[family(o.point.operator)]["killed"] += o.killed
    for name, counts in by_family.items():
        if counts["all"]:
            lines.append(f"{name:<12} {counts['all']:>7} {counts['killed']:>11}")
    survivors = [o for o in outcomes if not o.killed]
    if survivors:
        lines.append("")
        lines.append("Survivors (id, outcome, reviewed verdict, reason):")
        lines += [_survivor_line(o, score) for o in survivors]
    kills = {v: score.count(v) for v in KILLS}
    lines.append("")
    lines.append(f"{len(outcomes)} mutant(s): {score.killed} killed ({kills['KILLED']} by FAIL, {kills['ERROR']} by "
                 f"ERROR, {kills['TIMEOUT']} by TIMEOUT, {kills['CRASH']} by CRASH); "
                 f"{len(score.equivalent)} equivalent, {len(score.compliant)} compliant, "
                 f"{len(score.unobservable)} unobservable, {len(score.unexplained)} without a reason")
    lines.append(f"mutation score {score.score()}% (killed / (all - equivalent)); "
                 f"{score.score(compliant_out=True)}% leaving the compliant survivors out too; "
                 f"{score.score(fail_only=True)}% counting FAIL kills only")
    lines.append(f"wall time {score.wall_seconds} s ({score.jobs} job(s) at once)")
    return "\n".join(lines)


def to_json(score: Score) -> dict[str, Any]:
    return {
        "score_percent": str(score.score()),
        "score_compliant_out_percent": str(score.score(compliant_out=True)),
        "score_fail_only_percent": str(score.score(fail_only=True)),
        "wall_seconds": str(score.wall_seconds),
        "jobs": score.jobs,
        "problems": score.problems,
        "counts": {v: score.count(v) for v in OUTCOMES},
        "equivalent": len(score.equivalent),
        "compliant": len(score.compliant),
        "unobservable": len(score.unobservable),
        "unexplained": len(score.unexplained),
        "traces": [{"profile": t.profile, "passed": len(t.passed), "not_passing_clean": trace_left_out(t),
                    "passed_cases": list(t.passed), "lines_ran": t.line_count()} for t in score.traces],
        "trace_seconds": str(score.trace_seconds),
        "total_points": score.total_points,
        "mutants": [{"id": o.point.id, "module": o.point.module, "function": o.point.function,
                     "operator": o.point.operator, "family": family(o.point.operator), "code": o.point.code,
                     "outcome": o.verdict, "profile": o.profile, "by": o.by, "cases_run": o.cases_run,
                     "seconds": str(o.seconds), "detail": o.detail,
                     "reason": dict(zip(("verdict", "why"), score.reasons[o.point.id], strict=True))
                     if o.point.id in score.reasons and not o.killed else None}
                    for o in score.outcomes],
    }


def merge_json(docs: Sequence[Mapping[str, Any]], points: Sequence[Point],
               reasons: Mapping[str, tuple[str, str]]) -> Score:
    """One score from the ``to_json`` results of shards that split ``points`` (the whole run's
    selection, in its order): every shard's mutants, in that order; the traced clean runs of the
    first shard (every shard traces the same profiles); the problems of any; the wall time of the
    longest shard.  ``reasons`` are the reviewed survivors' (survivors.yaml)."""
    by_id = {p.id: p for p in points}
    rows: dict[str, MutantOutcome] = {}
    for doc in docs:
        for m in doc["mutants"]:
            point = by_id.get(m["id"])
            if point is None:
                raise InputError(f"--collect: mutant {m['id']} is not one of this source's selection: the shards "
                                 "ran another version of the emulator code")
            rows[m["id"]] = MutantOutcome(point, m["outcome"], m["profile"], m["by"], int(m["cases_run"]),
                                          Decimal(m["seconds"]), m["detail"])
    traces = []
    for t in docs[0]["traces"]:
        left = [killmatrix.CaseOutcome(case, verdict, ())
                for case, verdict in (text.rsplit(" ", 1) for text in t["not_passing_clean"])]
        traces.append(Trace(t["profile"], list(t.get("passed_cases") or []),
                            result=killmatrix.JobResult(killmatrix.Job(t["profile"], ()), left),
                            lines_ran=int(t.get("lines_ran") or 0)))
    problems = [p for doc in docs for p in doc["problems"]]
    wall = max(Decimal(doc["wall_seconds"]) for doc in docs)
    return Score([rows[p.id] for p in points if p.id in rows], traces, wall, max(int(d["jobs"]) for d in docs),
                 len(points), reasons, list(dict.fromkeys(problems)),
                 max(Decimal(doc.get("trace_seconds") or 0) for doc in docs))
