"""The independent table's faults stay caught: ``caught.yaml`` names real faults and real cases, and a
sample of them, drawn from a fresh seed each run (printed; ``TABLECERT_SEED`` fixes it), is played
against its cases through the CLI (``fault_matrix.py``)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import fault_matrix
import pytest
from indie_table.faults import ALL_FAULTS

from harness.suites.load.schema import expand_suites, load_suite

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def test_every_kept_fault_is_the_tables_and_every_case_is_in_the_suites() -> None:
    kept = fault_matrix.load()
    assert kept and set(kept) <= set(ALL_FAULTS)
    cases = {c.name.split("[")[0] for f in expand_suites([ROOT / "suites"]) for c in load_suite(f).cases}
    for k in kept.values():
        assert k.cases and set(k.cases) <= cases, (k.fault, sorted(set(k.cases) - cases))
        assert (HERE / k.profile).is_file()


def test_a_sample_is_drawn_from_its_seed() -> None:
    kept = fault_matrix.load()
    first = fault_matrix.chosen(kept, [], 3, 11)
    assert first == fault_matrix.chosen(kept, [], 3, 11) and len(first) == 3
    assert fault_matrix.chosen(kept, [], None, 11) == list(kept.values())


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_sample_of_the_kept_faults_is_still_caught() -> None:
    seed = int(os.environ.get("TABLECERT_SEED") or random.SystemRandom().randrange(10**9))
    proc = subprocess.run([sys.executable, str(HERE / "fault_matrix.py"), "--sample", "3", "--seed", str(seed)],
                          cwd=ROOT, capture_output=True, text=True, timeout=840, check=False)
    print(proc.stdout)  # the seed and the faults drawn, for the CI log
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "fault matrix PASSED: 3 of 3 caught" in proc.stdout
