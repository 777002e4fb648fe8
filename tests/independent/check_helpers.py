"""Scenario helpers shared by check_faults4.py to check_faults19.py.

The host machinery (the frames, a device line with deadlines, SCPI, starting and stopping the table by
its own pid) is check_faults2.py's; these are the small acts several scenarios begin with.  The scripts
that import this module put their own directory on `sys.path` first.
"""

from __future__ import annotations

import struct
import time
from typing import Any

from check_faults2 import NO_HIT, Line, Msg, Table, crc16, payouts, scpi

MINOR_SEAT1 = ["KS", "2C", "9S", "3D"]  # player KS 9S (seat 1's combination), natural 9 against 5
MAJOR_SEAT2 = ["2C", "KH", "3D", "9H"]  # banker KH 9H (seat 2's combination), natural 9 against 5
ENVY_SEAT1 = ["KS", "KS", "9S", "9S"]  # seat 1's KS 9S on both hands: a tie of two naturals 9
BANKER_ROYAL9 = ["2C", "JC", "3D", "9S"]  # banker J+9 (a Royal 9, not suited), natural 9 against 5


def major_hit(t: Table) -> list[Msg]:
    """Seat 2 wins the major (45000 + 2.5 cents), paid by an attendant: the round's events."""
    t.open()
    t.r9(2)
    return t.deal(MAJOR_SEAT2)


def wait_power_lockout(t: Table, mark: Any) -> Msg | None:
    return t.ctl.wait(mark, lambda e: e["event"] == "lockout" and e.get("cause") == "power", 3.0)


def reboot(t: Table) -> None:
    """The controller's `reboot` line fault (section 7), waited for until its power lock-out."""
    mark = t.ctl.mark()
    t.ctl.ok("test.fault", kind="reboot", after_ms=0, duration_ms=200)
    wait_power_lockout(t, mark)


def first_card_ms(t: Table, timeout_s: int = 2, cards: list[str] | None = None) -> tuple[str | None, float]:
    """Arm the counter, deal the round's first card (of `cards`, NO_HIT by default): the counter's reading, in ms."""
    counter = t.ports["counter"]
    scpi(counter, "CONF:TINT (@1),(@2)", f"SYST:TIM {timeout_s}", "INIT", "*OPC?")
    t.shoe.ok("test.load", cards=cards or NO_HIT)
    t.shoe.ok("test.deal", count=1, pace_us=0)
    reading = scpi(counter, "FETC?")
    return reading, float(reading or "9.91E+37") * 1000  # a counter reading, seconds as SCPI text


def button_void(t: Table) -> None:
    """One $5 Royal 9 wager at seat 1 made final by the lock-out button, the round then voided."""
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    t.ctl.ok("round.settle")


def one_dollar(t: Table) -> None:
    """The $1 Royal 9 paytable: the denomination written before the first round."""
    t.ctl.ok("config.set", denomination=100)


def r9_one_dollar(t: Table, seat: int) -> None:
    """A base wager of $10 and the $1 Royal 9 wager at a seat of the $1 table."""
    assert t.place(seat, "player", 1000)["accepted"]
    assert t.place(seat, "royal9", 100)["accepted"]


def wager_list(t: Table) -> list[tuple[int, str, int]]:
    """`wager.list` as (seat, type, amount)."""
    return [(w["seat"], w["type"], w["amount"]) for w in t.sens.ok("wager.list")["wagers"]]


def meter(t: Table, name: str) -> tuple[Any, Any]:
    """A meter's amount and residual, as `meters.get` answers them."""
    m = t.meters()
    return m["meters"][name], m["residual"][name]


def raw_frame(seq: int, body: bytes, ftype: int = 0x01, ver: int = 1) -> bytes:
    """A frame of this TYPE and VER with the payload as given (docs/protocol.md section 2), CRC good."""
    head = struct.pack(">BBHH", ver, ftype, seq, len(body))
    return b"\xa5\x5a" + head + body + struct.pack(">H", crc16(head + body))


def answers(t: Table, seqs: tuple[int, ...], deadline_s: float = 0.5,
            line: Line | None = None) -> dict[int, tuple[str, Msg]]:
    """Wait up to the deadline for the answers to these SEQs on a line (the controller's by default); those that
    came."""
    line = line or t.ctl
    end = time.monotonic() + deadline_s
    with line.cv:
        while not all(s in line.answers for s in seqs):
            left = end - time.monotonic()
            if left <= 0:
                break
            line.cv.wait(left)
        return {s: line.answers.pop(s) for s in seqs if s in line.answers}


def player_round(t: Table, cards: list[str], amount: int = 1000, kind: str = "player") -> list[tuple[Any, Any]]:
    """A round opened, a wager of ``kind`` (a Player wager unless said) and ``amount`` at seat 1, ``cards``
    dealt: its payouts (category, returned)."""
    t.open()
    t.place(1, kind, amount)
    return [(p["category"], p["returned"]) for p in payouts(t.deal(cards), 1, kind)]
