"""The Royal 9 progressive wager of Midibaccarat (58 Pa. Code 629a, Royal 9 (b), (e)-(g)).

A hand's *Royal 9* is its first two cards being a face card (king, queen, jack; a ten is not a
face) and a nine (b).  Only the first four cards matter: Player holds cards 1 and 3, Banker cards
2 and 4 (the punto banco deal order).  Each player position has a unique *personal* king-9 combination printed
on the layout (e)(5); which positions wagered, the table's combinations, the denomination's
paytable ((f) $5, (g) $1) and the three meters decide every award.

Every case, as resolved here (interpretation ids in brackets, see
:mod:`harness.games.interpretations`):

* **Mega** (e)(6): a seat's combination is on *both* hands (the same suits under
  [r9-personal-combo-suited]): that seat, if it wagered, wins 100% of the mega meter.  It is not
  also a major and a minor [r9-mega-excludes-major-minor], nor does it take envy
  [r9-envy-for-mega-winner].
* **Mega envy** (e)(9): every *other* seat with a wager [r9-envy-requires-wager] wins the fixed
  envy award, whether or not the owning seat is occupied or wagered; the owner's meter is hit only
  if the owner wagered (nobody else can win the mega).
* **Major** (e)(7) / **minor** (e)(8): a seat's combination on Banker's / Player's hand.  Two
  different combinations on the two hands give seat A the major and seat B the minor.
* A personal combination is also a Royal 9 (and a suited Royal 9 when K and 9 share a suit; both
  hands Royal 9 is a tie): the owner qualifies for both and, with one award per wager
  [r9-one-award-per-wager], takes the row listed first in the paytable [r9-rank-by-amount].
* A seat whose own combination did not hit still wins the generic lines (Royal 9, suited Royal 9,
  Royal 9 tie, suited Royal 9 tie) the hands make.
* A king-9 that is nobody's combination is just a Royal 9 (suited if same suit).
* A seat without a wager wins nothing and hits no meter, even when its combination appears.
* Jackpots go only to the owning seat (the paytable row reads "Personal king 9", the seat's own
  combination) and the wager is exactly the denomination (the paytables are written "for $5 wager",
  "for $1 wager").

Performance: seven seats are resolved for every simulated round, so a table precomputes who owns
which king-9 and caches the per-seat awards for each (Player key, Banker key, wagers) triple; the
~93% of rounds with no Royal 9 return one shared, precomputed losing result.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from harness.cards import Card, Combo, parse_card
from harness.errors import InputError
from harness.games.interpretations import DEFAULT, Interpretations, catalogue
from harness.games.payouts import Pay, Settlement, parse_pay, settle
from harness.money import Cents, parse_amount

#: agreed category names, highest paytable row first ((f)/(g) list them in this order)
CATEGORIES = (
    "mega", "major", "minor", "mega-envy", "suited-royal9-tie", "royal9-tie", "suited-royal9", "royal9",
)
METERS = ("mega", "major", "minor")
_RANK = {c: i for i, c in enumerate(CATEGORIES)}
DENOMINATIONS = (5, 1)
MAX_SEATS = 9  # WAC 230-15-040(2): at most nine identical wagering areas

#: (f)(1) and (g)(1) in the catalogue's notation (``pa-midi-r9-paytable-5`` / ``-1``); the
#: catalogue's parameters replace these when it is installed (:func:`royal9_paytable`).
_PAYTABLE_TEXT: dict[int, dict[str, str]] = {
    5: {"mega": "100% of mega jackpot", "major": "100% major jackpot", "minor": "100% minor jackpot",
        "mega-envy": "$5,000", "suited-royal9-tie": "$1,500", "royal9-tie": "$250",
        "suited-royal9": "$50", "royal9": "$25"},
    1: {"mega": "100% of mega jackpot", "major": "100% major jackpot", "minor": "100% minor jackpot",
        "mega-envy": "$1,000", "suited-royal9-tie": "$300", "royal9-tie": "$50",
        "suited-royal9": "$10", "royal9": "$5"},
}
#: (f)(2) / (g)(2) minimum initial and reset amounts (``pa-midi-r9-floors-5`` / ``-1``), in cents
_FLOORS_TEXT: dict[int, dict[str, str]] = {
    5: {"mega": "$50,000", "major": "$450", "minor": "$450"},
    1: {"mega": "$10,000", "major": "$90", "minor": "$90"},
}

LOSE = Pay("lose")
HandKey = tuple[Card, Card] | None  # (face, nine) of a Royal 9 hand, else None
Where = Literal["both", "banker", "player"]


def _check_denomination(denomination: int) -> None:
    if denomination not in DENOMINATIONS:
        raise InputError(f"denomination {denomination!r}: Royal 9 is offered as a $5 or a $1 wager")


def royal9_paytable(denomination: int) -> dict[str, Pay]:
    """The (f) or (g) paytable as :class:`Pay` cells, by category (the catalogue's when installed)."""
    _check_denomination(denomination)
    cat = catalogue()
    if cat is not None:
        return dict(cat.paytable(denomination))
    return {c: parse_pay(_PAYTABLE_TEXT[denomination][c]) for c in CATEGORIES}


def royal9_floors(denomination: int) -> dict[str, Cents]:
    """The (f)(2) / (g)(2) minimum initial and reset amounts, in cents (default meter amounts)."""
    _check_denomination(denomination)
    cat = catalogue()
    if cat is not None:
        return dict(cat.floors(denomination))
    return {m: parse_amount(_FLOORS_TEXT[denomination][m]) for m in METERS}


def parse_combo(text: str, seat: int | None = None) -> Combo:
    """``"KS9S"``, ``"KS 9H"``, ``"9H-KS"`` or ``"K♠9♥"`` -> ``(king, nine)``."""
    where = f"seat {seat} combination {text!r}" if seat is not None else f"combination {text!r}"
    raw = text.replace("-", "").replace(" ", "").replace("/", "")
    if len(raw) != 4:
        raise InputError(f"{where}: expected a king and a nine, e.g. 'KS9H'")
    try:
        a, b = parse_card(raw[:2]), parse_card(raw[2:])
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    if a.rank == 9 and b.rank == 13:
        a, b = b, a
    if not (a.rank == 13 and b.rank == 9):
        raise InputError(f"{where}: a personal combination is a king and a nine (e)(5)")
    return Combo(a, b)


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One position's outcome.  ``combo_on`` says where its own combination appeared."""

    seat: int
    combo: Combo | None
    wager: bool
    combo_on: Where | None
    qualifies: tuple[str, ...]
    awarded: tuple[str, ...]
    pays: tuple[Pay, ...]
    settlement: Settlement | None
    meters_hit: tuple[str, ...]

    @property
    def category(self) -> str | None:
        """The highest category awarded, or ``None`` (a losing or absent wager)."""
        return self.awarded[0] if self.awarded else None

    @property
    def pay(self) -> Pay:
        return self.pays[0] if self.pays else LOSE


@dataclass(frozen=True, slots=True)
class Royal9Result:
    player_royal9: bool
    player_suited: bool
    banker_royal9: bool
    banker_suited: bool
    seats: tuple[SeatResult, ...]
    meters_hit: tuple[str, ...]  # meters to reset, in the order mega, major, minor

    def seat(self, n: int) -> SeatResult:
        for s in self.seats:
            if s.seat == n:
                return s
        raise KeyError(n)


def hand_key(a: Card, b: Card, *, order_insensitive: bool = True) -> HandKey:
    """``(face, nine)`` when the two cards are a Royal 9, else ``None``."""
    if a.rank >= 11 and b.rank == 9:
        return (a, b)
    if order_insensitive and a.rank == 9 and b.rank >= 11:
        return (b, a)
    return None


# (seat, combo_on, qualifying categories, awarded categories) for one (pkey, bkey, wagers)
_Plan = tuple[tuple[int, "Where | None", tuple[str, ...], tuple[str, ...]], ...]


class Royal9Table:
    """One table's Royal 9 configuration: seat combinations, denomination, paytable, interpretations."""

    def __init__(
        self,
        seat_combos: Mapping[int, Combo],
        denomination: int = 5,
        *,
        paytable: Mapping[str, Pay] | None = None,
        interpretations: Interpretations = DEFAULT,
    ) -> None:
        _check_denomination(denomination)
        self.denomination = denomination
        self.stake: Cents = denomination * 100
        self.interpretations = interpretations
        self.paytable = dict(paytable) if paytable is not None else royal9_paytable(denomination)
        missing = [c for c in CATEGORIES if c not in self.paytable]
        if missing:
            raise InputError(f"Royal 9 paytable: no line for {', '.join(missing)}")
        self.floors = royal9_floors(denomination)
        combos: dict[int, Combo] = {}
        owners: dict[tuple[Card, Card], int] = {}
        for seat, (king, nine) in sorted(seat_combos.items()):
            if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= MAX_SEATS:
                raise InputError(f"seat {seat!r}: positions are 1 to {MAX_SEATS} (WAC 230-15-040(2))")
            if king.rank != 13 or nine.rank != 9:
                raise InputError(f"seat {seat} combination {king.code}{nine.code}: must be a king and a nine")
            if interpretations.r9_personal_combo_suited:
                key = (king, nine)
            else:
                key = (Card(13, "S"), Card(9, "S"))  # suits ignored: every king-9 is the same
            if key in owners:
                why = "" if interpretations.r9_personal_combo_suited else (
                    " (r9-personal-combo-suited is false: every king-9 is the same combination,"
                    " so only one position can have one)")
                raise InputError(
                    f"seat {seat} combination {king.code}{nine.code}: same as seat {owners[key]}'s;"
                    f" combinations are unique (e)(5){why}"
                )
            owners[key] = seat
            combos[seat] = Combo(king, nine)
        self.seat_combos = combos
        self._owners = owners
        self._plans: dict[tuple[HandKey, HandKey, frozenset[int]], _Plan] = {}
        self._losses: dict[frozenset[int], Royal9Result] = {}
        self._all = frozenset(combos)

    # -- keys and ownership ----------------------------------------------------------------
    def owner(self, key: HandKey) -> int | None:
        """The seat whose personal combination the hand ``key`` is, if any."""
        if key is None or key[0].rank != 13:
            return None
        if self.interpretations.r9_personal_combo_suited:
            return self._owners.get(key)
        return next(iter(self._owners.values()), None)

    def _plan(self, pk: HandKey, bk: HandKey, wagers: frozenset[int]) -> _Plan:
        interp = self.interpretations
        generic: list[str] = []
        p_suited = pk is not None and pk[0].suit == pk[1].suit
        b_suited = bk is not None and bk[0].suit == bk[1].suit
        if pk is not None and bk is not None:
            if p_suited and b_suited:
                generic.append("suited-royal9-tie")
            generic.append("royal9-tie")
        if p_suited or b_suited:
            generic.append("suited-royal9")
        if pk is not None or bk is not None:
            generic.append("royal9")
        p_owner, b_owner = self.owner(pk), self.owner(bk)
        # the same owner on both hands means the same combination on both (exactly the same
        # cards when combinations are suit-specific): the mega hand (e)(6)
        mega_owner = p_owner if p_owner is not None and p_owner == b_owner else None
        plan: list[tuple[int, Where | None, tuple[str, ...], tuple[str, ...]]] = []
        for seat in sorted(self._all | wagers):
            where: Where | None = None
            own: list[str] = []
            if seat == mega_owner:
                where = "both"
                own.append("mega")
                if not interp.r9_mega_excludes_major_minor:
                    own += ["major", "minor"]
                if interp.r9_envy_for_mega_winner:
                    own.append("mega-envy")
            else:
                if seat == b_owner:
                    where = "banker"
                    own.append("major")
                if seat == p_owner:
                    where = "player" if where is None else "both"
                    own.append("minor")
                if mega_owner is not None:
                    own.append("mega-envy")
            wagered = seat in wagers
            if not wagered and not (mega_owner is not None and seat != mega_owner
                                    and not interp.r9_envy_requires_wager):
                plan.append((seat, where, (), ()))
                continue
            if not wagered:  # envy paid without a wager (override of r9-envy-requires-wager)
                plan.append((seat, where, ("mega-envy",), ("mega-envy",)))
                continue
            qualifies = tuple(sorted(set(own + generic), key=_RANK.__getitem__))
            awarded = qualifies if not interp.r9_one_award_per_wager else qualifies[:1]
            plan.append((seat, where, qualifies, awarded))
        return tuple(plan)

    # -- resolution ------------------------------------------------------------------------
    def resolve(
        self,
        first_four: Sequence[Card],
        wagers: Iterable[int] | None = None,
        meters: Mapping[str, Cents] | None = None,
    ) -> Royal9Result:
        """Resolve the Royal 9 wagers of one round from its first four cards (P, B, P, B).

        ``wagers``: the seats that placed a Royal 9 wager (amount = the denomination); ``None``
        means every seat with a combination.  ``meters``: current mega/major/minor amounts in
        cents; ``None`` means the denomination's floors.
        """
        p1, b1, p2, b2 = first_four[0], first_four[1], first_four[2], first_four[3]
        oi = self.interpretations.r9_order_insensitive
        pk = hand_key(p1, p2, order_insensitive=oi)
        bk = hand_key(b1, b2, order_insensitive=oi)
        ws = self._all if wagers is None else wagers if isinstance(wagers, frozenset) else frozenset(wagers)
        if pk is None and bk is None:
            loss = self._losses.get(ws)
            if loss is None:
                loss = self._losses[ws] = self.resolve_keys(None, None, ws, meters)
            return loss
        return self.resolve_keys(pk, bk, ws, meters)

    def resolve_keys(
        self, pk: HandKey, bk: HandKey, wagers: frozenset[int], meters: Mapping[str, Cents] | None = None
    ) -> Royal9Result:
        """Resolution from the two hands' keys (see :func:`hand_key`); the exact math uses this."""
        plan = self._plans.get((pk, bk, wagers))
        if plan is None:
            plan = self._plans[(pk, bk, wagers)] = self._plan(pk, bk, wagers)
        amounts = self.floors if meters is None else meters
        returns_stake = self.interpretations.award_returns_stake
        seats = []
        hit: set[str] = set()
        for seat, where, qualifies, planned in plan:
            wagered = seat in wagers
            if not qualifies:
                settlement = Settlement(self.stake, 0) if wagered else None
                seats.append(SeatResult(seat, self.seat_combos.get(seat), wagered, where, (), (), (),
                                        settlement, ()))
                continue
            awarded = planned
            if self.interpretations.r9_rank_by_amount and self.interpretations.r9_one_award_per_wager:
                awarded = (max(qualifies, key=lambda c: (self._win(c, amounts), -_RANK[c])),)
            stake = self.stake if wagered else 0
            win = sum(self._win(c, amounts) for c in awarded)
            kept = stake if returns_stake else 0
            meters_hit = tuple(c for c in awarded if c in METERS)
            hit.update(meters_hit)
            seats.append(SeatResult(
                seat, self.seat_combos.get(seat), wagered, where, qualifies, awarded,
                tuple(self.paytable[c] for c in awarded), Settlement(stake, kept + win), meters_hit,
            ))
        return Royal9Result(
            pk is not None, pk is not None and pk[0].suit == pk[1].suit,
            bk is not None, bk is not None and bk[0].suit == bk[1].suit,
            tuple(seats), tuple(m for m in METERS if m in hit),
        )

    def _win(self, category: str, meters: Mapping[str, Cents]) -> Cents:
        """The award of one line beyond the stake, for a wager of the denomination."""
        pay = self.paytable[category]
        meter = None
        if pay.kind == "meter":
            name = pay.meter if pay.meter in METERS else category
            if name not in meters:
                raise InputError(f"meter {name!r}: amount needed to pay {category}")
            meter = meters[name]
        s = settle(pay, self.stake, meter, award_returns_stake=False)
        return s.returned if pay.kind in ("fixed", "meter") else s.net
