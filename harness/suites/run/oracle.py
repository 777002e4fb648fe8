"""What the regulation expects of one round: the host-side oracle the runner compares against.

The device (real or emulated) reports payouts; this module computes, from the cards the shoe
reported and the wagers the sensors accepted, what each wager must return under the profile's
Rules Submission and the interpretations in force.  Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from harness.cards import Card, Combo
from harness.devices.contract import ContractError
from harness.devices.roles import MeterReading
from harness.games.baccarat import BaccaratRound, deal_round, settle_wager, wager_options
from harness.games.blackjack import DealerHand, dealer_hand, meter_shares, settle_hit_and_run
from harness.games.interpretations import Interpretations
from harness.games.royal9 import METERS, Royal9Table, SeatResult
from harness.money import Cents
from harness.profiles.model import MeterSettings, Profile
from harness.progressive.meter import grow_to_cap

BASE = ("player", "banker", "tie", "dragon7", "panda8")


@dataclass(frozen=True)
class ExpectedPayout:
    seat: int
    type: str
    category: str | None
    stake: Cents
    returned: Cents
    #: meters this award takes (they must reset afterwards)
    meters: tuple[str, ...] = ()
    #: the paytable lines won that are not meters, each with the ``hit`` event's amount (docs/protocol.md 6.4
    #: events: "the fixed line's award as the paytable writes it"; None for an odds line, whose hit may say
    #: the cents won or null)
    lines: tuple[tuple[str, Cents | None], ...] = ()


@dataclass(frozen=True)
class ExpectedRound:
    baccarat: BaccaratRound | None
    dealer: DealerHand | None
    payouts: Mapping[tuple[int, str], ExpectedPayout]


def _fixed_lines(sr: SeatResult) -> tuple[tuple[str, Cents | None], ...]:
    """The Royal 9 lines a seat won that are not meters, with the amount each one's ``hit`` names."""
    return tuple((category, int(pay.value) if pay.kind == "fixed" else None)
                 for category, pay in zip(sr.awarded, sr.pays, strict=True) if category not in METERS)


class Oracle:
    """The regulation's expectations for one profile (table configuration + interpretations)."""

    def __init__(self, profile: Profile, interpretations: Interpretations) -> None:
        self.profile = profile
        self.interp = interpretations
        rules = profile.rules
        self.game = profile.game
        self.royal9: Royal9Table | None = None
        combos = {s.seat: s.combo for s in rules.seats if s.combo is not None}
        if rules.denomination is not None and combos:
            self.royal9 = Royal9Table(combos, rules.denomination, interpretations=interpretations)
        self.commission = rules.commission if rules.commission is not None else Decimal(5)

    def with_combos(self, combos: Mapping[int, Combo | None]) -> Oracle:
        """The oracle of the same table with the personal combinations ``combos`` in force (a
        configuration write between rounds: Royal 9 (e)(5), 461a.12(i)): play after the write is
        judged against the combinations written, not the ones filed."""
        rules = self.profile.rules
        seats = tuple(dataclasses.replace(s, combo=combos.get(s.seat, s.combo)) for s in rules.seats)
        profile = dataclasses.replace(self.profile, rules=dataclasses.replace(rules, seats=seats))
        return Oracle(profile, self.interp)

    @property
    def is_hit_and_run(self) -> bool:
        return self.game == "blackjack-hit-and-run"

    def cards_in_round(self, cards: Sequence[Card]) -> int:
        """How many of ``cards`` (top first) one complete round takes under the rules: the baccarat
        tableau, or the Hit and Run dealer's hand; raises ``InputError`` when they are too few."""
        if self.is_hit_and_run:
            hr = self.profile.rules.hit_and_run
            return dealer_hand(cards, hit_soft17=hr.hits_soft17 if hr is not None else True).n_cards
        return deal_round(cards).cards_used

    def round(
        self,
        cards: Sequence[Card],
        wagers: Mapping[tuple[int, str], Cents],
        meters: Mapping[str, Cents],
    ) -> ExpectedRound:
        """Expected settlement of every wager for the dealt ``cards``; ``meters`` are the amounts
        on the meters when the round is settled (after this round's contributions)."""
        if self.is_hit_and_run:
            return self._hit_and_run(cards, wagers, meters)
        rnd = deal_round(cards)
        game: Literal["baccarat", "ez-baccarat"] = "ez-baccarat" if self.game == "ez-baccarat" else "baccarat"
        out: dict[tuple[int, str], ExpectedPayout] = {}
        for (seat, kind), stake in wagers.items():
            if kind in BASE:
                label, st = settle_wager(rnd, kind, stake, game=game, commission=self.commission,
                                         **wager_options(self.interp.as_dict()))
                out[(seat, kind)] = ExpectedPayout(seat, kind, label, st.stake, st.returned)
        r9_seats = frozenset(seat for (seat, kind) in wagers if kind == "royal9")
        if self.royal9 is not None and r9_seats:
            res = self.royal9.resolve(rnd.first_four(), wagers=r9_seats, meters=meters)
            for sr in res.seats:
                if not sr.wager:
                    continue
                r9 = sr.settlement
                out[(sr.seat, "royal9")] = ExpectedPayout(
                    sr.seat, "royal9", sr.category, r9.stake if r9 else 0, r9.returned if r9 else 0, sr.meters_hit,
                    _fixed_lines(sr),
                )
        return ExpectedRound(rnd, None, out)

    def _hit_and_run(
        self, cards: Sequence[Card], wagers: Mapping[tuple[int, str], Cents], meters: Mapping[str, Cents]
    ) -> ExpectedRound:
        hr = self.profile.rules.hit_and_run
        hit_soft17 = hr.hits_soft17 if hr is not None else True
        hand = dealer_hand(cards, hit_soft17=hit_soft17, interpretations=self.interp)
        meter = meters.get("hit-and-run")
        out: dict[tuple[int, str], ExpectedPayout] = {}
        on_hr = [(seat, stake) for (seat, kind), stake in wagers.items() if kind == "hit-and-run"]
        shares = meter_shares(self.interp, [(seat, settle_hit_and_run(hand, stake, meter,
                                                                      interpretations=self.interp)[0])
                                            for seat, stake in on_hr], meter)
        for (seat, kind), stake in wagers.items():
            if kind != "hit-and-run":
                continue
            category, st = settle_hit_and_run(hand, stake, shares.get(seat, meter), interpretations=self.interp)
            taken = ("hit-and-run",) if category == "8-plus-cards" else ()
            out[(seat, kind)] = ExpectedPayout(seat, kind, category, st.stake, st.returned, taken)
        return ExpectedRound(None, hand, out)

    def contribution(self, stake: Cents, rate: Decimal) -> Decimal:
        """Exact contribution of one wager to a meter, in cents (fractions kept)."""
        return Decimal(stake) * rate / 100


# --------------------------------------------------------------------------- meter arithmetic
# One place for the exact contribution arithmetic the runner, the bulk rounds, the Royal 9 checks
# and the soak all compare the device with.

QUALIFYING = ("royal9", "hit-and-run")


def meter_settings(profile: Profile, rates: Mapping[str, Decimal] | None = None) -> dict[str, MeterSettings]:
    """The meters a qualifying wager feeds at the profile's rates (Hit and Run's under its name,
    the mystery meter at its configuration's rate, Royal 9 (h)); ``rates`` are rates written since
    (``configure_meter``), in force instead of the profile's."""
    settings = dict(profile.rules.meters)
    if profile.rules.hit_and_run is not None:
        settings["hit-and-run"] = profile.rules.hit_and_run.meter
    mystery = profile.rules.mystery
    if mystery is not None:
        settings["mystery"] = MeterSettings("mystery", mystery.rate, mystery.reseed, mystery.reseed)
    for name, rate in (rates or {}).items():
        if name in settings:
            settings[name] = dataclasses.replace(settings[name], rate=rate)
    return settings


def qualifying_stakes(wagers: Mapping[tuple[int, str], Cents]) -> Cents:
    """The wagers that feed the progressive meters (Royal 9, Hit and Run)."""
    return sum(amount for (_seat, kind), amount in wagers.items() if kind in QUALIFYING)


def meters_at_settlement(profile: Profile, start: MeterReading, stakes: Cents,
                         rates: Mapping[str, Decimal] | None = None) -> dict[str, Cents]:
    """Meter amounts at settlement: the round-start reading plus this round's exact contributions,
    the residual (fractions of a cent) carried in (Royal 9 (f)(2); 461a.12); ``rates`` as for
    :func:`meter_settings`."""
    settings = meter_settings(profile, rates)
    out: dict[str, Cents] = {}
    for name, amount in start.meters.items():
        m = settings.get(name)
        out[name] = amount if m is None else capped(m, amount, int(start.residual.get(name, Decimal(0))
                                                                   + Decimal(stakes) * m.rate / 100))
    return out


def capped(m: MeterSettings, amount: Cents, whole: Cents) -> Cents:
    """``amount`` after ``whole`` cents of contributions: it stops at the meter's cap (its payout
    limit, else its display capacity; 461a.12(j), (k)(1)), the excess diverted, never wrapped
    (interpretation ``meter-excess-at-limit``)."""
    return grow_to_cap(amount, whole, m.cap)[0]


def diverted(reading: MeterReading, meter: str) -> Cents:
    """The whole cents the device reports diverted from ``meter`` at its cap (``meters.get``
    ``diverted``, optional: 0 where the device does not report it)."""
    value = (reading.raw.get("diverted") or {}).get(meter, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def contribution_check(rate: Decimal, stakes: Cents, start: MeterReading, now: MeterReading,
                       meter: str, cap: Cents | None = None) -> tuple[Decimal, Decimal]:
    """``(growth + residual growth, wagers x rate)`` of one meter between two readings, in exact
    cents: equal when every fraction of a cent was carried and nothing dropped.  A meter standing at
    its ``cap`` counts what it reports diverted since ``start`` (the excess stops there, 461a.12(j),
    (k)(1)); below its cap a diverted cent is a lost contribution and is not counted.  A device
    whose meter stands at its cap must report ``diverted`` for it (docs/protocol.md, section 8):
    without it conservation cannot be judged, and the reading is outside the contract
    (:class:`~harness.devices.contract.ContractError`, the case's ERROR, never a FAIL)."""
    got = (Decimal(now.meters[meter] - start.meters.get(meter, 0))
           + now.residual.get(meter, Decimal(0)) - start.residual.get(meter, Decimal(0)))
    want = Decimal(stakes) * rate / 100
    if cap is not None and now.meters[meter] >= cap:
        if meter not in (now.raw.get("diverted") or {}):
            raise ContractError("controller", "the meters.get reply", f"diverted.{meter}",
                                f"meter {meter!r} stands at its cap ({now.meters[meter]} cents) and "
                                "reports no diverted cents", "reply:meters.get")
        if meter in (start.raw.get("diverted") or {}):
            got += diverted(now, meter) - diverted(start, meter)
        else:
            got += _diverted_since_unreported(got, want, diverted(now, meter))
    return got, want


def _diverted_since_unreported(got: Decimal, want: Decimal, total: Cents) -> Decimal:
    """The cents diverted since a reading that left ``diverted`` out (it is optional below the cap,
    docs/protocol.md section 6.4), to a reading at the cap reporting ``total`` diverted: the count at
    the first reading is unknown (it is cumulative: cents diverted before an earlier reset stay in
    it), so it is what the contributions left over, ``want - got``, where that is whole cents within
    ``total``; otherwise ``total`` (the check then fails: cents were lost, or created)."""
    left = want - got
    return left if left == left.to_integral_value() and 0 <= left <= total else Decimal(total)
