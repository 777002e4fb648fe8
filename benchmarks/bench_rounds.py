"""Full Royal 9 rounds per second: in-process and over a pty, against the raw pyserial floor.

A round is what a certification case does for every round: open the round, seven seats wager
(each a Banker wager and the Royal 9 wager it carries, 629a Royal 9 (b)), load and deal the cards,
wait for the settlement (``round_end``), turn the reset key for any meter hit, read the meters.

* In-process: the emulator's :class:`~harness.emulators.table.EmulatedTable` driven by direct calls
  (target >= 500 rounds/s).
* Over a pty: the emulator as a separate process, the rig from the profile (``open_rig``) with the
  reference drivers, every request a framed round trip (target >= 100 rounds/s).  Run twice: as
  the profile ships (non-volatile storage written atomically, without fsync: the default) and with
  ``nv_fsync`` on, which adds the cost of forcing every storage write to disk.
* Floor, same run: the same round, exchange for exchange (placements sent back to back, as the
  drivers send them), with bare pyserial and the framer on the emulator's ptys and nothing else:
  no reader thread, no transcript, no typed results.  The overhead ratio is the harness's round
  time over the bare round time (target <= 2x).  Shown too: ``ping`` through the driver against
  a bare ``ping``, and the old sequential floor (requests x one bare round trip), which leaves out
  the deal, the events and the settlement the device does in every round.

* The protocol contract check, same rig: its own time per message and per round (measured inside
  the check), and rounds with it against rounds without it in alternating blocks (wall and host CPU
  time, and their ratios).

Run: ``.venv/bin/python benchmarks/bench_rounds.py``  (about 45 s)
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import serial

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.cards import shoe_composition  # noqa: E402
from harness.devices.drivers.reference import (  # noqa: E402
    ReferenceController,
    ReferenceSensors,
    ReferenceShoe,
)
from harness.devices.framing import EVT, REQ, FrameDecoder, encode_frame, next_seq  # noqa: E402
from harness.devices.registry import open_device  # noqa: E402
from harness.devices.roles import Wager  # noqa: E402
from harness.emulators.config import EmulatorConfig  # noqa: E402
from harness.emulators.process import start_emulator  # noqa: E402
from harness.emulators.table import EmulatedTable  # noqa: E402
from harness.errors import DeviceTimeout  # noqa: E402
from harness.games.baccarat import deal_round  # noqa: E402
from harness.profiles import load_profile  # noqa: E402
from harness.suites.run.profile_rig import open_rig  # noqa: E402

PROFILE = ROOT / "device_profiles" / "emulated-midi-5.yaml"
SEATS = range(1, 8)
KINDS = ("banker", "royal9")
STAKE = 500
IN_PROCESS_S = 4.0
PTY_S = 6.0
PINGS = 3000
#: open + 7 seats x 2 wagers + load + deal + meters.get (reset_key only on a hit, counted apart)
REQUESTS_PER_ROUND = 1 + len(SEATS) * len(KINDS) + 1 + 1 + 1


def fast_profile(tmp: Path) -> Path:
    text = PROFILE.read_text(encoding="utf-8").replace('deal_pace_ms: "15"', 'deal_pace_ms: "0"')
    if 'deal_pace_ms: "0"' not in text:
        raise SystemExit(f"{PROFILE}: expected deal_pace_ms \"15\" to replace")
    path = tmp / "bench-midi-5.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def shoes(count: int, seed: int = 1) -> list[list[str]]:
    rng = random.Random(seed)
    deck = [c for c, n in shoe_composition(8).items() for _ in range(n)]
    out = []
    for _ in range(count):
        cards = rng.sample(deck, 6)
        out.append([c.code for c in cards[: deal_round(cards).cards_used]])  # exactly one round
    return out


def in_process(profile_path: Path, cards: list[list[str]]) -> tuple[int, float, int]:
    cfg = EmulatorConfig.from_profile(load_profile(profile_path))
    events: list[tuple[str, dict[str, Any]]] = []
    table = EmulatedTable(cfg, lambda role, ev: events.append((role, ev)))

    def ok(role: str, cmd: str, **args: Any) -> dict[str, Any]:
        answer = table.handle(role, {"cmd": cmd, **args})
        if not isinstance(answer, dict):
            raise SystemExit(f"in-process {cmd}: {answer!r}")
        return answer

    rounds = hits = 0
    try:
        start = time.perf_counter()
        end = start + IN_PROCESS_S
        while time.perf_counter() < end:
            events.clear()
            ok("controller", "round.open")
            for seat in SEATS:
                for kind in KINDS:
                    if not ok("sensors", "wager.place", seat=seat, type=kind, amount=STAKE)["accepted"]:
                        raise SystemExit(f"in-process: seat {seat} {kind} refused")
            ok("shoe", "test.load", cards=cards[rounds % len(cards)])
            ok("shoe", "test.deal", pace_us=0)
            # a round dealt within the lock-out latency settles when its lock-out falls due
            settle_by = time.perf_counter() + 0.5
            while not any(ev["event"] == "round_end" for _, ev in list(events)):
                if time.perf_counter() > settle_by:
                    raise SystemExit("in-process: the round did not settle")
                time.sleep(0.0001)
            for meter in sorted({str(ev["meter"]) for _, ev in events if ev["event"] == "hit" and ev.get("meter")}):
                ok("controller", "reset_key", meter=meter)
                hits += 1
            ok("controller", "meters.get")
            rounds += 1
        return rounds, time.perf_counter() - start, hits
    finally:
        table.close()


def over_pty(shoe: ReferenceShoe, sensors: ReferenceSensors, ctl: ReferenceController,
             cards: list[list[str]], seconds: float = PTY_S) -> tuple[int, float, int]:
    rounds = hits = 0
    start = time.perf_counter()
    end = start + seconds
    while time.perf_counter() < end:
        ctl.open_round()
        # the seven seats' placements go out back to back (place_many), as the runner sends them
        placed = sensors.place_many([Wager(seat, kind, STAKE) for seat in SEATS for kind in KINDS])
        for res in placed:
            if not res.accepted:
                raise SystemExit(f"pty: seat {res.seat} {res.type} refused")
        shoe.load(cards[rounds % len(cards)])
        shoe.deal()
        ctl.wait_event("round_end", 5.0)
        hit = {str(e.payload["meter"]) for e in ctl.events() if e.name == "hit" and e.payload.get("meter")}
        for meter in sorted(hit):
            ctl.reset_key(meter)
            hits += 1
        ctl.meters()
        shoe.events()
        rounds += 1
    return rounds, time.perf_counter() - start, hits


def contract_cost(devices: tuple[ReferenceShoe, ReferenceSensors, ReferenceController],
                  cards: list[list[str]]) -> None:
    """The protocol contract check (every message a driver receives held to protocol.schema.json):
    its own time per message and per round, measured inside the check, and rounds with the check
    against rounds without it on the same rig, in alternating blocks (wall and host CPU time)."""
    links = [d.link for d in devices]
    shipped = [link.checker for link in links]
    spent = [0, 0]  # ns inside the check, messages checked

    def timed(check: Any) -> Any:
        def run(frame_type: int, cmd: str | None, payload: Any) -> Any:
            t0 = time.perf_counter_ns()
            try:
                return check(frame_type, cmd, payload)
            finally:
                spent[0] += time.perf_counter_ns() - t0
                spent[1] += 1
        return run

    for link, check in zip(links, shipped, strict=True):
        link.checker = timed(check)
    n, secs, _ = over_pty(*devices, cards, seconds=3.0)
    print(f"contract check: {spent[1]:,} messages in {n} rounds, {spent[0] / spent[1] / 1000:.1f} us/message, "
          f"{spent[0] / n / 1000:,.0f} us/round = {spent[0] / 1e9 / secs * 100:.1f}% of the round time")
    totals = {"with": [0, 0.0, 0.0], "without": [0, 0.0, 0.0]}  # rounds, wall s, host CPU s
    for block in range(6):
        name = "with" if block % 2 == 0 else "without"
        for link, check in zip(links, shipped, strict=True):
            link.checker = check if name == "with" else None
        cpu = time.process_time()
        n, secs, _ = over_pty(*devices, cards, seconds=1.0)
        totals[name][0] += n
        totals[name][1] += secs
        totals[name][2] += time.process_time() - cpu
    for link, check in zip(links, shipped, strict=True):
        link.checker = check
    (wn, ww, wc), (on, ow, oc) = totals["with"], totals["without"]
    print(f"rounds with the check: {ww / wn * 1e6:,.0f} us/round (host CPU {wc / wn * 1e6:,.0f} us); without: "
          f"{ow / on * 1e6:,.0f} us/round (host CPU {oc / on * 1e6:,.0f} us); ratio with/without "
          f"{ww / wn / (ow / on):.2f}x wall, {wc / wn / (oc / on):.2f}x host CPU (3 alternating 1 s blocks each)")


def driver_pings(dev: ReferenceSensors) -> list[int]:
    out = []
    for _ in range(PINGS):
        t0 = time.perf_counter_ns()  # the caller's view: includes the reader thread's hand-over
        dev.ping()
        out.append(time.perf_counter_ns() - t0)
    return out


def bare_pings(port: str) -> list[int]:
    """``ping`` with pyserial and the framer only: write, then read until one whole frame."""
    out = []
    seq = 0
    with serial.serial_for_url(port, timeout=0.5, exclusive=True) as ser:
        decoder = FrameDecoder()
        for _ in range(PINGS):
            seq = next_seq(seq)
            raw = encode_frame(REQ, seq, {"cmd": "ping"})
            t0 = time.perf_counter_ns()
            ser.write(raw)
            deadline = time.monotonic() + 2.0
            got: list[object] = []
            while not got:
                if time.monotonic() > deadline:
                    raise DeviceTimeout(f"bare ping seq {seq}: no answer within 2 s")
                head = ser.read(8)  # SOF, VER, TYPE, SEQ, LEN
                body = ser.read(int.from_bytes(head[6:8], "big") + 2) if len(head) == 8 else b""
                got = [f for f in decoder.feed(head + body) if getattr(f, "seq", None) == seq]
            out.append(time.perf_counter_ns() - t0)
    return out


class BareLine:
    """One device line with bare pyserial and the framer: no reader thread, no transcript, no
    parsing into role types -- the floor the harness's drivers are compared with."""

    def __init__(self, port: str) -> None:
        self.ser = serial.serial_for_url(port, timeout=0.5, exclusive=True)
        self.decoder = FrameDecoder()
        self.seq = 0
        self.frames: list[Any] = []

    def send(self, cmd: str, **args: Any) -> int:
        self.seq = next_seq(self.seq)
        self.ser.write(encode_frame(REQ, self.seq, {"cmd": cmd, **args}))
        return self.seq

    def _take(self, match: Any) -> Any:
        deadline = time.monotonic() + 2.0
        while True:
            for i, f in enumerate(self.frames):
                if match(f):
                    return self.frames.pop(i)
            if time.monotonic() > deadline:
                raise DeviceTimeout("bare line: no answer within 2 s")
            data = self.ser.read(max(1, self.ser.in_waiting))
            self.frames += [f for f in self.decoder.feed(data) if not isinstance(f, Exception)]

    def answer(self, seq: int) -> dict[str, Any]:
        frame = self._take(lambda f: f.type != EVT and f.seq == seq)
        return dict(frame.payload)

    def call(self, cmd: str, **args: Any) -> dict[str, Any]:
        return self.answer(self.send(cmd, **args))

    def event(self, name: str) -> dict[str, Any]:
        return dict(self._take(lambda f: f.type == EVT and f.payload.get("event") == name).payload)

    def drain_events(self) -> list[dict[str, Any]]:
        if self.ser.in_waiting:
            self.frames += [f for f in self.decoder.feed(self.ser.read(self.ser.in_waiting))
                            if not isinstance(f, Exception)]
        events = [dict(f.payload) for f in self.frames if f.type == EVT]
        self.frames = [f for f in self.frames if f.type != EVT]
        return events

    def close(self) -> None:
        self.ser.close()


def bare_rounds(addresses: dict[str, Any], cards: list[list[str]]) -> tuple[int, float]:
    """The same round as :func:`over_pty`, exchange for exchange, through :class:`BareLine`."""
    shoe, sensors, ctl = (BareLine(addresses[r]) for r in ("shoe", "sensors", "controller"))
    try:
        for line in (shoe, sensors, ctl):
            line.call("hello", version=1)
        rounds = 0
        start = time.perf_counter()
        end = start + PTY_S
        while time.perf_counter() < end:
            ctl.call("round.open")
            seqs = [sensors.send("wager.place", seat=seat, type=kind, amount=STAKE) for seat in SEATS for kind in KINDS]
            if not all(sensors.answer(q).get("accepted") for q in seqs):
                raise SystemExit("bare: a wager was refused")
            shoe.call("test.load", cards=cards[rounds % len(cards)])
            shoe.call("test.deal")
            ctl.event("round_end")
            for ev in ctl.drain_events():
                if ev.get("event") == "hit" and ev.get("meter"):
                    ctl.call("reset_key", meter=ev["meter"])
            ctl.call("meters.get")
            shoe.drain_events()
            rounds += 1
        return rounds, time.perf_counter() - start
    finally:
        for line in (shoe, sensors, ctl):
            line.close()


def pct(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1000


def main() -> int:
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"Python {sys.version.split()[0]}")
    cards = shoes(997)
    with tempfile.TemporaryDirectory(prefix="tablecert-bench-") as tmp:
        profile_path = fast_profile(Path(tmp))
        n, secs, hits = in_process(profile_path, cards)
        rate_in = n / secs
        print(f"in-process: {n} rounds in {secs:.2f} s = {rate_in:,.0f} rounds/s "
              f"({hits} meter hits reset)  target >= 500: {'MET' if rate_in >= 500 else 'MISSED'}")
        rig = open_rig(load_profile(profile_path), listen="pty", run_dir=Path(tmp) / "run")
        try:
            shoe, sensors, ctl = rig.shoe, rig.sensors, rig.controller
            assert isinstance(shoe, ReferenceShoe) and isinstance(sensors, ReferenceSensors)
            assert isinstance(ctl, ReferenceController)
            over_pty(shoe, sensors, ctl, cards[:20])  # warm-up
            n, secs, hits = over_pty(shoe, sensors, ctl, cards)
            contract_cost((shoe, sensors, ctl), cards)
        finally:
            rig.close()
        rate_pty = n / secs
        round_us = secs / n * 1e6
        print(f"pty, open_rig as profiled (NV without fsync):  {n} rounds in {secs:.2f} s = "
              f"{rate_pty:,.0f} rounds/s = {round_us:,.0f} us/round ({REQUESTS_PER_ROUND} requests/round, "
              f"{hits} meter hits reset)  target >= 100: {'MET' if rate_pty >= 100 else 'MISSED'}")
        bare_emu = start_emulator(profile_path, "pty", Path(tmp) / "run-bare")
        try:
            bare_rounds(bare_emu.addresses, cards[:20])  # warm-up
            bare_n, bare_secs = bare_rounds(bare_emu.addresses, cards)
        finally:
            bare_emu.stop()
        cfg = EmulatorConfig.from_profile(load_profile(profile_path)).with_changes(nv_fsync=True)
        emu = start_emulator(cfg, "pty", Path(tmp) / "run-fsync")
        opened: list[Any] = []
        try:
            for role in ("shoe", "sensors", "controller"):
                opened.append(open_device(role, {"driver": f"reference-{role}", "port": emu.address(role)}))
            shoe, sensors, ctl = opened
            over_pty(shoe, sensors, ctl, cards[:20])
            n, secs, hits = over_pty(shoe, sensors, ctl, cards)
            drv = driver_pings(sensors)
            sensors.close()  # the port is opened exclusively; free it for the bare loop
            bare = bare_pings(emu.address("sensors"))
        finally:
            for dev in opened:
                dev.close()
            emu.stop()
    print(f"pty, NV fsync on every write:                   {n} rounds in {secs:.2f} s = {n / secs:,.0f} rounds/s = "
          f"{secs / n * 1e6:,.0f} us/round ({hits} meter hits reset)")
    d50, b50 = statistics.median(drv) / 1000, statistics.median(bare) / 1000
    print(f"ping round trip, driver (FramedLink): p50 {d50:.1f} us  p99 {pct(drv, 0.99):.1f} us")
    print(f"ping round trip, bare pyserial:       p50 {b50:.1f} us  p99 {pct(bare, 0.99):.1f} us  "
          f"driver/bare ratio {d50 / b50:.2f}x")
    floor_us = REQUESTS_PER_ROUND * b50
    print(f"sequential floor ({REQUESTS_PER_ROUND} bare round trips): {floor_us:,.0f} us "
          f"= {1e6 / floor_us:,.0f} rounds/s; "
          f"measured / sequential floor {round_us / floor_us:.2f}x (the floor has no deal, events or settlement)")
    bare_us = bare_secs / bare_n * 1e6
    ratio = round_us / bare_us
    print(f"bare pyserial round, same exchanges on the same kind of pty: {bare_n} rounds in {bare_secs:.2f} s = "
          f"{bare_n / bare_secs:,.0f} rounds/s = {bare_us:,.0f} us/round")
    print(f"harness round / bare pyserial round: overhead ratio {ratio:.2f}x  target <= 2x: "
          f"{'MET' if ratio <= 2 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
