"""The rig a profile asks for: a table's (:mod:`harness.suites.run.rig`) or, for a link profile, the
link controller's and every table's (:mod:`harness.link.rig`).

The one place that knows both kinds: the link's rig is built of tables' rigs, so the table's module
cannot open a link's without importing the link, which imports it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.link.rig import open_link_rig
from harness.profiles.model import Profile
from harness.suites.run.rig import Rig, open_table_rig


def open_rig(
    profile: Profile, *, listen: str = "pty", run_dir: Path | None = None, defects: tuple[str, ...] = (),
    emulator: Any = None,
) -> Rig:
    """Start the emulators the profile asks for, then open every role's driver.

    ``defects`` adds emulator defects to the profile's own (the defect matrix uses it); ``emulator``
    is one already started for a table profile (:func:`harness.suites.run.rig.start_profile_emulator`;
    the rig stops it when closed)."""
    if profile.link is not None:
        return open_link_rig(profile, listen=listen, run_dir=run_dir, defects=defects)
    return open_table_rig(profile, listen=listen, run_dir=run_dir, defects=defects, emulator=emulator)
