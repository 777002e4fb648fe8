"""A battery: the tests run together on one set of observations, and its verdict.

Plan first (:func:`plan_shuffler`, :func:`plan_shoe`, :func:`plan_mystery`): the family's level
``alpha = 1 - confidence`` is split over the battery's tests (Bonferroni for planning; Holm's
step-down for the verdict, which rejects whatever Bonferroni rejects and is never less powerful),
and for each declared defect the test that sees it with the fewest observations fixes how many
that defect needs.  The battery needs the most any declared defect needs.

Then judge one sample (:func:`judge`, a *stage* of :mod:`harness.randomness.confirm`, which turns
one or two stages into the case's verdict):

* **FAIL** when Holm's procedure rejects any test at the family's level (a rejection is evidence
  whatever the sample size), or, for mystery awards, when any award is outside
  [reseed, must-hit-by] (a hard violation: never waits for confirmation);
* **INCONCLUSIVE** when nothing is rejected but there are fewer observations than planned, with
  the number still needed: never PASS on a sample too small to have seen the declared defects;
* **PASS** otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np
from scipy import stats as sps

from harness.money import fmt
from harness.progressive.mystery import TriggerDistribution
from harness.progressive.mystery import distribution as trigger_distribution
from harness.randomness import power, stats
from harness.randomness.observations import MysteryAward, ShoeObservation, shoe_arrays
from harness.randomness.settings import MYSTERY_LAWS, RandomnessSettings
from harness.verdict import Verdict

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
    #: cards per observation (the pack shuffled, the shoe dealt); 0 for mystery awards
    size: int = 0
    #: 2: a statistical rejection is confirmed on a second sample of ``required`` (harness.randomness.confirm)
    stages: int = 1
    #: the power each stage is planned for (the planned power with one stage, its square root with two)
    stage_power: Decimal = Decimal("0.99")

    @property
    def alpha(self) -> float:
        return float(1 - self.confidence)

    @property
    def alpha_each(self) -> float:
        return self.alpha / len(self.tests)

    @property
    def procedure_alpha(self) -> float:
        """The procedure's false-alarm bound: alpha per stage, so alpha ** stages (independent stages)."""
        return self.alpha ** self.stages

    def expected(self, rejection: float) -> float:
        """Observations the procedure expects to take when a stage rejects with probability
        ``rejection`` (at most alpha for a correct device): the second stage runs only after a
        first-stage rejection."""
        n = self.required
        return n + (rejection * n if self.stages == 2 else 0.0)

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


def plan_shuffler(settings: RandomnessSettings, decks: int, jurisdiction: str | None,
                  cards: int | None = None) -> Plan:
    """The shuffler battery on a pack of ``cards`` (default: the profile's, else ``decks`` x 52)."""
    conf, source = settings.level(jurisdiction)
    sd = settings.shuffler
    n = cards if cards is not None else sd.pack(decks)
    tests = power.SHUFFLE_TESTS
    alpha_each = float(1 - conf) / len(tests)
    target = float(settings.stage_power)
    models = sd.models(n)
    needs = tuple(power.shuffle_need(t, model, n, alpha_each, target, sd.bins, name)
                  for name, model in models.items() for t in tests)
    return Plan("shuffler", "shuffles", conf, source, settings.power, tests, needs, _best(needs),
                sd.shuffles_per_hour, "shuffles per hour", f"{n}-card pack",
                {name: model.describe(n) for name, model in models.items()}, n, settings.stages, settings.stage_power)


def plan_shoe(settings: RandomnessSettings, cards: int, jurisdiction: str | None) -> Plan:
    conf, source = settings.level(jurisdiction)
    sh = settings.shoe
    alpha_each = float(1 - conf) / len(SHOE_TESTS)
    target = float(settings.stage_power)
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
                 "ranks-out-of-place": f"rank by shoe position effect w = {w:g} per card"}, cards, settings.stages,
                settings.stage_power)


def plan_mystery(settings: RandomnessSettings, jurisdiction: str | None, rounds_per_award: Decimal | None = None,
                 distribution: str = "uniform", reseed: int = 25_000, must_hit_by: int = 100_000) -> Plan:
    """The mystery battery: the KS test of the awards against the declared trigger law, planned for
    each declared defective law (at ``reseed`` .. ``must_hit_by`` cents: configuration 1 unless
    given) and, where the profile declares a distance, for every law that far from the declared one."""
    conf, source = settings.level(jurisdiction)
    md = settings.mystery
    alpha, target = float(1 - conf), float(settings.stage_power)
    span = must_hit_by - reseed
    needs: list[power.Need] = []
    defects: dict[str, str] = {}
    for law in md.laws:
        defect = MYSTERY_LAWS[law]
        needs.append(power.trigger_law_need(law, span, alpha, target, defect))
        defects[defect] = power.trigger_law_sampler(law, span)[2]
    if md.distance is not None:
        d = float(md.distance)
        needs.append(power.ks_need(d, alpha, target, "trigger-law-distance"))
        defects["trigger-law-distance"] = (f"any award law at Kolmogorov distance {d:g} or more from the declared "
                                           f"{distribution} law")
    per_hour = md.rounds_per_hour / rounds_per_award if rounds_per_award else md.rounds_per_hour
    return Plan("mystery", "awards", conf, source, settings.power, MYSTERY_TESTS, tuple(needs), _best(needs),
                per_hour.quantize(Decimal("0.0001")), "awards per hour",
                f"{distribution} trigger law on [{fmt(reseed)}, {fmt(must_hit_by)}]", defects, 0, settings.stages,
                settings.stage_power)


@dataclass
class BatteryVerdict:
    plan: Plan
    results: list[stats.TestResult]
    #: test name -> the level Holm's step-down held it to
    levels: dict[str, float]
    rejected: list[str]
    outcome: str
    message: str
    observations: int
    still_needed: int = 0
    #: hard violations (an award outside [reseed, must-hit-by]): a FAIL whatever the statistics
    violations: list[str] = field(default_factory=list)
    #: why the planned sample must reject whatever is still to come (a statistical rejection of a
    #: short sample: :func:`mystery_rejection_certain`), or None
    certain: str | None = None

    @property
    def rejects(self) -> bool:
        """A statistical rejection of this sample (Holm, or certain over the planned number)."""
        return bool(self.rejected) or self.certain is not None

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


def family_p(results: Sequence[stats.TestResult]) -> float:
    """The smallest family level at which Holm's procedure rejects some test of the battery
    (``min(1, k * smallest p)``): the battery FAILs at level ``alpha`` exactly when this is at most
    ``alpha``, so its law under H0 is the battery's false-alarm rate at every level at once."""
    if not results:
        return 1.0
    return min(1.0, len(results) * min(r.p_value for r in results))


def judge(plan: Plan, results: list[stats.TestResult], observations: int,
          violations: Sequence[str] = (), certain: str | None = None) -> BatteryVerdict:
    """One sample's verdict at the family level alpha (a stage of :mod:`harness.randomness.confirm`)."""
    rejected, levels = holm({r.name: r.p_value for r in results}, plan.alpha)
    need = plan.required
    if violations:
        outcome, message = Verdict.FAIL, "; ".join(violations)
    elif rejected or certain:
        outcome = Verdict.FAIL
        parts = [", ".join(f"{r.name} rejects its null hypothesis (p {r.p_value:.3g} <= {levels[r.name]:.3g})"
                           for r in results if r.name in rejected)] if rejected else []
        message = "; ".join(parts + ([certain] if certain else []))
    elif observations < need:
        outcome = Verdict.INCONCLUSIVE
        message = (f"{observations} {plan.unit} of the {need} planned for {float(plan.target_power):.0%} power: "
                   f"{need - observations} more needed")
    else:
        outcome = Verdict.PASS
        message = (f"no test rejects at {float(plan.confidence):.0%} confidence over {len(results)} "
                   f"tests (Holm); {observations} {plan.unit}, {need} planned")
    return BatteryVerdict(plan, results, levels, rejected, outcome, message, observations,
                   max(0, need - observations) if outcome == Verdict.INCONCLUSIVE else 0, list(violations), certain)


# -- running the batteries ------------------------------------------------------------------------------

def run_shuffler(plan: Plan, pos: np.ndarray, bins: int = 10) -> BatteryVerdict:
    pos = np.asarray(pos)
    if pos.size == 0:
        return judge(plan, [], 0)
    results = [stats.card_positions(pos, bins=bins), stats.position_correlation(pos), stats.adjacent_pairs(pos),
               stats.rising_sequence_test(pos), stats.repeated_shuffles(pos)]
    return judge(plan, results, pos.shape[0])


def run_shoe(plan: Plan, shoes: Sequence[ShoeObservation], bins: int = 8) -> BatteryVerdict:
    ranks, red = shoe_arrays(shoes)
    return run_shoe_arrays(plan, ranks, red, bins)


def run_shoe_arrays(plan: Plan, ranks: np.ndarray, red: np.ndarray, bins: int = 8) -> BatteryVerdict:
    """The shoe battery on ``(shoes, cards)`` arrays of ranks (1-13) and colours (1 red)."""
    if ranks.size == 0:
        return judge(plan, [], 0)
    results = [stats.runs_test(red), stats.serial_correlation(ranks), stats.rank_positions(ranks, bins=bins)]
    return judge(plan, results, ranks.shape[0])


def award_pit(award: MysteryAward, law: TriggerDistribution) -> float:
    """Where ``award`` falls in the declared trigger law on [reseed, must-hit-by]: the mid-point of the
    law's CDF step at the award's amount (uniform on (0, 1) for a sound controller's triggers)."""
    low, high = award.reseed, award.must_hit_by
    below = law.probability(low, high, low, award.amount - 1)
    upto = law.probability(low, high, low, award.amount)
    return float((below + upto) / 2)


def mystery_rejection_certain(plan: Plan, awards: Sequence[MysteryAward], distribution: str = "uniform",
                              planned: int | None = None) -> str | None:
    """With fewer awards than planned: why the KS test over the planned number must reject whatever
    the awards still to come (then a bench may stop), or None.

    Of ``n`` planned awards ``k`` are in; whatever the other ``n - k``, the ECDF at every x lies in
    [k F_k(x) / n, (k F_k(x) + n - k) / n], so D_n is at least the largest distance from F(x) to
    that interval, max_i max(i/n - u_(i), u_(i) - (i - 1 + n - k)/n) over the ``k`` probability-integral
    values in order.  When even that bound has a p-value at most the level, the verdict over ``n``
    awards is FAIL for every completion: stopping changes no verdict and spends no extra level."""
    n = planned or plan.required
    k = len(awards)
    if not 0 < k < n:
        return None
    law = trigger_distribution(distribution)
    u = np.sort(np.asarray([award_pit(a, law) for a in awards], dtype=float))
    i = np.arange(1, k + 1)
    bound = float(max((i / n - u).max(), (u - (i - 1 + n - k) / n).max(), 0.0))
    p = float(sps.kstwo.sf(bound, n))
    if p > plan.alpha:
        return None
    return (f"after {k} of the {n} planned awards the Kolmogorov-Smirnov test over {n} rejects whatever the "
            f"other {n - k}: D >= {bound:.4f}, p <= {p:.3g} <= {plan.alpha:g}")


def run_mystery(plan: Plan, awards: Sequence[MysteryAward], distribution: str = "uniform",
                certain: str | None = None) -> BatteryVerdict:
    """Awards against the declared trigger law on [reseed, must-hit-by] of the configuration each was
    won in (``distribution``: the Rules Submission's, :mod:`harness.progressive.mystery`); any award
    past must-hit-by (or below the reseed) fails outright (Royal 9 (h)); a short sample that
    ``certain`` (:func:`mystery_rejection_certain`) says must reject over the planned number is a
    statistical rejection (confirmed on a second sample like any other).

    An award is the meter when the trigger was reached: the trigger plus at most one wager's
    contribution under the default interpretation ``mystery-award-amount: meter-at-trigger``, a
    shift of under one part in a thousand of the range, far below what the test can see."""
    violations = [f"award {i + 1} of {a.amount} cents is above must-hit-by {a.must_hit_by}"
                  for i, a in enumerate(awards) if a.amount > a.must_hit_by]
    violations += [f"award {i + 1} of {a.amount} cents is below the reseed {a.reseed}" for i, a in enumerate(awards)
                   if a.amount < a.reseed]
    if not awards:
        return judge(plan, [], 0, violations, certain)
    law = trigger_distribution(distribution)
    pit = np.asarray([award_pit(a, law) for a in awards], dtype=float)
    result = stats.ks_uniform(pit, 0.0, 1.0, null=f"each award follows the declared {law.name} trigger law between "
                                                   "the reseed and must-hit-by amounts of its configuration",
                              unit="awards")
    return judge(plan, [result], len(awards), violations, certain)
