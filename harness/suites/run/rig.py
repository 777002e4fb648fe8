"""A table's rig: the devices a table profile binds to roles, opened through the driver registry.

For an emulated profile the emulator runs as a separate process (pty or 127.0.0.1 TCP) and the
rig reaches it through the same pyserial and pyvisa code paths it uses for hardware; only the
addresses differ.  Every port is closed in :meth:`Rig.close`, and the emulator (if this rig started
it) is stopped by its pid.  A link's rig (:mod:`harness.link.rig`) is one of these per table and the
link controller; :func:`harness.suites.run.profile_rig.open_rig` opens whichever a profile asks for.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.devices.registry import open_device
from harness.devices.roles import BetSensors, Counter, Device, PowerSupply, ProgressiveController, Shoe
from harness.emulators.config import EmulatorConfig
from harness.emulators.process import start_emulator
from harness.errors import DeviceError
from harness.profiles.model import Profile


@dataclass
class Rig:
    shoe: Shoe | None = None
    sensors: BetSensors | None = None
    controller: ProgressiveController | None = None
    counter: Counter | None = None
    power: PowerSupply | None = None
    emulator: Any = None
    errors: dict[str, str] = field(default_factory=dict)

    def devices(self) -> dict[str, Device]:
        return {r: d for r in ("shoe", "sensors", "controller", "counter", "power")
                if (d := getattr(self, r)) is not None}

    def close(self) -> None:
        for dev in self.devices().values():
            with contextlib.suppress(Exception):
                dev.close()
        if self.emulator is not None:
            self.emulator.stop()
            self.emulator = None


def open_table_rig(
    profile: Profile, *, listen: str = "pty", run_dir: Path | None = None, defects: tuple[str, ...] = (),
    emulator: Any = None,
) -> Rig:
    """Start the emulator if the table profile asks for one, then open every role's driver.

    ``defects`` adds emulator defects to the profile's own (the defect matrix uses it); ``emulator``
    is one already started for this profile (:func:`start_profile_emulator`; the rig stops it when
    closed)."""
    rig = Rig()
    addresses: dict[str, Any] = {}
    try:
        if profile.is_emulated:
            rig.emulator = emulator or start_profile_emulator(profile, listen=listen, run_dir=run_dir,
                                                              defects=defects)
            addresses = rig.emulator.addresses
        for role, spec in profile.devices.items():
            device = open_device(role, device_entry(profile, role, addresses))
            setattr(rig, role, device)
            if spec.match:
                check_identity(role, device, dict(spec.match))
    except BaseException:
        rig.close()
        raise
    return rig


def device_entry(profile: Profile, role: str, addresses: dict[str, Any]) -> dict[str, Any]:
    """The driver entry that opens ``role``'s device (``addresses``: an emulator's, by role)."""
    spec = profile.devices[role]
    entry: dict[str, Any] = {"driver": spec.driver}
    if spec.port is not None:
        entry["port"] = addresses[role] if spec.is_emulated else spec.port
        if spec.baudrate is not None:
            entry["baudrate"] = spec.baudrate
    entry.update(spec.options)
    if spec.port is not None and "timeout_ms" not in entry:  # a device's own timeout_ms wins
        entry["timeout_ms"] = str(profile.timing.response_timeout_ms)
    if spec.resource is not None:
        entry["resource"] = addresses[role] if spec.is_emulated else spec.resource
        entry["backend"] = spec.backend
    return entry


def start_profile_emulator(profile: Profile, *, listen: str = "pty", run_dir: Path | None = None,
                           defects: tuple[str, ...] = ()) -> Any:
    """The emulator process of an emulated profile, with its own defect and ``defects``."""
    chosen = [profile.emulator.defect] if profile.emulator.defect else []
    chosen += [d for d in defects if d not in chosen]
    # the profile as loaded and checked (a bench twin differs from its file): the emulator is handed the
    # configuration built from it, and never reads the profile's YAML itself
    return start_emulator(EmulatorConfig.from_typed(profile), listen, run_dir, defects=chosen)


def check_identity(role: str, device: Device, match: dict[str, str]) -> None:
    """The device on the port is the one the profile names (stable identity, not port order).

    Table devices are compared field by field with their ``identity`` answer; an instrument's
    ``*IDN?`` answer must contain every pinned value.  A mismatch is a rig error before any case."""
    identify = getattr(device, "identity", None)
    if identify is not None:
        got = identify().to_dict()
        wrong = {k: (v, got.get(k)) for k, v in match.items() if got.get(k) != v}
    else:
        idn = str(device.idn())  # type: ignore[attr-defined]
        wrong = {k: (v, idn) for k, v in match.items() if v not in idn}
    if wrong:
        detail = "; ".join(f"{k}: profile expects {want!r}, device says {have!r}" for k, (want, have) in wrong.items())
        raise DeviceError(f"{role}: the device on this port is not the one the profile names ({detail})")
