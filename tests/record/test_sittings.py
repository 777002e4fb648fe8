"""Sittings: a killed or interrupted run resumed from its journal still verifies, and a forged sitting
does not (the recorder API driven as the plugin drives it; the real resume is tests/record/test_resume.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from recordkit import IDENTITY, PROFILE, build_run, identity

from harness.errors import InputError
from harness.record import canonical_json, load_record, verify
from harness.record.digest import JOURNAL_FILE, RECORD_FILE, write_manifest
from harness.record.journal import RunRecorder, load_journal, write_views
from harness.record.model import Measurement
from harness.record.resume import IdentityChanged, Resumption


def _case(rec: RunRecorder, name: str, verdict: str = "PASS") -> None:
    case = rec.begin_case(name, name, ["pa-midi-r9-paytable-5"], "suites/royal9/paytable.suite.yaml", {})
    case.step(1, "deal stack r9-mega", 14, "PASS" if verdict == "PASS" else "SKIP", {})
    case.measure(Measurement("mega meter delta", 5, "cents", 5, "PASS", "pa-midi-r9-paytable-5"))
    case.attach("shoe-transcript.txt", f"{name}\n".encode(), kind="transcript")
    rec.end_case(case, verdict, None if verdict == "PASS" else "the run was interrupted during this case")


def _kill(run: Path) -> None:
    """What SIGKILL leaves: the journal as written so far, and an unfinished case's evidence on disk."""
    orphan = run / "evidence" / "case-cut-short" / "shoe-transcript.txt"
    orphan.parent.mkdir(parents=True)
    orphan.write_bytes(b"half a transcript")
    with (run / JOURNAL_FILE).open("ab") as fh:
        fh.write(b'{"case":{"case_id":"case-cut-sh')  # a line the kill cut short


def _resumed(tmp_path: Path) -> Path:
    """Two sittings: the first killed after two cases, the second finishing the run."""
    run = build_run(tmp_path, verdicts=("PASS", "PASS"), finish=False)
    _kill(run)
    resume = Resumption(run)
    assert resume.sitting == 2 and resume.finished == {"case-0-pass", "case-1-pass"} and resume.rerun == []
    rec = resume.begin(["pytest", "--tc-resume", str(run)], {"controller": identity()})
    _case(rec, "case-2-pass")
    rec.set_identity("end", "controller", identity())
    rec.finish()
    return run


def test_a_killed_run_resumed_verifies_with_two_sittings(tmp_path: Path) -> None:
    run = _resumed(tmp_path)
    assert verify(run) == []
    record = load_record(run)
    assert [c.case_id for c in record.cases] == ["case-0-pass", "case-1-pass", "case-2-pass"]
    first, second = record.sittings
    assert (first.end, first.cases, first.ended_at) == ("killed", ["case-0-pass", "case-1-pass"],
                                                        record.cases[1].finished_at)
    assert (second.end, second.cases, second.ended_at) == ("finished", ["case-2-pass"], record.finished_at)
    assert second.identities["controller"]["program_hash"] == IDENTITY["program_hash"]
    # the cut line is gone, the unfinished case's evidence is out of evidence/ and listed
    assert second.set_aside == ["set-aside/sitting-2/evidence/case-cut-short/shoe-transcript.txt"]
    assert (run / second.set_aside[0]).read_bytes() == b"half a transcript"
    assert not (run / "evidence" / "case-cut-short").exists()
    assert record.derived_verdict()[0] == "PASS"
    assert "in 2 sittings" in (run / "record.html").read_text()


def test_an_interrupted_case_is_run_again_and_superseded(tmp_path: Path) -> None:
    run = build_run(tmp_path, verdicts=("PASS",), finish=False)
    rec = load_journal(run / JOURNAL_FILE)
    assert rec.sittings[0].end == "open"
    recorder = Resumption(run)  # killed before its second case: nothing to run again
    assert recorder.rerun == []
    # a sitting interrupted during case-x: the record is finished (interrupted) and case-x runs again
    again = Resumption(run).begin(["pytest"], {"controller": identity()})
    _case(again, "case-x", "INTERRUPTED")
    again.finish(interrupted=True)
    assert load_record(run).derived_verdict()[0] == "INTERRUPTED" and verify(run) == []
    third = Resumption(run)
    assert third.rerun == ["case-x"] and third.sitting == 3
    rec3 = third.begin(["pytest"], {"controller": identity()})
    _case(rec3, "case-x")
    rec3.finish()
    assert verify(run) == []
    record = load_record(run)
    assert [c.case_id for c in record.cases] == ["case-0-pass", "case-x"]
    assert record.case("case-x").verdict == "PASS" and record.derived_verdict()[0] == "PASS"
    assert [s.end for s in record.sittings] == ["killed", "interrupted", "finished"]
    assert record.sittings[1].superseded == ["case-x"] and record.sittings[2].cases == ["case-x"]
    assert record.sittings[2].set_aside == ["set-aside/sitting-3/evidence/case-x/shoe-transcript.txt"]


def test_a_changed_identity_refuses_and_writes_nothing(tmp_path: Path) -> None:
    run = build_run(tmp_path, verdicts=("PASS",), finish=False)
    before = (run / JOURNAL_FILE).read_bytes()
    with pytest.raises(IdentityChanged, match="program_hash was '9f86d0"):
        Resumption(run).begin(["pytest"], {"controller": identity(program_hash="ab" * 32)})
    with pytest.raises(IdentityChanged, match="controller: gave no identity"):
        Resumption(run).begin(["pytest"], {})
    assert (run / JOURNAL_FILE).read_bytes() == before


def test_what_cannot_be_resumed(tmp_path: Path) -> None:
    finished = build_run(tmp_path / "a", verdicts=("PASS",))
    with pytest.raises(InputError, match="finished; there is nothing to resume"):
        Resumption(finished)
    with pytest.raises(InputError, match=r"no journal\.jsonl"):
        Resumption(tmp_path)
    run = build_run(tmp_path / "b", verdicts=("PASS",), finish=False)
    resume = Resumption(run)
    assert resume.problems(PROFILE, [], tmp_path / "b") == []
    other = {**PROFILE, "name": "another"}
    assert any("snapshot differs" in p for p in resume.problems(other, [], tmp_path / "b"))
    suite = tmp_path / "b" / "suites" / "royal9" / "paytable.suite.yaml"
    recorded = next(i.path for i in resume.record.inputs if i.kind == "suite")
    assert resume.problems(PROFILE, [(recorded, "suite")], tmp_path / "b") == []
    suite.write_text(suite.read_text() + "# edited\n")
    assert any("changed since run" in p for p in resume.problems(PROFILE, [(recorded, "suite")], tmp_path / "b"))


# -- forged sittings ------------------------------------------------------------------------------

def _rewrite(run: Path, lines: list[bytes]) -> None:
    """A careful forger: the journal rewritten, record.json and the manifest rebuilt from it."""
    (run / JOURNAL_FILE).write_bytes(b"".join(lines))
    record = load_journal(run / JOURNAL_FILE)
    write_views(run, record)


def _lines(run: Path) -> list[bytes]:
    return (run / JOURNAL_FILE).read_bytes().splitlines(keepends=True)


def _edit(run: Path, kind: str, change: Callable[[dict[str, Any]], object]) -> None:
    out = []
    for line in _lines(run):
        entry = json.loads(line)
        if entry["type"] == kind:
            change(entry)
        out.append(canonical_json(entry) + b"\n" if entry["type"] == kind else line)
    _rewrite(run, out)


def test_record_json_sittings_edited_is_caught(tmp_path: Path) -> None:
    run = _resumed(tmp_path)
    data = json.loads((run / RECORD_FILE).read_bytes())
    data["sittings"][1]["cases"].insert(0, data["sittings"][0]["cases"].pop())  # case-1 "ran later"
    (run / RECORD_FILE).write_bytes(canonical_json(data))
    write_manifest(run, [ev["path"] for c in data["cases"] for ev in c["evidence"]])
    assert any(p.startswith("sittings: record.json says") for p in verify(run)), verify(run)


def test_a_resume_line_dated_inside_the_killed_sitting_is_caught(tmp_path: Path) -> None:
    run = _resumed(tmp_path)
    first_case = load_record(run).cases[0]
    _edit(run, "resume", lambda e: e.update(started_at=first_case.started_at))
    problems = verify(run)
    assert any("sitting 2: starts before sitting 1 ended" in p for p in problems), problems


def test_a_sitting_resumed_on_another_program_is_caught(tmp_path: Path) -> None:
    run = _resumed(tmp_path)
    _edit(run, "resume", lambda e: e["identities"]["controller"].update(program_hash="ab" * 32))
    assert any("sitting 2: the controller's identity differs from the start of the run (program_hash)" in p
               for p in verify(run))
    _edit(run, "resume", lambda e: e["identities"].clear())
    assert any("was not checked before its first case" in p for p in verify(run))


def test_a_sitting_claimed_for_a_run_that_was_never_stopped_is_refused(tmp_path: Path) -> None:
    run = build_run(tmp_path, verdicts=("PASS", "PASS"))
    lines = _lines(run)
    at = [i for i, line in enumerate(lines) if b'"type":"case"' in line]
    second = json.loads(lines[at[1]])["case"]
    # a millisecond after the second case ended: its start is before the sitting's even when the
    # case took less than the stamps' millisecond
    later = datetime.strptime(second["finished_at"], "%Y-%m-%dT%H:%M:%S.%fZ") + timedelta(milliseconds=1)
    resume = {"type": "resume", "sitting": 2, "started_at": later.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
              "identities": {"controller": IDENTITY}, "rerun": []}
    # after the finish line of a run that was not interrupted: not a journal at all
    (run / JOURNAL_FILE).write_bytes(b"".join([*lines, canonical_json(resume) + b"\n"]))
    with pytest.raises(InputError, match="an entry after the finish line"):
        verify(run)
    # between the two cases, so that the second "ran in a later sitting", record.json rebuilt to agree:
    # the second case started before that sitting did
    _rewrite(run, [*lines[:at[0] + 1], canonical_json(resume) + b"\n", *lines[at[0] + 1:]])
    problems = verify(run)
    assert any("sitting 2: case case-1-pass ran outside the sitting's start and end" in p for p in problems), problems


def test_a_sitting_number_out_of_order_is_refused(tmp_path: Path) -> None:
    run = _resumed(tmp_path)
    entries = [json.loads(line) for line in _lines(run)]
    for entry in entries:
        if entry["type"] == "resume":
            entry["sitting"] = 3
    (run / JOURNAL_FILE).write_bytes(b"".join(canonical_json(e) + b"\n" for e in entries))
    with pytest.raises(InputError, match="starts sitting 3, the next is 2"):
        load_journal(run / JOURNAL_FILE)
