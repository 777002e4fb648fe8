"""Exact money: integer cents everywhere, ``Decimal`` only for rates.

Regulations state amounts such as ``$5,000`` and rates such as ``5%``.  Floats can't hold either
exactly, so amounts are parsed into integer cents and rates into ``Decimal`` percentages.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from harness.errors import InputError

Cents = int

#: ASCII digits only: ``int()`` and ``Decimal()`` read Arabic-Indic or full-width digits too, which
#: a reviewer of the file could not check by eye
_AMOUNT = re.compile(r"^\$?[ ]*(?P<int>[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.(?P<frac>[0-9]{1,2}))?$")
_RATE = re.compile(r"^[0-9]+(?:\.[0-9]+)?$|^\.[0-9]+$")


def parse_amount(text: str | int | Decimal) -> Cents:
    """Parse ``"$5,000"``, ``"450"``, ``"12.50"`` or an int of dollars into integer cents.

    An ``int`` is taken as whole dollars (as a YAML author would write ``reset: 450``); a
    ``Decimal`` must not carry fractions of a cent.
    """
    if isinstance(text, bool):
        raise InputError(f"amount {text!r}: expected dollars, e.g. 450 or '$450.00'")
    if isinstance(text, int):
        return _bounded(text * 100, str(text))
    if isinstance(text, Decimal):
        if not text.is_finite() or abs(text.adjusted()) > MAX_DOLLAR_DIGITS:
            raise InputError(f"amount {text}: {TOO_LARGE}")
        cents = text * 100
        if cents != cents.to_integral_value():
            raise InputError(f"amount {text}: fractions of a cent are not money")
        return _bounded(int(cents), str(text))
    if len(text) > 64:
        raise InputError(f"amount {text[:20]!r}...: {TOO_LARGE}")
    m = _AMOUNT.match(text.strip())
    if not m:
        raise InputError(f"amount {text!r}: expected dollars, e.g. 450 or '$1,500.00'")
    whole = int(m.group("int").replace(",", ""))
    frac = (m.group("frac") or "0").ljust(2, "0")
    return _bounded(whole * 100 + int(frac), text)


#: the most digits of whole dollars an amount may have ($999,999,999,999.99): far beyond any meter,
#: limit or wager, and a number a person can still check by eye
MAX_DOLLAR_DIGITS = 12
TOO_LARGE = f"more than {MAX_DOLLAR_DIGITS} digits of dollars: no meter, limit or wager holds that"


def _bounded(cents: Cents, text: str) -> Cents:
    if abs(cents) >= 10 ** (MAX_DOLLAR_DIGITS + 2):
        shown = text if len(text) <= 24 else text[:20] + "..."
        raise InputError(f"amount {shown!r}: {TOO_LARGE}")
    return cents


def parse_rate(text: str | int | Decimal) -> Decimal:
    """Parse a rate of progression such as ``"5%"``, ``"1.25%"`` or ``Decimal('5')`` (percent)."""
    if isinstance(text, bool):
        raise InputError(f"rate {text!r}: expected a percentage such as '5%'")
    if isinstance(text, int | Decimal):
        value = Decimal(text)
    else:
        raw = text.strip().removesuffix("%").strip()
        if not _RATE.match(raw):
            raise InputError(f"rate {text!r}: expected a percentage such as '5%' (ASCII digits)")
        try:
            value = Decimal(raw)
        except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
            raise InputError(f"rate {text!r}: expected a percentage such as '5%'") from None
    if not value.is_finite() or value < 0 or value > 100:
        raise InputError(f"rate {text!r}: must be between 0% and 100%")
    return value


def rate_ratio(rate: Decimal) -> tuple[int, int]:
    """``rate`` percent as ``(num, den)`` with cents contributed = ``wager * num / den``.

    ``den`` is a power of ten, so every residual ``r / den`` is an exact decimal fraction of a cent.
    """
    if not rate.is_finite() or rate < 0 or rate > 100:
        raise InputError(f"rate {rate}%: must be between 0% and 100%")
    norm = rate.normalize()
    exponent = int(norm.as_tuple().exponent)
    if exponent >= 0:
        return int(norm), 100
    return int(norm.scaleb(-exponent)), 100 * 10 ** (-exponent)


def fmt(cents: Cents) -> str:
    """``123456`` -> ``"$1,234.56"`` (negative amounts keep their sign in front)."""
    sign = "-" if cents < 0 else ""
    whole, frac = divmod(abs(cents), 100)
    return f"{sign}${whole:,}.{frac:02d}"
