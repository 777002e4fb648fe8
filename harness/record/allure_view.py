"""Allure 2 results view of a record: ``allure-results/<uuid>-result.json`` per case.

The files follow the Allure 2 test result format (the model of allure-python-commons: uuid,
historyId, testCaseId, fullName, name, status, statusDetails, stage, start, stop, labels, links,
parameters, steps, attachments).  Status follows Allure's own rule: a compliance FAIL is
``failed``, a rig ERROR or TIMEOUT is ``broken`` (not an assertion), SKIP is ``skipped``.

Labels: ``suite`` (the suite file), ``feature`` (the area: the suite's directory under ``suites/``),
``story`` (one per clause), ``tag`` (the jurisdiction), ``epic`` (the game), ``host`` (the station).
Evidence files are copied next to the results as ``<uuid>-attachment.<ext>`` and listed under their
original names.  Written from the record, so the view can be rebuilt at any time.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import uuid as uuidlib
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

from harness.record.document import Record
from harness.record.model import CaseResult

STATUS = {"PASS": "passed", "FAIL": "failed", "ERROR": "broken", "TIMEOUT": "broken", "SKIP": "skipped",
          "NOT APPLICABLE": "skipped", "INCONCLUSIVE": "unknown", "INTERRUPTED": "unknown"}
MIME = {
    ".txt": "text/plain",
    ".log": "text/plain",
    ".json": "application/json",
    ".csv": "text/csv",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".svg": "image/svg+xml",
    ".html": "text/html",
    ".xml": "application/xml",
    ".yaml": "application/yaml",
    ".bin": "application/octet-stream",
}


def _epoch_ms(stamp: str) -> int | None:
    try:
        dt = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return int(dt.timestamp() * 1000) if dt.tzinfo else None


def area_of(suite_file: str) -> str:
    """``suites/royal9/paytable.suite.yaml`` -> ``royal9``; a suite at the top -> its own name."""
    path = PurePosixPath(suite_file)
    parts = path.parts
    if "suites" in parts[:-1]:
        rest = parts[parts.index("suites") + 1 : -1]
        if rest:
            return rest[0]
    return path.name.removesuffix(".yaml").removesuffix(".suite")


def case_result(record: Record, case: CaseResult, case_uuid: str) -> dict[str, Any]:
    """The Allure result object of one case (without writing attachments)."""
    full_name = f"{case.suite_file}::{case.case_id}"
    suite = PurePosixPath(case.suite_file).name.removesuffix(".yaml").removesuffix(".suite")
    labels = [
        {"name": "suite", "value": suite},
        {"name": "feature", "value": area_of(case.suite_file)},
        *({"name": "story", "value": c} for c in case.clauses),
        {"name": "framework", "value": "tablecert"},
    ]
    if record.meta.jurisdiction:
        labels.append({"name": "tag", "value": record.meta.jurisdiction})
    if record.meta.game:
        labels.append({"name": "epic", "value": record.meta.game})
    if case.station:
        labels.append({"name": "host", "value": case.station})
    steps = [
        {
            "name": f"{s.text} (line {s.yaml_line})" if s.yaml_line else s.text,
            "status": STATUS[s.outcome],
            "stage": "finished",
            "parameters": [
                {"name": k, "value": json.dumps(v, sort_keys=True)} for k, v in sorted(s.detail.items())
            ],
        }
        for s in case.steps
    ]
    result: dict[str, Any] = {
        "uuid": case_uuid,
        "historyId": hashlib.md5(full_name.encode(), usedforsecurity=False).hexdigest(),
        "testCaseId": hashlib.md5(full_name.encode(), usedforsecurity=False).hexdigest(),
        "fullName": full_name,
        "name": case.title or case.case_id,
        "status": STATUS[case.verdict],
        "stage": "finished",
        "labels": labels,
        "links": [],
        "parameters": [
            {"name": k, "value": json.dumps(v, sort_keys=True)} for k, v in sorted(case.params.items())
        ],
        "steps": steps,
        "attachments": [],
    }
    details = []
    if case.message:
        details.append(case.message)
    for m in case.measurements:
        if m.outcome != "PASS":
            details.append(f"{m.name} [{m.clause}]: expected {m.limit}, got {m.value} {m.unit}".rstrip())
    if details:
        result["statusDetails"] = {"message": details[0], "trace": "\n".join(details)}
    start, stop = _epoch_ms(case.started_at), _epoch_ms(case.finished_at)
    if start is not None and stop is not None:
        result["start"], result["stop"] = start, stop
    return result


def _measurements_text(case: CaseResult) -> str:
    lines = [f"{'outcome':8} {'clause':28} name: value unit (limit)"]
    for m in case.measurements:
        lines.append(f"{m.outcome:8} {m.clause:28} {m.name}: {m.value} {m.unit} (limit {m.limit})")
    return "\n".join(lines) + "\n"


def write_allure_results(record: Record, run_dir: Path, out_dir: Path) -> list[Path]:
    """Write one result file per case (and its attachments) into ``out_dir``; return the result files."""
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    written = []
    for case in record.cases:
        case_uuid = str(uuidlib.uuid4())
        result = case_result(record, case, case_uuid)
        for ev in case.evidence:
            src = run_dir / ev.path
            ext = PurePosixPath(ev.path).suffix or ".bin"
            source = f"{uuidlib.uuid4()}-attachment{ext}"
            if src.is_file():
                shutil.copyfile(src, out_dir / source)
                result["attachments"].append(
                    {
                        "name": ev.name or PurePosixPath(ev.path).name,
                        "source": source,
                        "type": MIME.get(ext.lower(), "application/octet-stream"),
                    }
                )
        if case.measurements:
            source = f"{uuidlib.uuid4()}-attachment.txt"
            (out_dir / source).write_text(_measurements_text(case), "utf-8")
            result["attachments"].append({"name": "measurements", "source": source, "type": "text/plain"})
        path = out_dir / f"{case_uuid}-result.json"
        path.write_text(json.dumps(result, indent=2, ensure_ascii=False), "utf-8")
        written.append(path)
    return written
