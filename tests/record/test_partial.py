"""A run that selected part of the applicable cases is PARTIAL, never a certification: in the
verdict and its reasons, the exit status, the report's scope notes and the signature."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from recordkit import build_run

from harness import exitcodes
from harness.cli import main
from harness.errors import InputError
from harness.record.journal import load_record
from harness.record.sign import sign_record
from harness.record.signing import SIGNATURE_FILE, generate_key, signature_problems
from harness.record.verification import verify

PARTIAL = {"selection": {"selected": 1, "applicable": 202, "scope": "suites/"}}
WHOLE = {"selection": {"selected": 202, "applicable": 202, "scope": "suites/"}}


def test_a_selection_that_passed_is_partial(tmp_path: Path) -> None:
    run = build_run(tmp_path, verdicts=("PASS",), meta=PARTIAL)
    record = load_record(run)
    assert record.derived_verdict() == ("PARTIAL", [
        "PARTIAL: 1 of 202 applicable cases selected: the selected cases passed; the run certifies nothing "
        "beyond them"])
    assert json.loads((run / "record.json").read_text())["verdict"] == "PARTIAL"
    assert exitcodes.for_verdict("PARTIAL") == exitcodes.PARTIAL == 4
    assert verify(run) == []
    assert "PARTIAL: 1 of 202 applicable cases selected" in (run / "record.html").read_text("utf-8")


def test_a_whole_run_and_a_record_without_a_selection_are_not_partial(tmp_path: Path) -> None:
    assert load_record(build_run(tmp_path / "w", verdicts=("PASS",), meta=WHOLE)).verdict == "PASS"
    assert load_record(build_run(tmp_path / "o", verdicts=("PASS",))).verdict == "PASS"


def test_a_failure_in_a_selection_is_still_a_fail(tmp_path: Path) -> None:
    assert load_record(build_run(tmp_path, verdicts=("PASS", "FAIL"), meta=PARTIAL)).verdict == "FAIL"


def test_exit_status_of_several_profiles_puts_partial_between_pass_and_fail() -> None:
    assert exitcodes.worst(exitcodes.PASS, exitcodes.PARTIAL) == exitcodes.PARTIAL
    assert exitcodes.worst(exitcodes.PARTIAL, exitcodes.FAIL) == exitcodes.FAIL


def test_sign_refuses_a_partial_record_unless_told_and_then_says_so(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    key = tmp_path / "lab.key"
    generate_key(key)
    run = build_run(tmp_path / "r", verdicts=("PASS",), meta=PARTIAL)
    with pytest.raises(InputError, match="PARTIAL: 1 of 202 applicable cases selected: a partial run is not"):
        sign_record(run, key, "Example Test Lab")
    assert not (run / SIGNATURE_FILE).exists()
    assert main(["sign", str(run), "--key", str(key), "--signer", "Example Test Lab"]) == exitcodes.BAD_INPUT
    assert main(["sign", str(run), "--key", str(key), "--signer", "Example Test Lab", "--partial"]) == 0
    assert "scope PARTIAL: 1 of 202" in capsys.readouterr().out
    sig = json.loads((run / SIGNATURE_FILE).read_text())
    assert sig["scope"] == "PARTIAL: 1 of 202 applicable cases selected"
    assert signature_problems(run) == []
    assert "for a <strong>PARTIAL: 1 of 202 applicable cases selected</strong> only" in \
        (run / "record.html").read_text("utf-8")
    sig["scope"] = "the whole run"  # the scope is signed: changing it breaks the signature
    (run / SIGNATURE_FILE).write_text(json.dumps(sig))
    assert any("does not match its content" in p for p in signature_problems(run))
