"""The soak collects every mystery award and tests them against the declared trigger law at the end:
a controller with a bent trigger fails the soak, a short clean soak says how many awards are still
needed (never PASS for the distribution), and ``--awards`` writes them as observations for a case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.profiles import load_profile
from harness.randomness.observations import MysteryAward
from harness.soak.run import SoakOptions, run_soak

pytestmark = pytest.mark.timeout(180)

MYSTERY = Path(__file__).resolve().parents[2] / "device_profiles" / "emulated-midi-5-mystery.yaml"


def test_a_bent_trigger_fails_the_soak(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    awards = tmp_path / "awards.json"
    code = main(["soak", "--profile", str(MYSTERY), "--rounds", "3", "--seed", "4", "--defect",
                 "mystery-trigger-reseed-plus-one", "--awards", str(awards)])
    out = capsys.readouterr().out
    assert code == 1 and "result: FAIL" in out
    assert "mystery trigger distribution (Royal 9 (h)): FAIL" in out
    observed = [MysteryAward.from_dict(d) for d in json.loads(awards.read_text())]
    assert len(observed) >= 10 and all(a.reseed == 25_000 and a.must_hit_by == 100_000 for a in observed)
    assert all(a.amount < 25_100 for a in observed)  # every trigger at the reseed plus one cent


def test_a_short_clean_soak_is_inconclusive_for_the_distribution() -> None:
    res = run_soak(load_profile(MYSTERY), SoakOptions(rounds=40, seed=3))
    assert res.mystery is not None and res.total_violations == 0
    assert res.mystery["outcome"] == "INCONCLUSIVE" and res.mystery["still_needed"] > 0
    assert res.mystery["awards"] == len(res.mystery_awards) == res.meter_hits.get("mystery", 0)
    assert res.ok  # too few awards is no violation: the soak passes, the distribution says what it lacks
    assert res.to_dict()["mystery_distribution"]["planned"] == res.mystery["planned"]
