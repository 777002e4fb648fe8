"""The clause-by-clause matrix and the verdict rules for cases that did not run."""

from __future__ import annotations

from harness.profiles.load import GAMES
from harness.record import CaseResult, Record, RunMeta
from harness.record.matrix import build_matrix
from harness.regulations.catalogue import load_catalogue
from harness.regulations.model import TABLE_GAMES

MIDI5 = {"name": "midi-5", "game": "midibaccarat", "jurisdiction": "PA",
         "capabilities": ["royal9", "reset-key"], "rules": {"denomination": 5}}


def _record(*cases: tuple[str, str, list[str], str | None], profile: dict | None = None,
            complete: bool = True) -> Record:
    rec = Record(run_id="r", started_at="2026-01-01T00:00:00Z", meta=RunMeta(), harness_version="0",
                 git_revision="x", complete=complete, profile=dict(profile or MIDI5))
    for case_id, verdict, clauses, message in cases:
        rec.cases.append(CaseResult(case_id, case_id, clauses, "suites/x.suite.yaml", {}, verdict, message))
    return rec


def _rows(record: Record) -> dict[str, object]:
    return {row.clause_id: row for row in build_matrix(record).rows}


def test_catalogue_games_are_the_profile_games() -> None:
    assert set(TABLE_GAMES) == set(GAMES)


def test_every_clause_in_scope_is_listed_with_a_status() -> None:
    cat = load_catalogue()
    m = build_matrix(_record(("minor-hit-reset", "PASS", ["pa-midi-r9-floors-5", "pa-midi-r9-floors-1"], None)))
    ids = [r.clause_id for r in m.rows]
    # every PA clause for Midibaccarat, nothing of Hit and Run, EZ Baccarat or Washington (no WA case ran)
    assert "pa-461a12-b6-compartment-key" in ids and "pa-607a2-b2iv-serial" in ids
    assert not any(i.startswith(("pa-633a13", "pa-ez-", "wa-")) for i in ids)
    assert "pa-627a7-c-no-more-bets" not in ids and "pa-629a7-c-no-more-bets" in ids
    assert m.outside + len(m.rows) == len(cat.clauses)
    assert m.jurisdictions == ["PA"]
    assert all(row.status for row in m.rows)
    assert not any("Wash" in s for s in m.standards)


def test_a_clause_is_credited_only_under_its_conditions() -> None:
    rows = _rows(_record(("minor-hit-reset", "PASS", ["pa-midi-r9-floors-5", "pa-midi-r9-floors-1"], None)))
    assert rows["pa-midi-r9-floors-5"].status == "PASS"
    one = rows["pa-midi-r9-floors-1"]
    assert one.status == "NOT APPLICABLE" and "$1 wager" in one.reason and "$5" in one.reason
    assert [(c.case_id, c.credited) for c in one.cases] == [("minor-hit-reset", False)]
    assert rows["pa-midi-r9-mystery"].status == "NOT APPLICABLE"
    assert "mystery" in rows["pa-midi-r9-mystery"].reason


def test_statuses_from_the_cases() -> None:
    rows = _rows(_record(
        ("a", "PASS", ["pa-midi-r9-e1-royal9"], None),
        ("b", "FAIL", ["pa-midi-r9-e1-royal9"], "paid 1 to 1"),
        ("c", "ERROR", ["pa-midi-r9-e2-suited-royal9"], "DeviceTimeout: controller\nmore"),
        ("d", "PASS", ["pa-midi-r9-e3-royal9-tie"], None),
        ("e", "SKIP", ["pa-midi-r9-e3-royal9-tie"], "controller stopped answering"),
        ("f", "NOT APPLICABLE", ["pa-midi-r9-e4-suited-royal9-tie"], "case is for interpretation x = y"),
    ))
    assert rows["pa-midi-r9-e1-royal9"].status == "FAIL"
    assert rows["pa-midi-r9-e2-suited-royal9"].status == "ERROR"
    assert rows["pa-midi-r9-e2-suited-royal9"].reason == "DeviceTimeout: controller"
    unrun = rows["pa-midi-r9-e3-royal9-tie"]
    assert unrun.status == "NOT RUN" and "1 of 2" in unrun.reason and "stopped answering" in unrun.reason
    na = rows["pa-midi-r9-e4-suited-royal9-tie"]
    assert na.status == "NOT APPLICABLE" and na.reason == "case is for interpretation x = y"
    assert rows["pa-midi-r9-e5-personal-combinations"].status == "NOT RUN"
    assert rows["pa-midi-r9-a-layout-area"].status == "OUT OF SCOPE"
    assert rows["pa-midi-r9-a-layout-area"].reason


def test_the_profiles_jurisdictions_are_the_scope() -> None:
    both = {**MIDI5, "jurisdiction": ["PA", "WA"]}
    m = build_matrix(_record(("areas", "PASS", ["wa-230-15-040-2-nine-areas"], None), profile=both))
    assert m.jurisdictions == ["PA", "WA"]
    assert any(r.clause_id == "wa-230-15-040-8b-streak3" for r in m.rows)
    assert any("Wash" in s for s in m.standards)
    # a Pennsylvania profile's report lists and cites no Washington clause, whatever ran
    m = build_matrix(_record(("areas", "PASS", ["wa-230-15-040-2-nine-areas"], None)))
    assert m.jurisdictions == ["PA"]
    assert not any(r.clause_id.startswith("wa-") for r in m.rows)
    assert not any("Wash" in s for s in m.standards)


def test_a_profile_naming_no_jurisdiction_is_scoped_by_the_cases_that_ran() -> None:
    anywhere = {k: v for k, v in MIDI5.items() if k != "jurisdiction"}
    m = build_matrix(_record(("areas", "PASS", ["wa-230-15-040-2-nine-areas"], None), profile=anywhere))
    assert m.jurisdictions == ["WA"]
    # a NOT APPLICABLE Washington case does not bring Washington in
    m = build_matrix(_record(("areas", "NOT APPLICABLE", ["wa-230-15-040-2-nine-areas"], "x"),
                             ("a", "PASS", ["pa-midi-r9-e1-royal9"], None), profile=anywhere))
    assert m.jurisdictions == ["PA"]


def test_not_applicable_never_makes_a_run_incomplete() -> None:
    rec = _record(("a", "PASS", ["pa-midi-r9-e1-royal9"], None),
                  ("b", "NOT APPLICABLE", ["pa-midi-r9-g1-royal9"], "case is for the $1 denomination"))
    verdict, reasons = rec.derived_verdict()
    assert verdict == "PASS" and "1 not applicable" in reasons[0]
    only_na = _record(("b", "NOT APPLICABLE", ["pa-midi-r9-g1-royal9"], "x"))
    assert only_na.derived_verdict()[0] == "ERROR"
    assert _record(("a", "SKIP", [], "gone")).derived_verdict()[0] == "INCOMPLETE"


def test_interrupted_run_is_interrupted_never_a_device_fault() -> None:
    rec = _record(("a", "PASS", [], None), ("b", "INTERRUPTED", [], "the run was interrupted"))
    assert rec.derived_verdict()[0] == "INTERRUPTED"
    rec = _record(("a", "FAIL", [], None))
    rec.interrupted = True
    verdict, reasons = rec.derived_verdict()
    assert verdict == "INTERRUPTED" and "1 case(s) failed" in reasons
    assert Record.from_dict(rec.to_dict()).interrupted is True
