"""The statistical tests, each with its null hypothesis stated where it is computed.

Every test returns a :class:`TestResult`: the statistic, its p-value, the number of observations,
the null hypothesis in words and a histogram of what was observed against what the null expects
(:mod:`harness.randomness.svg` draws it).  The level a test is judged at is not decided here: the
battery applies the jurisdiction's level and corrects it for the number of tests run together
(:mod:`harness.randomness.battery`).

Conventions: a shuffle is a permutation ``pos`` with ``pos[j]`` = the position after the shuffle
of the card that was at position ``j`` before it (0 = top).  A batch of shuffles is an integer
array of shape ``(m, n)``.  Card sequences from a shoe are arrays of small integers (rank or
baccarat value), one row per shoe.

Sources: Pearson's chi-square and pooling of small cells (Cochran 1954: no expected count below
5); Wald and Wolfowitz (1940) runs and (1943) serial-correlation tests with their exact
permutation moments; Bayer and Diaconis (1992) rising sequences of riffle shuffles; the
successions of a random permutation (OEIS A000255); Kolmogorov-Smirnov one-sample test.  These are
the tests West Virginia Code 29-22B-909 names (chi-square, runs, correlation, serial correlation)
and GLI-29 applies to card shufflers and dealer shoes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from math import comb, factorial

import numpy as np
from scipy import stats as sps

#: smallest expected count a chi-square cell may have; smaller cells are pooled with a neighbour
MIN_EXPECTED = 5.0


@dataclass(frozen=True)
class Histogram:
    """Observed counts against expected counts, bin by bin, with a label per bin."""

    title: str
    labels: tuple[str, ...]
    observed: tuple[float, ...]
    expected: tuple[float, ...]
    unit: str = "count"


@dataclass(frozen=True)
class TestResult:
    """One test as run: what it tested, the statistic, the p-value and what it was run on."""

    name: str
    null: str
    statistic: float
    p_value: float
    n: int
    unit: str
    df: int | None = None
    detail: str = ""
    histogram: Histogram | None = None
    #: one-sided tests say which side rejects ("lower", "upper"), two-sided ones "two-sided"
    side: str = "two-sided"
    extra: dict[str, float] = field(default_factory=dict)


# -- chi-square with pooled cells ---------------------------------------------------------------

def pool_cells(observed: np.ndarray, expected: np.ndarray,
               min_expected: float = MIN_EXPECTED) -> tuple[np.ndarray, np.ndarray]:
    """Merge adjacent cells (left to right, the last short run into its left neighbour) until every
    expected count is at least ``min_expected``; returns the pooled observed and expected counts."""
    obs_out: list[float] = []
    exp_out: list[float] = []
    o_acc = e_acc = 0.0
    for o, e in zip(observed.tolist(), expected.tolist(), strict=True):
        o_acc += o
        e_acc += e
        if e_acc >= min_expected:
            obs_out.append(o_acc)
            exp_out.append(e_acc)
            o_acc = e_acc = 0.0
    if e_acc > 0 or o_acc > 0:
        if obs_out:
            obs_out[-1] += o_acc
            exp_out[-1] += e_acc
        else:
            obs_out.append(o_acc)
            exp_out.append(e_acc)
    return np.asarray(obs_out, dtype=float), np.asarray(exp_out, dtype=float)


def chi_square_gof(observed: np.ndarray, probabilities: np.ndarray, *, name: str = "chi-square",
                   null: str = "", labels: tuple[str, ...] = (), unit: str = "observations") -> TestResult:
    """Pearson's goodness of fit of ``observed`` counts to ``probabilities``, small cells pooled.

    H0: the observations are independent draws from ``probabilities``."""
    obs = np.asarray(observed, dtype=float)
    probs = np.asarray(probabilities, dtype=float)
    n = round(float(obs.sum()))
    expected = probs / probs.sum() * n
    po, pe = pool_cells(obs, expected)
    df = len(po) - 1
    if df < 1 or n == 0:
        stat, p = 0.0, 1.0
    else:
        stat = float(((po - pe) ** 2 / pe).sum())
        p = float(sps.chi2.sf(stat, df))
    labels = labels or tuple(str(i) for i in range(len(obs)))
    return TestResult(name, null or "the observations follow the declared distribution", stat, p, n, unit, df,
                      f"{len(obs)} cells, {len(po)} after pooling expected counts below {MIN_EXPECTED:g}",
                      Histogram(name, labels, tuple(obs.tolist()), tuple(expected.tolist())))


# -- Kolmogorov-Smirnov -------------------------------------------------------------------------

def ks_uniform(values: np.ndarray, low: float, high: float, *, name: str = "kolmogorov-smirnov",
               null: str = "", bins: int = 10, unit: str = "observations") -> TestResult:
    """One-sample Kolmogorov-Smirnov test of ``values`` against the uniform law on ``[low, high]``.

    H0: the values are independent draws, uniform on [low, high].  Whole-cent amounts are a
    discrete law with tens of thousands of points: the continuous test is then slightly
    conservative (its false-alarm rate is at most the stated level)."""
    x = (np.asarray(values, dtype=float) - low) / (high - low)
    n = len(x)
    if n == 0:
        return TestResult(name, null, 0.0, 1.0, 0, unit, None, "no observations")
    res = sps.kstest(x, "uniform")
    counts, _ = np.histogram(np.clip(x, 0, 1), bins=bins, range=(0.0, 1.0))
    labels = tuple(f"{k * 100 // bins}-{(k + 1) * 100 // bins}%" for k in range(bins))
    return TestResult(name, null or f"the values are uniform on [{low:g}, {high:g}]", float(res.statistic),
                      float(res.pvalue), n, unit, None, f"sup |F_n - F| over {n} values",
                      Histogram(f"{name} (share of the range)", labels, tuple(counts.astype(float).tolist()),
                                tuple([n / bins] * bins)))


# -- runs and serial correlation on card sequences ------------------------------------------------

def runs_test(sequences: np.ndarray, *, name: str = "runs", unit: str = "shoes") -> TestResult:
    """Wald-Wolfowitz runs test on each row's 0/1 sequence, summed over rows (two-sided).

    H0: within each shoe, the order of the 0s and 1s (e.g. red and black cards) is a uniformly
    random arrangement.  The exact permutation mean and variance of the number of runs given the
    counts of each kind are summed over the independent shoes, and the total is referred to the
    normal law."""
    x = np.asarray(sequences, dtype=np.int8)
    if x.ndim != 2 or x.shape[1] < 2:
        return TestResult(name, "", 0.0, 1.0, 0, unit, None, "no sequence of two or more cards")
    n1 = x.sum(axis=1).astype(float)
    total = float(x.shape[1])
    n0 = total - n1
    runs = 1 + (x[:, 1:] != x[:, :-1]).sum(axis=1)
    mean = 2 * n0 * n1 / total + 1
    var = 2 * n0 * n1 * (2 * n0 * n1 - total) / (total ** 2 * (total - 1))
    z = float((runs.sum() - mean.sum()) / np.sqrt(max(var.sum(), 1e-300)))
    p = float(2 * sps.norm.sf(abs(z)))
    return TestResult(name, "the two kinds of card are in random order within each shoe (Wald-Wolfowitz)", z, p,
                      x.shape[0], unit, None,
                      f"{int(runs.sum())} runs, {mean.sum():.1f} expected; z = {z:.3f}",
                      _z_histogram(name, runs.astype(float), mean, var), "two-sided",
                      {"runs": float(runs.sum()), "expected": float(mean.sum())})


def serial_correlation(sequences: np.ndarray, *, name: str = "serial-correlation",
                       unit: str = "shoes") -> TestResult:
    """Wald-Wolfowitz serial correlation test of lag 1 (circular), summed over rows (two-sided).

    H0: within each shoe the values are in uniformly random order, so a card's value says nothing
    about the next card's.  R = sum x_i x_{i+1} (circular) has exact permutation moments given the
    row's values (Wald and Wolfowitz 1943); the summed, standardised R is referred to the normal
    law.  The lag-1 correlation coefficient is reported alongside."""
    x = np.asarray(sequences, dtype=float)
    if x.ndim != 2 or x.shape[1] < 4:
        return TestResult(name, "", 0.0, 1.0, 0, unit, None, "no sequence of four or more cards")
    n = float(x.shape[1])
    r = (x * np.roll(x, -1, axis=1)).sum(axis=1)
    s1 = x.sum(axis=1)
    s2 = (x ** 2).sum(axis=1)
    s3 = (x ** 3).sum(axis=1)
    s4 = (x ** 4).sum(axis=1)
    mean = (s1 ** 2 - s2) / (n - 1)
    var = ((s2 ** 2 - s4) / (n - 1) + (s1 ** 4 - 4 * s1 ** 2 * s2 + 4 * s1 * s3 + s2 ** 2 - 2 * s4)
           / ((n - 1) * (n - 2)) - mean ** 2)
    z = float((r.sum() - mean.sum()) / np.sqrt(max(var.sum(), 1e-300)))
    p = float(2 * sps.norm.sf(abs(z)))
    centred = x - x.mean(axis=1, keepdims=True)
    num = (centred * np.roll(centred, -1, axis=1)).sum()
    den = (centred ** 2).sum()
    rho = float(num / den) if den > 0 else 0.0
    return TestResult(name, "a card's value is independent of the next card's within each shoe "
                            "(Wald-Wolfowitz serial correlation, lag 1)", z, p, x.shape[0], unit, None,
                      f"lag-1 correlation {rho:+.4f}; z = {z:.3f}", _z_histogram(name, r, mean, var),
                      "two-sided", {"rho": rho})


def _z_histogram(name: str, values: np.ndarray, mean: np.ndarray, var: np.ndarray, bins: int = 8) -> Histogram:
    """Per-row standardised scores against the standard normal, in ``bins`` bins over [-4, 4]."""
    z = (values - mean) / np.sqrt(np.maximum(var, 1e-300))
    edges = np.linspace(-4, 4, bins + 1)
    counts, _ = np.histogram(np.clip(z, -3.999, 3.999), bins=edges)
    probs = np.diff(sps.norm.cdf(edges))
    probs[0] += sps.norm.cdf(-4)
    probs[-1] += sps.norm.sf(4)
    labels = tuple(f"{edges[k]:+g}..{edges[k + 1]:+g}" for k in range(bins))
    return Histogram(f"{name}: per-row z", labels, tuple(counts.astype(float).tolist()),
                     tuple((probs * len(z)).tolist()))


# -- card positions -------------------------------------------------------------------------------

def position_bins(n: int, bins: int) -> np.ndarray:
    """Bin index of each of ``n`` positions, ``bins`` bins as equal as whole positions allow."""
    return (np.arange(n) * bins) // n


def card_positions(pos: np.ndarray, *, bins: int = 10, name: str = "card-position",
                   unit: str = "shuffles") -> TestResult:
    """For every position before the shuffle, the chi-square of where that card went (in ``bins``
    bins of positions after it); the test's p-value is the smallest row's, Bonferroni-corrected
    over the rows.

    H0: every card is equally likely to end at every position, whatever position it started at.
    The histogram shows the row with the smallest p-value."""
    pos = np.asarray(pos)
    m, n = pos.shape
    bins = min(bins, n)
    of = position_bins(n, bins)
    b = of[pos]  # (m, n): bin each card went to
    # counts[j, k]: shuffles that took the card from position j into bin k
    counts = np.bincount((np.arange(n) * bins + b).ravel(), minlength=n * bins).reshape(n, bins).astype(float)
    probs = np.bincount(of, minlength=bins) / n
    expected = probs * m
    if m == 0:
        return TestResult(name, "", 0.0, 1.0, 0, unit, bins - 1, "no shuffles")
    stats_rows = ((counts - expected) ** 2 / expected).sum(axis=1)
    if expected.min() < MIN_EXPECTED:
        return _card_positions_pooled(counts, probs, m, n, bins, name, unit)
    p_rows = sps.chi2.sf(stats_rows, bins - 1)
    worst = int(np.argmin(p_rows))
    p = float(min(1.0, p_rows[worst] * n))
    labels = tuple(f"bin {k + 1}" for k in range(bins))
    return TestResult(name, "each card is equally likely to end in every part of the pack, whatever its "
                            "position before the shuffle", float(stats_rows[worst]), p, m, unit, bins - 1,
                      f"{n} starting positions x {bins} bins of final position; worst: the card from position "
                      f"{worst + 1} (p {p_rows[worst]:.3g} before correction over {n} positions)",
                      Histogram(f"{name}: card from position {worst + 1}", labels,
                                tuple(counts[worst].tolist()), tuple(expected.tolist())),
                      "two-sided", {"worst_row": float(worst)})


def _card_positions_pooled(counts: np.ndarray, probs: np.ndarray, m: int, n: int, bins: int, name: str,
                           unit: str) -> TestResult:
    """Too few shuffles for ``bins`` bins: each row's chi-square with its cells pooled."""
    best_p, best_row, best = 1.0, 0, None
    for j in range(n):
        res = chi_square_gof(counts[j], probs)
        if res.p_value < best_p or best is None:
            best_p, best_row, best = res.p_value, j, res
    assert best is not None
    return TestResult(name, "each card is equally likely to end in every part of the pack, whatever its "
                            "position before the shuffle", best.statistic, min(1.0, best_p * n), m, unit, best.df,
                      f"{n} starting positions, cells pooled (fewer than {MIN_EXPECTED:g} expected per bin); "
                      f"worst: position {best_row + 1}", best.histogram, "two-sided", {"worst_row": float(best_row)})


def rank_positions(sequences: np.ndarray, *, bins: int = 8, name: str = "card-position",
                   unit: str = "shoes") -> TestResult:
    """Each rank's distribution over the shoe's positions (cards read from a shoe), as a
    rank x position-bin contingency table summed over shoes.

    H0: the shoe's order is uniformly random, so every rank is spread over the shoe's positions in
    proportion to their number (chi-square test of independence, (ranks-1)(bins-1) degrees of
    freedom)."""
    x = np.asarray(sequences)
    m, n = x.shape
    values = np.unique(x)
    of = position_bins(n, bins)
    table = np.zeros((len(values), bins))
    for i, v in enumerate(values):
        hit = x == v
        for k in range(bins):
            table[i, k] = hit[:, of == k].sum()
    rows = table.sum(axis=1, keepdims=True)
    cols = table.sum(axis=0, keepdims=True)
    expected = rows @ cols / table.sum()
    stat = float(((table - expected) ** 2 / expected).sum())
    df = (len(values) - 1) * (bins - 1)
    p = float(sps.chi2.sf(stat, df))
    per_bin = ((table - expected) ** 2 / expected).sum(axis=0)
    labels = tuple(f"bin {k + 1}" for k in range(bins))
    worst = int(np.argmax(((table - expected) ** 2 / expected).sum(axis=1)))
    return TestResult(name, "every rank is spread over the shoe's positions in proportion to their number",
                      stat, p, m, unit, df, f"{len(values)} card values x {bins} bins of shoe position; "
                      f"largest contribution: value {values[worst]} ({per_bin.max():.1f} in one bin)",
                      Histogram(f"{name}: value {values[worst]} by shoe position", labels,
                                tuple(table[worst].tolist()), tuple(expected[worst].tolist())))


# -- correlation of positions before and after -------------------------------------------------

def spearman_rows(pos: np.ndarray) -> np.ndarray:
    """Per shuffle, Spearman's rank correlation between each card's position before and after."""
    pos = np.asarray(pos, dtype=float)
    n = pos.shape[1]
    d = pos - np.arange(n)
    return 1 - 6 * (d * d).sum(axis=1) / (n * (n * n - 1.0))


def position_correlation(pos: np.ndarray, *, name: str = "position-correlation",
                         unit: str = "shuffles") -> TestResult:
    """Correlation between where the cards were before the shuffle and where they are after it
    (two-sided; the "correlation" test of W. Va. Code 29-22B-909).

    H0: the shuffle is uniform, so each shuffle's Spearman correlation has mean 0 and variance
    1 / (n - 1) exactly (the moments of Spearman's rho over all n! permutations); the sum over the
    shuffles, standardised, is referred to the normal law."""
    pos = np.asarray(pos)
    m, n = pos.shape
    if m == 0 or n < 3:
        return TestResult(name, "", 0.0, 1.0, 0, unit, None, "no shuffle of three or more cards")
    rho = spearman_rows(pos)
    var = 1.0 / (n - 1)
    z = float(rho.sum() / np.sqrt(m * var))
    p = float(2 * sps.norm.sf(abs(z)))
    return TestResult(name, "a card's position after the shuffle is uncorrelated with its position before it "
                            "(Spearman)", z, p, m, unit, None,
                      f"mean Spearman correlation {rho.mean():+.5f} over {m} shuffles; z = {z:.3f}",
                      _z_histogram(name, rho, np.zeros(m), np.full(m, var)), "two-sided",
                      {"rho": float(rho.mean())})


# -- adjacent pairs (successions) -----------------------------------------------------------------

@lru_cache(maxsize=32)
def successions_pmf(n: int, kmax: int = 40) -> tuple[float, ...]:
    """P(k pairs of cards adjacent before a uniform shuffle are adjacent, in order, after it),
    k = 0..kmax: C(n-1, k) d(n-k) / n!, with d(m) the permutations of m with no succession
    (d(m) = (m-1) d(m-1) + (m-2) d(m-2); OEIS A000255)."""
    d = [0, 1, 1]
    for k in range(3, n + 1):
        d.append((k - 1) * d[k - 1] + (k - 2) * d[k - 2])
    total = factorial(n)
    return tuple(comb(n - 1, k) * d[n - k] / total if k < n else 0.0 for k in range(min(kmax, n - 1) + 1))


def _convolve_power(pmf: np.ndarray, m: int, cap: int) -> np.ndarray:
    """The pmf of the sum of ``m`` independent draws of ``pmf`` (support truncated at ``cap``)."""
    out = np.array([1.0])
    base = pmf.copy()
    while m:
        if m & 1:
            out = np.convolve(out, base)[:cap]
        m >>= 1
        if m:
            base = np.convolve(base, base)[:cap]
    return out


def successions(pos: np.ndarray) -> np.ndarray:
    """Per shuffle, how many cards still follow, directly and in order, the card they followed."""
    pos = np.asarray(pos)
    return (pos[:, 1:] == pos[:, :-1] + 1).sum(axis=1)


def adjacent_pairs(pos: np.ndarray, *, name: str = "adjacent-pairs", unit: str = "shuffles") -> TestResult:
    """How often a card follows, directly, the card it followed before the shuffle (upper tail).

    H0: the shuffle is uniform, so each shuffle's count of such pairs has the exact law of the
    successions of a random permutation (mean (n-1)/n, close to Poisson(1)); the total over the
    shuffles is referred to that law convolved over the shuffles."""
    pos = np.asarray(pos)
    m, n = pos.shape
    counts = successions(pos)
    total = int(counts.sum())
    pmf = np.asarray(successions_pmf(n))
    cap = max(total + 2, int(4 * m + 60))
    law = _convolve_power(pmf, m, cap)
    p = float(min(1.0, max(0.0, 1.0 - law[:total].sum()))) if total < len(law) else 0.0
    kmax = 6
    obs = np.bincount(np.minimum(counts, kmax), minlength=kmax + 1).astype(float)
    exp = np.concatenate([pmf[:kmax], [max(0.0, 1 - pmf[:kmax].sum())]]) * m
    labels = (*[str(k) for k in range(kmax)], f"{kmax}+")
    return TestResult(name, "no card is more likely than chance to follow, directly, the card it followed "
                            "before the shuffle", float(total), p, m, unit, None,
                      f"{total} pairs kept over {m} shuffles; {m * (n - 1) / n:.1f} expected",
                      Histogram(f"{name}: pairs kept per shuffle", labels, tuple(obs.tolist()), tuple(exp.tolist())),
                      "upper", {"expected": m * (n - 1) / n})


# -- rising sequences -----------------------------------------------------------------------------

def rising_sequences(pos: np.ndarray) -> np.ndarray:
    """Per shuffle, the number of rising sequences of the result (Bayer and Diaconis): 1 plus the
    number of cards that come out before the card that was directly above them."""
    pos = np.asarray(pos)
    return 1 + (pos[:, 1:] < pos[:, :-1]).sum(axis=1)


def rising_sequence_test(pos: np.ndarray, *, name: str = "rising-sequences", unit: str = "shuffles") -> TestResult:
    """Too few rising sequences is the residue of riffle shuffling (lower tail).

    H0: the shuffle is uniform, so the rising sequences number 1 + an Eulerian count, mean
    (n+1)/2, variance (n+1)/12 per shuffle; the total over the shuffles is referred to the normal
    law (the Eulerian law is close to normal for a pack of 52 and more)."""
    pos = np.asarray(pos)
    m, n = pos.shape
    r = rising_sequences(pos)
    mean, var = (n + 1) / 2, (n + 1) / 12
    z = float((r.sum() - m * mean) / np.sqrt(m * var))
    p = float(sps.norm.cdf(z))
    return TestResult(name, "the shuffle leaves no more rising sequences of the previous order than chance "
                            "(no riffle residue)", z, p, m, unit, None,
                      f"mean {r.mean():.2f} rising sequences per shuffle, {mean:.2f} expected; z = {z:.3f}",
                      _z_histogram(name, r.astype(float), np.full(m, mean), np.full(m, var)), "lower",
                      {"mean": float(r.mean()), "expected": mean})


# -- repeated shuffles (short period) -------------------------------------------------------------

def repeated_shuffles(pos: np.ndarray, *, name: str = "repeated-shuffles", unit: str = "shuffles") -> TestResult:
    """Two shuffles that moved every card alike betray a generator that repeats (a short period).

    H0: shuffles are independent and uniform, so among m shuffles of n cards a repeat has
    probability at most C(m, 2) / n! (the p-value given when one is seen; 1 otherwise)."""
    pos = np.asarray(pos)
    m, n = pos.shape
    rows = np.ascontiguousarray(pos, dtype=np.int64)
    repeats = m - len({row.tobytes() for row in rows})
    bound = comb(m, 2) / factorial(n) if repeats else 1.0
    p = float(bound)
    return TestResult(name, "no two shuffles are the same permutation", float(repeats), p, m, unit, None,
                      f"{repeats} shuffle(s) repeating an earlier one among {m}", None, "upper",
                      {"repeats": float(repeats)})
