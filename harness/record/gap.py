"""The vendor pre-submission gap report: what to fix before submitting the device to a lab.

A vendor needs to know exactly which clause failed, what the regulation requires, what the device
did, and how to make it happen again on the bench.  For each failing clause this report gives the
clause text (from the regulation catalogue when it is available, else the clause id), the
measurements the device failed (expected against actual), and the shoe stack, command and YAML
steps that reproduce it (from the case's ``reproduce`` data).  Cases that could not be checked
(ERROR, TIMEOUT, SKIP) are listed separately: they are gaps in the evidence, not findings.
"""

from __future__ import annotations

import json
from typing import Any

from harness.money import fmt
from harness.record.clauses import clause_info
from harness.record.document import Record
from harness.record.model import CaseResult


def _code(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
    return "```\n" + text.replace("```", "`\u200b``") + "\n```"


def _reproduce(case: CaseResult) -> list[str]:
    out: list[str] = []
    repro = dict(case.reproduce or {})
    command = repro.pop("command", None)
    if command is not None:
        out += [
            "Command:",
            "",
            _code(command if isinstance(command, str) else " ".join(map(str, command))),
            "",
        ]
    stack = repro.pop("stack", None)
    if stack is not None:
        out += [
            "Shoe stack (in dealing order):",
            "",
            _code(stack if isinstance(stack, str) else " ".join(map(str, stack))),
            "",
        ]
    for key, value in sorted(repro.items()):
        out += [f"{key}:", "", _code(value), ""]
    if case.steps:
        out.append(f"Steps ({case.suite_file}):")
        out.append("")
        for s in case.steps:
            where = f"line {s.yaml_line}" if s.yaml_line else "line ?"
            out.append(f"{s.index}. [{where}] {s.text} -> {s.outcome}")
        out.append("")
    return out or ["No reproduction data was recorded.", ""]


def _amount(value: Any, unit: str) -> str:
    if unit == "cents" and isinstance(value, int) and not isinstance(value, bool):
        return f"{fmt(value)} ({value} cents)"
    text = value if isinstance(value, str) else json.dumps(value)
    return f"{text} {unit}" if unit else text


def _device_did(case: CaseResult, clause: str) -> list[str]:
    failed = [m for m in case.measurements if m.outcome != "PASS" and (m.clause in ("", clause))]
    failed = failed or [m for m in case.measurements if m.outcome != "PASS"]
    out = []
    for m in failed:
        detail = f": {m.detail}" if m.detail else ""
        out.append(
            f"- {m.name}: expected {_amount(m.limit, m.unit)}, device gave {_amount(m.value, m.unit)}"
            f" ({m.outcome}){detail}"
        )
    if case.message:
        out.append(f"- message: {case.message}")
    return out or ["- (no failing measurement recorded)"]


def render_gap_report(record: Record) -> str:
    """The gap report as Markdown text."""
    failing: dict[str, list[CaseResult]] = {}
    unchecked: list[CaseResult] = []
    for case in record.cases:
        if case.verdict == "FAIL":
            for clause in case.clauses or ["(no clause)"]:
                failing.setdefault(clause, []).append(case)
        elif case.verdict != "PASS":
            unchecked.append(case)
    verdict, reasons = record.derived_verdict()
    lines = [
        "# Pre-submission gap report",
        "",
        f"Run {record.run_id}, profile {record.meta.profile_name or '-'}, "
        f"jurisdiction {record.meta.jurisdiction or '-'}, tablecert {record.harness_version}.",
        f"Overall: {verdict} ({'; '.join(reasons)}). {len(record.cases)} case(s), "
        f"{len(failing)} failing clause(s), {len(unchecked)} case(s) not checked.",
        "",
    ]
    if not failing:
        lines += ["No clause failed.", ""]
    for clause in sorted(failing):
        info = clause_info(clause)
        lines += [f"## {clause}" + (f" ({info.citation})" if info.citation else ""), ""]
        lines += ["What the regulation requires:", ""]
        lines += ["> " + line for line in (info.text or f"see clause {clause} in the catalogue").splitlines()]
        lines.append("")
        for case in failing[clause]:
            lines += [f"### Case {case.case_id}: {case.title}", "", "What the device did:", ""]
            lines += _device_did(case, clause)
            lines.append("")
            lines += _reproduce(case)
    if unchecked:
        lines += [
            "## Not checked",
            "",
            "These cases could not reach a verdict; the clauses they cover are unproven.",
            "",
        ]
        for case in unchecked:
            lines.append(
                f"- {case.case_id} ({case.verdict}; {', '.join(case.clauses) or 'no clause'}):"
                f" {case.message or 'no message'}"
            )
        lines.append("")
    changed = record.identity_changed()
    if changed:
        lines += ["## Device identity changed during the run", ""]
        lines += [f"- {role}: {', '.join(fields)}" for role, fields in changed.items()]
        lines.append("")
    return "\n".join(lines)
