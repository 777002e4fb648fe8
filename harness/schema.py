"""A small hand-written validation toolkit over :mod:`harness.yamlload` nodes.

Why hand-written: every error must point at the exact node the author wrote
(``file:line:col: message``), which general-purpose validators lose.  Profiles use it now and
suites use it too.  Validation stops at the first error (one error line per bad file, as the
bad-input corpus checks).

Two layers:

* ``check_*(value, loc, what, ...)`` validate one value given where it was written (``loc``
  from :meth:`YMap.loc`, :meth:`YList.loc` or a node's ``.where``) and return the typed result;
* :class:`Fields` wraps a mapping: refuses unknown keys with a did-you-mean, requires keys, and
  offers typed getters (``f.get_int("decks", lo=1, hi=8)``, ``f.get_amount("reset")``,
  ``f.get_map("meters")``)
  that raise positioned errors.

Money follows the brief's hard rule: an amount is a string (``"$450"``, ``"450.00"``) or an int
of whole dollars, never a bare ``12.50`` (that would be a float in any other YAML loader).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any, TypeVar

from harness.cards import Card, parse_card
from harness.errors import InputError
from harness.money import Cents, parse_amount, parse_rate
from harness.yamlload import LEADING_ZERO_RE, Loc, YDecimal, YList, YMap, YStr, error_at

_MISSING: Any = object()
_YAML11_BOOLS = {"yes", "no", "on", "off", "y", "n"}
T = TypeVar("T", str, int)


def suggest(word: str, choices: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` for the closest choice, or ``""``."""
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def describe(value: Any) -> str:
    """How a loaded value reads in an error message."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "nothing (null)"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, YDecimal):
        return f"the number {value.text}"
    if isinstance(value, int | Decimal):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string '{value}'"
    return type(value).__name__  # pragma: no cover - the loader makes nothing else


def _fail(loc: Loc | None, message: str) -> InputError:
    return error_at(loc, message)


def _reposition(exc: InputError, loc: Loc | None, what: str) -> InputError:
    return _fail(loc, f"{what}: {exc.message}")


def _bounds(lo: object, hi: object) -> str:
    if lo is not None and hi is not None:
        return f"{lo}..{hi}"
    return f">= {lo}" if lo is not None else f"<= {hi}"


def check_map(value: Any, loc: Loc | None, what: str) -> YMap:
    if not isinstance(value, YMap):
        raise _fail(loc, f"{what}: expected a mapping (key: value lines), got {describe(value)}")
    return value


def check_list(value: Any, loc: Loc | None, what: str) -> YList:
    if not isinstance(value, YList):
        raise _fail(loc, f"{what}: expected a list, got {describe(value)}")
    return value


def check_str(value: Any, loc: Loc | None, what: str, *, pattern: str | None = None) -> str:
    if not isinstance(value, str) or isinstance(value, bool):
        raise _fail(loc, f"{what}: expected a string, got {describe(value)}")
    if pattern is not None and not re.fullmatch(pattern, value):
        raise _fail(loc, f"{what}: '{value}' does not match {pattern}")
    return str(value)


def check_int(value: Any, loc: Loc | None, what: str, *, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(value, YStr) and value.plain and LEADING_ZERO_RE.match(value):
        raise _fail(loc, f"{what}: leading zero in {value}: write {int(value)}")
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(loc, f"{what}: expected a whole number, got {describe(value)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise _fail(loc, f"{what}: {value} is out of range ({_bounds(lo, hi)})")
    return int(value)


def check_bool(value: Any, loc: Loc | None, what: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in _YAML11_BOOLS:
        raise _fail(loc, f"{what}: '{value}' is a string here, not a boolean: write true or false")
    raise _fail(loc, f"{what}: expected true or false, got {describe(value)}")


def check_enum(value: Any, loc: Loc | None, what: str, choices: Sequence[T]) -> T:
    """One of ``choices`` (all strings or all ints); a near miss gets a did-you-mean."""
    for choice in choices:
        if type(choice) is int and isinstance(value, int) and not isinstance(value, bool) and value == choice:
            return choice
        if type(choice) is str and isinstance(value, str) and value == choice:
            return choice
    listed = ", ".join(str(c) for c in choices)
    hint = suggest(value, [str(c) for c in choices]) if isinstance(value, str) else ""
    shown = f"'{value}'" if isinstance(value, str) else describe(value)
    raise _fail(loc, f"{what}: {shown} is not one of {listed}{hint}")


def check_amount(value: Any, loc: Loc | None, what: str) -> Cents:
    """Integer cents from ``"$5,000"``, ``"450.00"`` or an int of dollars; never a bare decimal."""
    if isinstance(value, YDecimal):
        raise _fail(
            loc,
            f"{what}: {value.text} is a bare decimal; money is never a float: write '{value.text}' in quotes",
        )
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise _fail(loc, f"{what}: expected an amount such as '$450' or 450, got {describe(value)}")
    if isinstance(value, int) and value < 0:
        raise _fail(loc, f"{what}: {value} is negative")
    try:
        return parse_amount(value if isinstance(value, int) else str(value))
    except InputError as exc:
        raise _reposition(exc, loc, what) from None


def check_rate(value: Any, loc: Loc | None, what: str) -> Decimal:
    """A rate of progression in percent: ``"1%"``, ``"0.5"``, ``1`` or ``0.5`` (exact from the text)."""
    if isinstance(value, bool) or not isinstance(value, str | int | Decimal):
        raise _fail(loc, f"{what}: expected a percentage such as '0.5%', got {describe(value)}")
    try:
        return parse_rate(value if isinstance(value, int | Decimal) else str(value))
    except InputError as exc:
        raise _reposition(exc, loc, what) from None


def check_decimal(
    value: Any, loc: Loc | None, what: str, *, lo: Decimal | None = None, hi: Decimal | None = None
) -> Decimal:
    """An exact decimal quantity (durations such as ``"1.0"`` ms): string, int or number."""
    if isinstance(value, bool) or not isinstance(value, str | int | Decimal):
        raise _fail(loc, f"{what}: expected a decimal number such as '1.0', got {describe(value)}")
    try:
        result = Decimal(str(value).strip())
    except InvalidOperation:
        raise _fail(loc, f"{what}: '{value}' is not a decimal number") from None
    if not result.is_finite():
        raise _fail(loc, f"{what}: {value} is not a finite number")
    if (lo is not None and result < lo) or (hi is not None and result > hi):
        raise _fail(loc, f"{what}: {value} is out of range ({_bounds(lo, hi)})")
    return result


def check_card(value: Any, loc: Loc | None, what: str) -> Card:
    if not isinstance(value, str) or isinstance(value, bool):
        raise _fail(loc, f"{what}: expected a card code such as 'KS', got {describe(value)}")
    try:
        return parse_card(str(value))
    except InputError as exc:
        raise _reposition(exc, loc, what) from None


class Fields:
    """A mapping under validation: unknown keys refused, required keys demanded, typed getters.

    ``what`` names the mapping in messages (``"rules.meters.mega"``); a getter's message names the
    key as ``what.key``.  ``loc`` is where the mapping itself was written (for "missing key").
    """

    def __init__(
        self,
        node: Any,
        loc: Loc | None,
        what: str,
        *,
        required: Iterable[str] = (),
        optional: Iterable[str] = (),
    ) -> None:
        self.node = check_map(node, loc, what)
        self.what = what
        self.required = tuple(required)
        self.known = (*self.required, *optional)
        for key in self.node:
            if key not in self.known:
                label = f"'{key}'" if isinstance(key, str) else describe(key)
                raise _fail(
                    self.node.key_loc(key),
                    f"{self.prefix}unknown key {label}{suggest(str(key), self.known)}",
                )
        for key in self.required:
            if key not in self.node:
                raise _fail(loc or self.node.where, f"{self.prefix}missing key '{key}'")

    @property
    def prefix(self) -> str:
        return f"{self.what}: " if self.what else ""

    def name(self, key: str) -> str:
        return f"{self.what}.{key}" if self.what else key

    def __contains__(self, key: str) -> bool:
        return key in self.node

    def __iter__(self) -> Iterator[Any]:
        return iter(self.node)

    def loc(self, key: str) -> Loc:
        """Where the value of ``key`` was written; the mapping itself if the key is absent."""
        return self.node.loc(key) if key in self.node else self.node.where

    def key_loc(self, key: str) -> Loc:
        return self.node.key_loc(key) if key in self.node else self.node.where

    def error(self, key: str, message: str) -> InputError:
        """An error at the value of ``key`` (prefixed with the key's dotted name)."""
        return _fail(self.loc(key), f"{self.name(key)}: {message}")

    def raw(self, key: str, default: Any = None) -> Any:
        return self.node.get(key, default)

    def _get(self, key: str, default: Any) -> tuple[bool, Any]:
        if key in self.node:
            return True, self.node[key]
        if default is _MISSING:
            raise _fail(self.node.where, f"{self.prefix}missing key '{key}'")
        return False, default

    def get_str(self, key: str, default: Any = _MISSING, *, pattern: str | None = None) -> Any:
        present, value = self._get(key, default)
        return check_str(value, self.loc(key), self.name(key), pattern=pattern) if present else value

    def get_int(
        self, key: str, default: Any = _MISSING, *, lo: int | None = None, hi: int | None = None
    ) -> Any:
        present, value = self._get(key, default)
        return check_int(value, self.loc(key), self.name(key), lo=lo, hi=hi) if present else value

    def get_bool(self, key: str, default: Any = _MISSING) -> Any:
        present, value = self._get(key, default)
        return check_bool(value, self.loc(key), self.name(key)) if present else value

    def get_enum(self, key: str, choices: Sequence[T], default: Any = _MISSING) -> Any:
        present, value = self._get(key, default)
        return check_enum(value, self.loc(key), self.name(key), choices) if present else value

    def get_amount(self, key: str, default: Any = _MISSING) -> Any:
        present, value = self._get(key, default)
        return check_amount(value, self.loc(key), self.name(key)) if present else value

    def get_rate(self, key: str, default: Any = _MISSING) -> Any:
        present, value = self._get(key, default)
        return check_rate(value, self.loc(key), self.name(key)) if present else value

    def get_decimal(
        self, key: str, default: Any = _MISSING, *, lo: Decimal | None = None, hi: Decimal | None = None
    ) -> Any:
        present, value = self._get(key, default)
        return check_decimal(value, self.loc(key), self.name(key), lo=lo, hi=hi) if present else value

    def get_card(self, key: str, default: Any = _MISSING) -> Any:
        present, value = self._get(key, default)
        return check_card(value, self.loc(key), self.name(key)) if present else value

    def get_list(self, key: str, default: Any = _MISSING) -> Any:
        present, value = self._get(key, default)
        return check_list(value, self.loc(key), self.name(key)) if present else value

    def get_map(
        self, key: str, *, required: Iterable[str] = (), optional: Iterable[str] = (), default: Any = _MISSING
    ) -> Any:
        """A nested mapping as :class:`Fields`; ``default`` when absent (if given)."""
        present, value = self._get(key, default)
        if not present:
            return value
        return Fields(value, self.loc(key), self.name(key), required=required, optional=optional)
