"""Show each fault of the seventeenth set (indie_table/faults.py FAULTS_SET17) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults17.py [FAULT ...]

As check_faults16.py: the host machinery (the frames, a device line with deadlines, SCPI, starting
and stopping the table by its own pid) comes from check_faults2.py, the acts several scenarios share
from check_helpers.py.  For every fault the independent table is started twice on free 127.0.0.1
ports with a fresh state directory, once clean and once with `--fault NAME`, and one small scenario
speaks the reference protocol (docs/protocol.md sections 2-8, and section 9 for the bench supply and
the time-interval counter) to it.  Every scenario starts on the $5 table; one writes the
denomination 100 on the way (the $5 table made a $1 table).  Four scenarios open a second
connection to a device, as a host that reconnects does, and two read the frames of a line in the
order they come.  One line per fault: `shows` when the faulty table gives the faulty answer,
`clean ok` when the clean table does not.  Exit status 0 when every fault shows and every clean run
is ok.
"""

from __future__ import annotations

import socket
import struct
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_faults2 import NO_HIT, TIE, Check, Line, Msg, Table, check_all, frame, hits, scpi, take_frames  # noqa: E402
from check_faults16 import reconnect  # noqa: E402
from check_helpers import (  # noqa: E402
    BANKER_ROYAL9,
    answers,
    button_void,
    first_card_ms,
    major_hit,
    meter,
    player_round,
    r9_one_dollar,
    raw_frame,
    wager_list,
)
from indie_table.faults import FAULTS_SET17  # noqa: E402

Frame = tuple[int, int, int, Msg]  # VER, TYPE, SEQ, payload


def read_frames(sock: socket.socket, deadline_s: float) -> list[Frame]:
    """Every frame with a good CRC that comes on a raw line within the deadline, in the order it came."""
    end = time.monotonic() + deadline_s
    buf = b""
    out: list[Frame] = []
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return out
        sock.settimeout(left)
        try:
            data = sock.recv(65536)
        except (TimeoutError, OSError):
            return out
        if not data:
            return out
        frames, buf = take_frames(buf + data)
        out += frames


def raw_line(t: Table, name: str, role: str) -> socket.socket:
    """Close the host's line to a device and open a raw one in its place, greeted with hello."""
    getattr(t, name).close()
    sock = socket.create_connection(("127.0.0.1", t.ports[role]), timeout=2)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.sendall(frame(1, {"cmd": "hello", "version": 1}))
    read_frames(sock, 0.2)
    return sock


def device_reboot(t: Table, line: Line, duration_ms: int = 200) -> None:
    """A device's `reboot` line fault (section 7), waited for until the device answers again."""
    line.ok("test.fault", kind="reboot", after_ms=0, duration_ms=duration_ms)
    time.sleep(duration_ms / 1000 + 0.1)
    end = time.monotonic() + 2.0
    while time.monotonic() < end:
        if line.req("ping", deadline_s=0.2)[0] == "rsp":
            return


def full_layout(t: Table) -> int:
    """A Player, a Banker, a Tie and a $5 Royal 9 wager at each of the seven seats; the number accepted."""
    placed = 0
    for seat in range(1, 8):
        for kind, amount in (("player", 1000), ("banker", 1000), ("tie", 1000), ("royal9", 500)):
            placed += bool(t.place(seat, kind, amount)["accepted"])
    return placed


# ---------------------------------------------------------------- shoe and cards
def c_card_line(t: Table) -> tuple[bool, str]:
    device_reboot(t, t.shoe)
    t.open()
    t.place(1, "player", 1000)
    mark = t.ctl.mark()
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=1, pace_us=0)
    lock = t.ctl.wait(mark, lambda e: e["event"] == "lockout" and e["locked"], 0.3)
    ans = t.place(2, "player", 1000)
    return lock is None or ans["accepted"], f"the shoe's reboot, a round open, its first card: controller lockout " \
        f"event {lock}; a Player wager at seat 2 after it: {ans}"


def c_error_nak(t: Table) -> tuple[bool, str]:
    mark = t.shoe.mark()
    t.shoe.ok("test.fault", kind="error", code="E7", text="card jam")
    ev = t.shoe.wait(mark, lambda e: e["event"] == "error", 0.3)
    nak = answers(t, (0,), 0.2, line=t.shoe)
    return ev is None or bool(nak), f"test.fault error on the shoe: error event {ev}; frames with SEQ 0 {nak}"


def c_instant_deal(t: Table) -> tuple[bool, str]:
    sock = raw_line(t, "shoe", "shoe")
    try:
        sock.sendall(frame(2, {"cmd": "test.load", "cards": ["2C", "3D", "4H"]}))
        read_frames(sock, 0.2)
        sock.sendall(frame(3, {"cmd": "test.deal", "count": 3, "pace_us": 0}))
        got = read_frames(sock, 0.4)
    finally:
        sock.close()
    order = ["rsp" if ftype == 0x02 else str(p.get("event")) for _v, ftype, seq, p in got
             if ftype == 0x04 or seq == 3]
    return order != ["card", "card", "card", "rsp"], f"three cards dealt at once (pace_us 0): the shoe's frames in " \
        f"order {order}"


def c_burn_card(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["9H"])
    t.shoe.ok("test.deal", count=1, pace_us=0)
    got = player_round(t, NO_HIT)
    return got != [("lose", 0)], f"a card dealt with no round open (9H), then a round with a Player wager and " \
        f"2C 3D 4H 4S (banker 7 against 6): (category, returned) {got}"


# ---------------------------------------------------------------- the bet sensors
def c_sensors_role(t: Table) -> tuple[bool, str]:
    device_reboot(t, t.sens)
    ans = t.sens.ok("hello", version=1)
    return ans.get("role") != "sensors", f"the bet sensors' reboot, then hello version 1: {ans}"


def c_seat7(t: Table) -> tuple[bool, str]:
    device_reboot(t, t.sens)
    t.open()
    seats = [s["seat"] for s in t.ctl.ok("config.get")["seats"]]
    ans = t.place(7, "player", 1000)
    return not ans["accepted"], f"the bet sensors' reboot (config.get seats {seats}), a round open, a Player wager " \
        f"at seat 7: {ans}"


def c_reason(t: Table) -> tuple[bool, str]:
    t.open()
    refused = t.place(1, "royal9", 500)
    ans = t.place(1, "player", 1000)
    return ans.get("reason") is not None, f"a Royal 9 wager alone at seat 1 ({refused}), then a Player wager " \
        f"there: {ans}"


def c_gate_reconnect(t: Table) -> tuple[bool, str]:
    t.open()
    reconnect(t, "sens", "sensors")
    lock = t.ctl.ok("lockout.get")
    ans = t.place(1, "player", 1000)
    return not ans["accepted"], f"a round open, the host reconnects to the bet sensors (lockout.get {lock}), a " \
        f"Player wager: {ans}"


def c_base_flag(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    removed = t.sens.ok("wager.remove", seat=1, type="player")
    ans = t.place(1, "royal9", 500)
    return ans["accepted"], f"seat 1's Player wager placed and removed ({removed}), then a Royal 9 wager there: " \
        f"{ans} (wager.list {wager_list(t)})"


def c_replaced_remove(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(3, "player", 1000)
    again = t.place(3, "player", 2500)
    kind, ans = t.sens.req("wager.remove", seat=3, type="player")
    return kind != "rsp" or not ans.get("removed"), f"seat 3's Player wager of 1000 placed again at 2500 " \
        f"({again}), wager.remove: {kind} {ans}; wager.list {wager_list(t)}"


# ---------------------------------------------------------------- rounds and the lock-out
def c_refused_unlock(t: Table) -> tuple[bool, str]:
    major_hit(t)
    mark = t.ctl.mark()
    kind, ans = t.ctl.req("round.open")
    ev = t.ctl.wait(mark, lambda e: e["event"] == "lockout" and not e["locked"], 0.3)
    lock = t.ctl.ok("lockout.get")
    return kind != "nak" or ev is not None, f"seat 2's major pending, round.open: {kind} {ans}; an unlock event " \
        f"{ev}; lockout.get {lock}"


def c_key_round(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("reset_key", meter="major")
    ans = t.ctl.ok("round.open")
    return ans["round"] != 2, f"round 1 with seat 2's major, its reset key, round.open: {ans}"


# ---------------------------------------------------------------- settlement
def c_naturals(t: Table) -> tuple[bool, str]:
    got = player_round(t, ["4C", "3S", "5D", "5H"])
    return got != [("win", 2000)], f"a Player wager, player 4C 5D (a natural 9) against banker 3S 5H (a natural " \
        f"8): (category, returned) {got}"


def c_tie_hit(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "tie", 1000)
    evs = t.deal(TIE)
    seat_hits = hits(evs, 1)
    won = [(e["category"], e["returned"]) for e in evs if e["event"] == "payout" and e["seat"] == 1]
    return bool(seat_hits), f"a Tie wager of 1000 at seat 1 on a tie (payout {won}): hit events {seat_hits}"


def c_commission16(t: Table) -> tuple[bool, str]:
    got = player_round(t, NO_HIT, 20000, "banker")
    return got != [("win", 39000)], f"a Banker wager of 20000 wins (banker 7 against 6): (category, returned) {got}"


# ---------------------------------------------------------------- the meters and the reset key
def c_key_contribution(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("reset_key", meter="major")
    after_key = meter(t, "major")
    button_void(t)
    got = meter(t, "major")
    return got != (45003, "0"), f"seat 2's major (45002) paid at its reset key: major (amount, residual) " \
        f"{after_key}; a $5 Royal 9 wager made final: {got}"


def c_lost_round(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("lockout.press")
    before = meter(t, "mega")
    t.power_cycle()
    after = meter(t, "mega")
    return after != before, f"a $5 Royal 9 wager made final by the button: mega (amount, residual) {before}; a " \
        f"power cycle in the round: {after}"


def c_mystery_key(t: Table) -> tuple[bool, str]:
    mark = t.ctl.mark()
    kind, ans = t.ctl.req("reset_key", meter="mystery")
    ev = t.ctl.wait(mark, lambda e: e["event"] == "reset", 0.3)
    return kind != "nak" or ev is not None, f"config.get mystery null, reset_key mystery: {kind} {ans}; reset " \
        f"event {ev}"


def c_key_rsp(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("reset_key", meter="major")
    return kind != "nak", f"nothing pending, reset_key major: {kind} {ans}"


# ---------------------------------------------------------------- configuration
def c_refused_denom(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", denomination=100)
    t.ctl.ok("config.set", meters={"major": {"initial": 9000, "reset": 9000}})
    kind, ans = t.ctl.req("config.set", denomination=500)
    t.open()
    r9_one_dollar(t, 1)
    got = [(h["category"], h["amount"]) for h in hits(t.deal(BANKER_ROYAL9), 1)]
    return got != [("royal9", 500)], f"the $1 table with the major at $90, config.set denomination 500: {kind} " \
        f"{ans.get('reason', ans.get('denomination'))}; a $1 Royal 9 wager, a Royal 9 on the banker hand: hits {got}"


def c_staged_write(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    kind, ans = t.ctl.req("config.set", commission="4")
    t.ctl.ok("round.settle")
    after = t.ctl.ok("config.set", meters={"major": {"rate": "0.5"}})
    return after["commission"] != "5", f"config.set commission 4 with a wager on the layout: {kind} " \
        f"{ans.get('reason')}; the round voided, config.set major rate 0.5: answered commission " \
        f"{after['commission']!r}"


def c_combos_power(t: Table) -> tuple[bool, str]:
    t.power_cycle()
    combo = t.ctl.ok("config.get")["seats"][0]["combo"]
    return combo != ["KS", "9S"], f"a power cycle, config.get seat 1 combo {combo!r}"


# ---------------------------------------------------------------- the line (sections 2 to 4, 7)
def c_events_reconnect(t: Table) -> tuple[bool, str]:
    reconnect(t, "ctl", "controller")
    mark = t.ctl.mark()
    ans = t.ctl.ok("round.open")
    ev = t.ctl.wait(mark, lambda e: e["event"] == "lockout", 0.3)
    return ev is None, f"the host reconnects to the controller, round.open ({ans}): lockout event {ev}"


def c_long_answer(t: Table) -> tuple[bool, str]:
    t.open()
    placed = full_layout(t)
    kind, ans = t.sens.req("wager.list", deadline_s=1.0)
    return kind != "rsp", f"{placed} wagers on the layout, wager.list: {kind} ({len(ans.get('wagers', []))} wagers)"


def c_spaced(t: Table) -> tuple[bool, str]:
    t.ctl.sock.sendall(raw_frame(3101, b'{"cmd": "ping"}'))
    got = answers(t, (3101,))
    return got.get(3101, ("none", {}))[0] != "rsp", f"a ping SEQ 3101 written with a space after the colon: {got}"


def c_partial(t: Table) -> tuple[bool, str]:
    raw = frame(3102, {"cmd": "ping"})
    t.ctl.sock.sendall(raw[:-1])
    time.sleep(0.1)
    t.ctl.sock.sendall(raw[-1:])
    got = answers(t, (3102,))
    return 3102 not in got, f"a ping SEQ 3102 whose last byte comes 100 ms after the others: answers {got}"


def c_empty_payload(t: Table) -> tuple[bool, str]:
    t.ctl.sock.sendall(raw_frame(3103, b""))
    got = answers(t, (3103,))
    kind, _ans = t.ctl.req("ping", deadline_s=0.5)
    return kind != "rsp", f"a frame SEQ 3103 with LEN 0: answers {got}; a ping after it: {kind}"


def c_oversized(t: Table) -> tuple[bool, str]:
    false_head = b"\xa5\x5a" + struct.pack(">BBHH", 1, 0x01, 3104, 5000)
    t.ctl.sock.sendall(false_head + frame(3105, {"cmd": "ping"}))
    got = answers(t, (3104, 3105))
    return 3105 not in got, f"a header announcing 5000 bytes, then a ping SEQ 3105 in one write: answers {got}"


def c_no_answer(t: Table) -> tuple[bool, str]:
    t.ctl.ok("test.fault", kind="no-answer", count=1)
    first, _ = t.ctl.req("round.open", deadline_s=0.5)
    kind, ans = t.ctl.req("round.open")
    return kind != "rsp" or ans.get("round") != 1, f"test.fault no-answer, round.open ({first}), round.open " \
        f"again: {kind} {ans}"


def c_queued(t: Table) -> tuple[bool, str]:
    t.ctl.ok("test.fault", kind="reboot", after_ms=0, duration_ms=300)
    time.sleep(0.05)
    kind, ans = t.ctl.req("round.open", deadline_s=1.0)
    time.sleep(0.3)
    lock = t.ctl.ok("lockout.get")
    return kind != "timeout", f"the controller's reboot (300 ms), round.open 50 ms into it: {kind} {ans}; " \
        f"lockout.get after it {lock}"


def c_ver0(t: Table) -> tuple[bool, str]:
    sock = raw_line(t, "ctl", "controller")
    try:
        sock.sendall(frame(2, {"cmd": "test.fault", "kind": "reboot", "after_ms": 0, "duration_ms": 200}))
        got = read_frames(sock, 0.8)
    finally:
        sock.close()
    evs = [(ver, p.get("event"), p.get("cause")) for ver, ftype, _seq, p in got if ftype == 0x04]
    return not evs or any(ver != 1 for ver, _e, _c in evs), f"the controller's reboot: its events (VER, event, " \
        f"cause) {evs}"


# ---------------------------------------------------------------- the instruments (section 9)
def c_counter_retrigger(t: Table) -> tuple[bool, str]:
    counter = t.ports["counter"]
    scpi(counter, "CONF:TINT (@1),(@2)", "SYST:TIM 2", "INIT", "*OPC?")
    t.shoe.ok("test.load", cards=["5C", *NO_HIT])
    t.shoe.ok("test.deal", count=1, pace_us=0)
    time.sleep(0.2)
    t.open()
    t.shoe.ok("test.deal", count=1, pace_us=0)
    reading = scpi(counter, "FETC?")
    return float(reading or "0") < 0.1, f"the counter armed, a card out with no round open, 200 ms later a round " \
        f"opened and its first card: FETC? {reading!r}"


def c_counter_slope(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    reading, ms = first_card_ms(t, 1)
    return ms > 1.0, f"CONF:TINT, SYST:TIM 1, INIT, a round's first card: FETC? {reading!r}"


def c_counter_stop_first(t: Table) -> tuple[bool, str]:
    counter = t.ports["counter"]
    t.open()
    scpi(counter, "CONF:TINT (@1),(@2)", "SYST:TIM 1", "INIT", "*OPC?")
    t.ctl.ok("lockout.press")
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=1, pace_us=0)
    reading = scpi(counter, "FETC?")
    return reading != "9.91E+37", f"the counter armed with wagering open, the lock-out button, then the first card " \
        f"(no stop edge after it): FETC? {reading!r}"


def c_supply_loss(t: Table) -> tuple[bool, str]:
    mark = t.ctl.mark()
    t.ctl.ok("test.fault", kind="power-loss", after_ms=0)
    time.sleep(0.2)
    power = t.ports["power"]
    scpi(power, "OUTP ON", "*OPC?")
    back = t.ctl.wait(mark, lambda e: e["event"] == "lockout" and e.get("cause") == "power", 1.0)
    kind, _ans = t.ctl.req("ping", deadline_s=0.5)
    return kind != "rsp", f"the power-loss line fault, then OUTP ON: power lockout event {back}; a ping: {kind}; " \
        f"OUTP? {scpi(power, 'OUTP?')!r}"


CHECKS: dict[str, Check] = {
    "card-out-line-off-after-shoe-reboot": c_card_line,
    "shoe-error-sent-as-nak": c_error_nak,
    "instant-deal-answer-before-cards": c_instant_deal,
    "burn-card-kept-in-next-hand": c_burn_card,
    "sensors-hello-role-shoe-after-reboot": c_sensors_role,
    "sensors-seat-7-refused-after-reboot": c_seat7,
    "accepted-answer-carries-last-refusal-reason": c_reason,
    "sensors-gate-closed-after-reconnect": c_gate_reconnect,
    "base-flag-kept-after-removal": c_base_flag,
    "replaced-wager-cannot-be-removed": c_replaced_remove,
    "refused-open-sends-unlock": c_refused_unlock,
    "reset-key-steps-round-number": c_key_round,
    "two-naturals-settled-as-tie": c_naturals,
    "tie-win-sends-hit": c_tie_hit,
    "commission-product-overflows-16-bits": c_commission16,
    "contribution-from-meter-before-key": c_key_contribution,
    "lost-round-contributions-booked-again": c_lost_round,
    "mystery-key-answered-without-mystery": c_mystery_key,
    "key-refusal-sent-as-rsp": c_key_rsp,
    "refused-denomination-moves-paytable": c_refused_denom,
    "refused-write-applied-by-next-write": c_staged_write,
    "combos-read-back-as-strings-at-power-up": c_combos_power,
    "controller-events-lost-after-reconnect": c_events_reconnect,
    "long-answer-cut-at-1024-bytes": c_long_answer,
    "spaced-payload-refused": c_spaced,
    "partial-frame-abandoned-early": c_partial,
    "empty-payload-kills-line": c_empty_payload,
    "oversized-header-flushes-buffer": c_oversized,
    "no-answer-requests-still-executed": c_no_answer,
    "requests-queued-through-reboot": c_queued,
    "event-frames-ver-0-after-reboot": c_ver0,
    "counter-start-retriggered-by-each-card": c_counter_retrigger,
    "counter-conf-sets-stop-slope-negative": c_counter_slope,
    "counter-stop-armed-before-start": c_counter_stop_first,
    "supply-on-ignored-after-power-loss-fault": c_supply_loss,
}


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET17, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
