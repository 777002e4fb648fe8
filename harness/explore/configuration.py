"""Configuration writes judged (pure): which ``config.set`` a device must refuse, which it may take or
refuse, what a taken one leaves, and which NAK a refusal may carry.

docs/protocol.md 6.4 "REFUSED below a floor or outside a limit" (the Royal 9 floors, 461a.12(j) and (k)(1),
a reset above the meter, personal combinations that are not unique king-9 pairs) and section 3 (BAD_ARGS
for a malformed or out-of-range value only); the floors and limits are
:func:`harness.progressive.floors.configuration_problems`'s.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from harness.cards import parse_card
from harness.errors import InputError
from harness.explore import rules as R
from harness.explore.state import State
from harness.money import parse_rate
from harness.progressive.floors import configuration_problems

_LIMIT_AGAINST_SETTINGS = re.compile(r"payout limit .* must be greater than the (initial|reset) amount")


def malformed(changes: Mapping[str, Any]) -> bool:
    """A ``config.set`` carrying a malformed or out-of-range value, which a device may answer NAK BAD_ARGS
    (docs/protocol.md section 3, "missing, mistyped or out-of-range argument", and 6.4: a field that is not
    configurable or a malformed value): decks outside 1..16, a seat outside 1..9 or a combination that is
    not two cards, a commission outside 0..100 %, a denomination or an amount that is not whole cents, a
    meter or field the table does not have.  A write that is none of these is within the contract's ranges:
    declined, it is REFUSED, never BAD_ARGS."""
    for key, value in changes.items():
        if key == "decks" and (not _cents(value) or not 1 <= value <= 16):
            return True
        if key == "denomination" and not _cents(value):
            return True
        if key == "commission":
            try:
                parse_rate(value)
            except (InputError, TypeError):
                return True
        if key == "seats" and _bad_seats(value):
            return True
        if key == "meters":
            if not isinstance(value, Mapping):
                return True
            for name, fields in value.items():
                if name not in ("mega", "major", "minor") or not isinstance(fields, Mapping) \
                        or _bad_meter_fields(fields):
                    return True
        if key not in ("decks", "denomination", "commission", "seats", "meters"):
            return True
    return False


def _cents(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _bad_meter_fields(fields: Mapping[str, Any]) -> bool:
    for field_name, value in fields.items():
        if field_name == "rate":
            try:
                parse_rate(value)
            except (InputError, TypeError):
                return True
        elif field_name in ("initial", "reset"):
            if not _cents(value):
                return True
        elif field_name in ("payout_limit", "display_capacity"):
            if value is not None and not _cents(value):
                return True
        else:
            return True
    return False


def _bad_seats(value: Any) -> bool:
    if not isinstance(value, (list, tuple)):
        return True
    for item in value:
        if not isinstance(item, Mapping) or not _cents(item.get("seat")) or not 1 <= item["seat"] <= 9:
            return True
        combo = item.get("combo")
        if combo is None:
            continue
        if not isinstance(combo, (list, tuple)) or len(combo) != 2:
            return True
        try:
            parse_card(str(combo[0]))
            parse_card(str(combo[1]))
        except InputError:
            return True
    # a write that adds or removes seats is well-formed (one to nine seats): it is not played (written_seats)
    return False


def config_after(s: State, changes: Mapping[str, Any], *, royal9: bool,
                 limit_check: str = "set-and-reset") -> tuple[State | None, list[R.Rule]]:
    """The state a configuration write leaves when taken, or None with the rules that refuse it (``royal9``:
    the table has the Royal 9 meters and its denomination; ``limit_check``: interpretation
    meter-payout-limit-check)."""
    n = s.clone()
    broken: list[R.Rule] = []
    if "decks" in changes:
        decks = changes["decks"]
        if not isinstance(decks, int) or isinstance(decks, bool) or not 1 <= decks <= 16:
            return None, [R.CONFIG_RANGE, R.CONFIG_WRITES]
        n.decks = decks
    if "seats" in changes:
        seats = written_seats(s, changes["seats"])
        if seats is None:
            return None, [R.CONFIG_RANGE, R.CONFIG_WRITES]
        n.seats = seats
    if "commission" in changes:
        # a percentage 0..100 (harness.money.parse_rate); outside it, or malformed: refused
        try:
            n.commission = parse_rate(changes["commission"])
        except (InputError, TypeError):
            return None, [R.CONFIG_RANGE]
    if "denomination" in changes:
        den = changes["denomination"]
        if not royal9 or den not in (100, 500):
            return None, [R.CONFIG_RANGE]
        n.denomination = den
    for name, fields in dict(changes.get("meters") or {}).items():
        cfg = n.meter_cfg.get(name)
        if cfg is None:
            return None, [R.CONFIG_RANGE]
        upd = dict(fields)
        if "rate" in upd:
            upd["rate"] = Decimal(str(upd["rate"]))
        new = dataclasses.replace(cfg, **upd)
        amount = n.meters[name].amount
        # a value written again as it stands establishes or changes nothing (461a.12(k)(1))
        # a payout limit established must be greater than the meter's current amount (461a.12(k)(1)); a
        # limit removed (null, docs/protocol.md 6.4 "cents or null") limits nothing: taken or refused
        if "payout_limit" in upd and new.payout_limit != cfg.payout_limit \
                and new.payout_limit is not None and new.payout_limit <= amount:
            broken.append(R.CONFIG_LIMIT)
        if "reset" in upd and new.reset != cfg.reset and new.reset > amount:
            broken.append(R.CONFIG_LIMIT)
        n.meter_cfg[name] = new
    # the Royal 9 floors of a $5 or a $1 table; a denomination the device reports otherwise (adopted as it
    # stands) has none to hold a write to
    den = n.denomination // 100 if royal9 and n.denomination in (100, 500) else None
    was = s.denomination // 100 if royal9 and s.denomination in (100, 500) else None
    # only what the write brings in: a configuration adopted from the device as it stood may already
    # break a bound the write does not touch (docs/protocol.md 6.4 judges the fields written), and a
    # device may then take the write or refuse it (both outcomes are kept)
    before = set(configuration_problems(s.meter_cfg.values(), was))
    for problem in configuration_problems(n.meter_cfg.values(), den):
        # 461a.12(k)(1) holds a payout limit to the meter's current amount (checked above); against the
        # initial and reset amounts (which the meter shows after installation and after every hit) only
        # under interpretation meter-payout-limit-check "set-and-reset" (the default): under
        # "current-only" a device may take or refuse such a write
        if problem not in before and (limit_check == "set-and-reset" or not _LIMIT_AGAINST_SETTINGS.search(problem)):
            broken.append(R.CONFIG_FLOOR if "floor" in problem else R.CONFIG_LIMIT)
    return (None, broken) if broken else (n, [])

def written_seats(s: State, value: Any) -> tuple[tuple[int, tuple[str, str] | None], ...] | None:
    """The seats a ``seats`` write sets, or None where it is refused: the table's seats (a write that
    adds or removes seats is not played), each combination a king and a nine, no two alike (629a Royal
    9 (e)(5))."""
    if not isinstance(value, (list, tuple)):
        return None
    out: dict[int, tuple[str, str] | None] = {}
    for item in value:
        if not isinstance(item, Mapping) or not isinstance(item.get("seat"), int):
            return None
        combo = item.get("combo")
        if combo is None:
            out[item["seat"]] = None
            continue
        if not isinstance(combo, (list, tuple)) or len(combo) != 2:
            return None
        try:
            king, nine = parse_card(str(combo[0])), parse_card(str(combo[1]))
        except InputError:
            return None
        if king.rank != 13 or nine.rank != 9:
            return None
        out[item["seat"]] = (king.code, nine.code)
    if set(out) != {seat for seat, _c in s.seats}:
        return None
    combos = [c for c in out.values() if c is not None]
    if len(set(combos)) != len(combos):
        return None
    return tuple(sorted(out.items()))
