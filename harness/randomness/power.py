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
* **Kolmogorov-Smirnov**: a guarantee for *every* law at sup-distance ``d`` from the declared one,
  from the Dvoretzky-Kiefer-Wolfowitz inequality with Massart's constant:
  ``P(sup |F_m - F| > e) <= 2 exp(-2 m e^2)``.
* **repeated shuffles**: a generator that repeats every ``T`` shuffles repeats within ``T + 1``
  (power 1).
"""

from __future__ import annotations

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
MAX_N = 10_000_000


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
    values = stats.rising_sequences(pos) if statistic == "rising" else stats.successions(pos)
    return float(values.mean()), float(values.var(ddof=1))


def stuck_cell_probabilities(n: int, bins: int, probability: float, span: int) -> np.ndarray:
    """Where the stuck card ends, by position bin: exact."""
    of = stats.position_bins(n, bins)
    p = np.bincount(of, minlength=bins) / n * (1 - probability)
    p += np.bincount(of[n - span:], minlength=bins) / span * probability
    return p


# -- the shuffler battery's planning -------------------------------------------------------------------

SHUFFLE_TESTS = ("card-position", "adjacent-pairs", "rising-sequences", "repeated-shuffles")


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
    if model.kind not in ("riffles",):
        return Need(test, defect, None, "not planned for this defect")
    if test == "rising-sequences":
        mu0, var0 = (n + 1) / 2, (n + 1) / 12
        if model.cut == 0.5:
            mu1, var1 = riffle_rising_moments(n, model.riffles)
            how = "normal, exact law of riffle passes (Bayer-Diaconis)"
        else:
            mu1, var1 = simulated_moments(model, n, "rising")
            how = f"normal, defect moments simulated ({SIMULATED} seeded shuffles)"
        return sum_power(mu0, sqrt(var0), mu1, sqrt(max(var1, 0.0)), alpha, "lower", how).need(test, defect, target)
    if test == "adjacent-pairs":
        mu0, var0 = successions_moments(n)
        mu1, var1 = simulated_moments(model, n, "successions")
        how = f"normal, defect moments simulated ({SIMULATED} seeded shuffles)"
        return sum_power(mu0, sqrt(var0), mu1, sqrt(max(var1, 0.0)), alpha, "upper", how).need(test, defect, target)
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


def dkw_floor(distance: float, alpha: float, beta: float) -> int:
    """The closed form the KS plan approaches for large samples (for the docs)."""
    c_alpha = float(sps.kstwobign.isf(alpha))
    return ceil(((c_alpha + sqrt(log(2 / beta) / 2)) / distance) ** 2)
