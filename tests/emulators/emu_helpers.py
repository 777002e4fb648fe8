"""Shared helpers for the emulator tests: a profile mapping, an in-process table, a raw frame client."""

from __future__ import annotations

import copy
import os
import select
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from harness.devices.framing import EVT, REQ, Frame, FrameDecoder, encode_frame
from harness.emulators.base import Refusal
from harness.emulators.config import EmulatorConfig
from harness.emulators.table import EmulatedTable

PROFILE: dict[str, Any] = {
    "game": "midibaccarat",
    "rules": {
        "denomination": 5,
        "decks": 8,
        "seats": [{"seat": 1, "combo": ["KS", "9S"]}, {"seat": 2, "combo": ["KH", "9H"]}, {"seat": 3}],
        "meters": {
            "mega": {"rate": "1.25%", "initial": 50000, "reset": 50000, "payout_limit": 250000,
                     "display_capacity": "999999.99"},
            "major": {"rate": "0.5%", "initial": 450, "reset": 450, "payout_limit": 10000,
                      "display_capacity": "99999.99"},
            "minor": {"rate": "0.35%", "initial": 450, "reset": 450, "payout_limit": 10000,
                      "display_capacity": "99999.99"},
        },
    },
    "emulator": {"lockout_latency_us": 0, "deal_pace_us": 0, "seed": 7, "nv_fsync": False},
    # these tests drive the lock-out, meters and payouts with bare Royal 9 wagers; the base-wager
    # rule (r9-requires-base-wager, default true) has its own tests on default_profile()
    "interpretations": {"r9-requires-base-wager": False},
}

#: Player K♠ 9♠, Banker K♠ 9♠: seat 1's personal combination on both hands (mega)
MEGA_1 = ["KS", "KS", "9S", "9S"]
#: a natural for Player with no Royal 9 (P 8+T=8, a ten is no face; B 2+3=5): 4 cards
PLAIN_NATURAL = ["8C", "2D", "TC", "3D"]
#: both two-card totals 0-5 (P 2+3=5, B 4+TD=4), Player draws a 2, Banker draws (4 v 2): 6 cards
SIX_CARDS = ["2C", "4D", "3C", "TD", "2H", "5S"]


def profile(**emulator: Any) -> dict[str, Any]:
    p = copy.deepcopy(PROFILE)
    p["emulator"].update(emulator)
    return p


def default_profile(**emulator: Any) -> dict[str, Any]:
    """The test profile with every interpretation at its default (Royal 9 needs a base wager)."""
    p = profile(**emulator)
    del p["interpretations"]
    return p


class Bench:
    """An in-process table whose events are collected in ``events`` as ``(role, payload)``."""

    def __init__(self, mapping: dict[str, Any] | None = None, nv_path: Path | None = None, **emulator: Any) -> None:
        data = mapping if mapping is not None else profile(**emulator)
        self.cfg = EmulatorConfig.from_mapping(data)
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.table = EmulatedTable(self.cfg, lambda role, ev: self.events.append((role, ev)), nv_path=nv_path)

    def __call__(self, role: str, cmd: str, **args: Any) -> Any:
        return self.table.handle(role, {"cmd": cmd, **args})

    def ok(self, role: str, cmd: str, **args: Any) -> dict[str, Any]:
        answer = self(role, cmd, **args)
        assert isinstance(answer, dict), f"{cmd}: {answer!r}"
        return answer

    def refused(self, role: str, cmd: str, **args: Any) -> Refusal:
        answer = self(role, cmd, **args)
        assert isinstance(answer, Refusal), f"{cmd} answered {answer!r}"
        return answer

    def wager(self, seat: int, kind: str = "royal9", amount: int = 500) -> str | None:
        answer = self.ok("sensors", "wager.place", seat=seat, type=kind, amount=amount)
        assert answer["accepted"] is (answer["reason"] is None)
        return answer["reason"]  # type: ignore[no-any-return]

    def deal(self, cards: list[str]) -> None:
        self.ok("shoe", "test.load", cards=cards)
        self.ok("shoe", "test.deal", pace_us=0)

    def named(self, name: str) -> list[dict[str, Any]]:
        return [ev for _, ev in self.events if ev["event"] == name]

    def meters(self) -> dict[str, Any]:
        return self.ok("controller", "meters.get")

    def wait_for(self, name: str, timeout: float = 2.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.named(name)
            if found:
                return found[-1]
            time.sleep(0.0005)
        raise AssertionError(f"no {name} event within {timeout} s")

    def close(self) -> None:
        self.table.close()


@contextmanager
def bench(**kwargs: Any) -> Iterator[Bench]:
    b = Bench(**kwargs)
    try:
        yield b
    finally:
        b.close()


class RawClient:
    """A minimal frame client for one device line (a pty path or a socket:// address)."""

    def __init__(self, address: str) -> None:
        if address.startswith("socket://"):
            host, port = address[len("socket://"):].rsplit(":", 1)
            self.sock: socket.socket | None = socket.create_connection((host, int(port)), timeout=5)
            self.fd = self.sock.fileno()
        else:
            self.sock = None
            self.fd = os.open(address, os.O_RDWR | os.O_NOCTTY)
        self.decoder = FrameDecoder()
        self.seq = 0
        self.events: list[Frame] = []
        self.stamps: list[int] = []
        self.other: list[Any] = []

    def send_raw(self, data: bytes) -> None:
        os.write(self.fd, data)

    def pump(self, timeout: float) -> list[Any]:
        got: list[Any] = []
        if select.select([self.fd], [], [], max(timeout, 0))[0]:
            data = os.read(self.fd, 65536)
            now = time.perf_counter_ns()
            for item in self.decoder.feed(data):
                if isinstance(item, Frame) and item.type == EVT:
                    self.events.append(item)
                    self.stamps.append(now)
                else:
                    got.append(item)
        return got

    def request(self, cmd: str, timeout: float = 3.0, **args: Any) -> Frame:
        self.seq += 1
        os.write(self.fd, encode_frame(REQ, self.seq, {"cmd": cmd, **args}))
        return self.reply(self.seq, timeout)

    def reply(self, seq: int, timeout: float = 3.0) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for item in self.pump(deadline - time.monotonic()):
                if getattr(item, "seq", None) == seq:
                    return item
                self.other.append(item)
        raise TimeoutError(f"no answer to SEQ {seq} within {timeout} s")

    def event(self, name: str, timeout: float = 3.0, **match: Any) -> Frame:
        """The first unconsumed event ``name`` whose fields include ``match`` (earlier ones stay)."""
        deadline = time.monotonic() + timeout
        while True:
            for ev in self.events:
                if ev.payload.get("event") == name and all(ev.payload.get(k) == v for k, v in match.items()):
                    self.events.remove(ev)
                    return ev
            if time.monotonic() >= deadline:
                raise TimeoutError(f"no {name} event within {timeout} s")
            self.pump(min(0.05, deadline - time.monotonic()))

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        else:
            os.close(self.fd)
