"""Power before verdict: how many observations each test needs to see a declared defect.

For a test run at level ``alpha`` (already corrected for the tests run with it) and a declared
defect, the sample size is the smallest number of observations whose power, the probability of
rejecting when the defect is present at its declared size, is at least ``power``.  How:

* **chi-square** tests (card positions, rank positions): the statistic is noncentral chi-square
  with noncentrality ``m * lambda1``, ``lambda1 = sum (p1 - p0)^2 / p0`` per observation, computed
  exactly from the defect's cell probabilities.
* **sums of per-observation scores** (rising sequences, adjacent pairs, runs, serial
  correlation): the normal approximation to the sum, with the null mean and variance exact and
  the defect's mean and variance exact where the law is known (rising sequences after fair riffle
  passes: Bayer and Diaconis 1992) or estimated from 4000 seeded simulated shuffles of the defect
  model otherwise (stated in the plan as "simulated").
* **Kolmogorov-Smirnov** against a declared trigger law (every trigger at must-hit-by, at the
  reseed plus one cent, uniform in the lower half of the range): the exact null law of the
  statistic (``scipy.stats.kstwo``) and the statistic under the defect's law, simulated from 20,000
  seeded samples per size (one where the law is a single amount);
* **Kolmogorov-Smirnov**, optionally, a guarantee for *every* law at sup-distance ``d`` from the
  declared one, from the Dvoretzky-Kiefer-Wolfowitz inequality with Massart's constant:
  ``P(sup |F_m - F| > e) <= 2 exp(-2 m e^2)``.
* **repeated shuffles**: a generator that repeats every ``T`` shuffles repeats within ``T + 1``
  (power 1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from math import ceil, comb, exp, log, sqrt

import numpy as np
from scipy import stats as sps

from harness.randomness import stats
from harness.randomness.models import ShufflerModel

#: simulated shuffles per defect model where a law is not known exactly
SIMULATED = 4000
SIM_SEED = 20_240_615
#: a simulated effect smaller than this many standard errors of its estimate is not planned on
NOISE_SE = 4.0
MAX_N = 10_000_000
#: (rng, reps, m) -> (reps, m) probability-integral values of m awards under a defect's law
SampleFn = Callable[[np.random.Generator, int, int], np.ndarray]


@dataclass(frozen=True)
class Need:
    """What one test needs to see one declared defect."""

    test: str
    defect: str
    #: observations for at least the planned power; None: this test is not planned to see it
    n: int | None
    method: str
    #: the power at ``n`` (at least the planned power)
    power: float | None = None
    #: power as a function of the number of observations
    fn: PowerFn | None = field(default=None, compare=False, repr=False)

    def power_at(self, m: int) -> float | None:
        return None if self.fn is None else self.fn(max(1, m))


def _search(power_at: PowerFn, target: float) -> int | None:
    """Smallest n >= 1 with power_at(n) >= target (power increases with n), or None past MAX_N."""
    if power_at(1) >= target:
        return 1
    hi = 2
    while power_at(hi) < target:
        hi *= 2
        if hi > MAX_N:
            return None
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if power_at(mid) >= target:
            hi = mid
        else:
            lo = mid
    return hi


class PowerFn:
    """Power as a function of the number of observations (callable), with how it was computed."""

    def __init__(self, fn: object, method: str) -> None:
        self.fn = fn
        self.method = method

    def __call__(self, n: int) -> float:
        return float(self.fn(n))  # type: ignore[operator]

    def need(self, test: str, defect: str, target: float) -> Need:
        n = _search(self, target)
        return Need(test, defect, n, self.method, None if n is None else self(n), self)


# -- the laws behind the power functions ------------------------------------------------------------

def chi2_power(lambda1: float, df: int, alpha: float, method: str) -> PowerFn:
    crit = float(sps.chi2.isf(alpha, df))
    return PowerFn(lambda m: sps.ncx2.sf(crit, df, m * lambda1) if lambda1 > 0 else 0.0, method)


def multinomial_power(p0: np.ndarray, p1: np.ndarray, alpha: float, reps: int = 20_000) -> PowerFn:
    """Power of Pearson's chi-square of counts drawn from ``p1`` against ``p0``, by seeded
    simulation of the multinomial counts themselves (the noncentral chi-square approximation
    overstates the power of large effects on small samples)."""
    df = len(p0) - 1
    crit = float(sps.chi2.isf(alpha, df))

    def power(m: int) -> float:
        rng = np.random.default_rng(SIM_SEED + m)
        counts = rng.multinomial(m, p1, size=reps)
        expected = p0 * m
        chi = ((counts - expected) ** 2 / expected).sum(axis=1)
        return float((chi > crit).mean())

    return PowerFn(power, f"chi-square of simulated multinomial counts ({reps} seeded samples per size), "
                          "exact cell probabilities")


def sum_power(mu0: float, sd0: float, mu1: float, sd1: float, alpha: float, side: str, method: str) -> PowerFn:
    """Power of the test on the sum of m per-observation scores (normal approximation)."""
    if side == "two-sided":
        z = float(sps.norm.isf(alpha / 2))
        delta = abs(mu1 - mu0)
    else:
        z = float(sps.norm.isf(alpha))
        delta = (mu0 - mu1) if side == "lower" else (mu1 - mu0)

    def power(m: int) -> float:
        if delta <= 0:
            return 0.0
        return float(sps.norm.cdf((sqrt(m) * delta - z * sd0) / max(sd1, 1e-12)))

    return PowerFn(power, method)


def ks_power(distance: float, alpha: float) -> PowerFn:
    """A lower bound on the KS test's power against every law at sup-distance ``distance``."""

    def power(m: int) -> float:
        crit = float(sps.kstwo.isf(alpha, m))
        gap = distance - crit
        return 0.0 if gap <= 0 else max(0.0, 1.0 - 2.0 * exp(-2.0 * m * gap * gap))

    return PowerFn(power, "DKW bound (every law at that distance)")


def ks_statistic(u: np.ndarray) -> np.ndarray:
    """Row-wise one-sample KS statistic of values ``u`` (shape ``(reps, m)``) against U(0, 1)."""
    x = np.sort(u, axis=1)
    m = x.shape[1]
    i = np.arange(1, m + 1)
    return np.maximum((i / m - x).max(axis=1), (x - (i - 1) / m).max(axis=1))


def law_power(sample: SampleFn, alpha: float, reps: int, method: str) -> PowerFn:
    """Power of the KS test at ``alpha`` when the probability-integral values follow ``sample``
    (``sample(rng, reps, m)`` -> ``(reps, m)`` values in [0, 1])."""

    def power(m: int) -> float:
        crit = float(sps.kstwo.isf(alpha, m))
        rng = np.random.default_rng(SIM_SEED + m)
        return float((ks_statistic(sample(rng, reps, m)) > crit).mean())

    return PowerFn(power, method)


def repeat_power(period: int) -> PowerFn:
    return PowerFn(lambda m: 1.0 if m > period else 0.0, "certain once the shuffles outnumber the period")


# -- per-shuffle moments -----------------------------------------------------------------------------

@lru_cache(maxsize=8)
def eulerian_row(n: int) -> tuple[int, ...]:
    """Eulerian numbers A(n, k), k = 0..n-1: permutations of n with k descents."""
    row = [1]
    for size in range(2, n + 1):
        new = [0] * size
        for k in range(size):
            left = (k + 1) * row[k] if k < len(row) else 0
            right = (size - k) * row[k - 1] if k >= 1 else 0
            new[k] = left + right
        row = new
    return tuple(row)


@lru_cache(maxsize=32)
def riffle_rising_moments(n: int, passes: int) -> tuple[float, float]:
    """Exact mean and variance of the rising sequences after ``passes`` fair GSR riffles of ``n``
    cards: P(r) = A(n, r-1) C(2^k + n - r, n) / 2^(kn) (Bayer and Diaconis 1992)."""
    a = 2 ** passes
    row = eulerian_row(n)
    weights = [row[r - 1] * comb(a + n - r, n) for r in range(1, min(n, a) + 1)]
    total = a ** n
    s1 = sum(r * w for r, w in enumerate(weights, start=1))
    s2 = sum(r * r * w for r, w in enumerate(weights, start=1))
    mean = s1 / total
    return mean, s2 / total - mean * mean


@lru_cache(maxsize=8)
def successions_moments(n: int) -> tuple[float, float]:
    pmf = np.asarray(stats.successions_pmf(n))
    k = np.arange(len(pmf))
    mean = float((k * pmf).sum())
    return mean, float((k * k * pmf).sum() - mean * mean)


@lru_cache(maxsize=64)
def simulated_moments(model: ShufflerModel, n: int, statistic: str) -> tuple[float, float]:
    """Mean and variance of a per-shuffle statistic under ``model`` from seeded simulation."""
    rng = np.random.default_rng(SIM_SEED)
    pos = model.shuffle(rng, SIMULATED, n)
    if statistic == "rising":
        values = stats.rising_sequences(pos).astype(float)
    elif statistic == "spearman":
        values = stats.spearman_rows(pos)
    else:
        values = stats.successions(pos).astype(float)
    return float(values.mean()), float(values.var(ddof=1))


def stuck_cell_probabilities(n: int, bins: int, probability: float, span: int) -> np.ndarray:
    """Where the stuck card ends, by position bin: exact."""
    of = stats.position_bins(n, bins)
    p = np.bincount(of, minlength=bins) / n * (1 - probability)
    p += np.bincount(of[n - span:], minlength=bins) / span * probability
    return p


# -- the shuffler battery's planning -------------------------------------------------------------------

SHUFFLE_TESTS = ("card-position", "position-correlation", "adjacent-pairs", "rising-sequences", "repeated-shuffles")


def _simulated_need(test: str, defect: str, model: ShufflerModel, n: int, statistic: str, mu0: float, sd0: float,
                    alpha: float, side: str, target: float) -> Need:
    """A normal-sum plan from the defect's simulated moments; none when the simulated effect is within
    four standard errors of the null mean (the plan would be the simulation's noise, not the defect's)."""
    mu1, var1 = simulated_moments(model, n, statistic)
    if abs(mu1 - mu0) < NOISE_SE * sqrt(max(var1, 0.0) / SIMULATED):
        return Need(test, defect, None, f"no effect beyond simulation noise ({SIMULATED} seeded shuffles)")
    how = f"normal, defect moments simulated ({SIMULATED} seeded shuffles)"
    return sum_power(mu0, sd0, mu1, sqrt(max(var1, 0.0)), alpha, side, how).need(test, defect, target)


def shuffle_need(test: str, model: ShufflerModel, n: int, alpha: float, target: float, bins: int,
                 defect: str) -> Need:
    """What ``test`` (at level ``alpha``) needs to see the shuffler defect ``model`` on ``n`` cards."""
    if test == "card-position":
        if model.kind != "stuck":
            return Need(test, defect, None, "not planned for this defect")
        p0 = np.bincount(stats.position_bins(n, bins), minlength=bins) / n
        p1 = stuck_cell_probabilities(n, bins, model.probability, model.span)
        return multinomial_power(p0, p1, alpha / n).need(test, defect, target)
    if test == "repeated-shuffles":
        if model.kind != "period":
            return Need(test, defect, None, "not planned for this defect")
        return repeat_power(model.period).need(test, defect, target)
    if test == "position-correlation":
        if model.kind not in ("riffles", "stuck"):
            return Need(test, defect, None, "not planned for this defect")
        return _simulated_need(test, defect, model, n, "spearman", 0.0, sqrt(1 / (n - 1)), alpha, "two-sided",
                               target)
    if model.kind not in ("riffles",):
        return Need(test, defect, None, "not planned for this defect")
    if test == "rising-sequences":
        mu0, var0 = (n + 1) / 2, (n + 1) / 12
        if model.cut == 0.5:
            mu1, var1 = riffle_rising_moments(n, model.riffles)
            how = "normal, exact law of riffle passes (Bayer-Diaconis)"
            return sum_power(mu0, sqrt(var0), mu1, sqrt(max(var1, 0.0)), alpha, "lower", how).need(
                test, defect, target)
        return _simulated_need(test, defect, model, n, "rising", mu0, sqrt(var0), alpha, "lower", target)
    if test == "adjacent-pairs":
        mu0, var0 = successions_moments(n)
        return _simulated_need(test, defect, model, n, "successions", mu0, sqrt(var0), alpha, "upper", target)
    return Need(test, defect, None, "not planned for this defect")


# -- shoes and mystery awards --------------------------------------------------------------------------

def correlation_need(test: str, rho: float, cards: int, alpha: float, target: float, defect: str) -> Need:
    """Runs or serial correlation on shoes of ``cards`` cards against a lag-1 correlation ``rho``:
    each shoe adds about ``cards`` pairs, and the standardised sum shifts by rho sqrt(pairs)."""
    fn = sum_power(0.0, 1.0, rho * sqrt(cards), 1.0, alpha, "two-sided",
                   "normal, lag-1 correlation of the declared size")
    return fn.need(test, defect, target)


def rank_position_need(w: float, cards: int, values: int, bins: int, alpha: float, target: float,
                       defect: str) -> Need:
    """The rank x position table against an effect of Cohen's ``w`` per card."""
    fn = chi2_power(cards * w * w, (values - 1) * (bins - 1), alpha,
                    "noncentral chi-square, effect w per card")
    return fn.need("card-position", defect, target)


def ks_need(distance: float, alpha: float, target: float, defect: str) -> Need:
    return ks_power(distance, alpha).need("kolmogorov-smirnov", defect, target)


def trigger_law_sampler(law: str, span: int) -> tuple[SampleFn, int, str]:
    """The probability-integral values of the triggers a defective controller draws, against the
    uniform law on the ``span + 1`` whole-cent amounts of [reseed, must-hit-by] (mid-point of each
    amount's step of the CDF), with the simulated samples it needs and its description."""
    width = span + 1

    def constant(value: float) -> SampleFn:
        return lambda rng, reps, m: np.full((1, m), value)

    if law == "at-must-hit-by":
        return constant((span + 0.5) / width), 1, "every trigger at must-hit-by"
    if law == "reseed-plus-one":
        return constant(1.5 / width), 1, "every trigger at the reseed plus one cent"
    if law == "lower-half":
        half = span // 2

        def lower(rng: np.random.Generator, reps: int, m: int) -> np.ndarray:
            return (rng.integers(0, half + 1, size=(reps, m)) + 0.5) / width

        return lower, 20_000, "every trigger uniform in the lower half of [reseed, must-hit-by]"
    raise ValueError(f"unknown trigger law {law!r}")


def trigger_law_need(law: str, span: int, alpha: float, target: float, defect: str) -> Need:
    """What the KS test needs to see a controller drawing its triggers by ``law`` (``span``: must-hit-by
    minus reseed, cents)."""
    sample, reps, _ = trigger_law_sampler(law, span)
    how = ("exact: the statistic is fixed" if reps == 1 else
           f"KS statistic of simulated awards ({reps} seeded samples per size), exact null law")
    return law_power(sample, alpha, reps, how).need("kolmogorov-smirnov", defect, target)


def dkw_floor(distance: float, alpha: float, beta: float) -> int:
    """The closed form the KS plan approaches for large samples (for the docs)."""
    c_alpha = float(sps.kstwobign.isf(alpha))
    return ceil(((c_alpha + sqrt(log(2 / beta) / 2)) / distance) ** 2)
