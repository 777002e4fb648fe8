"""The HTML certification report: content, escaping, self-containment, verification banner."""

from __future__ import annotations

import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from recordkit import build_run, identity

from harness.cli import main
from harness.record import load_record, record_digest
from harness.record.html import render_appendix, render_html
from harness.record.svg import HEIGHT, LEFT, TOP, WIDTH, chart_points, meter_chart

HOSTILE = '<script>alert("x")</script>\' onmouseover="steal()" &amp;'


class Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend(attrs)
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            if name == "href" and value:
                self.hrefs.append(value)


def parse(text: str) -> Collector:
    c = Collector()
    c.feed(text)
    return c


def _section(text: str, start: str, end: str) -> str:
    part = text[text.index(start):]
    return part[: part.index(end)]


def test_report_has_header_verdict_matrix_findings_and_signature(make_run) -> None:
    run_dir = make_run()
    text = (run_dir / "record.html").read_text("utf-8")
    assert "<title>tablecert certification report: Acme Gaming R9-Controller 2.4.1: FAIL</title>" in text
    assert re.search(r'id="verdict">Overall verdict: <strong>FAIL</strong>', text)
    record = load_record(run_dir)
    for needle in (
        f"TC-{record.run_id}",
        "58 Pa. Code 633a",
        "Acme Gaming LLC",
        "Example Test Lab",
        "ISO/IEC 17025:2017, certificate 1234.01",
        "SN-0001",
        "r9-firmware 2.4.1",
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "tablecert 0.1.0",
        "Scope and limitations",
    ):
        assert needle in text, needle
    assert f"<code>{record_digest(run_dir)}</code>" in text
    # the matrix lists every clause in scope, with a status, not only the touched ones
    matrix = _section(text, '<table class="matrix">', "</table>")
    assert "<code>pa-midi-r9-paytable-5</code>" in matrix
    assert "<code>pa-463a1-a-possession</code>" in matrix and "OUT OF SCOPE" in matrix
    assert "<code>pa-midi-r9-paytable-1</code>" in matrix and "the clause is for the $1 wager" in matrix
    assert "pa-633a13-l1-paytable" not in matrix  # another game
    assert ">case-1-fail</a>" in matrix and "case-2-error</a> (ERROR)" in matrix
    # findings: the failing measurement, the clause, how to reproduce
    findings = _section(text, 'id="findings"', 'id="matrix"')
    assert "lock-out latency" in findings and "required &lt;= 1.0 ms, device gave 1.7 ms" in findings
    assert "tablecert run suites/royal9/paytable.suite.yaml -k case" in findings
    assert "case-2-error" in findings  # under "Not checked"
    # the evidence index links every case to the appendix and its transcripts
    index = _section(text, 'id="evidence"', 'id="equipment"')
    assert 'href="record-appendix.html#case-2-case-1-fail"' in index
    assert 'href="evidence/case-1-fail/shoe-transcript.txt"' in index
    # equipment: calibration due dates, flagged when past; lock-out timing method and uncertainty
    equipment = _section(text, 'id="equipment"', 'id="identity"')
    assert "2020-01-31" in equipment and "CALIBRATION PAST DUE" in equipment and "CAL-0042" in equipment
    assert "2099-12-31" in equipment and "calibrated, due 2099-12-31" in equipment
    assert "± 0.02 ms (the counter&#39;s calibration certificate)" in equipment
    # interpretations with their question (from the catalogue), signature block
    interp = _section(text, 'id="interpretations"', 'id="signature"')
    assert "r9-envy-requires-wager" in interp and "?" in interp
    sig = _section(text, 'id="signature"', "</table>")
    assert "J. Tester" in sig and "R. Reviewer" in sig and "A. Approver" in sig and record_digest(run_dir) in sig
    assert "not signed" in sig
    assert "@media print" in text and 'counter(page) " of " counter(pages)' in text


def test_appendix_has_every_case_in_full(make_run) -> None:
    run_dir = make_run()
    text = (run_dir / "record-appendix.html").read_text("utf-8")
    fail, error, ok = (text.index(f'id="case-{n}-case-{n - 1}-') for n in (2, 3, 1))
    assert fail < error < ok
    failing = text[fail:error]
    assert "Expected against actual" in failing and "&lt;= 1.0 ms" in failing and "1.7 ms" in failing
    assert "tablecert run suites/royal9/paytable.suite.yaml -k case" in failing and "KS 9H 9S KH" in failing
    assert "deal stack r9-mega" in failing and ">14<" in failing
    assert 'href="evidence/case-1-fail/shoe-transcript.txt"' in failing
    assert "<svg" in failing and text.count("<svg") == 3
    assert "reset $50,000.00" in failing  # the expected amount drawn on the chart


def test_a_lab_replaces_the_template(make_run, tmp_path: Path) -> None:
    run_dir = make_run()
    own = tmp_path / "letterhead.html.j2"
    own.write_text('{% extends "report.html.j2" %}{% block header %}<h1>ACME LABS {{ report.number }}</h1>'
                   "{% endblock %}", "utf-8")
    out = tmp_path / "out.html"
    assert main(["report", str(run_dir), "--template", str(own), "--out", str(out), "--report-number", "AL-7"]) == 0
    text = out.read_text("utf-8")
    assert "<h1>ACME LABS AL-7</h1>" in text and 'id="matrix"' in text
    bad = tmp_path / "bad.html.j2"
    bad.write_text("{{ report.no_such_field }}", "utf-8")
    assert main(["report", str(run_dir), "--template", str(bad), "--out", str(out)]) == 2


def test_report_is_self_contained_and_script_free(make_run) -> None:
    text = (make_run() / "record.html").read_text("utf-8")
    lowered = text.lower()
    for forbidden in ("http://", "https://", "<script", "src=", "@import", "url(", "<link", "javascript:"):
        assert forbidden not in lowered
    assert "script" not in parse(text).tags


def test_every_device_and_user_string_is_escaped(make_run) -> None:
    hostile = identity(manufacturer=HOSTILE, model=HOSTILE, serial=HOSTILE, software_version=HOSTILE)
    run_dir = make_run(
        start_identity=hostile,
        end_identity=identity(manufacturer=HOSTILE, model=HOSTILE, serial="<b>x</b>", software_version=HOSTILE),
        meta={"lab": HOSTILE, "submitting_party": HOSTILE, "operator": HOSTILE},
    )
    record = load_record(run_dir)
    case = record.cases[1]
    case.title = case.message = HOSTILE
    case.case_id = 'x" onclick="steal()'
    case.steps[0].text = HOSTILE
    case.evidence[0].name = HOSTILE
    case.reproduce = {"command": HOSTILE, HOSTILE: HOSTILE}
    case.timelines[HOSTILE] = [[0, 1], [1, 2]]
    record.profile = {"name": HOSTILE}
    record.interpretations = [{"id": HOSTILE, "value": HOSTILE, "reason": HOSTILE}]
    record.notes.append(HOSTILE)
    text = render_html(record, digest="d" * 64, problems=[HOSTILE], report_number=HOSTILE)
    text += render_appendix(record, digest="d" * 64, problems=[HOSTILE], report_number=HOSTILE)
    assert "<script" not in text.lower()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in text
    assert "<b>x</b>" not in text and "&lt;b&gt;x&lt;/b&gt;" in text
    doc = parse(text)
    assert not any(name.startswith("on") for name, _ in doc.attrs)
    assert "script" not in doc.tags and "b" not in doc.tags


def test_identity_change_is_highlighted(make_run) -> None:
    run_dir = make_run(verdicts=("PASS",), end_identity=identity(software_version="2.4.2"))
    text = (run_dir / "record.html").read_text("utf-8")
    row = text[text.index("software_version <strong") :]
    row = row[: row.index("</tr>")]
    assert "CHANGED" in row and "2.4.1" in row and "2.4.2" in row
    assert text.count("CHANGED</strong>") == 2  # the role and the field
    assert "controller identity changed during the run: software_version" in text
    assert re.search(r'id="verdict">Overall verdict: <strong>FAIL</strong>', text)


def test_record_failing_verification_is_never_shown_passing(make_run, tmp_path: Path) -> None:
    original = make_run(verdicts=("PASS", "PASS"))
    assert "<strong>PASS</strong>" in (original / "record.html").read_text("utf-8")
    run_dir = tmp_path / "tampered"
    shutil.copytree(original, run_dir)
    (run_dir / "evidence" / "case-0-pass" / "shoe-transcript.txt").write_bytes(b"rewritten")
    out = tmp_path / "report.html"
    assert main(["report", str(run_dir), "--out", str(out)]) == 1
    text = out.read_text("utf-8")
    assert "RECORD FAILED VERIFICATION" in text and "<strong>NOT VALID</strong>" in text
    assert "<strong>PASS</strong>" not in text
    assert "shoe-transcript.txt: SHA-256 differs" in text
    assert text.index("RECORD FAILED VERIFICATION") < text.index("Clause-by-clause matrix")


def test_incomplete_record_renders_not_valid(make_run, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = make_run(verdicts=("PASS",), finish=False)
    assert main(["report", str(run_dir)]) == 3  # incomplete: exit 3, as for verify
    text = (run_dir / "record.html").read_text("utf-8")
    assert "RECORD FAILED VERIFICATION" in text and "the record is incomplete" in text
    assert "NOT VALID" in capsys.readouterr().out


def test_cli_report_rerenders_the_same_page(make_run, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = make_run()
    first = (run_dir / "record.html").read_text("utf-8")
    (run_dir / "record.html").unlink()
    assert main(["report", str(run_dir)]) == 0
    assert (run_dir / "record.html").read_text("utf-8") == first
    assert "verdict FAIL" in capsys.readouterr().out


def test_chart_coordinates_are_exact_integers() -> None:
    points = [[0, 100], ["0.5", 150], [3, 101], [3, 125]]
    coords = chart_points(points)
    pw, ph = WIDTH - LEFT - 16, HEIGHT - TOP - 34
    # x = LEFT + floor((t - t0) * pw / 3); y = TOP + ph - floor((c - 100) * ph / 50)
    assert coords == [
        (LEFT, TOP + ph),
        (LEFT + (pw // 6), TOP),
        (LEFT + pw, TOP + ph - (ph // 50)),
        (LEFT + pw, TOP + ph - (25 * ph // 50)),
    ]
    svg = meter_chart("mega", points)
    numbers = re.findall(r'(?:[MHV]|cx=|cy=|x=|y=|x1=|y1=|x2=|y2=|width=|height=)"?(-?[\d.]+)', svg)
    assert numbers and all("." not in n for n in numbers)
    assert "$1.50" in svg and "$1.00" in svg and "0.500 ms" in svg
    assert meter_chart("flat", [[5, 7]]) == ""  # one reading: no chart
    assert meter_chart("none", []) == ""


def test_chart_shows_expected_value_hits_and_resets() -> None:
    points = [[0, 45000], [1, 45007], [2, 45010, "hit"], [3, 45000, "reset"]]
    svg = meter_chart("minor", points, [("reset", 45000), ("expected", 45100)])
    assert svg.count('class="expected"') == 2 and "reset $450.00" in svg and "expected $451.00" in svg
    assert svg.count('class="mark"') == 2 and ">hit</text>" in svg and ">reset</text>" in svg
    assert "reading 1" in svg and "reading 4" in svg and "$451.00" in svg


def test_evidence_links_stay_inside_the_record(make_run) -> None:
    record = load_record(make_run(verdicts=("PASS",)))
    record.cases[0].evidence[0].path = "javascript:alert(1)"
    record.cases[0].evidence.append(
        type(record.cases[0].evidence[0])("evidence/../../etc/passwd", "0" * 64, "transcript", "p", 1)
    )
    text = render_html(record, digest=None, problems=["edited"]) + render_appendix(record, None, ["edited"])
    hrefs = parse(text).hrefs
    assert not any(h.startswith("javascript") or ".." in h for h in hrefs)
    assert "shoe-transcript.txt</td>" in text  # still shown, as text


def test_signature_block_names_the_signer_and_key_fingerprint(make_run, tmp_path: Path) -> None:
    from harness.record.signing import generate_key

    run_dir = make_run(verdicts=("PASS",))
    _pub, fingerprint = generate_key(tmp_path / "lab.key")
    assert main(["sign", str(run_dir), "--key", str(tmp_path / "lab.key"), "--signer", "Example Test Lab"]) == 0
    sig = _section((run_dir / "record.html").read_text("utf-8"), 'id="signature"', "</table>")
    assert fingerprint in sig and "by Example Test Lab" in sig and "the signature matches" in sig
    assert main(["report", str(run_dir)]) == 0
    assert fingerprint in (run_dir / "record.html").read_text("utf-8")


def test_not_applicable_and_unchecked_cases_are_grouped_by_reason_with_counts(tmp_path: Path) -> None:
    from harness.record.report import grouped

    cases = [{"verdict": "NOT APPLICABLE", "message": m, "id": str(i)}
             for i, m in enumerate(["lacks mystery", "lacks mystery", "other game", "lacks mystery"])]
    groups = grouped(cases)
    assert [(reason, [c["id"] for c in group]) for reason, group in groups] == [
        ("lacks mystery", ["0", "1", "3"]), ("other game", ["2"])]
    errors = [{"verdict": v, "message": "DeviceTimeout: controller\ntraceback", "id": v} for v in ("ERROR", "TIMEOUT")]
    assert [key for key, _ in grouped(errors, by_verdict=True)] == [
        ("ERROR", "DeviceTimeout: controller"), ("TIMEOUT", "DeviceTimeout: controller")]
    run = build_run(tmp_path, verdicts=("PASS", "ERROR", "ERROR"))
    page = (run / "record.html").read_text("utf-8")
    assert page.count("DeviceTimeout: controller</td><td class=\"num\">2</td>") == 1


def test_variants_that_all_passed_are_one_index_row_and_one_matrix_entry() -> None:
    """A parametrised case whose every variant passed is one row of the evidence index (x how many,
    checks summed); a variant that did not pass keeps its own row, and so do its passing siblings."""
    from harness.record.report import _by_base, index_rows

    def case(cid: str, verdict: str = "PASS", measured: int = 2, clauses: tuple[str, ...] = ("c1",)) -> dict:
        return {"id": cid, "verdict": verdict, "measured": measured, "clauses": list(clauses),
                "anchor": f"a-{cid}", "title": cid, "evidence": []}

    cases = [case("t[x]", "FAIL"), case("t[y]"), case("r[a]"), case("r[b]", clauses=("c2",)), case("solo"),
             case("na[z]", "NOT APPLICABLE"), case("na[w]", "NOT APPLICABLE")]
    rows = index_rows(cases)
    assert [(r["id"], r["count"]) for r in rows] == [("t[x]", 1), ("t[y]", 1), ("r", 2), ("solo", 1)]
    folded = rows[2]
    assert folded["measured"] == 4 and folded["clauses"] == ["c1", "c2"] and folded["anchor"] == "a-r[a]"
    refs = [{"id": i, "verdict": "PASS", "credited": True, "anchor": ""} for i in ("r[a]", "s", "r[b]", "r[c]")]
    assert [(r["id"], r["count"]) for r in _by_base(refs)] == [("r", 3), ("s", 1)]
    assert [(r["id"], r["count"]) for r in _by_base(refs[:2])] == [("r[a]", 1), ("s", 1)]
