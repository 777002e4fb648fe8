"""A battery's verdict as record measurements (exact values: no float reaches the record).

Per test: its p-value held against the level Holm's procedure gave it (with the statistic, the
null hypothesis, the sample size and the power in the detail), and its histogram (unit
``histogram``; :func:`harness.randomness.svg.histogram_svg` draws it).  Per battery: the sample
size against the planned one, INCONCLUSIVE when short.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from harness.randomness.svg import histogram_data
from harness.record.model import Measurement

if TYPE_CHECKING:  # scipy (through the battery) is loaded only when a battery runs
    from harness.randomness.battery import Verdict

HISTOGRAM_UNIT = "histogram"


def sig(value: float, digits: int = 4) -> Decimal:
    """``value`` to ``digits`` significant digits, as an exact Decimal for the record."""
    if value == 0:
        return Decimal(0)
    return Decimal(f"{value:.{digits - 1}e}").normalize()


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
        out.append(Measurement(
            f"{r.name} p-value", sig(r.p_value), "p", sig(level),
            "FAIL" if r.name in verdict.rejected else "PASS", clause,
            f"H0: {r.null}. Statistic {sig(r.statistic, 6)}"
            + (f" ({r.df} degrees of freedom)" if r.df is not None else "")
            + f", {r.side}; n = {r.n} {r.unit}; {power_text}. {r.detail}"))
        if r.histogram is not None:
            out.append(Measurement(f"{r.name} histogram", histogram_data(r.histogram), HISTOGRAM_UNIT, None, "PASS",
                                   clause, r.histogram.title))
    for v in verdict.violations:
        out.append(Measurement(f"{plan.kind} bound", v, "", None, "FAIL", clause, v))
    return out
