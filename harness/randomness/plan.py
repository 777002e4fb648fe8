"""A profile's randomness plan: every battery that applies, what it needs and how long that takes.

* the shuffler battery (a pack of ``decks x 52`` cards unless the profile says otherwise);
* the shoe battery (cards read from a full shoe);
* the mystery battery, when the Rules Submission has a mystery progressive (Royal 9 (h)): the
  awards needed, and the rounds that takes at the profile's seats, each wagering the denomination
  (the mean distance from the reseed to a uniform trigger over the growth per round).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from harness.profiles.model import Profile
from harness.randomness.battery import Plan, plan_mystery, plan_shoe, plan_shuffler


def rounds_per_award(profile: Profile) -> Decimal | None:
    """Mean rounds between mystery awards with every seat wagering the denomination (uniform law)."""
    rules = profile.rules
    m = rules.mystery
    if m is None:
        return None
    stake = Decimal((rules.denomination or 5) * 100)
    growth = stake * len(rules.seats or (None,)) * m.rate / 100
    return (Decimal(m.must_hit_by - m.reseed) / 2 / growth).quantize(Decimal("0.1"))


def profile_plans(profile: Profile) -> list[Plan]:
    s = profile.randomness
    decks = profile.rules.decks
    plans = [plan_shuffler(s, decks, profile.jurisdiction), plan_shoe(s, 52 * decks, profile.jurisdiction)]
    rpa = rounds_per_award(profile)
    m = profile.rules.mystery
    if rpa is not None and m is not None:
        plans.append(plan_mystery(s, profile.jurisdiction, rpa, m.distribution, m.reseed, m.must_hit_by))
    return plans


def render(profile: Profile, plans: list[Plan]) -> str:
    lines = [f"Randomness plan for {profile.name} ({profile.source_path})", ""]
    for plan in plans:
        lines.append(f"{plan.kind} battery ({plan.subject}): {float(plan.confidence):.0%} confidence from "
                     f"{plan.source}; family level {plan.alpha:g} over {len(plan.tests)} test(s) "
                     f"(each {plan.alpha_each:.3g}, Holm); power {float(plan.target_power):.0%}"
                     + (f" overall, {float(plan.stage_power):.2%} per stage" if plan.stages == 2 else ""))
        width = max(len(t) for t in plan.tests)
        for defect, desc in plan.defects.items():
            lines.append(f"  defect {defect}: {desc}")
            for need in plan.needs:
                if need.defect != defect:
                    continue
                mark = "*" if plan.best[defect] is need else " "
                n = "-" if need.n is None else f"{need.n} {plan.unit}"
                pw = "" if need.power is None else f", power {need.power:.4f}"
                lines.append(f"   {mark} {need.test:<{width}}  {n:>14}  ({need.method}{pw})")
        lines.append(f"  needed: {plan.required} {plan.unit}, {plan.hours()} h at {plan.per_hour} {plan.rate_unit}")
        lines += _procedure_lines(plan)
        if plan.kind == "mystery":
            rpa = rounds_per_award(profile)
            lines.append(f"  ({rpa} rounds per award on average with {len(profile.rules.seats)} seat(s) wagering: "
                         f"{(rpa or 0) * plan.required:.0f} rounds a stage)")
        for d in plan.unplanned:
            lines.append(f"  WARNING: no test is planned to detect {d}")
        lines.append("")
    lines.append("* = the test that sees the defect with the fewest observations; a case with fewer observations "
                 "than 'needed' is INCONCLUSIVE, never PASS.")
    return "\n".join(lines)


def _procedure_lines(plan: Plan) -> list[str]:
    """The two-stage procedure's sizes and expected cost (docs/randomness.md, "Confirmation")."""
    n, a = plan.required, plan.alpha
    if plan.stages == 1:
        return [f"  one stage (randomness.confirm: false): a rejection is a FAIL; false alarms at most {a:g}"]
    sp = float(plan.stage_power)
    return [
        f"  two stages (randomness.confirm: true): stage 1 {n} {plan.unit}; stage 2 {n} {plan.unit} more, "
        "only after a stage-1 rejection, which a FAIL needs confirmed",
        f"  false alarms at most alpha^2 = {plan.procedure_alpha:.3g} (confidence {1 - plan.procedure_alpha:.4%}); "
        f"power at least {sp:.4f}^2 = {sp * sp:.4f}",
        f"  expected: {plan.expected(a):.2f} {plan.unit} ({plan.hours(round(plan.expected(a)))} h) for a correct "
        f"device (stage 2 with probability at most {a:g}); at most {2 * n} {plan.unit} ({plan.hours(2 * n)} h)",
    ]


def procedure_json(plan: Plan) -> dict[str, Any]:
    n = plan.required
    return {"stages": plan.stages, "stage_power": str(plan.stage_power), "stage_sizes": [n] * plan.stages,
            "false_alarm_at_most": f"{plan.procedure_alpha:.6g}",
            "expected_correct_device": f"{plan.expected(plan.alpha):.2f}", "at_most": n * plan.stages}


def to_json(profile: Profile, plans: list[Plan]) -> dict[str, Any]:
    return {
        "profile": profile.name,
        "batteries": [{
            "kind": p.kind, "subject": p.subject, "unit": p.unit, "confidence": str(p.confidence),
            "confidence_source": p.source, "power": str(p.target_power), "tests": list(p.tests),
            "needed": p.required, "hours": str(p.hours()), "per_hour": str(p.per_hour),
            "procedure": procedure_json(p),
            "defects": [{"name": d, "description": desc, "best_test": p.best[d].test, "needed": p.best[d].n,
                         "by_test": [{"test": n.test, "needed": n.n, "method": n.method,
                                      "power": None if n.power is None else f"{n.power:.4f}"}
                                     for n in p.needs if n.defect == d]}
                        for d, desc in p.defects.items()],
        } for p in plans],
    }
