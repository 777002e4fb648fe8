"""Every malformed suite and profile in the corpus gives exactly one ``file:line:col: message`` and
exit 2, never a traceback.

``profiles/`` covers YAML syntax, tabs, unknown and duplicate keys, wrong types, YAML 1.1 traps,
floats for money, unknown spec, driver, capability and interpretation, missing or double
addresses, resets below the floor, ten seats, duplicate or malformed combinations.  ``suites/``
covers the suite side: unknown clause ids, impossible shoe sequences, too many cards of one kind,
unknown steps, stacks, wager types and fault kinds, a case with no expectation, bad ``at:`` timing.

Each corpus file starts with ``# expect: <line>:<col>: <message substring>``; the check runs the
real command line (``python -m harness validate FILE``) in a subprocess, as a lab engineer would.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
PROFILES = sorted((HERE / "profiles").glob("*.yaml"))
SUITES = sorted((HERE / "suites").glob("*.suite.yaml"))
EXPECT = re.compile(r"^# expect: (?P<line>\d+):(?P<col>\d+): (?P<message>.+)$")


def test_corpus_is_large_enough() -> None:
    assert len(PROFILES) >= 25
    assert len(SUITES) >= 15
    assert len(PROFILES) + len(SUITES) >= 40


@pytest.mark.parametrize("path", PROFILES + SUITES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_bad_input(path: Path) -> None:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    expect = EXPECT.match(first)
    assert expect, f"{path.name}: first line must be '# expect: <line>:<col>: <message>'"
    rel = path.relative_to(ROOT)
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "validate", str(rel)],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 2, output
    assert "Traceback" not in output
    located = re.compile(rf"^{re.escape(str(rel))}:(\d+):(\d+): (.*)$")
    errors = [m for m in map(located.match, output.splitlines()) if m]
    assert len(errors) == 1, output
    line, col, message = errors[0].groups()
    assert f"{line}:{col}" == f"{expect['line']}:{expect['col']}", output
    assert expect["message"] in message, output
    assert f"ok  {rel}" not in output
