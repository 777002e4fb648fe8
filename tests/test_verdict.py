"""One word for a verdict (harness.verdict): the enum is written as the words the record has always
held, and verdict_of maps how a case ended to its verdict as run_case always did."""

from __future__ import annotations

import json

import pytest
import yaml

from harness.errors import DeviceError, DeviceTimeout
from harness.record.model import OUTCOMES, VERDICTS
from harness.suites.run.context import Inconclusive, NotApplicableHere
from harness.suites.run.runner import ComplianceFailure, verdict_of
from harness.verdict import Verdict

WORDS = ("PASS", "FAIL", "ERROR", "TIMEOUT", "SKIP", "NOT APPLICABLE", "INCONCLUSIVE", "INTERRUPTED", "PARTIAL",
         "INCOMPLETE", "NOT RUN")


def test_the_values_are_the_records_words() -> None:
    assert [v.value for v in Verdict] == list(WORDS)
    assert OUTCOMES == ("PASS", "FAIL", "ERROR", "TIMEOUT", "SKIP", "NOT APPLICABLE", "INCONCLUSIVE", "INTERRUPTED")
    assert VERDICTS == ("PASS", "PARTIAL", "FAIL", "ERROR", "INCOMPLETE", "INTERRUPTED")


@pytest.mark.parametrize("verdict", list(Verdict))
def test_a_verdict_is_written_as_its_word(verdict: Verdict) -> None:
    word = verdict.value
    assert verdict == word and hash(verdict) == hash(word) and {word: 1}[verdict] == 1
    assert str(verdict) == f"{verdict}" == f"{verdict:<3}".rstrip() == word
    assert json.dumps({"verdict": verdict, verdict: 1}) == json.dumps({"verdict": word, word: 1})
    assert yaml.safe_dump({"verdict": str(verdict)}) == yaml.safe_dump({"verdict": word})


@pytest.mark.parametrize(("exc", "verdict"), [
    (ComplianceFailure("meter short"), Verdict.FAIL),
    (Inconclusive("12 more needed"), Verdict.INCONCLUSIVE),
    (NotApplicableHere("refused as permitted"), Verdict.NOT_APPLICABLE),
    (DeviceTimeout("no answer"), Verdict.TIMEOUT),
    (DeviceError("port closed"), Verdict.ERROR),
    (KeyError("seat"), Verdict.ERROR),
    (KeyboardInterrupt(), Verdict.INTERRUPTED),
])
def test_verdict_of(exc: BaseException, verdict: Verdict) -> None:
    got, message = verdict_of(exc)
    assert got is verdict
    if verdict is Verdict.INTERRUPTED:
        assert message == "the run was interrupted during this case (KeyboardInterrupt)"
    elif isinstance(exc, KeyError):
        assert message == "KeyError: 'seat'"
    else:
        assert message == str(exc)
