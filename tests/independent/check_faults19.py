"""Show each fault of the nineteenth set (indie_table/faults.py FAULTS_SET19) on the wire, and the clean table not.

  .venv/bin/python tests/independent/check_faults19.py [FAULT ...]

As check_faults18.py: the host machinery (the frames, a device line with deadlines, SCPI, starting
and stopping the table by its own pid) comes from check_faults2.py, the acts several scenarios share
from check_helpers.py (and a host reconnecting to a device, and the shoe's card numbers, from the
sixteenth script).  For every fault the independent table is started twice on free 127.0.0.1 ports
with a fresh state directory, once clean and once with `--fault NAME`, and one small scenario speaks
the reference protocol (docs/protocol.md sections 2-8, and section 9 for the bench supply and the
time-interval counter) to it.  Every scenario starts on the $5 table.  Two scenarios open a second
connection to a device, as a host that reconnects does, and one writes a frame of its own.  One line
per fault: `shows` when the faulty table gives the faulty answer, `clean ok` when the clean table
does not.  Exit status 0 when every fault shows and every clean run is ok.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_faults2 import NO_HIT, Check, Msg, Table, check_all, payouts, scpi  # noqa: E402
from check_faults16 import card_ns, reconnect  # noqa: E402
from check_helpers import (  # noqa: E402
    button_void,
    first_card_ms,
    major_hit,
    meter,
    player_round,
    raw_frame,
    reboot,
    wager_list,
)
from indie_table.faults import FAULTS_SET19  # noqa: E402

# player 2C 4H (6) stands, banker 3D 2S (5) draws the AH: 6 against 6, a tie after a third card
TIE_AFTER_THIRD = ["2C", "3D", "4H", "2S", "AH"]
# player 2C 2D (4) draws the AS (5); banker 3S 3H (6) stands on a third card 1: the Banker wins with 6
BANKER_SIX = ["2C", "3S", "2D", "3H", "AS"]
PLAYER_NATURAL = ["9C", "2D", "TH", "3S"]  # player 9C TH, a natural 9, against 5: no Royal 9 (a ten is no face)
BANKER_RED_ROYAL9 = ["2C", "JH", "3D", "9D"]  # banker JH 9D: a Royal 9 of two suits (both red), natural 9 against 5


def _is_power_lockout(e: Msg) -> bool:
    return e["event"] == "lockout" and e.get("cause") == "power"


# ---------------------------------------------------------------- shoe and cards
def c_misread_n(t: Table) -> tuple[bool, str]:
    mark = t.shoe.mark()
    t.shoe.ok("test.load", cards=["2C", "3D", "4H", "4S", "5C"])
    t.shoe.ok("test.deal", count=1, pace_us=0)
    t.shoe.ok("test.fault", kind="misread")
    t.shoe.ok("test.deal", count=3, pace_us=0)
    got = card_ns(t, mark, 3)
    return got != [1, 3, 4], f"five cards loaded, one dealt, the next misread, three dealt: card events' n {got}"


def c_burst(t: Table) -> tuple[bool, str]:
    mark = t.shoe.mark()
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=4, pace_us=0)
    got = card_ns(t, mark, 4)
    return got != [1, 2, 3, 4], f"four cards dealt at once: card events' n in the order sent {got}"


# ---------------------------------------------------------------- the bet sensors
def c_same_amount(t: Table) -> tuple[bool, str]:
    t.open()
    first = t.place(1, "player", 1000)
    again = t.place(1, "player", 1000)
    return not again["accepted"], f"a $10 Player wager {first}, placed again at $10: {again}"


def c_list_first(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(3, "player", 1000)
    t.place(3, "banker", 2500)
    listed = wager_list(t)
    return listed != [(3, "banker", 2500), (3, "player", 1000)], f"seat 3: Player $10, then Banker $25: " \
        f"wager.list {listed}"


def c_remove_low(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.place(2, "player", 1000)
    kind, ans = t.sens.req("wager.remove", seat=2, type="player")
    listed = wager_list(t)
    return listed != [(1, "player", 1000)], f"Player wagers at seats 1 and 2, wager.remove seat 2: {kind} {ans}; " \
        f"wager.list {listed}"


def c_base_reconnect(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    reconnect(t, "sens", "sensors")
    ans = t.place(1, "royal9", 500)
    return not ans["accepted"], f"a Player wager at seat 1, the host reconnects to the sensors, a $5 Royal 9 wager " \
        f"at seat 1: {ans}"


# ---------------------------------------------------------------- lock-out and rounds
def c_card_relock(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.ctl.ok("lockout.press")
    events = t.deal(NO_HIT)
    locks = [e.get("cause") for e in events if e["event"] == "lockout"]
    return bool(locks), f"a Player wager, the lock-out button, the round dealt: lockout events after the button " \
        f"{locks}"


def c_line_void(t: Table) -> tuple[bool, str]:
    button_void(t)
    t.open()
    reading, _ms = first_card_ms(t, timeout_s=1)
    return reading == "9.91E+37", f"a round voided, the next opened, the counter armed, its first card: FETC? " \
        f"{reading!r}"


def c_void_layout(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    kind, ans = t.ctl.req("round.settle")
    return kind != "rsp", f"a round open with a Player wager, no card out, round.settle: {kind} {ans}"


def c_nmb_second(t: Table) -> tuple[bool, str]:
    player_round(t, NO_HIT)
    t.open()
    kind, ans = t.ctl.req("round.no_more_bets")
    return kind != "rsp", f"a round dealt and settled, the next opened, round.no_more_bets: {kind} {ans}"


# ---------------------------------------------------------------- settlement
def c_banker_six(t: Table) -> tuple[bool, str]:
    got = player_round(t, BANKER_SIX, kind="banker")
    return got != [("win", 1950)], f"a $10 Banker wager, the Banker wins with 6 against 5 after a third card: " \
        f"(category, returned) {got}"


def c_tie_third(t: Table) -> tuple[bool, str]:
    got = player_round(t, TIE_AFTER_THIRD, kind="tie")
    return got != [("win", 9000)], f"a $10 Tie wager, 6 against 6 after the banker's third card: (category, " \
        f"returned) {got}"


def c_replaced_sum(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.place(1, "player", 2000)
    got = [(p["stake"], p["returned"]) for p in payouts(t.deal(PLAYER_NATURAL), 1, "player")]
    return got != [(2000, 4000)], f"a $10 Player wager placed again at $20, the Player wins: (stake, returned) {got}"


def c_colour(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    got = [(p["category"], p["returned"]) for p in payouts(t.deal(BANKER_RED_ROYAL9), 1, "royal9")]
    return got != [("royal9", 3000)], f"a $5 Royal 9 wager at seat 1, the banker's JH 9D: (category, returned) {got}"


def c_commission_late(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", commission="4")
    got = player_round(t, NO_HIT, kind="banker")
    return got != [("win", 1960)], f"commission written 4, a $10 Banker wager wins: (category, returned) {got}"


# ---------------------------------------------------------------- progressive meters
def c_walk(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.r9(3)
    t.ctl.ok("round.no_more_bets")
    got = meter(t, "mega")
    return got != (5000012, "0.5"), f"$5 Royal 9 wagers at seats 1 and 3, no more bets: mega (amount, residual) {got}"


def c_display(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("round.no_more_bets")
    got = meter(t, "mega")
    return got != (5000006, "0.25"), f"a $5 Royal 9 wager, no more bets: mega (amount, residual) {got}"


def c_diverted(t: Table) -> tuple[bool, str]:
    t.ctl.ok("config.set", meters={"major": {"payout_limit": 45001}})
    t.open()
    t.r9(1)
    t.ctl.ok("round.no_more_bets")
    m = t.meters()
    got = (m["meters"]["major"], m["diverted"]["major"], m["residual"]["major"])
    return got[0] != 45001, f"the major's payout limit written 45001, a $5 Royal 9 wager contributes 2.5: major " \
        f"(amount, diverted, residual) {got}"


# ---------------------------------------------------------------- payout meters and the reset key
def c_key_twice(t: Table) -> tuple[bool, str]:
    major_hit(t)
    reboot(t)
    t.ctl.ok("reset_key", meter="major")
    m = t.meters()
    got = (m["cumulative_paid"], m["paid_by_attendant"])
    return got != (45002, 45002), f"the major won (45002), the controller's reboot, the reset key: " \
        f"(cumulative_paid, paid_by_attendant) {got}"


def c_dollars(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("reset_key", meter="major")
    m = t.meters()
    got = (m["cumulative_paid"], m["paid_by_table"], m["paid_by_attendant"])
    return got != (45002, 0, 45002), f"the major won (45002), the reset key: (cumulative_paid, paid_by_table, " \
        f"paid_by_attendant) {got}"


def c_open_after_key(t: Table) -> tuple[bool, str]:
    major_hit(t)
    t.ctl.ok("reset_key", meter="major")
    pending = t.meters()["pending"]
    kind, ans = t.ctl.req("round.open")
    return kind != "rsp", f"the major won, the reset key (pending {pending}), round.open: {kind} {ans}"


# ---------------------------------------------------------------- configuration
def c_rate_text(t: Table) -> tuple[bool, str]:
    ans = t.ctl.ok("config.set", meters={"major": {"rate": "0.4"}})
    got = (ans["meters"]["major"]["rate"], t.ctl.ok("config.get")["meters"]["major"]["rate"])
    return got != ("0.4", "0.4"), f"config.set major rate \"0.4\": (answered, config.get) {got}"


def c_mid_deal(t: Table) -> tuple[bool, str]:
    t.open()
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=2, pace_us=0)
    kind, ans = t.ctl.req("config.set", commission="4")
    return kind == "rsp", f"a round open with no wager, two cards dealt, config.set commission 4: {kind} " \
        f"{ans.get('reason', ans.get('commission'))}"


def c_combos(t: Table) -> tuple[bool, str]:
    t.power_cycle()
    seats = t.ctl.ok("config.get")["seats"]
    got = [(s["seat"], s["combo"]) for s in seats[:2]]
    return got != [(1, ["KS", "9S"]), (2, ["KH", "9H"])], f"a power cycle, config.get: seats 1 and 2 {got}"


# ---------------------------------------------------------------- identity and hello
def c_serial(t: Table) -> tuple[bool, str]:
    t.power_cycle()
    serial = t.ctl.ok("identity")["serial"]
    return serial != "ITW-C-0001", f"a power cycle, the controller's identity: serial {serial!r}"


def c_hello(t: Table) -> tuple[bool, str]:
    first = t.ctl.req("hello", version=2, versions=[2])
    second = t.ctl.req("hello", version=1)
    return second[0] != "rsp", f"hello offering version 2 alone: {first}; then version 1 alone: {second}"


# ---------------------------------------------------------------- power cycles, reboots, the link, reconnecting
def c_checkpoint(t: Table) -> tuple[bool, str]:
    t.open()
    t.r9(1)
    t.ctl.ok("round.no_more_bets")
    before = meter(t, "mega")
    reboot(t)
    after = meter(t, "mega")
    return after != before, f"a $5 Royal 9 wager, no more bets: mega {before}; the controller's reboot: mega {after}"


def c_link_void(t: Table) -> tuple[bool, str]:
    t.open()
    t.place(1, "player", 1000)
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=2, pace_us=0)
    mark = t.ctl.mark()
    t.ctl.ok("test.link", up=False)
    ev = t.ctl.wait(mark, lambda e: e["event"] == "round_end", 0.3)
    return ev is not None, f"a Player wager, two cards dealt, the sensors link cut: round_end {ev}"


def c_reconnect_power(t: Table) -> tuple[bool, str]:
    t.open()
    reconnect(t, "ctl", "controller")
    ev = t.ctl.wait(0, _is_power_lockout, 0.5)
    lock = t.ctl.ok("lockout.get")
    return ev is not None, f"a round open, the host reconnects to the controller: power lockout event {ev}; " \
        f"lockout.get {lock}"


# ---------------------------------------------------------------- framing and the line faults
def c_resync(t: Table) -> tuple[bool, str]:
    good = raw_frame(4101, b'{"cmd":"ping"}')
    t.ctl.sock.sendall(good[:-1] + bytes([good[-1] ^ 0xFF]))  # the CRC's last byte broken
    time.sleep(0.05)
    start = time.monotonic()
    kind, _ans = t.ctl.req("ping", deadline_s=1.0)
    ms = (time.monotonic() - start) * 1000
    return ms > 100, f"a ping frame with a bad CRC, 50 ms later a ping: {kind} after {ms:.0f} ms"


def c_long_len(t: Table) -> tuple[bool, str]:
    kind, ans = t.ctl.req("config.get", deadline_s=0.5)
    return kind != "rsp", f"config.get (an answer of some 700 bytes): {kind} {sorted(ans)[:4]}"


def c_disconnect(t: Table) -> tuple[bool, str]:
    t.shoe.ok("test.fault", kind="disconnect", after_ms=50)
    time.sleep(0.3)
    try:
        kind, _ans = t.ctl.req("ping", deadline_s=0.5)
    except OSError as exc:
        kind = f"line closed ({exc.__class__.__name__})"
    return kind != "rsp", f"the shoe's disconnect line fault, 300 ms later a ping to the controller: {kind}"


# ---------------------------------------------------------------- the instruments (section 9)
def c_fetch_twice(t: Table) -> tuple[bool, str]:
    t.open()
    first, _ms = first_card_ms(t)
    second = scpi(t.ports["counter"], "FETC?")
    return second != first, f"a round's first card measured: FETC? {first!r}, FETC? again {second!r}"


def c_inf(t: Table) -> tuple[bool, str]:
    counter = t.ports["counter"]
    scpi(counter, "CONF:TINT (@1),(@2)", "SYST:TIM INF", "INIT", "*OPC?")
    t.open()
    t.shoe.ok("test.load", cards=NO_HIT)
    t.shoe.ok("test.deal", count=1, pace_us=0)
    reading = scpi(counter, "FETC?")
    return reading == "9.91E+37", f"SYST:TIM INF, INIT, a round's first card: FETC? {reading!r}"


def c_opc(t: Table) -> tuple[bool, str]:
    power = t.ports["power"]
    off = scpi(power, "OUTP OFF", "*OPC?")
    on = scpi(power, "OUTP ON", "*OPC?")
    return off != "1", f"OUTP OFF, *OPC?: {off!r}; OUTP ON, *OPC?: {on!r}"


CHECKS: dict[str, Check] = {
    "misread-restarts-card-n": c_misread_n,
    "burst-card-events-newest-first": c_burst,
    "same-amount-placed-again-refused": c_same_amount,
    "wager-list-seat-amount-from-first-area": c_list_first,
    "remove-index-one-seat-low": c_remove_low,
    "sensors-reconnect-forgets-base-flags": c_base_reconnect,
    "card-relocks-after-button": c_card_relock,
    "lock-line-held-after-void": c_line_void,
    "void-refused-with-wagers-on-layout": c_void_layout,
    "nmb-refused-in-second-round": c_nmb_second,
    "banker-six-pays-half": c_banker_six,
    "tie-wager-wins-only-on-two-card-tie": c_tie_third,
    "replaced-base-wager-settled-at-sum": c_replaced_sum,
    "suited-check-compares-colour": c_colour,
    "commission-write-takes-effect-round-late": c_commission_late,
    "contribution-walk-stops-at-empty-seat": c_walk,
    "meters-get-refreshed-at-settlement": c_display,
    "meters-get-adds-diverted-to-meter": c_diverted,
    "key-after-reboot-books-payment-twice": c_key_twice,
    "attendant-meter-kept-in-dollars": c_dollars,
    "open-refused-once-after-key": c_open_after_key,
    "written-rate-kept-as-display-text": c_rate_text,
    "config-write-taken-mid-deal": c_mid_deal,
    "combos-loaded-one-seat-on-after-power-cycle": c_combos,
    "controller-serial-crlf-after-power-cycle": c_serial,
    "hello-refusal-latched": c_hello,
    "reboot-loads-round-open-checkpoint": c_checkpoint,
    "link-loss-mid-deal-voids-round": c_link_void,
    "reconnect-announces-power-lockout": c_reconnect_power,
    "resync-waits-after-bad-crc": c_resync,
    "long-answer-len-little-endian": c_long_len,
    "disconnect-drops-every-line": c_disconnect,
    "counter-fetch-clears-result": c_fetch_twice,
    "counter-timeout-inf-read-as-zero": c_inf,
    "supply-opc-reads-output-ready": c_opc,
}


def main(argv: list[str]) -> int:
    return check_all(CHECKS, FAULTS_SET19, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
