"""End to end through pyvisa-py (``@py``, ``TCPIP::127.0.0.1::PORT::SOCKET``) to the emulated SCPI
counter and power supply, with the rig a profile describes (``open_rig``: the emulator process,
the reference drivers for the table, ``scpi-counter`` and ``scpi-power`` for the instruments).

Already covered elsewhere and not repeated: ``*IDN?``, the counter's "no interval" answer, output
off/on with the power lock-out event (tests/devices/test_emulator_end_to_end.py), raw SCPI queries
and the error queue (tests/emulators/test_emu_process.py).  Added here: the counter's card-out ->
lock-out interval, armed before the deal and fetched after it through the driver, against the
controller's own lock timing; ``MEAS:TINT?`` after the round reading nothing of it; and a power
cycle through the supply driver between rounds: meters kept in non-volatile storage (461a.12),
wagering locked until the next round opens, the counter measuring on.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from harness.devices.drivers.reference import ReferenceController, ReferenceSensors, ReferenceShoe
from harness.devices.drivers.scpi import ScpiCounter, ScpiPowerSupply
from harness.errors import DeviceError
from harness.profiles import load_profile
from harness.suites.run.profile_rig import open_rig
from harness.suites.run.rig import Rig

pytestmark = pytest.mark.timeout(90)

ROOT = Path(__file__).resolve().parents[2]
PROFILE = ROOT / "device_profiles" / "emulated-midi-5.yaml"
#: a natural for Player with no Royal 9 (P 8+T=8, B 2+3=5): a four-card round, no hit
PLAIN = ["8C", "2D", "TC", "3D"]
WAIT_S = 5.0
NS = Decimal("1E-9")


def _profile_with(tmp_path: Path, deal_pace_ms: str) -> Path:
    text = PROFILE.read_text(encoding="utf-8").replace('deal_pace_ms: "15"', f'deal_pace_ms: "{deal_pace_ms}"')
    assert f'deal_pace_ms: "{deal_pace_ms}"' in text
    path = tmp_path / f"midi-5-pace-{deal_pace_ms}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(params=["pty", "tcp"])
def rig(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Rig]:
    opened = open_rig(load_profile(PROFILE), listen=request.param, run_dir=tmp_path / "run")
    try:
        yield opened
    finally:
        opened.close()


def _parts(rig: Rig) -> tuple[ReferenceShoe, ReferenceSensors, ReferenceController, ScpiCounter, ScpiPowerSupply]:
    assert isinstance(rig.shoe, ReferenceShoe) and isinstance(rig.sensors, ReferenceSensors)
    assert isinstance(rig.controller, ReferenceController)
    assert isinstance(rig.counter, ScpiCounter) and isinstance(rig.power, ScpiPowerSupply)
    assert rig.counter.resource_name.startswith("TCPIP::127.0.0.1::") and rig.counter.resource_name.endswith("::SOCKET")
    return rig.shoe, rig.sensors, rig.controller, rig.counter, rig.power


def _play(shoe: ReferenceShoe, sensors: ReferenceSensors, ctl: ReferenceController, seats: range,
          counter: ScpiCounter | None = None) -> None:
    ctl.link.clear_events()
    ctl.open_round()
    for seat in seats:
        for kind in ("player", "royal9"):
            res = sensors.place(seat, kind, 500)
            assert res.accepted, (seat, kind, res.reason)
    shoe.load(PLAIN)
    if counter is not None:
        counter.arm()  # before the first card
        counter.idn()  # answered after the arm: the counter has taken it before the deal starts
    shoe.deal()
    ctl.wait_event("round_end", WAIT_S)


def test_counter_interval_is_the_controllers_card_to_lockout_time(rig: Rig) -> None:
    shoe, sensors, ctl, counter, _power = _parts(rig)
    for _ in range(3):
        _play(shoe, sensors, ctl, range(1, 8), counter)
        lock = ctl.test_state()["last_card_lock"]
        interval = counter.fetch_interval_s()
        assert isinstance(interval, Decimal)  # exact, never a float
        assert interval == (min(lock["lock_ns"], lock["due_ns"]) - lock["card_ns"]) * NS  # effective lock
        assert interval >= Decimal("0.3") / 1000  # the profile's emulator.lockout_latency_ms


def test_power_cycle_keeps_meters_and_clears_the_counter(rig: Rig) -> None:
    shoe, sensors, ctl, counter, power = _parts(rig)
    power.set_voltage(Decimal("11.5"))
    assert power.voltage() == Decimal("11.500")
    _play(shoe, sensors, ctl, range(1, 4), counter)
    meters = ctl.meters()
    assert counter.fetch_interval_s() is not None
    power.output(False)
    assert power.output_state() is False
    with pytest.raises(DeviceError):
        ctl.request("meters.get", timeout_s=0.3)  # unpowered: no answer at all
    power.output(True)
    ctl.wait_event("lockout", WAIT_S, lambda e: e.payload.get("cause") == "power")
    ctl.ping()
    kept = ctl.meters()
    assert (kept.meters, kept.residual, kept.cumulative_paid) == (meters.meters, meters.residual,
                                                                   meters.cumulative_paid)
    assert sensors.place(1, "player", 500).reason == "locked-out"
    _play(shoe, sensors, ctl, range(1, 4), counter)  # the table plays on after the cycle
    assert counter.fetch_interval_s() is not None  # the counter is the bench's, not the table's
    grown = ctl.meters()
    three_wagers = 3 * 500 * Decimal("1.25") / 100
    assert (grown.meters["mega"] + grown.residual["mega"]) - (kept.meters["mega"] + kept.residual["mega"]) \
        == three_wagers


def test_counter_starts_at_the_card_that_caused_the_lockout(tmp_path: Path) -> None:
    rig = open_rig(load_profile(_profile_with(tmp_path, "0")), listen="pty", run_dir=tmp_path / "run")
    try:
        shoe, sensors, ctl, counter, _power = _parts(rig)
        _play(shoe, sensors, ctl, range(1, 2), counter)
        lock = ctl.test_state()["last_card_lock"]
        interval = counter.fetch_interval_s()
        assert interval is not None
        # lock_due_ns is the first card's time plus the injected 0.3 ms
        assert interval >= Decimal("0.0003"), (interval, lock)
    finally:
        rig.close()


def test_measure_after_the_round_never_reads_the_round(rig: Rig) -> None:
    """MEASure configures from defaults (auto level) and starts a new measurement: asked after the
    round, it times out with nothing (9.91E+37) however well the round's interval was measured."""
    shoe, sensors, ctl, counter, _power = _parts(rig)
    _play(shoe, sensors, ctl, range(1, 2), counter)
    assert counter.fetch_interval_s() is not None
    counter.write("SYST:TIM 0.2")
    assert counter.query("MEAS:TINT? (@1),(@2)") == "9.91E+37"
