"""A small hand-written validation toolkit over :mod:`harness.yamlload` nodes.

Why hand-written: every error must point at the exact node the author wrote
(``file:line:col: message``), which general-purpose validators lose.  Profiles use it now and
suites use it too.

Every error in a file is reported, not only the first: a validator runs inside
:func:`collecting`, wraps each independent part (a case, a step, a section) in :func:`guard` (an
error there is recorded and the part abandoned) and reports problems that need not stop anything
with :func:`report`.  At the end the collected errors are raised together as
:class:`~harness.errors.InputErrors`, in file order.  Outside :func:`collecting` every error is
raised at once, as before.

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
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import Decimal, InvalidOperation
from typing import Any, TypeVar

from harness.cards import Card, parse_card
from harness.errors import InputError, InputErrors, error_lines
from harness.money import Cents, parse_amount, parse_rate
from harness.yamlload import LEADING_ZERO_RE, Loc, YDecimal, YList, YMap, YStr, error_at

_MISSING: Any = object()
_YAML11_BOOLS = {"yes", "no", "on", "off", "y", "n"}
#: a decimal as a person writes it: ASCII digits, an optional point, a small exponent at most
_DECIMAL = re.compile(r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]{1,2})?$")
T = TypeVar("T", str, int)
R = TypeVar("R")

# ----------------------------------------------------------------------------- every error, not the first
_SINK: ContextVar[list[InputError] | None] = ContextVar("tablecert_input_errors", default=None)


def in_order(errors: list[InputError]) -> list[InputError]:
    """Errors without repeats, in file order."""
    seen: set[tuple[object, ...]] = set()
    out = []
    for e in errors:
        key = (e.path, e.line, e.col, e.message)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return sorted(out, key=lambda e: (e.path or "", e.line or 0, e.col or 0))


@contextmanager
def collecting(*, isolated: bool = False) -> Iterator[list[InputError]]:
    """Collect the errors of one input; on leaving, raise them all as one ``InputErrors``.

    Nested use shares the outer collection, unless ``isolated`` (a file read on the way, such as a
    stack file a suite names, whose errors the caller sorts out itself).
    """
    outer = _SINK.get()
    if outer is not None and not isolated:
        yield outer
        return
    sink: list[InputError] = []
    token = _SINK.set(sink)
    try:
        try:
            yield sink
        except InputError as exc:
            sink.extend(error_lines(exc))
    finally:
        _SINK.reset(token)
    if sink:
        raise InputErrors(in_order(sink))


class Abandoned(InputError):
    """Leave a guarded block whose errors are already recorded (nothing more is added)."""

    def __init__(self) -> None:
        super().__init__("abandoned after the errors already reported")


@contextmanager
def guard() -> Iterator[None]:
    """Inside :func:`collecting`: an ``InputError`` in the block is recorded and the block abandoned."""
    sink = _SINK.get()
    if sink is None:
        yield
        return
    try:
        yield
    except Abandoned:
        pass
    except InputError as exc:
        sink.extend(error_lines(exc))


def report(exc: InputError) -> None:
    """Record a problem and go on (raise it when nothing is collecting)."""
    sink = _SINK.get()
    if sink is None:
        raise exc
    sink.extend(error_lines(exc))


def attempt(fn: Callable[[], R], default: Any = None) -> Any:
    """``fn()``, or ``default`` after recording its ``InputError`` (raised when nothing collects)."""
    with guard():
        return fn()
    return default


def error_count() -> int:
    """How many errors the current collection holds (to skip checks that would only repeat one)."""
    sink = _SINK.get()
    return len(sink) if sink is not None else 0


# ----------------------------------------------------------------------------- messages
#: letters that look like ASCII ones (Cyrillic and Greek); a key typed with one reads "unknown"
#: although it looks right, so the message names the character
_LOOKALIKE = dict(zip("аеорсхуіјѕԁһкмнтвАВЕКМНОРСТХІЈЅαορτνΑΒΕΗΙΚΜΝΟΡΤΧΥΖ",
                      "aeopcxyijsdhkmhtbABEKMHOPCTXIJSaoptvABEHIKMNOPTXYZ", strict=True))


def _invisible(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cf", "Cc", "Zs", "Zl", "Zp") and ch != " "


def fold_lookalikes(text: str) -> str:
    """``text`` with look-alike letters replaced by the ASCII letter and invisible characters dropped."""
    return "".join(_LOOKALIKE.get(c, c) for c in text if not _invisible(c))


def odd_characters(text: str) -> str:
    """``" (contains U+0435 CYRILLIC SMALL LETTER IE)"`` for characters a reader cannot see as
    written (invisible ones, look-alike letters, anything outside ASCII), or ``""``."""
    odd = []
    for ch in dict.fromkeys(text):
        if ord(ch) < 128 and not _invisible(ch):
            continue
        name = unicodedata.name(ch, "unnamed character")
        note = ", invisible" if _invisible(ch) else (f", looks like '{_LOOKALIKE[ch]}'" if ch in _LOOKALIKE else "")
        odd.append(f"U+{ord(ch):04X} {name}{note}")
    return f" (contains {'; '.join(odd)})" if odd else ""


def shown(value: Any) -> str:
    """A written word quoted for a message, with its hidden or look-alike characters named."""
    return f"'{value}'{odd_characters(str(value))}"


def suggest(word: str, choices: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` for the closest choice, or ``""``."""
    options = [str(c) for c in choices]
    folded = fold_lookalikes(str(word))
    if folded != str(word) and folded in options:
        return f" (did you mean '{folded}'?)"
    close = difflib.get_close_matches(folded, options, n=1, cutoff=0.6)
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
    hint = suggest(value, [str(c) for c in choices]) if isinstance(value, str) and all(
        isinstance(c, str) for c in choices) else ""
    written = shown(value) if isinstance(value, str) else describe(value)
    raise _fail(loc, f"{what}: {written} is not one of {listed}{hint}")


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
        raise _fail(loc, f"{what}: {exc.message}{odd_characters(str(value))}") from None


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
    text = value.text if isinstance(value, YDecimal) else str(value).strip()
    if not _DECIMAL.match(text):
        raise _fail(loc, f"{what}: {shown(value)} is not a decimal number (ASCII digits, e.g. '1.5')")
    try:
        result = Decimal(text)
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
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
        self._loc = loc or self.node.where
        meant: set[str] = set()
        for key in self.node:
            if key not in self.known:
                label = shown(key) if isinstance(key, str) else describe(key)
                hint = suggest(str(key), self.known)
                meant.update(k for k in self.known if hint == f" (did you mean '{k}'?)")
                report(_fail(self.node.key_loc(key), f"{self.prefix}unknown key {label}{hint}"))
        self._meant = meant
        for key in self.required:
            if key not in self.node and key not in meant:  # a misspelt key is reported once, as unknown
                report(_fail(self._loc, f"{self.prefix}missing key '{key}'"))

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
            if key in self._meant:
                raise Abandoned()  # reported as the misspelt key
            raise _fail(self._loc, f"{self.prefix}missing key '{key}'")
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
