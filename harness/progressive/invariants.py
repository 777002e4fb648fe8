"""Pure checkers for what a progressive controller reported: the soak command and suites feed
them observations in the order they happened and get back the violations, each naming the rule
and the clause it breaks.

Observations (money in integer cents, residual an exact ``Decimal`` fraction of a cent):

* :class:`Contribution` - a qualifying wager accepted (feeds every meter, or those named);
* :class:`Reading` - what ``meters.get`` showed for one meter;
* :class:`JackpotHit` - a hit took ``meter_amount`` off the meter (``pending`` while it waits
  for the reset key, 461a.12(b)(5));
* :class:`Reset` - the meter was reset to ``amount`` (a table-paid hit, or the reset key);
* :class:`Correction` - a documented malfunction correction (461a.12(h)(3)).

Between two readings of a meter the ledger must balance exactly:
``previous (amount + residual + held + diverted) + sum(wager x rate) - taken by hits - taken by
corrections + reset amounts == amount + residual + held + diverted`` (the model's identity, see
:mod:`harness.progressive.meter`).  A dropped fraction of a cent, a rate slightly off, a meter lost
on a power cycle or one wrapping past its display all break it.

:func:`chi_square` and friends compare observed counts (trigger positions, hit frequencies) with
the expected law; the survival function is computed here (regularized incomplete gamma) so the
harness needs no scipy.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from harness.money import Cents, fmt, rate_ratio
from harness.progressive.meter import Meter, MeterBank, MeterConfig
from harness.progressive.mystery import MysteryMeter, TriggerDistribution, UniformCents

CLAUSES: dict[str, str] = {
    "conservation": "Royal 9 (f)(2), (g)(2) rate of progression; 461a.12(c)(2)",
    "residual-range": "Royal 9 (f)(2), (g)(2) rate of progression",
    "decrease-without-hit": "461a.12(h)",
    "undocumented-correction": "461a.12(h)(3)",
    "below-reset": "Royal 9 (f)(2), (g)(2) reset amount",
    "reset-amount": "Royal 9 (f)(2), (g)(2), (h) reset amount",
    "past-limit": "461a.12(j), 461a.12(k)(1)",
    "mystery-past-must-hit-by": "Royal 9 (h) must-hit-by",
    "unknown-meter": "Rules Submission meters",
}


@dataclass(frozen=True, slots=True)
class Contribution:
    wager: Cents
    #: the meters this wager feeds; None = every meter audited
    meters: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Reading:
    meter: str
    amount: Cents
    residual: Decimal = Decimal(0)
    held: Cents = 0
    diverted: Cents = 0


@dataclass(frozen=True, slots=True)
class JackpotHit:
    meter: str
    paid: Cents
    #: amount taken off the meter (defaults to ``paid``: a 100% award)
    meter_amount: Cents | None = None
    pending: bool = False


@dataclass(frozen=True, slots=True)
class Reset:
    meter: str
    amount: Cents


@dataclass(frozen=True, slots=True)
class Correction:
    meter: str
    previous: Cents
    amount: Cents
    reason: str


Observation = Contribution | Reading | JackpotHit | Reset | Correction


@dataclass(frozen=True, slots=True)
class MeterSpec:
    """What the audit holds a meter to (from its configuration)."""

    name: str
    rate: Decimal
    reset: Cents
    #: the amount shown may never be below this (the lower of initial and reset)
    floor: Cents
    cap: Cents | None = None
    must_hit_by: Cents | None = None

    @classmethod
    def declared(cls, cfg: MeterConfig, must_hit_by: Cents | None = None) -> MeterSpec:
        """The spec of a meter as its configuration declares it: its floor the lower of its initial and
        reset amounts, its cap :attr:`MeterConfig.cap`."""
        return cls(cfg.name, cfg.rate, cfg.reset, min(cfg.initial, cfg.reset), cfg.cap, must_hit_by)

    @classmethod
    def of(cls, meter: Meter) -> MeterSpec:
        return cls.declared(meter.config, meter.mystery.must_hit_by if isinstance(meter, MysteryMeter) else None)


@dataclass(frozen=True, slots=True)
class Violation:
    kind: str
    meter: str
    message: str
    clause: str
    #: position of the observation in the fed sequence (0-based)
    index: int


@dataclass(slots=True)
class _Track:
    spec: MeterSpec
    num: int
    den: int
    value: Fraction | None = None
    last_amount: Cents = 0
    contrib_num: int = 0
    taken: Cents = 0
    seeded: Cents = 0
    pending: list[Cents] = field(default_factory=list)
    decrease_ok: bool = False


class MeterAudit:
    """Streaming checker: memory stays flat however many observations are fed."""

    def __init__(self, specs: Iterable[MeterSpec], keep: int = 1000) -> None:
        self._tracks: dict[str, _Track] = {}
        for spec in specs:
            num, den = rate_ratio(spec.rate)
            self._tracks[spec.name] = _Track(spec, num, den)
        self._all = list(self._tracks.values())
        self.keep = keep
        self.violations: list[Violation] = []
        self.counts: dict[str, int] = {}
        self.observed = 0

    @classmethod
    def for_bank(cls, bank: MeterBank, keep: int = 1000) -> MeterAudit:
        return cls((MeterSpec.of(m) for m in bank.meters.values()), keep)

    @property
    def total(self) -> int:
        """Every violation found (``violations`` keeps the first ``keep``)."""
        return sum(self.counts.values())

    def _flag(self, kind: str, meter: str, message: str, out: list[Violation]) -> None:
        v = Violation(kind, meter, message, CLAUSES[kind], self.observed)
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if len(self.violations) < self.keep:
            self.violations.append(v)
        out.append(v)

    def feed_all(self, observations: Iterable[Observation]) -> list[Violation]:
        out: list[Violation] = []
        for obs in observations:
            out.extend(self.feed(obs))
        return out

    def feed(self, obs: Observation) -> list[Violation]:
        """Check one observation; returns the violations it reveals."""
        out: list[Violation] = []
        try:
            if isinstance(obs, Contribution):
                self._contribution(obs, out)
                return out
            track = self._tracks.get(obs.meter)
            if track is None:
                self._flag("unknown-meter", obs.meter, f"{obs.meter}: not a configured meter", out)
            elif isinstance(obs, Reading):
                self._reading(track, obs, out)
            elif isinstance(obs, JackpotHit):
                self._hit(track, obs, out)
            elif isinstance(obs, Reset):
                self._reset(track, obs, out)
            else:
                self._correction(track, obs, out)
            return out
        finally:
            self.observed += 1

    def _contribution(self, obs: Contribution, out: list[Violation]) -> None:
        if obs.meters is None:
            for track in self._all:
                track.contrib_num += obs.wager * track.num
            return
        for name in obs.meters:
            fed = self._tracks.get(name)
            if fed is None:
                self._flag("unknown-meter", name, f"{name}: a wager fed a meter that is not configured", out)
            else:
                fed.contrib_num += obs.wager * fed.num

    def _reading(self, t: _Track, r: Reading, out: list[Violation]) -> None:
        name, spec = r.meter, t.spec
        actual = Fraction(r.amount) + Fraction(r.residual) + r.held + r.diverted
        if t.value is not None:
            contributed = Fraction(t.contrib_num, t.den)
            expected = t.value + contributed - t.taken + t.seeded
            if actual != expected:
                off = Decimal((actual - expected).numerator) / Decimal((actual - expected).denominator)
                self._flag("conservation", name,
                           f"{name}: contributions of {_cents(contributed)} cents at {spec.rate}% do not "
                           f"match the growth plus residual: expected {_cents(expected)}, read "
                           f"{_cents(actual)} cents (off by {off:f} cents)", out)
            if r.amount < t.last_amount and not t.decrease_ok:
                self._flag("decrease-without-hit", name,
                           f"{name}: went down from {fmt(t.last_amount)} to {fmt(r.amount)} without a hit "
                           "or a documented correction", out)
        if not 0 <= r.residual < 1:
            self._flag("residual-range", name,
                       f"{name}: residual {r.residual} is not a fraction of a cent", out)
        if r.amount < spec.floor:
            self._flag("below-reset", name, f"{name}: shows {fmt(r.amount)}, below its reset amount "
                                            f"{fmt(spec.floor)}", out)
        if spec.cap is not None and r.amount > spec.cap:
            self._flag("past-limit", name,
                       f"{name}: shows {fmt(r.amount)}, past its limit {fmt(spec.cap)}", out)
        if spec.must_hit_by is not None and r.amount > spec.must_hit_by:
            self._flag("mystery-past-must-hit-by", name,
                       f"{name}: shows {fmt(r.amount)}, past must-hit-by {fmt(spec.must_hit_by)}", out)
        t.value, t.last_amount = actual, r.amount
        t.contrib_num = t.taken = t.seeded = 0
        t.decrease_ok = False

    def _hit(self, t: _Track, h: JackpotHit, out: list[Violation]) -> None:
        taken = h.paid if h.meter_amount is None else h.meter_amount
        mhb = t.spec.must_hit_by
        if mhb is not None and max(taken, h.paid) > mhb:
            self._flag("mystery-past-must-hit-by", h.meter,
                       f"{h.meter}: hit at {fmt(max(taken, h.paid))}, past must-hit-by {fmt(mhb)}", out)
        if h.pending:
            t.pending.append(taken)
        else:
            t.taken += taken
        t.decrease_ok = True

    def _reset(self, t: _Track, r: Reset, out: list[Violation]) -> None:
        if r.amount != t.spec.reset:
            self._flag("reset-amount", r.meter,
                       f"{r.meter}: reset to {fmt(r.amount)}, configured reset is {fmt(t.spec.reset)}", out)
        if t.pending:
            t.taken += t.pending.pop(0)
        t.seeded += r.amount
        t.decrease_ok = True

    def _correction(self, t: _Track, c: Correction, out: list[Violation]) -> None:
        if not c.reason.strip():
            self._flag("undocumented-correction", c.meter,
                       f"{c.meter}: changed from {fmt(c.previous)} to {fmt(c.amount)} without a reason", out)
        t.taken += c.previous - c.amount
        t.decrease_ok = True


def check_observations(specs: Iterable[MeterSpec], observations: Iterable[Observation]) -> list[Violation]:
    """Every violation in a finite sequence of observations."""
    return MeterAudit(specs, keep=1 << 62).feed_all(observations)


def _cents(value: Fraction) -> str:
    return f"{Decimal(value.numerator) / Decimal(value.denominator):f}"


# -- chi-square ----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ChiSquare:
    statistic: float
    dof: int
    p_value: float

    def passes(self, alpha: float = 0.05) -> bool:
        """True when the counts are consistent with the law at significance ``alpha``."""
        return self.p_value >= alpha


def regularized_gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Gamma(a, x) / Gamma(a): series below a+1, Lentz continued fraction above."""
    if a <= 0 or x < 0:
        raise ValueError("regularized_gamma_q needs a > 0 and x >= 0")
    if x == 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return min(1.0, math.exp(log_front) * h)


def chi_square_sf(statistic: float, dof: int) -> float:
    """P(X >= statistic) for X chi-square distributed with ``dof`` degrees of freedom."""
    if dof < 1:
        raise ValueError("chi-square needs at least one degree of freedom")
    return regularized_gamma_q(dof / 2, max(0.0, statistic) / 2)


def chi_square(observed: Sequence[int], expected: Sequence[float | Fraction | int],
               ddof: int = 0) -> ChiSquare:
    """Pearson's goodness of fit of ``observed`` counts against ``expected`` counts (same total)."""
    if len(observed) != len(expected) or len(observed) < 2:
        raise ValueError("chi-square needs two or more bins, as many expected as observed")
    if any(e <= 0 for e in expected):
        raise ValueError("every expected count must be positive")
    pairs = zip(observed, expected, strict=True)
    stat = sum((Fraction(o) - Fraction(e)) ** 2 / Fraction(e) for o, e in pairs)
    dof = len(observed) - 1 - ddof
    value = float(stat)
    return ChiSquare(value, dof, chi_square_sf(value, dof))


def chi_square_probabilities(observed: Sequence[int], probabilities: Sequence[Fraction | float]) -> ChiSquare:
    """As :func:`chi_square`, with the expected law given as probabilities summing to 1."""
    n = sum(observed)
    return chi_square(observed, [Fraction(p) * n for p in probabilities])


def trigger_bins(reseed: Cents, must_hit_by: Cents, bins: int) -> list[tuple[Cents, Cents]]:
    """``bins`` contiguous whole-cent ranges covering [reseed, must-hit-by] (as equal as possible)."""
    span = must_hit_by - reseed + 1
    if not 1 <= bins <= span:
        raise ValueError(f"cannot split {span} amounts into {bins} bins")
    edges = [reseed + span * i // bins for i in range(bins + 1)]
    return [(edges[i], edges[i + 1] - 1) for i in range(bins)]


def trigger_chi_square(triggers: Iterable[Cents], reseed: Cents, must_hit_by: Cents, bins: int = 10,
                       law: TriggerDistribution | None = None) -> ChiSquare:
    """Do observed trigger (or mystery award) amounts follow the declared distribution (Royal 9 (h))?"""
    law = law or UniformCents()
    ranges = trigger_bins(reseed, must_hit_by, bins)
    counts = [0] * bins
    starts = [lo for lo, _ in ranges]
    for value in triggers:
        if not reseed <= value <= must_hit_by:
            raise ValueError(f"trigger {value} is outside [{reseed}, {must_hit_by}]")
        counts[bisect.bisect_right(starts, value) - 1] += 1
    probs = [law.probability(reseed, must_hit_by, lo, hi) for lo, hi in ranges]
    return chi_square_probabilities(counts, probs)


def hit_frequency_chi_square(hits: Mapping[str, int], trials: int,
                             probabilities: Mapping[str, Fraction]) -> ChiSquare:
    """Observed counts of each category in ``trials`` rounds against exact probabilities.

    Categories not hit get their own bin ("none"), so the bins cover every round.
    """
    names = list(probabilities)
    unknown = set(hits) - set(names)
    if unknown:
        raise ValueError(f"no probability given for {sorted(unknown)}")
    observed = [hits.get(name, 0) for name in names]
    rest = trials - sum(observed)
    p_rest = 1 - sum((Fraction(p) for p in probabilities.values()), Fraction(0))
    if rest < 0 or p_rest < 0:
        raise ValueError("more hits than trials, or probabilities above 1")
    probs = [Fraction(probabilities[name]) for name in names]
    if p_rest > 0:
        observed.append(rest)
        probs.append(p_rest)
    return chi_square_probabilities(observed, probs)
