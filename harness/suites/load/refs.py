"""Amounts a step takes from the Rules Submission or from the meter as it stands: ``"reset"``,
``"display_capacity + $0.01"``, ``"meter"``.

A suite writes a dollar amount only where the regulation fixes it (a floor, a paytable line).  An
amount the certificate holder chooses (a reset amount, a payout limit, a display capacity) or one
that depends on play (the amount on the meter now) is written as a reference, resolved when the
step runs::

    - configure_meter: {meter: mega, payout_limit: "meter", expect: refused}        # 461a.12(k)(1)
    - configure_meter: {meter: mega, payout_limit: "display_capacity + $0.01", expect: refused}
    - configure_meter: {meter: mega, payout_limit: profile}                          # back as filed
    - expect_meters: {equals: {minor: reset}, at_least: {minor: floor}}

A reference is a base and an optional offset ``+ $0.01`` / ``- $0.01``.  Bases:

* ``meter``: the amount the meter shows now (read from the controller when the step runs);
* ``current``: "the then current payout amount" a payout limit must exceed (461a.12(k)(1)), as the
  interpretation ``meter-payout-limit-check`` reads it: the greatest of the meter now and the
  meter's initial and reset amounts (a configuration whose limit is not above its own initial or
  reset amount is refused, whatever the meter shows after a reset); under ``current-only`` a limit
  written alone above the meter but not above those amounts may be taken or refused, and
  ``configure_meter`` records either answer;
* ``initial``, ``reset``, ``payout_limit``, ``display_capacity``: the meter's values in the
  profile's Rules Submission (for the mystery meter, initial and reset are its reseed amount);
* ``profile``: the Rules Submission's value of the very field the step writes;
* ``floor``: the regulation's minimum initial/reset amount for the table's denomination (Royal 9
  (f)(2), (g)(2)); the reseed amount for the mystery meter; the reset amount of a meter the
  regulation sets no floor for;
* ``reseed``, ``must_hit_by``: the mystery configuration's amounts (Royal 9 (h)).

A case whose references name a value the profile does not declare (a display capacity the Rules
Submission leaves out) does not apply to that profile; :func:`unfilled` says so at collection.
Rates work the same way with ``profile`` and a percentage offset (``"profile + 0.25%"``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from harness.errors import InputError
from harness.games.royal9 import royal9_floors
from harness.money import Cents, fmt, parse_amount, parse_rate

if TYPE_CHECKING:
    from harness.devices.roles import MeterReading
    from harness.profiles.model import MeterSettings, Profile
    from harness.suites.load.model import Step


class Resolver(Protocol):
    """What resolving a reference when a step runs reads: the run's profile and the meters now (the
    case runner is one; the loader does not import it)."""

    @property
    def profile(self) -> Profile: ...

    def read_meters(self) -> MeterReading: ...

BASES = ("meter", "current", "floor", "initial", "reset", "payout_limit", "display_capacity", "profile", "reseed",
         "must_hit_by")
#: bases that read the Rules Submission (the profile must declare them)
_PROFILE_FIELDS = ("initial", "reset", "payout_limit", "display_capacity")
_REF = re.compile(r"^\s*(?P<base>[a-z_]+)\s*(?:(?P<op>[+-])\s*(?P<amount>\S.*?))?\s*$")


@dataclass(frozen=True)
class Ref:
    """``base`` plus ``offset`` cents (or percentage points, for a rate)."""

    base: str
    offset: Cents | Decimal = 0

    def __str__(self) -> str:
        if not self.offset:
            return self.base
        sign = "+" if self.offset > 0 else "-"
        shown = f"{abs(self.offset)}%" if isinstance(self.offset, Decimal) else fmt(abs(self.offset))
        return f"{self.base} {sign} {shown}"


def parse_ref(text: str, *, rate: bool = False) -> Ref | None:
    """A reference from its text, or ``None`` when ``text`` names no base (an amount, then)."""
    m = _REF.match(text)
    if m is None or m.group("base") not in BASES:
        return None
    if rate and m.group("base") != "profile":
        raise InputError(f"'{text}': a rate refers to the Rules Submission as 'profile' (e.g. 'profile + 0.25%')")
    if m.group("op") is None:
        return Ref(m.group("base"), Decimal(0) if rate else 0)
    size: Cents | Decimal = parse_rate(m.group("amount")) if rate else parse_amount(m.group("amount"))
    return Ref(m.group("base"), size if m.group("op") == "+" else -size)


def settings(profile: Profile, meter: str) -> MeterSettings | None:
    """The Rules Submission's settings of ``meter`` (Hit and Run's meter under its name)."""
    rules = profile.rules
    if meter in rules.meters:
        return rules.meters[meter]
    if meter == "hit-and-run" and rules.hit_and_run is not None:
        return rules.hit_and_run.meter
    return None


def missing(profile: Profile, meter: str, ref: Ref, field: str | None = None) -> str | None:
    """Why ``ref`` cannot be resolved on ``profile``'s table (None: it can)."""
    base = field if ref.base == "profile" else ref.base
    rules = profile.rules
    if meter == "mystery":
        if rules.mystery is None:
            return "the Rules Submission has no mystery progressive"
        if base in ("payout_limit", "display_capacity", "current"):
            what = "payout limit" if base == "current" else base.replace("_", " ")
            return f"a mystery meter has no {what} of its own (its must-hit-by bounds it)"
        return None
    if base in ("reseed", "must_hit_by"):
        return f"{base} is a mystery amount; the {meter} meter has none"
    m = settings(profile, meter)
    if m is None:
        return f"the Rules Submission declares no {meter} meter"
    if base in _PROFILE_FIELDS and getattr(m, base) is None:
        return f"the Rules Submission declares no {base.replace('_', ' ')} for the {meter} meter"
    return None


def amount(runner: Resolver, meter: str, ref: Ref | Cents, field: str | None = None) -> Cents:
    """The amount ``ref`` stands for now (an amount is itself)."""
    if isinstance(ref, int):
        return ref
    profile = runner.profile
    why = missing(profile, meter, ref, field)
    if why:
        raise AssertionError(f"'{ref}' for the {meter} meter: {why}")
    base = field if ref.base == "profile" else ref.base
    if base in ("meter", "current"):
        shown = runner.read_meters().meters.get(meter)
        if shown is None:
            raise AssertionError(f"the controller reports no {meter} meter")
        value = shown
        if base == "current":
            m = settings(profile, meter)
            assert m is not None
            value = max(value, m.initial, m.reset)
    elif meter == "mystery":
        mystery = profile.rules.mystery
        assert mystery is not None
        value = mystery.must_hit_by if base == "must_hit_by" else mystery.reseed
    elif base == "floor":
        value = floor(profile, meter)
    else:
        m = settings(profile, meter)
        assert m is not None
        value = int(getattr(m, str(base)))
    return value + int(ref.offset)


def floor(profile: Profile, meter: str) -> Cents:
    """The regulation's minimum initial/reset amount for ``meter`` on this table."""
    m = settings(profile, meter)
    if profile.rules.denomination is None or meter not in ("mega", "major", "minor"):
        return m.reset if m is not None else 0
    return royal9_floors(profile.rules.denomination)[meter]


def rate(runner: Resolver, meter: str, ref: Ref | Decimal) -> Decimal:
    """The rate (percent) ``ref`` stands for: the profile's, offset by percentage points."""
    if isinstance(ref, Decimal):
        return ref
    m = settings(runner.profile, meter)
    if m is None:
        raise AssertionError(f"the Rules Submission declares no {meter} meter")
    return m.rate + Decimal(ref.offset)


# --------------------------------------------------------------------------- collection-time check

#: step -> the (meter argument, {argument: field it writes}) whose values may be references
_STEP_REFS: dict[str, tuple[str | None, dict[str, str | None]]] = {
    "configure_meter": ("meter", {"initial": "initial", "reset": "reset", "payout_limit": "payout_limit",
                                  "display_capacity": "display_capacity", "rate": None}),
}


def refs_of(step: Step) -> list[tuple[str, Ref, str | None]]:
    """Every ``(meter, reference, field)`` a step will resolve."""
    out: list[tuple[str, Ref, str | None]] = []
    spec = _STEP_REFS.get(step.action)
    if spec is not None:
        meter_arg, fields = spec
        meter = str(step.args.get(meter_arg or "meter"))
        for arg, field_name in fields.items():
            value = step.args.get(arg)
            if isinstance(value, Ref):
                out.append((meter, value, field_name))
    for arg in ("equals", "at_least"):
        value = step.args.get(arg)
        if isinstance(value, dict):
            out += [(m, r, None) for m, r in value.items() if isinstance(r, Ref)]
    return out


def unfilled(steps: tuple[Step, ...], profile: Profile) -> str | None:
    """Why the profile cannot give a value some step refers to (None: every reference resolves)."""
    for step in steps:
        for meter, ref, field in refs_of(step):
            if ref.base == "profile" and field is None:
                continue  # a rate: every declared meter has one
            why = missing(profile, meter, ref, field)
            if why:
                return f"{step.action} at line {step.line} refers to '{ref}' of the {meter} meter: {why}"
    return None


def describe(value: Any) -> str:
    """How a resolved reference reads in a measurement."""
    return fmt(value) if isinstance(value, int) else str(value)
