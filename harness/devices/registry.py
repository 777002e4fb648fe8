"""Driver registry: profile ``driver:`` names -> driver classes, built-in and plugged in.

Built-ins: ``reference-shoe``, ``reference-sensors``, ``reference-controller`` (the reference
protocol, docs/protocol.md) and ``scpi-counter``, ``scpi-power`` (SCPI over VISA).  A vendor adds
a driver without forking tablecert by declaring an entry point in the group ``tablecert.drivers``::

    [project.entry-points."tablecert.drivers"]
    acme-shoe = "acme_tablecert.shoe:AcmeShoe"

The entry point's name is the registry name a profile uses; its object is a class that subclasses
one role of ``harness.devices.roles`` and implements ``from_entry``.  A plugin may not take a
built-in name (an entry point that names the very same built-in class is tolerated, so the
built-ins may also be declared in the group).  Plugins are loaded lazily, once, and a plugin that
fails to import or does not implement a role is reported, not silently skipped.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harness.devices.drivers.link import ReferenceLinkController
from harness.devices.drivers.reference import ReferenceController, ReferenceSensors, ReferenceShoe
from harness.devices.drivers.scpi import ScpiCounter, ScpiPowerSupply
from harness.devices.roles import ROLE_CLASSES, Device
from harness.errors import DeviceError, InputError

ENTRY_POINT_GROUP = "tablecert.drivers"

BUILTINS: dict[str, type[Device]] = {
    "reference-shoe": ReferenceShoe,
    "reference-sensors": ReferenceSensors,
    "reference-controller": ReferenceController,
    "scpi-counter": ScpiCounter,
    "scpi-power": ScpiPowerSupply,
    "reference-link-controller": ReferenceLinkController,
}


@dataclass(frozen=True)
class DriverInfo:
    name: str
    role: str
    cls: type[Device]
    origin: str  # "built-in" or "plugin <dist> (<module:attr>)"
    options: frozenset[str]


def role_of(cls: type) -> str | None:
    """The role a driver class implements, from the role interface it subclasses."""
    for role, base in ROLE_CLASSES.items():
        if isinstance(cls, type) and issubclass(cls, base):
            return role
    return None


class Registry:
    """Built-ins plus the plugins found in an entry-point group (loaded on first use)."""

    def __init__(self, group: str = ENTRY_POINT_GROUP) -> None:
        self.group = group
        self._drivers: dict[str, DriverInfo] | None = None
        self.problems: list[str] = []

    def _load(self) -> dict[str, DriverInfo]:
        if self._drivers is not None:
            return self._drivers
        drivers = {
            name: DriverInfo(name, role_of(cls) or "", cls, "built-in", cls.options)
            for name, cls in BUILTINS.items()
        }
        for ep in importlib.metadata.entry_points(group=self.group):
            dist = ep.dist.name if ep.dist is not None else "?"
            origin = f"plugin {dist} ({ep.value})"
            try:
                obj = ep.load()
            except Exception as exc:
                self.problems.append(f"driver {ep.name!r} from {origin} failed to load: {exc!r}")
                continue
            if ep.name in BUILTINS:
                if obj is not BUILTINS[ep.name]:
                    self.problems.append(f"driver {ep.name!r} from {origin} would shadow a built-in; ignored")
                continue
            role = role_of(obj)
            if role is None:
                self.problems.append(f"driver {ep.name!r} from {origin} does not subclass a role of "
                                     "harness.devices.roles; ignored")
                continue
            if ep.name in drivers:
                self.problems.append(f"driver {ep.name!r} declared twice ({drivers[ep.name].origin}, {origin}); "
                                     "the first is kept")
                continue
            drivers[ep.name] = DriverInfo(ep.name, role, obj, origin, getattr(obj, "options", frozenset()))
        self._drivers = drivers
        return drivers

    def names(self) -> list[str]:
        return sorted(self._load())

    def info(self, name: str) -> DriverInfo:
        drivers = self._load()
        if name not in drivers:
            hint = f" ({'; '.join(self.problems)})" if self.problems else ""
            raise InputError(f"unknown driver {name!r}; known: {', '.join(sorted(drivers))}{hint}")
        return drivers[name]

    def open(self, role: str, entry: Mapping[str, Any]) -> Device:
        """Build and connect the driver a profile device entry names, checking it fits ``role``."""
        if role not in ROLE_CLASSES:
            raise InputError(f"unknown device role {role!r}; roles are {', '.join(ROLE_CLASSES)}")
        name = entry.get("driver")
        if not isinstance(name, str):
            raise InputError(f"devices.{role}: 'driver' must name a driver")
        info = self.info(name)
        if info.role != role:
            raise InputError(f"devices.{role}: driver {name!r} implements the {info.role!r} role")
        device = info.cls.from_entry(entry)
        if not isinstance(device, ROLE_CLASSES[role]):
            device.close()
            raise DeviceError(f"driver {name!r} built a {type(device).__name__}, not a {role}")
        return device


_default = Registry()


def default_registry() -> Registry:
    return _default


def open_device(role: str, entry: Mapping[str, Any]) -> Device:
    """``default_registry().open(role, entry)``: the usual way to get a driver from a profile."""
    return _default.open(role, entry)


def driver_names() -> list[str]:
    return _default.names()
