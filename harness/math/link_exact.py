"""Exact chances on a linked progressive: 461a.12(c)(1) and (d)(1) as arithmetic on fractions.

For every table on a common meter and every seat of that table, :func:`meter_chances` gives the
exact probability that one Royal 9 wager at the seat is paid the meter in a round (the Royal 9
math of :mod:`harness.math.royal9_exact`, for the table's own decks, personal combinations,
denomination and interpretations; the meters valued at the amounts given, which only matter where
``r9-rank-by-amount`` ranks a meter against a fixed line).  :func:`compare` then holds every seat of
every table to the first: the same probability for the same wager (c)(1), a probability directly
proportional to the wager required (d)(1).  Both are one test, ``p / wager`` equal, on exact
fractions: no tolerance, no floating point.

What counts as the wager is the named interpretation ``link-wager-measure``: the stake in cents
(``money``, the default) or one unit of the table's denomination (``denomination-units``).

Pure: no I/O.  Results are cached by table configuration (a link profile is loaded many times).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from harness.cards import Combo
from harness.games.interpretations import Interpretations
from harness.games.royal9 import Royal9Table, royal9_floors
from harness.math.royal9_exact import royal9_math
from harness.money import Cents, fmt

WAGER_MEASURES = ("money", "denomination-units")


@dataclass(frozen=True)
class Chance:
    """One wager's chance at a common meter: seat ``seat`` of table ``table`` wins ``meter``
    (the table's meter on the common meter ``common``) with probability ``p`` for ``wager``."""

    table: str
    seat: int
    meter: str
    common: str
    decks: int
    denomination: int
    p: Fraction
    #: the wager the chance is for, in cents (``money``) or in units of the denomination
    wager: int
    measure: str = "money"

    @property
    def per_unit(self) -> Fraction:
        return self.p / self.wager

    def describe(self) -> str:
        per = "per cent wagered" if self.measure == "money" else "per unit of the denomination"
        return (f"table {self.table} seat {self.seat} (${self.denomination}, {self.decks} deck(s)): "
                f"{self.p} per {fmt(self.denomination * 100)} wager, {self.per_unit} {per}")


@functools.cache
def _wins(decks: int, combos: tuple[tuple[int, str, str], ...], seats: tuple[int, ...], denomination: int,
          interp: Interpretations, amounts: tuple[tuple[str, Cents], ...]) -> dict[int, dict[str, Fraction]]:
    table = Royal9Table({s: Combo.of_codes((k, n)) for s, k, n in combos}, denomination,
                        interpretations=interp)
    math = royal9_math(table, decks=decks, meters=dict(amounts), wagers=seats)
    return {s.seat: {m: Fraction(c, math.total) for m, c in s.meter_wins.items()} for s in math.seats}


def meter_chances(
    table: str, *, decks: int, seats: Mapping[int, Combo | None], denomination: int,
    interpretations: Interpretations, amounts: Mapping[str, Cents], links: Mapping[str, str], measure: str = "money",
) -> list[Chance]:
    """Every seat's chance at every common meter the table is on (``links``: the table's meter ->
    the common meter); a seat without a personal combination has none (probability 0)."""
    if measure not in WAGER_MEASURES:
        raise ValueError(f"link-wager-measure {measure!r}: expected one of {', '.join(WAGER_MEASURES)}")
    combos = tuple(sorted((s, c[0].code, c[1].code) for s, c in seats.items() if c is not None))
    valued = {**royal9_floors(denomination), **amounts}  # a meter not given is valued at its floor
    wins = _wins(decks, combos, tuple(sorted(seats)), denomination, interpretations, tuple(sorted(valued.items())))
    wager = denomination * 100 if measure == "money" else 1
    return [Chance(table, seat, meter, common, decks, denomination, wins.get(seat, {}).get(meter, Fraction(0)),
                   wager, measure)
            for meter, common in sorted(links.items()) for seat in sorted(seats)]


def compare(chances: Iterable[Chance]) -> list[tuple[Chance, Chance]]:
    """Per common meter, every chance whose ``p / wager`` differs from the meter's first chance,
    paired with that first one (empty: 461a.12(c)(1) and (d)(1) hold exactly)."""
    first: dict[str, Chance] = {}
    out = []
    for c in chances:
        ref = first.setdefault(c.common, c)
        if c.per_unit != ref.per_unit:
            out.append((c, ref))
    return out


def why_unequal(c: Chance, ref: Chance) -> str:
    """A sentence for a chance that breaks proportionality, with the exact figures."""
    if c.p == 0:
        return (f"seat {c.seat} of table {c.table} has no personal combination: its Royal 9 wager can never win "
                f"the common meter {c.common} that it feeds ({ref.describe()})")
    if c.wager == ref.wager:
        return (f"same wager, another probability of hitting the common meter {c.common}: {c.describe()}; "
                f"{ref.describe()} (461a.12(c)(1))")
    return (f"the probability of winning the common meter {c.common} is not proportional to the wager required: "
            f"{c.describe()}; {ref.describe()} (461a.12(d)(1))")
