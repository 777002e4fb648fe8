"""A progressive meter, exact to a fraction of a cent: contributions, hits, resets, limits.

Rules modelled, with the clause each comes from:

* Rate of progression: every qualifying wager adds ``wager x rate / 100`` cents (Royal 9 (f)(2),
  (g)(2); 461a.12(c)(2)).  Whole cents go onto the meter; the fraction of a cent is carried as an
  exact residual to the next wager, never dropped and never rounded, so that at every moment
  ``sum(wager x rate) == growth + held + diverted + residual`` exactly (461a.12(h): no
  turning back).  The arithmetic is integer-only: a rate ``m x 10**-e`` percent is the ratio
  ``m / 10**(e+2)`` of a cent per cent wagered, and the residual is kept as that numerator.
* No turning back (461a.12(h)): the amount never decreases except by a paid hit ((h)(1)) or a
  documented malfunction correction ((h)(3), :meth:`Meter.correct`, which requires a reason).
* Payout limit (461a.12(k)(1)): a limit may only be established or changed to an amount greater
  than the then current amount (:func:`check_payout_limit`).
* Display capability (461a.12(j)): the limit may not exceed what the display can show; a meter
  with a display capacity and no payout limit is limited at its capacity
  (``meter-limit-defaults-to-display``).  Increments that would take the amount past the limit are
  diverted to the meter's ``diverted`` account (``meter-excess-at-limit``): the amount stops, it
  never wraps, and nothing is lost.
* Hits (461a.12(b)(2)-(5)): a hit pays the amount (or a share of it) and resets to the reset
  amount.  A hit paid by the table resets at once; a hit paid by an attendant stays on the meter
  ("pending reset") until the reset key is turned (``meter-reset-timing``).  Qualifying wagers
  while a hit is pending are held and applied on top of the reset amount when the key is turned
  (``meter-contributions-while-pending``).  The residual is carried across a reset
  (``meter-residual-on-reset``).

This module is pure: no I/O, no clocks, no randomness (the mystery meter takes an injected RNG).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, Literal

from harness.errors import InputError, TablecertError
from harness.money import Cents, fmt, rate_ratio
from harness.progressive.floors import ProgressiveOptions, check_payout_limit

PaidBy = Literal["table", "attendant"]
NO_HITS: tuple[Hit, ...] = ()


class MeterError(TablecertError):
    """An operation the meter's current state does not allow (a controller answers REFUSED)."""


def grow_to_cap(amount: Cents, whole: Cents, cap: Cents | None) -> tuple[Cents, Cents]:
    """``(new amount, cents diverted)`` when ``whole`` cents are added to a meter showing ``amount``:
    the meter stops at its ``cap`` (its payout limit, else its display capacity; 461a.12(j), (k)(1))
    and the excess is diverted, never wrapped (interpretation ``meter-excess-at-limit``).  A meter
    already above its cap (a reset amount over a lowered limit) stays where it is."""
    new = amount + whole
    if cap is None or new <= cap:
        return new, 0
    top = max(cap, amount)
    return top, new - top


def residual_text(num: int, den: int) -> str:
    """The residual ``num / den`` cents as an exact decimal string ("0.25" means a quarter cent)."""
    digits = len(str(den)) - 1
    text = f"{Decimal(num).scaleb(-digits):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def parse_residual(text: object, den: int, where: str) -> int:
    """Inverse of :func:`residual_text`: the numerator over ``den``, refused if not exact."""
    try:
        value = Decimal(str(text))
    except InvalidOperation:
        raise InputError(f"{where}: residual {text!r} is not a decimal") from None
    num = value * den
    if not value.is_finite() or num != num.to_integral_value() or not 0 <= num < den:
        raise InputError(f"{where}: residual {text!r} is not a fraction of a cent in steps of 1/{den}")
    return int(num)


@dataclass(frozen=True, slots=True)
class MeterConfig:
    """What a Rules Submission declares for one meter (amounts in cents, rate in percent)."""

    name: str
    rate: Decimal
    initial: Cents
    reset: Cents
    payout_limit: Cents | None = None
    display_capacity: Cents | None = None

    @property
    def cap(self) -> Cents | None:
        """The largest amount the meter may show: the payout limit, else the display capacity."""
        if self.payout_limit is None:
            return self.display_capacity
        if self.display_capacity is None:
            return self.payout_limit
        return min(self.payout_limit, self.display_capacity)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "rate": str(self.rate), "initial": self.initial,
                               "reset": self.reset}
        if self.payout_limit is not None:
            out["payout_limit"] = self.payout_limit
        if self.display_capacity is not None:
            out["display_capacity"] = self.display_capacity
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MeterConfig:
        where = f"meter {data.get('name', '?')}"
        return cls(
            name=_text(data, "name", where),
            rate=rate_field(data.get("rate"), where),
            initial=int_field(data, "initial", where),
            reset=int_field(data, "reset", where),
            payout_limit=int_field(data, "payout_limit", where, optional=True),
            display_capacity=int_field(data, "display_capacity", where, optional=True),
        )


@dataclass(frozen=True, slots=True)
class Hit:
    """One award taken from a meter."""

    meter: str
    #: money paid to the winner (the meter amount, or a share of it rounded down)
    paid: Cents
    #: the amount that was on the meter and is taken off it by this hit
    meter_amount: Cents
    paid_by: PaidBy
    #: True while the won amount waits on the meter for the reset key
    pending: bool
    #: contribution past a mystery trigger carried onto the reseeded meter
    carried: Cents = 0

    def to_dict(self) -> dict[str, Any]:
        return {"meter": self.meter, "paid": self.paid, "meter_amount": self.meter_amount,
                "paid_by": self.paid_by, "pending": int(self.pending), "carried": self.carried}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Hit:
        where = "hit"
        paid_by = _text(data, "paid_by", where)
        if paid_by not in ("table", "attendant"):
            raise InputError(f"hit: paid_by {paid_by!r} is not 'table' or 'attendant'")
        return cls(_text(data, "meter", where), int_field(data, "paid", where), int_field(data, "meter_amount", where),
                   "table" if paid_by == "table" else "attendant", bool(int_field(data, "pending", where)),
                   int_field(data, "carried", where))


class Meter:
    """One progressive meter.  All amounts are integer cents; see the module docstring."""

    kind = "meter"

    def __init__(self, config: MeterConfig, options: ProgressiveOptions | None = None) -> None:
        self.config = config
        self.options = options or ProgressiveOptions()
        self._num, self._den = rate_ratio(config.rate)
        self._cap = config.cap
        self.amount: Cents = config.initial
        self.residual_num = 0           # residual = residual_num / den cents, 0 <= residual < 1
        self.held: Cents = 0            # whole cents contributed while a hit waits for the key
        self.diverted: Cents = 0        # whole cents that would have taken the amount past its cap
        self.contributed_num = 0        # sum of wager * num: exact contributions, over den
        self.seeded: Cents = config.initial   # initial plus every reset amount
        self.removed: Cents = 0         # meter amounts taken off by hits and corrections
        self.paid: Cents = 0            # money paid by hits
        self.pending: Hit | None = None

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def den(self) -> int:
        return self._den

    @property
    def residual(self) -> Decimal:
        """The carried fraction of a cent, exact."""
        return Decimal(residual_text(self.residual_num, self._den))

    @property
    def contributed(self) -> Fraction:
        """Every contribution ever made, exact (cents)."""
        return Fraction(self.contributed_num, self._den)

    @property
    def growth(self) -> Cents:
        """Whole cents the contributions have put on the meter (across hits and resets)."""
        return self.amount - self.seeded + self.removed

    def contribute(self, wager: Cents) -> tuple[Hit, ...]:
        """Add one qualifying wager's contribution; returns the hits it causes (mystery only)."""
        if wager < 0:
            raise MeterError(f"{self.name}: a wager of {wager} cents cannot contribute")
        add = wager * self._num
        self.contributed_num += add
        whole, self.residual_num = divmod(add + self.residual_num, self._den)
        if whole:
            return self._grow(whole)
        return NO_HITS

    def contribute_at(self, wager: Cents, rate: Decimal) -> tuple[Hit, ...]:
        """A qualifying wager contributing at ``rate`` instead of the configured rate: a common meter
        of a link, which each linked table feeds at the rate it files (461a.12(c)(2)).  Exact like
        :meth:`contribute`; the residual's unit becomes the finer of the two rates' (both are powers
        of ten of a cent), so no fraction of a cent is ever rounded."""
        if wager < 0:
            raise MeterError(f"{self.name}: a wager of {wager} cents cannot contribute")
        num, den = rate_ratio(rate)
        if den > self._den:
            self._rescale(den)
        add = wager * num * (self._den // den)
        self.contributed_num += add
        whole, self.residual_num = divmod(add + self.residual_num, self._den)
        return self._grow(whole) if whole else NO_HITS

    def _rescale(self, den: int) -> None:
        """Count the residual and the contributions in the finer unit ``1/den`` of a cent."""
        factor = den // self._den
        self._num, self._den = self._num * factor, den
        self.residual_num *= factor
        self.contributed_num *= factor

    def _grow(self, whole: Cents) -> tuple[Hit, ...]:
        if self.pending is not None:
            self.held += whole
            return NO_HITS
        self.amount, excess = grow_to_cap(self.amount, whole, self._cap)
        self.diverted += excess
        return NO_HITS

    def hit(self, share: Decimal = Decimal(100), paid_by: PaidBy = "table") -> Hit:
        """Pay ``share`` percent of the amount (rounded down), then reset or wait for the key."""
        if self.pending is not None:
            raise MeterError(f"{self.name}: a hit of {fmt(self.pending.paid)} is waiting for the reset key")
        if not 0 < share <= 100:
            raise MeterError(f"{self.name}: a share of {share}% is not between 0% and 100%")
        return self._take(self.amount, (self.amount * share / 100).to_integral_value(ROUND_DOWN),
                          paid_by)

    def _take(self, meter_amount: Cents, paid: Decimal | int, paid_by: PaidBy, carried: Cents = 0) -> Hit:
        pending = paid_by == "attendant" and self.options.attendant_reset == "on-reset-key"
        hit = Hit(self.name, int(paid), meter_amount, paid_by, pending, carried)
        self.paid += hit.paid
        self.amount = meter_amount
        if pending:                     # the won amount stays shown until the key
            self.pending = hit
        else:
            self.removed += meter_amount
            self._reseed()
        return hit

    def reset_key(self) -> tuple[Hit, ...]:
        """The attendant's reset key after paying a pending hit (461a.12(b)(5))."""
        if self.pending is None:
            raise MeterError(f"{self.name}: no hit is waiting for the reset key")
        self.removed += self.pending.meter_amount
        self.pending = None
        self._reseed()
        held, self.held = self.held, 0
        return self._grow(held) if held else NO_HITS

    def _reseed(self) -> None:
        self.amount = self.config.reset
        self.seeded += self.config.reset
        if self.options.residual_on_reset == "discard":  # meter-residual-on-reset: the fraction is dropped
            self.contributed_num -= self.residual_num
            self.residual_num = 0

    def correct(self, amount: Cents, reason: str) -> None:
        """A documented malfunction correction (461a.12(h)(3)): the only decrease without a hit."""
        if not reason.strip():
            raise MeterError(f"{self.name}: a correction needs a documented reason (461a.12(h)(3))")
        if amount < 0:
            raise MeterError(f"{self.name}: cannot correct to a negative amount")
        self.removed += self.amount - amount
        self.amount = amount

    def set_payout_limit(self, limit: Cents) -> None:
        """Establish or change the payout limit; refused unless above the current amount (k)(1)."""
        check_payout_limit(self.name, limit, self.amount, self.config.display_capacity)
        if limit <= self.config.reset:
            raise InputError(f"{self.name} payout limit {fmt(limit)} must be greater than the reset amount "
                             f"{fmt(self.config.reset)} (461a.12(k)(1))")
        cfg = self.config
        self.config = MeterConfig(cfg.name, cfg.rate, cfg.initial, cfg.reset, limit, cfg.display_capacity)
        self._cap = self.config.cap

    def to_state(self) -> dict[str, Any]:
        """Everything needed to continue after a power cycle, as ints and strings."""
        state: dict[str, Any] = {
            "kind": self.kind, "config": self.config.to_dict(), "amount": self.amount,
            "residual": residual_text(self.residual_num, self._den), "held": self.held,
            "diverted": self.diverted, "contributed": residual_text(self.contributed_num, self._den),
            "seeded": self.seeded, "removed": self.removed, "paid": self.paid,
        }
        # the unit the residual is counted in: finer than the configured rate's after contribute_at, and kept
        # when the configuration changes (a rate of 1.25 % leaves fractions of a cent a rate of 2 % cannot
        # count): the meter rebuilt at the new rate keeps its residual exact, never refused or rounded (461a.12(h))
        state["den"] = self._den
        if self.pending is not None:
            state["pending"] = self.pending.to_dict()
        return state

    @classmethod
    def from_state(cls, state: Mapping[str, Any], options: ProgressiveOptions | None = None,
                   rng: Any = None) -> Meter:
        """Rebuild from :meth:`to_state` (``rng`` is only used by the mystery meter)."""
        meter = cls(MeterConfig.from_dict(_mapping(state, "config", "meter state")), options)
        meter.restore_state(state)
        return meter

    def restore_state(self, state: Mapping[str, Any]) -> None:
        where = f"meter {self.name} state"
        den = state.get("den")
        if isinstance(den, int) and not isinstance(den, bool) and den > self._den and den % self._den == 0:
            self._rescale(den)
        for key in ("amount", "held", "diverted", "seeded", "removed", "paid"):
            setattr(self, key, int_field(state, key, where))
        self.residual_num = parse_residual(state.get("residual", "0"), self._den, where)
        total = Decimal(str(state.get("contributed", "0"))) * self._den
        if total != total.to_integral_value():
            raise InputError(f"{where}: contributed {state.get('contributed')!r} is not exact")
        self.contributed_num = int(total)
        pending = state.get("pending")
        self.pending = Hit.from_dict(pending) if isinstance(pending, Mapping) else None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} {fmt(self.amount)} +{self.residual}c>"


#: meter classes by their state ``kind`` (the mystery module registers itself)
METER_KINDS: dict[str, type[Meter]] = {"meter": Meter}


def meter_from_state(state: Mapping[str, Any], options: ProgressiveOptions | None = None,
                     rng: Any = None) -> Meter:
    """Rebuild a meter of any kind from :meth:`Meter.to_state` (``rng`` feeds a mystery meter)."""
    kind = state.get("kind", "meter")
    cls = METER_KINDS.get(str(kind))
    if cls is None:
        raise InputError(f"meter state: unknown kind {kind!r}")
    return cls.from_state(state, options, rng=rng)


class MeterBank:
    """The meters one wager type feeds (mega/major/minor, a Hit and Run meter, a mystery).

    Each qualifying wager contributes to every meter at that meter's own rate.  Linked tables share
    one bank, so they share its meters and, by construction, its rates (461a.12(c)(2));
    :func:`harness.progressive.floors.check_linked_rates` checks declared per-table rates.
    """

    def __init__(self, meters: list[Meter]) -> None:
        self.meters: dict[str, Meter] = {}
        for meter in meters:
            if meter.name in self.meters:
                raise InputError(f"meter {meter.name!r} is declared twice")
            self.meters[meter.name] = meter
        self._list = list(self.meters.values())

    def __getitem__(self, name: str) -> Meter:
        meter = self.meters.get(name)
        if meter is None:
            raise MeterError(f"no meter named {name!r} (have {', '.join(self.meters)})")
        return meter

    def contribute(self, wager: Cents) -> list[Hit]:
        """One qualifying wager: contributes to every meter; returns any mystery hits."""
        hits: list[Hit] = []
        for meter in self._list:
            got = meter.contribute(wager)
            if got:
                hits.extend(got)
        return hits

    def hit(self, name: str, share: Decimal = Decimal(100), paid_by: PaidBy = "table") -> Hit:
        return self[name].hit(share, paid_by)

    def reset_key(self, name: str) -> tuple[Hit, ...]:
        return self[name].reset_key()

    def amounts(self) -> dict[str, Cents]:
        return {name: m.amount for name, m in self.meters.items()}

    def residuals(self) -> dict[str, str]:
        """Residuals as exact decimal strings of a cent, as ``meters.get`` reports them."""
        return {name: residual_text(m.residual_num, m.den) for name, m in self.meters.items()}

    def to_state(self) -> dict[str, Any]:
        return {"meters": [m.to_state() for m in self._list]}

    @classmethod
    def from_state(cls, state: Mapping[str, Any], options: ProgressiveOptions | None = None,
                   rng: Any = None) -> MeterBank:
        items = state.get("meters")
        if not isinstance(items, list) or not all(isinstance(i, Mapping) for i in items):
            raise InputError("meter bank state: 'meters' must be a list of meter states")
        return cls([meter_from_state(item, options, rng) for item in items])


def _mapping(data: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = data.get(key)
    if not isinstance(value, Mapping):
        raise InputError(f"{where}: {key!r} must be a mapping")
    return value


def _text(data: Mapping[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise InputError(f"{where}: {key!r} must be a non-empty string")
    return value


def int_field(data: Mapping[str, Any], key: str, where: str, optional: bool = False) -> Any:
    value = data.get(key)
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}: {key!r} must be an integer number of cents, got {value!r}")
    return value


def rate_field(value: object, where: str) -> Decimal:
    try:
        rate = Decimal(str(value))
    except InvalidOperation:
        raise InputError(f"{where}: rate {value!r} is not a decimal percentage") from None
    rate_ratio(rate)
    return rate
