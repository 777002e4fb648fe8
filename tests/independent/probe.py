"""Show on the wire that a fault is observable: a small host of the reference protocol (section 2-4)
drives the table through one scenario per fault and prints what a correct table and this one answer.

  .venv/bin/python tests/independent/probe.py FAULT      # starts the table clean and with FAULT

Exit 0 when the scenario's observation differs between the clean table and the faulty one.
"""

from __future__ import annotations

import socket
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from indie_table import wire  # noqa: E402
from run_independent import Device  # noqa: E402


class Line:
    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.dec = wire.Decoder()
        self.seq = 0
        self.events: list[tuple[int, dict[str, Any]]] = []

    def _pump(self, deadline: float) -> list[tuple[int, int, dict[str, Any]]]:
        self.sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            data = self.sock.recv(65536)
        except TimeoutError:
            return []
        out = []
        for item in self.dec.feed(data):
            if isinstance(item, wire.FrameError):
                continue
            if item[0] == wire.EVT:
                self.events.append((item[1], item[2]))
            else:
                out.append(item)
        return out

    def req(self, cmd: str, **args: Any) -> dict[str, Any]:
        self.seq += 1
        self.sock.sendall(wire.encode(wire.REQ, self.seq, {"cmd": cmd, **args}))
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            for ftype, seq, payload in self._pump(deadline):
                if seq == self.seq:
                    return dict(payload, nak=ftype == wire.NAK)
        raise TimeoutError(cmd)

    def drain(self, seconds: float) -> list[tuple[int, dict[str, Any]]]:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self._pump(end)
        out, self.events = self.events, []
        return out

    def close(self) -> None:
        self.sock.close()


def _table(dev: Device) -> dict[str, Line]:
    ports = dev.wait_ready()
    PORTS.update(ports)
    return {r: Line(ports[r]) for r in ("shoe", "sensors", "controller")}


def card_256(t: dict[str, Line]) -> object:
    """255 cards in rounds, then a round whose first card is the shoe's 256th: is it locked out?"""
    natural = ["9S", "8H", "KD", "KC"]  # player 9, banker 8: four cards
    banker_draws = ["KS", "KD", "6H", "KC", "2S"]  # player 6 stands, banker 0 draws: five cards
    t["shoe"].req("test.load", cards=banker_draws * 3 + natural * 70)
    for size in [5] * 3 + [4] * 60:  # 15 + 240 = 255 cards
        t["controller"].req("round.open")
        t["shoe"].req("test.deal", count=size, pace_us=0)
    t["controller"].req("round.open")
    t["sensors"].req("wager.place", seat=1, type="player", amount=500)
    t["shoe"].req("test.deal", count=1, pace_us=0)
    n = t["shoe"].req("shoe.status")["cards_dealt"]
    locked = t["controller"].req("lockout.get")["locked"]
    late = t["sensors"].req("wager.place", seat=2, type="player", amount=500)["accepted"]
    return {"cards_dealt": n, "locked": locked, "late_wager_accepted": late}


def wrong_game_type(t: dict[str, Line]) -> object:
    return t["controller"].req("identity")["game_type"]


def event_seq(t: dict[str, Line]) -> object:
    """Reconnect the controller line: does the event SEQ run on?"""
    ctl = t["controller"]
    ctl.req("round.open")
    first = ctl.drain(0.3)
    port = ctl.sock.getpeername()[1]
    ctl.close()
    again = Line(port)
    t["controller"] = again
    again.req("round.settle")
    second = again.drain(0.3)
    return [s for s, _ in first] + [s for s, _ in second]


def _power_cycle(t: dict[str, Line]) -> None:
    with socket.create_connection(("127.0.0.1", PORTS["power"]), timeout=5) as psu:
        psu.sendall(b"OUTP OFF\nOUTP ON\n*OPC?\n")
        psu.recv(16)
    time.sleep(0.2)


def _round(t: dict[str, Line], cards: list[str], wagers: list[tuple[int, str, int]]) -> list[dict[str, Any]]:
    t["shoe"].req("test.load", cards=cards)
    t["controller"].drain(0.05)
    t["controller"].req("round.open")
    for seat, wtype, amount in wagers:
        t["sensors"].req("wager.place", seat=seat, type=wtype, amount=amount)
    t["shoe"].req("test.deal", count=len(cards), pace_us=0)
    return [e for _, e in t["controller"].drain(0.3)]


MINOR_SEAT1 = ["KS", "2H", "9S", "3D"]  # player K-9 of spades (seat 1's combination), banker 5: 4 cards + draws
MINOR_CARDS = [*MINOR_SEAT1, "4C", "5C"]


def pending_power(t: dict[str, Line]) -> object:
    _round(t, MINOR_CARDS, [(1, "player", 500), (1, "royal9", 500)])
    before = t["controller"].req("meters.get")["pending"]
    _power_cycle(t)
    after = t["controller"].req("meters.get")["pending"]
    opened = t["controller"].req("round.open")
    return {"pending_before": len(before), "pending_after": len(after), "round_open_refused": opened["nak"]}


def round_counter(t: dict[str, Line]) -> object:
    for _ in range(3):
        t["controller"].req("round.open")
        t["controller"].req("round.settle")
    _power_cycle(t)
    return t["controller"].req("round.open")["round"]


def lockout_late(t: dict[str, Line]) -> object:
    with socket.create_connection(("127.0.0.1", PORTS["counter"]), timeout=5) as tic:
        out = []
        for _ in range(2):
            t["shoe"].req("test.load", cards=["9S", "8H", "KD", "KC"])
            t["controller"].req("round.open")
            tic.sendall(b"INIT\n")
            time.sleep(0.05)
            t["shoe"].req("test.deal", count=4, pace_us=0)
            tic.sendall(b"FETC?\n")
            out.append(float(tic.recv(64).decode().strip()) < 0.001)  # SCPI text, a time, not money
    return {"within_1ms": out}


def replace_wager(t: dict[str, Line]) -> object:
    events = _round(t, ["9S", "8H", "KD", "KC"], [(1, "player", 500), (1, "player", 1500)])
    return [(e["stake"], e["returned"]) for e in events if e.get("event") == "payout"]


def partial_config(t: dict[str, Line]) -> object:
    ans = t["controller"].req("config.set", commission="4", mystery={"configuration": 1})
    return {"refused": ans["nak"], "commission_after": t["controller"].req("config.get")["commission"]}


def old_paytable(t: dict[str, Line]) -> object:
    t["controller"].req("config.set", denomination=100)
    events = _round(t, ["QH", "2D", "9C", "3S", "4C", "5C"], [(1, "player", 100), (1, "royal9", 100)])
    return [e["amount"] for e in events if e.get("event") == "hit"]


def excess(t: dict[str, Line]) -> object:
    meters = t["controller"].req("meters.get")["meters"]
    t["controller"].req("config.set", meters={"minor": {"payout_limit": meters["minor"] + 1}})
    _round(t, ["9S", "8H", "KD", "KC"], [(s, "player", 500) for s in range(1, 8)]
           + [(s, "royal9", 500) for s in range(1, 8)])
    reading = t["controller"].req("meters.get")
    return {"minor": reading["meters"]["minor"], "diverted": reading["diverted"]["minor"]}


PORTS: dict[str, int] = {}

SCENARIOS: dict[str, Callable[[dict[str, Line]], object]] = {
    "card-256-missed": card_256,
    "wrong-game-type": wrong_game_type,
    "event-seq-restarts-on-reconnect": event_seq,
    "pending-forgotten-at-power-up": pending_power,
    "round-counter-restarts": round_counter,
    "lockout-late-first-round": lockout_late,
    "replace-wager-settles-first": replace_wager,
    "config-partial-apply": partial_config,
    "denomination-old-paytable": old_paytable,
    "excess-dropped": excess,
}


def observe(fault: str | None, scenario: Callable[[dict[str, Line]], object]) -> object:
    with tempfile.TemporaryDirectory(prefix="indie-probe-") as tmp:
        dev = Device(Path(tmp), [fault] if fault else [])
        try:
            lines = _table(dev)
            try:
                return scenario(lines)
            finally:
                for line in lines.values():
                    line.close()
        finally:
            dev.stop()


def main() -> int:
    fault = sys.argv[1]
    scenario = SCENARIOS[fault]
    clean, faulty = observe(None, scenario), observe(fault, scenario)
    print(f"{fault}: clean {clean!r}  faulty {faulty!r}")
    return 0 if clean != faulty else 1


if __name__ == "__main__":
    sys.exit(main())
