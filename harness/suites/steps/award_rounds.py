"""Rounds played for mystery awards (``expect_mystery_distribution``): thousands of them, each checked.

The planned awards take thousands of rounds (configuration 1 with seven $5 Royal 9 wagers: about
214 a round).  Per round the step needs what its judgement needs and what it promises, nothing
more:

* the round opened, every wager accepted (one batch: the test channel pipelines it), one round
  dealt, the settlement (``round_end``) awaited;
* **every settlement checked**: each wager's ``payout`` against the oracle, from the events the
  round already brought (no extra exchange with the device);
* **the meters conserved**: the meters are read at the start, after every round with a hit (the
  attendant pays and turns the reset key where a hit waits for it, :func:`hits_to_pay`) and at
  the end; between two readings every meter not hit must have grown by exactly the wagers times
  its rate (fractions of a cent in the residual).  The amounts in between are carried forward
  exactly (:func:`advance`), so the oracle pays meter awards from the meters as they stand, as
  when they are read every round, without a reading per round;
* each mystery award the controller reports.

The shoe: one freshly shuffled shoe is loaded and dealt round by round, reloaded when fewer than
:data:`~harness.suites.run.context.LIVE_RELOAD_BELOW` cards are left, as a table is dealt (a load per
shoe, not per round), through whoever performs the acts: the test channel (pace 0, synchronous),
or the bench's operator (the bench twin: the scripted operator, whose ``bulk_speed`` may hurry
these rounds in CI; docs/device-profiles.md).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING

from harness.bench.acts import Deal, LoadShoe, OpenRound
from harness.cards import format_cards
from harness.devices.roles import MeterReading
from harness.randomness.observations import MysteryAward
from harness.suites.load.model import Step
from harness.suites.run.context import LIVE_RELOAD_BELOW
from harness.suites.run.oracle import capped, contribution_check, meter_settings, qualifying_stakes
from harness.suites.steps.core import hits_to_pay, measure_payments, settle_round
from harness.suites.steps.expect import expected_round
from harness.suites.steps.payouts import settlements

if TYPE_CHECKING:
    from harness.profiles.model import MeterSettings
    from harness.suites.run.context import CaseContext

#: findings listed in a measurement's detail (the count is exact whatever the list)
DETAIL_LIMIT = 2000


def advance(reading: MeterReading, settings: dict[str, MeterSettings], stakes: int,
            skip: frozenset[str] = frozenset()) -> MeterReading:
    """``reading`` after ``stakes`` cents of qualifying wagers contributed to every meter at its rate,
    exactly (whole cents on the meter, the rest in the residual); meters in ``skip`` unchanged."""
    meters = dict(reading.meters)
    residual = dict(reading.residual)
    for name, amount in reading.meters.items():
        m = settings.get(name)
        if m is None or name in skip:
            continue
        total = residual.get(name, Decimal(0)) + Decimal(stakes) * m.rate / 100
        whole = int(total)
        meters[name] = capped(m, amount, whole)
        residual[name] = total - whole
    return dataclasses.replace(reading, meters=meters, residual=residual)


class AwardRounds:
    """Rounds played until a number of mystery awards, in one or more calls (the procedure's stages
    continue the same play); the checks accumulate over every round played."""

    def __init__(self, runner: CaseContext, step: Step, seed: int, reseed: int, must_hit_by: int) -> None:
        self.runner = runner
        self.step = step
        self.seed = seed
        self.reseed = reseed
        self.must_hit_by = must_hit_by
        self.rng = random.Random(seed)
        kinds = ("player", "royal9") if runner.requires_base_wager else ("royal9",)
        self.wagers: list[tuple[int, str, int | None]] = [(s, k, runner.stake_default) for s in runner.seats_of("all")
                                                          for k in kinds]
        self.settings = meter_settings(runner.profile)
        self.rounds = 0
        self.shoes = 0
        self.payouts_checked = 0
        self.payout_problems: list[str] = []
        self.conservation_checked = 0
        self.conservation_problems: list[str] = []
        self.paying: list[str] = []
        #: the last meter reading, and the meters as they must stand now (carried forward exactly)
        self.read: MeterReading | None = None
        self.now: MeterReading | None = None
        #: meters hit since the last reading (their conservation is not checked across the hit)
        self.hit_since: set[str] = set()
        self.stakes_since = 0

    # -- meters ---------------------------------------------------------------------------------
    def _reading(self, reading: MeterReading) -> None:
        """A fresh reading: every meter not hit since the last one must stand where the wagers put it."""
        if self.now is not None:
            for name, m in self.settings.items():
                if name in self.hit_since or name not in reading.meters or name not in self.now.meters:
                    continue
                self.conservation_checked += 1
                assert self.read is not None
                got, want = contribution_check(m.rate, self.stakes_since, self.read, reading, name,
                                               m.cap)
                if got != want:
                    self.conservation_problems.append(
                        f"by round {self.rounds}: {name} grew {got} cents (growth + residual) since the reading "
                        f"before, wagers x rate {want}")
        self.read = self.now = reading
        self.hit_since.clear()
        self.stakes_since = 0

    def _read_now(self) -> None:
        self._reading(self.runner.read_meters())

    # -- one round ------------------------------------------------------------------------------
    def _deal(self) -> None:
        runner = self.runner
        runner.dealer_closes_wagering()
        live = runner.profile.bench.performer("load").kind != "test-channel"
        if runner.live_left is None or runner.live_left < LIVE_RELOAD_BELOW:
            self.shoes += 1
            runner.perform(LoadShoe(shuffled=True, decks=runner.shoe_decks, seed=self.rng.randrange(2**31)))
            runner.live_left = runner.shoe_decks * 52
            if live:  # a shoe a person shuffled: the cards read are kept for the record (observed-cards.json)
                runner.observed.append({"decks": runner.shoe_decks, "rounds": []})
        runner.loaded = ()
        before = len(runner.round.cards)
        machine = runner.profile.bench.performer("deal").kind == "test-channel"
        runner.perform(Deal(None, 0 if machine else None, one_round=True))  # pace 0: dealt before the answer
        def whole() -> bool:
            return runner.round_length(runner.cards_read()[before:]) is not None

        if not whole():  # look before waiting: a machine's deal is read by the time it answers
            runner.wait_for("the cards of a whole round from the shoe", whole, timeout_s=2.0)
        runner.live_left -= len(runner.round.cards) - before
        if any(e.name == "round_end" for e in runner.controller_events()):
            runner.round.settled = True  # settled already (what settle_round waits for)
            runner.count_round()
        else:
            settle_round(runner, self.step)
        if live and runner.observed:
            runner.observed[-1]["rounds"].append([c.code for c, _t in runner.round.cards])

    def _round(self) -> list[MysteryAward]:
        runner, n = self.runner, self.rounds + 1
        self.rounds = n
        runner.new_round()
        runner.round.opened = True
        runner.controller()
        runner.perform(OpenRound())
        assert self.now is not None
        runner.snapshot("round-start", self.now)  # the oracle pays meter awards from the meters as they stand
        for (seat, kind, _a), res in zip(self.wagers, runner.place_many(self.wagers), strict=True):
            if not res.accepted:
                raise AssertionError(f"round {n}: seat {seat} {kind} wager refused while playing for mystery awards "
                                     f"({res.reason})")
        self._deal()
        events = runner.round.ctrl_events
        self._check_settlement(n)
        stakes = qualifying_stakes(runner.round.wagers)
        hit = frozenset(str(e.payload.get("meter")) for e in events if e.name == "hit")
        self.stakes_since += stakes
        self.hit_since |= hit
        self.now = advance(self.now, self.settings, stakes, hit)
        if hit:  # paid, and keys turned, where an attendant pays; then the meters as they now stand
            problems, _turned = hits_to_pay(runner)
            self.paying += [f"round {n}: {p}" for p in problems]
            self._reading(runner.timeline[-1])
        return [MysteryAward(int(e.payload["amount"]), self.reseed, self.must_hit_by) for e in events
                if e.name == "hit" and e.payload.get("meter") == "mystery"]

    def _check_settlement(self, n: int) -> None:
        runner = self.runner
        exp = expected_round(runner)
        paid = settlements(runner.round.ctrl_events)
        for key, e in exp.payouts.items():
            self.payouts_checked += 1
            got = paid.get(key)
            if got is None or got.returned != e.returned or got.times > 1:
                twice = f"; {got.describe()}" if got is not None and got.times > 1 else ""
                self.payout_problems.append(
                    f"round {n} ({format_cards(runner.cards_read())}): seat {key[0]} {key[1]} returned "
                    f"{got.returned if got else None} cents, oracle {e.returned} ({e.category}){twice}")

    # -- playing --------------------------------------------------------------------------------
    def play(self, wanted: int, max_rounds: int, stop: Callable[[list[MysteryAward]], bool]) -> list[MysteryAward]:
        """Rounds until ``wanted`` awards, ``max_rounds`` rounds in all, or ``stop`` says the verdict over
        ``wanted`` is already certain; the meters are read before and after."""
        out: list[MysteryAward] = []
        self._read_now()
        with self.runner.performers.bulk_rounds():  # a person's prompts say so; a scripted one may hurry
            while len(out) < wanted and self.rounds < max_rounds:
                new = self._round()
                out += new
                if new and len(out) < wanted and stop(out):
                    break
        if self.stakes_since or self.hit_since:
            self._read_now()
        return out

    def measure(self) -> None:
        """The checks over every round played, as measurements."""
        runner, step, rounds = self.runner, self.step, self.rounds
        bad = self.payout_problems
        runner.measure(step, f"payouts matching the oracle over {rounds} rounds", self.payouts_checked - len(bad),
                       self.payouts_checked, not bad, unit="wagers", detail="; ".join(bad)[:DETAIL_LIMIT])
        cons = self.conservation_problems
        runner.measure(step, f"meter contributions conserved over {rounds} rounds", self.conservation_checked
                       - len(cons), self.conservation_checked, not cons, unit="meter-stretches",
                       detail=("; ".join(cons)[:DETAIL_LIMIT] if cons else
                               "every meter not hit between two readings (at the start, after each round with a "
                               "hit, at the end) grew by exactly the wagers x its rate"))
        measure_payments(runner, step, self.paying, rounds)
