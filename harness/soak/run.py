"""The soak: many random rounds through the emulators, every invariant checked every round.

Why (issue "the harness never passes a non-compliant device"): a defect that shows once in a
thousand rounds - a fraction of a cent dropped, a rate a hair off, a meter turned back - slips
through scripted cases.  The soak deals rounds drawn from a freshly shuffled full shoe through the
rig exactly as a certification run does (:func:`harness.suites.run.profile_rig.open_rig`: the emulator in its
own process, reached over a pty or 127.0.0.1 TCP by the reference drivers) and checks, each round:

* every payout against the oracle (:class:`harness.suites.run.oracle.Oracle`; 629a Royal 9 (e)-(h),
  633a.13(l)(1), the baccarat paytables);
* the meters (:class:`harness.progressive.invariants.MeterAudit`): contributions x rate equal
  growth plus residual to the fraction of a cent (Royal 9 (f)(2), (g)(2); 461a.12(c)(2)), no
  decrease except by a hit (461a.12(h)), never below reset, never past the limit (461a.12(j),
  (k)(1)), the mystery never past must-hit-by (Royal 9 (h));
* the cards the shoe reported against the cards loaded.

At the end the observed hit frequencies are tested against the exact math
(:mod:`harness.soak.stats`), and the mystery awards against the Rules Submission's trigger law
(Royal 9 (h), :func:`harness.randomness.evidence.mystery_check`: FAIL on a rejection, INCONCLUSIVE
with fewer awards than planned); the result and its summary live in :mod:`harness.soak.result`.
Memory stays flat: counters only, and the driver transcripts (which keep every byte,
:mod:`harness.devices.transcript`) are swapped for :class:`harness.soak.rig.BoundedTranscript`.

Meter jackpots are paid by an attendant and wait for the reset key (``meter-reset-timing``): the
soak checks the payout, reads the meters while the hit is pending, then turns the key.  Royal 9
wagers may need a base wager at the seat (interpretation ``r9-requires-base-wager``): when the
device refuses one with reason ``no-base-wager`` the soak places a Player or Banker wager first.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from harness.cards import Card, format_cards, parse_card, shoe_composition
from harness.devices.link import DeviceEvent, NakError
from harness.devices.roles import BetSensors, MeterReading, ProgressiveController, Shoe
from harness.errors import DeviceError, DeviceTimeout, InputError
from harness.games.interpretations import Interpretations
from harness.money import Cents
from harness.profiles.model import Profile
from harness.progressive.invariants import (
    Contribution,
    JackpotHit,
    MeterAudit,
    Observation,
    Reading,
    Reset,
)
from harness.randomness.evidence import mystery_check
from harness.soak.result import SoakResult
from harness.soak.rig import bound_transcripts, meter_specs
from harness.soak.stats import (
    Tally,
    baccarat_bin,
    baccarat_law,
    dealer_cards_bin,
    dealer_cards_law,
    dealer_max_cards,
    peak_rss_kib,
    royal9_laws,
    rss_kib,
)
from harness.suites.run.oracle import ExpectedRound, Oracle, meters_at_settlement
from harness.suites.run.profile_rig import open_rig
from harness.suites.run.rig import Rig
from harness.suites.steps.payouts import paid_more_than_once, settlements

ROUND_TIMEOUT_S = 10.0
BACCARAT_CARDS = 6


@dataclass(frozen=True)
class SoakOptions:
    rounds: int
    seed: int
    #: wagering seats; None = every seat of the profile
    seats: tuple[int, ...] | None = None
    listen: str = "pty"
    #: deal pace (0 = the shoe deals a round synchronously, the fastest)
    pace_us: int = 0
    rss_every: int = 1000
    transcript_entries: int = 2000
    round_timeout_s: float = ROUND_TIMEOUT_S
    #: an emulator defect replacing the profile's (the tests prove the soak catches it)
    defect: str | None = None
    run_dir: Path | None = None
    #: play until this many hours have passed (with ``rounds``: whichever comes first; 0 rounds: no limit)
    hours: Decimal | None = None
    #: observe only (harness.soak.observe): what the operator deals and the sensors report, nothing loaded
    observe: bool = False
    #: observe: the wagers are placed from a wager sheet (``sheet``) or only read off the sensors (``observed``)
    wagers: str = "sheet"
    operator: str = ""


Progress = Callable[[SoakResult], None]


class Soak:
    """One soak run: build the laws, open the rig, play the rounds, close the rig."""

    def __init__(self, profile: Profile, options: SoakOptions, progress: Progress | None = None) -> None:
        if options.rounds < 1 and options.hours is None:
            raise InputError(f"--rounds {options.rounds}: at least one round")
        self.check_profile(profile, options)
        if options.defect is not None:
            profile = dataclasses.replace(profile, emulator=dataclasses.replace(profile.emulator,
                                                                                defect=options.defect))
        self.profile = profile
        self.opts = options
        self.progress = progress
        self.oracle = Oracle(profile, Interpretations.from_overrides(dict(profile.interpretations)))
        rules = profile.rules
        declared = [s.seat for s in rules.seats]
        seats = options.seats if options.seats is not None else tuple(declared)
        unknown = [s for s in seats if s not in declared]
        if unknown or not seats:
            raise InputError(f"--seats: seat(s) {', '.join(map(str, unknown)) or 'none'} not in the profile "
                             f"(seats {', '.join(map(str, declared))})")
        self.seats = tuple(seats)
        self.kind: str | None = None
        self.tallies: list[Tally] = []
        self.r9: dict[int, Tally] = {}
        self.baccarat: Tally | None = None
        self.dealer: Tally | None = None
        if self.oracle.is_hit_and_run:
            hr = rules.hit_and_run
            decks, soft17 = (hr.decks, hr.hits_soft17) if hr is not None else (6, True)
            self.kind = "hit-and-run"
            self.deal_count = dealer_max_cards(decks, soft17)
            self.dealer = Tally("hit-and-run dealer cards", dealer_cards_law(decks, soft17))
            self.tallies.append(self.dealer)
            self.base_types: tuple[str, ...] = ()
        else:
            decks = rules.decks
            self.deal_count = BACCARAT_CARDS
            self.baccarat = Tally("baccarat outcomes", baccarat_law(decks))
            if self.oracle.royal9 is not None:
                self.kind = "royal9"
                for seat, law in royal9_laws(self.oracle.royal9, decks, self.seats).items():
                    self.r9[seat] = Tally(f"royal9 seat {seat}", law)
                self.tallies.extend(self.r9.values())
                self.base_types = ("player", "banker")
            else:
                ez = ("dragon7", "panda8") if profile.game == "ez-baccarat" else ()
                self.base_types = ("player", "banker", "tie", *ez)
            self.tallies.append(self.baccarat)
        self.shoe_cards = [c for c, n in shoe_composition(decks).items() for _ in range(n)]
        self.stake: Cents = (rules.denomination or 5) * 100
        self.specs = {s.name: s for s in meter_specs(profile)}
        self.audit = MeterAudit(self.specs.values(), keep=0)
        self.shoe_rng = random.Random(options.seed)
        self.wager_rng = random.Random(f"{options.seed}/wagers")
        self.need_base = self.kind is None
        self.result = SoakResult(profile.name, options.seed, options.listen, self.seats, options.rounds)
        self.start: MeterReading | None = None

    def check_profile(self, profile: Profile, options: SoakOptions) -> None:
        if not profile.is_emulated:
            raise InputError(f"{profile.source_path}: the soak deals through the emulator's test channel; "
                             "this profile names no emulated device (on a bench: tablecert soak --observe)")

    # ------------------------------------------------------------------ running

    def run(self) -> SoakResult:
        """Open the rig, play the rounds (:meth:`_player`, :meth:`_round_numbers`), sample the memory,
        close the rig; a device error or Ctrl-C ends the rounds, and the result says so."""
        res = self.result
        rig: Rig | None = None
        t0 = time.perf_counter()
        n = sampled = 0
        pid: int | None = None
        try:
            rig = open_rig(self.profile, listen=self.opts.listen, run_dir=self.opts.run_dir)
            bound_transcripts(rig, self.opts.transcript_entries)
            play = self._player(rig)
            pid = rig.emulator.pid if rig.emulator is not None else None
            ctrl = self._roles(rig)[2]
            t0 = time.perf_counter()
            rounds = self._round_numbers()
            if self.specs:
                self.start = self._read(0, ctrl)
            for n in rounds:
                play(n)
                res.rounds, res.elapsed_s = n, time.perf_counter() - t0
                if n == 1 or n % self.opts.rss_every == 0:
                    sampled = self._sample(n, pid)
                if self.progress is not None:
                    self.progress(res)
        except DeviceError as exc:
            res.error = f"round {n}: {type(exc).__name__}: {exc}"
            if rig is not None and rig.controller is not None and rig.controller.transcript is not None:
                res.evidence = rig.controller.transcript.tail(12)
        except KeyboardInterrupt:
            res.interrupted = True
        finally:
            res.elapsed_s = time.perf_counter() - t0
            if res.rounds and sampled != res.rounds:
                self._sample(res.rounds, pid)
            self._stop()
            if rig is not None:
                rig.close()
            res.peak_rss_kib = peak_rss_kib()
            res.tests = [t.test() for t in self.tallies]
            self._conclude()
        return res

    def _player(self, rig: Rig) -> Callable[[int], None]:
        """What plays round ``n``: dealt through the emulator's test channel."""
        shoe, sensors, ctrl = self._roles(rig)
        return lambda n: self._round(n, shoe, sensors, ctrl)

    def _round_numbers(self) -> Iterator[int]:
        """The rounds to play, by number from 1."""
        return iter(range(1, self.opts.rounds + 1))

    def _stop(self) -> None:
        """After the last round, before the rig closes (nothing to stop here)."""

    def _conclude(self) -> None:
        """After the rig closed: the mystery awards against the trigger law."""
        self.result.mystery = mystery_check(self.profile, self.result.mystery_awards)

    def _sample(self, n: int, emulator_pid: int | None) -> int:
        """RSS of the harness and of the emulator process, now (returns the round it was taken at)."""
        self.result.rss.add(rss_kib())
        if emulator_pid is not None:
            self.result.emulator_rss.add(rss_kib(emulator_pid))
        return n

    @staticmethod
    def _roles(rig: Rig) -> tuple[Shoe, BetSensors, ProgressiveController]:
        if rig.shoe is None or rig.sensors is None or rig.controller is None:
            raise DeviceError("the soak needs a shoe, bet sensors and a progressive controller")
        return rig.shoe, rig.sensors, rig.controller

    def _round(self, n: int, shoe: Shoe, sensors: BetSensors, ctrl: ProgressiveController) -> None:
        shoe.events(0.0)
        ctrl.events(0.0)  # the previous round's lock-out and reset notices
        ctrl.open_round()
        wagers = self._wagers(n, sensors)
        loaded = self.shoe_rng.sample(self.shoe_cards, self.deal_count)
        shoe.load(loaded)
        shoe.deal(None, self.opts.pace_us)
        events = self._until_round_end(ctrl)
        cards = self._dealt(n, shoe, loaded)
        stakes = sum(a for (_s, k), a in wagers.items() if k == self.kind)
        meters = meters_at_settlement(self.profile, self.start, stakes) if self.start is not None else {}
        exp = self.oracle.round(cards, wagers, meters)
        self._payouts(n, cards, exp, events)
        if not self.specs:
            return
        pending = self._meter_events(n, stakes, events)
        if pending:  # the won amounts stay shown, and are listed as pending, until the key is turned
            self._pending_shown(n, self._read(n, ctrl), pending)
        for meter in pending:
            try:
                ctrl.reset_key(meter)
            except NakError as exc:
                self.result.flag("reset-key", f"round {n}: reset key for {meter} refused: {exc.reason}")
                continue
            ev = ctrl.wait_event("reset", self.opts.round_timeout_s, _meter_is(meter))
            self._feed(n, Reset(meter, _int(ev.payload.get("amount"))))
        self.start = self._read(n, ctrl)
        self._pending_shown(n, self.start, {})

    def _wagers(self, n: int, sensors: BetSensors) -> dict[tuple[int, str], Cents]:
        wagers: dict[tuple[int, str], Cents] = {}

        def place(seat: int, kind: str) -> str | None:
            res = sensors.place(seat, kind, self.stake)
            if res.accepted:
                wagers[(seat, kind)] = self.stake
            return None if res.accepted else res.reason

        for seat in self.seats:
            if self.need_base:
                self._refused(n, seat, place(seat, self._base()))
            if self.kind is None:
                continue
            reason = place(seat, self.kind)
            if reason == "no-base-wager" and self.kind == "royal9" and not self.need_base:
                self.need_base = self.result.base_wagers = True
                self._refused(n, seat, place(seat, self._base()))
                reason = place(seat, self.kind)
            self._refused(n, seat, reason)
        return wagers

    def _base(self) -> str:
        return self.wager_rng.choice(self.base_types)

    def _refused(self, n: int, seat: int, reason: str | None) -> None:
        if reason is not None:
            self.result.flag("wager-refused", f"round {n}: seat {seat} wager refused before dealing ({reason})")

    def _until_round_end(self, ctrl: ProgressiveController) -> list[DeviceEvent]:
        deadline = time.monotonic() + self.opts.round_timeout_s
        out: list[DeviceEvent] = []
        while True:
            got = ctrl.events(min(0.05, max(0.0, deadline - time.monotonic())))
            out.extend(got)
            if any(e.name == "round_end" for e in got):
                return out
            if time.monotonic() > deadline:
                raise DeviceTimeout(f"no 'round_end' event within {self.opts.round_timeout_s} s of the deal")

    def _dealt(self, n: int, shoe: Shoe, loaded: list[Card]) -> list[Card]:
        """The cards the shoe reported; on any difference from those loaded, a violation."""
        deadline = time.monotonic() + self.opts.round_timeout_s
        seen: list[DeviceEvent] = []
        while len(seen) < len(loaded):
            got = [e for e in shoe.events(0.05) if e.name in ("card", "misread")]
            seen.extend(got)
            if not got and time.monotonic() > deadline:
                break
        reported = []
        for e in seen:
            try:
                reported.append(parse_card(str(e.payload.get("card"))) if e.name == "card" else None)
            except InputError:
                reported.append(None)
        if reported != loaded:
            self.result.flag("shoe-cards", f"round {n}: loaded {format_cards(loaded)}, the shoe reported "
                             + " ".join(c.code if c else "??" for c in reported))
            return loaded
        return [c for c in reported if c is not None]

    def _payouts(self, n: int, cards: list[Card], exp: ExpectedRound, events: list[DeviceEvent]) -> None:
        res = self.result
        paid = settlements(events)  # every payout kept: a second one for a wager is paying it twice
        for key, want in exp.payouts.items():
            res.payouts_checked += 1
            got = paid.get(key)
            got_ret = None if got is None else got.returned
            if got_ret != want.returned:
                res.flag("payout", f"round {n} ({format_cards(cards)}): seat {key[0]} {key[1]} returned "
                         f"{got_ret} cents, the oracle {want.returned} ({want.category})")
        for twice in paid_more_than_once(paid):
            res.flag("payout", f"round {n}: {twice}")
        for key in sorted(paid.keys() - exp.payouts.keys()):
            res.flag("payout", f"round {n}: seat {key[0]} {key[1]} paid {paid[key].returned} cents "
                     "for a wager the sensors never accepted")
        for seat, tally in self.r9.items():
            got = paid.get((seat, "royal9"))
            if got is not None:
                tally.add("lose" if got.category is None else str(got.category))
        if exp.baccarat is not None and self.baccarat is not None:
            self.baccarat.add(baccarat_bin(exp.baccarat))
        if exp.dealer is not None and self.dealer is not None:
            self.dealer.add(dealer_cards_bin(exp.dealer.n_cards))

    def _meter_events(self, n: int, stakes: Cents, events: list[DeviceEvent]) -> dict[str, Cents]:
        """Feed the round's contributions, hits and table resets; returns what awaits the reset key."""
        if stakes:
            self._feed(n, Contribution(stakes))
        resets = [e for e in events if e.name == "reset"]
        reset_meters = {str(e.payload.get("meter")) for e in resets}
        taken: set[str] = set()
        pending: dict[str, Cents] = {}
        mystery_hits: list[tuple[int, int]] = []
        for e in events:
            if e.name != "hit" or e.payload.get("meter") is None:
                continue
            meter, amount = str(e.payload["meter"]), _int(e.payload.get("amount"))
            self.result.meter_hits[meter] = self.result.meter_hits.get(meter, 0) + 1
            if meter == "mystery":
                mystery_hits.append((_int(e.payload.get("seat")), amount))
                self.result.mystery_awards.append(amount)
            # another winner of the same hand, paid what the meter showed; a mystery hit is never that:
            # each is a contribution reaching a trigger, and a second in one round is the reseeded
            # meter's own new trigger (it takes the amount it shows, as the first did)
            if meter in taken and meter != "mystery":
                self._feed(n, JackpotHit(meter, amount, meter_amount=0))
                if meter in pending:
                    pending[meter] += amount
                continue
            taken.add(meter)
            waits = meter not in reset_meters
            self._feed(n, JackpotHit(meter, amount, pending=waits))
            if waits:
                pending[meter] = pending.get(meter, 0) + amount
        for e in resets:
            meter = str(e.payload.get("meter"))
            spec = self.specs.get(meter)
            # a table-paid mystery reports its reseed plus the contribution carried past the trigger
            amount = spec.reset if meter == "mystery" and spec is not None else _int(e.payload.get("amount"))
            self._feed(n, Reset(meter, amount))
        awards = sorted((_int(e.payload.get("seat")), _int(e.payload.get("returned"))) for e in events
                        if e.name == "payout" and e.payload.get("category") == "mystery")
        if awards != sorted(mystery_hits):
            self.result.flag("mystery-award", f"round {n}: mystery hits {mystery_hits}, payouts {awards}")
        return pending

    def _read(self, n: int, ctrl: ProgressiveController) -> MeterReading:
        reading = ctrl.meters()
        self.result.meter_readings += 1
        diverted = reading.raw.get("diverted") or {}
        for name, amount in reading.meters.items():
            self._feed(n, Reading(name, amount, reading.residual.get(name, Decimal(0)), 0,
                                  _int(diverted.get(name, 0))))
        for name in sorted(set(self.specs) - set(reading.meters)):
            self.result.flag("meter-missing", f"round {n}: meters.get does not report {name}")
        return reading

    def _pending_shown(self, n: int, reading: MeterReading, want: Mapping[str, Cents]) -> None:
        """``meters.get`` lists the attendant payouts awaiting the reset key (461a.12(b)(5))."""
        raw = reading.raw.get("pending")
        if not isinstance(raw, list):
            return  # a controller that does not report them
        got = {str(p.get("meter")): p.get("amount") for p in raw if isinstance(p, Mapping)}
        if got != dict(want):
            self.result.flag("pending", f"round {n}: meters.get lists {got or 'nothing'} awaiting the reset key, "
                             f"the hits were {dict(want) or 'none'}")

    def _feed(self, n: int, obs: Observation) -> None:
        for v in self.audit.feed(obs):
            self.result.flag(v.kind, f"round {n}: {v.message} [{v.clause}]")


def _meter_is(meter: str) -> Callable[[DeviceEvent], bool]:
    return lambda e: e.payload.get("meter") == meter


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DeviceError(f"expected an integer in a device event, got {value!r}")
    return value


def run_soak(profile: Profile, options: SoakOptions, progress: Progress | None = None) -> SoakResult:
    return Soak(profile, options, progress).run()
