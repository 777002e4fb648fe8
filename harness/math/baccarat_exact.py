"""Exact punto banco and EZ Baccarat probabilities for an N-deck shoe, as integer counts.

The sample space is every ordered sequence of six cards from a full shoe of ``52 * decks``
cards: ``416·415·414·413·412·411`` for eight decks, the denominator of the published
combinatorial analyses (Wizard of Odds, baccarat appendix).  A round that uses only four or
five cards still counts every way to fill the unused positions, so each outcome is an exact integer over that one total.

Why it is fast (well under a second for eight decks, where a card-by-card enumeration with
``Fraction`` takes about half a minute): only card *values* matter, so the shoe is ten value
classes (ten, jack, queen and king merge into value 0 with ``16 * decks`` cards).  The first four
cards are enumerated as an unordered Player pair and an unordered Banker pair, weighted by the
number of orderings and by the falling-factorial count of ways to draw those values.  Player's
third card is a loop over ten values; Banker's third card is never enumerated: given the other
five cards, the number of Banker third cards that win, tie or make a Dragon 7 is a sum of the
remaining counts of the few values that produce that total.  Only Python ints are used.

The tableau comes from :data:`harness.games.baccarat.BANKER_DRAWS`, the same table the round
oracle uses; the tests check the counts against the published eight-deck counts and against an independent
brute-force enumeration of a small shoe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from harness.errors import InputError
from harness.games.baccarat import BANKER_DRAWS, EVEN_MONEY, TIE_PAY, ez_paytable
from harness.games.payouts import Pay

OUTCOMES = ("banker", "player", "tie", "dragon7", "panda8", "natural")

#: unordered two-card value pairs with the number of orderings of each
_PAIRS: tuple[tuple[int, int, int], ...] = tuple(
    (a, c, 1 if a == c else 2) for a in range(10) for c in range(a, 10)
)
#: ``_WIN_B3[banker_two_card_total][player_final]``: Banker third-card values that win
_WIN_B3: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(x for x in range(10) if (bt + x) % 10 > pf) for pf in range(10)) for bt in range(10)
)


def _net_win(pay: Pay) -> Fraction:
    """Net win per unit staked for an odds payout (``X to 1`` -> X, ``X for 1`` -> X - 1)."""
    if pay.kind == "to":
        return Fraction(pay.value)
    if pay.kind == "for":
        return Fraction(pay.value) - 1
    raise ValueError(f"{pay.describe()}: not an odds payout")


@dataclass(frozen=True, slots=True)
class BaccaratCounts:
    """Integer counts of each outcome over all ordered six-card sequences of the shoe.

    ``natural`` counts rounds in which at least one hand has a natural.  ``banker + player + tie
    == total``; ``dragon7`` is part of ``banker`` and ``panda8`` part of ``player``.
    """

    decks: int | None  # None for a custom composition
    total: int
    banker: int
    player: int
    tie: int
    dragon7: int
    panda8: int
    natural: int

    def probability(self, outcome: str) -> Fraction:
        if outcome not in OUTCOMES:
            raise InputError(f"outcome {outcome!r}: expected one of {', '.join(OUTCOMES)}")
        return Fraction(getattr(self, outcome), self.total)

    def house_edges(self, commission: Decimal = Decimal(5)) -> dict[str, Fraction]:
        """House edge per unit staked, as exact fractions (positive favours the house).

        ``banker`` pays 1 to 1 less ``commission`` percent; ``tie`` pays 8 to 1 (Player and Banker
        push); ``dragon7`` and ``panda8`` use the EZ insurance odds; ``ez-banker`` pays 1 to 1 with
        no commission and pushes on a Dragon 7 (627a.2(b)(6)(ii) and peers).
        """
        t = self.total
        even = _net_win(EVEN_MONEY)
        keep = 1 - Fraction(commission) / 100
        ez = ez_paytable()
        d7 = _net_win(ez["dragon7"])
        p8 = _net_win(ez["panda8"])
        return {
            "player": (self.banker - even * self.player) / t,
            "banker": (self.player - even * keep * self.banker) / t,
            "tie": (self.banker + self.player - _net_win(TIE_PAY) * self.tie) / t,
            "dragon7": (t - self.dragon7 - d7 * self.dragon7) / t,
            "panda8": (t - self.panda8 - p8 * self.panda8) / t,
            "ez-banker": (self.player - even * (self.banker - self.dragon7)) / t,
        }

    def as_dict(self, commission: Decimal = Decimal(5)) -> dict[str, Any]:
        """A JSON-friendly view: counts, probabilities, house edges (float and exact ``n/d``)."""
        edges = self.house_edges(commission)
        return {
            "decks": self.decks,
            "total": self.total,
            "outcomes": {
                name: {
                    "count": getattr(self, name),
                    "total": self.total,
                    "probability": getattr(self, name) / self.total,
                }
                for name in OUTCOMES
            },
            "commission": str(commission),
            "house_edge": {k: float(v) for k, v in edges.items()},
            "house_edge_exact": {k: f"{v.numerator}/{v.denominator}" for k, v in edges.items()},
        }


def baccarat_counts(decks: int) -> BaccaratCounts:
    """Exact outcome counts for a full ``decks``-deck shoe (eight decks: the published table)."""
    if isinstance(decks, bool) or not isinstance(decks, int) or decks < 1:
        raise InputError(f"decks {decks!r}: a shoe holds at least one deck")
    return count_composition((16 * decks,) + (4 * decks,) * 9, decks=decks)


def count_composition(values: Sequence[int], *, decks: int | None = None) -> BaccaratCounts:
    """Exact counts for a shoe holding ``values[v]`` cards of baccarat value ``v`` (0-9)."""
    if len(values) != 10 or any(n < 0 for n in values):
        raise InputError("composition: expected ten non-negative counts, for values 0-9")
    n_cards = sum(values)
    if n_cards < 6:
        raise InputError(f"composition: a round may need 6 cards, the shoe holds {n_cards}")
    after5 = n_cards - 5
    tail4 = (n_cards - 4) * after5  # ways to fill positions 5-6 when the round used 4 cards
    banker = player = tie = dragon7 = panda8 = natural = 0
    r = list(values)
    for a, c, mult_p in _PAIRS:
        pt2 = (a + c) % 10
        wa = r[a]
        r[a] -= 1
        wc = r[c]
        r[c] -= 1
        w_p = mult_p * wa * wc
        if w_p:
            for b, d, mult_b in _PAIRS:
                wb = r[b]
                r[b] -= 1
                wd = r[d]
                r[d] -= 1
                w = w_p * mult_b * wb * wd
                if w:
                    bt2 = (b + d) % 10
                    on_natural = pt2 >= 8 or bt2 >= 8
                    if on_natural or (pt2 >= 6 and bt2 >= 6):
                        # a natural, or both hands stand on two cards
                        w *= tail4
                        if on_natural:
                            natural += w
                        if pt2 > bt2:
                            player += w
                        elif bt2 > pt2:
                            banker += w
                        else:
                            tie += w
                    elif pt2 >= 6:
                        # Player stands, Banker draws the fifth card.
                        w *= after5
                        n_win = sum(r[x] for x in _WIN_B3[bt2][pt2])
                        n_tie = r[(pt2 - bt2) % 10]
                        banker += w * n_win
                        tie += w * n_tie
                        player += w * (after5 + 1 - n_win - n_tie)
                        if pt2 == 6:
                            dragon7 += w * r[(7 - bt2) % 10]
                    else:
                        draws = BANKER_DRAWS[bt2]
                        for p3 in range(10):
                            w5 = w * r[p3]
                            if not w5:
                                continue
                            pf = (pt2 + p3) % 10
                            if draws[p3]:
                                r[p3] -= 1
                                n_win = sum(r[x] for x in _WIN_B3[bt2][pf])
                                n_tie = r[(pf - bt2) % 10]
                                banker += w5 * n_win
                                tie += w5 * n_tie
                                player += w5 * (after5 - n_win - n_tie)
                                if pf < 7:
                                    dragon7 += w5 * r[(7 - bt2) % 10]
                                elif pf == 8:
                                    panda8 += w5 * (after5 - r[(8 - bt2) % 10] - r[(9 - bt2) % 10])
                                r[p3] += 1
                            else:
                                w5 *= after5
                                if pf > bt2:
                                    player += w5
                                    if pf == 8:
                                        panda8 += w5
                                elif bt2 > pf:
                                    banker += w5
                                else:
                                    tie += w5
                r[b] += 1
                r[d] += 1
        r[a] += 1
        r[c] += 1
    total = 1
    for k in range(6):
        total *= n_cards - k
    return BaccaratCounts(decks, total, banker, player, tie, dragon7, panda8, natural)
