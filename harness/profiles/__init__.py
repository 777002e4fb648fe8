"""Device profiles: which device plays each role, the Rules Submission, limits, overrides.

``load_profile(path) -> Profile`` validates a ``device_profiles/*.yaml`` file; every problem is
an :class:`~harness.errors.InputError` reading ``file:line:col: message``.  The format is
documented for newcomers in ``docs/device-profiles.md``.
"""

from harness.profiles.load import (
    CAPABILITIES,
    GAMES,
    ROLES,
    SPEC,
    SPEC_PREFIX,
    load_profile,
    load_profile_text,
    profile_from_node,
)
from harness.profiles.model import (
    EMULATOR,
    DeviceSpec,
    EmulatorSettings,
    HitAndRunSettings,
    MeterSettings,
    MysterySettings,
    Profile,
    RulesSubmission,
    SeatSettings,
    Timing,
)

__all__ = [
    "CAPABILITIES",
    "EMULATOR",
    "GAMES",
    "ROLES",
    "SPEC",
    "SPEC_PREFIX",
    "DeviceSpec",
    "EmulatorSettings",
    "HitAndRunSettings",
    "MeterSettings",
    "MysterySettings",
    "Profile",
    "RulesSubmission",
    "SeatSettings",
    "Timing",
    "load_profile",
    "load_profile_text",
    "profile_from_node",
]
