"""CI's sample of the mutation score: a few mutant emulators, drawn deterministically from the
mutants with no reviewed reason to survive, are certified as ``tablecert defects --mutants``
certifies them, and each must be killed.  The full run is benchmarks/bench_mutants.py (hours)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.mutation import run as mrun
from harness.mutation import survivors

ROOT = Path(__file__).resolve().parents[2]
#: the sample: this many mutants drawn with this seed (a new seed is a new sample, equally valid)
SAMPLE, SEED = 3, 11


def sample_ids() -> list[str]:
    reviewed = survivors.as_mapping(survivors.load())
    chosen = mrun.choose(mrun.all_points(), sample=SAMPLE, seed=SEED, among=lambda p: p.id not in reviewed)
    return [p.id for p in chosen]


def test_the_sample_is_deterministic_and_leaves_out_reviewed_survivors() -> None:
    ids = sample_ids()
    assert ids == sample_ids() and len(ids) == SAMPLE
    assert not set(ids) & set(survivors.as_mapping(survivors.load()))


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_each_sampled_mutant_is_killed() -> None:
    ids = sample_ids()
    proc = subprocess.run([sys.executable, "-m", "harness", "defects", "--mutants", "--no-trace", "--json",
                           "--jobs", "2", "--mutant", *ids], cwd=ROOT, capture_output=True, text=True,
                          timeout=570, check=False)
    assert proc.stdout.strip(), proc.stderr[-3000:]
    data = json.loads(proc.stdout)
    outcomes = {m["id"]: m for m in data["mutants"]}
    assert sorted(outcomes) == sorted(ids)
    for mid, m in outcomes.items():
        assert m["outcome"] in mrun.KILLS, f"{mid} {m['outcome']}: {m['code']}"
    verdicts = ", ".join(f"{i} {outcomes[i]['outcome']}" for i in ids)
    print(f"mutation sample: {verdicts}; wall time {data['wall_seconds']} s")  # for the CI log
