"""A battery's verdict as record measurements (exact values: no float reaches the record).

Per stage of the procedure (:mod:`harness.randomness.confirm`; a second stage only after a
first-stage rejection, its measurements named ``... (stage 2)``): the sample size against the
planned one (INCONCLUSIVE when short).  Per test: its
p-value held against the level Holm's procedure gave it (with the statistic, the null hypothesis,
the sample size and the power in the detail), and the test itself as plain data (unit
``statistical-test``: name, null hypothesis, statistic, p-value, level, sample size, the planned
size, the power that sample has against the declared defects, and the histogram of observed against
expected), which the report's statistical section draws (:mod:`harness.record.statistics`).
With two stages, the procedure as plain data (unit ``statistical-procedure``: each stage's size,
what it found, the procedure's false-alarm bound and power), FAIL only when the procedure fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from harness.randomness import confirm
from harness.randomness.battery import BatteryVerdict, plan_mystery, run_mystery
from harness.randomness.confirm import Procedure
from harness.randomness.observations import MysteryAward
from harness.randomness.plan import rounds_per_award
from harness.randomness.stats import TestResult
from harness.randomness.svg import histogram_data
from harness.record.model import Measurement
from harness.record.statistics import PROCEDURE_UNIT, TEST_UNIT
from harness.verdict import Verdict

if TYPE_CHECKING:
    from harness.profiles.model import Profile


def sig(value: float, digits: int = 4) -> Decimal:
    """``value`` to ``digits`` significant digits, as an exact Decimal for the record."""
    if value == 0:
        return Decimal(0)
    return Decimal(f"{value:.{digits - 1}e}").normalize()


def test_data(verdict: BatteryVerdict, r: TestResult, stage: int | None = None) -> dict[str, Any]:
    """One test as the record keeps it (strings for every non-integer number); ``stage`` of the
    two-stage procedure, None with one sample."""
    plan = verdict.plan
    pw = verdict.power_of(r.name)
    return {
        "test": r.name, "stage": stage, "rejected": r.name in verdict.rejected, "null": r.null,
        "statistic": str(sig(r.statistic, 6)), "df": r.df, "side": r.side,
        "p_value": str(sig(r.p_value)), "level": str(sig(verdict.levels.get(r.name, plan.alpha_each))),
        "n": r.n, "unit": r.unit, "planned": plan.required,
        "power": None if pw is None else str(sig(pw)),
        "planned_for": [d for d, need in plan.best.items() if need.test == r.name],
        "detail": r.detail,
        "histogram": None if r.histogram is None else histogram_data(r.histogram),
    }


def measurements(result: BatteryVerdict | Procedure, clause: str = "") -> list[Measurement]:
    """A procedure's measurements (a lone verdict is a one-stage procedure): per stage its sample
    size and each test; then the procedure itself when it has two stages."""
    proc = result if isinstance(result, Procedure) else Procedure(result.plan, [result], result.outcome,
                                                                   result.message, result.still_needed)
    out: list[Measurement] = []
    two = len(proc.stages) > 1
    for i, verdict in enumerate(proc.stages, start=1):
        out += _stage_measurements(proc, verdict, i if two else None, clause)
    if proc.confirm:
        out.append(Measurement(f"{proc.plan.kind} procedure", proc.to_data(), PROCEDURE_UNIT, None,
                               proc.outcome if proc.outcome == Verdict.FAIL else Verdict.PASS, clause, proc.message))
    return out


def _stage_measurements(proc: Procedure, verdict: BatteryVerdict, stage: int | None, clause: str) -> list[Measurement]:
    plan = verdict.plan
    label = f" (stage {stage})" if stage and stage > 1 else ""
    failing = proc.outcome == Verdict.FAIL and not proc.violations  # a statistical FAIL: its rejections count
    short = verdict.observations < plan.required and proc.outcome == Verdict.INCONCLUSIVE and not verdict.rejects
    stages = (f"; stage {stage or 1} of the two-stage procedure (a rejection is a FAIL only when an independent "
              f"second sample of {plan.required} rejects too)" if proc.confirm else "")
    out = [Measurement(
        f"{plan.kind} sample size{label}", verdict.observations, plan.unit, plan.required,
        Verdict.INCONCLUSIVE if short else Verdict.PASS,
        clause, f"{plan.required} {plan.unit} planned for {float(plan.stage_power):.2%} power against every declared "
                f"defect at {float(plan.confidence):.0%} confidence ({plan.source}); "
                + "; ".join(f"{d}: {desc}" for d, desc in plan.defects.items()) + stages)]
    for r in verdict.results:
        level = verdict.levels.get(r.name, plan.alpha_each)
        pw = verdict.power_of(r.name)
        power_text = f"power {pw:.4f} against the defects it is planned for" if pw is not None else \
            "not the planned test for any declared defect"
        rejected = r.name in verdict.rejected
        outcome = Verdict.FAIL if rejected and failing else Verdict.PASS
        note = (" Rejects in this stage; not confirmed (the procedure's verdict is "
                f"{proc.outcome})." if rejected and not failing and proc.confirm else "")
        out.append(Measurement(
            f"{r.name} p-value{label}", sig(r.p_value), "p", sig(level), outcome, clause,
            f"H0: {r.null}. Statistic {sig(r.statistic, 6)}"
            + (f" ({r.df} degrees of freedom)" if r.df is not None else "")
            + f", {r.side}; n = {r.n} {r.unit}; {power_text}. {r.detail}{note}"))
        out.append(Measurement(f"{r.name} test{label}", test_data(verdict, r, stage), TEST_UNIT, None, outcome,
                               clause, f"H0: {r.null}"))
    if verdict.certain:
        out.append(Measurement(f"{plan.kind} rejection certain{label}", verdict.certain, "", None,
                               Verdict.FAIL if failing else Verdict.PASS, clause, verdict.certain))
    for v in verdict.violations:
        out.append(Measurement(f"{plan.kind} bound{label}", v, "", None, Verdict.FAIL, clause, v))
    return out


def mystery_check(profile: Profile, amounts: Sequence[int]) -> dict[str, Any] | None:
    """The mystery battery over the awards of a soak (or any run): plan at the profile's level, run,
    and the verdict as plain data (None when the profile has no mystery progressive)."""
    m = profile.rules.mystery
    if m is None:
        return None
    plan = plan_mystery(profile.randomness, profile.jurisdiction, rounds_per_award(profile), m.distribution,
                        m.reseed, m.must_hit_by)
    awards = [MysteryAward(a, m.reseed, m.must_hit_by) for a in amounts]
    samples = confirm.split(awards, plan.required, plan.stages)
    proc = confirm.run(plan, lambda stage: run_mystery(plan, samples[stage - 1], m.distribution))
    tests = [v.results[0] if v.results else None for v in proc.stages]
    return {"outcome": proc.outcome, "message": proc.message, "awards": len(awards), "planned": plan.required,
            "still_needed": proc.still_needed, "confidence": str(plan.confidence),
            "statistic": None if tests[0] is None else str(sig(tests[0].statistic)),
            "p_value": None if tests[0] is None else str(sig(tests[0].p_value)),
            "stages": [{"awards": v.observations, "found": proc.stage_outcome(i),
                        "p_value": None if t is None else str(sig(t.p_value))}
                       for i, (v, t) in enumerate(zip(proc.stages, tests, strict=True), start=1)],
            "observations": [a.to_dict() for a in awards]}
