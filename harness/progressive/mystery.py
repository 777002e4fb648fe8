"""Mystery ("must hit by") progressive: Royal 9 (h) configurations 1-3.

A mystery meter starts at its seed (= reseed) amount and grows at its incrementation rate like any
meter (exact, residual carried).  At seed and at every reseed it draws a hidden trigger amount in
``[reseed, must-hit-by]`` (whole cents, uniform unless the Rules Submission declares another
distribution: ``mystery-trigger-distribution``) with an injected RNG, so tests are deterministic.
The contribution that makes the meter reach or cross the trigger wins the award; the award is the
meter as it then stands, capped at must-hit-by (``mystery-award-amount`` = "meter-at-trigger",
default, as the regulation catalogue records it: the meter shows what can be won, 461a.12(b)(1))
or exactly the trigger ("trigger-amount").  Either way no award exceeds must-hit-by, and the part of the winning
contribution past the award is carried onto the reseeded meter, so the contributions still
balance exactly.

The trigger is part of :meth:`MysteryMeter.to_state`: a controller stores it with the meters so a
power cycle neither loses nor re-draws it (461a.12(n), and lab practice: meters, configuration and the hidden
mystery trigger survive a power cycle unchanged).  The RNG itself is not state: it is the
device's own.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Protocol

from harness.errors import InputError
from harness.money import Cents, fmt
from harness.progressive.floors import MYSTERY_CLAUSE, ProgressiveOptions, mystery_configuration
from harness.progressive.meter import (
    METER_KINDS,
    NO_HITS,
    Hit,
    Meter,
    MeterConfig,
    MeterError,
    PaidBy,
    int_field,
    rate_field,
)

#: more hits than this from one contribution means the trigger draws make no progress
_MAX_HITS_PER_CONTRIBUTION = 10_000


class TriggerDistribution(Protocol):
    """How a hidden trigger is drawn in ``[low, high]`` whole cents, and its exact law."""

    name: str

    def draw(self, rng: random.Random, low: Cents, high: Cents) -> Cents: ...

    def probability(self, low: Cents, high: Cents, a: Cents, b: Cents) -> Fraction:
        """P(a <= trigger <= b) for a trigger drawn in [low, high]."""
        ...


class UniformCents:
    """Every whole-cent amount in ``[low, high]`` equally likely."""

    name = "uniform"

    def draw(self, rng: random.Random, low: Cents, high: Cents) -> Cents:
        return rng.randint(low, high)

    def probability(self, low: Cents, high: Cents, a: Cents, b: Cents) -> Fraction:
        a, b = max(a, low), min(b, high)
        return Fraction(max(0, b - a + 1), high - low + 1)


DISTRIBUTIONS: dict[str, TriggerDistribution] = {"uniform": UniformCents()}


def distribution(name: str) -> TriggerDistribution:
    found = DISTRIBUTIONS.get(name)
    if found is None:
        raise InputError(f"mystery distribution {name!r}: known distributions are {sorted(DISTRIBUTIONS)}")
    return found


@dataclass(frozen=True, slots=True)
class MysteryConfig:
    """A mystery progressive as declared: (h) configuration number and its amounts and rate."""

    reseed: Cents
    must_hit_by: Cents
    rate: Decimal
    configuration: int | None = None
    distribution: str = "uniform"
    #: who pays the award: "table" resets at once, "attendant" waits for the reset key
    paid_by: PaidBy = "table"

    @classmethod
    def regulation(cls, number: int, distribution: str = "uniform",
                   paid_by: PaidBy = "table") -> MysteryConfig:
        """Configuration 1, 2 or 3 of Royal 9 (h)."""
        reseed, must_hit_by, rate = mystery_configuration(number)
        return cls(reseed, must_hit_by, rate, number, distribution, paid_by)

    def problems(self) -> list[str]:
        """Reasons to refuse this configuration (Royal 9 (h); ``pa-midi-r9-mystery``)."""
        out: list[str] = []
        if self.configuration is not None:
            try:
                reseed, must_hit_by, rate = mystery_configuration(self.configuration)
            except InputError as exc:
                return [exc.message]
            for label, differs, have, want in (
                ("reseed", self.reseed != reseed, fmt(self.reseed), fmt(reseed)),
                ("must-hit-by", self.must_hit_by != must_hit_by, fmt(self.must_hit_by), fmt(must_hit_by)),
                ("rate", self.rate != rate, f"{self.rate}%", f"{rate}%"),
            ):
                if differs:
                    out.append(f"mystery configuration {self.configuration} {label} is {have}, the "
                               f"regulation says {want} ({MYSTERY_CLAUSE})")
        if not 0 < self.reseed < self.must_hit_by:
            out.append(f"mystery reseed {fmt(self.reseed)} must be positive and below must-hit-by "
                       f"{fmt(self.must_hit_by)} ({MYSTERY_CLAUSE})")
        if self.distribution not in DISTRIBUTIONS:
            out.append(f"mystery distribution {self.distribution!r}: known distributions are "
                       f"{sorted(DISTRIBUTIONS)}")
        return out

    def check(self) -> None:
        problems = self.problems()
        if problems:
            raise InputError(problems[0])

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"reseed": self.reseed, "must_hit_by": self.must_hit_by, "rate": str(self.rate),
                               "distribution": self.distribution, "paid_by": self.paid_by}
        if self.configuration is not None:
            out["configuration"] = self.configuration
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MysteryConfig:
        where = "mystery"
        paid_by = data.get("paid_by", "table")
        if paid_by not in ("table", "attendant"):
            raise InputError(f"mystery: paid_by {paid_by!r} is not 'table' or 'attendant'")
        dist = data.get("distribution", "uniform")
        if not isinstance(dist, str):
            raise InputError(f"mystery: distribution {dist!r} must be a name")
        return cls(int_field(data, "reseed", where), int_field(data, "must_hit_by", where),
                   rate_field(data.get("rate"), where),
                   int_field(data, "configuration", where, optional=True), dist,
                   "table" if paid_by == "table" else "attendant")


def _make_rng(rng: random.Random | int | None) -> random.Random:
    if isinstance(rng, random.Random):
        return rng
    return random.Random(rng)


class MysteryMeter(Meter):
    """A must-hit-by meter; :meth:`contribute` returns the hit when the trigger is reached."""

    kind = "mystery"

    def __init__(self, mystery: MysteryConfig, name: str = "mystery",
                 options: ProgressiveOptions | None = None, rng: random.Random | int | None = None,
                 *, display_capacity: Cents | None = None,
                 trigger: Cents | None = None, law: TriggerDistribution | None = None) -> None:
        mystery.check()
        if display_capacity is not None and mystery.must_hit_by > display_capacity:
            raise InputError(f"{name} must-hit-by {fmt(mystery.must_hit_by)} exceeds the display capacity "
                             f"{fmt(display_capacity)} (461a.12(j))")
        base = MeterConfig(name, mystery.rate, mystery.reseed, mystery.reseed, None, display_capacity)
        super().__init__(base, options)
        self.mystery = mystery
        self.rng = _make_rng(rng)
        #: how the device draws its hidden triggers: the declared law, unless a device bends it
        #: (an emulated controller's trigger defects, :mod:`harness.emulators.defects`)
        self.law: TriggerDistribution = law if law is not None else distribution(mystery.distribution)
        if trigger is None:
            trigger = self._draw()
        elif not mystery.reseed <= trigger <= mystery.must_hit_by:
            raise InputError(f"{name} trigger {fmt(trigger)} is outside [{fmt(mystery.reseed)}, "
                             f"{fmt(mystery.must_hit_by)}] ({MYSTERY_CLAUSE})")
        self.trigger: Cents = trigger

    def _draw(self) -> Cents:
        value = self.law.draw(self.rng, self.mystery.reseed, self.mystery.must_hit_by)
        if not self.mystery.reseed <= value <= self.mystery.must_hit_by:
            raise MeterError(f"{self.name}: drew trigger {value} outside [reseed, must-hit-by]")
        return value

    def _reseed(self) -> None:
        super()._reseed()
        self.trigger = self._draw()

    def _grow(self, whole: Cents) -> tuple[Hit, ...]:
        if self.pending is not None:
            self.held += whole
            return NO_HITS
        new = self.amount + whole
        if new < self.trigger:
            self.amount = new
            return NO_HITS
        hits: list[Hit] = []
        reached = self.options.mystery_award_amount == "meter-at-trigger"
        for _ in range(_MAX_HITS_PER_CONTRIBUTION):
            award = min(new, self.mystery.must_hit_by) if reached else self.trigger
            excess = new - award
            hit = self._take(award, award, self.mystery.paid_by, carried=excess)
            hits.append(hit)
            if hit.pending:
                self.held += excess
                return tuple(hits)
            new = self.amount + excess
            if new < self.trigger:
                self.amount = new
                return tuple(hits)
        raise MeterError(f"{self.name}: trigger draws make no progress")

    def hit(self, share: Decimal = Decimal(100), paid_by: PaidBy = "table") -> Hit:
        raise MeterError(f"{self.name}: a mystery award is decided by its hidden trigger, not by a hand")

    def to_state(self) -> dict[str, Any]:
        state = super().to_state()
        state["mystery"] = self.mystery.to_dict()
        state["trigger"] = self.trigger
        return state

    @classmethod
    def from_state(cls, state: Mapping[str, Any], options: ProgressiveOptions | None = None,
                   rng: Any = None) -> MysteryMeter:
        where = "mystery meter state"
        config = state.get("config")
        mystery = state.get("mystery")
        if not isinstance(config, Mapping) or not isinstance(mystery, Mapping):
            raise InputError(f"{where}: 'config' and 'mystery' must be mappings")
        base = MeterConfig.from_dict(config)
        meter = cls(MysteryConfig.from_dict(mystery), base.name, options, rng,
                    display_capacity=base.display_capacity, trigger=int_field(state, "trigger", where))
        meter.restore_state(state)
        return meter


METER_KINDS["mystery"] = MysteryMeter
