"""Exact Royal 9 math: the probability of every award for a given table, and the wager's return.

Only the first four cards decide a Royal 9 (Player cards 1 and 3, Banker 2 and 4), so the sample
space is the ``S·(S-1)·(S-2)·(S-3)`` ordered four-card deals of an ``S``-card shoe (8 decks:
416·415·414·413).  What a card contributes to any award is one of 13 classes: a king of a suit
(a personal combination is a suit-specific king-9), a queen or jack of a suit (a face for Royal 9
and suitedness, never a combination), a nine of a suit, or anything else.  The 13^4 ordered class
patterns are counted with exact falling products (cards are drawn without replacement), reduced
to at most 33x33 (Player key, Banker key) pairs, and each pair is resolved by the *oracle itself*
(:meth:`harness.games.royal9.Royal9Table.resolve_keys`) so the math and the oracle cannot
disagree about a rule.  Checks from the exact combinatorics of (e): a given hand is a Royal 9 with probability
6144/172640, a suited Royal 9 1536/172640, a specific king-9 128/172640.

Returns are valued at fixed meter amounts (default the denomination's floors, 629a Royal 9
(f)(2)/(g)(2)); the meters' growth from the wagers is not included.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from harness.cards import SUITS, Card, Combo, shoe_composition
from harness.errors import InputError
from harness.games.interpretations import DEFAULT, Interpretations
from harness.games.royal9 import CATEGORIES, METERS, HandKey, Royal9Table, hand_key, parse_combo
from harness.money import Cents

#: the seven-seat example layout used when no table is given (a documented example, not a rule)
DEFAULT_LAYOUT = "1=KS9S,2=KH9H,3=KD9D,4=KC9C,5=KS9H,6=KH9D,7=KD9C"

_OTHER = 12


def _class_of(card: Card) -> int:
    s = SUITS.index(card.suit)
    if card.rank == 13:
        return s
    if card.rank >= 11:
        return 4 + s
    if card.rank == 9:
        return 8 + s
    return _OTHER


#: one representative card per class (a queen stands for queens and jacks; a deuce for "other")
_REP: tuple[Card, ...] = (
    *(Card(13, s) for s in SUITS), *(Card(12, s) for s in SUITS), *(Card(9, s) for s in SUITS), Card(2, "C"),
)


def key_pair_counts(
    composition: Mapping[Card, int], *, order_insensitive: bool = True
) -> dict[tuple[HandKey, HandKey], int]:
    """Ordered first-four deals by (Player key, Banker key); keys as :func:`hand_key`."""
    n = [0] * 13
    for card, k in composition.items():
        n[_class_of(card)] += k
    keys = [[hand_key(_REP[a], _REP[b], order_insensitive=order_insensitive) for b in range(13)]
            for a in range(13)]
    out: dict[tuple[HandKey, HandKey], int] = {}
    for a, na in _draws(n):  # player card 1
        for c, nc in _draws(n):  # player card 3
            mp = na * nc
            pk = keys[a][c]
            for b, nb in _draws(n):  # banker card 2
                mb = mp * nb
                row = keys[b]
                for d in range(13):  # banker card 4
                    if n[d]:
                        pair = (pk, row[d])
                        out[pair] = out.get(pair, 0) + mb * n[d]
    return out


def _draws(n: list[int]) -> Iterator[tuple[int, int]]:
    """Each class ``n`` still holds a card of, with how many: the class is one card short in ``n``
    while the caller draws the next cards, and whole again before the next class (draws without
    replacement, the falling product)."""
    for k in range(13):
        held = n[k]
        if held:
            n[k] -= 1
            yield k, held
            n[k] += 1


@dataclass(frozen=True, slots=True)
class SeatMath:
    seat: int
    combo: Combo | None
    counts: Mapping[str, int]  # awarded (highest) category or "lose" -> ordered deals
    returned: Fraction  # expected amount handed back per unit staked
    #: meter -> ordered deals on which this wager is paid that meter (whatever else it is paid)
    meter_wins: Mapping[str, int] = field(default_factory=dict)

    @property
    def house_edge(self) -> Fraction:
        return 1 - self.returned


@dataclass(frozen=True, slots=True)
class Royal9Math:
    decks: int | None
    denomination: int
    total: int  # ordered four-card deals
    meters: Mapping[str, Cents]
    hands: Mapping[str, int]  # facts about one hand (Player's) and both
    seats: tuple[SeatMath, ...]
    meter_hits: Mapping[str, int]  # deals on which each meter is hit (some seat wins it)

    def probability(self, count: int) -> Fraction:
        return Fraction(count, self.total)


def royal9_math(
    table: Royal9Table,
    *,
    decks: int = 8,
    meters: Mapping[str, Cents] | None = None,
    wagers: Iterable[int] | None = None,
    composition: Mapping[Card, int] | None = None,
) -> Royal9Math:
    """Exact award counts and return for every seat of ``table`` (every seat wagers by default).

    ``composition`` replaces the ``decks``-deck shoe (used to check against brute force).
    """
    comp = composition if composition is not None else shoe_composition(decks)
    size = sum(comp.values())
    if size < 4:
        raise InputError(f"shoe of {size} cards: a Royal 9 round needs four")
    amounts = dict(table.floors if meters is None else meters)
    ws = frozenset(table.seat_combos if wagers is None else wagers)
    pairs = key_pair_counts(comp, order_insensitive=table.interpretations.r9_order_insensitive)
    total = size * (size - 1) * (size - 2) * (size - 3)
    seat_ids = sorted(set(table.seat_combos) | ws)
    counts: dict[int, dict[str, int]] = {s: {} for s in seat_ids}
    wins: dict[int, dict[str, int]] = {s: {} for s in seat_ids}
    returned: dict[int, int] = dict.fromkeys(seat_ids, 0)
    meter_hits = dict.fromkeys(METERS, 0)
    hands = dict.fromkeys(("player-royal9", "player-suited-royal9", "royal9-tie", "suited-royal9-tie"), 0)
    kings = {(Card(13, s), Card(9, t)) for s in SUITS for t in SUITS}
    specific = {f"player-{k.code}{n.code}": 0 for k, n in sorted(kings)}
    for (pk, bk), cnt in pairs.items():
        res = table.resolve_keys(pk, bk, ws, amounts)
        if res.player_royal9:
            hands["player-royal9"] += cnt
            if pk in kings and pk is not None:
                specific[f"player-{pk[0].code}{pk[1].code}"] += cnt
        if res.player_suited:
            hands["player-suited-royal9"] += cnt
        if res.player_royal9 and res.banker_royal9:
            hands["royal9-tie"] += cnt
            if res.player_suited and res.banker_suited:
                hands["suited-royal9-tie"] += cnt
        for m in res.meters_hit:
            meter_hits[m] += cnt
        for s in res.seats:
            if not s.wager:
                continue
            cat = s.category or "lose"
            counts[s.seat][cat] = counts[s.seat].get(cat, 0) + cnt
            for m in s.meters_hit:
                wins[s.seat][m] = wins[s.seat].get(m, 0) + cnt
            if s.settlement is not None:
                returned[s.seat] += cnt * s.settlement.returned
    hands.update(specific)
    order = {c: i for i, c in enumerate((*CATEGORIES, "lose"))}
    seats = tuple(
        SeatMath(
            s, table.seat_combos.get(s),
            dict(sorted(counts[s].items(), key=lambda kv: order[kv[0]])),
            Fraction(returned[s], total * table.stake),
            wins[s],
        )
        for s in seat_ids if s in ws
    )
    return Royal9Math(decks if composition is None else None, table.denomination, total, amounts,
                      hands, seats, meter_hits)


def default_table(
    denomination: int = 5, interpretations: Interpretations = DEFAULT, layout: str = DEFAULT_LAYOUT
) -> Royal9Table:
    """The example table of :data:`DEFAULT_LAYOUT` (one seat when combinations are not suited)."""
    combos = {}
    for item in layout.split(","):
        seat, _, text = item.partition("=")
        combos[int(seat)] = parse_combo(text, int(seat))
        if not interpretations.r9_personal_combo_suited:
            break
    return Royal9Table(combos, denomination, interpretations=interpretations)
