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

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import InputError
from harness.selfcheck.mutation import run
from harness.selfcheck.mutation.operators import Point
from harness.yamlload import YMap, error_at, load_yaml, pos_of

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
    #: the function the mutant is in (``Controller.card_out``), to tell identical lines apart
    function: str = ""


def load(path: Path = PATH) -> list[Reason]:
    """The entries; a malformed one is bad input with its ``file:line:col``."""
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
        out.append(Reason(mid, verdict, str(entry["code"]).strip(), str(entry["why"]).strip(), line,
                          str(entry.get("function") or "")))
    return out


def _key(module: str, function: str, col: str, operator: str, code: str) -> tuple[str, ...]:
    return module, function, col, operator, code.strip()


def relocate(reasons: Iterable[Reason], points: Iterable[Point]) -> list[Reason]:
    """The entries with the ids their mutants have now: an edit above a mutated line moves it, and
    the entry follows it to the mutant of the same module, function, column and operator that bends
    a line reading the same (``code``), the nearest to where it was if the function has several.
    Entries that find none keep their id and :func:`stale` reports them."""
    points = list(points)
    by_id = {p.id: p for p in points}
    by_key: dict[tuple[str, ...], list[Point]] = {}
    for p in points:
        by_key.setdefault(_key(p.module, p.function, str(p.col), p.operator, p.code), []).append(p)
    out = []
    for r in reasons:
        here = by_id.get(r.id)
        if here is None or here.code.strip() != r.code or (r.function and here.function != r.function):
            module, line, col, operator = [*r.id.split(":", 3), "", "", ""][:4]
            found = by_key.get(_key(module, r.function, col, operator, r.code), [])
            if found:
                was = int(line) if line.isdigit() else 0
                best = min(found, key=lambda p: abs(p.line - was))
                out.append(Reason(best.id, r.verdict, r.code, r.why, r.line, r.function))
                continue
        out.append(r)
    return out


def stale(reasons: Iterable[Reason], points: Iterable[Point]) -> list[str]:
    """Entries whose mutant is gone or whose line reads differently now (one message each), after
    :func:`relocate` has followed the lines that only moved."""
    points = list(points)
    by_id = {p.id: p for p in points}
    problems = []
    for r in relocate(reasons, points):
        p = by_id.get(r.id)
        if p is None:
            problems.append(f"{PATH.name}:{r.line}: {r.id}: no such mutant in the current source")
        elif p.code != r.code:
            problems.append(f"{PATH.name}:{r.line}: {r.id}: the line now reads {p.code!r}, not {r.code!r}")
        elif r.function and p.function != r.function:
            problems.append(f"{PATH.name}:{r.line}: {r.id}: now in {p.function}, not {r.function}")
    return problems


def as_mapping(reasons: Iterable[Reason], points: Iterable[Point] | None = None) -> dict[str, tuple[str, str]]:
    """Mutant id -> (verdict, why); with ``points``, by the ids the mutants have now."""
    current = relocate(reasons, points) if points is not None else list(reasons)
    return {r.id: (r.verdict, r.why) for r in current}


def unobservable(path: Path = PATH) -> list[dict[str, Any]]:
    """The mutants black-box certification cannot kill, for the report's limitations."""
    return [{"id": r.id, "code": r.code, "why": r.why} for r in load(path) if r.verdict == "unobservable"]


def rewrite(path: Path = PATH) -> int:
    """Write the relocated ids into ``path`` (``python -m harness.selfcheck.mutation.survivors``); the number
    of entries whose id changed."""
    reasons = load(path)
    moved = {r.id: n.id for r, n in zip(reasons, relocate(reasons, run.all_points()), strict=True) if r.id != n.id}
    text = path.read_text(encoding="utf-8")
    for old, new in moved.items():  # one pass per entry, in file order: ids may swap places
        # the id quoted or plain (YAML reads both alike)
        text = re.sub(rf'^- id: (?:"{re.escape(old)}"|{re.escape(old)})$', f'- id: "\0{new}"', text, count=1,
                      flags=re.M)
    text = text.replace('- id: "\0', '- id: "')
    path.write_text(text, encoding="utf-8")
    return len(moved)


if __name__ == "__main__":  # pragma: no cover - maintenance: follow the mutated lines after an edit
    print(f"{rewrite()} survivor id(s) moved")
