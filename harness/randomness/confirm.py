"""The two-stage (confirmation) procedure every battery's verdict goes through.

A correct device fails a battery at level alpha with probability alpha, by design; a run that
judges several batteries, or the same battery on many tables, fails a correct device now and then
from statistics alone.  With ``randomness: {confirm: true}`` (the default) a statistical rejection
is evidence to be confirmed, not yet a verdict:

1. **Stage 1**: the planned sample (``plan.required`` observations) is judged at alpha (Holm over
   the battery's tests, :func:`harness.randomness.battery.judge`).  No rejection: PASS at the planned
   size (INCONCLUSIVE below it).
2. **Stage 2**, only after a stage-1 rejection: a second, *independent* sample of the planned size
   is judged the same way.  It rejects too: FAIL (the rejection is confirmed).  It does not: PASS
   (the first rejection was not confirmed); INCONCLUSIVE when it is short of the planned size.

A **hard violation** (a mystery award above must-hit-by or below the reseed) is a FAIL at once, in
either stage: no statistics is needed to see it.

The statistics.  Under H0 the stages are independent samples of a correct device, each rejecting
with probability at most alpha, so the procedure fails a correct device with probability at most
``alpha ** 2`` (1e-4 at 99%, 0.0025 at 95%): its confidence ``1 - alpha ** 2`` exceeds the
jurisdiction's.  Against a declared defect each stage is planned for power ``sqrt(P)`` rounded up
(:attr:`~harness.randomness.settings.RandomnessSettings.stage_power`: 0.9950 for P = 99%), so both
stages reject with probability at least ``stage_power ** 2 >= P``: the procedure keeps at least
the planned power.  The price is a larger sample per stage (the plan at ``sqrt(P)``), and a second
sample only when the first rejects: a correct device costs ``n (1 + alpha)`` observations on
average, a defective one at most ``2 n`` (``Plan.expected``).

With ``confirm: false`` (a lab that must judge one sample at the jurisdiction's level) stage 1 is
the verdict: a rejection is a FAIL, the false-alarm rate is alpha and the stage is planned for P.

Every battery (shuffler, shoe, mystery awards), whatever its source (the emulator, a bench, a file,
a soak), reaches its verdict through :func:`run`; :func:`split` cuts a fixed collection of
observations (a file, a soak's awards) into the two stages, in the order they were observed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from harness.randomness.battery import BatteryVerdict, Plan
from harness.verdict import Verdict

T = TypeVar("T")


@dataclass
class Procedure:
    """The stages judged and the verdict they give."""

    plan: Plan
    #: stage 1, then stage 2 when it ran
    stages: list[BatteryVerdict]
    outcome: str
    message: str
    still_needed: int = 0

    @property
    def confirm(self) -> bool:
        return self.plan.stages == 2

    @property
    def observations(self) -> int:
        return sum(v.observations for v in self.stages)

    @property
    def violations(self) -> list[str]:
        return [x for v in self.stages for x in v.violations]

    def stage_outcome(self, i: int) -> str:
        """What stage ``i`` (1-based) found, in words."""
        v = self.stages[i - 1]
        if v.violations:
            return "hard violation"
        if v.rejects:
            return "rejects"
        return "does not reject" if v.observations >= self.plan.required else "short, does not reject"

    def to_data(self) -> dict[str, object]:
        """The procedure as plain data (the record's ``statistical-procedure`` measurement)."""
        plan = self.plan
        return {
            "battery": plan.kind, "confirm": self.confirm, "outcome": self.outcome, "message": self.message,
            "alpha": f"{plan.alpha:g}", "procedure_alpha": f"{plan.procedure_alpha:g}",
            "power": str(plan.target_power), "stage_power": str(plan.stage_power),
            "planned_per_stage": plan.required, "unit": plan.unit,
            "stages": [{"stage": i, "n": v.observations, "planned": plan.required, "found": self.stage_outcome(i),
                        "rejected": list(v.rejected) + (["certain over the planned number"] if v.certain else []),
                        "message": v.message}
                       for i, v in enumerate(self.stages, start=1)],
        }


def decide(plan: Plan, stages: Sequence[BatteryVerdict]) -> Procedure:
    """The procedure's verdict from the stages judged (see the module docstring)."""
    first = stages[0]
    need = plan.required
    hard = [x for v in stages for x in v.violations]
    if hard:
        return Procedure(plan, list(stages), Verdict.FAIL, "; ".join(hard))
    if not first.rejects:
        return Procedure(plan, list(stages), first.outcome, first.message, first.still_needed)
    if plan.stages == 1:
        return Procedure(plan, list(stages), Verdict.FAIL, first.message)
    if len(stages) < 2:
        return Procedure(plan, list(stages), Verdict.INCONCLUSIVE,
                         f"stage 1 rejects ({first.message}); the confirming sample of {need} {plan.unit} was not "
                         f"taken: {need} more needed", need)
    second = stages[1]
    if second.rejects:
        return Procedure(plan, list(stages), Verdict.FAIL,
                         f"confirmed: stage 1 rejects ({first.message}) and so does an independent stage 2 of "
                         f"{second.observations} {plan.unit} ({second.message}); false-alarm rate of the procedure "
                         f"at most {plan.procedure_alpha:.3g}")
    if second.observations < need:
        short = need - second.observations
        return Procedure(plan, list(stages), Verdict.INCONCLUSIVE,
                         f"stage 1 rejects ({first.message}); the confirming stage 2 has {second.observations} of the "
                         f"{need} {plan.unit} planned and does not reject: {short} more needed", short)
    return Procedure(plan, list(stages), Verdict.PASS,
                     f"stage 1 rejects ({first.message}), not confirmed: an independent stage 2 of "
                     f"{second.observations} {plan.unit} does not reject at {float(plan.confidence):.0%} confidence "
                     f"(Holm); the procedure's confidence is {1 - plan.procedure_alpha:.4%}")


def run(plan: Plan, stage: Callable[[int], BatteryVerdict | None]) -> Procedure:
    """Judge stage 1 (``stage(1)``) and, where it rejects statistically and the plan confirms, stage 2
    (``stage(2)``: a fresh, independent sample; ``None`` when none can be had, e.g. a file that holds
    no more).  The one code path of every battery's verdict."""
    first = stage(1)
    assert first is not None, "stage 1 always has a sample (possibly empty)"
    stages = [first]
    if plan.stages == 2 and first.rejects and not first.violations:
        second = stage(2)
        if second is not None:
            stages.append(second)
    return decide(plan, stages)


def split(items: Sequence[T], planned: int, stages: int) -> tuple[list[T], list[T]]:
    """A fixed collection of observations (a file, a soak's awards) as the procedure's two samples.

    One stage: all of them.  Two: with at least the planned number and fewer than twice it, the
    planned number first (it can PASS) and the rest as the confirming sample (short: INCONCLUSIVE
    when it is needed and does not reject); otherwise the first half and the second (each at least
    the planned size when there are twice as many; both short below the planned number, when no
    PASS is possible but two rejecting halves are still a FAIL)."""
    items = list(items)
    if stages == 1:
        return items, []
    cut = planned if planned <= len(items) < 2 * planned else (len(items) + 1) // 2
    return items[:cut], items[cut:]
