"""Allure 2 view of a record, written through the Allure model library (``allure_commons``).

This is tablecert's one Allure path: nothing writes Allure results while the run goes; after the
run, every case of the record becomes an :class:`allure_commons.model2.TestResult` (steps,
parameters, labels, links, attachments) and :class:`allure_commons.logger.AllureFileLogger` writes
it as ``<uuid>-result.json`` with its attachments, so the files follow the Allure model exactly.
Next to them: ``environment.properties`` (profile, jurisdiction, game, identities, harness,
record digest, verdict) and ``categories.json`` (compliance failures, rig errors, not applicable,
not run), which the Allure report shows on its overview.

Status follows Allure's own rule: a compliance FAIL is ``failed``, a rig ERROR or TIMEOUT is
``broken`` (not an assertion), SKIP and NOT APPLICABLE are ``skipped``, INCONCLUSIVE and
INTERRUPTED are ``unknown``.  Labels: ``suite`` (the suite file), ``feature`` (the area: the
suite's directory under ``suites/``), ``story`` (one per clause), ``tag`` (the jurisdiction),
``epic`` (the game), ``host`` (the station); each clause links to its citation.  Written from the
record, so the view can be rebuilt at any time (``tablecert report --format all``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid as uuidlib
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

import attr
from allure_commons.logger import AllureFileLogger
from allure_commons.model2 import (
    Attachment,
    Label,
    Link,
    Parameter,
    Status,
    StatusDetails,
    TestResult,
    TestStepResult,
)

from harness.record.clauses import clause_info
from harness.record.document import Record
from harness.record.model import IDENTITY_FIELDS, CaseResult
from harness.verdict import Verdict

STATUS: dict[str, str] = {
    Verdict.PASS: Status.PASSED, Verdict.FAIL: Status.FAILED, Verdict.ERROR: Status.BROKEN,
    Verdict.TIMEOUT: Status.BROKEN, Verdict.SKIP: Status.SKIPPED, Verdict.NOT_APPLICABLE: Status.SKIPPED,
    Verdict.INCONCLUSIVE: Status.UNKNOWN, Verdict.INTERRUPTED: Status.UNKNOWN}
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
#: Allure categories (categories.json): how the overview groups what did not pass
CATEGORIES = [
    {"name": "Compliance failures", "matchedStatuses": ["failed"],
     "description": "the device did not do what the regulation requires"},
    {"name": "Rig errors (device stopped answering, timeout)", "matchedStatuses": ["broken"],
     "description": "no verdict on the device: the bench or a device stopped answering"},
    {"name": "Not applicable to the profile", "matchedStatuses": ["skipped"], "messageRegex": "NOT APPLICABLE.*"},
    {"name": "Not run", "matchedStatuses": ["skipped", "unknown"]},
]


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


def _value(v: Any) -> str:
    return json.dumps(v, sort_keys=True, ensure_ascii=False)


def case_result(record: Record, case: CaseResult, case_uuid: str) -> TestResult:
    """The Allure result of one case (without its attachments)."""
    full_name = f"{case.suite_file}::{case.case_id}"
    suite = PurePosixPath(case.suite_file).name.removesuffix(".yaml").removesuffix(".suite")
    labels = [Label("suite", suite), Label("feature", area_of(case.suite_file)),
              *(Label("story", c) for c in case.clauses), Label("framework", "tablecert")]
    if record.meta.jurisdiction:
        labels.append(Label("tag", record.meta.jurisdiction))
    if record.meta.game:
        labels.append(Label("epic", record.meta.game))
    if case.station:
        labels.append(Label("host", case.station))
    links = []
    for c in case.clauses:
        citation = clause_info(c).citation
        if citation:
            links.append(Link(type="tms", url=citation, name=f"{c}: {citation}"))
    steps = [
        TestStepResult(
            name=f"{s.text} (line {s.yaml_line})" if s.yaml_line else s.text,
            status=STATUS.get(s.outcome, Status.UNKNOWN), stage="finished",
            parameters=[Parameter(k, _value(v)) for k, v in sorted(s.detail.items())],
        )
        for s in case.steps
    ]
    digest = hashlib.md5(full_name.encode(), usedforsecurity=False).hexdigest()
    result = TestResult(
        uuid=case_uuid, historyId=digest, testCaseId=digest, fullName=full_name,
        name=case.title or case.case_id, status=STATUS.get(case.verdict, Status.UNKNOWN), stage="finished",
        labels=labels, links=links, steps=steps,
        parameters=[Parameter(k, _value(v)) for k, v in sorted(case.params.items())],
    )
    details = []
    if case.message:
        details.append(case.message if case.verdict not in (Verdict.NOT_APPLICABLE,)
                       else f"NOT APPLICABLE: {case.message}")
    for m in case.measurements:
        if m.outcome != Verdict.PASS:
            details.append(f"{m.name} [{m.clause}]: expected {m.limit}, got {m.value} {m.unit}".rstrip())
    if details:
        result.statusDetails = StatusDetails(message=details[0], trace="\n".join(details))
    start, stop = _epoch_ms(case.started_at), _epoch_ms(case.finished_at)
    if start is not None and stop is not None:
        result.start, result.stop = start, stop
    return result


def _measurements_text(case: CaseResult) -> str:
    lines = [f"{'outcome':8} {'clause':28} name: value unit (limit)"]
    for m in case.measurements:
        lines.append(f"{m.outcome:8} {m.clause:28} {m.name}: {m.value} {m.unit} (limit {m.limit})")
    return "\n".join(lines) + "\n"


def _properties(record: Record, digest: str | None) -> str:
    """environment.properties (Java properties: ``key=value`` lines, ``\\``, ``=`` and ``:`` escaped)."""
    def esc(text: str) -> str:
        return (text.replace("\\", "\\\\").replace("\n", "\\n").replace("=", "\\=").replace(":", "\\:"))

    rows = {
        "profile": record.meta.profile_name, "jurisdiction": record.meta.jurisdiction, "game": record.meta.game,
        "run.id": record.run_id, "verdict": record.derived_verdict()[0],
        "harness": f"tablecert {record.harness_version} (git {record.git_revision})",
        "record.digest": digest or "", "lab": record.meta.lab, "station": record.meta.station,
    }
    for role, pair in sorted(record.identities.items()):
        ident = pair.get("start") or pair.get("end")
        if ident is None:
            continue
        for name in IDENTITY_FIELDS:
            value = getattr(ident, name)
            if value:
                rows[f"{role}.{name}"] = value
    return "".join(f"{esc(k)}={esc(str(v))}\n" for k, v in rows.items() if v)


#: names the Allure files: the same record always gives the same files, so ``verify`` can render
#: the view again and compare it byte for byte (harness.record.views)
_NAMESPACE = uuidlib.UUID("6f1c4d52-9b1e-4c4e-8a35-2d6f0e7b9a10")


def _uuid(record: Record, case_index: int, what: str) -> str:
    return str(uuidlib.uuid5(_NAMESPACE, f"{record.run_id}/{case_index}/{what}"))


class _Logger(AllureFileLogger):
    """Allure's file logger, writing each result as ``<its uuid>-result.json`` (the library names it
    by a fresh random uuid) in one JSON form whatever the environment (``ALLURE_INDENT_OUTPUT``)."""

    def _report_item(self, item: Any) -> None:
        data = attr.asdict(item, filter=lambda _, v: v or v is False)
        path = Path(self._report_dir) / item.file_pattern.format(prefix=item.uuid)
        path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")


def link_or_copy(src: Path, dst: Path) -> None:
    """An attachment that is an evidence file: a hard link to it (no second copy on the disk; the
    evidence stays the file the manifest hashes), a copy where the folder cannot hold a link."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    if dst.exists() or dst.is_symlink():
        dst.unlink()
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def write_allure_results(record: Record, run_dir: Path, out_dir: Path, digest: str | None = None) -> list[Path]:
    """Write one result per case (and its attachments), environment.properties and categories.json."""
    if out_dir.is_symlink() or out_dir.is_file():
        out_dir.unlink()
    elif out_dir.exists():
        shutil.rmtree(out_dir)
    logger = _Logger(str(out_dir))
    for n, case in enumerate(record.cases):
        result = case_result(record, case, _uuid(record, n, "result"))
        for k, ev in enumerate(case.evidence):
            src = run_dir / ev.path
            ext = PurePosixPath(ev.path).suffix or ".bin"
            if src.is_file() and not src.is_symlink():
                source = f"{_uuid(record, n, f'evidence-{k}')}-attachment{ext}"
                link_or_copy(src, out_dir / source)
                result.attachments.append(Attachment(name=ev.name or PurePosixPath(ev.path).name, source=source,
                                                     type=MIME.get(ext.lower(), "application/octet-stream")))
        if case.measurements:
            source = f"{_uuid(record, n, 'measurements')}-attachment.txt"
            logger.report_attached_data(_measurements_text(case), source)
            result.attachments.append(Attachment(name="measurements", source=source, type="text/plain"))
        logger.report_result(result)
    (out_dir / "environment.properties").write_text(_properties(record, digest), "utf-8")
    (out_dir / "categories.json").write_text(json.dumps(CATEGORIES, indent=2), "utf-8")
    return sorted(out_dir.glob("*-result.json"))
