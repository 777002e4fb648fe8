"""Findings grouped by root cause, and the vendor pre-submission gap report built from them.

A vendor needs to know what to fix, not how many cases noticed it: one defect often fails the same
measurement in many cases (a wrong pay at every seat, a late lock-out in every lock-out case).  So
failing cases are grouped by their *first* failing measurement (what went wrong first; later
failures in the case are often its consequences), with seat numbers, meter names, counts and a
trailing aside taken out of the measurement's name: the same measurement failing the same way
across cases is one finding, under the clause all its cases bear on.
Each finding carries the clause text (from the regulation catalogue), what was required against
what the device did, the cases, and one exact command that reproduces it on the same profile
(``--profile``, suite and case, any emulator defect, the seeds of randomised steps).

The gap report is one screen per finding: a few lines of clause text, at most
:data:`SHOWN_READINGS` readings, the cases named on one line, and the command.  Full transcripts
stay in the evidence files the HTML report links.  Cases that reached no verdict (ERROR, TIMEOUT,
SKIP, INTERRUPTED) are listed after the findings, grouped by their message: they are gaps in the
evidence, not findings.  Cases NOT APPLICABLE to the profile are counted, not listed.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.money import fmt
from harness.record.clauses import clause_info
from harness.record.contract_findings import lines as contract_lines
from harness.record.document import Record
from harness.record.model import CaseResult, Measurement
from harness.verdict import Verdict

#: readings of a finding shown in full (the rest are counted)
SHOWN_READINGS = 3
#: lines of clause text in a finding
CLAUSE_LINES = 4
#: clauses named when a finding's cases share none
CITED_SHOWN = 4
WIDTH = 96
_NUMBER = re.compile(r"\b\d+\b")


@dataclass
class Finding:
    """One root cause: a measurement (or a failure message) failing the same way in some cases."""

    key: str
    title: str
    clause: str
    cases: list[CaseResult] = field(default_factory=list)
    #: (case, the failing measurement or None) in case order
    readings: list[tuple[CaseResult, Measurement | None]] = field(default_factory=list)
    #: other failing measurements in the same cases (names), shown as "also"
    also: dict[str, None] = field(default_factory=dict)
    #: when no clause is common to every case: the clauses the cases cite, most cited first, with counts
    cited: list[tuple[str, int]] = field(default_factory=list)

    @property
    def reproduce(self) -> str:
        for case in self.cases:
            command = (case.reproduce or {}).get("command")
            if command:
                return command if isinstance(command, str) else " ".join(map(str, command))
        return ""

    @property
    def seeds(self) -> dict[str, Any]:
        for case in self.cases:
            seeds = (case.reproduce or {}).get("seeds")
            if seeds:
                return dict(seeds)
        return {}


def _failing(case: CaseResult) -> list[Measurement]:
    return [m for m in case.measurements if m.outcome == Verdict.FAIL]


def _first_line(text: str | None) -> str:
    lines = (text or "").strip().splitlines()
    return lines[0] if lines else ""


_METER = re.compile(r"\b(mega|major|minor|mystery)\b")
_ASIDE = re.compile(r"\s*\([^)]*\)\s*$")


def _pattern(name: str) -> str:
    """What a measurement measures, whatever seat, meter, round or count it was taken at: numbers
    and meter names taken out, a trailing aside ("(oracle: suited-royal9)") dropped."""
    return _METER.sub("<meter>", _NUMBER.sub("#", _ASIDE.sub("", name)))


def _clauses(m: Measurement | None, case: CaseResult) -> list[str]:
    """The clauses a failure bears on: the measurement's own (a step may name one; else the runner
    stores the case's, comma-joined), else the case's."""
    if m is not None and m.clause:
        return [c.strip() for c in m.clause.split(",") if c.strip()]
    return list(case.clauses)


def findings(record: Record) -> list[Finding]:
    """Failing cases grouped by root cause, most widespread first."""
    groups: dict[str, Finding] = {}
    cited: dict[str, list[list[str]]] = {}
    for case in record.cases:
        if case.verdict != Verdict.FAIL:
            continue
        bad = _failing(case)
        first = bad[0] if bad else None
        if first is not None:
            key, title = _pattern(first.name), first.name
        else:
            key = "message: " + _NUMBER.sub("#", _first_line(case.message))
            title = _first_line(case.message) or "the case failed without a failing measurement"
        finding = groups.setdefault(key, Finding(key, title, ""))
        finding.cases.append(case)
        finding.readings.append((case, first))
        cited.setdefault(key, []).append(_clauses(first, case))
        for m in bad[1:]:
            if _pattern(m.name) != key:
                finding.also[_pattern(m.name).replace("#", "N")] = None
    for key, finding in groups.items():
        # the clause every case of the finding bears on (the first such, in the first case's order)
        lists = cited[key]
        common = [c for c in lists[0] if all(c in other for other in lists[1:])]
        if common:
            finding.clause = common[0]
        else:  # the measurement is not tied to one clause: say which the cases cite, claim none
            counts = Counter(c for cl in lists for c in dict.fromkeys(cl))
            finding.cited = counts.most_common()
    return sorted(_by_clause(list(groups.values())), key=lambda f: (-len(f.cases), f.clause, f.title))


def _by_clause(found: list[Finding]) -> list[Finding]:
    """One finding per clause broken: measurements that fail differently on the same clause (the
    latency of one round, the worst of sixty rounds) are one gap for the vendor to close, shown with
    the most widespread reading first and the others as "also"."""
    merged: dict[str, Finding] = {}
    out: list[Finding] = []
    for f in sorted(found, key=lambda f: (-len(f.cases), f.title)):
        into = merged.get(f.clause) if f.clause else None
        if into is None:
            if f.clause:
                merged[f.clause] = f
            out.append(f)
            continue
        known = {id(c) for c in into.cases}
        for case, m in f.readings:
            if id(case) not in known:
                into.cases.append(case)
                into.readings.append((case, m))
                known.add(id(case))
        into.also[_pattern(f.title).replace("#", "N")] = None
        into.also.update(f.also)
    return out


def amount(value: Any, unit: str) -> str:
    if unit in ("cents", "¢") and isinstance(value, int) and not isinstance(value, bool):
        return f"{fmt(value)} ({value} cents)"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return f"{text} {unit}" if unit else text


def reading_line(case: CaseResult, m: Measurement | None) -> str:
    if m is None:
        return f"{case.case_id}: {_first_line(case.message)}"
    detail = f" ({m.detail})" if m.detail else ""
    return (f"{case.case_id}: {m.name}: required {amount(m.limit, m.unit)}, device gave "
            f"{amount(m.value, m.unit)}{detail}")


def _clip(text: str, width: int = WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _clause_text(clause: str) -> list[str]:
    info = clause_info(clause)
    text = info.text or f"see clause {clause} in the catalogue"
    lines = textwrap.wrap(text, WIDTH - 2)
    if len(lines) > CLAUSE_LINES:
        lines = [*lines[: CLAUSE_LINES - 1], _clip(lines[CLAUSE_LINES - 1] + " …")]
    return ["> " + line for line in lines]


def render_finding(n: int, f: Finding) -> list[str]:
    info = clause_info(f.clause) if f.clause else None
    cited = f" ({info.citation})" if info and info.citation else ""
    count = f" (in {len(f.cases)} cases)" if len(f.cases) > 1 else ""
    out = [f"## {n}. {f.title}{count}", ""]
    if f.clause:
        out += [f"Clause `{f.clause}`{cited}:", *_clause_text(f.clause), ""]
    else:
        listed = ", ".join(f"`{c}` ({k})" for c, k in f.cited[:CITED_SHOWN])
        more = f" and {len(f.cited) - CITED_SHOWN} more" if len(f.cited) > CITED_SHOWN else ""
        out += ["No clause is common to these cases; the measurement is not tied to one. Clauses they cite",
                _clip(f"(cases citing each): {listed}{more}.", 2 * WIDTH), ""]
    out.append("Required against what the device did:")
    for case, m in f.readings[:SHOWN_READINGS]:
        out.append("- " + _clip(reading_line(case, m), 2 * WIDTH))
    if len(f.readings) > SHOWN_READINGS:
        out.append(f"- … the same in {len(f.readings) - SHOWN_READINGS} more case(s)")
    if f.also:
        out.append("- then also failed: " + _clip(", ".join(f.also), WIDTH))
    names = ", ".join(c.case_id for c in f.cases)
    out += ["", _clip(f"Cases ({len(f.cases)}): {names}", 2 * WIDTH), "", "Reproduce:", "",
            "    " + (f.reproduce or "(no command recorded)")]
    if f.seeds:
        out.append("    # seeds: " + ", ".join(f"{k} = {v}" for k, v in f.seeds.items()))
    out.append("")
    return out


def render_gap_report(record: Record, problems: Sequence[str] = (),
                      integrity: Mapping[str, str] | None = None) -> str:
    """The gap report as Markdown text.  ``problems`` (from ``verify``): the record failed
    verification and its overall verdict is NOT VALID; ``integrity``
    (:func:`harness.record.integrity.integrity`): what the record's integrity rests on."""
    found = findings(record)
    unchecked = [c for c in record.cases
                 if c.verdict in (Verdict.ERROR, Verdict.TIMEOUT, Verdict.SKIP, Verdict.INTERRUPTED)]
    na = sum(1 for c in record.cases if c.verdict == Verdict.NOT_APPLICABLE)
    failing = sum(len(f.cases) for f in found)
    verdict, reasons = record.derived_verdict()
    if problems:
        verdict, reasons = "NOT VALID", [f"the record failed verification: {p}" for p in problems[:SHOWN_READINGS]]
    lines = [
        "# Pre-submission gap report",
        "",
        f"Run {record.run_id}, profile {record.meta.profile_name or '-'}, "
        f"jurisdiction {record.meta.jurisdiction or '-'}, tablecert {record.harness_version}.",
        _clip(f"Overall: {verdict} ({'; '.join(reasons)}).", 3 * WIDTH),
        *(textwrap.wrap(f"Integrity: {integrity['text']}", WIDTH) if integrity is not None else []),
        f"{len(found)} finding(s) from {failing} failing case(s); {len(unchecked)} case(s) not checked; "
        f"{na} not applicable to the profile.",
        "",
    ]
    if not found:
        lines += ["No clause failed.", ""]
    for n, f in enumerate(found, 1):
        lines += render_finding(n, f)
    if unchecked:
        lines += ["## Not checked", "", "These cases reached no verdict; the clauses they cover are unproven.", ""]
        by_reason: dict[str, list[CaseResult]] = {}
        for case in unchecked:
            by_reason.setdefault(f"{case.verdict}: {_NUMBER.sub('#', _first_line(case.message))}", []).append(case)
        for cases in by_reason.values():
            first = cases[0]
            names = ", ".join(c.case_id for c in cases[:SHOWN_READINGS])
            more = f" and {len(cases) - SHOWN_READINGS} more" if len(cases) > SHOWN_READINGS else ""
            lines.append(_clip(f"- {first.verdict} ({len(cases)}): {names}{more}: {_first_line(first.message)}",
                               2 * WIDTH))
        lines.append("")
    outside = contract_lines(record.contract)
    if outside:
        lines += ["## Messages outside the protocol contract", "",
                  "Each message kind once, with its fields (docs/protocol.md section 3); only the cases that "
                  "read such a field are in error.", ""]
        for line in outside:  # in full: the vendor needs every field named
            lines += textwrap.wrap(f"- {line}", WIDTH, subsequent_indent="  ", break_on_hyphens=False,
                                   break_long_words=False)
        lines.append("")
    changed = record.identity_changed()
    if changed:
        lines += ["## Device identity changed during the run", ""]
        lines += [f"- {role}: {', '.join(fields)}" for role, fields in changed.items()]
        lines.append("")
    return "\n".join(lines)
