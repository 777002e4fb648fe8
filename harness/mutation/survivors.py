"""The reviewed reasons of the mutants no suite kills (``survivors.yaml`` beside this module).

Each entry names one mutant and why it survives, in one line:

* ``equivalent``: the mutant is the same program for everything outside it (no behaviour a host,
  a bench or a person at the table can see changes);
* ``compliant``: the behaviour changes, but stays within what the regulation and the Rules
  Submission permit (a device built that way would rightly pass), so no case may fail it;
* ``unobservable``: the behaviour changes in a way that black-box certification cannot see (the
  report lists these among its limitations).

``code`` is the mutated source line as it reads now: when the line moves or changes, the entry no
longer matches its mutant and :func:`stale` says so, so a reason is never carried over to code it
was not written for.  ``equivalent`` and ``compliant`` mutants leave the score's denominator;
``unobservable`` ones stay in it, as not killed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import InputError
from harness.mutation.operators import Point

PATH = Path(__file__).with_name("survivors.yaml")
VERDICTS = ("equivalent", "compliant", "unobservable")
#: verdicts that take a mutant out of the score's denominator (it is not a defect)
NOT_DEFECTS = ("equivalent", "compliant")


@dataclass(frozen=True)
class Reason:
    id: str
    verdict: str
    code: str
    why: str
    line: int  # where in survivors.yaml


def load(path: Path = PATH) -> list[Reason]:
    """The entries; a malformed one is bad input with its ``file:line:col``."""
    from harness.yamlload import YMap, error_at, load_yaml, pos_of

    data = load_yaml(path)
    if data is None:
        return []
    if not isinstance(data, list):
        raise InputError(f"{path}:1:1: expected a list of survivors")
    out: list[Reason] = []
    seen: set[str] = set()
    for entry in data:
        node = entry if isinstance(entry, YMap) else None
        pos = pos_of(entry)
        line = pos.line if pos is not None else 0
        if not isinstance(entry, Mapping) or {"id", "verdict", "code", "why"} - set(entry):
            raise error_at(node, "each survivor needs id, verdict, code and why")
        verdict = str(entry["verdict"])
        if verdict not in VERDICTS:
            raise error_at(node, f"verdict {verdict!r}: expected one of {', '.join(VERDICTS)}")
        mid = str(entry["id"])
        if mid in seen:
            raise error_at(node, f"mutant {mid} listed twice")
        seen.add(mid)
        out.append(Reason(mid, verdict, str(entry["code"]).strip(), str(entry["why"]).strip(), line))
    return out


def stale(reasons: Iterable[Reason], points: Iterable[Point]) -> list[str]:
    """Entries whose mutant is gone or whose line reads differently now (one message each)."""
    by_id = {p.id: p for p in points}
    problems = []
    for r in reasons:
        p = by_id.get(r.id)
        if p is None:
            problems.append(f"{PATH.name}:{r.line}: {r.id}: no such mutant in the current source")
        elif p.code != r.code:
            problems.append(f"{PATH.name}:{r.line}: {r.id}: the line now reads {p.code!r}, not {r.code!r}")
    return problems


def as_mapping(reasons: Iterable[Reason]) -> dict[str, tuple[str, str]]:
    return {r.id: (r.verdict, r.why) for r in reasons}


def unobservable(path: Path = PATH) -> list[dict[str, Any]]:
    """The mutants black-box certification cannot kill, for the report's limitations."""
    return [{"id": r.id, "code": r.code, "why": r.why} for r in load(path) if r.verdict == "unobservable"]
