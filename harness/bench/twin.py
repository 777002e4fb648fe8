"""The bench twin of an emulated profile: the same table, certified the way a lab bench certifies it.

The twin keeps the profile's Rules Submission, capabilities, timing and interpretations, and
changes only how acts are carried out: the emulator has no test channel (it refuses ``test.*`` and
the remote act commands like a real device), the shoe is stacked and dealt, chips are placed and
the reset key turned by a scripted operator at the emulator's physical side, the lock-out button
and the controller-sensors cable are worked by relays of the emulated switch unit, the power by the
bench supply; device faults cannot be injected (``fault: none``) and the built-in shuffler's pack
orders cannot be read out (``shuffler-readout: none``: a lab observes a marked pack by hand and gives
the battery the file).  Same suites, another profile: the verdicts must be the same, but for the
cases needing those two acts, NOT APPLICABLE on the twin with that reason
(tests/bench/test_twin_verdicts.py).

``tablecert run --bench-twin`` (pytest ``--tc-bench-twin``) runs a profile's twin; the record keeps
the twin's profile snapshot, so the report says how every act was performed.

``tablecert run --bench-twin --console`` (pytest ``--tc-bench-rehearsal``) is the rehearsal of a lab
bench before its hardware arrives: the scripted operator's hands carry out every act, but a person
answers every prompt (bar a step's bulk rounds) on the bench console or the terminal, so each
instruction, sheet and countdown of the run is seen as the bench will show it.
"""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

import yaml

from harness.errors import InputError
from harness.profiles.load import load_profile_text
from harness.profiles.model import Profile

#: the scripted operator's pace in CI: a person's delays (harness.bench.scripted.HumanPace) / 500
CI_SPEED = Decimal(500)
#: its pace in a step's bulk rounds (the mystery awards' thousands of rounds, the shoe battery's shoes;
#: no act's timing is judged there): a person's delays / 50,000, so the twin's verdicts come in CI time
CI_BULK_SPEED = Decimal(50_000)
LOCKOUT_CHANNEL = "101"
COMM_CHANNEL = "110"


def twin_mapping(profile: Profile, *, speed: Decimal = CI_SPEED, seed: int = 1,
                 misstack_every: int = 0, bulk_speed: Decimal | None = CI_BULK_SPEED,
                 rehearsal: bool = False) -> dict[str, Any]:
    """The twin's profile data (see the module docstring)."""
    if not profile.is_emulated:
        raise InputError(f"{profile.source_path}: a bench twin is made of an emulated profile; "
                         f"{profile.name} names no emulated device")
    if profile.link is not None:
        raise InputError(f"{profile.source_path}: {profile.name} is a link of tables; the link cases drive the "
                         "link over the test channel (docs/linked-progressives.md), there is no bench twin of a link")
    raw: dict[str, Any] = copy.deepcopy({k: v for k, v in profile.raw.items()})
    raw["name"] = f"{profile.name}-bench"
    raw["description"] = (f"{raw.get('description') or profile.name}; bench twin: no test channel, a scripted "
                           "operator, relays and the bench supply perform every act")
    emulator = dict(raw.get("emulator") or {})
    emulator["test_channel"] = False
    raw["emulator"] = emulator
    operator: dict[str, Any] = {"name": "scripted operator", "console": False, "terminal": False,
                                "scripted": {"speed": str(speed), "seed": seed, "misstack_every": misstack_every}}
    if bulk_speed is not None:
        operator["scripted"]["bulk_speed"] = str(bulk_speed)
    if rehearsal:  # the hands are scripted, the answers a person's (see the module docstring)
        operator.update(name="", console=True, terminal=True)
        operator["scripted"]["answers"] = "bulk"
    raw["bench"] = {
        "performers": {
            "load": "operator", "deal": "operator", "wager": "operator", "remove-wager": "operator",
            "open-round": "operator", "no-more-bets": "operator", "reset-key": "operator",
            "lockout-button": {"actuator": "relay", "channel": LOCKOUT_CHANNEL, "hold_ms": "20"},
            "comm": {"actuator": "relay", "channel": COMM_CHANNEL},
            "power": "supply" if "power" in profile.devices else "none",
            "fault": "none",
            "shuffler-readout": "none",
        },
        "actuators": {"relay": {"driver": "scpi-switch", "resource": "emulator"}},
        "operator": operator,
    }
    return raw


def bench_twin(profile: Profile, **options: Any) -> Profile:
    """The twin as a validated profile (its ``source_path`` stays the original file's)."""
    text = yaml.safe_dump(twin_mapping(profile, **options), sort_keys=False, allow_unicode=True)
    return load_profile_text(text, profile.source_path)
