"""JUnit XML view of a record, for CI systems that read nothing else.

One ``testcase`` per case; FAIL is a ``failure``, ERROR and TIMEOUT are an ``error`` (a rig problem
is not a compliance failure); SKIP, NOT APPLICABLE (with its reason), INCONCLUSIVE and INTERRUPTED
are ``skipped`` with the outcome and reason in the message.  Suite-level properties carry the profile, the
record digest and every device identity field, so a CI page still says which software was tested.

Raw device bytes are the classic way to make JUnit XML unparseable: every string goes through
:func:`sanitize`, which replaces characters XML 1.0 cannot carry (and DEL) by a visible ``\\xNN``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from harness.errors import InputError
from harness.record.document import Record
from harness.record.folder import read_member
from harness.record.model import IDENTITY_FIELDS, CaseResult
from harness.verdict import Verdict

TAIL_BYTES = 2000
_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")

#: outcomes of a case that reached no pass/fail verdict of its own
NOT_RUN = (Verdict.SKIP, Verdict.NOT_APPLICABLE, Verdict.INCONCLUSIVE, Verdict.INTERRUPTED)


def sanitize(text: str) -> str:
    """Make ``text`` legal XML 1.0 character data, keeping what was there visible."""
    return _BAD.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else "\\ufffd", text)


def _ms_to_s(ms: int) -> str:
    return f"{ms // 1000}.{ms % 1000:03d}"


def _tails(case: CaseResult, run_dir: Path | None) -> str:
    if run_dir is None:
        return ""
    out = []
    for ev in case.evidence:
        if ev.kind != "transcript":
            continue
        try:  # a regular file inside the run folder only (a FIFO in its place would block for ever)
            data = read_member(run_dir, ev.path)
        except InputError as exc:
            out.append(f"--- {ev.path}: {exc.message}")
            continue
        out.append(f"--- {ev.path} (last {min(len(data), TAIL_BYTES)} of {len(data)} bytes)")
        out.append(data[-TAIL_BYTES:].decode("utf-8", errors="replace"))
    return "\n".join(out)


def _failure_text(case: CaseResult, run_dir: Path | None) -> str:
    lines = [case.message or ""]
    for m in case.measurements:
        if m.outcome != Verdict.PASS:
            lines.append(f"{m.name} [{m.clause}]: expected {m.limit} got {m.value} {m.unit} -> {m.outcome}")
    for s in case.steps:
        if s.outcome != Verdict.PASS:
            lines.append(f"{case.suite_file}:{s.yaml_line}: step {s.index} {s.text} -> {s.outcome}")
    tails = _tails(case, run_dir)
    if tails:
        lines.append(tails)
    return "\n".join(x for x in lines if x)


def _prop(parent: ET.Element, name: str, value: str) -> None:
    ET.SubElement(parent, "property", name=sanitize(name), value=sanitize(value))


def render_junit(record: Record, run_dir: Path | None = None, digest: str | None = None) -> bytes:
    """The record as JUnit XML bytes (UTF-8, with declaration)."""
    counts = record.counts()
    total_ms = sum(c.duration_ms for c in record.cases)
    name = record.meta.profile_name or record.run_id
    attrs = {
        "name": sanitize(f"tablecert {name}"),
        "tests": str(len(record.cases)),
        "failures": str(counts[Verdict.FAIL]),
        "errors": str(counts[Verdict.ERROR] + counts[Verdict.TIMEOUT]),
        "skipped": str(sum(counts[v] for v in NOT_RUN)),
        "time": _ms_to_s(total_ms),
    }
    root = ET.Element("testsuites", attrs)
    suite = ET.SubElement(root, "testsuite", {**attrs, "timestamp": sanitize(record.started_at)})
    props = ET.SubElement(suite, "properties")
    _prop(props, "profile", record.meta.profile_name)
    _prop(props, "jurisdiction", record.meta.jurisdiction)
    _prop(props, "run_id", record.run_id)
    _prop(props, "record_digest", digest or "")
    _prop(props, "record_complete", "true" if record.complete else "false")
    _prop(props, "verdict", record.derived_verdict()[0])
    _prop(props, "harness_version", record.harness_version)
    _prop(props, "git_revision", record.git_revision)
    for role, pair in sorted(record.identities.items()):
        for when, ident in sorted(pair.items()):
            for field in IDENTITY_FIELDS:
                _prop(props, f"identity.{role}.{when}.{field}", getattr(ident, field))
    for case in record.cases:
        classname = Path(case.suite_file).name.removesuffix(".yaml").removesuffix(".suite") or "tablecert"
        tc = ET.SubElement(
            suite,
            "testcase",
            classname=sanitize(classname),
            name=sanitize(case.case_id),
            time=_ms_to_s(case.duration_ms),
            file=sanitize(case.suite_file),
        )
        if case.clauses:
            tprops = ET.SubElement(tc, "properties")
            for clause in case.clauses:
                _prop(tprops, "clause", clause)
        message = sanitize((case.message or case.verdict).splitlines()[0] if case.message else case.verdict)
        if case.verdict == Verdict.FAIL:
            el = ET.SubElement(tc, "failure", message=message, type=Verdict.FAIL)
            el.text = sanitize(_failure_text(case, run_dir))
        elif case.verdict in (Verdict.ERROR, Verdict.TIMEOUT):
            el = ET.SubElement(tc, "error", message=message, type=case.verdict)
            el.text = sanitize(_failure_text(case, run_dir))
        elif case.verdict in NOT_RUN:
            text = message if case.verdict == Verdict.SKIP else f"{case.verdict}: {message}"
            ET.SubElement(tc, "skipped", message=sanitize(text))
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
