"""Numbers on the command line: ASCII digits only, within bounds, one way for every command.

Python's ``int()`` reads ``5_00`` as 500, ``٥٠٠`` (Arabic-Indic) and ``５００`` (full-width) as 500,
and `` +5 `` as 5; ``str.isdigit()`` is true for all of them.  A number a lab engineer types into a
certification command is read only as written in ASCII digits, and outside its bounds it is
refused with the bounds: ``--stake 0`` or ``-n -1`` are bad input (exit 2), never a run of
nothing.  Used as an ``argparse`` ``type=`` (the message becomes argparse's usage error) and by the
parsers of compound values (``--meters mega=5000000``).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

from harness.errors import InputError

_DIGITS = re.compile(r"^[0-9]+$")
_DECIMAL = re.compile(r"^[0-9]+(?:\.[0-9]+)?$")
#: the largest amount in cents a command takes (12 digits of dollars, as in every file: harness.money)
MAX_CENTS = 10**14 - 1
#: the largest seed (a 63-bit number: every generator tablecert seeds takes it)
MAX_SEED = 2**63 - 1


def _odd(text: str) -> str:
    from harness.schema import odd_characters

    return odd_characters(text)


def whole(text: str, what: str, lo: int, hi: int) -> int:
    """``text`` as a whole number ``lo..hi`` written in ASCII digits, else :class:`InputError`."""
    if not _DIGITS.match(text):
        if "_" in text:
            why = "write it without '_'"
        elif text.startswith("-") and _DIGITS.match(text[1:]):
            why = f"it must be {lo} or more"
        else:
            why = "ASCII digits 0-9 only"
        raise InputError(f"{what} {text[:40]!r}: not a whole number ({why}){_odd(text)}")
    value = int(text)
    if not lo <= value <= hi:
        raise InputError(f"{what} {text[:40]}: out of range ({lo}..{hi:,})")
    return value


def seconds(text: str, what: str, hi: float) -> float:
    """A duration in seconds, ``0 < s <= hi``, in ASCII digits (``90``, ``2.5``)."""
    if not _DECIMAL.match(text):
        raise InputError(f"{what} {text[:40]!r}: not a number of seconds (ASCII digits, e.g. 90 or 2.5){_odd(text)}")
    value = float(text)
    if not 0 < value <= hi:
        raise InputError(f"{what} {text}: out of range (more than 0, at most {hi:g})")
    return value


def count(lo: int, hi: int) -> Callable[[str], int]:
    """``type=count(1, 64)``: a whole number in ``lo..hi``, ASCII digits only."""
    def parse(text: str) -> int:
        try:
            return whole(text, "", lo, hi)
        except InputError as exc:
            raise argparse.ArgumentTypeError(exc.message.lstrip()) from None
    parse.__name__ = "whole number"
    return parse


def duration(hi: float) -> Callable[[str], float]:
    """``type=duration(86400)``: seconds, more than 0 and at most ``hi``."""
    def parse(text: str) -> float:
        try:
            return seconds(text, "", hi)
        except InputError as exc:
            raise argparse.ArgumentTypeError(exc.message.lstrip()) from None
    parse.__name__ = "seconds"
    return parse
