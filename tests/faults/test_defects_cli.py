"""``tablecert defects`` lists every emulator defect with the clause it breaks (issue 6)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from harness.emulators.defects import DEFECTS

ROOT = Path(__file__).resolve().parents[2]


def _tablecert(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness", "defects", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False)


def test_json_lists_every_defect_with_clause_and_description() -> None:
    proc = _tablecert("--json")
    assert proc.returncode == 0, proc.stderr
    items = json.loads(proc.stdout)
    assert [i["name"] for i in items] == list(DEFECTS)
    for item in items:
        d = DEFECTS[item["name"]]
        assert item["clause"] == d.clause and item["description"] == d.description
        assert item["clause"] and item["description"]


def test_table_has_one_line_per_defect() -> None:
    proc = _tablecert()
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    for d in DEFECTS.values():
        rows = [ln for ln in lines if ln.split()[:1] == [d.name]]
        assert len(rows) == 1, d.name
        assert d.clause in rows[0] and d.description in rows[0]


def test_selection_and_unknown_name() -> None:
    first, second = list(DEFECTS)[:2]
    proc = _tablecert(second, first, "--json")
    assert [i["name"] for i in json.loads(proc.stdout)] == [second, first]
    bad = _tablecert("no-such-defect")
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr
    assert bad.stderr.strip().count("\n") == 0 and "no-such-defect" in bad.stderr


def test_help_shows_an_example() -> None:
    proc = _tablecert("--help")
    assert proc.returncode == 0
    assert "Example" in proc.stdout and "tablecert defects --json" in proc.stdout
