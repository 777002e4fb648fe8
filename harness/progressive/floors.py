"""What the regulation fixes for progressive meters, and the checks a configuration must pass.

* Floors for the Royal 9 initial and reset amounts per denomination (Royal 9 (f)(2), (g)(2)):
  $5: mega $50,000, major $450, minor $450; $1: $10,000, $90, $90.  They are read from the
  regulation catalogue (``pa-midi-r9-floors-5`` / ``-1``) when it is installed; :data:`FLOORS` is
  the same table, used until then and checked against the catalogue by the tests.
* The mystery configurations 1-3 of Royal 9 (h) (``pa-midi-r9-mystery``).
* Payout limit above the current amount (461a.12(k)(1)) and within the display (461a.12(j)).
* Linked tables share a meter and so must use the same rate of progression (461a.12(c)(2)).
* The progressive interpretations (:data:`INTERPRETATIONS`) and the options built from them.

A refused configuration raises :class:`~harness.errors.InputError` whose message names the meter,
the amount, the limit and the clause, e.g. ``major reset $400.00 is below the $450.00 floor for
the $5 Royal 9 (pa-midi-r9-floors-5)``.  A controller answers such a ``config.set`` with REFUSED.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal, Protocol

from harness.errors import InputError
from harness.money import Cents, fmt, parse_amount, parse_rate, rate_ratio

#: Royal 9 floors for initial and reset amounts, cents, by denomination in dollars
FLOORS: dict[int, dict[str, Cents]] = {
    5: {"mega": 5_000_000, "major": 45_000, "minor": 45_000},
    1: {"mega": 1_000_000, "major": 9_000, "minor": 9_000},
}
FLOOR_CLAUSES: dict[int, str] = {5: "pa-midi-r9-floors-5", 1: "pa-midi-r9-floors-1"}
MYSTERY_CLAUSE = "pa-midi-r9-mystery"
LINK_CLAUSE = "461a.12(c)(2)"

#: Royal 9 (h): configuration -> (reseed, must-hit-by, incrementation rate percent)
MYSTERY_CONFIGURATIONS: dict[int, tuple[Cents, Cents, Decimal]] = {
    1: (25_000, 100_000, Decimal(5)),
    2: (10_000, 50_000, Decimal(5)),
    3: (10_000, 20_000, Decimal(2)),
}


@dataclass(frozen=True, slots=True)
class ProgressiveOptions:
    """The progressive interpretations that change behaviour (see :data:`INTERPRETATIONS`)."""

    #: ``meter-reset-timing``: an attendant-paid hit resets at the reset key ("on-reset-key", the
    #: catalogue's "after-payment") or when it is recorded ("immediate", the catalogue's "at-hit")
    attendant_reset: Literal["on-reset-key", "immediate"] = "on-reset-key"
    #: ``mystery-award-amount``: "meter-at-trigger" (default) or "trigger-amount"
    mystery_award_amount: Literal["meter-at-trigger", "trigger-amount"] = "meter-at-trigger"
    #: ``meter-residual-on-reset``: the fraction of a cent is carried across a reset, or discarded
    residual_on_reset: Literal["carry", "discard"] = "carry"

    @classmethod
    def from_overrides(cls, overrides: Mapping[str, object]) -> ProgressiveOptions:
        """Build from a profile's ``interpretations:`` mapping.

        Ids this model has no choice for are left to the catalogue, which knows every id; a value
        outside the choices of an id listed here is refused.
        """
        known = {entry["id"]: entry for entry in INTERPRETATIONS}
        values: dict[str, Any] = {}
        for key, value in overrides.items():
            if not (key.startswith("meter-") or key.startswith("mystery-")):
                continue
            entry = known.get(key)
            if entry is None:
                continue
            if value not in entry["choices"]:
                raise InputError(f"interpretation {key}: {value!r} is not one of {list(entry['choices'])}")
            if key == "meter-reset-timing":
                values["attendant_reset"] = "immediate" if value == "at-hit" else "on-reset-key"
            elif key == "mystery-award-amount":
                values["mystery_award_amount"] = value
            elif key == "meter-residual-on-reset":
                values["residual_on_reset"] = value
        return cls(**values)


#: The named interpretations this package introduces, as data for the regulation catalogue.
INTERPRETATIONS: tuple[dict[str, Any], ...] = (
    {"id": "meter-residual-on-reset", "default": "carry", "choices": ("carry", "discard"),
     "clauses": ("461a.12(h)", "Royal 9 (f)(2)"),
     "question": "Is the fraction of a cent carried across a hit and reset?",
     "reason": "carried: it belongs to wagers already made; dropping it would break "
               "sum(wager x rate) == growth + residual, and nothing may be dropped"},
    {"id": "meter-reset-timing", "default": "after-payment", "choices": ("after-payment", "at-hit"),
     "clauses": ("461a.12(b)(3)", "461a.12(b)(5)"),
     "question": "Does a hit paid by an attendant reset at once or when the reset key is turned?",
     "reason": "the text requires a reset key or mechanism for attendant-paid jackpots; the won "
               "amount stays displayed until the attendant has paid it and turns the key"},
    {"id": "meter-contributions-while-pending", "default": "held", "choices": ("held",),
     "clauses": ("461a.12(h)",),
     "question": "What happens to qualifying wagers while a hit waits for the reset key?",
     "reason": "held and added on top of the reset amount at the key: the won amount is not "
               "inflated and no contribution is lost"},
    {"id": "meter-excess-at-limit", "default": "divert", "choices": ("divert",),
     "clauses": ("461a.12(j)", "461a.12(k)(1)"),
     "question": "What happens to increments once the amount is at its limit?",
     "reason": "the amount stops at the limit and never wraps; the excess is kept in a diverted "
               "account so the contributions still balance"},
    {"id": "meter-limit-defaults-to-display", "default": True, "choices": (True,),
     "clauses": ("461a.12(j)",),
     "question": "A meter has a display capacity but no payout limit: what is its limit?",
     "reason": "(j) requires a limit not exceeding the display capability; the capacity itself "
               "is the largest limit that satisfies it"},
    {"id": "meter-payout-limit-check", "default": "set-and-reset", "choices": ("set-and-reset", "current-only"),
     "clauses": ("461a.12(k)(1)",),
     "question": "Against which amount is 'greater than the then current payout amount' checked?",
     "reason": "against the current amount when the limit is set or changed, and at configuration "
               "against the initial and reset amounts, which are the current amount right after "
               "installation and after every hit; 'current-only' checks the current amount alone, and a "
               "controller may then take or refuse a limit at or below the initial or reset amount"},
    {"id": "meter-share-resets", "default": True, "choices": (True,),
     "clauses": ("Royal 9 (f)(1)", "633a.13(l)(1)"),
     "question": "Does an award of a share of the meter reset it?",
     "reason": "the paytables only award 100% of a meter; a share is paid rounded down and the "
               "meter resets as after a full hit"},
    {"id": "mystery-award-amount", "default": "meter-at-trigger",
     "choices": ("meter-at-trigger", "trigger-amount"),
     "clauses": ("Royal 9 (h)", "461a.12(b)(1)"),
     "question": "Is a mystery award the meter as it stands when the trigger is reached, or the trigger?",
     "reason": "a progressive pays what its meter shows (461a.12(b)(1)), capped at must-hit-by with "
               "any excess carried onto the reseeded meter; 'trigger-amount' pays the trigger and "
               "carries the excess, so awards follow the declared distribution exactly"},
)




def check_payout_limit(name: str, limit: Cents, current: Cents, display_capacity: Cents | None) -> None:
    """Refuse a payout limit that is not above ``current`` (461a.12(k)(1)) or past the display (j)."""
    if limit <= current:
        raise InputError(
            f"{name} payout limit {fmt(limit)} must be greater than the current amount {fmt(current)} "
            "(461a.12(k)(1))"
        )
    if display_capacity is not None and limit > display_capacity:
        raise InputError(
            f"{name} payout limit {fmt(limit)} exceeds the display capacity {fmt(display_capacity)} "
            "(461a.12(j))"
        )


@functools.cache
def _catalogue_params(clause_id: str) -> dict[str, Any] | None:
    """The clause's params from the regulation catalogue, or None while it is not installed.

    The constant tables here are the fall-back; ``tests/progressive`` checks they equal the
    catalogue's, so a catalogue that fails to load cannot change a verdict.
    """
    try:
        module = importlib.import_module("harness.regulations.catalogue")
    except ModuleNotFoundError:
        return None
    try:
        params = module.load_catalogue().clause(clause_id).params
    except Exception:  # a catalogue still being written must not break the meter model
        return None
    return dict(params) if isinstance(params, Mapping) else None


def floors_for(denomination: int) -> dict[str, Cents]:
    """Royal 9 initial/reset floors in cents for a $5 or $1 wager (Royal 9 (f)(2), (g)(2))."""
    if denomination not in FLOOR_CLAUSES:
        raise InputError(f"the Royal 9 has no ${denomination} denomination (the regulation has $5 and $1)")
    params = _catalogue_params(FLOOR_CLAUSES[denomination])
    if params is None or not isinstance(params.get("floors"), Mapping):
        return dict(FLOORS[denomination])
    return {str(name): parse_amount(value) for name, value in params["floors"].items()}


def mystery_configuration(number: int) -> tuple[Cents, Cents, Decimal]:
    """Royal 9 (h) configuration ``number`` as (reseed, must-hit-by, rate percent)."""
    if number not in MYSTERY_CONFIGURATIONS:
        raise InputError(f"mystery configuration {number}: the regulation has configurations 1, 2 and 3 "
                         f"({MYSTERY_CLAUSE})")
    params = _catalogue_params(MYSTERY_CLAUSE)
    table = params.get("configurations") if params else None
    if not isinstance(table, Mapping):
        return MYSTERY_CONFIGURATIONS[number]
    row = table.get(number, table.get(str(number)))
    if not isinstance(row, Mapping):
        return MYSTERY_CONFIGURATIONS[number]
    return parse_amount(row["reseed"]), parse_amount(row["must_hit_by"]), parse_rate(row["rate"])


class DeclaredMeter(Protocol):
    """What the checks below read of a declared meter (a :class:`harness.progressive.meter.MeterConfig`)."""

    @property
    def name(self) -> str: ...
    @property
    def rate(self) -> Decimal: ...
    @property
    def initial(self) -> Cents: ...
    @property
    def reset(self) -> Cents: ...
    @property
    def payout_limit(self) -> Cents | None: ...
    @property
    def display_capacity(self) -> Cents | None: ...


def configuration_problems(meters: Iterable[DeclaredMeter], denomination: int | None = None,
                           *, game: str = "Royal 9") -> list[str]:
    """Every reason to refuse this meter configuration (empty when it is acceptable).

    With a ``denomination`` the Royal 9 floors apply to meters named mega, major and minor, and
    all three must be declared ((f)(2), (g)(2): the amounts "must be in the Rules Submission").
    """
    problems: list[str] = []
    seen: set[str] = set()
    floors: dict[str, Cents] = {}
    clause = ""
    if denomination is not None:
        floors = floors_for(denomination)
        clause = FLOOR_CLAUSES[denomination]
    for cfg in meters:
        name = cfg.name
        if name in seen:
            problems.append(f"meter {name!r} is declared twice")
        seen.add(name)
        try:
            rate_ratio(cfg.rate)
        except InputError as exc:
            problems.append(f"{name} {exc.message}")
        for label, amount in (("initial", cfg.initial), ("reset", cfg.reset)):
            if amount < 0:
                problems.append(f"{name} {label} amount {fmt(amount)} is negative")
            floor = floors.get(name)
            if floor is not None and amount < floor:
                problems.append(f"{name} {label} {fmt(amount)} is below the {fmt(floor)} floor for the "
                                f"${denomination} {game} ({clause})")
        limit, capacity = cfg.payout_limit, cfg.display_capacity
        if limit is not None:
            for label, amount in (("initial", cfg.initial), ("reset", cfg.reset)):
                if limit <= amount:
                    problems.append(f"{name} payout limit {fmt(limit)} must be greater than the {label} "
                                    f"amount {fmt(amount)} (461a.12(k)(1))")
            if capacity is not None and limit > capacity:
                problems.append(f"{name} payout limit {fmt(limit)} exceeds the display capacity "
                                f"{fmt(capacity)} (461a.12(j))")
        if capacity is not None:
            for label, amount in (("initial", cfg.initial), ("reset", cfg.reset)):
                if amount > capacity:
                    problems.append(f"{name} {label} amount {fmt(amount)} exceeds the display capacity "
                                    f"{fmt(capacity)} (461a.12(j))")
    for name in floors:
        if name not in seen:
            problems.append(f"the ${denomination} {game} needs a {name} meter with its initial and reset "
                            f"amounts ({clause})")
    return problems


def check_configuration(meters: Iterable[DeclaredMeter], denomination: int | None = None,
                        *, game: str = "Royal 9") -> None:
    """Raise :class:`InputError` with the first of :func:`configuration_problems`, if any."""
    problems = configuration_problems(meters, denomination, game=game)
    if problems:
        raise InputError(problems[0] + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))


def check_linked_rates(tables: Mapping[str, Mapping[str, Decimal]]) -> None:
    """Linked tables feed one common meter with the same rate of progression (461a.12(c)(2)).

    ``tables`` maps a table id to its declared ``{meter: rate percent}``; every table must declare
    the same meters with equal rates (compared as numbers: "0.5" equals "0.50").
    """
    items = list(tables.items())
    if len(items) < 2:
        return
    first_table, first = items[0]
    for table, rates in items[1:]:
        if set(rates) != set(first):
            raise InputError(f"table {table} has meters {sorted(rates)} but table {first_table} has "
                             f"{sorted(first)}: linked tables share the same meters ({LINK_CLAUSE})")
        for meter, rate in rates.items():
            if rate != first[meter]:
                raise InputError(f"table {table} {meter} rate {rate}% differs from {first[meter]}% on table "
                                 f"{first_table}: linked tables must use the same rate of progression "
                                 f"({LINK_CLAUSE})")
