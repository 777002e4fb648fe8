"""The two-stage (confirmation) procedure: when stage 2 runs, what each combination of stages gives,
its plan (sizes at the stage power), the profile's ``randomness.confirm`` and the record it leaves."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

from harness.randomness import battery, confirm
from harness.randomness.evidence import measurements
from harness.randomness.models import ShufflerModel
from harness.randomness.observations import MysteryAward
from harness.randomness.settings import RandomnessSettings
from harness.record.statistics import PROCEDURE_UNIT

ROOT = Path(__file__).resolve().parents[2]
RESEED, TOP = 25_000, 100_000


def mystery_plan(confirm_: bool = True) -> battery.Plan:
    return battery.plan_mystery(RandomnessSettings(confirm=confirm_), "PA", None, "uniform", RESEED, TOP)


def fair(seed: int, n: int) -> list[MysteryAward]:
    rng = np.random.default_rng(seed)
    return [MysteryAward(int(a), RESEED, TOP) for a in rng.integers(RESEED, TOP + 1, n)]


def low(n: int) -> list[MysteryAward]:  # every award at the reseed plus one cent: rejects at once
    return [MysteryAward(RESEED + 1, RESEED, TOP)] * n


class Stages:
    """Stage samples handed out on request, counting the requests."""

    def __init__(self, plan: battery.Plan, *samples: list[MysteryAward]) -> None:
        self.plan, self.samples, self.asked = plan, samples, 0

    def __call__(self, k: int) -> battery.BatteryVerdict:
        self.asked = k
        return battery.run_mystery(self.plan, self.samples[k - 1])


def test_stage_power_is_the_square_root_rounded_up() -> None:
    assert RandomnessSettings().stage_power == Decimal("0.9950")
    assert RandomnessSettings(power=Decimal("0.95")).stage_power == Decimal("0.9747")
    for p in ("0.8", "0.9", "0.95", "0.99", "0.999"):
        s = RandomnessSettings(power=Decimal(p))
        assert s.stage_power ** 2 >= s.power > (s.stage_power - Decimal("0.0001")) ** 2
    assert RandomnessSettings(confirm=False).stage_power == Decimal("0.99")


def test_each_stage_is_planned_for_the_stage_power() -> None:
    two = battery.plan_shuffler(RandomnessSettings(), 8, "PA")
    one = battery.plan_shuffler(RandomnessSettings(confirm=False), 8, "PA")
    assert (two.stages, one.stages) == (2, 1)
    assert two.required > one.required  # a larger sample per stage buys the second stage's power
    for plan in (two, one):
        for need in plan.best.values():
            assert need.power is not None and need.power >= float(plan.stage_power)
    assert two.procedure_alpha == pytest.approx(1e-4) and one.procedure_alpha == pytest.approx(0.01)
    assert two.expected(two.alpha) == pytest.approx(two.required * 1.01)
    assert one.expected(1.0) == one.required


def test_no_rejection_passes_on_stage_one_alone() -> None:
    plan = mystery_plan()
    stages = Stages(plan, fair(1, plan.required), low(plan.required))
    proc = confirm.run(plan, stages)
    assert (proc.outcome, stages.asked, len(proc.stages)) == ("PASS", 1, 1)


def test_a_rejection_is_a_fail_only_when_an_independent_second_sample_confirms_it() -> None:
    plan = mystery_plan()
    n = plan.required
    confirmed = confirm.run(plan, Stages(plan, low(n), low(n)))
    assert confirmed.outcome == "FAIL" and "confirmed" in confirmed.message and len(confirmed.stages) == 2
    unconfirmed = confirm.run(plan, Stages(plan, low(n), fair(2, n)))
    assert unconfirmed.outcome == "PASS" and "not confirmed" in unconfirmed.message
    short = confirm.run(plan, Stages(plan, low(n), fair(2, n - 3)))
    assert short.outcome == "INCONCLUSIVE" and short.still_needed == 3


def test_one_stage_fails_on_the_first_rejection() -> None:
    plan = mystery_plan(confirm_=False)
    stages = Stages(plan, low(plan.required), fair(2, plan.required))
    proc = confirm.run(plan, stages)
    assert (proc.outcome, stages.asked) == ("FAIL", 1)


def test_a_hard_violation_fails_at_once() -> None:
    plan = mystery_plan()
    over = [*fair(3, plan.required - 1), MysteryAward(TOP + 1, RESEED, TOP)]
    stages = Stages(plan, over, fair(4, plan.required))
    proc = confirm.run(plan, stages)
    assert (proc.outcome, stages.asked) == ("FAIL", 1) and "above must-hit-by" in proc.message


def test_a_certain_rejection_is_statistical_and_waits_for_confirmation() -> None:
    plan = mystery_plan()
    top = [MysteryAward(TOP, RESEED, TOP)] * 5
    certain = battery.mystery_rejection_certain(plan, top)
    assert certain is not None
    v = battery.run_mystery(plan, top, certain=certain)
    assert v.rejects and not v.violations
    proc = confirm.run(plan, lambda k: v if k == 1 else battery.run_mystery(plan, fair(5, plan.required)))
    assert proc.outcome == "PASS" and len(proc.stages) == 2


def test_a_file_is_cut_into_two_samples() -> None:
    items = list(range(25))
    assert confirm.split(items, 10, 1) == (items, [])
    assert confirm.split(items, 10, 2) == (items[:13], items[13:])  # twice the plan: halves
    assert confirm.split(items[:15], 10, 2) == (items[:10], items[10:15])  # the plan, then the rest
    assert confirm.split(items[:7], 10, 2) == (items[:4], items[4:7])  # short: halves


def test_both_stages_are_in_the_record() -> None:
    settings = RandomnessSettings()
    plan = battery.plan_shuffler(settings, 1, "PA", cards=52)
    riffled = [battery.run_shuffler(plan, ShufflerModel("riffles", riffles=3).shuffle(
        np.random.default_rng(seed), plan.required, 52)) for seed in (1, 2)]
    proc = confirm.run(plan, lambda k: riffled[k - 1])
    ms = {m.name: m for m in measurements(proc, "pa-607a2-a3-shuffle-random")}
    assert proc.outcome == "FAIL"
    assert ms["rising-sequences p-value"].outcome == ms["rising-sequences p-value (stage 2)"].outcome == "FAIL"
    assert ms["rising-sequences test (stage 2)"].value["stage"] == 2
    assert ms["shuffler sample size (stage 2)"].value == plan.required
    procedure = ms["shuffler procedure"]
    assert procedure.unit == PROCEDURE_UNIT and procedure.outcome == "FAIL"
    assert [st["found"] for st in procedure.value["stages"]] == ["rejects", "rejects"]
    fair_ = battery.run_shuffler(plan, ShufflerModel().shuffle(np.random.default_rng(3), plan.required, 52))
    unconfirmed = confirm.run(plan, lambda k: riffled[0] if k == 1 else fair_)
    ms = {m.name: m for m in measurements(unconfirmed)}
    # the first stage's rejection is shown, not counted: the procedure passes
    assert unconfirmed.outcome == "PASS" and ms["rising-sequences p-value"].outcome == "PASS"
    assert "not confirmed" in ms["rising-sequences p-value"].detail
    assert ms["shuffler procedure"].outcome == "PASS"


def test_the_profile_chooses_one_stage(tmp_path: Path) -> None:
    from harness.profiles.load import load_profile

    text = (ROOT / "device_profiles" / "emulated-midi-5-mystery.yaml").read_text()
    path = tmp_path / "p.yaml"
    path.write_text(text + "randomness: {confirm: false}\n")
    assert load_profile(path).randomness.confirm is False
    path.write_text(text)
    assert load_profile(path).randomness.confirm is True
