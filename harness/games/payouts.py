"""Payout semantics, exact to the cent.

* ``X to 1``: the winner keeps the stake and receives X times it (net +X * stake).
* ``X for 1``: the total returned is X times the stake, stake included (net +(X-1) * stake).
* a fixed amount (``$25``): that award for the wager size the paytable is written for.
* ``N% of meter``: that share of the progressive meter, after which the meter resets.

A :class:`Pay` is data (it can sit in the catalogue); :func:`settle` turns it into money.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal
from typing import Literal

from harness.errors import InputError
from harness.money import Cents, parse_amount

PayKind = Literal["to", "for", "fixed", "meter", "push", "lose"]


@dataclass(frozen=True, slots=True)
class Pay:
    kind: PayKind
    #: odds for "to"/"for" (e.g. 40 for "40 to 1"), cents for "fixed", percent for "meter"
    value: Decimal = Decimal(0)
    #: for "meter": which meter ("mega", "major", "minor", "hit-and-run")
    meter: str | None = None

    def describe(self) -> str:
        if self.kind == "to":
            return f"{self.value} to 1"
        if self.kind == "for":
            return f"{self.value} for 1"
        if self.kind == "fixed":
            cents = int(self.value)
            return f"${cents // 100:,}" + (f".{cents % 100:02d}" if cents % 100 else "")
        if self.kind == "meter":
            which = "" if self.meter in (None, "meter") else f"{self.meter} "
            return f"{self.value}% of {which}meter"
        return self.kind


@dataclass(frozen=True, slots=True)
class Settlement:
    """What happens to one wager: ``returned`` is everything handed back, stake included."""

    stake: Cents
    returned: Cents

    @property
    def net(self) -> Cents:
        return self.returned - self.stake


def settle(
    pay: Pay, stake: Cents, meter_amount: Cents | None = None, *, award_returns_stake: bool = True
) -> Settlement:
    """Money returned for a wager of ``stake`` cents paid as ``pay``.

    Whether a fixed or meter award also hands the stake back is not said by the text; it is the
    named interpretation ``award-returns-stake`` (default: yes, a winning wager keeps its stake as
    it does under "X to 1"), passed in as ``award_returns_stake``.  Odds that produce fractions of
    a cent are rounded down (the house never pays more than the table says), which cannot arise
    for whole-dollar stakes on the regulated tables.
    """
    if pay.kind == "lose":
        return Settlement(stake, 0)
    if pay.kind == "push":
        return Settlement(stake, stake)
    if pay.kind == "to":
        win = (Decimal(stake) * pay.value).to_integral_value(ROUND_DOWN)
        return Settlement(stake, stake + int(win))
    if pay.kind == "for":
        total = (Decimal(stake) * pay.value).to_integral_value(ROUND_DOWN)
        return Settlement(stake, int(total))
    kept = stake if award_returns_stake else 0
    if pay.kind == "fixed":
        return Settlement(stake, kept + int(pay.value))
    if pay.kind == "meter":
        if meter_amount is None:
            raise ValueError(f"{pay.describe()}: the meter amount is needed to settle")
        win = (Decimal(meter_amount) * pay.value / 100).to_integral_value(ROUND_DOWN)
        return Settlement(stake, kept + int(win))
    raise ValueError(f"unknown pay kind {pay.kind!r}")


_PAY_TEXT = re.compile(
    r"""^\s*(?:
        (?P<odds>\d+(?:\.\d+)?)\s*(?P<prep>to|for)\s*1
      | (?P<pct>\d+(?:\.\d+)?)\s*%\s*(?:of\s+)?(?:the\s+)?(?P<meter>[a-z0-9-]+?)(?:\s+(?:jackpot|meter))?
      | (?P<fixed>\$\s*[\d,]+(?:\.\d{1,2})?)
      | (?P<word>push|lose)
    )\s*$""",
    re.VERBOSE | re.IGNORECASE,
)


def parse_pay(text: str) -> Pay:
    """Read a paytable cell as the regulation writes it.

    ``"40 to 1"``, ``"200 for 1"``, ``"$5,000"``, ``"100% of mega jackpot"``, ``"100% major
    jackpot"``, ``"100% of meter"``, ``"push"``, ``"lose"``.
    """
    m = _PAY_TEXT.match(text)
    if not m:
        raise InputError(f"pay {text!r}: expected 'X to 1', 'X for 1', '$N', 'N% of METER', 'push' or 'lose'")
    if m.group("odds"):
        kind: PayKind = "to" if m.group("prep").lower() == "to" else "for"
        return Pay(kind, Decimal(m.group("odds")))
    if m.group("pct"):
        return Pay("meter", Decimal(m.group("pct")), meter=m.group("meter").lower())
    if m.group("fixed"):
        return Pay("fixed", Decimal(parse_amount(m.group("fixed"))))
    return Pay(m.group("word").lower())  # type: ignore[arg-type]
