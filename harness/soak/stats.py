"""Hit frequencies and memory for the soak: observed counts against the exact math, RSS samples.

Why: a device can pay every round the oracle checks and still deal from a biased shoe or apply a
wrong tableau cell that random rounds rarely reach; over many rounds the observed frequencies then
drift from the exact probabilities (the exact math of harness.math; 629a Royal 9 paytables).  The laws
here come from the exact modules: Royal 9 categories per seat from
:func:`harness.math.royal9_exact.royal9_math`, baccarat outcomes from
:func:`harness.math.baccarat_exact.baccarat_counts`, and the number of cards in the Hit and Run
dealer's hand from :func:`harness.math.hitrun_exact.dealer_distribution` (633a.13(l)(1)).  The
soak draws every round from a freshly shuffled full shoe, so these laws apply exactly.

Pearson's test needs enough expected counts per bin; bins expected fewer than five times are
merged, smallest first, and the merged bin is named ``a+b``.  A category the math gives
probability zero that was nevertheless observed yields p = 0.  The statistic itself is
:func:`harness.progressive.invariants.chi_square_probabilities`.

Memory: the soak keeps counters only, and shows it: the resident set size is sampled every N
rounds (``/proc/<pid>/statm`` where there is one) and the peak comes from ``resource.getrusage``.
"""

from __future__ import annotations

import math
import os
import resource
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from harness.games.baccarat import BaccaratRound
from harness.games.royal9 import Royal9Table
from harness.math.baccarat_exact import baccarat_counts
from harness.math.hitrun_exact import dealer_distribution
from harness.math.royal9_exact import royal9_math
from harness.progressive.invariants import ChiSquare, chi_square_probabilities

#: a p-value below this fails the soak
ALPHA = 0.001
MIN_EXPECTED = 5.0
BACCARAT_BINS = ("player", "panda8", "banker", "dragon7", "tie")
DEALER_CAP = 8


@dataclass(frozen=True)
class FrequencyTest:
    """One chi-square test: the pooled bins, the statistic, and why there is none."""

    name: str
    rounds: int
    bins: tuple[str, ...]
    observed: tuple[int, ...]
    expected: tuple[float, ...]
    chi: ChiSquare | None
    note: str = ""

    @property
    def failed(self) -> bool:
        return self.chi is not None and self.chi.p_value < ALPHA

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "rounds": self.rounds, "bins": list(self.bins), "observed": list(self.observed),
            "expected": [round(e, 3) for e in self.expected],
            "statistic": None if self.chi is None else self.chi.statistic,
            "dof": None if self.chi is None else self.chi.dof,
            "p_value": None if self.chi is None else self.chi.p_value,
            "failed": self.failed, "note": self.note,
        }


@dataclass
class Tally:
    """Observed counts of the bins of one law (aggregated: memory does not grow with rounds)."""

    name: str
    law: Mapping[str, Fraction]
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, key: str) -> None:
        self.counts[key] = self.counts.get(key, 0) + 1

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def test(self, min_expected: float = MIN_EXPECTED) -> FrequencyTest:
        return pooled_test(self.name, self.counts, self.law, min_expected)


def pooled_test(name: str, counts: Mapping[str, int], law: Mapping[str, Fraction],
                min_expected: float = MIN_EXPECTED) -> FrequencyTest:
    """Pearson's chi-square of ``counts`` against ``law``, rare bins merged (see module doc)."""
    n = sum(counts.values())
    impossible = sorted(k for k, c in counts.items() if c and law.get(k, 0) == 0)
    if impossible:
        dof = max(1, sum(1 for p in law.values() if p > 0))
        return FrequencyTest(name, n, tuple(impossible), tuple(counts[k] for k in impossible),
                             tuple(0.0 for _ in impossible), ChiSquare(math.inf, dof, 0.0),
                             f"observed {', '.join(impossible)}, which the exact math gives probability 0")
    if n == 0:
        return FrequencyTest(name, 0, (), (), (), None, "no rounds observed")
    bins: list[tuple[Fraction, tuple[str, ...]]] = sorted(
        ((Fraction(p), (k,)) for k, p in law.items() if p > 0), key=lambda b: b[0])
    while len(bins) > 1 and bins[0][0] * n < min_expected:
        (pa, ka), (pb, kb) = bins[0], bins[1]
        bins = sorted([*bins[2:], (pa + pb, ka + kb)], key=lambda b: b[0])
    labels = tuple(keys[0] if len(keys) == 1 else f"{keys[-1]}+{len(keys) - 1} rarer" for _, keys in bins)
    observed = tuple(sum(counts.get(k, 0) for k in keys) for _, keys in bins)
    expected = tuple(float(p * n) for p, _ in bins)
    if len(bins) < 2:
        return FrequencyTest(name, n, labels, observed, expected, None,
                             f"too few rounds for two bins of {min_expected:g} expected")
    chi = chi_square_probabilities(list(observed), [p for p, _ in bins])
    return FrequencyTest(name, n, labels, observed, expected, chi)


# -- the exact laws ------------------------------------------------------------------------------

def royal9_laws(table: Royal9Table, decks: int, seats: Iterable[int]) -> dict[int, dict[str, Fraction]]:
    """Per wagering seat: P(the wager's highest award is each category, or ``lose``)."""
    m = royal9_math(table, decks=decks, wagers=seats)
    return {s.seat: {cat: Fraction(c, m.total) for cat, c in s.counts.items()} for s in m.seats}


def baccarat_law(decks: int) -> dict[str, Fraction]:
    """P(player without a Panda 8, Panda 8, banker without a Dragon 7, Dragon 7, tie)."""
    c = baccarat_counts(decks)
    t = c.total
    return {"player": Fraction(c.player - c.panda8, t), "panda8": Fraction(c.panda8, t),
            "banker": Fraction(c.banker - c.dragon7, t), "dragon7": Fraction(c.dragon7, t),
            "tie": Fraction(c.tie, t)}


def baccarat_bin(rnd: BaccaratRound) -> str:
    if rnd.winner == "tie":
        return "tie"
    if rnd.winner == "banker":
        return "dragon7" if rnd.dragon7 else "banker"
    return "panda8" if rnd.panda8 else "player"


def dealer_cards_bin(n_cards: int) -> str:
    return f"{DEALER_CAP}+" if n_cards >= DEALER_CAP else str(n_cards)


def dealer_cards_law(decks: int, hit_soft17: bool) -> dict[str, Fraction]:
    """P(the dealer's final hand holds n cards), eight or more merged (the Hit and Run meter line)."""
    dist = dealer_distribution(decks, hit_soft17)
    return {dealer_cards_bin(n): p for n, p in dist.by_cards(cap=DEALER_CAP).items()}


def dealer_max_cards(decks: int, hit_soft17: bool) -> int:
    """The longest possible dealer hand: the soak loads this many cards so every hand completes."""
    return dealer_distribution(decks, hit_soft17).max_cards


# -- memory --------------------------------------------------------------------------------------

def rss_kib(pid: int | None = None) -> int | None:
    """Current resident set size of ``pid`` (default: this process) in KiB; None where unknown."""
    path = f"/proc/{'self' if pid is None else pid}/statm"
    try:
        with open(path, encoding="ascii") as fh:
            pages = int(fh.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


def peak_rss_kib() -> int:
    """Peak resident set size of this process (``ru_maxrss``: KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


@dataclass
class RssTrack:
    """First, last and largest of the samples taken (a counter, not a history)."""

    first: int | None = None
    #: the second sample: the first one after the warm-up (buffers and caches filled)
    second: int | None = None
    last: int | None = None
    max: int | None = None
    samples: int = 0

    def add(self, kib: int | None) -> None:
        if kib is None:
            return
        if self.first is None:
            self.first = kib
        elif self.second is None:
            self.second = kib
        self.last = kib
        self.max = kib if self.max is None else max(self.max, kib)
        self.samples += 1

    @property
    def growth(self) -> int | None:
        return None if self.first is None or self.last is None else self.last - self.first

    @property
    def steady_growth(self) -> int | None:
        """Growth from the second sample to the last: what a leak would show."""
        return None if self.second is None or self.last is None else self.last - self.second

    def to_dict(self) -> dict[str, Any]:
        return {"first_kib": self.first, "second_kib": self.second, "last_kib": self.last, "max_kib": self.max,
                "samples": self.samples, "growth_kib": self.growth, "steady_growth_kib": self.steady_growth}
