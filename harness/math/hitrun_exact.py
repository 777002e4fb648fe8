"""Exact distribution of the blackjack dealer's final hand, and the Hit and Run wager's return.

The Hit and Run wager (58 Pa. Code 633a.13(l)(1) as amended in 2012) pays on the number of cards
in the dealer's final hand, so its math is the distribution of that number.  The dealer draws
from a finite shoe without replacement, so each draw depends on what was drawn before; a hand's
state (hard total, whether it holds an ace, number of cards) is fixed by the multiset of cards
drawn, i.e. by the remaining composition *by blackjack value* (ace, 2..9, ten-value).  The
recursion is memoised on that composition and counts ordered draw sequences in exact integers:
a final hand of ``n`` cards is one of ``N·(N-1)···(N-n+1)`` equally likely ordered draws.

Model (the published dealer-hand card-count calculator check): the dealer's cards come from a full shoe (no
player cards removed), a two-card 21 is a blackjack, and the dealer always completes the hand
(``hr-dealer-completes``).  A busted hand counts by its cards (``hr-bust-counts``), which a
profile may override for the return figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import cache

from harness.cards import Card
from harness.errors import InputError
from harness.games.blackjack import CATEGORIES, DEFAULT_METER, dealer_hand, dealer_hits, hit_and_run_paytable
from harness.games.interpretations import DEFAULT, Interpretations
from harness.games.payouts import Pay, settle
from harness.money import Cents

BUST = 22  #: every total over 21 is recorded as 22


def falling(n: int, k: int) -> int:
    """``n·(n-1)···(n-k+1)``: ordered draws of ``k`` cards from ``n``."""
    out = 1
    for i in range(k):
        out *= n - i
    return out


@dataclass(frozen=True, slots=True)
class DealerDistribution:
    """Final dealer hands by (number of cards, total); ``total`` 22 means bust.

    ``counts[(n, t)]`` is the number of ordered ``n``-card draws from the shoe that end there;
    the probability is ``counts / falling(shoe_size, n)``.  ``max_cards`` is the longest possible
    final hand, and :meth:`common_count` rescales every count to ordered ``max_cards``-card deals
    so that all outcomes share one denominator (:attr:`total`).
    """

    decks: int
    hit_soft17: bool
    shoe_size: int
    counts: Mapping[tuple[int, int], int]

    @property
    def max_cards(self) -> int:
        return max(n for n, _ in self.counts)

    @property
    def total(self) -> int:
        """Ordered ``max_cards``-card deals from the shoe: the common denominator."""
        return falling(self.shoe_size, self.max_cards)

    def common_count(self, n: int, t: int) -> int:
        c = self.counts.get((n, t), 0)
        return c * falling(self.shoe_size - n, self.max_cards - n)

    def probability(self, n: int, t: int) -> Fraction:
        return Fraction(self.counts.get((n, t), 0), falling(self.shoe_size, n))

    def by_cards(self, *, bust: bool | None = None, cap: int = 8) -> dict[int, Fraction]:
        """P(final hand has ``n`` cards) with ``n >= cap`` merged into ``cap``; ``bust`` filters."""
        out: dict[int, Fraction] = {}
        for n, t in self.counts:
            if bust is not None and (t == BUST) != bust:
                continue
            key = min(n, cap)
            out[key] = out.get(key, Fraction(0)) + self.probability(n, t)
        return dict(sorted(out.items()))

    def blackjack(self) -> Fraction:
        return self.probability(2, 21)

    def category_counts(self, interpretations: Interpretations = DEFAULT) -> dict[str, int]:
        """Ordered ``max_cards``-card deals (over :attr:`total`) making each Hit and Run line."""
        out = dict.fromkeys(CATEGORIES, 0)
        for n, t in self.counts:
            if n == 2 and t == 21:
                out["blackjack"] += self.common_count(n, t)
            elif n >= 5 and (t != BUST or interpretations.hr_bust_counts):
                out["8-plus-cards" if n >= 8 else f"{n}-cards"] += self.common_count(n, t)
        return out

    def categories(self, interpretations: Interpretations = DEFAULT) -> dict[str, Fraction]:
        """P(each Hit and Run category), exact."""
        total = self.total
        return {k: Fraction(v, total) for k, v in self.category_counts(interpretations).items()}


@cache
def dealer_distribution(decks: int, hit_soft17: bool) -> DealerDistribution:
    """The exact final-hand distribution for a full ``decks``-deck shoe."""
    if isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= 16:
        raise InputError(f"decks {decks!r}: expected a whole number from 1 to 16")
    start = (4 * decks,) * 9 + (16 * decks,)
    memo: dict[tuple[int, ...], dict[tuple[int, int], int]] = {}

    def go(comp: tuple[int, ...], hard: int, ace: bool, n: int) -> dict[tuple[int, int], int]:
        soft = ace and hard <= 11
        total = hard + 10 if soft else hard
        if n == 2 and total == 21:
            return {(2, 21): 1}
        if n >= 2 and not dealer_hits(total, soft, hit_soft17=hit_soft17):
            return {(n, min(total, BUST)): 1}
        found = memo.get(comp)
        if found is not None:
            return found
        out: dict[tuple[int, int], int] = {}
        for v in range(10):
            c = comp[v]
            if not c:
                continue
            sub = go((*comp[:v], c - 1, *comp[v + 1 :]), hard + v + 1, ace or v == 0, n + 1)
            for key, cnt in sub.items():
                out[key] = out.get(key, 0) + c * cnt
        memo[comp] = out
        return out

    return DealerDistribution(decks, hit_soft17, sum(start), go(start, 0, False, 0))


@dataclass(frozen=True, slots=True)
class LineReturn:
    """One paytable line: its probability, the pay, what a winning wager returns (per unit
    stake, stake included when it is handed back) and the line's share of the wager's return."""

    category: str
    probability: Fraction
    pay: Pay
    returned_per_unit: Fraction
    contribution: Fraction


@dataclass(frozen=True, slots=True)
class HitAndRunReturn:
    stake: Cents
    meter: Cents
    lines: tuple[LineReturn, ...]

    @property
    def total_return(self) -> Fraction:
        """Expected amount handed back per unit staked (1 = a fair wager)."""
        return sum((line.contribution for line in self.lines), Fraction(0))

    @property
    def house_edge(self) -> Fraction:
        return 1 - self.total_return


def hit_and_run_return(
    decks: int,
    hit_soft17: bool,
    *,
    stake: Cents = 500,
    meter: Cents = DEFAULT_METER,
    paytable: Mapping[str, Pay] | None = None,
    interpretations: Interpretations = DEFAULT,
) -> HitAndRunReturn:
    """The wager's exact return per paytable line at a fixed meter amount.

    The meter line is valued at ``meter`` (default the figure of :data:`DEFAULT_METER`, since the
    regulation sets no reset); the meter's growth from the wagers themselves is not included.
    """
    if stake <= 0 or meter < 0:
        raise InputError(f"stake {stake} / meter {meter}: expected a positive stake and a meter >= 0")
    table = paytable if paytable is not None else hit_and_run_paytable()
    probs = dealer_distribution(decks, hit_soft17).categories(interpretations)
    lines = []
    for cat in CATEGORIES:
        pay = table[cat]
        returned = settle(pay, stake, meter, award_returns_stake=interpretations.award_returns_stake).returned
        per_unit = Fraction(returned, stake)
        lines.append(LineReturn(cat, probs[cat], pay, per_unit, probs[cat] * per_unit))
    return HitAndRunReturn(stake, meter, tuple(lines))


def as_percent(x: Fraction) -> Decimal:
    """A fraction as a percentage with ten decimals, for reports (never for money)."""
    return (Decimal(x.numerator) / Decimal(x.denominator) * 100).quantize(Decimal("1e-10"))


def oracle_walk(decks: int, hit_soft17: bool) -> dict[tuple[int, int], int]:
    """The same counts as :func:`dealer_distribution`, found the slow way: every ordered sequence
    of card values, weighted by how many shoe orderings produce it, handed card by card to the
    round oracle (:func:`~harness.games.blackjack.dealer_hand`) until it says the hand is complete.

    Independent of the memoised recursion above, so the tests check one against the other and the
    benchmark uses this as its baseline.  Keys are ``(cards in the hand, total capped at BUST)``."""
    reps = [Card(r, "S") for r in range(1, 11)]
    out: dict[tuple[int, int], int] = {}

    def walk(seq: list[Card], comp: list[int], weight: int) -> None:
        if len(seq) >= 2:
            try:
                hand = dealer_hand(seq, hit_soft17=hit_soft17)
            except InputError:
                pass  # the hand needs another card
            else:
                key = (hand.n_cards, min(hand.total, BUST))
                out[key] = out.get(key, 0) + weight
                return
        for v in range(10):
            if comp[v]:
                comp[v] -= 1
                walk([*seq, reps[v]], comp, weight * (comp[v] + 1))
                comp[v] += 1

    walk([], [4 * decks] * 9 + [16 * decks], 1)
    return out
