"""Emulated devices: a dealing shoe, bet sensors, a progressive controller, an SCPI counter and an
SCPI power supply, as state machines that behave as the regulations require (or, with a named
defect from :mod:`harness.emulators.defects`, deviate in exactly one way).

* :class:`~harness.emulators.table.EmulatedTable`: the devices in-process (fast unit tests);
* :mod:`harness.emulators.server`: the same table served on ptys or loopback TCP, one process;
* :func:`~harness.emulators.process.start_emulator`: start that process from the host side.
"""

from harness.selfcheck.mutation.hook import install_from_environment

install_from_environment()  # a mutant or a line trace, in `python -m harness.emulators` only (mutation score)

from harness.emulators.config import EmulatorConfig  # noqa: E402
from harness.emulators.process import EmulatorProcess, start_emulator  # noqa: E402

__all__ = ["EmulatorConfig", "EmulatorProcess", "start_emulator"]
