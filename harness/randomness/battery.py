"""A battery: the tests run together on one set of observations, and its verdict.

Plan first (:func:`plan_shuffler`, :func:`plan_shoe`, :func:`plan_mystery`): the family's level
``alpha = 1 - confidence`` is split over the battery's tests (Bonferroni for planning; Holm's
step-down for the verdict, which rejects whatever Bonferroni rejects and is never less powerful),
and for each declared defect the test that sees it with the fewest observations fixes how many
that defect needs.  The battery needs the most any declared defect needs.

Then judge (:func:`judge`):

* **FAIL** when Holm's procedure rejects any test at the family's level (a rejection is evidence
  whatever the sample size), or, for mystery awards, when any award is outside
  [reseed, must-hit-by];
* **INCONCLUSIVE** when nothing is rejected but there are fewer observations than planned, with
  the number still needed: never PASS on a sample too small to have seen the declared defects;
* **PASS** otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np

from harness.randomness import power, stats
from harness.randomness.observations import MysteryAward, ShoeObservation, shoe_arrays
from harness.randomness.settings import RandomnessSettings

SHOE_TESTS = ("runs", "serial-correlation", "card-position")
MYSTERY_TESTS = ("kolmogorov-smirnov",)


@dataclass(frozen=True)
class Plan:
    """How many observations a battery needs, and why."""

    kind: str
    unit: str
    confidence: Decimal
    source: str
    target_power: Decimal
    tests: tuple[str, ...]
    needs: tuple[power.Need, ...]
    #: defect -> the need of the test that sees it soonest
    best: dict[str, power.Need]
    per_hour: Decimal
    rate_unit: str
    #: what the observations are about (e.g. "416-card pack")
    subject: str = ""
    defects: dict[str, str] = field(default_factory=dict)

    @property
    def alpha(self) -> float:
        return float(1 - self.confidence)

    @property
    def alpha_each(self) -> float:
        return self.alpha / len(self.tests)

    @property
    def required(self) -> int:
        """Observations the battery needs (the most any declared defect needs)."""
        ns = [b.n for b in self.best.values() if b.n is not None]
        return max(ns) if ns else 1

    @property
    def unplanned(self) -> list[str]:
        """Declared defects no test is planned to see (reported, never hidden)."""
        return [d for d, b in self.best.items() if b.n is None]

    def hours(self, n: int | None = None) -> Decimal:
        return (Decimal(self.required if n is None else n) / self.per_hour).quantize(Decimal("0.01"))


def _best(needs: Sequence[power.Need]) -> dict[str, power.Need]:
    out: dict[str, power.Need] = {}
    for need in needs:
        have = out.get(need.defect)
        if have is None or (need.n is not None and (have.n is None or need.n < have.n)):
            out[need.defect] = need
    return out


def plan_shuffler(settings: RandomnessSettings, decks: int, jurisdiction: str | None) -> Plan:
    conf, source = settings.level(jurisdiction)
    sd = settings.shuffler
    n = sd.pack(decks)
    tests = power.SHUFFLE_TESTS
    alpha_each = float(1 - conf) / len(tests)
    target = float(settings.power)
    models = sd.models(n)
    needs = tuple(power.shuffle_need(t, model, n, alpha_each, target, sd.bins, name)
                  for name, model in models.items() for t in tests)
    return Plan("shuffler", "shuffles", conf, source, settings.power, tests, needs, _best(needs),
                sd.shuffles_per_hour, "shuffles per hour", f"{n}-card pack",
                {name: model.describe(n) for name, model in models.items()})


def plan_shoe(settings: RandomnessSettings, cards: int, jurisdiction: str | None) -> Plan:
    conf, source = settings.level(jurisdiction)
    sh = settings.shoe
    alpha_each = float(1 - conf) / len(SHOE_TESTS)
    target = float(settings.power)
    rho, w = float(sh.correlation), float(sh.position_w)
    needs = (
        power.correlation_need("runs", rho, cards, alpha_each, target, "correlated-colours"),
        power.correlation_need("serial-correlation", rho, cards, alpha_each, target, "correlated-values"),
        power.rank_position_need(w, cards, 13, sh.bins, alpha_each, target, "ranks-out-of-place"),
    )
    return Plan("shoe", "shoes", conf, source, settings.power, SHOE_TESTS, needs, _best(needs), sh.shoes_per_hour,
                "shoes per hour", f"{cards}-card shoe",
                {"correlated-colours": f"lag-1 correlation {rho:g} between card colours",
                 "correlated-values": f"lag-1 correlation {rho:g} between card values",
                 "ranks-out-of-place": f"rank by shoe position effect w = {w:g} per card"})


def plan_mystery(settings: RandomnessSettings, jurisdiction: str | None, rounds_per_award: Decimal | None = None,
                 distribution: str = "uniform") -> Plan:
    conf, source = settings.level(jurisdiction)
    md = settings.mystery
    d = float(md.distance)
    needs = (power.ks_need(d, float(1 - conf), float(settings.power), "trigger-law"),)
    per_hour = md.rounds_per_hour / rounds_per_award if rounds_per_award else md.rounds_per_hour
    return Plan("mystery", "awards", conf, source, settings.power, MYSTERY_TESTS, needs, _best(needs),
                per_hour.quantize(Decimal("0.0001")), "awards per hour", f"{distribution} trigger law",
                {"trigger-law": f"award law at Kolmogorov distance {d:g} or more from the declared {distribution} "
                                "law (e.g. every award in the lower half: 0.5)"})


@dataclass
class Verdict:
    plan: Plan
    results: list[stats.TestResult]
    #: test name -> the level Holm's step-down held it to
    levels: dict[str, float]
    rejected: list[str]
    outcome: str
    message: str
    observations: int
    still_needed: int = 0
    violations: list[str] = field(default_factory=list)

    def power_of(self, test: str) -> float | None:
        """The power this sample has against the defects ``test`` is planned to see (the least)."""
        values = [p for need in self.plan.best.values() if need.test == test
                  if (p := need.power_at(self.observations)) is not None]
        return min(values) if values else None


def holm(p_values: dict[str, float], alpha: float) -> tuple[list[str], dict[str, float]]:
    """Holm's step-down: the rejected tests and the level each was held to."""
    order = sorted(p_values, key=lambda k: p_values[k])
    k = len(order)
    rejected: list[str] = []
    levels: dict[str, float] = {}
    stopped = False
    for i, name in enumerate(order):
        levels[name] = alpha / (k - i)
        if not stopped and p_values[name] <= levels[name]:
            rejected.append(name)
        else:
            stopped = True
    return rejected, levels


def judge(plan: Plan, results: list[stats.TestResult], observations: int,
          violations: Sequence[str] = ()) -> Verdict:
    rejected, levels = holm({r.name: r.p_value for r in results}, plan.alpha)
    need = plan.required
    if violations:
        outcome, message = "FAIL", "; ".join(violations)
    elif rejected:
        outcome = "FAIL"
        message = ", ".join(f"{r.name} rejects its null hypothesis (p {r.p_value:.3g} <= {levels[r.name]:.3g})"
                            for r in results if r.name in rejected)
    elif observations < need:
        outcome = "INCONCLUSIVE"
        message = (f"{observations} {plan.unit} of the {need} planned for {float(plan.target_power):.0%} power: "
                   f"{need - observations} more needed")
    else:
        outcome, message = "PASS", (f"no test rejects at {float(plan.confidence):.0%} confidence over {len(results)} "
                                    f"tests (Holm); {observations} {plan.unit}, {need} planned")
    return Verdict(plan, results, levels, rejected, outcome, message, observations,
                   max(0, need - observations) if outcome == "INCONCLUSIVE" else 0, list(violations))


# -- running the batteries ------------------------------------------------------------------------------

def run_shuffler(plan: Plan, pos: np.ndarray, bins: int = 10) -> Verdict:
    pos = np.asarray(pos)
    if pos.size == 0:
        return judge(plan, [], 0)
    results = [stats.card_positions(pos, bins=bins), stats.adjacent_pairs(pos), stats.rising_sequence_test(pos),
               stats.repeated_shuffles(pos)]
    return judge(plan, results, pos.shape[0])


def run_shoe(plan: Plan, shoes: Sequence[ShoeObservation], bins: int = 8) -> Verdict:
    ranks, red = shoe_arrays(shoes)
    if ranks.size == 0:
        return judge(plan, [], 0)
    results = [stats.runs_test(red), stats.serial_correlation(ranks), stats.rank_positions(ranks, bins=bins)]
    return judge(plan, results, ranks.shape[0])


def run_mystery(plan: Plan, awards: Sequence[MysteryAward]) -> Verdict:
    """Awards against the uniform law on [reseed, must-hit-by] of the configuration each was won in;
    any award past must-hit-by (or below the reseed) fails outright (Royal 9 (h))."""
    violations = [f"award {i + 1} of {a.amount} cents is above must-hit-by {a.must_hit_by}"
                  for i, a in enumerate(awards) if a.amount > a.must_hit_by]
    violations += [f"award {i + 1} of {a.amount} cents is below the reseed {a.reseed}" for i, a in enumerate(awards)
                   if a.amount < a.reseed]
    if not awards:
        return judge(plan, [], 0, violations)
    share = np.asarray([(a.amount - a.reseed) / (a.must_hit_by - a.reseed) for a in awards], dtype=float)
    result = stats.ks_uniform(share, 0.0, 1.0, null="each award is uniform between the reseed and must-hit-by "
                                                     "amounts of its configuration", unit="awards")
    return judge(plan, [result], len(awards), violations)
