"""A finding written down: the shrunk sequence as a ready YAML case, and the exploration's report.

The case has one step, ``expect_sequence`` (:mod:`harness.suites.steps.explore`), holding the
operations in the text form of :func:`harness.explore.ops.op_text`, and cites the clause of the
model rule the device broke.  It runs on its own with ``tablecert run CASE --profile P``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from harness.explore.explorer import Result
from harness.explore.ops import op_text
from harness.explore.rules import RULES


def _slug(text: str) -> str:
    return re.sub(r"-+", "-", re.sub(r"[^a-z0-9]+", "-", text.lower())).strip("-") or "table"


def case_yaml(result: Result, *, profile_name: str, seed: int, defect: str | None, command: str) -> str:
    """The YAML suite (one case) that replays ``result``'s finding."""
    finding = result.finding
    assert finding is not None
    rule = RULES[finding.differences[0].rule]
    where = f"operation {len(finding.ops)}" if finding.ops else "the table before any operation"
    head = [f"# Found by: {command}",
            f"# {len(finding.ops)} operation(s) after shrinking; the device differs from the model at {where}:"]
    head += [f"#   {d.text()}"[:300] for d in finding.differences]
    head += [f"# Rule {rule.name} ({rule.source}): {rule.text}"[:400]]
    if defect:
        head.append(f"# Explored with the emulator defect {defect}.")
    doc = {
        "spec": "tablecert/suite/1",
        "suite": f"explore-{_slug(profile_name)}",
        "title": f"Explorer finding on {profile_name} (seed {seed})",
        "cases": [{
            "id": f"explore-{_slug(rule.name)}-seed-{seed}",
            "title": f"A sequence the explorer found breaks {rule.name}: {finding.differences[0].what}"[:200],
            "clauses": [rule.clause],
            "steps": [{"expect_sequence": {"ops": [op_text(op) for op in finding.ops] or ["power_cycle"]}}],
        }],
    }
    body = yaml.safe_dump(doc, sort_keys=False, width=1000, allow_unicode=False)
    return "\n".join(head) + "\n" + body


def report(result: Result, *, profile_name: str, seed: int, defect: str | None, budget_s: float,
           verification: dict[str, Any] | None) -> dict[str, Any]:
    """The exploration's JSON report (explore.json in the run folder)."""
    stats = result.stats.to_dict()
    elapsed = max(result.elapsed_s, 1e-9)
    doc: dict[str, Any] = {
        "profile": profile_name, "seed": seed, "defect": defect, "budget_s": budget_s,
        "elapsed_s": round(result.elapsed_s, 3), "batches": result.batches, "error": result.error,
        "operations_per_s": round(stats["operations"] / elapsed, 1),
        "coverage": stats,
        "finding": None,
    }
    f = result.finding
    if f is not None:
        rule = RULES[f.differences[0].rule]
        doc["finding"] = {
            "found_after_s": None if result.to_find_s is None else round(result.to_find_s, 3),
            "shrunk_length": len(f.ops),
            "operations": [op_text(op) for op in f.ops],
            "differences": [{"what": d.what, "expected": repr(d.expected), "device": repr(d.got), "rule": d.rule}
                            for d in f.differences],
            "rule": rule.name, "clause": rule.clause, "source": rule.source,
            "verification": verification,
        }
    return doc


def dumps(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, default=str) + "\n"
