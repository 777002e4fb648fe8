"""What the explorer draws from the table it explores: cards from the table's own decks (whole rounds of
a given shape, the Royal 9 lines and their boundaries) and configuration writes at, just inside and just
outside each bound (:data:`CONFIG_TEMPLATES`), as the profile's ``config_writes:`` allows them.  Pure: a
draw takes a random generator and the model's state, and does no I/O."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from harness.cards import SUITS, Card, Combo, shoe_composition
from harness.explore.model import TableModel
from harness.explore.state import State
from harness.games.baccarat import deal_round
from harness.games.royal9 import royal9_floors


class Draws:
    """The draws for one table (its model: the Rules Submission, the decks, the Royal 9 meters)."""

    def __init__(self, model: TableModel) -> None:
        self.model = model
        self.profile = model.profile
        self.shoe: list[Card] = [c for c, n in shoe_composition(self.profile.rules.decks).items() for _ in range(n)]
        # the cards Royal 9 lines are made of, and those at their boundary: the face cards and nines, and
        # the ten (a ten and a nine is not a Royal 9, 629a Royal 9 (b))
        self.biased = [c for c in self.shoe if c.rank in (13, 12, 11, 10, 9)]

    def without(self, cards: tuple[Card, ...]) -> list[Card]:
        """The table's decks less ``cards`` (one of each as often as it is there): what may still go into a shoe
        that holds them, so that no card is loaded more often than the decks have it (``test.load``
        ``check_decks``, docs/protocol.md section 7)."""
        taken = Counter(cards)
        out = []
        for card in self.shoe:
            if taken[card]:
                taken[card] -= 1
            else:
                out.append(card)
        return out

    def royal9_lines(self, rng: random.Random) -> tuple[Card, ...]:
        """Six cards whose first four give the Player hand (cards 1 and 3), the Banker hand (2 and 4) or
        both a face card and a nine, each pair suited or not at random: every Royal 9 line of 629a Royal 9
        (f)(1) (Royal 9, suited, tie, suited tie), the personal king-9 among them now and then."""
        faces = [c for c in self.shoe if c.rank in (11, 12, 13)]
        nines = [c for c in self.shoe if c.rank == 9]
        cards = list(rng.sample(self.shoe, 6))
        hands = rng.choice(((0,), (1,), (0, 1), (0, 1)))
        for hand in hands:
            face = rng.choice(faces)
            suited = [c for c in nines if c.suit == face.suit]
            nine = rng.choice(suited if rng.random() < 0.5 and suited else nines)
            cards[hand], cards[hand + 2] = (face, nine) if rng.random() < 0.5 else (nine, face)
        return tuple(cards)

    def tableau_cell(self, rng: random.Random) -> tuple[Card, ...]:
        """Six cards for one cell, drawn at random, of the third-card tableau (629a.8(c), (d)): a Banker
        two-card total 0-7 against each Player third card 0-9, or against a Player standing on 6 or 7;
        the cell is drawn first, so each of the 88 comes as often as any other, however rare it is
        among shuffled cards."""
        by_value: dict[int, list[Card]] = {}
        for card in self.shoe:
            by_value.setdefault(card.baccarat_value, []).append(card)
        banker, third = rng.randrange(8), rng.randrange(11)
        player = rng.randrange(6) if third < 10 else rng.choice((6, 7))
        p1, b1 = rng.choice(self.shoe), rng.choice(self.shoe)
        values = ((player - p1.baccarat_value) % 10, (banker - b1.baccarat_value) % 10, third % 10)
        p2, b2, p3 = (rng.choice(by_value[v]) for v in values)
        b3 = rng.choice(self.shoe)
        # a stood Player's fifth card is the Banker's third, the sixth unused
        return (p1, b1, p2, b2, p3, b3) if third < 10 else (p1, b1, p2, b2, b3, p3)

    def shaped_round(self, shape: str, rng: random.Random) -> tuple[Card, ...]:
        """Six cards from the table's decks whose round has ``shape``: ``tie`` (the hands tie), ``banker3``
        (the Banker ends on a three-card 7, winning or tying: the Dragon 7 line and its boundary),
        ``player3`` (the Player ends on a three-card 8: the Panda 8 line and its boundary), else any.
        Drawn by rejection from random cards (a few hundred tries at most; the last draw otherwise)."""
        if shape == "royal9":
            return self.royal9_lines(rng)
        if shape == "tableau":
            return self.tableau_cell(rng)
        cards = tuple(rng.sample(self.shoe, 6))
        for _ in range(400):
            r = deal_round(list(cards))
            if shape == "tie" and r.winner == "tie":
                break
            if shape == "banker3" and len(r.banker) == 3 and r.banker_total == 7 and r.winner != "player":
                break
            if shape == "player3" and len(r.player) == 3 and r.player_total == 8:
                break
            if shape not in ("tie", "banker3", "player3"):
                break
            cards = tuple(rng.sample(self.shoe, 6))
        return cards

    def config_write(self, s: State, template: tuple[str, str, str]) -> dict[str, Any] | None:
        """One configuration write from a template (:data:`CONFIG_TEMPLATES`) for state ``s``: at, just
        inside and just outside each bound; None where the table has no such field."""
        field, meter, value = template
        royal9 = self.model.royal9
        den = s.denomination
        if field == "game":  # not configurable (docs/protocol.md 6.4): refused, nothing changes
            return {"game": "baccarat" if self.profile.game != "baccarat" else "midibaccarat"}
        if field == "denomination":
            return {"denomination": int(value)} if royal9 else None
        if field == "commission":
            return {"commission": value}
        if field == "decks":
            return {"decks": s.decks if value == "as-is" else int(value)}
        if field == "seats":
            return self.seats_write(s, value)
        cfg = s.meter_cfg.get(meter)
        if cfg is None:
            return None
        floor = royal9_floors(den // 100).get(meter, 0) if royal9 and den in (100, 500) else 0
        amount = s.meters[meter].amount
        if field == "rate":
            return {"meters": {meter: {"rate": value}}}
        if field == "limit+bad-rate":
            # a meter write whose later field is malformed (a rate is a decimal string with no sign, the
            # contract's schema): refused whole, the limit before it not applied (docs/protocol.md 6.4;
            # section 13: a write refused "without a trace").  Not a rate above 100 %: the contract bounds
            # no rate, so a device may take one
            return {"meters": {meter: {"payout_limit": amount + 700, "rate": "-1"}}}
        if field == "denomination+reset":
            if not royal9:
                return None
            return {"denomination": 100 if den == 500 else 500, "meters": {meter: {"reset": max(floor - 1, 0)}}}
        if field == "denomination+floor":
            # the other denomination with the meter's initial and reset at that denomination's own floor: "a
            # denomination written is checked with the meters as configured against its own floors"
            # (docs/protocol.md 6.4), so the write stands or falls by the new floors, not the old
            if not royal9 or den not in (100, 500):
                return None
            other = 100 if den == 500 else 500
            at = royal9_floors(other // 100).get(meter, 0) + (0 if value == "" else int(value))
            return {"denomination": other, "meters": {meter: {"initial": at, "reset": at}}} if at >= 0 else None
        if field == "initial+limit":
            # an initial amount above the payout limit in force, written first, with a limit above both: the
            # write is judged as a whole (docs/protocol.md 6.4), whatever the order of its keys
            if cfg.payout_limit is None:
                return None
            return {"meters": {meter: {"initial": cfg.payout_limit + 100, "payout_limit": cfg.payout_limit + 200}}}
        if value == "null":  # "cents or null" (docs/protocol.md 6.4): the limit or the capacity removed
            return {"meters": {meter: {field: None}}}
        # where one wager at the denomination in force takes the meter: its next contribution lands at, just
        # short of or just past a limit written there
        land = None if den is None else amount + int(s.meters[meter].residual + Decimal(den) * cfg.rate / 100)
        if value == "uncapped-land-1":  # no payout limit: the display capacity alone holds the meter (461a.12(j))
            return None if land is None else {"meters": {meter: {"payout_limit": None, "display_capacity": land - 1}}}
        name, _sign, shift = value.partition("+") if "+" in value else value.partition("-")
        base = {"floor": floor, "amount": amount, "capacity": cfg.display_capacity, "limit": cfg.payout_limit,
                "land": land}[name]
        if base is None:
            return None
        number = base + int(shift or 0) * (-1 if "-" in value else 1)
        return {"meters": {meter: {field: number}}} if number >= 0 else None


    def seats_write(self, s: State, how: str) -> dict[str, Any] | None:
        """A ``seats`` write (docs/protocol.md 6.4) of the table's seats: ``as-is`` (the combinations in
        force), ``swap`` (two seats' personal combinations exchanged: unique king-9 pairs still), ``rotate``
        (every combination one seat on), ``duplicate`` (one seat given another's: refused, 629a Royal 9
        (e)(5)), ``not-king9`` (a queen for a king: refused)."""
        seats: list[list[Any]] = [[seat, None if combo is None else list(combo)] for seat, combo in s.seats]
        owned = [i for i, (_seat, combo) in enumerate(seats) if combo is not None]
        if len(owned) < 2:
            return None
        first, second = owned[0], owned[-1]
        if how == "swap":
            seats[first][1], seats[second][1] = seats[second][1], seats[first][1]
        elif how == "rotate":
            combos = [seats[i][1] for i in owned]
            for i, combo in zip(owned, combos[1:] + combos[:1], strict=True):
                seats[i][1] = combo
        elif how == "duplicate":
            seats[second][1] = list(seats[first][1] or ())
        elif how == "not-king9":
            combo = seats[first][1] or ["KS", "9S"]
            seats[first][1] = ["Q" + combo[0][1:], combo[1]]
        return {"seats": [{"seat": seat, "combo": combo} for seat, combo in seats]}

    def templates(self) -> tuple[tuple[str, str, str], ...]:
        """The configuration writes to draw from (:data:`CONFIG_TEMPLATES`), as the profile's
        ``config_writes:`` declares them (docs/device-profiles.md): every template of a field the device
        takes, and of a field it never takes only the writes that must be refused anyway, one valid new
        value (decks 6, two seats' combinations swapped: REFUSED, never BAD_ARGS, docs/protocol.md section
        13) and a write of it as it stands (the refusal the profile announces is checked, the other fields
        keep their share)."""
        names = {"seats": "combinations", "denomination+reset": "denomination", "denomination+floor": "denomination",
                 "initial+limit": "meters", "rate": "meters",
                 "limit+bad-rate": "meters", "reset": "meters", "initial": "meters", "payout_limit": "meters",
                 "display_capacity": "meters"}
        out = []
        for t in CONFIG_TEMPLATES:
            field = t[0]
            policy = "never" if field == "game" else self.profile.write_choice(names.get(field, field))
            if policy != "never" or t[2] in ("as-is", "swap", "6", "-1", "17", "0", "other"):
                out.append(t)
        return tuple(out)


CONFIG_TEMPLATES: tuple[tuple[str, str, str], ...] = (
    ("decks", "", "1"), ("decks", "", "6"), ("decks", "", "16"), ("decks", "", "0"), ("decks", "", "17"),
    ("decks", "", "as-is"),
    ("seats", "", "as-is"), ("seats", "", "swap"), ("seats", "", "rotate"), ("seats", "", "duplicate"),
    ("seats", "", "not-king9"),
    ("denomination", "", "100"), ("denomination", "", "500"), ("denomination", "", "200"),
    ("commission", "", "4"), ("commission", "", "5"), ("commission", "", "4.5"), ("commission", "", "-1"),
    ("commission", "", "0"), ("commission", "", "100"), ("commission", "", "100.5"),
    ("game", "", "other"),
    *((f, m, v) for m in ("mega", "major", "minor") for f, v in (
        ("rate", "0"), ("rate", "0.25"), ("rate", "0.5"), ("rate", "1.25"), ("rate", "2"), ("rate", "0.375"),
        ("rate", "1.0625"),
        ("reset", "floor-1"), ("reset", "floor"), ("reset", "floor+1"), ("reset", "amount-1"), ("reset", "amount"),
        ("reset", "amount+1"),
        ("initial", "floor-1"), ("initial", "floor+100"), ("initial", "amount+100"),
        ("payout_limit", "amount"), ("payout_limit", "amount+1"), ("payout_limit", "amount+3"),
        ("payout_limit", "amount+700"),
        ("payout_limit", "capacity"), ("payout_limit", "capacity+1"), ("denomination+reset", ""),
        ("denomination+floor", ""), ("denomination+floor", "-1"), ("initial+limit", ""),
        ("limit+bad-rate", ""),
        ("payout_limit", "land-1"), ("payout_limit", "land"), ("payout_limit", "land+1"), ("payout_limit", "null"),
        ("display_capacity", "limit-1"), ("display_capacity", "limit"), ("display_capacity", "capacity+1000"),
        ("display_capacity", "null"), ("display_capacity", "uncapped-land-1"))),
)


def unheld_combinations(held: Sequence[tuple[int, Sequence[Card]]], decks: int) -> list[Combo]:
    """The king-9 pairs (a king and a nine, any two suits) that are no position's personal combination of
    ``held`` (seat, combination), where the decks hold each card twice (both hands show the pair); none on a
    one-deck table."""
    if decks < 2:
        return []
    taken = {frozenset(combo) for _seat, combo in held}
    return [Combo(Card(13, k), Card(9, n)) for k in SUITS for n in SUITS
            if frozenset((Card(13, k), Card(9, n))) not in taken]


def merge_changes(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Two ``config.set`` writes as one: the second's fields over the first's, a meter's fields merged."""
    out = {**first, **{k: v for k, v in second.items() if k != "meters"}}
    if "meters" in second:
        meters = {name: dict(fields) for name, fields in dict(first.get("meters") or {}).items()}
        for name, fields in second["meters"].items():
            meters[name] = {**meters.get(name, {}), **fields}
        out["meters"] = meters
    return out
