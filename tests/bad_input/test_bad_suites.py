"""Every malformed suite in ``suites/`` gives exactly one ``file:line:col: message`` and exit 2.

The corpus covers YAML syntax, tabs, unknown and duplicate keys, wrong types, YAML 1.1 traps
(``no`` as a boolean, ``1:30`` as a sexagesimal number), unknown clause ids, impossible shoe
sequences, too many cards of one kind, unknown steps, stacks, wager types and fault kinds, a case
with no expectation and bad ``at:`` timing.

Each corpus file starts with ``# expect: <line>:<col>: <message substring>``; the check runs the
real command line (``python -m harness validate FILE``) in a subprocess, as a lab engineer would.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

CORPUS = Path(__file__).parent / "suites"
FILES = sorted(CORPUS.glob("*.suite.yaml"))
EXPECT = re.compile(r"^# expect: (?P<line>\d+):(?P<col>\d+): (?P<message>.+)$")
ROOT = Path(__file__).resolve().parents[2]


def test_corpus_is_large_enough() -> None:
    assert len(FILES) >= 15


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_bad_suite(path: Path) -> None:
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
