"""CI's sample of the mutation score: a few mutant emulators are certified as ``tablecert defects
--mutants`` certifies them, and each must be killed.  The full run is benchmarks/bench_mutants.py
(hours).

The sample is fixed: three mutants of two modules and three operators, each killed by a FAIL in
the full run, in code every emulated profile runs (so that the run without the trace, every suite
in order, reaches a killing case within seconds).  An edit that moves them makes the ids unknown
and this test says so; pick the new ids from ``tablecert defects --mutants --list``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.selfcheck.mutation import run as mrun
from harness.selfcheck.mutation import survivors

ROOT = Path(__file__).resolve().parents[2]
#: the CI sample, by what each mutant bends (module, function, operator, the line as it reads), so an
#: edit elsewhere in the module does not move it off its line
SAMPLE_AT = (
    ("controller", "Controller.card_out", "negate-if", "if settle.round_complete(self, self.cards):"),  # a
    # complete round is not settled
    ("controller", "Controller.card_out", "NotEq>Eq", 'if self.phase != "dealing":'),  # a card of a round
    # being dealt is taken for a burn card
    ("settle", "settle_round", "negate-if", "if ctrl.cfg.hit_and_run:"),  # a baccarat round settled as Hit and Run
)


def sample_ids() -> list[str]:
    points = mrun.all_points()
    out = []
    for module, function, operator, code in SAMPLE_AT:
        found = [p.id for p in points if (p.module, p.function, p.operator, p.code) == (module, function, operator,
                                                                                         code)]
        assert len(found) == 1, (module, function, operator, code, found)
        out.append(found[0])
    return out


SAMPLE = tuple(sample_ids())


def test_the_sample_names_current_mutants_none_of_them_a_reviewed_survivor() -> None:
    known = {p.id for p in mrun.all_points()}
    assert set(SAMPLE) <= known, sorted(set(SAMPLE) - known)
    assert not set(SAMPLE) & set(survivors.as_mapping(survivors.load(), mrun.all_points()))


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


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_batch_runs_each_mutant_against_its_own_emulator() -> None:
    """Two mutants in one certification process, the same case for both: the first survives it,
    the second fails it; each verdict is its own mutant's (harness.selfcheck.mutation.batch_plugin)."""
    from harness.selfcheck import killmatrix
    from harness.selfcheck.mutation import batch_host

    points = {p.id: p for p in mrun.all_points()}
    case = "suites/baccarat/natural.suite.yaml::natural-player-8-stops-the-deal"
    harmless = next(r.id for r in survivors.relocate(survivors.load(), points.values()) if r.verdict == "equivalent")
    groups = [(points[harmless], [case]), (points[SAMPLE[1]], [case])]
    results, _ = batch_host.run_batch("emulated-midi-5", groups, killmatrix.run_subprocess, 200, mrun.LEAN)
    assert [c.verdict for c in results[harmless].cases] == ["PASS"]
    assert [c.verdict for c in results[SAMPLE[1]].cases] == ["FAIL"]
    assert mrun.judge(results[SAMPLE[1]])[0] == "KILLED"
