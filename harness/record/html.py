"""The HTML certification report: one self-contained, printable file rendered from a record.

It reads like a lab report (REFERENCE.md, "What a lab's report carries"): issuing lab,
jurisdiction, standards, product tested with its 58 Pa. Code 607a.2(b) identity and program
signature, submitting party, date, a verdict per requirement with the evidence behind it, and the
software identity checked before and after testing.  No external URL, no script, print CSS; charts
are inline SVG (:mod:`harness.record.svg`).

Every string that came from a device, a suite, a profile or an operator goes through
:func:`html.escape`.  A record that failed verification is never shown as passing: the page carries
a "RECORD FAILED VERIFICATION" banner and the verdict NOT VALID.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from harness.money import fmt
from harness.record.clauses import clause_info
from harness.record.document import Record
from harness.record.journal import safe_name
from harness.record.model import IDENTITY_FIELDS, CaseResult, Measurement
from harness.record.svg import meter_chart
from harness.record.view_css import CSS

#: case verdicts from the most to the least severe; failures are listed first
SEVERITY = {"FAIL": 0, "ERROR": 1, "TIMEOUT": 2, "INTERRUPTED": 3, "INCONCLUSIVE": 4, "SKIP": 5, "PASS": 6,
            "NOT APPLICABLE": 7}


def e(value: Any) -> str:
    """Escape anything for HTML text or a quoted attribute."""
    if value is None:
        return ""
    return escape(value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False))


def show_value(value: Any, unit: str) -> str:
    if unit in ("cents", "¢") and isinstance(value, int) and not isinstance(value, bool):
        return f"{e(fmt(value))} <span class=muted>({value} cents)</span>"
    text = e(value) if value is not None else "—"
    return f"{text} {e(unit)}" if unit and value is not None else text


def badge(verdict: str) -> str:
    return f'<span class="badge v-{e(verdict).lower()}">{e(verdict)}</span>'


def table(head: list[str], rows: list[list[str]], cls: str = "") -> str:
    """Rows are already-escaped HTML cells."""
    if not rows:
        return "<p class=muted>None.</p>"
    th = "".join(f"<th>{h}</th>" for h in head)
    thead = f"<thead><tr>{th}</tr></thead>" if any(head) else ""
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}">{thead}<tbody>{body}</tbody></table>'


def evidence_link(path: str, label: str) -> str:
    """A relative link to an evidence file; anything not under evidence/ (an edited record) is text."""
    if path.startswith("evidence/") and ":" not in path and ".." not in path.split("/"):
        return f'<a href="{e(path)}">{e(label)}</a>'
    return e(label)


def anchors(record: Record) -> dict[str, str]:
    return {c.case_id: f"case-{i + 1}-{safe_name(c.case_id, 'case')}" for i, c in enumerate(record.cases)}


def product_line(record: Record) -> str:
    for role in ("controller", "shoe", "sensors", *sorted(record.identities)):
        ident = record.identities.get(role, {}).get("start")
        if ident is not None:
            return " ".join(x for x in (ident.manufacturer, ident.model, ident.software_version) if x)
    return record.meta.profile_name or "unidentified product"


def _header(record: Record, digest: str | None) -> str:
    m = record.meta
    standards = list(m.standards)
    if not standards:
        clauses = sorted({c for case in record.cases for c in case.clauses})
        standards = sorted({clause_info(c).citation for c in clauses} - {""})
    rows = [
        ("Jurisdiction", e(m.jurisdiction or "—")),
        ("Standards cited", "<br>".join(e(s) for s in standards) or "—"),
        ("Game / profile", e(" / ".join(x for x in (m.game, m.profile_name) if x) or "—")),
        ("Submitting party", e(m.submitting_party or "—")),
        ("Testing laboratory", e(m.lab or "—")),
        ("Operator / station", e(" / ".join(x for x in (m.operator, m.station) if x) or "—")),
        ("Date (UTC)", e(f"{record.started_at} – {record.finished_at or 'not finished'}")),
        ("Harness", e(f"tablecert {record.harness_version} (git {record.git_revision})")),
        ("Run id", e(record.run_id)),
        ("Record digest (SHA-256)", f"<code>{e(digest or 'none: the record was not finished')}</code>"),
    ]
    if m.pre_submission:
        rows.insert(0, ("Mode", "Vendor pre-submission run (not a certification)"))
    info = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    products = []
    for role, pair in sorted(record.identities.items()):
        ident = pair.get("start") or pair.get("end")
        if ident is None:
            continue
        software = " ".join(
            x for x in (ident.software_name or ident.software_id, ident.software_version) if x
        )
        products.append(
            [
                e(role),
                e(ident.manufacturer),
                e(ident.model),
                e(ident.serial),
                e(software),
                f"<code>{e(ident.program_hash)}</code>",
            ]
        )
    product = table(
        ["Role", "Manufacturer", "Model", "Serial", "Software and version", "Program signature"], products
    )
    return f'<table class="info">{info}</table><h3>Product tested</h3>{product}'


def _verdict(record: Record, problems: list[str]) -> str:
    if problems:
        items = "".join(f"<li>{e(p)}</li>" for p in problems)
        return (
            '<div class="banner" id="verification">RECORD FAILED VERIFICATION'
            f"<ul>{items}</ul></div>"
            '<div class="verdict v-notvalid" id="verdict">Overall verdict: <strong>NOT VALID</strong>'
            '<div class="reasons">The record does not verify; its verdicts cannot be relied on.</div></div>'
        )
    verdict, reasons = record.derived_verdict()
    counts = record.counts()
    summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n) or "no case"
    return (
        f'<div class="verdict v-{e(verdict).lower()}" id="verdict">'
        f"Overall verdict: <strong>{e(verdict)}</strong>"
        f'<div class="reasons">{e("; ".join(reasons))}. Cases: {e(summary)}.</div></div>'
    )


def _matrix(record: Record, links: dict[str, str]) -> str:
    by_clause: dict[str, list[CaseResult]] = {}
    for case in record.cases:
        for clause in case.clauses or ["(no clause)"]:
            by_clause.setdefault(clause, []).append(case)
    rows = []
    for clause in sorted(by_clause):
        cases = by_clause[clause]
        worst = min((c.verdict for c in cases), key=lambda v: SEVERITY.get(v, -1))
        info = clause_info(clause)
        cited = f"<br><span class=muted>{e(info.citation)}</span>" if info.citation else ""
        items = "".join(
            f'<li><a href="#{e(links[c.case_id])}">{e(c.case_id)}</a> {badge(c.verdict)}</li>' for c in cases
        )
        rows.append([f"<code>{e(clause)}</code>{cited}", f"<ul class=plain>{items}</ul>", badge(worst)])
    return table(["Clause", "Cases (evidence)", "Verdict"], rows, "matrix")


def _expected_actual(measurements: list[Measurement]) -> str:
    rows = [
        [
            e(m.name),
            show_value(m.limit, m.unit),
            show_value(m.value, m.unit),
            badge(m.outcome),
            f"<code>{e(m.clause)}</code>",
            e(m.detail),
        ]
        for m in measurements
    ]
    return table(["Measurement", "Expected (limit)", "Actual", "Outcome", "Clause", "Detail"], rows, "meas")


def _reproduce(case: CaseResult) -> str:
    parts = []
    repro = dict(case.reproduce or {})
    command = repro.pop("command", None)
    if command:
        parts.append(f"<pre>{e(command if isinstance(command, str) else ' '.join(map(str, command)))}</pre>")
    rows = [[e(k), f"<pre>{e(v)}</pre>"] for k, v in sorted(repro.items())]
    if rows:
        parts.append(table(["", ""], rows, "kv"))
    steps = "".join(
        f"<li><code>{e(case.suite_file)}:{e(s.yaml_line)}</code> {e(s.text)}</li>" for s in case.steps
    )
    if steps:
        parts.append(f"<ol class=steps>{steps}</ol>")
    return "<h4>Steps to reproduce</h4>" + ("".join(parts) or "<p class=muted>None recorded.</p>")


def _case(case: CaseResult, anchor: str) -> str:
    failing = case.verdict != "PASS"
    head = (
        f'<section class="case{" failing" if failing else ""}" id="{e(anchor)}">'
        f"<h3>{badge(case.verdict)} {e(case.title or case.case_id)}</h3>"
    )
    meta = [
        ("Case id", f"<code>{e(case.case_id)}</code>"),
        ("Clauses", ", ".join(f"<code>{e(c)}</code>" for c in case.clauses) or "—"),
        ("Suite", f"<code>{e(case.suite_file)}</code>"),
        ("Parameters", e(case.params) if case.params else "—"),
        ("Station", e(case.station or "—")),
        ("Time", e(f"{case.started_at} ({case.duration_ms} ms)")),
    ]
    out = [head, '<table class="info">', *(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in meta), "</table>"]
    if case.message:
        out.append(f'<pre class="message">{e(case.message)}</pre>')
    if failing:
        bad = [m for m in case.measurements if m.outcome != "PASS"] or case.measurements
        out.append("<h4>Expected against actual</h4>" + _expected_actual(bad))
        out.append(_reproduce(case))
    steps = [
        [e(s.index), e(s.yaml_line), e(s.text), badge(s.outcome), e(s.detail) if s.detail else ""]
        for s in case.steps
    ]
    out.append("<h4>Steps</h4>" + table(["#", "YAML line", "Step", "Outcome", "Detail"], steps, "steps"))
    out.append("<h4>Measurements</h4>" + _expected_actual(case.measurements))
    if case.timelines:
        charts = "".join(meter_chart(meter, pts) for meter, pts in sorted(case.timelines.items()))
        out.append(f"<h4>Meter timelines</h4><div class=charts>{charts}</div>")
    ev = [
        [
            evidence_link(x.path, x.name or x.path),
            e(x.kind),
            e(x.size),
            f"<code>{e(x.sha256)}</code>",
        ]
        for x in case.evidence
    ]
    out.append("<h4>Evidence</h4>" + table(["File", "Kind", "Bytes", "SHA-256"], ev, "evidence"))
    out.append("</section>")
    return "".join(out)


def _identities(record: Record) -> str:
    changed = record.identity_changed()
    out = []
    for role, pair in sorted(record.identities.items()):
        start, end = pair.get("start"), pair.get("end")
        rows = []
        fields = list(IDENTITY_FIELDS)
        extra = sorted(set(start.extra if start else {}) | set(end.extra if end else {}))
        for name in fields + extra:
            a = (
                (getattr(start, name) if name in IDENTITY_FIELDS else start.extra.get(name, ""))
                if start
                else None
            )
            b = (getattr(end, name) if name in IDENTITY_FIELDS else end.extra.get(name, "")) if end else None
            diff = name in changed.get(role, []) or (name in extra and start and end and a != b)
            mark = ' <strong class="changed-mark">CHANGED</strong>' if diff else ""
            cells = [
                e(name) + mark,
                e(a) if a is not None else "<i>not read</i>",
                e(b) if b is not None else "<i>not read</i>",
            ]
            rows.append([f'<span class="{"changed" if diff else ""}">{c}</span>' for c in cells])
        out.append(f"<h3>{e(role)}</h3>" + table(["Field (607a.2(b))", "At start", "At end"], rows, "ident"))
    return "".join(out) or "<p class=muted>No device identity was read.</p>"


def _interpretations(record: Record) -> str:
    rows = []
    for item in record.interpretations:
        rest = {k: v for k, v in item.items() if k not in ("id", "value", "default", "reason", "question")}
        rows.append(
            [
                f"<code>{e(item.get('id'))}</code>",
                e(item.get("question")),
                e(item.get("value")),
                e(item.get("default")),
                e(item.get("reason")),
                e(rest) if rest else "",
            ]
        )
    return table(["Interpretation", "Question", "In force", "Default", "Reason", "Other"], rows, "interp")


def render_html(record: Record, digest: str | None, problems: list[str]) -> str:
    """The report as one HTML document (``problems`` from :func:`harness.record.digest.verify`)."""
    links = anchors(record)
    verdict = "NOT VALID" if problems else record.derived_verdict()[0]
    title = f"tablecert certification report: {product_line(record)}: {verdict}"
    ordered = sorted(record.cases, key=lambda c: SEVERITY.get(c.verdict, -1))
    failing = [c for c in ordered if c.verdict != "PASS"]
    findings = "".join(
        f'<li>{badge(c.verdict)} <a href="#{e(links[c.case_id])}">{e(c.case_id)}</a> {e(c.title)}'
        f" <span class=muted>({e(', '.join(c.clauses))})</span></li>"
        for c in failing
    )
    inputs = [
        [f"<code>{e(i.path)}</code>", e(i.kind), e(i.size), f"<code>{e(i.sha256)}</code>"]
        for i in record.inputs
    ]
    evidence = [
        [
            evidence_link(x.path, x.path),
            f'<a href="#{e(links[c.case_id])}">{e(c.case_id)}</a>',
            e(x.kind),
            e(x.size),
            f"<code>{e(x.sha256)}</code>",
        ]
        for c in record.cases
        for x in c.evidence
    ]
    notes = "".join(f"<li>{e(n)}</li>" for n in record.notes)
    profile = json.dumps(record.profile, indent=2, sort_keys=True, ensure_ascii=False)
    merged = "".join(
        f"<li>{e(m.get('run_id'))} station {e(m.get('station'))}:"
        f" digest <code>{e(m.get('digest'))}</code></li>"
        for m in record.merged_from
    )
    body = [
        f"<header><h1>Certification test report</h1><p class=sub>{e(product_line(record))}</p></header>",
        _verdict(record, problems),
        _header(record, digest),
        f"<h2>Findings</h2><ul class=plain>{findings}</ul>" if findings else "<h2>Findings</h2><p>None.</p>",
        '<h2 id="matrix">Traceability matrix</h2>',
        _matrix(record, links),
        "<h2>Cases</h2><p class=muted>Failures first.</p>",
        *(_case(c, links[c.case_id]) for c in ordered),
        "<h2>Interpretations in force</h2>",
        _interpretations(record),
        "<h2>Device identity at start and end</h2>",
        _identities(record),
        "<h2>Input files</h2>",
        table(["File", "Kind", "Bytes", "SHA-256"], inputs, "hashes"),
        "<h2>Evidence hashes</h2>",
        table(["File", "Case", "Kind", "Bytes", "SHA-256"], evidence, "hashes"),
        f"<h2>Merged records</h2><ul>{merged}</ul>" if merged else "",
        f"<h2>Notes</h2><ul>{notes}</ul>" if notes else "",
        "<h2>Profile snapshot</h2>",
        f"<pre class=profile>{e(profile)}</pre>",
        f"<footer>Rendered from record {e(record.run_id)} by tablecert {e(record.harness_version)}.</footer>",
    ]
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)}</title><style>{CSS}</style></head><body>" + "\n".join(body) + "</body></html>\n"
    )
