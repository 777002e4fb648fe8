"""Show each fault of the sixteenth set (indie_table/faults.py FAULTS_SET16) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults16.py [FAULT ...]

As check_faults15.py: the host machinery (the frames, a device line with deadlines, SCPI, starting
and stopping the table by its own pid) comes from check_faults2.py, the acts several scenarios share
from check_helpers.py.  For every fault the independent table is started twice on free 127.0.0.1
ports with a fresh state directory, once clean and once with `--fault NAME`, and one small scenario
speaks the reference protocol (docs/protocol.md sections 2-8, and section 9 for the bench supply and
the time-interval counter) to it.  Every scenario starts on the $5 table; two write the
denomination 100 on the way (the $5 table made a $1 table).  Four scenarios open a second
connection to a device, as a host that reconnects does.  One line per fault: `shows` when the faulty
table gives the faulty answer, `clean ok` when the clean table does not.  Exit status 0 when every
fault shows and every clean run is ok.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_faults2 import NO_HIT, TIE, Check, Line, Table, check_all, frame, payouts, scpi  # noqa: E402
from check_faults15 import scpi_ask  # noqa: E402
from check_helpers import (  # noqa: E402
    BANKER_ROYAL9,
    ENVY_SEAT1,
    MAJOR_SEAT2,
    answers,
    button_void,
    major_hit,
    meter,
    player_round,
    raw_frame,
    reboot,
    wait_power_lockout,
)
from indie_table.faults import FAULTS_SET16  # noqa: E402


def reconnect(t: Table, name: str, role: str) -> dict[str, Any]:
    """Close the host's line to a device and open a new one, as a host reconnecting does; the hello's answer."""
    getattr(t, name).close()
    line = Line(t.ports[role])
    setattr(t, name, line)
    return line.ok("hello", version=1)


def card_ns(t: Table, mark: int, count: int, deadline_s: float = 1.0) -> list[int]:
    """Wait for `count` card events on the shoe's line after `mark`; their n."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        got = [e["n"] for e in t.shoe.since(mark) if e["event"] == "card"]
        if len(got) >= count:
            return got
        time.sleep(0.01)
    return [e["n"] for e in t.shoe.since(mark) if e["event"] == "card"]


# ---------------------------------------------------------------- shoe and cards
def c_status_power(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H", "5S", "6D"])
    t.shoe.ok("test.deal", count=2, pace_us=0)
    t.power_cycle()
    mark = t.shoe.mark()
    t.shoe.ok("test.deal", count=1, pace_us=0)
    ns = card_ns(t, mark, 1)
    st = t.shoe.ok("shoe.status")
    return st["cards_dealt"] != 3, f"two cards dealt, a power cycle, a third card (card event n {ns}): shoe.status " \
        f"{st}"


def c_shoe_ident(t: Table) -> tuple[bool, str]:
    reconnect(t, "shoe", "shoe")
    ident = t.shoe.ok("identity")
    return not ident.get("software_id"), f"the host reconnects to the shoe: identity software_id " \
        f"{ident.get('software_id')!r}"


def c_paced_n(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H", "5S", "6D"])
    mark = t.shoe.mark()
    t.shoe.ok("test.deal", count=2, pace_us=2000)
    card_ns(t, mark, 2)
    time.sleep(0.05)
    t.shoe.ok("test.deal", count=1, pace_us=2000)
    ns = card_ns(t, mark, 3)
    st = t.shoe.ok("shoe.status")
    return ns != [1, 2, 3], f"five cards loaded, a paced deal of two, then a paced deal of one: card events n {ns}; " \
        f"shoe.status cards_dealt {st['cards_dealt']}"


def c_busy(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.load", cards=["2C", "3D", "4H"])
    t.shoe.ok("test.deal", count=3, pace_us=100000)
    kind, ans = t.shoe.req("test.deal", count=1, pace_us=0)
    time.sleep(0.4)
    return kind != "nak" or "reason" not in ans, f"a paced deal under way, test.deal again: {kind} {ans}"


# ---------------------------------------------------------------- wagers and the layout
def c_wager_echo(t: Table) -> tuple[bool, str]:
    reconnect(t, "sens", "sensors")
    t.open()
    mark = t.sens.mark()
    ans = t.place(1, "player", 1000)
    ev = t.sens.wait(mark, lambda e: e["event"] == "wager", 0.3)
    return ev is not None, f"the host reconnects to the bet sensors, wager.place ({ans}): a wager event {ev}"


def c_nmb_latch(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.ctl.ok("round.no_more_bets")
    t.ctl.ok("round.settle")
    t.open()
    lock = t.ctl.ok("lockout.get")
    ans = t.place(1, "player", 1000)
    return not ans["accepted"], f"a round voided after no more bets, the next round opened (lockout.get {lock}), " \
        f"a Player wager: {ans}"


# ---------------------------------------------------------------- lock-out and rounds
def c_nmb_zero(t: Table) -> tuple[bool, str]:
    t.open()
    t.ctl.ok("round.settle")
    reboot(t)
    opened = t.ctl.ok("round.open")
    mark = t.ctl.mark()
    t.ctl.ok("round.no_more_bets")
    ev = t.ctl.wait(mark, lambda e: e["event"] == "no_more_bets")
    return ev is None or ev["round"] != opened["round"], f"a controller reboot, round.open ({opened}), " \
        f"round.no_more_bets: its event {ev}"


def c_void_reboot(t: Table) -> tuple[bool, str]:
    reboot(t)
    t.open()
    t.place(1, "player", 1000)
    kind, ans = t.ctl.req("round.settle")
    return kind != "rsp" or not ans.get("void"), f"a controller reboot, a round opened with a wager and no card " \
        f"out, round.settle: {kind} {ans}"


def c_nmb_lost(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.power_cycle()
    kind, ans = t.ctl.req("round.no_more_bets")
    return kind != "nak", f"a power cycle in round 1, round.no_more_bets: {kind} {ans}"


# ---------------------------------------------------------------- settlement
def c_banker_seat5(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(5, "banker", 1000)
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(NO_HIT), 5, "banker")]
    return got != [("win", 1950)], f"a Banker wager of 1000 at seat 5 wins: (category, returned) {got}"


def c_push_stake(t: Table) -> tuple[bool, str]:
    first = player_round(t, NO_HIT, 1000)
    got = player_round(t, TIE, 2000)
    return got != [("push", 2000)], f"seat 1's Player wager of 1000 loses ({first}); the next round a Player " \
        f"wager of 2000 and a tie: (category, returned) {got}"


def c_last_seat_order(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(7)
    evs = t.deal(BANKER_ROYAL9)
    seen = [(e["event"], e["category"]) for e in evs if e["event"] in ("hit", "payout") and e.get("seat") == 7
            and e.get("type", "royal9") == "royal9"]
    return seen[:2] != [("hit", "royal9"), ("payout", "royal9")], f"seat 7's Royal 9 wager, a Royal 9 on the banker " \
        f"hand: seat 7's Royal 9 events in order {seen}"


def c_pending_seat(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(2)
    t.r9(3)
    t.deal(MAJOR_SEAT2)
    got = [(p["meter"], p["seat"]) for p in t.meters()["pending"]]
    return got != [("major", 2)], f"Royal 9 wagers at seats 2 and 3, seat 2 wins the major: pending (meter, seat) " \
        f"{got}"


# ---------------------------------------------------------------- the meters
def c_denom_residual(t: Table) -> tuple[bool, str]:
    button_void(t)
    before = meter(t, "major")
    t.ctl.ok("config.set", denomination=100)
    after = meter(t, "major")
    return after != before, f"a $5 Royal 9 wager made final: major (amount, residual) {before}; config.set " \
        f"denomination 100: {after}"


def c_reboot_residual(t: Table) -> tuple[bool, str]:
    button_void(t)
    before = meter(t, "major")
    reboot(t)
    after = meter(t, "major")
    return after != before, f"a $5 Royal 9 wager made final: major (amount, residual) {before}; a controller " \
        f"reboot: {after}"


def c_paid_swap(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("reset_key", meter="major")
    before = t.meters()
    reboot(t)
    after = t.meters()
    got = (after["paid_by_table"], after["paid_by_attendant"])
    return got != (before["paid_by_table"], before["paid_by_attendant"]), f"seat 2's major paid at the reset key: " \
        f"(paid_by_table, paid_by_attendant) ({before['paid_by_table']}, {before['paid_by_attendant']}); a " \
        f"controller reboot: {got}"


def c_key_residuals(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.deal(ENVY_SEAT1)
    before = t.meters()["residual"]
    t.ctl.ok("reset_key", meter="mega")
    after = t.meters()["residual"]
    return (after["major"], after["minor"]) != (before["major"], before["minor"]), f"seat 1 wins the mega: " \
        f"residuals {before}; the mega's reset key: {after}"


def c_zero_rate(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", meters={"minor": {"rate": "0"}})["meters"]["minor"]["rate"]
    button_void(t)
    m = t.meters()["meters"]
    return m["major"] != 45002, f"config.set minor rate 0 (answered {ans!r}), a $5 Royal 9 wager made final: " \
        f"meters {m}"


def c_pending_reboot(t: Table) -> tuple[bool, str]:
    major_hit(t)
    before = [(p["meter"], p["amount"]) for p in t.meters()["pending"]]
    reboot(t)
    after = [(p["meter"], p["amount"]) for p in t.meters()["pending"]]
    return after != before, f"seat 2's major pending {before}; a controller reboot: pending {after}"


# ---------------------------------------------------------------- configuration
def c_minor_initial(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", meters={"minor": {"initial": 46000}})["meters"]
    got = (ans["major"]["initial"], ans["minor"]["initial"])
    return got != (45000, 46000), f"config.set minor initial 46000: answered (major, minor) initial {got}"


def c_commission_meters(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", commission="4", meters={"major": {"rate": "0.5"}})
    back = t.ctl.ok("config.get")
    return ans["commission"] != "4" or back["commission"] != "4", f"config.set commission 4 with major rate 0.5: " \
        f"answered commission {ans['commission']!r}, config.get {back['commission']!r}"


def c_limit_power(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", meters={"major": {"payout_limit": 2000000}})["meters"]["major"]["payout_limit"]
    t.power_cycle()
    back = t.ctl.ok("config.get")["meters"]["major"]["payout_limit"]
    return back != 2000000, f"config.set major payout_limit 2000000 (answered {ans}), a power cycle: config.get " \
        f"{back}"


def c_commission_power(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", commission="4.5")["commission"]
    t.power_cycle()
    back = t.ctl.ok("config.get")["commission"]
    return back != "4.5", f"config.set commission 4.5 (answered {ans!r}), a power cycle: config.get {back!r}"


def c_denom_locked(t: Table) -> tuple[bool, str]:
    button_void(t)
    kind, ans = t.ctl.req("config.set", denomination=100)
    shown = ans.get("denomination") if kind == "rsp" else ans.get("reason")
    return kind != "rsp", f"a $5 Royal 9 wager made final, the round voided, config.set denomination 100: {kind} " \
        f"{shown}"


def c_reset_initial(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", denomination=100)
    ans = t.ctl.ok("config.set", meters={"major": {"reset": 40000}})["meters"]["major"]
    return (ans["initial"], ans["reset"]) != (45000, 40000), f"the $1 table, config.set major reset 40000: " \
        f"answered major {ans}"


# ---------------------------------------------------------------- framing (sections 2 to 4)
def c_seq_after_crc(t: Table) -> tuple[bool, str]:
    bad = bytearray(frame(3004, {"cmd": "ping"}))
    bad[-1] ^= 0xFF
    t.ctl.sock.sendall(bytes(bad))
    nak = answers(t, (0,))
    t.ctl.sock.sendall(frame(3005, {"cmd": "ping"}))
    got = answers(t, (3005, 0))
    return 3005 not in got, f"a ping with a bad CRC ({nak}), then a ping SEQ 3005: answers by SEQ {got}"


def c_garbage(t: Table) -> tuple[bool, str]:
    t.ctl.sock.sendall(b"\x00\x13\x37" + frame(3006, {"cmd": "ping"}))
    got = answers(t, (3006,))
    return 3006 not in got, f"three garbage bytes, then a ping SEQ 3006 in one write: answers {got}"


def c_sof_split(t: Table) -> tuple[bool, str]:
    raw = frame(3007, {"cmd": "ping"})
    t.ctl.sock.sendall(raw[:1])
    time.sleep(0.05)
    t.ctl.sock.sendall(raw[1:])
    got = answers(t, (3007,))
    return 3007 not in got, f"a ping SEQ 3007 whose first byte (A5) comes 50 ms before the rest: answers {got}"


def c_len_4096(t: Table) -> tuple[bool, str]:
    head, tail = b'{"cmd":"ping","x-pad":"', b'"}'
    body = head + b"a" * (4096 - len(head) - len(tail)) + tail
    t.ctl.sock.sendall(raw_frame(3008, body))
    got = answers(t, (3008,))
    kind, _ans = t.ctl.req("ping")
    return 3008 not in got, f"a ping SEQ 3008 with a payload of {len(body)} bytes: answers {got}; a ping after it: " \
        f"{kind}"


def c_hello_v2(t: Table) -> tuple[bool, str]:
    ans = reconnect(t, "ctl", "controller")
    return ans.get("protocol") != 1, f"the host reconnects to the controller, hello version 1: {ans}"


def c_meters_slow(t: Table) -> tuple[bool, str]:
    reboot(t)
    t0 = time.perf_counter()
    t.meters()
    ms = (time.perf_counter() - t0) * 1000
    return ms > 100, f"a controller reboot, then meters.get: answered in {ms:.1f} ms"


# ---------------------------------------------------------------- the instruments (section 9)
def c_counter_level(t: Table) -> tuple[bool, str]:
    counter = t.ports["counter"]
    scpi(counter, "CONF:TINT (@1),(@2)", "SYST:TIM 1", "INIT", "*OPC?")
    t.shoe.ok("test.load", cards=["2C"])
    t.shoe.ok("test.deal", count=1, pace_us=0)
    reboot(t)
    reading = scpi_ask(counter, ["FETC?"], 2.0)
    return reading != "9.91E+37", f"the counter armed, a card out with no round open (the lock-out line high), a " \
        f"controller reboot (the line set high again), FETC?: {reading!r}"


def c_counter_opc(t: Table) -> tuple[bool, str]:
    reading = scpi_ask(t.ports["counter"], ["CONF:TINT (@1),(@2)", "SYST:TIM 2", "INIT", "*OPC?"])
    return reading != "1", f"the counter, CONF, SYST:TIM 2, INIT, *OPC?: {reading!r} (within 0.5 s)"


def c_supply_volt(t: Table) -> tuple[bool, str]:
    power = t.ports["power"]
    scpi(power, "VOLT 11.500", "*OPC?")
    before = scpi(power, "VOLT?")
    mark = t.ctl.mark()
    scpi(power, "OUTP OFF", "*OPC?")
    scpi(power, "OUTP ON", "*OPC?")
    wait_power_lockout(t, mark)
    after = scpi(power, "VOLT?")
    return after != "11.500", f"VOLT 11.500 (VOLT? {before!r}), OUTP OFF, OUTP ON: VOLT? {after!r}"


def c_supply_outp(t: Table) -> tuple[bool, str]:
    power = t.ports["power"]
    mark = t.ctl.mark()
    scpi(power, "OUTP OFF", "*OPC?")
    off = scpi(power, "OUTP?")
    scpi(power, "OUTP ON", "*OPC?")
    wait_power_lockout(t, mark)
    on = scpi(power, "OUTP?")
    return (off, on) != ("0", "1"), f"OUTP OFF, OUTP?: {off!r}; OUTP ON, OUTP?: {on!r}"


CHECKS: dict[str, Check] = {
    "shoe-status-count-zeroed-at-power-up": c_status_power,
    "shoe-software-id-empty-after-reconnect": c_shoe_ident,
    "card-n-restarts-each-paced-deal": c_paced_n,
    "busy-nak-without-reason": c_busy,
    "wager-event-echoed-after-sensors-reconnect": c_wager_echo,
    "nmb-refusal-latched-after-void": c_nmb_latch,
    "nmb-event-round-zero-after-reboot": c_nmb_zero,
    "void-refused-in-first-round-after-reboot": c_void_reboot,
    "nmb-taken-for-round-lost-to-power": c_nmb_lost,
    "banker-commission-skipped-past-fourth-seat": c_banker_seat5,
    "push-returns-last-rounds-stake": c_push_stake,
    "last-seat-payout-before-hit": c_last_seat_order,
    "pending-seat-from-last-royal9-wager": c_pending_seat,
    "denomination-write-zeroes-residuals": c_denom_residual,
    "residuals-zeroed-by-reboot": c_reboot_residual,
    "payout-meters-swapped-by-reboot": c_paid_swap,
    "reset-key-zeroes-other-residuals": c_key_residuals,
    "minor-initial-written-to-major-too": c_minor_initial,
    "commission-dropped-beside-meter-write": c_commission_meters,
    "meter-limit-write-lost-at-power-up": c_limit_power,
    "commission-fraction-lost-at-power-up": c_commission_power,
    "denomination-locked-after-contribution": c_denom_locked,
    "reset-write-copies-to-initial": c_reset_initial,
    "answer-seq-zero-after-bad-crc": c_seq_after_crc,
    "frame-after-garbage-dropped": c_garbage,
    "sof-split-across-reads-lost": c_sof_split,
    "frame-len-4096-dropped": c_len_4096,
    "controller-hello-protocol-2-after-reconnect": c_hello_v2,
    "meters-get-slow-after-reboot": c_meters_slow,
    "counter-level-rewrite-taken-as-edge": c_counter_level,
    "counter-opc-waits-for-measurement": c_counter_opc,
    "supply-voltage-setting-lost-on-output-off": c_supply_volt,
    "supply-outp-query-one-behind": c_supply_outp,
    "zero-rate-stops-every-meter": c_zero_rate,
    "pending-amount-reset-after-reboot": c_pending_reboot,
}


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET16, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
