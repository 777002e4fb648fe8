"""End to end: the emulator as a separate process, real frames over a pty and over TCP, and the
SCPI instruments through pyvisa-py (``@py``, explicit ``TCPIP::127.0.0.1::PORT::SOCKET``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import pyvisa
from emu_helpers import MEGA_1, RawClient, profile

from harness.devices.framing import NAK, REQ, RSP, encode_frame
from harness.emulators.process import EmulatorProcess, start_emulator

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(params=["pty", "tcp"])
def emulator(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EmulatorProcess]:
    proc = start_emulator(profile(lockout_latency_us=300, deal_pace_us=2000), request.param, tmp_path / "run",
                          timeout=20)
    try:
        yield proc
    finally:
        proc.stop()


def _instrument(rm: pyvisa.ResourceManager, resource: str) -> pyvisa.resources.MessageBasedResource:
    inst = rm.open_resource(resource, read_termination="\n", write_termination="\n", timeout=3000)
    assert isinstance(inst, pyvisa.resources.MessageBasedResource)
    return inst


def test_full_round_over_real_frames(emulator: EmulatorProcess) -> None:
    shoe, sensors, ctrl = (RawClient(emulator.address(r)) for r in ("shoe", "sensors", "controller"))
    try:
        assert ctrl.request("hello", version=2).payload == {"ok": True, "protocol": 2, "role": "controller"}
        assert ctrl.request("round.open").payload == {"ok": True, "round": 1}
        assert ctrl.event("lockout").payload["locked"] is False
        for seat in (1, 2):
            assert sensors.request("wager.place", seat=seat, type="royal9", amount=500).payload["accepted"]
        assert shoe.request("test.load", cards=MEGA_1).type == RSP
        assert shoe.request("test.deal", pace_us=2000).payload["dealing"] == 4
        card = shoe.event("card")
        lock = ctrl.event("lockout", locked=True)
        assert card.payload == {"event": "card", "card": "KS", "n": 1} and lock.payload["cause"] == "card"
        assert ctrl.event("round_end", timeout=5).payload == {"event": "round_end", "round": 1}
        meters = ctrl.request("meters.get").payload
        assert meters["meters"]["mega"] == 5_000_012 and meters["pending"][0]["meter"] == "mega"
        last = shoe.event("card", n=4)
        assert (card.seq, last.seq) == (1, 4)  # events carry the device's own SEQ
        nak = ctrl.request("round.open")
        assert nak.type == NAK and nak.payload["code"] == "REFUSED"
        unknown = sensors.request("no.such")
        assert unknown.type == NAK and unknown.payload["code"] == "UNKNOWN_CMD"
        # a corrupted frame is answered NAK BAD_CRC and the line resynchronises
        bad = bytearray(encode_frame(REQ, 77, {"cmd": "ping"}))
        bad[-1] ^= 0xFF
        sensors.send_raw(b"\x00garbage" + bytes(bad))
        assert sensors.request("ping").payload == {"ok": True}
        assert any(getattr(x, "code", None) == "BAD_CRC" or getattr(x, "type", None) == NAK
                   for x in sensors.other)
    finally:
        for c in (shoe, sensors, ctrl):
            c.close()


def test_counter_and_power_supply_through_pyvisa(emulator: EmulatorProcess) -> None:
    rm = pyvisa.ResourceManager("@py")
    shoe, ctrl = RawClient(emulator.address("shoe")), RawClient(emulator.address("controller"))
    counter = _instrument(rm, emulator.address("counter"))
    power = _instrument(rm, emulator.address("power"))
    try:
        assert counter.query("*IDN?").startswith("tablecert,EMU-COUNTER-1")
        counter.write("SYST:TIM 0.2")
        assert counter.query("MEAS:TINT? (@1),(@2)") == "9.91E+37"  # no card within the timeout
        for line in ("CONF:TINT (@1),(@2)", "INP1:LEV 1.5", "INP2:LEV 1.5", "INIT"):
            counter.write(line)
        ctrl.request("round.open")
        RawClient.request(RawClient(emulator.address("sensors")), "wager.place", seat=1, type="royal9", amount=500)
        shoe.request("test.load", cards=["8C", "2D", "TC", "3D"])
        shoe.request("test.deal", pace_us=1000)
        ctrl.event("round_end", timeout=5)
        interval = float(counter.query("FETC?"))
        assert 300e-6 <= interval < 0.1
        before = ctrl.request("meters.get").payload
        trigger_path = ctrl.request("test.state").payload["nv_path"]
        assert Path(trigger_path).exists()
        assert power.query("OUTP?") == "1"
        power.write("OUTP OFF")
        assert power.query("OUTP?") == "0"
        ctrl.seq += 1
        ctrl.send_raw(encode_frame(REQ, ctrl.seq, {"cmd": "ping"}))
        with pytest.raises(TimeoutError):
            ctrl.reply(ctrl.seq, timeout=0.3)
        power.write("OUTP ON")
        back = ctrl.event("lockout", cause="power")
        assert back.payload["locked"] is True
        assert back.seq == 1  # the event numbering starts at 1 again after power-up (docs/protocol.md 4)
        assert ctrl.request("meters.get").payload == before
        counter.write("INIT")
        assert counter.query("FETC?") == "9.91E+37"  # armed, but no card came before the timeout
        power.write("VOLT 11.5")
        assert power.query("VOLT?") == "11.500"
        power.write("BOGUS")
        assert power.query("SYST:ERR?").startswith("-113")
    finally:
        counter.close()
        power.close()
        rm.close()
        shoe.close()
        ctrl.close()


def test_power_cycle_keeps_mystery_trigger_across_processes(tmp_path: Path) -> None:
    data = profile(lockout_latency_us=0)
    data["rules"]["mystery"] = {"configuration": 2}
    data["emulator"]["nv_dir"] = str(tmp_path / "nv")
    first = start_emulator(data, "tcp", tmp_path / "a", timeout=20)
    try:
        ctrl = RawClient(first.address("controller"))
        state = ctrl.request("test.state").payload
        meters = ctrl.request("meters.get").payload
        ctrl.close()
    finally:
        first.stop()
    second = start_emulator(data, "tcp", tmp_path / "b", timeout=20)
    try:
        ctrl = RawClient(second.address("controller"))
        again = ctrl.request("test.state").payload
        assert again["mystery"] == state["mystery"] and again["nv_path"] == state["nv_path"]
        assert ctrl.request("meters.get").payload == meters
        ctrl.close()
    finally:
        second.stop()


def test_sigterm_stops_cleanly_and_removes_symlinks(tmp_path: Path) -> None:
    proc = start_emulator(profile(), "pty", tmp_path / "run", timeout=20)
    try:
        link = Path(proc.address("shoe"))
        assert link.is_symlink() and os.path.exists(os.readlink(link))
    finally:
        status = proc.stop()
    assert status == 0
    assert not link.exists() and not link.is_symlink()


def test_a_run_folder_made_for_the_process_goes_with_it_and_a_given_one_stays(tmp_path: Path) -> None:
    made = start_emulator(profile(), "tcp", timeout=20)
    given = start_emulator(profile(), "tcp", tmp_path / "run", timeout=20)
    assert made.owns_run_dir and (made.run_dir / "addresses.json").is_file()
    assert not given.owns_run_dir
    made.stop()
    given.stop()
    assert not made.run_dir.exists()
    assert (given.run_dir / "addresses.json").is_file()


def test_tablecert_emulate_command(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "harness", "emulate", "--profile", "device_profiles/emulated-midi-5.yaml",
           "--listen", "tcp", "--run-dir", str(tmp_path / "run"), "--defect", "lockout-late"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while not (tmp_path / "run" / "addresses.json").exists():
            assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        line = proc.stdout.readline() if proc.stdout else b""
        assert b'"controller": "socket://127.0.0.1:' in line
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(5)
    assert proc.returncode == 0
    bad = subprocess.run([*cmd[:-1], "no-such-defect"], check=False, capture_output=True, timeout=30)
    assert bad.returncode == 2 and b"Traceback" not in bad.stderr and b"no-such-defect" in bad.stderr
