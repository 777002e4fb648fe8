"""Which emulator code is mutated, and what is left out and why.

The mutation score measures the suites against *device* behaviour: what a shoe, a set of bet
sensors or a progressive controller does that a certification run can see (settlement, meters,
lock-out, sensors, shoe, configuration, non-volatile storage, the devices' command dispatch).
Left out, each with its reason:

* the shared oracle (``harness/games``, ``harness/progressive``, ``harness/math``): the harness
  checks the device against it, so a bent oracle bends both sides at once;
* ``defects.py``: runs only with a named defect on, never in a clean emulator (the kill matrix
  proves those); likewise every branch guarded by a defect name (:mod:`harness.selfcheck.mutation.operators`);
* ``scpi.py``: the bench instruments (counter, power supply, relay unit), not the device under test;
  a lab qualifies its instruments by calibration, not by certifying a device with them;
* ``server.py``, ``faults.py``, ``clock.py``, ``process.py``, ``__main__.py``: the emulator's
  transport (pty and socket plumbing, the test channel's injected line faults), its timer engine
  and its launcher: how the emulation is hosted, not what the emulated device decides;
* ``physical.py``: the hands of a person at the table (the bench twin's scripted operator), not
  the device;
* the functions listed in :data:`EXCLUDED_FUNCTIONS`, each with its reason.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

EMULATORS = Path(__file__).resolve().parents[2] / "emulators"

#: the mutated modules, by the short name an id starts with (``controller:212:15:Lt>LtE``)
MODULES = ("controller", "settle", "sensors", "shoe", "config", "table", "nvstore", "base", "shuffler")

#: module -> qualified function (``Class.method``) -> why it is not device behaviour
EXCLUDED_FUNCTIONS: dict[str, dict[str, str]] = {
    "controller": {
        "Controller._test_state": "white-box state for the emulator's own unit tests; no suite reads it",
        "Controller._test_link": "test channel: the emulated cable pull (the cable itself, Controller.cable, "
                                 "is mutated)",
        "Controller._lock_timer_fired": "the timer callback's own bookkeeping of the clock thread's lateness; "
                                        "the lock it takes is Controller._lock (mutated)",
        "Controller.interval_ns": "the emulator's own report of its interval for test.state",
    },
    "shoe": {
        "EmulatedShoe._load": "test channel: stacking the emulated shoe (a technician's hands on a real one)",
        "EmulatedShoe._deal": "test channel: the emulated dealer's pace (a person deals a real shoe)",
        "EmulatedShoe._tick": "test channel: the timer that deals at the emulated dealer's pace",
        "EmulatedShoe._fault": "test channel: injected reader faults",
        "EmulatedShoe.insert": "the physical side: cards put into the shoe by hand",
        "EmulatedShoe.draw": "the physical side: a card pulled by hand",
        "EmulatedShoe.shuffle_loaded": "the physical side: the shuffle button pressed on a loaded pack (the shuffle "
                                       "itself is PackShuffler.positions, mutated)",
        "EmulatedShoe.state": "white-box state for the emulator's own unit tests",
    },
    "config": {
        "program_hash": "identity plumbing: the hash over the emulator's own files (a mutant would have "
                        "to change the files the hash is taken of)",
        "EmulatorConfig.to_mapping": "runs on the host side only (it writes the JSON the emulator reads)",
        "EmulatorConfig.from_profile": "the YAML entry of `tablecert emulate`; a certification run hands "
                                       "the emulator JSON (EmulatorConfig.from_mapping, mutated)",
        "EmulatorConfig.from_typed": "host side only: a certification run builds the emulator's JSON from the "
                                     "loaded profile with it (EmulatorConfig.from_mapping reads it back, "
                                     "mutated)",
        "_us": "host side only (EmulatorConfig.from_typed)",
        "_performers_of": "host side only (EmulatorConfig.to_mapping)",
        "_dollars": "host side only (EmulatorConfig.to_mapping)",
        "_wiring": "the bench's relay wiring of the emulated switch unit (an instrument)",
        "load_config": "the launcher's file reading (YAML or JSON), before the device exists",
    },
    "table": {
        "EmulatedTable.close": "stops the emulator's timer thread at exit",
        "refusal_or_result": "a helper of the emulator's own unit tests",
    },
    "nvstore": {
        "NVStore.erase": "a factory reset used by the emulator's unit tests only",
    },
    "shuffler": {},
    "settle": {},
    "sensors": {},
    "base": {},
}


def excluded(module: str) -> Callable[[str], bool]:
    """The predicate :mod:`harness.selfcheck.mutation.operators` asks per qualified function name."""
    names = EXCLUDED_FUNCTIONS.get(module, {})
    return lambda qualname: qualname in names


def source_path(module: str) -> Path:
    return EMULATORS / f"{module}.py"


def import_name(module: str) -> str:
    return f"harness.emulators.{module}"
