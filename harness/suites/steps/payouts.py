"""The ``payout`` events of one round, every one of them kept.

The contract (docs/protocol.md, section 8) has the controller send exactly one settlement ``payout``
per accepted wager per round, and one more ``payout`` (category ``mystery``, stake 0) per mystery
award.  A second settlement ``payout`` for the same seat and wager type is the device paying twice:
it is kept here, added into what the wager returned, and shown to the expectations, which measure
it as a finding (FAIL, :func:`measure_paid_once`); it never replaces the first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.devices.link import DeviceEvent as Event
from harness.devices.vocabulary import HIT_AND_RUN_CATEGORIES, METERS, MYSTERY_CATEGORY, ROYAL9_CATEGORIES
from harness.suites.run.context import SETTLEMENT, citing_also

if TYPE_CHECKING:
    from harness.suites.load.model import Step
    from harness.suites.run.context import CaseContext

Key = tuple[int, str]


@dataclass(frozen=True)
class Paid:
    """Every settlement ``payout`` event of one (seat, wager type) in a round, in arrival order."""

    events: tuple[Mapping[str, Any], ...]

    @property
    def returned(self) -> int:
        """What the wager returned in all: the sum over its payout events."""
        return sum(int(e["returned"]) for e in self.events)

    @property
    def category(self) -> Any:
        """The category reported (several, joined, when the events disagree)."""
        cats = list(dict.fromkeys(e.get("category") for e in self.events))
        return cats[0] if len(cats) == 1 else ", ".join(str(c) for c in cats)

    @property
    def paid_by(self) -> str:
        return ", ".join(dict.fromkeys(str(e.get("paid_by")) for e in self.events))

    @property
    def times(self) -> int:
        return len(self.events)

    def describe(self) -> str:
        """``2 payout events: royal9 returned 3000; royal9 returned 3000``."""
        parts = "; ".join(f"{e.get('category')} returned {e.get('returned')}" for e in self.events)
        return f"{self.times} payout event{'s' if self.times != 1 else ''}: {parts}"


def settlements(events: Iterable[Event]) -> dict[Key, Paid]:
    """The settlement payouts of a round by (seat, wager type); mystery awards are not settlements."""
    grouped: dict[Key, list[Mapping[str, Any]]] = {}
    for e in events:
        if e.name == "payout" and e.payload.get("category") != MYSTERY_CATEGORY:
            grouped.setdefault((int(e.payload["seat"]), str(e.payload["type"])), []).append(e.payload)
    return {key: Paid(tuple(found)) for key, found in grouped.items()}


def paid_more_than_once(paid: Mapping[Key, Paid]) -> list[str]:
    """``seat 3 royal9: 2 payout events: ...`` for every wager settled more than once."""
    return [f"seat {seat} {kind}: {p.describe()}" for (seat, kind), p in sorted(paid.items()) if p.times > 1]


def measure_paid_once(runner: CaseContext, step: Step, key: tuple[int, str], got: Paid | None,
                      *, settles: bool = False) -> None:
    """A wager settled by more than one ``payout`` event was paid twice, and one the table accepted
    that the round settles (``settles``: the oracle settles it) and no ``payout`` names was never
    settled: each a finding, never hidden (docs/protocol.md, section 8: one settlement payout per
    accepted wager per round)."""
    times = 0 if got is None else got.times
    if times > 1 or (times == 0 and settles and key in runner.round.wagers):
        runner.measure(step, f"seat {key[0]} {key[1]} settled by one payout event", times, 1, False,
                       unit="events", detail=got.describe() if got is not None else "no payout event",
                       clause=citing_also(runner, step, SETTLEMENT))


def measure_stake_reported(runner: CaseContext, step: Step, paid: Mapping[Key, Paid]) -> None:
    """Every Royal 9 settlement ``payout`` names as its ``stake`` the wager the table accepted at that
    seat in the round, 0 where it accepted none (an envy award paid without a wager): docs/protocol.md,
    section 8 (``stake`` of the wager settled).  A Royal 9 wager never rides into another round, so the
    round's accepted wagers are the whole answer."""
    for (seat, kind), got in sorted(paid.items()):
        if kind != "royal9":
            continue
        placed = runner.round.wagers.get((seat, kind), 0)
        stakes = sorted({int(e.get("stake", -1)) for e in got.events})
        runner.measure(step, f"seat {seat} royal9 payout stake (the wager accepted)", ", ".join(map(str, stakes)),
                       str(placed), stakes == [placed], unit="cents", detail=got.describe())


#: the paytable lines that are not a meter: each is announced by a ``hit`` with ``meter`` null
#: (docs/protocol.md, section 8, "Payout and hit categories"); a meter line's hit is judged with its meter
FIXED_LINES = tuple(c for c in (*ROYAL9_CATEGORIES, *HIT_AND_RUN_CATEGORIES) if c not in METERS and c != "8-plus-cards")


def measure_line_announced(runner: CaseContext, step: Step, key: tuple[int, str], got: Paid | None,
                           *, award_returns_stake: bool) -> None:
    """A wager paid on a paytable line that is not a meter must have had that line announced by a
    ``hit`` event for its seat in the same round (docs/protocol.md, section 8: ``hit`` is sent when a
    wager wins a paytable line).  Its ``amount``, where not ``null``, is what the line awards: the
    cents won over the stake, or a fixed line's award as the paytable writes it (returned less the
    stake where award-returns-stake holds, all of returned where not).  The amount is judged where the
    seat won that line alone: a wager that won several lines at once returns their sum."""
    if got is None or got.times != 1 or got.category not in FIXED_LINES:
        return
    seat, kind = key
    paid = got.events[0]
    # the seat's hits of this round (a mystery award is not a paytable line), and those for this line
    lines = [e.payload for e in runner.round.ctrl_events if e.name == "hit" and e.payload.get("seat") == seat
             and e.payload.get("category") != MYSTERY_CATEGORY]
    hits = [h for h in lines if h.get("category") == got.category]
    runner.measure(step, f"seat {seat} {kind} line {got.category} announced by a hit event", len(hits), 1,
                   len(hits) == 1, unit="events",
                   detail="; ".join(f"hit meter {h.get('meter')} amount {h.get('amount')}" for h in hits)
                   or "no hit event for the seat and line")
    if len(lines) != 1 or len(hits) != 1 or hits[0].get("meter") is not None or hits[0].get("amount") is None:
        return  # several lines won at once (r9-one-award-per-wager false): the payout is their sum
    stake, returned = int(paid["stake"]), int(paid["returned"])
    allowed = sorted({returned - stake, returned - (stake if award_returns_stake else 0)})
    amount = hits[0].get("amount")
    runner.measure(step, f"seat {seat} {kind} hit amount for line {got.category}", amount,
                   " or ".join(map(str, allowed)), amount in allowed, unit="cents",
                   detail=f"payout stake {stake} returned {returned}")


#: the paytable lines that take a meter: each is announced by a ``hit`` naming the meter
METER_LINES = tuple(c for c in (*ROYAL9_CATEGORIES, *HIT_AND_RUN_CATEGORIES) if c in METERS or c == "8-plus-cards")


def measure_meter_hit_amount(runner: CaseContext, step: Step, key: tuple[int, str], got: Paid | None,
                             *, award_returns_stake: bool) -> None:
    """A wager paid a meter jackpot (Royal 9 mega, major, minor; Hit and Run 8-plus-cards): its
    ``payout`` says the attendant pays it, and the ``hit`` of that meter for its seat in the round
    announces the award the payout pays (docs/protocol.md, section 8), whether the meter resets at
    the hit or after the payment, so the payout meters the hits are booked on hold what the players
    were paid.  The amount is judged where the seat won that line alone and was paid by one event
    (the award is then returned less the stake where award-returns-stake holds, all of returned
    where not)."""
    if got is None or got.times != 1 or got.category not in METER_LINES:
        return
    seat, kind = key
    paid = got.events[0]
    runner.measure(step, f"seat {seat} {kind} meter line {got.category} paid by", paid.get("paid_by"), "attendant",
                   paid.get("paid_by") == "attendant",
                   detail="docs/protocol.md section 8: an attendant pays a meter jackpot, whenever the meter resets")
    lines = [e.payload for e in runner.round.ctrl_events if e.name == "hit" and e.payload.get("seat") == seat
             and e.payload.get("category") != MYSTERY_CATEGORY]
    hits = [h for h in lines if h.get("category") == got.category and h.get("meter") is not None]
    if len(lines) != 1 or len(hits) != 1 or hits[0].get("amount") is None:
        return  # announced with another line, or not in this round (a linked award comes later)
    stake, returned = int(paid["stake"]), int(paid["returned"])
    allowed = sorted({returned - stake, returned - (stake if award_returns_stake else 0)})
    amount = hits[0].get("amount")
    runner.measure(step, f"seat {seat} {kind} hit amount for meter line {got.category} ({hits[0].get('meter')})",
                   amount, " or ".join(map(str, allowed)), amount in allowed, unit="cents",
                   detail=f"payout stake {stake} returned {returned} paid by {paid.get('paid_by')}")


def measure_no_phantom_settlement(runner: CaseContext, step: Step, paid: Mapping[Key, Paid]) -> None:
    """A Royal 9 ``payout`` that settles a wager (category ``null``: it lost) at a seat where no Royal 9
    wager was accepted settles a wager that was never placed (docs/protocol.md, section 8: one
    settlement payout per accepted wager).  An award paid to a seat without a wager (an envy line
    where the Rules Submission pays it so) is not one."""
    phantom = sorted(seat for (seat, kind), got in paid.items()
                     if kind == "royal9" and (seat, kind) not in runner.round.wagers and got.category is None)
    runner.measure(step, "no Royal 9 wager settled at a seat where none was placed",
                   ", ".join(f"seat {s}" for s in phantom) or "none", "none", not phantom,
                   detail="; ".join(paid[(s, "royal9")].describe() for s in phantom))


def category_shown(got: Paid | None) -> str:
    """The category a device reported, for a measurement's detail."""
    if got is None:
        return "device category: no payout event"
    return f"device category {got.category}" + (f" ({got.describe()})" if got.times > 1 else "")
