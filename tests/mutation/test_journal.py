"""The mutation run's journal: outcomes kept as judged, a stopped run continued, stale rows dropped."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from harness.selfcheck.mutation import journal
from harness.selfcheck.mutation.operators import Point
from harness.selfcheck.mutation.run import MutantOutcome

A = Point("controller", 10, 4, "Lt>LtE", "Controller.open", "if a < b:")
B = Point("settle", 20, 8, "drop-call", "settle", "pay(seat)")


def test_a_judged_mutant_is_kept_and_not_run_again(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journal.append(path, MutantOutcome(A, "KILLED", "emulated-midi-5", "suites/x.yaml::case", 3, Decimal("4.5"), "why"))
    done = journal.load(path, [A, B])
    assert set(done) == {A.id}
    got = done[A.id]
    assert (got.verdict, got.profile, got.by, got.cases_run, got.seconds) == (
        "KILLED", "emulated-midi-5", "suites/x.yaml::case", 3, Decimal("4.5"))
    assert journal.pending([A, B], done) == [B]


def test_a_row_whose_line_changed_does_not_count(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journal.append(path, MutantOutcome(A, "SURVIVED"))
    edited = Point(A.module, A.line, A.col, A.operator, A.function, "if a < b + 1:")
    assert journal.load(path, [edited]) == {}


def test_a_torn_last_line_and_sittings_are_read(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journal.append(path, MutantOutcome(B, "NOT-COVERED"))
    journal.sitting(path, wall_seconds=Decimal("12.5"), trace_seconds=Decimal("3"), judged=1, jobs=2)
    with path.open("a", encoding="utf-8") as out:
        out.write('{"id": "controller:10:4:Lt>Lt')  # the writer was killed here
    assert list(journal.load(path, [A, B])) == [B.id]
    assert journal.sittings(path) == [{"wall_seconds": "12.5", "trace_seconds": "3", "judged": 1, "jobs": 2}]


def test_a_profile_passed_counts_only_for_the_same_line(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journal.passed(path, A, "emulated-midi-5", 120, Decimal("300.5"))
    journal.passed(path, B, "emulated-midi-1", 80, Decimal("200"))
    edited = Point(B.module, B.line, B.col, B.operator, B.function, "pay(seat, twice=True)")
    assert journal.passed_profiles(path, [A, edited]) == {A.id: {"emulated-midi-5": 120}}
    assert journal.load(path, [A, B]) == {}  # a pass is not an outcome
