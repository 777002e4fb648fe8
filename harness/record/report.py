"""The lab report's context: everything the report template shows, computed from a record.

The template (``harness/record/templates/report.html.j2``, replaceable by a lab's own letterhead)
only lays out what this module computes; every key is documented in docs/report.md.  Values are
plain text, numbers and lists (the template engine escapes them); the only markup is the meter
charts (:mod:`harness.record.svg`, built from escaped text and integers), passed as ``Markup``.

The report body is the summary, the clause-by-clause matrix (:mod:`harness.record.matrix`), the
findings (:mod:`harness.record.gap`) and the evidence index; every case's steps, measurements and
meter charts are in the appendix (``record-appendix.html``) and the transcripts are linked files.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from markupsafe import Markup

from harness.errors import InputError
from harness.money import fmt, parse_amount
from harness.paths import safe_name
from harness.record.charts import latencies, latency_chart, meter_pictures, uncertainty_ms
from harness.record.clauses import clause_info
from harness.record.contract_findings import lines as contract_lines
from harness.record.document import Record
from harness.record.gap import findings, reading_line
from harness.record.integrity import integrity
from harness.record.matrix import build_matrix
from harness.record.model import IDENTITY_FIELDS, CaseResult, Measurement
from harness.record.statistics import (
    PROCEDURE_UNIT,
    TEST_UNIT,
    procedure_summary,
    statistical_procedures,
    statistical_tests,
)
from harness.record.statistics import summary as stat_summary
from harness.record.svg import MIN_READINGS, meter_chart
from harness.regulations.catalogue import load_catalogue
from harness.verdict import Verdict

#: case verdicts from the most to the least severe
SEVERITY: dict[str, int] = {Verdict.FAIL: 0, Verdict.ERROR: 1, Verdict.TIMEOUT: 2, Verdict.INTERRUPTED: 3,
                            Verdict.INCONCLUSIVE: 4, Verdict.SKIP: 5, Verdict.PASS: 6, Verdict.NOT_APPLICABLE: 7}
APPENDIX_FILE = "record-appendix.html"
#: roles that are lab instruments (the test-equipment table); the others are the devices under test
INSTRUMENT_ROLES = ("counter", "power")
LATENCY = "lock-out latency"
#: cases named in a matrix row when none of them ran (the rest are counted)
MATRIX_CASES_SHOWN = 3


def anchor(index: int, case_id: str) -> str:
    return f"case-{index + 1}-{safe_name(case_id, 'case')}"


def text(value: Any) -> str:
    """A value as a person reads it: text as is, numbers and lists without JSON quoting."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(text(v) for v in value)
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {text(v)}" for k, v in value.items())
    return str(value)


def show(value: Any, unit: str) -> str:
    if unit in ("cents", "¢") and isinstance(value, int) and not isinstance(value, bool):
        return fmt(value)
    if value is None:
        return "—"
    shown = text(value)
    return f"{shown} {unit}" if unit and shown else shown


def product_line(record: Record) -> str:
    for role in ("controller", "shoe", "sensors", *sorted(record.identities)):
        ident = record.identities.get(role, {}).get("start")
        if ident is not None:
            line = " ".join(x for x in (ident.manufacturer, ident.model, ident.software_version) if x)
            if line:
                return line
    return record.meta.profile_name or "unidentified product"


def _profile(record: Record) -> Mapping[str, Any]:
    return record.profile if isinstance(record.profile, Mapping) else {}


def _report_fields(record: Record) -> Mapping[str, Any]:
    rep = _profile(record).get("report")
    return rep if isinstance(rep, Mapping) else {}


def _devices(record: Record) -> Mapping[str, Any]:
    devs = _profile(record).get("devices")
    return devs if isinstance(devs, Mapping) else {}


def _run_date(record: Record) -> date | None:
    stamp = record.finished_at or record.started_at
    try:
        return date.fromisoformat(stamp[:10])
    except (TypeError, ValueError):
        return None


def measurement_row(m: Measurement) -> dict[str, Any]:
    if m.unit in (TEST_UNIT, PROCEDURE_UNIT) and isinstance(m.value, Mapping):  # drawn in the statistical section
        actual = stat_summary(m.value) if m.unit == TEST_UNIT else procedure_summary(m.value)
        return {"name": m.name, "expected": "", "actual": actual, "outcome": m.outcome,
                "clause": m.clause, "detail": m.detail}
    return {"name": m.name, "expected": show(m.limit, m.unit), "actual": show(m.value, m.unit),
            "outcome": m.outcome, "clause": m.clause, "detail": m.detail}


def _expected_lines(record: Record, case: CaseResult, meter: str) -> list[tuple[str, int]]:
    """What the meter was expected to show: the profile's reset amount, and any amount a
    measurement of this case required the meter to equal."""
    out: dict[int, str] = {}
    meters = (_profile(record).get("rules") or {}).get("meters") if isinstance(_profile(record).get("rules"),
                                                                                Mapping) else None
    settings = meters.get(meter) if isinstance(meters, Mapping) else None
    if isinstance(settings, Mapping) and settings.get("reset") is not None:
        # a snapshot the loader accepted always parses; never let a chart stop a report
        with contextlib.suppress(Exception):
            out[parse_amount(str(settings["reset"]))] = "reset"
    for m in case.measurements:
        if m.name.startswith(f"{meter} meter equals") and isinstance(m.limit, int) and m.unit == "cents":
            out.setdefault(m.limit, "expected")
    return [(label, cents) for cents, label in sorted(out.items())]


def charts(record: Record, case: CaseResult) -> list[Markup]:
    """A case's meter charts; a meter that never moved in the case is a sentence, not a flat line."""
    out = []
    for meter, points in sorted(case.timelines.items()):
        if len(points) >= MIN_READINGS and len({p[1] for p in points}) == 1:
            marks = sum(1 for p in points if len(p) > 2)
            out.append(Markup('<p class="flat">{}</p>').format(
                f"The {meter} meter stayed at {fmt(int(points[0][1]))} over {len(points)} readings"
                + (f" ({marks} marked hit or reset)." if marks else ".")))
        elif len(points) >= MIN_READINGS:
            svg = meter_chart(meter, points, _expected_lines(record, case, meter))
            if svg:
                out.append(Markup(svg))  # built from escaped text and integers (harness.record.svg)
    return out


def evidence_href(path: str) -> str | None:
    """A relative link to an evidence file; anything not under evidence/ (an edited record) is no link."""
    if path.startswith("evidence/") and ":" not in path and ".." not in path.split("/"):
        return path
    return None


def case_context(record: Record, index: int, case: CaseResult, *, detail: bool) -> dict[str, Any]:
    repro = dict(case.reproduce or {})
    out: dict[str, Any] = {
        "anchor": anchor(index, case.case_id),
        "id": case.case_id,
        "title": case.title or case.case_id,
        "verdict": case.verdict,
        "clauses": list(case.clauses),
        "suite": case.suite_file,
        "params": text(case.params) if case.params else "",
        "station": case.station,
        "started_at": case.started_at,
        "duration_ms": case.duration_ms,
        "message": case.message or "",
        "failing": [measurement_row(m) for m in case.measurements if m.outcome not in (Verdict.PASS,)],
        "measured": len(case.measurements),
        "evidence": [{"path": x.path, "name": x.name or x.path, "kind": x.kind, "size": x.size,
                      "sha256": x.sha256, "href": evidence_href(x.path),
                      "short": (x.name or x.path).rsplit("/", 1)[-1].removesuffix(".txt").removesuffix("-transcript")}
                     for x in case.evidence],
        "reproduce": {"command": text(repro.get("command")), "profile": text(repro.get("profile")),
                      "seeds": text(repro.get("seeds")), "stack": text(repro.get("stack"))},
    }
    if detail:
        out["steps"] = [{"index": s.index, "line": s.yaml_line, "text": s.text, "outcome": s.outcome,
                         "detail": text(s.detail)} for s in case.steps]
        out["measurements"] = [measurement_row(m) for m in case.measurements]
        out["charts"] = charts(record, case)
        out["statistics"] = statistical_tests(case)
        out["procedures"] = statistical_procedures(case)
    return out


def _equipment(record: Record) -> list[dict[str, Any]]:
    on = _run_date(record)
    out = []
    for role, spec in sorted(_devices(record).items()):
        if role not in INSTRUMENT_ROLES or not isinstance(spec, Mapping):
            continue
        ident = record.identities.get(role, {}).get("start")
        address = str(spec.get("resource") or spec.get("port") or "")
        emulated = address == "emulator"
        found = spec.get("calibration")
        cal: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        due = str(cal.get("due") or "")
        overdue = False
        if due and on is not None:
            try:
                overdue = date.fromisoformat(due) < on
            except ValueError:
                overdue = False
        if emulated:
            status = "emulated instrument: no calibration"
        elif not due:
            status = "NO CALIBRATION DATE in the profile"
        elif overdue:
            status = f"CALIBRATION PAST DUE ({due}) on the day of the test"
        else:
            status = f"calibrated, due {due}"
        out.append({
            "role": role, "driver": str(spec.get("driver") or ""), "address": address,
            "identity": " ".join(x for x in ((ident.model if ident else ""), (ident.serial if ident else "")) if x),
            "calibration_due": due, "certificate": str(cal.get("certificate") or ""),
            "uncertainty": str(cal.get("uncertainty") or ""), "overdue": overdue, "emulated": emulated,
            "status": status,
        })
    return out


def _timing(record: Record, equipment: list[dict[str, Any]]) -> dict[str, Any]:
    readings = [(c, m) for c in record.cases for m in c.measurements if m.name.startswith(LATENCY)]
    values = []
    for _c, m in readings:
        try:
            values.append(Decimal(str(m.value)))
        except (InvalidOperation, ValueError):
            continue
    by_counter = any("counter" in m.name for _c, m in readings)
    timing = _profile(record).get("timing") if isinstance(_profile(record).get("timing"), Mapping) else {}
    stated = timing.get("lockout_uncertainty_ms") if isinstance(timing, Mapping) else None
    counter = next((e for e in equipment if e["role"] == "counter"), None)
    if by_counter:
        method = ("time-interval counter: channel 1 on the shoe's card-out sensor, channel 2 on the "
                  "controller's lock-out line; the latency is the counter's interval between the two edges")
    elif readings:
        method = ("host receive stamps: the card event from the shoe and the lock-out event from the "
                  "controller, stamped by the harness's reading threads (no counter on this bench)")
    else:
        method = "no lock-out latency was measured in this run"
    if stated is not None:
        uncertainty = f"± {stated} ms (stated in the profile, timing.lockout_uncertainty_ms)"
    elif counter and counter["uncertainty"]:
        uncertainty = f"{counter['uncertainty']} (the counter's calibration certificate)"
    elif counter and counter["emulated"]:
        uncertainty = "not applicable: the counter is emulated"
    else:
        uncertainty = "not stated: give timing.lockout_uncertainty_ms or the counter's calibration uncertainty"
    limit = timing.get("lockout_deadline_ms", "1.0") if isinstance(timing, Mapping) else "1.0"
    u_ms = uncertainty_ms(str(stated)) if stated is not None else (
        uncertainty_ms(counter["uncertainty"]) if counter and counter["uncertainty"] else None)
    rounds = latencies(record)
    try:
        chart = latency_chart(rounds, Decimal(str(limit)), u_ms)
    except (InvalidOperation, ValueError):
        chart = ""
    return {
        "chart": chart, "rounds": len(rounds),
        "method": method, "uncertainty": uncertainty, "limit_ms": str(limit), "count": len(readings),
        "min_ms": str(min(values)) if values else "", "max_ms": str(max(values)) if values else "",
        "failed": sum(1 for _c, m in readings if m.outcome == Verdict.FAIL),
    }


def _reset_amounts(record: Record) -> dict[str, int]:
    """meter -> the reset amount the profile's Rules Submission gives it (a dashed line on its chart)."""
    rules = _profile(record).get("rules")
    meters = rules.get("meters") if isinstance(rules, Mapping) else None
    out = {}
    for name, spec in (meters or {}).items() if isinstance(meters, Mapping) else ():
        try:
            out[str(name)] = parse_amount(spec["reset"])
        except (KeyError, TypeError, ValueError, InputError):
            continue
    return out


def _identities(record: Record) -> list[dict[str, Any]]:
    changed = record.identity_changed()
    out = []
    for role, pair in sorted(record.identities.items()):
        start, end = pair.get("start"), pair.get("end")
        extra = sorted(set(start.extra if start else {}) | set(end.extra if end else {}))
        fields = []
        for name in [*IDENTITY_FIELDS, *extra]:
            def value(ident: Any, name: str = name) -> str | None:
                if ident is None:
                    return None
                return getattr(ident, name) if name in IDENTITY_FIELDS else ident.extra.get(name, "")
            a, b = value(start), value(end)
            diff = name in changed.get(role, []) or (name in extra and start is not None and end is not None
                                                     and a != b)
            fields.append({"name": name, "start": a, "end": b, "changed": diff})
        out.append({"role": role, "changed": bool(changed.get(role)), "fields": fields})
    return out


def _products(record: Record) -> list[dict[str, str]]:
    out = []
    for role, pair in sorted(record.identities.items()):
        ident = pair.get("start") or pair.get("end")
        if ident is None or role in INSTRUMENT_ROLES:
            continue
        out.append({"role": role, "manufacturer": ident.manufacturer, "model": ident.model,
                    "serial": ident.serial,
                    "software": " ".join(x for x in (ident.software_name or ident.software_id,
                                                     ident.software_version) if x),
                    "program_hash": ident.program_hash})
    return out


def _interpretations(record: Record) -> list[dict[str, Any]]:
    try:
        cat = load_catalogue()
    except Exception:  # the catalogue only adds the question; a report always renders
        cat = None
    out = []
    for item in record.interpretations:
        iid = str(item.get("id"))
        question = str(item.get("question") or "")
        if not question and cat is not None:
            try:
                question = cat.interpretation(iid).question
            except Exception:
                question = ""
        out.append({"id": iid, "question": question, "value": text(item.get("value")),
                    "default": text(item.get("default")), "overridden": bool(item.get("overridden")),
                    "reason": text(item.get("reason"))})
    return out


def _limitations(record: Record, matrix: Any, equipment: list[dict[str, Any]], emulated: bool) -> list[str]:
    counts = matrix.counts()
    out = []
    if record.meta.pre_submission:
        out.append("Vendor pre-submission run: this is not a certification report.")
    partial = record.partial()
    if partial:
        out.append(f"{partial}: this report covers a selection of the certification suites, not a "
                   "certification of the device.")
    if emulated:
        out.append("Devices under test were tablecert's built-in emulators: this report certifies no hardware.")
    out.append(f"{counts['OUT OF SCOPE']} clause(s) in scope are not testable on a device (filings, layouts, "
               "procedures); they are listed OUT OF SCOPE with the reason.")
    if counts[Verdict.NOT_APPLICABLE]:
        out.append(f"{counts[Verdict.NOT_APPLICABLE]} clause(s) do not apply to this Rules Submission (capabilities it "
                   "does not offer, another denomination, another interpretation); each says why.")
    if counts[Verdict.NOT_RUN]:
        out.append(f"{counts[Verdict.NOT_RUN]} testable clause(s) were NOT RUN in this run: the report makes no "
                   "finding on them.")
    if matrix.outside:
        out.append(f"{matrix.outside} catalogue clause(s) of other games or jurisdictions are outside this "
                   "report's scope and not listed.")
    overdue = [e["role"] for e in equipment if e["overdue"]]
    if overdue:
        out.append(f"Test equipment past its calibration due date: {', '.join(overdue)}.")
    if record.interrupted:
        out.append("The run was interrupted: cases after the interruption did not run.")
    if not record.complete:
        out.append("The record is incomplete (the run did not finish).")
    out.append("Results hold for the device identities read at the start and the end of the run (below).")
    return out


def signature(record: Record, digest: str | None, signed: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The signature block: signatories (profile ``report:``, else the operator as tester), date,
    record digest and, when the record is signed (``signed``: :func:`harness.record.signing.signature_info`),
    the signer, the key fingerprint, when it was signed and whether the signature stands."""
    rep = _report_fields(record)
    fingerprint = str((signed or {}).get("key_fingerprint") or "")
    signer = str((signed or {}).get("signer") or "")
    return {
        "signed_at": str((signed or {}).get("signed_at") or ""),
        "intact": bool((signed or {}).get("intact", False)),
        "problems": [str(p) for p in (signed or {}).get("problems") or []],
        "tested_by": str(rep.get("tested_by") or record.meta.operator or ""),
        "reviewed_by": str(rep.get("reviewed_by") or ""),
        "approved_by": str(rep.get("approved_by") or ""),
        "date": (record.finished_at or record.started_at or "")[:10],
        "digest": digest or "",
        "key_fingerprint": fingerprint,
        "signer": signer,
        "scope": str((signed or {}).get("scope") or ""),
    }


def build_context(record: Record, digest: str | None, problems: list[str], *,
                  report_number: str | None = None, generated_at: str = "",
                  signed: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The template context (docs/report.md lists every key)."""
    matrix = build_matrix(record)
    cases = sorted(enumerate(record.cases), key=lambda ic: (SEVERITY.get(ic[1].verdict, -1), ic[0]))
    equipment = _equipment(record)
    devices = _devices(record)
    emulated = any(isinstance(s, Mapping) and "emulator" in (str(s.get("port")), str(s.get("resource")))
                   for s in devices.values())
    verdict, reasons = record.derived_verdict()
    anchors = {c.case_id: anchor(i, c.case_id) for i, c in enumerate(record.cases)}
    found = []
    for n, f in enumerate(findings(record), 1):
        info = clause_info(f.clause) if f.clause else None
        found.append({
            "number": n, "title": f.title, "clause": f.clause, "citation": info.citation if info else "",
            "cited": [{"clause": c, "cases": k} for c, k in f.cited],
            "clause_text": info.text if info else "", "count": len(f.cases),
            "readings": [reading_line(c, m) for c, m in f.readings[:3]],
            "more": max(0, len(f.readings) - 3), "also": list(f.also),
            "cases": [{"id": c.case_id, "anchor": anchors[c.case_id], "verdict": c.verdict} for c in f.cases],
            "reproduce": f.reproduce, "seeds": text(f.seeds),
        })
    rep = _report_fields(record)
    m = record.meta
    counts = {k: v for k, v in record.counts().items() if v}
    shown = [case_context(record, i, c, detail=False) for i, c in cases]
    return {
        "report": {
            "number": report_number or f"TC-{record.run_id}",
            "title": f"Certification test report: {product_line(record)}",
            "product": product_line(record),
            "verdict": "NOT VALID" if problems else verdict,
            "verdict_reasons": reasons,
            "not_valid": bool(problems), "problems": list(problems),
            "pre_submission": m.pre_submission, "generated_at": generated_at,
            "case_counts": counts, "appendix": APPENDIX_FILE,
        },
        "run": {
            "id": record.run_id, "started_at": record.started_at, "finished_at": record.finished_at or "",
            "complete": record.complete, "interrupted": record.interrupted,
            "harness": f"tablecert {record.harness_version} (git {record.git_revision})",
            "command": " ".join(m.command), "operator": m.operator, "station": m.station,
            "digest": digest or "",
        },
        "parties": {"submitting_party": m.submitting_party or str(rep.get("submitting_party") or ""),
                    "lab": m.lab or str(rep.get("lab") or ""),
                    "accreditation": str(rep.get("accreditation") or "")},
        "scope": {"profile": m.profile_name, "game": matrix.game or m.game, "jurisdictions": matrix.jurisdictions,
                  "standards": list(m.standards) or matrix.standards, "outside": matrix.outside,
                  "limitations": _limitations(record, matrix, equipment, emulated), "emulated": emulated},
        "products": _products(record),
        "matrix": {"counts": matrix.counts(), "unknown": matrix.unknown,
                   "rows": [_matrix_row(r, anchors) for r in matrix.rows]},
        "findings": found,
        "contract": {"versions": dict(record.contract.get("versions") or {}),
                     "findings": contract_lines(record.contract)},
        "cases": shown,
        "index_rows": index_rows(shown),
        "na_groups": grouped(c for c in shown if c["verdict"] == Verdict.NOT_APPLICABLE),
        "unchecked_groups": grouped((c for c in shown if c["verdict"] in UNCHECKED), by_verdict=True),
        "equipment": equipment,
        "timing": _timing(record, equipment),
        "meters": meter_pictures(record, _reset_amounts(record)),
        "identities": _identities(record),
        "identity_changed": {role: list(f) for role, f in record.identity_changed().items()},
        "interpretations": _interpretations(record),
        "signature": signature(record, digest, signed),
        "integrity": integrity(record, problems, signed),
        "inputs": [{"path": i.path, "kind": i.kind, "size": i.size, "sha256": i.sha256} for i in record.inputs],
        "merged_from": [{k: text(v) for k, v in item.items()} for item in record.merged_from],
        "sittings": _sittings(record),
        "notes": list(record.notes),
        "profile_snapshot": json.dumps(record.profile, indent=2, sort_keys=True, ensure_ascii=False),
    }


#: verdicts of cases that reached no verdict on the device: listed apart, grouped by reason
UNCHECKED = (Verdict.ERROR, Verdict.TIMEOUT, Verdict.SKIP, Verdict.INTERRUPTED, Verdict.INCONCLUSIVE)


def grouped(cases: Iterable[Mapping[str, Any]], *, by_verdict: bool = False) -> list[tuple[Any, list[Any]]]:
    """Cases grouped by the first line of their message (and verdict), the largest group first, then
    by reason: a reader sees "profile lacks capability mystery (20 cases)" once, not twenty times."""
    groups: dict[Any, list[Any]] = {}
    for c in cases:
        reason = (c.get("message") or "").splitlines()[0] if c.get("message") else ""
        groups.setdefault((c["verdict"], reason) if by_verdict else reason, []).append(c)
    return sorted(groups.items(), key=lambda kv: (-len(kv[1]), str(kv[0])))


def _sittings(record: Record) -> list[dict[str, Any]]:
    """Which cases ran in which sitting, with the start and end of each (harness.record.sittings)."""
    return [{"index": s.index, "started_at": s.started_at, "ended_at": s.ended_at or "", "end": s.end,
             "cases": s.kept, "superseded": list(s.superseded), "identity_checked": sorted(s.identities),
             "set_aside": len(s.set_aside)} for s in record.sittings]


def _matrix_row(r: Any, anchors: Mapping[str, str]) -> dict[str, Any]:
    """A matrix row; the cases shown are those that ran (or, when none did, the first few that did
    not apply), the rest counted, so a clause cited by twenty $1 cases stays one line at a $5 table."""
    refs = [{"id": c.case_id, "verdict": c.verdict, "credited": c.credited, "anchor": anchors.get(c.case_id, "")}
            for c in r.cases]
    ran = [c for c in refs if c["verdict"] != Verdict.NOT_APPLICABLE]
    bad = [c for c in ran if c["verdict"] != Verdict.PASS or not c["credited"]]
    good = [c for c in ran if c["verdict"] == Verdict.PASS and c["credited"]]
    # every case that did not pass (or does not credit the clause) by name; passes by count past a
    # few, the variants of one parametrised case as one entry (its id before "[", times how many)
    shown = (bad + _by_base(good)[:MATRIX_CASES_SHOWN]) if ran else refs[:MATRIX_CASES_SHOWN]
    return {"clause_id": r.clause_id, "citation": r.citation, "text": r.text, "status": r.status,
            "reason": r.reason, "testable": r.status != "OUT OF SCOPE", "cases": shown,
            "hidden": len(refs) - sum(c.get("count", 1) for c in shown)}


def index_rows(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The evidence index's rows: each case that applied, in order, except that a parametrised case
    (``id[params]``) whose every variant passed is one row, named by its id with ``count`` variants,
    its checks summed, its clauses joined and the first variant's anchor and evidence (each variant
    stays in the appendix).  A variant that did not pass keeps its own row."""
    ran = [c for c in cases if c["verdict"] != Verdict.NOT_APPLICABLE]
    variants: dict[str, list[dict[str, Any]]] = {}
    for c in ran:
        variants.setdefault(c["id"].split("[")[0], []).append(c)
    folded = {base for base, group in variants.items()
              if len(group) > 1 and all(c["verdict"] == Verdict.PASS and "[" in c["id"] for c in group)}
    out: list[dict[str, Any]] = []
    for c in ran:
        base = c["id"].split("[")[0]
        if base not in folded:
            out.append(dict(c, count=1))
        elif c is variants[base][0]:
            group = variants[base]
            out.append(dict(c, id=base, count=len(group), measured=sum(int(g["measured"]) for g in group),
                            clauses=list(dict.fromkeys(k for g in group for k in g["clauses"])),
                            title=f"{len(group)} parameter sets, each passed; each one in the appendix"))
    return out


def _by_base(refs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Case references with the variants of a parametrised case (``id[params]``) folded into the first
    one's, named by the case id alone with ``count`` variants; order kept."""
    out: dict[str, dict[str, Any]] = {}
    for c in refs:
        base = c["id"].split("[")[0]
        if base in out:
            out[base]["count"] += 1
            out[base]["id"] = base
        else:
            out[base] = dict(c, count=1)
    return list(out.values())


def appendix_context(record: Record, context: Mapping[str, Any]) -> dict[str, Any]:
    """The appendix: every case in full (steps, measurements, meter charts, evidence)."""
    cases = sorted(enumerate(record.cases), key=lambda ic: (SEVERITY.get(ic[1].verdict, -1), ic[0]))
    return {**context, "cases": [case_context(record, i, c, detail=True) for i, c in cases]}
