"""``verify`` and ``tablecert verify`` catch every edit of a finished record."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.cli import main
from harness.errors import InputError
from harness.record import canonical_json, record_digest, verify
from harness.record.digest import write_manifest


def _copy(run_dir: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "copy" / run_dir.name
    shutil.copytree(run_dir, dest)
    return dest


def _edit_record(run_dir: Path, edit) -> None:
    path = run_dir / "record.json"
    data = json.loads(path.read_bytes())
    edit(data)
    path.write_bytes(canonical_json(data))


def test_untouched_record_verifies(make_run) -> None:
    run_dir = make_run()
    assert verify(run_dir) == []
    assert verify(run_dir / "record.json") == []
    digest = record_digest(run_dir)
    assert digest is not None and verify(run_dir, expected_digest=digest) == []
    assert verify(run_dir, expected_digest="0" * 64) != []


def test_edited_verdict_is_caught(make_run, tmp_path: Path) -> None:
    run_dir = _copy(make_run(), tmp_path)

    def edit(data: dict) -> None:
        data["cases"][1]["verdict"] = "PASS"

    _edit_record(run_dir, edit)
    problems = verify(run_dir)
    assert any("record.json: SHA-256 differs" in p for p in problems)
    assert any("case case-1-fail: verdict PASS but" in p for p in problems)
    assert any("record.json differs from journal.jsonl" in p for p in problems)


def test_edited_verdict_with_recomputed_manifest_is_still_caught(make_run, tmp_path: Path) -> None:
    """Recomputing record.sha256 after the edit does not hide it: the journal and the overall verdict
    disagree, and the digest printed in the signed report no longer matches."""
    original = make_run(verdicts=("PASS", "FAIL"))
    signed_digest = record_digest(original)
    run_dir = _copy(original, tmp_path)

    def edit(data: dict) -> None:
        case = data["cases"][1]
        case["verdict"] = "PASS"
        for m in case["measurements"]:
            m["outcome"] = "PASS"
        for s in case["steps"]:
            s["outcome"] = "PASS"
        data["verdict"] = "PASS"
        data["counts"] = {"PASS": 2, "FAIL": 0, "ERROR": 0, "TIMEOUT": 0, "SKIP": 0}
        data["verdict_reasons"] = ["every case passed"]

    _edit_record(run_dir, edit)
    write_manifest(
        run_dir, [e["path"] for c in json.loads((run_dir / "record.json").read_bytes())["cases"] for e in c["evidence"]]
    )
    problems = verify(run_dir)
    assert problems[0] == "case case-1-fail: record.json differs from journal.jsonl (measurements, steps, verdict)"
    # every field recomputed from the journal: the edited counts and reasons do not follow from it
    assert [p.split(":")[0] for p in problems[1:]] == ["counts", "verdict", "verdict_reasons"]
    assert any("expected" in p for p in verify(run_dir, expected_digest=signed_digest))


def test_edited_measurement_value_is_caught(make_run, tmp_path: Path) -> None:
    run_dir = _copy(make_run(), tmp_path)

    def edit(data: dict) -> None:
        data["cases"][0]["measurements"][0]["value"] = 6

    _edit_record(run_dir, edit)
    problems = verify(run_dir)
    assert any("record.json: SHA-256 differs" in p for p in problems)
    assert any("case case-0-pass: record.json differs from journal.jsonl" in p for p in problems)


def test_one_flipped_transcript_byte_is_caught(make_run, tmp_path: Path) -> None:
    run_dir = _copy(make_run(), tmp_path)
    path = run_dir / "evidence" / "case-1-fail" / "shoe-transcript.txt"
    data = bytearray(path.read_bytes())
    data[5] ^= 0x01
    path.write_bytes(bytes(data))
    assert verify(run_dir) == [
        "evidence/case-1-fail/shoe-transcript.txt: SHA-256 differs from the record (case case-1-fail)"
    ]


def test_deleted_and_extra_evidence_are_caught(make_run, tmp_path: Path) -> None:
    run_dir = _copy(make_run(), tmp_path)
    (run_dir / "evidence" / "case-0-pass" / "shoe-transcript.txt").unlink()
    (run_dir / "evidence" / "case-2-error" / "planted.txt").write_bytes(b"not from the run")
    problems = verify(run_dir)
    assert "evidence/case-0-pass/shoe-transcript.txt: evidence file missing (case case-0-pass)" in problems
    assert "evidence/case-2-error/planted.txt: extra file, not in the record" in problems


def test_edited_journal_and_missing_manifest_are_caught(make_run, tmp_path: Path) -> None:
    run_dir = _copy(make_run(), tmp_path)
    journal = run_dir / "journal.jsonl"
    journal.write_bytes(journal.read_bytes().replace(b'"verdict":"FAIL"', b'"verdict":"PASS"'))
    problems = verify(run_dir)
    assert any("journal.jsonl: SHA-256 differs" in p for p in problems)
    (run_dir / "record.sha256").unlink()
    assert "record.sha256: missing" in verify(run_dir)


def test_reformatted_record_is_not_canonical(make_run, tmp_path: Path) -> None:
    run_dir = _copy(make_run(), tmp_path)
    path = run_dir / "record.json"
    path.write_text(json.dumps(json.loads(path.read_bytes()), indent=2), "utf-8")
    assert any("not in canonical form" in p for p in verify(run_dir))


def test_float_in_an_edited_record_is_unreadable(make_run, tmp_path: Path) -> None:
    run_dir = _copy(make_run(), tmp_path)
    path = run_dir / "record.json"
    path.write_bytes(path.read_bytes().replace(b'"value":5}', b'"value":5.0}', 1))
    with pytest.raises(InputError):
        verify(run_dir)


def test_cli_verify_exit_codes(make_run, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = make_run()
    assert main(["verify", str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("OK ") and "verdict FAIL" in out and str(record_digest(run_dir)) in out

    bad = _copy(run_dir, tmp_path)
    (bad / "evidence" / "case-1-fail" / "shoe-transcript.txt").write_bytes(b"edited")
    assert main(["verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "shoe-transcript.txt: SHA-256 differs" in out and "NOT VALID" in out

    assert main(["verify", str(tmp_path / "missing")]) == 2
    assert "no such record" in capsys.readouterr().err
    garbage = tmp_path / "garbage"
    garbage.mkdir()
    (garbage / "record.json").write_text("{not json", "utf-8")
    assert main(["verify", str(garbage)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "record.json" in err


def test_incomplete_record_fails_verification(make_run) -> None:
    run_dir = make_run(verdicts=("PASS",), finish=False)
    problems = verify(run_dir)
    assert problems == ["the record is incomplete (the run did not finish; 1 finished case(s))"]
