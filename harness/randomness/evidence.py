"""A battery's verdict as record measurements (exact values: no float reaches the record).

Per battery: the sample size against the planned one (INCONCLUSIVE when short).  Per test: its
p-value held against the level Holm's procedure gave it (with the statistic, the null hypothesis,
the sample size and the power in the detail), and the test itself as plain data (unit
``statistical-test``: name, null hypothesis, statistic, p-value, level, sample size, the planned
size, the power that sample has against the declared defects, and the histogram of observed against
expected), which the report's statistical section draws (:mod:`harness.record.statistics`).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from harness.randomness.battery import Verdict
from harness.randomness.observations import MysteryAward
from harness.randomness.stats import TestResult
from harness.randomness.svg import histogram_data
from harness.record.model import Measurement
from harness.record.statistics import TEST_UNIT

if TYPE_CHECKING:
    from harness.profiles.model import Profile


def sig(value: float, digits: int = 4) -> Decimal:
    """``value`` to ``digits`` significant digits, as an exact Decimal for the record."""
    if value == 0:
        return Decimal(0)
    return Decimal(f"{value:.{digits - 1}e}").normalize()


def test_data(verdict: Verdict, r: TestResult) -> dict[str, Any]:
    """One test as the record keeps it (strings for every non-integer number)."""
    plan = verdict.plan
    pw = verdict.power_of(r.name)
    return {
        "test": r.name, "null": r.null, "statistic": str(sig(r.statistic, 6)), "df": r.df, "side": r.side,
        "p_value": str(sig(r.p_value)), "level": str(sig(verdict.levels.get(r.name, plan.alpha_each))),
        "n": r.n, "unit": r.unit, "planned": plan.required,
        "power": None if pw is None else str(sig(pw)),
        "planned_for": [d for d, need in plan.best.items() if need.test == r.name],
        "detail": r.detail,
        "histogram": None if r.histogram is None else histogram_data(r.histogram),
    }


def measurements(verdict: Verdict, clause: str = "") -> list[Measurement]:
    plan = verdict.plan
    out = [Measurement(
        f"{plan.kind} sample size", verdict.observations, plan.unit, plan.required,
        "INCONCLUSIVE" if verdict.observations < plan.required and verdict.outcome == "INCONCLUSIVE" else "PASS",
        clause, f"{plan.required} {plan.unit} planned for {float(plan.target_power):.0%} power against every declared "
                f"defect at {float(plan.confidence):.0%} confidence ({plan.source}); "
                + "; ".join(f"{d}: {desc}" for d, desc in plan.defects.items()))]
    for r in verdict.results:
        level = verdict.levels.get(r.name, plan.alpha_each)
        pw = verdict.power_of(r.name)
        power_text = f"power {pw:.4f} against the defects it is planned for" if pw is not None else \
            "not the planned test for any declared defect"
        outcome = "FAIL" if r.name in verdict.rejected else "PASS"
        out.append(Measurement(
            f"{r.name} p-value", sig(r.p_value), "p", sig(level), outcome, clause,
            f"H0: {r.null}. Statistic {sig(r.statistic, 6)}"
            + (f" ({r.df} degrees of freedom)" if r.df is not None else "")
            + f", {r.side}; n = {r.n} {r.unit}; {power_text}. {r.detail}"))
        out.append(Measurement(f"{r.name} test", test_data(verdict, r), TEST_UNIT, None, outcome, clause,
                               f"H0: {r.null}"))
    for v in verdict.violations:
        out.append(Measurement(f"{plan.kind} bound", v, "", None, "FAIL", clause, v))
    return out


def mystery_check(profile: Profile, amounts: Sequence[int]) -> dict[str, Any] | None:
    """The mystery battery over the awards of a soak (or any run): plan at the profile's level, run,
    and the verdict as plain data (None when the profile has no mystery progressive)."""
    from harness.randomness.battery import plan_mystery, run_mystery
    from harness.randomness.plan import rounds_per_award

    m = profile.rules.mystery
    if m is None:
        return None
    plan = plan_mystery(profile.randomness, profile.jurisdiction, rounds_per_award(profile), m.distribution,
                        m.reseed, m.must_hit_by)
    awards = [MysteryAward(a, m.reseed, m.must_hit_by) for a in amounts]
    verdict = run_mystery(plan, awards, m.distribution)
    test = verdict.results[0] if verdict.results else None
    return {"outcome": verdict.outcome, "message": verdict.message, "awards": len(awards), "planned": plan.required,
            "still_needed": verdict.still_needed, "confidence": str(plan.confidence),
            "statistic": None if test is None else str(sig(test.statistic)),
            "p_value": None if test is None else str(sig(test.p_value)),
            "observations": [a.to_dict() for a in awards]}
