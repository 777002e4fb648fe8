"""The test tiers: the README's test command (scripts/test.sh) runs the fast tier of the tests,
CI (.ci/run) runs that command and then the slow tier and the matrices; pytest's "no test
selected" (exit 5) in a tier is not a failure, any other exit is pytest's own."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _tier(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return subprocess.run(["sh", str(ROOT / "scripts" / "pytest-tier.sh"), "-q", "-p", "no:xdist", "-p",
                           "no:cacheprovider", "--rootdir", str(tmp_path), "-c", str(tmp_path / "pytest.ini"),
                           *args], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env, check=False)


def test_a_tier_with_no_test_selected_passes_and_a_failing_test_fails(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: slow\n")
    (tmp_path / "test_one.py").write_text("import pytest\n\n\n@pytest.mark.slow\ndef test_slow():\n    pass\n\n\n"
                                          "def test_fails():\n    assert 1 == 2\n")
    none = _tier(tmp_path, "-m", "slow", "-k", "no_such_test", str(tmp_path))
    assert none.returncode == 0, none.stdout + none.stderr
    assert "no test selected in this tier" in none.stdout
    slow = _tier(tmp_path, "-m", "slow", str(tmp_path))
    assert slow.returncode == 0 and "1 passed" in slow.stdout, slow.stdout
    fast = _tier(tmp_path, "-m", "not slow", str(tmp_path))
    assert fast.returncode == 1 and "1 failed" in fast.stdout, fast.stdout
    usage = _tier(tmp_path, "--no-such-option")
    assert usage.returncode == 4


def test_ci_runs_the_readme_test_command_then_the_slow_tier_and_the_matrices() -> None:
    readme = (ROOT / "README.md").read_text()
    first = readme.split("\n## ", 1)[0]
    assert "sh scripts/test.sh" in first and "sh scripts/run.sh" in first
    test_sh = (ROOT / "scripts" / "test.sh").read_text()
    assert re.search(r'pytest-tier\.sh -q -n 3 -m "not slow" "\$@"', test_sh)
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    steps = [line for line in ci if "|| status=1" in line]
    assert [s.split("||")[0].strip() for s in steps] == [
        "sh scripts/test.sh",
        "sh scripts/pytest-tier.sh -q -n 3 -m slow --durations=20",
        ".venv/bin/tablecert explore --selfcheck",
        '.venv/bin/tablecert run -q --jobs 4 --report-dir "${TMPDIR:-/tmp}/tablecert-ci-reports"',
        '.venv/bin/tablecert variants --count 24 --jobs 4 "${seed[@]}"',
        '.venv/bin/tablecert defects --matrix --variants --jobs 4 "${seed[@]}"',
    ]
    assert ci[-1] == "exit $status"
