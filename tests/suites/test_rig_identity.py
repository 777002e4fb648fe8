"""A profile's ``match:`` pins the device on a port: the wrong device is a rig error before any case."""

from pathlib import Path

import pytest

from harness.errors import DeviceError
from harness.profiles import load_profile
from harness.suites.run.profile_rig import open_rig

ROOT = Path(__file__).resolve().parents[2]


def _profile(tmp_path: Path, serial: str) -> Path:
    text = (ROOT / "device_profiles" / "emulated-midi-5.yaml").read_text()
    old = "controller: {driver: reference-controller, port: emulator}"
    assert old in text
    pinned = f'controller: {{driver: reference-controller, port: emulator, match: {{serial: "{serial}"}}}}'
    text = text.replace(old, pinned)
    path = tmp_path / "pinned.yaml"
    path.write_text(text)
    return path


def test_the_pinned_device_opens(tmp_path: Path) -> None:
    rig = open_rig(load_profile(_profile(tmp_path, "EMU-CON-0001")), run_dir=tmp_path / "run")
    try:
        assert rig.controller is not None and rig.controller.identity().serial == "EMU-CON-0001"
    finally:
        rig.close()


def test_another_device_on_the_port_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DeviceError, match=r"controller: the device on this port is not the one the profile names "
                                          r"\(serial: profile expects 'PC-7781', device says 'EMU-CON-0001'\)"):
        open_rig(load_profile(_profile(tmp_path, "PC-7781")), run_dir=tmp_path / "run")
