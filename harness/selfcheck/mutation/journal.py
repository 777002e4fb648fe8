"""A mutation run's outcomes, one JSON line each, written as each mutant is judged.

The full run takes hours on a two-core machine; a run that is stopped (a session's end, a host that
dies) keeps every mutant judged so far, and the next invocation with the same journal runs only the
rest.  A row names its mutant by id *and* by the line it bends (``code``) and its function: a row
whose mutant no longer reads the same (an edit moved or changed the line) does not count for the
current source and is run again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from harness.selfcheck.mutation.operators import Point
from harness.selfcheck.mutation.run import MutantOutcome


def row(outcome: MutantOutcome) -> dict[str, object]:
    p = outcome.point
    return {"id": p.id, "function": p.function, "code": p.code, "outcome": outcome.verdict,
            "profile": outcome.profile, "by": outcome.by, "cases_run": outcome.cases_run,
            "seconds": str(outcome.seconds), "detail": outcome.detail}


def append(path: Path, outcome: MutantOutcome) -> None:
    """Add one judged mutant (flushed at once: a killed run loses none that were judged)."""
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(row(outcome), ensure_ascii=False) + "\n")
        out.flush()


def passed(path: Path, point: Point, profile: str, cases_run: int, seconds: Decimal) -> None:
    """Record that a mutant not yet judged passed every case of one profile of its plan (no
    finding): a later sitting goes on from its next profile instead of certifying this one again."""
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps({"passed": {"id": point.id, "function": point.function, "code": point.code,
                                         "profile": profile, "cases_run": cases_run, "seconds": str(seconds)}},
                             ensure_ascii=False) + "\n")
        out.flush()


def passed_profiles(path: Path, points: Iterable[Point]) -> dict[str, dict[str, int]]:
    """Mutant id: {profile it passed: cases run}, for mutants of the current source (as :func:`load`)."""
    by_id = {p.id: p for p in points}
    out: dict[str, dict[str, int]] = {}
    for r in _rows(path):
        row_ = r.get("passed")
        if not isinstance(row_, dict):
            continue
        p = by_id.get(str(row_.get("id")))
        if p is None or p.code != row_.get("code") or p.function != row_.get("function"):
            continue
        out.setdefault(p.id, {})[str(row_["profile"])] = int(row_.get("cases_run") or 0)
    return out


def survivor_passes(path: Path, points: Iterable[Point]) -> dict[str, dict[str, int]]:
    """Mutant id: {profile: cases run} for every mutant the journal judged SURVIVED or NOT-COVERED:
    the profiles its outcome says it passed (``passed on A, B``, the cases it ran counted on the
    first) and those of its ``passed`` rows.  A survivor whose plan has grown since (a profile joined
    the run) goes on from these with the profiles it has not passed (``bench_mutants.py --grown``)."""
    done = load(path, points)
    rows = passed_profiles(path, points)
    out: dict[str, dict[str, int]] = {}
    for pid, o in done.items():
        if o.verdict not in ("SURVIVED", "NOT-COVERED"):
            continue
        passes = dict(rows.get(pid, {}))
        named = _passed_on(o.detail)
        for i, profile in enumerate(named):
            passes.setdefault(profile, 0)
            if i == 0:
                passes[profile] += max(0, o.cases_run - sum(rows.get(pid, {}).values()))
        out[pid] = passes
    return out


def _passed_on(detail: str) -> list[str]:
    """The profiles of a SURVIVED outcome's detail: ``passed on A, B``, with ``(earlier sittings)`` or
    ``(and C, D in earlier sittings)`` after it."""
    if not detail.startswith("passed on "):
        return []
    head, _, tail = detail.removeprefix("passed on ").partition(" (")
    names = [n for n in head.split(", ") if n]
    if tail.startswith("and ") and tail.endswith(" in earlier sittings)"):
        names += [n for n in tail.removeprefix("and ").removesuffix(" in earlier sittings)").split(", ") if n]
    return list(dict.fromkeys(names))


def sitting(path: Path, *, wall_seconds: Decimal, trace_seconds: Decimal, judged: int, jobs: int) -> None:
    """Record one invocation's wall time (the full run's is the sum over its sittings)."""
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps({"sitting": {"wall_seconds": str(wall_seconds), "trace_seconds": str(trace_seconds),
                                          "judged": judged, "jobs": jobs}}) + "\n")


def _rows(path: Path) -> Iterator[dict[str, Any]]:
    """The journal's JSON objects in order (a torn last line, which a killed writer leaves, skipped)."""
    if not path.is_file():
        return
    for text in path.read_text(encoding="utf-8").splitlines():
        try:
            r = json.loads(text)
        except json.JSONDecodeError:
            continue
        if isinstance(r, dict):
            yield r


def sittings(path: Path) -> list[dict[str, str]]:
    """The invocations that wrote to the journal, in order."""
    return [r["sitting"] for r in _rows(path) if "sitting" in r]


def load(path: Path, points: Iterable[Point]) -> dict[str, MutantOutcome]:
    """The journal's outcomes of the current source's mutants, by id (the last row of a mutant wins;
    a row whose line or function reads differently now is left out; a torn last line is ignored)."""
    by_id = {p.id: p for p in points}
    out: dict[str, MutantOutcome] = {}
    for r in _rows(path):
        if "id" not in r:
            continue  # a sitting, or a profile a mutant passed
        p = by_id.get(str(r["id"]))
        if p is None or p.code != r.get("code") or p.function != r.get("function"):
            continue
        out[p.id] = MutantOutcome(p, str(r["outcome"]), r.get("profile"), r.get("by"), int(r.get("cases_run") or 0),
                                  Decimal(str(r.get("seconds") or "0")), str(r.get("detail") or ""))
    return out


def pending(points: Sequence[Point], done: dict[str, MutantOutcome]) -> list[Point]:
    """The mutants of ``points`` the journal has no outcome for, in the given order."""
    return [p for p in points if p.id not in done]
