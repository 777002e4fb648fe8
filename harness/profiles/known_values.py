"""What a profile is checked against, looked up from the modules that own it.

Drivers, interpretations, floors, mystery configurations and defects belong to other layers
(``harness.devices``, ``harness.regulations.catalogue``, ``harness.progressive.floors``,
``harness.emulators.defects``).  Validation must work without starting a device and must not break
while one of those is missing, so each lookup imports its owner lazily and falls back to the
regulation's own figures where it has them: the floors and the mystery configurations of
:mod:`harness.progressive.floors` (their one home), the driver and interpretation lists kept here.
"""

from __future__ import annotations

import importlib
from decimal import Decimal
from importlib import metadata
from types import ModuleType
from typing import Any

from harness.money import Cents
from harness.progressive.floors import FLOORS, MYSTERY_CONFIGURATIONS

#: built-in drivers and the role each one plays
BUILTIN_DRIVERS: dict[str, str] = {
    "reference-shoe": "shoe",
    "reference-sensors": "sensors",
    "reference-controller": "controller",
    "scpi-counter": "counter",
    "scpi-power": "power",
    "reference-link-controller": "link-controller",
}
#: built-in drivers reached through VISA (``resource:``); the others use a serial ``port:``
VISA_DRIVERS = frozenset({"scpi-counter", "scpi-power"})
DRIVER_GROUP = "tablecert.drivers"

#: interpretation ids known before the catalogue exists (the brief's list), all true/false
_FALLBACK_INTERPRETATIONS: dict[str, tuple[Any, ...]] = {
    i: (True, False)
    for i in (
        "r9-envy-for-mega-winner", "r9-envy-requires-wager", "r9-personal-combo-suited",
        "r9-one-award-per-wager", "award-returns-stake", "r9-order-insensitive",
    )
}


def _optional(module: str) -> ModuleType | None:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module.startswith(exc.name):
            return None
        raise


def driver_names() -> dict[str, str | None]:
    """Driver name -> its role (None for a plug-in whose role is not declared)."""
    names: dict[str, str | None] = dict(BUILTIN_DRIVERS)
    registry = _optional("harness.devices.registry")
    listed = getattr(registry, "driver_names", None) if registry else None
    if callable(listed):
        for name in listed():
            names.setdefault(str(name), None)
    for ep in metadata.entry_points(group=DRIVER_GROUP):
        names.setdefault(ep.name, None)
    return names


def _catalogue() -> Any | None:
    module = _optional("harness.regulations.catalogue")
    if module is None:
        return None
    try:
        return module.load_catalogue()
    except OSError:  # the catalogue data is not installed yet
        return None


def interpretation_choices() -> dict[str, tuple[Any, ...]]:
    """Interpretation id -> allowed values: the catalogue's when installed, else the known ids."""
    cat = _catalogue()
    if cat is not None:
        return {i.id: tuple(i.choices) for i in cat.interpretations()}
    table = dict(_FALLBACK_INTERPRETATIONS)
    games = _optional("harness.games.interpretations")
    for interp_id in getattr(games, "DEFAULTS", {}) if games else {}:
        table.setdefault(interp_id, (True, False))
    progressive = _optional("harness.progressive.floors")
    for entry in getattr(progressive, "INTERPRETATIONS", ()) if progressive else ():
        table.setdefault(entry["id"], tuple(entry["choices"]))
    return table


#: the jurisdictions known before the catalogue exists (its ``scope:`` when installed)
_FALLBACK_JURISDICTIONS = ("PA", "WA")


def jurisdictions() -> tuple[str, ...]:
    """The jurisdictions a profile may be certified for: those of the catalogue's clauses, and those
    whose confidence level for the statistical batteries is known (``harness.randomness.settings``)."""
    cat = _catalogue()
    found = list(cat.jurisdictions() if cat is not None else ()) or list(_FALLBACK_JURISDICTIONS)
    settings = _optional("harness.randomness.settings")
    found += [j for j in getattr(settings, "JURISDICTION_CONFIDENCE", {}) if j not in found]
    return tuple(found)


def floors(denomination: int) -> dict[str, Cents]:
    """Royal 9 floors in cents for the $5 or $1 wager (the catalogue's figures when installed)."""
    cat = _catalogue()
    if cat is not None:
        return dict(cat.floors(denomination))
    return dict(FLOORS[denomination])


def mystery(configuration: int) -> tuple[Cents, Cents, Decimal]:
    """Royal 9 (h) configuration as (reseed, must-hit-by, rate percent)."""
    cat = _catalogue()
    if cat is not None:
        row = cat.mystery_configurations()[configuration]
        return row.reseed_cents, row.must_hit_by_cents, row.rate
    return MYSTERY_CONFIGURATIONS[configuration]


def defect_names() -> tuple[str, ...] | None:
    """Known emulator defect names, or None while the emulators do not list them."""
    module = _optional("harness.emulators.defects")
    defects = getattr(module, "DEFECTS", None) if module else None
    return tuple(defects) if isinstance(defects, dict) else None
