"""JUnit XML, Allure results and the gap report: views of the same record."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from recordkit import CONTROL_BYTES, build_run

from harness.cli import main
from harness.record import IDENTITY_FIELDS, load_record, record_digest
from harness.record.allure_view import area_of
from harness.record.gap import render_gap_report
from harness.record.integrity import integrity
from harness.record.junit import render_junit, sanitize


def test_junit_parses_after_control_characters(make_run) -> None:
    run_dir = make_run(verdicts=("PASS", "FAIL", "ERROR", "TIMEOUT", "SKIP"))
    record = load_record(run_dir)
    record.cases[1].message = "device said: " + CONTROL_BYTES.decode("latin-1") + "\udcff end"
    xml = render_junit(record, run_dir, digest="ab" * 32)
    root = ET.fromstring(xml)  # raises on any illegal character
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == (
        "5",
        "1",
        "2",
        "1",
    )
    cases = {tc.get("name"): tc for tc in suite.findall("testcase")}
    failure = cases["case-1-fail"].find("failure")
    assert failure is not None and failure.text is not None
    assert failure.get("message", "").startswith("device said: \\x00\\x01")  # first line of the message
    assert "\\x1e\\x1f\\x7f\\ufffd end" in failure.text  # DEL and a lone surrogate too
    assert "\\x1f\\x7f" in failure.text  # from the transcript tail
    assert "lock-out latency [pa-midi-lockout]: expected <= 1.0 got 1.7 ms -> FAIL" in failure.text
    assert "TX a55a0101" in failure.text
    assert cases["case-2-error"].find("error") is not None
    timeout = cases["case-3-timeout"].find("error")
    assert timeout is not None and timeout.get("type") == "TIMEOUT"
    assert cases["case-4-skip"].find("skipped") is not None
    assert cases["case-0-pass"].find("failure") is None and cases["case-0-pass"].get("classname") == "paytable"
    props = {p.get("name"): p.get("value") for p in suite.iter("property") if p.get("name") != "clause"}
    assert props["profile"] == "emulated-midi-5" and props["record_digest"] == "ab" * 32
    for field in IDENTITY_FIELDS:
        assert f"identity.controller.start.{field}" in props and f"identity.controller.end.{field}" in props
    assert props["identity.controller.start.program_hash"].startswith("9f86")


def test_junit_written_at_finish_carries_the_digest(make_run) -> None:
    run_dir = make_run()
    root = ET.parse(run_dir / "junit.xml").getroot()
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["record_digest"] == record_digest(run_dir)


def test_sanitize_keeps_legal_text() -> None:
    assert sanitize("a\tb\nc\rd é ♠") == "a\tb\nc\rd é ♠"
    assert sanitize("\x00\x08\x0b\x1f\x7f") == "\\x00\\x08\\x0b\\x1f\\x7f"


def test_allure_results_follow_the_allure2_format(make_run) -> None:
    run_dir = make_run(verdicts=("PASS", "FAIL", "ERROR", "TIMEOUT", "SKIP"))
    out = run_dir / "allure-results"
    results = [json.loads(p.read_text("utf-8")) for p in sorted(out.glob("*-result.json"))]
    assert len(results) == 5
    by_id = {r["fullName"].split("::")[1]: r for r in results}
    status = {k: r["status"] for k, r in by_id.items()}
    assert status == {
        "case-0-pass": "passed",
        "case-1-fail": "failed",
        "case-2-error": "broken",
        "case-3-timeout": "broken",
        "case-4-skip": "skipped",
    }
    fail = by_id["case-1-fail"]
    for key in ("uuid", "historyId", "testCaseId", "name", "fullName", "stage", "start", "stop"):
        assert fail[key] not in (None, "")
    assert fail["fullName"] == "suites/royal9/paytable.suite.yaml::case-1-fail"
    assert isinstance(fail["start"], int) and fail["start"] <= fail["stop"]
    labels = {(lab["name"], lab["value"]) for lab in fail["labels"]}
    assert {
        ("suite", "paytable"),
        ("feature", "royal9"),
        ("story", "pa-midi-r9-paytable-5"),
        ("tag", "PA"),
        ("epic", "midibaccarat"),
        ("host", "bench-1"),
    } <= labels
    assert [s["name"] for s in fail["steps"]] == ["wager seat 1 royal9 $5 (line 12)", "deal stack r9-mega (line 14)"]
    assert [s["status"] for s in fail["steps"]] == ["passed", "failed"]
    assert fail["statusDetails"]["message"] == "lock-out latency 1.7 ms > 1.0 ms"
    assert fail["parameters"] == [{"name": "denomination", "value": "5"}]
    names = {a["name"]: a for a in fail["attachments"]}
    transcript = names["shoe-transcript.txt"]
    assert transcript["type"] == "text/plain" and transcript["source"].endswith("-attachment.txt")
    copied = out / transcript["source"]
    assert copied.read_bytes() == (run_dir / "evidence/case-1-fail/shoe-transcript.txt").read_bytes()
    assert "lock-out latency" in (out / names["measurements"]["source"]).read_text("utf-8")
    assert len({r["uuid"] for r in results}) == 5
    assert fail["links"][0]["url"] == "58 Pa. Code ch. 629a Royal 9 (f)(1)"
    env = (out / "environment.properties").read_text("utf-8")
    assert "profile=emulated-midi-5\n" in env and "controller.software_version=2.4.1\n" in env
    assert "verdict=FAIL\n" in env
    categories = json.loads((out / "categories.json").read_text("utf-8"))
    assert {c["name"] for c in categories} >= {"Compliance failures", "Not applicable to the profile"}


def test_area_comes_from_the_suite_directory() -> None:
    assert area_of("suites/royal9/paytable.suite.yaml") == "royal9"
    assert area_of("suites/lockout.suite.yaml") == "lockout"
    assert area_of("/abs/suites/ez/dragon.suite.yaml") == "ez"


def test_gap_report_names_clause_device_behaviour_and_reproduction(make_run) -> None:
    run_dir = make_run(verdicts=("PASS", "FAIL", "TIMEOUT"), meta={"pre_submission": True})
    text = (run_dir / "gap-report.md").read_text("utf-8")
    record = load_record(run_dir)
    assert text == render_gap_report(record, integrity=integrity(record, [], None))
    assert "Integrity: Unverified without digest or signature" in text
    assert "## 1. lock-out latency" in text
    assert "Clause `pa-midi-lockout`" in text or "Clause `pa-midi-r9-paytable-5`" in text
    assert "lock-out latency: required <= 1.0 ms, device gave 1.7 ms (late)" in text
    assert "    tablecert run suites/royal9/paytable.suite.yaml -k case" in text
    assert "## Not checked" in text and "TIMEOUT (1): case-2-timeout" in text
    assert "case-0-pass" not in text


def test_gap_report_groups_one_root_cause_into_one_finding(make_run) -> None:
    """The same measurement failing the same way at every seat is one finding, one screen long."""
    run_dir = make_run(verdicts=("FAIL",) * 12, meta={"pre_submission": True})
    text = (run_dir / "gap-report.md").read_text("utf-8")
    assert text.count("\n## 1. ") == 1 and "## 2." not in text
    assert "Cases (12): case-0-fail, case-1-fail" in text
    assert "the same in 9 more case(s)" in text
    assert len(text.splitlines()) <= 40 and max(len(line) for line in text.splitlines()) <= 300


def test_gap_report_falls_back_to_the_clause_id(make_run, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.record import clauses

    monkeypatch.setattr(clauses, "_catalogue", lambda: None)
    text = render_gap_report(load_record(make_run(verdicts=("FAIL",))))
    assert "> see clause pa-midi-lockout in the catalogue" in text


def test_cli_report_gap_format(make_run, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    run_dir = make_run(verdicts=("FAIL",))
    assert main(["report", str(run_dir), "--format", "gap"]) == 0
    assert "# Pre-submission gap report" in capsys.readouterr().out
    assert main(["report", str(run_dir), "--format", "junit", "--out", str(tmp_path / "j.xml")]) == 0
    ET.parse(tmp_path / "j.xml")


def test_allure_attachments_are_hard_links_to_the_evidence_not_copies(tmp_path: Path) -> None:
    run = build_run(tmp_path, verdicts=("PASS",))
    evidence = {p.stat().st_ino for p in (run / "evidence").rglob("*") if p.is_file()}
    attached = [p for p in (run / "allure-results").glob("*-attachment.txt") if p.stat().st_nlink > 1]
    assert evidence and {p.stat().st_ino for p in attached} == evidence
