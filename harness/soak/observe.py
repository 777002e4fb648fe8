"""The observe-only soak: hours of rounds on a real bench, every invariant of the soak checked on what is read.

``tablecert soak --observe`` runs on a profile whose shoe cannot be loaded (a real device, or an
emulator with no test channel: ``--bench-twin``).  Nothing is loaded and no card is chosen.  Each round
the bench's performers (:mod:`harness.bench`, as the profile's ``bench:`` section says: the operator,
relays, the scripted operator of a bench twin) open the round, place the chips of a wager sheet (or,
with ``--wagers observed``, the soak only reads the wagers the sensors report, as players place them),
deal one round from a shoe shuffled at the table, and turn the reset key when an attendant payout
waits for it.  The harness reads the cards from the shoe's events and applies the oracle to the cards
read; the checks are those of :mod:`harness.soak.run`: every payout against the oracle, the meter audit
(contributions x rate, residuals, no decrease but by a hit, reset, limits, must-hit-by), the pending
attendant payouts, the mystery awards, and the cards themselves (no card more often than the shoe
holds it, no misread); at the end the hit frequencies against the exact math.

The laws of :mod:`harness.soak.stats` are those of a round from a full shoe; rounds dealt one after
another from a shoe are exchangeable only approximately (the cards already dealt are gone), a
difference far below what a chi-square at p = 0.001 resolves over the rounds of a bench soak.
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from harness.bench.acts import Deal, LoadShoe, OpenRound, PlaceWagers, PressLockout, TurnResetKey
from harness.bench.performers import Performers, pump_until
from harness.bench.session import BenchSession
from harness.cards import Card, parse_card, shoe_composition
from harness.devices.link import DeviceEvent
from harness.devices.roles import Wager
from harness.errors import DeviceError, InputError
from harness.games.interpretations import Interpretations
from harness.money import Cents
from harness.profiles.model import Profile
from harness.progressive.invariants import Reset
from harness.soak.result import SoakResult
from harness.soak.run import Soak, SoakOptions
from harness.suites.run.oracle import meters_at_settlement
from harness.suites.run.rig import Rig

#: a shoe is shuffled and loaded again when fewer cards are left than this
RELOAD_BELOW = 20


@dataclass
class Seen:
    """What the devices reported since the round opened."""

    cards: list[Card] = field(default_factory=list)
    misreads: int = 0
    sensors: list[DeviceEvent] = field(default_factory=list)
    controller: list[DeviceEvent] = field(default_factory=list)


class SoakStage:
    """The stage the performers act on (:class:`harness.bench.performers.Stage`): the rig, and what
    its devices reported this round."""

    def __init__(self, rig: Rig, performers: Performers, round_length: Callable[[list[Card]], int | None]) -> None:
        self.rig = rig
        self.performers = performers
        self._round_length = round_length
        self.seen = Seen()
        self.n = 0

    def pump(self, timeout_s: float = 0.0) -> None:
        if self.rig.shoe is not None:
            got = self.rig.shoe.events(0.0)
            self.performers.observe("shoe", got)
            for ev in got:
                if ev.name == "card":
                    try:
                        self.seen.cards.append(parse_card(str(ev.payload.get("card"))))
                    except InputError:
                        self.seen.misreads += 1
                elif ev.name == "misread":
                    self.seen.misreads += 1
        events = getattr(self.rig.sensors, "events", None)
        if events is not None:
            got = events(0.0)
            self.performers.observe("sensors", got)
            self.seen.sensors.extend(got)
        if self.rig.controller is not None:
            got = self.rig.controller.events(timeout_s)
            self.performers.observe("controller", got)
            self.seen.controller.extend(got)

    def wait_for(self, what: str, pred: Callable[[], bool], timeout_s: float = 10.0) -> None:
        pump_until(self.pump, what, pred, timeout_s)

    def cards_read(self) -> list[Card]:
        self.pump()
        return list(self.seen.cards)

    def sensor_events(self) -> list[DeviceEvent]:
        self.pump()
        return self.seen.sensors

    def controller_events(self) -> list[DeviceEvent]:
        self.pump()
        return self.seen.controller

    def round_length(self, cards: list[Card]) -> int | None:
        return self._round_length(cards)

    def where(self) -> tuple[str, str]:
        return "soak", f"round {self.n}"

    def new_round(self, n: int) -> None:
        self.pump()
        self.seen, self.n = Seen(), n


class ObserveSoak(Soak):
    """The soak of :mod:`harness.soak.run`, its rounds dealt at the table and read (see the module docstring)."""

    def __init__(self, profile: Profile, options: SoakOptions, progress: Any = None) -> None:
        super().__init__(profile, options, progress)
        res = self.result
        res.mode, res.hours = "observe", (str(options.hours) if options.hours is not None else None)
        interp = Interpretations.from_overrides(dict(profile.interpretations)).as_dict()
        self.need_base = self.kind is None or (self.kind == "royal9" and interp.get("r9-requires-base-wager")
                                               in (True, None))
        self.dealer_button = interp.get("lockout-automatic") is False
        hr = profile.rules.hit_and_run
        self.decks = hr.decks if hr is not None else profile.rules.decks
        self.composition = shoe_composition(self.decks)
        self.in_shoe: Counter[Card] = Counter()
        self.left = 0
        #: the bench that deals and reads the rounds (opened with the rig)
        self.bench: BenchSession | None = None

    def check_profile(self, profile: Profile, options: SoakOptions) -> None:
        bench = profile.bench
        for act in ("load", "deal"):
            kind = bench.performer(act).kind
            if kind in ("test-channel", "none"):
                raise InputError(f"{profile.source_path}: soak --observe loads nothing and reads what is dealt at "
                                 f"the table; bench.performers.{act} is {kind} (a bench profile gives it to the "
                                 "operator; an emulated profile: --bench-twin)")
        why = bench.why_not("wager")
        if options.wagers == "sheet" and why:
            raise InputError(f"{profile.source_path}: {why}; or --wagers observed (read what players place)")

    # ------------------------------------------------------------------ running

    def _player(self, rig: Rig) -> Callable[[int], None]:
        """What plays round ``n``: the bench deals it, the rig reads it (the bench opened here)."""
        opts = self.opts
        bench = self.bench = BenchSession(self.profile, operator=opts.operator, run_id=f"soak-{opts.seed}",
                                          console=None)
        bench.open(rig)
        table = SoakStage(rig, bench.performers, self._round_length)
        ctrl = self._roles(rig)[2]

        def play(n: int) -> None:
            self._observed_round(n, table, bench.performers, ctrl)
            self.result.prompts += len(bench.prompts())

        return play

    def _round_numbers(self) -> Iterator[int]:
        """Rounds until ``--rounds`` of them or ``--hours`` of play from the first, whichever comes first."""
        rounds, hours = self.opts.rounds, self.opts.hours
        until = time.monotonic() + float(hours * 3600) if hours is not None else None
        return itertools.takewhile(
            lambda n: (not rounds or n <= rounds) and (until is None or time.monotonic() < until), itertools.count(1))

    def _stop(self) -> None:
        """The bench's last prompts counted, the bench closed."""
        if self.bench is not None:
            self.result.prompts += len(self.bench.prompts())
            self.bench.close()

    def _conclude(self) -> None:
        """Nothing more: an observed soak's mystery awards are not checked against the trigger law."""

    def _round_length(self, cards: list[Card]) -> int | None:
        try:
            return self.oracle.cards_in_round(cards)
        except Exception:
            return None

    def _observed_round(self, n: int, table: SoakStage, performers: Performers, ctrl: Any) -> None:
        table.new_round(n)
        bench = self.profile.bench
        if not bench.why_not("open-round"):
            performers.perform(OpenRound(), table)
        wagers = self.place(n, table, performers)
        if self.dealer_button and not bench.why_not("lockout-button"):
            performers.perform(PressLockout(), table)
        if self.left < max(RELOAD_BELOW, self.deal_count + 4):
            performers.perform(LoadShoe(shuffled=True, decks=self.decks, seed=self.opts.seed + n), table)
            self.in_shoe, self.left = Counter(), self.decks * 52
            self.result.shoes += 1
        performers.perform(Deal(one_round=True), table)
        table.wait_for("the cards of a whole round from the shoe",
                        lambda: self._round_length(table.seen.cards) is not None or table.seen.misreads > 0,
                        self.opts.round_timeout_s)
        table.wait_for("'round_end' event", lambda: any(e.name == "round_end" for e in table.seen.controller),
                        self.opts.round_timeout_s)
        if not wagers and self.opts.wagers == "observed":
            wagers = self._observed_wagers(table.seen.sensors)
        cards = self._cards(n, table)
        end = next(i for i, e in enumerate(table.seen.controller) if e.name == "round_end")
        events = table.seen.controller[:end + 1]
        stakes = sum(a for (_s, k), a in wagers.items() if k == self.kind)
        meters = meters_at_settlement(self.profile, self.start, stakes) if self.start is not None else {}
        self._payouts(n, cards, self.oracle.round(cards, wagers, meters), events)
        if not self.specs:
            return
        pending = self._meter_events(n, stakes, events)
        if pending:
            self._pending_shown(n, self._read(n, ctrl), pending)
        for meter in pending:
            seen = len(table.seen.controller)
            performers.perform(TurnResetKey(meter), table)
            ev = _wait_reset(meter, table, seen, self.opts.round_timeout_s)
            self._feed(n, Reset(meter, _cents(ev.payload.get("amount"))))
        self.start = self._read(n, ctrl)
        self._pending_shown(n, self.start, {})

    def place(self, n: int, table: SoakStage, performers: Performers) -> dict[tuple[int, str], Cents]:
        """The wager sheet: a base wager where one is needed, the progressive wager at every seat (a
        refusal for want of a base wager, the first time, puts base wagers on the sheet from then on)."""
        wagers: dict[tuple[int, str], Cents] = {}
        if self.opts.wagers == "observed":
            return wagers
        based: set[int] = set()
        for _attempt in range(2):
            sheet = [w for seat in self.seats for w in (
                *([Wager(seat, self._base(), self.stake)] if self.need_base and seat not in based else []),
                *([Wager(seat, self.kind, self.stake)] if self.kind is not None and (seat, self.kind) not in wagers
                  else []))]
            results = performers.perform(PlaceWagers(tuple(sheet)), table) if sheet else []
            retry = False
            for w, r in zip(sheet, results, strict=True):
                if r.accepted:
                    wagers[(w.seat, w.type)] = w.amount
                    based.update([w.seat] if w.type != self.kind else [])
                elif r.reason == "no-base-wager" and self.kind == "royal9" and not self.need_base:
                    retry = True
                else:
                    self._refused(n, w.seat, r.reason)
            if not retry:
                break
            self.need_base = self.result.base_wagers = True
        return wagers

    @staticmethod
    def _observed_wagers(events: list[DeviceEvent]) -> dict[tuple[int, str], Cents]:
        """The wagers the sensors accepted and still hold when the cards come (players placed them)."""
        out: dict[tuple[int, str], Cents] = {}
        for e in events:
            key = (_cents(e.payload.get("seat")), str(e.payload.get("type")))
            if e.name == "wager" and e.payload.get("accepted"):
                out[key] = _cents(e.payload.get("amount"))
            elif e.name == "wager_removed" and e.payload.get("removed"):
                out.pop(key, None)
        return out

    def _cards(self, n: int, table: SoakStage) -> list[Card]:
        """The round's cards as read, held to the shoe they came from."""
        cards = table.seen.cards[:self._round_length(table.seen.cards) or len(table.seen.cards)]
        self.result.cards_read += len(cards)
        self.left -= len(cards)
        if table.seen.misreads:
            self.result.flag("shoe-cards", f"round {n}: the shoe reported {table.seen.misreads} misread card(s)")
        self.in_shoe.update(cards)
        for card, count in self.in_shoe.items():
            if count > self.composition.get(card, 0):
                self.result.flag("shoe-cards", f"round {n}: {card.code} read {count} times from one shoe of "
                                 f"{self.decks} deck(s), which holds {self.composition.get(card, 0)}")
                self.in_shoe[card] = self.composition.get(card, 0)
        return cards


def _wait_reset(meter: str, table: SoakStage, since: int, timeout_s: float) -> DeviceEvent:
    """The controller's ``reset`` of ``meter`` after the key was turned."""
    def find() -> DeviceEvent | None:
        return next((e for e in table.seen.controller[since:]
                     if e.name == "reset" and e.payload.get("meter") == meter), None)

    table.wait_for(f"'reset' event of the {meter} meter", lambda: find() is not None, timeout_s)
    found = find()
    assert found is not None
    return found


def _cents(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DeviceError(f"expected an integer in a device event, got {value!r}")
    return value


def run_observe(profile: Profile, options: SoakOptions, progress: Any = None) -> SoakResult:
    return ObserveSoak(profile, options, progress).run()

